#!/bin/bash
# DESCRIPTION: all paths down with queue_if_no_path: I/O waits, paths return, I/O completes and verifies
# REQUIRES: cmd:fio
. /opt/blk-mpath/tests/lib/common.sh
engine_load
mapfile -t P < <(lun_paths)
path_vars "${P[@]}"
dm_create mpnq "0 $N multipath 1 queue_if_no_path 0 1 1 round-robin 0 2 1 $A 1 $B 1" || fail "create"
dd if=/dev/mapper/mpnq of=/dev/null bs=4k count=16 iflag=direct status=none || fail "read"
run path_state "${P[0]}" offline
run path_state "${P[1]}" offline
fio --name=nq --filename=/dev/mapper/mpnq --rw=write --bs=64k --size=8M --ioengine=libaio --iodepth=4 \
	--direct=1 --verify=crc32c --verify_fatal=1 --output=/tmp/fio-nq.txt &
fio_pid=$!
sleep 8
kill -0 $fio_pid 2>/dev/null || { cat /tmp/fio-nq.txt; fail "fio finished although no path was usable"; }
st=$(dm_status mpnq); say "status while queueing: $st"
expect_eq "$(dm_path_states mpnq)" "FF" "both paths failed while offline"
run path_state "${P[0]}" running
run path_state "${P[1]}" running
run dmsetup message mpnq 0 reinstate_path "$A" || fail "reinstate A"
run dmsetup message mpnq 0 reinstate_path "$B" || fail "reinstate B"
for i in $(seq 60); do kill -0 $fio_pid 2>/dev/null || break; sleep 1; done
kill -0 $fio_pid 2>/dev/null && fail "queued I/O did not complete after the paths returned"
wait $fio_pid; rc=$?
grep -E 'err=|verify' /tmp/fio-nq.txt
[ $rc -eq 0 ] || { cat /tmp/fio-nq.txt; fail "fio exited $rc"; }
