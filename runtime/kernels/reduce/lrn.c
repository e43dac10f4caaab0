/* SPDX-License-Identifier: Apache-2.0 */
/*
 * LOCAL_RESPONSE_NORMALIZATION (float32, rank 4): TFLite
 * local_response_norm.cc with its generic optimized kernel, which is what the
 * builtin resolver registers: over the last axis,
 *   y[c] = x[c] * (bias + sum_{|d - c| <= radius} alpha * x[d]^2)^-beta,
 * the window sum kept as a running sum (added at the front, dropped at the
 * back) as TFLite does, with beta 1 and 0.5 computed as 1/v and 1/sqrt(v).
 */
#include <math.h>

#include "reduce-internal.h"

#define OP "LOCAL_RESPONSE_NORMALIZATION"

static int lrn_parse(const rt_node_t *node, void *ret_params, rt_context_t *ctx) {
        rt_lrn_params_t *p = ret_params;
        (void) ctx;
        p->radius = fbt_i32(node->options, 0, 0);
        p->bias = fbt_f32(node->options, 1, 0.0f);
        p->alpha = fbt_f32(node->options, 2, 0.0f);
        p->beta = fbt_f32(node->options, 3, 0.0f);
        return 0;
}

static int lrn_prepare(rt_context_t *ctx, rt_node_t *node) {
        const rt_lrn_params_t *p = node->params;
        if (!p)
                return rt_ctx_error(ctx, OP ": node has no params");
        if (p->radius < 0)
                return rt_ctx_error(ctx, OP ": radius must be >= 0, got %d", p->radius);
        rt_tensor_t *in, *out;
        int r = rt_reduce__prepare_same_shape(ctx, node, OP, &in, &out);
        if (r < 0)
                return r;
        if (in->rank != 4)
                return rt_ctx_error(ctx, OP ": input must be 4-D, got rank %d", in->rank);
        if (in->type != RT_TYPE_FLOAT32 || out->type != RT_TYPE_FLOAT32)
                return rt_reduce__unsupported(ctx, OP, in, out);
        return 0;
}

static int lrn_invoke(rt_context_t *ctx, rt_node_t *node) {
        const rt_lrn_params_t *p = node->params;
        rt_tensor_t *in = rt_node_input(ctx, node, 0);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        size_t outer;
        int32_t depth;
        rt_reduce_rows(in, &outer, &depth);
        const float *x = in->data;
        float *y = out->data;
        const int64_t range = p->radius;
        for (size_t o = 0; o < outer; o++, x += depth, y += depth) {
                /* sq(i) = alpha * x[i - range]^2 inside the row, 0 outside. */
#define SQ(i) ((i) >= range && (i) - range < depth ? x[(i) - range] * x[(i) - range] * p->alpha : 0.0f)
                float acc = 0.0f;
                for (int64_t i = 0; i < 2 * range; i++)
                        acc += SQ(i);
                for (int32_t c = 0; c < depth; c++) {
                        acc += SQ(c + 2 * range);
                        const float v = p->bias + acc;
                        acc -= SQ((int64_t) c);
                        float m;
                        if (p->beta == 1.0f)
                                m = 1.0f / v;
                        else if (p->beta == 0.5f)
                                m = 1.0f / sqrtf(v);
                        else
                                m = powf(v, -p->beta);
                        y[c] = x[c] * m;
                }
#undef SQ
        }
        return 0;
}

const rt_registration_t rt_kernel_local_response_normalization = {
        .name = OP,
        .op = RT_OP_LOCAL_RESPONSE_NORMALIZATION,
        .params_size = sizeof(rt_lrn_params_t),
        .parse = lrn_parse,
        .prepare = lrn_prepare,
        .invoke = lrn_invoke,
};
