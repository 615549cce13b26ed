# LIO (target_core_mod + tcm_loop) with enforced ALUA for guest scenarios.
# Source after common.sh and faults.sh.  Drives configfs directly:
# targetcli-fb needs a D-Bus system bus the guest does not run.
#
#   lio_setup NPORTS [ACCESS_TYPE]  one 64 MiB rd_mcp LUN (vpd_unit_serial set)
#       behind NPORTS tcm_loop WWNs (one SCSI host each, LUN $LIO_LUN, 0
#       unless set), port i's LUN in its own ALUA target port group, tg_pt_gp_id i, with
#       alua_access_type ACCESS_TYPE (1 implicit (default), 2 explicit,
#       3 implicit+explicit); every group starts active/optimized.  Sets
#       LIO_PATHS (sdX, port order), LIO_MM (their MAJ:MIN), LIO_HCTLS.
#   lio_state PORT ao|an|standby|unavailable|transitioning|offline
#       implicit transition of port PORT's group (alua_access_state); the
#       write returns after the group's trans_delay_msecs (LIO sleeps in it,
#       the group transitioning meanwhile).  "transitioning" stays until the
#       next write.  "offline" is the port's secondary state
#       (lio_port_offline PORT 1), see below.
#   lio_trans_delay PORT MS          trans_delay_msecs of PORT's group
#   lio_port_offline PORT 0|1        lun_N/alua_tg_pt_offline
#   lio_acl PORT / lio_lun_map PORT 0|1  an explicit ACL for port PORT's
#       initiator, then the LUN masked from it (ILLEGAL REQUEST 25/00) and
#       mapped again; needs LIO_LUN=1 or above before lio_setup
#   lio_state_of / lio_status_of PORT  the group's alua_access_state (number)
#       and alua_access_status ("Altered by Explicit STPG", ...)
#   lio_dh_state_of PORT             scsi_dh_alua's view (sysfs access_state)
#   lio_quiesce                      for an EXIT trap (see there)
#   lio_teardown                     no LIO configfs object left, tcm_loop
#       unloaded (test_cleanup calls it when target/loopback exists)
#   lio_multipathd CONF MAP READY [LINE...] [-- TEXT...]  multipathd on the
#       LIO LUN.  CONF, a multipath.conf drop-in (written whole, then
#       renamed in), lifts the guest's blacklist of LIO-ORG and gives the
#       LIO-ORG device section the LINEs ("prio alua", ...), then the TEXTs
#       (more sections); multipathd is started, and polled (every 0.5 s, 60
#       times at most) until LIO_MAP, the map MAP (a name CONF gives it) or
#       with MAP "" the one holding port 1's path, is there and READY
#       LIO_MAP (a command) is true; no map then: fail; else multipath -ll.
#       READY "-": CONF written only (a change for "multipathd
#       reconfigure").  Settle udev before: multipathd reads the paths'
#       WWIDs from it.
# and helpers for the scenarios at the end (sd_writes, io_split, wait_until,
# fio_flowing, fio_alive, mp_paths, mp_active_group, mp_pg_init_count,
# mp_queue_io, dmesg_*).
#
# What the target answers (drivers/target/target_core_alua.c, 6.1): I/O on
# a standby / unavailable / transitioning group gets NOT READY 04/0b /
# 04/0c / 04/0a, on an offline port NOT READY 04/12 (every command,
# RTPG included).  OFFLINE (0x0e) is a secondary state only: written to
# alua_access_state LIO accepts it, then answers every command, INQUIRY
# and RTPG included, with ILLEGAL REQUEST 24/00 ("Unknown ALUA access
# state") - an I/O error to the caller (BLK_STS_TARGET), not a path
# failure; hence lio_state PORT offline sets alua_tg_pt_offline instead.
# shellcheck shell=bash

LIO_CFG=/sys/kernel/config/target
LIO_HBA=$LIO_CFG/core/rd_mcp_77
LIO_DEV=$LIO_HBA/blkmpath
LIO_MB=64
# (few subshells here: a fork costs tens of ms under TCG)

# the LUN number the ports export (set before lio_setup; 0 by default)
LIO_LUN=${LIO_LUN:-0}
# _lio_port PORT: LIO_T (its tpgt_1), LIO_L (lun_$LIO_LUN), LIO_G (its ALUA
# group), LIO_I (the initiator name of its nexus), LIO_A (that initiator's
# explicit ACL entry for the LUN, lio_acl)
_lio_port() {
	printf -v LIO_T '%s/loopback/naa.50014050000%05d/tpgt_1' "$LIO_CFG" "$1"
	printf -v LIO_I 'naa.50014051000%05d' "$1"
	LIO_L=$LIO_T/lun/lun_$LIO_LUN
	LIO_A=$LIO_T/acls/$LIO_I/lun_$LIO_LUN
	LIO_G=$LIO_DEV/alua/port$1
}
# _lio_add_path HCTL WHAT: the sd device of the LUN at HCTL (10 s at most
# for it to appear, else "lio: WHAT has no sd device") appended to
# LIO_PATHS, its MAJ:MIN to LIO_MM
_lio_add_path() {
	local t d maj
	d=
	for ((t = 0; t < 100; t++)); do
		for d in "/sys/class/scsi_device/$1/device/block/"*; do :; done
		d=${d##*/}
		[ "$d" != "*" ] && [ -b "/dev/$d" ] && break
		sleep 0.1
	done
	[ "$d" != "*" ] && [ -b "/dev/$d" ] || fail "lio: $2 has no sd device"
	read -r maj <"/sys/block/$d/dev"
	LIO_PATHS+=("$d") LIO_MM+=("$maj")
}
lio_lun() { _lio_port "$1"; echo "$LIO_L"; }	# configfs dir of port PORT's LUN
lio_gp()  { _lio_port "$1"; echo "$LIO_G"; }	# configfs dir of port PORT's ALUA group

lio_setup() {
	local n=${1:-2} type=${2:-1} i t h a pids=() log t0=${EPOCHREALTIME/./}
	[ "$n" -ge 1 ] || fail "lio_setup: NPORTS"
	case $type in 1|2|3) ;; *) fail "lio_setup: ALUA access type $type" ;; esac
	mountpoint -q /sys/kernel/config || mount -t configfs configfs /sys/kernel/config
	modprobe -a tcm_loop scsi_dh_alua || fail "modprobe tcm_loop scsi_dh_alua failed"
	# LIO rewrites its APTPL file (db_root, /var/target/pr) on every PR
	# change, APTPL or not, and fails the command (NOT READY, LU
	# communication failure) when it cannot
	mkdir -p /var/target/pr
	# the fabric first: test_cleanup's teardown keys on target/loopback
	mkdir -p "$LIO_CFG/loopback" || fail "no LIO loopback fabric in configfs"
	# backstore: rd_mcp, 4 KiB pages; the serial gives the LUN its
	# VPD 0x80/0x83 ids (udev ID_SERIAL, multipathd's WWID, scsi_dh_alua's
	# port group key)
	read -r LIO_SERIAL </proc/sys/kernel/random/uuid
	mkdir -p "$LIO_DEV" || fail "cannot create the rd_mcp backstore"
	echo "rd_pages=$((LIO_MB * 256))" >"$LIO_DEV/control" &&
		echo "$LIO_SERIAL" >"$LIO_DEV/wwn/vpd_unit_serial" &&
		echo 1 >"$LIO_DEV/enable" || fail "cannot configure the rd_mcp backstore"
	# the LUN is scanned while its port is still in default_tg_pt_gp, and
	# a rescan re-reads the VPD pages but not the standard INQUIRY whose
	# TPGS bits (the group's access type) scsi_dh_alua keeps: give the
	# default group the access type too
	echo "$type" >"$LIO_DEV/alua/default_tg_pt_gp/alua_access_type" ||
		fail "cannot set the access type of default_tg_pt_gp"
	# LIO delays every command on an active/non-optimized group by
	# nonop_delay_msecs (100 by default); 0 keeps fio's pace on AN paths
	for ((i = 1; i <= n; i++)); do
		_lio_port "$i"
		mkdir "$LIO_G" && echo "$i" >"$LIO_G/tg_pt_gp_id" && echo "$type" >"$LIO_G/alua_access_type" &&
			echo 0 >"$LIO_G/nonop_delay_msecs" || fail "cannot create ALUA group $i"
	done
	LIO_PATHS=() LIO_MM=() LIO_HCTLS=()
	for ((i = 1; i <= n; i++)); do
		_lio_port "$i"
		mkdir -p "$LIO_L" || fail "cannot create port $i"
		# the nexus before the LUN: linking it scans the device at once
		echo "$LIO_I" >"$LIO_T/nexus" || fail "cannot create the nexus of port $i"
		ln -s "$LIO_DEV" "$LIO_L/blkmpath" || fail "cannot export the LUN on port $i"
		echo "port$i" >"$LIO_L/alua_tg_pt_gp" || fail "cannot put port $i in ALUA group $i"
		read -r a <"$LIO_T/address" || fail "port $i has no SCSI address"
		LIO_HCTLS+=("$a:$LIO_LUN")
	done
	for ((i = 1; i <= n; i++)); do
		h=${LIO_HCTLS[i - 1]}
		_lio_add_path "$h" "port $i ($h)"
		read -r a <"/sys/class/scsi_device/$h/device/vendor"
		[ "$a" = LIO-ORG ] || fail "lio: $h is not LIO-ORG ($a)"
	done
	# the devices were scanned in default_tg_pt_gp (id 0): re-read their
	# VPD so that scsi_dh_alua attaches each to its own port group (the
	# write returns once alua_rescan() has)
	for h in "${LIO_HCTLS[@]}"; do
		echo 1 >"/sys/class/scsi_device/$h/device/rescan" &
		pids+=($!)
	done
	wait "${pids[@]}"
	log=$(dmesg | tail -n 400)
	for ((i = 1; i <= n; i++)); do
		h=${LIO_HCTLS[i - 1]}
		printf -v t %x "$i"
		grep -q "$h: alua: .*port group $t rel port" <<<"$log" ||
			fail "lio: scsi_dh_alua did not move $h to port group $i"
		read -r a <"/sys/class/scsi_device/$h/device/dh_state"
		[ "$a" = alua ] || fail "lio: $h has no alua device handler ($a)"
	done
	# no udevadm settle here (seconds under TCG): hand-built tables do not
	# need udev; a scenario with multipathd settles before starting it
	say "lio: ${n} ports, ALUA access type $type, serial $LIO_SERIAL: ${LIO_PATHS[*]} (${LIO_MM[*]}), $(((${EPOCHREALTIME/./} - t0) / 1000)) ms"
}

lio_state() { # PORT STATE
	local v
	case $2 in
	offline) lio_port_offline "$1" 1; return ;;
	ao) v=0 ;; an) v=1 ;; standby) v=2 ;; unavailable) v=3 ;; transitioning) v=15 ;;
	*) fail "lio_state: unknown state $2" ;;
	esac
	_lio_port "$1"
	say "lio: port $1 -> $2"
	echo "$v" >"$LIO_G/alua_access_state" || fail "lio: port $1 refused state $2"
}

lio_trans_delay() { # PORT MS
	_lio_port "$1"
	echo "$2" >"$LIO_G/trans_delay_msecs" || fail "lio: trans_delay_msecs $2 on port $1"
}

lio_port_offline() { # PORT 0|1
	_lio_port "$1"
	say "lio: port $1 alua_tg_pt_offline=$2"
	echo "$2" >"$LIO_L/alua_tg_pt_offline" || fail "lio: alua_tg_pt_offline $2 on port $1"
}

# lio_acl PORT: an explicit ACL for port PORT's initiator (its nexus), with
# the LUN mapped.  The nexus's session was bound to a dynamic (demo mode)
# ACL; creating the ACL by that name makes it explicit in place
# (core_tpg_add_initiator_node_acl) and the mapping replaces the dynamic
# one (core_enable_device_list_for_node), so the SCSI device stays.
lio_acl() {
	_lio_port "$1"
	mkdir -p "$LIO_A" || fail "lio: cannot create the ACL of port $1"
	ln -s "$LIO_L" "$LIO_A/map" || fail "lio: cannot map LUN $LIO_LUN in the ACL of port $1"
}
# lio_lun_map PORT 0|1: take the LUN out of port PORT's ACL (masked from
# that initiator: every command to the LUN, INQUIRY included, gets ILLEGAL
# REQUEST 25/00, "logical unit not supported") or put it back.  Not for
# LUN 0: an initiator with no LUN 0 mapped reaches LIO's virtual LUN 0
# instead (writes: DATA PROTECT, reads past its 8 pages: 21/00).
lio_lun_map() {
	[ "$LIO_LUN" != 0 ] || fail "lio_lun_map: LUN 0 cannot be masked (LIO's virtual LUN 0)"
	_lio_port "$1"
	say "lio: port $1 LUN $LIO_LUN mapped=$2"
	if [ "$2" = 1 ]; then
		ln -s "$LIO_L" "$LIO_A/map" || fail "lio: cannot map LUN $LIO_LUN on port $1 again"
	else
		rm "$LIO_A/map" || fail "lio: cannot unmap LUN $LIO_LUN on port $1"
	fi
}

# sd_writes sdX: writes completed on a path (field 5 of the stat file)
sd_writes() { awk '{print $5}' "/sys/block/$1/stat"; }
# io_split SD1 SD2: writes completed on the two paths in one second (after
# half a second for requests already mapped to finish): "W1 W2"
io_split() {
	local a b
	sleep 0.5
	a=$(sd_writes "$1") b=$(sd_writes "$2")
	sleep 1
	echo "$(($(sd_writes "$1") - a)) $(($(sd_writes "$2") - b))"
}
# wait_until SECS CMD...: poll CMD every 0.1 s for at most SECS; WAITED_MS
# shellcheck disable=SC2034  # WAITED_MS: the caller's
wait_until() {
	local end t0
	t0=$(now_ms) end=$(($(now_ms) + $1 * 1000))
	shift
	while :; do
		"$@" && { WAITED_MS=$(($(now_ms) - t0)); return 0; }
		[ "$(now_ms)" -lt "$end" ] || { WAITED_MS=$(($(now_ms) - t0)); return 1; }
		sleep 0.1
	done
}

# what the target says: access state number and status text of PORT's group
lio_state_of()  { _lio_port "$1"; local v; read -r v <"$LIO_G/alua_access_state"; echo "$v"; }
lio_status_of() { _lio_port "$1"; local v; read -r v <"$LIO_G/alua_access_status"; echo "$v"; }
# what scsi_dh_alua last learnt about port PORT (RTPG): access_state sysfs
lio_dh_state_of() {
	local v
	read -r v <"/sys/class/scsi_device/${LIO_HCTLS[$1 - 1]}/device/access_state"
	echo "$v"
}

# lio_quiesce: no group transitioning or delaying transitions, every LIO
# device running; for an EXIT trap, so that test_cleanup's "running" loop
# (a rescan: sd's revalidation spins 100 s on a transitioning port) and
# lio_teardown find a quiet target
lio_quiesce() {
	local g h v
	for g in "$LIO_DEV"/alua/*/; do
		[ -e "$g/trans_delay_msecs" ] || continue
		echo 0 >"$g/trans_delay_msecs" 2>/dev/null
		read -r v <"$g/alua_access_state" 2>/dev/null
		[ "$v" = 15 ] && echo 2 >"$g/alua_access_state" 2>/dev/null
	done
	for h in "${LIO_HCTLS[@]}"; do
		read -r v <"/sys/class/scsi_device/$h/device/state" 2>/dev/null
		[ "$v" = offline ] && echo running >"/sys/class/scsi_device/$h/device/state"
	done
	true
}

lio_teardown() {
	local w t l f g d links=() dirs=() gdirs=() left=() acls=() t0=${EPOCHREALTIME/./}
	# explicit ACLs (lio_acl): their LUN mappings first; the ACLs go once
	# the nexus is gone (an ACL waits for its sessions to let go of it,
	# and tcm_loop has no close_session to make them)
	for l in "$LIO_CFG"/loopback/naa.*/tpgt_*/acls/*/lun_*/; do
		[ -d "$l" ] || continue
		for f in "$l"*; do [ -L "$f" ] && rm -f "$f"; done
		rmdir "$l"
	done
	for w in "$LIO_CFG"/loopback/naa.*/; do
		[ -d "$w" ] || continue
		for t in "$w"tpgt_*/; do
			[ -d "$t" ] || continue
			for l in "$t"lun/lun_*/; do
				[ -d "$l" ] || continue
				for f in "$l"*; do [ -L "$f" ] && links+=("$f"); done
				dirs+=("$l")
			done
		done
	done
	# unlinking a LUN removes its SCSI device
	[ ${#links[@]} -eq 0 ] || rm -f "${links[@]}"
	for w in "$LIO_CFG"/loopback/naa.*/; do
		[ -d "$w" ] || continue
		for t in "$w"tpgt_*/; do
			[ -d "$t" ] || continue
			echo NULL >"${t}nexus" 2>/dev/null
			# an ACL still held by a session would block rmdir for good:
			# only once the nexus is gone (reading it fails then)
			if read -r _ <"${t}nexus" 2>/dev/null; then
				for d in "$t"acls/*/; do [ -d "$d" ] && left+=("$d (nexus still up)"); done
			else
				for d in "$t"acls/*/; do [ -d "$d" ] && acls+=("$d"); done
			fi
			dirs+=("$t")
		done
		dirs+=("$w")
	done
	[ -d "$LIO_CFG/loopback" ] && dirs+=("$LIO_CFG/loopback")
	# backstores (any HBA but core/alua) and their ALUA groups
	for d in "$LIO_CFG"/core/*/*/; do
		[ -d "${d}alua" ] || continue
		for g in "${d}"alua/*/; do
			[ -d "$g" ] && [ "${g%/}" != "${d}alua/default_tg_pt_gp" ] && gdirs+=("$g")
		done
		gdirs+=("$d")
	done
	for d in "$LIO_CFG"/core/*/; do
		[ -d "$d" ] && [ "$d" != "$LIO_CFG/core/alua/" ] && gdirs+=("$d")
	done
	[ ${#acls[@]} -eq 0 ] || rmdir "${acls[@]}"
	[ ${#dirs[@]} -eq 0 ] || rmdir "${dirs[@]}"
	[ ${#gdirs[@]} -eq 0 ] || rmdir "${gdirs[@]}"
	[ -d /sys/module/tcm_loop ] && modprobe -r tcm_loop
	for d in "$LIO_CFG/loopback" "$LIO_CFG"/core/*/; do
		[ -d "$d" ] && [ "$d" != "$LIO_CFG/core/alua/" ] && left+=("$d")
	done
	[ ${#left[@]} -eq 0 ] || { echo "lio_teardown: left: ${left[*]}"; return 1; }
	[ ! -d /sys/module/tcm_loop ] || { echo "lio_teardown: tcm_loop still loaded"; return 1; }
	LIO_PATHS=() LIO_MM=() LIO_HCTLS=()
	echo "lio_teardown: done in $(((${EPOCHREALTIME/./} - t0) / 1000)) ms"
}

lio_multipathd() {
	local conf=$1 map=$2 ready=$3 i
	shift 3
	mkdir -p "${conf%/*}"
	{
		cat <<'EOF'
blacklist_exceptions {
	device {
		vendor "LIO-ORG"
		product ".*"
	}
}
devices {
	device {
		vendor "LIO-ORG"
		product ".*"
EOF
		while [ $# -gt 0 ] && [ "$1" != -- ]; do printf '\t\t%s\n' "$1"; shift; done
		printf '\t}\n}\n'
		[ $# -eq 0 ] || printf '%s\n' "${@:2}"
	} >"$conf.tmp"
	mv "$conf.tmp" "$conf"
	[ "$ready" != - ] || return 0
	multipathd_start
	for i in $(seq 60); do
		LIO_MAP=$map
		[ -n "$map" ] || LIO_MAP=$(multipathd show paths raw format "%d %m" 2>/dev/null |
			awk -v d="${LIO_PATHS[0]}" '$1 == d && $2 != "[orphan]" {print $2}')
		[ -n "$LIO_MAP" ] && "$ready" "$LIO_MAP" && break
		sleep 0.5
	done
	[ -n "$LIO_MAP" ] || { multipathd show paths; fail "multipathd assembled no map for the LIO LUN"; }
	multipath -ll "$LIO_MAP"
}

# ---- helpers for the scenarios ---------------------------------------------------
# pg_init_count and queue_io of a multipath map (status "2 <queue_io> <count>")
mp_pg_init_count() { dm_status "$1" | awk '{print $3}'; }
mp_queue_io()      { dm_status "$1" | awk '{print $2}'; }
# dmesg_mark / dmesg_since: the kernel lines after the mark
# wait_dmesg REGEX SECS: a kernel line matching REGEX after the mark
wait_dmesg() {
	local i
	for i in $(seq $(($2 * 10))); do
		dmesg_since | grep -qE "$1" && return 0
		sleep 0.1
	done
	return 1
}
# dmesg_time REGEX [first|last]: the timestamp (s) of a line after the mark
dmesg_time() {
	dmesg_since | grep -E "$1" | { if [ "${2:-last}" = first ]; then head -1; else tail -1; fi; } |
		sed -n 's/^\[ *\([0-9.]*\)\].*/\1/p'
}
# lio_evidence: the kernel lines about ALUA, pg_init and path changes since the mark
lio_evidence() {
	dmesg_since | grep -E 'alua|Failing path|Reinstating|failover|pg_init|rtpg|stpg|offline device' | tail -"${1:-30}" | sed 's/^/  | /'
}
