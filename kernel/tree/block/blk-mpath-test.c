// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the blk-mpath engine: selectors, path and group state
 * machine, completion verdicts and error classification.  They use the
 * exported API only, with paths that have no block device (bdev == NULL:
 * the engine skips scsi_dh and queue access for them).
 */
#include <kunit/test.h>
#include <linux/blk-mpath.h>
#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/delay.h>
#include <linux/module.h>
#include <scsi/scsi_proto.h>
#include <scsi/scsi_status.h>

#define MAX_PATHS 4
#define MAX_PGS 3

struct test_owner {
	atomic_t failed;
	atomic_t reinstated;
	atomic_t kicks;
	atomic_t changed;
	unsigned int last_nr_valid;
	/* path events seen without the engine lock held */
	atomic_t unlocked_events;
	struct blk_mpath **m;
};

static void t_path_event(void *owner, enum blk_mpath_event ev,
			 struct blk_mpath_path *path, unsigned int nr_valid)
{
	struct test_owner *o = owner;

	if (ev == BLK_MPATH_EV_PATH_FAILED)
		atomic_inc(&o->failed);
	else if (ev == BLK_MPATH_EV_PATH_REINSTATED)
		atomic_inc(&o->reinstated);
	WRITE_ONCE(o->last_nr_valid, nr_valid);
	/*
	 * The contract: events are sent in order, under m->lock.  Lockdep
	 * knows who holds it; without lockdep, the lock must at least be
	 * held (by anyone: a concurrent holder can hide a miss, never make
	 * one up).
	 */
	if (o->m && *o->m &&
	    !(IS_ENABLED(CONFIG_LOCKDEP) ? lockdep_is_held(&(*o->m)->lock) :
					    spin_is_locked(&(*o->m)->lock)))
		atomic_inc(&o->unlocked_events);
}

static void t_state_changed(void *owner)
{
	struct test_owner *o = owner;

	atomic_inc(&o->changed);
}

static void t_kick(void *owner)
{
	struct test_owner *o = owner;

	atomic_inc(&o->kicks);
}

static const struct blk_mpath_ops t_ops = {
	.path_event	= t_path_event,
	.state_changed	= t_state_changed,
	.kick		= t_kick,
};

/* one path's counters, summed over CPUs */
static struct blk_mpath_path_counters ctrs(struct blk_mpath_path *p)
{
	struct blk_mpath_path_counters c;

	blk_mpath_path_counters(p, &c);
	return c;
}

struct tmp {
	struct kunit *test;
	struct blk_mpath *m;
	struct blk_mpath_pg *pg[MAX_PGS];
	struct blk_mpath_path *p[MAX_PGS][MAX_PATHS];
	struct test_owner o;
};

static void default_cfg(struct blk_mpath_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->pg_init_delay_msecs = BLK_MPATH_PG_INIT_DELAY_DEFAULT;
}

/* Builds npg groups of npaths paths named "8:<16 * pg + path>". */
static struct tmp *build(struct kunit *test, const struct blk_mpath_config *cfg,
			 const char *sel, unsigned int npg,
			 unsigned int npaths, bool start)
{
	struct tmp *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	char *err = NULL;
	unsigned int i, j;
	char name[16];

	KUNIT_ASSERT_NOT_NULL(test, t);
	t->test = test;
	t->o.m = &t->m;
	t->m = blk_mpath_create("kunit", cfg, &t_ops, &t->o, &err);
	KUNIT_ASSERT_FALSE(test, IS_ERR(t->m));
	for (i = 0; i < npg; i++) {
		t->pg[i] = blk_mpath_add_pg(t->m, sel, 0, NULL, &err);
		KUNIT_ASSERT_FALSE(test, IS_ERR(t->pg[i]));
		KUNIT_EXPECT_EQ(test, t->pg[i]->pg_num, i + 1);
		for (j = 0; j < npaths; j++) {
			snprintf(name, sizeof(name), "8:%u", 16 * i + j);
			t->p[i][j] = blk_mpath_add_path(t->pg[i], NULL, name,
							0, NULL, &err);
			KUNIT_ASSERT_FALSE(test, IS_ERR(t->p[i][j]));
		}
	}
	if (start)
		KUNIT_ASSERT_EQ(test, blk_mpath_start(t->m, &err), 0);
	return t;
}

static struct tmp *build_default(struct kunit *test, const char *sel,
				 unsigned int npg, unsigned int npaths)
{
	struct blk_mpath_config cfg;

	default_cfg(&cfg);
	return build(test, &cfg, sel, npg, npaths, true);
}

static void teardown(struct tmp *t)
{
	KUNIT_EXPECT_EQ(t->test, atomic_read(&t->o.unlocked_events), 0);
	blk_mpath_destroy(t->m);
	t->m = NULL;
}

/* Splits a space-separated string into a test-managed argv. */
static char **targs(struct kunit *test, const char *str, unsigned int *argc)
{
	char **argv = kunit_kcalloc(test, 8, sizeof(char *), GFP_KERNEL);
	char *s = kunit_kzalloc(test, strlen(str) + 1, GFP_KERNEL);
	char *tok;

	KUNIT_ASSERT_NOT_NULL(test, argv);
	KUNIT_ASSERT_NOT_NULL(test, s);
	strscpy(s, str, strlen(str) + 1);
	*argc = 0;
	while ((tok = strsep(&s, " ")) && *argc < 8) {
		if (*tok)
			argv[(*argc)++] = tok;
	}
	return argv;
}

/* Emits a selector's status into buf. */
static const char *ps_status(struct blk_mpath_pg *pg, struct blk_mpath_path *p,
			     enum blk_mpath_status_type type, char *buf,
			     unsigned int len)
{
	int sz;

	buf[0] = '\0';
	sz = pg->ps.type->status(&pg->ps, p, type, buf, len);
	buf[min_t(unsigned int, sz, len - 1)] = '\0';
	return buf;
}

/* ---- selectors ------------------------------------------------------------ */

static void ps_unknown(struct kunit *test)
{
	struct blk_mpath_config cfg;
	struct blk_mpath_pg *pg;
	struct blk_mpath *m;
	char *err = NULL;
	struct test_owner o = {};

	default_cfg(&cfg);
	m = blk_mpath_create("kunit", &cfg, &t_ops, &o, &err);
	KUNIT_ASSERT_FALSE(test, IS_ERR(m));
	pg = blk_mpath_add_pg(m, "no-such-selector", 0, NULL, &err);
	KUNIT_EXPECT_EQ(test, PTR_ERR(pg), -EINVAL);
	KUNIT_EXPECT_STREQ(test, err, "unknown path selector type");
	KUNIT_EXPECT_NULL(test, blk_mpath_selector_get("no-such-selector"));
	KUNIT_EXPECT_NOT_NULL(test, blk_mpath_selector_get("round-robin"));
	KUNIT_EXPECT_NOT_NULL(test, blk_mpath_selector_get("queue-length"));
	KUNIT_EXPECT_NOT_NULL(test, blk_mpath_selector_get("service-time"));
	KUNIT_EXPECT_NOT_NULL(test,
			      blk_mpath_selector_get("historical-service-time"));
	KUNIT_EXPECT_NOT_NULL(test, blk_mpath_selector_get("io-affinity"));
	blk_mpath_destroy(m);
}

/* The turns are per CPU (blk-mpath-ps.c, path sets): no migration. */
static void ps_rr_order(struct kunit *test)
{
	struct tmp *t = build_default(test, "round-robin", 1, 3);
	struct blk_mpath_path **p = t->p[0];
	char buf[64];
	int i;

	migrate_disable();
	for (i = 0; i < 6; i++)
		KUNIT_EXPECT_PTR_EQ(test, blk_mpath_choose_path(t->m, 512),
				    p[i % 3]);

	KUNIT_EXPECT_EQ(test, blk_mpath_fail_path(t->m, p[1]), 0);
	for (i = 0; i < 4; i++)
		KUNIT_EXPECT_PTR_EQ(test, blk_mpath_choose_path(t->m, 512),
				    p[(i % 2) * 2]);

	/* back in its turn (stock puts it at the head: p1, p0, p2) */
	KUNIT_EXPECT_EQ(test, blk_mpath_reinstate_path(t->m, p[1]), 0);
	for (i = 0; i < 6; i++)
		KUNIT_EXPECT_PTR_EQ(test, blk_mpath_choose_path(t->m, 512),
				    p[i % 3]);
	migrate_enable();

	KUNIT_EXPECT_STREQ(test, ps_status(t->pg[0], NULL,
					   BLK_MPATH_STATUS_TABLE, buf,
					   sizeof(buf)), "0 ");
	KUNIT_EXPECT_STREQ(test, ps_status(t->pg[0], p[0],
					   BLK_MPATH_STATUS_TABLE, buf,
					   sizeof(buf)), "1 ");
	KUNIT_EXPECT_STREQ(test, ps_status(t->pg[0], p[0],
					   BLK_MPATH_STATUS_INFO, buf,
					   sizeof(buf)), "");
	KUNIT_EXPECT_EQ(test, t->pg[0]->ps.type->table_args, 1U);
	KUNIT_EXPECT_EQ(test, t->pg[0]->ps.type->info_args, 0U);
	teardown(t);
}

/* Adds one path with args to a fresh group of selector sel. */
static int add_one(struct kunit *test, const char *sel, const char *pargs,
		   char **err, char *table, char *info)
{
	unsigned int pargc;
	char **pargv = targs(test, pargs, &pargc);
	struct blk_mpath_config cfg;
	struct blk_mpath_path *p;
	struct blk_mpath_pg *pg;
	struct blk_mpath *m;
	struct test_owner o = {};
	int r = 0;

	default_cfg(&cfg);
	m = blk_mpath_create("kunit", &cfg, &t_ops, &o, err);
	KUNIT_ASSERT_FALSE(test, IS_ERR(m));
	pg = blk_mpath_add_pg(m, sel, 0, NULL, err);
	KUNIT_ASSERT_FALSE(test, IS_ERR(pg));
	p = blk_mpath_add_path(pg, NULL, "8:0", pargc, pargv, err);
	if (IS_ERR(p)) {
		r = PTR_ERR(p);
	} else {
		if (table)
			ps_status(pg, p, BLK_MPATH_STATUS_TABLE, table, 64);
		if (info)
			ps_status(pg, p, BLK_MPATH_STATUS_INFO, info, 64);
	}
	blk_mpath_destroy(m);
	return r;
}

static void ps_args(struct kunit *test)
{
	char table[64], info[64];
	char *err = NULL;

	/* round-robin */
	KUNIT_EXPECT_EQ(test, add_one(test, "round-robin", "", &err,
				      table, info), 0);
	KUNIT_EXPECT_STREQ(test, table, "1 ");
	KUNIT_EXPECT_EQ(test, add_one(test, "round-robin", "2", &err,
				      table, NULL), 0);
	KUNIT_EXPECT_STREQ(test, table, "1 ");	/* forced to 1 as stock */
	KUNIT_EXPECT_EQ(test, add_one(test, "round-robin", "x", &err,
				      NULL, NULL), -EINVAL);
	KUNIT_EXPECT_STREQ(test, err, "round-robin ps: invalid repeat count");
	KUNIT_EXPECT_EQ(test, add_one(test, "round-robin", "1y", &err,
				      NULL, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, add_one(test, "round-robin", "1 1", &err,
				      NULL, NULL), -EINVAL);
	KUNIT_EXPECT_STREQ(test, err,
			   "round-robin ps: incorrect number of arguments");

	/* queue-length */
	KUNIT_EXPECT_EQ(test, add_one(test, "queue-length", "1", &err,
				      table, info), 0);
	KUNIT_EXPECT_STREQ(test, table, "1 ");
	KUNIT_EXPECT_STREQ(test, info, "0 ");
	KUNIT_EXPECT_EQ(test, add_one(test, "queue-length", "x", &err,
				      NULL, NULL), -EINVAL);
	KUNIT_EXPECT_STREQ(test, err, "queue-length ps: invalid repeat count");
	KUNIT_EXPECT_EQ(test, add_one(test, "queue-length", "1 1", &err,
				      NULL, NULL), -EINVAL);
	KUNIT_EXPECT_STREQ(test, err,
			   "queue-length ps: incorrect number of arguments");

	/* service-time */
	KUNIT_EXPECT_EQ(test, add_one(test, "service-time", "", &err,
				      table, info), 0);
	KUNIT_EXPECT_STREQ(test, table, "1 1 ");
	KUNIT_EXPECT_STREQ(test, info, "0 1 ");
	KUNIT_EXPECT_EQ(test, add_one(test, "service-time", "1 50", &err,
				      table, info), 0);
	KUNIT_EXPECT_STREQ(test, table, "1 50 ");
	KUNIT_EXPECT_STREQ(test, info, "0 50 ");
	KUNIT_EXPECT_EQ(test, add_one(test, "service-time", "0 100", &err,
				      table, NULL), 0);
	KUNIT_EXPECT_STREQ(test, table, "0 100 ");
	KUNIT_EXPECT_EQ(test, add_one(test, "service-time", "1 101", &err,
				      NULL, NULL), -EINVAL);
	KUNIT_EXPECT_STREQ(test, err,
			   "service-time ps: invalid relative_throughput value");
	KUNIT_EXPECT_EQ(test, add_one(test, "service-time", "x", &err,
				      NULL, NULL), -EINVAL);
	KUNIT_EXPECT_STREQ(test, err, "service-time ps: invalid repeat count");
	KUNIT_EXPECT_EQ(test, add_one(test, "service-time", "1 1 1", &err,
				      NULL, NULL), -EINVAL);
	KUNIT_EXPECT_STREQ(test, err,
			   "service-time ps: incorrect number of arguments");

	/* historical-service-time: repeat count kept as given */
	KUNIT_EXPECT_EQ(test, add_one(test, "historical-service-time", "2",
				      &err, table, info), 0);
	KUNIT_EXPECT_STREQ(test, table, "0 ");
	KUNIT_EXPECT_STREQ(test, info, "1024 0 0 ");
	KUNIT_EXPECT_EQ(test, add_one(test, "historical-service-time", "x",
				      &err, NULL, NULL), -EINVAL);
	KUNIT_EXPECT_STREQ(test, err,
			   "historical-service-time ps: invalid repeat count");
	KUNIT_EXPECT_EQ(test, add_one(test, "historical-service-time", "1 1",
				      &err, NULL, NULL), -EINVAL);
	KUNIT_EXPECT_STREQ(test, err,
			   "historical-service-time ps: incorrect number of arguments");

	/* io-affinity */
	KUNIT_EXPECT_EQ(test, add_one(test, "io-affinity", "1", &err,
				      table, info), 0);
	KUNIT_EXPECT_STREQ(test, table, "1 ");
	KUNIT_EXPECT_STREQ(test, info, "0 ");
	KUNIT_EXPECT_EQ(test, add_one(test, "io-affinity", "", &err,
				      NULL, NULL), -EINVAL);
	KUNIT_EXPECT_STREQ(test, err,
			   "io-affinity ps: invalid number of arguments");
	KUNIT_EXPECT_EQ(test, add_one(test, "io-affinity", "x", &err,
				      NULL, NULL), -EINVAL);
	KUNIT_EXPECT_STREQ(test, err, "io-affinity ps: invalid cpumask");
	KUNIT_EXPECT_EQ(test, add_one(test, "io-affinity", "0",
				      &err, NULL, NULL), -EINVAL);
	KUNIT_EXPECT_STREQ(test, err,
			   "io-affinity ps: No new/valid CPU mapping found");
}

static void ps_group_args(struct kunit *test)
{
	unsigned int argc;
	char **argv;
	struct blk_mpath_config cfg;
	struct test_owner o = {};
	struct blk_mpath_pg *pg;
	struct blk_mpath *m;
	char *err = NULL;
	char buf[64];

	default_cfg(&cfg);
	m = blk_mpath_create("kunit", &cfg, &t_ops, &o, &err);
	KUNIT_ASSERT_FALSE(test, IS_ERR(m));

	pg = blk_mpath_add_pg(m, "historical-service-time", 0, NULL, &err);
	KUNIT_ASSERT_FALSE(test, IS_ERR(pg));
	KUNIT_EXPECT_STREQ(test, ps_status(pg, NULL, BLK_MPATH_STATUS_TABLE,
					   buf, sizeof(buf)), "2 972 0 ");
	argv = targs(test, "512 3", &argc);
	pg = blk_mpath_add_pg(m, "historical-service-time", argc, argv, &err);
	KUNIT_ASSERT_FALSE(test, IS_ERR(pg));
	KUNIT_EXPECT_STREQ(test, ps_status(pg, NULL, BLK_MPATH_STATUS_INFO,
					   buf, sizeof(buf)), "2 512 3 ");
	argv = targs(test, "1024", &argc);
	pg = blk_mpath_add_pg(m, "historical-service-time", argc, argv, &err);
	KUNIT_EXPECT_TRUE(test, IS_ERR(pg));
	KUNIT_EXPECT_STREQ(test, err, "path selector constructor failed");
	KUNIT_EXPECT_EQ(test, m->nr_pgs, 2U);

	/* status output is truncated like DMEMIT, never overflows */
	pg = list_first_entry(&m->pgs, struct blk_mpath_pg, list);
	memset(buf, 'x', sizeof(buf));
	pg->ps.type->status(&pg->ps, NULL, BLK_MPATH_STATUS_TABLE, buf, 4);
	KUNIT_EXPECT_EQ(test, buf[3], '\0');
	KUNIT_EXPECT_EQ(test, buf[4], 'x');
	blk_mpath_destroy(m);
}

static void ps_ql_st_select(struct kunit *test)
{
	struct tmp *t = build_default(test, "queue-length", 1, 2);
	struct blk_mpath_selector *ps = &t->pg[0]->ps;
	struct blk_mpath_path **p = t->p[0];
	char buf[64];

	ps->type->start_io(ps, p[0], 4096);
	ps->type->start_io(ps, p[0], 4096);
	KUNIT_EXPECT_PTR_EQ(test, blk_mpath_choose_path(t->m, 4096), p[1]);
	ps->type->start_io(ps, p[1], 4096);
	KUNIT_EXPECT_PTR_EQ(test, blk_mpath_choose_path(t->m, 4096), p[1]);
	KUNIT_EXPECT_STREQ(test, ps_status(t->pg[0], p[0],
					   BLK_MPATH_STATUS_INFO, buf,
					   sizeof(buf)), "2 ");
	ps->type->end_io(ps, p[0], 4096, 0);
	ps->type->end_io(ps, p[0], 4096, 0);
	ps->type->end_io(ps, p[1], 4096, 0);
	teardown(t);

	t = build_default(test, "service-time", 1, 2);
	ps = &t->pg[0]->ps;
	p = t->p[0];
	ps->type->start_io(ps, p[0], 65536);
	KUNIT_EXPECT_PTR_EQ(test, blk_mpath_choose_path(t->m, 4096), p[1]);
	ps->type->start_io(ps, p[1], 4096);
	KUNIT_EXPECT_PTR_EQ(test, blk_mpath_choose_path(t->m, 4096), p[1]);
	KUNIT_EXPECT_STREQ(test, ps_status(t->pg[0], p[0],
					   BLK_MPATH_STATUS_INFO, buf,
					   sizeof(buf)), "65536 1 ");
	ps->type->end_io(ps, p[0], 65536, 0);
	ps->type->end_io(ps, p[1], 4096, 0);
	KUNIT_EXPECT_STREQ(test, ps_status(t->pg[0], p[0],
					   BLK_MPATH_STATUS_INFO, buf,
					   sizeof(buf)), "0 1 ");
	teardown(t);
}

/*
 * queue-length, service-time: paths of equal load take turns (stock moves
 * the chosen path to the tail of its list; here each CPU scans from the
 * slot after its last choice, hence no migration), failed paths are skipped.
 * A reinstated path keeps its slot, so the last turns differ from stock's,
 * which puts it at the tail (p2 would come first there).
 */
static void ps_equal_load(struct kunit *test)
{
	static const char * const sels[] = { "queue-length", "service-time" };
	struct blk_mpath_path **p;
	struct tmp *t;
	int i, k;

	for (k = 0; k < ARRAY_SIZE(sels); k++) {
		t = build_default(test, sels[k], 1, 3);
		p = t->p[0];
		migrate_disable();
		for (i = 0; i < 6; i++)
			KUNIT_EXPECT_PTR_EQ(test,
					    blk_mpath_choose_path(t->m, 4096),
					    p[i % 3]);
		KUNIT_EXPECT_EQ(test, blk_mpath_fail_path(t->m, p[1]), 0);
		for (i = 0; i < 4; i++)
			KUNIT_EXPECT_PTR_EQ(test,
					    blk_mpath_choose_path(t->m, 4096),
					    p[(i % 2) * 2]);
		KUNIT_EXPECT_EQ(test, blk_mpath_fail_path(t->m, p[0]), 0);
		for (i = 0; i < 3; i++)
			KUNIT_EXPECT_PTR_EQ(test,
					    blk_mpath_choose_path(t->m, 4096),
					    p[2]);
		KUNIT_EXPECT_EQ(test, blk_mpath_reinstate_path(t->m, p[1]), 0);
		for (i = 0; i < 4; i++)
			KUNIT_EXPECT_PTR_EQ(test,
					    blk_mpath_choose_path(t->m, 4096),
					    p[1 + i % 2]);
		migrate_enable();
		teardown(t);
	}
}

static void ps_hst_select(struct kunit *test)
{
	struct tmp *t = build_default(test, "historical-service-time", 1, 2);
	struct blk_mpath_selector *ps = &t->pg[0]->ps;
	struct blk_mpath_path **p = t->p[0];
	struct blk_mpath_path *c;
	int i, n0 = 0, n1 = 0;
	char buf[80];

	/* both idle and fresh: selections alternate, none is starved */
	for (i = 0; i < 4; i++) {
		c = blk_mpath_choose_path(t->m, 4096);
		if (c == p[0])
			n0++;
		else if (c == p[1])
			n1++;
	}
	KUNIT_EXPECT_EQ(test, n0 + n1, 4);
	KUNIT_EXPECT_GT(test, n0, 0);
	KUNIT_EXPECT_GT(test, n1, 0);

	/* outstanding I/O shows in the status; completion updates it */
	ps->type->start_io(ps, p[0], 4096);
	KUNIT_EXPECT_STREQ(test, ps_status(t->pg[0], p[0],
					   BLK_MPATH_STATUS_INFO, buf,
					   sizeof(buf)), "1024 1 0 ");
	ps->type->end_io(ps, p[0], 4096, ktime_get_ns());
	ps_status(t->pg[0], p[0], BLK_MPATH_STATUS_INFO, buf, sizeof(buf));
	KUNIT_EXPECT_NE(test, strncmp(buf, "1024 0 0 ", 9), 0);
	KUNIT_EXPECT_NOT_NULL(test, strstr(buf, " 0 "));

	blk_mpath_fail_path(t->m, p[1]);
	KUNIT_EXPECT_PTR_EQ(test, blk_mpath_choose_path(t->m, 4096), p[0]);
	teardown(t);
}

static void ps_ioa_select(struct kunit *test)
{
	struct blk_mpath_config cfg;
	unsigned int argc;
	char **a1 = targs(test, "1", &argc);
	struct test_owner o = {};
	struct blk_mpath_path *p;
	struct blk_mpath_pg *pg;
	struct blk_mpath *m;
	char *err = NULL;

	default_cfg(&cfg);
	m = blk_mpath_create("kunit", &cfg, &t_ops, &o, &err);
	KUNIT_ASSERT_FALSE(test, IS_ERR(m));
	pg = blk_mpath_add_pg(m, "io-affinity", 0, NULL, &err);
	KUNIT_ASSERT_FALSE(test, IS_ERR(pg));
	p = blk_mpath_add_path(pg, NULL, "8:0", 1, a1, &err);
	KUNIT_ASSERT_FALSE(test, IS_ERR(p));
	/* CPU 0 already mapped in this group */
	KUNIT_EXPECT_TRUE(test, IS_ERR(blk_mpath_add_path(pg, NULL, "8:16", 1,
							  a1, &err)));
	KUNIT_EXPECT_STREQ(test, err,
			   "io-affinity ps: No new/valid CPU mapping found");
	KUNIT_ASSERT_EQ(test, blk_mpath_start(m, &err), 0);

	KUNIT_EXPECT_PTR_EQ(test, blk_mpath_choose_path(m, 512), p);
	blk_mpath_fail_path(m, p);
	KUNIT_EXPECT_NULL(test, blk_mpath_choose_path(m, 512));
	blk_mpath_reinstate_path(m, p);
	KUNIT_EXPECT_PTR_EQ(test, blk_mpath_choose_path(m, 512), p);
	blk_mpath_destroy(m);
}

static struct kunit_case blk_mpath_ps_cases[] = {
	KUNIT_CASE(ps_unknown),
	KUNIT_CASE(ps_rr_order),
	KUNIT_CASE(ps_args),
	KUNIT_CASE(ps_group_args),
	KUNIT_CASE(ps_ql_st_select),
	KUNIT_CASE(ps_equal_load),
	KUNIT_CASE(ps_hst_select),
	KUNIT_CASE(ps_ioa_select),
	{}
};

static struct kunit_suite blk_mpath_ps_suite = {
	.name = "blk-mpath-selectors",
	.test_cases = blk_mpath_ps_cases,
};

/* ---- path / group state machine -------------------------------------------- */

static char pg_states(struct tmp *t, unsigned int i)
{
	unsigned long flags;
	char c;

	blk_mpath_lock(t->m, &flags);
	c = blk_mpath_pg_state(t->m, t->pg[i]);
	blk_mpath_unlock(t->m, flags);
	return c;
}

static unsigned int status_pg(struct tmp *t)
{
	unsigned long flags;
	unsigned int n;

	blk_mpath_lock(t->m, &flags);
	n = blk_mpath_status_pg_num(t->m);
	blk_mpath_unlock(t->m, flags);
	return n;
}

static void sm_fail_reinstate(struct kunit *test)
{
	struct tmp *t = build_default(test, "round-robin", 1, 2);
	struct blk_mpath_path **p = t->p[0];

	KUNIT_EXPECT_EQ(test, atomic_read(&t->m->nr_valid_paths), 2);
	KUNIT_EXPECT_TRUE(test, p[0]->is_active);

	blk_mpath_fail_path(t->m, p[0]);
	blk_mpath_fail_path(t->m, p[0]);	/* no-op: already failed */
	KUNIT_EXPECT_FALSE(test, p[0]->is_active);
	KUNIT_EXPECT_EQ(test, p[0]->fail_count, 1U);
	KUNIT_EXPECT_EQ(test, atomic_read(&t->m->nr_valid_paths), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&t->o.failed), 1);
	KUNIT_EXPECT_EQ(test, t->o.last_nr_valid, 1U);

	blk_mpath_reinstate_path(t->m, p[0]);
	blk_mpath_reinstate_path(t->m, p[0]);	/* no-op */
	KUNIT_EXPECT_TRUE(test, p[0]->is_active);
	KUNIT_EXPECT_EQ(test, p[0]->fail_count, 1U);
	KUNIT_EXPECT_EQ(test, atomic_read(&t->m->nr_valid_paths), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&t->o.reinstated), 1);
	KUNIT_EXPECT_EQ(test, t->o.last_nr_valid, 2U);

	blk_mpath_fail_path(t->m, p[0]);
	KUNIT_EXPECT_EQ(test, p[0]->fail_count, 2U);

	/* state_changed comes from process context, after the work ran */
	blk_mpath_flush(t->m);
	KUNIT_EXPECT_GE(test, atomic_read(&t->o.changed), 1);

	KUNIT_EXPECT_PTR_EQ(test, blk_mpath_find_path(t->m, "8:1"), p[1]);
	KUNIT_EXPECT_NULL(test, blk_mpath_find_path(t->m, "8:99"));
	KUNIT_EXPECT_EQ(test, blk_mpath_fail_path(t->m, NULL), -EINVAL);
	teardown(t);
}

static void sm_failover_failback(struct kunit *test)
{
	struct tmp *t = build_default(test, "round-robin", 3, 1);

	KUNIT_EXPECT_EQ(test, status_pg(t), 1U);
	KUNIT_EXPECT_EQ(test, pg_states(t, 0), 'E');
	KUNIT_EXPECT_PTR_EQ(test, blk_mpath_choose_path(t->m, 512), t->p[0][0]);
	KUNIT_EXPECT_EQ(test, pg_states(t, 0), 'A');
	KUNIT_EXPECT_EQ(test, pg_states(t, 1), 'E');

	/* current group loses its path: next usable group */
	blk_mpath_fail_path(t->m, t->p[0][0]);
	KUNIT_EXPECT_PTR_EQ(test, blk_mpath_choose_path(t->m, 512), t->p[1][0]);
	KUNIT_EXPECT_EQ(test, pg_states(t, 1), 'A');
	KUNIT_EXPECT_EQ(test, status_pg(t), 2U);

	/* reinstating does not switch back by itself (stock) */
	blk_mpath_reinstate_path(t->m, t->p[0][0]);
	KUNIT_EXPECT_PTR_EQ(test, blk_mpath_choose_path(t->m, 512), t->p[1][0]);

	/* switch_group to 3, then 3 fails: back to the first usable group */
	KUNIT_EXPECT_EQ(test, blk_mpath_switch_pg(t->m, 3), 0);
	KUNIT_EXPECT_EQ(test, status_pg(t), 3U);
	KUNIT_EXPECT_PTR_EQ(test, blk_mpath_choose_path(t->m, 512), t->p[2][0]);
	KUNIT_EXPECT_NULL(test, t->m->next_pg);
	blk_mpath_fail_path(t->m, t->p[2][0]);
	KUNIT_EXPECT_PTR_EQ(test, blk_mpath_choose_path(t->m, 512), t->p[0][0]);
	KUNIT_EXPECT_EQ(test, status_pg(t), 1U);

	KUNIT_EXPECT_EQ(test, blk_mpath_switch_pg(t->m, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, blk_mpath_switch_pg(t->m, 4), -EINVAL);
	teardown(t);
}

static void sm_bypass(struct kunit *test)
{
	struct tmp *t = build_default(test, "round-robin", 2, 1);

	KUNIT_EXPECT_EQ(test, blk_mpath_bypass_pg(t->m, 1, true), 0);
	KUNIT_EXPECT_EQ(test, pg_states(t, 0), 'D');
	KUNIT_EXPECT_PTR_EQ(test, blk_mpath_choose_path(t->m, 512), t->p[1][0]);
	KUNIT_EXPECT_EQ(test, pg_states(t, 1), 'A');

	/* bypassed groups are used only when nothing else is left */
	blk_mpath_fail_path(t->m, t->p[1][0]);
	KUNIT_EXPECT_PTR_EQ(test, blk_mpath_choose_path(t->m, 512), t->p[0][0]);
	KUNIT_EXPECT_TRUE(test, test_bit(BLK_MPATHF_PG_INIT_DELAY_RETRY,
					 &t->m->flags));
	KUNIT_EXPECT_EQ(test, pg_states(t, 0), 'D');

	KUNIT_EXPECT_EQ(test, blk_mpath_bypass_pg(t->m, 1, false), 0);
	KUNIT_EXPECT_EQ(test, pg_states(t, 0), 'E');
	KUNIT_EXPECT_PTR_EQ(test, blk_mpath_choose_path(t->m, 512), t->p[0][0]);
	KUNIT_EXPECT_EQ(test, pg_states(t, 0), 'A');

	/* switch_group clears bypassed on every group */
	blk_mpath_bypass_pg(t->m, 2, true);
	KUNIT_EXPECT_EQ(test, pg_states(t, 1), 'D');
	blk_mpath_switch_pg(t->m, 1);
	KUNIT_EXPECT_EQ(test, pg_states(t, 1), 'E');

	KUNIT_EXPECT_EQ(test, blk_mpath_bypass_pg(t->m, 3, true), -EINVAL);
	KUNIT_EXPECT_EQ(test, blk_mpath_bypass_pg(t->m, 0, false), -EINVAL);
	teardown(t);
}

static void sm_initial_pg(struct kunit *test)
{
	struct blk_mpath_config cfg;
	struct tmp *t;
	char *err = NULL;

	default_cfg(&cfg);
	cfg.initial_pg_num = 2;
	t = build(test, &cfg, "round-robin", 2, 1, true);
	KUNIT_EXPECT_EQ(test, status_pg(t), 2U);
	KUNIT_EXPECT_PTR_EQ(test, blk_mpath_choose_path(t->m, 512), t->p[1][0]);
	teardown(t);

	cfg.initial_pg_num = 3;
	t = build(test, &cfg, "round-robin", 2, 1, false);
	KUNIT_EXPECT_EQ(test, blk_mpath_start(t->m, &err), -EINVAL);
	KUNIT_EXPECT_STREQ(test, err, "invalid initial priority group");
	teardown(t);

	cfg.initial_pg_num = 0;
	t = build(test, &cfg, "round-robin", 0, 0, true);
	KUNIT_EXPECT_EQ(test, status_pg(t), 0U);
	KUNIT_EXPECT_NULL(test, blk_mpath_choose_path(t->m, 512));
	teardown(t);
}

static void sm_no_path(struct kunit *test)
{
	struct tmp *t = build_default(test, "round-robin", 2, 1);
	struct block_device *bdev;

	blk_mpath_fail_path(t->m, t->p[0][0]);
	blk_mpath_fail_path(t->m, t->p[1][0]);
	KUNIT_EXPECT_EQ(test, atomic_read(&t->m->nr_valid_paths), 0);
	KUNIT_EXPECT_NULL(test, blk_mpath_choose_path(t->m, 512));
	KUNIT_EXPECT_EQ(test, blk_mpath_prepare_ioctl(t->m, &bdev), -EIO);
	KUNIT_EXPECT_FALSE(test, blk_mpath_busy(t->m));

	blk_mpath_set_queueing(t->m, true, BLK_MPATH_QUEUEING_MESSAGE);
	KUNIT_EXPECT_TRUE(test, blk_mpath_queue_if_no_path(t->m));
	KUNIT_EXPECT_EQ(test, blk_mpath_prepare_ioctl(t->m, &bdev), -ENOTCONN);

	/* the first reinstated path kicks held I/O */
	atomic_set(&t->o.kicks, 0);
	blk_mpath_reinstate_path(t->m, t->p[1][0]);
	KUNIT_EXPECT_GE(test, atomic_read(&t->o.kicks), 1);
	KUNIT_EXPECT_EQ(test, blk_mpath_prepare_ioctl(t->m, &bdev), 0);
	KUNIT_EXPECT_NULL(test, bdev);
	teardown(t);
}

static void sm_queueing_save_restore(struct kunit *test)
{
	struct blk_mpath_config cfg;
	struct tmp *t;

	default_cfg(&cfg);
	cfg.queue_if_no_path = true;
	t = build(test, &cfg, "round-robin", 1, 1, true);
	KUNIT_EXPECT_TRUE(test, blk_mpath_queue_if_no_path(t->m));

	/* presuspend (flush): off, saved */
	atomic_set(&t->o.kicks, 0);
	blk_mpath_set_queueing(t->m, false, BLK_MPATH_QUEUEING_SAVE_OLD);
	KUNIT_EXPECT_FALSE(test, blk_mpath_queue_if_no_path(t->m));
	KUNIT_EXPECT_TRUE(test, test_bit(BLK_MPATHF_SAVED_QUEUE_IF_NO_PATH,
					 &t->m->flags));
	KUNIT_EXPECT_GE(test, atomic_read(&t->o.kicks), 1);
	/* resume */
	blk_mpath_restore_queueing(t->m);
	KUNIT_EXPECT_TRUE(test, blk_mpath_queue_if_no_path(t->m));
	KUNIT_EXPECT_FALSE(test, test_bit(BLK_MPATHF_SAVED_QUEUE_IF_NO_PATH,
					  &t->m->flags));

	/* fail_if_no_path while suspended wins over the saved value */
	blk_mpath_set_queueing(t->m, false, BLK_MPATH_QUEUEING_SAVE_OLD);
	blk_mpath_set_queueing(t->m, false, BLK_MPATH_QUEUEING_MESSAGE);
	blk_mpath_restore_queueing(t->m);
	KUNIT_EXPECT_FALSE(test, blk_mpath_queue_if_no_path(t->m));
	teardown(t);
}

/* waits up to 5 s for the no-path timer to turn queueing off */
static bool nopath_timer_fired(struct tmp *t)
{
	int i;

	for (i = 0; i < 50 && blk_mpath_queue_if_no_path(t->m); i++)
		msleep(100);
	return !blk_mpath_queue_if_no_path(t->m);
}

static void sm_no_path_timeout(struct kunit *test)
{
	struct blk_mpath_config cfg;
	struct tmp *t;

	default_cfg(&cfg);
	cfg.queue_if_no_path = true;
	cfg.no_path_timeout_secs = 1;
	t = build(test, &cfg, "round-robin", 1, 1, true);
	KUNIT_EXPECT_FALSE(test, timer_pending(&t->m->nopath_timer));
	blk_mpath_fail_path(t->m, t->p[0][0]);
	KUNIT_EXPECT_TRUE(test, blk_mpath_queue_if_no_path(t->m));
	KUNIT_EXPECT_TRUE(test, timer_pending(&t->m->nopath_timer));
	KUNIT_EXPECT_TRUE(test, nopath_timer_fired(t));
	KUNIT_EXPECT_GE(test, atomic_read(&t->o.kicks), 1);

	/* all paths down, fail mode, then the queue_if_no_path message */
	blk_mpath_set_queueing(t->m, true, BLK_MPATH_QUEUEING_MESSAGE);
	KUNIT_EXPECT_TRUE(test, blk_mpath_queue_if_no_path(t->m));
	KUNIT_EXPECT_TRUE(test, timer_pending(&t->m->nopath_timer));
	KUNIT_EXPECT_TRUE(test, nopath_timer_fired(t));

	/* armed, fail_if_no_path (disarms), queue again (re-armed) */
	blk_mpath_set_queueing(t->m, true, BLK_MPATH_QUEUEING_MESSAGE);
	KUNIT_EXPECT_TRUE(test, timer_pending(&t->m->nopath_timer));
	blk_mpath_set_queueing(t->m, false, BLK_MPATH_QUEUEING_MESSAGE);
	KUNIT_EXPECT_FALSE(test, timer_pending(&t->m->nopath_timer));
	blk_mpath_set_queueing(t->m, true, BLK_MPATH_QUEUEING_MESSAGE);
	KUNIT_EXPECT_TRUE(test, timer_pending(&t->m->nopath_timer));
	KUNIT_EXPECT_TRUE(test, nopath_timer_fired(t));

	/* a path back disarms it; the message with a path left does not arm */
	blk_mpath_set_queueing(t->m, true, BLK_MPATH_QUEUEING_MESSAGE);
	blk_mpath_reinstate_path(t->m, t->p[0][0]);
	KUNIT_EXPECT_FALSE(test, timer_pending(&t->m->nopath_timer));
	blk_mpath_set_queueing(t->m, true, BLK_MPATH_QUEUEING_MESSAGE);
	KUNIT_EXPECT_FALSE(test, timer_pending(&t->m->nopath_timer));

	/* presuspend's save/restore does not touch the timer */
	blk_mpath_fail_path(t->m, t->p[0][0]);
	KUNIT_EXPECT_TRUE(test, timer_pending(&t->m->nopath_timer));
	blk_mpath_set_queueing(t->m, false, BLK_MPATH_QUEUEING_SAVE_OLD);
	KUNIT_EXPECT_TRUE(test, timer_pending(&t->m->nopath_timer));
	blk_mpath_restore_queueing(t->m);
	KUNIT_EXPECT_TRUE(test, nopath_timer_fired(t));
	teardown(t);
}

static void sm_pg_init(struct kunit *test)
{
	struct blk_mpath_config cfg;
	struct block_device *bdev;
	struct tmp *t;

	default_cfg(&cfg);
	cfg.hw_handler_name = "alua";
	cfg.hw_handler_params = "1\0001";
	t = build(test, &cfg, "round-robin", 2, 2, true);

	KUNIT_EXPECT_TRUE(test, test_bit(BLK_MPATHF_QUEUE_IO, &t->m->flags));
	KUNIT_EXPECT_PTR_EQ(test, blk_mpath_choose_path(t->m, 512), t->p[0][0]);
	KUNIT_EXPECT_TRUE(test, test_bit(BLK_MPATHF_PG_INIT_REQUIRED,
					 &t->m->flags));
	/* I/O is held until pg_init is done */
	KUNIT_EXPECT_EQ(test, blk_mpath_prepare_ioctl(t->m, &bdev), -ENOTCONN);
	blk_mpath_flush(t->m);
	KUNIT_EXPECT_EQ(test, atomic_read(&t->m->pg_init_in_progress), 0);
	KUNIT_EXPECT_FALSE(test, test_bit(BLK_MPATHF_QUEUE_IO, &t->m->flags));
	KUNIT_EXPECT_FALSE(test, test_bit(BLK_MPATHF_PG_INIT_REQUIRED,
					  &t->m->flags));
	KUNIT_EXPECT_EQ(test, atomic_read(&t->m->pg_init_count), 1);
	KUNIT_EXPECT_GE(test, atomic_read(&t->o.kicks), 1);
	KUNIT_EXPECT_EQ(test, blk_mpath_prepare_ioctl(t->m, &bdev), 0);

	/* a group switch needs a new pg_init */
	blk_mpath_switch_pg(t->m, 2);
	KUNIT_EXPECT_PTR_EQ(test, blk_mpath_choose_path(t->m, 512), t->p[1][0]);
	KUNIT_EXPECT_TRUE(test, test_bit(BLK_MPATHF_QUEUE_IO, &t->m->flags));
	KUNIT_EXPECT_EQ(test, blk_mpath_prepare_ioctl(t->m, &bdev), -ENOTCONN);
	blk_mpath_flush(t->m);
	KUNIT_EXPECT_FALSE(test, test_bit(BLK_MPATHF_QUEUE_IO, &t->m->flags));

	/* reinstating a path of the current group activates it */
	blk_mpath_fail_path(t->m, t->p[1][1]);
	blk_mpath_reinstate_path(t->m, t->p[1][1]);
	blk_mpath_flush(t->m);
	KUNIT_EXPECT_EQ(test, atomic_read(&t->m->pg_init_in_progress), 0);
	KUNIT_EXPECT_TRUE(test, t->p[1][1]->is_active);
	teardown(t);
}

static struct kunit_case blk_mpath_sm_cases[] = {
	KUNIT_CASE(sm_fail_reinstate),
	KUNIT_CASE(sm_failover_failback),
	KUNIT_CASE(sm_bypass),
	KUNIT_CASE(sm_initial_pg),
	KUNIT_CASE(sm_no_path),
	KUNIT_CASE(sm_queueing_save_restore),
	KUNIT_CASE(sm_no_path_timeout),
	KUNIT_CASE(sm_pg_init),
	{}
};

static struct kunit_suite blk_mpath_sm_suite = {
	.name = "blk-mpath-state",
	.test_cases = blk_mpath_sm_cases,
};

/* ---- completion verdicts ------------------------------------------------------ */

static struct blk_error_detail scsi_detail(blk_status_t status, u8 host,
					   u8 sam, int key, u8 asc, u8 ascq)
{
	struct blk_error_detail d = {
		.status = status,
		.source = BLK_ERR_SRC_SCSI,
		.host_byte = host,
		.status_byte = sam,
	};

	if (key >= 0) {
		d.flags |= BLK_ERR_SENSE_VALID;
		d.sense_key = key;
		d.asc = asc;
		d.ascq = ascq;
	}
	return d;
}

static enum blk_mpath_end_result end_on(struct tmp *t,
					struct blk_mpath_path *p,
					const struct blk_error_detail *d,
					blk_status_t *st)
{
	struct blk_mpath_rq_ctx ctx = {
		.path = p, .nr_bytes = 4096,
	};

	return blk_mpath_end_detail(t->m, &ctx, d, 0, st);
}

/* SCSI-sourced conditions that reach the engine only after SCSI retried */
static const struct blk_error_detail after_scsi_retries[] = {
	{ .status = BLK_STS_IOERR, .source = BLK_ERR_SRC_SCSI,
	  .status_byte = SAM_STAT_CHECK_CONDITION,
	  .flags = BLK_ERR_SENSE_VALID, .sense_key = ABORTED_COMMAND,
	  .asc = 0x00, .ascq = 0x06 },	/* QEMU's EIO */
	{ .status = BLK_STS_IOERR, .source = BLK_ERR_SRC_SCSI,
	  .status_byte = SAM_STAT_CHECK_CONDITION,
	  .flags = BLK_ERR_SENSE_VALID, .sense_key = UNIT_ATTENTION,
	  .asc = 0x29 },
	{ .status = BLK_STS_IOERR, .source = BLK_ERR_SRC_SCSI,
	  .status_byte = SAM_STAT_CHECK_CONDITION,
	  .flags = BLK_ERR_SENSE_VALID, .sense_key = NOT_READY,
	  .asc = 0x04, .ascq = 0x0a },	/* ALUA transitioning */
	{ .status = BLK_STS_IOERR, .source = BLK_ERR_SRC_SCSI,
	  .status_byte = SAM_STAT_CHECK_CONDITION,
	  .flags = BLK_ERR_SENSE_VALID, .sense_key = NO_SENSE },
	{ .status = BLK_STS_IOERR, .source = BLK_ERR_SRC_SCSI,
	  .status_byte = SAM_STAT_TASK_ABORTED },
	{ .status = BLK_STS_IOERR, .source = BLK_ERR_SRC_SCSI,
	  .status_byte = SAM_STAT_BUSY },
	{ .status = BLK_STS_IOERR, .source = BLK_ERR_SRC_SCSI,
	  .host_byte = DID_SOFT_ERROR },
};

static void end_verdicts(struct kunit *test)
{
	struct tmp *t = build_default(test, "queue-length", 1, 2);
	struct blk_mpath_path **p = t->p[0];
	struct blk_mpath_rq_ctx rctx = {};
	struct blk_error_detail d, ok;
	blk_status_t st;
	int i;

	/* success */
	d = scsi_detail(BLK_STS_OK, DID_OK, SAM_STAT_GOOD, -1, 0, 0);
	KUNIT_EXPECT_EQ(test, end_on(t, p[0], &d, &st), BLK_MPATH_END_DONE);
	KUNIT_EXPECT_EQ(test, blk_status_to_errno(st),
			blk_status_to_errno(BLK_STS_OK));
	KUNIT_EXPECT_EQ(test, ctrs(p[0]).ios, 1);
	KUNIT_EXPECT_EQ(test, ctrs(p[0]).bytes, 4096);

	/* target error: returned, path stays */
	d = scsi_detail(BLK_STS_MEDIUM, DID_OK, SAM_STAT_CHECK_CONDITION,
			MEDIUM_ERROR, 0x11, 0);
	KUNIT_EXPECT_EQ(test, end_on(t, p[0], &d, &st), BLK_MPATH_END_DONE);
	KUNIT_EXPECT_EQ(test, blk_status_to_errno(st),
			blk_status_to_errno(BLK_STS_MEDIUM));
	KUNIT_EXPECT_TRUE(test, p[0]->is_active);
	KUNIT_EXPECT_EQ(test, ctrs(p[0]).errors_target, 1);

	/* reservation conflict: returned, path stays */
	d = scsi_detail(BLK_STS_NEXUS, DID_OK, SAM_STAT_RESERVATION_CONFLICT,
			-1, 0, 0);
	KUNIT_EXPECT_EQ(test, end_on(t, p[0], &d, &st), BLK_MPATH_END_DONE);
	KUNIT_EXPECT_EQ(test, blk_status_to_errno(st),
			blk_status_to_errno(BLK_STS_NEXUS));
	KUNIT_EXPECT_TRUE(test, p[0]->is_active);
	KUNIT_EXPECT_EQ(test, ctrs(p[0]).errors_reservation,
			1);

	/*
	 * resource: delayed retry on the same path, path stays, bounded per
	 * request: successes of other requests on the path (the whole queue
	 * may be busy) neither reset nor extend the bound of this one
	 */
	rctx.path = p[0];
	rctx.nr_bytes = 4096;
	d = scsi_detail(BLK_STS_RESOURCE, DID_OK, SAM_STAT_GOOD, -1, 0, 0);
	ok = scsi_detail(BLK_STS_OK, DID_OK, SAM_STAT_GOOD, -1, 0, 0);
	for (i = 0; i < 50; i++) {
		KUNIT_EXPECT_EQ(test, blk_mpath_end_detail(t->m, &rctx, &d, 0,
							   &st),
				BLK_MPATH_END_DELAY_RETRY);
		KUNIT_EXPECT_EQ(test, end_on(t, p[0], &ok, &st),
				BLK_MPATH_END_DONE);
	}
	KUNIT_EXPECT_TRUE(test, p[0]->is_active);
	KUNIT_EXPECT_NE(test, rctx.retry_since, 0U);
	KUNIT_EXPECT_EQ(test, ctrs(p[0]).errors_resource, 50);
	rctx.retry_since -= msecs_to_jiffies(BLK_MPATH_RESOURCE_RETRY_MS) + 1;
	KUNIT_EXPECT_EQ(test, blk_mpath_end_detail(t->m, &rctx, &d, 0, &st),
			BLK_MPATH_END_RETRY);
	KUNIT_EXPECT_FALSE(test, p[0]->is_active);
	KUNIT_EXPECT_EQ(test, ctrs(p[0]).errors_path, 1);
	KUNIT_EXPECT_EQ(test, ctrs(p[0]).errors_resource, 50);
	blk_mpath_reinstate_path(t->m, p[0]);
	/* a final verdict ends the request's bound */
	rctx.path = p[0];
	KUNIT_EXPECT_EQ(test, blk_mpath_end_detail(t->m, &rctx, &ok, 0, &st),
			BLK_MPATH_END_DONE);
	KUNIT_EXPECT_EQ(test, rctx.retry_since, 0U);

	/*
	 * What SCSI only passes up after its own retries on this path
	 * (5 immediate ones, or up to (retries + 1) x timeout): failover at
	 * once, as stock; never requeued on the same path
	 */
	for (i = 0; i < ARRAY_SIZE(after_scsi_retries); i++) {
		d = after_scsi_retries[i];
		KUNIT_EXPECT_EQ_MSG(test, end_on(t, p[0], &d, &st),
				    BLK_MPATH_END_RETRY, "case %d", i);
		KUNIT_EXPECT_FALSE_MSG(test, p[0]->is_active, "case %d", i);
		blk_mpath_reinstate_path(t->m, p[0]);
	}

	/* path error with another path left: fail it, retry */
	d = scsi_detail(BLK_STS_TRANSPORT, DID_TRANSPORT_FAILFAST,
			SAM_STAT_GOOD, -1, 0, 0);
	KUNIT_EXPECT_EQ(test, end_on(t, p[0], &d, &st), BLK_MPATH_END_RETRY);
	KUNIT_EXPECT_FALSE(test, p[0]->is_active);
	KUNIT_EXPECT_EQ(test, ctrs(p[0]).errors_path,
			2 + ARRAY_SIZE(after_scsi_retries));

	/* last path fails, no queueing: the original error is returned */
	d = scsi_detail(BLK_STS_IOERR, DID_NO_CONNECT, SAM_STAT_GOOD, -1, 0, 0);
	KUNIT_EXPECT_EQ(test, end_on(t, p[1], &d, &st), BLK_MPATH_END_DONE);
	KUNIT_EXPECT_EQ(test, blk_status_to_errno(st),
			blk_status_to_errno(BLK_STS_IOERR));
	KUNIT_EXPECT_EQ(test, atomic_read(&t->m->nr_valid_paths), 0);

	/* ... with queueing it is requeued */
	blk_mpath_reinstate_path(t->m, p[1]);
	blk_mpath_set_queueing(t->m, true, BLK_MPATH_QUEUEING_MESSAGE);
	KUNIT_EXPECT_EQ(test, end_on(t, p[1], &d, &st), BLK_MPATH_END_RETRY);

	/* selector accounting was undone for every completion */
	KUNIT_EXPECT_EQ(test, ctrs(p[1]).ios, 2);
	teardown(t);
}

static struct kunit_case blk_mpath_end_cases[] = {
	KUNIT_CASE(end_verdicts),
	{}
};

static struct kunit_suite blk_mpath_end_suite = {
	.name = "blk-mpath-completion",
	.test_cases = blk_mpath_end_cases,
};

/* ---- map / release / end on real queues of a fake driver -------------------- */

/* What the fake driver completes with and reports as detail. */
static struct blk_error_detail fake_detail;
static blk_status_t fake_status;

/* The owner's side of an issued clone, as dm-rq's end_clone_request(). */
static struct blk_mpath *fake_m;
static struct blk_mpath_rq_ctx *fake_ctx;
static int fake_verdict;
static blk_status_t fake_final;

static blk_status_t fake_queue_rq(struct blk_mq_hw_ctx *hctx,
				  const struct blk_mq_queue_data *bd)
{
	blk_mq_start_request(bd->rq);
	blk_mq_end_request(bd->rq, fake_status);
	return BLK_STS_OK;
}

static enum rq_end_io_ret fake_clone_end_io(struct request *clone,
					    blk_status_t error)
{
	fake_verdict = blk_mpath_end_rq(fake_m, clone, error, fake_ctx,
					&fake_final);
	return RQ_END_IO_NONE;
}

/* Issues a mapped clone; the fake driver completes it synchronously. */
static int issue_clone(struct kunit *test, struct blk_mpath *m,
		       struct request *clone, struct request *rq,
		       struct blk_mpath_rq_ctx *ctx, blk_status_t status)
{
	fake_m = m;
	fake_ctx = ctx;
	fake_status = status;
	fake_verdict = -1;
	KUNIT_EXPECT_EQ(test, blk_rq_prep_clone(clone, rq, NULL, GFP_KERNEL,
						NULL, NULL), 0);
	clone->end_io = fake_clone_end_io;
	KUNIT_EXPECT_EQ(test,
			blk_status_to_errno(blk_insert_cloned_request(clone)), 0);
	return fake_verdict;
}

static void fake_get_error_detail(struct request *rq,
				  struct blk_error_detail *d)
{
	blk_status_t status = d->status;

	*d = fake_detail;
	d->status = status;
}

static const struct blk_mq_ops fake_mq_ops = {
	.queue_rq		= fake_queue_rq,
	.get_error_detail	= fake_get_error_detail,
};

struct fake_dev {
	struct blk_mq_tag_set set;
	struct gendisk *disk;
};

static struct fake_dev *fake_dev_create(struct kunit *test, unsigned int depth)
{
	struct fake_dev *fd = kunit_kzalloc(test, sizeof(*fd), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, fd);
	fd->set.ops = &fake_mq_ops;
	fd->set.nr_hw_queues = 1;
	fd->set.queue_depth = depth;
	fd->set.numa_node = NUMA_NO_NODE;
	fd->set.flags = BLK_MQ_F_SHOULD_MERGE;
	KUNIT_ASSERT_EQ(test, blk_mq_alloc_tag_set(&fd->set), 0);
	fd->disk = blk_mq_alloc_disk(&fd->set, NULL);
	if (IS_ERR(fd->disk)) {
		blk_mq_free_tag_set(&fd->set);
		KUNIT_ASSERT_FALSE(test, true);
	}
	return fd;
}

static void fake_dev_destroy(struct fake_dev *fd)
{
	put_disk(fd->disk);
	blk_mq_free_tag_set(&fd->set);
}

static void map_end_release(struct kunit *test)
{
	struct fake_dev *upper = fake_dev_create(test, 8);
	struct fake_dev *dev0 = fake_dev_create(test, 2);
	struct fake_dev *dev1 = fake_dev_create(test, 2);
	struct request *rq[4], *clone[4], *extra;
	struct blk_mpath_rq_ctx ctx[4] = {}, xctx = {};
	unsigned int max_sectors;
	struct blk_mpath_path *p0, *p1;
	struct blk_mpath_config cfg;
	struct test_owner o = {};
	struct block_device *bdev;
	struct request_queue *q0;
	struct blk_mpath_pg *pg;
	struct blk_mpath *m;
	char *err = NULL;
	blk_status_t st;
	char buf[32];
	s64 ios;
	int i;

	for (i = 0; i < 4; i++) {
		rq[i] = blk_mq_alloc_request(upper->disk->queue, REQ_OP_READ, 0);
		KUNIT_ASSERT_FALSE(test, IS_ERR(rq[i]));
	}

	default_cfg(&cfg);
	m = blk_mpath_create("kunit-map", &cfg, &t_ops, &o, &err);
	KUNIT_ASSERT_FALSE(test, IS_ERR(m));
	pg = blk_mpath_add_pg(m, "queue-length", 0, NULL, &err);
	KUNIT_ASSERT_FALSE(test, IS_ERR(pg));
	p0 = blk_mpath_add_path(pg, dev0->disk->part0, "250:0", 0, NULL, &err);
	KUNIT_ASSERT_FALSE(test, IS_ERR(p0));
	p1 = blk_mpath_add_path(pg, dev1->disk->part0, "250:1", 0, NULL, &err);
	KUNIT_ASSERT_FALSE(test, IS_ERR(p1));
	KUNIT_ASSERT_EQ(test, blk_mpath_start(m, &err), 0);
	q0 = dev0->disk->queue;

	/* clones go to the least loaded path, fail fast, never merge */
	KUNIT_EXPECT_EQ(test, blk_mpath_map_rq(m, rq[0], &clone[0], &ctx[0]),
			BLK_MPATH_MAP_REMAPPED);
	KUNIT_EXPECT_PTR_EQ(test, ctx[0].path, p0);
	KUNIT_EXPECT_PTR_EQ(test, clone[0]->q, q0);
	KUNIT_EXPECT_TRUE(test, clone[0]->cmd_flags & REQ_FAILFAST_TRANSPORT);
	KUNIT_EXPECT_TRUE(test, clone[0]->cmd_flags & REQ_NOMERGE);
	KUNIT_EXPECT_NULL(test, clone[0]->bio);
	KUNIT_EXPECT_STREQ(test, ps_status(pg, p0, BLK_MPATH_STATUS_INFO, buf,
					   sizeof(buf)), "1 ");
	KUNIT_EXPECT_EQ(test, blk_mpath_map_rq(m, rq[1], &clone[1], &ctx[1]),
			BLK_MPATH_MAP_REMAPPED);
	KUNIT_EXPECT_PTR_EQ(test, ctx[1].path, p1);
	KUNIT_EXPECT_FALSE(test, blk_mpath_busy(m));

	/* released before issue: the selector accounting is undone */
	blk_mpath_release_clone(clone[0], &ctx[0]);
	KUNIT_EXPECT_STREQ(test, ps_status(pg, p0, BLK_MPATH_STATUS_INFO, buf,
					   sizeof(buf)), "0 ");

	/* a medium error read through ->get_error_detail(): returned */
	fake_detail = scsi_detail(BLK_STS_OK, DID_OK, SAM_STAT_CHECK_CONDITION,
				  MEDIUM_ERROR, 0x11, 0);
	KUNIT_EXPECT_EQ(test, issue_clone(test, m, clone[1], rq[1], &ctx[1],
					  BLK_STS_IOERR),
			BLK_MPATH_END_DONE);
	KUNIT_EXPECT_EQ(test, blk_status_to_errno(fake_final),
			blk_status_to_errno(BLK_STS_IOERR));
	KUNIT_EXPECT_TRUE(test, p1->is_active);
	KUNIT_EXPECT_EQ(test, ctrs(p1).errors_target, 1);
	KUNIT_EXPECT_STREQ(test, ps_status(pg, p1, BLK_MPATH_STATUS_INFO, buf,
					   sizeof(buf)), "0 ");
	blk_mpath_release_clone(clone[1], NULL);

	/* a transport error fails the path; the request is retried */
	KUNIT_EXPECT_EQ(test, blk_mpath_map_rq(m, rq[2], &clone[2], &ctx[2]),
			BLK_MPATH_MAP_REMAPPED);
	fake_detail = scsi_detail(BLK_STS_OK, DID_TRANSPORT_FAILFAST,
				  SAM_STAT_GOOD, -1, 0, 0);
	KUNIT_EXPECT_EQ(test, issue_clone(test, m, clone[2], rq[2], &ctx[2],
					  BLK_STS_TRANSPORT),
			BLK_MPATH_END_RETRY);
	KUNIT_EXPECT_FALSE(test, ctx[2].path->is_active);
	blk_mpath_release_clone(clone[2], NULL);

	/* a clone that never reached its driver: no (stale) detail used */
	KUNIT_EXPECT_EQ(test, blk_mpath_map_rq(m, rq[2], &clone[2], &ctx[2]),
			BLK_MPATH_MAP_REMAPPED);
	fake_detail = scsi_detail(BLK_STS_OK, DID_OK, SAM_STAT_CHECK_CONDITION,
				  MEDIUM_ERROR, 0x11, 0);
	blk_mpath_set_queueing(m, true, BLK_MPATH_QUEUEING_MESSAGE);
	KUNIT_EXPECT_EQ(test, blk_mpath_end_rq(m, clone[2], BLK_STS_IOERR,
					       &ctx[2], &st),
			BLK_MPATH_END_RETRY);
	blk_mpath_set_queueing(m, false, BLK_MPATH_QUEUEING_MESSAGE);
	blk_mpath_release_clone(clone[2], NULL);

	/*
	 * a clone refused because it exceeds its path's queue limits, which
	 * shrank under the table on every path: the error is returned, the
	 * path kept, and no other path is failed for it
	 */
	if (!p0->is_active)
		blk_mpath_reinstate_path(m, p0);
	if (!p1->is_active)
		blk_mpath_reinstate_path(m, p1);
	max_sectors = queue_max_hw_sectors(q0);
	KUNIT_EXPECT_EQ(test, blk_mpath_map_rq(m, rq[2], &clone[2], &ctx[2]),
			BLK_MPATH_MAP_REMAPPED);
	blk_queue_max_hw_sectors(dev0->disk->queue, PAGE_SECTORS);
	blk_queue_max_hw_sectors(dev1->disk->queue, PAGE_SECTORS);
	clone[2]->__data_len = 2 * PAGE_SIZE;
	KUNIT_EXPECT_EQ(test, blk_mpath_end_rq(m, clone[2], BLK_STS_IOERR,
					       &ctx[2], &st),
			BLK_MPATH_END_DONE);
	KUNIT_EXPECT_EQ(test, blk_status_to_errno(st),
			blk_status_to_errno(BLK_STS_IOERR));
	KUNIT_EXPECT_TRUE(test, ctx[2].path->is_active);
	KUNIT_EXPECT_EQ(test, atomic_read(&m->nr_valid_paths), 2);
	clone[2]->__data_len = 0;
	blk_mpath_release_clone(clone[2], NULL);

	/*
	 * only the refusing path's limits shrank: the other path takes the
	 * request, so it is the refusing path's failure (stock's verdict)
	 */
	KUNIT_EXPECT_EQ(test, blk_mpath_map_rq(m, rq[2], &clone[2], &ctx[2]),
			BLK_MPATH_MAP_REMAPPED);
	blk_queue_max_hw_sectors(dev0->disk->queue, max_sectors);
	blk_queue_max_hw_sectors(dev1->disk->queue, max_sectors);
	blk_queue_max_hw_sectors(clone[2]->q, PAGE_SECTORS);
	clone[2]->__data_len = 2 * PAGE_SIZE;
	KUNIT_EXPECT_EQ(test, blk_mpath_end_rq(m, clone[2], BLK_STS_IOERR,
					       &ctx[2], &st),
			BLK_MPATH_END_RETRY);
	KUNIT_EXPECT_FALSE(test, ctx[2].path->is_active);
	KUNIT_EXPECT_EQ(test, atomic_read(&m->nr_valid_paths), 1);
	blk_queue_max_hw_sectors(clone[2]->q, max_sectors);
	clone[2]->__data_len = 0;
	blk_mpath_reinstate_path(m, ctx[2].path);
	blk_mpath_release_clone(clone[2], NULL);

	/*
	 * a request over one path's limits (split to an earlier table's) is
	 * cloned onto the path of its group that takes it: queue-length picks
	 * p0 (both idle, the first in the group) and is passed over
	 */
	blk_queue_max_hw_sectors(dev0->disk->queue, PAGE_SECTORS);
	rq[2]->__data_len = 2 * PAGE_SIZE;
	for (i = 0; i < 2; i++) {
		KUNIT_EXPECT_EQ(test,
				blk_mpath_map_rq(m, rq[2], &clone[2], &ctx[2]),
				BLK_MPATH_MAP_REMAPPED);
		KUNIT_EXPECT_PTR_EQ(test, ctx[2].path, p1);
		KUNIT_EXPECT_PTR_EQ(test, clone[2]->q, dev1->disk->queue);
		blk_mpath_release_clone(clone[2], &ctx[2]);
	}
	/* ... and onto the selector's path (p0) when no path takes it */
	blk_queue_max_hw_sectors(dev1->disk->queue, PAGE_SECTORS);
	KUNIT_EXPECT_EQ(test, blk_mpath_map_rq(m, rq[2], &clone[2], &ctx[2]),
			BLK_MPATH_MAP_REMAPPED);
	KUNIT_EXPECT_PTR_EQ(test, ctx[2].path, p0);
	KUNIT_EXPECT_PTR_EQ(test, clone[2]->q, q0);
	blk_mpath_release_clone(clone[2], &ctx[2]);
	blk_queue_max_hw_sectors(dev0->disk->queue, max_sectors);
	blk_queue_max_hw_sectors(dev1->disk->queue, max_sectors);
	rq[2]->__data_len = 0;

	/* the per-request retry bound survives requeues of the original */
	KUNIT_EXPECT_EQ(test, blk_mpath_map_rq(m, rq[2], &clone[2], &ctx[2]),
			BLK_MPATH_MAP_REMAPPED);
	ctx[2].retry_since = 43;
	blk_mpath_release_clone(clone[2], &ctx[2]);
	KUNIT_EXPECT_EQ(test, blk_mpath_map_rq(m, rq[2], &clone[2], &ctx[2]),
			BLK_MPATH_MAP_REMAPPED);
	KUNIT_EXPECT_EQ(test, ctx[2].retry_since, 43U);
	blk_mpath_release_clone(clone[2], &ctx[2]);
	/* fits in stock's per-request data, which a live reload keeps */
	KUNIT_EXPECT_LE(test, sizeof(struct blk_mpath_rq_ctx), 24UL);

	/* success, on whichever path the selector picks */
	if (!p0->is_active)
		blk_mpath_reinstate_path(m, p0);
	ios = ctrs(p0).ios + ctrs(p1).ios;
	KUNIT_EXPECT_EQ(test, blk_mpath_map_rq(m, rq[2], &clone[2], &ctx[2]),
			BLK_MPATH_MAP_REMAPPED);
	KUNIT_EXPECT_TRUE(test, ctx[2].path == p0 || ctx[2].path == p1);
	KUNIT_EXPECT_EQ(test, issue_clone(test, m, clone[2], rq[2], &ctx[2],
					  BLK_STS_OK),
			BLK_MPATH_END_DONE);
	KUNIT_EXPECT_EQ(test, blk_status_to_errno(fake_final),
			blk_status_to_errno(BLK_STS_OK));
	KUNIT_EXPECT_EQ(test, ctrs(p0).ios + ctrs(p1).ios, ios + 1);
	blk_mpath_release_clone(clone[2], NULL);

	if (!p1->is_active)
		blk_mpath_reinstate_path(m, p1);
	if (!p0->is_active)
		blk_mpath_reinstate_path(m, p0);
	blk_mpath_fail_path(m, p1);

	/* path queue out of tags: plain requeue, path stays */
	KUNIT_EXPECT_EQ(test, blk_mpath_map_rq(m, rq[0], &clone[0], &ctx[0]),
			BLK_MPATH_MAP_REMAPPED);
	KUNIT_EXPECT_EQ(test, blk_mpath_map_rq(m, rq[1], &clone[1], &ctx[1]),
			BLK_MPATH_MAP_REMAPPED);
	KUNIT_EXPECT_EQ(test, blk_mpath_map_rq(m, rq[2], &extra, &xctx),
			BLK_MPATH_MAP_REQUEUE);
	KUNIT_EXPECT_TRUE(test, p0->is_active);
	blk_mpath_release_clone(clone[0], &ctx[0]);
	blk_mpath_release_clone(clone[1], &ctx[1]);

	KUNIT_EXPECT_EQ(test, blk_mpath_prepare_ioctl(m, &bdev), 0);
	KUNIT_EXPECT_PTR_EQ(test, bdev, dev0->disk->part0);

	/* dying path queue: the path is failed and the request delayed */
	blk_freeze_queue_start(q0);
	blk_queue_flag_set(QUEUE_FLAG_DYING, q0);
	KUNIT_EXPECT_EQ(test, blk_mpath_map_rq(m, rq[3], &clone[3], &ctx[3]),
			BLK_MPATH_MAP_DELAY_REQUEUE);
	KUNIT_EXPECT_FALSE(test, p0->is_active);
	KUNIT_EXPECT_EQ(test, atomic_read(&m->pg_init_in_progress), 0);
	/* nothing left, no queueing: the request is failed */
	KUNIT_EXPECT_EQ(test, blk_mpath_map_rq(m, rq[3], &clone[3], &ctx[3]),
			BLK_MPATH_MAP_KILL);
	blk_queue_flag_clear(QUEUE_FLAG_DYING, q0);
	blk_mq_freeze_queue_wait(q0);
	blk_mq_unfreeze_queue(q0);

	blk_mpath_destroy(m);
	for (i = 0; i < 4; i++)
		blk_mq_free_request(rq[i]);
	fake_dev_destroy(dev1);
	fake_dev_destroy(dev0);
	fake_dev_destroy(upper);
}

static struct kunit_case blk_mpath_map_cases[] = {
	KUNIT_CASE(map_end_release),
	{}
};

static struct kunit_suite blk_mpath_map_suite = {
	.name = "blk-mpath-map",
	.test_cases = blk_mpath_map_cases,
};

/* ---- error classification ------------------------------------------------------ */

struct classify_case {
	const char *what;
	struct blk_error_detail d;
	enum blk_mpath_err_class want;
};

#define SCSI_D(st, host, sam)						\
	{ .status = (st), .source = BLK_ERR_SRC_SCSI, .host_byte = (host), \
	  .status_byte = (sam) }
#define SENSE_D(st, key, a, aq)						\
	{ .status = (st), .source = BLK_ERR_SRC_SCSI,			\
	  .status_byte = SAM_STAT_CHECK_CONDITION,			\
	  .flags = BLK_ERR_SENSE_VALID, .sense_key = (key), .asc = (a),	\
	  .ascq = (aq) }
#define NONE_D(st) { .status = (st), .source = BLK_ERR_SRC_NONE }

static const struct classify_case classify_cases[] = {
	{ "ok", NONE_D(BLK_STS_OK), BLK_MPATH_ERR_NONE },
	{ "scsi ok", SCSI_D(BLK_STS_OK, DID_OK, SAM_STAT_GOOD),
	  BLK_MPATH_ERR_NONE },
	/* no detail: blk_path_error() */
	{ "none ioerr", NONE_D(BLK_STS_IOERR), BLK_MPATH_ERR_PATH },
	{ "none transport", NONE_D(BLK_STS_TRANSPORT), BLK_MPATH_ERR_PATH },
	{ "none timeout", NONE_D(BLK_STS_TIMEOUT), BLK_MPATH_ERR_PATH },
	{ "none offline", NONE_D(BLK_STS_OFFLINE), BLK_MPATH_ERR_PATH },
	{ "none target", NONE_D(BLK_STS_TARGET), BLK_MPATH_ERR_TARGET },
	{ "none medium", NONE_D(BLK_STS_MEDIUM), BLK_MPATH_ERR_TARGET },
	{ "none protection", NONE_D(BLK_STS_PROTECTION),
	  BLK_MPATH_ERR_TARGET },
	{ "none nospc", NONE_D(BLK_STS_NOSPC), BLK_MPATH_ERR_TARGET },
	{ "none notsupp", NONE_D(BLK_STS_NOTSUPP), BLK_MPATH_ERR_TARGET },
	{ "none nexus", NONE_D(BLK_STS_NEXUS), BLK_MPATH_ERR_RESERVATION },
	{ "none resource", NONE_D(BLK_STS_RESOURCE), BLK_MPATH_ERR_RESOURCE },
	{ "none dev resource", NONE_D(BLK_STS_DEV_RESOURCE),
	  BLK_MPATH_ERR_RESOURCE },
	/* host byte */
	{ "no connect", SCSI_D(BLK_STS_IOERR, DID_NO_CONNECT, 0),
	  BLK_MPATH_ERR_PATH },
	{ "bus busy", SCSI_D(BLK_STS_IOERR, DID_BUS_BUSY, 0),
	  BLK_MPATH_ERR_PATH },
	{ "time out", SCSI_D(BLK_STS_IOERR, DID_TIME_OUT, 0),
	  BLK_MPATH_ERR_PATH },
	{ "bad target", SCSI_D(BLK_STS_IOERR, DID_BAD_TARGET, 0),
	  BLK_MPATH_ERR_PATH },
	{ "abort", SCSI_D(BLK_STS_IOERR, DID_ABORT, 0), BLK_MPATH_ERR_PATH },
	{ "parity", SCSI_D(BLK_STS_IOERR, DID_PARITY, 0), BLK_MPATH_ERR_PATH },
	{ "error", SCSI_D(BLK_STS_IOERR, DID_ERROR, 0), BLK_MPATH_ERR_PATH },
	{ "reset", SCSI_D(BLK_STS_IOERR, DID_RESET, 0), BLK_MPATH_ERR_PATH },
	{ "soft error", SCSI_D(BLK_STS_IOERR, DID_SOFT_ERROR, 0),
	  BLK_MPATH_ERR_PATH },
	{ "imm retry", SCSI_D(BLK_STS_IOERR, DID_IMM_RETRY, 0),
	  BLK_MPATH_ERR_PATH },
	{ "requeue", SCSI_D(BLK_STS_IOERR, DID_REQUEUE, 0),
	  BLK_MPATH_ERR_PATH },
	{ "transport disrupted", SCSI_D(BLK_STS_IOERR,
					DID_TRANSPORT_DISRUPTED, 0),
	  BLK_MPATH_ERR_PATH },
	{ "transport failfast", SCSI_D(BLK_STS_TRANSPORT,
				       DID_TRANSPORT_FAILFAST, 0),
	  BLK_MPATH_ERR_PATH },
	{ "transport marginal", SCSI_D(BLK_STS_TRANSPORT,
				       DID_TRANSPORT_MARGINAL, 0),
	  BLK_MPATH_ERR_PATH },
	/* status byte */
	{ "reservation conflict", SCSI_D(BLK_STS_NEXUS, DID_OK,
					 SAM_STAT_RESERVATION_CONFLICT),
	  BLK_MPATH_ERR_RESERVATION },
	{ "reservation conflict ioerr", SCSI_D(BLK_STS_IOERR, DID_OK,
					       SAM_STAT_RESERVATION_CONFLICT),
	  BLK_MPATH_ERR_RESERVATION },
	{ "busy", SCSI_D(BLK_STS_IOERR, DID_OK, SAM_STAT_BUSY),
	  BLK_MPATH_ERR_PATH },
	{ "task set full", SCSI_D(BLK_STS_IOERR, DID_OK,
				  SAM_STAT_TASK_SET_FULL),
	  BLK_MPATH_ERR_PATH },
	{ "task aborted", SCSI_D(BLK_STS_IOERR, DID_OK,
				 SAM_STAT_TASK_ABORTED),
	  BLK_MPATH_ERR_PATH },
	{ "aca active", SCSI_D(BLK_STS_IOERR, DID_OK, SAM_STAT_ACA_ACTIVE),
	  BLK_MPATH_ERR_PATH },
	{ "check condition, no sense data",
	  SCSI_D(BLK_STS_IOERR, DID_OK, SAM_STAT_CHECK_CONDITION),
	  BLK_MPATH_ERR_PATH },
	/* sense */
	{ "alua transitioning", SENSE_D(BLK_STS_IOERR, NOT_READY, 0x04, 0x0a),
	  BLK_MPATH_ERR_PATH },
	{ "becoming ready", SENSE_D(BLK_STS_IOERR, NOT_READY, 0x04, 0x01),
	  BLK_MPATH_ERR_PATH },
	{ "alua standby", SENSE_D(BLK_STS_IOERR, NOT_READY, 0x04, 0x0b),
	  BLK_MPATH_ERR_PATH },
	{ "alua unavailable", SENSE_D(BLK_STS_IOERR, NOT_READY, 0x04, 0x0c),
	  BLK_MPATH_ERR_PATH },
	{ "medium not present", SENSE_D(BLK_STS_IOERR, NOT_READY, 0x3a, 0x00),
	  BLK_MPATH_ERR_TARGET },
	{ "not ready other", SENSE_D(BLK_STS_IOERR, NOT_READY, 0x05, 0x00),
	  BLK_MPATH_ERR_PATH },
	{ "unit attention", SENSE_D(BLK_STS_IOERR, UNIT_ATTENTION, 0x29, 0),
	  BLK_MPATH_ERR_PATH },
	{ "alua state changed", SENSE_D(BLK_STS_IOERR, UNIT_ATTENTION, 0x2a,
					0x06),
	  BLK_MPATH_ERR_PATH },
	{ "no sense", SENSE_D(BLK_STS_IOERR, NO_SENSE, 0, 0),
	  BLK_MPATH_ERR_PATH },
	{ "medium error", SENSE_D(BLK_STS_IOERR, MEDIUM_ERROR, 0x11, 0),
	  BLK_MPATH_ERR_TARGET },
	{ "medium error status", SENSE_D(BLK_STS_MEDIUM, MEDIUM_ERROR, 0x11,
					 0),
	  BLK_MPATH_ERR_TARGET },
	{ "hardware error (retry_hwerror)", SENSE_D(BLK_STS_IOERR,
						    HARDWARE_ERROR, 0x44, 0),
	  BLK_MPATH_ERR_PATH },
	{ "hardware error (6.1: BLK_STS_TARGET)", SENSE_D(BLK_STS_TARGET,
							  HARDWARE_ERROR,
							  0x44, 0),
	  BLK_MPATH_ERR_TARGET },
	{ "thin provisioning hard threshold", SENSE_D(BLK_STS_NOSPC,
						      DATA_PROTECT, 0x27,
						      0x07),
	  BLK_MPATH_ERR_TARGET },
	{ "illegal request other", SENSE_D(BLK_STS_IOERR, ILLEGAL_REQUEST,
					   0x1a, 0),
	  BLK_MPATH_ERR_TARGET },
	{ "medium error other asc", SENSE_D(BLK_STS_IOERR, MEDIUM_ERROR, 0x0c,
					    0),
	  BLK_MPATH_ERR_TARGET },
	{ "invalid field in cdb", SENSE_D(BLK_STS_TARGET, ILLEGAL_REQUEST,
					  0x24, 0),
	  BLK_MPATH_ERR_TARGET },
	{ "lba out of range", SENSE_D(BLK_STS_IOERR, ILLEGAL_REQUEST, 0x21, 0),
	  BLK_MPATH_ERR_TARGET },
	{ "invalid opcode", SENSE_D(BLK_STS_IOERR, ILLEGAL_REQUEST, 0x20, 0),
	  BLK_MPATH_ERR_TARGET },
	{ "lun not supported", SENSE_D(BLK_STS_IOERR, ILLEGAL_REQUEST, 0x25,
				       0),
	  BLK_MPATH_ERR_PATH },
	{ "rdac: not the lun's owner", SENSE_D(BLK_STS_IOERR, ILLEGAL_REQUEST,
					       0x94, 0x01),
	  BLK_MPATH_ERR_PATH },
	{ "data protect", SENSE_D(BLK_STS_IOERR, DATA_PROTECT, 0x27, 0),
	  BLK_MPATH_ERR_TARGET },
	{ "blank check", SENSE_D(BLK_STS_IOERR, BLANK_CHECK, 0, 0),
	  BLK_MPATH_ERR_TARGET },
	{ "copy aborted", SENSE_D(BLK_STS_IOERR, COPY_ABORTED, 0, 0),
	  BLK_MPATH_ERR_TARGET },
	{ "volume overflow", SENSE_D(BLK_STS_IOERR, VOLUME_OVERFLOW, 0, 0),
	  BLK_MPATH_ERR_TARGET },
	{ "miscompare", SENSE_D(BLK_STS_IOERR, MISCOMPARE, 0x1d, 0),
	  BLK_MPATH_ERR_TARGET },
	{ "aborted command pi", SENSE_D(BLK_STS_PROTECTION, ABORTED_COMMAND,
					0x10, 0x01),
	  BLK_MPATH_ERR_TARGET },
	{ "aborted command pi ioerr", SENSE_D(BLK_STS_IOERR, ABORTED_COMMAND,
					      0x10, 0x03),
	  BLK_MPATH_ERR_TARGET },
	{ "aborted command", SENSE_D(BLK_STS_IOERR, ABORTED_COMMAND, 0x47, 0),
	  BLK_MPATH_ERR_PATH },
	{ "aborted command (qemu EIO)", SENSE_D(BLK_STS_IOERR,
						ABORTED_COMMAND, 0x00, 0x06),
	  BLK_MPATH_ERR_PATH },
	{ "vendor specific", SENSE_D(BLK_STS_IOERR, VENDOR_SPECIFIC, 0x80, 0),
	  BLK_MPATH_ERR_PATH },
	/* a transport host byte wins over stale sense */
	{ "failfast with sense", { .status = BLK_STS_TRANSPORT,
				   .source = BLK_ERR_SRC_SCSI,
				   .host_byte = DID_TRANSPORT_FAILFAST,
				   .status_byte = SAM_STAT_CHECK_CONDITION,
				   .flags = BLK_ERR_SENSE_VALID,
				   .sense_key = MEDIUM_ERROR },
	  BLK_MPATH_ERR_PATH },
	/* the status from SCSI's own mapping wins over the host byte */
	{ "target failure", SCSI_D(BLK_STS_TARGET, DID_OK, SAM_STAT_GOOD),
	  BLK_MPATH_ERR_TARGET },
};

static void classify_table(struct kunit *test)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(classify_cases); i++) {
		const struct classify_case *c = &classify_cases[i];
		enum blk_mpath_err_class got = blk_mpath_classify(&c->d);

		KUNIT_EXPECT_EQ_MSG(test, got, c->want, "%s: got %s want %s",
				    c->what, blk_mpath_err_class_name(got),
				    blk_mpath_err_class_name(c->want));
	}
}

static void classify_names(struct kunit *test)
{
	KUNIT_EXPECT_STREQ(test, blk_mpath_err_class_name(BLK_MPATH_ERR_NONE),
			   "none");
	KUNIT_EXPECT_STREQ(test, blk_mpath_err_class_name(BLK_MPATH_ERR_PATH),
			   "path");
	KUNIT_EXPECT_STREQ(test,
			   blk_mpath_err_class_name(BLK_MPATH_ERR_TARGET),
			   "target");
	KUNIT_EXPECT_STREQ(test,
			   blk_mpath_err_class_name(BLK_MPATH_ERR_LIMITS),
			   "limits");
	KUNIT_EXPECT_STREQ(test,
			   blk_mpath_err_class_name(BLK_MPATH_ERR_RESERVATION),
			   "reservation");
	KUNIT_EXPECT_STREQ(test,
			   blk_mpath_err_class_name(BLK_MPATH_ERR_RESOURCE),
			   "resource");
}

static struct kunit_case blk_mpath_classify_cases[] = {
	KUNIT_CASE(classify_table),
	KUNIT_CASE(classify_names),
	{}
};

static struct kunit_suite blk_mpath_classify_suite = {
	.name = "blk-mpath-classify",
	.test_cases = blk_mpath_classify_cases,
};

kunit_test_suites(&blk_mpath_ps_suite, &blk_mpath_sm_suite,
		  &blk_mpath_end_suite, &blk_mpath_map_suite,
		  &blk_mpath_classify_suite);

MODULE_DESCRIPTION("KUnit tests for the blk-mpath engine");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(BLK_MPATH_KUNIT);
