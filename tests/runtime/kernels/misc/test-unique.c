/* SPDX-License-Identifier: Apache-2.0 */
#include "misc-test.h"

static int run(kh_t *h, rt_type_t idx_type, int32_t in, int32_t out, int32_t idx) {
        static rt_unique_params_t p;
        p.idx_out_type = idx_type;
        return kh_run(h, &rt_kernel_unique, &p, I32(in), 1, I32(out, idx), 2);
}

START_TEST(test_unique_int32_first_occurrence_order) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_INT32, 1, I32(6), I32(4, 1, 4, 2, 1, 7));
        int32_t out = kh_tensor(&h, RT_TYPE_INT32, 0, NULL, NULL);
        int32_t idx = kh_tensor(&h, RT_TYPE_INT32, 0, NULL, NULL);
        ck_assert_int_eq(run(&h, RT_TYPE_INT32, in, out, idx), 0);
        ck_assert_int_eq(h.tensors[out].alloc, RT_ALLOC_DYNAMIC);
        ck_assert_shape(&h.tensors[out], 1, 4);
        ck_assert_data(int32_t, &h.tensors[out], 4, 4, 1, 2, 7);
        ck_assert_shape(&h.tensors[idx], 1, 6);
        ck_assert_data(int32_t, &h.tensors[idx], 6, 0, 1, 0, 2, 1, 3);
        kh_done(&h);
}
END_TEST

START_TEST(test_unique_float_int64_idx) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 1, I32(5), F32(1.5f, -2.0f, 1.5f, 0.0f, -2.0f));
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        int32_t idx = kh_tensor(&h, RT_TYPE_INT64, 0, NULL, NULL);
        ck_assert_int_eq(run(&h, RT_TYPE_INT64, in, out, idx), 0);
        ck_assert_data(float, &h.tensors[out], 3, 1.5f, -2.0f, 0.0f);
        ck_assert_data(int64_t, &h.tensors[idx], 5, 0, 1, 0, 2, 1);
        kh_done(&h);
}
END_TEST

/* TFLite's std::map<float> under operator<: a NaN finds the smallest key
 * so far; a NaN in first place is the only key. */
START_TEST(test_unique_nan_as_tflite_map) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 1, I32(5), F32(3.0f, NAN, -1.0f, NAN, 3.0f));
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        int32_t idx = kh_tensor(&h, RT_TYPE_INT32, 0, NULL, NULL);
        ck_assert_int_eq(run(&h, RT_TYPE_INT32, in, out, idx), 0);
        ck_assert_data(float, &h.tensors[out], 2, 3.0f, -1.0f);
        ck_assert_data(int32_t, &h.tensors[idx], 5, 0, 0, 1, 1, 0);
        kh_done(&h);

        kh_init(&h);
        in = kh_tensor(&h, RT_TYPE_FLOAT32, 1, I32(3), F32(NAN, 2.0f, 5.0f));
        out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        idx = kh_tensor(&h, RT_TYPE_INT32, 0, NULL, NULL);
        ck_assert_int_eq(run(&h, RT_TYPE_INT32, in, out, idx), 0);
        ck_assert_shape(&h.tensors[out], 1, 1);
        ck_assert_data(int32_t, &h.tensors[idx], 3, 0, 0, 0);
        kh_done(&h);
}
END_TEST

START_TEST(test_unique_uint8_and_empty) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_UINT8, 1, I32(4), U8(200, 200, 200, 3));
        int32_t out = kh_tensor(&h, RT_TYPE_UINT8, 0, NULL, NULL);
        int32_t idx = kh_tensor(&h, RT_TYPE_INT32, 0, NULL, NULL);
        ck_assert_int_eq(run(&h, RT_TYPE_INT32, in, out, idx), 0);
        ck_assert_data(uint8_t, &h.tensors[out], 2, 200, 3);
        ck_assert_data(int32_t, &h.tensors[idx], 4, 0, 0, 0, 1);
        kh_done(&h);

        kh_init(&h);
        in = kh_tensor(&h, RT_TYPE_INT64, 1, I32(0), I64(0));
        out = kh_tensor(&h, RT_TYPE_INT64, 0, NULL, NULL);
        idx = kh_tensor(&h, RT_TYPE_INT32, 0, NULL, NULL);
        ck_assert_int_eq(run(&h, RT_TYPE_INT32, in, out, idx), 0);
        ck_assert_shape(&h.tensors[out], 1, 0);
        ck_assert_shape(&h.tensors[idx], 1, 0);
        kh_done(&h);
}
END_TEST

START_TEST(test_unique_errors) {
        kh_t h;
        kh_init(&h);
        int32_t in2d = kh_tensor(&h, RT_TYPE_INT32, 2, I32(1, 2), I32(1, 2));
        int32_t out = kh_tensor(&h, RT_TYPE_INT32, 0, NULL, NULL);
        int32_t idx = kh_tensor(&h, RT_TYPE_INT32, 0, NULL, NULL);
        ck_assert_fails(&h, run(&h, RT_TYPE_INT32, in2d, out, idx), -EINVAL, "1-D");
        int32_t in = kh_tensor(&h, RT_TYPE_INT32, 1, I32(2), I32(1, 2));
        ck_assert_fails(&h, run(&h, RT_TYPE_INT64, in, out, idx), -EINVAL, "idx_out_type");
        int32_t fout = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_fails(&h, run(&h, RT_TYPE_INT32, in, fout, idx), -EINVAL, "differs");
        int32_t b = kh_tensor(&h, RT_TYPE_BOOL, 1, I32(2), U8(1, 0));
        int32_t bout = kh_tensor(&h, RT_TYPE_BOOL, 0, NULL, NULL);
        ck_assert_fails(&h, run(&h, RT_TYPE_INT32, b, bout, idx), -ENOTSUP, "bool");
        kh_done(&h);
}
END_TEST

MISC_TEST_MAIN("unique", test_unique_int32_first_occurrence_order, test_unique_float_int64_idx,
               test_unique_nan_as_tflite_map, test_unique_uint8_and_empty, test_unique_errors)
