#!/bin/bash
# DESCRIPTION: LIO tcm_loop, implicit ALUA, failover table (hwhandler 1 alua) under fio verify: the active port goes unavailable (04/0c), then, back and reinstated, the other port goes offline (alua_tg_pt_offline, 04/12): each time the path fails and the other group takes over without an I/O error, stock and blk-mpath
# REQUIRES: cmd:fio mod:tcm_loop mod:dm-blk-mpath mod:dm-multipath
# TIMEOUT: 240
. /opt/blk-mpath/tests/lib/common.sh
. /opt/blk-mpath/tests/lib/faults.sh
. /opt/blk-mpath/tests/lib/lio.sh
trap lio_quiesce EXIT
export DM_DISABLE_UDEV=1
# Both engines alike: NOT READY 04/0c (unavailable) and 04/12 (port
# offline) are not retried by SCSI (scsi_io_completion_action: ACTION_FAIL),
# BLK_STS_IOERR reaches the map, the path fails (PATH class), the request
# goes to the other group after its pg_init (RTPG).  An offline port also
# refuses RTPG (04/12), so scsi_dh_alua keeps its last known state for it.
BOUND_MS=5000

run_engine() {
	local A B N gap_un gap_off
	lio_setup 2 1
	A=${LIO_MM[0]} B=${LIO_MM[1]} N=$(sectors "/dev/${LIO_PATHS[0]}")
	lio_state 2 standby
	dm_create lio_uo "0 $N multipath 0 1 alua 2 1 round-robin 0 1 1 $A 1 round-robin 0 1 1 $B 1" ||
		fail "create"

	say "1. port 1 (group 1, active) goes unavailable, port 2 active/optimized"
	dmesg_mark
	fio_start lio_uo 6
	expect_eq "$(mp_active_group lio_uo)" 1 "group 1 carries the I/O"
	lio_state 2 ao
	lio_state 1 unavailable
	fio_alive
	wait_path lio_uo "$A" F 10 || { lio_evidence; fail "the path on the unavailable port did not fail"; }
	fio_expect_clean
	expect_gap_below $BOUND_MS
	gap_un=$GAP_MS
	dm_status lio_uo
	expect_eq "$(dm_path_states lio_uo)" FA "path on port 1 (unavailable) failed, path on port 2 active"
	expect_eq "$(mp_active_group lio_uo)" 2 "group 2 is active"
	# the path failed for the unavailable port (the sense of its error),
	# not for some other reason
	dmesg_since | grep -qE "Logical unit not accessible, target port in unavailable state" ||
		fail "no kernel line with the unavailable port's sense (NOT READY 04/0c)"
	lio_evidence

	say "2. port 1 back (active/optimized, path reinstated); port 2 (group 2, active) goes offline"
	lio_state 1 ao
	run dmsetup message lio_uo 0 reinstate_path "$A" || fail "reinstate"
	expect_eq "$(dm_path_states lio_uo)" AA "both paths active"
	expect_eq "$(mp_active_group lio_uo)" 2 "group 2 stays active (no failback without multipathd)"
	dmesg_mark
	fio_start lio_uo 6
	lio_port_offline 2 1
	fio_alive
	wait_path lio_uo "$B" F 10 || { lio_evidence; fail "the path on the offline port did not fail"; }
	fio_expect_clean
	expect_gap_below $BOUND_MS
	gap_off=$GAP_MS
	dm_status lio_uo
	expect_eq "$(dm_path_states lio_uo)" AF "path on port 2 (offline) failed, path on port 1 active"
	expect_eq "$(mp_active_group lio_uo)" 1 "group 1 is active again"
	expect_eq "$(mp_queue_io lio_uo)" 0 "no I/O queued for pg_init"
	lio_evidence
	lio_port_offline 2 0
	dm_remove lio_uo

	fault_result gap_ms="$(awk -v a="$gap_un" -v b="$gap_off" 'BEGIN {print (a > b) ? a : b}')" \
		unavailable_gap_ms="$gap_un" offline_gap_ms="$gap_off" bound_ms=$BOUND_MS
}
fault_main
