/* SPDX-License-Identifier: Apache-2.0 */
/*
 * WHERE: TFLite where.cc (one input). The output is int64 [n_true, rank]:
 * the coordinates of every non-zero (true) element in row-major order. Its
 * first dimension depends on the data, so the output is dynamic unless the
 * condition is a model constant.
 */
#include <string.h>

#include "misc-internal.h"

#define OP "WHERE"

static bool cond_type_ok(rt_type_t t) {
        switch (t) {
        case RT_TYPE_BOOL:
        case RT_TYPE_FLOAT32:
        case RT_TYPE_INT32:
        case RT_TYPE_INT64:
        case RT_TYPE_INT8:
        case RT_TYPE_UINT8:
        case RT_TYPE_UINT32:
                return true;
        default:
                return false;
        }
}

static bool is_true(const rt_tensor_t *t, size_t i) {
        const uint8_t *p = (const uint8_t *) t->data + i * rt_type_size(t->type);
        switch (t->type) {
        case RT_TYPE_FLOAT32: {
                float v;
                memcpy(&v, p, sizeof(v));
                return v != 0.0f;
        }
        case RT_TYPE_INT32:
        case RT_TYPE_UINT32: {
                uint32_t v;
                memcpy(&v, p, sizeof(v));
                return v != 0;
        }
        case RT_TYPE_INT64: {
                uint64_t v;
                memcpy(&v, p, sizeof(v));
                return v != 0;
        }
        default:
                return *p != 0;
        }
}

static size_t count_true(const rt_tensor_t *c) {
        size_t n = rt_tensor_count(c), k = 0;
        for (size_t i = 0; i < n; i++)
                k += is_true(c, i);
        return k;
}

static int resize_out(rt_context_t *ctx, rt_node_t *node, const rt_tensor_t *c) {
        size_t k = count_true(c);
        if (k > INT32_MAX)
                return rt_ctx_error(ctx, OP ": too many true elements (%zu)", k);
        int32_t dims[2] = { (int32_t) k, c->rank };
        return rt_ctx_resize(ctx, node, 0, 2, dims);
}

static int where_prepare(rt_context_t *ctx, rt_node_t *node) {
        int r = rt_misc__check_node(ctx, node, OP, 1, 1, 1, false);
        if (r < 0)
                return r;
        rt_tensor_t *c = rt_node_input(ctx, node, 0);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        if (!cond_type_ok(c->type))
                return rt_misc__unsupported(ctx, OP, "condition", c);
        if (out->type != RT_TYPE_INT64)
                return rt_ctx_error(ctx, OP ": output must be int64, got %s", rt_type_name(out->type));
        if (rt_misc_known(c))
                return resize_out(ctx, node, c);
        return rt_misc_set_dynamic(ctx, node, 0);
}

static int where_invoke(rt_context_t *ctx, rt_node_t *node) {
        rt_tensor_t *c = rt_node_input(ctx, node, 0);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        if (!rt_misc_has_data(c))
                return rt_ctx_error(ctx, OP ": condition has no data");
        if (!rt_tensor_is_const(c)) {
                int r = resize_out(ctx, node, c);
                if (r < 0)
                        return r;
        }
        size_t n = rt_tensor_count(c);
        int64_t *y = out->data;
        int32_t coord[RT_MAX_RANK] = { 0 };
        for (size_t i = 0; i < n; i++) {
                if (is_true(c, i))
                        for (int32_t d = 0; d < c->rank; d++)
                                *y++ = coord[d];
                for (int32_t d = c->rank - 1; d >= 0; d--) {
                        if (++coord[d] < c->dims[d])
                                break;
                        coord[d] = 0;
                }
        }
        return 0;
}

const rt_registration_t rt_kernel_where = {
        .name = OP,
        .op = RT_OP_WHERE,
        .prepare = where_prepare,
        .invoke = where_invoke,
};
