/* SPDX-License-Identifier: Apache-2.0 */
/* RESHAPE, SQUEEZE, EXPAND_DIMS and SHAPE: ops that only change the shape. */
#include <stdlib.h>
#include <string.h>

#include "shape-internal.h"

/*
 * String tensors keep TFLite's serialized layout (count, offsets, bytes),
 * which does not depend on the shape: copy the whole buffer. The output
 * buffer is the kernel's to size (TFLite's TfLiteTensorRealloc); the
 * executor adopts a realloc()ed RT_ALLOC_DYNAMIC buffer.
 */
static int copy_string_buffer(rt_context_t *ctx, const rt_tensor_t *in, rt_tensor_t *out) {
        if (!in->data && in->bytes)
                return rt_ctx_error(ctx, "string input has no data");
        if (out->data == in->data)
                return 0;
        if (!out->data || out->bytes < in->bytes) {
                size_t n = in->bytes ? in->bytes : 1;
                void *p = out->alloc == RT_ALLOC_DYNAMIC ? realloc(out->data, n) : malloc(n);
                if (!p)
                        return -ENOMEM;
                out->data = p;
                out->alloc = RT_ALLOC_DYNAMIC;
        }
        out->bytes = in->bytes;
        if (in->bytes)
                memcpy(out->data, in->data, in->bytes);
        return 0;
}

/* Output data = input data; the shapes have the same element count. */
static int copy_through(rt_context_t *ctx, const rt_tensor_t *in, rt_tensor_t *out) {
        if (in->type == RT_TYPE_STRING)
                return copy_string_buffer(ctx, in, out);
        size_t es;
        int r = shape__elem_size(ctx, in, "reshape", &es);
        if (r < 0)
                return r;
        size_t bytes = rt_tensor_count(in) * es;
        if (!shape__has_data(in, es) || !shape__has_data(out, es) || rt_tensor_count(out) * es != bytes)
                return rt_ctx_error(ctx, "input or output has no data");
        if (bytes && out->data != in->data)
                memmove(out->data, in->data, bytes);
        return 0;
}

/* ---- RESHAPE ---- */

static int reshape_parse(const rt_node_t *node, void *ret_params, rt_context_t *ctx) {
        shape_reshape_params_t *p = ret_params;
        p->rank = -1;
        if (!fbt_has(node->options, 0))
                return 0;
        fbt_vec_t v = fbt_vector(node->options, 0, 4);
        if (v.n > RT_MAX_RANK)
                return rt_ctx_error(ctx, "new_shape has %u dimensions, at most %d supported", v.n,
                                    RT_MAX_RANK);
        p->rank = (int32_t) v.n;
        for (uint32_t i = 0; i < v.n; i++)
                p->dims[i] = fbt_vec_i32(v, i);
        return 0;
}

/* Where the new shape comes from, as TFLite decides it: an int32 vector
 * shape input wins, otherwise the options (or an int64 shape input). */
static const rt_tensor_t *reshape_shape_input(rt_context_t *ctx, const rt_node_t *node) {
        const rt_tensor_t *s = rt_node_input(ctx, node, 1);
        const shape_reshape_params_t *p = node->params;
        if (!s)
                return NULL;
        if (s->rank == 1 && s->type == RT_TYPE_INT32)
                return s;
        if (p && p->rank >= 0)
                return NULL;
        return s;
}

static int reshape_compute(rt_context_t *ctx, const rt_node_t *node, int32_t *ret_rank, int32_t *ret_dims) {
        const rt_tensor_t *in = rt_node_input(ctx, node, 0);
        const rt_tensor_t *s = reshape_shape_input(ctx, node);
        const shape_reshape_params_t *p = node->params;
        int64_t want[RT_MAX_RANK];
        int32_t rank;

        if (s) {
                int n = shape__read_ints(ctx, s, want, RT_MAX_RANK);
                if (n < 0)
                        return n;
                rank = n;
        } else if (p && p->rank >= 0) {
                rank = p->rank;
                for (int32_t i = 0; i < rank; i++)
                        want[i] = p->dims[i];
                /* TFLite's legacy encoding of a scalar: new_shape = [0]. */
                if (rank == 1 && want[0] == 0)
                        rank = 0;
        } else {
                return rt_ctx_error(ctx, "reshape has neither a shape input nor new_shape");
        }

        size_t in_count = rt_tensor_count(in), out_count = 1;
        int32_t stretch = -1;
        for (int32_t i = 0; i < rank; i++) {
                if (want[i] == -1) {
                        if (stretch >= 0)
                                return rt_ctx_error(ctx, "reshape: more than one -1 in the new shape");
                        stretch = i;
                        continue;
                }
                if (want[i] < 0 || want[i] > INT32_MAX)
                        return rt_ctx_error(ctx, "reshape: bad dimension %lld", (long long) want[i]);
                ret_dims[i] = (int32_t) want[i];
                if (__builtin_mul_overflow(out_count, (size_t) want[i], &out_count))
                        return rt_ctx_error(ctx, "reshape: new shape too large");
        }
        if (stretch >= 0) {
                if (out_count == 0)
                        return rt_ctx_error(ctx, "reshape: cannot infer -1 with a zero-sized shape");
                ret_dims[stretch] = (int32_t) (in_count / out_count);
                out_count *= (size_t) ret_dims[stretch];
        }
        if (out_count != in_count)
                return rt_ctx_error(ctx, "reshape: %zu elements cannot become %zu", in_count, out_count);
        *ret_rank = rank;
        return 0;
}

static int reshape_resize(rt_context_t *ctx, rt_node_t *node) {
        int32_t rank = 0, dims[RT_MAX_RANK];
        int r = reshape_compute(ctx, node, &rank, dims);
        if (r < 0)
                return r;
        return rt_ctx_resize(ctx, node, 0, rank, dims);
}

static int reshape_prepare(rt_context_t *ctx, rt_node_t *node) {
        const rt_tensor_t *in = rt_node_input(ctx, node, 0);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        if (!in || !out)
                return rt_ctx_error(ctx, "reshape needs an input and an output");
        if (in->type != out->type)
                return rt_ctx_error(ctx, "reshape: output type %s differs from input type %s",
                                    rt_type_name(out->type), rt_type_name(in->type));
        const rt_tensor_t *s = reshape_shape_input(ctx, node);
        if (s && !rt_tensor_is_const(s))
                return shape__set_dynamic(ctx, node, 0);
        return reshape_resize(ctx, node);
}

static int reshape_invoke(rt_context_t *ctx, rt_node_t *node) {
        const rt_tensor_t *in = rt_node_input(ctx, node, 0);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        const rt_tensor_t *s = reshape_shape_input(ctx, node);
        int r;
        if (s && !rt_tensor_is_const(s)) {
                r = reshape_resize(ctx, node);
                if (r < 0)
                        return r;
        }
        return copy_through(ctx, in, out);
}

const rt_registration_t rt_kernel_reshape = {
        .name = "RESHAPE",
        .op = SHAPE_OP_RESHAPE,
        .params_size = sizeof(shape_reshape_params_t),
        .parse = reshape_parse,
        .prepare = reshape_prepare,
        .invoke = reshape_invoke,
};

/* ---- SQUEEZE ---- */

static int squeeze_parse(const rt_node_t *node, void *ret_params, rt_context_t *ctx) {
        shape_squeeze_params_t *p = ret_params;
        fbt_vec_t v = fbt_vector(node->options, 0, 4);
        if (v.n > RT_MAX_RANK)
                return rt_ctx_error(ctx, "squeeze_dims has %u entries", v.n);
        p->n = (int32_t) v.n;
        for (uint32_t i = 0; i < v.n; i++)
                p->dims[i] = fbt_vec_i32(v, i);
        return 0;
}

static int squeeze_prepare(rt_context_t *ctx, rt_node_t *node) {
        const rt_tensor_t *in = rt_node_input(ctx, node, 0);
        const shape_squeeze_params_t *p = node->params;
        if (!in || !rt_node_output(ctx, node, 0))
                return rt_ctx_error(ctx, "squeeze needs an input and an output");
        if (rt_node_output(ctx, node, 0)->type != in->type)
                return rt_ctx_error(ctx, "squeeze: output type differs from input type");
        bool drop[RT_MAX_RANK] = { false };
        int32_t n = p ? p->n : 0;
        if (n == 0) {
                for (int32_t i = 0; i < in->rank; i++)
                        drop[i] = in->dims[i] == 1;
        }
        for (int32_t i = 0; i < n; i++) {
                int32_t d = p->dims[i] < 0 ? p->dims[i] + in->rank : p->dims[i];
                if (d < 0 || d >= in->rank || in->dims[d] != 1)
                        return rt_ctx_error(ctx, "squeeze: cannot squeeze dimension %d of a rank-%d input",
                                            p->dims[i], in->rank);
                drop[d] = true;
        }
        int32_t rank = 0, dims[RT_MAX_RANK];
        for (int32_t i = 0; i < in->rank; i++)
                if (!drop[i])
                        dims[rank++] = in->dims[i];
        return rt_ctx_resize(ctx, node, 0, rank, dims);
}

static int squeeze_invoke(rt_context_t *ctx, rt_node_t *node) {
        return copy_through(ctx, rt_node_input(ctx, node, 0), rt_node_output(ctx, node, 0));
}

const rt_registration_t rt_kernel_squeeze = {
        .name = "SQUEEZE",
        .op = SHAPE_OP_SQUEEZE,
        .params_size = sizeof(shape_squeeze_params_t),
        .parse = squeeze_parse,
        .prepare = squeeze_prepare,
        .invoke = squeeze_invoke,
};

/* ---- EXPAND_DIMS ---- */

static int expand_dims_resize(rt_context_t *ctx, rt_node_t *node) {
        const rt_tensor_t *in = rt_node_input(ctx, node, 0);
        const rt_tensor_t *axis_t = rt_node_input(ctx, node, 1);
        int64_t axis;
        if (!axis_t || rt_tensor_count(axis_t) != 1)
                return rt_ctx_error(ctx, "expand_dims: axis must be a single value");
        int r = shape__read_ints(ctx, axis_t, &axis, 1);
        if (r < 0)
                return r;
        if (axis < 0)
                axis += in->rank + 1;
        if (axis < 0 || axis > in->rank || in->rank >= RT_MAX_RANK)
                return rt_ctx_error(ctx, "expand_dims: axis out of range for a rank-%d input", in->rank);
        int32_t dims[RT_MAX_RANK];
        for (int32_t i = 0, j = 0; i <= in->rank; i++)
                dims[i] = i == axis ? 1 : in->dims[j++];
        return rt_ctx_resize(ctx, node, 0, in->rank + 1, dims);
}

static int expand_dims_prepare(rt_context_t *ctx, rt_node_t *node) {
        if (!rt_node_input(ctx, node, 0) || !rt_node_input(ctx, node, 1) || !rt_node_output(ctx, node, 0))
                return rt_ctx_error(ctx, "expand_dims needs input, axis and output");
        if (rt_node_output(ctx, node, 0)->type != rt_node_input(ctx, node, 0)->type)
                return rt_ctx_error(ctx, "expand_dims: output type differs from input type");
        if (!shape__inputs_const(ctx, node, 1))
                return shape__set_dynamic(ctx, node, 0);
        return expand_dims_resize(ctx, node);
}

static int expand_dims_invoke(rt_context_t *ctx, rt_node_t *node) {
        if (!shape__inputs_const(ctx, node, 1)) {
                int r = expand_dims_resize(ctx, node);
                if (r < 0)
                        return r;
        }
        return copy_through(ctx, rt_node_input(ctx, node, 0), rt_node_output(ctx, node, 0));
}

const rt_registration_t rt_kernel_expand_dims = {
        .name = "EXPAND_DIMS",
        .op = SHAPE_OP_EXPAND_DIMS,
        .prepare = expand_dims_prepare,
        .invoke = expand_dims_invoke,
};

/* ---- SHAPE ---- */

static int shape_parse(const rt_node_t *node, void *ret_params, rt_context_t *ctx) {
        shape_shape_params_t *p = ret_params;
        p->out_type = (rt_type_t) fbt_i8(node->options, 0, RT_TYPE_INT32);
        return 0;
}

static int shape_prepare(rt_context_t *ctx, rt_node_t *node) {
        const rt_tensor_t *in = rt_node_input(ctx, node, 0);
        const rt_tensor_t *out = rt_node_output(ctx, node, 0);
        if (!in || !out)
                return rt_ctx_error(ctx, "shape needs an input and an output");
        /* The output tensor's declared type is authoritative; out_type in
         * the options must agree with it when given. */
        if (out->type != RT_TYPE_INT32 && out->type != RT_TYPE_INT64)
                return rt_ctx_error(ctx, "shape: output type must be int32 or int64, not %s",
                                    rt_type_name(out->type));
        int32_t dims[1] = { in->rank };
        return rt_ctx_resize(ctx, node, 0, 1, dims);
}

static int shape_invoke(rt_context_t *ctx, rt_node_t *node) {
        const rt_tensor_t *in = rt_node_input(ctx, node, 0);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        if (!shape__has_data(out, rt_type_size(out->type)) || rt_tensor_count(out) != (size_t) in->rank)
                return rt_ctx_error(ctx, "shape: output not sized");
        for (int32_t i = 0; i < in->rank; i++) {
                if (out->type == RT_TYPE_INT32)
                        ((int32_t *) out->data)[i] = in->dims[i];
                else
                        ((int64_t *) out->data)[i] = in->dims[i];
        }
        return 0;
}

const rt_registration_t rt_kernel_shape = {
        .name = "SHAPE",
        .op = SHAPE_OP_SHAPE,
        .params_size = sizeof(shape_shape_params_t),
        .parse = shape_parse,
        .prepare = shape_prepare,
        .invoke = shape_invoke,
};
