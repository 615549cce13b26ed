/* Static module loader/unloader for the engine smoke initramfs. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long r = -1;
	int fd;

	if (argc >= 3 && !strcmp(argv[1], "load")) {
		fd = open(argv[2], O_RDONLY);
		if (fd >= 0)
			r = syscall(SYS_finit_module, fd, argc > 3 ? argv[3] : "", 0);
	} else if (argc == 3 && !strcmp(argv[1], "unload")) {
		/* module names use '_' (dm-multipath is dm_multipath) */
		for (char *c = argv[2]; *c; c++)
			if (*c == '-')
				*c = '_';
		r = syscall(SYS_delete_module, argv[2], O_NONBLOCK);
	}
	if (r)
		perror(argv[2]);
	return r ? 1 : 0;
}
