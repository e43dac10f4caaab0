/* SPDX-License-Identifier: Apache-2.0 */
/* SLICE and STRIDED_SLICE. */
#include <string.h>

#include "shape-internal.h"

/*
 * A slice in "effective" dimensions (STRIDED_SLICE's new axes included):
 * element i of dimension d is input element start[d] + i * step[d].
 */
typedef struct slice_plan {
        int32_t rank;
        int32_t count[RT_MAX_RANK];
        int64_t start[RT_MAX_RANK];
        int64_t step[RT_MAX_RANK];
        int64_t in_stride[RT_MAX_RANK];  /* 0 for a new axis */
        int32_t out_rank;                /* without shrunk dimensions */
        int32_t out_dims[RT_MAX_RANK];
} slice_plan_t;

static int plan_copy(rt_context_t *ctx, const slice_plan_t *pl, const rt_tensor_t *in, rt_tensor_t *out) {
        size_t es = rt_type_size(in->type);
        size_t n = 1;
        for (int32_t d = 0; d < pl->rank; d++)
                n *= (size_t) pl->count[d];
        if (!shape__has_data(in, es) || !shape__has_data(out, es) || rt_tensor_count(out) != n)
                return rt_ctx_error(ctx, "slice: input or output has no data");
        if (n == 0 && in->type != RT_TYPE_STRING)
                return 0;
        int64_t base = 0, strides[RT_MAX_RANK];
        for (int32_t d = 0; d < pl->rank; d++) {
                base += pl->start[d] * pl->in_stride[d];
                strides[d] = pl->step[d] * pl->in_stride[d];
        }
        if (in->type == RT_TYPE_STRING)
                return shape__string_mapped(ctx, in, out, base, pl->rank, pl->count, NULL, strides);
        return shape__copy_mapped(out->data, (const uint8_t *) in->data + base * (int64_t) es, es, pl->rank,
                                  pl->count, NULL, strides, NULL);
}

static int check_io(rt_context_t *ctx, const rt_node_t *node, int32_t n_in, const char *op) {
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
        if (in->type == RT_TYPE_STRING)
                return 0;
        size_t es;
        return shape__elem_size(ctx, in, op, &es);
}

/* ---- SLICE ---- */

static int slice_plan(rt_context_t *ctx, const rt_node_t *node, slice_plan_t *pl) {
        const rt_tensor_t *in = rt_node_input(ctx, node, 0);
        int64_t begin[RT_MAX_RANK], size[RT_MAX_RANK];
        int nb = shape__read_ints(ctx, rt_node_input(ctx, node, 1), begin, RT_MAX_RANK);
        if (nb < 0)
                return nb;
        int ns = shape__read_ints(ctx, rt_node_input(ctx, node, 2), size, RT_MAX_RANK);
        if (ns < 0)
                return ns;
        if (nb != in->rank || ns != in->rank)
                return rt_ctx_error(ctx, "slice: begin/size have %d/%d entries for a rank-%d input", nb, ns,
                                    in->rank);
        int64_t strides[RT_MAX_RANK];
        shape__strides(in, strides);
        pl->rank = pl->out_rank = in->rank;
        for (int32_t d = 0; d < in->rank; d++) {
                int64_t b = begin[d], s = size[d];
                if (s == -1)
                        s = in->dims[d] - b;
                if (b < 0 || s < 0 || b > in->dims[d] || s > in->dims[d] - b)
                        return rt_ctx_error(ctx, "slice: begin %lld size %lld out of range for dimension %d (%d)",
                                            (long long) begin[d], (long long) size[d], d, in->dims[d]);
                pl->start[d] = b;
                pl->step[d] = 1;
                pl->count[d] = pl->out_dims[d] = (int32_t) s;
                pl->in_stride[d] = strides[d];
        }
        return 0;
}

static int slice_prepare(rt_context_t *ctx, rt_node_t *node) {
        int r = check_io(ctx, node, 3, "slice");
        if (r < 0)
                return r;
        if (!shape__inputs_const(ctx, node, 1))
                return shape__set_dynamic(ctx, node, 0);
        slice_plan_t pl;
        r = slice_plan(ctx, node, &pl);
        if (r < 0)
                return r;
        return rt_ctx_resize(ctx, node, 0, pl.out_rank, pl.out_dims);
}

static int slice_invoke(rt_context_t *ctx, rt_node_t *node) {
        slice_plan_t pl;
        int r = slice_plan(ctx, node, &pl);
        if (r < 0)
                return r;
        if (!shape__inputs_const(ctx, node, 1)) {
                r = rt_ctx_resize(ctx, node, 0, pl.out_rank, pl.out_dims);
                if (r < 0)
                        return r;
        }
        return plan_copy(ctx, &pl, rt_node_input(ctx, node, 0), rt_node_output(ctx, node, 0));
}

const rt_registration_t rt_kernel_slice = {
        .name = "SLICE",
        .op = SHAPE_OP_SLICE,
        .prepare = slice_prepare,
        .invoke = slice_invoke,
};

/* ---- STRIDED_SLICE ---- */

static int strided_slice_parse(const rt_node_t *node, void *ret_params, rt_context_t *ctx) {
        shape_strided_slice_params_t *p = ret_params;
        p->begin_mask = fbt_i32(node->options, 0, 0);
        p->end_mask = fbt_i32(node->options, 1, 0);
        p->ellipsis_mask = fbt_i32(node->options, 2, 0);
        p->new_axis_mask = fbt_i32(node->options, 3, 0);
        p->shrink_axis_mask = fbt_i32(node->options, 4, 0);
        p->offset = fbt_bool(node->options, 5, false);
        return 0;
}

static int64_t clamp64(int64_t v, int64_t lo, int64_t hi) {
        return v < lo ? lo : (v > hi ? hi : v);
}

/* TFLite's StartForAxis / StopForAxis (strided_slice_logic.h). */
static int64_t start_for_axis(int64_t start, bool masked, int64_t stride, int64_t size) {
        if (size == 0)
                return 0;
        if (masked)
                start = stride > 0 ? INT32_MIN : INT32_MAX;
        if (start < 0)
                start += size;
        return stride > 0 ? clamp64(start, 0, size) : clamp64(start, -1, size - 1);
}

static int64_t stop_for_axis(int64_t stop, bool masked, int64_t stride, int64_t size) {
        if (size == 0)
                return 0;
        if (masked)
                stop = stride > 0 ? INT32_MAX : INT32_MIN;
        if (stop < 0)
                stop += size;
        return stride > 0 ? clamp64(stop, 0, size) : clamp64(stop, -1, size - 1);
}

static int strided_slice_plan(rt_context_t *ctx, const rt_node_t *node, slice_plan_t *pl) {
        const shape_strided_slice_params_t *p = node->params;
        const shape_strided_slice_params_t zero = { 0 };
        const rt_tensor_t *in = rt_node_input(ctx, node, 0);
        int64_t begin[RT_MAX_RANK], end[RT_MAX_RANK], stride[RT_MAX_RANK];
        if (!p)
                p = &zero;
        int n = shape__read_ints(ctx, rt_node_input(ctx, node, 1), begin, RT_MAX_RANK);
        if (n < 0)
                return n;
        int ne = shape__read_ints(ctx, rt_node_input(ctx, node, 2), end, RT_MAX_RANK);
        if (ne < 0)
                return ne;
        int ns = shape__read_ints(ctx, rt_node_input(ctx, node, 3), stride, RT_MAX_RANK);
        if (ns < 0)
                return ns;
        if (ne != n || ns != n)
                return rt_ctx_error(ctx, "strided_slice: begin/end/strides have %d/%d/%d entries", n, ne, ns);
        for (int i = 0; i < n; i++) {
                /* TFLite computes in int32; clamping keeps int64 inputs from
                 * overflowing the index arithmetic below. */
                begin[i] = clamp64(begin[i], INT32_MIN, INT32_MAX);
                end[i] = clamp64(end[i], INT32_MIN, INT32_MAX);
                stride[i] = clamp64(stride[i], -INT32_MAX, INT32_MAX);
        }

        /* Expand the ellipsis and new axes into "effective" dimensions, as
         * TFLite's BuildStridedSliceParams does. */
        int32_t num_add_axis = 0;
        for (int32_t i = 0; i < n; i++)
                if (p->new_axis_mask & (1 << i))
                        num_add_axis++;
        int32_t eff = in->rank + num_add_axis;
        if (eff > RT_MAX_RANK)
                return rt_ctx_error(ctx, "strided_slice: %d dimensions after new axes", eff);
        uint32_t eff_ellipsis = 0, eff_new_axis = 0;
        int32_t ellipsis_start = eff, expanded = 0;
        for (int32_t i = 0; i < eff;) {
                if (p->ellipsis_mask & (1 << i)) {
                        ellipsis_start = i;
                        int32_t e = i + 1 + num_add_axis + in->rank - n;
                        if (e > eff)
                                e = eff;
                        if (e < i + 1)
                                e = i + 1;
                        expanded = e - ellipsis_start - 1;
                        for (; i < e; i++)
                                eff_ellipsis |= 1u << i;
                        continue;
                }
                if (i - expanded >= 0 && (p->new_axis_mask & (1 << (i - expanded))))
                        eff_new_axis |= 1u << i;
                i++;
        }

        int64_t in_strides[RT_MAX_RANK];
        shape__strides(in, in_strides);
        int32_t added_ellipsis = 0, added_axes = 0;
        pl->rank = eff;
        pl->out_rank = 0;
        for (int32_t i = 0; i < eff; i++) {
                int64_t b = 0, e = 0, s = 1, size;
                bool bm = false, em = false, shrink = false;
                int64_t is;
                if (eff_ellipsis & (1u << i)) {
                        added_ellipsis = i - ellipsis_start > 0 ? i - ellipsis_start : 0;
                        bm = em = true;
                        size = in->dims[i - added_axes];
                        is = in_strides[i - added_axes];
                } else if (eff_new_axis & (1u << i)) {
                        b = 0;
                        e = 1;
                        size = 1;
                        is = 0;
                        added_axes++;
                } else if (i >= n + added_ellipsis) {
                        bm = em = true;
                        size = in->dims[i - added_axes];
                        is = in_strides[i - added_axes];
                } else {
                        int32_t o = i - added_ellipsis;
                        b = begin[o];
                        e = end[o];
                        s = stride[o];
                        bm = p->begin_mask & (1 << o);
                        em = p->end_mask & (1 << o);
                        shrink = p->shrink_axis_mask & (1 << o);
                        size = in->dims[i - added_axes];
                        is = in_strides[i - added_axes];
                }
                if (s == 0)
                        return rt_ctx_error(ctx, "strided_slice: stride value has to be non-zero");
                int64_t start = start_for_axis(b, bm, s, size);
                int64_t count;
                if (shrink) {
                        if (start < 0 || start >= size)
                                return rt_ctx_error(ctx, "strided_slice: shrunk index %lld out of range (%lld)",
                                                    (long long) b, (long long) size);
                        count = 1;
                } else {
                        /* offset: end counts from the (adjusted) begin */
                        if (p->offset && !(eff_ellipsis & (1u << i)) && !(eff_new_axis & (1u << i)) &&
                            i < n + added_ellipsis)
                                e += start;
                        int64_t stop = stop_for_axis(e, em, s, size);
                        int64_t diff = stop - start;
                        /* ceil(diff / s) for either sign of s */
                        count = s > 0 ? (diff > 0 ? (diff + s - 1) / s : 0) : (diff < 0 ? (-diff + -s - 1) / -s : 0);
                        pl->out_dims[pl->out_rank++] = (int32_t) count;
                }
                pl->count[i] = (int32_t) count;
                pl->start[i] = count ? start : 0;
                pl->step[i] = s;
                pl->in_stride[i] = is;
        }
        return 0;
}

static int strided_slice_prepare(rt_context_t *ctx, rt_node_t *node) {
        int r = check_io(ctx, node, 4, "strided_slice");
        if (r < 0)
                return r;
        if (!shape__inputs_const(ctx, node, 1))
                return shape__set_dynamic(ctx, node, 0);
        slice_plan_t pl;
        r = strided_slice_plan(ctx, node, &pl);
        if (r < 0)
                return r;
        return rt_ctx_resize(ctx, node, 0, pl.out_rank, pl.out_dims);
}

static int strided_slice_invoke(rt_context_t *ctx, rt_node_t *node) {
        slice_plan_t pl;
        int r = strided_slice_plan(ctx, node, &pl);
        if (r < 0)
                return r;
        if (!shape__inputs_const(ctx, node, 1)) {
                r = rt_ctx_resize(ctx, node, 0, pl.out_rank, pl.out_dims);
                if (r < 0)
                        return r;
        }
        return plan_copy(ctx, &pl, rt_node_input(ctx, node, 0), rt_node_output(ctx, node, 0));
}

const rt_registration_t rt_kernel_strided_slice = {
        .name = "STRIDED_SLICE",
        .op = SHAPE_OP_STRIDED_SLICE,
        .params_size = sizeof(shape_strided_slice_params_t),
        .parse = strided_slice_parse,
        .prepare = strided_slice_prepare,
        .invoke = strided_slice_invoke,
};
