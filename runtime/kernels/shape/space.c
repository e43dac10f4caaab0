/* SPDX-License-Identifier: Apache-2.0 */
/* SPACE_TO_DEPTH, DEPTH_TO_SPACE, SPACE_TO_BATCH_ND, BATCH_TO_SPACE_ND. */
#include <string.h>

#include "shape-internal.h"

static int check_io(rt_context_t *ctx, const rt_node_t *node, int32_t n_in, const char *op, size_t *ret_es) {
        const rt_tensor_t *in = rt_node_input(ctx, node, 0);
        const rt_tensor_t *out = rt_node_output(ctx, node, 0);
        for (int32_t i = 0; i < n_in; i++)
                if (!rt_node_input(ctx, node, i))
                        return rt_ctx_error(ctx, "%s: input %d absent", op, i);
        if (!out)
                return rt_ctx_error(ctx, "%s: output absent", op);
        if (in->type != out->type)
                return rt_ctx_error(ctx, "%s: output type %s differs from input type %s", op,
                                    rt_type_name(out->type), rt_type_name(in->type));
        return shape__elem_size(ctx, in, op, ret_es);
}

/* ---- SPACE_TO_DEPTH / DEPTH_TO_SPACE ---- */

static int block_parse(const rt_node_t *node, void *ret_params, rt_context_t *ctx) {
        shape_block_params_t *p = ret_params;
        p->block_size = fbt_i32(node->options, 0, 0);
        return 0;
}

static int depth_prepare(rt_context_t *ctx, rt_node_t *node) {
        const shape_block_params_t *p = node->params;
        size_t es;
        bool to_depth = node->op == SHAPE_OP_SPACE_TO_DEPTH;
        const char *op = to_depth ? "space_to_depth" : "depth_to_space";
        int r = check_io(ctx, node, 1, op, &es);
        if (r < 0)
                return r;
        const rt_tensor_t *in = rt_node_input(ctx, node, 0);
        int32_t bs = p ? p->block_size : 0;
        if (in->rank != 4)
                return rt_ctx_error(ctx, "%s: input must be 4-D, not %d-D", op, in->rank);
        if (bs < 1)
                return rt_ctx_error(ctx, "%s: block_size %d must be positive", op, bs);
        int32_t dims[4] = { in->dims[0], 0, 0, 0 };
        if (to_depth) {
                if (in->dims[1] % bs || in->dims[2] % bs)
                        return rt_ctx_error(ctx, "%s: %dx%d not divisible by block %d", op, in->dims[1],
                                            in->dims[2], bs);
                dims[1] = in->dims[1] / bs;
                dims[2] = in->dims[2] / bs;
                dims[3] = in->dims[3] * bs * bs;
        } else {
                if (in->dims[3] % (bs * bs))
                        return rt_ctx_error(ctx, "%s: depth %d not divisible by %d", op, in->dims[3], bs * bs);
                dims[1] = in->dims[1] * bs;
                dims[2] = in->dims[2] * bs;
                dims[3] = in->dims[3] / (bs * bs);
        }
        return rt_ctx_resize(ctx, node, 0, 4, dims);
}

static int depth_invoke(rt_context_t *ctx, rt_node_t *node) {
        const shape_block_params_t *p = node->params;
        const rt_tensor_t *in = rt_node_input(ctx, node, 0);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        size_t es = rt_type_size(in->type);
        if (!shape__has_data(in, es) || !shape__has_data(out, es))
                return rt_ctx_error(ctx, "input or output has no data");
        bool to_depth = node->op == SHAPE_OP_SPACE_TO_DEPTH;
        /* Name the "space" tensor s (big H, W, small depth) and the "depth"
         * tensor d; both directions then move the same blocks. */
        const rt_tensor_t *s = to_depth ? in : out, *d = to_depth ? out : in;
        int32_t bs = p->block_size, c = s->dims[3];
        size_t run = (size_t) c * es;
        const uint8_t *src = in->data;
        uint8_t *dst = out->data;
        for (int32_t b = 0; b < d->dims[0]; b++)
                for (int32_t h = 0; h < d->dims[1]; h++)
                        for (int32_t w = 0; w < d->dims[2]; w++)
                                for (int32_t by = 0; by < bs; by++)
                                        for (int32_t bx = 0; bx < bs; bx++) {
                                                size_t so = (((size_t) b * s->dims[1] + (size_t) (h * bs + by)) *
                                                                     s->dims[2] + (size_t) (w * bs + bx)) * run;
                                                size_t dof = (((size_t) b * d->dims[1] + h) * d->dims[2] + w) *
                                                                     (size_t) d->dims[3] * es +
                                                             (size_t) (by * bs + bx) * run;
                                                if (to_depth)
                                                        memcpy(dst + dof, src + so, run);
                                                else
                                                        memcpy(dst + so, src + dof, run);
                                        }
        return 0;
}

const rt_registration_t rt_kernel_space_to_depth = {
        .name = "SPACE_TO_DEPTH",
        .op = SHAPE_OP_SPACE_TO_DEPTH,
        .params_size = sizeof(shape_block_params_t),
        .parse = block_parse,
        .prepare = depth_prepare,
        .invoke = depth_invoke,
};

const rt_registration_t rt_kernel_depth_to_space = {
        .name = "DEPTH_TO_SPACE",
        .op = SHAPE_OP_DEPTH_TO_SPACE,
        .params_size = sizeof(shape_block_params_t),
        .parse = block_parse,
        .prepare = depth_prepare,
        .invoke = depth_invoke,
};

/* ---- SPACE_TO_BATCH_ND / BATCH_TO_SPACE_ND ---- */

typedef struct batch_plan {
        int32_t m;                      /* number of spatial dimensions */
        int64_t block[RT_MAX_RANK];
        int64_t before[RT_MAX_RANK];    /* padding (s2b) or crop (b2s) at the start */
        int32_t rank;
        int32_t dims[RT_MAX_RANK];      /* output shape */
} batch_plan_t;

static int batch_plan(rt_context_t *ctx, const rt_node_t *node, batch_plan_t *pl) {
        bool to_batch = node->op == SHAPE_OP_SPACE_TO_BATCH_ND;
        const char *op = to_batch ? "space_to_batch_nd" : "batch_to_space_nd";
        const rt_tensor_t *in = rt_node_input(ctx, node, 0);
        int64_t pads[2 * RT_MAX_RANK];
        int m = shape__read_ints(ctx, rt_node_input(ctx, node, 1), pl->block, RT_MAX_RANK);
        if (m < 0)
                return m;
        if (m < 1 || m > in->rank - 1)
                return rt_ctx_error(ctx, "%s: %d block dimensions for a rank-%d input", op, m, in->rank);
        int np = shape__read_ints(ctx, rt_node_input(ctx, node, 2), pads, 2 * RT_MAX_RANK);
        if (np < 0)
                return np;
        if (np != 2 * m)
                return rt_ctx_error(ctx, "%s: %d %s values for %d block dimensions", op, np,
                                    to_batch ? "padding" : "crop", m);
        pl->m = m;
        pl->rank = in->rank;
        memcpy(pl->dims, in->dims, sizeof(pl->dims));
        int64_t prod = 1;
        for (int32_t i = 0; i < m; i++) {
                int64_t b = pl->block[i], lo = pads[2 * i], hi = pads[2 * i + 1];
                int64_t n = in->dims[i + 1];
                if (b < 1 || lo < 0 || hi < 0 || b > INT32_MAX || lo > INT32_MAX || hi > INT32_MAX)
                        return rt_ctx_error(ctx, "%s: bad block %lld or %s %lld/%lld", op, (long long) b,
                                            to_batch ? "padding" : "crop", (long long) lo, (long long) hi);
                int64_t o;
                if (to_batch) {
                        if ((n + lo + hi) % b)
                                return rt_ctx_error(ctx, "%s: padded size %lld not divisible by block %lld", op,
                                                    (long long) (n + lo + hi), (long long) b);
                        o = (n + lo + hi) / b;
                } else {
                        o = n * b - lo - hi;
                        if (o < 0)
                                return rt_ctx_error(ctx, "%s: crops larger than the output", op);
                }
                if (o > INT32_MAX)
                        return rt_ctx_error(ctx, "%s: output too large", op);
                pl->before[i] = lo;
                pl->dims[i + 1] = (int32_t) o;
                prod *= b;
                if (prod > INT32_MAX)
                        return rt_ctx_error(ctx, "%s: block too large", op);
        }
        if (to_batch) {
                if ((int64_t) in->dims[0] * prod > INT32_MAX)
                        return rt_ctx_error(ctx, "%s: output batch too large", op);
                pl->dims[0] = (int32_t) (in->dims[0] * prod);
        } else {
                if (in->dims[0] % prod)
                        return rt_ctx_error(ctx, "%s: batch %d not divisible by block product %lld", op,
                                            in->dims[0], (long long) prod);
                pl->dims[0] = (int32_t) (in->dims[0] / prod);
        }
        return 0;
}

static int batch_prepare(rt_context_t *ctx, rt_node_t *node) {
        bool to_batch = node->op == SHAPE_OP_SPACE_TO_BATCH_ND;
        size_t es;
        int r = check_io(ctx, node, 3, to_batch ? "space_to_batch_nd" : "batch_to_space_nd", &es);
        if (r < 0)
                return r;
        if (!shape__inputs_const(ctx, node, 1))
                return shape__set_dynamic(ctx, node, 0);
        batch_plan_t pl;
        r = batch_plan(ctx, node, &pl);
        if (r < 0)
                return r;
        return rt_ctx_resize(ctx, node, 0, pl.rank, pl.dims);
}

static int batch_invoke(rt_context_t *ctx, rt_node_t *node) {
        bool to_batch = node->op == SHAPE_OP_SPACE_TO_BATCH_ND;
        const rt_tensor_t *in = rt_node_input(ctx, node, 0);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        batch_plan_t pl;
        int r = batch_plan(ctx, node, &pl);
        if (r < 0)
                return r;
        if (!shape__inputs_const(ctx, node, 1)) {
                r = rt_ctx_resize(ctx, node, 0, pl.rank, pl.dims);
                if (r < 0)
                        return r;
        }
        size_t es = rt_type_size(in->type);
        if (!shape__has_data(in, es) || !shape__has_data(out, es))
                return rt_ctx_error(ctx, "input or output has no data");
        if (rt_tensor_count(out) == 0 || rt_tensor_count(in) == 0)
                return 0;

        /* The space tensor s has the large spatial dimensions, the batch
         * tensor t the small ones; t's batch index encodes the position in
         * the block. Walk t and copy to or from s. */
        const rt_tensor_t *s = to_batch ? in : out, *t = to_batch ? out : in;
        size_t run = es;
        for (int32_t i = pl.m + 1; i < in->rank; i++)
                run *= (size_t) in->dims[i];
        int64_t s_stride[RT_MAX_RANK], t_stride[RT_MAX_RANK];
        shape__strides(s, s_stride);
        shape__strides(t, t_stride);
        uint8_t pad[16] = { 0 };
        if (to_batch && out->quant.n > 0) {
                if (out->type == RT_TYPE_UINT8 || out->type == RT_TYPE_INT8)
                        pad[0] = (uint8_t) out->zero_point;
                else if (out->type == RT_TYPE_INT16) {
                        int16_t z = (int16_t) out->zero_point;
                        memcpy(pad, &z, 2);
                }
        }
        bool zero_pad = true;
        for (size_t k = 0; k < sizeof(pad); k++)
                zero_pad = zero_pad && pad[k] == 0;
        int32_t sb = s->dims[0];
        const uint8_t *src = in->data;
        uint8_t *dst = out->data;
        for (int32_t tb = 0; tb < t->dims[0]; tb++) {
                int64_t shift[RT_MAX_RANK];
                int32_t off = tb / sb;
                for (int32_t i = pl.m - 1; i >= 0; i--) {
                        shift[i] = off % pl.block[i];
                        off = (int32_t) (off / pl.block[i]);
                }
                /* Rows over the first m - 1 block dimensions; along the
                 * last one the space position advances by its block. A
                 * row of t is contiguous (run bytes per position). */
                const int32_t last = pl.m - 1;
                const int32_t len = t->dims[last + 1];
                size_t rows = 1;
                for (int32_t i = 0; i < last; i++)
                        rows *= (size_t) t->dims[i + 1];
                int32_t idx[RT_MAX_RANK] = { 0 };
                for (size_t row = 0; row < rows; row++) {
                        bool row_inside = true;
                        int64_t so = (int64_t) (tb % sb) * s_stride[0];
                        int64_t to = (int64_t) tb * t_stride[0];
                        for (int32_t i = 0; i < last; i++) {
                                int64_t sp = idx[i] * pl.block[i] + shift[i] - pl.before[i];
                                if (sp < 0 || sp >= s->dims[i + 1])
                                        row_inside = false;
                                so += sp * s_stride[i + 1];
                                to += (int64_t) idx[i] * t_stride[i + 1];
                        }
                        if (!row_inside) {
                                /* Padding only (space to batch), or nothing
                                 * to copy (batch to space: cropped). */
                                if (to_batch && zero_pad)
                                        memset(dst + to * (int64_t) es, 0, run * (size_t) len);
                                else if (to_batch)
                                        for (size_t k = 0; k < run * (size_t) len; k += es)
                                                memcpy(dst + to * (int64_t) es + k, pad, es);
                        } else {
                                int64_t sp = shift[last] - pl.before[last];
                                for (int32_t q = 0; q < len; q++, sp += pl.block[last]) {
                                        const bool inside = sp >= 0 && sp < s->dims[last + 1];
                                        const int64_t sq = so + sp * s_stride[last + 1];
                                        const int64_t tq = to + (int64_t) q * t_stride[last + 1];
                                        if (to_batch) {
                                                uint8_t *o = dst + tq * (int64_t) es;
                                                if (inside)
                                                        memcpy(o, src + sq * (int64_t) es, run);
                                                else if (zero_pad)
                                                        memset(o, 0, run);
                                                else
                                                        for (size_t k = 0; k < run; k += es)
                                                                memcpy(o + k, pad, es);
                                        } else if (inside) {
                                                memcpy(dst + sq * (int64_t) es, src + tq * (int64_t) es, run);
                                        }
                                }
                        }
                        for (int32_t i = last - 1; i >= 0; i--) {
                                if (++idx[i] < t->dims[i + 1])
                                        break;
                                idx[i] = 0;
                        }
                }
        }
        return 0;
}

const rt_registration_t rt_kernel_space_to_batch_nd = {
        .name = "SPACE_TO_BATCH_ND",
        .op = SHAPE_OP_SPACE_TO_BATCH_ND,
        .prepare = batch_prepare,
        .invoke = batch_invoke,
};

const rt_registration_t rt_kernel_batch_to_space_nd = {
        .name = "BATCH_TO_SPACE_ND",
        .op = SHAPE_OP_BATCH_TO_SPACE_ND,
        .prepare = batch_prepare,
        .invoke = batch_invoke,
};
