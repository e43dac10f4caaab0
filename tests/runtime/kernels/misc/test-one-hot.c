/* SPDX-License-Identifier: Apache-2.0 */
#include "misc-test.h"

static int run(kh_t *h, int32_t axis, int32_t idx, int32_t depth, int32_t on, int32_t off, int32_t out) {
        static rt_one_hot_params_t p;
        p.axis = axis;
        return kh_run(h, &rt_kernel_one_hot, &p, I32(idx, depth, on, off), 4, I32(out), 1);
}

START_TEST(test_one_hot_last_axis_float) {
        kh_t h;
        kh_init(&h);
        int32_t idx = kh_tensor(&h, RT_TYPE_INT32, 1, I32(3), I32(0, 2, -1));
        int32_t depth = kh_const(&h, RT_TYPE_INT32, 0, NULL, I32(3));
        int32_t on = kh_const(&h, RT_TYPE_FLOAT32, 0, NULL, F32(1.0f));
        int32_t off = kh_const(&h, RT_TYPE_FLOAT32, 0, NULL, F32(0.0f));
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_int_eq(run(&h, -1, idx, depth, on, off, out), 0);
        ck_assert_shape(&h.tensors[out], 2, 3, 3);
        ck_assert_data(float, &h.tensors[out], 9, 1, 0, 0, 0, 0, 1, 0, 0, 0);
        kh_done(&h);
}
END_TEST

START_TEST(test_one_hot_axis0_int32) {
        kh_t h;
        kh_init(&h);
        int32_t idx = kh_tensor(&h, RT_TYPE_INT32, 1, I32(2), I32(1, 0));
        int32_t depth = kh_const(&h, RT_TYPE_INT32, 0, NULL, I32(3));
        int32_t on = kh_const(&h, RT_TYPE_INT32, 0, NULL, I32(5));
        int32_t off = kh_const(&h, RT_TYPE_INT32, 0, NULL, I32(-1));
        int32_t out = kh_tensor(&h, RT_TYPE_INT32, 0, NULL, NULL);
        ck_assert_int_eq(run(&h, 0, idx, depth, on, off, out), 0);
        ck_assert_shape(&h.tensors[out], 2, 3, 2);
        ck_assert_data(int32_t, &h.tensors[out], 6, -1, 5, 5, -1, -1, -1);
        kh_done(&h);
}
END_TEST

START_TEST(test_one_hot_middle_axis_int64_indices) {
        kh_t h;
        kh_init(&h);
        /* indices [2, 2], axis 1 -> output [2, 2(depth), 2] */
        int32_t idx = kh_tensor(&h, RT_TYPE_INT64, 2, I32(2, 2), I64(0, 1, 1, 1));
        int32_t depth = kh_const(&h, RT_TYPE_INT32, 0, NULL, I32(2));
        int32_t on = kh_const(&h, RT_TYPE_INT8, 0, NULL, (const int8_t[]) { 7 });
        int32_t off = kh_const(&h, RT_TYPE_INT8, 0, NULL, (const int8_t[]) { 0 });
        int32_t out = kh_tensor(&h, RT_TYPE_INT8, 0, NULL, NULL);
        ck_assert_int_eq(run(&h, 1, idx, depth, on, off, out), 0);
        ck_assert_shape(&h.tensors[out], 3, 2, 2, 2);
        ck_assert_data(int8_t, &h.tensors[out], 8, 7, 0, 0, 7, 0, 0, 7, 7);
        kh_done(&h);
}
END_TEST

START_TEST(test_one_hot_dynamic_depth_bool) {
        kh_t h;
        kh_init(&h);
        int32_t idx = kh_tensor(&h, RT_TYPE_INT32, 1, I32(1), I32(1));
        int32_t depth = kh_tensor(&h, RT_TYPE_INT32, 0, NULL, I32(2));
        int32_t on = kh_const(&h, RT_TYPE_BOOL, 0, NULL, U8(1));
        int32_t off = kh_const(&h, RT_TYPE_BOOL, 0, NULL, U8(0));
        int32_t out = kh_tensor(&h, RT_TYPE_BOOL, 0, NULL, NULL);
        ck_assert_int_eq(run(&h, -1, idx, depth, on, off, out), 0);
        ck_assert_int_eq(h.tensors[out].alloc, RT_ALLOC_DYNAMIC);
        ck_assert_shape(&h.tensors[out], 2, 1, 2);
        ck_assert_data(uint8_t, &h.tensors[out], 2, 0, 1);
        kh_done(&h);
}
END_TEST

START_TEST(test_one_hot_errors) {
        kh_t h;
        kh_init(&h);
        int32_t idx = kh_tensor(&h, RT_TYPE_INT32, 1, I32(2), I32(0, 1));
        int32_t depth = kh_const(&h, RT_TYPE_INT32, 0, NULL, I32(2));
        int32_t on = kh_const(&h, RT_TYPE_FLOAT32, 0, NULL, F32(1));
        int32_t off = kh_const(&h, RT_TYPE_INT32, 0, NULL, I32(0));
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_fails(&h, run(&h, -1, idx, depth, on, off, out), -EINVAL, "on/off");
        int32_t off_f = kh_const(&h, RT_TYPE_FLOAT32, 0, NULL, F32(0));
        ck_assert_fails(&h, run(&h, 2, idx, depth, on, off_f, out), -EINVAL, "axis 2");
        int32_t neg = kh_const(&h, RT_TYPE_INT32, 0, NULL, I32(-3));
        ck_assert_fails(&h, run(&h, -1, idx, neg, on, off_f, out), -EINVAL, "depth -3");
        int32_t fidx = kh_tensor(&h, RT_TYPE_FLOAT32, 1, I32(2), F32(0, 1));
        ck_assert_fails(&h, run(&h, -1, fidx, depth, on, off_f, out), -EINVAL, "indices");
        int32_t s_on = kh_const(&h, RT_TYPE_FLOAT16, 0, NULL, (const uint16_t[]) { 0 });
        int32_t s_off = kh_const(&h, RT_TYPE_FLOAT16, 0, NULL, (const uint16_t[]) { 0 });
        int32_t s_out = kh_tensor(&h, RT_TYPE_FLOAT16, 0, NULL, NULL);
        ck_assert_fails(&h, run(&h, -1, idx, depth, s_on, s_off, s_out), -ENOTSUP, "float16");
        kh_done(&h);
}
END_TEST

MISC_TEST_MAIN("one-hot", test_one_hot_last_axis_float, test_one_hot_axis0_int32,
               test_one_hot_middle_axis_int64_indices, test_one_hot_dynamic_depth_bool, test_one_hot_errors)
