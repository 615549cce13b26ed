#!/usr/bin/env python3
"""Round by round CPU time per I/O of make bench's cases, split into user
space and kernel.

    tests/lib/bench-rounds.py RESULTS_DIR [SET.WORKLOAD]   (default null_blk.rand4k)

RESULTS_DIR is a bench's results directory (results/bench-*).  Each case file
holds one line per round, "iops cpu_us cs round cpus kib first user_us"
(tests/bench.sh, measure()); user_us, the part of cpu_us spent in user space,
is fio's own work for each I/O and the same whatever the engine below it, so
a round in which it grows with the rest ran slower as a whole (the vCPUs, not
the engine), and a round in which only the kernel's part grows points at the
kernel.  Runs written before the user field existed are refused.

Prints a row per round (CPU us per I/O of each case, total / user), then per
case min, median and max of the total, user and kernel parts, and Spearman's
rank correlation of the total with the user part over the rounds.
"""
import os
import statistics as st
import sys


def ranks(v):
    order = sorted(range(len(v)), key=lambda i: v[i])
    r = [0.0] * len(v)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and v[order[j + 1]] == v[order[i]]:
            j += 1
        for k in range(i, j + 1):
            r[order[k]] = (i + j) / 2.0
        i = j + 1
    return r


def spearman(a, b):
    ra, rb = ranks(a), ranks(b)
    ma, mb = st.mean(ra), st.mean(rb)
    num = sum((x - ma) * (y - mb) for x, y in zip(ra, rb))
    den = (sum((x - ma) ** 2 for x in ra) * sum((y - mb) ** 2 for y in rb)) ** 0.5
    return num / den if den else float("nan")


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__.split("\n\n")[1])
    d = sys.argv[1]
    sw = sys.argv[2] if len(sys.argv) == 3 else "null_blk.rand4k"
    files = sorted(f for f in os.listdir(d) if f.startswith(sw + "."))
    if not files:
        sys.exit("bench-rounds: no case of %s in %s" % (sw, d))
    cases = {}
    for f in files:
        rows = {}
        for line in open(os.path.join(d, f)):
            v = line.split()
            if len(v) < 8:
                sys.exit("bench-rounds: %s has no user-space field (a run before it was recorded)" % f)
            rows[int(v[3])] = (float(v[1]), float(v[7]))
        cases[f[len(sw) + 1:]] = rows
    names = list(cases)
    rounds = sorted(set().union(*[set(r) for r in cases.values()]))
    w = max(14, max(len(n) for n in names) + 1)
    print("== %s: CPU us per I/O, total / user space, per round (%s)" % (sw, d))
    print("round " + "".join("%*s" % (w, n) for n in names))
    for r in rounds:
        cells = []
        for n in names:
            t = cases[n].get(r)
            cells.append("%*s" % (w, "%.1f / %.1f" % t if t else "-"))
        print("%5d " % r + "".join(cells))
    print()
    print("%-*s %20s %20s %20s %8s" % (w, "case", "total min med max", "user min med max",
                                       "kernel min med max", "rho"))
    for n in names:
        tot = [t for t, _ in cases[n].values()]
        usr = [u for _, u in cases[n].values()]
        ker = [t - u for t, u in cases[n].values()]

        def mmm(v):
            return "%6.1f %6.1f %6.1f" % (min(v), st.median(v), max(v))
        rho = spearman(tot, usr) if len(tot) > 2 else float("nan")
        print("%-*s %20s %20s %20s %8.2f" % (w, n, mmm(tot), mmm(usr), mmm(ker), rho))


if __name__ == "__main__":
    main()
