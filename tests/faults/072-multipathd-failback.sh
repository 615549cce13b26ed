#!/bin/bash
# DESCRIPTION: multipathd failback (LIO tcm_loop, implicit ALUA, group_by_prio, prio alua: port 1 active/optimized prio 50, port 2 active/non-optimized prio 10) under fio verify, stock and blk-mpath: "failback immediate": port 1's device offline, I/O moves to group 2; back online, multipathd switches back to group 1 (dmsetup table/status, per-path write counters) within a bound, and undoes a manual switchgroup; "failback followover": a manual switchgroup to group 2 stays, and port 1 coming back as the first path of its group fails back
# REQUIRES: cmd:fio cmd:multipathd mod:tcm_loop mod:dm-blk-mpath mod:dm-multipath
# TIER: full
# TIMEOUT: 600
. /opt/blk-mpath/tests/lib/common.sh
. /opt/blk-mpath/tests/lib/faults.sh
. /opt/blk-mpath/tests/lib/lio.sh
# What multipathd 0.9.4 does (multipathd/main.c, check_path, after every
# path check; multipath.conf(5) "failback"):
#   need_switch_pathgroup: the best group (select_path_group: highest
#   priority with a usable path) differs from the kernel's next/current
#   group (the status's "next pg", read at every dm event);
#   immediate: switch_group to the best group at once - after a path came
#   back, but also after an operator's switchgroup (the next check of any
#   path of the map undoes it);
#   followover: only when the path just came up (checker state was down)
#   and every other path of its group is down, i.e. the path is the first
#   of the best group to come back ("keeps a node from automatically
#   failing back when another node requested the failover"): an
#   operator's switchgroup stays.
# The kernel itself only fails over (a write on the offline device fails,
# the path fails, the next group takes over); the way back is multipathd's
# reinstate_path + switch_group messages.  Both engines alike.
#
# Bounds (polling_interval 2, max_polling_interval 4 in the guest's
# multipath.conf): a failed path is checked every 2 s, a healthy one at
# least every 4 s, on the checker's 1 s tick.  A failback is due at the
# first check of the path after it is back (<= 2 s + 1 s tick) plus the
# reinstate, the prio refresh (RTPG on both paths) and pg_init under TCG;
# an operator's switch is undone (immediate) at the next check of any of
# the map's paths (<= 4 s + 1 s tick).  Measured (TCG, both engines):
# failback 1.3-3.4 s, undo 0.6-3.9 s; FAILBACK_S 8 and UNDO_S 8 are about
# twice the worst measured value and still below two full check intervals
# more than the cycle itself.  HOLD_S, the window in which followover must
# keep a manual switch, is three max_polling_intervals: every path of the
# map is checked at least twice in it, and it is 1.5 x UNDO_S.
CONF=/etc/multipath/conf.d/blkmpath-072-failback.conf
trap 'rm -f "$CONF"; lio_quiesce' EXIT
FAILBACK_S=8
UNDO_S=8
HOLD_S=12
FAILOVER_S=10	# the kernel fails the offline path at its next write (fio QD8)
BOUND_MS=2000	# the longest any fio I/O may take (failover, pg_init, switches): measured 80-330 ms

# mpd_conf FAILBACK READY: lio_multipathd with failback FAILBACK (READY
# "-": CONF written only)
mpd_conf() {
	lio_multipathd "$CONF" "" "$2" "path_grouping_policy group_by_prio" "prio alua" 'hardware_handler "1 alua"' \
		"path_checker tur" 'path_selector "round-robin 0"' "failback $1" "no_path_retry fail"
}
# first_group MAP: the MAJ:MIN of the paths in the table's first group
first_group() { mp_paths "$1" | awk '$1 == 1 {printf "%s%s", s, $3; s = " "}'; }
# table_pg MAP: the group number after <#pgs> in "dmsetup table" (dm-mpath
# prints the next group, else the current one: the group in use)
table_pg() { dm_table "$1" | awk '{i = 1; i += $i + 1; i += $i + 1; print $(i + 1)}'; }
# prios: multipathd's priorities of port 1's and port 2's path, "50/10"
prios() {
	multipathd show paths raw format "%d %p" 2>/dev/null | awk -v d1="$P1" -v d2="$P2" \
		'$1 == d1 {a = $2} $1 == d2 {b = $2} END {print a "/" b}'
}
# map_now MAP: one reading of the map, parsed in the shell (a poll costs
# two dmsetup runs, no pipeline: forks are slow under TCG): M_TPG the
# table's group (after <#pgs>: dm-mpath prints the next group, else the
# current one), M_ACT the status's active group (0: none), M_PST the
# path states " MAJ:MIN=A|F ..." in status order
map_now() {
	local t s a i g np ns npg st p
	t=$(dmsetup table "$1") && s=$(dmsetup status "$1") || return 1
	read -ra a <<<"$t"
	i=3; i=$((i + a[i] + 1)); i=$((i + a[i] + 1)); M_TPG=${a[i + 1]}
	read -ra a <<<"$s"
	i=3; i=$((i + a[i] + 1)); i=$((i + a[i] + 1)); npg=${a[i]}; i=$((i + 2))
	M_ACT=0 M_PST=
	for ((g = 1; g <= npg; g++)); do
		st=${a[i]}; i=$((i + 1)); i=$((i + a[i] + 1)); np=${a[i]} ns=${a[i + 1]}; i=$((i + 2))
		[ "$st" = A ] && [ $M_ACT = 0 ] && M_ACT=$g
		for ((p = 0; p < np; p++)); do M_PST+=" ${a[i]}=${a[i + 1]}"; i=$((i + 3 + ns)); done
	done
}
# on_group MAP G: the table's group is G, G is the active group in the
# status, and its path (group 1: port 1's, group 2: port 2's) is active
on_group() {
	local mmg
	[ "$2" = 1 ] && mmg=$A || mmg=$B
	map_now "$1" && [ "$M_TPG" = "$2" ] && [ "$M_ACT" = "$2" ] && [[ "$M_PST " == *" $mmg=A "* ]]
}
# mpd_ready MAP: port 1's path first (group 1) and in use, the priorities 50/10
mpd_ready() { [ "$(first_group "$1")" = "$A" ] && [ "$(prios)" = 50/10 ] && on_group "$1" 1; }
# uptime_ms: CLOCK_BOOTTIME in ms (no suspend here: the monotonic clock
# of journalctl -o short-monotonic)
uptime_ms() { local u; read -r u _ </proc/uptime; echo $((${u/./} * 10)); }
# mpd_switched SINCE_MS GROUP: ms from SINCE_MS to multipathd's first
# "switch to path group #GROUP" after it (empty if none)
mpd_switched() {
	journalctl -u multipathd --no-pager -o short-monotonic -n 300 2>/dev/null |
		awk -v s="$1" -v m="$MAP: switch to path group #$2" 'index($0, m) {
			t = $0; sub(/^\[ */, "", t); sub(/\].*/, "", t); t = int(t * 1000)
			if (t >= s) {print t - s; exit}
		}'
}
# expect_io_on 1|2 WHAT: only that port's path carries fio's writes
expect_io_on() {
	local w1 w2
	read -r w1 w2 <<<"$(io_split "$P1" "$P2")"
	if [ "$1" = 1 ]; then
		[ "$w1" -gt 0 ] && [ "$w2" = 0 ] || fail "$ENGINE: $2: writes in 1 s: $P1 (port 1) $w1, $P2 (port 2) $w2; expected port 1 only"
	else
		[ "$w2" -gt 0 ] && [ "$w1" = 0 ] || fail "$ENGINE: $2: writes in 1 s: $P1 (port 1) $w1, $P2 (port 2) $w2; expected port 2 only"
	fi
	say "ok: $2: writes in 1 s: $P1 (port 1) $w1, $P2 (port 2) $w2"
}
# failback_is MODE: multipathd shows the map's failback as MODE (%F)
failback_is() { [ "$(multipathd show maps raw format "%n %F" 2>/dev/null | awk -v m="$MAP" '$1 == m {print $2}')" = "$1" ]; }
path_is() { map_now "$MAP" && [[ "$M_PST " == *" $1=$2 "* ]]; }
# kmark TEXT: a line in the kernel log (the dmesg lines of the scenario
# then show when each step happened)
kmark() { echo "072 $ENGINE: $*" >/dev/kmsg; }
mpd_journal() { # since (systemd time spec)
	journalctl -u multipathd --no-pager -o short-monotonic --since "$1" 2>/dev/null |
		grep -E "$MAP|$P1|$P2" | grep -vE 'checker|path offline' | tail -"${2:-15}" | sed 's/^/  multipathd| /'
}
# map_state: table and status, one line each
map_state() { say "table:  $(dm_table "$MAP")"; say "status: $(dm_status "$MAP")"; }

run_engine() {
	local t0 h1 since failback_imm undo_imm failback_fo fs w2 seen mpd_imm mpd_undo mpd_fo
	lio_setup 2 1
	P1=${LIO_PATHS[0]} P2=${LIO_PATHS[1]} A=${LIO_MM[0]} B=${LIO_MM[1]}
	h1=${LIO_HCTLS[0]}
	lio_state 2 an
	settle	# multipathd reads the paths' udev properties (WWID)
	mpd_conf immediate mpd_ready
	MAP=$LIO_MAP
	map_state
	expect_eq "$(prios)" 50/10 "multipathd's priorities: port 1 (active/optimized) 50, port 2 (active/non-optimized) 10"
	expect_eq "$(mp_paths "$MAP" | awk '{printf "%s%s=%s", s, $1, $3; s = " "}')" "1=$A 2=$B" \
		"group_by_prio: group 1 holds port 1's path, group 2 port 2's"
	expect_eq "$(table_pg "$MAP")/$(mp_active_group "$MAP")" 1/1 "table and status: group 1 in use"
	failback_is immediate || { multipathd show maps raw format "%n %F"; fail "multipathd does not show failback immediate for $MAP"; }
	say "ok: multipathd: failback immediate"

	say "=== 1. failback immediate"
	since=$(date '+%Y-%m-%d %H:%M:%S')
	dmesg_mark
	fio_start "$MAP" 90
	expect_io_on 1 "before the fault"
	STEP="immediate: port 1 offline"
	fault_mark
	kmark "port 1 offline"
	path_state "$P1" offline
	fio_alive
	wait_until $FAILOVER_S on_group "$MAP" 2 ||
		{ map_state; lio_evidence; fail "$ENGINE: I/O did not move to group 2 within $FAILOVER_S s of port 1 going offline"; }
	say "group 2 in use ${WAITED_MS} ms after port 1 went offline"
	expect_eq "$(path_state_of "$MAP" "$A")" F "$ENGINE: port 1's path failed in the status"
	dmesg_since | grep -q "$h1: rejecting I/O to offline device" ||
		fail "$ENGINE: no write reached the offline device $P1 ($h1): the kernel did not fail it by I/O"
	say "ok: $P1 ($h1) refused I/O (rejecting I/O to offline device)"
	map_state
	expect_io_on 2 "port 1 offline"
	STEP="immediate: port 1 back"
	kmark "port 1 running"
	t0=$(uptime_ms)
	path_state "$P1" running
	wait_until $FAILBACK_S on_group "$MAP" 1 ||
		{ map_state; mpd_journal "$since"; fail "$ENGINE: failback immediate: no switch back to group 1 within $FAILBACK_S s of port 1 coming back"; }
	failback_imm=$WAITED_MS mpd_imm=$(mpd_switched "$t0" 1)
	say "ok: failback immediate: group 1 in use again ${failback_imm} ms after port 1 came back (bound $FAILBACK_S s; multipathd's switch_group after ${mpd_imm:-?} ms)"
	map_state
	expect_eq "$(first_group "$MAP")" "$A" "group order kept: port 1's path in group 1"
	expect_io_on 1 "after the failback"
	mpd_journal "$since" | grep -E 'switch to path group|reinstat|mark as failed|failed' | tail -6

	STEP="immediate: operator switch"
	# an operator's switch to group 2: undone at the next check of a path
	since=$(date '+%Y-%m-%d %H:%M:%S')
	w2=$(sd_writes "$P2")
	kmark "operator switchgroup 2 (immediate)"
	t0=$(uptime_ms)
	run multipathd switchgroup map "$MAP" group 2 || fail "multipathd switchgroup map $MAP group 2"
	seen=0
	map_now "$MAP" && [ "$M_TPG" = 2 ] && seen=1
	wait_until $UNDO_S on_group "$MAP" 1 ||
		{ map_state; mpd_journal "$since"; fail "$ENGINE: failback immediate did not undo the manual switch to group 2 within $UNDO_S s"; }
	undo_imm=$WAITED_MS mpd_undo=$(mpd_switched "$t0" 1)
	# the switch did happen: group 2 seen in the table, or writes on port 2
	[ $seen = 1 ] || [ "$(sd_writes "$P2")" -gt "$w2" ] ||
		{ mpd_journal "$since"; fail "$ENGINE: the manual switch to group 2 left no trace (table, port 2 writes)"; }
	mpd_journal "$since" | grep -E 'switch to path group' | tail -3
	mpd_journal "$since" | grep -q 'switch to path group #1' ||
		fail "$ENGINE: multipathd's journal has no switch back to group #1"
	say "ok: failback immediate undid the manual switch to group 2 in ${undo_imm} ms (multipathd's switch_group after ${mpd_undo:-?} ms; group 2 seen in the table: $seen; port 2 writes +$(($(sd_writes "$P2") - w2)))"
	expect_io_on 1 "after the manual switch was undone"
	fio_expect_clean stop
	expect_gap_below $BOUND_MS
	local gap_imm=$GAP_MS

	say "=== 2. failback followover"
	mpd_conf followover -
	since=$(date '+%Y-%m-%d %H:%M:%S')
	run multipathd reconfigure || fail "multipathd reconfigure"
	wait_until 30 failback_is followover ||
		{ multipathd show maps raw format "%n %F"; fail "multipathd did not take failback followover in 30 s"; }
	say "ok: multipathd: failback followover (${WAITED_MS} ms after reconfigure)"
	wait_until 10 on_group "$MAP" 1 || { map_state; fail "after the reconfigure group 1 should be in use"; }
	expect_eq "$(first_group "$MAP")" "$A" "group 1 still holds port 1's path"
	fio_start "$MAP" 90
	STEP="followover: operator switch"
	since=$(date '+%Y-%m-%d %H:%M:%S')
	kmark "operator switchgroup 2 (followover)"
	run multipathd switchgroup map "$MAP" group 2 || fail "multipathd switchgroup map $MAP group 2"
	wait_until 5 on_group "$MAP" 2 || { map_state; fail "$ENGINE: the manual switch to group 2 did not take effect in 5 s"; }
	expect_io_on 2 "manual switch to group 2"
	t0=$(now_ms)
	while [ $(($(now_ms) - t0)) -lt $((HOLD_S * 1000)) ]; do
		on_group "$MAP" 2 || { map_state; mpd_journal "$since"; fail "$ENGINE: failback followover undid the manual switch to group 2 after $(($(now_ms) - t0)) ms"; }
		sleep 0.2
	done
	say "ok: failback followover kept the manual switch to group 2 for $HOLD_S s (immediate undid it in ${undo_imm} ms)"
	expect_io_on 2 "still group 2 after $HOLD_S s"
	mpd_journal "$since" | grep -q 'switch to path group #1' &&
		{ mpd_journal "$since"; fail "$ENGINE: multipathd switched back to group 1 under followover"; }

	STEP="followover: port 1 offline and back"
	dmesg_mark
	kmark "port 1 offline (followover)"
	path_state "$P1" offline
	# no I/O on port 1 now: multipathd's checker fails the path (sysfs offline)
	wait_until 10 path_is "$A" F ||
		{ map_state; fail "$ENGINE: multipathd did not fail port 1's offline path within 10 s"; }
	say "ok: port 1's path failed (multipathd's checker) ${WAITED_MS} ms after going offline"
	expect_eq "$(table_pg "$MAP")/$(mp_active_group "$MAP")" 2/2 "group 2 still in use"
	since=$(date '+%Y-%m-%d %H:%M:%S')
	kmark "port 1 running (followover)"
	t0=$(uptime_ms)
	path_state "$P1" running
	wait_until $FAILBACK_S on_group "$MAP" 1 ||
		{ map_state; mpd_journal "$since"; fail "$ENGINE: failback followover: no switch to group 1 within $FAILBACK_S s of port 1 (the first path of group 1) coming back"; }
	failback_fo=$WAITED_MS mpd_fo=$(mpd_switched "$t0" 1)
	say "ok: failback followover: group 1 in use ${failback_fo} ms after its first path came back (bound $FAILBACK_S s; multipathd's switch_group after ${mpd_fo:-?} ms)"
	map_state
	expect_io_on 1 "followover failback"
	mpd_journal "$since" | grep -E 'switch to path group|reinstat' | tail -4
	fio_expect_clean stop
	expect_gap_below $BOUND_MS
	fs=$(multipathd show maps raw format "%n %1" 2>/dev/null | awk -v m="$MAP" '$1 == m {print $2}')
	say "multipathd's switch_grp count for $MAP: $fs"

	multipathd_stop
	rm -f "$CONF"
	fault_result gap_ms="$(awk -v a="$gap_imm" -v b="$GAP_MS" 'BEGIN {print (a > b) ? a : b}')" \
		failback_immediate_ms="$failback_imm" undo_immediate_ms="$undo_imm" \
		followover_kept_s=$HOLD_S failback_followover_ms="$failback_fo" \
		mpd_failback_ms="$mpd_imm" mpd_undo_ms="$mpd_undo" mpd_followover_ms="$mpd_fo" \
		outcome=failback-immediate,undo-immediate,kept-followover,failback-followover
	if [ "$ENGINE" = new ]; then
		expect_eq "$(fault_value new outcome)" "$(fault_value stock outcome)" "blk-mpath's outcome is stock's"
	fi
}
fault_main
