/* SPDX-License-Identifier: Apache-2.0 */
/*
 * RANK: TFLite rank.cc. The input's rank as an int32 scalar; the input's
 * data is not read, so any type works.
 */
#include <string.h>

#include "misc-internal.h"

#define OP "RANK"

static int rank_prepare(rt_context_t *ctx, rt_node_t *node) {
        int r = rt_misc__check_node(ctx, node, OP, 1, 1, 1, false);
        if (r < 0)
                return r;
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        if (out->type != RT_TYPE_INT32)
                return rt_ctx_error(ctx, OP ": output must be int32, got %s", rt_type_name(out->type));
        return rt_misc_resize_scalar(ctx, node, 0);
}

static int rank_invoke(rt_context_t *ctx, rt_node_t *node) {
        rt_tensor_t *in = rt_node_input(ctx, node, 0);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        int32_t v = in->rank;
        memcpy(out->data, &v, sizeof(v));
        return 0;
}

const rt_registration_t rt_kernel_rank = {
        .name = OP,
        .op = RT_OP_RANK,
        .prepare = rank_prepare,
        .invoke = rank_invoke,
};
