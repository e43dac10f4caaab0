/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The storage thread: the only thread that touches the daemon's sqlite3
 * handle. Jobs wait in a bounded ring, run in submission order, and each
 * job's done callback runs right after it, still on this thread.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "storage-internal.h"

typedef struct job {
        store_job_fn fn;
        store_done_fn done;
        void *userdata;
} job_t;

struct store_thread {
        pthread_t thread;
        pthread_mutex_t lock;
        pthread_cond_t cond;     /* jobs queued, stop requested, open finished */

        job_t *ring;
        size_t cap, head, count;
        bool stopping;

        /* Start-up handshake: the thread opens the database itself. */
        char *state_dir;
        bool opened;
        int open_result;
        char open_err[256];
};

static void *thread_main(void *arg) {
        store_thread_t *t = arg;
        store_db_t *db = NULL;
        char err[256] = "";
        int r = store_db_open(t->state_dir, &db, err, sizeof(err));

        pthread_mutex_lock(&t->lock);
        t->opened = true;
        t->open_result = r;
        snprintf(t->open_err, sizeof(t->open_err), "%s", err);
        pthread_cond_broadcast(&t->cond);
        pthread_mutex_unlock(&t->lock);
        if (r < 0)
                return NULL;

        for (;;) {
                pthread_mutex_lock(&t->lock);
                while (t->count == 0 && !t->stopping)
                        pthread_cond_wait(&t->cond, &t->lock);
                if (t->count == 0) {
                        /* stopping, and drained */
                        pthread_mutex_unlock(&t->lock);
                        break;
                }
                job_t j = t->ring[t->head];
                t->head = (t->head + 1) % t->cap;
                t->count--;
                pthread_mutex_unlock(&t->lock);

                int res = j.fn(db, j.userdata);
                if (j.done)
                        j.done(res, j.userdata);
        }
        store_db_close(db);
        return NULL;
}

static store_thread_t *thread_free(store_thread_t *t) {
        if (!t)
                return NULL;
        pthread_mutex_destroy(&t->lock);
        pthread_cond_destroy(&t->cond);
        free(t->ring);
        free(t->state_dir);
        free(t);
        return NULL;
}

int store_thread_start(const char *state_dir, size_t queue_max, store_thread_t **ret, char *err, size_t err_size) {
        if (!state_dir || !ret)
                return -EINVAL;
        if (queue_max == 0)
                queue_max = STORE_QUEUE_DEFAULT;

        store_thread_t *t = calloc(1, sizeof(*t));
        if (!t)
                return -ENOMEM;
        t->cap = queue_max;
        t->ring = calloc(queue_max, sizeof(*t->ring));
        t->state_dir = strdup(state_dir);
        pthread_mutex_init(&t->lock, NULL);
        pthread_cond_init(&t->cond, NULL);
        if (!t->ring || !t->state_dir) {
                thread_free(t);
                return -ENOMEM;
        }

        /* The thread starts with every signal blocked, so signals are
         * delivered to the daemon's loop thread, never to this one. */
        sigset_t all, old;
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &old);
        int r = -pthread_create(&t->thread, NULL, thread_main, t);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        if (r < 0) {
                thread_free(t);
                return r;
        }

        pthread_mutex_lock(&t->lock);
        while (!t->opened)
                pthread_cond_wait(&t->cond, &t->lock);
        r = t->open_result;
        pthread_mutex_unlock(&t->lock);
        if (r < 0) {
                if (err && err_size)
                        snprintf(err, err_size, "%s", t->open_err);
                (void) pthread_join(t->thread, NULL);
                thread_free(t);
                return r;
        }
        *ret = t;
        return 0;
}

int store_thread_submit(store_thread_t *t, store_job_fn job_fn, void *userdata, store_done_fn done_fn) {
        if (!t || !job_fn)
                return -EINVAL;
        int r = 0;
        pthread_mutex_lock(&t->lock);
        if (t->stopping)
                r = -ESHUTDOWN;
        else if (t->count == t->cap)
                r = -EAGAIN;
        else {
                t->ring[(t->head + t->count) % t->cap] = (job_t) { job_fn, done_fn, userdata };
                t->count++;
                pthread_cond_signal(&t->cond);
        }
        pthread_mutex_unlock(&t->lock);
        return r;
}

/* ---- blocking calls ---- */

typedef struct sync_call {
        store_job_fn fn;
        void *userdata;
        int result;
        bool done;
        pthread_mutex_t mu;
        pthread_cond_t cv;
} sync_call_t;

static int sync_job(store_db_t *db, void *userdata) {
        sync_call_t *sc = userdata;

        return sc->fn(db, sc->userdata);
}

static void sync_done(int result, void *userdata) {
        sync_call_t *sc = userdata;

        pthread_mutex_lock(&sc->mu);
        sc->result = result;
        sc->done = true;
        pthread_cond_signal(&sc->cv);
        pthread_mutex_unlock(&sc->mu);
}

int store_thread_call(store_thread_t *t, store_job_fn fn, void *userdata) {
        sync_call_t sc = { .fn = fn, .userdata = userdata };
        int r;

        if (!t)
                return -ENODEV;
        pthread_mutex_init(&sc.mu, NULL);
        pthread_cond_init(&sc.cv, NULL);
        /* A full queue drains in milliseconds: wait for room (up to ~2 s)
         * rather than fail a caller that can afford to block. */
        for (int tries = 0;; tries++) {
                r = store_thread_submit(t, sync_job, &sc, sync_done);
                if (r != -EAGAIN || tries >= 200)
                        break;
                (void) nanosleep(&(struct timespec) { .tv_nsec = 10 * 1000 * 1000 }, NULL);
        }
        if (r == 0) {
                pthread_mutex_lock(&sc.mu);
                while (!sc.done)
                        pthread_cond_wait(&sc.cv, &sc.mu);
                pthread_mutex_unlock(&sc.mu);
                r = sc.result;
        }
        pthread_cond_destroy(&sc.cv);
        pthread_mutex_destroy(&sc.mu);
        return r;
}

size_t store_thread_queued(store_thread_t *t) {
        if (!t)
                return 0;
        pthread_mutex_lock(&t->lock);
        size_t n = t->count;
        pthread_mutex_unlock(&t->lock);
        return n;
}

store_thread_t *store_thread_stop(store_thread_t *t) {
        if (!t)
                return NULL;
        pthread_mutex_lock(&t->lock);
        t->stopping = true;
        pthread_cond_broadcast(&t->cond);
        pthread_mutex_unlock(&t->lock);
        (void) pthread_join(t->thread, NULL);
        return thread_free(t);
}
