#!/usr/bin/env python3
"""make bench results of two boots (two kernels), row by row.

Usage: bench-kernels.py DIR_A[,DIR_A2...] DIR_B[,DIR_B2...]
(results/bench-* directories of tests/bench.sh: per-case files of
"iops cpu_us cs round cpus kib first" lines; several directories on one
side pool their rounds, e.g. several boots of one kernel).  Two boots
share no round, so nothing is divided round by round: for every case
file in both, each side's ratios to its own round's raw IOPS, their
min / median / max, the medians of context switches per I/O, CPUs busy
and KiB per path request, and the two-sided
Mann-Whitney p of the two sets of ratios (the chance of a separation at
least that clear if both kernels drew from one distribution; exact for
small sets, from 20000 random splits for large ones, counting the
observed split as one more).  That p takes every round as independent:
it mixes the kernel with the boot (two boots of one kernel can differ
as much), so with several boots per side it also prints each boot's
median, the figure to compare.
"""
import itertools
import math
import os
import random
import statistics
import sys


def load(dirs, name):
    """the case's lines of every directory in dirs, rounds renamed DIR#:ROUND"""
    out = []
    for i, d in enumerate(dirs):
        with open(os.path.join(d, name)) as f:
            for line in f:
                v = line.split()
                if v:
                    v[3] = "%d:%s" % (i, v[3])
                    out.append(v)
    return out


def ratios(d, name):
    raw = {r[3]: float(r[0]) for r in load(d, name.rsplit(".", 1)[0] + ".raw___")}
    return [float(r[0]) / raw[r[3]] for r in load(d, name) if raw.get(r[3])]


def mw_p(a, b):
    """two-sided Mann-Whitney p (ties count half): exact over every split
    of the pooled values while there are at most 50000, else from 20000
    random splits (fixed seed)"""
    def u(x, y):
        return sum((1.0 if i > j else 0.5 if i == j else 0.0) for i in x for j in y)
    obs = u(a, b)
    mean = len(a) * len(b) / 2.0
    pool = a + b
    if math.comb(len(pool), len(a)) <= 50000:
        splits = itertools.combinations(range(len(pool)), len(a))
        hits = total = 0
    else:
        rng = random.Random(1)
        splits = (rng.sample(range(len(pool)), len(a)) for _ in range(20000))
        hits = total = 1  # random splits count the observed one too (p never 0)
    for idx in splits:
        s = set(idx)
        x = [pool[i] for i in idx]
        y = [pool[i] for i in range(len(pool)) if i not in s]
        total += 1
        if abs(u(x, y) - mean) >= abs(obs - mean) - 1e-9:
            hits += 1
    return hits / total


def med(d, name, col):
    return statistics.median(float(r[col]) for r in load(d, name))


def span(d, name, col):
    v = [float(r[col]) for r in load(d, name)]
    return "%.3f-%.3f" % (min(v), max(v))


def cases(dirs):
    sets = [set(n for n in os.listdir(d) if "." in n and not n.endswith("raw___")
                and not n.endswith(".txt")) for d in dirs]
    return set.intersection(*sets)


def main(a, b):
    a, b = a.split(","), b.split(",")
    names = sorted(cases(a) & cases(b))
    if not names:
        sys.exit("no case in both %s and %s" % (a, b))
    print("== x raw per kernel (min med max); context switches per I/O (median, min-max), CPUs and KiB per path request (medians); A = %s, B = %s"
          % (" ".join(os.path.basename(d.rstrip("/")) for d in a), " ".join(os.path.basename(d.rstrip("/")) for d in b)))
    for n in names:
        ra, rb = ratios(a, n), ratios(b, n)
        if not ra or not rb:
            continue
        cols = []
        for d, r in ((a, ra), (b, rb)):
            cols.append("%4.2f %4.2f %4.2f  cs %5.3f (%s) CPUs %4.2f KiB %5.1f" % (
                min(r), statistics.median(r), max(r), med(d, n, 2), span(d, n, 2), med(d, n, 4), med(d, n, 5)))
        p = mw_p(ra, rb)
        print("%s\n  A %s\n  B %s\n  x raw A / B: Mann-Whitney p %s (rounds as independent)" % (
            n, cols[0], cols[1], "%.3f" % p if p >= 0.001 else "< 0.001"))
        if len(a) > 1 or len(b) > 1:
            print("  x raw median of each boot: A %s | B %s" % (
                " ".join("%.2f" % statistics.median(ratios([d], n)) for d in a),
                " ".join("%.2f" % statistics.median(ratios([d], n)) for d in b)))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
