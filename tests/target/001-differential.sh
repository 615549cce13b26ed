#!/bin/bash
# DESCRIPTION: 57 tables (13 in make test, all in make test-full) with message sequences on stock and on blk-mpath: dmsetup table/status and message results byte-identical
# REQUIRES: mod:scsi_debug mod:dm-blk-mpath mod:dm-multipath
# TIMEOUT: 1500
. /opt/blk-mpath/tests/lib/common.sh
# The alua handler attaches at scan and stays attached (no detach in 6.1):
# load it first so that both engines see the paths in the same state
# (scsi_debug reports a standby port for host_no % 3 == 2).
modprobe scsi_dh_alua || fail "modprobe scsi_dh_alua"
SDEBUG_ALUA=1 sdebug_setup add_host=4
P=("${SD_PATHS[@]}")
A=$(mm "${P[0]}") B=$(mm "${P[1]}") C=$(mm "${P[2]}") D=$(mm "${P[3]}") N=$(sectors "/dev/${P[0]}")

# Each case: "table|message;message;..."  (messages may be empty)
cases=()
sels=("round-robin 0" "queue-length 0" "service-time 0" "historical-service-time 0" "io-affinity 0")
pargs=("1" "1" "1 1" "1" "1")
feats=("0" "1 queue_if_no_path" "2 pg_init_retries 3" "2 pg_init_delay_msecs 500" "1 retain_attached_hw_handler"
	"3 queue_if_no_path pg_init_retries 10" "2 queue_mode mq" "2 queue_mode rq" "5 queue_if_no_path retain_attached_hw_handler pg_init_delay_msecs 0 queue_mode mq")
for i in 0 1 2 3; do
	s=${sels[$i]} pa=${pargs[$i]} npa=$(echo "$pa" | wc -w)
	[ "$i" = 4 ] && continue
	cases+=("0 0 1 1 $s 2 $npa $A $pa $B $pa|fail_path $A;reinstate_path $A")
	cases+=("0 0 2 1 $s 1 $npa $A $pa $s 1 $npa $B $pa|switch_group 2;fail_path $B;disable_group 1;enable_group 1")
	cases+=("0 0 2 2 $s 2 $npa $A $pa $B $pa $s 2 $npa $C $pa $D $pa|fail_path $C;fail_path $D;reinstate_path $C")
	cases+=("1 queue_if_no_path 0 1 1 $s 4 $npa $A $pa $B $pa $C $pa $D $pa|fail_path $A;fail_path $B;fail_path $C;fail_path $D;fail_if_no_path;reinstate_path $B")
done
for f in "${feats[@]}"; do
	cases+=("$f 0 1 1 round-robin 0 2 1 $A 1 $B 1|queue_if_no_path;fail_if_no_path")
	cases+=("$f 0 2 1 service-time 0 1 2 $A 1 7 service-time 0 1 2 $B 1 3|disable_group 2;enable_group 2;switch_group 2")
	cases+=("$f 1 alua 1 1 queue-length 0 2 1 $A 1 $B 1|fail_path $B;reinstate_path $B")
done
cases+=("0 0 1 1 io-affinity 0 2 1 $A 1 $B 2|fail_path $A;reinstate_path $A")
cases+=("0 0 2 1 io-affinity 0 1 1 $A 3 io-affinity 0 1 1 $B 3|switch_group 2")
cases+=("0 0 0 0|")
cases+=("1 queue_if_no_path 0 0 0|fail_if_no_path;queue_if_no_path")
cases+=("0 2 alua 0 1 1 round-robin 0 2 1 $A 1 $B 1|")
cases+=("0 0 4 3 round-robin 0 1 1 $A 1 round-robin 0 1 1 $B 1 round-robin 0 1 1 $C 1 round-robin 0 1 1 $D 1|switch_group 4;disable_group 3;switch_group 1;enable_group 3")
cases+=("0 0 1 1 round-robin 0 2 1 $A 5 $B 9|fail_path $A;fail_path $A;reinstate_path $A;reinstate_path $A")
cases+=("0 0 1 1 service-time 0 2 2 $A 3 0 $B 1 100|")
cases+=("0 0 1 1 service-time 0 2 1 $A 3 $B 1|")
cases+=("0 0 1 1 service-time 0 2 0 $A $B|")
cases+=("0 0 1 1 round-robin 0 2 0 $A $B|")
cases+=("0 0 1 1 queue-length 0 2 0 $A $B|fail_path $B")
cases+=("0 0 1 1 round-robin 0 1 1 $A 1|fail_path $B;switch_group 2;disable_group 0;frobnicate;reinstate_path 7:99")
cases+=("1 queue_if_no_path 0 2 2 round-robin 0 2 1 $A 1 $B 1 round-robin 0 2 1 $C 1 $D 1|fail_path $C;fail_path $D;fail_path $A;fail_path $B;reinstate_path $D")
say "${#cases[@]} cases"
[ ${#cases[@]} -ge 50 ] || fail "only ${#cases[@]} cases"
# make test (quick tier) records every tenth case and the last four (the
# odd ones); make test-full records all of them
if [ "${TIER:-quick}" = quick ]; then
	sel=()
	for i in "${!cases[@]}"; do
		{ [ $((i % 10)) = 0 ] || [ "$i" -ge $((${#cases[@]} - 4)) ]; } && sel+=("${cases[$i]}")
	done
	cases=("${sel[@]}")
	say "quick tier: ${#cases[@]} of them (make test-full records all)"
fi

# No udev in the loop: with queue_if_no_path and no path, udev's blkid would
# block on queued I/O and dmsetup would wait for udev forever.  libdm makes
# the nodes itself and tells the udev rules to keep off these devices.
export DM_DISABLE_UDEV=1
dms() { timeout 30 dmsetup "$@"; }
# ...and udev does not run at all while the cases are recorded: its blkid
# reads after each PATH_FAILED/PATH_REINSTATED uevent would hit paths (and
# fail standby ones) at times that differ from run to run, and with all
# paths down they would hang until udevadm settle times out.  Events queue
# up and run once the recording is over.
udevadm control --stop-exec-queue || fail "cannot pause udev"
trap 'udevadm control --start-exec-queue' EXIT
# quiet: wait until the map's status stops changing; rd: a little I/O
# (tests/lib/common.sh: dm_quiet, dm_read)
quiet() { dm_quiet dcase; }
rd() { dm_read dcase; }
# historical-service-time reports measured service times per path: they
# differ from run to run even on stock, so mask numbers of 4+ digits there.
mask() { if [[ $1 == *historical-service-time* ]]; then sed -E 's/(^| )[0-9]{4,}( |$)/\1N\2/g; s/(^| )[0-9]{4,}( |$)/\1N\2/g'; else cat; fi; }
record() { # engine -> /tmp/diff.$engine
	local e=$1 out=/tmp/diff.$1 n=0 c t msgs m rc t_case
	: >"$out"
	for c in "${cases[@]}"; do
		[ $n -gt 0 ] && echo "$e $n $(($(date +%s%N) / 1000000 - t_case))" >>/tmp/diff.times
		t_case=$(($(date +%s%N) / 1000000))
		n=$((n + 1)); t=${c%%|*}; msgs=${c#*|}
		echo "== case $n: $t" >>"$out"
		if ! dms create dcase --table "0 $N multipath $t" 2>/dev/null; then
			echo "create failed" >>"$out"; continue
		fi
		[[ $(dm_path_states dcase) == *A* ]] && rd
		quiet
		echo "table: $(dmsetup table dcase)" >>"$out"
		echo "status: $(dmsetup status dcase | mask "$t")" >>"$out"
		IFS=';' read -ra ms <<<"$msgs"
		for m in "${ms[@]}"; do
			[ -n "$m" ] || continue
			# shellcheck disable=SC2086
			dms message dcase 0 $m >/dev/null 2>&1; rc=$?
			# I/O only while a path is usable: with queue_if_no_path it would wait
			[[ $(dm_path_states dcase) == *A* ]] && rd
			quiet
			echo "msg '$m' rc=$rc" >>"$out"
			echo "  table: $(dmsetup table dcase)" >>"$out"
			echo "  status: $(dmsetup status dcase | mask "$t")" >>"$out"
		done
		dms message dcase 0 fail_if_no_path >/dev/null 2>&1
		wait
		dms remove dcase || { sleep 1; dms remove --force dcase; } || fail "cannot remove case $n"
	done
	echo "$e $n $(($(date +%s%N) / 1000000 - t_case))" >>/tmp/diff.times
}
unload_new() { modprobe -r dm-blk-mpath 2>/dev/null; true; }

: >/tmp/diff.times
unload_new; engine_select stock; ENGINE=stock engine_load
record stock
stock_unload; engine_select new; ENGINE=new engine_load
record new
engine_select "$ENGINE"
# where the time goes: the slowest cases (milliseconds, per engine)
sort -k3 -n -r /tmp/diff.times | head -8 | while read -r e n ms; do say "slow: $e case $n ${ms} ms"; done
if diff -u /tmp/diff.stock /tmp/diff.new >/tmp/diff.out; then
	say "byte-identical: $(grep -c '^== case' /tmp/diff.stock) cases, $(grep -c "^msg" /tmp/diff.stock) messages, $(grep -cE 'table:|status:' /tmp/diff.stock) table/status lines"
	cp /tmp/diff.stock /results/target-differential.txt 2>/dev/null
else
	head -80 /tmp/diff.out
	fail "stock and blk-mpath differ ($(grep -c '^[-+][^-+]' /tmp/diff.out) lines)"
fi
