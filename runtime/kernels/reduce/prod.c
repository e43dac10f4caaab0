/* SPDX-License-Identifier: Apache-2.0 */
/*
 * REDUCE_PROD: TFLite reduce.cc EvalProd. Unquantized inputs multiply in
 * their own type (integers wrap). Quantized int8/int16 follow
 * QuantizedReduceProd: every multiplication step is rescaled by
 * in_scale / out_scale^(1/n) (n = elements per output) so the int32
 * accumulator cannot overflow, and the result is rescaled once more.
 */
#include <math.h>

#include "reduce-internal.h"

#define OP "REDUCE_PROD"

static bool is_quantized(const rt_tensor_t *t) {
        return t->quant.n > 0;
}

static int prod_prepare(rt_context_t *ctx, rt_node_t *node) {
        int r = rt_reduce__prepare(ctx, node, OP);
        if (r < 0)
                return r;
        rt_tensor_t *in = rt_node_input(ctx, node, 0);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        if (out->type != in->type)
                return rt_reduce__unsupported(ctx, OP, in, out);
        if (is_quantized(in)) {
                if (in->type != RT_TYPE_INT8 && in->type != RT_TYPE_INT16)
                        return rt_reduce__unsupported(ctx, OP, in, out);
                if (in->type == RT_TYPE_INT16 && (in->zero_point != 0 || out->zero_point != 0))
                        return rt_ctx_error(ctx, OP ": int16 needs zero points 0, got %d and %d",
                                            in->zero_point, out->zero_point);
                if (out->scale <= 0.0f)
                        return rt_ctx_error(ctx, OP ": output has no quantization scale");
                return 0;
        }
        switch (in->type) {
        case RT_TYPE_FLOAT32:
        case RT_TYPE_INT32:
        case RT_TYPE_INT64:
        case RT_TYPE_UINT8:
        case RT_TYPE_INT8:
        case RT_TYPE_INT16:
                return 0;
        default:
                return rt_reduce__unsupported(ctx, OP, in, out);
        }
}

#define PROD_LOOP(T, ACC_T, pl, x, y)                                                       \
        do {                                                                                \
                rt_reduce_odo_t o_, i_;                                                     \
                rt_reduce_odo_init(&o_, (pl)->n_outer, (pl)->outer_dims, (pl)->outer_strides); \
                for (size_t k_ = 0; k_ < (pl)->outer_count; k_++, rt_reduce_odo_next(&o_)) { \
                        ACC_T acc_ = 1;                                                     \
                        rt_reduce_odo_init(&i_, (pl)->n_inner, (pl)->inner_dims,            \
                                           (pl)->inner_strides);                            \
                        for (size_t j_ = 0; j_ < (pl)->inner_count; j_++, rt_reduce_odo_next(&i_)) \
                                acc_ = (ACC_T) (acc_ * (ACC_T) (x)[o_.off + i_.off]);       \
                        (y)[k_] = (T) acc_;                                                 \
                }                                                                           \
        } while (0)

static void prod_quant(const rt_reduce_plan_t *pl, const rt_tensor_t *in, rt_tensor_t *out) {
        int32_t qmin, qmax;
        ku_type_range(out->type, &qmin, &qmax);
        const double scaling = (double) in->scale /
                               pow((double) out->scale, 1.0 / (double) (int32_t) pl->inner_count);
        int32_t mult;
        int shift;
        ku_quantize_multiplier(scaling, &mult, &shift);
        const int32_t zp = in->zero_point;
        rt_reduce_odo_t o, i;
        rt_reduce_odo_init(&o, pl->n_outer, pl->outer_dims, pl->outer_strides);
        for (size_t k = 0; k < pl->outer_count; k++, rt_reduce_odo_next(&o)) {
                int32_t acc = 0;
                rt_reduce_odo_init(&i, pl->n_inner, pl->inner_dims, pl->inner_strides);
                for (size_t j = 0; j < pl->inner_count; j++, rt_reduce_odo_next(&i)) {
                        int64_t off = o.off + i.off;
                        int32_t v = in->type == RT_TYPE_INT8 ? ((const int8_t *) in->data)[off]
                                                             : ((const int16_t *) in->data)[off];
                        if (j == 0)
                                acc = v - zp;
                        else
                                acc = ku_mul_by_qmul64((int64_t) acc * (v - zp), mult, shift);
                }
                int32_t res = ku_mul_by_qmul64(acc, mult, shift) + out->zero_point;
                res = KU_CLAMP(res, qmin, qmax);
                if (out->type == RT_TYPE_INT8)
                        ((int8_t *) out->data)[k] = (int8_t) res;
                else
                        ((int16_t *) out->data)[k] = (int16_t) res;
        }
}

static int prod_invoke(rt_context_t *ctx, rt_node_t *node) {
        rt_reduce_plan_t pl;
        int r = rt_reduce__plan(ctx, node, OP, &pl);
        if (r < 0)
                return r;
        const rt_tensor_t *in = rt_node_input(ctx, node, 0);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        if (is_quantized(in)) {
                /* TFLite returns early on an empty input, leaving the output. */
                if (pl.inner_count > 0)
                        prod_quant(&pl, in, out);
                return 0;
        }
        switch (in->type) {
        case RT_TYPE_FLOAT32:
                PROD_LOOP(float, float, &pl, (const float *) in->data, (float *) out->data);
                return 0;
        case RT_TYPE_INT32:
                PROD_LOOP(int32_t, uint32_t, &pl, (const int32_t *) in->data, (int32_t *) out->data);
                return 0;
        case RT_TYPE_INT64:
                PROD_LOOP(int64_t, uint64_t, &pl, (const int64_t *) in->data, (int64_t *) out->data);
                return 0;
        case RT_TYPE_UINT8:
                PROD_LOOP(uint8_t, uint32_t, &pl, (const uint8_t *) in->data, (uint8_t *) out->data);
                return 0;
        case RT_TYPE_INT8:
                PROD_LOOP(int8_t, uint32_t, &pl, (const int8_t *) in->data, (int8_t *) out->data);
                return 0;
        case RT_TYPE_INT16:
                PROD_LOOP(int16_t, uint32_t, &pl, (const int16_t *) in->data, (int16_t *) out->data);
                return 0;
        default:
                return rt_reduce__unsupported(ctx, OP, in, out);
        }
}

const rt_registration_t rt_kernel_reduce_prod = {
        .name = OP,
        .op = RT_OP_REDUCE_PROD,
        .params_size = sizeof(rt_reducer_params_t),
        .parse = rt_reduce__parse_reducer,
        .prepare = prod_prepare,
        .invoke = prod_invoke,
};
