#!/bin/bash
# Build (once, cached by the hash of this recipe) the Debian bookworm guest
# root directory with debootstrap.  The mirror is read from this machine's
# apt sources at run time.  Prints the directory on stdout.
. "$(dirname "$0")/../scripts/lib.sh"

PKGS=(systemd-sysv udev kmod multipath-tools kpartx dmsetup lvm2 fio sg3-utils
	targetcli-fb procps iproute2 e2fsprogs util-linux psmisc less gawk
	libdevmapper1.02.1 python3-rtslib-fb fdisk linux-perf)
KEY=$( { cat "$0"; echo "${PKGS[*]}"; } | sha256sum | cut -c1-16)
ROOT=$CACHE/rootfs-$KEY
if [ -e "$ROOT/.complete" ]; then
	log "guest root up to date: $ROOT"
	echo "$ROOT"; exit 0
fi
need_pkgs debootstrap debian-archive-keyring
MIRROR=$(apt_mirror)
log "debootstrap bookworm (minbase + ${#PKGS[@]} packages) from the host's mirror; ~2-3 min"
inc=$(IFS=,; echo "${PKGS[*]}")
for try in 1 2 3; do
	rm -rf "$ROOT.tmp"; mkdir -p "$ROOT.tmp"
	( run_progress "$CACHE/debootstrap.log" "debootstrap (try $try)" \
		debootstrap --variant=minbase --include="$inc" bookworm "$ROOT.tmp" "$MIRROR" ) && break
	[ $try -lt 3 ] || die "debootstrap failed 3 times (see $CACHE/debootstrap.log)"
	log "debootstrap failed; retrying in 10 s"
	sleep 10
done
# trim what the guest never needs
rm -rf "$ROOT.tmp"/usr/share/doc/* "$ROOT.tmp"/usr/share/man/* "$ROOT.tmp"/usr/share/locale/* \
	"$ROOT.tmp"/var/cache/apt/archives/*.deb "$ROOT.tmp"/var/lib/apt/lists/*
touch "$ROOT.tmp/.complete"
rm -rf "$ROOT"; mv "$ROOT.tmp" "$ROOT"
log "guest root ready: $ROOT ($(du -sh "$ROOT" | cut -f1))"
echo "$ROOT"
