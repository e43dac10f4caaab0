/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ATAN2: TFLite atan2.cc. Elementwise atan2(y, x) of two inputs of the same
 * shape and type (float32 or float64; no broadcasting).
 */
#include <math.h>

#include "misc-internal.h"

#define OP "ATAN2"

static int atan2_prepare(rt_context_t *ctx, rt_node_t *node) {
        int r = rt_misc__check_node(ctx, node, OP, 2, 2, 1, false);
        if (r < 0)
                return r;
        rt_tensor_t *y = rt_node_input(ctx, node, 0);
        rt_tensor_t *x = rt_node_input(ctx, node, 1);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        if (y->type != RT_TYPE_FLOAT32 && y->type != RT_TYPE_FLOAT64)
                return rt_misc__unsupported(ctx, OP, "input", y);
        if (x->type != y->type || out->type != y->type)
                return rt_ctx_error(ctx, OP ": inputs and output must share one type, got %s, %s and %s",
                                    rt_type_name(y->type), rt_type_name(x->type), rt_type_name(out->type));
        if (!ku_same_shape(x, y))
                return rt_ctx_error(ctx, OP ": inputs must have the same shape");
        return rt_ctx_resize(ctx, node, 0, y->rank, y->dims);
}

static int atan2_invoke(rt_context_t *ctx, rt_node_t *node) {
        rt_tensor_t *y = rt_node_input(ctx, node, 0);
        rt_tensor_t *x = rt_node_input(ctx, node, 1);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        if (!rt_misc_has_data(x) || !rt_misc_has_data(y))
                return rt_ctx_error(ctx, OP ": an input has no data");
        const size_t n = rt_tensor_count(y);
        if (y->type == RT_TYPE_FLOAT32) {
                const float *a = y->data, *b = x->data;
                float *o = out->data;
                for (size_t i = 0; i < n; i++)
                        o[i] = atan2f(a[i], b[i]);
        } else {
                const double *a = y->data, *b = x->data;
                double *o = out->data;
                for (size_t i = 0; i < n; i++)
                        o[i] = atan2(a[i], b[i]);
        }
        return 0;
}

const rt_registration_t rt_kernel_atan2 = {
        .name = OP,
        .op = RT_OP_ATAN2,
        .prepare = atan2_prepare,
        .invoke = atan2_invoke,
};
