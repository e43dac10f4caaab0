/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Helpers for the reduce family's single-node tests: building a reducer
 * node (input, int32 axes, output) in the harness and the Check main().
 */
#pragma once

#include <check.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kharness.h"
#include "reduce/reduce.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

typedef struct rt_reduce_case {
        int32_t in;
        int32_t axis;
        int32_t out;
} rt_reduce_case_t;

/* Add input, axis (constant unless `dynamic_axis`) and an unshaped output of
 * `out_type`; the caller may set quantization before running. */
static inline rt_reduce_case_t reduce_case(kh_t *h, rt_type_t type, int32_t rank, const int32_t *dims,
                                           const void *x, const int32_t *axes, int32_t n_axes,
                                           bool dynamic_axis, rt_type_t out_type) {
        rt_reduce_case_t c;
        c.in = kh_tensor(h, type, rank, dims, x);
        const int32_t adims[1] = { n_axes };
        c.axis = dynamic_axis ? kh_tensor(h, RT_TYPE_INT32, 1, adims, axes)
                              : kh_const(h, RT_TYPE_INT32, 1, adims, axes);
        c.out = kh_tensor(h, out_type, 0, NULL, NULL);
        return c;
}

static inline int reduce_run(kh_t *h, const rt_registration_t *reg, const rt_reduce_case_t *c,
                             bool keep_dims) {
        static rt_reducer_params_t p;
        p.keep_dims = keep_dims;
        return kh_run(h, reg, &p, (int32_t[]) { c->in, c->axis }, 2, (int32_t[]) { c->out }, 1);
}

/* Assert the output's shape. */
#define ck_assert_shape(t, rank_, ...)                                                      \
        do {                                                                                \
                const int32_t want_[] = { 0, __VA_ARGS__ };                                 \
                ck_assert_int_eq((t)->rank, (rank_));                                       \
                for (int32_t i_ = 0; i_ < (rank_); i_++)                                    \
                        ck_assert_int_eq((t)->dims[i_], want_[i_ + 1]);                     \
        } while (0)

#define REDUCE_TEST_MAIN(name, ...)                                                         \
        int main(void) {                                                                    \
                Suite *s = suite_create(name);                                              \
                TCase *tc = tcase_create(name);                                             \
                const TTest *tests_[] = { __VA_ARGS__ };                                    \
                for (size_t i_ = 0; i_ < ARRAY_LEN(tests_); i_++)                           \
                        tcase_add_test(tc, tests_[i_]);                        \
                suite_add_tcase(s, tc);                                                     \
                SRunner *sr = srunner_create(s);                                            \
                srunner_run_all(sr, CK_NORMAL);                                             \
                int failed_ = srunner_ntests_failed(sr);                                    \
                srunner_free(sr);                                                           \
                return failed_ == 0 ? 0 : 1;                                                \
        }
