/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Benchmarks in the daemon: the benchmark runner, the orphan scan at
 * start-up, and the request handlers
 * (RunBenchmark, BenchmarkProgress, ListBenchmarkEvents, GetBestSettings,
 * ExportBenchmarkEvents; declared in handlers.h). See docs/benchmarking.md.
 *
 * One instance per daemon. init/done and the handlers run on the loop
 * thread; daemon_bench_preferred_settings() on any thread but the loop.
 */
#pragma once

#include <uv.h>

#include "daemon-config.h"
#include "settings.h"
#include "storage.h"

/*
 * Start the runner on the storage owner's thread (daemon_storage_start()
 * first; plugins already loaded) and queue the start-up storage work: every
 * START without END/ERROR becomes an ERROR (a run that died with a
 * previous daemon), and decisions made under other driver versions are
 * deleted. plugin_dir (NULL: none) is what benchmark workers load in their
 * own process. Failures (no state database, ...) are logged and leave
 * benchmarks unavailable (their requests answer DEVICE_UNAVAILABLE); the
 * daemon serves on. Returns 0 or the negative errno it logged.
 */
int daemon_bench_init(uv_loop_t *loop, const daemon_config_t *config, const char *plugin_dir);

/* Stop the runner (killing a running worker). Call after the connections
 * have drained and before daemon_storage_stop(). Idempotent. */
void daemon_bench_done(void);

/*
 * The stored decision for (model, preference) of `uid` as runtime
 * settings, for PrepareModel without client settings: uid's own decision,
 * else the operators' (uid 0; an operator passes 0). Another tenant's
 * decision never applies. Blocks on the storage thread: call from a
 * worker thread, never the loop. Returns 0 and *ret (initialised;
 * rt_settings_done() it), -ENOENT (no decision), -ENODEV (benchmarks
 * unavailable), or another -errno.
 */
int daemon_bench_preferred_settings(const char *model_sha256, int preference, uint32_t uid, rt_settings_t *ret);

/*
 * PrepareModel without client settings: when a decision exists for the
 * model (its SHA-256 from src->sha256, else hashed from src->bytes or
 * src->fd), `preference` and `uid` (daemon_bench_preferred_settings()),
 * replace *settings with it. Blocks on the storage thread: call from a
 * worker thread. Returns 1 when *settings was replaced, 0 when there is no
 * decision (or benchmarks are unavailable; *settings is untouched), or a
 * negative errno (untouched too). *ret_compute_us (may be NULL) receives
 * the chosen setting's median inference time from its mini-benchmark, -1
 * when unknown (placement, bench/placement.h).
 */
struct daemon_model_source;
int daemon_bench_apply_decision(const struct daemon_model_source *src, int preference, uint32_t uid,
                                rt_settings_t *settings, int64_t *ret_compute_us);
