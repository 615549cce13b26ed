#!/bin/bash
# DESCRIPTION: the migration switch: multipathd moves from stock to blk-mpath and back with one modprobe.d line, data intact
# REQUIRES: cmd:multipathd mod:dm-blk-mpath mod:dm-multipath
. /opt/blk-mpath/tests/lib/common.sh
unload_all() {
	modprobe -r dm-blk-mpath 2>/dev/null
	stock_unload
	true
}
start_on() { # engine
	multipathd_stop; unload_all
	engine_select "$1"
	multipathd_start
	map=$(multipathd show maps raw format "%n" | head -1)
	for i in $(seq 30); do [ "$(dm_path_states "$map")" = AA ] && break; sleep 1; done
	expect_eq "$(dm_path_states "$map")" "AA" "$1: both paths active"
	if [ "$1" = new ]; then
		lsmod | grep -q '^dm_blk_mpath ' || fail "switch to new: dm_blk_mpath not loaded"
		lsmod | grep -q '^dm_multipath ' && fail "switch to new: stock still loaded"
	else
		lsmod | grep -q '^dm_multipath ' || fail "rollback: stock dm_multipath not loaded"
		lsmod | grep -q '^dm_blk_mpath ' && fail "rollback: dm_blk_mpath still loaded"
	fi
	multipath -v3 -ll 2>&1 | grep -iE 'multipath target version|dm-multipath version|target version' | head -2 | sed 's/^/# /'
	multipath -v3 -ll 2>&1 | grep -qE '1\.14\.0' || fail "$1: multipath -v3 -ll does not report target v1.14.0"
}
dd if=/dev/urandom of=/tmp/pat bs=1M count=8 status=none
start_on stock
t_stock=$(dm_table "$map")
dd if=/tmp/pat of=/dev/mapper/$map bs=1M oflag=direct status=none || fail "write on stock"
start_on new
expect_eq "$(dm_table "$map")" "$t_stock" "same table on blk-mpath"
cmp /tmp/pat <(dd if=/dev/mapper/$map bs=1M count=8 iflag=direct status=none) || fail "data written on stock differs on blk-mpath"
dd if=/dev/urandom of=/tmp/pat bs=1M count=8 status=none
dd if=/tmp/pat of=/dev/mapper/$map bs=1M oflag=direct status=none || fail "write on new"
start_on stock
cmp /tmp/pat <(dd if=/dev/mapper/$map bs=1M count=8 iflag=direct status=none) || fail "data written on blk-mpath differs after rollback"
multipathd_stop; unload_all; engine_select "$ENGINE"
