/* Minimal init for kernel/tools/engine-smoke.sh (static, no busybox). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
static void load(const char *p, const char *args)
{
	int fd = open(p, O_RDONLY);
	long r = fd < 0 ? -1 : syscall(SYS_finit_module, fd, args, 0);
	printf("INIT: load %s -> %ld\n", p, r);
	if (fd >= 0) close(fd);
}
int main(void)
{
	int st = 0;

	mount("proc", "/proc", "proc", 0, 0);
	mount("sysfs", "/sys", "sysfs", 0, 0);
	mount("devtmpfs", "/dev", "devtmpfs", 0, 0);
	mount("debugfs", "/sys/kernel/debug", "debugfs", 0, 0);
	mount("tracefs", "/sys/kernel/tracing", "tracefs", 0, 0);
	/* KUnit only: the suites run when the module loads */
	if (access("/blk-mpath-test.ko", R_OK) == 0) {
		load("/blk-mpath.ko", "");
		load("/blk-mpath-test.ko", "");
		if (access("/blk-mpath-bio-test.ko", R_OK) == 0)
			load("/blk-mpath-bio-test.ko", "");
		goto out;
	}
	/* a scenario may bring its own scsi_debug parameters */
	char sdargs[256] = "add_host=2 vpd_use_hostno=0 dev_size_mb=16";
	int afd = open("/sdebug.args", O_RDONLY);
	if (afd >= 0) {
		ssize_t n = read(afd, sdargs, sizeof(sdargs) - 1);
		sdargs[n > 0 ? n : 0] = 0;
		for (char *c = sdargs; *c; c++)
			if (*c == '\n')
				*c = 0;
		close(afd);
	}
	load("/scsi_debug.ko", sdargs);
	load("/scsi_dh_alua.ko", "");
	/* the selectors scenario loads stock, then blk-mpath, itself */
	if (access("/bin/modctl", X_OK) != 0) {
		load("/blk-mpath.ko", "");
		load("/dm-blk-mpath.ko", "queue_if_no_path_timeout_secs=4");
	}
	sleep(2);
	pid_t p = fork();
	if (!p) { execl("/bin/dash", "dash", "/e2e.sh", NULL); _exit(127); }
	waitpid(p, &st, 0);
out:
	printf("INIT: done %d\n", st);
	fflush(stdout); sync();
	reboot(RB_POWER_OFF);
	return 0;
}
