/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gemmlowp's 16-bit fixed-point arithmetic, as TFLite's integer LSTM uses it
 * (FixedPoint<int16_t, IntegerBits>): raw int16 values, operations that wrap
 * like int16 arithmetic except where gemmlowp saturates. The functions
 * reproduce gemmlowp::logistic and gemmlowp::tanh bit for bit.
 *
 * `ib` is the number of integer bits of the input format (0..7); the
 * result is always Q0.15.
 */
#pragma once

#include <stdint.h>

static inline int16_t f16_wrap(int32_t x) {
        return (int16_t) (uint16_t) (uint32_t) x;
}

/* SaturatingRoundingDoublingHighMul for int16. */
static inline int16_t f16_srdhm(int16_t a, int16_t b) {
        if (a == b && a == INT16_MIN)
                return INT16_MAX;
        int32_t ab = (int32_t) a * (int32_t) b;
        int32_t nudge = ab >= 0 ? (1 << 14) : (1 - (1 << 14));
        return f16_wrap((ab + nudge) / (1 << 15));
}

static inline int32_t f16_rdivpot32(int32_t x, int exponent) {
        if (exponent <= 0)
                return x;
        int32_t mask = (int32_t) ((1ll << exponent) - 1);
        int32_t remainder = x & mask;
        int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
        return (x >> exponent) + (remainder > threshold ? 1 : 0);
}

static inline int16_t f16_rdivpot(int16_t x, int exponent) {
        return f16_wrap(f16_rdivpot32(x, exponent));
}

/* SaturatingRoundingMultiplyByPOT<exponent> for int16. */
static inline int16_t f16_srmulpot(int16_t x, int exponent) {
        if (exponent == 0)
                return x;
        if (exponent < 0)
                return f16_rdivpot(x, -exponent);
        int32_t threshold = (1 << (15 - exponent)) - 1;
        if (x > threshold)
                return INT16_MAX;
        if (x < -threshold)
                return INT16_MIN;
        return f16_wrap((int32_t) ((uint32_t) (int32_t) x << exponent));
}

/* RescaleConstantInitializer: a Q31 constant rounded to 16 bits. */
static inline int16_t f16_const(int32_t q31) {
        return f16_wrap(f16_rdivpot32(q31, 16));
}

static inline int16_t f16_sat_add(int16_t a, int16_t b) {
        int32_t s = (int32_t) a + b;
        return (int16_t) (s > INT16_MAX ? INT16_MAX : (s < INT16_MIN ? INT16_MIN : s));
}

static inline int16_t f16_rounding_half_sum(int16_t a, int16_t b) {
        int32_t sum = (int32_t) a + b;
        int32_t sign = sum >= 0 ? 1 : -1;
        return f16_wrap((sum + sign) / 2);
}

/* exp(x) for x in [-1/4, 0), Q0.15 in and out. */
static inline int16_t f16_exp_quarter(int16_t a) {
        const int16_t constant_term = f16_const(1895147668);
        const int16_t one_third = f16_const(715827883);
        int16_t x = f16_wrap(a + (1 << 12));
        int16_t x2 = f16_srdhm(x, x);
        int16_t x3 = f16_srdhm(x2, x);
        int16_t x4 = f16_srdhm(x2, x2);
        int16_t x4_over_4 = f16_srmulpot(x4, -2);
        int16_t poly = f16_srmulpot(f16_wrap(f16_srdhm(f16_wrap(x4_over_4 + x3), one_third) + x2), -1);
        return f16_sat_add(constant_term, f16_srdhm(constant_term, f16_wrap(x + poly)));
}

/* exp(a) for a <= 0 in Q(ib).(15-ib); result Q0.15. */
static inline int16_t f16_exp_on_negative_values(int16_t a, int ib) {
        static const int32_t multipliers[7] = {
                1672461947, 1302514674, 790015084, 290630308, 39332535, 720401, 242,
        };
        const int frac = 15 - ib;
        const int16_t one_quarter = (int16_t) (1 << (frac - 2));
        const int16_t mask = f16_wrap(one_quarter - 1);
        int16_t a_mod = f16_wrap((a & mask) - one_quarter);
        int16_t result = f16_exp_quarter(f16_srmulpot(a_mod, ib));
        int16_t remainder = f16_wrap(a_mod - a);
        for (int e = -2; e <= 4; e++) {
                if (ib > e) {
                        int shift = frac + e;
                        if (remainder & (1 << shift))
                                result = f16_srdhm(result, f16_const(multipliers[e + 2]));
                }
        }
        if (ib > 5) {
                int16_t clamp = f16_const(-(1 << (36 - ib)));
                if (a < clamp)
                        result = 0;
        }
        if (a == 0)
                result = INT16_MAX;
        return result;
}

/* Newton-Raphson 1/(1+x) core shared by logistic and tanh; returns the Q2.13
 * approximation x of 1/(1+a) for a in Q0.15. */
static inline int16_t f16_nr_reciprocal(int16_t a, int16_t *ret_half_den) {
        int16_t half_den = f16_rounding_half_sum(a, INT16_MAX);
        const int16_t c48_17 = f16_const(1515870810);
        const int16_t cneg32_17 = f16_const(-1010580540);
        int16_t x = f16_wrap(c48_17 + f16_srdhm(half_den, cneg32_17));
        for (int i = 0; i < 3; i++) {
                int16_t hdx = f16_srdhm(half_den, x);
                int16_t one_minus = f16_wrap((1 << 13) - hdx);
                x = f16_wrap(x + f16_srmulpot(f16_srdhm(x, one_minus), 2));
        }
        *ret_half_den = half_den;
        return x;
}

static inline int16_t f16_one_over_one_plus_x(int16_t a) {
        int16_t hd;
        int16_t x = f16_nr_reciprocal(a, &hd);
        return f16_srmulpot(x, 1);
}

static inline int16_t f16_one_minus_x_over_one_plus_x(int16_t a) {
        int16_t hd;
        int16_t x = f16_nr_reciprocal(a, &hd);
        return f16_srmulpot(f16_wrap(x - (1 << 13)), 2);
}

/* gemmlowp::logistic for FixedPoint<int16_t, ib>. */
static inline int16_t f16_logistic(int16_t a, int ib) {
        if (a == 0)
                return f16_const(1 << 30);
        int16_t abs_in = a > 0 ? a : f16_wrap(-(int32_t) a);
        int16_t pos = f16_one_over_one_plus_x(f16_exp_on_negative_values(f16_wrap(-(int32_t) abs_in), ib));
        if (a > 0)
                return pos;
        return f16_wrap(INT16_MAX - pos);
}

/* gemmlowp::tanh for FixedPoint<int16_t, ib>. */
static inline int16_t f16_tanh(int16_t a, int ib) {
        if (a == 0)
                return 0;
        int16_t n = a < 0 ? a : f16_wrap(-(int32_t) a);
        int16_t t = f16_one_minus_x_over_one_plus_x(f16_exp_on_negative_values(n, ib + 1));
        return a < 0 ? f16_wrap(-(int32_t) t) : t;
}
