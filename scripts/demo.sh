#!/bin/bash
# make demo [ENGINE=new|stock]: build what is missing, boot the guest and
# narrate multipathd driving the engine through a path failure.
. "$(dirname "$0")/lib.sh"
ENGINE=${ENGINE:-new}
[ "$ENGINE" = new ] && [ ! -e "$TOP/dm-target/Kbuild" ] && { log "dm-target not built yet: using stock"; ENGINE=stock; }
need_pkgs qemu-system-x86 qemu-utils debootstrap rsync e2fsprogs gcc make libdevmapper-dev
OUT=$("$TOP/kernel/build.sh" guest | tail -1) || die "kernel build failed"
make -s -C "$TOP/userspace" >/dev/null || die "userspace tools failed to build"
W=$CACHE/run-demo-$ENGINE
MODE=demo ENGINE=$ENGINE TIMEOUT=900 "$TOP/images/run-guest.sh" "$OUT" "$W"
