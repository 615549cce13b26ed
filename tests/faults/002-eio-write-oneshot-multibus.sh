#!/bin/bash
# DESCRIPTION: QEMU EIO on writes of path 0 in a multibus table under fio verify: a one-shot error is absorbed by SCSI's retries (no path fails); a fault that lasts fails the path, the writes complete on path 1, and the healed, reinstated path 0 carries I/O again; 0 I/O and verify errors; gap stock vs blk-mpath
# REQUIRES: cmd:fio mod:dm-blk-mpath mod:dm-multipath
# TIMEOUT: 240
. /opt/blk-mpath/tests/lib/common.sh
. /opt/blk-mpath/tests/lib/faults.sh
export DM_DISABLE_UDEV=1
need_hostctl

run_engine() {
	local e0 r0 r1
	qmap_create mpw multibus
	fw_start "$QD0" "$QD1"
	fio_start mpw 18
	# one-shot: SCSI retries the write (5 times) on the same path
	e0=$(path_cnt "$QD0" ioerr_cnt)
	hostctl inject 0 write_aio 5 once=on || fail "inject"
	sleep 3
	fault_fired "$QD0" ioerr_cnt "$e0" "the one-shot write error"
	expect_eq "$(dm_path_states mpw)" AA "a one-shot error is absorbed below multipath"
	hostctl clear 0
	# lasting: every write on path 0 fails until the fault is healed
	hostctl inject 0 write_aio 5 || fail "inject"
	wait_path mpw "$QA" F 30 || fail "path 0 did not fail"
	sleep 1
	hostctl clear 0
	run dmsetup message mpw 0 reinstate_path "$QA" || fail "reinstate"
	fio_alive
	r0=$(path_cnt "$QD0" iorequest_cnt)
	fio_expect_clean
	r1=$(path_cnt "$QD0" iorequest_cnt)
	fw_stop
	# round-robin over both paths: the reinstated path takes its share
	[ $((r1 - r0)) -ge 32 ] || fail "$ENGINE: path 0 carried $((r1 - r0)) commands after its reinstate (fewer than 32)"
	say "ok: path 0 carried $((r1 - r0)) commands after its reinstate"
	expect_gap_below 2000
	expect_eq "$(dm_path_states mpw)" AA "both paths active after the reinstate"
	expect_eq "$(dm_status mpw | grep -oE "$QA A [0-9]+" | awk '{print $3}')" 1 "path 0 failed exactly once"
	fault_result gap_ms=$GAP_MS window_ms=$FW_MS stall_ms=$STALL_MS ios=$FIO_IOS verdict=failover
	hostctl clear 0
	dm_remove mpw
}
fault_main
