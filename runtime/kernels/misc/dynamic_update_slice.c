/* SPDX-License-Identifier: Apache-2.0 */
/*
 * DYNAMIC_UPDATE_SLICE: TFLite dynamic_update_slice.cc (XLA semantics).
 * Inputs operand, update (same type and rank, no dimension larger than the
 * operand's) and start_indices (1-D int32/int64, one per dimension). The
 * output is the operand with the update written at the start, each start
 * clamped to [0, operand_dim - update_dim] so the update always fits.
 * Element bytes are only copied, so every fixed-size type works.
 */
#include <string.h>

#include "misc-internal.h"

#define OP "DYNAMIC_UPDATE_SLICE"

static int dus_prepare(rt_context_t *ctx, rt_node_t *node) {
        int r = rt_misc__check_node(ctx, node, OP, 3, 3, 1, false);
        if (r < 0)
                return r;
        rt_tensor_t *in = rt_node_input(ctx, node, 0);
        rt_tensor_t *upd = rt_node_input(ctx, node, 1);
        rt_tensor_t *start = rt_node_input(ctx, node, 2);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        if (rt_type_size(in->type) == 0)
                return rt_misc__unsupported(ctx, OP, "operand", in);
        if (upd->type != in->type || out->type != in->type)
                return rt_ctx_error(ctx, OP ": update (%s) and output (%s) must have the operand type %s",
                                    rt_type_name(upd->type), rt_type_name(out->type), rt_type_name(in->type));
        if (!rt_misc_is_index_type(start->type))
                return rt_ctx_error(ctx, OP ": start_indices must be int32 or int64, got %s",
                                    rt_type_name(start->type));
        if (upd->rank != in->rank)
                return rt_ctx_error(ctx, OP ": update rank %d differs from operand rank %d", upd->rank, in->rank);
        if (start->rank != 1 || start->dims[0] != in->rank)
                return rt_ctx_error(ctx, OP ": start_indices must be 1-D with %d values", in->rank);
        for (int32_t i = 0; i < in->rank; i++)
                if (upd->dims[i] > in->dims[i])
                        return rt_ctx_error(ctx, OP ": update dim %d (%d) exceeds the operand's (%d)", i,
                                            upd->dims[i], in->dims[i]);
        return rt_ctx_resize(ctx, node, 0, in->rank, in->dims);
}

static int dus_invoke(rt_context_t *ctx, rt_node_t *node) {
        rt_tensor_t *in = rt_node_input(ctx, node, 0);
        rt_tensor_t *upd = rt_node_input(ctx, node, 1);
        rt_tensor_t *start = rt_node_input(ctx, node, 2);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        if (!rt_misc_has_data(in) || !rt_misc_has_data(upd) || !rt_misc_has_data(start))
                return rt_ctx_error(ctx, OP ": an input has no data");
        const int32_t rank = in->rank;
        const size_t es = rt_type_size(in->type);
        int64_t begin[RT_MAX_RANK], stride[RT_MAX_RANK];
        for (int32_t i = 0; i < rank; i++) {
                int64_t v = rt_misc_index(start, (size_t) i);
                int64_t hi = (int64_t) in->dims[i] - upd->dims[i];
                begin[i] = v < 0 ? 0 : (v > hi ? hi : v);
        }
        int64_t s = 1;
        for (int32_t i = rank - 1; i >= 0; i--) {
                stride[i] = s;
                s *= in->dims[i];
        }
        uint8_t *y = out->data;
        if (y != in->data)
                memmove(y, in->data, rt_tensor_count(in) * es);
        const size_t n = rt_tensor_count(upd);
        if (n == 0)
                return 0;
        /* Copy whole rows of the update's last dimension at a time. */
        const size_t row = rank > 0 ? (size_t) upd->dims[rank - 1] : 1;
        const size_t rows = n / row;
        int32_t coord[RT_MAX_RANK] = { 0 };
        const uint8_t *u = upd->data;
        for (size_t r = 0; r < rows; r++) {
                int64_t off = 0;
                for (int32_t i = 0; i < rank; i++)
                        off += (begin[i] + (i == rank - 1 ? 0 : coord[i])) * stride[i];
                memcpy(y + (size_t) off * es, u + r * row * es, row * es);
                for (int32_t d = rank - 2; d >= 0; d--) {
                        if (++coord[d] < upd->dims[d])
                                break;
                        coord[d] = 0;
                }
        }
        return 0;
}

const rt_registration_t rt_kernel_dynamic_update_slice = {
        .name = OP,
        .op = RT_OP_DYNAMIC_UPDATE_SLICE,
        .prepare = dus_prepare,
        .invoke = dus_invoke,
};
