/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Integration: the weights cache of a real acceld. Two instances of one
 * float16 model (different thread counts) fold their weights once and share
 * the file; a restarted daemon finds it; a damaged file is detected and
 * rebuilt with the same results; ManageWeightsCache lists and clears; with
 * weights_cache_bytes = 0 the cache is off and says so; isolate_drivers=all
 * (XNNPACK in a driver host) leaves acceld's file the only one; benchmark
 * workers never write it.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "accel/accel.h"
#include "harness.h"
#include "tfb-models.h"
#include "tflite-builder.h"

static harness_daemon_t d;

static void teardown(void) {
        harness_cleanup(&d);
}

static void start(const char *const *args) {
        harness_resume(&d, args);
}

static void setup(void) {
        harness_up(&d);
}

/* out = FC(in [1,16], DEQUANTIZE(w [32,16] float16)): 32 outputs. */
#define FP16_W(r, c) tfb_model_fp16_fc_weight(32, 16, 7, 13, 16.0f, r, c)
static uint8_t *fp16_model(size_t *ret_size) {
        return tfb_model_fp16_fc(32, 16, 7, 13, 16.0f, ret_size);
}

/* The expected outputs, computed here from the float16 values. */
static void expected(float want[32]) {
        for (int o = 0; o < 32; o++) {
                double acc = 0;
                for (int k = 0; k < 16; k++)
                        acc += (double) (k - 8) * 0.125 * (double) FP16_W(o, k);
                want[o] = (float) acc;
        }
}

typedef struct run {
        accel_model_t *m;
        accel_interp_t *it;
} run_t;

/* Prepare the model with `settings` and check one run's outputs. */
static void run_open(run_t *r, const char *settings) {
        size_t size;
        uint8_t *buf = fp16_model(&size);
        accel_interp_options_t *o = accel_interp_options_create();
        float want[32];

        ck_assert_int_eq(accel_model_create(buf, size, &r->m), 0);
        free(buf);
        ck_assert_int_eq(accel_interp_options_set_socket(o, d.sock), 0);
        ck_assert_int_eq(accel_interp_options_set_settings_json(o, settings), 0);
        ck_assert_msg(accel_interp_create(r->m, o, &r->it) == 0, "%s", accel_last_error());
        accel_interp_options_delete(o);
        ck_assert_int_eq(accel_interp_allocate_tensors(r->it), 0);
        float *in = accel_tensor_data(accel_interp_input_tensor(r->it, 0));
        for (int k = 0; k < 16; k++)
                in[k] = (float) (k - 8) * 0.125f;
        ck_assert_msg(accel_interp_invoke(r->it) == 0, "%s", accel_last_error());
        const float *y = accel_tensor_data(accel_interp_output_tensor(r->it, 0));
        expected(want);
        for (int i = 0; i < 32; i++)
                ck_assert_msg(y[i] == want[i] || (y[i] - want[i] < 1e-5f && want[i] - y[i] < 1e-5f),
                              "output %d: %g, want %g", i, y[i], want[i]);
}

static void run_close(run_t *r) {
        accel_interp_delete(r->it);
        accel_model_delete(r->m);
}

static struct accel_weights_cache_status status(void) {
        accel_client_t *c = NULL;
        accel_daemon_status_t *s = NULL;
        struct accel_weights_cache_status w;

        ck_assert_int_eq(accel_connect(d.sock, &c), 0);
        ck_assert_int_eq(accel_get_status(c, &s), 0);
        w = s->weights_cache;
        w.directory = NULL;     /* freed with s */
        accel_daemon_status_free(s);
        accel_disconnect(c);
        return w;
}

static void restart(const char *const *args) {
        harness_restart(&d, args);
}

#define XNN1 "{\"delegate\":\"XNNPACK\",\"xnnpack_settings\":{\"num_threads\":1}}"
#define XNN2 "{\"delegate\":\"XNNPACK\",\"xnnpack_settings\":{\"num_threads\":2}}"

START_TEST(test_two_instances_share_and_restart_reuses) {
        run_t a, b;
        struct accel_weights_cache_status w;

        run_open(&a, XNN1);
        w = status();
        ck_assert_uint_eq(w.misses, 1);
        ck_assert_uint_eq(w.inserts, 1);
        ck_assert_uint_eq(w.files, 1);
        /* A second instance (another thread count) maps the same file. */
        run_open(&b, XNN2);
        w = status();
        ck_assert_uint_eq(w.hits, 1);
        ck_assert_uint_eq(w.inserts, 1);
        /* Mapped once: header, directory (one entry, padded to 64), weights. */
        ck_assert_uint_eq(w.mapped_bytes, 4096 + 64 + 512 * 4);
        /* The reference kernels share it too. */
        run_t r;
        run_open(&r, "{\"delegate\":\"NONE\"}");
        ck_assert_uint_eq(status().hits, 2);
        run_close(&r);

        accel_client_t *c = NULL;
        accel_weights_cache_t *l = NULL;
        ck_assert_int_eq(accel_connect(d.sock, &c), 0);
        ck_assert_int_eq(accel_weights_cache_list(c, &l), 0);
        ck_assert_uint_eq(l->n_entries, 1);
        ck_assert_msg(strncmp(l->entries[0].key, "fold/s0/", 8) == 0, "%s", l->entries[0].key);
        ck_assert(l->entries[0].valid);
        ck_assert(l->entries[0].mapped);
        accel_weights_cache_free(l);
        accel_disconnect(c);
        run_close(&a);
        run_close(&b);

        /* After a restart the file is found: a hit, nothing inserted. */
        restart(NULL);
        run_open(&a, XNN1);
        w = status();
        ck_assert_uint_eq(w.hits, 1);
        ck_assert_uint_eq(w.misses, 0);
        ck_assert_uint_eq(w.inserts, 0);
        run_close(&a);

        /* Clearing removes the file; the next prepare builds it again. */
        ck_assert_int_eq(accel_connect(d.sock, &c), 0);
        ck_assert_int_eq(accel_weights_cache_clear(c, &l), 0);
        ck_assert_uint_eq(l->removed_files, 1);
        ck_assert_uint_eq(l->status.files, 0);
        accel_weights_cache_free(l);
        accel_disconnect(c);
        run_open(&a, XNN1);
        ck_assert_uint_eq(status().inserts, 1);
        run_close(&a);
}
END_TEST

/* Damage the file while acceld is down: the restarted daemon detects it,
 * removes it, computes the weights again and gives the same results. */
START_TEST(test_damaged_file_rebuilt) {
        run_t a;
        run_open(&a, XNN1);
        run_close(&a);
        ck_assert_int_eq(harness_signal_and_wait(&d, SIGTERM), 0);
        char cmd[600];
        snprintf(cmd, sizeof(cmd),
                 "f=$(ls %s/weights/*.acw) && printf '\\377\\377\\377\\377' | dd of=$f bs=1 seek=4200 conv=notrunc "
                 "status=none",
                 d.state);
        ck_assert_int_eq(system(cmd), 0);
        start(NULL);
        run_open(&a, XNN1);
        struct accel_weights_cache_status w = status();
        ck_assert_uint_eq(w.corrupt, 1);
        ck_assert_uint_eq(w.inserts, 1);
        ck_assert_uint_eq(w.files, 1);
        run_close(&a);
}
END_TEST

/* XNNPACK in a driver host: acceld's file stays the only one (the host
 * reads the cache at most, never writes it). */
START_TEST(test_driver_host_uses_the_cache) {
        static const char *const args[] = { "--isolate-drivers", "all", NULL };
        run_t a;

        restart(args);
        run_open(&a, XNN1);
        struct accel_weights_cache_status w = status();
        ck_assert_uint_eq(w.inserts, 1);
        ck_assert_uint_eq(w.files, 1);
        run_close(&a);
        char cmd[400];
        snprintf(cmd, sizeof(cmd), "test $(ls %s/weights/*.acw | wc -l) = 1", d.state);
        ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* Mini-benchmark workers (child processes, sandboxed) never write the
 * cache: only acceld does (wcache.h). Every candidate runs with its weights
 * folded in its own memory, no file appears, and acceld's own prepare
 * later builds the one file. */
START_TEST(test_benchmark_workers_never_write_the_cache) {
        static const char *const cands[] = { "{\"delegate\":\"NONE\"}", XNN1, XNN2 };
        accel_bench_options_t bo = { .candidates_json = cands, .n_candidates = 3, .runs = 2, .timeout_ms = 30000 };
        char path[400], cmd[500];
        size_t size;
        uint8_t *buf = fp16_model(&size);
        accel_client_t *c = NULL;
        uint64_t run = 0;
        int fd;

        snprintf(path, sizeof(path), "%s/model.tflite", d.dir);
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(write(fd, buf, size), (ssize_t) size);
        close(fd);
        free(buf);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        ck_assert_int_eq(accel_connect(d.sock, &c), 0);
        ck_assert_msg(accel_bench_start(c, fd, NULL, &bo, &run) == 0, "%s", accel_last_error());
        close(fd);
        for (int i = 0; i < 600; i++) {
                accel_bench_progress_t *p = NULL;
                ck_assert_int_eq(accel_bench_progress(c, run, &p), 0);
                bool done = p->finished;
                if (done)
                        for (size_t k = 0; k < p->n_candidates; k++)
                                ck_assert_msg(p->candidates[k].ok == 1, "candidate %zu (%s): %s", k,
                                              p->candidates[k].settings_json, p->candidates[k].error);
                accel_bench_progress_free(p);
                if (done)
                        break;
                usleep(100000);
        }
        accel_disconnect(c);
        ck_assert_uint_eq(status().inserts, 0);
        snprintf(cmd, sizeof(cmd), "test $(ls %s/weights/ | grep -c acw) = 0", d.state);
        ck_assert_int_eq(system(cmd), 0);
        run_t a;
        run_open(&a, XNN1);
        struct accel_weights_cache_status w = status();
        ck_assert_uint_eq(w.misses, 1);
        ck_assert_uint_eq(w.inserts, 1);
        run_close(&a);
        snprintf(cmd, sizeof(cmd), "test $(ls %s/weights/*.acw | wc -l) = 1", d.state);
        ck_assert_int_eq(system(cmd), 0);
}
END_TEST

START_TEST(test_cache_off) {
        static const char *const args[] = { "--weights-cache-bytes", "0", NULL };
        char cmd[400];
        run_t a;

        ck_assert_int_eq(harness_signal_and_wait(&d, SIGTERM), 0);
        snprintf(cmd, sizeof(cmd), "rm -rf %s/weights", d.state);
        ck_assert_int_eq(system(cmd), 0);
        start(args);
        run_open(&a, XNN1);
        run_close(&a);
        accel_client_t *c = NULL;
        accel_daemon_status_t *s = NULL;
        ck_assert_int_eq(accel_connect(d.sock, &c), 0);
        ck_assert_int_eq(accel_get_status(c, &s), 0);
        ck_assert_str_eq(s->weights_cache.directory, "");
        ck_assert_uint_eq(s->weights_cache.misses, 0);
        accel_daemon_status_free(s);
        accel_weights_cache_t *l = NULL;
        ck_assert_int_eq(accel_weights_cache_list(c, &l), -ENODEV);
        ck_assert_msg(strstr(accel_last_error(), "weights cache is off"), "%s", accel_last_error());
        accel_disconnect(c);
        char path[400];
        snprintf(path, sizeof(path), "%s/weights", d.state);
        ck_assert_int_eq(access(path, F_OK), -1);
}
END_TEST

int main(int argc, char **argv) {
        harness_init(argc, argv);
        Suite *s = suite_create("acceld-wcache");
        TCase *tc = tcase_create("wcache");
        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_set_timeout(tc, 60);
        tcase_add_test(tc, test_two_instances_share_and_restart_reuses);
        tcase_add_test(tc, test_damaged_file_rebuilt);
        tcase_add_test(tc, test_driver_host_uses_the_cache);
        tcase_add_test(tc, test_benchmark_workers_never_write_the_cache);
        tcase_add_test(tc, test_cache_off);
        suite_add_tcase(s, tc);
        SRunner *sr = srunner_create(s);
        srunner_run_all(sr, CK_NORMAL);
        int failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed ? 1 : 0;
}
