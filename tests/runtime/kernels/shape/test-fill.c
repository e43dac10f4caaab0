/* SPDX-License-Identifier: Apache-2.0 */
/* FILL and RANGE. */
#include "shape-test.h"

START_TEST(test_fill_int32) {
        kh_t h;
        kh_init(&h);
        int32_t dims = kh_const(&h, RT_TYPE_INT64, 1, I32(2), (const int64_t[]){ 2, 3 });
        int32_t val = kh_tensor(&h, RT_TYPE_INT32, 0, NULL, I32(7));
        int32_t out = kh_tensor(&h, RT_TYPE_INT32, 0, NULL, NULL);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_fill, NULL, I32(dims, val), 2, I32(out), 1), 0);
        st_assert_dims(&h.tensors[out], 2, I32(2, 3));
        st_assert_i32(&h.tensors[out], 6, I32(7, 7, 7, 7, 7, 7));
        kh_done(&h);
}
END_TEST

START_TEST(test_fill_dynamic_dims) {
        kh_t h;
        kh_init(&h);
        int32_t dims = kh_tensor(&h, RT_TYPE_INT32, 1, I32(1), I32(3));
        int32_t val = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, F32(1.5f));
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_int_eq(st_prepare_only(&h, &rt_kernel_fill, NULL, I32(dims, val), 2, I32(out), 1), 0);
        ck_assert_int_eq(h.tensors[out].alloc, RT_ALLOC_DYNAMIC);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_fill, NULL, I32(dims, val), 2, I32(out), 1), 0);
        st_assert_f32(&h.tensors[out], 3, F32(1.5f, 1.5f, 1.5f));
        kh_done(&h);
}
END_TEST

START_TEST(test_fill_type_mismatch_einval) {
        kh_t h;
        kh_init(&h);
        int32_t dims = kh_const(&h, RT_TYPE_INT32, 1, I32(1), I32(3));
        int32_t val = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, F32(1.5f));
        int32_t out = kh_tensor(&h, RT_TYPE_INT32, 0, NULL, NULL);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_fill, NULL, I32(dims, val), 2, I32(out), 1), -EINVAL);
        kh_done(&h);
}
END_TEST

static int run_range_i32(kh_t *h, int32_t start, int32_t limit, int32_t delta, int32_t *ret_out) {
        int32_t s = kh_const(h, RT_TYPE_INT32, 0, NULL, I32(start));
        int32_t l = kh_const(h, RT_TYPE_INT32, 0, NULL, I32(limit));
        int32_t d = kh_const(h, RT_TYPE_INT32, 0, NULL, I32(delta));
        *ret_out = kh_tensor(h, RT_TYPE_INT32, 0, NULL, NULL);
        return kh_run(h, &rt_kernel_range, NULL, I32(s, l, d), 3, I32(*ret_out), 1);
}

START_TEST(test_range_int32_up_and_down) {
        kh_t h;
        int32_t out;
        kh_init(&h);
        ck_assert_int_eq(run_range_i32(&h, 0, 10, 3, &out), 0);
        st_assert_dims(&h.tensors[out], 1, I32(4));
        st_assert_i32(&h.tensors[out], 4, I32(0, 3, 6, 9));
        kh_done(&h);
        kh_init(&h);
        ck_assert_int_eq(run_range_i32(&h, 10, 0, -4, &out), 0);
        st_assert_i32(&h.tensors[out], 3, I32(10, 6, 2));
        kh_done(&h);
}
END_TEST

START_TEST(test_range_float_dynamic) {
        kh_t h;
        kh_init(&h);
        int32_t s = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, F32(0));
        int32_t l = kh_const(&h, RT_TYPE_FLOAT32, 0, NULL, F32(1));
        int32_t d = kh_const(&h, RT_TYPE_FLOAT32, 0, NULL, F32(0.25f));
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_int_eq(st_prepare_only(&h, &rt_kernel_range, NULL, I32(s, l, d), 3, I32(out), 1), 0);
        ck_assert_int_eq(h.tensors[out].alloc, RT_ALLOC_DYNAMIC);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_range, NULL, I32(s, l, d), 3, I32(out), 1), 0);
        st_assert_f32(&h.tensors[out], 4, F32(0, 0.25f, 0.5f, 0.75f));
        kh_done(&h);
}
END_TEST

START_TEST(test_range_bad_delta_einval) {
        kh_t h;
        int32_t out;
        kh_init(&h);
        ck_assert_int_eq(run_range_i32(&h, 0, 10, 0, &out), -EINVAL);
        kh_done(&h);
        kh_init(&h);
        ck_assert_int_eq(run_range_i32(&h, 0, 10, -1, &out), -EINVAL);
        kh_done(&h);
}
END_TEST

ST_MAIN("shape-fill", test_fill_int32, test_fill_dynamic_dims, test_fill_type_mismatch_einval,
        test_range_int32_up_and_down, test_range_float_dynamic, test_range_bad_delta_einval)
