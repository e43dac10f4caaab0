/* SPDX-License-Identifier: Apache-2.0 */
/* The daemon's storage owner (storage-owner.h). */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "log.h"
#include "storage-owner.h"

typedef struct storage_call storage_call_t;

struct storage_call {
        store_job_fn fn;
        void (*done)(int result, void *userdata);
        void *userdata;
        int result;
        storage_call_t *next;
};

static struct {
        store_thread_t *thread;
        uv_async_t async;
        bool async_open;
        pthread_mutex_t mu;
        storage_call_t *done_head, *done_tail;  /* finished, waiting for the loop */
} owner = { .mu = PTHREAD_MUTEX_INITIALIZER };

/* ---- results back to the loop ---- */

static int call_job(store_db_t *db, void *userdata) {
        storage_call_t *c = userdata;

        return c->fn(db, c->userdata);
}

/* On the storage thread: queue the finished call for the loop. */
static void call_finished(int result, void *userdata) {
        storage_call_t *c = userdata;

        c->result = result;
        pthread_mutex_lock(&owner.mu);
        if (owner.done_tail)
                owner.done_tail->next = c;
        else
                owner.done_head = c;
        owner.done_tail = c;
        pthread_mutex_unlock(&owner.mu);
        (void) uv_async_send(&owner.async);
}

/* On the loop: wake-ups coalesce, so drain everything. */
static void on_async(uv_async_t *h) {
        storage_call_t *list;

        (void) h;
        pthread_mutex_lock(&owner.mu);
        list = owner.done_head;
        owner.done_head = owner.done_tail = NULL;
        pthread_mutex_unlock(&owner.mu);
        while (list) {
                storage_call_t *c = list;

                list = c->next;
                c->done(c->result, c->userdata);
                free(c);
        }
}

int daemon_storage_submit(store_job_fn fn, void (*done)(int result, void *userdata), void *userdata) {
        storage_call_t *c;
        int r;

        if (!owner.thread || !owner.async_open)
                return -ENODEV;
        c = calloc(1, sizeof(*c));
        if (!c)
                return -ENOMEM;
        *c = (storage_call_t) { .fn = fn, .done = done, .userdata = userdata };
        r = store_thread_submit(owner.thread, call_job, c, call_finished);
        if (r < 0)
                free(c);
        return r;
}

int daemon_storage_call(store_job_fn fn, void *userdata) {
        return store_thread_call(owner.thread, fn, userdata);
}

store_thread_t *daemon_storage_thread(void) {
        return owner.thread;
}

/* ---- start and stop ---- */

int daemon_storage_start(uv_loop_t *loop, const char *state_dir) {
        char err[512] = "";
        int r;

        r = uv_async_init(loop, &owner.async, on_async);
        if (r < 0)
                return log_warning_errno(r, "storage unavailable: uv_async_init failed");
        owner.async_open = true;
        r = store_thread_start(state_dir, 0, &owner.thread, err, sizeof(err));
        if (r < 0) {
                owner.thread = NULL;
                return log_warning_errno(r, "cannot open the state database in %s: %s; the model store, "
                                            "benchmarks and the compilation cache are unavailable",
                                         state_dir, err);
        }
        return 0;
}

void daemon_storage_stop(void) {
        owner.thread = store_thread_stop(owner.thread);
        if (owner.async_open) {
                owner.async_open = false;
                /* Calls finished by the stop above still answer. */
                on_async(&owner.async);
                uv_close((uv_handle_t *) &owner.async, NULL);
        }
}
