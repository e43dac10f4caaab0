/* SPDX-License-Identifier: Apache-2.0 */
/* One output against its reference: absolute error statistics, MSE and the
 * symmetric KL divergence of distributions. */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "eval.h"

static bool type_is_float(int32_t type) {
        return type == 0 || type == 10;  /* float32, float64 */
}

static size_t last_dim(const eval_tensor_t *t) {
        return t->rank > 0 && t->dims[t->rank - 1] > 0 ? (size_t) t->dims[t->rank - 1] : 1;
}

/* Every row of `t` in [0, 1] and summing to 1 within 1%. */
static bool is_distribution(const eval_tensor_t *t, size_t n, size_t row) {
        if (!(type_is_float(t->type) || t->scale > 0) || row < 2 || n == 0 || n % row)
                return false;
        for (size_t r0 = 0; r0 < n; r0 += row) {
                double s = 0;

                for (size_t i = r0; i < r0 + row; i++) {
                        double v = eval_tensor_value(t, i);

                        if (!(v >= 0 && v <= 1))
                                return false;
                        s += v;
                }
                if (fabs(s - 1) > 0.01)
                        return false;
        }
        return true;
}

static double symmetric_kl(const eval_tensor_t *p_t, const eval_tensor_t *q_t, size_t n, size_t row) {
        double total = 0;

        for (size_t r0 = 0; r0 < n; r0 += row) {
                double kl = 0;

                for (size_t i = r0; i < r0 + row; i++) {
                        double p = eval_tensor_value(p_t, i), q = eval_tensor_value(q_t, i);

                        p = p < 1e-7 ? 1e-7 : p;
                        q = isnan(q) ? 1 : (q < 1e-7 ? 1e-7 : q);
                        kl += p * log(p / q) + q * log(q / p);
                }
                total += kl;
        }
        return total / (double) (n / row);
}

int eval_output_compare(const eval_tensor_t *reference, const eval_tensor_t *test, size_t row,
                        eval_output_error_t *ret) {
        eval_output_error_t e = {};
        eval_stats_t abs_err = {};
        double sum_sq = 0;
        size_t n;

        if (!reference || !test || !ret || reference->type != test->type)
                return -EINVAL;
        if (!eval_type_is_numeric(reference->type)) {
                if (reference->bytes != test->bytes || (reference->bytes && (!reference->data || !test->data)))
                        return -EINVAL;
                double d = reference->bytes && memcmp(reference->data, test->data, reference->bytes) ? 1 : 0;
                eval_stats_add(&abs_err, d);
                eval_stats_accuracy(&abs_err, &e.abs_error);
                e.mse = d;
                e.bytewise = true;
                *ret = e;
                return 0;
        }
        n = eval_tensor_count(reference);
        if (n != eval_tensor_count(test) || (n && (!reference->data || !test->data)))
                return -EINVAL;
        for (size_t i = 0; i < n; i++) {
                double d = fabs(eval_tensor_value(reference, i) - eval_tensor_value(test, i));

                if (isnan(d))
                        d = INFINITY;
                eval_stats_add(&abs_err, d);
                sum_sq += d * d;
        }
        eval_stats_accuracy(&abs_err, &e.abs_error);
        e.mse = n ? sum_sq / (double) n : 0;
        if (row == 0)
                row = last_dim(reference);
        if (is_distribution(reference, n, row)) {
                e.is_probability = true;
                e.kl = symmetric_kl(reference, test, n, row);
        }
        *ret = e;
        return 0;
}
