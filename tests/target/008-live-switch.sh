#!/bin/bash
# DESCRIPTION: live switch without unmount: ext4 mounted on a multipathd map with fio verify running, blk-mpath-migrate --live stock -> blk-mpath -> stock, 3 round trips: 0 I/O and verify errors, the filesystem never unmounted, multipathd still managing the map (a path failed and reinstated after each switch)
# REQUIRES: cmd:multipathd cmd:fio mod:dm-blk-mpath mod:dm-multipath
# TIMEOUT: 900
. /opt/blk-mpath/tests/lib/common.sh
. /opt/blk-mpath/tests/lib/faults.sh
TRIPS=3
MNT=/mnt/live
trap 'umount $MNT 2>/dev/null; true' EXIT

mount_id() { awk -v m="$MNT" '$5 == m {print $1}' /proc/self/mountinfo; }
# multipathd fails a path we take offline and reinstates it when it returns
path_cycle() { # map
	local d dev i
	d=$(lun_paths | head -1); dev=$(mm "$d")
	path_state "$d" offline
	# I/O or the checker notices; multipathd shows it failed
	for i in $(seq 60); do [ "$(path_state_of "$1" "$dev")" = F ] && break; sleep 0.5; done
	[ "$(path_state_of "$1" "$dev")" = F ] || fail "$(engine_now): multipathd did not fail $dev"
	path_state "$d" running
	for i in $(seq 60); do [ "$(path_state_of "$1" "$dev")" = A ] && break; sleep 0.5; done
	[ "$(path_state_of "$1" "$dev")" = A ] || fail "$(engine_now): multipathd did not reinstate $dev"
	say "ok: on $(engine_now) multipathd failed and reinstated $dev"
}
engine_now() { blk-mpath-migrate --status | sed -n 's/^engine: //p'; }

engine_use stock
multipathd_start
map=$(multipathd show maps raw format "%n" | head -1)
for i in $(seq 30); do [ "$(dm_path_states "$map")" = AA ] && break; sleep 1; done
expect_eq "$(dm_path_states "$map")" AA "map healthy on stock"
mkfs.ext4 -q -F "/dev/mapper/$map" || fail "mkfs"
mkdir -p $MNT && mount "/dev/mapper/$map" $MNT || fail "mount"
id0=$(mount_id)
FIO_OUT=/tmp/fio-live.json
FAULT_NAME=live-switch ENGINE=both
fio_start_file() {
	FIO_OUT=/tmp/fio-live.json FIO_LOG=/tmp/fio-live FIO_SECS=3000
	fio --name=live --filename=$MNT/f --size=48M --rw=randwrite --bs=4k --ioengine=libaio --iodepth=8 \
		--direct=1 --verify=crc32c --verify_backlog=256 --verify_fatal=1 --time_based --runtime=3000 \
		--output-format=json --output=$FIO_OUT --write_lat_log=$FIO_LOG --log_avg_msec=0 \
		>/dev/null 2>$FIO_OUT.err &
	FIO_PID=$!
}
fio_start_file
fio_pid=$FIO_PID
sleep 4
blk-mpath-migrate-check >/results/faults/migrate-check.txt 2>&1
times=()
for t in $(seq $TRIPS); do
	for to in new stock; do
		kill -0 $fio_pid || { cat $FIO_OUT.err; fail "fio stopped before trip $t"; }
		t0=$(date +%s%3N)
		blk-mpath-migrate --live --to $to >/tmp/migrate.log 2>&1 || { cat /tmp/migrate.log; fail "switch to $to (trip $t)"; }
		ms=$(($(date +%s%3N) - t0))
		times+=("$to:${ms}ms")
		expect_eq "$(engine_now)" "$to" "trip $t: the maps are on $to"
		expect_eq "$(mount_id)" "$id0" "trip $t: $MNT still the same mount"
		multipathd show maps raw format "%n" | grep -qx "$map" || fail "multipathd lost $map"
		say "trip $t: switched to $to in $ms ms: $(dm_table "$map")"
		path_cycle "$map"
		sleep 2
	done
done
fio_expect_clean stop
umount $MNT || fail "umount"
fsck.ext4 -fn "/dev/mapper/$map" >/tmp/fsck.log 2>&1 || { tail /tmp/fsck.log; fail "fsck after the switches"; }
say "LIVE-SWITCH trips=$TRIPS switches=${#times[@]} times: ${times[*]} io_errors=0 verify_errors=0 longest_io=${GAP_MS}ms ios=$FIO_IOS fsck=clean"
echo "live-switch trips=$TRIPS ${times[*]} longest_io_ms=$GAP_MS ios=$FIO_IOS" >>/results/faults/live-switch.txt 2>/dev/null
multipathd_stop
