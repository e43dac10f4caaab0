/* SPDX-License-Identifier: Apache-2.0 */
/*
 * MEAN: TFLite reduce.cc EvalMean as registered on x86-64 (the reference
 * kernel; the NEON-only optimized path is not used there: its int8 Mean4D
 * misses the tf2_mobilenet_v2 golden by a step where this one is exact).
 *
 * Quantized inputs take one of three routes, as in TFLite:
 *  - keep_dims, rank 4 and axes exactly {1, 2}: the "Mean4D" kernels
 *    (uint8: sum * multiplier + float-rounded bias; int8/int16: zero-point
 *    corrected sum * (in_scale / out_scale), then a rounded division);
 *  - same scale and zero point in and out: the raw values' sum divided by
 *    the count, truncating;
 *  - otherwise QuantizedMeanOrSum: the mean requantized in float.
 */
#include <math.h>
#include <string.h>

#include "reduce-internal.h"

#define OP "MEAN"

static int mean_prepare(rt_context_t *ctx, rt_node_t *node) {
        int r = rt_reduce__prepare(ctx, node, OP);
        if (r < 0)
                return r;
        rt_tensor_t *in = rt_node_input(ctx, node, 0);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        switch (in->type) {
        case RT_TYPE_FLOAT32:
        case RT_TYPE_INT32:
        case RT_TYPE_INT64:
        case RT_TYPE_UINT8:
        case RT_TYPE_INT8:
                break;
        case RT_TYPE_INT16:
                if (in->zero_point != 0 || out->zero_point != 0)
                        return rt_ctx_error(ctx, OP ": int16 needs zero points 0, got %d and %d",
                                            in->zero_point, out->zero_point);
                break;
        default:
                return rt_reduce__unsupported(ctx, OP, in, out);
        }
        if (out->type != in->type)
                return rt_reduce__unsupported(ctx, OP, in, out);
        return 0;
}

/* Element `off` of an integer tensor as int32. */
static inline int32_t load_q(const void *data, rt_type_t type, int64_t off) {
        switch (type) {
        case RT_TYPE_UINT8: return ((const uint8_t *) data)[off];
        case RT_TYPE_INT8: return ((const int8_t *) data)[off];
        default: return ((const int16_t *) data)[off];
        }
}

static inline void store_q(void *data, rt_type_t type, size_t i, int32_t v) {
        switch (type) {
        case RT_TYPE_UINT8: ((uint8_t *) data)[i] = (uint8_t) v; break;
        case RT_TYPE_INT8: ((int8_t *) data)[i] = (int8_t) v; break;
        default: ((int16_t *) data)[i] = (int16_t) v; break;
        }
}

/* TFLite checks the axis values as written, not resolved: [1, 2] or [2, 1]. */
static bool is_mean4d(const rt_tensor_t *in, const rt_tensor_t *axis, bool keep_dims) {
        if (!keep_dims || in->rank != 4 || rt_tensor_count(axis) != 2)
                return false;
        int32_t a[2];
        memcpy(a, axis->data, sizeof(a));
        return (a[0] == 1 && a[1] == 2) || (a[0] == 2 && a[1] == 1);
}

static void mean_float(const rt_reduce_plan_t *pl, const float *x, float *y) {
        rt_reduce_odo_t o, i;
        rt_reduce_odo_init(&o, pl->n_outer, pl->outer_dims, pl->outer_strides);
        for (size_t k = 0; k < pl->outer_count; k++, rt_reduce_odo_next(&o)) {
                float sum = 0.0f;
                rt_reduce_odo_init(&i, pl->n_inner, pl->inner_dims, pl->inner_strides);
                for (size_t j = 0; j < pl->inner_count; j++, rt_reduce_odo_next(&i))
                        sum += x[o.off + i.off];
                y[k] = sum / (float) pl->inner_count;
        }
}

static void mean_int(const rt_reduce_plan_t *pl, const rt_tensor_t *in, rt_tensor_t *out) {
        rt_reduce_odo_t o, i;
        rt_reduce_odo_init(&o, pl->n_outer, pl->outer_dims, pl->outer_strides);
        const int64_t n = (int64_t) pl->inner_count;
        for (size_t k = 0; k < pl->outer_count; k++, rt_reduce_odo_next(&o)) {
                uint64_t sum = 0;  /* int64 accumulator, wrapping like TFLite's */
                rt_reduce_odo_init(&i, pl->n_inner, pl->inner_dims, pl->inner_strides);
                for (size_t j = 0; j < pl->inner_count; j++, rt_reduce_odo_next(&i)) {
                        if (in->type == RT_TYPE_INT32)
                                sum += (uint64_t) (int64_t) ((const int32_t *) in->data)[o.off + i.off];
                        else
                                sum += (uint64_t) ((const int64_t *) in->data)[o.off + i.off];
                }
                int64_t m = (int64_t) sum / n;
                if (out->type == RT_TYPE_INT32)
                        ((int32_t *) out->data)[k] = (int32_t) m;
                else
                        ((int64_t *) out->data)[k] = m;
        }
}

static int mean_quant(rt_context_t *ctx, rt_node_t *node, const rt_reduce_plan_t *pl) {
        const rt_reducer_params_t *p = node->params;
        const rt_tensor_t *in = rt_node_input(ctx, node, 0);
        const rt_tensor_t *axis = rt_node_input(ctx, node, 1);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        int32_t qmin, qmax;
        ku_type_range(out->type, &qmin, &qmax);
        const int32_t in_zp = in->zero_point, out_zp = out->zero_point;
        const int32_t n = (int32_t) pl->inner_count;

        enum { MEAN4D_UINT8, MEAN4D_INT, SAME_SCALE, REQUANT } route;
        if (is_mean4d(in, axis, p->keep_dims))
                route = in->type == RT_TYPE_UINT8 ? MEAN4D_UINT8 : MEAN4D_INT;
        else if (in_zp == out_zp && in->scale == out->scale)
                route = SAME_SCALE;
        else
                route = REQUANT;

        if (route != SAME_SCALE && (in->scale <= 0.0f || out->scale <= 0.0f))
                return rt_ctx_error(ctx, OP ": %s input and output need quantization scales",
                                    rt_type_name(in->type));

        int32_t mult = 0;
        int shift = 0;
        int32_t bias4d = 0;
        if (route == MEAN4D_UINT8) {
                const float num = (float) n;
                float t = (float) in_zp * in->scale / out->scale;
                t = t > 0 ? t + 0.5f : t - 0.5f;
                bias4d = out_zp - (int32_t) t;
                ku_quantize_multiplier((double) (in->scale / (num * out->scale)), &mult, &shift);
        } else if (route == MEAN4D_INT) {
                ku_quantize_multiplier((double) in->scale / (double) out->scale, &mult, &shift);
        }
        const float scale = in->scale / out->scale;
        const float bias = (float) -in_zp * scale;

        rt_reduce_odo_t o, i;
        rt_reduce_odo_init(&o, pl->n_outer, pl->outer_dims, pl->outer_strides);
        for (size_t k = 0; k < pl->outer_count; k++, rt_reduce_odo_next(&o)) {
                int32_t sum = 0;
                rt_reduce_odo_init(&i, pl->n_inner, pl->inner_dims, pl->inner_strides);
                for (size_t j = 0; j < pl->inner_count; j++, rt_reduce_odo_next(&i))
                        sum += load_q(in->data, in->type, o.off + i.off);
                int32_t v;
                switch (route) {
                case MEAN4D_UINT8:
                        v = ku_mul_by_qmul(sum, mult, shift) + bias4d;
                        v = KU_CLAMP(v, qmin, qmax);
                        break;
                case MEAN4D_INT: {
                        int32_t acc = ku_mul_by_qmul(sum - n * in_zp, mult, shift);
                        acc = acc > 0 ? (acc + n / 2) / n : (acc - n / 2) / n;
                        acc += out_zp;
                        v = KU_CLAMP(acc, qmin, qmax);
                        break;
                }
                case SAME_SCALE:
                        v = sum / n;
                        break;
                default: {
                        float mean = (float) sum / (float) n;
                        float r = fminf(rt_reduce_roundf(mean * scale + bias) + (float) out_zp,
                                        (float) qmax);
                        r = fmaxf(r, (float) qmin);
                        v = (int32_t) r;
                        break;
                }
                }
                store_q(out->data, out->type, k, v);
        }
        return 0;
}

static int mean_invoke(rt_context_t *ctx, rt_node_t *node) {
        rt_reduce_plan_t pl;
        int r = rt_reduce__plan(ctx, node, OP, &pl);
        if (r < 0)
                return r;
        const rt_tensor_t *in = rt_node_input(ctx, node, 0);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        if (pl.outer_count == 0)
                return 0;
        if (pl.inner_count == 0) {
                /* Empty input: TFLite writes quiet NaN (0 for integers). */
                if (out->type == RT_TYPE_FLOAT32)
                        for (size_t k = 0; k < pl.outer_count; k++)
                                ((float *) out->data)[k] = NAN;
                else
                        memset(out->data, 0, pl.outer_count * rt_type_size(out->type));
                return 0;
        }
        switch (in->type) {
        case RT_TYPE_FLOAT32:
                mean_float(&pl, in->data, out->data);
                return 0;
        case RT_TYPE_INT32:
        case RT_TYPE_INT64:
                mean_int(&pl, in, out);
                return 0;
        case RT_TYPE_UINT8:
        case RT_TYPE_INT8:
        case RT_TYPE_INT16:
                return mean_quant(ctx, node, &pl);
        default:
                return rt_reduce__unsupported(ctx, OP, in, out);
        }
}

const rt_registration_t rt_kernel_mean = {
        .name = OP,
        .op = RT_OP_MEAN,
        .params_size = sizeof(rt_reducer_params_t),
        .parse = rt_reduce__parse_reducer,
        .prepare = mean_prepare,
        .invoke = mean_invoke,
};
