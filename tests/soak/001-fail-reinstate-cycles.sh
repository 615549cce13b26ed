#!/bin/bash
# DESCRIPTION: soak: 1000 path fail/reinstate cycles on blk-mpath (dm message, sysfs offline/running, SCSI delete + rescan with a noflush reload, mixed) under fio verify=crc32c: 0 I/O errors, 0 verify errors, both paths active at the end
# REQUIRES: cmd:fio mod:scsi_debug engine:new
# TIMEOUT: 5400
. /opt/blk-mpath/tests/lib/common.sh
. /opt/blk-mpath/tests/lib/faults.sh
export DM_DISABLE_UDEV=1
CYCLES=$(tr ' ' '\n' </proc/cmdline | sed -n 's/^blkmpath\.soak_cycles=//p')
CYCLES=${CYCLES:-1000}
engine_load
sdebug_setup
P=("${SD_PATHS[@]}")
table() { echo "0 $N multipath 1 queue_if_no_path 0 1 1 round-robin 0 2 1 $(mm "${P[0]}") 1 $(mm "${P[1]}") 1"; }
N=$(sectors "/dev/${P[0]}")
dm_create mps "$(table)" || fail "create"
hostof() { readlink -f "/sys/block/$1/device" | grep -o 'host[0-9]*' | tail -1; }
H=("$(hostof "${P[0]}")" "$(hostof "${P[1]}")")
fio --name=soak --filename=/dev/mapper/mps --rw=randwrite --bs=4k --size=48M --ioengine=libaio --iodepth=16 \
	--direct=1 --verify=crc32c --verify_backlog=256 --verify_fatal=1 --time_based --runtime=36000 \
	--output-format=json --output=/tmp/fio-soak.json >/dev/null 2>/tmp/fio-soak.err &
fio_pid=$!
sleep 2
reinstate_all() {
	local p
	for p in "${P[@]}"; do dmsetup message mps 0 reinstate_path "$(mm "$p")" 2>/dev/null; done
}
n=(0 0 0) t0=$SECONDS
for c in $(seq "$CYCLES"); do
	kill -0 $fio_pid 2>/dev/null || { cat /tmp/fio-soak.err; fail "fio stopped at cycle $c"; }
	i=$((c % 2)); d=${P[$i]}; dev=$(mm "$d")
	case $((c % 3)) in
	0)	# dm message
		dmsetup message mps 0 fail_path "$dev" || fail "fail_path (cycle $c)"
		wait_path mps "$dev" F 10 || fail "message did not fail $dev (cycle $c)"
		dmsetup message mps 0 reinstate_path "$dev" || fail "reinstate (cycle $c)"
		n[0]=$((n[0] + 1)) ;;
	1)	# the device goes offline: I/O fails the path
		echo offline >"/sys/block/$d/device/state"
		wait_path mps "$dev" F 30 || fail "offline $d did not fail the path (cycle $c)"
		echo running >"/sys/block/$d/device/state"
		dmsetup message mps 0 reinstate_path "$dev" || fail "reinstate (cycle $c)"
		n[1]=$((n[1] + 1)) ;;
	2)	# SCSI delete + rescan: a new device, a noflush reload onto it
		echo 1 >"/sys/block/$d/device/delete"
		wait_path mps "$dev" F 30 || fail "deleting $d did not fail the path (cycle $c)"
		echo "- - -" >"/sys/class/scsi_host/${H[$i]}/scan"
		for k in $(seq 100); do
			nd=$(ls /sys/class/scsi_host/${H[$i]}/device/target*/*:*/block/ 2>/dev/null | head -1)
			[ -n "$nd" ] && [ -b "/dev/$nd" ] && break
			sleep 0.1
		done
		[ -n "$nd" ] || fail "rescan of ${H[$i]} found no disk (cycle $c)"
		P[$i]=$nd
		dmsetup reload mps --table "$(table)" || fail "reload (cycle $c)"
		dmsetup suspend --noflush mps && dmsetup resume mps || fail "noflush swap (cycle $c)"
		n[2]=$((n[2] + 1)) ;;
	esac
	[ $((c % 100)) = 0 ] && say "cycle $c: $(dm_status mps | grep -oE '[0-9]+:[0-9]+ [AF] [0-9]+' | tr '\n' ' ') ($((SECONDS - t0)) s)"
done
reinstate_all
expect_eq "$(dm_path_states mps)" AA "both paths active after $CYCLES cycles"
kill -INT $fio_pid
for k in $(seq 600); do kill -0 $fio_pid 2>/dev/null || break; sleep 0.1; done
kill -0 $fio_pid 2>/dev/null && fail "fio did not stop"
wait $fio_pid; rc=$?
# 128: stopped by our SIGINT
[ "$rc" = 128 ] && rc=0
read -r err ios < <(python3 -c '
import json, sys
t = open("/tmp/fio-soak.json").read()
j = json.loads(t[t.index("{"):])
print(sum(x["error"] for x in j["jobs"]), sum(x["write"]["total_ios"] + x["read"]["total_ios"] for x in j["jobs"]))')
say "fio: rc=$rc errors=$err ios=$ios"
[ "$rc" = 0 ] && [ "$err" = 0 ] || { cat /tmp/fio-soak.err; fail "fio: rc $rc, $err errors"; }
echo "SOAK cycles=$CYCLES message=${n[0]} offline=${n[1]} delete_rescan=${n[2]} ios=$ios io_errors=0 verify_errors=0 seconds=$((SECONDS - t0))"
dm_remove mps
