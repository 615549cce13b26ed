#!/bin/bash
# Emit the kernel side as a clean `git format-patch` series against the
# pristine linux-source-6.1 tree, one logical change per patch:
#   1. block, scsi: error detail of a completed request (kernel/patches/0001)
#   2. block: the multipath engine + selectors + tracepoints (Kconfig/Makefile
#      without the KUnit entries, include/linux/blk-mpath.h, block/blk-mpath-*)
#   3. block: KUnit tests for the engine
#   4... kernel/patches/0003 and every later NNNN-*.patch (dm-rq, dm core,
#      blk-mq), in order
# Output: $OUTDIR (default results/series); with CHECK=1 each stage is also
# compile-checked (block/ objects) in a scratch O= directory.
. "$(dirname "$0")/../scripts/lib.sh"
SRCVER=$(dpkg-query -W -f='${Version}' linux-source-6.1) || die "linux-source-6.1 not installed"
PRISTINE=$CACHE/linux-$SRCVER/pristine
[ -d "$PRISTINE" ] || die "run kernel/build.sh first"
OUTDIR=${OUTDIR:-$TOP/results/series}
G=$(mktemp -d); trap 'rm -rf "$G"' EXIT
T=$TOP/kernel/tree
# every upstream file a patch touches (as kernel/build.sh finds them)
files=$(sed -n 's#^+++ b/\([^\t ]*\).*#\1#p' "$TOP"/kernel/patches/*.patch | sort -u)
mkdir -p "$G/w"
for f in $files; do
	[ -e "$PRISTINE/$f" ] || continue
	mkdir -p "$G/w/$(dirname "$f")"; cp "$PRISTINE/$f" "$G/w/$f"
done
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
m=re.sub(r'obj-\$\(CONFIG_BLK_MPATH_KUNIT_TEST\) \+=.*\n', '', m)
open('block/Makefile','w').write(m)
PY
mkdir -p block include/linux include/trace/events
cp "$T"/block/blk-mpath-core.c "$T"/block/blk-mpath-ps.c block/
[ -e "$T/block/blk-mpath-bio.c" ] && cp "$T/block/blk-mpath-bio.c" block/
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
a completion out of resources is retried on the same path for a
bounded time per request, and a clone refused for exceeding its path's
queue limits is returned without failing the path.  Conditions the SCSI
midlayer already retried on the path (unit attention, ALUA transition,
aborted command) fail the path, as stock.  Drivers that give no detail
fall back to blk_path_error().

Bio-based stacking drivers (dm-multipath's queue_mode bio) use the same
groups, selectors and path state through blk_mpath_map_bio() and
blk_mpath_end_bio(): the engine holds the bios that cannot go to a path
now (no usable path with queue_if_no_path, pg_init pending, a path error
to retry elsewhere) and resubmits them from a work item when the state
that held them changes; a bio's verdict is the classification of its
status alone.

Tracepoints report map, completion (with the error detail) and path
failure; per-path counters are in debugfs under blk_mpath/.

Signed-off-by: blk-mpath developers <blk-mpath@localhost>
MSG
# 3 (KUnit)
cp "$G/Kconfig.full" block/Kconfig; cp "$G/Makefile.full" block/Makefile
cp "$T/block/blk-mpath-test.c" block/
[ -e "$T/block/blk-mpath-bio-test.c" ] && cp "$T/block/blk-mpath-bio-test.c" block/
git add -A
git commit -q -F - <<'MSG'
block: add KUnit tests for the multipath engine

Test every path selector (selection order, fail/reinstate, argument
parsing, status output), the path and group state machine (failback,
switch_group, bypass, all paths failed with and without queueing,
fail counts), the completion verdicts and the error classification
table, without any real device; and queue_mode bio (blk-mpath-bio-test:
bios held with no path, failed by fail_if_no_path and the no-path
timer, pushed back during a noflush suspend, held for pg_init, and real
bios on the queues of a fake blk-mq driver: remap, target statuses
returned, a path status failing the path and resubmitted elsewhere).

Signed-off-by: blk-mpath developers <blk-mpath@localhost>
MSG
# 4 and on: kernel/patches/0003-* and every later patch, each as it is
for p in "$TOP"/kernel/patches/[0-9][0-9][0-9][0-9]-*.patch; do
	case $(basename "$p") in 0001-*|0002-*) continue ;; esac
	patch -s -p1 <"$p" || die "$(basename "$p") does not apply"
	git add -A
	git commit -q -F <(sed -n 's/^Subject: \[PATCH\] //p' "$p"; echo
		sed -n '/^$/,/^---$/p' "$p" | sed '1d;$d')
done
rm -rf "$OUTDIR"; mkdir -p "$OUTDIR"
git format-patch -q -o "$OUTDIR" "$base"
ls "$OUTDIR"

# CHECK=1: compile every stage on its own (the series applied up to and
# including patch N), in a scratch tree with the guest config: block/ and
# drivers/scsi/scsi_lib.o, warnings are errors for the new files.
[ "${CHECK:-0}" = 1 ] || exit 0
OUTG=$(ls -d "$CACHE/linux-$SRCVER"/out-guest-* 2>/dev/null | head -1)
[ -e "$OUTG/.config" ] || die "CHECK=1 needs a guest kernel build (make kernel)"
CT=$CACHE/series-check/src CO=$CACHE/series-check/out
if [ ! -e "$CT/.linked" ]; then
	rm -rf "$CT"; mkdir -p "$(dirname "$CT")"
	cp -al "$PRISTINE" "$CT" && touch "$CT/.linked" || die "cannot make the scratch tree"
fi
mkdir -p "$CO"
mapfile -t stages < <(git rev-list --reverse "$base..HEAD")
n=0
for c in "${stages[@]}"; do
	n=$((n + 1))
	git checkout -q "$c"
	# restore every file the series touches, then lay this stage over it
	for f in $(git diff --name-only "$base" "${stages[-1]}"); do
		if [ -e "$f" ]; then cp --remove-destination "$f" "$CT/$f"
		elif [ -e "$PRISTINE/$f" ]; then cp --remove-destination "$PRISTINE/$f" "$CT/$f"
		else rm -f "$CT/$f"; fi
	done
	cp "$OUTG/.config" "$CO/.config"
	make -s -C "$CT" O="$CO" olddefconfig >/dev/null 2>&1 || die "stage $n: olddefconfig failed"
	log "series check: patch $n/${#stages[@]}: $(git log -1 --format=%s)"
	if ! make -C "$CT" O="$CO" -j"$JOBS" block/ drivers/scsi/scsi_lib.o drivers/md/dm.o drivers/md/dm-rq.o \
		drivers/md/dm-table.o drivers/md/dm-ioctl.o drivers/md/dm-target.o >"$CO/stage$n.log" 2>&1; then
		tail -30 "$CO/stage$n.log" >&2; die "patch $n does not build on its own"
	fi
	if grep -E 'blk-mpath|blk_mpath|blk-mq\.h|scsi_lib\.c|drivers/md/dm' "$CO/stage$n.log" | grep -q 'warning:'; then
		grep -B2 -A4 'warning:' "$CO/stage$n.log" >&2; die "patch $n builds with warnings"
	fi
	echo "patch $n/${#stages[@]} builds: $(git log -1 --format=%s)"
done
