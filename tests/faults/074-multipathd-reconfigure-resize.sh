#!/bin/bash
# DESCRIPTION: multipathd reconfigure and resize (LIO tcm_loop, iblock backstore on a loop device, two ports) under fio verify, stock and blk-mpath: a changed multipath.conf (failover -> multibus, round-robin -> service-time, no_path_retry fail -> queue) and "multipathd reconfigure" reload the live map as configured (dmsetup table, both paths carry writes), no I/O error; the LUN grows (loop file + losetup -c, both paths rescanned), "multipathd resize map" grows the map (blockdev --getsz), the data before the old end is intact and fio verify in the new area passes, the data lands in the backing file
# REQUIRES: cmd:fio cmd:multipathd cmd:losetup mod:tcm_loop mod:target_core_iblock mod:loop mod:dm-blk-mpath mod:dm-multipath
# TIER: full
# TIMEOUT: 600
. /opt/blk-mpath/tests/lib/common.sh
. /opt/blk-mpath/tests/lib/faults.sh
. /opt/blk-mpath/tests/lib/lio.sh
# The LUN: a file in /dev/shm, a loop device on it, LIO's iblock backstore
# on the loop device (iblock reports the block device's current size in
# READ CAPACITY: iblock_get_blocks), exported on two tcm_loop ports in
# LIO's default ALUA group (both active/optimized).  multipathd 0.9.4 does
# not resize a map on its own when its paths grow (no auto_resize yet):
# the map keeps its size until "multipathd resize map", which checks the
# first path's sysfs size and reloads the table with it.
# "multipathd reconfigure" (weak: FORCE_RELOAD_WEAK) rebuilds every map
# from the new configuration and reloads those whose table differs
# (select_action: "selector change", "path group number change",
# "no_path_retry change"): one reload (suspend/resume) of the live map.
# Both engines alike.
#
# Bounds: the reconfigure (config parse, rediscovery of the 4 SCSI paths,
# one reload) took 0.9 s from the command to the new table under TCG, on
# both engines; RECONF_S 5 is about 5x that.  The resize command returns
# after its reload: the size is checked at once.  BOUND_MS: the longest
# fio I/O, a reload's suspend under TCG included: measured 190-265 ms
# (around the reconfigure and the resize), 45-65 ms in the new area.
CONF=/etc/multipath/conf.d/blkmpath-074-reconfigure.conf
LOOPF=/dev/shm/blkmpath-074.img
MB0=64 MB1=96	# the LUN before and after the resize (MiB)
FIO_MB=32	# fio verify's region [0, 32 MiB); [32, 64) holds the pattern
RECONF_S=5
BOUND_MS=2000
LOOPDEV=
cleanup() {
	rm -f "$CONF"
	lio_quiesce
	# detaches at once, or when LIO lets go of it (autoclear)
	[ -n "$LOOPDEV" ] && losetup -d "$LOOPDEV" 2>/dev/null
	rm -f "$LOOPF" /tmp/074-pattern
}
trap cleanup EXIT

# mpd_conf GROUPING SELECTOR NO_PATH_RETRY READY: lio_multipathd with
# those (READY "-": CONF written only)
mpd_conf() {
	lio_multipathd "$CONF" "" "$4" "path_grouping_policy $1" "path_selector \"$2\"" "no_path_retry $3" \
		"prio alua" 'hardware_handler "1 alua"' "path_checker tur" "failback immediate"
}

# lio_iblock_setup: LIO_PATHS/LIO_MM/LIO_HCTLS of a 2-port LUN on an
# iblock backstore over $LOOPDEV (lio_setup's steps without its rd_mcp
# backstore and ALUA groups: the ports stay in default_tg_pt_gp)
lio_iblock_setup() {
	local i h a
	mountpoint -q /sys/kernel/config || mount -t configfs configfs /sys/kernel/config
	modprobe -a tcm_loop target_core_iblock scsi_dh_alua || fail "modprobe tcm_loop target_core_iblock scsi_dh_alua"
	mkdir -p /var/target/pr
	mkdir -p "$LIO_CFG/loopback" || fail "no LIO loopback fabric in configfs"
	LIO_HBA=$LIO_CFG/core/iblock_74 LIO_DEV=$LIO_CFG/core/iblock_74/blkmpath
	read -r LIO_SERIAL </proc/sys/kernel/random/uuid
	mkdir -p "$LIO_DEV" || fail "cannot create the iblock backstore"
	echo "udev_path=$LOOPDEV" >"$LIO_DEV/control" &&
		echo "$LIO_SERIAL" >"$LIO_DEV/wwn/vpd_unit_serial" &&
		echo 1 >"$LIO_DEV/enable" || fail "cannot configure the iblock backstore on $LOOPDEV"
	LIO_PATHS=() LIO_MM=() LIO_HCTLS=()
	for i in 1 2; do
		_lio_port "$i"
		mkdir -p "$LIO_L" || fail "cannot create port $i"
		echo "$LIO_I" >"$LIO_T/nexus" || fail "cannot create the nexus of port $i"
		ln -s "$LIO_DEV" "$LIO_L/blkmpath" || fail "cannot export the LUN on port $i"
		read -r a <"$LIO_T/address" || fail "port $i has no SCSI address"
		LIO_HCTLS+=("$a:$LIO_LUN")
	done
	for h in "${LIO_HCTLS[@]}"; do _lio_add_path "$h" "$h"; done
	say "lio: iblock on $LOOPDEV, serial $LIO_SERIAL: ${LIO_PATHS[*]} (${LIO_MM[*]}) at ${LIO_HCTLS[*]}"
}

mpd_journal() { # since (date): multipathd's lines about the map
	journalctl -u multipathd --no-pager -o short-monotonic --since "$1" 2>/dev/null |
		grep -E "$MAP|reconfigure" | grep -v checker | tail -8 | sed 's/^/  multipathd| /'
}
# table_shape MAP: the table with the paths named P1/P2: "features=[..]
# hw=[..] pgs=N pg1=SELECTOR:P1,.. pg2=..."
table_shape() {
	dm_table "$1" | sed "s/\b$A\b/P1/g; s/\b$B\b/P2/g" | awk '{
		i = 1; f = $i; for (k = 1; k <= $i; k++) f = f " " $(i + k); i += $i + 1
		h = $i; for (k = 1; k <= $i; k++) h = h " " $(i + k); i += $i + 1
		npg = $i; i += 2
		out = "features=[" f "] hw=[" h "] pgs=" npg
		for (g = 1; g <= npg; g++) {
			sel = $i; i++; i += $i + 1; np = $i; na = $(i + 1); i += 2; p = ""
			for (k = 0; k < np; k++) { p = p (k ? "," : "") $i; i += 1 + na }
			out = out " pg" g "=" sel ":" p
		}
		print out
	}'
}
shape_is() { [ "$(table_shape "$MAP")" = "$1" ]; }
# first_shape MAP: the table as first configured ($want0)
first_shape() { [ "$(table_shape "$1")" = "$want0" ]; }
# region_md5 DEV OFF_MB LEN_MB
region_md5() {
	dd if="$1" bs=1M skip="$2" count="$3" iflag=direct status=none | md5sum | cut -d' ' -f1
}
file_md5() { # OFF_MB LEN_MB: the backing file's bytes (through the page cache)
	dd if="$LOOPF" bs=1M skip="$1" count="$2" status=none | md5sum | cut -d' ' -f1
}

run_engine() {
	local i w1 w2 shape0 shape1 want0 want1 md5p old new t_reconf out wmap gap1 d since
	modprobe loop || fail "modprobe loop"
	rm -f "$LOOPF"
	truncate -s ${MB0}M "$LOOPF" || fail "truncate $LOOPF"
	LOOPDEV=$(losetup -f --show "$LOOPF") || fail "losetup $LOOPF"
	lio_iblock_setup
	P1=${LIO_PATHS[0]} P2=${LIO_PATHS[1]} A=${LIO_MM[0]} B=${LIO_MM[1]}
	want0="features=[0] hw=[1 alua] pgs=2 pg1=round-robin:P1 pg2=round-robin:P2"
	want1="features=[1 queue_if_no_path] hw=[1 alua] pgs=1 pg1=service-time:P1,P2"
	settle
	mpd_conf failover "round-robin 0" fail first_shape
	MAP=$LIO_MAP
	say "table: $(dm_table "$MAP")"
	shape0=$(table_shape "$MAP")
	expect_eq "$shape0" "$want0" "$ENGINE: the table as configured (failover, round-robin, no_path_retry fail)"
	old=$(sectors "/dev/mapper/$MAP")
	expect_eq "$old" $((MB0 * 2048)) "the map's size is the LUN's"

	# the pattern in [32, 64) MiB: must survive the reconfigure and the resize
	head -c $(((MB0 - FIO_MB) * 1048576)) /dev/urandom >/tmp/074-pattern
	dd if=/tmp/074-pattern of="/dev/mapper/$MAP" bs=1M seek=$FIO_MB oflag=direct conv=fsync status=none ||
		fail "writing the pattern"
	md5p=$(md5sum </tmp/074-pattern | cut -d' ' -f1)
	expect_eq "$(region_md5 "/dev/mapper/$MAP" $FIO_MB $((MB0 - FIO_MB)))" "$md5p" "the pattern reads back"

	say "=== 1. reconfigure under fio verify"
	dmesg_mark
	fio_start "$MAP" 120 --size=${FIO_MB}M
	read -r w1 w2 <<<"$(io_split "$P1" "$P2")"
	[ "$w1" -gt 0 ] && [ "$w2" = 0 ] || fail "$ENGINE: failover table: writes in 1 s on $P1 $w1, $P2 $w2 (expected $P1 only)"
	say "ok: failover: group 1 ($P1) alone carries the writes ($w1 in 1 s, $P2 $w2)"
	mpd_conf multibus "service-time 0" queue -
	STEP="reconfigure"
	since=$(date '+%Y-%m-%d %H:%M:%S')
	out=$(multipathd reconfigure 2>&1)
	say "multipathd reconfigure: $out"
	[ "$out" = ok ] || fail "multipathd reconfigure answered '$out'"
	wait_until $RECONF_S shape_is "$want1" ||
		{ say "table: $(dm_table "$MAP")"; mpd_journal "$since"
		  fail "$ENGINE: the table did not change as configured within $RECONF_S s of the reconfigure"; }
	t_reconf=$WAITED_MS
	fio_alive
	say "table: $(dm_table "$MAP")"
	shape1=$(table_shape "$MAP")
	expect_eq "$shape1" "$want1" "$ENGINE: the reconfigured table (multibus, service-time, queue_if_no_path) after ${t_reconf} ms"
	expect_eq "$(mp_queue_io "$MAP")/$(dm_path_states "$MAP")" 0/AA "nothing queued, both paths active"
	read -r w1 w2 <<<"$(io_split "$P1" "$P2")"
	[ "$w1" -gt 0 ] && [ "$w2" -gt 0 ] || fail "$ENGINE: multibus table: writes in 1 s on $P1 $w1, $P2 $w2 (expected both)"
	say "ok: multibus: both paths carry the writes ($P1 $w1, $P2 $w2 in 1 s)"
	mpd_journal "$since"
	journalctl -u multipathd --no-pager --since "$since" 2>/dev/null | grep -qF "$MAP: reload [" || fail "$ENGINE: multipathd's journal has no reload of $MAP after the reconfigure"

	say "=== 2. resize under fio verify"
	STEP="resize"
	new=$((MB1 * 2048))
	truncate -s ${MB1}M "$LOOPF" || fail "grow $LOOPF"
	losetup -c "$LOOPDEV" || fail "losetup -c $LOOPDEV"
	expect_eq "$(sectors "$LOOPDEV")" "$new" "$LOOPDEV grew"
	for d in "${LIO_HCTLS[@]}"; do echo 1 >"/sys/class/scsi_device/$d/device/rescan" || fail "rescan $d"; done
	expect_eq "$(sectors "/dev/$P1")/$(sectors "/dev/$P2")" "$new/$new" "both paths see the grown LUN after the rescan"
	for d in "$P1" "$P2"; do
		dmesg_since | grep -E "$d: detected capacity change from $old to $new" ||
			fail "$ENGINE: no capacity change logged for $d"
	done
	sleep 2
	expect_eq "$(sectors "/dev/mapper/$MAP")" "$old" "the map keeps its size until multipathd resizes it"
	since=$(date '+%Y-%m-%d %H:%M:%S')
	out=$(multipathd resize map "$MAP" 2>&1)
	say "multipathd resize map $MAP: $out"
	[ "$out" = ok ] || fail "$ENGINE: multipathd resize map $MAP answered '$out'"
	expect_eq "$(sectors "/dev/mapper/$MAP")" "$new" "$ENGINE: the map grew to the LUN's new size"
	mpd_journal "$since"
	expect_eq "$(dmsetup table "$MAP" | awk '{print $1, $2}')" "0 $new" "the table's length"
	expect_eq "$(table_shape "$MAP")" "$want1" "the resized table keeps the reconfigured parameters"
	fio_alive
	read -r w1 w2 <<<"$(io_split "$P1" "$P2")"
	[ $((w1 + w2)) -gt 0 ] || fail "$ENGINE: no writes reach the paths after the resize"
	fio_expect_clean stop
	expect_gap_below $BOUND_MS
	gap1=$GAP_MS
	expect_eq "$(region_md5 "/dev/mapper/$MAP" $FIO_MB $((MB0 - FIO_MB)))" "$md5p" \
		"$ENGINE: the data before the old end is intact after the reconfigure and the resize"
	expect_eq "$(file_md5 $FIO_MB $((MB0 - FIO_MB)))" "$md5p" "... and in the backing file at the same offset"

	say "=== 3. fio verify in the new area [$MB0, $MB1) MiB"
	STEP="new area"
	wmap=$(($(sd_writes "$P1") + $(sd_writes "$P2")))
	fio_start "$MAP" 6 --offset=${MB0}M --size=$((MB1 - MB0))M
	fio_expect_clean
	expect_gap_below $BOUND_MS
	[ $(($(sd_writes "$P1") + $(sd_writes "$P2") - wmap)) -gt 0 ] || fail "no writes reached the paths"
	d=$(region_md5 "/dev/mapper/$MAP" $MB0 $((MB1 - MB0)))
	expect_eq "$(file_md5 $MB0 $((MB1 - MB0)))" "$d" "$ENGINE: what fio wrote in the new area is in the backing file at the same offset"
	[ "$(dd if="/dev/mapper/$MAP" bs=1M skip=$MB0 count=$((MB1 - MB0)) iflag=direct status=none | tr -d '\0' | wc -c)" -gt 0 ] ||
		fail "the new area holds only zeroes after fio"
	expect_eq "$(region_md5 "/dev/mapper/$MAP" $FIO_MB $((MB0 - FIO_MB)))" "$md5p" "the pattern is still intact"

	multipathd_stop
	dmsetup ls --target multipath | grep -q "^$MAP\b" && fail "$MAP still there after multipathd_stop"
	lio_teardown || fail "lio_teardown"
	losetup -d "$LOOPDEV" || fail "losetup -d $LOOPDEV"
	LOOPDEV=
	rm -f "$LOOPF" "$CONF"
	fault_result gap_ms="$(awk -v a="$gap1" -v b="$GAP_MS" 'BEGIN {print (a > b) ? a : b}')" \
		reconfigure_ms="$t_reconf" "table0=${shape0// /_}" "table1=${shape1// /_}" size="$old->$new"
	if [ "$ENGINE" = new ]; then
		for i in table0 table1 size; do
			expect_eq "$(fault_value new $i)" "$(fault_value stock $i)" "blk-mpath's $i is stock's"
		done
	fi
}
fault_main
