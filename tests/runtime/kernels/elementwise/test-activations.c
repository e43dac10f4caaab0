/* SPDX-License-Identifier: Apache-2.0 */
/* Tests of runtime/kernels/elementwise/activations.c. */
#include <string.h>

#include "ew-test.h"

static void run_float(const rt_registration_t *reg, void *params, const float *in,
                      const float *want, size_t n, float tol) {
        kh_t h;
        kh_init(&h);
        int32_t a = kh_tensor(&h, RT_TYPE_FLOAT32, 1, DIMS((int32_t) n), in);
        int32_t o = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_int_eq(ew_run1(&h, reg, params, a, o), 0);
        const float *z = h.tensors[o].data;
        for (size_t i = 0; i < n; i++)
                ck_assert_msg(fabsf(z[i] - want[i]) <= tol, "%s[%zu] = %.9g, want %.9g",
                              reg->name, i, z[i], want[i]);
        kh_done(&h);
}

START_TEST(test_relu_family_float) {
        const float in[5] = { -3, -0.5f, 0.25f, 2, 9 };
        run_float(&rt_kernel_relu, NULL, in, (float[]){ 0, 0, 0.25f, 2, 9 }, 5, 0);
        run_float(&rt_kernel_relu6, NULL, in, (float[]){ 0, 0, 0.25f, 2, 6 }, 5, 0);
        run_float(&rt_kernel_relu_n1_to_1, NULL, in, (float[]){ -1, -0.5f, 0.25f, 1, 1 }, 5, 0);
        run_float(&rt_kernel_relu_0_to_1, NULL, in, (float[]){ 0, 0, 0.25f, 1, 1 }, 5, 0);
}
END_TEST

START_TEST(test_float_activations) {
        const float in[4] = { -2, -0.5f, 0, 1.5f };
        float lg[4], th[4], elu[4], hs[4], ge[4], gea[4];
        for (int i = 0; i < 4; i++) {
                double x = in[i];
                lg[i] = (float) (1 / (1 + exp(-x)));
                th[i] = (float) tanh(x);
                elu[i] = (float) (x < 0 ? expm1(x) : x);
                hs[i] = (float) (x * fmin(6, fmax(0, x + 3)) / 6);
                ge[i] = (float) (0.5 * x * (1 + erf(x / sqrt(2))));
                gea[i] = (float) (0.5 * x * (1 + tanh(sqrt(2 / M_PI) * (x + 0.044715 * x * x * x))));
        }
        run_float(&rt_kernel_logistic, NULL, in, lg, 4, 1e-6f);
        run_float(&rt_kernel_tanh, NULL, in, th, 4, 1e-6f);
        run_float(&rt_kernel_elu, NULL, in, elu, 4, 1e-6f);
        run_float(&rt_kernel_hard_swish, NULL, in, hs, 4, 1e-6f);
        ew_gelu_params_t exact = { .approximate = false }, approx = { .approximate = true };
        run_float(&rt_kernel_gelu, &exact, in, ge, 4, 1e-6f);
        run_float(&rt_kernel_gelu, &approx, in, gea, 4, 1e-6f);
}
END_TEST

/* NaN through RELU6 is 0 in TFLite (max with 0 first); RELU passes it on. */
START_TEST(test_relu6_float_nan_is_zero) {
        kh_t h;
        kh_init(&h);
        int32_t a = kh_tensor(&h, RT_TYPE_FLOAT32, 1, DIMS(3), (float[]){ NAN, 7, -INFINITY });
        int32_t o = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_int_eq(ew_run1(&h, &rt_kernel_relu6, NULL, a, o), 0);
        const float *z = h.tensors[o].data;
        ck_assert_float_eq(z[0], 0);
        ck_assert_float_eq(z[1], 6);
        ck_assert_float_eq(z[2], 0);
        kh_done(&h);
        kh_init(&h);
        a = kh_tensor(&h, RT_TYPE_FLOAT32, 1, DIMS(1), (float[]){ NAN });
        o = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_int_eq(ew_run1(&h, &rt_kernel_relu, NULL, a, o), 0);
        ck_assert(isnan(((float *) h.tensors[o].data)[0]));
        kh_done(&h);
}
END_TEST

/* Float TANH and GELU follow TFLite's Eigen approximations where they part
 * from libm: tanh is exactly +-1 from |x| = 7.9053, and GELU's tails cancel
 * to -0 (values read from native TensorFlow Lite 2.9). */
START_TEST(test_tanh_gelu_float_tails_match_tflite) {
        const float in[3] = { 7.95f, -8.5f, 3e-4f };
        float want[3] = { 1.0f, -1.0f, 3e-4f };
        run_float(&rt_kernel_tanh, NULL, in, want, 3, 0);
        ew_gelu_params_t exact = { .approximate = false }, approx = { .approximate = true };
        /* erf(x / sqrt 2) is -1 below x = -4 sqrt 2: 0.5 x (1 + -1) = -0. */
        const float tail[2] = { -5.7f, -14.2f };
        run_float(&rt_kernel_gelu, &exact, tail, (float[]){ 0, 0 }, 2, 0);
        /* tanh saturates: -5.1549 gives -0 where libm's tanhf leaves -1.5e-7. */
        run_float(&rt_kernel_gelu, &approx, (float[]){ -5.1549f }, (float[]){ 0 }, 1, 0);
}
END_TEST

/* Below -9 TFLite's float LOGISTIC still computes 1 / (1 + e^-x); taking
 * e^x there is 1.2e-4 relative off. */
START_TEST(test_logistic_float_negative_tail) {
        const float in[2] = { -9.35f, -20.0f };
        float want[2] = { 1.0f / (1.0f + expf(9.35f)), 1.0f / (1.0f + expf(20.0f)) };
        run_float(&rt_kernel_logistic, NULL, in, want, 2, 0);
}
END_TEST

START_TEST(test_relu6_int8_rescaled) {
        kh_t h;
        kh_init(&h);
        /* in: scale 0.1 zp 0 ; out: scale 0.05 zp -100 */
        int32_t a = kh_tensor(&h, RT_TYPE_INT8, 1, DIMS(4), (int8_t[]){ -20, 10, 33, 127 });
        int32_t o = kh_tensor(&h, RT_TYPE_INT8, 0, NULL, NULL);
        kh_quant(&h, a, 0.1f, 0);
        kh_quant(&h, o, 0.05f, -100);
        ck_assert_int_eq(ew_run1(&h, &rt_kernel_relu6, NULL, a, o), 0);
        const int8_t *z = h.tensors[o].data;
        ck_assert_int_eq(z[0], -100);      /* -2 -> 0 */
        ck_assert_int_eq(z[1], -80);       /* 1 -> 20 steps */
        ck_assert_int_eq(z[2], -34);       /* 3.3 -> 66 steps */
        ck_assert_int_eq(z[3], 20);        /* 12.7 -> clamp at 6 (120 steps) */
        kh_done(&h);
}
END_TEST

/* The rescaling multiplier comes from float arithmetic, as in TFLite's
 * ReluPrepare (float / float, then widened): 0.0907181054 / 0.179029092 is
 * 0.50672268867 in float and 0.50672293316 in double, so 26775 lands on
 * 13567.49999 (TFLite's 13567), not on 13567.50036 (13568). Found by
 * difftest on an int16 RELU. */
START_TEST(test_relu_int16_multiplier_in_float) {
        kh_t h;
        kh_init(&h);
        int32_t a = kh_tensor(&h, RT_TYPE_INT16, 1, DIMS(3), (int16_t[]){ 26775, -5, 32767 });
        int32_t o = kh_tensor(&h, RT_TYPE_INT16, 0, NULL, NULL);
        kh_quant(&h, a, 0.0907181054353714f, 0);
        kh_quant(&h, o, 0.17902909219264984f, 0);
        ck_assert_int_eq(ew_run1(&h, &rt_kernel_relu, NULL, a, o), 0);
        const int16_t *z = h.tensors[o].data;
        ck_assert_int_eq(z[0], 13567);
        ck_assert_int_eq(z[1], 0);
        ck_assert_int_eq(z[2], 16604);
        kh_done(&h);
}
END_TEST

/* 8-bit LOGISTIC/TANH tables against a double-precision reference. */
static void check_lut(const rt_registration_t *reg, rt_type_t t, float in_scale, int32_t in_zp,
                      float out_scale, int32_t out_zp, double (*f)(double)) {
        int32_t lo, hi;
        ku_type_range(t, &lo, &hi);
        uint8_t raw[256];
        for (int i = 0; i < 256; i++)
                raw[i] = (uint8_t) i;
        kh_t h;
        kh_init(&h);
        int32_t a = kh_tensor(&h, t, 1, DIMS(256), raw);
        int32_t o = kh_tensor(&h, t, 0, NULL, NULL);
        kh_quant(&h, a, in_scale, in_zp);
        kh_quant(&h, o, out_scale, out_zp);
        ck_assert_int_eq(ew_run1(&h, reg, NULL, a, o), 0);
        const uint8_t *z = h.tensors[o].data;
        int exact = 0;
        for (int i = 0; i < 256; i++) {
                int32_t q = t == RT_TYPE_INT8 ? (int8_t) raw[i] : raw[i];
                int32_t got = t == RT_TYPE_INT8 ? (int8_t) z[i] : z[i];
                int32_t want = ew_ref_quantize(f(in_scale * (double) (q - in_zp)), out_scale,
                                               out_zp, lo, hi);
                ck_assert_msg(abs(got - want) <= 1, "%s q=%d: %d want %d", reg->name, q, got,
                              want);
                exact += got == want;
        }
        ck_assert_int_ge(exact, 250);
        kh_done(&h);
}

static double sigmoid(double x) {
        return 1 / (1 + exp(-x));
}

static double elu(double x) {
        return x < 0 ? expm1(x) : x;
}

START_TEST(test_logistic_tanh_8bit_tables) {
        check_lut(&rt_kernel_logistic, RT_TYPE_INT8, 0.0387752913f, -2, 1.0f / 256, -128, sigmoid);
        check_lut(&rt_kernel_logistic, RT_TYPE_UINT8, 0.1f, 128, 1.0f / 256, 0, sigmoid);
        check_lut(&rt_kernel_tanh, RT_TYPE_INT8, 0.05f, 3, 1.0f / 128, 0, tanh);
        check_lut(&rt_kernel_tanh, RT_TYPE_UINT8, 0.03f, 120, 1.0f / 128, 128, tanh);
        check_lut(&rt_kernel_elu, RT_TYPE_INT8, 0.05f, 0, 0.04f, 25, elu);
}
END_TEST

START_TEST(test_logistic_int8_requires_scale_1_256) {
        kh_t h;
        kh_init(&h);
        int32_t a = kh_tensor(&h, RT_TYPE_INT8, 1, DIMS(2), NULL);
        int32_t o = kh_tensor(&h, RT_TYPE_INT8, 0, NULL, NULL);
        kh_quant(&h, a, 0.1f, 0);
        kh_quant(&h, o, 0.01f, -128);
        ck_assert_int_eq(ew_run1(&h, &rt_kernel_logistic, NULL, a, o), -EINVAL);
        kh_done(&h);
        /* int16 takes any input scale now: test-lut16.c. */
}
END_TEST

START_TEST(test_leaky_relu_float_and_int8) {
        ew_leaky_relu_params_t p = { .alpha = 0.2f };
        run_float(&rt_kernel_leaky_relu, &p, (float[]){ -5, 0, 3 }, (float[]){ -1, 0, 3 }, 3, 0);

        kh_t h;
        kh_init(&h);
        int8_t in[256];
        for (int i = 0; i < 256; i++)
                in[i] = (int8_t) (i - 128);
        int32_t a = kh_tensor(&h, RT_TYPE_INT8, 1, DIMS(256), in);
        int32_t o = kh_tensor(&h, RT_TYPE_INT8, 0, NULL, NULL);
        kh_quant(&h, a, 0.05f, 10);
        kh_quant(&h, o, 0.04f, -20);
        ck_assert_int_eq(ew_run1(&h, &rt_kernel_leaky_relu, &p, a, o), 0);
        const int8_t *z = h.tensors[o].data;
        for (int i = 0; i < 256; i++) {
                double x = 0.05 * (in[i] - 10);
                double y = x >= 0 ? x : 0.2f * x;
                ck_assert_int_le(abs(z[i] - ew_ref_quantize(y, 0.04, -20, -128, 127)), 1);
        }
        kh_done(&h);
}
END_TEST

START_TEST(test_prelu_float_broadcast_alpha) {
        kh_t h;
        kh_init(&h);
        /* [1,2,2,3] input, per-channel alpha [3] */
        float in[12];
        for (int i = 0; i < 12; i++)
                in[i] = (float) (i % 2 ? -(i + 1) : i + 1);
        int32_t a = kh_tensor(&h, RT_TYPE_FLOAT32, 4, DIMS(1, 2, 2, 3), in);
        int32_t al = kh_const(&h, RT_TYPE_FLOAT32, 1, DIMS(3), (float[]){ 0.5f, 0.25f, 2 });
        int32_t o = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_int_eq(ew_run2(&h, &rt_kernel_prelu, NULL, a, al, o), 0);
        ew_assert_shape(&h.tensors[o], 4, DIMS(1, 2, 2, 3));
        const float *z = h.tensors[o].data;
        const float alpha[3] = { 0.5f, 0.25f, 2 };
        for (int i = 0; i < 12; i++)
                ck_assert_float_eq(z[i], in[i] >= 0 ? in[i] : in[i] * alpha[i % 3]);
        kh_done(&h);
}
END_TEST

START_TEST(test_prelu_int8_and_bad_alpha) {
        kh_t h;
        kh_init(&h);
        int32_t a = kh_tensor(&h, RT_TYPE_INT8, 2, DIMS(2, 2), (int8_t[]){ -40, 40, -100, 100 });
        int32_t al = kh_const(&h, RT_TYPE_INT8, 1, DIMS(2), (int8_t[]){ 64, 32 });
        int32_t o = kh_tensor(&h, RT_TYPE_INT8, 0, NULL, NULL);
        kh_quant(&h, a, 0.1f, 0);
        kh_quant(&h, al, 1.0f / 128, 0);
        kh_quant(&h, o, 0.1f, 0);
        ck_assert_int_eq(ew_run2(&h, &rt_kernel_prelu, NULL, a, al, o), 0);
        const int8_t *z = h.tensors[o].data;
        ck_assert_int_eq(z[0], -20); /* -4.0 * 0.5 */
        ck_assert_int_eq(z[1], 40);
        ck_assert_int_eq(z[2], -50); /* -10 * 0.5 */
        ck_assert_int_eq(z[3], 100);
        kh_done(&h);

        kh_init(&h);
        a = kh_tensor(&h, RT_TYPE_FLOAT32, 2, DIMS(2, 2), NULL);
        al = kh_const(&h, RT_TYPE_FLOAT32, 2, DIMS(3, 2), NULL);
        o = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_int_eq(ew_run2(&h, &rt_kernel_prelu, NULL, a, al, o), -EINVAL);
        kh_done(&h);
}
END_TEST

/* Quantized HARD_SWISH (TFLite's 16-bit fixed point) stays within one step
 * of the real function on int8 and uint8. */
START_TEST(test_hard_swish_quantized) {
        const rt_type_t types[2] = { RT_TYPE_INT8, RT_TYPE_UINT8 };
        const int32_t in_zp[2] = { -10, 100 }, out_zp[2] = { -100, 30 };
        for (int k = 0; k < 2; k++) {
                uint8_t raw[256];
                for (int i = 0; i < 256; i++)
                        raw[i] = (uint8_t) i;
                int32_t lo, hi;
                ku_type_range(types[k], &lo, &hi);
                kh_t h;
                kh_init(&h);
                int32_t a = kh_tensor(&h, types[k], 1, DIMS(256), raw);
                int32_t o = kh_tensor(&h, types[k], 0, NULL, NULL);
                kh_quant(&h, a, 0.05f, in_zp[k]);
                kh_quant(&h, o, 0.03f, out_zp[k]);
                ck_assert_int_eq(ew_run1(&h, &rt_kernel_hard_swish, NULL, a, o), 0);
                const uint8_t *z = h.tensors[o].data;
                int max_err = 0;
                for (int i = 0; i < 256; i++) {
                        int32_t q = types[k] == RT_TYPE_INT8 ? (int8_t) raw[i] : raw[i];
                        int32_t got = types[k] == RT_TYPE_INT8 ? (int8_t) z[i] : z[i];
                        double x = 0.05 * (q - in_zp[k]);
                        double y = x * fmin(6, fmax(0, x + 3)) / 6;
                        int err = abs(got - ew_ref_quantize(y, 0.03, out_zp[k], lo, hi));
                        max_err = err > max_err ? err : max_err;
                }
                ck_assert_int_le(max_err, 1);
                kh_done(&h);
        }
}
END_TEST

/* int16 LOGISTIC/TANH (gemmlowp fixed point): exact at 0, within a few
 * 2^-15 steps of the real functions everywhere. */
static void check_int16(const rt_registration_t *reg, float in_scale, double (*f)(double),
                        int max_steps) {
        static int16_t in[65536 / 16];
        const int n = 65536 / 16;
        for (int i = 0; i < n; i++)
                in[i] = (int16_t) (i * 16 - 32768 + (i % 16));
        kh_t h;
        kh_init(&h);
        int32_t a = kh_tensor(&h, RT_TYPE_INT16, 1, DIMS(n), in);
        int32_t o = kh_tensor(&h, RT_TYPE_INT16, 0, NULL, NULL);
        kh_quant(&h, a, in_scale, 0);
        kh_quant(&h, o, 1.0f / 32768, 0);
        ck_assert_int_eq(ew_run1(&h, reg, NULL, a, o), 0);
        const int16_t *z = h.tensors[o].data;
        for (int i = 0; i < n; i++) {
                int32_t want = ew_ref_quantize(f(in_scale * (double) in[i]), 1.0 / 32768, 0,
                                               -32768, 32767);
                ck_assert_msg(abs(z[i] - want) <= max_steps, "%s(%d) = %d, want %d", reg->name,
                              in[i], z[i], want);
        }
        kh_done(&h);
}

START_TEST(test_logistic_tanh_int16) {
        /* gemmlowp's 16-bit Newton-Raphson keeps 13 fractional bits, so the
         * error bound is several output steps (measured: 6 and 12). */
        check_int16(&rt_kernel_logistic, 1.0f / 4096, sigmoid, 6);
        check_int16(&rt_kernel_tanh, 1.0f / 4096, tanh, 12);
        check_int16(&rt_kernel_tanh, 1.0f / 2048, tanh, 12);

        kh_t h;
        kh_init(&h);
        int32_t a = kh_tensor(&h, RT_TYPE_INT16, 1, DIMS(3), (int16_t[]){ 0, 0, 0 });
        int32_t o = kh_tensor(&h, RT_TYPE_INT16, 0, NULL, NULL);
        kh_quant(&h, a, 1.0f / 4096, 0);
        kh_quant(&h, o, 1.0f / 32768, 0);
        ck_assert_int_eq(ew_run1(&h, &rt_kernel_logistic, NULL, a, o), 0);
        ck_assert_int_eq(((const int16_t *) h.tensors[o].data)[0], 16384);
        kh_done(&h);
}
END_TEST

static Suite *activations_suite(void) {
        Suite *s = suite_create("elementwise-activations");
        TCase *tc = tcase_create("core");
        tcase_add_test(tc, test_relu_family_float);
        tcase_add_test(tc, test_float_activations);
        tcase_add_test(tc, test_relu6_int8_rescaled);
        tcase_add_test(tc, test_relu_int16_multiplier_in_float);
        tcase_add_test(tc, test_relu6_float_nan_is_zero);
        tcase_add_test(tc, test_tanh_gelu_float_tails_match_tflite);
        tcase_add_test(tc, test_logistic_float_negative_tail);
        tcase_add_test(tc, test_logistic_tanh_8bit_tables);
        tcase_add_test(tc, test_logistic_int8_requires_scale_1_256);
        tcase_add_test(tc, test_leaky_relu_float_and_int8);
        tcase_add_test(tc, test_prelu_float_broadcast_alpha);
        tcase_add_test(tc, test_prelu_int8_and_bad_alpha);
        tcase_add_test(tc, test_hard_swish_quantized);
        tcase_add_test(tc, test_logistic_tanh_int16);
        suite_add_tcase(s, tc);
        return s;
}

EW_MAIN(activations_suite)
