/* SPDX-License-Identifier: Apache-2.0 */
/*
 * REVERSE_SEQUENCE: TFLite reverse_sequence.cc. For every index b along
 * batch_dim, the first seq_lengths[b] elements along seq_dim are reversed
 * and the rest copied. seq_lengths is 1-D int32/int64 with one length per
 * batch entry, each in [0, dims[seq_dim]].
 */
#include <string.h>

#include "misc-internal.h"

#define OP "REVERSE_SEQUENCE"

static int reverse_sequence_parse(const rt_node_t *node, void *ret_params, rt_context_t *ctx) {
        rt_reverse_sequence_params_t *p = ret_params;
        (void) ctx;
        p->seq_dim = fbt_i32(node->options, 0, 0);
        p->batch_dim = fbt_i32(node->options, 1, 0);
        return 0;
}

static bool type_ok(rt_type_t t) {
        switch (t) {
        case RT_TYPE_FLOAT32:
        case RT_TYPE_INT8:
        case RT_TYPE_UINT8:
        case RT_TYPE_INT16:
        case RT_TYPE_INT32:
        case RT_TYPE_INT64:
                return true;
        default:
                return false;
        }
}

static int reverse_sequence_prepare(rt_context_t *ctx, rt_node_t *node) {
        int r = rt_misc__check_node(ctx, node, OP, 2, 2, 1, true);
        if (r < 0)
                return r;
        const rt_reverse_sequence_params_t *p = node->params;
        rt_tensor_t *in = rt_node_input(ctx, node, 0);
        rt_tensor_t *len = rt_node_input(ctx, node, 1);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        if (!type_ok(in->type))
                return rt_misc__unsupported(ctx, OP, "input", in);
        if (out->type != in->type)
                return rt_ctx_error(ctx, OP ": output type %s differs from input type %s", rt_type_name(out->type),
                                    rt_type_name(in->type));
        if (!rt_misc_is_index_type(len->type))
                return rt_ctx_error(ctx, OP ": seq_lengths must be int32 or int64, got %s", rt_type_name(len->type));
        if (p->seq_dim < 0 || p->seq_dim >= in->rank || p->batch_dim < 0 || p->batch_dim >= in->rank)
                return rt_ctx_error(ctx, OP ": seq_dim %d / batch_dim %d out of range for rank %d", p->seq_dim,
                                    p->batch_dim, in->rank);
        if (p->seq_dim == p->batch_dim)
                return rt_ctx_error(ctx, OP ": seq_dim and batch_dim must differ (both %d)", p->seq_dim);
        if (len->rank != 1 || len->dims[0] != in->dims[p->batch_dim])
                return rt_ctx_error(ctx, OP ": seq_lengths must be 1-D with %d values", in->dims[p->batch_dim]);
        return rt_ctx_resize(ctx, node, 0, in->rank, in->dims);
}

static int reverse_sequence_invoke(rt_context_t *ctx, rt_node_t *node) {
        const rt_reverse_sequence_params_t *p = node->params;
        rt_tensor_t *in = rt_node_input(ctx, node, 0);
        rt_tensor_t *len = rt_node_input(ctx, node, 1);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        if (!rt_misc_has_data(in) || !rt_misc_has_data(len))
                return rt_ctx_error(ctx, OP ": an input has no data");
        const int32_t rank = in->rank, sd = p->seq_dim, bd = p->batch_dim;
        for (int32_t b = 0; b < in->dims[bd]; b++) {
                int64_t l = rt_misc_index(len, (size_t) b);
                if (l < 0 || l > in->dims[sd])
                        return rt_ctx_error(ctx, OP ": seq_lengths[%d] = %lld out of range [0, %d]", b, (long long) l,
                                            in->dims[sd]);
        }
        int64_t stride[RT_MAX_RANK], s = 1;
        for (int32_t i = rank - 1; i >= 0; i--) {
                stride[i] = s;
                s *= in->dims[i];
        }
        const size_t es = rt_type_size(in->type);
        const size_t n = rt_tensor_count(in);
        int32_t coord[RT_MAX_RANK] = { 0 };
        const uint8_t *x = in->data;
        uint8_t *y = out->data;
        for (size_t i = 0; i < n; i++) {
                int64_t l = rt_misc_index(len, (size_t) coord[bd]);
                int64_t src = (int64_t) i;
                if (coord[sd] < l)
                        src += (l - 1 - 2 * (int64_t) coord[sd]) * stride[sd];
                memcpy(y + i * es, x + (size_t) src * es, es);
                for (int32_t d = rank - 1; d >= 0; d--) {
                        if (++coord[d] < in->dims[d])
                                break;
                        coord[d] = 0;
                }
        }
        return 0;
}

const rt_registration_t rt_kernel_reverse_sequence = {
        .name = OP,
        .op = RT_OP_REVERSE_SEQUENCE,
        .params_size = sizeof(rt_reverse_sequence_params_t),
        .parse = reverse_sequence_parse,
        .prepare = reverse_sequence_prepare,
        .invoke = reverse_sequence_invoke,
};
