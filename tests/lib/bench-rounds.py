#!/usr/bin/env python3
"""Round by round CPU time of make bench's cases, user space beside kernel.

    tests/lib/bench-rounds.py RESULTS_DIR [SET.WORKLOAD]   (default null_blk.rand4k)

RESULTS_DIR is a bench's results directory (results/bench-*).  Each case file
holds one line per round, "iops cpu_us cs round cpus kib first user_us
kernel_us" (tests/bench.sh, measure()): user_us and kernel_us are CPU
microseconds per request completed on the paths, in user space (user, nice)
and in the kernel (system, irq, softirq), over a window from 1 s to
RUNTIME-1 s after fio is launched, meant to leave out its start-up and exit.  Runs recorded before those fields
existed are refused.

The hypothesis this tests: user space is mostly fio's own loop, which does
about the same work per I/O whatever the engine below it, so if a slow round
is slow because the vCPUs ran slower as a whole, its user part grows with
its kernel part; if the engine or the kernel did more, the kernel part grows
alone.  (A hypothesis, not a measurement of fio's work: user time is also
sampled per tick, about 2-3% noise at these counts, and its cost under TCG
depends on what the kernel did, e.g. how many completions each system call
reaped.)

Prints a row per round (user / kernel of each case), then per case min,
median and max of user, kernel and their sum, and Spearman's rank
correlation of user with kernel over the rounds, with a two-sided p from
20000 seeded random permutations.
"""
import os
import random
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


def pearson(a, b):
    ma, mb = st.mean(a), st.mean(b)
    num = sum((x - ma) * (y - mb) for x, y in zip(a, b))
    den = (sum((x - ma) ** 2 for x in a) * sum((y - mb) ** 2 for y in b)) ** 0.5
    return num / den if den else float("nan")


def spearman_p(a, b, n=20000):
    ra, rb = ranks(a), ranks(b)
    rho = pearson(ra, rb)
    if rho != rho:
        return rho, float("nan")
    rnd = random.Random(1)
    rb = list(rb)
    hits = 0
    for _ in range(n):
        rnd.shuffle(rb)
        if abs(pearson(ra, rb)) >= abs(rho) - 1e-12:
            hits += 1
    return rho, (hits + 1) / (n + 1)


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
            if not v:
                continue
            if len(v) < 9:
                sys.exit("bench-rounds: %s: no user and kernel fields (recorded before they existed)" % f)
            if v[7] == "-" or v[8] == "-":
                continue
            rows[int(v[3])] = (float(v[7]), float(v[8]))
        if rows:
            cases[f[len(sw) + 1:]] = rows
    if not cases:
        sys.exit("bench-rounds: no round of %s in %s has a steady window (runs of 3 s or more)" % (sw, d))
    names = list(cases)
    rounds = sorted(set().union(*[set(r) for r in cases.values()]))
    w = max(14, max(len(n) for n in names) + 1)
    print("== %s: CPU us per path request in each run's steady window, user / kernel, per round (%s)" % (sw, d))
    print("round " + "".join("%*s" % (w, n) for n in names))
    for r in rounds:
        cells = []
        for n in names:
            t = cases[n].get(r)
            cells.append("%*s" % (w, "%.1f / %.1f" % t if t else "-"))
        print("%5d " % r + "".join(cells))
    print()
    print("%-*s %20s %20s %20s %6s %7s %3s" % (w, "case", "user min med max", "kernel min med max",
                                               "sum min med max", "rho", "p", "n"))
    for n in names:
        usr = [u for u, _ in cases[n].values()]
        ker = [k for _, k in cases[n].values()]
        tot = [u + k for u, k in cases[n].values()]

        def mmm(v):
            return "%6.1f %6.1f %6.1f" % (min(v), st.median(v), max(v))
        rho, p = spearman_p(usr, ker) if len(usr) > 2 else (float("nan"), float("nan"))
        ps = "<0.001" if p < 0.001 else "%.3f" % p
        print("%-*s %20s %20s %20s %6.2f %7s %3d" % (w, n, mmm(usr), mmm(ker), mmm(tot), rho, ps, len(usr)))


if __name__ == "__main__":
    main()
