#!/bin/bash
# DESCRIPTION: queue_mode bio: 32 bio-mode tables (10 in make test, all in make test-full) and message sequences (fail/reinstate_path, switch/disable/enable_group, queue_if/fail_if_no_path, flush and noflush suspend) on stock and on blk-mpath: dmsetup table/status, message results and the map's type (bio-based) byte-identical
# REQUIRES: mod:scsi_debug mod:dm-blk-mpath mod:dm-multipath
# TIMEOUT: 1500
. /opt/blk-mpath/tests/lib/common.sh
# As target/001: the alua handler attaches at scan and stays attached, so
# load it first and both engines see the paths in the same state (implicit
# ALUA, a standby port for host_no % 3 == 2).  In bio mode neither engine
# attaches a handler of its own: both retain the attached one.
modprobe scsi_dh_alua || fail "modprobe scsi_dh_alua"
SDEBUG_ALUA=1 sdebug_setup add_host=4
P=("${SD_PATHS[@]}")
A=$(mm "${P[0]}") B=$(mm "${P[1]}") C=$(mm "${P[2]}") D=$(mm "${P[3]}") N=$(sectors "/dev/${P[0]}")

# Each case: "table|step;step;..."; a step is a message, or @noflush /
# @suspend (suspend without / with flush, then resume)
cases=()
sels=("round-robin 0" "queue-length 0" "service-time 0" "historical-service-time 0")
pargs=("1" "1" "1 1" "1")
for i in 0 1 2 3; do
	s=${sels[$i]} pa=${pargs[$i]} npa=$(echo "$pa" | wc -w)
	cases+=("2 queue_mode bio 0 1 1 $s 2 $npa $A $pa $B $pa|fail_path $A;reinstate_path $A")
	cases+=("3 queue_if_no_path queue_mode bio 0 2 1 $s 1 $npa $A $pa $s 1 $npa $B $pa|switch_group 2;fail_path $B;disable_group 1;enable_group 1;fail_path $A;fail_if_no_path;queue_if_no_path;reinstate_path $A")
done
feats=("2 queue_mode bio" "3 queue_if_no_path queue_mode bio" "4 pg_init_retries 3 queue_mode bio"
	"4 queue_mode bio pg_init_delay_msecs 500" "3 retain_attached_hw_handler queue_mode bio"
	"6 queue_if_no_path retain_attached_hw_handler pg_init_delay_msecs 0 queue_mode bio"
	"2 queue_mode BIO" "4 queue_mode mq queue_mode bio")
for f in "${feats[@]}"; do
	cases+=("$f 0 1 1 round-robin 0 2 1 $A 1 $B 1|queue_if_no_path;fail_path $B;fail_if_no_path;reinstate_path $B")
	cases+=("$f 1 alua 2 1 queue-length 0 1 1 $A 1 queue-length 0 1 1 $B 1|switch_group 2;disable_group 2;enable_group 2;switch_group 1")
done
cases+=("2 queue_mode bio 2 alua 0 1 1 round-robin 0 2 1 $A 1 $B 1|fail_path $A;reinstate_path $A")
cases+=("2 queue_mode bio 0 1 1 io-affinity 0 2 1 $A 1 $B 2|fail_path $A;reinstate_path $A")
cases+=("2 queue_mode bio 0 4 3 round-robin 0 1 1 $A 1 round-robin 0 1 1 $B 1 round-robin 0 1 1 $C 1 round-robin 0 1 1 $D 1|switch_group 4;disable_group 3;switch_group 1;enable_group 3")
cases+=("3 queue_if_no_path queue_mode bio 0 2 2 round-robin 0 2 1 $A 1 $B 1 round-robin 0 2 1 $C 1 $D 1|fail_path $C;fail_path $D;@noflush;fail_path $A;fail_path $B;@suspend;reinstate_path $D;switch_group 1;@noflush")
cases+=("3 queue_if_no_path queue_mode bio 0 0 0|fail_if_no_path;queue_if_no_path;@noflush")
cases+=("2 queue_mode bio 0 1 1 round-robin 0 1 1 $A 1|fail_path $B;switch_group 2;disable_group 0;frobnicate;reinstate_path 7:99")
# the parser: not bio mode after all, and a bad mode
cases+=("4 queue_mode bio queue_mode rq 0 1 1 round-robin 0 2 1 $A 1 $B 1|")
cases+=("2 queue_mode bi0 0 1 1 round-robin 0 2 1 $A 1 $B 1|")
say "${#cases[@]} cases"
# make test (quick tier) records every tenth case and the last seven
# (suspends, no groups, bad messages, the parser); make test-full all
if [ "${TIER:-quick}" = quick ]; then
	sel=()
	for i in "${!cases[@]}"; do
		{ [ $((i % 10)) = 0 ] || [ "$i" -ge $((${#cases[@]} - 7)) ]; } && sel+=("${cases[$i]}")
	done
	cases=("${sel[@]}")
	say "quick tier: ${#cases[@]} of them (make test-full records all)"
fi

# No udev while recording (see target/001): its blkid reads would hit the
# paths at times that differ from run to run, and hang with no path.
export DM_DISABLE_UDEV=1
dms() { timeout 30 dmsetup "$@"; }
udevadm control --stop-exec-queue || fail "cannot pause udev"
trap 'udevadm control --start-exec-queue' EXIT
# tests/lib/common.sh: dm_quiet, dm_read (as target/001)
quiet() { dm_quiet dcase; }
rd() { dm_read dcase; }
mask() { if [[ $1 == *historical-service-time* ]]; then sed -E 's/(^| )[0-9]{4,}( |$)/\1N\2/g; s/(^| )[0-9]{4,}( |$)/\1N\2/g'; else cat; fi; }
# bio-based or request-based: only a blk-mq queue has an mq directory
qtype() {
	local d
	d=$(dmsetup info -c --noheadings -o blkdevname dcase 2>/dev/null | tr -d ' ')
	[ -n "$d" ] || { echo none; return; }
	[ -d "/sys/block/$d/mq" ] && echo request-based || echo bio-based
}
step() { # step -> rc
	case $1 in
	@noflush) dms suspend --noflush dcase >/dev/null 2>&1 && dms resume dcase >/dev/null 2>&1 ;;
	@suspend) dms suspend dcase >/dev/null 2>&1 && dms resume dcase >/dev/null 2>&1 ;;
	# shellcheck disable=SC2086
	*) dms message dcase 0 $1 >/dev/null 2>&1 ;;
	esac
}
record() { # engine -> /tmp/bdiff.$engine
	local e=$1 out=/tmp/bdiff.$1 n=0 c t msgs m rc
	: >"$out"
	for c in "${cases[@]}"; do
		n=$((n + 1)); t=${c%%|*}; msgs=${c#*|}
		echo "== case $n: $t" >>"$out"
		if ! dms create dcase --table "0 $N multipath $t" 2>/dev/null; then
			echo "create failed" >>"$out"; continue
		fi
		echo "type: $(qtype)" >>"$out"
		[[ $(dm_path_states dcase) == *A* ]] && rd
		quiet
		echo "table: $(dmsetup table dcase)" >>"$out"
		echo "status: $(dmsetup status dcase | mask "$t")" >>"$out"
		IFS=';' read -ra ms <<<"$msgs"
		for m in "${ms[@]}"; do
			[ -n "$m" ] || continue
			step "$m"; rc=$?
			[[ $(dm_path_states dcase) == *A* ]] && rd
			quiet
			echo "step '$m' rc=$rc" >>"$out"
			echo "  table: $(dmsetup table dcase)" >>"$out"
			echo "  status: $(dmsetup status dcase | mask "$t")" >>"$out"
		done
		dms message dcase 0 fail_if_no_path >/dev/null 2>&1
		wait
		dms remove dcase || { sleep 1; dms remove --force dcase; } || fail "cannot remove case $n"
	done
}

unload_new() { modprobe -r dm-blk-mpath 2>/dev/null; true; }
unload_new; engine_select stock; ENGINE=stock engine_load
record stock
stock_unload; engine_select new; ENGINE=new engine_load
record new
engine_select "$ENGINE"

# the comparison means something only if the maps were bio-based
nbio=$(grep -c '^type: bio-based' /tmp/bdiff.stock)
say "stock: $nbio bio-based maps"
[ "$nbio" -ge $((${#cases[@]} - 3)) ] || fail "stock made only $nbio bio-based maps"
grep -q "queue_mode bio" /tmp/bdiff.stock || fail "stock never printed queue_mode bio"
# the first case's lines, for the record
sed -n '/^== case 1:/,/^== case 2:/p' /tmp/bdiff.stock | sed '$d' | sed 's/^/stock: /'
sed -n '/^== case 1:/,/^== case 2:/p' /tmp/bdiff.new | sed '$d' | sed 's/^/blk-mpath: /'
if diff -u /tmp/bdiff.stock /tmp/bdiff.new >/tmp/bdiff.out; then
	say "byte-identical: $(grep -c '^== case' /tmp/bdiff.stock) cases, $(grep -c "^step" /tmp/bdiff.stock) steps, $(grep -cE 'table:|status:' /tmp/bdiff.stock) table/status lines"
	cp /tmp/bdiff.stock /results/target-bio-differential.txt 2>/dev/null
else
	head -80 /tmp/bdiff.out
	fail "stock and blk-mpath differ ($(grep -c '^[-+][^-+]' /tmp/bdiff.out) lines)"
fi
