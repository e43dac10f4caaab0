/* SPDX-License-Identifier: Apache-2.0 */
/*
 * int16 LOGISTIC/TANH at general input scales (lut16.c): the generated
 * sigmoid table, the Prepare-time rescaling and the interpolating kernels.
 * Pinned values were computed apart from the C code (Python, from the
 * formulas in lut16.c and TFLite 2.9's integer steps).
 */
#include <errno.h>

#include "ew-test.h"
#include "lut16.h"

START_TEST(test_lut16_table_properties) {
        const uint16_t *t = ew_lut16_sigmoid_table();
        ck_assert_ptr_eq(t, ew_lut16_sigmoid_table());
        ck_assert_uint_eq(t[0], 32768);   /* sigmoid(0) = 1/2 */
        ck_assert_uint_eq(t[255], 65535); /* the limit, clipped to 16 bits */
        for (int i = 0; i < 255; i++) {
                ck_assert_msg(t[i] <= t[i + 1], "table not monotone at %d", i);
                /* Near the sampled function: the sag correction is
                 * below 0.69 units (|sigmoid''| < 0.097), rounding adds
                 * half a unit. */
                const double s = 65536.0 / (1.0 + exp(-i / 24.0));
                ck_assert_msg(fabs(t[i] - s) < 1.2, "entry %d = %u, sigmoid %.3f", i, t[i], s);
        }
        /* A few entries, each the sample lowered by half the chord sag. */
        ck_assert_uint_eq(t[1], 33451);
        ck_assert_uint_eq(t[7], 37513);
        ck_assert_uint_eq(t[8], 38180);
        ck_assert_uint_eq(t[24], 47911);
        ck_assert_uint_eq(t[100], 64536);
        ck_assert_uint_eq(t[200], 65520);
        ck_assert_uint_eq(t[254], 65534);
}
END_TEST

START_TEST(test_lut16_rescale_multiplier_and_shift) {
        int32_t mul = -1;
        int shift = -1;
        /* 0.0003f * 12288 = 3.6864, doubled 13 times past 16383.5: 30198.99,
         * truncated. */
        ck_assert_int_eq(ew_lut16_rescale(0.0003f, &mul, &shift), 0);
        ck_assert_int_eq(mul, 30198);
        ck_assert_int_eq(shift, 13);
        ck_assert_int_eq(ew_lut16_rescale(1.0f / 1024, &mul, &shift), 0);
        ck_assert_int_eq(mul, 24576);
        ck_assert_int_eq(shift, 11);
        /* Above 4/3 no doubling. */
        ck_assert_int_eq(ew_lut16_rescale(3.0f, &mul, &shift), 0);
        ck_assert_int_eq(mul, 36864);
        ck_assert_int_eq(shift, 0);

        mul = 7, shift = 7;
        ck_assert_int_eq(ew_lut16_rescale(0.0f, &mul, &shift), -ERANGE);
        ck_assert_int_eq(ew_lut16_rescale(-1.0f, &mul, &shift), -ERANGE);
        ck_assert_int_eq(ew_lut16_rescale(INFINITY, &mul, &shift), -ERANGE);
        ck_assert_int_eq(ew_lut16_rescale(1e6f, &mul, &shift), -ERANGE);
        ck_assert_int_eq(ew_lut16_rescale(1e-20f, &mul, &shift), -ERANGE);
        ck_assert_int_eq(mul, 7); /* outputs untouched on failure */
        ck_assert_int_eq(shift, 7);
}
END_TEST

static const int16_t probe_in[] = { 0, 1, -1, 1000, -1000, 5000, -5000, 32767, -32768 };

static void run_probe(const rt_registration_t *reg, float in_scale, const int16_t *want) {
        const int n = (int) EW_ARRAY_SIZE(probe_in);
        kh_t h;
        kh_init(&h);
        int32_t a = kh_tensor(&h, RT_TYPE_INT16, 1, DIMS(n), probe_in);
        int32_t o = kh_tensor(&h, RT_TYPE_INT16, 0, NULL, NULL);
        kh_quant(&h, a, in_scale, 0);
        kh_quant(&h, o, 1.0f / 32768, 0);
        ck_assert_int_eq(ew_run1(&h, reg, NULL, a, o), 0);
        const int16_t *z = h.tensors[o].data;
        for (int i = 0; i < n; i++)
                ck_assert_msg(z[i] == want[i], "%s(%d) at scale %g = %d, want %d", reg->name,
                              probe_in[i], (double) in_scale, z[i], want[i]);
        kh_done(&h);
}

/* Scales TFLite's fixed-point kernels do not take (the old kernels refused
 * them with -ENOTSUP): exact values of TFLite's table path. Note the
 * saturation ends, 32767 / 2 for logistic and +-32767 for tanh, and the
 * rounding of the rescaled input (0.0003 * 1000 lands 0.4 of a step off). */
START_TEST(test_lut16_logistic_tanh_exact_values) {
        run_probe(&rt_kernel_logistic, 0.0003f,
                  (const int16_t[]){ 16384, 16387, 16381, 18823, 13945, 26790, 5978, 32766, 2 });
        run_probe(&rt_kernel_tanh, 0.0003f,
                  (const int16_t[]){ 0, 11, -11, 9545, -9545, 29660, -29660, 32767, -32767 });
        /* 2^-10: a power of two, but past the fixed-point kernels' shifts. */
        run_probe(&rt_kernel_logistic, 1.0f / 1024,
                  (const int16_t[]){ 16384, 16392, 16376, 23803, 8965, 32521, 247, 32767, 1 });
        run_probe(&rt_kernel_tanh, 1.0f / 1024,
                  (const int16_t[]){ 0, 32, -32, 24628, -24628, 32764, -32764, 32767, -32767 });
}
END_TEST

/* Every int16 input: monotone, and close to the real functions (bounds
 * measured with the Python model: 1.34 and 2.73 steps). */
static void sweep(const rt_registration_t *reg, float in_scale, double (*f)(double),
                  double max_steps) {
        static int16_t in[65536];
        for (int i = 0; i < 65536; i++)
                in[i] = (int16_t) (i - 32768);
        kh_t h;
        kh_init(&h);
        int32_t a = kh_tensor(&h, RT_TYPE_INT16, 1, DIMS(65536), in);
        int32_t o = kh_tensor(&h, RT_TYPE_INT16, 0, NULL, NULL);
        kh_quant(&h, a, in_scale, 0);
        kh_quant(&h, o, 1.0f / 32768, 0);
        ck_assert_int_eq(ew_run1(&h, reg, NULL, a, o), 0);
        const int16_t *z = h.tensors[o].data;
        /* One assertion per property: Check's assertions are slow in
         * bulk (and under ASan). */
        int worst = 0, not_monotone = -1;
        double worst_err = 0;
        for (int i = 0; i < 65536; i++) {
                const double err = fabs(z[i] - 32768.0 * f((double) in_scale * in[i]));
                if (err > worst_err)
                        worst_err = err, worst = i;
                if (i && z[i - 1] > z[i] && not_monotone < 0)
                        not_monotone = i;
        }
        ck_assert_msg(worst_err <= max_steps, "%s(%d) = %d, %.2f steps off", reg->name, in[worst],
                      z[worst], worst_err);
        ck_assert_msg(not_monotone < 0, "%s not monotone at %d", reg->name,
                      not_monotone < 0 ? 0 : in[not_monotone]);
        kh_done(&h);
}

static double sigmoid(double x) {
        return 1.0 / (1.0 + exp(-x));
}

START_TEST(test_lut16_sweep_monotone_and_close) {
        sweep(&rt_kernel_logistic, 0.0003f, sigmoid, 1.5);
        sweep(&rt_kernel_tanh, 0.0003f, tanh, 3.0);
        sweep(&rt_kernel_logistic, 0.01f, sigmoid, 1.5);
        sweep(&rt_kernel_tanh, 0.01f, tanh, 3.0);
}
END_TEST

/* What still fails Prepare: zero points and output scales, as TFLite. */
START_TEST(test_lut16_prepare_refusals) {
        kh_t h;
        kh_init(&h);
        int32_t a = kh_tensor(&h, RT_TYPE_INT16, 1, DIMS(2), ((const int16_t[]){ 0, 0 }));
        int32_t o = kh_tensor(&h, RT_TYPE_INT16, 0, NULL, NULL);
        kh_quant(&h, a, 0.0003f, 0);
        kh_quant(&h, o, 1.0f / 16384, 0);
        ck_assert_int_eq(ew_run1(&h, &rt_kernel_logistic, NULL, a, o), -EINVAL);
        kh_done(&h);

        kh_init(&h);
        a = kh_tensor(&h, RT_TYPE_INT16, 1, DIMS(2), ((const int16_t[]){ 0, 0 }));
        o = kh_tensor(&h, RT_TYPE_INT16, 0, NULL, NULL);
        kh_quant(&h, a, 0.0003f, 3);
        kh_quant(&h, o, 1.0f / 32768, 0);
        ck_assert_int_eq(ew_run1(&h, &rt_kernel_tanh, NULL, a, o), -EINVAL);
        kh_done(&h);
}
END_TEST

static Suite *lut16_suite(void) {
        Suite *s = suite_create("elementwise-lut16");
        TCase *tc = tcase_create("core");
        tcase_add_test(tc, test_lut16_table_properties);
        tcase_add_test(tc, test_lut16_rescale_multiplier_and_shift);
        tcase_add_test(tc, test_lut16_logistic_tanh_exact_values);
        tcase_add_test(tc, test_lut16_sweep_monotone_and_close);
        tcase_add_test(tc, test_lut16_prepare_refusals);
        suite_add_tcase(s, tc);
        return s;
}

EW_MAIN(lut16_suite)
