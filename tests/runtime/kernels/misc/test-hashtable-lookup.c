/* SPDX-License-Identifier: Apache-2.0 */
#include "misc-test.h"

START_TEST(test_hashtable_lookup_hits_and_misses) {
        kh_t h;
        kh_init(&h);
        int32_t lookup = kh_tensor(&h, RT_TYPE_INT32, 1, I32(3), I32(2, 5, -1));
        int32_t keys = kh_const(&h, RT_TYPE_INT32, 1, I32(4), I32(-1, 0, 2, 7));
        int32_t values = kh_const(&h, RT_TYPE_FLOAT32, 2, I32(4, 2), F32(1, 2, 3, 4, 5, 6, 7, 8));
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        int32_t hits = kh_tensor(&h, RT_TYPE_UINT8, 0, NULL, NULL);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_hashtable_lookup, NULL, I32(lookup, keys, values), 3,
                                I32(out, hits), 2),
                         0);
        ck_assert_shape(&h.tensors[out], 2, 3, 2);
        ck_assert_data(float, &h.tensors[out], 6, 5, 6, 0, 0, 1, 2);
        ck_assert_data(uint8_t, &h.tensors[hits], 3, 1, 0, 1);
        kh_done(&h);
}
END_TEST

START_TEST(test_hashtable_lookup_errors) {
        kh_t h;
        kh_init(&h);
        int32_t lookup = kh_tensor(&h, RT_TYPE_INT32, 1, I32(1), I32(2));
        int32_t keys = kh_const(&h, RT_TYPE_INT32, 1, I32(2), I32(0, 2));
        int32_t values = kh_const(&h, RT_TYPE_INT32, 1, I32(3), I32(1, 2, 3));
        int32_t out = kh_tensor(&h, RT_TYPE_INT32, 0, NULL, NULL);
        int32_t hits = kh_tensor(&h, RT_TYPE_UINT8, 0, NULL, NULL);
        ck_assert_fails(&h, kh_run(&h, &rt_kernel_hashtable_lookup, NULL, I32(lookup, keys, values), 3,
                                   I32(out, hits), 2),
                        -EINVAL, "values [k, ...]");
        int32_t values2 = kh_const(&h, RT_TYPE_INT32, 1, I32(2), I32(1, 2));
        int32_t hits32 = kh_tensor(&h, RT_TYPE_INT32, 0, NULL, NULL);
        ck_assert_fails(&h, kh_run(&h, &rt_kernel_hashtable_lookup, NULL, I32(lookup, keys, values2), 3,
                                   I32(out, hits32), 2),
                        -EINVAL, "uint8");
        kh_done(&h);
}
END_TEST

MISC_TEST_MAIN("hashtable-lookup", test_hashtable_lookup_hits_and_misses, test_hashtable_lookup_errors)
