#!/bin/bash
# DESCRIPTION: queue_mode bio under fio verify, stock and blk-mpath: (1) QEMU EIO on every read of path 0 in a bio-mode failover table: path 0 fails, group 2 takes over; (2) scsi_debug multibus bio map with queue_if_no_path: one path offline, then both (I/O held), a noflush suspend/resume, then both back: 0 I/O and verify errors; failover gap stock vs blk-mpath
# REQUIRES: cmd:fio mod:scsi_debug mod:dm-blk-mpath mod:dm-multipath
# TIMEOUT: 400
. /opt/blk-mpath/tests/lib/common.sh
. /opt/blk-mpath/tests/lib/faults.sh
export DM_DISABLE_UDEV=1

# the map is bio-based (a blk-mq queue has an mq directory) and says so
expect_bio_map() { # map
	local d
	d=$(dmsetup info -c --noheadings -o blkdevname "$1" | tr -d ' ')
	[ -n "$d" ] && [ -e "/sys/block/$d" ] || fail "no block device for $1"
	[ ! -d "/sys/block/$d/mq" ] || fail "$ENGINE: $1 is request-based, not bio-based"
	expect_match "$(dm_table "$1")" "queue_mode bio " "$ENGINE: $1's table says queue_mode bio"
	say "$ENGINE: table: $(dm_table "$1")"
	say "$ENGINE: status: $(dm_status "$1")"
}

# blk-mpath only: the bio tracepoints (errors and held bios only, a full
# trace of 100k I/Os would wrap) and the debugfs counters
TR=/sys/kernel/debug/tracing
EV=$TR/events/blk_mpath
trace_start() {
	[ "$ENGINE" = new ] || return 0
	echo 0 >$TR/tracing_on; : >$TR/trace
	echo 'result != 0' >$EV/blk_mpath_map_bio/filter
	echo 'err_class != 0' >$EV/blk_mpath_complete/filter
	for e in blk_mpath_map_bio blk_mpath_complete blk_mpath_path_state; do echo 1 >$EV/$e/enable; done
	echo 1 >$TR/tracing_on
}
# trace_check MAJ:MIN MAJ:MIN: both paths carried I/O and each failed
trace_check() {
	local p f n
	[ "$ENGINE" = new ] || return 0
	echo 0 >$TR/tracing_on
	for e in blk_mpath_map_bio blk_mpath_complete blk_mpath_path_state; do
		echo 0 >$EV/$e/enable; echo 0 >$EV/$e/filter
	done
	grep -m2 'blk_mpath_map_bio:.*result=queued' $TR/trace
	grep -m1 'blk_mpath_complete:.*class=path.*verdict=retry' $TR/trace
	n=$(grep -c 'blk_mpath_map_bio:.*result=queued' $TR/trace)
	[ "$n" -gt 0 ] || fail "no blk_mpath_map_bio result=queued event while both paths were down"
	grep -q 'blk_mpath_complete:.*class=path.*verdict=retry' $TR/trace ||
		fail "no blk_mpath_complete class=path verdict=retry event"
	[ "$(grep -c 'blk_mpath_path_state:.* failed' $TR/trace)" -ge 2 ] || fail "fewer than 2 path failed events"
	say "ok: tracepoints: $n bios held (queued), path errors resubmitted (retry)"
	f=
	for p in /sys/kernel/debug/blk_mpath/*/paths; do grep -q "^$1 pg " "$p" 2>/dev/null && f=$p; done
	[ -n "$f" ] || fail "no debugfs paths file for $1"
	cat "$f"
	for p in "$1" "$2"; do
		awk -v p="$p" '$1 == p && $8 > 0 && $12 > 0 {ok = 1} END {exit !ok}' "$f" ||
			fail "debugfs: path $p has no I/O or no path error counted"
	done
	say "ok: debugfs counters: both paths carried I/O and counted their path errors"
}

# The failover as the paths saw it, both engines (block tracepoints): the
# first error completion on path 0, how many error completions and SCSI
# requeues path 0 had, and the first request issued on path 1 after it;
# and the failover window (fw_start/fw_stop, lib/faults.sh: the first
# request that failed on path 0 to the completion of the same sector on
# path 1; the paths are request queues in bio mode too), which
# compare_gaps bounds: blk-mpath at most max(1.25 x stock, stock + 50 ms).
# fw_start owns block_rq_complete (path 0's errors, all of path 1's).
BEV=$TR/events/block
tl_start() { # path0 path1 (sdX)
	mountpoint -q /sys/kernel/debug || mount -t debugfs debugfs /sys/kernel/debug
	fw_start "$1" "$2"
	echo 0 >$TR/tracing_on
	echo "dev == $(fw_devt "$1")" >$BEV/block_rq_requeue/filter
	echo "dev == $(fw_devt "$2")" >$BEV/block_rq_issue/filter
	for e in block_rq_requeue block_rq_issue; do echo 1 >$BEV/$e/enable; done
	# commands path 0 completed with an error (a SCSI retry completes one too)
	echo "host_no == $(readlink -f "/sys/block/$1/device" | sed 's#.*/\([0-9]*\):[0-9]*:[0-9]*:[0-9]*$#\1#') && result != 0" \
		>$TR/events/scsi/scsi_dispatch_cmd_done/filter
	echo 1 >$TR/events/scsi/scsi_dispatch_cmd_done/enable
	echo 1 >$TR/tracing_on
}
# after fw_stop (which switches block_rq_complete off)
tl_report() {
	echo 0 >$TR/tracing_on
	for e in block_rq_requeue block_rq_issue; do echo 0 >$BEV/$e/enable; echo 0 >$BEV/$e/filter; done
	echo 0 >$TR/events/scsi/scsi_dispatch_cmd_done/enable; echo 0 >$TR/events/scsi/scsi_dispatch_cmd_done/filter
	awk -v p="$((FW_P >> 20)),$((FW_P & 0xfffff))" '
	{ for (i = 1; i <= NF; i++) if ($i ~ /^(block_rq_(complete|requeue|issue)|scsi_dispatch_cmd_done):$/) { ev = $i; t = $(i - 1); sub(/:$/, "", t); break }
	  if (ev == "") next }
	# (the completions of path 1 are there for fw_stop)
	ev == "block_rq_complete:" && $(i + 1) == p { if (t0 == "") t0 = t; n++; last = t }
	ev == "block_rq_requeue:" && t0 != "" { rq++ }
	ev == "scsi_dispatch_cmd_done:" { sc++ }
	ev == "block_rq_issue:" && t0 != "" && t1 == "" { t1 = t }
	{ ev = "" }
	END {
		if (t0 == "") { print "no error completion on path 0 in the trace"; exit }
		printf "%d error completions on path 0 within %.1f ms of the first, %d requeues and %d SCSI commands ended in error on it; first issue on path 1 %s ms after the first error\n",
			n, (last - t0) * 1000, rq, sc, (t1 == "" ? "never" : sprintf("%.1f", (t1 - t0) * 1000))
	}' $TR/trace
}

run_engine() {
	local gap1=na gap2 stall2 tl win1

	# 1. the QEMU LUN, failover, EIO on every read of path 0 (the host
	# agent always answers in make test: without it, the scenario fails)
	need_hostctl
	qmap_create mpb failover queue_mode bio
	expect_bio_map mpb
	# tracepoints are switched on and off only while no I/O runs: a
	# jump label patched under I/O once took an unhandled int3 in
	# blk_update_request() on the other vCPU (TCG, 2026-12-05)
	tl_start "$QD0" "$QD1"
	fio_start mpb 12
	hostctl inject 0 read_aio 5 || fail "inject"
	wait_path mpb "$QA" F 30 || fail "path 0 did not fail"
	fio_expect_clean
	fw_stop
	tl=$(tl_report)
	say "$ENGINE: failover timeline: $tl"
	expect_gap_below 2000
	gap1=$GAP_MS win1=$FW_MS
	expect_eq "$(dm_path_states mpb)" FA "path 0 failed, path 1 active"
	expect_eq "$(active_group mpb)" 2 "group 2 active"
	dmesg | grep -E "Failing path $QA" | tail -1
	hostctl clear 0
	dm_remove mpb

	# 2. scsi_debug, 2 hosts (no ALUA: every port active), multibus with
	# queue_if_no_path: one path offline, then both (held), a noflush
	# suspend/resume, then both back
	sdebug_setup vpd_use_hostno=1
	path_vars "${SD_PATHS[@]}"
	dm_create mpb2 "0 $N multipath 3 queue_if_no_path queue_mode bio 0 1 1 round-robin 0 2 1 $A 1 $B 1" ||
		fail "create"
	expect_bio_map mpb2
	trace_start
	fio_start mpb2 20
	# the plots of make compare show this fio (the last one): mark its fault
	if declare -F fault_mark >/dev/null; then fault_mark; fi
	path_state "${SD_PATHS[0]}" offline
	wait_path mpb2 "$A" F 20 || fail "path A did not fail"
	sleep 2
	path_state "${SD_PATHS[1]}" offline
	wait_path mpb2 "$B" F 20 || fail "path B did not fail"
	sleep 3
	expect_eq "$(dm_path_states mpb2)" FF "both paths failed, I/O held"
	kill -0 "$FIO_PID" 2>/dev/null || fail "fio ended while I/O should be held"
	# a table reload's noflush suspend with I/O held (multipathd does
	# that): the held bios go back to dm core and wait there, queueing
	# is restored at resume, nothing fails
	run timeout 60 dmsetup suspend --noflush mpb2 || fail "noflush suspend with I/O held"
	run timeout 60 dmsetup resume mpb2 || fail "resume"
	expect_match "$(dm_table mpb2)" "^4 queue_if_no_path " "queue_if_no_path restored at resume"
	sleep 1
	kill -0 "$FIO_PID" 2>/dev/null || fail "fio ended: held I/O failed across the noflush suspend"
	path_state "${SD_PATHS[0]}" running
	path_state "${SD_PATHS[1]}" running
	run dmsetup message mpb2 0 reinstate_path "$A" || fail "reinstate A"
	run dmsetup message mpb2 0 reinstate_path "$B" || fail "reinstate B"
	fio_expect_clean
	expect_gap_below 60000
	gap2=$GAP_MS stall2=$STALL_MS
	expect_eq "$(dm_path_states mpb2)" AA "both paths active again"
	expect_match "$(dm_status mpb2)" "$A A 1 .*$B A 1 " "each path failed once"
	trace_check "$A" "$B"
	dm_remove mpb2
	sdebug_teardown

	# gap_ms: the failover (part 1) when there was one, else part 2
	[ "$gap1" = na ] && gap1=$gap2
	fault_result gap_ms=$gap1 window_ms=$win1 held_gap_ms=$gap2 held_stall_ms=$stall2 verdict=failover+held
}
fault_main
