/* SPDX-License-Identifier: Apache-2.0 */
/* TRANSPOSE, REVERSE_V2, TILE, BROADCAST_TO. */
#include "shape-test.h"

START_TEST(test_transpose_2d) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 2, I32(2, 3), F32(1, 2, 3, 4, 5, 6));
        int32_t perm = kh_const(&h, RT_TYPE_INT32, 1, I32(2), I32(1, 0));
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_transpose, NULL, I32(in, perm), 2, I32(out), 1), 0);
        st_assert_dims(&h.tensors[out], 2, I32(3, 2));
        st_assert_f32(&h.tensors[out], 6, F32(1, 4, 2, 5, 3, 6));
        kh_done(&h);
}
END_TEST

START_TEST(test_transpose_5d) {
        kh_t h;
        kh_init(&h);
        int32_t v[12];
        for (int32_t i = 0; i < 12; i++)
                v[i] = i;
        int32_t in = kh_tensor(&h, RT_TYPE_INT32, 5, I32(2, 1, 2, 1, 3), v);
        int32_t perm = kh_const(&h, RT_TYPE_INT32, 1, I32(5), I32(4, 0, 2, 1, 3));
        int32_t out = kh_tensor(&h, RT_TYPE_INT32, 0, NULL, NULL);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_transpose, NULL, I32(in, perm), 2, I32(out), 1), 0);
        st_assert_dims(&h.tensors[out], 5, I32(3, 2, 2, 1, 1));
        /* out[a][b][c] = in[b][0][c][0][a] = 6b + 3c + a */
        st_assert_i32(&h.tensors[out], 12, I32(0, 3, 6, 9, 1, 4, 7, 10, 2, 5, 8, 11));
        kh_done(&h);
}
END_TEST

START_TEST(test_transpose_6d_uint8) {
        kh_t h;
        kh_init(&h);
        uint8_t v[64];
        for (int32_t i = 0; i < 64; i++)
                v[i] = (uint8_t) i;
        int32_t in = kh_tensor(&h, RT_TYPE_UINT8, 6, I32(2, 2, 2, 2, 2, 2), v);
        int32_t perm = kh_const(&h, RT_TYPE_INT32, 1, I32(6), I32(5, 4, 3, 2, 1, 0));
        int32_t out = kh_tensor(&h, RT_TYPE_UINT8, 0, NULL, NULL);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_transpose, NULL, I32(in, perm), 2, I32(out), 1), 0);
        /* reversing all axes of a 2x..x2 tensor reverses the bits of the index */
        const uint8_t *o = h.tensors[out].data;
        for (int32_t i = 0; i < 64; i++) {
                int32_t r = 0;
                for (int32_t b = 0; b < 6; b++)
                        r |= ((i >> b) & 1) << (5 - b);
                ck_assert_int_eq(o[i], r);
        }
        kh_done(&h);
}
END_TEST

START_TEST(test_transpose_bad_perm_einval) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 2, I32(2, 3), F32(1, 2, 3, 4, 5, 6));
        int32_t perm = kh_const(&h, RT_TYPE_INT32, 1, I32(2), I32(0, 2));
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_transpose, NULL, I32(in, perm), 2, I32(out), 1), -EINVAL);
        kh_done(&h);
}
END_TEST

START_TEST(test_reverse_v2_axis1) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 2, I32(2, 3), F32(1, 2, 3, 4, 5, 6));
        int32_t ax = kh_const(&h, RT_TYPE_INT32, 1, I32(1), I32(-1));
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_reverse_v2, NULL, I32(in, ax), 2, I32(out), 1), 0);
        st_assert_f32(&h.tensors[out], 6, F32(3, 2, 1, 6, 5, 4));
        kh_done(&h);
}
END_TEST

START_TEST(test_reverse_v2_two_axes) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 2, I32(2, 3), F32(1, 2, 3, 4, 5, 6));
        int32_t ax = kh_const(&h, RT_TYPE_INT32, 1, I32(2), I32(0, 1));
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_reverse_v2, NULL, I32(in, ax), 2, I32(out), 1), 0);
        st_assert_f32(&h.tensors[out], 6, F32(6, 5, 4, 3, 2, 1));
        kh_done(&h);
}
END_TEST

START_TEST(test_tile_2d) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 2, I32(1, 2), F32(1, 2));
        int32_t m = kh_const(&h, RT_TYPE_INT64, 1, I32(2), (const int64_t[]){ 2, 3 });
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_tile, NULL, I32(in, m), 2, I32(out), 1), 0);
        st_assert_dims(&h.tensors[out], 2, I32(2, 6));
        st_assert_f32(&h.tensors[out], 12, F32(1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2));
        kh_done(&h);
}
END_TEST

START_TEST(test_tile_dynamic_multiples) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_INT32, 2, I32(2, 1), I32(1, 2));
        int32_t m = kh_tensor(&h, RT_TYPE_INT32, 1, I32(2), I32(1, 2));
        int32_t out = kh_tensor(&h, RT_TYPE_INT32, 0, NULL, NULL);
        ck_assert_int_eq(st_prepare_only(&h, &rt_kernel_tile, NULL, I32(in, m), 2, I32(out), 1), 0);
        ck_assert_int_eq(h.tensors[out].alloc, RT_ALLOC_DYNAMIC);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_tile, NULL, I32(in, m), 2, I32(out), 1), 0);
        st_assert_dims(&h.tensors[out], 2, I32(2, 2));
        st_assert_i32(&h.tensors[out], 4, I32(1, 1, 2, 2));
        kh_done(&h);
}
END_TEST

START_TEST(test_broadcast_to_rows_and_columns) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 2, I32(2, 1), F32(1, 2));
        int32_t s = kh_const(&h, RT_TYPE_INT32, 1, I32(3), I32(2, 2, 3));
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_broadcast_to, NULL, I32(in, s), 2, I32(out), 1), 0);
        st_assert_dims(&h.tensors[out], 3, I32(2, 2, 3));
        st_assert_f32(&h.tensors[out], 12, F32(1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2));
        kh_done(&h);
}
END_TEST

START_TEST(test_broadcast_to_incompatible_einval) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 1, I32(3), F32(1, 2, 3));
        int32_t s = kh_const(&h, RT_TYPE_INT32, 1, I32(2), I32(2, 4));
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_broadcast_to, NULL, I32(in, s), 2, I32(out), 1), -EINVAL);
        kh_done(&h);
}
END_TEST

ST_MAIN("shape-transpose", test_transpose_2d, test_transpose_5d, test_transpose_6d_uint8,
        test_transpose_bad_perm_einval, test_reverse_v2_axis1, test_reverse_v2_two_axes, test_tile_2d,
        test_tile_dynamic_multiples, test_broadcast_to_rows_and_columns, test_broadcast_to_incompatible_einval)
