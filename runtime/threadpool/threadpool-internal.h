/* SPDX-License-Identifier: Apache-2.0 */
/* INTERNAL header of runtime/threadpool/: shared by its three files only
 * (threadpool.c, parallelize.c, schedule.c). Everyone else uses
 * threadpool.h and <pthreadpool.h>. */
#pragma once

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <pthreadpool.h>

#if defined(__SSE__)
#include <xmmintrin.h>
#endif

#include "threadpool.h"

#define TP_MAX_DIMS 6
#define TP_CACHE_LINE 64

/* One parallel call, whatever its pthreadpool_parallelize_* shape: a range
 * of `items` (the product of `tiles`), each item one call of `fn`. The
 * last `ntiled` of the `ndims` dimensions are tiled; `fn` takes the
 * untiled indices, then the tiled starts, then the tiled sizes (with the
 * uarch index first when `with_id`), which is the argument order of every
 * pthreadpool task type. */
typedef void (*tp_fn_t)(void);

typedef struct tp_job {
        tp_fn_t fn;
        void *ctx;
        uint32_t flags;
        uint32_t uarch;
        bool with_id;
        unsigned ndims;
        unsigned ntiled;
        size_t range[TP_MAX_DIMS];
        size_t tile[TP_MAX_DIMS];
        size_t tiles[TP_MAX_DIMS];
        size_t items;
} tp_job_t;

/* A participant's share of the items, [begin, end) packed in one word
 * (end in the high 32 bits): its owner claims chunks from the front, the
 * others, once theirs are gone, steal chunks from the back. */
typedef struct tp_part {
        _Alignas(TP_CACHE_LINE) _Atomic uint64_t range;
} tp_part_t;

typedef struct tp_worker {
        _Alignas(TP_CACHE_LINE) atomic_uint asleep;     /* announced before the futex wait */
        atomic_uint futex;                              /* the word it sleeps on */
        pthread_t thread;
        struct pthreadpool *pool;
        unsigned index;                                 /* 1..threads-1; the caller is 0 */
        bool started;
        /* Items it ran (a counter), on a line of its own: the caller
         * reads `asleep` above on every call, and a line the worker
         * writes on every call would cost the caller a transfer. */
        _Alignas(TP_CACHE_LINE) _Atomic uint64_t items;
} tp_worker_t;

/* The control word: the call's sequence number (high 32 bits), whether it
 * is closed to joiners and whether the workers sleep after it, and how
 * many workers are inside it now. */
#define TP_CTL_SEQ_SHIFT 32
#define TP_CTL_CLOSED ((uint64_t) 1 << 31)
#define TP_CTL_YIELD ((uint64_t) 1 << 30)
#define TP_CTL_ACTIVE_MASK (((uint64_t) 1 << 30) - 1)

/* The layout keeps apart what the two sides write on every call (a cache
 * line moves between two vCPUs of the VM in ~230 ns, bench/pool-bench):
 * the control word, which the spinning workers read, shares its line only
 * with fields written once; the caller's lock and the job it fills in,
 * and the caller's counters, have lines of their own. */
struct pthreadpool {
        _Alignas(TP_CACHE_LINE) _Atomic uint64_t ctl;
        atomic_bool stop;
        _Atomic uint64_t spin_ns;
        size_t threads;
        tp_worker_t *workers;           /* threads - 1 */
        /* Serializes parallel calls (pthreadpool's guarantee: a pool may
         * be shared by threads, its calls do not overlap). */
        _Alignas(TP_CACHE_LINE) pthread_mutex_t call_lock;
        /* The invoke in progress (rt_threadpool_invoke_begin), whose
         * thread's calls the schedule numbers. Kept here, not in a
         * thread-local: a process may hold two copies of this code (the
         * Python extension and libaccel.so both link the runtime), and
         * XNNPACK calls whichever pthreadpool_* the lookup finds first. */
        _Atomic(struct rt_threadpool_schedule *) sched;
        _Alignas(TP_CACHE_LINE) tp_job_t job;   /* the call in flight; written under call_lock */
        /* Counters (relaxed), the caller's: what the tests and the
         * schedule look at. The workers count their items in their own
         * tp_worker_t. */
        _Alignas(TP_CACHE_LINE) _Atomic uint64_t calls;
        _Atomic uint64_t parallel;
        _Atomic uint64_t inlined;
        _Atomic uint64_t wakes;
        _Atomic uint64_t sleeps;
        _Atomic uint64_t rests;
        tp_part_t parts[];              /* threads */
};

/* PTHREADPOOL_FLAG_DISABLE_DENORMALS: FTZ and DAZ while the items run,
 * on every participant. MXCSR is written only when it lacks them: the
 * interpreter's invoke sets them already (TensorFlow Lite's order), and
 * a write of MXCSR costs more than the task of a small call. */
typedef struct tp_fp {
#if defined(__SSE__)
        unsigned int csr;
#endif
        bool set;
} tp_fp_t;

static inline void tp_fp_enter(tp_fp_t *st, uint32_t flags) {
        st->set = false;
#if defined(__SSE__)
        if (flags & PTHREADPOOL_FLAG_DISABLE_DENORMALS) {
                st->csr = _mm_getcsr();
                if ((st->csr & 0x8040u) != 0x8040u) {
                        _mm_setcsr(st->csr | 0x8040u);
                        st->set = true;
                }
        }
#else
        (void) flags;
#endif
}

static inline void tp_fp_leave(const tp_fp_t *st) {
#if defined(__SSE__)
        if (st->set)
                _mm_setcsr(st->csr);
#else
        (void) st;
#endif
}

/* Runs items [begin, end) of `j` on the calling thread. (parallelize.c) */
void rt__tp_job_run(const tp_job_t *j, size_t begin, size_t end);

/* Runs `j` (filled in by the caller, `items` > 0) on `pool`: on the caller
 * alone when the pool is NULL, has one thread or the schedule says so,
 * else on all threads. (threadpool.c) */
void rt__tp_execute(struct pthreadpool *pool, tp_job_t *j);
/* The same, forced: the caller alone, or split among the threads (the
 * caller holds nothing; call_lock is taken here). */
void rt__tp_execute_inline(struct pthreadpool *pool, const tp_job_t *j);
void rt__tp_execute_parallel(struct pthreadpool *pool, tp_job_t *j);

/* The learned choice for the next call of the invoke in progress on this
 * thread (schedule.c): runs `j` inline or in parallel, timing it while
 * exploring. Returns false when no invoke of `pool` is in progress on this
 * thread (the caller then runs it in parallel). */
bool rt__tp_schedule_execute(struct pthreadpool *pool, tp_job_t *j);
