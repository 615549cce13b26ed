PATH=/bin:/sbin
# 001-differential's first blk-mpath case: round-robin over the first two
# scsi_debug paths of a LUN behind 4 hosts, implicit ALUA with port states
# host_no % 3.  As in the guest, scsi_dh_alua is loaded after the scan, so
# no handler is attached until a table names "alua" (dm leaves it attached
# afterwards).  alua4: stock RR, stock alua, stock RR, then blk-mpath RR,
# alua, RR; alua4new (NOSTOCK=1): blk-mpath only.  "A4:" lines, then the
# blk_mpath trace of the blk-mpath part.
echo E2E: start
states() {
	for d in /sys/block/sd*; do
		echo "A4: $1 ${d##*/} $(cat $d/dev) host $(ls $d/device/scsi_device) dh $(cat $d/device/dh_state) access_state $(cat $d/device/access_state)"
	done
}
states boot
# The guest has disks of its own: its scsi_debug hosts are 2..5 and the
# case uses hosts 2 (standby) and 3 (active/optimized), here sdc and sdd.
A=$(cat /sys/block/sdc/dev) B=$(cat /sys/block/sdd/dev) S=$(cat /sys/block/sdc/size)
RR="0 $S multipath 0 0 1 1 round-robin 0 2 1 $A 1 $B 1"
AL="0 $S multipath 0 1 alua 1 1 queue-length 0 2 1 $A 1 $B 1"
one() { # engine label table
	dmsetup create dcase --noudevsync --table "$3" || echo "A4: $1 create failed"
	dd if=/dev/dm-0 of=/dev/null bs=4k count=8 iflag=direct 2>&1 | grep -v records
	echo "A4: $1 $2 table $(dmsetup table dcase)"
	echo "A4: $1 $2 status $(dmsetup status dcase)"
	dmsetup remove dcase
}
if [ -z "$NOSTOCK" ]; then
	for m in dm-multipath dm-round-robin dm-queue-length; do modctl load /$m.ko; done
	one stock rr-before-alua "$RR"
	one stock alua "$AL"
	one stock rr-after-alua "$RR"
	for m in dm-queue-length dm-round-robin dm-multipath; do modctl unload $m; done
	states after-stock
fi
modctl load /blk-mpath.ko
modctl load /dm-blk-mpath.ko
echo 1 > /sys/kernel/tracing/events/blk_mpath/enable
one new rr-first "$RR"
one new alua "$AL"
one new rr-after-alua "$RR"
echo 0 > /sys/kernel/tracing/events/blk_mpath/enable
states end
grep blk_mpath_ /sys/kernel/tracing/trace | grep -v "class=none\|result=remapped"
echo E2E: end
