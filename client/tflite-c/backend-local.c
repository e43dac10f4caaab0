/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The local backend: acceld's runtime (rt.h) in the calling process, for
 * when no daemon answers or ACCEL_TFLITE_MODE=local.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "model.h"
#include "rt.h"
#include "settings.h"
#include "tflite-internal.h"

typedef struct local {
        rt_interp_t *it;
} local_t;

int tfl__local_create(TfLiteModel *model, const char *settings_json, int32_t num_threads,
                      const tfl_kernels_t *kernels, void **ret_impl, char *err) {
        rt_settings_t s;
        rt_settings_init(&s);
        int r = 0;
        if (settings_json && (r = rt_settings_parse_json(settings_json, &s, err, TFL_ERR_MAX)) < 0)
                return r;
        rt_interp_options_t *o = rt_interp_options_new();
        local_t *l = calloc(1, sizeof(*l));
        if (!o || !l) {
                r = -ENOMEM;
                snprintf(err, TFL_ERR_MAX, "out of memory");
                goto out;
        }
        if (num_threads > 0)
                (void) rt_interp_options_set_num_threads(o, num_threads);
        if ((r = tfl__kernels_register(kernels, o)) < 0) {
                snprintf(err, TFL_ERR_MAX, "application kernels: %s", strerror(-r));
                goto out;
        }
        if ((r = rt_interp_options_set_settings(o, &s)) < 0) {
                snprintf(err, TFL_ERR_MAX, "settings: %s", strerror(-r));
                goto out;
        }
        if ((r = rt_interp_create(model->rt, o, &l->it, err, TFL_ERR_MAX)) < 0)
                goto out;
        *ret_impl = TAKE_PTR(l);
out:
        free(l);
        rt_interp_options_free(o);
        rt_settings_done(&s);
        return r;
}

static int local_create(TfLiteModel *model, const char *settings_json, int32_t num_threads, void **ret_impl,
                        char *err) {
        return tfl__local_create(model, settings_json, num_threads, NULL, ret_impl, err);
}

static void local_destroy(void *impl) {
        local_t *l = impl;
        rt_interp_free(l->it);
        free(l);
}

static int32_t local_count(void *impl, bool input) {
        local_t *l = impl;
        return input ? rt_interp_input_count(l->it) : rt_interp_output_count(l->it);
}

static int local_describe(void *impl, bool input, int32_t i, tfl_desc_t *ret) {
        local_t *l = impl;
        const rt_tensor_t *t = input ? rt_interp_input_tensor(l->it, i) : rt_interp_output_tensor(l->it, i);
        if (!t)
                return -EINVAL;
        size_t es = rt_type_size(t->type);
        *ret = (tfl_desc_t) {
                .type = tfl__type_from_schema(t->type),
                .rank = t->rank,
                .dims = t->dims,
                .data = t->data,
                /* Strings carry their serialized size; others exactly the
                 * shape's bytes (the buffer may be larger). */
                .bytes = es ? rt_tensor_count(t) * es : t->bytes,
                .name = t->name,
                .scale = t->scale,
                .zero_point = t->zero_point,
        };
        return 0;
}

static int local_resize(void *impl, int32_t i, const int32_t *dims, int32_t rank, char *err) {
        local_t *l = impl;
        int r = rt_interp_resize_input(l->it, i, rank, dims);
        if (r < 0)
                snprintf(err, TFL_ERR_MAX, "ResizeInputTensor: %s",
                         rt_interp_last_error(l->it)[0] ? rt_interp_last_error(l->it) : strerror(-r));
        return r;
}

static int local_allocate(void *impl, char *err) {
        local_t *l = impl;
        int r = rt_interp_allocate_tensors(l->it);
        if (r < 0)
                snprintf(err, TFL_ERR_MAX, "%s",
                         rt_interp_last_error(l->it)[0] ? rt_interp_last_error(l->it) : strerror(-r));
        return r;
}

static int local_invoke(void *impl, char *err) {
        local_t *l = impl;
        int r = rt_interp_invoke(l->it);
        if (r < 0)
                snprintf(err, TFL_ERR_MAX, "%s",
                         rt_interp_last_error(l->it)[0] ? rt_interp_last_error(l->it) : strerror(-r));
        return r;
}

static int local_reset_variables(void *impl, char *err) {
        /* The runtime zeroes variable tensors when it allocates. */
        return local_allocate(impl, err);
}

static int local_set_string(void *impl, int32_t i, const void *data, size_t size, char *err) {
        local_t *l = impl;
        int r = rt_interp_copy_in(l->it, i, data, size);
        if (r < 0)
                snprintf(err, TFL_ERR_MAX, "%s",
                         rt_interp_last_error(l->it)[0] ? rt_interp_last_error(l->it) : strerror(-r));
        return r;
}

const tfl_backend_ops_t tfl__backend_local = {
        .name = "local",
        .create = local_create,
        .destroy = local_destroy,
        .count = local_count,
        .describe = local_describe,
        .resize = local_resize,
        .allocate = local_allocate,
        .invoke = local_invoke,
        .reset_variables = local_reset_variables,
        .set_string = local_set_string,
};
