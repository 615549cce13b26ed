#!/bin/bash
# The demo, run inside the guest: unmodified multipathd assembles the QEMU
# two-path LUN on the selected engine, fio writes and verifies through it,
# one path fails and comes back, and the map ends healthy.
. /opt/blk-mpath/tests/lib/common.sh
step() { echo; echo "=== $* ==="; }
show() { echo "\$ $*"; "$@" 2>&1 | sed 's/^/    /'; }
showsh() { echo "\$ $1"; sh -c "$1" 2>&1 | sed 's/^/    /'; }
bad() { echo "DEMO: FAILED: $*"; exit 1; }

step "Engine: ENGINE=$ENGINE ($( [ "$ENGINE" = new ] && echo 'blk-mpath thin target on the block-layer engine' || echo 'stock dm-multipath'))"
showsh "cat /etc/depmod.d/blk-mpath.conf 2>/dev/null || cat /usr/lib/depmod.d/blk-mpath.conf"
modprobe dm-multipath
show dmsetup targets
showsh "lsmod | grep -E '^(dm_multipath|blk_mpath) '"
showsh "modinfo -F filename dm-multipath"

step "Unmodified multipathd (Debian multipath-tools) assembles the LUN"
showsh "dpkg-query -W multipath-tools"
systemctl start multipathd.service || bad "multipathd did not start"
for i in $(seq 60); do multipath -ll 2>/dev/null | grep -q 'status=active' && break; sleep 1; done
show multipath -ll
map=$(multipathd show maps raw format "%n" | head -1)
[ -n "$map" ] || bad "no map"
mapfile -t P < <(lun_paths)
show dmsetup table "$map"
show dmsetup status "$map"

step "fio: random writes with crc32c verification through /dev/mapper/$map (60 s)"
fio --name=demo --filename=/dev/mapper/$map --rw=randwrite --bs=4k --size=64M --ioengine=libaio \
	--iodepth=8 --direct=1 --verify=crc32c --verify_fatal=1 --time_based --runtime=60 \
	--output=/tmp/demo-fio.txt >/dev/null 2>&1 &
fio_pid=$!
sleep 8
# the first path of the table is in the active group: I/O must move
V=${P[0]}
step "Path $V, in the active group, fails under I/O (SCSI device set offline)"
showsh "echo offline > /sys/block/$V/device/state"
for i in $(seq 40); do multipath -ll "$map" | grep -q 'failed' && break; sleep 1; done
show multipath -ll "$map"
show dmsetup status "$map"
sleep 8
[ "$ENGINE" = new ] && showsh "blk-mpath-stat"
step "Path $V returns"
showsh "echo running > /sys/block/$V/device/state"
for i in $(seq 60); do
	[ "$(multipath -ll "$map" | grep -c 'active ready running')" -eq 2 ] && break; sleep 1
done
show multipath -ll "$map"
step "Waiting for fio to finish"
wait $fio_pid; frc=$?
showsh "grep -E 'err=|write: IOPS|verify' /tmp/demo-fio.txt | head -5"
[ $frc -eq 0 ] || bad "fio exited $frc"
grep -q 'err= 0' /tmp/demo-fio.txt || bad "fio reported errors"
step "The map at the end"
show dmsetup status "$map"
[ "$ENGINE" = new ] && showsh "blk-mpath-stat"
[ "$(multipath -ll "$map" | grep -c 'active ready running')" -eq 2 ] || bad "both paths not active at the end"
showsh "journalctl -u multipathd --no-pager | grep -E 'fail|reinstat|remaining active' | tail -8"
echo "DEMO: OK"
