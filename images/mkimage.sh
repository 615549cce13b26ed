#!/bin/bash
# Assemble the guest root image: cached debootstrap root + our modules +
# tests + guest configuration, written with mke2fs -d (no loop mounts).
#   images/mkimage.sh KERNEL_OUT_DIR IMAGE
. "$(dirname "$0")/../scripts/lib.sh"
OUT=$1 IMG=$2
[ -d "$OUT/modinst/lib/modules" ] || die "no installed modules in $OUT (run kernel/build.sh)"
need_pkgs rsync e2fsprogs
ROOT=$("$TOP/images/build-rootfs.sh") || die "guest root build failed"
KREL=$(cat "$OUT/include/config/kernel.release")
# one staging directory per run directory: runs may go on side by side
STAGE=$(dirname "$IMG")/stage
mkdir -p "$STAGE"
rsync -a --delete --exclude=/lib/modules --exclude=/opt/blk-mpath "$ROOT"/ "$STAGE"/
mkdir -p "$STAGE/lib/modules" "$STAGE/opt/blk-mpath"
rsync -a --delete "$OUT/modinst/lib/modules/" "$STAGE/lib/modules/"
rsync -a --delete --exclude='*.o' "$TOP/tests/" "$STAGE/opt/blk-mpath/tests/"
[ -d "$TOP/userspace/bin" ] && rsync -a "$TOP/userspace/bin/" "$STAGE/usr/local/bin/"
cp -r "$TOP/images/guest/." "$STAGE/" || die "cannot copy images/guest into the image (a directory over a merged-/usr symlink?)"
# systemd: run our unit, keep ttyS0 for it (serial-getty's vhangup would kill
# its output), leave multipathd for the tests to start, skip slow units.
ln -sf /etc/systemd/system/blkmpath-test.service "$STAGE/etc/systemd/system/multi-user.target.wants/blkmpath-test.service"
for u in serial-getty@ttyS0.service getty@tty1.service lvm2-monitor.service e2scrub_reap.service \
	e2scrub_all.timer apt-daily.timer apt-daily-upgrade.timer fstrim.timer systemd-timesyncd.service \
	lvm2-lvmpolld.socket dm-event.socket dm-event.service rtslib-fb-targetctl.service \
	systemd-networkd-wait-online.service; do
	ln -sf /dev/null "$STAGE/etc/systemd/system/$u"
done
rm -f "$STAGE"/etc/systemd/system/*.wants/multipathd.service "$STAGE"/etc/systemd/system/*.wants/multipathd.socket \
	"$STAGE"/etc/systemd/system/sockets.target.wants/multipathd.socket
sed -i 's/^root:[^:]*:/root::/' "$STAGE/etc/shadow"
echo "$KREL" >"$STAGE/opt/blk-mpath/kernel-release"
rm -f "$IMG"
mke2fs -q -F -t ext4 -L blkroot -d "$STAGE" "$IMG" 3G || die "mke2fs -d failed"
log "guest image $IMG ($KREL)"
