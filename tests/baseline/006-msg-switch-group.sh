#!/bin/bash
# DESCRIPTION: switch_group moves I/O to the chosen group; status shows the active group
# REQUIRES: mod:scsi_debug
. /opt/blk-mpath/tests/lib/common.sh
engine_load
sdebug_setup
path_vars "${SD_PATHS[@]}"
dm_create mpw "0 $N multipath 0 0 2 1 round-robin 0 1 1 $A 1 round-robin 0 1 1 $B 1" || fail "create"
dd if=/dev/mapper/mpw of=/dev/null bs=4k count=16 iflag=direct status=none || fail "read"
expect_eq "$(dm_status mpw)" "2 0 0 0 2 1 A 0 1 0 $A A 0 E 0 1 0 $B A 0 " "pg 1 active"
ev=$(dm_events mpw)
run dmsetup message mpw 0 switch_group 2 || fail "switch_group 2"
expect_eq "$(dm_status mpw)" "2 0 0 0 2 2 E 0 1 0 $A A 0 E 0 1 0 $B A 0 " "next group 2 announced, no current group"
r0=$(awk '{print $1}' /sys/block/${SD_PATHS[1]}/stat)
dd if=/dev/mapper/mpw of=/dev/null bs=4k count=64 iflag=direct status=none || fail "read after switch"
r1=$(awk '{print $1}' /sys/block/${SD_PATHS[1]}/stat)
[ $((r1 - r0)) -ge 64 ] || fail "reads did not go to group 2's path (${SD_PATHS[1]}: $((r1 - r0)) reads)"
expect_eq "$(dm_status mpw)" "2 0 0 0 2 2 E 0 1 0 $A A 0 A 0 1 0 $B A 0 " "pg 2 active after I/O"
dm_wait_event_change mpw "$ev" || fail "event counter did not move on switch_group"
run dmsetup message mpw 0 switch_group 1 || fail "switch_group 1"
dd if=/dev/mapper/mpw of=/dev/null bs=4k count=16 iflag=direct status=none || fail "read"
expect_eq "$(dm_status mpw)" "2 0 0 0 2 1 A 0 1 0 $A A 0 E 0 1 0 $B A 0 " "back on pg 1"
