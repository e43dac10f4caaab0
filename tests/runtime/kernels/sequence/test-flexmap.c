/* SPDX-License-Identifier: Apache-2.0 */
#include <check.h>
#include <stdlib.h>

#include "flexbuild.h"
#include "sequence.h"

static const fx_entry_t entries[] = {
        { "a_int", 'i', -7 },
        { "b_float", 'f', 0.5 },
        { "c_bool", 'b', 1 },
        { "d_big", 'i', 300 },
};

START_TEST(test_flexmap_reads_scalars_all_widths) {
        static const unsigned widths[] = { 4, 8 };
        for (unsigned k = 0; k < 2; k++) {
                uint8_t buf[4096];
                size_t n = fx_build_map(buf, entries, 4, widths[k]);
                int64_t i;
                double d;
                ck_assert_int_eq(seq_flexmap_get_int(buf, n, "a_int", &i), 0);
                ck_assert_int_eq(i, -7);
                ck_assert_int_eq(seq_flexmap_get_double(buf, n, "b_float", &d), 0);
                ck_assert_double_eq(d, 0.5);
                ck_assert_int_eq(seq_flexmap_get_int(buf, n, "c_bool", &i), 0);
                ck_assert_int_eq(i, 1);
                ck_assert_int_eq(seq_flexmap_get_int(buf, n, "d_big", &i), 0);
                ck_assert_int_eq(i, 300);
                /* numbers convert both ways, as AsInt64/AsDouble do */
                ck_assert_int_eq(seq_flexmap_get_double(buf, n, "a_int", &d), 0);
                ck_assert_double_eq(d, -7.0);
                ck_assert_int_eq(seq_flexmap_get_int(buf, n, "missing", &i), -ENOENT);
        }
}
END_TEST

START_TEST(test_flexmap_narrow_widths) {
        /* FlexBuffers floats are 4 or 8 bytes; ints and bools may be narrower. */
        static const fx_entry_t ints[] = { { "k", 'i', -3 }, { "m", 'b', 1 } };
        static const unsigned widths[] = { 1, 2 };
        for (unsigned k = 0; k < 2; k++) {
                uint8_t buf[4096];
                size_t n = fx_build_map(buf, ints, 2, widths[k]);
                int64_t i;
                ck_assert_int_eq(seq_flexmap_get_int(buf, n, "k", &i), 0);
                ck_assert_int_eq(i, -3);
                ck_assert_int_eq(seq_flexmap_get_int(buf, n, "m", &i), 0);
                ck_assert_int_eq(i, 1);
        }
}
END_TEST

START_TEST(test_flexmap_rejects_garbage_and_truncation) {
        uint8_t buf[4096];
        size_t n = fx_build_map(buf, entries, 4, 4);
        int64_t i;
        ck_assert_int_eq(seq_flexmap_get_int(NULL, 0, "a_int", &i), -EINVAL);
        ck_assert_int_eq(seq_flexmap_get_int(buf, 2, "a_int", &i), -EINVAL);
        /* Every truncation of the buffer fails cleanly (never reads past it). */
        for (size_t len = 0; len < n; len++) {
                uint8_t *copy = malloc(len ? len : 1);
                memcpy(copy, buf + (n - len), len);  /* keep the tail, as a cut-off prefix would */
                int r = seq_flexmap_get_int(copy, len, "a_int", &i);
                ck_assert_int_ne(r, 0);
                free(copy);
        }
        /* A root that is not a map. */
        uint8_t notmap[] = { 5, 1 << 2, 1 };
        ck_assert_int_eq(seq_flexmap_get_int(notmap, sizeof(notmap), "a_int", &i), -EINVAL);
        /* Root offset pointing before the buffer start. */
        uint8_t bad[] = { 200, 9 << 2, 1 };
        ck_assert_int_eq(seq_flexmap_get_int(bad, sizeof(bad), "a_int", &i), -EINVAL);
}
END_TEST

int main(void) {
        Suite *s = suite_create("kernels-sequence-flexmap");
        TCase *tc = tcase_create("flexmap");
        tcase_add_test(tc, test_flexmap_reads_scalars_all_widths);
        tcase_add_test(tc, test_flexmap_narrow_widths);
        tcase_add_test(tc, test_flexmap_rejects_garbage_and_truncation);
        suite_add_tcase(s, tc);
        SRunner *sr = srunner_create(s);
        srunner_run_all(sr, CK_NORMAL);
        int failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
