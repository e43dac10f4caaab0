/* SPDX-License-Identifier: Apache-2.0 */
/* acceld --benchmark-worker: one candidate, one process (see worker.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "file-read.h"
#include "clock.h"
#include "metrics.h"
#include "settings.h"
#include "cleanup.h"
#include "plugin.h"
#include "rt.h"
#include "sandbox.h"
#include "service.pb-c.h"
#include "wcache.h"
#include "worker.h"

DEFINE_POINTER_CLEANUP(rt_model_t, rt_model_free);
DEFINE_POINTER_CLEANUP(rt_wcache_t, rt_wcache_close);

#define WORKER_JOB_MAX (512u << 20)
#define WORKER_RUNS_MAX 10000

static int write_all(int fd, const uint8_t *p, size_t n) {
        while (n > 0) {
                ssize_t k = write(fd, p, n);

                if (k < 0 && errno == EINTR)
                        continue;
                if (k < 0)
                        return -errno;
                p += k;
                n -= (size_t) k;
        }
        return 0;
}

/* splitmix64 */
static uint64_t rng_next(uint64_t *s) {
        uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
}

int daemon_worker_fill_input(int type, void *buf, size_t bytes, uint64_t seed) {
        size_t es = rt_type_size((rt_type_t) type);
        uint64_t s = seed;

        if (es == 0 || bytes % es)
                return -ENOTSUP;
        for (size_t i = 0; i < bytes / es; i++) {
                uint64_t r = rng_next(&s);
                char *p = (char *) buf + i * es;

                switch (type) {
                case RT_TYPE_FLOAT32: {
                        float v = (float) ((double) (r >> 11) / (double) (1ull << 53) * 2.0 - 1.0);
                        memcpy(p, &v, 4);
                        break;
                }
                case RT_TYPE_FLOAT64: {
                        double v = (double) (r >> 11) / (double) (1ull << 53) * 2.0 - 1.0;
                        memcpy(p, &v, 8);
                        break;
                }
                case RT_TYPE_INT8:
                case RT_TYPE_UINT8:
                case RT_TYPE_INT16:
                case RT_TYPE_UINT16:
                        memcpy(p, &r, es);
                        break;
                case RT_TYPE_BOOL:
                        *p = (char) (r & 1);
                        break;
                case RT_TYPE_INT32: {
                        int32_t v = (int32_t) (r % 1000);
                        memcpy(p, &v, 4);
                        break;
                }
                case RT_TYPE_INT64: {
                        int64_t v = (int64_t) (r % 1000);
                        memcpy(p, &v, 8);
                        break;
                }
                default:
                        return -ENOTSUP;
                }
        }
        return 0;
}

typedef struct worker {
        Acceld__BenchmarkWorkerJob *job;
        rt_settings_t settings;
        Tflite__Proto__TFLiteSettings *settings_proto;
        Tflite__Proto__BenchmarkEvent event;
        Tflite__Proto__BenchmarkResult result;
        Tflite__Proto__BenchmarkError error;
        Tflite__Proto__ErrorCode code;
        Tflite__Proto__ErrorCode *codes[1];
        Tflite__Proto__BenchmarkMetric metrics[3];
        Tflite__Proto__BenchmarkMetric *metric_ptrs[3];
        float *metric_values[3];
        int64_t started_us;             /* CLOCK_MONOTONIC at the worker's start */
        int64_t init_us;
        int64_t *times;
        uint32_t pruned_after;          /* runs before pruning stopped it, 0: not pruned */
        ProtobufCMessageUnknownField pruned_field;
        uint8_t pruned_varint[10];
        int32_t *partition_nodes;
        protobuf_c_boolean *partition_delegated;
        Acceld__BenchmarkWorkerResult out;
        char message[512];
} worker_t;

static void stage_mark(char c) {
        (void) !write(DAEMON_WORKER_STAGE_FD, &c, 1);
}

static int worker_send(worker_t *w) {
        _cleanup_free_ uint8_t *ev = NULL, *buf = NULL;
        size_t n;

        w->event.boottime_us = acc_clock_us(CLOCK_BOOTTIME);
        w->event.has_boottime_us = 1;
        w->event.wallclock_us = acc_clock_us(CLOCK_REALTIME);
        w->event.has_wallclock_us = 1;
        n = tflite__proto__benchmark_event__get_packed_size(&w->event);
        ev = malloc(n ? n : 1);
        if (!ev)
                return -ENOMEM;
        (void) tflite__proto__benchmark_event__pack(&w->event, ev);
        w->out.has_event = 1;
        w->out.event.data = ev;
        w->out.event.len = n;
        if (w->message[0])
                w->out.message = w->message;
        n = acceld__benchmark_worker_result__get_packed_size(&w->out);
        buf = malloc(n ? n : 1);
        if (!buf)
                return -ENOMEM;
        (void) acceld__benchmark_worker_result__pack(&w->out, buf);
        return write_all(DAEMON_WORKER_RESULT_FD, buf, n);
}

/* Report an ERROR event for `stage` and exit code 1. */
static int worker_fail(worker_t *w, Tflite__Proto__BenchmarkStage stage, int r, const char *fmt, const char *detail) {
        (void) snprintf(w->message, sizeof(w->message), fmt, detail && detail[0] ? detail : strerror(-r));
        w->event.has_event_type = 1;
        w->event.event_type = TFLITE__PROTO__BENCHMARK_EVENT_TYPE__ERROR;
        w->error.has_stage = 1;
        w->error.stage = stage;
        w->error.has_exit_code = 1;
        w->error.exit_code = 1;
        w->code.has_source = 1;
        w->code.source = w->settings.delegate == RT_DELEGATE_PLUGIN ? TFLITE__PROTO__DELEGATE__NONE
                                                                    : (Tflite__Proto__Delegate) w->settings.delegate;
        w->code.has_tflite_error = 1;
        w->code.tflite_error = 1; /* kTfLiteError */
        w->code.has_underlying_api_error = 1;
        w->code.underlying_api_error = r;
        w->codes[0] = &w->code;
        w->error.error_code = w->codes;
        w->error.n_error_code = 1;
        w->event.error = &w->error;
        (void) worker_send(w);
        return 1;
}

static size_t tensor_row(const rt_tensor_t *t) {
        return t->rank > 0 && t->dims[t->rank - 1] > 0 ? (size_t) t->dims[t->rank - 1] : 1;
}

/* The job's thresholds over the defaults. */
static void job_thresholds(const Acceld__BenchmarkWorkerJob *job, bench_thresholds_t *th) {
        bench_thresholds_default(th);
        if (!job->thresholds)
                return;
        if (job->thresholds->has_max_absolute_error)
                th->max_abs_error = job->thresholds->max_absolute_error;
        if (job->thresholds->has_max_mean_squared_error)
                th->max_mse = job->thresholds->max_mean_squared_error;
        if (job->thresholds->has_max_symmetric_kl_divergence)
                th->max_kl = job->thresholds->max_symmetric_kl_divergence;
}

#define FAIL_INIT TFLITE__PROTO__BENCHMARK_STAGE__INITIALIZATION
#define FAIL_INFERENCE TFLITE__PROTO__BENCHMARK_STAGE__INFERENCE

/* Initialization: load the model, create the interpreter with the
 * candidate's settings (and acceld's folded weights), allocate. 0 and *ret
 * and w->init_us, or worker_fail()'s exit code. */
static int worker_interp_create(worker_t *w, rt_model_t **model, rt_wcache_t **wcache, rt_interp_t **ret) {
        const Acceld__BenchmarkWorkerJob *job = w->job;
        rt_interp_options_t *opts;
        rt_interp_t *it = NULL;
        char err[512] = "";
        int64_t t0;
        int r;

        stage_mark('I');
        t0 = acc_clock_us(CLOCK_MONOTONIC);
        r = rt_model_load_fd(DAEMON_WORKER_MODEL_FD, model, err, sizeof(err));
        if (r < 0)
                return worker_fail(w, FAIL_INIT, r, "model: %s", err);
        opts = rt_interp_options_new();
        if (!opts)
                return worker_fail(w, FAIL_INIT, -ENOMEM, "%s", NULL);
        r = rt_interp_options_set_settings(opts, &w->settings);
        /* The same folded weights as acceld's instances: mapped, not
         * computed again, read-only (only acceld writes the cache); a cache
         * that cannot be opened (a dropped uid) is only slower. */
        if (r == 0 && job->weights_dir && job->weights_dir[0] && job->model_key && job->model_key[0] &&
            rt_wcache_open_readonly(job->weights_dir, wcache) == 0)
                r = rt_interp_options_set_weights_cache(opts, *wcache, job->model_key);
        if (r == 0)
                r = rt_interp_create(*model, opts, &it, err, sizeof(err));
        opts = rt_interp_options_free(opts);
        if (r < 0)
                return worker_fail(w, FAIL_INIT, r, "create: %s", err);
        *ret = it;
        r = rt_interp_allocate_tensors(it);
        if (r < 0)
                return worker_fail(w, FAIL_INIT, r, "allocate: %s", rt_interp_last_error(it));
        w->init_us = acc_clock_us(CLOCK_MONOTONIC) - t0;
        return 0;
}

/* Inputs into w->out.inputs: given, generated, or left zero. Kept to
 * re-copy before each run. 0 or worker_fail()'s exit code. */
static int worker_inputs_prepare(worker_t *w, rt_interp_t *it, int32_t n_in) {
        const Acceld__BenchmarkWorkerJob *job = w->job;
        int r;

        w->out.inputs = calloc((size_t) n_in + 1, sizeof(ProtobufCBinaryData));
        w->out.n_inputs = (size_t) n_in;
        if (!w->out.inputs)
                return worker_fail(w, FAIL_INIT, -ENOMEM, "%s", NULL);
        for (int32_t i = 0; i < n_in; i++) {
                const rt_tensor_t *t = rt_interp_input_tensor(it, i);
                ProtobufCBinaryData *d = &w->out.inputs[i];

                d->data = calloc(1, t->bytes ? t->bytes : 1);
                d->len = t->bytes;
                if (!d->data)
                        return worker_fail(w, FAIL_INIT, -ENOMEM, "%s", NULL);
                if (job->n_inputs > 0) {
                        if (job->inputs[i].len != t->bytes) {
                                char m[160];

                                (void) snprintf(m, sizeof(m), "input %d has %zu bytes, the model needs %zu",
                                                (int) i, job->inputs[i].len, t->bytes);
                                return worker_fail(w, FAIL_INIT, -EINVAL, "%s", m);
                        }
                        memcpy(d->data, job->inputs[i].data, t->bytes);
                } else if (job->generate_inputs) {
                        r = daemon_worker_fill_input(t->type, d->data, t->bytes,
                                                     (job->has_seed ? job->seed : 1) * 1000003u + (uint64_t) i);
                        if (r < 0)
                                return worker_fail(w, FAIL_INIT, r, "%s",
                                                   "cannot generate inputs of this type; give validation inputs");
                }
        }
        return 0;
}

/* The outputs of one invoke, kept. */
typedef struct worker_outputs {
        int32_t n;
        uint8_t **data;
        size_t *size;
} worker_outputs_t;

static void worker_outputs_free(worker_outputs_t *o) {
        if (o->data)
                for (int32_t i = 0; i < o->n; i++)
                        free(o->data[i]);
        free(o->data);
        free(o->size);
}

static int worker_outputs_keep(rt_interp_t *it, worker_outputs_t *o) {
        for (int32_t i = 0; i < o->n; i++) {
                const rt_tensor_t *t = rt_interp_output_tensor(it, i);
                const void *p = rt_interp_output_data(it, i);

                o->data[i] = malloc(t->bytes ? t->bytes : 1);
                if (!o->data[i])
                        return -ENOMEM;
                if (p)
                        memcpy(o->data[i], p, t->bytes);
                o->size[i] = t->bytes;
        }
        return 0;
}

/* Whether to stop after run k (0-based): one more run as long as this one
 * would end past the job's hard limit (most of the candidate's timeout,
 * from the worker's start), pruned early (the first two runs are above
 * prune_early_above_us), pruned (the fastest run so far is
 * above the job's prune_above_us after prune_after_runs runs, noted in
 * w->pruned_after), or the job's share of the search budget is used up
 * (after at least as many runs). */
static bool worker_runs_stop(worker_t *w, uint32_t k, int64_t started_us) {
        const Acceld__BenchmarkWorkerJob *job = w->job;
        uint32_t min_runs = job->has_prune_after_runs && job->prune_after_runs > 0 ? job->prune_after_runs : 3;
        int64_t fastest = INT64_MAX;

        /* The next run would likely end past the hard limit (counted from
         * the worker's start, initialization included). */
        if (job->has_runs_hard_limit_us && job->runs_hard_limit_us > 0 &&
            acc_clock_us(CLOCK_MONOTONIC) + w->times[k] - w->started_us >= job->runs_hard_limit_us)
                return true;
        if (k == 1 && job->has_prune_early_above_us && job->prune_early_above_us > 0 &&
            w->times[0] > job->prune_early_above_us && w->times[1] > job->prune_early_above_us) {
                w->pruned_after = 2;
                return true;
        }
        if (k + 1 < min_runs)
                return false;
        for (uint32_t i = 0; i <= k; i++)
                if (w->times[i] < fastest)
                        fastest = w->times[i];
        if (job->has_prune_above_us && job->prune_above_us > 0 && fastest > job->prune_above_us) {
                w->pruned_after = k + 1;
                return true;
        }
        return job->has_runs_time_limit_us && job->runs_time_limit_us > 0 &&
               acc_clock_us(CLOCK_MONOTONIC) - started_us >= job->runs_time_limit_us;
}

/* The timed runs, into w->times (*ret_done of them: fewer than `runs`
 * when pruned or out of time); the first run's outputs into *first (the
 * goldens are a fresh interpreter's first invoke: stateful models). 0 or
 * worker_fail()'s exit code. */
static int worker_runs(worker_t *w, rt_interp_t *it, uint32_t runs, int32_t n_in, worker_outputs_t *first,
                       uint32_t *ret_done) {
        int64_t started;
        int r;

        w->times = calloc(runs, sizeof(int64_t));
        first->data = calloc((size_t) first->n + 1, sizeof(*first->data));
        first->size = calloc((size_t) first->n + 1, sizeof(*first->size));
        if (!w->times || !first->data || !first->size)
                return worker_fail(w, FAIL_INFERENCE, -ENOMEM, "%s", NULL);
        stage_mark('R');
        started = acc_clock_us(CLOCK_MONOTONIC);
        *ret_done = runs;
        for (uint32_t k = 0; k < runs; k++) {
                int64_t s;

                for (int32_t i = 0; i < n_in; i++) {
                        r = rt_interp_copy_in(it, i, w->out.inputs[i].data, w->out.inputs[i].len);
                        if (r < 0)
                                return worker_fail(w, FAIL_INFERENCE, r, "input: %s", rt_interp_last_error(it));
                }
                s = acc_clock_us(CLOCK_MONOTONIC);
                r = rt_interp_invoke(it);
                w->times[k] = acc_clock_us(CLOCK_MONOTONIC) - s;
                if (r < 0)
                        return worker_fail(w, FAIL_INFERENCE, r, "invoke: %s", rt_interp_last_error(it));
                if (k == 0 && worker_outputs_keep(it, first) < 0)
                        return worker_fail(w, FAIL_INFERENCE, -ENOMEM, "%s", NULL);
                if (k + 1 < runs && worker_runs_stop(w, k, started)) {
                        *ret_done = k + 1;
                        break;
                }
        }
        return 0;
}

/* The plan's groups (the partitioning candidates are made from them). */
static void worker_partitions_attach(worker_t *w, rt_interp_t *it) {
        size_t n = rt_interp_partitions(it, NULL, 0);
        rt_interp_partition_t *v = calloc(n + 1, sizeof(*v));

        w->partition_nodes = calloc(n + 1, sizeof(int32_t));
        w->partition_delegated = calloc(n + 1, sizeof(protobuf_c_boolean));
        if (!v || !w->partition_nodes || !w->partition_delegated) {
                free(v);
                return;
        }
        n = rt_interp_partitions(it, v, n);
        for (size_t i = 0; i < n; i++) {
                w->partition_nodes[i] = v[i].nodes;
                w->partition_delegated[i] = strcmp(v[i].driver, "reference") != 0;
        }
        w->out.partition_nodes = w->partition_nodes;
        w->out.n_partition_nodes = n;
        w->out.partition_delegated = w->partition_delegated;
        w->out.n_partition_delegated = n;
        free(v);
}

/* An END event of a pruned candidate carries BenchmarkEvent field 1000
 * (ours): the runs after which it stopped. */
static void worker_pruned_mark(worker_t *w) {
        size_t n = 0;
        uint64_t v = w->pruned_after;

        if (!w->pruned_after)
                return;
        do {
                w->pruned_varint[n] = (uint8_t) (v & 0x7f);
                v >>= 7;
                if (v)
                        w->pruned_varint[n] |= 0x80;
                n++;
        } while (v);
        w->pruned_field = (ProtobufCMessageUnknownField) {
                .tag = DAEMON_WORKER_EVENT_FIELD_PRUNED, .wire_type = PROTOBUF_C_WIRE_TYPE_VARINT,
                .len = n, .data = w->pruned_varint,
        };
        w->event.base.n_unknown_fields = 1;
        w->event.base.unknown_fields = &w->pruned_field;
}

/* The accuracy metrics of the first outputs against the goldens (error,
 * MSE, and KL for probability outputs); clears w->result.ok when one is
 * beyond its threshold. 0 or worker_fail()'s exit code. */
static int worker_metrics(worker_t *w, rt_interp_t *it, const worker_outputs_t *first, const bench_thresholds_t *th) {
        static const char *const names[3] = { "max_absolute_error", "mean_squared_error",
                                              "symmetric_kl_divergence" };
        const Acceld__BenchmarkWorkerJob *job = w->job;
        size_t n_kl = 0;

        for (int k = 0; k < 3; k++) {
                w->metric_values[k] = calloc((size_t) first->n + 1, sizeof(float));
                if (!w->metric_values[k])
                        return worker_fail(w, FAIL_INFERENCE, -ENOMEM, "%s", NULL);
                tflite__proto__benchmark_metric__init(&w->metrics[k]);
                w->metrics[k].name = (char *) names[k];
                w->metrics[k].values = w->metric_values[k];
                w->metric_ptrs[k] = &w->metrics[k];
        }
        for (int32_t i = 0; i < first->n; i++) {
                const rt_tensor_t *t = rt_interp_output_tensor(it, i);
                bench_metrics_t m = {};

                if (job->golden_outputs[i].len != first->size[i]) {
                        m.max_abs_error = INFINITY;
                        m.mse = INFINITY;
                        m.ok = false;
                        (void) snprintf(w->message, sizeof(w->message), "output %d has %zu bytes, the golden %zu",
                                        (int) i, first->size[i], job->golden_outputs[i].len);
                } else
                        (void) bench_metrics_compare(t->type, t->scale, t->zero_point, first->data[i],
                                                     job->golden_outputs[i].data, first->size[i], tensor_row(t), th,
                                                     &m);
                w->metric_values[0][i] = (float) m.max_abs_error;
                w->metric_values[1][i] = (float) m.mse;
                if (m.is_probability)
                        w->metric_values[2][n_kl++] = (float) m.kl;
                if (!m.ok)
                        w->result.ok = 0;
        }
        w->metrics[0].n_values = w->metrics[1].n_values = (size_t) first->n;
        w->metrics[2].n_values = n_kl;
        w->result.metrics = w->metric_ptrs;
        w->result.n_metrics = n_kl > 0 ? 3 : 2;
        return 0;
}

/* The END event: timings, peak memory, ok. */
static void worker_end_fill(worker_t *w, uint32_t runs) {
        struct rusage ru;

        w->event.has_event_type = 1;
        w->event.event_type = TFLITE__PROTO__BENCHMARK_EVENT_TYPE__END;
        w->result.n_initialization_time_us = 1;
        w->result.initialization_time_us = &w->init_us;
        w->result.n_inference_time_us = runs;
        w->result.inference_time_us = w->times;
        if (getrusage(RUSAGE_SELF, &ru) == 0) {
                w->result.has_max_memory_kb = 1;
                w->result.max_memory_kb = (int32_t) ru.ru_maxrss;
        }
        w->result.has_ok = 1;
        w->result.ok = 1;
}

/* What goes back besides the event: the inputs and first outputs when the
 * daemon asked for them (the golden run), else nothing. */
static void worker_data_attach(worker_t *w, const worker_outputs_t *first) {
        if (w->job->return_data) {
                w->out.outputs = calloc((size_t) first->n + 1, sizeof(ProtobufCBinaryData));
                if (w->out.outputs) {
                        w->out.n_outputs = (size_t) first->n;
                        for (int32_t i = 0; i < first->n; i++) {
                                w->out.outputs[i].data = first->data[i];
                                w->out.outputs[i].len = first->size[i];
                        }
                }
                return;
        }
        for (size_t i = 0; i < w->out.n_inputs; i++)
                free(w->out.inputs[i].data);
        free(w->out.inputs);
        w->out.inputs = NULL;
        w->out.n_inputs = 0;
}

static int worker_run(worker_t *w) {
        const Acceld__BenchmarkWorkerJob *job = w->job;
        _cleanup_(rt_model_freep) rt_model_t *model = NULL;
        _cleanup_(rt_wcache_closep) rt_wcache_t *wcache = NULL;
        _cleanup_(worker_outputs_free) worker_outputs_t first = { 0 };
        rt_interp_t *it = NULL;
        uint32_t runs = job->has_runs && job->runs > 0 ? job->runs : 10, done = 0;
        bench_thresholds_t th;
        int32_t n_in;
        int rc;

        if (runs > WORKER_RUNS_MAX)
                runs = WORKER_RUNS_MAX;
        job_thresholds(job, &th);

        rc = worker_interp_create(w, &model, &wcache, &it);
        if (rc != 0)
                goto out;
        n_in = rt_interp_input_count(it);
        first.n = rt_interp_output_count(it);
        if (job->n_inputs > 0 && job->n_inputs != (size_t) n_in) {
                rc = worker_fail(w, FAIL_INIT, -EINVAL, "%s",
                                 "the number of validation inputs differs from the model's inputs");
                goto out;
        }
        if (job->n_golden_outputs > 0 && job->n_golden_outputs != (size_t) first.n) {
                rc = worker_fail(w, FAIL_INIT, -EINVAL, "%s",
                                 "the number of golden outputs differs from the model's outputs");
                goto out;
        }
        rc = worker_inputs_prepare(w, it, n_in);
        if (rc == 0)
                rc = worker_runs(w, it, runs, n_in, &first, &done);
        if (rc != 0)
                goto out;

        worker_end_fill(w, done);
        worker_pruned_mark(w);
        worker_partitions_attach(w, it);
        if (job->n_golden_outputs > 0) {
                rc = worker_metrics(w, it, &first, &th);
                if (rc != 0)
                        goto out;
        }
        w->event.result = &w->result;
        worker_data_attach(w, &first);
        rc = worker_send(w) < 0 ? 2 : 0;
out:
        (void) rt_interp_free(it);
        return rc;
}

uint32_t daemon_worker_event_pruned_runs(const Tflite__Proto__BenchmarkEvent *ev) {
        for (size_t i = 0; ev && i < ev->base.n_unknown_fields; i++) {
                const ProtobufCMessageUnknownField *f = &ev->base.unknown_fields[i];
                uint64_t v = 0;

                if (f->tag != DAEMON_WORKER_EVENT_FIELD_PRUNED || f->wire_type != PROTOBUF_C_WIRE_TYPE_VARINT)
                        continue;
                for (size_t k = 0; k < f->len && k < 5; k++) {
                        v |= (uint64_t) (f->data[k] & 0x7f) << (7 * k);
                        if (!(f->data[k] & 0x80))
                                return v > UINT32_MAX ? UINT32_MAX : (uint32_t) v;
                }
        }
        return 0;
}

size_t daemon_worker_event_round_medians(const Tflite__Proto__BenchmarkEvent *ev, int64_t *ret, size_t max) {
        size_t n = 0;

        for (size_t i = 0; ev && i < ev->base.n_unknown_fields; i++) {
                const ProtobufCMessageUnknownField *f = &ev->base.unknown_fields[i];
                uint64_t v = 0;

                if (f->tag != DAEMON_WORKER_EVENT_FIELD_ROUND_MEDIAN || f->wire_type != PROTOBUF_C_WIRE_TYPE_VARINT)
                        continue;
                for (size_t k = 0; k < f->len && k < 10; k++) {
                        v |= (uint64_t) (f->data[k] & 0x7f) << (7 * k);
                        if (!(f->data[k] & 0x80))
                                break;
                }
                if (n < max)
                        ret[n] = v > INT64_MAX ? INT64_MAX : (int64_t) v;
                n++;
        }
        return n;
}

int daemon_worker_main(int argc, char **argv) {
        _cleanup_free_ uint8_t *buf = NULL;
        size_t n = 0;
        worker_t w = {};
        char err[512] = "";
        int r;

        (void) argc;
        (void) argv;
        /* Before the job is read and any plugin loaded: only the fds the
         * runner handed over (worker.h), and stderr. */
        {
                static const int keep[] = { DAEMON_WORKER_JOB_FD,    1, 2, DAEMON_WORKER_MODEL_FD,
                                            DAEMON_WORKER_RESULT_FD, DAEMON_WORKER_STAGE_FD };

                if (daemon_sandbox_enter(keep, sizeof(keep) / sizeof(keep[0]), err, sizeof(err)) < 0) {
                        fprintf(stderr, "acceld worker: cannot enter the sandbox: %s\n", err);
                        return 2;
                }
        }
        w.started_us = acc_clock_us(CLOCK_MONOTONIC);
        tflite__proto__benchmark_event__init(&w.event);
        tflite__proto__benchmark_result__init(&w.result);
        tflite__proto__benchmark_error__init(&w.error);
        tflite__proto__error_code__init(&w.code);
        acceld__benchmark_worker_result__init(&w.out);
        rt_settings_init(&w.settings);

        r = acc_fd_read(DAEMON_WORKER_JOB_FD, WORKER_JOB_MAX, (void **) &buf, &n);
        if (r < 0) {
                fprintf(stderr, "acceld worker: cannot read the job: %s\n", strerror(-r));
                return 2;
        }
        w.job = acceld__benchmark_worker_job__unpack(NULL, n, buf);
        if (!w.job) {
                fprintf(stderr, "acceld worker: the job does not decode\n");
                return 2;
        }
        if (w.job->plugin_dir && w.job->plugin_dir[0])
                (void) rt_plugin_load_dir(w.job->plugin_dir, NULL, NULL);
        if (w.job->settings_json && w.job->settings_json[0])
                r = rt_settings_parse_json(w.job->settings_json, &w.settings, err, sizeof(err));
        else
                r = rt_settings_parse_proto(w.job->has_tflite_settings ? w.job->tflite_settings.data : NULL,
                                              w.job->has_tflite_settings ? w.job->tflite_settings.len : 0,
                                              &w.settings, NULL, 0);
        if (r < 0) {
                fprintf(stderr, "acceld worker: bad settings: %s\n", err[0] ? err : strerror(-r));
                acceld__benchmark_worker_job__free_unpacked(w.job, NULL);
                return 2;
        }
        if (rt_settings_to_proto(&w.settings, &w.settings_proto) == 0)
                w.event.tflite_settings = w.settings_proto;

        r = worker_run(&w);

        if (w.out.inputs)
                for (size_t i = 0; i < w.out.n_inputs; i++)
                        free(w.out.inputs[i].data);
        free(w.out.inputs);
        free(w.out.outputs);
        free(w.times);
        free(w.partition_nodes);
        free(w.partition_delegated);
        for (int k = 0; k < 3; k++)
                free(w.metric_values[k]);
        if (w.settings_proto)
                tflite__proto__tflite_settings__free_unpacked(w.settings_proto, NULL);
        rt_settings_done(&w.settings);
        acceld__benchmark_worker_job__free_unpacked(w.job, NULL);
        return r;
}
