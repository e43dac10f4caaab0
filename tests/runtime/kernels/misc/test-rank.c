/* SPDX-License-Identifier: Apache-2.0 */
#include "misc-test.h"

START_TEST(test_rank_values) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 3, I32(2, 3, 4), NULL);
        int32_t out = kh_tensor(&h, RT_TYPE_INT32, 0, NULL, NULL);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_rank, NULL, I32(in), 1, I32(out), 1), 0);
        ck_assert_shape(&h.tensors[out], 0);
        ck_assert_int_eq(*(int32_t *) h.tensors[out].data, 3);
        int32_t s = kh_tensor(&h, RT_TYPE_BOOL, 0, NULL, U8(1));
        ck_assert_int_eq(kh_run(&h, &rt_kernel_rank, NULL, I32(s), 1, I32(out), 1), 0);
        ck_assert_int_eq(*(int32_t *) h.tensors[out].data, 0);
        int32_t bad = kh_tensor(&h, RT_TYPE_INT64, 0, NULL, NULL);
        ck_assert_fails(&h, kh_run(&h, &rt_kernel_rank, NULL, I32(in), 1, I32(bad), 1), -EINVAL, "int32");
        kh_done(&h);
}
END_TEST

MISC_TEST_MAIN("rank", test_rank_values)
