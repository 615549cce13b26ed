#!/bin/bash
# DESCRIPTION: merge probe (a measurement, not in make test): 4k sequential direct writes (fio libaio QD32) on a scsi_debug path and through a map with none and with mq-deadline, idle and queued paths; counts the block tracepoints on each queue (bio queued, request allocated, merges, inserts, issues, requeues, plugs) and the stat file's writes and write merges
# REQUIRES: cmd:fio mod:scsi_debug
# TIMEOUT: 600
# the bench's merging job and path sets
# (bench.sh empties RES: not the suite's own /results/probe)
export BENCH_FUNCS_ONLY=1 RES=/results/merge-probe
. /opt/blk-mpath/tests/bench.sh
engine_load
mountpoint -q /sys/kernel/debug || mount -t debugfs debugfs /sys/kernel/debug
T=/sys/kernel/debug/tracing
EVS="block_bio_queue block_getrq block_bio_backmerge block_bio_frontmerge block_rq_merge block_rq_insert block_rq_issue block_rq_requeue block_plug block_unplug"
statw() { awk '{print $5, $6}' "/sys/block/$1/stat"; }	# writes, write merges
probe() { # label dev
	local dev=$1 lab=$2 mm w0 w1
	mm=$(tr ':' ',' <"/sys/block/$dev/dev")
	echo 0 >$T/tracing_on; : >$T/trace; echo 40000 >$T/buffer_size_kb
	for e in $EVS; do echo 1 >$T/events/block/$e/enable; done
	read -r w0 m0 < <(statw "$dev")
	echo 1 >$T/tracing_on
	merge_fio "/dev/$dev" 2 --output-format=terse >/tmp/fio.out || fail fio
	echo 0 >$T/tracing_on
	for e in $EVS; do echo 0 >$T/events/block/$e/enable; done
	read -r w1 m1 < <(statw "$dev")
	say "$lab dev=$dev ($mm) sched=$(cat /sys/block/$dev/queue/scheduler) nomerges=$(cat /sys/block/$dev/queue/nomerges) max_sectors_kb=$(cat /sys/block/$dev/queue/max_sectors_kb) max_segments=$(cat /sys/block/$dev/queue/max_segments)"
	say "$lab stat: writes $((w1 - w0)) write_merges $((m1 - m0)) fio_iops $(cut -d';' -f49 /tmp/fio.out)"
	for e in $EVS; do
		case $e in block_plug|block_unplug) n=$(grep -c " $e: " $T/trace) ;;
		*) n=$(grep -c " $e: $mm " $T/trace) ;; esac
		printf '#   %-22s %s\n' "$e" "$n"
		case $e in block_bio_queue|block_rq_issue) [ "$n" -gt 0 ] || fail "$lab: no $e event on $mm" ;; esac
	done
	grep -q ' block_rq_issue: ' $T/trace || fail "$lab: the trace holds no issue"
	[ $((w1 - w0)) -gt 0 ] || fail "$lab: the stat file counted no write"
	say "$lab unplug depths: $(grep ' block_unplug: ' $T/trace | awk '{print $NF}' | sort | uniq -c | sort -rn | head -5 | tr '\n' ' ')"
}
for set in idle queued; do
	merge_set $set
	probe "$PA" "$set raw-$(sed 's/.*\[\(.*\)\].*/\1/' /sys/block/$PA/queue/scheduler)"
	for s in none mq-deadline; do
		dm_create pm "0 $N multipath 0 0 1 1 service-time 0 2 1 $A 1 $B 1" || fail create
		d=$(dmsetup info -c --noheadings -o blkdevname pm | tr -d ' ')
		echo $s >/sys/block/$d/queue/scheduler
		probe "$d" "$set $ENGINE map-$s"
		dm_remove pm
	done
	teardown_set sdebug
done
