/* SPDX-License-Identifier: Apache-2.0 */
#include <float.h>

#include "misc-test.h"

START_TEST(test_segment_sum_rows) {
        kh_t h;
        kh_init(&h);
        int32_t data = kh_tensor(&h, RT_TYPE_FLOAT32, 2, I32(4, 2), F32(1, 2, 3, 4, 5, 6, 7, 8));
        int32_t ids = kh_const(&h, RT_TYPE_INT32, 1, I32(4), I32(0, 0, 2, 2));
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_segment_sum, NULL, I32(data, ids), 2, I32(out), 1), 0);
        ck_assert_shape(&h.tensors[out], 2, 3, 2);
        ck_assert_data(float, &h.tensors[out], 6, 4, 6, 0, 0, 12, 14);
        kh_done(&h);
}
END_TEST

START_TEST(test_segment_sum_dynamic_ids_int32) {
        kh_t h;
        kh_init(&h);
        int32_t data = kh_tensor(&h, RT_TYPE_INT32, 1, I32(3), I32(5, -2, 10));
        int32_t ids = kh_tensor(&h, RT_TYPE_INT32, 1, I32(3), I32(1, 1, 1));
        int32_t out = kh_tensor(&h, RT_TYPE_INT32, 0, NULL, NULL);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_segment_sum, NULL, I32(data, ids), 2, I32(out), 1), 0);
        ck_assert_int_eq(h.tensors[out].alloc, RT_ALLOC_DYNAMIC);
        ck_assert_data(int32_t, &h.tensors[out], 2, 0, 13);
        kh_done(&h);
}
END_TEST

START_TEST(test_segment_sum_errors) {
        kh_t h;
        kh_init(&h);
        int32_t data = kh_tensor(&h, RT_TYPE_FLOAT32, 1, I32(2), F32(1, 2));
        int32_t ids = kh_const(&h, RT_TYPE_INT32, 1, I32(2), I32(1, 0));
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_fails(&h, kh_run(&h, &rt_kernel_segment_sum, NULL, I32(data, ids), 2, I32(out), 1), -EINVAL,
                        "not sorted");
        int32_t ids3 = kh_const(&h, RT_TYPE_INT32, 1, I32(3), I32(0, 0, 0));
        ck_assert_fails(&h, kh_run(&h, &rt_kernel_segment_sum, NULL, I32(data, ids3), 2, I32(out), 1), -EINVAL,
                        "one id per data row");
        int32_t d8 = kh_tensor(&h, RT_TYPE_INT8, 1, I32(2), (const int8_t[]) { 1, 2 });
        int32_t o8 = kh_tensor(&h, RT_TYPE_INT8, 0, NULL, NULL);
        ck_assert_fails(&h, kh_run(&h, &rt_kernel_segment_sum, NULL, I32(d8, ids), 2, I32(o8), 1), -ENOTSUP,
                        "int8");
        kh_done(&h);
}
END_TEST

static int run_unsorted(kh_t *h, const rt_registration_t *reg, int32_t data, int32_t ids, int32_t num,
                        int32_t out) {
        return kh_run(h, reg, NULL, I32(data, ids, num), 3, I32(out), 1);
}

START_TEST(test_unsorted_segment_sum_skips_negative) {
        kh_t h;
        kh_init(&h);
        int32_t data = kh_tensor(&h, RT_TYPE_INT32, 1, I32(5), I32(1, 2, 3, 4, 5));
        int32_t ids = kh_tensor(&h, RT_TYPE_INT32, 1, I32(5), I32(0, 2, 0, -1, 2));
        int32_t num = kh_const(&h, RT_TYPE_INT32, 0, NULL, I32(3));
        int32_t out = kh_tensor(&h, RT_TYPE_INT32, 0, NULL, NULL);
        ck_assert_int_eq(run_unsorted(&h, &rt_kernel_unsorted_segment_sum, data, ids, num, out), 0);
        ck_assert_shape(&h.tensors[out], 1, 3);
        ck_assert_data(int32_t, &h.tensors[out], 3, 4, 0, 7);
        kh_done(&h);
}
END_TEST

START_TEST(test_unsorted_segment_prod_rows) {
        kh_t h;
        kh_init(&h);
        int32_t data = kh_tensor(&h, RT_TYPE_FLOAT32, 2, I32(3, 2), F32(1, 2, 3, 4, 5, 6));
        int32_t ids = kh_tensor(&h, RT_TYPE_INT32, 1, I32(3), I32(1, 1, 0));
        int32_t num = kh_const(&h, RT_TYPE_INT32, 1, I32(1), I32(3));
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_int_eq(run_unsorted(&h, &rt_kernel_unsorted_segment_prod, data, ids, num, out), 0);
        ck_assert_shape(&h.tensors[out], 2, 3, 2);
        ck_assert_data(float, &h.tensors[out], 6, 5, 6, 3, 8, 1, 1);
        kh_done(&h);
}
END_TEST

START_TEST(test_unsorted_segment_max_min_identity) {
        kh_t h;
        kh_init(&h);
        int32_t data = kh_tensor(&h, RT_TYPE_FLOAT32, 1, I32(4), F32(1, -3, 5, 2));
        int32_t ids = kh_tensor(&h, RT_TYPE_INT32, 1, I32(4), I32(0, 0, 1, 1));
        int32_t num = kh_const(&h, RT_TYPE_INT32, 0, NULL, I32(3));
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_int_eq(run_unsorted(&h, &rt_kernel_unsorted_segment_max, data, ids, num, out), 0);
        ck_assert_data(float, &h.tensors[out], 3, 1, 5, -FLT_MAX);
        kh_done(&h);

        kh_init(&h);
        data = kh_tensor(&h, RT_TYPE_INT32, 1, I32(4), I32(1, -3, 5, 2));
        ids = kh_tensor(&h, RT_TYPE_INT32, 1, I32(4), I32(0, 0, 2, 2));
        num = kh_tensor(&h, RT_TYPE_INT32, 0, NULL, I32(3));
        out = kh_tensor(&h, RT_TYPE_INT32, 0, NULL, NULL);
        ck_assert_int_eq(run_unsorted(&h, &rt_kernel_unsorted_segment_min, data, ids, num, out), 0);
        ck_assert_int_eq(h.tensors[out].alloc, RT_ALLOC_DYNAMIC);
        ck_assert_data(int32_t, &h.tensors[out], 3, -3, INT32_MAX, 2);
        kh_done(&h);
}
END_TEST

START_TEST(test_unsorted_segment_2d_ids) {
        kh_t h;
        kh_init(&h);
        int32_t data = kh_tensor(&h, RT_TYPE_FLOAT32, 3, I32(2, 2, 2), F32(1, 2, 3, 4, 5, 6, 7, 8));
        int32_t ids = kh_tensor(&h, RT_TYPE_INT32, 2, I32(2, 2), I32(0, 1, 1, 0));
        int32_t num = kh_const(&h, RT_TYPE_INT32, 0, NULL, I32(2));
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_int_eq(run_unsorted(&h, &rt_kernel_unsorted_segment_sum, data, ids, num, out), 0);
        ck_assert_shape(&h.tensors[out], 2, 2, 2);
        ck_assert_data(float, &h.tensors[out], 4, 8, 10, 8, 10);
        kh_done(&h);
}
END_TEST

START_TEST(test_unsorted_segment_errors) {
        kh_t h;
        kh_init(&h);
        int32_t data = kh_tensor(&h, RT_TYPE_FLOAT32, 1, I32(2), F32(1, 2));
        int32_t ids = kh_tensor(&h, RT_TYPE_INT32, 1, I32(2), I32(0, 2));
        int32_t num = kh_const(&h, RT_TYPE_INT32, 0, NULL, I32(2));
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_fails(&h, run_unsorted(&h, &rt_kernel_unsorted_segment_sum, data, ids, num, out), -EINVAL,
                        "segment id 2 out of range");
        int32_t ids3 = kh_tensor(&h, RT_TYPE_INT32, 1, I32(3), I32(0, 0, 0));
        ck_assert_fails(&h, run_unsorted(&h, &rt_kernel_unsorted_segment_max, data, ids3, num, out), -EINVAL,
                        "prefix");
        ck_assert_str_eq(rt_kernel_unsorted_segment_max.name, "UNSORTED_SEGMENT_MAX");
        ck_assert(strstr(h.error, "UNSORTED_SEGMENT_MAX") != NULL);
        int32_t neg = kh_const(&h, RT_TYPE_INT32, 0, NULL, I32(-1));
        ck_assert_fails(&h, run_unsorted(&h, &rt_kernel_unsorted_segment_min, data, ids, neg, out), -EINVAL,
                        "negative");
        kh_done(&h);
}
END_TEST

MISC_TEST_MAIN("segment", test_segment_sum_rows, test_segment_sum_dynamic_ids_int32, test_segment_sum_errors,
               test_unsorted_segment_sum_skips_negative, test_unsorted_segment_prod_rows,
               test_unsorted_segment_max_min_identity, test_unsorted_segment_2d_ids, test_unsorted_segment_errors)
