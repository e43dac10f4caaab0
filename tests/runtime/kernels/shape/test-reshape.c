/* SPDX-License-Identifier: Apache-2.0 */
/* RESHAPE, SQUEEZE, EXPAND_DIMS, SHAPE. */
#include "shape-test.h"

static const float six[6] = { 0, 1, 2, 3, 4, 5 };

START_TEST(test_reshape_shape_input_infers_minus_one) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 2, I32(2, 3), six);
        int32_t s = kh_const(&h, RT_TYPE_INT32, 1, I32(2), I32(3, -1));
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_reshape, NULL, I32(in, s), 2, I32(out), 1), 0);
        st_assert_dims(&h.tensors[out], 2, I32(3, 2));
        st_assert_f32(&h.tensors[out], 6, six);
        kh_done(&h);
}
END_TEST

START_TEST(test_reshape_params_new_shape) {
        kh_t h;
        kh_init(&h);
        shape_reshape_params_t p = { .rank = 3, .dims = { 1, 6, 1 } };
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 2, I32(2, 3), six);
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_reshape, &p, I32(in), 1, I32(out), 1), 0);
        st_assert_dims(&h.tensors[out], 3, I32(1, 6, 1));
        st_assert_f32(&h.tensors[out], 6, six);
        kh_done(&h);
}
END_TEST

START_TEST(test_reshape_legacy_scalar_new_shape) {
        kh_t h;
        kh_init(&h);
        shape_reshape_params_t p = { .rank = 1, .dims = { 0 } };
        int32_t in = kh_tensor(&h, RT_TYPE_INT32, 1, I32(1), I32(42));
        int32_t out = kh_tensor(&h, RT_TYPE_INT32, 1, I32(1), NULL);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_reshape, &p, I32(in), 1, I32(out), 1), 0);
        ck_assert_int_eq(h.tensors[out].rank, 0);
        ck_assert_int_eq(((int32_t *) h.tensors[out].data)[0], 42);
        kh_done(&h);
}
END_TEST

START_TEST(test_reshape_two_minus_one_einval) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 2, I32(2, 3), six);
        int32_t s = kh_const(&h, RT_TYPE_INT32, 1, I32(2), I32(-1, -1));
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_reshape, NULL, I32(in, s), 2, I32(out), 1), -EINVAL);
        ck_assert_ptr_nonnull(strstr(h.error, "-1"));
        kh_done(&h);
}
END_TEST

START_TEST(test_reshape_mismatched_count_einval) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 2, I32(2, 3), six);
        int32_t s = kh_const(&h, RT_TYPE_INT32, 1, I32(2), I32(4, 2));
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_reshape, NULL, I32(in, s), 2, I32(out), 1), -EINVAL);
        kh_done(&h);
}
END_TEST

START_TEST(test_reshape_dynamic_shape_input) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 2, I32(2, 3), six);
        int32_t s = kh_tensor(&h, RT_TYPE_INT32, 1, I32(3), I32(-1, 1, 2));
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        /* prepare alone marks the output dynamic and leaves its shape alone */
        ck_assert_int_eq(st_prepare_only(&h, &rt_kernel_reshape, NULL, I32(in, s), 2, I32(out), 1), 0);
        ck_assert_int_eq(h.tensors[out].alloc, RT_ALLOC_DYNAMIC);
        ck_assert_int_eq(h.tensors[out].rank, 0);
        ck_assert_ptr_null(h.tensors[out].data);
        /* invoke sizes it from the values seen at run time */
        ck_assert_int_eq(kh_run(&h, &rt_kernel_reshape, NULL, I32(in, s), 2, I32(out), 1), 0);
        st_assert_dims(&h.tensors[out], 3, I32(3, 1, 2));
        st_assert_f32(&h.tensors[out], 6, six);
        kh_done(&h);
}
END_TEST

START_TEST(test_reshape_string_copies_buffer) {
        /* TFLite's serialized layout: count 2, offsets 16, 18, 21, "hi", "abc" */
        uint8_t buf[21];
        int32_t head[4] = { 2, 16, 18, 21 };
        memcpy(buf, head, sizeof(head));
        memcpy(buf + 16, "hiabc", 5);
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_STRING, 2, I32(1, 2), NULL);
        h.tensors[in].data = buf;
        h.tensors[in].bytes = sizeof(buf);
        int32_t s = kh_const(&h, RT_TYPE_INT32, 1, I32(1), I32(2));
        int32_t out = kh_tensor(&h, RT_TYPE_STRING, 0, NULL, NULL);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_reshape, NULL, I32(in, s), 2, I32(out), 1), 0);
        st_assert_dims(&h.tensors[out], 1, I32(2));
        ck_assert_uint_eq(h.tensors[out].bytes, sizeof(buf));
        ck_assert_mem_eq(h.tensors[out].data, buf, sizeof(buf));
        free(h.tensors[out].data);  /* string buffers are not the harness's */
        h.tensors[in].data = NULL;
        kh_done(&h);
}
END_TEST

START_TEST(test_squeeze_all_ones) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 4, I32(1, 2, 1, 3), six);
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        shape_squeeze_params_t p = { 0 };
        ck_assert_int_eq(kh_run(&h, &rt_kernel_squeeze, &p, I32(in), 1, I32(out), 1), 0);
        st_assert_dims(&h.tensors[out], 2, I32(2, 3));
        st_assert_f32(&h.tensors[out], 6, six);
        kh_done(&h);
}
END_TEST

START_TEST(test_squeeze_negative_dim) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 4, I32(1, 2, 1, 3), six);
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        shape_squeeze_params_t p = { .n = 1, .dims = { -2 } };
        ck_assert_int_eq(kh_run(&h, &rt_kernel_squeeze, &p, I32(in), 1, I32(out), 1), 0);
        st_assert_dims(&h.tensors[out], 3, I32(1, 2, 3));
        kh_done(&h);
}
END_TEST

START_TEST(test_squeeze_non_one_dim_einval) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 4, I32(1, 2, 1, 3), six);
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        shape_squeeze_params_t p = { .n = 1, .dims = { 1 } };
        ck_assert_int_eq(kh_run(&h, &rt_kernel_squeeze, &p, I32(in), 1, I32(out), 1), -EINVAL);
        kh_done(&h);
}
END_TEST

START_TEST(test_expand_dims_negative_axis) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 2, I32(2, 3), six);
        int32_t ax = kh_const(&h, RT_TYPE_INT64, 0, NULL, (const int64_t[]){ -1 });
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_expand_dims, NULL, I32(in, ax), 2, I32(out), 1), 0);
        st_assert_dims(&h.tensors[out], 3, I32(2, 3, 1));
        st_assert_f32(&h.tensors[out], 6, six);
        kh_done(&h);
}
END_TEST

START_TEST(test_expand_dims_bad_axis_einval) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 2, I32(2, 3), six);
        int32_t ax = kh_const(&h, RT_TYPE_INT32, 0, NULL, I32(3));
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_expand_dims, NULL, I32(in, ax), 2, I32(out), 1), -EINVAL);
        kh_done(&h);
}
END_TEST

START_TEST(test_expand_dims_string) {
        uint8_t buf[13];
        int32_t head[3] = { 1, 12, 13 };
        memcpy(buf, head, sizeof(head));
        buf[12] = 'x';
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_STRING, 1, I32(1), NULL);
        h.tensors[in].data = buf;
        h.tensors[in].bytes = sizeof(buf);
        int32_t ax = kh_const(&h, RT_TYPE_INT32, 0, NULL, I32(0));
        int32_t out = kh_tensor(&h, RT_TYPE_STRING, 0, NULL, NULL);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_expand_dims, NULL, I32(in, ax), 2, I32(out), 1), 0);
        st_assert_dims(&h.tensors[out], 2, I32(1, 1));
        ck_assert_uint_eq(h.tensors[out].bytes, sizeof(buf));
        ck_assert_mem_eq(h.tensors[out].data, buf, sizeof(buf));
        free(h.tensors[out].data);
        h.tensors[in].data = NULL;
        kh_done(&h);
}
END_TEST

START_TEST(test_shape_int64_output) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 3, I32(1, 2, 3), six);
        int32_t out = kh_tensor(&h, RT_TYPE_INT64, 0, NULL, NULL);
        shape_shape_params_t p = { RT_TYPE_INT64 };
        ck_assert_int_eq(kh_run(&h, &rt_kernel_shape, &p, I32(in), 1, I32(out), 1), 0);
        st_assert_dims(&h.tensors[out], 1, I32(3));
        const int64_t *v = h.tensors[out].data;
        ck_assert_int_eq(v[0], 1);
        ck_assert_int_eq(v[1], 2);
        ck_assert_int_eq(v[2], 3);
        kh_done(&h);
}
END_TEST

START_TEST(test_shape_float_output_einval) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 3, I32(1, 2, 3), six);
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_shape, NULL, I32(in), 1, I32(out), 1), -EINVAL);
        kh_done(&h);
}
END_TEST

ST_MAIN("shape-reshape", test_reshape_shape_input_infers_minus_one, test_reshape_params_new_shape,
        test_reshape_legacy_scalar_new_shape, test_reshape_two_minus_one_einval, test_reshape_mismatched_count_einval,
        test_reshape_dynamic_shape_input, test_reshape_string_copies_buffer, test_squeeze_all_ones,
        test_squeeze_negative_dim, test_squeeze_non_one_dim_einval, test_expand_dims_negative_axis,
        test_expand_dims_bad_axis_einval, test_expand_dims_string, test_shape_int64_output,
        test_shape_float_output_einval)
