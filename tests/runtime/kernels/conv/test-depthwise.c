/* SPDX-License-Identifier: Apache-2.0 */
#include <string.h>

#include "conv-test.h"

static rt_depthwise_params_t params(rt_padding_t pad, int s, int d, int m, rt_activation_t act) {
        return (rt_depthwise_params_t) { .padding = pad, .stride_w = s, .stride_h = s,
                                         .depth_multiplier = m, .dilation_w = d, .dilation_h = d,
                                         .activation = act };
}

/* 1x3x3x2 input, 2x2 filter, depth multiplier 2 (4 output channels),
 * VALID: hand-computed. Channel c of the input feeds outputs 2c and 2c+1. */
START_TEST(test_depthwise_float_multiplier2) {
        kh_t h;
        kh_init(&h);
        /* input channel 0: 1..9, channel 1: 10, 20, ... 90 */
        float x[18];
        for (int i = 0; i < 9; i++) {
                x[2 * i] = (float) (i + 1);
                x[2 * i + 1] = (float) (10 * (i + 1));
        }
        /* filter [1,2,2,4]: taps (0,0) (0,1) (1,0) (1,1) */
        const float f[16] = {
                1, 0, 1, 1,
                0, 1, 0, 1,
                0, 0, 0, 1,
                0, 0, 1, 1,
        };
        const float bias[4] = { 0, 0.5f, 0, -1 };
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 4, (int32_t[]) { 1, 3, 3, 2 }, x);
        int32_t w = kh_const(&h, RT_TYPE_FLOAT32, 4, (int32_t[]) { 1, 2, 2, 4 }, f);
        int32_t b = kh_const(&h, RT_TYPE_FLOAT32, 1, (int32_t[]) { 4 }, bias);
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        rt_depthwise_params_t p = params(RT_PADDING_VALID, 1, 1, 2, RT_ACT_NONE);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_depthwise_conv_2d, &p, (int32_t[]) { in, w, b }, 3,
                                (int32_t[]) { out }, 1), 0);
        const rt_tensor_t *o = &h.tensors[out];
        ck_assert_int_eq(o->dims[1], 2);
        ck_assert_int_eq(o->dims[2], 2);
        ck_assert_int_eq(o->dims[3], 4);
        /* Window at (0,0): ch0 taps 1,2,4,5; ch1 taps 10,20,40,50.
         * out0 = 1*1 = 1; out1 = 2 + 0.5 = 2.5; out2 = 10 + 50 = 60;
         * out3 = 10+20+40+50 - 1 = 119. */
        const float *y = o->data;
        ck_assert_float_eq(y[0], 1);
        ck_assert_float_eq(y[1], 2.5f);
        ck_assert_float_eq(y[2], 60);
        ck_assert_float_eq(y[3], 119);
        /* Window at (1,1): ch0 taps 5,6,8,9; ch1 taps 50,60,80,90. */
        ck_assert_float_eq(y[12], 5);
        ck_assert_float_eq(y[13], 6.5f);
        ck_assert_float_eq(y[14], 140);
        ck_assert_float_eq(y[15], 279);
        kh_done(&h);
}
END_TEST

/* Pseudo-random float case against the double reference: SAME, stride 2,
 * dilation 2, RELU6, no bias. */
START_TEST(test_depthwise_float_same_stride2_dilation2) {
        enum { H = 7, W = 6, C = 3, M = 2, O = C * M, K = 3 };
        float x[H * W * C], f[K * K * O];
        ref_fill_f(x, ARRAY_LEN(x), -2, 2, 31);
        ref_fill_f(f, ARRAY_LEN(f), -1, 1, 32);
        for (int stride = 1; stride <= 2; stride++) {
                kh_t h;
                kh_init(&h);
                int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 4, (int32_t[]) { 1, H, W, C }, x);
                int32_t w = kh_const(&h, RT_TYPE_FLOAT32, 4, (int32_t[]) { 1, K, K, O }, f);
                int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
                rt_depthwise_params_t p = params(RT_PADDING_SAME, stride, 2, M, RT_ACT_RELU6);
                ck_assert_int_eq(kh_run(&h, &rt_kernel_depthwise_conv_2d, &p, (int32_t[]) { in, w, -1 }, 3,
                                        (int32_t[]) { out }, 1), 0);
                double xd[ARRAY_LEN(x)], fd[ARRAY_LEN(f)], yd[H * W * O];
                for (size_t i = 0; i < ARRAY_LEN(x); i++)
                        xd[i] = x[i];
                for (size_t i = 0; i < ARRAY_LEN(f); i++)
                        fd[i] = f[i];
                ref_conv2d(xd, 1, H, W, C, fd, O, K, K, true, NULL, stride, stride, 2, 2, true, yd);
                int oh, ow, unused;
                ref_window(H, K, stride, 2, true, &oh, &unused);
                ref_window(W, K, stride, 2, true, &ow, &unused);
                ck_assert_int_eq(h.tensors[out].dims[1], oh);
                ck_assert_int_eq(h.tensors[out].dims[2], ow);
                for (int i = 0; i < oh * ow * O; i++) {
                        double want = yd[i] < 0 ? 0 : (yd[i] > 6 ? 6 : yd[i]);
                        ck_assert_double_eq_tol(((float *) h.tensors[out].data)[i], want, 1e-5);
                }
                kh_done(&h);
        }
}
END_TEST

static void check_quant_dw(rt_type_t act_type, bool per_channel, int stride, int dil,
                           rt_activation_t act) {
        enum { H = 6, W = 5, C = 2, M = 2, O = C * M, K = 3 };
        const bool u8 = act_type == RT_TYPE_UINT8, i16 = act_type == RT_TYPE_INT16;
        const int32_t lo = u8 ? 0 : (i16 ? -32768 : -128), hi = u8 ? 255 : (i16 ? 32767 : 127);
        const float in_s = i16 ? 0.0031f : 0.043f, out_s = i16 ? 0.0117f : 0.097f;
        const int32_t in_zp = u8 ? 140 : (i16 ? 0 : 7), out_zp = u8 ? 99 : (i16 ? 0 : -11);
        const int32_t w_zp = u8 ? 128 : 0;
        float w_s[O] = { 0.0123f, 0.0077f, 0.0211f, 0.0049f };
        if (!per_channel)
                for (int o = 1; o < O; o++)
                        w_s[o] = w_s[0];
        int32_t xi[H * W * C], wi[K * K * O], bi[O];
        ref_fill_i32(xi, ARRAY_LEN(xi), i16 ? -5000 : lo, i16 ? 5000 : hi, 41);
        ref_fill_i32(wi, ARRAY_LEN(wi), u8 ? 0 : -127, u8 ? 255 : 127, 42);
        ref_fill_i32(bi, ARRAY_LEN(bi), -2000, 2000, 43);
        int16_t x16[ARRAY_LEN(xi)];
        uint8_t x8[ARRAY_LEN(xi)];
        int8_t wb[ARRAY_LEN(wi)];
        int64_t b64[O];
        for (size_t i = 0; i < ARRAY_LEN(xi); i++) {
                x16[i] = (int16_t) xi[i];
                x8[i] = (uint8_t) xi[i];
        }
        for (size_t i = 0; i < ARRAY_LEN(wi); i++)
                wb[i] = (int8_t) (uint8_t) wi[i];
        for (int o = 0; o < O; o++)
                b64[o] = bi[o];

        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, act_type, 4, (int32_t[]) { 1, H, W, C },
                               i16 ? (const void *) x16 : (const void *) x8);
        int32_t w = kh_const(&h, u8 ? RT_TYPE_UINT8 : RT_TYPE_INT8, 4, (int32_t[]) { 1, K, K, O }, wb);
        int32_t b = kh_const(&h, i16 ? RT_TYPE_INT64 : RT_TYPE_INT32, 1, (int32_t[]) { O },
                             i16 ? (const void *) b64 : (const void *) bi);
        int32_t out = kh_tensor(&h, act_type, 0, NULL, NULL);
        kh_quant(&h, in, in_s, in_zp);
        kh_quant(&h, out, out_s, out_zp);
        if (per_channel) {
                int64_t zps[O] = { 0 };
                kh_quant_channels(&h, w, O, w_s, zps, 3);
        } else {
                kh_quant(&h, w, w_s[0], w_zp);
        }
        rt_depthwise_params_t p = params(RT_PADDING_SAME, stride, dil, M, act);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_depthwise_conv_2d, &p, (int32_t[]) { in, w, b }, 3,
                                (int32_t[]) { out }, 1), 0);
        double xd[ARRAY_LEN(xi)], wd[ARRAY_LEN(wi)], bd[O], yd[H * W * O];
        for (size_t i = 0; i < ARRAY_LEN(xi); i++)
                xd[i] = xi[i] - in_zp;
        for (size_t i = 0; i < ARRAY_LEN(wi); i++)
                wd[i] = (u8 ? wi[i] : (int8_t) wi[i]) - w_zp;
        for (int o = 0; o < O; o++)
                bd[o] = bi[o];
        ref_conv2d(xd, 1, H, W, C, wd, O, K, K, true, bd, stride, stride, dil, dil, true, yd);
        int oh, ow, unused;
        ref_window(H, K, stride, dil, true, &oh, &unused);
        ref_window(W, K, stride, dil, true, &ow, &unused);
        int32_t amin = lo, amax = hi;
        if (act == RT_ACT_RELU_N1_TO_1) {
                amin = out_zp + (int32_t) lroundf(-1.0f / out_s);
                amax = out_zp + (int32_t) lroundf(1.0f / out_s);
                amin = amin < lo ? lo : amin;
                amax = amax > hi ? hi : amax;
        }
        const rt_tensor_t *o = &h.tensors[out];
        for (int i = 0; i < oh * ow * O; i++) {
                int c = i % O;
                double real = u8 ? (double) (in_s * w_s[c]) / (double) out_s :
                                   (double) in_s * (double) w_s[c] / (double) out_s;
                int32_t want = ref_output((int64_t) yd[i], real, out_zp, amin, amax,
                                          i16 ? REF_WIDE : REF_DOUBLE);
                int32_t got = u8 ? ((uint8_t *) o->data)[i] :
                              i16 ? ((int16_t *) o->data)[i] : ((int8_t *) o->data)[i];
                ck_assert_msg(got == want, "output %d: got %d want %d", i, got, want);
        }
        kh_done(&h);
}

START_TEST(test_depthwise_int8_per_channel) {
        check_quant_dw(RT_TYPE_INT8, true, 1, 1, RT_ACT_NONE);
        check_quant_dw(RT_TYPE_INT8, true, 2, 2, RT_ACT_RELU_N1_TO_1);
}
END_TEST

START_TEST(test_depthwise_uint8_zero_points) {
        check_quant_dw(RT_TYPE_UINT8, false, 1, 1, RT_ACT_NONE);
        check_quant_dw(RT_TYPE_UINT8, false, 2, 1, RT_ACT_NONE);
}
END_TEST

START_TEST(test_depthwise_int16x8) {
        check_quant_dw(RT_TYPE_INT16, true, 1, 2, RT_ACT_NONE);
}
END_TEST

/* Hybrid per-channel: input integers spanning [-128, 127] quantize exactly
 * (scale 1, zero point 0). */
START_TEST(test_depthwise_hybrid_per_channel) {
        enum { H = 4, W = 4, C = 2, O = 2, K = 3 };
        int32_t xi[H * W * C], wi[K * K * O];
        ref_fill_i32(xi, ARRAY_LEN(xi), -100, 100, 51);
        xi[3] = -128;
        xi[4] = 127;
        ref_fill_i32(wi, ARRAY_LEN(wi), -127, 127, 52);
        float x[ARRAY_LEN(xi)];
        int8_t wb[ARRAY_LEN(wi)];
        for (size_t i = 0; i < ARRAY_LEN(xi); i++)
                x[i] = (float) xi[i];
        for (size_t i = 0; i < ARRAY_LEN(wi); i++)
                wb[i] = (int8_t) wi[i];
        const float w_s[O] = { 0.25f, 0.125f };
        const float bias[O] = { 3.0f, -1.5f };
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 4, (int32_t[]) { 1, H, W, C }, x);
        int32_t w = kh_const(&h, RT_TYPE_INT8, 4, (int32_t[]) { 1, K, K, O }, wb);
        int32_t b = kh_const(&h, RT_TYPE_FLOAT32, 1, (int32_t[]) { O }, bias);
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        int64_t zps[O] = { 0 };
        kh_quant_channels(&h, w, O, w_s, zps, 3);
        rt_depthwise_params_t p = params(RT_PADDING_SAME, 1, 1, 1, RT_ACT_NONE);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_depthwise_conv_2d, &p, (int32_t[]) { in, w, b }, 3,
                                (int32_t[]) { out }, 1), 0);
        double xd[ARRAY_LEN(xi)], wd[ARRAY_LEN(wi)], bd[O], yd[H * W * O];
        for (size_t i = 0; i < ARRAY_LEN(xi); i++)
                xd[i] = xi[i];
        for (size_t i = 0; i < ARRAY_LEN(wi); i++)
                wd[i] = wi[i] * (double) w_s[i % O];
        for (int o = 0; o < O; o++)
                bd[o] = bias[o];
        ref_conv2d(xd, 1, H, W, C, wd, O, K, K, true, bd, 1, 1, 1, 1, true, yd);
        for (int i = 0; i < H * W * O; i++)
                ck_assert_double_eq_tol(((float *) h.tensors[out].data)[i], yd[i], 1e-3);
        kh_done(&h);
}
END_TEST

/* Negative ties (see test_conv2d_quantized_ruy_rounding): unlike CONV_2D,
 * whose uint8 path rounds twice like ruy (-0.75 -> 0), depthwise rounds
 * once, away from zero, for int8 and uint8 alike (-0.75 -> -1), as native
 * TensorFlow Lite 2.9 does on x86-64. */
START_TEST(test_depthwise_quantized_tie_rounding) {
        for (int u8 = 0; u8 <= 1; u8++) {
                kh_t h;
                kh_init(&h);
                const int8_t xi[1] = { -3 };
                const uint8_t xu[1] = { 0 };
                const int8_t fi[1] = { 1 };
                const uint8_t fu[1] = { 1 };
                int32_t in = kh_tensor(&h, u8 ? RT_TYPE_UINT8 : RT_TYPE_INT8, 4, (int32_t[]) { 1, 1, 1, 1 },
                                       u8 ? (const void *) xu : (const void *) xi);
                int32_t w = kh_const(&h, u8 ? RT_TYPE_UINT8 : RT_TYPE_INT8, 4, (int32_t[]) { 1, 1, 1, 1 },
                                     u8 ? (const void *) fu : (const void *) fi);
                int32_t out = kh_tensor(&h, u8 ? RT_TYPE_UINT8 : RT_TYPE_INT8, 0, NULL, NULL);
                kh_quant(&h, in, 0.5f, u8 ? 3 : 0);
                kh_quant(&h, w, 0.5f, 0);
                kh_quant(&h, out, 1.0f, u8 ? 128 : 0);
                rt_depthwise_params_t p = params(RT_PADDING_VALID, 1, 1, 1, RT_ACT_NONE);
                ck_assert_int_eq(kh_run(&h, &rt_kernel_depthwise_conv_2d, &p, (int32_t[]) { in, w }, 2,
                                        (int32_t[]) { out }, 1), 0);
                if (u8)
                        ck_assert_int_eq(((uint8_t *) h.tensors[out].data)[0], 127);
                else
                        ck_assert_int_eq(((int8_t *) h.tensors[out].data)[0], -1);
                kh_done(&h);
        }
}
END_TEST

START_TEST(test_depthwise_rejects_bad_filter) {
        kh_t h;
        kh_init(&h);
        float x[12] = { 0 }, f[10] = { 0 };
        /* 5 output channels are not a multiple of 3 input channels. */
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 4, (int32_t[]) { 1, 2, 2, 3 }, x);
        int32_t w = kh_const(&h, RT_TYPE_FLOAT32, 4, (int32_t[]) { 1, 1, 2, 5 }, f);
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        rt_depthwise_params_t p = params(RT_PADDING_VALID, 1, 1, 1, RT_ACT_NONE);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_depthwise_conv_2d, &p, (int32_t[]) { in, w }, 2,
                                (int32_t[]) { out }, 1), -EINVAL);
        kh_done(&h);

        /* Filter dimension 0 must be 1. */
        kh_init(&h);
        in = kh_tensor(&h, RT_TYPE_FLOAT32, 4, (int32_t[]) { 1, 2, 2, 3 }, x);
        w = kh_const(&h, RT_TYPE_FLOAT32, 4, (int32_t[]) { 2, 1, 1, 3 }, f);
        out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_depthwise_conv_2d, &p, (int32_t[]) { in, w }, 2,
                                (int32_t[]) { out }, 1), -EINVAL);
        kh_done(&h);
}
END_TEST

START_TEST(test_depthwise_rejects_per_channel_count) {
        kh_t h;
        kh_init(&h);
        int8_t x[8] = { 0 }, f[4] = { 0 };
        int32_t in = kh_tensor(&h, RT_TYPE_INT8, 4, (int32_t[]) { 1, 2, 2, 2 }, x);
        int32_t w = kh_const(&h, RT_TYPE_INT8, 4, (int32_t[]) { 1, 1, 1, 4 }, f);
        int32_t out = kh_tensor(&h, RT_TYPE_INT8, 0, NULL, NULL);
        kh_quant(&h, in, 0.1f, 0);
        kh_quant(&h, out, 0.1f, 0);
        const float s[3] = { 0.1f, 0.2f, 0.3f };
        const int64_t z[3] = { 0, 0, 0 };
        kh_quant_channels(&h, w, 3, s, z, 3);
        rt_depthwise_params_t p = params(RT_PADDING_VALID, 1, 1, 2, RT_ACT_NONE);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_depthwise_conv_2d, &p, (int32_t[]) { in, w }, 2,
                                (int32_t[]) { out }, 1), -EINVAL);
        ck_assert_ptr_nonnull(strstr(h.error, "scales"));
        kh_done(&h);
}
END_TEST

/* Crafted quantization overflowing the int32 accumulator (issue 22): the
 * sum wraps modulo 2^32 as on TFLite's x86 build, without undefined
 * behaviour (UBSan reported it here). */
START_TEST(test_depthwise_int8_overflowing_quantization) {
        enum { K = 2 };
        const int8_t x[K * K] = { 127, -128, 5, -7 };
        const int8_t f[K * K] = { 127, 127, -128, 3 };
        const int32_t bias[1] = { INT32_MAX - 5 };
        const int32_t in_zp = (1 << 30) + 17, out_zp = 3;
        const float in_s = 0.5f, w_s = 0.25f, out_s = 0.125f;
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_INT8, 4, (int32_t[]) { 1, K, K, 1 }, x);
        int32_t w = kh_const(&h, RT_TYPE_INT8, 4, (int32_t[]) { 1, K, K, 1 }, f);
        int32_t b = kh_const(&h, RT_TYPE_INT32, 1, (int32_t[]) { 1 }, bias);
        int32_t out = kh_tensor(&h, RT_TYPE_INT8, 0, NULL, NULL);
        kh_quant(&h, in, in_s, in_zp);
        kh_quant(&h, w, w_s, 0);
        kh_quant(&h, b, in_s * w_s, 0);
        kh_quant(&h, out, out_s, out_zp);
        rt_depthwise_params_t p = params(RT_PADDING_VALID, 1, 1, 1, RT_ACT_NONE);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_depthwise_conv_2d, &p, (int32_t[]) { in, w, b }, 3,
                                (int32_t[]) { out }, 1), 0);
        uint32_t acc = (uint32_t) bias[0];
        for (int i = 0; i < K * K; i++)
                acc += (uint32_t) ((int64_t) f[i] * ((int64_t) x[i] - in_zp));
        int32_t want = ref_output((int32_t) acc, (double) in_s * (double) w_s / (double) out_s, out_zp, -128, 127,
                                  REF_DOUBLE);
        ck_assert_int_eq(((int8_t *) h.tensors[out].data)[0], want);
        kh_done(&h);
}
END_TEST

static Suite *depthwise_suite(void) {
        Suite *s = suite_create("depthwise");
        TCase *tc = tcase_create("depthwise");
        tcase_add_test(tc, test_depthwise_float_multiplier2);
        tcase_add_test(tc, test_depthwise_float_same_stride2_dilation2);
        tcase_add_test(tc, test_depthwise_int8_per_channel);
        tcase_add_test(tc, test_depthwise_uint8_zero_points);
        tcase_add_test(tc, test_depthwise_int16x8);
        tcase_add_test(tc, test_depthwise_hybrid_per_channel);
        tcase_add_test(tc, test_depthwise_quantized_tie_rounding);
        tcase_add_test(tc, test_depthwise_rejects_bad_filter);
        tcase_add_test(tc, test_depthwise_int8_overflowing_quantization);
        tcase_add_test(tc, test_depthwise_rejects_per_channel_count);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        SRunner *sr = srunner_create(depthwise_suite());
        srunner_run_all(sr, CK_NORMAL);
        int failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed == 0 ? 0 : 1;
}
