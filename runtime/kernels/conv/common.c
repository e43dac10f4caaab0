/* SPDX-License-Identifier: Apache-2.0 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "conv-internal.h"

int rt_conv__data_init(rt_context_t *ctx, rt_node_t *node, void **ret_data) {
        rt_conv_data_t *d = calloc(1, sizeof(*d));
        if (!d)
                return -ENOMEM;
        for (size_t i = 0; i < sizeof(d->scratch) / sizeof(d->scratch[0]); i++)
                d->scratch[i] = -1;
        *ret_data = d;
        return 0;
}

void rt_conv__data_free(rt_context_t *ctx, void *data) {
        rt_conv_data_t *d = data;
        if (!d)
                return;
        free(d->multiplier);
        free(d->shift);
        free(d->packed);
        free(d->packed_bias);
        free(d);
}

int rt_conv__unsupported(rt_context_t *ctx, const char *op, const rt_tensor_t *input,
                         const rt_tensor_t *weights, const rt_tensor_t *output) {
        (void) rt_ctx_error(ctx, "%s: unsupported type combination: input %s, weights %s, output %s",
                            op, rt_type_name(input->type),
                            weights ? rt_type_name(weights->type) : "-",
                            rt_type_name(output->type));
        return -ENOTSUP;
}

int rt_conv__check_geometry(rt_context_t *ctx, int32_t stride_w, int32_t stride_h,
                            int32_t dilation_w, int32_t dilation_h) {
        if (stride_w < 1 || stride_h < 1)
                return rt_ctx_error(ctx, "strides must be >= 1 (stride_w %d, stride_h %d)",
                                    stride_w, stride_h);
        if (dilation_w < 1 || dilation_h < 1)
                return rt_ctx_error(ctx, "dilations must be >= 1 (dilation_w %d, dilation_h %d)",
                                    dilation_w, dilation_h);
        return 0;
}

static int check_weight_quant(rt_context_t *ctx, const rt_tensor_t *w, int32_t channels,
                              int32_t axis) {
        if (w->quant.n < 1 || !w->quant.scale)
                return rt_ctx_error(ctx, "weights tensor (%s) has no quantization parameters",
                                    rt_type_name(w->type));
        if (w->quant.n > 1) {
                if (w->quant.n != (size_t) channels)
                        return rt_ctx_error(ctx, "weights have %zu scales for %d output channels",
                                            w->quant.n, channels);
                if (w->quant.axis != axis)
                        return rt_ctx_error(ctx, "weights quantized along axis %d, expected %d",
                                            w->quant.axis, axis);
        }
        return 0;
}

int rt_conv__quant_setup(rt_context_t *ctx, rt_conv_data_t *d, const rt_tensor_t *input,
                         const rt_tensor_t *weights, const rt_tensor_t *output,
                         rt_activation_t act, int32_t channels, int32_t axis) {
        int r = check_weight_quant(ctx, weights, channels, axis);
        if (r < 0)
                return r;
        if (input->quant.n < 1 || output->quant.n < 1)
                return rt_ctx_error(ctx, "%s input/output tensors need quantization parameters",
                                    rt_type_name(input->type));
        if (!(input->scale > 0.0f) || !(output->scale > 0.0f))
                return rt_ctx_error(ctx, "quantization scales must be positive (input %g, output %g)",
                                    (double) input->scale, (double) output->scale);
        if (input->type == RT_TYPE_INT16 && (input->zero_point != 0 || output->zero_point != 0))
                return rt_ctx_error(ctx, "int16 activations need zero point 0 (input %d, output %d)",
                                    input->zero_point, output->zero_point);

        if (channels != d->n_channels || !d->multiplier) {
                int32_t *m = realloc(d->multiplier, sizeof(int32_t) * (size_t) (channels ? channels : 1));
                if (!m)
                        return -ENOMEM;
                d->multiplier = m;
                int *s = realloc(d->shift, sizeof(int) * (size_t) (channels ? channels : 1));
                if (!s)
                        return -ENOMEM;
                d->shift = s;
                d->n_channels = channels;
        }
        /* Per-channel: the product is formed in double (TFLite
         * PopulateConvolutionQuantizationParams). */
        for (int32_t c = 0; c < channels; c++) {
                double eff = (double) input->scale * (double) rt_conv__wscale(weights, c) /
                             (double) output->scale;
                ku_quantize_multiplier(eff, &d->multiplier[c], &d->shift[c]);
        }
        /* Legacy per-tensor multiplier (GetQuantizedConvolutionMultipler):
         * the scale product is a float. */
        float prod = input->scale * weights->scale;
        double real = (double) prod / (double) output->scale;
        ku_quantize_multiplier(real, &d->out_multiplier, &d->out_shift);
        ku_act_range_q(act, output, &d->act_min, &d->act_max);
        return 0;
}

int rt_conv__hybrid_setup(rt_context_t *ctx, rt_conv_data_t *d, const rt_tensor_t *weights,
                          int32_t channels, int32_t axis, bool per_channel_allowed) {
        int r = check_weight_quant(ctx, weights, channels, axis);
        if (r < 0)
                return r;
        d->kind = RT_CONV_HYBRID;
        if (per_channel_allowed && weights->quant.n > 1) {
                for (size_t i = 1; i < weights->quant.n; i++)
                        if (weights->quant.scale[i] != weights->quant.scale[0]) {
                                d->kind = RT_CONV_HYBRID_PC;
                                break;
                        }
        }
        return 0;
}

void rt_conv__quantize_symmetric(const float *x, size_t n, int8_t *ret_q, float *ret_scale) {
        float lo = n ? x[0] : 0.0f, hi = lo;
        for (size_t i = 1; i < n; i++) {
                if (x[i] < lo)
                        lo = x[i];
                if (x[i] > hi)
                        hi = x[i];
        }
        float range = fmaxf(fabsf(lo), fabsf(hi));
        if (range == 0.0f) {
                memset(ret_q, 0, n);
                *ret_scale = 1.0f;
                return;
        }
        *ret_scale = range / 127;
        const float inv = 127 / range;
        for (size_t i = 0; i < n; i++) {
                int32_t v = (int32_t) roundf(x[i] * inv);
                ret_q[i] = (int8_t) KU_CLAMP(v, -127, 127);
        }
}

void rt_conv__quantize_asymmetric(const float *x, size_t n, int8_t *ret_q, float *ret_scale,
                                  int32_t *ret_offset) {
        const double qmin = -128.0, qmax = 127.0;
        float lo = n ? x[0] : 0.0f, hi = lo;
        for (size_t i = 1; i < n; i++) {
                if (x[i] < lo)
                        lo = x[i];
                if (x[i] > hi)
                        hi = x[i];
        }
        const double rmin = (double) fminf(0.0f, lo);
        const double rmax = (double) fmaxf(0.0f, hi);
        if (rmin == rmax) {
                memset(ret_q, 0, n);
                *ret_scale = 1.0f;
                *ret_offset = 0;
                return;
        }
        double scale = (rmax - rmin) / (qmax - qmin);
        const double zp_from_min = qmin - rmin / scale;
        const double zp_from_max = qmax - rmax / scale;
        const double err_min = fabs(qmin) + fabs(rmin / scale);
        const double err_max = fabs(qmax) + fabs(rmax / scale);
        const double zp = err_min < err_max ? zp_from_min : zp_from_max;
        int32_t nudged;
        if (zp <= qmin)
                nudged = -128;
        else if (zp >= qmax)
                nudged = 127;
        else
                nudged = (int32_t) (int8_t) round(zp);
        *ret_scale = (float) scale;
        *ret_offset = nudged;
        const float inv = 1.0f / *ret_scale;
        for (size_t i = 0; i < n; i++) {
                int32_t v = (int32_t) roundf((float) nudged + x[i] * inv);
                ret_q[i] = (int8_t) KU_CLAMP(v, -128, 127);
        }
}

float rt_conv__activate(float x, rt_activation_t act) {
        switch (act) {
        case RT_ACT_RELU:
                return x < 0.0f ? 0.0f : x;
        case RT_ACT_RELU_N1_TO_1:
                return x < -1.0f ? -1.0f : (x > 1.0f ? 1.0f : x);
        case RT_ACT_RELU6:
                return x < 0.0f ? 0.0f : (x > 6.0f ? 6.0f : x);
        case RT_ACT_TANH:
                return tanhf(x);
        case RT_ACT_SIGN_BIT:
                return signbit(x) ? 1.0f : 0.0f;
        default:
                return x;
        }
}

int rt_conv__pick_kind(rt_context_t *ctx, const char *op, const rt_tensor_t *in, const rt_tensor_t *w,
                       const rt_tensor_t *bias, const rt_tensor_t *out, rt_conv_kind_t hybrid_kind,
                       rt_conv_kind_t *ret_kind) {
        rt_conv_kind_t kind;
        rt_type_t want_bias;
        switch (in->type) {
        case RT_TYPE_FLOAT32:
                if (out->type != RT_TYPE_FLOAT32)
                        return rt_conv__unsupported(ctx, op, in, w, out);
                if (w->type == RT_TYPE_FLOAT32)
                        kind = RT_CONV_FLOAT;
                else if (w->type == RT_TYPE_INT8)
                        kind = hybrid_kind;
                else
                        return rt_conv__unsupported(ctx, op, in, w, out);
                want_bias = RT_TYPE_FLOAT32;
                break;
        case RT_TYPE_UINT8:
                if (w->type != RT_TYPE_UINT8 || out->type != RT_TYPE_UINT8)
                        return rt_conv__unsupported(ctx, op, in, w, out);
                kind = RT_CONV_UINT8;
                want_bias = RT_TYPE_INT32;
                break;
        case RT_TYPE_INT8:
                if (w->type != RT_TYPE_INT8 || out->type != RT_TYPE_INT8)
                        return rt_conv__unsupported(ctx, op, in, w, out);
                kind = RT_CONV_INT8;
                want_bias = RT_TYPE_INT32;
                break;
        case RT_TYPE_INT16:
                if (w->type != RT_TYPE_INT8 || out->type != RT_TYPE_INT16)
                        return rt_conv__unsupported(ctx, op, in, w, out);
                kind = RT_CONV_INT16;
                want_bias = RT_TYPE_INT64;
                break;
        default:
                return rt_conv__unsupported(ctx, op, in, w, out);
        }
        if (bias && bias->type != want_bias && !(kind == RT_CONV_INT16 && bias->type == RT_TYPE_INT32))
                return rt_ctx_error(ctx, "%s: bias must be %s for %s input, got %s", op, rt_type_name(want_bias),
                                    rt_type_name(in->type), rt_type_name(bias->type));
        *ret_kind = kind;
        return 0;
}
