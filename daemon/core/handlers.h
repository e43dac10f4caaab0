/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Request handlers, one file per request family; see dispatch.h for the
 * contract. Loop thread only.
 */
#pragma once

#include "dispatch.h"

/* hello.c: server and protocol versions, limits, connection id. */
int daemon_hello_handle(daemon_request_t *rq);

/* caps.c: CPU, memory and backends. daemon_caps_init() probes what never
 * changes (cpuinfo, XNNPACK) once at start-up; it returns 0, or a negative
 * errno when cpuinfo fails (GetCapabilities then reports what /proc gives). */
int daemon_caps_init(void);
int daemon_caps_handle(daemon_request_t *rq);

/* status.c: uptime, connection and request counters, paths, limits. */
int daemon_status_handle(daemon_request_t *rq);

/* Fill `l` (owned by the caller) from the configuration; shared by Hello
 * and GetStatus. */
void daemon_limits_fill(Acceld__Limits *l, const daemon_config_t *config);

/* serving.c: models, buffers and executions. Every handler
 * defers work that compiles or runs a model to the scheduler. */
int daemon_prepare_handle(daemon_request_t *rq);
int daemon_release_handle(daemon_request_t *rq);
int daemon_execute_handle(daemon_request_t *rq);
int daemon_register_buffer_handle(daemon_request_t *rq);
int daemon_unregister_buffer_handle(daemon_request_t *rq);
int daemon_allocate_buffer_handle(daemon_request_t *rq);
int daemon_cancel_handle(daemon_request_t *rq);
int daemon_list_models_handle(daemon_request_t *rq);
int daemon_remove_model_handle(daemon_request_t *rq);
int daemon_manage_weights_cache_handle(daemon_request_t *rq);
int daemon_resize_inputs_handle(daemon_request_t *rq);
int daemon_reset_variables_handle(daemon_request_t *rq);
/* Lanes (serving/lane.c). */
int daemon_lane_open_handle(daemon_request_t *rq);
int daemon_lane_close_handle(daemon_request_t *rq);
int daemon_supported_ops_handle(daemon_request_t *rq);
/* serving/evaluate.c: an evaluation stage on a handle's instance: the
 * inference diff on a worker, client top-K/detection recorded. */
int daemon_evaluate_handle(daemon_request_t *rq);
/* Fill `rec` (initialized here) from a stored evaluation, strings in rq's
 * arena: Evaluate's reply and ListBenchmarkEvents' evaluations. 0 or
 * -ENOMEM. */
struct Acceld__EvaluationRecord;
struct store_evaluation;
int daemon_evaluation_record_fill(daemon_request_t *rq, struct Acceld__EvaluationRecord *rec,
                                  const struct store_evaluation *e);

/* bench/handlers.c: benchmarks (docs/benchmarking.md). RunBenchmark
 * queues a run and answers its id at once; BenchmarkProgress reports it;
 * the others answer from the storage thread. */
int daemon_run_benchmark_handle(daemon_request_t *rq);
int daemon_benchmark_progress_handle(daemon_request_t *rq);
int daemon_list_benchmark_events_handle(daemon_request_t *rq);
int daemon_get_best_settings_handle(daemon_request_t *rq);
int daemon_export_benchmark_events_handle(daemon_request_t *rq);
