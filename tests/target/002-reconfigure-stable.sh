#!/bin/bash
# DESCRIPTION: multipathd at -v3: 3 x "multipathd reconfigure" leave the map untouched (no reload, no switch_group)
# REQUIRES: cmd:multipathd
. /opt/blk-mpath/tests/lib/common.sh
engine_load
cp /etc/multipath.conf /tmp/multipath.conf.orig
trap 'cp /tmp/multipath.conf.orig /etc/multipath.conf' EXIT
sed -i 's/^defaults {/defaults {\n\tverbosity 3/' /etc/multipath.conf
settle
multipathd_start
map=$(multipathd show maps raw format "%n" | head -1)
[ -n "$map" ] || fail "multipathd shows no map"

# mpd_idle: wait until multipathd has no configuration work in progress
mpd_idle() {
	local j
	for j in $(seq 60); do
		multipathd show daemon 2>/dev/null | grep -q idle && return 0
		sleep 1
	done
	multipathd show daemon
	fail "multipathd not idle after 60 s"
}
# decisions: how many "set ACT_..." lines multipathd logged for the map
# after the journal cursor $cur
decisions() {
	journalctl -u multipathd --after-cursor "$cur" --no-pager -o cat 2>/dev/null |
		grep -cE "^$map: set ACT_" || true
}
for i in $(seq 30); do [ "$(dm_path_states "$map")" = AA ] && break; sleep 1; done
expect_eq "$(dm_path_states "$map")" AA "both paths active before the reconfigures"
settle
mpd_idle
t0=$(dmsetup table "$map") s0=$(dmsetup status "$map")
# Start counting after multipathd's own start-up decision for the map
# (its "set ACT_CREATE") is in the journal: journald stamps a line when it
# reads it, so a time taken here could still come before that line (seen
# once: the start-up's ACT_CREATE counted as a reconfigure's).  Then count
# from the journal's cursor, not from a time.
mpid=$(systemctl show -p MainPID --value multipathd)
for j in $(seq 30); do
	journalctl _PID="$mpid" --no-pager -o cat 2>/dev/null | grep -qE "^$map: set ACT_" && break
	sleep 1
done
cur=$(journalctl -u multipathd -n 1 --no-pager --show-cursor -o cat 2>/dev/null | sed -n 's/^-- cursor: //p')
[ -n "$cur" ] || fail "no journal cursor for multipathd"
for i in 1 2 3; do
	ok=
	for try in 1 2 3 4 5; do
		out=$(multipathd reconfigure 2>&1)
		echo "+ multipathd reconfigure -> $out"
		[ "$out" = ok ] && { ok=1; break; }
		sleep 2
	done
	[ -n "$ok" ] || fail "reconfigure $i refused: $out"
	# wait for this reconfigure's decision on the map to reach the journal
	for j in $(seq 60); do [ "$(decisions)" -ge "$i" ] && break; sleep 1; done
	mpd_idle
done
journalctl -u multipathd --after-cursor "$cur" --no-pager >/tmp/mpd.log
grep -E "$map: (set ACT|reload|switch)|reconfigure" /tmp/mpd.log | sed 's/^/# /' | tail -20
nothing=$(grep -cE "$map: set ACT_NOTHING" /tmp/mpd.log || true)
bad=$(grep -E "$map: set ACT_(RELOAD|SWITCHPG|RESIZE|CREATE|RENAME)" /tmp/mpd.log || true)
[ -z "$bad" ] || fail "multipathd changed the map on reconfigure: $bad"
if [ "$nothing" -lt 3 ]; then
	grep -E "$map|reconfigure" /tmp/mpd.log | tail -40 | sed 's/^/# /'
	fail "expected 3 'set ACT_NOTHING' decisions, saw $nothing"
fi
expect_eq "$(dmsetup table "$map")" "$t0" "table unchanged"
expect_eq "$(dmsetup status "$map" | sed 's/ [AF] [0-9]* / X /g')" "$(echo "$s0" | sed 's/ [AF] [0-9]* / X /g')" "status unchanged"
