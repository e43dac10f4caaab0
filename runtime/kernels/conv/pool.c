/* SPDX-License-Identifier: Apache-2.0 */
/* AVERAGE_POOL_2D, MAX_POOL_2D, L2_POOL_2D: TFLite pooling.cc. Average and
 * max pooling take float32, uint8, int8 and int16; L2 pooling float32 only.
 * Quantized pools work on the stored integers (TFLite requires the output to
 * share the input's quantization) and round averages half away from zero. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "conv-internal.h"

typedef enum pool_kind {
        POOL_AVG,
        POOL_MAX,
        POOL_L2,
} pool_kind_t;

static const char *const pool_names[] = {
        [POOL_AVG] = "AVERAGE_POOL_2D",
        [POOL_MAX] = "MAX_POOL_2D",
        [POOL_L2] = "L2_POOL_2D",
};

static int pool_parse(const rt_node_t *node, void *ret_params, rt_context_t *ctx) {
        rt_pool_params_t *p = ret_params;
        fbt_table_t o = node->options;
        p->padding = (rt_padding_t) fbt_i8(o, 0, 0);
        p->stride_w = fbt_i32(o, 1, 0);
        p->stride_h = fbt_i32(o, 2, 0);
        p->filter_w = fbt_i32(o, 3, 0);
        p->filter_h = fbt_i32(o, 4, 0);
        p->activation = (rt_activation_t) fbt_i8(o, 5, 0);
        if (p->padding != RT_PADDING_SAME && p->padding != RT_PADDING_VALID)
                return rt_ctx_error(ctx, "POOL_2D: unknown padding %d", (int) p->padding);
        if ((unsigned) p->activation >= _RT_ACT_MAX)
                return rt_ctx_error(ctx, "POOL_2D: unknown fused activation %d", (int) p->activation);
        return 0;
}

static int pool_prepare(rt_context_t *ctx, rt_node_t *node, pool_kind_t kind) {
        const char *name = pool_names[kind];
        const rt_pool_params_t *p = node->params;
        rt_conv_data_t *d = node->user_data;
        if (!p || !d)
                return rt_ctx_error(ctx, "%s: node has no params or state", name);
        if (node->n_inputs != 1 || node->n_outputs != 1)
                return rt_ctx_error(ctx, "%s: expected 1 input and 1 output, got %d and %d", name,
                                    node->n_inputs, node->n_outputs);
        rt_tensor_t *in = rt_node_input(ctx, node, 0);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        if (!in || !out)
                return rt_ctx_error(ctx, "%s: input and output are required", name);
        if (in->rank != 4)
                return rt_ctx_error(ctx, "%s: input must be 4-D, got rank %d", name, in->rank);
        if (p->stride_w < 1 || p->stride_h < 1 || p->filter_w < 1 || p->filter_h < 1)
                return rt_ctx_error(ctx, "%s: strides (%d, %d) and filter size (%d, %d) must be >= 1",
                                    name, p->stride_w, p->stride_h, p->filter_w, p->filter_h);
        if (p->padding != RT_PADDING_SAME && p->padding != RT_PADDING_VALID)
                return rt_ctx_error(ctx, "%s: unknown padding %d", name, (int) p->padding);
        if (in->type != out->type)
                return rt_conv__unsupported(ctx, name, in, NULL, out);
        switch (in->type) {
        case RT_TYPE_FLOAT32:
                d->kind = RT_CONV_FLOAT;
                break;
        case RT_TYPE_UINT8:
        case RT_TYPE_INT8:
        case RT_TYPE_INT16:
                if (kind == POOL_L2)
                        return rt_conv__unsupported(ctx, name, in, NULL, out);
                if (in->type == RT_TYPE_INT16 && (in->zero_point != 0 || out->zero_point != 0))
                        return rt_ctx_error(ctx, "%s: int16 tensors need zero point 0", name);
                d->kind = in->type == RT_TYPE_UINT8 ? RT_CONV_UINT8 :
                          in->type == RT_TYPE_INT8 ? RT_CONV_INT8 : RT_CONV_INT16;
                if (out->quant.n >= 1 && out->scale > 0.0f) {
                        ku_act_range_q(p->activation, out, &d->act_min, &d->act_max);
                } else {
                        ku_type_range(out->type, &d->act_min, &d->act_max);
                }
                break;
        default:
                return rt_conv__unsupported(ctx, name, in, NULL, out);
        }
        const int32_t oh = ku_out_size(p->padding, in->dims[1], p->filter_h, p->stride_h, 1);
        const int32_t ow = ku_out_size(p->padding, in->dims[2], p->filter_w, p->stride_w, 1);
        if (oh <= 0 || ow <= 0)
                return rt_ctx_error(ctx, "%s: filter %dx%d does not fit input %dx%d", name,
                                    p->filter_h, p->filter_w, in->dims[1], in->dims[2]);
        d->pad_h = ku_pad_before(in->dims[1], p->filter_h, p->stride_h, 1, oh);
        d->pad_w = ku_pad_before(in->dims[2], p->filter_w, p->stride_w, 1, ow);
        ku_act_range_f32(p->activation, &d->f_min, &d->f_max);
        const int32_t dims[4] = { in->dims[0], oh, ow, in->dims[3] };
        return rt_ctx_resize(ctx, node, 0, 4, dims);
}

static int pool_invoke(rt_context_t *ctx, rt_node_t *node, pool_kind_t kind) {
        const rt_pool_params_t *p = node->params;
        const rt_conv_data_t *d = node->user_data;
        rt_tensor_t *in = rt_node_input(ctx, node, 0);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        if (!rt_conv__has_data(in) || !rt_conv__has_data(out))
                return rt_ctx_error(ctx, "%s: a tensor has no data", pool_names[kind]);
        const int32_t n = in->dims[0], h = in->dims[1], w = in->dims[2], c = in->dims[3];
        const int32_t oh = out->dims[1], ow = out->dims[2];
        const bool is_float = d->kind == RT_CONV_FLOAT;
        const float *xf = in->data;
        float *yf = out->data;
        for (int32_t b = 0; b < n; b++)
        for (int32_t oy = 0; oy < oh; oy++)
        for (int32_t ox = 0; ox < ow; ox++) {
                /* The window clipped to the input (padding is never counted). */
                const int32_t y0 = oy * p->stride_h - d->pad_h, x0 = ox * p->stride_w - d->pad_w;
                const int32_t fy0 = KU_MAX(0, -y0), fy1 = KU_MIN(p->filter_h, h - y0);
                const int32_t fx0 = KU_MAX(0, -x0), fx1 = KU_MIN(p->filter_w, w - x0);
                const int32_t count = (fy1 - fy0) * (fx1 - fx0);
                const size_t obase = (((size_t) b * oh + oy) * ow + ox) * c;
                for (int32_t ch = 0; ch < c; ch++) {
                        if (is_float) {
                                float acc = kind == POOL_MAX ? -FLT_MAX : 0.0f;
                                for (int32_t fy = fy0; fy < fy1; fy++)
                                for (int32_t fx = fx0; fx < fx1; fx++) {
                                        float v = xf[(((size_t) b * h + y0 + fy) * w + x0 + fx) * c + ch];
                                        if (kind == POOL_MAX)
                                                acc = v > acc ? v : acc;
                                        else if (kind == POOL_AVG)
                                                acc += v;
                                        else
                                                acc += v * v;
                                }
                                if (kind == POOL_AVG)
                                        acc = count > 0 ? acc / (float) count : 0.0f;
                                else if (kind == POOL_L2)
                                        acc = count > 0 ? sqrtf(acc / (float) count) : 0.0f;
                                yf[obase + ch] = ku_act_f32(acc, d->f_min, d->f_max);
                                continue;
                        }
                        int32_t acc = 0;
                        if (kind == POOL_MAX)
                                ku_type_range(in->type, &acc, &(int32_t){ 0 });
                        for (int32_t fy = fy0; fy < fy1; fy++)
                        for (int32_t fx = fx0; fx < fx1; fx++) {
                                int32_t v = rt_conv__load(in, (((size_t) b * h + y0 + fy) * w + x0 + fx) * c + ch);
                                if (kind == POOL_MAX)
                                        acc = v > acc ? v : acc;
                                else
                                        acc += v;
                        }
                        if (kind == POOL_AVG) {
                                if (count == 0)
                                        acc = 0;
                                else if (d->kind == RT_CONV_UINT8)
                                        acc = (acc + count / 2) / count;
                                else
                                        acc = acc > 0 ? (acc + count / 2) / count : (acc - count / 2) / count;
                        }
                        rt_conv__store(out, obase + ch, KU_CLAMP(acc, d->act_min, d->act_max));
                }
        }
        return 0;
}

static int avg_prepare(rt_context_t *ctx, rt_node_t *node) {
        return pool_prepare(ctx, node, POOL_AVG);
}

static int avg_invoke(rt_context_t *ctx, rt_node_t *node) {
        return pool_invoke(ctx, node, POOL_AVG);
}

static int max_prepare(rt_context_t *ctx, rt_node_t *node) {
        return pool_prepare(ctx, node, POOL_MAX);
}

static int max_invoke(rt_context_t *ctx, rt_node_t *node) {
        return pool_invoke(ctx, node, POOL_MAX);
}

static int l2_prepare(rt_context_t *ctx, rt_node_t *node) {
        return pool_prepare(ctx, node, POOL_L2);
}

static int l2_invoke(rt_context_t *ctx, rt_node_t *node) {
        return pool_invoke(ctx, node, POOL_L2);
}

const rt_registration_t rt_kernel_average_pool_2d = {
        .name = "AVERAGE_POOL_2D",
        .op = RT_OP_AVERAGE_POOL_2D,
        .params_size = sizeof(rt_pool_params_t),
        .parse = pool_parse,
        .init = rt_conv__data_init,
        .free = rt_conv__data_free,
        .prepare = avg_prepare,
        .invoke = avg_invoke,
};

const rt_registration_t rt_kernel_max_pool_2d = {
        .name = "MAX_POOL_2D",
        .op = RT_OP_MAX_POOL_2D,
        .params_size = sizeof(rt_pool_params_t),
        .parse = pool_parse,
        .init = rt_conv__data_init,
        .free = rt_conv__data_free,
        .prepare = max_prepare,
        .invoke = max_invoke,
};

const rt_registration_t rt_kernel_l2_pool_2d = {
        .name = "L2_POOL_2D",
        .op = RT_OP_L2_POOL_2D,
        .params_size = sizeof(rt_pool_params_t),
        .parse = pool_parse,
        .init = rt_conv__data_init,
        .free = rt_conv__data_free,
        .prepare = l2_prepare,
        .invoke = l2_invoke,
};
