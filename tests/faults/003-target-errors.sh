#!/bin/bash
# DESCRIPTION: target errors on one sector of path 0 (QEMU ENODATA = MEDIUM ERROR, EREMOTEIO = HARDWARE ERROR, EBADE = RESERVATION CONFLICT) reach the caller with their errno and keep both paths, while fio verify elsewhere on the map stays clean (stock and blk-mpath)
# REQUIRES: cmd:fio mod:dm-blk-mpath mod:dm-multipath
# TIMEOUT: 240
. /opt/blk-mpath/tests/lib/common.sh
. /opt/blk-mpath/tests/lib/faults.sh
FAULT_COMPARE=none
export DM_DISABLE_UDEV=1
need_hostctl
S=409600	# a 512-byte sector at 200 MiB, outside fio's first 64 MiB

# probe read|write: one 4k direct I/O on sector S through the map; prints
# "rc=N ms=N msg"
probe() {
	local t0 out rc
	t0=$(date +%s%3N)
	if [ "$1" = read ]; then
		out=$(timeout 60 dd if=/dev/mapper/mpt of=/dev/null bs=512 count=8 skip=$S iflag=direct 2>&1)
	else
		out=$(timeout 60 dd if=/dev/zero of=/dev/mapper/mpt bs=512 count=8 seek=$S oflag=direct 2>&1)
	fi
	rc=$?
	echo "rc=$rc ms=$(($(date +%s%3N) - t0)) $(echo "$out" | grep -m1 -oE 'error [a-z]+ .*|Input/output error|No data available|Remote I/O error|Invalid exchange')"
}

run_engine() {
	local r res=()
	qmap_create mpt failover
	fio_start mpt 30
	for c in "ENODATA read_aio 61 read No data available" \
		"EREMOTEIO read_aio 121 read Remote I/O error" \
		"EBADE write_aio 52 write Invalid exchange"; do
		read -r name ev errno dir msg <<<"$c"
		hostctl inject 0 "$ev" "$errno" sector=$S || fail "inject $name"
		r=$(probe "$dir")
		say "$name on $dir of sector $S: $r"
		[[ $r == rc=124* ]] && fail "$name: the I/O hung"
		[[ $r == rc=0* ]] && fail "$name: the $dir succeeded, the error did not reach the caller"
		[[ $r == *"$msg"* ]] || fail "$name: expected '$msg', got: $r"
		expect_eq "$(dm_path_states mpt)" AA "$name: both paths kept"
		r=${r#* ms=}
		res+=("${name}_ms=${r%% *}")
		hostctl clear 0
	done
	fio_expect_clean
	expect_gap_below 30000
	fault_result "${res[@]}" paths=AA
	dm_remove mpt
}
fault_main
