/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Per-op tests of the XNNPACK driver: small builder-made graphs run on the
 * reference kernels and on XNNPACK must agree (float within 1e-4 absolute
 * + 1e-4 relative, quantized within one step), and the op must really have
 * been delegated.
 */
#include <check.h>
#include <stdio.h>

#include "driver.h"
#include "dtest.h"

#define F RT_TYPE_FLOAT32

static void pattern(float *v, size_t n, uint32_t seed) {
        uint32_t x = seed;
        for (size_t i = 0; i < n; i++) {
                x = x * 1664525u + 1013904223u;
                v[i] = (float) ((x >> 9) & 0xff) / 128.0f - 1.0f;
        }
}

static int32_t out_dim(int32_t in, int32_t k, int32_t stride, int32_t dil, int pad) {
        if (pad == RT_PADDING_SAME)
                return (in + stride - 1) / stride;
        return (in - (k - 1) * dil - 1) / stride + 1;
}

typedef enum qkind { Q_FLOAT, Q_S8, Q_U8, Q_CS8 } qkind_t;

/* A CONV_2D or DEPTHWISE_CONV_2D graph: input [1,H,W,C], kernel KxK. */
static tfb_t *conv_graph(bool dw, int32_t h, int32_t w, int32_t c, int32_t oc, int32_t k, int pad, int32_t stride,
                         int32_t dil, int act, qkind_t q) {
        tfb_t *b = tfb_new();
        int32_t ish[4] = { 1, h, w, c };
        int32_t oh = out_dim(h, k, stride, dil, pad), ow = out_dim(w, k, stride, dil, pad);
        int32_t och = dw ? c * (oc / c) : oc;
        int32_t osh[4] = { 1, oh, ow, och };
        int32_t fsh[4] = { dw ? 1 : oc, k, k, dw ? och : c };
        size_t fn = (size_t) fsh[0] * k * k * (size_t) fsh[3];
        float fv[4096], bv[64];
        ck_assert_uint_le(fn, 4096);
        pattern(fv, fn, 42);
        pattern(bv, (size_t) och, 7);
        int32_t in, filt, bias, out;
        int32_t bsh[1] = { och };
        if (q == Q_FLOAT) {
                in = tfb_tensor(b, F, "in", 4, ish);
                filt = tfb_tensor_const(b, F, "filter", 4, fsh, fv, fn * 4);
                bias = tfb_tensor_const(b, F, "bias", 1, bsh, bv, (size_t) och * 4);
                out = tfb_tensor(b, F, "out", 4, osh);
        } else {
                rt_type_t t = q == Q_U8 ? RT_TYPE_UINT8 : RT_TYPE_INT8;
                int64_t izp = q == Q_U8 ? 128 : 3, ozp = q == Q_U8 ? 120 : -2, fzp = q == Q_U8 ? 131 : 0;
                float is = 0.0078125f, fs = 0.01f, os = 0.05f;
                uint8_t qf[4096];
                for (size_t i = 0; i < fn; i++)
                        qf[i] = (uint8_t) (int) lrintf(fv[i] / fs + (float) fzp);
                in = tfb_tensor_quant(b, t, "in", 4, ish, is, izp, NULL, 0);
                int32_t qb[64];
                if (q == Q_CS8) {
                        static float sc[64];
                        static int64_t zp[64];
                        for (int32_t i = 0; i < och; i++) {
                                sc[i] = fs * (1.0f + 0.1f * (float) i);
                                zp[i] = 0;
                        }
                        int32_t qd = dw ? 3 : 0;
                        for (size_t i = 0; i < fn; i++) {
                                int32_t ch = dw ? (int32_t) (i % (size_t) och) : (int32_t) (i / ((size_t) k * k * c));
                                qf[i] = (uint8_t) (int8_t) lrintf(fv[i] / sc[ch]);
                        }
                        tfb_tensor_t ft = { .type = RT_TYPE_INT8, .rank = 4, .shape = fsh, .name = "filter",
                                            .buffer = (uint32_t) tfb_buffer_add(b, qf, fn), .n_quant = (size_t) och,
                                            .scale = sc, .zero_point = zp, .quantized_dimension = qd };
                        filt = tfb_tensor_add(b, &ft);
                        static float bsc[64];
                        static int64_t bzp[64];
                        for (int32_t i = 0; i < och; i++) {
                                bsc[i] = is * sc[i];
                                bzp[i] = 0;
                                qb[i] = (int32_t) lrintf(bv[i] / bsc[i]);
                        }
                        tfb_tensor_t bt = { .type = RT_TYPE_INT32, .rank = 1, .shape = bsh, .name = "bias",
                                            .buffer = (uint32_t) tfb_buffer_add(b, qb, (size_t) och * 4),
                                            .n_quant = (size_t) och, .scale = bsc, .zero_point = bzp };
                        bias = tfb_tensor_add(b, &bt);
                } else {
                        filt = tfb_tensor_quant(b, t, "filter", 4, fsh, fs, fzp, qf, fn);
                        for (int32_t i = 0; i < och; i++)
                                qb[i] = (int32_t) lrintf(bv[i] / (is * fs));
                        bias = tfb_tensor_quant(b, RT_TYPE_INT32, "bias", 1, bsh, is * fs, 0, qb, (size_t) och * 4);
                }
                out = tfb_tensor_quant(b, t, "out", 4, osh, os, ozp, NULL, 0);
        }
        int32_t ins[3] = { in, filt, bias }, outs[1] = { out };
        tfb_option_t conv_opts[] = { TFB_OPT_I8(0, pad), TFB_OPT_I32(1, stride), TFB_OPT_I32(2, stride),
                                     TFB_OPT_I8(3, act), TFB_OPT_I32(4, dil), TFB_OPT_I32(5, dil) };
        tfb_option_t dw_opts[] = { TFB_OPT_I8(0, pad), TFB_OPT_I32(1, stride), TFB_OPT_I32(2, stride),
                                   TFB_OPT_I32(3, och / c), TFB_OPT_I8(4, act), TFB_OPT_I32(5, dil),
                                   TFB_OPT_I32(6, dil) };
        tfb_op_t op = {
                .opcode = tfb_opcode_builtin(b, dw ? RT_BUILTIN_DEPTHWISE_CONV_2D : RT_BUILTIN_CONV_2D, q == Q_FLOAT ? 1 : 3),
                .inputs = ins, .n_inputs = 3, .outputs = outs, .n_outputs = 1,
                .options_type = dw ? RT_OPTIONS_DEPTHWISE_CONV_2D : RT_OPTIONS_CONV_2D,
                .options = dw ? dw_opts : conv_opts, .n_options = dw ? 7 : 6,
        };
        tfb_op_add(b, &op);
        int32_t gi[1] = { in };
        tfb_io(b, gi, 1, outs, 1);
        return b;
}

static void check_graph(tfb_t *b, double atol, int steps) {
        dt_result_t x;
        int n = dt_compare(b, atol, 1e-4, steps, &x);
        ck_assert_msg(n >= 1, "not delegated: %s", x.parts);
        dt_result_done(&x);
        tfb_free(b);
}

START_TEST(test_xnnpack_conv_same) {
        check_graph(conv_graph(false, 9, 8, 3, 5, 3, RT_PADDING_SAME, 1, 1, RT_ACT_NONE, Q_FLOAT), 1e-4, 0);
}
END_TEST

START_TEST(test_xnnpack_conv_valid_stride_relu6) {
        check_graph(conv_graph(false, 11, 10, 4, 6, 3, RT_PADDING_VALID, 2, 1, RT_ACT_RELU6, Q_FLOAT), 1e-4, 0);
}
END_TEST

START_TEST(test_xnnpack_conv_same_stride2) {
        check_graph(conv_graph(false, 10, 7, 3, 4, 3, RT_PADDING_SAME, 2, 1, RT_ACT_RELU, Q_FLOAT), 1e-4, 0);
}
END_TEST

START_TEST(test_xnnpack_conv_dilation) {
        check_graph(conv_graph(false, 12, 12, 2, 3, 3, RT_PADDING_VALID, 1, 2, RT_ACT_NONE, Q_FLOAT), 1e-4, 0);
}
END_TEST

START_TEST(test_xnnpack_depthwise) {
        check_graph(conv_graph(true, 9, 9, 4, 8, 3, RT_PADDING_SAME, 1, 1, RT_ACT_RELU, Q_FLOAT), 1e-4, 0);
}
END_TEST

START_TEST(test_xnnpack_depthwise_stride2_valid) {
        check_graph(conv_graph(true, 10, 10, 3, 3, 3, RT_PADDING_VALID, 2, 1, RT_ACT_NONE, Q_FLOAT), 1e-4, 0);
}
END_TEST

START_TEST(test_xnnpack_conv_qs8) {
        check_graph(conv_graph(false, 8, 8, 3, 4, 3, RT_PADDING_SAME, 1, 1, RT_ACT_RELU, Q_S8), 0, 1);
}
END_TEST

START_TEST(test_xnnpack_conv_qu8) {
        check_graph(conv_graph(false, 8, 8, 3, 4, 3, RT_PADDING_VALID, 1, 1, RT_ACT_NONE, Q_U8), 0, 1);
}
END_TEST

START_TEST(test_xnnpack_conv_qcs8) {
        check_graph(conv_graph(false, 8, 8, 3, 4, 3, RT_PADDING_SAME, 2, 1, RT_ACT_NONE, Q_CS8), 0, 1);
}
END_TEST

START_TEST(test_xnnpack_depthwise_qs8) {
        check_graph(conv_graph(true, 8, 8, 4, 4, 3, RT_PADDING_SAME, 1, 1, RT_ACT_RELU6, Q_S8), 0, 1);
}
END_TEST

START_TEST(test_xnnpack_fully_connected) {
        tfb_t *b = tfb_new();
        int32_t ish[2] = { 2, 6 }, fsh[2] = { 5, 6 }, bsh[1] = { 5 }, osh[2] = { 2, 5 };
        float fv[30], bv[5];
        pattern(fv, 30, 3);
        pattern(bv, 5, 4);
        int32_t in = tfb_tensor(b, F, "in", 2, ish);
        int32_t f = tfb_tensor_const(b, F, "w", 2, fsh, fv, sizeof(fv));
        int32_t bi = tfb_tensor_const(b, F, "b", 1, bsh, bv, sizeof(bv));
        int32_t out = tfb_tensor(b, F, "out", 2, osh);
        int32_t ins[3] = { in, f, bi }, outs[1] = { out };
        tfb_option_t opts[] = { TFB_OPT_I8(0, RT_ACT_RELU) };
        tfb_op_t op = { .opcode = tfb_opcode_builtin(b, RT_BUILTIN_FULLY_CONNECTED, 1), .inputs = ins,
                        .n_inputs = 3, .outputs = outs, .n_outputs = 1,
                        .options_type = RT_OPTIONS_FULLY_CONNECTED, .options = opts, .n_options = 1 };
        tfb_op_add(b, &op);
        tfb_io(b, &in, 1, outs, 1);
        check_graph(b, 1e-4, 0);
}
END_TEST

static tfb_t *pool_graph(bool max, int pad, int32_t k, int32_t stride, int act) {
        tfb_t *b = tfb_new();
        int32_t ish[4] = { 1, 9, 8, 3 };
        int32_t osh[4] = { 1, out_dim(9, k, stride, 1, pad), out_dim(8, k, stride, 1, pad), 3 };
        int32_t in = tfb_tensor(b, F, "in", 4, ish), out = tfb_tensor(b, F, "out", 4, osh);
        tfb_option_t opts[] = { TFB_OPT_I8(0, pad), TFB_OPT_I32(1, stride), TFB_OPT_I32(2, stride),
                                TFB_OPT_I32(3, k), TFB_OPT_I32(4, k), TFB_OPT_I8(5, act) };
        tfb_op_t op = { .opcode = tfb_opcode_builtin(b, max ? RT_BUILTIN_MAX_POOL_2D : RT_BUILTIN_AVERAGE_POOL_2D, 1),
                        .inputs = &in, .n_inputs = 1, .outputs = &out, .n_outputs = 1,
                        .options_type = RT_OPTIONS_POOL_2D, .options = opts, .n_options = 6 };
        tfb_op_add(b, &op);
        tfb_io(b, &in, 1, &out, 1);
        return b;
}

START_TEST(test_xnnpack_max_pool) {
        check_graph(pool_graph(true, RT_PADDING_SAME, 3, 2, RT_ACT_NONE), 1e-5, 0);
}
END_TEST

START_TEST(test_xnnpack_average_pool) {
        check_graph(pool_graph(false, RT_PADDING_VALID, 2, 2, RT_ACT_RELU), 1e-5, 0);
}
END_TEST

START_TEST(test_xnnpack_average_pool_same) {
        check_graph(pool_graph(false, RT_PADDING_SAME, 3, 1, RT_ACT_NONE), 1e-5, 0);
}
END_TEST

/* SAME padding where the windows need none (stride larger than the
 * kernel): XNNPACK's TensorFlow-SAME flag wraps around there, so the
 * driver passes the padding explicitly. */
START_TEST(test_xnnpack_conv_same_stride_over_kernel) {
        check_graph(conv_graph(false, 8, 8, 3, 4, 1, RT_PADDING_SAME, 3, 1, RT_ACT_NONE, Q_FLOAT), 1e-4, 0);
        check_graph(conv_graph(false, 8, 8, 3, 4, 1, RT_PADDING_SAME, 3, 1, RT_ACT_NONE, Q_S8), 1.0, 0);
        check_graph(conv_graph(true, 8, 8, 3, 3, 1, RT_PADDING_SAME, 3, 1, RT_ACT_NONE, Q_FLOAT), 1e-4, 0);
}
END_TEST

/* Float pools with a stride above the window stay on the reference kernels,
 * as TensorFlow Lite's XNNPACK delegate leaves them to its builtin kernels:
 * XNNPACK's clamp would turn a NaN input into the lower bound. Same results. */
START_TEST(test_xnnpack_pool_same_stride_over_window) {
        for (int max = 0; max < 2; max++) {
                tfb_t *b = pool_graph(max, RT_PADDING_SAME, 2, 3, RT_ACT_NONE);
                dt_result_t x;
                ck_assert_int_eq(dt_compare(b, 1e-5, 1e-4, 0, &x), 0);
                dt_result_done(&x);
                tfb_free(b);
        }
}
END_TEST

/* A rank-0 ROUND would abort the process inside XNNPACK: it stays on the
 * reference kernels. */
START_TEST(test_xnnpack_rank0_unary_refused) {
        tfb_t *b = tfb_new();
        int32_t in = tfb_tensor(b, F, "in", 0, NULL), out = tfb_tensor(b, F, "out", 0, NULL);
        tfb_op_t op = { .opcode = tfb_opcode_builtin(b, RT_BUILTIN_ROUND, 1), .inputs = &in, .n_inputs = 1,
                        .outputs = &out, .n_outputs = 1 };
        dt_result_t x;

        tfb_op_add(b, &op);
        tfb_io(b, &in, 1, &out, 1);
        ck_assert_int_eq(dt_compare(b, 0, 0, 0, &x), 0);
        dt_result_done(&x);
        tfb_free(b);
}
END_TEST

/* A PRELU graph: input [1,2,3,3], constant slopes of the given shape. */
static tfb_t *prelu_graph(int32_t rank, const int32_t *ash) {
        tfb_t *b = tfb_new();
        int32_t sh[4] = { 1, 2, 3, 3 };
        float av[3] = { 0.25f, -0.5f, 2.0f };
        int32_t in = tfb_tensor(b, F, "in", 4, sh);
        int32_t al = tfb_tensor_const(b, F, "alpha", rank, ash, av, sizeof av);
        int32_t out = tfb_tensor(b, F, "out", 4, sh);
        int32_t ins[2] = { in, al };
        tfb_op_t op = { .opcode = tfb_opcode_builtin(b, RT_BUILTIN_PRELU, 1), .inputs = ins, .n_inputs = 2,
                        .outputs = &out, .n_outputs = 1 };
        tfb_op_add(b, &op);
        tfb_io(b, &in, 1, &out, 1);
        return b;
}

/* XNNPACK's PRELU has one slope per channel. Slopes along the channels
 * ([3] or [1,1,1,3]) are delegated; slopes with as many elements as there
 * are channels but along another axis ([1,1,3,1]: one per column) are not,
 * and the graph still gives the reference result (difftest once found
 * XNNPACK applying them per channel: 0.79 where TFLite gives 0.025). */
START_TEST(test_xnnpack_prelu_slopes_per_channel_only) {
        check_graph(prelu_graph(1, (int32_t[]){ 3 }), 1e-5, 0);
        check_graph(prelu_graph(4, (int32_t[]){ 1, 1, 1, 3 }), 1e-5, 0);
        dt_result_t x;
        tfb_t *b = prelu_graph(4, (int32_t[]){ 1, 1, 3, 1 });
        ck_assert_int_eq(dt_compare(b, 0, 0, 0, &x), 0);
        dt_result_done(&x);
        tfb_free(b);
        b = prelu_graph(3, (int32_t[]){ 1, 3, 1 });
        ck_assert_int_eq(dt_compare(b, 0, 0, 0, &x), 0);
        dt_result_done(&x);
        tfb_free(b);
}
END_TEST

/* ADD or MUL of a [1,4,4,3] input and a broadcast constant, with a clamp. */
static tfb_t *binary_graph(int32_t code, int act, bool broadcast) {
        tfb_t *b = tfb_new();
        int32_t sh[4] = { 1, 4, 4, 3 }, csh[1] = { 3 };
        float cv[48];
        pattern(cv, 48, 9);
        int32_t a = tfb_tensor(b, F, "a", 4, sh);
        int32_t c = broadcast ? tfb_tensor_const(b, F, "c", 1, csh, cv, 12) : tfb_tensor(b, F, "c", 4, sh);
        int32_t out = tfb_tensor(b, F, "out", 4, sh);
        int32_t ins[2] = { a, c };
        tfb_option_t opts[] = { TFB_OPT_I8(0, act) };
        tfb_op_t op = { .opcode = tfb_opcode_builtin(b, code, 1), .inputs = ins, .n_inputs = 2, .outputs = &out,
                        .n_outputs = 1, .options_type = code == RT_BUILTIN_ADD ? RT_OPTIONS_ADD : RT_OPTIONS_MUL,
                        .options = opts, .n_options = 1 };
        tfb_op_add(b, &op);
        if (broadcast)
                tfb_io(b, &a, 1, &out, 1);
        else
                tfb_io(b, ins, 2, &out, 1);
        return b;
}

/* A fused NONE is the range [-FLT_MAX, FLT_MAX], as in TensorFlow Lite's
 * builtin kernels (the goldens' semantics): an overflowing sum is FLT_MAX,
 * never inf, so that a following LOG gives 88.72 as in TFLite (the EXP ->
 * ADD -> LOG class of docs/conformance.md). */
START_TEST(test_xnnpack_add_none_clamps_overflow_to_flt_max) {
        tfb_t *b = tfb_new();
        int32_t sh[4] = { 1, 2, 2, 3 }, csh[1] = { 3 };
        float cv[3] = { FLT_MAX, 1.0f, -2.0f };
        int32_t a = tfb_tensor(b, F, "a", 4, sh);
        int32_t c = tfb_tensor_const(b, F, "c", 1, csh, cv, 12);
        int32_t out = tfb_tensor(b, F, "out", 4, sh);
        int32_t ins[2] = { a, c };
        tfb_option_t opts[] = { TFB_OPT_I8(0, RT_ACT_NONE) };
        tfb_op_t op = { .opcode = tfb_opcode_builtin(b, RT_BUILTIN_ADD, 1), .inputs = ins, .n_inputs = 2,
                        .outputs = &out, .n_outputs = 1, .options_type = RT_OPTIONS_ADD, .options = opts,
                        .n_options = 1 };
        tfb_op_add(b, &op);
        tfb_io(b, &a, 1, &out, 1);
        size_t size = 0;
        uint8_t *buf = tfb_finish(b, &size);
        ck_assert_ptr_nonnull(buf);
        rt_settings_t s = dt_xnnpack(1);
        dt_result_t x;
        const float big = FLT_MAX;
        dt_run_value(buf, size, &s, &big, &x);
        ck_assert_msg(x.invoke_err == 0, "xnnpack: %s", x.err);
        ck_assert_int_ge(x.n_delegated, 1);
        const float *y = x.out[0];
        for (int k = 0; k < 12; k += 3) {
                ck_assert_msg(y[k] == FLT_MAX, "element %d: %g", k, (double) y[k]);
                ck_assert_msg(y[k + 1] == FLT_MAX, "element %d: %g", k + 1, (double) y[k + 1]);
                ck_assert_msg(y[k + 2] == FLT_MAX - 2.0f, "element %d: %g", k + 2, (double) y[k + 2]);
        }
        dt_result_done(&x);
        free(buf);
        tfb_free(b);
}
END_TEST

START_TEST(test_xnnpack_add_relu) {
        check_graph(binary_graph(RT_BUILTIN_ADD, RT_ACT_RELU, false), 1e-6, 0);
}
END_TEST

START_TEST(test_xnnpack_add_broadcast_relu_n1) {
        check_graph(binary_graph(RT_BUILTIN_ADD, RT_ACT_RELU_N1_TO_1, true), 1e-6, 0);
}
END_TEST

START_TEST(test_xnnpack_mul_relu6) {
        check_graph(binary_graph(RT_BUILTIN_MUL, RT_ACT_RELU6, true), 1e-6, 0);
}
END_TEST

START_TEST(test_xnnpack_reshape_softmax) {
        tfb_t *b = tfb_new();
        int32_t ish[4] = { 1, 2, 2, 5 }, osh[2] = { 4, 5 }, nsh[2] = { 4, 5 }, ssh[1] = { 2 };
        int32_t in = tfb_tensor(b, F, "in", 4, ish);
        int32_t shape = tfb_tensor_const(b, RT_TYPE_INT32, "shape", 1, ssh, nsh, 8);
        int32_t mid = tfb_tensor(b, F, "mid", 2, osh), out = tfb_tensor(b, F, "out", 2, osh);
        int32_t r_in[2] = { in, shape };
        tfb_option_t ropts[] = { TFB_OPT_VEC_I32(0, nsh, 2) };
        tfb_op_t r = { .opcode = tfb_opcode_builtin(b, RT_BUILTIN_RESHAPE, 1), .inputs = r_in, .n_inputs = 2,
                       .outputs = &mid, .n_outputs = 1, .options_type = RT_OPTIONS_RESHAPE, .options = ropts,
                       .n_options = 1 };
        tfb_op_add(b, &r);
        tfb_option_t sopts[] = { TFB_OPT_F32(0, 1.0) };
        tfb_op_t s = { .opcode = tfb_opcode_builtin(b, RT_BUILTIN_SOFTMAX, 1), .inputs = &mid, .n_inputs = 1,
                       .outputs = &out, .n_outputs = 1, .options_type = RT_OPTIONS_SOFTMAX, .options = sopts,
                       .n_options = 1 };
        tfb_op_add(b, &s);
        tfb_io(b, &in, 1, &out, 1);
        dt_result_t x;
        ck_assert_int_eq(dt_compare(b, 1e-6, 1e-5, 0, &x), 1);
        ck_assert_str_eq(x.parts, "xnnpack:2");
        dt_result_done(&x);
        tfb_free(b);
}
END_TEST

/* MEAN over H and W (keep_dims) of a [1,h,w,3] input. */
static tfb_t *mean_graph(int32_t h, int32_t w) {
        tfb_t *b = tfb_new();
        int32_t ish[4] = { 1, h, w, 3 }, osh[4] = { 1, 1, 1, 3 }, ash[1] = { 2 }, axes[2] = { 1, 2 };
        int32_t in = tfb_tensor(b, F, "in", 4, ish);
        int32_t ax = tfb_tensor_const(b, RT_TYPE_INT32, "axes", 1, ash, axes, 8);
        int32_t out = tfb_tensor(b, F, "out", 4, osh);
        int32_t ins[2] = { in, ax };
        tfb_option_t opts[] = { TFB_OPT_BOOL(0, 1) };
        tfb_op_t op = { .opcode = tfb_opcode_builtin(b, RT_BUILTIN_MEAN, 1), .inputs = ins, .n_inputs = 2,
                        .outputs = &out, .n_outputs = 1, .options_type = RT_OPTIONS_REDUCER, .options = opts,
                        .n_options = 1 };
        tfb_op_add(b, &op);
        tfb_io(b, &in, 1, &out, 1);
        return b;
}

/* A power-of-two window: XNNPACK's average pooling is exact. */
START_TEST(test_xnnpack_mean_spatial) {
        check_graph(mean_graph(4, 8), 1e-6, 0);
}
END_TEST

/* 5x6 = 30 elements: 1/30 is inexact in XNNPACK's average pooling, so the
 * driver runs the MEAN itself, bit-identical to the reference kernel. */
START_TEST(test_xnnpack_mean_inexact_native) {
        tfb_t *b = mean_graph(5, 6);
        dt_result_t x;
        ck_assert_int_eq(dt_compare(b, 0, 0, 0, &x), 1);
        ck_assert_str_eq(x.parts, "xnnpack:1");
        dt_result_done(&x);
        tfb_free(b);
}
END_TEST

/*
 * A chain mixing XNNPACK nodes with the steps the driver runs itself:
 *   a = ADD(in, in)                        XNNPACK
 *   p = MIRROR_PAD(a)                      driver (REFLECT or SYMMETRIC)
 *   r = RESIZE_NEAREST_NEIGHBOR(p, 2x)     driver (graph output 0)
 *   m = MEAN(r, {1, 2})                    driver (window not a power of two)
 *   q = MUL(m, m)                          XNNPACK
 *   y = RSQRT(q)                           driver (graph output 1)
 * in one group, bit-identical to the reference kernels.
 */
static tfb_t *native_chain_graph(bool symmetric, bool half_pixel, bool keep_dims) {
        tfb_t *b = tfb_new();
        int32_t c = 19;  /* not a multiple of the MEAN tile */
        int32_t ish[4] = { 2, 7, 5, c }, psh[4] = { 2, 10, 9, c }, rsh[4] = { 2, 20, 18, c };
        int32_t msh[4] = { 2, 1, 1, c }, msh2[2] = { 2, c }, pdsh[2] = { 4, 2 }, one[1] = { 2 };
        int32_t pads[8] = { 0, 0, 2, 1, 1, symmetric ? 3 : 2, 0, 0 }, size[2] = { 20, 18 }, axes[2] = { 2, 1 };
        if (!symmetric)
                psh[2] = 8;
        if (!symmetric)
                rsh[2] = 16, size[1] = 16;
        int32_t in = tfb_tensor(b, F, "in", 4, ish);
        int32_t a = tfb_tensor(b, F, "a", 4, ish);
        int32_t pd = tfb_tensor_const(b, RT_TYPE_INT32, "pads", 2, pdsh, pads, sizeof(pads));
        int32_t p = tfb_tensor(b, F, "p", 4, psh);
        int32_t sz = tfb_tensor_const(b, RT_TYPE_INT32, "size", 1, one, size, sizeof(size));
        int32_t r = tfb_tensor(b, F, "r", 4, rsh);
        int32_t ax = tfb_tensor_const(b, RT_TYPE_INT32, "axes", 1, one, axes, sizeof(axes));
        int32_t m = tfb_tensor(b, F, "m", keep_dims ? 4 : 2, keep_dims ? msh : msh2);
        int32_t q = tfb_tensor(b, F, "q", keep_dims ? 4 : 2, keep_dims ? msh : msh2);
        int32_t y = tfb_tensor(b, F, "y", keep_dims ? 4 : 2, keep_dims ? msh : msh2);
        tfb_option_t act[] = { TFB_OPT_I8(0, RT_ACT_NONE) };
        tfb_option_t mode[] = { TFB_OPT_I8(0, symmetric ? 1 : 0) };
        tfb_option_t rs[] = { TFB_OPT_BOOL(0, 0), TFB_OPT_BOOL(1, half_pixel) };
        tfb_option_t kd[] = { TFB_OPT_BOOL(0, keep_dims) };
        int32_t i_add[2] = { in, in }, i_pad[2] = { a, pd }, i_rs[2] = { p, sz }, i_mean[2] = { r, ax };
        int32_t i_mul[2] = { m, m };
        tfb_op_t ops[] = {
                { .opcode = tfb_opcode_builtin(b, RT_BUILTIN_ADD, 1), .inputs = i_add, .n_inputs = 2, .outputs = &a,
                  .n_outputs = 1, .options_type = RT_OPTIONS_ADD, .options = act, .n_options = 1 },
                { .opcode = tfb_opcode_builtin(b, RT_BUILTIN_MIRROR_PAD, 1), .inputs = i_pad, .n_inputs = 2,
                  .outputs = &p, .n_outputs = 1, .options_type = RT_OPTIONS_MIRROR_PAD, .options = mode,
                  .n_options = 1 },
                { .opcode = tfb_opcode_builtin(b, RT_BUILTIN_RESIZE_NEAREST_NEIGHBOR, 3), .inputs = i_rs,
                  .n_inputs = 2, .outputs = &r, .n_outputs = 1, .options_type = RT_OPTIONS_RESIZE_NEAREST_NEIGHBOR,
                  .options = rs, .n_options = 2 },
                { .opcode = tfb_opcode_builtin(b, RT_BUILTIN_MEAN, 1), .inputs = i_mean, .n_inputs = 2, .outputs = &m,
                  .n_outputs = 1, .options_type = RT_OPTIONS_REDUCER, .options = kd, .n_options = 1 },
                { .opcode = tfb_opcode_builtin(b, RT_BUILTIN_MUL, 1), .inputs = i_mul, .n_inputs = 2, .outputs = &q,
                  .n_outputs = 1, .options_type = RT_OPTIONS_MUL, .options = act, .n_options = 1 },
                { .opcode = tfb_opcode_builtin(b, RT_BUILTIN_RSQRT, 1), .inputs = &q, .n_inputs = 1, .outputs = &y,
                  .n_outputs = 1 },
        };
        for (size_t k = 0; k < sizeof(ops) / sizeof(ops[0]); k++)
                tfb_op_add(b, &ops[k]);
        int32_t outs[2] = { r, y };
        tfb_io(b, &in, 1, outs, 2);
        return b;
}

/* Bit-identical to the reference kernels at 1 and 2 threads, as one group. */
static void check_native_chain(tfb_t *b) {
        size_t size = 0;
        _cleanup_free_ uint8_t *buf = tfb_finish(b, &size);
        ck_assert_ptr_nonnull(buf);
        dt_result_t ref;
        dt_run(buf, size, NULL, &ref);
        ck_assert_msg(ref.invoke_err == 0 && ref.alloc_err == 0 && ref.create_err == 0, "reference: %s", ref.err);
        for (int threads = 1; threads <= 2; threads++) {
                rt_settings_t s = dt_xnnpack(threads);
                dt_result_t x;
                dt_run(buf, size, &s, &x);
                ck_assert_msg(x.invoke_err == 0 && x.alloc_err == 0 && x.create_err == 0, "xnnpack: %s", x.err);
                ck_assert_str_eq(x.parts, "xnnpack:6");
                ck_assert_int_eq(x.n_out, 2);
                for (int i = 0; i < 2; i++) {
                        ck_assert_uint_eq(x.out_bytes[i], ref.out_bytes[i]);
                        ck_assert_msg(memcmp(x.out[i], ref.out[i], ref.out_bytes[i]) == 0,
                                      "output %d differs from the reference at %d threads", i, threads);
                }
                dt_result_done(&x);
        }
        dt_result_done(&ref);
        tfb_free(b);
}

START_TEST(test_xnnpack_native_steps_reflect) {
        check_native_chain(native_chain_graph(false, false, true));
}
END_TEST

START_TEST(test_xnnpack_native_steps_symmetric_half_pixel) {
        check_native_chain(native_chain_graph(true, true, false));
}
END_TEST

/*
 * CONCATENATION is not in this XNNPACK's subgraph API: the driver copies it
 * itself, inside the group (it used to stay on the reference kernels and
 * cut the group in two):
 *   a = ADD(in0, in0)                          XNNPACK
 *   c = CONCATENATION(a, in1, k; axis -1)      driver, a constant part (graph output 0)
 *   y = MUL(c, c)                              XNNPACK (graph output 1)
 *   d = CONCATENATION(in2, a; axis 1)          driver, one row (graph output 2)
 * one group, bit-identical to the reference kernels at 1 and 2 threads.
 */
START_TEST(test_xnnpack_concat_native) {
        tfb_t *b = tfb_new();
        int32_t sh[4] = { 1, 5, 4, 3 }, sh1[4] = { 1, 5, 4, 2 }, shk[4] = { 1, 5, 4, 1 }, csh[4] = { 1, 5, 4, 6 };
        int32_t sh2[4] = { 1, 3, 4, 3 }, dsh[4] = { 1, 8, 4, 3 };
        float kdata[20];
        for (int i = 0; i < 20; i++)
                kdata[i] = (float) i * 0.25f - 2.0f;
        int32_t in0 = tfb_tensor(b, F, "in0", 4, sh), in1 = tfb_tensor(b, F, "in1", 4, sh1);
        int32_t in2 = tfb_tensor(b, F, "in2", 4, sh2);
        int32_t k = tfb_tensor_const(b, F, "k", 4, shk, kdata, sizeof(kdata));
        int32_t a = tfb_tensor(b, F, "a", 4, sh), c = tfb_tensor(b, F, "c", 4, csh);
        int32_t y = tfb_tensor(b, F, "y", 4, csh), d = tfb_tensor(b, F, "d", 4, dsh);
        tfb_option_t act[] = { TFB_OPT_I8(0, RT_ACT_NONE) };
        tfb_option_t last[] = { TFB_OPT_I32(0, -1), TFB_OPT_I8(1, RT_ACT_NONE) };
        tfb_option_t rows[] = { TFB_OPT_I32(0, 1), TFB_OPT_I8(1, RT_ACT_NONE) };
        int32_t i_add[2] = { in0, in0 }, i_c[3] = { a, in1, k }, i_mul[2] = { c, c }, i_d[2] = { in2, a };
        tfb_op_t ops[] = {
                { .opcode = tfb_opcode_builtin(b, RT_BUILTIN_ADD, 1), .inputs = i_add, .n_inputs = 2, .outputs = &a,
                  .n_outputs = 1, .options_type = RT_OPTIONS_ADD, .options = act, .n_options = 1 },
                { .opcode = tfb_opcode_builtin(b, RT_BUILTIN_CONCATENATION, 1), .inputs = i_c, .n_inputs = 3,
                  .outputs = &c, .n_outputs = 1, .options_type = RT_OPTIONS_CONCATENATION, .options = last,
                  .n_options = 2 },
                { .opcode = tfb_opcode_builtin(b, RT_BUILTIN_MUL, 1), .inputs = i_mul, .n_inputs = 2, .outputs = &y,
                  .n_outputs = 1, .options_type = RT_OPTIONS_MUL, .options = act, .n_options = 1 },
                { .opcode = tfb_opcode_builtin(b, RT_BUILTIN_CONCATENATION, 1), .inputs = i_d, .n_inputs = 2,
                  .outputs = &d, .n_outputs = 1, .options_type = RT_OPTIONS_CONCATENATION, .options = rows,
                  .n_options = 2 },
        };
        for (size_t q = 0; q < sizeof(ops) / sizeof(ops[0]); q++)
                tfb_op_add(b, &ops[q]);
        int32_t ins[3] = { in0, in1, in2 }, outs[3] = { c, y, d };
        tfb_io(b, ins, 3, outs, 3);
        size_t size = 0;
        _cleanup_free_ uint8_t *buf = tfb_finish(b, &size);
        ck_assert_ptr_nonnull(buf);
        dt_result_t ref;
        dt_run(buf, size, NULL, &ref);
        ck_assert_msg(ref.invoke_err == 0 && ref.alloc_err == 0 && ref.create_err == 0, "reference: %s", ref.err);
        for (int threads = 1; threads <= 2; threads++) {
                rt_settings_t st = dt_xnnpack(threads);
                dt_result_t x;
                dt_run(buf, size, &st, &x);
                ck_assert_msg(x.invoke_err == 0 && x.alloc_err == 0 && x.create_err == 0, "xnnpack: %s", x.err);
                ck_assert_str_eq(x.parts, "xnnpack:4");
                ck_assert_int_eq(x.n_out, 3);
                for (int i = 0; i < 3; i++) {
                        ck_assert_uint_eq(x.out_bytes[i], ref.out_bytes[i]);
                        ck_assert_msg(memcmp(x.out[i], ref.out[i], ref.out_bytes[i]) == 0,
                                      "output %d differs from the reference at %d threads", i, threads);
                }
                dt_result_done(&x);
        }
        dt_result_done(&ref);
        tfb_free(b);
}
END_TEST

/* CONCATENATION(a, b) alone, on [1,2,2,3] inputs of `type` (scales sa and
 * sb, output scale so) with fused activation `act`. */
static tfb_t *concat_graph(rt_type_t type, float sa, float sb, float so, int act) {
        tfb_t *b = tfb_new();
        int32_t sh[4] = { 1, 2, 2, 3 }, osh[4] = { 1, 2, 2, 6 };
        bool q = type != F;
        int32_t a = q ? tfb_tensor_quant(b, type, "a", 4, sh, sa, 3, NULL, 0) : tfb_tensor(b, F, "a", 4, sh);
        int32_t c = q ? tfb_tensor_quant(b, type, "c", 4, sh, sb, 3, NULL, 0) : tfb_tensor(b, F, "c", 4, sh);
        int32_t out = q ? tfb_tensor_quant(b, type, "out", 4, osh, so, 3, NULL, 0) : tfb_tensor(b, F, "out", 4, osh);
        int32_t ins[2] = { a, c };
        tfb_option_t opts[] = { TFB_OPT_I32(0, 3), TFB_OPT_I8(1, act) };
        tfb_op_t op = { .opcode = tfb_opcode_builtin(b, RT_BUILTIN_CONCATENATION, 1), .inputs = ins, .n_inputs = 2,
                        .outputs = &out, .n_outputs = 1, .options_type = RT_OPTIONS_CONCATENATION,
                        .options = opts, .n_options = 2 };
        tfb_op_add(b, &op);
        tfb_io(b, ins, 2, &out, 1);
        return b;
}

/* Plain copies run in the driver: int8 and uint8 inputs that share the
 * output's quantization. */
START_TEST(test_xnnpack_concat_quantized_native) {
        rt_type_t types[2] = { RT_TYPE_INT8, RT_TYPE_UINT8 };
        for (int i = 0; i < 2; i++) {
                tfb_t *b = concat_graph(types[i], 0.5f, 0.5f, 0.5f, RT_ACT_NONE);
                dt_result_t x;
                ck_assert_int_eq(dt_compare(b, 0, 0, 0, &x), 1);
                ck_assert_str_eq(x.parts, "xnnpack:1");
                dt_result_done(&x);
                tfb_free(b);
        }
}
END_TEST

/* What the reference kernel computes instead of copying stays there:
 * requantization (an input's scale differs from the output's) and a fused
 * activation. */
START_TEST(test_xnnpack_concat_falls_back) {
        tfb_t *graphs[2] = { concat_graph(RT_TYPE_INT8, 0.5f, 0.25f, 0.5f, RT_ACT_NONE),
                             concat_graph(F, 0, 0, 0, RT_ACT_RELU) };
        for (int i = 0; i < 2; i++) {
                dt_result_t x;
                ck_assert_int_eq(dt_compare(graphs[i], 0, 0, 0, &x), 0);
                ck_assert_str_eq(x.parts, "reference:1");
                ck_assert_str_eq(x.why,
                                 "node 0 (CONCATENATION): XNNPACK: CONCATENATION is not in this XNNPACK's subgraph API");
                dt_result_done(&x);
                tfb_free(graphs[i]);
        }
}
END_TEST

/* TRANSPOSE_CONV [1,h,w,2] -> [1,oh,ow,3], kernel 3x3, stride 2. */
static tfb_t *tconv_graph(int pad, int32_t h, int32_t w, int32_t oh, int32_t ow, bool bias) {
        tfb_t *b = tfb_new();
        int32_t ish[4] = { 1, h, w, 2 }, osh[4] = { 1, oh, ow, 3 }, fsh[4] = { 3, 3, 3, 2 }, ssh[1] = { 4 },
                bsh[1] = { 3 };
        float fv[54], bv[3] = { 0.5f, -0.25f, 0.125f };
        pattern(fv, 54, 77);
        int32_t shape = tfb_tensor_const(b, RT_TYPE_INT32, "shape", 1, ssh, osh, sizeof(osh));
        int32_t f = tfb_tensor_const(b, F, "w", 4, fsh, fv, sizeof(fv));
        int32_t in = tfb_tensor(b, F, "in", 4, ish);
        int32_t bi = bias ? tfb_tensor_const(b, F, "b", 1, bsh, bv, sizeof(bv)) : -1;
        int32_t out = tfb_tensor(b, F, "out", 4, osh);
        int32_t ins[4] = { shape, f, in, bi };
        tfb_option_t opts[] = { TFB_OPT_I8(0, pad), TFB_OPT_I32(1, 2), TFB_OPT_I32(2, 2) };
        tfb_op_t op = { .opcode = tfb_opcode_builtin(b, RT_BUILTIN_TRANSPOSE_CONV, bias ? 3 : 1), .inputs = ins,
                        .n_inputs = bias ? 4 : 3, .outputs = &out, .n_outputs = 1,
                        .options_type = RT_OPTIONS_TRANSPOSE_CONV, .options = opts, .n_options = 3 };
        tfb_op_add(b, &op);
        tfb_io(b, &in, 1, &out, 1);
        return b;
}

START_TEST(test_xnnpack_transpose_conv_same) {
        check_graph(tconv_graph(RT_PADDING_SAME, 4, 5, 8, 10, true), 1e-4, 0);
}
END_TEST

START_TEST(test_xnnpack_transpose_conv_valid) {
        check_graph(tconv_graph(RT_PADDING_VALID, 4, 5, 9, 11, false), 1e-4, 0);
}
END_TEST

/* FORCE_FP16: either XNNPACK honours it (results close to float32 at fp16
 * precision) or compilation fails with -ENOTSUP and a message saying why. */
/* Few input channels over a narrow image (runtime/drivers/xnnpack/
 * convolution.c folds the width into the channels): SAME and VALID,
 * stride, dilation, 1 and 2 channels, the depthwise form with one input
 * channel, a kernel narrower than the image; against the reference. */
START_TEST(test_xnnpack_conv_narrow_width_folded) {
        check_graph(conv_graph(false, 16, 3, 1, 8, 3, RT_PADDING_SAME, 1, 1, RT_ACT_RELU, Q_FLOAT), 1e-4, 0);
        check_graph(conv_graph(false, 17, 4, 2, 5, 3, RT_PADDING_SAME, 2, 1, RT_ACT_NONE, Q_FLOAT), 1e-4, 0);
        check_graph(conv_graph(false, 15, 6, 2, 4, 3, RT_PADDING_VALID, 1, 2, RT_ACT_RELU6, Q_FLOAT), 1e-4, 0);
        check_graph(conv_graph(false, 9, 5, 1, 6, 2, RT_PADDING_SAME, 1, 1, RT_ACT_NONE, Q_FLOAT), 1e-4, 0);
        check_graph(conv_graph(true, 20, 3, 1, 8, 3, RT_PADDING_SAME, 1, 1, RT_ACT_RELU, Q_FLOAT), 1e-4, 0);
        check_graph(conv_graph(true, 12, 4, 1, 3, 3, RT_PADDING_VALID, 1, 1, RT_ACT_NONE, Q_FLOAT), 1e-4, 0);
        /* Outside the fold's limits: the plain convolution. */
        check_graph(conv_graph(false, 8, 9, 2, 8, 3, RT_PADDING_SAME, 1, 1, RT_ACT_NONE, Q_FLOAT), 1e-4, 0);
}
END_TEST

START_TEST(test_xnnpack_force_fp16_honoured_or_explained) {
        /* Also on a shape whose convolution is folded (static reshapes). */
        for (int narrow = 0; narrow < 2; narrow++) {
                tfb_t *b = narrow ? conv_graph(false, 16, 3, 1, 8, 3, RT_PADDING_SAME, 1, 1, RT_ACT_NONE, Q_FLOAT)
                                  : conv_graph(false, 8, 8, 3, 4, 3, RT_PADDING_SAME, 1, 1, RT_ACT_NONE, Q_FLOAT);
                size_t size;
                _cleanup_free_ uint8_t *buf = tfb_finish(b, &size);
                tfb_free(b);
                rt_settings_t s = dt_xnnpack(1);
                s.xnnpack_flags = RT_XNNPACK_FLAG_FORCE_FP16;
                dt_result_t ref, x;
                dt_run(buf, size, NULL, &ref);
                dt_run(buf, size, &s, &x);
                if (x.alloc_err == 0) {
                        ck_assert_int_eq(x.invoke_err, 0);
                        dt_assert_close(&x, &ref, 1e-2, 1e-2, 0);
                } else {
                        ck_assert_int_eq(x.alloc_err, -ENOTSUP);
                        ck_assert_msg(strstr(x.err, "forced FP16 inference"), "%s", x.err);
                }
                dt_result_done(&x);
                dt_result_done(&ref);
        }
}
END_TEST

/* The sparse-inference hint must not change results. */
START_TEST(test_xnnpack_sparse_hint_same_results) {
        tfb_t *b = conv_graph(false, 8, 8, 4, 8, 1, RT_PADDING_VALID, 1, 1, RT_ACT_RELU, Q_FLOAT);
        size_t size;
        _cleanup_free_ uint8_t *buf = tfb_finish(b, &size);
        tfb_free(b);
        rt_settings_t s = dt_xnnpack(1);
        s.xnnpack_flags = RT_XNNPACK_FLAG_SPARSE;
        dt_result_t ref, x;
        dt_run(buf, size, NULL, &ref);
        dt_run(buf, size, &s, &x);
        ck_assert_msg(x.alloc_err == 0 && x.invoke_err == 0, "%s", x.err);
        ck_assert_str_eq(x.parts, "xnnpack:1");
        dt_assert_close(&x, &ref, 1e-4, 1e-4, 0);
        dt_result_done(&x);
        dt_result_done(&ref);
}
END_TEST

/* Two threads: same results as the reference. */
START_TEST(test_xnnpack_two_threads) {
        tfb_t *b = conv_graph(false, 16, 16, 8, 16, 3, RT_PADDING_SAME, 1, 1, RT_ACT_RELU6, Q_FLOAT);
        size_t size;
        _cleanup_free_ uint8_t *buf = tfb_finish(b, &size);
        tfb_free(b);
        rt_settings_t s = dt_xnnpack(2);
        dt_result_t ref, x;
        dt_run(buf, size, NULL, &ref);
        dt_run(buf, size, &s, &x);
        ck_assert_msg(x.alloc_err == 0 && x.invoke_err == 0, "%s", x.err);
        ck_assert_str_eq(x.parts, "xnnpack:1");
        dt_assert_close(&x, &ref, 1e-4, 1e-4, 0);
        dt_result_done(&x);
        dt_result_done(&ref);
}
END_TEST

/*
 * Operators XNNPACK refuses only when the runtime is created, not when the
 * node is defined: the support probe creates a runtime per node, so such a
 * node stays on the reference kernels (with the reason in the plan) and
 * the rest of the model is still delegated.
 *
 * int8 [1,4,4,3] -> MAX_POOL_2D 2x2 -> ADD(pooled, c) -> out, where c's
 * scale is below 2^-10 of the output's: XNNPACK's quantized add refuses
 * input-to-output scale ratios outside [2^-10, 2^8) (status 4,
 * unsupported parameter) at runtime creation.
 */
START_TEST(test_xnnpack_add_scale_ratio_refused_at_creation) {
        tfb_t *b = tfb_new();
        int32_t ish[4] = { 1, 4, 4, 3 }, psh[4] = { 1, 3, 3, 3 };
        int32_t x = tfb_tensor_quant(b, RT_TYPE_INT8, "x", 4, ish, 0.1f, 3, NULL, 0);
        int32_t p = tfb_tensor_quant(b, RT_TYPE_INT8, "pooled", 4, psh, 0.1f, 3, NULL, 0);
        int32_t c = tfb_tensor_quant(b, RT_TYPE_INT8, "c", 4, psh, 0.00005f, -5, NULL, 0);
        int32_t out = tfb_tensor_quant(b, RT_TYPE_INT8, "out", 4, psh, 0.1f, 1, NULL, 0);
        tfb_option_t popts[] = { TFB_OPT_I8(0, RT_PADDING_VALID), TFB_OPT_I32(1, 1), TFB_OPT_I32(2, 1),
                                 TFB_OPT_I32(3, 2), TFB_OPT_I32(4, 2), TFB_OPT_I8(5, RT_ACT_NONE) };
        tfb_op_t pool = { .opcode = tfb_opcode_builtin(b, RT_BUILTIN_MAX_POOL_2D, 2), .inputs = &x, .n_inputs = 1,
                          .outputs = &p, .n_outputs = 1, .options_type = RT_OPTIONS_POOL_2D, .options = popts,
                          .n_options = 6 };
        tfb_op_add(b, &pool);
        int32_t ains[2] = { p, c };
        tfb_option_t aopts[] = { TFB_OPT_I8(0, RT_ACT_NONE) };
        tfb_op_t add = { .opcode = tfb_opcode_builtin(b, RT_BUILTIN_ADD, 2), .inputs = ains, .n_inputs = 2,
                         .outputs = &out, .n_outputs = 1, .options_type = RT_OPTIONS_ADD, .options = aopts,
                         .n_options = 1 };
        tfb_op_add(b, &add);
        int32_t gi[2] = { x, c };
        tfb_io(b, gi, 2, &out, 1);
        dt_result_t r;
        ck_assert_int_eq(dt_compare(b, 0, 0, 0, &r), 1);
        ck_assert_str_eq(r.parts, "xnnpack:1 reference:1");
        ck_assert_msg(strstr(r.why, "node 1 (ADD): XNNPACK: cannot create the XNNPACK runtime (status 4, "
                                    "unsupported parameter)"), "%s", r.why);
        dt_result_done(&r);
        tfb_free(b);
}
END_TEST

/*
 * The convolution family's check at creation: a requantization scale
 * (input scale * filter scale / output scale) of 256 or more. An int8
 * FULLY_CONNECTED with scale 1 * 1 / 0.003 runs on the reference kernels,
 * a float ADD after it (through DEQUANTIZE) on XNNPACK.
 */
START_TEST(test_xnnpack_fc_requantization_refused_at_creation) {
        tfb_t *b = tfb_new();
        int32_t ish[2] = { 2, 4 }, fsh[2] = { 3, 4 }, bsh[1] = { 3 }, osh[2] = { 2, 3 };
        int8_t wv[12];
        int32_t bv[3] = { 1, -2, 3 };
        for (int i = 0; i < 12; i++)
                wv[i] = (int8_t) ((i * 7) % 5 - 2);
        int32_t in = tfb_tensor_quant(b, RT_TYPE_INT8, "in", 2, ish, 1.0f, 0, NULL, 0);
        int32_t w = tfb_tensor_quant(b, RT_TYPE_INT8, "w", 2, fsh, 1.0f, 0, wv, sizeof(wv));
        int32_t bias = tfb_tensor_quant(b, RT_TYPE_INT32, "b", 1, bsh, 1.0f, 0, bv, sizeof(bv));
        int32_t q = tfb_tensor_quant(b, RT_TYPE_INT8, "q", 2, osh, 0.003f, -7, NULL, 0);
        int32_t f = tfb_tensor(b, F, "f", 2, osh), g = tfb_tensor(b, F, "g", 2, osh);
        int32_t out = tfb_tensor(b, F, "out", 2, osh);
        int32_t fins[3] = { in, w, bias };
        tfb_option_t fopts[] = { TFB_OPT_I8(0, RT_ACT_NONE) };
        tfb_op_t fc = { .opcode = tfb_opcode_builtin(b, RT_BUILTIN_FULLY_CONNECTED, 4), .inputs = fins,
                        .n_inputs = 3, .outputs = &q, .n_outputs = 1, .options_type = RT_OPTIONS_FULLY_CONNECTED,
                        .options = fopts, .n_options = 1 };
        tfb_op_add(b, &fc);
        tfb_op_t dq = { .opcode = tfb_opcode_builtin(b, RT_BUILTIN_DEQUANTIZE, 2), .inputs = &q, .n_inputs = 1,
                        .outputs = &f, .n_outputs = 1 };
        tfb_op_add(b, &dq);
        int32_t ains[2] = { f, g };
        tfb_option_t aopts[] = { TFB_OPT_I8(0, RT_ACT_NONE) };
        tfb_op_t add = { .opcode = tfb_opcode_builtin(b, RT_BUILTIN_ADD, 1), .inputs = ains, .n_inputs = 2,
                         .outputs = &out, .n_outputs = 1, .options_type = RT_OPTIONS_ADD, .options = aopts,
                         .n_options = 1 };
        tfb_op_add(b, &add);
        int32_t gi[2] = { in, g };
        tfb_io(b, gi, 2, &out, 1);
        dt_result_t r;
        ck_assert_int_eq(dt_compare(b, 0, 0, 0, &r), 1);
        ck_assert_str_eq(r.parts, "reference:1 xnnpack:2");
        ck_assert_msg(strstr(r.why, "node 0 (FULLY_CONNECTED): XNNPACK: cannot create the XNNPACK runtime "
                                    "(status 4, unsupported parameter)"), "%s", r.why);
        dt_result_done(&r);
        tfb_free(b);
}
END_TEST

int main(void) {
        if (!rt_driver_xnnpack()) {
                fprintf(stderr, "built without XNNPACK: skipping\n");
                return 77;
        }
        Suite *s = suite_create("xnnpack-ops");
        TCase *tc = tcase_create("ops");
        tcase_add_test(tc, test_xnnpack_conv_same);
        tcase_add_test(tc, test_xnnpack_prelu_slopes_per_channel_only);
        tcase_add_test(tc, test_xnnpack_conv_valid_stride_relu6);
        tcase_add_test(tc, test_xnnpack_conv_same_stride2);
        tcase_add_test(tc, test_xnnpack_conv_dilation);
        tcase_add_test(tc, test_xnnpack_depthwise);
        tcase_add_test(tc, test_xnnpack_depthwise_stride2_valid);
        tcase_add_test(tc, test_xnnpack_conv_qs8);
        tcase_add_test(tc, test_xnnpack_conv_qu8);
        tcase_add_test(tc, test_xnnpack_conv_qcs8);
        tcase_add_test(tc, test_xnnpack_depthwise_qs8);
        tcase_add_test(tc, test_xnnpack_fully_connected);
        tcase_add_test(tc, test_xnnpack_max_pool);
        tcase_add_test(tc, test_xnnpack_average_pool);
        tcase_add_test(tc, test_xnnpack_average_pool_same);
        tcase_add_test(tc, test_xnnpack_conv_same_stride_over_kernel);
        tcase_add_test(tc, test_xnnpack_pool_same_stride_over_window);
        tcase_add_test(tc, test_xnnpack_rank0_unary_refused);
        tcase_add_test(tc, test_xnnpack_add_none_clamps_overflow_to_flt_max);
        tcase_add_test(tc, test_xnnpack_add_relu);
        tcase_add_test(tc, test_xnnpack_add_broadcast_relu_n1);
        tcase_add_test(tc, test_xnnpack_mul_relu6);
        tcase_add_test(tc, test_xnnpack_reshape_softmax);
        tcase_add_test(tc, test_xnnpack_concat_native);
        tcase_add_test(tc, test_xnnpack_concat_quantized_native);
        tcase_add_test(tc, test_xnnpack_concat_falls_back);
        tcase_add_test(tc, test_xnnpack_mean_spatial);
        tcase_add_test(tc, test_xnnpack_mean_inexact_native);
        tcase_add_test(tc, test_xnnpack_native_steps_reflect);
        tcase_add_test(tc, test_xnnpack_native_steps_symmetric_half_pixel);
        tcase_add_test(tc, test_xnnpack_conv_narrow_width_folded);
        tcase_add_test(tc, test_xnnpack_force_fp16_honoured_or_explained);
        tcase_add_test(tc, test_xnnpack_sparse_hint_same_results);
        tcase_add_test(tc, test_xnnpack_two_threads);
        tcase_add_test(tc, test_xnnpack_transpose_conv_same);
        tcase_add_test(tc, test_xnnpack_transpose_conv_valid);
        tcase_add_test(tc, test_xnnpack_add_scale_ratio_refused_at_creation);
        tcase_add_test(tc, test_xnnpack_fc_requantization_refused_at_creation);
        suite_add_tcase(s, tc);
        SRunner *sr = srunner_create(s);
        srunner_run_all(sr, CK_NORMAL);
        int failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed ? 1 : 0;
}
