/* SPDX-License-Identifier: Apache-2.0 */
/* INTERNAL header of the runtime (runtime_internal_dep): not installed, not
 * part of the public API in runtime/include/ (docs/architecture.md). */
/*
 * acceld's own thread pool (runtime/threadpool/). It implements the whole
 * pthreadpool C ABI (<pthreadpool.h>: pthreadpool_create, _destroy,
 * _get_threads_count, every pthreadpool_parallelize_* and the deprecated
 * pthreadpool_compute_*), so that XNNPACK, which calls pthreadpool_*
 * through the global symbol scope, runs on it instead of libpthreadpool
 * (docs/architecture.md, "acceld's own thread pool"). This header adds
 * what pthreadpool has not:
 *
 *   - counters and a "sleep now" for the driver's pool sharing (pool.c);
 *   - a schedule: the driver brackets an invoke of a runtime with
 *     rt_threadpool_invoke_begin()/_end(), the pool numbers the parallel
 *     calls in between and learns, per call, whether it runs faster on
 *     the caller alone or on all threads (schedule.c).
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include <pthreadpool.h>

typedef struct rt_threadpool_stats {
        uint64_t calls;         /* parallelize/compute calls made on the pool */
        uint64_t parallel;      /* ... of which ran on the workers too */
        uint64_t inlined;       /* ... of which the schedule ran on the caller alone */
        uint64_t wakes;         /* futex wakes the callers made (workers that slept) */
        uint64_t sleeps;        /* times a worker went to sleep on its futex */
        uint64_t rests;         /* rt_threadpool_rest() calls */
        uint64_t worker_items;  /* items run by workers (not by the caller) */
        unsigned asleep;        /* workers asleep (or about to be) now */
} rt_threadpool_stats_t;

/* The pool's counters; all 0 for NULL. */
void rt_threadpool_stats_get(pthreadpool_t pool, rt_threadpool_stats_t *ret);

/* The same, process-wide, for the pools of 2 or more threads: calls,
 * parallel and inlined only. */
void rt_threadpool_totals_get(rt_threadpool_stats_t *ret);

/* Sends the pool's workers to sleep now, without a parallel call (waits
 * only for a call in flight). No-op for NULL. */
void rt_threadpool_rest(pthreadpool_t pool);

/* How long an idle worker spins on the control word before it sleeps on
 * its futex (default 4 ms). */
void rt_threadpool_set_spin_ns(pthreadpool_t pool, uint64_t ns);

/* A runtime's learned schedule: one record per parallel call of its
 * invoke. Owned by the runtime (or group) whose invokes it brackets.
 * Learning is on unless the environment says ACCEL_POOL_LEARN=0 when the
 * schedule is created; `learn` false makes every call parallel (as
 * pthreadpool does). NULL when out of memory. */
typedef struct rt_threadpool_schedule rt_threadpool_schedule_t;
rt_threadpool_schedule_t *rt_threadpool_schedule_new(void);
rt_threadpool_schedule_t *rt_threadpool_schedule_new_with(bool learn);
void rt_threadpool_schedule_free(rt_threadpool_schedule_t *s);

typedef struct rt_threadpool_schedule_stats {
        bool learn;
        bool learned;           /* exploring is over: calls run the chosen way */
        bool checked;           /* ... and the per-call mix was timed against all-parallel and all-inline */
        uint32_t invokes;       /* invokes bracketed so far */
        uint32_t calls;         /* calls recorded per invoke */
        uint32_t parallel;      /* ... of which run in parallel once learned */
        uint32_t relearns;      /* times the call sequence changed */
} rt_threadpool_schedule_stats_t;
void rt_threadpool_schedule_stats_get(const rt_threadpool_schedule_t *s, rt_threadpool_schedule_stats_t *ret);

/* Bracket one invoke on the calling thread: the pool's parallel calls made
 * by this thread in between are the invoke's, numbered from 0. `pool` NULL
 * or `s` NULL: nothing is learned (no-op). Not nested. */
void rt_threadpool_invoke_begin(pthreadpool_t pool, rt_threadpool_schedule_t *s);
void rt_threadpool_invoke_end(pthreadpool_t pool);
