/* SPDX-License-Identifier: Apache-2.0 */
#include "reduce-test.h"

static int run_arg(kh_t *h, const rt_registration_t *reg, rt_type_t type, int32_t rank,
                   const int32_t *dims, const void *x, rt_type_t axis_type, const void *axis,
                   rt_type_t out_type, rt_type_t param_type, int32_t *ret_out) {
        int32_t in = kh_tensor(h, type, rank, dims, x);
        int32_t a = kh_const(h, axis_type, 1, (int32_t[]) { 1 }, axis);
        int32_t out = kh_tensor(h, out_type, 0, NULL, NULL);
        static rt_arg_params_t p;
        p.output_type = param_type;
        *ret_out = out;
        return kh_run(h, reg, &p, (int32_t[]) { in, a }, 2, (int32_t[]) { out }, 1);
}

/* Ties resolve to the first index. */
START_TEST(test_arg_max_float_ties_first) {
        const float x[6] = { 1, 3, 3, 5, 5, 1 };
        kh_t h;
        int32_t out;
        kh_init(&h);
        ck_assert_int_eq(run_arg(&h, &rt_kernel_arg_max, RT_TYPE_FLOAT32, 2, (int32_t[]) { 2, 3 }, x,
                                 RT_TYPE_INT32, (int32_t[]) { 1 }, RT_TYPE_INT32, RT_TYPE_INT32, &out), 0);
        ck_assert_shape(&h.tensors[out], 1, 2);
        ck_assert_int_eq(((int32_t *) h.tensors[out].data)[0], 1);
        ck_assert_int_eq(((int32_t *) h.tensors[out].data)[1], 0);
        kh_done(&h);
}
END_TEST

START_TEST(test_arg_min_int8_axis0_int64_output) {
        const int8_t x[4] = { 3, -1, 3, -4 };
        kh_t h;
        int32_t out;
        kh_init(&h);
        ck_assert_int_eq(run_arg(&h, &rt_kernel_arg_min, RT_TYPE_INT8, 2, (int32_t[]) { 2, 2 }, x,
                                 RT_TYPE_INT64, (int64_t[]) { 0 }, RT_TYPE_INT64, RT_TYPE_INT64, &out), 0);
        ck_assert_shape(&h.tensors[out], 1, 2);
        ck_assert(((int64_t *) h.tensors[out].data)[0] == 0);
        ck_assert(((int64_t *) h.tensors[out].data)[1] == 1);
        kh_done(&h);
}
END_TEST

/* Negative axis on a 3-D uint8 input; a rank-1 input gives a scalar. */
START_TEST(test_arg_max_negative_axis_and_scalar_output) {
        const uint8_t x[8] = { 0, 9, 4, 2, 200, 201, 7, 7 };
        kh_t h;
        int32_t out;
        kh_init(&h);
        ck_assert_int_eq(run_arg(&h, &rt_kernel_arg_max, RT_TYPE_UINT8, 3, (int32_t[]) { 2, 2, 2 }, x,
                                 RT_TYPE_INT32, (int32_t[]) { -1 }, RT_TYPE_INT32, RT_TYPE_INT32, &out), 0);
        ck_assert_shape(&h.tensors[out], 2, 2, 2);
        const int32_t want[4] = { 1, 0, 1, 0 };
        for (int i = 0; i < 4; i++)
                ck_assert_int_eq(((int32_t *) h.tensors[out].data)[i], want[i]);
        kh_done(&h);

        const int32_t v[5] = { 4, -2, 8, 8, 1 };
        kh_init(&h);
        ck_assert_int_eq(run_arg(&h, &rt_kernel_arg_max, RT_TYPE_INT32, 1, (int32_t[]) { 5 }, v,
                                 RT_TYPE_INT32, (int32_t[]) { 0 }, RT_TYPE_INT32, RT_TYPE_INT32, &out), 0);
        ck_assert_int_eq(h.tensors[out].rank, 0);
        ck_assert_int_eq(((int32_t *) h.tensors[out].data)[0], 2);
        kh_done(&h);

        kh_init(&h);
        ck_assert_int_eq(run_arg(&h, &rt_kernel_arg_min, RT_TYPE_INT32, 1, (int32_t[]) { 5 }, v,
                                 RT_TYPE_INT32, (int32_t[]) { 0 }, RT_TYPE_INT32, RT_TYPE_INT32, &out), 0);
        ck_assert_int_eq(((int32_t *) h.tensors[out].data)[0], 1);
        kh_done(&h);
}
END_TEST

START_TEST(test_arg_max_errors) {
        const float x[4] = { 1, 2, 3, 4 };
        kh_t h;
        int32_t out;
        kh_init(&h);
        ck_assert_int_eq(run_arg(&h, &rt_kernel_arg_max, RT_TYPE_FLOAT32, 2, (int32_t[]) { 2, 2 }, x,
                                 RT_TYPE_INT32, (int32_t[]) { 2 }, RT_TYPE_INT32, RT_TYPE_INT32, &out),
                         -EINVAL);
        kh_done(&h);

        kh_init(&h);
        ck_assert_int_eq(run_arg(&h, &rt_kernel_arg_max, RT_TYPE_FLOAT32, 2, (int32_t[]) { 2, 2 }, x,
                                 RT_TYPE_INT32, (int32_t[]) { -3 }, RT_TYPE_INT32, RT_TYPE_INT32, &out),
                         -EINVAL);
        kh_done(&h);

        kh_init(&h);
        ck_assert_int_eq(run_arg(&h, &rt_kernel_arg_max, RT_TYPE_FLOAT32, 2, (int32_t[]) { 2, 2 }, x,
                                 RT_TYPE_INT32, (int32_t[]) { 0 }, RT_TYPE_FLOAT32, RT_TYPE_INT32, &out),
                         -EINVAL);
        kh_done(&h);

        kh_init(&h);
        ck_assert_int_eq(run_arg(&h, &rt_kernel_arg_max, RT_TYPE_FLOAT32, 2, (int32_t[]) { 2, 2 }, x,
                                 RT_TYPE_INT32, (int32_t[]) { 0 }, RT_TYPE_INT32, RT_TYPE_INT64, &out),
                         -EINVAL);
        kh_done(&h);
}
END_TEST

REDUCE_TEST_MAIN("argminmax", test_arg_max_float_ties_first, test_arg_min_int8_axis0_int64_output,
                 test_arg_max_negative_axis_and_scalar_output, test_arg_max_errors)
