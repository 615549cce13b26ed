PATH=/bin:/sbin
# Same tables on stock dm-multipath and on blk-mpath: table and status
# lines must be byte-identical ("SEL:" lines, compared by engine-smoke.sh).
S=$(cat /sys/block/sda/size)
set -- \
 "0 $S multipath 0 0 1 1 round-robin 0 2 1 8:0 1 8:16 1" \
 "0 $S multipath 1 queue_if_no_path 0 2 2 queue-length 0 1 1 8:0 1 service-time 0 1 2 8:16 1 50" \
 "0 $S multipath 2 pg_init_retries 3 0 1 1 historical-service-time 2 512 3 2 1 8:0 1 8:16 1" \
 "0 $S multipath 0 0 1 1 io-affinity 0 2 1 8:0 1 8:16 2" \
 "0 $S multipath 2 pg_init_delay_msecs 500 1 alua 1 1 service-time 0 2 2 8:0 0 10 8:16 1 100" \
 "0 $S multipath 0 0 2 2 round-robin 0 1 1 8:0 2 round-robin 0 1 1 8:16 1"
run() {
	i=0
	for t in "$@"; do
		i=$((i + 1))
		dmsetup create mp --noudevsync --table "$t" || echo "SEL: $ENG $i create failed"
		echo "SEL: $ENG $i table $(dmsetup table mp)"
		echo "SEL: $ENG $i status $(dmsetup status mp)"
		dmsetup message mp 0 fail_path 8:16
		echo "SEL: $ENG $i failed $(dmsetup status mp)"
		dmsetup message mp 0 reinstate_path 8:16
		dmsetup message mp 0 disable_group 1
		echo "SEL: $ENG $i disabled $(dmsetup status mp)"
		dmsetup remove mp
	done
}
ENG=stock
for m in dm-multipath dm-round-robin dm-queue-length dm-service-time dm-historical-service-time dm-io-affinity; do
	modctl load /$m.ko
done
run "$@"
for m in dm-io-affinity dm-historical-service-time dm-service-time dm-queue-length dm-round-robin dm-multipath; do
	modctl unload $m
done
ENG=new
modctl load /blk-mpath.ko
modctl load /dm-blk-mpath.ko
run "$@"
echo E2E: end
