/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Shared pieces of the conv kernel family (not part of any public API):
 * per-node state, TFLite's convolution requantization setup and the
 * on-the-fly input quantization of the hybrid (dynamic-range) paths.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#if defined(__SSE__)
#include <xmmintrin.h>
#endif

#include "kernel.h"
#include "kutil.h"
#include "conv/conv.h"

/* Which arithmetic a node runs; decided in prepare. */
typedef enum rt_conv_kind {
        RT_CONV_FLOAT = 0,
        RT_CONV_UINT8,     /* uint8 activations and weights, per-tensor */
        RT_CONV_INT8,      /* int8 activations, int8 weights (per-channel or per-tensor) */
        RT_CONV_INT16,     /* int16 activations, int8 weights, int64 bias */
        RT_CONV_HYBRID,    /* float activations, int8 weights, per-tensor scale */
        RT_CONV_HYBRID_PC, /* float activations, int8 weights, per-channel scales */
} rt_conv_kind_t;

/* Per-node state made by rt_conv__data_init(); arrays are (re)sized by
 * prepare and freed by rt_conv__data_free(). */
/*
 * The requantization of TFLite 2.9's 16x8 kernels, which differs by kernel
 * and bias (each measured against the native library):
 *   RT_CONV_ACC16_INT64  the int64 reference kernels: the sum in 64 bits,
 *                        the multiplier cut to 16 bits (ku_mul_by_qmul64);
 *   RT_CONV_ACC16_RUY32  the optimized path through ruy's portable kernel
 *                        (CONV_2D with an int32 bias; FULLY_CONNECTED without
 *                        a bias or with an int32 one, weight zero point 0):
 *                        the sum modulo 2^32, rt_conv__mul_ruy_portable;
 *   RT_CONV_ACC16_MBQM32 TRANSPOSE_CONV without a bias: the sum modulo 2^32
 *                        through the 32-bit MultiplyByQuantizedMultiplier.
 */
typedef enum rt_conv_acc16 {
        RT_CONV_ACC16_INT64 = 0,
        RT_CONV_ACC16_RUY32,
        RT_CONV_ACC16_MBQM32,
} rt_conv_acc16_t;

typedef struct rt_conv_data {
        rt_conv_kind_t kind;
        int32_t n_channels;
        int32_t *multiplier;  /* per output channel (int8/int16 paths) */
        int *shift;           /* TFLite exponent: > 0 shifts left */
        int32_t out_multiplier; /* per-tensor (uint8 path) */
        int out_shift;
        int32_t act_min;
        int32_t act_max;
        float f_min;
        float f_max;
        int32_t pad_h;
        int32_t pad_w;
        int32_t scratch[4];   /* ids from rt_ctx request_scratch */
        bool dynamic_output;  /* TRANSPOSE_CONV with a non-constant output_shape */
        /* Requantize with rt_conv__mul_ruy instead of TFLite's
         * MultiplyByQuantizedMultiplier: TFLite 2.9 runs its GEMM-based
         * quantized kernels (CONV_2D, FULLY_CONNECTED, BATCH_MATMUL) through
         * ruy, and its uint8 DEPTHWISE_CONV_2D rounds the same way
         * (DepthwiseConvOutputRounding::kUpward). */
        bool ruy_rounding;
        /* How int16 activations (16x8) are requantized. */
        rt_conv_acc16_t acc16;
        /* CONV_2D float with constant filters and bias: the filters as
         * [kh][kw][c][oc rounded up to 4] and the bias padded with zeros to
         * that count (both owned), made by conv2d.c from the filter and
         * bias data at `packed_from` and `packed_bias_from`. */
        float *packed;
        float *packed_bias;
        const void *packed_from;
        const void *packed_bias_from;
        bool packed_avx;      /* packed filters run the AVX path */
        int32_t batch;        /* FULLY_CONNECTED: input rows, set by prepare */
} rt_conv_data_t;

int rt_conv__data_init(rt_context_t *ctx, rt_node_t *node, void **ret_data);
void rt_conv__data_free(rt_context_t *ctx, void *data);

/* Fail with -ENOTSUP and a message naming the types. */
/*
 * The arithmetic for an (input, weights, output) type triple shared by
 * CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED, and the bias type it
 * takes (int16 activations also accept an int32 bias). `hybrid_kind` is what
 * float activations with int8 weights run (per-tensor or per-channel).
 * 0, or -ENOTSUP / -EINVAL with a message naming `op` and the types.
 */
int rt_conv__pick_kind(rt_context_t *ctx, const char *op, const rt_tensor_t *input,
                       const rt_tensor_t *weights, const rt_tensor_t *bias, const rt_tensor_t *output,
                       rt_conv_kind_t hybrid_kind, rt_conv_kind_t *ret_kind);

int rt_conv__unsupported(rt_context_t *ctx, const char *op, const rt_tensor_t *input,
                         const rt_tensor_t *weights, const rt_tensor_t *output);

/*
 * TFLite's PopulateConvolutionQuantizationParams: per-channel multipliers for
 * `channels` output channels (weights quantized per-tensor or per-channel
 * along `axis`), the per-tensor multiplier of the legacy uint8 path, and the
 * quantized activation range of `output`. -EINVAL (with a message) when the
 * quantization parameters are missing or inconsistent.
 */
int rt_conv__quant_setup(rt_context_t *ctx, rt_conv_data_t *d, const rt_tensor_t *input,
                         const rt_tensor_t *weights, const rt_tensor_t *output,
                         rt_activation_t act, int32_t channels, int32_t axis);

/* Check the weight quantization of a hybrid node (scales present: 1 or
 * `channels` of them along `axis`); sets d->kind to HYBRID or HYBRID_PC the
 * way TFLite decides (per-channel only if the scales differ). */
int rt_conv__hybrid_setup(rt_context_t *ctx, rt_conv_data_t *d, const rt_tensor_t *weights,
                          int32_t channels, int32_t axis, bool per_channel_allowed);

/* Scale of weight channel c (per-tensor scale when not per-channel). */
static inline float rt_conv__wscale(const rt_tensor_t *w, int32_t c) {
        return w->quant.n > 1 ? w->quant.scale[c] : w->scale;
}

/* TFLite SymmetricQuantizeFloats: int8 in [-127, 127], scale = range / 127. */
void rt_conv__quantize_symmetric(const float *x, size_t n, int8_t *ret_q, float *ret_scale);
/* TFLite AsymmetricQuantizeFloats: int8 with a nudged zero point. */
void rt_conv__quantize_asymmetric(const float *x, size_t n, int8_t *ret_q, float *ret_scale,
                                  int32_t *ret_offset);

/* TFLite ApplyActivationToVector for one value (hybrid FULLY_CONNECTED). */
float rt_conv__activate(float x, rt_activation_t act);

/* Bias element c as int64 (int32 or int64 bias), 0 when absent. */
static inline int64_t rt_conv__bias_i(const rt_tensor_t *bias, int32_t c) {
        if (!bias)
                return 0;
        if (bias->type == RT_TYPE_INT64)
                return ((const int64_t *) bias->data)[c];
        return ((const int32_t *) bias->data)[c];
}

static inline float rt_conv__bias_f(const rt_tensor_t *bias, int32_t c) {
        return bias ? ((const float *) bias->data)[c] : 0.0f;
}

/*
 * A float dot product in the order TFLite 2.9's x86 build sums it when its
 * GEMM has one output column (FULLY_CONNECTED with one batch row, CONV_2D
 * with one output pixel): Eigen's row-major matrix x vector product on SSE.
 * Term j goes to lane j % 4 up to the last whole block of four, the lanes
 * are combined as (l0 + l2) + (l1 + l3), and the remaining terms follow one
 * by one; a CONV_2D's row is its im2col row, padding zeros included.
 * Measured on the native library (FULLY_CONNECTED, 1x1 and 3x3 CONV_2D, 3 to
 * 257 terms: every output bit-exact, where a plain running sum matched 0 to
 * 80 %). A hybrid layer downstream re-quantizes its input, so one ulp here
 * became 0.002 in style_transfer_dynamic_range's output (issue 25).
 */
typedef struct rt_conv_gemv {
        float lane[4], sum;
        int32_t j, full;
} rt_conv_gemv_t;

static inline void rt_conv__gemv_start(rt_conv_gemv_t *g, int32_t terms) {
        *g = (rt_conv_gemv_t) { .full = terms / 4 * 4 };
}

static inline void rt_conv__gemv_add(rt_conv_gemv_t *g, float product) {
        if (g->j < g->full) {
                g->lane[g->j & 3] += product;
        } else {
                if (g->j == g->full)
                        g->sum = (g->lane[0] + g->lane[2]) + (g->lane[1] + g->lane[3]);
                g->sum += product;
        }
        g->j++;
}

static inline float rt_conv__gemv_end(const rt_conv_gemv_t *g) {
        return g->j > g->full ? g->sum : (g->lane[0] + g->lane[2]) + (g->lane[1] + g->lane[3]);
}

/* The same sum of x[k] * f[k] over n contiguous terms, without the
 * per-term bookkeeping: the four lanes are one SSE register (a vector
 * product and sum rounds each lane as the scalar ones do), so the result
 * is bit-identical to rt_conv__gemv_add() term by term; a tiny graph's
 * FULLY_CONNECTED spent most of its invoke in that bookkeeping
 * (docs/performance.md, "The microsecond models placed"). */
static inline float rt_conv__dot_f32(const float *x, const float *f, int32_t n) {
        const int32_t full = n / 4 * 4;
        float s;
#if defined(__SSE__)
        __m128 acc = _mm_setzero_ps();
        for (int32_t k = 0; k < full; k += 4)
                acc = _mm_add_ps(acc, _mm_mul_ps(_mm_loadu_ps(x + k), _mm_loadu_ps(f + k)));
        /* (l0 + l2) + (l1 + l3) */
        const __m128 t = _mm_add_ps(acc, _mm_movehl_ps(acc, acc));
        s = _mm_cvtss_f32(_mm_add_ss(t, _mm_shuffle_ps(t, t, 1)));
#else
        float l[4] = { 0.0f, 0.0f, 0.0f, 0.0f };
        for (int32_t k = 0; k < full; k += 4)
                for (int32_t i = 0; i < 4; i++)
                        l[i] += x[k + i] * f[k + i];
        s = (l[0] + l[2]) + (l[1] + l[3]);
#endif
        for (int32_t k = full; k < n; k++)
                s += x[k] * f[k];
        return s;
}

/*
 * ruy's requantization: the product with the Q31 multiplier is rounded half
 * up to 32 bits (as in TFLite's SaturatingRoundingDoublingHighMul), then the
 * right shift rounds half up, where TFLite's RoundingDivideByPOT rounds half
 * away from zero; the two differ on negative ties. Verified against the
 * TFLite 2.9 goldens (tf2_mobilenet_v2 int8, mobilenet_v2 uint8, dtln).
 */
static inline int32_t rt_conv__mul_ruy(int32_t x, int32_t multiplier, int shift) {
        const int left = shift > 0 ? shift : 0, right = shift > 0 ? 0 : -shift;
        const int64_t p = (int64_t) (int32_t) ((uint32_t) x << left) * multiplier;
        const int32_t hi = (int32_t) ((p + ((int64_t) 1 << 30)) >> 31);
        if (right == 0)
                return hi;
        return (int32_t) (((int64_t) hi + ((int64_t) 1 << (right - 1))) >> right);
}

/*
 * ruy's portable MultiplyByQuantizedMultiplier (its kStandardCpp kernel,
 * which TFLite 2.9 on x86 reaches for int8 weights with int16 activations:
 * ruy has no AVX kernel for mixed 8/16-bit operands): x * multiplier /
 * 2^(31 - shift) rounded half up once, in 64 bits, then cut to 32 bits.
 * Measured against the native library: the double rounding of
 * rt_conv__mul_ruy and TFLite's 32-bit MultiplyByQuantizedMultiplier each
 * left ~8 of 1500 FULLY_CONNECTED_16X8 cases one step off, this none.
 */
static inline int32_t rt_conv__mul_ruy_portable(int32_t x, int32_t multiplier, int shift) {
        /* ruy checks shift >= -31; shift > 30 (a real multiplier >= 2^30)
         * is clamped only to keep the shifts defined. */
        const int total = 31 - (shift < -31 ? -31 : shift > 30 ? 30 : shift);
        const int64_t p = (int64_t) x * multiplier;
        return (int32_t) (uint32_t) (uint64_t) ((p + ((int64_t) 1 << (total - 1))) >> total);
}

/* Requantize an accumulator of output channel c and clamp (int8/uint8/int16). */
static inline int32_t rt_conv__requant(const rt_conv_data_t *d, int64_t acc, int32_t c,
                                       int32_t out_zp) {
        int32_t v;
        if (d->kind == RT_CONV_INT16 && d->acc16 != RT_CONV_ACC16_INT64) {
                /* The int32 accumulator wraps: keep acc modulo 2^32. */
                const int32_t sum = (int32_t) (uint32_t) (uint64_t) acc;
                v = d->acc16 == RT_CONV_ACC16_RUY32 ? rt_conv__mul_ruy_portable(sum, d->multiplier[c], d->shift[c])
                                                    : ku_mul_by_qmul(sum, d->multiplier[c], d->shift[c]);
        } else if (d->kind == RT_CONV_INT16) {
                v = ku_mul_by_qmul64(acc, d->multiplier[c], d->shift[c]);
        } else {
                /* The legacy uint8 path requantizes per tensor. */
                const bool pt = d->kind == RT_CONV_UINT8;
                const int32_t m = pt ? d->out_multiplier : d->multiplier[c];
                const int s = pt ? d->out_shift : d->shift[c];
                v = d->ruy_rounding ? rt_conv__mul_ruy((int32_t) acc, m, s) :
                                      ku_mul_by_qmul((int32_t) acc, m, s);
        }
        /* TFLite adds the zero point in int32; in 64 bits a crafted zero
         * point cannot overflow, and valid ones give the same sums. */
        const int64_t w = (int64_t) v + out_zp;
        return (int32_t) KU_CLAMP(w, (int64_t) d->act_min, (int64_t) d->act_max);
}

/* Store v (already in range) as output element i. */
static inline void rt_conv__store(rt_tensor_t *out, size_t i, int32_t v) {
        switch (out->type) {
        case RT_TYPE_UINT8:
                ((uint8_t *) out->data)[i] = (uint8_t) v;
                break;
        case RT_TYPE_INT8:
                ((int8_t *) out->data)[i] = (int8_t) v;
                break;
        default:
                ((int16_t *) out->data)[i] = (int16_t) v;
                break;
        }
}

/* Load element i of an integer tensor (uint8/int8/int16/int32). */
static inline int32_t rt_conv__load(const rt_tensor_t *t, size_t i) {
        switch (t->type) {
        case RT_TYPE_UINT8:
                return ((const uint8_t *) t->data)[i];
        case RT_TYPE_INT8:
                return ((const int8_t *) t->data)[i];
        case RT_TYPE_INT16:
                return ((const int16_t *) t->data)[i];
        default:
                return ((const int32_t *) t->data)[i];
        }
}

/* Check that a tensor has data (inputs must be allocated before invoke). */
static inline bool rt_conv__has_data(const rt_tensor_t *t) {
        return t && t->data;
}

/* Strides and dilations must be positive. */
int rt_conv__check_geometry(rt_context_t *ctx, int32_t stride_w, int32_t stride_h,
                            int32_t dilation_w, int32_t dilation_h);
