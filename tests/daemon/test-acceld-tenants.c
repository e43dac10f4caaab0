/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Tenants (issue 21): two real unprivileged users (harness-users.h) in one
 * group that owns the socket (0660) against one real acceld, with the
 * packaged modes. Each must never see, use or steer what the other stored,
 * recorded or decided, and neither may read the state directory.
 * Needs root (CI) and useradd; SKIPs (77) otherwise.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <check.h>

#include "harness-frames.h"
#include "harness-users.h"
#include "harness.h"
#include "tfb-models.h"

static harness_daemon_t d;
static harness_user_t ua, ub;
static gid_t group;

/* The packaged setup in small: the clients' group may reach the socket
 * (0660) and the folder that holds it, nothing more. */
static void expose_socket(void) {
        ck_assert_int_eq(chown(d.sock, 0, group), 0);
        ck_assert_int_eq(chmod(d.sock, 0660), 0);
}

static void setup(void) {
        harness_prepare(&d);
        ck_assert_int_eq(chown(d.dir, 0, group), 0);
        ck_assert_int_eq(chmod(d.dir, 0710), 0);
        harness_start(&d, NULL, NULL, -1);
        harness_wait_ready(&d, d.sock);
        expose_socket();
}

static void teardown(void) {
        harness_cleanup(&d);
}

/* ---- requests (run inside harness_run_as children) ---- */

typedef harness_client_t client_t;

static void client_open(client_t *c) {
        harness_client_open(c, d.sock);
}

static const char *const settings_none = "{\"delegate\": \"NONE\"}";
/* Not what acceld would choose by itself (its default falls back on
 * compilation errors, and uses its own thread count). */
static const char *const settings_xnn = "{\"delegate\": \"XNNPACK\", \"xnnpack_settings\": {\"num_threads\": 3}}";

static Acceld__Response *prepare(client_t *c, const char *sha, const char *name, const uint8_t *bytes, size_t size,
                                 const char *settings_json) {
        Acceld__Request req = ACCELD__REQUEST__INIT;
        Acceld__PrepareModelRequest p = ACCELD__PREPARE_MODEL_REQUEST__INIT;

        if (bytes) {
                p.has_model = 1;
                p.model.data = (uint8_t *) bytes;
                p.model.len = size;
        }
        p.sha256 = (char *) sha;
        p.name = (char *) name;
        p.settings_json = (char *) settings_json;
        req.body_case = ACCELD__REQUEST__BODY_PREPARE_MODEL;
        req.prepare_model = &p;
        return harness_transact(c, &req, NULL, 0);
}

static Acceld__Response *prepare_token(client_t *c, const uint8_t *bytes, size_t size, const char *token) {
        Acceld__Request req = ACCELD__REQUEST__INIT;
        Acceld__PrepareModelRequest p = ACCELD__PREPARE_MODEL_REQUEST__INIT;

        if (bytes) {
                p.has_model = 1;
                p.model.data = (uint8_t *) bytes;
                p.model.len = size;
                p.settings_json = (char *) settings_none;
        }
        p.has_cache_token = 1;
        p.cache_token.data = (uint8_t *) token;
        p.cache_token.len = strlen(token);
        req.body_case = ACCELD__REQUEST__BODY_PREPARE_MODEL;
        req.prepare_model = &p;
        return harness_transact(c, &req, NULL, 0);
}

/* 0 when the call succeeded, else the status. */
static int status_of(Acceld__Response *r) {
        int s = r->status;

        harness_resp_free(r);
        return s;
}

static Acceld__Response *list_models(client_t *c) {
        Acceld__Request req = ACCELD__REQUEST__INIT;
        Acceld__ListModelsRequest l = ACCELD__LIST_MODELS_REQUEST__INIT;

        req.body_case = ACCELD__REQUEST__BODY_LIST_MODELS;
        req.list_models = &l;
        return harness_transact(c, &req, NULL, 0);
}

static Acceld__Response *remove_model(client_t *c, const char *sha, const char *name) {
        Acceld__Request req = ACCELD__REQUEST__INIT;
        Acceld__RemoveModelRequest rm = ACCELD__REMOVE_MODEL_REQUEST__INIT;

        rm.sha256 = (char *) sha;
        rm.name = (char *) name;
        req.body_case = ACCELD__REQUEST__BODY_REMOVE_MODEL;
        req.remove_model = &rm;
        return harness_transact(c, &req, NULL, 0);
}

/* The affine model's golden pair: in [1, 2, 3, 4], out in * 2 + 1. */
static const float golden_in[4] = { 1, 2, 3, 4 }, golden_out[4] = { 3, 5, 7, 9 };

static Acceld__Response *run_benchmark(client_t *c, const char *sha, const uint8_t *bytes, size_t size,
                                       const char *const *cands, size_t n_cands, bool golden) {
        Acceld__Request req = ACCELD__REQUEST__INIT;
        Acceld__RunBenchmarkRequest b = ACCELD__RUN_BENCHMARK_REQUEST__INIT;
        ProtobufCBinaryData in = { sizeof(golden_in), (uint8_t *) golden_in };
        ProtobufCBinaryData out = { sizeof(golden_out), (uint8_t *) golden_out };

        if (bytes) {
                b.has_model = 1;
                b.model.data = (uint8_t *) bytes;
                b.model.len = size;
        }
        b.sha256 = (char *) sha;
        b.candidates_json = (char **) cands;
        b.n_candidates_json = n_cands;
        if (golden) {
                b.inputs = &in;
                b.n_inputs = 1;
                b.outputs = &out;
                b.n_outputs = 1;
        }
        b.has_runs = 1;
        b.runs = 3;
        req.body_case = ACCELD__REQUEST__BODY_RUN_BENCHMARK;
        req.run_benchmark = &b;
        return harness_transact(c, &req, NULL, 0);
}

static Acceld__Response *progress(client_t *c, uint64_t id) {
        Acceld__Request req = ACCELD__REQUEST__INIT;
        Acceld__BenchmarkProgressRequest p = ACCELD__BENCHMARK_PROGRESS_REQUEST__INIT;

        p.has_run_id = 1;
        p.run_id = id;
        req.body_case = ACCELD__REQUEST__BODY_BENCHMARK_PROGRESS;
        req.benchmark_progress = &p;
        return harness_transact(c, &req, NULL, 0);
}

/* Poll until run `id` finished (up to 60 s); asserts it did. */
static void wait_run(client_t *c, uint64_t id) {
        for (int i = 0; i < 600; i++) {
                Acceld__Response *r = progress(c, id);
                bool done;

                ck_assert_msg(r->status == ACCELD__STATUS__NONE, "progress: %s", r->message);
                done = r->benchmark_progress->finished;
                harness_resp_free(r);
                if (done)
                        return;
                (void) nanosleep(&(struct timespec) { .tv_nsec = 100000000 }, NULL);
        }
        ck_abort_msg("benchmark run %" PRIu64 " did not finish", id);
}

static Acceld__Response *best(client_t *c, const char *sha) {
        Acceld__Request req = ACCELD__REQUEST__INIT;
        Acceld__GetBestSettingsRequest g = ACCELD__GET_BEST_SETTINGS_REQUEST__INIT;

        g.model_sha256 = (char *) sha;
        req.body_case = ACCELD__REQUEST__BODY_GET_BEST_SETTINGS;
        req.get_best_settings = &g;
        return harness_transact(c, &req, NULL, 0);
}

static Acceld__Response *list_events(client_t *c, bool evaluations) {
        Acceld__Request req = ACCELD__REQUEST__INIT;
        Acceld__ListBenchmarkEventsRequest l = ACCELD__LIST_BENCHMARK_EVENTS_REQUEST__INIT;

        l.has_evaluations = evaluations;
        l.evaluations = evaluations;
        req.body_case = ACCELD__REQUEST__BODY_LIST_BENCHMARK_EVENTS;
        req.list_benchmark_events = &l;
        return harness_transact(c, &req, NULL, 0);
}

/* A client's top-K result for the instance behind `handle`. */
static int record_topk(client_t *c, uint64_t handle, double accuracy) {
        Acceld__Request req = ACCELD__REQUEST__INIT;
        Acceld__EvaluateRequest e = ACCELD__EVALUATE_REQUEST__INIT;

        e.has_handle = 1;
        e.handle = handle;
        e.has_stage = 1;
        e.stage = ACCELD__EVALUATION_STAGE__EVALUATION_STAGE_TOPK;
        e.metrics_json = (char *) "{}";
        e.has_accuracy = 1;
        e.accuracy = accuracy;
        e.has_samples = 1;
        e.samples = 1000;
        req.body_case = ACCELD__REQUEST__BODY_EVALUATE;
        req.evaluate = &e;
        return status_of(harness_transact(c, &req, NULL, 0));
}

/* What a child reports back. */
typedef struct ctx {
        char sha[65];           /* in: a model the other user stored; out: one this user stored */
        char sha2[65];
        char key[512];          /* a settings key */
        uint64_t run_id;
        int n;
} ctx_t;

static uint8_t *affine(size_t *size) {
        uint8_t *m = tfb_model_affine(size);

        ck_assert_ptr_nonnull(m);
        return m;
}

/* Other bytes than affine's. */
static uint8_t *other_model(size_t *size) {
        uint8_t *m = tfb_model_fp16_fc(3, 4, 7, 13, 8.0f, size);

        ck_assert_ptr_nonnull(m);
        return m;
}

static int run_as(const harness_user_t *u, harness_as_fn fn, ctx_t *c) {
        return harness_run_as(u, fn, c, c, sizeof(*c), NULL);
}

/* ---- stored models, names, cache tokens ---- */

static int a_stores(void *arg, void *out, size_t size) {
        ctx_t *c = out;
        client_t cl;
        size_t n;
        uint8_t *m = affine(&n);
        Acceld__Response *r;

        (void) arg;
        (void) size;
        client_open(&cl);
        r = prepare(&cl, NULL, "mine", m, n, settings_none);
        ck_assert_msg(r->status == ACCELD__STATUS__NONE, "%s", r->message);
        (void) snprintf(c->sha, sizeof(c->sha), "%s", r->prepare_model->sha256);
        harness_resp_free(r);
        /* A compilation-cache entry under a token. */
        ck_assert_int_eq(status_of(prepare_token(&cl, m, n, "tok-1")), ACCELD__STATUS__NONE);
        harness_client_close(&cl);
        free(m);
        return 0;
}

/* Whether a ListModels answer names `sha` or `name`. */
static bool listed(Acceld__Response *r, const char *sha, const char *name) {
        ck_assert_int_eq(r->status, ACCELD__STATUS__NONE);
        for (size_t i = 0; i < r->list_models->n_models; i++) {
                const Acceld__ModelEntry *e = r->list_models->models[i];

                if ((sha && e->sha256 && strcmp(e->sha256, sha) == 0) ||
                    (name && e->name && strcmp(e->name, name) == 0))
                        return true;
        }
        return false;
}

static int b_tries_a_model(void *arg, void *out, size_t size) {
        ctx_t *c = out;
        char msg[200];
        client_t cl;
        Acceld__Response *r;
        static const char *const cands[] = { "{\"delegate\": \"NONE\"}" };

        (void) arg;
        (void) size;
        client_open(&cl);
        /* By sha256 and by A's name: exactly as if there were no such model. */
        r = prepare(&cl, c->sha, NULL, NULL, 0, settings_none);
        ck_assert_int_eq(r->status, ACCELD__STATUS__NOT_FOUND);
        (void) snprintf(msg, sizeof(msg), "no model with sha256 %s in the store", c->sha);
        ck_assert_str_eq(r->message, msg);
        harness_resp_free(r);
        r = prepare(&cl, NULL, "mine", NULL, 0, settings_none);
        ck_assert_int_eq(r->status, ACCELD__STATUS__NOT_FOUND);
        ck_assert_str_eq(r->message, "no model named mine in the store");
        harness_resp_free(r);
        /* Nor benchmarked, decided about, removed or listed. */
        r = run_benchmark(&cl, c->sha, NULL, 0, cands, 1, false);
        ck_assert_int_eq(r->status, ACCELD__STATUS__NOT_FOUND);
        ck_assert_str_eq(r->message, msg);
        harness_resp_free(r);
        ck_assert_int_eq(status_of(best(&cl, c->sha)), ACCELD__STATUS__NOT_FOUND);
        ck_assert_int_eq(status_of(remove_model(&cl, c->sha, NULL)), ACCELD__STATUS__NOT_FOUND);
        ck_assert_int_eq(status_of(remove_model(&cl, NULL, "mine")), ACCELD__STATUS__NOT_FOUND);
        r = list_models(&cl);
        ck_assert(!listed(r, c->sha, "mine"));
        harness_resp_free(r);
        /* A's cache token is not B's: the same token names nothing here. */
        ck_assert_int_eq(status_of(prepare_token(&cl, NULL, 0, "tok-1")), ACCELD__STATUS__NOT_FOUND);
        harness_client_close(&cl);
        return 0;
}

static int a_uses_its_model(void *arg, void *out, size_t size) {
        ctx_t *c = out;
        client_t cl;
        Acceld__Response *r;

        (void) arg;
        (void) size;
        client_open(&cl);
        r = prepare(&cl, c->sha, NULL, NULL, 0, settings_none);
        ck_assert_msg(r->status == ACCELD__STATUS__NONE, "%s", r->message);
        harness_resp_free(r);
        r = prepare(&cl, NULL, "mine", NULL, 0, settings_none);
        ck_assert_msg(r->status == ACCELD__STATUS__NONE, "%s", r->message);
        ck_assert_str_eq(r->prepare_model->sha256, c->sha);
        harness_resp_free(r);
        r = prepare_token(&cl, NULL, 0, "tok-1");
        ck_assert_msg(r->status == ACCELD__STATUS__NONE, "%s", r->message);
        ck_assert(r->prepare_model->from_cache);
        harness_resp_free(r);
        r = list_models(&cl);
        ck_assert(listed(r, c->sha, "mine"));
        harness_resp_free(r);
        harness_client_close(&cl);
        return 0;
}

/* Stored models, their names and cache tokens are their uid's. */
START_TEST(test_tenants_stored_models_are_private) {
        ctx_t c = { 0 };

        ck_assert_int_eq(run_as(&ua, a_stores, &c), 0);
        ck_assert_uint_eq(strlen(c.sha), 64);
        ck_assert_int_eq(run_as(&ub, b_tries_a_model, &c), 0);
        /* ...and still A's, untouched by B's attempts. */
        ck_assert_int_eq(run_as(&ua, a_uses_its_model, &c), 0);
}
END_TEST

static int b_names_other_model(void *arg, void *out, size_t size) {
        ctx_t *c = out;
        client_t cl;
        size_t n;
        uint8_t *m = other_model(&n);
        Acceld__Response *r;

        (void) arg;
        (void) size;
        client_open(&cl);
        r = prepare(&cl, NULL, "shared-name", m, n, settings_none);
        ck_assert_msg(r->status == ACCELD__STATUS__NONE, "%s", r->message);
        (void) snprintf(c->sha2, sizeof(c->sha2), "%s", r->prepare_model->sha256);
        harness_resp_free(r);
        harness_client_close(&cl);
        free(m);
        return 0;
}

static int a_names_its_model(void *arg, void *out, size_t size) {
        ctx_t *c = out;
        client_t cl;
        size_t n;
        uint8_t *m = affine(&n);
        Acceld__Response *r;

        (void) arg;
        (void) size;
        client_open(&cl);
        /* The name B used first is free for A: names are per uid. */
        r = prepare(&cl, NULL, "shared-name", m, n, settings_none);
        ck_assert_msg(r->status == ACCELD__STATUS__NONE, "%s", r->message);
        (void) snprintf(c->sha, sizeof(c->sha), "%s", r->prepare_model->sha256);
        harness_resp_free(r);
        harness_client_close(&cl);
        /* A new connection: nothing loaded on it, the name goes to the store. */
        client_open(&cl);
        r = prepare(&cl, NULL, "shared-name", NULL, 0, settings_none);
        ck_assert_msg(r->status == ACCELD__STATUS__NONE, "%s", r->message);
        ck_assert_str_eq(r->prepare_model->sha256, c->sha);
        harness_resp_free(r);
        harness_client_close(&cl);
        free(m);
        return 0;
}

static int b_gets_its_own(void *arg, void *out, size_t size) {
        ctx_t *c = out;
        client_t cl;
        Acceld__Response *r;

        (void) arg;
        (void) size;
        client_open(&cl);
        r = prepare(&cl, NULL, "shared-name", NULL, 0, settings_none);
        ck_assert_msg(r->status == ACCELD__STATUS__NONE, "%s", r->message);
        ck_assert_str_eq(r->prepare_model->sha256, c->sha2);
        harness_resp_free(r);
        harness_client_close(&cl);
        return 0;
}

/* One name, two uids, two models: each gets its own. */
START_TEST(test_tenants_names_are_per_uid) {
        ctx_t c = { 0 };

        ck_assert_int_eq(run_as(&ub, b_names_other_model, &c), 0);
        ck_assert_int_eq(run_as(&ua, a_names_its_model, &c), 0);
        ck_assert_str_ne(c.sha, c.sha2);
        ck_assert_int_eq(run_as(&ub, b_gets_its_own, &c), 0);
}
END_TEST

/* Both prepare the same bytes with the same settings; the second gets the
 * first's compiled instance (sharing compute is the point), and stores its
 * own copy under its own name without seeing the other's. */
typedef struct hold {
        int ready_w;            /* A writes a byte once prepared */
        int release_r;          /* and keeps its handle until this closes */
} hold_t;

static int a_holds_instance(void *arg, void *out, size_t size) {
        hold_t *h = arg;
        client_t cl;
        size_t n;
        uint8_t *m = affine(&n);
        Acceld__Response *r;
        char x;

        (void) out;
        (void) size;
        client_open(&cl);
        r = prepare(&cl, NULL, "a-copy", m, n, settings_none);
        ck_assert_msg(r->status == ACCELD__STATUS__NONE, "%s", r->message);
        ck_assert_int_eq(r->prepare_model->shared, 0);
        harness_resp_free(r);
        ck_assert_int_eq(write(h->ready_w, "r", 1), 1);
        (void) read(h->release_r, &x, 1);
        harness_client_close(&cl);
        free(m);
        return 0;
}

static int b_shares_instance(void *arg, void *out, size_t size) {
        ctx_t *c = out;
        client_t cl;
        size_t n;
        uint8_t *m = affine(&n);
        Acceld__Response *r;

        (void) arg;
        (void) size;
        client_open(&cl);
        r = prepare(&cl, NULL, "b-copy", m, n, settings_none);
        ck_assert_msg(r->status == ACCELD__STATUS__NONE, "%s", r->message);
        c->n = r->prepare_model->shared;
        (void) snprintf(c->sha, sizeof(c->sha), "%s", r->prepare_model->sha256);
        harness_resp_free(r);
        r = list_models(&cl);
        ck_assert(listed(r, c->sha, "b-copy"));
        ck_assert(!listed(r, NULL, "a-copy"));
        harness_resp_free(r);
        r = prepare(&cl, NULL, "a-copy", NULL, 0, settings_none);
        ck_assert_int_eq(r->status, ACCELD__STATUS__NOT_FOUND);
        harness_resp_free(r);
        harness_client_close(&cl);
        free(m);
        return 0;
}

START_TEST(test_tenants_same_bytes_share_the_instance) {
        ctx_t c = { 0 };
        int ready[2], release[2], st;
        char x;
        pid_t pid;

        ck_assert_int_eq(pipe(ready), 0);
        ck_assert_int_eq(pipe(release), 0);
        pid = fork();
        ck_assert_int_ge(pid, 0);
        if (pid == 0) {
                hold_t h = { ready[1], release[0] };

                (void) close(ready[0]);
                (void) close(release[1]);
                _exit(harness_run_as(&ua, a_holds_instance, &h, NULL, 0, NULL) == 0 ? 0 : 1);
        }
        (void) close(ready[1]);
        (void) close(release[0]);
        ck_assert_int_eq(read(ready[0], &x, 1), 1);
        ck_assert_int_eq(run_as(&ub, b_shares_instance, &c), 0);
        ck_assert_int_eq(c.n, 1);
        (void) close(release[1]);
        ck_assert_int_eq(waitpid(pid, &st, 0), pid);
        ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
        (void) close(ready[0]);
}
END_TEST

/* ---- benchmarks, evaluations, decisions ---- */

static int a_benchmarks_xnnpack(void *arg, void *out, size_t size) {
        ctx_t *c = out;
        client_t cl;
        size_t n;
        uint8_t *m = affine(&n);
        Acceld__Response *r;
        const char *const cands[] = { settings_xnn };

        (void) arg;
        (void) size;
        client_open(&cl);
        r = prepare(&cl, NULL, "mine", m, n, settings_none);
        ck_assert_msg(r->status == ACCELD__STATUS__NONE, "%s", r->message);
        (void) snprintf(c->sha, sizeof(c->sha), "%s", r->prepare_model->sha256);
        harness_resp_free(r);
        /* XNNPACK alone, checked against the golden pair: A's only correct
         * setting, so A's decision is XNNPACK whatever the timings. */
        r = run_benchmark(&cl, c->sha, NULL, 0, cands, 1, true);
        ck_assert_msg(r->status == ACCELD__STATUS__NONE, "%s", r->message);
        c->run_id = r->run_benchmark->run_id;
        harness_resp_free(r);
        wait_run(&cl, c->run_id);
        r = best(&cl, c->sha);
        ck_assert_msg(r->status == ACCELD__STATUS__NONE, "%s", r->message);
        ck_assert_msg(strncmp(r->get_best_settings->settings_key, "delegate=XNNPACK", 16) == 0, "%s",
                      r->get_best_settings->settings_key);
        (void) snprintf(c->key, sizeof(c->key), "%s", r->get_best_settings->settings_key);
        harness_resp_free(r);
        harness_client_close(&cl);
        free(m);
        return 0;
}

/* A's prepare without settings: the settings key it got. */
static int a_prepares_default(void *arg, void *out, size_t size) {
        ctx_t *c = out;
        client_t cl;
        Acceld__Response *r;

        (void) arg;
        (void) size;
        client_open(&cl);
        char by_name[512];

        /* Without settings, by sha256 and by name. */
        r = prepare(&cl, c->sha, NULL, NULL, 0, NULL);
        ck_assert_msg(r->status == ACCELD__STATUS__NONE, "%s", r->message);
        (void) snprintf(c->key, sizeof(c->key), "%s", r->prepare_model->settings_key);
        harness_resp_free(r);
        r = prepare(&cl, NULL, "mine", NULL, 0, NULL);
        ck_assert_msg(r->status == ACCELD__STATUS__NONE, "%s", r->message);
        (void) snprintf(by_name, sizeof(by_name), "%s", r->prepare_model->settings_key);
        harness_resp_free(r);
        /* What A's decision (XNNPACK, 3 threads) gives when asked for:
         * bit 0 by sha256, bit 1 by name. */
        r = prepare(&cl, c->sha, NULL, NULL, 0, settings_xnn);
        ck_assert_msg(r->status == ACCELD__STATUS__NONE, "%s", r->message);
        c->n = (strcmp(c->key, r->prepare_model->settings_key) == 0) |
               (strcmp(by_name, r->prepare_model->settings_key) == 0) << 1;
        harness_resp_free(r);
        r = best(&cl, c->sha);
        ck_assert_msg(r->status == ACCELD__STATUS__NONE, "%s", r->message);
        (void) snprintf(c->sha2, sizeof(c->sha2), "%.64s", r->get_best_settings->settings_key);
        harness_resp_free(r);
        /* A's log has none of B's records. */
        r = list_events(&cl, true);
        ck_assert_int_eq(r->status, ACCELD__STATUS__NONE);
        ck_assert_uint_eq(r->list_benchmark_events->n_evaluations, 0);
        harness_resp_free(r);
        harness_client_close(&cl);
        return 0;
}

/* B, with the same bytes, records XNNPACK's top-1 as 0 and the reference
 * kernels' as 1, then runs a benchmark: what used to move A's default to
 * the reference kernels. */
static int b_poisons(void *arg, void *out, size_t size) {
        ctx_t *c = out;
        client_t cl;
        size_t n;
        uint8_t *m = affine(&n);
        Acceld__Response *r;
        uint64_t hx, hr;
        const char *const cands[] = { settings_xnn, settings_none };

        (void) arg;
        (void) size;
        client_open(&cl);
        r = prepare(&cl, NULL, NULL, m, n, settings_xnn);
        ck_assert_msg(r->status == ACCELD__STATUS__NONE, "%s", r->message);
        hx = r->prepare_model->handle;
        harness_resp_free(r);
        r = prepare(&cl, NULL, NULL, m, n, settings_none);
        ck_assert_msg(r->status == ACCELD__STATUS__NONE, "%s", r->message);
        hr = r->prepare_model->handle;
        harness_resp_free(r);
        ck_assert_int_eq(record_topk(&cl, hx, 0.0), ACCELD__STATUS__NONE);
        ck_assert_int_eq(record_topk(&cl, hr, 1.0), ACCELD__STATUS__NONE);
        r = run_benchmark(&cl, NULL, m, n, cands, 2, true);
        ck_assert_msg(r->status == ACCELD__STATUS__NONE, "%s", r->message);
        c->run_id = r->run_benchmark->run_id;
        harness_resp_free(r);
        wait_run(&cl, c->run_id);
        /* B's own decision left XNNPACK out, as B's records say. */
        r = best(&cl, c->sha);
        ck_assert_msg(r->status == ACCELD__STATUS__NONE, "%s", r->message);
        ck_assert_msg(strncmp(r->get_best_settings->settings_key, "delegate=XNNPACK", 16) != 0, "%s",
                      r->get_best_settings->settings_key);
        ck_assert_msg(strstr(r->get_best_settings->reason, "accuracy drop"), "%s", r->get_best_settings->reason);
        harness_resp_free(r);
        /* B's log has none of A's events: only its own run's (counted by
         * the caller). */
        r = list_events(&cl, false);
        ck_assert_int_eq(r->status, ACCELD__STATUS__NONE);
        c->n = (int) r->list_benchmark_events->n_events;
        harness_resp_free(r);
        harness_client_close(&cl);
        free(m);
        return 0;
}

/* Another tenant's records never move a tenant's decision. */
START_TEST(test_tenants_decisions_cannot_be_poisoned) {
        ctx_t a = { 0 }, b = { 0 }, after = { 0 };

        ck_assert_int_eq(run_as(&ua, a_benchmarks_xnnpack, &a), 0);
        memcpy(after.sha, a.sha, sizeof(a.sha));
        ck_assert_int_eq(run_as(&ua, a_prepares_default, &after), 0);
        ck_assert_msg(after.n == 3, "A's default is not its decision (%d): %s", after.n, after.key);

        memcpy(b.sha, a.sha, sizeof(a.sha));
        ck_assert_int_eq(run_as(&ub, b_poisons, &b), 0);
        /* START and END of each of B's two candidates, no more. */
        ck_assert_int_eq(b.n, 4);

        memset(&after, 0, sizeof(after));
        memcpy(after.sha, a.sha, sizeof(a.sha));
        ck_assert_int_eq(run_as(&ua, a_prepares_default, &after), 0);
        ck_assert_msg(after.n == 3, "A's default moved (%d): %s", after.n, after.key);
        ck_assert_msg(strncmp(after.sha2, "delegate=XNNPACK", 16) == 0, "A's decision moved: '%s'", after.sha2);
}
END_TEST

static int a_starts_run(void *arg, void *out, size_t size) {
        ctx_t *c = out;
        client_t cl;
        size_t n;
        uint8_t *m = affine(&n);
        Acceld__Response *r;
        static const char *const cands[] = { "{\"delegate\": \"NONE\"}" };

        (void) arg;
        (void) size;
        client_open(&cl);
        r = run_benchmark(&cl, NULL, m, n, cands, 1, true);
        ck_assert_msg(r->status == ACCELD__STATUS__NONE, "%s", r->message);
        c->run_id = r->run_benchmark->run_id;
        harness_resp_free(r);
        wait_run(&cl, c->run_id);
        harness_client_close(&cl);
        free(m);
        return 0;
}

static int b_asks_progress(void *arg, void *out, size_t size) {
        ctx_t *c = out;
        char msg[64];
        client_t cl;
        Acceld__Response *r;

        (void) arg;
        (void) size;
        client_open(&cl);
        /* A's run and one that never was: the same answer. */
        r = progress(&cl, c->run_id);
        ck_assert_int_eq(r->status, ACCELD__STATUS__NOT_FOUND);
        (void) snprintf(msg, sizeof(msg), "no benchmark run %" PRIu64, c->run_id);
        ck_assert_str_eq(r->message, msg);
        harness_resp_free(r);
        r = progress(&cl, c->run_id + 1000);
        ck_assert_int_eq(r->status, ACCELD__STATUS__NOT_FOUND);
        harness_resp_free(r);
        r = list_events(&cl, false);
        ck_assert_int_eq(r->status, ACCELD__STATUS__NONE);
        ck_assert_uint_eq(r->list_benchmark_events->n_events, 0);
        harness_resp_free(r);
        harness_client_close(&cl);
        return 0;
}

/* BenchmarkProgress answers a run's own uid (and operators) only. */
START_TEST(test_tenants_benchmark_progress_is_private) {
        ctx_t c = { 0 };
        client_t root;
        Acceld__Response *r;

        ck_assert_int_eq(run_as(&ua, a_starts_run, &c), 0);
        ck_assert_uint_gt(c.run_id, 0);
        ck_assert_int_eq(run_as(&ub, b_asks_progress, &c), 0);
        /* Root is an operator: it sees every run. */
        client_open(&root);
        r = progress(&root, c.run_id);
        ck_assert_int_eq(r->status, ACCELD__STATUS__NONE);
        harness_resp_free(r);
        harness_client_close(&root);
}
END_TEST

/* ---- the state directory ---- */

/* errno of opening each path as this user, packed one byte each. */
static const char *const private_paths[] = { "state", "state/acceld.db", "state/models", "state/cache" };

static int try_read(void *arg, void *out, size_t size) {
        unsigned char *v = out;
        char path[600];

        (void) size;
        for (size_t i = 0; i < sizeof(private_paths) / sizeof(private_paths[0]); i++) {
                int fd;

                (void) snprintf(path, sizeof(path), "%s/%s", d.dir, private_paths[i]);
                fd = open(path, O_RDONLY | O_CLOEXEC);
                v[i] = fd < 0 ? (unsigned char) errno : 0;
                if (fd >= 0)
                        (void) close(fd);
        }
        /* The model file itself, by its full name. */
        (void) snprintf(path, sizeof(path), "%s/state/models/%s.tflite", d.dir, (const char *) arg);
        {
                int fd = open(path, O_RDONLY | O_CLOEXEC);

                v[4] = fd < 0 ? (unsigned char) errno : 0;
                if (fd >= 0)
                        (void) close(fd);
        }
        return 0;
}

static void assert_unreadable(const char *sha) {
        unsigned char v[8] = { 0 };

        ck_assert_int_eq(harness_run_as(&ua, try_read, (void *) sha, v, sizeof(v), NULL), 0);
        /* The group reaches d.dir (0710) but not the state inside it. */
        ck_assert_int_eq(v[0], EACCES);
        for (size_t i = 1; i < 5; i++)
                ck_assert_msg(v[i] == EACCES, "%zu: %s", i, strerror(v[i]));
}

static void assert_mode(const char *rel, mode_t want) {
        char path[600];
        struct stat st;

        (void) snprintf(path, sizeof(path), "%s/%s", d.dir, rel);
        ck_assert_int_eq(stat(path, &st), 0);
        ck_assert_msg((st.st_mode & 0777) == want, "%s is %04o", rel, (unsigned) (st.st_mode & 0777));
}

/* With the packaged modes, a group member reads none of the state; and an
 * existing directory left readable by the group is fixed at start. */
START_TEST(test_tenants_state_dir_is_private) {
        ctx_t c = { 0 };
        char cmd[800];

        ck_assert_int_eq(run_as(&ua, a_stores, &c), 0);
        assert_mode("state", 0700);
        assert_mode("state/models", 0700);
        assert_mode("state/acceld.db", 0600);
        assert_unreadable(c.sha);

        /* What the old packaging left: 0750 directories in the clients'
         * group, 0640 files. */
        harness_stop(&d);
        (void) snprintf(cmd, sizeof(cmd), "chgrp -R %u %s/state && chmod -R g+rX %s/state", (unsigned) group, d.dir,
                        d.dir);
        ck_assert_int_eq(system(cmd), 0);
        assert_mode("state", 0750);
        harness_resume(&d, NULL);
        expose_socket();
        /* Served through requests (which also waits until the storage
         * thread has opened, and so fixed, the store). */
        ck_assert_int_eq(run_as(&ua, a_uses_its_model, &c), 0);
        assert_mode("state", 0700);
        assert_mode("state/models", 0700);
        assert_mode("state/cache", 0700);
        assert_mode("state/acceld.db", 0600);
        {
                char rel[200];

                (void) snprintf(rel, sizeof(rel), "state/models/%s.tflite", c.sha);
                assert_mode(rel, 0600);
        }
        assert_unreadable(c.sha);
}
END_TEST

static Suite *tenants_suite(void) {
        Suite *s = suite_create("acceld-tenants");
        TCase *tc = tcase_create("tenants");

        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_set_timeout(tc, 120);
        tcase_add_test(tc, test_tenants_stored_models_are_private);
        tcase_add_test(tc, test_tenants_names_are_per_uid);
        tcase_add_test(tc, test_tenants_same_bytes_share_the_instance);
        tcase_add_test(tc, test_tenants_decisions_cannot_be_poisoned);
        tcase_add_test(tc, test_tenants_benchmark_progress_is_private);
        tcase_add_test(tc, test_tenants_state_dir_is_private);
        suite_add_tcase(s, tc);
        return s;
}

int main(int argc, char **argv) {
        char why[128];
        SRunner *sr;
        int failed;

        harness_init(argc, argv);
        if (!harness_users_available(why, sizeof(why))) {
                fprintf(stderr, "SKIP: %s\n", why);
                return 77;
        }
        /* Made here, before Check forks the tests, and removed at exit. */
        group = harness_users_group();
        if (group == (gid_t) -1 || harness_user_create(&ua, "a") < 0 || harness_user_create(&ub, "b") < 0) {
                fprintf(stderr, "cannot create the test users\n");
                return 1;
        }
        sr = srunner_create(tenants_suite());
        srunner_run_all(sr, CK_NORMAL);
        failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed == 0 ? 0 : 1;
}
