// SPDX-License-Identifier: GPL-2.0
/*
 * dm "multipath" target on the blk-mpath engine.
 *
 * A thin device-mapper target, request-based or (with "queue_mode bio")
 * bio-based on the same engine: it parses and prints the stock
 * dm-multipath table (drivers/md/dm-mpath.c, target version 1.14.0), prints
 * the stock status, accepts the stock messages and relays engine events as
 * dm events and uevents.  All multipath policy (path groups, path state,
 * selectors, completion verdicts, queue_if_no_path, pg_init) lives in the
 * engine, include/linux/blk-mpath.h.
 *
 * Table parsing, status formatting and message handling are taken from the
 * stock target so that user space (multipathd, dmsetup) sees the very same
 * tables, status lines, error strings and return codes.
 *
 * Based on drivers/md/dm-mpath.c:
 * Copyright (C) 2003 Sistina Software Limited.
 * Copyright (C) 2004-2005 Red Hat, Inc. All rights reserved.
 */

#include <linux/device-mapper.h>
#include <linux/blk-mpath.h>
#include <linux/blkdev.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <scsi/scsi.h>
#include <scsi/scsi_device.h>
#include <scsi/sg.h>

#include "dm-rq.h"
#include "dm-uevent.h"

#define DM_MSG_PREFIX "multipath"
/* stock's struct dm_mpath_io: pointer, size_t, u64 */
#define BM_STOCK_RQ_PDU_SIZE	(sizeof(void *) + sizeof(size_t) + sizeof(u64))

static unsigned long queue_if_no_path_timeout_secs;

/* Every constructed target, so that the module parameter reaches them. */
static DEFINE_MUTEX(bm_targets_lock);
static LIST_HEAD(bm_targets);

/* One reference on a path device, in table order (a device may repeat). */
struct bm_dev {
	struct list_head list;
	struct dm_dev *dev;
};

/* Target context. */
struct bm_target {
	struct list_head list;		/* in bm_targets */
	struct dm_target *ti;
	struct blk_mpath *m;
	struct mutex work_mutex;	/* messages vs. postsuspend, as stock */
	struct list_head devs;		/* struct bm_dev, for iterate_devices */
	bool bio_based;			/* queue_mode bio */
};

typedef int (*bm_action_fn)(struct blk_mpath *m, struct blk_mpath_path *path);

/*
 *---------------------------------------------------------------
 * Engine callbacks
 *---------------------------------------------------------------
 */

/* The path as dm names it (the dm_dev's "MAJ:MIN"). */
static const char *path_dev_name(struct blk_mpath_path *p)
{
	struct dm_dev *dev = p->owner_data;

	return dev ? dev->name : p->name;
}

/*
 * Called with the engine lock held, in the order of the path state changes:
 * dm_path_uevent() only queues the uevent (GFP_ATOMIC), dm_table_event()
 * from the engine's work item sends the queue in that order.
 */
static void bm_path_event(void *owner, enum blk_mpath_event ev,
			  struct blk_mpath_path *path,
			  unsigned int nr_valid_paths)
{
	struct bm_target *bt = owner;

	switch (ev) {
	case BLK_MPATH_EV_PATH_FAILED:
		dm_path_uevent(DM_UEVENT_PATH_FAILED, bt->ti,
			       path_dev_name(path), nr_valid_paths);
		break;
	case BLK_MPATH_EV_PATH_REINSTATED:
		dm_path_uevent(DM_UEVENT_PATH_REINSTATED, bt->ti,
			       path_dev_name(path), nr_valid_paths);
		break;
	default:
		break;
	}
}

static void bm_state_changed(void *owner)
{
	struct bm_target *bt = owner;

	dm_table_event(bt->ti->table);
}

static void bm_kick(void *owner)
{
	struct bm_target *bt = owner;

	/* Requests pushed back with a delay wait on the requeue list ... */
	dm_mq_kick_requeue_list(dm_table_get_md(bt->ti->table));
	/* ... requests refused with DM_MAPIO_REQUEUE on the dispatch list. */
	dm_table_run_md_queue_async(bt->ti->table);
}

static bool bm_noflush_suspending(void *owner)
{
	struct bm_target *bt = owner;

	return dm_noflush_suspending(bt->ti);
}

static const struct blk_mpath_ops bm_ops = {
	.path_event = bm_path_event,
	.state_changed = bm_state_changed,
	.kick = bm_kick,
	.noflush_suspending = bm_noflush_suspending,
};

/* queue_mode bio: the engine holds and resubmits bios itself, no kick */
static const struct blk_mpath_ops bm_bio_ops = {
	.path_event = bm_path_event,
	.state_changed = bm_state_changed,
	.noflush_suspending = bm_noflush_suspending,
};

/*
 *---------------------------------------------------------------
 * queue_if_no_path_timeout_secs: as stock, a change applies to every map
 * the next time its no-path timer is armed.
 *---------------------------------------------------------------
 */
static unsigned int bm_nopath_timeout(void)
{
	return min_t(unsigned long, READ_ONCE(queue_if_no_path_timeout_secs),
		     UINT_MAX);
}

static int bm_set_nopath_timeout(const char *val,
				 const struct kernel_param *kp)
{
	struct bm_target *bt;
	int r;

	r = param_set_ulong(val, kp);
	if (r)
		return r;

	mutex_lock(&bm_targets_lock);
	list_for_each_entry(bt, &bm_targets, list)
		WRITE_ONCE(bt->m->no_path_timeout_secs, bm_nopath_timeout());
	mutex_unlock(&bm_targets_lock);

	return 0;
}

static const struct kernel_param_ops bm_nopath_timeout_ops = {
	.set = bm_set_nopath_timeout,
	.get = param_get_ulong,
};

/*
 *---------------------------------------------------------------
 * Constructor/argument parsing (stock syntax and error strings):
 * <#multipath feature args> [<arg>]*
 * <#hw_handler args> [hw_handler [<arg>]*]
 * <#priority groups>
 * <initial priority group>
 *     [<selector> <#selector args> [<arg>]*
 *      <#paths> <#per-path selector args>
 *         [<path> [<arg>]* ]+ ]+
 *---------------------------------------------------------------
 */
static void bm_put_devices(struct bm_target *bt)
{
	struct bm_dev *d, *tmp;

	list_for_each_entry_safe(d, tmp, &bt->devs, list) {
		list_del(&d->list);
		dm_put_device(bt->ti, d->dev);
		kfree(d);
	}
}

static int parse_features(struct dm_arg_set *as, struct dm_target *ti,
			  struct blk_mpath_config *cfg, bool *bio_based)
{
	int r;
	unsigned int argc;
	const char *arg_name;

	static const struct dm_arg _args[] = {
		{0, 8, "invalid number of feature args"},
		{1, 50, "pg_init_retries must be between 1 and 50"},
		{0, 60000, "pg_init_delay_msecs must be between 0 and 60000"},
	};

	r = dm_read_arg_group(_args, as, &argc, &ti->error);
	if (r)
		return -EINVAL;

	if (!argc)
		return 0;

	do {
		arg_name = dm_shift_arg(as);
		argc--;

		if (!strcasecmp(arg_name, "queue_if_no_path")) {
			cfg->queue_if_no_path = true;
			r = 0;
			continue;
		}

		if (!strcasecmp(arg_name, "retain_attached_hw_handler")) {
			cfg->retain_attached_hw_handler = true;
			continue;
		}

		if (!strcasecmp(arg_name, "pg_init_retries") &&
		    argc >= 1) {
			r = dm_read_arg(_args + 1, as, &cfg->pg_init_retries,
					&ti->error);
			argc--;
			continue;
		}

		if (!strcasecmp(arg_name, "pg_init_delay_msecs") &&
		    argc >= 1) {
			r = dm_read_arg(_args + 2, as, &cfg->pg_init_delay_msecs,
					&ti->error);
			argc--;
			continue;
		}

		if (!strcasecmp(arg_name, "queue_mode") &&
		    argc >= 1) {
			const char *queue_mode_name = dm_shift_arg(as);

			if (!strcasecmp(queue_mode_name, "bio")) {
				*bio_based = true;
			} else if (!strcasecmp(queue_mode_name, "rq") ||
				   !strcasecmp(queue_mode_name, "mq")) {
				*bio_based = false;
			} else {
				ti->error = "Unknown 'queue_mode' requested";
				r = -EINVAL;
			}
			argc--;
			continue;
		}

		ti->error = "Unrecognised multipath feature request";
		r = -EINVAL;
	} while (argc && !r);

	return r;
}

/*
 * Stock format: hw_handler_params is "<#args>\0<arg>\0<arg>\0...", the
 * multi-string buffer scsi_dh_set_params() expects.
 */
static int parse_hw_handler(struct dm_arg_set *as, struct dm_target *ti,
			    char **hw_handler_name, char **hw_handler_params)
{
	unsigned int hw_argc;

	static const struct dm_arg _args[] = {
		{0, 1024, "invalid number of hardware handler args"},
	};

	if (dm_read_arg_group(_args, as, &hw_argc, &ti->error))
		return -EINVAL;

	if (!hw_argc)
		return 0;

	*hw_handler_name = kstrdup(dm_shift_arg(as), GFP_KERNEL);
	if (!*hw_handler_name)
		return -EINVAL;

	if (hw_argc > 1) {
		char *p;
		int i, j, len = 4;

		for (i = 0; i <= hw_argc - 2; i++)
			len += strlen(as->argv[i]) + 1;
		p = kzalloc(len, GFP_KERNEL);
		if (!p) {
			ti->error = "memory allocation failed";
			kfree(*hw_handler_name);
			*hw_handler_name = NULL;
			return -ENOMEM;
		}
		*hw_handler_params = p;
		j = sprintf(p, "%d", hw_argc - 1);
		for (i = 0, p += j + 1; i <= hw_argc - 2; i++, p += j + 1)
			j = sprintf(p, "%s", as->argv[i]);
	}
	dm_consume_args(as, hw_argc - 1);

	return 0;
}

static int parse_path_selector(struct dm_arg_set *as, struct bm_target *bt,
			       struct blk_mpath_pg **pgp)
{
	int r;
	struct dm_target *ti = bt->ti;
	const struct blk_mpath_selector_type *pst;
	struct blk_mpath_pg *pg;
	const char *name;
	unsigned int ps_argc;
	char *error = NULL;

	static const struct dm_arg _args[] = {
		{0, 1024, "invalid number of path selector args"},
	};

	name = dm_shift_arg(as);
	pst = name ? blk_mpath_selector_get(name) : NULL;
	if (!pst) {
		ti->error = "unknown path selector type";
		return -EINVAL;
	}

	r = dm_read_arg_group(_args, as, &ps_argc, &ti->error);
	if (r) {
		blk_mpath_selector_put(pst);
		return -EINVAL;
	}

	pg = blk_mpath_add_pg(bt->m, name, ps_argc, as->argv, &error);
	blk_mpath_selector_put(pst);
	if (IS_ERR_OR_NULL(pg)) {
		ti->error = error ?: "path selector constructor failed";
		return pg ? PTR_ERR(pg) : -EINVAL;
	}

	dm_consume_args(as, ps_argc);
	*pgp = pg;

	return 0;
}

static int parse_path(struct dm_arg_set *as, struct blk_mpath_pg *pg,
		      struct bm_target *bt)
{
	int r;
	struct dm_target *ti = bt->ti;
	struct blk_mpath_path *path;
	struct bm_dev *d;
	char *error = NULL;

	/* we need at least a path arg */
	if (as->argc < 1) {
		ti->error = "no device given";
		return -EINVAL;
	}

	d = kzalloc(sizeof(*d), GFP_KERNEL);
	if (!d)
		return -ENOMEM;

	r = dm_get_device(ti, dm_shift_arg(as), dm_table_get_mode(ti->table),
			  &d->dev);
	if (r) {
		ti->error = "error getting device";
		kfree(d);
		return r;
	}

	path = blk_mpath_add_path(pg, d->dev->bdev, d->dev->name, as->argc,
				  as->argv, &error);
	if (IS_ERR_OR_NULL(path)) {
		if (error)
			ti->error = error;
		dm_put_device(ti, d->dev);
		kfree(d);
		return path ? PTR_ERR(path) : -EINVAL;
	}

	path->owner_data = d->dev;
	list_add_tail(&d->list, &bt->devs);

	return 0;
}

static int parse_priority_group(struct dm_arg_set *as, struct bm_target *bt,
				struct blk_mpath_pg **pgp)
{
	static const struct dm_arg _args[] = {
		{1, 1024, "invalid number of paths"},
		{0, 1024, "invalid number of selector args"}
	};

	int r;
	unsigned int i, nr_paths, nr_selector_args, nr_args;
	struct blk_mpath_pg *pg;
	struct dm_target *ti = bt->ti;

	if (as->argc < 2) {
		as->argc = 0;
		ti->error = "not enough priority group arguments";
		return -EINVAL;
	}

	r = parse_path_selector(as, bt, &pg);
	if (r)
		return r;

	/*
	 * read the paths
	 */
	r = dm_read_arg(_args, as, &nr_paths, &ti->error);
	if (r)
		return r;

	r = dm_read_arg(_args + 1, as, &nr_selector_args, &ti->error);
	if (r)
		return r;

	nr_args = 1 + nr_selector_args;
	for (i = 0; i < nr_paths; i++) {
		struct dm_arg_set path_args;

		if (as->argc < nr_args) {
			ti->error = "not enough path parameters";
			return -EINVAL;
		}

		path_args.argc = nr_args;
		path_args.argv = as->argv;

		r = parse_path(&path_args, pg, bt);
		if (r)
			return r;

		dm_consume_args(as, nr_args);
	}

	*pgp = pg;
	return 0;
}

static void bm_free(struct bm_target *bt)
{
	/* The engine drops its paths first: the devices are ours. */
	if (bt->m)
		blk_mpath_destroy(bt->m);
	bm_put_devices(bt);
	mutex_destroy(&bt->work_mutex);
	kfree(bt);
}

static int multipath_ctr(struct dm_target *ti, unsigned int argc, char **argv)
{
	/* target arguments */
	static const struct dm_arg _args[] = {
		{0, 1024, "invalid number of priority groups"},
		{0, 1024, "invalid initial priority group number"},
	};

	int r;
	struct bm_target *bt;
	struct dm_arg_set as;
	struct blk_mpath_config cfg = {
		.pg_init_delay_msecs = BLK_MPATH_PG_INIT_DELAY_DEFAULT,
	};
	char *hw_handler_name = NULL, *hw_handler_params = NULL;
	bool bio_based = false;
	unsigned int nr_pgs, pg_count = 0;
	unsigned int next_pg_num;
	char *error = NULL;

	as.argc = argc;
	as.argv = argv;

	bt = kzalloc(sizeof(*bt), GFP_KERNEL);
	if (!bt) {
		ti->error = "can't allocate multipath";
		return -EINVAL;
	}
	bt->ti = ti;
	mutex_init(&bt->work_mutex);
	INIT_LIST_HEAD(&bt->devs);
	ti->private = bt;

	r = parse_features(&as, ti, &cfg, &bio_based);
	if (r)
		goto bad;

	if (bio_based) {
		/*
		 * As stock: bio-based multipath does no scsi_dh management
		 * of its own, it only uses a handler already attached.
		 */
		dm_table_set_type(ti->table, DM_TYPE_BIO_BASED);
		cfg.retain_attached_hw_handler = true;
		cfg.bio_based = true;
		bt->bio_based = true;
	} else {
		dm_table_set_type(ti->table, DM_TYPE_REQUEST_BASED);
	}

	r = parse_hw_handler(&as, ti, &hw_handler_name, &hw_handler_params);
	if (r)
		goto bad;
	if (bio_based && hw_handler_name) {
		DMERR("bio-based multipath doesn't allow hardware handler args");
		kfree(hw_handler_name);
		kfree(hw_handler_params);
		hw_handler_name = NULL;
		hw_handler_params = NULL;
	}

	r = dm_read_arg(_args, &as, &nr_pgs, &ti->error);
	if (r)
		goto bad;

	r = dm_read_arg(_args + 1, &as, &next_pg_num, &ti->error);
	if (r)
		goto bad;

	if ((!nr_pgs && next_pg_num) || (nr_pgs && !next_pg_num)) {
		ti->error = "invalid initial priority group";
		r = -EINVAL;
		goto bad;
	}

	cfg.hw_handler_name = hw_handler_name;
	cfg.hw_handler_params = hw_handler_params;
	cfg.no_path_timeout_secs = bm_nopath_timeout();
	/*
	 * Stock accepts an initial group number beyond the last group and
	 * then simply has no initial group.
	 */
	cfg.initial_pg_num = next_pg_num <= nr_pgs ? next_pg_num : 0;
	bt->m = blk_mpath_create(dm_table_device_name(ti->table), &cfg,
				 bio_based ? &bm_bio_ops : &bm_ops, bt, &error);
	if (IS_ERR_OR_NULL(bt->m)) {
		r = bt->m ? PTR_ERR(bt->m) : -EINVAL;
		bt->m = NULL;
		ti->error = error ?: "can't allocate multipath";
		goto bad;
	}

	/* parse the priority groups */
	while (as.argc) {
		struct blk_mpath_pg *pg;

		r = parse_priority_group(&as, bt, &pg);
		if (r)
			goto bad;

		pg_count++;
	}

	if (pg_count != nr_pgs) {
		ti->error = "priority group count mismatch";
		r = -EINVAL;
		goto bad;
	}

	error = NULL;
	r = blk_mpath_start(bt->m, &error);
	if (r) {
		ti->error = error ?: "can't start multipath";
		goto bad;
	}

	kfree(hw_handler_name);
	kfree(hw_handler_params);

	mutex_lock(&bm_targets_lock);
	list_add_tail(&bt->list, &bm_targets);
	/* the parameter may have changed since blk_mpath_create() */
	WRITE_ONCE(bt->m->no_path_timeout_secs, bm_nopath_timeout());
	mutex_unlock(&bm_targets_lock);

	ti->num_flush_bios = 1;
	ti->num_discard_bios = 1;
	ti->num_write_zeroes_bios = 1;
	/*
	 * dm sizes a request-based map's tag set from its first table and
	 * keeps it across reloads, also reloads onto the other
	 * implementation of "multipath" (patch 0006).  So the per-request
	 * data is exactly stock's struct dm_mpath_io (pgpath, nr_bytes,
	 * start_time_ns): a map moved here from stock fits our context in
	 * it, and a map created here can move to stock, whose context would
	 * otherwise overrun each request's driver data.
	 */
	BUILD_BUG_ON(sizeof(struct blk_mpath_rq_ctx) > BM_STOCK_RQ_PDU_SIZE);
	ti->per_io_data_size = BM_STOCK_RQ_PDU_SIZE;
	if (bio_based)
		ti->per_io_data_size = sizeof(struct blk_mpath_bio_ctx);

	return 0;

 bad:
	kfree(hw_handler_name);
	kfree(hw_handler_params);
	ti->private = NULL;
	bm_free(bt);
	return r;
}

static void multipath_dtr(struct dm_target *ti)
{
	struct bm_target *bt = ti->private;

	mutex_lock(&bm_targets_lock);
	list_del(&bt->list);
	mutex_unlock(&bm_targets_lock);

	bm_free(bt);
}

/*
 *---------------------------------------------------------------
 * Request hooks
 *---------------------------------------------------------------
 */
static int multipath_clone_and_map(struct dm_target *ti, struct request *rq,
				   union map_info *map_context,
				   struct request **clone)
{
	struct bm_target *bt = ti->private;

	switch (blk_mpath_map_rq(bt->m, rq, clone, map_context->ptr)) {
	case BLK_MPATH_MAP_REMAPPED:
		return DM_MAPIO_REMAPPED;
	case BLK_MPATH_MAP_REQUEUE:
		return DM_MAPIO_REQUEUE;
	case BLK_MPATH_MAP_DELAY_REQUEUE:
		return DM_MAPIO_DELAY_REQUEUE;
	case BLK_MPATH_MAP_KILL:
	default:
		return DM_MAPIO_KILL;
	}
}

/*
 * map_context is non-NULL only while the caller is still in the map method
 * (the clone was never issued): the engine must then undo the selector
 * accounting of blk_mpath_map_rq(); after completion it is NULL.
 */
static void multipath_release_clone(struct request *clone,
				    union map_info *map_context)
{
	blk_mpath_release_clone(clone, map_context ? map_context->ptr : NULL);
}

static int multipath_end_io(struct dm_target *ti, struct request *clone,
			    blk_status_t error, union map_info *map_context)
{
	struct bm_target *bt = ti->private;
	blk_status_t status = error;

	switch (blk_mpath_end_rq(bt->m, clone, error, map_context->ptr,
				 &status)) {
	case BLK_MPATH_END_RETRY:
		return DM_ENDIO_REQUEUE;
	case BLK_MPATH_END_DELAY_RETRY:
		return DM_ENDIO_DELAY_REQUEUE;
	case BLK_MPATH_END_DONE:
	default:
		/* dm-rq completes the original with the clone's own error. */
		if (unlikely(status != error))
			DMWARN_LIMIT("%s: cannot complete with status %d instead of %d",
				     dm_table_device_name(ti->table),
				     blk_status_to_errno(status),
				     blk_status_to_errno(error));
		return DM_ENDIO_DONE;
	}
}

/*
 *---------------------------------------------------------------
 * Bio hooks (queue_mode bio)
 *---------------------------------------------------------------
 */
static struct blk_mpath_bio_ctx *bm_bio_ctx(struct bio *bio)
{
	return dm_per_bio_data(bio, sizeof(struct blk_mpath_bio_ctx));
}

static int multipath_map_bio(struct dm_target *ti, struct bio *bio)
{
	struct bm_target *bt = ti->private;

	switch (blk_mpath_map_bio(bt->m, bio, bm_bio_ctx(bio))) {
	case BLK_MPATH_BIO_REMAPPED:
		return DM_MAPIO_REMAPPED;
	case BLK_MPATH_BIO_QUEUED:
		return DM_MAPIO_SUBMITTED;
	case BLK_MPATH_BIO_PUSH_BACK:
		return DM_MAPIO_REQUEUE;
	case BLK_MPATH_BIO_KILL:
	default:
		return DM_MAPIO_KILL;
	}
}

/*
 * Also called for the bios the engine ends itself (BLK_STS_IOERR when it
 * must fail a held bio, BLK_STS_DM_REQUEUE to push one back during a
 * noflush suspend): the engine returns DONE for them with that status.
 */
static int multipath_end_io_bio(struct dm_target *ti, struct bio *clone,
				blk_status_t *error)
{
	struct bm_target *bt = ti->private;

	switch (blk_mpath_end_bio(bt->m, clone, error, bm_bio_ctx(clone))) {
	case BLK_MPATH_BIO_END_QUEUED:
		return DM_ENDIO_INCOMPLETE;
	case BLK_MPATH_BIO_END_DONE:
	default:
		return DM_ENDIO_DONE;
	}
}

/*
 *---------------------------------------------------------------
 * Suspend/resume
 *---------------------------------------------------------------
 */

/*
 * Suspend with flush can't complete until all the I/O is processed
 * so if the last path fails we must error any remaining I/O.
 * - Note that if the freeze_bdev fails while suspending, the
 *   queue_if_no_path state is lost - userspace should reset it.
 * Otherwise, during noflush suspend, queue_if_no_path will not change.
 */
static void multipath_presuspend(struct dm_target *ti)
{
	struct bm_target *bt = ti->private;

	/*
	 * Stock bio mode always turns queueing off (its FIXME): the bios the
	 * engine holds are then pushed back to dm core (noflush) or failed.
	 */
	if (bt->bio_based || !dm_noflush_suspending(ti))
		blk_mpath_set_queueing(bt->m, false,
				       BLK_MPATH_QUEUEING_SAVE_OLD);
}

static void multipath_postsuspend(struct dm_target *ti)
{
	struct bm_target *bt = ti->private;

	mutex_lock(&bt->work_mutex);
	blk_mpath_flush(bt->m);
	mutex_unlock(&bt->work_mutex);
}

/*
 * Restore the queue_if_no_path setting.
 */
static void multipath_resume(struct dm_target *ti)
{
	struct bm_target *bt = ti->private;

	blk_mpath_restore_queueing(bt->m);
}

/*
 *---------------------------------------------------------------
 * Status (stock format):
 *
 * Info output has the following format:
 * num_multipath_feature_args [multipath_feature_args]*
 * num_handler_status_args [handler_status_args]*
 * num_groups init_group_number
 *            [A|D|E num_ps_status_args [ps_status_args]*
 *             num_paths num_selector_args
 *             [path_dev A|F fail_count [selector_args]* ]+ ]+
 *
 * Table output has the following format (identical to the constructor string):
 * num_feature_args [features_args]*
 * num_handler_args hw_handler [hw_handler_args]*
 * num_groups init_group_number
 *     [priority selector-name num_ps_args [ps_args]*
 *      num_paths num_selector_args [path_dev [selector_args]* ]+ ]+
 *---------------------------------------------------------------
 */
static void multipath_status(struct dm_target *ti, status_type_t type,
			     unsigned int status_flags, char *result,
			     unsigned int maxlen)
{
	int sz = 0, pg_counter, pgpath_counter;
	unsigned long flags;
	struct bm_target *bt = ti->private;
	struct blk_mpath *m = bt->m;
	const struct blk_mpath_selector_type *pst;
	enum blk_mpath_status_type ps_type;
	struct blk_mpath_pg *pg;
	struct blk_mpath_path *p;

	blk_mpath_lock(m, &flags);

	/* Features */
	if (type == STATUSTYPE_INFO) {
		DMEMIT("2 %u %u ", test_bit(BLK_MPATHF_QUEUE_IO, &m->flags),
		       atomic_read(&m->pg_init_count));
	} else {
		DMEMIT("%u ", test_bit(BLK_MPATHF_QUEUE_IF_NO_PATH, &m->flags) +
		       (m->pg_init_retries > 0) * 2 +
		       (m->pg_init_delay_msecs != BLK_MPATH_PG_INIT_DELAY_DEFAULT) * 2 +
		       test_bit(BLK_MPATHF_RETAIN_ATTACHED_HW_HANDLER, &m->flags) +
		       bt->bio_based * 2);

		if (test_bit(BLK_MPATHF_QUEUE_IF_NO_PATH, &m->flags))
			DMEMIT("queue_if_no_path ");
		if (m->pg_init_retries)
			DMEMIT("pg_init_retries %u ", m->pg_init_retries);
		if (m->pg_init_delay_msecs != BLK_MPATH_PG_INIT_DELAY_DEFAULT)
			DMEMIT("pg_init_delay_msecs %u ", m->pg_init_delay_msecs);
		if (test_bit(BLK_MPATHF_RETAIN_ATTACHED_HW_HANDLER, &m->flags))
			DMEMIT("retain_attached_hw_handler ");
		if (bt->bio_based)
			DMEMIT("queue_mode bio ");
	}

	if (!m->hw_handler_name || type == STATUSTYPE_INFO)
		DMEMIT("0 ");
	else
		DMEMIT("1 %s ", m->hw_handler_name);

	DMEMIT("%u ", m->nr_pgs);
	DMEMIT("%u ", blk_mpath_status_pg_num(m));

	switch (type) {
	case STATUSTYPE_INFO:
	case STATUSTYPE_TABLE:
		ps_type = type == STATUSTYPE_INFO ? BLK_MPATH_STATUS_INFO :
						    BLK_MPATH_STATUS_TABLE;
		list_for_each_entry(pg, &m->pgs, list) {
			pst = pg->ps.type;

			if (type == STATUSTYPE_INFO)
				DMEMIT("%c ", blk_mpath_pg_state(m, pg));
			else
				DMEMIT("%s ", pst->name);

			if (pst->status)
				sz += pst->status(&pg->ps, NULL, ps_type,
						  result + sz, maxlen - sz);
			else
				DMEMIT("0 ");

			DMEMIT("%u %u ", pg->nr_paths,
			       type == STATUSTYPE_INFO ? pst->info_args :
							 pst->table_args);

			list_for_each_entry(p, &pg->paths, list) {
				if (type == STATUSTYPE_INFO)
					DMEMIT("%s %s %u ", path_dev_name(p),
					       p->is_active ? "A" : "F",
					       p->fail_count);
				else
					DMEMIT("%s ", path_dev_name(p));
				if (pst->status)
					sz += pst->status(&pg->ps, p, ps_type,
							  result + sz,
							  maxlen - sz);
			}
		}
		break;

	case STATUSTYPE_IMA:
		sz = 0; /*reset the result pointer*/

		DMEMIT_TARGET_NAME_VERSION(ti->type);
		DMEMIT(",nr_priority_groups=%u", m->nr_pgs);

		pg_counter = 0;
		list_for_each_entry(pg, &m->pgs, list) {
			pst = pg->ps.type;

			DMEMIT(",pg_state_%d=%c", pg_counter,
			       blk_mpath_pg_state(m, pg));
			DMEMIT(",nr_pgpaths_%d=%u", pg_counter, pg->nr_paths);
			DMEMIT(",path_selector_name_%d=%s", pg_counter,
			       pst->name);

			pgpath_counter = 0;
			list_for_each_entry(p, &pg->paths, list) {
				DMEMIT(",path_name_%d_%d=%s,is_active_%d_%d=%c,fail_count_%d_%d=%u",
				       pg_counter, pgpath_counter,
				       path_dev_name(p),
				       pg_counter, pgpath_counter,
				       p->is_active ? 'A' : 'F',
				       pg_counter, pgpath_counter,
				       p->fail_count);
				/* Every stock selector emits nothing for IMA. */
				if (pst->status)
					DMEMIT(",path_selector_status_%d_%d=",
					       pg_counter, pgpath_counter);
				pgpath_counter++;
			}
			pg_counter++;
		}
		DMEMIT(";");
		break;
	}

	blk_mpath_unlock(m, flags);
}

/*
 *---------------------------------------------------------------
 * Messages (stock syntax, return codes and warnings)
 *---------------------------------------------------------------
 */

/*
 * Fail or reinstate all paths that match the provided struct dm_dev.
 * The group and path lists do not change after the constructor.
 */
static int action_dev(struct blk_mpath *m, struct dm_dev *dev,
		      bm_action_fn action)
{
	int r = -EINVAL;
	struct blk_mpath_path *path;
	struct blk_mpath_pg *pg;

	list_for_each_entry(pg, &m->pgs, list) {
		list_for_each_entry(path, &pg->paths, list) {
			if (path->owner_data == dev)
				r = action(m, path);
		}
	}

	return r;
}

static int parse_pg_num(struct blk_mpath *m, const char *pgstr,
			unsigned int *pgnum)
{
	char dummy;

	if (!pgstr || (sscanf(pgstr, "%u%c", pgnum, &dummy) != 1) || !*pgnum ||
	    !m->nr_pgs || (*pgnum > m->nr_pgs))
		return -EINVAL;

	return 0;
}

/*
 * Switch to using the specified PG from the next I/O that gets mapped
 */
static int bm_switch_pg_num(struct blk_mpath *m, const char *pgstr)
{
	unsigned int pgnum;

	if (parse_pg_num(m, pgstr, &pgnum)) {
		DMWARN("invalid PG number supplied to switch_pg_num");
		return -EINVAL;
	}

	return blk_mpath_switch_pg(m, pgnum);
}

/*
 * Set/clear bypassed status of a PG.
 * PGs are numbered upwards from 1 in the order they were declared.
 */
static int bm_bypass_pg_num(struct blk_mpath *m, const char *pgstr, bool bypassed)
{
	unsigned int pgnum;

	if (parse_pg_num(m, pgstr, &pgnum)) {
		DMWARN("invalid PG number supplied to bypass_pg");
		return -EINVAL;
	}

	return blk_mpath_bypass_pg(m, pgnum, bypassed);
}

static int multipath_message(struct dm_target *ti, unsigned int argc,
			     char **argv, char *result, unsigned int maxlen)
{
	int r = -EINVAL;
	struct dm_dev *dev;
	struct bm_target *bt = ti->private;
	struct blk_mpath *m = bt->m;
	bm_action_fn action;

	mutex_lock(&bt->work_mutex);

	if (dm_suspended(ti)) {
		r = -EBUSY;
		goto out;
	}

	if (argc == 1) {
		if (!strcasecmp(argv[0], "queue_if_no_path")) {
			r = blk_mpath_set_queueing(m, true,
						   BLK_MPATH_QUEUEING_MESSAGE);
			goto out;
		} else if (!strcasecmp(argv[0], "fail_if_no_path")) {
			r = blk_mpath_set_queueing(m, false,
						   BLK_MPATH_QUEUEING_MESSAGE);
			goto out;
		}
	}

	if (argc != 2) {
		DMWARN("Invalid multipath message arguments. Expected 2 arguments, got %d.",
		       argc);
		goto out;
	}

	if (!strcasecmp(argv[0], "disable_group")) {
		r = bm_bypass_pg_num(m, argv[1], true);
		goto out;
	} else if (!strcasecmp(argv[0], "enable_group")) {
		r = bm_bypass_pg_num(m, argv[1], false);
		goto out;
	} else if (!strcasecmp(argv[0], "switch_group")) {
		r = bm_switch_pg_num(m, argv[1]);
		goto out;
	} else if (!strcasecmp(argv[0], "reinstate_path")) {
		action = blk_mpath_reinstate_path;
	} else if (!strcasecmp(argv[0], "fail_path")) {
		action = blk_mpath_fail_path;
	} else {
		DMWARN("Unrecognised multipath message received: %s", argv[0]);
		goto out;
	}

	r = dm_get_device(ti, argv[1], dm_table_get_mode(ti->table), &dev);
	if (r) {
		DMWARN("message: error getting device %s",
		       argv[1]);
		goto out;
	}

	r = action_dev(m, dev, action);

	dm_put_device(ti, dev);

out:
	mutex_unlock(&bt->work_mutex);
	return r;
}

/*
 *---------------------------------------------------------------
 * ioctls, devices, busy
 *---------------------------------------------------------------
 */
static int multipath_prepare_ioctl(struct dm_target *ti,
				   struct block_device **bdev)
{
	struct bm_target *bt = ti->private;
	int r;

	/* On -ENOTCONN the engine has already kicked our queue (ops->kick). */
	r = blk_mpath_prepare_ioctl(bt->m, bdev);

	/*
	 * Only pass ioctls through if the device sizes match exactly.
	 */
	if (!r && ti->len != bdev_nr_sectors((*bdev)))
		return 1;
	return r;
}

/*
 * Is the SCSI device under @bdev not online (offline, transport-offline,
 * being deleted)?  scsi_queue_rq() refuses a command to such a device
 * with DID_NO_CONNECT before it reaches the driver.
 */
static bool path_scsi_offline(struct block_device *bdev)
{
	/* sd's disk hangs below its scsi_device, held while the path is open */
	struct device *parent = disk_to_dev(bdev->bd_disk)->parent;

	if (!parent || !scsi_is_sdev_device(parent))
		return false;
	return !scsi_device_online(to_scsi_device(parent));
}

/*
 * SG_IO through the map (sg_persist, sg_inq, ...): dm sends it down the one
 * path prepare_ioctl chose.  When that path refused it before it reached the
 * LU - -ENODEV / -ENXIO (the path is gone), or SCSI host byte
 * DID_NO_CONNECT / DID_TRANSPORT_FAILFAST from a device that is not online
 * (scsi-ml's own refusal) - fail the path and have dm send it again on the
 * next one.  The same host bytes from a device still online come from its
 * driver, which may report them for a command it had already sent (libiscsi
 * on session teardown, mpt3sas for a vanished device): returned as they
 * are, like anything else that may have executed (a timeout, an abort, a
 * SCSI status).
 */
static bool multipath_ioctl_failed(struct dm_target *ti,
				   struct block_device *bdev,
				   unsigned int cmd, unsigned long arg, int r)
{
	struct bm_target *bt = ti->private;
	struct sg_io_hdr hdr;
	char why[40];

	if (cmd != SG_IO || in_compat_syscall())
		return false;
	if (r == -ENODEV || r == -ENXIO) {
		snprintf(why, sizeof(why), "SG_IO errno %d", r);
	} else if (r == 0) {
		if (copy_from_user(&hdr, (void __user *)arg, sizeof(hdr)) ||
		    hdr.interface_id != 'S')
			return false;
		if (hdr.host_status != DID_NO_CONNECT &&
		    hdr.host_status != DID_TRANSPORT_FAILFAST)
			return false;
		if (!path_scsi_offline(bdev))
			return false;
		snprintf(why, sizeof(why), "SG_IO host byte 0x%02x",
			 hdr.host_status);
	} else {
		return false;
	}
	return !blk_mpath_ioctl_failed(bt->m, bdev, why);
}

static int multipath_iterate_devices(struct dm_target *ti,
				     iterate_devices_callout_fn fn, void *data)
{
	struct bm_target *bt = ti->private;
	struct bm_dev *d;
	int ret = 0;

	list_for_each_entry(d, &bt->devs, list) {
		ret = fn(ti, d->dev, ti->begin, ti->len, data);
		if (ret)
			break;
	}

	return ret;
}

static int multipath_busy(struct dm_target *ti)
{
	struct bm_target *bt = ti->private;

	return blk_mpath_busy(bt->m);
}

/*
 *---------------------------------------------------------------
 * Module setup
 *---------------------------------------------------------------
 */
static struct target_type multipath_target = {
	.name = "multipath",
	.version = {1, 14, 0},
	/*
	 * DM_TARGET_NOWAIT: nothing on the map path sleeps (the clone is
	 * allocated with BLK_MQ_REQ_NOWAIT, no path or a busy path requeues,
	 * pg_init runs from a workqueue), so the map advertises REQ_NOWAIT
	 * when every path does and io_uring submits inline instead of
	 * handing each I/O to an io-wq worker.  Stock multipath lacks it.
	 * It holds for queue_mode bio too: ->map only takes spinlocks
	 * (path choice, the engine's list of held bios), queues work items
	 * (resubmission, pg_init) and sets the bio's bdev; a bio that must
	 * wait is held, not slept on.  A REQ_NOWAIT bio its path completes
	 * with BLK_STS_AGAIN is returned to the submitter, the path kept.
	 * DM_TARGET_ALTERNATE_PATHS: the map does FUA only if every path can
	 * take a FUA write (a FUA clone bypasses the path's flush machinery).
	 * DM_TARGET_HANDOVER: registers beside stock dm-multipath (or the
	 * other copy of this module) under the name "multipath"; maps move
	 * between them with a table reload (userspace/blk-mpath-migrate).
	 */
	.features = DM_TARGET_SINGLETON | DM_TARGET_IMMUTABLE |
		    DM_TARGET_PASSES_INTEGRITY | DM_TARGET_NOWAIT |
		    DM_TARGET_ALTERNATE_PATHS | DM_TARGET_HANDOVER,
	.module = THIS_MODULE,
	.ctr = multipath_ctr,
	.dtr = multipath_dtr,
	.clone_and_map_rq = multipath_clone_and_map,
	.release_clone_rq = multipath_release_clone,
	.rq_end_io = multipath_end_io,
	.map = multipath_map_bio,
	.end_io = multipath_end_io_bio,
	.presuspend = multipath_presuspend,
	.postsuspend = multipath_postsuspend,
	.resume = multipath_resume,
	.status = multipath_status,
	.message = multipath_message,
	.prepare_ioctl = multipath_prepare_ioctl,
	.ioctl_failed = multipath_ioctl_failed,
	.iterate_devices = multipath_iterate_devices,
	.busy = multipath_busy,
};

static int __init dm_blk_mpath_init(void)
{
	int r;

	r = dm_register_target(&multipath_target);
	if (r < 0) {
		DMERR("register failed %d", r);
		return r;
	}

	return 0;
}

static void __exit dm_blk_mpath_exit(void)
{
	dm_unregister_target(&multipath_target);
}

module_init(dm_blk_mpath_init);
module_exit(dm_blk_mpath_exit);

module_param_cb(queue_if_no_path_timeout_secs, &bm_nopath_timeout_ops,
		&queue_if_no_path_timeout_secs, 0644);
__MODULE_PARM_TYPE(queue_if_no_path_timeout_secs, "ulong");
MODULE_PARM_DESC(queue_if_no_path_timeout_secs, "No available paths queue IO timeout in seconds");

MODULE_DESCRIPTION(DM_NAME " multipath target on the blk-mpath engine");
MODULE_LICENSE("GPL");
