/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Helpers shared inside the 'sequence' kernel family (not a public API).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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
