#!/bin/bash
# make bench: raw vs stock dm-multipath (mq, bio) vs blk-mpath on null_blk, one guest boot.
. "$(dirname "$0")/lib.sh"
need_pkgs qemu-system-x86 qemu-utils debootstrap rsync e2fsprogs gcc make libdevmapper-dev
OUT=$("$TOP/kernel/build.sh" guest | tail -1) || die "kernel build failed"
make -s -C "$TOP/userspace" >/dev/null || die "userspace tools failed to build"
W=$CACHE/run-bench
MODE=bench ENGINE=new TIMEOUT=1800 "$TOP/images/run-guest.sh" "$OUT" "$W" || exit 1
mkdir -p "$TOP/results"; rm -rf "$TOP/results/bench"; cp -r "$W/results/bench" "$TOP/results/bench" 2>/dev/null
echo; cat "$W/results/bench/table.txt"
