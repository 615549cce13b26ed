PATH=/bin:/sbin
echo E2E: start
ls /sys/block
echo 1 > /sys/kernel/tracing/events/blk_mpath/enable
S=$(cat /sys/block/sda/size)
dmsetup create mp --noudevsync --table "0 $S multipath 0 0 1 1 round-robin 0 2 1 8:0 1 8:16 1" && echo E2E: created
echo "E2E: table $(dmsetup table mp)"
echo "E2E: status $(dmsetup status mp)"
dd if=/dev/dm-0 of=/dev/null bs=4k count=256 iflag=direct 2>&1 | grep -v records; echo "E2E: read rc ok"
cat /sys/kernel/debug/blk_mpath/*/paths
dmsetup load mp --table "0 $S multipath 0 0 1 1 round-robin 0 2 1 8:0 1 8:16 1"
echo "E2E: debugfs with two tables: $(ls /sys/kernel/debug/blk_mpath)"
dmsetup resume --noudevsync mp
echo "E2E: debugfs after reload: $(ls /sys/kernel/debug/blk_mpath)"
echo offline > /sys/block/sda/device/state
dd if=/dev/dm-0 of=/dev/null bs=4k count=64 iflag=direct 2>&1 | grep -v records; echo "E2E: read after sda offline done"
echo "E2E: status $(dmsetup status mp)"
cat /sys/kernel/debug/blk_mpath/*/paths
echo running > /sys/block/sda/device/state
dmsetup message mp 0 reinstate_path 8:0
echo "E2E: status after reinstate $(dmsetup status mp)"
echo 2 > /sys/bus/pseudo/drivers/scsi_debug/opts
dd if=/dev/dm-0 of=/dev/null bs=512 skip=4660 count=1 iflag=direct 2>&1 | grep -v records; echo "E2E: medium read done"
echo 0 > /sys/bus/pseudo/drivers/scsi_debug/opts
echo "E2E: status after medium error $(dmsetup status mp)"
cat /sys/kernel/debug/blk_mpath/*/paths
echo offline > /sys/block/sda/device/state
echo offline > /sys/block/sdb/device/state
dd if=/dev/dm-0 of=/dev/null bs=4k count=1 iflag=direct 2>&1 | grep -v records; echo "E2E: read with all paths offline done"
echo "E2E: status all offline $(dmsetup status mp)"
dmsetup remove mp && echo E2E: removed
grep -c blk_mpath_ /sys/kernel/tracing/trace
grep -E "blk_mpath_(complete|path_state)" /sys/kernel/tracing/trace | grep -v "class=none" | head -20
echo E2E: end
