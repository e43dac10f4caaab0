/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Placement (daemon/bench/placement.h): after its mini-benchmark a model
 * whose compute is far below this machine's request round trip runs in
 * the client's process (libaccel, acceld's runtime, the settings acceld
 * chose); everything else stays served. The real acceld with the faulty
 * plugin, the shared models and their goldens.
 * argv: acceld, accelctl, the faulty plugin.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <check.h>
#include <sqlite3.h>

#include "accel/accel.h"
#include "file-read.h"
#include "golden.h"
#include "harness-faulty.h"
#include "acceleration.pb-c.h"

#define TINY "hello_world_float"        /* a few microseconds of compute */
#define LARGE "deeplabv3_257_float"     /* milliseconds */
#define MS "blazeface_front_float"      /* about a millisecond */
#define XNNPACK_1T "{\"delegate\":\"XNNPACK\",\"xnnpack_settings\":{\"num_threads\":1}}"
#define REFERENCE "{\"delegate\":\"NONE\",\"cpu_settings\":{\"num_threads\":1}}"

static golden_manifest_t *man;

static const golden_model_t *golden(const char *name) {
        const golden_model_t *g = golden_manifest_find(man, name);

        ck_assert_msg(g != NULL, "%s is not in the manifest", name);
        return g;
}

static accel_client_t *client(const harness_daemon_t *d) {
        accel_client_t *c = NULL;

        ck_assert_msg(accel_connect(d->sock, &c) == 0, "%s", accel_last_error());
        return c;
}

/* Run the mini-benchmark of `path` over `cands` and wait for it (90 s at
 * most); returns the model's sha256 (static). */
static const char *bench(accel_client_t *c, const char *path, const char *const *cands, size_t n) {
        accel_bench_options_t o = { .candidates_json = cands, .n_candidates = n, .runs = 5, .timeout_ms = 60000 };
        static char sha[65];
        uint64_t run = 0;
        int fd = open(path, O_RDONLY | O_CLOEXEC);

        ck_assert_int_ge(fd, 0);
        ck_assert_msg(accel_bench_start(c, fd, NULL, &o, &run) == 0, "%s", accel_last_error());
        (void) close(fd);
        for (int i = 0; i < 900; i++) {
                accel_bench_progress_t *p = NULL;
                bool finished;

                ck_assert_msg(accel_bench_progress(c, run, &p) == 0, "%s", accel_last_error());
                finished = p->finished;
                if (finished) {
                        ck_assert_msg(p->model_sha256 && strlen(p->model_sha256) == 64, "no model sha256");
                        (void) snprintf(sha, sizeof(sha), "%s", p->model_sha256);
                }
                (void) accel_bench_progress_free(p);
                if (finished)
                        return sha;
                (void) nanosleep(&(struct timespec) { .tv_nsec = 100 * 1000 * 1000 }, NULL);
        }
        ck_abort_msg("benchmark run %llu did not finish", (unsigned long long) run);
        return NULL;
}

/* The decision's reason for ANY (what a prepare without settings uses). */
static char *decision_reason(accel_client_t *c, const char *sha) {
        accel_bench_best_t *b = NULL;
        char *r;

        ck_assert_msg(accel_bench_best(c, sha, 0, &b) == 0, "%s", accel_last_error());
        r = strdup(b->reason);
        (void) accel_bench_best_free(b);
        ck_assert_ptr_nonnull(r);
        return r;
}

/* An interpreter for `path` prepared with `settings` (NULL: none). */
static accel_interp_t *prepare(const harness_daemon_t *d, const char *path, const char *settings) {
        accel_interp_options_t *o = accel_interp_options_create();
        accel_model_t *m = NULL;
        accel_interp_t *it = NULL;

        ck_assert_ptr_nonnull(o);
        ck_assert_int_eq(accel_model_create_from_file(path, &m), 0);
        (void) accel_interp_options_set_socket(o, d->sock);
        if (settings)
                (void) accel_interp_options_set_settings_json(o, settings);
        ck_assert_msg(accel_interp_create(m, o, &it) == 0, "%s", accel_last_error());
        /* The interpreter owns what it needs: the model may go first. */
        accel_model_delete(m);
        accel_interp_options_delete(o);
        return it;
}

/* Golden inputs in, one invoke, every output against its golden (the
 * tolerance of the path the settings key names). */
static void run_golden(accel_interp_t *it, const golden_model_t *g) {
        golden_tol_kind_t kind = strstr(accel_interp_settings_key(it), "XNNPACK") ? GOLDEN_TOL_ACCELERATED
                                                                                  : GOLDEN_TOL_REFERENCE;

        ck_assert_msg(accel_interp_allocate_tensors(it) == 0, "%s", accel_last_error());
        ck_assert_uint_eq((size_t) accel_interp_input_count(it), g->n_inputs);
        for (size_t i = 0; i < g->n_inputs; i++) {
                void *in = NULL;
                size_t n = 0;

                ck_assert_int_eq(acc_file_read(g->inputs[i].path, &in, &n), 0);
                ck_assert_msg(accel_tensor_copy_from_buffer(accel_interp_input_tensor(it, (int32_t) i), in, n) == 0,
                              "%s", accel_last_error());
                free(in);
        }
        ck_assert_msg(accel_interp_invoke(it) == 0, "%s", accel_last_error());
        for (size_t i = 0; i < g->n_outputs; i++) {
                const accel_tensor_t *t = accel_interp_output_tensor(it, (int32_t) i);
                golden_result_t res;
                void *want = NULL;
                size_t n = 0;

                ck_assert_int_eq(acc_file_read(g->outputs[i].path, &want, &n), 0);
                ck_assert_int_eq(golden_compare(&g->outputs[i], kind, accel_tensor_data(t), accel_tensor_byte_size(t),
                                                want, n, &res), 0);
                ck_assert_msg(res.pass, "output %zu: %s", i, res.message);
                free(want);
        }
}

/* The tiny model, benchmarked with the defaults: placed in the client,
 * golden results there, the same behaviour as served (asynchronous
 * invoke, its fd, reset, timings), while "placement": "daemon" keeps it
 * served with bitwise the same outputs. */
START_TEST(test_placement_tiny_model_runs_in_the_client) {
        const char *const cands[] = { XNNPACK_1T, REFERENCE };
        const golden_model_t *g = golden(TINY);
        harness_daemon_t d = {};
        accel_client_t *c;
        accel_interp_t *local, *served;
        uint64_t queue, compute, total;
        struct pollfd pfd;
        float a, b;
        char *why;

        harness_faulty_up(&d, "");
        c = client(&d);
        why = decision_reason(c, bench(c, g->path, cands, 2));
        ck_assert_msg(strstr(why, "; placement: client: compute "), "decision: %s", why);
        free(why);

        local = prepare(&d, g->path, NULL);
        ck_assert_str_eq(accel_interp_placement(local), "client");
        ck_assert_msg(strncmp(accel_interp_placement_reason(local), "client: compute ", 16) == 0, "%s",
                      accel_interp_placement_reason(local));
        ck_assert_msg(strstr(accel_interp_placement_reason(local), "runs in the client"), "%s",
                      accel_interp_placement_reason(local));
        run_golden(local, g);
        accel_interp_last_timing(local, &queue, &compute, &total);
        ck_assert_uint_eq(queue, 0);
        ck_assert_uint_eq(compute, total);

        /* Asynchronous: the fd is readable once the invoke is done. */
        ck_assert_int_eq(accel_interp_invoke_start(local), 0);
        ck_assert_int_eq(accel_interp_invoke_start(local), -EBUSY);
        pfd = (struct pollfd) { .fd = accel_interp_fd(local), .events = POLLIN };
        ck_assert_int_ge(pfd.fd, 0);
        ck_assert_int_eq(poll(&pfd, 1, 5000), 1);
        ck_assert_int_eq(accel_interp_invoke_wait(local), 0);
        ck_assert_int_eq(accel_interp_invoke_wait(local), -EINVAL);
        ck_assert_int_eq(accel_interp_reset_variables(local), 0);    /* not stateful */

        served = prepare(&d, g->path, "{\"placement\": \"daemon\"}");
        ck_assert_str_eq(accel_interp_placement(served), "daemon");
        ck_assert_msg(strstr(accel_interp_placement_reason(served), "\"placement\": \"daemon\""), "%s",
                      accel_interp_placement_reason(served));
        /* Without other keys, the decision still applies. */
        ck_assert_str_eq(accel_interp_settings_key(served), accel_interp_settings_key(local));
        run_golden(served, g);
        accel_interp_last_timing(served, &queue, &compute, &total);
        ck_assert_uint_gt(total, 0);
        memcpy(&a, accel_tensor_data(accel_interp_output_tensor(local, 0)), sizeof(a));
        memcpy(&b, accel_tensor_data(accel_interp_output_tensor(served, 0)), sizeof(b));
        ck_assert_msg(a == b, "in the client %g, served %g", (double) a, (double) b);

        /* ACCEL_PLACEMENT=daemon: this process does not offer to run it. */
        ck_assert_int_eq(setenv("ACCEL_PLACEMENT", "daemon", 1), 0);
        {
                accel_interp_t *env = prepare(&d, g->path, NULL);

                ck_assert_str_eq(accel_interp_placement(env), "daemon");
                ck_assert_str_eq(accel_interp_placement_reason(env), "");
                accel_interp_delete(env);
        }
        ck_assert_int_eq(unsetenv("ACCEL_PLACEMENT"), 0);

        /* GetStatus: the configuration, a measured round trip (the served
         * invokes above count in it) and the one prepare placed here. */
        {
                accel_daemon_status_t *st = NULL;

                ck_assert_msg(accel_get_status(c, &st) == 0, "%s", accel_last_error());
                ck_assert_uint_eq(st->placement.max_compute_us, 10000);
                ck_assert(st->placement.max_overhead > 0.0099 && st->placement.max_overhead < 0.0101);
                ck_assert_int_gt(st->placement.socket_round_trip_us, 0);
                /* Lanes are on (max_lanes' default): the served invokes
                 * above went over a lane, and the estimate is the lane's
                 * hand-over, at least a microsecond. */
                ck_assert_int_ge(st->placement.round_trip_us, 1);
                ck_assert_uint_eq(st->placement.placed_in_client, 1);
                (void) accel_daemon_status_free(st);
        }

        /* The same input resized to its own shape: still placed, still
         * golden (resize re-derives the shapes as acceld does). */
        ck_assert_int_eq(accel_interp_resize_input(local, 0, (const int32_t[]) { 1, 1 }, 2), 0);
        ck_assert_ptr_null(accel_tensor_data(accel_interp_input_tensor(local, 0)));
        run_golden(local, g);

        accel_interp_delete(served);
        accel_interp_delete(local);
        (void) accel_disconnect(c);
        harness_cleanup(&d);
}
END_TEST

/* A model of milliseconds stays served. */
START_TEST(test_placement_large_model_stays_in_the_daemon) {
        const char *const cands[] = { XNNPACK_1T };
        const golden_model_t *g = golden(LARGE);
        harness_daemon_t d = {};
        accel_client_t *c;
        accel_interp_t *it;
        char *why;

        harness_faulty_up(&d, "");
        c = client(&d);
        why = decision_reason(c, bench(c, g->path, cands, 1));
        ck_assert_msg(strstr(why, "; placement: daemon: compute "), "decision: %s", why);
        free(why);
        it = prepare(&d, g->path, NULL);
        ck_assert_str_eq(accel_interp_placement(it), "daemon");
        ck_assert_msg(strstr(accel_interp_placement_reason(it), "over client_placement_max_us") ||
                      strstr(accel_interp_placement_reason(it), "served"), "%s",
                      accel_interp_placement_reason(it));
        run_golden(it, g);
        accel_interp_delete(it);
        (void) accel_disconnect(c);
        harness_cleanup(&d);
}
END_TEST

/* client_placement_max_us = 0: nothing moves, and the reasons say so. */
START_TEST(test_placement_off_keeps_everything_served) {
        const char *const cands[] = { XNNPACK_1T, REFERENCE };
        const golden_model_t *g = golden(TINY);
        harness_daemon_t d = {};
        accel_client_t *c;
        accel_interp_t *it;
        char *why;

        harness_faulty_up(&d, "client_placement_max_us = 0\n");
        c = client(&d);
        why = decision_reason(c, bench(c, g->path, cands, 2));
        ck_assert_msg(strstr(why, "; placement: daemon: placement is off"), "decision: %s", why);
        free(why);
        it = prepare(&d, g->path, NULL);
        ck_assert_str_eq(accel_interp_placement(it), "daemon");
        ck_assert_str_eq(accel_interp_placement_reason(it), "daemon: placement is off (client_placement_max_us = 0)");
        run_golden(it, g);
        accel_interp_delete(it);
        (void) accel_disconnect(c);
        harness_cleanup(&d);
}
END_TEST

/* max_lanes = 0: invokes go over the socket, so the round trip the
 * decisions use is the socket ping-pong plus the served requests' own
 * overhead, and the tiny model is still placed in the client. */
START_TEST(test_placement_without_lanes_counts_the_socket) {
        const char *const cands[] = { XNNPACK_1T, REFERENCE };
        const golden_model_t *g = golden(TINY);
        harness_daemon_t d = {};
        accel_daemon_status_t *st = NULL;
        accel_client_t *c;
        accel_interp_t *it;
        char *why;

        harness_faulty_up(&d, "max_lanes = 0\n");
        c = client(&d);
        why = decision_reason(c, bench(c, g->path, cands, 2));
        ck_assert_msg(strstr(why, "; placement: client: compute "), "decision: %s", why);
        free(why);
        it = prepare(&d, g->path, "{\"placement\": \"daemon\"}");
        ck_assert_str_eq(accel_interp_placement(it), "daemon");
        run_golden(it, g);
        accel_interp_delete(it);
        ck_assert_msg(accel_get_status(c, &st) == 0, "%s", accel_last_error());
        ck_assert_int_gt(st->placement.socket_round_trip_us, 0);
        ck_assert_uint_ge(st->placement.served_samples, 1);
        ck_assert_int_ge(st->placement.round_trip_us, st->placement.socket_round_trip_us);
        (void) accel_daemon_status_free(st);
        (void) accel_disconnect(c);
        harness_cleanup(&d);
}
END_TEST

/* Make the faulty plugin's setting the operators' ANY decision for `sha`,
 * as a selection that preferred it would have stored it: the settings of
 * its latest END event.
 * (On the one-ADD model the faulty driver and the reference kernels both
 * take about 0 us, so the selection's choice between them depends on the
 * machine; the test chooses instead.) */
static void decide_faulty(const harness_daemon_t *d, const char *sha) {
        Tflite__Proto__BenchmarkEvent *ev;
        sqlite3_stmt *st = NULL;
        char path[512], *key;
        uint8_t *blob;
        size_t n;
        sqlite3 *db;

        (void) snprintf(path, sizeof(path), "%s/acceld.db", d->state);
        ck_assert_int_eq(sqlite3_open(path, &db), SQLITE_OK);
        ck_assert_int_eq(sqlite3_busy_timeout(db, 10000), SQLITE_OK);
        ck_assert_int_eq(sqlite3_prepare_v2(db,
                "SELECT settings_key, blob FROM benchmark_events WHERE model_sha256 = ?1 AND event_type = 2 "
                "ORDER BY id DESC", -1, &st, NULL), SQLITE_OK);
        ck_assert_int_eq(sqlite3_bind_text(st, 1, sha, -1, SQLITE_STATIC), SQLITE_OK);
        /* The plugin's setting: the one naming its driver in TFLiteSettings'
         * extension (an unknown field to the stock schema). */
        key = NULL;
        blob = NULL;
        n = 0;
        while (!key && sqlite3_step(st) == SQLITE_ROW) {
                ev = tflite__proto__benchmark_event__unpack(NULL, (size_t) sqlite3_column_bytes(st, 1),
                                                            sqlite3_column_blob(st, 1));
                ck_assert_ptr_nonnull(ev);
                if (ev->tflite_settings && ev->tflite_settings->base.n_unknown_fields > 0) {
                        key = strdup((const char *) sqlite3_column_text(st, 0));
                        n = tflite__proto__tflite_settings__get_packed_size(ev->tflite_settings);
                        blob = malloc(n + 1);
                        ck_assert_ptr_nonnull(blob);
                        (void) tflite__proto__tflite_settings__pack(ev->tflite_settings, blob);
                }
                tflite__proto__benchmark_event__free_unpacked(ev, NULL);
        }
        ck_assert_msg(key != NULL, "no END event of the faulty setting");
        sqlite3_finalize(st);
        ck_assert_int_eq(sqlite3_prepare_v2(db,
                "UPDATE decisions SET settings_key = ?1, settings = ?2 WHERE model_sha256 = ?3 AND preference = 0 "
                "AND uid = 0", -1, &st, NULL), SQLITE_OK);
        ck_assert_int_eq(sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC), SQLITE_OK);
        ck_assert_int_eq(sqlite3_bind_blob(st, 2, blob, (int) n, SQLITE_STATIC), SQLITE_OK);
        ck_assert_int_eq(sqlite3_bind_text(st, 3, sha, -1, SQLITE_STATIC), SQLITE_OK);
        ck_assert_int_eq(sqlite3_step(st), SQLITE_DONE);
        ck_assert_int_eq(sqlite3_changes(db), 1);
        sqlite3_finalize(st);
        sqlite3_close(db);
        free(blob);
        free(key);
}

/* A model whose decided setting runs on a plugin driver (the faulty
 * plugin's ADD, microseconds) is never placed: the client has no plugin. */
START_TEST(test_placement_plugin_model_stays_in_the_daemon) {
        const char *const cands[] = { FAULTY("none") };
        harness_daemon_t d = {};
        accel_client_t *c;
        accel_interp_t *it;
        const char *sha;
        char *model;
        float x[4] = { 1, 2, 3, 4 }, y[4];

        harness_faulty_up(&d, "");
        model = harness_faulty_add_model(&d);
        c = client(&d);
        sha = bench(c, model, cands, 1);
        /* Placed while the reference kernels are the decision... */
        it = prepare(&d, model, NULL);
        ck_assert_str_eq(accel_interp_placement(it), strstr(accel_interp_settings_key(it), "\"mode\"") ? "daemon"
                                                                                                       : "client");
        accel_interp_delete(it);
        /* ... served once the plugin is. */
        decide_faulty(&d, sha);
        it = prepare(&d, model, NULL);
        ck_assert_msg(strstr(accel_interp_settings_key(it), "faulty"), "%s", accel_interp_settings_key(it));
        ck_assert_str_eq(accel_interp_placement(it), "daemon");
        ck_assert_msg(strstr(accel_interp_placement_reason(it), "daemon: ") &&
                      strstr(accel_interp_placement_reason(it), "faulty"), "%s", accel_interp_placement_reason(it));
        ck_assert_int_eq(accel_interp_allocate_tensors(it), 0);
        for (int32_t i = 0; i < accel_interp_input_count(it); i++)
                ck_assert_int_eq(accel_tensor_copy_from_buffer(accel_interp_input_tensor(it, i), x, sizeof(x)), 0);
        ck_assert_msg(accel_interp_invoke(it) == 0, "%s", accel_last_error());
        ck_assert_int_eq(accel_tensor_copy_to_buffer(accel_interp_output_tensor(it, 0), y, sizeof(y)), 0);
        for (int k = 0; k < 4; k++)
                ck_assert(y[k] == x[k] + (accel_interp_input_count(it) > 1 ? x[k] : 0));
        accel_interp_delete(it);
        free(model);
        (void) accel_disconnect(c);
        harness_cleanup(&d);
}
END_TEST

/* Set the median of every END event of `sha` (what a decision's compute
 * is read from when the setting was not confirmed in rounds). */
static void set_end_medians(const harness_daemon_t *d, const char *sha, int64_t us) {
        sqlite3_stmt *st = NULL;
        char path[512];
        sqlite3 *db;

        (void) snprintf(path, sizeof(path), "%s/acceld.db", d->state);
        ck_assert_int_eq(sqlite3_open(path, &db), SQLITE_OK);
        ck_assert_int_eq(sqlite3_busy_timeout(db, 10000), SQLITE_OK);
        ck_assert_int_eq(sqlite3_prepare_v2(db,
                "UPDATE benchmark_events SET median_inference_us = ?1 WHERE model_sha256 = ?2 AND event_type = 2",
                -1, &st, NULL), SQLITE_OK);
        ck_assert_int_eq(sqlite3_bind_int64(st, 1, us), SQLITE_OK);
        ck_assert_int_eq(sqlite3_bind_text(st, 2, sha, -1, SQLITE_STATIC), SQLITE_OK);
        ck_assert_int_eq(sqlite3_step(st), SQLITE_DONE);
        ck_assert_int_ge(sqlite3_changes(db), 1);
        sqlite3_finalize(st);
        sqlite3_close(db);
}

/* Placement follows the round trip's share of compute up to
 * client_placement_max_us (default 10000), not a fixed 2 ms: with an
 * overhead threshold of a millionth, any measured round trip is over it,
 * so a decision computing in 5000 us (over the old 2000 us bound) is
 * placed in the client, one of 20000 us is not (over the bound), and
 * GetStatus reports the default bound. */
START_TEST(test_placement_above_2ms_follows_the_overhead) {
        const char *const cands[] = { XNNPACK_1T, REFERENCE };
        const golden_model_t *g = golden(TINY);
        harness_daemon_t d = {};
        accel_daemon_status_t *st = NULL;
        accel_client_t *c;
        accel_interp_t *it;
        const char *sha;

        harness_faulty_up(&d, "client_placement_max_overhead = 0.000001\n");
        c = client(&d);
        sha = bench(c, g->path, cands, 2);
        ck_assert_msg(accel_get_status(c, &st) == 0, "%s", accel_last_error());
        ck_assert_uint_eq(st->placement.max_compute_us, 10000);
        ck_assert_int_gt(st->placement.round_trip_us, 0);
        (void) accel_daemon_status_free(st);

        set_end_medians(&d, sha, 5000);
        it = prepare(&d, g->path, NULL);
        ck_assert_str_eq(accel_interp_placement(it), "client");
        ck_assert_msg(strncmp(accel_interp_placement_reason(it), "client: compute 5000 us, round trip ", 36) == 0,
                      "%s", accel_interp_placement_reason(it));
        run_golden(it, g);
        accel_interp_delete(it);

        set_end_medians(&d, sha, 20000);
        it = prepare(&d, g->path, NULL);
        ck_assert_str_eq(accel_interp_placement(it), "daemon");
        ck_assert_msg(strstr(accel_interp_placement_reason(it),
                             "daemon: compute 20000 us is over client_placement_max_us (10000)") != NULL,
                      "%s", accel_interp_placement_reason(it));
        run_golden(it, g);
        accel_interp_delete(it);

        /* The client's own settings, by default (client_placement_min_served
         * = 0), stay served however often they ran. */
        it = prepare(&d, g->path, "{\"delegate\":\"XNNPACK\",\"xnnpack_settings\":{\"num_threads\":2}}");
        for (int i = 0; i < 6; i++)
                run_golden(it, g);
        accel_interp_delete(it);
        it = prepare(&d, g->path, "{\"delegate\":\"XNNPACK\",\"xnnpack_settings\":{\"num_threads\":2}}");
        ck_assert_str_eq(accel_interp_placement(it), "daemon");
        ck_assert_msg(strstr(accel_interp_placement_reason(it), "client_placement_min_served = 0") != NULL, "%s",
                      accel_interp_placement_reason(it));
        accel_interp_delete(it);
        (void) accel_disconnect(c);
        harness_cleanup(&d);
}
END_TEST

/* With client_placement_min_served = 5 the client's own settings
 * (XNNPACK at 1 thread, no benchmark at all) are placeable: before any
 * execution there is no compute to decide from, so the model is served;
 * after 5 served executions their median compute is the estimate, and the
 * next prepare with the same settings runs in the client, with golden
 * results there. */
START_TEST(test_placement_explicit_settings_from_served_compute) {
        const golden_model_t *g = golden(TINY);
        harness_daemon_t d = {};
        accel_client_t *c;
        accel_interp_t *served, *local;

        harness_faulty_up(&d, "client_placement_min_served = 5\n");
        c = client(&d);
        served = prepare(&d, g->path, XNNPACK_1T);
        ck_assert_str_eq(accel_interp_placement(served), "daemon");
        ck_assert_msg(strstr(accel_interp_placement_reason(served), "daemon: no measured compute time") != NULL,
                      "%s", accel_interp_placement_reason(served));
        for (int i = 0; i < 4; i++)
                run_golden(served, g);
        /* Four are not enough. */
        local = prepare(&d, g->path, XNNPACK_1T);
        ck_assert_str_eq(accel_interp_placement(local), "daemon");
        accel_interp_delete(local);
        run_golden(served, g);
        local = prepare(&d, g->path, XNNPACK_1T);
        ck_assert_str_eq(accel_interp_placement(local), "client");
        ck_assert_msg(strstr(accel_interp_placement_reason(local), "runs in the client; compute: the median of 5 "
                                                                   "served executions") != NULL,
                      "%s", accel_interp_placement_reason(local));
        ck_assert_msg(strstr(accel_interp_settings_key(local), "XNNPACK") != NULL, "%s",
                      accel_interp_settings_key(local));
        run_golden(local, g);
        accel_interp_delete(local);
        accel_interp_delete(served);
        (void) accel_disconnect(c);
        harness_cleanup(&d);
}
END_TEST

/* A setting with as many threads as acceld's CPUs (asked for 64, more
 * than any machine of this suite has: clamped to them) runs in the client
 * even where the round trip is within the overhead bound
 * (client_placement_max_overhead = 1: 100% of compute, where the old rule
 * served a model of milliseconds; client_placement_max_us = 1 s, so that
 * a slow build stays under the cap), with the reason saying why; its
 * results there are golden. The compute is that of 5 served executions
 * (client_placement_min_served = 5): before them the model is served, and
 * with "placement": "daemon" it stays served, over a lane. */
START_TEST(test_placement_all_cpus_setting_runs_in_the_client) {
        const char *all = "{\"delegate\":\"XNNPACK\",\"xnnpack_settings\":{\"num_threads\":64}}";
        const char *all_daemon = "{\"delegate\":\"XNNPACK\",\"xnnpack_settings\":{\"num_threads\":64},"
                                 "\"placement\":\"daemon\"}";
        const golden_model_t *g = golden(MS);
        harness_daemon_t d = {};
        accel_client_t *c;
        accel_interp_t *it, *served;
        const char *why;

        /* The cap out of the way: blazeface at 2 threads took 16 ms under
         * ASan on a loaded machine. */
        harness_faulty_up(&d, "client_placement_max_overhead = 1\nclient_placement_min_served = 5\n"
                              "client_placement_max_us = 1000000\n");
        c = client(&d);
        served = prepare(&d, g->path, all);
        ck_assert_str_eq(accel_interp_placement(served), "daemon");
        ck_assert_msg(strstr(accel_interp_placement_reason(served), "daemon: no measured compute time") != NULL, "%s",
                      accel_interp_placement_reason(served));
        for (int i = 0; i < 5; i++)
                run_golden(served, g);

        it = prepare(&d, g->path, all);
        why = accel_interp_placement_reason(it);
        ck_assert_msg(strcmp(accel_interp_placement(it), "client") == 0, "%s (%s)", why,
                      accel_interp_settings_key(it));
        ck_assert_msg(strncmp(why, "client: compute ", 16) == 0 && strstr(why, " threads, as many as the ") &&
                      strstr(why, "acceld may use: a served answer waits for a CPU its threads hold") &&
                      strstr(why, "; compute: the median of 5 served executions"),
                      "%s", why);
        run_golden(it, g);
        accel_interp_delete(it);

        /* Served over a lane, whose client then sleeps until woken
         * (client/lane.c: no spin next to the execution's threads). */
        it = prepare(&d, g->path, all_daemon);
        ck_assert_str_eq(accel_interp_placement(it), "daemon");
        ck_assert_msg(strstr(accel_interp_placement_reason(it), "\"placement\": \"daemon\"") != NULL, "%s",
                      accel_interp_placement_reason(it));
        run_golden(it, g);
        ck_assert(accel_interp_uses_lane(it));
        for (int i = 0; i < 3; i++)
                run_golden(it, g);
        accel_interp_delete(it);
        accel_interp_delete(served);
        (void) accel_disconnect(c);
        harness_cleanup(&d);
}
END_TEST

int main(int argc, char **argv) {
        Suite *s = suite_create("acceld-placement");
        TCase *tc = tcase_create("placement");
        const char *shared;
        SRunner *sr;
        char err[256];
        int failed;

        harness_init(argc, argv);
        if (!harness_faulty_init(argc, argv))
                return 77;
        shared = golden_shared_dir();
        if (!shared || golden_manifest_load(shared, &man, err, sizeof(err)) < 0) {
                fprintf(stderr, "skipped: no ../shared models (ACCELD_SHARED_DIR)\n");
                return 77;
        }
        tcase_set_timeout(tc, 240);
        tcase_add_test(tc, test_placement_tiny_model_runs_in_the_client);
        tcase_add_test(tc, test_placement_large_model_stays_in_the_daemon);
        tcase_add_test(tc, test_placement_off_keeps_everything_served);
        tcase_add_test(tc, test_placement_without_lanes_counts_the_socket);
        tcase_add_test(tc, test_placement_plugin_model_stays_in_the_daemon);
        tcase_add_test(tc, test_placement_above_2ms_follows_the_overhead);
        tcase_add_test(tc, test_placement_explicit_settings_from_served_compute);
        tcase_add_test(tc, test_placement_all_cpus_setting_runs_in_the_client);
        suite_add_tcase(s, tc);
        sr = srunner_create(s);
        srunner_run_all(sr, CK_NORMAL);
        failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        golden_manifest_free(man);
        return failed ? 1 : 0;
}
