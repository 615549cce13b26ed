#!/bin/bash
# Emit the kernel side as a clean `git format-patch` series against the
# pristine linux-source-6.1 tree, one logical change per patch:
#   1. block, scsi: error detail of a completed request (kernel/patches/0001)
#   2. block: the multipath engine + selectors + tracepoints (Kconfig/Makefile
#      without the KUnit entries, include/linux/blk-mpath.h, block/blk-mpath-*)
#   3. block: KUnit tests for the engine
# Output: $OUTDIR (default results/series); with CHECK=1 each stage is also
# compile-checked (block/ objects) in a scratch O= directory.
. "$(dirname "$0")/../scripts/lib.sh"
SRCVER=$(dpkg-query -W -f='${Version}' linux-source-6.1) || die "linux-source-6.1 not installed"
PRISTINE=$CACHE/linux-$SRCVER/pristine
[ -d "$PRISTINE" ] || die "run kernel/build.sh first"
OUTDIR=${OUTDIR:-$TOP/results/series}
G=$(mktemp -d); trap 'rm -rf "$G"' EXIT
T=$TOP/kernel/tree
files="block/Kconfig block/Makefile drivers/scsi/scsi_lib.c include/linux/blk-mq.h"
mkdir -p "$G/w"
for f in $files; do mkdir -p "$G/w/$(dirname "$f")"; cp "$PRISTINE/$f" "$G/w/$f"; done
cd "$G/w"
git init -q; git config user.name "blk-mpath developers"; git config user.email "blk-mpath@localhost"
git add -A; git commit -qm "linux-source $SRCVER (files touched by the series)"
base=$(git rev-parse HEAD)
# 1
patch -s -p1 <"$TOP/kernel/patches/0001-"*.patch || die "0001 does not apply"
git add -A
git commit -q -F <(sed -n 's/^Subject: \[PATCH\] //p' "$TOP"/kernel/patches/0001-*.patch; echo
	sed -n '/^$/,/^---$/p' "$TOP"/kernel/patches/0001-*.patch | sed '1d;$d')
# 2 (engine): Kconfig/Makefile from 0002 minus the KUnit entries
patch -s -p1 <"$TOP/kernel/patches/0002-"*.patch || die "0002 does not apply"
cp block/Kconfig "$G/Kconfig.full"; cp block/Makefile "$G/Makefile.full"
python3 - <<'PY'
import re
k=open('block/Kconfig').read()
k=re.sub(r'config BLK_MPATH_KUNIT_TEST\n(?:\t.*\n|\n(?=\t))*\n', '', k)
open('block/Kconfig','w').write(k)
m=open('block/Makefile').read()
m=m.replace('obj-$(CONFIG_BLK_MPATH_KUNIT_TEST) += blk-mpath-test.o\n','')
open('block/Makefile','w').write(m)
PY
mkdir -p block include/linux include/trace/events
cp "$T"/block/blk-mpath-core.c "$T"/block/blk-mpath-ps.c block/
[ -e "$T/block/blk-mpath-ps.h" ] && cp "$T/block/blk-mpath-ps.h" block/
cp "$T/include/linux/blk-mpath.h" include/linux/
cp "$T"/include/trace/events/blk_mpath.h include/trace/events/ 2>/dev/null
git add -A
git commit -q -F - <<'MSG'
block: add a request-based multipath engine

Add blk-mpath, a multipath engine for request-based stacking drivers,
in the block layer.  It owns the policy that dm-multipath keeps inside
device-mapper today: path groups with failback to the first usable
group, switch/disable/enable of groups, path state and fail counts,
queue_if_no_path with save/restore across suspend and an optional
no-path timeout, pg_init through scsi_dh with retries and delay, and
five path selectors (round-robin, queue-length, service-time,
historical-service-time, io-affinity) that take the stock table
arguments and print the stock status.

A stacking driver hands each request to blk_mpath_map_rq(), which
picks a path without an engine-wide lock and allocates the clone on
the path's queue without sleeping, and each completed clone to
blk_mpath_end_rq(), which reads the clone's detailed error through
blk_rq_error_detail() and classifies it: a path error fails the path
and retries elsewhere, a target error (medium, invalid field,
reservation conflict) is returned and never retried on another path,
a transient condition (ALUA transition, unit attention) is retried on
the same path a bounded number of times.  Drivers that give no detail
fall back to blk_path_error().

Tracepoints report map, completion (with the error detail) and path
failure; per-path counters are in debugfs under blk_mpath/.

Signed-off-by: blk-mpath developers <blk-mpath@localhost>
MSG
# 3 (KUnit)
cp "$G/Kconfig.full" block/Kconfig; cp "$G/Makefile.full" block/Makefile
cp "$T/block/blk-mpath-test.c" block/
git add -A
git commit -q -F - <<'MSG'
block: add KUnit tests for the multipath engine

Test every path selector (selection order, fail/reinstate, argument
parsing, status output), the path and group state machine (failback,
switch_group, bypass, all paths failed with and without queueing,
fail counts), the completion verdicts and the error classification
table, without any real device.

Signed-off-by: blk-mpath developers <blk-mpath@localhost>
MSG
rm -rf "$OUTDIR"; mkdir -p "$OUTDIR"
git format-patch -q -o "$OUTDIR" "$base"
ls "$OUTDIR"
