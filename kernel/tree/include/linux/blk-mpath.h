/* SPDX-License-Identifier: GPL-2.0 */
/*
 * blk-mpath: a request-based multipath engine in the block layer.
 *
 * The engine owns all multipath policy: path groups, path state, path
 * selectors, the verdict on every completed clone (from its detailed error,
 * see blk_rq_error_detail()), queue_if_no_path and pg_init through scsi_dh.
 * A request-based stacking driver (the "owner", e.g. the device-mapper
 * "multipath" target) parses its configuration, hands requests to
 * blk_mpath_map_rq() and completed clones to blk_mpath_end_rq(), and relays
 * engine events to user space.
 *
 * Locking: the fast path (map/end) takes no engine-wide lock: the current
 * path is read under RCU and selectors keep per-path state with atomics or
 * their own fine-grained locks.  Configuration and state changes (add,
 * fail, reinstate, switch, bypass, queueing mode) serialise on m->lock.
 * Status output walks m->pgs and pg->paths under m->lock
 * (blk_mpath_lock()/blk_mpath_unlock()); the fast path (map, completion)
 * walks them without it: they are fixed between blk_mpath_start() and
 * blk_mpath_destroy().
 *
 * Lifetime: no pointer that the fast path may hold is freed while it can
 * be in use.  Groups and paths (and so m->current_path, ctx->path of every
 * request or bio in flight, selector contexts) live from their creation
 * until blk_mpath_destroy(); nothing is ever removed from a live
 * multipath.  The owner calls blk_mpath_destroy() only once no request
 * or bio of it is in flight or held by the engine (dm: after the last
 * suspend); the destructor stops the engine's timer and work items
 * (pg_init, events, the bio queue) before it frees anything.  Per-I/O
 * state (struct blk_mpath_rq_ctx, struct blk_mpath_bio_ctx) belongs to
 * the owner's request or bio and is used by the engine only between the
 * map call and the final verdict (DONE, KILL, push back).
 *
 * queue_mode bio: an owner that is bio-based (cfg->bio_based) maps bios
 * with blk_mpath_map_bio() and hands completed ones to blk_mpath_end_bio();
 * the engine then holds bios itself while it must (no usable path with
 * queue_if_no_path, pg_init, resubmission after a path error), as stock
 * dm-multipath does in bio mode.
 */
#ifndef _LINUX_BLK_MPATH_H
#define _LINUX_BLK_MPATH_H

#include <linux/types.h>
#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/atomic.h>
#include <linux/workqueue.h>
#include <linux/u64_stats_sync.h>
#include <linux/blk_types.h>

struct request;
struct block_device;
struct blk_mpath;
struct blk_mpath_pg;
struct blk_mpath_path;
struct blk_mpath_selector_type;

/* ---- selectors ----------------------------------------------------------- */

enum blk_mpath_status_type {
	BLK_MPATH_STATUS_INFO,	/* dm STATUSTYPE_INFO */
	BLK_MPATH_STATUS_TABLE,	/* dm STATUSTYPE_TABLE */
};

/* A path selector instance: one per path group. */
struct blk_mpath_selector {
	const struct blk_mpath_selector_type *type;
	void *context;
};

/*
 * A selector type.  Names, arguments and status output are those of the
 * stock dm-multipath selectors ("round-robin", "queue-length",
 * "service-time", "historical-service-time", "io-affinity").
 */
struct blk_mpath_selector_type {
	const char *name;
	unsigned int table_args;	/* per-path args echoed in the table */
	unsigned int info_args;		/* per-path args in status INFO */
	struct list_head list;		/* engine-private */

	int (*create)(struct blk_mpath_selector *ps, unsigned int argc,
		      char **argv, char **error);
	void (*destroy)(struct blk_mpath_selector *ps);
	int (*add_path)(struct blk_mpath_selector *ps,
			struct blk_mpath_path *path, unsigned int argc,
			char **argv, char **error);
	/* fail_path, reinstate_path: under the engine's lock, any context */
	void (*fail_path)(struct blk_mpath_selector *ps,
			  struct blk_mpath_path *path);
	int (*reinstate_path)(struct blk_mpath_selector *ps,
			      struct blk_mpath_path *path);
	/* under rcu_read_lock(), without the engine's lock */
	struct blk_mpath_path *(*select_path)(struct blk_mpath_selector *ps,
					      size_t nr_bytes);
	int (*start_io)(struct blk_mpath_selector *ps,
			struct blk_mpath_path *path, size_t nr_bytes);
	int (*end_io)(struct blk_mpath_selector *ps,
		      struct blk_mpath_path *path, size_t nr_bytes,
		      u64 start_time_ns);
	/* Emits like dm's DMEMIT; path == NULL for the group's own args. */
	int (*status)(struct blk_mpath_selector *ps,
		      struct blk_mpath_path *path,
		      enum blk_mpath_status_type type, char *result,
		      unsigned int maxlen);
};

const struct blk_mpath_selector_type *blk_mpath_selector_get(const char *name);
void blk_mpath_selector_put(const struct blk_mpath_selector_type *type);

/* ---- objects ------------------------------------------------------------- */

/*
 * Per-path counters, exported in debugfs (blk_mpath/<name>/paths).  Per
 * CPU so that completions on different CPUs never share a cache line.
 */
struct blk_mpath_path_stats {
	u64_stats_t ios;
	u64_stats_t bytes;
	u64_stats_t errors_path;	/* failed the path */
	u64_stats_t errors_target;	/* returned to the caller */
	u64_stats_t errors_other;
	u64_stats_t errors_reservation;	/* reservation conflicts returned */
	u64_stats_t errors_resource;	/* out of resources, delayed retry */
	u64_stats_t latency_ns;		/* sum over completed I/Os */
	struct u64_stats_sync syncp;
};

/* One path's counters summed over all CPUs: blk_mpath_path_counters(). */
struct blk_mpath_path_counters {
	u64 ios;
	u64 bytes;
	u64 errors_path;
	u64 errors_target;
	u64 errors_other;
	u64 errors_reservation;
	u64 errors_resource;
	u64 latency_ns;
};

struct blk_mpath_path {
	struct list_head list;		/* in pg->paths */
	struct blk_mpath_pg *pg;
	struct block_device *bdev;
	char name[16];			/* "MAJ:MIN", as dm prints it */
	bool is_active;
	unsigned int fail_count;
	struct delayed_work activate_path;	/* pg_init via scsi_dh */
	void *owner_data;		/* for the owner (dm: its struct dm_dev) */
	void *pscontext;		/* selector-private (dm_path.pscontext) */
	struct blk_mpath_path_stats __percpu *stats;
};

struct blk_mpath_pg {
	struct list_head list;		/* in m->pgs */
	struct blk_mpath *m;
	unsigned int pg_num;		/* 1-based */
	bool bypassed;
	unsigned int nr_paths;
	struct list_head paths;
	struct blk_mpath_selector ps;
};

/* Events reported to the owner. */
enum blk_mpath_event {
	BLK_MPATH_EV_PATH_FAILED,
	BLK_MPATH_EV_PATH_REINSTATED,
};

struct blk_mpath_ops {
	/*
	 * A path failed or was reinstated (for uevents), with a non-NULL
	 * path; group and queueing changes reach the owner through
	 * ->state_changed.  Called with m->lock held (interrupts off), in
	 * the order of the state changes, so that consecutive events for
	 * one path reach user space in the order they happened; must not
	 * sleep nor call into the engine.
	 * nr_valid_paths is the count after the change.
	 */
	void (*path_event)(void *owner, enum blk_mpath_event ev,
			   struct blk_mpath_path *path,
			   unsigned int nr_valid_paths);
	/*
	 * Something visible in the status changed (dm: dm_table_event()).
	 * Always called from process context (the engine's work item).
	 */
	void (*state_changed)(void *owner);
	/*
	 * Requests held by the owner may now proceed: re-run its queue
	 * (dm: dm_table_run_md_queue_async() + dm_mq_kick_requeue_list()).
	 * May be called in atomic context (timer, clone completion) and
	 * with m->lock held (the end of pg_init, as stock): must not sleep
	 * nor call into the engine.
	 */
	void (*kick)(void *owner);
	/*
	 * Optional: true while the owner is being suspended without
	 * flushing (dm: dm_noflush_suspending()); then requests that cannot
	 * be mapped are pushed back to the owner instead of failed.
	 */
	bool (*noflush_suspending)(void *owner);
};

#define BLK_MPATH_PG_INIT_DELAY_DEFAULT	((unsigned int)-1)
#define BLK_MPATH_PG_INIT_RETRIES_MAX	50
#define BLK_MPATH_PG_INIT_DELAY_MAX	60000
/*
 * A request that completes with BLK_STS_RESOURCE is requeued to its path
 * (after a delay, without failing the path) for at most this long after
 * the first time; then it is a path error.  Bounded per request.
 */
#define BLK_MPATH_RESOURCE_RETRY_MS	5000

/* Engine flags (m->flags), bit numbers. */
enum {
	BLK_MPATHF_QUEUE_IO,			/* hold I/O (pg_init) */
	BLK_MPATHF_QUEUE_IF_NO_PATH,
	BLK_MPATHF_SAVED_QUEUE_IF_NO_PATH,
	BLK_MPATHF_RETAIN_ATTACHED_HW_HANDLER,
	BLK_MPATHF_PG_INIT_DISABLED,
	BLK_MPATHF_PG_INIT_REQUIRED,
	BLK_MPATHF_PG_INIT_DELAY_RETRY,
};

struct blk_mpath_bio_ctx;

/*
 * queue_mode bio: the bios the engine holds (stock m->queued_bios), in
 * arrival order, and the work item that maps and resubmits them (stock
 * process_queued_bios).  Engine-private; the list is under m->lock.
 */
struct blk_mpath_bio_queue {
	struct blk_mpath_bio_ctx *head;
	struct blk_mpath_bio_ctx *tail;
	struct delayed_work work;
};

struct blk_mpath {
	spinlock_t lock;		/* state changes, see above */
	unsigned long flags;
	const struct blk_mpath_ops *ops;
	void *owner;
	char name[32];			/* for logs and debugfs */

	unsigned int nr_pgs;
	struct list_head pgs;
	struct blk_mpath_pg *current_pg;
	struct blk_mpath_pg *next_pg;
	struct blk_mpath_path __rcu *current_path;

	atomic_t nr_valid_paths;
	atomic_t pg_init_in_progress;
	atomic_t pg_init_count;
	unsigned int pg_init_retries;
	unsigned int pg_init_delay_msecs;
	char *hw_handler_name;
	char *hw_handler_params;

	unsigned int no_path_timeout_secs;	/* 0: queue forever */
	struct timer_list nopath_timer;

	wait_queue_head_t pg_init_wait;
	struct work_struct trigger_event;

	bool bio_based;			/* cfg->bio_based */
	struct blk_mpath_bio_queue bioq;	/* bio_based only */
};

/* ---- lifetime and configuration (process context) ------------------------ */

struct blk_mpath_config {
	bool queue_if_no_path;
	bool retain_attached_hw_handler;
	unsigned int pg_init_retries;		/* 0..50 */
	unsigned int pg_init_delay_msecs;	/* or ..._DEFAULT */
	const char *hw_handler_name;		/* NULL: none */
	/*
	 * NULL: none.  Otherwise in scsi_dh_set_params() format, as stock
	 * parse_hw_handler() builds it: "<n>\0<arg1>\0...<argn>\0", i.e.
	 * the decimal count followed by n NUL-terminated strings.
	 */
	const char *hw_handler_params;
	unsigned int no_path_timeout_secs;	/* bounded queueing, 0 = off */
	/*
	 * 1-based group to switch to at the first I/O (stock "initial
	 * priority group number"); 0: none (stock's 0 with no groups).
	 * Checked by blk_mpath_start(), must be <= the number of groups.
	 */
	unsigned int initial_pg_num;
	/*
	 * The owner is bio-based (dm: queue_mode bio): it maps bios with
	 * blk_mpath_map_bio() and the engine holds and resubmits bios
	 * itself; ops->kick is then not needed for them.  As stock, the
	 * owner sets retain_attached_hw_handler and passes no handler of
	 * its own in this mode (bio-based multipath only uses a scsi_dh
	 * that is already attached).
	 */
	bool bio_based;
};

struct blk_mpath *blk_mpath_create(const char *name,
				   const struct blk_mpath_config *cfg,
				   const struct blk_mpath_ops *ops,
				   void *owner, char **error);
/* Stops all work, drops every path (handlers stay attached, as stock). */
void blk_mpath_destroy(struct blk_mpath *m);

/* Adds a group at the end (pg_num = nr_pgs); argv: selector args. */
struct blk_mpath_pg *blk_mpath_add_pg(struct blk_mpath *m,
				      const char *selector, unsigned int argc,
				      char **argv, char **error);
/*
 * Adds a path to a group: attaches/validates the scsi_dh handler as stock
 * does (m->hw_handler_name, retain_attached_hw_handler), then gives the
 * selector its per-path args.  bdev stays owned by the caller.
 */
struct blk_mpath_path *blk_mpath_add_path(struct blk_mpath_pg *pg,
					  struct block_device *bdev,
					  const char *name, unsigned int argc,
					  char **argv, char **error);
/* Call after all groups/paths are added (the table is complete). */
int blk_mpath_start(struct blk_mpath *m, char **error);

static inline void blk_mpath_lock(struct blk_mpath *m, unsigned long *flags)
	__acquires(&m->lock)
{
	spin_lock_irqsave(&m->lock, *flags);
}

static inline void blk_mpath_unlock(struct blk_mpath *m, unsigned long flags)
	__releases(&m->lock)
{
	spin_unlock_irqrestore(&m->lock, flags);
}

/* ---- administrative actions (messages) ----------------------------------- */

int blk_mpath_fail_path(struct blk_mpath *m, struct blk_mpath_path *path);
int blk_mpath_reinstate_path(struct blk_mpath *m, struct blk_mpath_path *path);
/* pg_num is 1-based; -EINVAL when out of range. */
int blk_mpath_switch_pg(struct blk_mpath *m, unsigned int pg_num);
int blk_mpath_bypass_pg(struct blk_mpath *m, unsigned int pg_num, bool bypass);
/* blk_mpath_set_queueing() flags */
/* remember the current setting for blk_mpath_restore_queueing() (presuspend) */
#define BLK_MPATH_QUEUEING_SAVE_OLD	BIT(0)
/*
 * the "queue_if_no_path" / "fail_if_no_path" message: queueing on arms the
 * no-path timer when no path is left, off stops it (stock message semantics)
 */
#define BLK_MPATH_QUEUEING_MESSAGE	BIT(1)
/* queue_if_no_path on/off; flags: BLK_MPATH_QUEUEING_* */
int blk_mpath_set_queueing(struct blk_mpath *m, bool queue_if_no_path,
			   unsigned int flags);
void blk_mpath_restore_queueing(struct blk_mpath *m);
/*
 * Waits for pg_init and queued engine work (events, the bio queue's
 * resubmission) to finish (postsuspend).
 */
void blk_mpath_flush(struct blk_mpath *m);
/* Finds a path by "MAJ:MIN" name, NULL if none. */
struct blk_mpath_path *blk_mpath_find_path(struct blk_mpath *m,
					   const char *name);
/* Sums a path's per-CPU counters (debugfs "paths" prints the same). */
void blk_mpath_path_counters(struct blk_mpath_path *path,
			     struct blk_mpath_path_counters *c);

/* ---- per request --------------------------------------------------------- */

/*
 * Per-request state kept by the owner (dm: per_io_data), in the original
 * request's driver data: it must survive requeues of the original and be
 * zeroed when the owner allocates it; every final verdict (DONE, KILL)
 * leaves retry_since at 0 for the next request using it.  Engine-private
 * fields.  No larger than stock dm-multipath's per-request data (struct
 * dm_mpath_io, 16 bytes): a live table reload from stock keeps the dm
 * queue's tag set, whose driver data was sized for stock.
 */
struct blk_mpath_rq_ctx {
	struct blk_mpath_path *path;	/* the clone's path */
	unsigned int nr_bytes;
	/* jiffies | 1 of this request's first same-path requeue, 0: none */
	unsigned int retry_since;
};

enum blk_mpath_map_result {
	BLK_MPATH_MAP_REMAPPED,		/* *clone is ready to issue */
	/* dm: DM_MAPIO_REQUEUE: clone allocation failed, path queue busy */
	BLK_MPATH_MAP_REQUEUE,
	/* dm: DM_MAPIO_DELAY_REQUEUE: queueing, pg_init, dying path */
	BLK_MPATH_MAP_DELAY_REQUEUE,
	BLK_MPATH_MAP_KILL,		/* no path and no queueing: fail rq */
};

/*
 * Chooses a path and allocates a clone of rq on its queue without sleeping
 * (REQ_FAILFAST_TRANSPORT set, selector's start_io accounted).  Never
 * takes an engine-wide lock when a current path exists.
 */
enum blk_mpath_map_result blk_mpath_map_rq(struct blk_mpath *m,
					   struct request *rq,
					   struct request **clone,
					   struct blk_mpath_rq_ctx *ctx);
/*
 * Frees a clone from blk_mpath_map_rq().  As stock release_clone_rq: pass
 * ctx only when undoing blk_mpath_map_rq() for a clone that was never
 * issued (dm: map_context != NULL), so that the selector's start_io is
 * undone; pass NULL otherwise.
 */
void blk_mpath_release_clone(struct request *clone,
			     struct blk_mpath_rq_ctx *ctx);

enum blk_mpath_end_result {
	BLK_MPATH_END_DONE,		/* complete rq with *status */
	BLK_MPATH_END_RETRY,		/* requeue rq; another path or later */
	BLK_MPATH_END_DELAY_RETRY,	/* requeue rq after a delay */
};

/*
 * Verdict on a completed clone; call from its ->end_io / dm rq_end_io while
 * the clone still exists.  Reads blk_rq_error_detail(): a path error fails
 * the path and retries (unless no path is left and no queueing, then the
 * error is returned); a target error is returned and never retried on other
 * paths; an out-of-resource completion is retried on the same path, for at
 * most BLK_MPATH_RESOURCE_RETRY_MS per request.  A clone its path refused
 * because it exceeds the path's queue limits is failed without failing
 * the path.  *status is the status to complete with when DONE is returned
 * (always the clone's own error).  Accounts the selector and the per-path
 * stats.
 */
enum blk_mpath_end_result blk_mpath_end_rq(struct blk_mpath *m,
					   struct request *clone,
					   blk_status_t error,
					   struct blk_mpath_rq_ctx *ctx,
					   blk_status_t *status);

struct blk_error_detail;
/*
 * The verdict part of blk_mpath_end_rq() for an already-read error detail
 * (for owners that read it themselves, and for tests).  io_start_ns is
 * what the selector's end_io gets (stock: clone->io_start_time_ns).
 */
enum blk_mpath_end_result blk_mpath_end_detail(struct blk_mpath *m,
					       struct blk_mpath_rq_ctx *ctx,
					       const struct blk_error_detail *d,
					       u64 io_start_ns,
					       blk_status_t *status);

/* ---- per bio (queue_mode bio) --------------------------------------------- */

/*
 * Per-bio state kept by the owner (dm: per-bio data), for the engine only.
 * blk_mpath_map_bio() initialises all of it: the owner need not zero it.
 * It must stay valid until the bio's final verdict, also while the engine
 * holds the bio.  The bio's state as the owner handed it over is recorded
 * there (stock dm_bio_record()) and restored before every resubmission.
 */
struct blk_mpath_bio_ctx {
	struct blk_mpath_rq_ctx rq;	/* path, nr_bytes, retry_since */
	struct bio *bio;
	struct blk_mpath_bio_ctx *next;	/* in m->bioq */
	u64 start_ns;			/* issued on ctx->rq.path */
	/* stock struct dm_bio_details */
	struct block_device *bi_bdev;
	bio_end_io_t *bi_end_io;
	struct bvec_iter bi_iter;
	int bi_remaining;
	unsigned short bi_flags;
#ifdef CONFIG_BLK_DEV_INTEGRITY
	struct bio_integrity_payload *bi_integrity;
#endif
};

enum blk_mpath_bio_map_result {
	/* dm: DM_MAPIO_REMAPPED: the bio now points at its path, submit it */
	BLK_MPATH_BIO_REMAPPED,
	/* dm: DM_MAPIO_SUBMITTED: the engine holds the bio (queueing, pg_init) */
	BLK_MPATH_BIO_QUEUED,
	/* dm: DM_MAPIO_REQUEUE: no path during a noflush suspend, push back */
	BLK_MPATH_BIO_PUSH_BACK,
	/* dm: DM_MAPIO_KILL: no path and no queueing, fail the bio */
	BLK_MPATH_BIO_KILL,
};

/*
 * Stock __multipath_map_bio(): chooses a path for a bio of a bio-based
 * owner (the selector gets its size), sets the path's bdev and
 * REQ_FAILFAST_TRANSPORT, accounts the selector's start_io.  Never
 * sleeps, never takes an engine-wide lock when a current path exists.
 * With QUEUED the engine owns the bio until it resubmits it to the path
 * (submit_bio_noacct(), from its work item) or ends it: with
 * BLK_STS_IOERR (no path, no queueing) or BLK_STS_DM_REQUEUE (no path
 * during a noflush suspend: the owner pushes it back, dm core requeues
 * it).  Either way the bio's ->bi_end_io (the owner's) runs, and the
 * owner passes the bio to blk_mpath_end_bio() as any other completion.
 */
enum blk_mpath_bio_map_result blk_mpath_map_bio(struct blk_mpath *m,
						struct bio *bio,
						struct blk_mpath_bio_ctx *ctx);

enum blk_mpath_bio_end_result {
	BLK_MPATH_BIO_END_DONE,		/* complete the bio with *status */
	/* dm: DM_ENDIO_INCOMPLETE: the engine took the bio back to resubmit */
	BLK_MPATH_BIO_END_QUEUED,
};

/*
 * Verdict on a completed bio mapped by blk_mpath_map_bio(); call from its
 * end_io (dm: the target's ->end_io).  There is no error detail for bios:
 * the verdict is blk_mpath_classify() of the bio's status alone.  A path
 * status fails the path and the engine resubmits the bio (QUEUED), unless
 * no path is left and there is no queueing (DONE with the error); a
 * target status (BLK_STS_MEDIUM, _TARGET, _NEXUS, _PROTECTION, _NOSPC,
 * _NOTSUPP) is returned, the path kept; BLK_STS_RESOURCE is resubmitted
 * after a delay, for at most BLK_MPATH_RESOURCE_RETRY_MS; BLK_STS_AGAIN
 * of a REQ_NOWAIT bio is returned (the submitter retries, may wait).
 * *status is left as the bio completed when DONE is returned.  A bio the
 * engine ended itself is DONE at once, without accounting.
 */
enum blk_mpath_bio_end_result blk_mpath_end_bio(struct blk_mpath *m,
						struct bio *bio,
						blk_status_t *status,
						struct blk_mpath_bio_ctx *ctx);

/* ---- queries --------------------------------------------------------------- */

/*
 * For ioctls (SG_IO, PR): picks a usable path.  0 and *bdev set, or
 * -ENOTCONN (no usable path right now, retry), or -EIO (no path and no
 * queueing).  Stock prepare_ioctl semantics.
 */
int blk_mpath_prepare_ioctl(struct blk_mpath *m, struct block_device **bdev);
/*
 * An ioctl that blk_mpath_prepare_ioctl() sent down @bdev never reached the
 * LU behind it (the owner knows, e.g. from the SCSI host byte): fail that
 * path, so that the owner may send the ioctl again on the path chosen next.
 * Never for a command that may have executed.  0, or -ENODEV if @bdev is
 * not an active path of @m.
 */
int blk_mpath_ioctl_failed(struct blk_mpath *m, struct block_device *bdev,
			   const char *why);
/*
 * Chooses the path the next request would use (stock choose_pgpath(),
 * including group switching and pg_init bookkeeping), without accounting
 * any I/O.  NULL when no path is usable.  Requests must still be mapped
 * with blk_mpath_map_rq(); this is for ioctl-style users and tests.
 */
struct blk_mpath_path *blk_mpath_choose_path(struct blk_mpath *m,
					     size_t nr_bytes);
/* dm ->busy: pg_init running or every path of the chosen group busy. */
bool blk_mpath_busy(struct blk_mpath *m);
/* Status helpers, called with blk_mpath_lock() held. */
char blk_mpath_pg_state(struct blk_mpath *m, struct blk_mpath_pg *pg);
unsigned int blk_mpath_status_pg_num(struct blk_mpath *m);
bool blk_mpath_queue_if_no_path(struct blk_mpath *m);

/* ---- error classification ---------------------------------------------------- */

enum blk_mpath_err_class {
	BLK_MPATH_ERR_NONE,		/* success */
	BLK_MPATH_ERR_PATH,		/* fail the path, retry elsewhere */
	BLK_MPATH_ERR_TARGET,		/* return to the caller, no retry */
	BLK_MPATH_ERR_RESERVATION,	/* reservation conflict: return */
	BLK_MPATH_ERR_RESOURCE,		/* out of resources: delay, retry */
	BLK_MPATH_ERR_LIMITS,		/* clone refused: exceeds path limits */
};

enum blk_mpath_err_class blk_mpath_classify(const struct blk_error_detail *d);
const char *blk_mpath_err_class_name(enum blk_mpath_err_class c);

#endif /* _LINUX_BLK_MPATH_H */
