/* SPDX-License-Identifier: Apache-2.0 */
#include <string.h>

#include "conv-test.h"

static rt_pool_params_t params(rt_padding_t pad, int s, int f, rt_activation_t act) {
        return (rt_pool_params_t) { .padding = pad, .stride_w = s, .stride_h = s, .filter_w = f,
                                    .filter_h = f, .activation = act };
}

static int run_pool(kh_t *h, const rt_registration_t *reg, rt_type_t t, int32_t rank,
                    const int32_t *dims, const void *x, rt_pool_params_t *p, int32_t *ret_out) {
        int32_t in = kh_tensor(h, t, rank, dims, x);
        int32_t out = kh_tensor(h, t, 0, NULL, NULL);
        *ret_out = out;
        return kh_run(h, reg, p, (int32_t[]) { in }, 1, (int32_t[]) { out }, 1);
}

/* 1x4x4x1 input 1..16, 2x2 windows, stride 2, VALID. */
START_TEST(test_pool_float_valid) {
        float x[16];
        for (int i = 0; i < 16; i++)
                x[i] = (float) (i + 1);
        const int32_t dims[4] = { 1, 4, 4, 1 };
        const float want_avg[4] = { 3.5f, 5.5f, 11.5f, 13.5f };
        const float want_max[4] = { 6, 8, 14, 16 };
        kh_t h;
        int32_t out;
        rt_pool_params_t p = params(RT_PADDING_VALID, 2, 2, RT_ACT_NONE);

        kh_init(&h);
        ck_assert_int_eq(run_pool(&h, &rt_kernel_average_pool_2d, RT_TYPE_FLOAT32, 4, dims, x, &p, &out), 0);
        ck_assert_int_eq(h.tensors[out].dims[1], 2);
        ck_assert_int_eq(h.tensors[out].dims[2], 2);
        for (int i = 0; i < 4; i++)
                ck_assert_float_eq(((float *) h.tensors[out].data)[i], want_avg[i]);
        kh_done(&h);

        kh_init(&h);
        ck_assert_int_eq(run_pool(&h, &rt_kernel_max_pool_2d, RT_TYPE_FLOAT32, 4, dims, x, &p, &out), 0);
        for (int i = 0; i < 4; i++)
                ck_assert_float_eq(((float *) h.tensors[out].data)[i], want_max[i]);
        kh_done(&h);

        kh_init(&h);
        ck_assert_int_eq(run_pool(&h, &rt_kernel_l2_pool_2d, RT_TYPE_FLOAT32, 4, dims, x, &p, &out), 0);
        /* window {1,2,5,6}: sqrt((1+4+25+36)/4) */
        ck_assert_float_eq_tol(((float *) h.tensors[out].data)[0], sqrtf(66.0f / 4.0f), 1e-6f);
        kh_done(&h);
}
END_TEST

/* SAME with a 3x3 window on 3x3 input, stride 1: the average only counts
 * taps inside the image (corner windows have 4). */
START_TEST(test_pool_float_same_excludes_padding) {
        float x[9];
        for (int i = 0; i < 9; i++)
                x[i] = (float) (i + 1);
        const int32_t dims[4] = { 1, 3, 3, 1 };
        kh_t h;
        int32_t out;
        rt_pool_params_t p = params(RT_PADDING_SAME, 1, 3, RT_ACT_NONE);
        kh_init(&h);
        ck_assert_int_eq(run_pool(&h, &rt_kernel_average_pool_2d, RT_TYPE_FLOAT32, 4, dims, x, &p, &out), 0);
        const float *y = h.tensors[out].data;
        ck_assert_int_eq(h.tensors[out].dims[1], 3);
        ck_assert_float_eq(y[0], (1 + 2 + 4 + 5) / 4.0f);
        ck_assert_float_eq(y[1], (1 + 2 + 3 + 4 + 5 + 6) / 6.0f);
        ck_assert_float_eq(y[4], 5.0f);
        ck_assert_float_eq(y[8], (5 + 6 + 8 + 9) / 4.0f);
        kh_done(&h);

        /* RELU6 on max pooling. */
        for (int i = 0; i < 9; i++)
                x[i] = (float) (i - 4) * 2;  /* -8 .. 8 */
        p = params(RT_PADDING_SAME, 2, 2, RT_ACT_RELU6);
        kh_init(&h);
        ck_assert_int_eq(run_pool(&h, &rt_kernel_max_pool_2d, RT_TYPE_FLOAT32, 4, dims, x, &p, &out), 0);
        y = h.tensors[out].data;
        ck_assert_int_eq(h.tensors[out].dims[1], 2);
        /* windows: {-8,-6,-2,0} -> 0; {-4,2} -> 2; {4,6} -> 6; {8} -> 6 */
        ck_assert_float_eq(y[0], 0);
        ck_assert_float_eq(y[1], 2);
        ck_assert_float_eq(y[2], 6);
        ck_assert_float_eq(y[3], 6);
        kh_done(&h);
}
END_TEST

/* Quantized average pooling rounds half away from zero (int8) or half up
 * (uint8); values are the stored integers. */
START_TEST(test_pool_int8_average_rounding) {
        const int8_t x[4] = { -3, -2, 1, 1 };   /* sum -3, count 4 -> -0.75 -> -1 */
        const int8_t x2[4] = { -1, -1, 0, 0 };  /* sum -2 -> -0.5 -> -1 (away from zero) */
        const int8_t x3[4] = { 1, 1, 0, 0 };    /* sum 2 -> 0.5 -> 1 */
        const int8_t *cases[] = { x, x2, x3 };
        const int8_t want[] = { -1, -1, 1 };
        const int32_t dims[4] = { 1, 2, 2, 1 };
        for (int c = 0; c < 3; c++) {
                kh_t h;
                int32_t out;
                rt_pool_params_t p = params(RT_PADDING_VALID, 2, 2, RT_ACT_NONE);
                kh_init(&h);
                int32_t in = kh_tensor(&h, RT_TYPE_INT8, 4, dims, cases[c]);
                out = kh_tensor(&h, RT_TYPE_INT8, 0, NULL, NULL);
                kh_quant(&h, in, 0.5f, 0);
                kh_quant(&h, out, 0.5f, 0);
                ck_assert_int_eq(kh_run(&h, &rt_kernel_average_pool_2d, &p, (int32_t[]) { in }, 1,
                                        (int32_t[]) { out }, 1), 0);
                ck_assert_int_eq(((int8_t *) h.tensors[out].data)[0], want[c]);
                kh_done(&h);
        }
}
END_TEST

START_TEST(test_pool_uint8_average_and_max) {
        const uint8_t x[8] = { 10, 200, 11, 100, 12, 0, 14, 50 };  /* 2 channels */
        const int32_t dims[4] = { 1, 2, 2, 2 };
        kh_t h;
        rt_pool_params_t p = params(RT_PADDING_VALID, 2, 2, RT_ACT_RELU);
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_UINT8, 4, dims, x);
        int32_t out = kh_tensor(&h, RT_TYPE_UINT8, 0, NULL, NULL);
        kh_quant(&h, in, 0.1f, 60);
        kh_quant(&h, out, 0.1f, 60);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_average_pool_2d, &p, (int32_t[]) { in }, 1,
                                (int32_t[]) { out }, 1), 0);
        /* ch0: (10+11+12+14+2)/4 = 12 -> RELU floor at zero point 60;
         * ch1: (200+100+0+50+2)/4 = 88 */
        ck_assert_int_eq(((uint8_t *) h.tensors[out].data)[0], 60);
        ck_assert_int_eq(((uint8_t *) h.tensors[out].data)[1], 88);
        kh_done(&h);

        kh_init(&h);
        in = kh_tensor(&h, RT_TYPE_UINT8, 4, dims, x);
        out = kh_tensor(&h, RT_TYPE_UINT8, 0, NULL, NULL);
        kh_quant(&h, in, 0.1f, 60);
        kh_quant(&h, out, 0.1f, 60);
        p = params(RT_PADDING_VALID, 2, 2, RT_ACT_NONE);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_max_pool_2d, &p, (int32_t[]) { in }, 1,
                                (int32_t[]) { out }, 1), 0);
        ck_assert_int_eq(((uint8_t *) h.tensors[out].data)[0], 14);
        ck_assert_int_eq(((uint8_t *) h.tensors[out].data)[1], 200);
        kh_done(&h);
}
END_TEST

START_TEST(test_pool_int16_max) {
        const int16_t x[4] = { -30000, 1234, -5, 1233 };
        const int32_t dims[4] = { 1, 2, 2, 1 };
        kh_t h;
        rt_pool_params_t p = params(RT_PADDING_VALID, 1, 2, RT_ACT_NONE);
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_INT16, 4, dims, x);
        int32_t out = kh_tensor(&h, RT_TYPE_INT16, 0, NULL, NULL);
        kh_quant(&h, in, 0.001f, 0);
        kh_quant(&h, out, 0.001f, 0);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_max_pool_2d, &p, (int32_t[]) { in }, 1,
                                (int32_t[]) { out }, 1), 0);
        ck_assert_int_eq(((int16_t *) h.tensors[out].data)[0], 1234);
        kh_done(&h);
}
END_TEST

START_TEST(test_pool_rejects_bad_input) {
        float x[4] = { 0 };
        kh_t h;
        int32_t out;
        /* rank 3 */
        rt_pool_params_t p = params(RT_PADDING_VALID, 1, 1, RT_ACT_NONE);
        kh_init(&h);
        ck_assert_int_eq(run_pool(&h, &rt_kernel_max_pool_2d, RT_TYPE_FLOAT32, 3, (int32_t[]) { 1, 2, 2 },
                                  x, &p, &out), -EINVAL);
        kh_done(&h);
        /* filter larger than the input with VALID padding */
        p = params(RT_PADDING_VALID, 1, 3, RT_ACT_NONE);
        kh_init(&h);
        ck_assert_int_eq(run_pool(&h, &rt_kernel_average_pool_2d, RT_TYPE_FLOAT32, 4,
                                  (int32_t[]) { 1, 2, 2, 1 }, x, &p, &out), -EINVAL);
        kh_done(&h);
        /* zero stride */
        p = params(RT_PADDING_SAME, 0, 1, RT_ACT_NONE);
        kh_init(&h);
        ck_assert_int_eq(run_pool(&h, &rt_kernel_average_pool_2d, RT_TYPE_FLOAT32, 4,
                                  (int32_t[]) { 1, 2, 2, 1 }, x, &p, &out), -EINVAL);
        kh_done(&h);
        /* L2 pooling is float only */
        const int8_t xi[4] = { 0 };
        p = params(RT_PADDING_VALID, 1, 1, RT_ACT_NONE);
        kh_init(&h);
        ck_assert_int_eq(run_pool(&h, &rt_kernel_l2_pool_2d, RT_TYPE_INT8, 4, (int32_t[]) { 1, 2, 2, 1 },
                                  xi, &p, &out), -ENOTSUP);
        kh_done(&h);
}
END_TEST

static Suite *pool_suite(void) {
        Suite *s = suite_create("pool");
        TCase *tc = tcase_create("pool");
        tcase_add_test(tc, test_pool_float_valid);
        tcase_add_test(tc, test_pool_float_same_excludes_padding);
        tcase_add_test(tc, test_pool_int8_average_rounding);
        tcase_add_test(tc, test_pool_uint8_average_and_max);
        tcase_add_test(tc, test_pool_int16_max);
        tcase_add_test(tc, test_pool_rejects_bad_input);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        SRunner *sr = srunner_create(pool_suite());
        srunner_run_all(sr, CK_NORMAL);
        int failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed == 0 ? 0 : 1;
}
