#!/bin/bash
# DESCRIPTION: LIO tcm_loop, implicit ALUA, multipathd with prio alua and group_by_prio: the ports' states flip (active/optimized <-> standby) under fio verify; the optimized path ends up in the active group, no I/O error, stock and blk-mpath
# REQUIRES: cmd:fio cmd:multipathd mod:tcm_loop mod:dm-blk-mpath mod:dm-multipath
# TIMEOUT: 300
. /opt/blk-mpath/tests/lib/common.sh
. /opt/blk-mpath/tests/lib/faults.sh
. /opt/blk-mpath/tests/lib/lio.sh
# The guest's multipath.conf blacklists LIO-ORG (the other scenarios build
# their tables by hand); this one lifts it for the LIO LUN.  The flip is
# handled twice over: the kernel fails the path on the new standby port at
# its first write (NOT READY 04/0b) and switches to the other group after
# pg_init (RTPG); multipathd's checker then sees the new priorities (alua:
# 50 active/optimized, 1 standby) and reloads the map with the groups in
# the new order (failback immediate).  Both engines alike.
CONF=/etc/multipath/conf.d/blkmpath-lio-alua.conf
trap 'rm -f "$CONF"; lio_quiesce' EXIT
BOUND_MS=8000	# failover in the kernel, then a multipathd reload (suspend/resume)

# active_paths MAP: the MAJ:MIN of the paths in the active group
active_paths() { mp_paths "$1" | awk '$2 == "A" {printf "%s%s", s, $3; s = " "}'; }
# first_group MAP: the MAJ:MIN of the paths in the table's first group
# (group_by_prio puts the highest priority first: multipathd's regroup)
first_group() { mp_paths "$1" | awk '$1 == 1 {printf "%s%s", s, $3; s = " "}'; }
# groups_ok MAP ACTIVE_MM OTHER_MM DEV1 PRIO1 DEV2 PRIO2: ACTIVE_MM alone in
# the active group, OTHER_MM in another one, multipathd's priorities as given
groups_ok() {
	local g p
	g=$(mp_paths "$1" | awk -v a="$2" -v o="$3" '$2 == "A" {act = act " " $3} $3 == o && $2 != "A" {n++}
		END {print (act == " " a && n == 1) ? "ok" : "no"}')
	p=$(multipathd show paths raw format "%d %p" 2>/dev/null | awk -v d1="$4" -v d2="$6" \
		'$1 == d1 {a = $2} $1 == d2 {b = $2} END {print a "/" b}')
	[ "$g" = ok ] && [ "$p" = "$5/$7" ]
}
# before_flip MAP: port 1's path (prio 50) alone in the active group, port
# 2's (prio 1) in the other
before_flip() { groups_ok "$1" "$A" "$B" "${LIO_PATHS[0]}" 50 "${LIO_PATHS[1]}" 1; }

run_engine() {
	local A B map i t0 t_regroup
	lio_setup 2 1
	A=${LIO_MM[0]} B=${LIO_MM[1]}
	lio_state 2 standby
	settle	# multipathd reads the paths' udev properties (WWID)
	lio_multipathd "$CONF" "" before_flip "path_grouping_policy group_by_prio" "prio alua" 'hardware_handler "1 alua"' \
		"path_checker tur" "failback immediate" "no_path_retry fail"
	map=$LIO_MAP
	dm_table "$map"
	before_flip "$map" ||
		{ dm_status "$map"; fail "before the flip: port 1 (prio 50) should be alone in the active group"; }
	say "ok: group_by_prio: ${LIO_PATHS[0]} (prio 50) active, ${LIO_PATHS[1]} (prio 1) in the other group"
	expect_match "$(dm_table "$map")" "1 alua" "hardware handler alua"

	dmesg_mark
	fio_start "$map" 10
	t0=$(date +%s%3N)
	lio_state 2 ao
	lio_state 1 standby
	fio_alive
	for i in $(seq 100); do
		groups_ok "$map" "$B" "$A" "${LIO_PATHS[1]}" 50 "${LIO_PATHS[0]}" 1 && break
		sleep 0.2
	done
	t_regroup=$(($(date +%s%3N) - t0))
	groups_ok "$map" "$B" "$A" "${LIO_PATHS[1]}" 50 "${LIO_PATHS[0]}" 1 ||
		{ dm_status "$map"; multipathd show paths; lio_evidence; fail "after the flip: port 2 should be alone in the active group with prio 50"; }
	say "ok: after the flip ${LIO_PATHS[1]} (prio 50) is alone in the active group, ${LIO_PATHS[0]} (prio 1) in the other (${t_regroup} ms)"
	fio_expect_clean
	expect_gap_below $BOUND_MS
	multipath -ll "$map"
	dm_status "$map"
	expect_eq "$(active_paths "$map")" "$B" "the active group holds the optimized path"
	# multipathd regrouped: the new optimized path's group is now first
	for i in $(seq 50); do [ "$(first_group "$map")" = "$B" ] && break; sleep 0.2; done
	expect_eq "$(first_group "$map")" "$B" "multipathd reloaded the map with port 2's group first"
	lio_evidence

	say "flip back: port 1 active/optimized, port 2 standby (failback immediate)"
	fio_start "$map" 10
	lio_state 1 ao
	lio_state 2 standby
	fio_alive
	for i in $(seq 100); do
		groups_ok "$map" "$A" "$B" "${LIO_PATHS[0]}" 50 "${LIO_PATHS[1]}" 1 && [ "$(first_group "$map")" = "$A" ] && break
		sleep 0.2
	done
	fio_expect_clean
	expect_gap_below $BOUND_MS
	dm_status "$map"
	expect_eq "$(active_paths "$map")" "$A" "after the flip back the active group holds port 1's path"
	expect_eq "$(first_group "$map")" "$A" "multipathd reloaded the map with port 1's group first again"
	journalctl -u multipathd --no-pager -n 400 2>/dev/null | grep -E "${LIO_PATHS[0]}|${LIO_PATHS[1]}|$map" | tail -15 | sed 's/^/  multipathd| /'
	multipathd_stop
	rm -f "$CONF"
	fault_result gap_ms="$GAP_MS" regrouped_after_ms="$t_regroup" bound_ms=$BOUND_MS
}
fault_main
