/* SPDX-License-Identifier: Apache-2.0 */
#include <stdlib.h>

#include "reduce-test.h"

static int run_softmax(kh_t *h, rt_type_t in_type, rt_type_t out_type, int32_t rank,
                       const int32_t *dims, const void *x, float beta, float in_scale, int32_t in_zp,
                       float out_scale, int32_t out_zp, int32_t *ret_out) {
        int32_t in = kh_tensor(h, in_type, rank, dims, x);
        int32_t out = kh_tensor(h, out_type, 0, NULL, NULL);
        if (in_type != RT_TYPE_FLOAT32) {
                kh_quant(h, in, in_scale, in_zp);
                kh_quant(h, out, out_scale, out_zp);
        }
        static rt_softmax_params_t p;
        p.beta = beta;
        *ret_out = out;
        return kh_run(h, &rt_kernel_softmax, &p, (int32_t[]) { in }, 1, (int32_t[]) { out }, 1);
}

/* Independent double-precision softmax of one row of real values. */
static void ref_softmax(const double *x, int n, double beta, double *y) {
        double max = x[0], sum = 0.0;
        for (int i = 1; i < n; i++)
                max = x[i] > max ? x[i] : max;
        for (int i = 0; i < n; i++)
                sum += exp(beta * (x[i] - max));
        for (int i = 0; i < n; i++)
                y[i] = exp(beta * (x[i] - max)) / sum;
}

START_TEST(test_softmax_float_beta) {
        const float x[6] = { 1, 2, 3, -1, 0, 4 };
        const float betas[2] = { 1.0f, 0.5f };
        for (int b = 0; b < 2; b++) {
                kh_t h;
                int32_t out;
                kh_init(&h);
                ck_assert_int_eq(run_softmax(&h, RT_TYPE_FLOAT32, RT_TYPE_FLOAT32, 3,
                                             (int32_t[]) { 1, 2, 3 }, x, betas[b], 0, 0, 0, 0, &out), 0);
                ck_assert_shape(&h.tensors[out], 3, 1, 2, 3);
                for (int r = 0; r < 2; r++) {
                        double xr[3], yr[3];
                        for (int i = 0; i < 3; i++)
                                xr[i] = x[r * 3 + i];
                        ref_softmax(xr, 3, betas[b], yr);
                        for (int i = 0; i < 3; i++)
                                ck_assert_double_eq_tol(((float *) h.tensors[out].data)[r * 3 + i], yr[i],
                                                        1e-6);
                }
                kh_done(&h);
        }
}
END_TEST

/* int8 -> int8 (scale 1/256, zero point -128) within one step of the exact
 * result, for two betas and a row of 40 pseudo-random values. */
START_TEST(test_softmax_int8_matches_double) {
        int8_t x[40];
        uint32_t seed = 12345;
        for (int i = 0; i < 40; i++) {
                seed = seed * 1103515245u + 12345u;
                x[i] = (int8_t) ((seed >> 16) & 0xff);
        }
        const float betas[2] = { 1.0f, 2.5f };
        for (int b = 0; b < 2; b++) {
                kh_t h;
                int32_t out;
                kh_init(&h);
                ck_assert_int_eq(run_softmax(&h, RT_TYPE_INT8, RT_TYPE_INT8, 2, (int32_t[]) { 1, 40 }, x,
                                             betas[b], 0.05f, 3, 1.0f / 256, -128, &out), 0);
                double xr[40], yr[40];
                for (int i = 0; i < 40; i++)
                        xr[i] = 0.05 * (x[i] - 3);
                ref_softmax(xr, 40, betas[b], yr);
                for (int i = 0; i < 40; i++) {
                        double want = fmin(fmax(round(yr[i] * 256.0) - 128.0, -128.0), 127.0);
                        int got = ((int8_t *) h.tensors[out].data)[i];
                        ck_assert_msg(fabs(got - want) <= 1.0, "beta %g element %d: %d vs %g", betas[b], i,
                                      got, want);
                }
                kh_done(&h);
        }
}
END_TEST

/* uint8 -> uint8 (the mobilenet case) and int8 -> int16, within one step. */
START_TEST(test_softmax_uint8_and_int16_output) {
        const uint8_t xu[5] = { 0, 100, 200, 250, 255 };
        kh_t h;
        int32_t out;
        kh_init(&h);
        ck_assert_int_eq(run_softmax(&h, RT_TYPE_UINT8, RT_TYPE_UINT8, 2, (int32_t[]) { 1, 5 }, xu, 1.0f,
                                     0.02f, 128, 1.0f / 256, 0, &out), 0);
        double xr[5], yr[5];
        for (int i = 0; i < 5; i++)
                xr[i] = 0.02 * (xu[i] - 128);
        ref_softmax(xr, 5, 1.0, yr);
        for (int i = 0; i < 5; i++)
                ck_assert(fabs(((uint8_t *) h.tensors[out].data)[i] - fmin(round(yr[i] * 256), 255)) <= 1);
        kh_done(&h);

        const int8_t xs[4] = { -100, 0, 50, 51 };
        kh_init(&h);
        ck_assert_int_eq(run_softmax(&h, RT_TYPE_INT8, RT_TYPE_INT16, 1, (int32_t[]) { 4 }, xs, 1.0f,
                                     0.03f, 0, 1.0f / 32768, 0, &out), 0);
        for (int i = 0; i < 4; i++)
                xr[i] = 0.03 * xs[i];
        ref_softmax(xr, 4, 1.0, yr);
        for (int i = 0; i < 4; i++)
                ck_assert(fabs(((int16_t *) h.tensors[out].data)[i] - fmin(round(yr[i] * 32768), 32767)) <= 1);
        kh_done(&h);
}
END_TEST

/* int16 -> int16 goes through TFLite's interpolated Q0.15 tables; on this
 * row it stays within two steps of the exact result. */
START_TEST(test_softmax_int16_lut) {
        const int16_t x[6] = { -30000, -1000, 0, 1000, 2000, 2000 };
        kh_t h;
        int32_t out;
        kh_init(&h);
        ck_assert_int_eq(run_softmax(&h, RT_TYPE_INT16, RT_TYPE_INT16, 2, (int32_t[]) { 1, 6 }, x, 1.0f,
                                     1.0f / 1024, 0, 1.0f / 32768, 0, &out), 0);
        double xr[6], yr[6];
        for (int i = 0; i < 6; i++)
                xr[i] = x[i] / 1024.0;
        ref_softmax(xr, 6, 1.0, yr);
        for (int i = 0; i < 6; i++) {
                int got = ((int16_t *) h.tensors[out].data)[i];
                ck_assert_msg(fabs(got - yr[i] * 32768) <= 2, "element %d: %d vs %g", i, got,
                              yr[i] * 32768);
        }
        kh_done(&h);
}
END_TEST

START_TEST(test_softmax_errors) {
        const int8_t x[2] = { 1, 2 };
        kh_t h;
        int32_t out;
        kh_init(&h);
        ck_assert_int_eq(run_softmax(&h, RT_TYPE_INT8, RT_TYPE_INT8, 1, (int32_t[]) { 2 }, x, 1.0f, 0.1f,
                                     0, 1.0f / 256, 0, &out), -EINVAL);
        kh_done(&h);

        kh_init(&h);
        ck_assert_int_eq(run_softmax(&h, RT_TYPE_INT8, RT_TYPE_UINT8, 1, (int32_t[]) { 2 }, x, 1.0f, 0.1f,
                                     0, 1.0f / 256, 0, &out), -ENOTSUP);
        kh_done(&h);

        const float f = 1.0f;
        kh_init(&h);
        ck_assert_int_eq(run_softmax(&h, RT_TYPE_FLOAT32, RT_TYPE_FLOAT32, 0, NULL, &f, 1.0f, 0, 0, 0, 0,
                                     &out), -EINVAL);
        kh_done(&h);
}
END_TEST

REDUCE_TEST_MAIN("softmax", test_softmax_float_beta, test_softmax_int8_matches_double,
                 test_softmax_uint8_and_int16_output, test_softmax_int16_lut, test_softmax_errors)
