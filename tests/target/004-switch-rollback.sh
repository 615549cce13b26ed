#!/bin/bash
# DESCRIPTION: the migration switch: multipathd moves from stock to blk-mpath and back with one depmod.d line, data intact; on blk-mpath the module answers to the stock name (lsmod, modprobe -r, options lines, /sys/module/dm_multipath/parameters)
# REQUIRES: cmd:multipathd mod:dm-blk-mpath mod:dm-multipath
. /opt/blk-mpath/tests/lib/common.sh
unload_all() {
	modprobe -r dm-blk-mpath 2>/dev/null
	stock_unload
	modprobe -r blk-mpath 2>/dev/null
	true
}
trap 'rm -f /etc/modprobe.d/blk-mpath-test-opts.conf' EXIT
# an admin's option line for the stock module's name
echo "options dm_multipath queue_if_no_path_timeout_secs=17" >/etc/modprobe.d/blk-mpath-test-opts.conf
start_on() { # engine
	multipathd_stop; unload_all
	engine_select "$1"
	multipathd_start
	map=$(multipathd show maps raw format "%n" | head -1)
	for i in $(seq 30); do [ "$(dm_path_states "$map")" = AA ] && break; sleep 1; done
	expect_eq "$(dm_path_states "$map")" "AA" "$1: both paths active"
	lsmod | grep -q '^dm_multipath ' || fail "$1: no module dm_multipath in lsmod"
	expect_eq "$(cat /sys/module/dm_multipath/parameters/queue_if_no_path_timeout_secs)" 17 \
		"$1: the options line reached /sys/module/dm_multipath/parameters"
	if [ "$1" = new ]; then
		dm_multipath_is_ours || fail "switch to new: dm_multipath is the stock module"
		expect_match "$(modinfo -F description dm-multipath)" "blk-mpath" "modinfo dm-multipath: blk-mpath's"
	else
		dm_multipath_is_ours && fail "rollback: dm_multipath is still blk-mpath's"
		lsmod | grep -q '^blk_mpath ' && fail "rollback: the engine is still loaded"
		expect_match "$(modinfo -F filename dm-multipath)" "kernel/drivers/md/dm-multipath.ko" "modinfo dm-multipath: stock's"
	fi
	echo 9 >/sys/module/dm_multipath/parameters/queue_if_no_path_timeout_secs ||
		fail "$1: parameter not writable"
	echo 17 >/sys/module/dm_multipath/parameters/queue_if_no_path_timeout_secs
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
# modprobe -r by the stock name removes blk-mpath's module (and the engine)
multipathd_stop; unload_all; engine_select new; modprobe dm-multipath || fail "modprobe on new"
dm_multipath_is_ours || fail "not blk-mpath's after modprobe"
run modprobe -r dm-multipath || fail "modprobe -r dm-multipath on blk-mpath"
lsmod | grep -qE '^(dm_multipath|blk_mpath) ' && fail "modprobe -r dm-multipath left modules: $(lsmod | grep mpath)"
say "ok: modprobe -r dm-multipath removed blk-mpath's target and its engine"
engine_select "$ENGINE"
