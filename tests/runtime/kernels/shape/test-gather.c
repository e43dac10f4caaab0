/* SPDX-License-Identifier: Apache-2.0 */
/* GATHER, GATHER_ND, EMBEDDING_LOOKUP. */
#include "shape-test.h"

static const float m32[6] = { 1, 2, 3, 4, 5, 6 };

START_TEST(test_gather_axis0) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 2, I32(3, 2), m32);
        int32_t idx = kh_tensor(&h, RT_TYPE_INT32, 1, I32(2), I32(2, 0));
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        shape_gather_params_t p = { 0 };
        ck_assert_int_eq(kh_run(&h, &rt_kernel_gather, &p, I32(in, idx), 2, I32(out), 1), 0);
        st_assert_dims(&h.tensors[out], 2, I32(2, 2));
        st_assert_f32(&h.tensors[out], 4, F32(5, 6, 1, 2));
        kh_done(&h);
}
END_TEST

START_TEST(test_gather_axis1_int64_indices) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 2, I32(2, 3), m32);
        int32_t idx = kh_tensor(&h, RT_TYPE_INT64, 2, I32(1, 2), (const int64_t[]){ 2, 0 });
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        shape_gather_params_t p = { .axis = -1 };
        ck_assert_int_eq(kh_run(&h, &rt_kernel_gather, &p, I32(in, idx), 2, I32(out), 1), 0);
        st_assert_dims(&h.tensors[out], 3, I32(2, 1, 2));
        st_assert_f32(&h.tensors[out], 4, F32(3, 1, 6, 4));
        kh_done(&h);
}
END_TEST

START_TEST(test_gather_batch_dims) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 2, I32(2, 3), m32);
        int32_t idx = kh_tensor(&h, RT_TYPE_INT32, 2, I32(2, 2), I32(2, 1, 0, 0));
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        shape_gather_params_t p = { .axis = 1, .batch_dims = 1 };
        ck_assert_int_eq(kh_run(&h, &rt_kernel_gather, &p, I32(in, idx), 2, I32(out), 1), 0);
        st_assert_dims(&h.tensors[out], 2, I32(2, 2));
        /* batch 0 picks 2, 1 of row 0; batch 1 picks 0, 0 of row 1 */
        st_assert_f32(&h.tensors[out], 4, F32(3, 2, 4, 4));
        kh_done(&h);
}
END_TEST

START_TEST(test_gather_index_out_of_range_einval) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 2, I32(3, 2), m32);
        int32_t idx = kh_tensor(&h, RT_TYPE_INT32, 1, I32(1), I32(3));
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_gather, NULL, I32(in, idx), 2, I32(out), 1), -EINVAL);
        kh_done(&h);
}
END_TEST

START_TEST(test_gather_bad_axis_einval) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 2, I32(3, 2), m32);
        int32_t idx = kh_tensor(&h, RT_TYPE_INT32, 1, I32(1), I32(0));
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        shape_gather_params_t p = { .axis = 2 };
        ck_assert_int_eq(kh_run(&h, &rt_kernel_gather, &p, I32(in, idx), 2, I32(out), 1), -EINVAL);
        kh_done(&h);
}
END_TEST

START_TEST(test_gather_nd_elements_and_rows) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_INT32, 2, I32(2, 2), I32(1, 2, 3, 4));
        int32_t idx = kh_tensor(&h, RT_TYPE_INT32, 2, I32(2, 2), I32(1, 0, 0, 1));
        int32_t out = kh_tensor(&h, RT_TYPE_INT32, 0, NULL, NULL);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_gather_nd, NULL, I32(in, idx), 2, I32(out), 1), 0);
        st_assert_dims(&h.tensors[out], 1, I32(2));
        st_assert_i32(&h.tensors[out], 2, I32(3, 2));
        kh_done(&h);

        kh_init(&h);
        in = kh_tensor(&h, RT_TYPE_INT32, 2, I32(2, 2), I32(1, 2, 3, 4));
        idx = kh_tensor(&h, RT_TYPE_INT64, 2, I32(1, 1), (const int64_t[]){ 1 });
        out = kh_tensor(&h, RT_TYPE_INT32, 0, NULL, NULL);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_gather_nd, NULL, I32(in, idx), 2, I32(out), 1), 0);
        st_assert_dims(&h.tensors[out], 2, I32(1, 2));
        st_assert_i32(&h.tensors[out], 2, I32(3, 4));
        kh_done(&h);
}
END_TEST

START_TEST(test_gather_nd_out_of_range_einval) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_INT32, 2, I32(2, 2), I32(1, 2, 3, 4));
        int32_t idx = kh_tensor(&h, RT_TYPE_INT32, 2, I32(1, 2), I32(0, 2));
        int32_t out = kh_tensor(&h, RT_TYPE_INT32, 0, NULL, NULL);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_gather_nd, NULL, I32(in, idx), 2, I32(out), 1), -EINVAL);
        kh_done(&h);
}
END_TEST

START_TEST(test_embedding_lookup_float) {
        kh_t h;
        kh_init(&h);
        int32_t ids = kh_tensor(&h, RT_TYPE_INT32, 1, I32(2), I32(2, 0));
        int32_t val = kh_const(&h, RT_TYPE_FLOAT32, 2, I32(3, 2), m32);
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_embedding_lookup, NULL, I32(ids, val), 2, I32(out), 1), 0);
        st_assert_dims(&h.tensors[out], 2, I32(2, 2));
        st_assert_f32(&h.tensors[out], 4, F32(5, 6, 1, 2));
        kh_done(&h);
}
END_TEST

START_TEST(test_embedding_lookup_hybrid_int8) {
        kh_t h;
        kh_init(&h);
        int32_t ids = kh_tensor(&h, RT_TYPE_INT32, 1, I32(1), I32(2));
        int32_t val = kh_const(&h, RT_TYPE_INT8, 2, I32(3, 2), (const int8_t[]){ 1, 2, 3, 4, 5, -6 });
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        kh_quant(&h, val, 0.5f, 0);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_embedding_lookup, NULL, I32(ids, val), 2, I32(out), 1), 0);
        st_assert_f32(&h.tensors[out], 2, F32(2.5f, -3.0f));
        kh_done(&h);
}
END_TEST

START_TEST(test_embedding_lookup_bad_id_einval) {
        kh_t h;
        kh_init(&h);
        int32_t ids = kh_tensor(&h, RT_TYPE_INT32, 1, I32(1), I32(-1));
        int32_t val = kh_const(&h, RT_TYPE_FLOAT32, 2, I32(3, 2), m32);
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_embedding_lookup, NULL, I32(ids, val), 2, I32(out), 1), -EINVAL);
        kh_done(&h);
}
END_TEST

ST_MAIN("shape-gather", test_gather_axis0, test_gather_axis1_int64_indices, test_gather_batch_dims,
        test_gather_index_out_of_range_einval, test_gather_bad_axis_einval, test_gather_nd_elements_and_rows,
        test_gather_nd_out_of_range_einval, test_embedding_lookup_float, test_embedding_lookup_hybrid_int8,
        test_embedding_lookup_bad_id_einval)
