/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The benchmark runner: one thread that runs benchmark runs one after the
 * other (so candidates never compete for the cores), each candidate in a
 * child process (acceld --benchmark-worker, worker.h) with a timeout and
 * resource limits, and records every event through the storage thread:
 * START before the child starts, END or ERROR when it has ended. The
 * runner thread blocks on children and on the storage thread; the loop
 * never does. Progress is read with bench_runner_progress() under the
 * runner's mutex.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "metrics.h"
#include "service.pb-c.h"
#include "settings.h"
#include "storage.h"

#define BENCH_DEFAULT_RUNS 10
#define BENCH_MAX_RUNS 1000
#define BENCH_DEFAULT_TIMEOUT_MS 30000
#define BENCH_MAX_TIMEOUT_MS 600000
#define BENCH_MAX_CANDIDATES 64
#define BENCH_MAX_TENSORS 64
/* Address-space limit of a worker (RLIMIT_AS). */
#define BENCH_WORKER_AS_BYTES (8ull << 30)
/* A setting with this many ERROR events for a model (under the current
 * driver version) is not tried again. */
#define BENCH_MAX_FAILURES 2

typedef struct bench_runner bench_runner_t;

typedef enum bench_state {
        BENCH_STATE_PENDING,
        BENCH_STATE_RUNNING,
        BENCH_STATE_DONE,
        BENCH_STATE_SKIPPED,
        _BENCH_STATE_MAX,
} bench_state_t;

const char *bench_state_to_string(bench_state_t s);

typedef struct bench_candidate {
        rt_settings_t settings;
        char *key;                      /* canonical settings key */
        char label[96];
        const char *driver;             /* "reference", "xnnpack", plugin name */
        char driver_version[64];
        bench_state_t state;
        bool ok;
        bool pruned;                    /* stopped early as clearly slower */
        uint32_t runs;                  /* timed runs it made */
        uint32_t rounds;                /* confirmation rounds behind median_us, 0: none */
        int64_t median_us, p90_us, init_us; /* -1: none */
        int32_t max_memory_kb;          /* -1: none */
        char error[256];                /* "" when it ran to END */
        uint8_t *event;                 /* END or ERROR event bytes, owned */
        size_t event_size;
        int32_t *partition_nodes;       /* its plan's groups (owned), n_partitions of them */
        bool *partition_delegated;
        size_t n_partitions;
} bench_candidate_t;

/* What a client asked for. The runner owns it after bench_runner_submit(). */
typedef struct bench_request {
        int model_fd;                   /* owned, -1 if none */
        uint8_t *model;                 /* owned bytes, or NULL */
        size_t model_size;
        char sha256[ACC_SHA256_HEX_SIZE]; /* "" unless by reference to the store */
        rt_settings_t *candidates;      /* owned; n_candidates 0 = generate */
        size_t n_candidates;
        ProtobufCBinaryData *inputs, *outputs; /* owned (data too) */
        size_t n_inputs, n_outputs;
        uint32_t runs;
        uint32_t timeout_ms;
        bench_thresholds_t thresholds;
        bool has_uid;                   /* the requester: its events belong to it */
        uint32_t uid;
        bool operator;                  /* it asked as root or the operators group: any stored
                                         * model, and its events count for every uid */
} bench_request_t;

/* Free what r owns. NULL-safe. */
void bench_request_done(bench_request_t *r);

/* Pruning (docs/benchmarking.md, "The search"): after
 * BENCH_PRUNE_AFTER_RUNS runs a candidate stops when its fastest run is
 * above BENCH_PRUNE_FACTOR times the best median of the run so far and
 * above it by at least BENCH_PRUNE_MIN_GAP_US. */
#define BENCH_PRUNE_AFTER_RUNS 3
#define BENCH_PRUNE_FACTOR 1.5
#define BENCH_PRUNE_MIN_GAP_US 1000
/* ... and after its first two runs already when both are above
 * BENCH_PRUNE_EARLY_FACTOR times the best median (and the gap scaled
 * alike): a candidate 4x slower on a 100 ms model costs seconds. Two, not
 * one: on a loaded machine one run alone can be descheduled for 100 ms. */
#define BENCH_PRUNE_EARLY_FACTOR 4.0
/* Confirmation (docs/benchmarking.md, "Confirmation"): after a generated
 * search, the correct candidates not pruned whose median is within
 * BENCH_CONFIRM_FACTOR of the best or BENCH_PRUNE_MIN_GAP_US above it (at
 * most BENCH_CONFIRM_MAX, fastest first; when the fastest is a stage-2
 * variant, also the fastest plain setting however far behind) run
 * BENCH_CONFIRM_ROUNDS more rounds, interleaved: each round
 * runs each of them once in a fresh worker, the order rotated by one
 * from round to round, so a slow minute of the machine falls on all of
 * them alike. Each one's END event is then recorded again with the runs
 * of every round and each round's median (worker.h); selection weighs the
 * median of the round medians and their range (bench/select.h). The
 * rounds share the search budget; fewer than 2 completed rounds leave a
 * candidate's first measurement as it was. */
#define BENCH_CONFIRM_ROUNDS 5
#define BENCH_CONFIRM_FACTOR 1.5
#define BENCH_CONFIRM_MAX 4
/* The default of acceld.conf's benchmark_budget_ms. */
#define BENCH_DEFAULT_BUDGET_MS 120000

/* "reference=<v>;xnnpack=<v>;faulty=<v>" over the registered drivers.
 * Always NUL-terminated. */
void bench_driver_versions(char *buf, size_t size);

/* Called on the runner thread after each run ends (decisions are updated
 * by then). May be NULL. */
typedef void (*bench_run_done_fn)(void *userdata, const char *model_sha256);

/*
 * Start the runner thread. `store` (borrowed) records events; `worker_exe`
 * is the acceld binary to exec with --benchmark-worker; plugin_dir (may be
 * NULL) is passed to workers. Returns 0 and *ret, -ENOMEM or -errno from
 * pthread_create.
 */
int bench_runner_start(store_thread_t *store, const char *worker_exe, const char *plugin_dir,
                       bench_run_done_fn done_fn, void *userdata, bench_runner_t **ret);

/* Kill a running child, drop queued runs, join. NULL-safe. Returns NULL. */
bench_runner_t *bench_runner_stop(bench_runner_t *r);

/* Workers fold weights through the weights cache in `dir` (copied; NULL:
 * without it). Call before the first submit. 0, -EINVAL or -ENOMEM. */
int bench_runner_set_weights_dir(bench_runner_t *r, const char *dir);

/* Selection after each run skips settings whose recorded accuracy dropped
 * by more than this (bench_select_with()); call before the first submit.
 * 0 or -EINVAL (outside [0, 1]). */
int bench_runner_set_max_accuracy_drop(bench_runner_t *r, double max_drop);

/* The time budget of a search over generated candidates (0: none): a
 * candidate is not started once it is spent, and each one's timed runs
 * stop at its share of what is left (after BENCH_PRUNE_AFTER_RUNS runs).
 * Call before the first submit. 0 or -EINVAL. */
int bench_runner_set_budget_ms(bench_runner_t *r, uint32_t budget_ms);

/* Queue a run; takes ownership of *req (zeroed on return, also on error).
 * Returns the run id (> 0) or -EAGAIN (too many runs queued), -ENOMEM. Any
 * thread. */
int64_t bench_runner_submit(bench_runner_t *r, bench_request_t *req);

/* Call fn(userdata, ...) with the state of run `id` under the runner's
 * mutex (fn must not block); with `uid` non-NULL only if the run is that
 * uid's. Returns 0 or -ENOENT (unknown or forgotten id, or another uid's
 * run: the same answer; the last 32 finished runs are kept). */
typedef void (*bench_progress_fn)(void *userdata, const char *model_sha256, bool finished, const char *message,
                                  const bench_candidate_t *v, size_t n, size_t best);
int bench_runner_progress(bench_runner_t *r, int64_t id, const uint32_t *uid, bench_progress_fn fn,
                          void *userdata);

/*
 * Run one candidate synchronously (the core of a run; exposed for tests):
 * spawn the worker for `model_fd`, wait up to timeout_ms (or until *cancel,
 * may be NULL, becomes true: the child is killed), and build the
 * END or ERROR event into c->event (and c's summary fields). `job` is the
 * prepared worker job (settings are filled in here). When ret_result is
 * not NULL it receives the worker's decoded result (free with
 * acceld__benchmark_worker_result__free_unpacked()), or NULL.
 * Returns 0 (an event was built) or -errno (no event: spawn failed).
 */
int bench_candidate_run(const char *worker_exe, int model_fd, const Acceld__BenchmarkWorkerJob *job,
                        uint32_t timeout_ms, const bool *cancel, bench_candidate_t *c,
                        Acceld__BenchmarkWorkerResult **ret_result);

/* Free what c owns. NULL-safe. */
void bench_candidate_done(bench_candidate_t *c);

