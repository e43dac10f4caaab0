/* SPDX-License-Identifier: Apache-2.0 */
/* The golden comparison rule (../shared/models/README.md) and the manifest reader. */
#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "golden.h"

static golden_tensor_t float_tensor(double atol, double rtol) {
        golden_tensor_t g = { .type = RT_TYPE_FLOAT32 };
        g.tol[GOLDEN_TOL_REFERENCE] = (golden_tol_t) { .present = true, .atol = atol, .rtol = rtol,
                                                      .max_mismatch_fraction = -1 };
        return g;
}

static golden_tensor_t int_tensor(rt_type_t type, int64_t steps, double frac) {
        golden_tensor_t g = { .type = type };
        g.tol[GOLDEN_TOL_REFERENCE] = (golden_tol_t) { .present = true, .steps = steps,
                                                      .max_mismatch_fraction = frac };
        return g;
}

START_TEST(test_golden_float_atol_rtol) {
        golden_tensor_t g = float_tensor(0.1, 0.01);
        const float b[2] = { 1.0f, 100.0f };
        const float ok[2] = { 1.1f, 101.05f };   /* 0.1 <= 0.1 + 0.01; 1.05 <= 0.1 + 1 */
        const float bad[2] = { 1.0f, 101.2f };   /* 1.2 > 1.1 */
        golden_result_t r;
        ck_assert_int_eq(golden_compare(&g, GOLDEN_TOL_REFERENCE, ok, 8, b, 8, &r), 0);
        ck_assert_msg(r.pass, "%s", r.message);
        ck_assert(r.score <= 1.0 && r.score > 0.9);
        ck_assert_int_eq(golden_compare(&g, GOLDEN_TOL_REFERENCE, bad, 8, b, 8, &r), 0);
        ck_assert(!r.pass);
        ck_assert_uint_eq(r.worst, 1);
        ck_assert_uint_eq(r.mismatches, 1);
        ck_assert(r.score > 1.0);
        /* No accelerated tolerance recorded. */
        ck_assert_int_eq(golden_compare(&g, GOLDEN_TOL_ACCELERATED, ok, 8, b, 8, &r), -EINVAL);
}
END_TEST

START_TEST(test_golden_float_nan_inf_rules) {
        golden_tensor_t g = float_tensor(1.0, 0);
        const float b[3] = { NAN, INFINITY, 0.0f };
        const float same[3] = { NAN, INFINITY, 0.5f };
        golden_result_t r;
        ck_assert_int_eq(golden_compare(&g, GOLDEN_TOL_REFERENCE, same, 12, b, 12, &r), 0);
        ck_assert(r.pass);
        const float nan_vs_finite[3] = { NAN, INFINITY, NAN };
        ck_assert_int_eq(golden_compare(&g, GOLDEN_TOL_REFERENCE, nan_vs_finite, 12, b, 12, &r), 0);
        ck_assert(!r.pass);
        const float neg_inf[3] = { NAN, -INFINITY, 0.0f };
        ck_assert_int_eq(golden_compare(&g, GOLDEN_TOL_REFERENCE, neg_inf, 12, b, 12, &r), 0);
        ck_assert(!r.pass);
        const float finite_vs_nan[3] = { 0.0f, INFINITY, 0.0f };
        ck_assert_int_eq(golden_compare(&g, GOLDEN_TOL_REFERENCE, finite_vs_nan, 12, b, 12, &r), 0);
        ck_assert(!r.pass);
}
END_TEST

START_TEST(test_golden_ignore_elements) {
        golden_tensor_t g = float_tensor(0.0, 0);
        int64_t ign[1] = { 1 };
        g.ignore = ign;
        g.n_ignore = 1;
        const float b[2] = { 1, 2 }, a[2] = { 1, 99 };
        golden_result_t r;
        ck_assert_int_eq(golden_compare(&g, GOLDEN_TOL_REFERENCE, a, 8, b, 8, &r), 0);
        ck_assert(r.pass);
        g.n_ignore = 0;
        ck_assert_int_eq(golden_compare(&g, GOLDEN_TOL_REFERENCE, a, 8, b, 8, &r), 0);
        ck_assert(!r.pass);
}
END_TEST

START_TEST(test_golden_integer_steps_and_mismatch_fraction) {
        golden_tensor_t g = int_tensor(RT_TYPE_INT8, 1, -1);
        const int8_t b[4] = { -128, 0, 5, 127 };
        const int8_t one[4] = { -127, 1, 4, 127 };
        const int8_t two[4] = { -128, 0, 7, 127 };
        golden_result_t r;
        ck_assert_int_eq(golden_compare(&g, GOLDEN_TOL_REFERENCE, one, 4, b, 4, &r), 0);
        ck_assert(r.pass);
        ck_assert_uint_eq(r.mismatches, 3);
        ck_assert_int_eq(golden_compare(&g, GOLDEN_TOL_REFERENCE, two, 4, b, 4, &r), 0);
        ck_assert(!r.pass);
        ck_assert(r.max_err == 2.0);
        ck_assert_uint_eq(r.worst, 2);
        /* Within steps, but 3 of 4 differ > 0.5. */
        g.tol[GOLDEN_TOL_REFERENCE].max_mismatch_fraction = 0.5;
        ck_assert_int_eq(golden_compare(&g, GOLDEN_TOL_REFERENCE, one, 4, b, 4, &r), 0);
        ck_assert(!r.pass);
        golden_tensor_t g64 = int_tensor(RT_TYPE_INT64, 1, -1);
        const int64_t x[1] = { INT64_MIN }, y[1] = { INT64_MIN + 1 };
        ck_assert_int_eq(golden_compare(&g64, GOLDEN_TOL_REFERENCE, x, 8, y, 8, &r), 0);
        ck_assert(r.pass);
}
END_TEST

START_TEST(test_golden_sizes_and_strings) {
        golden_tensor_t g = int_tensor(RT_TYPE_UINT8, 1, -1);
        const uint8_t a[3] = { 1, 2, 3 };
        golden_result_t r;
        ck_assert_int_eq(golden_compare(&g, GOLDEN_TOL_REFERENCE, a, 2, a, 3, &r), 0);
        ck_assert(!r.pass);
        ck_assert_ptr_nonnull(strstr(r.message, "size 2 bytes, golden has 3"));
        golden_tensor_t s = { .type = RT_TYPE_STRING };
        const uint8_t b[3] = { 1, 2, 4 };
        ck_assert_int_eq(golden_compare(&s, GOLDEN_TOL_REFERENCE, a, 3, a, 3, &r), 0);
        ck_assert(r.pass);
        ck_assert_int_eq(golden_compare(&s, GOLDEN_TOL_REFERENCE, a, 3, b, 3, &r), 0);
        ck_assert(!r.pass);
        ck_assert_uint_eq(r.worst, 2);
}
END_TEST

START_TEST(test_golden_manifest_load) {
        const char *shared = golden_shared_dir();
        if (!shared)
                return;
        golden_manifest_t *m = NULL;
        char err[256] = "";
        ck_assert_msg(golden_manifest_load(shared, &m, err, sizeof(err)) == 0, "%s", err);
        ck_assert_uint_gt(m->n_models, 0);
        const golden_model_t *hw = golden_manifest_find(m, "hello_world_int8");
        ck_assert_ptr_nonnull(hw);
        ck_assert(hw->runnable);
        ck_assert_uint_eq(hw->n_inputs, 1);
        ck_assert_int_eq(hw->inputs[0].type, RT_TYPE_INT8);
        ck_assert_int_eq(hw->inputs[0].rank, 2);
        ck_assert_int_eq(hw->outputs[0].tol[GOLDEN_TOL_REFERENCE].steps, 1);
        const golden_model_t *tpu = golden_manifest_find(m, "mobilenet_v1_0.25_128_quant_edgetpu");
        ck_assert_ptr_nonnull(tpu);
        ck_assert(!tpu->runnable);
        ck_assert_uint_eq(tpu->n_custom_ops, 1);
        ck_assert_str_eq(tpu->custom_ops[0], "edgetpu-custom-op");
        ck_assert_ptr_null(golden_manifest_find(m, "no-such-model"));
        golden_manifest_free(m);
        ck_assert_int_eq(golden_manifest_load("/nonexistent", &m, err, sizeof(err)), -ENOENT);
}
END_TEST

int main(void) {
        Suite *s = suite_create("golden");
        TCase *tc = tcase_create("compare");
        tcase_add_test(tc, test_golden_float_atol_rtol);
        tcase_add_test(tc, test_golden_float_nan_inf_rules);
        tcase_add_test(tc, test_golden_ignore_elements);
        tcase_add_test(tc, test_golden_integer_steps_and_mismatch_fraction);
        tcase_add_test(tc, test_golden_sizes_and_strings);
        tcase_add_test(tc, test_golden_manifest_load);
        suite_add_tcase(s, tc);
        SRunner *sr = srunner_create(s);
        srunner_run_all(sr, CK_NORMAL);
        int failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed ? 1 : 0;
}
