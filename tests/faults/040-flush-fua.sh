#!/bin/bash
# DESCRIPTION: flush and FUA over paths with different write-cache / FUA settings: what the map advertises, a FUA write to a path without FUA (stock: FUA bit the device does not support; blk-mpath: write + SYNCHRONIZE CACHE), a flush failing on one path retried on the other under fio verify (stock and blk-mpath)
# REQUIRES: cmd:fio mod:dm-blk-mpath mod:dm-multipath
# TIMEOUT: 400
. /opt/blk-mpath/tests/lib/common.sh
. /opt/blk-mpath/tests/lib/faults.sh
FAULT_COMPARE=none
export DM_DISABLE_UDEV=1
need_hostctl
TR=/sys/kernel/debug/tracing

# cache_type of the QEMU path N: "write back" or "write through"
set_wc() { # N on|off
	local d c
	d=$(qpath_dev "$1") || fail "no QEMU path $1"
	c=$(ls -d /sys/block/$d/device/scsi_disk/*)
	if [ "$2" = on ]; then echo "write back" >"$c/cache_type"; else echo "write through" >"$c/cache_type"; fi
}
map_flags() { # MAP -> "<write_cache>/<fua>"
	local dm
	dm=$(dmsetup info -c --noheadings -o blkdevname "$1" | tr -d ' ')
	echo "$(cat /sys/block/$dm/queue/write_cache)/$(cat /sys/block/$dm/queue/fua)"
}
restore_paths() {
	hostctl plug 1 >/dev/null 2>&1
	hostctl clear 0 >/dev/null 2>&1
	wait_qpath 1 present 30
	set_wc 0 on 2>/dev/null; set_wc 1 on 2>/dev/null
}
trap restore_paths EXIT

# commands dispatched to SCSI host H while running CMD...: "opcode fua" lines
scsi_trace() { # host cmd...
	local h=$1
	shift
	echo 0 >$TR/tracing_on; : >$TR/trace
	echo "host_no == $h" >$TR/events/scsi/scsi_dispatch_cmd_start/filter
	echo 1 >$TR/events/scsi/scsi_dispatch_cmd_start/enable
	echo 1 >$TR/tracing_on
	"$@"
	echo 0 >$TR/tracing_on
	echo 0 >$TR/events/scsi/scsi_dispatch_cmd_start/enable
	# raw=2a 08 ...: byte 1 bit 3 is FUA
	sed -n 's/.*cmnd=(\([A-Z_0-9]*\) .*raw=\([0-9a-f]*\) \([0-9a-f]*\).*/\1 \2 \3/p' $TR/trace |
		while read -r op _ b1; do
			if [ $((0x$b1 & 8)) -ne 0 ]; then echo "$op fua"; else echo "$op -"; fi
		done
}
host_of() { basename "$(readlink -f "/sys/block/$1/device")" | cut -d: -f1; }

run_engine() {
	local got want_fua

	# 1. what the map advertises: write cache if any path has one, as dm
	# core does for both engines
	for combo in "on on write back" "on off write back" "off off write through"; do
		read -r w0 w1 want <<<"$combo"
		set_wc 0 "$w0"; set_wc 1 "$w1"
		qmap_create mpf multibus
		got=$(map_flags mpf)
		expect_eq "${got%/*}" "$want" "paths WC $w0/$w1: map write_cache"
		expect_eq "${got#*/}" 0 "paths without FUA: map fua"
		dm_remove mpf
	done
	set_wc 0 on; set_wc 1 on

	# 2. path 1 re-plugged with FUA (dpofua=on), path 0 without; both with
	# a write-back cache
	hostctl unplug 1 || fail "unplug path 1"
	wait_qpath 1 absent 30 || fail "path 1 did not go away"
	hostctl plug 1 dpofua=on || fail "plug path 1 with dpofua=on"
	wait_qpath 1 present 30 || fail "path 1 did not come back"
	settle
	say "path 0 $(cat /sys/block/$(qpath_dev 0)/queue/write_cache)/fua=$(cat /sys/block/$(qpath_dev 0)/queue/fua)," \
		"path 1 $(cat /sys/block/$(qpath_dev 1)/queue/write_cache)/fua=$(cat /sys/block/$(qpath_dev 1)/queue/fua)"
	expect_eq "$(cat /sys/block/$(qpath_dev 1)/queue/fua)" 1 "path 1 does FUA"
	qmap_create mpf failover
	got=$(map_flags mpf)
	if [ "$ENGINE" = stock ]; then want_fua=1; else want_fua=0; fi
	expect_eq "$got" "write back/$want_fua" "map flags with one path lacking FUA"
	# a FUA write (O_DIRECT|O_DSYNC) through group 1 = path 0 (no FUA)
	local cmds h0
	h0=$(host_of "$QD0")
	cmds=$(scsi_trace "$h0" dd if=/dev/urandom of=/dev/mapper/mpf bs=4k count=4 seek=100 oflag=direct,dsync 2>/dev/null)
	say "commands on path 0 for 4 O_DSYNC writes: $(echo $cmds | tr '\n' ' ')"
	local fua_writes syncs
	fua_writes=$(grep -c '^WRITE.* fua' <<<"$cmds")
	syncs=$(grep -c '^SYNCHRONIZE_CACHE' <<<"$cmds")
	if [ "$ENGINE" = stock ]; then
		# stock: the FUA bit goes to a device that reports no DPOFUA
		[ "$fua_writes" -ge 4 ] || fail "stock: expected FUA writes on path 0, saw: $cmds"
	else
		[ "$fua_writes" -eq 0 ] || fail "blk-mpath sent the FUA bit to a path without FUA: $cmds"
		[ "$syncs" -ge 4 ] || fail "blk-mpath: expected a SYNCHRONIZE CACHE after each write: $cmds"
	fi
	dm_remove mpf
	hostctl unplug 1 || fail "unplug path 1"
	wait_qpath 1 absent 30
	hostctl plug 1 || fail "plug path 1"
	wait_qpath 1 present 30 || fail "path 1 did not come back"
	settle

	# 3. a flush that fails on path 0 is retried on path 1, under fio verify
	qmap_create mpf multibus
	fio_start mpf 14 --fsync=8
	hostctl inject 0 flush_to_disk 5 || fail "inject"
	wait_path mpf "$QA" F 30 || fail "the failed flush did not fail path 0"
	fio_expect_clean
	expect_gap_below 30000
	hostctl clear 0
	fault_result gap_ms=$GAP_MS stall_ms=$STALL_MS fua_writes_path0=$fua_writes syncs_path0=$syncs \
		map_fua=$want_fua
	dm_remove mpf
}
fault_main
