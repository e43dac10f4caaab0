/* SPDX-License-Identifier: Apache-2.0 */
/* FULLY_CONNECTED: TFLite fully_connected.cc (float, uint8, int8, 16x8,
 * hybrid with symmetric or asymmetric input quantization). */
#include <string.h>

#include "conv-internal.h"

static int fc_parse(const rt_node_t *node, void *ret_params, rt_context_t *ctx) {
        rt_fc_params_t *p = ret_params;
        fbt_table_t o = node->options;
        p->activation = (rt_activation_t) fbt_i8(o, 0, 0);
        p->weights_format = (rt_fc_weights_format_t) fbt_i8(o, 1, 0);
        p->keep_num_dims = fbt_bool(o, 2, false);
        p->asymmetric_quantize_inputs = fbt_bool(o, 3, false);
        if ((unsigned) p->activation >= _RT_ACT_MAX)
                return rt_ctx_error(ctx, "FULLY_CONNECTED: unknown fused activation %d",
                                    (int) p->activation);
        return 0;
}

static int fc_prepare(rt_context_t *ctx, rt_node_t *node) {
        const rt_fc_params_t *p = node->params;
        rt_conv_data_t *d = node->user_data;
        if (!p || !d)
                return rt_ctx_error(ctx, "FULLY_CONNECTED: node has no params or state");
        if (p->weights_format != RT_FC_WEIGHTS_DEFAULT) {
                (void) rt_ctx_error(ctx, "FULLY_CONNECTED: weights format %d (SHUFFLED4x16INT8) is not supported",
                                    (int) p->weights_format);
                return -ENOTSUP;
        }
        if (node->n_inputs < 2 || node->n_inputs > 3 || node->n_outputs != 1)
                return rt_ctx_error(ctx, "FULLY_CONNECTED: expected 2 or 3 inputs and 1 output, got %d and %d",
                                    node->n_inputs, node->n_outputs);
        rt_tensor_t *in = rt_node_input(ctx, node, 0);
        rt_tensor_t *w = rt_node_input(ctx, node, 1);
        rt_tensor_t *bias = rt_node_input(ctx, node, 2);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        if (!in || !w || !out)
                return rt_ctx_error(ctx, "FULLY_CONNECTED: input, weights and output are required");
        if (w->rank != 2)
                return rt_ctx_error(ctx, "FULLY_CONNECTED: weights must be 2-D, got rank %d", w->rank);
        if (in->rank < 1)
                return rt_ctx_error(ctx, "FULLY_CONNECTED: input must have rank >= 1");
        const int32_t units = w->dims[0], depth = w->dims[1];
        const size_t total = rt_tensor_count(in);
        if (depth <= 0 || units < 0 || total % (size_t) depth != 0)
                return rt_ctx_error(ctx, "FULLY_CONNECTED: input of %zu elements does not split into rows of %d",
                                    total, depth);
        if (p->keep_num_dims && in->dims[in->rank - 1] != depth)
                return rt_ctx_error(ctx, "FULLY_CONNECTED: keep_num_dims needs the last input dimension (%d) to equal the weights depth (%d)",
                                    in->dims[in->rank - 1], depth);
        if (bias && (int32_t) rt_tensor_count(bias) != units)
                return rt_ctx_error(ctx, "FULLY_CONNECTED: bias has %zu elements for %d units",
                                    rt_tensor_count(bias), units);

        int r = rt_conv__pick_kind(ctx, "FULLY_CONNECTED", in, w, bias, out, RT_CONV_HYBRID, &d->kind);
        if (r < 0)
                return r;

        const int32_t batch = (int32_t) (total / (size_t) depth);
        d->batch = batch;
        if (d->kind == RT_CONV_HYBRID) {
                r = rt_conv__hybrid_setup(ctx, d, w, units, 0, true);
                if (r < 0)
                        return r;
                const size_t nb = batch > 0 ? (size_t) batch : 1;
                r = ctx->request_scratch(ctx, node, total ? total : 1, &d->scratch[0]);
                if (r >= 0)
                        r = ctx->request_scratch(ctx, node, sizeof(float) * nb, &d->scratch[1]);
                if (r >= 0)
                        r = ctx->request_scratch(ctx, node, sizeof(int32_t) * nb, &d->scratch[2]);
                if (r < 0)
                        return r;
        } else if (d->kind != RT_CONV_FLOAT) {
                r = rt_conv__quant_setup(ctx, d, in, w, out, p->activation, units, 0);
                if (r < 0)
                        return r;
                /* TFLite's FULLY_CONNECTED requantizes with the per-tensor
                 * multiplier (float scale product) unless the weights are
                 * really per-channel. */
                if (w->quant.n <= 1) {
                        for (int32_t c = 0; c < units; c++) {
                                d->multiplier[c] = d->out_multiplier;
                                d->shift[c] = d->out_shift;
                        }
                }
        }
        d->ruy_rounding = d->kind == RT_CONV_INT8 || d->kind == RT_CONV_UINT8;
        /* TFLite 2.9 EvalQuantized, int16 activations: the int64 reference
         * kernel for an int64 bias or a non-zero (legacy) zero point, else
         * the optimized GEMM through ruy (int16 zero points are 0 here). */
        const bool ruy16 = d->kind == RT_CONV_INT16 && (!bias || bias->type == RT_TYPE_INT32) &&
                           (w->quant.n > 1 || w->zero_point == 0);
        d->acc16 = ruy16 ? RT_CONV_ACC16_RUY32 : RT_CONV_ACC16_INT64;
        ku_act_range_f32(p->activation, &d->f_min, &d->f_max);

        int32_t dims[RT_MAX_RANK];
        int32_t rank;
        if (p->keep_num_dims) {
                rank = in->rank;
                memcpy(dims, in->dims, sizeof(int32_t) * (size_t) rank);
                dims[rank - 1] = units;
        } else {
                rank = 2;
                dims[0] = batch;
                dims[1] = units;
        }
        return rt_ctx_resize(ctx, node, 0, rank, dims);
}

#define DEFINE_FC_Q(name, in_t, w_t, acc_t)                                                          \
static void name(const rt_conv_data_t *d, int32_t batch, int32_t units, int32_t depth,               \
                 const in_t *x, const w_t *f, const rt_tensor_t *bias, rt_tensor_t *out,             \
                 int32_t in_off, int32_t w_off) {                                                    \
        for (int32_t b = 0; b < batch; b++) {                                                        \
                const in_t *xr = x + (size_t) b * depth;                                             \
                for (int32_t u = 0; u < units; u++) {                                                \
                        const w_t *fr = f + (size_t) u * depth;                                      \
                        acc_t acc = 0;                                                               \
                        for (int32_t k = 0; k < depth; k++)                                          \
                                acc += (acc_t) ((int32_t) fr[k] + w_off) * ((int32_t) xr[k] + in_off); \
                        acc += (acc_t) rt_conv__bias_i(bias, u);                                     \
                        rt_conv__store(out, (size_t) b * units + u,                                  \
                                       rt_conv__requant(d, acc, u, out->zero_point));                \
                }                                                                                    \
        }                                                                                            \
}

DEFINE_FC_Q(fc_u8, uint8_t, uint8_t, int32_t)
DEFINE_FC_Q(fc_i8, int8_t, int8_t, int32_t)
DEFINE_FC_Q(fc_i16, int16_t, int8_t, int64_t)

#if defined(__SSE__)
/* One batch row, four units at a time: each unit's four lanes are a
 * register, the four units' (l0 + l2) + (l1 + l3) one transpose, the tail
 * terms, bias and clamp one vector operation per term: the same roundings
 * in the same order as rt_conv__dot_f32() unit by unit (the clamp as
 * ku_act_f32(): a NaN passes, -0 stays). Returns the units done. */
static int32_t fc_float_row4(const rt_conv_data_t *d, int32_t units, int32_t depth, const float *x,
                             const float *f, const rt_tensor_t *bias, float *y) {
        const int32_t full = depth / 4 * 4;
        const __m128 lo = _mm_set1_ps(d->f_min), hi = _mm_set1_ps(d->f_max);
        int32_t u = 0;
        for (; u + 4 <= units; u += 4) {
                const float *f0 = f + (size_t) u * depth, *f1 = f0 + depth, *f2 = f1 + depth, *f3 = f2 + depth;
                __m128 a0 = _mm_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
                for (int32_t k = 0; k < full; k += 4) {
                        const __m128 xv = _mm_loadu_ps(x + k);
                        a0 = _mm_add_ps(a0, _mm_mul_ps(xv, _mm_loadu_ps(f0 + k)));
                        a1 = _mm_add_ps(a1, _mm_mul_ps(xv, _mm_loadu_ps(f1 + k)));
                        a2 = _mm_add_ps(a2, _mm_mul_ps(xv, _mm_loadu_ps(f2 + k)));
                        a3 = _mm_add_ps(a3, _mm_mul_ps(xv, _mm_loadu_ps(f3 + k)));
                }
                /* [u0 l0+l2, u1 l0+l2, u0 l1+l3, u1 l1+l3], the same for u2, u3 */
                const __m128 p01 = _mm_add_ps(_mm_unpacklo_ps(a0, a1), _mm_unpackhi_ps(a0, a1));
                const __m128 p23 = _mm_add_ps(_mm_unpacklo_ps(a2, a3), _mm_unpackhi_ps(a2, a3));
                __m128 s = _mm_add_ps(_mm_movelh_ps(p01, p23), _mm_movehl_ps(p23, p01));
                for (int32_t k = full; k < depth; k++)
                        s = _mm_add_ps(s, _mm_mul_ps(_mm_set1_ps(x[k]), _mm_setr_ps(f0[k], f1[k], f2[k], f3[k])));
                if (bias)
                        s = _mm_add_ps(s, _mm_loadu_ps((const float *) bias->data + u));
                else
                        s = _mm_add_ps(s, _mm_setzero_ps());
                _mm_storeu_ps(y + u, _mm_min_ps(hi, _mm_max_ps(lo, s)));
        }
        return u;
}
#endif

static void fc_float(const rt_conv_data_t *d, int32_t batch, int32_t units, int32_t depth,
                     const float *x, const float *f, const rt_tensor_t *bias, float *y) {
        for (int32_t b = 0; b < batch; b++) {
                const float *xr = x + (size_t) b * depth;
                int32_t u = 0;
#if defined(__SSE__)
                if (batch == 1)
                        u = fc_float_row4(d, units, depth, xr, f, bias, y);
#endif
                for (; u < units; u++) {
                        const float *fr = f + (size_t) u * depth;
                        float acc = 0.0f;
                        if (batch == 1) {
                                acc = rt_conv__dot_f32(xr, fr, depth);
                        } else {
                                for (int32_t k = 0; k < depth; k++)
                                        acc += xr[k] * fr[k];
                        }
                        y[(size_t) b * units + u] =
                                ku_act_f32(acc + rt_conv__bias_f(bias, u), d->f_min, d->f_max);
                }
        }
}

/* TFLite EvalHybrid: quantize each row, integer dot products, then
 * output = bias + dot * scale, then the activation function itself (TANH
 * included, unlike the float path). */
static int fc_hybrid(rt_context_t *ctx, rt_node_t *node, const rt_fc_params_t *p,
                     const rt_conv_data_t *d, int32_t batch, int32_t units, int32_t depth,
                     const rt_tensor_t *in, const rt_tensor_t *w, const rt_tensor_t *bias,
                     float *y) {
        int8_t *xq = ctx->get_scratch(ctx, node, d->scratch[0]);
        float *scales = ctx->get_scratch(ctx, node, d->scratch[1]);
        int32_t *offsets = ctx->get_scratch(ctx, node, d->scratch[2]);
        if (!xq || !scales || !offsets)
                return rt_ctx_error(ctx, "FULLY_CONNECTED: hybrid scratch memory missing");
        const bool pc = d->kind == RT_CONV_HYBRID_PC;
        const float *x = in->data;
        const int8_t *f = w->data;
        for (int32_t b = 0; b < batch; b++) {
                const size_t o = (size_t) b * depth;
                if (p->asymmetric_quantize_inputs) {
                        rt_conv__quantize_asymmetric(x + o, (size_t) depth, xq + o, &scales[b], &offsets[b]);
                } else {
                        rt_conv__quantize_symmetric(x + o, (size_t) depth, xq + o, &scales[b]);
                        offsets[b] = 0;
                }
                if (!pc)
                        scales[b] *= w->scale;
        }
        for (int32_t b = 0; b < batch; b++) {
                const int8_t *xr = xq + (size_t) b * depth;
                for (int32_t u = 0; u < units; u++) {
                        const int8_t *fr = f + (size_t) u * depth;
                        int32_t dot = 0, row_sum = 0;
                        for (int32_t k = 0; k < depth; k++) {
                                dot += (int32_t) fr[k] * (int32_t) xr[k];
                                row_sum += fr[k];
                        }
                        dot -= row_sum * offsets[b];
                        float scale = pc ? scales[b] * rt_conv__wscale(w, u) : scales[b];
                        float v = rt_conv__bias_f(bias, u);
                        v += (float) dot * scale;
                        y[(size_t) b * units + u] = rt_conv__activate(v, p->activation);
                }
        }
        return 0;
}

static int fc_invoke(rt_context_t *ctx, rt_node_t *node) {
        const rt_fc_params_t *p = node->params;
        const rt_conv_data_t *d = node->user_data;
        /* fc_prepare() checked the indices and shapes, and every resize
         * prepares again: no bounds checks or element count per invoke (a
         * third of a small layer's time). */
        rt_tensor_t *in = &ctx->tensors[node->inputs[0]];
        rt_tensor_t *w = &ctx->tensors[node->inputs[1]];
        rt_tensor_t *bias = node->n_inputs > 2 && node->inputs[2] >= 0 ? &ctx->tensors[node->inputs[2]] : NULL;
        rt_tensor_t *out = &ctx->tensors[node->outputs[0]];
        if (!in->data || !w->data || !out->data || (bias && !bias->data))
                return rt_ctx_error(ctx, "FULLY_CONNECTED: a tensor has no data");
        const int32_t units = w->dims[0], depth = w->dims[1];
        const int32_t batch = d->batch;
        switch (d->kind) {
        case RT_CONV_FLOAT:
                fc_float(d, batch, units, depth, in->data, w->data, bias, out->data);
                break;
        case RT_CONV_UINT8:
                fc_u8(d, batch, units, depth, in->data, w->data, bias, out, -in->zero_point,
                      -w->zero_point);
                break;
        case RT_CONV_INT8:
                fc_i8(d, batch, units, depth, in->data, w->data, bias, out, -in->zero_point,
                      w->quant.n > 1 ? 0 : -w->zero_point);
                break;
        case RT_CONV_INT16:
                fc_i16(d, batch, units, depth, in->data, w->data, bias, out, -in->zero_point,
                       w->quant.n > 1 ? 0 : -w->zero_point);
                break;
        case RT_CONV_HYBRID:
        case RT_CONV_HYBRID_PC:
                return fc_hybrid(ctx, node, p, d, batch, units, depth, in, w, bias, out->data);
        }
        return 0;
}

const rt_registration_t rt_kernel_fully_connected = {
        .name = "FULLY_CONNECTED",
        .op = RT_OP_FULLY_CONNECTED,
        .params_size = sizeof(rt_fc_params_t),
        .parse = fc_parse,
        .init = rt_conv__data_init,
        .free = rt_conv__data_free,
        .prepare = fc_prepare,
        .invoke = fc_invoke,
};
