/* SPDX-License-Identifier: Apache-2.0 */
/*
 * EMBEDDING_LOOKUP_SPARSE: TFLite embedding_lookup_sparse.cc. Inputs ids
 * (int32 [n]), indices (int32 [n, r]: the sparse position of each id),
 * dense_shape (int32 [r]), weights (float32 [n]) and value (float32
 * [vocab, ...]). The output is dense_shape[0 .. r-2] + value dims[1..]: each
 * id's embedding row, times its weight, is added into the bucket named by
 * the first r-1 coordinates of its index. Buckets are closed when the
 * bucket changes from one id to the next (ids of a bucket are expected to be
 * adjacent, as in a SparseTensor); MEAN divides a bucket by its summed
 * weights and SQRTN by the root of its summed squared weights. The output
 * is sized at invoke from dense_shape.
 */
#include <math.h>
#include <string.h>

#include "misc-internal.h"

#define OP "EMBEDDING_LOOKUP_SPARSE"

static int els_parse(const rt_node_t *node, void *ret_params, rt_context_t *ctx) {
        rt_embedding_lookup_sparse_params_t *p = ret_params;
        (void) ctx;
        p->combiner = (rt_combiner_t) fbt_i8(node->options, 0, RT_COMBINER_SUM);
        return 0;
}

static int els_prepare(rt_context_t *ctx, rt_node_t *node) {
        int r = rt_misc__check_node(ctx, node, OP, 5, 5, 1, true);
        if (r < 0)
                return r;
        const rt_embedding_lookup_sparse_params_t *p = node->params;
        rt_tensor_t *ids = rt_node_input(ctx, node, 0);
        rt_tensor_t *indices = rt_node_input(ctx, node, 1);
        rt_tensor_t *shape = rt_node_input(ctx, node, 2);
        rt_tensor_t *weights = rt_node_input(ctx, node, 3);
        rt_tensor_t *value = rt_node_input(ctx, node, 4);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        if (p->combiner != RT_COMBINER_SUM && p->combiner != RT_COMBINER_MEAN && p->combiner != RT_COMBINER_SQRTN)
                return rt_ctx_error(ctx, OP ": unknown combiner %d", (int) p->combiner);
        if (ids->type != RT_TYPE_INT32 || indices->type != RT_TYPE_INT32 || shape->type != RT_TYPE_INT32)
                return rt_ctx_error(ctx, OP ": ids, indices and dense_shape must be int32");
        if (weights->type != RT_TYPE_FLOAT32)
                return rt_ctx_error(ctx, OP ": weights must be float32, got %s", rt_type_name(weights->type));
        if (value->type != RT_TYPE_FLOAT32)
                return rt_misc__unsupported(ctx, OP, "value", value);
        if (out->type != RT_TYPE_FLOAT32)
                return rt_ctx_error(ctx, OP ": output must be float32, got %s", rt_type_name(out->type));
        if (ids->rank != 1 || indices->rank != 2 || shape->rank != 1 || weights->rank != 1 || value->rank < 2)
                return rt_ctx_error(ctx, OP ": expected ids [n], indices [n, r], dense_shape [r], weights [n] "
                                         "and value [vocab, ...]");
        if (indices->dims[0] != ids->dims[0] || weights->dims[0] != ids->dims[0])
                return rt_ctx_error(ctx, OP ": indices and weights need one row per id (%d)", ids->dims[0]);
        if (indices->dims[1] != shape->dims[0] || shape->dims[0] < 1)
                return rt_ctx_error(ctx, OP ": indices width %d must equal the dense_shape length %d (>= 1)",
                                    indices->dims[1], shape->dims[0]);
        if (shape->dims[0] - 1 + value->rank - 1 > RT_MAX_RANK)
                return rt_ctx_error(ctx, OP ": output rank exceeds %d", RT_MAX_RANK);
        return rt_misc_set_dynamic(ctx, node, 0);
}

static void finalize(rt_combiner_t combiner, int32_t n, float total, float squares, size_t size, float *y) {
        if (combiner == RT_COMBINER_SUM || n == 0)
                return;
        const float m = combiner == RT_COMBINER_MEAN ? total : sqrtf(squares);
        for (size_t k = 0; k < size; k++)
                y[k] /= m;
}

static int els_invoke(rt_context_t *ctx, rt_node_t *node) {
        const rt_embedding_lookup_sparse_params_t *p = node->params;
        rt_tensor_t *ids = rt_node_input(ctx, node, 0);
        rt_tensor_t *indices = rt_node_input(ctx, node, 1);
        rt_tensor_t *shape = rt_node_input(ctx, node, 2);
        rt_tensor_t *weights = rt_node_input(ctx, node, 3);
        rt_tensor_t *value = rt_node_input(ctx, node, 4);
        if (!rt_misc_has_data(ids) || !rt_misc_has_data(indices) || !rt_misc_has_data(shape) ||
            !rt_misc_has_data(weights) || !rt_misc_has_data(value))
                return rt_ctx_error(ctx, OP ": an input has no data");
        const int32_t lookup_rank = shape->dims[0];
        const int32_t *sd = shape->data;
        int32_t dims[RT_MAX_RANK], rank = 0;
        for (int32_t k = 0; k < lookup_rank - 1; k++) {
                if (sd[k] < 0)
                        return rt_ctx_error(ctx, OP ": dense_shape[%d] = %d is negative", k, sd[k]);
                dims[rank++] = sd[k];
        }
        for (int32_t k = 1; k < value->rank; k++)
                dims[rank++] = value->dims[k];
        int r = rt_ctx_resize(ctx, node, 0, rank, dims);
        if (r < 0)
                return r;
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        const size_t emb = value->dims[0] > 0 ? rt_tensor_count(value) / (size_t) value->dims[0] : 0;
        const size_t total_out = rt_tensor_count(out);
        float *y = out->data;
        memset(y, 0, total_out * sizeof(float));
        const int32_t *id = ids->data, *ix = indices->data;
        const float *w = weights->data, *v = value->data;
        size_t cur = 0;
        float tw = 0.0f, sw = 0.0f;
        int32_t n_el = 0;
        for (int32_t i = 0; i < ids->dims[0]; i++) {
                if (id[i] < 0 || id[i] >= value->dims[0])
                        return rt_ctx_error(ctx, OP ": id %d out of range [0, %d)", id[i], value->dims[0]);
                size_t bucket = 0, stride = 1;
                for (int32_t k = lookup_rank - 2; k >= 0; k--) {
                        int32_t c = ix[(size_t) i * (size_t) lookup_rank + (size_t) k];
                        if (c < 0 || c >= sd[k])
                                return rt_ctx_error(ctx, OP ": index %d out of range for dense dimension %d of size %d",
                                                    c, k, sd[k]);
                        bucket += (size_t) c * stride;
                        stride *= (size_t) sd[k];
                }
                const size_t off = bucket * emb;
                if (off != cur) {
                        finalize(p->combiner, n_el, tw, sw, emb, y + cur);
                        n_el = 0;
                        tw = 0.0f;
                        sw = 0.0f;
                        cur = off;
                }
                n_el++;
                sw += w[i] * w[i];
                tw += w[i];
                for (size_t k = 0; k < emb; k++)
                        y[cur + k] += v[(size_t) id[i] * emb + k] * w[i];
        }
        if (total_out > 0)
                finalize(p->combiner, n_el, tw, sw, emb, y + cur);
        return 0;
}

const rt_registration_t rt_kernel_embedding_lookup_sparse = {
        .name = OP,
        .op = RT_OP_EMBEDDING_LOOKUP_SPARSE,
        .params_size = sizeof(rt_embedding_lookup_sparse_params_t),
        .parse = els_parse,
        .prepare = els_prepare,
        .invoke = els_invoke,
};
