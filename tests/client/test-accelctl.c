/* SPDX-License-Identifier: Apache-2.0 */
/*
 * accelctl, the operators' command-line client, against a real acceld on a
 * temporary socket (acceld's path is argv[1], accelctl's argv[2]): what it
 * prints, in tables and in JSON, and how it fails.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <check.h>
#include <json-c/json.h>

#include "config.h"
#include "golden.h"
#include "harness.h"
#include "tfb-models.h"

static harness_daemon_t d;

static void setup(void) {
        harness_up(&d);
}

static void teardown(void) {
        harness_cleanup(&d);
}

static const char *settings_none = "{\"delegate\": \"NONE\"}";

/* out = in * 2 + 1 on float[1,4] (tfb-models.h). */
static uint8_t *model_affine(size_t *size) {
        uint8_t *bytes = tfb_model_affine(size);
        ck_assert_ptr_nonnull(bytes);
        return bytes;
}

static char *write_tmp_model(const uint8_t *m, size_t size) {
        return harness_write_file(&d, "model.tflite", m, size);
}

static json_object *run_accelctl_json(const char *const *argv) {
        char *out = NULL;
        json_object *j;
        int status = harness_run(argv, &out);

        ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "accelctl failed: 0x%x", status);
        j = json_tokener_parse(out);
        ck_assert_msg(j != NULL, "accelctl printed no JSON: %s", out);
        free(out);
        return j;
}

static json_object *get(json_object *o, const char *key, json_type type) {
        json_object *v = NULL;

        ck_assert_msg(json_object_object_get_ex(o, key, &v), "key %s missing", key);
        ck_assert_msg(json_object_is_type(v, type), "key %s has type %s", key,
                      json_type_to_name(json_object_get_type(v)));
        return v;
}

START_TEST(test_caps_accelctl_json_has_cpu_and_backends) {
        const char *argv[] = { harness_accelctl(), "--socket", d.sock, "caps", "--json", NULL };
        json_object *j = run_accelctl_json(argv), *cpu, *mem, *backends;
        bool seen_reference = false, seen_nnapi = false;

        cpu = get(j, "cpu", json_type_object);
        ck_assert_str_ne(json_object_get_string(get(cpu, "vendor", json_type_string)), "");
        ck_assert_str_ne(json_object_get_string(get(cpu, "model", json_type_string)), "");
        ck_assert_int_ge(json_object_get_int(get(cpu, "cores", json_type_int)), 1);
        ck_assert_int_ge(json_object_get_int(get(cpu, "logical_processors", json_type_int)), 1);
        (void) get(cpu, "features", json_type_array);
        mem = get(j, "memory", json_type_object);
        ck_assert_int_gt(json_object_get_int64(get(mem, "total_bytes", json_type_int)), 0);
        (void) get(mem, "available_bytes", json_type_int);

        backends = get(j, "backends", json_type_array);
        ck_assert_uint_eq(json_object_array_length(backends), 7);
        for (size_t i = 0; i < json_object_array_length(backends); i++) {
                json_object *b = json_object_array_get_idx(backends, i), *v;
                const char *name = json_object_get_string(get(b, "name", json_type_string));
                bool avail = json_object_get_boolean(get(b, "available", json_type_boolean));

                (void) get(b, "delegate", json_type_string);
                ck_assert(json_object_object_get_ex(b, "version", &v));
                ck_assert(json_object_object_get_ex(b, "reason", &v));
                if (strcmp(name, "reference") == 0) {
                        seen_reference = true;
                        ck_assert(avail);
                        ck_assert_str_eq(json_object_get_string(get(b, "version", json_type_string)),
                                         ACCELD_VERSION);
                        ck_assert_str_eq(json_object_get_string(get(b, "delegate", json_type_string)),
                                         "NONE");
                }
                if (strcmp(name, "nnapi") == 0) {
                        seen_nnapi = true;
                        ck_assert(!avail);
                        ck_assert_str_eq(json_object_get_string(get(b, "delegate", json_type_string)),
                                         "NNAPI");
                        ck_assert_str_ne(json_object_get_string(get(b, "reason", json_type_string)), "");
                }
        }
        ck_assert(seen_reference);
        ck_assert(seen_nnapi);
        json_object_put(j);
}
END_TEST

/* The human caps table has the performance rows: the reference kernels at
 * 1 by definition, XNNPACK's measured time and its power not measured. */
START_TEST(test_caps_accelctl_table_shows_performance) {
        const char *argv[] = { harness_accelctl(), "--socket", d.sock, "caps", NULL };
        char *out = NULL;
        int st = harness_run(argv, &out);

        ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s", out);
        ck_assert_msg(strstr(out, "PERFORMANCE") && strstr(out, "EXEC TIME") && strstr(out, "POWER USAGE"), "%s",
                      out);
        ck_assert_msg(strstr(out, "reference    float32       1          1"), "%s", out);
        const char *x = strstr(out, "xnnpack      float32");
        if (x) {
                const char *eol = strchr(x, '\n');
                ck_assert_msg(eol && eol[-1] == '-', "XNNPACK's power is not measured: %s", out);
        }
        free(out);
}
END_TEST

START_TEST(test_status_accelctl_global_json_counts) {
        /* The global form: --json before the subcommand. */
        const char *argv[] = { harness_accelctl(), "--json", "--socket", d.sock, "status", NULL };
        json_object *j = run_accelctl_json(argv);

        ck_assert_int_eq(json_object_get_int(get(j, "requests_served", json_type_int)), 0);
        ck_assert_int_ge(json_object_get_int(get(j, "connections", json_type_int)), 1);
        ck_assert_str_eq(json_object_get_string(get(j, "socket_path", json_type_string)), d.sock);
        ck_assert_str_eq(json_object_get_string(get(j, "state_directory", json_type_string)), d.state);
        ck_assert_str_eq(json_object_get_string(get(j, "server_version", json_type_string)), ACCELD_VERSION);
        json_object_put(j);
}
END_TEST

START_TEST(test_accelctl_unreachable_socket_fails) {
        char path[400];
        char *out = NULL;
        int status;

        (void) snprintf(path, sizeof(path), "%s/nobody.sock", d.dir);
        const char *argv[] = { harness_accelctl(), "--socket", path, "status", NULL };
        status = harness_run(argv, &out);
        ck_assert(WIFEXITED(status));
        ck_assert_int_eq(WEXITSTATUS(status), 1);
        ck_assert_str_eq(out, "");
        free(out);
}
END_TEST

/* accelctl run says what replaced a missing delegate, and whether the
 * tensors were zero-copy. */
START_TEST(test_accelctl_run_json_says_fallback) {
        size_t size;
        uint8_t *m = model_affine(&size);
        char *path = write_tmp_model(m, size), *out = NULL;
        json_object *root, *x;
        int st;
        const char *argv[] = { harness_accelctl(), "--socket", d.sock, "--json", "run", path, "--settings",
                               "{\"delegate\":\"GPU\",\"fallback_settings\":"
                               "{\"allow_automatic_fallback_on_compilation_error\":true}}",
                               NULL };

        st = harness_run(argv, &out);
        ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "accelctl run failed: %s", out);
        root = json_tokener_parse(out);
        ck_assert_ptr_nonnull(root);
        ck_assert(json_object_object_get_ex(root, "delegation_note", &x));
        ck_assert_ptr_nonnull(strstr(json_object_get_string(x), "no driver provides delegate GPU"));
        ck_assert(json_object_object_get_ex(root, "zero_copy", &x));
        ck_assert(json_object_is_type(x, json_type_boolean));
        /* The instance's settings as acceld keyed them (what ran instead
         * is the delegation note's business). */
        ck_assert(json_object_object_get_ex(root, "settings_key", &x));
        ck_assert_msg(strncmp(json_object_get_string(x), "delegate=GPU;", 13) == 0 &&
                              strstr(json_object_get_string(x), "fallback=10"),
                      "%s", json_object_get_string(x));
        json_object_put(root);
        free(out);
        free(path);
        free(m);
}
END_TEST

/* With --json, failures are JSON on stdout too, with one prefix. */
START_TEST(test_accelctl_json_errors) {
        char *out = NULL, nosock[400];
        json_object *root, *x;
        int st;
        const char *run[] = { harness_accelctl(), "--socket", d.sock, "--json", "run", "/nonexistent.tflite", NULL };

        st = harness_run(run, &out);
        ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 1);
        root = json_tokener_parse(out);
        ck_assert_msg(root != NULL, "not JSON: %s", out);
        ck_assert(json_object_object_get_ex(root, "status", &x));
        ck_assert_str_eq(json_object_get_string(x), "CLIENT_ERROR");
        ck_assert(json_object_object_get_ex(root, "message", &x));
        ck_assert_str_eq(json_object_get_string(x), "accelctl run: /nonexistent.tflite: No such file or directory");
        json_object_put(root);
        free(out);

        (void) snprintf(nosock, sizeof(nosock), "%s/nobody-here.sock", d.dir);
        const char *status[] = { harness_accelctl(), "--socket", nosock, "status", "--json", NULL };
        st = harness_run(status, &out);
        ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 1);
        root = json_tokener_parse(out);
        ck_assert_msg(root != NULL, "not JSON: %s", out);
        ck_assert(json_object_object_get_ex(root, "message", &x));
        ck_assert_ptr_nonnull(strstr(json_object_get_string(x), "systemctl start acceld.socket"));
        json_object_put(root);
        free(out);
}
END_TEST

/* run --local without files: zero inputs and a summary of each output
 * (out = 2 * 0 + 1 everywhere). */
START_TEST(test_accelctl_run_local_generates_inputs) {
        size_t size;
        uint8_t *m = model_affine(&size);
        char *path = write_tmp_model(m, size), *out = NULL;
        const char *argv[] = { harness_accelctl(), "run", "--local", path, NULL };
        int st = harness_run(argv, &out);

        ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "accelctl run --local failed: %s", out);
        ck_assert_msg(strstr(out, "float32[1,4] min 1 max 1 mean 1") != NULL, "output: %s", out);
        free(out);
        free(path);
        free(m);
}
END_TEST

/* A deadline bounds completion: a run whose compute alone takes longer
 * than its 50 ms budget (deeplabv3 on the reference kernels takes about
 * 360 ms here) is MISSED_DEADLINE_PERSISTENT, not a success. */
START_TEST(test_accelctl_run_deadline_bounds_completion) {
        const char *shared = golden_shared_dir();
        char path[600], *out = NULL;
        json_object *root, *x;
        int st;

        if (!shared) {
                fprintf(stderr, "skipped: no ../shared models\n");
                return;
        }
        (void) snprintf(path, sizeof(path), "%s/models/deeplabv3_257_float.tflite", shared);
        if (access(path, R_OK) != 0) {
                fprintf(stderr, "skipped: %s is absent\n", path);
                return;
        }
        const char *argv[] = { harness_accelctl(), "--socket", d.sock, "--json", "run", path, "--settings",
                               settings_none, "--deadline-ms", "50", NULL };
        st = harness_run(argv, &out);
        ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 1, "accelctl run: %s", out);
        root = json_tokener_parse(out);
        ck_assert_msg(root != NULL, "not JSON: %s", out);
        ck_assert(json_object_object_get_ex(root, "status", &x));
        ck_assert_str_eq(json_object_get_string(x), "MISSED_DEADLINE_PERSISTENT");
        ck_assert(json_object_object_get_ex(root, "message", &x));
        ck_assert_ptr_nonnull(strstr(json_object_get_string(x), "the result is discarded"));
        json_object_put(root);
        free(out);
}
END_TEST

START_TEST(test_accelctl_run_ops_json) {
        size_t size;
        uint8_t *m = model_affine(&size);
        char *path = write_tmp_model(m, size), in_path[400], out_path[400], *out = NULL;
        float in[4] = { 1, 2, 3, 4 }, got[4];
        FILE *f;
        json_object *root, *x, *y;
        int st;

        (void) snprintf(in_path, sizeof(in_path), "%s/in.bin", d.dir);
        (void) snprintf(out_path, sizeof(out_path), "%s/out.bin", d.dir);
        f = fopen(in_path, "w");
        ck_assert_ptr_nonnull(f);
        ck_assert_uint_eq(fwrite(in, 1, 16, f), 16);
        fclose(f);
        {
                const char *argv[] = { harness_accelctl(), "--socket", d.sock, "--json", "run", path, "--input", in_path,
                                       "--output", out_path, "--runs", "3", "--priority", "high",
                                       "--settings", settings_none, NULL };

                st = harness_run(argv, &out);
        }
        ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "accelctl run failed: %s", out);
        root = json_tokener_parse(out);
        ck_assert_ptr_nonnull(root);
        ck_assert(json_object_object_get_ex(root, "runs", &x));
        ck_assert_uint_eq(json_object_array_length(x), 3);
        ck_assert(json_object_object_get_ex(root, "median", &x));
        ck_assert(json_object_object_get_ex(x, "compute_us", &y));
        ck_assert(json_object_object_get_ex(root, "outputs", &x));
        x = json_object_array_get_idx(x, 0);
        ck_assert(json_object_object_get_ex(x, "top5", &y));
        ck_assert_uint_eq(json_object_array_length(y), 4);
        /* out = 2 * in + 1: the largest is element 3 (9.0). */
        ck_assert_int_eq(json_object_get_int(json_object_object_get(json_object_array_get_idx(y, 0), "index")), 3);
        json_object_put(root);
        free(out);
        f = fopen(out_path, "r");
        ck_assert_ptr_nonnull(f);
        ck_assert_uint_eq(fread(got, 1, 16, f), 16);
        fclose(f);
        ck_assert_float_eq(got[0], 3.0f);
        ck_assert_float_eq(got[3], 9.0f);
        {
                const char *argv[] = { harness_accelctl(), "--socket", d.sock, "--json", "ops", path, NULL };

                st = harness_run(argv, &out);
        }
        ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "accelctl ops failed: %s", out);
        root = json_tokener_parse(out);
        ck_assert_ptr_nonnull(root);
        ck_assert_uint_eq(json_object_array_length(root), 2);
        ck_assert_str_eq(json_object_get_string(json_object_object_get(json_object_array_get_idx(root, 1), "op")),
                         "ADD");
        json_object_put(root);
        free(out);
        {
                const char *argv[] = { harness_accelctl(), "--socket", d.sock, "run", path, "--runs", "0", NULL };

                st = harness_run(argv, &out);
        }
        ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 2);
        free(out);
        free(path);
        free(m);
}
END_TEST

int main(int argc, char **argv) {
        Suite *s = suite_create("accelctl");
        TCase *tc = tcase_create("accelctl");
        SRunner *sr;
        int failed;

        harness_init(argc, argv);
        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_set_timeout(tc, 60);
        tcase_add_test(tc, test_caps_accelctl_json_has_cpu_and_backends);
        tcase_add_test(tc, test_caps_accelctl_table_shows_performance);
        tcase_add_test(tc, test_status_accelctl_global_json_counts);
        tcase_add_test(tc, test_accelctl_unreachable_socket_fails);
        tcase_add_test(tc, test_accelctl_run_json_says_fallback);
        tcase_add_test(tc, test_accelctl_json_errors);
        tcase_add_test(tc, test_accelctl_run_local_generates_inputs);
        tcase_add_test(tc, test_accelctl_run_deadline_bounds_completion);
        tcase_add_test(tc, test_accelctl_run_ops_json);
        suite_add_tcase(s, tc);
        sr = srunner_create(s);
        srunner_run_all(sr, CK_NORMAL);
        failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
