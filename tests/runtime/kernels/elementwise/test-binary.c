/* SPDX-License-Identifier: Apache-2.0 */
/* Tests of runtime/kernels/elementwise/binary.c. */
#include <float.h>
#include <string.h>

#include "ew-test.h"

START_TEST(test_add_float_same_shape) {
        kh_t h;
        kh_init(&h);
        int32_t a = kh_tensor(&h, RT_TYPE_FLOAT32, 2, DIMS(2, 2), (float[]){ 1, 2, 3, 4 });
        int32_t b = kh_tensor(&h, RT_TYPE_FLOAT32, 2, DIMS(2, 2), (float[]){ 10, 20, 30, -40 });
        int32_t o = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ew_arith_params_t p = { .activation = RT_ACT_NONE };
        ck_assert_int_eq(ew_run2(&h, &rt_kernel_add, &p, a, b, o), 0);
        ew_assert_shape(&h.tensors[o], 2, DIMS(2, 2));
        const float *z = h.tensors[o].data;
        ck_assert_float_eq(z[0], 11);
        ck_assert_float_eq(z[1], 22);
        ck_assert_float_eq(z[2], 33);
        ck_assert_float_eq(z[3], -36);
        kh_done(&h);
}
END_TEST

/* Float ADD/SUB/MUL/DIV clamp to the activation range, which for NONE is
 * [-FLT_MAX, FLT_MAX]: an overflow to infinity becomes FLT_MAX (TFLite), so
 * a following LOG gives 88.72 rather than inf. NaN passes through. */
START_TEST(test_arith_float_clamps_to_flt_max) {
        const rt_registration_t *regs[4] = { &rt_kernel_add, &rt_kernel_sub, &rt_kernel_mul, &rt_kernel_div };
        const float a_v[3] = { INFINITY, 3e38f, NAN }, b_v[3] = { 1, -3e38f, 1 };
        const float want[4][3] = {
                { FLT_MAX, 0, NAN },           /* add */
                { FLT_MAX, FLT_MAX, NAN },     /* sub */
                { FLT_MAX, -FLT_MAX, NAN },    /* mul */
                { FLT_MAX, -1, NAN },          /* div */
        };
        for (int k = 0; k < 4; k++) {
                kh_t h;
                kh_init(&h);
                int32_t a = kh_tensor(&h, RT_TYPE_FLOAT32, 1, DIMS(3), a_v);
                int32_t b = kh_tensor(&h, RT_TYPE_FLOAT32, 1, DIMS(3), b_v);
                int32_t o = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
                ew_arith_params_t p = { .activation = RT_ACT_NONE };
                ck_assert_int_eq(ew_run2(&h, regs[k], &p, a, b, o), 0);
                const float *z = h.tensors[o].data;
                for (int i = 0; i < 3; i++) {
                        if (isnan(want[k][i]))
                                ck_assert_msg(isnan(z[i]), "%s[%d] = %g, want NaN", regs[k]->name, i, z[i]);
                        else
                                ck_assert_msg(z[i] == want[k][i], "%s[%d] = %g, want %g", regs[k]->name, i, z[i],
                                              want[k][i]);
                }
                kh_done(&h);
        }
}
END_TEST

/* TANH and SIGN_BIT as fused activations are accepted, and, as in TFLite's
 * arithmetic kernels, clamp like NONE instead of being applied. */
START_TEST(test_arith_tanh_sign_bit_activation_is_none) {
        for (int act = RT_ACT_TANH; act <= RT_ACT_SIGN_BIT; act++) {
                kh_t h;
                kh_init(&h);
                int32_t a = kh_tensor(&h, RT_TYPE_FLOAT32, 1, DIMS(2), (float[]){ 2, -INFINITY });
                int32_t b = kh_tensor(&h, RT_TYPE_FLOAT32, 1, DIMS(2), (float[]){ 3, 0 });
                int32_t o = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
                ew_arith_params_t p = { .activation = (rt_activation_t) act };
                ck_assert_int_eq(ew_run2(&h, &rt_kernel_add, &p, a, b, o), 0);
                ck_assert_float_eq(((float *) h.tensors[o].data)[0], 5);
                ck_assert_float_eq(((float *) h.tensors[o].data)[1], -FLT_MAX);
                kh_done(&h);
                /* int8 too: the full range of the type. */
                kh_init(&h);
                a = kh_tensor(&h, RT_TYPE_INT8, 1, DIMS(2), (int8_t[]){ 100, -100 });
                b = kh_tensor(&h, RT_TYPE_INT8, 1, DIMS(2), (int8_t[]){ 100, -100 });
                o = kh_tensor(&h, RT_TYPE_INT8, 0, NULL, NULL);
                kh_quant(&h, a, 0.5f, 0);
                kh_quant(&h, b, 0.5f, 0);
                kh_quant(&h, o, 1.0f, 0);
                ck_assert_int_eq(ew_run2(&h, &rt_kernel_mul, &p, a, b, o), 0);
                ck_assert_int_eq(((int8_t *) h.tensors[o].data)[0], 127);
                ck_assert_int_eq(((int8_t *) h.tensors[o].data)[1], 127);
                kh_done(&h);
        }
}
END_TEST

/* Float FLOOR_DIV divides in double like TFLite: -1e-30 / FLT_MAX is a
 * tiny negative number there (floor -1), while in float it underflows to -0. */
START_TEST(test_floor_div_float_in_double) {
        kh_t h;
        kh_init(&h);
        int32_t a = kh_tensor(&h, RT_TYPE_FLOAT32, 1, DIMS(2), (float[]){ -1e-30f, 7 });
        int32_t b = kh_tensor(&h, RT_TYPE_FLOAT32, 1, DIMS(2), (float[]){ FLT_MAX, -2 });
        int32_t o = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_int_eq(ew_run2(&h, &rt_kernel_floor_div, NULL, a, b, o), 0);
        ck_assert_float_eq(((float *) h.tensors[o].data)[0], -1);
        ck_assert_float_eq(((float *) h.tensors[o].data)[1], -4);
        kh_done(&h);
}
END_TEST

/* uint8 DIV of a tiny quotient: TFLite's final rounding shift goes past 31
 * bits (here 33), which its x86-64 build executes as a shift by 1 with a
 * full mask, so 1 / 106 comes out saturated (255) and -1 / 106 as 0, not as
 * the zero point 208. Values read from native TensorFlow Lite 2.9. */
START_TEST(test_div_uint8_shift_past_31_bits) {
        kh_t h;
        kh_init(&h);
        int32_t a = kh_tensor(&h, RT_TYPE_UINT8, 1, DIMS(3), (uint8_t[]){ 138, 136, 139 });
        int32_t b = kh_tensor(&h, RT_TYPE_UINT8, 1, DIMS(3), (uint8_t[]){ 189, 189, 250 });
        int32_t o = kh_tensor(&h, RT_TYPE_UINT8, 0, NULL, NULL);
        kh_quant(&h, a, 0.375f, 137);
        kh_quant(&h, b, 1.5f, 83);
        kh_quant(&h, o, 0.0625f, 208);
        ew_arith_params_t p = { .activation = RT_ACT_NONE };
        ck_assert_int_eq(ew_run2(&h, &rt_kernel_div, &p, a, b, o), 0);
        const uint8_t *z = h.tensors[o].data;
        ck_assert_int_eq(z[0], 255);
        ck_assert_int_eq(z[1], 0);
        ck_assert_int_eq(z[2], 255);
        kh_done(&h);
}
END_TEST

/* uint8 DIV by a negative divisor: TFLite 2.9 negates dividend and divisor
 * (not the reciprocal), so the dividend's headroom is that of -x: 8 / -154
 * and -8 / -154 land on the other side of the past-31-bit shift. Values
 * read from native TensorFlow Lite 2.9. */
START_TEST(test_div_uint8_negative_divisor_flips_dividend) {
        kh_t h;
        kh_init(&h);
        int32_t a = kh_tensor(&h, RT_TYPE_UINT8, 1, DIMS(2), (uint8_t[]){ 179, 195 });
        int32_t b = kh_tensor(&h, RT_TYPE_UINT8, 1, DIMS(2), (uint8_t[]){ 0, 0 });
        int32_t o = kh_tensor(&h, RT_TYPE_UINT8, 0, NULL, NULL);
        kh_quant(&h, a, 0.435055017f, 187);
        kh_quant(&h, b, 1.57324541f, 154);
        kh_quant(&h, o, 0.0445583835f, 210);
        ew_arith_params_t p = { .activation = RT_ACT_NONE };
        ck_assert_int_eq(ew_run2(&h, &rt_kernel_div, &p, a, b, o), 0);
        const uint8_t *z = h.tensors[o].data;
        ck_assert_int_eq(z[0], 210);
        ck_assert_int_eq(z[1], 0);
        kh_done(&h);
}
END_TEST

START_TEST(test_add_float_broadcast_scalar) {
        kh_t h;
        kh_init(&h);
        int32_t a = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, (float[]){ 0.5f });
        int32_t b = kh_tensor(&h, RT_TYPE_FLOAT32, 3, DIMS(1, 2, 2), (float[]){ 1, 2, 3, 4 });
        int32_t o = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ew_arith_params_t p = { 0 };
        ck_assert_int_eq(ew_run2(&h, &rt_kernel_add, &p, a, b, o), 0);
        ew_assert_shape(&h.tensors[o], 3, DIMS(1, 2, 2));
        const float *z = h.tensors[o].data;
        ck_assert_float_eq(z[0], 1.5f);
        ck_assert_float_eq(z[3], 4.5f);
        kh_done(&h);
}
END_TEST

START_TEST(test_sub_float_broadcast_row_and_column) {
        kh_t h;
        kh_init(&h);
        /* [3,1] - [1,4] -> [3,4] */
        int32_t a = kh_tensor(&h, RT_TYPE_FLOAT32, 2, DIMS(3, 1), (float[]){ 10, 20, 30 });
        int32_t b = kh_tensor(&h, RT_TYPE_FLOAT32, 2, DIMS(1, 4), (float[]){ 1, 2, 3, 4 });
        int32_t o = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ew_arith_params_t p = { 0 };
        ck_assert_int_eq(ew_run2(&h, &rt_kernel_sub, &p, a, b, o), 0);
        ew_assert_shape(&h.tensors[o], 2, DIMS(3, 4));
        const float *z = h.tensors[o].data;
        const float want[12] = { 9, 8, 7, 6, 19, 18, 17, 16, 29, 28, 27, 26 };
        for (int i = 0; i < 12; i++)
                ck_assert_float_eq(z[i], want[i]);
        kh_done(&h);
}
END_TEST

START_TEST(test_mul_float_broadcast_4d) {
        kh_t h;
        kh_init(&h);
        /* [2,1,3,1] * [1,2,1,2] -> [2,2,3,2] */
        float av[6], bv[4];
        for (int i = 0; i < 6; i++)
                av[i] = (float) (i + 1);
        for (int i = 0; i < 4; i++)
                bv[i] = (float) (10 * (i + 1));
        int32_t a = kh_tensor(&h, RT_TYPE_FLOAT32, 4, DIMS(2, 1, 3, 1), av);
        int32_t b = kh_tensor(&h, RT_TYPE_FLOAT32, 4, DIMS(1, 2, 1, 2), bv);
        int32_t o = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ew_arith_params_t p = { 0 };
        ck_assert_int_eq(ew_run2(&h, &rt_kernel_mul, &p, a, b, o), 0);
        ew_assert_shape(&h.tensors[o], 4, DIMS(2, 2, 3, 2));
        const float *z = h.tensors[o].data;
        for (int n = 0; n < 2; n++)
                for (int y = 0; y < 2; y++)
                        for (int x = 0; x < 3; x++)
                                for (int c = 0; c < 2; c++)
                                        ck_assert_float_eq(z[((n * 2 + y) * 3 + x) * 2 + c],
                                                           av[n * 3 + x] * bv[y * 2 + c]);
        kh_done(&h);
}
END_TEST

START_TEST(test_add_float_broadcast_rank6) {
        kh_t h;
        kh_init(&h);
        float av[64];
        for (int i = 0; i < 64; i++)
                av[i] = (float) i;
        int32_t a = kh_tensor(&h, RT_TYPE_FLOAT32, 6, DIMS(2, 2, 2, 2, 2, 2), av);
        int32_t b = kh_tensor(&h, RT_TYPE_FLOAT32, 6, DIMS(2, 1, 1, 1, 1, 1),
                              (float[]){ 100, 200 });
        int32_t o = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ew_arith_params_t p = { 0 };
        ck_assert_int_eq(ew_run2(&h, &rt_kernel_add, &p, a, b, o), 0);
        const float *z = h.tensors[o].data;
        ck_assert_float_eq(z[0], 100);
        ck_assert_float_eq(z[31], 131);
        ck_assert_float_eq(z[32], 232);
        ck_assert_float_eq(z[63], 263);
        kh_done(&h);
}
END_TEST

START_TEST(test_add_float_fused_activations) {
        const rt_activation_t acts[] = { RT_ACT_RELU, RT_ACT_RELU6, RT_ACT_RELU_N1_TO_1 };
        const float want[3][4] = {
                { 0, 0, 0.5f, 8 },
                { 0, 0, 0.5f, 6 },
                { -1, -0.5f, 0.5f, 1 },
        };
        for (int k = 0; k < 3; k++) {
                kh_t h;
                kh_init(&h);
                int32_t a = kh_tensor(&h, RT_TYPE_FLOAT32, 1, DIMS(4),
                                      (float[]){ -3, -0.5f, 0.5f, 8 });
                int32_t b = kh_tensor(&h, RT_TYPE_FLOAT32, 1, DIMS(1), (float[]){ 0 });
                int32_t o = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
                ew_arith_params_t p = { .activation = acts[k] };
                ck_assert_int_eq(ew_run2(&h, &rt_kernel_add, &p, a, b, o), 0);
                const float *z = h.tensors[o].data;
                for (int i = 0; i < 4; i++)
                        ck_assert_float_eq(z[i], want[k][i]);
                kh_done(&h);
        }
}
END_TEST

START_TEST(test_div_float_and_int32) {
        kh_t h;
        kh_init(&h);
        int32_t a = kh_tensor(&h, RT_TYPE_FLOAT32, 1, DIMS(3), (float[]){ 1, -6, 9 });
        int32_t b = kh_tensor(&h, RT_TYPE_FLOAT32, 1, DIMS(3), (float[]){ 4, 3, -2 });
        int32_t o = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ew_arith_params_t p = { 0 };
        ck_assert_int_eq(ew_run2(&h, &rt_kernel_div, &p, a, b, o), 0);
        const float *z = h.tensors[o].data;
        ck_assert_float_eq(z[0], 0.25f);
        ck_assert_float_eq(z[1], -2);
        ck_assert_float_eq(z[2], -4.5f);
        kh_done(&h);

        kh_init(&h);
        a = kh_tensor(&h, RT_TYPE_INT32, 1, DIMS(3), (int32_t[]){ 7, -7, 9 });
        b = kh_tensor(&h, RT_TYPE_INT32, 1, DIMS(3), (int32_t[]){ 2, 2, 0 });
        o = kh_tensor(&h, RT_TYPE_INT32, 0, NULL, NULL);
        ck_assert_int_eq(ew_run2(&h, &rt_kernel_div, &p, a, b, o), -EINVAL);
        ck_assert_ptr_nonnull(strstr(h.error, "division by zero"));
        kh_done(&h);
}
END_TEST

START_TEST(test_int32_arith_with_relu6) {
        kh_t h;
        kh_init(&h);
        int32_t a = kh_tensor(&h, RT_TYPE_INT32, 1, DIMS(4), (int32_t[]){ -5, 2, 3, 100 });
        int32_t b = kh_tensor(&h, RT_TYPE_INT32, 1, DIMS(4), (int32_t[]){ 1, 1, 2, 1 });
        int32_t o = kh_tensor(&h, RT_TYPE_INT32, 0, NULL, NULL);
        ew_arith_params_t p = { .activation = RT_ACT_RELU6 };
        ck_assert_int_eq(ew_run2(&h, &rt_kernel_mul, &p, a, b, o), 0);
        const int32_t *z = h.tensors[o].data;
        ck_assert_int_eq(z[0], 0);
        ck_assert_int_eq(z[1], 2);
        ck_assert_int_eq(z[2], 6);
        ck_assert_int_eq(z[3], 6);
        kh_done(&h);
}
END_TEST

START_TEST(test_int64_sub) {
        kh_t h;
        kh_init(&h);
        int32_t a = kh_tensor(&h, RT_TYPE_INT64, 1, DIMS(2),
                              (int64_t[]){ 5000000000LL, -1 });
        int32_t b = kh_tensor(&h, RT_TYPE_INT64, 0, NULL, (int64_t[]){ 1000000000LL });
        int32_t o = kh_tensor(&h, RT_TYPE_INT64, 0, NULL, NULL);
        ew_arith_params_t p = { 0 };
        ck_assert_int_eq(ew_run2(&h, &rt_kernel_sub, &p, a, b, o), 0);
        const int64_t *z = h.tensors[o].data;
        ck_assert(z[0] == 4000000000LL);
        ck_assert(z[1] == -1000000001LL);
        kh_done(&h);
}
END_TEST

START_TEST(test_floor_div_and_mod) {
        kh_t h;
        kh_init(&h);
        int32_t a = kh_tensor(&h, RT_TYPE_INT32, 1, DIMS(4), (int32_t[]){ 7, -7, 7, -7 });
        int32_t b = kh_tensor(&h, RT_TYPE_INT32, 1, DIMS(4), (int32_t[]){ 2, 2, -2, -2 });
        int32_t o = kh_tensor(&h, RT_TYPE_INT32, 0, NULL, NULL);
        ck_assert_int_eq(ew_run2(&h, &rt_kernel_floor_div, NULL, a, b, o), 0);
        const int32_t *z = h.tensors[o].data;
        ck_assert_int_eq(z[0], 3);
        ck_assert_int_eq(z[1], -4);
        ck_assert_int_eq(z[2], -4);
        ck_assert_int_eq(z[3], 3);
        kh_done(&h);

        kh_init(&h);
        a = kh_tensor(&h, RT_TYPE_INT32, 1, DIMS(4), (int32_t[]){ 7, -7, 7, -7 });
        b = kh_tensor(&h, RT_TYPE_INT32, 1, DIMS(4), (int32_t[]){ 2, 2, -2, -2 });
        o = kh_tensor(&h, RT_TYPE_INT32, 0, NULL, NULL);
        ck_assert_int_eq(ew_run2(&h, &rt_kernel_floor_mod, NULL, a, b, o), 0);
        z = h.tensors[o].data;
        ck_assert_int_eq(z[0], 1);
        ck_assert_int_eq(z[1], 1);
        ck_assert_int_eq(z[2], -1);
        ck_assert_int_eq(z[3], -1);
        kh_done(&h);

        kh_init(&h);
        a = kh_tensor(&h, RT_TYPE_FLOAT32, 1, DIMS(2), (float[]){ -7.5f, 7.5f });
        b = kh_tensor(&h, RT_TYPE_FLOAT32, 1, DIMS(2), (float[]){ 2, -2 });
        o = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_int_eq(ew_run2(&h, &rt_kernel_floor_mod, NULL, a, b, o), 0);
        const float *f = h.tensors[o].data;
        ck_assert_float_eq(f[0], 0.5f);
        ck_assert_float_eq(f[1], -0.5f);
        kh_done(&h);
}
END_TEST

START_TEST(test_floor_div_by_zero_fails) {
        kh_t h;
        kh_init(&h);
        int32_t a = kh_tensor(&h, RT_TYPE_INT32, 1, DIMS(2), (int32_t[]){ 1, 2 });
        int32_t b = kh_tensor(&h, RT_TYPE_INT32, 1, DIMS(2), (int32_t[]){ 1, 0 });
        int32_t o = kh_tensor(&h, RT_TYPE_INT32, 0, NULL, NULL);
        ck_assert_int_eq(ew_run2(&h, &rt_kernel_floor_div, NULL, a, b, o), -EINVAL);
        kh_done(&h);
}
END_TEST

START_TEST(test_pow_maximum_minimum_sqdiff) {
        kh_t h;
        kh_init(&h);
        int32_t a = kh_tensor(&h, RT_TYPE_INT32, 1, DIMS(3), (int32_t[]){ 2, -3, 5 });
        int32_t b = kh_tensor(&h, RT_TYPE_INT32, 1, DIMS(3), (int32_t[]){ 10, 3, 0 });
        int32_t o = kh_tensor(&h, RT_TYPE_INT32, 0, NULL, NULL);
        ck_assert_int_eq(ew_run2(&h, &rt_kernel_pow, NULL, a, b, o), 0);
        const int32_t *z = h.tensors[o].data;
        ck_assert_int_eq(z[0], 1024);
        ck_assert_int_eq(z[1], -27);
        ck_assert_int_eq(z[2], 1);
        kh_done(&h);

        kh_init(&h);
        a = kh_tensor(&h, RT_TYPE_FLOAT32, 1, DIMS(3), (float[]){ 1, -2, 3 });
        b = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, (float[]){ 0 });
        o = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_int_eq(ew_run2(&h, &rt_kernel_maximum, NULL, a, b, o), 0);
        const float *f = h.tensors[o].data;
        ck_assert_float_eq(f[0], 1);
        ck_assert_float_eq(f[1], 0);
        ck_assert_float_eq(f[2], 3);
        kh_done(&h);

        kh_init(&h);
        a = kh_tensor(&h, RT_TYPE_INT8, 1, DIMS(3), (int8_t[]){ -100, 5, 127 });
        b = kh_tensor(&h, RT_TYPE_INT8, 1, DIMS(3), (int8_t[]){ -101, 6, -128 });
        o = kh_tensor(&h, RT_TYPE_INT8, 0, NULL, NULL);
        ck_assert_int_eq(ew_run2(&h, &rt_kernel_minimum, NULL, a, b, o), 0);
        const int8_t *q = h.tensors[o].data;
        ck_assert_int_eq(q[0], -101);
        ck_assert_int_eq(q[1], 5);
        ck_assert_int_eq(q[2], -128);
        kh_done(&h);

        kh_init(&h);
        a = kh_tensor(&h, RT_TYPE_FLOAT32, 1, DIMS(2), (float[]){ 1, -2 });
        b = kh_tensor(&h, RT_TYPE_FLOAT32, 1, DIMS(2), (float[]){ 4, 1 });
        o = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_int_eq(ew_run2(&h, &rt_kernel_squared_difference, NULL, a, b, o), 0);
        f = h.tensors[o].data;
        ck_assert_float_eq(f[0], 9);
        ck_assert_float_eq(f[1], 9);
        kh_done(&h);
}
END_TEST

START_TEST(test_pow_negative_integer_exponent_fails) {
        kh_t h;
        kh_init(&h);
        int32_t a = kh_tensor(&h, RT_TYPE_INT32, 1, DIMS(1), (int32_t[]){ 2 });
        int32_t b = kh_tensor(&h, RT_TYPE_INT32, 1, DIMS(1), (int32_t[]){ -1 });
        int32_t o = kh_tensor(&h, RT_TYPE_INT32, 0, NULL, NULL);
        ck_assert_int_eq(ew_run2(&h, &rt_kernel_pow, NULL, a, b, o), -EINVAL);
        kh_done(&h);
}
END_TEST

START_TEST(test_add_incompatible_shapes_einval) {
        kh_t h;
        kh_init(&h);
        int32_t a = kh_tensor(&h, RT_TYPE_FLOAT32, 2, DIMS(2, 3), NULL);
        int32_t b = kh_tensor(&h, RT_TYPE_FLOAT32, 2, DIMS(2, 4), NULL);
        int32_t o = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ew_arith_params_t p = { 0 };
        ck_assert_int_eq(ew_run2(&h, &rt_kernel_add, &p, a, b, o), -EINVAL);
        ck_assert_ptr_nonnull(strstr(h.error, "[2,3] and [2,4] do not broadcast"));
        kh_done(&h);
}
END_TEST

START_TEST(test_add_mismatched_types_einval) {
        kh_t h;
        kh_init(&h);
        int32_t a = kh_tensor(&h, RT_TYPE_FLOAT32, 1, DIMS(2), NULL);
        int32_t b = kh_tensor(&h, RT_TYPE_INT32, 1, DIMS(2), NULL);
        int32_t o = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ew_arith_params_t p = { 0 };
        ck_assert_int_eq(ew_run2(&h, &rt_kernel_add, &p, a, b, o), -EINVAL);
        kh_done(&h);
}
END_TEST

START_TEST(test_unsupported_type_enotsup) {
        kh_t h;
        kh_init(&h);
        int32_t a = kh_tensor(&h, RT_TYPE_BOOL, 1, DIMS(2), NULL);
        int32_t b = kh_tensor(&h, RT_TYPE_BOOL, 1, DIMS(2), NULL);
        int32_t o = kh_tensor(&h, RT_TYPE_BOOL, 0, NULL, NULL);
        ew_arith_params_t p = { 0 };
        ck_assert_int_eq(ew_run2(&h, &rt_kernel_add, &p, a, b, o), -ENOTSUP);
        ck_assert_ptr_nonnull(strstr(h.error, "ADD: unsupported types bool -> bool"));
        kh_done(&h);
        kh_init(&h);
        a = kh_tensor(&h, RT_TYPE_UINT8, 1, DIMS(2), NULL);
        b = kh_tensor(&h, RT_TYPE_UINT8, 1, DIMS(2), NULL);
        o = kh_tensor(&h, RT_TYPE_UINT8, 0, NULL, NULL);
        ck_assert_int_eq(ew_run2(&h, &rt_kernel_squared_difference, &p, a, b, o), -ENOTSUP);
        kh_done(&h);
}
END_TEST

/* int8 ADD over every pair of a grid of raw values, against a double
 * precision reference: TFLite's fixed point is within one step of it, and
 * exact on hand-checked points. */
START_TEST(test_add_int8_matches_double_reference) {
        const float s1 = 0.04072536528110504f, s2 = 0.04124561324715614f,
                    so = 0.05837741121649742f;
        const int32_t z1 = -2, z2 = -1, zo = -3;
        int8_t av[256], bv[256];
        for (int i = 0; i < 256; i++) {
                av[i] = (int8_t) (i - 128);
                bv[i] = (int8_t) (127 - ((i * 37) & 255));
        }
        kh_t h;
        kh_init(&h);
        int32_t a = kh_tensor(&h, RT_TYPE_INT8, 1, DIMS(256), av);
        int32_t b = kh_tensor(&h, RT_TYPE_INT8, 1, DIMS(256), bv);
        int32_t o = kh_tensor(&h, RT_TYPE_INT8, 1, DIMS(256), NULL);
        kh_quant(&h, a, s1, z1);
        kh_quant(&h, b, s2, z2);
        kh_quant(&h, o, so, zo);
        ew_arith_params_t p = { 0 };
        ck_assert_int_eq(ew_run2(&h, &rt_kernel_add, &p, a, b, o), 0);
        const int8_t *z = h.tensors[o].data;
        int exact = 0;
        for (int i = 0; i < 256; i++) {
                double real = s1 * (av[i] - z1) + s2 * (bv[i] - z2);
                int32_t want = ew_ref_quantize(real, so, zo, -128, 127);
                ck_assert_int_le(abs(z[i] - want), 1);
                exact += z[i] == want;
        }
        ck_assert_int_ge(exact, 240);
        /* 0 + 0 in real terms is the output zero point. */
        ck_assert_int_eq(z[128 - 2 + 0], ew_ref_quantize(s1 * (av[126] - z1) + s2 * (bv[126] - z2),
                                                          so, zo, -128, 127));
        kh_done(&h);
}
END_TEST

START_TEST(test_add_uint8_relu6_range) {
        kh_t h;
        kh_init(&h);
        /* scale 0.1, zp 128: real = (q - 128) / 10. */
        int32_t a = kh_tensor(&h, RT_TYPE_UINT8, 1, DIMS(4), (uint8_t[]){ 78, 128, 158, 228 });
        int32_t b = kh_tensor(&h, RT_TYPE_UINT8, 1, DIMS(1), (uint8_t[]){ 138 });
        int32_t o = kh_tensor(&h, RT_TYPE_UINT8, 0, NULL, NULL);
        kh_quant(&h, a, 0.1f, 128);
        kh_quant(&h, b, 0.1f, 128);
        kh_quant(&h, o, 0.1f, 128);
        ew_arith_params_t p = { .activation = RT_ACT_RELU6 };
        ck_assert_int_eq(ew_run2(&h, &rt_kernel_add, &p, a, b, o), 0);
        const uint8_t *z = h.tensors[o].data;
        /* -5+1 -> 0 (q 128), 0+1 -> 1 (138), 3+1 -> 4 (168), 10+1 -> 6 (188) */
        ck_assert_int_eq(z[0], 128);
        ck_assert_int_eq(z[1], 138);
        ck_assert_int_eq(z[2], 168);
        ck_assert_int_eq(z[3], 188);
        kh_done(&h);
}
END_TEST

START_TEST(test_add_int16_general_scales) {
        const float s1 = 0.0005852500908076763f, s2 = 0.0008069296018220484f,
                    so = 0.0010244421428069472f;
        int16_t av[64], bv[64];
        for (int i = 0; i < 64; i++) {
                av[i] = (int16_t) (i * 1021 - 32768);
                bv[i] = (int16_t) (32767 - i * 977);
        }
        kh_t h;
        kh_init(&h);
        int32_t a = kh_tensor(&h, RT_TYPE_INT16, 1, DIMS(64), av);
        int32_t b = kh_tensor(&h, RT_TYPE_INT16, 1, DIMS(64), bv);
        int32_t o = kh_tensor(&h, RT_TYPE_INT16, 0, NULL, NULL);
        kh_quant(&h, a, s1, 0);
        kh_quant(&h, b, s2, 0);
        kh_quant(&h, o, so, 0);
        ew_arith_params_t p = { .pot_scale_int16 = true };
        ck_assert_int_eq(ew_run2(&h, &rt_kernel_add, &p, a, b, o), 0);
        const ew_data_t *d = h.node.user_data;
        ck_assert(!d->pot16);
        ck_assert_int_eq(d->left_shift, 15);
        const int16_t *z = h.tensors[o].data;
        for (int i = 0; i < 64; i++) {
                double real = (double) s1 * av[i] + (double) s2 * bv[i];
                ck_assert_int_le(abs(z[i] - ew_ref_quantize(real, so, 0, -32768, 32767)), 1);
        }
        kh_done(&h);
}
END_TEST

START_TEST(test_add_int16_pot_path) {
        kh_t h;
        kh_init(&h);
        /* input1 at the output scale 2^-10, input2 at 2^-12: input2 >> 2. */
        int32_t a = kh_tensor(&h, RT_TYPE_INT16, 1, DIMS(4),
                              (int16_t[]){ 100, -100, 32000, -32000 });
        int32_t b = kh_tensor(&h, RT_TYPE_INT16, 1, DIMS(4), (int16_t[]){ 6, -6, 4000, -4000 });
        int32_t o = kh_tensor(&h, RT_TYPE_INT16, 0, NULL, NULL);
        kh_quant(&h, a, 1.0f / 1024, 0);
        kh_quant(&h, b, 1.0f / 4096, 0);
        kh_quant(&h, o, 1.0f / 1024, 0);
        ew_arith_params_t p = { .pot_scale_int16 = true };
        ck_assert_int_eq(ew_run2(&h, &rt_kernel_add, &p, a, b, o), 0);
        const ew_data_t *d = h.node.user_data;
        ck_assert(d->pot16);
        const int16_t *z = h.tensors[o].data;
        /* 6/4 = 1.5 rounds away from zero to 2; saturates at the ends. */
        ck_assert_int_eq(z[0], 102);
        ck_assert_int_eq(z[1], -102);
        ck_assert_int_eq(z[2], 32767);
        ck_assert_int_eq(z[3], -32768);
        kh_done(&h);
}
END_TEST

START_TEST(test_sub_int16_broadcast_general) {
        const float s1 = 0.0009693715837784111f, s2 = 8.709842404641677e-06f,
                    so = 0.0005941494018770754f;
        int16_t av[2 * 8], bv[8];
        for (int i = 0; i < 16; i++)
                av[i] = (int16_t) (i * 3001 - 24000);
        for (int i = 0; i < 8; i++)
                bv[i] = (int16_t) (i * 7919 - 30000);
        kh_t h;
        kh_init(&h);
        int32_t a = kh_tensor(&h, RT_TYPE_INT16, 3, DIMS(1, 2, 8), av);
        int32_t b = kh_tensor(&h, RT_TYPE_INT16, 1, DIMS(8), bv);
        int32_t o = kh_tensor(&h, RT_TYPE_INT16, 0, NULL, NULL);
        kh_quant(&h, a, s1, 0);
        kh_quant(&h, b, s2, 0);
        kh_quant(&h, o, so, 0);
        ew_arith_params_t p = { .pot_scale_int16 = true };
        ck_assert_int_eq(ew_run2(&h, &rt_kernel_sub, &p, a, b, o), 0);
        ew_assert_shape(&h.tensors[o], 3, DIMS(1, 2, 8));
        const int16_t *z = h.tensors[o].data;
        for (int i = 0; i < 16; i++) {
                double real = (double) s1 * av[i] - (double) s2 * bv[i % 8];
                ck_assert_int_le(abs(z[i] - ew_ref_quantize(real, so, 0, -32768, 32767)), 1);
        }
        kh_done(&h);
}
END_TEST

START_TEST(test_mul_int8_matches_double_reference) {
        const float s1 = 0.02f, s2 = 0.05f, so = 0.01f;
        const int32_t z1 = 3, z2 = -7, zo = 10;
        int8_t av[200], bv[200];
        for (int i = 0; i < 200; i++) {
                av[i] = (int8_t) ((i * 13) % 256 - 128);
                bv[i] = (int8_t) ((i * 71 + 5) % 256 - 128);
        }
        kh_t h;
        kh_init(&h);
        int32_t a = kh_tensor(&h, RT_TYPE_INT8, 1, DIMS(200), av);
        int32_t b = kh_tensor(&h, RT_TYPE_INT8, 1, DIMS(200), bv);
        int32_t o = kh_tensor(&h, RT_TYPE_INT8, 0, NULL, NULL);
        kh_quant(&h, a, s1, z1);
        kh_quant(&h, b, s2, z2);
        kh_quant(&h, o, so, zo);
        ew_arith_params_t p = { 0 };
        ck_assert_int_eq(ew_run2(&h, &rt_kernel_mul, &p, a, b, o), 0);
        const int8_t *z = h.tensors[o].data;
        for (int i = 0; i < 200; i++) {
                double real = (double) s1 * (av[i] - z1) * (double) s2 * (bv[i] - z2);
                ck_assert_int_le(abs(z[i] - ew_ref_quantize(real, so, zo, -128, 127)), 1);
        }
        kh_done(&h);
}
END_TEST

START_TEST(test_squared_difference_int8) {
        const float s = 0.05f, so = 0.02f;
        int8_t av[100], bv[100];
        for (int i = 0; i < 100; i++) {
                av[i] = (int8_t) (i - 50);
                bv[i] = (int8_t) (20 - i / 3);
        }
        kh_t h;
        kh_init(&h);
        int32_t a = kh_tensor(&h, RT_TYPE_INT8, 1, DIMS(100), av);
        int32_t b = kh_tensor(&h, RT_TYPE_INT8, 1, DIMS(100), bv);
        int32_t o = kh_tensor(&h, RT_TYPE_INT8, 0, NULL, NULL);
        kh_quant(&h, a, s, 0);
        kh_quant(&h, b, s, 0);
        kh_quant(&h, o, so, -128);
        ck_assert_int_eq(ew_run2(&h, &rt_kernel_squared_difference, NULL, a, b, o), 0);
        const int8_t *z = h.tensors[o].data;
        for (int i = 0; i < 100; i++) {
                double dd = (double) s * (av[i] - bv[i]);
                ck_assert_int_le(abs(z[i] - ew_ref_quantize(dd * dd, so, -128, -128, 127)), 1);
        }
        kh_done(&h);
}
END_TEST

START_TEST(test_squared_difference_int16) {
        int16_t av[64], bv[64];
        for (int i = 0; i < 64; i++) {
                av[i] = (int16_t) (i * 1000 - 32000);
                bv[i] = (int16_t) (20000 - i * 613);
        }
        kh_t h;
        kh_init(&h);
        int32_t a = kh_tensor(&h, RT_TYPE_INT16, 1, DIMS(64), av);
        int32_t b = kh_tensor(&h, RT_TYPE_INT16, 1, DIMS(64), bv);
        int32_t o = kh_tensor(&h, RT_TYPE_INT16, 0, NULL, NULL);
        kh_quant(&h, a, 1.0f / 8192, 0);
        kh_quant(&h, b, 1.0f / 4096, 0);
        kh_quant(&h, o, 1.0f / 1024, 0);
        ck_assert_int_eq(ew_run2(&h, &rt_kernel_squared_difference, NULL, a, b, o), 0);
        const int16_t *z = h.tensors[o].data;
        for (int i = 0; i < 64; i++) {
                /* Without headroom (left shift 0) each input is rounded to
                 * 2 * max scale = 2^-11 before squaring: allow that error. */
                double dd = av[i] / 8192.0 - bv[i] / 4096.0;
                int bound = 1 + (int) ceil(2 * fabs(dd) * (1.0 / 2048) * 1024);
                ck_assert_int_le(abs(z[i] - ew_ref_quantize(dd * dd, 1.0 / 1024, 0, -32768, 32767)),
                                 bound);
        }
        kh_done(&h);
}
END_TEST

START_TEST(test_add_n_float) {
        kh_t h;
        kh_init(&h);
        int32_t a = kh_tensor(&h, RT_TYPE_FLOAT32, 1, DIMS(2), (float[]){ 1, 2 });
        int32_t b = kh_tensor(&h, RT_TYPE_FLOAT32, 1, DIMS(2), (float[]){ 10, 20 });
        int32_t c = kh_tensor(&h, RT_TYPE_FLOAT32, 1, DIMS(2), (float[]){ 100, 200 });
        int32_t o = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_add_n, NULL, (const int32_t[]){ a, b, c }, 3,
                                (const int32_t[]){ o }, 1),
                         0);
        const float *z = h.tensors[o].data;
        ck_assert_float_eq(z[0], 111);
        ck_assert_float_eq(z[1], 222);
        kh_done(&h);
}
END_TEST

/* Float ADD_N adds pairwise like TFLite's float ADD: each partial sum is
 * clamped to [-FLT_MAX, FLT_MAX], so FLT_MAX + FLT_MAX - FLT_MAX is 0, not inf. */
START_TEST(test_add_n_float_clamps_partial_sums) {
        kh_t h;
        kh_init(&h);
        int32_t a = kh_tensor(&h, RT_TYPE_FLOAT32, 1, DIMS(2), (float[]){ FLT_MAX, -INFINITY });
        int32_t b = kh_tensor(&h, RT_TYPE_FLOAT32, 1, DIMS(2), (float[]){ FLT_MAX, 1 });
        int32_t c = kh_tensor(&h, RT_TYPE_FLOAT32, 1, DIMS(2), (float[]){ -FLT_MAX, 1 });
        int32_t o = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_add_n, NULL, (const int32_t[]){ a, b, c }, 3,
                                (const int32_t[]){ o }, 1),
                         0);
        const float *z = h.tensors[o].data;
        ck_assert_float_eq(z[0], 0);
        ck_assert_float_eq(z[1], -FLT_MAX);
        kh_done(&h);
}
END_TEST

START_TEST(test_add_n_shape_mismatch_einval) {
        kh_t h;
        kh_init(&h);
        int32_t a = kh_tensor(&h, RT_TYPE_INT32, 1, DIMS(2), NULL);
        int32_t b = kh_tensor(&h, RT_TYPE_INT32, 1, DIMS(3), NULL);
        int32_t o = kh_tensor(&h, RT_TYPE_INT32, 0, NULL, NULL);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_add_n, NULL, (const int32_t[]){ a, b }, 2,
                                (const int32_t[]){ o }, 1),
                         -EINVAL);
        kh_done(&h);
}
END_TEST

START_TEST(test_div_uint8_int8_match_double_reference) {
        const rt_type_t types[2] = { RT_TYPE_UINT8, RT_TYPE_INT8 };
        for (int k = 0; k < 2; k++) {
                const int32_t z1 = k ? -5 : 120, z2 = k ? -128 : 0, zo = k ? -128 : 0;
                uint8_t av[255], bv[255];
                for (int i = 0; i < 255; i++) {
                        av[i] = (uint8_t) ((i * 29 + 3) & 255);
                        bv[i] = (uint8_t) (i + 1);
                        if (k && bv[i] == 128) /* int8 -128 is the zero point */
                                bv[i] = 129;
                }
                kh_t h;
                kh_init(&h);
                int32_t a = kh_tensor(&h, types[k], 1, DIMS(255), av);
                int32_t b = kh_tensor(&h, types[k], 1, DIMS(255), bv);
                int32_t o = kh_tensor(&h, types[k], 0, NULL, NULL);
                kh_quant(&h, a, 0.1f, z1);
                kh_quant(&h, b, 0.05f, z2);
                kh_quant(&h, o, 0.02f, zo);
                ew_arith_params_t p = { 0 };
                ck_assert_int_eq(ew_run2(&h, &rt_kernel_div, &p, a, b, o), 0);
                const uint8_t *z = h.tensors[o].data;
                int32_t lo, hi;
                ku_type_range(types[k], &lo, &hi);
                for (int i = 0; i < 255; i++) {
                        int32_t qa = k ? (int8_t) av[i] : av[i], qb = k ? (int8_t) bv[i] : bv[i];
                        int32_t got = k ? (int8_t) z[i] : z[i];
                        double real = 0.1 * (qa - z1) / (0.05 * (qb - z2));
                        ck_assert_msg(abs(got - ew_ref_quantize(real, 0.02, zo, lo, hi)) <= 1,
                                      "%d / %d -> %d", qa, qb, got);
                }
                kh_done(&h);
        }
}
END_TEST

static Suite *binary_suite(void) {
        Suite *s = suite_create("elementwise-binary");
        TCase *tc = tcase_create("core");
        tcase_add_test(tc, test_add_float_same_shape);
        tcase_add_test(tc, test_add_float_broadcast_scalar);
        tcase_add_test(tc, test_sub_float_broadcast_row_and_column);
        tcase_add_test(tc, test_mul_float_broadcast_4d);
        tcase_add_test(tc, test_add_float_broadcast_rank6);
        tcase_add_test(tc, test_add_float_fused_activations);
        tcase_add_test(tc, test_div_float_and_int32);
        tcase_add_test(tc, test_int32_arith_with_relu6);
        tcase_add_test(tc, test_int64_sub);
        tcase_add_test(tc, test_floor_div_and_mod);
        tcase_add_test(tc, test_floor_div_by_zero_fails);
        tcase_add_test(tc, test_pow_maximum_minimum_sqdiff);
        tcase_add_test(tc, test_pow_negative_integer_exponent_fails);
        tcase_add_test(tc, test_add_incompatible_shapes_einval);
        tcase_add_test(tc, test_add_mismatched_types_einval);
        tcase_add_test(tc, test_unsupported_type_enotsup);
        tcase_add_test(tc, test_add_int8_matches_double_reference);
        tcase_add_test(tc, test_add_uint8_relu6_range);
        tcase_add_test(tc, test_add_int16_general_scales);
        tcase_add_test(tc, test_add_int16_pot_path);
        tcase_add_test(tc, test_sub_int16_broadcast_general);
        tcase_add_test(tc, test_mul_int8_matches_double_reference);
        tcase_add_test(tc, test_squared_difference_int8);
        tcase_add_test(tc, test_squared_difference_int16);
        tcase_add_test(tc, test_div_uint8_int8_match_double_reference);
        tcase_add_test(tc, test_add_n_float);
        tcase_add_test(tc, test_add_n_float_clamps_partial_sums);
        tcase_add_test(tc, test_arith_float_clamps_to_flt_max);
        tcase_add_test(tc, test_floor_div_float_in_double);
        tcase_add_test(tc, test_div_uint8_shift_past_31_bits);
        tcase_add_test(tc, test_div_uint8_negative_divisor_flips_dividend);
        tcase_add_test(tc, test_arith_tanh_sign_bit_activation_is_none);
        tcase_add_test(tc, test_add_n_shape_mismatch_einval);
        suite_add_tcase(s, tc);
        return s;
}

EW_MAIN(binary_suite)
