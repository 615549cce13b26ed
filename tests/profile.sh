#!/bin/bash
# make profile, run inside the guest: where the CPU time of some of make
# bench's cases goes.  Each case is the bench's own measurement (same map,
# same fio job, tests/bench.sh), once, with perf sampling every CPU at
# 999 Hz on the cpu-clock (QEMU TCG has no PMU), kernel call chains on; its
# figures are taken under perf, which costs CPU time of its own.  Per case:
# those figures, the share of samples per task name (fio submitting inline,
# io_uring workers, kblockd, ksoftirqd, idle) and the hottest kernel
# functions (self time, and with their callees).
#   null_blk rand4k:      raw, blk-mpath mq (mq-deadline and none) and bio,
#                         stock mq and bio (service-time)
#   sdebug seq64k:        raw, stock mq and bio, blk-mpath mq (service-time)
#   sdebug seq64k-libaio: stock mq and bio, blk-mpath mq
#   sdebug seq64k-async:  raw, stock mq, blk-mpath mq (every read handed to
#                         an io_uring worker thread)
export BENCH_FUNCS_ONLY=1 RES=/results/profile
. /opt/blk-mpath/tests/bench.sh
command -v perf >/dev/null || die_bench "perf is not in the guest image"
sysctl -q -w kernel.kptr_restrict=0 kernel.perf_event_paranoid=-1
PD=/tmp/perf.data

prof_start() {
	rm -f "$PD"
	perf record -q -a -g -F 999 -e cpu-clock -o "$PD" >/tmp/perf-record.log 2>&1 &
	PERF_PID=$!
	sleep 1
	kill -0 "$PERF_PID" 2>/dev/null || { cat /tmp/perf-record.log; die_bench "perf record did not start"; }
}
# stop perf record and check that it wrote samples
perf_stop() {
	local rc
	kill -INT "$PERF_PID" 2>/dev/null
	wait "$PERF_PID"; rc=$?
	[ $rc -eq 0 ] || [ $rc -eq 130 ] || { cat /tmp/perf-record.log; die_bench "perf record failed ($rc)"; }
	[ -s "$PD" ] || die_bench "perf record wrote no samples"
}
prof_stop() { # set wl case "iops cpu cs cpus kib first user kernel"
	local out
	perf_stop
	out=$(perf report -i "$PD" --no-children --sort comm --stdio -g none 2>&1 | grep -vE '^#|^$' | head -8)
	[ -n "$out" ] || die_bench "perf report printed nothing"
	echo
	echo "== profile: $1 $2 $(label "$3"): measured under perf: IOPS, CPU us/IO, cs/IO, CPUs, KiB/rq, 1st, user and kernel us per path request (steady window) = $4"
	echo "-- samples per task (all CPUs, idle included)"
	echo "$out"
	echo "-- hottest functions (self), 1% and more"
	perf report -i "$PD" --no-children --sort sym --stdio -g none --percent-limit 1 2>/dev/null |
		grep -vE '^#|^$' | head -20
	echo "-- kernel functions with their callees (children), 3% and more"
	perf report -i "$PD" --children --sort sym --stdio -g none --percent-limit 3 2>/dev/null |
		grep -E '\[k\]' | head -45
	if [ "$1" = null_blk ]; then blk_costs "$4"; fi
}
# blk_costs "iops ...": the block layer's scheduler, tag and dispatch
# functions and the map's clone path (dm-rq, the engine), each with its
# callees, as CPU microseconds per I/O: perf samples every CPU 999 times a
# second (idle included), so a function's share p of the N samples is
# p * N / 999 CPU seconds, over the case's IOPS * RUNTIME I/Os (fio's
# runtime; perf's window is longer, but what it samples outside fio's
# runtime is set-up, not I/O).  The functions nest (dispatch calls the
# map's ->queue_rq), so the rows do not add up.  A symbol the compiler
# split (name.part.0, .isra.0, .constprop.0) counts under its name, the
# larger of the pieces; a function with no sample (not called, or inlined
# into its caller) shows "-".
BLK_FUNCS="blk_mq_submit_bio blk_mq_sched_bio_merge dd_bio_merge blk_mq_get_new_requests __blk_mq_alloc_requests
	dd_insert_requests blk_mq_sched_insert_requests blk_mq_flush_plug_list blk_mq_run_hw_queue
	blk_mq_do_dispatch_sched dd_dispatch_request dd_has_work __blk_mq_get_driver_tag blk_mq_dispatch_rq_list
	blk_mq_try_issue_directly dm_mq_queue_rq dd_finish_request blk_mq_free_request
	blk_mpath_map_rq multipath_clone_and_map blk_rq_prep_clone bio_alloc_clone blk_insert_cloned_request
	end_clone_request dm_softirq_done"
blk_costs() {
	local iops=${1%% *} nsamples
	nsamples=$(perf report -i "$PD" --no-children -n --sort comm --stdio -g none 2>/dev/null |
		awk '$1 ~ /%$/ && $2 ~ /^[0-9]+$/ {n += $2} END {print n + 0}')
	[ "$nsamples" -gt 0 ] && [ "${iops:-0}" -gt 0 ] || die_bench "profile: $nsamples samples, $iops IOPS"
	echo "-- block-layer functions with their callees: us of CPU per I/O ($nsamples samples, $iops IOPS x ${RUNTIME}s)"
	perf report -i "$PD" --children --sort sym --stdio -g none --percent-limit 0 2>/dev/null |
		awk -v funcs="$BLK_FUNCS" -v ns="$nsamples" -v ios=$((iops * RUNTIME)) '
			BEGIN { k = split(funcs, f, /[ \t\n]+/); for (i = 1; i <= k; i++) if (f[i] != "") want[f[i]] = i }
			$3 == "[k]" {
				name = $4; sub(/\.(part|isra|constprop|cold)\.[0-9]+.*$/, "", name)
				if (!(name in want)) next
				sub(/%/, "", $1); v = $1 / 100 * ns / 999 * 1e6 / ios
				if (!(name in us) || v > us[name]) us[name] = v
			}
			END { for (i = 1; i <= k; i++) if (f[i] != "") {
				if (f[i] in us) printf "    %-32s %7.1f us\n", f[i], us[f[i]]
				else printf "    %-32s       - (no sample)\n", f[i] } }'
}

RUNTIME=${RUNTIME:-5}
echo "PROFILE: clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"

# ---- rounds (PROFILE_ROUNDS=N make profile) ---------------------------------------
# Only the null_blk 4k cases raw, blk-mpath mq at mq-deadline and with none,
# N rounds, each round in a random order, each run under perf as above; one
# line per run, to set a slow run beside a fast one of the same case: the
# run's figures under perf (CPU per I/O from /proc/stat over fio's whole run,
# user and kernel CPU per path request over its steady window, see measure()
# in tests/bench.sh), then that CPU per I/O divided among perf's non-idle
# samples: fio's tasks in user space and in the kernel (the whole I/O path
# below the submission, null_blk's inline completion included), every other
# task (kworkers, perf, the shell), contended spinlocks (the qspinlock slow
# path; cpu-clock samples by hrtimer, not NMI, so spinning with interrupts
# off is not seen: a lower bound), and the hottest functions of fio's tasks.
PROUNDS=$(arg profile_rounds)
if [ -n "$PROUNDS" ]; then
	[ "$PROUNDS" -ge 1 ] 2>/dev/null || die_bench "blkmpath.profile_rounds=$PROUNDS: not a number of rounds"
	prof_stop() { # set wl case "iops cpu cs cpus kib first user kernel"
		local iops cpu usr ker parts all top
		perf_stop
		read -r iops cpu _ _ _ _ usr ker <<<"$4"
		# CPU per I/O divided among the non-idle samples, by task and by where
		# the CPU was ([k] kernel, modules included; [.] user space):
		# "fio-user fio-kernel other spin", then the count of non-idle samples
		parts=$(perf report -i "$PD" --no-children -n --sort comm,sym --stdio -g none --percent-limit 0 2>/dev/null |
			awk -v cpu="$cpu" '$1 ~ /%$/ && $2 ~ /^[0-9]+$/ { n = $2
				if ($3 == "swapper") next
				all += n
				if ($3 == "fio") { if ($4 == "[k]") fk += n; else fu += n } else other += n
				if ($NF ~ /^(native_|__pv_)?queued_spin_lock_slowpath$/) spin += n }
				END { if (all) printf "fio-user %.1f fio-kernel %.1f other %.1f spin %.2f %d",
					fu / all * cpu, fk / all * cpu, other / all * cpu, spin / all * cpu, all }')
		all=${parts##* }
		[ "${all:-0}" -gt 0 ] 2>/dev/null || die_bench "profile: no sample outside the idle loop"
		top=$(perf report -i "$PD" --comms fio --no-children -n --sort dso,sym --stdio -g none --percent-limit 0 \
			2>/dev/null | awk '$1 ~ /%$/ && $2 ~ /^[0-9]+$/' | head -8 |
			awk -v all="$all" -v cpu="$cpu" '{ sym = $NF; if (sym ~ /^0x/) sym = $3 ":" sym
				printf " %s %.1f", sym, $2 / all * cpu }')
		printf 'run %s %s IOPS %s CPUus/IO %s user/kernel per request %s / %s | CPUus/IO: %s | fio:%s\n' \
			"$ROUND" "$(label "$3" | tr ' ' _)" "$iops" "$cpu" "$usr" "$ker" "${parts% *}" "$top"
	}
	echo "== profile rounds: null_blk rand4k, $PROUNDS rounds, ${RUNTIME}s per run, perf at 999 Hz on every CPU"
	setup_set null_blk
	for ROUND in $(seq 1 "$PROUNDS"); do
		for c in $(printf '%s\n' raw::: new:mq::service-time new:mq:none:service-time | shuf); do
			run_case null_blk rand4k "$c" "$ROUND"
		done
	done
	teardown_set null_blk
	echo "PROFILE: DONE"
	exit 0
fi
run_set() { # set wl cases...
	local set=$1 wl=$2 c
	shift 2
	setup_set "$set"
	for c in "$@"; do
		run_case "$set" "$wl" "$c" 1
	done
	teardown_set "$set"
}
run_set null_blk rand4k raw::: new:mq:none:service-time new:mq::service-time new:bio::service-time \
	stock:mq::service-time stock:bio::service-time
run_set sdebug seq64k raw::: stock:mq::service-time stock:bio::service-time new:mq::service-time
run_set sdebug seq64k-libaio stock:mq::service-time stock:bio::service-time new:mq::service-time
run_set sdebug seq64k-async raw::: stock:mq::service-time new:mq::service-time
# ---- allocations per I/O --------------------------------------------------------
# Counted, not sampled: the kmem trace events (every kmalloc and
# kmem_cache_alloc, with its call site and bytes) over two fio runs of
# different lengths (4k random reads, libaio QD16, null_blk); the
# difference between the runs, divided by the difference in I/Os, is what
# one more I/O allocates (fio's start-up allocations cancel out).  Run last:
# enabling the events patches code every CPU is running (see
# tests/run-guest.sh).  Transient: most of it is freed at completion.
KM="kmem_cache_alloc kmalloc kmem_cache_alloc_node kmalloc_node"
km_events() { local e; for e in $KM; do [ -e "$T/events/kmem/$e/enable" ] && echo "$1" >"$T/events/kmem/$e/enable"; done; }
T=/sys/kernel/debug/tracing
alloc_run() { # dev n -> "ios bytes allocs" ; leaves the trace in /tmp/kmem.$2
	local out ios
	: >$T/trace
	echo 1 >$T/tracing_on
	out=$(fio --name=a --filename="$1" --rw=randread --bs=4k --iodepth=16 --ioengine=libaio --direct=1 \
		--number_ios="$2" --size=1G --output-format=json 2>&1) || { echo "$out" | tail -3 >&2; return 1; }
	echo 0 >$T/tracing_on
	grep -E ' (kmem_cache_alloc|kmalloc)(_node)?: ' $T/trace >"/tmp/kmem.$2"
	ios=$(python3 -c 'import json,sys; t=sys.stdin.read(); print(json.loads(t[t.index("{"):])["jobs"][0]["read"]["total_ios"])' <<<"$out")
	awk -v ios="$ios" '{ if (match($0, /bytes_alloc=[0-9]+/)) b += substr($0, RSTART + 12, RLENGTH - 12); n++ }
		END { printf "%d %d %d\n", ios, b, n }' "/tmp/kmem.$2"
	grep -q 'LOST' $T/trace && die_bench "allocations: the trace buffer lost events"
	return 0
}
alloc_case() { # case
	local c=$1 a b
	case_setup "$c" null_blk
	a=$(alloc_run "$CASE_DEV" 1000) && b=$(alloc_run "$CASE_DEV" 4000) || die_bench "allocations: fio failed ($c)"
	read -r i1 b1 n1 <<<"$a"; read -r i2 b2 n2 <<<"$b"
	[ $((i2 - i1)) -gt 0 ] || die_bench "allocations: no I/O difference ($c)"
	printf '%-22s %8.1f bytes %6.2f allocations per I/O   (runs: %d I/Os %d bytes, %d I/Os %d bytes)\n' "$(label "$c")" \
		"$(awk -v a="$b1" -v b="$b2" -v i="$i1" -v j="$i2" 'BEGIN {print (b - a) / (j - i)}')" \
		"$(awk -v a="$n1" -v b="$n2" -v i="$i1" -v j="$i2" 'BEGIN {print (b - a) / (j - i)}')" "$i1" "$b1" "$i2" "$b2"
	# by call site: the longer run's count minus the shorter run's, per extra I/O
	for f in /tmp/kmem.1000 /tmp/kmem.4000; do
		sed -n 's/.*call_site=\([^ ]*\).*bytes_alloc=\([0-9]*\).*/\1 \2/p' "$f" | sed 's/+0x[0-9a-f/x]*//' |
			awk -v f="${f##*.}" '{ print f, $1, $2 }'
	done | awk -v d=$((i2 - i1)) '{ s = ($1 == 4000) ? 1 : -1; n[$2] += s; b[$2] += s * $3 }
		END { for (k in n) if (n[k] / d >= 0.1) printf "    %-40s %6.2f per I/O %8.1f bytes per I/O\n", k, n[k] / d, b[k] / d }' |
		sort -k5 -nr | head -8
	case_teardown
}
echo
echo "== allocations per I/O (kmem trace events, null_blk, 4k random reads, libaio QD16): what one more I/O allocates"
modprobe null_blk nr_devices=2 queue_mode=2 irqmode=0 gb=4 bs=4096 hw_queue_depth=128 submit_queues=2 ||
	die_bench "null_blk"
PA=nullb0 PB=nullb1; A=$(mm "$PA") B=$(mm "$PB") N=$(sectors /dev/nullb0)
udevadm control --stop-exec-queue
echo 0 >$T/tracing_on
echo 16384 >$T/buffer_size_kb
km_events 1
for c in raw::: stock:mq::service-time stock:bio::service-time new:mq::service-time new:bio::service-time; do
	alloc_case "$c"
done
km_events 0
udevadm control --start-exec-queue
echo 1 >$T/tracing_on
modprobe -r null_blk
echo "PROFILE: DONE"
