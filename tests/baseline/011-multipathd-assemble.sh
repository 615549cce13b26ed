#!/bin/bash
# DESCRIPTION: unmodified multipathd assembles the QEMU LUN: both paths active, table as sent
# REQUIRES: cmd:multipathd
. /opt/blk-mpath/tests/lib/common.sh
engine_load
mapfile -t P < <(lun_paths)
[ ${#P[@]} -eq 2 ] || fail "expected 2 LUN paths"
multipathd_start
run multipath -ll
map=$(multipathd show maps raw format "%n" | head -1)
[ "$map" = mpatha ] || fail "expected map mpatha, got '$map'"
n=$(multipath -ll "$map" | grep -c 'active ready running')
[ "$n" -eq 2 ] || fail "expected 2 active paths, got $n"
t=$(dm_table "$map")
for p in "${P[@]}"; do
	[[ " $t " == *" $(mm "$p") "* ]] || fail "path $p ($(mm "$p")) not in table '$t'"
done
say "table: $t"
run dmsetup deps "$map"
[ "$(dmsetup deps "$map" | grep -o '([0-9]*, [0-9]*)' | wc -l)" -eq 2 ] || fail "dmsetup deps does not list 2 devices"
for p in "${P[@]}"; do
	ls "/sys/block/$p/holders/" | grep -q '^dm-' || fail "no holders link from $p"
done
multipath -v3 -ll 2>&1 | grep -iE 'multipath.*(target|version)' | head -3
