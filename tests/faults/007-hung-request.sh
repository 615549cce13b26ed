#!/bin/bash
# DESCRIPTION: one read on path 0 hangs inside QEMU (blkdebug break) with the sd timeout at 5 s, so the SCSI error handler runs against it; QEMU releases it after 15 s: the I/O completes, fio verify clean, no hang beyond the bound; longest completion latency stock vs blk-mpath
# REQUIRES: cmd:fio mod:dm-blk-mpath mod:dm-multipath
# TIMEOUT: 300
. /opt/blk-mpath/tests/lib/common.sh
. /opt/blk-mpath/tests/lib/faults.sh
export DM_DISABLE_UDEV=1
need_hostctl
HOLD=15

run_engine() {
	local old i tmo0 held=0
	qmap_create mph failover
	old=$(cat "/sys/block/$QD0/device/timeout")
	echo 5 >"/sys/block/$QD0/device/timeout"
	tmo0=$(path_cnt "$QD0" iotmo_cnt)
	fio_start mph 30
	hostctl break 0 read_aio hang1 || fail "break"
	# wait until a read is held (fio's verify reads go to path 0)
	for i in $(seq 50); do
		hostctl state | grep -q "held" && { held=1; break; }
		sleep 0.2
	done
	say "host: $(hostctl state)"
	[ $held = 1 ] || fail "no read was held on path 0 within 10 s (nothing to judge)"
	sleep "$HOLD"
	dmesg | grep -iE "abort|timing out|timed out|eh|reset" | tail -5
	hostctl resume 0 hang1 || fail "resume"
	fio_expect_clean 60
	echo "$old" >"/sys/block/$QD0/device/timeout"
	# the hold happened: the SCSI timeout fired on the held command (the
	# error handler ran against it) and an I/O waited out the hold
	fault_fired "$QD0" iotmo_cnt "$tmo0" "the held read"
	awk -v g="$GAP_MS" -v h="$HOLD" 'BEGIN {exit !(g >= h * 1000)}' ||
		fail "$ENGINE: the longest completion took ${GAP_MS} ms, less than the ${HOLD} s hold: no I/O waited for it"
	# the held read waited HOLD s; nothing may wait much longer
	expect_gap_below $(((HOLD + 20) * 1000))
	say "path states after the hang: $(dm_path_states mph)"
	fault_result gap_ms=$GAP_MS stall_ms=$STALL_MS hold_s=$HOLD paths=$(dm_path_states mph)
	dm_remove mph
}
fault_main
