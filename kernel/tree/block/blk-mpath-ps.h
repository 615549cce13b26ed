/* SPDX-License-Identifier: GPL-2.0 */
/*
 * blk-mpath: engine-internal declarations shared by blk-mpath-core.c and
 * blk-mpath-ps.c.
 */
#ifndef _BLK_MPATH_PS_H
#define _BLK_MPATH_PS_H

int blk_mpath_ps_init(void);
void blk_mpath_ps_exit(void);

#endif /* _BLK_MPATH_PS_H */
