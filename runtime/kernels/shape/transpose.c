/* SPDX-License-Identifier: Apache-2.0 */
/* TRANSPOSE, REVERSE_V2, TILE and BROADCAST_TO: index remapping ops. */
#include <stdlib.h>
#include <string.h>

#include "shape-internal.h"

/*
 * Everything these ops need to run shape__copy_mapped: output shape,
 * per-dimension input strides (maybe permuted, zero or negative), an input
 * base offset, and for TILE the modular index maps.
 */
typedef struct remap {
        int32_t rank;
        int32_t dims[RT_MAX_RANK];
        int64_t strides[RT_MAX_RANK];
        int64_t base;
        bool tile;
} remap_t;

typedef int (*remap_fn)(rt_context_t *ctx, const rt_node_t *node, remap_t *ret);

static int remap_prepare(rt_context_t *ctx, rt_node_t *node, const char *op, remap_fn fn) {
        const rt_tensor_t *in = rt_node_input(ctx, node, 0);
        const rt_tensor_t *out = rt_node_output(ctx, node, 0);
        if (!in || !rt_node_input(ctx, node, 1) || !out)
                return rt_ctx_error(ctx, "%s needs two inputs and an output", op);
        size_t es;
        int r = in->type == RT_TYPE_STRING ? 0 : shape__elem_size(ctx, in, op, &es);
        if (r < 0)
                return r;
        if (in->type != out->type)
                return rt_ctx_error(ctx, "%s: output type %s differs from input type %s", op,
                                    rt_type_name(out->type), rt_type_name(in->type));
        if (!shape__inputs_const(ctx, node, 1))
                return shape__set_dynamic(ctx, node, 0);
        remap_t m;
        r = fn(ctx, node, &m);
        if (r < 0)
                return r;
        return rt_ctx_resize(ctx, node, 0, m.rank, m.dims);
}

static int remap_invoke(rt_context_t *ctx, rt_node_t *node, remap_fn fn) {
        const rt_tensor_t *in = rt_node_input(ctx, node, 0);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        remap_t m;
        int r = fn(ctx, node, &m);
        if (r < 0)
                return r;
        if (!shape__inputs_const(ctx, node, 1)) {
                r = rt_ctx_resize(ctx, node, 0, m.rank, m.dims);
                if (r < 0)
                        return r;
        }
        size_t es = rt_type_size(in->type);
        if (!shape__has_data(in, es) || !shape__has_data(out, es))
                return rt_ctx_error(ctx, "input or output has no data");
        if (rt_tensor_count(out) == 0 && in->type != RT_TYPE_STRING)
                return 0;
        if (!m.tile && in->type == RT_TYPE_STRING)
                return shape__string_mapped(ctx, in, out, m.base, m.rank, m.dims, NULL, m.strides);
        if (!m.tile)
                return shape__copy_mapped(out->data, (const uint8_t *) in->data + m.base * (int64_t) es, es,
                                          m.rank, m.dims, NULL, m.strides, NULL);
        size_t total = 0;
        for (int32_t d = 0; d < m.rank; d++)
                total += (size_t) m.dims[d];
        int32_t *buf = malloc((total ? total : 1) * sizeof(int32_t));
        if (!buf)
                return -ENOMEM;
        int32_t *maps[RT_MAX_RANK], *p = buf;
        for (int32_t d = 0; d < m.rank; d++) {
                maps[d] = p;
                for (int32_t i = 0; i < m.dims[d]; i++)
                        p[i] = i % in->dims[d];
                p += m.dims[d];
        }
        if (in->type == RT_TYPE_STRING)
                r = shape__string_mapped(ctx, in, out, 0, m.rank, m.dims, maps, m.strides);
        else
                r = shape__copy_mapped(out->data, in->data, es, m.rank, m.dims, maps, m.strides, NULL);
        free(buf);
        return r;
}

/* ---- TRANSPOSE ---- */

static int transpose_map(rt_context_t *ctx, const rt_node_t *node, remap_t *ret) {
        const rt_tensor_t *in = rt_node_input(ctx, node, 0);
        int64_t perm[RT_MAX_RANK], strides[RT_MAX_RANK];
        int n = shape__read_ints(ctx, rt_node_input(ctx, node, 1), perm, RT_MAX_RANK);
        if (n < 0)
                return n;
        if (n != in->rank)
                return rt_ctx_error(ctx, "transpose: %d permutation entries for a rank-%d input", n, in->rank);
        shape__strides(in, strides);
        bool seen[RT_MAX_RANK] = { false };
        memset(ret, 0, sizeof(*ret));
        ret->rank = n;
        for (int32_t i = 0; i < n; i++) {
                if (perm[i] < 0 || perm[i] >= n || seen[perm[i]])
                        return rt_ctx_error(ctx, "transpose: permutation entry %lld is out of bounds or repeated",
                                            (long long) perm[i]);
                seen[perm[i]] = true;
                ret->dims[i] = in->dims[perm[i]];
                ret->strides[i] = strides[perm[i]];
        }
        return 0;
}

static int transpose_prepare(rt_context_t *ctx, rt_node_t *node) {
        return remap_prepare(ctx, node, "transpose", transpose_map);
}

static int transpose_invoke(rt_context_t *ctx, rt_node_t *node) {
        return remap_invoke(ctx, node, transpose_map);
}

const rt_registration_t rt_kernel_transpose = {
        .name = "TRANSPOSE",
        .op = SHAPE_OP_TRANSPOSE,
        .prepare = transpose_prepare,
        .invoke = transpose_invoke,
};

/* ---- REVERSE_V2 ---- */

static int reverse_map(rt_context_t *ctx, const rt_node_t *node, remap_t *ret) {
        const rt_tensor_t *in = rt_node_input(ctx, node, 0);
        int64_t axes[RT_MAX_RANK];
        int n = shape__read_ints(ctx, rt_node_input(ctx, node, 1), axes, RT_MAX_RANK);
        if (n < 0)
                return n;
        memset(ret, 0, sizeof(*ret));
        ret->rank = in->rank;
        memcpy(ret->dims, in->dims, sizeof(ret->dims));
        shape__strides(in, ret->strides);
        bool flip[RT_MAX_RANK] = { false };
        for (int32_t i = 0; i < n; i++) {
                int64_t a = axes[i] < 0 ? axes[i] + in->rank : axes[i];
                if (a < 0 || a >= in->rank)
                        return rt_ctx_error(ctx, "reverse_v2: axis %lld out of range for rank %d",
                                            (long long) axes[i], in->rank);
                flip[a] = true;
        }
        for (int32_t d = 0; d < in->rank; d++) {
                if (!flip[d] || in->dims[d] == 0)
                        continue;
                ret->base += (int64_t) (in->dims[d] - 1) * ret->strides[d];
                ret->strides[d] = -ret->strides[d];
        }
        return 0;
}

static int reverse_prepare(rt_context_t *ctx, rt_node_t *node) {
        return remap_prepare(ctx, node, "reverse_v2", reverse_map);
}

static int reverse_invoke(rt_context_t *ctx, rt_node_t *node) {
        return remap_invoke(ctx, node, reverse_map);
}

const rt_registration_t rt_kernel_reverse_v2 = {
        .name = "REVERSE_V2",
        .op = SHAPE_OP_REVERSE_V2,
        .prepare = reverse_prepare,
        .invoke = reverse_invoke,
};

/* ---- TILE ---- */

static int tile_map(rt_context_t *ctx, const rt_node_t *node, remap_t *ret) {
        const rt_tensor_t *in = rt_node_input(ctx, node, 0);
        int64_t mult[RT_MAX_RANK];
        int n = shape__read_ints(ctx, rt_node_input(ctx, node, 1), mult, RT_MAX_RANK);
        if (n < 0)
                return n;
        if (n != in->rank)
                return rt_ctx_error(ctx, "tile: %d multiples for a rank-%d input", n, in->rank);
        memset(ret, 0, sizeof(*ret));
        ret->rank = n;
        ret->tile = true;
        shape__strides(in, ret->strides);
        for (int32_t d = 0; d < n; d++) {
                if (mult[d] < 0 || mult[d] > INT32_MAX || mult[d] * in->dims[d] > INT32_MAX)
                        return rt_ctx_error(ctx, "tile: bad multiple %lld", (long long) mult[d]);
                int64_t o = mult[d] * in->dims[d];
                if (o > INT32_MAX)
                        return rt_ctx_error(ctx, "tile: bad multiple %lld", (long long) mult[d]);
                ret->dims[d] = (int32_t) o;
        }
        return 0;
}

static int tile_prepare(rt_context_t *ctx, rt_node_t *node) {
        return remap_prepare(ctx, node, "tile", tile_map);
}

static int tile_invoke(rt_context_t *ctx, rt_node_t *node) {
        return remap_invoke(ctx, node, tile_map);
}

const rt_registration_t rt_kernel_tile = {
        .name = "TILE",
        .op = SHAPE_OP_TILE,
        .prepare = tile_prepare,
        .invoke = tile_invoke,
};

/* ---- BROADCAST_TO ---- */

static int broadcast_map(rt_context_t *ctx, const rt_node_t *node, remap_t *ret) {
        const rt_tensor_t *in = rt_node_input(ctx, node, 0);
        int64_t shape[RT_MAX_RANK], strides[RT_MAX_RANK];
        int n = shape__read_ints(ctx, rt_node_input(ctx, node, 1), shape, RT_MAX_RANK);
        if (n < 0)
                return n;
        if (n < in->rank)
                return rt_ctx_error(ctx, "broadcast_to: shape rank %d below input rank %d", n, in->rank);
        shape__strides(in, strides);
        memset(ret, 0, sizeof(*ret));
        ret->rank = n;
        int32_t off = n - in->rank;
        for (int32_t d = 0; d < n; d++) {
                if (shape[d] < 0 || shape[d] > INT32_MAX)
                        return rt_ctx_error(ctx, "broadcast_to: bad dimension %lld", (long long) shape[d]);
                ret->dims[d] = (int32_t) shape[d];
                if (d < off)
                        continue;
                int32_t id = in->dims[d - off];
                if (id != shape[d] && id != 1)
                        return rt_ctx_error(ctx, "broadcast_to: cannot broadcast dimension %d (%d) to %lld", d - off,
                                            id, (long long) shape[d]);
                ret->strides[d] = id == 1 ? 0 : strides[d - off];
        }
        return 0;
}

static int broadcast_prepare(rt_context_t *ctx, rt_node_t *node) {
        return remap_prepare(ctx, node, "broadcast_to", broadcast_map);
}

static int broadcast_invoke(rt_context_t *ctx, rt_node_t *node) {
        return remap_invoke(ctx, node, broadcast_map);
}

const rt_registration_t rt_kernel_broadcast_to = {
        .name = "BROADCAST_TO",
        .op = SHAPE_OP_BROADCAST_TO,
        .prepare = broadcast_prepare,
        .invoke = broadcast_invoke,
};
