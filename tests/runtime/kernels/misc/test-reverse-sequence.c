/* SPDX-License-Identifier: Apache-2.0 */
#include "misc-test.h"

static int run(kh_t *h, int32_t seq_dim, int32_t batch_dim, int32_t in, int32_t len, int32_t out) {
        static rt_reverse_sequence_params_t p;
        p.seq_dim = seq_dim;
        p.batch_dim = batch_dim;
        return kh_run(h, &rt_kernel_reverse_sequence, &p, I32(in, len), 2, I32(out), 1);
}

START_TEST(test_reverse_sequence_batch_major) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 2, I32(2, 4), F32(1, 2, 3, 4, 5, 6, 7, 8));
        int32_t len = kh_tensor(&h, RT_TYPE_INT32, 1, I32(2), I32(3, 0));
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_int_eq(run(&h, 1, 0, in, len, out), 0);
        ck_assert_data(float, &h.tensors[out], 8, 3, 2, 1, 4, 5, 6, 7, 8);
        kh_done(&h);
}
END_TEST

START_TEST(test_reverse_sequence_time_major_int64_lengths) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_INT16, 2, I32(3, 2), (const int16_t[]) { 1, 2, 3, 4, 5, 6 });
        int32_t len = kh_tensor(&h, RT_TYPE_INT64, 1, I32(2), I64(2, 3));
        int32_t out = kh_tensor(&h, RT_TYPE_INT16, 0, NULL, NULL);
        ck_assert_int_eq(run(&h, 0, 1, in, len, out), 0);
        ck_assert_data(int16_t, &h.tensors[out], 6, 3, 6, 1, 4, 5, 2);
        kh_done(&h);
}
END_TEST

START_TEST(test_reverse_sequence_errors) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_INT32, 2, I32(2, 2), I32(1, 2, 3, 4));
        int32_t len = kh_tensor(&h, RT_TYPE_INT32, 1, I32(2), I32(3, 1));
        int32_t out = kh_tensor(&h, RT_TYPE_INT32, 0, NULL, NULL);
        ck_assert_fails(&h, run(&h, 1, 0, in, len, out), -EINVAL, "seq_lengths[0] = 3");
        ck_assert_fails(&h, run(&h, 1, 1, in, len, out), -EINVAL, "must differ");
        ck_assert_fails(&h, run(&h, 2, 0, in, len, out), -EINVAL, "out of range");
        kh_done(&h);
}
END_TEST

MISC_TEST_MAIN("reverse-sequence", test_reverse_sequence_batch_major, test_reverse_sequence_time_major_int64_lengths,
               test_reverse_sequence_errors)
