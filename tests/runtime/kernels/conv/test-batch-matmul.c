/* SPDX-License-Identifier: Apache-2.0 */
#include <string.h>

#include "conv-test.h"

/* [2,3] x [3,2], hand-computed. */
START_TEST(test_bmm_float_2d) {
        kh_t h;
        kh_init(&h);
        const float a[6] = { 1, 2, 3, 4, 5, 6 };
        const float b[6] = { 7, 8, 9, 10, 11, 12 };
        int32_t l = kh_tensor(&h, RT_TYPE_FLOAT32, 2, (int32_t[]) { 2, 3 }, a);
        int32_t r = kh_tensor(&h, RT_TYPE_FLOAT32, 2, (int32_t[]) { 3, 2 }, b);
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        rt_batch_matmul_params_t p = { 0 };
        ck_assert_int_eq(kh_run(&h, &rt_kernel_batch_matmul, &p, (int32_t[]) { l, r }, 2,
                                (int32_t[]) { out }, 1), 0);
        const float want[4] = { 58, 64, 139, 154 };
        ck_assert_int_eq(h.tensors[out].rank, 2);
        for (int i = 0; i < 4; i++)
                ck_assert_float_eq(((float *) h.tensors[out].data)[i], want[i]);
        kh_done(&h);
}
END_TEST

/* lhs [2,1,M,K] x rhs [3,K,N] broadcast to [2,3,M,N], with every adj_x /
 * adj_y combination, against a slow reference on the untransposed data. */
START_TEST(test_bmm_float_broadcast_adjoint) {
        enum { B0 = 2, B1 = 3, M = 2, K = 3, N = 4 };
        float a[B0 * M * K], b[B1 * K * N];
        ref_fill_f(a, ARRAY_LEN(a), -1, 1, 91);
        ref_fill_f(b, ARRAY_LEN(b), -1, 1, 92);
        for (int adj = 0; adj < 4; adj++) {
                const bool ax = adj & 1, ay = adj & 2;
                /* Store the operands transposed when the flag asks for it. */
                float at[ARRAY_LEN(a)], bt[ARRAY_LEN(b)];
                for (int z = 0; z < B0; z++)
                        for (int i = 0; i < M; i++)
                                for (int k = 0; k < K; k++)
                                        at[z * M * K + (ax ? k * M + i : i * K + k)] = a[z * M * K + i * K + k];
                for (int z = 0; z < B1; z++)
                        for (int k = 0; k < K; k++)
                                for (int j = 0; j < N; j++)
                                        bt[z * K * N + (ay ? j * K + k : k * N + j)] = b[z * K * N + k * N + j];
                kh_t h;
                kh_init(&h);
                int32_t l = kh_tensor(&h, RT_TYPE_FLOAT32, 4,
                                      ax ? (int32_t[]) { B0, 1, K, M } : (int32_t[]) { B0, 1, M, K }, at);
                int32_t r = kh_tensor(&h, RT_TYPE_FLOAT32, 3,
                                      ay ? (int32_t[]) { B1, N, K } : (int32_t[]) { B1, K, N }, bt);
                int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
                rt_batch_matmul_params_t p = { .adj_x = ax, .adj_y = ay };
                ck_assert_int_eq(kh_run(&h, &rt_kernel_batch_matmul, &p, (int32_t[]) { l, r }, 2,
                                        (int32_t[]) { out }, 1), 0);
                const rt_tensor_t *o = &h.tensors[out];
                ck_assert_int_eq(o->rank, 4);
                ck_assert_int_eq(o->dims[0], B0);
                ck_assert_int_eq(o->dims[1], B1);
                ck_assert_int_eq(o->dims[2], M);
                ck_assert_int_eq(o->dims[3], N);
                for (int z0 = 0; z0 < B0; z0++)
                for (int z1 = 0; z1 < B1; z1++)
                for (int i = 0; i < M; i++)
                for (int j = 0; j < N; j++) {
                        double acc = 0;
                        for (int k = 0; k < K; k++)
                                acc += (double) a[z0 * M * K + i * K + k] * b[z1 * K * N + k * N + j];
                        float got = ((float *) o->data)[((z0 * B1 + z1) * M + i) * N + j];
                        ck_assert_double_eq_tol(got, acc, 1e-5);
                }
                kh_done(&h);
        }
}
END_TEST

static void check_quant_bmm(rt_type_t t) {
        enum { M = 3, K = 9, N = 4 };
        const bool i16 = t == RT_TYPE_INT16;
        const int32_t lo = i16 ? -32768 : -128, hi = i16 ? 32767 : 127;
        const float ls = i16 ? 0.0021f : 0.031f, rs = i16 ? 0.0017f : 0.027f;
        const float os = i16 ? 0.00093f : 0.113f;
        const int32_t lzp = i16 ? 0 : 5, rzp = i16 ? 0 : -4, ozp = i16 ? 0 : 2;
        int32_t ai[M * K], bi[K * N];
        ref_fill_i32(ai, ARRAY_LEN(ai), i16 ? -3000 : lo, i16 ? 3000 : hi, 101);
        ref_fill_i32(bi, ARRAY_LEN(bi), i16 ? -3000 : lo, i16 ? 3000 : hi, 102);
        int8_t a8[ARRAY_LEN(ai)], b8[ARRAY_LEN(bi)];
        int16_t a16[ARRAY_LEN(ai)], b16[ARRAY_LEN(bi)];
        for (size_t i = 0; i < ARRAY_LEN(ai); i++) {
                a8[i] = (int8_t) ai[i];
                a16[i] = (int16_t) ai[i];
        }
        for (size_t i = 0; i < ARRAY_LEN(bi); i++) {
                b8[i] = (int8_t) bi[i];
                b16[i] = (int16_t) bi[i];
        }
        kh_t h;
        kh_init(&h);
        int32_t l = kh_tensor(&h, t, 2, (int32_t[]) { M, K }, i16 ? (const void *) a16 : (const void *) a8);
        int32_t r = kh_tensor(&h, t, 2, (int32_t[]) { K, N }, i16 ? (const void *) b16 : (const void *) b8);
        int32_t out = kh_tensor(&h, t, 0, NULL, NULL);
        kh_quant(&h, l, ls, lzp);
        kh_quant(&h, r, rs, rzp);
        kh_quant(&h, out, os, ozp);
        rt_batch_matmul_params_t p = { 0 };
        ck_assert_int_eq(kh_run(&h, &rt_kernel_batch_matmul, &p, (int32_t[]) { l, r }, 2,
                                (int32_t[]) { out }, 1), 0);
        for (int i = 0; i < M; i++)
                for (int j = 0; j < N; j++) {
                        double acc = 0;
                        for (int k = 0; k < K; k++)
                                acc += (double) (ai[i * K + k] - lzp) * (bi[k * N + j] - rzp);
                        /* TFLite BATCH_MATMUL: float scale product. */
                        double real = (double) (ls * rs) / (double) os;
                        int32_t want = ref_output((int64_t) acc, real, ozp, lo, hi,
                                           i16 ? REF_WIDE : REF_RUY);
                        int32_t got = i16 ? ((int16_t *) h.tensors[out].data)[i * N + j] :
                                            ((int8_t *) h.tensors[out].data)[i * N + j];
                        ck_assert_msg(got == want, "(%d,%d): got %d want %d", i, j, got, want);
                }
        kh_done(&h);
}

START_TEST(test_bmm_int8) {
        check_quant_bmm(RT_TYPE_INT8);
}
END_TEST

START_TEST(test_bmm_int16) {
        check_quant_bmm(RT_TYPE_INT16);
}
END_TEST

/* Hybrid float x int8: rows whose largest magnitude is 127 quantize exactly. */
START_TEST(test_bmm_hybrid) {
        const float a[2 * 3] = { 127, -1, 2, 3, -127, 5 };
        const int8_t b[3 * 2] = { 1, -2, 3, 4, -5, 6 };
        kh_t h;
        kh_init(&h);
        int32_t l = kh_tensor(&h, RT_TYPE_FLOAT32, 2, (int32_t[]) { 2, 3 }, a);
        int32_t r = kh_const(&h, RT_TYPE_INT8, 2, (int32_t[]) { 3, 2 }, b);
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        kh_quant(&h, r, 0.5f, 0);
        rt_batch_matmul_params_t p = { 0 };
        ck_assert_int_eq(kh_run(&h, &rt_kernel_batch_matmul, &p, (int32_t[]) { l, r }, 2,
                                (int32_t[]) { out }, 1), 0);
        for (int i = 0; i < 2; i++)
                for (int j = 0; j < 2; j++) {
                        double acc = 0;
                        for (int k = 0; k < 3; k++)
                                acc += (double) a[i * 3 + k] * b[k * 2 + j] * 0.5;
                        ck_assert_double_eq_tol(((float *) h.tensors[out].data)[i * 2 + j], acc, 1e-4);
                }
        kh_done(&h);
}
END_TEST

START_TEST(test_bmm_rejects_bad_shapes) {
        float a[12] = { 0 };
        kh_t h;
        /* inner dimensions 3 vs 4 */
        kh_init(&h);
        int32_t l = kh_tensor(&h, RT_TYPE_FLOAT32, 2, (int32_t[]) { 2, 3 }, a);
        int32_t r = kh_tensor(&h, RT_TYPE_FLOAT32, 2, (int32_t[]) { 4, 2 }, a);
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        rt_batch_matmul_params_t p = { 0 };
        ck_assert_int_eq(kh_run(&h, &rt_kernel_batch_matmul, &p, (int32_t[]) { l, r }, 2,
                                (int32_t[]) { out }, 1), -EINVAL);
        kh_done(&h);
        /* batch dimensions 2 vs 3 do not broadcast */
        kh_init(&h);
        l = kh_tensor(&h, RT_TYPE_FLOAT32, 3, (int32_t[]) { 2, 1, 2 }, a);
        r = kh_tensor(&h, RT_TYPE_FLOAT32, 3, (int32_t[]) { 3, 2, 1 }, a);
        out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_batch_matmul, &p, (int32_t[]) { l, r }, 2,
                                (int32_t[]) { out }, 1), -EINVAL);
        kh_done(&h);
        /* rank 1 */
        kh_init(&h);
        l = kh_tensor(&h, RT_TYPE_FLOAT32, 1, (int32_t[]) { 3 }, a);
        r = kh_tensor(&h, RT_TYPE_FLOAT32, 2, (int32_t[]) { 3, 2 }, a);
        out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_batch_matmul, &p, (int32_t[]) { l, r }, 2,
                                (int32_t[]) { out }, 1), -EINVAL);
        kh_done(&h);
}
END_TEST

static Suite *bmm_suite(void) {
        Suite *s = suite_create("batch_matmul");
        TCase *tc = tcase_create("batch_matmul");
        tcase_add_test(tc, test_bmm_float_2d);
        tcase_add_test(tc, test_bmm_float_broadcast_adjoint);
        tcase_add_test(tc, test_bmm_int8);
        tcase_add_test(tc, test_bmm_int16);
        tcase_add_test(tc, test_bmm_hybrid);
        tcase_add_test(tc, test_bmm_rejects_bad_shapes);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        SRunner *sr = srunner_create(bmm_suite());
        srunner_run_all(sr, CK_NORMAL);
        int failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed == 0 ? 0 : 1;
}
