/* SPDX-License-Identifier: Apache-2.0 */
/*
 * LOG_SOFTMAX over the last axis: TFLite activations.cc (generic optimized
 * kernel).
 *
 *  - float32: x - max - log(sum(exp(x - max))).
 *  - uint8/int8: output scale 16/256 with zero point 255 (uint8) or 127
 *    (int8). The row's sum of exp comes from the softmax float table
 *    (beta 1); each output is rint(x * s_in / s_out - (s_in * max +
 *    log(sum)) / s_out) + zero point, clamped.
 */
#include <math.h>
#include <stdlib.h>

#include "reduce-internal.h"

#define OP "LOG_SOFTMAX"

typedef struct log_softmax_data {
        float table[256];
} log_softmax_data_t;

static int log_softmax_init(rt_context_t *ctx, rt_node_t *node, void **ret_data) {
        (void) ctx;
        (void) node;
        log_softmax_data_t *d = calloc(1, sizeof(*d));
        if (!d)
                return -ENOMEM;
        *ret_data = d;
        return 0;
}

static void log_softmax_free(rt_context_t *ctx, void *data) {
        (void) ctx;
        free(data);
}

static int log_softmax_prepare(rt_context_t *ctx, rt_node_t *node) {
        log_softmax_data_t *d = node->user_data;
        if (!d)
                return rt_ctx_error(ctx, OP ": node has no state");
        rt_tensor_t *in, *out;
        int r = rt_reduce__prepare_same_shape(ctx, node, OP, &in, &out);
        if (r < 0)
                return r;
        if (out->type != in->type)
                return rt_reduce__unsupported(ctx, OP, in, out);
        switch (in->type) {
        case RT_TYPE_FLOAT32:
                return 0;
        case RT_TYPE_UINT8:
        case RT_TYPE_INT8: {
                const int32_t want_zp = in->type == RT_TYPE_UINT8 ? 255 : 127;
                if (out->scale != 16.0f / 256 || out->zero_point != want_zp)
                        return rt_ctx_error(ctx, OP ": output must have scale 16/256 and zero point "
                                            "%d, got %g and %d", want_zp, out->scale, out->zero_point);
                const float scale = -in->scale * 1.0f;
                for (int32_t v = 0; v <= 255; v++)
                        d->table[255 - v] = expf(scale * (float) v);
                return 0;
        }
        default:
                return rt_reduce__unsupported(ctx, OP, in, out);
        }
}

static void log_softmax_float(const float *x, float *y, size_t outer, int32_t depth) {
        for (size_t o = 0; o < outer; o++, x += depth, y += depth) {
                float max = x[0];
                for (int32_t c = 1; c < depth; c++)
                        max = x[c] > max ? x[c] : max;
                float sum = 0.0f;
                for (int32_t c = 0; c < depth; c++)
                        sum += expf(x[c] - max);
                const float log_sum = logf(sum);
                for (int32_t c = 0; c < depth; c++)
                        y[c] = x[c] - max - log_sum;
        }
}

static inline int32_t load8(const void *x, rt_type_t t, size_t i) {
        return t == RT_TYPE_UINT8 ? ((const uint8_t *) x)[i] : ((const int8_t *) x)[i];
}

static void log_softmax_quant(const log_softmax_data_t *d, const rt_tensor_t *in, rt_tensor_t *out,
                              size_t outer, int32_t depth) {
        int32_t qmin, qmax;
        ku_type_range(out->type, &qmin, &qmax);
        for (size_t o = 0; o < outer; o++) {
                const size_t base = o * (size_t) depth;
                int32_t max = qmin;
                for (int32_t c = 0; c < depth; c++) {
                        int32_t v = load8(in->data, in->type, base + (size_t) c);
                        max = v > max ? v : max;
                }
                const float *t = d->table + 255 - max;
                float sum = 0.0f;
                for (int32_t c = 0; c < depth; c++)
                        sum += t[load8(in->data, in->type, base + (size_t) c)];
                const float log_sum = logf(sum);
                const float scale = in->scale / out->scale;
                const float pre = (in->scale * (float) max + log_sum) / out->scale;
                for (int32_t c = 0; c < depth; c++) {
                        const size_t k = base + (size_t) c;
                        const float lp = scale * (float) load8(in->data, in->type, k) - pre;
                        int32_t q = (int32_t) (rintf(lp) + (float) out->zero_point);
                        q = KU_CLAMP(q, qmin, qmax);
                        if (out->type == RT_TYPE_UINT8)
                                ((uint8_t *) out->data)[k] = (uint8_t) q;
                        else
                                ((int8_t *) out->data)[k] = (int8_t) q;
                }
        }
}

static int log_softmax_invoke(rt_context_t *ctx, rt_node_t *node) {
        const log_softmax_data_t *d = node->user_data;
        rt_tensor_t *in = rt_node_input(ctx, node, 0);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        size_t outer;
        int32_t depth;
        rt_reduce_rows(in, &outer, &depth);
        if (outer == 0 || depth == 0)
                return 0;
        switch (in->type) {
        case RT_TYPE_FLOAT32:
                log_softmax_float(in->data, out->data, outer, depth);
                return 0;
        case RT_TYPE_UINT8:
        case RT_TYPE_INT8:
                log_softmax_quant(d, in, out, outer, depth);
                return 0;
        default:
                return rt_reduce__unsupported(ctx, OP, in, out);
        }
}

const rt_registration_t rt_kernel_log_softmax = {
        .name = OP,
        .op = RT_OP_LOG_SOFTMAX,
        .params_size = 0,
        .init = log_softmax_init,
        .free = log_softmax_free,
        .prepare = log_softmax_prepare,
        .invoke = log_softmax_invoke,
};
