#!/bin/bash
# DESCRIPTION: discard and write-zeroes through a failover map on a thin scsi_debug LUN (UNMAP, LBPRZ=1), stock and blk-mpath: the map advertises what its paths support (discard/write-zeroes limits, a lower limit on one path, none when one path lacks them: dm's rule at table load), discarded and zeroed ranges read back as zeroes and the data around them is intact, also with the active path offline (the other path carries them); both engines advertise the same
# REQUIRES: cmd:blkdiscard mod:scsi_debug mod:dm-blk-mpath mod:dm-multipath
# TIER: full
# TIMEOUT: 300
. /opt/blk-mpath/tests/lib/common.sh
. /opt/blk-mpath/tests/lib/faults.sh
FAULT_COMPARE=none
export DM_DISABLE_UDEV=1

# scsi_debug with logical block provisioning: UNMAP (lbpu) and WRITE SAME(16)
# with UNMAP (lbpws), unmapped blocks read as zeroes (lbprz=1); 4 KiB unmap
# granularity, at most 1 MiB per UNMAP, at most 2 MiB per WRITE SAME.  sd then
# uses UNMAP for discards (provisioning_mode "unmap") and WRITE SAME for
# write zeroes (BLKZEROOUT: no unmap bit).
SD_LBP="lbpu=1 lbpws=1 lbprz=1 unmap_granularity=8 unmap_max_blocks=2048 write_same_length=4096"
MIB=1048576
PAT=/tmp/071-pattern EXP=/tmp/071-expected

# limits DEV: "discard_max_bytes/discard_max_hw_bytes/discard_granularity/write_zeroes_max_bytes"
limits() {
	local q=/sys/block/$1/queue
	echo "$(cat $q/discard_max_bytes)/$(cat $q/discard_max_hw_bytes)/$(cat $q/discard_granularity)/$(cat $q/write_zeroes_max_bytes)"
}
# expected_limits sdX...: what dm core makes of the paths' limits (stacking:
# the smallest non-zero maximum, the largest granularity; then
# dm_table_supports_discards / _write_zeroes: one path without them
# (bdev_max_discard_sectors / max_write_zeroes_sectors 0) and the map has none)
expected_limits() {
	local d m h g w dm=0 dh=0 dg=0 wz=0 disc=1 wzok=1
	for d; do
		IFS=/ read -r m h g w <<<"$(limits "$d")"
		[ "$m" = 0 ] && disc=0
		[ "$w" = 0 ] && wzok=0
		{ [ $dm = 0 ] || { [ "$m" != 0 ] && [ "$m" -lt $dm ]; }; } && dm=$m
		{ [ $dh = 0 ] || { [ "$h" != 0 ] && [ "$h" -lt $dh ]; }; } && dh=$h
		[ "$g" -gt $dg ] && dg=$g
		{ [ $wz = 0 ] || { [ "$w" != 0 ] && [ "$w" -lt $wz ]; }; } && wz=$w
	done
	[ $disc = 0 ] && dm=0 dh=0 dg=0
	[ $wzok = 0 ] && wz=0
	echo "$dm/$dh/$dg/$wz"
}
# pstat sdX FIELD: a /sys/block/sdX/stat field (5 write I/Os, 7 write sectors,
# 12 discard I/Os, 14 discard sectors)
pstat() { awk -v f="$2" '{print $f}' "/sys/block/$1/stat"; }
# nonzero OFF LEN: bytes of the map in [OFF, OFF+LEN) that are not 0
nonzero() {
	dd if=/dev/mapper/mpd bs=1M iflag=direct,skip_bytes,count_bytes skip="$1" count="$2" status=none |
		tr -d '\0' | wc -c
}
map_md5() { dd if=/dev/mapper/mpd bs=1M iflag=direct status=none | md5sum | cut -d' ' -f1; }
# expect_zeroed OFF LEN: zero the range in the expected image too
expect_zeroed() {
	dd if=/dev/zero of=$EXP bs=1M oflag=seek_bytes iflag=count_bytes seek="$1" count="$2" conv=notrunc status=none
}
# reload: the same table again; dm core recomputes the limits when the new
# table is bound (resume)
reload() {
	dmsetup reload mpd --table "$T" || fail "reload mpd"
	dmsetup resume mpd || fail "resume mpd"
}
scsi_disk_of() { ls -d /sys/block/$1/device/scsi_disk/* | head -1; }
host_of() { basename "$(readlink -f "/sys/block/$1/device")" | cut -d: -f1; }
# scsi_run CMD...: run CMD with the SCSI commands dispatched to the hosts of
# both paths traced; sets OPS ("host:OPCODE" a line); returns CMD's status
TR=/sys/kernel/debug/tracing
scsi_run() {
	local rc on
	on=$(cat $TR/tracing_on)
	echo 0 >$TR/tracing_on; : >$TR/trace
	echo "host_no == $HA || host_no == $HB" >$TR/events/scsi/scsi_dispatch_cmd_start/filter
	echo 1 >$TR/events/scsi/scsi_dispatch_cmd_start/enable
	echo 1 >$TR/tracing_on
	"$@"
	rc=$?
	echo 0 >$TR/tracing_on
	echo 0 >$TR/events/scsi/scsi_dispatch_cmd_start/enable
	echo 0 >$TR/events/scsi/scsi_dispatch_cmd_start/filter
	OPS=$(sed -n 's/.*host_no=\([0-9]*\) .*cmnd=(\([A-Z_0-9]*\) .*/\1:\2/p' $TR/trace)
	echo "$on" >$TR/tracing_on
	say "SCSI commands: $(sort <<<"$OPS" | grep . | uniq -c | awk '{printf "%s x%s ", $2, $1}')"
	return $rc
}
# ops HOST REGEX: how many traced commands to HOST matched the opcode REGEX
ops() { grep -cE "^($1):($2)\$" <<<"$OPS"; }

restore_paths() {
	local d
	[ -n "${PB:-}" ] && [ -e "/sys/block/$PB" ] || return 0
	d=$(scsi_disk_of "$PB")
	echo unmap >"$d/provisioning_mode" 2>/dev/null
	[ -n "${WS0:-}" ] && echo "$WS0" >"$d/max_write_same_blocks" 2>/dev/null
	[ -n "${DMAX0:-}" ] && echo "$DMAX0" >"/sys/block/$PB/queue/discard_max_bytes" 2>/dev/null
	for d in "${SD_PATHS[@]}"; do path_state "$d" running 2>/dev/null; done
	true
}
cleanup() { restore_paths; rm -f $PAT $EXP; }
trap cleanup EXIT

run_engine() {
	local d k dm base got want out rc a0 b0 bw0 h n r r_off r_len lim_low lim_nodisc lim_noprov lim_nowz sk
	# shellcheck disable=SC2086
	sdebug_setup $SD_LBP
	PA=${SD_PATHS[0]} PB=${SD_PATHS[1]}
	path_vars "$PA" "$PB"
	HA=$(host_of "$PA") HB=$(host_of "$PB")
	for d in "$PA" "$PB"; do
		say "$d: provisioning_mode $(cat "$(scsi_disk_of "$d")/provisioning_mode")," \
			"zeroing_mode $(cat "$(scsi_disk_of "$d")/zeroing_mode"), limits $(limits "$d")"
	done
	expect_eq "$(cat "$(scsi_disk_of "$PA")/provisioning_mode")" unmap "$PA discards with UNMAP"
	expect_eq "$(limits "$PA")" "$MIB/$MIB/4096/$((4096 * 512))" "$PA limits (scsi_debug unmap_max_blocks, unmap_granularity, write_same_length)"
	expect_eq "$(limits "$PB")" "$(limits "$PA")" "both paths have the same limits"
	DMAX0=$(cat /sys/block/$PB/queue/discard_max_bytes)
	WS0=$(cat "$(scsi_disk_of "$PB")/max_write_same_blocks")

	# failover: group 1 = PA, group 2 = PB
	T="0 $N multipath 0 0 2 1 round-robin 0 1 1 $A 1 round-robin 0 1 1 $B 1"
	dm_create mpd "$T" || fail "create mpd"
	dm=$(dmsetup info -c --noheadings -o blkdevname mpd | tr -d ' ')

	# 1. the map advertises what the paths support
	base=$(limits "$dm")
	say "map $dm limits $base"
	expect_eq "$base" "$(expected_limits "$PA" "$PB")" "$ENGINE: map discard/write-zeroes limits = the paths'"

	# 2. a known pattern, then a discard and a write-zeroes through the map
	STEP="pattern"
	n=$(($(sectors /dev/mapper/mpd) * 512))
	head -c "$n" /dev/urandom >$PAT
	cp $PAT $EXP
	dd if=$PAT of=/dev/mapper/mpd bs=1M oflag=direct conv=fsync status=none || fail "writing the pattern"
	expect_eq "$(map_md5)" "$(md5sum <$PAT | cut -d' ' -f1)" "the pattern reads back"
	for r in "4 4" "12 3" "20 2" "28 1"; do
		read -r r_off r_len <<<"$r"
		[ "$(nonzero $((r_off * MIB)) $((r_len * MIB)))" -gt 0 ] || fail "range at $r_off MiB holds zeroes before the test"
	done

	STEP="discard"
	a0=$(pstat "$PA" 14) b0=$(pstat "$PB" 14) h=$(pstat "$PA" 12)
	scsi_run run timeout 60 blkdiscard -f -o $((4 * MIB)) -l $((4 * MIB)) /dev/mapper/mpd ||
		fail "$ENGINE: blkdiscard through the map failed"
	expect_zeroed $((4 * MIB)) $((4 * MIB))
	expect_eq "$(nonzero $((4 * MIB)) $((4 * MIB)))" 0 "the discarded range reads as zeroes (LBPRZ=1)"
	expect_eq "$(($(pstat "$PA" 14) - a0))/$(($(pstat "$PB" 14) - b0))" "$((4 * MIB / 512))/0" \
		"discarded sectors on $PA/$PB (the active path carried the whole discard)"
	[ $(($(pstat "$PA" 12) - h)) -ge 4 ] || fail "$ENGINE: a 4 MiB discard reached $PA in $(($(pstat "$PA" 12) - h)) requests (1 MiB limit)"
	[ "$(ops "$HA" UNMAP)" -ge 4 ] && [ "$(ops "$HB" UNMAP)" = 0 ] ||
		fail "$ENGINE: expected at least 4 UNMAP commands on $PA (host $HA), none on $PB (host $HB)"
	say "ok: the 4 MiB discard reached $PA in $(($(pstat "$PA" 12) - h)) requests of at most 1 MiB, $(ops "$HA" UNMAP) UNMAP commands"

	STEP="write zeroes"
	a0=$(pstat "$PA" 7)
	scsi_run run timeout 60 blkdiscard -f -z -o $((12 * MIB)) -l $((3 * MIB)) /dev/mapper/mpd ||
		fail "$ENGINE: blkdiscard -z through the map failed"
	expect_zeroed $((12 * MIB)) $((3 * MIB))
	expect_eq "$(nonzero $((12 * MIB)) $((3 * MIB)))" 0 "the write-zeroes range reads as zeroes"
	[ $(($(pstat "$PA" 7) - a0)) -ge $((3 * MIB / 512)) ] || fail "$ENGINE: write zeroes: $PA wrote only $(($(pstat "$PA" 7) - a0)) sectors"
	# a write zeroes (no unmap bit: BLKZEROOUT) is WRITE SAME on sd, 2 MiB at most
	[ "$(ops "$HA" "WRITE_SAME|WRITE_SAME_16")" -ge 2 ] || fail "$ENGINE: expected at least 2 WRITE SAME commands on $PA"
	say "ok: the 3 MiB write zeroes reached $PA as $(ops "$HA" "WRITE_SAME|WRITE_SAME_16") WRITE SAME commands"
	expect_eq "$(map_md5)" "$(md5sum <$EXP | cut -d' ' -f1)" "the data outside the discarded and zeroed ranges is intact"
	expect_eq "$(dm_path_states mpd)" AA "both paths still active"

	# 3. the same with the active path offline: the discard is refused by
	# PA, PA fails, PB carries it; then a write-zeroes, through PB
	STEP="failover"
	dmesg_mark
	path_state "$PA" offline
	b0=$(pstat "$PB" 14) a0=$(pstat "$PA" 14) bw0=$(pstat "$PB" 7)
	scsi_run run timeout 60 blkdiscard -f -o $((20 * MIB)) -l $((2 * MIB)) /dev/mapper/mpd ||
		fail "$ENGINE: blkdiscard with $PA offline failed"
	expect_zeroed $((20 * MIB)) $((2 * MIB))
	h=$(readlink -f /sys/block/$PA/device); h=${h##*/}
	dmesg_since | grep -E "$h.*rejecting I/O to offline device|Failing path $A" | head -3
	dmesg_since | grep -q "$h.*rejecting I/O to offline device" || fail "$ENGINE: nothing reached offline $PA"
	say "ok: the offline path $PA refused I/O"
	expect_eq "$(dm_path_states mpd)" FA "$ENGINE: $PA failed, $PB active"
	expect_eq "$(($(pstat "$PA" 14) - a0))/$(($(pstat "$PB" 14) - b0))" "0/$((2 * MIB / 512))" \
		"discarded sectors on $PA/$PB with $PA offline (the other path carried the discard)"
	expect_eq "$(ops "$HA" UNMAP)/$(( $(ops "$HB" UNMAP) >= 2 ))" 0/1 "UNMAP commands: none to offline $PA, at least 2 to $PB"
	run timeout 60 blkdiscard -f -z -o $((28 * MIB)) -l $((1 * MIB)) /dev/mapper/mpd || fail "$ENGINE: blkdiscard -z with $PA offline failed"
	expect_zeroed $((28 * MIB)) $((1 * MIB))
	[ $(($(pstat "$PB" 7) - bw0)) -ge $((MIB / 512)) ] || fail "$ENGINE: write zeroes with $PA offline: $PB wrote only $(($(pstat "$PB" 7) - bw0)) sectors"
	expect_eq "$(nonzero $((20 * MIB)) $((2 * MIB)))/$(nonzero $((28 * MIB)) $((1 * MIB)))" 0/0 \
		"ranges discarded / zeroed through $PB read as zeroes"
	expect_eq "$(map_md5)" "$(md5sum <$EXP | cut -d' ' -f1)" "the data outside every range is intact after the failover"
	path_state "$PA" running
	dmsetup message mpd 0 reinstate_path "$A" || fail "reinstate $A"
	expect_eq "$(dm_path_states mpd)" AA "$PA reinstated"

	# 4. one path with other limits, then one path without discard or
	# write zeroes; the map's limits are computed when a table is bound
	STEP="path limits"
	echo $((MIB / 2)) >/sys/block/$PB/queue/discard_max_bytes || fail "lower $PB discard_max_bytes"
	expect_eq "$(limits "$dm")" "$base" "$ENGINE: the live table keeps its limits when a path's limits change"
	reload
	lim_low=$(limits "$dm")
	say "$PB limits $(limits "$PB"): map $lim_low"
	expect_eq "$lim_low" "$(expected_limits "$PA" "$PB")" "$ENGINE: $PB with discard_max_bytes 512k: map limits after the reload"
	a0=$(($(pstat "$PA" 14) + $(pstat "$PB" 14))) h=$(($(pstat "$PA" 12) + $(pstat "$PB" 12)))
	run timeout 60 blkdiscard -f -o $((36 * MIB)) -l $((2 * MIB)) /dev/mapper/mpd || fail "$ENGINE: blkdiscard (512k limit) failed"
	expect_zeroed $((36 * MIB)) $((2 * MIB))
	n=$(($(pstat "$PA" 12) + $(pstat "$PB" 12) - h))
	expect_eq "$(($(pstat "$PA" 14) + $(pstat "$PB" 14) - a0))" $((2 * MIB / 512)) "sectors discarded on the paths"
	[ "$n" -ge 4 ] || fail "$ENGINE: a 2 MiB discard with a 512k map limit reached the paths in $n requests"
	say "ok: the 2 MiB discard reached the paths in $n requests"

	echo 0 >/sys/block/$PB/queue/discard_max_bytes || fail "$PB discard_max_bytes 0"
	reload
	lim_nodisc=$(limits "$dm")
	say "$PB limits $(limits "$PB"): map $lim_nodisc"
	expect_eq "$lim_nodisc" "0/0/0/$((4096 * 512))" "$ENGINE: $PB with discard_max_bytes 0: the map has no discard, keeps write zeroes"
	expect_eq "$lim_nodisc" "$(expected_limits "$PA" "$PB")" "$ENGINE: ... as dm's rule says"
	out=$(timeout 60 blkdiscard -f -o $((44 * MIB)) -l $MIB /dev/mapper/mpd 2>&1); rc=$?
	say "blkdiscard: rc=$rc $out"
	[ $rc -ne 124 ] || fail "blkdiscard hung"
	[ $rc -ne 0 ] || fail "$ENGINE: blkdiscard succeeded on a map without discard"
	expect_match "$out" "not supported" "$ENGINE: blkdiscard refused (EOPNOTSUPP)"
	echo "$DMAX0" >/sys/block/$PB/queue/discard_max_bytes || fail "restore $PB discard_max_bytes"

	sk=$(scsi_disk_of "$PB")
	echo disabled >"$sk/provisioning_mode" || fail "$PB provisioning_mode disabled"
	reload
	lim_noprov=$(limits "$dm")
	say "$PB limits $(limits "$PB"): map $lim_noprov"
	expect_eq "$lim_noprov" "0/0/0/$((4096 * 512))" "$ENGINE: $PB with provisioning_mode disabled: no discard on the map"
	echo 0 >"$sk/max_write_same_blocks" || fail "$PB max_write_same_blocks 0"
	reload
	lim_nowz=$(limits "$dm")
	say "$PB limits $(limits "$PB"): map $lim_nowz"
	expect_eq "$lim_nowz" 0/0/0/0 "$ENGINE: $PB also without WRITE SAME: no write zeroes on the map"
	expect_eq "$lim_nowz" "$(expected_limits "$PA" "$PB")" "$ENGINE: ... as dm's rule says"
	# BLKZEROOUT falls back to writing zero pages
	scsi_run run timeout 60 blkdiscard -f -z -o $((44 * MIB)) -l $MIB /dev/mapper/mpd ||
		fail "$ENGINE: blkdiscard -z (no write zeroes) failed"
	expect_zeroed $((44 * MIB)) $MIB
	expect_eq "$(ops "$HA|$HB" "WRITE_SAME|WRITE_SAME_16")/$(( $(ops "$HA|$HB" "WRITE_10|WRITE_16") > 0 ))" 0/1 \
		"$ENGINE: no write zeroes on the map: BLKZEROOUT wrote zero pages (WRITE, no WRITE SAME)"
	expect_eq "$(nonzero $((36 * MIB)) $((2 * MIB)))/$(nonzero $((44 * MIB)) $MIB)" 0/0 "ranges read as zeroes"
	expect_eq "$(map_md5)" "$(md5sum <$EXP | cut -d' ' -f1)" "the data outside every range is intact at the end"

	echo unmap >"$sk/provisioning_mode" || fail "restore $PB provisioning_mode"
	echo "$WS0" >"$sk/max_write_same_blocks" || fail "restore $PB max_write_same_blocks"
	reload
	expect_eq "$(limits "$dm")" "$base" "$ENGINE: the paths restored, the map advertises its first limits again"
	expect_eq "$(dm_path_states mpd)" AA "both paths active at the end"

	fault_result map=$base lowB=$lim_low nodiscB=$lim_nodisc noprovB=$lim_noprov nowzB=$lim_nowz
	# both engines must advertise the same (dm core's rule, the same for both)
	if [ "$ENGINE" = new ]; then
		for k in map lowB nodiscB noprovB nowzB; do
			got=$(fault_value new $k) want=$(fault_value stock $k)
			[ -n "$want" ] || fail "no stock result for $k"
			expect_eq "$got" "$want" "blk-mpath advertises what stock does: $k"
		done
	fi
	dm_remove mpd
	restore_paths
}
fault_main
