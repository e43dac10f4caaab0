/* SPDX-License-Identifier: Apache-2.0 */
/*
 * DENSIFY: expand a sparse constant tensor (TACO-style sparsity parameters:
 * traversal order, block map, per-level DENSE or SPARSE_CSR metadata) into a
 * dense tensor of the same type and shape (TFLite densify.cc and
 * sparsity/format_converter.cc, SparseToDense). Works for any element size
 * of 1, 2, 4 or 8 bytes (float32, float16, int8, ...).
 *
 * Every index, segment and source position is checked against the bounds of
 * the metadata arrays, the output and the compressed data.
 */
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "sequence.h"

#define DENSIFY_MAX_LEVELS (2 * RT_MAX_RANK)

typedef struct densify_walk {
        const rt_sparsity_t *sp;
        int32_t orig_rank;
        const int32_t *dense_shape;
        int32_t block_size[RT_MAX_RANK];
        int32_t indices[DENSIFY_MAX_LEVELS];
        const uint8_t *src;
        size_t src_count;
        size_t src_pos;
        uint8_t *dst;
        size_t dst_count;
        size_t elem;
        int error;
} densify_walk_t;

static bool sparse_index_get(const rt_sparse_index_t *v, uint32_t i, int64_t *ret) {
        if (!v->data || i >= v->n)
                return false;
        const uint8_t *p = (const uint8_t *) v->data + (size_t) i * v->elem_size;
        switch (v->elem_size) {
        case 1:
                *ret = *p;
                return true;
        case 2: {
                uint16_t x;
                memcpy(&x, p, 2);
                *ret = x;
                return true;
        }
        case 4: {
                int32_t x;
                memcpy(&x, p, 4);
                *ret = x;
                return true;
        }
        default:
                return false;
        }
}

static void densify_emit(densify_walk_t *w) {
        const rt_sparsity_t *sp = w->sp;
        int64_t orig_idx[RT_MAX_RANK] = { 0 };
        int32_t n = (int32_t) sp->n_traversal_order;
        int32_t i = 0;
        for (; i < w->orig_rank; i++)
                orig_idx[sp->traversal_order[i]] = w->indices[i];
        for (; i < n; i++) {
                int32_t b = sp->traversal_order[i] - w->orig_rank;
                int32_t od = sp->block_map[b];
                orig_idx[od] = orig_idx[od] * w->block_size[b] + w->indices[i];
        }
        size_t flat = 0;
        for (int32_t k = 0; k < w->orig_rank; k++) {
                if (orig_idx[k] < 0 || orig_idx[k] >= w->dense_shape[k]) {
                        w->error = -EINVAL;
                        return;
                }
                flat = flat * (size_t) w->dense_shape[k] + (size_t) orig_idx[k];
        }
        if (w->src_pos >= w->src_count || flat >= w->dst_count) {
                w->error = -EINVAL;
                return;
        }
        memcpy(w->dst + flat * w->elem, w->src + w->src_pos * w->elem, w->elem);
        w->src_pos++;
}

static void densify_populate(densify_walk_t *w, int32_t level, int64_t prev_idx) {
        if (w->error)
                return;
        const rt_sparsity_t *sp = w->sp;
        if (level == (int32_t) sp->n_traversal_order) {
                densify_emit(w);
                return;
        }
        const rt_dim_metadata_t *dm = &sp->dim_metadata[level];
        if (dm->format == RT_DIM_DENSE) {
                int32_t size = dm->dense_size;
                for (int32_t i = 0; i < size && !w->error; i++) {
                        w->indices[level] = i;
                        densify_populate(w, level + 1, prev_idx * size + i);
                }
                return;
        }
        int64_t seg_begin, seg_end;
        if (prev_idx < 0 || prev_idx + 1 >= (int64_t) dm->array_segments.n)
                return;  /* TFLite skips out-of-range segments silently */
        if (!sparse_index_get(&dm->array_segments, (uint32_t) prev_idx, &seg_begin) ||
            !sparse_index_get(&dm->array_segments, (uint32_t) prev_idx + 1, &seg_end)) {
                w->error = -EINVAL;
                return;
        }
        for (int64_t i = seg_begin; i < seg_end && !w->error; i++) {
                int64_t idx;
                if (i < 0 || !sparse_index_get(&dm->array_indices, (uint32_t) i, &idx) || idx > INT32_MAX) {
                        w->error = -EINVAL;
                        return;
                }
                w->indices[level] = (int32_t) idx;
                densify_populate(w, level + 1, i);
        }
}

/* Validate the sparsity structure against the dense shape; fill block sizes. */
static int densify_check(rt_context_t *ctx, const rt_tensor_t *in, densify_walk_t *w) {
        const rt_sparsity_t *sp = in->sparsity;
        int32_t rank = in->rank;
        uint32_t n = sp->n_traversal_order;
        if (n < (uint32_t) rank || n > DENSIFY_MAX_LEVELS || sp->n_dim_metadata != n ||
            sp->n_block_map != n - (uint32_t) rank || !sp->traversal_order || (sp->n_block_map && !sp->block_map))
                return rt_ctx_error(ctx, "DENSIFY: inconsistent sparsity parameters "
                                    "(%u traversal, %u block map, %u metadata, rank %d)",
                                    n, sp->n_block_map, sp->n_dim_metadata, rank);
        bool seen[DENSIFY_MAX_LEVELS] = { false };
        for (uint32_t i = 0; i < n; i++) {
                int32_t d = sp->traversal_order[i];
                if (d < 0 || (uint32_t) d >= n || seen[d] || (i < (uint32_t) rank) != (d < rank))
                        return rt_ctx_error(ctx, "DENSIFY: bad traversal order entry %d", d);
                seen[d] = true;
        }
        for (uint32_t b = 0; b < sp->n_block_map; b++) {
                if (sp->block_map[b] < 0 || sp->block_map[b] >= rank)
                        return rt_ctx_error(ctx, "DENSIFY: bad block map entry %d", sp->block_map[b]);
                w->block_size[b] = 0;
                for (uint32_t l = 0; l < n; l++)
                        if (sp->traversal_order[l] == rank + (int32_t) b)
                                w->block_size[b] = sp->dim_metadata[l].dense_size;
                if (w->block_size[b] <= 0)
                        return rt_ctx_error(ctx, "DENSIFY: block dimension %u has no dense size", b);
        }
        for (uint32_t l = 0; l < n; l++) {
                const rt_dim_metadata_t *dm = &sp->dim_metadata[l];
                if (dm->format == RT_DIM_DENSE) {
                        if (dm->dense_size < 0)
                                return rt_ctx_error(ctx, "DENSIFY: negative dense size at level %u", l);
                } else if (dm->format == RT_DIM_SPARSE_CSR) {
                        if (!dm->array_segments.data || !dm->array_indices.data)
                                return rt_ctx_error(ctx, "DENSIFY: level %u lacks segments or indices", l);
                } else {
                        return rt_ctx_error(ctx, "DENSIFY: unknown dimension format %d", dm->format);
                }
        }
        return 0;
}

static int densify_prepare(rt_context_t *ctx, rt_node_t *node) {
        if (node->n_inputs != 1 || node->n_outputs != 1)
                return rt_ctx_error(ctx, "DENSIFY: expected 1 input and 1 output");
        rt_tensor_t *in = rt_node_input(ctx, node, 0);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        if (!in || !out)
                return rt_ctx_error(ctx, "DENSIFY: missing tensor");
        if (!in->sparsity)
                return rt_ctx_error(ctx, "DENSIFY: input is not a sparse tensor");
        if (!rt_tensor_is_const(in))
                return rt_ctx_error(ctx, "DENSIFY: input must be a constant tensor");
        if (in->type != out->type)
                return rt_ctx_error(ctx, "DENSIFY: output type %s differs from input type %s",
                                    rt_type_name(out->type), rt_type_name(in->type));
        size_t es = rt_type_size(in->type);
        if (es != 1 && es != 2 && es != 4 && es != 8)
                return rt_ctx_error(ctx, "DENSIFY: type %s is not supported", rt_type_name(in->type));
        densify_walk_t w;
        memset(&w, 0, sizeof(w));
        int r = densify_check(ctx, in, &w);
        if (r < 0)
                return r;
        return rt_ctx_resize(ctx, node, 0, in->rank, in->dims);
}

static int densify_invoke(rt_context_t *ctx, rt_node_t *node) {
        rt_tensor_t *in = rt_node_input(ctx, node, 0);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        densify_walk_t w;
        memset(&w, 0, sizeof(w));
        int r = densify_check(ctx, in, &w);
        if (r < 0)
                return r;
        w.sp = in->sparsity;
        w.orig_rank = in->rank;
        w.dense_shape = in->dims;
        w.elem = rt_type_size(in->type);
        w.src = in->data;
        w.src_count = in->data ? in->bytes / w.elem : 0;
        w.dst = out->data;
        w.dst_count = rt_tensor_count(out);
        if (!w.dst || out->bytes < w.dst_count * w.elem)
                return rt_ctx_error(ctx, "DENSIFY: output buffer missing or too small");
        memset(w.dst, 0, w.dst_count * w.elem);
        densify_populate(&w, 0, 0);
        if (w.error)
                return rt_ctx_error(ctx, "DENSIFY: sparse index out of range (value %zu of %zu)", w.src_pos,
                                    w.src_count);
        return 0;
}

const rt_registration_t rt_kernel_densify = {
        .name = "DENSIFY",
        .op = RT_OP_DENSIFY,
        .prepare = densify_prepare,
        .invoke = densify_invoke,
};
