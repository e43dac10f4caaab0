/* SPDX-License-Identifier: Apache-2.0 */
#include "misc-test.h"

static int run(kh_t *h, int32_t idx, int32_t upd, int32_t shape, int32_t out) {
        return kh_run(h, &rt_kernel_scatter_nd, NULL, I32(idx, upd, shape), 3, I32(out), 1);
}

START_TEST(test_scatter_nd_elements_float) {
        kh_t h;
        kh_init(&h);
        int32_t idx = kh_tensor(&h, RT_TYPE_INT32, 2, I32(4, 1), I32(4, 3, 1, 7));
        int32_t upd = kh_tensor(&h, RT_TYPE_FLOAT32, 1, I32(4), F32(9, 10, 11, 12));
        int32_t shape = kh_const(&h, RT_TYPE_INT32, 1, I32(1), I32(8));
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_int_eq(run(&h, idx, upd, shape, out), 0);
        ck_assert_shape(&h.tensors[out], 1, 8);
        ck_assert_data(float, &h.tensors[out], 8, 0, 11, 0, 10, 9, 0, 0, 12);
        kh_done(&h);
}
END_TEST

START_TEST(test_scatter_nd_duplicates_accumulate) {
        kh_t h;
        kh_init(&h);
        int32_t idx = kh_tensor(&h, RT_TYPE_INT64, 2, I32(3, 1), I64(1, 1, 2));
        int32_t upd = kh_tensor(&h, RT_TYPE_INT32, 1, I32(3), I32(2, 3, -4));
        int32_t shape = kh_const(&h, RT_TYPE_INT64, 1, I32(1), I64(3));
        int32_t out = kh_tensor(&h, RT_TYPE_INT32, 0, NULL, NULL);
        ck_assert_int_eq(run(&h, idx, upd, shape, out), 0);
        ck_assert_data(int32_t, &h.tensors[out], 3, 0, 5, -4);
        kh_done(&h);
}
END_TEST

START_TEST(test_scatter_nd_slices_dynamic_shape) {
        kh_t h;
        kh_init(&h);
        /* Rows 0 and 2 of a [3, 2] output; the shape is not a constant. */
        int32_t idx = kh_tensor(&h, RT_TYPE_INT32, 2, I32(2, 1), I32(0, 2));
        int32_t upd = kh_tensor(&h, RT_TYPE_UINT8, 2, I32(2, 2), U8(1, 2, 3, 4));
        int32_t shape = kh_tensor(&h, RT_TYPE_INT32, 1, I32(2), I32(3, 2));
        int32_t out = kh_tensor(&h, RT_TYPE_UINT8, 0, NULL, NULL);
        ck_assert_int_eq(run(&h, idx, upd, shape, out), 0);
        ck_assert_int_eq(h.tensors[out].alloc, RT_ALLOC_DYNAMIC);
        ck_assert_shape(&h.tensors[out], 2, 3, 2);
        ck_assert_data(uint8_t, &h.tensors[out], 6, 1, 2, 0, 0, 3, 4);
        kh_done(&h);
}
END_TEST

START_TEST(test_scatter_nd_full_index_2d_bool) {
        kh_t h;
        kh_init(&h);
        int32_t idx = kh_tensor(&h, RT_TYPE_INT32, 2, I32(2, 2), I32(1, 0, 1, 0));
        int32_t upd = kh_tensor(&h, RT_TYPE_BOOL, 1, I32(2), U8(1, 1));
        int32_t shape = kh_const(&h, RT_TYPE_INT32, 1, I32(2), I32(2, 2));
        int32_t out = kh_tensor(&h, RT_TYPE_BOOL, 0, NULL, NULL);
        ck_assert_int_eq(run(&h, idx, upd, shape, out), 0);
        ck_assert_data(uint8_t, &h.tensors[out], 4, 0, 0, 1, 0);
        kh_done(&h);
}
END_TEST

START_TEST(test_scatter_nd_errors) {
        kh_t h;
        kh_init(&h);
        int32_t idx = kh_tensor(&h, RT_TYPE_INT32, 2, I32(2, 1), I32(0, 5));
        int32_t upd = kh_tensor(&h, RT_TYPE_FLOAT32, 1, I32(2), F32(1, 2));
        int32_t shape = kh_const(&h, RT_TYPE_INT32, 1, I32(1), I32(4));
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_fails(&h, run(&h, idx, upd, shape, out), -EINVAL, "index 5 out of range");
        int32_t upd3 = kh_tensor(&h, RT_TYPE_FLOAT32, 1, I32(3), F32(1, 2, 3));
        ck_assert_fails(&h, run(&h, idx, upd3, shape, out), -EINVAL, "updates dim 0");
        int32_t fidx = kh_tensor(&h, RT_TYPE_FLOAT32, 2, I32(2, 1), F32(0, 1));
        ck_assert_fails(&h, run(&h, fidx, upd, shape, out), -EINVAL, "indices");
        int32_t deep = kh_tensor(&h, RT_TYPE_INT32, 2, I32(1, 2), I32(0, 0));
        int32_t upd1 = kh_tensor(&h, RT_TYPE_FLOAT32, 1, I32(1), F32(1));
        ck_assert_fails(&h, run(&h, deep, upd1, shape, out), -EINVAL, "index depth");
        kh_done(&h);
}
END_TEST

MISC_TEST_MAIN("scatter-nd", test_scatter_nd_elements_float, test_scatter_nd_duplicates_accumulate,
               test_scatter_nd_slices_dynamic_shape, test_scatter_nd_full_index_2d_bool, test_scatter_nd_errors)
