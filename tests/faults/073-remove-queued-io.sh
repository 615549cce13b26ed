#!/bin/bash
# DESCRIPTION: removing a map while I/O is queued in it (queue_if_no_path, every path failed, fio verify writer blocked): multipath -f on the open map (multipathd running) answers in bounded time and the same on both engines, the writer gets EIO once queueing is disabled; multipathd flush_on_last_del yes: deleting the last scsi_debug path disables queueing, the queued I/O fails, the map ends as stock leaves it; dmsetup remove --deferred: the map stays (DEFERRED REMOVE) until the last opener exits after fail_if_no_path, then goes; stock and blk-mpath alike
# REQUIRES: cmd:fio cmd:multipathd cmd:multipath mod:scsi_debug mod:dm-blk-mpath mod:dm-multipath
# TIER: full
# TIMEOUT: 600
. /opt/blk-mpath/tests/lib/common.sh
. /opt/blk-mpath/tests/lib/faults.sh
FAULT_COMPARE=none	# no failover gap here: the outcomes are compared below

# The bounds (ms).  The kernel fails queued I/O as soon as queueing is
# disabled; what follows is fio noticing the error and exiting, under TCG.
# With flush_on_last_del, multipathd also has to handle the remove uevent.
ERR_BOUND_MS=${ERR_BOUND_MS:-5000}	# disable queueing -> writer exited with EIO
LASTDEL_BOUND_MS=${LASTDEL_BOUND_MS:-10000}	# last path deleted -> writer exited with EIO
FLUSH_TMO=20			# multipath -f / dmsetup remove: a hang is a failure
GONE_BOUND_MS=${GONE_BOUND_MS:-3000}	# writer exited -> deferred-removed map gone

CONF=/etc/multipath/conf.d/blkmpath-073.conf
# whatever happens, no I/O stays queued behind this scenario (the runner's
# cleanup must not wait on it)
release_all() {
	local m
	for m in $(dmsetup ls --target multipath 2>/dev/null | awk '$1 != "No" {print $1}'); do
		dmsetup message "$m" 0 fail_if_no_path >/dev/null 2>&1
	done
	rm -f "$CONF"
	true
}
trap release_all EXIT

# The guest's multipath.conf blacklists scsi_debug (other scenarios build
# their tables by hand); this lifts it.  hardware_handler "0", prio const
# and detect_prio no: scsi_debug (vpd_use_hostno=0) claims implicit TPGS,
# and multipathd would otherwise pick "1 alua" (scsi_dh_alua then reports
# host_no % 3 states: see sdebug_no_alua).  no_path_retry queue: queueing
# forever, so only the removal under test ends it.
write_conf() {
	mkdir -p "${CONF%/*}"
	cat >"$CONF.tmp" <<EOF
blacklist_exceptions {
	device {
		vendor "Linux"
		product "scsi_debug"
	}
}
devices {
	device {
		vendor "Linux"
		product "scsi_debug"
		path_grouping_policy multibus
		path_checker tur
		prio const
		detect_prio no
		detect_checker no
		hardware_handler "0"
		no_path_retry queue
		flush_on_last_del ${FLUSH_ON_LAST_DEL:-yes}
		failback immediate
	}
}
EOF
	mv "$CONF.tmp" "$CONF"
}

dm_blkdev() { dmsetup info -c --noheadings -o blkdevname "$1" 2>/dev/null | tr -d ' '; }
map_exists() { dmsetup info "$1" >/dev/null 2>&1; }
# dm_npaths MAP: the number of paths in the map's table
dm_npaths() { dmsetup deps "$1" 2>/dev/null | grep -o '([0-9]*, [0-9]*)' | wc -l; }
queueing() { dm_table "$1" | awk '{print ($0 ~ /queue_if_no_path/) ? "on" : "off"}'; }
# the multipathd map holding scsi_debug path sdX (empty until there)
sd_map() {
	multipathd show paths raw format "%d %m" 2>/dev/null | awk -v d="$1" '$1 == d && $2 != "[orphan]" {print $2}'
}

# queued_check MAP WHAT: the I/O really waits in the map: every path failed
# in the status, fio still runs and nothing completes on the map for 2 s,
# and the map holds requests: /sys/block/dm-N/inflight is nonzero, or (the
# request is not "in flight" between its tries: both engines push a
# request back to dm-rq's requeue list, DM_MAPIO_DELAY_REQUEUE, and
# retry it every 100 ms) the queue's requeue list holds requests.  The
# largest of 40 readings of each over those 2 s.  Sets INFL, REQ.
queued_check() {
	local map=$1 dm st c0 c1 i n r states
	dm=$(dm_blkdev "$map")
	[ -n "$dm" ] || fail "$2: no dm device for $map"
	st=/sys/block/$dm/stat
	states=$(dm_path_states "$map")
	[[ $states =~ ^F+$ ]] || fail "$2: not every path of $map failed: '$states' ($(dm_status "$map"))"
	expect_eq "$(queueing "$map")" on "$2: $map queues (queue_if_no_path in its table)"
	kill -0 "$FIO_PID" 2>/dev/null || fail "$2: fio ended although no path is usable: $(tail -3 "$FIO_OUT.err")"
	read -r c0 _ _ _ n _ <"$st"; c0=$((c0 + n))
	INFL=0 REQ=0
	for i in $(seq 40); do
		read -r n r <"/sys/block/$dm/inflight"
		[ $((n + r)) -gt "$INFL" ] && INFL=$((n + r))
		n=$(grep -c . "/sys/kernel/debug/block/$dm/requeue_list" 2>/dev/null)
		[ "${n:-0}" -gt "$REQ" ] && REQ=$n
		sleep 0.05
	done
	read -r c1 _ _ _ n _ <"$st"; c1=$((c1 + n))
	kill -0 "$FIO_PID" 2>/dev/null || fail "$2: fio ended although no path is usable: $(tail -3 "$FIO_OUT.err")"
	[ "$c1" = "$c0" ] || fail "$2: I/O still completes on $map ($c0 -> $c1 reads+writes in 2 s): not queued"
	[ "$INFL" -gt 0 ] || [ "$REQ" -gt 0 ] ||
		fail "$2: $map ($dm) holds no request (inflight 0, requeue list empty in 40 readings): nothing queued"
	say "ok: $2: I/O queued in $map ($dm): paths $states, no completion in 2 s, inflight up to $INFL, requeue list up to $REQ"
}

# writer_gets_eio T0_MS BOUND_MS WHAT: fio, blocked on the queued I/O,
# exits with an I/O error (EIO) within BOUND_MS of T0_MS; no verify error
# (what was written before the paths failed reads back).  Sets WR_MS.
writer_gets_eio() {
	local i
	for i in $(seq $(($2 / 100 + 1))); do
		kill -0 "$FIO_PID" 2>/dev/null || break
		sleep 0.1
	done
	WR_MS=$(($(now_ms) - $1))
	if kill -0 "$FIO_PID" 2>/dev/null; then
		dm_status "$MAP"
		fail "$ENGINE: $3: the writer is still blocked ${WR_MS} ms after queueing was disabled (bound $2 ms): queued I/O hangs"
	fi
	wait "$FIO_PID"; FIO_RC=$?
	fio_stats
	grep -E 'error|verify' "$FIO_OUT.err" | head -3
	[ "$FIO_RC" -ne 0 ] || fail "$ENGINE: $3: fio exited 0: the queued I/O did not fail"
	expect_eq "$FIO_ERR" 5 "$ENGINE: $3: fio's error is EIO (5)"
	grep -qiE 'verify|bad magic|crc32' "$FIO_OUT.err" && fail "$ENGINE: $3: fio reported a verify error"
	say "ok: $3: the writer got EIO ${WR_MS} ms after queueing was disabled (bound $2 ms), no verify error"
}

# paths_offline MAP sdX...: the paths refuse I/O; the map fails them at fio's next requests
paths_offline() {
	local map=$1 d
	shift
	for d; do path_state "$d" offline; done
	for d; do wait_path "$map" "$(mm "$d")" F 20 || fail "$ENGINE: path $d did not fail in $map: $(dm_status "$map")"; done
	say "paths $* offline, failed in $map"
}

# res KEY=VALUE...: results of this engine, reported in one fault_result
# line at the end (fault_value reads an engine's last line only)
res() { RES+=("$@"); }
# compare KEY...: on blk-mpath, each KEY's value is stock's
compare() {
	local k got want
	[ "$ENGINE" = new ] || return 0
	for k; do
		got=$(fault_value new "$k") want=$(fault_value stock "$k")
		[ -n "$want" ] || fail "no stock result for $k"
		expect_eq "$got" "$want" "blk-mpath does what stock does: $k"
	done
}

# ---- 3. dmsetup remove --deferred on the open map (no multipathd) ---------------
part_deferred() {
	local t0 i rc out gone_ms
	STEP="deferred remove"
	sdebug_setup
	path_vars "${SD_PATHS[@]}"
	MAP=mp073d
	dm_create $MAP "0 $N multipath 1 queue_if_no_path 0 1 1 round-robin 0 2 1 $A 1 $B 1" || fail "create $MAP"
	settle
	DM_DEV=$(dm_blkdev $MAP)
	fio_start $MAP 300
	paths_offline $MAP "${SD_PATHS[@]}"
	queued_check $MAP "deferred remove"
	out=$(timeout $FLUSH_TMO dmsetup remove --deferred $MAP 2>&1); rc=$?
	[ $rc = 124 ] && fail "$ENGINE: dmsetup remove --deferred hung (> $FLUSH_TMO s)"
	say "dmsetup remove --deferred $MAP: rc=$rc $out"
	[ $rc = 0 ] || fail "$ENGINE: dmsetup remove --deferred failed: $out"
	dmsetup info $MAP
	expect_match "$(dmsetup info $MAP 2>&1)" "DEFERRED REMOVE" "$ENGINE: $MAP is marked DEFERRED REMOVE while open"
	sleep 2
	map_exists $MAP || fail "$ENGINE: $MAP went away while fio still had it open"
	kill -0 "$FIO_PID" 2>/dev/null || fail "$ENGINE: fio ended before queueing was disabled"
	# (fio's open; udev's blkid may hold one more, blocked on the queued I/O too)
	expect_eq "$(($(dmsetup info -c --noheadings -o open $MAP | tr -d ' ') >= 1))/$(dm_path_states $MAP)" 1/FF \
		"$ENGINE: 2 s later $MAP is still there, open, both paths failed"
	queued_check $MAP "deferred remove pending"
	t0=$(now_ms)
	run dmsetup message $MAP 0 fail_if_no_path || fail "fail_if_no_path"
	writer_gets_eio "$t0" "$ERR_BOUND_MS" "deferred remove: fail_if_no_path"
	local w=$WR_MS
	t0=$(now_ms)
	for i in $(seq $((GONE_BOUND_MS / 100))); do map_exists $MAP || break; sleep 0.1; done
	gone_ms=$(($(now_ms) - t0))
	map_exists $MAP && { dmsetup info $MAP; fail "$ENGINE: $MAP still there ${gone_ms} ms after its last opener exited (deferred remove did not happen)"; }
	[ -n "$DM_DEV" ] && [ -e "/sys/block/$DM_DEV" ] && fail "$ENGINE: $MAP is gone but /sys/block/$DM_DEV is still there"
	say "ok: $MAP removed ${gone_ms} ms after the writer exited"
	for i in "${SD_PATHS[@]}"; do path_state "$i" running; done
	sdebug_teardown
	res deferred=removed-at-last-close deferred_eio_ms="$w" deferred_gone_ms="$gone_ms"
}

# multipathd's map of the scsi_debug LUN, both paths active.  Sets MAP.
mpd_map() {
	local i
	MAP=
	for i in $(seq 60); do
		MAP=$(sd_map "${SD_PATHS[0]}")
		[ -n "$MAP" ] && [ "$(dm_path_states "$MAP")" = AA ] && [ "$(sd_map "${SD_PATHS[1]}")" = "$MAP" ] && break
		sleep 0.5
	done
	[ -n "$MAP" ] && [ "$(dm_path_states "$MAP")" = AA ] ||
		{ multipathd show paths; multipathd show maps; fail "multipathd assembled no map with both scsi_debug paths active"; }
	say "multipathd map $MAP ($(dm_blkdev "$MAP")): $(dm_table "$MAP")"
	expect_match "$(dm_table "$MAP")" "^1 queue_if_no_path 0 1 1 " "$ENGINE: multipathd's table: queue_if_no_path, no hardware handler, one group"
}

# ---- 1. multipath -f on the open map with queued I/O ----------------------------------
part_flush() {
	local t0 rc out ms outcome q alive i
	STEP="multipath -f"
	mpd_map
	fio_start "$MAP" 300
	paths_offline "$MAP" "${SD_PATHS[@]}"
	queued_check "$MAP" "multipath -f"
	t0=$(now_ms)
	out=$(timeout $FLUSH_TMO multipath -f "$MAP" 2>&1); rc=$?
	ms=$(($(now_ms) - t0))
	say "multipath -f $MAP: rc=$rc after ${ms} ms: $out"
	[ $rc = 124 ] && fail "$ENGINE: multipath -f $MAP hung (> $FLUSH_TMO s) with I/O queued"
	sleep 1
	q=$(queueing "$MAP" 2>/dev/null)
	alive=ended; kill -0 "$FIO_PID" 2>/dev/null && alive=blocked
	if ! map_exists "$MAP"; then outcome=removed
	elif [ $rc != 0 ] && [[ $out == *"in use"* ]]; then outcome=refused-in-use
	else outcome=other-rc$rc
	fi
	say "$ENGINE: multipath -f: $outcome, queueing ${q:-gone}, writer $alive"
	res flush_rc="$rc" flush_outcome="$outcome" flush_queueing="${q:-gone}" flush_writer="$alive" flush_ms="$ms"
	# multipath-tools 0.9.4 checks the open count before it touches
	# queueing: on an open map it refuses and leaves queue_if_no_path on
	if [ "$outcome" = refused-in-use ] && [ "$q" = on ]; then
		queued_check "$MAP" "after multipath -f refused"
		t0=$(now_ms)
		run multipathd disablequeueing map "$MAP" || fail "multipathd disablequeueing map $MAP"
		writer_gets_eio "$t0" "$ERR_BOUND_MS" "multipathd disablequeueing after multipath -f refused"
	elif [ "$alive" = ended ]; then
		# multipath -f disabled queueing itself: the writer must have failed
		writer_gets_eio "$t0" "$((ms + ERR_BOUND_MS))" "multipath -f"
	else
		fail "$ENGINE: multipath -f: $outcome with queueing ${q:-gone} and the writer $alive"
	fi
	local w=$WR_MS
	map_exists "$MAP" && expect_eq "$(queueing "$MAP")" off "$ENGINE: queueing disabled on $MAP"
	# the map is closed now: multipath -f removes it (udev's blkid may open
	# it for a moment after fio's close: a few tries)
	settle
	for i in $(seq 10); do
		out=$(timeout $FLUSH_TMO multipath -f "$MAP" 2>&1); rc=$?
		[ $rc = 124 ] && fail "$ENGINE: multipath -f $MAP hung on the closed map"
		map_exists "$MAP" || break
		sleep 0.5
	done
	map_exists "$MAP" && fail "$ENGINE: multipath -f did not remove the closed map: $out"
	say "ok: multipath -f removed the closed map $MAP"
	res flush_eio_ms="$w"
	for i in "${SD_PATHS[@]}"; do path_state "$i" running; done
}

# ---- 2. flush_on_last_del yes: the last path deleted under queued I/O ---------------------
part_lastdel() {
	local t0 t1 i j pa pb a b final ms since
	STEP="flush_on_last_del"
	# multipathd drops the orphaned paths (their fds hold scsi_debug), then
	# a new scsi_debug LUN and a new map
	for i in "${SD_PATHS[@]}"; do multipathd del path "$i" >/dev/null; done
	settle
	sdebug_teardown
	lsmod | grep -q '^scsi_debug ' && fail "cannot unload scsi_debug after multipathd dropped its paths"
	sdebug_setup
	mpd_map
	pa=${SD_PATHS[0]} pb=${SD_PATHS[1]} a=$(mm "$pa") b=$(mm "$pb")
	fio_start "$MAP" 300
	paths_offline "$MAP" "$pa" "$pb"
	queued_check "$MAP" "before the path deletions"
	since=$(date +%s)
	run sh -c "echo 1 >/sys/block/$pa/device/delete"
	for i in $(seq 100); do [ "$(dm_npaths "$MAP")" = 1 ] && break; sleep 0.2; done
	expect_eq "$(dm_npaths "$MAP")/$(dm_table "$MAP" | grep -c " $b ")" 1/1 "$ENGINE: multipathd reloaded $MAP without the deleted $pa ($a), $pb ($b) left"
	wait_path "$MAP" "$b" F 20 || fail "$ENGINE: $pb not failed in the reloaded $MAP: $(dm_status "$MAP")"
	queued_check "$MAP" "one path deleted, the other failed"
	t0=$(now_ms)
	run sh -c "echo 1 >/sys/block/$pb/device/delete"
	writer_gets_eio "$t0" "$LASTDEL_BOUND_MS" "last path deleted (flush_on_last_del yes)"
	ms=$WR_MS
	for i in $(seq 25); do
		journalctl -u multipathd -o cat --since "@$since" --no-pager 2>/dev/null | grep -q "$MAP Last path deleted, disabling queueing" && break
		sleep 0.2
	done
	journalctl -u multipathd -o cat --since "@$since" --no-pager 2>/dev/null | grep -E "$MAP|$pa|$pb" | tail -12 | sed 's/^/  multipathd| /'
	journalctl -u multipathd -o cat --since "@$since" --no-pager 2>/dev/null | grep -q "$MAP Last path deleted, disabling queueing" ||
		fail "$ENGINE: multipathd did not log '$MAP Last path deleted, disabling queueing'"
	say "ok: multipathd disabled queueing when the last path went"
	# what the map is left as once multipathd is done with the remove
	# uevents.  multipath-tools 0.9.4 (ev_remove_path) disables queueing,
	# then tries to flush the map, which fails while fio still has it open
	# ("map in use", "can't flush"), and reloads it with no path at all
	# ("0 0 0 0"): the map stays, closed and not queueing, on stock.
	settle
	t1=$(now_ms)
	for i in $(seq 20); do
		a=$(map_exists "$MAP" && echo "present:paths=$(dm_npaths "$MAP"):queueing=$(queueing "$MAP")" || echo removed)
		sleep 0.5
		b=$(map_exists "$MAP" && echo "present:paths=$(dm_npaths "$MAP"):queueing=$(queueing "$MAP")" || echo removed)
		[ "$a" = "$b" ] && break
	done
	final=$b
	map_exists "$MAP" && { dmsetup table "$MAP"; dmsetup status "$MAP"; dmsetup info "$MAP" | grep -E 'State|Open'; }
	say "$ENGINE: after the last path's deletion the map is $final"
	res lastdel_eio_ms="$ms" lastdel_map="$final"
	if map_exists "$MAP"; then
		expect_match "$final" "queueing=off" "$ENGINE: the map left behind does not queue"
		when_unopened dmsetup remove "$MAP" || fail "$ENGINE: cannot remove $MAP left without paths"
	fi
}

run_engine() {
	local t0=$SECONDS
	RES=()
	part_deferred
	write_conf
	sdebug_setup
	settle	# multipathd reads the paths' udev properties (WWID)
	multipathd_start
	part_flush
	part_lastdel
	multipathd_stop
	rm -f "$CONF"
	fault_result "${RES[@]}" secs=$((SECONDS - t0))
	# both engines alike: what multipath -f did, the writer, the deferred
	# remove, what flush_on_last_del left
	compare deferred flush_rc flush_outcome flush_queueing flush_writer lastdel_map
}
fault_main
