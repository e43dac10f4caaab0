/* SPDX-License-Identifier: Apache-2.0 */
#include "reduce-test.h"

static int run_cumsum(kh_t *h, rt_type_t type, int32_t rank, const int32_t *dims, const void *x,
                      int32_t axis, bool exclusive, bool reverse, int32_t *ret_out) {
        int32_t in = kh_tensor(h, type, rank, dims, x);
        int32_t a = kh_const(h, RT_TYPE_INT32, 0, NULL, &axis);
        int32_t out = kh_tensor(h, type, 0, NULL, NULL);
        static rt_cumsum_params_t p;
        p.exclusive = exclusive;
        p.reverse = reverse;
        *ret_out = out;
        return kh_run(h, &rt_kernel_cumsum, &p, (int32_t[]) { in, a }, 2, (int32_t[]) { out }, 1);
}

START_TEST(test_cumsum_float_modes) {
        const float x[6] = { 1, 2, 3, 4, 5, 6 };
        const float want[4][6] = {
                { 1, 3, 6, 4, 9, 15 },   /* inclusive */
                { 0, 1, 3, 0, 4, 9 },    /* exclusive */
                { 6, 5, 3, 15, 11, 6 },  /* reverse */
                { 5, 3, 0, 11, 6, 0 },   /* exclusive reverse */
        };
        for (int m = 0; m < 4; m++) {
                kh_t h;
                int32_t out;
                kh_init(&h);
                ck_assert_int_eq(run_cumsum(&h, RT_TYPE_FLOAT32, 2, (int32_t[]) { 2, 3 }, x, 1, m & 1,
                                            m & 2, &out), 0);
                ck_assert_shape(&h.tensors[out], 2, 2, 3);
                for (int i = 0; i < 6; i++)
                        ck_assert_float_eq(((float *) h.tensors[out].data)[i], want[m][i]);
                kh_done(&h);
        }
}
END_TEST

START_TEST(test_cumsum_int_negative_axis) {
        const int32_t x[6] = { 1, 2, 3, 4, 5, 6 };
        kh_t h;
        int32_t out;
        kh_init(&h);
        ck_assert_int_eq(run_cumsum(&h, RT_TYPE_INT32, 2, (int32_t[]) { 2, 3 }, x, -2, false, false, &out),
                         0);
        const int32_t want[6] = { 1, 2, 3, 5, 7, 9 };
        for (int i = 0; i < 6; i++)
                ck_assert_int_eq(((int32_t *) h.tensors[out].data)[i], want[i]);
        kh_done(&h);

        const int64_t y[3] = { INT64_C(1) << 40, 1, 2 };
        kh_init(&h);
        ck_assert_int_eq(run_cumsum(&h, RT_TYPE_INT64, 1, (int32_t[]) { 3 }, y, 0, false, true, &out), 0);
        ck_assert(((int64_t *) h.tensors[out].data)[0] == (INT64_C(1) << 40) + 3);
        ck_assert(((int64_t *) h.tensors[out].data)[2] == 2);
        kh_done(&h);
}
END_TEST

START_TEST(test_cumsum_errors) {
        const float x[2] = { 1, 2 };
        kh_t h;
        int32_t out;
        kh_init(&h);
        ck_assert_int_eq(run_cumsum(&h, RT_TYPE_FLOAT32, 1, (int32_t[]) { 2 }, x, 1, false, false, &out),
                         -EINVAL);
        kh_done(&h);

        const int8_t q[2] = { 1, 2 };
        kh_init(&h);
        ck_assert_int_eq(run_cumsum(&h, RT_TYPE_INT8, 1, (int32_t[]) { 2 }, q, 0, false, false, &out),
                         -ENOTSUP);
        kh_done(&h);
}
END_TEST

REDUCE_TEST_MAIN("cumsum", test_cumsum_float_modes, test_cumsum_int_negative_axis, test_cumsum_errors)
