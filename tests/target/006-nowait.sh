#!/bin/bash
# DESCRIPTION: REQ_NOWAIT: RWF_NOWAIT reads and verified writes go through a blk-mpath map (stock refuses them with EOPNOTSUPP)
# REQUIRES: cmd:fio mod:dm-blk-mpath mod:dm-multipath mod:null_blk
. /opt/blk-mpath/tests/lib/common.sh
# preadv2/pwritev2 with RWF_NOWAIT: a block device that does not advertise
# QUEUE_FLAG_NOWAIT fails them with EOPNOTSUPP; io_uring then hands every
# I/O to an io-wq worker.  blk-mpath's target advertises it when all its
# paths do, because nothing on its map path sleeps.
mapfile -t LP < <(lun_paths)
[ ${#LP[@]} -ge 2 ] || fail "the QEMU LUN has ${#LP[@]} paths"
path_vars "${LP[@]}"
T="0 $N multipath 0 0 1 1 service-time 0 2 2 $A 1 1 $B 1 1"
nowait_fio() { # map rw [extra fio args] -> fio's exit code; output in /tmp/nw.out
	local map=$1 rw=$2
	shift 2
	fio --name=nowait --filename="/dev/mapper/$map" --ioengine=pvsync2 --nowait=1 --direct=1 \
		--rw="$rw" --bs=4k --size=16M --offset=64M "$@" >/tmp/nw.out 2>&1
}

# stock first: shows that the check below tells the two apart
engine_select stock; ENGINE=stock engine_load
dm_create nwstock "$T" || fail "create on stock"
if nowait_fio nwstock randread; then
	fail "stock dm-multipath accepted RWF_NOWAIT: this test cannot tell the engines apart"
fi
grep -m1 -iE "not supported|error=" /tmp/nw.out | sed 's/^/# stock: /'
dm_remove nwstock || fail "remove on stock"
stock_unload

engine_select new; ENGINE=new engine_load
dm_create nwnew "$T" || fail "create on blk-mpath"
nowait_fio nwnew randwrite --verify=crc32c --do_verify=1 || { tail -20 /tmp/nw.out; fail "RWF_NOWAIT randwrite+verify on blk-mpath"; }
grep -E "err=|WRITE:|READ:" /tmp/nw.out | sed 's/^/# /'
grep -qE "err= *0" /tmp/nw.out || fail "fio reported errors"
nowait_fio nwnew randread --numjobs=2 --time_based --runtime=5 || { tail -20 /tmp/nw.out; fail "RWF_NOWAIT randread on blk-mpath"; }
grep -E "err=|READ:" /tmp/nw.out | sed 's/^/# /'
# a failed path underneath does not turn into EAGAIN/EIO for NOWAIT I/O
dmsetup message nwnew 0 fail_path "$A" || fail "fail_path"
nowait_fio nwnew randread --size=4M || { tail -20 /tmp/nw.out; fail "RWF_NOWAIT read with one path failed"; }
dmsetup message nwnew 0 reinstate_path "$A" || fail "reinstate_path"
dm_remove nwnew || fail "remove"

# io_uring over null_blk paths that complete inline: the clone completes the
# original in the submitting task (blk-mq patch 0003 runs BLOCK_SOFTIRQ
# there instead of waking ksoftirqd); under the debug kernel lockdep sees it
modprobe null_blk nr_devices=2 queue_mode=2 irqmode=0 gb=1 bs=4096 submit_queues=2 || fail "null_blk"
settle
NA=$(mm nullb0) NB=$(mm nullb1) NN=$(sectors /dev/nullb0)
dm_create nwnull "0 $NN multipath 0 0 1 1 round-robin 0 2 1 $NA 1 $NB 1" || fail "create on null_blk"
fio --name=uring --filename=/dev/mapper/nwnull --ioengine=io_uring --iodepth=32 --numjobs=2 --direct=1 \
	--rw=randread --bs=4k --time_based --runtime=5 --group_reporting >/tmp/nw.out 2>&1 ||
	{ tail -20 /tmp/nw.out; fail "io_uring randread over null_blk paths"; }
grep -E "err=|READ:" /tmp/nw.out | sed 's/^/# /'
grep -qE "err= *0" /tmp/nw.out || fail "fio reported errors over null_blk"
dm_remove nwnull || fail "remove nwnull"
modprobe -r null_blk
say "RWF_NOWAIT: refused by stock, served by blk-mpath"
