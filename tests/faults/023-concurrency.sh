#!/bin/bash
# DESCRIPTION: 8 maps (4 in make test) x 4 paths over 4 scsi_debug hosts at QD64 under fio verify while fail/reinstate/switch_group messages and noflush reloads run and a CPU goes offline and back: 0 I/O errors, 0 verify errors, every map healthy at the end (stock and blk-mpath)
# REQUIRES: cmd:fio mod:scsi_debug mod:dm-blk-mpath mod:dm-multipath
# TIMEOUT: 600
. /opt/blk-mpath/tests/lib/common.sh
. /opt/blk-mpath/tests/lib/faults.sh
FAULT_COMPARE=none
export DM_DISABLE_UDEV=1
# make test runs 4 maps, make test-full 8 (with 8, this scenario took
# 527 s of make test's clock for the two engines)
# 20 s of load, scaled like fio's runtime (TSCALE: 4 on the debug kernel,
# where 20 s allowed only 2 reloads and 16 messages)
NMAPS=8 SECS=$((20 * ${TSCALE:-1}))
[ "${TIER:-quick}" = quick ] && NMAPS=4
trap 'echo 1 > /sys/devices/system/cpu/cpu1/online 2>/dev/null; udevadm control --start-exec-queue' EXIT

# the 4 paths (sdX) of LUN $1, in host order
lun_of() {
	local d
	for d in /sys/block/sd*; do
		grep -qs scsi_debug "$d/device/model" || continue
		[ "$(basename "$(readlink -f "$d/device")" | cut -d: -f4)" = "$1" ] && basename "$d"
	done | while read -r s; do echo "$(basename "$(readlink -f /sys/block/$s/device)" | cut -d: -f1) $s"; done |
		sort -n | awk '{print $2}'
}

run_engine() {
	local i j p sz t tables=() jobs=() fio_pid msgs=0 reloads=0 cpu=0 nfail nrein
	# udev would probe 32 disks and 8 maps on every change: pause it (the
	# nodes come from devtmpfs and libdm) and let its queue run at the end
	udevadm control --stop-exec-queue
	lsmod | grep -q '^scsi_debug ' && modprobe -r scsi_debug
	sdebug_no_alua
	modprobe scsi_debug add_host=4 vpd_use_hostno=0 dev_size_mb=64 num_tgts=1 max_luns=$NMAPS \
		delay=0 || fail "modprobe scsi_debug"
	for i in $(seq 100); do
		[ "$(grep -ls scsi_debug /sys/block/sd*/device/model | wc -l)" -ge $((NMAPS * 4)) ] && break
		sleep 0.2
	done
	sz=$((64 / NMAPS))
	for i in $(seq 0 $((NMAPS - 1))); do
		mapfile -t p < <(lun_of "$i")
		[ ${#p[@]} -eq 4 ] || fail "LUN $i has ${#p[@]} paths"
		for j in 0 1 2 3; do p[$j]=$(mm "${p[$j]}"); done
		N=$(sectors "/dev/$(lun_of "$i" | head -1)")
		tables[$i]="0 $N multipath 1 queue_if_no_path 0 2 1 round-robin 0 2 1 ${p[0]} 1 ${p[1]} 1 service-time 0 2 2 ${p[2]} 1 1 ${p[3]} 1 1"
		alt[$i]="0 $N multipath 1 queue_if_no_path 0 2 1 queue-length 0 2 1 ${p[2]} 1 ${p[3]} 1 round-robin 0 2 1 ${p[0]} 1 ${p[1]} 1"
		paths[$i]="${p[*]}"
		dmsetup create "mpc$i" --table "${tables[$i]}" || fail "create mpc$i"
		# the LUNs share scsi_debug's store: each map verifies its own slice
		jobs+=(--name="m$i" --filename="/dev/mapper/mpc$i" --offset="$((i * sz))M" --size="$((sz))M")
	done
	nice -n 19 fio --rw=randwrite --bs=4k --ioengine=libaio --iodepth=64 --direct=1 --verify=crc32c \
		--verify_backlog=512 --verify_fatal=1 --time_based --runtime=$SECS \
		--output=/tmp/fio-c.txt "${jobs[@]}" >/dev/null 2>&1 &
	fio_pid=$!
	dmesg_mark
	sleep 2
	local t0=$SECONDS end=$((SECONDS + SECS - 6)) k=0 m pth
	while [ $SECONDS -lt $end ]; do
		m=$((k % NMAPS))
		read -ra pth <<<"${paths[$m]}"
		case $((k % 5)) in
		0)
			dmsetup message "mpc$m" 0 fail_path "${pth[$((k % 4))]}" && msgs=$((msgs + 1)) ;;
		1)
			dmsetup message "mpc$m" 0 switch_group $((k % 2 + 1)) && msgs=$((msgs + 1)) ;;
		2)
			if [ $(((k / 5) % 2)) = 0 ]; then t=${alt[$m]}; else t=${tables[$m]}; fi
			dmsetup reload "mpc$m" --table "$t" && dmsetup suspend --noflush "mpc$m" &&
				dmsetup resume "mpc$m" && reloads=$((reloads + 1)) ;;
		*)
			for pt in "${pth[@]}"; do
				dmsetup message "mpc$m" 0 reinstate_path "$pt" && msgs=$((msgs + 1))
			done ;;
		esac
		# CPU 1 goes offline a third of the way in and comes back at two thirds
		if [ "$(cat /sys/devices/system/cpu/cpu1/online)" = 1 ] && [ $cpu = 0 ] &&
			[ $((SECONDS - t0)) -ge $((SECS / 3)) ]; then
			echo 0 >/sys/devices/system/cpu/cpu1/online && cpu=1 && say "cpu1 offline"
		elif [ "$(cat /sys/devices/system/cpu/cpu1/online)" = 0 ] &&
			[ $((SECONDS - t0)) -ge $((2 * SECS / 3)) ]; then
			echo 1 >/sys/devices/system/cpu/cpu1/online && say "cpu1 online"
		fi
		k=$((k + 1))
	done
	echo 1 >/sys/devices/system/cpu/cpu1/online
	for m in $(seq 0 $((NMAPS - 1))); do
		for pt in ${paths[$m]}; do dmsetup message "mpc$m" 0 reinstate_path "$pt"; done
	done
	# the messages that changed a path's state: both engines log a failure
	# or a reinstatement only when it happened (a message for a path
	# already in that state logs nothing), and nothing else fails a path here
	nfail=$(dmesg_since | grep -c 'Failing path')
	nrein=$(dmesg_since | grep -c 'Reinstating path')
	say "$msgs messages ($nfail paths failed, $nrein reinstated), $reloads noflush reloads, $cpu CPU offline cycles"
	local i2
	for i2 in $(seq $(((SECS + 60) * 5))); do kill -0 $fio_pid 2>/dev/null || break; sleep 0.2; done
	kill -0 $fio_pid 2>/dev/null && { echo w >/proc/sysrq-trigger; dmsetup status; fail "fio hung"; }
	wait $fio_pid || { tail -30 /tmp/fio-c.txt; fail "fio failed (I/O or verify error)"; }
	[ "$(grep -c 'err= 0' /tmp/fio-c.txt)" -eq $NMAPS ] || { grep err= /tmp/fio-c.txt; fail "fio reported errors"; }
	[ "$cpu" -ge 1 ] || fail "no CPU offline cycle happened"
	[ "$reloads" -ge 4 ] || fail "only $reloads reloads"
	[ "$msgs" -ge 20 ] || fail "only $msgs messages"
	[ "$nfail" -ge 2 ] || fail "only $nfail fail_path messages failed an active path"
	[ "$nrein" -ge 2 ] || fail "only $nrein reinstate_path messages brought a failed path back"
	for m in $(seq 0 $((NMAPS - 1))); do
		expect_eq "$(dm_path_states "mpc$m")" AAAA "mpc$m: all paths active at the end"
	done
	fault_result maps=$NMAPS msgs=$msgs failed=$nfail reinstated=$nrein reloads=$reloads cpu_offline=$cpu errors=0
	for m in $(seq 0 $((NMAPS - 1))); do dmsetup remove "mpc$m"; done
	udevadm control --start-exec-queue
}
fault_main
