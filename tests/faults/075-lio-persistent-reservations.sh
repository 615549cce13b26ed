#!/bin/bash
# DESCRIPTION: LIO tcm_loop, SPC-3 persistent reservations through multipathd and mpathpersist (reservation_key in multipath.conf), stock and blk-mpath: the key registered on every I_T nexus of the map and a Write Exclusive Registrants Only reservation held (mpathpersist and LIO's configfs agree); the reserving port offline under fio verify: I/O goes on on the other registered path without an I/O error; a third, unregistered nexus gets RESERVATION CONFLICT for a write; a map path whose key was removed behind multipathd's back gets RESERVATION CONFLICT: the writer sees EBADE and the engine keeps the path (not a path error); release and unregister leave no reservation and no registration; the same outcome on both engines
# REQUIRES: cmd:fio cmd:multipathd cmd:mpathpersist cmd:sg_persist mod:tcm_loop mod:dm-blk-mpath mod:dm-multipath
# TIER: full
# TIMEOUT: 480
. /opt/blk-mpath/tests/lib/common.sh
. /opt/blk-mpath/tests/lib/faults.sh
. /opt/blk-mpath/tests/lib/lio.sh
# The I_T nexuses: tcm_loop gives every WWN (target port) one nexus with
# its own initiator name (tests/lib/lio.sh: port i, initiator
# naa.50014051000<i>), and LIO keys a PR registration on the initiator's
# node ACL of that target portal group (core_scsi3_locate_pr_reg), so each
# port is its own I_T nexus.  Ports 1 and 2 are the map's paths; port 3
# exports the same LUN to a third nexus that multipathd is told to leave
# alone (blacklisted by devnode) - the "other host" that never registers.
#
# What SCSI makes of a RESERVATION CONFLICT status (6.1
# scsi_decide_disposition: "reservation conflict", SCSIML_STAT_RESV_CONFLICT,
# no retry) is BLK_STS_NEXUS, -EBADE ("Invalid exchange") for the caller.
# Stock dm-mpath does not fail a path for it (multipath_end_io:
# blk_path_error(BLK_STS_NEXUS) is false) and returns the error at once,
# without trying another path; blk-mpath classifies it
# BLK_MPATH_ERR_RESERVATION (blk_mpath_classify), which keeps the path and
# returns the error likewise.  Both engines must give the same outcome.
#
# mpathpersist (multipath-tools 0.9.4, libmpathpersist) sends PR OUT
# REGISTER to every path of the map that is up, one thread each, and
# RESERVE to the first path that is up (mpath_prout_common); PR IN goes to
# the first path that answers.  The key must match the map's configured
# reservation_key (else "configured reservation key doesn't match").
CONF=/etc/multipath/conf.d/blkmpath-lio-pr.conf
MAP=mpathpr
KEY=0x75ab1e
KEY16=0x000000000075ab1e	# LIO's configfs spells keys with 16 digits
BOUND_MS=8000	# failover in the kernel while multipathd's checker also acts
LIO_PR=
trap 'rm -f "$CONF"; lio_quiesce' EXIT

# ---- LIO's view (the LUN's pr/ directory) -------------------------------------
pr_attr() { cat "$LIO_PR/$1"; }
# pr_reg_ports: the ports (1..3) whose nexus holds a registration, with its key: "1:KEY 2:KEY"
pr_reg_ports() {
	sed -n 's/^.* Node: naa\.50014051000\([0-9]\{5\}\) Key: \(0x[0-9a-f]*\) .*$/\1 \2/p' "$LIO_PR/res_pr_registered_i_pts" |
		while read -r p k; do echo "$((10#$p)):$k"; done | sort | tr '\n' ' ' | sed 's/ $//'
}
# pr_holder_port: the port whose nexus holds the reservation, "none" if none
pr_holder_port() {
	local h
	h=$(pr_attr res_holder)
	if [[ $h =~ Initiator:\ naa\.50014051000([0-9]{5}) ]]; then
		echo "$((10#${BASH_REMATCH[1]}))"
	elif [[ $h == "No SPC-3 Reservation holder" ]]; then
		echo none
	else
		echo "?($h)"
	fi
}
pr_show() {
	local f
	for f in res_holder res_pr_type res_pr_holder_tg_port res_pr_generation res_pr_registered_i_pts; do
		sed "s/^/  | $f: /" "$LIO_PR/$f"
	done
}

# ---- the initiators' view -------------------------------------------------------
# mpp ARGS...: mpathpersist on the map, output in MPP_OUT, status returned
mpp() {
	local rc
	echo "+ mpathpersist $* /dev/mapper/$MAP"
	MPP_OUT=$(mpathpersist "$@" "/dev/mapper/$MAP" 2>&1)
	rc=$?
	sed 's/^/  | /' <<<"$MPP_OUT"
	return $rc
}
# nkeys_of TEXT: the number of registered keys PR IN READ KEYS reports
# ("N registered reservation key(s) follow:" / "0 registered reservation key.")
nkeys_of() { grep -oE '[0-9]+ registered reservation key' <<<"$1" | head -1 | cut -d' ' -f1; }
# keys_of TEXT: the keys listed, space separated
keys_of() { grep -oE '^ +0x[0-9a-f]+$' <<<"$1" | tr -d ' ' | tr '\n' ' ' | sed 's/ $//'; }
sgp() { # sg_persist ARGS... DEV: output in SGP_OUT
	local rc
	echo "+ sg_persist $*"
	SGP_OUT=$(sg_persist "$@" 2>&1)
	rc=$?
	sed 's/^/  | /' <<<"$SGP_OUT"
	return $rc
}

# map_sections WWID DEV_TO_IGNORE: CONF's sections after the LIO-ORG device
# (lio_multipathd): the map's alias and reservation_key, the third nexus left out
map_sections() {
	cat <<EOF
# the third nexus is the other host: not a path of the map
blacklist {
	devnode "^$2\$"
}
multipaths {
	multipath {
		wwid "$1"
		alias $MAP
		reservation_key $KEY
	}
}
EOF
}
# both_paths MAP: the map holds two paths
both_paths() { [ "$(mp_paths "$1" 2>/dev/null | wc -l)" = 2 ]; }

# the map's paths' fail counts, "A/F:count" per path in status order
path_summary() { mp_paths "$MAP" | awk '{printf "%s%s:%s", s, $4, $5; s = " "}'; }

run_engine() {
	local P1 P2 P3 M1 M2 wwid i hp op HD OD HM OM out rc e0 w_h w_o w_o1 st0 st1 \
		gap_fo t0=$SECONDS regs0 regs1 holder0 regs_fail third_rd third_wr map_err map_states released cleared
	STEP="setup"
	lio_setup 3 1
	LIO_PR=$LIO_DEV/pr
	P1=${LIO_PATHS[0]} P2=${LIO_PATHS[1]} P3=${LIO_PATHS[2]}
	M1=${LIO_MM[0]} M2=${LIO_MM[1]}
	settle	# multipathd reads the paths' udev properties (WWID)
	wwid=$(udevadm info -q property -n "/dev/$P1" | sed -n 's/^ID_SERIAL=//p')
	[ -n "$wwid" ] || fail "no ID_SERIAL for $P1"
	expect_eq "$(udevadm info -q property -n "/dev/$P3" | sed -n 's/^ID_SERIAL=//p')" "$wwid" \
		"port 3 ($P3) exports the same LUN (same WWID $wwid)"
	expect_eq "$(pr_attr res_type)" SPC3_PERSISTENT_RESERVATIONS "LIO emulates SPC-3 PR on the backstore"
	expect_eq "$(pr_reg_ports)/$(pr_holder_port)" "/none" "no registration and no reservation at the start"
	lio_multipathd "$CONF" "$MAP" both_paths "path_grouping_policy multibus" 'path_selector "round-robin 0"' \
		"rr_min_io_rq 1" "path_checker tur" "failback immediate" "no_path_retry fail" -- "$(map_sections "$wwid" "$P3")"
	[ "$(mp_paths "$MAP" | awk '{print $3}' | sort | tr '\n' ' ')" = "$(printf '%s\n' "$M1" "$M2" | sort | tr '\n' ' ')" ] ||
		{ multipathd show paths; fail "multipathd did not assemble $MAP from $P1 and $P2 (port 3's $P3 must stay out)"; }
	expect_eq "$(path_summary)" "A:0 A:0" "$MAP: one group, both paths active"
	expect_eq "$(multipathd show paths raw format "%d %m" | awk -v d="$P3" '$1 == d {print $2}')" "" \
		"the third nexus ($P3) is not a path of any map"
	dm_table "$MAP"

	# 1. register on every I_T nexus of the map, then reserve (type 5)
	STEP="register"
	mpp --in -k || fail "$ENGINE: mpathpersist --in -k failed"
	expect_eq "$(nkeys_of "$MPP_OUT")" 0 "no key registered yet (mpathpersist)"
	mpp --out --register --param-sark=$KEY || fail "$ENGINE: mpathpersist --register failed"
	mpp --in -k || fail "$ENGINE: mpathpersist --in -k failed"
	regs1=$(nkeys_of "$MPP_OUT")
	expect_eq "$regs1/$(keys_of "$MPP_OUT")" "2/$KEY $KEY" \
		"$ENGINE: mpathpersist lists one registration per path of the map"
	regs0=$(pr_reg_ports)
	expect_eq "$regs0" "1:$KEY16 2:$KEY16" "$ENGINE: LIO: the key registered on the nexus of port 1 and port 2, not on port 3's"
	# the map's own SG_IO (dm's ioctl, passed to one path by the target's prepare_ioctl)
	sgp --in -k "/dev/mapper/$MAP" || fail "$ENGINE: sg_persist --in -k through the map failed"
	expect_eq "$(nkeys_of "$SGP_OUT")/$(keys_of "$SGP_OUT")" "2/$KEY $KEY" "$ENGINE: SG_IO through the map reads the same two keys"

	STEP="reserve"
	mpp --out --reserve --param-rk=$KEY --prout-type=5 || fail "$ENGINE: mpathpersist --reserve failed"
	mpp --in -r || fail "$ENGINE: mpathpersist --in -r failed"
	expect_match "$MPP_OUT" "Reservation follows:" "$ENGINE: mpathpersist: a reservation is held"
	expect_match "$MPP_OUT" "Key = $KEY" "... with the registered key"
	expect_match "$MPP_OUT" "type = Write Exclusive, registrants only" "... of type 5 (Write Exclusive, Registrants Only)"
	pr_show
	hp=$(pr_holder_port)
	[[ $hp == [12] ]] || fail "$ENGINE: LIO: the reservation should be held by port 1's or port 2's nexus, holder: $hp"
	holder0=$hp
	expect_match "$(pr_attr res_pr_type)" "Write Exclusive Access, Registrants Only" "$ENGINE: LIO: reservation type Write Exclusive Access, Registrants Only"
	printf -v out 'naa.50014050000%05d' "$hp"
	expect_match "$(pr_attr res_pr_holder_tg_port)" "Target Node Endpoint: $out" "LIO: held through port $hp's target port"
	# the initiator's full view: one descriptor per I_T nexus (the relative
	# target port of each), the holder's marked
	mpp --in -s || fail "$ENGINE: mpathpersist --in -s failed"
	expect_eq "$(grep -oE 'Relative port address: 0x[0-9a-f]+' <<<"$MPP_OUT" | awk '{print $4}' | sort | tr '\n' ' ')" "0x1 0x2 " \
		"$ENGINE: mpathpersist --in -s: a registration through relative target port 1 and one through port 2"
	expect_eq "$(grep -c '<< Reservation holder >>' <<<"$MPP_OUT")" 1 "... one of them the reservation holder"
	op=$((3 - hp))
	HD=${LIO_PATHS[hp - 1]} OD=${LIO_PATHS[op - 1]} HM=${LIO_MM[hp - 1]} OM=${LIO_MM[op - 1]}
	say "ok: port $hp ($HD, $HM) holds the reservation; port $op ($OD, $OM) is a registrant"

	# 2. the reserving path fails under fio verify: the I/O goes on through
	# the other registered nexus (type 5 lets every registrant write)
	STEP="holder offline"
	dmesg_mark
	w_h=$(sd_writes "$HD") w_o=$(sd_writes "$OD")
	fio_start "$MAP" 12
	[ "$(sd_writes "$HD")" -gt "$w_h" ] && [ "$(sd_writes "$OD")" -gt "$w_o" ] ||
		fail "$ENGINE: multibus: both paths (holder $HD and registrant $OD) should carry writes under the reservation"
	say "ok: both paths carry fio's writes under the reservation"
	e0=$(path_cnt "$HD" ioerr_cnt)
	fault_mark
	lio_port_offline "$hp" 1
	fio_alive
	wait_path "$MAP" "$HM" F 15 || { lio_evidence; fail "$ENGINE: the path on the offline holder port did not fail"; }
	sleep 1	# what was in flight on the holder's port has completed
	w_o1=$(sd_writes "$OD")
	fio_expect_clean
	fault_fired "$HD" ioerr_cnt "$e0" "$ENGINE: the holder's port offline"
	expect_gap_below $BOUND_MS
	gap_fo=$GAP_MS
	[ "$(sd_writes "$OD")" -gt "$w_o1" ] || fail "$ENGINE: the registrant path $OD took no writes after the holder's path failed"
	say "ok: $OD carried $(($(sd_writes "$OD") - w_o1)) writes after the holder's path failed"
	expect_eq "$(dmesg_since | grep -c 'reservation conflict')" 0 "$ENGINE: no RESERVATION CONFLICT while the registrant carried the I/O"
	expect_eq "$(pr_holder_port)" "$hp" "$ENGINE: LIO: port $hp's nexus still holds the reservation while its port is offline"
	lio_evidence 8
	lio_port_offline "$hp" 0
	wait_path "$MAP" "$HM" A 40 || { multipathd show paths; fail "$ENGINE: multipathd did not reinstate $HD after its port came back"; }
	say "ok: multipathd reinstated $HD"
	mpp --in -k || fail "$ENGINE: mpathpersist --in -k failed"
	regs_fail=$(nkeys_of "$MPP_OUT")
	expect_eq "$regs_fail/$(pr_reg_ports)/$(pr_holder_port)" "2/$regs0/$hp" \
		"$ENGINE: after the failure: two registrations, the same holder"

	# 3a. the other host: port 3's nexus never registered
	STEP="unregistered nexus"
	dmesg_mark
	dd if="/dev/$P3" of=/dev/null bs=4k count=4 iflag=direct status=none ||
		fail "$ENGINE: a read through the unregistered nexus ($P3) failed (type 5 lets anyone read)"
	say "ok: the unregistered nexus ($P3) reads"
	e0=$(path_cnt "$P3" ioerr_cnt)
	out=$(dd if=/dev/zero of="/dev/$P3" bs=4k count=1 seek=100 oflag=direct status=none 2>&1); rc=$?
	say "dd write to $P3: rc=$rc $out"
	[ $rc -ne 0 ] || fail "$ENGINE: a write through the unregistered nexus ($P3) succeeded under the reservation"
	expect_match "$out" "Invalid exchange" "the unregistered nexus's write failed with EBADE (BLK_STS_NEXUS)"
	fault_fired "$P3" ioerr_cnt "$e0" "the write through the unregistered nexus"
	dmesg_since | grep -q "${LIO_HCTLS[2]}: reservation conflict" || fail "$ENGINE: no 'reservation conflict' logged for $P3 (${LIO_HCTLS[2]})"
	say "ok: SCSI logged a RESERVATION CONFLICT for ${LIO_HCTLS[2]}"
	third_wr=EBADE third_rd=ok

	# 3b. a path of the map loses its registration behind multipathd's back
	# (its key removed on its nexus with sg_persist): writes that reach it get
	# RESERVATION CONFLICT; the engine returns the error, keeps the path
	STEP="map path conflict"
	sgp --out --register --param-rk=$KEY --param-sark=0 "/dev/$OD" || fail "unregistering $OD's nexus failed"
	expect_eq "$(pr_reg_ports)/$(pr_holder_port)" "$hp:$KEY16/$hp" "LIO: only port $hp's nexus is registered (the holder), port $op's is not"
	st0=$(path_summary)
	expect_match "$st0" "^A:[0-9]+ A:[0-9]+$" "both paths active before the conflicting write"
	e0=$(path_cnt "$OD" ioerr_cnt)
	dmesg_mark
	out=$(dd if=/dev/urandom of="/dev/mapper/$MAP" bs=4k count=16 oflag=direct status=none 2>&1); rc=$?
	say "dd write to $MAP: rc=$rc $out"
	[ $rc -ne 0 ] || fail "$ENGINE: 16 writes through the map succeeded with one path's nexus unregistered (round-robin)"
	expect_match "$out" "Invalid exchange" "$ENGINE: the writer saw EBADE (BLK_STS_NEXUS), not EIO"
	fault_fired "$OD" ioerr_cnt "$e0" "the write on the unregistered path"
	dmesg_since | grep -q "${LIO_HCTLS[op - 1]}: reservation conflict" ||
		fail "$ENGINE: no 'reservation conflict' logged for $OD (${LIO_HCTLS[op - 1]})"
	say "ok: SCSI logged a RESERVATION CONFLICT for $OD (${LIO_HCTLS[op - 1]})"
	st1=$(path_summary)
	dm_status "$MAP"
	expect_eq "$st1" "$st0" "$ENGINE: the engine did not fail $OD for the conflict (path states and fail counts unchanged)"
	expect_eq "$(dmesg_since | grep -cE "Failing path|failing path")" 0 "$ENGINE: no path failed in the kernel log"
	sleep 3	# a checker round (polling_interval 2): nothing to reinstate either
	expect_eq "$(path_summary)" "$st0" "$ENGINE: ... still so a checker round later"
	map_err=EBADE map_states=kept

	# the path registered again: the map writes on both paths, fio verify clean
	sgp --out --register --param-sark=$KEY "/dev/$OD" || fail "registering $OD's nexus again failed"
	expect_eq "$(pr_reg_ports)/$(pr_holder_port)" "$regs0/$hp" "LIO: both nexuses registered again, the same holder"
	w_h=$(sd_writes "$HD") w_o=$(sd_writes "$OD")
	fio_start "$MAP" 5
	fio_expect_clean
	[ "$(sd_writes "$HD")" -gt "$w_h" ] && [ "$(sd_writes "$OD")" -gt "$w_o" ] ||
		fail "$ENGINE: after the re-registration both paths should carry writes"
	say "ok: fio verify clean on both paths after $OD registered again"

	# 4. release, then unregister every path of the map
	STEP="release"
	mpp --out --release --param-rk=$KEY --prout-type=5 || fail "$ENGINE: mpathpersist --release failed"
	mpp --in -r || fail "$ENGINE: mpathpersist --in -r failed"
	expect_match "$MPP_OUT" "there is NO reservation held" "$ENGINE: mpathpersist: no reservation after the release"
	expect_eq "$(pr_holder_port)/$(pr_reg_ports)" "none/$regs0" "$ENGINE: LIO: no holder, both registrations kept"
	released=ok
	STEP="unregister"
	mpp --out --register --param-rk=$KEY --param-sark=0 || fail "$ENGINE: mpathpersist unregister failed"
	mpp --in -k || fail "$ENGINE: mpathpersist --in -k failed"
	expect_eq "$(nkeys_of "$MPP_OUT")" 0 "$ENGINE: mpathpersist: no key registered after the unregister"
	expect_eq "$(pr_holder_port)/$(pr_reg_ports)" "none/" "$ENGINE: LIO: no reservation and no registration left"
	cleared=ok
	expect_eq "$(path_summary | sed 's/:[0-9]*//g')" "A A" "both paths active at the end"
	dd if=/dev/zero of="/dev/$P3" bs=4k count=1 seek=100 oflag=direct status=none ||
		fail "$ENGINE: port 3's nexus cannot write once the reservation is gone"
	say "ok: the third nexus writes again once no reservation is held"

	multipathd_stop
	rm -f "$CONF" "/var/target/pr/aptpl_$LIO_SERIAL"
	say "$ENGINE: the scenario took $((SECONDS - t0)) s"
	fault_result gap_ms="$gap_fo" regs="$regs1" holder_port="$holder0" \
		regs_after_failure="$regs_fail" third_read=$third_rd third_write=$third_wr \
		map_conflict=$map_err map_path=$map_states released=$released cleared=$cleared
	# the same outcome on both engines
	if [ "$ENGINE" = new ]; then
		for i in regs holder_port regs_after_failure third_read third_write map_conflict map_path released cleared; do
			out=$(fault_value stock $i)
			[ -n "$out" ] || fail "no stock result for $i"
			expect_eq "$(fault_value new $i)" "$out" "blk-mpath gives the outcome stock gives: $i"
		done
	fi
}
fault_main
