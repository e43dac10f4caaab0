/* SPDX-License-Identifier: Apache-2.0 */
/* Case generators for misc, control-flow and resource builtins (FILL, RANGE,
 * SHAPE, RANK, bitwise ops, NON_MAX_SUPPRESSION, variables, hash tables,
 * IF/WHILE, ...). Where TFLite computes an output shape from the data, the
 * declared output shape is a placeholder: both runtimes resize it and the
 * comparison checks the sizes they produce. */
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
#define B RT_TYPE_BOOL

/* A random shape; size-1 dimensions often, empty ones with p_empty. */
static int32_t shape_draw(dt_rng_t *r, int32_t lo, int32_t hi, int32_t *shape, double p_empty) {
        int32_t rank = (int32_t) dt_int(r, lo, hi);
        for (int32_t i = 0; i < rank; i++)
                shape[i] = dt_chance(r, p_empty) ? 0 : dt_chance(r, 0.2) ? 1 : (int32_t) dt_int(r, 1, 5);
        return rank;
}

static void quant_draw(dt_rng_t *r, rt_type_t t, float *s, int32_t *zp) {
        *s = 0, *zp = 0;
        if (dt_is_quant_type(t)) {
                *s = dt_scale(r, 1e-3, 2);
                *zp = dt_zero_point(r, t);
        }
}

static int op_end(dt_case_t *c, int32_t code, int32_t version, const int32_t *in, int32_t n_in, const int32_t *out,
                  int32_t n_out, uint8_t ot, const tfb_option_t *o, size_t n_o) {
        return dt_op(c, code, version, in, n_in, out, n_out, ot, o, n_o) < 0 ? -ENOMEM : 0;
}

/* An int32 or int64 1-D tensor holding v[0..n): a constant, or a graph input
 * when as_input. */
static int32_t ints_tensor(dt_case_t *c, rt_type_t t, const int64_t *v, int32_t n, bool as_input, int32_t rank) {
        int64_t buf64[16];
        int32_t buf32[16];
        for (int32_t i = 0; i < n && i < 16; i++)
                buf64[i] = v[i], buf32[i] = (int32_t) v[i];
        const void *data = t == I64 ? (const void *) buf64 : (const void *) buf32;
        int32_t shape[1] = { n };
        if (!as_input)
                return dt_const_data(c, t, rank, shape, data, 0, 0);
        if (c->n_in >= DT_MAX_IO)
                return -E2BIG;
        dt_rng_t dummy = { 0 };
        int32_t id = dt_input(c, &dummy, t, rank, shape, 0, 0, NULL);
        if (id >= 0)
                memcpy(c->in[c->n_in - 1].data, data, (size_t) n * dt_type_size(t));
        return id;
}

/* ---- FILL, RANGE, SHAPE, RANK ---- */

static int gen_fill(dt_case_t *c, dt_rng_t *r) {
        rt_type_t t = (rt_type_t) DT_PICK(r, F, F, I32, I64, B, I8, I16);
        rt_type_t dt = dt_chance(r, 0.5) ? I32 : I64;
        c->type_name = dt_type_name(t);
        int32_t s[6], rank = shape_draw(r, 0, 4, s, 0.1);
        int64_t dims[6];
        for (int32_t i = 0; i < rank; i++)
                dims[i] = s[i];
        bool dyn = dt_chance(r, 0.5);
        int32_t vrank = dt_chance(r, 0.1) ? 1 : 0;
        int32_t d = ints_tensor(c, dt, dims, rank, dyn, 1);
        float q = 0;
        int32_t zp = 0;
        quant_draw(r, t, &q, &zp);
        if (dt_chance(r, 0.5))
                q = 0, zp = 0;
        int32_t v = dt_input(c, r, t, vrank, TFB_DIMS(1), q, zp, NULL);
        int32_t o = dt_output(c, t, rank, s, q, zp);
        if (d < 0 || v < 0 || o < 0)
                return -ENOMEM;
        int32_t ver = t == I8 || t == I16 ? 3 : t == B ? 2 : 1;
        dt_desc(c, "type=%s dims=%s rank=%d %s value_rank=%d v%d%s", dt_type_name(t), dt_type_name(dt), rank,
                dyn ? "dynamic" : "const", vrank, ver, c->edges ? " edges" : "");
        return op_end(c, RT_BUILTIN_FILL, ver, TFB_IDS(d, v), 2, TFB_IDS(o), 1, 0, NULL, 0);
}

static int gen_range(dt_case_t *c, dt_rng_t *r) {
        rt_type_t t = (rt_type_t) DT_PICK(r, F, F, I32, I32, I64);
        c->type_name = dt_type_name(t);
        bool dyn = dt_chance(r, 0.5);
        double st, lim, de;
        if (t == F) {
                st = dt_chance(r, 0.5) ? (double) dt_int(r, -10, 10) : -10 + 20 * dt_unit(r);
                de = dt_chance(r, 0.5) ? (double) DT_PICK(r, 1, 2, -1, -3) : (dt_unit(r) - 0.5) * 4;
                lim = st + de * (dt_unit(r) * 30 - 3);
                if (dt_chance(r, 0.1))
                        de = 0;
                if (dt_chance(r, 0.1))
                        lim = st;
        } else {
                st = (double) dt_int(r, -50, 50);
                de = (double) DT_PICK(r, 1, 1, 2, 3, 7, -1, -2, -5, 0);
                lim = st + (de < 0 ? -1 : 1) * (double) dt_int(r, -3, 40); /* sometimes the wrong sign */
        }
        int32_t ids[3];
        double v[3] = { st, lim, de };
        for (int k = 0; k < 3; k++) {
                float fv = (float) v[k];
                int32_t iv = (int32_t) v[k];
                int64_t lv = (int64_t) v[k];
                const void *p = t == F ? (const void *) &fv : t == I32 ? (const void *) &iv : (const void *) &lv;
                if (dyn) {
                        dt_rng_t dummy = { 0 };
                        ids[k] = dt_input(c, &dummy, t, 0, NULL, 0, 0, NULL);
                        if (ids[k] >= 0)
                                memcpy(c->in[c->n_in - 1].data, p, dt_type_size(t));
                } else {
                        ids[k] = dt_const_data(c, t, 0, NULL, p, 0, 0);
                }
                if (ids[k] < 0)
                        return -ENOMEM;
        }
        int32_t o = dt_output(c, t, 1, TFB_DIMS(1), 0, 0);
        if (o < 0)
                return -ENOMEM;
        dt_desc(c, "type=%s start=%.9g limit=%.9g delta=%.9g %s", dt_type_name(t), st, lim, de,
                dyn ? "dynamic" : "const");
        return op_end(c, RT_BUILTIN_RANGE, 1, ids, 3, TFB_IDS(o), 1, 0, NULL, 0);
}

static int gen_shape(dt_case_t *c, dt_rng_t *r) {
        rt_type_t t = (rt_type_t) DT_PICK(r, F, I8, U8, I16, I32, I64, B);
        rt_type_t ot = dt_chance(r, 0.5) ? I32 : I64;
        c->type_name = dt_type_name(ot);
        int32_t s[6], rank = shape_draw(r, 0, 6, s, 0.05);
        int32_t a = dt_input(c, r, t, rank, s, 0, 0, NULL);
        int32_t o = dt_output(c, ot, 1, TFB_DIMS(rank), 0, 0);
        if (a < 0 || o < 0)
                return -ENOMEM;
        dt_desc(c, "in=%s out=%s rank=%d", dt_type_name(t), dt_type_name(ot), rank);
        tfb_option_t opt[] = { TFB_OPT_I8(0, ot) };
        return op_end(c, RT_BUILTIN_SHAPE, 1, TFB_IDS(a), 1, TFB_IDS(o), 1, RT_OPTIONS_SHAPE, opt, 1);
}

static int gen_rank(dt_case_t *c, dt_rng_t *r) {
        rt_type_t t = (rt_type_t) DT_PICK(r, F, I8, U8, I16, I32, I64, B);
        c->type_name = "int32";
        int32_t s[6], rank = shape_draw(r, 0, 6, s, 0.05);
        int32_t a = dt_input(c, r, t, rank, s, 0, 0, NULL);
        int32_t o = dt_output(c, I32, 0, NULL, 0, 0);
        if (a < 0 || o < 0)
                return -ENOMEM;
        dt_desc(c, "in=%s rank=%d", dt_type_name(t), rank);
        return op_end(c, RT_BUILTIN_RANK, 1, TFB_IDS(a), 1, TFB_IDS(o), 1, RT_OPTIONS_RANK, NULL, 0);
}


/* ---- elementwise: RELU_0_TO_1, ATAN2, BITWISE_XOR, RIGHT_SHIFT ---- */

static int gen_relu_0_to_1(dt_case_t *c, dt_rng_t *r) {
        rt_type_t t = (rt_type_t) DT_PICK(r, F, F, I8, U8);
        dt_chain_draw(c, r, t);
        int32_t s[6], rank = shape_draw(r, 0, 4, s, 0.05);
        float q;
        int32_t zp;
        quant_draw(r, t, &q, &zp);
        dt_fill_t f = { .lo = -2, .hi = 2 };
        int32_t a = dt_qin(c, r, t, rank, s, q, zp, &f);
        int32_t o = dt_qout(c, t, rank, s, q, zp);
        if (a < 0 || o < 0)
                return -ENOMEM;
        dt_desc(c, "type=%s rank=%d s=%g zp=%d%s", dt_type_name(t), rank, q, zp, c->edges ? " edges" : "");
        return op_end(c, RT_BUILTIN_RELU_0_TO_1, 1, TFB_IDS(a), 1, TFB_IDS(o), 1, 0, NULL, 0);
}

static int gen_atan2(dt_case_t *c, dt_rng_t *r) {
        c->type_name = "float32";
        int32_t s[6], rank = shape_draw(r, 0, 4, s, 0.05);
        dt_fill_t f = { .lo = -3, .hi = 3 };
        int32_t a = dt_input(c, r, F, rank, s, 0, 0, &f);
        int32_t b = dt_input(c, r, F, rank, s, 0, 0, &f);
        int32_t o = dt_output(c, F, rank, s, 0, 0);
        if (a < 0 || b < 0 || o < 0)
                return -ENOMEM;
        dt_desc(c, "rank=%d%s", rank, c->edges ? " edges" : "");
        return op_end(c, RT_BUILTIN_ATAN2, 1, TFB_IDS(a, b), 2, TFB_IDS(o), 1, RT_OPTIONS_ATAN2, NULL, 0);
}

static int gen_bitwise(dt_case_t *c, dt_rng_t *r, int32_t code, uint8_t ot) {
        rt_type_t t = (rt_type_t) DT_PICK(r, I8, U8, I16, I32);
        c->type_name = dt_type_name(t);
        int32_t s[6], rank = shape_draw(r, 0, 4, s, 0.05);
        int32_t sb[6], brank = dt_chance(r, 0.3) ? 0 : rank;
        memcpy(sb, s, sizeof(sb));
        for (int32_t i = 0; i < brank; i++)
                if (dt_chance(r, 0.2))
                        sb[i] = 1;
        int bits = (int) dt_type_size(t) * 8;
        dt_fill_t fs = { .ilo = 0, .ihi = bits - 1 };
        int32_t a = dt_input(c, r, t, rank, s, 0, 0, NULL);
        int32_t b = dt_input(c, r, t, brank, sb, 0, 0, code == RT_BUILTIN_RIGHT_SHIFT ? &fs : NULL);
        int32_t o = dt_output(c, t, rank, s, 0, 0);
        if (a < 0 || b < 0 || o < 0)
                return -ENOMEM;
        dt_desc(c, "type=%s rank=%d b_rank=%d", dt_type_name(t), rank, brank);
        return op_end(c, code, 1, TFB_IDS(a, b), 2, TFB_IDS(o), 1, ot, NULL, 0);
}

static int gen_bitwise_xor(dt_case_t *c, dt_rng_t *r) {
        return gen_bitwise(c, r, RT_BUILTIN_BITWISE_XOR, RT_OPTIONS_BITWISE_XOR);
}

static int gen_right_shift(dt_case_t *c, dt_rng_t *r) {
        return gen_bitwise(c, r, RT_BUILTIN_RIGHT_SHIFT, RT_OPTIONS_RIGHT_SHIFT);
}

/* ---- BUCKETIZE, ONE_HOT, TOPK_V2, WHERE, UNIQUE ---- */

static int gen_bucketize(dt_case_t *c, dt_rng_t *r) {
        rt_type_t t = (rt_type_t) DT_PICK(r, F, F, I32, I64);
        c->type_name = dt_type_name(t);
        int32_t s[6], rank = shape_draw(r, 0, 4, s, 0.05);
        int32_t nb = (int32_t) dt_int(r, 0, 8);
        float bounds[8];
        float v = (float) dt_int(r, -10, 0);
        for (int32_t i = 0; i < nb; i++) {
                bounds[i] = v;
                v += dt_chance(r, 0.2) ? 0 : (float) (t == F ? dt_unit(r) * 3 : (double) dt_int(r, 1, 3));
        }
        dt_fill_t f = { .lo = -12, .hi = 12, .ilo = -12, .ihi = 12 };
        int32_t a = dt_input(c, r, t, rank, s, 0, 0, &f);
        if (t == F && dt_chance(r, 0.5)) /* hit the boundaries */
                for (int64_t i = 0; i < dt_count(rank, s); i++)
                        if (nb && dt_chance(r, 0.3))
                                ((float *) c->in[0].data)[i] = bounds[dt_int(r, 0, nb - 1)];
        int32_t o = dt_output(c, I32, rank, s, 0, 0);
        if (a < 0 || o < 0)
                return -ENOMEM;
        dt_desc(c, "type=%s rank=%d boundaries=%d%s", dt_type_name(t), rank, nb, c->edges ? " edges" : "");
        tfb_option_t opt[] = { TFB_OPT_VEC_F32(0, bounds, (uint32_t) nb) };
        return op_end(c, RT_BUILTIN_BUCKETIZE, 1, TFB_IDS(a), 1, TFB_IDS(o), 1, RT_OPTIONS_BUCKETIZE, opt, 1);
}

static int gen_one_hot(dt_case_t *c, dt_rng_t *r) {
        rt_type_t t = (rt_type_t) DT_PICK(r, F, I32, I64, B, I8, U8);
        rt_type_t it = dt_chance(r, 0.5) ? I32 : I64;
        c->type_name = dt_type_name(t);
        int32_t s[6], rank = shape_draw(r, 0, 3, s, 0.05);
        int32_t depth = (int32_t) dt_int(r, 0, 6);
        int32_t axis = dt_chance(r, 0.4) ? -1 : (int32_t) dt_int(r, 0, rank);
        dt_fill_t fi = { .ilo = -2, .ihi = depth + 1 };
        int32_t ix = dt_input(c, r, it, rank, s, 0, 0, &fi);
        bool dyn = dt_chance(r, 0.3);
        int32_t dp = ints_tensor(c, I32, (const int64_t[]) { depth }, 1, dyn, 0);
        int32_t on = dt_input(c, r, t, 0, NULL, 0, 0, NULL);
        int32_t off = dt_input(c, r, t, 0, NULL, 0, 0, NULL);
        int32_t os[6], orank = 0, ax = axis < 0 ? rank : axis;
        for (int32_t i = 0; i <= rank; i++)
                os[orank++] = i == ax ? depth : s[i < ax ? i : i - 1];
        int32_t o = dt_output(c, t, orank, os, 0, 0);
        if (ix < 0 || dp < 0 || on < 0 || off < 0 || o < 0)
                return -ENOMEM;
        dt_desc(c, "type=%s indices=%s rank=%d depth=%d axis=%d %s", dt_type_name(t), dt_type_name(it), rank, depth,
                axis, dyn ? "dynamic" : "const");
        tfb_option_t opt[] = { TFB_OPT_I32(0, axis) };
        return op_end(c, RT_BUILTIN_ONE_HOT, 1, TFB_IDS(ix, dp, on, off), 4, TFB_IDS(o), 1, RT_OPTIONS_ONE_HOT, opt,
                      1);
}

static int gen_topk(dt_case_t *c, dt_rng_t *r) {
        rt_type_t t = (rt_type_t) DT_PICK(r, F, F, U8, I8, I32, I64);
        c->type_name = dt_type_name(t);
        int32_t s[6], rank = shape_draw(r, 1, 4, s, 0.05);
        if (dt_chance(r, 0.3))
                s[rank - 1] = (int32_t) dt_int(r, 5, 20);
        int32_t k = (int32_t) dt_int(r, 0, s[rank - 1] + (dt_chance(r, 0.1) ? 1 : 0));
        float q;
        int32_t zp;
        quant_draw(r, t, &q, &zp);
        dt_fill_t f = { .lo = -2, .hi = 2, .ilo = -4, .ihi = 4 };
        int32_t a = dt_input(c, r, t, rank, s, q, zp, &f);
        if (t == F && dt_chance(r, 0.5)) /* ties */
                for (int64_t i = 0; i < dt_count(rank, s); i++)
                        ((float *) c->in[0].data)[i] = roundf(((float *) c->in[0].data)[i] * 2) / 2;
        if ((t == I8 || t == U8) && dt_chance(r, 0.5))
                for (int64_t i = 0; i < dt_count(rank, s); i++)
                        ((uint8_t *) c->in[0].data)[i] &= 0x83;
        bool dyn = dt_chance(r, 0.3);
        int32_t kt = ints_tensor(c, I32, (const int64_t[]) { k }, 1, dyn, 0);
        int32_t os[6];
        memcpy(os, s, sizeof(os));
        os[rank - 1] = k;
        int32_t ov = dt_output(c, t, rank, os, q, zp);
        int32_t oi = dt_output(c, I32, rank, os, 0, 0);
        if (a < 0 || kt < 0 || ov < 0 || oi < 0)
                return -ENOMEM;
        dt_desc(c, "type=%s rank=%d n=%d k=%d %s%s", dt_type_name(t), rank, s[rank - 1], k, dyn ? "dynamic" : "const",
                c->edges ? " edges" : "");
        return op_end(c, RT_BUILTIN_TOPK_V2, t == F ? 1 : 2, TFB_IDS(a, kt), 2, TFB_IDS(ov, oi), 2,
                      RT_OPTIONS_TOPK_V2, NULL, 0);
}

static int gen_where(dt_case_t *c, dt_rng_t *r) {
        rt_type_t t = (rt_type_t) DT_PICK(r, B, B, B, F, I32, I64, I8, U8);
        c->type_name = dt_type_name(t);
        int32_t s[6], rank = shape_draw(r, 0, 5, s, 0.05);
        dt_fill_t f = { .lo = -1, .hi = 1, .ilo = -1, .ihi = 1 };
        int32_t a = dt_input(c, r, t, rank, s, 0, 0, &f);
        if (t == F)
                for (int64_t i = 0; i < dt_count(rank, s); i++)
                        if (dt_chance(r, 0.5))
                                ((float *) c->in[0].data)[i] = 0;
        int32_t o = dt_output(c, I64, 2, TFB_DIMS(1, rank), 0, 0);
        if (a < 0 || o < 0)
                return -ENOMEM;
        dt_desc(c, "type=%s rank=%d", dt_type_name(t), rank);
        return op_end(c, RT_BUILTIN_WHERE, t == B ? 1 : 2, TFB_IDS(a), 1, TFB_IDS(o), 1, RT_OPTIONS_WHERE, NULL, 0);
}

static int gen_unique(dt_case_t *c, dt_rng_t *r) {
        rt_type_t t = (rt_type_t) DT_PICK(r, F, I8, U8, I16, I32, I64);
        rt_type_t it = dt_chance(r, 0.5) ? I32 : I64;
        c->type_name = dt_type_name(t);
        int32_t n = (int32_t) dt_int(r, 0, 12);
        dt_fill_t f = { .lo = -2, .hi = 2, .ilo = -3, .ihi = 3 };
        int32_t a = dt_input(c, r, t, 1, TFB_DIMS(n), 0, 0, &f);
        if (t == F)
                for (int64_t i = 0; i < n; i++)
                        ((float *) c->in[0].data)[i] = roundf(((float *) c->in[0].data)[i]);
        if (t == I8 || t == U8)
                for (int64_t i = 0; i < n; i++)
                        ((uint8_t *) c->in[0].data)[i] &= 0x81;
        if (t == I16)
                for (int64_t i = 0; i < n; i++)
                        ((int16_t *) c->in[0].data)[i] &= 0x7003;
        int32_t ov = dt_output(c, t, 1, TFB_DIMS(n), 0, 0);
        int32_t oi = dt_output(c, it, 1, TFB_DIMS(n), 0, 0);
        if (a < 0 || ov < 0 || oi < 0)
                return -ENOMEM;
        dt_desc(c, "type=%s idx=%s n=%d%s", dt_type_name(t), dt_type_name(it), n, c->edges ? " edges" : "");
        tfb_option_t opt[] = { TFB_OPT_I8(0, it) };
        return op_end(c, RT_BUILTIN_UNIQUE, 1, TFB_IDS(a), 1, TFB_IDS(ov, oi), 2, RT_OPTIONS_UNIQUE, opt, 1);
}

/* ---- SCATTER_ND, SPARSE_TO_DENSE, DYNAMIC_UPDATE_SLICE, BROADCAST_ARGS ---- */

static int gen_scatter_nd(dt_case_t *c, dt_rng_t *r) {
        rt_type_t t = (rt_type_t) DT_PICK(r, F, F, I32, I64, I8, U8, B);
        c->type_name = dt_type_name(t);
        int32_t s[6], rank = shape_draw(r, 1, 4, s, 0.0);
        int32_t ix = (int32_t) dt_int(r, 1, rank);
        int32_t is[6], irank = shape_draw(r, 0, 2, is, 0.05);
        is[irank++] = ix;
        int64_t n = dt_count(irank, is) / ix;
        int32_t *idx = calloc((size_t) (n * ix + 1), sizeof(int32_t));
        if (!idx)
                return -ENOMEM;
        /* No out-of-range indices: TFLite 2.9 writes outside the output. */
        bool oob = false;
        for (int64_t i = 0; i < n; i++)
                for (int32_t k = 0; k < ix; k++)
                        idx[i * ix + k] = (int32_t) dt_int(r, oob ? -1 : 0, s[k] - (oob ? 0 : 1));
        int32_t us[8], urank = 0;
        for (int32_t i = 0; i < irank - 1; i++)
                us[urank++] = is[i];
        for (int32_t i = ix; i < rank; i++)
                us[urank++] = s[i];
        if (urank > 6) {
                free(idx);
                return -ENOTSUP;
        }
        int32_t it = dt_input(c, r, I32, irank, is, 0, 0, NULL);
        if (it >= 0)
                memcpy(c->in[c->n_in - 1].data, idx, (size_t) (n * ix) * 4);
        free(idx);
        int32_t u = dt_input(c, r, t, urank, us, 0, 0, NULL);
        int64_t shp[6];
        for (int32_t i = 0; i < rank; i++)
                shp[i] = s[i];
        bool dyn = dt_chance(r, 0.3);
        int32_t st = ints_tensor(c, I32, shp, rank, dyn, 1);
        int32_t o = dt_output(c, t, rank, s, 0, 0);
        if (it < 0 || u < 0 || st < 0 || o < 0)
                return -ENOMEM;
        dt_desc(c, "type=%s rank=%d index_depth=%d indices_rank=%d %s%s", dt_type_name(t), rank, ix, irank,
                dyn ? "dynamic" : "const", oob ? " out-of-bounds" : "");
        return op_end(c, RT_BUILTIN_SCATTER_ND, 1, TFB_IDS(it, u, st), 3, TFB_IDS(o), 1, RT_OPTIONS_SCATTER_ND, NULL,
                      0);
}

static int gen_sparse_to_dense(dt_case_t *c, dt_rng_t *r) {
        rt_type_t t = (rt_type_t) DT_PICK(r, F, I32, I64, I8, U8);
        rt_type_t it = dt_chance(r, 0.6) ? I32 : I64;
        c->type_name = dt_type_name(t);
        int32_t s[6], rank = shape_draw(r, 1, 4, s, 0.0);
        int32_t n = (int32_t) dt_int(r, 1, 6);
        /* 0-D indices crash TFLite 2.9: 1-D (rank 1 only) or 2-D. */
        int32_t idx_rank = rank == 1 && dt_chance(r, 0.5) ? 1 : 2;
        /* No out-of-range indices: TFLite 2.9 writes outside the output. */
        bool validate = dt_chance(r, 0.7), sorted = dt_chance(r, 0.6), oob = false;
        int64_t idx[64];
        for (int32_t i = 0; i < n; i++)
                for (int32_t k = 0; k < rank; k++)
                        idx[i * rank + k] = dt_int(r, oob ? -1 : 0, s[k] - (oob ? 0 : 1));
        if (sorted) { /* lexicographic insertion sort, duplicates dropped by making them unsorted-equal */
                for (int32_t i = 1; i < n; i++)
                        for (int32_t j = i; j > 0; j--) {
                                if (memcmp(&idx[(j - 1) * rank], &idx[j * rank], 0) == 0) {
                                        bool gt = false;
                                        for (int32_t k = 0; k < rank; k++)
                                                if (idx[(j - 1) * rank + k] != idx[j * rank + k]) {
                                                        gt = idx[(j - 1) * rank + k] > idx[j * rank + k];
                                                        break;
                                                }
                                        if (!gt)
                                                break;
                                }
                                for (int32_t k = 0; k < rank; k++) {
                                        int64_t tmp = idx[(j - 1) * rank + k];
                                        idx[(j - 1) * rank + k] = idx[j * rank + k];
                                        idx[j * rank + k] = tmp;
                                }
                        }
        }
        int32_t ishape[2] = { n, rank };
        if (idx_rank == 1)
                ishape[0] = n;
        dt_rng_t dummy = { 0 };
        int32_t ix = dt_input(c, &dummy, it, idx_rank, ishape, 0, 0, NULL);
        if (ix >= 0)
                for (int32_t i = 0; i < n * rank; i++) {
                        if (it == I32)
                                ((int32_t *) c->in[c->n_in - 1].data)[i] = (int32_t) idx[i];
                        else
                                ((int64_t *) c->in[c->n_in - 1].data)[i] = idx[i];
                }
        int64_t shp[6];
        for (int32_t i = 0; i < rank; i++)
                shp[i] = s[i];
        bool dyn = dt_chance(r, 0.3);
        int32_t st = ints_tensor(c, it, shp, rank, dyn, 1);
        bool scalar_v = dt_chance(r, 0.3);
        int32_t v = dt_input(c, r, t, scalar_v ? 0 : 1, TFB_DIMS(n), 0, 0, NULL);
        int32_t dv = dt_input(c, r, t, 0, NULL, 0, 0, NULL);
        int32_t o = dt_output(c, t, rank, s, 0, 0);
        if (ix < 0 || st < 0 || v < 0 || dv < 0 || o < 0)
                return -ENOMEM;
        dt_desc(c, "type=%s index=%s rank=%d n=%d indices_rank=%d %s%s%s%s%s", dt_type_name(t), dt_type_name(it),
                rank, n, idx_rank, dyn ? "dynamic" : "const", validate ? " validate" : "", sorted ? " sorted" : "",
                scalar_v ? " scalar_value" : "", oob ? " out-of-bounds" : "");
        tfb_option_t opt[] = { TFB_OPT_BOOL(0, validate) };
        return op_end(c, RT_BUILTIN_SPARSE_TO_DENSE, t == I8 || t == U8 ? 3 : it == I64 ? 2 : 1,
                      TFB_IDS(ix, st, v, dv), 4, TFB_IDS(o), 1, RT_OPTIONS_SPARSE_TO_DENSE, opt, 1);
}

static int gen_dynamic_update_slice(dt_case_t *c, dt_rng_t *r) {
        rt_type_t t = (rt_type_t) DT_PICK(r, F, F, I8, I32, I64, B, I16);
        rt_type_t it = dt_chance(r, 0.7) ? I32 : I64;
        c->type_name = dt_type_name(t);
        int32_t s[6], rank = shape_draw(r, 1, 4, s, 0.0); /* TFLite 2.9 crashes on scalars */
        int32_t us[6];
        int64_t st[6];
        for (int32_t i = 0; i < rank; i++) {
                us[i] = (int32_t) dt_int(r, 1, s[i]);
                st[i] = dt_int(r, -2, s[i] + 2);
        }
        int32_t a = dt_input(c, r, t, rank, s, 0, 0, NULL);
        int32_t u = dt_input(c, r, t, rank, us, 0, 0, NULL);
        int32_t sti = ints_tensor(c, it, st, rank, dt_chance(r, 0.7), 1);
        int32_t o = dt_output(c, t, rank, s, 0, 0);
        if (a < 0 || u < 0 || sti < 0 || o < 0)
                return -ENOMEM;
        dt_desc(c, "type=%s index=%s rank=%d", dt_type_name(t), dt_type_name(it), rank);
        return op_end(c, RT_BUILTIN_DYNAMIC_UPDATE_SLICE, 1, TFB_IDS(a, u, sti), 3, TFB_IDS(o), 1,
                      RT_OPTIONS_DYNAMIC_UPDATE_SLICE, NULL, 0);
}

static int gen_broadcast_args(dt_case_t *c, dt_rng_t *r) {
        rt_type_t t = dt_chance(r, 0.5) ? I32 : I64;
        c->type_name = dt_type_name(t);
        int32_t na = (int32_t) dt_int(r, 0, 5), nb = (int32_t) dt_int(r, 0, 5);
        int64_t a[6], b[6];
        int32_t no = na > nb ? na : nb;
        bool bad = dt_chance(r, 0.05);
        for (int32_t i = 0; i < no; i++) {
                int64_t d = DT_PICK(r, 0, 1, 2, 3, 5);
                int32_t ia = i - (no - na), ib = i - (no - nb);
                if (ia >= 0)
                        a[ia] = dt_chance(r, 0.3) ? 1 : d;
                if (ib >= 0)
                        b[ib] = dt_chance(r, 0.3) ? 1 : d;
                if (bad && ia >= 0)
                        a[ia] = 4;
        }
        int32_t x = ints_tensor(c, t, a, na, dt_chance(r, 0.7), 1);
        int32_t y = ints_tensor(c, t, b, nb, dt_chance(r, 0.7), 1);
        int32_t o = dt_output(c, t, 1, TFB_DIMS(no), 0, 0);
        if (x < 0 || y < 0 || o < 0)
                return -ENOMEM;
        dt_desc(c, "type=%s a=%d b=%d%s", dt_type_name(t), na, nb, bad ? " incompatible" : "");
        return op_end(c, RT_BUILTIN_BROADCAST_ARGS, 1, TFB_IDS(x, y), 2, TFB_IDS(o), 1, 0, NULL, 0);
}

/* ---- SEGMENT_SUM, UNSORTED_SEGMENT_* ---- */

static int gen_segment(dt_case_t *c, dt_rng_t *r, int32_t code, uint8_t ot, bool sorted) {
        rt_type_t t = (rt_type_t) DT_PICK(r, F, F, I32);
        c->type_name = dt_type_name(t);
        int32_t s[6], rank = shape_draw(r, 1, 4, s, 0.0);
        int32_t nseg = (int32_t) dt_int(r, 1, 6);
        int64_t ids[16];
        if (s[0] > 16)
                s[0] = 16;
        int32_t ir = sorted || dt_chance(r, 0.7) ? 1 : (int32_t) dt_int(r, 1, rank);
        int32_t n_ids = (int32_t) dt_count(ir, s);
        if (n_ids > 16)
                return -ENOTSUP;
        for (int32_t i = 0; i < n_ids; i++)
                ids[i] = dt_int(r, sorted ? 0 : -1, nseg - 1);
        if (sorted)
                for (int32_t i = 1; i < n_ids; i++)
                        for (int32_t j = i; j > 0 && ids[j - 1] > ids[j]; j--) {
                                int64_t tmp = ids[j];
                                ids[j] = ids[j - 1], ids[j - 1] = tmp;
                        }
        if (!sorted && dt_chance(r, 0.05))
                ids[0] = nseg; /* out of range */
        dt_fill_t f = { .lo = -3, .hi = 3, .ilo = -50, .ihi = 50 };
        int32_t a = dt_input(c, r, t, rank, s, 0, 0, &f);
        dt_rng_t dummy = { 0 };
        int32_t it = dt_input(c, &dummy, I32, ir, s, 0, 0, NULL);
        if (it >= 0)
                for (int32_t i = 0; i < n_ids; i++)
                        ((int32_t *) c->in[c->n_in - 1].data)[i] = (int32_t) ids[i];
        int32_t ins[3] = { a, it, -1 };
        int32_t n_ins = 2;
        bool dyn = false;
        if (!sorted) {
                dyn = dt_chance(r, 0.3);
                ins[2] = ints_tensor(c, I32, (const int64_t[]) { nseg }, 1, dyn, dt_chance(r, 0.8) ? 0 : 1);
                n_ins = 3;
        }
        int32_t os[6], orank = 0;
        os[orank++] = nseg;
        for (int32_t i = ir; i < rank; i++)
                os[orank++] = s[i];
        int32_t o = dt_output(c, t, orank, os, 0, 0);
        if (a < 0 || it < 0 || o < 0 || (n_ins == 3 && ins[2] < 0))
                return -ENOMEM;
        dt_desc(c, "type=%s rank=%d ids_rank=%d segments=%d%s%s", dt_type_name(t), rank, ir, nseg,
                dyn ? " dynamic" : "", c->edges ? " edges" : "");
        return op_end(c, code, 1, ins, n_ins, TFB_IDS(o), 1, ot, NULL, 0);
}

static int gen_segment_sum(dt_case_t *c, dt_rng_t *r) {
        return gen_segment(c, r, RT_BUILTIN_SEGMENT_SUM, RT_OPTIONS_SEGMENT_SUM, true);
}
static int gen_unsorted_segment_sum(dt_case_t *c, dt_rng_t *r) {
        return gen_segment(c, r, RT_BUILTIN_UNSORTED_SEGMENT_SUM, RT_OPTIONS_UNSORTED_SEGMENT_SUM, false);
}
static int gen_unsorted_segment_prod(dt_case_t *c, dt_rng_t *r) {
        return gen_segment(c, r, RT_BUILTIN_UNSORTED_SEGMENT_PROD, RT_OPTIONS_UNSORTED_SEGMENT_PROD, false);
}
static int gen_unsorted_segment_max(dt_case_t *c, dt_rng_t *r) {
        return gen_segment(c, r, RT_BUILTIN_UNSORTED_SEGMENT_MAX, RT_OPTIONS_UNSORTED_SEGMENT_MAX, false);
}
static int gen_unsorted_segment_min(dt_case_t *c, dt_rng_t *r) {
        return gen_segment(c, r, RT_BUILTIN_UNSORTED_SEGMENT_MIN, RT_OPTIONS_UNSORTED_SEGMENT_MIN, false);
}

/* ---- MATRIX_DIAG, MATRIX_SET_DIAG, REVERSE_SEQUENCE ---- */

/* TFLite 2.9 handles bool as float32 there (4-byte copies: heap overruns),
 * so bool is not drawn. */
static rt_type_t any_type(dt_rng_t *r) {
        return (rt_type_t) DT_PICK(r, F, F, I8, U8, I16, I32, I64);
}

static int gen_matrix_diag(dt_case_t *c, dt_rng_t *r) {
        rt_type_t t = any_type(r);
        c->type_name = dt_type_name(t);
        int32_t s[6], rank = shape_draw(r, 1, 4, s, 0.05);
        int32_t os[6];
        memcpy(os, s, sizeof(os));
        os[rank] = s[rank - 1];
        int32_t a = dt_input(c, r, t, rank, s, 0, 0, NULL);
        int32_t o = dt_output(c, t, rank + 1, os, 0, 0);
        if (a < 0 || o < 0)
                return -ENOMEM;
        dt_desc(c, "type=%s rank=%d", dt_type_name(t), rank);
        return op_end(c, RT_BUILTIN_MATRIX_DIAG, 1, TFB_IDS(a), 1, TFB_IDS(o), 1, RT_OPTIONS_MATRIX_DIAG, NULL, 0);
}

static int gen_matrix_set_diag(dt_case_t *c, dt_rng_t *r) {
        rt_type_t t = any_type(r);
        c->type_name = dt_type_name(t);
        int32_t s[6], rank = shape_draw(r, 2, 4, s, 0.05);
        int32_t ds[6];
        memcpy(ds, s, sizeof(ds));
        ds[rank - 2] = s[rank - 2] < s[rank - 1] ? s[rank - 2] : s[rank - 1];
        int32_t a = dt_input(c, r, t, rank, s, 0, 0, NULL);
        int32_t d = dt_input(c, r, t, rank - 1, ds, 0, 0, NULL);
        int32_t o = dt_output(c, t, rank, s, 0, 0);
        if (a < 0 || d < 0 || o < 0)
                return -ENOMEM;
        dt_desc(c, "type=%s rank=%d", dt_type_name(t), rank);
        return op_end(c, RT_BUILTIN_MATRIX_SET_DIAG, 1, TFB_IDS(a, d), 2, TFB_IDS(o), 1, RT_OPTIONS_MATRIX_SET_DIAG,
                      NULL, 0);
}

static int gen_reverse_sequence(dt_case_t *c, dt_rng_t *r) {
        rt_type_t t = (rt_type_t) DT_PICK(r, F, F, I8, U8, I16, I32, I64, B);
        rt_type_t it = dt_chance(r, 0.6) ? I32 : I64;
        c->type_name = dt_type_name(t);
        int32_t s[6], rank = shape_draw(r, 2, 5, s, 0.0);
        int32_t sd = (int32_t) dt_int(r, 0, rank - 1), bd;
        do
                bd = (int32_t) dt_int(r, 0, rank - 1);
        while (bd == sd);
        int64_t len[8];
        for (int32_t i = 0; i < s[bd]; i++)
                len[i] = dt_int(r, 0, s[sd]);
        int32_t a = dt_input(c, r, t, rank, s, 0, 0, NULL);
        int32_t lt = ints_tensor(c, it, len, s[bd], dt_chance(r, 0.7), 1);
        int32_t o = dt_output(c, t, rank, s, 0, 0);
        if (a < 0 || lt < 0 || o < 0)
                return -ENOMEM;
        dt_desc(c, "type=%s lengths=%s rank=%d seq_dim=%d batch_dim=%d", dt_type_name(t), dt_type_name(it), rank, sd,
                bd);
        tfb_option_t opt[] = { TFB_OPT_I32(0, sd), TFB_OPT_I32(1, bd) };
        return op_end(c, RT_BUILTIN_REVERSE_SEQUENCE, 1, TFB_IDS(a, lt), 2, TFB_IDS(o), 1,
                      RT_OPTIONS_REVERSE_SEQUENCE, opt, 2);
}

/* ---- FAKE_QUANT, HASHTABLE_LOOKUP, EMBEDDING_LOOKUP(_SPARSE), LRN, GATHER batch_dims ---- */

static int gen_fake_quant(dt_case_t *c, dt_rng_t *r) {
        c->type_name = "float32";
        int32_t s[6], rank = shape_draw(r, 0, 4, s, 0.05);
        double mn = -dt_unit(r) * 10, mx = dt_unit(r) * 10;
        if (dt_chance(r, 0.2))
                mn = dt_unit(r), mx = mn + dt_unit(r) * 3;
        if (dt_chance(r, 0.1))
                mx = -dt_unit(r), mn = mx - dt_unit(r) * 3;
        int32_t bits = (int32_t) DT_PICK(r, 8, 8, 2, 4, 16);
        bool narrow = dt_chance(r, 0.5);
        dt_fill_t f = { .lo = -12, .hi = 12 };
        int32_t a = dt_input(c, r, F, rank, s, 0, 0, &f);
        int32_t o = dt_output(c, F, rank, s, 0, 0);
        if (a < 0 || o < 0)
                return -ENOMEM;
        dt_desc(c, "rank=%d min=%.9g max=%.9g num_bits=%d narrow_range=%d%s", rank, mn, mx, bits, narrow,
                c->edges ? " edges" : "");
        tfb_option_t opt[] = { TFB_OPT_F32(0, mn), TFB_OPT_F32(1, mx), TFB_OPT_I32(2, bits),
                               TFB_OPT_BOOL(3, narrow) };
        return op_end(c, RT_BUILTIN_FAKE_QUANT, narrow ? 2 : 1, TFB_IDS(a), 1, TFB_IDS(o), 1, RT_OPTIONS_FAKE_QUANT,
                      opt, 4);
}

static int gen_hashtable_lookup(dt_case_t *c, dt_rng_t *r) {
        rt_type_t t = (rt_type_t) DT_PICK(r, F, F, U8, I32, I8, I64, I16, B);
        c->type_name = dt_type_name(t);
        int32_t nk = (int32_t) dt_int(r, 1, 8), nl = (int32_t) dt_int(r, 0, 8);
        int64_t keys[8];
        int64_t k = dt_int(r, -10, 0);
        for (int32_t i = 0; i < nk; i++) {
                keys[i] = k;
                k += dt_int(r, 1, 3);
        }
        int32_t vs[6], vrank = shape_draw(r, 1, 3, vs, 0.0);
        vs[0] = nk;
        dt_fill_t fl = { .ilo = -12, .ihi = 12 };
        int32_t lk = dt_input(c, r, I32, 1, TFB_DIMS(nl), 0, 0, &fl);
        int32_t kt = ints_tensor(c, I32, keys, nk, dt_chance(r, 0.3), 1);
        int32_t v = dt_input(c, r, t, vrank, vs, 0, 0, NULL);
        int32_t os[6];
        memcpy(os, vs, sizeof(os));
        os[0] = nl;
        int32_t o = dt_output(c, t, vrank, os, 0, 0);
        int32_t h = dt_output(c, U8, 1, TFB_DIMS(nl), 0, 0);
        if (lk < 0 || kt < 0 || v < 0 || o < 0 || h < 0)
                return -ENOMEM;
        dt_desc(c, "type=%s keys=%d lookups=%d value_rank=%d", dt_type_name(t), nk, nl, vrank);
        return op_end(c, RT_BUILTIN_HASHTABLE_LOOKUP, 1, TFB_IDS(lk, kt, v), 3, TFB_IDS(o, h), 2, 0, NULL, 0);
}

static int gen_embedding_lookup(dt_case_t *c, dt_rng_t *r) {
        rt_type_t t = (rt_type_t) DT_PICK(r, F, F, U8, I8);
        c->type_name = dt_type_name(t);
        int32_t vs[6], vrank = shape_draw(r, 2, 4, vs, 0.0);
        int32_t nl = (int32_t) dt_int(r, 0, 6);
        dt_fill_t fl = { .ilo = 0, .ihi = vs[0] - 1 };
        if (vs[0] == 1)
                fl = (dt_fill_t) { .ilo = 0, .ihi = 0 };
        int32_t lk = dt_input(c, r, I32, 1, TFB_DIMS(nl), 0, 0, &fl);
        if (vs[0] == 1)
                memset(c->in[0].data, 0, c->in[0].bytes);
        float q = 0;
        int32_t zp = 0;
        if (t != F)
                q = dt_scale(r, 1e-3, 1), zp = t == I8 ? 0 : (int32_t) dt_int(r, 0, 255);
        /* Quantized values with a float output: the hybrid form. */
        int32_t v = dt_input(c, r, t, vrank, vs, q, zp, NULL);
        int32_t os[6];
        memcpy(os, vs, sizeof(os));
        os[0] = nl;
        int32_t o = dt_output(c, F, vrank, os, 0, 0);
        if (lk < 0 || v < 0 || o < 0)
                return -ENOMEM;
        c->accum = 1;
        dt_desc(c, "type=%s lookups=%d value_rank=%d", dt_type_name(t), nl, vrank);
        return op_end(c, RT_BUILTIN_EMBEDDING_LOOKUP, t == I8 ? 2 : 1, TFB_IDS(lk, v), 2, TFB_IDS(o), 1, 0, NULL, 0);
}

static int gen_embedding_lookup_sparse(dt_case_t *c, dt_rng_t *r) {
        c->type_name = "float32";
        int32_t combiner = (int32_t) dt_int(r, 0, 2);
        int32_t vs[6], vrank = shape_draw(r, 2, 3, vs, 0.0);
        int32_t lrank = (int32_t) dt_int(r, 1, 3);
        int32_t n = (int32_t) dt_int(r, 1, 6);
        int32_t dense[3];
        for (int32_t i = 0; i < lrank; i++)
                dense[i] = (int32_t) dt_int(r, 1, 3);
        /* indices: sorted rows of [n, lrank] */
        int32_t idx[6 * 3];
        for (int32_t i = 0; i < n; i++)
                for (int32_t k = 0; k < lrank; k++)
                        idx[i * lrank + k] = (int32_t) dt_int(r, 0, dense[k] - 1);
        for (int32_t i = 1; i < n; i++)
                for (int32_t j = i; j > 0; j--) {
                        int cmp = 0;
                        for (int32_t k = 0; k < lrank && !cmp; k++)
                                cmp = (idx[(j - 1) * lrank + k] > idx[j * lrank + k]) -
                                      (idx[(j - 1) * lrank + k] < idx[j * lrank + k]);
                        if (cmp <= 0)
                                break;
                        for (int32_t k = 0; k < lrank; k++) {
                                int32_t tmp = idx[(j - 1) * lrank + k];
                                idx[(j - 1) * lrank + k] = idx[j * lrank + k];
                                idx[j * lrank + k] = tmp;
                        }
                }
        dt_fill_t fid = { .ilo = 0, .ihi = vs[0] - 1 };
        if (vs[0] == 1)
                fid = (dt_fill_t) { .ilo = 0, .ihi = 0 };
        int32_t ids = dt_input(c, r, I32, 1, TFB_DIMS(n), 0, 0, &fid);
        if (vs[0] == 1)
                memset(c->in[0].data, 0, c->in[0].bytes);
        dt_rng_t dummy = { 0 };
        int32_t it = dt_input(c, &dummy, I32, 2, TFB_DIMS(n, lrank), 0, 0, NULL);
        if (it >= 0)
                memcpy(c->in[1].data, idx, (size_t) (n * lrank) * 4);
        int32_t dt = dt_const_data(c, I32, 1, TFB_DIMS(lrank), dense, 0, 0);
        dt_fill_t fw = { .lo = 0.1, .hi = 2 };
        int32_t w = dt_input(c, r, F, 1, TFB_DIMS(n), 0, 0, &fw);
        int32_t v = dt_input(c, r, F, vrank, vs, 0, 0, NULL);
        int32_t os[8], orank = 0;
        for (int32_t i = 0; i < lrank - 1; i++)
                os[orank++] = dense[i];
        for (int32_t i = 1; i < vrank; i++)
                os[orank++] = vs[i];
        int32_t o = dt_output(c, F, orank, os, 0, 0);
        if (ids < 0 || it < 0 || dt < 0 || w < 0 || v < 0 || o < 0)
                return -ENOMEM;
        c->accum = n;
        dt_desc(c, "combiner=%d n=%d lookup_rank=%d value_rank=%d", combiner, n, lrank, vrank);
        tfb_option_t opt[] = { TFB_OPT_I8(0, combiner) };
        return op_end(c, RT_BUILTIN_EMBEDDING_LOOKUP_SPARSE, 1, TFB_IDS(ids, it, dt, w, v), 5, TFB_IDS(o), 1,
                      RT_OPTIONS_EMBEDDING_LOOKUP_SPARSE, opt, 1);
}

static int gen_lrn(dt_case_t *c, dt_rng_t *r) {
        c->type_name = "float32";
        int32_t s[4] = { (int32_t) dt_int(r, 1, 2), (int32_t) dt_int(r, 1, 4), (int32_t) dt_int(r, 1, 4),
                         (int32_t) dt_int(r, 1, 12) };
        int32_t radius = (int32_t) dt_int(r, 0, 6);
        double bias = DT_PICK(r, 0, 1, 2) + dt_unit(r), alpha = dt_unit(r) * 2, beta = dt_unit(r);
        if (bias == 0 && dt_chance(r, 0.9))
                bias = 1;
        int32_t a = dt_input(c, r, F, 4, s, 0, 0, NULL);
        int32_t o = dt_output(c, F, 4, s, 0, 0);
        if (a < 0 || o < 0)
                return -ENOMEM;
        c->accum = 2 * radius + 2;
        dt_desc(c, "shape=%dx%dx%dx%d radius=%d bias=%.9g alpha=%.9g beta=%.9g%s", s[0], s[1], s[2], s[3], radius,
                bias, alpha, beta, c->edges ? " edges" : "");
        tfb_option_t opt[] = { TFB_OPT_I32(0, radius), TFB_OPT_F32(1, bias), TFB_OPT_F32(2, alpha),
                               TFB_OPT_F32(3, beta) };
        return op_end(c, RT_BUILTIN_LOCAL_RESPONSE_NORMALIZATION, 1, TFB_IDS(a), 1, TFB_IDS(o), 1,
                      RT_OPTIONS_LOCAL_RESPONSE_NORMALIZATION, opt, 4);
}

static int gen_gather_batch(dt_case_t *c, dt_rng_t *r) {
        rt_type_t t = (rt_type_t) DT_PICK(r, F, I8, U8, I16, I32, I64, B);
        rt_type_t it = dt_chance(r, 0.6) ? I32 : I64;
        c->type_name = dt_type_name(t);
        int32_t s[6], rank = shape_draw(r, 1, 4, s, 0.0);
        int32_t bd = (int32_t) dt_int(r, 0, rank - 1);
        int32_t axis = (int32_t) dt_int(r, bd, rank - 1);
        int32_t is[6], irank = bd + (int32_t) dt_int(r, 0, 2);
        for (int32_t i = 0; i < irank; i++)
                is[i] = i < bd ? s[i] : (int32_t) dt_int(r, 1, 3);
        dt_fill_t fi = { .ilo = 0, .ihi = s[axis] - 1 };
        int32_t p = dt_input(c, r, t, rank, s, 0, 0, NULL);
        int32_t ix = dt_input(c, r, it, irank, is, 0, 0, &fi);
        if (s[axis] == 1)
                memset(c->in[1].data, 0, c->in[1].bytes);
        int32_t os[12], orank = 0;
        for (int32_t i = 0; i < axis; i++)
                os[orank++] = s[i];
        for (int32_t i = bd; i < irank; i++)
                os[orank++] = is[i];
        for (int32_t i = axis + 1; i < rank; i++)
                os[orank++] = s[i];
        if (orank > 6)
                return -ENOTSUP;
        int32_t o = dt_output(c, t, orank, os, 0, 0);
        if (p < 0 || ix < 0 || o < 0)
                return -ENOMEM;
        int32_t ax = dt_chance(r, 0.3) ? axis - rank : axis;
        int32_t b = dt_chance(r, 0.3) ? bd - irank : bd;
        dt_desc(c, "type=%s index=%s rank=%d axis=%d batch_dims=%d indices_rank=%d", dt_type_name(t),
                dt_type_name(it), rank, ax, b, irank);
        tfb_option_t opt[] = { TFB_OPT_I32(0, ax), TFB_OPT_I32(1, b) };
        return op_end(c, RT_BUILTIN_GATHER, t == I16 ? 6 : t == B ? 3 : it == I64 ? 4 : 2, TFB_IDS(p, ix), 2,
                      TFB_IDS(o), 1, RT_OPTIONS_GATHER, opt, 2);
}

const dt_gen_t dt_gens_misc[] = {
        { "FILL", gen_fill, 1 },
        { "RANGE", gen_range, 1 },
        { "SHAPE", gen_shape, 1 },
        { "RANK", gen_rank, 1 },
        { "RELU_0_TO_1", gen_relu_0_to_1, 1 },
        { "ATAN2", gen_atan2, 1 },
        { "BITWISE_XOR", gen_bitwise_xor, 1 },
        { "RIGHT_SHIFT", gen_right_shift, 1 },
        { "BUCKETIZE", gen_bucketize, 1 },
        { "ONE_HOT", gen_one_hot, 1 },
        { "TOPK_V2", gen_topk, 1 },
        { "WHERE", gen_where, 1 },
        { "UNIQUE", gen_unique, 1 },
        { "SCATTER_ND", gen_scatter_nd, 1 },
        { "SPARSE_TO_DENSE", gen_sparse_to_dense, 1 },
        { "DYNAMIC_UPDATE_SLICE", gen_dynamic_update_slice, 1 },
        { "BROADCAST_ARGS", gen_broadcast_args, 1 },
        { "SEGMENT_SUM", gen_segment_sum, 1 },
        { "UNSORTED_SEGMENT_SUM", gen_unsorted_segment_sum, 1 },
        { "UNSORTED_SEGMENT_PROD", gen_unsorted_segment_prod, 1 },
        { "UNSORTED_SEGMENT_MAX", gen_unsorted_segment_max, 1 },
        { "UNSORTED_SEGMENT_MIN", gen_unsorted_segment_min, 1 },
        { "MATRIX_DIAG", gen_matrix_diag, 1 },
        { "MATRIX_SET_DIAG", gen_matrix_set_diag, 1 },
        { "REVERSE_SEQUENCE", gen_reverse_sequence, 1 },
        { "FAKE_QUANT", gen_fake_quant, 1 },
        { "HASHTABLE_LOOKUP", gen_hashtable_lookup, 1 },
        { "EMBEDDING_LOOKUP", gen_embedding_lookup, 1 },
        { "EMBEDDING_LOOKUP_SPARSE", gen_embedding_lookup_sparse, 1 },
        { "LOCAL_RESPONSE_NORMALIZATION", gen_lrn, 1 },
        { "GATHER_BATCH_DIMS", gen_gather_batch, 1 },
};
const size_t dt_gens_misc_n = sizeof(dt_gens_misc) / sizeof(dt_gens_misc[0]);
