#!/bin/bash
# DESCRIPTION: LIO tcm_loop, implicit ALUA, failover table (hwhandler 1 alua) under fio verify: the active port goes unavailable (04/0c), 3 times (port back active/optimized, path reinstated, group 1 switched back in between), then, back and reinstated, the other port goes offline (alua_tg_pt_offline, 04/12): each time the path fails and the other group takes over without an I/O error; failover window (median of 3) stock vs blk-mpath
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
#
# The failover window (fw_start/fw_stop: the first request that failed on
# the unavailable port to the completion of the same sector on the other
# port) includes the other group's pg_init (scsi_dh_alua's RTPG).  LIO
# under TCG is noisy, so phase 1 runs REPS times and window_ms is the
# median, which compare_gaps bounds: blk-mpath at most
# max(1.25 x stock, stock + 50 ms).  The offline port's window (phase 2,
# once) is reported, not compared.
BOUND_MS=5000
REPS=3

# flow_on sdX N SECS: N more writes completed on sdX within SECS (the I/O
# runs on that path)
flow_on() {
	local w0 i
	w0=$(sd_writes "$1")
	for ((i = 0; i < $3 * 10; i++)); do
		[ "$(sd_writes "$1")" -ge $((w0 + $2)) ] && return 0
		sleep 0.1
	done
	return 1
}

# median of three numbers
median3() { printf '%s\n' "$@" | sort -g | sed -n 2p; }

# unavailable_once REP: from group 1 active (port 1 active/optimized,
# port 2 standby, both paths active), port 2 goes active/optimized and
# port 1 unavailable under fio; the path on port 1 fails, group 2 takes
# over.  Sets FW_MS and GAP_MS.
unavailable_once() {
	local r=$1
	STEP="phase 1, repetition $r"
	dmesg_mark
	fw_start "$PA" "$PB"
	fio_start lio_uo 6
	expect_eq "$(mp_active_group lio_uo)" 1 "rep $r: group 1 carries the I/O"
	lio_state 2 ao
	lio_state 1 unavailable
	fio_alive
	wait_path lio_uo "$A" F 10 || { lio_evidence; fail "rep $r: the path on the unavailable port did not fail"; }
	# the writes go on on port 2; then fio is stopped (it verifies what it wrote)
	flow_on "$PB" 256 10 || { lio_evidence; fail "rep $r: no writes on port 2 after the failover"; }
	fio_expect_clean stop
	fw_stop
	expect_gap_below $BOUND_MS
	dm_status lio_uo
	expect_eq "$(dm_path_states lio_uo)" FA "rep $r: path on port 1 (unavailable) failed, path on port 2 active"
	expect_eq "$(mp_active_group lio_uo)" 2 "rep $r: group 2 is active"
	# the path failed for the unavailable port (the sense of its error),
	# not for some other reason
	dmesg_since | grep -qE "Logical unit not accessible, target port in unavailable state" ||
		fail "rep $r: no kernel line with the unavailable port's sense (NOT READY 04/0c)"
	lio_evidence
}

run_engine() {
	local A B N PA PB r wins=() gaps=() win_un gap_off win_off gap_max
	lio_setup 2 1
	A=${LIO_MM[0]} B=${LIO_MM[1]} N=$(sectors "/dev/${LIO_PATHS[0]}")
	PA=${LIO_PATHS[0]} PB=${LIO_PATHS[1]}
	lio_state 2 standby
	dm_create lio_uo "0 $N multipath 0 1 alua 2 1 round-robin 0 1 1 $A 1 round-robin 0 1 1 $B 1" ||
		fail "create"

	for ((r = 1; r <= REPS; r++)); do
		if [ "$r" -gt 1 ]; then
			say "1.$r back to the start: port 1 active/optimized, path reinstated, group 1, port 2 standby"
			lio_state 1 ao
			run dmsetup message lio_uo 0 reinstate_path "$A" || fail "reinstate"
			run dmsetup message lio_uo 0 switch_group 1 || fail "switch_group 1"
			lio_state 2 standby
			expect_eq "$(dm_path_states lio_uo)" AA "both paths active"
		fi
		say "1.$r port 1 (group 1, active) goes unavailable, port 2 active/optimized"
		unavailable_once "$r"
		wins+=("$FW_MS") gaps+=("$GAP_MS")
	done
	win_un=$(median3 "${wins[@]}")
	say "phase 1: failover windows ${wins[*]} ms (median $win_un), longest I/O ${gaps[*]} ms"

	say "2. port 1 back (active/optimized, path reinstated); port 2 (group 2, active) goes offline"
	STEP="phase 2"
	lio_state 1 ao
	run dmsetup message lio_uo 0 reinstate_path "$A" || fail "reinstate"
	expect_eq "$(dm_path_states lio_uo)" AA "both paths active"
	expect_eq "$(mp_active_group lio_uo)" 2 "group 2 stays active (no failback without multipathd)"
	dmesg_mark
	fw_start "$PB" "$PA"
	fio_start lio_uo 6
	lio_port_offline 2 1
	fio_alive
	wait_path lio_uo "$B" F 10 || { lio_evidence; fail "the path on the offline port did not fail"; }
	flow_on "$PA" 256 10 || { lio_evidence; fail "no writes on port 1 after the failover"; }
	fio_expect_clean stop
	fw_stop
	expect_gap_below $BOUND_MS
	gap_off=$GAP_MS win_off=$FW_MS
	dm_status lio_uo
	expect_eq "$(dm_path_states lio_uo)" AF "path on port 2 (offline) failed, path on port 1 active"
	expect_eq "$(mp_active_group lio_uo)" 1 "group 1 is active again"
	expect_eq "$(mp_queue_io lio_uo)" 0 "no I/O queued for pg_init"
	dmesg_since | grep -qE "Logical unit not ready, offline" ||
		fail "no kernel line with the offline port's sense (NOT READY 04/12)"
	lio_evidence
	lio_port_offline 2 0
	dm_remove lio_uo

	gap_max=$(printf '%s\n' "${gaps[@]}" "$gap_off" | sort -g | tail -1)
	fault_result gap_ms="$gap_max" window_ms="$win_un" \
		windows_ms="$(IFS=/; echo "${wins[*]}")" unavailable_gaps_ms="$(IFS=/; echo "${gaps[*]}")" \
		offline_window_ms="$win_off" offline_gap_ms="$gap_off" bound_ms=$BOUND_MS
}
fault_main
