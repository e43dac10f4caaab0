/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Broadcasting binary arithmetic: ADD, SUB, MUL, DIV, SQUARED_DIFFERENCE,
 * MAXIMUM, MINIMUM, POW, FLOOR_DIV, FLOOR_MOD, plus ADD_N.
 *
 * Quantized ADD/SUB follow TFLite's general path (inputs left-shifted by 20
 * for 8-bit, 15 for int16, rescaled to twice the larger input scale, summed,
 * rescaled to the output); SUB negates the second input's multiplier, as
 * TFLite does. int16 ADD/SUB with power-of-two scales and zero points take
 * TFLite's shift-only path when pot_scale_int16 is set.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "ew.h"

typedef enum bop {
        B_ADD,
        B_SUB,
        B_MUL,
        B_DIV,
        B_SQDIFF,
        B_MAX,
        B_MIN,
        B_POW,
        B_FLOOR_DIV,
        B_FLOOR_MOD,
} bop_t;

static const char *const bop_names[] = {
        [B_ADD] = "ADD",
        [B_SUB] = "SUB",
        [B_MUL] = "MUL",
        [B_DIV] = "DIV",
        [B_SQDIFF] = "SQUARED_DIFFERENCE",
        [B_MAX] = "MAXIMUM",
        [B_MIN] = "MINIMUM",
        [B_POW] = "POW",
        [B_FLOOR_DIV] = "FLOOR_DIV",
        [B_FLOOR_MOD] = "FLOOR_MOD",
};

static bool bop_has_activation(bop_t op) {
        return op == B_ADD || op == B_SUB || op == B_MUL || op == B_DIV;
}

static bool bop_quantized(bop_t op, rt_type_t t) {
        switch (op) {
        case B_ADD:
        case B_SUB:
        case B_MUL:
                return t == RT_TYPE_INT8 || t == RT_TYPE_UINT8 || t == RT_TYPE_INT16;
        case B_SQDIFF:
                return t == RT_TYPE_INT8 || t == RT_TYPE_INT16;
        case B_DIV:
                return t == RT_TYPE_UINT8 || t == RT_TYPE_INT8;
        default:
                return false;
        }
}

static bool bop_supports(bop_t op, rt_type_t t) {
        if (bop_quantized(op, t))
                return true;
        switch (op) {
        case B_ADD:
        case B_SUB:
        case B_MUL:
                return t == RT_TYPE_FLOAT32 || t == RT_TYPE_INT32 || t == RT_TYPE_INT64;
        case B_DIV:
        case B_SQDIFF:
        case B_POW:
        case B_FLOOR_DIV:
                return t == RT_TYPE_FLOAT32 || t == RT_TYPE_INT32;
        case B_FLOOR_MOD:
                return t == RT_TYPE_FLOAT32 || t == RT_TYPE_INT32 || t == RT_TYPE_INT64;
        case B_MAX:
        case B_MIN:
                return t == RT_TYPE_FLOAT32 || t == RT_TYPE_INT32 || t == RT_TYPE_INT64 ||
                       t == RT_TYPE_INT8 || t == RT_TYPE_UINT8 || t == RT_TYPE_INT16;
        }
        return false;
}

static rt_activation_t node_activation(const rt_node_t *node) {
        const ew_arith_params_t *p = node->params;
        return p ? p->activation : RT_ACT_NONE;
}

static void int_act_range(rt_activation_t act, int64_t lo, int64_t hi, int64_t *ret_min,
                          int64_t *ret_max) {
        switch (act) {
        case RT_ACT_RELU:
                lo = 0;
                break;
        case RT_ACT_RELU6:
                lo = 0;
                hi = 6;
                break;
        case RT_ACT_RELU_N1_TO_1:
                lo = -1;
                hi = 1;
                break;
        default:
                break;
        }
        *ret_min = lo;
        *ret_max = hi;
}

/* ---- prepare ---- */

static int prepare_quantized_addsub(rt_context_t *ctx, rt_node_t *node, bop_t op,
                                    const rt_tensor_t *a, const rt_tensor_t *b,
                                    const rt_tensor_t *o) {
        ew_data_t *d = node->user_data;
        const ew_arith_params_t *p = node->params;
        bool general = true;
        int la = 0, lb = 0, lo = 0;
        if (o->type == RT_TYPE_INT16 && p && p->pot_scale_int16) {
                bool pa = ew_checked_log2(a->scale, &la);
                bool pb = ew_checked_log2(b->scale, &lb);
                bool po = ew_checked_log2(o->scale, &lo);
                general = !pa || !pb || !po || a->zero_point || b->zero_point || o->zero_point;
        }
        d->pot16 = !general;
        ku_act_range_q(node_activation(node), o, &d->act_min, &d->act_max);
        if (d->pot16) {
                d->in1_shift = la - lo;
                d->in2_shift = lb - lo;
                /* Only the sign is used on this path: SUB subtracts. */
                d->in2_mul = op == B_SUB ? -1 : 1;
                if (!(d->in1_shift == 0 || d->in2_shift == 0) || d->in1_shift > 0 ||
                    d->in2_shift > 0)
                        return rt_ctx_error(ctx, "%s: int16 power-of-two scales need one input "
                                            "at the output scale and the other finer",
                                            bop_names[op]);
                return 0;
        }
        int32_t qmin, qmax;
        ku_type_range(o->type, &qmin, &qmax);
        if (a->zero_point < qmin || a->zero_point > qmax || b->zero_point < qmin ||
            b->zero_point > qmax || o->zero_point < qmin || o->zero_point > qmax)
                return rt_ctx_error(ctx, "%s: zero point out of the %s range", bop_names[op],
                                    rt_type_name(o->type));
        if (!(a->scale > 0) || !(b->scale > 0) || !(o->scale > 0))
                return rt_ctx_error(ctx, "%s: quantized tensors need a positive scale",
                                    bop_names[op]);
        d->in1_offset = -a->zero_point;
        d->in2_offset = -b->zero_point;
        d->out_offset = o->zero_point;
        d->left_shift = o->type == RT_TYPE_INT16 ? 15 : 20;
        const double twice_max = 2.0 * (double) KU_MAX(a->scale, b->scale);
        ew_qmul((double) a->scale / twice_max, &d->in1_mul, &d->in1_shift);
        ew_qmul((double) b->scale / twice_max, &d->in2_mul, &d->in2_shift);
        ew_qmul(twice_max / ((double) (1 << d->left_shift) * (double) o->scale), &d->out_mul,
                &d->out_shift);
        if (op == B_SUB)
                d->in2_mul = -d->in2_mul;
        return 0;
}

static int prepare_quantized(rt_context_t *ctx, rt_node_t *node, bop_t op, const rt_tensor_t *a,
                             const rt_tensor_t *b, const rt_tensor_t *o) {
        ew_data_t *d = node->user_data;
        if (!d)
                return rt_ctx_error(ctx, "%s: node state missing (init not run)", bop_names[op]);
        if (op == B_ADD || op == B_SUB)
                return prepare_quantized_addsub(ctx, node, op, a, b, o);
        if (!(a->scale > 0) || !(b->scale > 0) || !(o->scale > 0))
                return rt_ctx_error(ctx, "%s: quantized tensors need a positive scale",
                                    bop_names[op]);
        d->in1_offset = -a->zero_point;
        d->in2_offset = -b->zero_point;
        d->out_offset = o->zero_point;
        if (op == B_DIV) {
                ku_act_range_q(node_activation(node), o, &d->act_min, &d->act_max);
                /* In single precision, widened afterwards: TFLite's
                 * expression multiplies and divides the float scales. */
                ku_quantize_multiplier((double) (a->scale / (b->scale * o->scale)), &d->out_mul, &d->out_shift);
                return 0;
        }
        if (op == B_MUL) {
                if (o->type == RT_TYPE_INT16 && (a->zero_point || b->zero_point || o->zero_point))
                        return rt_ctx_error(ctx, "MUL: int16 needs zero points of 0");
                ku_act_range_q(node_activation(node), o, &d->act_min, &d->act_max);
                /* Single precision, as TFLite computes a * b / o on the
                 * float scales before widening; in double the multiplier
                 * can differ in its last bit (one step off, ~1 in 500). */
                ku_quantize_multiplier((double) (a->scale * b->scale / o->scale), &d->out_mul, &d->out_shift);
                return 0;
        }
        /* SQUARED_DIFFERENCE: 7 bits of headroom for int8 (255^2 << 14 fits
         * in 32 bits), none for int16. */
        d->left_shift = o->type == RT_TYPE_INT16 ? 0 : 7;
        const double twice_max = 2.0 * (double) KU_MAX(a->scale, b->scale);
        ew_qmul((double) a->scale / twice_max, &d->in1_mul, &d->in1_shift);
        ew_qmul((double) b->scale / twice_max, &d->in2_mul, &d->in2_shift);
        ku_quantize_multiplier(twice_max * twice_max /
                                       ((double) (1 << (2 * d->left_shift)) * (double) o->scale),
                               &d->out_mul, &d->out_shift);
        ku_type_range(o->type, &d->act_min, &d->act_max);
        return 0;
}

static int binary_prepare(rt_context_t *ctx, rt_node_t *node, bop_t op) {
        const char *name = bop_names[op];
        int r = ew_check_io(ctx, node, name, 2, 1);
        if (r < 0)
                return r;
        const rt_tensor_t *a = rt_node_input(ctx, node, 0), *b = rt_node_input(ctx, node, 1);
        rt_tensor_t *o = rt_node_output(ctx, node, 0);
        if (a->type != b->type || o->type != a->type)
                return rt_ctx_error(ctx, "%s: input types %s and %s and output type %s differ",
                                    name, rt_type_name(a->type), rt_type_name(b->type),
                                    rt_type_name(o->type));
        if (!bop_supports(op, a->type))
                return ew_unsupported(ctx, name, a->type, o->type);
        if (bop_has_activation(op) && (unsigned) node_activation(node) > RT_ACT_SIGN_BIT)
                return rt_ctx_error(ctx, "%s: unsupported fused activation %d", name,
                                    (int) node_activation(node));
        r = ew_resize_bcast(ctx, node, name, a, b);
        if (r < 0)
                return r;
        if (bop_quantized(op, a->type))
                return prepare_quantized(ctx, node, op, a, b, o);
        return 0;
}

/* ---- rows ---- */

typedef struct bin {
        bop_t op;
        const void *a, *b;
        void *o;
        const ew_data_t *d;
        float fmin, fmax;
        int64_t imin, imax;
        bool div_by_zero;
        bool neg_exponent;
} bin_t;

static float f_floor_mod(float x, float y) {
        float m = fmodf(x, y);
        return (m != 0.0f && ((y < 0.0f) != (m < 0.0f))) ? m + y : m;
}

static void row_f32(void *arg, size_t oo, const size_t *in, const int64_t *st, size_t n) {
        bin_t *c = arg;
        const float *x = (const float *) c->a + in[0], *y = (const float *) c->b + in[1];
        float *z = (float *) c->o + oo;
        const int64_t sx = st[0], sy = st[1];
        const float lo = c->fmin, hi = c->fmax;
#define LOOP(expr)                                                       \
        for (size_t i = 0; i < n; i++) {                                 \
                const float A = x[(int64_t) i * sx], B = y[(int64_t) i * sy]; \
                z[i] = (expr);                                           \
        }
        switch (c->op) {
        case B_ADD: LOOP(ku_act_f32(A + B, lo, hi)); break;
        case B_SUB: LOOP(ku_act_f32(A - B, lo, hi)); break;
        case B_MUL: LOOP(ku_act_f32(A * B, lo, hi)); break;
        case B_DIV: LOOP(ku_act_f32(A / B, lo, hi)); break;
        case B_SQDIFF: LOOP((A - B) * (A - B)); break;
        case B_MAX: LOOP(A > B ? A : B); break;
        case B_MIN: LOOP(A < B ? A : B); break;
        case B_POW: LOOP(powf(A, B)); break;
        case B_FLOOR_DIV: LOOP((float) floor((double) A / (double) B)); break; /* TFLite divides in double */
        case B_FLOOR_MOD: LOOP(f_floor_mod(A, B)); break;
        }
#undef LOOP
}

/* Integer rows: wrap-around arithmetic (as TFLite's int32 ops do on the
 * machines it runs on), computed in unsigned to stay defined. */
#define INT_ROW(NAME, T, UT)                                                                  \
        static T NAME##_pow(T base, T e) {                                                    \
                UT r = 1, b = (UT) base;                                                      \
                while (e > 0) {                                                               \
                        if (e & 1)                                                            \
                                r *= b;                                                       \
                        e >>= 1;                                                              \
                        b *= b;                                                               \
                }                                                                             \
                return (T) r;                                                                 \
        }                                                                                     \
        static void NAME(void *arg, size_t oo, const size_t *in, const int64_t *st, size_t n) { \
                bin_t *c = arg;                                                               \
                const T *x = (const T *) c->a + in[0], *y = (const T *) c->b + in[1];         \
                T *z = (T *) c->o + oo;                                                       \
                const int64_t sx = st[0], sy = st[1];                                         \
                const T lo = (T) c->imin, hi = (T) c->imax;                                   \
                for (size_t i = 0; i < n; i++) {                                              \
                        const T A = x[(int64_t) i * sx], B = y[(int64_t) i * sy];             \
                        T r = 0;                                                              \
                        switch (c->op) {                                                      \
                        case B_ADD: r = (T) ((UT) A + (UT) B); break;                         \
                        case B_SUB: r = (T) ((UT) A - (UT) B); break;                         \
                        case B_MUL: r = (T) ((UT) A * (UT) B); break;                         \
                        case B_DIV:                                                           \
                                if (B == 0) {                                                 \
                                        c->div_by_zero = true;                                \
                                } else if (B == -1) {                                         \
                                        r = (T) (0 - (UT) A);                                 \
                                } else {                                                      \
                                        r = A / B;                                            \
                                }                                                             \
                                break;                                                        \
                        case B_SQDIFF: {                                                      \
                                UT dd = (UT) A - (UT) B;                                      \
                                r = (T) (dd * dd);                                            \
                                break;                                                        \
                        }                                                                     \
                        case B_MAX: r = A > B ? A : B; break;                                 \
                        case B_MIN: r = A < B ? A : B; break;                                 \
                        case B_POW:                                                           \
                                if (B < 0)                                                    \
                                        c->neg_exponent = true;                               \
                                else                                                          \
                                        r = NAME##_pow(A, B);                                 \
                                break;                                                        \
                        case B_FLOOR_DIV:                                                     \
                                if (B == 0)                                                   \
                                        c->div_by_zero = true;                                \
                                else                                                          \
                                        r = (T) floor((double) A / (double) B);               \
                                break;                                                        \
                        case B_FLOOR_MOD:                                                     \
                                if (B == 0 || B == -1) {                                      \
                                        c->div_by_zero = B == 0;                              \
                                } else {                                                      \
                                        T m = A % B;                                          \
                                        r = (m != 0 && ((B < 0) != (m < 0))) ? m + B : m;     \
                                }                                                             \
                                break;                                                        \
                        }                                                                     \
                        if (bop_has_activation(c->op))                                        \
                                r = r < lo ? lo : (r > hi ? hi : r);                          \
                        z[i] = r;                                                             \
                }                                                                             \
        }

INT_ROW(row_i32, int32_t, uint32_t)
INT_ROW(row_i64, int64_t, uint64_t)

/* MAXIMUM/MINIMUM on raw 8/16-bit values (TFLite compares the stored
 * integers; the graph guarantees matching quantization). */
#define MINMAX_ROW(NAME, T)                                                                   \
        static void NAME(void *arg, size_t oo, const size_t *in, const int64_t *st, size_t n) { \
                bin_t *c = arg;                                                               \
                const T *x = (const T *) c->a + in[0], *y = (const T *) c->b + in[1];         \
                T *z = (T *) c->o + oo;                                                       \
                for (size_t i = 0; i < n; i++) {                                              \
                        const T A = x[(int64_t) i * st[0]], B = y[(int64_t) i * st[1]];       \
                        z[i] = c->op == B_MAX ? (A > B ? A : B) : (A < B ? A : B);            \
                }                                                                             \
        }

MINMAX_ROW(row_mm_i8, int8_t)
MINMAX_ROW(row_mm_u8, uint8_t)
MINMAX_ROW(row_mm_i16, int16_t)

static inline int32_t q_addsub(const ew_data_t *d, int32_t a, int32_t b) {
        if (d->pot16) {
                int32_t sa = ku_rdivpot(a, -d->in1_shift);
                int32_t sb = ku_rdivpot(b, -d->in2_shift);
                int32_t r = sa + (d->in2_mul < 0 ? -sb : sb);
                return KU_CLAMP(r, d->act_min, d->act_max);
        }
        const int32_t xa = (int32_t) ((uint32_t) (d->in1_offset + a) << d->left_shift);
        const int32_t xb = (int32_t) ((uint32_t) (d->in2_offset + b) << d->left_shift);
        const int32_t sa = ku_mul_by_qmul(xa, d->in1_mul, d->in1_shift);
        const int32_t sb = ku_mul_by_qmul(xb, d->in2_mul, d->in2_shift);
        int32_t r = ku_mul_by_qmul(sa + sb, d->out_mul, d->out_shift) + d->out_offset;
        return KU_CLAMP(r, d->act_min, d->act_max);
}

static inline int32_t q_mul(const ew_data_t *d, int32_t a, int32_t b) {
        const int32_t xa = d->in1_offset + a, xb = d->in2_offset + b;
        int32_t r = ku_mul_by_qmul(xa * xb, d->out_mul, d->out_shift) + d->out_offset;
        return KU_CLAMP(r, d->act_min, d->act_max);
}

static inline int32_t q_sqdiff(const ew_data_t *d, int32_t a, int32_t b) {
        const int32_t xa = (d->in1_offset + a) * (1 << d->left_shift);
        const int32_t xb = (d->in2_offset + b) * (1 << d->left_shift);
        const int32_t sa = ku_mul_by_qmul(xa, d->in1_mul, d->in1_shift);
        const int32_t sb = ku_mul_by_qmul(xb, d->in2_mul, d->in2_shift);
        const int32_t diff = sa - sb;
        int32_t r = ku_mul_by_qmul(diff * diff, d->out_mul, d->out_shift) + d->out_offset;
        return KU_CLAMP(r, d->act_min, d->act_max);
}

/* gemmlowp SaturatingRoundingMultiplyByPOT for a positive exponent. */
static inline int32_t sat_shl(int32_t x, int e) {
        const int32_t threshold = (int32_t) ((1u << (31 - e)) - 1);
        if (x > threshold)
                return INT32_MAX;
        if (x < -threshold)
                return INT32_MIN;
        return (int32_t) ((uint32_t) x << e);
}

/* gemmlowp one_over_one_plus_x_for_x_in_0_1 on Q0.31: Newton-Raphson with
 * the 48/17 - 32/17 x start, three steps, in Q2.29. */
static int32_t one_over_one_plus_x(int32_t a) {
        const int64_t sum = (int64_t) a + INT32_MAX;
        const int32_t half_den = (int32_t) ((sum + (sum >= 0 ? 1 : -1)) / 2);
        const int32_t c48_17 = 1515870810, cneg32_17 = -1010580540;
        int32_t x = (int32_t) ((uint32_t) c48_17 + (uint32_t) ku_srdhm(half_den, cneg32_17));
        for (int i = 0; i < 3; i++) {
                const int32_t hdx = ku_srdhm(half_den, x);
                const int32_t one_minus = (int32_t) ((uint32_t) (1 << 29) - (uint32_t) hdx);
                x = (int32_t) ((uint32_t) x + (uint32_t) sat_shl(ku_srdhm(x, one_minus), 2));
        }
        /* x/2 as Q1.30, then back to Q0.31. */
        return sat_shl(x, 1);
}

/* TFLite GetReciprocal(x, 31, &bits). */
static int32_t reciprocal(int32_t x, int *ret_bits_over_unit) {
        const int headroom_plus_one = __builtin_clz((uint32_t) x);
        *ret_bits_over_unit = 31 - headroom_plus_one;
        const int32_t shifted_minus_one =
                (int32_t) (((uint32_t) x << headroom_plus_one) - (1u << 31));
        return one_over_one_plus_x(shifted_minus_one);
}

/* TFLite's quantized Div: reciprocal of the divisor, then two rescalings.
 * Sets *ret_zero when the divisor is the zero point. */
static inline int32_t q_div(const ew_data_t *d, int32_t a, int32_t b, bool *ret_zero) {
        int32_t x = d->in1_offset + a, y = d->in2_offset + b;
        if (y == 0) {
                *ret_zero = true;
                return d->out_offset;
        }
        /* TFLite 2.9 flips both signs for a negative divisor (it does not
         * negate the reciprocal): the headroom of -x can differ from that
         * of x by one bit, which changes the rounding (checked against its
         * x86-64 build on all 65,536 input pairs of three models). */
        if (y < 0) {
                x = -x;
                y = -y;
        }
        int recip_shift;
        const int32_t inv = reciprocal(y, &recip_shift);
        const int headroom = __builtin_clrsb(x);
        const int32_t unscaled = ku_srdhm((int32_t) ((uint32_t) x << headroom), inv);
        const int total_shift = d->out_shift - recip_shift - headroom;
        int32_t r = d->out_offset + ku_mul_by_qmul(unscaled, d->out_mul, total_shift);
        return KU_CLAMP(r, d->act_min, d->act_max);
}

#define Q_ROW(NAME, T)                                                                        \
        static void NAME(void *arg, size_t oo, const size_t *in, const int64_t *st, size_t n) { \
                bin_t *c = arg;                                                               \
                const T *x = (const T *) c->a + in[0], *y = (const T *) c->b + in[1];         \
                T *z = (T *) c->o + oo;                                                       \
                const ew_data_t *d = c->d;                                                    \
                const int64_t sx = st[0], sy = st[1];                                         \
                switch (c->op) {                                                              \
                case B_ADD:                                                                   \
                case B_SUB:                                                                   \
                        for (size_t i = 0; i < n; i++)                                        \
                                z[i] = (T) q_addsub(d, x[(int64_t) i * sx], y[(int64_t) i * sy]); \
                        break;                                                                \
                case B_MUL:                                                                   \
                        for (size_t i = 0; i < n; i++)                                        \
                                z[i] = (T) q_mul(d, x[(int64_t) i * sx], y[(int64_t) i * sy]); \
                        break;                                                                \
                case B_SQDIFF:                                                                \
                        for (size_t i = 0; i < n; i++)                                        \
                                z[i] = (T) q_sqdiff(d, x[(int64_t) i * sx], y[(int64_t) i * sy]); \
                        break;                                                                \
                case B_DIV:                                                                   \
                        for (size_t i = 0; i < n; i++)                                        \
                                z[i] = (T) q_div(d, x[(int64_t) i * sx], y[(int64_t) i * sy],  \
                                                 &c->div_by_zero);                            \
                        break;                                                                \
                default:                                                                      \
                        break;                                                                \
                }                                                                             \
        }

Q_ROW(row_q_i8, int8_t)
Q_ROW(row_q_u8, uint8_t)
Q_ROW(row_q_i16, int16_t)

static int binary_invoke(rt_context_t *ctx, rt_node_t *node, bop_t op) {
        const rt_tensor_t *a = rt_node_input(ctx, node, 0), *b = rt_node_input(ctx, node, 1);
        rt_tensor_t *o = rt_node_output(ctx, node, 0);
        if (!a || !b || !o)
                return rt_ctx_error(ctx, "%s: missing tensor", bop_names[op]);
        if (rt_tensor_count(o) == 0)
                return 0;
        if (!a->data || !b->data || !o->data)
                return rt_ctx_error(ctx, "%s: tensor without data", bop_names[op]);
        bin_t c = { .op = op, .a = a->data, .b = b->data, .o = o->data, .d = node->user_data };
        rt_activation_t act = bop_has_activation(op) ? node_activation(node) : RT_ACT_NONE;
        ku_act_range_f32(act, &c.fmin, &c.fmax);
        ew_row_fn row = NULL;
        bool q = bop_quantized(op, a->type);
        switch (a->type) {
        case RT_TYPE_FLOAT32:
                row = row_f32;
                break;
        case RT_TYPE_INT32:
                int_act_range(act, INT32_MIN, INT32_MAX, &c.imin, &c.imax);
                row = row_i32;
                break;
        case RT_TYPE_INT64:
                int_act_range(act, INT64_MIN, INT64_MAX, &c.imin, &c.imax);
                row = row_i64;
                break;
        case RT_TYPE_INT8:
                row = q ? row_q_i8 : row_mm_i8;
                break;
        case RT_TYPE_UINT8:
                row = q ? row_q_u8 : row_mm_u8;
                break;
        case RT_TYPE_INT16:
                row = q ? row_q_i16 : row_mm_i16;
                break;
        default:
                return ew_unsupported(ctx, bop_names[op], a->type, o->type);
        }
        if (q && !c.d)
                return rt_ctx_error(ctx, "%s: node state missing", bop_names[op]);
        ew_bcast_t bc;
        const rt_tensor_t *ins[2] = { a, b };
        ew_bcast_init(&bc, o, ins, 2);
        ew_bcast_run(&bc, row, &c);
        if (c.div_by_zero)
                return rt_ctx_error(ctx, "%s: division by zero", bop_names[op]);
        if (c.neg_exponent)
                return rt_ctx_error(ctx, "POW: integer base to a negative integer power");
        return 0;
}

/* ---- ADD_N ---- */

static int add_n_prepare(rt_context_t *ctx, rt_node_t *node) {
        if (node->n_inputs < 1 || node->n_outputs != 1 || !rt_node_output(ctx, node, 0))
                return rt_ctx_error(ctx, "ADD_N: expected at least 1 input and 1 output");
        const rt_tensor_t *a = rt_node_input(ctx, node, 0);
        const rt_tensor_t *o = rt_node_output(ctx, node, 0);
        if (!a)
                return rt_ctx_error(ctx, "ADD_N: input 0 is missing");
        if (a->type != RT_TYPE_FLOAT32 && a->type != RT_TYPE_INT32)
                return ew_unsupported(ctx, "ADD_N", a->type, o->type);
        if (o->type != a->type)
                return rt_ctx_error(ctx, "ADD_N: output type %s differs from input type %s",
                                    rt_type_name(o->type), rt_type_name(a->type));
        for (int32_t i = 1; i < node->n_inputs; i++) {
                const rt_tensor_t *t = rt_node_input(ctx, node, i);
                if (!t)
                        return rt_ctx_error(ctx, "ADD_N: input %d is missing", i);
                if (t->type != a->type)
                        return rt_ctx_error(ctx, "ADD_N: input %d has type %s, expected %s", i,
                                            rt_type_name(t->type), rt_type_name(a->type));
                if (!ku_same_shape(t, a))
                        return rt_ctx_error(ctx, "ADD_N: input %d has a different shape", i);
        }
        return ew_resize_same(ctx, node, a);
}

static int add_n_invoke(rt_context_t *ctx, rt_node_t *node) {
        rt_tensor_t *o = rt_node_output(ctx, node, 0);
        size_t n = rt_tensor_count(o);
        const rt_tensor_t *a = rt_node_input(ctx, node, 0);
        memcpy(o->data, a->data, n * rt_type_size(o->type));
        for (int32_t k = 1; k < node->n_inputs; k++) {
                const rt_tensor_t *t = rt_node_input(ctx, node, k);
                if (o->type == RT_TYPE_FLOAT32) {
                        float *z = o->data;
                        const float *x = t->data;
                        /* TFLite adds pairwise through its float ADD, clamping
                         * each partial sum to [-FLT_MAX, FLT_MAX]. */
                        for (size_t i = 0; i < n; i++)
                                z[i] = ku_act_f32(z[i] + x[i], -FLT_MAX, FLT_MAX);
                } else {
                        int32_t *z = o->data;
                        const int32_t *x = t->data;
                        for (size_t i = 0; i < n; i++)
                                z[i] = (int32_t) ((uint32_t) z[i] + (uint32_t) x[i]);
                }
        }
        return 0;
}

/* ---- options parsing ---- */

static int parse_arith(const rt_node_t *node, void *ret_params, rt_context_t *ctx) {
        (void) ctx;
        ew_arith_params_t *p = ret_params;
        p->activation = (rt_activation_t) fbt_i8(node->options, 0, 0);
        /* pot_scale_int16 (AddOptions/SubOptions field 1) defaults to true
         * in the schema, but to false when the options table is absent. */
        p->pot_scale_int16 = fbt_present(node->options) ? fbt_bool(node->options, 1, true) : false;
        if (node->op != EW_OP_ADD && node->op != EW_OP_SUB)
                p->pot_scale_int16 = false;
        return 0;
}

#define BINARY_REG(NAME, OPNAME, CODE, BOP, PARSE, PSIZE)                                      \
        static int NAME##_prepare(rt_context_t *ctx, rt_node_t *node) {                       \
                return binary_prepare(ctx, node, BOP);                                        \
        }                                                                                     \
        static int NAME##_invoke(rt_context_t *ctx, rt_node_t *node) {                        \
                return binary_invoke(ctx, node, BOP);                                         \
        }                                                                                     \
        const rt_registration_t rt_kernel_##NAME = {                                          \
                .name = OPNAME,                                                               \
                .op = CODE,                                                                   \
                .params_size = PSIZE,                                                         \
                .parse = PARSE,                                                               \
                .init = ew_data_init,                                                         \
                .free = ew_data_free,                                                         \
                .prepare = NAME##_prepare,                                                    \
                .invoke = NAME##_invoke,                                                      \
        };

BINARY_REG(add, "ADD", EW_OP_ADD, B_ADD, parse_arith, sizeof(ew_arith_params_t))
BINARY_REG(sub, "SUB", EW_OP_SUB, B_SUB, parse_arith, sizeof(ew_arith_params_t))
BINARY_REG(mul, "MUL", EW_OP_MUL, B_MUL, parse_arith, sizeof(ew_arith_params_t))
BINARY_REG(div, "DIV", EW_OP_DIV, B_DIV, parse_arith, sizeof(ew_arith_params_t))
BINARY_REG(squared_difference, "SQUARED_DIFFERENCE", EW_OP_SQUARED_DIFFERENCE, B_SQDIFF, NULL, 0)
BINARY_REG(maximum, "MAXIMUM", EW_OP_MAXIMUM, B_MAX, NULL, 0)
BINARY_REG(minimum, "MINIMUM", EW_OP_MINIMUM, B_MIN, NULL, 0)
BINARY_REG(pow, "POW", EW_OP_POW, B_POW, NULL, 0)
BINARY_REG(floor_div, "FLOOR_DIV", EW_OP_FLOOR_DIV, B_FLOOR_DIV, NULL, 0)
BINARY_REG(floor_mod, "FLOOR_MOD", EW_OP_FLOOR_MOD, B_FLOOR_MOD, NULL, 0)

const rt_registration_t rt_kernel_add_n = {
        .name = "ADD_N",
        .op = EW_OP_ADD_N,
        .prepare = add_n_prepare,
        .invoke = add_n_invoke,
};
