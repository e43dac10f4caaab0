/* SPDX-License-Identifier: Apache-2.0 */
/* Benchmark state of the daemon and its request handlers (bench.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "runner.h"
#include "placement.h"
#include "select.h"
#include "settings.h"
#include "bench.h"
#include "cleanup.h"
#include "config.h"
#include "dispatch.h"
#include "handlers.h"
#include "log.h"
#include "models.h"
#include "storage-owner.h"

#define BENCH_LIST_MAX 1000

typedef struct bench_call bench_call_t;

struct bench_call {
        daemon_request_t *rq;
        store_job_fn job;
        int (*done)(bench_call_t *call);     /* on the loop; returns the request's result */
        int result;
        /* inputs */
        char sha256[ACC_SHA256_HEX_SIZE];
        char *settings_key;
        store_event_filter_t filter;
        int preference;
        uint32_t decision_uid;          /* whose decision: 0 for the operators */
        uint32_t peer_uid;              /* the requester */
        bool operator;
        /* outputs */
        store_event_t *events;
        size_t n_events;
        store_evaluation_t *evaluations;
        size_t n_evaluations;
        store_decision_t decision;
};

typedef struct daemon_bench {
        uv_loop_t *loop;
        store_thread_t *store;          /* the storage owner's thread, NULL without a database */
        bench_runner_t *runner;
        char versions[1024];
        double max_accuracy_drop;       /* config: selection's accuracy limit */
} daemon_bench_t;

static daemon_bench_t bench;

/* ---- storage calls answered on the loop ---- */

static void call_free(bench_call_t *call) {
        if (!call)
                return;
        free(call->settings_key);
        store_event_list_free(call->events, call->n_events);
        store_evaluation_list_free(call->evaluations, call->n_evaluations);
        store_decision_done(&call->decision);
        free(call);
}

static int call_job(store_db_t *db, void *userdata) {
        bench_call_t *call = userdata;

        return call->job(db, call);
}

/* On the loop, through the storage owner's drain. */
static void call_done(int result, void *userdata) {
        bench_call_t *call = userdata;

        call->result = result;
        daemon_request_complete(call->rq, call->done(call));
        call_free(call);
}

/* Queue call->job on the storage thread; its done() answers rq later. */
static int call_submit(bench_call_t *call) {
        int r = daemon_storage_submit(call_job, call_done, call);

        if (r < 0) {
                daemon_request_t *rq = call->rq;

                call_free(call);
                return daemon_request_errorf(rq, r == -EAGAIN ? -EBUSY : r, "storage is busy: %s", strerror(-r));
        }
        return DAEMON_REQUEST_DEFERRED;
}

static int bench_available(daemon_request_t *rq) {
        if (!bench.store || !bench.runner)
                return daemon_request_errorf(rq, -ENODEV, "benchmarks are unavailable (no state database)");
        return 0;
}

/* A protobuf-c allocator on the request's arena, so unpacked messages live
 * exactly as long as the reply. */
static void *arena_alloc(void *data, size_t size) {
        return daemon_request_alloc(data, size);
}

static void arena_free(void *data, void *p) {
        (void) data;
        (void) p;
}

static Tflite__Proto__BenchmarkEvent *event_unpack(daemon_request_t *rq, const uint8_t *b, size_t n) {
        ProtobufCAllocator a = { .alloc = arena_alloc, .free = arena_free, .allocator_data = rq };

        return tflite__proto__benchmark_event__unpack(&a, n, b);
}

static Tflite__Proto__TFLiteSettings *settings_unpack(daemon_request_t *rq, const uint8_t *b, size_t n) {
        ProtobufCAllocator a = { .alloc = arena_alloc, .free = arena_free, .allocator_data = rq };

        return tflite__proto__tflite_settings__unpack(&a, n, b ? b : (const uint8_t *) "");
}

static char *settings_json_arena(daemon_request_t *rq, const rt_settings_t *s) {
        _cleanup_free_ char *j = NULL;

        if (rt_settings_to_json(s, &j) < 0)
                return NULL;
        return daemon_request_strdup(rq, j);
}

/* The JSON form of serialized TFLiteSettings, in rq's arena. */
static char *settings_json_from_bytes(daemon_request_t *rq, const uint8_t *b, size_t n) {
        rt_settings_t s;
        char *j;

        if (rt_settings_parse_proto(b, n, &s, NULL, 0) < 0)
                return NULL;
        j = settings_json_arena(rq, &s);
        rt_settings_done(&s);
        return j;
}

static Tflite__Proto__TFLiteSettings *settings_to_arena(daemon_request_t *rq, const rt_settings_t *s) {
        _cleanup_free_ uint8_t *b = NULL;
        size_t n = 0;

        if (rt_settings_pack(s, &b, &n) < 0)
                return NULL;
        return settings_unpack(rq, b, n);
}

/* ---- start-up work ---- */

typedef struct startup {
        char versions[1024];
} startup_t;

static int startup_job(store_db_t *db, void *userdata) {
        startup_t *st = userdata;
        store_event_t *v = NULL;
        size_t n = 0;
        int r, k;

        /* A fresh daemon runs nothing yet: every open START is an orphan. */
        r = store_event_find_orphans(db, acc_clock_us(CLOCK_REALTIME) + 1, 0, &v, &n);
        if (r < 0)
                return r;
        for (size_t i = 0; i < n; i++) {
                Tflite__Proto__BenchmarkEvent *old =
                        tflite__proto__benchmark_event__unpack(NULL, v[i].blob_size, v[i].blob);
                Tflite__Proto__BenchmarkEvent ev = TFLITE__PROTO__BENCHMARK_EVENT__INIT;
                Tflite__Proto__BenchmarkError er = TFLITE__PROTO__BENCHMARK_ERROR__INIT;
                Tflite__Proto__ErrorCode code = TFLITE__PROTO__ERROR_CODE__INIT, *codes[1] = { &code };
                uint8_t *b;
                size_t bn;

                ev.tflite_settings = old ? old->tflite_settings : NULL;
                ev.has_event_type = 1;
                ev.event_type = TFLITE__PROTO__BENCHMARK_EVENT_TYPE__ERROR;
                er.has_stage = 1;
                er.stage = TFLITE__PROTO__BENCHMARK_STAGE__UNKNOWN;
                er.has_exit_code = 1;
                er.exit_code = -1;      /* the outcome was lost with the daemon */
                code.has_underlying_api_error = 1;
                code.underlying_api_error = -EOWNERDEAD;
                er.error_code = codes;
                er.n_error_code = 1;
                ev.error = &er;
                ev.has_boottime_us = 1;
                ev.boottime_us = acc_clock_us(CLOCK_BOOTTIME);
                ev.has_wallclock_us = 1;
                ev.wallclock_us = acc_clock_us(CLOCK_REALTIME);
                bn = tflite__proto__benchmark_event__get_packed_size(&ev);
                b = malloc(bn);
                if (b) {
                        (void) tflite__proto__benchmark_event__pack(&ev, b);
                        int64_t id = 0;

                        /* The crash is the run's: it belongs to whoever
                         * started it, and weighs in only their selection. */
                        k = store_event_insert(db, v[i].model_sha256, v[i].settings_key, v[i].driver_version, b,
                                               bn, &id);
                        if (k >= 0 && v[i].has_uid)
                                k = store_event_set_owner(db, id, v[i].uid, v[i].operator);
                        if (k < 0)
                                (void) log_warning_errno(k, "cannot record the crash of benchmark event %" PRId64,
                                                         v[i].id);
                        else
                                log_notice("benchmark of model %s with settings '%s' (event %" PRId64
                                           ") did not finish: the daemon stopped during it; recorded as a crash",
                                           v[i].model_sha256, v[i].settings_key, v[i].id);
                        free(b);
                }
                if (old)
                        tflite__proto__benchmark_event__free_unpacked(old, NULL);
        }
        store_event_list_free(v, n);
        k = store_decision_invalidate(db, st->versions);
        if (k > 0)
                log_info("%d acceleration decision(s) dropped: driver versions changed", k);
        return 0;
}

static void startup_done(int result, void *userdata) {
        if (result < 0)
                (void) log_warning_errno(result, "benchmark start-up scan failed");
        free(userdata);
}

static void run_done(void *userdata, const char *model_sha256) {
        (void) userdata;
        log_info("benchmark of model %s finished; decisions updated", model_sha256);
}

int daemon_bench_init(uv_loop_t *loop, const daemon_config_t *config, const char *plugin_dir) {
        char exe[4096];
        startup_t *st;
        ssize_t n;
        int r;

        bench.loop = loop;
        bench.max_accuracy_drop = config->max_accuracy_drop;
        bench_placement_configure(&(bench_placement_config_t) {
                .max_compute_us = config->client_placement_max_us,
                .max_overhead = config->client_placement_max_overhead,
                .hosts_xnnpack = config->isolate_drivers == DAEMON_ISOLATE_ALL,
                .min_served = (uint32_t) config->client_placement_min_served,
        });
        /* A few milliseconds, before the loop serves: the decisions already
         * stored are placed from the first prepare on. */
        if (config->client_placement_max_us > 0)
                (void) bench_placement_measure();
        bench_driver_versions(bench.versions, sizeof(bench.versions));

        bench.store = daemon_storage_thread();
        if (!bench.store)
                return log_warning_errno(-ENODEV, "benchmarks unavailable: no state database");

        st = calloc(1, sizeof(*st));
        if (st) {
                memcpy(st->versions, bench.versions, sizeof(st->versions));
                r = store_thread_submit(bench.store, startup_job, st, startup_done);
                if (r < 0) {
                        free(st);
                        (void) log_warning_errno(r, "cannot queue the benchmark start-up scan");
                }
        }

        n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
        if (n <= 0)
                return log_warning_errno(-errno, "benchmarks unavailable: cannot find my own executable");
        exe[n] = 0;
        r = bench_runner_start(bench.store, exe, plugin_dir, run_done, NULL, &bench.runner);
        if (r < 0) {
                bench.runner = NULL;
                return log_warning_errno(r, "benchmarks unavailable: cannot start the runner");
        }
        (void) bench_runner_set_max_accuracy_drop(bench.runner, config->max_accuracy_drop);
        (void) bench_runner_set_budget_ms(bench.runner, (uint32_t) config->benchmark_budget_ms);
        {
                char wdir[4096];

                if (daemon_config_weights_dir(config, wdir, sizeof(wdir)) == 0)
                        (void) bench_runner_set_weights_dir(bench.runner, wdir);
        }
        log_debug("benchmarks ready (drivers %s)", bench.versions);
        return 0;
}

void daemon_bench_done(void) {
        bench.runner = bench_runner_stop(bench.runner);
        bench.store = NULL;
}

typedef struct pref_args {
        const char *sha256;
        int preference;
        uint32_t uid;
        store_decision_t d;
        int64_t compute_us;             /* the chosen setting's median, -1: unknown */
} pref_args_t;

/* The median of the latest END of the decision's setting, from the events
 * the decision was made from (the decision's uid and the operators'). */
static int64_t decision_compute_us(store_db_t *db, const store_decision_t *d) {
        store_event_filter_t f = { .model_sha256 = d->model_sha256, .settings_key = d->settings_key,
                                   .event_type = TFLITE__PROTO__BENCHMARK_EVENT_TYPE__END, .limit = 1,
                                   .newest_first = true, .has_uid = true, .uid = d->uid,
                                   .with_operators = true };
        store_event_t *v = NULL;
        size_t n = 0;
        int64_t us = -1;

        if (!d->settings_key || store_event_list(db, &f, &v, &n) < 0)
                return -1;
        if (n > 0 && v[0].ok == 1) {
                /* A confirmed setting: the median of its round medians,
                 * as selection weighed it. */
                Tflite__Proto__BenchmarkEvent *ev = tflite__proto__benchmark_event__unpack(NULL, v[0].blob_size,
                                                                                           v[0].blob);

                us = bench_select_event_median(ev, v[0].median_inference_us, NULL, NULL, NULL);
                if (ev)
                        tflite__proto__benchmark_event__free_unpacked(ev, NULL);
        }
        store_event_list_free(v, n);
        return us;
}

/* uid's own decision, else the operators'. */
static int pref_job(store_db_t *db, void *userdata) {
        pref_args_t *a = userdata;
        int r = store_decision_get(db, a->sha256, a->preference, a->uid, &a->d);

        if (r == -ENOENT && a->uid != 0)
                r = store_decision_get(db, a->sha256, a->preference, 0, &a->d);
        a->compute_us = r == 0 ? decision_compute_us(db, &a->d) : -1;
        return r;
}

static int preferred_settings(const char *model_sha256, int preference, uint32_t uid, rt_settings_t *ret,
                              int64_t *ret_compute_us) {
        pref_args_t a = { .sha256 = model_sha256, .preference = preference, .uid = uid, .compute_us = -1 };
        int r;

        if (!bench.store)
                return -ENODEV;
        r = store_thread_call(bench.store, pref_job, &a);
        if (r < 0)
                return r;
        r = rt_settings_parse_proto(a.d.settings, a.d.settings_size, ret, NULL, 0);
        store_decision_done(&a.d);
        if (ret_compute_us)
                *ret_compute_us = a.compute_us;
        return r;
}

int daemon_bench_preferred_settings(const char *model_sha256, int preference, uint32_t uid, rt_settings_t *ret) {
        return preferred_settings(model_sha256, preference, uid, ret, NULL);
}

int daemon_bench_apply_decision(const struct daemon_model_source *src, int preference, uint32_t uid,
                                rt_settings_t *settings, int64_t *ret_compute_us) {
        char sha[ACC_SHA256_HEX_SIZE];
        rt_settings_t s;
        int r;

        if (ret_compute_us)
                *ret_compute_us = -1;
        if (!src || !settings)
                return -EINVAL;
        if (!bench.store)
                return 0;
        if (src->sha256 && acc_sha256_hex_valid(src->sha256))
                memcpy(sha, src->sha256, sizeof(sha));
        else if (src->bytes && src->size > 0)
                acc_sha256_hex(src->bytes, src->size, sha);
        else if (src->fd >= 0) {
                r = acc_sha256_fd(src->fd, UINT64_MAX, sha, NULL);
                if (r < 0)
                        return r;
        } else
                return 0;
        r = preferred_settings(sha, preference, uid, &s, ret_compute_us);
        if (r == -ENOENT || r == -ENODEV) {
                log_debug("model %s: no benchmark decision for preference %d", sha, preference);
                return 0;
        }
        if (r < 0)
                return r;
        rt_settings_done(settings);
        *settings = s;
        log_debug("model %s: using the benchmark's decision for preference %d", sha, preference);
        return 1;
}

/* ---- RunBenchmark ---- */

static int copy_blobs(const ProtobufCBinaryData *src, size_t n, ProtobufCBinaryData **ret) {
        ProtobufCBinaryData *v = calloc(n + 1, sizeof(*v));

        if (!v)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                v[i].data = malloc(src[i].len ? src[i].len : 1);
                if (!v[i].data) {
                        for (size_t k = 0; k < i; k++)
                                free(v[k].data);
                        free(v);
                        return -ENOMEM;
                }
                memcpy(v[i].data, src[i].data, src[i].len);
                v[i].len = src[i].len;
        }
        *ret = v;
        return 0;
}

/* Queue the run (taking *req) and answer rq. */
static int run_queue(daemon_request_t *rq, bench_request_t *req, size_t n_cand) {
        Acceld__RunBenchmarkResponse *out;
        char sha[ACC_SHA256_HEX_SIZE];
        int64_t id;

        memcpy(sha, req->sha256, sizeof(sha));
        id = bench_runner_submit(bench.runner, req);
        if (id < 0)
                return daemon_request_errorf(rq, id == -EAGAIN ? -EBUSY : (int) id,
                                             "cannot queue the benchmark: %s", strerror((int) -id));
        out = daemon_request_alloc(rq, sizeof(*out));
        if (!out)
                return -ENOMEM;
        acceld__run_benchmark_response__init(out);
        out->has_run_id = 1;
        out->run_id = (uint64_t) id;
        out->has_candidates = 1;
        out->candidates = (uint32_t) n_cand;
        if (sha[0])
                out->model_sha256 = daemon_request_strdup(rq, sha);
        rq->resp.body_case = ACCELD__RESPONSE__BODY_RUN_BENCHMARK;
        rq->resp.run_benchmark = out;
        log_full(LOG_INFO, DLOG_FIELDS(rq->conn->client_field), "benchmark run %" PRId64 " queued", id);
        return 0;
}

typedef struct run_call {
        daemon_request_t *rq;
        bench_request_t req;
        size_t n_cand;
} run_call_t;

static int run_owned_job(store_db_t *db, void *userdata) {
        run_call_t *c = userdata;

        return store_model_owned(db, c->req.sha256, c->req.uid);
}

/* On the loop: queue the run of a model the requester owns. */
static void run_owned_done(int result, void *userdata) {
        run_call_t *c = userdata;
        daemon_request_t *rq = c->rq;
        int r;

        if (result == 0)
                r = daemon_request_errorf(rq, -ENOENT, "no model with sha256 %s in the store", c->req.sha256);
        else if (result < 0)
                r = daemon_request_errorf(rq, result, "cannot read the model store: %s", strerror(-result));
        else
                r = run_queue(rq, &c->req, c->n_cand);
        bench_request_done(&c->req);
        free(c);
        daemon_request_complete(rq, r);
}

int daemon_run_benchmark_handle(daemon_request_t *rq) {
        const Acceld__RunBenchmarkRequest *in = rq->req->run_benchmark;
        bench_request_t req = { .model_fd = -1 };
        size_t n_cand;
        int sources, r;

        r = bench_available(rq);
        if (r < 0)
                return r;
        sources = (in->has_model ? 1 : 0) + (in->has_model_fd ? 1 : 0) + (in->sha256 && in->sha256[0] ? 1 : 0);
        if (sources != 1)
                return daemon_request_errorf(rq, -EINVAL, "give exactly one of model, model_fd and sha256");
        if (in->sha256 && in->sha256[0] && !acc_sha256_hex_valid(in->sha256))
                return daemon_request_errorf(rq, -EINVAL, "sha256 must be 64 lowercase hex digits");
        n_cand = in->n_candidates + in->n_candidates_json;
        if (n_cand > BENCH_MAX_CANDIDATES)
                return daemon_request_errorf(rq, -EINVAL, "at most %d candidates", BENCH_MAX_CANDIDATES);
        if (in->n_inputs > BENCH_MAX_TENSORS || in->n_outputs > BENCH_MAX_TENSORS)
                return daemon_request_errorf(rq, -EINVAL, "at most %d validation tensors", BENCH_MAX_TENSORS);
        if (in->n_outputs > 0 && in->n_inputs == 0)
                return daemon_request_errorf(rq, -EINVAL, "golden outputs need their inputs");
        if (in->has_runs && in->runs > BENCH_MAX_RUNS)
                return daemon_request_errorf(rq, -EINVAL, "runs must be at most %d", BENCH_MAX_RUNS);
        if (in->has_timeout_ms && in->timeout_ms > BENCH_MAX_TIMEOUT_MS)
                return daemon_request_errorf(rq, -EINVAL, "timeout_ms must be at most %d", BENCH_MAX_TIMEOUT_MS);

        req.candidates = calloc(n_cand + 1, sizeof(rt_settings_t));
        if (!req.candidates)
                return -ENOMEM;
        for (size_t i = 0; i < in->n_candidates; i++) {
                r = rt_settings_from_proto(in->candidates[i], &req.candidates[req.n_candidates], NULL, 0);
                if (r < 0) {
                        bench_request_done(&req);
                        return daemon_request_errorf(rq, -EINVAL, "candidate %zu: bad settings", i);
                }
                req.n_candidates++;
        }
        for (size_t i = 0; i < in->n_candidates_json; i++) {
                char err[256] = "";

                r = rt_settings_parse_json(in->candidates_json[i], &req.candidates[req.n_candidates], err,
                                           sizeof(err));
                if (r < 0) {
                        bench_request_done(&req);
                        return daemon_request_errorf(rq, -EINVAL, "candidates_json[%zu]: %s", i,
                                                     err[0] ? err : strerror(-r));
                }
                req.n_candidates++;
        }
        if (in->has_model) {
                if (in->model.len == 0) {
                        bench_request_done(&req);
                        return daemon_request_errorf(rq, -EINVAL, "the model is empty");
                }
                req.model = malloc(in->model.len);
                if (!req.model) {
                        bench_request_done(&req);
                        return -ENOMEM;
                }
                memcpy(req.model, in->model.data, in->model.len);
                req.model_size = in->model.len;
        } else if (in->has_model_fd) {
                req.model_fd = daemon_request_take_fd(rq, in->model_fd);
                if (req.model_fd < 0) {
                        bench_request_done(&req);
                        return daemon_request_errorf(rq, -EBADF, "model_fd %d was not sent", (int) in->model_fd);
                }
        } else
                memcpy(req.sha256, in->sha256, ACC_SHA256_HEX_SIZE);
        if (copy_blobs(in->inputs, in->n_inputs, &req.inputs) < 0 ||
            copy_blobs(in->outputs, in->n_outputs, &req.outputs) < 0) {
                bench_request_done(&req);
                return -ENOMEM;
        }
        req.n_inputs = in->n_inputs;
        req.n_outputs = in->n_outputs;
        req.runs = in->has_runs ? in->runs : 0;
        req.timeout_ms = in->has_timeout_ms ? in->timeout_ms : 0;
        bench_thresholds_default(&req.thresholds);
        if (in->thresholds) {
                if (in->thresholds->has_max_absolute_error)
                        req.thresholds.max_abs_error = in->thresholds->max_absolute_error;
                if (in->thresholds->has_max_mean_squared_error)
                        req.thresholds.max_mse = in->thresholds->max_mean_squared_error;
                if (in->thresholds->has_max_symmetric_kl_divergence)
                        req.thresholds.max_kl = in->thresholds->max_symmetric_kl_divergence;
        }

        req.has_uid = true;
        req.uid = (uint32_t) rq->conn->peer.uid;
        req.operator = rq->conn->operator;
        if (req.sha256[0] && !req.operator) {
                /* By reference: only a model this uid stored (answered as
                 * an unknown one otherwise). */
                run_call_t *c = calloc(1, sizeof(*c));

                if (!c) {
                        bench_request_done(&req);
                        return -ENOMEM;
                }
                c->rq = rq;
                c->req = req;
                c->n_cand = n_cand;
                r = daemon_storage_submit(run_owned_job, run_owned_done, c);
                if (r < 0) {
                        bench_request_done(&c->req);
                        free(c);
                        return daemon_request_errorf(rq, r == -EAGAIN ? -EBUSY : r, "storage is busy: %s",
                                                     strerror(-r));
                }
                return DAEMON_REQUEST_DEFERRED;
        }
        return run_queue(rq, &req, n_cand);
}

/* ---- BenchmarkProgress ---- */

typedef struct progress_ctx {
        daemon_request_t *rq;
        Acceld__BenchmarkProgressResponse *out;
        int r;
} progress_ctx_t;

static void progress_fill(void *userdata, const char *sha256, bool finished, const char *message,
                          const bench_candidate_t *v, size_t n, size_t best) {
        progress_ctx_t *p = userdata;
        daemon_request_t *rq = p->rq;
        Acceld__BenchmarkProgressResponse *out = p->out;
        Acceld__BenchmarkCandidate **pp, *po;
        uint32_t done = 0;

        out->model_sha256 = daemon_request_strdup(rq, sha256);
        out->has_finished = 1;
        out->finished = finished;
        if (message && message[0])
                out->message = daemon_request_strdup(rq, message);
        pp = daemon_request_alloc(rq, sizeof(*pp) * (n + 1));
        po = daemon_request_alloc(rq, sizeof(*po) * (n + 1));
        if (!pp || !po) {
                p->r = -ENOMEM;
                return;
        }
        for (size_t i = 0; i < n; i++) {
                const bench_candidate_t *c = &v[i];
                Acceld__BenchmarkCandidate *o = &po[i];

                acceld__benchmark_candidate__init(o);
                o->settings = settings_to_arena(rq, &c->settings);
                o->settings_json = settings_json_arena(rq, &c->settings);
                o->settings_key = daemon_request_strdup(rq, c->key ? c->key : "");
                o->label = daemon_request_strdup(rq, c->label);
                o->state = (char *) bench_state_to_string(c->state);
                if (c->state == BENCH_STATE_DONE || c->state == BENCH_STATE_SKIPPED)
                        done++;
                if (c->state == BENCH_STATE_DONE || c->state == BENCH_STATE_SKIPPED) {
                        o->has_ok = 1;
                        o->ok = c->ok;
                        o->error = daemon_request_strdup(rq, c->error);
                }
                if (c->state == BENCH_STATE_DONE && c->median_us >= 0) {
                        o->has_median_us = o->has_p90_us = 1;
                        o->median_us = c->median_us;
                        o->p90_us = c->p90_us;
                }
                if (c->state == BENCH_STATE_DONE && c->init_us >= 0) {
                        o->has_init_us = 1;
                        o->init_us = c->init_us;
                }
                if (c->state == BENCH_STATE_DONE && c->max_memory_kb >= 0) {
                        o->has_max_memory_kb = 1;
                        o->max_memory_kb = c->max_memory_kb;
                }
                if (c->event)
                        o->event = event_unpack(rq, c->event, c->event_size);
                pp[i] = o;
        }
        out->candidates = pp;
        out->n_candidates = n;
        out->has_done = out->has_total = 1;
        out->done = done;
        out->total = (uint32_t) n;
        if (best < n) {
                out->best_label = daemon_request_strdup(rq, v[best].label);
                out->best = settings_to_arena(rq, &v[best].settings);
                out->best_settings_json = settings_json_arena(rq, &v[best].settings);
        }
}

int daemon_benchmark_progress_handle(daemon_request_t *rq) {
        const Acceld__BenchmarkProgressRequest *in = rq->req->benchmark_progress;
        progress_ctx_t p = { .rq = rq };
        int r;

        r = bench_available(rq);
        if (r < 0)
                return r;
        p.out = daemon_request_alloc(rq, sizeof(*p.out));
        if (!p.out)
                return -ENOMEM;
        acceld__benchmark_progress_response__init(p.out);
        /* A tenant sees its own runs only; another's id is answered as an
         * unknown one, so ids (small sequential integers) tell nothing. */
        uint32_t uid = (uint32_t) rq->conn->peer.uid;

        r = bench_runner_progress(bench.runner, (int64_t) in->run_id, rq->conn->operator ? NULL : &uid,
                                  progress_fill, &p);
        if (r == -ENOENT)
                return daemon_request_errorf(rq, -ENOENT, "no benchmark run %" PRIu64, in->run_id);
        if (r < 0 || p.r < 0)
                return r < 0 ? r : p.r;
        p.out->has_run_id = 1;
        p.out->run_id = in->run_id;
        rq->resp.body_case = ACCELD__RESPONSE__BODY_BENCHMARK_PROGRESS;
        rq->resp.benchmark_progress = p.out;
        return 0;
}

/* ---- ListBenchmarkEvents ---- */

static int list_job(store_db_t *db, void *userdata) {
        bench_call_t *call = userdata;

        return store_event_list(db, &call->filter, &call->events, &call->n_events);
}

static int list_done(bench_call_t *call) {
        daemon_request_t *rq = call->rq;
        Acceld__ListBenchmarkEventsResponse *out;
        Acceld__BenchmarkEventRecord **pp, *po;

        if (call->result < 0)
                return daemon_request_errorf(rq, call->result, "cannot read the event log: %s",
                                             strerror(-call->result));
        out = daemon_request_alloc(rq, sizeof(*out));
        pp = daemon_request_alloc(rq, sizeof(*pp) * (call->n_events + 1));
        po = daemon_request_alloc(rq, sizeof(*po) * (call->n_events + 1));
        if (!out || !pp || !po)
                return -ENOMEM;
        acceld__list_benchmark_events_response__init(out);
        for (size_t i = 0; i < call->n_events; i++) {
                const store_event_t *e = &call->events[i];

                acceld__benchmark_event_record__init(&po[i]);
                po[i].has_id = 1;
                po[i].id = e->id;
                po[i].model_sha256 = daemon_request_strdup(rq, e->model_sha256);
                po[i].settings_key = daemon_request_strdup(rq, e->settings_key);
                if (e->driver_version)
                        po[i].driver_version = daemon_request_strdup(rq, e->driver_version);
                po[i].event = event_unpack(rq, e->blob, e->blob_size);
                if (po[i].event && po[i].event->tflite_settings) {
                        Tflite__Proto__TFLiteSettings *t = po[i].event->tflite_settings;
                        size_t sn = tflite__proto__tflite_settings__get_packed_size(t);
                        uint8_t *sb = daemon_request_alloc(rq, sn + 1);

                        if (sb) {
                                (void) tflite__proto__tflite_settings__pack(t, sb);
                                po[i].settings_json = settings_json_from_bytes(rq, sb, sn);
                        }
                } else
                        po[i].settings_json = daemon_request_strdup(rq, "{}");
                pp[i] = &po[i];
        }
        out->events = pp;
        out->n_events = call->n_events;
        rq->resp.body_case = ACCELD__RESPONSE__BODY_LIST_BENCHMARK_EVENTS;
        rq->resp.list_benchmark_events = out;
        return 0;
}

/* ---- ListBenchmarkEvents with `evaluations`: the Evaluate results ---- */

static int list_evaluations_job(store_db_t *db, void *userdata) {
        bench_call_t *call = userdata;
        store_evaluation_filter_t f = {
                .model_sha256 = call->filter.model_sha256,
                .settings_key = call->filter.settings_key,
                .after_id = call->filter.after_id,
                .limit = call->filter.limit,
                .has_uid = call->filter.has_uid,
                .uid = call->filter.uid,
        };

        return store_evaluation_list(db, &f, &call->evaluations, &call->n_evaluations);
}

static int list_evaluations_done(bench_call_t *call) {
        daemon_request_t *rq = call->rq;
        Acceld__ListBenchmarkEventsResponse *out;
        Acceld__EvaluationRecord **pp, *po;

        if (call->result < 0)
                return daemon_request_errorf(rq, call->result, "cannot read the evaluations: %s",
                                             strerror(-call->result));
        out = daemon_request_alloc(rq, sizeof(*out));
        pp = daemon_request_alloc(rq, sizeof(*pp) * (call->n_evaluations + 1));
        po = daemon_request_alloc(rq, sizeof(*po) * (call->n_evaluations + 1));
        if (!out || !pp || !po)
                return -ENOMEM;
        acceld__list_benchmark_events_response__init(out);
        for (size_t i = 0; i < call->n_evaluations; i++) {
                if (daemon_evaluation_record_fill(rq, &po[i], &call->evaluations[i]) < 0)
                        return -ENOMEM;
                pp[i] = &po[i];
        }
        out->evaluations = pp;
        out->n_evaluations = call->n_evaluations;
        rq->resp.body_case = ACCELD__RESPONSE__BODY_LIST_BENCHMARK_EVENTS;
        rq->resp.list_benchmark_events = out;
        return 0;
}

/* A storage call reading the event log for `rq`: the caller's own events
 * unless an operator, of one model when `sha` names one, at most `limit`
 * (0: BENCH_LIST_MAX). *ret or an error reply. */
static int log_call_new(daemon_request_t *rq, const char *sha, uint32_t limit, int (*job)(store_db_t *, void *),
                        int (*done)(bench_call_t *), bench_call_t **ret) {
        bench_call_t *call;
        int r = bench_available(rq);

        if (r < 0)
                return r;
        if (sha && sha[0] && !acc_sha256_hex_valid(sha))
                return daemon_request_errorf(rq, -EINVAL, "model_sha256 must be 64 lowercase hex digits");
        call = calloc(1, sizeof(*call));
        if (!call)
                return -ENOMEM;
        call->rq = rq;
        call->job = job;
        call->done = done;
        call->peer_uid = (uint32_t) rq->conn->peer.uid;
        call->operator = rq->conn->operator;
        if (!rq->conn->operator) {
                call->filter.has_uid = true;
                call->filter.uid = (uint32_t) rq->conn->peer.uid;
        }
        if (sha && sha[0]) {
                memcpy(call->sha256, sha, ACC_SHA256_HEX_SIZE);
                call->filter.model_sha256 = call->sha256;
        }
        call->filter.limit = limit > 0 && limit < BENCH_LIST_MAX ? limit : BENCH_LIST_MAX;
        *ret = call;
        return 0;
}

int daemon_list_benchmark_events_handle(daemon_request_t *rq) {
        const Acceld__ListBenchmarkEventsRequest *in = rq->req->list_benchmark_events;
        bool evaluations = in->has_evaluations && in->evaluations;
        bench_call_t *call = NULL;
        int r = log_call_new(rq, in->model_sha256, in->has_limit ? in->limit : 0,
                             evaluations ? list_evaluations_job : list_job,
                             evaluations ? list_evaluations_done : list_done, &call);

        if (r < 0)
                return r;
        if (in->settings_key && in->settings_key[0]) {
                call->settings_key = strdup(in->settings_key);
                if (!call->settings_key) {
                        call_free(call);
                        return -ENOMEM;
                }
                call->filter.settings_key = call->settings_key;
        }
        if (in->has_event_type)
                call->filter.event_type = in->event_type;
        call->filter.has_from = in->has_from_us;
        call->filter.from_us = in->from_us;
        call->filter.has_to = in->has_to_us;
        call->filter.to_us = in->to_us;
        call->filter.after_id = in->has_after_id ? in->after_id : 0;
        return call_submit(call);
}

/* ---- GetBestSettings ---- */

/* A tenant learns about a model only if it stored it or benchmarked it. */
static int tenant_knows(store_db_t *db, const bench_call_t *call) {
        store_event_filter_t f = { .model_sha256 = call->sha256, .has_uid = true, .uid = call->filter.uid,
                                   .limit = 1 };
        store_event_t *v = NULL;
        size_t n = 0;
        int r = store_model_owned(db, call->sha256, call->filter.uid);

        if (r != 0)
                return r;
        r = store_event_list(db, &f, &v, &n);
        store_event_list_free(v, n);
        return r < 0 ? r : n > 0;
}

static int best_job(store_db_t *db, void *userdata) {
        bench_call_t *call = userdata;
        int r;

        if (call->filter.has_uid) {
                r = tenant_knows(db, call);
                if (r <= 0)
                        return r < 0 ? r : -ENOENT;
        }
        r = store_decision_get(db, call->sha256, call->preference, call->decision_uid, &call->decision);
        if (r != -ENOENT)
                return r;
        /* Not decided yet (or invalidated): decide from the log now, from
         * what this uid and the operators recorded. */
        return bench_select_with(db, call->sha256, call->preference, call->decision_uid, bench.versions,
                                 bench.max_accuracy_drop, &call->decision);
}

static int best_done(bench_call_t *call) {
        daemon_request_t *rq = call->rq;
        Acceld__GetBestSettingsResponse *out;
        rt_settings_t s;
        char label[96];

        if (call->result == -ENOENT)
                return daemon_request_errorf(rq, -ENOENT,
                                             "no correct benchmark result for model %s: run a benchmark first",
                                             call->sha256);
        if (call->result < 0)
                return daemon_request_errorf(rq, call->result, "cannot decide: %s", strerror(-call->result));
        out = daemon_request_alloc(rq, sizeof(*out));
        if (!out)
                return -ENOMEM;
        acceld__get_best_settings_response__init(out);
        out->settings = settings_unpack(rq, call->decision.settings, call->decision.settings_size);
        out->settings_json = settings_json_from_bytes(rq, call->decision.settings, call->decision.settings_size);
        out->settings_key = daemon_request_strdup(rq, call->decision.settings_key);
        out->reason = daemon_request_strdup(rq, call->decision.reason);
        out->has_decided_at_us = 1;
        out->decided_at_us = call->decision.decided_at_us;
        if (rt_settings_parse_proto(call->decision.settings, call->decision.settings_size, &s, NULL, 0) == 0) {
                rt_settings_label(&s, label, sizeof(label));
                out->label = daemon_request_strdup(rq, label);
                rt_settings_done(&s);
        }
        rq->resp.body_case = ACCELD__RESPONSE__BODY_GET_BEST_SETTINGS;
        rq->resp.get_best_settings = out;
        return 0;
}

int daemon_get_best_settings_handle(daemon_request_t *rq) {
        const Acceld__GetBestSettingsRequest *in = rq->req->get_best_settings;
        bench_call_t *call;
        int r;

        r = bench_available(rq);
        if (r < 0)
                return r;
        if (!acc_sha256_hex_valid(in->model_sha256))
                return daemon_request_errorf(rq, -EINVAL, "model_sha256 must be 64 lowercase hex digits");
        if (in->has_preference && ((int) in->preference < 0 || in->preference > 3))
                return daemon_request_errorf(rq, -EINVAL, "unknown preference %d", (int) in->preference);
        call = calloc(1, sizeof(*call));
        if (!call)
                return -ENOMEM;
        call->rq = rq;
        call->job = best_job;
        call->done = best_done;
        if (!rq->conn->operator) {
                call->filter.has_uid = true;
                call->filter.uid = (uint32_t) rq->conn->peer.uid;
        }
        call->decision_uid = rq->conn->operator ? 0 : (uint32_t) rq->conn->peer.uid;
        memcpy(call->sha256, in->model_sha256, ACC_SHA256_HEX_SIZE);
        call->preference = in->has_preference ? (int) in->preference : TFLITE__PROTO__EXECUTION_PREFERENCE__ANY;
        return call_submit(call);
}

/* ---- ExportBenchmarkEvents ---- */

static int export_job(store_db_t *db, void *userdata) {
        bench_call_t *call = userdata;
        int r;

        r = store_event_list(db, &call->filter, &call->events, &call->n_events);
        if (r < 0)
                return r;
        /* Record that these were handed out: one LOGGED event per exported
         * event (LOGGED events themselves are exported but not re-logged). */
        for (size_t i = 0; i < call->n_events; i++) {
                const store_event_t *e = &call->events[i];
                Tflite__Proto__BenchmarkEvent *old;
                Tflite__Proto__BenchmarkEvent ev = TFLITE__PROTO__BENCHMARK_EVENT__INIT;
                _cleanup_free_ uint8_t *b = NULL;
                size_t bn;

                if (e->event_type == TFLITE__PROTO__BENCHMARK_EVENT_TYPE__LOGGED)
                        continue;
                old = tflite__proto__benchmark_event__unpack(NULL, e->blob_size, e->blob);
                ev.tflite_settings = old ? old->tflite_settings : NULL;
                ev.has_event_type = 1;
                ev.event_type = TFLITE__PROTO__BENCHMARK_EVENT_TYPE__LOGGED;
                ev.has_wallclock_us = 1;
                ev.wallclock_us = acc_clock_us(CLOCK_REALTIME);
                bn = tflite__proto__benchmark_event__get_packed_size(&ev);
                b = malloc(bn);
                if (b) {
                        (void) tflite__proto__benchmark_event__pack(&ev, b);
                        int64_t id = 0;

                        r = store_event_insert(db, e->model_sha256, e->settings_key, e->driver_version, b, bn, &id);
                        if (r >= 0)
                                r = store_event_set_owner(db, id, call->peer_uid, call->operator);
                }
                if (old)
                        tflite__proto__benchmark_event__free_unpacked(old, NULL);
                if (!b)
                        return -ENOMEM;
                if (r < 0)
                        return r;
        }
        return 0;
}

static int export_done(bench_call_t *call) {
        daemon_request_t *rq = call->rq;
        Acceld__ExportBenchmarkEventsResponse *out;
        ProtobufCBinaryData *v;

        if (call->result < 0)
                return daemon_request_errorf(rq, call->result, "cannot export: %s", strerror(-call->result));
        out = daemon_request_alloc(rq, sizeof(*out));
        v = daemon_request_alloc(rq, sizeof(*v) * (call->n_events + 1));
        if (!out || !v)
                return -ENOMEM;
        acceld__export_benchmark_events_response__init(out);
        for (size_t i = 0; i < call->n_events; i++) {
                /* The stored blob, unchanged. */
                v[i].data = call->events[i].blob;
                v[i].len = call->events[i].blob_size;
        }
        out->events = v;
        out->n_events = call->n_events;
        rq->resp.body_case = ACCELD__RESPONSE__BODY_EXPORT_BENCHMARK_EVENTS;
        rq->resp.export_benchmark_events = out;
        /* The blobs stay owned by call, which is freed after the reply is packed. */
        return 0;
}

int daemon_export_benchmark_events_handle(daemon_request_t *rq) {
        const Acceld__ExportBenchmarkEventsRequest *in = rq->req->export_benchmark_events;
        bench_call_t *call = NULL;
        int r = log_call_new(rq, in->model_sha256, in->has_limit ? in->limit : 0, export_job, export_done, &call);

        if (r < 0)
                return r;
        return call_submit(call);
}
