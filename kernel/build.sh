#!/bin/bash
# Build the blk-mpath guest kernel (bzImage + modules) and the dm target.
#
#   kernel/build.sh [guest|debug|vanilla]
#
# vanilla: Debian's source with none of kernel/patches or kernel/tree, the
# guest config without the engine, release suffix "-vanilla", no dm
# target: stock dm-multipath on the kernel it ships with, for make bench
# KVARIANT=vanilla (a reference for the stock rows, which in the guest
# kernel run on the patched block layer and dm-rq).
#
# The Debian linux-source-6.1 tree is extracted once into $CACHE (outside
# git).  kernel/patches/*.patch (edits to upstream files) and kernel/tree/
# (new files, copied in) are synced into a working source tree by content:
# only files whose content changed are rewritten, so kbuild rebuilds exactly
# what depends on them (edit one module source -> that module rebuilds).
# Each config variant has its own O= output directory keyed by the hash of
# its config fragments.  Prints the output directory on stdout.
. "$(dirname "$0")/../scripts/lib.sh"

VARIANT=${1:-guest}
case $VARIANT in
guest) FRAGS=("$TOP/kernel/config/guest.config") ;;
debug) FRAGS=("$TOP/kernel/config/guest.config" "$TOP/kernel/config/debug.config") ;;
vanilla) FRAGS=("$TOP/kernel/config/guest.config" "$TOP/kernel/config/vanilla.config") ;;
*) die "unknown kernel variant '$VARIANT' (guest|debug|vanilla)" ;;
esac

need_pkgs linux-source-6.1 build-essential bc bison flex libelf-dev libssl-dev cpio kmod xz-utils patch python3

TARBALL=$(ls /usr/src/linux-source-6.1.tar.xz 2>/dev/null) ||
	die "/usr/src/linux-source-6.1.tar.xz missing (package linux-source-6.1)"
SRCVER=$(dpkg-query -W -f='${Version}' linux-source-6.1)
BASE=$CACHE/linux-$SRCVER
PRISTINE=$BASE/pristine
KSRC=$BASE/src
mkdir -p "$BASE"
# Several shells may call us: the source sync is serialised machine-wide,
# each variant's build directory has its own lock.
exec 9>"$CACHE/kbuild-src.lock"
flock 9 || die "cannot lock $CACHE/kbuild-src.lock"

if [ ! -e "$PRISTINE/.extracted" ]; then
	log "extracting $TARBALL (once per linux-source version)"
	rm -rf "$PRISTINE.tmp"; mkdir -p "$PRISTINE.tmp"
	tar -C "$PRISTINE.tmp" --strip-components=1 -xf "$TARBALL" || die "extracting $TARBALL failed"
	touch "$PRISTINE.tmp/.extracted"
	rm -rf "$PRISTINE"; mv "$PRISTINE.tmp" "$PRISTINE"
fi
if [ "$VARIANT" != vanilla ] && [ ! -e "$KSRC/.copied" ]; then
	log "creating the working source tree"
	rm -rf "$KSRC"; cp -a "$PRISTINE" "$KSRC"; rm -f "$KSRC/.extracted"
	touch "$KSRC/.copied"
fi

# ---- sync patches + overlay into $KSRC by content --------------------------
WANT=$(mktemp -d); trap 'rm -rf "$WANT"' EXIT
mapfile -t PATCHES < <(ls "$TOP"/kernel/patches/*.patch 2>/dev/null | sort)
if [ "$VARIANT" = vanilla ]; then
	# the extracted source as Debian ships it, built out of tree (O=)
	PATCHES=()
	KSRC=$PRISTINE
else
	touched=()
	for p in "${PATCHES[@]}"; do
		while read -r f; do touched+=("$f"); done < <(sed -n 's#^+++ b/\([^\t ]*\).*#\1#p' "$p")
	done
	for f in "${touched[@]}"; do
		[ -e "$PRISTINE/$f" ] && { mkdir -p "$WANT/$(dirname "$f")"; cp -p "$PRISTINE/$f" "$WANT/$f"; }
	done
	for p in "${PATCHES[@]}"; do
		patch -s -p1 -d "$WANT" --no-backup-if-mismatch <"$p" ||
			die "patch $(basename "$p") does not apply to linux-source $SRCVER"
	done
	if [ -d "$TOP/kernel/tree" ]; then
		(cd "$TOP/kernel/tree" && find . -type f ! -name '*.o' ! -name '.*' -print0 | cpio -0 -pdm --quiet "$WANT")
	fi
	mapfile -t managed < <({ cd "$WANT" && find . -type f | sed 's#^\./##'; cat "$KSRC/.blkmpath-managed" 2>/dev/null; } | sort -u)
	changed=0
	for f in "${managed[@]}"; do
		if [ -e "$WANT/$f" ]; then
			if ! cmp -s "$WANT/$f" "$KSRC/$f"; then
				mkdir -p "$KSRC/$(dirname "$f")"; cp "$WANT/$f" "$KSRC/$f"; changed=$((changed + 1))
				log "source: updated $f"
			fi
		elif [ -e "$PRISTINE/$f" ]; then
			cmp -s "$PRISTINE/$f" "$KSRC/$f" || { cp "$PRISTINE/$f" "$KSRC/$f"; changed=$((changed + 1)); log "source: restored $f"; }
		elif [ -e "$KSRC/$f" ]; then
			rm -f "$KSRC/$f"; changed=$((changed + 1)); log "source: removed $f"
		fi
	done
	(cd "$WANT" && find . -type f | sed 's#^\./##' | sort) >"$KSRC/.blkmpath-managed"
fi

flock -u 9
exec 8>"$CACHE/kbuild-$VARIANT.lock"
flock 8 || die "cannot lock $CACHE/kbuild-$VARIANT.lock"

# ---- configure --------------------------------------------------------------
CFGHASH=$(hash_files "${FRAGS[@]}")
OUT=$BASE/out-$VARIANT-$CFGHASH
mkdir -p "$OUT"
if [ ! -e "$OUT/.config" ] || [ "$(cat "$OUT/.blkmpath-cfghash" 2>/dev/null)" != "$CFGHASH" ]; then
	log "configuring $VARIANT kernel in $OUT"
	make -s -C "$KSRC" O="$OUT" x86_64_defconfig >/dev/null || die "defconfig failed"
	# (from $OUT: merge_config.sh writes its temporary files in its
	# working directory, and the vanilla variant's source is the pristine tree)
	(cd "$OUT" && ARCH=x86_64 "$KSRC/scripts/kconfig/merge_config.sh" -m -O "$OUT" "$OUT/.config" \
		"$KSRC/kernel/configs/kvm_guest.config" "${FRAGS[@]}") >"$OUT/merge.log" 2>&1 || die "merge_config failed"
	make -s -C "$KSRC" O="$OUT" olddefconfig >/dev/null || die "olddefconfig failed"
	# every =y/=m the fragments ask for must have survived
	bad=0
	while IFS= read -r line; do
		case $line in CONFIG_*=y|CONFIG_*=m) grep -qx "$line" "$OUT/.config" ||
			{ log "config: $line did not stick ($(grep "^${line%%=*}=" "$OUT/.config" || echo unset))"; bad=1; } ;;
		esac
	done < <(cat "${FRAGS[@]}" | grep -v '^#' | awk -F= '{v[$1]=$0} END {for (k in v) print v[k]}')
	[ $bad -eq 0 ] || die "kernel config fragment not satisfied"
	echo "$CFGHASH" >"$OUT/.blkmpath-cfghash"
fi

# ---- build --------------------------------------------------------------------
STAMP=$( { echo "$SRCVER $VARIANT"; cat "${FRAGS[@]}" "${PATCHES[@]}"; (cd "$WANT" && find . -type f | sort | xargs cat); } | sha256sum | cut -c1-16)
KREL=$(cat "$OUT/include/config/kernel.release" 2>/dev/null)
if [ "$(cat "$OUT/.blkmpath-stamp" 2>/dev/null)" = "$STAMP" ] && [ -e "$OUT/arch/x86/boot/bzImage" ]; then
	log "kernel ($VARIANT) up to date: $KREL"
else
	log "building kernel ($VARIANT): make -j$JOBS bzImage modules (first build ~8-10 min on 2 cores)"
	run_progress "$OUT/build.log" "kernel build ($VARIANT)" make -C "$KSRC" O="$OUT" -j"$JOBS" bzImage modules
	KREL=$(cat "$OUT/include/config/kernel.release")
	rm -rf "$OUT/modinst"
	make -s -C "$KSRC" O="$OUT" INSTALL_MOD_PATH="$OUT/modinst" INSTALL_MOD_STRIP=1 modules_install >/dev/null ||
		die "modules_install failed"
	echo "$STAMP" >"$OUT/.blkmpath-stamp"
fi

# ---- the external dm target ------------------------------------------------------
# depmod as the guest does it: the stock dm-multipath.ko is the default
DEPMOD_CONF=$TOP/images/guest/usr/lib/depmod.d/blk-mpath.conf
if [ "$VARIANT" != vanilla ] && { [ -e "$TOP/dm-target/Kbuild" ] || [ -e "$TOP/dm-target/Makefile" ]; }; then
	DMB=$OUT/dm-target
	mkdir -p "$DMB"
	for f in "$TOP"/dm-target/*.[ch] "$TOP"/dm-target/Kbuild "$TOP"/dm-target/Makefile; do
		[ -e "$f" ] && { cmp -s "$f" "$DMB/$(basename "$f")" || cp "$f" "$DMB/"; }
	done
	log "building dm-target module"
	make -C "$KSRC" O="$OUT" M="$DMB" -j"$JOBS" modules >"$DMB/build.log" 2>&1 ||
		{ cat "$DMB/build.log" >&2; die "dm-target build failed"; }
	grep -E 'warning:' "$DMB/build.log" >&2 || true
	mkdir -p "$OUT/modinst/lib/modules/$KREL/extra/blk-mpath"
	for ko in "$DMB"/*.ko; do
		# dm-multipath.ko (the stock module's name) in a directory of its
		# own: depmod prefers the stock one unless told otherwise
		case $(basename "$ko") in
		dm-multipath.ko) dst=$OUT/modinst/lib/modules/$KREL/extra/blk-mpath/dm-multipath.ko ;;
		*) dst=$OUT/modinst/lib/modules/$KREL/extra/$(basename "$ko") ;;
		esac
		cmp -s "$ko" "$dst" || { cp "$ko" "$dst"; strip --strip-debug "$dst"; }
	done
	depmod -C "$DEPMOD_CONF" -b "$OUT/modinst" "$KREL" || die "depmod failed"
fi
# modules_install of in-tree modules may have been skipped: refresh the engine
for ko in $(cd "$OUT" && find block -name '*.ko' 2>/dev/null); do
	dst="$OUT/modinst/lib/modules/$KREL/kernel/$ko"
	cmp -s "$OUT/$ko" "$dst" 2>/dev/null || { mkdir -p "$(dirname "$dst")"; cp "$OUT/$ko" "$dst"; strip --strip-debug "$dst"; depmod -C "$DEPMOD_CONF" -b "$OUT/modinst" "$KREL"; }
done
echo "$OUT"
