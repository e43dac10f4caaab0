/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Validation metrics of a benchmark candidate: one output tensor against
 * its golden. Pure functions; any thread.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel.h"

/* Default thresholds (docs/benchmarking.md). */
#define BENCH_DEFAULT_MAX_ABS_ERROR 0.02f
#define BENCH_DEFAULT_MAX_MSE 1e-3f
#define BENCH_DEFAULT_MAX_KL 0.05f
/* Quantized outputs may differ by this many steps (the accelerated-path
 * tolerance of ../shared/models: integer kernels round differently). */
#define BENCH_QUANT_STEPS 6

typedef struct bench_thresholds {
        double max_abs_error;   /* in value units (dequantized) */
        double max_mse;
        double max_kl;
} bench_thresholds_t;

typedef struct bench_metrics {
        double max_abs_error;
        double mse;
        bool is_probability;    /* the golden looks like a distribution */
        double kl;              /* symmetric KL, mean over rows; 0 if not a distribution */
        bool ok;
} bench_metrics_t;

/* The defaults above. */
void bench_thresholds_default(bench_thresholds_t *ret);

/*
 * Compare `out` with `golden` (both `bytes` long, the layout of a tensor of
 * `type` with the given quantization; scale 0 = not quantized). Values are
 * compared dequantized. An output is a probability distribution when it is
 * floating point (or quantized) with last dimension `row` > 1, every golden
 * value in [0, 1] and each row of the golden summing to 1 within 1%; then
 * the symmetric KL divergence (KL(p||q) + KL(q||p), values clamped to
 * 1e-7) is averaged over rows. For an integer output that is not quantized
 * the allowed absolute error is at least one step. For a quantized output
 * max_abs_error is widened to BENCH_QUANT_STEPS quantization steps, and MSE is not
 * checked (it is in steps, not value units). ok tells whether every metric is within `th`.
 * Returns 0, -EINVAL (NULL, size not a multiple of the element size) or
 * -ENOTSUP (a type without numeric values, e.g. strings: compared bytewise,
 * ok when equal, still 0 returned with max_abs_error 0 or 1).
 */
int bench_metrics_compare(rt_type_t type, float scale, int32_t zero_point, const void *out, const void *golden,
                          size_t bytes, size_t row, const bench_thresholds_t *th, bench_metrics_t *ret);
