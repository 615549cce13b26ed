#!/bin/bash
# DESCRIPTION: queued I/O fails after the bound, not before and not never: queue_if_no_path_timeout_secs (also after fail_if_no_path / queue_if_no_path messages) and multipathd no_path_retry, stock and blk-mpath
# REQUIRES: cmd:multipathd mod:scsi_debug mod:dm-blk-mpath mod:dm-multipath
# TIMEOUT: 400
. /opt/blk-mpath/tests/lib/common.sh
. /opt/blk-mpath/tests/lib/faults.sh
FAULT_COMPARE=none
export DM_DISABLE_UDEV=1
BOUND=5

# bg_read MAP: one 4k direct read in the background; BG_PID, BG_T0 (ms)
bg_read() {
	BG_T0=$(date +%s%3N)
	dd if="/dev/mapper/$1" of=/dev/null bs=4k count=1 skip=$((RANDOM % 1000)) iflag=direct 2>/tmp/bg.err &
	BG_PID=$!
}
# bg_done MAX_S: wait up to MAX_S for the read; BG_RC, BG_MS (elapsed)
bg_done() {
	local i
	for i in $(seq $(($1 * 10))); do
		kill -0 "$BG_PID" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$BG_PID" 2>/dev/null; then
		BG_RC=hang
	else
		wait "$BG_PID"; BG_RC=$?
	fi
	BG_MS=$(($(date +%s%3N) - BG_T0))
}
# expect_fail_between MIN_MS MAX_S what
expect_fail_between() {
	bg_done "$2"
	[ "$BG_RC" = hang ] && fail "$3: queued read still waiting after $2 s (never failed)"
	[ "$BG_RC" -ne 0 ] || fail "$3: the read succeeded with no path"
	[ "$BG_MS" -ge "$1" ] || fail "$3: the read failed after $BG_MS ms, before the bound ($1 ms)"
	say "ok: $3: the queued read failed after $BG_MS ms (bound $1 ms)"
}
param_file() {
	local m
	for m in dm_multipath dm_blk_mpath; do
		[ -e "/sys/module/$m/parameters/queue_if_no_path_timeout_secs" ] &&
			{ echo "/sys/module/$m/parameters/queue_if_no_path_timeout_secs"; return; }
	done
}

trap "rm -f /etc/multipath/conf.d/npr.conf" EXIT
run_engine() {
	local pf T
	sdebug_setup
	path_vars "${SD_PATHS[@]}"
	pf=$(param_file) || fail "no queue_if_no_path_timeout_secs parameter"
	run sh -c "echo $BOUND > $pf"
	T="0 $N multipath 1 queue_if_no_path 0 1 1 round-robin 0 2 1 $A 1 $B 1"
	dm_create mpq "$T" || fail "create"

	# 1. the timer, armed by the last path failure
	path_state "${SD_PATHS[0]}" offline
	path_state "${SD_PATHS[1]}" offline
	bg_read mpq
	wait_path mpq "$A" F 20 && wait_path mpq "$B" F 20 || fail "paths did not fail"
	expect_fail_between $((BOUND * 1000 - 500)) $((BOUND + 20)) "timer armed by the last path failure"
	local t_timer=$BG_MS
	expect_eq "$(dm_table mpq | awk '{print $1}')" 0 "queue_if_no_path off after the timeout"

	# 2. all paths down, fail mode, then the queue_if_no_path message
	run dmsetup message mpq 0 queue_if_no_path || fail "message"
	bg_read mpq
	expect_fail_between $((BOUND * 1000 - 500)) $((BOUND + 20)) "queue_if_no_path message with no path"
	local t_msg=$BG_MS

	# 3. armed, fail_if_no_path (queued I/O fails at once), queue again
	run dmsetup message mpq 0 queue_if_no_path || fail "message"
	bg_read mpq
	sleep 2
	kill -0 "$BG_PID" 2>/dev/null || fail "the read did not queue"
	run dmsetup message mpq 0 fail_if_no_path || fail "message"
	bg_done 5
	[ "$BG_RC" != hang ] && [ "$BG_RC" -ne 0 ] || fail "fail_if_no_path did not fail the queued read at once ($BG_RC)"
	say "ok: fail_if_no_path failed the queued read"
	run dmsetup message mpq 0 queue_if_no_path || fail "message"
	bg_read mpq
	expect_fail_between $((BOUND * 1000 - 500)) $((BOUND + 20)) "queue again after fail_if_no_path"

	# 4. a path back before the bound: the I/O completes, no error
	run dmsetup message mpq 0 queue_if_no_path || fail "message"
	bg_read mpq
	sleep 2
	path_state "${SD_PATHS[1]}" running
	run dmsetup message mpq 0 reinstate_path "$B" || fail "reinstate"
	bg_done 10
	[ "$BG_RC" = 0 ] || fail "the queued read failed ($BG_RC) although a path came back within the bound"
	say "ok: a path back within the bound completes the queued read ($BG_MS ms)"
	sleep $((BOUND + 1))
	expect_eq "$(dm_table mpq | awk '{print $1}')" 1 "queue_if_no_path still on: the timer was stopped"
	run sh -c "echo 0 > $pf"
	path_state "${SD_PATHS[0]}" running
	dm_remove mpq
	sdebug_teardown

	# 5. multipathd no_path_retry 3 on the QEMU LUN (polling_interval 2)
	mkdir -p /etc/multipath/conf.d
	printf 'defaults {\n\tno_path_retry 3\n}\n' >/etc/multipath/conf.d/npr.conf
	multipathd_start
	local map
	map=$(multipathd show maps raw format "%n" | head -1)
	for i in $(seq 30); do [ "$(dm_path_states "$map")" = AA ] && break; sleep 1; done
	expect_match "$(dm_table "$map")" "queue_if_no_path" "multipathd set queue_if_no_path for no_path_retry 3"
	for d in $(lun_paths); do path_state "$d" offline; done
	bg_read "$map"
	# 3 checks of 2 s after the last path failed, at least 4 s in all
	expect_fail_between 4000 60 "multipathd no_path_retry 3"
	local t_npr=$BG_MS
	for d in $(lun_paths); do path_state "$d" running; done
	rm -f /etc/multipath/conf.d/npr.conf
	fault_result timer_bound_ms=$((BOUND * 1000)) timer_failed_ms=$t_timer \
		after_queue_msg_ms=$t_msg no_path_retry3_failed_ms=$t_npr
}
fault_main
