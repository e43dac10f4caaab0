/* SPDX-License-Identifier: Apache-2.0 */
/* Case generators: reductions, padding, concatenation, resizing, softmax,
 * reshape and transpose. */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "dt.h"

static int32_t shape_rand(dt_rng_t *r, int32_t lo, int32_t hi, int32_t *shape) {
        int32_t rank = (int32_t) dt_int(r, lo, hi);
        for (int32_t i = 0; i < rank; i++)
                shape[i] = dt_chance(r, 0.2) ? 1 : (int32_t) dt_int(r, 1, 6);
        return rank;
}

static rt_type_t q_type(dt_rng_t *r) {
        return (rt_type_t) DT_PICK(r, RT_TYPE_FLOAT32, RT_TYPE_FLOAT32, RT_TYPE_INT8, RT_TYPE_INT8, RT_TYPE_UINT8,
                                   RT_TYPE_INT16);
}

/* q_type, or int32 / int64, which TFLite 2.9 takes for MEAN, SUM,
 * REDUCE_MAX, PAD, PADV2 and MIRROR_PAD as well. */
static rt_type_t qi_type(dt_rng_t *r) {
        if (dt_chance(r, 0.25))
                return dt_chance(r, 0.5) ? RT_TYPE_INT32 : RT_TYPE_INT64;
        return q_type(r);
}

static void quant_draw(dt_rng_t *r, rt_type_t t, float *s, int32_t *zp) {
        *s = 0, *zp = 0;
        if (dt_is_quant_type(t)) {
                *s = dt_scale(r, 1e-4, 10);
                *zp = dt_zero_point(r, t);
        }
}

static int gen_reduce(dt_case_t *c, dt_rng_t *r, int32_t code) {
        rt_type_t t = qi_type(r);
        dt_chain_draw(c, r, t);
        int32_t shape[6], rank = shape_rand(r, 1, 4, shape);
        int32_t axes[4], n_axes = (int32_t) dt_int(r, 1, rank);
        bool used[6] = { false };
        for (int32_t i = 0; i < n_axes; i++) {
                int32_t a = (int32_t) dt_int(r, 0, rank - 1);
                used[a] = true;
                axes[i] = dt_chance(r, 0.3) ? a - rank : a;
        }
        bool keep = dt_chance(r, 0.5);
        int32_t oshape[6], orank = 0;
        int64_t terms = 1;
        for (int32_t i = 0; i < rank; i++) {
                if (used[i]) {
                        terms *= shape[i];
                        if (keep)
                                oshape[orank++] = 1;
                } else {
                        oshape[orank++] = shape[i];
                }
        }
        float si, so;
        int32_t zi, zo;
        quant_draw(r, t, &si, &zi);
        so = si, zo = zi;
        if (dt_is_quant_type(t) && dt_chance(r, 0.5)) {
                so = (float) (si * exp(-1.5 + 3 * dt_unit(r)) * (code == RT_BUILTIN_SUM ? sqrt((double) terms) : 1));
                zo = dt_zero_point(r, t);
        }
        /* Integer sums stay in range: no type min/max edges for MEAN and SUM. */
        dt_fill_t fi = { .lo = -1, .hi = 1, .ilo = -1000, .ihi = 1000 };
        bool int_sum = (t == RT_TYPE_INT32 || t == RT_TYPE_INT64) && code != RT_BUILTIN_REDUCE_MAX;
        int32_t in = dt_qin(c, r, t, rank, shape, si, zi, int_sum ? &fi : NULL);
        int32_t ax = dt_const_data(c, RT_TYPE_INT32, 1, TFB_DIMS(n_axes), axes, 0, 0);
        int32_t out = dt_qout(c, t, orank, oshape, so, zo);
        if (in < 0 || ax < 0 || out < 0)
                return -ENOMEM;
        c->accum = (int32_t) terms;
        dt_desc(c, "type=%s in=%dD axes=%d keep_dims=%d si=%g zi=%d so=%g zo=%d%s", dt_type_name(t), rank, n_axes, keep,
                si, zi, so, zo, c->edges ? " edges" : "");
        tfb_option_t o[] = { TFB_OPT_BOOL(0, keep) };
        return dt_op(c, code, t == RT_TYPE_FLOAT32 ? 1 : 2, TFB_IDS(in, ax), 2, TFB_IDS(out), 1, RT_OPTIONS_REDUCER, o,
                     1) < 0 ? -ENOMEM : 0;
}

static int gen_mean(dt_case_t *c, dt_rng_t *r) {
        return gen_reduce(c, r, RT_BUILTIN_MEAN);
}

static int gen_sum(dt_case_t *c, dt_rng_t *r) {
        return gen_reduce(c, r, RT_BUILTIN_SUM);
}

static int gen_reduce_max(dt_case_t *c, dt_rng_t *r) {
        return gen_reduce(c, r, RT_BUILTIN_REDUCE_MAX);
}

/* PAD, PADV2 (constant value) and MIRROR_PAD. */
static int gen_pad_kind(dt_case_t *c, dt_rng_t *r, int32_t code) {
        rt_type_t t = qi_type(r);
        dt_chain_draw(c, r, t);
        int32_t shape[6], rank = shape_rand(r, 1, 4, shape);
        int32_t pads[12], oshape[6];
        int32_t mode = (int32_t) dt_int(r, 0, 1); /* REFLECT, SYMMETRIC */
        for (int32_t i = 0; i < rank; i++) {
                int32_t lim = code == RT_BUILTIN_MIRROR_PAD ? (mode == 0 ? shape[i] - 1 : shape[i]) : 3;
                if (lim > 3)
                        lim = 3;
                pads[2 * i] = (int32_t) dt_int(r, 0, lim);
                pads[2 * i + 1] = (int32_t) dt_int(r, 0, lim);
                oshape[i] = shape[i] + pads[2 * i] + pads[2 * i + 1];
        }
        float s;
        int32_t zp;
        quant_draw(r, t, &s, &zp);
        int32_t in = dt_qin(c, r, t, rank, shape, s, zp, NULL);
        int32_t p = dt_const_data(c, RT_TYPE_INT32, 2, TFB_DIMS(rank, 2), pads, 0, 0);
        int32_t ids[3] = { in, p, -1 };
        int n_in = 2;
        if (code == RT_BUILTIN_PADV2) {
                uint8_t v[8];
                dt_fill_data(r, t, v, 1, NULL, false, zp);
                ids[2] = dt_const_data(c, t, 0, NULL, v, s, zp);
                n_in = 3;
        }
        int32_t out = dt_qout(c, t, rank, oshape, s, zp);
        if (in < 0 || p < 0 || out < 0 || (n_in == 3 && ids[2] < 0))
                return -ENOMEM;
        dt_desc(c, "type=%s in=%dD%s s=%g zp=%d%s", dt_type_name(t), rank,
                code == RT_BUILTIN_MIRROR_PAD ? (mode ? " SYMMETRIC" : " REFLECT") : "", s, zp, c->edges ? " edges" : "");
        tfb_option_t o[] = { TFB_OPT_I8(0, mode) };
        uint8_t ot = code == RT_BUILTIN_MIRROR_PAD ? RT_OPTIONS_MIRROR_PAD
                     : code == RT_BUILTIN_PADV2    ? RT_OPTIONS_PAD_V2
                                                   : RT_OPTIONS_PAD;
        return dt_op(c, code, t == RT_TYPE_FLOAT32 ? 1 : 2, ids, n_in, TFB_IDS(out), 1, ot, o,
                     code == RT_BUILTIN_MIRROR_PAD ? 1 : 0) < 0 ? -ENOMEM : 0;
}

static int gen_pad(dt_case_t *c, dt_rng_t *r) {
        return gen_pad_kind(c, r, RT_BUILTIN_PAD);
}

static int gen_padv2(dt_case_t *c, dt_rng_t *r) {
        return gen_pad_kind(c, r, RT_BUILTIN_PADV2);
}

static int gen_mirror_pad(dt_case_t *c, dt_rng_t *r) {
        return gen_pad_kind(c, r, RT_BUILTIN_MIRROR_PAD);
}

static int gen_concat(dt_case_t *c, dt_rng_t *r) {
        rt_type_t t = q_type(r);
        dt_chain_draw(c, r, t);
        int32_t shape[6], rank = shape_rand(r, 1, 4, shape);
        int32_t axis = (int32_t) dt_int(r, 0, rank - 1);
        int32_t n = (int32_t) dt_int(r, 1, 4), ids[4], total = 0;
        float so;
        int32_t zo;
        quant_draw(r, t, &so, &zo);
        for (int32_t i = 0; i < n; i++) {
                int32_t s2[6];
                memcpy(s2, shape, sizeof(s2));
                s2[axis] = (int32_t) dt_int(r, 1, 4);
                total += s2[axis];
                float s = so;
                int32_t zp = zo;
                if (dt_is_quant_type(t) && dt_chance(r, 0.5))
                        quant_draw(r, t, &s, &zp);
                ids[i] = dt_qin(c, r, t, rank, s2, s, zp, NULL);
                if (ids[i] < 0)
                        return -ENOMEM;
        }
        shape[axis] = total;
        int32_t act = t == RT_TYPE_FLOAT32 ? dt_act(r) : 0;
        int32_t out = dt_qout(c, t, rank, shape, so, zo);
        if (out < 0)
                return -ENOMEM;
        int32_t ax = dt_chance(r, 0.3) ? axis - rank : axis;
        dt_desc(c, "type=%s rank=%d inputs=%d axis=%d act=%s so=%g zo=%d%s", dt_type_name(t), rank, n, ax,
                dt_act_name(act), so, zo, c->edges ? " edges" : "");
        tfb_option_t o[] = { TFB_OPT_I32(0, ax), TFB_OPT_I8(1, act) };
        return dt_op(c, RT_BUILTIN_CONCATENATION, t == RT_TYPE_FLOAT32 ? 1 : 2, ids, n, TFB_IDS(out), 1,
                     RT_OPTIONS_CONCATENATION, o, 2) < 0 ? -ENOMEM : 0;
}

static int gen_resize(dt_case_t *c, dt_rng_t *r, bool bilinear) {
        rt_type_t t = q_type(r);
        dt_chain_draw(c, r, t);
        int32_t n = (int32_t) dt_int(r, 1, 2), h = (int32_t) dt_int(r, 1, 7), w = (int32_t) dt_int(r, 1, 7);
        int32_t ch = (int32_t) dt_int(r, 1, 4);
        int32_t size[2] = { (int32_t) dt_int(r, 1, 12), (int32_t) dt_int(r, 1, 12) };
        bool align = dt_chance(r, 0.3), half = !align && dt_chance(r, 0.5);
        float s;
        int32_t zp;
        quant_draw(r, t, &s, &zp);
        int32_t in = dt_qin(c, r, t, 4, TFB_DIMS(n, h, w, ch), s, zp, NULL);
        int32_t sz = dt_const_data(c, RT_TYPE_INT32, 1, TFB_DIMS(2), size, 0, 0);
        int32_t out = dt_qout(c, t, 4, TFB_DIMS(n, size[0], size[1], ch), s, zp);
        if (in < 0 || sz < 0 || out < 0)
                return -ENOMEM;
        c->accum = bilinear ? 4 : 0;
        dt_desc(c, "type=%s in=%dx%dx%dx%d size=%dx%d align_corners=%d half_pixel_centers=%d s=%g zp=%d%s",
                dt_type_name(t), n, h, w, ch, size[0], size[1], align, half, s, zp, c->edges ? " edges" : "");
        if (bilinear) {
                tfb_option_t o[] = { TFB_OPT_BOOL(2, align), TFB_OPT_BOOL(3, half) };
                return dt_op(c, RT_BUILTIN_RESIZE_BILINEAR, half ? 3 : t == RT_TYPE_INT8 ? 2 : 1, TFB_IDS(in, sz), 2,
                             TFB_IDS(out), 1, RT_OPTIONS_RESIZE_BILINEAR, o, 2) < 0 ? -ENOMEM : 0;
        }
        tfb_option_t o[] = { TFB_OPT_BOOL(0, align), TFB_OPT_BOOL(1, half) };
        return dt_op(c, RT_BUILTIN_RESIZE_NEAREST_NEIGHBOR, half ? 3 : t == RT_TYPE_INT8 ? 2 : 1, TFB_IDS(in, sz), 2,
                     TFB_IDS(out), 1, RT_OPTIONS_RESIZE_NEAREST_NEIGHBOR, o, 2) < 0 ? -ENOMEM : 0;
}

static int gen_resize_bilinear(dt_case_t *c, dt_rng_t *r) {
        return gen_resize(c, r, true);
}

static int gen_resize_nearest(dt_case_t *c, dt_rng_t *r) {
        return gen_resize(c, r, false);
}

static int gen_softmax(dt_case_t *c, dt_rng_t *r) {
        rt_type_t t = q_type(r);
        dt_chain_draw(c, r, t);
        int32_t shape[6], rank = shape_rand(r, 1, 4, shape);
        float si, so = 0;
        int32_t zi, zo = 0;
        quant_draw(r, t, &si, &zi);
        if (dt_is_quant_type(t)) {
                si = dt_scale(r, 1e-3, 0.5);
                so = t == RT_TYPE_INT16 ? 1.0f / 32768 : 1.0f / 256;
                zo = t == RT_TYPE_INT8 ? -128 : 0;
        }
        double beta = DT_PICK(r, 0, 1) ? 1.0 : 0.1 + 2 * dt_unit(r);
        dt_fill_t f = { .lo = -8, .hi = 8 };
        int32_t in = dt_qin(c, r, t, rank, shape, si, zi, &f);
        int32_t out = dt_qout(c, t, rank, shape, so, zo);
        if (in < 0 || out < 0)
                return -ENOMEM;
        c->accum = shape[rank - 1] + 1;
        dt_desc(c, "type=%s in=%dD beta=%.9g si=%g zi=%d%s", dt_type_name(t), rank, (float) beta, si, zi,
                c->edges ? " edges" : "");
        tfb_option_t o[] = { TFB_OPT_F32(0, beta) };
        return dt_op(c, RT_BUILTIN_SOFTMAX, t == RT_TYPE_FLOAT32 ? 1 : 2, TFB_IDS(in), 1, TFB_IDS(out), 1,
                     RT_OPTIONS_SOFTMAX, o, 1) < 0 ? -ENOMEM : 0;
}

static rt_type_t move_type(dt_rng_t *r) {
        return (rt_type_t) DT_PICK(r, RT_TYPE_FLOAT32, RT_TYPE_INT8, RT_TYPE_UINT8, RT_TYPE_INT32, RT_TYPE_INT64,
                                   RT_TYPE_BOOL, RT_TYPE_INT16);
}

static int gen_reshape(dt_case_t *c, dt_rng_t *r) {
        rt_type_t t = move_type(r);
        c->type_name = dt_type_name(t);
        int32_t shape[6], rank = shape_rand(r, 0, 4, shape);
        int64_t count = dt_count(rank, shape);
        /* A new shape: factor count into up to 4 dims, maybe with one -1. */
        int32_t ns[6], nrank = 0;
        int64_t left = count;
        int32_t want = (int32_t) dt_int(r, 1, 4);
        for (int32_t i = 0; i < want - 1; i++) {
                int32_t d = 1;
                for (int32_t k = 6; k >= 2; k--)
                        if (left % k == 0 && dt_chance(r, 0.4)) {
                                d = k;
                                break;
                        }
                ns[nrank++] = d;
                left /= d;
        }
        ns[nrank++] = (int32_t) left;
        float s;
        int32_t zp;
        quant_draw(r, t, &s, &zp);
        int32_t in = dt_input(c, r, t, rank, shape, s, zp, NULL);
        int32_t spec[6];
        memcpy(spec, ns, sizeof(spec));
        if (dt_chance(r, 0.3))
                spec[dt_int(r, 0, nrank - 1)] = -1;
        int32_t st = dt_const_data(c, RT_TYPE_INT32, 1, TFB_DIMS(nrank), spec, 0, 0);
        int32_t out = dt_output(c, t, nrank, ns, s, zp);
        if (in < 0 || st < 0 || out < 0)
                return -ENOMEM;
        dt_desc(c, "type=%s in=%dD out=%dD", dt_type_name(t), rank, nrank);
        return dt_op(c, RT_BUILTIN_RESHAPE, 1, TFB_IDS(in, st), 2, TFB_IDS(out), 1, 0, NULL, 0) < 0 ? -ENOMEM : 0;
}

static int gen_transpose(dt_case_t *c, dt_rng_t *r) {
        rt_type_t t = move_type(r);
        c->type_name = dt_type_name(t);
        int32_t shape[6], rank = shape_rand(r, 1, 5, shape);
        int32_t perm[6], oshape[6];
        for (int32_t i = 0; i < rank; i++)
                perm[i] = i;
        for (int32_t i = rank - 1; i > 0; i--) {
                int32_t j = (int32_t) dt_int(r, 0, i), tmp = perm[i];
                perm[i] = perm[j];
                perm[j] = tmp;
        }
        for (int32_t i = 0; i < rank; i++)
                oshape[i] = shape[perm[i]];
        float s;
        int32_t zp;
        quant_draw(r, t, &s, &zp);
        int32_t in = dt_input(c, r, t, rank, shape, s, zp, NULL);
        int32_t pt = dt_const_data(c, RT_TYPE_INT32, 1, TFB_DIMS(rank), perm, 0, 0);
        int32_t out = dt_output(c, t, rank, oshape, s, zp);
        if (in < 0 || pt < 0 || out < 0)
                return -ENOMEM;
        dt_desc(c, "type=%s rank=%d", dt_type_name(t), rank);
        return dt_op(c, RT_BUILTIN_TRANSPOSE, t == RT_TYPE_FLOAT32 ? 1 : 2, TFB_IDS(in, pt), 2, TFB_IDS(out), 1, 0,
                     NULL, 0) < 0 ? -ENOMEM : 0;
}

const dt_gen_t dt_gens_shape[] = {
        { "MEAN", gen_mean, 4 },
        { "SUM", gen_sum, 2 },
        { "REDUCE_MAX", gen_reduce_max, 1 },
        { "PAD", gen_pad, 3 },
        { "PADV2", gen_padv2, 1 },
        { "MIRROR_PAD", gen_mirror_pad, 3 },
        { "CONCATENATION", gen_concat, 3 },
        { "RESIZE_BILINEAR", gen_resize_bilinear, 3 },
        { "RESIZE_NEAREST_NEIGHBOR", gen_resize_nearest, 2 },
        { "SOFTMAX", gen_softmax, 3 },
        { "RESHAPE", gen_reshape, 2 },
        { "TRANSPOSE", gen_transpose, 2 },
};
const size_t dt_gens_shape_n = sizeof(dt_gens_shape) / sizeof(dt_gens_shape[0]);
