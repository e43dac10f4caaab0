/* SPDX-License-Identifier: Apache-2.0 */
#include "reduce-test.h"

static int run_log_softmax(kh_t *h, rt_type_t type, int32_t n, const void *x, float in_scale,
                           int32_t in_zp, float out_scale, int32_t out_zp, int32_t *ret_out) {
        int32_t in = kh_tensor(h, type, 2, (int32_t[]) { 1, n }, x);
        int32_t out = kh_tensor(h, type, 0, NULL, NULL);
        if (type != RT_TYPE_FLOAT32) {
                kh_quant(h, in, in_scale, in_zp);
                kh_quant(h, out, out_scale, out_zp);
        }
        *ret_out = out;
        return kh_run(h, &rt_kernel_log_softmax, NULL, (int32_t[]) { in }, 1, (int32_t[]) { out }, 1);
}

static void ref_log_softmax(const double *x, int n, double *y) {
        double max = x[0], sum = 0.0;
        for (int i = 1; i < n; i++)
                max = x[i] > max ? x[i] : max;
        for (int i = 0; i < n; i++)
                sum += exp(x[i] - max);
        for (int i = 0; i < n; i++)
                y[i] = x[i] - max - log(sum);
}

START_TEST(test_log_softmax_float) {
        const float x[3] = { 1, 2, 3 };
        kh_t h;
        int32_t out;
        kh_init(&h);
        ck_assert_int_eq(run_log_softmax(&h, RT_TYPE_FLOAT32, 3, x, 0, 0, 0, 0, &out), 0);
        double xr[3] = { 1, 2, 3 }, yr[3];
        ref_log_softmax(xr, 3, yr);
        for (int i = 0; i < 3; i++)
                ck_assert_double_eq_tol(((float *) h.tensors[out].data)[i], yr[i], 1e-6);
        kh_done(&h);
}
END_TEST

/* Quantized output: scale 16/256, zero point 127 (int8) / 255 (uint8). */
START_TEST(test_log_softmax_quantized_within_one_step) {
        const int8_t x[6] = { -128, -20, 0, 5, 90, 127 };
        kh_t h;
        int32_t out;
        kh_init(&h);
        ck_assert_int_eq(run_log_softmax(&h, RT_TYPE_INT8, 6, x, 0.05f, -3, 16.0f / 256, 127, &out), 0);
        double xr[6], yr[6];
        for (int i = 0; i < 6; i++)
                xr[i] = 0.05 * (x[i] + 3);
        ref_log_softmax(xr, 6, yr);
        for (int i = 0; i < 6; i++) {
                double want = fmax(round(yr[i] * 16.0) + 127.0, -128.0);
                ck_assert(fabs(((int8_t *) h.tensors[out].data)[i] - want) <= 1.0);
        }
        kh_done(&h);

        const uint8_t xu[4] = { 0, 10, 200, 255 };
        kh_init(&h);
        ck_assert_int_eq(run_log_softmax(&h, RT_TYPE_UINT8, 4, xu, 0.1f, 0, 16.0f / 256, 255, &out), 0);
        for (int i = 0; i < 4; i++)
                xr[i] = 0.1 * xu[i];
        ref_log_softmax(xr, 4, yr);
        for (int i = 0; i < 4; i++) {
                double want = fmax(round(yr[i] * 16.0) + 255.0, 0.0);
                ck_assert(fabs(((uint8_t *) h.tensors[out].data)[i] - want) <= 1.0);
        }
        ck_assert_int_eq(((uint8_t *) h.tensors[out].data)[3], 255);
        ck_assert_int_eq(((uint8_t *) h.tensors[out].data)[0], 0);
        kh_done(&h);
}
END_TEST

START_TEST(test_log_softmax_rejects_output_quantization) {
        const uint8_t xu[2] = { 0, 10 };
        kh_t h;
        int32_t out;
        kh_init(&h);
        ck_assert_int_eq(run_log_softmax(&h, RT_TYPE_UINT8, 2, xu, 0.1f, 0, 16.0f / 256, 127, &out), -EINVAL);
        kh_done(&h);
}
END_TEST

REDUCE_TEST_MAIN("log_softmax", test_log_softmax_float, test_log_softmax_quantized_within_one_step,
                 test_log_softmax_rejects_output_quantization)
