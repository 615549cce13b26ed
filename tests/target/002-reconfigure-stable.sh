#!/bin/bash
# DESCRIPTION: multipathd at -v3: 3 x "multipathd reconfigure" leave the map untouched (no reload, no switch_group)
# REQUIRES: cmd:multipathd
. /opt/blk-mpath/tests/lib/common.sh
engine_load
cp /etc/multipath.conf /tmp/multipath.conf.orig
trap 'cp /tmp/multipath.conf.orig /etc/multipath.conf' EXIT
sed -i 's/^defaults {/defaults {\n\tverbosity 3/' /etc/multipath.conf
multipathd_start
map=$(multipathd show maps raw format "%n" | head -1)
for i in $(seq 30); do [ "$(dm_path_states "$map")" = AA ] && break; sleep 1; done
t0=$(dmsetup table "$map") s0=$(dmsetup status "$map")
since=$(date '+%Y-%m-%d %H:%M:%S')
sleep 1
for i in 1 2 3; do
	run multipathd reconfigure || fail "reconfigure $i"
	for j in $(seq 30); do multipathd show maps 2>/dev/null | grep -q "$map" && break; sleep 1; done
	sleep 3
done
journalctl -u multipathd --since "$since" --no-pager >/tmp/mpd.log
grep -E "$map: (set ACT|reload|switch)" /tmp/mpd.log | sed 's/^/# /' | tail -12
nothing=$(grep -cE "$map: set ACT_NOTHING" /tmp/mpd.log || true)
bad=$(grep -E "$map: set ACT_(RELOAD|SWITCHPG|RESIZE|CREATE|RENAME)" /tmp/mpd.log || true)
[ -z "$bad" ] || fail "multipathd changed the map on reconfigure: $bad"
[ "$nothing" -ge 3 ] || fail "expected 3 'set ACT_NOTHING' decisions, saw $nothing"
expect_eq "$(dmsetup table "$map")" "$t0" "table unchanged"
expect_eq "$(dmsetup status "$map" | sed 's/ [AF] [0-9]* / X /g')" "$(echo "$s0" | sed 's/ [AF] [0-9]* / X /g')" "status unchanged"
