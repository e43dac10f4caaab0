/* SPDX-License-Identifier: Apache-2.0 */
/* CONCATENATION, PACK, UNPACK, SPLIT, SPLIT_V. */
#include "shape-test.h"

START_TEST(test_concat_axis1_float) {
        kh_t h;
        kh_init(&h);
        int32_t a = kh_tensor(&h, RT_TYPE_FLOAT32, 2, I32(2, 1), F32(1, 2));
        int32_t b = kh_tensor(&h, RT_TYPE_FLOAT32, 2, I32(2, 2), F32(3, 4, 5, 6));
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        shape_concat_params_t p = { .axis = 1 };
        ck_assert_int_eq(kh_run(&h, &rt_kernel_concatenation, &p, I32(a, b), 2, I32(out), 1), 0);
        st_assert_dims(&h.tensors[out], 2, I32(2, 3));
        st_assert_f32(&h.tensors[out], 6, F32(1, 3, 4, 2, 5, 6));
        kh_done(&h);
}
END_TEST

START_TEST(test_concat_negative_axis_int64) {
        kh_t h;
        kh_init(&h);
        int32_t a = kh_tensor(&h, RT_TYPE_INT64, 2, I32(1, 2), (const int64_t[]){ 1, 2 });
        int32_t b = kh_tensor(&h, RT_TYPE_INT64, 2, I32(1, 1), (const int64_t[]){ INT64_MIN });
        int32_t out = kh_tensor(&h, RT_TYPE_INT64, 0, NULL, NULL);
        shape_concat_params_t p = { .axis = -1 };
        ck_assert_int_eq(kh_run(&h, &rt_kernel_concatenation, &p, I32(a, b), 2, I32(out), 1), 0);
        st_assert_dims(&h.tensors[out], 2, I32(1, 3));
        const int64_t *v = h.tensors[out].data;
        ck_assert(v[0] == 1 && v[1] == 2 && v[2] == INT64_MIN);
        kh_done(&h);
}
END_TEST

START_TEST(test_concat_uint8_requantizes) {
        kh_t h;
        kh_init(&h);
        /* input 0: scale 0.5, zp 10 -> output scale 1, zp 5: q' = round(q*0.5 - 5) + 5 */
        int32_t a = kh_tensor(&h, RT_TYPE_UINT8, 1, I32(3), (const uint8_t[]){ 20, 11, 0 });
        int32_t b = kh_tensor(&h, RT_TYPE_UINT8, 1, I32(1), (const uint8_t[]){ 200 });
        int32_t out = kh_tensor(&h, RT_TYPE_UINT8, 0, NULL, NULL);
        kh_quant(&h, a, 0.5f, 10);
        kh_quant(&h, b, 1.0f, 5);
        kh_quant(&h, out, 1.0f, 5);
        shape_concat_params_t p = { .axis = 0 };
        ck_assert_int_eq(kh_run(&h, &rt_kernel_concatenation, &p, I32(a, b), 2, I32(out), 1), 0);
        const uint8_t *v = h.tensors[out].data;
        ck_assert_int_eq(v[0], 10);   /* 10 - 5 = 5  -> 10 */
        ck_assert_int_eq(v[1], 6);    /* 0.5 rounds away from zero -> 1 + 5 */
        ck_assert_int_eq(v[2], 0);    /* -5 + 5 */
        ck_assert_int_eq(v[3], 200);  /* same params: copied */
        kh_done(&h);
}
END_TEST

START_TEST(test_concat_int8_requantize_clamps) {
        kh_t h;
        kh_init(&h);
        int32_t a = kh_tensor(&h, RT_TYPE_INT8, 1, I32(2), (const int8_t[]){ 127, -128 });
        int32_t out = kh_tensor(&h, RT_TYPE_INT8, 0, NULL, NULL);
        kh_quant(&h, a, 2.0f, 0);
        kh_quant(&h, out, 1.0f, 0);
        shape_concat_params_t p = { .axis = 0 };
        ck_assert_int_eq(kh_run(&h, &rt_kernel_concatenation, &p, I32(a), 1, I32(out), 1), 0);
        const int8_t *v = h.tensors[out].data;
        ck_assert_int_eq(v[0], 127);
        ck_assert_int_eq(v[1], -128);
        kh_done(&h);
}
END_TEST

/* int16 is concatenated raw, as TensorFlow Lite 2.9 does, even where the
 * input's scale differs from the output's (requantizing 1000 at scale 0.5
 * to scale 1 would give 500). */
START_TEST(test_concat_int16_copies_raw) {
        kh_t h;
        kh_init(&h);
        int32_t a = kh_tensor(&h, RT_TYPE_INT16, 1, I32(2), (const int16_t[]){ 1000, -32768 });
        int32_t b = kh_tensor(&h, RT_TYPE_INT16, 1, I32(1), (const int16_t[]){ 7 });
        int32_t out = kh_tensor(&h, RT_TYPE_INT16, 0, NULL, NULL);
        kh_quant(&h, a, 0.5f, 0);
        kh_quant(&h, b, 4.0f, 0);
        kh_quant(&h, out, 1.0f, 0);
        shape_concat_params_t p = { .axis = 0 };
        ck_assert_int_eq(kh_run(&h, &rt_kernel_concatenation, &p, I32(a, b), 2, I32(out), 1), 0);
        const int16_t *v = h.tensors[out].data;
        ck_assert_int_eq(v[0], 1000);
        ck_assert_int_eq(v[1], -32768);
        ck_assert_int_eq(v[2], 7);
        kh_done(&h);
}
END_TEST

START_TEST(test_concat_relu6_float) {
        kh_t h;
        kh_init(&h);
        int32_t a = kh_tensor(&h, RT_TYPE_FLOAT32, 1, I32(2), F32(-1, 7));
        int32_t b = kh_tensor(&h, RT_TYPE_FLOAT32, 1, I32(1), F32(3));
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        shape_concat_params_t p = { .axis = 0, .activation = RT_ACT_RELU6 };
        ck_assert_int_eq(kh_run(&h, &rt_kernel_concatenation, &p, I32(a, b), 2, I32(out), 1), 0);
        st_assert_f32(&h.tensors[out], 3, F32(0, 6, 3));
        kh_done(&h);
}
END_TEST

START_TEST(test_concat_bad_axis_einval) {
        kh_t h;
        kh_init(&h);
        int32_t a = kh_tensor(&h, RT_TYPE_FLOAT32, 1, I32(2), F32(1, 2));
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        shape_concat_params_t p = { .axis = 1 };
        ck_assert_int_eq(kh_run(&h, &rt_kernel_concatenation, &p, I32(a, a), 2, I32(out), 1), -EINVAL);
        kh_done(&h);
}
END_TEST

START_TEST(test_concat_mismatched_dims_einval) {
        kh_t h;
        kh_init(&h);
        int32_t a = kh_tensor(&h, RT_TYPE_FLOAT32, 2, I32(2, 1), F32(1, 2));
        int32_t b = kh_tensor(&h, RT_TYPE_FLOAT32, 2, I32(3, 1), F32(1, 2, 3));
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        shape_concat_params_t p = { .axis = 1 };
        ck_assert_int_eq(kh_run(&h, &rt_kernel_concatenation, &p, I32(a, b), 2, I32(out), 1), -EINVAL);
        kh_done(&h);
}
END_TEST

START_TEST(test_pack_axis1) {
        kh_t h;
        kh_init(&h);
        int32_t a = kh_tensor(&h, RT_TYPE_INT32, 1, I32(2), I32(1, 2));
        int32_t b = kh_tensor(&h, RT_TYPE_INT32, 1, I32(2), I32(3, 4));
        int32_t out = kh_tensor(&h, RT_TYPE_INT32, 0, NULL, NULL);
        shape_pack_params_t p = { .count = 2, .axis = 1 };
        ck_assert_int_eq(kh_run(&h, &rt_kernel_pack, &p, I32(a, b), 2, I32(out), 1), 0);
        st_assert_dims(&h.tensors[out], 2, I32(2, 2));
        st_assert_i32(&h.tensors[out], 4, I32(1, 3, 2, 4));
        kh_done(&h);
}
END_TEST

START_TEST(test_pack_scalars) {
        kh_t h;
        kh_init(&h);
        int32_t a = kh_tensor(&h, RT_TYPE_INT32, 0, NULL, I32(5));
        int32_t b = kh_tensor(&h, RT_TYPE_INT32, 0, NULL, I32(6));
        int32_t out = kh_tensor(&h, RT_TYPE_INT32, 0, NULL, NULL);
        shape_pack_params_t p = { .count = 2, .axis = 0 };
        ck_assert_int_eq(kh_run(&h, &rt_kernel_pack, &p, I32(a, b), 2, I32(out), 1), 0);
        st_assert_dims(&h.tensors[out], 1, I32(2));
        st_assert_i32(&h.tensors[out], 2, I32(5, 6));
        kh_done(&h);
}
END_TEST

START_TEST(test_unpack_axis1) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 2, I32(2, 3), F32(1, 2, 3, 4, 5, 6));
        int32_t o0 = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        int32_t o1 = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        int32_t o2 = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        shape_pack_params_t p = { .count = 3, .axis = -1 };
        ck_assert_int_eq(kh_run(&h, &rt_kernel_unpack, &p, I32(in), 1, I32(o0, o1, o2), 3), 0);
        st_assert_dims(&h.tensors[o1], 1, I32(2));
        st_assert_f32(&h.tensors[o0], 2, F32(1, 4));
        st_assert_f32(&h.tensors[o1], 2, F32(2, 5));
        st_assert_f32(&h.tensors[o2], 2, F32(3, 6));
        kh_done(&h);
}
END_TEST

START_TEST(test_split_axis1) {
        kh_t h;
        kh_init(&h);
        int32_t ax = kh_const(&h, RT_TYPE_INT32, 0, NULL, I32(1));
        int32_t in = kh_tensor(&h, RT_TYPE_INT16, 2, I32(2, 4), (const int16_t[]){ 1, 2, 3, 4, 5, 6, 7, 8 });
        int32_t o0 = kh_tensor(&h, RT_TYPE_INT16, 0, NULL, NULL);
        int32_t o1 = kh_tensor(&h, RT_TYPE_INT16, 0, NULL, NULL);
        shape_split_params_t p = { 2 };
        ck_assert_int_eq(kh_run(&h, &rt_kernel_split, &p, I32(ax, in), 2, I32(o0, o1), 2), 0);
        st_assert_dims(&h.tensors[o0], 2, I32(2, 2));
        const int16_t *v0 = h.tensors[o0].data, *v1 = h.tensors[o1].data;
        ck_assert(v0[0] == 1 && v0[1] == 2 && v0[2] == 5 && v0[3] == 6);
        ck_assert(v1[0] == 3 && v1[1] == 4 && v1[2] == 7 && v1[3] == 8);
        kh_done(&h);
}
END_TEST

START_TEST(test_split_dynamic_axis) {
        kh_t h;
        kh_init(&h);
        int32_t ax = kh_tensor(&h, RT_TYPE_INT32, 0, NULL, I32(0));
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 1, I32(4), F32(1, 2, 3, 4));
        int32_t o0 = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        int32_t o1 = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        shape_split_params_t p = { 2 };
        ck_assert_int_eq(st_prepare_only(&h, &rt_kernel_split, &p, I32(ax, in), 2, I32(o0, o1), 2), 0);
        ck_assert_int_eq(h.tensors[o0].alloc, RT_ALLOC_DYNAMIC);
        ck_assert_int_eq(h.tensors[o1].alloc, RT_ALLOC_DYNAMIC);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_split, &p, I32(ax, in), 2, I32(o0, o1), 2), 0);
        st_assert_f32(&h.tensors[o0], 2, F32(1, 2));
        st_assert_f32(&h.tensors[o1], 2, F32(3, 4));
        kh_done(&h);
}
END_TEST

START_TEST(test_split_not_divisible_einval) {
        kh_t h;
        kh_init(&h);
        int32_t ax = kh_const(&h, RT_TYPE_INT32, 0, NULL, I32(0));
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 1, I32(3), F32(1, 2, 3));
        int32_t o0 = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        int32_t o1 = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        shape_split_params_t p = { 2 };
        ck_assert_int_eq(kh_run(&h, &rt_kernel_split, &p, I32(ax, in), 2, I32(o0, o1), 2), -EINVAL);
        kh_done(&h);
}
END_TEST

START_TEST(test_split_v_minus_one) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 1, I32(5), F32(1, 2, 3, 4, 5));
        int32_t sz = kh_const(&h, RT_TYPE_INT32, 1, I32(2), I32(2, -1));
        int32_t ax = kh_const(&h, RT_TYPE_INT32, 0, NULL, I32(-1));
        int32_t o0 = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        int32_t o1 = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        shape_split_params_t p = { 2 };
        ck_assert_int_eq(kh_run(&h, &rt_kernel_split_v, &p, I32(in, sz, ax), 3, I32(o0, o1), 2), 0);
        st_assert_dims(&h.tensors[o1], 1, I32(3));
        st_assert_f32(&h.tensors[o0], 2, F32(1, 2));
        st_assert_f32(&h.tensors[o1], 3, F32(3, 4, 5));
        kh_done(&h);
}
END_TEST

START_TEST(test_split_v_bad_sum_einval) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 1, I32(5), F32(1, 2, 3, 4, 5));
        int32_t sz = kh_const(&h, RT_TYPE_INT32, 1, I32(2), I32(2, 2));
        int32_t ax = kh_const(&h, RT_TYPE_INT32, 0, NULL, I32(0));
        int32_t o0 = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        int32_t o1 = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_split_v, NULL, I32(in, sz, ax), 3, I32(o0, o1), 2), -EINVAL);
        kh_done(&h);
}
END_TEST

ST_MAIN("shape-concat", test_concat_axis1_float, test_concat_negative_axis_int64, test_concat_uint8_requantizes,
        test_concat_int8_requantize_clamps, test_concat_int16_copies_raw, test_concat_relu6_float,
        test_concat_bad_axis_einval,
        test_concat_mismatched_dims_einval, test_pack_axis1, test_pack_scalars, test_unpack_axis1, test_split_axis1,
        test_split_dynamic_axis, test_split_not_divisible_einval, test_split_v_minus_one, test_split_v_bad_sum_einval)
