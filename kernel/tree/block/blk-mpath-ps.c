// SPDX-License-Identifier: GPL-2.0
/*
 * blk-mpath path selectors: "round-robin", "queue-length", "service-time",
 * "historical-service-time" and "io-affinity".
 *
 * Ported from the stock device-mapper selectors (drivers/md/dm-ps-*.c):
 * same table arguments, same error strings, same status output.
 *
 * Copyright (C) 2003 Sistina Software.
 * Copyright (C) 2004-2005 Red Hat, Inc. All rights reserved.
 * Copyright (C) IBM Corp. 2004,2005 (queue-length, Stefan Bader)
 * Copyright (C) 2007-2009 NEC Corporation (service-time, Kiyoshi Ueda)
 * Copyright (C) Google (historical-service-time, Khazhismel Kumykov)
 * Copyright (C) 2020 Oracle Corporation (io-affinity, Mike Christie)
 */
#include <linux/blk-mpath.h>
#include <linux/cpumask.h>
#include <linux/ktime.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/overflow.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/topology.h>

#include "blk-mpath-ps.h"

/* Same as dm's DMEMIT(): needs local "sz", "result" and "maxlen". */
#define PSEMIT(x...)							\
	(sz += ((sz >= maxlen) ? 0 :					\
		scnprintf(result + sz, maxlen - sz, x)))

/* ---- registry ------------------------------------------------------------ */

static LIST_HEAD(blk_mpath_selectors);
static DEFINE_MUTEX(blk_mpath_selectors_lock);

/**
 * blk_mpath_selector_get - look a path selector type up by name
 * @name: stock dm-multipath selector name, e.g. "round-robin"
 *
 * Returns the type or NULL when @name is unknown.  Release it with
 * blk_mpath_selector_put().
 */
const struct blk_mpath_selector_type *blk_mpath_selector_get(const char *name)
{
	struct blk_mpath_selector_type *t, *found = NULL;

	if (!name)
		return NULL;

	mutex_lock(&blk_mpath_selectors_lock);
	list_for_each_entry(t, &blk_mpath_selectors, list) {
		if (!strcmp(t->name, name)) {
			found = t;
			break;
		}
	}
	mutex_unlock(&blk_mpath_selectors_lock);

	return found;
}
EXPORT_SYMBOL_GPL(blk_mpath_selector_get);

/**
 * blk_mpath_selector_put - release a type from blk_mpath_selector_get()
 * @type: the selector type (may be NULL)
 *
 * The selectors are built into the engine module, which the owner pins
 * through its symbol references, so there is nothing to drop here.
 */
void blk_mpath_selector_put(const struct blk_mpath_selector_type *type)
{
}
EXPORT_SYMBOL_GPL(blk_mpath_selector_put);

/* historical-service-time: frees the path infos on one of its lists */
static void ps_free_paths(struct list_head *paths, size_t offset)
{
	struct list_head *pos, *n;

	list_for_each_safe(pos, n, paths) {
		list_del(pos);
		kfree((void *)pos - offset);
	}
}

/*
 * ---- path sets: round-robin, queue-length and service-time ---------------
 *
 * Stock keeps a group's paths on a valid and a failed list under a spinlock
 * that every I/O of the group takes with interrupts off, and moves the
 * chosen path to the tail of its list on every I/O: one lock and a few
 * stores shared by every CPU that submits to the map.  These three
 * selectors instead keep their paths in an array that ->select_path() reads
 * without a lock, under the RCU read lock its callers hold
 * (blk_mpath_choose_path(), blk_mpath_prepare_ioctl()), skipping the paths
 * whose valid flag is clear, and the only state a selection writes is a
 * per-CPU cursor: the slot after this CPU's last choice, where its next
 * scan starts.  Round-robin takes the first valid path from the cursor,
 * queue-length and service-time the least loaded (the first of equals), so
 * paths take turns on each CPU, as stock's move to the tail makes them take
 * turns over all CPUs.  A reinstated path keeps its slot and has its turn
 * when a cursor reaches it (stock puts it at the head of round-robin's list
 * and at the tail of the others').
 *
 * Lifetime: ->add_path() publishes a copy of the array one slot longer with
 * rcu_assign_pointer() and frees the old one after a grace period (the
 * engine adds every path before it starts, so in practice before the
 * first selection); ->destroy() frees the array and the path infos once
 * the engine has waited for its readers (blk_mpath_destroy()).  The lock
 * serialises the writers of the array and of the valid flags (->add_path,
 * ->fail_path, ->reinstate_path); readers take READ_ONCE() snapshots.
 * A selection that races with a failure may still return the failing
 * path, as it may on stock right after the lock is dropped.
 */
struct ps_member {
	struct blk_mpath_path *path;
	bool valid;			/* not failed */
};

struct ps_members {
	struct rcu_head rcu;
	unsigned int nr;
	struct ps_member *m[];		/* in the order the paths were added */
};

struct ps_set {
	struct ps_members __rcu *members;
	unsigned int __percpu *cursor;	/* each CPU's next first slot */
	spinlock_t lock;		/* serialises the writers */
};

static struct ps_set *ps_set_alloc(void)
{
	struct ps_set *s = kzalloc(sizeof(*s), GFP_KERNEL);
	struct ps_members *ms = kzalloc(sizeof(*ms), GFP_KERNEL);

	if (!s || !ms)
		goto bad;
	s->cursor = alloc_percpu(unsigned int);
	if (!s->cursor)
		goto bad;
	spin_lock_init(&s->lock);
	RCU_INIT_POINTER(s->members, ms);
	return s;
bad:
	kfree(ms);
	kfree(s);
	return NULL;
}

/* After the engine's grace period: no reader is left. */
static void ps_set_free(struct ps_set *s)
{
	struct ps_members *ms = rcu_dereference_protected(s->members, true);
	unsigned int i;

	for (i = 0; i < ms->nr; i++)
		kfree(ms->m[i]);
	kfree(ms);
	free_percpu(s->cursor);
	kfree(s);
}

/*
 * Adds @pm (the head of a path info) as a valid path.  Process context.  The
 * owner adds a group's paths one at a time (table construction); another
 * add in between only makes this allocate again.
 */
static int ps_set_add(struct ps_set *s, struct ps_member *pm)
{
	struct ps_members *old, *ms = NULL;
	unsigned int nr = 0;
	unsigned long flags;

	pm->valid = true;
	spin_lock_irqsave(&s->lock, flags);
	for (;;) {
		old = rcu_dereference_protected(s->members,
						lockdep_is_held(&s->lock));
		if (ms && nr == old->nr)
			break;
		nr = old->nr;
		spin_unlock_irqrestore(&s->lock, flags);
		kfree(ms);
		ms = kmalloc(struct_size(ms, m, nr + 1), GFP_KERNEL);
		if (!ms)
			return -ENOMEM;
		spin_lock_irqsave(&s->lock, flags);
	}
	ms->nr = nr + 1;
	memcpy(ms->m, old->m, nr * sizeof(ms->m[0]));
	ms->m[nr] = pm;
	rcu_assign_pointer(s->members, ms);
	spin_unlock_irqrestore(&s->lock, flags);
	kfree_rcu(old, rcu);
	return 0;
}

static void ps_set_valid(struct ps_set *s, struct ps_member *pm, bool valid)
{
	unsigned long flags;

	spin_lock_irqsave(&s->lock, flags);
	WRITE_ONCE(pm->valid, valid);
	spin_unlock_irqrestore(&s->lock, flags);
}

/*
 * Where this CPU's scan starts.  A caller preempted between this and
 * ps_set_chosen() may move another CPU's cursor, which only changes where
 * that CPU's next scan starts.
 */
static unsigned int ps_set_first(struct ps_set *s, unsigned int nr)
{
	unsigned int slot = this_cpu_read(*s->cursor);

	return slot < nr ? slot : 0;
}

static void ps_set_chosen(struct ps_set *s, unsigned int slot)
{
	this_cpu_write(*s->cursor, slot + 1);
}

/*
 * The path of the valid member, from this CPU's cursor on, that no later one
 * is better() than (so the first of equals), stopping at one that is
 * enough().  Always inlined, so that each selector's own better() and
 * enough() are too.
 */
static __always_inline struct blk_mpath_path *
ps_set_select(struct ps_set *s, size_t nr_bytes,
	      bool (*better)(struct ps_member *a, struct ps_member *b,
			     size_t nr_bytes),
	      bool (*enough)(struct ps_member *a))
{
	struct ps_members *ms = rcu_dereference(s->members);
	struct ps_member *pm, *best = NULL;
	unsigned int i, slot, best_slot = 0;

	if (!ms->nr)
		return NULL;

	slot = ps_set_first(s, ms->nr);
	for (i = 0; i < ms->nr; i++, slot++) {
		if (slot >= ms->nr)
			slot = 0;
		pm = ms->m[slot];
		if (!READ_ONCE(pm->valid) ||
		    (best && !better(pm, best, nr_bytes)))
			continue;
		best = pm;
		best_slot = slot;
		if (enough(pm))
			break;
	}
	if (!best)
		return NULL;

	ps_set_chosen(s, best_slot);
	return best->path;
}

/* ---- round-robin --------------------------------------------------------- */

#define RR_MIN_IO	1

struct rr_path_info {
	struct ps_member m;		/* first: freed through the set */
	unsigned int repeat_count;
};

static_assert(offsetof(struct rr_path_info, m) == 0);

static int rr_create(struct blk_mpath_selector *ps, unsigned int argc,
		     char **argv, char **error)
{
	struct ps_set *s = ps_set_alloc();

	if (!s)
		return -ENOMEM;

	ps->context = s;
	return 0;
}

static void rr_destroy(struct blk_mpath_selector *ps)
{
	ps_set_free(ps->context);
	ps->context = NULL;
}

static int rr_status(struct blk_mpath_selector *ps, struct blk_mpath_path *path,
		     enum blk_mpath_status_type type, char *result,
		     unsigned int maxlen)
{
	struct rr_path_info *pi;
	int sz = 0;

	if (!path) {
		PSEMIT("0 ");
	} else if (type == BLK_MPATH_STATUS_TABLE) {
		pi = path->pscontext;
		PSEMIT("%u ", pi->repeat_count);
	}

	return sz;
}

static int rr_add_path(struct blk_mpath_selector *ps,
		       struct blk_mpath_path *path, unsigned int argc,
		       char **argv, char **error)
{
	struct rr_path_info *pi;
	unsigned int repeat_count = RR_MIN_IO;
	char dummy;

	if (argc > 1) {
		*error = "round-robin ps: incorrect number of arguments";
		return -EINVAL;
	}

	/* First path argument is number of I/Os before switching path */
	if (argc == 1 && sscanf(argv[0], "%u%c", &repeat_count, &dummy) != 1) {
		*error = "round-robin ps: invalid repeat count";
		return -EINVAL;
	}

	if (repeat_count > 1) {
		pr_warn_ratelimited("blk-mpath round-robin: repeat_count > 1 is deprecated, using 1 instead\n");
		repeat_count = 1;
	}

	pi = kmalloc(sizeof(*pi), GFP_KERNEL);
	if (!pi) {
		*error = "round-robin ps: Error allocating path context";
		return -ENOMEM;
	}

	pi->m.path = path;
	pi->repeat_count = repeat_count;
	path->pscontext = pi;
	if (ps_set_add(ps->context, &pi->m)) {
		path->pscontext = NULL;
		kfree(pi);
		*error = "round-robin ps: Error allocating path context";
		return -ENOMEM;
	}

	return 0;
}

static void rr_fail_path(struct blk_mpath_selector *ps,
			 struct blk_mpath_path *p)
{
	struct rr_path_info *pi = p->pscontext;

	ps_set_valid(ps->context, &pi->m, false);
}

static int rr_reinstate_path(struct blk_mpath_selector *ps,
			     struct blk_mpath_path *p)
{
	struct rr_path_info *pi = p->pscontext;

	ps_set_valid(ps->context, &pi->m, true);
	return 0;
}

static bool rr_better(struct ps_member *a, struct ps_member *b,
		      size_t nr_bytes)
{
	return false;
}

static bool rr_enough(struct ps_member *a)
{
	return true;
}

/* The next valid path from this CPU's cursor. */
static struct blk_mpath_path *rr_select_path(struct blk_mpath_selector *ps,
					     size_t nr_bytes)
{
	return ps_set_select(ps->context, nr_bytes, rr_better, rr_enough);
}

static struct blk_mpath_selector_type rr_ps = {
	.name		= "round-robin",
	.table_args	= 1,
	.info_args	= 0,
	.create		= rr_create,
	.destroy	= rr_destroy,
	.status		= rr_status,
	.add_path	= rr_add_path,
	.fail_path	= rr_fail_path,
	.reinstate_path	= rr_reinstate_path,
	.select_path	= rr_select_path,
};

/* ---- queue-length -------------------------------------------------------- */

#define QL_MIN_IO	1

struct ql_path_info {
	struct ps_member m;	/* first: freed through the set */
	unsigned int repeat_count;
	atomic_t qlen;		/* the number of in-flight I/Os */
};

static_assert(offsetof(struct ql_path_info, m) == 0);

/* queue-length and service-time share this. */
static int ql_create(struct blk_mpath_selector *ps, unsigned int argc,
		     char **argv, char **error)
{
	struct ps_set *s = ps_set_alloc();

	if (!s)
		return -ENOMEM;

	ps->context = s;
	return 0;
}

static void ql_destroy(struct blk_mpath_selector *ps)
{
	ps_set_free(ps->context);
	ps->context = NULL;
}

static int ql_status(struct blk_mpath_selector *ps, struct blk_mpath_path *path,
		     enum blk_mpath_status_type type, char *result,
		     unsigned int maxlen)
{
	unsigned int sz = 0;
	struct ql_path_info *pi;

	/* When called with NULL path, return selector status/args. */
	if (!path) {
		PSEMIT("0 ");
	} else {
		pi = path->pscontext;

		switch (type) {
		case BLK_MPATH_STATUS_INFO:
			PSEMIT("%d ", atomic_read(&pi->qlen));
			break;
		case BLK_MPATH_STATUS_TABLE:
			PSEMIT("%u ", pi->repeat_count);
			break;
		}
	}

	return sz;
}

static int ql_add_path(struct blk_mpath_selector *ps,
		       struct blk_mpath_path *path, unsigned int argc,
		       char **argv, char **error)
{
	struct ql_path_info *pi;
	unsigned int repeat_count = QL_MIN_IO;
	char dummy;

	/*
	 * Arguments: [<repeat_count>]
	 *	<repeat_count>: The number of I/Os before switching path.
	 *			If not given, default (QL_MIN_IO) is used.
	 */
	if (argc > 1) {
		*error = "queue-length ps: incorrect number of arguments";
		return -EINVAL;
	}

	if (argc == 1 && sscanf(argv[0], "%u%c", &repeat_count, &dummy) != 1) {
		*error = "queue-length ps: invalid repeat count";
		return -EINVAL;
	}

	if (repeat_count > 1) {
		pr_warn_ratelimited("blk-mpath queue-length: repeat_count > 1 is deprecated, using 1 instead\n");
		repeat_count = 1;
	}

	pi = kmalloc(sizeof(*pi), GFP_KERNEL);
	if (!pi) {
		*error = "queue-length ps: Error allocating path information";
		return -ENOMEM;
	}

	pi->m.path = path;
	pi->repeat_count = repeat_count;
	atomic_set(&pi->qlen, 0);
	path->pscontext = pi;
	if (ps_set_add(ps->context, &pi->m)) {
		path->pscontext = NULL;
		kfree(pi);
		*error = "queue-length ps: Error allocating path information";
		return -ENOMEM;
	}

	return 0;
}

static void ql_fail_path(struct blk_mpath_selector *ps,
			 struct blk_mpath_path *path)
{
	struct ql_path_info *pi = path->pscontext;

	ps_set_valid(ps->context, &pi->m, false);
}

static int ql_reinstate_path(struct blk_mpath_selector *ps,
			     struct blk_mpath_path *path)
{
	struct ql_path_info *pi = path->pscontext;

	ps_set_valid(ps->context, &pi->m, true);
	return 0;
}

static int ql_qlen(struct ps_member *pm)
{
	return atomic_read(&container_of(pm, struct ql_path_info, m)->qlen);
}

static bool ql_better(struct ps_member *a, struct ps_member *b,
		      size_t nr_bytes)
{
	return ql_qlen(a) < ql_qlen(b);
}

static bool ql_enough(struct ps_member *a)
{
	return !ql_qlen(a);
}

/* The valid path with the fewest I/Os in flight; equals alternate. */
static struct blk_mpath_path *ql_select_path(struct blk_mpath_selector *ps,
					     size_t nr_bytes)
{
	return ps_set_select(ps->context, nr_bytes, ql_better, ql_enough);
}

static int ql_start_io(struct blk_mpath_selector *ps,
		       struct blk_mpath_path *path, size_t nr_bytes)
{
	struct ql_path_info *pi = path->pscontext;

	atomic_inc(&pi->qlen);
	return 0;
}

static int ql_end_io(struct blk_mpath_selector *ps, struct blk_mpath_path *path,
		     size_t nr_bytes, u64 start_time)
{
	struct ql_path_info *pi = path->pscontext;

	atomic_dec(&pi->qlen);
	return 0;
}

static struct blk_mpath_selector_type ql_ps = {
	.name		= "queue-length",
	.table_args	= 1,
	.info_args	= 1,
	.create		= ql_create,
	.destroy	= ql_destroy,
	.status		= ql_status,
	.add_path	= ql_add_path,
	.fail_path	= ql_fail_path,
	.reinstate_path	= ql_reinstate_path,
	.select_path	= ql_select_path,
	.start_io	= ql_start_io,
	.end_io		= ql_end_io,
};

/* ---- service-time -------------------------------------------------------- */

#define ST_MIN_IO	1
#define ST_MAX_RELATIVE_THROUGHPUT	100
#define ST_MAX_RELATIVE_THROUGHPUT_SHIFT	7
#define ST_MAX_INFLIGHT_SIZE	((size_t)-1 >> ST_MAX_RELATIVE_THROUGHPUT_SHIFT)

struct st_path_info {
	struct ps_member m;		/* first: freed through the set */
	unsigned int repeat_count;
	unsigned int relative_throughput;
	atomic_t in_flight_size;	/* Total size of in-flight I/Os */
};

static_assert(offsetof(struct st_path_info, m) == 0);

static int st_status(struct blk_mpath_selector *ps, struct blk_mpath_path *path,
		     enum blk_mpath_status_type type, char *result,
		     unsigned int maxlen)
{
	unsigned int sz = 0;
	struct st_path_info *pi;

	if (!path) {
		PSEMIT("0 ");
	} else {
		pi = path->pscontext;

		switch (type) {
		case BLK_MPATH_STATUS_INFO:
			PSEMIT("%d %u ", atomic_read(&pi->in_flight_size),
			       pi->relative_throughput);
			break;
		case BLK_MPATH_STATUS_TABLE:
			PSEMIT("%u %u ", pi->repeat_count,
			       pi->relative_throughput);
			break;
		}
	}

	return sz;
}

static int st_add_path(struct blk_mpath_selector *ps,
		       struct blk_mpath_path *path, unsigned int argc,
		       char **argv, char **error)
{
	struct st_path_info *pi;
	unsigned int repeat_count = ST_MIN_IO;
	unsigned int relative_throughput = 1;
	char dummy;

	/*
	 * Arguments: [<repeat_count> [<relative_throughput>]]
	 *	<repeat_count>: The number of I/Os before switching path.
	 *			If not given, default (ST_MIN_IO) is used.
	 *	<relative_throughput>: The relative throughput value of
	 *			the path among all paths in the path-group.
	 *			The valid range: 0-<ST_MAX_RELATIVE_THROUGHPUT>
	 *			If not given, minimum value '1' is used.
	 *			If '0' is given, the path isn't selected while
	 *			other paths having a positive value are	available.
	 */
	if (argc > 2) {
		*error = "service-time ps: incorrect number of arguments";
		return -EINVAL;
	}

	if (argc && sscanf(argv[0], "%u%c", &repeat_count, &dummy) != 1) {
		*error = "service-time ps: invalid repeat count";
		return -EINVAL;
	}

	if (repeat_count > 1) {
		pr_warn_ratelimited("blk-mpath service-time: repeat_count > 1 is deprecated, using 1 instead\n");
		repeat_count = 1;
	}

	if (argc == 2 &&
	    (sscanf(argv[1], "%u%c", &relative_throughput, &dummy) != 1 ||
	     relative_throughput > ST_MAX_RELATIVE_THROUGHPUT)) {
		*error = "service-time ps: invalid relative_throughput value";
		return -EINVAL;
	}

	pi = kmalloc(sizeof(*pi), GFP_KERNEL);
	if (!pi) {
		*error = "service-time ps: Error allocating path context";
		return -ENOMEM;
	}

	pi->m.path = path;
	pi->repeat_count = repeat_count;
	pi->relative_throughput = relative_throughput;
	atomic_set(&pi->in_flight_size, 0);
	path->pscontext = pi;
	if (ps_set_add(ps->context, &pi->m)) {
		path->pscontext = NULL;
		kfree(pi);
		*error = "service-time ps: Error allocating path context";
		return -ENOMEM;
	}

	return 0;
}

static void st_fail_path(struct blk_mpath_selector *ps,
			 struct blk_mpath_path *path)
{
	struct st_path_info *pi = path->pscontext;

	ps_set_valid(ps->context, &pi->m, false);
}

static int st_reinstate_path(struct blk_mpath_selector *ps,
			     struct blk_mpath_path *path)
{
	struct st_path_info *pi = path->pscontext;

	ps_set_valid(ps->context, &pi->m, true);
	return 0;
}

/*
 * Compare the estimated service time of 2 paths, pi1 and pi2, for the
 * incoming I/O: < 0 pi1 is better, 0 no difference, > 0 pi2 is better.
 * The service time is estimated by
 * ('pi->in-flight-size' + 'incoming') / 'pi->relative_throughput',
 * computed with multiplications instead of divisions (see stock
 * dm-ps-service-time.c).
 */
static int st_compare_load(struct st_path_info *pi1, struct st_path_info *pi2,
			   size_t incoming)
{
	size_t sz1, sz2, st1, st2;

	sz1 = atomic_read(&pi1->in_flight_size);
	sz2 = atomic_read(&pi2->in_flight_size);

	/* Case 1: Both have same throughput value. Choose less loaded path. */
	if (pi1->relative_throughput == pi2->relative_throughput)
		return sz1 - sz2;

	/*
	 * Case 2a: Both have same load. Choose higher throughput path.
	 * Case 2b: One path has no throughput value. Choose the other one.
	 */
	if (sz1 == sz2 ||
	    !pi1->relative_throughput || !pi2->relative_throughput)
		return pi2->relative_throughput - pi1->relative_throughput;

	/* Case 3: Calculate service time. Choose faster path. */
	sz1 += incoming;
	sz2 += incoming;
	if (unlikely(sz1 >= ST_MAX_INFLIGHT_SIZE ||
		     sz2 >= ST_MAX_INFLIGHT_SIZE)) {
		/* Shift down both to avoid overflow and mis-selection. */
		sz1 >>= ST_MAX_RELATIVE_THROUGHPUT_SHIFT;
		sz2 >>= ST_MAX_RELATIVE_THROUGHPUT_SHIFT;
	}
	st1 = sz1 * pi2->relative_throughput;
	st2 = sz2 * pi1->relative_throughput;
	if (st1 != st2)
		return st1 - st2;

	/* Case 4: Service time is equal. Choose higher throughput path. */
	return pi2->relative_throughput - pi1->relative_throughput;
}

static bool st_better(struct ps_member *a, struct ps_member *b,
		      size_t nr_bytes)
{
	return st_compare_load(container_of(a, struct st_path_info, m),
			       container_of(b, struct st_path_info, m),
			       nr_bytes) < 0;
}

static bool st_enough(struct ps_member *a)
{
	return false;
}

/* The valid path with the least estimated service time; equals alternate. */
static struct blk_mpath_path *st_select_path(struct blk_mpath_selector *ps,
					     size_t nr_bytes)
{
	return ps_set_select(ps->context, nr_bytes, st_better, st_enough);
}

static int st_start_io(struct blk_mpath_selector *ps,
		       struct blk_mpath_path *path, size_t nr_bytes)
{
	struct st_path_info *pi = path->pscontext;

	atomic_add(nr_bytes, &pi->in_flight_size);
	return 0;
}

static int st_end_io(struct blk_mpath_selector *ps, struct blk_mpath_path *path,
		     size_t nr_bytes, u64 start_time)
{
	struct st_path_info *pi = path->pscontext;

	atomic_sub(nr_bytes, &pi->in_flight_size);
	return 0;
}

static struct blk_mpath_selector_type st_ps = {
	.name		= "service-time",
	.table_args	= 2,
	.info_args	= 2,
	.create		= ql_create,	/* same empty path set */
	.destroy	= ql_destroy,
	.status		= st_status,
	.add_path	= st_add_path,
	.fail_path	= st_fail_path,
	.reinstate_path	= st_reinstate_path,
	.select_path	= st_select_path,
	.start_io	= st_start_io,
	.end_io		= st_end_io,
};

/* ---- historical-service-time --------------------------------------------- */

/*
 * Keeps a time-weighted exponential moving average of the historical
 * service time and estimates future service time from it and the number
 * of outstanding requests.  Paths that have not finished within
 * hst * num_paths are stale: an unused stale path gets a probe request, a
 * used one is limited to equal usage.  See stock
 * dm-ps-historical-service-time.c.
 */
#define HST_MIN_IO 1
#define HST_FIXED_SHIFT 10  /* 10 bits of decimal precision */
#define HST_FIXED_MAX (ULLONG_MAX >> HST_FIXED_SHIFT)
#define HST_FIXED_1 BIT(HST_FIXED_SHIFT)
#define HST_FIXED_95 972
#define HST_MAX_INFLIGHT HST_FIXED_1
#define HST_BUCKET_SHIFT 24 /* Buckets are ~ 16ms */
#define HST_WEIGHT_COUNT 64ULL

struct hst_selector {
	struct list_head valid_paths;
	struct list_head failed_paths;
	int valid_count;
	spinlock_t lock;		/* protects the lists and valid_count */

	unsigned int weights[HST_WEIGHT_COUNT];
	unsigned int threshold_multiplier;
};

struct hst_path_info {
	struct list_head list;
	struct blk_mpath_path *path;
	unsigned int repeat_count;

	spinlock_t lock;		/* protects the fields below */

	u64 historical_service_time; /* Fixed point */

	u64 stale_after;
	u64 last_finish;

	u64 outstanding;
};

/* x^n in O(log n), x with frac_bits fractional bits (kernel/sched/loadavg.c) */
static u64 hst_fixed_power(u64 x, unsigned int frac_bits, unsigned int n)
{
	unsigned long result = 1UL << frac_bits;

	if (n) {
		for (;;) {
			if (n & 1) {
				result *= x;
				result += 1UL << (frac_bits - 1);
				result >>= frac_bits;
			}
			n >>= 1;
			if (!n)
				break;
			x *= x;
			x += 1UL << (frac_bits - 1);
			x >>= frac_bits;
		}
	}

	return result;
}

/* Next value of an exponential moving average: a_1 = a_0 * e + a * (1 - e) */
static u64 hst_fixed_ema(u64 last, u64 next, u64 weight)
{
	last *= weight;
	last += next * (HST_FIXED_1 - weight);
	last += 1ULL << (HST_FIXED_SHIFT - 1);
	return last >> HST_FIXED_SHIFT;
}

/* Get the weight for a given time span. */
static u64 hst_weight(struct blk_mpath_selector *ps, u64 delta)
{
	struct hst_selector *s = ps->context;
	int bucket = clamp(delta >> HST_BUCKET_SHIFT, 0ULL,
			   HST_WEIGHT_COUNT - 1);

	return s->weights[bucket];
}

/* weights[len-1] = 0, weights[n] = base ^ (n + 1) */
static void hst_set_weights(struct blk_mpath_selector *ps, unsigned int base)
{
	struct hst_selector *s = ps->context;
	int i;

	if (base >= HST_FIXED_1)
		return;

	for (i = 0; i < HST_WEIGHT_COUNT - 1; i++)
		s->weights[i] = hst_fixed_power(base, HST_FIXED_SHIFT, i + 1);
	s->weights[HST_WEIGHT_COUNT - 1] = 0;
}

static int hst_create(struct blk_mpath_selector *ps, unsigned int argc,
		      char **argv, char **error)
{
	struct hst_selector *s;
	unsigned int base_weight = HST_FIXED_95;
	unsigned int threshold_multiplier = 0;
	char dummy;

	/*
	 * Arguments: [<base_weight> [<threshold_multiplier>]]
	 *   <base_weight>: Base weight for ema [0, 1024) 10-bit fixed point. A
	 *                  value of 0 will completely ignore any history.
	 *                  If not given, default (HST_FIXED_95) is used.
	 *   <threshold_multiplier>: Minimum threshold multiplier for paths to
	 *                  be considered different. That is, a path is
	 *                  considered different iff (p1 > N * p2) where p1
	 *                  is the path with higher service time. A threshold
	 *                  of 1 or 0 has no effect. Defaults to 0.
	 */
	if (argc > 2)
		return -EINVAL;

	if (argc && (sscanf(argv[0], "%u%c", &base_weight, &dummy) != 1 ||
		     base_weight >= HST_FIXED_1))
		return -EINVAL;

	if (argc > 1 && sscanf(argv[1], "%u%c", &threshold_multiplier,
			       &dummy) != 1)
		return -EINVAL;

	s = kmalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;

	INIT_LIST_HEAD(&s->valid_paths);
	INIT_LIST_HEAD(&s->failed_paths);
	spin_lock_init(&s->lock);
	s->valid_count = 0;
	ps->context = s;

	hst_set_weights(ps, base_weight);
	s->threshold_multiplier = threshold_multiplier;
	return 0;
}

static void hst_destroy(struct blk_mpath_selector *ps)
{
	struct hst_selector *s = ps->context;

	ps_free_paths(&s->valid_paths, offsetof(struct hst_path_info, list));
	ps_free_paths(&s->failed_paths, offsetof(struct hst_path_info, list));
	kfree(s);
	ps->context = NULL;
}

static int hst_status(struct blk_mpath_selector *ps,
		      struct blk_mpath_path *path,
		      enum blk_mpath_status_type type, char *result,
		      unsigned int maxlen)
{
	unsigned int sz = 0;
	struct hst_path_info *pi;

	if (!path) {
		struct hst_selector *s = ps->context;

		PSEMIT("2 %u %u ", s->weights[0], s->threshold_multiplier);
	} else {
		pi = path->pscontext;

		switch (type) {
		case BLK_MPATH_STATUS_INFO:
			PSEMIT("%llu %llu %llu ", pi->historical_service_time,
			       pi->outstanding, pi->stale_after);
			break;
		case BLK_MPATH_STATUS_TABLE:
			PSEMIT("0 ");
			break;
		}
	}

	return sz;
}

static int hst_add_path(struct blk_mpath_selector *ps,
			struct blk_mpath_path *path, unsigned int argc,
			char **argv, char **error)
{
	struct hst_selector *s = ps->context;
	struct hst_path_info *pi;
	unsigned int repeat_count = HST_MIN_IO;
	unsigned long flags;
	char dummy;

	/*
	 * Arguments: [<repeat_count>]
	 *   <repeat_count>: The number of I/Os before switching path.
	 *                   If not given, default (HST_MIN_IO) is used.
	 */
	if (argc > 1) {
		*error = "historical-service-time ps: incorrect number of arguments";
		return -EINVAL;
	}

	if (argc && sscanf(argv[0], "%u%c", &repeat_count, &dummy) != 1) {
		*error = "historical-service-time ps: invalid repeat count";
		return -EINVAL;
	}

	pi = kmalloc(sizeof(*pi), GFP_KERNEL);
	if (!pi) {
		*error = "historical-service-time ps: Error allocating path context";
		return -ENOMEM;
	}

	pi->path = path;
	pi->repeat_count = repeat_count;
	pi->historical_service_time = HST_FIXED_1;
	spin_lock_init(&pi->lock);
	pi->outstanding = 0;
	pi->stale_after = 0;
	pi->last_finish = 0;
	path->pscontext = pi;

	spin_lock_irqsave(&s->lock, flags);
	list_add_tail(&pi->list, &s->valid_paths);
	s->valid_count++;
	spin_unlock_irqrestore(&s->lock, flags);

	return 0;
}

static void hst_fail_path(struct blk_mpath_selector *ps,
			  struct blk_mpath_path *path)
{
	struct hst_selector *s = ps->context;
	struct hst_path_info *pi = path->pscontext;
	unsigned long flags;

	spin_lock_irqsave(&s->lock, flags);
	list_move(&pi->list, &s->failed_paths);
	s->valid_count--;
	spin_unlock_irqrestore(&s->lock, flags);
}

static int hst_reinstate_path(struct blk_mpath_selector *ps,
			      struct blk_mpath_path *path)
{
	struct hst_selector *s = ps->context;
	struct hst_path_info *pi = path->pscontext;
	unsigned long flags;

	spin_lock_irqsave(&s->lock, flags);
	list_move_tail(&pi->list, &s->valid_paths);
	s->valid_count++;
	spin_unlock_irqrestore(&s->lock, flags);

	return 0;
}

static void hst_fill_compare(struct hst_path_info *pi, u64 *hst,
			     u64 *out, u64 *stale)
{
	unsigned long flags;

	spin_lock_irqsave(&pi->lock, flags);
	*hst = pi->historical_service_time;
	*out = pi->outstanding;
	*stale = pi->stale_after;
	spin_unlock_irqrestore(&pi->lock, flags);
}

/*
 * Compare the estimated service time of 2 paths, pi1 and pi2, for the
 * incoming I/O: < 0 pi1 is better, 0 no difference, > 0 pi2 is better.
 */
static long long hst_compare(struct hst_path_info *pi1,
			     struct hst_path_info *pi2, u64 time_now,
			     struct blk_mpath_selector *ps)
{
	struct hst_selector *s = ps->context;
	u64 hst1, hst2;
	long long out1, out2, stale1, stale2;
	int pi2_better, over_threshold;

	hst_fill_compare(pi1, &hst1, &out1, &stale1);
	hst_fill_compare(pi2, &hst2, &out2, &stale2);

	/*
	 * If the estimated latencies of the two paths are too similar,
	 * just compare outstanding requests: unloaded paths are preferred.
	 */
	if (hst1 > hst2)
		over_threshold = hst1 > (s->threshold_multiplier * hst2);
	else
		over_threshold = hst2 > (s->threshold_multiplier * hst1);

	if (!over_threshold)
		return out1 - out2;

	/*
	 * If an unloaded path is stale, choose it. If both paths are unloaded,
	 * choose path that is the most stale.
	 * (If one path is loaded, choose the other)
	 */
	if ((!out1 && stale1 < time_now) || (!out2 && stale2 < time_now) ||
	    (!out1 && !out2))
		return (!out2 * stale1) - (!out1 * stale2);

	/* Compare estimated service time. */
	if (out1 == out2) {
		pi2_better = hst1 > hst2;
	} else {
		/* Potential overflow with out >= 1024 */
		if (unlikely(out1 >= HST_MAX_INFLIGHT ||
			     out2 >= HST_MAX_INFLIGHT)) {
			hst1 >>= HST_FIXED_SHIFT;
			hst2 >>= HST_FIXED_SHIFT;
		}
		pi2_better = (1 + out1) * hst1 > (1 + out2) * hst2;
	}

	/* In the case that the 'winner' is stale, limit to equal usage. */
	if (pi2_better) {
		if (stale2 < time_now)
			return out1 - out2;
		return 1;
	}
	if (stale1 < time_now)
		return out1 - out2;
	return -1;
}

static struct blk_mpath_path *hst_select_path(struct blk_mpath_selector *ps,
					      size_t nr_bytes)
{
	struct hst_selector *s = ps->context;
	struct hst_path_info *pi, *best = NULL;
	u64 time_now = ktime_get_ns();
	struct blk_mpath_path *ret = NULL;
	unsigned long flags;

	spin_lock_irqsave(&s->lock, flags);
	if (list_empty(&s->valid_paths))
		goto out;

	list_for_each_entry(pi, &s->valid_paths, list) {
		if (!best || hst_compare(pi, best, time_now, ps) < 0)
			best = pi;
	}

	if (!best)
		goto out;

	/* Move last used path to end (least preferred in case of ties) */
	list_move_tail(&best->list, &s->valid_paths);

	ret = best->path;
out:
	spin_unlock_irqrestore(&s->lock, flags);
	return ret;
}

static int hst_start_io(struct blk_mpath_selector *ps,
			struct blk_mpath_path *path, size_t nr_bytes)
{
	struct hst_path_info *pi = path->pscontext;
	unsigned long flags;

	spin_lock_irqsave(&pi->lock, flags);
	pi->outstanding++;
	spin_unlock_irqrestore(&pi->lock, flags);

	return 0;
}

static u64 hst_path_service_time(struct hst_path_info *pi, u64 start_time)
{
	u64 now = ktime_get_ns();

	/*
	 * If a previous request has finished after this one was sent to
	 * the hardware, pretend the submission happened serially.
	 */
	if (time_after64(pi->last_finish, start_time))
		start_time = pi->last_finish;

	pi->last_finish = now;
	if (time_before64(now, start_time))
		return 0;

	return now - start_time;
}

static int hst_end_io(struct blk_mpath_selector *ps,
		      struct blk_mpath_path *path, size_t nr_bytes,
		      u64 start_time)
{
	struct hst_path_info *pi = path->pscontext;
	struct hst_selector *s = ps->context;
	unsigned long flags;
	u64 st;

	spin_lock_irqsave(&pi->lock, flags);

	st = hst_path_service_time(pi, start_time);
	pi->outstanding--;
	pi->historical_service_time =
		hst_fixed_ema(pi->historical_service_time,
			      min(st * HST_FIXED_1, HST_FIXED_MAX),
			      hst_weight(ps, st));

	/*
	 * On request end, mark path as fresh. If a path hasn't finished any
	 * requests within the fresh period, the estimated service time is
	 * considered too optimistic and we limit the maximum requests on
	 * that path.
	 */
	pi->stale_after = pi->last_finish +
		(s->valid_count * (pi->historical_service_time >> HST_FIXED_SHIFT));

	spin_unlock_irqrestore(&pi->lock, flags);

	return 0;
}

static struct blk_mpath_selector_type hst_ps = {
	.name		= "historical-service-time",
	.table_args	= 1,
	.info_args	= 3,
	.create		= hst_create,
	.destroy	= hst_destroy,
	.status		= hst_status,
	.add_path	= hst_add_path,
	.fail_path	= hst_fail_path,
	.reinstate_path	= hst_reinstate_path,
	.select_path	= hst_select_path,
	.start_io	= hst_start_io,
	.end_io		= hst_end_io,
};

/* ---- io-affinity --------------------------------------------------------- */

struct ioa_path_info {
	struct blk_mpath_path *path;
	cpumask_var_t cpumask;
	refcount_t refcount;
	bool failed;
};

struct ioa_selector {
	struct ioa_path_info **path_map;
	cpumask_var_t path_mask;
	atomic_t map_misses;
};

static void ioa_free_path(struct ioa_selector *s, unsigned int cpu)
{
	struct ioa_path_info *pi = s->path_map[cpu];

	if (!pi)
		return;

	if (refcount_dec_and_test(&pi->refcount)) {
		cpumask_clear_cpu(cpu, s->path_mask);
		free_cpumask_var(pi->cpumask);
		kfree(pi);

		s->path_map[cpu] = NULL;
	}
}

static int ioa_add_path(struct blk_mpath_selector *ps,
			struct blk_mpath_path *path, unsigned int argc,
			char **argv, char **error)
{
	struct ioa_selector *s = ps->context;
	struct ioa_path_info *pi;
	unsigned int cpu;
	int ret;

	if (argc != 1) {
		*error = "io-affinity ps: invalid number of arguments";
		return -EINVAL;
	}

	pi = kzalloc(sizeof(*pi), GFP_KERNEL);
	if (!pi) {
		*error = "io-affinity ps: Error allocating path context";
		return -ENOMEM;
	}

	pi->path = path;
	path->pscontext = pi;
	refcount_set(&pi->refcount, 1);

	if (!zalloc_cpumask_var(&pi->cpumask, GFP_KERNEL)) {
		*error = "io-affinity ps: Error allocating cpumask context";
		ret = -ENOMEM;
		goto free_pi;
	}

	ret = cpumask_parse(argv[0], pi->cpumask);
	if (ret) {
		*error = "io-affinity ps: invalid cpumask";
		ret = -EINVAL;
		goto free_mask;
	}

	for_each_cpu(cpu, pi->cpumask) {
		if (cpu >= nr_cpu_ids) {
			pr_warn_ratelimited("blk-mpath io-affinity: Ignoring mapping for CPU %u. Max CPU is %u\n",
					    cpu, nr_cpu_ids);
			break;
		}

		if (s->path_map[cpu]) {
			pr_warn("blk-mpath io-affinity: CPU mapping for %u exists. Ignoring.\n",
				cpu);
			continue;
		}

		cpumask_set_cpu(cpu, s->path_mask);
		s->path_map[cpu] = pi;
		refcount_inc(&pi->refcount);
	}

	if (refcount_dec_and_test(&pi->refcount)) {
		*error = "io-affinity ps: No new/valid CPU mapping found";
		ret = -EINVAL;
		goto free_mask;
	}

	return 0;

free_mask:
	free_cpumask_var(pi->cpumask);
free_pi:
	path->pscontext = NULL;
	kfree(pi);
	return ret;
}

static int ioa_create(struct blk_mpath_selector *ps, unsigned int argc,
		      char **argv, char **error)
{
	struct ioa_selector *s;

	s = kmalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;

	s->path_map = kcalloc(nr_cpu_ids, sizeof(struct ioa_path_info *),
			      GFP_KERNEL);
	if (!s->path_map)
		goto free_selector;

	if (!zalloc_cpumask_var(&s->path_mask, GFP_KERNEL))
		goto free_map;

	atomic_set(&s->map_misses, 0);
	ps->context = s;
	return 0;

free_map:
	kfree(s->path_map);
free_selector:
	kfree(s);
	return -ENOMEM;
}

static void ioa_destroy(struct blk_mpath_selector *ps)
{
	struct ioa_selector *s = ps->context;
	unsigned int cpu;

	for_each_cpu(cpu, s->path_mask)
		ioa_free_path(s, cpu);

	free_cpumask_var(s->path_mask);
	kfree(s->path_map);
	kfree(s);

	ps->context = NULL;
}

static int ioa_status(struct blk_mpath_selector *ps,
		      struct blk_mpath_path *path,
		      enum blk_mpath_status_type type, char *result,
		      unsigned int maxlen)
{
	struct ioa_selector *s = ps->context;
	struct ioa_path_info *pi;
	int sz = 0;

	if (!path) {
		PSEMIT("0 ");
		return sz;
	}

	switch (type) {
	case BLK_MPATH_STATUS_INFO:
		PSEMIT("%d ", atomic_read(&s->map_misses));
		break;
	case BLK_MPATH_STATUS_TABLE:
		pi = path->pscontext;
		PSEMIT("%*pb ", cpumask_pr_args(pi->cpumask));
		break;
	}

	return sz;
}

static void ioa_fail_path(struct blk_mpath_selector *ps,
			  struct blk_mpath_path *p)
{
	struct ioa_path_info *pi = p->pscontext;

	pi->failed = true;
}

static int ioa_reinstate_path(struct blk_mpath_selector *ps,
			      struct blk_mpath_path *p)
{
	struct ioa_path_info *pi = p->pscontext;

	pi->failed = false;
	return 0;
}

static struct blk_mpath_path *ioa_select_path(struct blk_mpath_selector *ps,
					      size_t nr_bytes)
{
	struct ioa_selector *s = ps->context;
	const struct cpumask *cpumask;
	struct ioa_path_info *pi;
	unsigned int cpu, node;
	int i;

	cpu = get_cpu();

	pi = s->path_map[cpu];
	if (pi && !pi->failed)
		goto done;

	/*
	 * Perf is not optimal, but we at least try the local node then just
	 * try not to fail.
	 */
	if (!pi)
		atomic_inc(&s->map_misses);

	node = cpu_to_node(cpu);
	cpumask = cpumask_of_node(node);
	for_each_cpu(i, cpumask) {
		pi = s->path_map[i];
		if (pi && !pi->failed)
			goto done;
	}

	for_each_cpu(i, s->path_mask) {
		pi = s->path_map[i];
		if (pi && !pi->failed)
			goto done;
	}
	pi = NULL;

done:
	put_cpu();
	return pi ? pi->path : NULL;
}

static struct blk_mpath_selector_type ioa_ps = {
	.name		= "io-affinity",
	.table_args	= 1,
	.info_args	= 1,
	.create		= ioa_create,
	.destroy	= ioa_destroy,
	.status		= ioa_status,
	.add_path	= ioa_add_path,
	.fail_path	= ioa_fail_path,
	.reinstate_path	= ioa_reinstate_path,
	.select_path	= ioa_select_path,
};

/* ---- module glue ----------------------------------------------------------- */

static struct blk_mpath_selector_type *blk_mpath_builtin_selectors[] = {
	&rr_ps, &ql_ps, &st_ps, &hst_ps, &ioa_ps,
};

int blk_mpath_ps_init(void)
{
	int i;

	mutex_lock(&blk_mpath_selectors_lock);
	for (i = 0; i < ARRAY_SIZE(blk_mpath_builtin_selectors); i++)
		list_add_tail(&blk_mpath_builtin_selectors[i]->list,
			      &blk_mpath_selectors);
	mutex_unlock(&blk_mpath_selectors_lock);
	return 0;
}

void blk_mpath_ps_exit(void)
{
	int i;

	mutex_lock(&blk_mpath_selectors_lock);
	for (i = 0; i < ARRAY_SIZE(blk_mpath_builtin_selectors); i++)
		list_del(&blk_mpath_builtin_selectors[i]->list);
	mutex_unlock(&blk_mpath_selectors_lock);
}
