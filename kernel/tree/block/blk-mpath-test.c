// SPDX-License-Identifier: GPL-2.0
#include <kunit/test.h>
static void blk_mpath_smoke(struct kunit *test) { KUNIT_EXPECT_EQ(test, 1, 1); }
static struct kunit_case blk_mpath_cases[] = { KUNIT_CASE(blk_mpath_smoke), {} };
static struct kunit_suite blk_mpath_suite = { .name = "blk-mpath-smoke", .test_cases = blk_mpath_cases };
kunit_test_suite(blk_mpath_suite);
MODULE_LICENSE("GPL");
