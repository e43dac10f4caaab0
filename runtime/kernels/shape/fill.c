/* SPDX-License-Identifier: Apache-2.0 */
/* FILL and RANGE: outputs made from scalars (FILL: strings too). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "shape-internal.h"

/* ---- FILL ---- */

static int fill_shape(rt_context_t *ctx, const rt_node_t *node, int32_t *ret_rank, int32_t *ret_dims) {
        int64_t dims[RT_MAX_RANK];
        const rt_tensor_t *d = rt_node_input(ctx, node, 0);
        if (d->rank != 1)
                return rt_ctx_error(ctx, "fill: dims must be 1-D");
        int n = shape__read_ints(ctx, d, dims, RT_MAX_RANK);
        if (n < 0)
                return n;
        for (int i = 0; i < n; i++) {
                if (dims[i] < 0 || dims[i] > INT32_MAX)
                        return rt_ctx_error(ctx, "fill: bad dimension %lld", (long long) dims[i]);
                ret_dims[i] = (int32_t) dims[i];
        }
        *ret_rank = n;
        return 0;
}

static int fill_prepare(rt_context_t *ctx, rt_node_t *node) {
        const rt_tensor_t *value = rt_node_input(ctx, node, 1);
        const rt_tensor_t *out = rt_node_output(ctx, node, 0);
        if (!rt_node_input(ctx, node, 0) || !value || !out)
                return rt_ctx_error(ctx, "fill needs dims, a value and an output");
        size_t es;
        /* Strings too (TFLite's FILL v3): built in invoke. */
        int r = value->type == RT_TYPE_STRING ? 0 : shape__elem_size(ctx, value, "fill", &es);
        if (r < 0)
                return r;
        if (rt_tensor_count(value) != 1 || value->type != out->type)
                return rt_ctx_error(ctx, "fill: value must be one element of the output type %s",
                                    rt_type_name(out->type));
        if (!rt_tensor_is_const(rt_node_input(ctx, node, 0)))
                return shape__set_dynamic(ctx, node, 0);
        int32_t rank, dims[RT_MAX_RANK];
        r = fill_shape(ctx, node, &rank, dims);
        if (r < 0)
                return r;
        return rt_ctx_resize(ctx, node, 0, rank, dims);
}

static int fill_invoke(rt_context_t *ctx, rt_node_t *node) {
        const rt_tensor_t *value = rt_node_input(ctx, node, 1);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        int r;
        if (!rt_tensor_is_const(rt_node_input(ctx, node, 0))) {
                int32_t rank, dims[RT_MAX_RANK];
                r = fill_shape(ctx, node, &rank, dims);
                if (r < 0)
                        return r;
                r = rt_ctx_resize(ctx, node, 0, rank, dims);
                if (r < 0)
                        return r;
        }
        size_t es = rt_type_size(out->type), n = rt_tensor_count(out);
        if (value->type == RT_TYPE_STRING) { /* n copies of string 0 */
                int32_t *idx = calloc(n ? n : 1, sizeof(int32_t));
                if (!idx)
                        return -ENOMEM;
                r = shape__string_build(ctx, value, out, idx, n);
                free(idx);
                return r;
        }
        if (!shape__has_data(value, es) || !shape__has_data(out, es))
                return rt_ctx_error(ctx, "fill: input or output has no data");
        uint8_t *o = out->data;
        for (size_t i = 0; i < n; i++)
                memcpy(o + i * es, value->data, es);
        return 0;
}

const rt_registration_t rt_kernel_fill = {
        .name = "FILL",
        .op = SHAPE_OP_FILL,
        .prepare = fill_prepare,
        .invoke = fill_invoke,
};

/* ---- RANGE ---- */

static int range_scalar(rt_context_t *ctx, const rt_tensor_t *t, double *ret_f, int64_t *ret_i) {
        if (rt_tensor_count(t) != 1 || !shape__has_data(t, rt_type_size(t->type)))
                return rt_ctx_error(ctx, "range: start, limit and delta must be scalars with data");
        switch (t->type) {
        case RT_TYPE_INT32: *ret_i = *(const int32_t *) t->data; break;
        case RT_TYPE_INT64: *ret_i = *(const int64_t *) t->data; break;
        case RT_TYPE_FLOAT32: *ret_f = *(const float *) t->data; break;
        default: return rt_ctx_error(ctx, "range: type %s not supported", rt_type_name(t->type));
        }
        return 0;
}

/* The element count, as TFLite's GetSize computes it. */
static int range_size(rt_context_t *ctx, const rt_node_t *node, int32_t *ret_n) {
        const rt_tensor_t *t[3];
        double f[3] = { 0 };
        int64_t v[3] = { 0 };
        for (int32_t i = 0; i < 3; i++) {
                t[i] = rt_node_input(ctx, node, i);
                int r = range_scalar(ctx, t[i], &f[i], &v[i]);
                if (r < 0)
                        return r;
        }
        bool is_float = t[0]->type == RT_TYPE_FLOAT32;
        if (!is_float) {
                if (v[2] == 0)
                        return rt_ctx_error(ctx, "range: delta must not be zero");
                for (int i = 0; i < 3; i++)
                        if (v[i] > INT64_MAX / 4 || v[i] < INT64_MIN / 4)
                                return rt_ctx_error(ctx, "range: values too large");
                if ((v[0] > v[1] && v[2] > 0) || (v[0] < v[1] && v[2] < 0))
                        return rt_ctx_error(ctx, "range: delta has the wrong sign");
                int64_t n = (llabs(v[1] - v[0]) + llabs(v[2]) - 1) / llabs(v[2]);
                if (n > INT32_MAX)
                        return rt_ctx_error(ctx, "range: too many elements");
                *ret_n = (int32_t) n;
        } else {
                float start = (float) f[0], limit = (float) f[1], delta = (float) f[2];
                if (delta == 0.0f)
                        return rt_ctx_error(ctx, "range: delta must not be zero");
                if ((start > limit && delta > 0) || (start < limit && delta < 0))
                        return rt_ctx_error(ctx, "range: delta has the wrong sign");
                float n = ceilf(fabsf((limit - start) / delta));
                if (!(n <= (float) INT32_MAX))
                        return rt_ctx_error(ctx, "range: too many elements");
                *ret_n = (int32_t) n;
        }
        return 0;
}

static int range_prepare(rt_context_t *ctx, rt_node_t *node) {
        const rt_tensor_t *out = rt_node_output(ctx, node, 0);
        for (int32_t i = 0; i < 3; i++) {
                const rt_tensor_t *t = rt_node_input(ctx, node, i);
                if (!t || !out || t->type != out->type)
                        return rt_ctx_error(ctx, "range: start, limit, delta and output need one type");
        }
        if (out->type != RT_TYPE_INT32 && out->type != RT_TYPE_INT64 && out->type != RT_TYPE_FLOAT32)
                return rt_ctx_error(ctx, "range: type %s not supported", rt_type_name(out->type));
        if (!shape__inputs_const(ctx, node, 0))
                return shape__set_dynamic(ctx, node, 0);
        int32_t n;
        int r = range_size(ctx, node, &n);
        if (r < 0)
                return r;
        return rt_ctx_resize(ctx, node, 0, 1, &n);
}

static int range_invoke(rt_context_t *ctx, rt_node_t *node) {
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        int32_t n;
        int r = range_size(ctx, node, &n);
        if (r < 0)
                return r;
        if (!shape__inputs_const(ctx, node, 0)) {
                r = rt_ctx_resize(ctx, node, 0, 1, &n);
                if (r < 0)
                        return r;
        }
        if (!shape__has_data(out, rt_type_size(out->type)) || rt_tensor_count(out) != (size_t) n)
                return rt_ctx_error(ctx, "range: output not sized");
        const void *s = rt_node_input(ctx, node, 0)->data, *d = rt_node_input(ctx, node, 2)->data;
        /* TFLite accumulates (value += delta), which matters for floats. */
        switch (out->type) {
        case RT_TYPE_INT32: {
                int64_t v = *(const int32_t *) s, dv = *(const int32_t *) d;
                for (int32_t i = 0; i < n; i++, v += dv)
                        ((int32_t *) out->data)[i] = (int32_t) v;
                break;
        }
        case RT_TYPE_INT64: {
                int64_t v = *(const int64_t *) s, dv = *(const int64_t *) d;
                for (int32_t i = 0; i < n; i++, v += dv)
                        ((int64_t *) out->data)[i] = v;
                break;
        }
        default: {
                float v = *(const float *) s, dv = *(const float *) d;
                for (int32_t i = 0; i < n; i++, v += dv)
                        ((float *) out->data)[i] = v;
                break;
        }
        }
        return 0;
}

const rt_registration_t rt_kernel_range = {
        .name = "RANGE",
        .op = SHAPE_OP_RANGE,
        .prepare = range_prepare,
        .invoke = range_invoke,
};
