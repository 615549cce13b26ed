// SPDX-License-Identifier: GPL-2.0
/*
 * blk-mpath-stat: per-path counters of every blk-mpath map, from the
 * engine's debugfs files (/sys/kernel/debug/blk_mpath/<map>/paths).
 *
 *   blk-mpath-stat [-i SECONDS] [-n COUNT] [MAP...]
 *
 * Prints one line per path: group, state, fail count, I/Os, MiB, errors by
 * class (path, target, reservation, resource, other) and
 * mean completion latency.  With -i, prints rates over each interval.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ROOT "/sys/kernel/debug/blk_mpath"
#define MAXP 256

struct pstat {
	char map[256], path[32], state[4];
	unsigned int pg, fail_count;
	unsigned long long ios, bytes, e_path, e_target, e_resv, e_res, e_other, lat;
};

static unsigned long long kv(const char *line, const char *key)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), " %s ", key);
	p = strstr(line, pat);
	return p ? strtoull(p + strlen(pat), NULL, 10) : 0;
}

/* The engine names its debugfs directory after the dm device ("253:0"). */
static void dm_name(const char *devt, char *out, size_t len)
{
	char fn[320];
	FILE *f;

	snprintf(out, len, "%s", devt);
	snprintf(fn, sizeof(fn), "/sys/dev/block/%s/dm/name", devt);
	f = fopen(fn, "r");
	if (!f)
		return;
	if (fgets(out, len, f))
		out[strcspn(out, "\n")] = 0;
	else
		snprintf(out, len, "%s", devt);
	fclose(f);
}

static int wanted(const char *dir, const char *name, int argc, char **argv)
{
	int i;

	if (argc == 0)
		return 1;
	for (i = 0; i < argc; i++)
		if (!strcmp(argv[i], dir) || !strcmp(argv[i], name))
			return 1;
	return 0;
}

static int collect(struct pstat *ps, int max, int argc, char **argv)
{
	DIR *d = opendir(ROOT);
	struct dirent *e;
	int n = 0;

	if (!d) {
		fprintf(stderr, "blk-mpath-stat: %s: %s (is debugfs mounted and blk-mpath loaded?)\n",
			ROOT, strerror(errno));
		exit(2);
	}
	while ((e = readdir(d)) && n < max) {
		char fn[512], line[1024];
		FILE *f;

		char name[256];

		if (e->d_name[0] == '.')
			continue;
		dm_name(e->d_name, name, sizeof(name));
		if (!wanted(e->d_name, name, argc, argv))
			continue;
		snprintf(fn, sizeof(fn), ROOT "/%s/paths", e->d_name);
		f = fopen(fn, "r");
		if (!f)
			continue;
		while (n < max && fgets(line, sizeof(line), f)) {
			struct pstat *p = &ps[n];
			memset(p, 0, sizeof(*p));
			snprintf(p->map, sizeof(p->map), "%s", name);
			if (sscanf(line, "%31s pg %u %3s", p->path, &p->pg, p->state) != 3)
				continue;
			p->fail_count = kv(line, "fail_count");
			p->ios = kv(line, "ios");
			p->bytes = kv(line, "bytes");
			p->e_path = kv(line, "err_path");
			p->e_target = kv(line, "err_target");
			p->e_resv = kv(line, "err_reservation");
			p->e_res = kv(line, "err_resource");
			p->e_other = kv(line, "err_other");
			p->lat = kv(line, "lat_mean_ns");
			n++;
		}
		fclose(f);
	}
	closedir(d);
	return n;
}

int main(int argc, char **argv)
{
	static struct pstat a[MAXP], b[MAXP];
	int interval = 0, count = 1, opt, n, i, k;

	while ((opt = getopt(argc, argv, "i:n:h")) != -1) {
		switch (opt) {
		case 'i': interval = atoi(optarg); count = 0; break;
		case 'n': count = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: blk-mpath-stat [-i SECONDS] [-n COUNT] [MAP...]\n");
			return opt == 'h' ? 0 : 2;
		}
	}
	argc -= optind;
	argv += optind;
	n = collect(a, MAXP, argc, argv);
	if (n == 0) {
		fprintf(stderr, "blk-mpath-stat: no blk-mpath map%s\n", argc ? " of that name" : "s");
		return 1;
	}
	if (!interval) {
		printf("%-12s %-8s %3s %2s %5s %12s %10s %7s %7s %7s %7s %7s %10s\n", "map", "path", "pg", "st",
		       "fails", "ios", "MiB", "e_path", "e_targ", "e_resv", "e_rsrc", "e_other", "lat_us");
		for (i = 0; i < n; i++)
			printf("%-12s %-8s %3u %2s %5u %12llu %10.1f %7llu %7llu %7llu %7llu %7llu %10.1f\n",
			       a[i].map, a[i].path, a[i].pg, a[i].state, a[i].fail_count, a[i].ios,
			       a[i].bytes / 1048576.0, a[i].e_path, a[i].e_target, a[i].e_resv,
			       a[i].e_res, a[i].e_other, a[i].lat / 1000.0);
		return 0;
	}
	for (k = 0; count == 0 || k < count; k++) {
		sleep(interval);
		n = collect(b, MAXP, argc, argv);
		printf("%-12s %-8s %2s %10s %10s %8s\n", "map", "path", "st", "IOPS", "MiB/s", "errors");
		for (i = 0; i < n; i++) {
			int j;

			for (j = 0; j < MAXP && j < n; j++)
				if (!strcmp(a[j].map, b[i].map) && !strcmp(a[j].path, b[i].path))
					break;
			if (j == n)
				continue;
			printf("%-12s %-8s %2s %10.0f %10.2f %8llu\n", b[i].map, b[i].path, b[i].state,
			       (double)(b[i].ios - a[j].ios) / interval,
			       (b[i].bytes - a[j].bytes) / 1048576.0 / interval,
			       (b[i].e_path + b[i].e_target + b[i].e_resv + b[i].e_other) -
			       (a[j].e_path + a[j].e_target + a[j].e_resv + a[j].e_other));
		}
		memcpy(a, b, sizeof(a));
		fflush(stdout);
	}
	return 0;
}
