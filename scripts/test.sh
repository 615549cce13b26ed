#!/bin/bash
# make test: build what is missing, boot the guest once per engine, run the
# selected scenarios, print per-run and total summaries; non-zero on failure.
#   ENGINE=stock|new|both (default both)  T=suites (default: all suites)
#   KVARIANT=guest|debug|vanilla (default guest).  vanilla: Debian's
#   unpatched kernel (kernel/build.sh vanilla, the same config without the
#   engine), ENGINE=stock only: the baseline and the stock half of the
#   fault suite on a kernel none of our patches touched; when the guest
#   kernel's results are there, the run says where they differ.
. "$(dirname "$0")/lib.sh"
KVARIANT=${KVARIANT:-guest}
case $KVARIANT in
guest | debug) ENGINE=${ENGINE:-both} ;;
vanilla)
	ENGINE=${ENGINE:-stock}
	[ "$ENGINE" = stock ] || die "KVARIANT=vanilla has no blk-mpath: ENGINE=stock only"
	GUEST_APPEND="blkmpath.fault_engines=stock ${GUEST_APPEND:-}" ;;
*) die "KVARIANT=$KVARIANT: guest, debug or vanilla" ;;
esac
# quick: make test; full: make test-full (the whole fault matrix, ...)
TIER=${TIER:-quick}
# per-scenario time limits are multiplied by this (the debug kernel is slow)
TSCALE=${TSCALE:-1}
[ "$KVARIANT" = debug ] && [ "$TSCALE" = 1 ] && TSCALE=4
# the hard limit of one guest boot (a hang is killed then, console shown)
if [ -z "${TIMEOUT:-}" ]; then
	TIMEOUT=3900
	[ "$TIER" = quick ] || TIMEOUT=10800
	TIMEOUT=$((TIMEOUT * (TSCALE > 1 ? 3 : 1)))
fi
export TIMEOUT
# the hung-task detector's limit (seconds; x TSCALE)
HUNG_TASK_SECS=${HUNG_TASK_SECS:-60}
t0=$(date +%s)
log "blk-mpath test: engine=$ENGINE tests=${T:-default} tier=$TIER kernel=$KVARIANT cache=$CACHE"
need_pkgs qemu-system-x86 qemu-utils debootstrap rsync e2fsprogs gcc make libdevmapper-dev
# the guest root (debootstrap: mostly waiting on the archive and dpkg) is
# built beside the kernel; its progress lines go to stderr as usual
"$TOP/images/build-rootfs.sh" >/dev/null &
rootfs_pid=$!
OUT=$("$TOP/kernel/build.sh" "$KVARIANT" | tail -1) || die "kernel build failed"
wait $rootfs_pid || die "guest root build failed (see the lines above)"
[ -d "$OUT" ] || die "kernel build gave no output directory"
make -s -C "$TOP/userspace" >"$CACHE/userspace-build.log" 2>&1 || { cat "$CACHE/userspace-build.log"; die "userspace tools failed to build"; }
# the kernel series (make series) must still come out of kernel/ and apply
# to the pristine source (a few seconds)
if [ "$KVARIANT" != vanilla ]; then
	OUTDIR=$CACHE/series "$TOP/kernel/mkseries.sh" >"$CACHE/series.log" 2>&1 ||
		{ tail -5 "$CACHE/series.log"; die "make series failed: the patch series does not apply (log: $CACHE/series.log)"; }
	log "make series: $(ls "$CACHE/series" | wc -l) patches apply to linux-source-6.1"
fi
log "build stage done after $(($(date +%s) - t0)) s"

case $ENGINE in
both) engines=(stock new) ;;
stock|new) engines=("$ENGINE") ;;
*) die "ENGINE must be stock, new or both" ;;
esac
# expected_count SUITE ENGINE: the scenarios tests/expected.txt says the
# suite runs on ENGINE in this tier (0 when no line matches)
expected_count() {
	awk -v s="$1" -v e="$2" -v t="$TIER" '!/^#/ && NF >= 4 && $1 == s &&
		($2 == "*" || $2 == e) && ($3 == "*" || $3 == t) {n = $4; f = 1; exit}
		END {print f ? n : 0}' "$TOP/tests/expected.txt"
}
# check_expected ENGINE SELECTION VERDICTS: per suite selected in whole,
# expected against what ran; any SKIP fails.  Prints a line per suite and
# one per unexpected SKIP; returns 1 on any mismatch.
check_expected() {
	local e=$1 sel=$2 vf=$3 bad=0 p suite want ran np nf ns
	IFS=, read -ra parts <<<"$sel"
	for p in "${parts[@]}"; do
		[ -d "$TOP/tests/$p" ] || continue
		suite=$p
		want=$(expected_count "$suite" "$e")
		np=$(grep -cE "^PASS $suite/" "$vf" 2>/dev/null)
		nf=$(grep -cE "^FAIL $suite/" "$vf" 2>/dev/null)
		ns=$(grep -cE "^SKIP $suite/" "$vf" 2>/dev/null)
		ran=$((np + nf))
		if [ "$ran" -eq "$want" ] && [ "$ns" -eq 0 ]; then
			echo "[$e] suite $suite ($TIER tier): expected $want, ran $ran ($np passed, $nf failed, $ns skipped)"
		else
			echo "[$e] suite $suite ($TIER tier): expected $want, ran $ran ($np passed, $nf failed, $ns skipped): MISMATCH (tests/expected.txt)"
			bad=1
		fi
	done
	while read -r line; do
		echo "[$e] unexpected $line"; bad=1
	done < <(grep -E '^SKIP ' "$vf" 2>/dev/null)
	return $bad
}
P=0 F=0 S=0 rc=0 lines=() expect_lines=()
# The host fault agent's own test (QEMU without a guest kernel, ~30 s): the
# fault suite's injections are only as good as the agent.  In every run of
# the default selection (make test, test-full), and with HOSTCTL_SELFTEST=1.
if [ -z "${T:-}" ] || [ "${HOSTCTL_SELFTEST:-0}" = 1 ]; then
	log "host: scripts/hostctl-selftest.sh (the fault agent, QEMU without a guest; ~30 s)"
	if "$TOP/scripts/hostctl-selftest.sh" >"$CACHE/hostctl-selftest.log" 2>&1; then
		hs="PASS host/hostctl-selftest - $(tail -1 "$CACHE/hostctl-selftest.log")"; P=$((P + 1))
	else
		grep -E '^FAIL' "$CACHE/hostctl-selftest.log"; tail -5 "$CACHE/hostctl-selftest.log"
		hs="FAIL host/hostctl-selftest - $(tail -1 "$CACHE/hostctl-selftest.log") (log: $CACHE/hostctl-selftest.log)"
		F=$((F + 1)) rc=1
	fi
	echo "$hs"; lines+=("host: $hs")
fi
for e in "${engines[@]}"; do
	sel=${T:-}
	if [ -z "$sel" ]; then
		sel=baseline
		# the fault suite runs stock and blk-mpath side by side in the
		# blk-mpath boot (tests/lib/faults.sh); on the vanilla kernel its
		# stock half alone
		[ "$e" = new ] && for s in engine target faults; do [ -d "$TOP/tests/$s" ] && sel="$sel,$s"; done
		[ "$KVARIANT" = vanilla ] && sel="$sel,faults"
	fi
	W=$CACHE/run-$KVARIANT-$e${RUN_TAG:+-$RUN_TAG}
	# The debug kernel boots with 4-level paging: with 5-level paging (QEMU's
	# -cpu max offers LA57) its KASAN reported a wild-memory-access in
	# do_raw_spin_lock() from handle_edge_irq() during identify_boot_cpu(),
	# 1.9 s into the boot, before any block or dm code runs; the same boot
	# with no5lvl was clean (2026-12-04, one boot each).
	# And without ACPI IRQ routing (acpi=noirq): the debug kernel's AML
	# interpreter ran the _PRT method of QEMU's i440fx into its 30 s loop
	# timeout for each of the 4 virtio PCI devices (2 min per boot) and
	# then found no GSI anyway; the virtio devices interrupt by MSI-X.
	# acpi=noirq also skips the MADT's IO-APIC entries, so the debug boot
	# sets its interrupts up from the MP table: an interrupt setup that
	# differs from the guest kernel's boots (the block and dm code under
	# test does not depend on it).
	dbg=; [ "$KVARIANT" = debug ] && dbg="no5lvl acpi=noirq"
	# A task in D state longer than this is reported ("INFO: task ...
	# blocked for more than"), which fails the run (images/run-guest.sh);
	# scaled like the scenarios' time limits.
	hung="sysctl.kernel.hung_task_timeout_secs=$((HUNG_TASK_SECS * TSCALE))"
	MODE=test ENGINE=$e T=$sel GUEST_APPEND="blkmpath.tier=$TIER blkmpath.tscale=$TSCALE blkmpath.kernel=$KVARIANT $hung $dbg ${GUEST_APPEND:-}" \
		"$TOP/images/run-guest.sh" "$OUT" "$W" || rc=1
	s=$(cat "$W/summary" 2>/dev/null)
	if [ -n "$s" ]; then
		read -r p _ f _ sk _ <<<"$(echo "$s" | tr -d ,)"
		P=$((P + p)) F=$((F + f)) S=$((S + ${sk:-0}))
	else
		F=$((F + 1))
	fi
	grep -E '^(PASS|FAIL|SKIP) ' "$W/results/verdicts" 2>/dev/null | sed "s/^/[$e] /"
	# show why each failed scenario failed, so a CI log alone explains a red run
	grep -E '^FAIL ' "$W/results/verdicts" 2>/dev/null | awk '{print $2}' | while read -r t; do
		[ -f "$W/results/$t.log" ] || continue
		echo "[$e] --- last lines of $t.log ---"
		tail -30 "$W/results/$t.log" | sed "s/^/[$e]   | /"
	done
	# what ran against tests/expected.txt (no check when the guest gave no verdicts)
	if [ -f "$W/results/verdicts" ]; then
		mapfile -t el < <(check_expected "$e" "$sel" "$W/results/verdicts"; echo "rc=$?")
		[ "${el[-1]}" = rc=0 ] || { rc=1; F=$((F + 1)); }
		unset 'el[-1]'
		printf '%s\n' "${el[@]}"
		expect_lines+=("${el[@]}")
	fi
	lines+=("$e: ${s:-guest run failed (see $W/console.log)}")
	mkdir -p "$TOP/results"; rm -rf "$TOP/results/$KVARIANT-$e${RUN_TAG:+-$RUN_TAG}"
	cp -r "$W/results" "$TOP/results/$KVARIANT-$e${RUN_TAG:+-$RUN_TAG}" 2>/dev/null; cp "$W/console.log" "$W/hostctl.log" "$TOP/results/$KVARIANT-$e${RUN_TAG:+-$RUN_TAG}/" 2>/dev/null
done
# the fault suite's side-by-side table (tests/lib/faults.sh fault_result)
for e in "${engines[@]}"; do
	ft=$TOP/results/$KVARIANT-$e${RUN_TAG:+-$RUN_TAG}/faults/results.txt
	[ -s "$ft" ] || continue
	echo "fault suite (both engines in the $e boot): scenario | stock | blk-mpath"
	awk '{k = $1; e = $2; $1 = $2 = ""; sub(/^ +/, ""); v[k, e] = $0; if (!(k in seen)) { seen[k] = 1; order[++n] = k } }
		END { for (i = 1; i <= n; i++) { k = order[i]; printf "  %-32s | %s | %s\n", k, v[k, "stock"], v[k, "new"] } }' "$ft"
done
# the reason of each failure once more, last, where a CI view that shows only
# the end of the log still has it: the scenario's FAIL: lines (or its last line)
for e in "${engines[@]}"; do
	d=$TOP/results/$KVARIANT-$e${RUN_TAG:+-$RUN_TAG}
	[ -f "$d/verdicts" ] || { echo "[$e] no verdicts: the guest crashed or hit its time limit (see $d/console.log)"; continue; }
	grep -E '^FAIL ' "$d/verdicts" | awk '{print $2}' | while read -r t; do
		if [ "$t" = debug/kmemleak ]; then why="see $d/kmemleak.txt"
		else
			why=$(grep -h -E '^(FAIL|mismatch|  expected|  actual)' "$d/$t.log" 2>/dev/null | tail -4)
			[ -n "$why" ] || why=$(tail -1 "$d/$t.log" 2>/dev/null)
		fi
		echo "FAIL $t: ${why:-no log (see $d/console.log)}" | sed "s/^/[$e] /"
	done
done
# stock on the unpatched kernel against stock on the guest kernel
if [ "$KVARIANT" = vanilla ]; then
	"$TOP/scripts/stock-vs-vanilla.sh" "$TOP/results" || { rc=1; F=$((F + 1)); }
fi
[ ${#expect_lines[@]} -gt 0 ] && printf '%s\n' "${expect_lines[@]}"
log "total time $(($(date +%s) - t0)) s; logs in $TOP/results/"
for l in "${lines[@]}"; do echo "$l"; done
[ $rc -ne 0 ] && [ $F -eq 0 ] && F=1
echo "$P passed, $F failed, $S skipped"
[ $rc -eq 0 ] && [ $F -eq 0 ]
