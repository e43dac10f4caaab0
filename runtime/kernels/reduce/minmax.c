/* SPDX-License-Identifier: Apache-2.0 */
/*
 * REDUCE_MAX, REDUCE_MIN, REDUCE_ANY, REDUCE_ALL: TFLite reduce.cc
 * EvalGeneric. Quantized inputs compare raw values and need the output's
 * scale and zero point. Like TFLite, a reduction over some axes starts from
 * the type's lowest (max) / highest (min) value, while a reduction over
 * every axis starts from the first element.
 */
#include <float.h>

#include "reduce-internal.h"

typedef enum mm_kind {
        MM_MAX,
        MM_MIN,
        MM_ANY,
        MM_ALL,
} mm_kind_t;

static const char *const mm_names[] = { "REDUCE_MAX", "REDUCE_MIN", "REDUCE_ANY", "REDUCE_ALL" };

static int mm_prepare(rt_context_t *ctx, rt_node_t *node, mm_kind_t kind) {
        const char *op = mm_names[kind];
        int r = rt_reduce__prepare(ctx, node, op);
        if (r < 0)
                return r;
        rt_tensor_t *in = rt_node_input(ctx, node, 0);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        if (out->type != in->type)
                return rt_reduce__unsupported(ctx, op, in, out);
        if (kind == MM_ANY || kind == MM_ALL) {
                if (in->type != RT_TYPE_BOOL)
                        return rt_ctx_error(ctx, "%s: input must be bool, got %s", op,
                                            rt_type_name(in->type));
                return 0;
        }
        switch (in->type) {
        case RT_TYPE_FLOAT32:
        case RT_TYPE_INT32:
        case RT_TYPE_INT64:
                return 0;
        case RT_TYPE_UINT8:
        case RT_TYPE_INT8:
        case RT_TYPE_INT16:
                if (in->scale != out->scale || in->zero_point != out->zero_point)
                        return rt_ctx_error(ctx, "%s: input and output quantization must match", op);
                return 0;
        default:
                return rt_reduce__unsupported(ctx, op, in, out);
        }
}

#define MM_LOOP(T, pl, x, y, init, better)                                                  \
        do {                                                                                \
                rt_reduce_odo_t o_, i_;                                                     \
                rt_reduce_odo_init(&o_, (pl)->n_outer, (pl)->outer_dims, (pl)->outer_strides); \
                for (size_t k_ = 0; k_ < (pl)->outer_count; k_++, rt_reduce_odo_next(&o_)) { \
                        T acc_ = (init);                                                    \
                        rt_reduce_odo_init(&i_, (pl)->n_inner, (pl)->inner_dims,            \
                                           (pl)->inner_strides);                            \
                        for (size_t j_ = 0; j_ < (pl)->inner_count; j_++, rt_reduce_odo_next(&i_)) { \
                                T v_ = (x)[o_.off + i_.off];                                \
                                if (better(v_, acc_))                                       \
                                        acc_ = v_;                                          \
                        }                                                                   \
                        (y)[k_] = acc_;                                                     \
                }                                                                           \
        } while (0)

#define MM_GT(a, b) ((a) > (b))
#define MM_LT(a, b) ((a) < (b))

#define MM_TYPED(T, lowest, highest)                                                        \
        do {                                                                                \
                const T *x = in->data;                                                      \
                T *y = out->data;                                                           \
                if (kind == MM_MAX)                                                         \
                        MM_LOOP(T, &pl, x, y, (T) (lowest), MM_GT);                         \
                else                                                                        \
                        MM_LOOP(T, &pl, x, y, (T) (highest), MM_LT);                        \
        } while (0)

static int mm_bool(const rt_reduce_plan_t *pl, const bool *x, bool *y, mm_kind_t kind) {
        const bool init = kind == MM_ALL;
        rt_reduce_odo_t o, i;
        rt_reduce_odo_init(&o, pl->n_outer, pl->outer_dims, pl->outer_strides);
        for (size_t k = 0; k < pl->outer_count; k++, rt_reduce_odo_next(&o)) {
                bool acc = init;
                rt_reduce_odo_init(&i, pl->n_inner, pl->inner_dims, pl->inner_strides);
                for (size_t j = 0; j < pl->inner_count; j++, rt_reduce_odo_next(&i)) {
                        bool v = x[o.off + i.off];
                        acc = kind == MM_ALL ? (acc && v) : (acc || v);
                }
                y[k] = acc;
        }
        return 0;
}

static int mm_invoke(rt_context_t *ctx, rt_node_t *node, mm_kind_t kind) {
        const char *op = mm_names[kind];
        rt_reduce_plan_t pl;
        int r = rt_reduce__plan(ctx, node, op, &pl);
        if (r < 0)
                return r;
        const rt_tensor_t *in = rt_node_input(ctx, node, 0);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        if (kind == MM_ANY || kind == MM_ALL)
                return mm_bool(&pl, in->data, out->data, kind);
        switch (in->type) {
        case RT_TYPE_FLOAT32: MM_TYPED(float, -FLT_MAX, FLT_MAX); return 0;
        case RT_TYPE_INT32: MM_TYPED(int32_t, INT32_MIN, INT32_MAX); return 0;
        case RT_TYPE_INT64: MM_TYPED(int64_t, INT64_MIN, INT64_MAX); return 0;
        case RT_TYPE_UINT8: MM_TYPED(uint8_t, 0, UINT8_MAX); return 0;
        case RT_TYPE_INT8: MM_TYPED(int8_t, INT8_MIN, INT8_MAX); return 0;
        case RT_TYPE_INT16: MM_TYPED(int16_t, INT16_MIN, INT16_MAX); return 0;
        default: return rt_reduce__unsupported(ctx, op, in, out);
        }
}

static int max_prepare(rt_context_t *ctx, rt_node_t *node) { return mm_prepare(ctx, node, MM_MAX); }
static int min_prepare(rt_context_t *ctx, rt_node_t *node) { return mm_prepare(ctx, node, MM_MIN); }
static int any_prepare(rt_context_t *ctx, rt_node_t *node) { return mm_prepare(ctx, node, MM_ANY); }
static int all_prepare(rt_context_t *ctx, rt_node_t *node) { return mm_prepare(ctx, node, MM_ALL); }
static int max_invoke(rt_context_t *ctx, rt_node_t *node) { return mm_invoke(ctx, node, MM_MAX); }
static int min_invoke(rt_context_t *ctx, rt_node_t *node) { return mm_invoke(ctx, node, MM_MIN); }
static int any_invoke(rt_context_t *ctx, rt_node_t *node) { return mm_invoke(ctx, node, MM_ANY); }
static int all_invoke(rt_context_t *ctx, rt_node_t *node) { return mm_invoke(ctx, node, MM_ALL); }

const rt_registration_t rt_kernel_reduce_max = {
        .name = "REDUCE_MAX",
        .op = RT_OP_REDUCE_MAX,
        .params_size = sizeof(rt_reducer_params_t),
        .parse = rt_reduce__parse_reducer,
        .prepare = max_prepare,
        .invoke = max_invoke,
};

const rt_registration_t rt_kernel_reduce_min = {
        .name = "REDUCE_MIN",
        .op = RT_OP_REDUCE_MIN,
        .params_size = sizeof(rt_reducer_params_t),
        .parse = rt_reduce__parse_reducer,
        .prepare = min_prepare,
        .invoke = min_invoke,
};

const rt_registration_t rt_kernel_reduce_any = {
        .name = "REDUCE_ANY",
        .op = RT_OP_REDUCE_ANY,
        .params_size = sizeof(rt_reducer_params_t),
        .parse = rt_reduce__parse_reducer,
        .prepare = any_prepare,
        .invoke = any_invoke,
};

const rt_registration_t rt_kernel_reduce_all = {
        .name = "REDUCE_ALL",
        .op = RT_OP_REDUCE_ALL,
        .params_size = sizeof(rt_reducer_params_t),
        .parse = rt_reduce__parse_reducer,
        .prepare = all_prepare,
        .invoke = all_invoke,
};
