/* SPDX-License-Identifier: Apache-2.0 */
#include "misc-test.h"

START_TEST(test_topk_float_ties_lower_index_first) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 2, I32(2, 4), F32(1, 5, 3, 5, -1, -2, -3, 0));
        int32_t k = kh_const(&h, RT_TYPE_INT32, 0, NULL, I32(2));
        int32_t vals = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        int32_t idx = kh_tensor(&h, RT_TYPE_INT32, 0, NULL, NULL);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_topk_v2, NULL, I32(in, k), 2, I32(vals, idx), 2), 0);
        ck_assert_shape(&h.tensors[vals], 2, 2, 2);
        ck_assert_data(float, &h.tensors[vals], 4, 5, 5, 0, -1);
        ck_assert_data(int32_t, &h.tensors[idx], 4, 1, 3, 3, 0);
        kh_done(&h);
}
END_TEST

START_TEST(test_topk_int8_dynamic_k) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_INT8, 1, I32(5), (const int8_t[]) { -128, 127, 0, 127, -1 });
        int32_t k = kh_tensor(&h, RT_TYPE_INT32, 1, I32(1), I32(3));
        int32_t vals = kh_tensor(&h, RT_TYPE_INT8, 0, NULL, NULL);
        int32_t idx = kh_tensor(&h, RT_TYPE_INT32, 0, NULL, NULL);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_topk_v2, NULL, I32(in, k), 2, I32(vals, idx), 2), 0);
        ck_assert_int_eq(h.tensors[vals].alloc, RT_ALLOC_DYNAMIC);
        ck_assert_data(int8_t, &h.tensors[vals], 3, 127, 127, 0);
        ck_assert_data(int32_t, &h.tensors[idx], 3, 1, 3, 2);
        kh_done(&h);
}
END_TEST

START_TEST(test_topk_errors) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_INT64, 1, I32(2), I64(1, 2));
        int32_t k = kh_const(&h, RT_TYPE_INT32, 0, NULL, I32(3));
        int32_t vals = kh_tensor(&h, RT_TYPE_INT64, 0, NULL, NULL);
        int32_t idx = kh_tensor(&h, RT_TYPE_INT32, 0, NULL, NULL);
        ck_assert_fails(&h, kh_run(&h, &rt_kernel_topk_v2, NULL, I32(in, k), 2, I32(vals, idx), 2), -EINVAL,
                        "k = 3 out of range");
        int32_t k1 = kh_const(&h, RT_TYPE_INT32, 0, NULL, I32(1));
        int32_t idx64 = kh_tensor(&h, RT_TYPE_INT64, 0, NULL, NULL);
        ck_assert_fails(&h, kh_run(&h, &rt_kernel_topk_v2, NULL, I32(in, k1), 2, I32(vals, idx64), 2), -EINVAL,
                        "indices output");
        kh_done(&h);
}
END_TEST

MISC_TEST_MAIN("topk", test_topk_float_ties_lower_index_first, test_topk_int8_dynamic_k, test_topk_errors)
