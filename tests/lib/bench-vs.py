#!/usr/bin/env python3
"""make bench: blk-mpath against stock, round by round.

For every path set and workload in RESDIR (tests/bench.sh's per-case files,
lines "iops cpu_us cs round cpus kib first"), each blk-mpath request-based case is
divided by the stock case with the same queue mode, scheduler and selector
(stock mq and stock bio), in the same round: min / median / max of that
ratio over the rounds both ran, the rounds blk-mpath was ahead in (ratio
> 1) out of those not tied, and the two-sided sign test's p: the chance
of a split at least that uneven if neither engine were faster.  Usage:
bench-vs.py RESDIR
"""
import glob
import math
import os
import statistics
import sys


def rounds(path):
    out = {}
    with open(path) as f:
        for line in f:
            v = line.split()
            out[v[3]] = float(v[0])
    return out


def sign_p(ahead, behind):
    """two-sided sign test: P(a split at least this uneven | p = 1/2)"""
    n = ahead + behind
    if not n:
        return 1.0
    k = min(ahead, behind)
    tail = sum(math.comb(n, i) for i in range(k + 1)) / 2.0 ** n
    return min(1.0, 2 * tail)


def main(res):
    rows = []
    for new in sorted(glob.glob(os.path.join(res, "*.new_mq_*"))):
        base = os.path.basename(new)
        setwl, case = base.split(".new_mq_", 1)
        sched, sel = case.split("_", 1)
        n = rounds(new)
        for mode in ("mq", "bio"):
            # stock bio has no map scheduler: compare with the default one only
            if mode == "bio" and sched:
                continue
            other = os.path.join(res, "%s.stock_%s_%s_%s" % (setwl, mode, sched, sel))
            if not os.path.exists(other):
                continue
            o = rounds(other)
            r = sorted(n[k] / o[k] for k in n if o.get(k))
            if not r:
                continue
            sfx = "/" + sched if sched else ""
            label = "blk-mpath-mq%s %s / stock-%s%s" % (sfx, sel[:2], mode, sfx)
            ahead = sum(1 for x in r if x > 1)
            behind = sum(1 for x in r if x < 1)
            p = sign_p(ahead, behind)
            rows.append("%-28s %-38s %5.2f %5.2f %5.2f %2d   ahead %2d/%-2d p %s" % (
                setwl.replace(".", " "), label, r[0], statistics.median(r), r[-1], len(r),
                ahead, ahead + behind, "<0.001" if p < 0.001 else "%.3f" % p))
    if not rows:
        print("bench-vs: no blk-mpath case with a stock counterpart in %s" % res, file=sys.stderr)
        return 1
    print("== blk-mpath / stock, IOPS of the same round (min med max, rounds; rounds blk-mpath"
          " was ahead in; sign test p)")
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
