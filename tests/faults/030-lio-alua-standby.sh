#!/bin/bash
# DESCRIPTION: LIO tcm_loop, implicit ALUA: the active port goes standby (the other one active/optimized) under fio verify; a failover table (hwhandler 1 alua) fails over to the other group, a multibus table keeps going on the remaining path; no I/O error, stock and blk-mpath
# REQUIRES: cmd:fio mod:tcm_loop mod:dm-blk-mpath mod:dm-multipath
# TIMEOUT: 240
. /opt/blk-mpath/tests/lib/common.sh
. /opt/blk-mpath/tests/lib/faults.sh
. /opt/blk-mpath/tests/lib/lio.sh
trap lio_quiesce EXIT
export DM_DISABLE_UDEV=1
# Both engines alike: a write on the standby port gets NOT READY 04/0b
# (after scsi_dh_alua has absorbed the 2a/06 UA), which SCSI does not
# retry: BLK_STS_IOERR, the path fails (PATH class), the request is
# requeued; pg_init of the other group runs RTPG (implicit ALUA: no STPG)
# and finds it active/optimized.
#
# The failover window of the failover table (fw_start/fw_stop: the first
# request that failed on the standby port to the completion of the same
# sector on the other port) includes the other group's pg_init (RTPG);
# compare_gaps bounds it: blk-mpath at most max(1.25 x stock, stock +
# 50 ms).  The multibus table has no failover to another group; it is not
# measured.  Both traces share the ring buffer: blk-mpath's timeline shows
# the block_rq_complete lines too, and mp_trace_stop (1 s after the path
# failed) ends blk-mpath's window trace as well.
BOUND_MS=5000	# the longest any I/O may take, failover included

run_engine() {
	local A B N gap_fo gap_mb win_fo wa wb
	lio_setup 2 1
	A=${LIO_MM[0]} B=${LIO_MM[1]} N=$(sectors "/dev/${LIO_PATHS[0]}")

	say "1. failover table: group 1 = port 1 (active/optimized), group 2 = port 2 (standby)"
	lio_state 2 standby
	dm_create lio_fo "0 $N multipath 0 1 alua 2 1 round-robin 0 1 1 $A 1 round-robin 0 1 1 $B 1" ||
		fail "create"
	dmesg_mark
	mp_trace_on
	fw_start "${LIO_PATHS[0]}" "${LIO_PATHS[1]}"
	fio_start lio_fo 6
	expect_eq "$(mp_active_group lio_fo)" 1 "group 1 carries the I/O"
	lio_state 2 ao
	mp_trace_mark
	lio_state 1 standby
	fio_alive
	wait_path lio_fo "$A" F 10 || { lio_evidence; fail "the path on the standby port did not fail"; }
	sleep 1
	mp_trace_stop
	fio_expect_clean
	fw_stop
	mp_trace_timeline
	mp_trace_off
	expect_gap_below $BOUND_MS
	gap_fo=$GAP_MS win_fo=$FW_MS
	dm_status lio_fo
	expect_eq "$(dm_path_states lio_fo)" FA "path on port 1 (standby) failed, path on port 2 active"
	expect_eq "$(mp_active_group lio_fo)" 2 "group 2 (port 2, now active/optimized) is active"
	expect_eq "$(mp_queue_io lio_fo)" 0 "no I/O queued for pg_init"
	expect_eq "$(lio_dh_state_of 1)/$(lio_dh_state_of 2)" standby/active/optimized \
		"scsi_dh_alua: port 1 standby, port 2 active/optimized"
	lio_evidence
	dm_remove lio_fo

	say "2. multibus table: both ports in one group, both active/optimized; port 1 goes standby"
	lio_state 1 ao
	dm_create lio_mb "0 $N multipath 0 1 alua 1 1 round-robin 0 2 1 $A 1 $B 1" || fail "create"
	wa=$(sd_writes "${LIO_PATHS[0]}") wb=$(sd_writes "${LIO_PATHS[1]}")
	dmesg_mark
	mp_trace_on
	fio_start lio_mb 6
	[ "$(sd_writes "${LIO_PATHS[0]}")" -gt "$wa" ] && [ "$(sd_writes "${LIO_PATHS[1]}")" -gt "$wb" ] ||
		fail "multibus: both paths should carry writes"
	say "ok: both paths carry writes"
	mp_trace_mark
	lio_state 1 standby
	fio_alive
	wait_path lio_mb "$A" F 10 || { lio_evidence; fail "the path on the standby port did not fail"; }
	sleep 0.5	# what was in flight on port 1 has completed
	wa=$(sd_writes "${LIO_PATHS[0]}") wb=$(sd_writes "${LIO_PATHS[1]}")
	mp_trace_stop
	fio_expect_clean
	mp_trace_timeline
	mp_trace_off
	expect_gap_below $BOUND_MS
	gap_mb=$GAP_MS
	dm_status lio_mb
	expect_eq "$(dm_path_states lio_mb)" FA "path on port 1 (standby) failed, path on port 2 active"
	expect_eq "$(mp_active_group lio_mb)" 1 "the one group stays active"
	[ "$(sd_writes "${LIO_PATHS[1]}")" -gt "$wb" ] || fail "multibus: port 2 took no writes after the failure"
	expect_eq "$(sd_writes "${LIO_PATHS[0]}")" "$wa" "no write reached port 1 after its path failed"
	lio_evidence
	dm_remove lio_mb

	fault_result gap_ms="$(awk -v a="$gap_fo" -v b="$gap_mb" 'BEGIN {print (a > b) ? a : b}')" \
		window_ms="$win_fo" failover_gap_ms="$gap_fo" multibus_gap_ms="$gap_mb" bound_ms=$BOUND_MS
}
fault_main
