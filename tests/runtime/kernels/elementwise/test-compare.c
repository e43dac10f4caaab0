/* SPDX-License-Identifier: Apache-2.0 */
/* Tests of runtime/kernels/elementwise/compare.c, logical.c and select.c. */
#include <string.h>

#include "ew-test.h"

static void check_bools(const rt_tensor_t *t, const bool *want, size_t n) {
        const bool *z = t->data;
        for (size_t i = 0; i < n; i++)
                ck_assert_msg(z[i] == want[i], "element %zu: %d, want %d", i, z[i], want[i]);
}

START_TEST(test_compare_float_all_ops) {
        const rt_registration_t *regs[] = { &rt_kernel_equal, &rt_kernel_not_equal,
                                            &rt_kernel_less, &rt_kernel_less_equal,
                                            &rt_kernel_greater, &rt_kernel_greater_equal };
        const bool want[6][3] = {
                { false, true, false }, { true, false, true }, { true, false, false },
                { true, true, false }, { false, false, true }, { false, true, true },
        };
        for (int k = 0; k < 6; k++) {
                kh_t h;
                kh_init(&h);
                int32_t a = kh_tensor(&h, RT_TYPE_FLOAT32, 1, DIMS(3), (float[]){ 1, 2, 3 });
                int32_t b = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, (float[]){ 2 });
                int32_t o = kh_tensor(&h, RT_TYPE_BOOL, 0, NULL, NULL);
                ck_assert_int_eq(ew_run2(&h, regs[k], NULL, a, b, o), 0);
                ew_assert_shape(&h.tensors[o], 1, DIMS(3));
                check_bools(&h.tensors[o], want[k], 3);
                kh_done(&h);
        }
}
END_TEST

START_TEST(test_compare_int32_broadcast_2d) {
        kh_t h;
        kh_init(&h);
        int32_t a = kh_tensor(&h, RT_TYPE_INT32, 2, DIMS(2, 1), (int32_t[]){ 1, 5 });
        int32_t b = kh_tensor(&h, RT_TYPE_INT32, 2, DIMS(1, 3), (int32_t[]){ 0, 1, 6 });
        int32_t o = kh_tensor(&h, RT_TYPE_BOOL, 0, NULL, NULL);
        ck_assert_int_eq(ew_run2(&h, &rt_kernel_greater, NULL, a, b, o), 0);
        ew_assert_shape(&h.tensors[o], 2, DIMS(2, 3));
        check_bools(&h.tensors[o], (const bool[]){ true, false, false, true, true, false }, 6);
        kh_done(&h);
}
END_TEST

START_TEST(test_compare_int64_and_bool_equal) {
        kh_t h;
        kh_init(&h);
        int32_t a = kh_tensor(&h, RT_TYPE_INT64, 1, DIMS(2), (int64_t[]){ 1LL << 40, 7 });
        int32_t b = kh_tensor(&h, RT_TYPE_INT64, 1, DIMS(2), (int64_t[]){ 1LL << 40, 8 });
        int32_t o = kh_tensor(&h, RT_TYPE_BOOL, 0, NULL, NULL);
        ck_assert_int_eq(ew_run2(&h, &rt_kernel_equal, NULL, a, b, o), 0);
        check_bools(&h.tensors[o], (const bool[]){ true, false }, 2);
        kh_done(&h);

        kh_init(&h);
        a = kh_tensor(&h, RT_TYPE_BOOL, 1, DIMS(2), (bool[]){ true, false });
        b = kh_tensor(&h, RT_TYPE_BOOL, 1, DIMS(2), (bool[]){ true, true });
        o = kh_tensor(&h, RT_TYPE_BOOL, 0, NULL, NULL);
        ck_assert_int_eq(ew_run2(&h, &rt_kernel_not_equal, NULL, a, b, o), 0);
        check_bools(&h.tensors[o], (const bool[]){ false, true }, 2);
        kh_done(&h);
}
END_TEST

/* Quantized inputs with different scales compare by real value. */
START_TEST(test_compare_uint8_rescaled) {
        kh_t h;
        kh_init(&h);
        /* a: scale 0.5 zp 10 -> reals 0, 1, 2.5 ; b: scale 0.25 zp 0 -> 0.25, 1, 2 */
        int32_t a = kh_tensor(&h, RT_TYPE_UINT8, 1, DIMS(3), (uint8_t[]){ 10, 12, 15 });
        int32_t b = kh_tensor(&h, RT_TYPE_UINT8, 1, DIMS(3), (uint8_t[]){ 1, 4, 8 });
        int32_t o = kh_tensor(&h, RT_TYPE_BOOL, 0, NULL, NULL);
        kh_quant(&h, a, 0.5f, 10);
        kh_quant(&h, b, 0.25f, 0);
        ck_assert_int_eq(ew_run2(&h, &rt_kernel_less, NULL, a, b, o), 0);
        check_bools(&h.tensors[o], (const bool[]){ true, false, false }, 3);
        kh_done(&h);

        kh_init(&h);
        a = kh_tensor(&h, RT_TYPE_INT8, 1, DIMS(3), (int8_t[]){ -118, -116, -113 });
        b = kh_tensor(&h, RT_TYPE_INT8, 1, DIMS(3), (int8_t[]){ 1, 4, 8 });
        o = kh_tensor(&h, RT_TYPE_BOOL, 0, NULL, NULL);
        kh_quant(&h, a, 0.5f, -118);
        kh_quant(&h, b, 0.25f, 0);
        ck_assert_int_eq(ew_run2(&h, &rt_kernel_equal, NULL, a, b, o), 0);
        check_bools(&h.tensors[o], (const bool[]){ false, true, false }, 3);
        kh_done(&h);
}
END_TEST

START_TEST(test_compare_errors) {
        kh_t h;
        kh_init(&h);
        int32_t a = kh_tensor(&h, RT_TYPE_FLOAT32, 1, DIMS(3), NULL);
        int32_t b = kh_tensor(&h, RT_TYPE_FLOAT32, 1, DIMS(2), NULL);
        int32_t o = kh_tensor(&h, RT_TYPE_BOOL, 0, NULL, NULL);
        ck_assert_int_eq(ew_run2(&h, &rt_kernel_less, NULL, a, b, o), -EINVAL);
        kh_done(&h);

        kh_init(&h);
        a = kh_tensor(&h, RT_TYPE_FLOAT32, 1, DIMS(3), NULL);
        b = kh_tensor(&h, RT_TYPE_FLOAT32, 1, DIMS(3), NULL);
        o = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_int_eq(ew_run2(&h, &rt_kernel_less, NULL, a, b, o), -EINVAL);
        ck_assert_ptr_nonnull(strstr(h.error, "output must be bool"));
        kh_done(&h);

        kh_init(&h);
        a = kh_tensor(&h, RT_TYPE_BOOL, 1, DIMS(3), NULL);
        b = kh_tensor(&h, RT_TYPE_BOOL, 1, DIMS(3), NULL);
        o = kh_tensor(&h, RT_TYPE_BOOL, 0, NULL, NULL);
        ck_assert_int_eq(ew_run2(&h, &rt_kernel_less, NULL, a, b, o), -ENOTSUP);
        kh_done(&h);
}
END_TEST

START_TEST(test_logical_and_or_broadcast) {
        kh_t h;
        kh_init(&h);
        int32_t a = kh_tensor(&h, RT_TYPE_BOOL, 2, DIMS(2, 2), (bool[]){ true, false, true, true });
        int32_t b = kh_tensor(&h, RT_TYPE_BOOL, 1, DIMS(2), (bool[]){ true, false });
        int32_t o = kh_tensor(&h, RT_TYPE_BOOL, 0, NULL, NULL);
        ck_assert_int_eq(ew_run2(&h, &rt_kernel_logical_and, NULL, a, b, o), 0);
        check_bools(&h.tensors[o], (const bool[]){ true, false, true, false }, 4);
        kh_done(&h);

        kh_init(&h);
        a = kh_tensor(&h, RT_TYPE_BOOL, 2, DIMS(2, 2), (bool[]){ true, false, false, false });
        b = kh_tensor(&h, RT_TYPE_BOOL, 0, NULL, (bool[]){ false });
        o = kh_tensor(&h, RT_TYPE_BOOL, 0, NULL, NULL);
        ck_assert_int_eq(ew_run2(&h, &rt_kernel_logical_or, NULL, a, b, o), 0);
        check_bools(&h.tensors[o], (const bool[]){ true, false, false, false }, 4);
        kh_done(&h);
}
END_TEST

START_TEST(test_logical_not_and_type_error) {
        kh_t h;
        kh_init(&h);
        int32_t a = kh_tensor(&h, RT_TYPE_BOOL, 1, DIMS(3), (bool[]){ true, false, true });
        int32_t o = kh_tensor(&h, RT_TYPE_BOOL, 0, NULL, NULL);
        ck_assert_int_eq(ew_run1(&h, &rt_kernel_logical_not, NULL, a, o), 0);
        check_bools(&h.tensors[o], (const bool[]){ false, true, false }, 3);
        kh_done(&h);

        kh_init(&h);
        a = kh_tensor(&h, RT_TYPE_INT32, 1, DIMS(3), NULL);
        o = kh_tensor(&h, RT_TYPE_BOOL, 0, NULL, NULL);
        ck_assert_int_eq(ew_run1(&h, &rt_kernel_logical_not, NULL, a, o), -ENOTSUP);
        kh_done(&h);
}
END_TEST

static int run_select(kh_t *h, const rt_registration_t *reg, int32_t c, int32_t x, int32_t y,
                      int32_t o) {
        return kh_run(h, reg, NULL, (const int32_t[]){ c, x, y }, 3, (const int32_t[]){ o }, 1);
}

START_TEST(test_select_same_shape_and_rank_one) {
        kh_t h;
        kh_init(&h);
        int32_t c = kh_tensor(&h, RT_TYPE_BOOL, 2, DIMS(2, 2), (bool[]){ true, false, false, true });
        int32_t x = kh_tensor(&h, RT_TYPE_FLOAT32, 2, DIMS(2, 2), (float[]){ 1, 2, 3, 4 });
        int32_t y = kh_tensor(&h, RT_TYPE_FLOAT32, 2, DIMS(2, 2), (float[]){ 5, 6, 7, 8 });
        int32_t o = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_int_eq(run_select(&h, &rt_kernel_select, c, x, y, o), 0);
        const float *z = h.tensors[o].data;
        ck_assert_float_eq(z[0], 1);
        ck_assert_float_eq(z[1], 6);
        ck_assert_float_eq(z[2], 7);
        ck_assert_float_eq(z[3], 4);
        kh_done(&h);

        /* Rank-one condition picks whole rows. */
        kh_init(&h);
        c = kh_tensor(&h, RT_TYPE_BOOL, 1, DIMS(2), (bool[]){ false, true });
        x = kh_tensor(&h, RT_TYPE_INT32, 2, DIMS(2, 2), (int32_t[]){ 1, 2, 3, 4 });
        y = kh_tensor(&h, RT_TYPE_INT32, 2, DIMS(2, 2), (int32_t[]){ 5, 6, 7, 8 });
        o = kh_tensor(&h, RT_TYPE_INT32, 0, NULL, NULL);
        ck_assert_int_eq(run_select(&h, &rt_kernel_select, c, x, y, o), 0);
        const int32_t *zi = h.tensors[o].data;
        ck_assert_int_eq(zi[0], 5);
        ck_assert_int_eq(zi[1], 6);
        ck_assert_int_eq(zi[2], 3);
        ck_assert_int_eq(zi[3], 4);
        kh_done(&h);
}
END_TEST

START_TEST(test_select_v1_bad_condition_einval) {
        kh_t h;
        kh_init(&h);
        int32_t c = kh_tensor(&h, RT_TYPE_BOOL, 1, DIMS(3), NULL);
        int32_t x = kh_tensor(&h, RT_TYPE_FLOAT32, 2, DIMS(2, 2), NULL);
        int32_t y = kh_tensor(&h, RT_TYPE_FLOAT32, 2, DIMS(2, 2), NULL);
        int32_t o = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_int_eq(run_select(&h, &rt_kernel_select, c, x, y, o), -EINVAL);
        kh_done(&h);
}
END_TEST

START_TEST(test_select_v2_three_way_broadcast) {
        kh_t h;
        kh_init(&h);
        /* cond [2,1], x [1,3], y scalar -> [2,3] */
        int32_t c = kh_tensor(&h, RT_TYPE_BOOL, 2, DIMS(2, 1), (bool[]){ true, false });
        int32_t x = kh_tensor(&h, RT_TYPE_INT8, 2, DIMS(1, 3), (int8_t[]){ 1, 2, 3 });
        int32_t y = kh_tensor(&h, RT_TYPE_INT8, 0, NULL, (int8_t[]){ -9 });
        int32_t o = kh_tensor(&h, RT_TYPE_INT8, 0, NULL, NULL);
        ck_assert_int_eq(run_select(&h, &rt_kernel_select_v2, c, x, y, o), 0);
        ew_assert_shape(&h.tensors[o], 2, DIMS(2, 3));
        const int8_t *z = h.tensors[o].data;
        const int8_t want[6] = { 1, 2, 3, -9, -9, -9 };
        for (int i = 0; i < 6; i++)
                ck_assert_int_eq(z[i], want[i]);
        kh_done(&h);
}
END_TEST

START_TEST(test_select_v2_incompatible_einval) {
        kh_t h;
        kh_init(&h);
        int32_t c = kh_tensor(&h, RT_TYPE_BOOL, 1, DIMS(2), NULL);
        int32_t x = kh_tensor(&h, RT_TYPE_FLOAT32, 1, DIMS(3), NULL);
        int32_t y = kh_tensor(&h, RT_TYPE_FLOAT32, 1, DIMS(3), NULL);
        int32_t o = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_int_eq(run_select(&h, &rt_kernel_select_v2, c, x, y, o), -EINVAL);
        kh_done(&h);
}
END_TEST

static Suite *compare_suite(void) {
        Suite *s = suite_create("elementwise-compare");
        TCase *tc = tcase_create("core");
        tcase_add_test(tc, test_compare_float_all_ops);
        tcase_add_test(tc, test_compare_int32_broadcast_2d);
        tcase_add_test(tc, test_compare_int64_and_bool_equal);
        tcase_add_test(tc, test_compare_uint8_rescaled);
        tcase_add_test(tc, test_compare_errors);
        tcase_add_test(tc, test_logical_and_or_broadcast);
        tcase_add_test(tc, test_logical_not_and_type_error);
        tcase_add_test(tc, test_select_same_shape_and_rank_one);
        tcase_add_test(tc, test_select_v1_bad_condition_einval);
        tcase_add_test(tc, test_select_v2_three_way_broadcast);
        tcase_add_test(tc, test_select_v2_incompatible_einval);
        suite_add_tcase(s, tc);
        return s;
}

EW_MAIN(compare_suite)
