#!/bin/bash
# DESCRIPTION: partitions (kpartx) and an LVM logical volume on a failover map of two scsi_debug paths (the raw paths' partitions exist too; LVM takes the map's partition, not the paths', by multipath_component_detection); fio verify on a partition and on the LV at once while the active path goes offline (failover to group 2) and comes back (reinstate_path, switch_group 1): both fio verifies clean, the failure and the reinstate seen in dmsetup status, the kernel log and the paths' I/O counters, the whole stack healthy afterwards, the VG deactivated and removed; stock and blk-mpath
# REQUIRES: cmd:fio cmd:kpartx cmd:sfdisk cmd:partx cmd:pvcreate mod:scsi_debug mod:dm-blk-mpath mod:dm-multipath
# TIER: full
# TIMEOUT: 480
. /opt/blk-mpath/tests/lib/common.sh
. /opt/blk-mpath/tests/lib/faults.sh

MAP=mplv UUID=mpath-blkmpath076 VG=vg076 LV=lv0
# LVM: the map's partition only.  multipath_component_detection (LVM's
# default, spelt out): a device whose disk is held by a dm device with an
# "mpath-" uuid is a multipath component and is skipped, so the raw
# paths' partitions sdX2, which carry the same PV label, are not used
# (use_devicesfile off: no /etc/lvm/devices/system.devices decides
# instead; no metadata backups of a throwaway VG)
LVMCONF='devices { multipath_component_detection = 1 use_devicesfile = 0 } backup { backup = 0 archive = 0 }'
lvm_() { lvm "$@" --config "$LVMCONF"; }
RT=30	# fio runtime (s)

# wsec sdX: write sectors completed on the device (stat field 7)
wsec() { awk '{print $7}' "/sys/block/$1/stat"; }
# dm_dev NAME: the dm-N name of a map
dm_dev() { basename "$(readlink -f "/dev/mapper/$1")"; }
# slaves dm-N: the devices under it, sorted, space separated
slaves() { ls "/sys/block/$1/slaves" | sort | tr '\n' ' ' | sed 's/ $//'; }

# fio_dev NAME DEV: fio_start's job on any device (its own output files)
fio_dev() {
	local secs=$((RT * ${TSCALE:-1}))
	FIO_OUT=/tmp/fio-$FAULT_NAME-$ENGINE-$1.json
	FIO_LOG=/tmp/fio-$FAULT_NAME-$ENGINE-$1
	rm -f "$FIO_OUT" "$FIO_LOG"_*.log
	fio --name="$1" --filename="$2" --rw=randwrite --bs=4k \
		--ioengine=libaio --iodepth=8 --direct=1 --verify=crc32c --verify_backlog=256 \
		--verify_fatal=1 --time_based --runtime="$secs" --output-format=json \
		--output="$FIO_OUT" --write_lat_log="$FIO_LOG" --log_avg_msec=0 --log_unix_epoch=1 \
		>/dev/null 2>"$FIO_OUT.err" &
	FIO_PID=$! FIO_SECS=$secs
}
# fio_use P|L: make the job's variables current (fio_flowing, fio_expect_clean)
fio_use() { eval "FIO_PID=\$${1}_PID FIO_OUT=\$${1}_OUT FIO_LOG=\$${1}_LOG"; FIO_SECS=$((RT * ${TSCALE:-1})); }
fio_save() { eval "${1}_PID=\$FIO_PID ${1}_OUT=\$FIO_OUT ${1}_LOG=\$FIO_LOG"; }

# the VG and the partition maps go whatever happened (an EXIT trap)
teardown() {
	[ -n "${P_PID:-}" ] && kill -9 "$P_PID" 2>/dev/null
	[ -n "${L_PID:-}" ] && kill -9 "$L_PID" 2>/dev/null
	for d in "${SD_PATHS[@]}"; do [ -e "/sys/block/$d" ] && path_state "$d" running 2>/dev/null; done
	if dmsetup info "$MAP" >/dev/null 2>&1; then
		lvm_ vgchange -an "$VG" >/dev/null 2>&1
		lvm_ vgremove -f "$VG" >/dev/null 2>&1
		when_unopened kpartx -d -p -part "/dev/mapper/$MAP" >/dev/null 2>&1
	fi
	for d in "${SD_PATHS[@]}"; do [ -e "/dev/$d" ] && partx -d "/dev/$d" 2>/dev/null; done
	true
}
trap teardown EXIT

run_engine() {
	local d dm dmp1 dmp2 dmlv out a0 a1 b0 b1 n pv fc t
	unset P_PID L_PID
	sdebug_setup dev_size_mb=96
	PA=${SD_PATHS[0]} PB=${SD_PATHS[1]}
	path_vars "$PA" "$PB"
	# failover: group 1 = PA, group 2 = PB; a multipathd-style uuid
	t="0 $N multipath 0 0 2 1 round-robin 0 1 1 $A 1 round-robin 0 1 1 $B 1"
	run dmsetup create "$MAP" --uuid "$UUID" --table "$t" || fail "create $MAP"
	settle
	dm=$(dm_dev "$MAP")

	STEP="partitions"
	# p1 40 MiB (fio), p2 the rest (the PV); udev's 60-kpartx.rules may
	# map them on the change event already (kpartx -u, same names)
	printf ',40M,L\n,,8e\n' | sfdisk -q "/dev/mapper/$MAP" >/dev/null 2>&1
	expect_eq "$(sfdisk -d "/dev/mapper/$MAP" 2>/dev/null | grep -c '^/dev/mapper/')" 2 "two partitions on $MAP"
	settle
	run kpartx -a -p -part "/dev/mapper/$MAP" || fail "kpartx -a"
	settle
	for n in 1 2; do [ -b "/dev/mapper/$MAP-part$n" ] || { dmsetup ls; fail "no partition map $MAP-part$n"; }; done
	local mm s1
	mm=$(dmsetup info -c --noheadings -o major,minor "$MAP" | tr -d ' ')
	s1=$((40 * 2048))
	expect_eq "$(dmsetup table "$MAP-part1")" "0 $s1 linear $mm 2048" "$MAP-part1 table"
	expect_eq "$(dmsetup table "$MAP-part2" | awk '{print $3, $4, $5}')" "linear $mm $((2048 + s1))" "$MAP-part2 table"
	expect_eq "$(dmsetup info -c --noheadings -o uuid "$MAP-part2")" "part2-$UUID" "kpartx's uuid for part2"
	dmp1=$(dm_dev "$MAP-part1") dmp2=$(dm_dev "$MAP-part2")
	# the raw paths' partitions too, as a boot's partition scan leaves
	# them: sdX2 shows the PV label to anyone who looks
	for d in "$PA" "$PB"; do run partx -a "/dev/$d" || fail "partx -a /dev/$d"; done
	settle
	for d in "$PA" "$PB"; do [ -b "/dev/${d}2" ] || fail "no /dev/${d}2"; done

	STEP="lvm"
	run lvm_ pvcreate -ff -y "/dev/mapper/$MAP-part2" || fail "pvcreate"
	run lvm_ vgcreate "$VG" "/dev/mapper/$MAP-part2" || fail "vgcreate"
	run lvm_ lvcreate -q -y -L 32M -n "$LV" "$VG" || fail "lvcreate"
	settle
	[ -b "/dev/$VG/$LV" ] || fail "no /dev/$VG/$LV"
	# what LVM sees: one PV, the map's partition; the raw sdX2 (same
	# label, same PV uuid) are components, and no duplicate is reported
	out=$(lvm_ pvs --noheadings -o pv_name,vg_name 2>&1)
	echo "$out" | sed 's/^/  pvs: /'
	pv=$(echo "$out" | awk -v vg="$VG" '$2 == vg {print $1}' | tr '\n' ' ' | sed 's/ $//')
	expect_eq "$pv" "/dev/mapper/$MAP-part2" "$ENGINE: LVM's only PV of $VG is the map's partition"
	[[ $out == *uplicate* || $out == *"Not using device"* ]] && fail "$ENGINE: LVM reports duplicate PVs: $out"
	say "ok: LVM reports no duplicate PV (the raw paths' ${PA}2/${PB}2 are skipped)"
	dmlv=$(dm_dev "$VG-$LV")
	expect_eq "$(slaves "$dmlv")/$(slaves "$dmp2")/$(slaves "$dm")" "$dmp2/$dm/$(printf '%s\n' "$PA" "$PB" | sort | tr '\n' ' ' | sed 's/ $//')" \
		"the stack: LV on $MAP-part2 on $MAP on the two paths"

	STEP="fio"
	dmesg_mark
	fio_dev part "/dev/mapper/$MAP-part1"; fio_save P
	fio_dev lv "/dev/$VG/$LV"; fio_save L
	fio_use P; fio_flowing "$MAP-part1" 30
	fio_use L; fio_flowing "$VG-$LV" 30
	expect_eq "$(dm_path_states "$MAP")/$(active_group "$MAP")" AA/1 "both paths active, group 1 ($PA) carries the I/O"

	STEP="fault"
	a0=$(wsec "$PA") b0=$(wsec "$PB")
	fault_mark
	run path_state "$PA" offline
	wait_path "$MAP" "$A" F 30 || fail "$ENGINE: $PA ($A) did not fail after going offline"
	fio_use P; fio_alive; fio_use L; fio_alive
	h=$(basename "$(readlink -f "/sys/block/$PA/device")")
	dmesg_since | grep -E "$h.*rejecting I/O to offline device|Failing path $A" | head -3 | sed 's/^/  | /'
	dmesg_since | grep -q "$h.*rejecting I/O to offline device" || fail "$ENGINE: no I/O reached offline $PA"
	dmesg_since | grep -q "Failing path $A" || fail "$ENGINE: no 'Failing path $A' line"
	say "ok: the offline path $PA refused I/O and was failed"
	expect_eq "$(dm_path_states "$MAP")/$(active_group "$MAP")" FA/2 "$ENGINE: $PA failed, group 2 ($PB) active"
	fc=$(mp_paths "$MAP" | awk -v p="$A" '$3 == p {print $5}')
	[ "${fc:-0}" -ge 1 ] || fail "$ENGINE: fail count of $A is '$fc'"
	# the failed path gets nothing, the other path all of it
	a0=$(wsec "$PA") b0=$(wsec "$PB"); sleep 3; a1=$(wsec "$PA") b1=$(wsec "$PB")
	expect_eq "$((a1 - a0))" 0 "$ENGINE: nothing written through failed $PA"
	[ $((b1 - b0)) -gt 0 ] || fail "$ENGINE: nothing written through $PB after the failover"
	say "ok: $PB wrote $((b1 - b0)) sectors in 3 s after the failover"

	STEP="reinstate"
	run path_state "$PA" running
	run dmsetup message "$MAP" 0 reinstate_path "$A" || fail "reinstate_path $A"
	wait_path "$MAP" "$A" A 10 || fail "$ENGINE: $A not active after reinstate_path"
	run dmsetup message "$MAP" 0 switch_group 1 || fail "switch_group 1"
	sleep 0.5
	a0=$(wsec "$PA") b0=$(wsec "$PB"); sleep 3; a1=$(wsec "$PA") b1=$(wsec "$PB")
	fio_use P; fio_alive; fio_use L; fio_alive
	dmesg_since | grep -E "Reinstating path $A" | head -1 | sed 's/^/  | /'
	dmesg_since | grep -q "Reinstating path $A" || fail "$ENGINE: no 'Reinstating path $A' line"
	expect_eq "$(dm_path_states "$MAP")/$(active_group "$MAP")" AA/1 "$ENGINE: $PA reinstated, group 1 active again"
	[ $((a1 - a0)) -gt 0 ] || fail "$ENGINE: nothing written through reinstated $PA"
	expect_eq "$((b1 - b0))" 0 "$ENGINE: group 2 ($PB) idle again"
	say "ok: reinstated $PA wrote $((a1 - a0)) sectors in 3 s"

	STEP="fio end"
	local gp gl ip il
	fio_use P; fio_expect_clean; gp=$GAP_MS ip=$FIO_IOS
	say "ok: fio verify on $MAP-part1 clean"
	fio_use L; fio_expect_clean; gl=$GAP_MS il=$FIO_IOS
	say "ok: fio verify on $VG/$LV clean"
	unset P_PID L_PID

	STEP="health"
	expect_eq "$(dm_path_states "$MAP")/$(active_group "$MAP")" AA/1 "$ENGINE: both paths active at the end"
	for d in "$MAP" "$MAP-part1" "$MAP-part2" "$VG-$LV"; do
		expect_eq "$(dmsetup info -c --noheadings -o attr "$d" | cut -c1-4)" "L--w" "$d live, not suspended, writable"
	done
	run lvm_ vgck "$VG" || fail "vgck $VG"
	expect_eq "$(lvm_ lvs --noheadings -o lv_attr "$VG/$LV" | tr -d ' ' | cut -c5)" a "$VG/$LV active"
	# a final pass over the LV and the partition: fio's verify-only run
	# of what the last jobs wrote is not possible (time_based random
	# writes); a short write+verify pass instead
	for d in "/dev/mapper/$MAP-part1" "/dev/$VG/$LV"; do
		timeout 120 fio --name=final --filename="$d" --rw=write --bs=64k --size=4M --direct=1 \
			--verify=crc32c --verify_fatal=1 --output-format=terse >/dev/null 2>/tmp/076-final.err ||
			{ cat /tmp/076-final.err; fail "$ENGINE: write+verify pass on $d"; }
	done
	say "ok: write+verify pass on the partition and on the LV after the failback"

	STEP="teardown"
	run lvm_ vgchange -an "$VG" || fail "vgchange -an"
	settle
	dmsetup info "$VG-$LV" >/dev/null 2>&1 && fail "$VG-$LV still mapped after vgchange -an"
	run lvm_ vgremove -f "$VG" || fail "vgremove"
	run lvm_ pvremove -y "/dev/mapper/$MAP-part2" || fail "pvremove"
	expect_eq "$(lvm_ vgs --noheadings -o vg_name "$VG" 2>/dev/null | tr -d ' ')" "" "$VG removed"
	run when_unopened kpartx -d -p -part "/dev/mapper/$MAP" || fail "kpartx -d"
	for n in 1 2; do dmsetup info "$MAP-part$n" >/dev/null 2>&1 && fail "$MAP-part$n still there"; done
	for d in "$PA" "$PB"; do run partx -d "/dev/$d" || fail "partx -d /dev/$d"; done
	dm_remove "$MAP" || fail "remove $MAP"
	expect_eq "$(dmsetup ls | grep -cE "^($MAP|$VG)")" 0 "no map of the stack left"
	fault_result gap_ms=$(awk -v a="$gp" -v b="$gl" 'BEGIN {print (a > b) ? a : b}') gap_part_ms=$gp gap_lv_ms=$gl \
		ios_part=$ip ios_lv=$il failcount=$fc verdict=failover-reinstate
}
fault_main
