#!/bin/bash
# DESCRIPTION: table reloads (noflush and flush) under fio verify, also with all paths down and I/O queued: 0 errors; removing the open map is refused
# REQUIRES: cmd:fio
# TIMEOUT: 300
. /opt/blk-mpath/tests/lib/common.sh
engine_load
# libdm makes the nodes itself: udev's blkid must not sit on queued I/O
export DM_DISABLE_UDEV=1
mapfile -t P < <(lun_paths)
path_vars "${P[@]}"
T1="0 $N multipath 1 queue_if_no_path 0 1 1 round-robin 0 2 1 $A 1 $B 1"
T2="0 $N multipath 1 queue_if_no_path 0 2 1 service-time 0 1 2 $B 1 1 service-time 0 1 2 $A 1 1"
T3="0 $N multipath 1 queue_if_no_path 0 1 1 queue-length 0 2 1 $B 1 $A 1"
dm_create mprl "$T1" || fail "create"
# reload MODE TABLE: load TABLE and swap it in with a noflush or a flushing suspend
reload() {
	run dmsetup reload mprl --table "$2" || fail "reload refused: $2"
	if [ "$1" = noflush ]; then
		run timeout 60 dmsetup suspend --noflush mprl || fail "noflush suspend"
	else
		run timeout 60 dmsetup suspend mprl || fail "suspend"
	fi
	run timeout 60 dmsetup resume mprl || fail "resume"
	expect_eq "$(dmsetup table mprl | sed "s/ *$//")" "$2" "new table live"
}
fio --name=rl --filename=/dev/mapper/mprl --rw=randwrite --bs=4k --size=64M --ioengine=libaio --iodepth=16 \
	--direct=1 --verify=crc32c --verify_backlog=512 --verify_fatal=1 --time_based --runtime=45 \
	--output=/tmp/fio-rl.txt &
fio_pid=$!
sleep 3
reload noflush "$T2"; sleep 2
reload flush "$T3"; sleep 2
reload noflush "$T1"; sleep 2

# all paths down: I/O queues; a noflush reload hands it back and the new
# table carries it once the paths return
run path_state "${P[0]}" offline
run path_state "${P[1]}" offline
for i in $(seq 20); do [ "$(dm_path_states mprl)" = FF ] && break; sleep 0.5; done
expect_eq "$(dm_path_states mprl)" FF "both paths failed while offline"
kill -0 $fio_pid 2>/dev/null || fail "fio ended while I/O should be queued"
reload noflush "$T2"
sleep 2
kill -0 $fio_pid 2>/dev/null || fail "fio ended while I/O should be queued"
run path_state "${P[0]}" running
run path_state "${P[1]}" running
for p in "$A" "$B"; do
	[ "$(dm_status mprl | grep -oE "$p [AF]" | awk '{print $2}')" = F ] || continue
	run dmsetup message mprl 0 reinstate_path "$p" || fail "reinstate $p"
done
sleep 2
dm_status mprl
reload flush "$T1"

wait $fio_pid; rc=$?
grep -E 'err=|IOPS' /tmp/fio-rl.txt
[ $rc -eq 0 ] || { cat /tmp/fio-rl.txt; fail "fio exited $rc (I/O or verify error)"; }
grep -q 'err= 0' /tmp/fio-rl.txt || fail "fio reported errors"

# remove while open: refused (EBUSY), the map and its I/O are untouched
fio --name=rm --filename=/dev/mapper/mprl --rw=randread --bs=4k --size=16M --ioengine=libaio --iodepth=8 \
	--direct=1 --time_based --runtime=6 --output=/tmp/fio-rm.txt &
fio_pid=$!
for i in $(seq 60); do
	[ "$(dmsetup info -c --noheadings -o open mprl | tr -d ' ')" -gt 0 ] && break
	sleep 0.5
done
[ "$(dmsetup info -c --noheadings -o open mprl | tr -d ' ')" -gt 0 ] || fail "fio never opened the map"
if out=$(dmsetup remove mprl 2>&1); then
	fail "dmsetup remove of an open map succeeded"
fi
say "remove while open: $out"
[[ $out == *busy* || $out == *Busy* ]] || fail "remove refused without EBUSY: $out"
wait $fio_pid || { cat /tmp/fio-rm.txt; fail "fio failed after the refused remove"; }
grep -q 'err= 0' /tmp/fio-rm.txt || fail "fio reported errors after the refused remove"
run dm_remove mprl || fail "remove once closed"
