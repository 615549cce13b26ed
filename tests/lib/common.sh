# blk-mpath guest test library.  Each scenario file starts with
#   # DESCRIPTION: one line
#   # REQUIRES: cmd:fio mod:scsi_debug engine:stock ...   (optional)
# sources this file, and exits 0 (pass), 77 (skip) or anything else (fail).
# shellcheck shell=bash

export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
ENGINE=${ENGINE:-stock}
LUN_SERIAL=BLKMPATHLUN0
MODPROBE_SWITCH=/etc/modprobe.d/blk-mpath.conf

say()  { echo "# $*"; }
fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }
# run CMD...: print and run a command
run()  { echo "+ $*"; "$@"; }

expect_eq() { # actual expected what
	if [ "$1" != "$2" ]; then
		echo "mismatch in $3:"
		echo "  expected: '$2'"
		echo "  actual:   '$1'"
		fail "$3"
	fi
	say "ok: $3"
}

expect_match() { # actual regex what
	[[ $1 =~ $2 ]] || { echo "  actual: '$1'"; echo "  regex:  '$2'"; fail "$3"; }
	say "ok: $3"
}

# kernel_problems < dmesg-text : prints and succeeds if the kernel complained
kernel_problems() {
	grep -E 'Oops|BUG:|Kernel panic|WARNING:|KASAN|UBSAN|possible circular locking|possible recursive locking|general protection fault|INFO: task .* blocked for more|Call Trace|list_add corruption|list_del corruption'
}

# requires_missing FILE : why the scenario cannot run here (empty: it can)
requires_missing() {
	local r
	for r in $(sed -n 's/^# REQUIRES: //p' "$1"); do
		case $r in
		cmd:*) command -v "${r#cmd:}" >/dev/null || { echo "needs command ${r#cmd:}"; return; } ;;
		mod:*) modinfo "${r#mod:}" >/dev/null 2>&1 || { echo "needs module ${r#mod:}"; return; } ;;
		engine:*) [ "$ENGINE" = "${r#engine:}" ] || { echo "only for ENGINE=${r#engine:}"; return; } ;;
		esac
	done
}

# stock_unload: remove stock dm-multipath and its selectors (no error if absent)
stock_unload() {
	modprobe -r dm-round-robin dm-queue-length dm-service-time dm-historical-service-time \
		dm-io-affinity dm-multipath 2>/dev/null
	true
}

# ---- engine selection: the migration switch ----------------------------------
# ENGINE=stock: dm-multipath is the stock module.  ENGINE=new: one modprobe.d
# line makes every "modprobe dm-multipath" (dm core, multipathd, people) load
# blk-mpath's thin target instead.  Removing the line switches back.
# engine_select also unloads the other engine's module if nothing uses it
# (e.g. loaded at boot by modules-load.d before the switch was written).
engine_select() {
	case $1 in
	stock)
		rm -f "$MODPROBE_SWITCH"
		lsmod | grep -q '^dm_blk_mpath ' && modprobe -r dm-blk-mpath
		;;
	new)
		echo "install dm-multipath /sbin/modprobe --ignore-install dm-blk-mpath \$CMDLINE_OPTS" >"$MODPROBE_SWITCH"
		lsmod | grep -q '^dm_multipath ' && stock_unload
		;;
	*) echo "unknown engine '$1'"; return 1 ;;
	esac
	true
}

# engine_load: make sure the "multipath" target of the selected engine is there
engine_load() {
	modprobe dm-multipath || fail "modprobe dm-multipath failed"
	if [ "$ENGINE" = stock ]; then
		modprobe dm-round-robin && modprobe dm-queue-length && modprobe dm-service-time &&
			modprobe dm-historical-service-time && modprobe dm-io-affinity ||
			fail "cannot load the stock path selectors"
		lsmod | grep -q '^dm_blk_mpath ' && fail "ENGINE=stock but dm_blk_mpath is loaded"
	else
		lsmod | grep -q '^dm_blk_mpath ' || fail "ENGINE=new but dm_blk_mpath is not loaded"
		lsmod | grep -q '^dm_multipath ' && fail "ENGINE=new but stock dm_multipath is loaded"
	fi
	dmsetup targets | grep -q '^multipath *v1\.14\.0' || fail "multipath target v1.14.0 not registered"
}

# ---- devices -------------------------------------------------------------------
settle() { udevadm settle -t 30 2>/dev/null || true; }
mm() { # /dev/sdX -> MAJ:MIN
	local d=$1; [ -b "$d" ] || d=/dev/$d
	printf '%d:%d' "0x$(stat -c %t "$d")" "0x$(stat -c %T "$d")"
}
sectors() { blockdev --getsz "$1"; }

# lun_paths: the sdX names of the QEMU two-path LUN (sorted)
lun_paths() {
	local d
	for d in /sys/block/sd*; do
		[ -e "$d/device/vendor" ] || continue
		grep -q QEMU "$d/device/vendor" || continue
		basename "$d"
	done | sort
}

# sdebug_setup [extra module params]: one scsi_debug LUN behind 2 hosts.
# Sets SD_PATHS (sdX names).
sdebug_setup() {
	local hosts=2
	[ $# -gt 0 ] && case $1 in add_host=*) hosts=${1#add_host=}; shift ;; esac
	lsmod | grep -q '^scsi_debug ' && modprobe -r scsi_debug
	modprobe scsi_debug add_host="$hosts" vpd_use_hostno=0 dev_size_mb=64 num_tgts=1 max_luns=1 \
		delay=0 "$@" || fail "modprobe scsi_debug failed"
	settle
	local i
	for i in $(seq 50); do
		SD_PATHS=($(for d in /sys/block/sd*; do
			grep -qs scsi_debug "$d/device/model" && basename "$d"; done | sort))
		[ ${#SD_PATHS[@]} -ge "$hosts" ] && break
		sleep 0.2
	done
	[ ${#SD_PATHS[@]} -ge "$hosts" ] || fail "scsi_debug: expected $hosts paths, got ${#SD_PATHS[@]}"
	say "scsi_debug paths: ${SD_PATHS[*]}"
}
sdebug_teardown() { lsmod | grep -q '^scsi_debug ' && modprobe -r scsi_debug; true; }

# path_state sdX offline|running
path_state() { echo "$2" >"/sys/block/$1/device/state"; }

# ---- device-mapper ------------------------------------------------------------------
dm_table()  { dmsetup table "$1" | sed "s/^[0-9]* [0-9]* multipath //"; }
dm_status() { dmsetup status "$1" | sed "s/^[0-9]* [0-9]* multipath //"; }
dm_events() { dmsetup info -c --noheadings -o events "$1" | tr -d ' '; }
dm_wait_event_change() { # map old_count
	local i
	for i in $(seq 50); do [ "$(dm_events "$1")" != "$2" ] && return 0; sleep 0.1; done
	return 1
}
# dm_remove NAME: remove a map once udev's own openers (blkid after a
# close-after-write "change" event) have let go of it
dm_remove() {
	local i
	settle
	for i in $(seq 20); do
		dmsetup remove "$1" 2>/dev/null && return 0
		sleep 0.5
	done
	dmsetup remove "$1"
}
dm_create() { # name table
	echo "+ dmsetup create $1 --table '$2'"
	dmsetup create "$1" --table "$2"
}

multipathd_start() {
	systemctl start multipathd.service || { journalctl -u multipathd --no-pager | tail -20; fail "multipathd did not start"; }
	local i
	for i in $(seq 60); do multipathd show maps 2>/dev/null | grep -q mpath && return 0; sleep 1; done
	multipathd show maps; fail "multipathd assembled no map in 60 s"
}
multipathd_stop() {
	local i
	systemctl stop multipathd.service multipathd.socket 2>/dev/null
	settle
	for i in $(seq 10); do
		multipath -F >/dev/null 2>&1
		dmsetup ls --target multipath 2>/dev/null | grep -q . || return 0
		sleep 1
	done
	echo "multipathd_stop: maps left: $(dmsetup ls --target multipath | tr '\n' ' ')"
}

# Between scenarios: no multipathd, no maps, no scsi_debug, paths running.
test_cleanup() {
	local d
	multipathd_stop
	for d in /sys/block/sd*/device/state; do
		[ -e "$d" ] && [ "$(cat "$d")" != running ] && echo running >"$d"
	done
	pkill -9 fio 2>/dev/null
	dmsetup remove_all --force >/dev/null 2>&1
	sdebug_teardown
	lsmod | grep -q '^null_blk ' && modprobe -r null_blk
	engine_select "$ENGINE"
	true
}

# dm_path_states MAP: the A/F state of every path in status order, e.g. "AF"
dm_path_states() {
	dm_status "$1" | grep -oE '[0-9]+:[0-9]+ [AF] ' | awk '{printf "%s", $2}'
}

# path_vars DEV1 DEV2 ... : A and B = MAJ:MIN of the first two paths,
# N = size of the first in sectors (the usual table ingredients)
path_vars() { A=$(mm "$1"); B=$(mm "$2"); N=$(sectors "/dev/$1"); }
