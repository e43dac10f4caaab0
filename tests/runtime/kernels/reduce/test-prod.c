/* SPDX-License-Identifier: Apache-2.0 */
#include "reduce-test.h"

START_TEST(test_reduce_prod_float_int) {
        const float x[6] = { 1, 2, 3, 4, 5, 6 };
        kh_t h;
        kh_init(&h);
        rt_reduce_case_t c = reduce_case(&h, RT_TYPE_FLOAT32, 2, (int32_t[]) { 2, 3 }, x,
                                         (int32_t[]) { 1 }, 1, false, RT_TYPE_FLOAT32);
        ck_assert_int_eq(reduce_run(&h, &rt_kernel_reduce_prod, &c, false), 0);
        ck_assert_float_eq(((float *) h.tensors[c.out].data)[0], 6.0f);
        ck_assert_float_eq(((float *) h.tensors[c.out].data)[1], 120.0f);
        kh_done(&h);

        const int32_t xi[4] = { -2, 3, 4, -1 };
        kh_init(&h);
        c = reduce_case(&h, RT_TYPE_INT32, 2, (int32_t[]) { 2, 2 }, xi, (int32_t[]) { -1, 0 }, 2, false,
                        RT_TYPE_INT32);
        ck_assert_int_eq(reduce_run(&h, &rt_kernel_reduce_prod, &c, false), 0);
        ck_assert_int_eq(((int32_t *) h.tensors[c.out].data)[0], 24);
        kh_done(&h);
}
END_TEST

/* Quantized int8: each step rescaled by s_in / sqrt(s_out) (n = 2):
 * 2 * 4 -> 8 * 0.7071 = 5.66 -> 6, then 6 * 0.7071 = 4.24 -> 4 (real 1 * 2). */
START_TEST(test_reduce_prod_int8_quantized) {
        const int8_t x[2] = { 2, 4 };
        kh_t h;
        kh_init(&h);
        rt_reduce_case_t c = reduce_case(&h, RT_TYPE_INT8, 1, (int32_t[]) { 2 }, x, (int32_t[]) { 0 },
                                         1, false, RT_TYPE_INT8);
        kh_quant(&h, c.in, 0.5f, 0);
        kh_quant(&h, c.out, 0.5f, 0);
        ck_assert_int_eq(reduce_run(&h, &rt_kernel_reduce_prod, &c, false), 0);
        ck_assert_int_eq(((int8_t *) h.tensors[c.out].data)[0], 4);
        kh_done(&h);
}
END_TEST

START_TEST(test_reduce_prod_rejects_quantized_uint8) {
        const uint8_t x[2] = { 2, 4 };
        kh_t h;
        kh_init(&h);
        rt_reduce_case_t c = reduce_case(&h, RT_TYPE_UINT8, 1, (int32_t[]) { 2 }, x, (int32_t[]) { 0 },
                                         1, false, RT_TYPE_UINT8);
        kh_quant(&h, c.in, 0.5f, 0);
        kh_quant(&h, c.out, 0.5f, 0);
        ck_assert_int_eq(reduce_run(&h, &rt_kernel_reduce_prod, &c, false), -ENOTSUP);
        kh_done(&h);
}
END_TEST

REDUCE_TEST_MAIN("prod", test_reduce_prod_float_int, test_reduce_prod_int8_quantized,
                 test_reduce_prod_rejects_quantized_uint8)
