// SPDX-License-Identifier: GPL-2.0
/* blk-mpath engine: replaced by the real engine (issue 3). */
#include <linux/module.h>
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Request-based multipath engine");
