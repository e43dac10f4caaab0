/* SPDX-License-Identifier: Apache-2.0 */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kharness.h"
#include "sequence.h"

/* Direct 2-D DFT of the (cropped / zero-padded) input at (k, l). */
static void dft2(const float *x, int ih, int iw, int fh, int fw, int k, int l, double *re, double *im) {
        *re = *im = 0;
        for (int m = 0; m < fh && m < ih; m++) {
                for (int n = 0; n < fw && n < iw; n++) {
                        double a = -2 * M_PI * ((double) k * m / fh + (double) l * n / fw);
                        *re += x[m * iw + n] * cos(a);
                        *im += x[m * iw + n] * sin(a);
                }
        }
}

static void check_rfft(const float *x, int ih, int iw, int fh, int fw) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 3, (int32_t[]){ 1, ih, iw }, x);
        int32_t len = kh_const(&h, RT_TYPE_INT32, 1, (int32_t[]){ 2 }, (int32_t[]){ fh, fw });
        int32_t out = kh_tensor(&h, RT_TYPE_COMPLEX64, 0, NULL, NULL);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_rfft2d, NULL, (int32_t[]){ in, len }, 2, &out, 1), 0);
        const rt_tensor_t *o = &h.tensors[out];
        ck_assert_int_eq(o->rank, 3);
        ck_assert_int_eq(o->dims[1], fh);
        ck_assert_int_eq(o->dims[2], fw / 2 + 1);
        const float *y = o->data;
        for (int k = 0; k < fh; k++) {
                for (int l = 0; l < fw / 2 + 1; l++) {
                        double re, im;
                        dft2(x, ih, iw, fh, fw, k, l, &re, &im);
                        size_t i = (size_t) k * (fw / 2 + 1) + l;
                        ck_assert_double_eq_tol(y[2 * i], re, 1e-5);
                        ck_assert_double_eq_tol(y[2 * i + 1], im, 1e-5);
                }
        }
        kh_done(&h);
}

START_TEST(test_rfft2d_constant_signal) {
        const float ones[8] = { 1, 1, 1, 1, 1, 1, 1, 1 };
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 2, (int32_t[]){ 2, 4 }, ones);
        int32_t len = kh_const(&h, RT_TYPE_INT32, 1, (int32_t[]){ 2 }, (int32_t[]){ 2, 4 });
        int32_t out = kh_tensor(&h, RT_TYPE_COMPLEX64, 0, NULL, NULL);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_rfft2d, NULL, (int32_t[]){ in, len }, 2, &out, 1), 0);
        const float *y = h.tensors[out].data;
        ck_assert_float_eq_tol(y[0], 8.0f, 1e-6);
        for (int i = 1; i < 2 * 2 * 3; i++)
                ck_assert_float_eq_tol(y[i], 0.0f, 1e-6);
        kh_done(&h);
}
END_TEST

START_TEST(test_rfft2d_matches_direct_dft) {
        const float x[8] = { 1, 2, 3, 4, -1, 0.5f, 2, -3 };
        check_rfft(x, 2, 4, 2, 4);
}
END_TEST

START_TEST(test_rfft2d_crops_and_pads) {
        const float x[9] = { 1, -2, 3, 0.5f, 4, -1, 2, 2, 2 };
        check_rfft(x, 3, 3, 2, 4);  /* rows cropped to 2, columns padded to 4 */
        check_rfft(x, 3, 3, 4, 2);
}
END_TEST

/* fft_length [4, 1]: TFLite 2.9's fft2d does not compute the DFT for a row
 * length of 1; these are the values it gives (checked with difftest). */
START_TEST(test_rfft2d_width_one_follows_tflite) {
        const float x[8] = { 1, 9, 2, 9, 3, 9, 4, 9 }; /* 4x2, width cropped to 1 */
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 2, (int32_t[]){ 4, 2 }, x);
        int32_t len = kh_const(&h, RT_TYPE_INT32, 1, (int32_t[]){ 2 }, (int32_t[]){ 4, 1 });
        int32_t out = kh_tensor(&h, RT_TYPE_COMPLEX64, 0, NULL, NULL);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_rfft2d, NULL, (int32_t[]){ in, len }, 2, &out, 1), 0);
        ck_assert_int_eq(h.tensors[out].dims[0], 4);
        ck_assert_int_eq(h.tensors[out].dims[1], 1);
        const float want[8] = { 1, -1, 3, -3, 3, 0, 3, 3 };
        const float *y = h.tensors[out].data;
        for (int i = 0; i < 8; i++)
                ck_assert_float_eq_tol(y[i], want[i], 1e-6);
        kh_done(&h);
}
END_TEST

START_TEST(test_rfft2d_rejects_non_power_of_two) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 2, (int32_t[]){ 2, 3 }, (float[6]){ 0 });
        int32_t len = kh_const(&h, RT_TYPE_INT32, 1, (int32_t[]){ 2 }, (int32_t[]){ 2, 3 });
        int32_t out = kh_tensor(&h, RT_TYPE_COMPLEX64, 0, NULL, NULL);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_rfft2d, NULL, (int32_t[]){ in, len }, 2, &out, 1), -EINVAL);
        ck_assert_ptr_nonnull(strstr(h.error, "powers of two"));
        kh_done(&h);
}
END_TEST

START_TEST(test_complex_abs_real_imag) {
        const float z[4] = { 3, 4, -5, 12 };
        const rt_registration_t *regs[3] = { &rt_kernel_complex_abs, &rt_kernel_real, &rt_kernel_imag };
        const float want[3][2] = { { 5, 13 }, { 3, -5 }, { 4, 12 } };
        for (int r = 0; r < 3; r++) {
                kh_t h;
                kh_init(&h);
                int32_t in = kh_tensor(&h, RT_TYPE_COMPLEX64, 1, (int32_t[]){ 2 }, z);
                int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
                ck_assert_int_eq(kh_run(&h, regs[r], NULL, &in, 1, &out, 1), 0);
                ck_assert_int_eq(h.tensors[out].dims[0], 2);
                const float *y = h.tensors[out].data;
                ck_assert_float_eq(y[0], want[r][0]);
                ck_assert_float_eq(y[1], want[r][1]);
                kh_done(&h);
        }
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 1, (int32_t[]){ 2 }, (float[]){ 1, 2 });
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_complex_abs, NULL, &in, 1, &out, 1), -EINVAL);
        kh_done(&h);
}
END_TEST

int main(void) {
        Suite *s = suite_create("kernels-sequence-fft");
        TCase *tc = tcase_create("fft");
        tcase_add_test(tc, test_rfft2d_constant_signal);
        tcase_add_test(tc, test_rfft2d_matches_direct_dft);
        tcase_add_test(tc, test_rfft2d_crops_and_pads);
        tcase_add_test(tc, test_rfft2d_width_one_follows_tflite);
        tcase_add_test(tc, test_rfft2d_rejects_non_power_of_two);
        tcase_add_test(tc, test_complex_abs_real_imag);
        suite_add_tcase(s, tc);
        SRunner *sr = srunner_create(s);
        srunner_run_all(sr, CK_NORMAL);
        int failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
