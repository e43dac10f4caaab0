/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The daemon's one storage owner: opens the state database, runs
 * storage/thread.c's thread on it, and brings results back to the loop
 * through one uv_async drain. Everything that needs SQLite — the model
 * store, benchmarks, the compilation cache, quarantine, evaluation
 * records — goes through here.
 *
 * Failure story: when the database cannot be opened, start logs it and the
 * daemon serves on without storage. daemon_storage_thread() is then NULL
 * and every call below answers -ENODEV, which the storage-dependent
 * requests turn into DEVICE_UNAVAILABLE; requests that need no storage
 * (Hello, PrepareModel from bytes, Execute, ...) are not affected.
 *
 * start/stop and submit's done callbacks run on the loop thread;
 * daemon_storage_call() on any thread but the loop and the storage thread.
 */
#pragma once

#include <uv.h>

#include "storage.h"

/* Open <state_dir>/acceld.db on a new storage thread. 0, or the negative
 * errno it logged (the daemon then runs without storage). */
int daemon_storage_start(uv_loop_t *loop, const char *state_dir);

/* Stop the storage thread (queued jobs run first), answer the loop
 * callbacks they finished, close the async handle. Call after everything
 * that submits (serving workers, the benchmark runner) has stopped.
 * Idempotent. */
void daemon_storage_stop(void);

/* The storage thread, or NULL when the database is unavailable. */
store_thread_t *daemon_storage_thread(void);

/* Run fn on the storage thread and wait for its result (store_thread_call).
 * Worker threads only. -ENODEV without a database. */
int daemon_storage_call(store_job_fn fn, void *userdata);

/* Run fn on the storage thread; done(result, userdata) runs later on the
 * loop thread. For handlers on the loop. 0 (done will run), -ENODEV
 * without a database, -EAGAIN when the queue is full, -ESHUTDOWN while
 * stopping (done will not run then). */
int daemon_storage_submit(store_job_fn fn, void (*done)(int result, void *userdata), void *userdata);
