/* SPDX-License-Identifier: Apache-2.0 */
/* SLICE and STRIDED_SLICE. */
#include "shape-test.h"

static const float m23[6] = { 1, 2, 3, 4, 5, 6 };

START_TEST(test_slice_minus_one_size) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 2, I32(2, 3), m23);
        int32_t b = kh_const(&h, RT_TYPE_INT64, 1, I32(2), (const int64_t[]){ 0, 1 });
        int32_t s = kh_const(&h, RT_TYPE_INT64, 1, I32(2), (const int64_t[]){ -1, 2 });
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_slice, NULL, I32(in, b, s), 3, I32(out), 1), 0);
        st_assert_dims(&h.tensors[out], 2, I32(2, 2));
        st_assert_f32(&h.tensors[out], 4, F32(2, 3, 5, 6));
        kh_done(&h);
}
END_TEST

START_TEST(test_slice_out_of_range_einval) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 2, I32(2, 3), m23);
        int32_t b = kh_const(&h, RT_TYPE_INT32, 1, I32(2), I32(0, 2));
        int32_t s = kh_const(&h, RT_TYPE_INT32, 1, I32(2), I32(1, 2));
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_slice, NULL, I32(in, b, s), 3, I32(out), 1), -EINVAL);
        kh_done(&h);
}
END_TEST

START_TEST(test_slice_dynamic_begin) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 2, I32(2, 3), m23);
        int32_t b = kh_tensor(&h, RT_TYPE_INT32, 1, I32(2), I32(1, 0));
        int32_t s = kh_const(&h, RT_TYPE_INT32, 1, I32(2), I32(1, 3));
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_int_eq(st_prepare_only(&h, &rt_kernel_slice, NULL, I32(in, b, s), 3, I32(out), 1), 0);
        ck_assert_int_eq(h.tensors[out].alloc, RT_ALLOC_DYNAMIC);
        ck_assert_int_eq(h.tensors[out].rank, 0);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_slice, NULL, I32(in, b, s), 3, I32(out), 1), 0);
        st_assert_dims(&h.tensors[out], 2, I32(1, 3));
        st_assert_f32(&h.tensors[out], 3, F32(4, 5, 6));
        kh_done(&h);
}
END_TEST

/* Runs a STRIDED_SLICE over a float input with const begin/end/strides. */
static int run_ss(kh_t *h, int32_t in, int32_t n, const int32_t *b, const int32_t *e, const int32_t *s,
                  shape_strided_slice_params_t *p, int32_t *ret_out) {
        int32_t tb = kh_const(h, RT_TYPE_INT32, 1, I32(n), b);
        int32_t te = kh_const(h, RT_TYPE_INT32, 1, I32(n), e);
        int32_t ts = kh_const(h, RT_TYPE_INT32, 1, I32(n), s);
        *ret_out = kh_tensor(h, h->tensors[in].type, 0, NULL, NULL);
        return kh_run(h, &rt_kernel_strided_slice, p, I32(in, tb, te, ts), 4, I32(*ret_out), 1);
}

START_TEST(test_strided_slice_negative_strides) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 2, I32(2, 3), m23), out;
        shape_strided_slice_params_t p = { 0 };
        ck_assert_int_eq(run_ss(&h, in, 2, I32(1, -1), I32(2, -4), I32(2, -1), &p, &out), 0);
        st_assert_dims(&h.tensors[out], 2, I32(1, 3));
        st_assert_f32(&h.tensors[out], 3, F32(6, 5, 4));
        kh_done(&h);
}
END_TEST

START_TEST(test_strided_slice_reverse_all_with_masks) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 1, I32(4), F32(1, 2, 3, 4)), out;
        /* [::-2] -> 4, 2 */
        shape_strided_slice_params_t p = { .begin_mask = 1, .end_mask = 1 };
        ck_assert_int_eq(run_ss(&h, in, 1, I32(0), I32(0), I32(-2), &p, &out), 0);
        st_assert_f32(&h.tensors[out], 2, F32(4, 2));
        kh_done(&h);
}
END_TEST

START_TEST(test_strided_slice_begin_mask) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 1, I32(4), F32(1, 2, 3, 4)), out;
        shape_strided_slice_params_t p = { .begin_mask = 1 };
        ck_assert_int_eq(run_ss(&h, in, 1, I32(1), I32(3), I32(1), &p, &out), 0);
        st_assert_f32(&h.tensors[out], 3, F32(1, 2, 3));
        kh_done(&h);
}
END_TEST

START_TEST(test_strided_slice_end_mask_clamps) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 1, I32(4), F32(1, 2, 3, 4)), out;
        shape_strided_slice_params_t p = { .end_mask = 1 };
        ck_assert_int_eq(run_ss(&h, in, 1, I32(-3), I32(0), I32(1), &p, &out), 0);
        st_assert_f32(&h.tensors[out], 3, F32(2, 3, 4));
        kh_done(&h);
}
END_TEST

START_TEST(test_strided_slice_shrink_axis) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 2, I32(2, 3), m23), out;
        shape_strided_slice_params_t p = { .shrink_axis_mask = 1 };
        ck_assert_int_eq(run_ss(&h, in, 2, I32(-1, 0), I32(0, 3), I32(1, 1), &p, &out), 0);
        st_assert_dims(&h.tensors[out], 1, I32(3));
        st_assert_f32(&h.tensors[out], 3, F32(4, 5, 6));
        kh_done(&h);
}
END_TEST

START_TEST(test_strided_slice_shrink_to_scalar_int32) {
        /* the dilated_conv pattern: SHAPE -> STRIDED_SLICE(shrink) -> scalar */
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_INT32, 1, I32(4), I32(1, 7, 9, 3)), out;
        shape_strided_slice_params_t p = { .shrink_axis_mask = 1 };
        ck_assert_int_eq(run_ss(&h, in, 1, I32(1), I32(2), I32(1), &p, &out), 0);
        ck_assert_int_eq(h.tensors[out].rank, 0);
        ck_assert_int_eq(((int32_t *) h.tensors[out].data)[0], 7);
        kh_done(&h);
}
END_TEST

START_TEST(test_strided_slice_ellipsis) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 3, I32(2, 2, 2), F32(1, 2, 3, 4, 5, 6, 7, 8)), out;
        /* [..., 1:2] */
        shape_strided_slice_params_t p = { .ellipsis_mask = 1 };
        ck_assert_int_eq(run_ss(&h, in, 2, I32(0, 1), I32(0, 2), I32(1, 1), &p, &out), 0);
        st_assert_dims(&h.tensors[out], 3, I32(2, 2, 1));
        st_assert_f32(&h.tensors[out], 4, F32(2, 4, 6, 8));
        kh_done(&h);
}
END_TEST

START_TEST(test_strided_slice_new_axis) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 1, I32(2), F32(1, 2)), out;
        /* [tf.newaxis, 0:2] */
        shape_strided_slice_params_t p = { .new_axis_mask = 1 };
        ck_assert_int_eq(run_ss(&h, in, 2, I32(0, 0), I32(1, 2), I32(1, 1), &p, &out), 0);
        st_assert_dims(&h.tensors[out], 2, I32(1, 2));
        st_assert_f32(&h.tensors[out], 2, F32(1, 2));
        kh_done(&h);
}
END_TEST

START_TEST(test_strided_slice_offset) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 1, I32(4), F32(1, 2, 3, 4)), out;
        /* offset: end is a length relative to begin */
        shape_strided_slice_params_t p = { .offset = true };
        ck_assert_int_eq(run_ss(&h, in, 1, I32(1), I32(2), I32(1), &p, &out), 0);
        st_assert_f32(&h.tensors[out], 2, F32(2, 3));
        kh_done(&h);
}
END_TEST

START_TEST(test_strided_slice_zero_stride_einval) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 1, I32(4), F32(1, 2, 3, 4)), out;
        shape_strided_slice_params_t p = { 0 };
        ck_assert_int_eq(run_ss(&h, in, 1, I32(0), I32(4), I32(0), &p, &out), -EINVAL);
        ck_assert_ptr_nonnull(strstr(h.error, "stride"));
        kh_done(&h);
}
END_TEST

START_TEST(test_strided_slice_dynamic_end) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_INT16, 1, I32(4), (const int16_t[]){ 10, 20, 30, 40 });
        int32_t b = kh_const(&h, RT_TYPE_INT32, 1, I32(1), I32(0));
        int32_t e = kh_tensor(&h, RT_TYPE_INT32, 1, I32(1), I32(3));
        int32_t s = kh_const(&h, RT_TYPE_INT32, 1, I32(1), I32(2));
        int32_t out = kh_tensor(&h, RT_TYPE_INT16, 0, NULL, NULL);
        ck_assert_int_eq(st_prepare_only(&h, &rt_kernel_strided_slice, NULL, I32(in, b, e, s), 4, I32(out), 1), 0);
        ck_assert_int_eq(h.tensors[out].alloc, RT_ALLOC_DYNAMIC);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_strided_slice, NULL, I32(in, b, e, s), 4, I32(out), 1), 0);
        st_assert_dims(&h.tensors[out], 1, I32(2));
        const int16_t *v = h.tensors[out].data;
        ck_assert(v[0] == 10 && v[1] == 30);
        kh_done(&h);
}
END_TEST

ST_MAIN("shape-slice", test_slice_minus_one_size, test_slice_out_of_range_einval, test_slice_dynamic_begin,
        test_strided_slice_negative_strides, test_strided_slice_reverse_all_with_masks, test_strided_slice_begin_mask,
        test_strided_slice_end_mask_clamps, test_strided_slice_shrink_axis, test_strided_slice_shrink_to_scalar_int32,
        test_strided_slice_ellipsis, test_strided_slice_new_axis, test_strided_slice_offset,
        test_strided_slice_zero_stride_einval, test_strided_slice_dynamic_end)
