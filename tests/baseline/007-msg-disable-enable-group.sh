#!/bin/bash
# DESCRIPTION: disable_group bypasses a group (state D), I/O moves on; enable_group restores it
# REQUIRES: mod:scsi_debug
. /opt/blk-mpath/tests/lib/common.sh
engine_load
sdebug_setup
path_vars "${SD_PATHS[@]}"
dm_create mpd "0 $N multipath 0 0 2 1 round-robin 0 1 1 $A 1 round-robin 0 1 1 $B 1" || fail "create"
dd if=/dev/mapper/mpd of=/dev/null bs=4k count=16 iflag=direct status=none || fail "read"
ev=$(dm_events mpd)
run dmsetup message mpd 0 disable_group 1 || fail "disable_group 1"
dm_wait_event_change mpd "$ev" || fail "event counter did not move on disable_group"
r0=$(awk '{print $1}' /sys/block/${SD_PATHS[1]}/stat)
dd if=/dev/mapper/mpd of=/dev/null bs=4k count=64 iflag=direct status=none || fail "read after disable"
r1=$(awk '{print $1}' /sys/block/${SD_PATHS[1]}/stat)
[ $((r1 - r0)) -ge 64 ] || fail "I/O did not move to group 2"
expect_eq "$(dm_status mpd)" "2 0 0 0 2 2 D 0 1 0 $A A 0 A 0 1 0 $B A 0 " "group 1 disabled, group 2 active"
ev=$(dm_events mpd)
run dmsetup message mpd 0 enable_group 1 || fail "enable_group 1"
dm_wait_event_change mpd "$ev" || fail "event counter did not move on enable_group"
expect_match "$(dm_status mpd)" "^2 0 0 0 2 [12] E 0 1 0 $A A 0 [AE] 0 1 0 $B A 0 \$" "group 1 enabled again"
