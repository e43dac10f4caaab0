/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Activation functions: RELU, RELU6, RELU_N1_TO_1, RELU_0_TO_1, TANH,
 * LOGISTIC, ELU, HARD_SWISH, LEAKY_RELU, PRELU, GELU.
 *
 * 8-bit TANH, LOGISTIC, ELU and GELU use a 256-entry table built the way
 * TFLite's builtin (generic optimized) kernels build theirs, so results match
 * TFLite's default kernels bit for bit. int16 TANH/LOGISTIC use gemmlowp's
 * 16-bit fixed point for TFLite's power-of-two input scales and TFLite's
 * sigmoid-table interpolation (lut16.c) for every other scale. Quantized
 * RELUs, LEAKY_RELU, PRELU and HARD_SWISH rescale with fixed-point
 * multipliers as TFLite does. The RELUs, LEAKY_RELU and PRELU take their
 * real multipliers from the float scales in float arithmetic (TFLite's
 * Prepare divides two floats and only then widens to double): the double
 * quotient can land on the other side of a rounding tie, one step off.
 */
#include <math.h>

#include "ew.h"
#include "fastmath.h"
#include "lut16.h"

static int same_type_check(rt_context_t *ctx, const char *name, const rt_tensor_t *a,
                           const rt_tensor_t *o) {
        if (o->type != a->type)
                return rt_ctx_error(ctx, "%s: output type %s differs from input type %s", name,
                                    rt_type_name(o->type), rt_type_name(a->type));
        return 0;
}

static bool is_q(rt_type_t t) {
        return t == RT_TYPE_INT8 || t == RT_TYPE_UINT8 || t == RT_TYPE_INT16;
}

/* ---- RELU family ---- */

typedef struct relu_kind {
        const char *name;
        float lo, hi;
        bool int16;  /* TFLite has an int16 kernel for this one */
        bool nan_lo; /* float NaN becomes lo (TFLite's RELU6 takes max(lo, x) first) */
} relu_kind_t;

static const relu_kind_t relu_kinds[] = {
        { "RELU", 0.0f, INFINITY, true, false },
        { "RELU6", 0.0f, 6.0f, true, true },
        { "RELU_N1_TO_1", -1.0f, 1.0f, false, false },
        { "RELU_0_TO_1", 0.0f, 1.0f, false, false },
};

static int relu_kind_prepare(rt_context_t *ctx, rt_node_t *node, const relu_kind_t *k) {
        int r = ew_check_io(ctx, node, k->name, 1, 1);
        if (r < 0)
                return r;
        const rt_tensor_t *a = rt_node_input(ctx, node, 0);
        const rt_tensor_t *o = rt_node_output(ctx, node, 0);
        if ((r = same_type_check(ctx, k->name, a, o)) < 0)
                return r;
        if (a->type != RT_TYPE_FLOAT32 && a->type != RT_TYPE_INT8 && a->type != RT_TYPE_UINT8 &&
            !(k->int16 && a->type == RT_TYPE_INT16))
                return ew_unsupported(ctx, k->name, a->type, o->type);
        if (is_q(a->type)) {
                ew_data_t *d = node->user_data;
                if (!d)
                        return rt_ctx_error(ctx, "%s: node state missing", k->name);
                if (!(o->scale > 0))
                        return rt_ctx_error(ctx, "%s: output needs a positive scale", k->name);
                if (a->type == RT_TYPE_INT16 && (a->zero_point || o->zero_point))
                        return rt_ctx_error(ctx, "%s: int16 needs zero points of 0", k->name);
                ku_quantize_multiplier((double) (a->scale / o->scale), &d->out_mul, &d->out_shift);
                d->in1_offset = a->zero_point;
                d->out_offset = o->zero_point;
                int32_t qmin, qmax;
                ku_type_range(o->type, &qmin, &qmax);
                d->act_min = KU_MAX(qmin, o->zero_point + (int32_t) roundf(k->lo / o->scale));
                d->act_max = isinf(k->hi) ? qmax
                                          : KU_MIN(qmax, o->zero_point +
                                                                 (int32_t) roundf(k->hi / o->scale));
        }
        return ew_resize_same(ctx, node, a);
}

#define QRELU(NAME, T)                                                                        \
        static void NAME(const ew_data_t *d, const T *x, T *z, size_t n) {                    \
                for (size_t i = 0; i < n; i++) {                                              \
                        int32_t r = d->out_offset + ku_mul_by_qmul(x[i] - d->in1_offset,      \
                                                                   d->out_mul, d->out_shift); \
                        z[i] = (T) KU_CLAMP(r, d->act_min, d->act_max);                       \
                }                                                                             \
        }

QRELU(qrelu_i8, int8_t)
QRELU(qrelu_u8, uint8_t)
QRELU(qrelu_i16, int16_t)

static int relu_kind_invoke(rt_context_t *ctx, rt_node_t *node, const relu_kind_t *k) {
        const rt_tensor_t *a = rt_node_input(ctx, node, 0);
        rt_tensor_t *o = rt_node_output(ctx, node, 0);
        size_t n = rt_tensor_count(o);
        switch (a->type) {
        case RT_TYPE_FLOAT32: {
                const float *x = a->data;
                float *z = o->data;
                for (size_t i = 0; i < n; i++)
                        z[i] = k->nan_lo && isnan(x[i]) ? k->lo : ku_act_f32(x[i], k->lo, k->hi);
                return 0;
        }
        case RT_TYPE_INT8:
                qrelu_i8(node->user_data, a->data, o->data, n);
                return 0;
        case RT_TYPE_UINT8:
                qrelu_u8(node->user_data, a->data, o->data, n);
                return 0;
        case RT_TYPE_INT16:
                qrelu_i16(node->user_data, a->data, o->data, n);
                return 0;
        default:
                return ew_unsupported(ctx, k->name, a->type, o->type);
        }
}

#define RELU_REG(NAME, OPNAME, CODE, IDX)                                                     \
        static int NAME##_prepare(rt_context_t *ctx, rt_node_t *node) {                       \
                return relu_kind_prepare(ctx, node, &relu_kinds[IDX]);                             \
        }                                                                                     \
        static int NAME##_invoke(rt_context_t *ctx, rt_node_t *node) {                        \
                return relu_kind_invoke(ctx, node, &relu_kinds[IDX]);                              \
        }                                                                                     \
        const rt_registration_t rt_kernel_##NAME = {                                          \
                .name = OPNAME,                                                               \
                .op = CODE,                                                                   \
                .init = ew_data_init,                                                         \
                .free = ew_data_free,                                                         \
                .prepare = NAME##_prepare,                                                    \
                .invoke = NAME##_invoke,                                                      \
        };

RELU_REG(relu, "RELU", EW_OP_RELU, 0)
RELU_REG(relu6, "RELU6", EW_OP_RELU6, 1)
RELU_REG(relu_n1_to_1, "RELU_N1_TO_1", EW_OP_RELU_N1_TO_1, 2)
RELU_REG(relu_0_to_1, "RELU_0_TO_1", EW_OP_RELU_0_TO_1, 3)

/* ---- int16 LOGISTIC/TANH: gemmlowp fixed point on 16-bit raws ----
 *
 * TFLite 2.9's builtin kernels run int16 LOGISTIC (input scale 2^-12) and
 * TANH (input scale 2^-12 or 2^-11) through gemmlowp::logistic/tanh on
 * FixedPoint<int16_t, 3>, output scale 2^-15. Below is that arithmetic on
 * plain int16 values: wrap-around adds, rounding doubling high multiplies,
 * saturating power-of-two shifts. */

static inline int16_t w16(int32_t v) {
        return (int16_t) (uint16_t) (uint32_t) v;
}

/* A gemmlowp 32-bit constant rescaled to 16 bits. */
static inline int16_t k16(int32_t c) {
        return (int16_t) ku_rdivpot(c, 16);
}

static inline int16_t sat_pot16(int16_t x, int e) {
        const int32_t threshold = (1 << (15 - e)) - 1;
        if (x > threshold)
                return INT16_MAX;
        if (x < -threshold)
                return INT16_MIN;
        return (int16_t) (x * (1 << e));
}

static int16_t srdhm16(int16_t a, int16_t b);

/* exp(a) for a in [-1/4, 0), a in Q0.15. */
static int16_t exp_quarter16(int16_t a) {
        const int16_t constant_term = k16(1895147668);   /* exp(-1/8) */
        const int16_t one_third = k16(715827883);
        const int16_t x = w16(a + (1 << 12));           /* a + 1/8 */
        const int16_t x2 = srdhm16(x, x);
        const int16_t x3 = srdhm16(x2, x);
        const int16_t x4 = srdhm16(x2, x2);
        const int16_t x4_over_4 = (int16_t) ku_rdivpot(x4, 2);
        const int16_t poly = (int16_t) ku_rdivpot(
                w16(srdhm16(w16(x4_over_4 + x3), one_third) + x2), 1);
        const int32_t sum = constant_term + srdhm16(constant_term, w16(x + poly));
        return (int16_t) KU_CLAMP(sum, INT16_MIN, INT16_MAX);
}

/* exp(a) for a <= 0 with `int_bits` integer bits; result in Q0.15. */
static int16_t exp_negative16(int16_t a, int int_bits) {
        static const int32_t multipliers[7] = {
                1672461947, 1302514674, 790015084, 290630308, 39332535, 720401, 242,
        };
        const int frac_bits = 15 - int_bits;
        const int16_t one_quarter = (int16_t) (1 << (frac_bits - 2));
        const int16_t mask = (int16_t) (one_quarter - 1);
        const int16_t a_mod = w16((a & mask) - one_quarter);
        int16_t result = exp_quarter16(sat_pot16(a_mod, int_bits));
        const int16_t remainder = w16(a_mod - a);
        for (int e = -2; e <= 4; e++) {
                if (int_bits > e && (remainder & (1 << (frac_bits + e))))
                        result = srdhm16(result, k16(multipliers[e + 2]));
        }
        return a == 0 ? INT16_MAX : result;
}

/* Newton-Raphson 1/(1+a) (or (1-a)/(1+a)) for a in [0, 1), Q0.15. */
static int16_t nr_reciprocal16(int16_t a, bool one_minus) {
        const int32_t sum = a + INT16_MAX;
        const int16_t half_den = (int16_t) ((sum + (sum >= 0 ? 1 : -1)) / 2);
        const int16_t one_q2 = 1 << 13;
        int16_t x = w16(k16(1515870810) + srdhm16(half_den, k16(-1010580540)));
        for (int i = 0; i < 3; i++) {
                const int16_t hdx = srdhm16(half_den, x);
                x = w16(x + sat_pot16(srdhm16(x, w16(one_q2 - hdx)), 2));
        }
        return one_minus ? sat_pot16(w16(x - one_q2), 2) : sat_pot16(x, 1);
}

static int16_t logistic16(int16_t a) {
        if (a == 0)
                return 1 << 14;
        const int16_t abs_a = a > 0 ? a : w16(-a);
        const int16_t pos = nr_reciprocal16(exp_negative16(w16(-abs_a), 3), false);
        return a > 0 ? pos : w16(INT16_MAX - pos);
}

static int16_t tanh16(int16_t a) {
        if (a == 0)
                return 0;
        const int16_t n = a < 0 ? a : w16(-a);
        /* exp(2n): the same raw read with one more integer bit. */
        const int16_t t = nr_reciprocal16(exp_negative16(n, 4), true);
        return a < 0 ? w16(-t) : t;
}

/* ---- table-driven and float activations: TANH, LOGISTIC, ELU, GELU ---- */

typedef enum fop {
        F_TANH,
        F_LOGISTIC,
        F_ELU,
        F_GELU,
} fop_t;

static const char *const fop_names[] = {
        [F_TANH] = "TANH",
        [F_LOGISTIC] = "LOGISTIC",
        [F_ELU] = "ELU",
        [F_GELU] = "GELU",
};

static float f_tanh(float x, const void *arg) {
        (void) arg;
        return tanhf(x);
}

static float f_logistic(float x, const void *arg) {
        (void) arg;
        return 1.0f / (1.0f + expf(-x));
}

static float f_elu(float x, const void *arg) {
        (void) arg;
        return x < 0.0f ? expm1f(x) : x;
}

/* The 8-bit tables: TFLite fills them with libm's erf / tanh. */
static float f_gelu(float x, const void *arg) {
        const ew_gelu_params_t *p = arg;
        if (p && p->approximate) {
                /* sqrt(2 / pi) */
                const float k = 0.7978845608028654f;
                return 0.5f * x * (1.0f + tanhf(k * (x + 0.044715f * x * x * x)));
        }
        return 0.5f * x * erfcf(x * -0.7071067811865476f);
}

/* The float kernels: TFLite evaluates tanh and erf with Eigen's
 * approximations (fastmath.h), x^3 as x * x * x before scaling. */
static float f_gelu_float(float x, const void *arg) {
        const ew_gelu_params_t *p = arg;
        if (p && p->approximate) {
                const float k = 0.7978845608028654f;
                return 0.5f * x * (1.0f + ew_tanh_fast(k * (x + 0.044715f * (x * x * x))));
        }
        return 0.5f * x * (1.0f + ew_erf_fast(x * 0.7071067811865476f));
}

static float f_tanh_float(float x, const void *arg) {
        (void) arg;
        return ew_tanh_fast(x);
}

/* The float kernel (TFLite's optimized one): 1 where 1/(1+e^-x) rounds to 1,
 * the plain formula elsewhere (no e^x shortcut below -9). */
static float f_logistic_cutoff(float x, const void *arg) {
        (void) arg;
        if (x > 16.619047164916992188f)
                return 1.0f;
        return 1.0f / (1.0f + expf(-x));
}

static float (*const fop_fns[])(float, const void *) = {
        [F_TANH] = f_tanh,
        [F_LOGISTIC] = f_logistic,
        [F_ELU] = f_elu,
        [F_GELU] = f_gelu,
};

static bool fop_lut_type(fop_t op, rt_type_t t) {
        if (op == F_ELU)
                return t == RT_TYPE_INT8;
        return t == RT_TYPE_INT8 || t == RT_TYPE_UINT8;
}

static int fop_prepare(rt_context_t *ctx, rt_node_t *node, fop_t op) {
        const char *name = fop_names[op];
        int r = ew_check_io(ctx, node, name, 1, 1);
        if (r < 0)
                return r;
        const rt_tensor_t *a = rt_node_input(ctx, node, 0);
        const rt_tensor_t *o = rt_node_output(ctx, node, 0);
        if ((r = same_type_check(ctx, name, a, o)) < 0)
                return r;
        if (a->type == RT_TYPE_INT16 && (op == F_TANH || op == F_LOGISTIC)) {
                ew_data_t *d = node->user_data;
                int in_log2, out_log2;
                if (!d)
                        return rt_ctx_error(ctx, "%s: node state missing", name);
                if (a->zero_point || o->zero_point)
                        return rt_ctx_error(ctx, "%s: int16 needs zero points of 0", name);
                if (!ew_checked_log2(o->scale, &out_log2) || out_log2 != -15)
                        return rt_ctx_error(ctx, "%s: int16 output scale must be 2^-15", name);
                /* TFLite's generic kernel also wants LOGISTIC's exactly. */
                if (op == F_LOGISTIC && o->scale != 1.0f / 32768.0f)
                        return rt_ctx_error(ctx, "LOGISTIC: int16 output scale must be 2^-15");
                /* Power-of-two input scales its fixed-point kernel takes go
                 * there (in1_mul 0); every other scale to the table. */
                bool pot = ew_checked_log2(a->scale, &in_log2);
                d->left_shift = 12 + in_log2;
                d->in1_mul = 0;
                if (pot && d->left_shift >= 0 && d->left_shift <= (op == F_TANH ? 1 : 0))
                        return ew_resize_same(ctx, node, a);
                if (ew_lut16_rescale(a->scale, &d->in1_mul, &d->left_shift) < 0)
                        return rt_ctx_error(ctx, "%s: int16 input scale %g out of range", name,
                                            (double) a->scale);
                return ew_resize_same(ctx, node, a);
        }
        if (a->type != RT_TYPE_FLOAT32 && !fop_lut_type(op, a->type))
                return ew_unsupported(ctx, name, a->type, o->type);
        if (a->type != RT_TYPE_FLOAT32) {
                ew_data_t *d = node->user_data;
                if (!d)
                        return rt_ctx_error(ctx, "%s: node state missing", name);
                if (!(o->scale > 0))
                        return rt_ctx_error(ctx, "%s: output needs a positive scale", name);
                if (op == F_LOGISTIC && o->scale != 1.0f / 256.0f)
                        return rt_ctx_error(ctx, "LOGISTIC: 8-bit output scale must be 1/256");
                ew_lut_populate(d, a, o, fop_fns[op], op == F_GELU ? node->params : NULL);
        }
        return ew_resize_same(ctx, node, a);
}

static int fop_invoke(rt_context_t *ctx, rt_node_t *node, fop_t op) {
        const rt_tensor_t *a = rt_node_input(ctx, node, 0);
        rt_tensor_t *o = rt_node_output(ctx, node, 0);
        if (a->type == RT_TYPE_FLOAT32) {
                const float *x = a->data;
                float *z = o->data;
                size_t n = rt_tensor_count(o);
                const void *arg = op == F_GELU ? node->params : NULL;
                float (*fn)(float, const void *) = op == F_LOGISTIC ? f_logistic_cutoff
                                                   : op == F_TANH   ? f_tanh_float
                                                   : op == F_GELU   ? f_gelu_float
                                                                    : fop_fns[op];
                for (size_t i = 0; i < n; i++)
                        z[i] = fn(x[i], arg);
                return 0;
        }
        const ew_data_t *d = node->user_data;
        if (a->type == RT_TYPE_INT16 && d) {
                const int16_t *x = a->data;
                int16_t *z = o->data;
                size_t n = rt_tensor_count(o);
                if (d->in1_mul > 0) {
                        if (op == F_TANH)
                                ew_lut16_tanh(x, z, n, d->in1_mul, d->left_shift);
                        else
                                ew_lut16_logistic(x, z, n, d->in1_mul, d->left_shift);
                        return 0;
                }
                for (size_t i = 0; i < n; i++) {
                        int16_t v = d->left_shift ? sat_pot16(x[i], d->left_shift) : x[i];
                        z[i] = op == F_TANH ? tanh16(v) : logistic16(v);
                }
                return 0;
        }
        if (!d || !d->has_lut)
                return ew_unsupported(ctx, fop_names[op], a->type, o->type);
        ew_lut_apply(d, a, o);
        return 0;
}

static int parse_gelu(const rt_node_t *node, void *ret_params, rt_context_t *ctx) {
        (void) ctx;
        ew_gelu_params_t *p = ret_params;
        p->approximate = fbt_bool(node->options, 0, false);
        return 0;
}

#define FOP_REG(NAME, OPNAME, CODE, FOP, PARSE, PSIZE)                                         \
        static int NAME##_prepare(rt_context_t *ctx, rt_node_t *node) {                       \
                return fop_prepare(ctx, node, FOP);                                           \
        }                                                                                     \
        static int NAME##_invoke(rt_context_t *ctx, rt_node_t *node) {                        \
                return fop_invoke(ctx, node, FOP);                                            \
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

FOP_REG(tanh, "TANH", EW_OP_TANH, F_TANH, NULL, 0)
FOP_REG(logistic, "LOGISTIC", EW_OP_LOGISTIC, F_LOGISTIC, NULL, 0)
FOP_REG(elu, "ELU", EW_OP_ELU, F_ELU, NULL, 0)
FOP_REG(gelu, "GELU", EW_OP_GELU, F_GELU, parse_gelu, sizeof(ew_gelu_params_t))

/* ---- HARD_SWISH ---- */

/* TFLite's DownScaleInt32ToInt16Multiplier. */
static int16_t downscale_multiplier(int32_t m) {
        if (m >= INT32_MAX - (1 << 15))
                return INT16_MAX;
        return (int16_t) ((m + (1 << 15)) >> 16);
}

/* gemmlowp SaturatingRoundingDoublingHighMul on int16. */
static int16_t srdhm16(int16_t a, int16_t b) {
        if (a == b && a == INT16_MIN)
                return INT16_MAX;
        const int32_t ab = (int32_t) a * (int32_t) b;
        const int32_t nudge = ab >= 0 ? (1 << 14) : (1 - (1 << 14));
        return (int16_t) ((ab + nudge) / (1 << 15));
}

/* The same, truncating toward zero (ARM SQDMULH). */
static int16_t sdhm16(int16_t a, int16_t b) {
        if (a == b && a == INT16_MIN)
                return INT16_MAX;
        return (int16_t) (((int32_t) a * (int32_t) b) / (1 << 15));
}

static int16_t sat_shift16(int16_t v, int amount) {
        int64_t r = (int64_t) v * ((int64_t) 1 << amount);
        return (int16_t) KU_CLAMP(r, INT16_MIN, INT16_MAX);
}

static int hard_swish_prepare(rt_context_t *ctx, rt_node_t *node) {
        int r = ew_check_io(ctx, node, "HARD_SWISH", 1, 1);
        if (r < 0)
                return r;
        const rt_tensor_t *a = rt_node_input(ctx, node, 0);
        const rt_tensor_t *o = rt_node_output(ctx, node, 0);
        if ((r = same_type_check(ctx, "HARD_SWISH", a, o)) < 0)
                return r;
        if (a->type != RT_TYPE_FLOAT32 && a->type != RT_TYPE_INT8 && a->type != RT_TYPE_UINT8)
                return ew_unsupported(ctx, "HARD_SWISH", a->type, o->type);
        if (a->type != RT_TYPE_FLOAT32) {
                ew_data_t *d = node->user_data;
                if (!d)
                        return rt_ctx_error(ctx, "HARD_SWISH: node state missing");
                if (!(a->scale > 0) || !(o->scale > 0))
                        return rt_ctx_error(ctx, "HARD_SWISH: quantized tensors need a positive "
                                            "scale");
                /* Single-precision scales, as TFLite computes them. */
                const float hires_input_scale = (1.0f / 128.0f) * a->scale;
                const float reluish_scale = 3.0f / 32768.0f;
                const float output_multiplier = hires_input_scale / o->scale;
                const float reluish_multiplier = hires_input_scale / reluish_scale;
                int32_t m;
                ku_quantize_multiplier(output_multiplier, &m, &d->out_shift);
                d->out_mul = downscale_multiplier(m);
                if (d->out_shift > 0)
                        return rt_ctx_error(ctx, "HARD_SWISH: output scale too small for the "
                                            "input scale");
                ku_quantize_multiplier(reluish_multiplier, &m, &d->shift2);
                d->mul2 = downscale_multiplier(m);
                d->in1_offset = a->zero_point;
                d->out_offset = o->zero_point;
        }
        return ew_resize_same(ctx, node, a);
}

/* TFLite's reference quantized HardSwish, step for step. */
static int32_t hard_swish_q(const ew_data_t *d, int32_t q) {
        const int16_t in = (int16_t) (q - d->in1_offset);
        const int16_t hires = (int16_t) (in * (1 << 7));
        const int16_t preshift_out = srdhm16(hires, (int16_t) d->out_mul);
        int16_t reluish = hires;
        if (d->shift2 > 0)
                reluish = sat_shift16(reluish, d->shift2 - 1);
        reluish = srdhm16(reluish, (int16_t) d->mul2);
        if (d->shift2 > 0)
                reluish = sat_shift16(reluish, 1);
        if (d->shift2 < 0)
                reluish = (int16_t) ku_rdivpot(reluish, -d->shift2);
        reluish = (int16_t) ((reluish + (1 << 15)) >> 1);
        const int16_t pre = sdhm16(reluish, preshift_out);
        return ku_rdivpot(pre, -d->out_shift) + d->out_offset;
}

static int hard_swish_invoke(rt_context_t *ctx, rt_node_t *node) {
        const rt_tensor_t *a = rt_node_input(ctx, node, 0);
        rt_tensor_t *o = rt_node_output(ctx, node, 0);
        size_t n = rt_tensor_count(o);
        const ew_data_t *d = node->user_data;
        switch (a->type) {
        case RT_TYPE_FLOAT32: {
                const float *x = a->data;
                float *z = o->data;
                for (size_t i = 0; i < n; i++) {
                        const float v = x[i];
                        z[i] = v * fminf(6.0f, fmaxf(0.0f, v + 3.0f)) / 6.0f;
                }
                return 0;
        }
        case RT_TYPE_INT8: {
                const int8_t *x = a->data;
                int8_t *z = o->data;
                for (size_t i = 0; i < n; i++)
                        z[i] = (int8_t) KU_CLAMP(hard_swish_q(d, x[i]), -128, 127);
                return 0;
        }
        case RT_TYPE_UINT8: {
                const uint8_t *x = a->data;
                uint8_t *z = o->data;
                for (size_t i = 0; i < n; i++)
                        z[i] = (uint8_t) KU_CLAMP(hard_swish_q(d, x[i]), 0, 255);
                return 0;
        }
        default:
                return ew_unsupported(ctx, "HARD_SWISH", a->type, o->type);
        }
}

const rt_registration_t rt_kernel_hard_swish = {
        .name = "HARD_SWISH",
        .op = EW_OP_HARD_SWISH,
        .init = ew_data_init,
        .free = ew_data_free,
        .prepare = hard_swish_prepare,
        .invoke = hard_swish_invoke,
};

/* ---- LEAKY_RELU ---- */

static int leaky_relu_prepare(rt_context_t *ctx, rt_node_t *node) {
        int r = ew_check_io(ctx, node, "LEAKY_RELU", 1, 1);
        if (r < 0)
                return r;
        const rt_tensor_t *a = rt_node_input(ctx, node, 0);
        const rt_tensor_t *o = rt_node_output(ctx, node, 0);
        const ew_leaky_relu_params_t *p = node->params;
        if ((r = same_type_check(ctx, "LEAKY_RELU", a, o)) < 0)
                return r;
        if (a->type != RT_TYPE_FLOAT32 && !is_q(a->type))
                return ew_unsupported(ctx, "LEAKY_RELU", a->type, o->type);
        if (!p)
                return rt_ctx_error(ctx, "LEAKY_RELU: options missing");
        if (is_q(a->type)) {
                ew_data_t *d = node->user_data;
                if (!d)
                        return rt_ctx_error(ctx, "LEAKY_RELU: node state missing");
                if (!(o->scale > 0))
                        return rt_ctx_error(ctx, "LEAKY_RELU: output needs a positive scale");
                if (a->type == RT_TYPE_INT16 && (a->zero_point || o->zero_point))
                        return rt_ctx_error(ctx, "LEAKY_RELU: int16 needs zero points of 0");
                d->in1_offset = a->zero_point;
                d->out_offset = o->zero_point;
                ku_quantize_multiplier((double) (a->scale * p->alpha / o->scale), &d->mul2, &d->shift2);
                ku_quantize_multiplier((double) (a->scale / o->scale), &d->out_mul, &d->out_shift);
        }
        return ew_resize_same(ctx, node, a);
}

#define QLEAKY(NAME, T, TYPE)                                                                 \
        static void NAME(const ew_data_t *d, const T *x, T *z, size_t n) {                    \
                int32_t lo, hi;                                                               \
                ku_type_range(TYPE, &lo, &hi);                                                \
                for (size_t i = 0; i < n; i++) {                                              \
                        const int32_t v = x[i] - d->in1_offset;                               \
                        int32_t r = v >= 0 ? ku_mul_by_qmul(v, d->out_mul, d->out_shift)      \
                                           : ku_mul_by_qmul(v, d->mul2, d->shift2);           \
                        r += d->out_offset;                                                   \
                        z[i] = (T) KU_CLAMP(r, lo, hi);                                       \
                }                                                                             \
        }

QLEAKY(qleaky_i8, int8_t, RT_TYPE_INT8)
QLEAKY(qleaky_u8, uint8_t, RT_TYPE_UINT8)
QLEAKY(qleaky_i16, int16_t, RT_TYPE_INT16)

static int leaky_relu_invoke(rt_context_t *ctx, rt_node_t *node) {
        const rt_tensor_t *a = rt_node_input(ctx, node, 0);
        rt_tensor_t *o = rt_node_output(ctx, node, 0);
        const ew_leaky_relu_params_t *p = node->params;
        size_t n = rt_tensor_count(o);
        switch (a->type) {
        case RT_TYPE_FLOAT32: {
                const float *x = a->data;
                float *z = o->data;
                const float alpha = p->alpha;
                for (size_t i = 0; i < n; i++)
                        z[i] = x[i] > 0.0f ? x[i] : x[i] * alpha;
                return 0;
        }
        case RT_TYPE_INT8:
                qleaky_i8(node->user_data, a->data, o->data, n);
                return 0;
        case RT_TYPE_UINT8:
                qleaky_u8(node->user_data, a->data, o->data, n);
                return 0;
        case RT_TYPE_INT16:
                qleaky_i16(node->user_data, a->data, o->data, n);
                return 0;
        default:
                return ew_unsupported(ctx, "LEAKY_RELU", a->type, o->type);
        }
}

static int parse_leaky_relu(const rt_node_t *node, void *ret_params, rt_context_t *ctx) {
        (void) ctx;
        ew_leaky_relu_params_t *p = ret_params;
        p->alpha = fbt_f32(node->options, 0, 0.0f);
        return 0;
}

const rt_registration_t rt_kernel_leaky_relu = {
        .name = "LEAKY_RELU",
        .op = EW_OP_LEAKY_RELU,
        .params_size = sizeof(ew_leaky_relu_params_t),
        .parse = parse_leaky_relu,
        .init = ew_data_init,
        .free = ew_data_free,
        .prepare = leaky_relu_prepare,
        .invoke = leaky_relu_invoke,
};

/* ---- PRELU ---- */

static int prelu_prepare(rt_context_t *ctx, rt_node_t *node) {
        int r = ew_check_io(ctx, node, "PRELU", 2, 1);
        if (r < 0)
                return r;
        const rt_tensor_t *a = rt_node_input(ctx, node, 0), *al = rt_node_input(ctx, node, 1);
        rt_tensor_t *o = rt_node_output(ctx, node, 0);
        if (al->type != a->type || o->type != a->type)
                return rt_ctx_error(ctx, "PRELU: input %s, alpha %s and output %s types differ",
                                    rt_type_name(a->type), rt_type_name(al->type),
                                    rt_type_name(o->type));
        if (a->type != RT_TYPE_FLOAT32 && a->type != RT_TYPE_INT8 && a->type != RT_TYPE_UINT8)
                return ew_unsupported(ctx, "PRELU", a->type, o->type);
        int32_t rank, dims[RT_MAX_RANK];
        if (ku_bcast_shape(a, al, &rank, dims) < 0 || rank != a->rank)
                return rt_ctx_error(ctx, "PRELU: alpha does not broadcast to the input shape");
        for (int32_t i = 0; i < rank; i++)
                if (dims[i] != a->dims[i])
                        return rt_ctx_error(ctx, "PRELU: alpha does not broadcast to the input "
                                            "shape");
        if (a->type != RT_TYPE_FLOAT32) {
                ew_data_t *d = node->user_data;
                if (!d)
                        return rt_ctx_error(ctx, "PRELU: node state missing");
                if (!(o->scale > 0))
                        return rt_ctx_error(ctx, "PRELU: output needs a positive scale");
                d->in1_offset = -a->zero_point;
                d->in2_offset = -al->zero_point;
                d->out_offset = o->zero_point;
                ku_quantize_multiplier((double) (a->scale / o->scale), &d->out_mul, &d->out_shift);
                ku_quantize_multiplier((double) (a->scale * al->scale / o->scale), &d->mul2, &d->shift2);
        }
        return ew_resize_same(ctx, node, a);
}

typedef struct prelu {
        const void *x, *al;
        void *o;
        const ew_data_t *d;
} prelu_t;

static void prelu_row_f32(void *arg, size_t oo, const size_t *in, const int64_t *st, size_t n) {
        prelu_t *c = arg;
        const float *x = (const float *) c->x + in[0], *al = (const float *) c->al + in[1];
        float *z = (float *) c->o + oo;
        for (size_t i = 0; i < n; i++) {
                const float v = x[(int64_t) i * st[0]];
                z[i] = v >= 0.0f ? v : v * al[(int64_t) i * st[1]];
        }
}

#define QPRELU_ROW(NAME, T, TYPE)                                                             \
        static void NAME(void *arg, size_t oo, const size_t *in, const int64_t *st, size_t n) { \
                prelu_t *c = arg;                                                             \
                const T *x = (const T *) c->x + in[0], *al = (const T *) c->al + in[1];       \
                T *z = (T *) c->o + oo;                                                       \
                const ew_data_t *d = c->d;                                                    \
                int32_t lo, hi;                                                               \
                ku_type_range(TYPE, &lo, &hi);                                                \
                for (size_t i = 0; i < n; i++) {                                              \
                        const int32_t v = d->in1_offset + x[(int64_t) i * st[0]];             \
                        int32_t r;                                                            \
                        if (v >= 0) {                                                         \
                                r = ku_mul_by_qmul(v, d->out_mul, d->out_shift);              \
                        } else {                                                              \
                                const int32_t w = d->in2_offset + al[(int64_t) i * st[1]];    \
                                r = ku_mul_by_qmul(v * w, d->mul2, d->shift2);                \
                        }                                                                     \
                        r += d->out_offset;                                                   \
                        z[i] = (T) KU_CLAMP(r, lo, hi);                                       \
                }                                                                             \
        }

QPRELU_ROW(prelu_row_i8, int8_t, RT_TYPE_INT8)
QPRELU_ROW(prelu_row_u8, uint8_t, RT_TYPE_UINT8)

static int prelu_invoke(rt_context_t *ctx, rt_node_t *node) {
        const rt_tensor_t *a = rt_node_input(ctx, node, 0), *al = rt_node_input(ctx, node, 1);
        rt_tensor_t *o = rt_node_output(ctx, node, 0);
        if (rt_tensor_count(o) == 0)
                return 0;
        prelu_t c = { .x = a->data, .al = al->data, .o = o->data, .d = node->user_data };
        ew_row_fn row;
        switch (a->type) {
        case RT_TYPE_FLOAT32: row = prelu_row_f32; break;
        case RT_TYPE_INT8: row = prelu_row_i8; break;
        case RT_TYPE_UINT8: row = prelu_row_u8; break;
        default: return ew_unsupported(ctx, "PRELU", a->type, o->type);
        }
        ew_bcast_t bc;
        const rt_tensor_t *ins[2] = { a, al };
        ew_bcast_init(&bc, o, ins, 2);
        ew_bcast_run(&bc, row, &c);
        return 0;
}

const rt_registration_t rt_kernel_prelu = {
        .name = "PRELU",
        .op = EW_OP_PRELU,
        .init = ew_data_init,
        .free = ew_data_free,
        .prepare = prelu_prepare,
        .invoke = prelu_invoke,
};
