/* SPDX-License-Identifier: Apache-2.0 */
#include <string.h>

#include "conv-test.h"

/* Slow reference: scatter every input pixel through the filter
 * ([O][KH][KW][C]) into an output of oh x ow, leading padding pad_h/pad_w. */
static void ref_tconv(const double *x, int n, int h, int w, int c, const double *f, int o, int kh,
                      int kw, int s, int pad_h, int pad_w, int oh, int ow, double *y) {
        memset(y, 0, sizeof(double) * (size_t) (n * oh * ow * o));
        for (int b = 0; b < n; b++)
        for (int iy = 0; iy < h; iy++)
        for (int ix = 0; ix < w; ix++)
        for (int fy = 0; fy < kh; fy++)
        for (int fx = 0; fx < kw; fx++) {
                int oy = iy * s - pad_h + fy, ox = ix * s - pad_w + fx;
                if (oy < 0 || oy >= oh || ox < 0 || ox >= ow)
                        continue;
                for (int oc = 0; oc < o; oc++)
                        for (int ci = 0; ci < c; ci++)
                                y[((b * oh + oy) * ow + ox) * o + oc] +=
                                        x[((b * h + iy) * w + ix) * c + ci] *
                                        f[((oc * kh + fy) * kw + fx) * c + ci];
        }
}

/* TFLite's own SimpleTest: 4x4 input 1..16, 3x3 filter 1..9, SAME, stride 1. */
START_TEST(test_tconv_float_same_stride1) {
        kh_t h;
        kh_init(&h);
        float x[16], f[9];
        for (int i = 0; i < 16; i++)
                x[i] = (float) (i + 1);
        for (int i = 0; i < 9; i++)
                f[i] = (float) (i + 1);
        const int32_t shape[4] = { 1, 4, 4, 1 };
        int32_t sh = kh_const(&h, RT_TYPE_INT32, 1, (int32_t[]) { 4 }, shape);
        int32_t w = kh_const(&h, RT_TYPE_FLOAT32, 4, (int32_t[]) { 1, 3, 3, 1 }, f);
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 4, (int32_t[]) { 1, 4, 4, 1 }, x);
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        rt_transpose_conv_params_t p = { .padding = RT_PADDING_SAME, .stride_w = 1, .stride_h = 1 };
        ck_assert_int_eq(kh_run(&h, &rt_kernel_transpose_conv, &p, (int32_t[]) { sh, w, in }, 3,
                                (int32_t[]) { out }, 1), 0);
        const float want[16] = { 29, 62, 83, 75, 99, 192, 237, 198, 207, 372, 417, 330, 263, 446, 485, 365 };
        ck_assert_int_eq(h.tensors[out].dims[1], 4);
        for (int i = 0; i < 16; i++)
                ck_assert_float_eq(((float *) h.tensors[out].data)[i], want[i]);
        kh_done(&h);
}
END_TEST

/* Stride 2, VALID, 2 output channels, bias and RELU, against the reference;
 * the output shape comes from a non-constant tensor (dynamic output). */
START_TEST(test_tconv_float_stride2_bias_dynamic_shape) {
        enum { H = 3, W = 2, C = 2, O = 2, K = 3, OH = 7, OW = 5 };
        float x[H * W * C], f[O * K * K * C];
        ref_fill_f(x, ARRAY_LEN(x), -1, 1, 71);
        ref_fill_f(f, ARRAY_LEN(f), -1, 1, 72);
        const float bias[O] = { 0.25f, -0.5f };
        kh_t h;
        kh_init(&h);
        const int32_t shape[4] = { 1, OH, OW, O };
        int32_t sh = kh_tensor(&h, RT_TYPE_INT32, 1, (int32_t[]) { 4 }, shape);
        int32_t w = kh_const(&h, RT_TYPE_FLOAT32, 4, (int32_t[]) { O, K, K, C }, f);
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 4, (int32_t[]) { 1, H, W, C }, x);
        int32_t b = kh_const(&h, RT_TYPE_FLOAT32, 1, (int32_t[]) { O }, bias);
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        rt_transpose_conv_params_t p = { .padding = RT_PADDING_VALID, .stride_w = 2, .stride_h = 2,
                                          .activation = RT_ACT_RELU };
        ck_assert_int_eq(kh_run(&h, &rt_kernel_transpose_conv, &p, (int32_t[]) { sh, w, in, b }, 4,
                                (int32_t[]) { out }, 1), 0);
        ck_assert_int_eq(h.tensors[out].dims[1], OH);
        ck_assert_int_eq(h.tensors[out].dims[2], OW);
        double xd[ARRAY_LEN(x)], fd[ARRAY_LEN(f)], yd[OH * OW * O];
        for (size_t i = 0; i < ARRAY_LEN(x); i++)
                xd[i] = x[i];
        for (size_t i = 0; i < ARRAY_LEN(f); i++)
                fd[i] = f[i];
        ref_tconv(xd, 1, H, W, C, fd, O, K, K, 2, 0, 0, OH, OW, yd);
        for (int i = 0; i < OH * OW * O; i++) {
                double v = yd[i] + bias[i % O];
                ck_assert_double_eq_tol(((float *) h.tensors[out].data)[i], v < 0 ? 0 : v, 1e-5);
        }
        kh_done(&h);
}
END_TEST

static void check_quant_tconv(rt_type_t t, bool per_channel, bool with_bias) {
        enum { H = 3, W = 3, C = 2, O = 3, K = 3, OH = 6, OW = 6 };
        const bool u8 = t == RT_TYPE_UINT8, i16 = t == RT_TYPE_INT16;
        const int32_t lo = u8 ? 0 : (i16 ? -32768 : -128), hi = u8 ? 255 : (i16 ? 32767 : 127);
        const float in_s = i16 ? 0.0019f : 0.047f, out_s = i16 ? 0.0093f : 0.151f;
        const int32_t in_zp = u8 ? 127 : (i16 ? 0 : 3), out_zp = u8 ? 128 : (i16 ? 0 : -7);
        const int32_t w_zp = u8 ? 119 : 0;
        float w_s[O] = { 0.0151f, 0.0097f, 0.0213f };
        if (!per_channel)
                for (int o = 1; o < O; o++)
                        w_s[o] = w_s[0];
        int32_t xi[H * W * C], wi[O * K * K * C], bi[O];
        ref_fill_i32(xi, ARRAY_LEN(xi), i16 ? -4000 : lo, i16 ? 4000 : hi, 81);
        ref_fill_i32(wi, ARRAY_LEN(wi), u8 ? 0 : -127, u8 ? 255 : 127, 82);
        ref_fill_i32(bi, ARRAY_LEN(bi), -1000, 1000, 83);
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
        const int32_t shape[4] = { 1, OH, OW, O };
        int32_t sh = kh_const(&h, RT_TYPE_INT32, 1, (int32_t[]) { 4 }, shape);
        int32_t w = kh_const(&h, u8 ? RT_TYPE_UINT8 : RT_TYPE_INT8, 4, (int32_t[]) { O, K, K, C }, wb);
        int32_t in = kh_tensor(&h, t, 4, (int32_t[]) { 1, H, W, C }, i16 ? (const void *) x16 : (const void *) x8);
        int32_t b = kh_const(&h, i16 ? RT_TYPE_INT64 : RT_TYPE_INT32, 1, (int32_t[]) { O },
                             i16 ? (const void *) b64 : (const void *) bi);
        int32_t out = kh_tensor(&h, t, 0, NULL, NULL);
        kh_quant(&h, in, in_s, in_zp);
        kh_quant(&h, out, out_s, out_zp);
        if (per_channel) {
                int64_t zps[O] = { 0 };
                kh_quant_channels(&h, w, O, w_s, zps, 0);
        } else {
                kh_quant(&h, w, w_s[0], w_zp);
        }
        rt_transpose_conv_params_t p = { .padding = RT_PADDING_SAME, .stride_w = 2, .stride_h = 2 };
        ck_assert_int_eq(kh_run(&h, &rt_kernel_transpose_conv, &p, (int32_t[]) { sh, w, in, b }, with_bias ? 4 : 3,
                                (int32_t[]) { out }, 1), 0);
        double xd[ARRAY_LEN(xi)], wd[ARRAY_LEN(wi)], yd[OH * OW * O];
        for (size_t i = 0; i < ARRAY_LEN(xi); i++)
                xd[i] = xi[i] - in_zp;
        for (size_t i = 0; i < ARRAY_LEN(wi); i++)
                wd[i] = (u8 ? wi[i] : (int8_t) wi[i]) - w_zp;
        /* SAME for a 6x6 output, 3x3 filter, stride 2: forward output 3,
         * total padding (3-1)*2+3-6 = 1, leading 0. */
        ref_tconv(xd, 1, H, W, C, wd, O, K, K, 2, 0, 0, OH, OW, yd);
        const rt_tensor_t *o = &h.tensors[out];
        for (int i = 0; i < OH * OW * O; i++) {
                int c = i % O;
                double real = u8 ? (double) (in_s * w_s[c]) / (double) out_s :
                                   (double) in_s * (double) w_s[c] / (double) out_s;
                /* TFLite 2.9's 16x8 transposed convolution requantizes in
                 * 64 bits with a bias and in 32 bits without one. */
                int32_t want = ref_output((int64_t) yd[i] + (with_bias ? bi[c] : 0), real, out_zp, lo, hi,
                                          i16 && with_bias ? REF_WIDE : REF_DOUBLE);
                int32_t got = u8 ? ((uint8_t *) o->data)[i] :
                              i16 ? ((int16_t *) o->data)[i] : ((int8_t *) o->data)[i];
                ck_assert_msg(got == want, "output %d: got %d want %d", i, got, want);
        }
        kh_done(&h);
}

START_TEST(test_tconv_int8_per_channel) {
        check_quant_tconv(RT_TYPE_INT8, true, true);
}
END_TEST

START_TEST(test_tconv_uint8_zero_points) {
        check_quant_tconv(RT_TYPE_UINT8, false, true);
}
END_TEST

START_TEST(test_tconv_int16x8) {
        check_quant_tconv(RT_TYPE_INT16, true, true);
}
END_TEST

/* One pixel, sum 30001 * 2 = 60002 at a real multiplier of 1/3: TFLite
 * 2.9's 32-bit requantization (no bias) gives 20001; the 64-bit one of the
 * other 16x8 kernels, with its multiplier cut to 16 bits, gives 20000. With
 * an int64 bias of 0 TFLite takes that 64-bit path. */
START_TEST(test_tconv_int16x8_without_bias_requantizes_in_32_bits) {
        check_quant_tconv(RT_TYPE_INT16, true, false);
        for (int with_bias = 0; with_bias < 2; with_bias++) {
                kh_t h;
                kh_init(&h);
                const int32_t shape[4] = { 1, 1, 1, 1 };
                const int16_t x = 30001;
                const int8_t f = 2;
                const int64_t b0 = 0;
                int32_t sh = kh_const(&h, RT_TYPE_INT32, 1, (int32_t[]) { 4 }, shape);
                int32_t w = kh_const(&h, RT_TYPE_INT8, 4, (int32_t[]) { 1, 1, 1, 1 }, &f);
                int32_t in = kh_tensor(&h, RT_TYPE_INT16, 4, (int32_t[]) { 1, 1, 1, 1 }, &x);
                int32_t b = kh_const(&h, RT_TYPE_INT64, 1, (int32_t[]) { 1 }, &b0);
                int32_t out = kh_tensor(&h, RT_TYPE_INT16, 0, NULL, NULL);
                kh_quant(&h, in, 1.0f, 0);
                kh_quant(&h, out, 3.0f, 0);
                kh_quant(&h, w, 1.0f, 0);
                rt_transpose_conv_params_t p = { .padding = RT_PADDING_VALID, .stride_w = 1, .stride_h = 1 };
                ck_assert_int_eq(kh_run(&h, &rt_kernel_transpose_conv, &p, (int32_t[]) { sh, w, in, b },
                                        with_bias ? 4 : 3, (int32_t[]) { out }, 1), 0);
                ck_assert_int_eq(((int16_t *) h.tensors[out].data)[0], with_bias ? 20000 : 20001);
                kh_done(&h);
        }
}
END_TEST

START_TEST(test_tconv_rejects_bad_output_shape) {
        kh_t h;
        kh_init(&h);
        float x[4] = { 0 }, f[9] = { 0 };
        /* output_shape's channel count disagrees with the filter count */
        const int32_t shape[4] = { 1, 4, 4, 2 };
        int32_t sh = kh_const(&h, RT_TYPE_INT32, 1, (int32_t[]) { 4 }, shape);
        int32_t w = kh_const(&h, RT_TYPE_FLOAT32, 4, (int32_t[]) { 1, 3, 3, 1 }, f);
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 4, (int32_t[]) { 1, 2, 2, 1 }, x);
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        rt_transpose_conv_params_t p = { .padding = RT_PADDING_SAME, .stride_w = 2, .stride_h = 2 };
        ck_assert_int_eq(kh_run(&h, &rt_kernel_transpose_conv, &p, (int32_t[]) { sh, w, in }, 3,
                                (int32_t[]) { out }, 1), -EINVAL);
        kh_done(&h);

        /* output_shape must be int32[4] */
        kh_init(&h);
        const int32_t shape3[3] = { 1, 4, 4 };
        sh = kh_const(&h, RT_TYPE_INT32, 1, (int32_t[]) { 3 }, shape3);
        w = kh_const(&h, RT_TYPE_FLOAT32, 4, (int32_t[]) { 1, 3, 3, 1 }, f);
        in = kh_tensor(&h, RT_TYPE_FLOAT32, 4, (int32_t[]) { 1, 2, 2, 1 }, x);
        out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_transpose_conv, &p, (int32_t[]) { sh, w, in }, 3,
                                (int32_t[]) { out }, 1), -EINVAL);
        kh_done(&h);
}
END_TEST

static Suite *tconv_suite(void) {
        Suite *s = suite_create("transpose_conv");
        TCase *tc = tcase_create("transpose_conv");
        tcase_add_test(tc, test_tconv_float_same_stride1);
        tcase_add_test(tc, test_tconv_float_stride2_bias_dynamic_shape);
        tcase_add_test(tc, test_tconv_int8_per_channel);
        tcase_add_test(tc, test_tconv_uint8_zero_points);
        tcase_add_test(tc, test_tconv_int16x8);
        tcase_add_test(tc, test_tconv_int16x8_without_bias_requantizes_in_32_bits);
        tcase_add_test(tc, test_tconv_rejects_bad_output_shape);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        SRunner *sr = srunner_create(tconv_suite());
        srunner_run_all(sr, CK_NORMAL);
        int failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed == 0 ? 0 : 1;
}
