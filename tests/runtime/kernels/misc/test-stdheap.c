/* SPDX-License-Identifier: Apache-2.0 */
/*
 * rt_heap_*: the orders libstdc++'s std::partial_sort leaves equal keys in.
 * The expected rows were checked against g++ 12's std::partial_sort with
 * the comparison TFLite uses (values[i] > values[j]).
 */
#include <check.h>
#include <stdlib.h>

#include "stdheap.h"

static void assert_order(const int32_t *got, const int32_t *want, int32_t n) {
        for (int32_t i = 0; i < n; i++)
                ck_assert_msg(got[i] == want[i], "position %d: %d, expected %d", i, got[i], want[i]);
}

START_TEST(test_partial_sort_all_equal_keeps_order) {
        static const float v[5] = { 1, 1, 1, 1, 1 };
        int32_t idx[5];
        rt_heap_argsort_desc(v, 5, 3, idx);
        assert_order(idx, (const int32_t[]) { 0, 1, 2, 3, 4 }, 5);
}
END_TEST

START_TEST(test_partial_sort_ties_in_heap_order) {
        static const float v[6] = { 0.5f, 1, 0.5f, 1, 0.5f, 1 };
        int32_t idx[6];
        rt_heap_argsort_desc(v, 6, 4, idx);
        assert_order(idx, (const int32_t[]) { 1, 3, 5, 0, 4, 2 }, 6);
        /* the whole row: not the stable order 1 3 5 0 2 4 */
        rt_heap_argsort_desc(v, 6, 6, idx);
        assert_order(idx, (const int32_t[]) { 1, 3, 5, 4, 0, 2 }, 6);
}
END_TEST

START_TEST(test_partial_sort_distinct_keys_sorted) {
        static const float v[7] = { 0.1f, 0.7f, 0.3f, 0.9f, 0.2f, 0.8f, 0.4f };
        int32_t idx[7];
        rt_heap_argsort_desc(v, 7, 3, idx);
        assert_order(idx, (const int32_t[]) { 3, 5, 1 }, 3);
}
END_TEST

int main(void) {
        Suite *s = suite_create("stdheap");
        TCase *tc = tcase_create("partial_sort");
        tcase_add_test(tc, test_partial_sort_all_equal_keeps_order);
        tcase_add_test(tc, test_partial_sort_ties_in_heap_order);
        tcase_add_test(tc, test_partial_sort_distinct_keys_sorted);
        suite_add_tcase(s, tc);
        SRunner *sr = srunner_create(s);
        srunner_run_all(sr, CK_NORMAL);
        int failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
