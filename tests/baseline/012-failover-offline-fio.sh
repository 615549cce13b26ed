#!/bin/bash
# DESCRIPTION: multipathd + fio randwrite verify=crc32c while paths go offline and back: 0 I/O errors, 0 verify errors
# REQUIRES: cmd:multipathd cmd:fio
. /opt/blk-mpath/tests/lib/common.sh
engine_load
mapfile -t P < <(lun_paths)
multipathd_start
map=$(multipathd show maps raw format "%n" | head -1)
wait_paths() { # count state
	local i
	for i in $(seq 60); do
		[ "$(multipath -ll "$map" | grep -c "$2")" -ge "$1" ] && return 0; sleep 1
	done
	multipath -ll "$map"; return 1
}
wait_paths 2 'active ready running' || fail "map not healthy at start"
fio --name=fo --filename=/dev/mapper/$map --rw=randwrite --bs=4k --size=64M --ioengine=libaio --iodepth=16 \
	--direct=1 --verify=crc32c --verify_backlog=512 --verify_fatal=1 --time_based --runtime=75 \
	--output=/tmp/fio-fo.txt &
fio_pid=$!
for p in "${P[1]}" "${P[0]}"; do
	sleep 5
	run path_state "$p" offline
	wait_paths 1 'failed' || fail "multipathd did not mark $p failed"
	dm_status "$map"
	sleep 5
	run path_state "$p" running
	wait_paths 2 'active ready running' || fail "multipathd did not reinstate $p"
	dm_status "$map"
done
wait $fio_pid; rc=$?
grep -E 'err=|IOPS' /tmp/fio-fo.txt
[ $rc -eq 0 ] || { cat /tmp/fio-fo.txt; fail "fio exited $rc (I/O or verify error)"; }
grep -q 'err= 0' /tmp/fio-fo.txt || fail "fio reported errors"
journalctl -u multipathd --no-pager | grep -cE 'remaining active paths' | sed 's/^/# multipathd path-count messages: /'
expect_eq "$(dm_path_states "$map")" "AA" "both paths active at the end"
