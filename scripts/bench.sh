#!/bin/bash
# make bench: raw vs stock dm-multipath (mq, bio) vs blk-mpath on null_blk, one guest boot.
. "$(dirname "$0")/lib.sh"
need_pkgs qemu-system-x86 qemu-utils debootstrap rsync e2fsprogs gcc make libdevmapper-dev
# KVARIANT=vanilla: the raw and stock rows of the path sets' tables on
# Debian's unpatched kernel (kernel/build.sh vanilla), the reference for
# what the patched block layer and dm-rq change for stock; results in
# results/bench-vanilla*
KVARIANT=${KVARIANT:-guest}
case $KVARIANT in
guest) VSFX= ;;
vanilla)
	VSFX=-vanilla
	case ${BENCH_PARTS:-tables} in tables) ;; *) die "KVARIANT=vanilla runs the path sets' tables only, not BENCH_PARTS=$BENCH_PARTS" ;; esac
	case ${BENCH_ENGINES:-stock} in stock) ;; *) die "KVARIANT=vanilla has no blk-mpath: BENCH_ENGINES=stock" ;; esac
	BENCH_PARTS=tables BENCH_ENGINES=stock ;;
*) die "KVARIANT=$KVARIANT: guest (the default) or vanilla" ;;
esac
# BENCH_ENGINES=stock: the raw and stock rows only (the path sets' tables)
ENG=new ESFX=
case ${BENCH_ENGINES:-} in
"" | stock,new | new,stock) ;;
stock)
	[ "${BENCH_PARTS:-}" = tables ] || die "BENCH_ENGINES=stock needs BENCH_PARTS=tables (merging and memory compare with blk-mpath)"
	ENG=stock ESFX=-stock ;;
*) die "BENCH_ENGINES=$BENCH_ENGINES: stock,new (the default) or stock" ;;
esac
OUT=$("$TOP/kernel/build.sh" "$KVARIANT" | tail -1) || die "kernel build failed"
make -s -C "$TOP/userspace" >/dev/null || die "userspace tools failed to build"
W=$CACHE/run-bench$VSFX
# BENCH_ROUNDS, BENCH_RUNTIME (s per case), BENCH_SETS (null_blk,sdebug,lio),
# BENCH_MERGE_ROUNDS (3), BENCH_MERGE_SETS (idle,queued), BENCH_PARTS=merge (the merging part only)
# or tables (the path sets' tables only), BENCH_WORKLOADS (rand4k,seq64k,seq64k-libaio,seq64k-async),
# BENCH_SELECTORS (the SCSI sets' selectors: service-time,round-robin; also queue-length),
# BENCH_ENGINES=stock (above), KVARIANT=vanilla (above)
# The guest's clock source is the TSC, as on real hardware.  QEMU TCG's
# default pick, the HPET, is an emulated MMIO read for every timestamp
# (request start, I/O accounting, the selectors' service times): in make
# profile it was 14% of all samples on null_blk, a cost no real machine has.
# BENCH_ICOUNT=1: one vCPU whose clock is its instruction count (QEMU
# -icount shift=0: 1 ns per guest instruction): busy time is an
# instruction count, rounds agree within 1-2% where real-time TCG swings
# by 2x; idle time still follows the host clock, nothing runs in parallel,
# and a context switch costs only its instructions.  One vCPU: the one try
# with two (-icount shift=0,sleep=off) stopped 0.11 s into the boot.
[ "${BENCH_ICOUNT:-}" = 1 ] && export GUEST_SMP=1 QEMU_EXTRA="-icount shift=0"
ICOUNT_SFX=
case "${QEMU_EXTRA:-}" in *icount*) ICOUNT_SFX=-icount ;; esac
GUEST_APPEND="clocksource=tsc tsc=reliable ${BENCH_ROUNDS:+blkmpath.bench_rounds=$BENCH_ROUNDS} ${BENCH_RUNTIME:+blkmpath.bench_runtime=$BENCH_RUNTIME} ${BENCH_SETS:+blkmpath.bench_sets=$BENCH_SETS} ${BENCH_MERGE_ROUNDS:+blkmpath.bench_merge_rounds=$BENCH_MERGE_ROUNDS} ${BENCH_MERGE_SETS:+blkmpath.bench_merge_sets=$BENCH_MERGE_SETS} ${BENCH_PARTS:+blkmpath.bench_parts=$BENCH_PARTS} ${BENCH_WORKLOADS:+blkmpath.bench_workloads=$BENCH_WORKLOADS} ${BENCH_SELECTORS:+blkmpath.bench_selectors=$BENCH_SELECTORS} ${BENCH_ENGINES:+blkmpath.bench_engines=$BENCH_ENGINES}" \
	MODE=bench ENGINE=$ENG TIMEOUT=${TIMEOUT:-5400} "$TOP/images/run-guest.sh" "$OUT" "$W" || exit 1
# a partial run (BENCH_PARTS, BENCH_WORKLOADS) or an icount run keeps the last full run's results/bench
D=$TOP/results/bench$VSFX$ESFX${BENCH_PARTS:+-$BENCH_PARTS}${BENCH_WORKLOADS:+-partial}${BENCH_SELECTORS:+-sel}$ICOUNT_SFX
mkdir -p "$TOP/results"; rm -rf "$D"; cp -r "$W/results/bench" "$D" 2>/dev/null
echo; cat "$D/table.txt"
