/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libaccel's in-process interpreter: a model acceld placed in the client
 * (PrepareModelResponse.placement = PLACEMENT_CLIENT, docs/architecture.md
 * "Placement") runs here on acceld's runtime, the one the Python module's
 * local=True and the TFLite C library's local mode use, with the
 * TFLiteSettings acceld chose. accel_interp_t (interp.c) keeps the served
 * handle as well, and its tensors, errors and timings behave as served.
 */
#pragma once

#include <stddef.h>

#include "accel-internal.h"
#include "local-clock.h"
#include "rt.h"

typedef struct accel_local {
        rt_model_t *model;
        rt_interp_t *rt;
        int efd;                /* eventfd: readable once a started invoke is done (accel_interp_fd()) */
        int pending_r;          /* result of the started invoke */
        bool pending;
        char pending_err[512];  /* its error message */
        accel_local_clock_t clock;      /* the invokes' timings (local-clock.h) */
        /* The runtime's output tensors, looked up at allocate (interp.c's
         * local_tensors_sync()), so that an invoke refreshes shapes and
         * pointers without the lookups; n_outs of them. */
        const rt_tensor_t **outs;
        int32_t n_outs;
        /* A stateful model's state since its latest ResetVariables, swapped
         * into rt for good (accel__local_reset_variables()); NULL before
         * the first. */
        rt_interp_state_t *state;
} accel_local_t;

/*
 * An interpreter for model m (its bytes or fd, as the client sent them to
 * acceld) with the serialized TFLiteSettings `settings`. Returns 0 or a
 * negative errno with the reason in err.
 */
int accel__local_create(const accel_model_t *m, const void *settings, size_t settings_size, accel_local_t **ret,
                        char *err, size_t err_size);

/* NULL-safe; returns NULL. */
accel_local_t *accel__local_free(accel_local_t *l);

/*
 * ResetVariables as acceld answers it (daemon/serving/state.c): the model
 * goes back to exactly what a new interpreter starts with (variable
 * tensors at their initial values, no resource variables, CALL_ONCE to run
 * again, random generators at their start), not only its variable tensors
 * as rt_interp_reset_variables() does. Returns 1 for a stateful model, 0
 * for one without state (nothing to do), or a negative errno (the
 * runtime's message in rt_interp_last_error()).
 */
int accel__local_reset_variables(accel_local_t *l);
