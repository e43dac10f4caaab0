/* SPDX-License-Identifier: Apache-2.0 */
/* eval_output_compare(): hand-computed errors, distributions, bytewise
 * types and the cases it refuses. */
#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>

#include "eval.h"

static eval_tensor_t view(int32_t type, int32_t n, void *data, size_t bytes, float scale, int32_t zp) {
        return (eval_tensor_t) { .type = type, .rank = 2, .dims = { 1, n }, .scale = scale, .zero_point = zp,
                                 .bytes = bytes, .data = data, .name = "" };
}

START_TEST(test_compare_float_hand_computed) {
        float r[4] = { 1, 2, 3, 4 }, t[4] = { 1, 2.5f, 2, 4 };
        eval_tensor_t a = view(0, 4, r, sizeof(r), 0, 0), b = view(0, 4, t, sizeof(t), 0, 0);
        eval_output_error_t e;

        ck_assert_int_eq(eval_output_compare(&a, &b, 0, &e), 0);
        /* |diff| = 0, 0.5, 1, 0 */
        ck_assert_float_eq_tol(e.abs_error.max_value, 1.0f, 1e-6f);
        ck_assert_float_eq_tol(e.abs_error.min_value, 0.0f, 1e-6f);
        ck_assert_double_eq_tol(e.abs_error.avg_value, 0.375, 1e-9);
        ck_assert_double_eq_tol(e.mse, (0.25 + 1) / 4, 1e-9);
        ck_assert(!e.is_probability);  /* values above 1 */
        ck_assert(!e.bytewise);
}
END_TEST

START_TEST(test_compare_distribution_kl) {
        float p[2] = { 0.5f, 0.5f }, q[2] = { 0.25f, 0.75f };
        eval_tensor_t a = view(0, 2, p, sizeof(p), 0, 0), b = view(0, 2, q, sizeof(q), 0, 0);
        eval_output_error_t e;
        double want = 0.5 * log(0.5 / 0.25) + 0.5 * log(0.5 / 0.75) + 0.25 * log(0.25 / 0.5) +
                      0.75 * log(0.75 / 0.5);

        ck_assert_int_eq(eval_output_compare(&a, &b, 0, &e), 0);
        ck_assert(e.is_probability);
        ck_assert_double_eq_tol(e.kl, want, 1e-6);
        /* row 1: no distribution check */
        ck_assert_int_eq(eval_output_compare(&a, &b, 1, &e), 0);
        ck_assert(!e.is_probability);
        ck_assert_double_eq(e.kl, 0);
}
END_TEST

START_TEST(test_compare_quantized_dequantizes) {
        uint8_t r[2] = { 10, 20 }, t[2] = { 12, 20 };
        eval_tensor_t a = view(3, 2, r, 2, 0.5f, 10), b = view(3, 2, t, 2, 0.5f, 10);
        eval_output_error_t e;

        ck_assert_int_eq(eval_output_compare(&a, &b, 0, &e), 0);
        ck_assert_float_eq_tol(e.abs_error.max_value, 1.0f, 1e-6f);  /* 2 steps of 0.5 */
}
END_TEST

START_TEST(test_compare_nan_is_infinite) {
        float r[1] = { 1 }, t[1] = { NAN };
        eval_tensor_t a = view(0, 1, r, 4, 0, 0), b = view(0, 1, t, 4, 0, 0);
        eval_output_error_t e;

        ck_assert_int_eq(eval_output_compare(&a, &b, 0, &e), 0);
        ck_assert(isinf(e.abs_error.max_value));
}
END_TEST

START_TEST(test_compare_bytewise_and_refused) {
        char r[3] = "ab", t[3] = "ac";
        float f[2] = { 0, 0 };
        eval_tensor_t a = view(5, 3, r, 3, 0, 0), b = view(5, 3, t, 3, 0, 0);
        eval_tensor_t fa = view(0, 2, f, 8, 0, 0), fb = view(0, 1, f, 4, 0, 0);
        eval_output_error_t e;

        ck_assert_int_eq(eval_output_compare(&a, &b, 0, &e), 0);
        ck_assert(e.bytewise);
        ck_assert_float_eq(e.abs_error.max_value, 1.0f);
        ck_assert_int_eq(eval_output_compare(&a, &a, 0, &e), 0);
        ck_assert_float_eq(e.abs_error.max_value, 0.0f);
        ck_assert_int_eq(eval_output_compare(&fa, &fb, 0, &e), -EINVAL);  /* counts differ */
        ck_assert_int_eq(eval_output_compare(&fa, &a, 0, &e), -EINVAL);   /* types differ */
        ck_assert_int_eq(eval_output_compare(NULL, &fa, 0, &e), -EINVAL);
}
END_TEST

int main(void) {
        Suite *s = suite_create("eval-compare");
        TCase *tc = tcase_create("compare");
        tcase_add_test(tc, test_compare_float_hand_computed);
        tcase_add_test(tc, test_compare_distribution_kl);
        tcase_add_test(tc, test_compare_quantized_dequantizes);
        tcase_add_test(tc, test_compare_nan_is_infinite);
        tcase_add_test(tc, test_compare_bytewise_and_refused);
        suite_add_tcase(s, tc);
        SRunner *sr = srunner_create(s);
        srunner_run_all(sr, CK_NORMAL);
        int failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed ? 1 : 0;
}
