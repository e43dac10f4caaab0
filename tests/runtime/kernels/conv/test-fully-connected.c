/* SPDX-License-Identifier: Apache-2.0 */
#include <string.h>

#include "conv-test.h"

static rt_fc_params_t params(rt_activation_t act, bool keep) {
        return (rt_fc_params_t) { .activation = act, .weights_format = RT_FC_WEIGHTS_DEFAULT,
                                  .keep_num_dims = keep };
}

/* [2,3] x [2 units, 3] + bias, hand-computed. */
START_TEST(test_fc_float_basic) {
        kh_t h;
        kh_init(&h);
        const float x[6] = { 1, 2, 3, -1, 0, 2 };
        const float f[6] = { 1, 0, -1, 0.5f, 0.5f, 0.5f };
        const float bias[2] = { 10, -1 };
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 2, (int32_t[]) { 2, 3 }, x);
        int32_t w = kh_const(&h, RT_TYPE_FLOAT32, 2, (int32_t[]) { 2, 3 }, f);
        int32_t b = kh_const(&h, RT_TYPE_FLOAT32, 1, (int32_t[]) { 2 }, bias);
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        rt_fc_params_t p = params(RT_ACT_NONE, false);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_fully_connected, &p, (int32_t[]) { in, w, b }, 3,
                                (int32_t[]) { out }, 1), 0);
        const rt_tensor_t *o = &h.tensors[out];
        ck_assert_int_eq(o->rank, 2);
        ck_assert_int_eq(o->dims[0], 2);
        ck_assert_int_eq(o->dims[1], 2);
        const float want[4] = { 10 - 2, -1 + 3, 10 - 3, -1 + 0.5f };
        for (int i = 0; i < 4; i++)
                ck_assert_float_eq(((float *) o->data)[i], want[i]);
        kh_done(&h);
}
END_TEST

/* One batch row: TFLite 2.9 sums as Eigen's SSE matrix x vector product
 * (lanes j % 4, (l0 + l2) + (l1 + l3), then the tail): native TFLite gives
 * 3 for 1e8 + 1 - 1e8 + 1 + 1, a running sum 2. Two rows keep the running
 * sum (TFLite's GEMM path; its order there is not reproduced). */
START_TEST(test_fc_float_one_row_sums_as_tflite_gemv) {
        kh_t h;
        kh_init(&h);
        const float x[5] = { 1, 1, 1, 1, 1 };
        const float f[5] = { 1e8f, 1, -1e8f, 1, 1 };
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 2, (int32_t[]) { 1, 5 }, x);
        int32_t w = kh_const(&h, RT_TYPE_FLOAT32, 2, (int32_t[]) { 1, 5 }, f);
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        rt_fc_params_t p = params(RT_ACT_NONE, false);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_fully_connected, &p, (int32_t[]) { in, w, -1 }, 3,
                                (int32_t[]) { out }, 1), 0);
        ck_assert_float_eq(((float *) h.tensors[out].data)[0], 3.0f);
        kh_done(&h);
}
END_TEST

/* The one-row sum, vectorized (four units at a time, then
 * rt_conv__dot_f32 for the rest), is still that order bit for bit at every
 * length around the blocks of four: wide-range terms whose sum depends on
 * the order, against the order written out here; six units (a block of
 * four and two), with and without a bias and a RELU6 clamp. */
START_TEST(test_fc_float_one_row_order_every_depth) {
        enum { U = 6, D = 41 };
        uint32_t seed = 12345;
        for (int32_t depth = 1; depth <= D; depth++) {
                const bool with_bias = depth % 2 == 0, relu6 = depth % 3 == 0;
                float x[D], f[U * D], bias[U], want[U];
                for (int32_t k = 0; k < U * depth + U; k++) {
                        seed = seed * 1103515245u + 12345u;
                        float v = (float) ((int32_t) (seed >> 8) % 2001 - 1000) / 7.0f;
                        if (k < U * depth)
                                f[k] = (seed >> 4) % 3 == 0 ? v * 1e7f : v;
                        else
                                bias[k - U * depth] = v / 100.0f;
                        if (k < depth)
                                x[k] = (seed >> 6) % 2 ? 1.0f / 3.0f : -2.5f;
                }
                for (int32_t u = 0; u < U; u++) {
                        float l[4] = { 0, 0, 0, 0 };
                        const int32_t full = depth / 4 * 4;
                        for (int32_t k = 0; k < full; k++)
                                l[k % 4] += x[k] * f[u * depth + k];
                        float sum = (l[0] + l[2]) + (l[1] + l[3]);
                        for (int32_t k = full; k < depth; k++)
                                sum += x[k] * f[u * depth + k];
                        sum += with_bias ? bias[u] : 0.0f;
                        want[u] = relu6 ? (sum < 0.0f ? 0.0f : sum > 6.0f ? 6.0f : sum) : sum;
                }
                kh_t h;
                kh_init(&h);
                int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 2, (int32_t[]) { 1, depth }, x);
                int32_t w = kh_const(&h, RT_TYPE_FLOAT32, 2, (int32_t[]) { U, depth }, f);
                int32_t bi = with_bias ? kh_const(&h, RT_TYPE_FLOAT32, 1, (int32_t[]) { U }, bias) : -1;
                int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
                rt_fc_params_t p = params(relu6 ? RT_ACT_RELU6 : RT_ACT_NONE, false);
                ck_assert_int_eq(kh_run(&h, &rt_kernel_fully_connected, &p, (int32_t[]) { in, w, bi }, 3,
                                        (int32_t[]) { out }, 1), 0);
                ck_assert_mem_eq(h.tensors[out].data, want, sizeof(want));
                kh_done(&h);
        }
}
END_TEST

/* keep_num_dims keeps [1,2,3] -> [1,2,units]; without it the batch is
 * flattened to [2,units]. Bias absent. */
START_TEST(test_fc_keep_num_dims_and_no_bias) {
        const float x[6] = { 1, 2, 3, 4, 5, 6 };
        const float f[3] = { 1, 1, 1 };
        for (int keep = 0; keep <= 1; keep++) {
                kh_t h;
                kh_init(&h);
                int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 3, (int32_t[]) { 1, 2, 3 }, x);
                int32_t w = kh_const(&h, RT_TYPE_FLOAT32, 2, (int32_t[]) { 1, 3 }, f);
                int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
                rt_fc_params_t p = params(RT_ACT_RELU, keep);
                ck_assert_int_eq(kh_run(&h, &rt_kernel_fully_connected, &p, (int32_t[]) { in, w, -1 }, 3,
                                        (int32_t[]) { out }, 1), 0);
                const rt_tensor_t *o = &h.tensors[out];
                if (keep) {
                        ck_assert_int_eq(o->rank, 3);
                        ck_assert_int_eq(o->dims[0], 1);
                        ck_assert_int_eq(o->dims[1], 2);
                        ck_assert_int_eq(o->dims[2], 1);
                } else {
                        ck_assert_int_eq(o->rank, 2);
                        ck_assert_int_eq(o->dims[0], 2);
                        ck_assert_int_eq(o->dims[1], 1);
                }
                ck_assert_float_eq(((float *) o->data)[0], 6);
                ck_assert_float_eq(((float *) o->data)[1], 15);
                kh_done(&h);
        }
}
END_TEST

/* Float FC ignores TANH like TFLite; RELU_N1_TO_1 clamps. */
START_TEST(test_fc_float_activations) {
        const float x[1] = { 1 };
        const float f[3] = { -2, 0.25f, 3 };
        const rt_activation_t acts[] = { RT_ACT_RELU_N1_TO_1, RT_ACT_RELU6, RT_ACT_TANH };
        const float want[][3] = { { -1, 0.25f, 1 }, { 0, 0.25f, 3 }, { -2, 0.25f, 3 } };
        for (size_t a = 0; a < ARRAY_LEN(acts); a++) {
                kh_t h;
                kh_init(&h);
                int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 2, (int32_t[]) { 1, 1 }, x);
                int32_t w = kh_const(&h, RT_TYPE_FLOAT32, 2, (int32_t[]) { 3, 1 }, f);
                int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
                rt_fc_params_t p = params(acts[a], false);
                ck_assert_int_eq(kh_run(&h, &rt_kernel_fully_connected, &p, (int32_t[]) { in, w }, 2,
                                        (int32_t[]) { out }, 1), 0);
                for (int i = 0; i < 3; i++)
                        ck_assert_float_eq(((float *) h.tensors[out].data)[i], want[a][i]);
                kh_done(&h);
        }
}
END_TEST

static void check_quant_fc(rt_type_t t, rt_activation_t act) {
        enum { B = 3, K = 17, U = 5 };
        const bool u8 = t == RT_TYPE_UINT8, i16 = t == RT_TYPE_INT16;
        const int32_t lo = u8 ? 0 : (i16 ? -32768 : -128), hi = u8 ? 255 : (i16 ? 32767 : 127);
        const float in_s = i16 ? 0.0013f : 0.051f, w_s = 0.0137f, out_s = i16 ? 0.0071f : 0.173f;
        const int32_t in_zp = u8 ? 101 : (i16 ? 0 : -3), w_zp = u8 ? 133 : 0;
        const int32_t out_zp = u8 ? 120 : (i16 ? 0 : 9);
        int32_t xi[B * K], wi[U * K], bi[U];
        ref_fill_i32(xi, ARRAY_LEN(xi), i16 ? -9000 : lo, i16 ? 9000 : hi, 61);
        ref_fill_i32(wi, ARRAY_LEN(wi), u8 ? 0 : -127, u8 ? 255 : 127, 62);
        ref_fill_i32(bi, ARRAY_LEN(bi), -4000, 4000, 63);
        int16_t x16[ARRAY_LEN(xi)];
        uint8_t x8[ARRAY_LEN(xi)];
        int8_t wb[ARRAY_LEN(wi)];
        int64_t b64[U];
        for (size_t i = 0; i < ARRAY_LEN(xi); i++) {
                x16[i] = (int16_t) xi[i];
                x8[i] = (uint8_t) xi[i];
        }
        for (size_t i = 0; i < ARRAY_LEN(wi); i++)
                wb[i] = (int8_t) (uint8_t) wi[i];
        for (int u = 0; u < U; u++)
                b64[u] = bi[u];
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, t, 2, (int32_t[]) { B, K }, i16 ? (const void *) x16 : (const void *) x8);
        int32_t w = kh_const(&h, u8 ? RT_TYPE_UINT8 : RT_TYPE_INT8, 2, (int32_t[]) { U, K }, wb);
        int32_t b = kh_const(&h, i16 ? RT_TYPE_INT64 : RT_TYPE_INT32, 1, (int32_t[]) { U },
                             i16 ? (const void *) b64 : (const void *) bi);
        int32_t out = kh_tensor(&h, t, 0, NULL, NULL);
        kh_quant(&h, in, in_s, in_zp);
        kh_quant(&h, w, w_s, w_zp);
        kh_quant(&h, out, out_s, out_zp);
        rt_fc_params_t p = params(act, false);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_fully_connected, &p, (int32_t[]) { in, w, b }, 3,
                                (int32_t[]) { out }, 1), 0);
        int32_t amin = lo, amax = hi;
        if (act == RT_ACT_RELU)
                amin = out_zp > lo ? out_zp : lo;
        const rt_tensor_t *o = &h.tensors[out];
        for (int bb = 0; bb < B; bb++)
                for (int u = 0; u < U; u++) {
                        double acc = bi[u];
                        for (int k = 0; k < K; k++)
                                acc += (double) (xi[bb * K + k] - in_zp) *
                                       ((u8 ? wi[u * K + k] : (int8_t) wi[u * K + k]) - w_zp);
                        /* TFLite FULLY_CONNECTED: float scale product. */
                        double real = (double) (in_s * w_s) / (double) out_s;
                        int32_t want = ref_output((int64_t) acc, real, out_zp, amin, amax,
                                           i16 ? REF_WIDE : REF_RUY);
                        int i = bb * U + u;
                        int32_t got = u8 ? ((uint8_t *) o->data)[i] :
                                      i16 ? ((int16_t *) o->data)[i] : ((int8_t *) o->data)[i];
                        ck_assert_msg(got == want, "output %d: got %d want %d", i, got, want);
                }
        kh_done(&h);
}

START_TEST(test_fc_int8) {
        check_quant_fc(RT_TYPE_INT8, RT_ACT_NONE);
        check_quant_fc(RT_TYPE_INT8, RT_ACT_RELU);
}
END_TEST

START_TEST(test_fc_uint8_zero_points) {
        check_quant_fc(RT_TYPE_UINT8, RT_ACT_NONE);
}
END_TEST

START_TEST(test_fc_int16x8) {
        check_quant_fc(RT_TYPE_INT16, RT_ACT_NONE);
}
END_TEST

/* One-element int16 FULLY_CONNECTED (scales 1, 1, out_s): bias kind
 * bt (RT_TYPE_INT32, RT_TYPE_INT64, or NO_BIAS). */
#define NO_BIAS RT_TYPE_FLOAT32
static int32_t fc16_one(int16_t x, int8_t f, rt_type_t bt, int64_t bias, float out_s) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_INT16, 2, (int32_t[]) { 1, 1 }, &x);
        int32_t w = kh_const(&h, RT_TYPE_INT8, 2, (int32_t[]) { 1, 1 }, &f);
        int32_t b32 = (int32_t) bias, b = -1;
        if (bt == RT_TYPE_INT32)
                b = kh_const(&h, bt, 1, (int32_t[]) { 1 }, &b32);
        else if (bt == RT_TYPE_INT64)
                b = kh_const(&h, bt, 1, (int32_t[]) { 1 }, &bias);
        int32_t out = kh_tensor(&h, RT_TYPE_INT16, 0, NULL, NULL);
        kh_quant(&h, in, 1.0f, 0);
        kh_quant(&h, w, 1.0f, 0);
        kh_quant(&h, out, out_s, 0);
        rt_fc_params_t p = params(RT_ACT_NONE, false);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_fully_connected, &p, (int32_t[]) { in, w, b }, 3,
                                (int32_t[]) { out }, 1), 0);
        int32_t v = ((int16_t *) h.tensors[out].data)[0];
        kh_done(&h);
        return v;
}

/*
 * int16 FULLY_CONNECTED without a bias or with an int32 one runs TFLite
 * 2.9's optimized path (ruy's portable kernel): int32 accumulator, one
 * rounding of acc * multiplier. An int64 bias keeps the reference kernel
 * (multiplier reduced to 16 bits, int64 accumulator).
 */
START_TEST(test_fc_int16x8_optimized_path) {
        /* real 1/3: multiplier 1431655765, shift -1. acc 60002 = 20000.667:
         * (60002 * 1431655765 + 2^31) >> 32 = 20001; the reduced multiplier
         * (21845) gives (60002 * 21845 + 2^15) >> 16 = 20000. */
        ck_assert_int_eq(fc16_one(30001, 2, NO_BIAS, 0, 3.0f), 20001);
        ck_assert_int_eq(fc16_one(30001, 2, RT_TYPE_INT32, 0, 3.0f), 20001);
        ck_assert_int_eq(fc16_one(30001, 2, RT_TYPE_INT64, 0, 3.0f), 20000);
        /* acc = 100000 + (INT32_MAX - 50000) wraps to -2147433649 in int32:
         * / 65536 = -32767.24 -> -32767; in int64 it saturates to 32767. */
        ck_assert_int_eq(fc16_one(1000, 100, RT_TYPE_INT32, INT32_MAX - 50000, 65536.0f), -32767);
        ck_assert_int_eq(fc16_one(1000, 100, RT_TYPE_INT64, INT32_MAX - 50000, 65536.0f), 32767);
}
END_TEST

/* Hybrid: an input row whose largest magnitude is 127 quantizes exactly
 * (symmetric); a row spanning [-128, 127] also exactly (asymmetric). The
 * hybrid path applies TANH for real. */
START_TEST(test_fc_hybrid_symmetric_and_asymmetric) {
        enum { K = 4, U = 2 };
        const float x[2 * K] = { 127, -3, 5, 10, -128, 127, 0, 64 };
        const int8_t wb[U * K] = { 1, 2, -3, 4, -5, 6, 7, -8 };
        const float bias[U] = { 0.5f, -0.25f };
        for (int asym = 0; asym <= 1; asym++) {
                kh_t h;
                kh_init(&h);
                const float *xr = asym ? x + K : x;
                int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 2, (int32_t[]) { 1, K }, xr);
                int32_t w = kh_const(&h, RT_TYPE_INT8, 2, (int32_t[]) { U, K }, wb);
                int32_t b = kh_const(&h, RT_TYPE_FLOAT32, 1, (int32_t[]) { U }, bias);
                int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
                kh_quant(&h, w, 0.01f, 0);
                rt_fc_params_t p = params(RT_ACT_TANH, false);
                p.asymmetric_quantize_inputs = asym;
                ck_assert_int_eq(kh_run(&h, &rt_kernel_fully_connected, &p, (int32_t[]) { in, w, b }, 3,
                                        (int32_t[]) { out }, 1), 0);
                for (int u = 0; u < U; u++) {
                        double acc = 0;
                        for (int k = 0; k < K; k++)
                                acc += (double) xr[k] * wb[u * K + k];
                        double want = tanh(bias[u] + acc * 0.01);
                        ck_assert_double_eq_tol(((float *) h.tensors[out].data)[u], want, 1e-5);
                }
                kh_done(&h);
        }
}
END_TEST

/* Hybrid with per-channel weight scales: each output unit takes its own
 * scale (TFLite 2.9 has no such path and reads a legacy scale of 0, giving
 * only the bias; acceld applies the channel scales, docs/conformance.md). */
START_TEST(test_fc_hybrid_per_channel_weight_scales) {
        enum { K = 4, U = 2 };
        const float x[K] = { 127, -3, 5, 10 };
        const int8_t wb[U * K] = { 1, 2, -3, 4, -5, 6, 7, -8 };
        const float bias[U] = { 0.5f, -0.25f };
        const float scales[U] = { 0.01f, 0.02f };
        const int64_t zps[U] = { 0, 0 };
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 2, (int32_t[]) { 1, K }, x);
        int32_t w = kh_const(&h, RT_TYPE_INT8, 2, (int32_t[]) { U, K }, wb);
        int32_t b = kh_const(&h, RT_TYPE_FLOAT32, 1, (int32_t[]) { U }, bias);
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        kh_quant_channels(&h, w, U, scales, zps, 0);
        rt_fc_params_t p = params(RT_ACT_NONE, false);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_fully_connected, &p, (int32_t[]) { in, w, b }, 3,
                                (int32_t[]) { out }, 1), 0);
        /* 127 quantizes exactly: dot 127 - 6 - 15 + 40 = 146 and -635 - 18 + 35 - 80 = -698. */
        ck_assert_double_eq_tol(((float *) h.tensors[out].data)[0], 0.5 + 146 * 0.01, 1e-5);
        ck_assert_double_eq_tol(((float *) h.tensors[out].data)[1], -0.25 - 698 * 0.02, 1e-5);
        kh_done(&h);
}
END_TEST

START_TEST(test_fc_rejects_shuffled_weights) {
        kh_t h;
        kh_init(&h);
        uint8_t x[4] = { 0 }, f[4] = { 0 };
        int32_t in = kh_tensor(&h, RT_TYPE_UINT8, 2, (int32_t[]) { 1, 4 }, x);
        int32_t w = kh_const(&h, RT_TYPE_UINT8, 2, (int32_t[]) { 1, 4 }, f);
        int32_t out = kh_tensor(&h, RT_TYPE_INT16, 0, NULL, NULL);
        rt_fc_params_t p = params(RT_ACT_NONE, false);
        p.weights_format = RT_FC_WEIGHTS_SHUFFLED4x16INT8;
        ck_assert_int_eq(kh_run(&h, &rt_kernel_fully_connected, &p, (int32_t[]) { in, w }, 2,
                                (int32_t[]) { out }, 1), -ENOTSUP);
        ck_assert_ptr_nonnull(strstr(h.error, "SHUFFLED4x16INT8"));
        kh_done(&h);
}
END_TEST

START_TEST(test_fc_rejects_bad_shapes) {
        kh_t h;
        kh_init(&h);
        float x[5] = { 0 }, f[6] = { 0 };
        /* 5 input elements do not split into rows of 3. */
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 2, (int32_t[]) { 1, 5 }, x);
        int32_t w = kh_const(&h, RT_TYPE_FLOAT32, 2, (int32_t[]) { 2, 3 }, f);
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        rt_fc_params_t p = params(RT_ACT_NONE, false);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_fully_connected, &p, (int32_t[]) { in, w }, 2,
                                (int32_t[]) { out }, 1), -EINVAL);
        kh_done(&h);

        /* Weights must be 2-D. */
        kh_init(&h);
        in = kh_tensor(&h, RT_TYPE_FLOAT32, 2, (int32_t[]) { 1, 3 }, x);
        w = kh_const(&h, RT_TYPE_FLOAT32, 3, (int32_t[]) { 1, 2, 3 }, f);
        out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_fully_connected, &p, (int32_t[]) { in, w }, 2,
                                (int32_t[]) { out }, 1), -EINVAL);
        kh_done(&h);
}
END_TEST

static Suite *fc_suite(void) {
        Suite *s = suite_create("fully_connected");
        TCase *tc = tcase_create("fully_connected");
        tcase_add_test(tc, test_fc_float_basic);
        tcase_add_test(tc, test_fc_float_one_row_sums_as_tflite_gemv);
        tcase_add_test(tc, test_fc_float_one_row_order_every_depth);
        tcase_add_test(tc, test_fc_keep_num_dims_and_no_bias);
        tcase_add_test(tc, test_fc_float_activations);
        tcase_add_test(tc, test_fc_int8);
        tcase_add_test(tc, test_fc_uint8_zero_points);
        tcase_add_test(tc, test_fc_int16x8);
        tcase_add_test(tc, test_fc_int16x8_optimized_path);
        tcase_add_test(tc, test_fc_hybrid_symmetric_and_asymmetric);
        tcase_add_test(tc, test_fc_hybrid_per_channel_weight_scales);
        tcase_add_test(tc, test_fc_rejects_shuffled_weights);
        tcase_add_test(tc, test_fc_rejects_bad_shapes);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        SRunner *sr = srunner_create(fc_suite());
        srunner_run_all(sr, CK_NORMAL);
        int failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed == 0 ? 0 : 1;
}
