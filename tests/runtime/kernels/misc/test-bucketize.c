/* SPDX-License-Identifier: Apache-2.0 */
#include "misc-test.h"

static const float bounds[] = { 0.0f, 10.0f, 100.0f };

static int run(kh_t *h, const float *b, uint32_t n, int32_t in, int32_t out) {
        static rt_bucketize_params_t p;
        p.boundaries = b;
        p.n_boundaries = n;
        return kh_run(h, &rt_kernel_bucketize, &p, I32(in), 1, I32(out), 1);
}

START_TEST(test_bucketize_float_upper_bound) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 2, I32(2, 3), F32(-5, 10000, 150, 10, 5, 100));
        int32_t out = kh_tensor(&h, RT_TYPE_INT32, 0, NULL, NULL);
        ck_assert_int_eq(run(&h, bounds, 3, in, out), 0);
        ck_assert_shape(&h.tensors[out], 2, 2, 3);
        ck_assert_data(int32_t, &h.tensors[out], 6, 0, 3, 3, 2, 1, 3);
        kh_done(&h);
}
END_TEST

START_TEST(test_bucketize_int_types_and_no_boundaries) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_INT64, 1, I32(4), I64(-1, 0, 99, 100));
        int32_t out = kh_tensor(&h, RT_TYPE_INT32, 0, NULL, NULL);
        ck_assert_int_eq(run(&h, bounds, 3, in, out), 0);
        ck_assert_data(int32_t, &h.tensors[out], 4, 0, 1, 2, 3);
        int32_t in32 = kh_tensor(&h, RT_TYPE_INT32, 1, I32(2), I32(7, -7));
        int32_t out2 = kh_tensor(&h, RT_TYPE_INT32, 0, NULL, NULL);
        ck_assert_int_eq(run(&h, NULL, 0, in32, out2), 0);
        ck_assert_data(int32_t, &h.tensors[out2], 2, 0, 0);
        int32_t in64 = kh_tensor(&h, RT_TYPE_FLOAT64, 1, I32(2), (const double[]) { 9.999999, 10.0 });
        int32_t out3 = kh_tensor(&h, RT_TYPE_INT32, 0, NULL, NULL);
        ck_assert_int_eq(run(&h, bounds, 3, in64, out3), 0);
        ck_assert_data(int32_t, &h.tensors[out3], 2, 1, 2);
        kh_done(&h);
}
END_TEST

START_TEST(test_bucketize_errors) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 1, I32(1), F32(1));
        int32_t out = kh_tensor(&h, RT_TYPE_INT32, 0, NULL, NULL);
        ck_assert_fails(&h, run(&h, F32(1, 0), 2, in, out), -EINVAL, "sorted");
        int32_t fout = kh_tensor(&h, RT_TYPE_INT64, 0, NULL, NULL);
        ck_assert_fails(&h, run(&h, bounds, 3, in, fout), -EINVAL, "int32");
        int32_t u8 = kh_tensor(&h, RT_TYPE_UINT8, 1, I32(1), U8(1));
        ck_assert_fails(&h, run(&h, bounds, 3, u8, out), -ENOTSUP, "uint8");
        kh_done(&h);
}
END_TEST

MISC_TEST_MAIN("bucketize", test_bucketize_float_upper_bound, test_bucketize_int_types_and_no_boundaries,
               test_bucketize_errors)
