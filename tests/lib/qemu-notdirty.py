#!/usr/bin/env python3
"""Writes that took QEMU TCG's slow "notdirty" path, per bench run.

    tests/lib/qemu-notdirty.py BENCH_LOG TRACE_LOG

For a bench booted with QEMU_EXTRA="-trace memory_notdirty_write_access
-D TRACE_LOG -msg timestamp=on": TCG sends a guest write down that path when
the physical page written still holds translated guest code, a page the
guest once executed from (a module's text, for instance) and now uses for
data.  Each such write costs far more than a plain store.  BENCH_LOG is the
host's output of that bench: each run's progress line ends with its start
and end on the guest's clock (tests/bench.sh, run_case()).  Prints, per run,
its figures and the slow-path writes per second over its middle (1.5 s in
from each end), with the number of distinct pages they hit.  The margin
stands in for the offset between the guest's clock (set from the RTC at
boot, then the TSC) and the host's, which is not measured.
"""
import bisect
import re
import sys

RUN = re.compile(r"^\s*(?:guest\|)?\s+(\S+) (\S+) (\S+) round (\d+): (\S+) (\S+) .*\((\d+\.\d+)-(\d+\.\d+)\)\s*$")
EV = re.compile(r"^\d+@(\d+\.\d+):memory_notdirty_write_access \S+ ram_addr (0x[0-9a-f]+)")


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.split("\n\n")[1])
    runs = []
    for line in open(sys.argv[1], errors="replace"):
        m = RUN.match(line)
        if m:
            runs.append(m.groups())
    if not runs:
        sys.exit("qemu-notdirty: no run with start and end times in %s" % sys.argv[1])
    times, pages = [], []
    for line in open(sys.argv[2], errors="replace"):
        m = EV.match(line)
        if m:
            times.append(float(m.group(1)))
            pages.append(int(m.group(2), 16) >> 12)
    order = sorted(range(len(times)), key=lambda i: times[i])
    times = [times[i] for i in order]
    pages = [pages[i] for i in order]
    print("%-10s %-8s %-28s %5s %8s %8s %12s %6s" % ("set", "workload", "case", "round", "IOPS", "CPUus/IO",
                                                    "slow writes/s", "pages"))
    for s, wl, c, r, iops, cpu, t0, t1 in runs:
        a, b = float(t0) + 1.5, float(t1) - 1.5
        if b <= a:
            continue
        i, j = bisect.bisect_left(times, a), bisect.bisect_right(times, b)
        print("%-10s %-8s %-28s %5s %8s %8s %12.0f %6d" % (s, wl, c, r, iops, cpu, (j - i) / (b - a),
                                                           len(set(pages[i:j]))))
    print("(%d slow-path writes in the trace in all)" % len(times))


if __name__ == "__main__":
    main()
