// SPDX-License-Identifier: GPL-2.0
/*
 * blk-mpath: request-based multipath engine.
 *
 * The policy (path groups, failover, failback, queue_if_no_path, pg_init
 * through scsi_dh) is that of the request-based mode of stock dm-multipath
 * (drivers/md/dm-mpath.c), which users and multipathd depend on.  What is
 * new is the completion verdict: instead of a bare blk_status_t the engine
 * reads the detailed error of each completed clone (blk_rq_error_detail())
 * and classifies it with blk_mpath_classify(): a target error is returned
 * and never retried on another path, a path error fails the path and is
 * retried elsewhere, a transient condition is retried without failing it.
 *
 * Based on dm-mpath.c:
 * Copyright (C) 2003 Sistina Software Limited.
 * Copyright (C) 2004-2005 Red Hat, Inc. All rights reserved.
 */
#define pr_fmt(fmt) "blk-mpath: " fmt

#include <linux/blk-mpath.h>
#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/debugfs.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/timer.h>
#include <linux/wait.h>
#include <scsi/scsi_dh.h>
#include <scsi/scsi_proto.h>
#include <scsi/scsi_status.h>

#include "blk.h"
#include "blk-mpath-ps.h"

#define CREATE_TRACE_POINTS
#include <trace/events/blk_mpath.h>

#define BLK_MPATH_PG_INIT_DELAY_MSECS	2000	/* stock DM_PG_INIT_DELAY_MSECS */

/* Engine-private part of struct blk_mpath. */
struct blk_mpath_priv {
	struct blk_mpath m;
	unsigned int initial_pg_num;
	struct dentry *debugfs_dir;
	bool debugfs_canonical;		/* dir named m->name, no suffix */
	struct list_head node;		/* in blk_mpath_instances */
};

static struct workqueue_struct *kmpath_handlerd;
static struct dentry *blk_mpath_debugfs_root;
static atomic_t blk_mpath_instance = ATOMIC_INIT(0);
/*
 * Started instances, for debugfs names (dm loads a table before it drops
 * the previous one of the same device).
 */
static LIST_HEAD(blk_mpath_instances);
static DEFINE_MUTEX(blk_mpath_instances_lock);

static void trigger_event(struct work_struct *work);
static void activate_or_offline_path(struct blk_mpath_path *path);
static void activate_path_work(struct work_struct *work);
static void queue_if_no_path_timeout_work(struct timer_list *t);

static struct blk_mpath_priv *to_priv(struct blk_mpath *m)
{
	return container_of(m, struct blk_mpath_priv, m);
}

static bool mpath_double_check_test_bit(int bit, struct blk_mpath *m)
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

/*
 * Lifetime: groups and paths are created before blk_mpath_start() and freed
 * only by blk_mpath_destroy(), after an RCU grace period.  m->current_path
 * is published with rcu_assign_pointer() under m->lock and read under
 * rcu_read_lock(): what a reader finds stays valid to the end of its
 * read-side section (blk_mpath_map_rq() holds one from the choice of the
 * path to the clone's accounting), and blk_mpath_destroy() waits for a
 * grace period before it frees anything.  Past its section a path
 * (ctx->path of a request in flight, the path of a mapped bio or of a
 * prepared ioctl) is held by the owner's promise that no request is
 * mapped or completed, and no ioctl prepared, once it called
 * blk_mpath_destroy() (dm: the table is unbound first and dm_sync_table()
 * waits for its users).
 */
static struct blk_mpath_path *mpath_current_path(struct blk_mpath *m)
{
	return rcu_dereference_check(m->current_path,
				     lockdep_is_held(&m->lock));
}

static void mpath_kick(struct blk_mpath *m)
{
	if (m->ops && m->ops->kick)
		m->ops->kick(m->owner);
	/* queue_mode bio: the engine holds the bios itself */
	blk_mpath_bio_kick(m);
}

static void mpath_trigger_event(struct blk_mpath *m)
{
	schedule_work(&m->trigger_event);
}

static bool __must_push_back(struct blk_mpath *m)
{
	return m->ops && m->ops->noflush_suspending &&
	       m->ops->noflush_suspending(m->owner);
}

static bool must_push_back_rq(struct blk_mpath *m)
{
	unsigned long flags;
	bool ret;

	spin_lock_irqsave(&m->lock, flags);
	ret = test_bit(BLK_MPATHF_QUEUE_IF_NO_PATH, &m->flags) ||
	      __must_push_back(m);
	spin_unlock_irqrestore(&m->lock, flags);

	return ret;
}

/* ---- path selection (stock choose_pgpath) -------------------------------- */

static int __pg_init_all_paths(struct blk_mpath *m)
{
	struct blk_mpath_path *path;
	unsigned long pg_init_delay = 0;

	lockdep_assert_held(&m->lock);

	if (atomic_read(&m->pg_init_in_progress) ||
	    test_bit(BLK_MPATHF_PG_INIT_DISABLED, &m->flags))
		return 0;

	atomic_inc(&m->pg_init_count);
	clear_bit(BLK_MPATHF_PG_INIT_REQUIRED, &m->flags);

	/* Check here to reset pg_init_required */
	if (!m->current_pg)
		return 0;

	if (test_bit(BLK_MPATHF_PG_INIT_DELAY_RETRY, &m->flags))
		pg_init_delay = msecs_to_jiffies(m->pg_init_delay_msecs !=
						 BLK_MPATH_PG_INIT_DELAY_DEFAULT ?
						 m->pg_init_delay_msecs :
						 BLK_MPATH_PG_INIT_DELAY_MSECS);
	list_for_each_entry(path, &m->current_pg->paths, list) {
		/* Skip failed paths */
		if (!path->is_active)
			continue;
		if (queue_delayed_work(kmpath_handlerd, &path->activate_path,
				       pg_init_delay))
			atomic_inc(&m->pg_init_in_progress);
	}
	return atomic_read(&m->pg_init_in_progress);
}

static int pg_init_all_paths(struct blk_mpath *m)
{
	unsigned long flags;
	int ret;

	spin_lock_irqsave(&m->lock, flags);
	ret = __pg_init_all_paths(m);
	spin_unlock_irqrestore(&m->lock, flags);

	return ret;
}

/* pg_init_all_paths() for blk-mpath-bio.c */
int blk_mpath_pg_init_all_paths(struct blk_mpath *m)
{
	return pg_init_all_paths(m);
}

static void __switch_pg(struct blk_mpath *m, struct blk_mpath_pg *pg)
{
	lockdep_assert_held(&m->lock);

	m->current_pg = pg;

	/* Must we initialise the PG first, and queue I/O till it's ready? */
	if (m->hw_handler_name) {
		set_bit(BLK_MPATHF_PG_INIT_REQUIRED, &m->flags);
		set_bit(BLK_MPATHF_QUEUE_IO, &m->flags);
	} else {
		clear_bit(BLK_MPATHF_PG_INIT_REQUIRED, &m->flags);
		clear_bit(BLK_MPATHF_QUEUE_IO, &m->flags);
	}

	atomic_set(&m->pg_init_count, 0);
}

static struct blk_mpath_path *choose_path_in_pg(struct blk_mpath *m,
						struct blk_mpath_pg *pg,
						size_t nr_bytes)
{
	struct blk_mpath_path *path;
	unsigned long flags;

	path = pg->ps.type->select_path(&pg->ps, nr_bytes);
	if (!path)
		return NULL;

	if (unlikely(READ_ONCE(m->current_pg) != pg)) {
		/* Only update current_path if pg changed */
		spin_lock_irqsave(&m->lock, flags);
		rcu_assign_pointer(m->current_path, path);
		__switch_pg(m, pg);
		spin_unlock_irqrestore(&m->lock, flags);
	}

	return path;
}

static struct blk_mpath_path *choose_pgpath(struct blk_mpath *m,
					    size_t nr_bytes)
{
	struct blk_mpath_path *path;
	struct blk_mpath_pg *pg;
	unsigned int bypassed = 1;
	unsigned long flags;

	if (!atomic_read(&m->nr_valid_paths)) {
		spin_lock_irqsave(&m->lock, flags);
		clear_bit(BLK_MPATHF_QUEUE_IO, &m->flags);
		spin_unlock_irqrestore(&m->lock, flags);
		goto failed;
	}

	/* Were we instructed to switch PG? */
	if (READ_ONCE(m->next_pg)) {
		spin_lock_irqsave(&m->lock, flags);
		pg = m->next_pg;
		if (!pg) {
			spin_unlock_irqrestore(&m->lock, flags);
			goto check_current_pg;
		}
		m->next_pg = NULL;
		spin_unlock_irqrestore(&m->lock, flags);
		path = choose_path_in_pg(m, pg, nr_bytes);
		if (path)
			return path;
	}

	/* Don't change PG until it has no remaining paths */
check_current_pg:
	pg = READ_ONCE(m->current_pg);
	if (pg) {
		path = choose_path_in_pg(m, pg, nr_bytes);
		if (path)
			return path;
	}

	/*
	 * Loop through priority groups until we find a valid path.
	 * First time we skip PGs marked 'bypassed'.
	 * Second time we only try the ones we skipped, but set
	 * pg_init_delay_retry so we do not hammer controllers.
	 */
	do {
		list_for_each_entry(pg, &m->pgs, list) {
			if (pg->bypassed == !!bypassed)
				continue;
			path = choose_path_in_pg(m, pg, nr_bytes);
			if (path) {
				if (!bypassed) {
					spin_lock_irqsave(&m->lock, flags);
					set_bit(BLK_MPATHF_PG_INIT_DELAY_RETRY,
						&m->flags);
					spin_unlock_irqrestore(&m->lock, flags);
				}
				return path;
			}
		}
	} while (bypassed--);

failed:
	spin_lock_irqsave(&m->lock, flags);
	RCU_INIT_POINTER(m->current_path, NULL);
	m->current_pg = NULL;
	spin_unlock_irqrestore(&m->lock, flags);

	return NULL;
}

/**
 * blk_mpath_choose_path - choose the path the next request would use
 * @m: the multipath
 * @nr_bytes: size of the next request (for the selector)
 *
 * Stock choose_pgpath(): may switch the current group and mark pg_init as
 * required.  Does not account any I/O.  Returns NULL if no path is usable.
 */
struct blk_mpath_path *blk_mpath_choose_path(struct blk_mpath *m,
					     size_t nr_bytes)
{
	struct blk_mpath_path *path;

	rcu_read_lock();
	path = mpath_current_path(m);
	if (!path || !mpath_double_check_test_bit(BLK_MPATHF_QUEUE_IO, m))
		path = choose_pgpath(m, nr_bytes);
	rcu_read_unlock();
	return path;
}
EXPORT_SYMBOL_NS_GPL(blk_mpath_choose_path, BLK_MPATH_KUNIT);

/* ---- queueing ------------------------------------------------------------- */

/* If the no-path timeout fires, turn queueing off and fail held I/O. */
static void queue_if_no_path_timeout_work(struct timer_list *t)
{
	struct blk_mpath *m = from_timer(m, t, nopath_timer);

	pr_warn("queue_if_no_path timeout on %s, failing queued IO\n",
		m->name);
	blk_mpath_set_queueing(m, false, 0);
}

static void enable_nopath_timeout(struct blk_mpath *m)
{
	unsigned long timeout = READ_ONCE(m->no_path_timeout_secs) * HZ;

	lockdep_assert_held(&m->lock);

	if (timeout > 0 && atomic_read(&m->nr_valid_paths) == 0 &&
	    test_bit(BLK_MPATHF_QUEUE_IF_NO_PATH, &m->flags))
		mod_timer(&m->nopath_timer, jiffies + timeout);
}

static void disable_nopath_timeout(struct blk_mpath *m)
{
	del_timer_sync(&m->nopath_timer);
}

/**
 * blk_mpath_set_queueing - turn queue_if_no_path on or off
 * @m: the multipath
 * @queue_if_no_path: the new setting
 * @qflags: BLK_MPATH_QUEUEING_SAVE_OLD: save the current setting for
 *	blk_mpath_restore_queueing() (presuspend);
 *	BLK_MPATH_QUEUEING_MESSAGE: the "queue_if_no_path" / "fail_if_no_path"
 *	message, which also arms (with no path left) or stops the no-path
 *	timer, as stock multipath_message() does
 *
 * Stock queue_if_no_path(): turning queueing off kicks the owner so that
 * held requests are mapped (and failed if there is still no path).
 * With BLK_MPATH_QUEUEING_MESSAGE, process context only (stopping the
 * timer waits for its handler).
 */
int blk_mpath_set_queueing(struct blk_mpath *m, bool queue_if_no_path,
			   unsigned int qflags)
{
	bool queue_bit, saved_bit;
	unsigned long flags;

	spin_lock_irqsave(&m->lock, flags);

	queue_bit = test_bit(BLK_MPATHF_QUEUE_IF_NO_PATH, &m->flags);
	saved_bit = test_bit(BLK_MPATHF_SAVED_QUEUE_IF_NO_PATH, &m->flags);

	if (qflags & BLK_MPATH_QUEUEING_SAVE_OLD) {
		if (unlikely(!queue_bit && saved_bit))
			pr_err("%s: QIFNP disabled but saved as enabled, saving again loses state, not saving!\n",
			       m->name);
		else
			assign_bit(BLK_MPATHF_SAVED_QUEUE_IF_NO_PATH,
				   &m->flags, queue_bit);
	} else if (!queue_if_no_path && saved_bit) {
		/* due to "fail_if_no_path" message, need to honor it. */
		clear_bit(BLK_MPATHF_SAVED_QUEUE_IF_NO_PATH, &m->flags);
	}
	assign_bit(BLK_MPATHF_QUEUE_IF_NO_PATH, &m->flags, queue_if_no_path);
	if ((qflags & BLK_MPATH_QUEUEING_MESSAGE) && queue_if_no_path)
		enable_nopath_timeout(m);

	spin_unlock_irqrestore(&m->lock, flags);

	if (!queue_if_no_path) {
		if (qflags & BLK_MPATH_QUEUEING_MESSAGE)
			disable_nopath_timeout(m);
		mpath_kick(m);
	}

	return 0;
}
EXPORT_SYMBOL_GPL(blk_mpath_set_queueing);

/**
 * blk_mpath_restore_queueing - restore a setting saved by set_queueing
 * @m: the multipath
 *
 * Stock multipath_resume().
 */
void blk_mpath_restore_queueing(struct blk_mpath *m)
{
	unsigned long flags;

	spin_lock_irqsave(&m->lock, flags);
	if (test_bit(BLK_MPATHF_SAVED_QUEUE_IF_NO_PATH, &m->flags)) {
		set_bit(BLK_MPATHF_QUEUE_IF_NO_PATH, &m->flags);
		clear_bit(BLK_MPATHF_SAVED_QUEUE_IF_NO_PATH, &m->flags);
	}
	spin_unlock_irqrestore(&m->lock, flags);
}
EXPORT_SYMBOL_GPL(blk_mpath_restore_queueing);

/**
 * blk_mpath_queue_if_no_path - is queue_if_no_path on?
 * @m: the multipath
 */
bool blk_mpath_queue_if_no_path(struct blk_mpath *m)
{
	return test_bit(BLK_MPATHF_QUEUE_IF_NO_PATH, &m->flags);
}
EXPORT_SYMBOL_NS_GPL(blk_mpath_queue_if_no_path, BLK_MPATH_KUNIT);

/* Whenever something visible in the status changes: dm_table_event(). */
static void trigger_event(struct work_struct *work)
{
	struct blk_mpath *m = container_of(work, struct blk_mpath,
					   trigger_event);

	if (m->ops && m->ops->state_changed)
		m->ops->state_changed(m->owner);
}

/* ---- path state ------------------------------------------------------------ */

/*
 * Stock's "Failing path <dev>" line, followed by why: the error detail of
 * the completion (class, blk status, source, host byte, SCSI status,
 * sense), the pg_init result, or the message.
 */
static __printf(2, 3) void fail_path(struct blk_mpath_path *path,
				     const char *fmt, ...)
{
	struct blk_mpath *m = path->pg->m;
	struct va_format vaf;
	unsigned int nr_valid;
	unsigned long flags;
	va_list args;

	spin_lock_irqsave(&m->lock, flags);

	if (!path->is_active) {
		spin_unlock_irqrestore(&m->lock, flags);
		return;
	}

	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	pr_warn("%s: Failing path %s: %pV.\n", m->name, path->name, &vaf);
	va_end(args);

	path->pg->ps.type->fail_path(&path->pg->ps, path);
	WRITE_ONCE(path->is_active, false);
	path->fail_count++;

	nr_valid = atomic_dec_return(&m->nr_valid_paths);

	if (rcu_access_pointer(m->current_path) == path)
		RCU_INIT_POINTER(m->current_path, NULL);

	trace_blk_mpath_path_state(m, path, false, nr_valid);
	/* under m->lock: uevents leave in the order of the state changes */
	if (m->ops && m->ops->path_event)
		m->ops->path_event(m->owner, BLK_MPATH_EV_PATH_FAILED, path,
				   nr_valid);
	mpath_trigger_event(m);
	enable_nopath_timeout(m);

	spin_unlock_irqrestore(&m->lock, flags);
}

static int reinstate_path(struct blk_mpath_path *path)
{
	struct blk_mpath *m = path->pg->m;
	unsigned int nr_valid;
	bool run_queue = false;
	unsigned long flags;
	int r = 0;

	spin_lock_irqsave(&m->lock, flags);

	if (path->is_active)
		goto out;

	pr_warn("%s: Reinstating path %s.\n", m->name, path->name);

	r = path->pg->ps.type->reinstate_path(&path->pg->ps, path);
	if (r)
		goto out;

	WRITE_ONCE(path->is_active, true);

	nr_valid = atomic_inc_return(&m->nr_valid_paths);
	if (nr_valid == 1) {
		RCU_INIT_POINTER(m->current_path, NULL);
		run_queue = true;
	} else if (m->hw_handler_name && m->current_pg == path->pg) {
		if (queue_work(kmpath_handlerd, &path->activate_path.work))
			atomic_inc(&m->pg_init_in_progress);
	}

	trace_blk_mpath_path_state(m, path, true, nr_valid);
	if (m->ops && m->ops->path_event)
		m->ops->path_event(m->owner, BLK_MPATH_EV_PATH_REINSTATED, path,
				   nr_valid);
	mpath_trigger_event(m);

out:
	spin_unlock_irqrestore(&m->lock, flags);

	if (run_queue)
		mpath_kick(m);

	if (READ_ONCE(path->is_active))
		disable_nopath_timeout(m);

	return r;
}

/**
 * blk_mpath_fail_path - take a path out of use ("fail_path" message)
 * @m: the multipath
 * @path: the path
 */
int blk_mpath_fail_path(struct blk_mpath *m, struct blk_mpath_path *path)
{
	if (!path || path->pg->m != m)
		return -EINVAL;
	fail_path(path, "fail_path message");
	return 0;
}
EXPORT_SYMBOL_GPL(blk_mpath_fail_path);

/**
 * blk_mpath_reinstate_path - reinstate a failed path
 * @m: the multipath
 * @path: the path
 */
int blk_mpath_reinstate_path(struct blk_mpath *m, struct blk_mpath_path *path)
{
	if (!path || path->pg->m != m)
		return -EINVAL;
	return reinstate_path(path);
}
EXPORT_SYMBOL_GPL(blk_mpath_reinstate_path);

static struct blk_mpath_pg *find_pg(struct blk_mpath *m, unsigned int pg_num)
{
	struct blk_mpath_pg *pg;

	list_for_each_entry(pg, &m->pgs, list)
		if (pg->pg_num == pg_num)
			return pg;
	return NULL;
}

static void bypass_pg(struct blk_mpath *m, struct blk_mpath_pg *pg,
		      bool bypassed)
{
	unsigned long flags;

	spin_lock_irqsave(&m->lock, flags);

	pg->bypassed = bypassed;
	RCU_INIT_POINTER(m->current_path, NULL);
	m->current_pg = NULL;

	spin_unlock_irqrestore(&m->lock, flags);

	mpath_trigger_event(m);
}

/**
 * blk_mpath_switch_pg - use group @pg_num from the next mapped request
 * @m: the multipath
 * @pg_num: 1-based group number
 *
 * Stock switch_pg_num(): also clears the bypassed state of every group.
 */
int blk_mpath_switch_pg(struct blk_mpath *m, unsigned int pg_num)
{
	struct blk_mpath_pg *pg;
	unsigned long flags;

	if (!pg_num || !m->nr_pgs || pg_num > m->nr_pgs) {
		pr_warn("invalid PG number supplied to switch_pg_num\n");
		return -EINVAL;
	}

	spin_lock_irqsave(&m->lock, flags);
	list_for_each_entry(pg, &m->pgs, list) {
		pg->bypassed = false;
		if (pg->pg_num != pg_num)
			continue;

		RCU_INIT_POINTER(m->current_path, NULL);
		m->current_pg = NULL;
		m->next_pg = pg;
	}
	spin_unlock_irqrestore(&m->lock, flags);

	mpath_trigger_event(m);
	return 0;
}
EXPORT_SYMBOL_GPL(blk_mpath_switch_pg);

/**
 * blk_mpath_bypass_pg - set or clear the bypassed state of a group
 * @m: the multipath
 * @pg_num: 1-based group number
 * @bypass: true for "disable_group", false for "enable_group"
 */
int blk_mpath_bypass_pg(struct blk_mpath *m, unsigned int pg_num, bool bypass)
{
	struct blk_mpath_pg *pg;

	if (!pg_num || !m->nr_pgs || pg_num > m->nr_pgs) {
		pr_warn("invalid PG number supplied to bypass_pg\n");
		return -EINVAL;
	}

	pg = find_pg(m, pg_num);
	if (!pg)
		return -EINVAL;
	bypass_pg(m, pg, bypass);
	return 0;
}
EXPORT_SYMBOL_GPL(blk_mpath_bypass_pg);

/* ---- pg_init through scsi_dh ------------------------------------------------- */

/* Should we retry pg_init immediately? */
static bool pg_init_limit_reached(struct blk_mpath *m)
{
	bool limit_reached = false;
	unsigned long flags;

	spin_lock_irqsave(&m->lock, flags);

	if (atomic_read(&m->pg_init_count) <= m->pg_init_retries &&
	    !test_bit(BLK_MPATHF_PG_INIT_DISABLED, &m->flags))
		set_bit(BLK_MPATHF_PG_INIT_REQUIRED, &m->flags);
	else
		limit_reached = true;

	spin_unlock_irqrestore(&m->lock, flags);

	return limit_reached;
}

static void __pg_init_done(struct blk_mpath_path *path, int errors,
			   const char *origin)
{
	struct blk_mpath_pg *pg = path->pg;
	struct blk_mpath *m = pg->m;
	bool delay_retry = false;
	unsigned long flags;

	/* device or driver problems */
	switch (errors) {
	case SCSI_DH_OK:
		break;
	case SCSI_DH_NOSYS:
		if (!m->hw_handler_name) {
			errors = 0;
			break;
		}
		pr_err("Could not failover the device: Handler scsi_dh_%s Error %d.\n",
		       m->hw_handler_name, errors);
		/* Fail path for now, so we do not ping pong */
		fail_path(path, "pg_init: %s: scsi_dh error %d (no handler)",
			  origin, errors);
		break;
	case SCSI_DH_DEV_TEMP_BUSY:
		/*
		 * Probably doing something like FW upgrade on the
		 * controller so try the other pg.
		 */
		bypass_pg(m, pg, true);
		break;
	case SCSI_DH_RETRY:
		/* Wait before retrying. */
		delay_retry = true;
		fallthrough;
	case SCSI_DH_IMM_RETRY:
	case SCSI_DH_RES_TEMP_UNAVAIL:
		if (pg_init_limit_reached(m))
			fail_path(path, "pg_init: %s: scsi_dh error %d, pg_init_retries %u reached",
				  origin, errors, m->pg_init_retries);
		errors = 0;
		break;
	case SCSI_DH_DEV_OFFLINED:
	default:
		/* As stock: fail the path, even for a device error. */
		fail_path(path, "pg_init: %s: scsi_dh error %d", origin, errors);
	}

	spin_lock_irqsave(&m->lock, flags);
	if (errors) {
		if (rcu_access_pointer(m->current_path) == path) {
			pr_err("Could not failover device. Error %d.\n", errors);
			RCU_INIT_POINTER(m->current_path, NULL);
			m->current_pg = NULL;
		}
	} else if (!test_bit(BLK_MPATHF_PG_INIT_REQUIRED, &m->flags)) {
		pg->bypassed = false;
	}

	if (atomic_dec_return(&m->pg_init_in_progress) > 0)
		/* Activations of other paths are still on going */
		goto out;

	if (test_bit(BLK_MPATHF_PG_INIT_REQUIRED, &m->flags)) {
		if (delay_retry)
			set_bit(BLK_MPATHF_PG_INIT_DELAY_RETRY, &m->flags);
		else
			clear_bit(BLK_MPATHF_PG_INIT_DELAY_RETRY, &m->flags);

		if (__pg_init_all_paths(m))
			goto out;
	}
	clear_bit(BLK_MPATHF_QUEUE_IO, &m->flags);
	/*
	 * Under the lock, as stock: blk_mpath_flush() takes it after the
	 * count reached 0, so the destructor cannot free m or stop the
	 * owner's queue before this kick is done.
	 */
	mpath_kick(m);

	/* Wake up any thread waiting to suspend. */
	wake_up(&m->pg_init_wait);

out:
	spin_unlock_irqrestore(&m->lock, flags);
}

static void pg_init_done(void *data, int errors)
{
	struct blk_mpath_path *path = data;

	__pg_init_done(path, errors, "hw handler");
}

static void activate_or_offline_path(struct blk_mpath_path *path)
{
	struct request_queue *q = path->bdev ? bdev_get_queue(path->bdev) :
					       NULL;

	bool active = READ_ONCE(path->is_active);

	if (active && !q)
		pg_init_done(path, SCSI_DH_OK);	/* path without a queue */
	else if (active && !blk_queue_dying(q))
		scsi_dh_activate(q, pg_init_done, path);
	else
		__pg_init_done(path, SCSI_DH_DEV_OFFLINED, "path queue dying");
}

static void activate_path_work(struct work_struct *work)
{
	struct blk_mpath_path *path =
		container_of(work, struct blk_mpath_path, activate_path.work);

	activate_or_offline_path(path);
}

static void wait_for_pg_init_completion(struct blk_mpath *m)
{
	DEFINE_WAIT(wait);

	while (1) {
		prepare_to_wait(&m->pg_init_wait, &wait, TASK_UNINTERRUPTIBLE);

		if (!atomic_read(&m->pg_init_in_progress))
			break;

		io_schedule();
	}
	finish_wait(&m->pg_init_wait, &wait);
}

/**
 * blk_mpath_flush - wait for pg_init and queued engine work
 * @m: the multipath
 *
 * Stock flush_multipath_work() (postsuspend, destructor).
 */
void blk_mpath_flush(struct blk_mpath *m)
{
	unsigned long flags;

	/*
	 * Always take the lock: a pg_init that just dropped the count to 0
	 * may still be kicking the queue under it (__pg_init_done()).
	 */
	if (m->hw_handler_name) {
		spin_lock_irqsave(&m->lock, flags);
		if (atomic_read(&m->pg_init_in_progress) &&
		    !test_and_set_bit(BLK_MPATHF_PG_INIT_DISABLED,
				      &m->flags)) {
			spin_unlock_irqrestore(&m->lock, flags);

			flush_workqueue(kmpath_handlerd);
			wait_for_pg_init_completion(m);

			spin_lock_irqsave(&m->lock, flags);
			clear_bit(BLK_MPATHF_PG_INIT_DISABLED, &m->flags);
		}
		spin_unlock_irqrestore(&m->lock, flags);
	}
	blk_mpath_bio_flush(m);
	flush_work(&m->trigger_event);
}
EXPORT_SYMBOL_GPL(blk_mpath_flush);

/* ---- construction ------------------------------------------------------------ */

/* Duplicates "<n>\0<arg1>\0...<argn>\0" (scsi_dh_set_params() format). */
static char *dup_hw_handler_params(const char *params)
{
	const char *p = params;
	unsigned int n, i;

	if (kstrtouint(p, 10, &n))
		return NULL;
	p += strlen(p) + 1;
	for (i = 0; i < n; i++)
		p += strlen(p) + 1;

	/* one extra NUL, as stock allocates with slack */
	return kmemdup_nul(params, p - params, GFP_KERNEL);
}

/**
 * blk_mpath_create - create a multipath
 * @name: for logs and debugfs (dm: the device name)
 * @cfg: features and hardware handler
 * @ops: owner callbacks
 * @owner: passed back to @ops
 * @error: set to a stock dm-mpath error string on failure
 *
 * Returns the new multipath or an ERR_PTR().
 */
struct blk_mpath *blk_mpath_create(const char *name,
				   const struct blk_mpath_config *cfg,
				   const struct blk_mpath_ops *ops,
				   void *owner, char **error)
{
	struct blk_mpath_priv *priv;
	struct blk_mpath *m;

	if (cfg->pg_init_retries > BLK_MPATH_PG_INIT_RETRIES_MAX) {
		*error = "pg_init_retries must be between 1 and 50";
		return ERR_PTR(-EINVAL);
	}
	if (cfg->pg_init_delay_msecs != BLK_MPATH_PG_INIT_DELAY_DEFAULT &&
	    cfg->pg_init_delay_msecs > BLK_MPATH_PG_INIT_DELAY_MAX) {
		*error = "pg_init_delay_msecs must be between 0 and 60000";
		return ERR_PTR(-EINVAL);
	}

	priv = kzalloc(sizeof(*priv), GFP_KERNEL);
	if (!priv) {
		*error = "can't allocate multipath";
		return ERR_PTR(-ENOMEM);
	}
	m = &priv->m;
	INIT_LIST_HEAD(&priv->node);

	spin_lock_init(&m->lock);
	INIT_LIST_HEAD(&m->pgs);
	atomic_set(&m->nr_valid_paths, 0);
	atomic_set(&m->pg_init_in_progress, 0);
	atomic_set(&m->pg_init_count, 0);
	init_waitqueue_head(&m->pg_init_wait);
	INIT_WORK(&m->trigger_event, trigger_event);
	timer_setup(&m->nopath_timer, queue_if_no_path_timeout_work, 0);

	m->ops = ops;
	m->owner = owner;
	strscpy(m->name, name ? name : "", sizeof(m->name));
	m->pg_init_retries = cfg->pg_init_retries;
	m->pg_init_delay_msecs = cfg->pg_init_delay_msecs;
	m->no_path_timeout_secs = cfg->no_path_timeout_secs;
	priv->initial_pg_num = cfg->initial_pg_num;
	blk_mpath_bio_setup(m, cfg->bio_based);

	set_bit(BLK_MPATHF_QUEUE_IO, &m->flags);
	if (cfg->queue_if_no_path)
		set_bit(BLK_MPATHF_QUEUE_IF_NO_PATH, &m->flags);
	if (cfg->retain_attached_hw_handler)
		set_bit(BLK_MPATHF_RETAIN_ATTACHED_HW_HANDLER, &m->flags);

	if (cfg->hw_handler_name) {
		m->hw_handler_name = kstrdup(cfg->hw_handler_name, GFP_KERNEL);
		if (!m->hw_handler_name)
			goto nomem;
		if (cfg->hw_handler_params) {
			m->hw_handler_params =
				dup_hw_handler_params(cfg->hw_handler_params);
			if (!m->hw_handler_params)
				goto nomem;
		}
	}

	return m;

nomem:
	*error = "memory allocation failed";
	kfree(m->hw_handler_name);
	kfree(priv);
	return ERR_PTR(-ENOMEM);
}
EXPORT_SYMBOL_GPL(blk_mpath_create);

/**
 * blk_mpath_add_pg - add a priority group at the end
 * @m: the multipath
 * @selector: path selector name
 * @argc: number of selector arguments
 * @argv: selector arguments
 * @error: set to a stock dm-mpath error string on failure
 */
struct blk_mpath_pg *blk_mpath_add_pg(struct blk_mpath *m,
				      const char *selector, unsigned int argc,
				      char **argv, char **error)
{
	const struct blk_mpath_selector_type *type;
	struct blk_mpath_pg *pg;
	unsigned long flags;
	int r;

	type = blk_mpath_selector_get(selector);
	if (!type) {
		*error = "unknown path selector type";
		return ERR_PTR(-EINVAL);
	}

	pg = kzalloc(sizeof(*pg), GFP_KERNEL);
	if (!pg) {
		blk_mpath_selector_put(type);
		*error = "couldn't allocate priority group";
		return ERR_PTR(-ENOMEM);
	}
	INIT_LIST_HEAD(&pg->paths);
	pg->m = m;

	r = type->create(&pg->ps, argc, argv, error);
	if (r) {
		blk_mpath_selector_put(type);
		kfree(pg);
		*error = "path selector constructor failed";
		return ERR_PTR(r);
	}
	pg->ps.type = type;

	spin_lock_irqsave(&m->lock, flags);
	list_add_tail(&pg->list, &m->pgs);
	pg->pg_num = ++m->nr_pgs;
	spin_unlock_irqrestore(&m->lock, flags);

	return pg;
}
EXPORT_SYMBOL_GPL(blk_mpath_add_pg);

static int setup_scsi_dh(struct block_device *bdev, struct blk_mpath *m,
			 const char **attached_handler_name, char **error)
{
	struct request_queue *q = bdev_get_queue(bdev);
	int r;

	if (mpath_double_check_test_bit(BLK_MPATHF_RETAIN_ATTACHED_HW_HANDLER,
					m)) {
retain:
		if (*attached_handler_name) {
			/*
			 * Clear any hw_handler_params associated with a
			 * handler that isn't already attached.
			 */
			if (m->hw_handler_name &&
			    strcmp(*attached_handler_name, m->hw_handler_name)) {
				kfree(m->hw_handler_params);
				m->hw_handler_params = NULL;
			}

			/*
			 * Reset hw_handler_name to match the attached handler
			 * (the table then shows the actual handler).
			 */
			kfree(m->hw_handler_name);
			m->hw_handler_name = (char *)*attached_handler_name;
			*attached_handler_name = NULL;
		}
	}

	if (m->hw_handler_name) {
		r = scsi_dh_attach(q, m->hw_handler_name);
		if (r == -EBUSY) {
			pr_info("retaining handler on device %pg\n", bdev);
			goto retain;
		}
		if (r < 0) {
			*error = "error attaching hardware handler";
			return r;
		}

		if (m->hw_handler_params) {
			r = scsi_dh_set_params(q, m->hw_handler_params);
			if (r < 0) {
				*error = "unable to set hardware handler parameters";
				return r;
			}
		}
	}

	return 0;
}

/**
 * blk_mpath_add_path - add a path to a group
 * @pg: the group
 * @bdev: the path's block device (owned by the caller); NULL only for tests
 * @name: "MAJ:MIN", as dm prints it
 * @argc: number of per-path selector arguments
 * @argv: per-path selector arguments
 * @error: set to a stock dm-mpath error string on failure
 *
 * Stock parse_path(): attaches or validates the scsi_dh handler, then
 * hands the per-path arguments to the selector.  The path starts active.
 */
struct blk_mpath_path *blk_mpath_add_path(struct blk_mpath_pg *pg,
					  struct block_device *bdev,
					  const char *name, unsigned int argc,
					  char **argv, char **error)
{
	struct blk_mpath *m = pg->m;
	const char *attached_handler_name = NULL;
	struct blk_mpath_path *path;
	unsigned long flags;
	int r;

	path = kzalloc(sizeof(*path), GFP_KERNEL);
	if (!path) {
		*error = "couldn't allocate path";
		return ERR_PTR(-ENOMEM);
	}
	path->stats = alloc_percpu(struct blk_mpath_path_stats);
	if (!path->stats) {
		kfree(path);
		*error = "couldn't allocate path";
		return ERR_PTR(-ENOMEM);
	}
	path->pg = pg;
	path->bdev = bdev;
	path->is_active = true;
	strscpy(path->name, name ? name : "", sizeof(path->name));
	INIT_DELAYED_WORK(&path->activate_path, activate_path_work);

	if (bdev) {
		struct request_queue *q = bdev_get_queue(bdev);

		attached_handler_name =
			scsi_dh_attached_handler_name(q, GFP_KERNEL);
		if (attached_handler_name || m->hw_handler_name) {
			r = setup_scsi_dh(bdev, m, &attached_handler_name,
					  error);
			kfree(attached_handler_name);
			if (r)
				goto bad;
		}
	}

	r = pg->ps.type->add_path(&pg->ps, path, argc, argv, error);
	if (r)
		goto bad;

	spin_lock_irqsave(&m->lock, flags);
	list_add_tail(&path->list, &pg->paths);
	pg->nr_paths++;
	atomic_inc(&m->nr_valid_paths);
	spin_unlock_irqrestore(&m->lock, flags);

	return path;

bad:
	free_percpu(path->stats);
	kfree(path);
	return ERR_PTR(r);
}
EXPORT_SYMBOL_GPL(blk_mpath_add_path);

/**
 * blk_mpath_path_counters - read one path's counters
 * @path: the path
 * @c: filled with the sums over all CPUs
 */
void blk_mpath_path_counters(struct blk_mpath_path *path,
			     struct blk_mpath_path_counters *c)
{
	int cpu;

	memset(c, 0, sizeof(*c));
	for_each_possible_cpu(cpu) {
		struct blk_mpath_path_stats *st = per_cpu_ptr(path->stats, cpu);
		struct blk_mpath_path_counters t;
		unsigned int start;

		do {
			start = u64_stats_fetch_begin(&st->syncp);
			t.ios = u64_stats_read(&st->ios);
			t.bytes = u64_stats_read(&st->bytes);
			t.errors_path = u64_stats_read(&st->errors_path);
			t.errors_target = u64_stats_read(&st->errors_target);
			t.errors_other = u64_stats_read(&st->errors_other);
			t.errors_reservation =
				u64_stats_read(&st->errors_reservation);
			t.errors_resource = u64_stats_read(&st->errors_resource);
			t.latency_ns = u64_stats_read(&st->latency_ns);
		} while (u64_stats_fetch_retry(&st->syncp, start));
		c->ios += t.ios;
		c->bytes += t.bytes;
		c->errors_path += t.errors_path;
		c->errors_target += t.errors_target;
		c->errors_other += t.errors_other;
		c->errors_reservation += t.errors_reservation;
		c->errors_resource += t.errors_resource;
		c->latency_ns += t.latency_ns;
	}
}
EXPORT_SYMBOL_NS_GPL(blk_mpath_path_counters, BLK_MPATH_KUNIT);

static int paths_show(struct seq_file *s, void *unused)
{
	struct blk_mpath *m = s->private;
	struct blk_mpath_path_counters c;
	struct blk_mpath_path *p;
	struct blk_mpath_pg *pg;
	unsigned long flags;

	spin_lock_irqsave(&m->lock, flags);
	list_for_each_entry(pg, &m->pgs, list) {
		list_for_each_entry(p, &pg->paths, list) {
			blk_mpath_path_counters(p, &c);
			seq_printf(s, "%s pg %u %s fail_count %u ios %llu bytes %llu err_path %llu err_target %llu err_reservation %llu err_resource %llu err_other %llu lat_mean_ns %llu\n",
				   p->name, pg->pg_num,
				   p->is_active ? "A" : "F", p->fail_count,
				   c.ios, c.bytes, c.errors_path,
				   c.errors_target, c.errors_reservation,
				   c.errors_resource,
				   c.errors_other,
				   c.ios ? div64_u64(c.latency_ns, c.ios) : 0);
		}
	}
	spin_unlock_irqrestore(&m->lock, flags);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(paths);

static void debugfs_canonical_name(struct blk_mpath *m, char *name,
				   size_t len)
{
	strscpy(name, m->name[0] ? m->name : "mpath", len);
	strreplace(name, '/', '!');
}

/*
 * /sys/kernel/debug/blk_mpath/<m->name>/paths.  While dm has two tables
 * of one device, the newer one gets "<name>.<n>" and is renamed to
 * "<name>" when the older one goes away.
 */
static void blk_mpath_debugfs_add(struct blk_mpath *m)
{
	struct blk_mpath_priv *p, *priv = to_priv(m);
	bool taken = false;
	struct dentry *dir;
	char name[48];

	if (IS_ERR_OR_NULL(blk_mpath_debugfs_root))
		return;

	mutex_lock(&blk_mpath_instances_lock);
	list_for_each_entry(p, &blk_mpath_instances, node)
		if (p->debugfs_canonical && !strcmp(p->m.name, m->name))
			taken = true;
	debugfs_canonical_name(m, name, sizeof(name));
	if (taken) {
		size_t n = strlen(name);

		snprintf(name + n, sizeof(name) - n, ".%d",
			 atomic_inc_return(&blk_mpath_instance));
	}
	dir = debugfs_create_dir(name, blk_mpath_debugfs_root);
	if (!IS_ERR(dir)) {
		debugfs_create_file("paths", 0444, dir, m, &paths_fops);
		priv->debugfs_dir = dir;
		priv->debugfs_canonical = !taken;
	}
	list_add_tail(&priv->node, &blk_mpath_instances);
	mutex_unlock(&blk_mpath_instances_lock);
}

static void blk_mpath_debugfs_del(struct blk_mpath *m)
{
	struct blk_mpath_priv *p, *heir = NULL, *priv = to_priv(m);
	struct dentry *dir;
	char name[48];

	mutex_lock(&blk_mpath_instances_lock);
	list_del_init(&priv->node);
	debugfs_remove_recursive(priv->debugfs_dir);
	priv->debugfs_dir = NULL;
	if (priv->debugfs_canonical) {
		list_for_each_entry(p, &blk_mpath_instances, node)
			if (p->debugfs_dir && !strcmp(p->m.name, m->name))
				heir = p;
	}
	if (heir) {
		debugfs_canonical_name(m, name, sizeof(name));
		dir = debugfs_rename(blk_mpath_debugfs_root, heir->debugfs_dir,
				     blk_mpath_debugfs_root, name);
		if (!IS_ERR(dir)) {
			heir->debugfs_dir = dir;
			heir->debugfs_canonical = true;
		}
	}
	mutex_unlock(&blk_mpath_instances_lock);
}

/**
 * blk_mpath_start - the configuration is complete
 * @m: the multipath
 * @error: set to a stock dm-mpath error string on failure
 *
 * Applies the initial group and arms the no-path timeout if needed.
 */
int blk_mpath_start(struct blk_mpath *m, char **error)
{
	struct blk_mpath_priv *priv = to_priv(m);
	unsigned long flags;

	if (priv->initial_pg_num > m->nr_pgs) {
		*error = "invalid initial priority group";
		return -EINVAL;
	}

	spin_lock_irqsave(&m->lock, flags);
	if (priv->initial_pg_num)
		m->next_pg = find_pg(m, priv->initial_pg_num);
	enable_nopath_timeout(m);
	spin_unlock_irqrestore(&m->lock, flags);

	blk_mpath_debugfs_add(m);
	return 0;
}
EXPORT_SYMBOL_GPL(blk_mpath_start);

/**
 * blk_mpath_destroy - stop all work and free a multipath
 * @m: the multipath (may be NULL or an ERR_PTR)
 *
 * The owner must have stopped I/O.  As stock, attached scsi_dh handlers
 * stay attached.
 */
void blk_mpath_destroy(struct blk_mpath *m)
{
	struct blk_mpath_priv *priv;
	struct blk_mpath_path *path, *ptmp;
	struct blk_mpath_pg *pg, *tmp;

	if (IS_ERR_OR_NULL(m))
		return;
	priv = to_priv(m);

	blk_mpath_debugfs_del(m);
	disable_nopath_timeout(m);
	blk_mpath_flush(m);
	blk_mpath_bio_drain(m);
	/* no reader of m->current_path may still be in its section */
	synchronize_rcu();

	list_for_each_entry_safe(pg, tmp, &m->pgs, list) {
		list_del(&pg->list);
		list_for_each_entry(path, &pg->paths, list)
			cancel_delayed_work_sync(&path->activate_path);
		if (pg->ps.type) {
			pg->ps.type->destroy(&pg->ps);
			blk_mpath_selector_put(pg->ps.type);
		}
		list_for_each_entry_safe(path, ptmp, &pg->paths, list) {
			list_del(&path->list);
			free_percpu(path->stats);
			kfree(path);
		}
		kfree(pg);
	}
	/* a pg_init that failed a path may have re-armed these */
	del_timer_sync(&m->nopath_timer);
	blk_mpath_bio_drain(m);
	cancel_work_sync(&m->trigger_event);

	kfree(m->hw_handler_name);
	kfree(m->hw_handler_params);
	kfree(priv);
}
EXPORT_SYMBOL_GPL(blk_mpath_destroy);

/**
 * blk_mpath_find_path - find a path by its "MAJ:MIN" name
 * @m: the multipath
 * @name: the name
 */
struct blk_mpath_path *blk_mpath_find_path(struct blk_mpath *m,
					   const char *name)
{
	struct blk_mpath_path *p, *found = NULL;
	struct blk_mpath_pg *pg;
	unsigned long flags;

	spin_lock_irqsave(&m->lock, flags);
	list_for_each_entry(pg, &m->pgs, list) {
		list_for_each_entry(p, &pg->paths, list) {
			if (!strcmp(p->name, name)) {
				found = p;
				goto out;
			}
		}
	}
out:
	spin_unlock_irqrestore(&m->lock, flags);
	return found;
}
EXPORT_SYMBOL_NS_GPL(blk_mpath_find_path, BLK_MPATH_KUNIT);

/* ---- per request --------------------------------------------------------------- */

static void path_start_io(struct blk_mpath_path *path, size_t nr_bytes)
{
	struct blk_mpath_selector *ps = &path->pg->ps;

	if (ps->type->start_io)
		ps->type->start_io(ps, path, nr_bytes);
}

static void path_end_io(struct blk_mpath_path *path, size_t nr_bytes,
			u64 start_ns)
{
	struct blk_mpath_selector *ps = &path->pg->ps;

	if (ps->type->end_io)
		ps->type->end_io(ps, path, nr_bytes, start_ns);
}

/*
 * How @rq stands against the limits of path queue @q: 1 over them, 0
 * within them, -1 when @q does not support the op at all (max_sectors 0:
 * not a limit, the path answers BLK_STS_NOTSUPP, as in stock).
 * blk_insert_cloned_request() refuses a clone over its queue's max_sectors
 * for the op, or over its max_segments recounted for that queue; rq's
 * nr_phys_segments (counted for the map's queue, or for the queue that
 * refused the clone) is an estimate of that count.  The limits of a path
 * queue may change under us (sysfs max_sectors_kb): a stale answer only
 * makes the path refuse the clone, which the verdict sees.
 */
static int rq_vs_queue_limits(struct request *rq, struct request_queue *q)
{
	/* sysfs may change the path's limits under us: see above */
	unsigned int max = data_race(blk_queue_get_max_sectors(q, req_op(rq)));

	if (!max)
		return -1;
	return blk_rq_sectors(rq) > max ||
	       /* max_segments too may change under us */
	       rq->nr_phys_segments > data_race(queue_max_segments(q));
}

/*
 * An active path of @path's group other than @path whose queue takes @rq,
 * the first after @path in the group's order, or NULL.  Requests split to
 * the limits of an earlier table can meet a path with smaller ones: a
 * reload that adds such a path while they wait in the map's queue (dm
 * stacks the new limits at resume, after they were split).  The table's
 * groups and paths are fixed between blk_mpath_start() and
 * blk_mpath_destroy(); is_active may change under us, which only makes the
 * choice stale (the verdict then sees it).
 */
static struct blk_mpath_path *fitting_path_in_pg(struct blk_mpath_path *path,
						 struct request *rq)
{
	struct blk_mpath_path *p = path;

	list_for_each_entry_continue(p, &path->pg->paths, list) {
		if (READ_ONCE(p->is_active) && p->bdev &&
		    !rq_vs_queue_limits(rq, bdev_get_queue(p->bdev)))
			return p;
	}
	list_for_each_entry(p, &path->pg->paths, list) {
		if (p == path)
			break;
		if (READ_ONCE(p->is_active) && p->bdev &&
		    !rq_vs_queue_limits(rq, bdev_get_queue(p->bdev)))
			return p;
	}
	return NULL;
}

/**
 * blk_mpath_map_rq - choose a path and clone @rq onto it
 * @m: the multipath
 * @rq: the original request
 * @clone: set to the clone on BLK_MPATH_MAP_REMAPPED
 * @ctx: per-request engine state kept by the owner
 *
 * Stock multipath_clone_and_map().  The clone is allocated without
 * sleeping and has no bios yet; the owner prepares it (dm-rq:
 * blk_rq_prep_clone() and ->end_io in setup_clone()) and issues it.
 */
enum blk_mpath_map_result blk_mpath_map_rq(struct blk_mpath *m,
					   struct request *rq,
					   struct request **clone,
					   struct blk_mpath_rq_ctx *ctx)
{
	size_t nr_bytes = blk_rq_bytes(rq);
	enum blk_mpath_map_result ret;
	struct blk_mpath_path *path;
	struct request_queue *q;
	struct request *c;

	/* ctx survives requeues of rq (retry_since is the request's own) */
	ctx->path = NULL;
	ctx->nr_bytes = nr_bytes;

	/* the chosen path is used up to the clone's start_io accounting */
	rcu_read_lock();
	path = blk_mpath_choose_path(m, nr_bytes);
	if (!path) {
		if (must_push_back_rq(m)) {
			ret = BLK_MPATH_MAP_DELAY_REQUEUE;
		} else {
			pr_debug_ratelimited("%s: returning EIO; QIFNP = %d; SQIFNP = %d; DNFS = %d\n",
					     m->name,
					     test_bit(BLK_MPATHF_QUEUE_IF_NO_PATH, &m->flags),
					     test_bit(BLK_MPATHF_SAVED_QUEUE_IF_NO_PATH, &m->flags),
					     __must_push_back(m));
			ctx->retry_since = 0;
			ret = BLK_MPATH_MAP_KILL;
		}
		goto out;
	} else if (mpath_double_check_test_bit(BLK_MPATHF_QUEUE_IO, m) ||
		   mpath_double_check_test_bit(BLK_MPATHF_PG_INIT_REQUIRED, m)) {
		pg_init_all_paths(m);
		ret = BLK_MPATH_MAP_DELAY_REQUEUE;
		goto out;
	}

	if (WARN_ON_ONCE(!path->bdev)) {
		ctx->retry_since = 0;
		ret = BLK_MPATH_MAP_KILL;
		goto out;
	}

	q = bdev_get_queue(path->bdev);
	if (unlikely(rq_vs_queue_limits(rq, q) > 0)) {
		struct blk_mpath_path *alt = fitting_path_in_pg(path, rq);

		if (alt) {
			path = alt;
			q = bdev_get_queue(path->bdev);
		}
	}
	c = blk_mq_alloc_request(q, rq->cmd_flags | REQ_NOMERGE,
				 BLK_MQ_REQ_NOWAIT);
	if (IS_ERR(c)) {
		/* EBUSY, ENODEV or EWOULDBLOCK: requeue */
		if (blk_queue_dying(q)) {
			atomic_inc(&m->pg_init_in_progress);
			activate_or_offline_path(path);
			ret = BLK_MPATH_MAP_DELAY_REQUEUE;
			goto out;
		}
		/*
		 * blk-mq's SCHED_RESTART covers this requeue; the owner gets
		 * the queue busy feedback (BLK_STS_RESOURCE) this way.
		 */
		ret = BLK_MPATH_MAP_REQUEUE;
		goto out;
	}
	c->bio = NULL;
	c->biotail = NULL;
	c->cmd_flags |= REQ_FAILFAST_TRANSPORT;
	*clone = c;

	/* the clone's latency, also where the path queue keeps no iostats */
	if (!c->start_time_ns)
		c->start_time_ns = ktime_get_ns();
	ctx->path = path;
	path_start_io(path, nr_bytes);
	ret = BLK_MPATH_MAP_REMAPPED;
out:
	trace_blk_mpath_map(m, rq, path, ret);
	rcu_read_unlock();
	return ret;
}
EXPORT_SYMBOL_GPL(blk_mpath_map_rq);

/**
 * blk_mpath_release_clone - free a clone from blk_mpath_map_rq()
 * @clone: the clone
 * @ctx: non-NULL only to undo a never-issued clone from the map path
 */
void blk_mpath_release_clone(struct request *clone,
			     struct blk_mpath_rq_ctx *ctx)
{
	if (unlikely(ctx) && ctx->path)
		path_end_io(ctx->path, ctx->nr_bytes, clone->io_start_time_ns);

	blk_mq_free_request(clone);
}
EXPORT_SYMBOL_GPL(blk_mpath_release_clone);

static void account_completion(struct blk_mpath_path *path,
			       struct blk_mpath_rq_ctx *ctx,
			       enum blk_mpath_err_class cls, u64 lat)
{
	struct blk_mpath_path_stats *st = get_cpu_ptr(path->stats);
	unsigned long flags;

	/* completions run in process, softirq and hardirq context */
	flags = u64_stats_update_begin_irqsave(&st->syncp);
	u64_stats_inc(&st->ios);
	u64_stats_add(&st->latency_ns, lat);
	switch (cls) {
	case BLK_MPATH_ERR_NONE:
		u64_stats_add(&st->bytes, ctx->nr_bytes);
		break;
	case BLK_MPATH_ERR_PATH:
		u64_stats_inc(&st->errors_path);
		break;
	case BLK_MPATH_ERR_TARGET:
	case BLK_MPATH_ERR_LIMITS:
		u64_stats_inc(&st->errors_target);
		break;
	case BLK_MPATH_ERR_RESERVATION:
		u64_stats_inc(&st->errors_reservation);
		break;
	case BLK_MPATH_ERR_RESOURCE:
		u64_stats_inc(&st->errors_resource);
		break;
	default:
		u64_stats_inc(&st->errors_other);
		break;
	}
	u64_stats_update_end_irqrestore(&st->syncp, flags);
	put_cpu_ptr(path->stats);
}

/* fail_path() for a completion: the error detail goes into the log line */
static void fail_path_completion(struct blk_mpath_path *path,
				 const struct blk_error_detail *d,
				 enum blk_mpath_err_class cls, bool issued)
{
	char sense[12] = "none";

	if (d->flags & BLK_ERR_SENSE_VALID)
		snprintf(sense, sizeof(sense), "%x/%02x/%02x", d->sense_key,
			 d->asc, d->ascq);
	/* a resource class reaches here after its retry time */
	fail_path(path, "class=%s%s sts=%u errno=%d src=%s host=0x%02x status=0x%02x sense=%s%s",
		  blk_mpath_err_class_name(cls),
		  cls == BLK_MPATH_ERR_PATH ? "" : "->path",
		  (unsigned int)d->status, blk_status_to_errno(d->status),
		  d->source == BLK_ERR_SRC_SCSI ? "scsi" : "none",
		  d->host_byte, d->status_byte, sense,
		  issued ? "" : " not_issued(the path queue refused the clone)");
}

/*
 * A completion that asks for a retry on the same path (out of resources)
 * is requeued after a delay without failing the path, for at most
 * BLK_MPATH_RESOURCE_RETRY_MS after the first such completion of this
 * original request, whatever other requests on the path do; then it is
 * a path error.
 */
static bool retry_same_expired(struct blk_mpath_rq_ctx *ctx)
{
	unsigned int now = (unsigned int)jiffies | 1;

	if (!ctx->retry_since) {
		ctx->retry_since = now;
		return false;
	}
	return now - ctx->retry_since >
	       msecs_to_jiffies(BLK_MPATH_RESOURCE_RETRY_MS);
}

static enum blk_mpath_end_result end_detail(struct blk_mpath *m,
					    struct blk_mpath_rq_ctx *ctx,
					    const struct blk_error_detail *d,
					    enum blk_mpath_err_class cls,
					    u64 io_start_ns, u64 start_ns,
					    blk_status_t *status, bool issued)
{
	struct blk_mpath_path *path = ctx->path;
	enum blk_mpath_err_class acct = cls;
	int r = BLK_MPATH_END_DONE;
	u64 lat = 0;

	*status = d->status;

	switch (cls) {
	case BLK_MPATH_ERR_NONE:
		break;
	case BLK_MPATH_ERR_RESOURCE:
		if (path && retry_same_expired(ctx)) {
			acct = BLK_MPATH_ERR_PATH;
			goto path_error;
		}
		r = BLK_MPATH_END_DELAY_RETRY;
		break;
	case BLK_MPATH_ERR_PATH:
path_error:
		/*
		 * We don't queue the clone; the owner requeues the original
		 * request, which is mapped again (stock).
		 */
		r = BLK_MPATH_END_RETRY;
		if (path)
			fail_path_completion(path, d, cls, issued);

		if (!atomic_read(&m->nr_valid_paths) && !must_push_back_rq(m)) {
			if (d->status == BLK_STS_IOERR)
				pr_debug_ratelimited("%s: returning EIO; no valid path\n",
						     m->name);
			/* complete with the original error */
			r = BLK_MPATH_END_DONE;
		}
		break;
	case BLK_MPATH_ERR_LIMITS:
		/* the request's fault, not the path's: keep the path */
		pr_warn_ratelimited("%s: request of %u bytes refused by path %s (over its queue limits): error returned, path kept\n",
				    m->name, (unsigned int)ctx->nr_bytes,
				    path ? path->name : "?");
		break;
	case BLK_MPATH_ERR_TARGET:
	case BLK_MPATH_ERR_RESERVATION:
	default:
		break;
	}
	/* the bound is per path: a failover or a final verdict ends it */
	if (r != BLK_MPATH_END_DELAY_RETRY)
		ctx->retry_since = 0;

	if (path) {
		if (start_ns)
			lat = ktime_get_ns() - start_ns;
		account_completion(path, ctx, acct, lat);
		path_end_io(path, ctx->nr_bytes, io_start_ns);
	}
	trace_blk_mpath_complete(m, path, d, cls, r, lat);

	return r;
}

/**
 * blk_mpath_end_detail - verdict on a completed clone from its error detail
 * @m: the multipath
 * @ctx: per-request state filled by blk_mpath_map_rq()
 * @d: the clone's error detail
 * @io_start_ns: for the selector's end_io (stock: clone->io_start_time_ns)
 * @status: set to the status to complete the original with on DONE
 *
 * Stock multipath_end_io(), driven by blk_mpath_classify() instead of
 * blk_path_error().
 */
enum blk_mpath_end_result blk_mpath_end_detail(struct blk_mpath *m,
					       struct blk_mpath_rq_ctx *ctx,
					       const struct blk_error_detail *d,
					       u64 io_start_ns,
					       blk_status_t *status)
{
	return end_detail(m, ctx, d, blk_mpath_classify(d), io_start_ns, 0,
			  status, true);
}
EXPORT_SYMBOL_NS_GPL(blk_mpath_end_detail, BLK_MPATH_KUNIT);

/*
 * end_detail() for blk-mpath-bio.c: a bio's own class, its issue time for
 * both the selector's end_io and the latency.
 */
enum blk_mpath_end_result blk_mpath_end_class(struct blk_mpath *m,
					      struct blk_mpath_rq_ctx *ctx,
					      const struct blk_error_detail *d,
					      enum blk_mpath_err_class cls,
					      u64 start_ns,
					      blk_status_t *status)
{
	return end_detail(m, ctx, d, cls, start_ns, start_ns, status, true);
}

/*
 * Does an active path other than @except, in any group, take @clone?  Then
 * a clone its path refused is a PATH verdict, as in stock: the path fails,
 * and so in turn every path of its group that refuses the request, until
 * it reaches a group whose paths take it (blk_mpath_map_rq() already
 * tried the other paths of the refusing path's group).
 */
static bool other_path_fits(struct blk_mpath *m, struct request *clone,
			    struct blk_mpath_path *except)
{
	struct blk_mpath_path *p;
	struct blk_mpath_pg *pg;

	list_for_each_entry(pg, &m->pgs, list) {
		list_for_each_entry(p, &pg->paths, list) {
			if (p != except && READ_ONCE(p->is_active) &&
			    p->bdev &&
			    !rq_vs_queue_limits(clone, bdev_get_queue(p->bdev)))
				return true;
		}
	}
	return false;
}

/**
 * blk_mpath_end_rq - verdict on a completed clone
 * @m: the multipath
 * @clone: the completed clone, not yet freed
 * @error: the status it completed with
 * @ctx: per-request state filled by blk_mpath_map_rq()
 * @status: set to the status to complete the original with on DONE
 */
enum blk_mpath_end_result blk_mpath_end_rq(struct blk_mpath *m,
					   struct request *clone,
					   blk_status_t error,
					   struct blk_mpath_rq_ctx *ctx,
					   blk_status_t *status)
{
	bool issued = blk_mq_rq_state(clone) != MQ_RQ_IDLE;
	enum blk_mpath_err_class cls;
	struct blk_error_detail d;

	/*
	 * A clone that never reached its driver (dm-rq: the insert failed
	 * before ->queue_rq() started it) has no detail of its own: the
	 * driver data of its tag may be stale.  Either the path refused it
	 * (offline device, the scsi_dh prep_fn of a standby ALUA port: the
	 * path's fault, classified from the status), or the clone exceeds
	 * the path queue's limits (blk_insert_cloned_request(): the limits
	 * of a path shrank under a live table), which is not the path's
	 * fault: with no other path to take it, the error is returned.
	 */
	if (unlikely(!issued)) {
		memset(&d, 0, sizeof(d));
		d.status = error;
		cls = blk_mpath_classify(&d);
		if (cls == BLK_MPATH_ERR_PATH &&
		    rq_vs_queue_limits(clone, clone->q) > 0 &&
		    !other_path_fits(m, clone, ctx->path))
			cls = BLK_MPATH_ERR_LIMITS;
	} else {
		blk_rq_error_detail(clone, error, &d);
		cls = blk_mpath_classify(&d);
	}
	return end_detail(m, ctx, &d, cls, clone->io_start_time_ns,
			  clone->start_time_ns, status, issued);
}
EXPORT_SYMBOL_GPL(blk_mpath_end_rq);

/* ---- queries ------------------------------------------------------------------- */

/**
 * blk_mpath_prepare_ioctl - pick a path for an ioctl
 * @m: the multipath
 * @bdev: set to the path's block device on success
 *
 * Stock multipath_prepare_ioctl() without the size check (the owner's).
 */
int blk_mpath_prepare_ioctl(struct blk_mpath *m, struct block_device **bdev)
{
	struct blk_mpath_path *path;
	unsigned long flags;
	int r;

	path = blk_mpath_choose_path(m, 0);

	if (path) {
		if (!mpath_double_check_test_bit(BLK_MPATHF_QUEUE_IO, m)) {
			*bdev = path->bdev;
			r = 0;
		} else {
			/* pg_init has not started or completed */
			r = -ENOTCONN;
		}
	} else {
		/* No path is available */
		r = -EIO;
		spin_lock_irqsave(&m->lock, flags);
		if (test_bit(BLK_MPATHF_QUEUE_IF_NO_PATH, &m->flags))
			r = -ENOTCONN;
		spin_unlock_irqrestore(&m->lock, flags);
	}

	if (r == -ENOTCONN) {
		if (!READ_ONCE(m->current_pg)) {
			/* Path status changed, redo selection */
			rcu_read_lock();
			(void)choose_pgpath(m, 0);
			rcu_read_unlock();
		}
		spin_lock_irqsave(&m->lock, flags);
		if (test_bit(BLK_MPATHF_PG_INIT_REQUIRED, &m->flags))
			(void)__pg_init_all_paths(m);
		spin_unlock_irqrestore(&m->lock, flags);
		mpath_kick(m);
	}

	return r;
}
EXPORT_SYMBOL_GPL(blk_mpath_prepare_ioctl);

/**
 * blk_mpath_ioctl_failed - an ioctl sent down a path never reached the LU
 * @m: the multipath
 * @bdev: the path's block device, as blk_mpath_prepare_ioctl() gave it
 * @why: what the owner saw, for the log line
 *
 * Fails the path (its ioctl was refused before it reached the LU: the
 * device is offline or gone), so that blk_mpath_prepare_ioctl() chooses
 * another one.
 */
int blk_mpath_ioctl_failed(struct blk_mpath *m, struct block_device *bdev,
			   const char *why)
{
	struct blk_mpath_path *p, *found = NULL;
	struct blk_mpath_pg *pg;
	unsigned long flags;

	spin_lock_irqsave(&m->lock, flags);
	list_for_each_entry(pg, &m->pgs, list)
		list_for_each_entry(p, &pg->paths, list)
			if (p->bdev == bdev && p->is_active)
				found = p;
	spin_unlock_irqrestore(&m->lock, flags);
	if (!found)
		return -ENODEV;
	/* paths are freed only by blk_mpath_destroy() */
	fail_path(found, "ioctl: %s, it never reached the LU", why);
	return 0;
}
EXPORT_SYMBOL_GPL(blk_mpath_ioctl_failed);

static bool path_busy(struct blk_mpath_path *path)
{
	if (!path->bdev)
		return false;
	return blk_lld_busy(bdev_get_queue(path->bdev));
}

/**
 * blk_mpath_busy - should the owner hold requests back?
 * @m: the multipath
 *
 * Stock multipath_busy() for request-based: busy only when requests
 * could be mapped but every active path of the group to be used is busy,
 * or while pg_init runs.
 */
bool blk_mpath_busy(struct blk_mpath *m)
{
	struct blk_mpath_pg *pg, *next_pg;
	bool busy = false, has_active = false;
	struct blk_mpath_path *path;

	/* pg_init in progress */
	if (atomic_read(&m->pg_init_in_progress))
		return true;

	/* no paths available: rely on I/O mapping to delay requeue */
	if (!atomic_read(&m->nr_valid_paths) &&
	    test_bit(BLK_MPATHF_QUEUE_IF_NO_PATH, &m->flags))
		return false;

	/* Guess which priority_group will be used at next mapping time */
	pg = READ_ONCE(m->current_pg);
	next_pg = READ_ONCE(m->next_pg);
	if (unlikely(!rcu_access_pointer(m->current_path) && next_pg))
		pg = next_pg;

	if (!pg)
		return busy;

	/*
	 * If there is one non-busy active path at least, the path selector
	 * will be able to select it. So we consider such a pg as not busy.
	 */
	busy = true;
	list_for_each_entry(path, &pg->paths, list) {
		if (READ_ONCE(path->is_active)) {
			has_active = true;
			if (!path_busy(path)) {
				busy = false;
				break;
			}
		}
	}

	/* No active path in this pg: mapping will change current_pg. */
	if (!has_active)
		busy = false;

	return busy;
}
EXPORT_SYMBOL_GPL(blk_mpath_busy);

/**
 * blk_mpath_pg_state - a group's state letter in the status
 * @m: the multipath
 * @pg: the group
 *
 * 'D' bypassed, 'A' current, 'E' enabled.  Call with blk_mpath_lock() held.
 */
char blk_mpath_pg_state(struct blk_mpath *m, struct blk_mpath_pg *pg)
{
	if (pg->bypassed)
		return 'D';	/* Disabled */
	if (pg == m->current_pg)
		return 'A';	/* Currently Active */
	return 'E';		/* Enabled */
}
EXPORT_SYMBOL_GPL(blk_mpath_pg_state);

/**
 * blk_mpath_status_pg_num - the group number printed in the status
 * @m: the multipath
 *
 * Call with blk_mpath_lock() held.
 */
unsigned int blk_mpath_status_pg_num(struct blk_mpath *m)
{
	if (m->next_pg)
		return m->next_pg->pg_num;
	if (m->current_pg)
		return m->current_pg->pg_num;
	return m->nr_pgs ? 1 : 0;
}
EXPORT_SYMBOL_GPL(blk_mpath_status_pg_num);

/* ---- error classification ------------------------------------------------------- */

/*
 * What reaches the engine.  The clone carries REQ_FAILFAST_TRANSPORT, as
 * stock sets it, so the SCSI midlayer (6.1: scsi_decide_disposition(),
 * scsi_check_sense(), scsi_io_completion_action()) has already done every
 * retry on this path that SCSI thinks useful before the clone completes:
 * up to 5 immediate retries (ABORTED COMMAND, TASK ABORTED, DID_SOFT_ERROR,
 * DID_ERROR, DID_TRANSPORT_DISRUPTED, ...), and retries for up to
 * (retries + 1) x the command timeout (UNIT ATTENTION, NOT READY 04/01
 * and 04/0a ALUA transitioning, BUSY / TASK SET FULL, DID_REQUEUE,
 * DID_IMM_RETRY).  A transient condition that still reaches us has outlived
 * those retries: retrying it on the same path again would only delay the
 * failover stock does at once, so every one of them is a path error.
 *
 * SCSI also already turns the target's errors into specific statuses
 * (scsi_result_to_blk_status() of the scsi-ml byte): MEDIUM ERROR 11/13/14
 * -> BLK_STS_MEDIUM; HARDWARE ERROR (without BLIST_RETRY_HWERROR), ILLEGAL
 * REQUEST 20/21/22/24/26/27, DATA PROTECT, COPY ABORTED, VOLUME OVERFLOW,
 * MISCOMPARE, BLANK CHECK -> BLK_STS_TARGET; DATA PROTECT 27/07 ->
 * BLK_STS_NOSPC; RESERVATION CONFLICT -> BLK_STS_NEXUS; PI errors (10/xx)
 * -> BLK_STS_PROTECTION.  Those are never path errors, for stock either
 * (blk_path_error()).  The tables below decide what SCSI leaves as
 * BLK_STS_IOERR; that is where the engine and stock differ: stock fails
 * the path for every one of them.
 *
 * SCSI host byte -> class.  For DID_OK and unknown values the status byte
 * and the sense data decide.
 *
 *  DID_NO_CONNECT, DID_BAD_TARGET, DID_TIME_OUT, DID_ABORT, DID_RESET,
 *  DID_BUS_BUSY, DID_PARITY, DID_ERROR, DID_BAD_INTR, DID_SOFT_ERROR,
 *  DID_IMM_RETRY, DID_REQUEUE, DID_TRANSPORT_DISRUPTED,
 *  DID_TRANSPORT_FAILFAST, DID_TRANSPORT_MARGINAL     PATH
 *
 * (DID_TARGET_FAILURE, DID_NEXUS_FAILURE, DID_ALLOC_FAILURE and
 * DID_MEDIUM_ERROR do not reach completion in 6.1: SCSI turns them into
 * BLK_STS_TARGET, BLK_STS_NEXUS, BLK_STS_NOSPC and BLK_STS_MEDIUM.)
 */
static int classify_host_byte(u8 host)
{
	switch (host) {
	case DID_NO_CONNECT:
	case DID_BUS_BUSY:
	case DID_TIME_OUT:
	case DID_BAD_TARGET:
	case DID_ABORT:
	case DID_PARITY:
	case DID_ERROR:
	case DID_RESET:
	case DID_BAD_INTR:
	case DID_SOFT_ERROR:
	case DID_IMM_RETRY:
	case DID_REQUEUE:
	case DID_TRANSPORT_DISRUPTED:
	case DID_TRANSPORT_FAILFAST:
	case DID_TRANSPORT_MARGINAL:
		return BLK_MPATH_ERR_PATH;
	default:
		return -1;
	}
}

/*
 * SAM status byte -> class (host byte DID_OK).
 *
 *  RESERVATION CONFLICT  RESERVATION  returned, never retried elsewhere
 *  CHECK CONDITION       see the sense table
 *  BUSY, TASK SET FULL, TASK ABORTED, ACA ACTIVE, ...   fall back on the
 *                        status (PATH: SCSI retried them already)
 */
static int classify_status_byte(u8 status)
{
	if (status == SAM_STAT_RESERVATION_CONFLICT)
		return BLK_MPATH_ERR_RESERVATION;
	return -1;
}

/*
 * Sense key (/ASC/ASCQ) of a BLK_STS_IOERR completion -> class.
 *
 *  NOT READY 3a/xx  medium not present   TARGET  the LU's, on every path
 *  NOT READY other  (04/0b standby, 04/0c unavailable, 04/0a and 04/01
 *                   after SCSI's retries, ...)              PATH
 *  MEDIUM ERROR     (other ASCs than 11/13/14, after 5 retries) TARGET
 *  HARDWARE ERROR   (only with BLIST_RETRY_HWERROR, after SCSI's retries)
 *                                                           PATH, as stock
 *  ILLEGAL REQUEST 25/00  LU not supported on this port     PATH
 *  ILLEGAL REQUEST 80-ff  vendor specific: arrays use them for "not
 *                   this port" (scsi_dh_rdac lets 94/01, "not the
 *                   current owner of the LUN", through to fail the
 *                   path, as stock does for every IOERR)      PATH
 *  ILLEGAL REQUEST other  (parameter list, sequence, ...)   TARGET
 *  ABORTED COMMAND 10/xx  protection information            TARGET
 *  ABORTED COMMAND other  (after 5 retries)                 PATH
 *  UNIT ATTENTION   (after SCSI's retries)                  PATH
 *  DATA PROTECT, BLANK CHECK, COPY ABORTED, VOLUME OVERFLOW,
 *  MISCOMPARE       (SCSI sets BLK_STS_TARGET; any left)    TARGET
 *  NO SENSE, vendor specific, other     fall back on the status (PATH)
 */
static int classify_sense(u8 key, u8 asc, u8 ascq)
{
	switch (key) {
	case NOT_READY:
		if (asc == 0x3a)
			return BLK_MPATH_ERR_TARGET;
		return BLK_MPATH_ERR_PATH;
	case MEDIUM_ERROR:
		return BLK_MPATH_ERR_TARGET;
	case HARDWARE_ERROR:
		return BLK_MPATH_ERR_PATH;
	case ILLEGAL_REQUEST:
		if (asc == 0x25 || asc >= 0x80)
			return BLK_MPATH_ERR_PATH;
		return BLK_MPATH_ERR_TARGET;
	case ABORTED_COMMAND:
		if (asc == 0x10)
			return BLK_MPATH_ERR_TARGET;
		return BLK_MPATH_ERR_PATH;
	case UNIT_ATTENTION:
		return BLK_MPATH_ERR_PATH;
	case DATA_PROTECT:
	case BLANK_CHECK:
	case COPY_ABORTED:
	case VOLUME_OVERFLOW:
	case MISCOMPARE:
		return BLK_MPATH_ERR_TARGET;
	default:
		return -1;
	}
}

/**
 * blk_mpath_classify - classify the error of a completed clone
 * @d: its error detail
 *
 * In order: success; out-of-resource statuses; statuses that SCSI (or any
 * driver) already marks as target/nexus errors (BLK_STS_TARGET, _NEXUS,
 * _MEDIUM, _PROTECTION, _NOSPC, _NOTSUPP: never retried on another path,
 * as blk_path_error() says); then for SCSI the host byte, status byte and
 * sense tables above; and finally blk_path_error() of the status.
 */
enum blk_mpath_err_class blk_mpath_classify(const struct blk_error_detail *d)
{
	int c;

	switch (d->status) {
	case BLK_STS_OK:
		return BLK_MPATH_ERR_NONE;
	case BLK_STS_RESOURCE:
	case BLK_STS_DEV_RESOURCE:
		return BLK_MPATH_ERR_RESOURCE;
	case BLK_STS_NEXUS:
		return BLK_MPATH_ERR_RESERVATION;
	case BLK_STS_TARGET:
	case BLK_STS_MEDIUM:
	case BLK_STS_PROTECTION:
	case BLK_STS_NOSPC:
	case BLK_STS_NOTSUPP:
		return BLK_MPATH_ERR_TARGET;
	default:
		break;
	}

	if (d->source == BLK_ERR_SRC_SCSI) {
		c = classify_host_byte(d->host_byte);
		if (c >= 0)
			return c;
		c = classify_status_byte(d->status_byte);
		if (c >= 0)
			return c;
		if (d->status_byte == SAM_STAT_CHECK_CONDITION &&
		    (d->flags & BLK_ERR_SENSE_VALID)) {
			c = classify_sense(d->sense_key, d->asc, d->ascq);
			if (c >= 0)
				return c;
		}
	}

	return blk_path_error(d->status) ? BLK_MPATH_ERR_PATH :
					   BLK_MPATH_ERR_TARGET;
}
EXPORT_SYMBOL_NS_GPL(blk_mpath_classify, BLK_MPATH_KUNIT);

/**
 * blk_mpath_err_class_name - a class's name, for logs and tests
 * @c: the class
 */
const char *blk_mpath_err_class_name(enum blk_mpath_err_class c)
{
	switch (c) {
	case BLK_MPATH_ERR_NONE:
		return "none";
	case BLK_MPATH_ERR_PATH:
		return "path";
	case BLK_MPATH_ERR_TARGET:
		return "target";
	case BLK_MPATH_ERR_RESERVATION:
		return "reservation";
	case BLK_MPATH_ERR_RESOURCE:
		return "resource";
	case BLK_MPATH_ERR_LIMITS:
		return "limits";
	}
	return "unknown";
}
EXPORT_SYMBOL_NS_GPL(blk_mpath_err_class_name, BLK_MPATH_KUNIT);

/* ---- module ----------------------------------------------------------------------- */

static int __init blk_mpath_init(void)
{
	int r;

	kmpath_handlerd = alloc_ordered_workqueue("kblk_mpath_handlerd",
						  WQ_MEM_RECLAIM | WQ_HIGHPRI);
	if (!kmpath_handlerd)
		return -ENOMEM;

	r = blk_mpath_ps_init();
	if (r) {
		destroy_workqueue(kmpath_handlerd);
		return r;
	}

	r = blk_mpath_bio_init();
	if (r) {
		blk_mpath_ps_exit();
		destroy_workqueue(kmpath_handlerd);
		return r;
	}

	blk_mpath_debugfs_root = debugfs_create_dir("blk_mpath", NULL);
	return 0;
}

static void __exit blk_mpath_exit(void)
{
	debugfs_remove_recursive(blk_mpath_debugfs_root);
	blk_mpath_bio_exit();
	blk_mpath_ps_exit();
	destroy_workqueue(kmpath_handlerd);
}

module_init(blk_mpath_init);
module_exit(blk_mpath_exit);

MODULE_DESCRIPTION("Request-based multipath engine");
MODULE_LICENSE("GPL");
