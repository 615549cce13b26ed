#!/bin/bash
# DESCRIPTION: LIO tcm_loop, implicit ALUA with trans_delay_msecs 3000 under fio verify: the active port passes through 3 s of "transitioning" to active/non-optimized (I/O waits ~the delay and completes, no path fails), then through 3 s of transitioning to standby (I/O waits, then fails over to the other group); no I/O error, no hang, stock and blk-mpath
# REQUIRES: cmd:fio mod:tcm_loop mod:dm-blk-mpath mod:dm-multipath
# TIMEOUT: 240
. /opt/blk-mpath/tests/lib/common.sh
. /opt/blk-mpath/tests/lib/faults.sh
. /opt/blk-mpath/tests/lib/lio.sh
trap lio_quiesce EXIT
export DM_DISABLE_UDEV=1
# While the port transitions LIO answers NOT READY 04/0a.  SCSI keeps the
# request: scsi_dh_alua's check_sense makes it NEEDS_RETRY, then
# scsi_io_completion_action re-preps it every second (ACTION_DELAYED_REPREP)
# for up to (retries + 1) x timeout; the map never sees the error, so
# neither engine fails the path during the transition.  Both engines alike.
DELAY_MS=3000
BOUND_MS=$((DELAY_MS + 3000))	# the delay, one re-prep period, failover, TCG noise

run_engine() {
	local A B N gap_an gap_sb t0 t1 tr_an tr_sb
	lio_setup 2 1
	A=${LIO_MM[0]} B=${LIO_MM[1]} N=$(sectors "/dev/${LIO_PATHS[0]}")
	lio_state 2 standby
	lio_trans_delay 1 $DELAY_MS
	dm_create lio_tr "0 $N multipath 0 1 alua 2 1 round-robin 0 1 1 $A 1 round-robin 0 1 1 $B 1" ||
		fail "create"

	say "1. port 1 (active): active/optimized -> ${DELAY_MS} ms transitioning -> active/non-optimized"
	dmesg_mark
	fio_start lio_tr 6
	t0=$(date +%s%3N)
	lio_state 1 an	# LIO sleeps trans_delay_msecs in the write, the group transitioning
	t1=$(date +%s%3N); tr_an=$((t1 - t0))
	say "transition took $tr_an ms"
	fio_expect_clean
	expect_gap_below $BOUND_MS
	gap_an=$GAP_MS
	awk -v g="$gap_an" -v d=$((DELAY_MS - 1000)) 'BEGIN {exit !(g >= d)}' ||
		fail "the longest I/O took $gap_an ms: it did not wait for the transition (${DELAY_MS} ms)"
	say "ok: I/O waited for the transition (${gap_an} ms, delay ${DELAY_MS} ms)"
	dm_status lio_tr
	expect_eq "$(dm_path_states lio_tr)" AA "no path failed during the transition"
	expect_eq "$(mp_active_group lio_tr)" 1 "group 1 still active"
	expect_eq "$(lio_state_of 1)" 1 "port 1 is active/non-optimized"
	# the kernel's view: the UA of each state change (A -> T, T -> N) and
	# scsi_dh_alua's RTPG once the transition is over (the I/O retries
	# under 04/0a are not logged)
	[ "$(dmesg_since | grep -c "${LIO_HCTLS[0]}: Asymmetric access state changed")" -ge 2 ] &&
		dmesg_since | grep -q "${LIO_HCTLS[0]}: alua: port group 01 state N" ||
		{ lio_evidence; fail "no sign of the transition in the kernel log"; }
	lio_evidence

	say "2. port 2 active/optimized; port 1: active/non-optimized -> ${DELAY_MS} ms transitioning -> standby"
	lio_state 2 ao
	dmesg_mark
	fio_start lio_tr 6
	t0=$(date +%s%3N)
	lio_state 1 standby
	t1=$(date +%s%3N); tr_sb=$((t1 - t0))
	say "transition took $tr_sb ms"
	wait_path lio_tr "$A" F 10 || { lio_evidence; fail "the path on the standby port did not fail"; }
	fio_expect_clean
	expect_gap_below $BOUND_MS
	gap_sb=$GAP_MS
	awk -v g="$gap_sb" -v d=$((DELAY_MS - 1000)) 'BEGIN {exit !(g >= d)}' ||
		fail "the longest I/O took $gap_sb ms: it did not wait for the transition"
	dm_status lio_tr
	expect_eq "$(dm_path_states lio_tr)" FA "path on port 1 (standby) failed after the transition"
	expect_eq "$(mp_active_group lio_tr)" 2 "group 2 active"
	lio_evidence
	dm_remove lio_tr

	fault_result gap_ms="$(awk -v a="$gap_an" -v b="$gap_sb" 'BEGIN {print (a > b) ? a : b}')" \
		to_an_gap_ms="$gap_an" to_standby_gap_ms="$gap_sb" trans_delay_ms=$DELAY_MS \
		bound_ms=$BOUND_MS
}
fault_main
