/* SPDX-License-Identifier: Apache-2.0 */
/* Case generators: CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED, pooling. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "dt.h"

static int32_t out_size(int32_t in, int32_t k, int32_t stride, int32_t dil, bool same) {
        int32_t eff = (k - 1) * dil + 1;
        if (!same && in < eff)
                return 0;
        return same ? (in + stride - 1) / stride : (in - eff) / stride + 1;
}

static float out_scale(dt_rng_t *r, rt_type_t t, double range) {
        double s = range / 127.5 * exp(-1.2 + 2.4 * dt_unit(r));
        if (dt_chance(r, 0.05))
                s = dt_scale(r, 1e-4, 10);
        (void) t;
        return (float) (s < 1e-6 ? 1e-6 : s);
}

/* Weights and bias for a quantized or float filter of `count` elements with
 * `channels` output channels along `axis`. Returns the weight tensor and
 * writes the bias tensor (or -1). */
typedef struct wq {
        rt_type_t t;       /* activation type */
        float in_scale;
        int32_t in_zp;
        bool per_channel;
        bool bias32;       /* int16 activations: an int32 bias, not int64 */
} wq_t;

static int32_t filter_add(dt_case_t *c, dt_rng_t *r, const wq_t *q, int32_t rank, const int32_t *shape,
                          int32_t channels, int32_t axis, bool with_bias, int32_t *ret_bias, double *ret_wmax) {
        int64_t n = dt_count(rank, shape);
        int32_t w;
        *ret_bias = -1;
        if (q->t == RT_TYPE_FLOAT32) {
                float *d = malloc((size_t) n * 4 + 4);
                if (!d)
                        return -ENOMEM;
                dt_fill_data(r, RT_TYPE_FLOAT32, d, n, NULL, false, 0);
                w = dt_const_data(c, RT_TYPE_FLOAT32, rank, shape, d, 0, 0);
                free(d);
                *ret_wmax = 1;
                if (with_bias) {
                        float *bd = malloc((size_t) channels * 4 + 4);
                        if (!bd)
                                return -ENOMEM;
                        dt_fill_data(r, RT_TYPE_FLOAT32, bd, channels, NULL, false, 0);
                        *ret_bias = dt_const_data(c, RT_TYPE_FLOAT32, 1, TFB_DIMS(channels), bd, 0, 0);
                        free(bd);
                }
                return w;
        }
        int nch = q->per_channel ? channels : 1;
        float scales[512];
        int64_t zps[512], bzps[512] = { 0 };
        float bscales[512];
        rt_type_t wt = q->t == RT_TYPE_UINT8 ? RT_TYPE_UINT8 : RT_TYPE_INT8;
        for (int i = 0; i < nch; i++) {
                scales[i] = dt_scale(r, 1e-4, 0.1);
                zps[i] = wt == RT_TYPE_UINT8 ? dt_int(r, 0, 255) : 0;
        }
        void *d = malloc((size_t) n + 1);
        if (!d)
                return -ENOMEM;
        dt_fill_data(r, wt, d, n, NULL, false, 0);
        if (wt == RT_TYPE_INT8)
                for (int64_t i = 0; i < n; i++)
                        if (((int8_t *) d)[i] == -128)
                                ((int8_t *) d)[i] = -127;
        w = q->per_channel ? dt_const_channels(c, wt, rank, shape, d, scales, zps, nch, axis)
                           : dt_const_data(c, wt, rank, shape, d, scales[0], (int32_t) zps[0]);
        free(d);
        double wmax = 0;
        for (int i = 0; i < nch; i++)
                wmax = fmax(wmax, scales[i] * 128);
        *ret_wmax = wmax;
        if (with_bias) {
                /* 16x8 (int16 activations): an int64 bias (TFLite 2.9's
                 * reference kernels) or an int32 one (its optimized path;
                 * DEPTHWISE_CONV_2D refuses it). */
                const rt_type_t bt = q->t == RT_TYPE_INT16 && !q->bias32 ? RT_TYPE_INT64 : RT_TYPE_INT32;
                int64_t *bd = malloc((size_t) channels * 8 + 8);
                if (!bd)
                        return -ENOMEM;
                for (int i = 0; i < channels; i++) {
                        int64_t v = dt_int(r, -20000, 20000);
                        if (bt == RT_TYPE_INT64)
                                bd[i] = v;
                        else
                                ((int32_t *) bd)[i] = (int32_t) v;
                }
                for (int i = 0; i < nch; i++)
                        bscales[i] = q->in_scale * scales[i];
                *ret_bias = q->per_channel ? dt_const_channels(c, bt, 1, TFB_DIMS(channels), bd, bscales, bzps, nch, 0)
                                           : dt_const_data(c, bt, 1, TFB_DIMS(channels), bd, bscales[0], 0);
                free(bd);
        }
        return w;
}

static rt_type_t conv_type(dt_rng_t *r) {
        return (rt_type_t) DT_PICK(r, RT_TYPE_FLOAT32, RT_TYPE_FLOAT32, RT_TYPE_INT8, RT_TYPE_INT8, RT_TYPE_UINT8);
}

static int gen_conv_like(dt_case_t *c, dt_rng_t *r, bool depthwise) {
        rt_type_t t = conv_type(r);
        /* 16x8: int16 activations, int8 per-channel weights, int64 or int32
         * bias. */
        if (t == RT_TYPE_UINT8 && dt_chance(r, 0.4))
                t = RT_TYPE_INT16;
        dt_chain_draw(c, r, t);
        int32_t n = (int32_t) dt_int(r, 1, 2), h = (int32_t) dt_int(r, 1, 9), w = (int32_t) dt_int(r, 1, 9);
        int32_t cin = (int32_t) dt_int(r, 1, 8), mult = depthwise ? (int32_t) DT_PICK(r, 1, 1, 2, 3) : 1;
        int32_t cout = depthwise ? cin * mult : (int32_t) dt_int(r, 1, 8);
        int32_t kh = (int32_t) dt_int(r, 1, 4), kw = (int32_t) dt_int(r, 1, 4);
        int32_t sh = (int32_t) dt_int(r, 1, 3), sw = (int32_t) dt_int(r, 1, 3);
        int32_t dh = dt_chance(r, 0.2) ? 2 : 1, dw = dt_chance(r, 0.2) ? 2 : 1;
        bool same = dt_chance(r, 0.5);
        int32_t oh = out_size(h, kh, sh, dh, same), ow = out_size(w, kw, sw, dw, same);
        if (oh < 1 || ow < 1)
                return -ENOTSUP;
        int32_t act = dt_act(r);
        wq_t q = { .t = t, .per_channel = t == RT_TYPE_INT8 || t == RT_TYPE_INT16,
                   .bias32 = t == RT_TYPE_INT16 && dt_chance(r, 0.3) };
        int32_t izp = 0;
        if (t != RT_TYPE_FLOAT32) {
                q.in_scale = dt_scale(r, 1e-3, 1);
                izp = dt_zero_point(r, t);
                q.in_zp = izp;
        }
        int32_t wshape[4] = { depthwise ? 1 : cout, kh, kw, depthwise ? cout : cin };
        int32_t bias;
        double wmax;
        bool with_bias = t != RT_TYPE_FLOAT32 || dt_chance(r, 0.8);
        /* NaN and infinities through a dot product: TFLite's clamps order
         * min/max differently per kernel; keep to large finite values. */
        dt_fill_t f = { .lo = -1, .hi = 1, .finite_max = 1e6 };
        int32_t in = dt_qin(c, r, t, 4, TFB_DIMS(n, h, w, cin), q.in_scale, izp, &f);
        int32_t wt = filter_add(c, r, &q, 4, wshape, cout, depthwise ? 3 : 0, with_bias, &bias, &wmax);
        int32_t terms = kh * kw * (depthwise ? 1 : cin);
        float os = 0;
        int32_t ozp = 0;
        if (t != RT_TYPE_FLOAT32) {
                os = out_scale(r, t, q.in_scale * (t == RT_TYPE_INT16 ? 32768 : 128) * wmax * sqrt((double) terms) *
                                             (t == RT_TYPE_INT16 ? 1.0 / 256 : 1.0));
                ozp = dt_zero_point(r, t);
        }
        int32_t out = dt_qout(c, t, 4, TFB_DIMS(n, oh, ow, cout), os, ozp);
        if (in < 0 || wt < 0 || out < 0)
                return -ENOMEM;
        c->accum = terms + 1;
        dt_desc(c, "type=%s in=%dx%dx%dx%d k=%dx%d out_c=%d stride=%d,%d dil=%d,%d %s act=%s bias=%d%s si=%g zi=%d so=%g zo=%d%s",
                dt_type_name(t), n, h, w, cin, kh, kw, cout, sh, sw, dh, dw, same ? "SAME" : "VALID",
                dt_act_name(act), bias >= 0, q.bias32 ? " (int32)" : "", q.in_scale, izp, os, ozp,
                c->edges ? " edges" : "");
        int version = t == RT_TYPE_INT8 ? 3 : t == RT_TYPE_INT16 ? 4 : 1;
        if (depthwise) {
                tfb_option_t o[] = { TFB_OPT_I8(0, same ? RT_PADDING_SAME : RT_PADDING_VALID), TFB_OPT_I32(1, sw),
                                     TFB_OPT_I32(2, sh), TFB_OPT_I32(3, mult), TFB_OPT_I8(4, act),
                                     TFB_OPT_I32(5, dw), TFB_OPT_I32(6, dh) };
                return dt_op(c, RT_BUILTIN_DEPTHWISE_CONV_2D, version, TFB_IDS(in, wt, bias), 3, TFB_IDS(out), 1,
                             RT_OPTIONS_DEPTHWISE_CONV_2D, o, 7) < 0 ? -ENOMEM : 0;
        }
        tfb_option_t o[] = { TFB_OPT_I8(0, same ? RT_PADDING_SAME : RT_PADDING_VALID), TFB_OPT_I32(1, sw),
                             TFB_OPT_I32(2, sh), TFB_OPT_I8(3, act), TFB_OPT_I32(4, dw), TFB_OPT_I32(5, dh) };
        return dt_op(c, RT_BUILTIN_CONV_2D, version, TFB_IDS(in, wt, bias), 3, TFB_IDS(out), 1, RT_OPTIONS_CONV_2D, o,
                     6) < 0 ? -ENOMEM : 0;
}

static int gen_conv(dt_case_t *c, dt_rng_t *r) {
        return gen_conv_like(c, r, false);
}

static int gen_depthwise(dt_case_t *c, dt_rng_t *r) {
        return gen_conv_like(c, r, true);
}

static int gen_fc(dt_case_t *c, dt_rng_t *r) {
        rt_type_t t = conv_type(r);
        /* 16x8: int16 activations, int8 weights, int64, int32 or no bias. */
        if (t == RT_TYPE_UINT8 && dt_chance(r, 0.4))
                t = RT_TYPE_INT16;
        dt_chain_draw(c, r, t);
        int32_t k = (int32_t) dt_int(r, 1, 24), units = (int32_t) dt_int(r, 1, 12);
        int32_t shape[4], rank = (int32_t) dt_int(r, 1, 3);
        for (int32_t i = 0; i < rank - 1; i++)
                shape[i] = (int32_t) dt_int(r, 1, 4);
        shape[rank - 1] = k;
        bool keep = rank > 2 && dt_chance(r, 0.5);
        int32_t batch = (int32_t) (dt_count(rank, shape) / k);
        int32_t act = dt_act(r);
        wq_t q = { .t = t, .bias32 = t == RT_TYPE_INT16 && dt_chance(r, 0.3) };
        int32_t izp = 0;
        if (t != RT_TYPE_FLOAT32) {
                q.in_scale = dt_scale(r, 1e-3, 1);
                izp = dt_zero_point(r, t);
        }
        int32_t bias;
        double wmax;
        bool with_bias = dt_chance(r, 0.8);
        dt_fill_t f = { .lo = -1, .hi = 1, .finite_max = 1e6 };
        int32_t in = dt_qin(c, r, t, rank, shape, q.in_scale, izp, &f);
        int32_t wt = filter_add(c, r, &q, 2, TFB_DIMS(units, k), units, 0, with_bias, &bias, &wmax);
        float os = 0;
        int32_t ozp = 0;
        if (t != RT_TYPE_FLOAT32) {
                os = out_scale(r, t, q.in_scale * (t == RT_TYPE_INT16 ? 32768.0 / 256 : 128) * wmax * sqrt((double) k));
                ozp = dt_zero_point(r, t);
        }
        int32_t oshape[4], orank;
        if (keep) {
                for (int32_t i = 0; i < rank - 1; i++)
                        oshape[i] = shape[i];
                oshape[rank - 1] = units;
                orank = rank;
        } else {
                oshape[0] = batch, oshape[1] = units;
                orank = 2;
        }
        int32_t out = dt_qout(c, t, orank, oshape, os, ozp);
        if (in < 0 || wt < 0 || out < 0)
                return -ENOMEM;
        c->accum = k + 1;
        dt_desc(c, "type=%s in=%dD k=%d units=%d keep_num_dims=%d act=%s bias=%d%s si=%g zi=%d so=%g zo=%d%s",
                dt_type_name(t), rank, k, units, keep, dt_act_name(act), bias >= 0,
                bias >= 0 && q.bias32 ? " (int32)" : "", q.in_scale, izp, os, ozp, c->edges ? " edges" : "");
        tfb_option_t o[] = { TFB_OPT_I8(0, act), TFB_OPT_BOOL(2, keep) };
        return dt_op(c, RT_BUILTIN_FULLY_CONNECTED, t == RT_TYPE_INT8 ? 4 : t == RT_TYPE_INT16 ? 7 : 1,
                     TFB_IDS(in, wt, bias), 3, TFB_IDS(out),
                     1, RT_OPTIONS_FULLY_CONNECTED, o, 2) < 0 ? -ENOMEM : 0;
}

static int gen_pool(dt_case_t *c, dt_rng_t *r, int32_t code) {
        rt_type_t t = code == RT_BUILTIN_L2_POOL_2D ? RT_TYPE_FLOAT32 : conv_type(r);
        if (t == RT_TYPE_UINT8 && code != RT_BUILTIN_L2_POOL_2D && dt_chance(r, 0.4))
                t = RT_TYPE_INT16; /* zero point 0 (dt_zero_point) */
        dt_chain_draw(c, r, t);
        int32_t n = (int32_t) dt_int(r, 1, 2), h = (int32_t) dt_int(r, 1, 9), w = (int32_t) dt_int(r, 1, 9);
        int32_t ch = (int32_t) dt_int(r, 1, 6);
        int32_t fh = (int32_t) dt_int(r, 1, 4), fw = (int32_t) dt_int(r, 1, 4);
        int32_t sh = (int32_t) dt_int(r, 1, 3), sw = (int32_t) dt_int(r, 1, 3);
        bool same = dt_chance(r, 0.5);
        int32_t oh = out_size(h, fh, sh, 1, same), ow = out_size(w, fw, sw, 1, same);
        if (oh < 1 || ow < 1)
                return -ENOTSUP;
        int32_t act = dt_act(r);
        float s = 0;
        int32_t zp = 0;
        if (t != RT_TYPE_FLOAT32) {
                s = dt_scale(r, 1e-4, 10);
                zp = dt_zero_point(r, t);
        }
        int32_t in = dt_qin(c, r, t, 4, TFB_DIMS(n, h, w, ch), s, zp, NULL);
        int32_t out = dt_qout(c, t, 4, TFB_DIMS(n, oh, ow, ch), s, zp);
        if (in < 0 || out < 0)
                return -ENOMEM;
        c->accum = fh * fw;
        dt_desc(c, "type=%s in=%dx%dx%dx%d filter=%dx%d stride=%d,%d %s act=%s s=%g zp=%d%s", dt_type_name(t), n, h, w,
                ch, fh, fw, sh, sw, same ? "SAME" : "VALID", dt_act_name(act), s, zp, c->edges ? " edges" : "");
        tfb_option_t o[] = { TFB_OPT_I8(0, same ? RT_PADDING_SAME : RT_PADDING_VALID), TFB_OPT_I32(1, sw),
                             TFB_OPT_I32(2, sh), TFB_OPT_I32(3, fw), TFB_OPT_I32(4, fh), TFB_OPT_I8(5, act) };
        return dt_op(c, code, t == RT_TYPE_INT8 ? 2 : t == RT_TYPE_INT16 ? 3 : 1, TFB_IDS(in), 1, TFB_IDS(out), 1,
                     RT_OPTIONS_POOL_2D, o, 6) < 0
                       ? -ENOMEM
                       : 0;
}

static int gen_max_pool(dt_case_t *c, dt_rng_t *r) {
        return gen_pool(c, r, RT_BUILTIN_MAX_POOL_2D);
}

static int gen_avg_pool(dt_case_t *c, dt_rng_t *r) {
        return gen_pool(c, r, RT_BUILTIN_AVERAGE_POOL_2D);
}

static int gen_l2_pool(dt_case_t *c, dt_rng_t *r) {
        return gen_pool(c, r, RT_BUILTIN_L2_POOL_2D);
}

const dt_gen_t dt_gens_conv[] = {
        { "CONV_2D", gen_conv, 6 },
        { "DEPTHWISE_CONV_2D", gen_depthwise, 6 },
        { "FULLY_CONNECTED", gen_fc, 5 },
        { "MAX_POOL_2D", gen_max_pool, 3 },
        { "AVERAGE_POOL_2D", gen_avg_pool, 3 },
        { "L2_POOL_2D", gen_l2_pool, 1 },
};
const size_t dt_gens_conv_n = sizeof(dt_gens_conv) / sizeof(dt_gens_conv[0]);
