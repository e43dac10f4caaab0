/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The served backend: the model runs on acceld through libaccel's
 * interpreter (client/interp.c). Tensors live in the memory shared with
 * acceld, so the data pointers the C API hands out are zero-copy.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <accel/accel.h>

#include "model.h"
#include "tflite-internal.h"

typedef struct served {
        accel_interp_t *it;
        bool stateful;                  /* the model has variable tensors */
        int32_t dims[16];               /* the last describe's shape */
} served_t;

static void error_take(int r, char *err) {
        const char *m = accel_last_error();
        snprintf(err, TFL_ERR_MAX, "acceld: %s", m[0] ? m : strerror(-r));
}

/* Failures of the connection itself, as opposed to the daemon's answers. */
static bool no_daemon(int r) {
        if (accel_last_status() != ACCEL_STATUS_NONE)
                return false;
        return r == -ENOENT || r == -ECONNREFUSED || r == -ENXIO || r == -ENOTDIR || r == -EACCES ||
               r == -ECONNRESET || r == -ENOTSOCK;
}

static int served_create(TfLiteModel *model, const char *settings_json, int32_t num_threads, void **ret_impl,
                         char *err) {
        accel_model_t *am;
        int r = tfl__model_served(model, &am, err);
        if (r < 0)
                return r;
        accel_interp_options_t *o = accel_interp_options_create();
        served_t *s = calloc(1, sizeof(*s));
        if (!o || !s) {
                r = -ENOMEM;
                snprintf(err, TFL_ERR_MAX, "out of memory");
                goto out;
        }
        if (num_threads > 0)
                (void) accel_interp_options_set_num_threads(o, num_threads);
        if (settings_json && (r = accel_interp_options_set_settings_json(o, settings_json)) < 0) {
                error_take(r, err);
                goto out;
        }
        r = accel_interp_create(am, o, &s->it);
        if (r < 0) {
                bool none = no_daemon(r);
                error_take(r, err);
                if (none)
                        r = -ENOTCONN;
                goto out;
        }
        for (int32_t g = 0; g < model->rt->n_subgraphs; g++)
                for (int32_t k = 0; k < model->rt->subgraphs[g].n_tensors; k++)
                        s->stateful |= model->rt->subgraphs[g].tensors[k].is_variable;
        *ret_impl = s;
        s = NULL;
out:
        free(s);
        accel_interp_options_delete(o);
        return r;
}

static void served_destroy(void *impl) {
        served_t *s = impl;
        accel_interp_delete(s->it);
        free(s);
}

static int32_t served_count(void *impl, bool input) {
        served_t *s = impl;
        return input ? accel_interp_input_count(s->it) : accel_interp_output_count(s->it);
}

static int served_describe(void *impl, bool input, int32_t i, tfl_desc_t *ret) {
        served_t *s = impl;
        const accel_tensor_t *t = input ? accel_interp_input_tensor(s->it, i) : accel_interp_output_tensor(s->it, i);
        if (!t)
                return -EINVAL;
        int32_t rank = accel_tensor_num_dims(t);
        if (rank < 0 || rank > (int32_t) (sizeof(s->dims) / sizeof(s->dims[0])))
                return -EINVAL;
        for (int32_t k = 0; k < rank; k++)
                s->dims[k] = accel_tensor_dim(t, k);
        *ret = (tfl_desc_t) {
                .type = tfl__type_from_schema(accel_tensor_type(t)),
                .rank = rank,
                .dims = s->dims,
                .data = accel_tensor_data(t),
                .bytes = accel_tensor_byte_size(t),
                .name = accel_tensor_name(t),
                .scale = accel_tensor_scale(t),
                .zero_point = accel_tensor_zero_point(t),
        };
        return 0;
}

static int served_resize(void *impl, int32_t i, const int32_t *dims, int32_t rank, char *err) {
        served_t *s = impl;
        int r = accel_interp_resize_input(s->it, i, dims, rank);
        if (r < 0)
                error_take(r, err);
        return r;
}

static int served_allocate(void *impl, char *err) {
        served_t *s = impl;
        int r = accel_interp_allocate_tensors(s->it);
        if (r < 0)
                error_take(r, err);
        return r;
}

static int served_invoke(void *impl, char *err) {
        served_t *s = impl;
        int r = accel_interp_invoke(s->it);
        if (r < 0)
                error_take(r, err);
        return r;
}

static int served_reset_variables(void *impl, char *err) {
        served_t *s = impl;
        /* acceld keeps a stateful model's variables per interpreter
         * (daemon/serving/state.c): ResetVariables is this one's reset. */
        if (!s->stateful)
                return 0;
        int r = accel_interp_reset_variables(s->it);
        if (r < 0) {
                error_take(r, err);
                return r;
        }
        return 0;
}

/* libaccel checks the list and keeps it; it goes inline with each invoke. */
static int served_set_string(void *impl, int32_t i, const void *data, size_t size, char *err) {
        served_t *s = impl;
        int r = accel_tensor_copy_from_buffer(accel_interp_input_tensor(s->it, i), data, size);
        if (r < 0)
                error_take(r, err);
        return r;
}

const tfl_backend_ops_t tfl__backend_served = {
        .name = "served",
        .create = served_create,
        .destroy = served_destroy,
        .count = served_count,
        .describe = served_describe,
        .resize = served_resize,
        .allocate = served_allocate,
        .invoke = served_invoke,
        .reset_variables = served_reset_variables,
        .set_string = served_set_string,
};
