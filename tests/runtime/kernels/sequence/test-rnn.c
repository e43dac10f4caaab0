/* SPDX-License-Identifier: Apache-2.0 */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kharness.h"
#include "sequence.h"

/* 2 inputs, 2 units. */
static const float w[4] = { 0.5f, -1.0f, 0.25f, 2.0f };
static const float rw[4] = { 1.0f, 0.5f, -0.5f, 0.25f };
static const float bias[2] = { 0.1f, -0.2f };

static void ref_step(const float *x, double *h, rt_activation_t act) {
        double y[2];
        for (int u = 0; u < 2; u++) {
                y[u] = bias[u] + w[u * 2] * x[0] + w[u * 2 + 1] * x[1] + rw[u * 2] * h[0] + rw[u * 2 + 1] * h[1];
                if (act == RT_ACT_RELU)
                        y[u] = fmax(0, y[u]);
                else if (act == RT_ACT_TANH)
                        y[u] = tanh(y[u]);
        }
        h[0] = y[0];
        h[1] = y[1];
}

START_TEST(test_rnn_float_two_invokes) {
        kh_t h;
        kh_init(&h);
        int32_t x = kh_tensor(&h, RT_TYPE_FLOAT32, 2, (int32_t[]){ 1, 2 }, (float[]){ 1.0f, 0.5f });
        int32_t wi = kh_const(&h, RT_TYPE_FLOAT32, 2, (int32_t[]){ 2, 2 }, w);
        int32_t ri = kh_const(&h, RT_TYPE_FLOAT32, 2, (int32_t[]){ 2, 2 }, rw);
        int32_t bi = kh_const(&h, RT_TYPE_FLOAT32, 1, (int32_t[]){ 2 }, bias);
        int32_t hs = kh_tensor(&h, RT_TYPE_FLOAT32, 2, (int32_t[]){ 1, 2 }, (float[2]){ 0 });
        h.tensors[hs].is_variable = true;
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        rt_rnn_params_t p = { .activation = RT_ACT_RELU };
        ck_assert_int_eq(kh_run(&h, &rt_kernel_rnn, &p, (int32_t[]){ x, wi, ri, bi, hs }, 5, &out, 1), 0);
        const float *y = h.tensors[out].data;
        /* unit0 = 0.1 + 0.5 - 0.5 = 0.1; unit1 = -0.2 + 0.25 + 1.0 = 1.05 */
        ck_assert_float_eq_tol(y[0], 0.1f, 1e-6);
        ck_assert_float_eq_tol(y[1], 1.05f, 1e-6);
        ck_assert_float_eq_tol(((float *) h.tensors[hs].data)[1], 1.05f, 1e-6);
        /* second step sees the hidden state: unit0 = 0.1+0.5-0.5 + 0.1 + 0.525 = 0.725 */
        ck_assert_int_eq(rt_kernel_rnn.invoke(&h.ctx, &h.node), 0);
        ck_assert_float_eq_tol(y[0], 0.725f, 1e-6);
        /* unit1 = 1.05 - 0.05 + 0.2625 = 1.2625 */
        ck_assert_float_eq_tol(y[1], 1.2625f, 1e-6);
        kh_done(&h);
}
END_TEST

static void check_sequence(bool time_major, bool hybrid) {
        const float xs[6] = { 1.0f, 0.5f, -0.5f, 0.25f, 0.75f, -1.0f };
        kh_t h;
        kh_init(&h);
        int32_t x = kh_tensor(&h, RT_TYPE_FLOAT32, 3,
                              time_major ? (int32_t[]){ 3, 1, 2 } : (int32_t[]){ 1, 3, 2 }, xs);
        int32_t wi, ri;
        if (!hybrid) {
                wi = kh_const(&h, RT_TYPE_FLOAT32, 2, (int32_t[]){ 2, 2 }, w);
                ri = kh_const(&h, RT_TYPE_FLOAT32, 2, (int32_t[]){ 2, 2 }, rw);
        } else {
                /* exact in int8 with scale 1/32 */
                int8_t wq[4], rq[4];
                for (int i = 0; i < 4; i++) {
                        wq[i] = (int8_t) lroundf(w[i] * 32);
                        rq[i] = (int8_t) lroundf(rw[i] * 32);
                }
                wi = kh_const(&h, RT_TYPE_INT8, 2, (int32_t[]){ 2, 2 }, wq);
                kh_quant(&h, wi, 1.0f / 32, 0);
                ri = kh_const(&h, RT_TYPE_INT8, 2, (int32_t[]){ 2, 2 }, rq);
                kh_quant(&h, ri, 1.0f / 32, 0);
        }
        int32_t bi = kh_const(&h, RT_TYPE_FLOAT32, 1, (int32_t[]){ 2 }, bias);
        int32_t hs = kh_tensor(&h, RT_TYPE_FLOAT32, 2, (int32_t[]){ 1, 2 }, (float[2]){ 0 });
        h.tensors[hs].is_variable = true;
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        rt_rnn_params_t p = { .activation = RT_ACT_TANH, .time_major = time_major };
        ck_assert_int_eq(kh_run(&h, &rt_kernel_unidirectional_sequence_rnn, &p, (int32_t[]){ x, wi, ri, bi, hs }, 5,
                                &out, 1), 0);
        ck_assert_int_eq(h.tensors[out].rank, 3);
        ck_assert_int_eq(h.tensors[out].dims[2], 2);
        double hr[2] = { 0, 0 };
        const float *y = h.tensors[out].data;
        for (int t = 0; t < 3; t++) {
                ref_step(xs + 2 * t, hr, RT_ACT_TANH);
                /* hybrid quantizes the activations to 8 bits */
                double tol = hybrid ? 0.03 : 1e-6;
                ck_assert_double_eq_tol(y[2 * t], hr[0], tol);
                ck_assert_double_eq_tol(y[2 * t + 1], hr[1], tol);
        }
        kh_done(&h);
}

START_TEST(test_sequence_rnn_batch_major) {
        check_sequence(false, false);
}
END_TEST

START_TEST(test_sequence_rnn_time_major) {
        check_sequence(true, false);
}
END_TEST

START_TEST(test_sequence_rnn_hybrid) {
        check_sequence(false, true);
}
END_TEST

/* One hybrid RNN step with weight bytes `wq`, `rq` of type `wt`. */
static void hybrid_rnn_run(rt_type_t wt, const int8_t *wq, const int8_t *rq, float *ret_y) {
        kh_t h;
        kh_init(&h);
        int32_t x = kh_tensor(&h, RT_TYPE_FLOAT32, 2, (int32_t[]){ 1, 2 }, (float[2]){ 0.75f, -0.5f });
        int32_t wi = kh_const(&h, wt, 2, (int32_t[]){ 2, 2 }, wq);
        kh_quant(&h, wi, 1.0f / 32, wt == RT_TYPE_UINT8 ? 128 : 0);
        int32_t ri = kh_const(&h, wt, 2, (int32_t[]){ 2, 2 }, rq);
        kh_quant(&h, ri, 1.0f / 32, wt == RT_TYPE_UINT8 ? 128 : 0);
        int32_t bi = kh_const(&h, RT_TYPE_FLOAT32, 1, (int32_t[]){ 2 }, bias);
        int32_t hs = kh_tensor(&h, RT_TYPE_FLOAT32, 2, (int32_t[]){ 1, 2 }, (float[2]){ 0.5f, -0.25f });
        h.tensors[hs].is_variable = true;
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        rt_rnn_params_t p = { .activation = RT_ACT_NONE };
        ck_assert_int_eq(kh_run(&h, &rt_kernel_rnn, &p, (int32_t[]){ x, wi, ri, bi, hs }, 5, &out, 1), 0);
        memcpy(ret_y, h.tensors[out].data, 2 * sizeof(float));
        kh_done(&h);
}

/* TFLite 2.9 takes uint8 hybrid weights and reads their bytes as int8 (the
 * zero point is not used): the same bytes give the same result. */
START_TEST(test_rnn_hybrid_uint8_weights_read_as_int8) {
        const int8_t wq[4] = { 16, -32, 8, 64 }, rq[4] = { 32, 16, -16, 8 };
        float a[2], b[2];
        hybrid_rnn_run(RT_TYPE_INT8, wq, rq, a);
        hybrid_rnn_run(RT_TYPE_UINT8, wq, rq, b);
        ck_assert_float_eq(a[0], b[0]);
        ck_assert_float_eq(a[1], b[1]);
}
END_TEST

START_TEST(test_rnn_rejects_bad_shapes) {
        kh_t h;
        kh_init(&h);
        int32_t x = kh_tensor(&h, RT_TYPE_FLOAT32, 2, (int32_t[]){ 1, 3 }, (float[3]){ 0 });
        int32_t wi = kh_const(&h, RT_TYPE_FLOAT32, 2, (int32_t[]){ 2, 2 }, w);
        int32_t ri = kh_const(&h, RT_TYPE_FLOAT32, 2, (int32_t[]){ 2, 2 }, rw);
        int32_t bi = kh_const(&h, RT_TYPE_FLOAT32, 1, (int32_t[]){ 2 }, bias);
        int32_t hs = kh_tensor(&h, RT_TYPE_FLOAT32, 2, (int32_t[]){ 1, 2 }, (float[2]){ 0 });
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        rt_rnn_params_t p = { .activation = RT_ACT_NONE };
        ck_assert_int_eq(kh_run(&h, &rt_kernel_rnn, &p, (int32_t[]){ x, wi, ri, bi, hs }, 5, &out, 1), -EINVAL);
        ck_assert_ptr_nonnull(strstr(h.error, "weights do not match"));
        kh_done(&h);
}
END_TEST

/* Reference cell with explicit weights (w_in, w_rec 2x2). */
static void ref_cell(const float *wi, const float *wr, const float *x, double *h) {
        double y[2];
        for (int u = 0; u < 2; u++)
                y[u] = tanh(bias[u] + wi[u * 2] * x[0] + wi[u * 2 + 1] * x[1] + wr[u * 2] * h[0] +
                            wr[u * 2 + 1] * h[1]);
        h[0] = y[0];
        h[1] = y[1];
}

static void check_birnn(bool merge, bool time_major) {
        const float xs[6] = { 1.0f, 0.5f, -0.5f, 0.25f, 0.75f, -1.0f };
        kh_t h;
        kh_init(&h);
        int32_t in[12];
        for (int i = 0; i < 12; i++)
                in[i] = -1;
        in[0] = kh_tensor(&h, RT_TYPE_FLOAT32, 3, time_major ? (int32_t[]){ 3, 1, 2 } : (int32_t[]){ 1, 3, 2 }, xs);
        /* forward: (w, rw); backward: (rw, w) */
        in[1] = kh_const(&h, RT_TYPE_FLOAT32, 2, (int32_t[]){ 2, 2 }, w);
        in[2] = kh_const(&h, RT_TYPE_FLOAT32, 2, (int32_t[]){ 2, 2 }, rw);
        in[3] = kh_const(&h, RT_TYPE_FLOAT32, 1, (int32_t[]){ 2 }, bias);
        in[4] = kh_tensor(&h, RT_TYPE_FLOAT32, 2, (int32_t[]){ 1, 2 }, (float[2]){ 0 });
        in[5] = kh_const(&h, RT_TYPE_FLOAT32, 2, (int32_t[]){ 2, 2 }, rw);
        in[6] = kh_const(&h, RT_TYPE_FLOAT32, 2, (int32_t[]){ 2, 2 }, w);
        in[7] = kh_const(&h, RT_TYPE_FLOAT32, 1, (int32_t[]){ 2 }, bias);
        in[8] = kh_tensor(&h, RT_TYPE_FLOAT32, 2, (int32_t[]){ 1, 2 }, (float[2]){ 0 });
        int32_t out[2];
        out[0] = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        out[1] = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        rt_rnn_params_t p = { .activation = RT_ACT_TANH, .time_major = time_major, .merge_outputs = merge };
        ck_assert_int_eq(kh_run(&h, &rt_kernel_bidirectional_sequence_rnn, &p, in, 12, out, merge ? 1 : 2), 0);
        ck_assert_int_eq(h.tensors[out[0]].dims[2], merge ? 4 : 2);
        double fw[3][2], bw[3][2], hf[2] = { 0, 0 }, hb[2] = { 0, 0 };
        for (int t = 0; t < 3; t++) {
                ref_cell(w, rw, xs + 2 * t, hf);
                fw[t][0] = hf[0];
                fw[t][1] = hf[1];
        }
        for (int t = 2; t >= 0; t--) {
                ref_cell(rw, w, xs + 2 * t, hb);
                bw[t][0] = hb[0];
                bw[t][1] = hb[1];
        }
        const float *y0 = h.tensors[out[0]].data;
        const float *y1 = merge ? y0 + 2 : h.tensors[out[1]].data;
        int step = merge ? 4 : 2;
        for (int t = 0; t < 3; t++) {
                for (int u = 0; u < 2; u++) {
                        ck_assert_double_eq_tol(y0[t * step + u], fw[t][u], 1e-6);
                        ck_assert_double_eq_tol(y1[t * step + u], bw[t][u], 1e-6);
                }
        }
        kh_done(&h);
}

START_TEST(test_birnn_separate_outputs) {
        check_birnn(false, false);
}
END_TEST

START_TEST(test_birnn_merged_time_major) {
        check_birnn(true, true);
}
END_TEST

/* A time-major bidirectional RNN with an auxiliary input of n_aux values
 * per row and aux weights (forward: rw padded, backward: w padded). */
static int birnn_aux_run(kh_t *h, int32_t n_aux, const float *aux, int32_t *out) {
        const float xs[6] = { 1.0f, 0.5f, -0.5f, 0.25f, 0.75f, -1.0f };
        float fa[2 * 4] = { 0 }, ba[2 * 4] = { 0 };
        for (int u = 0; u < 2; u++)
                for (int k = 0; k < 2; k++) {
                        fa[u * n_aux + k] = rw[u * 2 + k];
                        ba[u * n_aux + k] = w[u * 2 + k];
                }
        int32_t in[12];
        kh_init(h);
        in[0] = kh_tensor(h, RT_TYPE_FLOAT32, 3, (int32_t[]){ 3, 1, 2 }, xs);
        in[1] = kh_const(h, RT_TYPE_FLOAT32, 2, (int32_t[]){ 2, 2 }, w);
        in[2] = kh_const(h, RT_TYPE_FLOAT32, 2, (int32_t[]){ 2, 2 }, rw);
        in[3] = kh_const(h, RT_TYPE_FLOAT32, 1, (int32_t[]){ 2 }, bias);
        in[4] = kh_tensor(h, RT_TYPE_FLOAT32, 2, (int32_t[]){ 1, 2 }, (float[2]){ 0 });
        in[5] = kh_const(h, RT_TYPE_FLOAT32, 2, (int32_t[]){ 2, 2 }, rw);
        in[6] = kh_const(h, RT_TYPE_FLOAT32, 2, (int32_t[]){ 2, 2 }, w);
        in[7] = kh_const(h, RT_TYPE_FLOAT32, 1, (int32_t[]){ 2 }, bias);
        in[8] = kh_tensor(h, RT_TYPE_FLOAT32, 2, (int32_t[]){ 1, 2 }, (float[2]){ 0 });
        in[9] = kh_tensor(h, RT_TYPE_FLOAT32, 3, (int32_t[]){ 3, 1, n_aux }, aux);
        in[10] = kh_const(h, RT_TYPE_FLOAT32, 2, (int32_t[]){ 2, n_aux }, fa);
        in[11] = kh_const(h, RT_TYPE_FLOAT32, 2, (int32_t[]){ 2, n_aux }, ba);
        *out = kh_tensor(h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        rt_rnn_params_t p = { .activation = RT_ACT_TANH, .time_major = true, .merge_outputs = true };
        return kh_run(h, &rt_kernel_bidirectional_sequence_rnn, &p, in, 12, out, 1);
}

/* Auxiliary input with weights: each cell adds aux weights x aux input. */
START_TEST(test_birnn_aux_input_with_weights) {
        const float xs[6] = { 1.0f, 0.5f, -0.5f, 0.25f, 0.75f, -1.0f };
        const float aux[6] = { 0.5f, -1.0f, 0.25f, 0.25f, -0.75f, 1.0f };
        kh_t h;
        int32_t out;
        ck_assert_int_eq(birnn_aux_run(&h, 2, aux, &out), 0);
        double fw[3][2], bw[3][2], hf[2] = { 0, 0 }, hb[2] = { 0, 0 };
        for (int t = 0; t < 3; t++) {
                double y[2];
                for (int u = 0; u < 2; u++)
                        y[u] = tanh(bias[u] + w[u * 2] * xs[2 * t] + w[u * 2 + 1] * xs[2 * t + 1] +
                                    rw[u * 2] * aux[2 * t] + rw[u * 2 + 1] * aux[2 * t + 1] + rw[u * 2] * hf[0] +
                                    rw[u * 2 + 1] * hf[1]);
                hf[0] = fw[t][0] = y[0];
                hf[1] = fw[t][1] = y[1];
        }
        for (int t = 2; t >= 0; t--) {
                double y[2];
                for (int u = 0; u < 2; u++)
                        y[u] = tanh(bias[u] + rw[u * 2] * xs[2 * t] + rw[u * 2 + 1] * xs[2 * t + 1] +
                                    w[u * 2] * aux[2 * t] + w[u * 2 + 1] * aux[2 * t + 1] + w[u * 2] * hb[0] +
                                    w[u * 2 + 1] * hb[1]);
                hb[0] = bw[t][0] = y[0];
                hb[1] = bw[t][1] = y[1];
        }
        const float *y = h.tensors[out].data;
        for (int t = 0; t < 3; t++)
                for (int u = 0; u < 2; u++) {
                        ck_assert_double_eq_tol(y[t * 4 + u], fw[t][u], 1e-6);
                        ck_assert_double_eq_tol(y[t * 4 + 2 + u], bw[t][u], 1e-6);
                }
        kh_done(&h);
}
END_TEST

/* TFLite steps through the aux input by the input's row size: a narrower
 * aux input would be read past its end there, so it is refused. */
START_TEST(test_birnn_rejects_narrow_aux_input) {
        kh_t h;
        int32_t out;
        ck_assert_int_eq(birnn_aux_run(&h, 1, (float[3]){ 1, 2, 3 }, &out), -ENOTSUP);
        ck_assert_ptr_nonnull(strstr(h.error, "auxiliary"));
        kh_done(&h);
}
END_TEST

/* LSTM (16) is one step of the sequence kernel on a 2-D input. */
START_TEST(test_lstm_op16_single_step) {
        const float wv[4] = { 0.5f, -0.25f, 0.3f, 0.1f };  /* [2 cells, 2 inputs] and [2, 2] recurrent */
        kh_t h;
        kh_init(&h);
        int32_t in[20];
        for (int i = 0; i < 20; i++)
                in[i] = -1;
        in[RT_LSTM_INPUT] = kh_tensor(&h, RT_TYPE_FLOAT32, 2, (int32_t[]){ 1, 2 }, (float[]){ 1.0f, -1.0f });
        for (int g = 1; g <= 8; g++)
                in[g] = kh_const(&h, RT_TYPE_FLOAT32, 2, (int32_t[]){ 2, 2 }, wv);
        for (int g = 12; g <= 15; g++)
                in[g] = kh_const(&h, RT_TYPE_FLOAT32, 1, (int32_t[]){ 2 }, (float[]){ 0.0f, 0.5f });
        in[RT_LSTM_OUTPUT_STATE] = kh_tensor(&h, RT_TYPE_FLOAT32, 2, (int32_t[]){ 1, 2 }, (float[2]){ 0 });
        in[RT_LSTM_CELL_STATE] = kh_tensor(&h, RT_TYPE_FLOAT32, 2, (int32_t[]){ 1, 2 }, (float[2]){ 0 });
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        rt_lstm_params_t p = { .activation = RT_ACT_TANH };
        ck_assert_int_eq(kh_run(&h, &rt_kernel_lstm, &p, in, 20, &out, 1), 0);
        ck_assert_int_eq(h.tensors[out].rank, 2);
        const float *y = h.tensors[out].data;
        for (int r = 0; r < 2; r++) {
                double a = wv[r * 2] * 1.0 - wv[r * 2 + 1] + (r ? 0.5 : 0.0);
                double gate = 1.0 / (1.0 + exp(-a));
                double c = gate * tanh(a);
                ck_assert_double_eq_tol(y[r], gate * tanh(c), 1e-6);
        }
        kh_done(&h);

        /* the BASIC kernel type with fewer than 5 inputs is refused */
        kh_init(&h);
        int32_t x = kh_tensor(&h, RT_TYPE_FLOAT32, 2, (int32_t[]){ 1, 2 }, (float[2]){ 0 });
        p.kernel_type = 1;
        ck_assert_int_eq(kh_run(&h, &rt_kernel_lstm, &p, &x, 1, &x, 1), -EINVAL);
        kh_done(&h);
}
END_TEST

/* LSTM (16) with kernel_type BASIC: TFLite's 5-input LstmCell (float). */
START_TEST(test_lstm_op16_basic_kernel) {
        const float x[2] = { 0.5f, -1.0f }, pa[1] = { 0.25f }, ps[1] = { -0.5f };
        const float wv[12] = { 0.1f, 0.2f, -0.3f, 0.4f, -0.5f, 0.6f, 0.7f, -0.8f, 0.9f, 0.3f, -0.2f, 0.1f };
        const float bv[4] = { 0.1f, -0.1f, 0.2f, -0.2f };
        kh_t h;
        kh_init(&h);
        int32_t in[5];
        in[0] = kh_tensor(&h, RT_TYPE_FLOAT32, 2, (int32_t[]){ 1, 2 }, x);
        in[1] = kh_tensor(&h, RT_TYPE_FLOAT32, 2, (int32_t[]){ 1, 1 }, pa);
        in[2] = kh_const(&h, RT_TYPE_FLOAT32, 2, (int32_t[]){ 4, 3 }, wv);
        in[3] = kh_const(&h, RT_TYPE_FLOAT32, 1, (int32_t[]){ 4 }, bv);
        in[4] = kh_tensor(&h, RT_TYPE_FLOAT32, 2, (int32_t[]){ 1, 1 }, ps);
        int32_t out[4];
        for (int i = 0; i < 4; i++)
                out[i] = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        rt_lstm_params_t p = { .activation = RT_ACT_TANH, .kernel_type = 1 };
        ck_assert_int_eq(kh_run(&h, &rt_kernel_lstm, &p, in, 5, out, 4), 0);
        const float cat[3] = { x[0], x[1], pa[0] };
        double g[4];
        for (int r = 0; r < 4; r++)
                g[r] = bv[r] + wv[r * 3] * cat[0] + wv[r * 3 + 1] * cat[1] + wv[r * 3 + 2] * cat[2];
        double state = 1 / (1 + exp(-g[0])) * tanh(g[1]) + 1 / (1 + exp(-g[2])) * ps[0];
        double act = 1 / (1 + exp(-g[3])) * tanh(state);
        ck_assert_double_eq_tol(((float *) h.tensors[out[0]].data)[0], act, 1e-6);
        ck_assert_double_eq_tol(((float *) h.tensors[out[1]].data)[0], state, 1e-6);
        for (int i = 0; i < 3; i++)
                ck_assert_float_eq(((float *) h.tensors[out[2]].data)[i], cat[i]);
        for (int r = 0; r < 4; r++)
                ck_assert_double_eq_tol(((float *) h.tensors[out[3]].data)[r], g[r], 1e-6);
        /* As TFLite does, the new activation and state go back to inputs 1, 4. */
        ck_assert_double_eq_tol(((float *) h.tensors[in[1]].data)[0], act, 1e-6);
        ck_assert_double_eq_tol(((float *) h.tensors[in[4]].data)[0], state, 1e-6);
        kh_done(&h);
}
END_TEST

int main(void) {
        Suite *s = suite_create("kernels-sequence-rnn");
        TCase *tc = tcase_create("rnn");
        tcase_add_test(tc, test_rnn_float_two_invokes);
        tcase_add_test(tc, test_sequence_rnn_batch_major);
        tcase_add_test(tc, test_sequence_rnn_time_major);
        tcase_add_test(tc, test_sequence_rnn_hybrid);
        tcase_add_test(tc, test_rnn_hybrid_uint8_weights_read_as_int8);
        tcase_add_test(tc, test_rnn_rejects_bad_shapes);
        tcase_add_test(tc, test_lstm_op16_single_step);
        tcase_add_test(tc, test_lstm_op16_basic_kernel);
        tcase_add_test(tc, test_birnn_separate_outputs);
        tcase_add_test(tc, test_birnn_merged_time_major);
        tcase_add_test(tc, test_birnn_aux_input_with_weights);
        tcase_add_test(tc, test_birnn_rejects_narrow_aux_input);
        suite_add_tcase(s, tc);
        SRunner *sr = srunner_create(s);
        srunner_run_all(sr, CK_NORMAL);
        int failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
