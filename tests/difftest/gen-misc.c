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
#include "flexbuild.h"

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

static int32_t string_const(dt_case_t *c, int32_t rank, const int32_t *shape, const char *const *strs, int32_t n);

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
        bool str = dt_count(rank, s) <= 64 && dt_chance(r, 0.1); /* a constant string tensor */
        const char *strs[64];
        for (int i = 0; i < 64; i++)
                strs[i] = i % 3 ? "x" : "";
        int32_t a = str ? string_const(c, rank, s, strs, (int32_t) dt_count(rank, s))
                        : dt_input(c, r, t, rank, s, 0, 0, NULL);
        if (str && dt_input(c, r, F, 1, TFB_DIMS(1), 0, 0, NULL) < 0) /* a graph needs an input */
                return -ENOMEM;
        int32_t o = dt_output(c, ot, 1, TFB_DIMS(rank), 0, 0);
        if (a < 0 || o < 0)
                return -ENOMEM;
        dt_desc(c, "in=%s out=%s rank=%d", str ? "string" : dt_type_name(t), dt_type_name(ot), rank);
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
        bool bad = false; /* incompatible shapes abort TFLite 2.9 */
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
        /* SEGMENT_SUM: TFLite wants ids from 0 rising by 0 or 1; a few
         * cases break that (TFLite refuses them). */
        for (int32_t i = 0; sorted && i < n_ids; i++)
                ids[i] = i == 0 ? (dt_chance(r, 0.95) ? 0 : 1)
                                : ids[i - 1] + (dt_chance(r, 0.03) ? 2 : (int64_t) dt_int(r, 0, 1));
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

/* ---- FAKE_QUANT, HASHTABLE_LOOKUP, EMBEDDING_LOOKUP_SPARSE, LRN, GATHER batch_dims ---- */

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
        /* TFLite 2.9 runs with subnormals flushed: a tiny weight makes
         * value * w zero there before the MEAN/SQRTN division restores it
         * here. Tiny weights are not drawn (see NOTES-h-misc.md). */
        for (int32_t i = 0; w >= 0 && i < n; i++)
                if (fabsf(((float *) c->in[c->n_in - 1].data)[i]) < 1e-18f && ((float *) c->in[c->n_in - 1].data)[i] != 0)
                        ((float *) c->in[c->n_in - 1].data)[i] = 0.5f;
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

/* ---- NON_MAX_SUPPRESSION_V4 / V5 ---- */

static int gen_nms(dt_case_t *c, dt_rng_t *r, bool v5) {
        c->type_name = "float32";
        int32_t n = (int32_t) dt_int(r, 0, 12);
        int32_t max_out = (int32_t) dt_int(r, 0, 8);
        bool grid = dt_chance(r, 0.4); /* boxes on a coarse grid: exact overlaps and equal scores */
        float *boxes = calloc((size_t) n * 4 + 1, sizeof(float)), *scores = calloc((size_t) n + 1, sizeof(float));
        if (!boxes || !scores) {
                free(boxes), free(scores);
                return -ENOMEM;
        }
        for (int32_t i = 0; i < n; i++) {
                for (int k = 0; k < 2; k++) {
                        float a = grid ? (float) dt_int(r, 0, 3) : (float) dt_unit(r) * 4;
                        float b = a + (grid ? (float) dt_int(r, 0, 2) : (float) dt_unit(r) * 2);
                        if (dt_chance(r, 0.2)) { /* corners in the other order */
                                float t = a;
                                a = b, b = t;
                        }
                        boxes[i * 4 + k] = a, boxes[i * 4 + k + 2] = b;
                }
                scores[i] = grid ? (float) dt_int(r, 0, 4) / 4 : (float) dt_unit(r);
                if (c->edges && dt_chance(r, 0.15)) /* NaN, infinite or negative scores; degenerate boxes */
                        scores[i] = (float) DT_PICK(r, 0, 1, 2, 3) == 0 ? NAN : dt_chance(r, 0.5) ? INFINITY : -1;
                if (c->edges && dt_chance(r, 0.1))
                        boxes[i * 4 + dt_int(r, 0, 3)] = dt_chance(r, 0.5) ? NAN : INFINITY;
        }
        float iou = (float) DT_PICK(r, 0, 1, 2, 3, 4) / 4 + (dt_chance(r, 0.5) ? (float) dt_unit(r) * 0.2f : 0);
        float sthr = dt_chance(r, 0.3) ? -INFINITY : (float) DT_PICK(r, 0, 1, 2) / 4;
        if (dt_chance(r, 0.1))
                sthr = (float) dt_unit(r) - 0.5f;
        float sigma = v5 && dt_chance(r, 0.5) ? (float) dt_unit(r) * 1.5f : 0;
        dt_rng_t dummy = { 0 };
        int32_t bt = dt_input(c, &dummy, F, 2, TFB_DIMS(n, 4), 0, 0, NULL);
        if (bt >= 0)
                memcpy(c->in[c->n_in - 1].data, boxes, (size_t) n * 16);
        int32_t st = dt_input(c, &dummy, F, 1, TFB_DIMS(n), 0, 0, NULL);
        if (st >= 0)
                memcpy(c->in[c->n_in - 1].data, scores, (size_t) n * 4);
        free(boxes), free(scores);
        bool dyn = dt_chance(r, 0.3);
        int32_t mt = ints_tensor(c, I32, (const int64_t[]) { max_out }, 1, dyn, 0);
        int32_t it = dt_const_data(c, F, 0, NULL, &iou, 0, 0);
        int32_t tt = dt_const_data(c, F, 0, NULL, &sthr, 0, 0);
        int32_t gt = v5 ? dt_const_data(c, F, 0, NULL, &sigma, 0, 0) : 0;
        int32_t oi = dt_output(c, I32, 1, TFB_DIMS(max_out), 0, 0);
        int32_t os = v5 ? dt_output(c, F, 1, TFB_DIMS(max_out), 0, 0) : 0;
        int32_t ov = dt_output(c, I32, 0, NULL, 0, 0);
        if (bt < 0 || st < 0 || mt < 0 || it < 0 || tt < 0 || gt < 0 || oi < 0 || os < 0 || ov < 0)
                return -ENOMEM;
        dt_desc(c, "n=%d max_output=%d iou=%.9g score_threshold=%.9g sigma=%.9g%s %s%s", n, max_out, iou, sthr, sigma,
                grid ? " grid" : "", dyn ? "dynamic" : "const", c->edges ? " edges" : "");
        if (v5)
                return op_end(c, RT_BUILTIN_NON_MAX_SUPPRESSION_V5, 1, TFB_IDS(bt, st, mt, it, tt, gt), 6,
                              TFB_IDS(oi, os, ov), 3, RT_OPTIONS_NON_MAX_SUPPRESSION_V5, NULL, 0);
        return op_end(c, RT_BUILTIN_NON_MAX_SUPPRESSION_V4, 1, TFB_IDS(bt, st, mt, it, tt), 5, TFB_IDS(oi, ov), 2,
                      RT_OPTIONS_NON_MAX_SUPPRESSION_V4, NULL, 0);
}

static int gen_nms_v4(dt_case_t *c, dt_rng_t *r) {
        return gen_nms(c, r, false);
}

static int gen_nms_v5(dt_case_t *c, dt_rng_t *r) {
        return gen_nms(c, r, true);
}

/* ---- TFLite_Detection_PostProcess (custom op) ---- */

/* SSD post-processing: box encodings [1, n, 4] decoded against anchors
 * [n, 4] with the y/x/h/w scales, then fast NMS (each box's best classes)
 * or regular NMS (per class, then the best across classes). float32, or
 * uint8 with every input dequantized. Outputs as TFLite's Prepare sizes
 * them: boxes [1, N, 4], classes [1, N], scores [1, N], count [1] with
 * N = max_detections * max_classes_per_detection. */
static int gen_detection_postprocess(dt_case_t *c, dt_rng_t *r) {
        rt_type_t t = dt_chance(r, 0.3) ? U8 : F;
        c->type_name = dt_type_name(t);
        int32_t n = (int32_t) dt_int(r, 1, 24);
        int32_t classes = (int32_t) dt_int(r, 1, 5);
        int32_t offset = (int32_t) dt_int(r, 0, 1); /* a background class in front */
        int32_t max_det = (int32_t) dt_int(r, 1, 8);
        int32_t max_cls = (int32_t) dt_int(r, 1, classes < 3 ? classes : 3);
        int32_t per_class = (int32_t) dt_int(r, 1, 8);
        bool regular = dt_chance(r, 0.5);
        double score_thr = dt_chance(r, 0.2) ? 0 : dt_unit(r) * 0.6;
        double iou = 0.2 + dt_unit(r) * 0.8;
        double ys = (double) DT_PICK(r, 1, 5, 10), xs = (double) DT_PICK(r, 1, 5, 10);
        double hs = (double) DT_PICK(r, 1, 2, 5), ws = (double) DT_PICK(r, 1, 2, 5);
        bool grid = dt_chance(r, 0.3); /* anchors and scores on a coarse grid: exact overlaps, equal scores */

        /* Keys in the order a FlexBuffers map keeps them (sorted). */
        const fx_entry_t opts[] = {
                { "detections_per_class", 'i', per_class },
                { "h_scale", 'f', hs },
                { "max_classes_per_detection", 'i', max_cls },
                { "max_detections", 'i', max_det },
                { "nms_iou_threshold", 'f', iou },
                { "nms_score_threshold", 'f', score_thr },
                { "num_classes", 'i', classes },
                { "use_regular_nms", 'b', regular },
                { "w_scale", 'f', ws },
                { "x_scale", 'f', xs },
                { "y_scale", 'f', ys },
        };
        uint8_t flex[4096];
        size_t flex_size = fx_build_map(flex, opts, sizeof(opts) / sizeof(opts[0]), dt_chance(r, 0.5) ? 8 : 4);

        float enc[24 * 4], scores[24 * 6], anchors[24 * 4];
        for (int32_t i = 0; i < n; i++) {
                for (int k = 0; k < 4; k++)
                        enc[i * 4 + k] = (float) (dt_unit(r) * 4 - 2);
                float cy = grid ? (float) dt_int(r, 1, 3) / 4 : (float) dt_unit(r);
                float cx = grid ? (float) dt_int(r, 1, 3) / 4 : (float) dt_unit(r);
                float h = grid ? 0.5f : (float) (0.05 + dt_unit(r) * 0.45);
                float w = grid ? 0.5f : (float) (0.05 + dt_unit(r) * 0.45);
                anchors[i * 4 + 0] = cy, anchors[i * 4 + 1] = cx, anchors[i * 4 + 2] = h, anchors[i * 4 + 3] = w;
                if (grid)
                        enc[i * 4 + 0] = enc[i * 4 + 1] = enc[i * 4 + 2] = enc[i * 4 + 3] = 0;
                for (int32_t k = 0; k < classes + offset; k++)
                        scores[i * (classes + offset) + k] = grid ? (float) dt_int(r, 0, 4) / 4 : (float) dt_unit(r);
        }
        /* uint8: the values drawn become quantized bytes of fixed ranges. */
        float enc_scale = 4.0f / 255, score_scale = 1.0f / 255, anchor_scale = 1.0f / 255;
        int32_t enc_zp = 128, score_zp = 0, anchor_zp = 0;
        uint8_t qenc[24 * 4], qscores[24 * 6], qanchors[24 * 4];
        for (int32_t i = 0; i < n * 4; i++) {
                qenc[i] = (uint8_t) fmin(255, fmax(0, lrintf(enc[i] / enc_scale) + enc_zp));
                qanchors[i] = (uint8_t) fmin(255, fmax(0, lrintf(anchors[i] / anchor_scale) + anchor_zp));
        }
        for (int32_t i = 0; i < n * (classes + offset); i++)
                qscores[i] = (uint8_t) fmin(255, fmax(0, lrintf(scores[i] / score_scale) + score_zp));
        bool q = t == U8;

        dt_rng_t dummy = { 0 };
        int32_t et = dt_input(c, &dummy, t, 3, TFB_DIMS(1, n, 4), q ? enc_scale : 0, q ? enc_zp : 0, NULL);
        if (et >= 0)
                memcpy(c->in[c->n_in - 1].data, q ? (const void *) qenc : (const void *) enc,
                       (size_t) n * 4 * (q ? 1 : 4));
        int32_t st = dt_input(c, &dummy, t, 3, TFB_DIMS(1, n, classes + offset), q ? score_scale : 0,
                              q ? score_zp : 0, NULL);
        if (st >= 0)
                memcpy(c->in[c->n_in - 1].data, q ? (const void *) qscores : (const void *) scores,
                       (size_t) (n * (classes + offset)) * (q ? 1 : 4));
        int32_t at = dt_const_data(c, t, 2, TFB_DIMS(n, 4), q ? (const void *) qanchors : (const void *) anchors,
                                   q ? anchor_scale : 0, q ? anchor_zp : 0);
        int32_t slots = max_det * max_cls;
        int32_t ob = dt_output(c, F, 3, TFB_DIMS(1, slots, 4), 0, 0);
        int32_t oc = dt_output(c, F, 2, TFB_DIMS(1, slots), 0, 0);
        int32_t os = dt_output(c, F, 2, TFB_DIMS(1, slots), 0, 0);
        int32_t on = dt_output(c, F, 1, TFB_DIMS(1), 0, 0);
        if (et < 0 || st < 0 || at < 0 || ob < 0 || oc < 0 || os < 0 || on < 0)
                return -ENOMEM;
        /* TFLite writes only the first count rows of boxes, classes and scores. */
        for (int o = 0; o < 3; o++)
                c->counted_by[o] = 4, c->counted_row[o] = o == 0 ? 4 : 1;
        dt_desc(c, "type=%s boxes=%d classes=%d+%d max_detections=%d max_classes=%d per_class=%d %s "
                "score_threshold=%.6g iou=%.6g scales=%g,%g,%g,%g%s", dt_type_name(t), n, classes, offset, max_det,
                max_cls, per_class, regular ? "regular" : "fast", score_thr, iou, ys, xs, hs, ws,
                grid ? " grid" : "");
        return dt_op_custom(c, "TFLite_Detection_PostProcess", TFB_IDS(et, st, at), 3, TFB_IDS(ob, oc, os, on), 4,
                            flex, flex_size) < 0 ? -ENOMEM : 0;
}

/* ---- resource variables, CALL_ONCE ---- */

static int32_t var_handle(dt_case_t *c, const char *container, const char *name) {
        int32_t h = dt_tensor(c, RT_TYPE_RESOURCE, 0, NULL, 0, 0);
        if (h < 0)
                return h;
        tfb_option_t opt[] = { TFB_OPT_STRING(0, container), TFB_OPT_STRING(1, name) };
        int32_t ret = dt_op(c, RT_BUILTIN_VAR_HANDLE, 1, NULL, 0, TFB_IDS(h), 1, RT_OPTIONS_VAR_HANDLE, opt, 2);
        return ret < 0 ? ret : h;
}

/* x -> VAR_HANDLE / ASSIGN_VARIABLE -> READ_VARIABLE -> y, with a second
 * handle to the same or another variable, a second assignment, and
 * sometimes a read of a variable never assigned. */
static int gen_variables(dt_case_t *c, dt_rng_t *r) {
        rt_type_t t = (rt_type_t) DT_PICK(r, F, F, I32, I64, I8, U8, B, I16);
        c->type_name = dt_type_name(t);
        int32_t s[6], rank = shape_draw(r, 0, 4, s, 0.05);
        int32_t x = dt_input(c, r, t, rank, s, 0, 0, NULL);
        int32_t x2 = -1, s2[6], rank2 = rank;
        memcpy(s2, s, sizeof(s2));
        int mode = (int) dt_int(r, 0, 3); /* 0 one var, 1 same name twice, 2 two vars, 3 reassign other shape */
        if (mode == 3)
                rank2 = shape_draw(r, 0, 3, s2, 0.05);
        if (mode >= 1)
                x2 = dt_input(c, r, t, rank2, s2, 0, 0, NULL);
        bool unassigned = dt_chance(r, 0.05);
        bool box = dt_chance(r, 0.5);
        int32_t h1 = var_handle(c, box ? "box" : "", "v");
        int32_t h2 = mode == 2 ? var_handle(c, "", "w") : mode >= 1 ? var_handle(c, "", "v") : h1;
        if (x < 0 || (mode >= 1 && x2 < 0) || h1 < 0 || h2 < 0)
                return -ENOMEM;
        if (!unassigned && dt_op(c, RT_BUILTIN_ASSIGN_VARIABLE, 1, TFB_IDS(h1, x), 2, NULL, 0,
                                 RT_OPTIONS_ASSIGN_VARIABLE, NULL, 0) < 0)
                return -ENOMEM;
        if (mode >= 1 && dt_op(c, RT_BUILTIN_ASSIGN_VARIABLE, 1, TFB_IDS(h2, x2), 2, NULL, 0,
                               RT_OPTIONS_ASSIGN_VARIABLE, NULL, 0) < 0)
                return -ENOMEM;
        /* The shape of the value read: TFLite 2.9 returns READ_VARIABLE's
         * output in its declared shape (and overruns it when the variable is
         * larger), so the model declares the shape it will read. */
        bool reads_x2 = (mode == 1 || mode == 3) && !box;
        int32_t y1 = dt_output(c, t, reads_x2 ? rank2 : rank, reads_x2 ? s2 : s, 0, 0);
        int32_t y2 = mode == 2 ? dt_output(c, t, rank2, s2, 0, 0) : 0;
        if (y1 < 0 || y2 < 0)
                return -ENOMEM;
        if (dt_op(c, RT_BUILTIN_READ_VARIABLE, 1, TFB_IDS(h1), 1, TFB_IDS(y1), 1, RT_OPTIONS_READ_VARIABLE, NULL,
                  0) < 0)
                return -ENOMEM;
        if (mode == 2 && dt_op(c, RT_BUILTIN_READ_VARIABLE, 1, TFB_IDS(h2), 1, TFB_IDS(y2), 1,
                               RT_OPTIONS_READ_VARIABLE, NULL, 0) < 0)
                return -ENOMEM;
        dt_desc(c, "type=%s rank=%d mode=%d%s%s", dt_type_name(t), rank, mode, box ? " container=box" : "",
                unassigned ? " unassigned" : "");
        return 0;
}

/* CALL_ONCE runs a subgraph that assigns a constant to a variable; the main
 * graph reads it, adds the input, and (sometimes) assigns the sum back. */
static int gen_call_once(dt_case_t *c, dt_rng_t *r) {
        rt_type_t t = (rt_type_t) DT_PICK(r, F, I32, I64);
        c->type_name = dt_type_name(t);
        int32_t s[6], rank = shape_draw(r, 0, 3, s, 0.05);
        int32_t x = dt_input(c, r, t, rank, s, 0, 0, NULL);
        int32_t y = dt_output(c, t, rank, s, 0, 0);
        if (x < 0 || y < 0)
                return -ENOMEM;
        int32_t sg = tfb_subgraph_add(c->b, "init");
        if (sg < 0)
                return -ENOMEM;
        dt_fill_t f = { .lo = -3, .hi = 3, .ilo = -9, .ihi = 9 };
        int32_t k = dt_const(c, r, t, rank, s, 0, 0, &f);
        int32_t hi = var_handle(c, "", "state");
        if (k < 0 || hi < 0 || dt_op(c, RT_BUILTIN_ASSIGN_VARIABLE, 1, TFB_IDS(hi, k), 2, NULL, 0,
                                     RT_OPTIONS_ASSIGN_VARIABLE, NULL, 0) < 0)
                return -ENOMEM;
        if (tfb_io(c->b, NULL, 0, NULL, 0) < 0 || tfb_subgraph_select(c->b, 0) < 0)
                return -ENOMEM;
        tfb_option_t opt[] = { TFB_OPT_I32(0, sg) };
        if (dt_op(c, RT_BUILTIN_CALL_ONCE, 1, NULL, 0, NULL, 0, RT_OPTIONS_CALL_ONCE, opt, 1) < 0)
                return -ENOMEM;
        int32_t h = var_handle(c, "", "state");
        int32_t v = dt_tensor(c, t, rank, s, 0, 0);
        if (h < 0 || v < 0 || dt_op(c, RT_BUILTIN_READ_VARIABLE, 1, TFB_IDS(h), 1, TFB_IDS(v), 1,
                                    RT_OPTIONS_READ_VARIABLE, NULL, 0) < 0)
                return -ENOMEM;
        tfb_option_t act[] = { TFB_OPT_I8(0, RT_ACT_NONE) };
        if (dt_op(c, RT_BUILTIN_ADD, 1, TFB_IDS(v, x), 2, TFB_IDS(y), 1, RT_OPTIONS_ADD, act, 1) < 0)
                return -ENOMEM;
        bool twice = dt_chance(r, 0.5);
        if (twice) { /* a second CALL_ONCE of the same subgraph is a no-op */
                if (dt_op(c, RT_BUILTIN_CALL_ONCE, 1, NULL, 0, NULL, 0, RT_OPTIONS_CALL_ONCE, opt, 1) < 0)
                        return -ENOMEM;
        }
        dt_desc(c, "type=%s rank=%d%s", dt_type_name(t), rank, twice ? " twice" : "");
        return 0;
}

/* ---- IF, WHILE ---- */

/* A subgraph computing out = op(a, b) over tensors of type t, shape s. */
static int32_t binary_subgraph(dt_case_t *c, const char *name, int32_t code, rt_type_t t, int32_t rank,
                               const int32_t *s) {
        int32_t sg = tfb_subgraph_add(c->b, name);
        if (sg < 0)
                return sg;
        int32_t a = dt_tensor(c, t, rank, s, 0, 0), b = dt_tensor(c, t, rank, s, 0, 0);
        int32_t o = dt_tensor(c, t, rank, s, 0, 0);
        if (a < 0 || b < 0 || o < 0)
                return -ENOMEM;
        int ret;
        if (code == RT_BUILTIN_ADD || code == RT_BUILTIN_SUB || code == RT_BUILTIN_MUL) {
                tfb_option_t act[] = { TFB_OPT_I8(0, RT_ACT_NONE) };
                uint8_t ot = code == RT_BUILTIN_ADD ? RT_OPTIONS_ADD : code == RT_BUILTIN_SUB ? RT_OPTIONS_SUB
                                                                                              : RT_OPTIONS_MUL;
                ret = dt_op(c, code, 1, TFB_IDS(a, b), 2, TFB_IDS(o), 1, ot, act, 1);
        } else if (code == RT_BUILTIN_CONCATENATION) { /* the branch's output shape differs */
                tfb_option_t cat[] = { TFB_OPT_I32(0, rank - 1), TFB_OPT_I8(1, RT_ACT_NONE) };
                ret = dt_op(c, code, 1, TFB_IDS(a, b), 2, TFB_IDS(o), 1, RT_OPTIONS_CONCATENATION, cat, 2);
        } else {
                ret = dt_op(c, code, 1, TFB_IDS(a, b), 2, TFB_IDS(o), 1, 0, NULL, 0);
        }
        if (ret < 0 || tfb_io(c->b, TFB_IDS(a, b), 2, TFB_IDS(o), 1) < 0)
                return -ENOMEM;
        return sg;
}

static int gen_if(dt_case_t *c, dt_rng_t *r) {
        rt_type_t t = (rt_type_t) DT_PICK(r, F, F, I32, I64);
        c->type_name = dt_type_name(t);
        int32_t s[6], rank = shape_draw(r, 0, 4, s, 0.05);
        int32_t cond_rank = dt_chance(r, 0.1) ? 1 : 0;
        int32_t cnd = dt_input(c, r, B, cond_rank, TFB_DIMS(1), 0, 0, NULL);
        int32_t a = dt_input(c, r, t, rank, s, 0, 0, NULL);
        int32_t b = dt_input(c, r, t, rank, s, 0, 0, NULL);
        int32_t o = dt_output(c, t, rank, s, 0, 0);
        if (cnd < 0 || a < 0 || b < 0 || o < 0)
                return -ENOMEM;
        static const int32_t codes[] = { RT_BUILTIN_ADD, RT_BUILTIN_SUB, RT_BUILTIN_MUL, RT_BUILTIN_MAXIMUM,
                                         RT_BUILTIN_MINIMUM, RT_BUILTIN_CONCATENATION };
        int32_t ct = codes[dt_int(r, 0, rank > 0 ? 5 : 4)], ce = codes[dt_int(r, 0, rank > 0 ? 5 : 4)];
        int32_t st = binary_subgraph(c, "then", ct, t, rank, s);
        int32_t se = binary_subgraph(c, "else", ce, t, rank, s);
        if (st < 0 || se < 0 || tfb_subgraph_select(c->b, 0) < 0)
                return -ENOMEM;
        dt_desc(c, "type=%s rank=%d cond_rank=%d then=%d else=%d", dt_type_name(t), rank, cond_rank, ct, ce);
        tfb_option_t opt[] = { TFB_OPT_I32(0, st), TFB_OPT_I32(1, se) };
        return op_end(c, RT_BUILTIN_IF, 1, TFB_IDS(cnd, a, b), 3, TFB_IDS(o), 1, RT_OPTIONS_IF, opt, 2);
}

/* WHILE (i < n): i += 1; acc = op(acc, x). Loop variables (i, n, acc, x);
 * n is a graph input, so the trip count (0..6) comes from the data. */
static int gen_while(dt_case_t *c, dt_rng_t *r) {
        rt_type_t t = (rt_type_t) DT_PICK(r, F, F, I32, I64);
        c->type_name = dt_type_name(t);
        int32_t s[6], rank = shape_draw(r, 0, 3, s, 0.05);
        dt_fill_t fi = { .ilo = 0, .ihi = 6 }, fi0 = { .ilo = -2, .ihi = 2 };
        int32_t i0 = dt_input(c, r, I32, 0, NULL, 0, 0, &fi0);
        int32_t n0 = dt_input(c, r, I32, 0, NULL, 0, 0, &fi);
        dt_fill_t fx = { .lo = -2, .hi = 2, .ilo = -5, .ihi = 5 };
        int32_t acc0 = dt_input(c, r, t, rank, s, 0, 0, &fx);
        int32_t x0 = dt_input(c, r, t, rank, s, 0, 0, &fx);
        int32_t oi = dt_output(c, I32, 0, NULL, 0, 0);
        int32_t on = dt_output(c, I32, 0, NULL, 0, 0);
        int32_t oacc = dt_output(c, t, rank, s, 0, 0);
        int32_t ox = dt_output(c, t, rank, s, 0, 0);
        if (i0 < 0 || n0 < 0 || acc0 < 0 || x0 < 0 || oi < 0 || on < 0 || oacc < 0 || ox < 0)
                return -ENOMEM;
        /* cond */
        int32_t sc = tfb_subgraph_add(c->b, "cond");
        int32_t ci = dt_tensor(c, I32, 0, NULL, 0, 0), cn = dt_tensor(c, I32, 0, NULL, 0, 0);
        int32_t ca = dt_tensor(c, t, rank, s, 0, 0), cx = dt_tensor(c, t, rank, s, 0, 0);
        int32_t cb = dt_tensor(c, B, 0, NULL, 0, 0);
        if (sc < 0 || ci < 0 || cn < 0 || ca < 0 || cx < 0 || cb < 0 ||
            dt_op(c, RT_BUILTIN_LESS, 1, TFB_IDS(ci, cn), 2, TFB_IDS(cb), 1, 0, NULL, 0) < 0 ||
            tfb_io(c->b, TFB_IDS(ci, cn, ca, cx), 4, TFB_IDS(cb), 1) < 0)
                return -ENOMEM;
        /* body */
        /* CONCATENATION grows acc by x every iteration: loop variables whose
         * shape changes between iterations. */
        static const int32_t codes[] = { RT_BUILTIN_ADD, RT_BUILTIN_SUB, RT_BUILTIN_MUL, RT_BUILTIN_CONCATENATION };
        int32_t code = codes[dt_int(r, 0, rank > 0 ? 3 : 2)];
        int32_t sb = tfb_subgraph_add(c->b, "body");
        int32_t bi = dt_tensor(c, I32, 0, NULL, 0, 0), bn = dt_tensor(c, I32, 0, NULL, 0, 0);
        int32_t ba = dt_tensor(c, t, rank, s, 0, 0), bx = dt_tensor(c, t, rank, s, 0, 0);
        int32_t one = 1;
        int32_t k1 = dt_const_data(c, I32, 0, NULL, &one, 0, 0);
        int32_t bi2 = dt_tensor(c, I32, 0, NULL, 0, 0), ba2 = dt_tensor(c, t, rank, s, 0, 0);
        tfb_option_t act[] = { TFB_OPT_I8(0, RT_ACT_NONE) };
        uint8_t ot = code == RT_BUILTIN_ADD ? RT_OPTIONS_ADD : code == RT_BUILTIN_SUB ? RT_OPTIONS_SUB : RT_OPTIONS_MUL;
        tfb_option_t cat[] = { TFB_OPT_I32(0, 0), TFB_OPT_I8(1, RT_ACT_NONE) };
        if (code == RT_BUILTIN_CONCATENATION)
                ot = RT_OPTIONS_CONCATENATION;
        if (sb < 0 || bi < 0 || bn < 0 || ba < 0 || bx < 0 || k1 < 0 || bi2 < 0 || ba2 < 0 ||
            dt_op(c, RT_BUILTIN_ADD, 1, TFB_IDS(bi, k1), 2, TFB_IDS(bi2), 1, RT_OPTIONS_ADD, act, 1) < 0 ||
            dt_op(c, code, 1, TFB_IDS(ba, bx), 2, TFB_IDS(ba2), 1, ot, code == RT_BUILTIN_CONCATENATION ? cat : act,
                  code == RT_BUILTIN_CONCATENATION ? 2 : 1) < 0 ||
            tfb_io(c->b, TFB_IDS(bi, bn, ba, bx), 4, TFB_IDS(bi2, bn, ba2, bx), 4) < 0)
                return -ENOMEM;
        if (tfb_subgraph_select(c->b, 0) < 0)
                return -ENOMEM;
        c->accum = 6;
        dt_desc(c, "type=%s rank=%d body_op=%d", dt_type_name(t), rank, code);
        tfb_option_t opt[] = { TFB_OPT_I32(0, sc), TFB_OPT_I32(1, sb) };
        return op_end(c, RT_BUILTIN_WHILE, 1, TFB_IDS(i0, n0, acc0, x0), 4, TFB_IDS(oi, on, oacc, ox), 4,
                      RT_OPTIONS_WHILE, opt, 2);
}

/* A stateful loop: acc lives in a resource variable that the WHILE body
 * reads, combines with x and assigns back; the main graph assigns the
 * initial value before the loop and reads the result after it (an order
 * given by the op list only, no data dependency). */
static int gen_while_variable(dt_case_t *c, dt_rng_t *r) {
        rt_type_t t = (rt_type_t) DT_PICK(r, F, I32, I64);
        c->type_name = dt_type_name(t);
        int32_t s[6], rank = shape_draw(r, 0, 3, s, 0.05);
        dt_fill_t fi = { .ilo = 0, .ihi = 5 }, fx = { .lo = -2, .hi = 2, .ilo = -5, .ihi = 5 };
        int32_t n0 = dt_input(c, r, I32, 0, NULL, 0, 0, &fi);
        int32_t acc0 = dt_input(c, r, t, rank, s, 0, 0, &fx);
        int32_t x0 = dt_input(c, r, t, rank, s, 0, 0, &fx);
        int32_t zero = 0;
        int32_t i0 = dt_const_data(c, I32, 0, NULL, &zero, 0, 0);
        int32_t on = dt_tensor(c, I32, 0, NULL, 0, 0), ox = dt_tensor(c, t, rank, s, 0, 0);
        int32_t y = dt_output(c, t, rank, s, 0, 0);
        int32_t cnt = dt_output(c, I32, 0, NULL, 0, 0); /* the final i */
        if (n0 < 0 || acc0 < 0 || x0 < 0 || i0 < 0 || on < 0 || ox < 0 || y < 0 || cnt < 0)
                return -ENOMEM;
        int32_t h = var_handle(c, "", "acc");
        if (h < 0 || dt_op(c, RT_BUILTIN_ASSIGN_VARIABLE, 1, TFB_IDS(h, acc0), 2, NULL, 0, RT_OPTIONS_ASSIGN_VARIABLE,
                           NULL, 0) < 0)
                return -ENOMEM;
        int32_t code = dt_chance(r, 0.5) ? RT_BUILTIN_ADD : RT_BUILTIN_MUL;
        /* cond */
        int32_t sc = tfb_subgraph_add(c->b, "cond");
        int32_t ci = dt_tensor(c, I32, 0, NULL, 0, 0), cn = dt_tensor(c, I32, 0, NULL, 0, 0);
        int32_t cx = dt_tensor(c, t, rank, s, 0, 0), cb = dt_tensor(c, B, 0, NULL, 0, 0);
        if (sc < 0 || ci < 0 || cn < 0 || cx < 0 || cb < 0 ||
            dt_op(c, RT_BUILTIN_LESS, 1, TFB_IDS(ci, cn), 2, TFB_IDS(cb), 1, 0, NULL, 0) < 0 ||
            tfb_io(c->b, TFB_IDS(ci, cn, cx), 3, TFB_IDS(cb), 1) < 0)
                return -ENOMEM;
        /* body */
        int32_t sb = tfb_subgraph_add(c->b, "body");
        int32_t bi = dt_tensor(c, I32, 0, NULL, 0, 0), bn = dt_tensor(c, I32, 0, NULL, 0, 0);
        int32_t bx = dt_tensor(c, t, rank, s, 0, 0);
        int32_t one = 1;
        int32_t k1 = dt_const_data(c, I32, 0, NULL, &one, 0, 0);
        int32_t bi2 = dt_tensor(c, I32, 0, NULL, 0, 0);
        int32_t v = dt_tensor(c, t, rank, s, 0, 0), v2 = dt_tensor(c, t, rank, s, 0, 0);
        tfb_option_t act[] = { TFB_OPT_I8(0, RT_ACT_NONE) };
        int32_t bh = var_handle(c, "", "acc");
        if (sb < 0 || bi < 0 || bn < 0 || bx < 0 || k1 < 0 || bi2 < 0 || v < 0 || v2 < 0 || bh < 0 ||
            dt_op(c, RT_BUILTIN_ADD, 1, TFB_IDS(bi, k1), 2, TFB_IDS(bi2), 1, RT_OPTIONS_ADD, act, 1) < 0 ||
            dt_op(c, RT_BUILTIN_READ_VARIABLE, 1, TFB_IDS(bh), 1, TFB_IDS(v), 1, RT_OPTIONS_READ_VARIABLE, NULL, 0) < 0 ||
            dt_op(c, code, 1, TFB_IDS(v, bx), 2, TFB_IDS(v2), 1, code == RT_BUILTIN_ADD ? RT_OPTIONS_ADD : RT_OPTIONS_MUL,
                  act, 1) < 0 ||
            dt_op(c, RT_BUILTIN_ASSIGN_VARIABLE, 1, TFB_IDS(bh, v2), 2, NULL, 0, RT_OPTIONS_ASSIGN_VARIABLE, NULL,
                  0) < 0 ||
            tfb_io(c->b, TFB_IDS(bi, bn, bx), 3, TFB_IDS(bi2, bn, bx), 3) < 0)
                return -ENOMEM;
        if (tfb_subgraph_select(c->b, 0) < 0)
                return -ENOMEM;
        tfb_option_t opt[] = { TFB_OPT_I32(0, sc), TFB_OPT_I32(1, sb) };
        if (dt_op(c, RT_BUILTIN_WHILE, 1, TFB_IDS(i0, n0, x0), 3, TFB_IDS(cnt, on, ox), 3, RT_OPTIONS_WHILE, opt, 2) < 0)
                return -ENOMEM;
        int32_t h2 = var_handle(c, "", "acc");
        if (h2 < 0 || dt_op(c, RT_BUILTIN_READ_VARIABLE, 1, TFB_IDS(h2), 1, TFB_IDS(y), 1, RT_OPTIONS_READ_VARIABLE,
                            NULL, 0) < 0)
                return -ENOMEM;
        c->accum = 5;
        dt_desc(c, "type=%s rank=%d body_op=%d", dt_type_name(t), rank, code);
        return 0;
}

/* ---- RANDOM_UNIFORM, RANDOM_STANDARD_NORMAL, MULTINOMIAL ---- */

/* With a non-zero seed TFLite's random ops are deterministic (Philox keyed
 * by the seeds); both seeds zero draw a fresh seed, which is not drawn here. */
static int gen_random(dt_case_t *c, dt_rng_t *r) {
        int kind = (int) dt_int(r, 0, 2);
        int64_t seed = dt_chance(r, 0.2) ? 0 : dt_int(r, 1, 1000), seed2 = dt_chance(r, 0.3) ? 0 : dt_int(r, -5, 1000);
        if (seed == 0 && seed2 == 0)
                seed2 = 7;
        if (dt_chance(r, 0.05))
                seed = dt_int(r, INT32_MAX - 5, INT32_MAX) * 4096; /* above 32 bits */
        tfb_option_t opt[] = { TFB_OPT_I64(0, seed), TFB_OPT_I64(1, seed2) };
        if (kind < 2) {
                c->type_name = kind ? "RANDOM_STANDARD_NORMAL" : "RANDOM_UNIFORM";
                int32_t s[6], rank = shape_draw(r, 0, 4, s, 0.05);
                int64_t dims[6];
                for (int32_t i = 0; i < rank; i++)
                        dims[i] = s[i];
                rt_type_t st = dt_chance(r, 0.7) ? I32 : I64;
                bool dyn = dt_chance(r, 0.5);
                int32_t sh = ints_tensor(c, st, dims, rank, dyn, 1);
                int32_t o = dt_output(c, F, rank, s, 0, 0);
                if (sh < 0 || o < 0)
                        return -ENOMEM;
                dt_desc(c, "%s shape=%s rank=%d seed=%lld seed2=%lld %s", c->type_name, dt_type_name(st), rank,
                        (long long) seed, (long long) seed2, dyn ? "dynamic" : "const");
                return op_end(c, kind ? RT_BUILTIN_RANDOM_STANDARD_NORMAL : RT_BUILTIN_RANDOM_UNIFORM, 1, TFB_IDS(sh),
                              1, TFB_IDS(o), 1, RT_OPTIONS_RANDOM, opt, 2);
        }
        c->type_name = "MULTINOMIAL";
        int32_t batch = (int32_t) dt_int(r, 1, 3), classes = (int32_t) dt_int(r, 1, 6);
        int32_t ns = (int32_t) dt_int(r, 0, 8);
        rt_type_t ot = dt_chance(r, 0.5) ? I64 : I32;
        dt_fill_t f = { .lo = -3, .hi = 3 };
        int32_t lg = dt_input(c, r, F, 2, TFB_DIMS(batch, classes), 0, 0, &f);
        int32_t nt = ints_tensor(c, I32, (const int64_t[]) { ns }, 1, dt_chance(r, 0.5), 0);
        int32_t o = dt_output(c, ot, 2, TFB_DIMS(batch, ns), 0, 0);
        if (lg < 0 || nt < 0 || o < 0)
                return -ENOMEM;
        dt_desc(c, "MULTINOMIAL batch=%d classes=%d samples=%d out=%s seed=%lld seed2=%lld%s", batch, classes, ns,
                dt_type_name(ot), (long long) seed, (long long) seed2, c->edges ? " edges" : "");
        return op_end(c, RT_BUILTIN_MULTINOMIAL, 1, TFB_IDS(lg, nt), 2, TFB_IDS(o), 1, RT_OPTIONS_RANDOM, opt, 2);
}

/* ---- DENSIFY: a sparse constant (dense rows, CSR columns) densified,
 * then either output as is or added to an input. ---- */

static int gen_densify(dt_case_t *c, dt_rng_t *r) {
        rt_type_t t = (rt_type_t) DT_PICK(r, F, F, I8);
        c->type_name = dt_type_name(t);
        int32_t rows = (int32_t) dt_int(r, 1, 5), cols = (int32_t) dt_int(r, 1, 6);
        bool transposed = dt_chance(r, 0.3); /* traversal order [1, 0] */
        /* Block sparsity (br x bc blocks, block_map [0, 1], 4 dim metadata
         * entries: dense block rows, CSR block columns, dense br, dense bc). */
        bool block = !transposed && dt_chance(r, 0.4);
        int32_t br = block ? (int32_t) dt_int(r, 1, 2) : 1, bc = block ? (int32_t) DT_PICK(r, 1, 2, 4) : 1;
        if (block)
                rows = br * (int32_t) dt_int(r, 1, 3), cols = bc * (int32_t) dt_int(r, 1, 3);
        int32_t d0 = transposed ? cols : rows / br, d1 = transposed ? rows : cols / bc;
        int32_t seg[8], idx[64], nnz = 0, nv = 0;
        float vals[128];
        int8_t qvals[128];
        seg[0] = 0;
        for (int32_t i = 0; i < d0; i++) {
                for (int32_t j = 0; j < d1; j++)
                        if (dt_chance(r, 0.4)) {
                                idx[nnz++] = j;
                                for (int32_t k = 0; k < br * bc; k++, nv++) {
                                        vals[nv] = (float) (dt_unit(r) * 4 - 2);
                                        qvals[nv] = (int8_t) dt_int(r, -128, 127);
                                }
                        }
                seg[i + 1] = nnz;
        }
        int es = (int) DT_PICK(r, 1, 2, 4);
        uint8_t segb[8 * 4], idxb[64 * 4];
        for (int32_t i = 0; i <= d0; i++)
                for (int k = 0; k < es; k++)
                        segb[i * es + k] = (uint8_t) (seg[i] >> (8 * k));
        for (int32_t i = 0; i < nnz; i++)
                for (int k = 0; k < es; k++)
                        idxb[i * es + k] = (uint8_t) (idx[i] >> (8 * k));
        rt_dim_metadata_t dm[4] = {
                { .format = RT_DIM_DENSE, .dense_size = d0 },
                { .format = RT_DIM_SPARSE_CSR,
                  .array_segments = { .data = segb, .n = (uint32_t) d0 + 1, .elem_size = (uint8_t) es },
                  .array_indices = { .data = idxb, .n = (uint32_t) nnz, .elem_size = (uint8_t) es } },
                { .format = RT_DIM_DENSE, .dense_size = br },
                { .format = RT_DIM_DENSE, .dense_size = bc },
        };
        int32_t order[4] = { transposed ? 1 : 0, transposed ? 0 : 1, 2, 3 };
        int32_t bmap[2] = { 0, 1 };
        rt_sparsity_t sp = { .traversal_order = order, .n_traversal_order = block ? 4 : 2,
                             .block_map = block ? bmap : NULL, .n_block_map = block ? 2 : 0, .dim_metadata = dm,
                             .n_dim_metadata = block ? 4 : 2 };
        int32_t buf = tfb_buffer_add(c->b, t == F ? (const void *) vals : (const void *) qvals,
                                     (size_t) nv * dt_type_size(t));
        if (buf < 0)
                return -ENOMEM;
        float q = t == I8 ? dt_scale(r, 1e-2, 1) : 0;
        int64_t zp = 0;
        int32_t sparse = tfb_tensor_add(c->b, &(tfb_tensor_t) { .type = t, .rank = 2, .shape = TFB_DIMS(rows, cols),
                                                                 .buffer = (uint32_t) buf, .n_quant = q > 0 ? 1 : 0,
                                                                 .scale = &q, .zero_point = &zp, .sparsity = &sp });
        bool add = t == F && dt_chance(r, 0.5);
        int32_t dense = add ? dt_tensor(c, t, 2, TFB_DIMS(rows, cols), q, 0) : dt_output(c, t, 2, TFB_DIMS(rows, cols), q, 0);
        if (sparse < 0 || dense < 0)
                return -ENOMEM;
        if (dt_op(c, RT_BUILTIN_DENSIFY, 1, TFB_IDS(sparse), 1, TFB_IDS(dense), 1, RT_OPTIONS_DENSIFY, NULL, 0) < 0)
                return -ENOMEM;
        if (add) {
                int32_t x = dt_input(c, r, F, 2, TFB_DIMS(rows, cols), 0, 0, NULL);
                int32_t o = dt_output(c, F, 2, TFB_DIMS(rows, cols), 0, 0);
                tfb_option_t act[] = { TFB_OPT_I8(0, RT_ACT_NONE) };
                if (x < 0 || o < 0 || dt_op(c, RT_BUILTIN_ADD, 1, TFB_IDS(dense, x), 2, TFB_IDS(o), 1, RT_OPTIONS_ADD,
                                            act, 1) < 0)
                        return -ENOMEM;
        } else {
                /* A graph needs an input: a dummy one, unused. */
                if (dt_input(c, r, F, 1, TFB_DIMS(1), 0, 0, NULL) < 0)
                        return -ENOMEM;
        }
        dt_desc(c, "type=%s %dx%d block=%dx%d nnz=%d index_bytes=%d order=%s%s", dt_type_name(t), rows, cols, br, bc,
                nnz, es, transposed ? "1,0" : "0,1", add ? " +ADD" : "");
        return 0;
}

/* ---- HASHTABLE, HASHTABLE_IMPORT, HASHTABLE_FIND, HASHTABLE_SIZE ---- */

/* A constant string tensor in TFLite's layout: count, count + 1 offsets
 * from the buffer start, then the bytes. */
static int32_t string_const(dt_case_t *c, int32_t rank, const int32_t *shape, const char *const *strs, int32_t n) {
        size_t total = 4 * ((size_t) n + 2);
        for (int32_t i = 0; i < n; i++)
                total += strlen(strs[i]);
        uint8_t *buf = calloc(1, total);
        if (!buf)
                return -ENOMEM;
        int32_t v = n, off = 4 * (n + 2);
        memcpy(buf, &v, 4);
        for (int32_t i = 0; i < n; i++) {
                memcpy(buf + 4 * (i + 1), &off, 4);
                memcpy(buf + off, strs[i], strlen(strs[i]));
                off += (int32_t) strlen(strs[i]);
        }
        memcpy(buf + 4 * (n + 1), &off, 4);
        int32_t b = tfb_buffer_add(c->b, buf, total);
        free(buf);
        if (b < 0)
                return b;
        return tfb_tensor_add(c->b, &(tfb_tensor_t) { .type = RT_TYPE_STRING, .rank = rank, .shape = shape,
                                                       .buffer = (uint32_t) b });
}

static int gen_hashtable(dt_case_t *c, dt_rng_t *r) {
        static const char *const vocab[] = { "", "a", "b", "ab", "ba", "xyz", "hello world", "\xc3\xa9t\xc3\xa9" };
        bool skey = dt_chance(r, 0.5); /* string -> int64, else int64 -> string */
        c->type_name = skey ? "string->int64" : "int64->string";
        int32_t n = (int32_t) dt_int(r, 0, 6), nq = (int32_t) dt_int(r, 0, 6);
        bool find_early = dt_chance(r, 0.2), import_twice = dt_chance(r, 0.2);
        int32_t table_id = (int32_t) dt_int(r, 0, 3);
        const char *ks[8], *qs[8];
        for (int32_t i = 0; i < 8; i++)
                ks[i] = vocab[dt_int(r, 0, 7)], qs[i] = vocab[dt_int(r, 0, 7)];
        dt_fill_t fk = { .ilo = -3, .ihi = 4 };
        int32_t keys, vals, query, def, out_t;
        if (skey) {
                keys = string_const(c, 1, TFB_DIMS(n), ks, n);
                vals = dt_input(c, r, I64, 1, TFB_DIMS(n), 0, 0, NULL);
                query = string_const(c, 1, TFB_DIMS(nq), qs, nq);
                def = dt_input(c, r, I64, 0, NULL, 0, 0, NULL);
                out_t = I64;
        } else {
                keys = dt_input(c, r, I64, 1, TFB_DIMS(n), 0, 0, &fk);
                vals = string_const(c, 1, TFB_DIMS(n), ks, n);
                query = dt_input(c, r, I64, 1, TFB_DIMS(nq), 0, 0, &fk);
                def = string_const(c, 0, NULL, &qs[7], 1);
                out_t = RT_TYPE_STRING;
        }
        /* String results are not graph outputs (the harness compares
         * fixed-size elements): a second table maps them back to their
         * position in vocab, -1 for anything else. */
        int32_t h = dt_tensor(c, RT_TYPE_RESOURCE, 0, NULL, 0, 0);
        int32_t found = skey ? dt_output(c, out_t, 1, TFB_DIMS(nq), 0, 0) : dt_tensor(c, out_t, 1, TFB_DIMS(nq), 0, 0);
        int32_t size = dt_output(c, I64, 1, TFB_DIMS(1), 0, 0);
        int32_t early = !find_early ? 0 : skey ? dt_output(c, out_t, 1, TFB_DIMS(nq), 0, 0)
                                               : dt_tensor(c, out_t, 1, TFB_DIMS(nq), 0, 0);
        if (keys < 0 || vals < 0 || query < 0 || def < 0 || h < 0 || found < 0 || size < 0 || early < 0)
                return -ENOMEM;
        tfb_option_t opt[] = { TFB_OPT_I32(0, table_id), TFB_OPT_I8(1, skey ? RT_TYPE_STRING : I64),
                               TFB_OPT_I8(2, skey ? I64 : RT_TYPE_STRING) };
        if (dt_op(c, RT_BUILTIN_HASHTABLE, 1, NULL, 0, TFB_IDS(h), 1, RT_OPTIONS_HASHTABLE, opt, 3) < 0)
                return -ENOMEM;
        if (find_early && dt_op(c, RT_BUILTIN_HASHTABLE_FIND, 1, TFB_IDS(h, query, def), 3, TFB_IDS(early), 1,
                                RT_OPTIONS_HASHTABLE_FIND, NULL, 0) < 0)
                return -ENOMEM;
        for (int k = 0; k < (import_twice ? 2 : 1); k++)
                if (dt_op(c, RT_BUILTIN_HASHTABLE_IMPORT, 1, TFB_IDS(h, keys, vals), 3, NULL, 0,
                          RT_OPTIONS_HASHTABLE_IMPORT, NULL, 0) < 0)
                        return -ENOMEM;
        if (dt_op(c, RT_BUILTIN_HASHTABLE_FIND, 1, TFB_IDS(h, query, def), 3, TFB_IDS(found), 1,
                  RT_OPTIONS_HASHTABLE_FIND, NULL, 0) < 0 ||
            dt_op(c, RT_BUILTIN_HASHTABLE_SIZE, 1, TFB_IDS(h), 1, TFB_IDS(size), 1, RT_OPTIONS_HASHTABLE_SIZE, NULL,
                  0) < 0)
                return -ENOMEM;
        for (int k = 0; !skey && k < (find_early ? 2 : 1); k++) {
                int64_t pos[8] = { 0, 1, 2, 3, 4, 5, 6, 7 }, minus1 = -1;
                int32_t h2 = dt_tensor(c, RT_TYPE_RESOURCE, 0, NULL, 0, 0);
                int32_t vk = string_const(c, 1, TFB_DIMS(8), vocab, 8);
                int32_t vv = dt_const_data(c, I64, 1, TFB_DIMS(8), pos, 0, 0);
                int32_t vd = dt_const_data(c, I64, 0, NULL, &minus1, 0, 0);
                int32_t o = dt_output(c, I64, 1, TFB_DIMS(nq), 0, 0);
                tfb_option_t opt2[] = { TFB_OPT_I32(0, 100 + k), TFB_OPT_I8(1, RT_TYPE_STRING), TFB_OPT_I8(2, I64) };
                if (h2 < 0 || vk < 0 || vv < 0 || vd < 0 || o < 0 ||
                    dt_op(c, RT_BUILTIN_HASHTABLE, 1, NULL, 0, TFB_IDS(h2), 1, RT_OPTIONS_HASHTABLE, opt2, 3) < 0 ||
                    dt_op(c, RT_BUILTIN_HASHTABLE_IMPORT, 1, TFB_IDS(h2, vk, vv), 3, NULL, 0,
                          RT_OPTIONS_HASHTABLE_IMPORT, NULL, 0) < 0 ||
                    dt_op(c, RT_BUILTIN_HASHTABLE_FIND, 1, TFB_IDS(h2, k ? early : found, vd), 3, TFB_IDS(o), 1,
                          RT_OPTIONS_HASHTABLE_FIND, NULL, 0) < 0)
                        return -ENOMEM;
        }
        dt_desc(c, "%s n=%d queries=%d table_id=%d%s%s", c->type_name, n, nq, table_id,
                find_early ? " find_before_import" : "", import_twice ? " import_twice" : "");
        return 0;
}

/* SKIP_GRAM on a constant sentence; the grams (strings) are looked up in
 * a string->int64 table holding every 1- to 3-word sequence of the word
 * set, so that the output compared is their ids (-1: not a clean gram). */
static int gen_skip_gram(dt_case_t *c, dt_rng_t *r) {
        static const char *const words[] = { "a", "bb", "c", "dd" };
        c->type_name = "string";
        int32_t nw = (int32_t) dt_int(r, 0, 7);
        char sentence[128] = "";
        size_t len = 0;
        if (dt_chance(r, 0.1))
                sentence[len++] = ' ';
        for (int32_t i = 0; i < nw; i++) {
                const char *w = words[dt_int(r, 0, 3)];
                memcpy(sentence + len, w, strlen(w));
                len += strlen(w);
                if (i + 1 < nw || dt_chance(r, 0.1))
                        sentence[len++] = dt_chance(r, 0.1) ? '\t' : ' ';
                if (i + 1 < nw && dt_chance(r, 0.1))
                        sentence[len++] = ' ';
        }
        sentence[len] = '\0';
        int32_t ngram = (int32_t) dt_int(r, 1, 3), skip = (int32_t) dt_int(r, 0, 2);
        bool all = dt_chance(r, 0.5);
        const char *sp = sentence;
        int32_t in = string_const(c, 1, TFB_DIMS(1), &sp, 1);
        int32_t grams = dt_tensor(c, RT_TYPE_STRING, 1, TFB_DIMS(1), 0, 0);
        /* vocabulary: 4 + 16 + 64 sequences */
        static char store[84][12];
        const char *keys[84];
        int64_t ids[84];
        int32_t nk = 0;
        for (int32_t n = 1; n <= 3; n++) {
                int32_t total = n == 1 ? 4 : n == 2 ? 16 : 64;
                for (int32_t k = 0; k < total; k++) {
                        int32_t v = k;
                        size_t l = 0;
                        for (int32_t j = 0; j < n; j++) {
                                const char *w = words[v % 4];
                                v /= 4;
                                if (j)
                                        store[nk][l++] = ' ';
                                memcpy(&store[nk][l], w, strlen(w));
                                l += strlen(w);
                        }
                        store[nk][l] = '\0';
                        keys[nk] = store[nk];
                        ids[nk] = nk;
                        nk++;
                }
        }
        int64_t minus1 = -1;
        int32_t h = dt_tensor(c, RT_TYPE_RESOURCE, 0, NULL, 0, 0);
        int32_t kt = string_const(c, 1, TFB_DIMS(nk), keys, nk);
        int32_t vt = dt_const_data(c, I64, 1, TFB_DIMS(nk), ids, 0, 0);
        int32_t dt = dt_const_data(c, I64, 0, NULL, &minus1, 0, 0);
        int32_t o = dt_output(c, I64, 1, TFB_DIMS(1), 0, 0);
        /* A graph needs an input: a dummy one, unused. */
        int32_t dummy = dt_input(c, r, F, 1, TFB_DIMS(1), 0, 0, NULL);
        if (in < 0 || grams < 0 || h < 0 || kt < 0 || vt < 0 || dt < 0 || o < 0 || dummy < 0)
                return -ENOMEM;
        tfb_option_t opt[] = { TFB_OPT_I32(0, ngram), TFB_OPT_I32(1, skip), TFB_OPT_BOOL(2, all) };
        tfb_option_t hopt[] = { TFB_OPT_I32(0, 7), TFB_OPT_I8(1, RT_TYPE_STRING), TFB_OPT_I8(2, I64) };
        if (dt_op(c, RT_BUILTIN_SKIP_GRAM, 1, TFB_IDS(in), 1, TFB_IDS(grams), 1, RT_OPTIONS_SKIP_GRAM, opt, 3) < 0 ||
            dt_op(c, RT_BUILTIN_HASHTABLE, 1, NULL, 0, TFB_IDS(h), 1, RT_OPTIONS_HASHTABLE, hopt, 3) < 0 ||
            dt_op(c, RT_BUILTIN_HASHTABLE_IMPORT, 1, TFB_IDS(h, kt, vt), 3, NULL, 0, RT_OPTIONS_HASHTABLE_IMPORT,
                  NULL, 0) < 0 ||
            dt_op(c, RT_BUILTIN_HASHTABLE_FIND, 1, TFB_IDS(h, grams, dt), 3, TFB_IDS(o), 1,
                  RT_OPTIONS_HASHTABLE_FIND, NULL, 0) < 0)
                return -ENOMEM;
        dt_desc(c, "words=%d ngram=%d max_skip=%d all=%d sentence=\"%s\"", nw, ngram, skip, all, sentence);
        return 0;
}

/* FILL of a string scalar; the strings are mapped to ids by a
 * string->int64 table, so that the compared output is fixed-size. */
static int gen_fill_string(dt_case_t *c, dt_rng_t *r) {
        static const char *const vocab[] = { "", "a", "bb", "hello world" };
        c->type_name = "string";
        int32_t s[6], rank = shape_draw(r, 0, 3, s, 0.1);
        int64_t dims[6];
        for (int32_t i = 0; i < rank; i++)
                dims[i] = s[i];
        bool dyn = dt_chance(r, 0.5);
        int32_t k = (int32_t) dt_int(r, 0, 3);
        int32_t d = ints_tensor(c, dt_chance(r, 0.5) ? I32 : I64, dims, rank, dyn, 1);
        int32_t v = string_const(c, 0, NULL, &vocab[k], 1);
        int32_t f = dt_tensor(c, RT_TYPE_STRING, rank, s, 0, 0);
        int64_t ids[4] = { 0, 1, 2, 3 }, minus1 = -1;
        int32_t h = dt_tensor(c, RT_TYPE_RESOURCE, 0, NULL, 0, 0);
        int32_t kt = string_const(c, 1, TFB_DIMS(4), vocab, 4);
        int32_t vt = dt_const_data(c, I64, 1, TFB_DIMS(4), ids, 0, 0);
        int32_t dt = dt_const_data(c, I64, 0, NULL, &minus1, 0, 0);
        int32_t o = dt_output(c, I64, rank, s, 0, 0);
        if (!dyn && dt_input(c, r, F, 1, TFB_DIMS(1), 0, 0, NULL) < 0) /* a graph needs an input */
                return -ENOMEM;
        if (d < 0 || v < 0 || f < 0 || h < 0 || kt < 0 || vt < 0 || dt < 0 || o < 0)
                return -ENOMEM;
        tfb_option_t hopt[] = { TFB_OPT_I32(0, 5), TFB_OPT_I8(1, RT_TYPE_STRING), TFB_OPT_I8(2, I64) };
        if (dt_op(c, RT_BUILTIN_FILL, 3, TFB_IDS(d, v), 2, TFB_IDS(f), 1, 0, NULL, 0) < 0 ||
            dt_op(c, RT_BUILTIN_HASHTABLE, 1, NULL, 0, TFB_IDS(h), 1, RT_OPTIONS_HASHTABLE, hopt, 3) < 0 ||
            dt_op(c, RT_BUILTIN_HASHTABLE_IMPORT, 1, TFB_IDS(h, kt, vt), 3, NULL, 0, RT_OPTIONS_HASHTABLE_IMPORT,
                  NULL, 0) < 0 ||
            dt_op(c, RT_BUILTIN_HASHTABLE_FIND, 1, TFB_IDS(h, f, dt), 3, TFB_IDS(o), 1, RT_OPTIONS_HASHTABLE_FIND,
                  NULL, 0) < 0)
                return -ENOMEM;
        dt_desc(c, "rank=%d value=\"%s\" %s", rank, vocab[k], dyn ? "dynamic" : "const");
        return 0;
}

/* HASHTABLE_LOOKUP with string values; the strings found go through a
 * string->int64 table (a miss gives "", which is in the table too). */
static int gen_hashtable_lookup_string(dt_case_t *c, dt_rng_t *r) {
        static const char *const vocab[] = { "", "a", "bb", "ccc", "hello world", "z" };
        c->type_name = "string";
        int32_t nk = (int32_t) dt_int(r, 1, 6), nl = (int32_t) dt_int(r, 0, 8);
        int64_t keys[8];
        int64_t k = dt_int(r, -5, 0);
        const char *vals[8];
        for (int32_t i = 0; i < nk; i++) {
                keys[i] = k;
                k += dt_int(r, 1, 3);
                vals[i] = vocab[dt_int(r, 0, 5)];
        }
        dt_fill_t fl = { .ilo = -6, .ihi = 12 };
        int32_t lk = dt_input(c, r, I32, 1, TFB_DIMS(nl), 0, 0, &fl);
        int32_t kt = ints_tensor(c, I32, keys, nk, dt_chance(r, 0.3), 1);
        int32_t v = string_const(c, 1, TFB_DIMS(nk), vals, nk);
        int32_t found = dt_tensor(c, RT_TYPE_STRING, 1, TFB_DIMS(nl), 0, 0);
        int32_t hits = dt_output(c, U8, 1, TFB_DIMS(nl), 0, 0);
        int64_t ids[6] = { 0, 1, 2, 3, 4, 5 }, minus1 = -1;
        int32_t h = dt_tensor(c, RT_TYPE_RESOURCE, 0, NULL, 0, 0);
        int32_t vk = string_const(c, 1, TFB_DIMS(6), vocab, 6);
        int32_t vv = dt_const_data(c, I64, 1, TFB_DIMS(6), ids, 0, 0);
        int32_t vd = dt_const_data(c, I64, 0, NULL, &minus1, 0, 0);
        int32_t o = dt_output(c, I64, 1, TFB_DIMS(nl), 0, 0);
        if (lk < 0 || kt < 0 || v < 0 || found < 0 || hits < 0 || h < 0 || vk < 0 || vv < 0 || vd < 0 || o < 0)
                return -ENOMEM;
        tfb_option_t hopt[] = { TFB_OPT_I32(0, 3), TFB_OPT_I8(1, RT_TYPE_STRING), TFB_OPT_I8(2, I64) };
        if (dt_op(c, RT_BUILTIN_HASHTABLE_LOOKUP, 1, TFB_IDS(lk, kt, v), 3, TFB_IDS(found, hits), 2, 0, NULL, 0) < 0 ||
            dt_op(c, RT_BUILTIN_HASHTABLE, 1, NULL, 0, TFB_IDS(h), 1, RT_OPTIONS_HASHTABLE, hopt, 3) < 0 ||
            dt_op(c, RT_BUILTIN_HASHTABLE_IMPORT, 1, TFB_IDS(h, vk, vv), 3, NULL, 0, RT_OPTIONS_HASHTABLE_IMPORT,
                  NULL, 0) < 0 ||
            dt_op(c, RT_BUILTIN_HASHTABLE_FIND, 1, TFB_IDS(h, found, vd), 3, TFB_IDS(o), 1, RT_OPTIONS_HASHTABLE_FIND,
                  NULL, 0) < 0)
                return -ENOMEM;
        dt_desc(c, "keys=%d lookups=%d", nk, nl);
        return 0;
}

const dt_gen_t dt_gens_misc[] = {
        { "FILL", gen_fill, 1 },
        { "FILL_STRING", gen_fill_string, 1 },
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
        { "HASHTABLE_LOOKUP_STRING", gen_hashtable_lookup_string, 1 },
        { "EMBEDDING_LOOKUP_SPARSE", gen_embedding_lookup_sparse, 1 },
        { "LOCAL_RESPONSE_NORMALIZATION", gen_lrn, 1 },
        { "GATHER_BATCH_DIMS", gen_gather_batch, 1 },
        { "NON_MAX_SUPPRESSION_V4", gen_nms_v4, 1 },
        { "NON_MAX_SUPPRESSION_V5", gen_nms_v5, 1 },
        { "VARIABLES", gen_variables, 1 },
        { "CALL_ONCE", gen_call_once, 1 },
        { "IF", gen_if, 1 },
        { "WHILE", gen_while, 1 },
        { "WHILE_VARIABLE", gen_while_variable, 1 },
        { "RANDOM", gen_random, 1 },
        { "DENSIFY", gen_densify, 1 },
        { "HASHTABLE", gen_hashtable, 1 },
        { "SKIP_GRAM", gen_skip_gram, 1 },
        { "DETECTION_POSTPROCESS", gen_detection_postprocess, 1 },
};
const size_t dt_gens_misc_n = sizeof(dt_gens_misc) / sizeof(dt_gens_misc[0]);
