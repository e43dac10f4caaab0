/* SPDX-License-Identifier: Apache-2.0 */
/*
 * SPARSE_TO_DENSE: TFLite sparse_to_dense.cc. Inputs sparse_indices (int32/
 * int64: a scalar or 1-D of positions into a 1-D output, or [n, d] with one
 * d-dimensional position per row), output_shape (1-D int32/int64), values
 * (a scalar for every position, or one per position) and default_value (a
 * scalar). The output is filled with the default, then each value is
 * written at its position; later positions overwrite earlier ones. Indices
 * outside the output are an error.
 */
#include <string.h>

#include "misc-internal.h"

#define OP "SPARSE_TO_DENSE"

static int sparse_to_dense_parse(const rt_node_t *node, void *ret_params, rt_context_t *ctx) {
        rt_sparse_to_dense_params_t *p = ret_params;
        (void) ctx;
        p->validate_indices = fbt_bool(node->options, 0, true);
        return 0;
}

static bool type_ok(rt_type_t t) {
        switch (t) {
        case RT_TYPE_FLOAT32:
        case RT_TYPE_INT32:
        case RT_TYPE_INT64:
        case RT_TYPE_INT8:
        case RT_TYPE_UINT8:
                return true;
        default:
                return false;
        }
}

static int read_shape(rt_context_t *ctx, const rt_tensor_t *shape, int32_t *ret_rank, int32_t *ret_dims) {
        size_t n = rt_tensor_count(shape);
        if (n > RT_MAX_RANK)
                return rt_ctx_error(ctx, OP ": output_shape has %zu dimensions, at most %d supported", n,
                                    RT_MAX_RANK);
        for (size_t i = 0; i < n; i++) {
                int64_t d = rt_misc_index(shape, i);
                if (d < 0 || d > INT32_MAX)
                        return rt_ctx_error(ctx, OP ": output_shape[%zu] = %lld is invalid", i, (long long) d);
                ret_dims[i] = (int32_t) d;
        }
        *ret_rank = (int32_t) n;
        return 0;
}

static int sparse_to_dense_prepare(rt_context_t *ctx, rt_node_t *node) {
        int r = rt_misc__check_node(ctx, node, OP, 4, 4, 1, false);
        if (r < 0)
                return r;
        rt_tensor_t *idx = rt_node_input(ctx, node, 0);
        rt_tensor_t *shape = rt_node_input(ctx, node, 1);
        rt_tensor_t *values = rt_node_input(ctx, node, 2);
        rt_tensor_t *def = rt_node_input(ctx, node, 3);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        if (!rt_misc_is_index_type(idx->type))
                return rt_ctx_error(ctx, OP ": indices must be int32 or int64, got %s", rt_type_name(idx->type));
        if (!rt_misc_is_index_type(shape->type))
                return rt_ctx_error(ctx, OP ": output_shape must be int32 or int64, got %s",
                                    rt_type_name(shape->type));
        if (!type_ok(values->type))
                return rt_misc__unsupported(ctx, OP, "values", values);
        if (def->type != values->type || out->type != values->type)
                return rt_ctx_error(ctx, OP ": default value (%s) and output (%s) must have the values' type %s",
                                    rt_type_name(def->type), rt_type_name(out->type), rt_type_name(values->type));
        if (idx->rank > 2)
                return rt_ctx_error(ctx, OP ": indices must have rank 0, 1 or 2, got %d", idx->rank);
        if (shape->rank != 1)
                return rt_ctx_error(ctx, OP ": output_shape must be 1-D, got rank %d", shape->rank);
        if (values->rank > 1)
                return rt_ctx_error(ctx, OP ": values must be a scalar or 1-D, got rank %d", values->rank);
        if (rt_tensor_count(def) != 1)
                return rt_ctx_error(ctx, OP ": default_value must be a scalar");
        size_t n_idx = idx->rank == 0 ? 1 : (size_t) idx->dims[0];
        if (values->rank == 1 && (size_t) values->dims[0] != n_idx)
                return rt_ctx_error(ctx, OP ": %d values for %zu indices", values->dims[0], n_idx);
        if (!rt_misc_known(shape))
                return rt_misc_set_dynamic(ctx, node, 0);
        int32_t rank, dims[RT_MAX_RANK];
        r = read_shape(ctx, shape, &rank, dims);
        if (r < 0)
                return r;
        return rt_ctx_resize(ctx, node, 0, rank, dims);
}

static int sparse_to_dense_invoke(rt_context_t *ctx, rt_node_t *node) {
        rt_tensor_t *idx = rt_node_input(ctx, node, 0);
        rt_tensor_t *shape = rt_node_input(ctx, node, 1);
        rt_tensor_t *values = rt_node_input(ctx, node, 2);
        rt_tensor_t *def = rt_node_input(ctx, node, 3);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        if (!rt_misc_has_data(idx) || !rt_misc_has_data(shape) || !rt_misc_has_data(values) ||
            !rt_misc_has_data(def))
                return rt_ctx_error(ctx, OP ": an input has no data");
        int32_t rank, dims[RT_MAX_RANK];
        int r = read_shape(ctx, shape, &rank, dims);
        if (r < 0)
                return r;
        if (!rt_tensor_is_const(shape)) {
                r = rt_ctx_resize(ctx, node, 0, rank, dims);
                if (r < 0)
                        return r;
        }
        const size_t es = rt_type_size(out->type);
        const size_t total = rt_tensor_count(out);
        uint8_t *y = out->data;
        for (size_t i = 0; i < total; i++)
                memcpy(y + i * es, def->data, es);
        const size_t n_idx = idx->rank == 0 ? 1 : (size_t) idx->dims[0];
        const int32_t width = idx->rank == 2 ? idx->dims[1] : 1;
        if (width != rank)
                return rt_ctx_error(ctx, OP ": indices have %d coordinates for an output of rank %d", width, rank);
        const bool scalar_value = values->rank == 0;
        for (size_t i = 0; i < n_idx; i++) {
                size_t off = 0;
                for (int32_t j = 0; j < width; j++) {
                        int64_t v = rt_misc_index(idx, i * (size_t) width + (size_t) j);
                        if (v < 0 || v >= dims[j])
                                return rt_ctx_error(ctx, OP ": index %lld out of range for dimension %d of size %d",
                                                    (long long) v, j, dims[j]);
                        off = off * (size_t) dims[j] + (size_t) v;
                }
                memcpy(y + off * es, (const uint8_t *) values->data + (scalar_value ? 0 : i * es), es);
        }
        return 0;
}

const rt_registration_t rt_kernel_sparse_to_dense = {
        .name = OP,
        .op = RT_OP_SPARSE_TO_DENSE,
        .params_size = sizeof(rt_sparse_to_dense_params_t),
        .parse = sparse_to_dense_parse,
        .prepare = sparse_to_dense_prepare,
        .invoke = sparse_to_dense_invoke,
};
