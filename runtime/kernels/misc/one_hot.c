/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ONE_HOT: TFLite one_hot.cc. Inputs indices (int32/int64), depth (int32
 * scalar), on_value and off_value (scalars of the output type). The output
 * has a new axis of size depth at `axis` (-1: last); an element is on_value
 * where the index equals its position along that axis, off_value elsewhere
 * (indices out of [0, depth) give an all-off row).
 */
#include <string.h>

#include "misc-internal.h"

#define OP "ONE_HOT"

static int one_hot_parse(const rt_node_t *node, void *ret_params, rt_context_t *ctx) {
        rt_one_hot_params_t *p = ret_params;
        (void) ctx;
        p->axis = fbt_i32(node->options, 0, -1);
        return 0;
}

static bool value_type_ok(rt_type_t t) {
        switch (t) {
        case RT_TYPE_FLOAT32:
        case RT_TYPE_INT16:
        case RT_TYPE_INT32:
        case RT_TYPE_INT64:
        case RT_TYPE_INT8:
        case RT_TYPE_UINT8:
        case RT_TYPE_BOOL:
                return true;
        default:
                return false;
        }
}

/* Output shape for `depth`; -EINVAL (with a message) for a bad axis. */
static int out_shape(rt_context_t *ctx, const rt_one_hot_params_t *p, const rt_tensor_t *idx, int64_t depth,
                     int32_t *ret_axis, int32_t *ret_dims) {
        int32_t rank = idx->rank + 1;
        if (rank > RT_MAX_RANK)
                return rt_ctx_error(ctx, OP ": output rank %d exceeds %d", rank, RT_MAX_RANK);
        int32_t axis = p->axis == -1 ? idx->rank : p->axis;
        if (axis < 0 || axis > idx->rank)
                return rt_ctx_error(ctx, OP ": axis %d out of range for output rank %d", p->axis, rank);
        if (depth < 0 || depth > INT32_MAX)
                return rt_ctx_error(ctx, OP ": depth %lld must be non-negative", (long long) depth);
        for (int32_t i = 0, k = 0; i < rank; i++)
                ret_dims[i] = i == axis ? (int32_t) depth : idx->dims[k++];
        *ret_axis = axis;
        return 0;
}

static int one_hot_prepare(rt_context_t *ctx, rt_node_t *node) {
        int r = rt_misc__check_node(ctx, node, OP, 4, 4, 1, true);
        if (r < 0)
                return r;
        const rt_one_hot_params_t *p = node->params;
        rt_tensor_t *idx = rt_node_input(ctx, node, 0);
        rt_tensor_t *depth = rt_node_input(ctx, node, 1);
        rt_tensor_t *on = rt_node_input(ctx, node, 2);
        rt_tensor_t *off = rt_node_input(ctx, node, 3);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        if (!rt_misc_is_index_type(idx->type))
                return rt_ctx_error(ctx, OP ": indices must be int32 or int64, got %s", rt_type_name(idx->type));
        if (depth->type != RT_TYPE_INT32)
                return rt_ctx_error(ctx, OP ": depth must be int32, got %s", rt_type_name(depth->type));
        if (!value_type_ok(out->type))
                return rt_misc__unsupported(ctx, OP, "output", out);
        if (on->type != out->type || off->type != out->type)
                return rt_ctx_error(ctx, OP ": on/off values (%s, %s) must match the output type %s",
                                    rt_type_name(on->type), rt_type_name(off->type), rt_type_name(out->type));
        if (rt_tensor_count(on) != 1 || rt_tensor_count(off) != 1 || rt_tensor_count(depth) != 1)
                return rt_ctx_error(ctx, OP ": depth, on_value and off_value must be scalars");
        if (!rt_misc_known(depth)) {
                int32_t dims[RT_MAX_RANK], axis;
                r = out_shape(ctx, p, idx, 0, &axis, dims);
                if (r < 0)
                        return r;
                return rt_misc_set_dynamic(ctx, node, 0);
        }
        int64_t d = 0;
        r = rt_misc__scalar_index(ctx, OP, "depth", depth, false, &d);
        if (r < 0)
                return r;
        int32_t dims[RT_MAX_RANK], axis;
        r = out_shape(ctx, p, idx, d, &axis, dims);
        if (r < 0)
                return r;
        return rt_ctx_resize(ctx, node, 0, idx->rank + 1, dims);
}

static int one_hot_invoke(rt_context_t *ctx, rt_node_t *node) {
        const rt_one_hot_params_t *p = node->params;
        rt_tensor_t *idx = rt_node_input(ctx, node, 0);
        rt_tensor_t *depth = rt_node_input(ctx, node, 1);
        rt_tensor_t *on = rt_node_input(ctx, node, 2);
        rt_tensor_t *off = rt_node_input(ctx, node, 3);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        int64_t d = 0;
        int r = rt_misc__scalar_index(ctx, OP, "depth", depth, false, &d);
        if (r < 0)
                return r;
        int32_t dims[RT_MAX_RANK], axis;
        r = out_shape(ctx, p, idx, d, &axis, dims);
        if (r < 0)
                return r;
        if (!rt_tensor_is_const(depth)) {
                r = rt_ctx_resize(ctx, node, 0, idx->rank + 1, dims);
                if (r < 0)
                        return r;
        }
        if (!rt_misc_has_data(idx) || !rt_misc_has_data(on) || !rt_misc_has_data(off))
                return rt_ctx_error(ctx, OP ": an input has no data");
        size_t prefix = 1, suffix = 1;
        for (int32_t i = 0; i < axis; i++)
                prefix *= (size_t) idx->dims[i];
        for (int32_t i = axis; i < idx->rank; i++)
                suffix *= (size_t) idx->dims[i];
        const size_t es = rt_type_size(out->type);
        uint8_t *y = out->data;
        for (size_t i = 0; i < prefix; i++)
                for (int64_t j = 0; j < d; j++)
                        for (size_t k = 0; k < suffix; k++) {
                                int64_t v = rt_misc_index(idx, i * suffix + k);
                                memcpy(y, v == j ? on->data : off->data, es);
                                y += es;
                        }
        return 0;
}

const rt_registration_t rt_kernel_one_hot = {
        .name = OP,
        .op = RT_OP_ONE_HOT,
        .params_size = sizeof(rt_one_hot_params_t),
        .parse = one_hot_parse,
        .prepare = one_hot_prepare,
        .invoke = one_hot_invoke,
};
