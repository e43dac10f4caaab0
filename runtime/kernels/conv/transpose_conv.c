/* SPDX-License-Identifier: Apache-2.0 */
/* TRANSPOSE_CONV: TFLite transpose_conv.cc (float, uint8, int8 per-channel,
 * 16x8). Inputs: output_shape int32[4], weights [O,KH,KW,C], input
 * [N,H,W,C], optional bias [O]. */
#include <stdlib.h>
#include <string.h>

#include "conv-internal.h"

static int tc_parse(const rt_node_t *node, void *ret_params, rt_context_t *ctx) {
        rt_transpose_conv_params_t *p = ret_params;
        fbt_table_t o = node->options;
        p->padding = (rt_padding_t) fbt_i8(o, 0, 0);
        p->stride_w = fbt_i32(o, 1, 0);
        p->stride_h = fbt_i32(o, 2, 0);
        p->activation = (rt_activation_t) fbt_i8(o, 3, 0);
        if (p->padding != RT_PADDING_SAME && p->padding != RT_PADDING_VALID)
                return rt_ctx_error(ctx, "TRANSPOSE_CONV: unknown padding %d", (int) p->padding);
        if ((unsigned) p->activation >= _RT_ACT_MAX)
                return rt_ctx_error(ctx, "TRANSPOSE_CONV: unknown fused activation %d",
                                    (int) p->activation);
        return 0;
}

/* Read and check the requested output shape; sets padding. */
static int tc_output_shape(rt_context_t *ctx, const rt_transpose_conv_params_t *p, rt_conv_data_t *d,
                           const rt_tensor_t *shape, const rt_tensor_t *in, const rt_tensor_t *w,
                           int32_t *ret_dims) {
        const int32_t *s = shape->data;
        if (!s)
                return rt_ctx_error(ctx, "TRANSPOSE_CONV: output_shape has no data");
        for (int i = 0; i < 4; i++)
                if (s[i] < 0)
                        return rt_ctx_error(ctx, "TRANSPOSE_CONV: negative output dimension %d", s[i]);
        if (s[0] != in->dims[0] || s[3] != w->dims[0])
                return rt_ctx_error(ctx, "TRANSPOSE_CONV: output_shape [%d,%d,%d,%d] does not match batch %d and %d filters",
                                    s[0], s[1], s[2], s[3], in->dims[0], w->dims[0]);
        /* TFLite computes the padding as for a forward conv from the output. */
        const int32_t fh = ku_out_size(p->padding, s[1], w->dims[1], p->stride_h, 1);
        const int32_t fw = ku_out_size(p->padding, s[2], w->dims[2], p->stride_w, 1);
        d->pad_h = ku_pad_before(s[1], w->dims[1], p->stride_h, 1, fh);
        d->pad_w = ku_pad_before(s[2], w->dims[2], p->stride_w, 1, fw);
        memcpy(ret_dims, s, sizeof(int32_t) * 4);
        return 0;
}

static int tc_prepare(rt_context_t *ctx, rt_node_t *node) {
        const rt_transpose_conv_params_t *p = node->params;
        rt_conv_data_t *d = node->user_data;
        if (!p || !d)
                return rt_ctx_error(ctx, "TRANSPOSE_CONV: node has no params or state");
        if (node->n_inputs < 3 || node->n_inputs > 4 || node->n_outputs != 1)
                return rt_ctx_error(ctx, "TRANSPOSE_CONV: expected 3 or 4 inputs and 1 output, got %d and %d",
                                    node->n_inputs, node->n_outputs);
        rt_tensor_t *shape = rt_node_input(ctx, node, 0);
        rt_tensor_t *w = rt_node_input(ctx, node, 1);
        rt_tensor_t *in = rt_node_input(ctx, node, 2);
        rt_tensor_t *bias = rt_node_input(ctx, node, 3);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        if (!shape || !w || !in || !out)
                return rt_ctx_error(ctx, "TRANSPOSE_CONV: output_shape, weights, input and output are required");
        if (shape->type != RT_TYPE_INT32 || shape->rank != 1 || shape->dims[0] != 4)
                return rt_ctx_error(ctx, "TRANSPOSE_CONV: output_shape must be int32[4]");
        if (in->rank != 4 || w->rank != 4)
                return rt_ctx_error(ctx, "TRANSPOSE_CONV: input and weights must be 4-D (got rank %d and %d)",
                                    in->rank, w->rank);
        if (in->dims[3] != w->dims[3])
                return rt_ctx_error(ctx, "TRANSPOSE_CONV: input has %d channels, weights expect %d",
                                    in->dims[3], w->dims[3]);
        int r = rt_conv__check_geometry(ctx, p->stride_w, p->stride_h, 1, 1);
        if (r < 0)
                return r;
        if (p->padding != RT_PADDING_SAME && p->padding != RT_PADDING_VALID)
                return rt_ctx_error(ctx, "TRANSPOSE_CONV: unknown padding %d", (int) p->padding);
        const int32_t oc = w->dims[0];
        if (bias && (int32_t) rt_tensor_count(bias) != oc)
                return rt_ctx_error(ctx, "TRANSPOSE_CONV: bias has %zu elements for %d output channels",
                                    rt_tensor_count(bias), oc);
        rt_type_t want_bias;
        switch (in->type) {
        case RT_TYPE_FLOAT32:
                if (w->type != RT_TYPE_FLOAT32 || out->type != RT_TYPE_FLOAT32)
                        return rt_conv__unsupported(ctx, "TRANSPOSE_CONV", in, w, out);
                d->kind = RT_CONV_FLOAT;
                want_bias = RT_TYPE_FLOAT32;
                break;
        case RT_TYPE_UINT8:
                if (w->type != RT_TYPE_UINT8 || out->type != RT_TYPE_UINT8)
                        return rt_conv__unsupported(ctx, "TRANSPOSE_CONV", in, w, out);
                d->kind = RT_CONV_UINT8;
                want_bias = RT_TYPE_INT32;
                break;
        case RT_TYPE_INT8:
                if (w->type != RT_TYPE_INT8 || out->type != RT_TYPE_INT8)
                        return rt_conv__unsupported(ctx, "TRANSPOSE_CONV", in, w, out);
                d->kind = RT_CONV_INT8;
                want_bias = RT_TYPE_INT32;
                break;
        case RT_TYPE_INT16:
                if (w->type != RT_TYPE_INT8 || out->type != RT_TYPE_INT16)
                        return rt_conv__unsupported(ctx, "TRANSPOSE_CONV", in, w, out);
                d->kind = RT_CONV_INT16;
                want_bias = RT_TYPE_INT64;
                break;
        default:
                return rt_conv__unsupported(ctx, "TRANSPOSE_CONV", in, w, out);
        }
        if (bias && bias->type != want_bias &&
            !(d->kind == RT_CONV_INT16 && bias->type == RT_TYPE_INT32))
                return rt_ctx_error(ctx, "TRANSPOSE_CONV: bias must be %s for %s input, got %s",
                                    rt_type_name(want_bias), rt_type_name(in->type),
                                    rt_type_name(bias->type));
        if (d->kind != RT_CONV_FLOAT) {
                r = rt_conv__quant_setup(ctx, d, in, w, out, p->activation, oc, 0);
                if (r < 0)
                        return r;
        }
        /* TFLite 2.9's 16x8 transposed convolution requantizes as the other
         * 16x8 kernels with a bias, and in 32 bits without one (the 64-bit
         * rule alone was one step off in 15 of 31 cases without a bias, the
         * 32-bit rule alone in most cases with one). */
        d->acc16 = d->kind == RT_CONV_INT16 && !bias ? RT_CONV_ACC16_MBQM32 : RT_CONV_ACC16_INT64;
        ku_act_range_f32(p->activation, &d->f_min, &d->f_max);

        d->dynamic_output = !rt_tensor_is_const(shape);
        if (d->dynamic_output)
                return ctx->set_dynamic(ctx, node->outputs[0]);
        int32_t dims[4];
        r = tc_output_shape(ctx, p, d, shape, in, w, dims);
        if (r < 0)
                return r;
        return rt_ctx_resize(ctx, node, 0, 4, dims);
}

/* Scatter every input pixel through the filter into the accumulators. */
#define DEFINE_TC(name, in_t, w_t, acc_t)                                                            \
static void name(const rt_conv_data_t *d, const rt_transpose_conv_params_t *p,                      \
                 const rt_tensor_t *in, const rt_tensor_t *w, const int32_t *od, acc_t *acc,         \
                 int32_t in_off, int32_t w_off) {                                                    \
        const in_t *x = in->data;                                                                    \
        const w_t *f = w->data;                                                                      \
        const int32_t n = in->dims[0], h = in->dims[1], wd = in->dims[2], c = in->dims[3];           \
        const int32_t oc = w->dims[0], kh = w->dims[1], kw = w->dims[2];                             \
        const int32_t oh = od[1], ow = od[2];                                                        \
        for (int32_t b = 0; b < n; b++)                                                              \
        for (int32_t iy = 0; iy < h; iy++)                                                           \
        for (int32_t ix = 0; ix < wd; ix++) {                                                        \
                const in_t *xp = x + (((size_t) b * h + iy) * wd + ix) * c;                          \
                const int32_t y0 = iy * p->stride_h - d->pad_h, x0 = ix * p->stride_w - d->pad_w;    \
                for (int32_t fy = 0; fy < kh; fy++) {                                                \
                        const int32_t oy = y0 + fy;                                                  \
                        if (oy < 0 || oy >= oh)                                                      \
                                continue;                                                            \
                        for (int32_t fx = 0; fx < kw; fx++) {                                        \
                                const int32_t ox = x0 + fx;                                          \
                                if (ox < 0 || ox >= ow)                                              \
                                        continue;                                                    \
                                acc_t *ap = acc + (((size_t) b * oh + oy) * ow + ox) * oc;           \
                                for (int32_t o = 0; o < oc; o++) {                                   \
                                        const w_t *fp = f + (((size_t) o * kh + fy) * kw + fx) * c;  \
                                        acc_t s = 0;                                                 \
                                        for (int32_t ci = 0; ci < c; ci++)                           \
                                                s += (acc_t) ((int32_t) fp[ci] + w_off) *            \
                                                     ((int32_t) xp[ci] + in_off);                    \
                                        ap[o] += s;                                                  \
                                }                                                                    \
                        }                                                                            \
                }                                                                                    \
        }                                                                                            \
}

static void tc_float(const rt_conv_data_t *d, const rt_transpose_conv_params_t *p,
                     const rt_tensor_t *in, const rt_tensor_t *w, const int32_t *od, float *acc) {
        const float *x = in->data;
        const float *f = w->data;
        const int32_t n = in->dims[0], h = in->dims[1], wd = in->dims[2], c = in->dims[3];
        const int32_t oc = w->dims[0], kh = w->dims[1], kw = w->dims[2];
        const int32_t oh = od[1], ow = od[2];
        for (int32_t b = 0; b < n; b++)
        for (int32_t iy = 0; iy < h; iy++)
        for (int32_t ix = 0; ix < wd; ix++) {
                const float *xp = x + (((size_t) b * h + iy) * wd + ix) * c;
                const int32_t y0 = iy * p->stride_h - d->pad_h, x0 = ix * p->stride_w - d->pad_w;
                for (int32_t fy = 0; fy < kh; fy++) {
                        const int32_t oy = y0 + fy;
                        if (oy < 0 || oy >= oh)
                                continue;
                        for (int32_t fx = 0; fx < kw; fx++) {
                                const int32_t ox = x0 + fx;
                                if (ox < 0 || ox >= ow)
                                        continue;
                                float *ap = acc + (((size_t) b * oh + oy) * ow + ox) * oc;
                                for (int32_t o = 0; o < oc; o++) {
                                        const float *fp = f + (((size_t) o * kh + fy) * kw + fx) * c;
                                        for (int32_t ci = 0; ci < c; ci++)
                                                ap[o] += xp[ci] * fp[ci];
                                }
                        }
                }
        }
}

DEFINE_TC(tc_u8, uint8_t, uint8_t, int32_t)
DEFINE_TC(tc_i8, int8_t, int8_t, int32_t)
DEFINE_TC(tc_i16, int16_t, int8_t, int64_t)

static int tc_invoke(rt_context_t *ctx, rt_node_t *node) {
        const rt_transpose_conv_params_t *p = node->params;
        rt_conv_data_t *d = node->user_data;
        rt_tensor_t *shape = rt_node_input(ctx, node, 0);
        rt_tensor_t *w = rt_node_input(ctx, node, 1);
        rt_tensor_t *in = rt_node_input(ctx, node, 2);
        rt_tensor_t *bias = rt_node_input(ctx, node, 3);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        int r;
        if (d->dynamic_output) {
                int32_t dims[4];
                r = tc_output_shape(ctx, p, d, shape, in, w, dims);
                if (r < 0)
                        return r;
                r = rt_ctx_resize(ctx, node, 0, 4, dims);
                if (r < 0)
                        return r;
        }
        if (!rt_conv__has_data(in) || !rt_conv__has_data(w) || !rt_conv__has_data(out) ||
            (bias && !bias->data))
                return rt_ctx_error(ctx, "TRANSPOSE_CONV: a tensor has no data");
        const int32_t *od = out->dims;
        const int32_t oc = od[3];
        const size_t count = rt_tensor_count(out);
        if (d->kind == RT_CONV_FLOAT) {
                float *y = out->data;
                memset(y, 0, count * sizeof(float));
                tc_float(d, p, in, w, od, y);
                for (size_t i = 0; i < count; i++)
                        y[i] = ku_act_f32(y[i] + rt_conv__bias_f(bias, (int32_t) (i % (size_t) oc)),
                                          d->f_min, d->f_max);
                return 0;
        }
        /* Accumulators are per-invoke heap memory: the output shape may only
         * be known now. */
        if (d->kind == RT_CONV_INT16) {
                int64_t *acc = calloc(count ? count : 1, sizeof(int64_t));
                if (!acc)
                        return -ENOMEM;
                tc_i16(d, p, in, w, od, acc, -in->zero_point, 0);
                for (size_t i = 0; i < count; i++) {
                        int32_t c = (int32_t) (i % (size_t) oc);
                        rt_conv__store(out, i, rt_conv__requant(d, acc[i] + rt_conv__bias_i(bias, c), c,
                                                                out->zero_point));
                }
                free(acc);
                return 0;
        }
        int32_t *acc = calloc(count ? count : 1, sizeof(int32_t));
        if (!acc)
                return -ENOMEM;
        if (d->kind == RT_CONV_UINT8)
                tc_u8(d, p, in, w, od, acc, -in->zero_point, -w->zero_point);
        else
                tc_i8(d, p, in, w, od, acc, -in->zero_point, 0);
        for (size_t i = 0; i < count; i++) {
                int32_t c = (int32_t) (i % (size_t) oc);
                rt_conv__store(out, i, rt_conv__requant(d, (int64_t) acc[i] + rt_conv__bias_i(bias, c), c,
                                                        out->zero_point));
        }
        free(acc);
        return 0;
}

const rt_registration_t rt_kernel_transpose_conv = {
        .name = "TRANSPOSE_CONV",
        .op = RT_OP_TRANSPOSE_CONV,
        .params_size = sizeof(rt_transpose_conv_params_t),
        .parse = tc_parse,
        .init = rt_conv__data_init,
        .free = rt_conv__data_free,
        .prepare = tc_prepare,
        .invoke = tc_invoke,
};
