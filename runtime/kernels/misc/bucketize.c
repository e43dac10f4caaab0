/* SPDX-License-Identifier: Apache-2.0 */
/*
 * BUCKETIZE: TFLite bucketize.cc. Each input value becomes the number of
 * boundaries <= it (std::upper_bound over the sorted boundaries): values
 * below the first boundary go to bucket 0, values >= the last to bucket
 * n_boundaries. The output is int32 with the input's shape.
 */
#include <string.h>

#include "misc-internal.h"

#define OP "BUCKETIZE"

static int bucketize_parse(const rt_node_t *node, void *ret_params, rt_context_t *ctx) {
        rt_bucketize_params_t *p = ret_params;
        (void) ctx;
        fbt_vec_t v = fbt_vector(node->options, 0, sizeof(float));
        p->boundaries = v.n ? v.data : NULL;
        p->n_boundaries = v.n;
        return 0;
}

static float boundary(const rt_bucketize_params_t *p, uint32_t i) {
        float f;
        memcpy(&f, (const uint8_t *) p->boundaries + (size_t) i * sizeof(f), sizeof(f));
        return f;
}

static int bucketize_prepare(rt_context_t *ctx, rt_node_t *node) {
        int r = rt_misc__check_node(ctx, node, OP, 1, 1, 1, true);
        if (r < 0)
                return r;
        const rt_bucketize_params_t *p = node->params;
        rt_tensor_t *in = rt_node_input(ctx, node, 0);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        if (in->type != RT_TYPE_FLOAT32 && in->type != RT_TYPE_FLOAT64 && in->type != RT_TYPE_INT32 &&
            in->type != RT_TYPE_INT64)
                return rt_misc__unsupported(ctx, OP, "input", in);
        if (out->type != RT_TYPE_INT32)
                return rt_ctx_error(ctx, OP ": output must be int32, got %s", rt_type_name(out->type));
        if (p->n_boundaries > 0 && !p->boundaries)
                return rt_ctx_error(ctx, OP ": boundaries missing");
        for (uint32_t i = 1; i < p->n_boundaries; i++)
                if (boundary(p, i - 1) > boundary(p, i))
                        return rt_ctx_error(ctx, OP ": boundaries must be sorted (%g after %g)",
                                            (double) boundary(p, i), (double) boundary(p, i - 1));
        return rt_ctx_resize(ctx, node, 0, in->rank, in->dims);
}

/* Index of the first boundary greater than v (std::upper_bound); float
 * comparison, as C++ compares an int or float value with a float. */
static uint32_t upper_bound_f(const rt_bucketize_params_t *p, float v) {
        uint32_t lo = 0, n = p->n_boundaries;
        while (n > 0) {
                uint32_t half = n / 2;
                if (!(v < boundary(p, lo + half))) {
                        lo += half + 1;
                        n -= half + 1;
                } else {
                        n = half;
                }
        }
        return lo;
}

/* The same in double precision (float64 inputs). */
static uint32_t upper_bound_d(const rt_bucketize_params_t *p, double v) {
        uint32_t lo = 0, n = p->n_boundaries;
        while (n > 0) {
                uint32_t half = n / 2;
                if (!(v < (double) boundary(p, lo + half))) {
                        lo += half + 1;
                        n -= half + 1;
                } else {
                        n = half;
                }
        }
        return lo;
}

static int bucketize_invoke(rt_context_t *ctx, rt_node_t *node) {
        const rt_bucketize_params_t *p = node->params;
        rt_tensor_t *in = rt_node_input(ctx, node, 0);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        if (!rt_misc_has_data(in))
                return rt_ctx_error(ctx, OP ": input has no data");
        const size_t n = rt_tensor_count(in);
        int32_t *y = out->data;
        for (size_t i = 0; i < n; i++) {
                switch (in->type) {
                case RT_TYPE_FLOAT32:
                        y[i] = (int32_t) upper_bound_f(p, ((const float *) in->data)[i]);
                        break;
                case RT_TYPE_FLOAT64:
                        y[i] = (int32_t) upper_bound_d(p, ((const double *) in->data)[i]);
                        break;
                case RT_TYPE_INT32:
                        y[i] = (int32_t) upper_bound_f(p, (float) ((const int32_t *) in->data)[i]);
                        break;
                default:
                        y[i] = (int32_t) upper_bound_f(p, (float) ((const int64_t *) in->data)[i]);
                        break;
                }
        }
        return 0;
}

const rt_registration_t rt_kernel_bucketize = {
        .name = OP,
        .op = RT_OP_BUCKETIZE,
        .params_size = sizeof(rt_bucketize_params_t),
        .parse = bucketize_parse,
        .prepare = bucketize_prepare,
        .invoke = bucketize_invoke,
};
