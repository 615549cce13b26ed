#!/bin/bash
# DESCRIPTION: LIO tcm_loop, explicit ALUA (access type 3), pg_init_retries 3 pg_init_delay_msecs 2500, under fio verify: switch_group to the transitioning group, whose first activation fails retryably on one path (RTPG refused with DID_NO_CONNECT: SCSI_DH_RES_TEMP_UNAVAIL) and is retried (pg_init_count 2), with STPG to the port left in standby; then the active group fails and the bypassed standby group is used as last resort after pg_init_delay_msecs, with STPG; no I/O error, stock and blk-mpath
# REQUIRES: cmd:fio mod:tcm_loop mod:dm-blk-mpath mod:dm-multipath
# TIMEOUT: 300
. /opt/blk-mpath/tests/lib/common.sh
. /opt/blk-mpath/tests/lib/faults.sh
. /opt/blk-mpath/tests/lib/lio.sh
trap lio_quiesce EXIT
export DM_DISABLE_UDEV=1
#
# What reaches dm's pg_init_done() from scsi_dh_alua in 6.1
# (drivers/scsi/device_handler/scsi_dh_alua.c, alua_rtpg_work()):
# SCSI_DH_RETRY and SCSI_DH_IMM_RETRY never do.  The worker consumes them
# itself: a UNIT ATTENTION or "transitioning" (RTPG data or 04/0a) on RTPG
# requeues the RTPG (every ALUA_RTPG_RETRY_DELAY = 2 s, TUR first while
# transitioning) until pg->expiry (the target's implicit transition time,
# 60 s when LIO reports 0) and then ends in SCSI_DH_IO (fail_path); any
# STPG result but OK / DEV_TEMP_BUSY (a UA, 04/0a, an implicit-only port)
# becomes "retry RTPG", again inside the worker.  So a UA or a transition
# in progress when the STPG arrives only makes the first activation slow.
# The retryable code that does reach pg_init_done() is
# SCSI_DH_RES_TEMP_UNAVAIL (same branch as IMM_RETRY: counted against
# pg_init_retries, retried at once, no delay): RTPG failed with
# DID_NO_CONNECT and no other device of the port group could send it
# (alua_rtpg_select_sdev()).  DID_NO_CONNECT comes from scsi_queue_rq()
# for a device in state "offline"; scsi_dh_activate() itself refuses an
# offline device (SCSI_DH_DEV_OFFLINED, fail_path), so the device must be
# offline while the worker loops and running again when dm retries.
#   Group 2 = ports 2 and 3 (own port groups), both transitioning: both
#   activations loop in scsi_dh_alua; port 2's device goes offline -> its
#   TUR and RTPG get DID_NO_CONNECT -> RES_TEMP_UNAVAIL -> pg_init_done
#   marks the retry (pg_init_count 1 <= 3) and, port 3's activation still
#   running, waits for it; port 2 ends its transition active/optimized and
#   its device runs again (in that order: "running" rescans the device,
#   and sd's revalidation of a transitioning port spins for 100 s on
#   04/0a); port 3 ends its transition in standby, its activation sends
#   STPG (-> active/optimized) and completes; dm retries the whole group
#   (pg_init_count 2) and both activations succeed.
# RTPG RACE (6.1 scsi_dh_alua, both engines alike): alua_rtpg() applies
# every descriptor of the RTPG answer to the other port groups of the LUN
# whose worker is not running at that moment.  When a group's STPG and
# another group's RTPG overlap (both paths of the dm group activated at
# once), the other worker can apply its answer - taken before the STPG -
# after the STPG's worker is done, putting the STPG'd group back to
# standby in scsi_dh_alua's view: alua_prep_fn() then refuses the first
# I/O on that path and dm fails it (seen on both engines, about one run
# in two, when port 2 needed STPG in the retry round).  Hence port 2 is
# made active/optimized by the target, and STPG goes to port 3 only,
# whose RTPG/STPG happen while port 2's activation is not running.
# pg_init_delay_msecs applies only after SCSI_DH_RETRY (unreachable, see
# above) or when choose_pgpath() falls back to a bypassed group
# (disable_group) as last resort: phase 2.
#
PG_DELAY=2500
BOUND1_MS=15000	# phase 1: two 2 s RTPG retry periods of scsi_dh_alua, STPGs, TCG
BOUND2_MS=$((PG_DELAY + 4000))
# phase 1's gap follows the phase of scsi_dh_alua's 2 s retry loop
FAULT_SLACK_MS=2000

# wait_queue_io MAP 0|1 SECS
wait_queue_io() {
	local i
	for i in $(seq $(($3 * 10))); do
		[ "$(mp_queue_io "$1")" = "$2" ] && return 0
		sleep 0.1
	done
	return 1
}
# wait_dh_state PORT STATE SECS: scsi_dh_alua has seen PORT in STATE
wait_dh_state() {
	local i
	for i in $(seq $(($3 * 10))); do
		[ "$(lio_dh_state_of "$1")" = "$2" ] && return 0
		sleep 0.1
	done
	return 1
}

run_engine() {
	local A B C N gap1 gap2 t_fail t_act dt st cnt
	lio_setup 3 3
	A=${LIO_MM[0]} B=${LIO_MM[1]} C=${LIO_MM[2]} N=$(sectors "/dev/${LIO_PATHS[0]}")
	lio_state 2 standby
	lio_state 3 standby
	dm_create lio_ex "0 $N multipath 4 pg_init_retries 3 pg_init_delay_msecs $PG_DELAY 1 alua 2 1 round-robin 0 1 1 $A 1 round-robin 0 2 1 $B 1 $C 1" ||
		fail "create"
	expect_match "$(dm_table lio_ex)" "^4 pg_init_retries 3 pg_init_delay_msecs $PG_DELAY 1 alua " \
		"table features and hardware handler"

	say "1. switch_group 2 (ports 2+3, transitioning); port 2's first activation fails with SCSI_DH_RES_TEMP_UNAVAIL"
	fio_start lio_ex 8
	expect_eq "$(mp_active_group lio_ex)" 1 "group 1 carries the I/O"
	expect_eq "$(mp_pg_init_count lio_ex)" 1 "one pg_init for group 1"
	# (now, not before the map's first pg_init: its RTPG through port 1
	# would show scsi_dh_alua ports 2 and 3 transitioning already, and
	# wait_dh_state below must see port 2's own activation)
	lio_state 2 transitioning
	lio_state 3 transitioning
	dmesg_mark
	run dmsetup message lio_ex 0 switch_group 2 || fail "switch_group"
	fio_alive
	wait_dh_state 2 transitioning 10 || { lio_evidence; fail "the activation of port 2 did not see the transition"; }
	say "scsi_dh_alua retries RTPG for port 2 (transitioning); its device goes offline"
	path_state "${LIO_PATHS[1]}" offline
	wait_dmesg "no device found for rtpg" 10 ||
		{ lio_evidence; fail "scsi_dh_alua did not report RES_TEMP_UNAVAIL for port 2"; }
	st=$(dm_status lio_ex)
	echo "$st"
	expect_match "$st" "^2 1 1 " "pg_init still running (queue_io 1, pg_init_count 1): the retry waits for port 3"
	# port 2 active/optimized before "running": setting a device running
	# rescans it, and sd's revalidation of a transitioning port spins for
	# 100 s on 04/0a; and before the retry: see RTPG RACE above
	lio_state 2 ao
	path_state "${LIO_PATHS[1]}" running
	lio_state 3 standby
	wait_queue_io lio_ex 0 15 || { lio_evidence; dm_status lio_ex; fail "pg_init of group 2 did not finish"; }
	fio_expect_clean
	expect_gap_below $BOUND1_MS
	gap1=$GAP_MS
	st=$(dm_status lio_ex)
	echo "$st"
	cnt=$(mp_pg_init_count lio_ex)
	expect_eq "$cnt" 2 "pg_init_count 2: the first activation was retried"
	expect_eq "$(mp_active_group lio_ex)" 2 "group 2 is active"
	expect_eq "$(dm_path_states lio_ex)" AAA "no path failed"
	expect_eq "$(lio_state_of 2)/$(lio_state_of 3)" 0/0 "ports 2 and 3 active/optimized"
	expect_eq "$(lio_status_of 3)" "Altered by Explicit STPG" "port 3 was made active/optimized by pg_init's STPG"
	expect_eq "$(lio_dh_state_of 2)/$(lio_dh_state_of 3)" active/optimized/active/optimized \
		"scsi_dh_alua sees both ports active/optimized"
	dmesg_since | grep -q "rtpg failed, result 65536" || fail "no RTPG with DID_NO_CONNECT in the kernel log"
	lio_evidence 40

	say "2. port 1 standby, group 1 disabled; ports 2 and 3 go offline: the bypassed group 1 is the last resort, pg_init after ${PG_DELAY} ms, STPG"
	lio_state 1 standby
	run dmsetup message lio_ex 0 disable_group 1 || fail "disable_group"
	dmesg_mark
	fio_start lio_ex 6
	expect_eq "$(mp_active_group lio_ex)" 2 "group 2 carries the I/O"
	expect_match "$(dm_status lio_ex)" " D 0 1 0 $A A " "group 1 bypassed (D)"
	lio_port_offline 2 1
	lio_port_offline 3 1
	fio_alive
	wait_path lio_ex "$B" F 10 && wait_path lio_ex "$C" F 10 ||
		{ lio_evidence; fail "the paths on the offline ports did not fail"; }
	wait_queue_io lio_ex 0 $((PG_DELAY / 1000 + 10)) ||
		{ lio_evidence; dm_status lio_ex; fail "pg_init of group 1 did not finish"; }
	fio_expect_clean
	expect_gap_below $BOUND2_MS
	gap2=$GAP_MS
	awk -v g="$gap2" -v d=$PG_DELAY 'BEGIN {exit !(g >= d)}' ||
		fail "the longest I/O took $gap2 ms: pg_init did not wait pg_init_delay_msecs ($PG_DELAY ms)"
	t_fail=$(dmesg_time "Failing path ($B|$C)" last)
	t_act=$(dmesg_time "${LIO_HCTLS[0]}: alua: port group 01 state" first)
	[ -n "$t_fail" ] && [ -n "$t_act" ] || { lio_evidence; fail "no failure / activation lines in the kernel log"; }
	dt=$(awk -v a="$t_fail" -v b="$t_act" 'BEGIN {printf "%d", (b - a) * 1000}')
	say "last path failure at ${t_fail}s, first RTPG answer of group 1's activation logged at ${t_act}s: ${dt} ms"
	[ "$dt" -ge $((PG_DELAY - 100)) ] || fail "group 1 was activated ${dt} ms after the failure, before pg_init_delay_msecs"
	st=$(dm_status lio_ex)
	echo "$st"
	expect_eq "$(mp_active_group lio_ex)" 1 "group 1 is active"
	expect_eq "$(dm_path_states lio_ex)" AFF "paths on ports 2 and 3 failed, port 1's active"
	expect_eq "$(mp_pg_init_count lio_ex)" 1 "one pg_init for group 1"
	expect_eq "$(lio_state_of 1)" 0 "port 1 active/optimized"
	expect_eq "$(lio_status_of 1)" "Altered by Explicit STPG" "port 1's transition was made by STPG"
	lio_evidence
	lio_port_offline 2 0
	lio_port_offline 3 0
	dm_remove lio_ex

	fault_result gap_ms="$(awk -v a="$gap1" -v b="$gap2" 'BEGIN {print (a > b) ? a : b}')" \
		retry_gap_ms="$gap1" pg_init_count_after_retry="$cnt" delayed_gap_ms="$gap2" \
		pg_init_delay_ms=$PG_DELAY activation_after_ms="$dt"
}
fault_main
