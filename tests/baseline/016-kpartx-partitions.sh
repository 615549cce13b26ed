#!/bin/bash
# DESCRIPTION: kpartx maps partitions of a multipath device (linear on top of the map) and LVM sees a PV on it
# REQUIRES: cmd:kpartx cmd:sfdisk cmd:pvcreate
. /opt/blk-mpath/tests/lib/common.sh
engine_load
mapfile -t P < <(lun_paths)
path_vars "${P[@]}"
dm_create mpk "0 $N multipath 0 0 1 1 round-robin 0 2 1 $A 1 $B 1" || fail "create"
echo ',64M,L' | sfdisk -q /dev/mapper/mpk >/dev/null || fail "sfdisk"
run kpartx -a -p p /dev/mapper/mpk || fail "kpartx -a"
settle
[ -b /dev/mapper/mpkp1 ] || { dmsetup ls; fail "no partition map mpkp1"; }
MM=$(dmsetup info -c --noheadings -o major,minor mpk | tr -d ' ')
expect_eq "$(dmsetup table mpkp1)" "0 131072 linear $MM 2048" "partition map table"
run pvcreate -ff -y /dev/mapper/mpkp1 || fail "pvcreate"
run vgcreate blkvg /dev/mapper/mpkp1 || fail "vgcreate"
run lvcreate -q -y -L 16M -n lv0 blkvg || fail "lvcreate"
dd if=/dev/urandom of=/tmp/pat bs=1M count=4 status=none
dd if=/tmp/pat of=/dev/blkvg/lv0 bs=1M oflag=direct status=none || fail "write LV"
cmp /tmp/pat <(dd if=/dev/blkvg/lv0 bs=1M count=4 iflag=direct status=none) || fail "LV data differs"
run vgchange -an blkvg >/dev/null
run vgremove -f blkvg >/dev/null
run when_unopened kpartx -d -p p /dev/mapper/mpk || { dmsetup info mpkp1; fail "kpartx -d"; }
dmsetup info mpkp1 >/dev/null 2>&1 && fail "map mpkp1 still there after kpartx -d"
run dm_remove mpk || fail "remove mpk"
