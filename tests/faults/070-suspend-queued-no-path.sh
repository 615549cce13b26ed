#!/bin/bash
# DESCRIPTION: suspend/reload with I/O queued and no path (queue_if_no_path, both scsi_debug paths offline), stock and blk-mpath: a flushing suspend returns within 30 s and fails the queued I/O with EIO (a request it leaves held, a race stock has too, is queued again after resume and completes when the paths return), queue_if_no_path is dropped while suspended and back after resume (new I/O queues again); a noflush suspend plus a reload with working paths completes the queued fio verify I/O without error; dm messages sent while the map is suspended are refused (EBUSY, stock's dm_suspended() check) and change nothing after resume; both engines give the same outcome
# REQUIRES: cmd:fio mod:scsi_debug mod:dm-blk-mpath mod:dm-multipath
# TIER: full
# TIMEOUT: 480
. /opt/blk-mpath/tests/lib/common.sh
. /opt/blk-mpath/tests/lib/faults.sh
FAULT_COMPARE=none
export DM_DISABLE_UDEV=1

# Stock (drivers/md/dm-mpath.c, 6.1): multipath_presuspend turns
# queue_if_no_path off for a flushing suspend, saving it in
# MPATHF_SAVED_QUEUE_IF_NO_PATH (the queued requests then fail: a flushing
# suspend cannot finish while I/O waits for a path); multipath_resume
# restores it.  A noflush suspend leaves it on, the queued requests stay
# queued and go to the new table after a reload.  multipath_message refuses
# every message with EBUSY once dm_suspended(ti).  blk-mpath's target must
# do the same.
# A flushing suspend need not fail every queued request, on stock either
# (seen on stock in this scenario: the write failed, the read stayed held),
# most likely because a request being mapped while presuspend drops
# queue_if_no_path is pushed
# back with DM_MAPIO_DELAY_REQUEUE, whose 100 ms re-kick of the requeue
# list overrides presuspend's immediate one; __dm_suspend quiesces the
# queue meanwhile, and dm_wait_for_completion counts only requests in
# flight (blk_mq_queue_inflight), not those on the requeue list.  Such a
# request is held over the suspend and queued again after resume.

SUS_BOUND=30		# seconds a suspend or resume may take (a hang otherwise)
PAT1=/tmp/070-pat1 PAT2=/tmp/070-pat2 RB=/tmp/070-readback
OFF1=256 OFF2=512	# 4k blocks: where the step-1 writes go (1 MiB, 2 MiB)
MSGS_ALL="fail_if_no_path queue_if_no_path reinstate_path:A fail_path:B switch_group:2 disable_group:1 enable_group:1"

dmdev() { dmsetup info -c --noheadings -o blkdevname "$1" | tr -d ' '; }
dm_state() { dmsetup info "$1" | sed -n 's/^State: *//p'; }
dm_open() { dmsetup info -c --noheadings -o open "$1" | tr -d ' '; }
# writes and reads the map completed (stat fields 5 and 1)
dm_wdone() { awk '{print $5}' "/sys/block/$DM/stat"; }
dm_rdone() { awk '{print $1}' "/sys/block/$DM/stat"; }
dm_inflight() { tr -s ' ' '/' <"/sys/block/$DM/inflight" | sed 's/^\///'; }
# the queue_if_no_path feature of the live table: 1 or 0 features
qifnp() { dm_table mpq | awk '{print $1}'; }
# the map's state: queueing, path states, group numbers with their states
state_sig() { echo "q=$(qifnp),p=$(dm_path_states mpq),g=$(mp_paths mpq | awk '{printf "%s%s", $1, $2}')"; }

# bounded WHAT CMD...: run CMD in the background, at most SUS_BOUND s;
# sets B_RC, B_MS.  A hang fails the scenario, after releasing the map
# (fail_if_no_path: a map still suspending is not suspended yet, so it
# takes the message, and the queued requests fail)
bounded() {
	local what=$1 t0 pid
	shift
	t0=$(now_ms)
	echo "+ $*"
	"$@" 2>/tmp/070-bounded.err &
	pid=$!
	# the bound is wall-clock time: under TCG a "sleep 0.1" round takes
	# well over 0.1 s, so counting rounds would wait longer than it says
	while kill -0 $pid 2>/dev/null && [ $(($(now_ms) - t0)) -lt $((SUS_BOUND * 1000)) ]; do
		sleep 0.1
	done
	if kill -0 $pid 2>/dev/null; then
		echo "HANG: '$*' still running after $SUS_BOUND s"
		echo w >/proc/sysrq-trigger
		dmesg | tail -40
		dmsetup message mpq 0 fail_if_no_path
		fail "$ENGINE: $what did not return within $SUS_BOUND s (hang)"
	fi
	wait $pid
	B_RC=$?
	B_MS=$(($(now_ms) - t0))
	cat /tmp/070-bounded.err
	say "$what: rc=$B_RC after $B_MS ms"
}

# bg_dd NAME dd-args...: a dd in the background; its pid in DD_<NAME>
bg_dd() {
	local n=$1
	shift
	dd "$@" status=none 2>"/tmp/070-dd-$n.err" &
	printf -v "DD_$n" %s $!
}
# dd_end NAME SECS: wait for dd NAME; DD_RC (hang: still running)
dd_end() {
	local pid=DD_$1 t0
	pid=${!pid} t0=$(now_ms)
	while kill -0 "$pid" 2>/dev/null && [ $(($(now_ms) - t0)) -lt $(($2 * 1000)) ]; do
		sleep 0.1
	done
	if kill -0 "$pid" 2>/dev/null; then DD_RC=hang; else wait "$pid"; DD_RC=$?; fi
	say "dd $1: rc=$DD_RC $(tr '\n' ' ' <"/tmp/070-dd-$1.err")"
}
# expect_queued WHAT PIDS...: the I/O of these processes waits in the map:
# they are alive, the map has openers, it completed no read or write in
# 2 s, and every path is failed
expect_queued() {
	local what=$1 w0 r0 p
	shift
	w0=$(dm_wdone) r0=$(dm_rdone)
	sleep 2
	for p; do kill -0 "$p" 2>/dev/null || fail "$ENGINE: $what: process $p ended (its I/O did not queue)"; done
	[ "$(dm_open mpq)" -ge 1 ] || fail "$ENGINE: $what: the map has no opener"
	expect_eq "$(dm_wdone)/$(dm_rdone)" "$w0/$r0" "$what: no read or write completed on the map in 2 s (I/O queued)"
	expect_eq "$(dm_path_states mpq)" FF "$what: both paths failed"
	say "$what: open count $(dm_open mpq), inflight (read/write) $(dm_inflight)"
}
# paths_offline: both scsi_debug paths offline (proved by the kernel's
# "rejecting I/O to offline device" for each, once I/O reached them)
paths_offline() { path_state "$PA" offline; path_state "$PB" offline; }
paths_running() { path_state "$PA" running; path_state "$PB" running; }
expect_rejected() { # what
	local d h
	for d in "$PA" "$PB"; do
		h=$(readlink -f "/sys/block/$d/device"); h=${h##*/}
		dmesg_since | grep -q "$h.*rejecting I/O to offline device" ||
			fail "$ENGINE: $1: no I/O reached offline $d (no 'rejecting I/O to offline device')"
	done
	say "ok: $1: I/O reached both offline paths and was rejected"
}
# msgs_while_suspended: every message of MSGS_ALL to the suspended map;
# MSGS: "<message>=accepted|EBUSY|refused," each
msgs_while_suspended() {
	local m out rc r
	MSGS=
	expect_eq "$(dm_state mpq)" SUSPENDED "the map is suspended while the messages are sent"
	for m in $MSGS_ALL; do
		m=${m//:A/:$A} m=${m//:B/:$B}
		# shellcheck disable=SC2086
		out=$(dmsetup message mpq 0 ${m/:/ } 2>&1)
		rc=$?
		if [ $rc = 0 ]; then r=accepted
		elif [[ $out == *"Device or resource busy"* ]]; then r=EBUSY
		else r=refused; fi
		say "message '${m/:/ }' while suspended: rc=$rc $r ${out//$'\n'/ }"
		MSGS+="${m%%:*}=$r,"
	done
	MSGS=${MSGS%,}
}
expect_all_ebusy() { # what
	local m bad=
	for m in ${MSGS//,/ }; do [ "${m#*=}" = EBUSY ] || bad+=" $m"; done
	[ -z "$bad" ] || fail "$ENGINE: $1: messages not refused with EBUSY while suspended:$bad (stock's multipath_message refuses all once dm_suspended)"
	say "ok: $1: every message refused with EBUSY while suspended"
}

cleanup() { [ -n "${PA:-}" ] && [ -e "/sys/block/$PA" ] && paths_running 2>/dev/null; rm -f $PAT1 $PAT2 $RB; }
trap cleanup EXIT

run_engine() {
	local before after s1 s2 s3 k t_start=$SECONDS
	sdebug_setup
	PA=${SD_PATHS[0]} PB=${SD_PATHS[1]}
	path_vars "$PA" "$PB"
	# failover: group 1 = PA, group 2 = PB, queueing when no path is left
	T="0 $N multipath 1 queue_if_no_path 0 2 1 round-robin 0 1 1 $A 1 round-robin 0 1 1 $B 1"
	dm_create mpq "$T" || fail "create mpq"
	DM=$(dmdev mpq)
	head -c 65536 /dev/urandom >$PAT1
	head -c 65536 /dev/urandom >$PAT2
	expect_eq "$(qifnp)" 1 "queue_if_no_path in the table"

	# ---- 1. flushing suspend with I/O queued and no path ----------------
	STEP="1 flush suspend"
	dmesg_mark
	paths_offline
	bg_dd w1 if=$PAT1 of=/dev/mapper/mpq bs=64k count=1 seek=$((OFF1 / 16)) oflag=direct
	bg_dd r1 if=/dev/mapper/mpq of=/dev/null bs=4k count=1 skip=$OFF2 iflag=direct
	wait_path mpq "$A" F 20 && wait_path mpq "$B" F 20 || fail "$ENGINE: the paths did not fail"
	expect_rejected "step 1"
	expect_queued "step 1" "$DD_w1" "$DD_r1"
	local infl1; infl1=$(dm_inflight)
	bounded "flushing suspend" dmsetup suspend mpq
	[ "$B_RC" = 0 ] || fail "$ENGINE: the flushing suspend failed (rc $B_RC)"
	local sus1_ms=$B_MS
	expect_eq "$(dm_state mpq)" SUSPENDED "map suspended"
	# every queued request: failed with EIO, or (stock's race, below) still
	# held; none may succeed with no path, at least one must fail
	local n failed=0 held=() heldpids=()
	for n in w1 r1; do
		dd_end $n 5
		case $DD_RC in
		hang) held+=("$n"); local p=DD_$n; heldpids+=("${!p}") ;;
		0) fail "$ENGINE: the queued $n succeeded with no path" ;;
		*) grep -q "Input/output error" "/tmp/070-dd-$n.err" || fail "$ENGINE: the queued $n did not fail with EIO"
		   failed=$((failed + 1)) ;;
		esac
	done
	[ $failed -ge 1 ] || fail "$ENGINE: the flushing suspend returned after $sus1_ms ms and failed none of the queued I/O (held: ${held[*]})"
	say "ok: the flushing suspend failed $failed of the 2 queued requests with EIO${held:+, still held: ${held[*]}}"
	if [ ${#held[@]} -gt 0 ]; then
		# a request that was being mapped (DM_MAPIO_DELAY_REQUEUE: requeued,
		# the requeue list kicked again in 100 ms) while presuspend dropped
		# queue_if_no_path waits in blk-mq's queue, which __dm_suspend then
		# quiesces; dm_wait_for_completion counts only requests in flight
		say "held after the flushing suspend: ${held[*]}; inflight $(dm_inflight); blk-mq queue of $DM:"
		grep -H . /sys/kernel/debug/block/$DM/requeue_list /sys/kernel/debug/block/$DM/hctx*/dispatch \
			/sys/kernel/debug/block/$DM/hctx*/busy /sys/kernel/debug/block/$DM/hctx*/cpu*/*rq_list \
			/sys/kernel/debug/block/$DM/hctx*/sched/* 2>/dev/null | head -10
	fi
	s1="sus=ok,io=EIO,q_susp=$(qifnp)"

	# ---- 3a. messages while flush-suspended ------------------------------
	STEP="3a messages, flush-suspended"
	msgs_while_suspended
	local msgs1=$MSGS
	[ "$ENGINE" = stock ] && expect_all_ebusy "step 3a"
	bounded "resume" dmsetup resume mpq
	[ "$B_RC" = 0 ] || fail "$ENGINE: resume failed (rc $B_RC)"
	expect_eq "$(dm_state mpq)" ACTIVE "map active after resume"
	after=$(state_sig)
	say "state after resume: $after"
	expect_eq "$after" "q=1,p=FF,g=1E2E" "after resume: queue_if_no_path restored, both paths still failed (the suspended map took no message)"
	# queueing is back: new I/O queues instead of failing
	bg_dd w2 if=$PAT2 of=/dev/mapper/mpq bs=64k count=1 seek=$((OFF1 / 16)) oflag=direct
	# and a request still held from the suspend is queued again, not lost
	expect_queued "after resume" "$DD_w2" "${heldpids[@]}"
	paths_running
	run dmsetup message mpq 0 reinstate_path "$A" || fail "reinstate A"
	run dmsetup message mpq 0 reinstate_path "$B" || fail "reinstate B"
	dd_end w2 30
	[ "$DD_RC" = 0 ] || fail "$ENGINE: the write queued after resume did not complete once the paths returned ($DD_RC)"
	for n in "${held[@]}"; do
		dd_end "$n" 10
		[ "$DD_RC" = 0 ] || fail "$ENGINE: the request $n held over the suspend did not complete once the paths returned ($DD_RC)"
		say "ok: the request $n held over the suspend completed once the paths returned"
	done
	dd if=/dev/mapper/mpq of=$RB bs=64k count=1 skip=$((OFF1 / 16)) iflag=direct status=none || fail "read back"
	cmp -s $PAT2 $RB || fail "$ENGINE: the write queued after resume reads back wrong"
	say "ok: the write queued after resume completed once the paths returned, data verified"
	expect_eq "$(dm_path_states mpq)" AA "both paths reinstated"
	s1+=",after=$after,requeue=ok"

	# ---- 2. noflush suspend + reload with working paths -----------------
	STEP="2 noflush suspend + reload"
	fio_start mpq 25
	dmesg_mark
	paths_offline
	fault_mark
	wait_path mpq "$A" F 20 && wait_path mpq "$B" F 20 || fail "$ENGINE: the paths did not fail under fio"
	fio_alive
	expect_rejected "step 2"
	expect_queued "step 2" "$FIO_PID"
	local infl2; infl2=$(dm_inflight)
	local tq0; tq0=$(now_ms)
	local w0; w0=$(dm_wdone)
	bounded "noflush suspend" dmsetup suspend --noflush mpq
	[ "$B_RC" = 0 ] || fail "$ENGINE: the noflush suspend failed (rc $B_RC)"
	local sus2_ms=$B_MS
	expect_eq "$(dm_state mpq)" SUSPENDED "map suspended (noflush)"
	kill -0 "$FIO_PID" 2>/dev/null || fail "$ENGINE: fio ended during the noflush suspend (its queued I/O failed?)"
	expect_eq "$(dm_wdone)" "$w0" "no write completed during the noflush suspend (the I/O is still held)"
	expect_eq "$(qifnp)" 1 "queue_if_no_path kept while noflush-suspended"

	# ---- 3b. messages while noflush-suspended with I/O queued -----------
	STEP="3b messages, noflush-suspended"
	msgs_while_suspended
	local msgs2=$MSGS
	[ "$ENGINE" = stock ] && expect_all_ebusy "step 3b"
	kill -0 "$FIO_PID" 2>/dev/null || fail "$ENGINE: fio ended after the messages (a fail_if_no_path taken while suspended fails the queued I/O)"
	sleep 1
	paths_running
	run dmsetup reload mpq --table "$T" || fail "$ENGINE: reload while noflush-suspended"
	expect_eq "$(dm_wdone)" "$w0" "no write completed before the resume"
	bounded "resume with the new table" dmsetup resume mpq
	[ "$B_RC" = 0 ] || fail "$ENGINE: resume after the reload failed (rc $B_RC)"
	local held_ms=$(($(now_ms) - tq0))
	expect_eq "$(dm_state mpq)" ACTIVE "map active after the reload"
	fio_expect_clean
	say "the I/O was held ${held_ms} ms from the queued check to the resume; fio's longest completion ${GAP_MS} ms"
	# the held I/O completed after the resume, it was not lost and not
	# completed early: some I/O took at least as long as it was held
	awk -v g="$GAP_MS" -v h="$held_ms" 'BEGIN {exit !(g >= h)}' ||
		fail "$ENGINE: no I/O took as long as the ${held_ms} ms it was held (longest ${GAP_MS} ms): was it queued?"
	say "ok: the queued fio I/O completed after the reload, verified, 0 errors"
	local gap2=$GAP_MS
	after=$(state_sig)
	expect_eq "$after" "q=1,p=AA,g=1A2E" "after the reload: the new table's working paths, group 1 active"
	s2="sus=ok,io=held,after=$after,fio=clean"

	# ---- 3c. healthy map under fio: messages while suspended change nothing
	STEP="3c messages, healthy map"
	fio_start mpq 12
	before=$(state_sig)
	bounded "flushing suspend (healthy)" dmsetup suspend mpq
	[ "$B_RC" = 0 ] || fail "$ENGINE: the flushing suspend of the healthy map failed (rc $B_RC)"
	kill -0 "$FIO_PID" 2>/dev/null || fail "$ENGINE: fio ended during the suspend"
	msgs_while_suspended
	local msgs3=$MSGS
	[ "$ENGINE" = stock ] && expect_all_ebusy "step 3c"
	bounded "resume (healthy)" dmsetup resume mpq
	[ "$B_RC" = 0 ] || fail "$ENGINE: resume failed (rc $B_RC)"
	after=$(state_sig)
	expect_eq "$after" "$before" "after resume the map is as before the suspend (fail_path, switch_group, disable_group, fail_if_no_path not taken)"
	expect_eq "$after" "q=1,p=AA,g=1A2E" "queueing on, both paths active, group 1 active"
	fio_expect_clean
	s3="before=$before,after=$after,fio=clean"

	fault_result flush="$s1" noflush="$s2" healthy="$s3" msgs_flush="$msgs1" msgs_noflush="$msgs2" \
		msgs_healthy="$msgs3" suspend1_ms=$sus1_ms suspend2_ms=$sus2_ms held_ms=$held_ms \
		inflight_queued="$infl1,$infl2" flush_failed=$failed flush_held=${#held[@]} \
		noflush_gap_ms=$gap2 healthy_gap_ms=$GAP_MS secs=$((SECONDS - t_start))
	# both engines must give the same outcome
	if [ "$ENGINE" = new ]; then
		for k in flush noflush healthy msgs_flush msgs_noflush msgs_healthy; do
			[ -n "$(fault_value stock $k)" ] || fail "no stock result for $k"
			expect_eq "$(fault_value new $k)" "$(fault_value stock $k)" "blk-mpath does what stock does: $k"
		done
	fi
	dm_remove mpq
}
fault_main
