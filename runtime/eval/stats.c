/* SPDX-License-Identifier: Apache-2.0 */
/* Running statistics and the seed's LatencyMetrics / AccuracyMetrics. */
#include <math.h>
#include <time.h>

#include "eval.h"

void eval_stats_add(eval_stats_t *s, double value) {
        s->count++;
        s->last = value;
        s->sum += value;
        if (s->count == 1) {
                s->min = s->max = s->mean = value;
                s->m2 = 0;
                return;
        }
        if (value < s->min)
                s->min = value;
        if (value > s->max)
                s->max = value;
        /* Welford: no catastrophic cancellation on long series of similar
         * values, where sum-of-squares minus squared mean would go negative. */
        double d = value - s->mean;
        s->mean += d / (double) s->count;
        s->m2 += d * (value - s->mean);
}

double eval_stats_std_deviation(const eval_stats_t *s) {
        if (s->count < 2 || s->m2 <= 0)
                return 0;
        return sqrt(s->m2 / (double) s->count);
}

void eval_stats_latency(const eval_stats_t *s, eval_latency_metrics_t *ret) {
        *ret = (eval_latency_metrics_t) {};
        if (s->count == 0)
                return;
        ret->last_us = (int64_t) s->last;
        ret->max_us = (int64_t) s->max;
        ret->min_us = (int64_t) s->min;
        ret->sum_us = (int64_t) s->sum;
        ret->avg_us = s->sum / (double) s->count;
        ret->std_deviation_us = (int64_t) eval_stats_std_deviation(s);
}

void eval_stats_accuracy(const eval_stats_t *s, eval_accuracy_metrics_t *ret) {
        *ret = (eval_accuracy_metrics_t) {};
        if (s->count == 0)
                return;
        ret->max_value = (float) s->max;
        ret->min_value = (float) s->min;
        ret->avg_value = s->sum / (double) s->count;
        ret->std_deviation = (float) eval_stats_std_deviation(s);
}
