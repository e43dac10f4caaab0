/* SPDX-License-Identifier: Apache-2.0 */
/* libaccel: benchmarks, the event log and the chosen settings. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "accel-internal.h"
#include "cleanup.h"

int accel_bench_start(accel_client_t *c, int model_fd, const char *model_sha256, const accel_bench_options_t *o,
                      uint64_t *ret_run_id) {
        Acceld__Request req = ACCELD__REQUEST__INIT;
        Acceld__RunBenchmarkRequest in = ACCELD__RUN_BENCHMARK_REQUEST__INIT;
        Acceld__BenchmarkThresholds th = ACCELD__BENCHMARK_THRESHOLDS__INIT;
        _cleanup_free_ ProtobufCBinaryData *inputs = NULL, *outputs = NULL;
        Acceld__Response *resp = NULL;
        int r;

        accel__error_clear();
        if (!c || !ret_run_id || (model_fd < 0 && !model_sha256))
                return accel__error(-EINVAL, ACCEL_STATUS_NONE, "a model fd or sha256 is required");
        if (model_fd >= 0) {
                in.has_model_fd = 1;
                in.model_fd = 0;
        } else
                in.sha256 = (char *) model_sha256;
        if (o) {
                in.candidates_json = (char **) o->candidates_json;
                in.n_candidates_json = o->n_candidates;
                if (o->n_inputs) {
                        inputs = calloc(o->n_inputs, sizeof(*inputs));
                        if (!inputs)
                                return accel__error(-ENOMEM, ACCEL_STATUS_NONE, "out of memory");
                        for (size_t i = 0; i < o->n_inputs; i++)
                                inputs[i] = (ProtobufCBinaryData) { o->input_sizes[i], (uint8_t *) o->inputs[i] };
                        in.inputs = inputs;
                        in.n_inputs = o->n_inputs;
                }
                if (o->n_outputs) {
                        outputs = calloc(o->n_outputs, sizeof(*outputs));
                        if (!outputs)
                                return accel__error(-ENOMEM, ACCEL_STATUS_NONE, "out of memory");
                        for (size_t i = 0; i < o->n_outputs; i++)
                                outputs[i] = (ProtobufCBinaryData) { o->output_sizes[i], (uint8_t *) o->outputs[i] };
                        in.outputs = outputs;
                        in.n_outputs = o->n_outputs;
                }
                in.has_runs = o->runs > 0;
                in.runs = o->runs;
                in.has_timeout_ms = o->timeout_ms > 0;
                in.timeout_ms = o->timeout_ms;
                if (o->max_absolute_error > 0 || o->max_mean_squared_error > 0 ||
                    o->max_symmetric_kl_divergence > 0) {
                        th.has_max_absolute_error = o->max_absolute_error > 0;
                        th.max_absolute_error = o->max_absolute_error;
                        th.has_max_mean_squared_error = o->max_mean_squared_error > 0;
                        th.max_mean_squared_error = o->max_mean_squared_error;
                        th.has_max_symmetric_kl_divergence = o->max_symmetric_kl_divergence > 0;
                        th.max_symmetric_kl_divergence = o->max_symmetric_kl_divergence;
                        in.thresholds = &th;
                }
        }
        req.body_case = ACCELD__REQUEST__BODY_RUN_BENCHMARK;
        req.run_benchmark = &in;
        r = accel__transact_fds(c, &req, model_fd >= 0 ? &model_fd : NULL, model_fd >= 0 ? 1 : 0,
                                ACCELD__RESPONSE__BODY_RUN_BENCHMARK, &resp);
        if (r < 0)
                return r;
        *ret_run_id = resp->run_benchmark->run_id;
        acceld__response__free_unpacked(resp, NULL);
        return 0;
}

static void candidate_free(accel_bench_candidate_t *x) {
        free(x->settings_json);
        free(x->settings_key);
        free(x->label);
        free(x->state);
        free(x->error);
}

accel_bench_progress_t *accel_bench_progress_free(accel_bench_progress_t *p) {
        if (!p)
                return NULL;
        for (size_t i = 0; i < p->n_candidates; i++)
                candidate_free(&p->candidates[i]);
        free(p->candidates);
        free(p->model_sha256);
        free(p->best_label);
        free(p->best_settings_json);
        free(p->message);
        free(p);
        return NULL;
}

int accel_bench_progress(accel_client_t *c, uint64_t run_id, accel_bench_progress_t **ret) {
        Acceld__Request req = ACCELD__REQUEST__INIT;
        Acceld__BenchmarkProgressRequest in = ACCELD__BENCHMARK_PROGRESS_REQUEST__INIT;
        Acceld__Response *resp = NULL;
        const Acceld__BenchmarkProgressResponse *out;
        accel_bench_progress_t *p;
        bool oom = false;
        int r;

        accel__error_clear();
        if (!c || !ret)
                return accel__error(-EINVAL, ACCEL_STATUS_NONE, "invalid argument");
        in.has_run_id = 1;
        in.run_id = run_id;
        req.body_case = ACCELD__REQUEST__BODY_BENCHMARK_PROGRESS;
        req.benchmark_progress = &in;
        r = accel__transact(c, &req, ACCELD__RESPONSE__BODY_BENCHMARK_PROGRESS, &resp);
        if (r < 0)
                return r;
        out = resp->benchmark_progress;
        p = calloc(1, sizeof(*p));
        if (!p) {
                acceld__response__free_unpacked(resp, NULL);
                return accel__error(-ENOMEM, ACCEL_STATUS_NONE, "out of memory");
        }
        p->run_id = out->run_id;
        p->finished = out->finished;
        p->done = out->done;
        p->total = out->total;
        p->model_sha256 = accel__strdup0(out->model_sha256);
        p->best_label = accel__strdup0(out->best_label);
        p->best_settings_json = accel__strdup0(out->best_settings_json);
        p->message = accel__strdup0(out->message);
        oom = !p->model_sha256 || !p->best_label || !p->best_settings_json || !p->message;
        p->candidates = calloc(out->n_candidates + 1, sizeof(*p->candidates));
        oom = oom || !p->candidates;
        for (size_t i = 0; !oom && i < out->n_candidates; i++) {
                const Acceld__BenchmarkCandidate *x = out->candidates[i];
                accel_bench_candidate_t *y = &p->candidates[i];
                const Tflite__Proto__BenchmarkError *e = x->event ? x->event->error : NULL;

                p->n_candidates++;
                y->settings_json = accel__strdup0(x->settings_json);
                y->settings_key = accel__strdup0(x->settings_key);
                y->label = accel__strdup0(x->label);
                y->state = accel__strdup0(x->state);
                y->error = accel__strdup0(x->error);
                oom = !y->settings_json || !y->settings_key || !y->label || !y->state || !y->error;
                y->ok = x->has_ok ? (int) x->ok : -1;
                y->median_us = x->has_median_us ? x->median_us : -1;
                y->p90_us = x->has_p90_us ? x->p90_us : -1;
                y->init_us = x->has_init_us ? x->init_us : -1;
                y->max_memory_kb = x->has_max_memory_kb ? x->max_memory_kb : -1;
                y->error_stage = e && e->has_stage ? (int) e->stage : -1;
                y->error_exit_code = e && e->has_exit_code ? e->exit_code : -1;
                y->error_signal = e && e->has_signal ? e->signal : 0;
        }
        acceld__response__free_unpacked(resp, NULL);
        if (oom) {
                (void) accel_bench_progress_free(p);
                return accel__error(-ENOMEM, ACCEL_STATUS_NONE, "out of memory");
        }
        *ret = p;
        return 0;
}

static void event_free(accel_bench_event_t *e) {
        free(e->model_sha256);
        free(e->settings_key);
        free(e->driver_version);
        free(e->settings_json);
        free(e->initialization_time_us);
        free(e->inference_time_us);
        for (size_t k = 0; k < e->n_metrics; k++) {
                free(e->metrics[k].name);
                free(e->metrics[k].values);
        }
        free(e->metrics);
        free(e->error_codes);
}

void accel_bench_events_free(accel_bench_event_t *v, size_t n) {
        if (!v)
                return;
        for (size_t i = 0; i < n; i++)
                event_free(&v[i]);
        free(v);
}

static void *memdup0(const void *p, size_t n) {
        void *q = malloc(n ? n : 1);

        if (q && n)
                memcpy(q, p, n);
        return q;
}

static int event_copy(accel_bench_event_t *y, const Acceld__BenchmarkEventRecord *x) {
        const Tflite__Proto__BenchmarkEvent *e = x->event;

        y->id = x->id;
        y->model_sha256 = accel__strdup0(x->model_sha256);
        y->settings_key = accel__strdup0(x->settings_key);
        y->driver_version = accel__strdup0(x->driver_version);
        y->settings_json = accel__strdup0(x->settings_json && x->settings_json[0] ? x->settings_json : "{}");
        if (!y->model_sha256 || !y->settings_key || !y->driver_version || !y->settings_json)
                return -ENOMEM;
        if (!e)
                return 0;
        y->event_type = e->has_event_type ? (int) e->event_type : 0;
        y->has_boottime_us = e->has_boottime_us;
        y->boottime_us = e->boottime_us;
        y->has_wallclock_us = e->has_wallclock_us;
        y->wallclock_us = e->wallclock_us;
        if (e->result) {
                const Tflite__Proto__BenchmarkResult *res = e->result;

                y->has_result = true;
                y->initialization_time_us = memdup0(res->initialization_time_us,
                                                    res->n_initialization_time_us * sizeof(int64_t));
                y->n_initialization_time_us = res->n_initialization_time_us;
                y->inference_time_us = memdup0(res->inference_time_us, res->n_inference_time_us * sizeof(int64_t));
                y->n_inference_time_us = res->n_inference_time_us;
                y->has_max_memory_kb = res->has_max_memory_kb;
                y->max_memory_kb = res->max_memory_kb;
                y->has_ok = res->has_ok;
                y->ok = res->ok;
                y->metrics = calloc(res->n_metrics + 1, sizeof(*y->metrics));
                if (!y->initialization_time_us || !y->inference_time_us || !y->metrics)
                        return -ENOMEM;
                for (size_t k = 0; k < res->n_metrics; k++) {
                        y->n_metrics++;
                        y->metrics[k].name = accel__strdup0(res->metrics[k]->name);
                        y->metrics[k].values = memdup0(res->metrics[k]->values,
                                                       res->metrics[k]->n_values * sizeof(float));
                        y->metrics[k].n_values = res->metrics[k]->n_values;
                        if (!y->metrics[k].name || !y->metrics[k].values)
                                return -ENOMEM;
                }
        }
        if (e->error) {
                const Tflite__Proto__BenchmarkError *er = e->error;

                y->has_error = true;
                y->has_stage = er->has_stage;
                y->stage = er->stage;
                y->has_exit_code = er->has_exit_code;
                y->exit_code = er->exit_code;
                y->has_signal = er->has_signal;
                y->signal = er->signal;
                y->error_codes = calloc(er->n_error_code + 1, sizeof(*y->error_codes));
                if (!y->error_codes)
                        return -ENOMEM;
                for (size_t k = 0; k < er->n_error_code; k++) {
                        y->error_codes[k].source = er->error_code[k]->source;
                        y->error_codes[k].tflite_error = er->error_code[k]->tflite_error;
                        y->error_codes[k].underlying_api_error = er->error_code[k]->underlying_api_error;
                }
                y->n_error_codes = er->n_error_code;
        }
        return 0;
}

int accel_bench_events(accel_client_t *c, const accel_bench_event_filter_t *f, accel_bench_event_t **ret,
                       size_t *ret_n) {
        Acceld__Request req = ACCELD__REQUEST__INIT;
        Acceld__ListBenchmarkEventsRequest in = ACCELD__LIST_BENCHMARK_EVENTS_REQUEST__INIT;
        Acceld__Response *resp = NULL;
        const Acceld__ListBenchmarkEventsResponse *out;
        accel_bench_event_t *v;
        size_t n = 0;
        int r;

        accel__error_clear();
        if (!c || !ret || !ret_n)
                return accel__error(-EINVAL, ACCEL_STATUS_NONE, "invalid argument");
        if (f) {
                in.model_sha256 = (char *) f->model_sha256;
                in.settings_key = (char *) f->settings_key;
                in.has_event_type = f->event_type != 0;
                in.event_type = f->event_type;
                in.has_from_us = f->has_from;
                in.from_us = f->from_us;
                in.has_to_us = f->has_to;
                in.to_us = f->to_us;
                in.has_limit = f->limit > 0;
                in.limit = f->limit;
        }
        req.body_case = ACCELD__REQUEST__BODY_LIST_BENCHMARK_EVENTS;
        req.list_benchmark_events = &in;
        r = accel__transact(c, &req, ACCELD__RESPONSE__BODY_LIST_BENCHMARK_EVENTS, &resp);
        if (r < 0)
                return r;
        out = resp->list_benchmark_events;
        v = calloc(out->n_events + 1, sizeof(*v));
        r = v ? 0 : -ENOMEM;
        for (size_t i = 0; r == 0 && i < out->n_events; i++) {
                n++;
                r = event_copy(&v[i], out->events[i]);
        }
        acceld__response__free_unpacked(resp, NULL);
        if (r < 0) {
                accel_bench_events_free(v, n);
                return accel__error(r, ACCEL_STATUS_NONE, "out of memory");
        }
        *ret = v;
        *ret_n = n;
        return 0;
}

accel_bench_best_t *accel_bench_best_free(accel_bench_best_t *b) {
        if (!b)
                return NULL;
        free(b->settings_json);
        free(b->settings_key);
        free(b->label);
        free(b->reason);
        free(b);
        return NULL;
}

int accel_bench_best(accel_client_t *c, const char *model_sha256, int preference, accel_bench_best_t **ret) {
        Acceld__Request req = ACCELD__REQUEST__INIT;
        Acceld__GetBestSettingsRequest in = ACCELD__GET_BEST_SETTINGS_REQUEST__INIT;
        Acceld__Response *resp = NULL;
        const Acceld__GetBestSettingsResponse *out;
        accel_bench_best_t *b;
        int r;

        accel__error_clear();
        if (!c || !model_sha256 || !ret)
                return accel__error(-EINVAL, ACCEL_STATUS_NONE, "invalid argument");
        in.model_sha256 = (char *) model_sha256;
        in.has_preference = 1;
        in.preference = preference;
        req.body_case = ACCELD__REQUEST__BODY_GET_BEST_SETTINGS;
        req.get_best_settings = &in;
        r = accel__transact(c, &req, ACCELD__RESPONSE__BODY_GET_BEST_SETTINGS, &resp);
        if (r < 0)
                return r;
        out = resp->get_best_settings;
        b = calloc(1, sizeof(*b));
        if (b) {
                b->settings_json = accel__strdup0(out->settings_json && out->settings_json[0] ? out->settings_json
                                                                                              : "{}");
                b->settings_key = accel__strdup0(out->settings_key);
                b->label = accel__strdup0(out->label);
                b->reason = accel__strdup0(out->reason);
                b->decided_at_us = out->decided_at_us;
        }
        acceld__response__free_unpacked(resp, NULL);
        if (!b || !b->settings_json || !b->settings_key || !b->label || !b->reason) {
                (void) accel_bench_best_free(b);
                return accel__error(-ENOMEM, ACCEL_STATUS_NONE, "out of memory");
        }
        *ret = b;
        return 0;
}

void accel_bench_export_free(uint8_t **v, size_t *sizes, size_t n) {
        if (v)
                for (size_t i = 0; i < n; i++)
                        free(v[i]);
        free(v);
        free(sizes);
}

int accel_bench_export(accel_client_t *c, const char *model_sha256, uint32_t limit, uint8_t ***ret_v,
                       size_t **ret_sizes, size_t *ret_n) {
        Acceld__Request req = ACCELD__REQUEST__INIT;
        Acceld__ExportBenchmarkEventsRequest in = ACCELD__EXPORT_BENCHMARK_EVENTS_REQUEST__INIT;
        Acceld__Response *resp = NULL;
        const Acceld__ExportBenchmarkEventsResponse *out;
        uint8_t **v;
        size_t *sizes, n = 0;
        int r;

        accel__error_clear();
        if (!c || !ret_v || !ret_sizes || !ret_n)
                return accel__error(-EINVAL, ACCEL_STATUS_NONE, "invalid argument");
        in.model_sha256 = (char *) model_sha256;
        in.has_limit = limit > 0;
        in.limit = limit;
        req.body_case = ACCELD__REQUEST__BODY_EXPORT_BENCHMARK_EVENTS;
        req.export_benchmark_events = &in;
        r = accel__transact(c, &req, ACCELD__RESPONSE__BODY_EXPORT_BENCHMARK_EVENTS, &resp);
        if (r < 0)
                return r;
        out = resp->export_benchmark_events;
        v = calloc(out->n_events + 1, sizeof(*v));
        sizes = calloc(out->n_events + 1, sizeof(*sizes));
        r = v && sizes ? 0 : -ENOMEM;
        for (size_t i = 0; r == 0 && i < out->n_events; i++) {
                v[i] = memdup0(out->events[i].data, out->events[i].len);
                sizes[i] = out->events[i].len;
                n++;
                if (!v[i])
                        r = -ENOMEM;
        }
        acceld__response__free_unpacked(resp, NULL);
        if (r < 0) {
                accel_bench_export_free(v, sizes, n);
                return accel__error(r, ACCEL_STATUS_NONE, "out of memory");
        }
        *ret_v = v;
        *ret_sizes = sizes;
        *ret_n = n;
        return 0;
}
