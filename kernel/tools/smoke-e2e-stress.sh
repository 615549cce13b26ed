PATH=/bin:/sbin
# I/O from 4 readers and a writer while paths fail and come back, groups
# switch and the table is reloaded (noflush suspend with queue_if_no_path,
# then a plain one).  Run on the debug kernel for lockdep/KASAN coverage.
S=$(cat /sys/block/sda/size)
T1="0 $S multipath 1 queue_if_no_path 0 2 1 round-robin 0 1 1 8:0 1 queue-length 0 1 1 8:16 1"
T2="0 $S multipath 1 queue_if_no_path 0 1 1 service-time 0 2 2 8:0 1 1 8:16 1 1"
dmsetup create mp --noudevsync --table "$T1" && echo E2E: created
for j in 1 2 3 4; do
	(n=0; while [ ! -e /tmp/stop ]; do
		dd if=/dev/dm-0 of=/dev/null bs=4k count=1024 skip=$((j * 512)) iflag=direct 2>&1 | grep -v -e records -e copied
		n=$((n + 1))
	done; echo "E2E: reader $j done after $n passes") &
done
(n=0; while [ ! -e /tmp/stop ]; do
	dd if=/dev/zero of=/dev/dm-0 bs=4k count=256 oflag=direct seek=3072 2>&1 | grep -v -e records -e copied
	n=$((n + 1))
done; echo "E2E: writer done after $n passes") &
i=0
while [ $i -lt 12 ]; do
	i=$((i + 1))
	dmsetup message mp 0 fail_path 8:0
	sleep 0.2
	dmsetup message mp 0 switch_group 2
	dmsetup message mp 0 fail_path 8:16
	sleep 0.1
	dmsetup message mp 0 reinstate_path 8:0
	dmsetup message mp 0 reinstate_path 8:16
	if [ $((i % 4)) -eq 0 ]; then
		if [ $((i % 8)) -eq 0 ]; then T=$T1; else T=$T2; fi
		dmsetup load mp --table "$T"
		dmsetup suspend --noflush --noudevsync mp
		dmsetup resume --noudevsync mp
		echo "E2E: reloaded $(dmsetup table mp | cut -c1-60)"
	fi
done
dmsetup message mp 0 reinstate_path 8:0
dmsetup message mp 0 reinstate_path 8:16
: > /tmp/stop
wait
echo "E2E: status $(dmsetup status mp)"
cat /sys/kernel/debug/blk_mpath/*/paths
dmsetup remove mp && echo E2E: removed
echo scan > /sys/kernel/debug/kmemleak 2>/dev/null
sleep 5
echo scan > /sys/kernel/debug/kmemleak 2>/dev/null
cat /sys/kernel/debug/kmemleak 2>/dev/null | head -40
echo E2E: end
