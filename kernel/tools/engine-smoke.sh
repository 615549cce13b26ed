#!/bin/bash
# Fast engine check without the full guest image: boots the built kernel
# in QEMU (TCG) with a tiny initramfs and
#   kunit   - loads blk-mpath-test.ko and blk-mpath-bio-test.ko (all
#             "blk-mpath-*" KUnit suites)
#   basic   - scsi_debug 2-path LUN + dm target: I/O, path offline ->
#             failover, reinstate, medium error (returned, path kept),
#             all paths offline -> EIO, tracepoints, debugfs stats
#   selectors- the same tables (all five selectors, features, hw handler,
#             groups) on stock dm-multipath and on blk-mpath: table and
#             status must be byte-identical, also after fail/disable
#   stress  - 4 readers + a writer while paths fail/reinstate, groups
#             switch and the table is reloaded (noflush); kmemleak scan
#   alua4   - 001-differential's first blk-mpath case after the stock run:
#             4 hosts, implicit ALUA (standby / non-optimized ports), stock
#             alua + round-robin cases, then the round-robin case on
#             blk-mpath; status lines ("A4:") and the blk_mpath trace
#   alua4new- the same on blk-mpath only, stock never loaded
#   queueing- ALUA pg_init, switch/disable/enable_group, queue_if_no_path,
#             fail_if_no_path, no-path timeout, reinstate releases I/O
#   bio     - queue_mode bio on the 2-path LUN: bio-based map, I/O, failover,
#             all paths down with queue_if_no_path (bios held, not remapped
#             in a loop), noflush suspend with bios held, reinstate
# Usage: kernel/tools/engine-smoke.sh [guest|debug] [kunit|basic|selectors|stress|queueing|bio|alua4|alua4new]...
# Prints the console log of each scenario; exits 1 on a KUnit failure or a
# kernel splat.
set -e
HERE=$(cd "$(dirname "$0")" && pwd)
VARIANT=${1:-guest}; shift || true
SCEN=("${@:-kunit}")
[ $# -eq 0 ] && SCEN=(kunit basic selectors queueing)
O=$(ls -d /var/cache/blk-mpath/linux-*/out-"$VARIANT"-* | head -1)
[ -e "$O/arch/x86/boot/bzImage" ] || { echo "no $VARIANT build, run kernel/build.sh $VARIANT" >&2; exit 2; }
W=$(mktemp -d); trap 'rm -rf "$W"' EXIT
gcc -static -O2 -o "$W/init" "$HERE/smoke-init.c"
rc=0
for s in "${SCEN[@]}"; do
	R=$W/root-$s; mkdir -p "$R"/{proc,sys,dev,bin,sbin,tmp,lib64,lib/x86_64-linux-gnu}
	cp "$W/init" "$R/init"
	case $s in alua4*)
		# the guest's 001-differential setup: one LUN behind 4 hosts,
		# implicit ALUA with per-port states (host_no % 3)
		echo "add_host=4 vpd_use_hostno=0 dev_size_mb=64 num_tgts=1 max_luns=1 delay=0" >"$R/sdebug.args"
		cp "$HERE/smoke-e2e-alua4.sh" "$R/alua4.sh" ;;
	esac
	if [ "$s" = selectors ] || [ "${s#alua4}" != "$s" ]; then
		gcc -static -O2 -o "$R/bin/modctl" "$HERE/smoke-modctl.c"
		for m in dm-multipath dm-round-robin dm-queue-length dm-service-time \
			 dm-historical-service-time dm-io-affinity; do
			cp "$O/drivers/md/$m.ko" "$R/"
		done
	fi
	if [ "$s" = kunit ]; then
		cp "$O/block/blk-mpath.ko" "$O/block/blk-mpath-test.ko" "$R/"
		# queue_mode bio suite (module of its own)
		[ -e "$O/block/blk-mpath-bio-test.ko" ] && cp "$O/block/blk-mpath-bio-test.ko" "$R/"
	else
		cp "$HERE/smoke-e2e-$s.sh" "$R/e2e.sh"
		cp "$O/drivers/scsi/scsi_debug.ko" "$O/drivers/scsi/device_handler/scsi_dh_alua.ko" \
		   "$O/block/blk-mpath.ko" "$O/dm-target/dm-blk-mpath.ko" "$R/"
		bins="/bin/dash /bin/dd /bin/cat /bin/ls /bin/grep /bin/sleep /bin/head /bin/cut /bin/tail"
		cp $bins "$R/bin/"; cp /usr/sbin/dmsetup "$R/sbin/"
		for l in $(ldd /usr/sbin/dmsetup $bins | awk '/=>/ {print $3}' | sort -u); do
			cp "$l" "$R/lib/x86_64-linux-gnu/"
		done
		cp /lib64/ld-linux-x86-64.so.2 "$R/lib64/"
	fi
	(cd "$R" && find . | cpio -o -H newc --quiet | gzip >"$W/initrd-$s.gz")
	ll=5; [ "$s" = kunit ] && ll=7	# KTAP lines are KERN_INFO
	echo "=== $s ($VARIANT)"
	timeout 600 qemu-system-x86_64 -accel tcg -cpu max -m 2048 -smp 2 -nographic \
		-no-reboot -kernel "$O/arch/x86/boot/bzImage" -initrd "$W/initrd-$s.gz" \
		-append "console=ttyS0 panic=-1 rdinit=/init loglevel=$ll" >"$W/log-$s" 2>&1 || true
	sed -n '/INIT: load/,$p' "$W/log-$s"
	if [ "$s" = selectors ]; then
		sed -n 's/.*SEL: stock //p' "$W/log-$s" | tr -d '\r' >"$W/stock"
		sed -n 's/.*SEL: new //p' "$W/log-$s" | tr -d '\r' >"$W/new"
		if [ ! -s "$W/stock" ] || ! diff -u "$W/stock" "$W/new"; then
			echo "=== selectors: stock and blk-mpath differ"; rc=1
		fi
	fi
	if [ "$s" = kunit ] && ! grep -q "ok 5 blk-mpath-classify" "$W/log-$s"; then
		echo "=== kunit: suites did not all run"; rc=1
	fi
	if [ "$s" = kunit ] && [ -e "$O/block/blk-mpath-bio-test.ko" ] &&
	   ! grep -qE "^\[[ 0-9.]*\] ok [0-9]+ blk-mpath-bio[[:space:]]*$" "$W/log-$s"; then
		echo "=== kunit: the blk-mpath-bio suite did not run"; rc=1
	fi
	bad='not ok|BUG:|WARNING:|Oops|KASAN:|circular locking|ODEBUG:|unreferenced object'
	if grep -qE "$bad" "$W/log-$s"; then
		grep -E "$bad" "$W/log-$s" | head -5
		echo "=== $s: FAILED"; rc=1
	else
		echo "=== $s: ok"
	fi
done
exit $rc
