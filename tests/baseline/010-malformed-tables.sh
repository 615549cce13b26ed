#!/bin/bash
# DESCRIPTION: 38 malformed multipath tables are each rejected with stock dm-multipath's error; no map is left, the kernel stays healthy
# REQUIRES: mod:scsi_debug
. /opt/blk-mpath/tests/lib/common.sh
engine_load
sdebug_setup
path_vars "${SD_PATHS[@]}"
# "table|error": the error is stock dm-multipath's ti->error for the table
# and the errno, as dm_table_add_target() logs them:
#   device-mapper: table: <dev>: multipath: <ti->error> (<errno>)
# (%pe: symbolic with CONFIG_SYMBOLIC_ERRNAME).  The kernel line of each
# table must end with ": multipath: <error>".
tables=(
	"|invalid number of feature args (-EINVAL)"                                                          # nothing at all
	"0|invalid number of hardware handler args (-EINVAL)"                                                # features only
	"0 0|invalid number of priority groups (-EINVAL)"                                                    # no group count
	"x 0 1 1 round-robin 0 1 1 $A 1|invalid number of feature args (-EINVAL)"                            # non-numeric feature count
	"1 0 1 1 round-robin 0 1 1 $A 1|Unrecognised multipath feature request (-EINVAL)"                    # feature count too large (eats "0")
	"1 frobnicate 0 1 1 round-robin 0 1 1 $A 1|Unrecognised multipath feature request (-EINVAL)"         # unknown feature
	"1 pg_init_retries 0 1 1 round-robin 0 1 1 $A 1|Unrecognised multipath feature request (-EINVAL)"    # feature missing its argument
	"2 pg_init_retries 51 0 1 1 round-robin 0 1 1 $A 1|pg_init_retries must be between 1 and 50 (-EINVAL)" # pg_init_retries out of range
	"2 pg_init_retries x 0 1 1 round-robin 0 1 1 $A 1|pg_init_retries must be between 1 and 50 (-EINVAL)" # pg_init_retries not a number
	"2 pg_init_delay_msecs 60001 0 1 1 round-robin 0 1 1 $A 1|pg_init_delay_msecs must be between 0 and 60000 (-EINVAL)" # delay out of range
	"2 queue_mode foo 0 1 1 round-robin 0 1 1 $A 1|Unknown 'queue_mode' requested (-EINVAL)"             # unknown queue_mode
	"1 queue_mode 0 1 1 round-robin 0 1 1 $A 1|Unrecognised multipath feature request (-EINVAL)"         # queue_mode without argument
	"0 1 0 1 1 round-robin 0 1 1 $A 1|error attaching hardware handler (-EINVAL)"                        # hw handler count 1, no name ("0" is taken as the name)
	"0 1 nosuchhandler 1 1 round-robin 0 1 1 $A 1|error attaching hardware handler (-EINVAL)"            # unknown hardware handler
	"0 x 1 1 round-robin 0 1 1 $A 1|invalid number of hardware handler args (-EINVAL)"                   # hw handler count not a number
	"0 0 1 1 no-such-selector 0 1 1 $A 1|unknown path selector type (-EINVAL)"                           # unknown selector
	"0 0 1 1 round-robin 0 1 1 $A|not enough path parameters (-EINVAL)"                                  # path args missing
	"0 0 1 1 round-robin 0 2 1 $A 1|not enough path parameters (-EINVAL)"                                # fewer paths than declared
	"0 0 2 1 round-robin 0 1 1 $A 1|priority group count mismatch (-EINVAL)"                             # fewer groups than declared
	"0 0 1 1 round-robin 0 0 1|invalid number of paths (-EINVAL)"                                        # zero paths in a group
	"0 0 1 1 round-robin 0 1 1 999:999 1|error getting device (-ENXIO)"                                  # path device does not exist
	"0 0 1 1 round-robin 0 1 1 /dev/nonexistent 1|error getting device (-ENODEV)"                        # path node does not exist
	"0 0 1 1 round-robin 0 1 1 $A 1 extra|not enough priority group arguments (-EINVAL)"                 # trailing garbage
	"0 0 1 1 round-robin 0 1 1 $A x|round-robin ps: invalid repeat count (-EINVAL)"                      # repeat count not a number
	"0 0 1 1 round-robin 0 1 2 $A 1 2|round-robin ps: incorrect number of arguments (-EINVAL)"           # too many path args for rr
	"0 0 1 1 round-robin x 1 1 $A 1|invalid number of path selector args (-EINVAL)"                      # selector arg count not a number
	"0 0 1 1 queue-length 0 1 2 $A 1 2|queue-length ps: incorrect number of arguments (-EINVAL)"         # too many path args for ql
	"0 0 1 1 service-time 0 1 3 $A 1 1 1|service-time ps: incorrect number of arguments (-EINVAL)"       # too many path args for st
	"0 0 1 1 service-time 0 1 2 $A 1 x|service-time ps: invalid relative_throughput value (-EINVAL)"     # st relative throughput not a number
	"0 0 1 1 service-time 0 1 2 $A 1 101|service-time ps: invalid relative_throughput value (-EINVAL)"   # st relative throughput > 100
	"0 0 1 1 io-affinity 0 1 1 $A x|io-affinity ps: invalid cpumask (-EINVAL)"                           # io-affinity cpumask not hex
	"0 0 1 1 io-affinity 0 1 0 $A|io-affinity ps: invalid number of arguments (-EINVAL)"                 # io-affinity without cpumask
	"0 0 1 1 historical-service-time 1 x 1 1 $A 1|path selector constructor failed (-EINVAL)"            # hst bad selector arg (hst_create sets no message)
	"0 0 1 1 round-robin 0 1 1 $A 1 round-robin|not enough priority group arguments (-EINVAL)"           # a second group not declared
	"0 0 -1 1 round-robin 0 1 1 $A 1|invalid number of priority groups (-EINVAL)"                        # negative group count
	"0 0 1 0 round-robin 0 1 1 $A 1|invalid initial priority group (-EINVAL)"                            # next group 0 with groups present
	"0 0 1 1 round-robin 0 x 1 $A 1|invalid number of paths (-EINVAL)"                                   # path count not a number
	"0 0 1 1 round-robin 0 1 x $A 1|invalid number of selector args (-EINVAL)"                           # path arg count not a number
)
n=0 accepted=0 wrong=()
for e in "${tables[@]}"; do
	n=$((n + 1))
	t=${e%%|*} exp=${e#*|}
	dmesg_mark
	if dmsetup create bad$n --table "0 $N multipath $t" 2>/tmp/err; then
		dmsetup remove bad$n
		echo "ACCEPTED $n: '$t'"; accepted=$((accepted + 1))
		continue
	fi
	why=$(dmesg_since | grep -E 'device-mapper: table: .*multipath' | tail -1 | sed 's/^\[[^]]*\] //')
	[ -n "$why" ] || { echo "no kernel error message for table $n: '$t'"; accepted=$((accepted + 1)); }
	if [ -n "$why" ] && [[ $why != *": multipath: $exp" ]]; then
		wrong+=("table $n '$t': expected '... multipath: $exp', kernel line '$why'")
		echo "WRONG ERROR ${wrong[-1]}"
	fi
	say "rejected $n: '$t' -> $why"
	dmsetup info bad$n >/dev/null 2>&1 && dmsetup remove bad$n
done
[ $accepted -eq 0 ] || fail "$accepted malformed tables accepted or rejected without a reason"
[ $n -ge 30 ] || fail "only $n tables"
left=$(dmsetup ls | grep -c '^bad' || true)
[ "$left" -eq 0 ] || fail "$left half-made maps left behind"
dmesg | grep -c 'multipath' | sed 's/^/# dmesg multipath lines: /'
# the device still works for a good table
dm_create good "0 $N multipath 0 0 1 1 round-robin 0 2 1 $A 1 $B 1" || fail "good table rejected"
dd if=/dev/mapper/good of=/dev/null bs=4k count=64 iflag=direct status=none || fail "I/O on the good map"
[ ${#wrong[@]} -eq 0 ] || fail "${#wrong[@]} tables rejected with another error than stock's:$(printf '\n  %s' "${wrong[@]}")"
