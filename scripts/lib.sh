# Common helpers for the blk-mpath host scripts.  Source it; do not run it.
# shellcheck shell=bash

set -o pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${BLKMPATH_CACHE:-/var/cache/blk-mpath}
JOBS=${JOBS:-$(nproc)}

log()  { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die()  { printf '[%s] ERROR: %s\n' "$(date +%H:%M:%S)" "$*" >&2; exit 1; }

# missing_pkgs PKG...: those not installed, one per line
missing_pkgs() {
	local p
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || echo "$p"
	done
}
# need_pkgs PKG... : install missing Debian packages with apt-get.
need_pkgs() {
	local missing
	[ -z "$(missing_pkgs "$@")" ] && return 0
	[ "$(id -u)" -eq 0 ] || die "missing packages ($(missing_pkgs "$@" | tr '\n' ' ')); run as root or install them"
	# one apt-get at a time (make test builds the kernel and the guest root
	# side by side); what another caller installed meanwhile is not missing
	mkdir -p "$CACHE"
	(
	flock 8 || die "cannot lock $CACHE/apt.lock"
	mapfile -t missing < <(missing_pkgs "$@")
	[ ${#missing[@]} -eq 0 ] && exit 0
	log "installing Debian packages: ${missing[*]}"
	if [ ! -e "$CACHE/.apt-updated" ] || [ -n "$(find "$CACHE/.apt-updated" -mmin +720 2>/dev/null)" ]; then
		mkdir -p "$CACHE"
		apt-get update -q >"$CACHE/apt-update.log" 2>&1 ||
			{ tail -20 "$CACHE/apt-update.log" >&2; die "apt-get update failed (see $CACHE/apt-update.log)"; }
		touch "$CACHE/.apt-updated"
	fi
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" \
		>"$CACHE/apt-install.log" 2>&1 ||
		{ tail -20 "$CACHE/apt-install.log" >&2; die "apt-get install ${missing[*]} failed (see $CACHE/apt-install.log)"; }
	) 8>"$CACHE/apt.lock" || exit 1
}

# The Debian mirror this machine uses, read from its apt sources (never hard-coded).
apt_mirror() {
	local m
	m=$(grep -hs '^URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null |
		awk '{print $2}' | grep -v -- '-security' | head -1)
	[ -n "$m" ] || m=$(grep -hs '^deb ' /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
		grep -v -- '-security' | awk '{for(i=2;i<=NF;i++) if ($i ~ /^(http|https|file):/) {print $i; exit}}' | head -1)
	[ -n "$m" ] || die "cannot find a Debian mirror in /etc/apt/sources.list*"
	echo "$m"
}

# run_progress LOGFILE LABEL CMD... : run CMD with output to LOGFILE, a progress line every 30 s.
run_progress() {
	local logf=$1 label=$2 start rc pid
	shift 2
	start=$(date +%s)
	"$@" >"$logf" 2>&1 &
	pid=$!
	local last=$start now
	while kill -0 "$pid" 2>/dev/null; do
		sleep 2
		now=$(date +%s)
		if [ $((now - last)) -ge 30 ] && kill -0 "$pid" 2>/dev/null; then
			last=$now
			log "$label: $((now - start)) s, $(wc -l <"$logf") log lines, last: $(tail -1 "$logf" | cut -c1-80)"
		fi
	done
	wait "$pid"; rc=$?
	if [ $rc -ne 0 ]; then
		tail -40 "$logf" >&2
		die "$label failed (exit $rc); full log: $logf"
	fi
	log "$label: done in $(($(date +%s) - start)) s"
}

hash_files() { cat "$@" 2>/dev/null | sha256sum | cut -c1-16; }

# qemu_lun_args W: sets LUN_ARGS, the QEMU arguments of the two-path LUN and
# its control channel (used by images/run-guest.sh and scripts/hostctl-selftest.sh).
# One file node lun0 on W/lun.img; per path N a raw node pN on it and a
# scsi-hd hdN (on its own virtio-scsi HBA scsiN, PCI slot 0x10+N, which is how
# tests/lib/faults.sh finds path N in the guest) with the same serial and WWN,
# so the guest sees one LUN with two paths.  scripts/hostctl.py puts fault
# filters (blkdebug, throttle) between pN and lun0, so a fault hits one path.
# QMP on W/qmp.sock; W/ctl.sock is the guest's ttyS1 (index 1: 0x2f8, irq 3),
# the channel on which guest tests ask hostctl.py for faults.
qemu_lun_args() {
	local W=$1 WWN=0x5000c50015ea71ac p
	LUN_ARGS=(-blockdev "driver=file,filename=$W/lun.img,node-name=lun0,locking=off,cache.direct=off"
		-device "virtio-scsi-pci,id=scsi0,addr=0x10" -device "virtio-scsi-pci,id=scsi1,addr=0x11")
	for p in 0 1; do
		LUN_ARGS+=(-blockdev "driver=raw,node-name=p$p,file=lun0"
			-device "scsi-hd,id=hd$p,bus=scsi$p.0,drive=p$p,share-rw=on,serial=BLKMPATHLUN0,wwn=$WWN,rerror=report,werror=report")
	done
	LUN_ARGS+=(-qmp "unix:$W/qmp.sock,server=on,wait=off"
		-chardev "socket,id=ctl,path=$W/ctl.sock,server=on,wait=off"
		-device "isa-serial,id=ctlser,chardev=ctl,index=1")
}
