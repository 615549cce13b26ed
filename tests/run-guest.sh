#!/bin/bash
# Guest-side test runner (started by blkmpath-test.service at boot).
# Reads blkmpath.mode / blkmpath.engine / blkmpath.tests from the kernel
# command line, runs every selected scenario (one file each), prints one
# verdict line per scenario and closes with "N passed, N failed, N skipped".
# Results go to /results and, as a tar, to the results disk (/dev/vdb).
TESTS_DIR=/opt/blk-mpath/tests
RES=/results
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

arg() { tr ' ' '\n' </proc/cmdline | sed -n "s/^blkmpath\.$1=//p" | tail -1; }
MODE=$(arg mode) ENGINE=$(arg engine) SEL=$(arg tests)
export ENGINE=${ENGINE:-stock}
TEST_TIMEOUT=$(arg timeout); TEST_TIMEOUT=${TEST_TIMEOUT:-600}
# quick (make test) or full (make test-full): a scenario marked "# TIER: full"
# runs only in the full tier; "# TIER: quick" ones only in make test (their
# full-tier counterpart replaces them)
TIER=$(arg tier); export TIER=${TIER:-quick}
TSCALE=$(arg tscale); export TSCALE=${TSCALE:-1}
# the kernel booted: guest (patched), debug, or vanilla (Debian's unpatched
# kernel: stock only); a scenario whose stock behaviour our dm patches
# change says what differs on vanilla
KVARIANT=$(arg kernel); export KVARIANT=${KVARIANT:-guest}
# the engines a fault scenario runs on (default: stock and blk-mpath)
FE=$(arg fault_engines); [ -n "$FE" ] && export FAULT_ENGINES=${FE//,/ }

finish() {
	sync
	tar -C "$RES" -cf /dev/vdb . 2>/dev/null
	sync
	echo "blk-mpath guest: powering off"
	systemctl poweroff -f -f
	sleep 30
	echo o >/proc/sysrq-trigger
}

mkdir -p "$RES"
mountpoint -q /sys/kernel/debug || mount -t debugfs debugfs /sys/kernel/debug
# Scenarios that switch trace events on and off (faults/040, 060) would
# also switch ftrace's comm recording, a probe on sched_switch/sched_wakeup:
# their jump labels in __schedule() are rewritten while every CPU runs
# them, and QEMU TCG has let a vCPU execute the transient int3 after
# text_poke_bp() had finished (an "int3" oops in __schedule).  The traces
# need no comms.
echo 0 >/sys/kernel/debug/tracing/options/record-cmd 2>/dev/null
. "$TESTS_DIR/lib/common.sh"
engine_select "$ENGINE"
echo "blk-mpath guest: kernel $(uname -r), engine=$ENGINE, mode=$MODE, tier=$TIER, tests=$SEL"

if [ "$MODE" = demo ] || [ "$MODE" = bench ] || [ "$MODE" = profile ]; then
	bash "$TESTS_DIR/$MODE.sh" 2>&1 | tee "$RES/$MODE.log"
	dmesg >"$RES/dmesg.txt"
	finish
	exit 0
fi

# Expand the selection: "baseline", "engine,target", "baseline/011-failover".
files=()
in_tier() { # FILE: does it belong to this tier?
	local t
	t=$(sed -n 's/^# TIER: //p' "$1" | head -1)
	[ -z "$t" ] || [ "$t" = "$TIER" ]
}
# for_engine FILE: is it for this boot's engine?  ("# REQUIRES: engine:X";
# a scenario for the other engine is not run, and not counted, as one of
# another tier; tests/expected.txt counts what runs)
for_engine() {
	local e
	e=$(sed -n 's/^# REQUIRES: .*engine:\([a-z]*\).*/\1/p' "$1" | head -1)
	[ -z "$e" ] || [ "$e" = "$ENGINE" ]
}
IFS=, read -ra parts <<<"${SEL:-baseline}"
for p in "${parts[@]}"; do
	if [ -d "$TESTS_DIR/$p" ]; then
		for f in "$TESTS_DIR/$p"/[0-9]*.sh; do [ -e "$f" ] && in_tier "$f" && for_engine "$f" && files+=("$f"); done
	else
		# a scenario named explicitly runs whatever its tier
		for f in "$TESTS_DIR"/$p*.sh; do [ -e "$f" ] && files+=("$f"); done
	fi
done
[ ${#files[@]} -gt 0 ] || echo "blk-mpath guest: no test matches '$SEL'"

pass=0 fail=0 skipped=0
: >"$RES/verdicts"
for f in "${files[@]}"; do
	name=${f#"$TESTS_DIR"/}; name=${name%.sh}
	desc=$(sed -n 's/^# DESCRIPTION: //p' "$f" | head -1)
	mkdir -p "$RES/$(dirname "$name")"
	log=$RES/$name.log
	why=$(requires_missing "$f")
	if [ -n "$why" ]; then
		echo "SKIP $name - $desc ($why)" | tee -a "$RES/verdicts"
		skipped=$((skipped + 1)); continue
	fi
	echo "blkmpath-test: start $name" >/dev/kmsg
	dmesg_mark=$(dmesg | wc -l)
	t0=$(date +%s)
	tmo=$(sed -n 's/^# TIMEOUT: //p' "$f" | head -1)
	tmo=$((${tmo:-$TEST_TIMEOUT} * TSCALE))
	timeout -k 10 "$tmo" bash "$f" >"$log" 2>&1
	rc=$?
	dt=$(($(date +%s) - t0))
	dmesg | tail -n +"$((dmesg_mark + 1))" >"$log.dmesg"
	if kernel_problems <"$log.dmesg" >"$log.kproblems"; then
		echo "kernel reported problems during the test:" >>"$log"
		cat "$log.kproblems" >>"$log"
		rc=1
	fi
	[ $rc -eq 124 ] && echo "TIMEOUT after ${tmo}s" >>"$log"
	case $rc in
	0) v=PASS; pass=$((pass + 1)) ;;
	77) v=SKIP; skipped=$((skipped + 1)) ;;
	*) v=FAIL; fail=$((fail + 1)) ;;
	esac
	echo "$v $name - $desc (${dt}s)" | tee -a "$RES/verdicts"
	if [ $v = FAIL ]; then
		sed 's/^/    | /' "$log" | tail -40
	elif [ $v = SKIP ]; then
		tail -1 "$log" | sed 's/^/    | /'
	fi
	test_cleanup >>"$RES/cleanup.log" 2>&1
done
# Debug kernel: a kmemleak scan after all scenarios; leaks whose backtrace
# goes through blk-mpath or the multipath target fail the run.
if [ -w /sys/kernel/debug/kmemleak ] && [ ${#files[@]} -gt 0 ]; then
	echo scan >/sys/kernel/debug/kmemleak; sleep 5; echo scan >/sys/kernel/debug/kmemleak
	cat /sys/kernel/debug/kmemleak >"$RES/kmemleak.txt"
	total=$(grep -c '^unreferenced object' "$RES/kmemleak.txt")
	ours=$(grep -cE "blk_mpath|dm_blk_mpath|multipath_" "$RES/kmemleak.txt")
	if [ "$ours" -gt 0 ]; then
		echo "FAIL debug/kmemleak - kmemleak: $total unreferenced objects, $ours backtrace lines in blk-mpath/multipath" | tee -a "$RES/verdicts"
		grep -B12 -A2 -E 'blk_mpath|dm_blk_mpath|multipath_' "$RES/kmemleak.txt" | head -60 | sed 's/^/    | /'
		fail=$((fail + 1))
	else
		echo "PASS debug/kmemleak - kmemleak scan: $total unreferenced objects, none through blk-mpath or the multipath target" | tee -a "$RES/verdicts"
		pass=$((pass + 1))
	fi
fi
dmesg >"$RES/dmesg.txt"
summary="$pass passed, $fail failed, $skipped skipped"
echo "$summary" >"$RES/summary"
echo "$summary"
finish
