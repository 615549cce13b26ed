// SPDX-License-Identifier: GPL-2.0
/*
 * blk-mpath-migrate-check: read the live multipath maps through
 * libdevmapper and say, for each, whether it can move between stock
 * dm-multipath and blk-mpath with the one-line switch (and back).
 *
 *   blk-mpath-migrate-check [-q]
 *
 * Exit status: 0 every map can move, 1 at least one cannot, 2 error.
 */
#include <libdevmapper.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const known_selectors[] = {
	"round-robin", "queue-length", "service-time", "historical-service-time", "io-affinity", NULL
};
static const char *const known_handlers[] = { "alua", "rdac", "emc", "hp_sw", NULL };

static int in_list(const char *w, const char *const *l)
{
	for (; *l; l++)
		if (!strcmp(w, *l))
			return 1;
	return 0;
}

static const char *engine_loaded(void)
{
	/* blk-mpath's target depends on the engine, under either name */
	if (access("/sys/module/blk_mpath/holders/dm_multipath", F_OK) == 0 ||
	    access("/sys/module/dm_blk_mpath", F_OK) == 0)
		return "blk-mpath";
	if (access("/sys/module/dm_multipath", F_OK) == 0)
		return "stock dm-multipath";
	return "none loaded";
}

/* Checks one multipath table line; returns 1 if it can move, reasons in why. */
static int check_params(const char *params, char *why, size_t wl)
{
	char *copy = strdup(params), *save = NULL, *tok;
	unsigned int nfeat, nhw, npg, i, j, ok = 1;
	char *words[4096];
	int n = 0, w = 0;

	why[0] = 0;
	for (tok = strtok_r(copy, " ", &save); tok && n < 4096; tok = strtok_r(NULL, " ", &save))
		words[n++] = tok;
#define NEXT() (w < n ? words[w++] : NULL)
#define NUM(v) do { const char *s_ = NEXT(); if (!s_) goto malformed; v = strtoul(s_, NULL, 10); } while (0)
	NUM(nfeat);
	for (i = 0; i < nfeat; i++) {
		const char *f = NEXT();

		if (!f)
			goto malformed;
		if (!strcmp(f, "queue_mode")) {
			const char *m = NEXT();

			i++;
			/* both engines take rq, mq and bio */
			if (!m || (strcmp(m, "bio") && strcmp(m, "rq") && strcmp(m, "mq"))) {
				snprintf(why + strlen(why), wl - strlen(why), "queue_mode %s unknown; ", m ? m : "?");
				ok = 0;
			}
		} else if (!strcmp(f, "pg_init_retries") || !strcmp(f, "pg_init_delay_msecs")) {
			NEXT();
			i++;
		}
	}
	NUM(nhw);
	if (nhw) {
		const char *h = NEXT();

		if (!h || !in_list(h, known_handlers)) {
			snprintf(why + strlen(why), wl - strlen(why), "hardware handler %s unknown; ", h ? h : "?");
			ok = 0;
		}
		for (i = 1; i < nhw; i++)
			NEXT();
	}
	NUM(npg);
	NEXT(); /* initial group */
	for (i = 0; i < npg; i++) {
		const char *sel = NEXT();
		unsigned int nsa, np, npa;

		if (!sel)
			goto malformed;
		if (!in_list(sel, known_selectors)) {
			snprintf(why + strlen(why), wl - strlen(why), "selector %s not provided by blk-mpath; ", sel);
			ok = 0;
		}
		NUM(nsa);
		for (j = 0; j < nsa; j++)
			NEXT();
		NUM(np);
		NUM(npa);
		for (j = 0; j < np * (1 + npa); j++)
			if (!NEXT())
				goto malformed;
	}
	free(copy);
	return ok;
malformed:
	snprintf(why, wl, "table not understood");
	free(copy);
	return 0;
}

int main(int argc, char **argv)
{
	struct dm_task *dmt;
	struct dm_names *names;
	unsigned int next = 0;
	int quiet = argc > 1 && !strcmp(argv[1], "-q");
	int maps = 0, movable = 0;

	printf("multipath engine: %s\n", engine_loaded());
	dmt = dm_task_create(DM_DEVICE_LIST);
	if (!dmt || !dm_task_run(dmt)) {
		fprintf(stderr, "blk-mpath-migrate-check: cannot list device-mapper devices (root? dm loaded?)\n");
		return 2;
	}
	names = dm_task_get_names(dmt);
	if (names && names->dev) {
		do {
			struct dm_task *t;
			uint64_t start, length;
			char *type = NULL, *params = NULL;
			void *it = NULL;

			names = (struct dm_names *)((char *)names + next);
			t = dm_task_create(DM_DEVICE_TABLE);
			if (!t || !dm_task_set_name(t, names->name) || !dm_task_run(t)) {
				fprintf(stderr, "%s: cannot read table\n", names->name);
				if (t)
					dm_task_destroy(t);
				next = names->next;
				continue;
			}
			do {
				char why[1024];
				int ok;

				it = dm_get_next_target(t, it, &start, &length, &type, &params);
				if (!type || strcmp(type, "multipath"))
					continue;
				maps++;
				ok = check_params(params, why, sizeof(why));
				movable += ok;
				if (ok)
					printf("%s: can move (%s)\n", names->name, "table uses only what both engines provide");
				else
					printf("%s: cannot move: %s\n", names->name, why);
				if (!quiet)
					printf("    %s\n", params);
			} while (it);
			dm_task_destroy(t);
			next = names->next;
		} while (next);
	}
	dm_task_destroy(dmt);
	printf("%d multipath map%s, %d can move\n", maps, maps == 1 ? "" : "s", movable);
	return movable == maps ? 0 : 1;
}
