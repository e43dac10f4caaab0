/* SPDX-License-Identifier: Apache-2.0 */
/* Helpers for the shape kernel family tests (single-node harness). */
#pragma once

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "kharness.h"
#include "shape-internal.h"

#define I32(...) ((const int32_t[]){ __VA_ARGS__ })
#define F32(...) ((const float[]){ __VA_ARGS__ })

/* Run only reg->prepare on a node set up like kh_run() does, so a test can
 * see what prepare alone decided (static shape vs. dynamic output). */
static inline int st_prepare_only(kh_t *h, const rt_registration_t *reg, void *params, const int32_t *inputs,
                                  int32_t n_in, const int32_t *outputs, int32_t n_out) {
        memcpy(h->io[0], inputs, sizeof(int32_t) * (size_t) n_in);
        memcpy(h->io[1], outputs, sizeof(int32_t) * (size_t) n_out);
        rt_node_t *n = &h->node;
        memset(n, 0, sizeof(*n));
        n->op = reg->op;
        n->version = 1;
        n->inputs = h->io[0];
        n->n_inputs = n_in;
        n->outputs = h->io[1];
        n->n_outputs = n_out;
        n->reg = reg;
        n->params = params;
        return reg->prepare(&h->ctx, n);
}

static inline void st_assert_dims(const rt_tensor_t *t, int32_t rank, const int32_t *dims) {
        ck_assert_int_eq(t->rank, rank);
        for (int32_t i = 0; i < rank; i++)
                ck_assert_int_eq(t->dims[i], dims[i]);
}

static inline void st_assert_f32(const rt_tensor_t *t, size_t n, const float *want) {
        ck_assert_uint_eq(rt_tensor_count(t), n);
        const float *got = t->data;
        for (size_t i = 0; i < n; i++)
                ck_assert_msg(got[i] == want[i], "element %zu: got %g, want %g", i, got[i], want[i]);
}

static inline void st_assert_f32_tol(const rt_tensor_t *t, size_t n, const float *want, float tol) {
        ck_assert_uint_eq(rt_tensor_count(t), n);
        const float *got = t->data;
        for (size_t i = 0; i < n; i++)
                ck_assert_msg(got[i] >= want[i] - tol && got[i] <= want[i] + tol, "element %zu: got %g, want %g",
                              i, got[i], want[i]);
}

static inline void st_assert_i32(const rt_tensor_t *t, size_t n, const int32_t *want) {
        ck_assert_uint_eq(rt_tensor_count(t), n);
        const int32_t *got = t->data;
        for (size_t i = 0; i < n; i++)
                ck_assert_msg(got[i] == want[i], "element %zu: got %d, want %d", i, got[i], want[i]);
}

/* Each test file lists its tests with ST_MAIN(suite_name, test, test, ...). */
#define ST_MAIN(name, ...)                                                              \
        int main(void) {                                                                \
                const TTest *tests[] = { __VA_ARGS__ };                                 \
                Suite *s = suite_create(name);                                          \
                TCase *tc = tcase_create("core");                                       \
                for (size_t i = 0; i < sizeof(tests) / sizeof(tests[0]); i++)           \
                        tcase_add_test(tc, tests[i]);                                   \
                suite_add_tcase(s, tc);                                                 \
                SRunner *sr = srunner_create(s);                                        \
                srunner_run_all(sr, CK_NORMAL);                                         \
                int failed = srunner_ntests_failed(sr);                                 \
                srunner_free(sr);                                                       \
                return failed ? EXIT_FAILURE : EXIT_SUCCESS;                            \
        }
