/* SPDX-License-Identifier: Apache-2.0 */
/* SPACE_TO_DEPTH, DEPTH_TO_SPACE, SPACE_TO_BATCH_ND, BATCH_TO_SPACE_ND. */
#include "shape-test.h"

/* [1,4,4,1] 0..15 <-> [1,2,2,4] */
static const int64_t space16[16] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 };
static const int64_t depth16[16] = { 0, 1, 4, 5, 2, 3, 6, 7, 8, 9, 12, 13, 10, 11, 14, 15 };

START_TEST(test_space_to_depth_int64) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_INT64, 4, I32(1, 4, 4, 1), space16);
        int32_t out = kh_tensor(&h, RT_TYPE_INT64, 0, NULL, NULL);
        shape_block_params_t p = { 2 };
        ck_assert_int_eq(kh_run(&h, &rt_kernel_space_to_depth, &p, I32(in), 1, I32(out), 1), 0);
        st_assert_dims(&h.tensors[out], 4, I32(1, 2, 2, 4));
        ck_assert_mem_eq(h.tensors[out].data, depth16, sizeof(depth16));
        kh_done(&h);
}
END_TEST

START_TEST(test_depth_to_space_int64) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_INT64, 4, I32(1, 2, 2, 4), depth16);
        int32_t out = kh_tensor(&h, RT_TYPE_INT64, 0, NULL, NULL);
        shape_block_params_t p = { 2 };
        ck_assert_int_eq(kh_run(&h, &rt_kernel_depth_to_space, &p, I32(in), 1, I32(out), 1), 0);
        st_assert_dims(&h.tensors[out], 4, I32(1, 4, 4, 1));
        ck_assert_mem_eq(h.tensors[out].data, space16, sizeof(space16));
        kh_done(&h);
}
END_TEST

START_TEST(test_space_to_depth_bad_block_einval) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_INT64, 4, I32(1, 4, 4, 1), space16);
        int32_t out = kh_tensor(&h, RT_TYPE_INT64, 0, NULL, NULL);
        shape_block_params_t p = { 3 };
        ck_assert_int_eq(kh_run(&h, &rt_kernel_space_to_depth, &p, I32(in), 1, I32(out), 1), -EINVAL);
        kh_done(&h);
}
END_TEST

START_TEST(test_space_to_batch_nd_padding) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 4, I32(1, 5, 2, 1), F32(1, 2, 3, 4, 5, 6, 7, 8, 9, 10));
        int32_t block = kh_const(&h, RT_TYPE_INT32, 1, I32(2), I32(3, 2));
        int32_t pads = kh_const(&h, RT_TYPE_INT32, 2, I32(2, 2), I32(1, 0, 2, 0));
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_space_to_batch_nd, NULL, I32(in, block, pads), 3, I32(out), 1), 0);
        st_assert_dims(&h.tensors[out], 4, I32(6, 2, 2, 1));
        st_assert_f32(&h.tensors[out], 24,
                      F32(0, 0, 0, 5, 0, 0, 0, 6, 0, 1, 0, 7, 0, 2, 0, 8, 0, 3, 0, 9, 0, 4, 0, 10));
        kh_done(&h);
}
END_TEST

START_TEST(test_space_to_batch_nd_uint8_pads_zero_point) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_UINT8, 3, I32(1, 1, 1), (const uint8_t[]){ 9 });
        int32_t block = kh_const(&h, RT_TYPE_INT32, 1, I32(1), I32(2));
        int32_t pads = kh_const(&h, RT_TYPE_INT32, 2, I32(1, 2), I32(0, 1));
        int32_t out = kh_tensor(&h, RT_TYPE_UINT8, 0, NULL, NULL);
        kh_quant(&h, in, 1.0f, 128);
        kh_quant(&h, out, 1.0f, 128);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_space_to_batch_nd, NULL, I32(in, block, pads), 3, I32(out), 1), 0);
        st_assert_dims(&h.tensors[out], 3, I32(2, 1, 1));
        ck_assert_mem_eq(h.tensors[out].data, ((const uint8_t[]){ 9, 128 }), 2);
        kh_done(&h);
}
END_TEST

START_TEST(test_space_to_batch_nd_dynamic) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 4, I32(1, 2, 2, 1), F32(1, 2, 3, 4));
        int32_t block = kh_tensor(&h, RT_TYPE_INT32, 1, I32(2), I32(2, 2));
        int32_t pads = kh_tensor(&h, RT_TYPE_INT32, 2, I32(2, 2), I32(0, 0, 0, 0));
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_int_eq(st_prepare_only(&h, &rt_kernel_space_to_batch_nd, NULL, I32(in, block, pads), 3, I32(out), 1),
                         0);
        ck_assert_int_eq(h.tensors[out].alloc, RT_ALLOC_DYNAMIC);
        ck_assert_int_eq(h.tensors[out].rank, 0);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_space_to_batch_nd, NULL, I32(in, block, pads), 3, I32(out), 1), 0);
        st_assert_dims(&h.tensors[out], 4, I32(4, 1, 1, 1));
        st_assert_f32(&h.tensors[out], 4, F32(1, 2, 3, 4));
        kh_done(&h);
}
END_TEST

START_TEST(test_batch_to_space_nd_no_crop) {
        kh_t h;
        kh_init(&h);
        float v[16];
        for (int32_t i = 0; i < 16; i++)
                v[i] = (float) (i + 1);
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 4, I32(4, 2, 2, 1), v);
        int32_t block = kh_const(&h, RT_TYPE_INT32, 1, I32(2), I32(2, 2));
        int32_t crops = kh_const(&h, RT_TYPE_INT32, 2, I32(2, 2), I32(0, 0, 0, 0));
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_batch_to_space_nd, NULL, I32(in, block, crops), 3, I32(out), 1), 0);
        st_assert_dims(&h.tensors[out], 4, I32(1, 4, 4, 1));
        st_assert_f32(&h.tensors[out], 16, F32(1, 5, 2, 6, 9, 13, 10, 14, 3, 7, 4, 8, 11, 15, 12, 16));
        kh_done(&h);
}
END_TEST

START_TEST(test_batch_to_space_nd_crops) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 4, I32(4, 1, 2, 1), F32(1, 2, 3, 4, 5, 6, 7, 8));
        int32_t block = kh_const(&h, RT_TYPE_INT32, 1, I32(2), I32(2, 2));
        int32_t crops = kh_const(&h, RT_TYPE_INT32, 2, I32(2, 2), I32(0, 1, 1, 0));
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_batch_to_space_nd, NULL, I32(in, block, crops), 3, I32(out), 1), 0);
        /* uncropped [1,2,4,1]: rows {1,3,2,4}, {5,7,6,8}; keep row 0, drop column 0 */
        st_assert_dims(&h.tensors[out], 4, I32(1, 1, 3, 1));
        st_assert_f32(&h.tensors[out], 3, F32(3, 2, 4));
        kh_done(&h);
}
END_TEST

START_TEST(test_batch_to_space_nd_bad_batch_einval) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 4, I32(3, 1, 1, 1), F32(1, 2, 3));
        int32_t block = kh_const(&h, RT_TYPE_INT32, 1, I32(2), I32(2, 1));
        int32_t crops = kh_const(&h, RT_TYPE_INT32, 2, I32(2, 2), I32(0, 0, 0, 0));
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_batch_to_space_nd, NULL, I32(in, block, crops), 3, I32(out), 1),
                         -EINVAL);
        kh_done(&h);
}
END_TEST

/* Two block dimensions with padding on both sides, so that whole rows of
 * the batch tensor are padding: int8 with zero point -5 (the padding is
 * -5, not 0) and float32 (zeros), each element checked against the
 * definition, then BATCH_TO_SPACE_ND with the paddings as crops gives the
 * input back. */
START_TEST(test_space_to_batch_nd_padded_rows_round_trip) {
        enum { N = 2, H = 3, W = 5, C = 2, BH = 2, BW = 3, PT = 2, PB = 1, PL = 1, PR = 0 };
        enum { OH = (H + PT + PB) / BH, OW = (W + PL + PR) / BW, ON = N * BH * BW };
        for (int quant = 0; quant < 2; quant++) {
                rt_type_t type = quant ? RT_TYPE_INT8 : RT_TYPE_FLOAT32;
                size_t es = quant ? 1 : 4;
                int8_t xq[N * H * W * C];
                float xf[N * H * W * C];
                for (int i = 0; i < N * H * W * C; i++) {
                        xq[i] = (int8_t) (i % 100 - 40);
                        xf[i] = (float) i + 0.5f;
                }
                const void *x = quant ? (const void *) xq : (const void *) xf;
                kh_t h;
                kh_init(&h);
                int32_t in = kh_tensor(&h, type, 4, I32(N, H, W, C), x);
                int32_t block = kh_const(&h, RT_TYPE_INT32, 1, I32(2), I32(BH, BW));
                int32_t pads = kh_const(&h, RT_TYPE_INT32, 2, I32(2, 2), I32(PT, PB, PL, PR));
                int32_t mid = kh_tensor(&h, type, 0, NULL, NULL);
                int32_t back = kh_tensor(&h, type, 0, NULL, NULL);
                if (quant) {
                        kh_quant(&h, in, 0.5f, -5);
                        kh_quant(&h, mid, 0.5f, -5);
                        kh_quant(&h, back, 0.5f, -5);
                }
                ck_assert_int_eq(kh_run(&h, &rt_kernel_space_to_batch_nd, NULL, I32(in, block, pads), 3, I32(mid), 1),
                                 0);
                st_assert_dims(&h.tensors[mid], 4, I32(ON, OH, OW, C));
                const uint8_t *y = h.tensors[mid].data;
                int outside = 0;
                for (int ob = 0; ob < ON; ob++)
                        for (int oy = 0; oy < OH; oy++)
                                for (int ox = 0; ox < OW; ox++)
                                        for (int c = 0; c < C; c++) {
                                                int b = ob % N, sy = (ob / N) / BW, sx = (ob / N) % BW;
                                                int iy = oy * BH + sy - PT, ix = ox * BW + sx - PL;
                                                const uint8_t *got = y + ((((size_t) ob * OH + oy) * OW + ox) * C + c) * es;
                                                if (iy < 0 || iy >= H || ix < 0 || ix >= W) {
                                                        outside++;
                                                        if (quant)
                                                                ck_assert_int_eq(*(const int8_t *) got, -5);
                                                        else
                                                                ck_assert_float_eq(*(const float *) got, 0.0f);
                                                        continue;
                                                }
                                                size_t at = (((size_t) b * H + iy) * W + ix) * C + c;
                                                ck_assert_mem_eq(got, (const uint8_t *) x + at * es, es);
                                        }
                ck_assert_int_gt(outside, 0);
                ck_assert_int_eq(kh_run(&h, &rt_kernel_batch_to_space_nd, NULL, I32(mid, block, pads), 3, I32(back), 1),
                                 0);
                st_assert_dims(&h.tensors[back], 4, I32(N, H, W, C));
                ck_assert_mem_eq(h.tensors[back].data, x, (size_t) N * H * W * C * es);
                kh_done(&h);
        }
}
END_TEST

ST_MAIN("shape-space", test_space_to_depth_int64, test_depth_to_space_int64, test_space_to_depth_bad_block_einval,
        test_space_to_batch_nd_padding, test_space_to_batch_nd_uint8_pads_zero_point, test_space_to_batch_nd_dynamic,
        test_batch_to_space_nd_no_crop, test_batch_to_space_nd_crops, test_batch_to_space_nd_bad_batch_einval,
        test_space_to_batch_nd_padded_rows_round_trip)
