/* SPDX-License-Identifier: Apache-2.0 */
/*
 * int16 LOGISTIC and TANH at general input scales, as TensorFlow Lite 2.9's
 * reference_integer_ops::Logistic / Tanh (int16) compute them: the input is
 * rescaled to steps of 1/(3 * 4096) (logistic) by an integer multiplier and
 * a rounding right shift, then sigmoid is interpolated linearly in a
 * 256-entry table of sigmoid(i / 24) in unsigned 0.16 fixed point; tanh reads
 * the same table at twice the rate (tanh(x) = 2 sigmoid(2x) - 1). Output
 * scale 2^-15, zero points 0.
 *
 * TFLite's builtin kernels take this path for every int16 input scale except
 * the power-of-two ones its gemmlowp fixed-point kernels handle (2^-12 for
 * LOGISTIC, 2^-12 and 2^-11 for TANH); activations.c keeps those.
 *
 * All functions are pure and may be called from any thread.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* The sigmoid table: 256 entries, entry i is sigmoid(i / 24) in 0.16 fixed
 * point, built on first use (thread-safe) and never freed. Not NULL. */
const uint16_t *ew_lut16_sigmoid_table(void);

/*
 * The input rescaling TFLite's TanhPrepare / SigmoidPrepare compute for a
 * general int16 input scale: `in_scale * 3 * 4096` doubled until it passes
 * 32767 / 2 (at most 31 times), the number of doublings the right shift,
 * the truncated product the multiplier. Writes *ret_mul (> 0) and
 * *ret_shift (0..31) and returns 0; -ERANGE if `in_scale` is not positive
 * and finite or the multiplier would be 0 or not fit in int32 (scales
 * below about 4e-14 or beyond about 1.7e5).
 */
int ew_lut16_rescale(float in_scale, int32_t *ret_mul, int *ret_shift);

/* LOGISTIC / TANH on `n` raw int16 values with a multiplier and shift from
 * ew_lut16_rescale(). `x` and `z` may be the same array. */
void ew_lut16_logistic(const int16_t *x, int16_t *z, size_t n, int32_t mul, int shift);
void ew_lut16_tanh(const int16_t *x, int16_t *z, size_t n, int32_t mul, int shift);
