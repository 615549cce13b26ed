#!/bin/bash
# Boot the guest under QEMU (TCG) with a two-path LUN, run the guest test
# runner (or the demo), bring the results back, and judge the console.
#   images/run-guest.sh KERNEL_OUT_DIR WORKDIR
# Environment: MODE=test|demo|bench|profile  ENGINE=stock|new  T=suite[,suite|suite/name]
#              TIMEOUT=seconds (hard limit for the guest)  GUEST_MEM=MiB
#              GUEST_SMP=vCPUs (2)  QEMU_EXTRA=more QEMU options (make bench's
#              BENCH_ICOUNT=1: one vCPU, -icount shift=0)  HOSTCTL=off: no
#              host fault agent
. "$(dirname "$0")/../scripts/lib.sh"
OUT=$1 W=$2
MODE=${MODE:-test} ENGINE=${ENGINE:-stock} T=${T:-baseline} TIMEOUT=${TIMEOUT:-2400}
need_pkgs qemu-system-x86 qemu-utils python3
mkdir -p "$W"
KIMG=$OUT/arch/x86/boot/bzImage
[ -e "$KIMG" ] || die "no kernel image at $KIMG"
"$TOP/images/mkimage.sh" "$OUT" "$W/root.img" || exit 1
rm -f "$W/results.img" "$W/lun.img" "$W/console.log"
truncate -s 64M "$W/results.img"
truncate -s 256M "$W/lun.img"
rm -rf "$W/results"; mkdir -p "$W/results"
qemu_lun_args "$W"
# The host agent (scripts/hostctl.py) answers the guest's fault requests on
# ttyS1; it waits for QEMU's QMP and ctl sockets and stops when QEMU exits.
rm -f "$W/qmp.sock" "$W/ctl.sock" "$W/hostctl.log"
# QEMU's stdout is the console: the agent reads blkdebug's reports of held
# requests from console.log.
# HOSTCTL=off: no agent (the fault scenarios must then fail, not skip)
if [ "${HOSTCTL:-on}" = off ]; then
	log "HOSTCTL=off: no host fault agent"; sleep 1000000 & hpid=$!
else
	/usr/bin/python3 "$TOP/scripts/hostctl.py" --qmp "$W/qmp.sock" --ctl "$W/ctl.sock" --wait 120 \
		--console "$W/console.log" </dev/null >"$W/hostctl.log" 2>&1 &
	hpid=$!
fi
APPEND="root=/dev/vda rw console=ttyS0,115200 printk.time=1 log_buf_len=8M printk.devkmsg=on loglevel=5 panic=-1 oops=panic systemd.show_status=false"
APPEND="$APPEND blkmpath.mode=$MODE blkmpath.engine=$ENGINE blkmpath.tests=$T ${GUEST_APPEND:-}"
log "booting guest (TCG, ${GUEST_SMP:-2} vCPU${QEMU_EXTRA:+, $QEMU_EXTRA}): mode=$MODE engine=$ENGINE tests=$T, limit ${TIMEOUT}s; console: $W/console.log"
start=$(date +%s)
set +e
timeout -k 10 "$TIMEOUT" qemu-system-x86_64 -accel tcg -cpu max -smp "${GUEST_SMP:-2}" ${QEMU_EXTRA:-} -m "${GUEST_MEM:-2048}" \
	-display none -monitor none -no-reboot -serial stdio \
	-kernel "$KIMG" -append "$APPEND" \
	-drive file="$W/root.img",format=raw,if=virtio,cache=unsafe \
	-drive file="$W/results.img",format=raw,if=virtio,cache=unsafe \
	"${LUN_ARGS[@]}" \
	</dev/null 2>&1 | tee "$W/console.log" | sed -u 's/^/  guest| /'
qrc=${PIPESTATUS[0]}
kill "$hpid" 2>/dev/null; wait "$hpid" 2>/dev/null
set -e
log "guest finished after $(($(date +%s) - start)) s (qemu exit $qrc)"
tar -xf "$W/results.img" -C "$W/results" 2>/dev/null || true

verdict=0
if [ "$qrc" -eq 124 ] || [ "$qrc" -eq 137 ]; then
	log "FAILURE: guest timed out after ${TIMEOUT}s (hang); console tail:"
	tail -60 "$W/console.log" >&2; verdict=1
fi
if grep -aE '^\[ *[0-9]+\.[0-9]+\]' "$W/console.log" | grep -aE 'Oops|BUG:|Kernel panic|WARNING:|KASAN|UBSAN|possible circular locking|possible recursive locking|general protection fault|INFO: task .* blocked for more|Call Trace' >"$W/kernel-problems.txt"; then
	log "FAILURE: kernel oops/warning/panic on the guest console:"
	cat "$W/kernel-problems.txt" >&2
	log "console tail:"; tail -80 "$W/console.log" >&2; verdict=1
fi
if [ "$MODE" = test ]; then
	summary=$(grep -aE '^[0-9]+ passed, [0-9]+ failed' "$W/results/summary" 2>/dev/null ||
		grep -aE '^[0-9]+ passed, [0-9]+ failed' "$W/console.log" | tail -1)
	if [ -z "$summary" ]; then
		log "FAILURE: the guest test runner did not finish (no summary); console tail:"
		tail -60 "$W/console.log" >&2; verdict=1
	else
		nfail=$(echo "$summary" | sed -E 's/^[0-9]+ passed, ([0-9]+) failed.*/\1/')
		npass=$(echo "$summary" | sed -E 's/^([0-9]+) passed.*/\1/')
		[ "$nfail" -eq 0 ] || verdict=1
		[ "$npass" -gt 0 ] || { log "FAILURE: no test passed"; verdict=1; }
		echo "$summary" >"$W/summary"
	fi
elif [ "$MODE" = bench ]; then
	grep -q 'BENCH: DONE' "$W/console.log" || { log "FAILURE: the benchmark did not finish"; verdict=1; }
elif [ "$MODE" = profile ]; then
	grep -q 'PROFILE: DONE' "$W/console.log" || { log "FAILURE: the profile did not finish"; verdict=1; }
elif [ "$MODE" = demo ]; then
	grep -q 'DEMO: OK' "$W/console.log" || { log "FAILURE: the demo did not finish with DEMO: OK"; verdict=1; }
fi
exit $verdict
