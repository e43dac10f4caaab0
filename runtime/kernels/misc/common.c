/* SPDX-License-Identifier: Apache-2.0 */
/* Node checks and scalar reads shared by the misc family. */
#include <string.h>

#include "misc-internal.h"

int rt_misc__check_node(rt_context_t *ctx, const rt_node_t *node, const char *op, int32_t min_in,
                        int32_t max_in, int32_t n_out, bool need_params) {
        if (need_params && !node->params)
                return rt_ctx_error(ctx, "%s: node has no params", op);
        if (node->n_inputs < min_in || node->n_inputs > max_in || node->n_outputs != n_out) {
                if (min_in == max_in)
                        return rt_ctx_error(ctx, "%s: expected %d inputs and %d outputs, got %d and %d", op,
                                            min_in, n_out, node->n_inputs, node->n_outputs);
                return rt_ctx_error(ctx, "%s: expected %d to %d inputs and %d outputs, got %d and %d", op,
                                    min_in, max_in, n_out, node->n_inputs, node->n_outputs);
        }
        for (int32_t i = 0; i < min_in; i++)
                if (!rt_node_input(ctx, node, i))
                        return rt_ctx_error(ctx, "%s: input %d is required", op, i);
        for (int32_t i = 0; i < n_out; i++)
                if (!rt_node_output(ctx, node, i))
                        return rt_ctx_error(ctx, "%s: output %d is required", op, i);
        return 0;
}

int rt_misc__unsupported(rt_context_t *ctx, const char *op, const char *what, const rt_tensor_t *t) {
        (void) rt_ctx_error(ctx, "%s: %s of type %s is not supported", op, what, rt_type_name(t->type));
        return -ENOTSUP;
}

int rt_misc__scalar_index(rt_context_t *ctx, const char *op, const char *what, const rt_tensor_t *t,
                          bool allow_i64, int64_t *ret) {
        if (t->type != RT_TYPE_INT32 && !(allow_i64 && t->type == RT_TYPE_INT64))
                return rt_ctx_error(ctx, "%s: %s must be int32%s, got %s", op, what,
                                    allow_i64 ? " or int64" : "", rt_type_name(t->type));
        if (rt_tensor_count(t) != 1)
                return rt_ctx_error(ctx, "%s: %s must hold one value, got %zu", op, what, rt_tensor_count(t));
        if (!rt_misc_has_data(t))
                return rt_ctx_error(ctx, "%s: %s has no data", op, what);
        *ret = rt_misc_index(t, 0);
        return 0;
}

int rt_misc__scalar_f32(rt_context_t *ctx, const char *op, const char *what, const rt_tensor_t *t,
                        float *ret) {
        if (t->type != RT_TYPE_FLOAT32)
                return rt_ctx_error(ctx, "%s: %s must be float32, got %s", op, what, rt_type_name(t->type));
        if (rt_tensor_count(t) != 1)
                return rt_ctx_error(ctx, "%s: %s must hold one value, got %zu", op, what, rt_tensor_count(t));
        if (!rt_misc_has_data(t))
                return rt_ctx_error(ctx, "%s: %s has no data", op, what);
        memcpy(ret, t->data, sizeof(*ret));
        return 0;
}
