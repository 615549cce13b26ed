#!/bin/bash
# DESCRIPTION: the full QEMU fault matrix on path 0, stock and blk-mpath: EIO / ENODATA / EREMOTEIO / EBADE x read / write / flush x one-shot / persistent x one sector / every sector x failover / multibus table; path errors fail over under fio verify with 0 errors, target errors reach the caller with their errno and keep the paths
# REQUIRES: cmd:fio mod:dm-blk-mpath mod:dm-multipath
# TIER: full
# TIMEOUT: 3600
. /opt/blk-mpath/tests/lib/common.sh
. /opt/blk-mpath/tests/lib/faults.sh
FAULT_COMPARE=none
export DM_DISABLE_UDEV=1
need_hostctl
S=409600	# 200 MiB: outside fio's first 64 MiB
declare -A ERRNO=([EIO]=5 [ENODATA]=61 [EREMOTEIO]=121 [EBADE]=52)
declare -A MSG=([EIO]="" [ENODATA]="No data available" [EREMOTEIO]="Remote I/O error" [EBADE]="Invalid exchange")
declare -A EVENT=([read]=read_aio [write]=write_aio [flush]=flush_to_disk)

# one I/O of kind read|write|flush on sector S; prints "ok" or the error
op() {
	local out
	case $1 in
	read) out=$(timeout 60 dd if=/dev/mapper/mpx of=/dev/null bs=512 count=8 skip=$S iflag=direct 2>&1) ;;
	write) out=$(timeout 60 dd if=/dev/zero of=/dev/mapper/mpx bs=512 count=8 seek=$S oflag=direct 2>&1) ;;
	flush) out=$(timeout 60 dd if=/dev/zero of=/dev/mapper/mpx bs=512 count=8 seek=$S oflag=direct conv=fsync 2>&1) ;;
	esac
	case $? in
	0) echo ok ;;
	124) echo hang ;;
	*) echo "$out" | grep -m1 -oE '(Input/output error|No data available|Remote I/O error|Invalid exchange)' || echo "error" ;;
	esac
}

run_case() { # errno op mode scope layout
	local e=$1 o=$2 m=$3 sc=$4 l=$5 opts="" r fails=0 okc=0 hang=0 use_fio=1 i fc
	[ "$m" = oneshot ] && opts="once=on"
	[ "$sc" = sector ] && opts="$opts sector=$S"
	# a target error on every read or write of path 0 fails fio's own I/O
	[ "$e" != EIO ] && [ "$sc" = all ] && [ "$o" != flush ] && use_fio=0
	qmap_create mpx "$l" >/dev/null
	[ $use_fio = 1 ] && fio_start mpx 6
	local e0
	e0=$(path_cnt "$QD0" ioerr_cnt)
	# shellcheck disable=SC2086
	hostctl inject 0 "${EVENT[$o]}" "${ERRNO[$e]}" $opts >/dev/null || fail "inject $*"
	# up to 16 I/Os, until one went through path 0 (multibus spreads them),
	# then 3 more
	local more=-1
	for i in $(seq 16); do
		r=$(op "$o")
		case $r in ok) okc=$((okc + 1)) ;; hang) hang=1; break ;; *) fails=$((fails + 1)); last=$r ;; esac
		if [ $more -lt 0 ]; then
			fc=$(dm_status mpx | grep -oE "$QA [AF] [0-9]+" | awk '{print $3}')
			{ [ "${fc:-0}" -ge 1 ] || [ $fails -ge 1 ]; } && more=3
		else
			more=$((more - 1))
		fi
		[ $more -eq 0 ] && break
	done
	[ $hang = 0 ] || fail "case $*: an I/O hung"
	# every case, one-shot ones included: the error reached path 0
	fault_fired "$QD0" ioerr_cnt "$e0" "case $*" >/dev/null
	if [ $use_fio = 1 ]; then
		fio_wait 60
		fio_stats >/dev/null
		{ [ "$FIO_RC" -eq 0 ] && [ "$FIO_ERR" = 0 ]; } || fail "case $*: fio failed (rc $FIO_RC, errors $FIO_ERR)"
	fi
	fc=$(dm_status mpx | grep -oE "$QA [AF] [0-9]+" | awk '{print $3}')
	local st
	st=$(dm_path_states mpx)
	hostctl clear 0 >/dev/null
	if [ "$e" = EIO ] && [ "$m" = oneshot ]; then
		# SCSI retries an ABORTED COMMAND 5 times on the same path: a
		# one-shot error never reaches multipath
		[ $fails -eq 0 ] || fail "case $*: $fails I/Os failed ($last)"
		[ "${fc:-0}" -eq 0 ] || fail "case $*: a one-shot error failed path 0 (SCSI retries it)"
		verdict="absorbed-by-scsi-retries"
	elif [ "$e" = EIO ]; then
		# a path error: the path fails, every I/O completes elsewhere
		[ $fails -eq 0 ] || fail "case $*: $fails I/Os failed ($last)"
		[ "${fc:-0}" -ge 1 ] || fail "case $*: path 0 never failed"
		verdict="failover fc=$fc"
	else
		# a target error: returned with its errno, paths kept
		[ "$st" = AA ] || fail "case $*: paths $st after a target error"
		[ $fails -ge 1 ] || fail "case $*: the error never reached the caller"
		[ "$last" = "${MSG[$e]}" ] || fail "case $*: expected '${MSG[$e]}', got '$last'"
		[ "$m" = oneshot ] && [ $fails -ne 1 ] && fail "case $*: one-shot error returned $fails times"
		verdict="returned n=$fails"
	fi
	echo "CASE $e $o $m $sc $l: $verdict paths=$st fio=$use_fio"
	dm_remove mpx
	NCASES=$((NCASES + 1))
}

run_engine() {
	local e o m sc l
	NCASES=0
	for l in failover multibus; do
		for e in EIO ENODATA EREMOTEIO EBADE; do
			for o in read write flush; do
				for m in oneshot persistent; do
					for sc in sector all; do
						[ "$o" = flush ] && [ "$sc" = sector ] && continue
						run_case "$e" "$o" "$m" "$sc" "$l"
					done
				done
			done
		done
	done
	[ "$NCASES" -eq 80 ] || fail "ran $NCASES cases, expected 80"
	fault_result cases=$NCASES
}
fault_main
