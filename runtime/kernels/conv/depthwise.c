/* SPDX-License-Identifier: Apache-2.0 */
/* DEPTHWISE_CONV_2D: TFLite depthwise_conv.cc (float, uint8, int8
 * per-channel, 16x8, hybrid per-channel). */
#include <string.h>

#include "conv-internal.h"

static int dw_parse(const rt_node_t *node, void *ret_params, rt_context_t *ctx) {
        rt_depthwise_params_t *p = ret_params;
        fbt_table_t o = node->options;
        p->padding = (rt_padding_t) fbt_i8(o, 0, 0);
        p->stride_w = fbt_i32(o, 1, 0);
        p->stride_h = fbt_i32(o, 2, 0);
        p->depth_multiplier = fbt_i32(o, 3, 0);
        p->activation = (rt_activation_t) fbt_i8(o, 4, 0);
        p->dilation_w = fbt_i32(o, 5, 1);
        p->dilation_h = fbt_i32(o, 6, 1);
        if (p->padding != RT_PADDING_SAME && p->padding != RT_PADDING_VALID)
                return rt_ctx_error(ctx, "DEPTHWISE_CONV_2D: unknown padding %d", (int) p->padding);
        if ((unsigned) p->activation >= _RT_ACT_MAX)
                return rt_ctx_error(ctx, "DEPTHWISE_CONV_2D: unknown fused activation %d",
                                    (int) p->activation);
        return 0;
}

typedef struct geom {
        int32_t n, h, w, c;
        int32_t oc, kh, kw, m;
        int32_t oh, ow;
        int32_t sh, sw, dh, dw, ph, pw;
} geom_t;

static int dw_prepare(rt_context_t *ctx, rt_node_t *node) {
        const rt_depthwise_params_t *p = node->params;
        rt_conv_data_t *d = node->user_data;
        if (!p || !d)
                return rt_ctx_error(ctx, "DEPTHWISE_CONV_2D: node has no params or state");
        if (node->n_inputs < 2 || node->n_inputs > 3 || node->n_outputs != 1)
                return rt_ctx_error(ctx, "DEPTHWISE_CONV_2D: expected 2 or 3 inputs and 1 output, got %d and %d",
                                    node->n_inputs, node->n_outputs);
        rt_tensor_t *in = rt_node_input(ctx, node, 0);
        rt_tensor_t *w = rt_node_input(ctx, node, 1);
        rt_tensor_t *bias = rt_node_input(ctx, node, 2);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        if (!in || !w || !out)
                return rt_ctx_error(ctx, "DEPTHWISE_CONV_2D: input, filter and output are required");
        if (in->rank != 4 || w->rank != 4)
                return rt_ctx_error(ctx, "DEPTHWISE_CONV_2D: input and filter must be 4-D (got rank %d and %d)",
                                    in->rank, w->rank);
        if (w->dims[0] != 1)
                return rt_ctx_error(ctx, "DEPTHWISE_CONV_2D: filter dimension 0 must be 1, got %d",
                                    w->dims[0]);
        const int32_t ic = in->dims[3], oc = w->dims[3];
        if (ic <= 0 || oc <= 0 || oc % ic != 0)
                return rt_ctx_error(ctx, "DEPTHWISE_CONV_2D: %d output channels is not a multiple of %d input channels",
                                    oc, ic);
        int r = rt_conv__check_geometry(ctx, p->stride_w, p->stride_h, p->dilation_w, p->dilation_h);
        if (r < 0)
                return r;
        if (p->padding != RT_PADDING_SAME && p->padding != RT_PADDING_VALID)
                return rt_ctx_error(ctx, "DEPTHWISE_CONV_2D: unknown padding %d", (int) p->padding);
        if (bias && (int32_t) rt_tensor_count(bias) != oc)
                return rt_ctx_error(ctx, "DEPTHWISE_CONV_2D: bias has %zu elements for %d output channels",
                                    rt_tensor_count(bias), oc);

        r = rt_conv__pick_kind(ctx, "DEPTHWISE_CONV_2D", in, w, bias, out, RT_CONV_HYBRID_PC, &d->kind);
        if (r < 0)
                return r;

        const int32_t oh = ku_out_size(p->padding, in->dims[1], w->dims[1], p->stride_h, p->dilation_h);
        const int32_t ow = ku_out_size(p->padding, in->dims[2], w->dims[2], p->stride_w, p->dilation_w);
        if (oh <= 0 || ow <= 0 || w->dims[1] <= 0 || w->dims[2] <= 0)
                return rt_ctx_error(ctx, "DEPTHWISE_CONV_2D: filter %dx%d (dilation %dx%d) does not fit input %dx%d",
                                    w->dims[1], w->dims[2], p->dilation_h, p->dilation_w,
                                    in->dims[1], in->dims[2]);
        d->pad_h = ku_pad_before(in->dims[1], w->dims[1], p->stride_h, p->dilation_h, oh);
        d->pad_w = ku_pad_before(in->dims[2], w->dims[2], p->stride_w, p->dilation_w, ow);

        if (d->kind == RT_CONV_HYBRID_PC) {
                r = rt_conv__hybrid_setup(ctx, d, w, oc, 3, true);
                if (r < 0)
                        return r;
                d->kind = RT_CONV_HYBRID_PC;  /* TFLite: always the per-channel path */
                const int32_t n = in->dims[0] > 0 ? in->dims[0] : 1;
                r = ctx->request_scratch(ctx, node, rt_tensor_count(in), &d->scratch[0]);
                if (r >= 0)
                        r = ctx->request_scratch(ctx, node, sizeof(float) * (size_t) n, &d->scratch[1]);
                if (r >= 0)
                        r = ctx->request_scratch(ctx, node, sizeof(int32_t) * (size_t) n, &d->scratch[2]);
                if (r < 0)
                        return r;
        } else if (d->kind != RT_CONV_FLOAT) {
                r = rt_conv__quant_setup(ctx, d, in, w, out, p->activation, oc, 3);
                if (r < 0)
                        return r;
        }
        /* Every type rounds like MultiplyByQuantizedMultiplier (ties away
         * from zero): TFLite's x86 depthwise kernels have no upward-rounding path. */
        d->ruy_rounding = false;
        ku_act_range_f32(p->activation, &d->f_min, &d->f_max);
        const int32_t dims[4] = { in->dims[0], oh, ow, oc };
        return rt_ctx_resize(ctx, node, 0, 4, dims);
}

static void geom_get(geom_t *g, const rt_depthwise_params_t *p, const rt_conv_data_t *d,
                     const rt_tensor_t *in, const rt_tensor_t *w, const rt_tensor_t *out) {
        g->n = in->dims[0];
        g->h = in->dims[1];
        g->w = in->dims[2];
        g->c = in->dims[3];
        g->kh = w->dims[1];
        g->kw = w->dims[2];
        g->oc = w->dims[3];
        g->m = g->oc / g->c;
        g->oh = out->dims[1];
        g->ow = out->dims[2];
        g->sh = p->stride_h;
        g->sw = p->stride_w;
        g->dh = p->dilation_h;
        g->dw = p->dilation_w;
        g->ph = d->pad_h;
        g->pw = d->pad_w;
}

/* Loop nest shared by all paths: BODY sees b, oc, ic and the in-bounds
 * input element index xi and filter element index fi. */
#define DW_LOOP(g, INIT, BODY, FINISH)                                                               \
        for (int32_t b = 0; b < (g)->n; b++)                                                         \
        for (int32_t oy = 0; oy < (g)->oh; oy++)                                                     \
        for (int32_t ox = 0; ox < (g)->ow; ox++) {                                                   \
                const int32_t y0 = oy * (g)->sh - (g)->ph, x0 = ox * (g)->sw - (g)->pw;              \
                const size_t obase = (((size_t) b * (g)->oh + oy) * (g)->ow + ox) * (g)->oc;         \
                for (int32_t ic = 0; ic < (g)->c; ic++)                                              \
                for (int32_t mm = 0; mm < (g)->m; mm++) {                                            \
                        const int32_t oc = ic * (g)->m + mm;                                         \
                        INIT;                                                                        \
                        for (int32_t fy = 0; fy < (g)->kh; fy++) {                                   \
                                const int32_t iy = y0 + fy * (g)->dh;                                \
                                if (iy < 0 || iy >= (g)->h)                                          \
                                        continue;                                                    \
                                for (int32_t fx = 0; fx < (g)->kw; fx++) {                           \
                                        const int32_t ix = x0 + fx * (g)->dw;                        \
                                        if (ix < 0 || ix >= (g)->w)                                  \
                                                continue;                                            \
                                        const size_t xi = (((size_t) b * (g)->h + iy) * (g)->w + ix) * (g)->c + ic; \
                                        const size_t fi = ((size_t) fy * (g)->kw + fx) * (g)->oc + oc; \
                                        BODY;                                                        \
                                }                                                                    \
                        }                                                                            \
                        FINISH;                                                                      \
                }                                                                                    \
        }

/* Like TFLite's float depthwise kernel, the accumulator starts at the bias
 * and adds the taps in filter order (same rounding, same results). */
static void dw_float(const geom_t *g, const rt_conv_data_t *d, const float *x, const float *f,
                     const rt_tensor_t *bias, float *y) {
        DW_LOOP(g, float acc = rt_conv__bias_f(bias, oc), acc += x[xi] * f[fi],
                y[obase + oc] = ku_act_f32(acc, d->f_min, d->f_max))
}

/* As CONV_2D's (conv2d.c): TFLite's sum, formed in the unsigned type of
 * its accumulator's width so that an overflow wraps as on TFLite's x86
 * build instead of being undefined; 64-bit offsets. */
#define DEFINE_DW_Q(name, in_t, w_t, acc_t, uacc_t)                                                  \
static void name(const geom_t *g, const rt_conv_data_t *d, const in_t *x, const w_t *f,             \
                 const rt_tensor_t *bias, rt_tensor_t *out, int64_t in_off, int64_t w_off) {         \
        DW_LOOP(g, uacc_t acc = 0,                                                                   \
                acc += (uacc_t) (f[fi] + w_off) * (uacc_t) (x[xi] + in_off),                         \
                acc += (uacc_t) rt_conv__bias_i(bias, oc);                                           \
                rt_conv__store(out, obase + oc, rt_conv__requant(d, (acc_t) acc, oc, out->zero_point))) \
}

DEFINE_DW_Q(dw_u8, uint8_t, uint8_t, int32_t, uint32_t)
DEFINE_DW_Q(dw_i8, int8_t, int8_t, int32_t, uint32_t)
DEFINE_DW_Q(dw_i16, int16_t, int8_t, int64_t, uint64_t)

/* TFLite DepthwiseConvHybridPerChannel: input quantized asymmetrically per
 * batch; acc * (channel scale * batch scale) + bias. */
static void dw_hybrid(const geom_t *g, const rt_conv_data_t *d, const int8_t *xq,
                      const float *scales, const int32_t *offsets, const rt_tensor_t *w,
                      const rt_tensor_t *bias, float *y) {
        const int8_t *f = w->data;
        DW_LOOP(g, uint32_t acc = 0,
                acc += (uint32_t) ((int32_t) f[fi] * ((int32_t) xq[xi] - offsets[b])),
                float v = (float) (int32_t) acc;
                v *= rt_conv__wscale(w, oc) * scales[b];
                v += rt_conv__bias_f(bias, oc);
                y[obase + oc] = ku_act_f32(v, d->f_min, d->f_max))
}

static int dw_invoke(rt_context_t *ctx, rt_node_t *node) {
        const rt_depthwise_params_t *p = node->params;
        const rt_conv_data_t *d = node->user_data;
        rt_tensor_t *in = rt_node_input(ctx, node, 0);
        rt_tensor_t *w = rt_node_input(ctx, node, 1);
        rt_tensor_t *bias = rt_node_input(ctx, node, 2);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        if (!rt_conv__has_data(in) || !rt_conv__has_data(w) || !rt_conv__has_data(out) ||
            (bias && !bias->data))
                return rt_ctx_error(ctx, "DEPTHWISE_CONV_2D: a tensor has no data");
        geom_t g;
        geom_get(&g, p, d, in, w, out);
        switch (d->kind) {
        case RT_CONV_FLOAT:
                dw_float(&g, d, in->data, w->data, bias, out->data);
                break;
        case RT_CONV_UINT8:
                dw_u8(&g, d, in->data, w->data, bias, out, -(int64_t) in->zero_point, -(int64_t) w->zero_point);
                break;
        case RT_CONV_INT8:
                dw_i8(&g, d, in->data, w->data, bias, out, -(int64_t) in->zero_point, 0);
                break;
        case RT_CONV_INT16:
                dw_i16(&g, d, in->data, w->data, bias, out, -(int64_t) in->zero_point, 0);
                break;
        case RT_CONV_HYBRID:
        case RT_CONV_HYBRID_PC: {
                int8_t *xq = ctx->get_scratch(ctx, node, d->scratch[0]);
                float *scales = ctx->get_scratch(ctx, node, d->scratch[1]);
                int32_t *offsets = ctx->get_scratch(ctx, node, d->scratch[2]);
                if (!xq || !scales || !offsets)
                        return rt_ctx_error(ctx, "DEPTHWISE_CONV_2D: hybrid scratch memory missing");
                const size_t per = (size_t) g.h * g.w * g.c;
                const float *x = in->data;
                for (int32_t b = 0; b < g.n; b++)
                        rt_conv__quantize_asymmetric(x + b * per, per, xq + b * per, &scales[b],
                                                     &offsets[b]);
                dw_hybrid(&g, d, xq, scales, offsets, w, bias, out->data);
                break;
        }
        }
        return 0;
}

const rt_registration_t rt_kernel_depthwise_conv_2d = {
        .name = "DEPTHWISE_CONV_2D",
        .op = RT_OP_DEPTHWISE_CONV_2D,
        .params_size = sizeof(rt_depthwise_params_t),
        .parse = dw_parse,
        .init = rt_conv__data_init,
        .free = rt_conv__data_free,
        .prepare = dw_prepare,
        .invoke = dw_invoke,
};
