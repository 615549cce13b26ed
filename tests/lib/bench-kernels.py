#!/usr/bin/env python3
"""make bench results of two boots (two kernels), row by row.

Usage: bench-kernels.py DIR_A DIR_B (results/bench-* directories of
tests/bench.sh: per-case files of "iops cpu_us cs round cpus kib first"
lines).  Two boots share no round, so nothing is divided round by round:
for every case file in both, each boot's ratios to its own round's raw
IOPS, their min / median / max, the medians of context switches per I/O,
CPUs busy and KiB per path request, and the exact two-sided
Mann-Whitney p of the two sets of ratios (the chance of a separation at
least that clear if both boots drew from one distribution).
"""
import itertools
import os
import statistics
import sys


def load(path):
    with open(path) as f:
        return [line.split() for line in f if line.strip()]


def ratios(d, name):
    raw = {r[3]: float(r[0]) for r in load(os.path.join(d, name.rsplit(".", 1)[0] + ".raw___"))}
    return [float(r[0]) / raw[r[3]] for r in load(os.path.join(d, name)) if raw.get(r[3])]


def mw_p(a, b):
    """exact two-sided Mann-Whitney p (ties count half)"""
    def u(x, y):
        return sum((1.0 if i > j else 0.5 if i == j else 0.0) for i in x for j in y)
    obs = u(a, b)
    mean = len(a) * len(b) / 2.0
    pool = a + b
    hits = total = 0
    for idx in itertools.combinations(range(len(pool)), len(a)):
        s = set(idx)
        x = [pool[i] for i in idx]
        y = [pool[i] for i in range(len(pool)) if i not in s]
        total += 1
        if abs(u(x, y) - mean) >= abs(obs - mean) - 1e-9:
            hits += 1
    return hits / total


def med(d, name, col):
    return statistics.median(float(r[col]) for r in load(os.path.join(d, name)))


def span(d, name, col):
    v = [float(r[col]) for r in load(os.path.join(d, name))]
    return "%.3f-%.3f" % (min(v), max(v))


def main(a, b):
    names = sorted(n for n in os.listdir(a)
                   if "." in n and not n.endswith("raw___") and not n.endswith(".txt")
                   and os.path.exists(os.path.join(b, n)))
    if not names:
        sys.exit("no case in both %s and %s" % (a, b))
    print("== x raw per boot (min med max); context switches per I/O (median, min-max), CPUs and KiB per path request (medians); A = %s, B = %s"
          % (os.path.basename(a.rstrip("/")), os.path.basename(b.rstrip("/"))))
    for n in names:
        ra, rb = ratios(a, n), ratios(b, n)
        if not ra or not rb:
            continue
        cols = []
        for d, r in ((a, ra), (b, rb)):
            cols.append("%4.2f %4.2f %4.2f  cs %5.3f (%s) CPUs %4.2f KiB %5.1f" % (
                min(r), statistics.median(r), max(r), med(d, n, 2), span(d, n, 2), med(d, n, 4), med(d, n, 5)))
        print("%s\n  A %s\n  B %s\n  x raw A / B: Mann-Whitney p %.3f" % (n, cols[0], cols[1], mw_p(ra, rb)))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
