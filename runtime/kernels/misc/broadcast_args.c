/* SPDX-License-Identifier: Apache-2.0 */
/*
 * BROADCAST_ARGS: TFLite broadcast_args.cc. Two 1-D shape tensors (int32 or
 * int64, the same type) give the shape they broadcast to, as a 1-D tensor
 * of the longer length and the same type. Incompatible shapes are an
 * error at invoke.
 */
#include <string.h>

#include "misc-internal.h"

#define OP "BROADCAST_ARGS"

static int broadcast_args_prepare(rt_context_t *ctx, rt_node_t *node) {
        int r = rt_misc__check_node(ctx, node, OP, 2, 2, 1, false);
        if (r < 0)
                return r;
        rt_tensor_t *a = rt_node_input(ctx, node, 0);
        rt_tensor_t *b = rt_node_input(ctx, node, 1);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        if (!rt_misc_is_index_type(a->type))
                return rt_misc__unsupported(ctx, OP, "shape", a);
        if (b->type != a->type || out->type != a->type)
                return rt_ctx_error(ctx, OP ": inputs and output must share one type, got %s, %s and %s",
                                    rt_type_name(a->type), rt_type_name(b->type), rt_type_name(out->type));
        if (a->rank != 1 || b->rank != 1)
                return rt_ctx_error(ctx, OP ": shapes must be 1-D");
        const int32_t d[1] = { KU_MAX(a->dims[0], b->dims[0]) };
        return rt_ctx_resize(ctx, node, 0, 1, d);
}

static int broadcast_args_invoke(rt_context_t *ctx, rt_node_t *node) {
        rt_tensor_t *a = rt_node_input(ctx, node, 0);
        rt_tensor_t *b = rt_node_input(ctx, node, 1);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        if (!rt_misc_has_data(a) || !rt_misc_has_data(b))
                return rt_ctx_error(ctx, OP ": an input has no data");
        const int32_t na = a->dims[0], nb = b->dims[0], n = KU_MAX(na, nb);
        for (int32_t i = 0; i < n; i++) {
                /* Align the shapes at their ends. */
                int32_t ia = i - (n - na), ib = i - (n - nb);
                int64_t da = ia >= 0 ? rt_misc_index(a, (size_t) ia) : 1;
                int64_t db = ib >= 0 ? rt_misc_index(b, (size_t) ib) : 1;
                if (da != db && da != 1 && db != 1)
                        return rt_ctx_error(ctx, OP ": dimension %d: %lld and %lld do not broadcast", i,
                                            (long long) da, (long long) db);
                int64_t v = da == 1 ? db : da;
                if (out->type == RT_TYPE_INT64) {
                        memcpy((uint8_t *) out->data + (size_t) i * 8, &v, 8);
                } else {
                        int32_t v32 = (int32_t) v;
                        memcpy((uint8_t *) out->data + (size_t) i * 4, &v32, 4);
                }
        }
        return 0;
}

const rt_registration_t rt_kernel_broadcast_args = {
        .name = OP,
        .op = RT_OP_BROADCAST_ARGS,
        .prepare = broadcast_args_prepare,
        .invoke = broadcast_args_invoke,
};
