/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The op-level comparison rule of difftest (docs/conformance.md, "Rules"),
 * shared with modelfuzz's in-situ check so that both apply the same one.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "dt.h"
#include "rt.h"

static double ulp_of(double b) {
        float f = fabsf((float) b);
        if (f < FLT_MIN)
                return FLT_TRUE_MIN;
        return (double) (nextafterf(f, INFINITY) - f);
}

static double elem_get(rt_type_t t, const void *p, size_t i) {
        switch (t) {
        case RT_TYPE_FLOAT32:
                return ((const float *) p)[i];
        case RT_TYPE_INT8:
                return ((const int8_t *) p)[i];
        case RT_TYPE_UINT8:
        case RT_TYPE_BOOL:
                return ((const uint8_t *) p)[i];
        case RT_TYPE_INT16:
                return ((const int16_t *) p)[i];
        case RT_TYPE_INT64:
                return (double) ((const int64_t *) p)[i];
        default:
                return ((const int32_t *) p)[i];
        }
}

/* Elements where TFLite's builtin kernels give NaN and the XNNPACK driver
 * gives a clamp bound (+-FLT_MAX for NONE, 0 for RELU): the fused clamp acceld keeps on purpose (an overflow
 * stays finite, as in the builtin kernels), which XNNPACK's x86 clamp
 * applies to a NaN too. Counted, and named in the summary; docs/
 * conformance.md, "Rules". */
uint64_t dt_xnn_nan_clamped;

size_t dt_output_defined(const dt_case_t *c, int o, void *const *want, const size_t *want_sizes) {
        int k = c->counted_by[o] - 1;
        if (k < 0 || k >= c->n_out || !want[k] || want_sizes[k] < sizeof(float))
                return want_sizes[o];
        float count = *(const float *) want[k];
        size_t row = (size_t) c->counted_row[o] * dt_type_size(c->out[o].type);
        if (!(count >= 0) || count * (double) row >= (double) want_sizes[o])
                return want_sizes[o];
        return (size_t) count * row;
}

bool dt_output_check(const dt_case_t *c, int o, int driver, const void *got, size_t got_size, const void *want,
                     size_t want_size, size_t defined, char *msg, size_t msg_size) {
        const dt_io_t *io = &c->out[o];
        if (got_size != want_size) {
                snprintf(msg, msg_size, "output %d: %zu bytes, TFLite has %zu", o, got_size, want_size);
                return false;
        }
        want_size = defined;
        if (io->type == RT_TYPE_INT64 && driver == 0) {
                if (memcmp(got, want, want_size) != 0) {
                        snprintf(msg, msg_size, "output %d: int64 values differ", o);
                        return false;
                }
                return true;
        }
        size_t n = want_size / dt_type_size(io->type);
        double m = 0;
        if (io->type == RT_TYPE_FLOAT32)
                for (size_t i = 0; i < n; i++) {
                        double b = fabs(elem_get(io->type, want, i));
                        if (isfinite(b) && b > m)
                                m = b;
                }
        /* Sums can cancel: scale their rounding by the largest input too. */
        for (int k = 0; c->accum > 1 && k < c->n_in; k++) {
                if (c->in[k].type != RT_TYPE_FLOAT32)
                        continue;
                const float *x = c->in[k].data;
                for (size_t i = 0; i < c->in[k].bytes / 4; i++)
                        if (isfinite(x[i]) && fabs(x[i]) > m)
                                m = fabs(x[i]);
        }
        double worst = 0;
        size_t worst_i = 0;
        bool pass = true;
        for (size_t i = 0; i < n; i++) {
                double a = elem_get(io->type, got, i), b = elem_get(io->type, want, i);
                double allowed, diff;
                if (io->type == RT_TYPE_FLOAT32) {
                        if (isnan(b) || isnan(a) || isinf(b) || isinf(a)) {
                                bool same = (isnan(a) && isnan(b)) || (isinf(a) && isinf(b) && a == b);
                                if (!same && driver == 1 && isnan(b) && (fabs(a) == FLT_MAX || a == 0)) {
                                        dt_xnn_nan_clamped++;
                                        same = true;
                                }
                                if (!same) {
                                        pass = false;
                                        worst = INFINITY;
                                        worst_i = i;
                                }
                                continue;
                        }
                        diff = fabs(a - b);
                        if (fabs(a) < FLT_MIN && fabs(b) < FLT_MIN)
                                diff = 0; /* TFLite's kernels may flush subnormals */
                        float step = c->out_step[o];
                        if (driver == 1 && c->accel_step[o] > step)
                                step = c->accel_step[o];
                        if (driver == 0)
                                allowed = step > 0 ? step * 0.499 : 4 * ulp_of(b) + c->accum * 4 * FLT_EPSILON * m;
                        else
                                allowed = (step > 0 ? 2 * step : 0) + 1e-4 * (1 + m) + 1e-3 * fabs(b) +
                                          c->accum * 4 * FLT_EPSILON * m;
                } else {
                        diff = fabs(a - b);
                        allowed = driver == 0 || !dt_is_quant_type(io->type) ? 0 : 2;
                }
                double score = diff == 0 ? 0 : allowed > 0 ? diff / allowed : INFINITY;
                if (score > 1)
                        pass = false;
                if (score > worst) {
                        worst = score;
                        worst_i = i;
                }
        }
        if (!pass)
                snprintf(msg, msg_size, "output %d[%zu]: got %.9g, TFLite %.9g (score %.3g)", o, worst_i,
                         elem_get(io->type, got, worst_i), elem_get(io->type, want, worst_i), worst);
        return pass;
}
