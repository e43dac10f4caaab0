/* SPDX-License-Identifier: Apache-2.0 */
/* INTERNAL header of the runtime (runtime_internal_dep): not installed, not
 * part of the public API in runtime/include/ (docs/architecture.md). */
/*
 * Shared arithmetic for the reference kernels: TFLite's fixed-point
 * requantization (gemmlowp rounding), activation ranges and N-d broadcast
 * indexing. Everything here is header-only and side-effect free.
 *
 * Quantized kernels must use these exact routines so that results match
 * TensorFlow Lite bit for bit.
 */
#pragma once

#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <limits.h>

#include "kernel.h"

#define KU_MIN(a, b) ((a) < (b) ? (a) : (b))
#define KU_MAX(a, b) ((a) > (b) ? (a) : (b))
#define KU_CLAMP(x, lo, hi) KU_MIN(KU_MAX((x), (lo)), (hi))

/* ---- gemmlowp fixed point ---- */

/* (a * b * 2) >> 31 with round-to-nearest, saturating INT32_MIN*INT32_MIN. */
static inline int32_t ku_srdhm(int32_t a, int32_t b) {
        if (a == b && a == INT32_MIN)
                return INT32_MAX;
        int64_t ab = (int64_t) a * (int64_t) b;
        int32_t nudge = ab >= 0 ? (1 << 30) : (1 - (1 << 30));
        return (int32_t) ((ab + nudge) / (1ll << 31));
}

/* x >> exponent, rounding half away from zero (gemmlowp RoundingDivideByPOT).
 * Exponents of 32 and more (quantized DIV of tiny quotients reaches them)
 * are undefined in TFLite's C++; they are given here, without undefined
 * behaviour, the meaning TFLite's x86-64 build gives them: a 64-bit mask
 * truncated to 32 bits and a shift count taken modulo 32. */
static inline int32_t ku_rdivpot(int32_t x, int exponent) {
        if (exponent <= 0)
                return x;
        if (exponent >= 32) {
                const int32_t m = (int32_t) (uint32_t) ((1ull << (exponent & 63)) - 1);
                const int32_t t = (m >> 1) + (x < 0 ? 1 : 0);
                return (x >> (exponent & 31)) + ((x & m) > t ? 1 : 0);
        }
        int32_t mask = (int32_t) ((1ll << exponent) - 1);
        int32_t remainder = x & mask;
        int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
        return (x >> exponent) + (remainder > threshold ? 1 : 0);
}

/* TFLite MultiplyByQuantizedMultiplier: x * multiplier * 2^shift, where
 * shift > 0 is a left shift. */
static inline int32_t ku_mul_by_qmul(int32_t x, int32_t multiplier, int shift) {
        int left = shift > 0 ? shift : 0;
        int right = shift > 0 ? 0 : -shift;
        /* TFLite computes x * (1 << left) in int32; it wraps on overflow. */
        int32_t shifted = (int32_t) ((uint32_t) x << left);
        return ku_rdivpot(ku_srdhm(shifted, multiplier), right);
}

/* The same for a 64-bit accumulator (int16 activations with int64 bias). */
static inline int32_t ku_mul_by_qmul64(int64_t x, int32_t multiplier, int shift) {
        /* TFLite: MultiplyByQuantizedMultiplier(int64_t, int32_t, int). */
        int32_t reduced = (int32_t) ((multiplier < 0x7FFF0000 ? multiplier + (1 << 15) : 0x7FFFFFFF) >> 16);
        int total_shift = 15 - shift;
        int64_t r = x * (int64_t) reduced + ((int64_t) 1 << (total_shift - 1));
        return (int32_t) (r >> total_shift);
}

/* TFLite QuantizeMultiplier: double -> Q31 multiplier and exponent. */
static inline void ku_quantize_multiplier(double m, int32_t *ret_mul, int *ret_shift) {
        if (m == 0.0) {
                *ret_mul = 0;
                *ret_shift = 0;
                return;
        }
        int shift;
        double q = frexp(m, &shift);
        int64_t q_fixed = (int64_t) llround(q * (double) (1ll << 31));
        if (q_fixed == (1ll << 31)) {
                q_fixed /= 2;
                shift++;
        }
        if (shift < -31) {
                shift = 0;
                q_fixed = 0;
        }
        /* TFLite (non-TFLITE_EMULATE_FLOAT builds) caps the shift at 30. */
        if (shift > 30) {
                shift = 30;
                q_fixed = (1ll << 31) - 1;
        }
        *ret_mul = (int32_t) q_fixed;
        *ret_shift = shift;
}

/* ---- activation ranges ---- */

/*
 * TFLite's CalculateActivationRange for float: the clamp every kernel with
 * a fused activation applies. NONE (and TANH / SIGN_BIT, which these
 * kernels do not apply) is [-FLT_MAX, FLT_MAX], so an infinite result
 * becomes +-FLT_MAX while NaN passes through.
 */
static inline void ku_act_range_f32(rt_activation_t act, float *ret_min, float *ret_max) {
        switch (act) {
        case RT_ACT_RELU:
                *ret_min = 0.0f;
                *ret_max = FLT_MAX;
                break;
        case RT_ACT_RELU6:
                *ret_min = 0.0f;
                *ret_max = 6.0f;
                break;
        case RT_ACT_RELU_N1_TO_1:
                *ret_min = -1.0f;
                *ret_max = 1.0f;
                break;
        default:
                *ret_min = -FLT_MAX;
                *ret_max = FLT_MAX;
                break;
        }
}

static inline float ku_act_f32(float x, float lo, float hi) {
        return x < lo ? lo : (x > hi ? hi : x);
}

/* Integer range of `type`. */
static inline void ku_type_range(rt_type_t type, int32_t *ret_min, int32_t *ret_max) {
        switch (type) {
        case RT_TYPE_UINT8: *ret_min = 0; *ret_max = 255; break;
        case RT_TYPE_INT8: *ret_min = -128; *ret_max = 127; break;
        case RT_TYPE_INT16: *ret_min = -32768; *ret_max = 32767; break;
        default: *ret_min = INT32_MIN; *ret_max = INT32_MAX; break;
        }
}

/* TFLite CalculateActivationRangeQuantized for an output tensor. */
static inline void ku_act_range_q(rt_activation_t act, const rt_tensor_t *out, int32_t *ret_min,
                                  int32_t *ret_max) {
        int32_t qmin, qmax;
        ku_type_range(out->type, &qmin, &qmax);
        float s = out->scale;
        int32_t zp = out->zero_point;
#define KU_Q(v) (zp + (int32_t) lroundf((v) / s))
        switch (act) {
        case RT_ACT_RELU:
                qmin = KU_MAX(qmin, KU_Q(0.0f));
                break;
        case RT_ACT_RELU6:
                qmin = KU_MAX(qmin, KU_Q(0.0f));
                qmax = KU_MIN(qmax, KU_Q(6.0f));
                break;
        case RT_ACT_RELU_N1_TO_1:
                qmin = KU_MAX(qmin, KU_Q(-1.0f));
                qmax = KU_MIN(qmax, KU_Q(1.0f));
                break;
        default:
                break;
        }
#undef KU_Q
        *ret_min = qmin;
        *ret_max = qmax;
}

/* ---- broadcasting ---- */

/* Strides of `t` extended (leading 1s) to `rank` dims; a broadcast dim
 * (size 1) gets stride 0. */
static inline void ku_bcast_strides(const rt_tensor_t *t, int32_t rank, int64_t *ret_strides) {
        int64_t s = 1;
        int32_t off = rank - t->rank;
        for (int32_t i = rank - 1; i >= 0; i--) {
                int32_t d = i >= off ? t->dims[i - off] : 1;
                ret_strides[i] = d == 1 ? 0 : s;
                s *= d;
        }
}

/* Output shape of broadcasting a and b; -EINVAL if incompatible. */
static inline int ku_bcast_shape(const rt_tensor_t *a, const rt_tensor_t *b, int32_t *ret_rank,
                                 int32_t *ret_dims) {
        int32_t rank = KU_MAX(a->rank, b->rank);
        for (int32_t i = 0; i < rank; i++) {
                int32_t ia = i - (rank - a->rank), ib = i - (rank - b->rank);
                int32_t da = ia >= 0 ? a->dims[ia] : 1, db = ib >= 0 ? b->dims[ib] : 1;
                if (da != db && da != 1 && db != 1)
                        return -EINVAL;
                ret_dims[i] = da == 1 ? db : da;
        }
        *ret_rank = rank;
        return 0;
}

static inline bool ku_same_shape(const rt_tensor_t *a, const rt_tensor_t *b) {
        if (a->rank != b->rank)
                return false;
        for (int32_t i = 0; i < a->rank; i++)
                if (a->dims[i] != b->dims[i])
                        return false;
        return true;
}

/* ---- misc ---- */

static inline int32_t ku_dim(const rt_tensor_t *t, int32_t i) {
        return i < 0 ? t->dims[t->rank + i] : t->dims[i];
}

/* Output size and padding for SAME/VALID with dilation, as TFLite computes
 * them (ComputePaddingHeightWidth). */
static inline int32_t ku_out_size(rt_padding_t pad, int32_t in, int32_t filter, int32_t stride,
                                  int32_t dilation) {
        /* In 64 bits: a crafted stride or dilation near INT32_MAX must not
         * overflow (issue 22); valid sizes give TFLite's int results. */
        int64_t eff = (int64_t) (filter - 1) * dilation + 1;
        if (stride <= 0)
                return 0;
        int64_t o = pad == RT_PADDING_SAME ? ((int64_t) in + stride - 1) / stride : ((int64_t) in - eff + stride) / stride;
        return o > INT32_MAX ? INT32_MAX : (o < INT32_MIN ? INT32_MIN : (int32_t) o);
}

static inline int32_t ku_pad_before(int32_t in, int32_t filter, int32_t stride, int32_t dilation,
                                    int32_t out) {
        int32_t eff = (filter - 1) * dilation + 1;
        int32_t total = (out - 1) * stride + eff - in;
        return total > 0 ? total / 2 : 0;
}
