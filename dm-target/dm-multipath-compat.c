// SPDX-License-Identifier: GPL-2.0
/*
 * The blk-mpath "multipath" target once more, as a module named dm_multipath:
 * installed as extra/blk-mpath/dm-multipath.ko and chosen over the stock
 * module by a depmod override (the engine switch), it answers to everything
 * the stock module's name does: "modprobe dm-multipath", "modprobe -r",
 * "options dm_multipath ..." lines, /sys/module/dm_multipath/parameters/
 * and tools that look for the module.  dm-blk-mpath.ko, the same code under
 * its own name, is the one that can be loaded beside stock dm_multipath for
 * a live handover (DM_TARGET_HANDOVER).
 */
#include "dm-blk-mpath.c"
