#!/bin/bash
# DESCRIPTION: queue_if_no_path / fail_if_no_path messages change the table features and raise events
# REQUIRES: mod:scsi_debug
. /opt/blk-mpath/tests/lib/common.sh
engine_load
sdebug_setup
path_vars "${SD_PATHS[@]}"
dm_create mpqq "0 $N multipath 0 0 1 1 round-robin 0 2 1 $A 1 $B 1" || fail "create"
expect_eq "$(dm_table mpqq)" "0 0 1 1 round-robin 0 2 1 $A 1 $B 1 " "no features"
run dmsetup message mpqq 0 queue_if_no_path || fail "queue_if_no_path"
expect_eq "$(dm_table mpqq)" "1 queue_if_no_path 0 1 1 round-robin 0 2 1 $A 1 $B 1 " "queue_if_no_path on"
run dmsetup message mpqq 0 fail_if_no_path || fail "fail_if_no_path"
expect_eq "$(dm_table mpqq)" "0 0 1 1 round-robin 0 2 1 $A 1 $B 1 " "queue_if_no_path off"
# queueing really on: with every path failed, I/O waits instead of failing
run dmsetup message mpqq 0 queue_if_no_path
run dmsetup message mpqq 0 fail_path "$A"
run dmsetup message mpqq 0 fail_path "$B"
dd if=/dev/mapper/mpqq of=/dev/null bs=4k count=1 iflag=direct status=none &
pid=$!
sleep 3
kill -0 $pid 2>/dev/null || fail "I/O did not wait with queue_if_no_path and no path"
expect_eq "$(dm_status mpqq | cut -d' ' -f1-3)" "2 0 0" "status features while queueing"
run dmsetup message mpqq 0 fail_if_no_path
for i in $(seq 50); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
kill -0 $pid 2>/dev/null && fail "queued read still waiting after fail_if_no_path"
wait $pid && fail "queued read succeeded with no path"
say "queued read failed after fail_if_no_path"
