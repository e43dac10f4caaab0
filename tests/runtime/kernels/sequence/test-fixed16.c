/* SPDX-License-Identifier: Apache-2.0 */
#include <check.h>
#include <math.h>
#include <stdlib.h>

#include "fixed16.h"

START_TEST(test_fixed16_special_values) {
        ck_assert_int_eq(f16_logistic(0, 3), 16384);
        ck_assert_int_eq(f16_tanh(0, 3), 0);
        ck_assert_int_eq(f16_srdhm(INT16_MIN, INT16_MIN), INT16_MAX);
        ck_assert_int_eq(f16_srdhm(16384, 16384), 8192);
        ck_assert_int_eq(f16_rdivpot(5, 1), 3);
        ck_assert_int_eq(f16_rdivpot(-5, 1), -3);
        ck_assert_int_eq(f16_srmulpot(20000, 1), INT16_MAX);
        ck_assert_int_eq(f16_srmulpot(-20000, 1), INT16_MIN);
        ck_assert_int_eq(f16_srmulpot(1000, 2), 4000);
        /* exp(0) is exactly one in Q0.15 */
        ck_assert_int_eq(f16_exp_on_negative_values(0, 3), INT16_MAX);
        /* 1/(1+0) saturates to one */
        ck_assert_int_ge(f16_one_over_one_plus_x(0), 32766);
}
END_TEST


/* Published input/output pairs of TFLite's int16 ApplySigmoid / ApplyTanh. */
static const int16_t sig_in[30] = {
        -10500, 1398, -6963, -7404, 485, -5401, -1757, -7668, -19248, -9692,
        -24249, -17923, -15840, -10026, 5249, -89, 1787, -16178, -6691, -19524,
        -13439, -24048, -1123, 32767, -17267, -3378, 823, 11482, -11139, 7508,
};
static const int16_t sig_out[30] = {
        2339, 19152, 5063, 4617, 17350, 6917, 12921, 4371, 299, 2813,
        89, 409, 673, 2605, 25646, 16207, 19904, 615, 5353, 273,
        1187, 91, 14153, 32756, 475, 9983, 18026, 30898, 2023, 28246,
};
static const int16_t tanh3_in[30] = {
        -145, 899, -176, -35, 264, 289, 8, 27, -37, -1310,
        -120, 127, -16, 106, 370, -583, -299, 93, -548, 548,
        653, -29, -53, 1058, -52, -164, -149, -635, 201, -1297,
};
static const int16_t tanh3_out[30] = {
        -1156, 7076, -1412, -276, 2104, 2308, 64, 220, -288, -10132,
        -964, 1016, -120, 844, 2944, -4640, -2392, 736, -4352, 4352,
        5180, -232, -428, 8276, -412, -1308, -1196, -5044, 1612, -10044,
};
static const int16_t tanh4_in[30] = {
        -5, 163, -31, -5, 54, 90, 1, 2, -4, -42, -8, 29, 0, 47, 150,
        -26, -36, 9, -73, 25, 14, -2, -1, 29, -10, -12, -18, -29, 51, -92,
};
static const int16_t tanh4_out[30] = {
        -76, 2596, -496, -76, 856, 1436, 24, 36, -64, -672,
        -120, 456, 0, 752, 2400, -412, -576, 148, -1168, 400,
        216, -36, -24, 456, -164, -192, -292, -456, 820, -1476,
};

START_TEST(test_fixed16_matches_tflite_vectors) {
        for (int i = 0; i < 30; i++) {
                ck_assert_msg(f16_logistic(sig_in[i], 3) == sig_out[i], "sigmoid(%d) = %d, want %d", sig_in[i],
                              f16_logistic(sig_in[i], 3), sig_out[i]);
                ck_assert_msg(f16_tanh(tanh3_in[i], 3) == tanh3_out[i], "tanh3(%d) = %d, want %d", tanh3_in[i],
                              f16_tanh(tanh3_in[i], 3), tanh3_out[i]);
                ck_assert_msg(f16_tanh(tanh4_in[i], 4) == tanh4_out[i], "tanh4(%d) = %d, want %d", tanh4_in[i],
                              f16_tanh(tanh4_in[i], 4), tanh4_out[i]);
        }
}
END_TEST

/* Every Q3.12 input: logistic within 6 LSB (gemmlowp's int16 accuracy) of the real function and
 * logistic(-x) + logistic(x) == one. */
START_TEST(test_fixed16_logistic_accuracy) {
        int max_err = 0;
        for (int32_t x = INT16_MIN + 1; x <= INT16_MAX; x++) {
                double ref = 32768.0 / (1.0 + exp(-(double) x / 4096.0));
                int16_t got = f16_logistic((int16_t) x, 3);
                int err = (int) fabs(got - ref);
                if (err > max_err)
                        max_err = err;
                if (x > 0)
                        ck_assert_int_eq(got + f16_logistic((int16_t) -x, 3), INT16_MAX);
        }
        ck_assert_int_le(max_err, 6);  /* gemmlowp int16 accuracy */
}
END_TEST

START_TEST(test_fixed16_tanh_accuracy) {
        for (int ib = 0; ib <= 6; ib++) {
                int max_err = 0;
                for (int32_t x = INT16_MIN + 1; x <= INT16_MAX; x++) {
                        double ref = 32768.0 * tanh((double) x / (double) (1 << (15 - ib)));
                        if (ref > 32767.0)
                                ref = 32767.0;
                        int16_t got = f16_tanh((int16_t) x, ib);
                        int err = (int) fabs(got - ref);
                        if (err > max_err)
                                max_err = err;
                        ck_assert_int_eq(f16_tanh((int16_t) -x, ib), -got);
                }
                ck_assert_msg(max_err <= 12, "tanh ib %d: max error %d", ib, max_err);
        }
}
END_TEST

int main(void) {
        Suite *s = suite_create("kernels-sequence-fixed16");
        TCase *tc = tcase_create("fixed16");
        tcase_add_test(tc, test_fixed16_special_values);
        tcase_add_test(tc, test_fixed16_matches_tflite_vectors);
        tcase_add_test(tc, test_fixed16_logistic_accuracy);
        tcase_add_test(tc, test_fixed16_tanh_accuracy);
        suite_add_tcase(s, tc);
        SRunner *sr = srunner_create(s);
        srunner_run_all(sr, CK_NORMAL);
        int failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
