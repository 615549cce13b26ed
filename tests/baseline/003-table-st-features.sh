#!/bin/bash
# DESCRIPTION: service-time with queue_if_no_path, pg_init_retries, queue_mode mq: canonical feature echo
# REQUIRES: mod:scsi_debug
. /opt/blk-mpath/tests/lib/common.sh
engine_load
sdebug_setup
path_vars "${SD_PATHS[@]}"
dm_create mps "0 $N multipath 5 queue_if_no_path pg_init_retries 5 queue_mode mq 0 1 1 service-time 0 2 2 $A 1 4 $B 1 1" || fail "create"
dd if=/dev/mapper/mps of=/dev/null bs=4k count=16 iflag=direct status=none || fail "read"
settle
expect_eq "$(dm_table mps)" "3 queue_if_no_path pg_init_retries 5 0 1 1 service-time 0 2 2 $A 1 4 $B 1 1 " "table"
expect_eq "$(dm_status mps)" "2 0 0 0 1 1 A 0 2 2 $A A 0 0 4 $B A 0 0 1 " "status"
run dmsetup remove mps || fail "remove"
dm_create mps2 "0 $N multipath 4 pg_init_delay_msecs 100 retain_attached_hw_handler queue_if_no_path 0 1 1 round-robin 0 1 1 $A 1" || fail "create 2"
expect_eq "$(dm_table mps2 | sed 's/^\([0-9]*\) .* 0 1 1 round/\1 .. 0 1 1 round/')" "4 .. 0 1 1 round-robin 0 1 1 $A 1 " "feature count with pg_init_delay_msecs"
expect_match "$(dm_table mps2)" "^4 queue_if_no_path pg_init_delay_msecs 100 retain_attached_hw_handler (0|1 alua) 1 1 round-robin 0 1 1 $A 1 \$" "canonical feature order"
