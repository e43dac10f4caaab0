/* SPDX-License-Identifier: Apache-2.0 */
/*
 * CUMSUM: TFLite cumsum.cc. Running sums along one axis (an int32 input
 * holding one value, negative counts from the end); `exclusive` leaves the
 * current element out, `reverse` runs from the end of the axis.
 */
#include <string.h>

#include "reduce-internal.h"

#define OP "CUMSUM"

static int cumsum_parse(const rt_node_t *node, void *ret_params, rt_context_t *ctx) {
        rt_cumsum_params_t *p = ret_params;
        (void) ctx;
        p->exclusive = fbt_bool(node->options, 0, false);
        p->reverse = fbt_bool(node->options, 1, false);
        return 0;
}

static int cumsum_prepare(rt_context_t *ctx, rt_node_t *node) {
        if (!node->params)
                return rt_ctx_error(ctx, OP ": node has no params");
        if (node->n_inputs != 2 || node->n_outputs != 1)
                return rt_ctx_error(ctx, OP ": expected 2 inputs and 1 output, got %d and %d",
                                    node->n_inputs, node->n_outputs);
        rt_tensor_t *in = rt_node_input(ctx, node, 0);
        rt_tensor_t *axis = rt_node_input(ctx, node, 1);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        if (!in || !axis || !out)
                return rt_ctx_error(ctx, OP ": input, axis and output are required");
        if (in->type != RT_TYPE_FLOAT32 && in->type != RT_TYPE_INT32 && in->type != RT_TYPE_INT64)
                return rt_reduce__unsupported(ctx, OP, in, out);
        if (out->type != in->type)
                return rt_reduce__unsupported(ctx, OP, in, out);
        if (axis->type != RT_TYPE_INT32)
                return rt_ctx_error(ctx, OP ": axis must be int32, got %s", rt_type_name(axis->type));
        if (rt_tensor_count(axis) != 1)
                return rt_ctx_error(ctx, OP ": axis must hold one value, got %zu", rt_tensor_count(axis));
        if (in->rank < 1)
                return rt_ctx_error(ctx, OP ": input must have rank >= 1");
        return rt_ctx_resize(ctx, node, 0, in->rank, in->dims);
}

#define CUMSUM_LOOP(T, ACC_T)                                                               \
        do {                                                                                \
                const T *x = in->data;                                                      \
                T *y = out->data;                                                           \
                for (size_t o = 0; o < outer; o++) {                                        \
                        for (size_t i = 0; i < inner; i++) {                                \
                                size_t base = o * (size_t) n * inner + i;                   \
                                ACC_T acc = 0;                                              \
                                for (int32_t c = 0; c < n; c++) {                           \
                                        int32_t cc = p->reverse ? n - 1 - c : c;            \
                                        size_t k = base + (size_t) cc * inner;              \
                                        if (p->exclusive) {                                 \
                                                y[k] = (T) acc;                             \
                                                acc += (ACC_T) x[k];                        \
                                        } else {                                            \
                                                acc += (ACC_T) x[k];                        \
                                                y[k] = (T) acc;                             \
                                        }                                                   \
                                }                                                           \
                        }                                                                   \
                }                                                                           \
        } while (0)

static int cumsum_invoke(rt_context_t *ctx, rt_node_t *node) {
        const rt_cumsum_params_t *p = node->params;
        rt_tensor_t *in = rt_node_input(ctx, node, 0);
        rt_tensor_t *axis = rt_node_input(ctx, node, 1);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        if (!axis->data)
                return rt_ctx_error(ctx, OP ": axis tensor has no data");
        int32_t a;
        memcpy(&a, axis->data, sizeof(a));
        int32_t ra = a < 0 ? a + in->rank : a;
        if (ra < 0 || ra >= in->rank)
                return rt_ctx_error(ctx, OP ": axis %d out of range for rank %d", a, in->rank);
        size_t outer = 1, inner = 1;
        for (int32_t i = 0; i < ra; i++)
                outer *= (size_t) in->dims[i];
        for (int32_t i = ra + 1; i < in->rank; i++)
                inner *= (size_t) in->dims[i];
        const int32_t n = in->dims[ra];
        if (outer * inner * (size_t) n == 0)
                return 0;
        switch (in->type) {
        case RT_TYPE_FLOAT32: CUMSUM_LOOP(float, float); break;
        case RT_TYPE_INT32: CUMSUM_LOOP(int32_t, uint32_t); break;
        case RT_TYPE_INT64: CUMSUM_LOOP(int64_t, uint64_t); break;
        default: return rt_reduce__unsupported(ctx, OP, in, out);
        }
        return 0;
}

const rt_registration_t rt_kernel_cumsum = {
        .name = OP,
        .op = RT_OP_CUMSUM,
        .params_size = sizeof(rt_cumsum_params_t),
        .parse = cumsum_parse,
        .prepare = cumsum_prepare,
        .invoke = cumsum_invoke,
};
