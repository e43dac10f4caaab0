/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Thread pools shared by the XNNPACK groups of one interpreter.
 *
 * A graph split into many groups (style transfer has 115) used to create one
 * pthreadpool per group: 115 sleeping worker threads for a 2-thread
 * setting. The groups of one interpreter run one after another, so they can
 * share one pool. The owner key is the interpreter's tensor array (what
 * rt_driver_graph_t carries); pools are refcounted by the groups that use
 * them. Should an address be reused by another interpreter while the old
 * groups still hold the pool, the two share it: still correct, because
 * pthreadpool serializes parallel calls, only not concurrent.
 *
 * How the workers wait (issue 27). The pool is acceld's own
 * (runtime/threadpool/): its workers spin after a parallel call (4 ms by
 * default) and then sleep on a futex; PTHREADPOOL_FLAG_YIELD_WORKERS
 * (XNN_FLAG_YIELD_WORKERS on a runtime's last operator) or
 * rt_threadpool_rest() sends them to the futex at once. Sleeping at
 * the end of every group made each group and each invoke wake the workers
 * again, and a woken worker is placed by the scheduler anew: on the 2-vCPU
 * virtual machine it was often put on the caller's vCPU, where it waits for
 * the caller (docs/performance.md, "Why the int8 MobileNets were bimodal").
 * So the groups no longer yield; the workers keep spinning across groups,
 * reference islands and back-to-back invokes, as TensorFlow Lite's own
 * delegate does. What spinning must not do is take a CPU another pool's
 * execution was given, or burn 22 ms of CPU after every request of a
 * daemon whose clients ask every 30 ms: before a group runs,
 * rt__xnn_pool_enter() puts the pool that ran last, if it is another one
 * and idle, to rest (rt_threadpool_rest(): no parallel call), and a
 * "rester" thread (one per process, while a pool of 2 or more threads
 * exists) rests a pool that stayed idle for the linger time, 2 ms: longer
 * than the gap between back-to-back invokes, through acceld too (0.1-0.3
 * ms), and than most reference islands between groups. (The pool's own
 * spin bound, 4 ms, is what remains when the linger is 0.)
 */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "threadpool.h"
#include "xnnpack-internal.h"

typedef struct shared_pool {
        struct shared_pool *next;
        const void *owner;
        size_t threads;
        pthreadpool_t pool;
        unsigned refs;
        unsigned busy;          /* groups running on it now */
        uint64_t rests;         /* times put to rest (another pool's group, the rester) */
} shared_pool_t;

static pthread_mutex_t pools_lock = PTHREAD_MUTEX_INITIALIZER;
static shared_pool_t *pools;
/* The pool whose workers may still spin: the last one entered; since
 * when it is idle (0: busy, or nothing to rest). */
static shared_pool_t *warm;
static uint64_t warm_idle_ns;
static uint64_t linger_ns = 2000000;

/* The rester thread; each one has its own stop flag, so that one being
 * joined and its successor never mix. */
typedef struct rester {
        pthread_t thread;
        bool stop;
} rester_t;
static rester_t *rester;
/* The rester waits without a deadline: only then must a pool going idle
 * wake it (a timed wait looks at warm_idle_ns when it ends anyway). */
static bool rester_parked;
static pthread_cond_t rester_cond;
static pthread_once_t rester_once = PTHREAD_ONCE_INIT;

static void rester_cond_init(void) {
        pthread_condattr_t a;
        pthread_condattr_init(&a);
        pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
        pthread_cond_init(&rester_cond, &a);
        pthread_condattr_destroy(&a);
}

static uint64_t now_ns(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

/* Called with pools_lock held, which it drops while the workers are sent
 * to sleep: the pool is kept alive by a reference meanwhile. */
static void pool_rest_locked(shared_pool_t *p) {
        p->refs++;
        p->rests++;
        pthread_mutex_unlock(&pools_lock);
        /* No parallel call: the workers are told to sleep (this waits only
         * for the pool's call in flight, if its interpreter is in one). */
        rt_threadpool_rest(p->pool);
        rt__xnn_pool_release(p->pool);
        pthread_mutex_lock(&pools_lock);
}

static void *rester_main(void *arg) {
        rester_t *self = arg;
        pthread_mutex_lock(&pools_lock);
        while (!self->stop) {
                if (!warm || !linger_ns) {
                        rester_parked = true;
                        pthread_cond_wait(&rester_cond, &pools_lock);
                        rester_parked = false;
                        continue;
                }
                /* A busy warm pool: look again a linger later, on the
                 * clock. Parking here made every leave wake this thread,
                 * about once per invoke in a back-to-back loop, and on two
                 * vCPUs the woken rester preempted the caller or the
                 * worker: 2 threads measured no faster than 1 on the idle
                 * machine (blazeface 917-949 against 900-907 us, 2025
                 * voluntary switches in 2000 invokes). */
                uint64_t due = (warm->busy > 0 || !warm_idle_ns ? now_ns() : warm_idle_ns) + linger_ns;
                if (now_ns() >= due) {
                        shared_pool_t *p = warm;
                        warm = NULL;
                        warm_idle_ns = 0;
                        pool_rest_locked(p);
                        continue;
                }
                struct timespec ts = { .tv_sec = (time_t) (due / 1000000000u),
                                       .tv_nsec = (long) (due % 1000000000u) };
                (void) pthread_cond_timedwait(&rester_cond, &pools_lock, &ts);
        }
        pthread_mutex_unlock(&pools_lock);
        free(self);
        return NULL;
}

void rt__xnn_pool_set_linger_ns(uint64_t ns) {
        pthread_mutex_lock(&pools_lock);
        linger_ns = ns;
        pthread_mutex_unlock(&pools_lock);
        pthread_once(&rester_once, rester_cond_init);
        pthread_cond_broadcast(&rester_cond);
}

static shared_pool_t *pool_find(pthreadpool_t pool) {
        for (shared_pool_t *p = pools; pool && p; p = p->next)
                if (p->pool == pool)
                        return p;
        return NULL;
}

pthreadpool_t rt__xnn_pool_acquire(const void *owner, size_t threads) {
        pthreadpool_t ret = NULL;
        pthread_mutex_lock(&pools_lock);
        for (shared_pool_t *p = pools; p; p = p->next)
                if (p->owner == owner && p->threads == threads) {
                        p->refs++;
                        ret = p->pool;
                        goto out;
                }
        shared_pool_t *p = calloc(1, sizeof(*p));
        if (!p)
                goto out;
        p->pool = pthreadpool_create(threads);
        if (!p->pool) {
                free(p);
                goto out;
        }
        p->owner = owner;
        p->threads = threads;
        p->refs = 1;
        p->next = pools;
        pools = p;
        ret = p->pool;
        if (!rester && threads > 1) {
                /* Without it, an idle pool's workers spin their 4 ms. */
                rester_t *r = calloc(1, sizeof(*r));
                pthread_once(&rester_once, rester_cond_init);
                if (r && pthread_create(&r->thread, NULL, rester_main, r) == 0)
                        rester = r;
                else
                        free(r);
        }
out:
        pthread_mutex_unlock(&pools_lock);
        return ret;
}

void rt__xnn_pool_release(pthreadpool_t pool) {
        if (!pool)
                return;
        pthreadpool_t doomed = NULL;
        bool stopped = false;
        pthread_t rester_thread;
        pthread_mutex_lock(&pools_lock);
        for (shared_pool_t **pp = &pools; *pp; pp = &(*pp)->next) {
                shared_pool_t *p = *pp;
                if (p->pool != pool)
                        continue;
                if (--p->refs == 0) {
                        *pp = p->next;
                        if (warm == p)
                                warm = NULL;
                        doomed = p->pool;
                        free(p);
                }
                break;
        }
        if (!pools && rester) {
                /* It frees its struct once it sees the flag: keep the
                 * handle. */
                stopped = true;
                rester_thread = rester->thread;
                rester->stop = true;
                rester = NULL;
                pthread_cond_broadcast(&rester_cond);
        }
        pthread_mutex_unlock(&pools_lock);
        /* Outside the lock: destroying joins the worker threads. */
        if (doomed)
                pthreadpool_destroy(doomed);
        if (stopped) {
                /* The rester itself drops the last pool when the pool it
                 * rested lost its other owners meanwhile. */
                if (pthread_equal(rester_thread, pthread_self()))
                        pthread_detach(rester_thread);
                else
                        pthread_join(rester_thread, NULL);
        }
}

void rt__xnn_pool_enter(pthreadpool_t pool) {
        pthread_mutex_lock(&pools_lock);
        shared_pool_t *p = pool_find(pool);
        shared_pool_t *other = warm && warm != p && warm->busy == 0 ? warm : NULL;
        if (p)
                p->busy++;
        warm = p;
        warm_idle_ns = 0;
        if (other)
                pool_rest_locked(other);
        pthread_mutex_unlock(&pools_lock);
}

void rt__xnn_pool_leave(pthreadpool_t pool) {
        pthread_mutex_lock(&pools_lock);
        shared_pool_t *p = pool_find(pool);
        if (p && p->busy > 0 && --p->busy == 0 && p == warm) {
                warm_idle_ns = now_ns();
                if (rester_parked)
                        pthread_cond_signal(&rester_cond);
        }
        pthread_mutex_unlock(&pools_lock);
}

uint64_t rt__xnn_pool_rests(pthreadpool_t pool) {
        pthread_mutex_lock(&pools_lock);
        shared_pool_t *p = pool_find(pool);
        uint64_t n = p ? p->rests : 0;
        pthread_mutex_unlock(&pools_lock);
        return n;
}
