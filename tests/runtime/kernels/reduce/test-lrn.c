/* SPDX-License-Identifier: Apache-2.0 */
#include "reduce-test.h"

static int run_lrn(kh_t *h, rt_type_t type, int32_t rank, const int32_t *dims, const void *x,
                   rt_lrn_params_t *p, int32_t *ret_out) {
        int32_t in = kh_tensor(h, type, rank, dims, x);
        int32_t out = kh_tensor(h, type, 0, NULL, NULL);
        *ret_out = out;
        return kh_run(h, &rt_kernel_local_response_normalization, p, (int32_t[]) { in }, 1,
                      (int32_t[]) { out }, 1);
}

/* The window is [c - radius, c + radius] clipped to the row. */
START_TEST(test_lrn_float_window) {
        const float x[3] = { 1, 2, 3 };
        rt_lrn_params_t p = { .radius = 1, .bias = 1.0f, .alpha = 1.0f, .beta = 1.0f };
        kh_t h;
        int32_t out;
        kh_init(&h);
        ck_assert_int_eq(run_lrn(&h, RT_TYPE_FLOAT32, 4, (int32_t[]) { 1, 1, 1, 3 }, x, &p, &out), 0);
        const float *y = h.tensors[out].data;
        ck_assert_float_eq_tol(y[0], 1.0f / 6, 1e-7f);   /* 1 + (1 + 4) */
        ck_assert_float_eq_tol(y[1], 2.0f / 15, 1e-7f);  /* 1 + (1 + 4 + 9) */
        ck_assert_float_eq_tol(y[2], 3.0f / 14, 1e-7f);  /* 1 + (4 + 9) */
        kh_done(&h);
}
END_TEST

START_TEST(test_lrn_float_beta_paths) {
        float x[10];
        for (int i = 0; i < 10; i++)
                x[i] = 0.3f * (float) i - 1.0f;
        const float betas[3] = { 0.5f, 0.75f, 1.0f };
        for (int b = 0; b < 3; b++) {
                rt_lrn_params_t p = { .radius = 2, .bias = 2.0f, .alpha = 0.5f, .beta = betas[b] };
                kh_t h;
                int32_t out;
                kh_init(&h);
                ck_assert_int_eq(run_lrn(&h, RT_TYPE_FLOAT32, 4, (int32_t[]) { 1, 1, 2, 5 }, x, &p, &out), 0);
                for (int r = 0; r < 2; r++)
                        for (int c = 0; c < 5; c++) {
                                double acc = 0.0;
                                for (int d = c - 2; d <= c + 2; d++)
                                        if (d >= 0 && d < 5)
                                                acc += (double) x[r * 5 + d] * x[r * 5 + d];
                                double want = x[r * 5 + c] * pow(2.0 + 0.5 * acc, -betas[b]);
                                ck_assert_double_eq_tol(((float *) h.tensors[out].data)[r * 5 + c], want, 1e-6);
                        }
                kh_done(&h);
        }
}
END_TEST

START_TEST(test_lrn_errors) {
        const float x[3] = { 1, 2, 3 };
        rt_lrn_params_t p = { .radius = 1, .bias = 1.0f, .alpha = 1.0f, .beta = 1.0f };
        kh_t h;
        int32_t out;
        kh_init(&h);
        ck_assert_int_eq(run_lrn(&h, RT_TYPE_FLOAT32, 3, (int32_t[]) { 1, 1, 3 }, x, &p, &out), -EINVAL);
        kh_done(&h);

        const int8_t q[3] = { 1, 2, 3 };
        kh_init(&h);
        ck_assert_int_eq(run_lrn(&h, RT_TYPE_INT8, 4, (int32_t[]) { 1, 1, 1, 3 }, q, &p, &out), -ENOTSUP);
        kh_done(&h);

        p.radius = -1;
        kh_init(&h);
        ck_assert_int_eq(run_lrn(&h, RT_TYPE_FLOAT32, 4, (int32_t[]) { 1, 1, 1, 3 }, x, &p, &out), -EINVAL);
        kh_done(&h);
}
END_TEST

REDUCE_TEST_MAIN("lrn", test_lrn_float_window, test_lrn_float_beta_paths, test_lrn_errors)
