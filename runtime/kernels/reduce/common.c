/* SPDX-License-Identifier: Apache-2.0 */
/* Axis resolution, output shapes and iteration plans of the reducers. */
#include <string.h>

#include "reduce-internal.h"

int rt_reduce__unsupported(rt_context_t *ctx, const char *op, const rt_tensor_t *in,
                           const rt_tensor_t *out) {
        (void) rt_ctx_error(ctx, "%s: %s input with %s output is not supported", op,
                            rt_type_name(in->type), out ? rt_type_name(out->type) : "no");
        return -ENOTSUP;
}

int rt_reduce__parse_reducer(const rt_node_t *node, void *ret_params, rt_context_t *ctx) {
        rt_reducer_params_t *p = ret_params;
        (void) ctx;
        p->keep_dims = fbt_bool(node->options, 0, false);
        return 0;
}

int rt_reduce__resolve_axes(rt_context_t *ctx, const char *op, const rt_tensor_t *axis, int32_t rank,
                            bool ret_mask[RT_MAX_RANK]) {
        if (axis->type != RT_TYPE_INT32)
                return rt_ctx_error(ctx, "%s: axis must be int32, got %s", op, rt_type_name(axis->type));
        size_t n = rt_tensor_count(axis);
        if (n > 0 && (!axis->data || axis->bytes < n * sizeof(int32_t)))
                return rt_ctx_error(ctx, "%s: axis tensor has no data", op);
        bool mask[RT_MAX_RANK] = { false };
        for (size_t i = 0; i < n && rank > 0; i++) {
                int32_t a;
                memcpy(&a, (const uint8_t *) axis->data + i * sizeof(int32_t), sizeof(a));
                int32_t r = a < 0 ? a + rank : a;
                if (r < 0 || r >= rank)
                        return rt_ctx_error(ctx, "%s: axis %d out of range for rank %d", op, a, rank);
                mask[r] = true;
        }
        memcpy(ret_mask, mask, sizeof(mask));
        return 0;
}

/* Output dims of a reduction (TFLite ResizeOutputTensor). */
static void output_shape(const rt_tensor_t *in, const bool mask[RT_MAX_RANK], bool keep_dims,
                         int32_t *ret_rank, int32_t *ret_dims) {
        int32_t r = 0;
        for (int32_t i = 0; i < in->rank; i++) {
                if (!mask[i])
                        ret_dims[r++] = in->dims[i];
                else if (keep_dims)
                        ret_dims[r++] = 1;
        }
        *ret_rank = r;
}

static int check_node(rt_context_t *ctx, const rt_node_t *node, const char *op, rt_tensor_t **ret_in,
                      rt_tensor_t **ret_axis, rt_tensor_t **ret_out) {
        if (!node->params)
                return rt_ctx_error(ctx, "%s: node has no params", op);
        if (node->n_inputs != 2 || node->n_outputs != 1)
                return rt_ctx_error(ctx, "%s: expected 2 inputs and 1 output, got %d and %d", op,
                                    node->n_inputs, node->n_outputs);
        rt_tensor_t *in = rt_node_input(ctx, node, 0);
        rt_tensor_t *axis = rt_node_input(ctx, node, 1);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        if (!in || !axis || !out)
                return rt_ctx_error(ctx, "%s: input, axis and output are required", op);
        if (axis->type != RT_TYPE_INT32)
                return rt_ctx_error(ctx, "%s: axis must be int32, got %s", op, rt_type_name(axis->type));
        *ret_in = in;
        *ret_axis = axis;
        *ret_out = out;
        return 0;
}

int rt_reduce__prepare(rt_context_t *ctx, rt_node_t *node, const char *op) {
        rt_tensor_t *in, *axis, *out;
        int r = check_node(ctx, node, op, &in, &axis, &out);
        if (r < 0)
                return r;
        if (!rt_tensor_is_const(axis))
                return ctx->set_dynamic(ctx, node->outputs[0]);
        bool mask[RT_MAX_RANK];
        r = rt_reduce__resolve_axes(ctx, op, axis, in->rank, mask);
        if (r < 0)
                return r;
        const rt_reducer_params_t *p = node->params;
        int32_t rank, dims[RT_MAX_RANK];
        output_shape(in, mask, p->keep_dims, &rank, dims);
        return rt_ctx_resize(ctx, node, 0, rank, dims);
}

int rt_reduce__plan(rt_context_t *ctx, rt_node_t *node, const char *op, rt_reduce_plan_t *plan) {
        rt_tensor_t *in, *axis, *out;
        int r = check_node(ctx, node, op, &in, &axis, &out);
        if (r < 0)
                return r;
        bool mask[RT_MAX_RANK];
        r = rt_reduce__resolve_axes(ctx, op, axis, in->rank, mask);
        if (r < 0)
                return r;
        const rt_reducer_params_t *p = node->params;
        int32_t rank, dims[RT_MAX_RANK];
        output_shape(in, mask, p->keep_dims, &rank, dims);
        if (!rt_tensor_is_const(axis)) {
                r = rt_ctx_resize(ctx, node, 0, rank, dims);
                if (r < 0)
                        return r;
        }

        memset(plan, 0, sizeof(*plan));
        plan->all_axes = true;
        for (int32_t i = 0; i < in->rank; i++)
                plan->all_axes &= mask[i];

        int64_t strides[RT_MAX_RANK];
        int64_t s = 1;
        for (int32_t i = in->rank - 1; i >= 0; i--) {
                strides[i] = s;
                s *= in->dims[i];
        }
        /* Drop size-1 axes; merge runs of axes of the same kind. A merged run
         * stays contiguous because the dropped axes have size 1. */
        int last = -1;  /* 0 = outer, 1 = inner */
        plan->outer_count = 1;
        plan->inner_count = 1;
        for (int32_t i = 0; i < in->rank; i++) {
                int32_t d = in->dims[i];
                if (d == 1)
                        continue;
                int kind = mask[i] ? 1 : 0;
                int32_t *n = kind ? &plan->n_inner : &plan->n_outer;
                int32_t *pd = kind ? plan->inner_dims : plan->outer_dims;
                int64_t *ps = kind ? plan->inner_strides : plan->outer_strides;
                if (kind == last && *n > 0) {
                        pd[*n - 1] *= d;
                        ps[*n - 1] = strides[i];
                } else {
                        pd[*n] = d;
                        ps[*n] = strides[i];
                        (*n)++;
                }
                last = kind;
                if (kind)
                        plan->inner_count *= (size_t) (d < 0 ? 0 : d);
                else
                        plan->outer_count *= (size_t) (d < 0 ? 0 : d);
        }
        if (rt_tensor_count(out) != plan->outer_count)
                return rt_ctx_error(ctx, "%s: output has %zu elements, the reduction gives %zu", op,
                                    rt_tensor_count(out), plan->outer_count);
        if (plan->outer_count > 0 && !out->data)
                return rt_ctx_error(ctx, "%s: output has no storage", op);
        if (plan->outer_count * plan->inner_count > 0 && !in->data)
                return rt_ctx_error(ctx, "%s: input has no data", op);
        return 0;
}

int rt_reduce__prepare_same_shape(rt_context_t *ctx, rt_node_t *node, const char *op,
                                  rt_tensor_t **ret_in, rt_tensor_t **ret_out) {
        if (node->n_inputs != 1 || node->n_outputs != 1)
                return rt_ctx_error(ctx, "%s: expected 1 input and 1 output, got %d and %d", op,
                                    node->n_inputs, node->n_outputs);
        rt_tensor_t *in = rt_node_input(ctx, node, 0);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        if (!in || !out)
                return rt_ctx_error(ctx, "%s: input and output are required", op);
        if (in->rank < 1)
                return rt_ctx_error(ctx, "%s: input must have rank >= 1, got %d", op, in->rank);
        int r = rt_ctx_resize(ctx, node, 0, in->rank, in->dims);
        if (r < 0)
                return r;
        *ret_in = in;
        *ret_out = out;
        return 0;
}
