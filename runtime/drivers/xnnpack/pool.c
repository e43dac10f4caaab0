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
 * How the workers wait (issue 27). pthreadpool's workers spin after a
 * parallel call (about 1M PAUSEs: ~22 ms on this machine's EPYC) and then
 * sleep on a futex; PTHREADPOOL_FLAG_YIELD_WORKERS (XNN_FLAG_YIELD_WORKERS
 * on a runtime's last operator) sends them to the futex at once. Sleeping at
 * the end of every group made each group and each invoke wake the workers
 * again, and a woken worker is placed by the scheduler anew: on the 2-vCPU
 * virtual machine it was often put on the caller's vCPU, where it waits for
 * the caller (docs/performance.md, "Why the int8 MobileNets were bimodal").
 * So the groups no longer yield; the workers keep spinning across groups,
 * reference islands and back-to-back invokes, as TensorFlow Lite's own
 * delegate does. What spinning must not do is take a CPU another pool's
 * execution was given: before a group runs, rt__xnn_pool_enter() puts the
 * pool that ran last, if it is another one and idle, to rest (one empty
 * parallel call with the yield flag).
 */
#include <pthread.h>
#include <stdlib.h>

#include "xnnpack-internal.h"

typedef struct shared_pool {
        struct shared_pool *next;
        const void *owner;
        size_t threads;
        pthreadpool_t pool;
        unsigned refs;
        unsigned busy;          /* groups running on it now */
        uint64_t rests;         /* times put to rest by another pool's group */
} shared_pool_t;

static pthread_mutex_t pools_lock = PTHREAD_MUTEX_INITIALIZER;
static shared_pool_t *pools;
/* The pool whose workers may still spin: the last one entered. */
static shared_pool_t *warm;

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
out:
        pthread_mutex_unlock(&pools_lock);
        return ret;
}

void rt__xnn_pool_release(pthreadpool_t pool) {
        if (!pool)
                return;
        pthreadpool_t doomed = NULL;
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
        pthread_mutex_unlock(&pools_lock);
        /* Outside the lock: destroying joins the worker threads. */
        if (doomed)
                pthreadpool_destroy(doomed);
}

static void rest_item(void *ctx, size_t i) {
        (void) ctx;
        (void) i;
}

void rt__xnn_pool_enter(pthreadpool_t pool) {
        shared_pool_t *rest = NULL;
        pthread_mutex_lock(&pools_lock);
        shared_pool_t *p = pool_find(pool);
        if (warm && warm != p && warm->busy == 0) {
                rest = warm;
                rest->refs++;   /* kept alive while it is put to rest */
                rest->rests++;
        }
        if (p)
                p->busy++;
        warm = p;
        pthread_mutex_unlock(&pools_lock);
        if (!rest)
                return;
        /* Outside the lock: this waits for the other pool's current
         * parallel call, if its interpreter is starting one just now. The
         * range must exceed 1, or pthreadpool runs it on this thread alone. */
        pthreadpool_parallelize_1d(rest->pool, rest_item, NULL, rest->threads,
                                   PTHREADPOOL_FLAG_YIELD_WORKERS);
        rt__xnn_pool_release(rest->pool);
}

void rt__xnn_pool_leave(pthreadpool_t pool) {
        pthread_mutex_lock(&pools_lock);
        shared_pool_t *p = pool_find(pool);
        if (p && p->busy > 0)
                p->busy--;
        pthread_mutex_unlock(&pools_lock);
}

uint64_t rt__xnn_pool_rests(pthreadpool_t pool) {
        pthread_mutex_lock(&pools_lock);
        shared_pool_t *p = pool_find(pool);
        uint64_t n = p ? p->rests : 0;
        pthread_mutex_unlock(&pools_lock);
        return n;
}
