#!/bin/bash
# DESCRIPTION: queue_if_no_path / fail_if_no_path messages change the table features and raise events
# REQUIRES: mod:scsi_debug
. /opt/blk-mpath/tests/lib/common.sh
engine_load
sdebug_setup
A=$(mm "${SD_PATHS[0]}") B=$(mm "${SD_PATHS[1]}") N=$(sectors "/dev/${SD_PATHS[0]}")
dm_create mpqq "0 $N multipath 0 0 1 1 round-robin 0 2 1 $A 1 $B 1" || fail "create"
expect_eq "$(dm_table mpqq)" "0 0 1 1 round-robin 0 2 1 $A 1 $B 1 " "no features"
ev=$(dm_events mpqq)
run dmsetup message mpqq 0 queue_if_no_path || fail "queue_if_no_path"
dm_wait_event_change mpqq "$ev" || fail "event counter did not move on queue_if_no_path"
expect_eq "$(dm_table mpqq)" "1 queue_if_no_path 0 1 1 round-robin 0 2 1 $A 1 $B 1 " "queue_if_no_path on"
ev=$(dm_events mpqq)
run dmsetup message mpqq 0 fail_if_no_path || fail "fail_if_no_path"
dm_wait_event_change mpqq "$ev" || fail "event counter did not move on fail_if_no_path"
expect_eq "$(dm_table mpqq)" "0 0 1 1 round-robin 0 2 1 $A 1 $B 1 " "queue_if_no_path off"
