/* SPDX-License-Identifier: Apache-2.0 */
#include "misc-test.h"

static int run(kh_t *h, int32_t in, int32_t upd, int32_t start, int32_t out) {
        return kh_run(h, &rt_kernel_dynamic_update_slice, NULL, I32(in, upd, start), 3, I32(out), 1);
}

START_TEST(test_dus_clamped_start) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_INT32, 2, I32(3, 3), I32(0, 0, 0, 0, 0, 0, 0, 0, 0));
        int32_t upd = kh_tensor(&h, RT_TYPE_INT32, 2, I32(2, 2), I32(1, 2, 3, 4));
        /* (2, -1) is clamped to (1, 0). */
        int32_t start = kh_tensor(&h, RT_TYPE_INT32, 1, I32(2), I32(2, -1));
        int32_t out = kh_tensor(&h, RT_TYPE_INT32, 0, NULL, NULL);
        ck_assert_int_eq(run(&h, in, upd, start, out), 0);
        ck_assert_shape(&h.tensors[out], 2, 3, 3);
        ck_assert_data(int32_t, &h.tensors[out], 9, 0, 0, 0, 1, 2, 0, 3, 4, 0);
        kh_done(&h);
}
END_TEST

START_TEST(test_dus_float_3d_int64_start) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 3, I32(2, 2, 3), F32(1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2));
        int32_t upd = kh_tensor(&h, RT_TYPE_FLOAT32, 3, I32(1, 2, 1), F32(8, 9));
        int32_t start = kh_tensor(&h, RT_TYPE_INT64, 1, I32(3), I64(1, 0, 2));
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_int_eq(run(&h, in, upd, start, out), 0);
        ck_assert_data(float, &h.tensors[out], 12, 1, 1, 1, 1, 1, 1, 2, 2, 8, 2, 2, 9);
        kh_done(&h);
}
END_TEST

START_TEST(test_dus_errors) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_INT32, 1, I32(2), I32(0, 0));
        int32_t upd = kh_tensor(&h, RT_TYPE_INT32, 1, I32(3), I32(1, 2, 3));
        int32_t start = kh_tensor(&h, RT_TYPE_INT32, 1, I32(1), I32(0));
        int32_t out = kh_tensor(&h, RT_TYPE_INT32, 0, NULL, NULL);
        ck_assert_fails(&h, run(&h, in, upd, start, out), -EINVAL, "exceeds");
        int32_t upd1 = kh_tensor(&h, RT_TYPE_INT32, 1, I32(1), I32(1));
        int32_t start2 = kh_tensor(&h, RT_TYPE_INT32, 1, I32(2), I32(0, 0));
        ck_assert_fails(&h, run(&h, in, upd1, start2, out), -EINVAL, "start_indices");
        int32_t updf = kh_tensor(&h, RT_TYPE_FLOAT32, 1, I32(1), F32(1));
        ck_assert_fails(&h, run(&h, in, updf, start, out), -EINVAL, "operand type");
        kh_done(&h);
}
END_TEST

MISC_TEST_MAIN("dynamic-update-slice", test_dus_clamped_start, test_dus_float_3d_int64_start, test_dus_errors)
