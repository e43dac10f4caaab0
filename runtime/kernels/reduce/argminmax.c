/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ARG_MAX, ARG_MIN: TFLite arg_min_max.cc. The axis input holds one int32 or
 * int64 value (negative counts from the end); the output drops that axis.
 * Only a strictly better value replaces the current one, so ties resolve to
 * the first index.
 */
#include <string.h>

#include "reduce-internal.h"

static int arg_parse(const rt_node_t *node, void *ret_params, rt_context_t *ctx) {
        rt_arg_params_t *p = ret_params;
        (void) ctx;
        p->output_type = (rt_type_t) fbt_i8(node->options, 0, 0);
        return 0;
}

/* The resolved axis, or a negative errno. */
static int arg_axis(rt_context_t *ctx, const char *op, const rt_tensor_t *in, const rt_tensor_t *axis,
                    int32_t *ret_axis) {
        if (rt_tensor_count(axis) != 1)
                return rt_ctx_error(ctx, "%s: axis must hold one value, got %zu", op,
                                    rt_tensor_count(axis));
        if (!axis->data)
                return rt_ctx_error(ctx, "%s: axis tensor has no data", op);
        int64_t a;
        if (axis->type == RT_TYPE_INT32) {
                int32_t v;
                memcpy(&v, axis->data, sizeof(v));
                a = v;
        } else if (axis->type == RT_TYPE_INT64) {
                memcpy(&a, axis->data, sizeof(a));
        } else {
                return rt_ctx_error(ctx, "%s: axis must be int32 or int64, got %s", op,
                                    rt_type_name(axis->type));
        }
        int64_t r = a < 0 ? a + in->rank : a;
        if (r < 0 || r >= in->rank)
                return rt_ctx_error(ctx, "%s: axis %lld out of range for rank %d", op, (long long) a,
                                    in->rank);
        *ret_axis = (int32_t) r;
        return 0;
}

static int arg_resize(rt_context_t *ctx, rt_node_t *node, const rt_tensor_t *in, int32_t axis) {
        int32_t dims[RT_MAX_RANK];
        int32_t n = 0;
        for (int32_t i = 0; i < in->rank; i++)
                if (i != axis)
                        dims[n++] = in->dims[i];
        return rt_ctx_resize(ctx, node, 0, n, dims);
}

static int arg_prepare(rt_context_t *ctx, rt_node_t *node, const char *op) {
        const rt_arg_params_t *p = node->params;
        if (!p)
                return rt_ctx_error(ctx, "%s: node has no params", op);
        if (node->n_inputs != 2 || node->n_outputs != 1)
                return rt_ctx_error(ctx, "%s: expected 2 inputs and 1 output, got %d and %d", op,
                                    node->n_inputs, node->n_outputs);
        rt_tensor_t *in = rt_node_input(ctx, node, 0);
        rt_tensor_t *axis = rt_node_input(ctx, node, 1);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        if (!in || !axis || !out)
                return rt_ctx_error(ctx, "%s: input, axis and output are required", op);
        if (out->type != RT_TYPE_INT32 && out->type != RT_TYPE_INT64)
                return rt_ctx_error(ctx, "%s: output must be int32 or int64, got %s", op,
                                    rt_type_name(out->type));
        if ((p->output_type == RT_TYPE_INT32 || p->output_type == RT_TYPE_INT64) &&
            p->output_type != out->type)
                return rt_ctx_error(ctx, "%s: output_type %s but the output tensor is %s", op,
                                    rt_type_name(p->output_type), rt_type_name(out->type));
        switch (in->type) {
        case RT_TYPE_FLOAT32:
        case RT_TYPE_UINT8:
        case RT_TYPE_INT8:
        case RT_TYPE_INT16:
        case RT_TYPE_INT32:
        case RT_TYPE_INT64:
        case RT_TYPE_BOOL:
                break;
        default:
                return rt_reduce__unsupported(ctx, op, in, out);
        }
        if (in->rank < 1)
                return rt_ctx_error(ctx, "%s: input must have rank >= 1", op);
        if (axis->type != RT_TYPE_INT32 && axis->type != RT_TYPE_INT64)
                return rt_ctx_error(ctx, "%s: axis must be int32 or int64, got %s", op,
                                    rt_type_name(axis->type));
        if (!rt_tensor_is_const(axis))
                return ctx->set_dynamic(ctx, node->outputs[0]);
        int32_t a;
        int r = arg_axis(ctx, op, in, axis, &a);
        if (r < 0)
                return r;
        return arg_resize(ctx, node, in, a);
}

#define ARG_LOOP(T)                                                                 \
        do {                                                                                \
                const T *x = in->data;                                                      \
                for (size_t o = 0; o < outer; o++) {                                        \
                        for (size_t i = 0; i < inner; i++) {                                \
                                const T *row = x + o * n * inner + i;                       \
                                T best = row[0];                                            \
                                int64_t idx = 0;                                            \
                                for (int32_t c = 1; c < n; c++) {                           \
                                        T v = row[(size_t) c * inner];                      \
                                        if (max ? (v > best) : (v < best)) {                \
                                                best = v;                                   \
                                                idx = c;                                    \
                                        }                                                   \
                                }                                                           \
                                size_t k = o * inner + i;                                   \
                                if (out64)                                                  \
                                        ((int64_t *) out->data)[k] = idx;                   \
                                else                                                        \
                                        ((int32_t *) out->data)[k] = (int32_t) idx;         \
                        }                                                                   \
                }                                                                           \
        } while (0)

static int arg_invoke(rt_context_t *ctx, rt_node_t *node, const char *op, bool max) {
        rt_tensor_t *in = rt_node_input(ctx, node, 0);
        rt_tensor_t *axis = rt_node_input(ctx, node, 1);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        int32_t a;
        int r = arg_axis(ctx, op, in, axis, &a);
        if (r < 0)
                return r;
        if (!rt_tensor_is_const(axis)) {
                r = arg_resize(ctx, node, in, a);
                if (r < 0)
                        return r;
        }
        size_t outer = 1, inner = 1;
        for (int32_t i = 0; i < a; i++)
                outer *= (size_t) in->dims[i];
        for (int32_t i = a + 1; i < in->rank; i++)
                inner *= (size_t) in->dims[i];
        const int32_t n = in->dims[a];
        if (outer * inner == 0)
                return 0;
        if (n == 0)
                return rt_ctx_error(ctx, "%s: the reduced axis is empty", op);
        const bool out64 = out->type == RT_TYPE_INT64;
        switch (in->type) {
        case RT_TYPE_FLOAT32: ARG_LOOP(float); break;
        case RT_TYPE_UINT8: ARG_LOOP(uint8_t); break;
        case RT_TYPE_INT8: ARG_LOOP(int8_t); break;
        case RT_TYPE_INT16: ARG_LOOP(int16_t); break;
        case RT_TYPE_INT32: ARG_LOOP(int32_t); break;
        case RT_TYPE_INT64: ARG_LOOP(int64_t); break;
        case RT_TYPE_BOOL: ARG_LOOP(bool); break;
        default: return rt_reduce__unsupported(ctx, op, in, out);
        }
        return 0;
}

static int argmax_prepare(rt_context_t *ctx, rt_node_t *node) { return arg_prepare(ctx, node, "ARG_MAX"); }
static int argmin_prepare(rt_context_t *ctx, rt_node_t *node) { return arg_prepare(ctx, node, "ARG_MIN"); }
static int argmax_invoke(rt_context_t *ctx, rt_node_t *node) { return arg_invoke(ctx, node, "ARG_MAX", true); }
static int argmin_invoke(rt_context_t *ctx, rt_node_t *node) { return arg_invoke(ctx, node, "ARG_MIN", false); }

const rt_registration_t rt_kernel_arg_max = {
        .name = "ARG_MAX",
        .op = RT_OP_ARG_MAX,
        .params_size = sizeof(rt_arg_params_t),
        .parse = arg_parse,
        .prepare = argmax_prepare,
        .invoke = argmax_invoke,
};

const rt_registration_t rt_kernel_arg_min = {
        .name = "ARG_MIN",
        .op = RT_OP_ARG_MIN,
        .params_size = sizeof(rt_arg_params_t),
        .parse = arg_parse,
        .prepare = argmin_prepare,
        .invoke = argmin_invoke,
};
