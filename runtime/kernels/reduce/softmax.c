/* SPDX-License-Identifier: Apache-2.0 */
/*
 * SOFTMAX over the last axis: TFLite activations.cc as registered on x86-64
 * (the generic optimized kernel).
 *
 *  - float32: exp((x - max) * beta) normalised by its sum, in single
 *    precision.
 *  - uint8/int8 input (uint8/int8/int16 output): a 256-entry float table
 *    table[255 - d] = expf(-input_scale * beta * d) indexed by the distance d
 *    to the row maximum; probabilities p * 1/(sum * output_scale) are rounded
 *    (uint8 output: truncation of p + 0.5, zero point ignored; otherwise
 *    round-half-away plus the zero point) and clamped.
 *  - int16 -> int16: TFLite's SoftmaxInt16 with its two 513-entry Q0.15
 *    lookup tables (exp on [-10, 0], 1 / (1 + x) on [0, 1]).
 */
#include <math.h>
#include <stdlib.h>

#include "reduce-internal.h"

#define OP "SOFTMAX"
#define LUT_SIZE 513

typedef struct softmax_data {
        float table[256];
        int16_t exp_lut[LUT_SIZE];
        int16_t recip_lut[LUT_SIZE];
        int32_t input_multiplier;
        int input_shift;
} softmax_data_t;

static int softmax_parse(const rt_node_t *node, void *ret_params, rt_context_t *ctx) {
        rt_softmax_params_t *p = ret_params;
        (void) ctx;
        p->beta = fbt_f32(node->options, 0, 0.0f);
        return 0;
}

static int softmax_init(rt_context_t *ctx, rt_node_t *node, void **ret_data) {
        (void) ctx;
        (void) node;
        softmax_data_t *d = calloc(1, sizeof(*d));
        if (!d)
                return -ENOMEM;
        *ret_data = d;
        return 0;
}

static void softmax_free(rt_context_t *ctx, void *data) {
        (void) ctx;
        free(data);
}

/* TFLite gen_lut for int16 -> int16 tables: 512 segments over [lo, hi]
 * plus the end point, in Q0.15, each sample nudged by half the error of the
 * linear interpolation at the segment midpoint. */
static void gen_lut(double (*f)(double), double lo, double hi, int16_t *lut) {
        const double step = (hi - lo) / 512.0;
        const double half = step / 2.0;
        const double k = 32768.0;
        for (int i = 0; i < 512; i++) {
                double v = f(lo + i * step);
                double v_mid = f(lo + i * step + half);
                double v_next = f(lo + (i + 1) * step);
                double sample = round(v * k);
                double interp = round((v_next * k + round(v * k)) / 2.0);
                double mid = round(v_mid * k);
                double bias = round((interp - mid) / 2.0);
                lut[i] = (int16_t) fmin(fmax(sample - bias, -32768.0), 32767.0);
        }
        lut[512] = (int16_t) fmin(fmax(round(f(hi) * k), -32768.0), 32767.0);
}

static double f_exp(double x) {
        return exp(x);
}

static double f_recip(double x) {
        return 1.0 / (1.0 + x);
}

/* TFLite generic_int16_table_lookup: linear interpolation between entries. */
static int16_t lut_lookup(int16_t value, const int16_t *lut) {
        uint16_t index = (uint16_t) (256 + (value >> 7));
        int16_t offset = (int16_t) (value & 0x7f);
        int16_t base = lut[index];
        int16_t slope = (int16_t) (lut[index + 1] - lut[index]);
        int32_t delta = ((int32_t) slope * offset + 64) >> 7;
        return (int16_t) (base + delta);
}

static int softmax_prepare(rt_context_t *ctx, rt_node_t *node) {
        const rt_softmax_params_t *p = node->params;
        softmax_data_t *d = node->user_data;
        if (!p || !d)
                return rt_ctx_error(ctx, OP ": node has no params or state");
        rt_tensor_t *in, *out;
        int r = rt_reduce__prepare_same_shape(ctx, node, OP, &in, &out);
        if (r < 0)
                return r;
        switch (in->type) {
        case RT_TYPE_FLOAT32:
                if (out->type != RT_TYPE_FLOAT32)
                        return rt_reduce__unsupported(ctx, OP, in, out);
                return 0;
        case RT_TYPE_UINT8:
        case RT_TYPE_INT8:
                if (out->type != in->type && out->type != RT_TYPE_INT16)
                        return rt_reduce__unsupported(ctx, OP, in, out);
                if (in->type == RT_TYPE_INT8 && out->type == RT_TYPE_INT8 &&
                    (out->zero_point != -128 || fabsf(out->scale - 1.0f / 256) > 0.001f / 256))
                        return rt_ctx_error(ctx, OP ": int8 output must have scale 1/256 and zero "
                                            "point -128, got %g and %d", out->scale, out->zero_point);
                if (out->scale <= 0.0f)
                        return rt_ctx_error(ctx, OP ": output has no quantization scale");
                {
                        const float scale = -in->scale * p->beta;
                        for (int32_t v = 0; v <= 255; v++)
                                d->table[255 - v] = expf(scale * (float) v);
                }
                return 0;
        case RT_TYPE_INT16:
                if (out->type != RT_TYPE_INT16)
                        return rt_reduce__unsupported(ctx, OP, in, out);
                if (in->rank > 4)
                        return rt_ctx_error(ctx, OP ": int16 supports rank 1 to 4, got %d", in->rank);
                if (in->zero_point != 0 || out->zero_point != 0)
                        return rt_ctx_error(ctx, OP ": int16 needs zero points 0, got %d and %d",
                                            in->zero_point, out->zero_point);
                if (fabsf(out->scale - 1.0f / 32768) > 0.001f / 32768)
                        return rt_ctx_error(ctx, OP ": int16 output must have scale 1/32768, got %g",
                                            out->scale);
                gen_lut(f_exp, -10.0, 0.0, d->exp_lut);
                gen_lut(f_recip, 0.0, 1.0, d->recip_lut);
                ku_quantize_multiplier((double) (in->scale * p->beta) / (10.0 / 65535.0),
                                       &d->input_multiplier, &d->input_shift);
                return 0;
        default:
                return rt_reduce__unsupported(ctx, OP, in, out);
        }
}

static void softmax_float(const float *x, float *y, size_t outer, int32_t depth, float beta) {
        for (size_t o = 0; o < outer; o++, x += depth, y += depth) {
                float max = x[0];
                for (int32_t c = 1; c < depth; c++)
                        max = x[c] > max ? x[c] : max;
                float sum = 0.0f;
                for (int32_t c = 0; c < depth; c++) {
                        y[c] = expf((x[c] - max) * beta);
                        sum += y[c];
                }
                const float inv = 1.0f / sum;
                for (int32_t c = 0; c < depth; c++)
                        y[c] *= inv;
        }
}

static inline int32_t load8(const void *x, rt_type_t t, size_t i) {
        return t == RT_TYPE_UINT8 ? ((const uint8_t *) x)[i] : ((const int8_t *) x)[i];
}

static void softmax_table(const softmax_data_t *d, const rt_tensor_t *in, rt_tensor_t *out,
                          size_t outer, int32_t depth) {
        int32_t qmin, qmax, lowest, highest;
        ku_type_range(out->type, &qmin, &qmax);
        ku_type_range(in->type, &lowest, &highest);
        (void) highest;
        const int32_t zp = out->zero_point;
        for (size_t o = 0; o < outer; o++) {
                const size_t base = o * (size_t) depth;
                int32_t max = lowest;
                for (int32_t c = 0; c < depth; c++) {
                        int32_t v = load8(in->data, in->type, base + (size_t) c);
                        max = v > max ? v : max;
                }
                /* table[255 - (max - v)]: exp(-scale * beta * (max - v)) */
                const float *t = d->table + 255 - max;
                float sum = 0.0f;
                for (int32_t c = 0; c < depth; c++)
                        sum += t[load8(in->data, in->type, base + (size_t) c)];
                const float inv = 1.0f / (sum * out->scale);
                for (int32_t c = 0; c < depth; c++) {
                        const float prob = t[load8(in->data, in->type, base + (size_t) c)] * inv;
                        int32_t q;
                        if (out->type == RT_TYPE_UINT8)
                                q = (int32_t) (prob + 0.5f);
                        else
                                q = (int32_t) roundf(prob) + zp;
                        q = KU_CLAMP(q, qmin, qmax);
                        const size_t k = base + (size_t) c;
                        switch (out->type) {
                        case RT_TYPE_UINT8: ((uint8_t *) out->data)[k] = (uint8_t) q; break;
                        case RT_TYPE_INT8: ((int8_t *) out->data)[k] = (int8_t) q; break;
                        default: ((int16_t *) out->data)[k] = (int16_t) q; break;
                        }
                }
        }
}

static void softmax_int16(const softmax_data_t *d, const int16_t *x, int16_t *y, size_t outer,
                          int32_t depth) {
        for (size_t o = 0; o < outer; o++, x += depth, y += depth) {
                int16_t max = INT16_MIN;
                for (int32_t c = 0; c < depth; c++)
                        max = x[c] > max ? x[c] : max;
                /* exp(x - max) in Q0.15 into y, summed in Q16.15. */
                int32_t sum = 0;
                for (int32_t c = 0; c < depth; c++) {
                        int32_t diff = (int32_t) x[c] - max;
                        int32_t scaled = ku_mul_by_qmul(diff, d->input_multiplier, d->input_shift);
                        int32_t sym = scaled + 32767;
                        int16_t sat = (int16_t) KU_CLAMP(sym, -32768, 32767);
                        y[c] = lut_lookup(sat, d->exp_lut);
                        sum += y[c];
                }
                int headroom_plus_one = sum > 0 ? __builtin_clz((uint32_t) sum) : 32;
                int32_t shifted = (int32_t) ((((int64_t) sum << (headroom_plus_one - 1)) + (1 << 13)) >> 14);
                int32_t sym = shifted - ((1 << 15) + (1 << 16));
                int16_t sat = (int16_t) KU_CLAMP(sym, -32768, 32767);
                int16_t recip = lut_lookup(sat, d->recip_lut);
                int right_shift = 31 - headroom_plus_one;
                int64_t rnd = right_shift > 0 ? (int64_t) 1 << (right_shift - 1) : 0;
                for (int32_t c = 0; c < depth; c++) {
                        int32_t res = (int32_t) (((int64_t) y[c] * recip + rnd) >> right_shift);
                        y[c] = (int16_t) KU_CLAMP(res, 0, 32767);
                }
        }
}

static int softmax_invoke(rt_context_t *ctx, rt_node_t *node) {
        const rt_softmax_params_t *p = node->params;
        const softmax_data_t *d = node->user_data;
        rt_tensor_t *in = rt_node_input(ctx, node, 0);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        size_t outer;
        int32_t depth;
        rt_reduce_rows(in, &outer, &depth);
        if (outer == 0 || depth == 0)
                return 0;
        switch (in->type) {
        case RT_TYPE_FLOAT32:
                softmax_float(in->data, out->data, outer, depth, p->beta);
                return 0;
        case RT_TYPE_UINT8:
        case RT_TYPE_INT8:
                softmax_table(d, in, out, outer, depth);
                return 0;
        case RT_TYPE_INT16:
                softmax_int16(d, in->data, out->data, outer, depth);
                return 0;
        default:
                return rt_reduce__unsupported(ctx, OP, in, out);
        }
}

const rt_registration_t rt_kernel_softmax = {
        .name = OP,
        .op = RT_OP_SOFTMAX,
        .params_size = sizeof(rt_softmax_params_t),
        .parse = softmax_parse,
        .init = softmax_init,
        .free = softmax_free,
        .prepare = softmax_prepare,
        .invoke = softmax_invoke,
};
