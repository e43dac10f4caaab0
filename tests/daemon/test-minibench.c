/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Integration tests of benchmarks: the real acceld with the
 * `faulty` plugin, driven through libaccel and accelctl.
 * argv: acceld, accelctl, the faulty plugin (its folder becomes
 * ACCELD_PLUGIN_DIR).
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <check.h>
#include <json-c/json.h>
#include <sqlite3.h>

#include "accel/accel.h"
#include "harness-faulty.h"
#include "ipc.h"
#include "service.pb-c.h"
#include "tflite-builder.h"

static void up(harness_daemon_t *d) {
        harness_prepare(d);
        harness_start(d, NULL, harness_faulty_env(), -1);
        harness_wait_ready(d, d->sock);
}

static accel_client_t *client(const harness_daemon_t *d) {
        accel_client_t *c = NULL;

        ck_assert_msg(accel_connect(d->sock, &c) == 0, "%s", accel_last_error());
        return c;
}

static uint64_t start(accel_client_t *c, const char *model, const char *const *cands, size_t n, uint32_t timeout_ms) {
        accel_bench_options_t o = { .candidates_json = cands, .n_candidates = n, .runs = 3, .timeout_ms = timeout_ms };
        uint64_t run = 0;
        int fd = open(model, O_RDONLY | O_CLOEXEC);

        ck_assert_int_ge(fd, 0);
        ck_assert_msg(accel_bench_start(c, fd, NULL, &o, &run) == 0, "%s", accel_last_error());
        (void) close(fd);
        ck_assert_uint_gt(run, 0);
        return run;
}

/* Poll until the run finishes (at most 90 s), checking the daemon still
 * answers other requests meanwhile. */
static accel_bench_progress_t *wait_run(accel_client_t *c, uint64_t run) {
        for (int i = 0; i < 900; i++) {
                accel_bench_progress_t *p = NULL;
                accel_daemon_status_t *st = NULL;

                ck_assert_msg(accel_bench_progress(c, run, &p) == 0, "%s", accel_last_error());
                ck_assert_msg(accel_get_status(c, &st) == 0, "daemon stopped serving: %s", accel_last_error());
                (void) accel_daemon_status_free(st);
                if (p->finished)
                        return p;
                (void) accel_bench_progress_free(p);
                (void) nanosleep(&(struct timespec) { .tv_nsec = 100 * 1000 * 1000 }, NULL);
        }
        ck_abort_msg("benchmark run %llu did not finish", (unsigned long long) run);
        return NULL;
}

static const accel_bench_candidate_t *find(const accel_bench_progress_t *p, const char *needle) {
        for (size_t i = 0; i < p->n_candidates; i++)
                if (strstr(p->candidates[i].settings_json, needle))
                        return &p->candidates[i];
        ck_abort_msg("no candidate with '%s'", needle);
        return NULL;
}

static size_t count_events(accel_client_t *c, const char *sha, int type, const char *needle) {
        accel_bench_event_filter_t f = { .model_sha256 = sha, .event_type = type };
        accel_bench_event_t *v = NULL;
        size_t n = 0, k = 0;

        ck_assert_msg(accel_bench_events(c, &f, &v, &n) == 0, "%s", accel_last_error());
        for (size_t i = 0; i < n; i++)
                if (!needle || strstr(v[i].settings_json, needle))
                        k++;
        accel_bench_events_free(v, n);
        return k;
}

START_TEST(test_minibench_faulty_modes_caught) {
        harness_daemon_t d = {};
        const char *const cands[] = { "{}", "{\"delegate\":\"faulty\"}", FAULTY("crash-in-prepare"),
                                      FAULTY("crash-in-execute"), FAULTY("hang"), FAULTY("wrong-outputs") };
        accel_client_t *c;
        accel_bench_progress_t *p;
        const accel_bench_candidate_t *x;
        char *model;

        up(&d);
        model = harness_faulty_add_model(&d);
        c = client(&d);
        p = wait_run(c, start(c, model, cands, 6, 3000));
        ck_assert_uint_eq(p->n_candidates, 6);
        ck_assert_uint_eq(p->done, 6);

        x = find(p, "crash-in-prepare");
        ck_assert_int_eq(x->ok, 0);
        ck_assert_int_eq(x->error_signal, SIGSEGV);
        ck_assert_int_eq(x->error_stage, 1); /* INITIALIZATION */
        x = find(p, "crash-in-execute");
        ck_assert_int_eq(x->ok, 0);
        ck_assert_int_eq(x->error_signal, SIGSEGV);
        ck_assert_int_eq(x->error_stage, 2); /* INFERENCE */
        x = find(p, "hang");
        ck_assert_int_eq(x->ok, 0);
        ck_assert_int_eq(x->error_signal, SIGKILL);
        ck_assert_ptr_nonnull(strstr(x->error, "timed out"));
        x = find(p, "wrong-outputs");
        ck_assert_str_eq(x->state, "done");
        ck_assert_int_eq(x->ok, 0);            /* END with ok=false */
        ck_assert_int_eq(x->error_signal, 0);
        ck_assert_int_eq(x->error_stage, -1);
        ck_assert_int_ge(x->median_us, 0);
        x = find(p, "\"faulty\"}");
        ck_assert_int_eq(x->ok, 1);
        ck_assert_int_eq(p->candidates[0].ok, 1); /* reference */
        ck_assert_str_ne(p->best_label, "");
        ck_assert_ptr_null(strstr(p->best_settings_json, "mode"));

        /* The log: one START per candidate, END for the three that ran to the end. */
        ck_assert_uint_eq(count_events(c, p->model_sha256, 1, NULL), 6);
        ck_assert_uint_eq(count_events(c, p->model_sha256, 2, NULL), 3);
        ck_assert_uint_eq(count_events(c, p->model_sha256, 3, NULL), 3);
        ck_assert_uint_eq(count_events(c, p->model_sha256, 2, "wrong-outputs"), 1);
        ck_assert_uint_eq(count_events(c, p->model_sha256, 3, "hang"), 1);

        for (int pref = 0; pref <= 3; pref++) {
                accel_bench_best_t *b = NULL;

                ck_assert_msg(accel_bench_best(c, p->model_sha256, pref, &b) == 0, "%s", accel_last_error());
                ck_assert_ptr_null(strstr(b->settings_json, "mode"));
                ck_assert_int_gt((int) strlen(b->reason), 10);
                if (pref == 3)
                        ck_assert_str_eq(b->settings_json, "{}");
                (void) accel_bench_best_free(b);
        }
        (void) accel_bench_progress_free(p);
        (void) accel_disconnect(c);
        ck_assert_int_eq(harness_signal_and_wait(&d, SIGTERM), 0);
        free(model);
        harness_cleanup(&d);
}
END_TEST

START_TEST(test_minibench_crashed_twice_not_retried) {
        harness_daemon_t d = {};
        const char *const cands[] = { FAULTY("crash-in-execute") };
        accel_client_t *c;
        accel_bench_progress_t *p;
        const accel_bench_candidate_t *x;
        char *model;

        up(&d);
        model = harness_faulty_add_model(&d);
        c = client(&d);
        for (int i = 0; i < 2; i++) {
                p = wait_run(c, start(c, model, cands, 1, 5000));
                x = find(p, "crash-in-execute");
                ck_assert_str_eq(x->state, "done");
                ck_assert_int_eq(x->error_signal, SIGSEGV);
                (void) accel_bench_progress_free(p);
        }
        p = wait_run(c, start(c, model, cands, 1, 5000));
        x = find(p, "crash-in-execute");
        ck_assert_str_eq(x->state, "skipped");
        ck_assert_ptr_nonnull(strstr(x->error, "failed 2 times"));
        ck_assert_uint_eq(count_events(c, p->model_sha256, 1, "crash"), 2);
        (void) accel_bench_progress_free(p);
        (void) accel_disconnect(c);
        free(model);
        harness_cleanup(&d);
}
END_TEST

START_TEST(test_minibench_kill9_reported_after_restart) {
        harness_daemon_t d = {};
        const char *const cands[] = { FAULTY("hang") };
        accel_client_t *c;
        accel_bench_event_filter_t f = { .event_type = 3 };
        accel_bench_event_t *v = NULL;
        size_t n = 0;
        char sha[65] = "";
        char *model;
        uint64_t run;
        bool running = false;

        up(&d);
        model = harness_faulty_add_model(&d);
        c = client(&d);
        run = start(c, model, cands, 1, 30000);
        for (int i = 0; i < 300 && !running; i++) {
                accel_bench_progress_t *p = NULL;

                ck_assert_int_eq(accel_bench_progress(c, run, &p), 0);
                for (size_t k = 0; k < p->n_candidates; k++)
                        if (strstr(p->candidates[k].settings_json, "hang") &&
                            strcmp(p->candidates[k].state, "running") == 0)
                                running = true;
                (void) snprintf(sha, sizeof(sha), "%s", p->model_sha256);
                (void) accel_bench_progress_free(p);
                if (!running)
                        (void) nanosleep(&(struct timespec) { .tv_nsec = 50 * 1000 * 1000 }, NULL);
        }
        ck_assert(running);
        (void) accel_disconnect(c);
        (void) harness_signal_and_wait(&d, SIGKILL);

        harness_start(&d, NULL, harness_faulty_env(), -1);
        harness_wait_ready(&d, d.sock);
        c = client(&d);
        f.model_sha256 = sha;
        /* The start-up scan runs on the storage thread; give it a moment. */
        for (int i = 0; i < 100 && n == 0; i++) {
                ck_assert_msg(accel_bench_events(c, &f, &v, &n) == 0, "%s", accel_last_error());
                if (n == 0) {
                        accel_bench_events_free(v, n);
                        v = NULL;
                        (void) nanosleep(&(struct timespec) { .tv_nsec = 50 * 1000 * 1000 }, NULL);
                }
        }
        ck_assert_uint_eq(n, 1);
        ck_assert(v[0].has_error);
        ck_assert(v[0].has_exit_code);
        ck_assert_int_eq(v[0].exit_code, -1);
        ck_assert_ptr_nonnull(strstr(v[0].settings_json, "hang"));
        ck_assert_int_eq(v[0].n_error_codes, 1);
        ck_assert_int_eq(v[0].error_codes[0].underlying_api_error, -EOWNERDEAD);
        accel_bench_events_free(v, n);
        (void) accel_disconnect(c);
        free(model);
        harness_cleanup(&d);
}
END_TEST

START_TEST(test_minibench_export_appends_logged) {
        harness_daemon_t d = {};
        const char *const cands[] = { "{}" };
        accel_client_t *c;
        accel_bench_progress_t *p;
        uint8_t **v = NULL;
        size_t *sizes = NULL, n = 0;
        char *model;

        up(&d);
        model = harness_faulty_add_model(&d);
        c = client(&d);
        p = wait_run(c, start(c, model, cands, 1, 10000));
        ck_assert_int_eq(p->candidates[0].ok, 1);
        ck_assert_uint_eq(count_events(c, p->model_sha256, 4, NULL), 0);
        ck_assert_msg(accel_bench_export(c, p->model_sha256, 0, &v, &sizes, &n) == 0, "%s", accel_last_error());
        ck_assert_uint_eq(n, 2); /* START, END */
        ck_assert_uint_gt(sizes[0], 0);
        ck_assert_uint_eq(count_events(c, p->model_sha256, 4, NULL), 2);
        accel_bench_export_free(v, sizes, n);
        (void) accel_bench_progress_free(p);
        (void) accel_disconnect(c);
        free(model);
        harness_cleanup(&d);
}
END_TEST

static json_object *run_json(const char *const *argv) {
        char *out = NULL;
        json_object *o;
        int st = harness_run(argv, &out);

        ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s failed: %s", argv[3], out ? out : "");
        o = json_tokener_parse(out);
        ck_assert_msg(o != NULL, "not JSON: %s", out);
        free(out);
        return o;
}

START_TEST(test_minibench_accelctl_json) {
        harness_daemon_t d = {};
        json_object *o, *x, *e;
        char *model;

        up(&d);
        model = harness_faulty_add_model(&d);
        {
                const char *const argv[] = { harness_accelctl(), "--socket", d.sock, "bench", model, "--candidate",
                                             "{}", "--candidate", FAULTY("wrong-outputs"), "--runs", "3", "--json",
                                             NULL };
                o = run_json(argv);
        }
        ck_assert(json_object_object_get_ex(o, "model_sha256", &x));
        ck_assert_int_eq(json_object_get_string_len(x), 64);
        ck_assert(json_object_object_get_ex(o, "candidates", &x));
        ck_assert_int_eq(json_object_array_length(x), 2);
        e = json_object_array_get_idx(x, 1);
        ck_assert(json_object_object_get_ex(e, "ok", &x) && !json_object_get_boolean(x));
        ck_assert(json_object_object_get_ex(e, "settings", &x) && json_object_is_type(x, json_type_object));
        ck_assert(json_object_object_get_ex(e, "median_us", &x) && json_object_get_int64(x) >= 0);
        ck_assert(json_object_object_get_ex(e, "p90_us", &x));
        ck_assert(json_object_object_get_ex(e, "init_us", &x));
        ck_assert(json_object_object_get_ex(e, "max_memory_kb", &x));
        ck_assert(json_object_object_get_ex(e, "error", &x));
        ck_assert(json_object_object_get_ex(o, "best", &x) && json_object_is_type(x, json_type_object));
        ck_assert_int_eq(json_object_object_length(x), 0); /* {} = the reference path */
        json_object_put(o);
        {
                const char *const argv[] = { harness_accelctl(), "--socket", d.sock, "best", model, "--json", NULL };
                o = run_json(argv);
        }
        ck_assert(json_object_object_get_ex(o, "settings", &x));
        ck_assert(json_object_object_get_ex(o, "reason", &x));
        ck_assert_ptr_nonnull(strstr(json_object_get_string(x), "reference"));
        json_object_put(o);
        {
                const char *const argv[] = { harness_accelctl(), "--socket", d.sock, "events", "--type", "END",
                                             "--json", NULL };
                o = run_json(argv);
        }
        ck_assert_int_eq(json_object_array_length(o), 2);
        e = json_object_array_get_idx(o, 1);
        ck_assert(json_object_object_get_ex(e, "id", &x));
        ck_assert(json_object_object_get_ex(e, "model_sha256", &x));
        ck_assert(json_object_object_get_ex(e, "settings_key", &x));
        ck_assert(json_object_object_get_ex(e, "event_type", &x));
        ck_assert_str_eq(json_object_get_string(x), "END");
        ck_assert(json_object_object_get_ex(e, "tflite_settings", &x));
        ck_assert(json_object_object_get_ex(e, "result", &x));
        ck_assert(json_object_object_get_ex(x, "inference_time_us", &e));
        ck_assert_int_eq(json_object_array_length(e), 3);
        ck_assert(json_object_object_get_ex(x, "ok", &e) && !json_object_get_boolean(e));
        json_object_put(o);
        {
                char *path = NULL, *out = NULL;
                struct stat st;

                ck_assert_int_gt(asprintf(&path, "%s/events.bin", d.dir), 0);
                const char *const argv[] = { harness_accelctl(), "--socket", d.sock, "export", path, NULL };
                ck_assert_int_eq(harness_run(argv, &out), 0);
                ck_assert_int_eq(stat(path, &st), 0);
                ck_assert_int_gt(st.st_size, 4);
                free(out);
                free(path);
        }
        free(model);
        harness_cleanup(&d);
}
END_TEST

START_TEST(test_minibench_real_model) {
        const char *shared = getenv("ACCELD_SHARED_DIR");
        harness_daemon_t d = {};
        accel_client_t *c;
        accel_bench_progress_t *p;
        char model[512];
        uint64_t run = 0;
        int fd;

        if (!shared)
                return; /* no shared data: nothing to check here */
        (void) snprintf(model, sizeof(model), "%s/models/hello_world_float.tflite", shared);
        if (access(model, R_OK) < 0)
                return;
        up(&d);
        c = client(&d);
        fd = open(model, O_RDONLY | O_CLOEXEC);
        ck_assert_int_ge(fd, 0);
        {
                accel_bench_options_t o = { .runs = 3 };

                ck_assert_msg(accel_bench_start(c, fd, NULL, &o, &run) == 0, "%s", accel_last_error());
        }
        (void) close(fd);
        p = wait_run(c, run);
        ck_assert_uint_ge(p->n_candidates, 2); /* reference + at least the faulty plugin */
        for (size_t i = 0; i < p->n_candidates; i++) {
                ck_assert_str_eq(p->candidates[i].state, "done");
                ck_assert_msg(p->candidates[i].ok == 1, "%s: %s", p->candidates[i].label, p->candidates[i].error);
        }
        ck_assert_str_ne(p->best_label, "");
        ck_assert_uint_eq(count_events(c, p->model_sha256, 1, NULL), p->n_candidates);
        (void) accel_bench_progress_free(p);
        (void) accel_disconnect(c);
        harness_cleanup(&d);
}
END_TEST

/* A database written by schema version 1 (docs/storage.md) is migrated when
 * acceld starts, and its events are served. */
START_TEST(test_minibench_old_schema_migrates) {
        harness_daemon_t d = {};
        accel_client_t *c;
        accel_bench_event_t *v = NULL;
        size_t n = 0;
        sqlite3 *db;
        char path[400];
        /* BenchmarkEvent{event_type: END, result{inference_time_us: [5], ok: true}} */
        static const unsigned char blob[] = { 0x10, 0x02, 0x1a, 0x05, 0x12, 0x01, 0x05, 0x20, 0x01 };
        sqlite3_stmt *st;

        harness_prepare(&d);
        ck_assert_int_eq(mkdir(d.state, 0750), 0);
        (void) snprintf(path, sizeof(path), "%s/acceld.db", d.state);
        ck_assert_int_eq(sqlite3_open(path, &db), SQLITE_OK);
        ck_assert_int_eq(sqlite3_exec(db,
                "CREATE TABLE models (sha256 TEXT PRIMARY KEY NOT NULL CHECK (length(sha256) = 64), name TEXT UNIQUE,"
                " size INTEGER NOT NULL, path TEXT NOT NULL, added_at INTEGER NOT NULL, last_used_at INTEGER NOT NULL);"
                "CREATE TABLE benchmark_events (id INTEGER PRIMARY KEY, model_sha256 TEXT NOT NULL,"
                " settings_key TEXT NOT NULL, event_type INTEGER NOT NULL, boottime_us INTEGER NOT NULL,"
                " wallclock_us INTEGER NOT NULL, ok INTEGER, blob BLOB NOT NULL);"
                "CREATE INDEX benchmark_events_model_settings ON benchmark_events (model_sha256, settings_key);"
                "CREATE INDEX benchmark_events_type ON benchmark_events (event_type);"
                "CREATE TABLE decisions (model_sha256 TEXT NOT NULL, preference INTEGER NOT NULL,"
                " settings_key TEXT NOT NULL, settings BLOB NOT NULL, reason TEXT NOT NULL,"
                " driver_versions TEXT NOT NULL, decided_at INTEGER NOT NULL, PRIMARY KEY (model_sha256, preference));"
                "CREATE TABLE compile_cache (token TEXT PRIMARY KEY NOT NULL, model_sha256 TEXT NOT NULL,"
                " settings_key TEXT NOT NULL, driver TEXT NOT NULL, driver_version TEXT NOT NULL, path TEXT NOT NULL,"
                " size INTEGER NOT NULL, checksum TEXT NOT NULL, created_at INTEGER NOT NULL);"
                "CREATE INDEX compile_cache_model ON compile_cache (model_sha256);"
                "PRAGMA user_version = 1;",
                NULL, NULL, NULL), SQLITE_OK);
        ck_assert_int_eq(sqlite3_prepare_v2(db,
                "INSERT INTO benchmark_events VALUES (7, '2222222222222222222222222222222222222222222222222222222222222222',"
                " '', 2, 1, 1000, 1, ?)", -1, &st, NULL), SQLITE_OK);
        ck_assert_int_eq(sqlite3_bind_blob(st, 1, blob, sizeof(blob), SQLITE_STATIC), SQLITE_OK);
        ck_assert_int_eq(sqlite3_step(st), SQLITE_DONE);
        sqlite3_finalize(st);
        sqlite3_close(db);

        harness_start(&d, NULL, harness_faulty_env(), -1);
        harness_wait_ready(&d, d.sock);
        c = client(&d);
        ck_assert_msg(accel_bench_events(c, NULL, &v, &n) == 0, "%s", accel_last_error());
        ck_assert_uint_eq(n, 1);
        ck_assert_int_eq(v[0].id, 7);
        ck_assert_int_eq(v[0].event_type, 2);
        ck_assert(v[0].has_ok && v[0].ok);
        ck_assert_uint_eq(v[0].n_inference_time_us, 1);
        ck_assert_int_eq(v[0].inference_time_us[0], 5);
        accel_bench_events_free(v, n);
        {
                accel_bench_best_t *b = NULL;

                /* Selection reads the migrated median column. */
                ck_assert_int_eq(accel_bench_best(c, "2222222222222222222222222222222222222222222222222222222222222222",
                                                  1, &b), 0);
                ck_assert_str_eq(b->settings_json, "{}");
                (void) accel_bench_best_free(b);
        }
        (void) accel_disconnect(c);
        ck_assert_int_eq(sqlite3_open(path, &db), SQLITE_OK);
        ck_assert_int_eq(sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL), SQLITE_OK);
        ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
        ck_assert_int_ge(sqlite3_column_int(st, 0), 2);
        sqlite3_finalize(st);
        sqlite3_close(db);
        harness_cleanup(&d);
}
END_TEST

/* PrepareModel with the model's bytes and no settings; returns the
 * instance's settings key (malloc'ed). */
static char *prepare_key(const harness_daemon_t *d, const char *model, int preference) {
        Acceld__Request req = ACCELD__REQUEST__INIT;
        Acceld__PrepareModelRequest pm = ACCELD__PREPARE_MODEL_REQUEST__INIT;
        ProtobufCMessage *m = NULL;
        Acceld__Response *resp;
        ipc_reader_t rd;
        FILE *f = fopen(model, "re");
        uint8_t buf[4096];
        size_t n;
        char *key;
        int fd = harness_connect(d->sock);

        ck_assert_ptr_nonnull(f);
        n = fread(buf, 1, sizeof(buf), f);
        fclose(f);
        ck_assert_int_ge(fd, 0);
        pm.has_model = 1;
        pm.model.data = buf;
        pm.model.len = n;
        pm.has_preference = 1;
        pm.preference = preference;
        req.has_request_id = 1;
        req.request_id = 1;
        req.body_case = ACCELD__REQUEST__BODY_PREPARE_MODEL;
        req.prepare_model = &pm;
        ck_assert_int_eq(ipc_send(fd, &req.base, NULL, 0), 0);
        ipc_reader_init(&rd, 0);
        ck_assert_int_eq(ipc_recv(fd, &rd, &acceld__response__descriptor, &m), 0);
        resp = (Acceld__Response *) m;
        ck_assert_msg(resp->status == ACCELD__STATUS__NONE, "%s", resp->message ? resp->message : "");
        key = strdup(resp->prepare_model->settings_key);
        acceld__response__free_unpacked(resp, NULL);
        ipc_reader_done(&rd);
        (void) close(fd);
        return key;
}

START_TEST(test_minibench_prepare_uses_decision) {
        harness_daemon_t d = {};
        const char *const cands[] = { "{}" };
        accel_client_t *c;
        accel_bench_progress_t *p;
        char *model, *key;

        up(&d);
        model = harness_faulty_add_model(&d);
        /* No decision yet: the daemon's default. */
        key = prepare_key(&d, model, 3);
        ck_assert_ptr_null(strstr(key, "delegate=NONE;"));
        free(key);
        c = client(&d);
        p = wait_run(c, start(c, model, cands, 1, 10000));
        ck_assert_int_eq(p->candidates[0].ok, 1);
        (void) accel_bench_progress_free(p);
        (void) accel_disconnect(c);
        /* FORCE_CPU's decision is the reference path. */
        key = prepare_key(&d, model, 3);
        ck_assert_msg(strstr(key, "delegate=NONE;") != NULL, "settings key '%s'", key);
        free(key);
        free(model);
        harness_cleanup(&d);
}
END_TEST

/* A run of `runs` inferences per candidate (NULL cands: generated). */
static uint64_t start_runs(accel_client_t *c, const char *model, const char *const *cands, size_t n, uint32_t runs) {
        accel_bench_options_t o = { .candidates_json = cands, .n_candidates = n, .runs = runs, .timeout_ms = 30000 };
        uint64_t run = 0;
        int fd = open(model, O_RDONLY | O_CLOEXEC);

        ck_assert_int_ge(fd, 0);
        ck_assert_msg(accel_bench_start(c, fd, NULL, &o, &run) == 0, "%s", accel_last_error());
        (void) close(fd);
        return run;
}

/* The END events of settings matching `needle`: how many, and the runs
 * of the last one. */
static size_t end_runs(accel_client_t *c, const char *sha, const char *needle, size_t *ret_runs) {
        accel_bench_event_filter_t f = { .model_sha256 = sha, .event_type = 2 };
        accel_bench_event_t *v = NULL;
        size_t n = 0, k = 0;

        ck_assert_msg(accel_bench_events(c, &f, &v, &n) == 0, "%s", accel_last_error());
        for (size_t i = 0; i < n; i++)
                if (strstr(v[i].settings_json, needle)) {
                        k++;
                        *ret_runs = v[i].n_inference_time_us;
                }
        accel_bench_events_free(v, n);
        return k;
}

#define SLOW_100MS "{\"delegate\":\"faulty\",\"plugin_settings\":{\"mode\":\"slow\",\"delay_ms\":100}}"

/* A candidate far slower than the best so far (100 ms a run against
 * microseconds: over 4x the bar in its first two runs) stops after 2 of
 * its 8 runs, and is recorded as pruned: its END event carries our field
 * 1000 (2) and the events table its reason; the one as fast as the best runs
 * all 8. Selection's reason says what was pruned. */
START_TEST(test_minibench_pruned_recorded) {
        harness_daemon_t d = {};
        const char *const cands[] = { "{}", FAULTY("none"), SLOW_100MS };
        accel_client_t *c;
        accel_bench_progress_t *p;
        accel_bench_best_t *b = NULL;
        char *model, path[400];
        size_t runs = 0;
        sqlite3 *db;
        sqlite3_stmt *st;
        int rows = 0;

        up(&d);
        model = harness_faulty_add_model(&d);
        c = client(&d);
        p = wait_run(c, start_runs(c, model, cands, 3, 8));
        ck_assert_str_eq(find(p, "slow")->state, "done");
        ck_assert_int_eq(find(p, "slow")->ok, 1);
        ck_assert_msg(strstr(find(p, "slow")->error, "pruned after 2 runs:") != NULL, "%s", find(p, "slow")->error);
        ck_assert_str_eq(find(p, "\"none\"")->error, "");
        ck_assert_uint_eq(end_runs(c, p->model_sha256, "slow", &runs), 1);
        ck_assert_uint_eq(runs, 2);
        ck_assert_uint_eq(end_runs(c, p->model_sha256, "\"none\"", &runs), 1);
        ck_assert_uint_eq(runs, 8);
        ck_assert_int_eq(accel_bench_best(c, p->model_sha256, 1, &b), 0);
        ck_assert_msg(strstr(b->reason, "(pruned after 2 runs); 1 pruned") != NULL, "%s", b->reason);
        (void) accel_bench_best_free(b);

        /* In SQLite: the END event's blob has field 1000 = 2 and its
         * message says why. */
        (void) snprintf(path, sizeof(path), "%s/acceld.db", d.state);
        ck_assert_int_eq(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
        ck_assert_int_eq(sqlite3_prepare_v2(db,
                "SELECT blob, error_message FROM benchmark_events WHERE event_type = 2 AND model_sha256 = ?1",
                -1, &st, NULL), SQLITE_OK);
        ck_assert_int_eq(sqlite3_bind_text(st, 1, p->model_sha256, -1, SQLITE_STATIC), SQLITE_OK);
        while (sqlite3_step(st) == SQLITE_ROW) {
                Tflite__Proto__BenchmarkEvent *ev = tflite__proto__benchmark_event__unpack(
                        NULL, (size_t) sqlite3_column_bytes(st, 0), sqlite3_column_blob(st, 0));
                const char *msg = (const char *) sqlite3_column_text(st, 1);
                bool pruned = false;

                ck_assert_ptr_nonnull(ev);
                for (size_t i = 0; i < ev->base.n_unknown_fields; i++)
                        if (ev->base.unknown_fields[i].tag == 1000) {
                                ck_assert_uint_eq(ev->base.unknown_fields[i].len, 1);
                                ck_assert_uint_eq(ev->base.unknown_fields[i].data[0], 2);
                                pruned = true;
                        }
                ck_assert_uint_eq(pruned ? 2 : 8, ev->result->n_inference_time_us);
                if (pruned) {
                        ck_assert_ptr_nonnull(msg);
                        ck_assert_msg(strstr(msg, "pruned after 2 runs:") != NULL, "%s", msg);
                }
                rows += pruned;
                tflite__proto__benchmark_event__free_unpacked(ev, NULL);
        }
        sqlite3_finalize(st);
        sqlite3_close(db);
        ck_assert_int_eq(rows, 1);
        (void) accel_bench_progress_free(p);
        (void) accel_disconnect(c);
        free(model);
        harness_cleanup(&d);
}
END_TEST

/* benchmark_budget_ms bounds the search: with 1 ms the golden reference
 * run starts (the worker's start alone takes longer), the other
 * candidates are not started, and the event log holds the reference's
 * events alone. */
START_TEST(test_minibench_budget_bounds_search) {
        harness_daemon_t d = {};
        const char *const args[] = { "--benchmark-budget-ms=1", NULL };
        const char *const cands[] = { "{}", FAULTY("none"), SLOW_100MS };
        accel_client_t *c;
        accel_bench_progress_t *p;
        size_t runs = 0;

        harness_prepare(&d);
        harness_start(&d, args, harness_faulty_env(), -1);
        harness_wait_ready(&d, d.sock);
        {
                char *model = harness_faulty_add_model(&d);

                c = client(&d);
                p = wait_run(c, start_runs(c, model, cands, 3, 8));
                free(model);
        }
        ck_assert_uint_eq(p->n_candidates, 3);
        ck_assert_str_eq(p->candidates[0].state, "done");
        for (size_t i = 1; i < 3; i++) {
                ck_assert_str_eq(p->candidates[i].state, "skipped");
                ck_assert_msg(strstr(p->candidates[i].error, "search budget") != NULL, "%s", p->candidates[i].error);
        }
        ck_assert_uint_eq(count_events(c, p->model_sha256, 1, NULL), 1);
        ck_assert_uint_eq(count_events(c, p->model_sha256, 2, NULL), 1);
        ck_assert_uint_eq(count_events(c, p->model_sha256, 1, "faulty"), 0);
        /* Its runs stop at its share of what was left (at least 3). */
        ck_assert_uint_eq(end_runs(c, p->model_sha256, "{}", &runs), 1);
        ck_assert_uint_ge(runs, 3);
        (void) accel_bench_progress_free(p);
        (void) accel_disconnect(c);
        harness_cleanup(&d);
}
END_TEST

/* Whether some candidate's label is exactly `label`. */
static bool has_label(const accel_bench_progress_t *p, const char *label) {
        for (size_t i = 0; i < p->n_candidates; i++)
                if (strcmp(p->candidates[i].label, label) == 0)
                        return true;
        return false;
}

/* y = a + b on int8[1,4] (one scale): XNNPACK's QS8 path. */
static char *write_int8_add_model(const harness_daemon_t *d) {
        tfb_t *b = tfb_new();
        int32_t sh[2] = { 1, 4 }, t[3];
        uint8_t *bytes;
        size_t size;
        char *path;
        FILE *f;

        for (int i = 0; i < 3; i++)
                t[i] = tfb_tensor_quant(b, RT_TYPE_INT8, NULL, 2, sh, 0.5f, 0, NULL, 0);
        tfb_op_add(b, &(tfb_op_t) { .opcode = tfb_opcode_builtin(b, RT_BUILTIN_ADD, 1), .inputs = t, .n_inputs = 2,
                                    .outputs = &t[2], .n_outputs = 1 });
        tfb_io(b, t, 2, &t[2], 1);
        bytes = tfb_finish(b, &size);
        tfb_free(b);
        ck_assert_int_gt(asprintf(&path, "%s/add-int8.tflite", d->dir), 0);
        f = fopen(path, "we");
        ck_assert_ptr_nonnull(f);
        ck_assert_uint_eq(fwrite(bytes, 1, size, f), size);
        ck_assert_int_eq(fclose(f), 0);
        free(bytes);
        return path;
}

/* The generated candidates follow the model, through the real daemon: a
 * float model gets XNNPACK at 1 .. N threads (N at most the CPUs acceld
 * may use) and no quantized-path candidate; an int8 model also gets its
 * QS8 path off (QU8 alone) at the fastest thread count. */
START_TEST(test_minibench_generated_follow_model) {
        harness_daemon_t d = {};
        accel_client_t *c;
        accel_bench_progress_t *p;
        char *model, label[64];
        cpu_set_t set;
        int cpus, top = 0;

        ck_assert_int_eq(sched_getaffinity(0, sizeof(set), &set), 0);
        cpus = CPU_COUNT(&set);
        up(&d);
        c = client(&d);
        model = harness_faulty_add_model(&d);
        p = wait_run(c, start_runs(c, model, NULL, 0, 3));
        free(model);
        for (int t = 1; t <= cpus; t++) {
                (void) snprintf(label, sizeof(label), "xnnpack/%dt", t);
                if (has_label(p, label))
                        top = t;
                else
                        break;
        }
        ck_assert_int_ge(top, 1);
        (void) snprintf(label, sizeof(label), "xnnpack/%dt", top + 1);
        ck_assert(!has_label(p, label));
        ck_assert(has_label(p, "reference"));
        for (size_t i = 0; i < p->n_candidates; i++) {
                ck_assert_ptr_null(strstr(p->candidates[i].label, "/qs8"));
                ck_assert_ptr_null(strstr(p->candidates[i].label, "/qu8"));
                ck_assert_ptr_null(strstr(p->candidates[i].label, "/sparse"));
        }
        (void) accel_bench_progress_free(p);

        model = write_int8_add_model(&d);
        p = wait_run(c, start_runs(c, model, NULL, 0, 3));
        free(model);
        {
                size_t n_qu8 = 0;

                for (size_t i = 0; i < p->n_candidates; i++)
                        if (strstr(p->candidates[i].label, "/qu8")) {
                                n_qu8++;
                                ck_assert_str_eq(p->candidates[i].state, "done");
                                ck_assert_msg(p->candidates[i].ok == 1, "%s", p->candidates[i].error);
                        }
                ck_assert_uint_eq(n_qu8, 1);
                for (size_t i = 0; i < p->n_candidates; i++)
                        ck_assert_ptr_null(strstr(p->candidates[i].label, "/qs8"));
        }
        (void) accel_bench_progress_free(p);
        (void) accel_disconnect(c);
        harness_cleanup(&d);
}
END_TEST

/* The confirmation rounds of a generated search, through the real daemon
 * and its SQLite log: on the test model every candidate computes in
 * microseconds (within 1 ms of the best), so the fastest ones (at most 4)
 * run 5 more interleaved rounds; each one's latest END carries the 5 round
 * medians (field 1001) and the runs of every round, and
 * selection's reason reports the medians with their rounds and range. */
START_TEST(test_minibench_confirmed_in_rounds) {
        harness_daemon_t d = {};
        accel_client_t *c;
        accel_bench_progress_t *p;
        accel_bench_best_t *b = NULL;
        char *model, path[400];
        sqlite3 *db;
        sqlite3_stmt *st;
        int confirmed = 0, rows = 0;

        up(&d);
        c = client(&d);
        model = harness_faulty_add_model(&d);
        p = wait_run(c, start_runs(c, model, NULL, 0, 3));
        free(model);
        ck_assert_int_eq(accel_bench_best(c, p->model_sha256, 1, &b), 0);
        ck_assert_msg(strstr(b->reason, " (5 rounds, ") != NULL, "%s", b->reason);
        (void) accel_bench_best_free(b);

        (void) snprintf(path, sizeof(path), "%s/acceld.db", d.state);
        ck_assert_int_eq(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
        ck_assert_int_eq(sqlite3_prepare_v2(db,
                "SELECT blob FROM benchmark_events WHERE event_type = 2 AND model_sha256 = ?1 ORDER BY id",
                -1, &st, NULL), SQLITE_OK);
        ck_assert_int_eq(sqlite3_bind_text(st, 1, p->model_sha256, -1, SQLITE_STATIC), SQLITE_OK);
        while (sqlite3_step(st) == SQLITE_ROW) {
                Tflite__Proto__BenchmarkEvent *ev = tflite__proto__benchmark_event__unpack(
                        NULL, (size_t) sqlite3_column_bytes(st, 0), sqlite3_column_blob(st, 0));
                size_t rounds = 0;

                ck_assert_ptr_nonnull(ev);
                for (size_t i = 0; i < ev->base.n_unknown_fields; i++)
                        rounds += ev->base.unknown_fields[i].tag == 1001;
                if (rounds) {
                        ck_assert_uint_eq(rounds, 5);
                        /* 3 runs a round at least (the job's 3 runs). */
                        ck_assert_uint_ge(ev->result->n_inference_time_us, 15);
                        ck_assert_int_eq(ev->result->ok, 1);
                        confirmed++;
                }
                rows++;
                tflite__proto__benchmark_event__free_unpacked(ev, NULL);
        }
        sqlite3_finalize(st);
        sqlite3_close(db);
        /* The first END of every candidate, then one more per confirmed one. */
        ck_assert_int_ge(confirmed, 2);
        ck_assert_int_eq(rows, (int) p->n_candidates + confirmed);
        (void) accel_bench_progress_free(p);
        (void) accel_disconnect(c);
        harness_cleanup(&d);
}
END_TEST

static Suite *minibench_suite(void) {
        Suite *s = suite_create("minibench");
        TCase *tc = tcase_create("daemon");

        tcase_set_timeout(tc, 120);
        tcase_add_test(tc, test_minibench_faulty_modes_caught);
        tcase_add_test(tc, test_minibench_crashed_twice_not_retried);
        tcase_add_test(tc, test_minibench_kill9_reported_after_restart);
        tcase_add_test(tc, test_minibench_export_appends_logged);
        tcase_add_test(tc, test_minibench_accelctl_json);
        tcase_add_test(tc, test_minibench_real_model);
        tcase_add_test(tc, test_minibench_old_schema_migrates);
        tcase_add_test(tc, test_minibench_prepare_uses_decision);
        tcase_add_test(tc, test_minibench_pruned_recorded);
        tcase_add_test(tc, test_minibench_budget_bounds_search);
        tcase_add_test(tc, test_minibench_generated_follow_model);
        tcase_add_test(tc, test_minibench_confirmed_in_rounds);
        suite_add_tcase(s, tc);
        return s;
}

int main(int argc, char **argv) {
        SRunner *sr;
        int failed;

        harness_init(argc, argv);
        if (!harness_faulty_init(argc, argv))
                return 77;
        sr = srunner_create(minibench_suite());
        srunner_run_all(sr, CK_NORMAL);
        failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed ? 1 : 0;
}
