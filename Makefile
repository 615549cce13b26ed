# blk-mpath: the front door.  See README.md.
ENGINE ?=
T ?=
export ENGINE T

.PHONY: all test demo kernel kernel-debug image test-debug bench series checkpatch userspace clean help

all: kernel

help:
	@echo "make test [ENGINE=stock|new|both] [T=suite[,suite]|suite/NNN]  - build, boot, run guest tests"
	@echo "make demo [ENGINE=new|stock]   - multipathd driving a path failure, narrated"
	@echo "make test-debug                - the engine/target suites on the KASAN/lockdep/kmemleak kernel"
	@echo "make bench                     - raw vs stock mq vs stock bio vs blk-mpath (fio, null_blk)"
	@echo "make kernel | kernel-debug | series | checkpatch | userspace"

kernel:
	kernel/build.sh guest

kernel-debug:
	kernel/build.sh debug

test:
	scripts/test.sh

test-debug:
	KVARIANT=debug ENGINE=$${ENGINE:-new} scripts/test.sh

demo:
	scripts/demo.sh

bench:
	scripts/bench.sh

series:
	kernel/mkseries.sh

checkpatch:
	kernel/checkpatch.sh

userspace:
	$(MAKE) -C userspace

clean:
	rm -rf results userspace/bin
