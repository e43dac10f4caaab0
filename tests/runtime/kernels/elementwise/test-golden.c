/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Single-op models from ../shared/models run through the elementwise kernels
 * directly (no reader or executor): inputs and goldens come from the golden
 * files, quantization parameters from the manifest. TFLite 2.9 produced the
 * goldens; integer results must match them exactly.
 *
 * Skipped (exit 77) when ACCELD_SHARED_DIR has no models/golden folder.
 */
#include <stdio.h>
#include <string.h>

#include "ew-test.h"

static char golden_dir[1024];

static void *read_file(const char *model, const char *name, size_t want) {
        char path[1400];
        snprintf(path, sizeof(path), "%s/%s/%s", golden_dir, model, name);
        FILE *f = fopen(path, "rb");
        ck_assert_msg(f != NULL, "cannot open %s", path);
        void *buf = malloc(want);
        ck_assert_ptr_nonnull(buf);
        ck_assert_uint_eq(fread(buf, 1, want, f), want);
        ck_assert_int_eq(fgetc(f), EOF);
        fclose(f);
        return buf;
}

/* Count of elements differing from the golden; all must be equal. */
static void assert_same_i16(const int16_t *got, const int16_t *want, size_t n) {
        size_t diff = 0, first = n;
        for (size_t i = 0; i < n; i++)
                if (got[i] != want[i]) {
                        if (first == n)
                                first = i;
                        diff++;
                }
        ck_assert_msg(diff == 0, "%zu of %zu differ, first at %zu: %d vs golden %d", diff, n,
                      first, first < n ? got[first] : 0, first < n ? want[first] : 0);
}

START_TEST(test_golden_seanet_add0_int16) {
        const size_t n = 5 * 64;
        int16_t *x = read_file("seanet_add0", "input_0.bin", n * 2);
        int16_t *y = read_file("seanet_add0", "input_1.bin", n * 2);
        int16_t *want = read_file("seanet_add0", "output_0.bin", n * 2);
        kh_t h;
        kh_init(&h);
        int32_t a = kh_tensor(&h, RT_TYPE_INT16, 4, DIMS(1, 1, 5, 64), x);
        int32_t b = kh_tensor(&h, RT_TYPE_INT16, 4, DIMS(1, 1, 5, 64), y);
        int32_t o = kh_tensor(&h, RT_TYPE_INT16, 0, NULL, NULL);
        kh_quant(&h, a, 0.0005852500908076763f, 0);
        kh_quant(&h, b, 0.0008069296018220484f, 0);
        kh_quant(&h, o, 0.0010244421428069472f, 0);
        ew_arith_params_t p = { .activation = RT_ACT_NONE, .pot_scale_int16 = true };
        ck_assert_int_eq(ew_run2(&h, &rt_kernel_add, &p, a, b, o), 0);
        assert_same_i16(h.tensors[o].data, want, n);
        kh_done(&h);
        free(x);
        free(y);
        free(want);
}
END_TEST

START_TEST(test_golden_seanet_sub0_int16_broadcast) {
        const size_t n = 2 * 12 * 64;
        int16_t *x = read_file("seanet_sub0", "input_0.bin", n * 2);
        int16_t *y = read_file("seanet_sub0", "input_1.bin", 64 * 2);
        int16_t *want = read_file("seanet_sub0", "output_0.bin", n * 2);
        kh_t h;
        kh_init(&h);
        int32_t a = kh_tensor(&h, RT_TYPE_INT16, 4, DIMS(1, 2, 12, 64), x);
        int32_t b = kh_tensor(&h, RT_TYPE_INT16, 1, DIMS(64), y);
        int32_t o = kh_tensor(&h, RT_TYPE_INT16, 0, NULL, NULL);
        kh_quant(&h, a, 0.0009693715837784111f, 0);
        kh_quant(&h, b, 8.709842404641677e-06f, 0);
        kh_quant(&h, o, 0.0005941494018770754f, 0);
        ew_arith_params_t p = { .activation = RT_ACT_NONE, .pot_scale_int16 = true };
        ck_assert_int_eq(ew_run2(&h, &rt_kernel_sub, &p, a, b, o), 0);
        assert_same_i16(h.tensors[o].data, want, n);
        kh_done(&h);
        free(x);
        free(y);
        free(want);
}
END_TEST

START_TEST(test_golden_seanet_leaky_relu0_int16) {
        const size_t n = 2 * 160 * 8;
        int16_t *x = read_file("seanet_leaky_relu0", "input_0.bin", n * 2);
        int16_t *want = read_file("seanet_leaky_relu0", "output_0.bin", n * 2);
        kh_t h;
        kh_init(&h);
        int32_t a = kh_tensor(&h, RT_TYPE_INT16, 4, DIMS(1, 2, 160, 8), x);
        int32_t o = kh_tensor(&h, RT_TYPE_INT16, 0, NULL, NULL);
        kh_quant(&h, a, 0.0017488234443590045f, 0);
        kh_quant(&h, o, 0.0017488234443590045f, 0);
        /* The model's LeakyReluOptions.alpha. */
        ew_leaky_relu_params_t p = { .alpha = 0.3f };
        ck_assert_int_eq(ew_run1(&h, &rt_kernel_leaky_relu, &p, a, o), 0);
        assert_same_i16(h.tensors[o].data, want, n);
        kh_done(&h);
        free(x);
        free(want);
}
END_TEST

START_TEST(test_golden_seanet_quantize0_int32_to_int16) {
        const size_t n = 2 * 160 * 2;
        int32_t *x = read_file("seanet_quantize0", "input_0.bin", n * 4);
        int16_t *want = read_file("seanet_quantize0", "output_0.bin", n * 2);
        kh_t h;
        kh_init(&h);
        int32_t a = kh_tensor(&h, RT_TYPE_INT32, 4, DIMS(1, 2, 160, 2), x);
        int32_t o = kh_tensor(&h, RT_TYPE_INT16, 0, NULL, NULL);
        kh_quant(&h, a, 1.4901161193847656e-07f, 0);
        kh_quant(&h, o, 0.0009219714556820691f, 0);
        ck_assert_int_eq(ew_run1(&h, &rt_kernel_quantize, NULL, a, o), 0);
        assert_same_i16(h.tensors[o].data, want, n);
        kh_done(&h);
        free(x);
        free(want);
}
END_TEST

START_TEST(test_golden_simple_add_model_int8) {
        const size_t n = 128 * 128;
        int8_t *x = read_file("simple_add_model", "input_0.bin", n);
        int8_t *y = read_file("simple_add_model", "input_1.bin", n);
        int8_t *want = read_file("simple_add_model", "output_0.bin", n);
        kh_t h;
        kh_init(&h);
        int32_t a = kh_tensor(&h, RT_TYPE_INT8, 4, DIMS(1, 128, 128, 1), x);
        int32_t b = kh_tensor(&h, RT_TYPE_INT8, 4, DIMS(1, 128, 128, 1), y);
        int32_t o = kh_tensor(&h, RT_TYPE_INT8, 0, NULL, NULL);
        kh_quant(&h, a, 0.04072536528110504f, -2);
        kh_quant(&h, b, 0.04124561324715614f, -1);
        kh_quant(&h, o, 0.05837741121649742f, -3);
        ew_arith_params_t p = { .activation = RT_ACT_NONE };
        ck_assert_int_eq(ew_run2(&h, &rt_kernel_add, &p, a, b, o), 0);
        const int8_t *z = h.tensors[o].data;
        size_t diff = 0;
        for (size_t i = 0; i < n; i++)
                diff += z[i] != want[i];
        ck_assert_uint_eq(diff, 0);
        kh_done(&h);
        free(x);
        free(y);
        free(want);
}
END_TEST

static Suite *golden_suite(void) {
        Suite *s = suite_create("elementwise-golden");
        TCase *tc = tcase_create("core");
        tcase_add_test(tc, test_golden_seanet_add0_int16);
        tcase_add_test(tc, test_golden_seanet_sub0_int16_broadcast);
        tcase_add_test(tc, test_golden_seanet_leaky_relu0_int16);
        tcase_add_test(tc, test_golden_seanet_quantize0_int32_to_int16);
        tcase_add_test(tc, test_golden_simple_add_model_int8);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        const char *shared = getenv("ACCELD_SHARED_DIR");
        if (!shared) {
                fprintf(stderr, "SKIP: ACCELD_SHARED_DIR is not set\n");
                return 77;
        }
        snprintf(golden_dir, sizeof(golden_dir), "%s/models/golden", shared);
        char probe[1100];
        snprintf(probe, sizeof(probe), "%s/seanet_add0/input_0.bin", golden_dir);
        FILE *f = fopen(probe, "rb");
        if (!f) {
                fprintf(stderr, "SKIP: no golden data under %s\n", golden_dir);
                return 77;
        }
        fclose(f);
        SRunner *sr = srunner_create(golden_suite());
        srunner_run_all(sr, CK_NORMAL);
        int failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
