/* SPDX-License-Identifier: Apache-2.0 */
#include "misc-test.h"

static int run(kh_t *h, int32_t idx, int32_t shape, int32_t values, int32_t def, int32_t out) {
        static rt_sparse_to_dense_params_t p = { .validate_indices = true };
        return kh_run(h, &rt_kernel_sparse_to_dense, &p, I32(idx, shape, values, def), 4, I32(out), 1);
}

START_TEST(test_sparse_to_dense_2d_indices_float) {
        kh_t h;
        kh_init(&h);
        int32_t idx = kh_tensor(&h, RT_TYPE_INT32, 2, I32(2, 2), I32(0, 1, 2, 0));
        int32_t shape = kh_const(&h, RT_TYPE_INT32, 1, I32(2), I32(3, 2));
        int32_t values = kh_tensor(&h, RT_TYPE_FLOAT32, 1, I32(2), F32(5, 6));
        int32_t def = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, F32(-1));
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_int_eq(run(&h, idx, shape, values, def, out), 0);
        ck_assert_shape(&h.tensors[out], 2, 3, 2);
        ck_assert_data(float, &h.tensors[out], 6, -1, 5, -1, -1, 6, -1);
        kh_done(&h);
}
END_TEST

START_TEST(test_sparse_to_dense_1d_scalar_value_int64) {
        kh_t h;
        kh_init(&h);
        int32_t idx = kh_tensor(&h, RT_TYPE_INT64, 1, I32(2), I64(0, 3));
        int32_t shape = kh_tensor(&h, RT_TYPE_INT64, 1, I32(1), I64(5));
        int32_t values = kh_tensor(&h, RT_TYPE_INT32, 0, NULL, I32(7));
        int32_t def = kh_tensor(&h, RT_TYPE_INT32, 0, NULL, I32(0));
        int32_t out = kh_tensor(&h, RT_TYPE_INT32, 0, NULL, NULL);
        ck_assert_int_eq(run(&h, idx, shape, values, def, out), 0);
        ck_assert_int_eq(h.tensors[out].alloc, RT_ALLOC_DYNAMIC);
        ck_assert_shape(&h.tensors[out], 1, 5);
        ck_assert_data(int32_t, &h.tensors[out], 5, 7, 0, 0, 7, 0);
        kh_done(&h);
}
END_TEST

START_TEST(test_sparse_to_dense_scalar_index_later_wins) {
        kh_t h;
        kh_init(&h);
        int32_t idx = kh_tensor(&h, RT_TYPE_INT32, 1, I32(2), I32(1, 1));
        int32_t shape = kh_const(&h, RT_TYPE_INT32, 1, I32(1), I32(3));
        int32_t values = kh_tensor(&h, RT_TYPE_INT8, 1, I32(2), (const int8_t[]) { 4, -5 });
        int32_t def = kh_tensor(&h, RT_TYPE_INT8, 0, NULL, (const int8_t[]) { 9 });
        int32_t out = kh_tensor(&h, RT_TYPE_INT8, 0, NULL, NULL);
        ck_assert_int_eq(run(&h, idx, shape, values, def, out), 0);
        ck_assert_data(int8_t, &h.tensors[out], 3, 9, -5, 9);
        kh_done(&h);
}
END_TEST

START_TEST(test_sparse_to_dense_errors) {
        kh_t h;
        kh_init(&h);
        int32_t idx = kh_tensor(&h, RT_TYPE_INT32, 1, I32(2), I32(0, 3));
        int32_t shape = kh_const(&h, RT_TYPE_INT32, 1, I32(1), I32(3));
        int32_t values = kh_tensor(&h, RT_TYPE_FLOAT32, 1, I32(2), F32(1, 2));
        int32_t def = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, F32(0));
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_fails(&h, run(&h, idx, shape, values, def, out), -EINVAL, "index 3 out of range");
        int32_t values3 = kh_tensor(&h, RT_TYPE_FLOAT32, 1, I32(3), F32(1, 2, 3));
        ck_assert_fails(&h, run(&h, idx, shape, values3, def, out), -EINVAL, "3 values for 2 indices");
        int32_t idef = kh_tensor(&h, RT_TYPE_INT32, 0, NULL, I32(0));
        ck_assert_fails(&h, run(&h, idx, shape, values, idef, out), -EINVAL, "default value");
        kh_done(&h);
}
END_TEST

MISC_TEST_MAIN("sparse-to-dense", test_sparse_to_dense_2d_indices_float, test_sparse_to_dense_1d_scalar_value_int64,
               test_sparse_to_dense_scalar_index_later_wins, test_sparse_to_dense_errors)
