/* SPDX-License-Identifier: Apache-2.0 */
/* Output validation: the thresholds on accel_eval's output metrics (max
 * absolute error, MSE, symmetric KL divergence). */
#include <errno.h>

#include "metrics.h"
#include "eval.h"

void bench_thresholds_default(bench_thresholds_t *ret) {
        *ret = (bench_thresholds_t) {
                .max_abs_error = BENCH_DEFAULT_MAX_ABS_ERROR,
                .max_mse = BENCH_DEFAULT_MAX_MSE,
                .max_kl = BENCH_DEFAULT_MAX_KL,
        };
}

static bool type_is_float(rt_type_t type) {
        return type == RT_TYPE_FLOAT32 || type == RT_TYPE_FLOAT64;
}

/* A flat view of a buffer for accel_eval: the metrics are the evaluation
 * library's (eval_output_compare(), the inference profiler's code); this
 * file only applies the benchmark's thresholds to them. */
static eval_tensor_t tensor_view(rt_type_t type, float scale, int32_t zero_point, const void *data, size_t bytes,
                                 size_t n) {
        return (eval_tensor_t) {
                .type = (int32_t) type,
                .rank = 1,
                .dims = { (int32_t) n },
                .scale = scale,
                .zero_point = zero_point,
                .bytes = bytes,
                .data = (void *) data,
                .name = "",
        };
}

int bench_metrics_compare(rt_type_t type, float scale, int32_t zero_point, const void *out, const void *golden,
                          size_t bytes, size_t row, const bench_thresholds_t *th, bench_metrics_t *ret) {
        bench_metrics_t m = {};
        eval_output_error_t e;
        size_t esize, n;
        double allowed;
        bool quant = scale > 0 && !type_is_float(type);

        if (!out || !golden || !th || !ret)
                return -EINVAL;
        if (!eval_type_is_numeric((int32_t) type)) {
                eval_tensor_t a = tensor_view(type, 0, 0, golden, bytes, bytes);
                eval_tensor_t b = tensor_view(type, 0, 0, out, bytes, bytes);

                (void) eval_output_compare(&a, &b, 1, &e);
                m.max_abs_error = e.abs_error.max_value;
                m.ok = m.max_abs_error == 0;
                *ret = m;
                return -ENOTSUP;
        }
        esize = eval_type_size((int32_t) type);
        if (bytes % esize)
                return -EINVAL;
        n = bytes / esize;
        /* Not quantized: eval_tensor_value() must read raw values. */
        eval_tensor_t a = tensor_view(type, quant ? scale : 0, zero_point, golden, bytes, n);
        eval_tensor_t b = tensor_view(type, quant ? scale : 0, zero_point, out, bytes, n);
        if (eval_output_compare(&a, &b, row > 1 ? row : 1, &e) < 0)
                return -EINVAL;
        m.max_abs_error = e.abs_error.max_value;
        m.mse = e.mse;
        m.is_probability = e.is_probability;
        m.kl = e.kl;

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
