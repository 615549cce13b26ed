#!/bin/bash
# DESCRIPTION: a path is deleted from SCSI and rescanned under fio verify: multipathd drops and re-adds it, 0 errors
# REQUIRES: cmd:multipathd cmd:fio
. /opt/blk-mpath/tests/lib/common.sh
engine_load
mapfile -t P < <(lun_paths)
multipathd_start
map=$(multipathd show maps raw format "%n" | head -1)
wait_n() { # count
	local i
	for i in $(seq 60); do
		[ "$(multipath -ll "$map" | grep -c 'active ready running')" -eq "$1" ] && return 0; sleep 1
	done
	multipath -ll "$map"; return 1
}
wait_n 2 || fail "map not healthy at start"
victim=${P[1]}
host=$(readlink -f "/sys/block/$victim/device" | grep -o 'host[0-9]*' | tail -1)
say "victim $victim on $host"
fio --name=dr --filename=/dev/mapper/$map --rw=randwrite --bs=4k --size=64M --ioengine=libaio --iodepth=16 \
	--direct=1 --verify=crc32c --verify_backlog=512 --verify_fatal=1 --time_based --runtime=50 \
	--output=/tmp/fio-dr.txt &
fio_pid=$!
sleep 5
run sh -c "echo 1 > /sys/block/$victim/device/delete"
wait_n 1 || fail "map did not drop to one path"
[ "$(multipath -ll "$map" | grep -c 'sd[a-z]')" -eq 1 ] || { multipath -ll "$map"; fail "deleted path still in the map"; }
dm_table "$map"
sleep 5
run sh -c "echo '- - -' > /sys/class/scsi_host/$host/scan"
settle
wait_n 2 || fail "rescanned path not added back"
dm_table "$map"
wait $fio_pid; rc=$?
grep -E 'err=|IOPS' /tmp/fio-dr.txt
[ $rc -eq 0 ] || { cat /tmp/fio-dr.txt; fail "fio exited $rc"; }
grep -q 'err= 0' /tmp/fio-dr.txt || fail "fio reported errors"
