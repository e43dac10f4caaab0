/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Per-handle state of stateful models, and ResetVariables.
 *
 * An instance's interpreters are pooled and shared by every handle of the
 * same model and settings; a model with variables (LSTM/RNN/SVDF variable
 * tensors, resource variables, CALL_ONCE) would otherwise carry one
 * client's state into another's results. Each handle of such an instance
 * owns a daemon_state_t, which an execution swaps into the interpreter it
 * acquired for the length of its invoke (rt_interp_state_swap(): pointers
 * are exchanged, nothing is copied), so weights, compiled code and caches
 * stay shared while the variables are the handle's own.
 */
#include <pthread.h>
#include <stdatomic.h>

#include "serving-internal.h"

struct daemon_state {
        atomic_uint n_ref;
        /* Held from enter to leave: one execution of a handle at a time
         * runs on its state. */
        pthread_mutex_t mu;
        rt_interp_state_t *st;
};

daemon_state_t *daemon_state_new(void) {
        daemon_state_t *s = calloc(1, sizeof(*s));

        if (!s)
                return NULL;
        s->st = rt_interp_state_new();
        if (!s->st || pthread_mutex_init(&s->mu, NULL) != 0) {
                rt_interp_state_free(s->st);
                free(s);
                return NULL;
        }
        atomic_init(&s->n_ref, 1);
        return s;
}

daemon_state_t *daemon_state_ref(daemon_state_t *s) {
        if (s)
                atomic_fetch_add(&s->n_ref, 1);
        return s;
}

daemon_state_t *daemon_state_unref(daemon_state_t *s) {
        if (!s || atomic_fetch_sub(&s->n_ref, 1) > 1)
                return NULL;
        rt_interp_state_free(s->st);
        pthread_mutex_destroy(&s->mu);
        free(s);
        return NULL;
}

int daemon_state_enter(daemon_state_t *s, rt_interp_t *it, char *err, size_t err_size) {
        int r;

        pthread_mutex_lock(&s->mu);
        r = rt_interp_state_swap(it, s->st);
        if (r < 0) {
                pthread_mutex_unlock(&s->mu);
                (void) snprintf(err, err_size, "%s", rt_interp_last_error(it));
        }
        return r;
}

void daemon_state_leave(daemon_state_t *s, rt_interp_t *it) {
        /* Swapping out cannot fail: every block traded in fits. */
        (void) rt_interp_state_swap(it, s->st);
        pthread_mutex_unlock(&s->mu);
}

/* ---- ResetVariables ---- */

/*
 * The handle's state goes back to fresh: variable tensors at their initial
 * values, resource variables gone, CALL_ONCE to run again, as a new
 * interpreter of the model would be. The handle simply gets a new state at
 * its next execution; one still running finishes on the old one, which it
 * holds a reference to. Loop thread; nothing to wait for.
 */
int daemon_reset_variables_handle(daemon_request_t *rq) {
        const Acceld__ResetVariablesRequest *in = rq->req->reset_variables;
        serving_handle_t *h = serving__handle_find(rq->conn->session, in->handle);
        Acceld__ResetVariablesResponse *out;

        if (!h)
                return daemon_request_errorf(rq, -ENOENT, "no model handle %" PRIu64 " on this connection", in->handle);
        h->state = daemon_state_unref(h->state);
        out = daemon_request_alloc(rq, sizeof(*out));
        if (!out)
                return -ENOMEM;
        acceld__reset_variables_response__init(out);
        out->has_stateful = 1;
        out->stateful = h->instance->stateful;
        rq->resp.body_case = ACCELD__RESPONSE__BODY_RESET_VARIABLES;
        rq->resp.reset_variables = out;
        return 0;
}
