/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Integration: the compilation cache (NNAPI-style cache tokens) against the
 * real acceld: PrepareModel with a token and a model records an entry; a
 * token alone prepares from it (golden outputs), also after a restart;
 * tampered, stale and missing entries are refused with clear messages and
 * rebuilt by the next prepare with the model. Plus the uid-scoped key
 * derivation at unit level (a test cannot switch uid).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <check.h>

#include "file-read.h"
#include "accel/accel.h"
#include "cache.h"
#include "golden.h"
#include "harness-frames.h"
#include "harness.h"
#include "ipc.h"
#include "storage.h"
#include "tflite-builder.h"
#include "tfb-models.h"

static harness_daemon_t d;

static const char *settings_none = "{\"delegate\": \"NONE\"}";

static void setup(void) {
        harness_up(&d);
}

static void teardown(void) {
        harness_cleanup(&d);
}

static void restart(void) {
        harness_restart(&d, NULL);
}

static void stop(void) {
        harness_stop(&d);
}

static void start(void) {
        harness_resume(&d, NULL);
}

/* ---- frames (harness-frames.h) ---- */

typedef harness_client_t client_t;
#define client_open(c) harness_client_open((c), d.sock)
#define client_close harness_client_close
#define transact(c, req) harness_transact((c), (req), NULL, 0)
#define resp_free harness_resp_free

/* PrepareModel with `model` (NULL: none) and `token` (NULL: none). */
static Acceld__Response *prepare(client_t *c, const void *model, size_t size, const char *token,
                                 const char *settings) {
        Acceld__Request req = ACCELD__REQUEST__INIT;
        Acceld__PrepareModelRequest p = ACCELD__PREPARE_MODEL_REQUEST__INIT;

        if (model) {
                p.has_model = 1;
                p.model.data = (uint8_t *) model;
                p.model.len = size;
        }
        if (token) {
                p.has_cache_token = 1;
                p.cache_token.data = (uint8_t *) token;
                p.cache_token.len = strlen(token);
        }
        p.settings_json = (char *) settings;
        req.body_case = ACCELD__REQUEST__BODY_PREPARE_MODEL;
        req.prepare_model = &p;
        return transact(c, &req);
}

/* Prepare with model and token: succeeds, not from the cache, entry written. */
static void prepare_with_model(client_t *c, const void *model, size_t size, const char *token) {
        Acceld__Response *r = prepare(c, model, size, token, settings_none);

        ck_assert_msg(r->status == ACCELD__STATUS__NONE, "prepare: %s", r->message);
        ck_assert(r->prepare_model->has_cache_written && r->prepare_model->cache_written);
        ck_assert(r->prepare_model->has_from_cache && !r->prepare_model->from_cache);
        resp_free(r);
}

static Acceld__Response *execute_inline(client_t *c, uint64_t h, const void *in, size_t size) {
        Acceld__Request req = ACCELD__REQUEST__INIT;
        Acceld__ExecuteRequest e = ACCELD__EXECUTE_REQUEST__INIT;
        Acceld__TensorData t = ACCELD__TENSOR_DATA__INIT, *ts[1] = { &t };

        t.has_data = 1;
        t.data.data = (uint8_t *) in;
        t.data.len = size;
        e.has_handle = 1;
        e.handle = h;
        e.n_inputs = 1;
        e.inputs = ts;
        req.body_case = ACCELD__REQUEST__BODY_EXECUTE;
        req.execute = &e;
        return transact(c, &req);
}

/* ---- golden mobilenet ---- */

typedef struct golden {
        golden_manifest_t *man;
        const golden_model_t *g;
        void *model, *input, *want;
        size_t model_size, in_size, want_size;
} golden_t;

static bool golden_load(golden_t *gd) {
        const char *shared = golden_shared_dir();
        char err[256];

        *gd = (golden_t) { 0 };
        if (!shared || golden_manifest_load(shared, &gd->man, err, sizeof(err)) < 0) {
                fprintf(stderr, "skipped: no ../shared models\n");
                return false;
        }
        gd->g = golden_manifest_find(gd->man, "mobilenet_v1_0.25_224_float");
        ck_assert_ptr_nonnull(gd->g);
        ck_assert_int_eq(acc_file_read(gd->g->path, &gd->model, &gd->model_size), 0);
        ck_assert_int_eq(acc_file_read(gd->g->inputs[0].path, &gd->input, &gd->in_size), 0);
        ck_assert_int_eq(acc_file_read(gd->g->outputs[0].path, &gd->want, &gd->want_size), 0);
        return true;
}

static void golden_done(golden_t *gd) {
        free(gd->model);
        free(gd->input);
        free(gd->want);
        golden_manifest_free(gd->man);
}

/* Prepare from `token` alone on a new connection, check the reply and the
 * golden outputs. The connection stays open in *c (shared tells whether
 * the instance must have been reused). */
static void from_cache_golden(client_t *c, const golden_t *gd, const char *token, bool want_shared) {
        Acceld__Response *r, *e;
        golden_result_t res;
        char sha[ACC_SHA256_HEX_SIZE];

        client_open(c);
        r = prepare(c, NULL, 0, token, NULL);
        ck_assert_msg(r->status == ACCELD__STATUS__NONE, "from cache: %s", r->message);
        ck_assert(r->prepare_model->has_from_cache && r->prepare_model->from_cache);
        ck_assert(!r->prepare_model->cache_written);
        ck_assert_int_eq(r->prepare_model->shared, want_shared);
        acc_sha256_hex(gd->model, gd->model_size, sha);
        ck_assert_str_eq(r->prepare_model->sha256, sha);
        /* The recorded settings, not the daemon's default choice. */
        ck_assert_ptr_nonnull(strstr(r->prepare_model->settings_key, "delegate=NONE"));
        ck_assert_uint_eq(r->prepare_model->n_partitions, 1);
        ck_assert_str_eq(r->prepare_model->partitions[0]->driver, "reference");
        e = execute_inline(c, r->prepare_model->handle, gd->input, gd->in_size);
        ck_assert_msg(e->status == ACCELD__STATUS__NONE, "execute: %s", e->message);
        ck_assert_int_eq(golden_compare(&gd->g->outputs[0], GOLDEN_TOL_REFERENCE, e->execute->outputs[0]->data.data,
                                        e->execute->outputs[0]->data.len, gd->want, gd->want_size, &res), 0);
        ck_assert_msg(res.pass, "%s", res.message);
        resp_free(e);
        resp_free(r);
}

/* <state>/cache/<sha256(key)>.bin of `token` for our uid. */
static void entry_path(const char *token, char *buf, size_t size) {
        char key[DAEMON_CACHE_KEY_SIZE], h[ACC_SHA256_HEX_SIZE];

        ck_assert_int_eq(daemon_cache_key(getuid(), token, strlen(token), key, sizeof(key)), 0);
        acc_sha256_hex(key, strlen(key), h);
        (void) snprintf(buf, size, "%s/cache/%s.bin", d.state, h);
}

static void flip_last_byte(const char *path) {
        struct stat st;
        uint8_t b;
        int fd = open(path, O_RDWR | O_CLOEXEC);

        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(fstat(fd, &st), 0);
        ck_assert_int_gt(st.st_size, 0);
        ck_assert_int_eq(pread(fd, &b, 1, st.st_size - 1), 1);
        b ^= 0x01;
        ck_assert_int_eq(pwrite(fd, &b, 1, st.st_size - 1), 1);
        (void) close(fd);
}

/* A NOT_FOUND whose message contains `what`. */
static void expect_refused(const char *token, const char *what) {
        client_t c;
        Acceld__Response *r;

        client_open(&c);
        r = prepare(&c, NULL, 0, token, NULL);
        ck_assert_int_eq(r->status, ACCELD__STATUS__NOT_FOUND);
        ck_assert_msg(strstr(r->message, what) != NULL, "message '%s' lacks '%s'", r->message, what);
        resp_free(r);
        client_close(&c);
}

/* ---- tests ---- */

START_TEST(test_cache_key_is_scoped_to_the_uid) {
        char a[DAEMON_CACHE_KEY_SIZE], b[DAEMON_CACHE_KEY_SIZE];
        uint8_t big[DAEMON_CACHE_TOKEN_MAX + 1] = { 0 };

        ck_assert_int_eq(daemon_cache_key(1000, "\x01\xab", 2, a, sizeof(a)), 0);
        ck_assert_str_eq(a, "uid=1000;token=01ab");
        ck_assert_int_eq(daemon_cache_key(1001, "\x01\xab", 2, b, sizeof(b)), 0);
        ck_assert_str_eq(b, "uid=1001;token=01ab");
        ck_assert_str_ne(a, b);
        /* A uid prefix cannot be forged through the token bytes: they are hex. */
        ck_assert_int_eq(daemon_cache_key(10, "0;token=01", 10, b, sizeof(b)), 0);
        ck_assert_str_eq(b, "uid=10;token=303b746f6b656e3d3031");
        ck_assert_int_eq(daemon_cache_key(0, big, DAEMON_CACHE_TOKEN_MAX, a, sizeof(a)), 0);
        ck_assert_uint_eq(strlen(a), strlen("uid=0;token=") + 2 * DAEMON_CACHE_TOKEN_MAX);
        ck_assert_int_eq(daemon_cache_key(0, big, DAEMON_CACHE_TOKEN_MAX + 1, a, sizeof(a)), -EINVAL);
        ck_assert_int_eq(daemon_cache_key(0, big, 0, a, sizeof(a)), -EINVAL);
        ck_assert_int_eq(daemon_cache_key(0, NULL, 1, a, sizeof(a)), -EINVAL);
        ck_assert_int_eq(daemon_cache_key(0, big, 1, a, 8), -EINVAL);
}
END_TEST

START_TEST(test_cache_record_round_trips) {
        char *drivers[2] = { (char *) "xnnpack", (char *) "reference" };
        int32_t nodes[2] = { 30, 1 };
        daemon_cache_record_t rec = {
                .settings = (uint8_t *) "\x08\x04", .settings_size = 2,
                .settings_key = (char *) "delegate=XNNPACK", .part_drivers = drivers, .part_nodes = nodes,
                .n_parts = 2, .driver = (char *) "xnnpack", .driver_versions = (char *) "xnnpack=1;reference=1",
        }, back = { 0 };
        uint8_t *blob = NULL;
        size_t size = 0;

        (void) snprintf(rec.key, sizeof(rec.key), "uid=5;token=aa");
        memset(rec.model_sha256, 'a', 64);
        ck_assert_int_eq(daemon_cache_record_pack(&rec, &blob, &size), 0);
        ck_assert_int_eq(daemon_cache_record_unpack(blob, size, &back), 0);
        ck_assert_str_eq(back.key, "uid=5;token=aa");
        ck_assert_str_eq(back.model_sha256, rec.model_sha256);
        ck_assert_uint_eq(back.settings_size, 2);
        ck_assert_int_eq(memcmp(back.settings, "\x08\x04", 2), 0);
        ck_assert_str_eq(back.settings_key, "delegate=XNNPACK");
        ck_assert_uint_eq(back.n_parts, 2);
        ck_assert_str_eq(back.part_drivers[1], "reference");
        ck_assert_int_eq(back.part_nodes[0], 30);
        ck_assert_str_eq(back.driver_versions, "xnnpack=1;reference=1");
        daemon_cache_record_done(&back);
        /* Garbage does not decode. */
        ck_assert_int_eq(daemon_cache_record_unpack("\xff\xff\xff", 3, &back), -EBADMSG);
        free(blob);
}
END_TEST

START_TEST(test_cache_token_with_model_writes_entry) {
        golden_t gd;
        client_t c;
        char path[700];
        struct stat st;

        if (!golden_load(&gd))
                return;
        client_open(&c);
        prepare_with_model(&c, gd.model, gd.model_size, "token-1");
        client_close(&c);
        entry_path("token-1", path, sizeof(path));
        ck_assert_msg(stat(path, &st) == 0, "%s: %s", path, strerror(errno));
        ck_assert_int_gt(st.st_size, 0);
        /* The model is in the content-addressed store. */
        {
                char sha[ACC_SHA256_HEX_SIZE], mp[700];

                acc_sha256_hex(gd.model, gd.model_size, sha);
                (void) snprintf(mp, sizeof(mp), "%s/models/%s.tflite", d.state, sha);
                ck_assert_int_eq(stat(mp, &st), 0);
                ck_assert_uint_eq((uint64_t) st.st_size, gd.model_size);
        }
        golden_done(&gd);
}
END_TEST

START_TEST(test_cache_prepare_from_token_on_new_connection) {
        golden_t gd;
        client_t a, b, c;

        if (!golden_load(&gd))
                return;
        client_open(&a);
        prepare_with_model(&a, gd.model, gd.model_size, "token-2");
        client_close(&a);       /* the compiled instance goes away */
        from_cache_golden(&b, &gd, "token-2", false);
        /* While b holds it, the live instance is shared. */
        from_cache_golden(&c, &gd, "token-2", true);
        client_close(&c);
        client_close(&b);
        golden_done(&gd);
}
END_TEST

START_TEST(test_cache_survives_restart) {
        golden_t gd;
        client_t a, b;

        if (!golden_load(&gd))
                return;
        client_open(&a);
        prepare_with_model(&a, gd.model, gd.model_size, "token-3");
        client_close(&a);
        restart();
        from_cache_golden(&b, &gd, "token-3", false);
        client_close(&b);
        golden_done(&gd);
}
END_TEST

START_TEST(test_cache_tampered_entry_is_rejected_then_rebuilt) {
        golden_t gd;
        client_t a, b;
        char path[700];
        struct stat st;

        if (!golden_load(&gd))
                return;
        client_open(&a);
        prepare_with_model(&a, gd.model, gd.model_size, "token-4");
        client_close(&a);
        entry_path("token-4", path, sizeof(path));
        flip_last_byte(path);
        expect_refused("token-4", "is corrupt and was removed");
        /* Removed, never trusted: asking again is a plain miss. */
        ck_assert_int_eq(stat(path, &st), -1);
        expect_refused("token-4", "no cache entry for this token");
        /* The client re-prepares with the model, which rebuilds the entry. */
        client_open(&a);
        prepare_with_model(&a, gd.model, gd.model_size, "token-4");
        client_close(&a);
        from_cache_golden(&b, &gd, "token-4", false);
        client_close(&b);
        golden_done(&gd);
}
END_TEST

/* Rewrite the entry of `token` in the stopped daemon's store: `edit`
 * changes the record, store_cache_put() indexes it consistently (so only
 * the staleness checks can catch it). */
static void rewrite_entry(const char *token, void (*edit)(daemon_cache_record_t *rec)) {
        char key[DAEMON_CACHE_KEY_SIZE], path[700], err[256];
        daemon_cache_record_t rec = { 0 };
        store_db_t *db = NULL;
        void *data = NULL;
        uint8_t *blob = NULL;
        size_t size = 0;

        ck_assert_int_eq(daemon_cache_key(getuid(), token, strlen(token), key, sizeof(key)), 0);
        entry_path(token, path, sizeof(path));
        ck_assert_int_eq(acc_file_read(path, &data, &size), 0);
        ck_assert_int_eq(daemon_cache_record_unpack(data, size, &rec), 0);
        free(data);
        edit(&rec);
        ck_assert_int_eq(daemon_cache_record_pack(&rec, &blob, &size), 0);
        ck_assert_msg(store_db_open(d.state, &db, err, sizeof(err)) == 0, "%s", err);
        {
                store_cache_key_t k = {
                        .token = key, .model_sha256 = rec.model_sha256, .settings_key = rec.settings_key,
                        .driver = rec.driver, .driver_version = rec.driver_versions,
                };

                ck_assert_int_eq(store_cache_put(db, &k, blob, size), 0);
        }
        (void) store_db_close(db);
        daemon_cache_record_done(&rec);
        free(blob);
}

static void edit_settings_key(daemon_cache_record_t *rec) {
        free(rec->settings_key);
        rec->settings_key = strdup("delegate=XNNPACK;threads=4;xnnpack_flags=0;max_partitions=0;fallback=00;plugin=");
        ck_assert_ptr_nonnull(rec->settings_key);
}

static void edit_driver_versions(daemon_cache_record_t *rec) {
        free(rec->driver_versions);
        rec->driver_versions = strdup("reference=0.0-old");
        ck_assert_ptr_nonnull(rec->driver_versions);
}

START_TEST(test_cache_stale_entries_are_rejected) {
        golden_t gd;
        client_t a, b;
        char path[700];
        struct stat st;

        if (!golden_load(&gd))
                return;
        client_open(&a);
        prepare_with_model(&a, gd.model, gd.model_size, "token-5");
        prepare_with_model(&a, gd.model, gd.model_size, "token-6");
        client_close(&a);
        stop();
        rewrite_entry("token-5", edit_settings_key);
        rewrite_entry("token-6", edit_driver_versions);
        start();
        expect_refused("token-5", "is stale and was removed: settings differ");
        expect_refused("token-6", "is stale and was removed: driver versions differ");
        entry_path("token-5", path, sizeof(path));
        ck_assert_int_eq(stat(path, &st), -1);
        /* Rebuilt by a prepare with the model. */
        client_open(&a);
        prepare_with_model(&a, gd.model, gd.model_size, "token-5");
        client_close(&a);
        from_cache_golden(&b, &gd, "token-5", false);
        client_close(&b);
        golden_done(&gd);
}
END_TEST

START_TEST(test_cache_changed_model_file_is_stale) {
        golden_t gd;
        client_t a;
        char sha[ACC_SHA256_HEX_SIZE], mp[700];

        if (!golden_load(&gd))
                return;
        client_open(&a);
        prepare_with_model(&a, gd.model, gd.model_size, "token-7");
        client_close(&a);
        acc_sha256_hex(gd.model, gd.model_size, sha);
        (void) snprintf(mp, sizeof(mp), "%s/models/%s.tflite", d.state, sha);
        flip_last_byte(mp);
        expect_refused("token-7", "is stale and was removed: model");
        /* A prepare with the model repairs the stored copy and the entry. */
        client_open(&a);
        prepare_with_model(&a, gd.model, gd.model_size, "token-7");
        client_close(&a);
        from_cache_golden(&a, &gd, "token-7", false);
        client_close(&a);
        golden_done(&gd);
}
END_TEST

START_TEST(test_cache_request_errors) {
        client_t c;
        Acceld__Response *r;
        char big[DAEMON_CACHE_TOKEN_MAX + 2];

        client_open(&c);
        /* Neither a model nor a token. */
        r = prepare(&c, NULL, 0, NULL, NULL);
        ck_assert_int_eq(r->status, ACCELD__STATUS__INVALID_ARGUMENT);
        ck_assert_str_eq(r->message, "PrepareModel needs one of model, model_fd, sha256 or name, or a cache_token alone");
        resp_free(r);
        /* A token too long. */
        memset(big, 'x', sizeof(big) - 1);
        big[sizeof(big) - 1] = '\0';
        r = prepare(&c, NULL, 0, big, NULL);
        ck_assert_int_eq(r->status, ACCELD__STATUS__INVALID_ARGUMENT);
        ck_assert_str_eq(r->message, "cache_token must be 1..64 bytes (got 65)");
        resp_free(r);
        /* An unknown token. */
        r = prepare(&c, NULL, 0, "never-written", NULL);
        ck_assert_int_eq(r->status, ACCELD__STATUS__NOT_FOUND);
        ck_assert_str_eq(r->message, "no cache entry for this token: prepare with the model first");
        resp_free(r);
        client_close(&c);
}
END_TEST

START_TEST(test_cache_support_is_advertised) {
        client_t c;
        Acceld__Request req = ACCELD__REQUEST__INIT;
        Acceld__HelloRequest h = ACCELD__HELLO_REQUEST__INIT;
        Acceld__GetCapabilitiesRequest g = ACCELD__GET_CAPABILITIES_REQUEST__INIT;
        Acceld__Response *r;

        client_open(&c);
        req.body_case = ACCELD__REQUEST__BODY_HELLO;
        req.hello = &h;
        r = transact(&c, &req);
        ck_assert_int_eq(r->status, ACCELD__STATUS__NONE);
        ck_assert(r->hello->limits->has_max_cache_token_bytes);
        ck_assert_uint_eq(r->hello->limits->max_cache_token_bytes, DAEMON_CACHE_TOKEN_MAX);
        resp_free(r);
        req = (Acceld__Request) ACCELD__REQUEST__INIT;
        req.body_case = ACCELD__REQUEST__BODY_GET_CAPABILITIES;
        req.get_capabilities = &g;
        r = transact(&c, &req);
        ck_assert_int_eq(r->status, ACCELD__STATUS__NONE);
        ck_assert(r->get_capabilities->has_compilation_cache && r->get_capabilities->compilation_cache);
        resp_free(r);
        client_close(&c);
}
END_TEST

/* out = in * 2 + 1 on float[1,4] (tfb-models.h). */
static uint8_t *model_affine(size_t *size) {
        uint8_t *bytes = tfb_model_affine(size);
        ck_assert_ptr_nonnull(bytes);
        return bytes;
}

START_TEST(test_cache_libaccel_token_options) {
        size_t size;
        uint8_t *m = model_affine(&size);
        accel_model_t *model = NULL;
        accel_interp_options_t *o = accel_interp_options_create();
        accel_interp_t *it = NULL;
        float in[4] = { 1, 2, 3, 4 }, out[4];

        ck_assert_int_eq(accel_model_create(m, size, &model), 0);
        ck_assert_int_eq(accel_interp_options_set_socket(o, d.sock), 0);
        ck_assert_int_eq(accel_interp_options_set_delegate(o, "NONE"), 0);
        /* No token yet: from-cache refuses locally. */
        ck_assert_int_eq(accel_interp_create_from_cache(o, &it), -EINVAL);
        ck_assert_int_eq(accel_interp_options_set_cache_token(o, "x", ACCEL_CACHE_TOKEN_MAX + 1), -EINVAL);
        ck_assert_int_eq(accel_interp_options_set_cache_token(o, "libaccel", 8), 0);
        ck_assert_msg(accel_interp_create(model, o, &it) == 0, "%s", accel_last_error());
        ck_assert(accel_interp_cache_written(it));
        ck_assert(!accel_interp_from_cache(it));
        it = accel_interp_delete(it);

        ck_assert_msg(accel_interp_create_from_cache(o, &it) == 0, "%s", accel_last_error());
        ck_assert(accel_interp_from_cache(it));
        ck_assert(!accel_interp_shared(it));
        ck_assert_int_eq(accel_interp_allocate_tensors(it), 0);
        ck_assert_int_eq(accel_tensor_copy_from_buffer(accel_interp_input_tensor(it, 0), in, sizeof(in)), 0);
        ck_assert_msg(accel_interp_invoke(it) == 0, "%s", accel_last_error());
        ck_assert_int_eq(accel_tensor_copy_to_buffer(accel_interp_output_tensor(it, 0), out, sizeof(out)), 0);
        ck_assert_float_eq(out[0], 3.0f);
        ck_assert_float_eq(out[3], 9.0f);
        it = accel_interp_delete(it);

        /* Another token misses with NOT_FOUND. */
        ck_assert_int_eq(accel_interp_options_set_cache_token(o, "other", 5), 0);
        ck_assert_int_eq(accel_interp_create_from_cache(o, &it), -ENOENT);
        ck_assert_int_eq(accel_last_status(), ACCEL_STATUS_NOT_FOUND);
        accel_interp_options_delete(o);
        accel_model_delete(model);
        free(m);
}
END_TEST

START_TEST(test_cache_accelctl_run_cache_token) {
        size_t size;
        uint8_t *m = model_affine(&size);
        char path[400];
        char *out = NULL;
        int fd, st;

        (void) snprintf(path, sizeof(path), "%s/affine.tflite", d.dir);
        fd = open(path, O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0600);
        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(write(fd, m, size), (ssize_t) size);
        (void) close(fd);
        {
                const char *argv[] = { harness_accelctl(), "--socket", d.sock, "--json", "run", path,
                                       "--settings", settings_none, "--cache-token", "ctl", NULL };

                st = harness_run(argv, &out);
                ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s", out);
                ck_assert_msg(strstr(out, "\"cache_written\":true") != NULL, "%s", out);
                ck_assert_msg(strstr(out, "\"from_cache\":false") != NULL, "%s", out);
                free(out);
        }
        {
                const char *argv[] = { harness_accelctl(), "--socket", d.sock, "--json", "run", "--cache-token", "ctl",
                                       NULL };

                st = harness_run(argv, &out);
                ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s", out);
                ck_assert_msg(strstr(out, "\"from_cache\":true") != NULL, "%s", out);
                free(out);
        }
        {
                const char *argv[] = { harness_accelctl(), "--socket", d.sock, "run", "--cache-token", "none-such",
                                       NULL };

                st = harness_run(argv, &out);
                ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 1);
                free(out);
        }
        free(m);
}
END_TEST

/* As uid/gid 65534 (forked; plain exit codes, no Check calls): prepare
 * from `token` alone must miss (code 10 if not), then a prepare with the
 * model records nobody's own entry (11) that a token-only prepare then
 * uses (12). 0 when all held. */
static int other_uid_child(const void *model, size_t size, const char *token) {
        client_t c;
        Acceld__Response *r;
        int code = 0;
        ProtobufCMessage *m = NULL;
        Acceld__Request req = ACCELD__REQUEST__INIT;
        Acceld__PrepareModelRequest p = ACCELD__PREPARE_MODEL_REQUEST__INIT;

        if (setgid(65534) < 0 || setuid(65534) < 0)
                return 2;
        c.fd = harness_connect(d.sock);
        if (c.fd < 0)
                return 3;
        ipc_reader_init(&c.r, 0);
        for (int step = 0; step < 3 && code == 0; step++) {
                p = (Acceld__PrepareModelRequest) ACCELD__PREPARE_MODEL_REQUEST__INIT;
                p.has_cache_token = 1;
                p.cache_token.data = (uint8_t *) token;
                p.cache_token.len = strlen(token);
                if (step == 1) {
                        p.has_model = 1;
                        p.model.data = (uint8_t *) model;
                        p.model.len = size;
                        p.settings_json = (char *) settings_none;
                }
                req = (Acceld__Request) ACCELD__REQUEST__INIT;
                req.body_case = ACCELD__REQUEST__BODY_PREPARE_MODEL;
                req.prepare_model = &p;
                req.has_request_id = 1;
                req.request_id = (uint64_t) step + 1;
                if (ipc_send(c.fd, &req.base, NULL, 0) < 0 ||
                    ipc_recv(c.fd, &c.r, &acceld__response__descriptor, &m) < 0)
                        return 4;
                r = (Acceld__Response *) m;
                if (step == 0 && r->status != ACCELD__STATUS__NOT_FOUND)
                        code = 10;
                if (step == 1 && (r->status != ACCELD__STATUS__NONE || !r->prepare_model->cache_written))
                        code = 11;
                if (step == 2 && (r->status != ACCELD__STATUS__NONE || !r->prepare_model->from_cache))
                        code = 12;
                resp_free(r);
        }
        client_close(&c);
        return code;
}

/* Needs root to connect as another uid; the key derivation itself is
 * covered by test_cache_key_is_scoped_to_the_uid. */
START_TEST(test_cache_token_does_not_match_across_uids) {
        static const char *const args[] = { "--socket-mode", "0666", NULL };
        golden_t gd;
        size_t size;
        uint8_t *m;
        client_t a, b;
        pid_t pid;
        int st;

        if (getuid() != 0) {
                fprintf(stderr, "skipped: needs root to connect as another uid\n");
                return;
        }
        if (!golden_load(&gd))
                return;
        m = model_affine(&size);
        harness_prepare(&d);
        (void) chmod(d.dir, 0755);
        harness_start(&d, args, NULL, -1);
        harness_wait_ready(&d, d.sock);
        client_open(&a);
        prepare_with_model(&a, gd.model, gd.model_size, "shared-token");
        client_close(&a);

        pid = fork();
        ck_assert_int_ge(pid, 0);
        if (pid == 0)
                _exit(other_uid_child(m, size, "shared-token"));
        ck_assert_int_eq(waitpid(pid, &st, 0), pid);
        ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "other uid: exit %d", WEXITSTATUS(st));
        /* Our entry still names our model, not nobody's. */
        from_cache_golden(&b, &gd, "shared-token", false);
        client_close(&b);
        free(m);
        golden_done(&gd);
}
END_TEST

int main(int argc, char **argv) {
        Suite *s = suite_create("acceld-cache");
        TCase *tu = tcase_create("unit"), *tc = tcase_create("daemon");
        SRunner *sr;
        int failed;

        harness_init(argc, argv);
        tcase_add_test(tu, test_cache_key_is_scoped_to_the_uid);
        tcase_add_test(tu, test_cache_record_round_trips);
        suite_add_tcase(s, tu);
        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_set_timeout(tc, 60);
        tcase_add_test(tc, test_cache_token_with_model_writes_entry);
        tcase_add_test(tc, test_cache_prepare_from_token_on_new_connection);
        tcase_add_test(tc, test_cache_survives_restart);
        tcase_add_test(tc, test_cache_tampered_entry_is_rejected_then_rebuilt);
        tcase_add_test(tc, test_cache_stale_entries_are_rejected);
        tcase_add_test(tc, test_cache_changed_model_file_is_stale);
        tcase_add_test(tc, test_cache_request_errors);
        tcase_add_test(tc, test_cache_support_is_advertised);
        tcase_add_test(tc, test_cache_libaccel_token_options);
        tcase_add_test(tc, test_cache_accelctl_run_cache_token);
        suite_add_tcase(s, tc);
        {
                TCase *tx = tcase_create("other-uid");

                tcase_add_checked_fixture(tx, NULL, teardown);
                tcase_set_timeout(tx, 60);
                tcase_add_test(tx, test_cache_token_does_not_match_across_uids);
                suite_add_tcase(s, tx);
        }
        sr = srunner_create(s);
        srunner_run_all(sr, CK_NORMAL);
        failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed ? 1 : 0;
}
