/* SPDX-License-Identifier: Apache-2.0 */
#include "misc-test.h"

START_TEST(test_bitcast_sizes) {
        kh_t h;
        kh_init(&h);
        /* float32 -> uint8 adds a dimension of 4 (little-endian bytes). */
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 1, I32(2), F32(1.0f, -2.0f));
        int32_t out = kh_tensor(&h, RT_TYPE_UINT8, 0, NULL, NULL);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_bitcast, NULL, I32(in), 1, I32(out), 1), 0);
        ck_assert_shape(&h.tensors[out], 2, 2, 4);
        ck_assert_data(uint8_t, &h.tensors[out], 8, 0x00, 0x00, 0x80, 0x3f, 0x00, 0x00, 0x00, 0xc0);
        /* uint8 [.., 4] -> int32 drops it; equal sizes keep the shape. */
        int32_t b = kh_tensor(&h, RT_TYPE_UINT8, 2, I32(1, 4), U8(0x01, 0x02, 0x00, 0x80));
        int32_t o32 = kh_tensor(&h, RT_TYPE_INT32, 0, NULL, NULL);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_bitcast, NULL, I32(b), 1, I32(o32), 1), 0);
        ck_assert_shape(&h.tensors[o32], 1, 1);
        ck_assert_data(int32_t, &h.tensors[o32], 1, (int32_t) 0x80000201u);
        int32_t u = kh_tensor(&h, RT_TYPE_UINT32, 0, NULL, NULL);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_bitcast, NULL, I32(o32), 1, I32(u), 1), 0);
        ck_assert_data(uint32_t, &h.tensors[u], 1, 0x80000201u);
        int32_t bad = kh_tensor(&h, RT_TYPE_UINT8, 1, I32(3), U8(1, 2, 3));
        ck_assert_fails(&h, kh_run(&h, &rt_kernel_bitcast, NULL, I32(bad), 1, I32(o32), 1), -EINVAL,
                        "last dimension of 4");
        kh_done(&h);
}
END_TEST

START_TEST(test_bitwise_xor_broadcast) {
        kh_t h;
        kh_init(&h);
        int32_t a = kh_tensor(&h, RT_TYPE_UINT8, 2, I32(2, 2), U8(0x0f, 0xf0, 0xff, 0x00));
        int32_t b = kh_tensor(&h, RT_TYPE_UINT8, 1, I32(2), U8(0xff, 0x0f));
        int32_t out = kh_tensor(&h, RT_TYPE_UINT8, 0, NULL, NULL);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_bitwise_xor, NULL, I32(a, b), 2, I32(out), 1), 0);
        ck_assert_shape(&h.tensors[out], 2, 2, 2);
        ck_assert_data(uint8_t, &h.tensors[out], 4, 0xf0, 0xff, 0x00, 0x0f);
        int32_t c = kh_tensor(&h, RT_TYPE_INT32, 0, NULL, I32(-1));
        int32_t d = kh_tensor(&h, RT_TYPE_INT32, 1, I32(3), I32(0, 5, -6));
        int32_t o = kh_tensor(&h, RT_TYPE_INT32, 0, NULL, NULL);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_bitwise_xor, NULL, I32(c, d), 2, I32(o), 1), 0);
        ck_assert_data(int32_t, &h.tensors[o], 3, -1, -6, 5);
        kh_done(&h);
}
END_TEST

START_TEST(test_right_shift_clamps_and_sign) {
        kh_t h;
        kh_init(&h);
        int32_t a = kh_tensor(&h, RT_TYPE_INT8, 1, I32(4), ((const int8_t[]) { -128, -128, 64, 100 }));
        int32_t b = kh_tensor(&h, RT_TYPE_INT8, 1, I32(4), ((const int8_t[]) { 1, 20, -3, 2 }));
        int32_t out = kh_tensor(&h, RT_TYPE_INT8, 0, NULL, NULL);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_right_shift, NULL, I32(a, b), 2, I32(out), 1), 0);
        /* arithmetic shift; 20 clamps to 7; -3 clamps to 0 */
        ck_assert_data(int8_t, &h.tensors[out], 4, -64, -1, 64, 25);
        int32_t u = kh_tensor(&h, RT_TYPE_UINT16, 1, I32(2), ((const uint16_t[]) { 0x8000, 0xffff }));
        int32_t s = kh_tensor(&h, RT_TYPE_UINT16, 0, NULL, ((const uint16_t[]) { 15 }));
        int32_t o = kh_tensor(&h, RT_TYPE_UINT16, 0, NULL, NULL);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_right_shift, NULL, I32(u, s), 2, I32(o), 1), 0);
        ck_assert_data(uint16_t, &h.tensors[o], 2, 1, 1);
        int32_t f = kh_tensor(&h, RT_TYPE_FLOAT32, 1, I32(1), F32(1));
        int32_t fo = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_fails(&h, kh_run(&h, &rt_kernel_right_shift, NULL, I32(f, f), 2, I32(fo), 1), -ENOTSUP, "float32");
        int32_t i16 = kh_tensor(&h, RT_TYPE_INT16, 1, I32(1), ((const int16_t[]) { 1 }));
        ck_assert_fails(&h, kh_run(&h, &rt_kernel_bitwise_xor, NULL, I32(a, i16), 2, I32(out), 1), -EINVAL,
                        "one type");
        kh_done(&h);
}
END_TEST

MISC_TEST_MAIN("bitwise", test_bitcast_sizes, test_bitwise_xor_broadcast, test_right_shift_clamps_and_sign)
