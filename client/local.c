/* SPDX-License-Identifier: Apache-2.0 */
/* libaccel's in-process interpreter (local.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "local.h"
#include "model.h"
#include "settings.h"

int accel__local_create(const accel_model_t *m, const void *settings, size_t settings_size, accel_local_t **ret,
                        char *err, size_t err_size) {
        rt_interp_options_t *o = NULL;
        accel_local_t *l;
        rt_settings_t s;
        int r;

        l = calloc(1, sizeof(*l));
        if (!l)
                return -ENOMEM;
        l->efd = -1;
        accel__local_clock_init(&l->clock);
        r = rt_settings_parse_proto(settings, settings_size, &s, err, err_size);
        if (r < 0) {
                free(l);
                return r;
        }
        /* The bytes acceld prepared: a private copy of an fd's (it may
         * change under us otherwise), a copy of the caller's buffer. */
        r = m->fd >= 0 ? rt_model_load_fd(m->fd, &l->model, err, err_size)
                       : rt_model_load_buffer(m->data, m->size, true, &l->model, err, err_size);
        if (r < 0)
                goto fail;
        o = rt_interp_options_new();
        if (!o) {
                r = -ENOMEM;
                goto fail;
        }
        r = rt_interp_options_set_settings(o, &s);
        if (r < 0) {
                (void) snprintf(err, err_size, "settings: %s", strerror(-r));
                goto fail;
        }
        r = rt_interp_create(l->model, o, &l->rt, err, err_size);
        if (r < 0)
                goto fail;
        l->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        if (l->efd < 0) {
                r = -errno;
                (void) snprintf(err, err_size, "eventfd: %s", strerror(-r));
                goto fail;
        }
        rt_interp_options_free(o);
        rt_settings_done(&s);
        *ret = l;
        return 0;
fail:
        rt_interp_options_free(o);
        rt_settings_done(&s);
        (void) accel__local_free(l);
        return r;
}

accel_local_t *accel__local_free(accel_local_t *l) {
        if (!l)
                return NULL;
        free(l->outs);
        /* Swaps a state still in back out, so that it is ours to free. */
        rt_interp_free(l->rt);
        rt_interp_state_free(l->state);
        rt_model_free(l->model);
        if (l->efd >= 0)
                (void) close(l->efd);
        free(l);
        return NULL;
}

int accel__local_reset_variables(accel_local_t *l) {
        rt_interp_state_t *fresh;
        int r;

        if (!rt_interp_has_state(l->rt))
                return 0;
        /* A new state, swapped in for good: the one the interpreter ran
         * on goes whole, resource variables and kernels' objects included,
         * which resetting the variable tensors in place would keep (the
         * interpreter's own waits in it until rt_interp_free(); that of a
         * previous reset is freed). */
        fresh = rt_interp_state_new();
        if (!fresh)
                return -ENOMEM;
        if (l->state) {
                /* Swapping out cannot fail: every block traded in fits. */
                (void) rt_interp_state_swap(l->rt, l->state);
                l->state = rt_interp_state_free(l->state);
        }
        r = rt_interp_state_swap(l->rt, fresh);
        if (r < 0) {
                /* Out of memory, nothing swapped in: the interpreter
                 * runs on its own state, which is not fresh; the caller
                 * hears so. */
                rt_interp_state_free(fresh);
                return r;
        }
        l->state = fresh;
        return 1;
}
