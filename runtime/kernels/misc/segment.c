/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Segment reductions: TFLite segment_sum.cc and unsorted_segment.cc.
 *
 * SEGMENT_SUM: data [n, ...] and sorted int32 segment_ids [n]; output
 * [last id + 1, ...] where row s is the sum of the data rows with id s
 * (rows no id names are zero).
 *
 * UNSORTED_SEGMENT_{SUM,PROD,MAX,MIN}: data, int32 segment_ids whose shape
 * is a prefix of the data's and num_segments (int32, one value); output
 * [num_segments, data dims after the ids' rank]. Each slice of data is
 * combined into the row its id names; negative ids are dropped, ids >=
 * num_segments are an error. Rows that receive nothing keep the
 * reduction's identity (0, 1, the type's lowest / highest value).
 */
#include <float.h>
#include <string.h>

#include "misc-internal.h"

typedef enum seg_kind {
        SEG_SUM,
        SEG_PROD,
        SEG_MAX,
        SEG_MIN,
} seg_kind_t;

static bool type_ok(rt_type_t t) {
        return t == RT_TYPE_FLOAT32 || t == RT_TYPE_INT32;
}

/* ---- SEGMENT_SUM ---- */

#define SEGMENT_SUM_OP "SEGMENT_SUM"

static int segment_sum_shape(rt_context_t *ctx, const rt_tensor_t *data, const rt_tensor_t *ids,
                             int32_t *ret_dims) {
        const int32_t *s = ids->data;
        const int32_t n = ids->dims[0];
        for (int32_t i = 0; i < n; i++) {
                if (s[i] < 0)
                        return rt_ctx_error(ctx, SEGMENT_SUM_OP ": segment id %d is negative", s[i]);
                if (i > 0 && s[i] < s[i - 1])
                        return rt_ctx_error(ctx, SEGMENT_SUM_OP ": segment ids are not sorted (%d after %d)", s[i],
                                            s[i - 1]);
        }
        if (n > 0 && s[n - 1] == INT32_MAX)
                return rt_ctx_error(ctx, SEGMENT_SUM_OP ": segment id %d too large", s[n - 1]);
        ret_dims[0] = n > 0 ? s[n - 1] + 1 : 0;
        for (int32_t i = 1; i < data->rank; i++)
                ret_dims[i] = data->dims[i];
        return 0;
}

static int segment_sum_prepare(rt_context_t *ctx, rt_node_t *node) {
        int r = rt_misc__check_node(ctx, node, SEGMENT_SUM_OP, 2, 2, 1, false);
        if (r < 0)
                return r;
        rt_tensor_t *data = rt_node_input(ctx, node, 0);
        rt_tensor_t *ids = rt_node_input(ctx, node, 1);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        if (!type_ok(data->type))
                return rt_misc__unsupported(ctx, SEGMENT_SUM_OP, "data", data);
        if (out->type != data->type)
                return rt_ctx_error(ctx, SEGMENT_SUM_OP ": output type %s differs from data type %s",
                                    rt_type_name(out->type), rt_type_name(data->type));
        if (ids->type != RT_TYPE_INT32)
                return rt_ctx_error(ctx, SEGMENT_SUM_OP ": segment_ids must be int32, got %s",
                                    rt_type_name(ids->type));
        if (data->rank < 1 || ids->rank != 1 || ids->dims[0] != data->dims[0])
                return rt_ctx_error(ctx, SEGMENT_SUM_OP ": segment_ids must be 1-D with one id per data row");
        if (!rt_misc_known(ids))
                return rt_misc_set_dynamic(ctx, node, 0);
        int32_t dims[RT_MAX_RANK];
        r = segment_sum_shape(ctx, data, ids, dims);
        if (r < 0)
                return r;
        return rt_ctx_resize(ctx, node, 0, data->rank, dims);
}

static int segment_sum_invoke(rt_context_t *ctx, rt_node_t *node) {
        rt_tensor_t *data = rt_node_input(ctx, node, 0);
        rt_tensor_t *ids = rt_node_input(ctx, node, 1);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        if (!rt_misc_has_data(data) || !rt_misc_has_data(ids))
                return rt_ctx_error(ctx, SEGMENT_SUM_OP ": an input has no data");
        int32_t dims[RT_MAX_RANK];
        int r = segment_sum_shape(ctx, data, ids, dims);
        if (r < 0)
                return r;
        if (!rt_tensor_is_const(ids)) {
                r = rt_ctx_resize(ctx, node, 0, data->rank, dims);
                if (r < 0)
                        return r;
        }
        const size_t inner = data->dims[0] > 0 ? rt_tensor_count(data) / (size_t) data->dims[0] : 0;
        memset(out->data, 0, rt_tensor_count(out) * rt_type_size(out->type));
        const int32_t *s = ids->data;
        for (int32_t i = 0; i < data->dims[0]; i++) {
                size_t o = (size_t) s[i] * inner, x = (size_t) i * inner;
                if (data->type == RT_TYPE_FLOAT32) {
                        for (size_t j = 0; j < inner; j++)
                                ((float *) out->data)[o + j] += ((const float *) data->data)[x + j];
                } else {
                        for (size_t j = 0; j < inner; j++) {
                                uint32_t acc = (uint32_t) ((int32_t *) out->data)[o + j];
                                acc += (uint32_t) ((const int32_t *) data->data)[x + j];
                                ((int32_t *) out->data)[o + j] = (int32_t) acc;
                        }
                }
        }
        return 0;
}

const rt_registration_t rt_kernel_segment_sum = {
        .name = SEGMENT_SUM_OP,
        .op = RT_OP_SEGMENT_SUM,
        .prepare = segment_sum_prepare,
        .invoke = segment_sum_invoke,
};

/* ---- UNSORTED_SEGMENT_* ---- */

static const char *const unsorted_names[] = {
        [SEG_SUM] = "UNSORTED_SEGMENT_SUM",
        [SEG_PROD] = "UNSORTED_SEGMENT_PROD",
        [SEG_MAX] = "UNSORTED_SEGMENT_MAX",
        [SEG_MIN] = "UNSORTED_SEGMENT_MIN",
};

static seg_kind_t kind_of(const rt_node_t *node) {
        switch (node->op) {
        case RT_OP_UNSORTED_SEGMENT_PROD: return SEG_PROD;
        case RT_OP_UNSORTED_SEGMENT_MAX: return SEG_MAX;
        case RT_OP_UNSORTED_SEGMENT_MIN: return SEG_MIN;
        default: return SEG_SUM;
        }
}

static int unsorted_shape(rt_context_t *ctx, const char *op, const rt_tensor_t *data, const rt_tensor_t *num,
                          int32_t *ret_rank, int32_t *ret_dims, const rt_tensor_t *ids) {
        int64_t n = 0;
        int r = rt_misc__scalar_index(ctx, op, "num_segments", num, false, &n);
        if (r < 0)
                return r;
        if (n < 0)
                return rt_ctx_error(ctx, "%s: num_segments %lld is negative", op, (long long) n);
        ret_dims[0] = (int32_t) n;
        int32_t rank = 1;
        for (int32_t i = ids->rank; i < data->rank; i++)
                ret_dims[rank++] = data->dims[i];
        *ret_rank = rank;
        return 0;
}

static int unsorted_prepare(rt_context_t *ctx, rt_node_t *node) {
        const char *op = unsorted_names[kind_of(node)];
        int r = rt_misc__check_node(ctx, node, op, 3, 3, 1, false);
        if (r < 0)
                return r;
        rt_tensor_t *data = rt_node_input(ctx, node, 0);
        rt_tensor_t *ids = rt_node_input(ctx, node, 1);
        rt_tensor_t *num = rt_node_input(ctx, node, 2);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        if (!type_ok(data->type))
                return rt_misc__unsupported(ctx, op, "data", data);
        if (out->type != data->type)
                return rt_ctx_error(ctx, "%s: output type %s differs from data type %s", op, rt_type_name(out->type),
                                    rt_type_name(data->type));
        if (ids->type != RT_TYPE_INT32)
                return rt_ctx_error(ctx, "%s: segment_ids must be int32, got %s", op, rt_type_name(ids->type));
        if (num->type != RT_TYPE_INT32 || rt_tensor_count(num) != 1)
                return rt_ctx_error(ctx, "%s: num_segments must be one int32 value", op);
        if (ids->rank > data->rank)
                return rt_ctx_error(ctx, "%s: segment_ids rank %d exceeds data rank %d", op, ids->rank, data->rank);
        for (int32_t i = 0; i < ids->rank; i++)
                if (ids->dims[i] != data->dims[i])
                        return rt_ctx_error(ctx, "%s: segment_ids shape must be a prefix of the data shape", op);
        if (!rt_misc_known(num))
                return rt_misc_set_dynamic(ctx, node, 0);
        int32_t rank, dims[RT_MAX_RANK];
        r = unsorted_shape(ctx, op, data, num, &rank, dims, ids);
        if (r < 0)
                return r;
        return rt_ctx_resize(ctx, node, 0, rank, dims);
}

#define UNSORTED_LOOP(T, INIT, COMBINE)                                                     \
        do {                                                                                \
                T *y = out->data;                                                           \
                const T *x = data->data;                                                    \
                for (size_t i = 0; i < total; i++)                                          \
                        y[i] = (INIT);                                                      \
                for (size_t i = 0; i < n_ids; i++) {                                        \
                        if (s[i] < 0)                                                       \
                                continue;                                                   \
                        T *row = y + (size_t) s[i] * inner;                                 \
                        const T *src = x + i * inner;                                       \
                        for (size_t j = 0; j < inner; j++) {                                \
                                T a = row[j], b = src[j];                                   \
                                row[j] = (COMBINE);                                         \
                        }                                                                   \
                }                                                                           \
        } while (0)

static inline int32_t wrap_add(int32_t a, int32_t b) {
        return (int32_t) ((uint32_t) a + (uint32_t) b);
}

static inline int32_t wrap_mul(int32_t a, int32_t b) {
        return (int32_t) ((uint32_t) a * (uint32_t) b);
}

static int unsorted_invoke(rt_context_t *ctx, rt_node_t *node) {
        const seg_kind_t kind = kind_of(node);
        const char *op = unsorted_names[kind];
        rt_tensor_t *data = rt_node_input(ctx, node, 0);
        rt_tensor_t *ids = rt_node_input(ctx, node, 1);
        rt_tensor_t *num = rt_node_input(ctx, node, 2);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        if (!rt_misc_has_data(data) || !rt_misc_has_data(ids))
                return rt_ctx_error(ctx, "%s: an input has no data", op);
        int32_t rank, dims[RT_MAX_RANK];
        int r = unsorted_shape(ctx, op, data, num, &rank, dims, ids);
        if (r < 0)
                return r;
        if (!rt_tensor_is_const(num)) {
                r = rt_ctx_resize(ctx, node, 0, rank, dims);
                if (r < 0)
                        return r;
        }
        const int32_t *s = ids->data;
        const size_t n_ids = rt_tensor_count(ids);
        for (size_t i = 0; i < n_ids; i++)
                if (s[i] >= dims[0])
                        return rt_ctx_error(ctx, "%s: segment id %d out of range for %d segments", op, s[i], dims[0]);
        const size_t inner = n_ids > 0 ? rt_tensor_count(data) / n_ids : 0;
        const size_t total = rt_tensor_count(out);
        if (data->type == RT_TYPE_FLOAT32) {
                switch (kind) {
                case SEG_SUM: UNSORTED_LOOP(float, 0.0f, a + b); break;
                case SEG_PROD: UNSORTED_LOOP(float, 1.0f, a * b); break;
                case SEG_MAX: UNSORTED_LOOP(float, -FLT_MAX, a > b ? a : b); break;
                case SEG_MIN: UNSORTED_LOOP(float, FLT_MAX, a < b ? a : b); break;
                }
        } else {
                switch (kind) {
                case SEG_SUM: UNSORTED_LOOP(int32_t, 0, wrap_add(a, b)); break;
                case SEG_PROD: UNSORTED_LOOP(int32_t, 1, wrap_mul(a, b)); break;
                case SEG_MAX: UNSORTED_LOOP(int32_t, INT32_MIN, a > b ? a : b); break;
                case SEG_MIN: UNSORTED_LOOP(int32_t, INT32_MAX, a < b ? a : b); break;
                }
        }
        return 0;
}

#define UNSORTED_REG(sym, code, name_)                                                      \
        const rt_registration_t sym = {                                                     \
                .name = name_,                                                              \
                .op = code,                                                                 \
                .prepare = unsorted_prepare,                                                \
                .invoke = unsorted_invoke,                                                  \
        }

UNSORTED_REG(rt_kernel_unsorted_segment_sum, RT_OP_UNSORTED_SEGMENT_SUM, "UNSORTED_SEGMENT_SUM");
UNSORTED_REG(rt_kernel_unsorted_segment_prod, RT_OP_UNSORTED_SEGMENT_PROD, "UNSORTED_SEGMENT_PROD");
UNSORTED_REG(rt_kernel_unsorted_segment_max, RT_OP_UNSORTED_SEGMENT_MAX, "UNSORTED_SEGMENT_MAX");
UNSORTED_REG(rt_kernel_unsorted_segment_min, RT_OP_UNSORTED_SEGMENT_MIN, "UNSORTED_SEGMENT_MIN");
