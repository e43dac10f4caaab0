/* SPDX-License-Identifier: Apache-2.0 */
/* Small helpers shared by the elementwise kernel tests. */
#pragma once

#include <check.h>
#include <math.h>
#include <stdlib.h>

#include "ew.h"
#include "kharness.h"

#define DIMS(...) ((const int32_t[]){ __VA_ARGS__ })
#define EW_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Run a two-input, one-output op whose output tensor `o` was added with
 * rank 0 (prepare sets its shape). Returns the harness result. */
static inline int ew_run2(kh_t *h, const rt_registration_t *reg, void *params, int32_t a,
                          int32_t b, int32_t o) {
        return kh_run(h, reg, params, (const int32_t[]){ a, b }, 2, (const int32_t[]){ o }, 1);
}

static inline int ew_run1(kh_t *h, const rt_registration_t *reg, void *params, int32_t a,
                          int32_t o) {
        return kh_run(h, reg, params, (const int32_t[]){ a }, 1, (const int32_t[]){ o }, 1);
}

/* Round half away from zero, then clamp: a quantization done in double
 * precision, independent of the kernels' fixed-point arithmetic. */
static inline int32_t ew_ref_quantize(double real, double scale, int32_t zp, int32_t lo,
                                      int32_t hi) {
        double q = round(real / scale) + zp;
        return (int32_t) (q < lo ? lo : (q > hi ? hi : q));
}

static inline void ew_assert_shape(const rt_tensor_t *t, int32_t rank, const int32_t *dims) {
        ck_assert_int_eq(t->rank, rank);
        for (int32_t i = 0; i < rank; i++)
                ck_assert_int_eq(t->dims[i], dims[i]);
}

#define EW_MAIN(SUITE_FN)                                                 \
        int main(void) {                                                  \
                SRunner *sr = srunner_create(SUITE_FN());                 \
                srunner_run_all(sr, CK_NORMAL);                           \
                int failed = srunner_ntests_failed(sr);                   \
                srunner_free(sr);                                         \
                return failed ? EXIT_FAILURE : EXIT_SUCCESS;              \
        }
