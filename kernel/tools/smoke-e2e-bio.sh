PATH=/bin:/sbin
echo E2E: start
S=$(cat /sys/block/sda/size)
T=/sys/kernel/tracing
# no no-path timer here (smoke-init loads the target with 4 s)
echo 0 > /sys/module/dm_blk_mpath/parameters/queue_if_no_path_timeout_secs
dmsetup create mp --noudevsync --table "0 $S multipath 3 queue_if_no_path queue_mode bio 0 1 1 round-robin 0 2 1 8:0 1 8:16 1" && echo E2E: created
echo "E2E: table $(dmsetup table mp)"
echo "E2E: status $(dmsetup status mp)"
ls -d /sys/block/dm-0/mq 2>/dev/null || echo "E2E: bio-based (no mq directory)"
dd if=/dev/dm-0 of=/dev/null bs=4k count=256 iflag=direct 2>&1 | grep -v records; echo "E2E: read done"
cat /sys/kernel/debug/blk_mpath/*/paths
echo offline > /sys/block/sda/device/state
dd if=/dev/dm-0 of=/dev/null bs=4k count=64 iflag=direct 2>&1 | grep -v records; echo "E2E: read after sda offline done"
echo "E2E: status $(dmsetup status mp)"
# all paths down with queue_if_no_path: held, and the engine does not
# remap them in a loop
echo 'result != 0' > $T/events/blk_mpath/blk_mpath_map_bio/filter
echo 1 > $T/events/blk_mpath/blk_mpath_map_bio/enable
echo 1 > $T/events/blk_mpath/blk_mpath_complete/enable
echo offline > /sys/block/sdb/device/state
for i in 1 2 3 4; do
	(dd if=/dev/dm-0 of=/dev/null bs=4k count=1 skip=$i iflag=direct 2>&1 | grep -v records; echo "E2E: held dd $i finished") &
done
sleep 3
n1=$(grep -c result=queued $T/trace)
sleep 3
n2=$(grep -c result=queued $T/trace)
echo "E2E: held: $n1 map events after 3 s, $n2 after 6 s"
echo "E2E: status while held $(dmsetup status mp)"
dmsetup suspend --noflush mp && dmsetup resume mp && echo "E2E: noflush suspend/resume with bios held"
echo "E2E: table after resume $(dmsetup table mp)"
echo running > /sys/block/sdb/device/state
dmsetup message mp 0 reinstate_path 8:16
sleep 2
wait
grep -m3 blk_mpath_ $T/trace
echo 0 > $T/events/blk_mpath/enable
echo "E2E: final $(dmsetup status mp)"
cat /sys/kernel/debug/blk_mpath/*/paths
dmsetup remove mp && echo E2E: removed
echo E2E: end
