/* SPDX-License-Identifier: Apache-2.0 */
/*
 * SCATTER_ND: TFLite scatter_nd.cc. Inputs indices ([..., K], int32/int64),
 * updates and shape (1-D int32/int64, the output's shape). The output starts
 * at zero and every update slice is added at the position its index names,
 * so repeated indices accumulate (bool: logical or). An index outside the
 * shape is an error.
 */
#include <string.h>

#include "misc-internal.h"

#define OP "SCATTER_ND"

static bool type_ok(rt_type_t t) {
        switch (t) {
        case RT_TYPE_FLOAT32:
        case RT_TYPE_INT8:
        case RT_TYPE_UINT8:
        case RT_TYPE_INT32:
        case RT_TYPE_INT64:
        case RT_TYPE_BOOL:
                return true;
        default:
                return false;
        }
}

/* Read and check the shape tensor against indices and updates. */
static int out_shape(rt_context_t *ctx, const rt_tensor_t *idx, const rt_tensor_t *upd, const rt_tensor_t *shape,
                     int32_t *ret_rank, int32_t *ret_dims) {
        size_t n = rt_tensor_count(shape);
        if (n > RT_MAX_RANK)
                return rt_ctx_error(ctx, OP ": shape has %zu dimensions, at most %d supported", n, RT_MAX_RANK);
        for (size_t i = 0; i < n; i++) {
                int64_t d = rt_misc_index(shape, i);
                if (d < 0 || d > INT32_MAX)
                        return rt_ctx_error(ctx, OP ": shape[%zu] = %lld is invalid", i, (long long) d);
                ret_dims[i] = (int32_t) d;
        }
        int32_t k = idx->dims[idx->rank - 1];
        if (k > (int32_t) n)
                return rt_ctx_error(ctx, OP ": index depth %d exceeds the output rank %zu", k, n);
        int32_t want_rank = idx->rank - 1 + (int32_t) n - k;
        if (upd->rank != want_rank)
                return rt_ctx_error(ctx, OP ": updates have rank %d, expected %d", upd->rank, want_rank);
        for (int32_t i = 0; i < idx->rank - 1; i++)
                if (upd->dims[i] != idx->dims[i])
                        return rt_ctx_error(ctx, OP ": updates dim %d is %d, indices say %d", i, upd->dims[i],
                                            idx->dims[i]);
        for (int32_t i = idx->rank - 1; i < want_rank; i++) {
                int32_t s = ret_dims[k + i - (idx->rank - 1)];
                if (upd->dims[i] != s)
                        return rt_ctx_error(ctx, OP ": updates dim %d is %d, shape says %d", i, upd->dims[i], s);
        }
        *ret_rank = (int32_t) n;
        return 0;
}

static int scatter_nd_prepare(rt_context_t *ctx, rt_node_t *node) {
        int r = rt_misc__check_node(ctx, node, OP, 3, 3, 1, false);
        if (r < 0)
                return r;
        rt_tensor_t *idx = rt_node_input(ctx, node, 0);
        rt_tensor_t *upd = rt_node_input(ctx, node, 1);
        rt_tensor_t *shape = rt_node_input(ctx, node, 2);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        if (!rt_misc_is_index_type(idx->type))
                return rt_ctx_error(ctx, OP ": indices must be int32 or int64, got %s", rt_type_name(idx->type));
        if (!rt_misc_is_index_type(shape->type))
                return rt_ctx_error(ctx, OP ": shape must be int32 or int64, got %s", rt_type_name(shape->type));
        if (!type_ok(upd->type))
                return rt_misc__unsupported(ctx, OP, "updates", upd);
        if (out->type != upd->type)
                return rt_ctx_error(ctx, OP ": output type %s differs from updates type %s", rt_type_name(out->type),
                                    rt_type_name(upd->type));
        if (idx->rank < 1)
                return rt_ctx_error(ctx, OP ": indices must have rank >= 1");
        if (shape->rank != 1)
                return rt_ctx_error(ctx, OP ": shape must be 1-D, got rank %d", shape->rank);
        if (!rt_misc_known(shape))
                return rt_misc_set_dynamic(ctx, node, 0);
        int32_t rank, dims[RT_MAX_RANK];
        r = out_shape(ctx, idx, upd, shape, &rank, dims);
        if (r < 0)
                return r;
        return rt_ctx_resize(ctx, node, 0, rank, dims);
}

#define SCATTER_ADD(T)                                                                      \
        do {                                                                                \
                T *y = out->data;                                                           \
                const T *u = (const T *) upd->data + i * slice;                             \
                for (size_t j = 0; j < slice; j++)                                          \
                        y[off + j] += u[j];                                                 \
        } while (0)

static int scatter_nd_invoke(rt_context_t *ctx, rt_node_t *node) {
        rt_tensor_t *idx = rt_node_input(ctx, node, 0);
        rt_tensor_t *upd = rt_node_input(ctx, node, 1);
        rt_tensor_t *shape = rt_node_input(ctx, node, 2);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        if (!rt_misc_has_data(idx) || !rt_misc_has_data(upd) || !rt_misc_has_data(shape))
                return rt_ctx_error(ctx, OP ": an input has no data");
        int32_t rank, dims[RT_MAX_RANK];
        int r = out_shape(ctx, idx, upd, shape, &rank, dims);
        if (r < 0)
                return r;
        if (!rt_tensor_is_const(shape)) {
                r = rt_ctx_resize(ctx, node, 0, rank, dims);
                if (r < 0)
                        return r;
        }
        const int32_t k = idx->dims[idx->rank - 1];
        size_t slice = 1;
        for (int32_t i = k; i < rank; i++)
                slice *= (size_t) dims[i];
        int64_t strides[RT_MAX_RANK];
        for (int32_t i = k - 1; i >= 0; i--)
                strides[i] = i == k - 1 ? (int64_t) slice : strides[i + 1] * dims[i + 1];
        memset(out->data, 0, rt_tensor_count(out) * rt_type_size(out->type));
        const size_t n_slices = k > 0 ? rt_tensor_count(idx) / (size_t) k : rt_tensor_count(idx);
        for (size_t i = 0; i < n_slices; i++) {
                size_t off = 0;
                for (int32_t j = 0; j < k; j++) {
                        int64_t v = rt_misc_index(idx, i * (size_t) k + (size_t) j);
                        if (v < 0 || v >= dims[j])
                                return rt_ctx_error(ctx, OP ": index %lld out of range for dimension %d of size %d",
                                                    (long long) v, j, dims[j]);
                        off += (size_t) v * (size_t) strides[j];
                }
                switch (out->type) {
                case RT_TYPE_FLOAT32: SCATTER_ADD(float); break;
                case RT_TYPE_INT8: SCATTER_ADD(int8_t); break;
                case RT_TYPE_UINT8: SCATTER_ADD(uint8_t); break;
                case RT_TYPE_INT32: SCATTER_ADD(int32_t); break;
                case RT_TYPE_INT64: SCATTER_ADD(int64_t); break;
                case RT_TYPE_BOOL: {
                        uint8_t *y = out->data;
                        const uint8_t *u = (const uint8_t *) upd->data + i * slice;
                        for (size_t j = 0; j < slice; j++)
                                y[off + j] = (uint8_t) (y[off + j] || u[j]);
                        break;
                }
                default:
                        return rt_misc__unsupported(ctx, OP, "updates", upd);
                }
        }
        return 0;
}

const rt_registration_t rt_kernel_scatter_nd = {
        .name = OP,
        .op = RT_OP_SCATTER_ND,
        .prepare = scatter_nd_prepare,
        .invoke = scatter_nd_invoke,
};
