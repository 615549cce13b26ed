#!/bin/bash
# Benchmark, run inside the guest (make bench): 4k random reads, io_uring,
# iodepth 32 x 2 jobs on null_blk, in one boot: the raw path, stock
# dm-multipath queue_mode mq and bio over two null_blk paths, and blk-mpath
# over the same two paths.  Several rounds; medians and ratios; CPU time and
# context switches per I/O.  Figures under TCG: compare ratios, not absolutes.
. /opt/blk-mpath/tests/lib/common.sh
ROUNDS=${BENCH_ROUNDS:-5} RUNTIME=${BENCH_RUNTIME:-8}
modprobe null_blk nr_devices=2 queue_mode=2 irqmode=0 gb=4 bs=4096 hw_queue_depth=128 submit_queues=2 ||
	{ echo "BENCH: FAILED (null_blk)"; exit 1; }
settle
A=$(mm nullb0) B=$(mm nullb1) N=$(sectors /dev/nullb0)
RES=/results/bench; mkdir -p "$RES"

# measure NAME DEV -> prints "iops cpu_us_per_io ctxsw_per_io"
measure() {
	local name=$1 dev=$2 s0 s1 c0 c1 out iops ios
	read -r _ u0 n0 s0 _ <<<"$(head -1 /proc/stat)"
	c0=$(awk '/^ctxt/ {print $2}' /proc/stat)
	out=$(fio --name="$name" --filename="$dev" --rw=randread --bs=4k --ioengine=io_uring --iodepth=32 \
		--numjobs=2 --direct=1 --time_based --runtime="$RUNTIME" --group_reporting --output-format=terse \
		--terse-version=3 2>/dev/null) || { echo "0 0 0"; return; }
	read -r _ u1 n1 s1 _ <<<"$(head -1 /proc/stat)"
	c1=$(awk '/^ctxt/ {print $2}' /proc/stat)
	iops=$(echo "$out" | awk -F';' '{print $8}')
	ios=$(echo "$out" | awk -F';' '{print $6}')   # read total KB... fall back to iops*runtime
	ios=$((iops * RUNTIME))
	[ "$ios" -gt 0 ] || ios=1
	awk -v i="$iops" -v cpu=$(( (u1 + n1 + s1 - u0 - n0 - s0) )) -v cs=$((c1 - c0)) -v n="$ios" \
		-v hz="$(getconf CLK_TCK)" 'BEGIN {printf "%d %.2f %.3f\n", i, cpu * 1e6 / hz / n, cs / n}'
}
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR + 1) / 2] : int((a[NR / 2] + a[NR / 2 + 1]) / 2)}'; }

stock_load() {
	engine_select stock; ENGINE=stock
	modprobe dm-multipath && modprobe dm-round-robin && modprobe dm-service-time
}
# one_case NAME TABLE [SCHED]: create the map (with I/O scheduler SCHED on
# the map instead of the default), measure one round, remove it
one_case() {
	local m sched
	dmsetup create bcase --table "0 $N multipath $2" || { echo "BENCH: cannot create $1" >&2; return 1; }
	sched=/sys/block/$(basename "$(readlink -f /dev/mapper/bcase)")/queue/scheduler
	[ -z "${3:-}" ] || echo "$3" >"$sched"
	echo "  $1: scheduler $(cat "$sched")" >&2
	m=$(measure "${1//\//_}" /dev/mapper/bcase); echo "  $1 round $i: $m" >&2
	echo "$m" >>"$RES/${1//\//_}.txt"
	dmsetup remove bcase
}
TBL="1 1 service-time 0 2 2 $A 1 1 $B 1 1"
have_new=0; modinfo dm-blk-mpath >/dev/null 2>&1 && have_new=1
echo "BENCH: 4k randread io_uring QD32 x2 jobs, ${RUNTIME}s per case, $ROUNDS rounds; every round runs"
echo "BENCH: all cases back to back, so host noise hits them alike; ratios are per round."
echo "BENCH: the request-based maps get the kernel's default scheduler (mq-deadline, one hw"
echo "BENCH: queue); the /none rows set none on the map, as an admin's udev rule could"
for i in $(seq "$ROUNDS"); do
	m=$(measure raw /dev/nullb0); echo "  raw round $i: $m" >&2; echo "$m" >>"$RES/raw.txt"
	stock_load
	one_case stock-mq "0 0 $TBL"
	one_case stock-bio "2 queue_mode bio 0 $TBL"
	one_case stock-mq/none "0 0 $TBL" none
	stock_unload
	if [ $have_new = 1 ]; then
		engine_select new; ENGINE=new
		modprobe dm-multipath && one_case blk-mpath "0 0 $TBL"
		one_case blk-mpath/none "0 0 $TBL" none
		modprobe -r dm-multipath
	fi
done
echo
# per round: IOPS / raw IOPS of the same round; the table shows medians
printf '%-15s %10s %8s %14s %14s\n' case "IOPS(med)" "x raw" "CPU us/IO" "ctxsw/IO"
for c in raw stock-mq stock-bio blk-mpath stock-mq/none blk-mpath/none; do
	f=$RES/${c//\//_}.txt
	[ -s "$f" ] || { printf '%-15s %10s\n' "$c" "n/a"; continue; }
	i=$(awk '{print $1}' "$f" | median)
	ratio=$(paste "$f" "$RES/raw.txt" | awk '{printf "%.4f\n", $4 ? $1 / $4 : 0}' | sort -n |
		awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}')
	cpu=$(awk '{print $2}' "$f" | sort -n | awk '{a[NR]=$1} END {print a[int((NR + 1) / 2)]}')
	cs=$(awk '{print $3}' "$f" | sort -n | awk '{a[NR]=$1} END {print a[int((NR + 1) / 2)]}')
	printf '%-15s %10d %8.2f %14s %14s\n' "$c" "$i" "$ratio" "$cpu" "$cs"
done | tee "$RES/table.txt"
# for plots (make compare): case, min, median, max of the per-round ratio
for c in stock-mq stock-bio blk-mpath stock-mq/none blk-mpath/none; do
	f=$RES/${c//\//_}.txt
	[ -s "$f" ] || continue
	paste "$f" "$RES/raw.txt" | awk '{printf "%.4f\n", $4 ? $1 / $4 : 0}' | sort -n |
		awk -v c="$c" '{a[NR]=$1} END {m = (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2;
			printf "%s %.4f %.4f %.4f\n", c, a[1], m, a[NR]}'
done >"$RES/ratios.txt"
echo "BENCH: DONE"
