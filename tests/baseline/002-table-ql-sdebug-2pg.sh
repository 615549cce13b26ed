#!/bin/bash
# DESCRIPTION: queue-length, two path groups on scsi_debug: table/status echo, failback order
# REQUIRES: mod:scsi_debug
. /opt/blk-mpath/tests/lib/common.sh
engine_load
sdebug_setup
path_vars "${SD_PATHS[@]}"
dm_create mpq "0 $N multipath 0 0 2 1 queue-length 0 1 1 $A 1 queue-length 0 1 1 $B 1" || fail "create"
dd if=/dev/mapper/mpq of=/dev/null bs=4k count=16 iflag=direct status=none || fail "read"
settle
expect_eq "$(dm_table mpq)" "0 0 2 1 queue-length 0 1 1 $A 1 queue-length 0 1 1 $B 1 " "table"
expect_eq "$(dm_status mpq)" "2 0 0 0 2 1 A 0 1 1 $A A 0 0 E 0 1 1 $B A 0 0 " "status (pg 1 active, pg 2 enabled)"
