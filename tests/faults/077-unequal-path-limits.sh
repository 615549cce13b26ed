#!/bin/bash
# DESCRIPTION: paths with unequal queue limits, stock and blk-mpath: (1) max_sectors_kb lowered on one path before the table load: the map's limits are the paths' stacked as dm core stacks them (the smaller max_sectors), the same on both engines; fio bs=1M verify through the map, also after the failover to the path with the smaller limit, no request refused; (2) a 4096-byte scsi_debug path and a 512-byte loop path (a tmpfs file) of the same size: Debian's 6.1 accepts the table (logical block size = the larger, 4096) on both engines, I/O through either path, a 512-byte direct write refused by the map; a table whose length is not a multiple of 4096 bytes is refused with the same error by both and leaves nothing; (3) a path with a smaller max_sectors added by a reload under fio bs=1M verify, the map suspended for a second first: dm recomputes the limits at resume, but the requests split to the old limit meanwhile still wait in the map; stock sends some to the new path, which refuses them, and fails that healthy path (expected difference, kernel/ENGINE.md "LIMITS"); blk-mpath sends them to the path whose limits take them and keeps both; fio clean on both
# REQUIRES: cmd:fio cmd:losetup mod:scsi_debug mod:loop mod:dm-blk-mpath mod:dm-multipath
# TIER: full
# TIMEOUT: 540
. /opt/blk-mpath/tests/lib/common.sh
. /opt/blk-mpath/tests/lib/faults.sh
FAULT_COMPARE=none
export DM_DISABLE_UDEV=1

RT=20		# fio runtime (s), part 1
RT3=40		# ... part 3 (a suspend, a reload and three waits before its failover)
SMALL=128	# max_sectors_kb of the path with the smaller limit (part 1)
SMALLER=64	# ... of the path a reload adds (part 3)
# the 512-byte path of part 2: a loop device, not null_blk (a memory-backed
# null_blk, which keeps data for fio verify, is a BLK_MQ_F_BLOCKING queue,
# and dm-rq of 6.1 inserts clones under its own non-sleeping dispatch:
# "BUG: sleeping function called from invalid context" in
# blk_insert_cloned_request(), on both engines)
IMG=/dev/shm/077-lbs512.img

qdir() { echo "/sys/block/$1/queue"; }
q() { cat "$(qdir "$1")/$2"; }
dm_dev() { dmsetup info -c --noheadings -o blkdevname "$1" | tr -d ' '; }
# qdump DEV: every queue attribute, "name=value" a line (the engines' maps
# are compared on all of them)
qdump() {
	local f
	for f in "$(qdir "$1")"/*; do
		[ -f "$f" ] && [ -r "$f" ] || continue
		printf '%s=%s\n' "${f##*/}" "$(cat "$f" 2>/dev/null | tr '\n' ' ' | sed 's/ $//')"
	done
}
# the limits dm core stacks (blk_stack_limits): the smallest maximum, the
# largest block/io size
LIM_MIN="max_sectors_kb max_hw_sectors_kb max_segments max_segment_size"
LIM_MAX="logical_block_size physical_block_size minimum_io_size"
# stacked KEY DEV...: what blk_stack_limits makes of KEY over the devices;
# max_sectors and max_hw_sectors then rounded down to a multiple of the
# stacked logical block size, at least a page (blk_round_down_sectors)
stacked() {
	local k=$1 d v r= lbs s
	shift
	for d; do
		v=$(q "$d" "$k")
		if [ -z "$r" ]; then r=$v
		elif [[ " $LIM_MIN " == *" $k "* ]]; then [ "$v" -lt "$r" ] && r=$v
		else [ "$v" -gt "$r" ] && r=$v; fi
	done
	case $k in max_sectors_kb|max_hw_sectors_kb)
		lbs=$(($(stacked logical_block_size "$@") / 512)) s=$((r * 2))
		s=$((s / lbs * lbs))
		[ $s -ge 8 ] || s=8
		r=$((s / 2)) ;;
	esac
	echo "$r"
}
# expect_stacked MAP DEV...: the map's limits are the paths' stacked
expect_stacked() {
	local map=$1 dm k got want
	shift
	dm=$(dm_dev "$map")
	for k in $LIM_MIN $LIM_MAX; do
		got=$(q "$dm" "$k") want=$(stacked "$k" "$@")
		[ "$got" = "$want" ] || fail "$ENGINE: $map ($dm) $k=$got, the paths' ($*: $(for d; do printf '%s ' "$(q "$d" "$k")"; done)) stack to $want"
	done
	say "ok: $map limits = the stacked limits of $*: $(for k in $LIM_MIN $LIM_MAX; do printf '%s=%s ' "$k" "$(q "$dm" "$k")"; done)"
}
# rwstat sdX: "read_ios read_sectors write_ios write_sectors"
rwstat() { awk '{print $1, $3, $5, $7}' "/sys/block/$1/stat"; }
# avg_kb BEFORE AFTER: requests and the average request size (KiB) between two rwstat
avg_req() {
	local r0 rs0 w0 ws0 r1 rs1 w1 ws1 n s
	read -r r0 rs0 w0 ws0 <<<"$1"; read -r r1 rs1 w1 ws1 <<<"$2"
	n=$((r1 - r0 + w1 - w0)) s=$((rs1 - rs0 + ws1 - ws0))
	[ $n -gt 0 ] && echo "$n $((s / 2 / n))" || echo "0 0"
}
# fio_big MAP [SECS]: bs=1M write with crc32c verify, QD4, over 48 MiB, in the background
fio_big() {
	local secs=$((${2:-$RT} * ${TSCALE:-1}))
	FIO_OUT=/tmp/fio-$FAULT_NAME-$ENGINE-$1.json
	FIO_LOG=/tmp/fio-$FAULT_NAME-$ENGINE-$1
	rm -f "$FIO_OUT" "$FIO_LOG"_*.log
	fio --name="$1" --filename="/dev/mapper/$1" --rw=randwrite --bs=1M --size=48M \
		--ioengine=libaio --iodepth=4 --direct=1 --verify=crc32c --verify_backlog=16 \
		--verify_fatal=1 --time_based --runtime="$secs" --output-format=json \
		--output="$FIO_OUT" --write_lat_log="$FIO_LOG" --log_avg_msec=0 --log_unix_epoch=1 \
		>/dev/null 2>"$FIO_OUT.err" &
	FIO_PID=$! FIO_SECS=$secs
	fio_flowing "$1" 30
}
# refused: the kernel's lines for requests a path refused as too large (both engines' words)
refused() { dmesg_since | grep -c "blk_insert_cloned_request: over max size limit"; }

lo_teardown() {
	local d
	d=$(losetup -j "$IMG" -O NAME -n 2>/dev/null)
	[ -n "$d" ] && when_unopened losetup -d "$d"
	rm -f "$IMG"
	true
}
restore() {
	local d
	[ -n "${FIO_PID:-}" ] && kill -9 "$FIO_PID" 2>/dev/null
	for d in "${SD_PATHS[@]}"; do [ -e "/sys/block/$d" ] && path_state "$d" running 2>/dev/null; done
	lo_teardown
}
trap restore EXIT

run_engine() {
	local dm t out rc s0 s1 r n kb lim3 big

	# ---- (1) unequal max_sectors at table load ---------------------------------------
	STEP="part 1"
	sdebug_setup add_host=3
	PA=${SD_PATHS[0]} PB=${SD_PATHS[1]} PC=${SD_PATHS[2]}
	A=$(mm "$PA") B=$(mm "$PB") C=$(mm "$PC") N=$(sectors "/dev/$PA")
	big=$(q "$PA" max_sectors_kb)
	say "paths $PA $PB $PC: max_sectors_kb $big, max_hw_sectors_kb $(q "$PA" max_hw_sectors_kb)"
	[ "$big" -ge 512 ] || fail "$PA max_sectors_kb $big: expected at least 512 (bs=1M must be split by the map)"
	echo $SMALL >"$(qdir "$PB")/max_sectors_kb" || fail "lower $PB max_sectors_kb"
	expect_eq "$(q "$PB" max_sectors_kb)" $SMALL "$PB max_sectors_kb lowered before the load"
	# failover: group 1 = PA (the larger limit), group 2 = PB (the smaller)
	dm_create mpu "0 $N multipath 0 0 2 1 round-robin 0 1 1 $A 1 round-robin 0 1 1 $B 1" || fail "create mpu"
	dm=$(dm_dev mpu)
	expect_stacked mpu "$PA" "$PB"
	expect_eq "$(q "$dm" max_sectors_kb)" $SMALL "$ENGINE: the map's max_sectors_kb is the smaller path's"
	qdump "$dm" >"$FAULT_RES/$FAULT_NAME-$ENGINE-limits1.txt"

	dmesg_mark
	fio_big mpu
	s0=$(rwstat "$PA"); sleep 3; s1=$(rwstat "$PA")
	read -r n kb <<<"$(avg_req "$s0" "$s1")"
	say "$PA (group 1) in 3 s: $n requests, $kb KiB on average"
	[ "$n" -gt 0 ] || fail "$ENGINE: no I/O on $PA"
	[ "$kb" -le $SMALL ] || fail "$ENGINE: $PA's requests average $kb KiB, over the map's $SMALL KiB"
	[ "$kb" -gt $((SMALL / 2)) ] || fail "$ENGINE: $PA's requests average $kb KiB: not large I/O"
	STEP="part 1 failover"
	run path_state "$PA" offline
	wait_path mpu "$A" F 30 || fail "$ENGINE: $PA did not fail"
	fio_alive
	expect_eq "$(dm_path_states mpu)/$(active_group mpu)" FA/2 "$ENGINE: failover to $PB (max_sectors_kb $SMALL)"
	s0=$(rwstat "$PB"); sleep 3; s1=$(rwstat "$PB")
	read -r n kb <<<"$(avg_req "$s0" "$s1")"
	say "$PB (group 2) in 3 s: $n requests, $kb KiB on average"
	[ "$n" -gt 0 ] || fail "$ENGINE: no I/O on $PB after the failover"
	[ "$kb" -le $SMALL ] && [ "$kb" -gt $((SMALL / 2)) ] || fail "$ENGINE: $PB's requests average $kb KiB"
	fio_expect_clean
	local ios1=$FIO_IOS
	expect_eq "$(refused)" 0 "$ENGINE: no request refused by a path as too large"
	expect_eq "$(dm_path_states mpu)/$(active_group mpu)" FA/2 "$ENGINE: $PB kept through the whole run"
	path_state "$PA" running
	dmsetup message mpu 0 reinstate_path "$A" || fail "reinstate $A"
	expect_eq "$(dm_path_states mpu)" AA "$PA reinstated"
	dm_remove mpu || fail "remove mpu"

	# ---- (3) a path with a smaller max_sectors added by a reload under I/O ------------
	STEP="part 3"
	echo $SMALLER >"$(qdir "$PC")/max_sectors_kb" || fail "lower $PC max_sectors_kb"
	dm_create mpr "0 $N multipath 0 0 1 1 round-robin 0 1 1 $A 1" || fail "create mpr"
	dm=$(dm_dev mpr)
	expect_eq "$(q "$dm" max_sectors_kb)" "$big" "$ENGINE: mpr on $PA alone: max_sectors_kb $big"
	dmesg_mark
	fio_big mpr $RT3
	# the map suspended for a second first: fio's next writes, split to
	# the old limit (PA's $big KiB), wait in the map's queue meanwhile and
	# are dispatched under the new table (what a reload racing with I/O
	# does now and then: the resume's own suspend is short)
	run dmsetup suspend mpr || fail "suspend mpr"
	sleep 1
	run dmsetup reload mpr --table "0 $N multipath 0 0 1 1 round-robin 0 2 1 $A 1 $C 1" || fail "reload mpr"
	run dmsetup resume mpr || fail "resume mpr"
	lim3=$(q "$dm" max_sectors_kb)
	expect_eq "$lim3" $SMALLER "$ENGINE: resume recomputed the limits: max_sectors_kb $SMALLER ($PC's)"
	expect_stacked mpr "$PA" "$PC"
	qdump "$dm" >"$FAULT_RES/$FAULT_NAME-$ENGINE-limits3.txt"
	sleep 2
	local st3 ref3
	st3=$(dm_path_states mpr) ref3=$(refused)
	dmesg_since | grep -E "over max size limit|over its queue limits|Failing path" | head -5 | sed 's/^/  | /'
	say "after the reload: paths $st3, $ref3 requests refused by a path as too large"
	kill -0 "$FIO_PID" 2>/dev/null || { fio_expect_clean; fail "$ENGINE: fio ended early"; }
	if [ "$ENGINE" = stock ]; then
		# the case happened: a request split to the old limit reached
		# $PC, which refused it, and stock failed the healthy path
		[ "$ref3" -ge 1 ] || fail "stock: no request refused by $PC after the reload: no request split to the old limit met the new path (the case did not happen)"
		expect_eq "$st3" AF "stock: $PC, which refused a request split to the old limit, failed (stock's verdict)"
		say "ok: stock failed the new path $PC for the old requests (as multipathd's checker would, it is reinstated)"
		dmsetup message mpr 0 reinstate_path "$C" || fail "reinstate $C"
		sleep 1
	else
		expect_eq "$ref3" 0 "blk-mpath: requests refused by a path as too large after the reload (each must go to a path whose limits take it)"
		expect_eq "$st3" AA "blk-mpath: both paths kept after the reload"
	fi
	s0=$(rwstat "$PC"); sleep 3; s1=$(rwstat "$PC")
	read -r n kb <<<"$(avg_req "$s0" "$s1")"
	say "$PC (added) in 3 s: $n requests, $kb KiB on average; paths $(dm_path_states mpr)"
	fio_alive
	[ "$n" -gt 0 ] || fail "$ENGINE: no I/O on the added path $PC"
	[ "$kb" -le $SMALLER ] || fail "$ENGINE: $PC's requests average $kb KiB, over its $SMALLER KiB"
	STEP="part 3 failover"
	fio_alive
	run path_state "$PA" offline
	wait_path mpr "$A" F 30 || fail "$ENGINE: $PA did not fail"
	fio_alive
	s0=$(rwstat "$PC"); sleep 2; s1=$(rwstat "$PC")
	read -r n kb <<<"$(avg_req "$s0" "$s1")"
	say "$PC alone in 2 s: $n requests, $kb KiB on average"
	[ "$n" -gt 0 ] || fail "$ENGINE: no I/O on $PC with $PA failed"
	fio_expect_clean
	local ios3=$FIO_IOS
	expect_eq "$(dm_path_states mpr)" FA "$ENGINE: $PA failed, $PC carried the I/O"
	path_state "$PA" running
	dmsetup message mpr 0 reinstate_path "$A" || fail "reinstate $A"
	expect_eq "$(dm_path_states mpr)" AA "$PA reinstated"
	dm_remove mpr || fail "remove mpr"
	sdebug_teardown

	# ---- (2) unequal logical block sizes -------------------------------------------------
	STEP="part 2"
	sdebug_setup add_host=1 sector_size=4096
	P4=${SD_PATHS[0]}
	modprobe loop || fail "modprobe loop"
	truncate -s "$(($(sectors "/dev/$P4") * 512))" "$IMG" || fail "create $IMG"
	P5=$(losetup -f --show "$IMG") || fail "losetup $IMG"
	P5=${P5#/dev/}
	expect_eq "$(q "$P4" logical_block_size)/$(q "$P5" logical_block_size)" 4096/512 "logical block sizes of $P4/$P5"
	N=$(sectors "/dev/$P4")
	expect_eq "$(sectors "/dev/$P5")" "$N" "$P4 and $P5 have the same size ($N sectors)"
	A=$(mm "$P4") B=$(mm "$P5")
	# Debian's 6.1 dm core takes it: blk_stack_limits() stacks the larger
	# logical block size, device_area_is_invalid() only wants the table's
	# start and length to be multiples of it (no "incompatible" check in
	# this kernel)
	dmesg_mark
	out=$(dmsetup create mpb --table "0 $N multipath 0 0 2 1 round-robin 0 1 1 $A 1 round-robin 0 1 1 $B 1" 2>&1); rc=$?
	say "dmsetup create mpb (4096 + 512): rc=$rc ${out:+: $out}"
	local k2
	k2=$(dmesg_since | grep -E 'device-mapper|blk_stack|alignment' | sed 's/^\[ *[0-9.]*\] //')
	echo "$k2" | grep . | sed 's/^/  | /'
	expect_eq "$rc" 0 "$ENGINE: the table with a 4096 and a 512 path loads (as Debian's 6.1 dm core does)"
	expect_eq "$k2" "" "$ENGINE: no kernel line about the mixed logical block sizes"
	dm=$(dm_dev mpb)
	expect_stacked mpb "$P4" "$P5"
	expect_eq "$(q "$dm" logical_block_size)/$(q "$dm" physical_block_size)" 4096/4096 "$ENGINE: map's logical/physical block size"
	qdump "$dm" >"$FAULT_RES/$FAULT_NAME-$ENGINE-limits2.txt"
	# FUA over paths that differ in it: dm core gives the map FUA when
	# any path has a write-back cache and any path does FUA; for
	# blk-mpath's target (alternative paths: a FUA write goes to one of
	# them) not when a path has a write-back cache without FUA (kernel
	# patch 0005; ENGINE.md "Flush and FUA")
	local wc_any=0 fua_any=0 unsafe=0 want
	for r in "$P4" "$P5"; do
		[ "$(q "$r" write_cache)" = "write back" ] && wc_any=1
		[ "$(q "$r" fua)" = 1 ] && fua_any=1
		[ "$(q "$r" write_cache)" = "write back" ] && [ "$(q "$r" fua)" = 0 ] && unsafe=1
		say "$r: write_cache '$(q "$r" write_cache)', fua $(q "$r" fua)"
	done
	want=$((wc_any && fua_any))
	[ "$ENGINE" = new ] && want=$((want && !unsafe))
	expect_eq "$(q "$dm" fua)" "$want" "$ENGINE: the map's fua"
	# a 512-byte direct write: the raw 512 path takes it, the map refuses it
	run dd if=/dev/zero of=/dev/$P5 bs=512 count=1 seek=1 oflag=direct status=none || fail "512-byte write to raw $P5"
	out=$(dd if=/dev/zero of=/dev/mapper/mpb bs=512 count=1 seek=1 oflag=direct status=none 2>&1); rc=$?
	say "512-byte direct write to mpb: rc=$rc $out"
	[ $rc -ne 0 ] || fail "$ENGINE: a 512-byte direct write to a map of logical block size 4096 succeeded"
	expect_match "$out" "Invalid argument" "$ENGINE: ... refused with EINVAL"
	# I/O through either path (the two hold different data: each is
	# written and verified through one path)
	local w0 w1
	for r in "$P4" "$P5"; do
		w0=$(rwstat "$r")
		timeout 120 fio --name=lbs --filename=/dev/mapper/mpb --rw=randwrite --bs=4k --size=8M --offset=8M \
			--ioengine=libaio --iodepth=4 --direct=1 --verify=crc32c --verify_fatal=1 \
			--output-format=terse >/dev/null 2>/tmp/077-lbs.err ||
			{ cat /tmp/077-lbs.err; fail "$ENGINE: fio write+verify through $r"; }
		w1=$(rwstat "$r")
		read -r n kb <<<"$(avg_req "$w0" "$w1")"
		[ "$n" -ge 2048 ] || fail "$ENGINE: fio through the map reached $r with $n requests"
		say "ok: fio write+verify of 8 MiB through $r ($(q "$r" logical_block_size)-byte blocks): $n requests"
		[ "$r" = "$P4" ] || break
		dmsetup message mpb 0 fail_path "$A" || fail "fail_path $A"
		expect_eq "$(dm_path_states mpb)/$(active_group mpb)" FA/2 "$P4 failed: the 512-byte path $P5 carries the map"
	done
	dmsetup message mpb 0 reinstate_path "$A" || fail "reinstate $A"
	expect_eq "$(dm_path_states mpb)" AA "both paths active"
	dm_remove mpb || fail "remove mpb"
	# a length that is not a multiple of the stacked 4096: refused
	dmesg_mark
	local ndm0 ndm1 k2r
	ndm0=$(ls -d /sys/block/dm-* 2>/dev/null | wc -l)
	out=$(dmsetup create mpb --table "0 $((N - 1)) multipath 0 0 2 1 round-robin 0 1 1 $A 1 round-robin 0 1 1 $B 1" 2>&1); rc=$?
	ndm1=$(ls -d /sys/block/dm-* 2>/dev/null | wc -l)
	k2r=$(dmesg_since | grep 'device-mapper' | sed -e 's/^\[ *[0-9.]*\] //' -e 's/[0-9]*:[0-9]*: len=/MAP: len=/')
	say "dmsetup create mpb (length $((N - 1))): rc=$rc: $out"
	echo "$k2r" | sed 's/^/  | /'
	[ $rc -ne 0 ] || fail "$ENGINE: a table of $((N - 1)) sectors over a 4096-byte path loaded"
	expect_match "$out" "reload ioctl on mpb .*failed: Invalid argument" "$ENGINE: dmsetup's error"
	expect_match "$k2r" "device-mapper: table: MAP: len=$((N - 1)) not aligned to h/w logical block size 4096 of $P4" "$ENGINE: the kernel's line"
	dmsetup info mpb >/dev/null 2>&1 && fail "$ENGINE: map mpb exists after the refused load"
	expect_eq "$ndm1" "$ndm0" "$ENGINE: no dm device left by the refused load"
	echo "$out" >"$FAULT_RES/$FAULT_NAME-$ENGINE-refused.txt"
	echo "$k2r" >>"$FAULT_RES/$FAULT_NAME-$ENGINE-refused.txt"
	lo_teardown
	sdebug_teardown

	fault_result lim1=$SMALL ios1=$ios1 lim3=$lim3 paths3=$st3 refused3=$ref3 ios3=$ios3 lbs2=4096
	# both engines: the same limits on every map, the same refusal
	if [ "$ENGINE" = new ]; then
		# (fua: compared in part 2 against what each engine must stack)
		for k in limits1 limits3 limits2 refused; do
			out=$(diff <(grep -v '^fua=' "$FAULT_RES/$FAULT_NAME-stock-$k.txt") \
				<(grep -v '^fua=' "$FAULT_RES/$FAULT_NAME-new-$k.txt")) ||
				{ echo "$out"; fail "blk-mpath and stock differ in $k"; }
			say "ok: $k the same on both engines"
		done
	fi
}
fault_main
