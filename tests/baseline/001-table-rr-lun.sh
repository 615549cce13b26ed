#!/bin/bash
# DESCRIPTION: round-robin table on the QEMU 2-path LUN: table and status echo as stock
# REQUIRES: cmd:dmsetup
. /opt/blk-mpath/tests/lib/common.sh
engine_load
mapfile -t P < <(lun_paths)
[ ${#P[@]} -eq 2 ] || fail "expected 2 LUN paths, found ${#P[@]}"
path_vars "${P[@]}"
dm_create mp1 "0 $N multipath 0 0 1 1 round-robin 0 2 1 $A 1 $B 1" || fail "create"
expect_eq "$(dm_table mp1)" "0 0 1 1 round-robin 0 2 1 $A 1 $B 1 " "table"
expect_eq "$(dm_status mp1)" "2 0 0 0 1 1 A 0 2 0 $A A 0 $B A 0 " "status"
dd if=/dev/mapper/mp1 of=/dev/null bs=4k count=256 iflag=direct status=none || fail "read through the map"
run dmsetup remove mp1 || fail "remove"
