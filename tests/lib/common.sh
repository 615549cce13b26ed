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
# now_ms: milliseconds since the epoch (EPOCHREALTIME: bash 5; its decimal
# point follows the locale, so every non-digit is dropped)
now_ms() { local t=${EPOCHREALTIME//[!0-9]/}; echo $((t / 1000)); }
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
		# blk-mpath's target, for a fault scenario, only where it runs
		# the blk-mpath half (not on the vanilla kernel: fault_engines=stock)
		mod:dm-blk-mpath) case " ${FAULT_ENGINES:-new} " in *" new "*)
			modinfo dm-blk-mpath >/dev/null 2>&1 || { echo "needs module dm-blk-mpath"; return; } ;;
			esac ;;
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
# The image ships blk-mpath's target twice: extra/dm-blk-mpath.ko (its own
# name; can run beside stock for a live handover) and
# extra/blk-mpath/dm-multipath.ko, the same target under the stock module's
# name.  /usr/lib/depmod.d/blk-mpath.conf makes depmod prefer the stock
# dm-multipath.ko; the switch is one line in /etc/depmod.d/blk-mpath.conf
# (same file name, so it replaces the packaged one) that prefers blk-mpath's,
# and a depmod.  Then "modprobe dm-multipath" (dm core, multipathd, people),
# "modprobe -r dm-multipath", "options dm_multipath ..." lines and
# /sys/module/dm_multipath/parameters/ all reach blk-mpath.  Removing the
# line (and depmod) switches back.  engine_select also unloads the other
# engine's module if nothing uses it.
DEPMOD_SWITCH=/etc/depmod.d/blk-mpath.conf
# is the loaded dm_multipath module blk-mpath's? (it depends on the engine)
dm_multipath_is_ours() { [ -e /sys/module/blk_mpath/holders/dm_multipath ]; }
engine_select() {
	rm -f "$MODPROBE_SWITCH"	# the switch of earlier versions
	case $1 in
	stock)
		if [ -e "$DEPMOD_SWITCH" ]; then rm -f "$DEPMOD_SWITCH"; depmod -a; fi
		lsmod | grep -q '^dm_blk_mpath ' && modprobe -r dm-blk-mpath
		dm_multipath_is_ours && modprobe -r dm-multipath
		;;
	new)
		if [ ! -e "$DEPMOD_SWITCH" ]; then
			mkdir -p "${DEPMOD_SWITCH%/*}"
			echo "override dm-multipath * extra/blk-mpath" >"$DEPMOD_SWITCH"
			depmod -a
		fi
		lsmod | grep -q '^dm_multipath ' && ! dm_multipath_is_ours && stock_unload
		lsmod | grep -q '^dm_blk_mpath ' && modprobe -r dm-blk-mpath
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
		dm_multipath_is_ours && fail "ENGINE=stock but dm_multipath is blk-mpath's"
		lsmod | grep -q '^dm_blk_mpath ' && fail "ENGINE=stock but dm_blk_mpath is loaded"
	else
		dm_multipath_is_ours || fail "ENGINE=new but dm_multipath is not blk-mpath's"
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

# sdebug_no_alua: call before loading scsi_debug with vpd_use_hostno=0
# (one LU seen through every host), which also makes scsi_debug claim
# implicit TPGS and report the ALUA state host_no % 3 (2 = standby): with
# scsi_dh_alua loaded (multipathd, LIO, a "1 alua" table earlier in the
# boot) it attaches at scan and refuses I/O to such a path, which then
# depends on the host numbers the boot handed out.  Only a caller that
# sets SDEBUG_ALUA=1 wants it.
sdebug_no_alua() {
	if [ "${SDEBUG_ALUA:-0}" = 0 ] && [ -d /sys/module/scsi_dh_alua ]; then
		modprobe -r scsi_dh_alua ||
			fail "scsi_dh_alua is in use: scsi_debug paths would get ALUA states from their host numbers"
	fi
}

# sdebug_setup [extra module params]: one scsi_debug LUN behind 2 hosts.
# Sets SD_PATHS (sdX names).
sdebug_setup() {
	local hosts=2
	[ $# -gt 0 ] && case $1 in add_host=*) hosts=${1#add_host=}; shift ;; esac
	lsmod | grep -q '^scsi_debug ' && modprobe -r scsi_debug
	sdebug_no_alua
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
	if [ "${SDEBUG_ALUA:-0}" = 0 ]; then
		for i in "${SD_PATHS[@]}"; do
			[ "$(cat /sys/block/$i/device/dh_state 2>/dev/null)" = alua ] &&
				fail "scsi_dh_alua attached to $i (ALUA state $(cat /sys/block/$i/device/access_state 2>/dev/null))"
		done
	fi
	say "scsi_debug paths: ${SD_PATHS[*]}"
}
sdebug_teardown() { lsmod | grep -q '^scsi_debug ' && modprobe -r scsi_debug; true; }

# path_state sdX offline|running
path_state() { echo "$2" >"/sys/block/$1/device/state"; }

# dmesg_mark / dmesg_since: the kernel lines logged after the mark.  The
# mark is a line written to the log itself: a line count is wrong once the
# ring buffer wraps, which a whole suite in one boot does.  A mark that
# has wrapped away fails the caller rather than show stale lines.
dmesg_mark() {
	DMESG_MARK="blk-mpath-test-mark $$.$RANDOM.$SECONDS"
	echo "$DMESG_MARK" >/dev/kmsg
}
dmesg_since() {
	dmesg | awk -v m="$DMESG_MARK" 'f {print; next} index($0, m) {f = 1} END {if (!f) exit 1}' ||
		{ echo "dmesg_since: the mark '$DMESG_MARK' is no longer in the kernel log" >&2; return 1; }
}

# ---- device-mapper ------------------------------------------------------------------
dm_table()  { dmsetup table "$1" | sed "s/^[0-9]* [0-9]* multipath //"; }
dm_status() { dmsetup status "$1" | sed "s/^[0-9]* [0-9]* multipath //"; }
dm_events() { dmsetup info -c --noheadings -o events "$1" | tr -d ' '; }
dm_wait_event_change() { # map old_count
	local i
	for i in $(seq 50); do [ "$(dm_events "$1")" != "$2" ] && return 0; sleep 0.1; done
	return 1
}
# when_unopened CMD...: run a command that removes maps (dmsetup remove,
# kpartx -d) once udev's own openers have let go of them: a close after a
# write makes udev send a "change" event and blkid open the device for a
# moment, which makes the removal fail with EBUSY. Bounded: 20 tries 0.5 s
# apart after udev settles; the last try's error is shown.
when_unopened() {
	local i
	settle
	for i in $(seq 20); do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.5
	done
	"$@"
}
# dm_remove NAME
dm_remove() { when_unopened dmsetup remove "$1"; }
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
		dmsetup ls --target multipath 2>/dev/null | grep -qv "^No devices found" || return 0
		sleep 1
	done
	echo "multipathd_stop: maps left: $(dmsetup ls --target multipath | tr '\n' ' ')"
}

# ---- host control: faults on one path of the QEMU LUN -----------------------------
# The host agent (scripts/hostctl.py) listens on the guest's ttyS1:
#   hostctl [-t SECS] CMD ARGS...   send "REQ <id> CMD ARGS", wait (default 30 s)
#                                   for "ACK <id> OK|ERR text"; print the text;
#                                   0 for OK, 1 for ERR or timeout.
# Commands (P = path 0|1, i.e. scsi-hd hdP on virtio-scsi HBA P):
#   ping | state | help
#   inject P EVENT ERRNO [sector=N] [once=on|off] [count=N] [iotype=read|write|flush|...]
#          blkdebug error rule (events: read_aio write_aio flush_to_disk ...;
#          errno: number or EIO ENODATA EREMOTEIO EBADE ENOMEDIUM ENOSPC EINVAL;
#          iotype defaults to the event's: read_aio fails reads only, etc.);
#          rules on one path accumulate until "clear P" (a later inject on the
#          path re-arms once/count rules); a rule failing flushes is once-only
#          (default count=100: QEMU could not remove a persistent one again)
#   clear P            path P back to healthy (also releases its breaks)
#   break P EVENT TAG  the next request raising EVENT on path P hangs in QEMU;
#                      "state" shows TAG(armed=1), then TAG(held=1)
#   resume P TAG | resume-all P   release what TAG (or every tag) holds
#   throttle P IOPS|off           make path P slow
#   unplug P | plug P [prop=val]  hot-remove / re-add the path's scsi-hd (plug
#                                 properties, e.g. dpofua=on, for that plug only)
# While a break is outstanding the agent refuses inject/clear/throttle/unplug
# (a held request would hang QEMU's drain): resume first.  A scenario that needs
# the agent checks "hostctl_available || skip ..."; test_cleanup (hostctl_reset)
# undoes whatever a scenario left behind.
HOSTCTL_TTY=${HOSTCTL_TTY:-/dev/ttyS1}
HOSTCTL_LOCK=${HOSTCTL_LOCK:-/run/blkmpath-hostctl.lock}
HOSTCTL_SEQ=0
hostctl() {
	local tmo=30 fd lk id line end rem text rc ok=0
	if [ "$1" = -t ]; then tmo=$2; shift 2; fi
	[ $# -gt 0 ] || { echo "hostctl: no command" >&2; return 1; }
	[ -c "$HOSTCTL_TTY" ] || { echo "hostctl $1: no $HOSTCTL_TTY" >&2; return 1; }
	end=$((SECONDS + tmo))
	# one request at a time on the line (replies are read by whoever listens)
	exec {lk}>>"$HOSTCTL_LOCK" || return 1
	if ! flock -w "$tmo" "$lk"; then
		exec {lk}>&-; echo "hostctl $*: timeout: $HOSTCTL_TTY busy for ${tmo}s" >&2; return 1
	fi
	if ! stty -F "$HOSTCTL_TTY" raw -echo -echonl -echoctl -echoke -ixon -ixoff clocal 115200 2>/dev/null ||
		! exec {fd}<>"$HOSTCTL_TTY"; then
		exec {lk}>&-; echo "hostctl $*: cannot set up $HOSTCTL_TTY" >&2; return 1
	fi
	# drop whatever is still queued (a late ACK of an earlier, timed-out request)
	while read -r -t 0.05 -u "$fd" line; do :; done
	HOSTCTL_SEQ=$((HOSTCTL_SEQ + 1))
	id=g$BASHPID-$HOSTCTL_SEQ-$RANDOM
	printf '\nREQ %s %s\n' "$id" "$*" >&"$fd"
	text=
	while :; do
		rem=$((end - SECONDS))
		[ "$rem" -gt 0 ] || { text="timeout: no answer from the host agent in ${tmo}s"; break; }
		IFS= read -r -t "$rem" -u "$fd" line
		rc=$?
		if [ $rc -ne 0 ]; then
			# > 128: timed out (the loop re-checks the time); else EOF/error: do not spin
			[ $rc -gt 128 ] || sleep 0.2
			continue
		fi
		line=${line//$'\r'/}
		if [[ $line =~ ACK\ $id\ (OK|ERR)( (.*))?$ ]]; then
			text=${BASH_REMATCH[3]}
			[ "${BASH_REMATCH[1]}" = OK ] && ok=1
			break
		fi
	done
	exec {fd}>&- {lk}>&-
	if [ $ok = 1 ]; then
		[ -n "$text" ] && echo "$text"
		return 0
	fi
	echo "hostctl $*: ${text:-ERR}" >&2
	return 1
}
# hostctl_available: the agent answers a ping within 5 s
hostctl_available() {
	[ -c "$HOSTCTL_TTY" ] || return 1
	# an 8250 port that does not exist has type 0 (unknown)
	local t=/sys/class/tty/${HOSTCTL_TTY#/dev/}/type
	[ ! -e "$t" ] || [ "$(cat "$t")" != 0 ] || return 1
	hostctl -t 5 ping >/dev/null 2>&1
}
# hostctl_reset: no held request, no fault filter, every path plugged; waits
# for the guest to see both LUN paths again if one had to be re-plugged.
# Whether there is an agent at all is decided once per boot (markers in /run),
# so a guest booted without one does not wait at every cleanup.
HOSTCTL_STATE=${HOSTCTL_STATE:-/run/blkmpath-hostctl}
hostctl_reset() {
	local p out replugged=0 i
	if [ ! -e "$HOSTCTL_STATE.present" ]; then
		[ -e "$HOSTCTL_STATE.absent" ] && return 0
		if ! hostctl_available; then
			: >"$HOSTCTL_STATE.absent"
			echo "hostctl: no host agent on $HOSTCTL_TTY; no fault cleanup in this boot"
			return 0
		fi
		: >"$HOSTCTL_STATE.present"
	fi
	# the first request may queue behind a long one of a test that was killed
	hostctl -t 60 resume-all 0
	hostctl resume-all 1
	for p in 0 1; do hostctl clear $p; done
	for p in 0 1; do
		out=$(hostctl plug $p) || continue
		echo "$out"
		[[ $out == *added* ]] && replugged=1
	done
	if [ $replugged = 1 ]; then
		for i in $(seq 60); do
			[ "$(lun_paths | wc -l)" -ge 2 ] && break
			sleep 0.5
		done
		settle
	fi
	true
}

# the engine's trace events (tests/lib/faults.sh mp_trace_on): disabled,
# the completion filter cleared, the buffer emptied, tracing on again
MP_TR=/sys/kernel/debug/tracing
MP_EVENTS="blk_mpath_map blk_mpath_complete blk_mpath_path_state"
mp_trace_off() {
	local e
	[ -d $MP_TR/events/blk_mpath ] || return 0
	echo 0 >$MP_TR/tracing_on
	for e in $MP_EVENTS; do echo 0 >$MP_TR/events/blk_mpath/$e/enable; done
	echo 0 >$MP_TR/events/blk_mpath/blk_mpath_complete/filter
	: >$MP_TR/trace
	echo 1 >$MP_TR/tracing_on
}

# Between scenarios: no held request, no injected fault, both LUN paths plugged,
# no multipathd, no maps, no scsi_debug, paths running, no engine tracing.
test_cleanup() {
	local d
	hostctl_reset
	multipathd_stop
	udevadm control --start-exec-queue 2>/dev/null
	for d in /sys/devices/system/cpu/cpu*/online; do
		[ "$(cat "$d")" = 1 ] || echo 1 >"$d"
	done
	for d in /sys/block/sd*/device/state; do
		[ -e "$d" ] && [ "$(cat "$d")" != running ] && echo running >"$d"
	done
	pkill -9 fio 2>/dev/null
	# the engine's trace events a scenario left on (tests/lib/faults.sh)
	mp_trace_off
	dmsetup remove_all --force >/dev/null 2>&1
	# LIO tcm_loop ports and backstores a scenario left (tests/lib/lio.sh)
	if [ -d /sys/kernel/config/target/loopback ]; then
		declare -F lio_teardown >/dev/null || . "${BASH_SOURCE[0]%/*}/lio.sh"
		lio_teardown
	fi
	sdebug_teardown
	lsmod | grep -q '^null_blk ' && modprobe -r null_blk
	engine_select "$ENGINE"
	true
}

# dm_path_states MAP: the A/F state of every path in status order, e.g. "AF"
dm_path_states() {
	dm_status "$1" | grep -oE '[0-9]+:[0-9]+ [AF] ' | awk '{printf "%s", $2}'
}

# dm_quiet MAP: wait until the map's status stops changing (async pg_init,
# events): two equal readings 0.5 s apart, at most 10 s (then it says so:
# a status recorded while it still changes may differ between runs).
dm_quiet() {
	local a b i
	for i in $(seq 20); do
		a=$(dmsetup status "$1"); sleep 0.5; b=$(dmsetup status "$1")
		[ "$a" = "$b" ] && return 0
	done
	say "$1: status still changing after 10 s: $b"
}
# dm_read MAP: read a little from the map, from CPU 0 (io-affinity picks the
# path by the submitting CPU), and wait up to 10 s for it.  A read that
# lands on a path that then fails, with queueing on and no other path, is
# queued: once no path of the map is active it is left waiting instead of
# being waited for to the end of the 10 s (the map does not reinstate a
# path by itself; a message, a flush suspend, a reload or the
# fail_if_no_path sent before the map is removed releases it).
dm_read() {
	local pid i
	taskset -c 0 dd if="/dev/mapper/$1" of=/dev/null bs=4k count=8 iflag=direct status=none 2>/dev/null &
	pid=$!
	for i in $(seq 40); do
		kill -0 $pid 2>/dev/null || { wait $pid; return 0; }
		[[ $(dm_path_states "$1") == *A* ]] || return 0
		sleep 0.25
	done
	return 0
}

# path_vars DEV1 DEV2 ... : A and B = MAJ:MIN of the first two paths,
# N = size of the first in sectors (the usual table ingredients)
path_vars() { A=$(mm "$1"); B=$(mm "$2"); N=$(sectors "/dev/$1"); }
