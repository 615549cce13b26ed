#!/bin/bash
# DESCRIPTION: QEMU EIO on every read of path 0 (the guest sees ABORTED COMMAND after SCSI's 5 retries) in a failover table under fio verify: path 0 fails, group 2 takes over, 0 I/O and verify errors; failover gap stock vs blk-mpath
# REQUIRES: cmd:fio mod:dm-blk-mpath mod:dm-multipath
# TIMEOUT: 240
. /opt/blk-mpath/tests/lib/common.sh
. /opt/blk-mpath/tests/lib/faults.sh
export DM_DISABLE_UDEV=1
need_hostctl

run_engine() {
	qmap_create mpe failover
	fw_start "$QD0" "$QD1"
	fio_start mpe 12
	fault_mark
	hostctl inject 0 read_aio 5 || fail "inject"
	wait_path mpe "$QA" F 30 || fail "path 0 did not fail"
	fio_expect_clean
	fw_stop
	expect_gap_below 2000
	expect_eq "$(dm_path_states mpe)" FA "path 0 failed, path 1 active"
	expect_eq "$(active_group mpe)" 2 "group 2 active"
	dmesg | grep -E "Failing path $QA" | tail -1
	fault_result gap_ms=$GAP_MS window_ms=$FW_MS stall_ms=$STALL_MS ios=$FIO_IOS verdict=failover
	hostctl clear 0
	dm_remove mpe
}
fault_main
