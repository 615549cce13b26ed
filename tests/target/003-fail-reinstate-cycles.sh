#!/bin/bash
# DESCRIPTION: fio randwrite verify=crc32c through 120 fail/reinstate cycles of one path (messages and sysfs offline/running): 0 errors
# REQUIRES: cmd:fio
# TIER: full
. /opt/blk-mpath/tests/lib/common.sh
engine_load
mapfile -t P < <(lun_paths)
path_vars "${P[@]}"
dm_create mpc "0 $N multipath 0 0 1 1 round-robin 0 2 1 $A 1 $B 1" || fail "create"
fio --name=cyc --filename=/dev/mapper/mpc --rw=randwrite --bs=4k --size=64M --ioengine=libaio --iodepth=16 \
	--direct=1 --verify=crc32c --verify_backlog=256 --verify_fatal=1 --time_based --runtime=600 \
	--output=/tmp/fio-cyc.txt &
fio_pid=$!
sleep 2
cycles=0
for i in $(seq 60); do
	dmsetup message mpc 0 fail_path "$B" || fail "fail_path cycle $i"
	sleep 0.2
	dmsetup message mpc 0 reinstate_path "$B" || fail "reinstate_path cycle $i"
	sleep 0.2
	cycles=$((cycles + 1))
	kill -0 $fio_pid 2>/dev/null || break
done
say "$cycles message cycles"
for i in $(seq 60); do
	path_state "${P[1]}" offline
	for j in $(seq 50); do [ "$(dm_path_states mpc)" = AF ] && break; sleep 0.1; done
	path_state "${P[1]}" running
	if [ "$(dm_path_states mpc)" = AF ]; then
		dmsetup message mpc 0 reinstate_path "$B" || fail "reinstate after offline, cycle $i"
	fi
	sleep 0.2
	cycles=$((cycles + 1))
	kill -0 $fio_pid 2>/dev/null || break
done
say "$cycles cycles in total"
kill -0 $fio_pid 2>/dev/null || { cat /tmp/fio-cyc.txt; fail "fio stopped early"; }
kill -INT $fio_pid
wait $fio_pid; rc=$?
grep -E 'err=|IOPS' /tmp/fio-cyc.txt
grep -q 'err= 0' /tmp/fio-cyc.txt || { cat /tmp/fio-cyc.txt; fail "fio reported errors (rc $rc)"; }
grep -qiE 'verify.*(fail|bad)|crc32c.*wanted' /tmp/fio-cyc.txt && fail "verify errors"
[ $cycles -ge 100 ] || fail "only $cycles cycles"
expect_eq "$(dm_path_states mpc)" "AA" "both paths active at the end"
