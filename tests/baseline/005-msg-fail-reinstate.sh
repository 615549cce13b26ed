#!/bin/bash
# DESCRIPTION: fail_path / reinstate_path messages: path state, fail count and dm event counter
# REQUIRES: mod:scsi_debug
. /opt/blk-mpath/tests/lib/common.sh
engine_load
sdebug_setup
path_vars "${SD_PATHS[@]}"
dm_create mpm "0 $N multipath 0 0 1 1 round-robin 0 2 1 $A 1 $B 1" || fail "create"
dd if=/dev/mapper/mpm of=/dev/null bs=4k count=16 iflag=direct status=none || fail "read"
ev=$(dm_events mpm)
run dmsetup message mpm 0 fail_path "$B" || fail "fail_path"
dm_wait_event_change mpm "$ev" || fail "event counter did not move on fail_path"
expect_eq "$(dm_status mpm)" "2 0 0 0 1 1 A 0 2 0 $A A 0 $B F 1 " "status after fail_path"
dd if=/dev/mapper/mpm of=/dev/null bs=4k count=64 iflag=direct status=none || fail "I/O on the remaining path"
ev=$(dm_events mpm)
run dmsetup message mpm 0 reinstate_path "$B" || fail "reinstate_path"
dm_wait_event_change mpm "$ev" || fail "event counter did not move on reinstate_path"
expect_eq "$(dm_status mpm)" "2 0 0 0 1 1 A 0 2 0 $A A 0 $B A 1 " "status after reinstate_path"
run dmsetup message mpm 0 fail_path "$A" || fail "fail_path A"
run dmsetup message mpm 0 fail_path "$B" || fail "fail_path B"
expect_eq "$(dm_status mpm)" "2 0 0 0 1 1 E 0 2 0 $A F 1 $B F 2 " "status with all paths failed (no current group)"
run dmsetup message mpm 0 reinstate_path "$A" || fail "reinstate A"
run dmsetup message mpm 0 reinstate_path "$B" || fail "reinstate B"
dd if=/dev/mapper/mpm of=/dev/null bs=4k count=16 iflag=direct status=none || fail "read after reinstating all"
