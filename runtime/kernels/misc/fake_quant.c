/* SPDX-License-Identifier: Apache-2.0 */
/*
 * FAKE_QUANT: TFLite fake_quant.cc (reference FakeQuantWithMinMaxArgs).
 * The [min, max] range is nudged so that zero is exactly representable on
 * the grid of 2^num_bits - 1 steps; each value is clamped to the nudged
 * range and rounded to the nearest grid point, half away from zero, all in
 * single precision. Like TFLite, narrow_range is rejected (it is meant for
 * weights, which the converter folds), and so are min >= max and num_bits
 * outside [2, 16], which TFLite leaves undefined.
 */
#include <math.h>

#include "misc-internal.h"

#define OP "FAKE_QUANT"

static int fake_quant_parse(const rt_node_t *node, void *ret_params, rt_context_t *ctx) {
        rt_fake_quant_params_t *p = ret_params;
        (void) ctx;
        p->min = fbt_f32(node->options, 0, 0.0f);
        p->max = fbt_f32(node->options, 1, 0.0f);
        p->num_bits = fbt_i32(node->options, 2, 0);
        p->narrow_range = fbt_bool(node->options, 3, false);
        return 0;
}

static int fake_quant_prepare(rt_context_t *ctx, rt_node_t *node) {
        int r = rt_misc__check_node(ctx, node, OP, 1, 1, 1, true);
        if (r < 0)
                return r;
        const rt_fake_quant_params_t *p = node->params;
        rt_tensor_t *in = rt_node_input(ctx, node, 0);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        if (in->type != RT_TYPE_FLOAT32)
                return rt_misc__unsupported(ctx, OP, "input", in);
        if (out->type != RT_TYPE_FLOAT32)
                return rt_ctx_error(ctx, OP ": output must be float32, got %s", rt_type_name(out->type));
        if (p->narrow_range)
                return rt_ctx_error(ctx, OP ": narrow_range is not supported at runtime (TFLite rejects it too)");
        if (p->num_bits < 2 || p->num_bits > 16)
                return rt_ctx_error(ctx, OP ": num_bits %d must be between 2 and 16", p->num_bits);
        if (!(p->min < p->max))
                return rt_ctx_error(ctx, OP ": min %g must be less than max %g", (double) p->min, (double) p->max);
        return rt_ctx_resize(ctx, node, 0, in->rank, in->dims);
}

/* TFLite's Nudge(). */
static void nudge(float min, float max, int32_t qmin, int32_t qmax, float *ret_min, float *ret_max,
                  float *ret_scale) {
        const float qmin_f = (float) qmin, qmax_f = (float) qmax;
        const float scale = (max - min) / (qmax_f - qmin_f);
        const float zp_from_min = qmin_f - min / scale;
        uint16_t zp;
        if (zp_from_min < qmin_f)
                zp = (uint16_t) qmin;
        else if (zp_from_min > qmax_f)
                zp = (uint16_t) qmax;
        else
                zp = (uint16_t) roundf(zp_from_min);
        *ret_min = (qmin_f - zp) * scale;
        *ret_max = (qmax_f - zp) * scale;
        *ret_scale = scale;
}

static int fake_quant_invoke(rt_context_t *ctx, rt_node_t *node) {
        const rt_fake_quant_params_t *p = node->params;
        rt_tensor_t *in = rt_node_input(ctx, node, 0);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        if (!rt_misc_has_data(in))
                return rt_ctx_error(ctx, OP ": input has no data");
        float nmin, nmax, scale;
        nudge(p->min, p->max, 0, (1 << p->num_bits) - 1, &nmin, &nmax, &scale);
        const float inv = 1.0f / scale;
        const float *x = in->data;
        float *y = out->data;
        const size_t n = rt_tensor_count(in);
        for (size_t i = 0; i < n; i++) {
                const float clamped = fminf(nmax, fmaxf(nmin, x[i]));
                y[i] = roundf((clamped - nmin) * inv) * scale + nmin;
        }
        return 0;
}

const rt_registration_t rt_kernel_fake_quant = {
        .name = OP,
        .op = RT_OP_FAKE_QUANT,
        .params_size = sizeof(rt_fake_quant_params_t),
        .parse = fake_quant_parse,
        .prepare = fake_quant_prepare,
        .invoke = fake_quant_invoke,
};
