/* SPDX-License-Identifier: Apache-2.0 */
/* Output validation: max absolute error, MSE, symmetric KL divergence. */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "bench-metrics.h"

void bench_thresholds_default(bench_thresholds_t *ret) {
        *ret = (bench_thresholds_t) {
                .max_abs_error = BENCH_DEFAULT_MAX_ABS_ERROR,
                .max_mse = BENCH_DEFAULT_MAX_MSE,
                .max_kl = BENCH_DEFAULT_MAX_KL,
        };
}

static bool value_at(rt_type_t type, const void *p, size_t i, double *ret) {
        switch (type) {
        case RT_TYPE_FLOAT32: {
                float v;
                memcpy(&v, (const char *) p + 4 * i, 4);
                *ret = v;
                return true;
        }
        case RT_TYPE_FLOAT64: {
                double v;
                memcpy(&v, (const char *) p + 8 * i, 8);
                *ret = v;
                return true;
        }
        case RT_TYPE_INT8:
                *ret = ((const int8_t *) p)[i];
                return true;
        case RT_TYPE_UINT8:
        case RT_TYPE_BOOL:
                *ret = ((const uint8_t *) p)[i];
                return true;
        case RT_TYPE_INT16: {
                int16_t v;
                memcpy(&v, (const char *) p + 2 * i, 2);
                *ret = v;
                return true;
        }
        case RT_TYPE_INT32: {
                int32_t v;
                memcpy(&v, (const char *) p + 4 * i, 4);
                *ret = v;
                return true;
        }
        case RT_TYPE_INT64: {
                int64_t v;
                memcpy(&v, (const char *) p + 8 * i, 8);
                *ret = (double) v;
                return true;
        }
        default:
                return false;
        }
}

static bool type_is_float(rt_type_t type) {
        return type == RT_TYPE_FLOAT32 || type == RT_TYPE_FLOAT64;
}

int bench_metrics_compare(rt_type_t type, float scale, int32_t zero_point, const void *out, const void *golden,
                          size_t bytes, size_t row, const bench_thresholds_t *th, bench_metrics_t *ret) {
        bench_metrics_t m = {};
        size_t esize, n;
        double allowed, sum_sq = 0;
        bool quant = scale > 0 && !type_is_float(type);
        double dummy;

        if (!out || !golden || !th || !ret)
                return -EINVAL;
        if (!value_at(type, golden, 0, &dummy) && type != RT_TYPE_BOOL) {
                m.max_abs_error = memcmp(out, golden, bytes) == 0 ? 0 : 1;
                m.ok = m.max_abs_error == 0;
                *ret = m;
                return -ENOTSUP;
        }
        esize = rt_type_size(type);
        if (esize == 0 || bytes % esize)
                return -EINVAL;
        n = bytes / esize;
        for (size_t i = 0; i < n; i++) {
                double a, b, d;

                (void) value_at(type, out, i, &a);
                (void) value_at(type, golden, i, &b);
                if (quant) {
                        a = scale * (a - zero_point);
                        b = scale * (b - zero_point);
                }
                d = fabs(a - b);
                if (isnan(d))
                        d = INFINITY;
                if (d > m.max_abs_error)
                        m.max_abs_error = d;
                sum_sq += d * d;
        }
        m.mse = n ? sum_sq / (double) n : 0;

        /* A distribution? Only then is KL meaningful. */
        if ((type_is_float(type) || quant) && row > 1 && n % row == 0 && n > 0) {
                bool prob = true;

                for (size_t r0 = 0; r0 < n && prob; r0 += row) {
                        double s = 0;

                        for (size_t i = r0; i < r0 + row; i++) {
                                double b;

                                (void) value_at(type, golden, i, &b);
                                if (quant)
                                        b = scale * (b - zero_point);
                                if (!(b >= 0 && b <= 1)) {
                                        prob = false;
                                        break;
                                }
                                s += b;
                        }
                        if (fabs(s - 1) > 0.01)
                                prob = false;
                }
                if (prob) {
                        double total = 0;

                        for (size_t r0 = 0; r0 < n; r0 += row) {
                                double kl = 0;

                                for (size_t i = r0; i < r0 + row; i++) {
                                        double p, q;

                                        (void) value_at(type, golden, i, &p);
                                        (void) value_at(type, out, i, &q);
                                        if (quant) {
                                                p = scale * (p - zero_point);
                                                q = scale * (q - zero_point);
                                        }
                                        p = p < 1e-7 ? 1e-7 : p;
                                        q = q < 1e-7 ? 1e-7 : (isnan(q) ? 1 : q);
                                        kl += p * log(p / q) + q * log(q / p);
                                }
                                total += kl;
                        }
                        m.is_probability = true;
                        m.kl = total / (double) (n / row);
                }
        }

        allowed = th->max_abs_error;
        if (quant && allowed < scale * BENCH_QUANT_STEPS * 1.0001)
                allowed = scale * BENCH_QUANT_STEPS * 1.0001;
        if (!quant && !type_is_float(type) && allowed < 1)
                allowed = 1;
        m.ok = m.max_abs_error <= allowed && (quant || !type_is_float(type) || m.mse <= th->max_mse) &&
               (!m.is_probability || m.kl <= th->max_kl);
        *ret = m;
        return 0;
}
