#!/bin/bash
# DESCRIPTION: engine KUnit suites (selectors, path/group state machine, error classification, queue_mode bio) all pass
# REQUIRES: mod:blk-mpath-test
. /opt/blk-mpath/tests/lib/common.sh
mountpoint -q /sys/kernel/debug || mount -t debugfs debugfs /sys/kernel/debug
lsmod | grep -q '^blk_mpath_test ' && modprobe -r blk-mpath-test
lsmod | grep -q '^blk_mpath_bio_test ' && modprobe -r blk-mpath-bio-test
run modprobe blk-mpath-test || fail "modprobe blk-mpath-test failed"
# queue_mode bio: a module of its own
bio_suite=0
if modinfo blk-mpath-bio-test >/dev/null 2>&1; then
	run modprobe blk-mpath-bio-test || fail "modprobe blk-mpath-bio-test failed"
	bio_suite=1
fi
suites=$(ls /sys/kernel/debug/kunit 2>/dev/null | grep '^blk-mpath' || true)
[ -n "$suites" ] || fail "no blk-mpath KUnit suite registered"
bad=0 total=0
for s in $suites; do
	r=/sys/kernel/debug/kunit/$s/results
	cat "$r"
	n=$(grep -cE '^ +ok [0-9]+ ' "$r" || true)
	nk=$(grep -cE '^ +not ok [0-9]+ ' "$r" || true)
	total=$((total + n + nk))
	grep -qE '^(# )?(ok|not ok) [0-9]+ ' "$r" || { echo "suite $s: no verdict"; bad=1; }
	grep -qE '^not ok [0-9]+ ' "$r" && { echo "suite $s FAILED"; bad=1; }
	[ "$nk" -eq 0 ] || bad=1
	say "suite $s: $n ok, $nk not ok"
done
dmesg | grep -E '# (blk-mpath[^:]*): pass:' | tail -20
[ $bio_suite = 0 ] || echo "$suites" | grep -qx blk-mpath-bio || fail "the blk-mpath-bio suite did not register"
run modprobe -r blk-mpath-test
[ $bio_suite = 0 ] || run modprobe -r blk-mpath-bio-test
[ $total -gt 0 ] || fail "no test cases ran"
[ $bad -eq 0 ] || fail "KUnit failures"
