#!/bin/bash
# DESCRIPTION: LIO tcm_loop, explicit ALUA (access type 3), pg_init failures under fio verify, stock and blk-mpath alike: (1b) a port group transitioning far beyond the transition time it reports is retried inside scsi_dh_alua for ever (TUR every 2 s, no pg_init retry, no path failure) until the transition ends (STPG then); (1a) pg_init_retries 1: every activation of one path fails retryably (RTPG with DID_NO_CONNECT, SCSI_DH_RES_TEMP_UNAVAIL): one retry (pg_init_count 2), then the retries are exhausted and the path is failed, the group's other path carries the I/O; (2) a hard failure: STPG refused by scsi_dh_alua for a port in the LBA-dependent state (SCSI_DH_NOSYS): that path is failed at the first attempt with pg_init_retries 3 (pg_init_count 1), the other path of the group carries the I/O; no I/O error; same counts, path states and errors on both engines
# REQUIRES: cmd:fio mod:tcm_loop mod:dm-blk-mpath mod:dm-multipath
# TIER: full
# TIMEOUT: 480
. /opt/blk-mpath/tests/lib/common.sh
. /opt/blk-mpath/tests/lib/faults.sh
. /opt/blk-mpath/tests/lib/lio.sh
trap 'lio_lbd_off; lio_quiesce' EXIT
export DM_DISABLE_UDEV=1
#
# What scsi_dh_alua (6.1, drivers/scsi/device_handler/scsi_dh_alua.c)
# hands dm's pg_init_done(), and so what each engine can see:
# - SCSI_DH_RETRY and SCSI_DH_IMM_RETRY never arrive (alua_rtpg_work()
#   requeues itself on them), so a target that stays "transitioning" or
#   answers STPG with an error cannot make dm count pg_init retries:
#   an STPG refused (implicit-only group, state not supported) is
#   followed by one more RTPG and the activation "succeeds" with the port
#   still standby (the path then fails on its first I/O: alua_prep_fn), and
#   a transition is retried inside scsi_dh_alua.  Its retry budget, the
#   transition time the target reports (RTPG extended header byte 5, LIO's
#   implicit_trans_secs; 60 s when 0) is only checked in alua_rtpg(); while
#   the group's state is "transitioning" the worker sends TEST UNIT READY
#   first every ALUA_RTPG_RETRY_DELAY (2 s) and requeues itself without an
#   RTPG as long as the TUR gets 04/0a - which LIO answers for as long as
#   the group transitions.  So the activation never ends, whatever the
#   transition time: part 1b shows it on both engines (I/O held, no retry,
#   no failure), then ends the transition.
# - SCSI_DH_RES_TEMP_UNAVAIL is the retryable code that arrives (counted
#   against pg_init_retries, retried at once): the RTPG failed with
#   DID_NO_CONNECT (scsi_queue_rq() for a device in state "offline") and the
#   port group has no other device to send it through.  A device offline
#   when dm (re)activates it gets SCSI_DH_DEV_OFFLINED from scsi_dh_activate()
#   instead (hard: fail_path), and dm re-activates the group in the same
#   pg_init_done() call that ended the round.  So the failing path must be
#   running when a round starts and offline when its worker sends the
#   RTPG, and the round must be ended by another path of the group.  Part
#   1a: group 2 = ports 2 (P) and 3 (Q), both transitioning, pg_init_retries 1:
#     round 1 (pg_init_count 1): P offline -> RES_TEMP_UNAVAIL: 1 <= 1, retry
#       wanted, Q still running; P active/optimized, running (a rescan:
#       never on a transitioning port, sd's revalidation would spin on 04/0a),
#       transitioning again; Q active/optimized: Q's activation ends the
#       round and dm starts round 2 (pg_init_count 2) with P running;
#     round 2: Q succeeds at once, P loops (transitioning), P offline ->
#       RES_TEMP_UNAVAIL: 2 > 1, the retries are exhausted: fail_path(P);
#       nothing else in flight, the queued I/O goes to Q.
#   With pg_init_retries N > 1 there is no deterministic way to a third
#   round: in round 2 P's own completion ends the round, and the retry it
#   asks for then finds P offline (SCSI_DH_DEV_OFFLINED).
# - hard failures: SCSI_DH_NOSYS from alua_stpg() for a port group in a
#   state it has no case for: LBA dependent (4).  LIO accepts that state
#   for an implicit-only group (alua_support_lba_dependent); scsi_dh_alua
#   keeps the TPGS bits of the device's first INQUIRY (explicit, access
#   type 3 when the LUN was scanned), so it sends no STPG but fails the
#   activation with NOSYS, which dm fails the path for, without retry
#   ("Could not failover the device: Handler scsi_dh_alua Error 16.").
#   SCSI_DH_IO/DEV_OFFLINED (RTPG refused, port offline) are failures on
#   I/O in faults/031.  Part 2: group 2 = port 2 (LBA dependent) and port 3
#   (active/optimized, so no STPG overlaps port 2's RTPG: the RTPG race of
#   faults/033), pg_init_retries 3.
#
BOUND_MS=30000	# the longest I/O: part 1b holds I/O ~12 s, 1a two rounds of
		# scsi_dh_alua's 2 s TUR loop plus the steps between, TCG
FAULT_SLACK_MS=3000	# the gaps follow the phase of scsi_dh_alua's 2 s loop
TRANS_SECS=2	# part 1b: the transition time port 2 reports
HOLD_SECS=8	# part 1b: how long the transition goes on after the activation saw it

# wait_for SECS OP VALUE CMD...: test "$(CMD...)" OP VALUE true within
# SECS * 10 tries, 0.1 s apart
wait_for() {
	local i
	for i in $(seq $(($1 * 10))); do
		test "$("${@:4}")" "$2" "$3" && return 0
		sleep 0.1
	done
	return 1
}
wait_queue_io() { wait_for "$3" = "$2" mp_queue_io "$1"; }	# MAP 0|1 SECS
wait_count() { wait_for "$3" -ge "$2" mp_pg_init_count "$1"; }	# MAP COUNT SECS: pg_init_count reached COUNT
wait_dh_state() { wait_for "$3" = "$2" lio_dh_state_of "$1"; }	# PORT STATE SECS
# sd_ios sdX: I/Os completed on a path (reads + writes: what fio had queued
# when a pg_init ended may be its verify reads only)
sd_ios() { awk '{print $1 + $5}' "/sys/block/$1/stat"; }
nlines() { dmesg_since | grep -cE "$1"; }	# kernel lines since the mark matching REGEX
# port 2 in the LBA dependent state: an implicit-only group may take it
# (configfs refuses it with explicit ALUA on), then the access type back
# to 3 (LIO's INQUIRY and RTPG say explicit again, as at the scan)
lio_lbd_on() {
	_lio_port "$1"
	echo 1 >"$LIO_G/alua_access_type" && echo 1 >"$LIO_G/alua_support_lba_dependent" &&
		echo 4 >"$LIO_G/alua_access_state" && echo 3 >"$LIO_G/alua_access_type" ||
		fail "lio: port $1 refused the LBA dependent state"
	say "lio: port $1 -> lba dependent (state $(lio_state_of "$1"))"
}
lio_lbd_off() {
	[ -n "${LBD_PORT:-}" ] || return 0
	_lio_port "$LBD_PORT"
	[ -e "$LIO_G/alua_access_state" ] || return 0
	echo 0 >"$LIO_G/alua_access_state" 2>/dev/null
	echo 0 >"$LIO_G/alua_support_lba_dependent" 2>/dev/null
	true
}
# the table: group 1 = port 1, group 2 = the given MAJ:MINs
table() { # RETRIES MM...
	local r=$1 p g2=""
	shift
	for p; do g2="$g2 $p 1"; done
	echo "0 $N multipath 2 pg_init_retries $r 1 alua 2 1 round-robin 0 1 1 $A 1 round-robin 0 $# 1$g2"
}
# part_begin STEP TITLE "PORT=STATE..." RETRIES FIO_SECS MM...: the part's
# title, the ports' states, then lio_pf (table RETRIES MM...) under fio
# verify for FIO_SECS s, group 1 carrying the I/O
part_begin() {
	local s
	STEP=$1
	say "$1. $2"
	for s in $3; do lio_state "${s%=*}" "${s#*=}"; done
	dm_create lio_pf "$(table "$4" "${@:6}")" || fail "create ($1)"
	fio_start lio_pf "$5"
	expect_eq "$(mp_active_group lio_pf)" 1 "group 1 carries the I/O"
}
# part_failed WHAT: port 2's path failed (else fail WHAT), the pg_init of
# group 2 ended, fio verify clean, its longest I/O below BOUND_MS (the
# caller's gap); the status shown, the caller's cnt its pg_init_count
part_failed() {
	wait_path lio_pf "$B" F 10 || { lio_evidence; dm_status lio_pf; fail "$1"; }
	wait_queue_io lio_pf 0 10 || { lio_evidence; dm_status lio_pf; fail "pg_init of group 2 did not end"; }
	fio_expect_clean
	expect_gap_below $BOUND_MS
	gap=$GAP_MS
	dm_status lio_pf
	cnt=$(mp_pg_init_count lio_pf)
}
# part_end GAP: lio_pf removed, GAP kept for the result
part_end() { dm_remove lio_pf; GAPS+=("$1"); }

part_1b() {
	local c0 c1 st turs gap w0
	# fio runs on after the pg_init (~HOLD_SECS + 4 s): I/O flows on group 2
	part_begin 1b "port 2 transitioning, reporting a ${TRANS_SECS} s transition time, for ${HOLD_SECS} s after its activation saw it" \
		2=standby 1 $((HOLD_SECS + 10)) "$B"
	_lio_port 2
	echo $TRANS_SECS >"$LIO_G/implicit_trans_secs" || fail "implicit_trans_secs"
	lio_state 2 transitioning
	dmesg_mark
	w0=$(sd_ios "${LIO_PATHS[1]}")
	run dmsetup message lio_pf 0 switch_group 2 || fail "switch_group"
	fio_alive
	wait_dh_state 2 transitioning 10 || { lio_evidence; fail "the activation of port 2 did not see the transition"; }
	wait_dmesg "${LIO_HCTLS[1]}: alua: transition timeout set to $TRANS_SECS seconds" 5 ||
		{ lio_evidence; fail "scsi_dh_alua did not take the ${TRANS_SECS} s transition time"; }
	c0=$(path_cnt "${LIO_PATHS[1]}" iorequest_cnt)
	sleep $HOLD_SECS
	c1=$(path_cnt "${LIO_PATHS[1]}" iorequest_cnt)
	turs=$((c1 - c0))
	st=$(dm_status lio_pf)
	echo "$st"
	say "port 2 got $turs SCSI commands in ${HOLD_SECS} s (scsi_dh_alua's TUR every 2 s, each retried by SCSI on 04/0a; the I/O is held by the map)"
	expect_match "$st" "^2 1 1 " "$ENGINE: ${HOLD_SECS} s after the activation (${TRANS_SECS} s transition time) pg_init still runs: queue_io 1, pg_init_count 1 (no retry)"
	expect_eq "$(dm_path_states lio_pf)" AA "$ENGINE: no path failed while scsi_dh_alua retries"
	[ "$turs" -ge 3 ] || fail "$ENGINE: port 2 got $turs commands in ${HOLD_SECS} s: scsi_dh_alua is not retrying"
	expect_eq "$(nlines "no device found for rtpg|stpg failed|Failing path|Could not failover")" 0 \
		"$ENGINE: no activation ended while the group transitions"
	say "the transition ends (standby): the next TUR passes, RTPG, STPG"
	lio_state 2 standby
	wait_queue_io lio_pf 0 15 || { lio_evidence; dm_status lio_pf; fail "pg_init did not end after the transition"; }
	fio_expect_clean
	expect_gap_below $BOUND_MS
	gap=$GAP_MS
	awk -v g="$gap" -v h=$((HOLD_SECS * 1000)) 'BEGIN {exit !(g >= h)}' ||
		fail "$ENGINE: the longest I/O took $gap ms: the I/O was not held for the transition"
	st=$(dm_status lio_pf)
	echo "$st"
	expect_eq "$(mp_pg_init_count lio_pf)/$(mp_active_group lio_pf)/$(dm_path_states lio_pf)" 1/2/AA \
		"$ENGINE: one pg_init, group 2 active, no path failed"
	expect_eq "$(lio_state_of 2)/$(lio_status_of 2)" "0/Altered by Explicit STPG" "port 2 made active/optimized by pg_init's STPG"
	[ "$(sd_ios "${LIO_PATHS[1]}")" -gt "$w0" ] || fail "$ENGINE: port 2 carried no I/O after the pg_init"
	lio_evidence
	echo 0 >"$LIO_G/implicit_trans_secs"
	part_end "$gap"
	R1B="trans_count=1 trans_turs=$turs trans_paths=AA trans_gap_ms=$gap"
}

part_1a() {
	local st cnt gap r1 r2 w0
	# fio runs on after the two rounds (~8 s): I/O flows on Q
	part_begin 1a "pg_init_retries 1, group 2 = ports 2 (P) and 3 (Q), both transitioning; P's RTPG gets DID_NO_CONNECT in every round" \
		"2=standby 3=standby" 1 14 "$B" "$C"
	lio_state 2 transitioning
	lio_state 3 transitioning
	dmesg_mark
	w0=$(sd_ios "${LIO_PATHS[2]}")
	run dmsetup message lio_pf 0 switch_group 2 || fail "switch_group"
	fio_alive
	wait_dh_state 2 transitioning 10 && wait_dh_state 3 transitioning 10 ||
		{ lio_evidence; fail "the activations did not see the transition"; }
	say "round 1: P's device offline while scsi_dh_alua retries"
	path_state "${LIO_PATHS[1]}" offline
	wait_dmesg "no device found for rtpg" 10 || { lio_evidence; fail "round 1: no RES_TEMP_UNAVAIL for P"; }
	st=$(dm_status lio_pf)
	echo "$st"
	expect_match "$st" "^2 1 1 " "$ENGINE: round 1 still running (queue_io 1, pg_init_count 1): Q's activation holds it"
	lio_state 2 ao
	path_state "${LIO_PATHS[1]}" running
	lio_state 2 transitioning
	say "Q active/optimized: its activation ends round 1, dm retries (round 2)"
	lio_state 3 ao
	wait_count lio_pf 2 10 || { lio_evidence; dm_status lio_pf; fail "no second pg_init round"; }
	dm_status lio_pf
	# round 2 started with P running (its activation was accepted); its
	# worker loops on the transition; P offline again
	sleep 1
	say "round 2: P's device offline again"
	path_state "${LIO_PATHS[1]}" offline
	part_failed "P was not failed after round 2"
	r1=$(nlines "${LIO_HCTLS[1]}: alua: rtpg failed, result 65536")
	r2=$(nlines "no device found for rtpg")
	lio_evidence 40
	expect_eq "$cnt" 2 "$ENGINE: pg_init_count 2: one retry (pg_init_retries 1), then the retries were exhausted"
	expect_eq "$r1/$r2" 2/2 "$ENGINE: P's RTPG failed with DID_NO_CONNECT once per round (2 activations, RES_TEMP_UNAVAIL each)"
	# (an activation refused at once for an offline device, DEV_OFFLINED,
	# sends no RTPG: two RTPG failures mean two activations that ran)
	expect_eq "$(nlines "${LIO_HCTLS[1]}: rejecting I/O to offline device")" 2 \
		"$ENGINE: P refused its worker's commands in each of its 2 offline periods"
	expect_eq "$(mp_active_group lio_pf)/$(dm_path_states lio_pf)" 2/AFA "$ENGINE: group 2 active, P failed, Q active"
	expect_eq "$(nlines "Failing path $B")" 1 "$ENGINE: P failed once"
	if [ "$ENGINE" = new ]; then
		expect_eq "$(nlines "scsi_dh error 13, pg_init_retries 1 reached")" 1 "blk-mpath says why: RES_TEMP_UNAVAIL, retries reached"
	fi
	[ "$(sd_ios "${LIO_PATHS[2]}")" -gt "$w0" ] || fail "$ENGINE: Q carried no I/O"
	# the port out of its transition before the device runs again (the
	# rescan "running" makes: sd's revalidation spins for 100 s on 04/0a)
	lio_state 2 standby
	lio_state 3 standby
	path_state "${LIO_PATHS[1]}" running
	part_end "$gap"
	R1A="retry_count=$cnt retry_rtpg_fail=$r1 retry_paths=AFA retry_gap_ms=$gap"
}

part_2() {
	local cnt gap n1 n2 w0
	part_begin 2 "pg_init_retries 3, group 2 = port 2 (LBA dependent) and port 3 (active/optimized): SCSI_DH_NOSYS for port 2" \
		"2=standby 3=ao" 3 6 "$B" "$C"
	LBD_PORT=2
	lio_lbd_on 2
	dmesg_mark
	w0=$(sd_ios "${LIO_PATHS[2]}")
	run dmsetup message lio_pf 0 switch_group 2 || fail "switch_group"
	fio_alive
	part_failed "port 2's path was not failed"
	n1=$(nlines "${LIO_HCTLS[1]}: alua: stpg failed, unhandled TPGS state 4")
	n2=$(nlines "Could not failover the device: Handler scsi_dh_alua Error 16")
	lio_evidence
	expect_eq "$n1/$n2" 1/1 "$ENGINE: one activation of port 2, refused with SCSI_DH_NOSYS, reported once"
	expect_eq "$cnt" 1 "$ENGINE: pg_init_count 1: no retry for a hard failure (pg_init_retries 3)"
	expect_eq "$(mp_active_group lio_pf)/$(dm_path_states lio_pf)" 2/AFA "$ENGINE: group 2 active, port 2 failed, port 3 active"
	expect_eq "$(nlines "Failing path $B")" 1 "$ENGINE: port 2 failed once"
	[ "$(sd_ios "${LIO_PATHS[2]}")" -gt "$w0" ] || fail "$ENGINE: port 3 carried no I/O"
	lio_lbd_off
	LBD_PORT=
	part_end "$gap"
	R2="nosys_count=$cnt nosys_lines=$n1 nosys_paths=AFA nosys_gap_ms=$gap"
}

run_engine() {
	local k s n g max=0
	GAPS=()
	lio_setup 3 3
	A=${LIO_MM[0]} B=${LIO_MM[1]} C=${LIO_MM[2]} N=$(sectors "/dev/${LIO_PATHS[0]}")
	part_1b
	part_1a
	part_2
	for g in "${GAPS[@]}"; do max=$(awk -v a="$g" -v b="$max" 'BEGIN {print (a > b) ? a : b}'); done
	# shellcheck disable=SC2086
	fault_result gap_ms="$max" $R1B $R1A $R2
	if [ "$ENGINE" = new ]; then
		for k in trans_count trans_paths retry_count retry_rtpg_fail retry_paths nosys_count nosys_lines nosys_paths; do
			s=$(fault_value stock $k) n=$(fault_value new $k)
			[ -n "$s" ] || fail "no stock result for $k"
			expect_eq "$n" "$s" "blk-mpath gives what stock gives: $k"
		done
	fi
}
fault_main
