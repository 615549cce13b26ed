#!/bin/bash
# DESCRIPTION: the generic blk-mq/dm-rq patches (0003, 0007, 0009) leave other users alone: loop with mq-deadline under fio verify randrw; mq-deadline's writes_starved and priority classes (RT before idle, aging, never an idle request dispatched directly while RT is in flight) on a stacked queue over a slow null_blk; elevator switches under fio verify on loop and on a dm-rq map; a dm-rq map whose queue_rq returns BLK_STS_RESOURCE (a scsi_debug path out of tags: busy, clone allocation fails) requeues directly dispatched requests and completes every one; also on Debian's unpatched kernel
# REQUIRES: cmd:fio cmd:losetup cmd:python3 mod:null_blk mod:loop mod:scsi_debug
# TIER: full
# TIMEOUT: 420
#
# Who the patches touch: 0007 and 0009 act only on queues with
# BLK_MQ_F_STACKING (dm-rq and loop in 6.1: drivers/md/dm-rq.c and
# drivers/block/loop.c set it) and an I/O scheduler; 0009's
# ->dispatch_direct() is mq-deadline's; 0003 is dm-rq's completion.  null_blk
# is not a stacked queue, so every check runs on loop or on a dm-rq map, with
# null_blk (memory backed, so fio can verify) under loop as the slow device
# and scsi_debug under the map as the tag-starved one.
#
# How the scenario sees whether 0009 dispatched a request directly: a
# request that mq-deadline dispatches from its queues has a block_rq_insert
# event before its block_rq_issue; a directly dispatched one has none (the
# patch says so).  On the patched kernels (KVARIANT guest, debug) direct
# dispatches must show up where the patch says they happen (unplugged reads
# on an empty scheduler); on Debian's unpatched kernel there must be none.
# Everything else is judged the same on every kernel.
#
# The dm-rq part uses the boot's "multipath" target (engine_load): stock
# dm-multipath with ENGINE=stock and on the vanilla kernel, blk-mpath's
# target with ENGINE=new.  Both allocate the clone with BLK_MQ_REQ_NOWAIT
# and turn a failed allocation into DM_MAPIO_REQUEUE, i.e. BLK_STS_RESOURCE
# from dm-rq's ->queue_rq(); the same checks apply to both.
#
# Guest kernel config: CONFIG_BLK_DEV_NULL_BLK_FAULT_INJECTION (and the
# CONFIG_FAULT_INJECTION it needs) is off, so null_blk's "requeue" fault is
# not available; the BLK_STS_RESOURCE comes from a real tag shortage on the
# path (scsi_debug max_queue=2) instead.  CONFIG_IOSCHED_BFQ is off: the elevator switch cycles
# through what /sys/block/X/queue/scheduler offers (none, mq-deadline, kyber).
# shellcheck disable=SC2154 # J_* and F_ERR come from fio_vals
. /opt/blk-mpath/tests/lib/common.sh
engine_load
trap 'exit 1' TERM

TR=/sys/kernel/debug/tracing
DBG=/sys/kernel/debug/block
NBCFG=/sys/kernel/config/nullb
SHM=/dev/shm/018-loop.img
W=/tmp/018
PATCHED=1
[ "${KVARIANT:-guest}" = vanilla ] && PATCHED=0
rm -rf "$W"; mkdir -p "$W"
MAPS=() LOOPS=() NBS=()
FIO_PID=

cleanup() {
	local d
	[ -n "$FIO_PID" ] && kill -9 "$FIO_PID" 2>/dev/null
	echo 0 >$TR/tracing_on 2>/dev/null
	for e in block_getrq block_rq_insert block_rq_issue block_rq_requeue block_rq_complete; do
		echo 0 >$TR/events/block/$e/enable 2>/dev/null
		echo 0 >$TR/events/block/$e/filter 2>/dev/null
	done
	for d in "${MAPS[@]}"; do dmsetup remove --force "$d" >/dev/null 2>&1; done
	for d in "${LOOPS[@]}"; do losetup -d "$d" 2>/dev/null; done
	for d in "${NBS[@]}"; do
		echo 0 >"$NBCFG/$d/power" 2>/dev/null
		rmdir "$NBCFG/$d" 2>/dev/null
	done
	rm -f "$SHM"
	sdebug_teardown
	# loop back to its default depth for whoever comes next
	lsmod | grep -q '^loop ' && modprobe -r loop 2>/dev/null
	true
}
trap cleanup EXIT

# ---- helpers ------------------------------------------------------------------
# devt NAME: the kernel's dev_t of /sys/block/NAME (MAJOR << 20 | MINOR)
devt() { local mm; mm=$(cat "/sys/block/$1/dev"); echo $(((${mm%%:*} << 20) | ${mm##*:})); }
majmin() { tr ':' ',' <"/sys/block/$1/dev"; }
sched_of() { sed 's/.*\[\(.*\)\].*/\1/' "/sys/block/$1/queue/scheduler"; }
set_sched() { # DEV SCHED
	echo "$2" >"/sys/block/$1/queue/scheduler" || fail "$1: cannot select $2"
	expect_eq "$(sched_of "$1")" "$2" "$1: scheduler $2"
}
inflight() { tr -s ' ' <"/sys/block/$1/inflight" | sed 's/^ //'; }
# dd_stats DEV: mq-deadline's per-class counters (debugfs, "RT BE IDLE"):
# queued (inserted, not completed) and owned_by_driver (dispatched, not completed)
dd_stats() { echo "queued $(cat "$DBG/$1/sched/queued") owned $(cat "$DBG/$1/sched/owned_by_driver")"; }
# expect_dd_idle DEV WHAT: every request mq-deadline accounted has completed
expect_dd_idle() {
	[ -r "$DBG/$1/sched/queued" ] || fail "$1: no mq-deadline debugfs ($DBG/$1/sched/queued)"
	expect_eq "$(dd_stats "$1")" "queued 0 0 0 owned 0 0 0" "$2: mq-deadline's per-class counters back to 0 on $1"
	expect_eq "$(inflight "$1")" "0 0" "$2: nothing in flight on $1"
}

# nb_create VAR NAME key=value...: a null_blk device from configfs (memory
# backed, 64 MiB); sets VAR to the block device's name
nb_create() {
	local var=$1 name=$2 kv d
	shift 2
	mkdir "$NBCFG/$name" || fail "configfs: mkdir $NBCFG/$name"
	NBS+=("$name")
	for kv in size=64 memory_backed=1 blocksize=512 "$@"; do
		echo "${kv#*=}" >"$NBCFG/$name/${kv%%=*}" || fail "null_blk $name: ${kv%%=*}=${kv#*=} refused"
	done
	echo 1 >"$NBCFG/$name/power" || fail "null_blk $name: power on"
	d=$name
	[ -e "/sys/block/$d" ] || d=nullb$(cat "$NBCFG/$name/index")
	[ -e "/sys/block/$d" ] || fail "null_blk $name: no block device"
	echo none >"/sys/block/$d/queue/scheduler"
	printf -v "$var" %s "$d"
}

# loop_on VAR BACKING [dio]: a loop device; sets VAR to its name (loopN)
loop_on() {
	local var=$1 dev
	if [ "${3:-}" = dio ]; then
		dev=$(losetup -f --show --direct-io=on "$2") || fail "losetup --direct-io=on $2"
	else
		dev=$(losetup -f --show "$2") || fail "losetup $2"
	fi
	LOOPS+=("$dev")
	dev=${dev#/dev/}
	if [ "${3:-}" = dio ]; then
		expect_eq "$(cat /sys/block/$dev/loop/dio)" 1 "$dev: direct I/O to $2"
	fi
	printf -v "$var" %s "$dev"
}

# fio_bg OUT fio-args...: fio in the background, JSON report to OUT
fio_bg() {
	local out=$1
	shift
	fio --output-format=json --output="$out" "$@" >/dev/null 2>"$out.err" &
	FIO_PID=$!
}
# fio_done OUT SECS WHAT: wait at most SECS for fio, then require exit 0,
# no job error and no verify error
fio_done() {
	local i rc
	for i in $(seq $(($2 * 5))); do kill -0 "$FIO_PID" 2>/dev/null || break; sleep 0.2; done
	if kill -0 "$FIO_PID" 2>/dev/null; then
		echo w >/proc/sysrq-trigger
		dmesg | tail -40
		fail "$3: fio still running after $2 s (I/O hang)"
	fi
	wait "$FIO_PID"; rc=$?
	FIO_PID=
	if [ $rc -ne 0 ]; then
		tail -20 "$1.err"
		fail "$3: fio exited $rc (I/O or verify error)"
	fi
	fio_vals "$1" >"$1.vals" || { cat "$1.err"; fail "$3: no fio report"; }
	# shellcheck disable=SC1090
	. "$1.vals"
	[ "$F_ERR" = 0 ] || { tail -20 "$1.err"; fail "$3: fio reported $F_ERR errors"; }
	say "ok: $3: fio clean ($(sed -n 's/^# //p' "$1.vals"))"
}
# fio_vals OUT: shell assignments from fio's JSON: F_ERR (all jobs), per job
# J_<name>_{r,w}_{ios,mean,max} (mean and max completion latency in ms)
fio_vals() {
	python3 - "$1" <<'EOF'
import json, sys
t = open(sys.argv[1]).read()
j = json.loads(t[t.index("{"):])
err, summ = 0, []
for job in j["jobs"]:
    n = job["jobname"].replace("-", "_")
    err += job.get("error", 0)
    for d, k in (("read", "r"), ("write", "w")):
        s = job[d]
        c = s.get("clat_ns", {})
        ios = s.get("total_ios", 0)
        print("J_%s_%s_ios=%d" % (n, k, ios))
        print("J_%s_%s_mean=%.3f" % (n, k, c.get("mean", 0) / 1e6))
        print("J_%s_%s_max=%.3f" % (n, k, c.get("max", 0) / 1e6))
        if ios:
            summ.append("%s %s %d ios mean %.2f ms max %.1f ms" % (n, d, ios, c.get("mean", 0) / 1e6, c.get("max", 0) / 1e6))
print("F_ERR=%d" % err)
print("# " + "; ".join(summ))
EOF
}
# fcmp A OP B: floating-point comparison
fcmp() { awk -v a="$1" -v b="$3" -v op="$2" 'BEGIN { if (op == "<") r = a < b; else if (op == "<=") r = a <= b; else if (op == ">") r = a > b; else r = a >= b; exit !r }'; }

# ---- block tracepoints on one queue ----------------------------------------------
# tr_start DEV EVENT...: trace EVENTs (block_rq_insert ...) of DEV only.  Only
# while no I/O runs (tests/lib/faults.sh fw_start: switching a trace event on
# under I/O patches code every CPU runs).
tr_start() {
	local dev=$1 e
	shift
	TR_EVENTS="$*"
	echo 0 >$TR/tracing_on
	echo 32768 >$TR/buffer_size_kb
	: >$TR/trace
	for e in $TR_EVENTS; do
		echo "dev == $(devt "$dev")" >$TR/events/block/$e/filter || fail "trace filter on $e"
		echo 1 >$TR/events/block/$e/enable || fail "trace event $e"
	done
	echo 1 >$TR/tracing_on
}
# tr_stop FILE: the trace into FILE; fails if the ring buffer lost events
tr_stop() {
	local e lost
	echo 0 >$TR/tracing_on
	for e in $TR_EVENTS; do
		echo 0 >$TR/events/block/$e/enable
		echo 0 >$TR/events/block/$e/filter
	done
	lost=$(cat $TR/per_cpu/cpu*/stats | awk '/^overrun:/ {s += $2} END {print s + 0}')
	grep -v '^#' $TR/trace >"$1"
	: >$TR/trace
	echo 1408 >$TR/buffer_size_kb
	[ "$lost" = 0 ] || fail "the trace ring buffer lost $lost events (raise buffer_size_kb)"
}
# tr_count FILE: counts from block_rq_insert/issue/requeue/complete, per
# request key (sector and length; two requests for the same blocks can be
# in flight at once, so per key it counts, it does not follow one request).
# An issue is matched with an earlier insert of its key, else with an
# earlier requeue of its key (dispatched again from hctx->dispatch), else the
# request was dispatched without ever being inserted: directly.  A requeue
# with no issue before it is a request the driver turned away before
# starting it (dm-rq: the target is busy); with no insert before it either,
# it was dispatched directly.  dm-rq also ends the original of each clone
# with a completion of 0 bytes after the real one: those are not counted.
# Prints shell assignments: T_INS T_ISS T_RQ T_CPL (events), T_DIRECT
# (requests dispatched directly), T_RQDIRECT (requeues of such requests).
tr_count() {
	awk '
	{
		for (i = 1; i <= NF; i++) if ($i ~ /^block_[a-z_]+:$/) break
		if (i > NF) next
		ev = $i; sub(/:$/, "", ev)
		for (j = i + 1; j <= NF; j++) if ($j == "+") break
		if (j > NF) next
		nr = $(j + 1); k = $(j - 1) "+" nr
	}
	ev == "block_rq_insert" { ins++; ip[k]++ }
	ev == "block_rq_issue" {
		iss++; is[k]++
		if (ip[k] > 0) ip[k]--
		else if (rp[k] > 0) rp[k]--
		else { direct++; dc[k]++ }
	}
	ev == "block_rq_requeue" {
		rq++
		if (is[k] > 0) { is[k]--; rp[k]++; if (dc[k] > 0) rqd++ }
		else if (ip[k] == 0 && rp[k] == 0) { direct++; rqd++; rp[k]++ }
	}
	ev == "block_rq_complete" && nr > 0 { cpl++; if (is[k] > 0) is[k]--; if (dc[k] > 0) dc[k]-- }
	END {
		printf "T_INS=%d T_ISS=%d T_RQ=%d T_CPL=%d T_DIRECT=%d T_RQDIRECT=%d\n",
			ins, iss, rq, cpl, direct, rqd
	}' "$1"
}
# expect_direct COUNT WHAT: on the patched kernels COUNT > 0, on the unpatched
# one COUNT = 0
expect_direct() {
	if [ $PATCHED = 1 ]; then
		[ "$1" -gt 0 ] || fail "$2: 0 on the patched kernel (0009's direct dispatch never happened)"
		say "ok: $2: $1 (patched kernel: 0009 dispatches directly)"
	else
		expect_eq "$1" 0 "$2 on the unpatched kernel (no direct dispatch there)"
	fi
}

dmesg_mark
# loop devices must be free: the module is reloaded with another depth below
[ -z "$(losetup -a)" ] || { losetup -a; fail "loop devices in use: cannot reload loop"; }
lsmod | grep -q '^loop ' && { modprobe -r loop || fail "cannot unload loop"; }
lsmod | grep -q '^null_blk ' && { modprobe -r null_blk || fail "cannot unload null_blk"; }
modprobe null_blk nr_devices=0 || fail "modprobe null_blk nr_devices=0"
[ -d $NBCFG ] || fail "no null_blk configfs ($NBCFG)"

# ==== 1. loop (default depth) on a tmpfs file, mq-deadline, fio verify randrw ====
STEP=1
modprobe loop || fail "modprobe loop"
truncate -s 64M "$SHM"
loop_on L1 "$SHM"
say "1: $L1 on $SHM, hw queue depth $(cat /sys/block/$L1/mq/0/nr_tags)"
set_sched "$L1" mq-deadline
tr_start "$L1" block_rq_insert block_rq_issue block_rq_complete
fio_bg $W/p1.json --name=p1 --filename=/dev/$L1 --rw=randrw --rwmixread=50 --bs=4k --size=64M \
	--ioengine=libaio --iodepth=8 --iodepth_batch_submit=1 --direct=1 \
	--verify=crc32c --verify_backlog=256 --verify_fatal=1 --time_based --runtime=8
fio_done $W/p1.json 60 "1: loop mq-deadline randrw verify"
tr_stop $W/p1.trace
eval "$(tr_count $W/p1.trace)"
say "1: trace: inserts $T_INS issues $T_ISS completions $T_CPL, dispatched directly $T_DIRECT"
[ "$J_p1_r_ios" -gt 0 ] && [ "$J_p1_w_ios" -gt 0 ] || fail "1: fio did not both read and write ($J_p1_r_ios/$J_p1_w_ios)"
[ "$T_ISS" -gt 0 ] || fail "1: no block_rq_issue on $L1 in the trace"
expect_eq "$T_CPL" "$T_ISS" "1: as many completions as issues on $L1 (trace)"
expect_direct "$T_DIRECT" "1: requests dispatched directly on $L1"
expect_dd_idle "$L1" 1
losetup -d "/dev/$L1"; LOOPS=()
rm -f "$SHM"

# ==== loop with 2 tags over a slow null_blk: a queue builds up in loop's scheduler ====
# (udev may still hold the detached loop device for a moment)
when_unopened modprobe -r loop || fail "cannot unload loop"
modprobe loop hw_queue_depth=2 || fail "modprobe loop hw_queue_depth=2"
# 1 ms per request, completed from a timer
nb_create NBS_SLOW nb018slow irqmode=2 completion_nsec=1000000 hw_queue_depth=64
loop_on L2 "/dev/$NBS_SLOW" dio
expect_eq "$(cat /sys/block/$L2/mq/0/nr_tags)" 2 "$L2: 2 driver tags"
IOS=/sys/block/$L2/queue/iosched
dd_setup() { # mq-deadline with room for 128 requests
	set_sched "$L2" mq-deadline
	echo 128 >/sys/block/$L2/queue/nr_requests || fail "$L2: nr_requests 128"
}

# ==== 2a. writes_starved: reads preferred, writes still progress ==================
# A reader and a writer, 16 deep each, on different halves; fifo_batch=1 so
# that mq-deadline picks the direction at every dispatch: with both queued it
# dispatches writes_starved reads per write.  The writer verifies what it
# wrote (its verify reads are reads too, which only lowers the write share).
STEP=2a
starve_run() { # WRITES_STARVED
	dd_setup
	echo 1 >$IOS/fifo_batch || fail "fifo_batch"
	echo "$1" >$IOS/writes_starved || fail "writes_starved $1"
	expect_eq "$(cat $IOS/writes_starved)" "$1" "writes_starved=$1"
	fio_bg $W/p2a-$1.json --filename=/dev/$L2 --bs=4k --ioengine=libaio --direct=1 --time_based --runtime=6 \
		--name=rd --rw=randread --offset=0 --size=32M --iodepth=16 \
		--name=wr --rw=randwrite --offset=32M --size=32M --iodepth=16 \
		--verify=crc32c --verify_backlog=64 --verify_fatal=1
	fio_done $W/p2a-$1.json 60 "2a: writes_starved=$1"
	# the write share of what the scheduler chose between: reader's reads, writer's writes
	WSHARE=$(awk -v r="$J_rd_r_ios" -v w="$J_wr_w_ios" 'BEGIN {printf "%.4f", (r + w) ? w / (r + w) : 0}')
	say "2a: writes_starved=$1: reads $J_rd_r_ios writes $J_wr_w_ios (write share $WSHARE), write latency mean $J_wr_w_mean ms max $J_wr_w_max ms"
	[ "$J_wr_w_ios" -gt 0 ] || fail "2a: writes_starved=$1: no write completed in 6 s (writes starved)"
	[ "$J_rd_r_ios" -gt 0 ] || fail "2a: writes_starved=$1: no read completed"
	expect_dd_idle "$L2" "2a: writes_starved=$1"
}
starve_run 1; WS1=$WSHARE
starve_run 16; WS16=$WSHARE
W16MAX=$J_wr_w_max
fcmp "$WS1" ">=" "$(awk -v x="$WS16" 'BEGIN {print 2 * x}')" ||
	fail "2a: reads not preferred more with writes_starved=16 (write share $WS16) than with 1 ($WS1)"
say "ok: 2a: write share $WS1 with writes_starved=1, $WS16 with 16 (reads preferred, writes progress)"
# write_expire (5 s) bounds how long a starved write waits once the writer's
# turn comes, which it does every writes_starved+1 dispatches
fcmp "$W16MAX" "<" 6000 || fail "2a: a write waited $W16MAX ms with writes_starved=16 (write_expire is 5000 ms)"
say "ok: 2a: every write completed within write_expire + 1 s (longest $W16MAX ms)"
echo 16 >$IOS/fifo_batch; echo 2 >$IOS/writes_starved

# ==== 2b. priority classes =======================================================
# (i) An RT reader 8 deep (more than loop's 2 tags: RT requests always wait
# in the scheduler) and an idle-class reader 4 deep, started 1 s later and
# ended 2 s before the RT one.  mq-deadline dispatches an idle request only
# when no RT request is queued or in flight, or once it is older than
# prio_aging_expire (here 1000 ms): every idle request waits about that long.
STEP=2b
dd_setup
echo 1000 >$IOS/prio_aging_expire || fail "prio_aging_expire"
fio_bg $W/p2b.json --filename=/dev/$L2 --bs=4k --ioengine=libaio --direct=1 --time_based \
	--name=rt --rw=randread --offset=0 --size=16M --iodepth=8 --prioclass=1 --prio=0 --runtime=8 \
	--name=idle --rw=randread --offset=32M --size=16M --iodepth=4 --prioclass=3 --startdelay=1 --runtime=5
sleep 3
SAMPLES=
for i in 1 2 3 4 5 6 7 8; do SAMPLES+="$(dd_stats "$L2");"; sleep 0.4; done
fio_done $W/p2b.json 60 "2b: RT and idle readers"
say "2b: mq-deadline per class (RT BE IDLE) while both ran: ${SAMPLES//;/ | }"
# at some moment: idle requests queued, none of them dispatched, RT dispatched
# fields: queued RT BE IDLE owned RT BE IDLE
echo "$SAMPLES" | tr ';' '\n' | awk '$1 == "queued" && $4 > 0 && $6 > 0 && $8 == 0 {f = 1} END {exit !f}' ||
	fail "2b: no sample with idle requests held in the scheduler while RT requests were dispatched"
say "ok: 2b: idle requests held in the scheduler while RT requests were dispatched"
[ "$J_idle_r_ios" -gt 0 ] || fail "2b: no idle-class request completed (prio_aging_expire should dispatch them)"
fcmp "$J_rt_r_mean" "<" "$J_idle_r_mean" || fail "2b: RT mean latency $J_rt_r_mean ms not below idle's $J_idle_r_mean ms"
say "ok: 2b: RT mean latency $J_rt_r_mean ms below idle's $J_idle_r_mean ms ($J_rt_r_ios RT, $J_idle_r_ios idle requests)"
fcmp "$J_idle_r_mean" ">=" 500 || fail "2b: idle requests waited $J_idle_r_mean ms on average, not about prio_aging_expire (1000 ms): dispatched ahead of RT"
fcmp "$J_idle_r_max" "<" 3000 || fail "2b: an idle request waited $J_idle_r_max ms (prio_aging_expire 1000 ms)"
say "ok: 2b: idle requests waited for prio_aging_expire (mean $J_idle_r_mean ms, max $J_idle_r_max ms)"
expect_dd_idle "$L2" 2b

# (ii) 0009's rule: an RT reader 2 deep (loop's 2 tags: RT requests do not
# wait in the scheduler, which is often empty) and an idle reader 1 deep.
# An idle request that arrives while an RT request is in flight must go into
# the scheduler, never be dispatched directly.  From the trace: for every
# idle request (sectors from 32 MiB), was an RT request in flight without a
# break from its block_getrq (before the scheduler decides) to its
# insert or issue?  Such an idle request issued with no insert is a violation.
dd_setup
tr_start "$L2" block_getrq block_rq_insert block_rq_issue block_rq_complete
fio_bg $W/p2c.json --filename=/dev/$L2 --bs=4k --ioengine=libaio --direct=1 --time_based --runtime=6 \
	--name=rt --rw=randread --offset=0 --size=16M --iodepth=2 --prioclass=1 --prio=0 \
	--name=idle --rw=randread --offset=32M --size=16M --iodepth=1 --prioclass=3
fio_done $W/p2c.json 60 "2b: RT 2 deep and idle 1 deep"
tr_stop $W/p2c.trace
read -r OPP VIOL RTD IDD < <(awk '
	{
		for (i = 1; i <= NF; i++) if ($i ~ /^block_[a-z_]+:$/) break
		if (i > NF) next
		ev = $i; sub(/:$/, "", ev)
		for (j = i + 1; j <= NF; j++) if ($j == "+") break
		if (j > NF) next
		sec = $(j - 1); k = sec "+" $(j + 1); idle = (sec >= 65536)
	}
	!idle && ev == "block_rq_insert" { if (!(k in rl)) rl[k] = "S" }
	!idle && ev == "block_rq_issue" { if (!(k in rl)) { rl[k] = "D"; rtd++ } if (!(k in rin)) { rin[k] = 1; rtn++ } }
	!idle && ev == "block_rq_complete" { delete rl[k]; if (k in rin) { delete rin[k]; if (--rtn == 0) epoch++ } }
	idle && ev == "block_getrq" { seen[k] = (rtn > 0) ? epoch : -1 }
	idle && ev == "block_rq_insert" { if (!(k in il)) { il[k] = "S"; if ((k in seen) && seen[k] == epoch) opp++ } }
	idle && ev == "block_rq_issue" { if (!(k in il)) { il[k] = "D"; idd++; if ((k in seen) && seen[k] == epoch) viol++ } }
	idle && ev == "block_rq_complete" { delete il[k]; delete seen[k] }
	END { print opp + 0, viol + 0, rtd + 0, idd + 0 }' $W/p2c.trace)
say "2b: idle requests that arrived while RT was in flight: $OPP inserted, $VIOL dispatched directly; RT dispatched directly $RTD, idle dispatched directly $IDD (RT $J_rt_r_ios, idle $J_idle_r_ios requests)"
[ $((OPP + VIOL)) -gt 0 ] || fail "2b: no idle request arrived while an RT request was in flight: the rule was not exercised"
expect_eq "$VIOL" 0 "2b: no idle request dispatched directly while an RT request was in flight"
expect_direct "$RTD" "2b: RT requests dispatched directly on $L2"
expect_dd_idle "$L2" "2b (ii)"
echo 10000 >$IOS/prio_aging_expire

# ==== 3. elevator switches under fio verify ======================================
# switch_under_load DEV SECS: fio verify randrw on DEV for SECS while the
# scheduler is switched through every one the queue offers, each switch
# bounded (20 s); the last 3 s run on mq-deadline, whose counters must then
# come back to 0
switch_under_load() {
	local dev=$1 secs=$2 s scheds n=0 t0 dt maxdt=0 end
	read -ra scheds < <(tr -d '[]' <"/sys/block/$dev/queue/scheduler")
	say "3: $dev offers: ${scheds[*]}"
	[ ${#scheds[@]} -ge 3 ] || fail "3: $dev offers only ${scheds[*]}"
	fio_bg $W/p3-$dev.json --name=sw --filename=/dev/$dev --rw=randrw --rwmixread=50 --bs=4k --size=32M \
		--ioengine=libaio --iodepth=8 --iodepth_batch_submit=1 --direct=1 \
		--verify=crc32c --verify_backlog=128 --verify_fatal=1 --time_based --runtime="$secs"
	sleep 1
	end=$((SECONDS + secs - 4))
	while [ $SECONDS -lt $end ]; do
		for s in "${scheds[@]}"; do
			kill -0 "$FIO_PID" 2>/dev/null || fail "3: fio ended early on $dev: $(tail -3 $W/p3-$dev.json.err)"
			t0=$(now_ms)
			timeout 20 bash -c "echo $s >/sys/block/$dev/queue/scheduler" ||
				fail "3: switching $dev to $s failed or took more than 20 s"
			dt=$(($(now_ms) - t0)); [ $dt -gt $maxdt ] && maxdt=$dt
			[ "$(sched_of "$dev")" = "$s" ] || fail "3: $dev: scheduler is $(sched_of "$dev") after selecting $s"
			n=$((n + 1))
			sleep 0.1
		done
	done
	timeout 20 bash -c "echo mq-deadline >/sys/block/$dev/queue/scheduler" || fail "3: $dev back to mq-deadline"
	kill -0 "$FIO_PID" 2>/dev/null || fail "3: fio ended before the last switch on $dev"
	fio_done $W/p3-$dev.json 60 "3: $dev with $n scheduler switches"
	[ $n -ge $((3 * ${#scheds[@]})) ] || fail "3: only $n switches on $dev in ${secs} s"
	say "ok: 3: $dev: $n switches under fio verify, the longest took $maxdt ms; $J_sw_r_ios reads, $J_sw_w_ios writes verified"
	expect_eq "$(sched_of "$dev")" mq-deadline "3: $dev ended on mq-deadline"
	expect_dd_idle "$dev" "3: after the switches"
}
STEP=3
switch_under_load "$L2" 12
losetup -d "/dev/$L2"; LOOPS=()

# ==== 4. dm-rq: BLK_STS_RESOURCE from ->queue_rq() on a directly dispatched request =
# A one-path map over a scsi_debug LU with 2 tags (max_queue=2), completing
# after 100 us from a timer.  With more requests than that in flight the
# target turns the request away: the path is busy (->busy(), before dm-rq
# starts the request) or the clone allocation (BLK_MQ_REQ_NOWAIT) fails
# (DM_MAPIO_REQUEUE, after it started it); dm-rq's ->queue_rq() returns
# BLK_STS_RESOURCE and the request is requeued (block_rq_requeue on the map).
# Unplugged reads on an empty scheduler are dispatched directly on the
# patched kernel (0009): some of them must be among the requeued ones.
# (Not null_blk here: a memory-backed null_blk, which fio verify needs, is a
# BLK_MQ_F_BLOCKING queue, and dm-rq in 6.1 issues clones under its own
# non-sleeping dispatch: "BUG: sleeping function called from invalid
# context" in blk_insert_cloned_request(), stock code on every kernel.)
STEP=4
sdebug_setup add_host=1 max_queue=2 ndelay=100000
SDP=${SD_PATHS[0]}
echo none >/sys/block/$SDP/queue/scheduler
N=$(sectors "/dev/$SDP")
dm_create mp018 "0 $N multipath 0 0 1 1 round-robin 0 1 1 $(mm "$SDP") 1" || fail "create mp018"
MAPS+=(mp018)
settle
DM=$(dmsetup info -c --noheadings -o blkdevname mp018 | tr -d ' ')
say "4: map mp018 ($DM, target $(dm_multipath_is_ours && echo blk-mpath || echo stock)) over $SDP ($(cat /sys/block/$SDP/device/queue_depth) deep, host can_queue $(cat /sys/class/scsi_host/host*/can_queue | sort -u | tr '\n' ' ')), default scheduler $(sched_of "$DM")"
set_sched "$DM" mq-deadline
tr_start "$DM" block_rq_insert block_rq_issue block_rq_requeue block_rq_complete
fio_bg $W/p4.json --filename=/dev/mapper/mp018 --bs=4k --ioengine=libaio --direct=1 --time_based --runtime=8 \
	--iodepth_batch_submit=1 \
	--name=rw --rw=randrw --rwmixread=50 --offset=0 --size=32M --iodepth=2 \
	--verify=crc32c --verify_backlog=64 --verify_fatal=1 \
	--name=rd --rw=randread --offset=32M --size=32M --iodepth=2
fio_done $W/p4.json 60 "4: map over a path out of tags"
tr_stop $W/p4.trace
eval "$(tr_count $W/p4.trace)"
say "4: trace on $DM: inserts $T_INS issues $T_ISS requeues $T_RQ completions $T_CPL; dispatched directly $T_DIRECT, requeues of those $T_RQDIRECT"
[ "$T_RQ" -gt 0 ] || fail "4: no request requeued on $DM: the path was never busy (no BLK_STS_RESOURCE)"
say "ok: 4: $T_RQ requeues on $DM (BLK_STS_RESOURCE from ->queue_rq)"
expect_direct "$T_RQDIRECT" "4: directly dispatched requests requeued on $DM"
expect_dd_idle "$DM" 4

# ==== 3 again, on the map (requeues going on while the elevator changes) ======
STEP=3dm
switch_under_load "$DM" 10
dm_remove mp018 || fail "remove mp018"; MAPS=()

# ==== 4b. dm-rq over a path that completes inline (0003) =========================
# null_blk irqmode=0 ends the clone in ->queue_rq(), in the submitter's task
# context: dm-rq completes the original right there on the patched kernel
# (0003) and through BLOCK_SOFTIRQ on the unpatched one.  One tag: two
# submitters on two CPUs still run out of it now and then.  Not memory
# backed (that would make it a blocking queue, see 4), so reads only: no
# data is written here.
STEP=4b
sdebug_teardown
nb_create NBI nb018inline memory_backed=0 irqmode=0 hw_queue_depth=1
N=$(sectors "/dev/$NBI")
dm_create mp018i "0 $N multipath 0 0 1 1 round-robin 0 1 1 $(cat /sys/block/$NBI/dev) 1" || fail "create mp018i"
MAPS+=(mp018i)
settle
DMI=$(dmsetup info -c --noheadings -o blkdevname mp018i | tr -d ' ')
set_sched "$DMI" mq-deadline
tr_start "$DMI" block_rq_insert block_rq_issue block_rq_requeue block_rq_complete
fio_bg $W/p4b.json --filename=/dev/mapper/mp018i --bs=4k --ioengine=libaio --direct=1 --time_based --runtime=6 \
	--iodepth_batch_submit=1 --rw=randread --size=16M --iodepth=4 \
	--name=c0 --offset=0 --cpus_allowed=0 \
	--name=c1 --offset=32M --cpus_allowed=1
fio_done $W/p4b.json 60 "4b: map over an inline-completing path"
tr_stop $W/p4b.trace
eval "$(tr_count $W/p4b.trace)"
say "4b: trace on $DMI: inserts $T_INS issues $T_ISS requeues $T_RQ completions $T_CPL; dispatched directly $T_DIRECT, requeues of those $T_RQDIRECT"
[ "$T_CPL" -gt 0 ] || fail "4b: no block_rq_complete on $DMI in the trace"
# every issue ended in a completion or a requeue (fio's own count can
# differ by one from the block layer's: not compared)
expect_eq "$T_CPL" "$((T_ISS - T_RQ))" "4b: every request issued on $DMI completed or was requeued (trace: issues - requeues)"
expect_direct "$T_DIRECT" "4b: requests dispatched directly on $DMI"
expect_dd_idle "$DMI" 4b
dm_remove mp018i || fail "remove mp018i"; MAPS=()

# mq-deadline checks its counters when it exits (dd_exit_sched: "statistics
# for priority"): the switches above made it exit many times
STEP=end
if dmesg_since | grep -E 'statistics for priority|WARNING|BUG' >$W/dmesg.bad; then
	cat $W/dmesg.bad
	fail "the kernel complained during the scenario"
fi
say "ok: no kernel warning (mq-deadline's exit checks its per-class counters)"
say "PASS: generic blk-mq behaviour on $([ $PATCHED = 1 ] && echo "the patched kernel" || echo "Debian's unpatched kernel"), map target $(dm_multipath_is_ours && echo blk-mpath || echo stock)"
