#!/bin/bash
# DESCRIPTION: 38 malformed multipath tables are each rejected with an error; no map is left, the kernel stays healthy
# REQUIRES: mod:scsi_debug
. /opt/blk-mpath/tests/lib/common.sh
engine_load
sdebug_setup
path_vars "${SD_PATHS[@]}"
tables=(
	""                                             # nothing at all
	"0"                                            # features only
	"0 0"                                          # no group count
	"x 0 1 1 round-robin 0 1 1 $A 1"               # non-numeric feature count
	"1 0 1 1 round-robin 0 1 1 $A 1"               # feature count too large (eats "0")
	"1 frobnicate 0 1 1 round-robin 0 1 1 $A 1"    # unknown feature
	"1 pg_init_retries 0 1 1 round-robin 0 1 1 $A 1"   # feature missing its argument
	"2 pg_init_retries 51 0 1 1 round-robin 0 1 1 $A 1" # pg_init_retries out of range
	"2 pg_init_retries x 0 1 1 round-robin 0 1 1 $A 1"  # pg_init_retries not a number
	"2 pg_init_delay_msecs 60001 0 1 1 round-robin 0 1 1 $A 1"   # delay out of range
	"2 queue_mode foo 0 1 1 round-robin 0 1 1 $A 1"    # unknown queue_mode
	"1 queue_mode 0 1 1 round-robin 0 1 1 $A 1"        # queue_mode without argument
	"0 1 0 1 1 round-robin 0 1 1 $A 1"                 # hw handler count 1, no name
	"0 1 nosuchhandler 1 1 round-robin 0 1 1 $A 1"     # unknown hardware handler
	"0 x 1 1 round-robin 0 1 1 $A 1"                   # hw handler count not a number
	"0 0 1 1 no-such-selector 0 1 1 $A 1"              # unknown selector
	"0 0 1 1 round-robin 0 1 1 $A"                     # path args missing
	"0 0 1 1 round-robin 0 2 1 $A 1"                   # fewer paths than declared
	"0 0 2 1 round-robin 0 1 1 $A 1"                   # fewer groups than declared
	"0 0 1 1 round-robin 0 0 1"                        # zero paths in a group
	"0 0 1 1 round-robin 0 1 1 999:999 1"              # path device does not exist
	"0 0 1 1 round-robin 0 1 1 /dev/nonexistent 1"     # path node does not exist
	"0 0 1 1 round-robin 0 1 1 $A 1 extra"             # trailing garbage
	"0 0 1 1 round-robin 0 1 1 $A x"                   # repeat count not a number
	"0 0 1 1 round-robin 0 1 2 $A 1 2"                 # too many path args for rr
	"0 0 1 1 round-robin x 1 1 $A 1"                   # selector arg count not a number
	"0 0 1 1 queue-length 0 1 2 $A 1 2"                # too many path args for ql
	"0 0 1 1 service-time 0 1 3 $A 1 1 1"              # too many path args for st
	"0 0 1 1 service-time 0 1 2 $A 1 x"                # st relative throughput not a number
	"0 0 1 1 service-time 0 1 2 $A 1 101"              # st relative throughput > 100
	"0 0 1 1 io-affinity 0 1 1 $A x"                   # io-affinity cpumask not hex
	"0 0 1 1 io-affinity 0 1 0 $A"                     # io-affinity without cpumask
	"0 0 1 1 historical-service-time 1 x 1 1 $A 1"     # hst bad selector arg
	"0 0 1 1 round-robin 0 1 1 $A 1 round-robin"       # a second group not declared
	"0 0 -1 1 round-robin 0 1 1 $A 1"                  # negative group count
	"0 0 1 0 round-robin 0 1 1 $A 1"                   # next group 0 with groups present
	"0 0 1 1 round-robin 0 x 1 $A 1"                   # path count not a number
	"0 0 1 1 round-robin 0 1 x $A 1"                   # path arg count not a number
)
n=0 accepted=0
for t in "${tables[@]}"; do
	n=$((n + 1))
	dmesg_mark
	if dmsetup create bad$n --table "0 $N multipath $t" 2>/tmp/err; then
		dmsetup remove bad$n
		echo "ACCEPTED $n: '$t'"; accepted=$((accepted + 1))
		continue
	fi
	why=$(dmesg_since | grep -E 'device-mapper: table: .*multipath' | tail -1 | sed 's/^\[[^]]*\] //')
	[ -n "$why" ] || { echo "no kernel error message for table $n: '$t'"; accepted=$((accepted + 1)); }
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
