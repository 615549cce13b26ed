// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for queue_mode bio of the blk-mpath engine: blk_mpath_map_bio(),
 * blk_mpath_end_bio() and the engine's queue of held bios.  The first case
 * uses paths without a block device (nothing is ever issued); the others
 * issue real bios to the queues of a fake blk-mq driver whose completion
 * status each case sets per path, with the test in the owner's role (the
 * dm target's ->map / ->end_io).
 */
#include <kunit/test.h>
#include <linux/bio.h>
#include <linux/blk-mpath.h>
#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/module.h>

struct bt_owner {
	atomic_t noflush;		/* ops->noflush_suspending() */
	atomic_t failed;
	atomic_t reinstated;
};

static void bt_path_event(void *owner, enum blk_mpath_event ev,
			  struct blk_mpath_path *path, unsigned int nr_valid)
{
	struct bt_owner *o = owner;

	if (ev == BLK_MPATH_EV_PATH_FAILED)
		atomic_inc(&o->failed);
	else if (ev == BLK_MPATH_EV_PATH_REINSTATED)
		atomic_inc(&o->reinstated);
}

static bool bt_noflush(void *owner)
{
	struct bt_owner *o = owner;

	return atomic_read(&o->noflush);
}

/* a bio-based owner: no ->kick, the engine resubmits held bios itself */
static const struct blk_mpath_ops bt_ops = {
	.path_event		= bt_path_event,
	.noflush_suspending	= bt_noflush,
};

/* ---- the owner's bio ------------------------------------------------------ */

struct tbio {
	struct blk_mpath *m;
	struct blk_mpath_bio_ctx ctx;	/* dm: per-bio data */
	struct completion done;
	blk_status_t final;
	atomic_t ends;			/* ->bi_end_io calls */
	atomic_t resubmits;		/* ... answered with QUEUED */
	struct page *page;
	struct bio_vec bvec;
	struct bio bio;
};

/* the owner's ->end_io: dm's clone_endio() + the target's end_io */
static void tbio_end_io(struct bio *bio)
{
	struct tbio *tb = container_of(bio, struct tbio, bio);
	blk_status_t st = bio->bi_status;

	atomic_inc(&tb->ends);
	if (blk_mpath_end_bio(tb->m, bio, &st, &tb->ctx) ==
	    BLK_MPATH_BIO_END_QUEUED) {
		atomic_inc(&tb->resubmits);
		return;
	}
	tb->final = st;
	complete(&tb->done);
}

/* a 4 KiB bio on bdev (may be NULL: never issued) */
static struct tbio *tbio_alloc(struct kunit *test, struct blk_mpath *m,
			       struct block_device *bdev, blk_opf_t opf)
{
	struct tbio *tb = kunit_kzalloc(test, sizeof(*tb), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, tb);
	tb->m = m;
	init_completion(&tb->done);
	tb->page = alloc_page(GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, tb->page);
	bio_init(&tb->bio, bdev, &tb->bvec, 1, opf);
	tb->bio.bi_iter.bi_sector = 8;
	KUNIT_ASSERT_EQ(test, bio_add_page(&tb->bio, tb->page, 4096, 0), 4096);
	tb->bio.bi_end_io = tbio_end_io;
	return tb;
}

static void tbio_free(struct tbio *tb)
{
	bio_uninit(&tb->bio);
	__free_page(tb->page);
}

/* the owner's ->map: dm core submits REMAPPED, fails KILL, requeues PUSH_BACK */
static enum blk_mpath_bio_map_result tbio_submit(struct tbio *tb)
{
	enum blk_mpath_bio_map_result r;

	r = blk_mpath_map_bio(tb->m, &tb->bio, &tb->ctx);
	if (r == BLK_MPATH_BIO_REMAPPED)
		submit_bio_noacct(&tb->bio);
	return r;
}

static bool tbio_wait(struct tbio *tb, unsigned int ms)
{
	return wait_for_completion_timeout(&tb->done, msecs_to_jiffies(ms));
}

/* the bio is held by the engine, after @ms */
static bool tbio_held(struct tbio *tb, unsigned int ms)
{
	msleep(ms);
	return !completion_done(&tb->done);
}

static struct blk_mpath_path_counters bt_ctrs(struct blk_mpath_path *p)
{
	struct blk_mpath_path_counters c;

	blk_mpath_path_counters(p, &c);
	return c;
}

static bool bt_held_work_pending(struct blk_mpath *m)
{
	return delayed_work_pending(&m->bioq.work);
}

/* ---- paths without a device ------------------------------------------------ */

static struct blk_mpath *bt_create(struct kunit *test, struct bt_owner *o,
				   bool queue_if_no_path,
				   unsigned int timeout_secs)
{
	struct blk_mpath_config cfg = {
		.pg_init_delay_msecs = BLK_MPATH_PG_INIT_DELAY_DEFAULT,
		.queue_if_no_path = queue_if_no_path,
		.no_path_timeout_secs = timeout_secs,
		.retain_attached_hw_handler = true,
		.bio_based = true,
	};
	struct blk_mpath *m;
	char *err = NULL;

	m = blk_mpath_create("kunit-bio", &cfg, &bt_ops, o, &err);
	KUNIT_ASSERT_FALSE(test, IS_ERR(m));
	KUNIT_EXPECT_TRUE(test, m->bio_based);
	return m;
}

static void bio_no_path(struct kunit *test)
{
	struct blk_mpath_path *p[2];
	struct bt_owner o = {};
	struct blk_mpath_pg *pg;
	struct blk_mpath *m;
	struct tbio *tb;
	char *err = NULL;
	int i;

	m = bt_create(test, &o, false, 0);
	pg = blk_mpath_add_pg(m, "round-robin", 0, NULL, &err);
	KUNIT_ASSERT_FALSE(test, IS_ERR(pg));
	for (i = 0; i < 2; i++) {
		p[i] = blk_mpath_add_path(pg, NULL, i ? "8:16" : "8:0", 0,
					  NULL, &err);
		KUNIT_ASSERT_FALSE(test, IS_ERR(p[i]));
	}
	KUNIT_ASSERT_EQ(test, blk_mpath_start(m, &err), 0);
	blk_mpath_fail_path(m, p[0]);
	blk_mpath_fail_path(m, p[1]);

	/* no path, no queueing: failed by the owner at once */
	tb = tbio_alloc(test, m, NULL, REQ_OP_READ);
	KUNIT_EXPECT_EQ(test, tbio_submit(tb), BLK_MPATH_BIO_KILL);
	KUNIT_EXPECT_NULL(test, tb->ctx.rq.path);
	KUNIT_EXPECT_EQ(test, tb->ctx.rq.nr_bytes, 4096U);

	/* ... pushed back to the owner during a noflush suspend */
	atomic_set(&o.noflush, 1);
	KUNIT_EXPECT_EQ(test, tbio_submit(tb), BLK_MPATH_BIO_PUSH_BACK);
	atomic_set(&o.noflush, 0);

	/*
	 * queue_if_no_path: held, and nothing runs until a state change
	 * (no work item that keeps requeueing itself)
	 */
	blk_mpath_set_queueing(m, true, BLK_MPATH_QUEUEING_MESSAGE);
	KUNIT_EXPECT_EQ(test, tbio_submit(tb), BLK_MPATH_BIO_QUEUED);
	KUNIT_EXPECT_PTR_EQ(test, m->bioq.head, &tb->ctx);
	KUNIT_EXPECT_TRUE(test, tbio_held(tb, 200));
	KUNIT_EXPECT_FALSE(test, bt_held_work_pending(m));
	/* fail_if_no_path fails the held bio at once, through the owner */
	blk_mpath_set_queueing(m, false, BLK_MPATH_QUEUEING_MESSAGE);
	KUNIT_EXPECT_TRUE(test, tbio_wait(tb, 2000));
	KUNIT_EXPECT_EQ(test, blk_status_to_errno(tb->final),
			blk_status_to_errno(BLK_STS_IOERR));
	KUNIT_EXPECT_EQ(test, atomic_read(&tb->ends), 1);
	KUNIT_EXPECT_NULL(test, m->bioq.head);

	/* presuspend of bio mode (queueing off, saved) with noflush: pushed back */
	reinit_completion(&tb->done);
	blk_mpath_set_queueing(m, true, BLK_MPATH_QUEUEING_MESSAGE);
	KUNIT_EXPECT_EQ(test, tbio_submit(tb), BLK_MPATH_BIO_QUEUED);
	atomic_set(&o.noflush, 1);
	blk_mpath_set_queueing(m, false, BLK_MPATH_QUEUEING_SAVE_OLD);
	KUNIT_EXPECT_TRUE(test, tbio_wait(tb, 2000));
	KUNIT_EXPECT_EQ(test, blk_status_to_errno(tb->final),
			blk_status_to_errno(BLK_STS_DM_REQUEUE));
	atomic_set(&o.noflush, 0);
	blk_mpath_restore_queueing(m);
	KUNIT_EXPECT_TRUE(test, blk_mpath_queue_if_no_path(m));

	/* the held bios keep their order */
	{
		struct tbio *t2 = tbio_alloc(test, m, NULL, REQ_OP_WRITE);

		reinit_completion(&tb->done);
		KUNIT_EXPECT_EQ(test, tbio_submit(tb), BLK_MPATH_BIO_QUEUED);
		KUNIT_EXPECT_EQ(test, tbio_submit(t2), BLK_MPATH_BIO_QUEUED);
		KUNIT_EXPECT_PTR_EQ(test, m->bioq.head, &tb->ctx);
		KUNIT_EXPECT_PTR_EQ(test, m->bioq.tail, &t2->ctx);
		KUNIT_EXPECT_PTR_EQ(test, tb->ctx.next, &t2->ctx);
		blk_mpath_set_queueing(m, false, BLK_MPATH_QUEUEING_MESSAGE);
		KUNIT_EXPECT_TRUE(test, tbio_wait(tb, 2000));
		KUNIT_EXPECT_TRUE(test, tbio_wait(t2, 2000));
		tbio_free(t2);
	}

	blk_mpath_destroy(m);
	tbio_free(tb);
}

static void bio_no_path_timeout(struct kunit *test)
{
	struct blk_mpath_path *p;
	struct bt_owner o = {};
	struct blk_mpath_pg *pg;
	struct blk_mpath *m;
	struct tbio *tb;
	char *err = NULL;

	m = bt_create(test, &o, true, 1);
	pg = blk_mpath_add_pg(m, "queue-length", 0, NULL, &err);
	KUNIT_ASSERT_FALSE(test, IS_ERR(pg));
	p = blk_mpath_add_path(pg, NULL, "8:0", 0, NULL, &err);
	KUNIT_ASSERT_FALSE(test, IS_ERR(p));
	KUNIT_ASSERT_EQ(test, blk_mpath_start(m, &err), 0);

	/* the last path fails: the timer is armed, the bio held ... */
	blk_mpath_fail_path(m, p);
	KUNIT_EXPECT_TRUE(test, timer_pending(&m->nopath_timer));
	tb = tbio_alloc(test, m, NULL, REQ_OP_READ);
	KUNIT_EXPECT_EQ(test, tbio_submit(tb), BLK_MPATH_BIO_QUEUED);
	KUNIT_EXPECT_TRUE(test, tbio_held(tb, 300));
	/* ... and failed when it fires */
	KUNIT_EXPECT_TRUE(test, tbio_wait(tb, 5000));
	KUNIT_EXPECT_EQ(test, blk_status_to_errno(tb->final),
			blk_status_to_errno(BLK_STS_IOERR));
	KUNIT_EXPECT_FALSE(test, blk_mpath_queue_if_no_path(m));

	blk_mpath_destroy(m);
	tbio_free(tb);
}

/* ---- real bios on the queues of a fake driver ---------------------------------- */

/*
 * The next bt_fails requests, on whichever path they reach, complete with
 * bt_fail_status; every other one succeeds.
 */
static atomic_t bt_fails;
static blk_status_t bt_fail_status;

static void bt_fail_next(int n, blk_status_t st)
{
	bt_fail_status = st;
	atomic_set(&bt_fails, n);
}

struct bt_dev {
	struct blk_mpath_path *path;
	struct blk_mq_tag_set set;
	struct gendisk *disk;
	atomic_t nr;			/* requests seen */
};

static blk_status_t bt_queue_rq(struct blk_mq_hw_ctx *hctx,
				const struct blk_mq_queue_data *bd)
{
	struct bt_dev *d = hctx->queue->queuedata;
	blk_status_t st = BLK_STS_OK;

	atomic_inc(&d->nr);
	if (atomic_dec_if_positive(&bt_fails) >= 0)
		st = bt_fail_status;
	blk_mq_start_request(bd->rq);
	blk_mq_end_request(bd->rq, st);
	return BLK_STS_OK;
}

static const struct blk_mq_ops bt_mq_ops = {
	.queue_rq	= bt_queue_rq,
};

/* what submit_bio needs of a disk that was never added */
static const struct block_device_operations bt_fops = {
	.owner		= THIS_MODULE,
};

static struct bt_dev *bt_dev_create(struct kunit *test)
{
	struct bt_dev *d = kunit_kzalloc(test, sizeof(*d), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, d);
	d->set.ops = &bt_mq_ops;
	d->set.nr_hw_queues = 1;
	d->set.queue_depth = 8;
	d->set.numa_node = NUMA_NO_NODE;
	d->set.flags = BLK_MQ_F_SHOULD_MERGE;
	KUNIT_ASSERT_EQ(test, blk_mq_alloc_tag_set(&d->set), 0);
	d->disk = blk_mq_alloc_disk(&d->set, d);
	if (IS_ERR(d->disk)) {
		blk_mq_free_tag_set(&d->set);
		KUNIT_ASSERT_FALSE(test, true);
	}
	d->disk->fops = &bt_fops;
	set_capacity(d->disk, 2048);
	return d;
}

static void bt_dev_destroy(struct bt_dev *d)
{
	put_disk(d->disk);
	blk_mq_free_tag_set(&d->set);
}

/* m with one group of @n paths on fake devices */
static struct blk_mpath *bt_create_devs(struct kunit *test,
					struct bt_owner *o,
					const char *selector,
					struct bt_dev **d, int n)
{
	struct blk_mpath_pg *pg;
	struct blk_mpath *m;
	char *err = NULL;
	char name[16];
	int i;

	m = bt_create(test, o, false, 0);
	pg = blk_mpath_add_pg(m, selector, 0, NULL, &err);
	KUNIT_ASSERT_FALSE(test, IS_ERR(pg));
	for (i = 0; i < n; i++) {
		d[i] = bt_dev_create(test);
		snprintf(name, sizeof(name), "251:%d", i);
		d[i]->path = blk_mpath_add_path(pg, d[i]->disk->part0, name,
						0, NULL, &err);
		KUNIT_ASSERT_FALSE(test, IS_ERR(d[i]->path));
	}
	KUNIT_ASSERT_EQ(test, blk_mpath_start(m, &err), 0);
	return m;
}

/* one bio, submitted and waited for; returns the final status as errno */
static int bt_io(struct kunit *test, struct blk_mpath *m,
		 struct bt_dev *upper, blk_opf_t opf, struct tbio **tbp)
{
	struct tbio *tb = tbio_alloc(test, m, upper->disk->part0, opf);
	int err;

	KUNIT_EXPECT_EQ(test, tbio_submit(tb), BLK_MPATH_BIO_REMAPPED);
	KUNIT_EXPECT_TRUE(test, tbio_wait(tb, 5000));
	err = blk_status_to_errno(tb->final);
	if (tbp)
		*tbp = tb;
	else
		tbio_free(tb);
	return err;
}

static const char *bt_ps_status(struct blk_mpath_path *p, char *buf,
				size_t len)
{
	struct blk_mpath_selector *ps = &p->pg->ps;
	int n;

	n = ps->type->status(ps, p, BLK_MPATH_STATUS_INFO, buf, len);
	buf[n] = 0;
	return buf;
}

/* the counters of both paths, summed */
static struct blk_mpath_path_counters bt_sum(struct bt_dev **d)
{
	struct blk_mpath_path_counters a = bt_ctrs(d[0]->path);
	struct blk_mpath_path_counters b = bt_ctrs(d[1]->path);

	a.ios += b.ios;
	a.bytes += b.bytes;
	a.errors_path += b.errors_path;
	a.errors_target += b.errors_target;
	a.errors_reservation += b.errors_reservation;
	a.errors_resource += b.errors_resource;
	return a;
}

/* the device of the first failed path (-1: none failed) */
static int bt_failed(struct bt_dev **d)
{
	return !d[0]->path->is_active ? 0 : !d[1]->path->is_active ? 1 : -1;
}

static void bio_map_end(struct kunit *test)
{
	struct bt_dev *upper = bt_dev_create(test);
	struct blk_mpath_path_counters c;
	struct bt_owner o = {};
	struct bt_dev *d[2];
	struct blk_mpath *m;
	struct tbio *tb, *t2;
	int x, f;
	char buf[32];

	m = bt_create_devs(test, &o, "queue-length", d, 2);

	/* mapped to its path: the path's bdev, fail fast, start_io */
	tb = tbio_alloc(test, m, upper->disk->part0, REQ_OP_READ);
	KUNIT_EXPECT_EQ(test, blk_mpath_map_bio(m, &tb->bio, &tb->ctx),
			BLK_MPATH_BIO_REMAPPED);
	KUNIT_ASSERT_NOT_NULL(test, tb->ctx.rq.path);
	x = tb->ctx.rq.path == d[1]->path;
	KUNIT_EXPECT_PTR_EQ(test, tb->ctx.rq.path, d[x]->path);
	KUNIT_EXPECT_PTR_EQ(test, tb->bio.bi_bdev, d[x]->disk->part0);
	KUNIT_EXPECT_TRUE(test, tb->bio.bi_opf & REQ_FAILFAST_TRANSPORT);
	KUNIT_EXPECT_PTR_EQ(test, tb->ctx.bi_bdev, upper->disk->part0);
	KUNIT_EXPECT_EQ(test, tb->ctx.rq.nr_bytes, 4096U);
	KUNIT_EXPECT_STREQ(test, bt_ps_status(d[x]->path, buf, sizeof(buf)),
			   "1 ");
	/* ... the next one goes to the other, less loaded path */
	t2 = tbio_alloc(test, m, upper->disk->part0, REQ_OP_READ);
	KUNIT_EXPECT_EQ(test, blk_mpath_map_bio(m, &t2->bio, &t2->ctx),
			BLK_MPATH_BIO_REMAPPED);
	KUNIT_EXPECT_PTR_EQ(test, t2->ctx.rq.path, d[!x]->path);
	submit_bio_noacct(&t2->bio);
	KUNIT_EXPECT_TRUE(test, tbio_wait(t2, 5000));
	/* accounted: the engine no longer refers to the path */
	KUNIT_EXPECT_NULL(test, t2->ctx.rq.path);
	tbio_free(t2);
	submit_bio_noacct(&tb->bio);
	KUNIT_EXPECT_TRUE(test, tbio_wait(tb, 5000));
	KUNIT_EXPECT_EQ(test, blk_status_to_errno(tb->final), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&tb->ends), 1);
	KUNIT_EXPECT_STREQ(test, bt_ps_status(d[x]->path, buf, sizeof(buf)),
			   "0 ");
	c = bt_ctrs(d[x]->path);
	KUNIT_EXPECT_EQ(test, c.ios, 1);
	KUNIT_EXPECT_EQ(test, c.bytes, 4096);
	tbio_free(tb);

	/* target statuses are returned as they came, the paths kept */
	bt_fail_next(1, BLK_STS_MEDIUM);
	KUNIT_EXPECT_EQ(test, bt_io(test, m, upper, REQ_OP_READ, NULL),
			blk_status_to_errno(BLK_STS_MEDIUM));
	bt_fail_next(1, BLK_STS_TARGET);
	KUNIT_EXPECT_EQ(test, bt_io(test, m, upper, REQ_OP_WRITE, NULL),
			blk_status_to_errno(BLK_STS_TARGET));
	bt_fail_next(1, BLK_STS_NEXUS);
	KUNIT_EXPECT_EQ(test, bt_io(test, m, upper, REQ_OP_WRITE, NULL),
			blk_status_to_errno(BLK_STS_NEXUS));
	KUNIT_EXPECT_EQ(test, atomic_read(&m->nr_valid_paths), 2);
	c = bt_sum(d);
	KUNIT_EXPECT_EQ(test, c.errors_target, 2);
	KUNIT_EXPECT_EQ(test, c.errors_reservation, 1);
	KUNIT_EXPECT_EQ(test, c.errors_path, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&o.failed), 0);

	/*
	 * a path status fails the path; the engine resubmits the bio,
	 * restored as the owner handed it over, to the other path
	 */
	bt_fail_next(1, BLK_STS_TRANSPORT);
	KUNIT_EXPECT_EQ(test, bt_io(test, m, upper, REQ_OP_READ, &tb), 0);
	f = bt_failed(d);
	KUNIT_ASSERT_GE(test, f, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&tb->resubmits), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&tb->ends), 2);
	KUNIT_EXPECT_PTR_EQ(test, tb->bio.bi_bdev, d[!f]->disk->part0);
	KUNIT_EXPECT_EQ(test, tb->bio.bi_iter.bi_sector, 8ULL);
	tbio_free(tb);
	KUNIT_EXPECT_EQ(test, atomic_read(&m->nr_valid_paths), 1);
	KUNIT_EXPECT_EQ(test, d[f]->path->fail_count, 1U);
	KUNIT_EXPECT_EQ(test, atomic_read(&o.failed), 1);
	KUNIT_EXPECT_EQ(test, bt_ctrs(d[f]->path).errors_path, 1);
	c = bt_sum(d);
	KUNIT_EXPECT_EQ(test, c.ios, 7);
	KUNIT_EXPECT_EQ(test, c.bytes, 3 * 4096);
	/* the selector saw each issue end exactly once */
	KUNIT_EXPECT_STREQ(test, bt_ps_status(d[0]->path, buf, sizeof(buf)),
			   "0 ");
	KUNIT_EXPECT_STREQ(test, bt_ps_status(d[1]->path, buf, sizeof(buf)),
			   "0 ");

	/* the last path fails too, no queueing: the bio's own status */
	bt_fail_next(1, BLK_STS_TRANSPORT);
	KUNIT_EXPECT_EQ(test, bt_io(test, m, upper, REQ_OP_READ, NULL),
			blk_status_to_errno(BLK_STS_TRANSPORT));
	KUNIT_EXPECT_EQ(test, atomic_read(&m->nr_valid_paths), 0);

	/* queue_if_no_path: held until a path is back, then completed */
	blk_mpath_set_queueing(m, true, BLK_MPATH_QUEUEING_MESSAGE);
	tb = tbio_alloc(test, m, upper->disk->part0, REQ_OP_WRITE);
	KUNIT_EXPECT_EQ(test, tbio_submit(tb), BLK_MPATH_BIO_QUEUED);
	KUNIT_EXPECT_TRUE(test, tbio_held(tb, 200));
	KUNIT_EXPECT_FALSE(test, bt_held_work_pending(m));
	blk_mpath_reinstate_path(m, d[f]->path);
	KUNIT_EXPECT_TRUE(test, tbio_wait(tb, 5000));
	KUNIT_EXPECT_EQ(test, blk_status_to_errno(tb->final), 0);
	KUNIT_EXPECT_PTR_EQ(test, tb->bio.bi_bdev, d[f]->disk->part0);
	tbio_free(tb);

	/* a path error with queueing and no path left: held, not failed */
	bt_fail_next(1, BLK_STS_IOERR);
	tb = tbio_alloc(test, m, upper->disk->part0, REQ_OP_READ);
	KUNIT_EXPECT_EQ(test, tbio_submit(tb), BLK_MPATH_BIO_REMAPPED);
	KUNIT_EXPECT_TRUE(test, tbio_held(tb, 300));
	KUNIT_EXPECT_EQ(test, atomic_read(&tb->resubmits), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&m->nr_valid_paths), 0);
	KUNIT_EXPECT_PTR_EQ(test, m->bioq.head, &tb->ctx);
	blk_mpath_reinstate_path(m, d[!f]->path);
	KUNIT_EXPECT_TRUE(test, tbio_wait(tb, 5000));
	KUNIT_EXPECT_EQ(test, blk_status_to_errno(tb->final), 0);
	KUNIT_EXPECT_PTR_EQ(test, tb->bio.bi_bdev, d[!f]->disk->part0);
	tbio_free(tb);
	blk_mpath_reinstate_path(m, d[f]->path);
	blk_mpath_set_queueing(m, false, BLK_MPATH_QUEUEING_MESSAGE);
	KUNIT_EXPECT_EQ(test, atomic_read(&m->nr_valid_paths), 2);

	/* out of resources: resubmitted later, the path kept */
	c = bt_sum(d);
	bt_fail_next(1, BLK_STS_RESOURCE);
	KUNIT_EXPECT_EQ(test, bt_io(test, m, upper, REQ_OP_READ, &tb), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&tb->resubmits), 1);
	tbio_free(tb);
	KUNIT_EXPECT_EQ(test, atomic_read(&m->nr_valid_paths), 2);
	KUNIT_EXPECT_EQ(test, bt_sum(d).errors_resource, c.errors_resource + 1);

	/* BLK_STS_AGAIN of a REQ_NOWAIT bio: returned, the path kept */
	bt_fail_next(1, BLK_STS_AGAIN);
	KUNIT_EXPECT_EQ(test, bt_io(test, m, upper, REQ_OP_READ | REQ_NOWAIT,
				    NULL),
			-EAGAIN);
	KUNIT_EXPECT_EQ(test, atomic_read(&m->nr_valid_paths), 2);
	bt_fail_next(0, BLK_STS_OK);

	blk_mpath_destroy(m);
	bt_dev_destroy(d[1]);
	bt_dev_destroy(d[0]);
	bt_dev_destroy(upper);
}

static void bio_pg_init(struct kunit *test)
{
	struct bt_dev *upper = bt_dev_create(test);
	struct block_device *bdev;
	struct bt_owner o = {};
	unsigned long flags;
	struct bt_dev *d[1];
	struct blk_mpath *m;
	struct tbio *tb;
	int count;

	m = bt_create_devs(test, &o, "round-robin", d, 1);
	KUNIT_EXPECT_EQ(test, bt_io(test, m, upper, REQ_OP_READ, NULL), 0);

	/*
	 * I/O held for pg_init (as __switch_pg() with a handler sets it),
	 * pg_init not allowed yet (as during blk_mpath_flush()): held, and
	 * nothing runs until pg_init's end
	 */
	spin_lock_irqsave(&m->lock, flags);
	set_bit(BLK_MPATHF_QUEUE_IO, &m->flags);
	set_bit(BLK_MPATHF_PG_INIT_DISABLED, &m->flags);
	spin_unlock_irqrestore(&m->lock, flags);
	count = atomic_read(&m->pg_init_count);
	tb = tbio_alloc(test, m, upper->disk->part0, REQ_OP_READ);
	KUNIT_EXPECT_EQ(test, tbio_submit(tb), BLK_MPATH_BIO_QUEUED);
	KUNIT_EXPECT_TRUE(test, tbio_held(tb, 300));
	KUNIT_EXPECT_FALSE(test, bt_held_work_pending(m));
	KUNIT_EXPECT_EQ(test, atomic_read(&d[0]->nr), 1);

	/* an ioctl kicks the held bios: they start pg_init, whose end frees them */
	spin_lock_irqsave(&m->lock, flags);
	clear_bit(BLK_MPATHF_PG_INIT_DISABLED, &m->flags);
	spin_unlock_irqrestore(&m->lock, flags);
	KUNIT_EXPECT_EQ(test, blk_mpath_prepare_ioctl(m, &bdev), -ENOTCONN);
	KUNIT_EXPECT_TRUE(test, tbio_wait(tb, 5000));
	KUNIT_EXPECT_EQ(test, blk_status_to_errno(tb->final), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&m->pg_init_count), count + 1);
	KUNIT_EXPECT_FALSE(test, test_bit(BLK_MPATHF_QUEUE_IO, &m->flags));
	KUNIT_EXPECT_EQ(test, atomic_read(&d[0]->nr), 2);
	tbio_free(tb);

	blk_mpath_flush(m);
	blk_mpath_destroy(m);
	bt_dev_destroy(d[0]);
	bt_dev_destroy(upper);
}

static struct kunit_case blk_mpath_bio_cases[] = {
	KUNIT_CASE(bio_no_path),
	KUNIT_CASE(bio_no_path_timeout),
	KUNIT_CASE(bio_map_end),
	KUNIT_CASE(bio_pg_init),
	{}
};

static struct kunit_suite blk_mpath_bio_suite = {
	.name = "blk-mpath-bio",
	.test_cases = blk_mpath_bio_cases,
};

kunit_test_suites(&blk_mpath_bio_suite);

MODULE_DESCRIPTION("KUnit tests for queue_mode bio of the blk-mpath engine");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(BLK_MPATH_KUNIT);
