/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unary math: ABS, NEG, CEIL, FLOOR, ROUND, SQRT, RSQRT, SQUARE, EXP, LOG,
 * SIN, COS, SIGN. Float32 everywhere; integer types where TFLite has them
 * (ABS int32 and quantized int8/int16 with rescaling, NEG int32/int64,
 * SIGN int32, RSQRT int8 with TFLite's fixed-point inverse square root).
 */
#include <math.h>

#include "ew.h"

typedef enum uop {
        U_ABS,
        U_NEG,
        U_CEIL,
        U_FLOOR,
        U_ROUND,
        U_SQRT,
        U_RSQRT,
        U_SQUARE,
        U_EXP,
        U_LOG,
        U_SIN,
        U_COS,
        U_SIGN,
} uop_t;

static const char *const uop_names[] = {
        [U_ABS] = "ABS",
        [U_NEG] = "NEG",
        [U_CEIL] = "CEIL",
        [U_FLOOR] = "FLOOR",
        [U_ROUND] = "ROUND",
        [U_SQRT] = "SQRT",
        [U_RSQRT] = "RSQRT",
        [U_SQUARE] = "SQUARE",
        [U_EXP] = "EXP",
        [U_LOG] = "LOG",
        [U_SIN] = "SIN",
        [U_COS] = "COS",
        [U_SIGN] = "SIGN",
};

static bool uop_supports(uop_t op, rt_type_t t) {
        if (t == RT_TYPE_FLOAT32)
                return true;
        switch (op) {
        case U_ABS:
                return t == RT_TYPE_INT32 || t == RT_TYPE_INT8 || t == RT_TYPE_INT16;
        case U_NEG:
                return t == RT_TYPE_INT32 || t == RT_TYPE_INT64;
        case U_SIGN:
                return t == RT_TYPE_INT32;
        case U_RSQRT:
                return t == RT_TYPE_INT8;
        default:
                return false;
        }
}

/* TFLite's RoundToNearest: halves go to the even neighbour. */
static float round_half_even(float x) {
        const float f = floorf(x);
        const float diff = x - f;
        if (diff < 0.5f || (diff == 0.5f && fmodf(f, 2.0f) == 0.0f))
                return f;
        return f + 1.0f;
}

static int unary_prepare(rt_context_t *ctx, rt_node_t *node, uop_t op) {
        const char *name = uop_names[op];
        int r = ew_check_io(ctx, node, name, 1, 1);
        if (r < 0)
                return r;
        const rt_tensor_t *a = rt_node_input(ctx, node, 0);
        const rt_tensor_t *o = rt_node_output(ctx, node, 0);
        if (o->type != a->type)
                return rt_ctx_error(ctx, "%s: output type %s differs from input type %s", name,
                                    rt_type_name(o->type), rt_type_name(a->type));
        if (!uop_supports(op, a->type))
                return ew_unsupported(ctx, name, a->type, o->type);
        if (op == U_ABS && (a->type == RT_TYPE_INT8 || a->type == RT_TYPE_INT16)) {
                ew_data_t *d = node->user_data;
                if (!d)
                        return rt_ctx_error(ctx, "ABS: node state missing");
                if (a->type == RT_TYPE_INT16 && (a->zero_point || o->zero_point))
                        return rt_ctx_error(ctx, "ABS: int16 needs zero points of 0");
                d->in1_offset = a->zero_point;
                d->out_offset = o->zero_point;
                d->rescale = a->scale != o->scale;
                if (d->rescale) {
                        if (!(o->scale > 0))
                                return rt_ctx_error(ctx, "ABS: output needs a positive scale");
                        /* The float quotient, widened (TFLite's AbsPrepare). */
                        ku_quantize_multiplier((double) (a->scale / o->scale), &d->out_mul, &d->out_shift);
                }
        }
        if (op == U_RSQRT && a->type == RT_TYPE_INT8) {
                ew_data_t *d = node->user_data;
                if (!d)
                        return rt_ctx_error(ctx, "RSQRT: node state missing");
                if (!(a->scale > 0) || !(o->scale > 0))
                        return rt_ctx_error(ctx, "RSQRT: int8 tensors need positive scales");
                d->in1_offset = a->zero_point;
                d->out_offset = o->zero_point;
                /* Single-precision sqrt and product, widened: as TFLite. */
                const float denom = sqrtf(a->scale) * o->scale;
                ku_quantize_multiplier(1.0 / (double) denom, &d->out_mul, &d->out_shift);
        }
        return ew_resize_same(ctx, node, a);
}

/* gemmlowp SaturatingRoundingMultiplyByPOT for a positive exponent. */
static int32_t sat_shift_left(int32_t x, int e) {
        const int32_t threshold = (int32_t) ((1u << (31 - e)) - 1);
        if (x > threshold)
                return INT32_MAX;
        if (x < -threshold)
                return INT32_MIN;
        return (int32_t) ((uint32_t) x << e);
}

/*
 * TFLite's GetInvSqrtQuantizedMultiplierExp: 1/sqrt(input) as a Q31
 * multiplier and a left shift, by five Newton-Raphson steps in gemmlowp
 * fixed point with 3 integer bits.
 */
static void inv_sqrt_multiplier(int32_t input, int32_t *ret_mul, int *ret_shift) {
        if (input <= 1) {
                *ret_mul = INT32_MAX;
                *ret_shift = 0;
                return;
        }
        int shift = 11;
        while (input >= (1 << 29)) {
                input /= 4;
                shift++;
        }
        const unsigned max_left_shift_bits = (unsigned) __builtin_clz((uint32_t) input) - 1;
        const unsigned pairs = max_left_shift_bits / 2 - 1;
        shift -= (int) pairs;
        input = (int32_t) ((uint32_t) input << (2 * pairs));
        const int32_t fx_input = input >> 1;                 /* F3 */
        const int32_t fx_half_input = ku_rdivpot(fx_input, 1);
        const int32_t fx_half_three = (1 << 28) + (1 << 27); /* 1.5 in F3 */
        int32_t x = 1 << 28;                                  /* 1.0 in F3 */
        for (int i = 0; i < 5; i++) {
                /* x*x*x is F9; back to F3. */
                const int32_t x3 = sat_shift_left(ku_srdhm(ku_srdhm(x, x), x), 6);
                /* Both products are F6; their difference back to F3. */
                const int32_t diff = (int32_t) ((uint32_t) ku_srdhm(fx_half_three, x) -
                                                (uint32_t) ku_srdhm(fx_half_input, x3));
                x = sat_shift_left(diff, 3);
        }
        x = ku_srdhm(x, 1518500250); /* times sqrt(2)/2 in F0 */
        if (shift < 0) {
                x = (int32_t) ((uint32_t) x << -shift);
                shift = 0;
        }
        *ret_mul = x;
        *ret_shift = -shift; /* right shift -> left shift */
}

static int rsqrt_int8(rt_context_t *ctx, const ew_data_t *d, const int8_t *x, int8_t *z,
                      size_t n) {
        const int k_shift = 20;
        for (size_t i = 0; i < n; i++) {
                const int32_t v = x[i] - d->in1_offset;
                if (v < 0)
                        return rt_ctx_error(ctx, "RSQRT: only defined for positive values");
                if (v == 0) {
                        z[i] = 127;
                        continue;
                }
                int32_t m;
                int s;
                inv_sqrt_multiplier(v, &m, &s);
                const int32_t data = ku_mul_by_qmul(1, m, s + k_shift);
                int32_t r = ku_mul_by_qmul(data, d->out_mul, d->out_shift - k_shift) +
                            d->out_offset;
                z[i] = (int8_t) KU_CLAMP(r, -128, 127);
        }
        return 0;
}

#define QABS(NAME, T)                                                                         \
        static void NAME(const ew_data_t *d, const T *x, T *z, size_t n) {                    \
                int32_t lo, hi;                                                               \
                ku_type_range(sizeof(T) == 1 ? RT_TYPE_INT8 : RT_TYPE_INT16, &lo, &hi);       \
                for (size_t i = 0; i < n; i++) {                                              \
                        int32_t v = x[i] - d->in1_offset;                                     \
                        v = v < 0 ? -v : v;                                                   \
                        int32_t r = d->rescale ? ku_mul_by_qmul(v, d->out_mul, d->out_shift)  \
                                               : v;                                           \
                        r += d->out_offset;                                                   \
                        z[i] = (T) KU_CLAMP(r, lo, hi);                                       \
                }                                                                             \
        }

QABS(qabs_i8, int8_t)
QABS(qabs_i16, int16_t)

static int unary_invoke(rt_context_t *ctx, rt_node_t *node, uop_t op) {
        const rt_tensor_t *a = rt_node_input(ctx, node, 0);
        rt_tensor_t *o = rt_node_output(ctx, node, 0);
        size_t n = rt_tensor_count(o);
        if (n == 0)
                return 0;
        switch (a->type) {
        case RT_TYPE_FLOAT32: {
                const float *x = a->data;
                float *z = o->data;
                for (size_t i = 0; i < n; i++) {
                        const float v = x[i];
                        float r = 0.0f;
                        switch (op) {
                        case U_ABS: r = fabsf(v); break;
                        case U_NEG: r = -v; break;
                        case U_CEIL: r = ceilf(v); break;
                        case U_FLOOR: r = floorf(v); break;
                        case U_ROUND: r = round_half_even(v); break;
                        case U_SQRT: r = sqrtf(v); break;
                        case U_RSQRT: r = 1.0f / sqrtf(v); break;
                        case U_SQUARE: r = v * v; break;
                        case U_EXP: r = expf(v); break;
                        case U_LOG: r = logf(v); break;
                        case U_SIN: r = sinf(v); break;
                        case U_COS: r = cosf(v); break;
                        case U_SIGN: r = (float) ((v > 0.0f) - (v < 0.0f)); break;
                        }
                        z[i] = r;
                }
                return 0;
        }
        case RT_TYPE_INT32: {
                const int32_t *x = a->data;
                int32_t *z = o->data;
                for (size_t i = 0; i < n; i++) {
                        const int32_t v = x[i];
                        switch (op) {
                        case U_ABS: z[i] = v < 0 ? (int32_t) (0u - (uint32_t) v) : v; break;
                        case U_NEG: z[i] = (int32_t) (0u - (uint32_t) v); break;
                        default: z[i] = (v > 0) - (v < 0); break;
                        }
                }
                return 0;
        }
        case RT_TYPE_INT64: {
                const int64_t *x = a->data;
                int64_t *z = o->data;
                for (size_t i = 0; i < n; i++)
                        z[i] = (int64_t) (0u - (uint64_t) x[i]);
                return 0;
        }
        case RT_TYPE_INT8:
                if (op == U_RSQRT)
                        return rsqrt_int8(ctx, node->user_data, a->data, o->data, n);
                qabs_i8(node->user_data, a->data, o->data, n);
                return 0;
        case RT_TYPE_INT16:
                qabs_i16(node->user_data, a->data, o->data, n);
                return 0;
        default:
                return ew_unsupported(ctx, uop_names[op], a->type, o->type);
        }
}

#define UNARY_REG(NAME, OPNAME, CODE, UOP)                                                    \
        static int NAME##_prepare(rt_context_t *ctx, rt_node_t *node) {                       \
                return unary_prepare(ctx, node, UOP);                                         \
        }                                                                                     \
        static int NAME##_invoke(rt_context_t *ctx, rt_node_t *node) {                        \
                return unary_invoke(ctx, node, UOP);                                          \
        }                                                                                     \
        const rt_registration_t rt_kernel_##NAME = {                                          \
                .name = OPNAME,                                                               \
                .op = CODE,                                                                   \
                .init = ew_data_init,                                                         \
                .free = ew_data_free,                                                         \
                .prepare = NAME##_prepare,                                                    \
                .invoke = NAME##_invoke,                                                      \
        };

UNARY_REG(abs, "ABS", EW_OP_ABS, U_ABS)
UNARY_REG(neg, "NEG", EW_OP_NEG, U_NEG)
UNARY_REG(ceil, "CEIL", EW_OP_CEIL, U_CEIL)
UNARY_REG(floor, "FLOOR", EW_OP_FLOOR, U_FLOOR)
UNARY_REG(round, "ROUND", EW_OP_ROUND, U_ROUND)
UNARY_REG(sqrt, "SQRT", EW_OP_SQRT, U_SQRT)
UNARY_REG(rsqrt, "RSQRT", EW_OP_RSQRT, U_RSQRT)
UNARY_REG(square, "SQUARE", EW_OP_SQUARE, U_SQUARE)
UNARY_REG(exp, "EXP", EW_OP_EXP, U_EXP)
UNARY_REG(log, "LOG", EW_OP_LOG, U_LOG)
UNARY_REG(sin, "SIN", EW_OP_SIN, U_SIN)
UNARY_REG(cos, "COS", EW_OP_COS, U_COS)
UNARY_REG(sign, "SIGN", EW_OP_SIGN, U_SIGN)
