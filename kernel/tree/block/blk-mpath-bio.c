// SPDX-License-Identifier: GPL-2.0
/*
 * blk-mpath: queue_mode bio.
 *
 * The bio-based mode of stock dm-multipath (drivers/md/dm-mpath.c:
 * __map_bio(), __multipath_map_bio(), process_queued_bios(),
 * multipath_end_io_bio()) on the engine's groups, selectors, path state,
 * queueing and pg_init.  The owner hands each bio to blk_mpath_map_bio(),
 * which points it at a path, and each completed one to blk_mpath_end_bio().
 * Bios that cannot go to a path now (no usable path with queue_if_no_path,
 * pg_init running, a path error to retry on another path) are held here,
 * in arrival order, and mapped and resubmitted (submit_bio_noacct()) by a
 * work item when the state that held them changes.
 *
 * What differs from request mode: a bio has no error detail, so the
 * verdict is blk_mpath_classify() of its status alone; a failed bio is
 * resubmitted by the engine instead of being requeued by the owner.
 *
 * What differs from stock bio mode: a bio held because no path is usable
 * waits for a state change (a path reinstated, queueing turned off,
 * pg_init done) instead of being remapped by a work item that requeues
 * itself without end; the selector's end_io is undone exactly once per
 * issue; a target status (BLK_STS_MEDIUM, _TARGET, ...) is returned as
 * it came, a path status is returned as it came when no path is left.
 *
 * Based on dm-mpath.c:
 * Copyright (C) 2003 Sistina Software Limited.
 * Copyright (C) 2004-2005 Red Hat, Inc. All rights reserved.
 */
#define pr_fmt(fmt) "blk-mpath: " fmt

#include <linux/bio.h>
#include <linux/blk-mpath.h>
#include <linux/blkdev.h>
#include <linux/ktime.h>
#include <linux/workqueue.h>

#include "blk-mpath-ps.h"

#include <trace/events/blk_mpath.h>

/*
 * Held bios are resubmitted from here (stock kmpathd): memory reclaim may
 * wait for them, hence WQ_MEM_RECLAIM.
 */
static struct workqueue_struct *kblk_mpathd;

/* A later retry (pg_init still running, out of resources): dm-rq's delay. */
#define BLK_MPATH_BIO_RETRY_DELAY	msecs_to_jiffies(100)

static bool bio_double_check_test_bit(int bit, struct blk_mpath *m)
{
	bool r = test_bit(bit, &m->flags);

	if (r) {
		unsigned long flags;

		spin_lock_irqsave(&m->lock, flags);
		r = test_bit(bit, &m->flags);
		spin_unlock_irqrestore(&m->lock, flags);
	}

	return r;
}

static bool must_push_back_bio(struct blk_mpath *m)
{
	return m->ops && m->ops->noflush_suspending &&
	       m->ops->noflush_suspending(m->owner);
}

/* stock dm_bio_record() */
static void record_bio(struct blk_mpath_bio_ctx *ctx, struct bio *bio)
{
	ctx->bi_bdev = bio->bi_bdev;
	ctx->bi_flags = bio->bi_flags;
	ctx->bi_iter = bio->bi_iter;
	ctx->bi_remaining = atomic_read(&bio->__bi_remaining);
	ctx->bi_end_io = bio->bi_end_io;
#ifdef CONFIG_BLK_DEV_INTEGRITY
	ctx->bi_integrity = bio->bi_integrity;
#endif
}

/* stock dm_bio_restore() */
static void restore_bio(struct blk_mpath_bio_ctx *ctx, struct bio *bio)
{
	bio->bi_bdev = ctx->bi_bdev;
	bio->bi_flags = ctx->bi_flags;
	bio->bi_iter = ctx->bi_iter;
	atomic_set(&bio->__bi_remaining, ctx->bi_remaining);
	bio->bi_end_io = ctx->bi_end_io;
#ifdef CONFIG_BLK_DEV_INTEGRITY
	bio->bi_integrity = ctx->bi_integrity;
#endif
}

/* Appends a bio to the held ones.  Called with m->lock held. */
static void __hold_bio(struct blk_mpath *m, struct blk_mpath_bio_ctx *ctx)
{
	lockdep_assert_held(&m->lock);

	ctx->next = NULL;
	if (m->bioq.tail)
		m->bioq.tail->next = ctx;
	else
		m->bioq.head = ctx;
	m->bioq.tail = ctx;
}

/*
 * Runs the resubmission work after @delay jiffies (0: now, also if it was
 * due later), unless pg_init holds I/O: its end kicks the work
 * (blk_mpath_bio_kick()).  Called with m->lock held.
 */
static void __kick_held(struct blk_mpath *m, unsigned long delay)
{
	lockdep_assert_held(&m->lock);

	if (test_bit(BLK_MPATHF_QUEUE_IO, &m->flags))
		return;
	if (delay)
		queue_delayed_work(kblk_mpathd, &m->bioq.work, delay);
	else
		mod_delayed_work(kblk_mpathd, &m->bioq.work, 0);
}

/* Takes every held bio, in arrival order. */
static struct blk_mpath_bio_ctx *take_held(struct blk_mpath *m)
{
	struct blk_mpath_bio_ctx *ctx;
	unsigned long flags;

	spin_lock_irqsave(&m->lock, flags);
	ctx = m->bioq.head;
	m->bioq.head = NULL;
	m->bioq.tail = NULL;
	spin_unlock_irqrestore(&m->lock, flags);

	return ctx;
}

static void path_start_io(struct blk_mpath_path *path, size_t nr_bytes)
{
	struct blk_mpath_selector *ps = &path->pg->ps;

	if (ps->type->start_io)
		ps->type->start_io(ps, path, nr_bytes);
}

/*
 * Stock __map_bio() + __multipath_map_bio().  With QUEUED the bio may
 * already be gone (resubmitted by the work item on another CPU) when this
 * returns: nothing of it is read after it is held.
 */
static enum blk_mpath_bio_map_result map_bio(struct blk_mpath *m,
					     struct bio *bio,
					     struct blk_mpath_bio_ctx *ctx)
{
	unsigned int opf = (__force unsigned int)bio->bi_opf;
	sector_t sector = bio->bi_iter.bi_sector;
	unsigned int nr_bytes = ctx->rq.nr_bytes;
	enum blk_mpath_bio_map_result ret;
	struct blk_mpath_path *path;
	unsigned long flags;

	ctx->rq.path = NULL;
	path = blk_mpath_choose_path(m, nr_bytes);
	if (!path) {
		ret = BLK_MPATH_BIO_KILL;
		spin_lock_irqsave(&m->lock, flags);
		if (test_bit(BLK_MPATHF_QUEUE_IF_NO_PATH, &m->flags)) {
			__hold_bio(m, ctx);
			/*
			 * Held until a path is reinstated or queueing is
			 * turned off (both kick the work after they changed
			 * the state under m->lock); if a path came back
			 * since the choice above, its kick may have found
			 * nothing held yet.
			 */
			if (atomic_read(&m->nr_valid_paths))
				__kick_held(m, BLK_MPATH_BIO_RETRY_DELAY);
			ret = BLK_MPATH_BIO_QUEUED;
		}
		spin_unlock_irqrestore(&m->lock, flags);
		if (ret == BLK_MPATH_BIO_QUEUED)
			goto out;

		if (must_push_back_bio(m))
			ret = BLK_MPATH_BIO_PUSH_BACK;
		else
			pr_debug_ratelimited("%s: returning EIO; QIFNP = 0; SQIFNP = %d; DNFS = 0\n",
					     m->name,
					     test_bit(BLK_MPATHF_SAVED_QUEUE_IF_NO_PATH,
						      &m->flags));
		goto out;
	} else if (bio_double_check_test_bit(BLK_MPATHF_QUEUE_IO, m) ||
		   bio_double_check_test_bit(BLK_MPATHF_PG_INIT_REQUIRED, m)) {
		spin_lock_irqsave(&m->lock, flags);
		__hold_bio(m, ctx);
		/* pg_init's end kicks; without QUEUE_IO, look again later */
		__kick_held(m, BLK_MPATH_BIO_RETRY_DELAY);
		spin_unlock_irqrestore(&m->lock, flags);
		blk_mpath_pg_init_all_paths(m);
		ret = BLK_MPATH_BIO_QUEUED;
		goto out;
	}

	if (WARN_ON_ONCE(!path->bdev)) {
		ret = BLK_MPATH_BIO_KILL;
		goto out;
	}

	ctx->rq.path = path;
	ctx->start_ns = ktime_get_ns();
	bio->bi_status = BLK_STS_OK;
	bio_set_dev(bio, path->bdev);
	bio->bi_opf |= REQ_FAILFAST_TRANSPORT;
	path_start_io(path, nr_bytes);
	ret = BLK_MPATH_BIO_REMAPPED;
out:
	trace_blk_mpath_map_bio(m, path, sector, nr_bytes, opf, ret);
	return ret;
}

/**
 * blk_mpath_map_bio - choose a path for a bio
 * @m: the multipath (cfg->bio_based)
 * @bio: the bio (dm: the target's clone)
 * @ctx: per-bio engine state kept by the owner
 *
 * Stock multipath_map_bio().  Returns BLK_MPATH_BIO_REMAPPED with the bio
 * pointed at its path: the owner submits it.  With BLK_MPATH_BIO_QUEUED
 * the engine holds the bio; see include/linux/blk-mpath.h.
 */
enum blk_mpath_bio_map_result blk_mpath_map_bio(struct blk_mpath *m,
						struct bio *bio,
						struct blk_mpath_bio_ctx *ctx)
{
	ctx->bio = bio;
	ctx->next = NULL;
	ctx->rq.path = NULL;
	ctx->rq.nr_bytes = bio->bi_iter.bi_size;
	ctx->rq.retry_since = 0;
	ctx->start_ns = 0;
	record_bio(ctx, bio);

	return map_bio(m, bio, ctx);
}
EXPORT_SYMBOL_GPL(blk_mpath_map_bio);

/* Stock process_queued_bios(). */
static void process_held_bios(struct work_struct *work)
{
	struct blk_mpath *m = container_of(to_delayed_work(work),
					   struct blk_mpath, bioq.work);
	struct blk_mpath_bio_ctx *ctx, *next;
	struct blk_plug plug;
	struct bio *bio;

	ctx = take_held(m);
	if (!ctx)
		return;

	blk_start_plug(&plug);
	for (; ctx; ctx = next) {
		/* once mapped, ctx may be held again or completed */
		next = ctx->next;
		bio = ctx->bio;
		restore_bio(ctx, bio);
		switch (map_bio(m, bio, ctx)) {
		case BLK_MPATH_BIO_REMAPPED:
			submit_bio_noacct(bio);
			break;
		case BLK_MPATH_BIO_QUEUED:
			break;
		case BLK_MPATH_BIO_PUSH_BACK:
			bio->bi_status = BLK_STS_DM_REQUEUE;
			bio_endio(bio);
			break;
		case BLK_MPATH_BIO_KILL:
		default:
			bio->bi_status = BLK_STS_IOERR;
			bio_endio(bio);
			break;
		}
	}
	blk_finish_plug(&plug);
}

/**
 * blk_mpath_end_bio - verdict on a completed bio
 * @m: the multipath
 * @bio: the bio, as blk_mpath_map_bio() or the engine's work submitted it
 * @status: the status it completed with; left as it is with DONE
 * @ctx: per-bio engine state, as blk_mpath_map_bio() filled it
 *
 * Stock multipath_end_io_bio(), driven by blk_mpath_classify() of the
 * status (a bio has no error detail).  Accounts the selector and the
 * per-path counters once per issue.
 */
enum blk_mpath_bio_end_result blk_mpath_end_bio(struct blk_mpath *m,
						struct bio *bio,
						blk_status_t *status,
						struct blk_mpath_bio_ctx *ctx)
{
	struct blk_error_detail d = { .status = *status };
	enum blk_mpath_err_class cls;
	enum blk_mpath_end_result r;
	unsigned long flags;

	/* ended by the engine itself (no path, push back): nothing issued */
	if (!ctx->rq.path)
		return BLK_MPATH_BIO_END_DONE;

	cls = blk_mpath_classify(&d);
	/*
	 * A REQ_NOWAIT bio the path could not take without waiting: the
	 * submitter retries it (io_uring from a worker that may wait); not
	 * the path's fault.
	 */
	if (unlikely(*status == BLK_STS_AGAIN) && (bio->bi_opf & REQ_NOWAIT))
		cls = BLK_MPATH_ERR_TARGET;

	r = blk_mpath_end_class(m, &ctx->rq, &d, cls, ctx->start_ns, status);
	/* accounted: a later end of this bio by the engine is not an issue */
	ctx->rq.path = NULL;
	if (r == BLK_MPATH_END_DONE)
		return BLK_MPATH_BIO_END_DONE;

	/* a path error (the path is failed) or out of resources: resubmit */
	spin_lock_irqsave(&m->lock, flags);
	__hold_bio(m, ctx);
	__kick_held(m, r == BLK_MPATH_END_DELAY_RETRY ?
		    BLK_MPATH_BIO_RETRY_DELAY : 0);
	spin_unlock_irqrestore(&m->lock, flags);

	return BLK_MPATH_BIO_END_QUEUED;
}
EXPORT_SYMBOL_GPL(blk_mpath_end_bio);

/* ---- for blk-mpath-core.c ----------------------------------------------------- */

void blk_mpath_bio_setup(struct blk_mpath *m, bool bio_based)
{
	m->bio_based = bio_based;
	m->bioq.head = NULL;
	m->bioq.tail = NULL;
	INIT_DELAYED_WORK(&m->bioq.work, process_held_bios);
}

/* Stock process_queued_io_list(): the state that held bios changed. */
void blk_mpath_bio_kick(struct blk_mpath *m)
{
	if (m->bio_based)
		mod_delayed_work(kblk_mpathd, &m->bioq.work, 0);
}

void blk_mpath_bio_flush(struct blk_mpath *m)
{
	if (m->bio_based)
		flush_delayed_work(&m->bioq.work);
}

/*
 * Destructor: stops the work.  The owner has no bio in flight; one still
 * held would be an owner bug: it is failed rather than leaked.
 */
void blk_mpath_bio_drain(struct blk_mpath *m)
{
	struct blk_mpath_bio_ctx *ctx, *next;

	if (!m->bio_based)
		return;
	cancel_delayed_work_sync(&m->bioq.work);
	ctx = take_held(m);
	WARN_ONCE(ctx, "%s: destroyed with bios held\n", m->name);
	for (; ctx; ctx = next) {
		next = ctx->next;
		ctx->rq.path = NULL;
		restore_bio(ctx, ctx->bio);
		ctx->bio->bi_status = BLK_STS_IOERR;
		bio_endio(ctx->bio);
	}
}

int blk_mpath_bio_init(void)
{
	kblk_mpathd = alloc_workqueue("kblk_mpathd", WQ_MEM_RECLAIM, 0);
	return kblk_mpathd ? 0 : -ENOMEM;
}

void blk_mpath_bio_exit(void)
{
	destroy_workqueue(kblk_mpathd);
}
