#!/bin/bash
# DESCRIPTION: LIO tcm_loop, failover table under fio verify: the LU is masked from the active path's initiator (its ACL mapping removed, so every command on that path gets ILLEGAL REQUEST 25/00, logical unit not supported): the path fails and the other group takes over without an I/O error; mapped again and reinstated, the path carries I/O again; stock and blk-mpath
# REQUIRES: cmd:fio mod:tcm_loop mod:dm-blk-mpath mod:dm-multipath
# TIMEOUT: 240
. /opt/blk-mpath/tests/lib/common.sh
. /opt/blk-mpath/tests/lib/faults.sh
. /opt/blk-mpath/tests/lib/lio.sh
trap lio_quiesce EXIT
export DM_DISABLE_UDEV=1
# An array answers 25/00 on a port that no longer reaches the LU (a LUN
# masking or host group change on one port).  ILLEGAL REQUEST is otherwise
# the command's fault (20/00, 21/00, 24/00, ...: the engine returns those
# to the caller and keeps the path, ENGINE.md TARGET); 25/00 is the path's.
# SCSI in 6.1 does not retry it and completes the request with
# BLK_STS_IOERR and the sense (scsi_io_completion_action: ACTION_FAIL);
# stock fails the path for any IOERR, the engine for 25/00 (PATH class).
# Were 25/00 classified TARGET, fio would see the error.  LUN 1, not 0: an
# initiator without LUN 0 mapped reaches LIO's virtual LUN 0 instead.
# The failover window (fw_start/fw_stop: the first request that failed on
# port 1 to the completion of the same sector on port 2) includes the
# other group's pg_init (RTPG); compare_gaps bounds it: blk-mpath at most
# max(1.25 x stock, stock + 50 ms).
# shellcheck disable=SC2034 # read by lio.sh
LIO_LUN=1
BOUND_MS=5000

run_engine() {
	local A B N gap win n0
	lio_setup 2 1
	A=${LIO_MM[0]} B=${LIO_MM[1]} N=$(sectors "/dev/${LIO_PATHS[0]}")
	lio_acl 1
	dm_create lio_mask "0 $N multipath 0 1 alua 2 1 round-robin 0 1 1 $A 1 round-robin 0 1 1 $B 1" ||
		fail "create"

	say "1. the LU is masked from port 1's initiator (group 1, active)"
	dmesg_mark
	fw_start "${LIO_PATHS[0]}" "${LIO_PATHS[1]}"
	fio_start lio_mask 6
	expect_eq "$(mp_active_group lio_mask)" 1 "group 1 carries the I/O"
	fault_mark
	lio_lun_map 1 0
	fio_alive
	wait_path lio_mask "$A" F 10 || { lio_evidence; fail "the path to the masked LU did not fail"; }
	fio_expect_clean
	fw_stop
	expect_gap_below $BOUND_MS
	gap=$GAP_MS win=$FW_MS
	dm_status lio_mask
	expect_eq "$(dm_path_states lio_mask)" FA "path on port 1 (LU masked) failed, path on port 2 active"
	expect_eq "$(mp_active_group lio_mask)" 2 "group 2 is active"
	# LIO's line is printed for every such command; SCSI's sense print is
	# rate-limited
	dmesg_since | grep -qE "Detected NON_EXISTENT_LUN Access|Logical unit not supported|ASC=0x25 ASCQ=0x0" ||
		{ lio_evidence; fail "no ILLEGAL REQUEST 25/00 in the kernel log"; }
	if [ "$ENGINE" = new ]; then
		dmesg_since | grep -qE "Failing path $A: class=path .*sense=5/25/00" ||
			{ lio_evidence; fail "blk-mpath did not fail the path for sense 5/25/00"; }
	fi
	lio_evidence

	say "2. the LU is mapped again on port 1; the path reinstated, group 1 chosen: I/O on port 1 again"
	lio_lun_map 1 1
	run dmsetup message lio_mask 0 reinstate_path "$A" || fail "reinstate"
	run dmsetup message lio_mask 0 switch_group 1 || fail "switch_group 1"
	n0=$(sd_writes "${LIO_PATHS[0]}")
	fio_start lio_mask 3
	fio_expect_clean
	expect_eq "$(dm_path_states lio_mask)" AA "both paths active"
	expect_eq "$(mp_active_group lio_mask)" 1 "group 1 is active again"
	[ "$(sd_writes "${LIO_PATHS[0]}")" -gt $((n0 + 64)) ] || fail "no I/O reached port 1 after it was mapped again"
	dm_remove lio_mask

	fault_result gap_ms="$gap" window_ms="$win" bound_ms=$BOUND_MS
}
fault_main
