/* SPDX-License-Identifier: Apache-2.0 */
/*
 * CONV_3D and CONV_3D_TRANSPOSE: TFLite conv3d.cc and conv3d_transpose.cc,
 * float32 path (TFLite 2.9's CONV_3D is float-only; the quantized
 * CONV_3D_TRANSPOSE variants of later releases are not implemented).
 *
 *   CONV_3D            input [N,D,H,W,C], filter [KD,KH,KW,C,O], bias [O]
 *   CONV_3D_TRANSPOSE  output_shape int32[5], filter [KD,KH,KW,O,C],
 *                      input [N,D,H,W,C], bias [O]
 *
 * Padding follows TensorFlow: per spatial dimension, the leading padding is
 * half of the total (rounded down); the trailing remainder only affects the
 * output size.
 */
#include <string.h>

#include "conv-internal.h"

static int conv3d_parse_named(const char *op, const rt_node_t *node, void *ret_params,
                              rt_context_t *ctx) {
        rt_conv3d_params_t *p = ret_params;
        fbt_table_t o = node->options;
        /* Conv3DOptions: padding, stride_d, stride_w, stride_h,
         * fused_activation_function, dilation_d/w/h_factor (default 1). */
        p->padding = (rt_padding_t) fbt_i8(o, 0, 0);
        p->stride_d = fbt_i32(o, 1, 0);
        p->stride_w = fbt_i32(o, 2, 0);
        p->stride_h = fbt_i32(o, 3, 0);
        p->activation = (rt_activation_t) fbt_i8(o, 4, 0);
        p->dilation_d = fbt_i32(o, 5, 1);
        p->dilation_w = fbt_i32(o, 6, 1);
        p->dilation_h = fbt_i32(o, 7, 1);
        if (p->padding != RT_PADDING_SAME && p->padding != RT_PADDING_VALID)
                return rt_ctx_error(ctx, "%s: unknown padding %d", op, (int) p->padding);
        if ((unsigned) p->activation >= _RT_ACT_MAX)
                return rt_ctx_error(ctx, "%s: unknown fused activation %d", op, (int) p->activation);
        return 0;
}

static int conv3d_parse(const rt_node_t *node, void *ret_params, rt_context_t *ctx) {
        return conv3d_parse_named("CONV_3D", node, ret_params, ctx);
}

static int conv3dt_parse(const rt_node_t *node, void *ret_params, rt_context_t *ctx) {
        return conv3d_parse_named("CONV_3D_TRANSPOSE", node, ret_params, ctx);
}

static int check_params(rt_context_t *ctx, const char *op, const rt_conv3d_params_t *p) {
        if (!p)
                return rt_ctx_error(ctx, "%s: node has no params", op);
        if (p->padding != RT_PADDING_SAME && p->padding != RT_PADDING_VALID)
                return rt_ctx_error(ctx, "%s: unknown padding %d", op, (int) p->padding);
        if (p->stride_d < 1 || p->stride_h < 1 || p->stride_w < 1)
                return rt_ctx_error(ctx, "%s: strides must be >= 1 (d %d, h %d, w %d)", op,
                                    p->stride_d, p->stride_h, p->stride_w);
        if (p->dilation_d < 1 || p->dilation_h < 1 || p->dilation_w < 1)
                return rt_ctx_error(ctx, "%s: dilations must be >= 1 (d %d, h %d, w %d)", op,
                                    p->dilation_d, p->dilation_h, p->dilation_w);
        if ((unsigned) p->activation >= _RT_ACT_MAX)
                return rt_ctx_error(ctx, "%s: unknown fused activation %d", op, (int) p->activation);
        return 0;
}

/* Spatial geometry of one node: sizes of the "forward" convolution, i.e.
 * for CONV_3D_TRANSPOSE the roles of input and output are swapped. */
typedef struct geom3 {
        int32_t n;
        int32_t in[3];   /* D, H, W of the forward conv's input */
        int32_t out[3];  /* D, H, W of the forward conv's output */
        int32_t k[3];
        int32_t s[3];
        int32_t dil[3];
        int32_t pad[3];
        int32_t ic, oc;  /* forward input / output channels */
} geom3_t;

static void geom3_fill(geom3_t *g, const rt_conv3d_params_t *p, const int32_t *fwd_in,
                       const int32_t *filter_dims) {
        const int32_t s[3] = { p->stride_d, p->stride_h, p->stride_w };
        const int32_t dil[3] = { p->dilation_d, p->dilation_h, p->dilation_w };
        for (int i = 0; i < 3; i++) {
                g->in[i] = fwd_in[i];
                g->k[i] = filter_dims[i];
                g->s[i] = s[i];
                g->dil[i] = dil[i];
                g->out[i] = ku_out_size(p->padding, g->in[i], g->k[i], s[i], dil[i]);
                g->pad[i] = ku_pad_before(g->in[i], g->k[i], s[i], dil[i], g->out[i]);
        }
}

static int conv3d_prepare(rt_context_t *ctx, rt_node_t *node) {
        const rt_conv3d_params_t *p = node->params;
        int r = check_params(ctx, "CONV_3D", p);
        if (r < 0)
                return r;
        if (node->n_inputs < 2 || node->n_inputs > 3 || node->n_outputs != 1)
                return rt_ctx_error(ctx, "CONV_3D: expected 2 or 3 inputs and 1 output, got %d and %d",
                                    node->n_inputs, node->n_outputs);
        const rt_tensor_t *in = rt_node_input(ctx, node, 0);
        const rt_tensor_t *w = rt_node_input(ctx, node, 1);
        const rt_tensor_t *bias = rt_node_input(ctx, node, 2);
        const rt_tensor_t *out = rt_node_output(ctx, node, 0);
        if (!in || !w || !out)
                return rt_ctx_error(ctx, "CONV_3D: input, filter and output are required");
        if (in->rank != 5 || w->rank != 5)
                return rt_ctx_error(ctx, "CONV_3D: input and filter must be 5-D (got rank %d and %d)",
                                    in->rank, w->rank);
        if (in->type != RT_TYPE_FLOAT32 || w->type != RT_TYPE_FLOAT32 || out->type != RT_TYPE_FLOAT32)
                return rt_conv__unsupported(ctx, "CONV_3D", in, w, out);
        if (in->dims[4] != w->dims[3])
                return rt_ctx_error(ctx, "CONV_3D: input has %d channels, filter expects %d",
                                    in->dims[4], w->dims[3]);
        const int32_t oc = w->dims[4];
        if (bias) {
                if (bias->type != RT_TYPE_FLOAT32)
                        return rt_ctx_error(ctx, "CONV_3D: bias must be float32, got %s",
                                            rt_type_name(bias->type));
                if ((int32_t) rt_tensor_count(bias) != oc)
                        return rt_ctx_error(ctx, "CONV_3D: bias has %zu elements for %d output channels",
                                            rt_tensor_count(bias), oc);
        }
        geom3_t g;
        geom3_fill(&g, p, in->dims + 1, w->dims);
        for (int i = 0; i < 3; i++)
                if (g.out[i] <= 0)
                        return rt_ctx_error(ctx, "CONV_3D: filter %dx%dx%d (dilated) does not fit input %dx%dx%d",
                                            w->dims[0], w->dims[1], w->dims[2],
                                            in->dims[1], in->dims[2], in->dims[3]);
        const int32_t dims[5] = { in->dims[0], g.out[0], g.out[1], g.out[2], oc };
        return rt_ctx_resize(ctx, node, 0, 5, dims);
}

static int conv3d_invoke(rt_context_t *ctx, rt_node_t *node) {
        const rt_conv3d_params_t *p = node->params;
        const rt_tensor_t *in = rt_node_input(ctx, node, 0);
        const rt_tensor_t *w = rt_node_input(ctx, node, 1);
        const rt_tensor_t *bias = rt_node_input(ctx, node, 2);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        if (!rt_conv__has_data(in) || !rt_conv__has_data(w) || !rt_conv__has_data(out))
                return rt_ctx_error(ctx, "CONV_3D: tensors are not allocated");
        geom3_t g;
        geom3_fill(&g, p, in->dims + 1, w->dims);
        const int32_t ic = in->dims[4], oc = w->dims[4];
        float lo, hi;
        ku_act_range_f32(p->activation, &lo, &hi);
        const float *x = in->data, *f = w->data;
        const float *b = bias && bias->data ? bias->data : NULL;
        float *y = out->data;
        const int32_t D = g.in[0], H = g.in[1], W = g.in[2];
        const int32_t OD = g.out[0], OH = g.out[1], OW = g.out[2];
        const int32_t KD = g.k[0], KH = g.k[1], KW = g.k[2];
        for (int32_t n = 0; n < in->dims[0]; n++)
        for (int32_t od = 0; od < OD; od++)
        for (int32_t oh = 0; oh < OH; oh++)
        for (int32_t ow = 0; ow < OW; ow++) {
                float *yp = y + ((((size_t) n * OD + od) * OH + oh) * OW + ow) * oc;
                for (int32_t o = 0; o < oc; o++)
                        yp[o] = 0.0f;
                for (int32_t kd = 0; kd < KD; kd++) {
                        const int32_t id = od * g.s[0] - g.pad[0] + kd * g.dil[0];
                        if (id < 0 || id >= D)
                                continue;
                        for (int32_t kh = 0; kh < KH; kh++) {
                                const int32_t ih = oh * g.s[1] - g.pad[1] + kh * g.dil[1];
                                if (ih < 0 || ih >= H)
                                        continue;
                                for (int32_t kw = 0; kw < KW; kw++) {
                                        const int32_t iw = ow * g.s[2] - g.pad[2] + kw * g.dil[2];
                                        if (iw < 0 || iw >= W)
                                                continue;
                                        const float *xp = x + ((((size_t) n * D + id) * H + ih) * W + iw) * ic;
                                        const float *fp = f + (((size_t) kd * KH + kh) * KW + kw) * ic * oc;
                                        for (int32_t c = 0; c < ic; c++) {
                                                const float xv = xp[c];
                                                const float *fr = fp + (size_t) c * oc;
                                                for (int32_t o = 0; o < oc; o++)
                                                        yp[o] += xv * fr[o];
                                        }
                                }
                        }
                }
                for (int32_t o = 0; o < oc; o++)
                        yp[o] = ku_act_f32(yp[o] + (b ? b[o] : 0.0f), lo, hi);
        }
        return 0;
}

const rt_registration_t rt_kernel_conv_3d = {
        .name = "CONV_3D",
        .op = RT_OP_CONV_3D,
        .params_size = sizeof(rt_conv3d_params_t),
        .parse = conv3d_parse,
        .prepare = conv3d_prepare,
        .invoke = conv3d_invoke,
};

/* ---- CONV_3D_TRANSPOSE ---- */

/* Check output_shape against input and filter; fills dims[5]. */
static int conv3dt_output_shape(rt_context_t *ctx, const rt_conv3d_params_t *p,
                                const rt_tensor_t *shape, const rt_tensor_t *in,
                                const rt_tensor_t *w, int32_t *dims) {
        const int32_t *s = shape->data;
        if (!s)
                return rt_ctx_error(ctx, "CONV_3D_TRANSPOSE: output_shape has no data");
        for (int i = 0; i < 5; i++) {
                if (s[i] < 0)
                        return rt_ctx_error(ctx, "CONV_3D_TRANSPOSE: negative output dimension %d", s[i]);
                dims[i] = s[i];
        }
        if (s[0] != in->dims[0])
                return rt_ctx_error(ctx, "CONV_3D_TRANSPOSE: output batch %d differs from input batch %d",
                                    s[0], in->dims[0]);
        if (s[4] != w->dims[3])
                return rt_ctx_error(ctx, "CONV_3D_TRANSPOSE: output has %d channels, filter makes %d",
                                    s[4], w->dims[3]);
        /* The forward conv of the output must give back the input's size. */
        geom3_t g;
        geom3_fill(&g, p, s + 1, w->dims);
        for (int i = 0; i < 3; i++)
                if (g.out[i] != in->dims[i + 1])
                        return rt_ctx_error(ctx, "CONV_3D_TRANSPOSE: output_shape [%d,%d,%d,%d,%d] does not give input size %d in spatial dimension %d",
                                            s[0], s[1], s[2], s[3], s[4], in->dims[i + 1], i);
        return 0;
}

static int conv3dt_prepare(rt_context_t *ctx, rt_node_t *node) {
        const rt_conv3d_params_t *p = node->params;
        int r = check_params(ctx, "CONV_3D_TRANSPOSE", p);
        if (r < 0)
                return r;
        if (node->n_inputs < 3 || node->n_inputs > 4 || node->n_outputs != 1)
                return rt_ctx_error(ctx, "CONV_3D_TRANSPOSE: expected 3 or 4 inputs and 1 output, got %d and %d",
                                    node->n_inputs, node->n_outputs);
        const rt_tensor_t *shape = rt_node_input(ctx, node, 0);
        const rt_tensor_t *w = rt_node_input(ctx, node, 1);
        const rt_tensor_t *in = rt_node_input(ctx, node, 2);
        const rt_tensor_t *bias = rt_node_input(ctx, node, 3);
        const rt_tensor_t *out = rt_node_output(ctx, node, 0);
        if (!shape || !w || !in || !out)
                return rt_ctx_error(ctx, "CONV_3D_TRANSPOSE: output_shape, filter, input and output are required");
        if (shape->type != RT_TYPE_INT32 || shape->rank != 1 || shape->dims[0] != 5)
                return rt_ctx_error(ctx, "CONV_3D_TRANSPOSE: output_shape must be int32[5]");
        if (in->rank != 5 || w->rank != 5)
                return rt_ctx_error(ctx, "CONV_3D_TRANSPOSE: input and filter must be 5-D (got rank %d and %d)",
                                    in->rank, w->rank);
        if (in->type != RT_TYPE_FLOAT32 || w->type != RT_TYPE_FLOAT32 || out->type != RT_TYPE_FLOAT32)
                return rt_conv__unsupported(ctx, "CONV_3D_TRANSPOSE", in, w, out);
        if (in->dims[4] != w->dims[4])
                return rt_ctx_error(ctx, "CONV_3D_TRANSPOSE: input has %d channels, filter expects %d",
                                    in->dims[4], w->dims[4]);
        if (bias) {
                if (bias->type != RT_TYPE_FLOAT32)
                        return rt_ctx_error(ctx, "CONV_3D_TRANSPOSE: bias must be float32, got %s",
                                            rt_type_name(bias->type));
                /* TFLite 2.9 checks the bias against the filter's input
                 * channels (dimension 4) and reads its first output-channels
                 * entries; later releases check the output channels. Take
                 * either, as long as every output channel has an entry. */
                int32_t nb = (int32_t) rt_tensor_count(bias);
                if (nb != w->dims[3] && !(nb == w->dims[4] && nb >= w->dims[3]))
                        return rt_ctx_error(ctx, "CONV_3D_TRANSPOSE: bias has %d elements for %d output channels",
                                            nb, w->dims[3]);
        }
        if (!rt_tensor_is_const(shape))
                return ctx->set_dynamic(ctx, node->outputs[0]);
        int32_t dims[5];
        r = conv3dt_output_shape(ctx, p, shape, in, w, dims);
        if (r < 0)
                return r;
        return rt_ctx_resize(ctx, node, 0, 5, dims);
}

static int conv3dt_invoke(rt_context_t *ctx, rt_node_t *node) {
        const rt_conv3d_params_t *p = node->params;
        const rt_tensor_t *shape = rt_node_input(ctx, node, 0);
        const rt_tensor_t *w = rt_node_input(ctx, node, 1);
        const rt_tensor_t *in = rt_node_input(ctx, node, 2);
        const rt_tensor_t *bias = rt_node_input(ctx, node, 3);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        if (!rt_tensor_is_const(shape)) {
                int32_t dims[5];
                int r = conv3dt_output_shape(ctx, p, shape, in, w, dims);
                if (r < 0)
                        return r;
                r = rt_ctx_resize(ctx, node, 0, 5, dims);
                if (r < 0)
                        return r;
        }
        if (!rt_conv__has_data(in) || !rt_conv__has_data(w) || !rt_conv__has_data(out))
                return rt_ctx_error(ctx, "CONV_3D_TRANSPOSE: tensors are not allocated");
        geom3_t g;
        geom3_fill(&g, p, out->dims + 1, w->dims);
        const int32_t ic = in->dims[4], oc = w->dims[3];
        const int32_t D = in->dims[1], H = in->dims[2], W = in->dims[3];
        const int32_t OD = out->dims[1], OH = out->dims[2], OW = out->dims[3];
        const int32_t KD = g.k[0], KH = g.k[1], KW = g.k[2];
        float lo, hi;
        ku_act_range_f32(p->activation, &lo, &hi);
        const float *x = in->data, *f = w->data;
        const float *b = bias && bias->data ? bias->data : NULL;
        float *y = out->data;
        const size_t n_out = rt_tensor_count(out);
        memset(y, 0, n_out * sizeof(float));
        /* Without dilation TFLite 2.9 runs its optimized kernel (GEMM, then
         * col2im), which takes the depth padding after the input from the
         * height's (padding.height + padding.depth_offset). Its col2im walks
         * (OD + pad before + that pad after - KD) / stride + 1 depth planes
         * of the input; when that is fewer than D, the last input planes
         * contribute nothing. (More than D reads past TFLite's buffer:
         * undefined there, all D planes here.) */
        int32_t d_planes = D;
        if (g.dil[0] == 1 && g.dil[1] == 1 && g.dil[2] == 1) {
                int32_t total[2];
                for (int i = 0; i < 2; i++) {
                        total[i] = (g.out[i] - 1) * g.s[i] + g.k[i] - g.in[i];
                        total[i] = total[i] > 0 ? total[i] : 0;
                }
                int32_t walked = (OD + total[0] / 2 + total[1] / 2 + total[0] % 2 - KD) / g.s[0] + 1;
                d_planes = walked < D ? walked : D;
        }
        /* Scatter each input voxel through the filter. */
        for (int32_t n = 0; n < in->dims[0]; n++)
        for (int32_t id = 0; id < d_planes; id++)
        for (int32_t ih = 0; ih < H; ih++)
        for (int32_t iw = 0; iw < W; iw++) {
                const float *xp = x + ((((size_t) n * D + id) * H + ih) * W + iw) * ic;
                for (int32_t kd = 0; kd < KD; kd++) {
                        const int32_t od = id * g.s[0] - g.pad[0] + kd * g.dil[0];
                        if (od < 0 || od >= OD)
                                continue;
                        for (int32_t kh = 0; kh < KH; kh++) {
                                const int32_t oh = ih * g.s[1] - g.pad[1] + kh * g.dil[1];
                                if (oh < 0 || oh >= OH)
                                        continue;
                                for (int32_t kw = 0; kw < KW; kw++) {
                                        const int32_t ow = iw * g.s[2] - g.pad[2] + kw * g.dil[2];
                                        if (ow < 0 || ow >= OW)
                                                continue;
                                        float *yp = y + ((((size_t) n * OD + od) * OH + oh) * OW + ow) * oc;
                                        const float *fp = f + (((size_t) kd * KH + kh) * KW + kw) * oc * ic;
                                        for (int32_t o = 0; o < oc; o++) {
                                                const float *fr = fp + (size_t) o * ic;
                                                float acc = 0.0f;
                                                for (int32_t c = 0; c < ic; c++)
                                                        acc += xp[c] * fr[c];
                                                yp[o] += acc;
                                        }
                                }
                        }
                }
        }
        for (size_t i = 0; i < n_out; i++)
                y[i] = ku_act_f32(y[i] + (b ? b[i % (size_t) oc] : 0.0f), lo, hi);
        return 0;
}

const rt_registration_t rt_kernel_conv_3d_transpose = {
        .name = "CONV_3D_TRANSPOSE",
        .op = RT_OP_CONV_3D_TRANSPOSE,
        .params_size = sizeof(rt_conv3d_params_t),
        .parse = conv3dt_parse,
        .prepare = conv3dt_prepare,
        .invoke = conv3dt_invoke,
};
