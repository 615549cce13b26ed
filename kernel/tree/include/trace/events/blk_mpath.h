/* SPDX-License-Identifier: GPL-2.0 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM blk_mpath

#if !defined(_TRACE_BLK_MPATH_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_BLK_MPATH_H

#include <linux/blk-mpath.h>
#include <linux/blk-mq.h>
#include <linux/tracepoint.h>

TRACE_EVENT(blk_mpath_map,

	TP_PROTO(struct blk_mpath *m, struct request *rq,
		 struct blk_mpath_path *path, int result),

	TP_ARGS(m, rq, path, result),

	TP_STRUCT__entry(
		__string(mpath,		m->name)
		__array(char,		path, 16)
		__field(sector_t,	sector)
		__field(unsigned int,	nr_bytes)
		__field(unsigned int,	opf)
		__field(int,		result)
	),

	TP_fast_assign(
		__assign_str(mpath, m->name);
		strscpy(__entry->path, path ? path->name : "-", 16);
		__entry->sector		= blk_rq_pos(rq);
		__entry->nr_bytes	= blk_rq_bytes(rq);
		__entry->opf		= (__force unsigned int)rq->cmd_flags;
		__entry->result		= result;
	),

	TP_printk("%s path=%s sector=%llu bytes=%u opf=0x%x result=%s",
		  __get_str(mpath), __entry->path,
		  (unsigned long long)__entry->sector, __entry->nr_bytes,
		  __entry->opf,
		  __print_symbolic(__entry->result,
				   { BLK_MPATH_MAP_REMAPPED, "remapped" },
				   { BLK_MPATH_MAP_REQUEUE, "requeue" },
				   { BLK_MPATH_MAP_DELAY_REQUEUE, "delay_requeue" },
				   { BLK_MPATH_MAP_KILL, "kill" }))
);

/* queue_mode bio: the bio's fields are read by the caller before the map */
TRACE_EVENT(blk_mpath_map_bio,

	TP_PROTO(struct blk_mpath *m, struct blk_mpath_path *path,
		 sector_t sector, unsigned int nr_bytes, unsigned int opf,
		 int result),

	TP_ARGS(m, path, sector, nr_bytes, opf, result),

	TP_STRUCT__entry(
		__string(mpath,		m->name)
		__array(char,		path, 16)
		__field(sector_t,	sector)
		__field(unsigned int,	nr_bytes)
		__field(unsigned int,	opf)
		__field(int,		result)
	),

	TP_fast_assign(
		__assign_str(mpath, m->name);
		strscpy(__entry->path, path ? path->name : "-", 16);
		__entry->sector		= sector;
		__entry->nr_bytes	= nr_bytes;
		__entry->opf		= opf;
		__entry->result		= result;
	),

	TP_printk("%s path=%s sector=%llu bytes=%u opf=0x%x result=%s",
		  __get_str(mpath), __entry->path,
		  (unsigned long long)__entry->sector, __entry->nr_bytes,
		  __entry->opf,
		  __print_symbolic(__entry->result,
				   { BLK_MPATH_BIO_REMAPPED, "remapped" },
				   { BLK_MPATH_BIO_QUEUED, "queued" },
				   { BLK_MPATH_BIO_PUSH_BACK, "push_back" },
				   { BLK_MPATH_BIO_KILL, "kill" }))
);

TRACE_EVENT(blk_mpath_complete,

	TP_PROTO(struct blk_mpath *m, struct blk_mpath_path *path,
		 const struct blk_error_detail *d, int err_class, int result,
		 u64 latency_ns),

	TP_ARGS(m, path, d, err_class, result, latency_ns),

	TP_STRUCT__entry(
		__string(mpath,		m->name)
		__array(char,		path, 16)
		__field(int,		status)
		__field(u8,		source)
		__field(u8,		flags)
		__field(u8,		host_byte)
		__field(u8,		status_byte)
		__field(u8,		sense_key)
		__field(u8,		asc)
		__field(u8,		ascq)
		__field(int,		err_class)
		__field(int,		result)
		__field(u64,		latency_ns)
	),

	TP_fast_assign(
		__assign_str(mpath, m->name);
		strscpy(__entry->path, path ? path->name : "-", 16);
		__entry->status		= blk_status_to_errno(d->status);
		__entry->source		= d->source;
		__entry->flags		= d->flags;
		__entry->host_byte	= d->host_byte;
		__entry->status_byte	= d->status_byte;
		__entry->sense_key	= d->sense_key;
		__entry->asc		= d->asc;
		__entry->ascq		= d->ascq;
		__entry->err_class	= err_class;
		__entry->result		= result;
		__entry->latency_ns	= latency_ns;
	),

	TP_printk("%s path=%s errno=%d class=%s src=%u host=0x%02x status=0x%02x sense=%s%x/%02x/%02x verdict=%s lat_ns=%llu",
		  __get_str(mpath), __entry->path, __entry->status,
		  __print_symbolic(__entry->err_class,
				   { BLK_MPATH_ERR_NONE, "none" },
				   { BLK_MPATH_ERR_PATH, "path" },
				   { BLK_MPATH_ERR_TARGET, "target" },
				   { BLK_MPATH_ERR_RESERVATION, "reservation" },
				   { BLK_MPATH_ERR_RESOURCE, "resource" },
				   { BLK_MPATH_ERR_LIMITS, "limits" }),
		  __entry->source, __entry->host_byte, __entry->status_byte,
		  (__entry->flags & BLK_ERR_SENSE_VALID) ? "" : "!",
		  __entry->sense_key, __entry->asc, __entry->ascq,
		  __print_symbolic(__entry->result,
				   { BLK_MPATH_END_DONE, "done" },
				   { BLK_MPATH_END_RETRY, "retry" },
				   { BLK_MPATH_END_DELAY_RETRY, "delay_retry" }),
		  (unsigned long long)__entry->latency_ns)
);

TRACE_EVENT(blk_mpath_path_state,

	TP_PROTO(struct blk_mpath *m, struct blk_mpath_path *path, bool active,
		 unsigned int nr_valid_paths),

	TP_ARGS(m, path, active, nr_valid_paths),

	TP_STRUCT__entry(
		__string(mpath,		m->name)
		__array(char,		path, 16)
		__field(unsigned int,	pg_num)
		__field(bool,		active)
		__field(unsigned int,	fail_count)
		__field(unsigned int,	nr_valid_paths)
	),

	TP_fast_assign(
		__assign_str(mpath, m->name);
		strscpy(__entry->path, path->name, 16);
		__entry->pg_num		= path->pg->pg_num;
		__entry->active		= active;
		__entry->fail_count	= path->fail_count;
		__entry->nr_valid_paths	= nr_valid_paths;
	),

	TP_printk("%s path=%s pg=%u %s fail_count=%u valid_paths=%u",
		  __get_str(mpath), __entry->path, __entry->pg_num,
		  __entry->active ? "reinstated" : "failed",
		  __entry->fail_count, __entry->nr_valid_paths)
);

#endif /* _TRACE_BLK_MPATH_H */

/* This part must be outside protection */
#include <trace/define_trace.h>
