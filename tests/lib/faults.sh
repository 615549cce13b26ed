# blk-mpath fault harness (guest side).  Source after common.sh.
#
# A fault scenario injects one fault into one path of a live map under fio
# verify, on stock dm-multipath and on blk-mpath in the same boot, one
# after the other, and judges both:
#   (a) every I/O completes within a stated bound (a hang is a failure),
#   (b) fio verify is intact wherever the data path should survive,
#   (c) the error reaches the caller where it must,
#   (d) path and group states afterwards,
# and prints the failover gap (the longest completion latency fio saw
# around the fault) of both engines.  Host-side faults go through
# `hostctl` (QMP from the host: blkdebug on one path's node, hot-unplug).
#
# A scenario defines run_engine() (its body, for $ENGINE) and calls
# fault_main.  run_engine reports with fault_result, fails with fail().
# shellcheck shell=bash

FAULT_ENGINES=${FAULT_ENGINES:-"stock new"}
FAULT_RES=/results/faults
FAULT_NAME=${FAULT_NAME:-$(basename "${BASH_SOURCE[1]:-$0}" .sh)}

# A failure shows, before the runner's cleanup, what the maps, multipathd,
# fio and the kernel said, so that a log alone explains it; so does the
# scenario's time limit (tests/run-guest.sh: timeout, then 10 s; a scenario
# may set STEP to say where it was).
fail() {
	echo "FAIL: $*"
	echo "--- state at the failure (engine ${ENGINE:-?})"
	dmsetup table 2>&1; dmsetup status 2>&1
	multipathd show paths format "%d %D %t %T %o" 2>&1
	if [ -z "${FIO_PID:-}" ]; then echo "fio: not started"
	elif kill -0 "$FIO_PID" 2>/dev/null; then echo "fio: still running"
	else echo "fio: ended:"; tail -5 "$FIO_OUT.err" 2>/dev/null; fi
	dmesg | grep -E 'blk-mpath|device-mapper|I/O error|Sense|rejecting' | tail -20
	exit 1
}
trap 'fail "time limit reached${STEP:+, $STEP}"' TERM
# the longest completion latency any I/O may have, unless a scenario says
mkdir -p "$FAULT_RES"

# ---- engines in one boot ----------------------------------------------------
# engine_use stock|new: no maps, no multipathd, the other engine unloaded,
# this one loaded.
engine_use() {
	test_cleanup >/dev/null 2>&1
	ENGINE=$1
	engine_select "$ENGINE" || fail "cannot select engine $ENGINE"
	engine_load
	say "engine: $ENGINE (dm_multipath: $(modinfo -F filename dm-multipath))"
}

# ---- the QEMU two-path LUN: host path N <-> guest sdX -------------------------
# Path N is the scsi-hd on controller scsiN, at PCI slot 0x10 + N
# (images/run-guest.sh).  Prints the sdX name, empty if it is not there.
qpath_dev() {
	local d want
	want=$(printf '0000:00:%02x.0' $((0x10 + $1)))
	for d in /sys/block/sd*; do
		[ -e "$d/device/vendor" ] || continue
		grep -q QEMU "$d/device/vendor" || continue
		readlink -f "$d/device" | grep -q "/$want/" && { basename "$d"; return 0; }
	done
	return 1
}
# wait_qpath N present|absent [secs]
wait_qpath() {
	local i
	for i in $(seq $((${3:-30} * 5))); do
		if [ "$2" = present ]; then
			qpath_dev "$1" >/dev/null && [ -b "/dev/$(qpath_dev "$1")" ] && return 0
		else
			qpath_dev "$1" >/dev/null || return 0
		fi
		sleep 0.2
	done
	return 1
}

# qmap_create NAME failover|multibus [FEATURES...]: a map over the two QEMU
# paths.  failover: one path per group (path 0 in group 1), round-robin;
# multibus: both paths in one round-robin group.  Sets QA/QB (MAJ:MIN of
# path 0/1), QD0/QD1 (sdX), QN (sectors).
qmap_create() {
	local name=$1 layout=$2 nf
	shift 2
	QD0=$(qpath_dev 0) || fail "QEMU path 0 not present"
	QD1=$(qpath_dev 1) || fail "QEMU path 1 not present"
	QA=$(mm "$QD0") QB=$(mm "$QD1") QN=$(sectors "/dev/$QD0")
	nf=$#
	case $layout in
	failover) QTABLE="0 $QN multipath $nf${*:+ $*} 0 2 1 round-robin 0 1 1 $QA 1 round-robin 0 1 1 $QB 1" ;;
	multibus) QTABLE="0 $QN multipath $nf${*:+ $*} 0 1 1 round-robin 0 2 1 $QA 1 $QB 1" ;;
	*) fail "qmap_create: layout $layout" ;;
	esac
	dm_create "$name" "$QTABLE" || fail "cannot create $name"
	udevadm settle -t 10 2>/dev/null
}

# path_state_of MAP MAJ:MIN -> A or F
path_state_of() { dm_status "$1" | grep -oE "$2 [AF] " | awk '{print $2}'; }
# wait_path MAP MAJ:MIN A|F [secs]
wait_path() {
	local i
	for i in $(seq $((${4:-30} * 5))); do
		[ "$(path_state_of "$1" "$2")" = "$3" ] && return 0
		sleep 0.2
	done
	return 1
}
# mp_status MAP: alias of mp_paths (one line per path:
# "<group> <group state A|E|D> <MAJ:MIN> <A|F> <fail count>")
mp_status() { mp_paths "$@"; }
# active_group MAP -> number of the group in state A (0 if none)
active_group() { mp_status "$1" | awk '$2 == "A" {print $1; f = 1; exit} END {if (!f) print 0}'; }
# the QEMU path number (0/1) of MAJ:MIN, empty if neither
qpath_of() {
	local n d
	for n in 0 1; do
		d=$(qpath_dev "$n") || continue
		[ "$(mm "$d")" = "$1" ] && { echo "$n"; return 0; }
	done
	return 1
}

# fio_flowing MAP [SECS]: wait until fio's writes reach the map.  fio_start
# returns once the map has an opener and a second has passed, but the
# opener can be udev's blkid (a new map, a change event), and fio's first
# start in a boot takes seconds under TCG: without this a fault can land
# before any fio I/O.
fio_flowing() {
	local st w0 w i
	# MAJ:MIN from dm, not from the /dev/mapper node (udev may have it
	# away for a moment: a change event while a path is re-plugged)
	st=/sys/dev/block/$(dmsetup info -c --noheadings --separator : -o major,minor "$1" | tr -d ' ')/stat
	read -r _ _ _ _ w0 _ <"$st" || fail "no stat file for $1"
	for ((i = 0; i < ${2:-30} * 10; i++)); do
		read -r _ _ _ _ w _ <"$st"
		[ "$w" -ge $((w0 + 64)) ] && return 0
		kill -0 "$FIO_PID" 2>/dev/null ||
			fail "fio exited before its writes reached $1: $(tail -3 "$FIO_OUT.err" 2>/dev/null)"
		sleep 0.1
	done
	fail "fio's writes did not reach $1 in ${2:-30} s"
}
# mp_paths MAP: one line per path, from the status by position:
# "<group> <group state A|E|D> <MAJ:MIN> <A|F> <fail count>"
mp_paths() {
	dm_status "$1" | awk '{
		i = 1; i += $i + 1; i += $i + 1; npg = $i; i += 2
		for (g = 1; g <= npg; g++) {
			st = $i; i++; i += $i + 1; np = $i; ns = $(i + 1); i += 2
			for (p = 0; p < np; p++) { print g, st, $i, $(i + 1), $(i + 2); i += 3 + ns }
		}
	}'
}
# mp_active_group MAP: the number of the group in state A (0: none)
mp_active_group() { mp_paths "$1" | awk '$2 == "A" {print $1; f = 1; exit} END {if (!f) print 0}'; }
# fio_alive: fio still runs (call right after injecting a fault: a fault
# that lands after fio's runtime proves nothing)
fio_alive() {
	kill -0 "$FIO_PID" 2>/dev/null ||
		fail "fio's runtime ended before the fault was injected (slow guest? raise the runtime)"
}

# ---- fio under fault ---------------------------------------------------------------
# fio_start MAP SECONDS [extra fio args]: 4k randwrite QD8 with crc32c verify
# over the first 64 MiB, a completion-latency log, in the background.
# Sets FIO_PID, FIO_OUT, FIO_LOG.
fio_start() {
	# the runtime is scaled like the time limits (TSCALE: 4 on the debug
	# kernel, where the steps a scenario takes after fio_start are slow
	# enough that a fault would otherwise land after fio has stopped)
	local map=$1 secs=$(($2 * ${TSCALE:-1}))
	shift 2
	FIO_OUT=/tmp/fio-$FAULT_NAME-$ENGINE.json
	FIO_LOG=/tmp/fio-$FAULT_NAME-$ENGINE
	rm -f "$FIO_OUT" "$FIO_LOG"_*.log
	fio --name=fault --filename="/dev/mapper/$map" --rw=randwrite --bs=4k --size=64M \
		--ioengine=libaio --iodepth=8 --direct=1 --verify=crc32c --verify_backlog=256 \
		--verify_fatal=1 --time_based --runtime="$secs" --output-format=json \
		--output="$FIO_OUT" --write_lat_log="$FIO_LOG" --log_avg_msec=0 --log_unix_epoch=1 "$@" \
		>/dev/null 2>"$FIO_OUT.err" &
	FIO_PID=$!
	FIO_SECS=$secs
	rm -f "$FAULT_RES/$FAULT_NAME-$ENGINE.mark"
	# the fault must land on I/O: wait until fio's writes reach the map
	fio_flowing "$map" 30
}

# fault_mark: the fault starts now (ms since the epoch, the time base of
# fio's latency log: --log_unix_epoch; for the plots of
# completions per 100 ms around the fault: make compare)
fault_mark() { now_ms >"$FAULT_RES/$FAULT_NAME-$ENGINE.mark"; }

# fio_wait [grace secs]: wait for fio; a fio still running grace s after its
# runtime is a hang: the blocked tasks are dumped and the scenario fails.
# Sets FIO_RC.
fio_wait() {
	local grace=${1:-60} i
	for i in $(seq $(((FIO_SECS + grace) * 5))); do
		kill -0 "$FIO_PID" 2>/dev/null || break
		sleep 0.2
	done
	if kill -0 "$FIO_PID" 2>/dev/null; then
		echo "HANG: fio still running $grace s after its ${FIO_SECS} s runtime"
		echo w >/proc/sysrq-trigger
		dmesg | tail -60
		dmsetup status 2>/dev/null
		fail "I/O hang on $ENGINE"
	fi
	wait "$FIO_PID"
	FIO_RC=$?
}

# fio_stop [grace]: stop a time_based fio early and cleanly (SIGINT: fio
# ends its jobs, verifies what is pending and writes its report; its exit
# status 128 then only says it was interrupted).  Sets FIO_RC.
fio_stop() {
	local i
	kill -INT "$FIO_PID" 2>/dev/null
	for i in $(seq $((${1:-60} * 5))); do
		kill -0 "$FIO_PID" 2>/dev/null || break
		sleep 0.2
	done
	kill -0 "$FIO_PID" 2>/dev/null && { echo w >/proc/sysrq-trigger; fail "fio did not stop after SIGINT (I/O hang?)"; }
	wait "$FIO_PID"
	FIO_RC=$?
	[ "$FIO_RC" = 128 ] && FIO_RC=0
	true
}

# fio_stats: from the JSON and the latency log, sets FIO_ERR (fio's error
# count), FIO_IOS (completed I/Os), GAP_MS (longest completion latency),
# STALL_MS (longest time with no completion at all) and writes the
# completions per 100 ms to $FAULT_RES/<name>-<engine>.iops.
fio_stats() {
	local r
	r=$(python3 - "$FIO_OUT" "$FIO_LOG" "$FAULT_RES/$FAULT_NAME-$ENGINE.iops" <<'EOF'
import glob, json, sys
out, logp, iops = sys.argv[1:4]
err = ios = 0
try:
    t = open(out).read()
    # fio stopped by SIGINT prints "fio: terminating on signal 2" first
    j = json.loads(t[t.index("{"):])
    for job in j.get("jobs", []):
        err += job.get("error", 0)
        for d in ("read", "write"):
            ios += job.get(d, {}).get("total_ios", 0)
except Exception as e:
    err = -1
times, gap = [], 0.0
for f in glob.glob(logp + "_clat.*.log"):
    for line in open(f):
        p = line.split(",")
        if len(p) < 2:
            continue
        t, lat = int(p[0]), int(p[1]) / 1e6
        times.append(t)
        gap = max(gap, lat)
times.sort()
stall = max((b - a for a, b in zip(times, times[1:])), default=0)
with open(iops, "w") as o:
    if times:
        b = {}
        for t in times:
            b[t // 100] = b.get(t // 100, 0) + 1
        for k in range(min(b), max(b) + 1):
            o.write("%d %d\n" % (k * 100, b.get(k, 0)))
print(err, ios, "%.1f" % gap, stall, len(times))
EOF
)
	local nlat
	read -r FIO_ERR FIO_IOS GAP_MS STALL_MS nlat <<<"$r"
	# no latency log means no gap, not a gap of 0
	[ "${FIO_IOS:-0}" -le 0 ] || [ "${nlat:-0}" -gt 0 ] ||
		fail "fio completed $FIO_IOS I/Os but its latency log (${FIO_LOG}_clat.*.log) has none: no gap to judge"
	say "fio: rc=$FIO_RC errors=$FIO_ERR ios=$FIO_IOS gap=${GAP_MS}ms stall=${STALL_MS}ms"
}

# fio_expect_clean [grace|stop]: fio finished (or, with "stop", is stopped
# now), 0 errors, 0 verify errors
fio_expect_clean() {
	if [ "${1:-}" = stop ]; then fio_stop; else fio_wait "${1:-60}"; fi
	fio_stats
	if [ "$FIO_RC" -ne 0 ] || [ "$FIO_ERR" != 0 ]; then
		cat "$FIO_OUT.err" 2>/dev/null | tail -20
		fail "fio on $ENGINE: exit $FIO_RC, errors $FIO_ERR (I/O or verify error)"
	fi
	[ "${FIO_IOS:-0}" -gt 0 ] || fail "fio on $ENGINE completed no I/O"
}

# expect_gap_below MS: every I/O completed within MS (the scenario's bound)
expect_gap_below() {
	awk -v g="$GAP_MS" -v b="$1" 'BEGIN {exit !(g < b)}' ||
		fail "$ENGINE: an I/O took ${GAP_MS} ms, the bound is $1 ms"
	say "ok: every I/O completed within $1 ms on $ENGINE (longest ${GAP_MS} ms)"
}

# ---- proof that a fault reached the path ------------------------------------------
# path_cnt sdX NAME: a SCSI device's I/O counter (ioerr_cnt: commands that
# completed with an error, each retry counted; iotmo_cnt: commands that timed
# out; iorequest_cnt: commands issued), decimal
path_cnt() { printf '%d' "$(cat "/sys/block/$1/device/$2" 2>/dev/null || echo -1)"; }
# fault_fired sdX NAME BEFORE WHAT: NAME rose above BEFORE, or the scenario
# fails: an injected fault that never reached the path proves nothing
fault_fired() {
	local now
	now=$(path_cnt "$1" "$2")
	[ "$now" -gt "$3" ] || fail "$4: the fault never reached $1 ($2 $3 -> $now)"
	say "ok: the fault reached $1 ($2 $3 -> $now)"
}

# ---- the failover window, as the paths saw it (both engines) ---------------------
# fw_start sdP sdQ: trace, with the block layer's tracepoints, the error
# completions on path P and every completion on path Q.  Call it before
# fio starts (a trace event switched on under I/O patches code every CPU
# runs, which TCG has mishandled: tests/run-guest.sh).
# fw_stop: stops the trace and sets FW_MS, the failover window: from the
# first request that failed on P (its final completion, after SCSI's own
# retries) to the completion of the same sector on Q (that request, tried
# again on the other path).  Fails the scenario when P had no error
# completion or Q never completed the failed sector.
FW_TR=/sys/kernel/debug/tracing
fw_devt() { local mm; mm=$(cat "/sys/block/$1/dev"); echo $(((${mm%%:*} << 20) | ${mm##*:})); }
fw_start() {
	local ev=$FW_TR/events/block/block_rq_complete
	FW_P=$(fw_devt "$1") FW_Q=$(fw_devt "$2") FW_MS=
	echo 0 >$FW_TR/tracing_on; : >$FW_TR/trace; echo 8192 >$FW_TR/buffer_size_kb
	echo "(dev == $FW_P && error != 0) || dev == $FW_Q" >$ev/filter
	echo 1 >$ev/enable
	echo 1 >$FW_TR/tracing_on
}
fw_stop() {
	local ev=$FW_TR/events/block/block_rq_complete r
	echo 0 >$FW_TR/tracing_on
	echo 0 >$ev/enable; echo 0 >$ev/filter
	# block_rq_complete: "dev=M,m ... SECTOR + N [ERROR]" (6.1: "%d,%d %s (%s) %llu + %u [%d]")
	r=$(awk -v p="$((FW_P >> 20)),$((FW_P & 0xfffff))" -v q="$((FW_Q >> 20)),$((FW_Q & 0xfffff))" '
	/block_rq_complete:/ {
		for (i = 1; i <= NF; i++) if ($i == "block_rq_complete:") break
		t = $(i - 1); sub(/:$/, "", t); dev = $(i + 1)
		for (j = i + 2; j <= NF; j++) if ($j == "+") break
		sec = $(j - 1); err = $(j + 2); gsub(/[][]/, "", err)
		if (dev == p && err != 0 && t0 == "") { t0 = t; s0 = sec; next }
		if (dev == q && t0 != "" && sec == s0) { printf "%.1f\n", (t - t0) * 1000; found = 1; exit }
	}
	END { if (!found) print (t0 == "" ? "no-error" : "no-retry") }' $FW_TR/trace)
	case $r in
	no-error) fail "$ENGINE: no request failed on $(basename "$(readlink -f /sys/dev/block/$((FW_P >> 20)):$((FW_P & 0xfffff)))") (block_rq_complete with an error): no failover to measure" ;;
	no-retry) fail "$ENGINE: the first request that failed on the path never completed on the other path" ;;
	esac
	FW_MS=$r
	say "failover window on $ENGINE: ${FW_MS} ms from the first failed request to its completion on the other path"
}

# ---- results -------------------------------------------------------------------------
# fault_result KEY=VALUE...: one result line for this engine (gap, verdict)
fault_result() {
	echo "FAULT $FAULT_NAME engine=$ENGINE $*"
	echo "$FAULT_NAME $ENGINE $*" >>"$FAULT_RES/results.txt"
}

# the value of KEY in this scenario's result line for ENGINE
fault_value() { # engine key
	grep "^$FAULT_NAME $1 " "$FAULT_RES/results.txt" 2>/dev/null | tail -1 |
		tr ' ' '\n' | sed -n "s/^$2=//p"
}

# compare_gaps [slack_ms]: blk-mpath must not fail over later than stock:
# new gap <= stock gap * 1.5 + slack (TCG timing noise).  Both engines'
# values must be there (a scenario that compares reports gap_ms on each).
# Also prints whether the strict rule, max(1.25 x stock, stock + 50 ms),
# holds.
compare_gaps() {
	local s n slack=${1:-1000}
	s=$(fault_value stock gap_ms) n=$(fault_value new gap_ms)
	[ -n "$s" ] || fail "no gap_ms for stock in $FAULT_RES/results.txt (nothing to compare)"
	[ -n "$n" ] || fail "no gap_ms for blk-mpath in $FAULT_RES/results.txt (nothing to compare)"
	echo "GAP $FAULT_NAME stock=${s}ms blk-mpath=${n}ms strict=$(awk -v s="$s" -v n="$n" \
		'BEGIN {b = s * 1.25; if (s + 50 > b) b = s + 50; print (n <= b) ? "holds" : "exceeded"}')"
	awk -v s="$s" -v n="$n" -v k="$slack" 'BEGIN {exit !(n <= s * 1.5 + k)}' ||
		fail "blk-mpath failed over later than stock: ${n} ms against ${s} ms"
	# the failover window (fw_stop), where the scenario measured it on
	# both engines: blk-mpath at most max(1.25 x stock, stock + 50 ms)
	s=$(fault_value stock window_ms) n=$(fault_value new window_ms)
	[ -n "$s$n" ] || return 0
	[ -n "$s" ] && [ -n "$n" ] || fail "window_ms measured on one engine only (stock '$s', blk-mpath '$n')"
	echo "WINDOW $FAULT_NAME stock=${s}ms blk-mpath=${n}ms"
	awk -v s="$s" -v n="$n" 'BEGIN {b = s * 1.25; if (s + 50 > b) b = s + 50; exit !(n <= b)}' ||
		fail "blk-mpath's failover window ${n} ms exceeds max(1.25 x stock, stock + 50 ms) (stock ${s} ms)"
}

# fault_main: run_engine on every engine of FAULT_ENGINES, then compare.
fault_main() {
	local e
	: >"$FAULT_RES/$FAULT_NAME.done"
	sed -i "/^$FAULT_NAME /d" "$FAULT_RES/results.txt" 2>/dev/null
	for e in $FAULT_ENGINES; do
		echo "=== $FAULT_NAME on $e"
		engine_use "$e"
		unset FIO_PID FIO_OUT STEP
		run_engine || fail "$FAULT_NAME on $e"
		fault_host_clear
		echo "$e" >>"$FAULT_RES/$FAULT_NAME.done"
	done
	[ "$(wc -l <"$FAULT_RES/$FAULT_NAME.done")" -eq "$(echo $FAULT_ENGINES | wc -w)" ] ||
		fail "not every engine ran"
	# the comparison needs both engines (the vanilla kernel runs stock alone)
	if [[ " $FAULT_ENGINES " == *" stock "* && " $FAULT_ENGINES " == *" new "* ]]; then
		[ "${FAULT_COMPARE:-gap}" = gap ] && compare_gaps "${FAULT_SLACK_MS:-1000}"
	fi
	true
}

# ---- host faults ------------------------------------------------------------------------
fault_host_clear() {
	hostctl_available || return 0
	hostctl resume-all 0 >/dev/null 2>&1
	hostctl resume-all 1 >/dev/null 2>&1
	hostctl clear 0 >/dev/null 2>&1
	hostctl clear 1 >/dev/null 2>&1
	true
}
need_hostctl() { hostctl_available || fail "the host fault agent does not answer on ttyS1"; }

# The engine's own account of a failover (blk-mpath only; its trace
# events).  mp_trace_on enables the events: call it before fio starts (a
# trace event enabled under I/O patches code that every CPU is running,
# which TCG has mishandled: tests/run-guest.sh).  mp_trace_mark empties the
# buffer right before the fault (no code patching), mp_trace_stop stops
# recording (call it shortly after the failure, so the ring buffer keeps
# it), mp_trace_timeline prints, in ms from the first path failure: path
# state changes, completions with an error class, map results other than
# "remapped" in runs, and the first remapped request on each path after
# the failure; mp_trace_off (tests/lib/common.sh) disables the events.
# the engine's events exist and the engine under test is blk-mpath
mp_traced() { [ "$ENGINE" = new ] && [ -d $MP_TR/events/blk_mpath ]; }
mp_trace_on() {
	local e
	mp_traced || return 0
	echo 0 >$MP_TR/tracing_on
	echo 4096 >$MP_TR/buffer_size_kb
	# completions: only those with an error class (0: none)
	echo 'err_class != 0' >$MP_TR/events/blk_mpath/blk_mpath_complete/filter
	for e in $MP_EVENTS; do echo 1 >$MP_TR/events/blk_mpath/$e/enable; done
	: >$MP_TR/trace
	echo 1 >$MP_TR/tracing_on
}
mp_trace_mark() { mp_traced && : >$MP_TR/trace; return 0; }
mp_trace_stop() { [ -d $MP_TR/events/blk_mpath ] && echo 0 >$MP_TR/tracing_on; return 0; }
mp_trace_timeline() {
	mp_traced || return 0
	echo 0 >$MP_TR/tracing_on
	say "engine timeline (ms from the first path failure):"
	grep -v '^#' $MP_TR/trace | awk '
	function flush() { if (run) printf "#   %8.1f..%8.1f  %5d maps: %s\n", (rs - t0) * 1000, (re - t0) * 1000, run, rk; run = 0 }
	{
		t = ""; ev = ""
		for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { t = substr($i, 1, length($i) - 1) + 0; ev = $(i + 1); break }
		if (t == "") { lost = lost " " $0; next }	# "CPU:N [LOST M EVENTS]"
		line[++n] = $0; tt[n] = t; ee[n] = ev
		if (!t0 && ev == "blk_mpath_path_state:" && $0 ~ / failed /) t0 = t
	}
	END {
		if (lost != "") print "#   the ring buffer lost events:" lost
		if (!t0) { print "#   (no path failure traced)"; exit }
		for (k = 1; k <= n; k++) {
			t = tt[k]; ev = ee[k]; $0 = line[k]
			if (t < t0 - 0.05) continue
			if (ev == "blk_mpath_map:") {
				match($0, /result=[a-z_]+/); r = substr($0, RSTART + 7, RLENGTH - 7)
				match($0, /path=[^ ]+/); p = substr($0, RSTART + 5, RLENGTH - 5)
				if (r == "remapped") {
					if (t >= t0 && !(p in first)) { flush(); first[p] = 1; printf "#   %8.1f  first remapped request on path %s\n", (t - t0) * 1000, p }
					continue
				}
				if (run && r == rk) { re = t; run++ } else { flush(); run = 1; rs = re = t; rk = r }
				continue
			}
			flush()
			sub(/^.*blk_mpath_[a-z_]+: /, "")
			printf "#   %8.1f  %s %s\n", (t - t0) * 1000, ev, $0
		}
		flush()
	}' | head -40
}
