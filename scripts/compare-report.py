#!/usr/bin/python3
"""compare-report.py RESULTS OUTDIR: the migration report (make compare).

Reads what one `make compare` run left in RESULTS (the guest runs of both
engines, the benchmark) and writes OUTDIR/report.html, OUTDIR/report.md and
the PNG plots they show (gnuplot).  Every figure comes from those files;
nothing is typed in.  Sections: function, faults, performance, failover,
migration; each says how it was measured.
"""
import glob
import html
import os
import re
import subprocess
import sys


def read(path, default=""):
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError:
        return default


def verdicts(run):
    """{scenario: (verdict, seconds, description)} of one guest run"""
    out = {}
    for line in read(os.path.join(run, "verdicts")).splitlines():
        m = re.match(r"(PASS|FAIL|SKIP) (\S+) - (.*?)(?: \((\d+)s\))?$", line)
        if m:
            out[m.group(2)] = (m.group(1), m.group(4) or "", m.group(3))
    return out


class Report:
    def __init__(self, outdir):
        self.outdir = outdir
        self.md = []
        self.html = []

    def h(self, level, text):
        self.md.append("%s %s\n" % ("#" * level, text))
        self.html.append("<h%d>%s</h%d>" % (level, html.escape(text), level))

    def p(self, text):
        self.md.append(text + "\n")
        self.html.append("<p>%s</p>" % html.escape(text))

    def pre(self, text):
        self.md.append("```\n%s\n```\n" % text.rstrip())
        self.html.append("<pre>%s</pre>" % html.escape(text.rstrip()))

    def table(self, head, rows):
        self.md.append("| " + " | ".join(head) + " |")
        self.md.append("|" + "---|" * len(head))
        for r in rows:
            self.md.append("| " + " | ".join(str(c).replace("|", "/") for c in r) + " |")
        self.md.append("")
        t = ["<table><tr>" + "".join("<th>%s</th>" % html.escape(h) for h in head) + "</tr>"]
        for r in rows:
            cls = ""
            if any(str(c) == "FAIL" for c in r):
                cls = ' class="fail"'
            t.append("<tr%s>" % cls + "".join("<td>%s</td>" % html.escape(str(c)) for c in r) + "</tr>")
        t.append("</table>")
        self.html.append("\n".join(t))

    def img(self, name, alt):
        if os.path.exists(os.path.join(self.outdir, name)):
            self.md.append("![%s](%s)\n" % (alt, name))
            self.html.append('<p><img src="%s" alt="%s"></p>' % (name, html.escape(alt)))
        else:
            self.p("(plot %s not produced: no data)" % name)

    def write(self, title):
        css = ("body{font-family:sans-serif;max-width:1100px;margin:2em auto;color:#222}"
               "table{border-collapse:collapse;margin:1em 0;font-size:90%}"
               "td,th{border:1px solid #bbb;padding:3px 7px;text-align:left;vertical-align:top}"
               "th{background:#eee}tr.fail td{background:#fdd}pre{background:#f6f6f6;padding:8px;"
               "overflow-x:auto;font-size:85%}img{max-width:100%}")
        with open(os.path.join(self.outdir, "report.html"), "w") as f:
            f.write("<!doctype html><html><head><meta charset='utf-8'><title>%s</title>"
                    "<style>%s</style></head><body>\n" % (html.escape(title), css))
            f.write("\n".join(self.html))
            f.write("\n</body></html>\n")
        with open(os.path.join(self.outdir, "report.md"), "w") as f:
            f.write("\n".join(self.md) + "\n")


def gnuplot(script):
    try:
        subprocess.run(["gnuplot"], input=script, text=True, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        return True
    except (OSError, subprocess.CalledProcessError) as e:
        sys.stderr.write("gnuplot failed: %s\n" % getattr(e, "stderr", e))
        return False


def fault_results(path):
    """{scenario: {engine: {key: value}}} from faults/results.txt"""
    res = {}
    order = []
    for line in read(path).splitlines():
        w = line.split()
        if len(w) < 2:
            continue
        kv = {}
        for x in w[2:]:
            if "=" in x:
                k, v = x.split("=", 1)
                kv[k] = v
        if w[0] not in res:
            order.append(w[0])
        res.setdefault(w[0], {})[w[1]] = kv
    return order, res


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: compare-report.py RESULTS OUTDIR")
    results, outdir = sys.argv[1:]
    os.makedirs(outdir, exist_ok=True)
    stock_run = os.path.join(results, "stock")
    new_run = os.path.join(results, "new")
    r = Report(outdir)
    r.h(1, "blk-mpath against stock dm-multipath: migration report")
    r.p(read(os.path.join(results, "about.txt")).strip() or "(no run information)")

    # ---- function -------------------------------------------------------
    r.h(2, "Function")
    r.p("How measured: the differential (tests/target/001) loads the same tables on stock and "
        "on blk-mpath in one boot, sends the same message sequences and compares dmsetup table "
        "and status byte for byte; the baseline suite (tests/baseline) runs unchanged in a "
        "stock boot and in a blk-mpath boot.")
    dlog = read(os.path.join(new_run, "target", "001-differential.log"))
    m = re.search(r"byte-identical: (\d+) cases, (\d+) messages, (\d+) table/status lines", dlog)
    if m:
        r.table(["tables", "messages", "table/status lines compared", "identical", "different"],
                [[m.group(1), m.group(2), m.group(3), m.group(3), 0]])
    else:
        diff = [l for l in dlog.splitlines() if re.match(r"^[-+][^-+]", l)]
        r.p("The differential did not report identical output%s." %
            ("; %d differing lines follow" % len(diff) if diff else " (no log)"))
        if diff:
            r.pre("\n".join(diff[:200]))
    vs, vn = verdicts(stock_run), verdicts(new_run)
    rows = []
    for t in sorted(k for k in set(vs) | set(vn) if k.startswith("baseline/")):
        rows.append([t, vs.get(t, ("-",))[0], vs.get(t, ("", ""))[1] and vs[t][1] + " s" or "",
                     vn.get(t, ("-",))[0], vn.get(t, ("", ""))[1] and vn[t][1] + " s" or ""])
    if rows:
        r.p("Baseline suite per engine:")
        r.table(["scenario", "stock", "time", "blk-mpath", "time"], rows)
    other = [[t, v[0], v[1] + " s", v[2]] for t, v in sorted(vn.items()) if not t.startswith(("baseline/", "faults/"))]
    if other:
        r.p("blk-mpath-only suites (engine, target) in the blk-mpath boot:")
        r.table(["scenario", "verdict", "time", "what"], other)

    # ---- faults -----------------------------------------------------------
    r.h(2, "Faults")
    r.p("How measured: each scenario of tests/faults injects one fault into one path of a live "
        "map under fio verify=crc32c, first on stock and then on blk-mpath in the same boot. "
        "gap = the longest completion latency fio saw (the failover gap); stall = the longest "
        "time with no completion at all. A scenario passes only if both engines met its "
        "assertions (bounded I/O, data intact, errors where they must be, path states).")
    order, fr = fault_results(os.path.join(new_run, "faults", "results.txt"))
    rows = []
    for sc in order:
        s, n = fr[sc].get("stock", {}), fr[sc].get("new", {})
        keys = [k for k in list(s) + [k for k in n if k not in s] if k not in ("gap_ms", "stall_ms")]
        det = "; ".join("%s %s/%s" % (k, s.get(k, "-"), n.get(k, "-")) for k in keys)
        # a fault result can come from another suite (target/009 SG_IO)
        v = vn.get("faults/" + sc) or next((vn[k] for k in vn if k.endswith("/" + sc)), ("?",))
        rows.append([sc, v[0], s.get("gap_ms", "-"), n.get("gap_ms", "-"),
                     s.get("stall_ms", "-"), n.get("stall_ms", "-"), det])
    if rows:
        r.table(["scenario", "verdict", "stock gap ms", "blk-mpath gap ms", "stock stall ms",
                 "blk-mpath stall ms", "other results (stock/blk-mpath)"], rows)
        gaps = [(sc, fr[sc]["stock"]["gap_ms"], fr[sc]["new"]["gap_ms"]) for sc in order
                if "gap_ms" in fr[sc].get("stock", {}) and "gap_ms" in fr[sc].get("new", {})]
        if gaps:
            dat = os.path.join(outdir, "gaps.dat")
            with open(dat, "w") as f:
                for i, (sc, a, b) in enumerate(gaps):
                    f.write("%d %s %s %s\n" % (i, sc[:3], a, b))
            gnuplot("""set terminal pngcairo noenhanced size 1000,420
set output '%s'
set title 'Failover gap per fault scenario (longest completion latency, ms; log scale)'
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set logscale y
set ylabel 'ms'
set key top left
plot '%s' using 3:xtic(2) title 'stock dm-multipath', '' using 4 title 'blk-mpath'
""" % (os.path.join(outdir, "gaps.png"), dat))
            r.img("gaps.png", "failover gaps")
    else:
        r.p("No fault results in this run.")

    # ---- performance ---------------------------------------------------------
    r.h(2, "Performance")
    bench = os.path.join(results, "bench")
    about = read(os.path.join(bench, "about.txt")).strip()
    r.p("How measured: make bench, one guest boot; every round runs every case back to back in "
        "a random order and divides each case's IOPS by the raw path's IOPS of the same round; "
        "the table shows min / median / max of that ratio over the rounds. " + about)
    table = read(os.path.join(bench, "table.txt")).strip()
    if table:
        r.pre(table)
    ratios = read(os.path.join(bench, "ratios.txt")).strip()
    if ratios:
        dat = os.path.join(outdir, "ratios.dat")
        with open(dat, "w") as f:
            f.write(ratios + "\n")
        gnuplot("""set terminal pngcairo noenhanced size 1000,460
set output '%s'
set title 'IOPS relative to the raw path, 4k random reads (median, bars: min..max over the rounds)'
set style data histograms
set style histogram errorbars gap 2 lw 1
set style fill solid 0.7 border -1
set yrange [0:*]
set xtics rotate by -30
set rmargin 14
set bmargin 9
set ylabel 'x raw'
plot '%s' using 3:2:4:xtic(1) notitle
""" % (os.path.join(outdir, "bench.png"), dat))
        r.img("bench.png", "benchmark ratios")
    elif not table:
        r.p("No benchmark results in this run.")

    # ---- failover over time ------------------------------------------------------
    r.h(2, "Failover over time")
    r.p("How measured: faults/001 (QEMU EIO on every read of path 0, failover table, fio "
        "randwrite with verify reads, QD8). fio's completion-latency log gives the completion "
        "time of every I/O; completions are counted per 100 ms and the time axis starts at the "
        "fault's injection (negative: before it).")
    series = []
    for eng, label in (("stock", "stock dm-multipath"), ("new", "blk-mpath")):
        f = os.path.join(new_run, "faults", "001-eio-read-failover-%s.iops" % eng)
        mk = read(os.path.join(new_run, "faults", "001-eio-read-failover-%s.mark" % eng)).strip()
        if os.path.exists(f) and mk:
            out = os.path.join(outdir, "failover-%s.dat" % eng)
            with open(out, "w") as o:
                for line in read(f).splitlines():
                    t, n = line.split()
                    o.write("%.1f %s\n" % ((int(t) - int(mk)) / 1000.0, n))
            series.append((out, label))
    if series:
        plots = ", ".join("'%s' using 1:2 with steps lw 2 title '%s'" % s for s in series)
        gnuplot("""set terminal pngcairo noenhanced size 1000,420
set output '%s'
set title 'Completed I/Os per 100 ms around the path failure (t = 0: fault injected)'
set xlabel 's'
set ylabel 'I/Os per 100 ms'
set xrange [-1:6]
set yrange [0:*]
plot %s
""" % (os.path.join(outdir, "failover.png"), plots))
        r.img("failover.png", "failover timeline")
    else:
        r.p("No failover timeline in this run.")

    # ---- migration --------------------------------------------------------------------
    r.h(2, "Migration")
    r.p("How measured: tests/target/008 mounts ext4 on a multipathd map, runs fio verify on a "
        "file in it and runs blk-mpath-migrate --live stock -> blk-mpath -> stock three times; "
        "blk-mpath-migrate-check reports on the maps before the first switch; tests/target/004 "
        "checks the module-name compatibility (options lines, /sys/module/dm_multipath, "
        "modprobe -r).")
    chk = read(os.path.join(new_run, "faults", "migrate-check.txt")).strip()
    if chk:
        r.pre(chk)
    live = read(os.path.join(new_run, "target", "008-live-switch.log"))
    m = re.search(r"LIVE-SWITCH (.*)", live)
    if m:
        kv = dict(x.split("=", 1) for x in m.group(1).split() if "=" in x)
        times = re.findall(r"(new|stock):(\d+)ms", m.group(1))
        rows = [[i // 2 + 1, "stock -> blk-mpath" if to == "new" else "blk-mpath -> stock", ms]
                for i, (to, ms) in enumerate(times)]
        r.table(["round trip", "switch", "time ms"], rows)
        r.table(["I/O errors", "verify errors", "longest I/O ms", "I/Os", "fsck"],
                [[kv.get("io_errors", "?"), kv.get("verify_errors", "?"), kv.get("longest_io", "?"),
                  kv.get("ios", "?"), kv.get("fsck", "?")]])
    else:
        r.p("The live switch did not report (verdict: %s)." % vn.get("target/008-live-switch", ("not run",))[0])
    for t in ("target/004-switch-rollback", "target/008-live-switch"):
        if t in vn:
            r.p("%s: %s - %s" % (t, vn[t][0], vn[t][2]))
    r.write("blk-mpath migration report")


if __name__ == "__main__":
    main()
