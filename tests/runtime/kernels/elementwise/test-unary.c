/* SPDX-License-Identifier: Apache-2.0 */
/* Tests of runtime/kernels/elementwise/unary.c. */
#include <string.h>

#include "ew-test.h"

static void run_float(const rt_registration_t *reg, const float *in, const float *want, size_t n,
                      float tol) {
        kh_t h;
        kh_init(&h);
        int32_t a = kh_tensor(&h, RT_TYPE_FLOAT32, 1, DIMS((int32_t) n), in);
        int32_t o = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_int_eq(ew_run1(&h, reg, NULL, a, o), 0);
        ew_assert_shape(&h.tensors[o], 1, DIMS((int32_t) n));
        const float *z = h.tensors[o].data;
        for (size_t i = 0; i < n; i++)
                ck_assert_msg(fabsf(z[i] - want[i]) <= tol, "%s[%zu] = %g, want %g", reg->name, i,
                              z[i], want[i]);
        kh_done(&h);
}

START_TEST(test_unary_float_exact_ops) {
        run_float(&rt_kernel_abs, (float[]){ -2.5f, 0, 3 }, (float[]){ 2.5f, 0, 3 }, 3, 0);
        run_float(&rt_kernel_neg, (float[]){ -2.5f, 0, 3 }, (float[]){ 2.5f, 0, -3 }, 3, 0);
        run_float(&rt_kernel_ceil, (float[]){ -2.5f, 0.1f, 3 }, (float[]){ -2, 1, 3 }, 3, 0);
        run_float(&rt_kernel_floor, (float[]){ -2.5f, 0.9f, 3 }, (float[]){ -3, 0, 3 }, 3, 0);
        run_float(&rt_kernel_square, (float[]){ -3, 0.5f }, (float[]){ 9, 0.25f }, 2, 0);
        run_float(&rt_kernel_sqrt, (float[]){ 4, 2.25f }, (float[]){ 2, 1.5f }, 2, 0);
        run_float(&rt_kernel_rsqrt, (float[]){ 4, 0.25f }, (float[]){ 0.5f, 2 }, 2, 0);
        run_float(&rt_kernel_sign, (float[]){ -7, 0, 0.1f }, (float[]){ -1, 0, 1 }, 3, 0);
}
END_TEST

/* TFLite's ROUND sends halves to the even neighbour. */
START_TEST(test_round_half_to_even) {
        run_float(&rt_kernel_round,
                  (float[]){ 0.5f, 1.5f, 2.5f, -0.5f, -1.5f, -2.5f, 2.4f, 2.6f, -2.6f },
                  (float[]){ 0, 2, 2, 0, -2, -2, 2, 3, -3 }, 9, 0);
}
END_TEST

START_TEST(test_unary_float_transcendental) {
        run_float(&rt_kernel_exp, (float[]){ 0, 1, -1 }, (float[]){ 1, 2.7182817f, 0.36787944f },
                  3, 1e-6f);
        run_float(&rt_kernel_log, (float[]){ 1, 2.7182817f }, (float[]){ 0, 1 }, 2, 1e-6f);
        run_float(&rt_kernel_sin, (float[]){ 0, 1.5707964f }, (float[]){ 0, 1 }, 2, 1e-6f);
        run_float(&rt_kernel_cos, (float[]){ 0, 3.1415927f }, (float[]){ 1, -1 }, 2, 1e-6f);
}
END_TEST

START_TEST(test_unary_int_ops) {
        kh_t h;
        kh_init(&h);
        int32_t a = kh_tensor(&h, RT_TYPE_INT32, 1, DIMS(3), (int32_t[]){ -5, 0, 7 });
        int32_t o = kh_tensor(&h, RT_TYPE_INT32, 0, NULL, NULL);
        ck_assert_int_eq(ew_run1(&h, &rt_kernel_neg, NULL, a, o), 0);
        const int32_t *z = h.tensors[o].data;
        ck_assert_int_eq(z[0], 5);
        ck_assert_int_eq(z[1], 0);
        ck_assert_int_eq(z[2], -7);
        kh_done(&h);

        kh_init(&h);
        a = kh_tensor(&h, RT_TYPE_INT32, 1, DIMS(3), (int32_t[]){ -5, 0, 7 });
        o = kh_tensor(&h, RT_TYPE_INT32, 0, NULL, NULL);
        ck_assert_int_eq(ew_run1(&h, &rt_kernel_sign, NULL, a, o), 0);
        z = h.tensors[o].data;
        ck_assert_int_eq(z[0], -1);
        ck_assert_int_eq(z[1], 0);
        ck_assert_int_eq(z[2], 1);
        kh_done(&h);

        kh_init(&h);
        a = kh_tensor(&h, RT_TYPE_INT64, 1, DIMS(1), (int64_t[]){ -(1LL << 40) });
        o = kh_tensor(&h, RT_TYPE_INT64, 0, NULL, NULL);
        ck_assert_int_eq(ew_run1(&h, &rt_kernel_neg, NULL, a, o), 0);
        ck_assert(((const int64_t *) h.tensors[o].data)[0] == (1LL << 40));
        kh_done(&h);
}
END_TEST

START_TEST(test_abs_int8_rescaled) {
        kh_t h;
        kh_init(&h);
        /* in: scale 0.1 zp -10 ; out: scale 0.2 zp -128 */
        int32_t a = kh_tensor(&h, RT_TYPE_INT8, 1, DIMS(4), (int8_t[]){ -30, -10, 10, 127 });
        int32_t o = kh_tensor(&h, RT_TYPE_INT8, 0, NULL, NULL);
        kh_quant(&h, a, 0.1f, -10);
        kh_quant(&h, o, 0.2f, -128);
        ck_assert_int_eq(ew_run1(&h, &rt_kernel_abs, NULL, a, o), 0);
        const int8_t *z = h.tensors[o].data;
        /* |-2.0| = 2 -> 10 steps; 0; 2 -> 10; 13.7 -> 68.5 rounds to 69 */
        ck_assert_int_eq(z[0], -118);
        ck_assert_int_eq(z[1], -128);
        ck_assert_int_eq(z[2], -118);
        ck_assert_int_eq(z[3], -128 + 69);
        kh_done(&h);

        /* Same scale: plain integer abs around the zero point. */
        kh_init(&h);
        a = kh_tensor(&h, RT_TYPE_INT16, 1, DIMS(3), (int16_t[]){ -32768, -5, 9 });
        o = kh_tensor(&h, RT_TYPE_INT16, 0, NULL, NULL);
        kh_quant(&h, a, 0.01f, 0);
        kh_quant(&h, o, 0.01f, 0);
        ck_assert_int_eq(ew_run1(&h, &rt_kernel_abs, NULL, a, o), 0);
        const int16_t *w = h.tensors[o].data;
        ck_assert_int_eq(w[0], 32767);
        ck_assert_int_eq(w[1], 5);
        ck_assert_int_eq(w[2], 9);
        kh_done(&h);
}
END_TEST

START_TEST(test_unary_errors) {
        kh_t h;
        kh_init(&h);
        int32_t a = kh_tensor(&h, RT_TYPE_INT32, 1, DIMS(2), NULL);
        int32_t o = kh_tensor(&h, RT_TYPE_INT32, 0, NULL, NULL);
        ck_assert_int_eq(ew_run1(&h, &rt_kernel_sqrt, NULL, a, o), -ENOTSUP);
        ck_assert_ptr_nonnull(strstr(h.error, "SQRT: unsupported types int32 -> int32"));
        kh_done(&h);

        kh_init(&h);
        a = kh_tensor(&h, RT_TYPE_FLOAT32, 1, DIMS(2), NULL);
        o = kh_tensor(&h, RT_TYPE_INT32, 0, NULL, NULL);
        ck_assert_int_eq(ew_run1(&h, &rt_kernel_exp, NULL, a, o), -EINVAL);
        kh_done(&h);

        kh_init(&h);
        a = kh_tensor(&h, RT_TYPE_FLOAT32, 1, DIMS(2), NULL);
        int32_t b = kh_tensor(&h, RT_TYPE_FLOAT32, 1, DIMS(2), NULL);
        o = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_int_eq(ew_run2(&h, &rt_kernel_exp, NULL, a, b, o), -EINVAL);
        kh_done(&h);
}
END_TEST

START_TEST(test_rsqrt_int8_matches_double_reference) {
        int8_t in[120];
        for (int i = 0; i < 120; i++)
                in[i] = (int8_t) (i + 7 - 128);
        kh_t h;
        kh_init(&h);
        int32_t a = kh_tensor(&h, RT_TYPE_INT8, 1, DIMS(120), in);
        int32_t o = kh_tensor(&h, RT_TYPE_INT8, 0, NULL, NULL);
        kh_quant(&h, a, 0.02f, -128);
        kh_quant(&h, o, 0.05f, -100);
        ck_assert_int_eq(ew_run1(&h, &rt_kernel_rsqrt, NULL, a, o), 0);
        const int8_t *z = h.tensors[o].data;
        for (int i = 0; i < 120; i++) {
                double real = 1.0 / sqrt(0.02 * (in[i] + 128));
                ck_assert_msg(abs(z[i] - ew_ref_quantize(real, 0.05, -100, -128, 127)) <= 1,
                              "q=%d: %d", in[i], z[i]);
        }
        kh_done(&h);

        /* Below the zero point the op is undefined: an error. */
        kh_init(&h);
        a = kh_tensor(&h, RT_TYPE_INT8, 1, DIMS(2), (int8_t[]){ 5, -3 });
        o = kh_tensor(&h, RT_TYPE_INT8, 0, NULL, NULL);
        kh_quant(&h, a, 0.02f, 0);
        kh_quant(&h, o, 0.05f, 0);
        ck_assert_int_eq(ew_run1(&h, &rt_kernel_rsqrt, NULL, a, o), -EINVAL);
        kh_done(&h);
}
END_TEST

static Suite *unary_suite(void) {
        Suite *s = suite_create("elementwise-unary");
        TCase *tc = tcase_create("core");
        tcase_add_test(tc, test_unary_float_exact_ops);
        tcase_add_test(tc, test_round_half_to_even);
        tcase_add_test(tc, test_unary_float_transcendental);
        tcase_add_test(tc, test_unary_int_ops);
        tcase_add_test(tc, test_abs_int8_rescaled);
        tcase_add_test(tc, test_unary_errors);
        tcase_add_test(tc, test_rsqrt_int8_matches_double_reference);
        suite_add_tcase(s, tc);
        return s;
}

EW_MAIN(unary_suite)
