/* SPDX-License-Identifier: Apache-2.0 */
/* Case generators: elementwise binary and unary ops, activations,
 * QUANTIZE and DEQUANTIZE. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "dt.h"

/* A random shape of rank lo..hi, dims 1..6 (size 1 often). */
static int32_t shape_rand(dt_rng_t *r, int32_t lo, int32_t hi, int32_t *shape) {
        int32_t rank = (int32_t) dt_int(r, lo, hi);
        for (int32_t i = 0; i < rank; i++)
                shape[i] = dt_chance(r, 0.25) ? 1 : (int32_t) dt_int(r, 1, 6);
        return rank;
}

/* An input shape that broadcasts to out: a suffix of it with some dims 1. */
static int32_t shape_bcast(dt_rng_t *r, int32_t rank, const int32_t *out, int32_t *shape) {
        if (dt_chance(r, 0.4)) {
                for (int32_t i = 0; i < rank; i++)
                        shape[i] = out[i];
                return rank;
        }
        int32_t n = (int32_t) dt_int(r, 0, rank);
        for (int32_t i = 0; i < n; i++) {
                int32_t d = out[rank - n + i];
                shape[i] = dt_chance(r, 0.35) ? 1 : d;
        }
        return n;
}

/* A plausible output scale for a real range of +-range in type t. */
static float scale_for(dt_rng_t *r, rt_type_t t, double range) {
        double half = t == RT_TYPE_INT16 ? 32767.0 : 127.5;
        double s = range / half * exp(-1.2 + 2.4 * dt_unit(r));
        if (dt_chance(r, 0.08))
                s = dt_scale(r, 1e-4, 10);
        if (s < 1e-6)
                s = 1e-6;
        if (s > 1e6)
                s = 1e6;
        return (float) s;
}

static double qrange(rt_type_t t, float scale) {
        return scale * (t == RT_TYPE_INT16 ? 32768.0 : 128.0);
}

typedef enum bin_kind { BK_ADD, BK_MUL, BK_DIV, BK_SQDIFF, BK_MAXMIN, BK_POW, BK_FLOOR } bin_kind_t;

typedef struct bin_spec {
        int32_t code;
        uint8_t options_type;
        bool act;             /* options field 0 is fused_activation_function */
        bin_kind_t kind;
        rt_type_t types[6];
        int n_types;
} bin_spec_t;

static int gen_binary(dt_case_t *c, dt_rng_t *r, const bin_spec_t *sp) {
        rt_type_t t = sp->types[dt_int(r, 0, sp->n_types - 1)];
        dt_chain_draw(c, r, t);
        int32_t os[6], as[6], bs[6];
        int32_t orank = shape_rand(r, 0, 4, os);
        int32_t arank = shape_bcast(r, orank, os, as);
        int32_t brank = shape_bcast(r, orank, os, bs);
        if (dt_chance(r, 0.5)) {
                /* Make the output shape exactly the broadcast of the inputs. */
                int32_t tmp[6], trank = arank > brank ? arank : brank;
                for (int32_t i = 0; i < trank; i++) {
                        int32_t ai = i - (trank - arank), bi = i - (trank - brank);
                        int32_t da = ai >= 0 ? as[ai] : 1, db = bi >= 0 ? bs[bi] : 1;
                        tmp[i] = da > db ? da : db;
                }
                for (int32_t i = 0; i < trank; i++)
                        os[i] = tmp[i];
                orank = trank;
        } else {
                /* Inputs were drawn from os: the broadcast shape may be smaller
                 * than os when a leading dim is 1 in both; recompute. */
                int32_t trank = arank > brank ? arank : brank;
                for (int32_t i = 0; i < trank; i++) {
                        int32_t ai = i - (trank - arank), bi = i - (trank - brank);
                        int32_t da = ai >= 0 ? as[ai] : 1, db = bi >= 0 ? bs[bi] : 1;
                        os[i] = da > db ? da : db;
                }
                orank = trank;
        }
        float sa = 0, sb = 0, so = 0;
        int32_t za = 0, zb = 0, zo = 0;
        dt_fill_t fa = { .lo = -3, .hi = 3 }, fb = fa;
        if (t == RT_TYPE_INT32 || t == RT_TYPE_INT64) {
                fa = (dt_fill_t) { .ilo = -1000, .ihi = 1000 };
                fb = fa;
                if (sp->kind == BK_MAXMIN)
                        fa.ilo = fa.ihi = 0, fb = fa; /* full range with edges */
                if (sp->kind == BK_DIV || sp->kind == BK_FLOOR)
                        fb = (dt_fill_t) { .ilo = 1, .ihi = 40 };
                if (sp->kind == BK_POW)
                        fa = (dt_fill_t) { .ilo = -6, .ihi = 6 }, fb = (dt_fill_t) { .ilo = 0, .ihi = 5 };
        }
        if (t == RT_TYPE_FLOAT32 && sp->kind == BK_POW)
                fa = (dt_fill_t) { .lo = 0, .hi = 4 }, fb = (dt_fill_t) { .lo = -3, .hi = 3 };
        if (dt_is_quant_type(t)) {
                sa = dt_scale(r, 1e-3, 10);
                sb = dt_chance(r, 0.7) ? (float) (sa * exp(-2 + 4 * dt_unit(r))) : dt_scale(r, 1e-4, 10);
                za = dt_zero_point(r, t);
                zb = dt_zero_point(r, t);
                double ra = qrange(t, sa), rb = qrange(t, sb), ro;
                switch (sp->kind) {
                case BK_MUL:
                        ro = ra * rb;
                        break;
                case BK_SQDIFF:
                        ro = (ra + rb) * (ra + rb) / 2;
                        break;
                case BK_DIV:
                        ro = ra / (rb / 64);
                        break;
                case BK_MAXMIN:
                        sb = sa, zb = za;
                        ro = ra;
                        break;
                default:
                        ro = ra + rb;
                }
                so = sp->kind == BK_MAXMIN ? sa : scale_for(r, t, ro);
                zo = sp->kind == BK_MAXMIN ? za : dt_zero_point(r, t);
        }
        int32_t act = sp->act ? dt_act(r) : 0;
        c->accum = sp->kind == BK_POW ? 1 : 0;
        int32_t a = dt_qin(c, r, t, arank, as, sa, za, &fa);
        int32_t b = dt_qin(c, r, t, brank, bs, sb, zb, &fb);
        int32_t o = dt_qout(c, t, orank, os, so, zo);
        if (a < 0 || b < 0 || o < 0)
                return -ENOMEM;
        if (sp->kind == BK_DIV && dt_is_quant_type(t)) {
                /* A quantized zero divisor is undefined in TFLite: keep clear of it. */
                dt_io_t *in = &c->in[c->n_in - 1];
                int64_t n = dt_count(in->rank, in->shape);
                for (int64_t i = 0; i < n; i++) {
                        if (in->type == RT_TYPE_FLOAT32) {
                                float *v = in->data;
                                if (!(fabsf(v[i]) >= 2 * sb))
                                        v[i] = 2 * sb;
                        } else if (((uint8_t *) in->data)[i] == zb) {
                                ((uint8_t *) in->data)[i] = (uint8_t) (zb < 255 ? zb + 1 : zb - 1);
                        }
                }
        }
        tfb_option_t opts[2] = { TFB_OPT_I8(0, act), TFB_OPT_BOOL(1, false) };
        size_t n_opts = sp->act ? 1 : 0;
        if ((sp->code == RT_BUILTIN_ADD || sp->code == RT_BUILTIN_SUB) && t == RT_TYPE_INT16)
                n_opts = 2; /* the general int16 path, not power-of-two scales */
        dt_desc(c, "type=%s a=%dD b=%dD out=%dD act=%s sa=%g za=%d sb=%g zb=%d so=%g zo=%d%s", dt_type_name(t), arank,
                brank, orank, dt_act_name(act), sa, za, sb, zb, so, zo, c->edges ? " edges" : "");
        int version = t == RT_TYPE_INT8 ? 2 : t == RT_TYPE_INT16 ? 3 : 1;
        return dt_op(c, sp->code, version, TFB_IDS(a, b), 2, TFB_IDS(o), 1, sp->options_type, opts, n_opts) < 0
                       ? -ENOMEM
                       : 0;
}

#define F RT_TYPE_FLOAT32
#define I8 RT_TYPE_INT8
#define U8 RT_TYPE_UINT8
#define I16 RT_TYPE_INT16
#define I32 RT_TYPE_INT32
#define I64 RT_TYPE_INT64

#define BIN(fn, CODE, OPT, ACT, KIND, ...)                                                                     \
        static int fn(dt_case_t *c, dt_rng_t *r) {                                                            \
                static const bin_spec_t sp = { RT_BUILTIN_##CODE, OPT, ACT, KIND, { __VA_ARGS__ },            \
                                               sizeof((rt_type_t[]) { __VA_ARGS__ }) / sizeof(rt_type_t) }; \
                return gen_binary(c, r, &sp);                                                                 \
        }
BIN(gen_add, ADD, RT_OPTIONS_ADD, true, BK_ADD, F, I8, U8, I16, I32, I64)
BIN(gen_sub, SUB, RT_OPTIONS_SUB, true, BK_ADD, F, I8, U8, I16, I32, I64)
BIN(gen_mul, MUL, RT_OPTIONS_MUL, true, BK_MUL, F, I8, U8, I16, I32, I64)
BIN(gen_div, DIV, RT_OPTIONS_DIV, true, BK_DIV, F, I32)
/* uint8 DIV apart: TFLite's result depends on shifts past 31 bits there. */
BIN(gen_div_q, DIV, RT_OPTIONS_DIV, true, BK_DIV, U8)
BIN(gen_sqdiff, SQUARED_DIFFERENCE, RT_OPTIONS_SQUARED_DIFFERENCE, false, BK_SQDIFF, F, I8, I32)
BIN(gen_maximum, MAXIMUM, 0, false, BK_MAXMIN, F, I8, U8, I16, I32, I64)
BIN(gen_minimum, MINIMUM, 0, false, BK_MAXMIN, F, I8, U8, I16, I32, I64)
BIN(gen_pow, POW, 0, false, BK_POW, F, I32)
BIN(gen_floor_div, FLOOR_DIV, RT_OPTIONS_FLOOR_DIV, false, BK_FLOOR, F, I32)
BIN(gen_floor_mod, FLOOR_MOD, 0, false, BK_FLOOR, F, I32, I64)

/* Unary ops: output quantization for the quantized forms. */
typedef enum uq { UQ_FREE, UQ_SAME, UQ_LOGISTIC, UQ_TANH } uq_t;

typedef struct un_spec {
        int32_t code;
        uint8_t options_type;
        double lo, hi;        /* float input range */
        uq_t uq;
        rt_type_t types[5];
        int n_types;
} un_spec_t;

static int gen_unary(dt_case_t *c, dt_rng_t *r, const un_spec_t *sp) {
        rt_type_t t = sp->types[dt_int(r, 0, sp->n_types - 1)];
        dt_chain_draw(c, r, t);
        int32_t shape[6];
        int32_t rank = shape_rand(r, 0, 4, shape);
        float si = 0, so = 0;
        int32_t zi = 0, zo = 0;
        if (dt_is_quant_type(t)) {
                si = dt_scale(r, 1e-3, 1);
                if (dt_chance(r, 0.1))
                        si = dt_scale(r, 1e-4, 10);
                zi = dt_zero_point(r, t);
                if (t == I16 && (sp->uq == UQ_TANH || sp->uq == UQ_LOGISTIC)) {
                        /* Any scale goes to TFLite's table path; a quarter
                         * of the cases take the power-of-two scales of its
                         * fixed-point path, some other powers of two (the
                         * table path again). */
                        if (dt_chance(r, 0.25))
                                si = sp->uq == UQ_TANH && dt_chance(r, 0.5) ? 1.0f / 2048 : 1.0f / 4096;
                        else if (dt_chance(r, 0.1))
                                si = ldexpf(1.0f, dt_int(r, -14, 2));
                }
                double ri = qrange(t, si);
                switch (sp->uq) {
                case UQ_SAME:
                        so = si, zo = zi;
                        break;
                case UQ_LOGISTIC:
                        so = t == I16 ? 1.0f / 32768 : 1.0f / 256;
                        zo = t == I8 ? -128 : 0;
                        break;
                case UQ_TANH:
                        so = t == I16 ? 1.0f / 32768 : 1.0f / 128;
                        zo = t == U8 ? 128 : 0;
                        break;
                default:
                        so = scale_for(r, t, sp->code == RT_BUILTIN_RSQRT ? 1 / sqrt(si) : ri);
                        zo = dt_zero_point(r, t);
                }
        }
        dt_fill_t f = { .lo = sp->lo, .hi = sp->hi };
        if (t == I32 || t == I64)
                f = (dt_fill_t) { .ilo = -1000, .ihi = 1000 };
        tfb_option_t opts[1];
        size_t n_opts = 0;
        if (sp->code == RT_BUILTIN_LEAKY_RELU) {
                double alpha = DT_PICK(r, 0, 1, 2, 3) == 0 ? 0.2 : -2 + 4 * dt_unit(r);
                opts[n_opts++] = (tfb_option_t) TFB_OPT_F32(0, alpha);
                dt_desc(c, "alpha=%.9g", (float) alpha);
        }
        if (sp->code == RT_BUILTIN_GELU) {
                bool approx = dt_chance(r, 0.5);
                opts[n_opts++] = (tfb_option_t) TFB_OPT_BOOL(0, approx);
                dt_desc(c, "approximate=%d", approx);
        }
        int32_t in = dt_qin(c, r, t, rank, shape, si, zi, &f);
        int32_t out = dt_qout(c, t, rank, shape, so, zo);
        /* Transcendental functions: TFLite uses Eigen's approximations, so
         * allow a few ulp of the output's magnitude. */
        c->accum = sp->uq == UQ_SAME ? 0 : 1;
        if (in < 0 || out < 0)
                return -ENOMEM;
        dt_desc(c, "type=%s shape=%dD si=%g zi=%d so=%g zo=%d%s", dt_type_name(t), rank, si, zi, so, zo,
                c->edges ? " edges" : "");
        int version = t == F ? 1 : t == I16 ? 3 : 2;
        return dt_op(c, sp->code, version, TFB_IDS(in), 1, TFB_IDS(out), 1, sp->options_type, opts, n_opts) < 0
                       ? -ENOMEM
                       : 0;
}

#define UN(fn, CODE, OPT, LO, HI, UQ, ...)                                                                       \
        static int fn(dt_case_t *c, dt_rng_t *r) {                                                              \
                static const un_spec_t sp = { RT_BUILTIN_##CODE, OPT, LO, HI, UQ, { __VA_ARGS__ },              \
                                              sizeof((rt_type_t[]) { __VA_ARGS__ }) / sizeof(rt_type_t) };     \
                return gen_unary(c, r, &sp);                                                                    \
        }
UN(gen_exp, EXP, 0, -20, 20, UQ_FREE, F, I8)
UN(gen_log, LOG, 0, 0, 100, UQ_FREE, F, I8)
UN(gen_sqrt, SQRT, 0, 0, 100, UQ_FREE, F)
UN(gen_rsqrt, RSQRT, 0, 0, 100, UQ_FREE, F, I8)
UN(gen_sin, SIN, 0, -10, 10, UQ_FREE, F)
UN(gen_cos, COS, 0, -10, 10, UQ_FREE, F)
UN(gen_square, SQUARE, 0, -10, 10, UQ_FREE, F)
UN(gen_abs, ABS, 0, -10, 10, UQ_FREE, F, I8, I16, I32)
UN(gen_neg, NEG, 0, -10, 10, UQ_SAME, F, I8, I32, I64)
UN(gen_floor, FLOOR, 0, -10, 10, UQ_FREE, F)
UN(gen_ceil, CEIL, 0, -10, 10, UQ_FREE, F)
UN(gen_round, ROUND, 0, -10, 10, UQ_FREE, F)
UN(gen_tanh, TANH, 0, -8, 8, UQ_TANH, F, I8, U8, I16)
UN(gen_logistic, LOGISTIC, 0, -12, 12, UQ_LOGISTIC, F, I8, U8, I16)
UN(gen_relu, RELU, 0, -10, 10, UQ_FREE, F, I8, U8, I16)
UN(gen_relu6, RELU6, 0, -10, 10, UQ_FREE, F, I8, U8, I16)
UN(gen_relu_n1, RELU_N1_TO_1, 0, -3, 3, UQ_FREE, F, I8, U8)
UN(gen_leaky, LEAKY_RELU, RT_OPTIONS_LEAKY_RELU, -10, 10, UQ_FREE, F, I8, U8, I16)
UN(gen_elu, ELU, 0, -10, 10, UQ_FREE, F, I8)
UN(gen_hard_swish, HARD_SWISH, 0, -8, 8, UQ_FREE, F, I8, U8)
UN(gen_gelu, GELU, RT_OPTIONS_GELU, -6, 6, UQ_FREE, F, I8, U8)

/* QUANTIZE from float or requantizing, DEQUANTIZE to float. */
static int gen_quantize(dt_case_t *c, dt_rng_t *r) {
        /* The requantizations TFLite 2.9 accepts: int8->int8, int8->uint8,
         * uint8->int8, uint8->uint8, int16->int16, int16->int8, int16->int32,
         * int32->int16, int32->int8 (not int8/uint8->int16/int32, int32->int32,
         * int16/int32->uint8). */
        static const rt_type_t from[] = { F, F, F, I8, U8, I8, I16, I16, U8, I16, I32, I32 };
        static const rt_type_t to[] = { I8, U8, I16, I8, I8, U8, I16, I8, U8, I32, I16, I8 };
        static const char *const names[] = { "int8",         "uint8",         "int16",        "int8->int8",
                                             "uint8->int8",  "int8->uint8",   "int16->int16", "int16->int8",
                                             "uint8->uint8", "int16->int32",  "int32->int16", "int32->int8" };
        int k = (int) (dt_chance(r, 0.7) ? dt_int(r, 0, 7) : dt_int(r, 8, 11));
        rt_type_t ti = from[k], to_ = to[k];
        c->type_name = names[k];
        int32_t shape[6];
        int32_t rank = shape_rand(r, 0, 4, shape);
        float si = 0, so = dt_scale(r, 1e-4, 10);
        int32_t zi = 0, zo = dt_zero_point(r, to_);
        dt_fill_t f = { .lo = -so * 300.0, .hi = so * 300.0 };
        if (to_ == I16)
                f = (dt_fill_t) { .lo = -so * 40000.0, .hi = so * 40000.0 };
        f.finite_max = so * 1e9;
        if (ti != F) {
                si = dt_scale(r, 1e-4, 10);
                zi = dt_zero_point(r, ti);
                so = (float) (si * exp(-2 + 4 * dt_unit(r)));
        }
        /* int32 quantized tensors: zero point 0. */
        if (ti == I32)
                zi = 0;
        if (to_ == I32)
                zo = 0;
        int32_t in = dt_input(c, r, ti, rank, shape, si, zi, &f);
        int32_t out = dt_output(c, to_, rank, shape, so, zo);
        if (in < 0 || out < 0)
                return -ENOMEM;
        dt_desc(c, "%s shape=%dD si=%g zi=%d so=%.9g zo=%d%s", c->type_name, rank, si, zi, so, zo,
                c->edges ? " edges" : "");
        return dt_op(c, RT_BUILTIN_QUANTIZE, ti == F ? 1 : 2, TFB_IDS(in), 1, TFB_IDS(out), 1, 0, NULL, 0) < 0
                       ? -ENOMEM
                       : 0;
}

/* DEQUANTIZE of a float16 constant, as fp16-converted models carry their
 * weights: every bit pattern (subnormals, infinities, NaN) is drawn. */
static int gen_dequantize_f16(dt_case_t *c, dt_rng_t *r) {
        c->type_name = "float16";
        int32_t shape[6];
        int32_t rank = shape_rand(r, 0, 4, shape);
        int64_t n = dt_count(rank, shape);
        uint16_t *h = malloc((size_t) n * sizeof(*h) + sizeof(*h));
        if (!h)
                return -ENOMEM;
        for (int64_t i = 0; i < n; i++) {
                uint16_t v = (uint16_t) dt_next(r);
                if (dt_chance(r, 0.1)) /* zeros, one, largest finite, smallest subnormal, inf */
                        v = (uint16_t) DT_PICK(r, 0x0000, 0x8000, 0x3c00, 0x7bff, 0xfbff, 0x0001, 0x7c00, 0xfc00);
                h[i] = v;
        }
        int32_t in = dt_const_data(c, RT_TYPE_FLOAT16, rank, shape, h, 0, 0);
        free(h);
        int32_t out = dt_output(c, F, rank, shape, 0, 0);
        if (in < 0 || out < 0)
                return -ENOMEM;
        dt_desc(c, "float16 const shape=%dD", rank);
        return dt_op(c, RT_BUILTIN_DEQUANTIZE, 3, TFB_IDS(in), 1, TFB_IDS(out), 1, 0, NULL, 0) < 0 ? -ENOMEM : 0;
}

static int gen_dequantize(dt_case_t *c, dt_rng_t *r) {
        if (dt_chance(r, 0.25))
                return gen_dequantize_f16(c, r);
        rt_type_t t = (rt_type_t) DT_PICK(r, I8, U8, I16);
        c->type_name = dt_type_name(t);
        int32_t shape[6];
        int32_t rank = shape_rand(r, 0, 4, shape);
        float s = dt_scale(r, 1e-4, 10);
        int32_t z = dt_zero_point(r, t);
        int32_t in = dt_input(c, r, t, rank, shape, s, z, NULL);
        int32_t out = dt_output(c, F, rank, shape, 0, 0);
        if (in < 0 || out < 0)
                return -ENOMEM;
        dt_desc(c, "%s shape=%dD s=%g z=%d", c->type_name, rank, s, z);
        return dt_op(c, RT_BUILTIN_DEQUANTIZE, 2, TFB_IDS(in), 1, TFB_IDS(out), 1, 0, NULL, 0) < 0 ? -ENOMEM : 0;
}

const dt_gen_t dt_gens_ew[] = {
        { "ADD", gen_add, 4 },
        { "SUB", gen_sub, 3 },
        { "MUL", gen_mul, 4 },
        { "DIV", gen_div, 2 },
        { "DIV_UINT8", gen_div_q, 1 },
        { "SQUARED_DIFFERENCE", gen_sqdiff, 2 },
        { "MAXIMUM", gen_maximum, 1 },
        { "MINIMUM", gen_minimum, 1 },
        { "POW", gen_pow, 1 },
        { "FLOOR_DIV", gen_floor_div, 1 },
        { "FLOOR_MOD", gen_floor_mod, 1 },
        { "EXP", gen_exp, 2 },
        { "LOG", gen_log, 2 },
        { "SQRT", gen_sqrt, 1 },
        { "RSQRT", gen_rsqrt, 2 },
        { "SIN", gen_sin, 1 },
        { "COS", gen_cos, 1 },
        { "SQUARE", gen_square, 1 },
        { "ABS", gen_abs, 1 },
        { "NEG", gen_neg, 1 },
        { "FLOOR", gen_floor, 1 },
        { "CEIL", gen_ceil, 1 },
        { "ROUND", gen_round, 1 },
        { "TANH", gen_tanh, 2 },
        { "LOGISTIC", gen_logistic, 2 },
        { "RELU", gen_relu, 1 },
        { "RELU6", gen_relu6, 1 },
        { "RELU_N1_TO_1", gen_relu_n1, 1 },
        { "LEAKY_RELU", gen_leaky, 2 },
        { "ELU", gen_elu, 1 },
        { "HARD_SWISH", gen_hard_swish, 2 },
        { "GELU", gen_gelu, 1 },
        { "QUANTIZE", gen_quantize, 3 },
        { "DEQUANTIZE", gen_dequantize, 2 },
};
const size_t dt_gens_ew_n = sizeof(dt_gens_ew) / sizeof(dt_gens_ew[0]);
