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
prof_stop() { # set wl case "iops cpu cs cpus kib"
	local rc out
	kill -INT "$PERF_PID" 2>/dev/null
	wait "$PERF_PID"; rc=$?
	[ $rc -eq 0 ] || [ $rc -eq 130 ] || { cat /tmp/perf-record.log; die_bench "perf record failed ($rc)"; }
	[ -s "$PD" ] || die_bench "perf record wrote no samples"
	out=$(perf report -i "$PD" --no-children --sort comm --stdio -g none 2>&1 | grep -vE '^#|^$' | head -8)
	[ -n "$out" ] || die_bench "perf report printed nothing"
	echo
	echo "== profile: $1 $2 $(label "$3"): measured under perf: IOPS, CPU us/IO, cs/IO, CPUs, KiB/rq = $4"
	echo "-- samples per task (all CPUs, idle included)"
	echo "$out"
	echo "-- hottest functions (self), 1% and more"
	perf report -i "$PD" --no-children --sort sym --stdio -g none --percent-limit 1 2>/dev/null |
		grep -vE '^#|^$' | head -20
	echo "-- kernel functions with their callees (children), 3% and more"
	perf report -i "$PD" --children --sort sym --stdio -g none --percent-limit 3 2>/dev/null |
		grep -E '\[k\]' | head -45
}

RUNTIME=${RUNTIME:-5}
echo "PROFILE: clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
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
echo "PROFILE: DONE"
