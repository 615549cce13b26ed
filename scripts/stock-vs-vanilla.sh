#!/bin/bash
# scripts/stock-vs-vanilla.sh RESULTS_DIR: stock dm-multipath on Debian's
# unpatched kernel (RESULTS_DIR/vanilla-stock) against stock on the guest
# kernel, whose patches change blk-mq, dm-rq and dm core under it
# (RESULTS_DIR/guest-stock for the baseline, the stock half of the fault
# suite in RESULTS_DIR/guest-new).  Prints each scenario's verdict on both
# kernels and each fault scenario's result fields, and says where they
# differ: a verdict, or a field that is not a timing (*_ms, *_s, ios).
# Exit 0 when the comparison was made (differences are reported, not
# judged: the vanilla run's own verdicts judge it), 1 when there is no
# vanilla run to compare.
set -u
R=${1:?usage: stock-vs-vanilla.sh RESULTS_DIR}
V=$R/vanilla-stock
[ -f "$V/verdicts" ] || { echo "stock-vs-vanilla: no $V/verdicts (no vanilla run)"; exit 1; }
ndiff=0
verdicts() { awk '/^(PASS|FAIL|SKIP) /{print $2, $1}' "$1" 2>/dev/null; }
echo "stock on the guest kernel (patched) against stock on Debian's unpatched kernel (vanilla):"
for suite in baseline faults; do
	src=$R/guest-stock/verdicts
	[ $suite = faults ] && src=$R/guest-new/verdicts
	if [ ! -f "$src" ]; then
		echo "  $suite: no guest-kernel run in $src to compare with"
		continue
	fi
	while read -r name v; do
		case $name in "$suite"/*) ;; *) continue ;; esac
		p=$(verdicts "$src" | awk -v n="$name" '$1 == n {print $2}')
		mark=
		[ "$p" = "$v" ] || { mark="   <- DIFFERS"; ndiff=$((ndiff + 1)); }
		printf '  %-44s patched %-4s vanilla %-4s%s\n' "$name" "${p:--}" "$v" "$mark"
	done < <(verdicts "$V/verdicts")
done
# the fault suite's stock results, field by field
pf=$R/guest-new/faults/results.txt vf=$V/faults/results.txt
if [ -s "$pf" ] && [ -s "$vf" ]; then
	echo "fault suite, stock's result fields (patched | vanilla):"
	out=$(awk '
	FNR == 1 { k++ }
	$2 == "stock" { key = $1; $1 = $2 = ""; sub(/^ +/, ""); v[k, key] = $0; if (!(key in seen)) { seen[key] = 1; order[++n] = key } }
	function fields(s, a,   m, i, kv, f) {
		delete a; m = split(s, f, " ")
		for (i = 1; i <= m; i++) { split(f[i], kv, "="); a[kv[1]] = substr(f[i], length(kv[1]) + 2) }
	}
	END {
		for (i = 1; i <= n; i++) {
			key = order[i]; p = v[1, key]; q = v[2, key]; d = ""
			fields(p, A); fields(q, B)
			for (f in A) if (f !~ /(_ms|_s|^ios)$/ && A[f] != B[f]) d = d " " f
			for (f in B) if (f !~ /(_ms|_s|^ios)$/ && !(f in A)) d = d " " f
			printf "  %-32s | %s | %s%s\n", key, (p == "" ? "-" : p), (q == "" ? "-" : q), (d == "" ? "" : "   <- DIFFERS in" d)
			if (d != "") nd++
		}
		print "DIFFS " nd + 0
	}' "$pf" "$vf")
	echo "$out" | grep -v '^DIFFS '
	ndiff=$((ndiff + $(echo "$out" | sed -n 's/^DIFFS //p')))
fi
echo "stock-vs-vanilla: $ndiff difference(s) between stock on the patched and on the unpatched kernel"
exit 0
