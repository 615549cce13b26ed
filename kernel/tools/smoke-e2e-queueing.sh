PATH=/bin:/sbin
echo E2E: start
S=$(cat /sys/block/sda/size)
echo "E2E: dh sda=$(cat /sys/block/sda/device/dh_state) sdb=$(cat /sys/block/sdb/device/dh_state)"
dmsetup create mp --noudevsync --table "0 $S multipath 3 queue_if_no_path pg_init_retries 5 1 alua 2 1 round-robin 0 1 1 8:0 1 round-robin 0 1 1 8:16 1" && echo E2E: created
echo "E2E: table $(dmsetup table mp)"
echo "E2E: status $(dmsetup status mp)"
dd if=/dev/dm-0 of=/dev/null bs=4k count=16 iflag=direct 2>&1 | grep -v records
echo "E2E: status after io $(dmsetup status mp)"
dmsetup message mp 0 switch_group 2
echo "E2E: status after switch $(dmsetup status mp)"
dd if=/dev/dm-0 of=/dev/null bs=4k count=16 iflag=direct 2>&1 | grep -v records
echo "E2E: status after io $(dmsetup status mp)"
dmsetup message mp 0 disable_group 2
dd if=/dev/dm-0 of=/dev/null bs=4k count=16 iflag=direct 2>&1 | grep -v records
echo "E2E: status after disable_group 2 + io $(dmsetup status mp)"
dmsetup message mp 0 enable_group 2
echo offline > /sys/block/sda/device/state
echo offline > /sys/block/sdb/device/state
(dd if=/dev/dm-0 of=/dev/null bs=4k count=1 iflag=direct 2>&1 | grep -v records; echo "E2E: queued dd finished") &
sleep 2
echo "E2E: status while queued $(dmsetup status mp)"
dmsetup message mp 0 fail_if_no_path
sleep 1
echo "E2E: after fail_if_no_path $(dmsetup status mp)"
wait
dmsetup message mp 0 queue_if_no_path
echo "E2E: table queue again $(dmsetup table mp)"
(dd if=/dev/dm-0 of=/dev/null bs=4k count=1 iflag=direct 2>&1 | grep -v records; echo "E2E: dd finished after no-path timeout") &
sleep 1
echo running > /sys/block/sda/device/state
sleep 6
wait
echo "E2E: table after timeout $(dmsetup table mp)"
dmsetup message mp 0 reinstate_path 8:0
dmsetup message mp 0 queue_if_no_path
echo offline > /sys/block/sda/device/state
(dd if=/dev/dm-0 of=/dev/null bs=4k count=1 iflag=direct 2>&1 | grep -v records; echo "E2E: dd finished after reinstate") &
sleep 2
echo running > /sys/block/sda/device/state
dmsetup message mp 0 reinstate_path 8:0
sleep 2
wait
echo "E2E: final $(dmsetup status mp)"
dmsetup remove mp && echo E2E: removed
echo E2E: end
