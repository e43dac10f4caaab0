/* SPDX-License-Identifier: Apache-2.0 */
#include <float.h>

#include "reduce-test.h"

static const float x23[6] = { 1, 7, 3, -4, 5, 6 };

START_TEST(test_reduce_max_min_float) {
        kh_t h;
        kh_init(&h);
        rt_reduce_case_t c = reduce_case(&h, RT_TYPE_FLOAT32, 2, (int32_t[]) { 2, 3 }, x23,
                                         (int32_t[]) { 0 }, 1, false, RT_TYPE_FLOAT32);
        ck_assert_int_eq(reduce_run(&h, &rt_kernel_reduce_max, &c, false), 0);
        const float *y = h.tensors[c.out].data;
        ck_assert_shape(&h.tensors[c.out], 1, 3);
        ck_assert_float_eq(y[0], 1.0f);
        ck_assert_float_eq(y[1], 7.0f);
        ck_assert_float_eq(y[2], 6.0f);
        kh_done(&h);

        kh_init(&h);
        c = reduce_case(&h, RT_TYPE_FLOAT32, 2, (int32_t[]) { 2, 3 }, x23, (int32_t[]) { -1 }, 1, false,
                        RT_TYPE_FLOAT32);
        ck_assert_int_eq(reduce_run(&h, &rt_kernel_reduce_min, &c, true), 0);
        ck_assert_shape(&h.tensors[c.out], 2, 2, 1);
        y = h.tensors[c.out].data;
        ck_assert_float_eq(y[0], 1.0f);
        ck_assert_float_eq(y[1], -4.0f);
        kh_done(&h);
}
END_TEST

/* TFLite 2.9 starts every float reduction, partial or over all axes, at the
 * lowest finite float: an all -inf input gives -FLT_MAX (checked against
 * native TensorFlow Lite on rank 1 and 2, all axes). */
START_TEST(test_reduce_max_float_init_value) {
        const float x[2] = { -INFINITY, -INFINITY };
        kh_t h;
        kh_init(&h);
        rt_reduce_case_t c = reduce_case(&h, RT_TYPE_FLOAT32, 2, (int32_t[]) { 1, 2 }, x,
                                         (int32_t[]) { 1 }, 1, false, RT_TYPE_FLOAT32);
        ck_assert_int_eq(reduce_run(&h, &rt_kernel_reduce_max, &c, false), 0);
        ck_assert_float_eq(((float *) h.tensors[c.out].data)[0], -FLT_MAX);
        kh_done(&h);

        kh_init(&h);
        c = reduce_case(&h, RT_TYPE_FLOAT32, 2, (int32_t[]) { 1, 2 }, x, (int32_t[]) { 0, 1 }, 2, false,
                        RT_TYPE_FLOAT32);
        ck_assert_int_eq(reduce_run(&h, &rt_kernel_reduce_max, &c, false), 0);
        ck_assert_float_eq(((float *) h.tensors[c.out].data)[0], -FLT_MAX);
        kh_done(&h);

        /* REDUCE_MIN likewise: an all +inf input gives FLT_MAX. */
        const float p[2] = { INFINITY, INFINITY };
        kh_init(&h);
        c = reduce_case(&h, RT_TYPE_FLOAT32, 1, (int32_t[]) { 2 }, p, (int32_t[]) { 0 }, 1, false,
                        RT_TYPE_FLOAT32);
        ck_assert_int_eq(reduce_run(&h, &rt_kernel_reduce_min, &c, false), 0);
        ck_assert_float_eq(((float *) h.tensors[c.out].data)[0], FLT_MAX);
        kh_done(&h);
}
END_TEST

START_TEST(test_reduce_max_min_int_types) {
        const int8_t x8[4] = { -3, 100, -128, 5 };
        kh_t h;
        kh_init(&h);
        rt_reduce_case_t c = reduce_case(&h, RT_TYPE_INT8, 2, (int32_t[]) { 2, 2 }, x8,
                                         (int32_t[]) { 1 }, 1, false, RT_TYPE_INT8);
        kh_quant(&h, c.in, 0.5f, -2);
        kh_quant(&h, c.out, 0.5f, -2);
        ck_assert_int_eq(reduce_run(&h, &rt_kernel_reduce_max, &c, false), 0);
        ck_assert_int_eq(((int8_t *) h.tensors[c.out].data)[0], 100);
        ck_assert_int_eq(((int8_t *) h.tensors[c.out].data)[1], 5);
        kh_done(&h);

        const int64_t x64[3] = { 5, INT64_MIN + 1, 9 };
        kh_init(&h);
        c = reduce_case(&h, RT_TYPE_INT64, 1, (int32_t[]) { 3 }, x64, (int32_t[]) { 0 }, 1, false,
                        RT_TYPE_INT64);
        ck_assert_int_eq(reduce_run(&h, &rt_kernel_reduce_min, &c, false), 0);
        ck_assert(((int64_t *) h.tensors[c.out].data)[0] == INT64_MIN + 1);
        kh_done(&h);

        const uint8_t xu[3] = { 7, 255, 0 };
        kh_init(&h);
        c = reduce_case(&h, RT_TYPE_UINT8, 1, (int32_t[]) { 3 }, xu, (int32_t[]) { -1 }, 1, false,
                        RT_TYPE_UINT8);
        ck_assert_int_eq(reduce_run(&h, &rt_kernel_reduce_min, &c, false), 0);
        ck_assert_int_eq(((uint8_t *) h.tensors[c.out].data)[0], 0);
        kh_done(&h);
}
END_TEST

START_TEST(test_reduce_max_rejects_requantization) {
        const int8_t x8[2] = { 1, 2 };
        kh_t h;
        kh_init(&h);
        rt_reduce_case_t c = reduce_case(&h, RT_TYPE_INT8, 1, (int32_t[]) { 2 }, x8, (int32_t[]) { 0 },
                                         1, false, RT_TYPE_INT8);
        kh_quant(&h, c.in, 0.5f, 0);
        kh_quant(&h, c.out, 0.25f, 0);
        ck_assert_int_eq(reduce_run(&h, &rt_kernel_reduce_max, &c, false), -EINVAL);
        kh_done(&h);
}
END_TEST

START_TEST(test_reduce_any_all) {
        const bool x[6] = { true, false, false, false, false, true };
        kh_t h;
        kh_init(&h);
        rt_reduce_case_t c = reduce_case(&h, RT_TYPE_BOOL, 2, (int32_t[]) { 3, 2 }, x,
                                         (int32_t[]) { 1 }, 1, false, RT_TYPE_BOOL);
        ck_assert_int_eq(reduce_run(&h, &rt_kernel_reduce_any, &c, false), 0);
        const bool *y = h.tensors[c.out].data;
        ck_assert(y[0] && !y[1] && y[2]);
        kh_done(&h);

        kh_init(&h);
        c = reduce_case(&h, RT_TYPE_BOOL, 2, (int32_t[]) { 3, 2 }, x, (int32_t[]) { 0 }, 1, false,
                        RT_TYPE_BOOL);
        ck_assert_int_eq(reduce_run(&h, &rt_kernel_reduce_all, &c, true), 0);
        ck_assert_shape(&h.tensors[c.out], 2, 1, 2);
        y = h.tensors[c.out].data;
        ck_assert(!y[0] && !y[1]);
        kh_done(&h);

        const bool t[2] = { true, true };
        kh_init(&h);
        c = reduce_case(&h, RT_TYPE_BOOL, 1, (int32_t[]) { 2 }, t, (int32_t[]) { 0 }, 1, false,
                        RT_TYPE_BOOL);
        ck_assert_int_eq(reduce_run(&h, &rt_kernel_reduce_all, &c, false), 0);
        ck_assert(((bool *) h.tensors[c.out].data)[0]);
        kh_done(&h);
}
END_TEST

START_TEST(test_reduce_any_rejects_non_bool) {
        kh_t h;
        kh_init(&h);
        rt_reduce_case_t c = reduce_case(&h, RT_TYPE_FLOAT32, 2, (int32_t[]) { 2, 3 }, x23,
                                         (int32_t[]) { 0 }, 1, false, RT_TYPE_FLOAT32);
        ck_assert_int_eq(reduce_run(&h, &rt_kernel_reduce_any, &c, false), -EINVAL);
        kh_done(&h);
}
END_TEST

REDUCE_TEST_MAIN("minmax", test_reduce_max_min_float, test_reduce_max_float_init_value,
                 test_reduce_max_min_int_types, test_reduce_max_rejects_requantization,
                 test_reduce_any_all, test_reduce_any_rejects_non_bool)
