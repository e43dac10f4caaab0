/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Helpers for the misc family's single-node tests: shape and error
 * assertions and the Check main().
 */
#pragma once

#include <check.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kharness.h"
#include "misc/misc.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define I32(...) ((const int32_t[]) { __VA_ARGS__ })
#define I64(...) ((const int64_t[]) { __VA_ARGS__ })
#define F32(...) ((const float[]) { __VA_ARGS__ })
#define U8(...) ((const uint8_t[]) { __VA_ARGS__ })

/* Assert a tensor's shape. */
#define ck_assert_shape(t, rank_, ...)                                                      \
        do {                                                                                \
                const int32_t want_[] = { 0, __VA_ARGS__ };                                 \
                ck_assert_int_eq((t)->rank, (rank_));                                       \
                for (int32_t i_ = 0; i_ < (rank_); i_++)                                    \
                        ck_assert_int_eq((t)->dims[i_], want_[i_ + 1]);                     \
        } while (0)

/* Assert n elements of a typed output. */
#define ck_assert_data(type_, t, n, ...)                                                    \
        do {                                                                                \
                const type_ want_[] = { __VA_ARGS__ };                                      \
                ck_assert_uint_eq(ARRAY_LEN(want_), (n));                                   \
                ck_assert_uint_eq(rt_tensor_count(t), (n));                                 \
                const type_ *got_ = (const type_ *) (t)->data;                              \
                for (size_t i_ = 0; i_ < (n); i_++)                                         \
                        ck_assert_msg(got_[i_] == want_[i_], "element %zu: got %lld want %lld", \
                                      i_, (long long) got_[i_], (long long) want_[i_]);     \
        } while (0)

#define ck_assert_f32_data(t, n, tol, ...)                                                  \
        do {                                                                                \
                const float want_[] = { __VA_ARGS__ };                                      \
                ck_assert_uint_eq(ARRAY_LEN(want_), (n));                                   \
                ck_assert_uint_eq(rt_tensor_count(t), (n));                                 \
                const float *got_ = (const float *) (t)->data;                              \
                for (size_t i_ = 0; i_ < (n); i_++)                                         \
                        ck_assert_msg(fabsf(got_[i_] - want_[i_]) <= (tol),                 \
                                      "element %zu: got %.9g want %.9g", i_,                \
                                      (double) got_[i_], (double) want_[i_]);               \
        } while (0)

/* Assert that a run failed with `err` and that the message mentions `word`. */
#define ck_assert_fails(h, expr, err, word)                                                 \
        do {                                                                                \
                ck_assert_int_eq((expr), (err));                                            \
                ck_assert_msg(strstr((h)->error, (word)) != NULL, "message '%s' lacks '%s'",  \
                              (h)->error, (word));                                          \
        } while (0)

#define MISC_TEST_MAIN(name, ...)                                                           \
        int main(void) {                                                                    \
                Suite *s = suite_create(name);                                              \
                TCase *tc = tcase_create(name);                                             \
                const TTest *tests_[] = { __VA_ARGS__ };                                    \
                for (size_t i_ = 0; i_ < ARRAY_LEN(tests_); i_++)                           \
                        tcase_add_test(tc, tests_[i_]);                                     \
                suite_add_tcase(s, tc);                                                     \
                SRunner *sr = srunner_create(s);                                            \
                srunner_run_all(sr, CK_NORMAL);                                             \
                int failed_ = srunner_ntests_failed(sr);                                    \
                srunner_free(sr);                                                           \
                return failed_ == 0 ? 0 : 1;                                                \
        }
