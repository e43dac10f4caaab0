/* SPDX-License-Identifier: Apache-2.0 */
#include "misc-test.h"

START_TEST(test_atan2_float_quadrants) {
        kh_t h;
        kh_init(&h);
        int32_t y = kh_tensor(&h, RT_TYPE_FLOAT32, 1, I32(4), F32(1, -1, 0, 0));
        int32_t x = kh_tensor(&h, RT_TYPE_FLOAT32, 1, I32(4), F32(1, 1, -1, 1));
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_atan2, NULL, I32(y, x), 2, I32(out), 1), 0);
        ck_assert_shape(&h.tensors[out], 1, 4);
        ck_assert_f32_data(&h.tensors[out], 4, 1e-6f, 0.78539816f, -0.78539816f, 3.14159265f, 0.0f);
        kh_done(&h);
}
END_TEST

START_TEST(test_atan2_float64) {
        kh_t h;
        kh_init(&h);
        int32_t y = kh_tensor(&h, RT_TYPE_FLOAT64, 0, NULL, (const double[]) { -2.0 });
        int32_t x = kh_tensor(&h, RT_TYPE_FLOAT64, 0, NULL, (const double[]) { 0.0 });
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT64, 0, NULL, NULL);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_atan2, NULL, I32(y, x), 2, I32(out), 1), 0);
        ck_assert_double_eq_tol(*(double *) h.tensors[out].data, -1.5707963267948966, 1e-15);
        kh_done(&h);
}
END_TEST

START_TEST(test_atan2_errors) {
        kh_t h;
        kh_init(&h);
        int32_t y = kh_tensor(&h, RT_TYPE_FLOAT32, 1, I32(2), F32(1, 2));
        int32_t x = kh_tensor(&h, RT_TYPE_FLOAT32, 1, I32(3), F32(1, 2, 3));
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_fails(&h, kh_run(&h, &rt_kernel_atan2, NULL, I32(y, x), 2, I32(out), 1), -EINVAL, "same shape");
        int32_t xi = kh_tensor(&h, RT_TYPE_INT32, 1, I32(2), I32(1, 2));
        ck_assert_fails(&h, kh_run(&h, &rt_kernel_atan2, NULL, I32(y, xi), 2, I32(out), 1), -EINVAL, "one type");
        kh_done(&h);
}
END_TEST

MISC_TEST_MAIN("atan2", test_atan2_float_quadrants, test_atan2_float64, test_atan2_errors)
