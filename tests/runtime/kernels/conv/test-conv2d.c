/* SPDX-License-Identifier: Apache-2.0 */
#include <math.h>
#include <string.h>

#include "conv-test.h"

static rt_conv_params_t params(rt_padding_t pad, int s, int d, rt_activation_t act) {
        return (rt_conv_params_t) { .padding = pad, .stride_w = s, .stride_h = s,
                                    .dilation_w = d, .dilation_h = d, .activation = act };
}

START_TEST(test_conv2d_float_3x3_valid) {
        kh_t h;
        kh_init(&h);
        const float x[9] = { 1, 2, 3, 4, 5, 6, 7, 8, 9 };
        const float f[4] = { 1, 2, 3, 4 };
        const float bias[1] = { 1 };
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 4, (int32_t[]) { 1, 3, 3, 1 }, x);
        int32_t w = kh_const(&h, RT_TYPE_FLOAT32, 4, (int32_t[]) { 1, 2, 2, 1 }, f);
        int32_t b = kh_const(&h, RT_TYPE_FLOAT32, 1, (int32_t[]) { 1 }, bias);
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        rt_conv_params_t p = params(RT_PADDING_VALID, 1, 1, RT_ACT_NONE);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_conv_2d, &p, (int32_t[]) { in, w, b }, 3,
                                (int32_t[]) { out }, 1), 0);
        const rt_tensor_t *o = &h.tensors[out];
        ck_assert_int_eq(o->rank, 4);
        ck_assert_int_eq(o->dims[1], 2);
        ck_assert_int_eq(o->dims[2], 2);
        ck_assert_int_eq(o->dims[3], 1);
        const float want[4] = { 38, 48, 68, 78 };
        for (int i = 0; i < 4; i++)
                ck_assert_float_eq(((float *) o->data)[i], want[i]);
        kh_done(&h);
}
END_TEST

/* One output pixel: TFLite 2.9 sums as Eigen's SSE matrix x vector product
 * (four lanes, (l0 + l2) + (l1 + l3), then the tail). Native TFLite gives
 * 3 + 0.5 for 1e8 + 1 - 1e8 + 1 + 1 + bias 0.5 in a 1x1 conv (a running sum
 * gives 2 + 0.5), and 2 + 0.5 when the same five terms sit at im2col
 * positions 20..24 of a 3x3 SAME window (the padding zeros before them
 * count: term 24 joins lane 0 and is lost in 1e8). */
START_TEST(test_conv2d_float_one_pixel_sums_as_tflite_gemv) {
        for (int k = 1; k <= 3; k += 2) {
                kh_t h;
                kh_init(&h);
                const float x[5] = { 1, 1, 1, 1, 1 };
                float f[45] = { 0 };
                const float taps[5] = { 1e8f, 1, -1e8f, 1, 1 };
                memcpy(f + (k == 3 ? 20 : 0), taps, sizeof(taps));
                const float bias[1] = { 0.5f };
                int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 4, (int32_t[]) { 1, 1, 1, 5 }, x);
                int32_t w = kh_const(&h, RT_TYPE_FLOAT32, 4, (int32_t[]) { 1, k, k, 5 }, f);
                int32_t b = kh_const(&h, RT_TYPE_FLOAT32, 1, (int32_t[]) { 1 }, bias);
                int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
                rt_conv_params_t p = params(RT_PADDING_SAME, 1, 1, RT_ACT_NONE);
                ck_assert_int_eq(kh_run(&h, &rt_kernel_conv_2d, &p, (int32_t[]) { in, w, b }, 3,
                                        (int32_t[]) { out }, 1), 0);
                ck_assert_float_eq(((float *) h.tensors[out].data)[0], k == 1 ? 3.5f : 2.5f);
                kh_done(&h);
        }
}
END_TEST

/* All-ones 5x5 input and 3x3 filter, SAME, stride 2: each output counts the
 * taps inside the image (pad 1 on each side). */
START_TEST(test_conv2d_float_same_stride2) {
        kh_t h;
        kh_init(&h);
        float x[25], f[9];
        for (int i = 0; i < 25; i++)
                x[i] = 1;
        for (int i = 0; i < 9; i++)
                f[i] = 1;
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 4, (int32_t[]) { 1, 5, 5, 1 }, x);
        int32_t w = kh_const(&h, RT_TYPE_FLOAT32, 4, (int32_t[]) { 1, 3, 3, 1 }, f);
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        rt_conv_params_t p = params(RT_PADDING_SAME, 2, 1, RT_ACT_NONE);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_conv_2d, &p, (int32_t[]) { in, w, -1 }, 3,
                                (int32_t[]) { out }, 1), 0);
        const rt_tensor_t *o = &h.tensors[out];
        ck_assert_int_eq(o->dims[1], 3);
        ck_assert_int_eq(o->dims[2], 3);
        const float want[9] = { 4, 6, 4, 6, 9, 6, 4, 6, 4 };
        for (int i = 0; i < 9; i++)
                ck_assert_float_eq(((float *) o->data)[i], want[i]);
        kh_done(&h);
}
END_TEST

/* Dilation 2, 2x2 ones filter on 5x5 ones: SAME gives 5x5 with the taps at
 * y-1 and y+1 (and x-1, x+1); VALID gives 3x3 of 4. */
START_TEST(test_conv2d_float_dilation2) {
        float x[25], f[4] = { 1, 1, 1, 1 };
        for (int i = 0; i < 25; i++)
                x[i] = 1;
        for (int same = 0; same <= 1; same++) {
                kh_t h;
                kh_init(&h);
                int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 4, (int32_t[]) { 1, 5, 5, 1 }, x);
                int32_t w = kh_const(&h, RT_TYPE_FLOAT32, 4, (int32_t[]) { 1, 2, 2, 1 }, f);
                int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
                rt_conv_params_t p = params(same ? RT_PADDING_SAME : RT_PADDING_VALID, 1, 2, RT_ACT_NONE);
                ck_assert_int_eq(kh_run(&h, &rt_kernel_conv_2d, &p, (int32_t[]) { in, w }, 2,
                                        (int32_t[]) { out }, 1), 0);
                const rt_tensor_t *o = &h.tensors[out];
                const float *y = o->data;
                if (same) {
                        const int cnt[5] = { 1, 2, 2, 2, 1 };
                        ck_assert_int_eq(o->dims[1], 5);
                        for (int yy = 0; yy < 5; yy++)
                                for (int xx = 0; xx < 5; xx++)
                                        ck_assert_float_eq(y[yy * 5 + xx], (float) (cnt[yy] * cnt[xx]));
                } else {
                        ck_assert_int_eq(o->dims[1], 3);
                        ck_assert_int_eq(o->dims[2], 3);
                        for (int i = 0; i < 9; i++)
                                ck_assert_float_eq(y[i], 4.0f);
                }
                kh_done(&h);
        }
}
END_TEST

/* A 1x1 conv producing {-3, -0.5, 0.5, 7} under each fused activation.
 * TFLite's conv ignores TANH (its activation range is unbounded). */
START_TEST(test_conv2d_float_activations) {
        const float x[1] = { 1 };
        const float f[4] = { -3, -0.5f, 0.5f, 7 };
        const rt_activation_t acts[] = { RT_ACT_NONE, RT_ACT_RELU, RT_ACT_RELU6, RT_ACT_RELU_N1_TO_1,
                                         RT_ACT_TANH };
        const float want[][4] = {
                { -3, -0.5f, 0.5f, 7 },
                { 0, 0, 0.5f, 7 },
                { 0, 0, 0.5f, 6 },
                { -1, -0.5f, 0.5f, 1 },
                { -3, -0.5f, 0.5f, 7 },
        };
        for (size_t a = 0; a < ARRAY_LEN(acts); a++) {
                kh_t h;
                kh_init(&h);
                int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 4, (int32_t[]) { 1, 1, 1, 1 }, x);
                int32_t w = kh_const(&h, RT_TYPE_FLOAT32, 4, (int32_t[]) { 4, 1, 1, 1 }, f);
                int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
                rt_conv_params_t p = params(RT_PADDING_VALID, 1, 1, acts[a]);
                ck_assert_int_eq(kh_run(&h, &rt_kernel_conv_2d, &p, (int32_t[]) { in, w, -1 }, 3,
                                        (int32_t[]) { out }, 1), 0);
                for (int i = 0; i < 4; i++)
                        ck_assert_float_eq(((float *) h.tensors[out].data)[i], want[a][i]);
                kh_done(&h);
        }
}
END_TEST

/* Run a quantized conv (int8 per-channel / uint8 / int16) on pseudo-random
 * data and compare every output with the double reference. */
static void check_quant_conv(rt_type_t act_type, bool per_channel, rt_padding_t pad, int stride,
                             int dil, rt_activation_t act) {
        enum { N = 1, H = 5, W = 6, C = 3, O = 4, K = 3 };
        const bool u8 = act_type == RT_TYPE_UINT8, i16 = act_type == RT_TYPE_INT16;
        int32_t lo, hi;
        if (u8) {
                lo = 0;
                hi = 255;
        } else if (i16) {
                lo = -32768;
                hi = 32767;
        } else {
                lo = -128;
                hi = 127;
        }
        const float in_s = i16 ? 0.0021f : 0.037f, out_s = i16 ? 0.0173f : 0.213f;
        const int32_t in_zp = u8 ? 117 : (i16 ? 0 : -9), out_zp = u8 ? 131 : (i16 ? 0 : 5);
        const int32_t w_zp = u8 ? 121 : 0;
        float w_s[O] = { 0.0113f, 0.0071f, 0.0191f, 0.0057f };
        if (!per_channel)
                for (int o = 1; o < O; o++)
                        w_s[o] = w_s[0];

        int32_t xi[N * H * W * C], wi[O * K * K * C], bi[O];
        ref_fill_i32(xi, ARRAY_LEN(xi), i16 ? -3000 : lo, i16 ? 3000 : hi, 11);
        ref_fill_i32(wi, ARRAY_LEN(wi), u8 ? 0 : -127, u8 ? 255 : 127, 12);
        ref_fill_i32(bi, ARRAY_LEN(bi), -3000, 3000, 13);

        int16_t x16[ARRAY_LEN(xi)];
        uint8_t x8[ARRAY_LEN(xi)];
        int8_t wb[ARRAY_LEN(wi)];
        for (size_t i = 0; i < ARRAY_LEN(xi); i++) {
                x16[i] = (int16_t) xi[i];
                x8[i] = (uint8_t) xi[i];
        }
        const void *xb = i16 ? (const void *) x16 : (const void *) x8;
        for (size_t i = 0; i < ARRAY_LEN(wi); i++)
                wb[i] = (int8_t) (uint8_t) wi[i];
        int64_t b64[O];
        for (int o = 0; o < O; o++)
                b64[o] = bi[o];

        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, act_type, 4, (int32_t[]) { N, H, W, C }, xb);
        int32_t w = kh_const(&h, u8 ? RT_TYPE_UINT8 : RT_TYPE_INT8, 4, (int32_t[]) { O, K, K, C }, wb);
        int32_t b = kh_const(&h, i16 ? RT_TYPE_INT64 : RT_TYPE_INT32, 1, (int32_t[]) { O },
                             i16 ? (const void *) b64 : (const void *) bi);
        int32_t out = kh_tensor(&h, act_type, 0, NULL, NULL);
        kh_quant(&h, in, in_s, in_zp);
        kh_quant(&h, out, out_s, out_zp);
        if (per_channel) {
                int64_t zps[O] = { 0 };
                kh_quant_channels(&h, w, O, w_s, zps, 0);
        } else {
                kh_quant(&h, w, w_s[0], w_zp);
        }
        kh_quant(&h, b, in_s * w_s[0], 0);
        rt_conv_params_t p = params(pad, stride, dil, act);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_conv_2d, &p, (int32_t[]) { in, w, b }, 3,
                                (int32_t[]) { out }, 1), 0);

        double xd[ARRAY_LEN(xi)], wd[ARRAY_LEN(wi)], bd[O], yd[N * H * W * O];
        for (size_t i = 0; i < ARRAY_LEN(xi); i++)
                xd[i] = xi[i] - in_zp;
        for (size_t i = 0; i < ARRAY_LEN(wi); i++)
                wd[i] = (u8 ? wi[i] : (int8_t) wi[i]) - w_zp;
        for (int o = 0; o < O; o++)
                bd[o] = bi[o];
        ref_conv2d(xd, N, H, W, C, wd, O, K, K, false, bd, stride, stride, dil, dil,
                   pad == RT_PADDING_SAME, yd);
        int oh, ow, unused;
        ref_window(H, K, stride, dil, pad == RT_PADDING_SAME, &oh, &unused);
        ref_window(W, K, stride, dil, pad == RT_PADDING_SAME, &ow, &unused);
        const rt_tensor_t *o = &h.tensors[out];
        ck_assert_int_eq(o->dims[1], oh);
        ck_assert_int_eq(o->dims[2], ow);
        /* Activation bounds in the quantized domain. */
        int32_t amin = lo, amax = hi;
        if (act == RT_ACT_RELU || act == RT_ACT_RELU6)
                amin = out_zp > lo ? out_zp : lo;
        if (act == RT_ACT_RELU6) {
                int32_t six = out_zp + (int32_t) lroundf(6.0f / out_s);
                amax = six < hi ? six : hi;
        }
        for (int i = 0; i < N * oh * ow * O; i++) {
                int c = i % O;
                /* TFLite: per-channel multipliers use a double product, the
                 * legacy uint8 path a float product. */
                double real = u8 ? (double) (in_s * w_s[c]) / (double) out_s :
                                   (double) in_s * (double) w_s[c] / (double) out_s;
                int32_t want = ref_output((int64_t) yd[i], real, out_zp, amin, amax,
                                           i16 ? REF_WIDE : REF_RUY);
                int32_t got = u8 ? ((uint8_t *) o->data)[i] :
                              i16 ? ((int16_t *) o->data)[i] : ((int8_t *) o->data)[i];
                ck_assert_msg(got == want, "output %d: got %d want %d", i, got, want);
        }
        kh_done(&h);
}

/*
 * Crafted quantization (issue 22): an input zero point near 2^30 and a
 * bias near INT32_MAX overflow TFLite's int32 accumulator, which is
 * undefined behaviour in C as in TFLite's C++ (UBSan reported it here).
 * The kernel sums modulo 2^32, as TFLite's x86 build wraps: the output is
 * the requantized wrapped sum, and the run is clean under UBSan.
 */
START_TEST(test_conv2d_int8_overflowing_quantization) {
        enum { C = 4 };
        const int8_t x[C] = { 127, -128, 5, -7 };
        const int8_t f[C] = { 127, 127, -128, 3 };
        const int32_t bias[1] = { INT32_MAX - 5 };
        const int32_t in_zp = (1 << 30) + 17, out_zp = 3;
        const float in_s = 0.5f, w_s = 0.25f, out_s = 0.125f;
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_INT8, 4, (int32_t[]) { 1, 1, 1, C }, x);
        int32_t w = kh_const(&h, RT_TYPE_INT8, 4, (int32_t[]) { 1, 1, 1, C }, f);
        int32_t b = kh_const(&h, RT_TYPE_INT32, 1, (int32_t[]) { 1 }, bias);
        int32_t out = kh_tensor(&h, RT_TYPE_INT8, 0, NULL, NULL);
        kh_quant(&h, in, in_s, in_zp);
        kh_quant(&h, w, w_s, 0);
        kh_quant(&h, b, in_s * w_s, 0);
        kh_quant(&h, out, out_s, out_zp);
        rt_conv_params_t p = params(RT_PADDING_VALID, 1, 1, RT_ACT_NONE);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_conv_2d, &p, (int32_t[]) { in, w, b }, 3,
                                (int32_t[]) { out }, 1), 0);
        uint32_t acc = (uint32_t) bias[0];
        for (int i = 0; i < C; i++)
                acc += (uint32_t) ((int64_t) f[i] * ((int64_t) x[i] - in_zp));
        int32_t want = ref_output((int32_t) acc, (double) in_s * (double) w_s / (double) out_s, out_zp, -128, 127,
                                  REF_RUY);
        ck_assert_int_eq(((int8_t *) h.tensors[out].data)[0], want);
        kh_done(&h);
}
END_TEST

START_TEST(test_conv2d_int8_per_channel) {
        check_quant_conv(RT_TYPE_INT8, true, RT_PADDING_SAME, 1, 1, RT_ACT_NONE);
        check_quant_conv(RT_TYPE_INT8, true, RT_PADDING_SAME, 2, 1, RT_ACT_RELU);
        check_quant_conv(RT_TYPE_INT8, true, RT_PADDING_VALID, 1, 2, RT_ACT_RELU6);
}
END_TEST

START_TEST(test_conv2d_int8_per_tensor) {
        check_quant_conv(RT_TYPE_INT8, false, RT_PADDING_VALID, 2, 1, RT_ACT_NONE);
}
END_TEST

START_TEST(test_conv2d_uint8_zero_points) {
        check_quant_conv(RT_TYPE_UINT8, false, RT_PADDING_SAME, 1, 1, RT_ACT_NONE);
        check_quant_conv(RT_TYPE_UINT8, false, RT_PADDING_SAME, 2, 2, RT_ACT_RELU6);
}
END_TEST

START_TEST(test_conv2d_int16x8) {
        check_quant_conv(RT_TYPE_INT16, true, RT_PADDING_SAME, 1, 1, RT_ACT_NONE);
        check_quant_conv(RT_TYPE_INT16, true, RT_PADDING_VALID, 2, 1, RT_ACT_RELU);
}
END_TEST

/* One-pixel int16 CONV_2D (scales 1, 1, out_s) with a one-element bias
 * of type bt. */
static int32_t conv16_one(int16_t x, int8_t f, rt_type_t bt, int64_t bias, float out_s) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_INT16, 4, (int32_t[]) { 1, 1, 1, 1 }, &x);
        int32_t w = kh_const(&h, RT_TYPE_INT8, 4, (int32_t[]) { 1, 1, 1, 1 }, &f);
        int32_t b32 = (int32_t) bias;
        int32_t b = kh_const(&h, bt, 1, (int32_t[]) { 1 },
                             bt == RT_TYPE_INT32 ? (const void *) &b32 : (const void *) &bias);
        int32_t out = kh_tensor(&h, RT_TYPE_INT16, 0, NULL, NULL);
        kh_quant(&h, in, 1.0f, 0);
        kh_quant(&h, w, 1.0f, 0);
        kh_quant(&h, out, out_s, 0);
        rt_conv_params_t p = params(RT_PADDING_VALID, 1, 1, RT_ACT_NONE);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_conv_2d, &p, (int32_t[]) { in, w, b }, 3,
                                (int32_t[]) { out }, 1), 0);
        int32_t v = ((int16_t *) h.tensors[out].data)[0];
        kh_done(&h);
        return v;
}

/*
 * int16 CONV_2D with an int32 bias runs TFLite 2.9's optimized path (im2col
 * + ruy's portable kernel): int32 accumulator, one rounding of acc *
 * multiplier; with an int64 bias the reference kernel (16-bit reduced
 * multiplier, int64 accumulator).
 */
START_TEST(test_conv2d_int16x8_int32_bias) {
        /* real 1/3 (multiplier 1431655765, shift -1), acc 60002: 20001 with
         * one rounding, 20000 with the reduced multiplier 21845. */
        ck_assert_int_eq(conv16_one(30001, 2, RT_TYPE_INT32, 0, 3.0f), 20001);
        ck_assert_int_eq(conv16_one(30001, 2, RT_TYPE_INT64, 0, 3.0f), 20000);
        /* 100000 + INT32_MAX - 50000 wraps to -2147433649: -32767 after
         * / 65536; the int64 sum saturates to 32767. */
        ck_assert_int_eq(conv16_one(1000, 100, RT_TYPE_INT32, INT32_MAX - 50000, 65536.0f), -32767);
        ck_assert_int_eq(conv16_one(1000, 100, RT_TYPE_INT64, INT32_MAX - 50000, 65536.0f), 32767);
}
END_TEST

/* Hybrid: int8 weights with float input. Inputs are integers whose largest
 * magnitude is exactly 127 (symmetric, per-tensor) or that span [-128, 127]
 * (asymmetric, per-channel), so the on-the-fly quantization is exact and the
 * result equals the float computation on the dequantized weights. */
static void check_hybrid_conv(bool per_channel) {
        enum { H = 4, W = 4, C = 2, O = 3, K = 3 };
        float x[H * W * C];
        int32_t xi[H * W * C], wi[O * K * K * C];
        ref_fill_i32(xi, ARRAY_LEN(xi), -100, 100, 21);
        xi[0] = per_channel ? -128 : 127;
        xi[1] = 127;
        for (size_t i = 0; i < ARRAY_LEN(xi); i++)
                x[i] = (float) xi[i];
        ref_fill_i32(wi, ARRAY_LEN(wi), -127, 127, 22);
        int8_t wb[ARRAY_LEN(wi)];
        for (size_t i = 0; i < ARRAY_LEN(wi); i++)
                wb[i] = (int8_t) wi[i];
        const float w_s[O] = { 0.5f, per_channel ? 0.25f : 0.5f, per_channel ? 0.125f : 0.5f };
        const float bias[O] = { 1.5f, -2.0f, 0.25f };

        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 4, (int32_t[]) { 1, H, W, C }, x);
        int32_t w = kh_const(&h, RT_TYPE_INT8, 4, (int32_t[]) { O, K, K, C }, wb);
        int32_t b = kh_const(&h, RT_TYPE_FLOAT32, 1, (int32_t[]) { O }, bias);
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        int64_t zps[O] = { 0 };
        kh_quant_channels(&h, w, O, w_s, zps, 0);
        rt_conv_params_t p = params(RT_PADDING_SAME, 1, 1, RT_ACT_NONE);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_conv_2d, &p, (int32_t[]) { in, w, b }, 3,
                                (int32_t[]) { out }, 1), 0);
        double xd[ARRAY_LEN(xi)], wd[ARRAY_LEN(wi)], bd[O], yd[H * W * O];
        for (size_t i = 0; i < ARRAY_LEN(xi); i++)
                xd[i] = xi[i];
        for (size_t i = 0; i < ARRAY_LEN(wi); i++)
                wd[i] = wi[i] * (double) w_s[i / (K * K * C)];
        for (int o = 0; o < O; o++)
                bd[o] = bias[o];
        ref_conv2d(xd, 1, H, W, C, wd, O, K, K, false, bd, 1, 1, 1, 1, true, yd);
        for (int i = 0; i < H * W * O; i++)
                ck_assert_double_eq_tol(((float *) h.tensors[out].data)[i], yd[i], 1e-3);
        kh_done(&h);
}

START_TEST(test_conv2d_hybrid_per_tensor) {
        check_hybrid_conv(false);
}
END_TEST

START_TEST(test_conv2d_hybrid_per_channel) {
        check_hybrid_conv(true);
}
END_TEST

/* Rounding of a negative tie: scales 0.5 * 0.5 / 1 give the multiplier
 * 0.25 (Q31 2^30, shift -1); an accumulator of -3 is -0.75 -> high multiply
 * -1.5 -> -1, then the shift by one: ruy (TFLite 2.9's GEMM backend for
 * CONV_2D) rounds -0.5 up to 0, TFLite's own RoundingDivideByPOT would give
 * -1. The goldens of tf2_mobilenet_v2 (int8) and mobilenet_v2 (uint8) need
 * the ruy result. */
START_TEST(test_conv2d_quantized_ruy_rounding) {
        for (int u8 = 0; u8 <= 1; u8++) {
                kh_t h;
                kh_init(&h);
                const int8_t xi[2] = { -3, 3 };
                const uint8_t xu[2] = { 0, 6 };  /* zero point 3: -3 and +3 */
                const uint8_t fu[1] = { 1 };
                const int8_t fi[1] = { 1 };
                int32_t in = kh_tensor(&h, u8 ? RT_TYPE_UINT8 : RT_TYPE_INT8, 4, (int32_t[]) { 1, 1, 2, 1 },
                                       u8 ? (const void *) xu : (const void *) xi);
                int32_t w = kh_const(&h, u8 ? RT_TYPE_UINT8 : RT_TYPE_INT8, 4, (int32_t[]) { 1, 1, 1, 1 },
                                     u8 ? (const void *) fu : (const void *) fi);
                int32_t out = kh_tensor(&h, u8 ? RT_TYPE_UINT8 : RT_TYPE_INT8, 0, NULL, NULL);
                kh_quant(&h, in, 0.5f, u8 ? 3 : 0);
                kh_quant(&h, w, 0.5f, 0);
                kh_quant(&h, out, 1.0f, u8 ? 128 : 0);
                rt_conv_params_t p = params(RT_PADDING_VALID, 1, 1, RT_ACT_NONE);
                ck_assert_int_eq(kh_run(&h, &rt_kernel_conv_2d, &p, (int32_t[]) { in, w, -1 }, 3,
                                        (int32_t[]) { out }, 1), 0);
                if (u8) {
                        ck_assert_int_eq(((uint8_t *) h.tensors[out].data)[0], 128);
                        ck_assert_int_eq(((uint8_t *) h.tensors[out].data)[1], 129);
                } else {
                        ck_assert_int_eq(((int8_t *) h.tensors[out].data)[0], 0);
                        ck_assert_int_eq(((int8_t *) h.tensors[out].data)[1], 1);
                }
                kh_done(&h);
        }
}
END_TEST

START_TEST(test_conv2d_rejects_channel_mismatch) {
        kh_t h;
        kh_init(&h);
        float x[8] = { 0 }, f[3] = { 0 };
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 4, (int32_t[]) { 1, 2, 2, 2 }, x);
        int32_t w = kh_const(&h, RT_TYPE_FLOAT32, 4, (int32_t[]) { 1, 1, 1, 3 }, f);
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        rt_conv_params_t p = params(RT_PADDING_VALID, 1, 1, RT_ACT_NONE);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_conv_2d, &p, (int32_t[]) { in, w }, 2,
                                (int32_t[]) { out }, 1), -EINVAL);
        ck_assert_ptr_nonnull(strstr(h.error, "channels"));
        kh_done(&h);
}
END_TEST

START_TEST(test_conv2d_rejects_bad_rank_and_stride) {
        kh_t h;
        kh_init(&h);
        float x[4] = { 0 }, f[1] = { 0 };
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 3, (int32_t[]) { 1, 4, 1 }, x);
        int32_t w = kh_const(&h, RT_TYPE_FLOAT32, 4, (int32_t[]) { 1, 1, 1, 1 }, f);
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        rt_conv_params_t p = params(RT_PADDING_VALID, 1, 1, RT_ACT_NONE);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_conv_2d, &p, (int32_t[]) { in, w }, 2,
                                (int32_t[]) { out }, 1), -EINVAL);
        kh_done(&h);

        kh_init(&h);
        in = kh_tensor(&h, RT_TYPE_FLOAT32, 4, (int32_t[]) { 1, 2, 2, 1 }, x);
        w = kh_const(&h, RT_TYPE_FLOAT32, 4, (int32_t[]) { 1, 1, 1, 1 }, f);
        out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        p = params(RT_PADDING_VALID, 0, 1, RT_ACT_NONE);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_conv_2d, &p, (int32_t[]) { in, w }, 2,
                                (int32_t[]) { out }, 1), -EINVAL);
        kh_done(&h);
}
END_TEST

START_TEST(test_conv2d_rejects_wrong_bias_size) {
        kh_t h;
        kh_init(&h);
        float x[4] = { 0 }, f[2] = { 0 }, bias[3] = { 0 };
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 4, (int32_t[]) { 1, 2, 2, 1 }, x);
        int32_t w = kh_const(&h, RT_TYPE_FLOAT32, 4, (int32_t[]) { 2, 1, 1, 1 }, f);
        int32_t b = kh_const(&h, RT_TYPE_FLOAT32, 1, (int32_t[]) { 3 }, bias);
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        rt_conv_params_t p = params(RT_PADDING_VALID, 1, 1, RT_ACT_NONE);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_conv_2d, &p, (int32_t[]) { in, w, b }, 3,
                                (int32_t[]) { out }, 1), -EINVAL);
        kh_done(&h);
}
END_TEST

START_TEST(test_conv2d_rejects_unsupported_types) {
        kh_t h;
        kh_init(&h);
        int32_t x[4] = { 0 }, f[1] = { 0 };
        int32_t in = kh_tensor(&h, RT_TYPE_INT32, 4, (int32_t[]) { 1, 2, 2, 1 }, x);
        int32_t w = kh_const(&h, RT_TYPE_INT32, 4, (int32_t[]) { 1, 1, 1, 1 }, f);
        int32_t out = kh_tensor(&h, RT_TYPE_INT32, 0, NULL, NULL);
        rt_conv_params_t p = params(RT_PADDING_VALID, 1, 1, RT_ACT_NONE);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_conv_2d, &p, (int32_t[]) { in, w }, 2,
                                (int32_t[]) { out }, 1), -ENOTSUP);
        ck_assert_ptr_nonnull(strstr(h.error, "int32"));
        kh_done(&h);
}
END_TEST

START_TEST(test_conv2d_rejects_missing_quantization) {
        kh_t h;
        kh_init(&h);
        int8_t x[4] = { 0 }, f[1] = { 1 };
        int32_t in = kh_tensor(&h, RT_TYPE_INT8, 4, (int32_t[]) { 1, 2, 2, 1 }, x);
        int32_t w = kh_const(&h, RT_TYPE_INT8, 4, (int32_t[]) { 1, 1, 1, 1 }, f);
        int32_t out = kh_tensor(&h, RT_TYPE_INT8, 0, NULL, NULL);
        kh_quant(&h, in, 0.5f, 0);
        kh_quant(&h, out, 0.5f, 0);
        rt_conv_params_t p = params(RT_PADDING_VALID, 1, 1, RT_ACT_NONE);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_conv_2d, &p, (int32_t[]) { in, w }, 2,
                                (int32_t[]) { out }, 1), -EINVAL);
        kh_done(&h);
}
END_TEST

/* The expected float sum of one output: a running sum in filter order
 * (ky, kx, c) over the taps inside the input, then the bias. */
static float conv_ref_pixel(const float *x, const float *f, int h, int w, int c, int kh, int kw, int dil,
                            int b, int y0, int x0, int oc) {
        float acc = 0.0f;
        for (int fy = 0; fy < kh; fy++)
                for (int fx = 0; fx < kw; fx++) {
                        int iy = y0 + fy * dil, ix = x0 + fx * dil;
                        if (iy < 0 || iy >= h || ix < 0 || ix >= w)
                                continue;
                        for (int ic = 0; ic < c; ic++)
                                acc += x[((b * h + iy) * w + ix) * c + ic] * f[((oc * kh + fy) * kw + fx) * c + ic];
                }
        return acc;
}

/* Constant filters run packed four output channels to a register (SSE),
 * filters given as a plain tensor run one channel at a time: both must
 * give every output bit for bit as the running sum in filter order, for
 * output channel counts around the blocks of 4 and 16, padding, stride,
 * dilation, several batches, and terms whose order changes the sum. */
START_TEST(test_conv2d_float_packed_filters_sum_in_order) {
        static const int ocs[] = { 1, 3, 4, 5, 15, 16, 17, 33 };
        static const rt_activation_t acts[4] = { RT_ACT_NONE, RT_ACT_RELU, RT_ACT_RELU6, RT_ACT_RELU_N1_TO_1 };
        static const float lo[4] = { -INFINITY, 0.0f, 0.0f, -1.0f }, hi[4] = { INFINITY, INFINITY, 6.0f, 1.0f };
        unsigned seed = 12345;
        for (size_t k = 0; k < sizeof(ocs) / sizeof(ocs[0]); k++)
                for (int geo = 0; geo < 3; geo++) {
                        const int n = 2, h = 5, w = 4, c = 3, kh = 3, kw = 2, oc = ocs[k];
                        const int stride = geo == 1 ? 2 : 1, dil = geo == 2 ? 2 : 1;
                        const rt_padding_t pad = geo == 2 ? RT_PADDING_VALID : RT_PADDING_SAME;
                        float x[2 * 5 * 4 * 3], f[33 * 3 * 2 * 3], bias[33];
                        for (size_t i = 0; i < sizeof(x) / sizeof(x[0]); i++) {
                                seed = seed * 1103515245u + 12345u;
                                /* Mixed magnitudes: rounding depends on the order. */
                                x[i] = (float) ((int) (seed >> 16) % 2001 - 1000) * ((seed >> 8) % 3 == 0 ? 1e6f : 1e-3f);
                        }
                        for (int i = 0; i < oc * kh * kw * c; i++) {
                                seed = seed * 1103515245u + 12345u;
                                f[i] = (float) ((int) (seed >> 16) % 2001 - 1000) / 977.0f;
                        }
                        for (int i = 0; i < oc; i++)
                                bias[i] = (float) i * 0.25f - 1.0f;
                        x[7] = NAN; /* propagates through the sums and the activation */
                        float *got[2] = { NULL, NULL };
                        int32_t oh = 0, ow = 0;
                        kh_t hs[2];
                        for (int packed = 0; packed < 2; packed++) {
                                kh_t *hh = &hs[packed];
                                kh_init(hh);
                                int32_t in = kh_tensor(hh, RT_TYPE_FLOAT32, 4, (int32_t[]) { n, h, w, c }, x);
                                const int32_t fd[4] = { oc, kh, kw, c };
                                int32_t wt = packed ? kh_const(hh, RT_TYPE_FLOAT32, 4, fd, f)
                                                    : kh_tensor(hh, RT_TYPE_FLOAT32, 4, fd, f);
                                int32_t bt = kh_const(hh, RT_TYPE_FLOAT32, 1, (int32_t[]) { oc }, bias);
                                int32_t out = kh_tensor(hh, RT_TYPE_FLOAT32, 0, NULL, NULL);
                                rt_conv_params_t p = params(pad, stride, dil, acts[k % 4]);
                                ck_assert_int_eq(kh_run(hh, &rt_kernel_conv_2d, &p, (int32_t[]) { in, wt, bt }, 3,
                                                        (int32_t[]) { out }, 1), 0);
                                const rt_tensor_t *o = &hh->tensors[out];
                                ck_assert_int_eq(o->dims[0], n);
                                ck_assert_int_eq(o->dims[3], oc);
                                oh = o->dims[1];
                                ow = o->dims[2];
                                got[packed] = o->data;
                        }
                        const int ekh = (kh - 1) * dil + 1, ekw = (kw - 1) * dil + 1;
                        const int ph = pad == RT_PADDING_SAME ? (((oh - 1) * stride + ekh - h) > 0 ? ((oh - 1) * stride + ekh - h) / 2 : 0) : 0;
                        const int pw = pad == RT_PADDING_SAME ? (((ow - 1) * stride + ekw - w) > 0 ? ((ow - 1) * stride + ekw - w) / 2 : 0) : 0;
                        for (int b = 0; b < n; b++)
                                for (int oy = 0; oy < oh; oy++)
                                        for (int ox = 0; ox < ow; ox++)
                                                for (int o = 0; o < oc; o++) {
                                                        float want = conv_ref_pixel(x, f, h, w, c, kh, kw, dil, b,
                                                                                    oy * stride - ph, ox * stride - pw, o) + bias[o];
                                                        want = want < lo[k % 4] ? lo[k % 4] : (want > hi[k % 4] ? hi[k % 4] : want);
                                                        size_t at = (((size_t) b * oh + oy) * ow + ox) * oc + o;
                                                        for (int packed = 0; packed < 2; packed++)
                                                                ck_assert_msg(memcmp(&got[packed][at], &want, sizeof(float)) == 0,
                                                                              "oc %d geometry %d packed %d: output %zu is %a, want %a",
                                                                              oc, geo, packed, at, (double) got[packed][at], (double) want);
                                                }
                        kh_done(&hs[0]);
                        kh_done(&hs[1]);
                }
}
END_TEST

static Suite *conv2d_suite(void) {
        Suite *s = suite_create("conv2d");
        TCase *tc = tcase_create("conv2d");
        tcase_add_test(tc, test_conv2d_float_3x3_valid);
        tcase_add_test(tc, test_conv2d_float_one_pixel_sums_as_tflite_gemv);
        tcase_add_test(tc, test_conv2d_float_same_stride2);
        tcase_add_test(tc, test_conv2d_float_dilation2);
        tcase_add_test(tc, test_conv2d_float_activations);
        tcase_add_test(tc, test_conv2d_float_packed_filters_sum_in_order);
        tcase_add_test(tc, test_conv2d_int8_per_channel);
        tcase_add_test(tc, test_conv2d_int8_overflowing_quantization);
        tcase_add_test(tc, test_conv2d_int8_per_tensor);
        tcase_add_test(tc, test_conv2d_uint8_zero_points);
        tcase_add_test(tc, test_conv2d_int16x8);
        tcase_add_test(tc, test_conv2d_int16x8_int32_bias);
        tcase_add_test(tc, test_conv2d_hybrid_per_tensor);
        tcase_add_test(tc, test_conv2d_hybrid_per_channel);
        tcase_add_test(tc, test_conv2d_quantized_ruy_rounding);
        tcase_add_test(tc, test_conv2d_rejects_channel_mismatch);
        tcase_add_test(tc, test_conv2d_rejects_bad_rank_and_stride);
        tcase_add_test(tc, test_conv2d_rejects_wrong_bias_size);
        tcase_add_test(tc, test_conv2d_rejects_unsupported_types);
        tcase_add_test(tc, test_conv2d_rejects_missing_quantization);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        SRunner *sr = srunner_create(conv2d_suite());
        srunner_run_all(sr, CK_NORMAL);
        int failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed == 0 ? 0 : 1;
}
