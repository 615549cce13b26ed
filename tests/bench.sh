#!/bin/bash
# Benchmark, run inside the guest (make bench), all cases in one boot.
#
# Path sets, each a LUN with two paths:
#   null_blk  two null_blk devices (completion inline in the submitter)
#   sdebug    scsi_debug, one LUN behind 2 hosts, delay=0
#   lio       LIO tcm_loop over a ramdisk, 2 ports
# Cases: the raw path; stock dm-multipath queue_mode mq (the map's default
# scheduler, mq-deadline) and bio; blk-mpath mq and bio; on null_blk also
# both request-based engines with "none" on the map.  Workloads: 4k random
# reads (io_uring, QD32 x 2 jobs) everywhere, 64k sequential reads (QD8) on
# the SCSI paths, submitted by io_uring (seq64k), by libaio
# (seq64k-libaio: never handed to an io_uring worker thread, which io_uring
# does for every I/O to a map that does not take RWF_NOWAIT: stock's) and by
# io_uring with every I/O handed to a worker thread (seq64k-async: fio's
# force_async=1, IOSQE_ASYNC: every engine and the raw path get the io-wq
# hand-off that io_uring gives every read to stock's map, which does not
# take RWF_NOWAIT, there after a failed inline attempt); on the SCSI paths every case for
# each selector of the bench (service-time, round-robin).
#
# Every round runs every case once, in a random order, and each case's IOPS
# is divided by the raw IOPS of its own path set, workload and round; the
# tables show min / median / max of that ratio over the rounds, the median
# IOPS, CPU time per I/O (user + system + irq + softirq), context switches
# per I/O, CPUs (CPU time / wall time: how many of the 2 vCPUs the case kept
# busy) and KiB per request that reached the paths (their stat files).  Each row checks that the module under test is the one
# loaded.  A failed fio run stops the benchmark with an error.
#
# First: merging (4k sequential direct writes, QD32, through the map on
# scsi_debug paths that take every request at once and on paths that make
# requests wait above them: the commands the paths executed) and memory per
# in-flight I/O (slab bytes while 128 I/Os are held in null_blk).
# Figures under TCG: compare ratios, not absolutes.
. /opt/blk-mpath/tests/lib/common.sh
. /opt/blk-mpath/tests/lib/faults.sh
. /opt/blk-mpath/tests/lib/lio.sh
arg() { tr ' ' '\n' </proc/cmdline | sed -n "s/^blkmpath\.$1=//p" | tail -1; }
ROUNDS=$(arg bench_rounds); ROUNDS=${ROUNDS:-${BENCH_ROUNDS:-7}}
RUNTIME=$(arg bench_runtime); RUNTIME=${RUNTIME:-${BENCH_RUNTIME:-5}}
SETS=$(arg bench_sets); SETS=${SETS:-null_blk,sdebug,lio}
PARTS=$(arg bench_parts)
WORKLOADS=$(arg bench_workloads)
# the selectors of the SCSI path sets' map cases (null_blk: service-time only)
SELECTORS=$(arg bench_selectors); SELECTORS=${SELECTORS:-service-time,round-robin}
# bench_engines=stock: the raw and stock rows only (the path sets' tables),
# as on the vanilla kernel, which has no blk-mpath (make bench KVARIANT=vanilla)
ENGINES=$(arg bench_engines); ENGINES=${ENGINES:-stock,new}
RES=${RES:-/results/bench}
case $RES in /results/?*) ;; *) echo "BENCH: FAILED: results directory $RES"; exit 1 ;; esac
rm -rf "$RES"; mkdir -p "$RES"
export DM_DISABLE_UDEV=1
die_bench() { echo "BENCH: FAILED: $*"; exit 1; }
case $PARTS in "" | merge | tables) ;;
*) die_bench "bench_parts=$PARTS: \"merge\" (the merging part alone) or \"tables\" (the path sets' tables alone)" ;;
esac
# the workloads of the SCSI path sets (null_blk: rand4k only), see measure()
SCSI_WLS="rand4k seq64k seq64k-libaio seq64k-async"
IFS=, read -ra wla <<<"$WORKLOADS"
for wl in "${wla[@]}"; do
	[[ " $SCSI_WLS " == *" $wl "* ]] || die_bench "bench_workloads=$WORKLOADS: unknown workload \"$wl\""
done
IFS=, read -ra sela <<<"$SELECTORS"
for s in "${sela[@]}"; do
	case $s in service-time | round-robin | queue-length) ;;
	*) die_bench "bench_selectors=$SELECTORS: unknown selector \"$s\"" ;;
	esac
done
[ "$(printf '%s\n' "${sela[@]}" | sort | uniq -d)" = "" ] ||
	die_bench "bench_selectors=$SELECTORS: a selector twice"
case $ENGINES in
stock,new | new,stock) ENGINES=stock,new ;;
stock) [ "$PARTS" = tables ] ||
	die_bench "bench_engines=stock: the merging and memory parts compare with blk-mpath; add bench_parts=tables" ;;
*) die_bench "bench_engines=$ENGINES: \"stock,new\" (the default) or \"stock\"" ;;
esac

# ---- engines ---------------------------------------------------------------
use_stock() {
	engine_select stock >/dev/null; ENGINE=stock
	modprobe dm-multipath && modprobe dm-round-robin && modprobe dm-service-time &&
		modprobe dm-queue-length ||
		die_bench "cannot load stock dm-multipath"
}
use_new() {
	engine_select new >/dev/null; ENGINE=new
	modprobe dm-multipath || die_bench "cannot load blk-mpath"
}
# which implementation serves the map right now
module_of_map() { if dm_multipath_is_ours; then echo blk-mpath; else echo stock; fi; }

# ---- path sets -------------------------------------------------------------
setup_set() { # set [scsi_debug parameters] -> PA PB (sdX or nullbN), A B (MAJ:MIN), N
	local set=$1
	shift
	case $set in
	null_blk)
		modprobe null_blk nr_devices=2 queue_mode=2 irqmode=0 gb=4 bs=4096 hw_queue_depth=128 \
			submit_queues=2 || die_bench "null_blk"
		PA=nullb0 PB=nullb1 ;;
	sdebug)
		sdebug_setup add_host=2 dev_size_mb=256 "$@" >/dev/null
		PA=${SD_PATHS[0]} PB=${SD_PATHS[1]} ;;
	lio)
		lio_setup 2 >/dev/null
		PA=${LIO_PATHS[0]} PB=${LIO_PATHS[1]} ;;
	esac
	settle
	A=$(mm "$PA") B=$(mm "$PB") N=$(sectors "/dev/$PA")
}
teardown_set() {
	dmsetup remove_all --force >/dev/null 2>&1
	case $1 in
	null_blk) modprobe -r null_blk ;;
	sdebug) sdebug_teardown ;;
	lio) lio_teardown ;;
	esac
}

# ---- one measurement ---------------------------------------------------------
# CPU time so far (user nice system irq softirq), and of it user space
# (user, nice): "all user", in USER_HZ ticks
cpu_split_now() { awk '/^cpu / {print $2 + $3 + $4 + $7 + $8, $2 + $3}' /proc/stat; }
cpu_now() { local all; read -r all _ < <(cpu_split_now); echo "$all"; }
# path_reads -> "reads sectors first" completed on the paths under test
# (raw: PA); first: the reads completed on the first path
path_reads() {
	local d r=0 sec=0 a b first=
	for d in "$@"; do
		read -r a _ b _ <"/sys/block/$d/stat"
		r=$((r + a)) sec=$((sec + b)) first=${first:-$a}
	done
	echo "$r $sec $first"
}
# fio_json DIR < fio's JSON output -> "iops total_ios error" of its first job,
# DIR read or write
fio_json() {
	python3 -c '
import json, sys
t = sys.stdin.read(); j = json.loads(t[t.index("{"):])["jobs"][0]
print(int(j[sys.argv[1]]["iops"]), j[sys.argv[1]]["total_ios"], j["error"])' "$1"
}
# measure DEV WORKLOAD PATHS... -> "iops cpu_us_per_io ctxsw_per_io cpus
# kib_per_path_request first user_us kernel_us": cpus = CPU time / wall time
# (how many of the vCPUs the case kept busy), kib_per_path_request = KiB read /
# read requests completed on the paths, first = the share of those requests
# completed on the first path ("-": none).  user_us and kernel_us: CPU
# microseconds per request completed on the paths (one per I/O in these
# workloads), user space (user, nice) and the rest, over a window from 1 s
# to RUNTIME-1 s after fio is launched, meant to leave out fio's start-up and
# exit (it does if fio starts its I/O within 1 s of launch, which is not
# checked; "-" when the run is shorter than 3 s);
# tests/lib/bench-rounds.py sets them side by side, round by round.  Fails on
# a fio error.
measure() {
	local dev=$1 wl=$2 c0 c1 x0 x1 t0 t1 out args eargs=() iops ios r0 s0 f0 r1 s1 f1 eng=io_uring
	local fo=/tmp/bench-fio.out fpid wc0 wu0 wc1 wu1 wr0 wr1 win="- -"
	shift 2
	case $wl in
	rand4k) args=(--rw=randread --bs=4k --iodepth=32 --numjobs=2) ;;
	seq64k) args=(--rw=read --bs=64k --iodepth=8 --numjobs=1) ;;
	seq64k-libaio) args=(--rw=read --bs=64k --iodepth=8 --numjobs=1); eng=libaio ;;
	seq64k-async) args=(--rw=read --bs=64k --iodepth=8 --numjobs=1); eargs=(--force_async=1) ;;
	*) echo "unknown workload $wl" >&2; return 1 ;;
	esac
	read -r r0 s0 f0 < <(path_reads "$@")
	c0=$(cpu_now); x0=$(awk '/^ctxt/ {print $2}' /proc/stat); t0=$(date +%s%N)
	fio --name=b --filename="$dev" "${args[@]}" --ioengine=$eng "${eargs[@]}" --direct=1 \
		--time_based --runtime="$RUNTIME" --group_reporting --output-format=json >"$fo" 2>&1 &
	fpid=$!
	if [ "$RUNTIME" -ge 3 ]; then
		sleep 1
		read -r wc0 wu0 < <(cpu_split_now); read -r wr0 _ < <(path_reads "$@")
		sleep $((RUNTIME - 2))
		read -r wc1 wu1 < <(cpu_split_now); read -r wr1 _ < <(path_reads "$@")
		win=$(awk -v c=$((wc1 - wc0)) -v u=$((wu1 - wu0)) -v n=$((wr1 - wr0)) -v hz="$(getconf CLK_TCK)" \
			'BEGIN {if (n > 0) printf "%.2f %.2f", u * 1e6 / hz / n, (c - u) * 1e6 / hz / n; else print "- -"}')
	fi
	wait "$fpid" || { tail -5 "$fo" >&2; return 1; }
	out=$(cat "$fo")
	c1=$(cpu_now); x1=$(awk '/^ctxt/ {print $2}' /proc/stat); t1=$(date +%s%N)
	read -r r1 s1 f1 < <(path_reads "$@")
	read -r iops ios err < <(fio_json read <<<"$out") || return 1
	[ "$err" = 0 ] && [ "${ios:-0}" -gt 0 ] || { echo "fio: error $err, $ios I/Os" >&2; return 1; }
	awk -v i="$iops" -v cpu=$((c1 - c0)) -v cs=$((x1 - x0)) -v n="$ios" -v hz="$(getconf CLK_TCK)" \
		-v ns=$((t1 - t0)) -v rq=$((r1 - r0)) -v sec=$((s1 - s0)) -v f=$((f1 - f0)) -v win="$win" \
		'BEGIN {printf "%d %.2f %.3f %.2f %.1f %s %s\n", i, cpu * 1e6 / hz / n, cs / n,
			cpu / hz / (ns / 1e9), rq ? sec / 2 / rq : 0, rq ? sprintf("%.2f", f / rq) : "-", win}'
}

# table features for each case; selector tables for two paths
sel_table() { # selector -> groups part of the table (after features and hw handler)
	case $1 in
	service-time) echo "1 1 service-time 0 2 2 $A 1 1 $B 1 1" ;;
	round-robin) echo "1 1 round-robin 0 2 1 $A 1 $B 1" ;;
	queue-length) echo "1 1 queue-length 0 2 1 $A 1 $B 1" ;;
	esac
}
# case_setup CASE WHERE: the device a case measures: the raw path, or a map
# "bcase" on the case's engine, queue mode, scheduler and selector, checked
# to be served by that engine.  Sets CASE_DEV and CASE_PATHS (the path
# devices under it).  case_teardown removes the map.
case_setup() {
	local c=$1 eng mode sched sel feat
	IFS=: read -r eng mode sched sel <<<"$c"
	CASE_DEV=/dev/$PA CASE_PATHS="$PA"
	[ "$eng" = raw ] && return 0
	[ "$eng" = stock ] && use_stock || use_new
	feat=0
	[ "$mode" = bio ] && feat="2 queue_mode bio"
	dmsetup create bcase --table "0 $N multipath $feat 0 $(sel_table "$sel")" ||
		die_bench "cannot create $c on $2"
	if [ "$mode" != bio ]; then
		local q
		q=/sys/block/$(dmsetup info -c --noheadings -o blkdevname bcase | tr -d ' ')/queue/scheduler
		[ -z "$sched" ] || echo "$sched" >"$q"
		# the default rows measure the kernel's default for the map, mq-deadline
		grep -q "\[${sched:-mq-deadline}\]" "$q" || die_bench "$c: the map's scheduler is $(cat "$q")"
	fi
	[ "$(module_of_map)" = "$([ "$eng" = stock ] && echo stock || echo blk-mpath)" ] ||
		die_bench "$c: the loaded dm_multipath is not $eng's"
	CASE_DEV=/dev/mapper/bcase CASE_PATHS="$PA $PB"
}
# (udev may still hold the map after writes: dm_remove waits for it)
case_teardown() {
	[ "$CASE_DEV" = /dev/mapper/bcase ] || return 0
	dm_remove bcase >/dev/null || die_bench "cannot remove the map bcase"
}

# run_case SET WL CASE ROUND: one measurement, appended to $RES/<set>.<wl>.<case>
run_case() {
	local set=$1 wl=$2 c=$3 r=$4 m t0 t1
	case_setup "$c" "$set"
	prof_start
	t0=$(date +%s.%N)
	# shellcheck disable=SC2086 # CASE_PATHS: one word per path
	m=$(measure "$CASE_DEV" "$wl" $CASE_PATHS) || die_bench "fio failed: $set $wl $c round $r"
	t1=$(date +%s.%N)
	prof_stop "$set" "$wl" "$c" "$m"
	# "iops cpu cs round cpus kib first user kernel"
	read -r m1 m2 m3 m4 m5 m6 m7 m8 <<<"$m"
	echo "$m1 $m2 $m3 $r $m4 $m5 $m6 $m7 $m8" >>"$RES/$set.$wl.${c//:/_}"
	# the run's guest wall clock, start and end, to line it up with host-side traces
	echo "  $set $wl $c round $r: $m (${t0%???}-${t1%???})" >&2
	case_teardown
}

# cases: engine:queue_mode:scheduler:selector (empty scheduler: the default)
cases_for() { # set wl
	if [ "$ENGINES" = stock ]; then
		ENGINES=stock,new cases_for "$@" | tr ' ' '\n' | grep -v '^new:' | tr '\n' ' '
		echo
	elif [ "$1" = null_blk ]; then
		echo raw::: stock:mq::service-time stock:bio::service-time new:mq::service-time \
			new:bio::service-time stock:mq:none:service-time new:mq:none:service-time
	else
		local s
		echo raw:::
		for s in ${SELECTORS//,/ }; do
			echo stock:mq::$s stock:bio::$s new:mq::$s
		done
	fi
}
label() { # case -> row label
	local eng mode sched sel l
	IFS=: read -r eng mode sched sel <<<"$1"
	[ "$eng" = raw ] && { echo raw; return; }
	l=$([ "$eng" = stock ] && echo "stock-$mode" || echo "blk-mpath-$mode")
	[ -n "$sched" ] && l="$l/$sched"
	echo "$l ${sel:0:2}"
}

stats() { # file with "iops cpu cs round cpus kib first user kernel" lines, raw file -> row figures
	python3 - "$1" "$2" <<'EOF'
import sys, statistics as st
rows = [l.split() for l in open(sys.argv[1])]
raw = {l.split()[3]: float(l.split()[0]) for l in open(sys.argv[2])}
ratios = sorted(float(r[0]) / raw[r[3]] for r in rows if raw.get(r[3]))
med = lambda v: st.median(v) if v else 0
first = [float(r[6]) for r in rows if len(r) > 6 and r[6] != "-"]
print("%8d %6.2f %6.2f %6.2f %8.1f %7.3f %5.2f %6.1f %5s %d" % (int(med([float(r[0]) for r in rows])),
      ratios[0], med(ratios), ratios[-1], med([float(r[1]) for r in rows]),
      med([float(r[2]) for r in rows]), med([float(r[4]) for r in rows]),
      med([float(r[5]) for r in rows]), "%.2f" % med(first) if first else "-", len(rows)))
EOF
}

# make profile (tests/profile.sh) samples each measurement with perf
prof_start() { :; }
prof_stop() { :; }
# tests/profile.sh uses the functions above
# The merging part's job (also tests/probe/001-merge-trace.sh): 4k
# sequential direct writes, QD32, libaio submitting up to 8 per call
merge_fio() { # DEV RUNTIME [fio options...]
	local dev=$1 rt=$2
	shift 2
	fio --name=m --filename="$dev" --rw=write --bs=4k --iodepth=32 --ioengine=libaio \
		--iodepth_batch_submit=8 --direct=1 --time_based --runtime="$rt" "$@"
}
# merge_set idle|queued: its scsi_debug path sets (see the merging part)
merge_set() {
	case $1 in
	idle) setup_set sdebug ;;
	queued)
		setup_set sdebug delay=1
		echo 4 >"/sys/block/$PA/device/queue_depth" && echo 4 >"/sys/block/$PB/device/queue_depth" ||
			die_bench "cannot set the paths' queue depth" ;;
	*) die_bench "merge path set $1: idle or queued" ;;
	esac
}

[ -n "${BENCH_FUNCS_ONLY:-}" ] && return 0

# ---- merging: sequential 4k direct writes through the map ----------------------
if [ "$PARTS" != tables ]; then
# The case for a request-based map: its I/O scheduler sits above the paths
# and merges while they are busy.  Two scsi_debug path sets:
#   idle:    delay=0, the paths take every request at once;
#   queued:  delay=1 (1 ms per command at HZ=1000) and a queue depth of 4
#            on each path, so with QD32 most of the writes wait above the
#            paths.
# Cases: stock mq and blk-mpath mq with mq-deadline and with none on the
# map (set explicitly), stock bio (merging in the paths' own schedulers).
# Per case: fio's write IOPS, the commands the paths executed (SCSI's
# iorequest_cnt: a request the path turned away as busy is not counted,
# a command from udev's probe of the new map is;
# the stat files' write count would count it, as blk_insert_cloned_request()
# accounts a clone the path refused as done), fio I/Os per path command;
# min / median / max over MERGE_ROUNDS rounds, cases in a random order in
# each round.
pw() { echo $(($(cat "/sys/block/$1/device/iorequest_cnt"))); }	# commands executed (hex in sysfs)
merge_cases="stock:mq:mq-deadline:service-time stock:mq:none:service-time stock:bio::service-time
	new:mq:mq-deadline:service-time new:mq:none:service-time"
MERGE_ROUNDS=$(arg bench_merge_rounds); MERGE_ROUNDS=${MERGE_ROUNDS:-3}
MERGE_SETS=$(arg bench_merge_sets); MERGE_SETS=${MERGE_SETS:-idle,queued}
[ "$MERGE_ROUNDS" -ge 1 ] 2>/dev/null || die_bench "bench_merge_rounds: $MERGE_ROUNDS"
echo | tee -a "$RES/table.txt"
echo "== merging: 4k sequential direct writes, QD32 (libaio, submitted 8 at a time), ${RUNTIME}s;" \
	"write IOPS, commands the paths executed, fio I/Os per path command (min med max over $MERGE_ROUNDS rounds)" |
	tee -a "$RES/table.txt"
: >"$RES/merge.txt"
for pset in ${MERGE_SETS//,/ }; do
	merge_set "$pset"
	for r in $(seq "$MERGE_ROUNDS"); do
		for c in $(echo $merge_cases | tr ' ' '\n' | shuf); do
			case_setup "$c" "merge-$pset"
			a0=$(pw "$PA") b0=$(pw "$PB")
			out=$(merge_fio "$CASE_DEV" "$RUNTIME" --output-format=json) || die_bench "merge fio: $pset $c"
			read -r iops ios err < <(fio_json write <<<"$out")
			[ "$err" = 0 ] && [ "${ios:-0}" -gt 0 ] || die_bench "merge fio: $pset $c: error $err, $ios I/Os"
			preq=$(($(pw "$PA") - a0 + $(pw "$PB") - b0))
			[ "$preq" -gt 0 ] || die_bench "merge: the paths executed no command: $pset $c"
			echo "$pset $c $r $iops $ios $preq" >>"$RES/merge.txt"
			echo "  merge $pset $c round $r: $iops IOPS, $ios I/Os, $preq path commands" >&2
			case_teardown
		done
	done
	teardown_set sdebug
	for c in $merge_cases; do
		awk -v p=$pset -v c="$c" '$1 == p && $2 == c {print $4, $5 / $6}' "$RES/merge.txt" |
			python3 -c '
import sys, statistics as st
rows = [tuple(map(float, l.split())) for l in sys.stdin]
i = sorted(r[0] for r in rows); m = sorted(r[1] for r in rows)
print("%-8s %-22s IOPS %6d %6d %6d   I/Os per path command %5.2f %5.2f %5.2f   rounds %d" % (
      sys.argv[1], sys.argv[2], i[0], st.median(i), i[-1], m[0], st.median(m), m[-1], len(rows)))' \
				"$pset" "$(label "$c" | sed 's/ se$//')" || die_bench "merge: no figures for $pset $c"
	done | tee -a "$RES/table.txt"
	[ "${PIPESTATUS[0]}" = 0 ] || exit 1
done
[ "$PARTS" = merge ] && { echo "BENCH: DONE (merging only: blkmpath.bench_parts=merge)"; exit 0; }
fi

# ---- memory per in-flight I/O --------------------------------------------------
if [ "$PARTS" != tables ]; then
# 128 4k reads held for 2 s each in null_blk (timer completion): the slab
# memory in use with them in flight, minus the same without I/O (each the
# median of 5 readings 0.2 s apart); 3 rounds, the engines' order
# alternating.  Slab grows in pages, so one reading is coarse: the rounds
# show the spread.  make profile counts the allocations exactly.
echo | tee -a "$RES/table.txt"
echo "== memory: slab bytes per in-flight I/O (128 4k reads held 2 s in null_blk, map path; min med max over 3 rounds)" | tee -a "$RES/table.txt"
modprobe null_blk nr_devices=2 queue_mode=2 irqmode=2 completion_nsec=2000000000 gb=1 bs=4096 \
	hw_queue_depth=256 submit_queues=1 || die_bench "null_blk (timer)"
PA=nullb0 PB=nullb1; A=$(mm "$PA") B=$(mm "$PB") N=$(sectors /dev/nullb0)
slab1() { awk '/^Slab:/ {print $2 * 1024}' /proc/meminfo; }
slab() { local i; for i in 1 2 3 4 5; do slab1; sleep 0.2; done | sort -n | sed -n 3p; }
inflight_of() { awk '{print $1 + $2}' "/sys/block/$1/inflight"; }
# udev would open the new map and probe it at 2 s per read
udevadm control --stop-exec-queue
: >"$RES/memory.txt"
for r in 1 2 3; do
	order="stock new"; [ $r = 2 ] && order="new stock"
	for eng in $order; do
		case_setup "$eng:mq:none:round-robin" memory
		dmdev=$(dmsetup info -c --noheadings -o blkdevname bcase | tr -d ' ')
		sync; echo 3 >/proc/sys/vm/drop_caches; sleep 1
		s0=$(slab)
		fio --name=mem --filename=/dev/mapper/bcase --rw=randread --bs=4k --iodepth=128 --ioengine=libaio \
			--direct=1 --time_based --runtime=6 >/dev/null 2>&1 &
		pid=$!
		# the reads stay in flight 2 s each: sample once the queue is full
		for i in $(seq 50); do [ "$(inflight_of "$dmdev")" -ge 120 ] && break; sleep 0.1; done
		inflight=$(inflight_of "$dmdev")
		s1=$(slab)
		[ "$inflight" -ge 64 ] || die_bench "memory: only $inflight I/Os in flight on the $eng map"
		wait $pid || die_bench "memory: fio failed on the $eng map"
		echo "$eng $inflight $((s1 - s0)) $(((s1 - s0) / inflight))" >>"$RES/memory.txt"
		echo "  memory round $r $eng: in flight $inflight, slab +$((s1 - s0)) bytes" >&2
		case_teardown
	done
done
udevadm control --start-exec-queue
modprobe -r null_blk
for eng in stock new; do
	awk -v e="$eng" '$1 == e {print $4}' "$RES/memory.txt" | sort -n | tr '\n' ' ' |
		awk -v l="$([ $eng = stock ] && echo stock-mq || echo blk-mpath)" \
			'{printf "%-12s per in-flight I/O  min %6d  med %6d  max %6d bytes\n", l, $1, $2, $3}'
done | tee -a "$RES/table.txt"
fi

cs=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)
[ "$cs" = tsc ] || echo "BENCH: WARNING: clock source $cs, not tsc (make bench boots with clocksource=tsc):" \
	"timestamps cost more than on real hardware"
[ -s "$RES/table.txt" ] && echo | tee -a "$RES/table.txt"
echo "BENCH: $ROUNDS rounds, ${RUNTIME}s per case, path sets: $SETS; every round runs each set's cases in a random order;" \
	"clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource); kernel $(uname -r); engines $ENGINES" |
	tee -a "$RES/table.txt"
IFS=, read -ra sets <<<"$SETS"
ran=0
for set in "${sets[@]}"; do
	# seq64k-libaio: the same reads submitted by libaio, which never hands
	# an I/O to a worker thread (io_uring does, for a map without NOWAIT);
	# seq64k-async: io_uring handing every one to a worker thread
	wls="rand4k"; [ "$set" = null_blk ] || wls=$SCSI_WLS
	if [ -n "$WORKLOADS" ]; then
		wls=$(for wl in $wls; do [[ ",$WORKLOADS," == *",$wl,"* ]] && echo "$wl"; done)
		[ -n "$wls" ] || { echo "BENCH: $set: none of $WORKLOADS is run on it" | tee -a "$RES/table.txt"; continue; }
	fi
	ran=$((ran + 1))
	setup_set "$set"
	for r in $(seq "$ROUNDS"); do
		for wl in $wls; do
			for c in $(cases_for "$set" "$wl" | tr ' ' '\n' | shuf); do
				run_case "$set" "$wl" "$c" "$r"
			done
		done
	done
	teardown_set "$set"
	for wl in $wls; do
		echo
		echo "== $set, $wl: x raw = IOPS / raw IOPS of the same round (min med max over $ROUNDS rounds)"
		printf '%-22s %8s %6s %6s %6s %8s %7s %5s %6s %5s %s\n' case "IOPS" min "x raw" max "CPUus/IO" "cs/IO" CPUs "KiB/rq" "1st" rounds
		for c in $(cases_for "$set" "$wl"); do
			f=$RES/$set.$wl.${c//:/_}
			printf '%-22s %s\n' "$(label "$c")" "$(stats "$f" "$RES/$set.$wl.raw___")"
		done
	done | tee -a "$RES/table.txt"
done

[ "$ran" -gt 0 ] || die_bench "no path set ran a workload (bench_sets=$SETS bench_workloads=$WORKLOADS)"
# blk-mpath divided by stock in the same round, as issue #9's goals compare them
if [ "$ENGINES" != stock ]; then
	echo | tee -a "$RES/table.txt"
	python3 /opt/blk-mpath/tests/lib/bench-vs.py "$RES" | tee -a "$RES/table.txt"
	[ "${PIPESTATUS[0]}" = 0 ] || die_bench "no blk-mpath / stock comparison"
fi

# ratios for plots (make compare): "case min median max", rand4k
for set in "${sets[@]}"; do
	[ -f "$RES/$set.rand4k.raw___" ] || continue
	for c in $(cases_for "$set" rand4k); do
		[ "$c" = raw::: ] && continue
		read -r _ mn md mx _ <<<"$(stats "$RES/$set.rand4k.${c//:/_}" "$RES/$set.rand4k.raw___")"
		echo "$set:$(label "$c" | tr ' ' '_') $mn $md $mx"
	done
done >"$RES/ratios.txt"
echo "BENCH: DONE"
