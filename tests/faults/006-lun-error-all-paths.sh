#!/bin/bash
# DESCRIPTION: a LUN-wide target error that SCSI leaves as BLK_STS_IOERR (QEMU ENOMEDIUM = NOT READY 3a/00 on one sector, on both paths): blk-mpath returns it at once and keeps both paths; stock fails every path for it and, with queue_if_no_path, queues the read until fail_if_no_path (expected difference, ENGINE.md TARGET)
# REQUIRES: mod:dm-blk-mpath mod:dm-multipath
# TIMEOUT: 240
. /opt/blk-mpath/tests/lib/common.sh
. /opt/blk-mpath/tests/lib/faults.sh
FAULT_COMPARE=none
export DM_DISABLE_UDEV=1
need_hostctl
S=409600

run_engine() {
	local t0 ms rc pid i
	hostctl inject 0 read_aio 123 sector=$S || fail "inject 0"
	hostctl inject 1 read_aio 123 sector=$S || fail "inject 1"

	# without queueing: the error reaches the caller on both engines
	qmap_create mpn multibus
	t0=$(date +%s%3N)
	timeout 60 dd if=/dev/mapper/mpn of=/dev/null bs=512 count=8 skip=$S iflag=direct 2>/tmp/dd.err
	rc=$?
	ms=$(($(date +%s%3N) - t0))
	say "read of the faulty sector: rc=$rc after $ms ms: $(head -1 /tmp/dd.err)"
	[ $rc -ne 124 ] || fail "the read hung"
	[ $rc -ne 0 ] || fail "the read succeeded"
	local st1
	st1=$(dm_path_states mpn)
	if [ "$ENGINE" = new ]; then
		expect_eq "$st1" AA "blk-mpath: a target error keeps both paths"
	else
		expect_eq "$st1" FF "stock: both paths failed for a target error"
	fi
	dm_remove mpn

	# with queue_if_no_path
	qmap_create mpn multibus queue_if_no_path
	t0=$(date +%s%3N)
	dd if=/dev/mapper/mpn of=/dev/null bs=512 count=8 skip=$S iflag=direct 2>/tmp/dd.err &
	pid=$!
	for i in $(seq 100); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
	if [ "$ENGINE" = new ]; then
		kill -0 $pid 2>/dev/null && fail "blk-mpath queued a target error"
		wait $pid && fail "the read succeeded"
		ms=$(($(date +%s%3N) - t0))
		say "blk-mpath with queue_if_no_path: the error came back after $ms ms"
		expect_eq "$(dm_path_states mpn)" AA "blk-mpath: both paths kept"
	else
		kill -0 $pid 2>/dev/null || fail "stock did not queue the read (expected: all paths failed, I/O queued)"
		expect_eq "$(dm_path_states mpn)" FF "stock: both paths failed, the read queued"
		say "stock: the read is still queued after 10 s, every path failed; fail_if_no_path releases it"
		run dmsetup message mpn 0 fail_if_no_path
		for i in $(seq 100); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
		kill -0 $pid 2>/dev/null && fail "stock: fail_if_no_path did not release the read"
		wait $pid && fail "the read succeeded"
		ms=queued
	fi
	fault_result paths_noqueue=$st1 queued_read=$ms
	dm_remove mpn
	hostctl clear 0; hostctl clear 1
}
fault_main
