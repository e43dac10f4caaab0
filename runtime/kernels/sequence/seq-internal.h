/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Helpers shared inside the 'sequence' kernel family (not a public API).
 */
#pragma once

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "elementwise/fastmath.h"
#include "kernel.h"

/*
 * TFLite's ApplyActivationToVector, as the recurrent kernels (LSTM, RNN)
 * apply a fused activation to float values. tanh is Eigen's in TFLite 2.9's
 * x86 build, which is the float TANH kernel's ew_tanh_fast (read back from
 * the library through one-unit models; tanhf is an ulp off in about two
 * inputs of three).
 */
static inline float seq__activate(rt_activation_t act, float x) {
        switch (act) {
        case RT_ACT_RELU: return x < 0.0f ? 0.0f : x;
        case RT_ACT_RELU_N1_TO_1: return x < -1.0f ? -1.0f : (x > 1.0f ? 1.0f : x);
        case RT_ACT_RELU6: return x < 0.0f ? 0.0f : (x > 6.0f ? 6.0f : x);
        case RT_ACT_TANH: return ew_tanh_fast(x);
        case RT_ACT_SIGN_BIT: return signbit(x) ? 1.0f : 0.0f;
        default: return x;
        }
}

/* True when all n floats are exactly zero (TFLite IsZeroVector). */
bool seq__is_zero(const float *v, size_t n);

/* Quantize one row of n floats to int8 as TFLite's SymmetricQuantizeFloats
 * (asym == false: zero point 0, range +-127) or AsymmetricQuantizeFloats
 * does; writes the scaling factor and zero point. */
void seq__quantize_row(const float *v, int32_t n, int8_t *q, float *ret_sf, int32_t *ret_zp, bool asym);

/* result[b][r] += (dot(w[r], q[b]) - rowsum(w[r]) * zp[b]) * (sf[b] * w_scale)
 * for an int8 [rows, cols] matrix and n_batch quantized rows; zp may be NULL
 * (symmetric). */
void seq__mbvma_hybrid(const int8_t *w, int32_t rows, int32_t cols, float w_scale, const int8_t *q,
                       const float *sf, const int32_t *zp, int32_t n_batch, float *result);
