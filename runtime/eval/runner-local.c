/* SPDX-License-Identifier: Apache-2.0 */
/* eval_runner_t over the in-process runtime (runtime/rt.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "eval.h"
#include "rt.h"
#include "settings.h"

typedef struct local_runner {
        eval_runner_t base;
        rt_model_t *model;
        rt_interp_t *interp;
        bool own_interp;  /* false: borrowed (eval_runner_interp_new()) */
} local_runner_t;

static int32_t local_input_count(eval_runner_t *r) {
        return rt_interp_input_count(((local_runner_t *) r)->interp);
}

static int32_t local_output_count(eval_runner_t *r) {
        return rt_interp_output_count(((local_runner_t *) r)->interp);
}

static void tensor_fill(const rt_tensor_t *t, void *data, eval_tensor_t *ret) {
        *ret = (eval_tensor_t) {
                .type = (int32_t) t->type,
                .rank = t->rank < EVAL_MAX_RANK ? t->rank : EVAL_MAX_RANK,
                .scale = t->quant.n == 1 ? t->scale : 0,
                .zero_point = t->quant.n == 1 ? t->zero_point : 0,
                .bytes = t->bytes,
                .data = data,
                .name = t->name ? t->name : "",
        };
        for (int32_t d = 0; d < ret->rank; d++)
                ret->dims[d] = t->dims[d];
        /* bytes: what the shape needs, not what the arena slot holds. */
        if (rt_type_size(t->type))
                ret->bytes = eval_tensor_count(ret) * rt_type_size(t->type);
}

static int local_input(eval_runner_t *r, int32_t i, eval_tensor_t *ret) {
        local_runner_t *l = (local_runner_t *) r;
        const rt_tensor_t *t = rt_interp_input_tensor(l->interp, i);
        void *data = rt_interp_input_data(l->interp, i);

        if (!t || !data)
                return -EINVAL;
        tensor_fill(t, data, ret);
        return 0;
}

static int local_output(eval_runner_t *r, int32_t i, eval_tensor_t *ret) {
        local_runner_t *l = (local_runner_t *) r;
        const rt_tensor_t *t = rt_interp_output_tensor(l->interp, i);
        const void *data = rt_interp_output_data(l->interp, i);

        if (!t || !data)
                return -EINVAL;
        tensor_fill(t, (void *) data, ret);
        return 0;
}

static int local_invoke(eval_runner_t *r) {
        return rt_interp_invoke(((local_runner_t *) r)->interp);
}

static const char *local_last_error(eval_runner_t *r) {
        return rt_interp_last_error(((local_runner_t *) r)->interp);
}

static void local_free(eval_runner_t *r) {
        local_runner_t *l = (local_runner_t *) r;

        if (l->own_interp)
                rt_interp_free(l->interp);  /* before the model it borrows */
        rt_model_free(l->model);
        free(l);
}

static const eval_runner_ops_t local_ops = {
        .input_count = local_input_count,
        .output_count = local_output_count,
        .input = local_input,
        .output = local_output,
        .invoke = local_invoke,
        .last_error = local_last_error,
        .free = local_free,
};

/* What actually runs, as accelctl prints it for acceld: the drivers of
 * the execution plan with their node counts. */
static void describe(local_runner_t *l, const char *what) {
        rt_interp_partition_t parts[4];
        size_t n = rt_interp_partitions(l->interp, parts, 4);
        size_t o_len = (size_t) snprintf(l->base.description, sizeof(l->base.description), "%s", what);

        for (size_t i = 0; i < n && i < 4 && o_len < sizeof(l->base.description); i++)
                o_len += (size_t) snprintf(l->base.description + o_len, sizeof(l->base.description) - o_len,
                                           ", %s %d node%s", parts[i].driver, parts[i].nodes,
                                           parts[i].nodes == 1 ? "" : "s");
}

DEFINE_POINTER_CLEANUP(rt_interp_options_t, rt_interp_options_free);

static void local_runner_freep(local_runner_t **l) {
        if (*l)
                local_free(&(*l)->base);
}

int eval_runner_local_new(const char *model_path, const char *settings, eval_runner_t **ret, char *err,
                          size_t err_size) {
        _cleanup_(local_runner_freep) local_runner_t *l = NULL;
        _cleanup_(rt_settings_done) rt_settings_t rs;
        char msg[512] = "";
        int r;

        rt_settings_init(&rs);
        if (!model_path || !ret)
                return -EINVAL;
        if (settings) {
                r = settings[0] == '{' ? rt_settings_parse_json(settings, &rs, msg, sizeof(msg))
                                       : rt_settings_load_file(settings, &rs, msg, sizeof(msg));
                if (r < 0) {
                        snprintf(err, err_size, "settings: %s", msg[0] ? msg : strerror(-r));
                        return r;
                }
        }
        l = calloc(1, sizeof(*l));
        if (!l)
                return -ENOMEM;
        l->base.ops = &local_ops;
        l->own_interp = true;
        r = rt_model_load_file(model_path, &l->model, msg, sizeof(msg));
        if (r < 0) {
                snprintf(err, err_size, "%s: %s", model_path, msg[0] ? msg : strerror(-r));
                return r;
        }
        _cleanup_(rt_interp_options_freep) rt_interp_options_t *o = rt_interp_options_new();
        if (!o)
                return -ENOMEM;
        if (settings) {
                r = rt_interp_options_set_settings(o, &rs);
                if (r < 0) {
                        snprintf(err, err_size, "settings: %s", strerror(-r));
                        return r;
                }
        }
        r = rt_interp_create(l->model, o, &l->interp, msg, sizeof(msg));
        if (r < 0) {
                snprintf(err, err_size, "%s: %s", model_path, msg[0] ? msg : strerror(-r));
                return r;
        }
        r = rt_interp_allocate_tensors(l->interp);
        if (r < 0) {
                snprintf(err, err_size, "%s: %s", model_path, rt_interp_last_error(l->interp));
                return r;
        }
        describe(l, "local");
        *ret = &TAKE_PTR(l)->base;
        return 0;
}

int eval_runner_interp_new(rt_interp_t *interp, const char *what, eval_runner_t **ret) {
        local_runner_t *l;

        if (!interp || !ret)
                return -EINVAL;
        l = calloc(1, sizeof(*l));
        if (!l)
                return -ENOMEM;
        l->base.ops = &local_ops;
        l->interp = interp;
        describe(l, what ? what : "interpreter");
        *ret = &l->base;
        return 0;
}
