/* SPDX-License-Identifier: Apache-2.0 */
#include "misc-test.h"

START_TEST(test_broadcast_args_int32) {
        kh_t h;
        kh_init(&h);
        int32_t a = kh_tensor(&h, RT_TYPE_INT32, 1, I32(3), I32(2, 1, 3));
        int32_t b = kh_tensor(&h, RT_TYPE_INT32, 1, I32(2), I32(4, 1));
        int32_t out = kh_tensor(&h, RT_TYPE_INT32, 0, NULL, NULL);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_broadcast_args, NULL, I32(a, b), 2, I32(out), 1), 0);
        ck_assert_shape(&h.tensors[out], 1, 3);
        ck_assert_data(int32_t, &h.tensors[out], 3, 2, 4, 3);
        kh_done(&h);
}
END_TEST

START_TEST(test_broadcast_args_int64_shorter_first) {
        kh_t h;
        kh_init(&h);
        int32_t a = kh_tensor(&h, RT_TYPE_INT64, 1, I32(1), I64(5));
        int32_t b = kh_tensor(&h, RT_TYPE_INT64, 1, I32(2), I64(1, 1));
        int32_t out = kh_tensor(&h, RT_TYPE_INT64, 0, NULL, NULL);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_broadcast_args, NULL, I32(a, b), 2, I32(out), 1), 0);
        ck_assert_data(int64_t, &h.tensors[out], 2, 1, 5);
        kh_done(&h);
}
END_TEST

START_TEST(test_broadcast_args_errors) {
        kh_t h;
        kh_init(&h);
        int32_t a = kh_tensor(&h, RT_TYPE_INT32, 1, I32(1), I32(2));
        int32_t b = kh_tensor(&h, RT_TYPE_INT32, 1, I32(1), I32(3));
        int32_t out = kh_tensor(&h, RT_TYPE_INT32, 0, NULL, NULL);
        ck_assert_fails(&h, kh_run(&h, &rt_kernel_broadcast_args, NULL, I32(a, b), 2, I32(out), 1), -EINVAL,
                        "do not broadcast");
        int32_t c = kh_tensor(&h, RT_TYPE_INT64, 1, I32(1), I64(3));
        ck_assert_fails(&h, kh_run(&h, &rt_kernel_broadcast_args, NULL, I32(a, c), 2, I32(out), 1), -EINVAL,
                        "one type");
        kh_done(&h);
}
END_TEST

MISC_TEST_MAIN("broadcast-args", test_broadcast_args_int32, test_broadcast_args_int64_shorter_first,
               test_broadcast_args_errors)
