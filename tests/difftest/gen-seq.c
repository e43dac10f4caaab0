/* SPDX-License-Identifier: Apache-2.0 */
/* Case generators for recurrent, sequence, 3-D convolution and FFT builtins
 * (LSTM/RNN family, SVDF, CONV_3D, RFFT2D, EMBEDDING_LOOKUP, ...) and the
 * int16x8 convolutions. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dt.h"

#define F RT_TYPE_FLOAT32
#define I8 RT_TYPE_INT8
#define U8 RT_TYPE_UINT8
#define I16 RT_TYPE_INT16
#define I32 RT_TYPE_INT32
#define I64 RT_TYPE_INT64

static int op_end(dt_case_t *c, int32_t code, int32_t version, const int32_t *in, int32_t n_in, const int32_t *out,
                  int32_t n_out, uint8_t ot, const tfb_option_t *o, size_t n_o) {
        return dt_op(c, code, version, in, n_in, out, n_out, ot, o, n_o) < 0 ? -ENOMEM : 0;
}

/* Float inputs going into dot products: finite (TFLite's clamps and
 * activations order NaN handling differently per kernel). */
static const dt_fill_t fin_fill = { .lo = -1, .hi = 1, .finite_max = 1e6 };

/* A float constant in [lo, hi]. */
static int32_t fconst(dt_case_t *c, dt_rng_t *r, int32_t rank, const int32_t *shape, double lo, double hi) {
        dt_fill_t f = { .lo = lo, .hi = hi };
        return dt_const(c, r, F, rank, shape, 0, 0, &f);
}

/* ---- CONV_3D, CONV_3D_TRANSPOSE ---- */

static int32_t out_size(int32_t in, int32_t k, int32_t stride, int32_t dil, bool same) {
        int32_t eff = (k - 1) * dil + 1;
        if (!same && in < eff)
                return 0;
        return same ? (in + stride - 1) / stride : (in - eff) / stride + 1;
}

static int gen_conv3d_like(dt_case_t *c, dt_rng_t *r, bool transpose) {
        c->type_name = "float32";
        int32_t n = (int32_t) dt_int(r, 1, 2), cin = (int32_t) dt_int(r, 1, 4), cout = (int32_t) dt_int(r, 1, 4);
        int32_t sp[3], k[3], s[3], d[3], o[3];
        bool same = dt_chance(r, 0.5);
        bool dil = dt_chance(r, 0.25);
        for (int i = 0; i < 3; i++) {
                sp[i] = i == 0 && dil && !transpose ? cin : (int32_t) dt_int(r, 1, 6);
                k[i] = (int32_t) dt_int(r, 1, 3);
                s[i] = (int32_t) dt_int(r, 1, 2);
                d[i] = dil && dt_chance(r, 0.5) ? 2 : 1;
                o[i] = out_size(sp[i], k[i], s[i], d[i], same);
                if (o[i] < 1)
                        return -ENOTSUP;
        }
        int32_t act = dt_act(r);
        bool with_bias = dt_chance(r, 0.7);
        int32_t terms = k[0] * k[1] * k[2] * cin;
        c->accum = terms + 1;
        /* Forward conv: sp -> o. Transpose: input o, output sp. With a
         * dilation TFLite 2.9's CONV_3D copies spatial-depth elements per
         * pixel instead of channels (b/512611805: garbage unless equal), so
         * dilated CONV_3D cases have depth == channels. */
        int32_t x, w, b = -1, y, shape = -1;
        if (!transpose) {
                x = dt_input(c, r, F, 5, TFB_DIMS(n, sp[0], sp[1], sp[2], cin), 0, 0, &fin_fill);
                w = fconst(c, r, 5, TFB_DIMS(k[0], k[1], k[2], cin, cout), -1, 1);
                if (with_bias)
                        b = fconst(c, r, 1, TFB_DIMS(cout), -1, 1);
                y = dt_output(c, F, 5, TFB_DIMS(n, o[0], o[1], o[2], cout), 0, 0);
        } else {
                int32_t os[5] = { n, sp[0], sp[1], sp[2], cout };
                bool shape_in = dt_chance(r, 0.2);
                if (shape_in) {
                        dt_fill_t sf = { 0 };
                        shape = dt_input(c, r, I32, 1, TFB_DIMS(5), 0, 0, &sf);
                        if (shape >= 0)
                                memcpy(c->in[c->n_in - 1].data, os, sizeof(os));
                } else {
                        shape = dt_const_data(c, I32, 1, TFB_DIMS(5), os, 0, 0);
                }
                w = fconst(c, r, 5, TFB_DIMS(k[0], k[1], k[2], cout, cin), -1, 1);
                x = dt_input(c, r, F, 5, TFB_DIMS(n, o[0], o[1], o[2], cin), 0, 0, &fin_fill);
                /* TFLite 2.9 wants as many bias entries as input channels
                 * (and reads the first out_c): draw that when it is enough. */
                /* With a dilation TFLite runs its reference kernel, whose
                 * bias loop steps by the input channels: past the output
                 * unless in_c == out_c (undefined); no bias there. */
                if (dil && cin != cout)
                        with_bias = false;
                if (with_bias)
                        b = fconst(c, r, 1, TFB_DIMS(cin >= cout && dt_chance(r, 0.8) ? cin : cout), -1, 1);
                /* Without dilation TFLite's col2im walks a depth count made
                 * with the height's trailing padding; more planes than the
                 * input has reads past its buffer (undefined). */
                if (d[0] == 1 && d[1] == 1 && d[2] == 1) {
                        int32_t tot[2];
                        for (int i = 0; i < 2; i++) {
                                tot[i] = (o[i] - 1) * s[i] + k[i] - sp[i];
                                tot[i] = tot[i] > 0 ? tot[i] : 0;
                        }
                        if ((sp[0] + tot[0] / 2 + tot[1] / 2 + tot[0] % 2 - k[0]) / s[0] + 1 > o[0])
                                return -ENOTSUP;
                }
                y = dt_output(c, F, 5, os, 0, 0);
                c->accum = k[0] * k[1] * k[2] * cin + 1;
        }
        if (x < 0 || w < 0 || y < 0 || (transpose && shape < 0))
                return -ENOMEM;
        dt_desc(c, "in=%dx%dx%dx%dx%d k=%dx%dx%d out_c=%d stride=%d,%d,%d dil=%d,%d,%d %s act=%s bias=%d%s", n,
                sp[0], sp[1], sp[2], cin, k[0], k[1], k[2], cout, s[0], s[1], s[2], d[0], d[1], d[2],
                same ? "SAME" : "VALID", dt_act_name(act), with_bias, c->edges ? " edges" : "");
        /* Conv3DOptions: padding, stride_d, stride_w, stride_h, act,
         * dilation_d, dilation_w, dilation_h. */
        tfb_option_t opts[] = { TFB_OPT_I8(0, same ? RT_PADDING_SAME : RT_PADDING_VALID), TFB_OPT_I32(1, s[0]),
                                TFB_OPT_I32(2, s[2]), TFB_OPT_I32(3, s[1]), TFB_OPT_I8(4, act),
                                TFB_OPT_I32(5, d[0]), TFB_OPT_I32(6, d[2]), TFB_OPT_I32(7, d[1]) };
        if (!transpose)
                return op_end(c, RT_BUILTIN_CONV_3D, 1, TFB_IDS(x, w, b), with_bias ? 3 : 2, TFB_IDS(y), 1,
                              RT_OPTIONS_CONV_3D, opts, 8);
        return op_end(c, RT_BUILTIN_CONV_3D_TRANSPOSE, 1, TFB_IDS(shape, w, x, b), with_bias ? 4 : 3, TFB_IDS(y), 1,
                      RT_OPTIONS_CONV_3D, opts, 8);
}

static int gen_conv3d(dt_case_t *c, dt_rng_t *r) {
        return gen_conv3d_like(c, r, false);
}

static int gen_conv3d_transpose(dt_case_t *c, dt_rng_t *r) {
        return gen_conv3d_like(c, r, true);
}

/* ---- EMBEDDING_LOOKUP ---- */

static int gen_embedding_lookup(dt_case_t *c, dt_rng_t *r) {
        /* float32 rows; int8/uint8 rows copied; int8/uint8 rows dequantized
         * to float32 (hybrid: value * scale, zero point ignored). */
        int kind = (int) dt_int(r, 0, 4);
        rt_type_t vt = kind == 0 ? F : kind == 1 || kind == 3 ? I8 : U8;
        rt_type_t ot = kind >= 3 || kind == 0 ? F : vt;
        if (kind == 4)
                vt = U8;
        int32_t rows = (int32_t) dt_int(r, 1, 8), vrank = (int32_t) dt_int(r, 2, 4);
        int32_t vs[4] = { rows };
        for (int32_t i = 1; i < vrank; i++)
                vs[i] = (int32_t) dt_int(r, 1, 4);
        int32_t nl = (int32_t) dt_int(r, 1, 6);
        float scale = vt == F ? 0 : dt_scale(r, 1e-3, 2);
        int32_t zp = vt == F ? 0 : dt_zero_point(r, vt);
        c->type_name = vt == F ? "float32" : ot == F ? (vt == I8 ? "int8->float32 (hybrid)" : "uint8->float32 (hybrid)")
                                                   : dt_type_name(vt);
        dt_fill_t lf = { .ilo = 0, .ihi = rows - 1 };
        if (dt_chance(r, 0.05))
                lf.ihi = rows; /* out of range: TFLite refuses at invoke */
        int32_t l = dt_input(c, r, I32, 1, TFB_DIMS(nl), 0, 0, &lf);
        int32_t v = dt_chance(r, 0.3) ? dt_input(c, r, vt, vrank, vs, scale, zp, NULL)
                                      : dt_const(c, r, vt, vrank, vs, scale, zp, NULL);
        int32_t os[4] = { nl };
        for (int32_t i = 1; i < vrank; i++)
                os[i] = vs[i];
        int32_t y = dt_output(c, ot, vrank, os, ot == F ? 0 : scale, ot == F ? 0 : zp);
        if (l < 0 || v < 0 || y < 0)
                return -ENOMEM;
        dt_desc(c, "value=%s rank=%d rows=%d lookups=%d out=%s scale=%g zp=%d%s", dt_type_name(vt), vrank, rows, nl,
                dt_type_name(ot), scale, zp, c->edges ? " edges" : "");
        return op_end(c, RT_BUILTIN_EMBEDDING_LOOKUP, 1, TFB_IDS(l, v), 2, TFB_IDS(y), 1, 0, NULL, 0);
}

/* ---- RFFT2D and the complex64 ops behind it ---- */

/* RFFT2D of a float input, then `n_tail` of REAL / IMAG / COMPLEX_ABS. */
static int gen_fft_chain(dt_case_t *c, dt_rng_t *r, const int32_t *tail, int n_tail) {
        c->type_name = "float32 (via RFFT2D)";
        int32_t rank = (int32_t) dt_int(r, 2, 4), s[4];
        for (int32_t i = 0; i < rank - 2; i++)
                s[i] = (int32_t) dt_int(r, 1, 3);
        s[rank - 2] = (int32_t) dt_int(r, 1, 9);
        s[rank - 1] = (int32_t) dt_int(r, 1, 9);
        int32_t fl[2];
        for (int i = 0; i < 2; i++)
                fl[i] = (int32_t) DT_PICK(r, 1, 2, 2, 4, 4, 8, 8, 16, 3);
        int32_t os[4];
        memcpy(os, s, sizeof(os));
        os[rank - 2] = fl[0];
        os[rank - 1] = fl[1] / 2 + 1;
        bool len_in = dt_chance(r, 0.15);
        /* Finite values: which NaN or infinity an FFT output gets depends on
         * the order of its butterflies (TFLite: Ooura's fft2d). */
        int32_t x = dt_input(c, r, F, rank, s, 0, 0, &fin_fill);
        int32_t len;
        if (len_in) {
                dt_fill_t lf = { 0 };
                len = dt_input(c, r, I32, 1, TFB_DIMS(2), 0, 0, &lf);
                if (len >= 0)
                        memcpy(c->in[c->n_in - 1].data, fl, sizeof(fl));
        } else {
                len = dt_const_data(c, I32, 1, TFB_DIMS(2), fl, 0, 0);
        }
        int32_t z = dt_tensor(c, RT_TYPE_COMPLEX64, rank, os, 0, 0);
        if (x < 0 || len < 0 || z < 0)
                return -ENOMEM;
        c->accum = fl[0] * fl[1];
        dt_desc(c, "in=%dD %dx%d fft=%dx%d len_input=%d%s", rank, s[rank - 2], s[rank - 1], fl[0], fl[1], len_in,
                c->edges ? " edges" : "");
        if (dt_op(c, RT_BUILTIN_RFFT2D, 1, TFB_IDS(x, len), 2, TFB_IDS(z), 1, RT_OPTIONS_RFFT2D, NULL, 0) < 0)
                return -ENOMEM;
        for (int i = 0; i < n_tail; i++) {
                int32_t y = dt_output(c, F, rank, os, 0, 0);
                if (y < 0)
                        return -ENOMEM;
                if (dt_op(c, tail[i], 1, TFB_IDS(z), 1, TFB_IDS(y), 1, 0, NULL, 0) < 0)
                        return -ENOMEM;
        }
        return 0;
}

static int gen_rfft2d(dt_case_t *c, dt_rng_t *r) {
        return gen_fft_chain(c, r, TFB_IDS(RT_BUILTIN_REAL, RT_BUILTIN_IMAG), 2);
}

static int gen_real(dt_case_t *c, dt_rng_t *r) {
        return gen_fft_chain(c, r, TFB_IDS(RT_BUILTIN_REAL), 1);
}

static int gen_imag(dt_case_t *c, dt_rng_t *r) {
        return gen_fft_chain(c, r, TFB_IDS(RT_BUILTIN_IMAG), 1);
}

static int gen_complex_abs(dt_case_t *c, dt_rng_t *r) {
        return gen_fft_chain(c, r, TFB_IDS(RT_BUILTIN_COMPLEX_ABS), 1);
}

/* ---- shared pieces of the recurrent ops ---- */

/* A variable (state) tensor, zero at AllocateTensors in both runtimes. */
static int32_t var_tensor(dt_case_t *c, rt_type_t t, int32_t rank, const int32_t *shape, float scale, int32_t zp) {
        int64_t zp64 = zp;
        return tfb_tensor_add(c->b, &(tfb_tensor_t) {
                .type = t,
                .rank = rank,
                .shape = shape,
                .n_quant = scale > 0 ? 1 : 0,
                .scale = &scale,
                .zero_point = &zp64,
                .is_variable = true,
        });
}

/* Weights: float in [-1, 1], or (hybrid) int8 / uint8 with a per-tensor
 * scale; int8 without -128 (symmetric, as TFLite's converter writes them). */
static int32_t weights(dt_case_t *c, dt_rng_t *r, rt_type_t wt, int32_t rank, const int32_t *shape) {
        if (wt == F)
                return fconst(c, r, rank, shape, -1, 1);
        int64_t n = dt_count(rank, shape);
        int8_t *d = malloc((size_t) n + 1);
        if (!d)
                return -ENOMEM;
        dt_fill_data(r, wt, d, n, NULL, false, 0);
        for (int64_t i = 0; wt == I8 && i < n; i++)
                if (d[i] == -128)
                        d[i] = -127;
        int32_t t = dt_const_data(c, wt, rank, shape, d, dt_scale(r, 1e-3, 2e-2), wt == U8 ? 128 : 0);
        free(d);
        return t;
}

/* Float activations for a recurrent op: mostly moderate, edges finite. */
static const dt_fill_t seq_fill = { .lo = -2, .hi = 2, .finite_max = 1e4 };

static rt_type_t seq_weight_type(dt_case_t *c, dt_rng_t *r) {
        rt_type_t wt = dt_chance(r, 0.45) ? I8 : F;
        if (wt == I8 && dt_chance(r, 0.1))
                wt = U8;
        c->type_name = wt == F ? "float32" : wt == I8 ? "hybrid (int8 weights)" : "hybrid (uint8 weights)";
        return wt;
}

/* The activations the recurrent kernels take (TFLite: NONE, RELU, RELU_N1_TO_1,
 * RELU6, TANH, SIGN_BIT all parse; the kernels apply them elementwise). */
static int32_t seq_act(dt_rng_t *r) {
        return (int32_t) DT_PICK(r, RT_ACT_TANH, RT_ACT_TANH, RT_ACT_NONE, RT_ACT_RELU, RT_ACT_RELU6,
                                 RT_ACT_RELU_N1_TO_1, RT_ACT_SIGN_BIT);
}

/* ---- RNN, UNIDIRECTIONAL_SEQUENCE_RNN, BIDIRECTIONAL_SEQUENCE_RNN ---- */

typedef struct rnn_w {
        int32_t w, rw, b, h;
} rnn_w_t;

static int rnn_weights(dt_case_t *c, dt_rng_t *r, rt_type_t wt, int32_t batch, int32_t in, int32_t units,
                       rnn_w_t *ret) {
        ret->w = weights(c, r, wt, 2, TFB_DIMS(units, in));
        ret->rw = weights(c, r, wt, 2, TFB_DIMS(units, units));
        ret->b = fconst(c, r, 1, TFB_DIMS(units), -1, 1);
        ret->h = var_tensor(c, F, 2, TFB_DIMS(batch, units), 0, 0);
        return ret->w < 0 || ret->rw < 0 || ret->b < 0 || ret->h < 0 ? -ENOMEM : 0;
}

/* kind 0: RNN, 1: UNIDIRECTIONAL_SEQUENCE_RNN, 2: BIDIRECTIONAL_SEQUENCE_RNN. */
static int gen_rnn_like(dt_case_t *c, dt_rng_t *r, int kind) {
        rt_type_t wt = seq_weight_type(c, r);
        int32_t batch = (int32_t) dt_int(r, 1, 3), in = (int32_t) dt_int(r, 1, 8), units = (int32_t) dt_int(r, 1, 8);
        int32_t steps = kind == 0 ? 1 : (int32_t) dt_int(r, 1, 5);
        bool time_major = kind > 0 && dt_chance(r, 0.5), merge = kind == 2 && dt_chance(r, 0.5);
        bool asym = wt != F && dt_chance(r, 0.5);
        int32_t act = seq_act(r);
        c->accum = (in + units) * steps + 1;
        int32_t xs[3], rank = kind == 0 ? 2 : 3;
        if (kind == 0) {
                xs[0] = batch, xs[1] = in;
        } else if (time_major) {
                xs[0] = steps, xs[1] = batch, xs[2] = in;
        } else {
                xs[0] = batch, xs[1] = steps, xs[2] = in;
        }
        int32_t x = dt_input(c, r, F, rank, xs, 0, 0, &seq_fill);
        rnn_w_t fw, bw;
        if (x < 0 || rnn_weights(c, r, wt, batch, in, units, &fw) < 0)
                return -ENOMEM;
        if (kind == 2 && rnn_weights(c, r, wt, batch, in, units, &bw) < 0)
                return -ENOMEM;
        /* BIDIRECTIONAL: an auxiliary input, with aux weights (added in both
         * cells) or without (the time-major backward cell reads it instead
         * of the input). TFLite steps through it by the input's row size, so
         * it is at least as wide as the input (narrower reads past its end). */
        int aux_mode = kind == 2 ? (int) DT_PICK(r, 0, 0, 0, 1, 2) : 0;
        int32_t aux = -1, faw = -1, baw = -1, n_aux = in + (dt_chance(r, 0.7) ? 0 : (int32_t) dt_int(r, 1, 2));
        /* (Float batch-major steps by the aux size: narrower is fine there.) */
        if (wt == F && !time_major && dt_chance(r, 0.3))
                n_aux = (int32_t) dt_int(r, 1, in);
        if (aux_mode) {
                int32_t as[3] = { xs[0], xs[1], n_aux };
                aux = dt_input(c, r, F, 3, as, 0, 0, &seq_fill);
                if (aux_mode == 1) {
                        faw = weights(c, r, wt, 2, TFB_DIMS(units, n_aux));
                        baw = weights(c, r, wt, 2, TFB_DIMS(units, n_aux));
                }
                if (aux < 0 || (aux_mode == 1 && (faw < 0 || baw < 0)))
                        return -ENOMEM;
                dt_desc(c, "aux=%s aux_size=%d", aux_mode == 1 ? "weights" : "as_bw_input", n_aux);
        }
        int32_t os[3];
        memcpy(os, xs, sizeof(os));
        os[rank - 1] = merge ? 2 * units : units;
        int32_t y = dt_output(c, F, rank, os, 0, 0), y2 = -1;
        if (kind == 2 && !merge)
                y2 = dt_output(c, F, rank, os, 0, 0);
        if (y < 0 || (kind == 2 && !merge && y2 < 0))
                return -ENOMEM;
        dt_desc(c, "w=%s batch=%d in=%d units=%d steps=%d time_major=%d merge=%d asym=%d act=%s%s",
                dt_type_name(wt), batch, in, units, steps, time_major, merge, asym, dt_act_name(act),
                c->edges ? " edges" : "");
        if (kind == 0) {
                tfb_option_t o[] = { TFB_OPT_I8(0, act), TFB_OPT_BOOL(1, asym) };
                return op_end(c, RT_BUILTIN_RNN, wt == F ? 1 : 3, TFB_IDS(x, fw.w, fw.rw, fw.b, fw.h), 5, TFB_IDS(y),
                              1, RT_OPTIONS_RNN, o, 2);
        }
        if (kind == 1) {
                tfb_option_t o[] = { TFB_OPT_BOOL(0, time_major), TFB_OPT_I8(1, act), TFB_OPT_BOOL(2, asym) };
                return op_end(c, RT_BUILTIN_UNIDIRECTIONAL_SEQUENCE_RNN, wt == F ? 1 : 3,
                              TFB_IDS(x, fw.w, fw.rw, fw.b, fw.h), 5, TFB_IDS(y), 1, RT_OPTIONS_SEQUENCE_RNN, o, 3);
        }
        tfb_option_t o[] = { TFB_OPT_BOOL(0, time_major), TFB_OPT_I8(1, act), TFB_OPT_BOOL(2, merge),
                             TFB_OPT_BOOL(3, asym) };
        return op_end(c, RT_BUILTIN_BIDIRECTIONAL_SEQUENCE_RNN, wt == F ? 1 : 3,
                      TFB_IDS(x, fw.w, fw.rw, fw.b, fw.h, bw.w, bw.rw, bw.b, bw.h, aux, faw, baw), 12, TFB_IDS(y, y2),
                      merge ? 1 : 2, RT_OPTIONS_BIDIRECTIONAL_SEQUENCE_RNN, o, 4);
}

static int gen_rnn(dt_case_t *c, dt_rng_t *r) {
        return gen_rnn_like(c, r, 0);
}

static int gen_uni_rnn(dt_case_t *c, dt_rng_t *r) {
        return gen_rnn_like(c, r, 1);
}

static int gen_bi_rnn(dt_case_t *c, dt_rng_t *r) {
        return gen_rnn_like(c, r, 2);
}

/* ---- SVDF ---- */

static int gen_svdf(dt_case_t *c, dt_rng_t *r) {
        int kind = (int) DT_PICK(r, 0, 0, 1, 1, 2); /* float, hybrid, int8 */
        rt_type_t wt = kind == 0 ? F : I8;
        if (kind == 1 && dt_chance(r, 0.1))
                wt = U8;
        c->type_name = kind == 0 ? "float32" : kind == 2 ? "int8" : wt == I8 ? "hybrid (int8 weights)"
                                                                                : "hybrid (uint8 weights)";
        int32_t batch = (int32_t) dt_int(r, 1, 3), in = (int32_t) dt_int(r, 1, 8);
        int32_t rank = (int32_t) dt_int(r, 1, 3), units = (int32_t) dt_int(r, 1, 4);
        int32_t filters = rank * units, mem = (int32_t) dt_int(r, 1, 5);
        bool asym = kind == 1 && dt_chance(r, 0.5), with_bias = dt_chance(r, 0.7);
        int32_t act = kind == 2 ? RT_ACT_RELU : dt_act(r);
        c->accum = in + mem * rank + 1;
        int32_t x, wf, wtime, b = -1, st, y;
        if (kind < 2) {
                x = dt_input(c, r, F, 2, TFB_DIMS(batch, in), 0, 0, &seq_fill);
                wf = weights(c, r, wt, 2, TFB_DIMS(filters, in));
                wtime = weights(c, r, wt, 2, TFB_DIMS(filters, mem));
                if (with_bias)
                        b = fconst(c, r, 1, TFB_DIMS(units), -1, 1);
                st = var_tensor(c, F, 2, TFB_DIMS(batch, mem * filters), 0, 0);
                y = dt_output(c, F, 2, TFB_DIMS(batch, units), 0, 0);
        } else {
                float si = dt_scale(r, 1e-3, 0.1), swf = dt_scale(r, 1e-3, 2e-2), swt = dt_scale(r, 1e-5, 1e-3);
                float ss = dt_scale(r, 1e-4, 1e-2), so = dt_scale(r, 1e-3, 0.1);
                int32_t zi = dt_zero_point(r, I8), zo = dt_zero_point(r, I8);
                x = dt_input(c, r, I8, 2, TFB_DIMS(batch, in), si, zi, NULL);
                wf = dt_const(c, r, I8, 2, TFB_DIMS(filters, in), swf, 0, NULL);
                wtime = dt_const(c, r, I16, 2, TFB_DIMS(filters, mem), swt, 0, NULL);
                if (with_bias) {
                        dt_fill_t bf = { .ilo = -30000, .ihi = 30000 };
                        b = dt_const(c, r, I32, 1, TFB_DIMS(units), ss * swt, 0, &bf);
                }
                st = var_tensor(c, I16, 2, TFB_DIMS(batch, mem * filters), ss, 0);
                y = dt_output(c, I8, 2, TFB_DIMS(batch, units), so, zo);
                dt_desc(c, "si=%g zi=%d swf=%g swt=%g ss=%g so=%g zo=%d", si, zi, swf, swt, ss, so, zo);
        }
        if (x < 0 || wf < 0 || wtime < 0 || st < 0 || y < 0 || (with_bias && b < 0))
                return -ENOMEM;
        dt_desc(c, "type=%s batch=%d in=%d rank=%d units=%d memory=%d bias=%d asym=%d act=%s%s", c->type_name, batch,
                in, rank, units, mem, with_bias, asym, dt_act_name(act), c->edges ? " edges" : "");
        tfb_option_t o[] = { TFB_OPT_I32(0, rank), TFB_OPT_I8(1, act), TFB_OPT_BOOL(2, asym) };
        return op_end(c, RT_BUILTIN_SVDF, kind == 0 ? 1 : kind == 1 ? 4 : 3, TFB_IDS(x, wf, wtime, b, st), 5,
                      TFB_IDS(y), 1, RT_OPTIONS_SVDF, o, 3);
}

/* ---- LSTM, UNIDIRECTIONAL_SEQUENCE_LSTM, BIDIRECTIONAL_SEQUENCE_LSTM ---- */

typedef struct lstm_cfg {
        rt_type_t wt;
        int32_t batch, in, cell, out;
        bool cifg, peephole, proj, proj_bias, layer_norm;
} lstm_cfg_t;

/* The 17 weight / bias tensors of one cell (TFLite's inputs 1..17, -1 when
 * absent) and its 4 layer norm coefficients. */
static int lstm_cell(dt_case_t *c, dt_rng_t *r, const lstm_cfg_t *q, int32_t *w17, int32_t *ln4) {
        for (int g = 0; g < 4; g++) {
                bool skip = q->cifg && g == 0;
                w17[g] = skip ? -1 : weights(c, r, q->wt, 2, TFB_DIMS(q->cell, q->in));
                w17[4 + g] = skip ? -1 : weights(c, r, q->wt, 2, TFB_DIMS(q->cell, q->out));
                w17[11 + g] = skip ? -1 : fconst(c, r, 1, TFB_DIMS(q->cell), -1, 1);
                ln4[g] = skip || !q->layer_norm ? -1 : fconst(c, r, 1, TFB_DIMS(q->cell), 0.2, 1.5);
        }
        for (int g = 0; g < 3; g++)
                w17[8 + g] = !q->peephole || (q->cifg && g == 0) ? -1 : weights(c, r, q->wt, 1, TFB_DIMS(q->cell));
        w17[15] = q->proj ? weights(c, r, q->wt, 2, TFB_DIMS(q->out, q->cell)) : -1;
        w17[16] = q->proj && q->proj_bias ? fconst(c, r, 1, TFB_DIMS(q->out), -1, 1) : -1;
        for (int i = 0; i < 17; i++)
                if (w17[i] < -1)
                        return -ENOMEM;
        for (int i = 0; i < 4; i++)
                if (ln4[i] < -1)
                        return -ENOMEM;
        return 0;
}

/* kind 0: LSTM, 1: UNIDIRECTIONAL_SEQUENCE_LSTM, 2: BIDIRECTIONAL_SEQUENCE_LSTM. */
static int gen_lstm_like(dt_case_t *c, dt_rng_t *r, int kind) {
        lstm_cfg_t q = { .wt = seq_weight_type(c, r) };
        q.batch = (int32_t) dt_int(r, 1, 3);
        q.in = (int32_t) dt_int(r, 1, 6);
        q.cell = (int32_t) dt_int(r, 1, 6);
        q.cifg = dt_chance(r, 0.3);
        q.peephole = dt_chance(r, 0.3);
        q.proj = dt_chance(r, 0.3);
        q.proj_bias = q.proj && dt_chance(r, 0.5);
        q.layer_norm = kind < 2 && dt_chance(r, 0.25);
        q.out = q.proj ? (int32_t) dt_int(r, 1, 6) : q.cell;
        int32_t steps = kind == 0 ? 1 : (int32_t) dt_int(r, 1, 4);
        bool time_major = kind == 2 ? dt_chance(r, 0.6) : kind == 1 && dt_chance(r, 0.5);
        bool merge = kind == 2 && dt_chance(r, 0.5);
        /* Merged batch-major outputs: TFLite 2.9 offsets the states of batch
         * b by b * (fw + bw outputs), past the end of the state tensors for
         * b > 0 (undefined); keep to one batch there. */
        if (merge && !time_major)
                q.batch = 1;
        bool asym = q.wt != F && dt_chance(r, 0.5);
        int32_t act = (int32_t) DT_PICK(r, RT_ACT_TANH, RT_ACT_TANH, RT_ACT_TANH, RT_ACT_NONE, RT_ACT_RELU,
                                        RT_ACT_RELU6, RT_ACT_RELU_N1_TO_1, RT_ACT_SIGN_BIT);
        float cell_clip = dt_chance(r, 0.3) ? (float) (0.2 + 3 * dt_unit(r)) : 0;
        float proj_clip = q.proj && dt_chance(r, 0.4) ? (float) (0.2 + 3 * dt_unit(r)) : 0;
        c->accum = (q.in + q.out + q.cell) * steps * (kind == 2 ? 2 : 1) + 1;
        int32_t xs[3], rank = kind == 0 ? 2 : 3;
        if (kind == 0) {
                xs[0] = q.batch, xs[1] = q.in;
        } else if (time_major) {
                xs[0] = steps, xs[1] = q.batch, xs[2] = q.in;
        } else {
                xs[0] = q.batch, xs[1] = steps, xs[2] = q.in;
        }
        int32_t x = dt_input(c, r, F, rank, xs, 0, 0, &seq_fill);
        int32_t fw[17], fln[4], bw[17], bln[4];
        if (x < 0 || lstm_cell(c, r, &q, fw, fln) < 0)
                return -ENOMEM;
        if (kind == 2 && lstm_cell(c, r, &q, bw, bln) < 0)
                return -ENOMEM;
        /* BIDIRECTIONAL: an auxiliary input with weights for every gate
         * (added in both cells; TFLite steps through it by the input size,
         * so at least as wide as the input) or without (the backward cell
         * reads it instead of the input; then shaped as the input). */
        int aux_mode = kind == 2 ? (int) DT_PICK(r, 0, 0, 0, 1, 2) : 0;
        int32_t aux = -1, aw[8];
        for (int i = 0; i < 8; i++)
                aw[i] = -1;
        if (aux_mode) {
                int32_t n_aux = aux_mode == 2 || dt_chance(r, 0.7) ? q.in : q.in + (int32_t) dt_int(r, 1, 2);
                aux = dt_input(c, r, F, 3, TFB_DIMS(xs[0], xs[1], n_aux), 0, 0, &seq_fill);
                for (int i = 0; aux_mode == 1 && i < 8; i++)
                        aw[i] = q.cifg && i % 4 == 0 ? -1 : weights(c, r, q.wt, 2, TFB_DIMS(q.cell, n_aux));
                for (int i = 0; i < 8; i++)
                        if (aw[i] < -1)
                                return -ENOMEM;
                if (aux < 0)
                        return -ENOMEM;
                dt_desc(c, "aux=%s aux_size=%d", aux_mode == 1 ? "weights" : "as_bw_input", n_aux);
        }
        int32_t fh = var_tensor(c, F, 2, TFB_DIMS(q.batch, q.out), 0, 0);
        int32_t fc = var_tensor(c, F, 2, TFB_DIMS(q.batch, q.cell), 0, 0);
        int32_t bh = kind == 2 ? var_tensor(c, F, 2, TFB_DIMS(q.batch, q.out), 0, 0) : -1;
        int32_t bc = kind == 2 ? var_tensor(c, F, 2, TFB_DIMS(q.batch, q.cell), 0, 0) : -1;
        int32_t os[3];
        memcpy(os, xs, sizeof(os));
        os[rank - 1] = merge ? 2 * q.out : q.out;
        int32_t y = dt_output(c, F, rank, os, 0, 0), y2 = -1;
        if (kind == 2 && !merge)
                y2 = dt_output(c, F, rank, os, 0, 0);
        if (fh < 0 || fc < 0 || y < 0 || (kind == 2 && (bh < 0 || bc < 0 || (!merge && y2 < 0))))
                return -ENOMEM;
        dt_desc(c, "w=%s batch=%d in=%d cell=%d out=%d steps=%d cifg=%d peephole=%d proj=%d proj_bias=%d ln=%d "
                   "time_major=%d merge=%d asym=%d act=%s cell_clip=%g proj_clip=%g%s",
                dt_type_name(q.wt), q.batch, q.in, q.cell, q.out, steps, q.cifg, q.peephole, q.proj, q.proj_bias,
                q.layer_norm, time_major, merge, asym, dt_act_name(act), cell_clip, proj_clip,
                c->edges ? " edges" : "");
        int version = q.wt == F ? 1 : 3;
        if (kind < 2) {
                int32_t ins[24] = { x };
                memcpy(ins + 1, fw, sizeof(fw));
                ins[18] = fh, ins[19] = fc;
                memcpy(ins + 20, fln, sizeof(fln));
                int32_t n_in = q.layer_norm ? 24 : 20;
                if (kind == 0) {
                        tfb_option_t o[] = { TFB_OPT_I8(0, act), TFB_OPT_F32(1, cell_clip), TFB_OPT_F32(2, proj_clip),
                                             TFB_OPT_I8(3, 0), TFB_OPT_BOOL(4, asym) };
                        return op_end(c, RT_BUILTIN_LSTM, version, ins, n_in, TFB_IDS(y), 1, RT_OPTIONS_LSTM, o, 5);
                }
                tfb_option_t o[] = { TFB_OPT_I8(0, act), TFB_OPT_F32(1, cell_clip), TFB_OPT_F32(2, proj_clip),
                                     TFB_OPT_BOOL(3, time_major), TFB_OPT_BOOL(4, asym) };
                return op_end(c, RT_BUILTIN_UNIDIRECTIONAL_SEQUENCE_LSTM, version, ins, n_in, TFB_IDS(y), 1,
                              RT_OPTIONS_UNIDIRECTIONAL_SEQUENCE_LSTM, o, 5);
        }
        int32_t ins[48];
        for (int i = 0; i < 48; i++)
                ins[i] = -1;
        ins[0] = x;
        memcpy(ins + 1, fw, sizeof(fw));
        memcpy(ins + 18, bw, sizeof(bw));
        ins[35] = fh, ins[36] = fc, ins[37] = bh, ins[38] = bc;
        ins[39] = aux;
        memcpy(ins + 40, aw, sizeof(aw));
        tfb_option_t o[] = { TFB_OPT_I8(0, act), TFB_OPT_F32(1, cell_clip), TFB_OPT_F32(2, proj_clip),
                             TFB_OPT_BOOL(3, merge), TFB_OPT_BOOL(4, time_major), TFB_OPT_BOOL(5, asym) };
        return op_end(c, RT_BUILTIN_BIDIRECTIONAL_SEQUENCE_LSTM, version, ins, 48, TFB_IDS(y, y2), merge ? 1 : 2,
                      RT_OPTIONS_BIDIRECTIONAL_SEQUENCE_LSTM, o, 6);
}

static int gen_lstm(dt_case_t *c, dt_rng_t *r) {
        return gen_lstm_like(c, r, 0);
}

static int gen_uni_lstm(dt_case_t *c, dt_rng_t *r) {
        return gen_lstm_like(c, r, 1);
}

static int gen_bi_lstm(dt_case_t *c, dt_rng_t *r) {
        return gen_lstm_like(c, r, 2);
}

/* ---- LSTM with kernel_type BASIC (TFLite's 5-input LstmCell, float) ---- */

/* TFLite's quantized LstmCell<4>: uint8 activations (TFLite takes their
 * zero point as 128), uint8 weights, int32 bias, int16 state of scale
 * 2^-11. */
static int gen_lstm_basic_quant(dt_case_t *c, dt_rng_t *r) {
        c->type_name = "uint8 (int16 state)";
        int32_t batch = (int32_t) dt_int(r, 1, 3), in = (int32_t) dt_int(r, 1, 6), depth = (int32_t) dt_int(r, 1, 6);
        int32_t total = in + depth;
        float sa = 1.0f / 128, sw = dt_scale(r, 2e-3, 6e-2), ss = 1.0f / 2048;
        int32_t zw = (int32_t) dt_int(r, 0, 255);
        int32_t x = dt_input(c, r, U8, 2, TFB_DIMS(batch, in), sa, 128, NULL);
        int32_t pa = dt_input(c, r, U8, 2, TFB_DIMS(batch, depth), sa, 128, NULL);
        int32_t w = dt_const(c, r, U8, 2, TFB_DIMS(4 * depth, total), sw, zw, NULL);
        dt_fill_t bf = { .ilo = -40000, .ihi = 40000 };
        int32_t b = dt_const(c, r, I32, 1, TFB_DIMS(4 * depth), sa * sw, 0, &bf);
        int32_t ps = dt_input(c, r, I16, 2, TFB_DIMS(batch, depth), ss, 0, NULL);
        int32_t ya = dt_output(c, U8, 2, TFB_DIMS(batch, depth), sa, 128);
        int32_t ys = dt_output(c, I16, 2, TFB_DIMS(batch, depth), ss, 0);
        int32_t yc = dt_output(c, U8, 2, TFB_DIMS(batch, total), sa, 128);
        int32_t yf = dt_output(c, I16, 2, TFB_DIMS(batch, 4 * depth), 1.0f / 4096, 0);
        if (x < 0 || pa < 0 || w < 0 || b < 0 || ps < 0 || ya < 0 || ys < 0 || yc < 0 || yf < 0)
                return -ENOMEM;
        dt_desc(c, "batch=%d in=%d depth=%d sw=%g zw=%d%s", batch, in, depth, sw, zw, c->edges ? " edges" : "");
        tfb_option_t o[] = { TFB_OPT_I8(0, RT_ACT_TANH), TFB_OPT_F32(1, 0), TFB_OPT_F32(2, 0), TFB_OPT_I8(3, 1) };
        return op_end(c, RT_BUILTIN_LSTM, 2, TFB_IDS(x, pa, w, b, ps), 5, TFB_IDS(ya, ys, yc, yf), 4, RT_OPTIONS_LSTM,
                      o, 4);
}

static int gen_lstm_basic(dt_case_t *c, dt_rng_t *r) {
        if (dt_chance(r, 0.5))
                return gen_lstm_basic_quant(c, r);
        c->type_name = "float32";
        int32_t batch = (int32_t) dt_int(r, 1, 3), in = (int32_t) dt_int(r, 1, 6), depth = (int32_t) dt_int(r, 1, 6);
        int32_t total = in + depth;
        int32_t x = dt_input(c, r, F, 2, TFB_DIMS(batch, in), 0, 0, &seq_fill);
        int32_t pa = dt_input(c, r, F, 2, TFB_DIMS(batch, depth), 0, 0, &seq_fill);
        int32_t w = fconst(c, r, 2, TFB_DIMS(4 * depth, total), -1, 1);
        int32_t b = fconst(c, r, 1, TFB_DIMS(4 * depth), -1, 1);
        int32_t ps = dt_input(c, r, F, 2, TFB_DIMS(batch, depth), 0, 0, &seq_fill);
        int32_t ya = dt_output(c, F, 2, TFB_DIMS(batch, depth), 0, 0);
        int32_t ys = dt_output(c, F, 2, TFB_DIMS(batch, depth), 0, 0);
        int32_t yc = dt_output(c, F, 2, TFB_DIMS(batch, total), 0, 0);
        int32_t yf = dt_output(c, F, 2, TFB_DIMS(batch, 4 * depth), 0, 0);
        if (x < 0 || pa < 0 || w < 0 || b < 0 || ps < 0 || ya < 0 || ys < 0 || yc < 0 || yf < 0)
                return -ENOMEM;
        c->accum = total + 1;
        dt_desc(c, "batch=%d in=%d depth=%d%s", batch, in, depth, c->edges ? " edges" : "");
        tfb_option_t o[] = { TFB_OPT_I8(0, RT_ACT_TANH), TFB_OPT_F32(1, 0), TFB_OPT_F32(2, 0), TFB_OPT_I8(3, 1) };
        return op_end(c, RT_BUILTIN_LSTM, 2, TFB_IDS(x, pa, w, b, ps), 5, TFB_IDS(ya, ys, yc, yf), 4, RT_OPTIONS_LSTM,
                      o, 4);
}

/* ---- int8 LSTM (TFLite's 8x8->16 integer kernel) ---- */

static int32_t qconst(dt_case_t *c, dt_rng_t *r, rt_type_t t, int32_t rank, const int32_t *shape, float scale,
                      int64_t lo, int64_t hi) {
        dt_fill_t f = { .ilo = lo, .ihi = hi };
        int64_t n = dt_count(rank, shape);
        void *d = calloc(1, (size_t) n * dt_type_size(t) + 1);
        if (!d)
                return -ENOMEM;
        if (t == I32) {
                dt_fill_data(r, t, d, n, &f, false, 0);
        } else {
                for (int64_t i = 0; i < n; i++) {
                        int64_t v = dt_int(r, lo, hi);
                        if (t == I8)
                                ((int8_t *) d)[i] = (int8_t) v;
                        else
                                ((int16_t *) d)[i] = (int16_t) v;
                }
        }
        int32_t id = dt_const_data(c, t, rank, shape, d, scale, 0);
        free(d);
        return id;
}

/* kind 0: LSTM, 1: UNIDIRECTIONAL_SEQUENCE_LSTM. */
static int gen_lstm_int8_like(dt_case_t *c, dt_rng_t *r, int kind) {
        c->type_name = "int8 (8x8->16)";
        int32_t batch = (int32_t) dt_int(r, 1, 3), in = (int32_t) dt_int(r, 1, 6), cell = (int32_t) dt_int(r, 1, 6);
        bool cifg = dt_chance(r, 0.3), peephole = dt_chance(r, 0.3), proj = dt_chance(r, 0.4);
        bool proj_bias = proj && dt_chance(r, 0.5), ln = dt_chance(r, 0.4);
        int32_t out = proj ? (int32_t) dt_int(r, 1, 6) : cell;
        /* TFLite's int8 peephole walks n_output elements of the cell state
         * and the peephole weights: past them (undefined) when out > cell;
         * acceld refuses that shape. */
        if (peephole && out > cell)
                out = cell;
        int32_t steps = kind == 0 ? 1 : (int32_t) dt_int(r, 1, 4);
        bool time_major = kind == 1 && dt_chance(r, 0.5);
        float cell_clip = dt_chance(r, 0.3) ? (float) (0.5 + 4 * dt_unit(r)) : 0;
        float proj_clip = proj && dt_chance(r, 0.3) ? (float) (0.2 + 2 * dt_unit(r)) : 0;
        float si = dt_scale(r, 5e-3, 5e-2), so = dt_scale(r, 2e-3, 2e-2);
        int32_t zi = dt_zero_point(r, I8), zo = dt_zero_point(r, I8);
        /* TFLite 2.9 runs a cell state scale that is not a power of two
         * (and, for LSTM, one above 2^-9) with its parameters left at 0
         * (runtime/kernels/sequence/lstm.c): 15 % of the cases draw one.
         * UNIDIRECTIONAL_SEQUENCE_LSTM above 2^-9 is left out: TFLite's
         * ApplyTanh writes nothing there (its result is undefined). */
        int32_t cell_log2 = (int32_t) dt_int(r, -15, kind == 0 ? -7 : -9);
        float cs = ldexpf(1.0f, cell_log2);
        if (dt_chance(r, 0.15))
                cs *= (float) (1.1 + 0.7 * dt_unit(r));
        float sh = dt_chance(r, 0.7) && !proj ? so : dt_scale(r, 3e-3, 2e-2);
        int32_t zh = sh == so ? zo : dt_zero_point(r, I8);
        int32_t xs[3], rank = kind == 0 ? 2 : 3;
        if (kind == 0)
                xs[0] = batch, xs[1] = in;
        else if (time_major)
                xs[0] = steps, xs[1] = batch, xs[2] = in;
        else
                xs[0] = batch, xs[1] = steps, xs[2] = in;
        int32_t x = dt_input(c, r, I8, rank, xs, si, zi, NULL);
        int32_t ins[24];
        for (int i = 0; i < 24; i++)
                ins[i] = -1;
        ins[0] = x;
        for (int g = 0; g < 4; g++) {
                if (cifg && g == 0)
                        continue;
                ins[1 + g] = qconst(c, r, I8, 2, TFB_DIMS(cell, in), dt_scale(r, 2e-3, 3e-2), -127, 127);
                ins[5 + g] = qconst(c, r, I8, 2, TFB_DIMS(cell, out), dt_scale(r, 2e-3, 3e-2), -127, 127);
                ins[12 + g] = qconst(c, r, I32, 1, TFB_DIMS(cell), si * 1e-2f, -20000, 20000);
                if (ln)
                        ins[20 + g] = qconst(c, r, I16, 1, TFB_DIMS(cell), dt_scale(r, 1e-4, 1e-3), 200, 32767);
        }
        for (int g = 0; peephole && g < 3; g++)
                if (!(cifg && g == 0))
                        ins[9 + g] = qconst(c, r, I16, 1, TFB_DIMS(cell), dt_scale(r, 1e-5, 1e-4), -32767, 32767);
        if (proj)
                ins[16] = qconst(c, r, I8, 2, TFB_DIMS(out, cell), dt_scale(r, 2e-3, 3e-2), -127, 127);
        if (proj_bias)
                ins[17] = qconst(c, r, I32, 1, TFB_DIMS(out), sh * 1e-2f, -20000, 20000);
        ins[18] = var_tensor(c, I8, 2, TFB_DIMS(batch, out), so, zo);
        ins[19] = var_tensor(c, I16, 2, TFB_DIMS(batch, cell), cs, 0);
        int32_t inter[5];
        for (int i = 0; i < 4; i++)
                inter[i] = dt_tensor(c, I16, 0, NULL, ldexpf(1.0f, (int) dt_int(r, -13, -10)), 0);
        inter[4] = dt_tensor(c, I8, 0, NULL, sh, zh);
        int32_t os[3];
        memcpy(os, xs, sizeof(os));
        os[rank - 1] = out;
        int32_t y = dt_output(c, I8, rank, os, so, zo);
        for (int i = 0; i < 24; i++)
                if (ins[i] < -1)
                        return -ENOMEM;
        for (int i = 0; i < 5; i++)
                if (inter[i] < 0)
                        return -ENOMEM;
        if (x < 0 || y < 0)
                return -ENOMEM;
        dt_desc(c, "batch=%d in=%d cell=%d out=%d steps=%d cifg=%d peephole=%d proj=%d proj_bias=%d ln=%d "
                   "time_major=%d cell_clip=%g proj_clip=%g si=%g zi=%d so=%g zo=%d cell=%g hidden=%g,%d%s",
                batch, in, cell, out, steps, cifg, peephole, proj, proj_bias, ln, time_major, cell_clip, proj_clip,
                si, zi, so, zo, (double) cs, sh, zh, c->edges ? " edges" : "");
        int32_t code = kind == 0 ? RT_BUILTIN_LSTM : RT_BUILTIN_UNIDIRECTIONAL_SEQUENCE_LSTM;
        int32_t oc = tfb_opcode_builtin(c->b, code, kind == 0 ? 4 : 2);
        if (oc < 0)
                return -ENOMEM;
        tfb_option_t o_full[] = { TFB_OPT_I8(0, RT_ACT_TANH), TFB_OPT_F32(1, cell_clip), TFB_OPT_F32(2, proj_clip),
                                  TFB_OPT_I8(3, 0) };
        tfb_option_t o_uni[] = { TFB_OPT_I8(0, RT_ACT_TANH), TFB_OPT_F32(1, cell_clip),
                                 TFB_OPT_F32(2, proj_clip), TFB_OPT_BOOL(3, time_major) };
        return tfb_op_add(c->b, &(tfb_op_t) {
                .opcode = oc,
                .inputs = ins,
                .n_inputs = ln ? 24 : 20,
                .outputs = TFB_IDS(y),
                .n_outputs = 1,
                .intermediates = inter,
                .n_intermediates = 5,
                .options_type = kind == 0 ? RT_OPTIONS_LSTM : RT_OPTIONS_UNIDIRECTIONAL_SEQUENCE_LSTM,
                .options = kind == 0 ? o_full : o_uni,
                .n_options = 4,
        }) < 0 ? -ENOMEM : 0;
}

static int gen_lstm_int8(dt_case_t *c, dt_rng_t *r) {
        return gen_lstm_int8_like(c, r, 0);
}

static int gen_uni_lstm_int8(dt_case_t *c, dt_rng_t *r) {
        return gen_lstm_int8_like(c, r, 1);
}

/* ---- hybrid FULLY_CONNECTED (float activations, int8 weights) ---- */

static int gen_fc_hybrid(dt_case_t *c, dt_rng_t *r) {
        c->type_name = "hybrid (int8 weights)";
        int32_t k = (int32_t) dt_int(r, 1, 24), units = (int32_t) dt_int(r, 1, 12);
        int32_t shape[4], rank = (int32_t) dt_int(r, 1, 3);
        for (int32_t i = 0; i < rank - 1; i++)
                shape[i] = (int32_t) dt_int(r, 1, 4);
        shape[rank - 1] = k;
        bool keep = rank > 2 && dt_chance(r, 0.5), asym = dt_chance(r, 0.5), with_bias = dt_chance(r, 0.8);
        /* Per-tensor weight scales only: TFLite 2.9 has no per-channel
         * FULLY_CONNECTED and reads such weights' legacy scale, 0, so its
         * answer there is just the activated bias (docs/conformance.md,
         * "Where TensorFlow Lite 2.9 is not the oracle"). */
        int32_t batch = (int32_t) (dt_count(rank, shape) / k);
        int32_t act = dt_act(r);
        int32_t x = dt_input(c, r, F, rank, shape, 0, 0, &seq_fill);
        int32_t w = weights(c, r, I8, 2, TFB_DIMS(units, k));
        int32_t b = with_bias ? fconst(c, r, 1, TFB_DIMS(units), -1, 1) : -1;
        int32_t os[4], orank;
        if (keep) {
                memcpy(os, shape, sizeof(os));
                os[rank - 1] = units;
                orank = rank;
        } else {
                os[0] = batch, os[1] = units;
                orank = 2;
        }
        int32_t y = dt_output(c, F, orank, os, 0, 0);
        if (x < 0 || w < 0 || y < 0 || (with_bias && b < 0))
                return -ENOMEM;
        c->accum = k + 1;
        dt_desc(c, "in=%dD k=%d units=%d keep_num_dims=%d asym=%d act=%s bias=%d%s", rank, k, units, keep, asym,
                dt_act_name(act), with_bias, c->edges ? " edges" : "");
        tfb_option_t o[] = { TFB_OPT_I8(0, act), TFB_OPT_BOOL(2, keep), TFB_OPT_BOOL(3, asym) };
        return op_end(c, RT_BUILTIN_FULLY_CONNECTED, 9, TFB_IDS(x, w, b), 3, TFB_IDS(y), 1,
                      RT_OPTIONS_FULLY_CONNECTED, o, 3);
}

/* ---- int16x8 CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED ---- */

/* int16 activations (zero point 0), int8 weights (zero point 0, per channel
 * for the convolutions), int64 bias; kind 0 CONV_2D, 1 DEPTHWISE_CONV_2D,
 * 2 FULLY_CONNECTED. */
static int gen_16x8(dt_case_t *c, dt_rng_t *r, int kind) {
        c->type_name = "int16x8";
        int32_t n = (int32_t) dt_int(r, 1, 2), h = (int32_t) dt_int(r, 1, 7), w = (int32_t) dt_int(r, 1, 7);
        int32_t cin = (int32_t) dt_int(r, 1, 6), mult = kind == 1 ? (int32_t) DT_PICK(r, 1, 1, 2) : 1;
        int32_t cout = kind == 1 ? cin * mult : (int32_t) dt_int(r, 1, 6);
        int32_t kh = (int32_t) dt_int(r, 1, 3), kw = (int32_t) dt_int(r, 1, 3);
        int32_t sh = (int32_t) dt_int(r, 1, 2), sw = (int32_t) dt_int(r, 1, 2);
        int32_t dh = dt_chance(r, 0.2) ? 2 : 1, dw = dt_chance(r, 0.2) ? 2 : 1;
        bool same = dt_chance(r, 0.5);
        int32_t act = (int32_t) DT_PICK(r, RT_ACT_NONE, RT_ACT_NONE, RT_ACT_RELU, RT_ACT_RELU6, RT_ACT_RELU_N1_TO_1);
        int32_t k = (int32_t) dt_int(r, 1, 16), units = (int32_t) dt_int(r, 1, 8);
        bool per_channel = kind != 2 && dt_chance(r, 0.8);
        bool with_bias = dt_chance(r, 0.8);
        int32_t oh = out_size(h, kh, sh, dh, same), ow = out_size(w, kw, sw, dw, same);
        if (kind != 2 && (oh < 1 || ow < 1))
                return -ENOTSUP;
        float si = dt_scale(r, 1e-4, 1e-2);
        int32_t nch = kind == 2 ? units : cout;
        int32_t wshape[4], wrank;
        if (kind == 0)
                wshape[0] = cout, wshape[1] = kh, wshape[2] = kw, wshape[3] = cin, wrank = 4;
        else if (kind == 1)
                wshape[0] = 1, wshape[1] = kh, wshape[2] = kw, wshape[3] = cout, wrank = 4;
        else
                wshape[0] = units, wshape[1] = k, wrank = 2;
        int32_t terms = kind == 2 ? k : kh * kw * (kind == 1 ? 1 : cin);
        float scales[64], bscales[64];
        int64_t zps[64] = { 0 };
        int32_t nsc = per_channel ? nch : 1;
        double wmax = 0;
        for (int32_t i = 0; i < nsc; i++) {
                scales[i] = dt_scale(r, 1e-4, 0.05);
                bscales[i] = si * scales[i];
                wmax = fmax(wmax, scales[i] * 127);
        }
        int64_t nw = dt_count(wrank, wshape);
        int8_t *wd = malloc((size_t) nw + 1);
        if (!wd)
                return -ENOMEM;
        dt_fill_data(r, I8, wd, nw, NULL, false, 0);
        for (int64_t i = 0; i < nw; i++)
                if (wd[i] == -128)
                        wd[i] = -127;
        int32_t wt = per_channel ? dt_const_channels(c, I8, wrank, wshape, wd, scales, zps, nsc, kind == 1 ? 3 : 0)
                                 : dt_const_data(c, I8, wrank, wshape, wd, scales[0], 0);
        free(wd);
        int32_t b = -1;
        /* Every bias kind: int64 (the reference kernels), int32 and, for
         * FULLY_CONNECTED, none (TFLite 2.9's optimized ruy path). TFLite
         * refuses the convolutions without a bias and DEPTHWISE_CONV_2D
         * with an int32 one (counted as refused). */
        bool b32 = dt_chance(r, 0.2);
        if (with_bias) {
                int64_t bd[64];
                int32_t bd32[64];
                for (int32_t i = 0; i < nch; i++) {
                        bd[i] = dt_chance(r, 0.05) ? DT_PICK(r, INT32_MAX, INT32_MIN, (int64_t) 1 << 40, -((int64_t) 1 << 40))
                                                   : dt_int(r, -2000000, 2000000);
                        bd32[i] = (int32_t) (bd[i] > INT32_MAX ? INT32_MAX : bd[i] < INT32_MIN ? INT32_MIN : bd[i]);
                }
                rt_type_t bt = b32 ? I32 : I64;
                const void *bp = b32 ? (const void *) bd32 : (const void *) bd;
                b = per_channel ? dt_const_channels(c, bt, 1, TFB_DIMS(nch), bp, bscales, zps, nsc, 0)
                                : dt_const_data(c, bt, 1, TFB_DIMS(nch), bp, bscales[0], 0);
        }
        double range = si * 32768 * wmax * sqrt((double) terms);
        float so = (float) fmax(range / 32768 * exp(-1.5 + 3 * dt_unit(r)), 1e-7);
        int32_t x, y;
        if (kind == 2) {
                int32_t rank = (int32_t) dt_int(r, 2, 3), xs[3];
                for (int32_t i = 0; i < rank - 1; i++)
                        xs[i] = (int32_t) dt_int(r, 1, 3);
                xs[rank - 1] = k;
                x = dt_input(c, r, I16, rank, xs, si, 0, NULL);
                int32_t batch = (int32_t) (dt_count(rank, xs) / k);
                y = dt_output(c, I16, 2, TFB_DIMS(batch, units), so, 0);
                dt_desc(c, "in=%dD k=%d units=%d", rank, k, units);
        } else {
                x = dt_input(c, r, I16, 4, TFB_DIMS(n, h, w, cin), si, 0, NULL);
                y = dt_output(c, I16, 4, TFB_DIMS(n, oh, ow, cout), so, 0);
                dt_desc(c, "in=%dx%dx%dx%d k=%dx%d out_c=%d stride=%d,%d dil=%d,%d %s", n, h, w, cin, kh, kw, cout,
                        sh, sw, dh, dw, same ? "SAME" : "VALID");
        }
        if (x < 0 || wt < 0 || y < 0 || (with_bias && b < 0))
                return -ENOMEM;
        dt_desc(c, "act=%s bias=%s per_channel=%d si=%g so=%g%s", dt_act_name(act),
                with_bias ? (b32 ? "int32" : "int64") : "none", per_channel, si, so, c->edges ? " edges" : "");
        if (kind == 2) {
                tfb_option_t o[] = { TFB_OPT_I8(0, act) };
                return op_end(c, RT_BUILTIN_FULLY_CONNECTED, 7, TFB_IDS(x, wt, b), 3, TFB_IDS(y), 1,
                              RT_OPTIONS_FULLY_CONNECTED, o, 1);
        }
        if (kind == 1) {
                tfb_option_t o[] = { TFB_OPT_I8(0, same ? RT_PADDING_SAME : RT_PADDING_VALID), TFB_OPT_I32(1, sw),
                                     TFB_OPT_I32(2, sh), TFB_OPT_I32(3, mult), TFB_OPT_I8(4, act),
                                     TFB_OPT_I32(5, dw), TFB_OPT_I32(6, dh) };
                return op_end(c, RT_BUILTIN_DEPTHWISE_CONV_2D, 5, TFB_IDS(x, wt, b), 3, TFB_IDS(y), 1,
                              RT_OPTIONS_DEPTHWISE_CONV_2D, o, 7);
        }
        tfb_option_t o[] = { TFB_OPT_I8(0, same ? RT_PADDING_SAME : RT_PADDING_VALID), TFB_OPT_I32(1, sw),
                             TFB_OPT_I32(2, sh), TFB_OPT_I8(3, act), TFB_OPT_I32(4, dw), TFB_OPT_I32(5, dh) };
        return op_end(c, RT_BUILTIN_CONV_2D, 4, TFB_IDS(x, wt, b), 3, TFB_IDS(y), 1, RT_OPTIONS_CONV_2D, o, 6);
}

static int gen_conv_16x8(dt_case_t *c, dt_rng_t *r) {
        return gen_16x8(c, r, 0);
}

static int gen_dw_16x8(dt_case_t *c, dt_rng_t *r) {
        return gen_16x8(c, r, 1);
}

static int gen_fc_16x8(dt_case_t *c, dt_rng_t *r) {
        return gen_16x8(c, r, 2);
}

const dt_gen_t dt_gens_seq[] = {
        { "CONV_3D", gen_conv3d, 3 },
        { "CONV_3D_TRANSPOSE", gen_conv3d_transpose, 3 },
        { "EMBEDDING_LOOKUP", gen_embedding_lookup, 2 },
        { "RFFT2D", gen_rfft2d, 2 },
        { "REAL", gen_real, 1 },
        { "IMAG", gen_imag, 1 },
        { "COMPLEX_ABS", gen_complex_abs, 1 },
        { "RNN", gen_rnn, 2 },
        { "UNIDIRECTIONAL_SEQUENCE_RNN", gen_uni_rnn, 2 },
        { "BIDIRECTIONAL_SEQUENCE_RNN", gen_bi_rnn, 2 },
        { "SVDF", gen_svdf, 3 },
        { "LSTM", gen_lstm, 3 },
        { "UNIDIRECTIONAL_SEQUENCE_LSTM", gen_uni_lstm, 3 },
        { "BIDIRECTIONAL_SEQUENCE_LSTM", gen_bi_lstm, 3 },
        { "LSTM_BASIC", gen_lstm_basic, 1 },
        { "LSTM_INT8", gen_lstm_int8, 2 },
        { "UNIDIRECTIONAL_SEQUENCE_LSTM_INT8", gen_uni_lstm_int8, 2 },
        { "FULLY_CONNECTED_HYBRID", gen_fc_hybrid, 2 },
        { "CONV_2D_16X8", gen_conv_16x8, 2 },
        { "DEPTHWISE_CONV_2D_16X8", gen_dw_16x8, 2 },
        { "FULLY_CONNECTED_16X8", gen_fc_16x8, 2 },
};
const size_t dt_gens_seq_n = sizeof(dt_gens_seq) / sizeof(dt_gens_seq[0]);
