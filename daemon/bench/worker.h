/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The benchmark worker: `acceld --benchmark-worker` runs one candidate
 * setting on one model in its own process, so a crashing or hanging driver
 * takes only the worker down.
 *
 * Protocol (set up by the runner, bench/runner.c):
 *   fd 0  an acceld.BenchmarkWorkerJob, read to EOF
 *   fd 3  the model (read-only; mapped, never written)
 *   fd 4  where one acceld.BenchmarkWorkerResult is written before exit
 *   fd 5  stage marks (see below)
 * The result's event is a tflite.proto.BenchmarkEvent: END with the
 * BenchmarkResult (initialization_time_us, inference_time_us per run,
 * max_memory_kb from getrusage, ok and the metrics that decided it), or
 * ERROR with stage and error codes when the runtime returned an error.
 * The job may cut the runs short: pruning (prune_after_runs,
 * prune_above_us; the END event then carries
 * DAEMON_WORKER_EVENT_FIELD_PRUNED) and a time limit (runs_time_limit_us).
 * The result lists the plan's groups (partition_nodes/_delegated).
 * Exit status: 0 after END, 1 after ERROR, 2 when the job itself is bad
 * (no result written). A signal or timeout is the runner's to report.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#define DAEMON_WORKER_ARG "--benchmark-worker"
#define DAEMON_WORKER_JOB_FD 0
#define DAEMON_WORKER_MODEL_FD 3
#define DAEMON_WORKER_RESULT_FD 4
/* The worker appends 'I' entering initialization and 'R' entering inference,
 * so the runner knows the stage of a crash. */
#define DAEMON_WORKER_STAGE_FD 5

/* Ours on tflite.proto.BenchmarkEvent (an unknown field to the seed's
 * schema): an END event of a candidate that was pruned, stopped after
 * this many runs because its fastest run was far above the best median
 * so far (docs/benchmarking.md, "The search"). */
#define DAEMON_WORKER_EVENT_FIELD_PRUNED 1000

/* The runs after which the event's candidate was pruned (its
 * DAEMON_WORKER_EVENT_FIELD_PRUNED), 0 when it was not. NULL-safe. */
struct Tflite__Proto__BenchmarkEvent;
uint32_t daemon_worker_event_pruned_runs(const struct Tflite__Proto__BenchmarkEvent *ev);

/* Ours too, repeated varint: the END event the runner records for a
 * candidate confirmed in interleaved rounds (bench/runner.h,
 * "Confirmation") carries each round's median inference time, in round
 * order; its inference_time_us then holds the runs of every round. */
#define DAEMON_WORKER_EVENT_FIELD_ROUND_MEDIAN 1001

/* The event's round medians (its DAEMON_WORKER_EVENT_FIELD_ROUND_MEDIAN
 * fields), at most max of them into ret; returns how many there are
 * (0: a single round, the event's own runs). NULL-safe. */
size_t daemon_worker_event_round_medians(const struct Tflite__Proto__BenchmarkEvent *ev, int64_t *ret, size_t max);

/* Worker entry, from main() when argv[1] is DAEMON_WORKER_ARG. Returns the
 * process exit status. */
int daemon_worker_main(int argc, char **argv);

/* Deterministic pseudo-random test input for a tensor of `type` (float in
 * [-1, 1], integers over their range, int32/int64 in [0, 1000), bool 0/1)
 * into buf[0..bytes). -ENOTSUP for strings and other non-numeric types. */
int daemon_worker_fill_input(int type, void *buf, size_t bytes, uint64_t seed);
