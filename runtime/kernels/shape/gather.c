/* SPDX-License-Identifier: Apache-2.0 */
/* GATHER, GATHER_ND and EMBEDDING_LOOKUP. */
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "shape-internal.h"

static bool is_index_type(rt_type_t t) {
        return t == RT_TYPE_INT32 || t == RT_TYPE_INT64 || t == RT_TYPE_INT16;
}

static int64_t index_at(const rt_tensor_t *t, size_t i) {
        switch (t->type) {
        case RT_TYPE_INT64: return ((const int64_t *) t->data)[i];
        case RT_TYPE_INT16: return ((const int16_t *) t->data)[i];
        default: return ((const int32_t *) t->data)[i];
        }
}

static size_t prod(const int32_t *dims, int32_t from, int32_t to) {
        size_t p = 1;
        for (int32_t i = from; i < to; i++)
                p *= (size_t) dims[i];
        return p;
}

/* ---- GATHER ---- */

static int gather_parse(const rt_node_t *node, void *ret_params, rt_context_t *ctx) {
        shape_gather_params_t *p = ret_params;
        p->axis = fbt_i32(node->options, 0, 0);
        p->batch_dims = fbt_i32(node->options, 1, 0);
        return 0;
}

static int gather_axes(rt_context_t *ctx, const rt_node_t *node, int32_t *ret_axis, int32_t *ret_bd) {
        const shape_gather_params_t *p = node->params;
        const rt_tensor_t *in = rt_node_input(ctx, node, 0);
        const rt_tensor_t *idx = rt_node_input(ctx, node, 1);
        int32_t axis = p ? p->axis : 0, bd = p ? p->batch_dims : 0;
        if (axis < 0)
                axis += in->rank;
        if (bd < 0)
                bd += idx->rank;
        if (axis < 0 || axis >= in->rank)
                return rt_ctx_error(ctx, "gather: axis %d out of range for rank %d", p ? p->axis : 0, in->rank);
        if (bd < 0 || bd > axis || bd > idx->rank)
                return rt_ctx_error(ctx, "gather: batch_dims %d invalid (axis %d, indices rank %d)",
                                    p ? p->batch_dims : 0, axis, idx->rank);
        for (int32_t i = 0; i < bd; i++)
                if (in->dims[i] != idx->dims[i])
                        return rt_ctx_error(ctx, "gather: batch dimension %d differs (%d vs %d)", i, in->dims[i],
                                            idx->dims[i]);
        *ret_axis = axis;
        *ret_bd = bd;
        return 0;
}

static int gather_prepare(rt_context_t *ctx, rt_node_t *node) {
        const rt_tensor_t *in = rt_node_input(ctx, node, 0);
        const rt_tensor_t *idx = rt_node_input(ctx, node, 1);
        const rt_tensor_t *out = rt_node_output(ctx, node, 0);
        if (!in || !idx || !out)
                return rt_ctx_error(ctx, "gather needs params, indices and an output");
        size_t es;
        int r = in->type == RT_TYPE_STRING ? 0 : shape__elem_size(ctx, in, "gather", &es);
        if (r < 0)
                return r;
        if (!is_index_type(idx->type))
                return rt_ctx_error(ctx, "gather: indices must be int16/int32/int64, not %s",
                                    rt_type_name(idx->type));
        if (out->type != in->type)
                return rt_ctx_error(ctx, "gather: output type %s differs from input type %s",
                                    rt_type_name(out->type), rt_type_name(in->type));
        int32_t axis, bd;
        r = gather_axes(ctx, node, &axis, &bd);
        if (r < 0)
                return r;
        int32_t rank = in->rank - 1 + idx->rank - bd, dims[RT_MAX_RANK], k = 0;
        if (rank > RT_MAX_RANK)
                return rt_ctx_error(ctx, "gather: output rank %d too large", rank);
        for (int32_t i = 0; i < axis; i++)
                dims[k++] = in->dims[i];
        for (int32_t i = bd; i < idx->rank; i++)
                dims[k++] = idx->dims[i];
        for (int32_t i = axis + 1; i < in->rank; i++)
                dims[k++] = in->dims[i];
        return rt_ctx_resize(ctx, node, 0, rank, dims);
}

static int gather_invoke(rt_context_t *ctx, rt_node_t *node) {
        const rt_tensor_t *in = rt_node_input(ctx, node, 0);
        const rt_tensor_t *idx = rt_node_input(ctx, node, 1);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        int32_t axis, bd;
        int r = gather_axes(ctx, node, &axis, &bd);
        if (r < 0)
                return r;
        size_t es = rt_type_size(in->type);
        if (!shape__has_data(in, es) || !shape__has_data(idx, rt_type_size(idx->type)) ||
            !shape__has_data(out, es))
                return rt_ctx_error(ctx, "gather: input or output has no data");
        bool strings = in->type == RT_TYPE_STRING;
        _cleanup_free_ int32_t *iota = NULL, *sel = NULL;
        if (strings) {
                /* move int32 element indices instead, then build the strings */
                size_t n_in = rt_tensor_count(in), n_out = rt_tensor_count(out);
                iota = malloc((n_in ? n_in : 1) * sizeof(int32_t));
                sel = malloc((n_out ? n_out : 1) * sizeof(int32_t));
                if (!iota || !sel)
                        return -ENOMEM;
                for (size_t i = 0; i < n_in; i++)
                        iota[i] = (int32_t) i;
                es = sizeof(int32_t);
        }
        size_t batch = prod(in->dims, 0, bd), outer = prod(in->dims, bd, axis);
        size_t inner = prod(in->dims, axis + 1, in->rank) * es;
        size_t coords = prod(idx->dims, bd, idx->rank);
        int64_t axis_size = in->dims[axis];
        const uint8_t *src = strings ? (const uint8_t *) iota : in->data;
        uint8_t *o = strings ? (uint8_t *) sel : out->data;
        for (size_t b = 0; b < batch; b++)
                for (size_t k = 0; k < outer; k++)
                        for (size_t i = 0; i < coords; i++, o += inner) {
                                int64_t from = index_at(idx, b * coords + i);
                                if (from < 0 || from >= axis_size)
                                        return rt_ctx_error(ctx, "gather: index %lld out of range [0, %lld)",
                                                            (long long) from, (long long) axis_size);
                                memcpy(o, src + ((b * outer + k) * (size_t) axis_size + (size_t) from) * inner, inner);
                        }
        return strings ? shape__string_build(ctx, in, out, sel, rt_tensor_count(out)) : 0;
}

const rt_registration_t rt_kernel_gather = {
        .name = "GATHER",
        .op = SHAPE_OP_GATHER,
        .params_size = sizeof(shape_gather_params_t),
        .parse = gather_parse,
        .prepare = gather_prepare,
        .invoke = gather_invoke,
};

/* ---- GATHER_ND ---- */

static int gather_nd_prepare(rt_context_t *ctx, rt_node_t *node) {
        const rt_tensor_t *in = rt_node_input(ctx, node, 0);
        const rt_tensor_t *idx = rt_node_input(ctx, node, 1);
        const rt_tensor_t *out = rt_node_output(ctx, node, 0);
        if (!in || !idx || !out)
                return rt_ctx_error(ctx, "gather_nd needs params, indices and an output");
        size_t es;
        int r = in->type == RT_TYPE_STRING ? 0 : shape__elem_size(ctx, in, "gather_nd", &es);
        if (r < 0)
                return r;
        if (idx->type != RT_TYPE_INT32 && idx->type != RT_TYPE_INT64 && idx->type != RT_TYPE_INT16)
                return rt_ctx_error(ctx, "gather_nd: indices must be int16/int32/int64");
        if (out->type != in->type)
                return rt_ctx_error(ctx, "gather_nd: output type differs from input type");
        if (idx->rank < 1 || in->rank < 1)
                return rt_ctx_error(ctx, "gather_nd: params and indices need rank >= 1");
        int32_t nd = idx->dims[idx->rank - 1];
        if (nd > in->rank)
                return rt_ctx_error(ctx, "gather_nd: index depth %d exceeds params rank %d", nd, in->rank);
        int32_t rank = idx->rank - 1 + in->rank - nd, dims[RT_MAX_RANK], k = 0;
        if (rank > RT_MAX_RANK)
                return rt_ctx_error(ctx, "gather_nd: output rank %d too large", rank);
        for (int32_t i = 0; i < idx->rank - 1; i++)
                dims[k++] = idx->dims[i];
        for (int32_t i = nd; i < in->rank; i++)
                dims[k++] = in->dims[i];
        return rt_ctx_resize(ctx, node, 0, rank, dims);
}

static int gather_nd_invoke(rt_context_t *ctx, rt_node_t *node) {
        const rt_tensor_t *in = rt_node_input(ctx, node, 0);
        const rt_tensor_t *idx = rt_node_input(ctx, node, 1);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        size_t es = rt_type_size(in->type);
        if (!shape__has_data(in, es) || !shape__has_data(idx, rt_type_size(idx->type)) ||
            !shape__has_data(out, es))
                return rt_ctx_error(ctx, "gather_nd: input or output has no data");
        bool strings = in->type == RT_TYPE_STRING;
        _cleanup_free_ int32_t *iota = NULL, *sel = NULL;
        if (strings) {
                /* move int32 element indices instead, then build the strings */
                size_t n_in = rt_tensor_count(in), n_out = rt_tensor_count(out);
                iota = malloc((n_in ? n_in : 1) * sizeof(int32_t));
                sel = malloc((n_out ? n_out : 1) * sizeof(int32_t));
                if (!iota || !sel)
                        return -ENOMEM;
                for (size_t i = 0; i < n_in; i++)
                        iota[i] = (int32_t) i;
                es = sizeof(int32_t);
        }
        int32_t nd = idx->dims[idx->rank - 1];
        size_t slice = prod(in->dims, nd, in->rank) * es;
        size_t n = prod(idx->dims, 0, idx->rank - 1);
        const uint8_t *src = strings ? (const uint8_t *) iota : in->data;
        uint8_t *o = strings ? (uint8_t *) sel : out->data;
        for (size_t s = 0; s < n; s++, o += slice) {
                size_t off = 0;
                for (int32_t j = 0; j < nd; j++) {
                        int64_t v = index_at(idx, s * (size_t) nd + (size_t) j);
                        if (v < 0 || v >= in->dims[j])
                                return rt_ctx_error(ctx, "gather_nd: index %lld out of range for dimension %d (%d)",
                                                    (long long) v, j, in->dims[j]);
                        off = off * (size_t) in->dims[j] + (size_t) v;
                }
                memcpy(o, src + off * slice, slice);
        }
        return strings ? shape__string_build(ctx, in, out, sel, rt_tensor_count(out)) : 0;
}

const rt_registration_t rt_kernel_gather_nd = {
        .name = "GATHER_ND",
        .op = SHAPE_OP_GATHER_ND,
        .prepare = gather_nd_prepare,
        .invoke = gather_nd_invoke,
};

/* ---- EMBEDDING_LOOKUP ---- */

static bool embedding_hybrid(const rt_tensor_t *value, const rt_tensor_t *out) {
        return (value->type == RT_TYPE_UINT8 || value->type == RT_TYPE_INT8) && out->type == RT_TYPE_FLOAT32;
}

static int embedding_prepare(rt_context_t *ctx, rt_node_t *node) {
        const rt_tensor_t *ids = rt_node_input(ctx, node, 0);
        const rt_tensor_t *value = rt_node_input(ctx, node, 1);
        const rt_tensor_t *out = rt_node_output(ctx, node, 0);
        if (!ids || !value || !out)
                return rt_ctx_error(ctx, "embedding_lookup needs ids, values and an output");
        if (ids->type != RT_TYPE_INT32 || ids->rank != 1)
                return rt_ctx_error(ctx, "embedding_lookup: ids must be a 1-D int32 tensor");
        if (value->rank < 2)
                return rt_ctx_error(ctx, "embedding_lookup: values need rank >= 2");
        size_t es;
        int r = shape__elem_size(ctx, value, "embedding_lookup", &es);
        if (r < 0)
                return r;
        if (out->type != value->type && !embedding_hybrid(value, out))
                return rt_ctx_error(ctx, "embedding_lookup: output %s for values %s is not supported",
                                    rt_type_name(out->type), rt_type_name(value->type));
        int32_t dims[RT_MAX_RANK];
        memcpy(dims, value->dims, sizeof(dims));
        dims[0] = ids->dims[0];
        return rt_ctx_resize(ctx, node, 0, value->rank, dims);
}

static int embedding_invoke(rt_context_t *ctx, rt_node_t *node) {
        const rt_tensor_t *ids = rt_node_input(ctx, node, 0);
        const rt_tensor_t *value = rt_node_input(ctx, node, 1);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        size_t es = rt_type_size(value->type), oes = rt_type_size(out->type);
        if (!shape__has_data(ids, 4) || !shape__has_data(value, es) || !shape__has_data(out, oes))
                return rt_ctx_error(ctx, "embedding_lookup: input or output has no data");
        int32_t rows = value->dims[0];
        size_t cols = prod(value->dims, 1, value->rank);
        bool hybrid = embedding_hybrid(value, out);
        for (int32_t i = 0; i < ids->dims[0]; i++) {
                int32_t id = ((const int32_t *) ids->data)[i];
                if (id < 0 || id >= rows)
                        return rt_ctx_error(ctx, "embedding_lookup: id %d out of range [0, %d)", id, rows);
                if (!hybrid) {
                        memcpy((uint8_t *) out->data + (size_t) i * cols * es,
                               (const uint8_t *) value->data + (size_t) id * cols * es, cols * es);
                        continue;
                }
                /* TFLite's hybrid path reads the table as int8 whatever its
                 * declared type and ignores the zero point. */
                double scale = value->scale;
                if (value->quant.n > 1 && (size_t) id < value->quant.n)
                        scale = value->quant.scale[id];
                const int8_t *src = (const int8_t *) value->data + (size_t) id * cols;
                float *dst = (float *) out->data + (size_t) i * cols;
                for (size_t j = 0; j < cols; j++)
                        dst[j] = (float) (src[j] * scale);
        }
        return 0;
}

const rt_registration_t rt_kernel_embedding_lookup = {
        .name = "EMBEDDING_LOOKUP",
        .op = SHAPE_OP_EMBEDDING_LOOKUP,
        .prepare = embedding_prepare,
        .invoke = embedding_invoke,
};
