/* SPDX-License-Identifier: Apache-2.0 */
/* Case generators for data-movement and small builtins that had none:
 * SQUEEZE, EXPAND_DIMS, REVERSE_V2, SPACE_TO_BATCH_ND, BATCH_TO_SPACE_ND,
 * GATHER_ND, SPLIT_V, UNPACK, SIGN, ZEROS_LIKE, BROADCAST_TO, REDUCE_ANY,
 * REDUCE_ALL and SELECT. */
#include <errno.h>
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
                shape[i] = dt_chance(r, 0.25) ? 1 : (int32_t) dt_int(r, 1, 5);
        return rank;
}

static rt_type_t move_type(dt_rng_t *r) {
        return (rt_type_t) DT_PICK(r, F, F, I8, U8, I16, I32, I64, B);
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

/* A tensor of `t` with shape s passed through unchanged (same quantization
 * on both sides, as TFLite requires for these ops). */
typedef struct moved {
        rt_type_t t;
        float q;
        int32_t zp;
} moved_t;

static moved_t moved_draw(dt_case_t *c, dt_rng_t *r) {
        moved_t m = { .t = move_type(r) };
        quant_draw(r, m.t, &m.q, &m.zp);
        c->type_name = dt_type_name(m.t);
        return m;
}

/* ---- SQUEEZE, EXPAND_DIMS ---- */

static int gen_squeeze(dt_case_t *c, dt_rng_t *r) {
        moved_t m = moved_draw(c, r);
        int32_t s[6], rank = shape_rand(r, 1, 5, s);
        int32_t dims[6], nd = 0, os[6], orank = 0;
        bool all = dt_chance(r, 0.3);
        for (int32_t i = 0; i < rank; i++) {
                bool drop = s[i] == 1 && (all || dt_chance(r, 0.6));
                if (drop && !all)
                        dims[nd++] = dt_chance(r, 0.3) ? i - rank : i;
                if (!drop)
                        os[orank++] = s[i];
        }
        if (!all && nd == 0) {
                /* Nothing listed: TFLite then squeezes every 1. */
                orank = 0;
                for (int32_t i = 0; i < rank; i++)
                        if (s[i] != 1)
                                os[orank++] = s[i];
        }
        int32_t a = dt_input(c, r, m.t, rank, s, m.q, m.zp, NULL);
        int32_t o = dt_output(c, m.t, orank, os, m.q, m.zp);
        if (a < 0 || o < 0)
                return -ENOMEM;
        dt_desc(c, "type=%s rank=%d dims=%d", dt_type_name(m.t), rank, all ? -1 : nd);
        tfb_option_t opt[] = { TFB_OPT_VEC_I32(0, dims, (size_t) nd) };
        return op_end(c, RT_BUILTIN_SQUEEZE, 1, TFB_IDS(a), 1, TFB_IDS(o), 1, RT_OPTIONS_SQUEEZE, opt,
                      all || nd == 0 ? 0 : 1);
}

static int gen_expand_dims(dt_case_t *c, dt_rng_t *r) {
        moved_t m = moved_draw(c, r);
        int32_t s[6], rank = shape_rand(r, 0, 4, s);
        int32_t axis = (int32_t) dt_int(r, 0, rank);
        int32_t ax = dt_chance(r, 0.3) ? axis - rank - 1 : axis;
        int32_t os[6], orank = 0;
        for (int32_t i = 0; i <= rank; i++)
                os[orank++] = i == axis ? 1 : s[i < axis ? i : i - 1];
        int32_t a = dt_input(c, r, m.t, rank, s, m.q, m.zp, NULL);
        int32_t at = dt_const_data(c, I32, 0, NULL, &ax, 0, 0);
        int32_t o = dt_output(c, m.t, orank, os, m.q, m.zp);
        if (a < 0 || at < 0 || o < 0)
                return -ENOMEM;
        dt_desc(c, "type=%s rank=%d axis=%d", dt_type_name(m.t), rank, ax);
        return op_end(c, RT_BUILTIN_EXPAND_DIMS, 1, TFB_IDS(a, at), 2, TFB_IDS(o), 1, 0, NULL, 0);
}

/* ---- REVERSE_V2 ---- */

static int gen_reverse(dt_case_t *c, dt_rng_t *r) {
        rt_type_t t = (rt_type_t) DT_PICK(r, F, F, I8, U8, I16, I32, I64, B);
        float q;
        int32_t zp;
        quant_draw(r, t, &q, &zp);
        c->type_name = dt_type_name(t);
        int32_t s[6], rank = shape_rand(r, 1, 4, s);
        int32_t axis = (int32_t) dt_int(r, 0, rank - 1);
        int32_t a = dt_input(c, r, t, rank, s, q, zp, NULL);
        int32_t at = dt_const_data(c, I32, 1, TFB_DIMS(1), &axis, 0, 0);
        int32_t o = dt_output(c, t, rank, s, q, zp);
        if (a < 0 || at < 0 || o < 0)
                return -ENOMEM;
        dt_desc(c, "type=%s rank=%d axis=%d", dt_type_name(t), rank, axis);
        return op_end(c, RT_BUILTIN_REVERSE_V2, t == B ? 3 : (t == F || t == U8 || t == I32 || t == I64) ? 1 : 2,
                      TFB_IDS(a, at), 2, TFB_IDS(o), 1, 0, NULL, 0);
}

/* ---- SPACE_TO_BATCH_ND, BATCH_TO_SPACE_ND (4-D NHWC) ---- */

static int gen_space_to_batch(dt_case_t *c, dt_rng_t *r) {
        rt_type_t t = (rt_type_t) DT_PICK(r, F, F, I8, U8, I32, I64);
        float q;
        int32_t zp;
        quant_draw(r, t, &q, &zp);
        c->type_name = dt_type_name(t);
        int32_t bh = (int32_t) dt_int(r, 1, 3), bw = (int32_t) dt_int(r, 1, 3);
        int32_t pad[4];
        for (int i = 0; i < 4; i++)
                pad[i] = (int32_t) dt_int(r, 0, 2);
        int32_t n = (int32_t) dt_int(r, 1, 2), ch = (int32_t) dt_int(r, 1, 3);
        /* Padded sizes must divide by the block. */
        int32_t h = bh * (int32_t) dt_int(r, 1, 3) - pad[0] - pad[1];
        int32_t w = bw * (int32_t) dt_int(r, 1, 3) - pad[2] - pad[3];
        if (h < 1)
                pad[1] += 1 - h, h = 1;
        if (w < 1)
                pad[3] += 1 - w, w = 1;
        while ((h + pad[0] + pad[1]) % bh)
                pad[1]++;
        while ((w + pad[2] + pad[3]) % bw)
                pad[3]++;
        int32_t block[2] = { bh, bw };
        int32_t a = dt_input(c, r, t, 4, TFB_DIMS(n, h, w, ch), q, zp, NULL);
        int32_t bt = dt_const_data(c, I32, 1, TFB_DIMS(2), block, 0, 0);
        int32_t pt = dt_const_data(c, I32, 2, TFB_DIMS(2, 2), pad, 0, 0);
        int32_t o = dt_output(c, t, 4,
                              TFB_DIMS(n * bh * bw, (h + pad[0] + pad[1]) / bh, (w + pad[2] + pad[3]) / bw, ch), q,
                              zp);
        if (a < 0 || bt < 0 || pt < 0 || o < 0)
                return -ENOMEM;
        dt_desc(c, "type=%s in=[%d,%d,%d,%d] block=%dx%d", dt_type_name(t), n, h, w, ch, bh, bw);
        return op_end(c, RT_BUILTIN_SPACE_TO_BATCH_ND, t == F ? 1 : 2, TFB_IDS(a, bt, pt), 3, TFB_IDS(o), 1, 0, NULL,
                      0);
}

static int gen_batch_to_space(dt_case_t *c, dt_rng_t *r) {
        rt_type_t t = (rt_type_t) DT_PICK(r, F, F, I8, U8, I32, I64);
        float q;
        int32_t zp;
        quant_draw(r, t, &q, &zp);
        c->type_name = dt_type_name(t);
        int32_t bh = (int32_t) dt_int(r, 1, 3), bw = (int32_t) dt_int(r, 1, 3);
        int32_t n = (int32_t) dt_int(r, 1, 2), ch = (int32_t) dt_int(r, 1, 3);
        int32_t h = (int32_t) dt_int(r, 1, 3), w = (int32_t) dt_int(r, 1, 3);
        int32_t crop[4] = { 0, 0, 0, 0 };
        crop[0] = (int32_t) dt_int(r, 0, (h * bh - 1) / 2);
        crop[1] = (int32_t) dt_int(r, 0, (h * bh - 1) / 2);
        crop[2] = (int32_t) dt_int(r, 0, (w * bw - 1) / 2);
        crop[3] = (int32_t) dt_int(r, 0, (w * bw - 1) / 2);
        int32_t block[2] = { bh, bw };
        int32_t a = dt_input(c, r, t, 4, TFB_DIMS(n * bh * bw, h, w, ch), q, zp, NULL);
        int32_t bt = dt_const_data(c, I32, 1, TFB_DIMS(2), block, 0, 0);
        int32_t ct = dt_const_data(c, I32, 2, TFB_DIMS(2, 2), crop, 0, 0);
        int32_t o = dt_output(c, t, 4, TFB_DIMS(n, h * bh - crop[0] - crop[1], w * bw - crop[2] - crop[3], ch), q,
                              zp);
        if (a < 0 || bt < 0 || ct < 0 || o < 0)
                return -ENOMEM;
        dt_desc(c, "type=%s in=[%d,%d,%d,%d] block=%dx%d", dt_type_name(t), n * bh * bw, h, w, ch, bh, bw);
        return op_end(c, RT_BUILTIN_BATCH_TO_SPACE_ND, t == F ? 1 : 2, TFB_IDS(a, bt, ct), 3, TFB_IDS(o), 1, 0, NULL,
                      0);
}

/* ---- GATHER_ND ---- */

static int gen_gather_nd(dt_case_t *c, dt_rng_t *r) {
        rt_type_t t = (rt_type_t) DT_PICK(r, F, F, I8, U8, I16, I32, I64);
        float q;
        int32_t zp;
        quant_draw(r, t, &q, &zp);
        c->type_name = dt_type_name(t);
        int32_t s[6], rank = shape_rand(r, 1, 4, s);
        int32_t depth = (int32_t) dt_int(r, 1, rank);
        int32_t nidx = (int32_t) dt_int(r, 1, 4);
        int32_t idx[4 * 6];
        for (int32_t k = 0; k < nidx; k++)
                for (int32_t d = 0; d < depth; d++)
                        idx[k * depth + d] = (int32_t) dt_int(r, 0, s[d] - 1);
        int32_t os[6], orank = 0;
        os[orank++] = nidx;
        for (int32_t d = depth; d < rank; d++)
                os[orank++] = s[d];
        int32_t a = dt_input(c, r, t, rank, s, q, zp, NULL);
        int32_t it = dt_const_data(c, I32, 2, TFB_DIMS(nidx, depth), idx, 0, 0);
        int32_t o = dt_output(c, t, orank, os, q, zp);
        if (a < 0 || it < 0 || o < 0)
                return -ENOMEM;
        dt_desc(c, "type=%s rank=%d depth=%d n=%d", dt_type_name(t), rank, depth, nidx);
        return op_end(c, RT_BUILTIN_GATHER_ND, t == I8 ? 2 : t == I64 ? 3 : 1, TFB_IDS(a, it), 2, TFB_IDS(o), 1, 0,
                      NULL, 0);
}

/* ---- SPLIT_V, UNPACK ---- */

static int gen_split_v(dt_case_t *c, dt_rng_t *r) {
        moved_t m = moved_draw(c, r);
        if (m.t == B || m.t == I64)
                m.t = F, m.q = 0, m.zp = 0, c->type_name = dt_type_name(F);
        int32_t s[6], rank = shape_rand(r, 1, 4, s);
        int32_t axis = (int32_t) dt_int(r, 0, rank - 1);
        int32_t n = (int32_t) dt_int(r, 1, 3), sizes[3], total = 0;
        for (int32_t i = 0; i < n; i++)
                total += sizes[i] = (int32_t) dt_int(r, 0, 3);
        if (total == 0)
                total = sizes[0] = 1;
        s[axis] = total;
        int32_t unknown = n > 1 && dt_chance(r, 0.3) ? (int32_t) dt_int(r, 0, n - 1) : -1;
        int32_t spec[3];
        memcpy(spec, sizes, sizeof(spec));
        if (unknown >= 0)
                spec[unknown] = -1;
        int32_t ax = dt_chance(r, 0.3) ? axis - rank : axis;
        int32_t a = dt_input(c, r, m.t, rank, s, m.q, m.zp, NULL);
        int32_t st = dt_const_data(c, I32, 1, TFB_DIMS(n), spec, 0, 0);
        int32_t at = dt_const_data(c, I32, 0, NULL, &ax, 0, 0);
        int32_t outs[3];
        for (int32_t i = 0; i < n; i++) {
                int32_t os[6];
                memcpy(os, s, sizeof(os));
                os[axis] = sizes[i];
                if ((outs[i] = dt_output(c, m.t, rank, os, m.q, m.zp)) < 0)
                        return -ENOMEM;
        }
        if (a < 0 || st < 0 || at < 0)
                return -ENOMEM;
        dt_desc(c, "type=%s rank=%d axis=%d splits=%d", dt_type_name(m.t), rank, ax, n);
        tfb_option_t opt[] = { TFB_OPT_I32(0, n) };
        return op_end(c, RT_BUILTIN_SPLIT_V, m.t == I8 ? 2 : 1, TFB_IDS(a, st, at), 3, outs, n, RT_OPTIONS_SPLIT_V,
                      opt, 1);
}

static int gen_unpack(dt_case_t *c, dt_rng_t *r) {
        rt_type_t t = (rt_type_t) DT_PICK(r, F, F, I8, U8, I16, I32, B);
        float q;
        int32_t zp;
        quant_draw(r, t, &q, &zp);
        c->type_name = dt_type_name(t);
        int32_t s[6], rank = shape_rand(r, 1, 4, s);
        int32_t axis = (int32_t) dt_int(r, 0, rank - 1);
        s[axis] = (int32_t) dt_int(r, 1, 3);
        int32_t n = s[axis];
        int32_t os[6], orank = 0;
        for (int32_t i = 0; i < rank; i++)
                if (i != axis)
                        os[orank++] = s[i];
        int32_t a = dt_input(c, r, t, rank, s, q, zp, NULL);
        int32_t outs[3];
        for (int32_t i = 0; i < n; i++)
                if ((outs[i] = dt_output(c, t, orank, os, q, zp)) < 0)
                        return -ENOMEM;
        if (a < 0)
                return -ENOMEM;
        int32_t ax = dt_chance(r, 0.3) ? axis - rank : axis;
        dt_desc(c, "type=%s rank=%d axis=%d", dt_type_name(t), rank, ax);
        tfb_option_t opt[] = { TFB_OPT_I32(0, n), TFB_OPT_I32(1, ax) };
        return op_end(c, RT_BUILTIN_UNPACK, t == I8 ? 2 : t == U8 ? 3 : 1, TFB_IDS(a), 1, outs, n, RT_OPTIONS_UNPACK,
                      opt, 2);
}

/* ---- SIGN, ZEROS_LIKE ---- */

static int gen_sign(dt_case_t *c, dt_rng_t *r) {
        rt_type_t t = (rt_type_t) DT_PICK(r, F, F, I32);
        c->type_name = dt_type_name(t);
        int32_t s[6], rank = shape_rand(r, 0, 4, s);
        dt_fill_t f = { .lo = -3, .hi = 3, .ilo = -3, .ihi = 3 };
        int32_t a = dt_input(c, r, t, rank, s, 0, 0, &f);
        int32_t o = dt_output(c, t, rank, s, 0, 0);
        if (a < 0 || o < 0)
                return -ENOMEM;
        dt_desc(c, "type=%s rank=%d", dt_type_name(t), rank);
        return op_end(c, RT_BUILTIN_SIGN, 1, TFB_IDS(a), 1, TFB_IDS(o), 1, 0, NULL, 0);
}

static int gen_zeros_like(dt_case_t *c, dt_rng_t *r) {
        rt_type_t t = (rt_type_t) DT_PICK(r, F, I32, I64);
        c->type_name = dt_type_name(t);
        int32_t s[6], rank = shape_rand(r, 0, 4, s);
        int32_t a = dt_input(c, r, t, rank, s, 0, 0, NULL);
        int32_t o = dt_output(c, t, rank, s, 0, 0);
        if (a < 0 || o < 0)
                return -ENOMEM;
        dt_desc(c, "type=%s rank=%d", dt_type_name(t), rank);
        return op_end(c, RT_BUILTIN_ZEROS_LIKE, 1, TFB_IDS(a), 1, TFB_IDS(o), 1, 0, NULL, 0);
}

/* ---- BROADCAST_TO ---- */

static int gen_broadcast_to(dt_case_t *c, dt_rng_t *r) {
        rt_type_t t = (rt_type_t) DT_PICK(r, F, F, I8, U8, I16, I32, I64, B);
        float q;
        int32_t zp;
        quant_draw(r, t, &q, &zp);
        c->type_name = dt_type_name(t);
        int32_t os[6], orank = (int32_t) dt_int(r, 1, 4);
        for (int32_t i = 0; i < orank; i++)
                os[i] = (int32_t) dt_int(r, 1, 4);
        int32_t rank = (int32_t) dt_int(r, 0, orank), s[6];
        for (int32_t i = 0; i < rank; i++)
                s[i] = dt_chance(r, 0.5) ? 1 : os[orank - rank + i];
        int32_t a = dt_input(c, r, t, rank, s, q, zp, NULL);
        int32_t st = dt_const_data(c, I32, 1, TFB_DIMS(orank), os, 0, 0);
        int32_t o = dt_output(c, t, orank, os, q, zp);
        if (a < 0 || st < 0 || o < 0)
                return -ENOMEM;
        dt_desc(c, "type=%s in=%dD out=%dD", dt_type_name(t), rank, orank);
        return op_end(c, RT_BUILTIN_BROADCAST_TO, 2, TFB_IDS(a, st), 2, TFB_IDS(o), 1, 0, NULL, 0);
}

/* ---- REDUCE_ANY, REDUCE_ALL ---- */

static int gen_reduce_logical(dt_case_t *c, dt_rng_t *r, int32_t code) {
        c->type_name = dt_type_name(B);
        int32_t s[6], rank = shape_rand(r, 1, 4, s);
        int32_t axes[6], na = (int32_t) dt_int(r, 1, rank);
        bool used[6] = { false };
        for (int32_t k = 0; k < na; k++) {
                int32_t ax;
                do
                        ax = (int32_t) dt_int(r, 0, rank - 1);
                while (used[ax]);
                used[ax] = true;
                axes[k] = dt_chance(r, 0.3) ? ax - rank : ax;
        }
        bool keep = dt_chance(r, 0.5);
        int32_t os[6], orank = 0;
        for (int32_t i = 0; i < rank; i++)
                if (!used[i])
                        os[orank++] = s[i];
                else if (keep)
                        os[orank++] = 1;
        int32_t a = dt_input(c, r, B, rank, s, 0, 0, NULL);
        int32_t at = dt_const_data(c, I32, 1, TFB_DIMS(na), axes, 0, 0);
        int32_t o = dt_output(c, B, orank, os, 0, 0);
        if (a < 0 || at < 0 || o < 0)
                return -ENOMEM;
        dt_desc(c, "rank=%d axes=%d keep_dims=%d", rank, na, keep);
        tfb_option_t opt[] = { TFB_OPT_BOOL(0, keep) };
        return op_end(c, code, 1, TFB_IDS(a, at), 2, TFB_IDS(o), 1, RT_OPTIONS_REDUCER, opt, 1);
}

static int gen_reduce_any(dt_case_t *c, dt_rng_t *r) {
        return gen_reduce_logical(c, r, RT_BUILTIN_REDUCE_ANY);
}

static int gen_reduce_all(dt_case_t *c, dt_rng_t *r) {
        return gen_reduce_logical(c, r, RT_BUILTIN_REDUCE_ALL);
}

/* ---- SELECT (v1: the condition has the shape of the values, or is 1-D
 * over their first dimension) ---- */

static int gen_select(dt_case_t *c, dt_rng_t *r) {
        rt_type_t t = (rt_type_t) DT_PICK(r, F, F, I8, U8, I16, I32, I64, B);
        float q;
        int32_t zp;
        quant_draw(r, t, &q, &zp);
        c->type_name = dt_type_name(t);
        int32_t s[6], rank = shape_rand(r, 1, 4, s);
        bool rows = rank > 1 && dt_chance(r, 0.3);
        int32_t cond = dt_input(c, r, B, rows ? 1 : rank, s, 0, 0, NULL);
        int32_t a = dt_input(c, r, t, rank, s, q, zp, NULL);
        int32_t b = dt_input(c, r, t, rank, s, q, zp, NULL);
        int32_t o = dt_output(c, t, rank, s, q, zp);
        if (cond < 0 || a < 0 || b < 0 || o < 0)
                return -ENOMEM;
        dt_desc(c, "type=%s rank=%d cond=%s", dt_type_name(t), rank, rows ? "rows" : "full");
        return op_end(c, RT_BUILTIN_SELECT, t == I8 ? 2 : 1, TFB_IDS(cond, a, b), 3, TFB_IDS(o), 1, 0, NULL, 0);
}

const dt_gen_t dt_gens_layout[] = {
        { "SQUEEZE", gen_squeeze, 1 },
        { "EXPAND_DIMS", gen_expand_dims, 1 },
        { "REVERSE_V2", gen_reverse, 1 },
        { "SPACE_TO_BATCH_ND", gen_space_to_batch, 1 },
        { "BATCH_TO_SPACE_ND", gen_batch_to_space, 1 },
        { "GATHER_ND", gen_gather_nd, 1 },
        { "SPLIT_V", gen_split_v, 1 },
        { "UNPACK", gen_unpack, 1 },
        { "SIGN", gen_sign, 1 },
        { "ZEROS_LIKE", gen_zeros_like, 1 },
        { "BROADCAST_TO", gen_broadcast_to, 1 },
        { "REDUCE_ANY", gen_reduce_any, 1 },
        { "REDUCE_ALL", gen_reduce_all, 1 },
        { "SELECT", gen_select, 1 },
};
const size_t dt_gens_layout_n = sizeof(dt_gens_layout) / sizeof(dt_gens_layout[0]);
