/* SPDX-License-Identifier: Apache-2.0 */
/* RESIZE_BILINEAR and RESIZE_NEAREST_NEIGHBOR. */
#include "shape-test.h"

static int run_resize(kh_t *h, const rt_registration_t *reg, int32_t in, int32_t oh, int32_t ow,
                      shape_resize_params_t *p, int32_t *ret_out) {
        int32_t size = kh_const(h, RT_TYPE_INT32, 1, I32(2), I32(oh, ow));
        *ret_out = kh_tensor(h, h->tensors[in].type, 0, NULL, NULL);
        if (h->tensors[in].quant.n)
                kh_quant(h, *ret_out, h->tensors[in].scale, h->tensors[in].zero_point);
        return kh_run(h, reg, p, I32(in, size), 2, I32(*ret_out), 1);
}

START_TEST(test_resize_bilinear_float_2x) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 4, I32(1, 2, 2, 1), F32(1, 2, 3, 4)), out;
        shape_resize_params_t p = { 0 };
        ck_assert_int_eq(run_resize(&h, &rt_kernel_resize_bilinear, in, 4, 4, &p, &out), 0);
        st_assert_dims(&h.tensors[out], 4, I32(1, 4, 4, 1));
        st_assert_f32(&h.tensors[out], 16, F32(1, 1.5f, 2, 2, 2, 2.5f, 3, 3, 3, 3.5f, 4, 4, 3, 3.5f, 4, 4));
        kh_done(&h);
}
END_TEST

START_TEST(test_resize_bilinear_float_generic) {
        kh_t h;
        kh_init(&h);
        /* 2 -> 3 without flags: scale 2/3, positions 0, 2/3, 4/3 */
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 4, I32(1, 1, 2, 1), F32(0, 3)), out;
        shape_resize_params_t p = { 0 };
        ck_assert_int_eq(run_resize(&h, &rt_kernel_resize_bilinear, in, 1, 3, &p, &out), 0);
        st_assert_f32_tol(&h.tensors[out], 3, F32(0, 2, 3), 1e-6f);
        kh_done(&h);
}
END_TEST

START_TEST(test_resize_bilinear_float_align_corners) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 4, I32(1, 2, 2, 1), F32(1, 2, 3, 4)), out;
        shape_resize_params_t p = { .align_corners = true };
        ck_assert_int_eq(run_resize(&h, &rt_kernel_resize_bilinear, in, 3, 3, &p, &out), 0);
        st_assert_f32(&h.tensors[out], 9, F32(1, 1.5f, 2, 2, 2.5f, 3, 3, 3.5f, 4));
        kh_done(&h);
}
END_TEST

START_TEST(test_resize_bilinear_float_half_pixel) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 4, I32(1, 2, 2, 1), F32(1, 2, 3, 4)), out;
        shape_resize_params_t p = { .half_pixel_centers = true };
        ck_assert_int_eq(run_resize(&h, &rt_kernel_resize_bilinear, in, 3, 3, &p, &out), 0);
        st_assert_f32_tol(&h.tensors[out], 9, F32(1, 1.5f, 2, 2, 2.5f, 3, 3, 3.5f, 4), 1e-6f);
        kh_done(&h);
}
END_TEST

START_TEST(test_resize_bilinear_uint8) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_UINT8, 4, I32(1, 2, 2, 1), (const uint8_t[]){ 0, 10, 20, 30 }), out;
        kh_quant(&h, in, 1.0f, 0);
        shape_resize_params_t p = { 0 };
        ck_assert_int_eq(run_resize(&h, &rt_kernel_resize_bilinear, in, 4, 4, &p, &out), 0);
        ck_assert_mem_eq(h.tensors[out].data,
                         ((const uint8_t[]){ 0, 5, 10, 10, 10, 15, 20, 20, 20, 25, 30, 30, 20, 25, 30, 30 }), 16);
        kh_done(&h);
}
END_TEST

START_TEST(test_resize_bilinear_uint8_align_corners_rounds) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_UINT8, 4, I32(1, 1, 2, 1), (const uint8_t[]){ 0, 11 }), out;
        kh_quant(&h, in, 1.0f, 0);
        shape_resize_params_t p = { .align_corners = true };
        ck_assert_int_eq(run_resize(&h, &rt_kernel_resize_bilinear, in, 1, 3, &p, &out), 0);
        /* 5.5 + 0.5 truncates to 6 */
        ck_assert_mem_eq(h.tensors[out].data, ((const uint8_t[]){ 0, 6, 11 }), 3);
        kh_done(&h);
}
END_TEST

START_TEST(test_resize_bilinear_int8_fixed_point) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_INT8, 4, I32(1, 1, 2, 2), (const int8_t[]){ 0, 0, 101, -101 }), out;
        kh_quant(&h, in, 1.0f, 0);
        shape_resize_params_t p = { 0 };
        ck_assert_int_eq(run_resize(&h, &rt_kernel_resize_bilinear, in, 1, 4, &p, &out), 0);
        /* 50.5 rounds away from zero in both directions */
        ck_assert_mem_eq(h.tensors[out].data, ((const int8_t[]){ 0, 0, 51, -51, 101, -101, 101, -101 }), 8);
        kh_done(&h);
}
END_TEST

START_TEST(test_resize_bilinear_int16_half_pixel) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_INT16, 4, I32(1, 1, 2, 1), (const int16_t[]){ 0, 1000 }), out;
        kh_quant(&h, in, 1.0f, 0);
        shape_resize_params_t p = { .half_pixel_centers = true };
        ck_assert_int_eq(run_resize(&h, &rt_kernel_resize_bilinear, in, 1, 4, &p, &out), 0);
        /* scale 512: positions -256, 256, 768, 1280 (10-bit) -> 0, 250, 750, 1000 */
        const int16_t *v = h.tensors[out].data;
        ck_assert_int_eq(v[0], 0);
        ck_assert_int_eq(v[1], 250);
        ck_assert_int_eq(v[2], 750);
        ck_assert_int_eq(v[3], 1000);
        kh_done(&h);
}
END_TEST

START_TEST(test_resize_bilinear_align_and_half_pixel_einval) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 4, I32(1, 2, 2, 1), F32(1, 2, 3, 4)), out;
        shape_resize_params_t p = { .align_corners = true, .half_pixel_centers = true };
        ck_assert_int_eq(run_resize(&h, &rt_kernel_resize_bilinear, in, 3, 3, &p, &out), -EINVAL);
        kh_done(&h);
}
END_TEST

START_TEST(test_resize_bilinear_dynamic_size) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 4, I32(1, 1, 1, 2), F32(7, 8));
        int32_t size = kh_tensor(&h, RT_TYPE_INT32, 1, I32(2), I32(2, 1));
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        shape_resize_params_t p = { 0 };
        ck_assert_int_eq(st_prepare_only(&h, &rt_kernel_resize_bilinear, &p, I32(in, size), 2, I32(out), 1), 0);
        ck_assert_int_eq(h.tensors[out].alloc, RT_ALLOC_DYNAMIC);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_resize_bilinear, &p, I32(in, size), 2, I32(out), 1), 0);
        st_assert_dims(&h.tensors[out], 4, I32(1, 2, 1, 2));
        st_assert_f32(&h.tensors[out], 4, F32(7, 8, 7, 8));
        kh_done(&h);
}
END_TEST

static const float row4[4] = { 10, 11, 12, 13 };

START_TEST(test_resize_nearest_modes) {
        kh_t h;
        int32_t in, out;
        shape_resize_params_t plain = { 0 }, align = { .align_corners = true }, half = { .half_pixel_centers = true };

        kh_init(&h);
        in = kh_tensor(&h, RT_TYPE_FLOAT32, 4, I32(1, 1, 4, 1), row4);
        ck_assert_int_eq(run_resize(&h, &rt_kernel_resize_nearest_neighbor, in, 1, 3, &plain, &out), 0);
        st_assert_f32(&h.tensors[out], 3, F32(10, 11, 12));
        kh_done(&h);

        kh_init(&h);
        in = kh_tensor(&h, RT_TYPE_FLOAT32, 4, I32(1, 1, 4, 1), row4);
        ck_assert_int_eq(run_resize(&h, &rt_kernel_resize_nearest_neighbor, in, 1, 3, &align, &out), 0);
        st_assert_f32(&h.tensors[out], 3, F32(10, 12, 13));
        kh_done(&h);

        kh_init(&h);
        in = kh_tensor(&h, RT_TYPE_FLOAT32, 4, I32(1, 1, 4, 1), row4);
        ck_assert_int_eq(run_resize(&h, &rt_kernel_resize_nearest_neighbor, in, 1, 3, &half, &out), 0);
        st_assert_f32(&h.tensors[out], 3, F32(10, 12, 13));
        kh_done(&h);
}
END_TEST

START_TEST(test_resize_nearest_upsample_int8) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_INT8, 4, I32(1, 2, 2, 1), (const int8_t[]){ 1, 2, 3, 4 }), out;
        kh_quant(&h, in, 0.1f, -3);
        shape_resize_params_t p = { 0 };
        ck_assert_int_eq(run_resize(&h, &rt_kernel_resize_nearest_neighbor, in, 4, 4, &p, &out), 0);
        ck_assert_mem_eq(h.tensors[out].data,
                         ((const int8_t[]){ 1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4 }), 16);
        kh_done(&h);
}
END_TEST

START_TEST(test_resize_nearest_uint8_fixed_point) {
        /* 2 -> 82 rows: row 41 maps to 41 * (2/82.f) = 0.99999994 in float,
         * but to 1 in TFLite's 16.16 fixed-point uint8 kernel */
        kh_t h;
        int32_t in, out;
        shape_resize_params_t p = { 0 };
        kh_init(&h);
        in = kh_tensor(&h, RT_TYPE_UINT8, 4, I32(1, 2, 1, 1), (const uint8_t[]){ 5, 9 });
        ck_assert_int_eq(run_resize(&h, &rt_kernel_resize_nearest_neighbor, in, 82, 1, &p, &out), 0);
        ck_assert_int_eq(((const uint8_t *) h.tensors[out].data)[40], 5);
        ck_assert_int_eq(((const uint8_t *) h.tensors[out].data)[41], 9);
        kh_done(&h);

        kh_init(&h);
        in = kh_tensor(&h, RT_TYPE_FLOAT32, 4, I32(1, 2, 1, 1), F32(5, 9));
        ck_assert_int_eq(run_resize(&h, &rt_kernel_resize_nearest_neighbor, in, 82, 1, &p, &out), 0);
        ck_assert(((const float *) h.tensors[out].data)[41] == 5);
        ck_assert(((const float *) h.tensors[out].data)[42] == 9);
        kh_done(&h);
}
END_TEST

ST_MAIN("shape-resize", test_resize_bilinear_float_2x, test_resize_bilinear_float_generic,
        test_resize_bilinear_float_align_corners, test_resize_bilinear_float_half_pixel, test_resize_bilinear_uint8,
        test_resize_bilinear_uint8_align_corners_rounds, test_resize_bilinear_int8_fixed_point,
        test_resize_bilinear_int16_half_pixel, test_resize_bilinear_align_and_half_pixel_einval,
        test_resize_bilinear_dynamic_size, test_resize_nearest_modes, test_resize_nearest_upsample_int8,
        test_resize_nearest_uint8_fixed_point)
