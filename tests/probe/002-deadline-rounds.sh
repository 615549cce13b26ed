#!/bin/bash
# DESCRIPTION: mq-deadline round probe (a measurement, not in make test): the bench's null_blk rand4k job on a fresh blk-mpath map per round, with mq-deadline (fio's two jobs left to the scheduler, pinned one per CPU, both on CPU 0) and with none (jobs left to the scheduler), and the raw path in every round; per round CPU us per I/O; per thousand I/Os context switches, IPIs, block and sched softirqs and the map's queue runs; per second local timer interrupts, timer and RCU softirqs (no perf: enabling its context-switch event patches __schedule's static branch, and under TCG that panicked the guest with an int3 in __schedule)
# REQUIRES: cmd:fio mod:null_blk
# TIMEOUT: 1500
# As the bench boots (TSC clock), with the bench's 5 s per case:
# GUEST_APPEND="clocksource=tsc tsc=reliable blkmpath.probe_runtime=5" make test ENGINE=new T=probe/002
# (bench.sh empties RES: not the suite's own /results/probe)
export BENCH_FUNCS_ONLY=1 RES=/results/deadline-probe
. /opt/blk-mpath/tests/bench.sh
engine_load
mountpoint -q /sys/kernel/debug || mount -t debugfs debugfs /sys/kernel/debug
# blkmpath.probe_rounds=N, blkmpath.probe_runtime=S (s per case) on the guest's command line
ROUNDS=$(arg probe_rounds); ROUNDS=${ROUNDS:-10}
RT=$(arg probe_runtime); RT=${RT:-3}
PLACEMENT=$(arg probe_placement)
# counts summed over every CPU's column
sumcpus='{s = 0; for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) s += $i; printf "%s%d ", $1, s}'
irqs() { awk '$1 == "RES:" || $1 == "CAL:" || $1 == "LOC:" '"$sumcpus" /proc/interrupts; }
sirqs() { awk '$1 == "BLOCK:" || $1 == "RCU:" || $1 == "SCHED:" || $1 == "TIMER:" '"$sumcpus" /proc/softirqs; }
# delta "A:1 B:2" "A:4 B:6" IOS SECONDS -> per thousand I/Os, and per second for
# what runs on a clock (local timer interrupts, timer and RCU softirqs)
delta() { python3 -c '
import sys, re
a = dict(re.findall(r"([A-Z]+):(\d+)", sys.argv[1])); b = dict(re.findall(r"([A-Z]+):(\d+)", sys.argv[2]))
n, t = int(sys.argv[3]), float(sys.argv[4])
d = {k: int(b[k]) - int(a[k]) for k in a}
print(" ".join("%s %.1f/kio" % (k.lower(), d[k] * 1000.0 / n) for k in d if k not in ("LOC", "TIMER", "RCU")),
      " ".join("%s %.0f/s" % (k.lower(), d[k] / t) for k in d if k in ("LOC", "TIMER", "RCU")))' "$@"; }
one() { # sched pin
	local sched=$1 pin=$2 d c0 c1 x0 x1 i0 i1 s0 s1 t0 t1 out iops ios err cpu pa=()
	# the bench's map set-up: checks the engine and the map's scheduler
	if [ "$sched" = raw ]; then
		case_setup raw::: null_blk
	else
		case_setup "new:mq:$sched:service-time" null_blk
		d=$(dmsetup info -c --noheadings -o blkdevname bcase | tr -d ' ')
	fi
	case $pin in
	split) pa=(--cpus_allowed=0,1 --cpus_allowed_policy=split) ;;
	cpu0) pa=(--cpus_allowed=0) ;;
	esac
	# with blkmpath.probe_placement=1: where fio's processes run, sampled
	# every 0.2 s from /proc/PID/stat (field 39 the CPU, 14 and 15 the user
	# and system ticks).  The sampler takes CPU itself: in the run of
	# 2026-12-06 11:17 every setting, pinned or not, ran slower and spread
	# wider with it.  So it is off by default.
	local smp=/tmp/probe-sched.$$ spid=
	: >"$smp"
	if [ "$PLACEMENT" = 1 ]; then
		(while :; do
			for f in /proc/[0-9]*/stat; do
				{ read -r l <"$f"; } 2>/dev/null || continue
				case $l in *"(fio)"*) ;; *) continue ;; esac
				set -- ${l##*) }
				echo "${f//[!0-9]/} ${37} $((${12} + ${13}))"
			done >>"$smp"
			echo - >>"$smp"
			sleep 0.2
		done) &
		spid=$!
	fi
	i0=$(irqs); s0=$(sirqs); c0=$(cpu_now)
	x0=$(awk '/^ctxt/ {print $2}' /proc/stat); t0=$(date +%s%N)
	out=$(fio --name=b --filename="$CASE_DEV" --rw=randread --bs=4k --iodepth=32 --numjobs=2 \
		--ioengine=io_uring --direct=1 "${pa[@]}" --time_based --runtime=$RT --group_reporting \
		--output-format=json 2>&1) || fail "fio: $out"
	c1=$(cpu_now); i1=$(irqs); s1=$(sirqs)
	x1=$(awk '/^ctxt/ {print $2}' /proc/stat); t1=$(date +%s%N)
	[ -z "$spid" ] || { kill "$spid"; wait "$spid" 2>/dev/null; }
	# the two fio processes that used the most CPU are its jobs: the share of
	# samples in which both sat on the same CPU, and each job's CPU per sample
	local place
	[ -z "$spid" ] || place=$(python3 -c '
import sys
samples, cur, first, last = [], {}, {}, {}
for l in open(sys.argv[1]):
    l = l.split()
    if l == ["-"]:
        samples.append(cur); cur = {}; continue
    pid, cpu, t = l[0], int(l[1]), int(l[2])
    cur[pid] = cpu; first.setdefault(pid, t); last[pid] = t
jobs = sorted(last, key=lambda p: last[p] - first[p])[-2:]
both = [s for s in samples if all(j in s for j in jobs)]
same = sum(1 for s in both if s[jobs[0]] == s[jobs[1]])
print("same-cpu %d/%d cpus %s" % (same, len(both), " ".join("".join(str(s[j]) for s in both) for j in jobs)))
' "$smp")
	rm -f "$smp"
	read -r iops ios err < <(fio_json read <<<"$out") || fail "no fio result"
	[ "$err" = 0 ] && [ "${ios:-0}" -gt 0 ] || fail "fio: error $err, $ios I/Os"
	cpu=$(awk -v c=$((c1 - c0)) -v n="$ios" -v hz="$(getconf CLK_TCK)" 'BEGIN {printf "%.1f", c * 1e6 / hz / n}')
	say "$sched $pin iops $iops cpu_us/io $cpu per_kio: cs $(awk -v x=$((x1 - x0)) -v n="$ios" 'BEGIN {printf "%.1f", x * 1000.0 / n}') $(delta "$i0 $s0" "$i1 $s1" "$ios" "$(((t1 - t0) / 1000000))e-3")"
	[ -z "$spid" ] || say "$sched $pin placement: $place"
	[ "$sched" = raw ] && return 0
	# the map's hardware queue (fresh for this round): its queue runs
	local h=/sys/kernel/debug/block/$d/hctx0
	[ -r "$h/run" ] || fail "no $h/run"
	say "$sched $pin map hctx0: runs per kio $(awk -v n="$ios" '{printf "%.1f", $1 * 1000.0 / n}' $h/run) dispatch_busy $(cat $h/dispatch_busy)"
	case_teardown
}
setup_set null_blk
for r in $(seq "$ROUNDS"); do
	for c in $(printf '%s\n' raw:free mq-deadline:free none:free mq-deadline:split mq-deadline:cpu0 | shuf); do
		one "${c%%:*}" "${c##*:}"
	done
done
teardown_set null_blk
say "done: $ROUNDS rounds"
