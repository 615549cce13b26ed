#!/bin/bash
# DESCRIPTION: blk-mpath-stat shows per-path I/O counters that move; blk-mpath-migrate-check judges live maps
# REQUIRES: cmd:blk-mpath-stat cmd:blk-mpath-migrate-check mod:scsi_debug
. /opt/blk-mpath/tests/lib/common.sh
engine_load
sdebug_setup
path_vars "${SD_PATHS[@]}"
dm_create mpu "0 $N multipath 1 queue_if_no_path 0 1 1 round-robin 0 2 1 $A 1 $B 1" || fail "create"
dd if=/dev/mapper/mpu of=/dev/null bs=4k count=200 iflag=direct status=none || fail "read"
run blk-mpath-stat mpu | tee /tmp/st1 || fail "blk-mpath-stat"
ios1=$(awk -v p="$A" '$2 == p {print $6}' /tmp/st1)
[ -n "$ios1" ] || fail "no line for path $A"
dd if=/dev/mapper/mpu of=/dev/null bs=4k count=400 iflag=direct status=none || fail "read 2"
blk-mpath-stat mpu >/tmp/st2
tot1=$(awk 'NR > 1 {s += $6} END {print s}' /tmp/st1) tot2=$(awk 'NR > 1 {s += $6} END {print s}' /tmp/st2)
[ $((tot2 - tot1)) -ge 400 ] || fail "I/O counters moved by $((tot2 - tot1)), expected >= 400"
say "ios: $tot1 -> $tot2"
run blk-mpath-migrate-check || fail "migrate-check says a request-based map cannot move"
blk-mpath-migrate-check | grep -q '^mpu: can move' || fail "mpu not judged movable"
