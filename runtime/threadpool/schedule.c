/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The learned choice between running a parallel call on the caller alone
 * ("inline") and on all the pool's threads (docs/architecture.md, "acceld's
 * own thread pool"; docs/performance.md, "acceld's own pool").
 *
 * An XNNPACK runtime makes the same sequence of parallel calls on every
 * invoke, one or more per operator. A small operator split into tiles
 * loses more in handing out the tiles and waiting for the slowest thread
 * than it gains, and a ~1 ms model is mostly small operators: so the
 * driver brackets each invoke (rt_threadpool_invoke_begin/_end), the pool
 * numbers the calls in between, and the schedule keeps one record per
 * call number: the task and a digest of its ranges (to recognize the
 * call), and the best time seen inline and in parallel.
 *
 * The first EXPLORE_INVOKES invokes explore: they alternate, as whole
 * invokes, between all calls in parallel (the first, which also records
 * the sequence) and all inline, and keep the minimum per call and way,
 * and per invoke and way. Then each call is given the way that was
 * faster, parallel only when clearly so (below PARALLEL_RATIO of inline),
 * and CHECK_INVOKES more invokes time that mix as whole invokes: a call
 * timed alone does not see what it costs the next one (the data the other
 * thread wrote sits in the other CPU's cache). The fastest of the three
 * by invoke (all parallel, all inline, the mix) is kept. A call that does not match its
 * record (another shape after a reshape, another sequence) runs in
 * parallel, as does the rest of that invoke, and the next invoke starts
 * learning anew; after MAX_RELEARNS such changes the schedule gives up and
 * every call runs in parallel. XNNPACK's tiles compute disjoint parts of
 * the outputs with the same code either way, so the choice never changes
 * results, only where they are computed.
 *
 * Only the exploring invokes are timed (CLOCK_MONOTONIC, the vDSO). The
 * invoke in progress is the pool's (one at a time; another thread's
 * invoke on the same pool meanwhile is not learned), and only the calls
 * of the thread that began it count: XNNPACK makes an invoke's calls on
 * the thread that invokes.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "threadpool-internal.h"

#define EXPLORE_INVOKES 8u
#define CHECK_INVOKES 4u
#define MAX_CALLS 16384u
#define MAX_RELEARNS 8u
#define PARALLEL_RATIO 0.9

enum { WAY_PARALLEL, WAY_INLINE, WAY_MIX };

typedef struct call_rec {
        tp_fn_t fn;
        uint64_t shape;
        uint64_t best[2];       /* ns, per way; UINT64_MAX: not seen */
        bool parallel;
} call_rec_t;

_Static_assert(sizeof(pthread_t) == sizeof(unsigned long), "pthread_t is an unsigned long (glibc, musl)");

struct rt_threadpool_schedule {
        atomic_ulong thread;    /* pthread_self() of the invoke in progress */
        bool learn;
        bool learned;
        bool disabled;          /* gave up: every call parallel */
        uint32_t invokes;
        uint32_t explored;      /* invokes explored since the record began */
        uint32_t checked;       /* invokes of the mix timed */
        uint64_t invoke_best[3];        /* ns per way, whole invokes */
        uint64_t invoke_start;
        uint32_t relearns;
        uint32_t n_parallel;
        call_rec_t *calls;
        uint32_t n, cap;
        /* The invoke in progress. */
        uint32_t index;
        bool broken;
        bool recording;
        int way;
};

static unsigned long self(void) {
        return (unsigned long) pthread_self();
}

/* The schedule of the invoke `pool` has in progress on this thread. */
static rt_threadpool_schedule_t *current(struct pthreadpool *pool) {
        rt_threadpool_schedule_t *s = atomic_load_explicit(&pool->sched, memory_order_acquire);
        if (s && atomic_load_explicit(&s->thread, memory_order_relaxed) == self())
                return s;
        return NULL;
}

rt_threadpool_schedule_t *rt_threadpool_schedule_new_with(bool learn) {
        rt_threadpool_schedule_t *s = calloc(1, sizeof(*s));
        if (!s)
                return NULL;
        s->learn = learn;
        s->invoke_best[0] = s->invoke_best[1] = s->invoke_best[2] = UINT64_MAX;
        return s;
}

rt_threadpool_schedule_t *rt_threadpool_schedule_new(void) {
        /* Off unless ACCEL_POOL_LEARN is set (and not "0"): while it
         * explores, half of the first invokes run every call inline, which
         * the mini-benchmark's short-lived workers and a client's first
         * invokes would measure as the 2-thread setting's speed; and
         * learned and all-parallel measured the same within the noise
         * (docs/architecture.md, "acceld's own thread pool"). */
        const char *e = getenv("ACCEL_POOL_LEARN");
        return rt_threadpool_schedule_new_with(e && e[0] && strcmp(e, "0") != 0);
}

void rt_threadpool_schedule_free(rt_threadpool_schedule_t *s) {
        if (!s)
                return;
        free(s->calls);
        free(s);
}

void rt_threadpool_schedule_stats_get(const rt_threadpool_schedule_t *s, rt_threadpool_schedule_stats_t *ret) {
        memset(ret, 0, sizeof(*ret));
        if (!s)
                return;
        ret->learn = s->learn && !s->disabled;
        ret->learned = s->learned;
        ret->checked = s->learned && s->checked >= CHECK_INVOKES;
        ret->invokes = s->invokes;
        ret->calls = s->n;
        ret->parallel = s->n_parallel;
        ret->relearns = s->relearns;
}

void rt_threadpool_invoke_begin(pthreadpool_t pool, rt_threadpool_schedule_t *s) {
        if (!pool || !s)
                return;
        s->invokes++;
        if (!s->learn || s->disabled || pool->threads <= 1)
                return;
        atomic_store_explicit(&s->thread, self(), memory_order_relaxed);
        rt_threadpool_schedule_t *none = NULL;
        if (!atomic_compare_exchange_strong_explicit(&pool->sched, &none, s, memory_order_release,
                                                     memory_order_relaxed))
                return;         /* another thread's invoke is in progress */
        s->index = 0;
        s->broken = false;
        s->recording = !s->learned && s->explored == 0;
        if (s->recording)
                s->n = 0;
        s->way = s->learned ? WAY_MIX : s->explored % 2 == 0 ? WAY_PARALLEL : WAY_INLINE;
        if (!s->learned || s->checked < CHECK_INVOKES)
                s->invoke_start = acc_now_ns();
}

static void relearn(rt_threadpool_schedule_t *s) {
        s->relearns++;
        s->n = 0;
        s->explored = 0;
        s->learned = false;
        s->n_parallel = 0;
        s->checked = 0;
        s->invoke_best[0] = s->invoke_best[1] = s->invoke_best[2] = UINT64_MAX;
        if (s->relearns > MAX_RELEARNS)
                s->disabled = true;
}

/* ACCEL_POOL_RATIO (a benchmark knob): the threshold, parallel when its
 * best time is below this times inline's. */
static double parallel_ratio(void) {
        const char *e = getenv("ACCEL_POOL_RATIO");
        double r = e ? strtod(e, NULL) : 0.0;
        return r > 0.0 && r < 100.0 ? r : PARALLEL_RATIO;
}

static void decide(rt_threadpool_schedule_t *s) {
        double ratio = parallel_ratio();
        s->learned = true;
        s->n_parallel = 0;
        for (uint32_t k = 0; k < s->n; k++) {
                call_rec_t *r = &s->calls[k];
                r->parallel = r->best[WAY_INLINE] == UINT64_MAX ||
                              (double) r->best[WAY_PARALLEL] < ratio * (double) r->best[WAY_INLINE];
                s->n_parallel += r->parallel;
        }
}

/* After the check: the mix stays only if its invokes beat both uniform
 * ways. */
static void choose(rt_threadpool_schedule_t *s) {
        const uint64_t *b = s->invoke_best;
        if (b[WAY_MIX] <= b[WAY_PARALLEL] && b[WAY_MIX] <= b[WAY_INLINE])
                return;
        bool parallel = b[WAY_PARALLEL] <= b[WAY_INLINE];
        s->n_parallel = 0;
        for (uint32_t k = 0; k < s->n; k++) {
                s->calls[k].parallel = parallel;
                s->n_parallel += parallel;
        }
}

void rt_threadpool_invoke_end(pthreadpool_t pool) {
        if (!pool)
                return;
        rt_threadpool_schedule_t *s = current(pool);
        if (!s)
                return;
        atomic_store_explicit(&pool->sched, NULL, memory_order_release);
        if (!s->broken && !s->recording && s->index != s->n)
                s->broken = true;       /* fewer calls than recorded */
        if (s->broken) {
                relearn(s);
                return;
        }
        if (s->learned && s->checked >= CHECK_INVOKES)
                return;
        uint64_t t = acc_now_ns() - s->invoke_start;
        if (t < s->invoke_best[s->way])
                s->invoke_best[s->way] = t;
        if (!s->learned) {
                if (++s->explored >= EXPLORE_INVOKES)
                        decide(s);
        } else if (++s->checked == CHECK_INVOKES) {
                choose(s);
        }
}

/* What identifies a call besides its task: its ranges and tiles. */
static uint64_t job_shape(const tp_job_t *j) {
        uint64_t h = 1469598103934665603u ^ ((uint64_t) j->ndims << 8 | j->ntiled | (uint64_t) j->with_id << 16);
        for (unsigned d = 0; d < j->ndims; d++) {
                h = (h ^ j->range[d]) * 1099511628211u;
                h = (h ^ j->tile[d]) * 1099511628211u;
        }
        return h;
}

static bool record(rt_threadpool_schedule_t *s, const tp_job_t *j, uint64_t shape) {
        if (s->n == s->cap) {
                uint32_t cap = s->cap ? s->cap * 2 : 64;
                call_rec_t *c = cap <= MAX_CALLS ? realloc(s->calls, cap * sizeof(*c)) : NULL;
                if (!c)
                        return false;
                s->calls = c;
                s->cap = cap;
        }
        s->calls[s->n++] = (call_rec_t) { .fn = j->fn, .shape = shape, .best = { UINT64_MAX, UINT64_MAX } };
        return true;
}

bool rt__tp_schedule_execute(struct pthreadpool *pool, tp_job_t *j) {
        rt_threadpool_schedule_t *s = current(pool);
        if (!s || s->broken)
                return false;
        uint32_t k = s->index++;
        uint64_t shape = job_shape(j);
        if (s->recording) {
                if (!record(s, j, shape)) {
                        s->broken = true;
                        s->disabled = true;
                        return false;
                }
        } else if (k >= s->n || s->calls[k].fn != j->fn || s->calls[k].shape != shape) {
                s->broken = true;
                return false;
        }
        call_rec_t *r = &s->calls[k];
        if (s->learned) {
                if (r->parallel)
                        rt__tp_execute_parallel(pool, j);
                else
                        rt__tp_execute_inline(pool, j);
                return true;
        }
        uint64_t t0 = acc_now_ns();
        if (s->way == WAY_PARALLEL)
                rt__tp_execute_parallel(pool, j);
        else
                rt__tp_execute_inline(pool, j);
        uint64_t t = acc_now_ns() - t0;
        if (t < r->best[s->way])
                r->best[s->way] = t;
        return true;
}
