/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Top-K accuracy. The 1001-class cases are TensorFlow Lite's own
 * topk_accuracy_eval_stage_test figures (labels "0".."1000", k = 5).
 */
#include <check.h>
#include <errno.h>
#include <stdlib.h>

#include "eval.h"

#define N 1001

START_TEST(test_topk_label_fifth_then_fourth) {
        static float scores[N];
        float acc[5];
        eval_topk_t t;

        ck_assert_int_eq(eval_topk_init(&t, 5), 0);
        eval_topk_accuracies(&t, acc);
        ck_assert_float_eq(acc[0], 0.0f);  /* nothing run yet */
        scores[4] = 0.9f;
        scores[3] = 0.8f;
        scores[2] = 0.7f;
        scores[1] = 0.6f;
        scores[0] = 0.5f;
        /* Label 0 is fifth. */
        ck_assert_int_eq(eval_topk_add(&t, scores, N, 0), 0);
        eval_topk_accuracies(&t, acc);
        for (int i = 0; i < 4; i++)
                ck_assert_float_eq(acc[i], 0.0f);
        ck_assert_float_eq(acc[4], 1.0f);
        /* Label 1 is fourth: 1/2 within top 4, 2/2 within top 5. */
        ck_assert_int_eq(eval_topk_add(&t, scores, N, 1), 0);
        eval_topk_accuracies(&t, acc);
        for (int i = 0; i < 3; i++)
                ck_assert_float_eq(acc[i], 0.0f);
        ck_assert_float_eq(acc[3], 0.5f);
        ck_assert_float_eq(acc[4], 1.0f);
        eval_topk_done(&t);
}
END_TEST

START_TEST(test_topk_correct_top1) {
        static float scores[N];
        float acc[5];
        eval_topk_t t;

        ck_assert_int_eq(eval_topk_init(&t, 5), 0);
        scores[0] = 0.8f;
        ck_assert_int_eq(eval_topk_add(&t, scores, N, 0), 0);
        scores[1] = 0.9f;
        ck_assert_int_eq(eval_topk_add(&t, scores, N, 1), 0);
        eval_topk_accuracies(&t, acc);
        for (int i = 0; i < 5; i++)
                ck_assert_float_eq(acc[i], 1.0f);
        eval_topk_done(&t);
}
END_TEST

START_TEST(test_topk_errors) {
        float scores[3] = { 1, 2, 3 };
        eval_topk_t t;

        ck_assert_int_eq(eval_topk_init(&t, 0), -EINVAL);
        ck_assert_int_eq(eval_topk_init(&t, 4), 0);
        ck_assert_int_eq(eval_topk_add(&t, scores, 3, 0), -EINVAL);  /* k > classes */
        eval_topk_done(&t);
        ck_assert_int_eq(eval_topk_init(&t, 2), 0);
        ck_assert_int_eq(eval_topk_add(&t, scores, 3, 3), -EINVAL);
        ck_assert_int_eq(eval_topk_add(&t, scores, 3, -1), -EINVAL);
        ck_assert_uint_eq(t.runs, 0);
        eval_topk_done(&t);
}
END_TEST

START_TEST(test_topk_ties_lower_index_first) {
        /* Scores 5, 7, 7, 1, 7: ranking 1, 2, 4, 0, 3. */
        float scores[5] = { 5, 7, 7, 1, 7 };
        int32_t top[5];
        float acc[3];
        eval_topk_t t;

        eval_topk_indices(scores, 5, 5, top);
        ck_assert_int_eq(top[0], 1);
        ck_assert_int_eq(top[1], 2);
        ck_assert_int_eq(top[2], 4);
        ck_assert_int_eq(top[3], 0);
        ck_assert_int_eq(top[4], 3);
        eval_topk_indices(scores, 5, 2, top);
        ck_assert_int_eq(top[0], 1);
        ck_assert_int_eq(top[1], 2);
        /* Label 4 ties with 1 and 2 and loses to both: third. */
        ck_assert_int_eq(eval_topk_init(&t, 3), 0);
        ck_assert_int_eq(eval_topk_add(&t, scores, 5, 4), 0);
        eval_topk_accuracies(&t, acc);
        ck_assert_float_eq(acc[0], 0.0f);
        ck_assert_float_eq(acc[1], 0.0f);
        ck_assert_float_eq(acc[2], 1.0f);
        eval_topk_done(&t);
}
END_TEST

START_TEST(test_topk_three_images) {
        /* Hand-computed: ranks 1, 2 and 4 of three images; k = 3 gives
         * top-1 1/3, top-2 2/3, top-3 2/3. */
        float a[4] = { 0.9f, 0.05f, 0.03f, 0.02f };
        float b[4] = { 0.2f, 0.5f, 0.1f, 0.2f };
        float c[4] = { 0.4f, 0.3f, 0.2f, 0.1f };
        float acc[3];
        eval_topk_t t;

        ck_assert_int_eq(eval_topk_init(&t, 3), 0);
        ck_assert_int_eq(eval_topk_add(&t, a, 4, 0), 0);
        ck_assert_int_eq(eval_topk_add(&t, b, 4, 0), 0);  /* 0.2 ties with index 3 and wins: second */
        ck_assert_int_eq(eval_topk_add(&t, c, 4, 3), 0);
        eval_topk_accuracies(&t, acc);
        ck_assert_float_eq_tol(acc[0], 1.0f / 3, 1e-7);
        ck_assert_float_eq_tol(acc[1], 2.0f / 3, 1e-7);
        ck_assert_float_eq_tol(acc[2], 2.0f / 3, 1e-7);
        eval_topk_done(&t);
}
END_TEST

int main(void) {
        Suite *s = suite_create("eval-topk");
        TCase *tc = tcase_create("topk");
        tcase_add_test(tc, test_topk_label_fifth_then_fourth);
        tcase_add_test(tc, test_topk_correct_top1);
        tcase_add_test(tc, test_topk_errors);
        tcase_add_test(tc, test_topk_ties_lower_index_first);
        tcase_add_test(tc, test_topk_three_images);
        suite_add_tcase(s, tc);
        SRunner *sr = srunner_create(s);
        srunner_run_all(sr, CK_NORMAL);
        int failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed ? 1 : 0;
}
