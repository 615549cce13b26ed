#!/bin/bash
# make profile: perf profiles of make bench's cases (tests/profile.sh), one guest boot.
. "$(dirname "$0")/lib.sh"
[ -z "${PROFILE_ROUNDS:-}" ] || [[ $PROFILE_ROUNDS =~ ^[1-9][0-9]*$ ]] ||
	die "PROFILE_ROUNDS=$PROFILE_ROUNDS: give a number of rounds, 1 or more"
need_pkgs qemu-system-x86 qemu-utils debootstrap rsync e2fsprogs gcc make libdevmapper-dev
OUT=$("$TOP/kernel/build.sh" guest | tail -1) || die "kernel build failed"
make -s -C "$TOP/userspace" >/dev/null || die "userspace tools failed to build"
W=$CACHE/run-profile
# the guest's clock source: the TSC, as in make bench (scripts/bench.sh)
GUEST_APPEND="clocksource=tsc tsc=reliable ${PROFILE_ROUNDS:+blkmpath.profile_rounds=$PROFILE_ROUNDS}" MODE=profile ENGINE=new TIMEOUT=${TIMEOUT:-$((${PROFILE_ROUNDS:-0} > 0 ? 600 + 90 * PROFILE_ROUNDS : 2400))} "$TOP/images/run-guest.sh" "$OUT" "$W" || exit 1
mkdir -p "$TOP/results"; rm -rf "$TOP/results/profile"; cp -r "$W/results/profile" "$TOP/results/profile" 2>/dev/null
cp "$W/results/profile.log" "$TOP/results/profile/profile.log" 2>/dev/null
echo; grep -vE '^  (null_blk|sdebug|lio) ' "$W/results/profile.log"
