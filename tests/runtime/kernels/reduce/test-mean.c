/* SPDX-License-Identifier: Apache-2.0 */
#include "reduce-test.h"

static const float x23[6] = { 1, 2, 3, 4, 5, 6 };

START_TEST(test_mean_float_keep_dims) {
        kh_t h;
        kh_init(&h);
        rt_reduce_case_t c = reduce_case(&h, RT_TYPE_FLOAT32, 2, (int32_t[]) { 2, 3 }, x23,
                                         (int32_t[]) { 1 }, 1, false, RT_TYPE_FLOAT32);
        ck_assert_int_eq(reduce_run(&h, &rt_kernel_mean, &c, true), 0);
        ck_assert_shape(&h.tensors[c.out], 2, 2, 1);
        const float *y = h.tensors[c.out].data;
        ck_assert_float_eq(y[0], 2.0f);
        ck_assert_float_eq(y[1], 5.0f);
        kh_done(&h);

        kh_init(&h);
        c = reduce_case(&h, RT_TYPE_FLOAT32, 2, (int32_t[]) { 2, 3 }, x23, (int32_t[]) { 0 }, 1, false,
                        RT_TYPE_FLOAT32);
        ck_assert_int_eq(reduce_run(&h, &rt_kernel_mean, &c, false), 0);
        ck_assert_shape(&h.tensors[c.out], 1, 3);
        y = h.tensors[c.out].data;
        ck_assert_float_eq(y[0], 2.5f);
        ck_assert_float_eq(y[1], 3.5f);
        ck_assert_float_eq(y[2], 4.5f);
        kh_done(&h);
}
END_TEST

/* x[a][b][c] = 4a + 2b + c; axes {-1, 2, 0} reduce a and c once each. */
START_TEST(test_mean_float_negative_and_repeated_axes) {
        float x[8];
        for (int i = 0; i < 8; i++)
                x[i] = (float) i;
        kh_t h;
        kh_init(&h);
        rt_reduce_case_t c = reduce_case(&h, RT_TYPE_FLOAT32, 3, (int32_t[]) { 2, 2, 2 }, x,
                                         (int32_t[]) { -1, 2, 0 }, 3, false, RT_TYPE_FLOAT32);
        ck_assert_int_eq(reduce_run(&h, &rt_kernel_mean, &c, false), 0);
        ck_assert_shape(&h.tensors[c.out], 1, 2);
        const float *y = h.tensors[c.out].data;
        ck_assert_float_eq(y[0], 2.5f);  /* {0, 1, 4, 5} */
        ck_assert_float_eq(y[1], 4.5f);  /* {2, 3, 6, 7} */
        kh_done(&h);
}
END_TEST

START_TEST(test_mean_float_all_axes) {
        kh_t h;
        kh_init(&h);
        rt_reduce_case_t c = reduce_case(&h, RT_TYPE_FLOAT32, 2, (int32_t[]) { 2, 3 }, x23,
                                         (int32_t[]) { 1, 0 }, 2, false, RT_TYPE_FLOAT32);
        ck_assert_int_eq(reduce_run(&h, &rt_kernel_mean, &c, false), 0);
        ck_assert_int_eq(h.tensors[c.out].rank, 0);
        ck_assert_float_eq(((float *) h.tensors[c.out].data)[0], 3.5f);
        kh_done(&h);

        kh_init(&h);
        c = reduce_case(&h, RT_TYPE_FLOAT32, 2, (int32_t[]) { 2, 3 }, x23, (int32_t[]) { 0, 1 }, 2,
                        false, RT_TYPE_FLOAT32);
        ck_assert_int_eq(reduce_run(&h, &rt_kernel_mean, &c, true), 0);
        ck_assert_shape(&h.tensors[c.out], 2, 1, 1);
        ck_assert_float_eq(((float *) h.tensors[c.out].data)[0], 3.5f);
        kh_done(&h);
}
END_TEST

/* int32 divides the int64 sum, truncating toward zero like C++. */
START_TEST(test_mean_int32_truncates) {
        const int32_t x[8] = { 1, 2, 2, 2, -1, -2, -2, -2 };
        kh_t h;
        kh_init(&h);
        rt_reduce_case_t c = reduce_case(&h, RT_TYPE_INT32, 2, (int32_t[]) { 2, 4 }, x,
                                         (int32_t[]) { 1 }, 1, false, RT_TYPE_INT32);
        ck_assert_int_eq(reduce_run(&h, &rt_kernel_mean, &c, false), 0);
        const int32_t *y = h.tensors[c.out].data;
        ck_assert_int_eq(y[0], 1);
        ck_assert_int_eq(y[1], -1);
        kh_done(&h);
}
END_TEST

/* uint8 Mean4D: sum * (s_in / (n * s_out)) + (zp_out - round(zp_in * s_in / s_out)). */
START_TEST(test_mean_uint8_mean4d) {
        const uint8_t x[4] = { 10, 12, 14, 20 };  /* real 0, 1, 2, 5: mean 2 */
        kh_t h;
        kh_init(&h);
        rt_reduce_case_t c = reduce_case(&h, RT_TYPE_UINT8, 4, (int32_t[]) { 1, 2, 2, 1 }, x,
                                         (int32_t[]) { 1, 2 }, 2, false, RT_TYPE_UINT8);
        kh_quant(&h, c.in, 0.5f, 10);
        kh_quant(&h, c.out, 0.25f, 3);
        ck_assert_int_eq(reduce_run(&h, &rt_kernel_mean, &c, true), 0);
        ck_assert_shape(&h.tensors[c.out], 4, 1, 1, 1, 1);
        ck_assert_int_eq(((uint8_t *) h.tensors[c.out].data)[0], 11);
        kh_done(&h);
}
END_TEST

/* int8 Mean4D: the zero-point corrected sum is rescaled, then divided by n
 * rounding half away from zero (1.75 -> 2, -1.75 -> -2). */
START_TEST(test_mean_int8_mean4d_rounds) {
        const int8_t x[8] = { 1, -1, 2, -2, 2, -2, 2, -2 };  /* channels interleaved */
        kh_t h;
        kh_init(&h);
        rt_reduce_case_t c = reduce_case(&h, RT_TYPE_INT8, 4, (int32_t[]) { 1, 2, 2, 2 }, x,
                                         (int32_t[]) { 2, 1 }, 2, false, RT_TYPE_INT8);
        kh_quant(&h, c.in, 1.0f, 0);
        kh_quant(&h, c.out, 1.0f, 0);
        ck_assert_int_eq(reduce_run(&h, &rt_kernel_mean, &c, true), 0);
        const int8_t *y = h.tensors[c.out].data;
        ck_assert_int_eq(y[0], 2);
        ck_assert_int_eq(y[1], -2);
        kh_done(&h);
}
END_TEST

/* Same quantization in and out, not Mean4D: raw sum / n, truncating. */
START_TEST(test_mean_int8_same_scale_truncates) {
        const int8_t x[4] = { 1, 2, 2, 2 };
        kh_t h;
        kh_init(&h);
        rt_reduce_case_t c = reduce_case(&h, RT_TYPE_INT8, 2, (int32_t[]) { 1, 4 }, x,
                                         (int32_t[]) { 1 }, 1, false, RT_TYPE_INT8);
        kh_quant(&h, c.in, 0.5f, 0);
        kh_quant(&h, c.out, 0.5f, 0);
        ck_assert_int_eq(reduce_run(&h, &rt_kernel_mean, &c, false), 0);
        ck_assert_int_eq(((int8_t *) h.tensors[c.out].data)[0], 1);
        kh_done(&h);
}
END_TEST

/* Different quantization: round(mean_q * s + (-zp_in * s)) + zp_out, clamped. */
START_TEST(test_mean_int8_requantized) {
        const int8_t x[4] = { -1, 1, 3, 5 };  /* real 0, 1, 2, 3: mean 1.5 */
        kh_t h;
        kh_init(&h);
        rt_reduce_case_t c = reduce_case(&h, RT_TYPE_INT8, 2, (int32_t[]) { 1, 4 }, x,
                                         (int32_t[]) { -1 }, 1, false, RT_TYPE_INT8);
        kh_quant(&h, c.in, 0.5f, -1);
        kh_quant(&h, c.out, 0.1f, 2);
        ck_assert_int_eq(reduce_run(&h, &rt_kernel_mean, &c, false), 0);
        ck_assert_int_eq(((int8_t *) h.tensors[c.out].data)[0], 17);
        kh_done(&h);

        kh_init(&h);
        c = reduce_case(&h, RT_TYPE_INT8, 2, (int32_t[]) { 1, 4 }, x, (int32_t[]) { -1 }, 1, false,
                        RT_TYPE_INT8);
        kh_quant(&h, c.in, 0.5f, -1);
        kh_quant(&h, c.out, 0.01f, 2);
        ck_assert_int_eq(reduce_run(&h, &rt_kernel_mean, &c, false), 0);
        ck_assert_int_eq(((int8_t *) h.tensors[c.out].data)[0], 127);
        kh_done(&h);
}
END_TEST

START_TEST(test_mean_int16_requantized) {
        const int16_t x[4] = { 100, 200, 300, 401 };  /* mean 250.25 -> 500.5 steps of 0.5 */
        kh_t h;
        kh_init(&h);
        rt_reduce_case_t c = reduce_case(&h, RT_TYPE_INT16, 2, (int32_t[]) { 1, 4 }, x,
                                         (int32_t[]) { 1 }, 1, false, RT_TYPE_INT16);
        kh_quant(&h, c.in, 1.0f, 0);
        kh_quant(&h, c.out, 0.5f, 0);
        ck_assert_int_eq(reduce_run(&h, &rt_kernel_mean, &c, false), 0);
        ck_assert_int_eq(((int16_t *) h.tensors[c.out].data)[0], 501);
        kh_done(&h);

        kh_init(&h);
        c = reduce_case(&h, RT_TYPE_INT16, 2, (int32_t[]) { 1, 4 }, x, (int32_t[]) { 1 }, 1, false,
                        RT_TYPE_INT16);
        kh_quant(&h, c.in, 1.0f, 3);
        kh_quant(&h, c.out, 0.5f, 0);
        ck_assert_int_eq(reduce_run(&h, &rt_kernel_mean, &c, false), -EINVAL);
        kh_done(&h);
}
END_TEST

/* A non-constant axis: the output is sized at invoke. */
START_TEST(test_mean_dynamic_axis) {
        kh_t h;
        kh_init(&h);
        rt_reduce_case_t c = reduce_case(&h, RT_TYPE_FLOAT32, 2, (int32_t[]) { 2, 3 }, x23,
                                         (int32_t[]) { -1 }, 1, true, RT_TYPE_FLOAT32);
        ck_assert_int_eq(reduce_run(&h, &rt_kernel_mean, &c, false), 0);
        ck_assert_int_eq(h.tensors[c.out].alloc, RT_ALLOC_DYNAMIC);
        ck_assert_shape(&h.tensors[c.out], 1, 2);
        ck_assert_float_eq(((float *) h.tensors[c.out].data)[1], 5.0f);
        kh_done(&h);
}
END_TEST

START_TEST(test_mean_axis_out_of_range) {
        const int32_t bad[] = { 2, -3 };
        for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
                for (int dyn = 0; dyn < 2; dyn++) {
                        kh_t h;
                        kh_init(&h);
                        rt_reduce_case_t c = reduce_case(&h, RT_TYPE_FLOAT32, 2, (int32_t[]) { 2, 3 },
                                                         x23, &bad[i], 1, dyn, RT_TYPE_FLOAT32);
                        ck_assert_int_eq(reduce_run(&h, &rt_kernel_mean, &c, false), -EINVAL);
                        ck_assert_ptr_nonnull(strstr(h.error, "out of range"));
                        kh_done(&h);
                }
        }
}
END_TEST

START_TEST(test_mean_rejects_bad_types) {
        const bool b[2] = { true, false };
        kh_t h;
        kh_init(&h);
        rt_reduce_case_t c = reduce_case(&h, RT_TYPE_BOOL, 1, (int32_t[]) { 2 }, b, (int32_t[]) { 0 },
                                         1, false, RT_TYPE_BOOL);
        ck_assert_int_eq(reduce_run(&h, &rt_kernel_mean, &c, false), -ENOTSUP);
        kh_done(&h);

        /* float axis */
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 2, (int32_t[]) { 2, 3 }, x23);
        int32_t axis = kh_const(&h, RT_TYPE_FLOAT32, 1, (int32_t[]) { 1 }, (float[]) { 1.0f });
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        rt_reducer_params_t p = { .keep_dims = false };
        ck_assert_int_eq(kh_run(&h, &rt_kernel_mean, &p, (int32_t[]) { in, axis }, 2,
                                (int32_t[]) { out }, 1), -EINVAL);
        kh_done(&h);

        /* requantization without an output scale */
        kh_init(&h);
        c = reduce_case(&h, RT_TYPE_INT8, 2, (int32_t[]) { 1, 2 }, (int8_t[]) { 1, 2 }, (int32_t[]) { 1 },
                        1, false, RT_TYPE_INT8);
        kh_quant(&h, c.in, 0.5f, 0);
        kh_quant(&h, c.out, 0.0f, 1);
        ck_assert_int_eq(reduce_run(&h, &rt_kernel_mean, &c, false), -EINVAL);
        kh_done(&h);

        /* int8 in, float out */
        kh_init(&h);
        c = reduce_case(&h, RT_TYPE_INT8, 1, (int32_t[]) { 2 }, (int8_t[]) { 1, 2 }, (int32_t[]) { 0 },
                        1, false, RT_TYPE_FLOAT32);
        ck_assert_int_eq(reduce_run(&h, &rt_kernel_mean, &c, false), -ENOTSUP);
        kh_done(&h);
}
END_TEST

REDUCE_TEST_MAIN("mean", test_mean_float_keep_dims, test_mean_float_negative_and_repeated_axes,
                 test_mean_float_all_axes, test_mean_int32_truncates, test_mean_uint8_mean4d,
                 test_mean_int8_mean4d_rounds, test_mean_int8_same_scale_truncates,
                 test_mean_int8_requantized, test_mean_int16_requantized, test_mean_dynamic_axis,
                 test_mean_axis_out_of_range, test_mean_rejects_bad_types)
