/* SPDX-License-Identifier: Apache-2.0 */
/* PAD, PADV2, MIRROR_PAD. */
#include "shape-test.h"

START_TEST(test_pad_float_zeros) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 2, I32(1, 2), F32(1, 2));
        int32_t pads = kh_const(&h, RT_TYPE_INT32, 2, I32(2, 2), I32(0, 1, 1, 2));
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_pad, NULL, I32(in, pads), 2, I32(out), 1), 0);
        st_assert_dims(&h.tensors[out], 2, I32(2, 5));
        st_assert_f32(&h.tensors[out], 10, F32(0, 1, 2, 0, 0, 0, 0, 0, 0, 0));
        kh_done(&h);
}
END_TEST

START_TEST(test_pad_uint8_uses_zero_point) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_UINT8, 1, I32(2), (const uint8_t[]){ 1, 2 });
        int32_t pads = kh_const(&h, RT_TYPE_INT64, 2, I32(1, 2), (const int64_t[]){ 1, 1 });
        int32_t out = kh_tensor(&h, RT_TYPE_UINT8, 0, NULL, NULL);
        kh_quant(&h, in, 0.5f, 7);
        kh_quant(&h, out, 0.5f, 7);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_pad, NULL, I32(in, pads), 2, I32(out), 1), 0);
        ck_assert_mem_eq(h.tensors[out].data, ((const uint8_t[]){ 7, 1, 2, 7 }), 4);
        kh_done(&h);
}
END_TEST

START_TEST(test_pad_int16_zero_point) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_INT16, 1, I32(1), (const int16_t[]){ -300 });
        int32_t pads = kh_const(&h, RT_TYPE_INT32, 2, I32(1, 2), I32(2, 0));
        int32_t out = kh_tensor(&h, RT_TYPE_INT16, 0, NULL, NULL);
        kh_quant(&h, in, 0.25f, 0);
        kh_quant(&h, out, 0.25f, 0);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_pad, NULL, I32(in, pads), 2, I32(out), 1), 0);
        const int16_t *v = h.tensors[out].data;
        ck_assert(v[0] == 0 && v[1] == 0 && v[2] == -300);
        kh_done(&h);
}
END_TEST

START_TEST(test_padv2_constant) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 2, I32(1, 1), F32(5));
        int32_t pads = kh_const(&h, RT_TYPE_INT32, 2, I32(2, 2), I32(1, 0, 0, 1));
        int32_t cv = kh_const(&h, RT_TYPE_FLOAT32, 0, NULL, F32(-9));
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_padv2, NULL, I32(in, pads, cv), 3, I32(out), 1), 0);
        st_assert_dims(&h.tensors[out], 2, I32(2, 2));
        st_assert_f32(&h.tensors[out], 4, F32(-9, -9, 5, -9));
        kh_done(&h);
}
END_TEST

START_TEST(test_pad_negative_einval) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 1, I32(2), F32(1, 2));
        int32_t pads = kh_const(&h, RT_TYPE_INT32, 2, I32(1, 2), I32(-1, 0));
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_pad, NULL, I32(in, pads), 2, I32(out), 1), -EINVAL);
        kh_done(&h);
}
END_TEST

START_TEST(test_pad_wrong_paddings_shape_einval) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 2, I32(1, 2), F32(1, 2));
        int32_t pads = kh_const(&h, RT_TYPE_INT32, 2, I32(1, 2), I32(1, 1));
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_pad, NULL, I32(in, pads), 2, I32(out), 1), -EINVAL);
        kh_done(&h);
}
END_TEST

START_TEST(test_pad_dynamic_paddings) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 1, I32(2), F32(1, 2));
        int32_t pads = kh_tensor(&h, RT_TYPE_INT32, 2, I32(1, 2), I32(0, 2));
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_int_eq(st_prepare_only(&h, &rt_kernel_pad, NULL, I32(in, pads), 2, I32(out), 1), 0);
        ck_assert_int_eq(h.tensors[out].alloc, RT_ALLOC_DYNAMIC);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_pad, NULL, I32(in, pads), 2, I32(out), 1), 0);
        st_assert_f32(&h.tensors[out], 4, F32(1, 2, 0, 0));
        kh_done(&h);
}
END_TEST

START_TEST(test_mirror_pad_reflect) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 1, I32(3), F32(1, 2, 3));
        int32_t pads = kh_const(&h, RT_TYPE_INT32, 2, I32(1, 2), I32(2, 2));
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        shape_mirror_pad_params_t p = { SHAPE_MIRROR_REFLECT };
        ck_assert_int_eq(kh_run(&h, &rt_kernel_mirror_pad, &p, I32(in, pads), 2, I32(out), 1), 0);
        st_assert_f32(&h.tensors[out], 7, F32(3, 2, 1, 2, 3, 2, 1));
        kh_done(&h);
}
END_TEST

START_TEST(test_mirror_pad_symmetric) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 1, I32(3), F32(1, 2, 3));
        int32_t pads = kh_const(&h, RT_TYPE_INT32, 2, I32(1, 2), I32(2, 3));
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        shape_mirror_pad_params_t p = { SHAPE_MIRROR_SYMMETRIC };
        ck_assert_int_eq(kh_run(&h, &rt_kernel_mirror_pad, &p, I32(in, pads), 2, I32(out), 1), 0);
        st_assert_f32(&h.tensors[out], 8, F32(2, 1, 1, 2, 3, 3, 2, 1));
        kh_done(&h);
}
END_TEST

START_TEST(test_mirror_pad_reflect_2d) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_INT8, 2, I32(2, 2), (const int8_t[]){ 1, 2, 3, 4 });
        int32_t pads = kh_const(&h, RT_TYPE_INT32, 2, I32(2, 2), I32(1, 0, 0, 1));
        int32_t out = kh_tensor(&h, RT_TYPE_INT8, 0, NULL, NULL);
        shape_mirror_pad_params_t p = { SHAPE_MIRROR_REFLECT };
        ck_assert_int_eq(kh_run(&h, &rt_kernel_mirror_pad, &p, I32(in, pads), 2, I32(out), 1), 0);
        st_assert_dims(&h.tensors[out], 2, I32(3, 3));
        ck_assert_mem_eq(h.tensors[out].data, ((const int8_t[]){ 3, 4, 3, 1, 2, 1, 3, 4, 3 }), 9);
        kh_done(&h);
}
END_TEST

START_TEST(test_mirror_pad_too_large_einval) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 1, I32(3), F32(1, 2, 3));
        int32_t pads = kh_const(&h, RT_TYPE_INT32, 2, I32(1, 2), I32(3, 0));
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        shape_mirror_pad_params_t p = { SHAPE_MIRROR_REFLECT };
        ck_assert_int_eq(kh_run(&h, &rt_kernel_mirror_pad, &p, I32(in, pads), 2, I32(out), 1), -EINVAL);
        kh_done(&h);
}
END_TEST

ST_MAIN("shape-pad", test_pad_float_zeros, test_pad_uint8_uses_zero_point, test_pad_int16_zero_point,
        test_padv2_constant, test_pad_negative_einval, test_pad_wrong_paddings_shape_einval, test_pad_dynamic_paddings,
        test_mirror_pad_reflect, test_mirror_pad_symmetric, test_mirror_pad_reflect_2d,
        test_mirror_pad_too_large_einval)
