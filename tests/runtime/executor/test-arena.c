/* SPDX-License-Identifier: Apache-2.0 */
/* The lifetime-based arena planner. */
#include <check.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include "arena.h"

static bool overlap_mem(const rt_arena_item_t *a, const rt_arena_item_t *b) {
        return a->offset < b->offset + b->bytes && b->offset < a->offset + a->bytes;
}

START_TEST(test_arena_disjoint_lifetimes_share) {
        rt_arena_item_t it[2] = { { 1000, 0, 1, 0 }, { 1000, 2, 3, 0 } };
        size_t size = 0;
        ck_assert_int_eq(rt_arena_plan(it, 2, &size), 0);
        ck_assert_uint_eq(it[0].offset, 0);
        ck_assert_uint_eq(it[1].offset, 0);
        ck_assert_uint_eq(size, 1024);
}
END_TEST

START_TEST(test_arena_overlapping_lifetimes_do_not_share) {
        rt_arena_item_t it[3] = { { 100, 0, 2, 0 }, { 10, 1, 1, 0 }, { 64, 2, 4, 0 } };
        size_t size = 0;
        ck_assert_int_eq(rt_arena_plan(it, 3, &size), 0);
        ck_assert(!overlap_mem(&it[0], &it[1]));
        ck_assert(!overlap_mem(&it[0], &it[2]));
        for (int i = 0; i < 3; i++)
                ck_assert_uint_eq(it[i].offset % RT_ARENA_ALIGN, 0);
        /* 128 + 64 + 64 would do with 1 and 2 sharing (they are disjoint in time). */
        ck_assert_uint_eq(size, 192);
        ck_assert_uint_eq(it[1].offset, it[2].offset);
}
END_TEST

START_TEST(test_arena_best_fit_gap) {
        /* Two long-lived buffers around a freed hole; the small one goes in the hole. */
        rt_arena_item_t it[4] = {
                { 256, 0, 9, 0 },  /* big, whole time */
                { 128, 0, 1, 0 },  /* dies early */
                { 192, 0, 9, 0 },  /* whole time */
                { 64, 5, 6, 0 },   /* later: fits where item 1 was */
        };
        size_t size = 0;
        ck_assert_int_eq(rt_arena_plan(it, 4, &size), 0);
        ck_assert_uint_eq(size, 256 + 192 + 128);
        ck_assert_uint_eq(it[3].offset, it[1].offset);
        for (int i = 0; i < 4; i++)
                for (int j = i + 1; j < 4; j++)
                        if (it[i].first <= it[j].last && it[j].first <= it[i].last)
                                ck_assert(!overlap_mem(&it[i], &it[j]));
}
END_TEST

START_TEST(test_arena_rejects_bad_input) {
        size_t size = 7;
        rt_arena_item_t bad = { 1, 3, 2, 0 };
        ck_assert_int_eq(rt_arena_plan(&bad, 1, &size), -EINVAL);
        ck_assert_int_eq(rt_arena_plan(NULL, 1, &size), -EINVAL);
        ck_assert_int_eq(rt_arena_plan(NULL, 0, &size), 0);
        ck_assert_uint_eq(size, 0);
        rt_arena_item_t huge = { SIZE_MAX - 3, 0, 0, 0 };
        ck_assert_int_eq(rt_arena_plan(&huge, 1, &size), -ENOMEM);
}
END_TEST

int main(void) {
        Suite *s = suite_create("arena");
        TCase *tc = tcase_create("plan");
        tcase_add_test(tc, test_arena_disjoint_lifetimes_share);
        tcase_add_test(tc, test_arena_overlapping_lifetimes_do_not_share);
        tcase_add_test(tc, test_arena_best_fit_gap);
        tcase_add_test(tc, test_arena_rejects_bad_input);
        suite_add_tcase(s, tc);
        SRunner *sr = srunner_create(s);
        srunner_run_all(sr, CK_NORMAL);
        int failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed ? 1 : 0;
}
