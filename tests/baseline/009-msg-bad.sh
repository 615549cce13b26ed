#!/bin/bash
# DESCRIPTION: bad messages (unknown path, group out of range, unknown verb, bad arity) are refused; map unchanged
# REQUIRES: mod:scsi_debug
. /opt/blk-mpath/tests/lib/common.sh
engine_load
sdebug_setup
path_vars "${SD_PATHS[@]}"
dm_create mpb "0 $N multipath 0 0 2 1 round-robin 0 1 1 $A 1 round-robin 0 1 1 $B 1" || fail "create"
dd if=/dev/mapper/mpb of=/dev/null bs=4k count=16 iflag=direct status=none || fail "read"
before_t=$(dm_table mpb) before_s=$(dm_status mpb)
bad() {
	if dmsetup message mpb 0 "$@" 2>/tmp/msg.err; then fail "message '$*' was accepted"; fi
	say "refused: '$*': $(tr '\n' ' ' </tmp/msg.err)"
}
bad fail_path 7:200
bad reinstate_path 7:200
bad fail_path not-a-device
bad switch_group 0
bad switch_group 3
bad switch_group x
bad disable_group 9
bad enable_group 0
bad frobnicate
bad fail_path
bad switch_group
bad queue_if_no_path extra
bad fail_path "$A" extra
expect_eq "$(dm_table mpb)" "$before_t" "table unchanged"
expect_eq "$(dm_status mpb)" "$before_s" "status unchanged"
dmesg | tail -30 | grep -iE 'multipath|device-mapper' | tail -5
