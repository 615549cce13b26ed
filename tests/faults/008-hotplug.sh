#!/bin/bash
# DESCRIPTION: hot-unplug and re-plug (QMP device_del / device_add) of a path of a multipathd map under fio verify, the active one and the passive one in turn, 20 cycles (6 in make test): 0 I/O and verify errors, multipathd keeps managing the map, both paths back at the end; longest completion latency stock vs blk-mpath
# REQUIRES: cmd:fio cmd:multipathd mod:dm-blk-mpath mod:dm-multipath
# TIMEOUT: 900
. /opt/blk-mpath/tests/lib/common.sh
. /opt/blk-mpath/tests/lib/faults.sh
need_hostctl
# make test: 6 cycles per engine; make test-full: 20
if [ "${TIER:-quick}" = quick ]; then CYCLES=${HOTPLUG_CYCLES:-6}; else CYCLES=${HOTPLUG_CYCLES:-20}; fi

# (not named mp_paths: that one, in lib/faults.sh, lists the paths for mp_status)
mp_ready_count() { # MAP -> number of paths multipathd shows as active/ready
	multipathd show paths raw format "%m %t %T" 2>/dev/null | awk -v m="$1" '$1 == m && $2 == "active" && $3 == "ready"' | wc -l
}
wait_mp_paths() { # MAP N secs
	local i
	for i in $(seq $(($3 * 2))); do [ "$(mp_ready_count "$1")" -eq "$2" ] && return 0; sleep 0.5; done
	multipathd show paths; dm_status "$1"; return 1
}

run_engine() {
	local map c n=0 t0
	multipathd_start
	map=$(multipathd show maps raw format "%n" | head -1)
	wait_mp_paths "$map" 2 60 || fail "map not healthy at start"
	# fio_expect_clean stops fio after the last cycle: its runtime only has to
	# outlast the cycles, whose multipathd waits may take a minute each
	fio_start "$map" 900
	t0=$SECONDS
	for c in $(seq "$CYCLES"); do
		kill -0 "$FIO_PID" 2>/dev/null || fail "fio died before cycle $c (an I/O or verify error ends it)"
		# odd cycles: the path of the active group (a failover); even cycles:
		# the other one (only multipathd's table reloads while I/O runs)
		local dev q role=active
		[ $((c % 2)) -eq 0 ] && role=passive
		# (a table just loaded has no active group until its first I/O
		# maps: both roles are read from one status that has one)
		local i
		STEP="cycle $c: choosing the $role path"
		for i in $(seq 25); do
			dev=$(mp_status "$map" | awk -v r=$role '$2 == "A" {a = 1}
				!d && $4 == "A" && (($2 == "A") == (r == "active")) {d = $3}
				END {if (a && d) print d}')
			[ -n "$dev" ] && break
			sleep 0.2
		done
		q=$(qpath_of "${dev:-none}") || fail "no $role path to unplug (cycle $c): $(dm_status "$map")"
		# each step's time from the unplug (STEP: lib/faults.sh, where a time limit struck)
		local ts ms=()
		ts=$(now_ms)
		STEP="cycle $c: unplugging $role path $q"
		hostctl unplug "$q" || fail "unplug path $q (cycle $c)"
		wait_qpath "$q" absent 30 || fail "path $q still there after unplug (cycle $c)"
		ms+=($(($(now_ms) - ts)))
		STEP="cycle $c: waiting for multipathd to drop path $q"
		wait_mp_paths "$map" 1 60 || fail "multipathd did not drop path $q (cycle $c, after $(($(now_ms) - ts)) ms)"
		ms+=($(($(now_ms) - ts)))
		STEP="cycle $c: plugging path $q"
		hostctl plug "$q" || fail "plug path $q (cycle $c)"
		wait_qpath "$q" present 30 || fail "path $q did not come back (cycle $c)"
		ms+=($(($(now_ms) - ts)))
		STEP="cycle $c: waiting for multipathd to add path $q"
		wait_mp_paths "$map" 2 60 || fail "multipathd did not add path $q back (cycle $c, after $(($(now_ms) - ts)) ms)"
		ms+=($(($(now_ms) - ts)))
		say "cycle $c: $role path $q ($dev) gone ${ms[0]} ms, dropped by multipathd ${ms[1]} ms, back ${ms[2]} ms, added by multipathd ${ms[3]} ms"
		n=$((n + 1))
	done
	say "$n unplug/plug cycles in $((SECONDS - t0)) s under I/O"
	STEP="stopping fio"
	fio_expect_clean stop
	expect_gap_below 30000
	expect_eq "$(dm_path_states "$map")" AA "both paths active at the end"
	fault_result gap_ms=$GAP_MS stall_ms=$STALL_MS cycles=$n ios=$FIO_IOS
}
fault_main
