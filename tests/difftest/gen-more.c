/* SPDX-License-Identifier: Apache-2.0 */
/* Case generators for further builtins: comparisons, logical ops, SELECT_V2,
 * CAST, GATHER, SLICE, STRIDED_SLICE, SPLIT, PACK, ARG_MAX/ARG_MIN,
 * LOG_SOFTMAX, BATCH_MATMUL, TRANSPOSE_CONV, SPACE_TO_DEPTH, DEPTH_TO_SPACE,
 * TILE, PRELU, REDUCE_MIN, REDUCE_PROD, L2_NORMALIZATION, ADD_N, CUMSUM.
 * Where TFLite computes an output shape from the data, the declared shape
 * is only a placeholder: both runtimes resize it, and the comparison checks
 * the sizes they produce. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dt.h"

#define F RT_TYPE_FLOAT32
#define I8 RT_TYPE_INT8
#define U8 RT_TYPE_UINT8
#define I32 RT_TYPE_INT32
#define I16 RT_TYPE_INT16
#define I64 RT_TYPE_INT64
#define B RT_TYPE_BOOL

static int32_t shape_rand(dt_rng_t *r, int32_t lo, int32_t hi, int32_t *shape) {
        int32_t rank = (int32_t) dt_int(r, lo, hi);
        for (int32_t i = 0; i < rank; i++)
                shape[i] = dt_chance(r, 0.2) ? 1 : (int32_t) dt_int(r, 1, 5);
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

/* ---- comparisons and logical ops ---- */

static int gen_compare(dt_case_t *c, dt_rng_t *r, int32_t code) {
        rt_type_t t = (rt_type_t) DT_PICK(r, F, F, I8, U8, I32, I64);
        /* TFLite 2.9 takes bool for EQUAL and NOT_EQUAL only. */
        if ((code == RT_BUILTIN_EQUAL || code == RT_BUILTIN_NOT_EQUAL) && dt_chance(r, 0.15))
                t = B;
        c->type_name = dt_type_name(t);
        int32_t s[6], rank = shape_rand(r, 0, 4, s);
        int32_t sb[6], brank = dt_chance(r, 0.4) ? 0 : rank;
        memcpy(sb, s, sizeof(sb));
        float sa, sc;
        int32_t za, zc;
        quant_draw(r, t, &sa, &za);
        quant_draw(r, t, &sc, &zc);
        if (dt_chance(r, 0.5))
                sc = sa, zc = za; /* equal values happen more often */
        dt_fill_t f = { .lo = -2, .hi = 2, .ilo = -3, .ihi = 3 };
        int32_t a = dt_input(c, r, t, rank, s, sa, za, &f);
        int32_t b = dt_input(c, r, t, brank, sb, sc, zc, &f);
        if (t == F && dt_chance(r, 0.5)) /* round to make ties */
                for (int k = 0; k < 2; k++)
                        for (int64_t i = 0; i < dt_count(c->in[k].rank, c->in[k].shape); i++)
                                ((float *) c->in[k].data)[i] = roundf(((float *) c->in[k].data)[i] * 2) / 2;
        int32_t o = dt_output(c, B, rank, s, 0, 0);
        if (a < 0 || b < 0 || o < 0)
                return -ENOMEM;
        dt_desc(c, "type=%s rank=%d b_rank=%d sa=%g za=%d sb=%g zb=%d%s", dt_type_name(t), rank, brank, sa, za, sc,
                zc, c->edges ? " edges" : "");
        return op_end(c, code, t == F ? 1 : 2, TFB_IDS(a, b), 2, TFB_IDS(o), 1, 0, NULL, 0);
}

#define CMP(fn, CODE)                                          \
        static int fn(dt_case_t *c, dt_rng_t *r) {             \
                return gen_compare(c, r, RT_BUILTIN_##CODE);   \
        }
CMP(gen_less, LESS)
CMP(gen_less_equal, LESS_EQUAL)
CMP(gen_greater, GREATER)
CMP(gen_greater_equal, GREATER_EQUAL)
CMP(gen_equal, EQUAL)
CMP(gen_not_equal, NOT_EQUAL)

static int gen_logical(dt_case_t *c, dt_rng_t *r) {
        int32_t code = (int32_t) DT_PICK(r, RT_BUILTIN_LOGICAL_AND, RT_BUILTIN_LOGICAL_OR, RT_BUILTIN_LOGICAL_NOT);
        c->type_name = code == RT_BUILTIN_LOGICAL_AND ? "bool AND" : code == RT_BUILTIN_LOGICAL_OR ? "bool OR" : "bool NOT";
        int32_t s[6], rank = shape_rand(r, 0, 4, s);
        int32_t a = dt_input(c, r, B, rank, s, 0, 0, NULL);
        int32_t b = code == RT_BUILTIN_LOGICAL_NOT ? -1 : dt_input(c, r, B, dt_chance(r, 0.3) ? 0 : rank, s, 0, 0, NULL);
        int32_t o = dt_output(c, B, rank, s, 0, 0);
        if (a < 0 || o < 0)
                return -ENOMEM;
        dt_desc(c, "%s rank=%d", c->type_name, rank);
        return op_end(c, code, 1, TFB_IDS(a, b), code == RT_BUILTIN_LOGICAL_NOT ? 1 : 2, TFB_IDS(o), 1, 0, NULL, 0);
}

static int gen_select_v2(dt_case_t *c, dt_rng_t *r) {
        rt_type_t t = (rt_type_t) DT_PICK(r, F, I8, U8, I16, I32, I64, B);
        c->type_name = dt_type_name(t);
        int32_t s[6], rank = shape_rand(r, 1, 4, s);
        float q;
        int32_t zp;
        quant_draw(r, t, &q, &zp);
        int32_t cond = dt_input(c, r, B, dt_chance(r, 0.3) ? 0 : rank, s, 0, 0, NULL);
        int32_t x = dt_input(c, r, t, rank, s, q, zp, NULL);
        int32_t y = dt_input(c, r, t, dt_chance(r, 0.3) ? 0 : rank, s, q, zp, NULL);
        int32_t o = dt_output(c, t, rank, s, q, zp);
        if (cond < 0 || x < 0 || y < 0 || o < 0)
                return -ENOMEM;
        dt_desc(c, "type=%s rank=%d", dt_type_name(t), rank);
        return op_end(c, RT_BUILTIN_SELECT_V2, 1, TFB_IDS(cond, x, y), 3, TFB_IDS(o), 1, 0, NULL, 0);
}

static int gen_cast(dt_case_t *c, dt_rng_t *r) {
        static const rt_type_t from[] = { F, F, I32, I32, U8, B, I8, I64 };
        static const rt_type_t to[] = { I32, U8, F, I64, F, F, I32, F };
        /* Half the cases: one of the pairs above; the other half: any pair of
         * the types TFLite 2.9's CAST takes (float32, int8, uint8, int16,
         * int32, int64, bool). */
        static const rt_type_t all[] = { F, I8, U8, I16, I32, I64, B };
        rt_type_t ti, to_;
        if (dt_chance(r, 0.5)) {
                int k = (int) dt_int(r, 0, 7);
                ti = from[k], to_ = to[k];
        } else {
                ti = all[dt_int(r, 0, 6)];
                do
                        to_ = all[dt_int(r, 0, 6)];
                while (to_ == ti);
        }
        char name[40];
        snprintf(name, sizeof(name), "%s->%s", dt_type_name(ti), dt_type_name(to_));
        static const char *const names[] = { "float32->int32", "float32->uint8", "int32->float32", "int32->int64",
                                             "uint8->float32", "bool->float32", "int8->int32", "int64->float32" };
        c->type_name = NULL;
        for (int k = 0; k < 8; k++)
                if (from[k] == ti && to[k] == to_)
                        c->type_name = names[k];
        /* Other pairs: one matrix row per input type (the reproducer line
         * names the pair). */
        static const char *const any_names[] = { "float32->*", "int8->*", "uint8->*", "int16->*",
                                                 "int32->*", "int64->*", "bool->*" };
        for (int k = 0; !c->type_name && k < 7; k++)
                if (all[k] == ti)
                        c->type_name = any_names[k];
        int32_t s[6], rank = shape_rand(r, 0, 4, s);
        /* Float to integer: within the target's range (beyond it the C++ cast
         * is undefined). */
        dt_fill_t f = { .lo = -100, .hi = 300, .finite_max = 1e9 };
        if (ti == F && to_ != B && to_ != I32 && to_ != I64) {
                double lo = (double) dt_type_min(to_), hi = (double) dt_type_max(to_);
                f = (dt_fill_t) { .lo = lo, .hi = hi, .finite_max = hi < -lo ? hi : -lo };
                if (to_ == U8)
                        f.finite_max = 255;
        }
        int32_t a = dt_input(c, r, ti, rank, s, 0, 0, &f);
        int32_t o = dt_output(c, to_, rank, s, 0, 0);
        if (a < 0 || o < 0)
                return -ENOMEM;
        dt_desc(c, "%s rank=%d", name, rank);
        tfb_option_t opt[] = { TFB_OPT_I8(0, ti), TFB_OPT_I8(1, to_) };
        return op_end(c, RT_BUILTIN_CAST, 1, TFB_IDS(a), 1, TFB_IDS(o), 1, RT_OPTIONS_CAST, opt, 2);
}

/* ---- data movement ---- */

static rt_type_t move_type(dt_rng_t *r) {
        return (rt_type_t) DT_PICK(r, F, I8, U8, I32, I64, RT_TYPE_INT16);
}

/* GATHER, SLICE and STRIDED_SLICE take bool as well in TFLite 2.9 (SPLIT and
 * PACK do not). */
static rt_type_t move_type_b(dt_rng_t *r) {
        return dt_chance(r, 0.12) ? B : move_type(r);
}

static int gen_gather(dt_case_t *c, dt_rng_t *r) {
        rt_type_t t = move_type_b(r);
        c->type_name = dt_type_name(t);
        int32_t s[6], rank = shape_rand(r, 1, 4, s);
        int32_t axis = (int32_t) dt_int(r, 0, rank - 1);
        int32_t is[4], irank = shape_rand(r, 0, 2, is);
        dt_fill_t fi = { .ilo = 0, .ihi = s[axis] - 1 };
        if (fi.ihi == 0)
                fi.ilo = fi.ihi = 0, fi.ilo = 0, fi.ihi = 0;
        float q;
        int32_t zp;
        quant_draw(r, t, &q, &zp);
        int32_t p = dt_input(c, r, t, rank, s, q, zp, NULL);
        int32_t ix = dt_input(c, r, I32, irank, is, 0, 0, &fi);
        if (s[axis] == 1)
                memset(c->in[1].data, 0, c->in[1].bytes);
        int32_t os[8], orank = 0;
        for (int32_t i = 0; i < axis; i++)
                os[orank++] = s[i];
        for (int32_t i = 0; i < irank; i++)
                os[orank++] = is[i];
        for (int32_t i = axis + 1; i < rank; i++)
                os[orank++] = s[i];
        if (orank > 6)
                return -ENOTSUP;
        int32_t o = dt_output(c, t, orank, os, q, zp);
        if (p < 0 || ix < 0 || o < 0)
                return -ENOMEM;
        int32_t ax = dt_chance(r, 0.3) ? axis - rank : axis;
        dt_desc(c, "type=%s rank=%d axis=%d indices=%dD", dt_type_name(t), rank, ax, irank);
        tfb_option_t opt[] = { TFB_OPT_I32(0, ax) };
        return op_end(c, RT_BUILTIN_GATHER, 1, TFB_IDS(p, ix), 2, TFB_IDS(o), 1, RT_OPTIONS_GATHER, opt, 1);
}

static int gen_slice(dt_case_t *c, dt_rng_t *r) {
        rt_type_t t = move_type_b(r);
        c->type_name = dt_type_name(t);
        int32_t s[6], rank = shape_rand(r, 1, 4, s);
        int32_t begin[6], size[6], os[6];
        for (int32_t i = 0; i < rank; i++) {
                begin[i] = (int32_t) dt_int(r, 0, s[i] - 1);
                size[i] = dt_chance(r, 0.2) ? -1 : (int32_t) dt_int(r, 1, s[i] - begin[i]);
                os[i] = size[i] < 0 ? s[i] - begin[i] : size[i];
        }
        float q;
        int32_t zp;
        quant_draw(r, t, &q, &zp);
        int32_t a = dt_input(c, r, t, rank, s, q, zp, NULL);
        int32_t bt = dt_const_data(c, I32, 1, TFB_DIMS(rank), begin, 0, 0);
        int32_t st = dt_const_data(c, I32, 1, TFB_DIMS(rank), size, 0, 0);
        int32_t o = dt_output(c, t, rank, os, q, zp);
        if (a < 0 || bt < 0 || st < 0 || o < 0)
                return -ENOMEM;
        dt_desc(c, "type=%s rank=%d", dt_type_name(t), rank);
        return op_end(c, RT_BUILTIN_SLICE, 1, TFB_IDS(a, bt, st), 3, TFB_IDS(o), 1, 0, NULL, 0);
}

static int gen_strided_slice(dt_case_t *c, dt_rng_t *r) {
        rt_type_t t = move_type_b(r);
        c->type_name = dt_type_name(t);
        int32_t s[6], rank = shape_rand(r, 1, 4, s);
        int32_t begin[6], end[6], strides[6];
        for (int32_t i = 0; i < rank; i++) {
                begin[i] = (int32_t) dt_int(r, -s[i] - 1, s[i]);
                end[i] = (int32_t) dt_int(r, -s[i] - 1, s[i] + 1);
                strides[i] = (int32_t) DT_PICK(r, 1, 1, 2, 3, -1, -2);
        }
        int32_t bm = (int32_t) dt_int(r, 0, (1 << rank) - 1), em = (int32_t) dt_int(r, 0, (1 << rank) - 1);
        int32_t sm = dt_chance(r, 0.3) ? (int32_t) dt_int(r, 0, (1 << rank) - 1) : 0;
        /* A shrunk axis needs a valid begin (TFLite reads out of bounds
         * otherwise): one element at begin. */
        for (int32_t i = 0; i < rank; i++)
                if (sm & (1 << i)) {
                        begin[i] = (int32_t) dt_int(r, -s[i], s[i] - 1);
                        end[i] = begin[i] + 1;
                        strides[i] = 1;
                        bm &= ~(1 << i);
                        em &= ~(1 << i);
                }
        float q;
        int32_t zp;
        quant_draw(r, t, &q, &zp);
        int32_t a = dt_input(c, r, t, rank, s, q, zp, NULL);
        int32_t bt = dt_const_data(c, I32, 1, TFB_DIMS(rank), begin, 0, 0);
        int32_t et = dt_const_data(c, I32, 1, TFB_DIMS(rank), end, 0, 0);
        int32_t stt = dt_const_data(c, I32, 1, TFB_DIMS(rank), strides, 0, 0);
        int32_t o = dt_output(c, t, rank, s, q, zp); /* placeholder shape */
        if (a < 0 || bt < 0 || et < 0 || stt < 0 || o < 0)
                return -ENOMEM;
        dt_desc(c, "type=%s rank=%d begin_mask=%d end_mask=%d shrink_axis_mask=%d", dt_type_name(t), rank, bm, em, sm);
        tfb_option_t opt[] = { TFB_OPT_I32(0, bm), TFB_OPT_I32(1, em), TFB_OPT_I32(4, sm) };
        return op_end(c, RT_BUILTIN_STRIDED_SLICE, t == F ? 1 : 2, TFB_IDS(a, bt, et, stt), 4, TFB_IDS(o), 1,
                      RT_OPTIONS_STRIDED_SLICE, opt, 3);
}

static int gen_split(dt_case_t *c, dt_rng_t *r) {
        rt_type_t t = move_type(r);
        c->type_name = dt_type_name(t);
        int32_t s[6], rank = shape_rand(r, 1, 4, s);
        int32_t axis = (int32_t) dt_int(r, 0, rank - 1);
        int32_t n = (int32_t) dt_int(r, 1, 3);
        s[axis] = n * (int32_t) dt_int(r, 1, 3);
        float q;
        int32_t zp;
        quant_draw(r, t, &q, &zp);
        int32_t ax = dt_chance(r, 0.3) ? axis - rank : axis;
        int32_t at = dt_const_data(c, I32, 0, NULL, &ax, 0, 0);
        int32_t a = dt_input(c, r, t, rank, s, q, zp, NULL);
        int32_t os[6], outs[3];
        memcpy(os, s, sizeof(os));
        os[axis] = s[axis] / n;
        for (int32_t i = 0; i < n; i++)
                if ((outs[i] = dt_output(c, t, rank, os, q, zp)) < 0)
                        return -ENOMEM;
        if (a < 0 || at < 0)
                return -ENOMEM;
        dt_desc(c, "type=%s rank=%d axis=%d splits=%d", dt_type_name(t), rank, ax, n);
        tfb_option_t opt[] = { TFB_OPT_I32(0, n) };
        return op_end(c, RT_BUILTIN_SPLIT, 1, TFB_IDS(at, a), 2, outs, n, RT_OPTIONS_SPLIT, opt, 1);
}

static int gen_pack(dt_case_t *c, dt_rng_t *r) {
        rt_type_t t = move_type(r);
        c->type_name = dt_type_name(t);
        int32_t s[6], rank = shape_rand(r, 0, 3, s);
        int32_t n = (int32_t) dt_int(r, 1, 3), axis = (int32_t) dt_int(r, 0, rank);
        float q;
        int32_t zp;
        quant_draw(r, t, &q, &zp);
        int32_t ins[3];
        for (int32_t i = 0; i < n; i++)
                if ((ins[i] = dt_input(c, r, t, rank, s, q, zp, NULL)) < 0)
                        return -ENOMEM;
        int32_t os[6], orank = 0;
        for (int32_t i = 0; i <= rank; i++)
                os[orank++] = i == axis ? n : s[i < axis ? i : i - 1];
        int32_t o = dt_output(c, t, orank, os, q, zp);
        if (o < 0)
                return -ENOMEM;
        dt_desc(c, "type=%s rank=%d n=%d axis=%d", dt_type_name(t), rank, n, axis);
        tfb_option_t opt[] = { TFB_OPT_I32(0, n), TFB_OPT_I32(1, axis) };
        return op_end(c, RT_BUILTIN_PACK, 1, ins, n, TFB_IDS(o), 1, RT_OPTIONS_PACK, opt, 2);
}

static int gen_tile(dt_case_t *c, dt_rng_t *r) {
        rt_type_t t = (rt_type_t) DT_PICK(r, F, I8, U8, I32, I64, B); /* TFLite 2.9 TILE refuses int16 */
        c->type_name = dt_type_name(t);
        int32_t s[6], rank = shape_rand(r, 1, 4, s);
        int32_t m[6], os[6];
        for (int32_t i = 0; i < rank; i++) {
                m[i] = (int32_t) dt_int(r, 1, 3);
                os[i] = s[i] * m[i];
        }
        float q;
        int32_t zp;
        quant_draw(r, t, &q, &zp);
        int32_t a = dt_input(c, r, t, rank, s, q, zp, NULL);
        int32_t mt = dt_const_data(c, I32, 1, TFB_DIMS(rank), m, 0, 0);
        int32_t o = dt_output(c, t, rank, os, q, zp);
        if (a < 0 || mt < 0 || o < 0)
                return -ENOMEM;
        dt_desc(c, "type=%s rank=%d", dt_type_name(t), rank);
        return op_end(c, RT_BUILTIN_TILE, 1, TFB_IDS(a, mt), 2, TFB_IDS(o), 1, 0, NULL, 0);
}

static int gen_space_depth(dt_case_t *c, dt_rng_t *r, bool to_depth) {
        rt_type_t t = (rt_type_t) DT_PICK(r, F, I8, U8, I32, I64);
        c->type_name = dt_type_name(t);
        int32_t bs = (int32_t) dt_int(r, 2, 3);
        int32_t n = (int32_t) dt_int(r, 1, 2), h = (int32_t) dt_int(r, 1, 3), w = (int32_t) dt_int(r, 1, 3);
        int32_t ch = (int32_t) dt_int(r, 1, 3);
        int32_t in_s[4], out_s[4];
        if (to_depth) {
                int32_t a[4] = { n, h * bs, w * bs, ch }, b[4] = { n, h, w, ch * bs * bs };
                memcpy(in_s, a, sizeof(a)), memcpy(out_s, b, sizeof(b));
        } else {
                int32_t a[4] = { n, h, w, ch * bs * bs }, b[4] = { n, h * bs, w * bs, ch };
                memcpy(in_s, a, sizeof(a)), memcpy(out_s, b, sizeof(b));
        }
        float q;
        int32_t zp;
        quant_draw(r, t, &q, &zp);
        int32_t a = dt_input(c, r, t, 4, in_s, q, zp, NULL);
        int32_t o = dt_output(c, t, 4, out_s, q, zp);
        if (a < 0 || o < 0)
                return -ENOMEM;
        dt_desc(c, "type=%s block=%d", dt_type_name(t), bs);
        tfb_option_t opt[] = { TFB_OPT_I32(0, bs) };
        return op_end(c, to_depth ? RT_BUILTIN_SPACE_TO_DEPTH : RT_BUILTIN_DEPTH_TO_SPACE, 1, TFB_IDS(a), 1,
                      TFB_IDS(o), 1, to_depth ? RT_OPTIONS_SPACE_TO_DEPTH : RT_OPTIONS_DEPTH_TO_SPACE, opt, 1);
}

static int gen_space_to_depth(dt_case_t *c, dt_rng_t *r) {
        return gen_space_depth(c, r, true);
}

static int gen_depth_to_space(dt_case_t *c, dt_rng_t *r) {
        return gen_space_depth(c, r, false);
}

/* ---- reductions and normalizations ---- */

static int gen_arg(dt_case_t *c, dt_rng_t *r, int32_t code) {
        /* TFLite 2.9 takes bool too (not int16, int64). */
        rt_type_t t = (rt_type_t) DT_PICK(r, F, I8, U8, I32, B);
        rt_type_t ot = (rt_type_t) DT_PICK(r, I32, I64);
        c->type_name = dt_type_name(t);
        int32_t s[6], rank = shape_rand(r, 1, 4, s);
        int32_t axis = (int32_t) dt_int(r, 0, rank - 1);
        float q;
        int32_t zp;
        quant_draw(r, t, &q, &zp);
        dt_fill_t f = { .lo = -3, .hi = 3, .ilo = -4, .ihi = 4 };
        int32_t a = dt_input(c, r, t, rank, s, q, zp, &f);
        int32_t ax = dt_chance(r, 0.3) ? axis - rank : axis;
        int32_t at = dt_const_data(c, I32, 1, TFB_DIMS(1), &ax, 0, 0);
        int32_t os[6], orank = 0;
        for (int32_t i = 0; i < rank; i++)
                if (i != axis)
                        os[orank++] = s[i];
        int32_t o = dt_output(c, ot, orank, os, 0, 0);
        if (a < 0 || at < 0 || o < 0)
                return -ENOMEM;
        dt_desc(c, "type=%s rank=%d axis=%d out=%s", dt_type_name(t), rank, ax, dt_type_name(ot));
        tfb_option_t opt[] = { TFB_OPT_I8(0, ot) };
        return op_end(c, code, 2, TFB_IDS(a, at), 2, TFB_IDS(o), 1,
                      code == RT_BUILTIN_ARG_MAX ? RT_OPTIONS_ARG_MAX : RT_OPTIONS_ARG_MIN, opt, 1);
}

static int gen_arg_max(dt_case_t *c, dt_rng_t *r) {
        return gen_arg(c, r, RT_BUILTIN_ARG_MAX);
}

static int gen_arg_min(dt_case_t *c, dt_rng_t *r) {
        return gen_arg(c, r, RT_BUILTIN_ARG_MIN);
}

static int gen_log_softmax(dt_case_t *c, dt_rng_t *r) {
        rt_type_t t = (rt_type_t) DT_PICK(r, F, F, I8, U8);
        dt_chain_draw(c, r, t);
        int32_t s[6], rank = shape_rand(r, 1, 4, s);
        float si = 0, so = 0;
        int32_t zi = 0, zo = 0;
        if (t != F) {
                si = dt_scale(r, 1e-3, 0.3);
                zi = dt_zero_point(r, t);
                so = 16.0f / 256;
                zo = t == I8 ? 127 : 255;
        }
        dt_fill_t f = { .lo = -8, .hi = 8 };
        int32_t a = dt_qin(c, r, t, rank, s, si, zi, &f);
        int32_t o = dt_qout(c, t, rank, s, so, zo);
        if (a < 0 || o < 0)
                return -ENOMEM;
        c->accum = s[rank - 1] + 1;
        dt_desc(c, "type=%s rank=%d si=%g zi=%d", dt_type_name(t), rank, si, zi);
        return op_end(c, RT_BUILTIN_LOG_SOFTMAX, t == F ? 1 : 2, TFB_IDS(a), 1, TFB_IDS(o), 1, RT_OPTIONS_LOG_SOFTMAX,
                      NULL, 0);
}

static int gen_reduce2(dt_case_t *c, dt_rng_t *r, int32_t code) {
        /* TFLite 2.9: REDUCE_MIN takes float32, int8, uint8, int16, int32,
         * int64; REDUCE_PROD float32, int8, int16, int32, int64 (not uint8). */
        rt_type_t t = code == RT_BUILTIN_REDUCE_PROD ? (rt_type_t) DT_PICK(r, F, F, F, I8, I16, I32, I64)
                                                     : (rt_type_t) DT_PICK(r, F, I8, U8, I16, I32, I64);
        c->type_name = dt_type_name(t);
        int32_t s[6], rank = shape_rand(r, 1, 4, s);
        int32_t axis = (int32_t) dt_int(r, 0, rank - 1);
        bool keep = dt_chance(r, 0.5);
        float q;
        int32_t zp;
        quant_draw(r, t, &q, &zp);
        /* Integer products stay in range (axis sizes <= 5): 2^5. */
        dt_fill_t f = { .lo = -1.5, .hi = 1.5 };
        if (code == RT_BUILTIN_REDUCE_PROD && (t == I32 || t == I64))
                f.ilo = -2, f.ihi = 2;
        int32_t a = dt_input(c, r, t, rank, s, q, zp, &f);
        int32_t at = dt_const_data(c, I32, 1, TFB_DIMS(1), &axis, 0, 0);
        int32_t os[6], orank = 0;
        for (int32_t i = 0; i < rank; i++)
                if (i != axis)
                        os[orank++] = s[i];
                else if (keep)
                        os[orank++] = 1;
        int32_t o = dt_output(c, t, orank, os, q, zp);
        if (a < 0 || at < 0 || o < 0)
                return -ENOMEM;
        c->accum = s[axis];
        dt_desc(c, "type=%s rank=%d axis=%d keep_dims=%d", dt_type_name(t), rank, axis, keep);
        tfb_option_t opt[] = { TFB_OPT_BOOL(0, keep) };
        return op_end(c, code, t == F ? 1 : 2, TFB_IDS(a, at), 2, TFB_IDS(o), 1, RT_OPTIONS_REDUCER, opt, 1);
}

static int gen_reduce_min(dt_case_t *c, dt_rng_t *r) {
        return gen_reduce2(c, r, RT_BUILTIN_REDUCE_MIN);
}

static int gen_reduce_prod(dt_case_t *c, dt_rng_t *r) {
        return gen_reduce2(c, r, RT_BUILTIN_REDUCE_PROD);
}

static int gen_l2norm(dt_case_t *c, dt_rng_t *r) {
        rt_type_t t = (rt_type_t) DT_PICK(r, F, F, I8, U8);
        dt_chain_draw(c, r, t);
        int32_t s[6], rank = shape_rand(r, 1, 4, s);
        float si = 0, so = 0;
        int32_t zi = 0, zo = 0;
        if (t != F) {
                si = dt_scale(r, 1e-3, 1);
                zi = dt_zero_point(r, t);
                so = 1.0f / 128;
                zo = t == I8 ? 0 : 128;
        }
        int32_t a = dt_qin(c, r, t, rank, s, si, zi, NULL);
        int32_t o = dt_qout(c, t, rank, s, so, zo);
        if (a < 0 || o < 0)
                return -ENOMEM;
        c->accum = s[rank - 1] + 1;
        dt_desc(c, "type=%s rank=%d si=%g zi=%d%s", dt_type_name(t), rank, si, zi, c->edges ? " edges" : "");
        tfb_option_t opt[] = { TFB_OPT_I8(0, RT_ACT_NONE) };
        return op_end(c, RT_BUILTIN_L2_NORMALIZATION, t == F ? 1 : 2, TFB_IDS(a), 1, TFB_IDS(o), 1, RT_OPTIONS_L2_NORM,
                      opt, 1);
}

static int gen_add_n(dt_case_t *c, dt_rng_t *r) {
        rt_type_t t = (rt_type_t) DT_PICK(r, F, I32);
        c->type_name = dt_type_name(t);
        int32_t s[6], rank = shape_rand(r, 0, 4, s);
        int32_t n = (int32_t) dt_int(r, 1, 4), ins[4];
        dt_fill_t f = { .lo = -3, .hi = 3, .ilo = -1000, .ihi = 1000 };
        for (int32_t i = 0; i < n; i++)
                if ((ins[i] = dt_input(c, r, t, rank, s, 0, 0, &f)) < 0)
                        return -ENOMEM;
        int32_t o = dt_output(c, t, rank, s, 0, 0);
        if (o < 0)
                return -ENOMEM;
        c->accum = n;
        dt_desc(c, "type=%s rank=%d n=%d%s", dt_type_name(t), rank, n, c->edges ? " edges" : "");
        return op_end(c, RT_BUILTIN_ADD_N, 1, ins, n, TFB_IDS(o), 1, 0, NULL, 0);
}

static int gen_cumsum(dt_case_t *c, dt_rng_t *r) {
        rt_type_t t = (rt_type_t) DT_PICK(r, F, I32, I64);
        c->type_name = dt_type_name(t);
        int32_t s[6], rank = shape_rand(r, 1, 4, s);
        int32_t axis = (int32_t) dt_int(r, 0, rank - 1);
        bool excl = dt_chance(r, 0.5), rev = dt_chance(r, 0.5);
        dt_fill_t f = { .lo = -3, .hi = 3, .ilo = -1000, .ihi = 1000 };
        int32_t a = dt_input(c, r, t, rank, s, 0, 0, &f);
        int32_t at = dt_const_data(c, I32, 0, NULL, &axis, 0, 0);
        int32_t o = dt_output(c, t, rank, s, 0, 0);
        if (a < 0 || at < 0 || o < 0)
                return -ENOMEM;
        c->accum = s[axis];
        dt_desc(c, "type=%s rank=%d axis=%d exclusive=%d reverse=%d%s", dt_type_name(t), rank, axis, excl, rev,
                c->edges ? " edges" : "");
        tfb_option_t opt[] = { TFB_OPT_BOOL(0, excl), TFB_OPT_BOOL(1, rev) };
        return op_end(c, RT_BUILTIN_CUMSUM, 1, TFB_IDS(a, at), 2, TFB_IDS(o), 1, RT_OPTIONS_CUMSUM, opt, 2);
}

static int gen_prelu(dt_case_t *c, dt_rng_t *r) {
        rt_type_t t = (rt_type_t) DT_PICK(r, F, F, I8, U8);
        dt_chain_draw(c, r, t);
        int32_t s[6], rank = shape_rand(r, 1, 4, s);
        int32_t as[6], arank = dt_chance(r, 0.5) ? 1 : rank;
        for (int32_t i = 0; i < arank; i++)
                as[i] = dt_chance(r, 0.5) ? 1 : s[rank - arank + i];
        float si = 0, sa = 0, so = 0;
        int32_t zi = 0, za = 0, zo = 0;
        if (t != F) {
                si = dt_scale(r, 1e-3, 1), zi = dt_zero_point(r, t);
                sa = dt_scale(r, 1e-3, 0.1), za = dt_zero_point(r, t);
                so = (float) (si * exp(-1 + 2 * dt_unit(r))), zo = dt_zero_point(r, t);
        }
        int32_t a = dt_qin(c, r, t, rank, s, si, zi, NULL);
        int32_t al = dt_const(c, r, t, arank, as, sa, za, NULL);
        int32_t o = dt_qout(c, t, rank, s, so, zo);
        if (a < 0 || al < 0 || o < 0)
                return -ENOMEM;
        dt_desc(c, "type=%s rank=%d alpha=%dD si=%g zi=%d sa=%g za=%d so=%g zo=%d%s", dt_type_name(t), rank, arank, si,
                zi, sa, za, so, zo, c->edges ? " edges" : "");
        return op_end(c, RT_BUILTIN_PRELU, 1, TFB_IDS(a, al), 2, TFB_IDS(o), 1, 0, NULL, 0);
}

/* ---- matrix products ---- */

static int gen_batch_matmul(dt_case_t *c, dt_rng_t *r) {
        /* int16: both operands and the output with zero point 0 (TFLite 2.9). */
        rt_type_t t = (rt_type_t) DT_PICK(r, F, F, F, I8, I8, I16);
        c->type_name = dt_type_name(t);
        int32_t bsz = (int32_t) dt_int(r, 1, 3), m = (int32_t) dt_int(r, 1, 6), k = (int32_t) dt_int(r, 1, 8),
                n = (int32_t) dt_int(r, 1, 6);
        bool adj_x = dt_chance(r, 0.3), adj_y = dt_chance(r, 0.3);
        float sx = 0, sy = 0, so = 0;
        int32_t zx = 0, zo = 0;
        if (t != F) {
                double q = t == I16 ? 32768 : 128;
                sx = dt_scale(r, 1e-3, 0.5), zx = dt_zero_point(r, t);
                sy = dt_scale(r, 1e-3, 0.5);
                so = (float) (sx * sy * q * q * sqrt((double) k) / (q - 1) * exp(-1 + 2 * dt_unit(r)));
                zo = dt_zero_point(r, t);
        }
        int32_t xs[3] = { bsz, adj_x ? k : m, adj_x ? m : k }, ys[3] = { bsz, adj_y ? n : k, adj_y ? k : n };
        dt_fill_t f = { .lo = -1, .hi = 1, .finite_max = 1e6 };
        int32_t x = dt_input(c, r, t, 3, xs, sx, zx, &f);
        int32_t y = dt_input(c, r, t, 3, ys, sy, 0, &f);
        int32_t o = dt_output(c, t, 3, TFB_DIMS(bsz, m, n), so, zo);
        if (x < 0 || y < 0 || o < 0)
                return -ENOMEM;
        c->accum = k + 1;
        dt_desc(c, "type=%s b=%d m=%d k=%d n=%d adj_x=%d adj_y=%d sx=%g zx=%d sy=%g so=%g zo=%d%s", dt_type_name(t), bsz,
                m, k, n, adj_x, adj_y, sx, zx, sy, so, zo, c->edges ? " edges" : "");
        tfb_option_t opt[] = { TFB_OPT_BOOL(0, adj_x), TFB_OPT_BOOL(1, adj_y) };
        return op_end(c, RT_BUILTIN_BATCH_MATMUL, t == F ? 1 : t == I8 ? 2 : 3, TFB_IDS(x, y), 2, TFB_IDS(o), 1,
                      RT_OPTIONS_BATCH_MAT_MUL, opt, 2);
}

static int gen_transpose_conv(dt_case_t *c, dt_rng_t *r) {
        rt_type_t t = (rt_type_t) DT_PICK(r, F, F, F, I8, I8, I16);
        dt_chain_draw(c, r, t);
        int32_t n = 1, h = (int32_t) dt_int(r, 1, 5), w = (int32_t) dt_int(r, 1, 5), ci = (int32_t) dt_int(r, 1, 4),
                co = (int32_t) dt_int(r, 1, 4);
        int32_t kh = (int32_t) dt_int(r, 1, 3), kw = (int32_t) dt_int(r, 1, 3);
        int32_t sh = (int32_t) dt_int(r, 1, 2), sw = (int32_t) dt_int(r, 1, 2);
        bool same = dt_chance(r, 0.5);
        int32_t oh = same ? h * sh : (h - 1) * sh + kh, ow = same ? w * sw : (w - 1) * sw + kw;
        int32_t oshape[4] = { n, oh, ow, co };
        float si = 0, so = 0;
        int32_t zi = 0, zo = 0;
        int32_t wshape[4] = { co, kh, kw, ci };
        int64_t wn = dt_count(4, wshape);
        void *wd = malloc((size_t) wn * 4 + 4);
        if (!wd)
                return -ENOMEM;
        int32_t wt;
        if (t == F) {
                dt_fill_data(r, F, wd, wn, NULL, false, 0);
                wt = dt_const_data(c, F, 4, wshape, wd, 0, 0);
        } else {
                si = dt_scale(r, 1e-3, 1), zi = dt_zero_point(r, t);
                float scales[8];
                int64_t zps[8] = { 0 };
                for (int32_t i = 0; i < co; i++)
                        scales[i] = dt_scale(r, 1e-3, 0.05);
                dt_fill_data(r, I8, wd, wn, NULL, false, 0);
                for (int64_t i = 0; i < wn; i++)
                        if (((int8_t *) wd)[i] == -128)
                                ((int8_t *) wd)[i] = -127;
                wt = dt_const_channels(c, I8, 4, wshape, wd, scales, zps, co, 0);
                double q = t == I16 ? 32768 : 128;
                so = (float) (si * 0.05 * q * 128 * sqrt((double) (kh * kw * ci)) / (q - 1) *
                              exp(-1 + 2 * dt_unit(r)));
                zo = dt_zero_point(r, t);
        }
        free(wd);
        /* The optional bias: float32, int32 for int8, int64 for int16. */
        int32_t bt = -1;
        if (dt_chance(r, 0.4)) {
                rt_type_t btype = t == F ? F : t == I16 ? I64 : I32;
                dt_fill_t bf = { .lo = -1, .hi = 1, .ilo = -2000, .ihi = 2000 };
                bt = dt_const(c, r, btype, 1, TFB_DIMS(co), 0, 0, &bf);
                if (bt < 0)
                        return -ENOMEM;
        }
        dt_fill_t f = { .lo = -1, .hi = 1, .finite_max = 1e6 };
        int32_t os = dt_const_data(c, I32, 1, TFB_DIMS(4), oshape, 0, 0);
        int32_t in = dt_qin(c, r, t, 4, TFB_DIMS(n, h, w, ci), si, zi, &f);
        int32_t out = dt_qout(c, t, 4, oshape, so, zo);
        if (wt < 0 || os < 0 || in < 0 || out < 0)
                return -ENOMEM;
        c->accum = kh * kw * ci + 1;
        dt_desc(c, "type=%s in=%dx%dx%d out_c=%d k=%dx%d stride=%d,%d %s si=%g zi=%d so=%g zo=%d%s%s", dt_type_name(t),
                h, w, ci, co, kh, kw, sh, sw, same ? "SAME" : "VALID", si, zi, so, zo, bt >= 0 ? " bias" : "",
                c->edges ? " edges" : "");
        tfb_option_t opt[] = { TFB_OPT_I8(0, same ? RT_PADDING_SAME : RT_PADDING_VALID), TFB_OPT_I32(1, sw),
                               TFB_OPT_I32(2, sh) };
        if (bt >= 0)
                return op_end(c, RT_BUILTIN_TRANSPOSE_CONV, 3, TFB_IDS(os, wt, in, bt), 4, TFB_IDS(out), 1,
                              RT_OPTIONS_TRANSPOSE_CONV, opt, 3);
        return op_end(c, RT_BUILTIN_TRANSPOSE_CONV, t == F ? 1 : t == I8 ? 2 : 3, TFB_IDS(os, wt, in), 3, TFB_IDS(out), 1,
                      RT_OPTIONS_TRANSPOSE_CONV, opt, 3);
}

const dt_gen_t dt_gens_more[] = {
        { "LESS", gen_less, 1 },
        { "LESS_EQUAL", gen_less_equal, 1 },
        { "GREATER", gen_greater, 1 },
        { "GREATER_EQUAL", gen_greater_equal, 1 },
        { "EQUAL", gen_equal, 1 },
        { "NOT_EQUAL", gen_not_equal, 1 },
        { "LOGICAL", gen_logical, 1 },
        { "SELECT_V2", gen_select_v2, 1 },
        { "CAST", gen_cast, 2 },
        { "GATHER", gen_gather, 2 },
        { "SLICE", gen_slice, 2 },
        { "STRIDED_SLICE", gen_strided_slice, 3 },
        { "SPLIT", gen_split, 2 },
        { "PACK", gen_pack, 2 },
        { "TILE", gen_tile, 1 },
        { "SPACE_TO_DEPTH", gen_space_to_depth, 1 },
        { "DEPTH_TO_SPACE", gen_depth_to_space, 1 },
        { "ARG_MAX", gen_arg_max, 2 },
        { "ARG_MIN", gen_arg_min, 1 },
        { "LOG_SOFTMAX", gen_log_softmax, 2 },
        { "REDUCE_MIN", gen_reduce_min, 1 },
        { "REDUCE_PROD", gen_reduce_prod, 1 },
        { "L2_NORMALIZATION", gen_l2norm, 2 },
        { "ADD_N", gen_add_n, 1 },
        { "CUMSUM", gen_cumsum, 1 },
        { "PRELU", gen_prelu, 2 },
        { "BATCH_MATMUL", gen_batch_matmul, 3 },
        { "TRANSPOSE_CONV", gen_transpose_conv, 3 },
};
const size_t dt_gens_more_n = sizeof(dt_gens_more) / sizeof(dt_gens_more[0]);
