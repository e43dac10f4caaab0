/* SPDX-License-Identifier: Apache-2.0 */
/*
 * accelctl inspect / run --local (client/accelctl-local.c), called directly
 * with stdout captured. Uses models from ../shared; skips (77) without them.
 */
#include <check.h>
#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "accelctl-local.h"
#include "cleanup.h"

static const char *models;
static char tmpdir[256];

/* Run fn(argv) with stdout and stderr captured; returns its exit code. */
static int capture(int (*fn)(int, char **), char **argv, char *out, size_t out_size, char *err,
                   size_t err_size) {
        int argc = 0;
        while (argv[argc])
                argc++;
        FILE *fo = tmpfile(), *fe = tmpfile();
        ck_assert_ptr_nonnull(fo);
        ck_assert_ptr_nonnull(fe);
        fflush(stdout);
        fflush(stderr);
        int so = dup(1), se = dup(2);
        dup2(fileno(fo), 1);
        dup2(fileno(fe), 2);
        int rc = fn(argc, argv);
        fflush(stdout);
        fflush(stderr);
        dup2(so, 1);
        dup2(se, 2);
        close(so);
        close(se);
        rewind(fo);
        rewind(fe);
        size_t n = fread(out, 1, out_size - 1, fo);
        out[n] = 0;
        n = fread(err, 1, err_size - 1, fe);
        err[n] = 0;
        fclose(fo);
        fclose(fe);
        return rc;
}

static char *model(const char *name) {
        static char path[4][512];
        static int k;
        char *p = path[k++ % 4];
        snprintf(p, sizeof(path[0]), "%s/%s", models, name);
        return p;
}

static char out[65536], err[4096];

START_TEST(test_accelctl_inspect_json_describes_model) {
        char *argv[] = { "inspect", model("hello_world_float.tflite"), "--json", NULL };
        ck_assert_int_eq(capture(accelctl_local_inspect, argv, out, sizeof(out), err, sizeof(err)), 0);
        json_object *o = json_tokener_parse(out), *v, *x;
        ck_assert_msg(o, "not JSON: %s", out);
        ck_assert(json_object_object_get_ex(o, "inputs", &v));
        ck_assert_int_eq(json_object_array_length(v), 1);
        x = json_object_array_get_idx(v, 0);
        ck_assert(json_object_object_get_ex(x, "type", &v));
        ck_assert_str_eq(json_object_get_string(v), "float32");
        ck_assert(json_object_object_get_ex(x, "shape_signature", &v));
        ck_assert_int_eq(json_object_get_int(json_object_array_get_idx(v, 0)), -1);
        ck_assert(json_object_object_get_ex(x, "shape", &v));
        ck_assert_int_eq(json_object_get_int(json_object_array_get_idx(v, 0)), 1);
        ck_assert(json_object_object_get_ex(o, "ops", &v));
        ck_assert(json_object_object_get_ex(v, "FULLY_CONNECTED", &x));
        ck_assert_int_eq(json_object_get_int(x), 3);
        ck_assert(json_object_object_get_ex(o, "unsupported", &v));
        ck_assert_int_eq(json_object_array_length(v), 0);
        ck_assert(json_object_object_get_ex(o, "arena_bytes", &v));
        ck_assert_int_gt(json_object_get_int64(v), 0);
        ck_assert(json_object_object_get_ex(o, "signatures", &v));
        ck_assert_int_eq(json_object_array_length(v), 1);
        json_object_put(o);
}
END_TEST

START_TEST(test_accelctl_inspect_lists_unsupported_ops) {
        char *argv[] = { "inspect", "--json", model("malformed/model_invoking_error.tflite"), NULL };
        ck_assert_int_eq(capture(accelctl_local_inspect, argv, out, sizeof(out), err, sizeof(err)), 0);
        json_object *o = json_tokener_parse(out), *v, *x;
        ck_assert_msg(o, "not JSON: %s", out);
        ck_assert(json_object_object_get_ex(o, "unsupported", &v));
        ck_assert_int_eq(json_object_array_length(v), 1);
        ck_assert(json_object_object_get_ex(json_object_array_get_idx(v, 0), "message", &x));
        ck_assert_str_eq(json_object_get_string(x), "node 0: unresolved custom op 'fake-op-double'");
        ck_assert(json_object_object_get_ex(o, "arena_bytes", &v));
        ck_assert_ptr_null(v);
        json_object_put(o);
        char *text[] = { "inspect", model("malformed/model_invoking_error.tflite"), NULL };
        ck_assert_int_eq(capture(accelctl_local_inspect, text, out, sizeof(out), err, sizeof(err)), 0);
        ck_assert_ptr_nonnull(strstr(out, "unsupported ops:\n  node 0: unresolved custom op 'fake-op-double'"));
}
END_TEST

START_TEST(test_accelctl_inspect_refuses_malformed) {
        char *argv[] = { "inspect", model("malformed/bad_model.tflite"), NULL };
        ck_assert_int_eq(capture(accelctl_local_inspect, argv, out, sizeof(out), err, sizeof(err)), 1);
        ck_assert_ptr_nonnull(strstr(err, "bad_model.tflite"));
        char *usage[] = { "inspect", NULL };
        ck_assert_int_eq(capture(accelctl_local_inspect, usage, out, sizeof(out), err, sizeof(err)), 2);
}
END_TEST

START_TEST(test_accelctl_run_local_matches_golden) {
        char outfile[512];
        snprintf(outfile, sizeof(outfile), "%s/out0.bin", tmpdir);
        char *argv[] = { "run", "--local", model("hello_world_float.tflite"), "--settings",
                         "{\"delegate\":\"NONE\",\"cpu_settings\":{\"num_threads\":1}}", "--input",
                         model("golden/hello_world_float/input_0.bin"), "--output", outfile, "--runs", "2",
                         "--json", NULL };
        ck_assert_msg(capture(accelctl_local_run, argv, out, sizeof(out), err, sizeof(err)) == 0, "%s", err);
        json_object *o = json_tokener_parse(out), *v, *x;
        ck_assert_msg(o, "not JSON: %s", out);
        ck_assert(json_object_object_get_ex(o, "outputs", &v));
        ck_assert_int_eq(json_object_array_length(v), 1);
        ck_assert(json_object_object_get_ex(json_object_array_get_idx(v, 0), "shape", &x));
        ck_assert_int_eq(json_object_array_length(x), 2);
        ck_assert(json_object_object_get_ex(o, "timing_us", &v));
        ck_assert(json_object_object_get_ex(v, "runs", &x));
        ck_assert_int_eq(json_object_get_int(x), 2);
        json_object_put(o);
        float got, want;
        FILE *f = fopen(outfile, "rb");
        ck_assert_ptr_nonnull(f);
        ck_assert_uint_eq(fread(&got, 1, 4, f), 4);
        ck_assert_uint_eq(fread(&got, 1, 4, f), 0);  /* exactly one float */
        fclose(f);
        f = fopen(model("golden/hello_world_float/output_0.bin"), "rb");
        ck_assert_ptr_nonnull(f);
        ck_assert_uint_eq(fread(&want, 1, 4, f), 4);
        fclose(f);
        f = fopen(outfile, "rb");
        ck_assert_uint_eq(fread(&got, 1, 4, f), 4);
        fclose(f);
        ck_assert_msg(fabsf(got - want) <= 1e-4f, "got %g want %g", got, want);
        unlink(outfile);
}
END_TEST

START_TEST(test_accelctl_run_local_xnnpack) {
        char outfile[512];
        snprintf(outfile, sizeof(outfile), "%s/out-xnn.bin", tmpdir);
        char *argv[] = { "run", "--local", model("hello_world_float.tflite"), "--settings",
                         "{\"delegate\":\"XNNPACK\",\"xnnpack_settings\":{\"num_threads\":1}}", "--input",
                         model("golden/hello_world_float/input_0.bin"), "--output", outfile, "--json", NULL };
        ck_assert_msg(capture(accelctl_local_run, argv, out, sizeof(out), err, sizeof(err)) == 0, "%s", err);
        json_object *o = json_tokener_parse(out), *v, *x;
        ck_assert_msg(o, "not JSON: %s", out);
        ck_assert(json_object_object_get_ex(o, "delegate", &v));
        ck_assert_str_eq(json_object_get_string(v), "XNNPACK");
        ck_assert(json_object_object_get_ex(o, "partitions", &v));
        bool xnn = false;
        for (size_t i = 0; i < json_object_array_length(v); i++) {
                ck_assert(json_object_object_get_ex(json_object_array_get_idx(v, i), "driver", &x));
                xnn = xnn || strcmp(json_object_get_string(x), "xnnpack") == 0;
        }
        ck_assert_msg(xnn, "no xnnpack partition: %s", out);
        json_object_put(o);
        float got, want;
        FILE *f = fopen(outfile, "rb");
        ck_assert_ptr_nonnull(f);
        ck_assert_uint_eq(fread(&got, 1, 4, f), 4);
        fclose(f);
        f = fopen(model("golden/hello_world_float/output_0.bin"), "rb");
        ck_assert_ptr_nonnull(f);
        ck_assert_uint_eq(fread(&want, 1, 4, f), 4);
        fclose(f);
        ck_assert_msg(fabsf(got - want) <= 1e-3f, "got %g want %g", got, want);
        unlink(outfile);
}
END_TEST

START_TEST(test_accelctl_run_local_settings_errors) {
        char *gpu[] = { "run", "--local", model("hello_world_float.tflite"), "--settings",
                        "{\"delegate\":\"GPU\"}", "--input", model("golden/hello_world_float/input_0.bin"),
                        "--output", "/dev/null", NULL };
        ck_assert_int_eq(capture(accelctl_local_run, gpu, out, sizeof(out), err, sizeof(err)), 1);
        ck_assert_msg(strstr(err, "GPU"), "%s", err);
        char *bogus[] = { "run", "--local", model("hello_world_float.tflite"), "--settings",
                          "{\"delegate\":\"WARP_DRIVE\"}", "--input", "x", "--output", "y", NULL };
        ck_assert_int_eq(capture(accelctl_local_run, bogus, out, sizeof(out), err, sizeof(err)), 1);
        ck_assert_msg(strstr(err, "DEVICE_UNAVAILABLE") && strstr(err, "WARP_DRIVE"), "%s", err);
        char *threads[] = { "run", "--local", model("hello_world_float.tflite"), "--settings",
                            "{\"cpu_settings\":{\"num_threads\":-2}}", "--input", "x", "--output", "y", NULL };
        ck_assert_int_eq(capture(accelctl_local_run, threads, out, sizeof(out), err, sizeof(err)), 1);
        ck_assert_msg(strstr(err, "--settings:") && strstr(err, "num_threads"), "%s", err);
        char *notjson[] = { "run", "--local", model("hello_world_float.tflite"), "--settings", "{nope",
                            "--input", "x", "--output", "y", NULL };
        ck_assert_int_eq(capture(accelctl_local_run, notjson, out, sizeof(out), err, sizeof(err)), 1);
}
END_TEST

START_TEST(test_accelctl_run_local_checks_files) {
        char outfile[512];
        snprintf(outfile, sizeof(outfile), "%s/out1.bin", tmpdir);
        /* A 192-byte input for a 4-byte tensor. */
        char *size[] = { "run", "--local", model("hello_world_float.tflite"), "--input",
                         model("golden/split_concat/input_0.bin"), "--output", outfile, NULL };
        ck_assert_int_eq(capture(accelctl_local_run, size, out, sizeof(out), err, sizeof(err)), 1);
        ck_assert_ptr_nonnull(strstr(err, "expected 4 bytes (float32[1x1]), got 192"));
        char *count[] = { "run", "--local", model("hello_world_float.tflite"), "--input", "a", "b",
                          "--output", outfile, NULL };
        ck_assert_int_eq(capture(accelctl_local_run, count, out, sizeof(out), err, sizeof(err)), 2);
        ck_assert_ptr_nonnull(strstr(err, "got 2 --input and 1 --output files"));
        char *nofile[] = { "run", "--local", model("hello_world_float.tflite"), "--input", NULL };
        ck_assert_int_eq(capture(accelctl_local_run, nofile, out, sizeof(out), err, sizeof(err)), 2);
        ck_assert_int_eq(access(outfile, F_OK), -1);
}
END_TEST

int main(void) {
        const char *shared = getenv("ACCELD_SHARED_DIR");
        static char dir[512];
        if (!shared || snprintf(dir, sizeof(dir), "%s/models", shared) < 0 || access(dir, R_OK) < 0) {
                fprintf(stderr, "ACCELD_SHARED_DIR models not available: skipping\n");
                return 77;
        }
        models = dir;
        snprintf(tmpdir, sizeof(tmpdir), "/tmp/test-accelctl-local-XXXXXX");
        if (!mkdtemp(tmpdir))
                return 1;
        Suite *s = suite_create("accelctl-local");
        TCase *tc = tcase_create("local");
        tcase_add_test(tc, test_accelctl_inspect_json_describes_model);
        tcase_add_test(tc, test_accelctl_inspect_lists_unsupported_ops);
        tcase_add_test(tc, test_accelctl_inspect_refuses_malformed);
        tcase_add_test(tc, test_accelctl_run_local_matches_golden);
        tcase_add_test(tc, test_accelctl_run_local_xnnpack);
        tcase_add_test(tc, test_accelctl_run_local_settings_errors);
        tcase_add_test(tc, test_accelctl_run_local_checks_files);
        suite_add_tcase(s, tc);
        SRunner *sr = srunner_create(s);
        srunner_run_all(sr, CK_NORMAL);
        int failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        (void) rmdir(tmpdir);
        return failed ? 1 : 0;
}
