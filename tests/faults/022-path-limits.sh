#!/bin/bash
# DESCRIPTION: a path's max_sectors_kb shrinks under a live map: a request over the new limit is refused by the path before it is issued; blk-mpath returns the error and keeps both healthy paths, stock fails one path after the other (expected difference, ENGINE.md "LIMITS")
# REQUIRES: mod:scsi_debug mod:dm-blk-mpath mod:dm-multipath
# TIMEOUT: 200
. /opt/blk-mpath/tests/lib/common.sh
. /opt/blk-mpath/tests/lib/faults.sh
FAULT_COMPARE=none
export DM_DISABLE_UDEV=1

run_engine() {
	local d out rc t0 ms
	sdebug_setup
	path_vars "${SD_PATHS[@]}"
	dm_create mpl "0 $N multipath 0 0 1 1 round-robin 0 2 1 $A 1 $B 1" || fail "create"
	dm=$(dmsetup info -c --noheadings -o blkdevname mpl | tr -d ' ')
	say "map max_sectors_kb $(cat /sys/block/$dm/queue/max_sectors_kb), paths $(cat /sys/block/${SD_PATHS[0]}/queue/max_sectors_kb)"
	for d in "${SD_PATHS[@]}"; do echo 64 >"/sys/block/$d/queue/max_sectors_kb"; done
	t0=$(date +%s%3N)
	out=$(timeout 30 dd if=/dev/mapper/mpl of=/dev/null bs=512k count=1 iflag=direct 2>&1); rc=$?
	ms=$(($(date +%s%3N) - t0))
	say "512k read with 64k path limits: rc=$rc after $ms ms: $(echo "$out" | head -1)"
	[ $rc -ne 124 ] || fail "the oversized read hung"
	[ $rc -ne 0 ] || fail "the oversized read succeeded?"
	dmesg | grep -E "over max size limit|over its queue limits" | tail -2
	if [ "$ENGINE" = new ]; then
		expect_eq "$(dm_path_states mpl)" AA "blk-mpath: both paths kept"
		run timeout 30 dd if=/dev/mapper/mpl of=/dev/null bs=4k count=256 iflag=direct ||
			fail "small reads fail after the refused request"
	else
		# stock: blk_path_error(BLK_STS_IOERR) fails the path, the
		# request goes to the next path, which refuses it too
		expect_eq "$(dm_path_states mpl)" FF "stock: every healthy path failed for one request"
	fi
	fault_result oversize_read_rc=$rc paths=$(dm_path_states mpl) ms=$ms
	dm_remove mpl
}
fault_main
