/* SPDX-License-Identifier: Apache-2.0 */
#include "misc-test.h"

static int run(kh_t *h, int32_t in, int32_t out) {
        return kh_run(h, &rt_kernel_where, NULL, I32(in), 1, I32(out), 1);
}

START_TEST(test_where_bool_2d) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_BOOL, 2, I32(2, 3), U8(1, 0, 0, 0, 1, 1));
        int32_t out = kh_tensor(&h, RT_TYPE_INT64, 0, NULL, NULL);
        ck_assert_int_eq(run(&h, in, out), 0);
        ck_assert_int_eq(h.tensors[out].alloc, RT_ALLOC_DYNAMIC);
        ck_assert_shape(&h.tensors[out], 2, 3, 2);
        ck_assert_data(int64_t, &h.tensors[out], 6, 0, 0, 1, 1, 1, 2);
        kh_done(&h);
}
END_TEST

START_TEST(test_where_float_nonzero) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 1, I32(4), F32(0.0f, -1.5f, -0.0f, 3.0f));
        int32_t out = kh_tensor(&h, RT_TYPE_INT64, 0, NULL, NULL);
        ck_assert_int_eq(run(&h, in, out), 0);
        ck_assert_shape(&h.tensors[out], 2, 2, 1);
        ck_assert_data(int64_t, &h.tensors[out], 2, 1, 3);
        kh_done(&h);
}
END_TEST

START_TEST(test_where_none_true_and_scalar) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_INT32, 2, I32(2, 2), I32(0, 0, 0, 0));
        int32_t out = kh_tensor(&h, RT_TYPE_INT64, 0, NULL, NULL);
        ck_assert_int_eq(run(&h, in, out), 0);
        ck_assert_shape(&h.tensors[out], 2, 0, 2);
        kh_done(&h);

        kh_init(&h);
        in = kh_tensor(&h, RT_TYPE_UINT8, 0, NULL, U8(9));
        out = kh_tensor(&h, RT_TYPE_INT64, 0, NULL, NULL);
        ck_assert_int_eq(run(&h, in, out), 0);
        ck_assert_shape(&h.tensors[out], 2, 1, 0);
        kh_done(&h);
}
END_TEST

START_TEST(test_where_constant_condition_sized_in_prepare) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_const(&h, RT_TYPE_INT8, 1, I32(3), (const int8_t[]) { 0, -2, 1 });
        int32_t out = kh_tensor(&h, RT_TYPE_INT64, 0, NULL, NULL);
        ck_assert_int_eq(run(&h, in, out), 0);
        ck_assert_shape(&h.tensors[out], 2, 2, 1);
        ck_assert_data(int64_t, &h.tensors[out], 2, 1, 2);
        kh_done(&h);
}
END_TEST

START_TEST(test_where_errors) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_BOOL, 1, I32(2), U8(1, 0));
        int32_t bad_out = kh_tensor(&h, RT_TYPE_INT32, 0, NULL, NULL);
        ck_assert_fails(&h, run(&h, in, bad_out), -EINVAL, "int64");
        int32_t s = kh_tensor(&h, RT_TYPE_INT16, 1, I32(2), (const int16_t[]) { 1, 0 });
        int32_t out = kh_tensor(&h, RT_TYPE_INT64, 0, NULL, NULL);
        ck_assert_fails(&h, run(&h, s, out), -ENOTSUP, "int16");
        ck_assert_fails(&h, kh_run(&h, &rt_kernel_where, NULL, I32(in, in), 2, I32(out), 1), -EINVAL,
                        "expected 1 inputs");
        kh_done(&h);
}
END_TEST

MISC_TEST_MAIN("where", test_where_bool_2d, test_where_float_nonzero, test_where_none_true_and_scalar,
               test_where_constant_condition_sized_in_prepare, test_where_errors)
