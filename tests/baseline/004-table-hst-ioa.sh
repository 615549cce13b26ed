#!/bin/bash
# DESCRIPTION: historical-service-time and io-affinity selectors: tables load and echo as stock
# REQUIRES: mod:scsi_debug
. /opt/blk-mpath/tests/lib/common.sh
engine_load
sdebug_setup
path_vars "${SD_PATHS[@]}"
dm_create mph "0 $N multipath 0 0 1 1 historical-service-time 0 2 1 $A 1 $B 1" || fail "create hst"
dd if=/dev/mapper/mph of=/dev/null bs=4k count=16 iflag=direct status=none || fail "read hst"
# hst echoes its group arguments (count, base weight, threshold) and a per-path value
expect_match "$(dm_table mph)" "^0 0 1 1 historical-service-time [0-9]+( [0-9]+)* 2 1 $A [0-9]+ $B [0-9]+ \$" "hst table"
expect_match "$(dm_status mph)" "^2 0 0 0 1 1 A [0-9]+( [0-9]+)* 2 [0-9]+ $A A 0( [0-9]+)* $B A 0( [0-9]+)* \$" "hst status"
run dmsetup remove mph || fail "remove hst"
dm_create mpa "0 $N multipath 0 0 1 1 io-affinity 0 2 1 $A 1 $B 2" || fail "create io-affinity"
dd if=/dev/mapper/mpa of=/dev/null bs=4k count=16 iflag=direct status=none || fail "read ioa"
expect_eq "$(dm_table mpa)" "0 0 1 1 io-affinity 0 2 1 $A 1 $B 2 " "io-affinity table"
