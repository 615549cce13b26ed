#!/bin/bash
# DESCRIPTION: SG_IO and persistent reservations through the map (sg_inq, sg_persist register / reserve / read keys / preempt) while the path under it is offline or deleted: blk-mpath fails the path and sends the command again on the other path (the command never reached the LU); stock sends it down one path and returns the failure (expected difference, ENGINE.md "Passthrough")
# REQUIRES: cmd:sg_inq cmd:sg_persist cmd:sg_turs mod:tcm_loop mod:dm-blk-mpath mod:dm-multipath
# TIMEOUT: 300
. /opt/blk-mpath/tests/lib/common.sh
. /opt/blk-mpath/tests/lib/faults.sh
. /opt/blk-mpath/tests/lib/lio.sh
FAULT_COMPARE=none
export DM_DISABLE_UDEV=1
K1=0xabc1 K2=0xabc2

# sg CMD...: run an sg3_utils command; r="ok" or "failed(rc)", SG_OUT its output
sg() {
	SG_OUT=$(timeout 30 "$@" 2>&1)
	local rc=$?
	if [ $rc = 0 ]; then r=ok; else r="failed($rc)"; fi
}

run_engine() {
	local A B N r res=() keys i
	lio_setup 2
	A=${LIO_MM[0]} B=${LIO_MM[1]} N=$(sectors "/dev/${LIO_PATHS[0]}")
	# failover table: port 0's path in group 1, the one ioctls go down
	dm_create mpg "0 $N multipath 0 0 2 1 round-robin 0 1 1 $A 1 round-robin 0 1 1 $B 1" || fail "create"
	run timeout 30 dd if=/dev/mapper/mpg of=/dev/null bs=4k count=1 iflag=direct status=none || fail "read"
	expect_eq "$(dm_path_states mpg)" AA "both paths active"

	# 1. INQUIRY with the active path offline (the map has not seen it yet)
	path_state "${LIO_PATHS[0]}" offline
	sg sg_inq /dev/mapper/mpg
	say "$ENGINE: sg_inq with path $A offline: $r ($(echo "$SG_OUT" | grep -m1 -iE 'vendor|error|fail' | tr -s ' '))"
	res+=(inq_offline=$r)
	# 2. PR OUT register, then reserve, then PR IN read keys
	sg sg_persist --out --register --param-sark=$K1 /dev/mapper/mpg; res+=(register=$r)
	say "$ENGINE: register with the path offline: $r"
	sg sg_persist --out --reserve --param-rk=$K1 --prout-type=1 /dev/mapper/mpg; res+=(reserve=$r)
	sg sg_persist --in --read-keys /dev/mapper/mpg; res+=(read_keys=$r)
	keys=$SG_OUT
	say "$ENGINE: read keys: $(echo "$keys" | tr -s ' \n' ' ')"
	path_state "${LIO_PATHS[0]}" running
	# back online, the disk is revalidated: wait until it answers
	for i in $(seq 50); do timeout 5 sg_turs "/dev/${LIO_PATHS[0]}" >/dev/null 2>&1 && break; sleep 0.2; done
	if [ "$ENGINE" = new ]; then
		expect_eq "${res[*]}" "inq_offline=ok register=ok reserve=ok read_keys=ok" \
			"blk-mpath: every command went through on the other path"
		expect_match "$keys" "${K1}" "the registered key is there"
		expect_eq "$(path_state_of mpg "$A")" F "the offline path was failed by the ioctl"
		dmesg | grep -E "ioctl: SG_IO .*never reached the LU" | tail -1
	else
		[[ ${res[0]} == *failed* ]] || fail "stock: sg_inq with the chosen path offline did not fail (${res[0]})"
	fi
	run dmsetup message mpg 0 reinstate_path "$A"

	# 3. a second registrant through port 0, then port 0's disk deleted: the
	# holder (K1, port 1's nexus) preempts it through the map
	run dmsetup message mpg 0 switch_group 1
	sg sg_persist --out --register --param-sark=$K2 /dev/mapper/mpg
	[ "$r" = ok ] || fail "register $K2 on port 0: $r $SG_OUT"
	echo 1 >"/sys/block/${LIO_PATHS[0]}/device/delete"
	sg sg_persist --out --preempt --param-rk=$K1 --param-sark=$K2 --prout-type=1 /dev/mapper/mpg
	res+=(preempt_deleted=$r)
	say "$ENGINE: preempt with the chosen path deleted: $r"
	if [ "$ENGINE" = new ]; then
		[ "$r" = ok ] || { echo "$SG_OUT"; fail "blk-mpath: preempt with the path deleted"; }
		sg sg_persist --in --read-keys /dev/mapper/mpg
		say "$ENGINE: keys after the preempt: $(echo "$SG_OUT" | tr -s ' \n' ' ')"
		[[ $SG_OUT == *$K2* ]] && fail "K2 still registered after the preempt"
		expect_match "$SG_OUT" "$K1" "K1 (the holder) still registered"
	else
		[[ $r == failed* ]] || fail "stock: preempt down a deleted path did not fail"
	fi
	fault_result "${res[@]}"
	dmsetup remove mpg
	lio_teardown
}
fault_main
