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

const dt_gen_t dt_gens_misc[] = {
        { "FILL", gen_fill, 1 },
        { "RANGE", gen_range, 1 },
        { "SHAPE", gen_shape, 1 },
        { "RANK", gen_rank, 1 },
};
const size_t dt_gens_misc_n = sizeof(dt_gens_misc) / sizeof(dt_gens_misc[0]);
