/* SPDX-License-Identifier: Apache-2.0 */
#include "misc-test.h"

START_TEST(test_matrix_diag_batched_float) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 2, I32(2, 2), F32(1, 2, 3, 4));
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_matrix_diag, NULL, I32(in), 1, I32(out), 1), 0);
        ck_assert_shape(&h.tensors[out], 3, 2, 2, 2);
        ck_assert_data(float, &h.tensors[out], 8, 1, 0, 0, 2, 3, 0, 0, 4);
        kh_done(&h);
}
END_TEST

START_TEST(test_matrix_diag_int8_vector) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_INT8, 1, I32(3), (const int8_t[]) { -1, 2, -3 });
        int32_t out = kh_tensor(&h, RT_TYPE_INT8, 0, NULL, NULL);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_matrix_diag, NULL, I32(in), 1, I32(out), 1), 0);
        ck_assert_shape(&h.tensors[out], 2, 3, 3);
        ck_assert_data(int8_t, &h.tensors[out], 9, -1, 0, 0, 0, 2, 0, 0, 0, -3);
        kh_done(&h);
}
END_TEST

START_TEST(test_matrix_set_diag_wide_and_tall) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_INT32, 2, I32(2, 3), I32(1, 2, 3, 4, 5, 6));
        int32_t diag = kh_tensor(&h, RT_TYPE_INT32, 1, I32(2), I32(9, 8));
        int32_t out = kh_tensor(&h, RT_TYPE_INT32, 0, NULL, NULL);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_matrix_set_diag, NULL, I32(in, diag), 2, I32(out), 1), 0);
        ck_assert_shape(&h.tensors[out], 2, 2, 3);
        ck_assert_data(int32_t, &h.tensors[out], 6, 9, 2, 3, 4, 8, 6);
        kh_done(&h);

        kh_init(&h);
        /* A batch of two [3, 2] matrices. */
        in = kh_tensor(&h, RT_TYPE_FLOAT32, 3, I32(2, 3, 2), F32(1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2));
        diag = kh_tensor(&h, RT_TYPE_FLOAT32, 2, I32(2, 2), F32(7, 8, 9, 10));
        out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_matrix_set_diag, NULL, I32(in, diag), 2, I32(out), 1), 0);
        ck_assert_data(float, &h.tensors[out], 12, 7, 1, 1, 8, 1, 1, 9, 2, 2, 10, 2, 2);
        kh_done(&h);
}
END_TEST

START_TEST(test_matrix_diag_errors) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_INT32, 2, I32(2, 3), I32(1, 2, 3, 4, 5, 6));
        int32_t diag = kh_tensor(&h, RT_TYPE_INT32, 1, I32(3), I32(9, 8, 7));
        int32_t out = kh_tensor(&h, RT_TYPE_INT32, 0, NULL, NULL);
        ck_assert_fails(&h, kh_run(&h, &rt_kernel_matrix_set_diag, NULL, I32(in, diag), 2, I32(out), 1), -EINVAL,
                        "diagonal shape");
        int32_t scalar = kh_tensor(&h, RT_TYPE_INT32, 0, NULL, I32(1));
        ck_assert_fails(&h, kh_run(&h, &rt_kernel_matrix_diag, NULL, I32(scalar), 1, I32(out), 1), -EINVAL,
                        "rank 0");
        int32_t fout = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_fails(&h, kh_run(&h, &rt_kernel_matrix_diag, NULL, I32(in), 1, I32(fout), 1), -EINVAL,
                        "differs");
        kh_done(&h);
}
END_TEST

MISC_TEST_MAIN("matrix-diag", test_matrix_diag_batched_float, test_matrix_diag_int8_vector,
               test_matrix_set_diag_wide_and_tall, test_matrix_diag_errors)
