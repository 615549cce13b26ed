/* SPDX-License-Identifier: GPL-2.0 */
/*
 * blk-mpath: engine-internal declarations shared by the engine's files
 * (blk-mpath-core.c, blk-mpath-ps.c, blk-mpath-bio.c).
 */
#ifndef _BLK_MPATH_PS_H
#define _BLK_MPATH_PS_H

#include <linux/blk-mpath.h>

int blk_mpath_ps_init(void);
void blk_mpath_ps_exit(void);

/* blk-mpath-core.c, for blk-mpath-bio.c */
int blk_mpath_pg_init_all_paths(struct blk_mpath *m);
struct blk_error_detail;
enum blk_mpath_end_result blk_mpath_end_class(struct blk_mpath *m,
					      struct blk_mpath_rq_ctx *ctx,
					      const struct blk_error_detail *d,
					      enum blk_mpath_err_class cls,
					      u64 start_ns,
					      blk_status_t *status);

/* blk-mpath-bio.c, for blk-mpath-core.c (queue_mode bio) */
int blk_mpath_bio_init(void);
void blk_mpath_bio_exit(void);
void blk_mpath_bio_setup(struct blk_mpath *m, bool bio_based);
void blk_mpath_bio_kick(struct blk_mpath *m);
void blk_mpath_bio_flush(struct blk_mpath *m);
void blk_mpath_bio_drain(struct blk_mpath *m);

#endif /* _BLK_MPATH_PS_H */
