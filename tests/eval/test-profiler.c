/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The local runner, random inputs and the inference profiler on small
 * models written with tflite-builder (no shared files needed).
 */
#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "eval.h"
#include "tflite-builder.h"

static char add_path[64], mul_path[64];

/* out = in + c (float32 [1, 8]), or in * c with `mul`. */
static void model_write(char *path, bool mul) {
        static const float c[8] = { 0.5f, -1, 2, 0.25f, 0, 1, -0.5f, 3 };
        tfb_t *b = tfb_new();
        int32_t in = tfb_tensor(b, RT_TYPE_FLOAT32, "in", 2, TFB_DIMS(1, 8));
        int32_t k = tfb_tensor_const(b, RT_TYPE_FLOAT32, "c", 2, TFB_DIMS(1, 8), c, sizeof(c));
        int32_t out = tfb_tensor(b, RT_TYPE_FLOAT32, "out", 2, TFB_DIMS(1, 8));
        size_t size;

        tfb_op_add(b, &(tfb_op_t) {
                .opcode = tfb_opcode_builtin(b, mul ? RT_BUILTIN_MUL : RT_BUILTIN_ADD, 1),
                .inputs = TFB_IDS(in, k), .n_inputs = 2,
                .outputs = TFB_IDS(out), .n_outputs = 1,
                .options_type = mul ? RT_OPTIONS_MUL : RT_OPTIONS_ADD,
        });
        tfb_io(b, TFB_IDS(in), 1, TFB_IDS(out), 1);
        uint8_t *bytes = tfb_finish(b, &size);
        ck_assert_ptr_nonnull(bytes);
        tfb_free(b);
        strcpy(path, "/tmp/test-eval-XXXXXX");
        int fd = mkstemp(path);
        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(write(fd, bytes, size), (ssize_t) size);
        close(fd);
        free(bytes);
}

static void setup(void) {
        model_write(add_path, false);
        model_write(mul_path, true);
}

static void teardown(void) {
        unlink(add_path);
        unlink(mul_path);
}

START_TEST(test_local_runner_tensors_and_invoke) {
        eval_runner_t *r = NULL;
        eval_tensor_t in, out;
        char err[512] = "";

        ck_assert_msg(eval_runner_local_new(add_path, "{\"delegate\":\"NONE\"}", &r, err, sizeof(err)) == 0, "%s",
                      err);
        ck_assert_str_eq(r->description, "local, reference 1 node");
        ck_assert_int_eq(eval_runner_input_count(r), 1);
        ck_assert_int_eq(eval_runner_output_count(r), 1);
        ck_assert_int_eq(eval_runner_input(r, 0, &in), 0);
        ck_assert_int_eq(eval_runner_input(r, 1, &in), -EINVAL);
        ck_assert_int_eq(eval_runner_input(r, 0, &in), 0);
        ck_assert_int_eq(in.type, 0);
        ck_assert_int_eq(in.rank, 2);
        ck_assert_int_eq(in.dims[1], 8);
        ck_assert_uint_eq(in.bytes, 32);
        ck_assert_str_eq(in.name, "in");
        for (int i = 0; i < 8; i++)
                ((float *) in.data)[i] = (float) i;
        ck_assert_int_eq(eval_runner_invoke(r), 0);
        ck_assert_int_eq(eval_runner_output(r, 0, &out), 0);
        ck_assert_double_eq(eval_tensor_value(&out, 0), 0.5);
        ck_assert_double_eq(eval_tensor_value(&out, 7), 10.0);
        eval_runner_free(r);
        ck_assert_int_eq(eval_runner_local_new("/nonexistent.tflite", NULL, &r, err, sizeof(err)), -ENOENT);
        ck_assert_int_eq(eval_runner_local_new(add_path, "{\"delegate\":", &r, err, sizeof(err)), -EINVAL);
        ck_assert_msg(strncmp(err, "settings: ", 10) == 0, "%s", err);
}
END_TEST

START_TEST(test_random_tensors_ranges_and_seed) {
        float f[1000];
        uint8_t u[1000];
        int32_t i32[1000];
        eval_tensor_t tf = { .type = 0, .rank = 1, .dims = { 1000 }, .data = f };
        eval_tensor_t tu = { .type = 3, .rank = 1, .dims = { 1000 }, .data = u };
        eval_tensor_t ti = { .type = 2, .rank = 1, .dims = { 1000 }, .data = i32 };
        eval_tensor_t ts = { .type = 5, .rank = 1, .dims = { 1 }, .data = u };
        eval_rng_t rng;
        bool low = false, high = false, neg = false, pos = false;

        eval_rng_seed(&rng, 7);
        ck_assert_int_eq(eval_tensor_randomize(&tf, &rng), 0);
        ck_assert_int_eq(eval_tensor_randomize(&tu, &rng), 0);
        ck_assert_int_eq(eval_tensor_randomize(&ti, &rng), 0);
        ck_assert_int_eq(eval_tensor_randomize(&ts, &rng), -ENOTSUP);
        for (int i = 0; i < 1000; i++) {
                ck_assert(f[i] >= -1.0f && f[i] < 1.0f);
                neg |= f[i] < -0.9f;
                pos |= f[i] > 0.9f;
                low |= u[i] < 10;
                high |= u[i] > 245;
                ck_assert(i32[i] >= 0 && i32[i] < 1000);
        }
        ck_assert(neg && pos && low && high);
        /* The same seed gives the same values. */
        float g[1000];
        eval_tensor_t tg = tf;
        tg.data = g;
        eval_rng_seed(&rng, 7);
        ck_assert_int_eq(eval_tensor_randomize(&tg, &rng), 0);
        ck_assert_int_eq(memcmp(f, g, sizeof(f)), 0);
        eval_rng_seed(&rng, 8);
        ck_assert_int_eq(eval_tensor_randomize(&tg, &rng), 0);
        ck_assert_int_ne(memcmp(f, g, sizeof(f)), 0);
}
END_TEST

START_TEST(test_profiler_same_setting_no_error) {
        eval_runner_t *ref = NULL, *test = NULL;
        eval_profiler_metrics_t m;
        char err[512] = "";

        ck_assert_int_eq(eval_runner_local_new(add_path, "{\"delegate\":\"NONE\"}", &ref, err, sizeof(err)), 0);
        ck_assert_int_eq(eval_runner_local_new(add_path, "{\"delegate\":\"NONE\"}", &test, err, sizeof(err)), 0);
        ck_assert_msg(eval_profiler_run(ref, test, 5, 1, NULL, NULL, &m, err, sizeof(err)) == 0, "%s", err);
        ck_assert_int_eq(m.runs, 5);
        ck_assert_uint_eq(m.n_output_errors, 1);
        ck_assert_float_eq(m.output_errors[0].max_value, 0.0f);
        ck_assert_double_eq(m.output_errors[0].avg_value, 0.0);
        ck_assert_int_ge(m.reference_latency.sum_us, m.reference_latency.max_us);
        ck_assert_int_le(m.test_latency.min_us, m.test_latency.max_us);
        json_object *o = eval_json_profiler(&m);
        json_object *p, *errs;
        ck_assert(json_object_object_get_ex(o, "inferenceProfilerMetrics", &p));
        ck_assert(json_object_object_get_ex(p, "outputErrors", &errs));
        ck_assert_uint_eq(json_object_array_length(errs), 1);
        ck_assert(json_object_object_get_ex(o, "totalLatency", &p));
        json_object_put(o);
        eval_profiler_metrics_done(&m);
        eval_runner_free(ref);
        eval_runner_free(test);
}
END_TEST

START_TEST(test_profiler_different_model_measures_the_difference) {
        /* ADD vs MUL by c on the same inputs x (seed 3): per run the error
         * is mean_i |x_i + c_i - x_i c_i|, recomputed here from the same
         * random sequence. */
        static const float c[8] = { 0.5f, -1, 2, 0.25f, 0, 1, -0.5f, 3 };
        eval_runner_t *ref = NULL, *test = NULL;
        eval_profiler_metrics_t m;
        char err[512] = "";
        eval_stats_t want = {};
        eval_rng_t rng;

        ck_assert_int_eq(eval_runner_local_new(add_path, NULL, &ref, err, sizeof(err)), 0);
        ck_assert_int_eq(eval_runner_local_new(mul_path, NULL, &test, err, sizeof(err)), 0);
        ck_assert_msg(eval_profiler_run(ref, test, 4, 3, NULL, NULL, &m, err, sizeof(err)) == 0, "%s", err);
        eval_rng_seed(&rng, 3);
        for (int run = 0; run < 4; run++) {
                float x[8];
                eval_tensor_t t = { .type = 0, .rank = 2, .dims = { 1, 8 }, .data = x };
                double sum = 0;
                ck_assert_int_eq(eval_tensor_randomize(&t, &rng), 0);
                for (int i = 0; i < 8; i++)
                        sum += fabs((double) (x[i] + c[i]) - (double) (x[i] * c[i]));
                eval_stats_add(&want, sum / 8);
        }
        ck_assert_float_eq_tol(m.output_errors[0].max_value, (float) want.max, 1e-6);
        ck_assert_float_eq_tol(m.output_errors[0].min_value, (float) want.min, 1e-6);
        ck_assert_double_eq_tol(m.output_errors[0].avg_value, want.sum / 4, 1e-6);
        ck_assert_float_eq_tol(m.output_errors[0].std_deviation, (float) eval_stats_std_deviation(&want), 1e-6);
        ck_assert_float_gt(m.output_errors[0].min_value, 0.1f);
        eval_profiler_metrics_done(&m);
        ck_assert_int_eq(eval_profiler_run(ref, test, 0, 3, NULL, NULL, &m, err, sizeof(err)), -EINVAL);
        eval_runner_free(ref);
        eval_runner_free(test);
}
END_TEST

int main(void) {
        Suite *s = suite_create("eval-profiler");
        TCase *tc = tcase_create("profiler");
        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_add_test(tc, test_local_runner_tensors_and_invoke);
        tcase_add_test(tc, test_random_tensors_ranges_and_seed);
        tcase_add_test(tc, test_profiler_same_setting_no_error);
        tcase_add_test(tc, test_profiler_different_model_measures_the_difference);
        suite_add_tcase(s, tc);
        SRunner *sr = srunner_create(s);
        srunner_run_all(sr, CK_NORMAL);
        int failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed ? 1 : 0;
}
