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
} shared_pool_t;

static pthread_mutex_t pools_lock = PTHREAD_MUTEX_INITIALIZER;
static shared_pool_t *pools;

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
