/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Test helpers for the conv kernel family: a slow, obviously-correct
 * double-precision convolution and TFLite-style requantization, written
 * independently of the kernels (TensorFlow's padding formulas, rounding half
 * away from zero).
 */
#pragma once

#include <check.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "kharness.h"
#include "conv/conv.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* TensorFlow's output size and leading padding for one spatial dimension. */
static inline void ref_window(int in, int k, int stride, int dil, bool same, int *ret_out,
                              int *ret_pad) {
        int eff = (k - 1) * dil + 1;
        int out = same ? (in + stride - 1) / stride : (in - eff + stride) / stride;
        int total = (out - 1) * stride + eff - in;
        *ret_out = out;
        *ret_pad = total > 0 ? total / 2 : 0;
}

/*
 * y[n][oy][ox][o] = bias[o] + sum x[n][iy][ix][ci] * f(...), padding taps
 * skipped. Regular conv: f is [O][KH][KW][C]. Depthwise: f is [1][KH][KW][O]
 * with O = C * M and output channel o reading input channel o / M.
 */
static inline void ref_conv2d(const double *x, int n, int h, int w, int c, const double *f, int oc,
                              int kh, int kw, bool depthwise, const double *bias, int sh, int sw,
                              int dh, int dw, bool same, double *y) {
        int oh, ow, ph, pw;
        ref_window(h, kh, sh, dh, same, &oh, &ph);
        ref_window(w, kw, sw, dw, same, &ow, &pw);
        int m = depthwise ? oc / c : 0;
        for (int b = 0; b < n; b++)
        for (int oy = 0; oy < oh; oy++)
        for (int ox = 0; ox < ow; ox++)
        for (int o = 0; o < oc; o++) {
                double acc = bias ? bias[o] : 0.0;
                for (int fy = 0; fy < kh; fy++)
                for (int fx = 0; fx < kw; fx++) {
                        int iy = oy * sh - ph + fy * dh, ix = ox * sw - pw + fx * dw;
                        if (iy < 0 || iy >= h || ix < 0 || ix >= w)
                                continue;
                        if (depthwise) {
                                int ci = o / m;
                                acc += x[((b * h + iy) * w + ix) * c + ci] * f[(fy * kw + fx) * oc + o];
                        } else {
                                for (int ci = 0; ci < c; ci++)
                                        acc += x[((b * h + iy) * w + ix) * c + ci] *
                                               f[((o * kh + fy) * kw + fx) * c + ci];
                        }
                }
                y[((b * oh + oy) * ow + ox) * oc + o] = acc;
        }
}

/* x / 2^bits rounded half away from zero. */
static inline int64_t ref_round_away(__int128 v, int bits) {
        if (bits <= 0)
                return (int64_t) v;
        __int128 d = (__int128) 1 << bits;
        __int128 a = v < 0 ? -v : v;
        __int128 r = (a + d / 2) / d;
        return (int64_t) (v < 0 ? -r : r);
}

/* TFLite's QuantizeMultiplier: real = q * 2^shift / 2^31, q in [2^30, 2^31). */
static inline void ref_qmul(double real, int64_t *ret_q, int *ret_shift) {
        int e = 0;
        double f = frexp(real, &e);
        int64_t q = llround(f * 2147483648.0);
        if (q == 2147483648LL) {
                q /= 2;
                e++;
        }
        *ret_q = q;
        *ret_shift = e;
}

/* How TFLite 2.9 (x86) rounds when it requantizes. */
typedef enum ref_round {
        REF_DOUBLE, /* MultiplyByQuantizedMultiplier: high multiply, then shift */
        REF_RUY,    /* ruy on x86 (int8 CONV_2D / FULLY_CONNECTED / BATCH_MATMUL) */
        REF_WIDE,   /* 64-bit accumulators of the 16x8 kernels */
} ref_round_t;

/* floor(v / 2^bits) */
static inline __int128 ref_floor_div(__int128 v, int bits) {
        __int128 d = (__int128) 1 << bits;
        __int128 r = v / d;
        if (v % d != 0 && v < 0)
                r -= 1;
        return r;
}

/*
 * TFLite's requantization of an integer accumulator by `real`. REF_DOUBLE: a
 * doubling high multiply by q rounded half up, then a right shift rounded
 * half away from zero. REF_RUY: the same high multiply, then a right shift
 * rounded half up. REF_WIDE: q reduced to 16 bits, x * q / 2^(15 - shift)
 * rounded half up.
 */
static inline int64_t ref_mbqm(int64_t acc, double real, ref_round_t mode) {
        int64_t q;
        int shift;
        ref_qmul(real, &q, &shift);
        if (mode == REF_WIDE) {
                int64_t reduced = q < 0x7FFF0000 ? (q + (1 << 15)) >> 16 : 0x7FFF;
                int total = 15 - shift;
                return (int64_t) ref_floor_div((__int128) acc * reduced + ((__int128) 1 << (total - 1)),
                                               total);
        }
        int left = shift > 0 ? shift : 0, right = shift > 0 ? 0 : -shift;
        __int128 x = (__int128) acc * ((__int128) 1 << left) * q;
        __int128 hi = ref_floor_div(x + ((__int128) 1 << 30), 31);  /* half up */
        if (mode == REF_RUY)
                return right > 0 ? (int64_t) ref_floor_div(hi + ((__int128) 1 << (right - 1)), right)
                                 : (int64_t) hi;
        return ref_round_away(hi, right);
}

/* Output value: zero point + requantized accumulator, clamped. */
static inline int32_t ref_output(int64_t acc, double real, int32_t zp, int32_t lo, int32_t hi,
                                 ref_round_t mode) {
        int64_t v = ref_mbqm(acc, real, mode) + zp;
        return (int32_t) (v < lo ? lo : (v > hi ? hi : v));
}

/* Fill `n` values with a fixed pseudo-random sequence in [lo, hi]. */
static inline void ref_fill_i32(int32_t *v, size_t n, int32_t lo, int32_t hi, uint32_t seed) {
        uint32_t s = seed * 2654435761u + 1;
        for (size_t i = 0; i < n; i++) {
                s = s * 1664525u + 1013904223u;
                v[i] = lo + (int32_t) ((s >> 8) % (uint32_t) (hi - lo + 1));
        }
}

static inline void ref_fill_f(float *v, size_t n, float lo, float hi, uint32_t seed) {
        uint32_t s = seed * 2654435761u + 7;
        for (size_t i = 0; i < n; i++) {
                s = s * 1664525u + 1013904223u;
                v[i] = lo + (hi - lo) * (float) (s >> 8) / (float) (1u << 24);
        }
}
