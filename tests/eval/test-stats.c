/* SPDX-License-Identifier: Apache-2.0 */
/* LatencyMetrics / AccuracyMetrics statistics and their proto3 JSON. */
#include <check.h>
#include <math.h>
#include <string.h>

#include "eval.h"

START_TEST(test_stats_latency_hand_computed) {
        eval_stats_t s = {};
        eval_latency_metrics_t m;

        eval_stats_add(&s, 100);
        eval_stats_add(&s, 200);
        eval_stats_add(&s, 600);
        eval_stats_latency(&s, &m);
        ck_assert_int_eq(m.last_us, 600);
        ck_assert_int_eq(m.max_us, 600);
        ck_assert_int_eq(m.min_us, 100);
        ck_assert_int_eq(m.sum_us, 900);
        ck_assert_double_eq(m.avg_us, 300.0);
        /* Deviations -200, -100, 300: sqrt(140000 / 3) = 216.02, truncated. */
        ck_assert_int_eq(m.std_deviation_us, 216);
}
END_TEST

START_TEST(test_stats_latency_empty_and_single) {
        eval_stats_t s = {};
        eval_latency_metrics_t m;

        eval_stats_latency(&s, &m);
        ck_assert_int_eq(m.sum_us, 0);
        ck_assert_double_eq(m.avg_us, 0);
        eval_stats_add(&s, 42);
        eval_stats_latency(&s, &m);
        ck_assert_int_eq(m.last_us, 42);
        ck_assert_int_eq(m.min_us, 42);
        ck_assert_int_eq(m.max_us, 42);
        ck_assert_int_eq(m.std_deviation_us, 0);
}
END_TEST

START_TEST(test_stats_std_deviation_stable) {
        eval_stats_t s = {};

        /* Sum of squares minus squared mean loses everything here; Welford
         * gives exactly 0 for identical values and 0.5 for alternating
         * +-0.5 around 1e9. */
        for (int i = 0; i < 1000; i++)
                eval_stats_add(&s, 1e9 + 1);
        ck_assert_double_eq(eval_stats_std_deviation(&s), 0);
        eval_stats_t t = {};
        for (int i = 0; i < 1000; i++)
                eval_stats_add(&t, 1e9 + (i % 2 ? 0.5 : -0.5));
        ck_assert_double_eq_tol(eval_stats_std_deviation(&t), 0.5, 1e-6);
}
END_TEST

START_TEST(test_stats_accuracy_hand_computed) {
        eval_stats_t s = {};
        eval_accuracy_metrics_t m;

        eval_stats_add(&s, 0.5);
        eval_stats_add(&s, 1.5);
        eval_stats_accuracy(&s, &m);
        ck_assert_float_eq(m.max_value, 1.5f);
        ck_assert_float_eq(m.min_value, 0.5f);
        ck_assert_double_eq(m.avg_value, 1.0);
        ck_assert_float_eq(m.std_deviation, 0.5f);
}
END_TEST

START_TEST(test_stats_latency_json_names) {
        eval_latency_metrics_t m = { .last_us = 600, .max_us = 600, .min_us = 100, .sum_us = 900, .avg_us = 300,
                                     .std_deviation_us = 216 };
        json_object *o = eval_json_latency(&m);

        ck_assert_str_eq(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN),
                         "{\"lastUs\":\"600\",\"maxUs\":\"600\",\"minUs\":\"100\",\"sumUs\":\"900\","
                         "\"avgUs\":300,\"stdDeviationUs\":\"216\"}");
        json_object_put(o);
        eval_accuracy_metrics_t a = { .max_value = 0.1f, .min_value = 0, .avg_value = 0.05, .std_deviation = 0.5f };
        o = eval_json_accuracy(&a);
        ck_assert_str_eq(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN),
                         "{\"maxValue\":0.1,\"minValue\":0,\"avgValue\":0.05,\"stdDeviation\":0.5}");
        json_object_put(o);
}
END_TEST

int main(void) {
        Suite *s = suite_create("eval-stats");
        TCase *tc = tcase_create("stats");
        tcase_add_test(tc, test_stats_latency_hand_computed);
        tcase_add_test(tc, test_stats_latency_empty_and_single);
        tcase_add_test(tc, test_stats_std_deviation_stable);
        tcase_add_test(tc, test_stats_accuracy_hand_computed);
        tcase_add_test(tc, test_stats_latency_json_names);
        suite_add_tcase(s, tc);
        SRunner *sr = srunner_create(s);
        srunner_run_all(sr, CK_NORMAL);
        int failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed ? 1 : 0;
}
