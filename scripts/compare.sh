#!/bin/bash
# make compare: one run of both engines over the same work (the test suites,
# with the fault suite side by side, and the benchmark), then the migration
# report: results/compare/report.html and report.md with PNG plots.
. "$(dirname "$0")/lib.sh"
need_pkgs gnuplot-nox python3
t0=$(date +%s)
# the commit under test, read before the run (later commits are not in it)
commit="$(git -C "$TOP" rev-parse --short HEAD 2>/dev/null)$(git -C "$TOP" diff --quiet 2>/dev/null || echo '+changes')"
OUTD=$TOP/results/compare
rm -rf "$OUTD"; mkdir -p "$OUTD"
rc=0
RUN_TAG=compare ENGINE=both "$TOP/scripts/test.sh" 2>&1 | tee "$OUTD/test.log" || rc=1
for e in stock new; do
	[ -d "$TOP/results/guest-$e-compare" ] && cp -r "$TOP/results/guest-$e-compare" "$OUTD/$e"
done
"$TOP/scripts/bench.sh" 2>&1 | tee "$OUTD/bench.log" || rc=1
[ -d "$TOP/results/bench" ] && cp -r "$TOP/results/bench" "$OUTD/bench"
{
	echo "Run of $(date -u '+%Y-%m-%d %H:%M UTC') on $(uname -n) ($(nproc) CPUs, QEMU TCG guest," \
		"kernel $(cat "$OUTD"/new/console.log 2>/dev/null | grep -aom1 'kernel [^ ]*blkmpath[^ ,]*' | cut -d' ' -f2))," \
		"blk-mpath commit $commit."
	echo "Test summary: $(tail -1 "$OUTD/test.log")."
} >"$OUTD/about.txt"
/usr/bin/python3 "$TOP/scripts/compare-report.py" "$OUTD" "$OUTD" || die "the report generator failed"
# the rendered page, to look at (Debian's chromium, when installed)
if command -v chromium >/dev/null; then
	timeout 180 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1200,9000 \
		--screenshot="$OUTD/report-page.png" "file://$OUTD/report.html" >/dev/null 2>&1 ||
		log "chromium could not render the report (report-page.png missing)"
fi
log "report: $OUTD/report.html (and report.md), $(($(date +%s) - t0)) s"
[ $rc -eq 0 ] || log "some tests or the benchmark failed: the report shows which"
exit $rc
