#!/bin/bash
# make test: build what is missing, boot the guest once per engine, run the
# selected scenarios, print per-run and total summaries; non-zero on failure.
#   ENGINE=stock|new|both (default both)  T=suites (default: all suites)
#   KVARIANT=guest|debug (default guest)
. "$(dirname "$0")/lib.sh"
ENGINE=${ENGINE:-both}
KVARIANT=${KVARIANT:-guest}
t0=$(date +%s)
log "blk-mpath test: engine=$ENGINE tests=${T:-default} kernel=$KVARIANT cache=$CACHE"
need_pkgs qemu-system-x86 qemu-utils debootstrap rsync e2fsprogs gcc make libdevmapper-dev
OUT=$("$TOP/kernel/build.sh" "$KVARIANT" | tail -1) || die "kernel build failed"
[ -d "$OUT" ] || die "kernel build gave no output directory"
make -s -C "$TOP/userspace" >"$CACHE/userspace-build.log" 2>&1 || { cat "$CACHE/userspace-build.log"; die "userspace tools failed to build"; }
log "build stage done after $(($(date +%s) - t0)) s"

case $ENGINE in
both) engines=(stock new) ;;
stock|new) engines=("$ENGINE") ;;
*) die "ENGINE must be stock, new or both" ;;
esac
P=0 F=0 S=0 rc=0 lines=()
for e in "${engines[@]}"; do
	sel=${T:-}
	if [ -z "$sel" ]; then
		sel=baseline
		[ "$e" = new ] && for s in engine target; do [ -d "$TOP/tests/$s" ] && sel="$sel,$s"; done
	fi
	W=$CACHE/run-$KVARIANT-$e${RUN_TAG:+-$RUN_TAG}
	MODE=test ENGINE=$e T=$sel "$TOP/images/run-guest.sh" "$OUT" "$W" || rc=1
	s=$(cat "$W/summary" 2>/dev/null)
	if [ -n "$s" ]; then
		read -r p _ f _ sk _ <<<"$(echo "$s" | tr -d ,)"
		P=$((P + p)) F=$((F + f)) S=$((S + ${sk:-0}))
	else
		F=$((F + 1))
	fi
	grep -E '^(PASS|FAIL|SKIP) ' "$W/results/verdicts" 2>/dev/null | sed "s/^/[$e] /"
	# show why each failed scenario failed, so a CI log alone explains a red run
	grep -E '^FAIL ' "$W/results/verdicts" 2>/dev/null | awk '{print $2}' | while read -r t; do
		[ -f "$W/results/$t.log" ] || continue
		echo "[$e] --- last lines of $t.log ---"
		tail -30 "$W/results/$t.log" | sed "s/^/[$e]   | /"
	done
	lines+=("$e: ${s:-guest run failed (see $W/console.log)}")
	mkdir -p "$TOP/results"; rm -rf "$TOP/results/$KVARIANT-$e${RUN_TAG:+-$RUN_TAG}"
	cp -r "$W/results" "$TOP/results/$KVARIANT-$e${RUN_TAG:+-$RUN_TAG}" 2>/dev/null; cp "$W/console.log" "$W/hostctl.log" "$TOP/results/$KVARIANT-$e${RUN_TAG:+-$RUN_TAG}/" 2>/dev/null
done
log "total time $(($(date +%s) - t0)) s; logs in $TOP/results/"
for l in "${lines[@]}"; do echo "$l"; done
[ $rc -ne 0 ] && [ $F -eq 0 ] && F=1
echo "$P passed, $F failed, $S skipped"
[ $rc -eq 0 ] && [ $F -eq 0 ]
