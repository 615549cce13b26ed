# blk-mpath: the front door.  See README.md.
ENGINE ?=
T ?=
export ENGINE T

.PHONY: all test test-full test-vanilla soak compare demo kernel kernel-debug image test-debug bench profile series checkpatch userspace clean help

all: kernel

help:
	@echo "make test [ENGINE=stock|new|both] [T=suite[,suite]|suite/NNN]  - build, boot, run guest tests"
	@echo "make demo [ENGINE=new|stock]   - multipathd driving a path failure, narrated"
	@echo "make test-full                 - make test plus the full fault matrix and long scenarios (TIER=full),"
	@echo "                                 then the baseline and stock's fault suite on the unpatched kernel"
	@echo "make test-vanilla              - the baseline and stock's half of the fault suite on Debian's unpatched"
	@echo "                                 kernel (same config), compared with stock on the guest kernel"
	@echo "make soak [SOAK_CYCLES=1000]   - 1000 fail/reinstate cycles under fio verify on blk-mpath"
	@echo "make test-debug                - engine, target and fault suites on the KASAN/lockdep/kmemleak kernel"
	@echo "make bench [KVARIANT=vanilla]  - raw vs stock mq vs stock bio vs blk-mpath (fio; null_blk, scsi_debug, LIO paths);"
	@echo "                                 vanilla: the raw and stock rows on Debian's unpatched kernel"
	@echo "make profile [PROFILE_ROUNDS=N] - perf profile of the bench's null_blk and 64k cases (where the CPU time goes);"
	@echo "                                 N: only null_blk 4k raw, mq-deadline and none, N rounds, a line per run"
	@echo "make compare                   - both engines over the same work: results/compare/report.html"
	@echo "make kernel | kernel-debug | series | checkpatch | userspace"

kernel:
	kernel/build.sh guest

kernel-debug:
	kernel/build.sh debug

test:
	scripts/test.sh

test-full:
	TIER=full scripts/test.sh; r=$$?; TIER=full KVARIANT=vanilla scripts/test.sh || r=1; exit $$r

test-vanilla:
	KVARIANT=vanilla scripts/test.sh

soak:
	ENGINE=new T=$${T:-soak} TIER=full GUEST_APPEND="blkmpath.soak_cycles=$${SOAK_CYCLES:-1000}" scripts/test.sh

test-debug:
	KVARIANT=debug ENGINE=$${ENGINE:-new} T=$${T:-engine,target,faults} \
		GUEST_APPEND="blkmpath.fault_engines=$${FAULT_ENGINES:-new}" scripts/test.sh

demo:
	scripts/demo.sh

bench:
	scripts/bench.sh

profile:
	scripts/profile.sh

compare:
	scripts/compare.sh

series:
	kernel/mkseries.sh

checkpatch:
	kernel/checkpatch.sh

userspace:
	$(MAKE) -C userspace

clean:
	rm -rf results userspace/bin
