#!/bin/bash
# DESCRIPTION: all paths down, queued I/O fails promptly once fail_if_no_path is sent
# REQUIRES: cmd:fio
. /opt/blk-mpath/tests/lib/common.sh
engine_load
mapfile -t P < <(lun_paths)
path_vars "${P[@]}"
dm_create mpnf "0 $N multipath 1 queue_if_no_path 0 1 1 round-robin 0 2 1 $A 1 $B 1" || fail "create"
dd if=/dev/mapper/mpnf of=/dev/null bs=4k count=16 iflag=direct status=none || fail "read"
run dmsetup message mpnf 0 fail_path "$A"
run dmsetup message mpnf 0 fail_path "$B"
dd if=/dev/zero of=/dev/mapper/mpnf bs=64k count=16 oflag=direct status=none 2>/tmp/dd-nf.err &
dd_pid=$!
sleep 5
kill -0 $dd_pid 2>/dev/null || fail "I/O did not wait with queue_if_no_path"
t0=$(date +%s%N)
run dmsetup message mpnf 0 fail_if_no_path || fail "fail_if_no_path"
for i in $(seq 100); do kill -0 $dd_pid 2>/dev/null || break; sleep 0.1; done
kill -0 $dd_pid 2>/dev/null && fail "queued I/O still waiting 10 s after fail_if_no_path"
wait $dd_pid && fail "queued I/O succeeded with no path"
say "queued I/O failed $(( ($(date +%s%N) - t0) / 1000000 )) ms after fail_if_no_path: $(cat /tmp/dd-nf.err)"
dd if=/dev/mapper/mpnf of=/dev/null bs=4k count=1 iflag=direct status=none 2>/dev/null && fail "new I/O succeeded with no path"
run dmsetup message mpnf 0 reinstate_path "$A"
dd if=/dev/mapper/mpnf of=/dev/null bs=4k count=16 iflag=direct status=none || fail "I/O after reinstate"
