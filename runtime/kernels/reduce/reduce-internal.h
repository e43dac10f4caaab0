/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Shared pieces of the reduce kernel family (not part of any public API):
 * axis resolution, reducer output shapes and the iteration plan every
 * reducer walks.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel.h"
#include "kutil.h"
#include "reduce/reduce.h"

/*
 * How a reduction visits its input. The input's axes are split into kept
 * ("outer") and reduced ("inner") axes; adjacent axes of the same kind are
 * merged and size-1 axes dropped. Output element o (row-major over the kept
 * axes, which is the output's layout with or without keep_dims) gathers the
 * input elements at outer offset o plus every inner offset, visited in
 * row-major order of the reduced axes: the order in which TFLite's reference
 * Reduce() accumulates into each output, so float sums round identically.
 */
typedef struct rt_reduce_plan {
        int32_t n_outer;
        int32_t outer_dims[RT_MAX_RANK];
        int64_t outer_strides[RT_MAX_RANK];
        int32_t n_inner;
        int32_t inner_dims[RT_MAX_RANK];
        int64_t inner_strides[RT_MAX_RANK];
        size_t outer_count;  /* output elements */
        size_t inner_count;  /* input elements per output element */
        bool all_axes;       /* every input axis reduced (TFLite ReduceAllDims) */
} rt_reduce_plan_t;

/* A row-major walk over n dims with the given strides; off is the current
 * element offset. */
typedef struct rt_reduce_odo {
        int32_t n;
        const int32_t *dims;
        const int64_t *strides;
        int32_t idx[RT_MAX_RANK];
        int64_t off;
} rt_reduce_odo_t;

static inline void rt_reduce_odo_init(rt_reduce_odo_t *o, int32_t n, const int32_t *dims,
                                      const int64_t *strides) {
        o->n = n;
        o->dims = dims;
        o->strides = strides;
        o->off = 0;
        for (int32_t i = 0; i < n; i++)
                o->idx[i] = 0;
}

static inline void rt_reduce_odo_next(rt_reduce_odo_t *o) {
        for (int32_t d = o->n - 1; d >= 0; d--) {
                o->off += o->strides[d];
                if (++o->idx[d] < o->dims[d])
                        return;
                o->off -= o->strides[d] * o->dims[d];
                o->idx[d] = 0;
        }
}

/*
 * Resolve the axis tensor (int32, any shape) against `rank`: negative axes
 * count from the end, repeats count once. ret_mask[i] is set for every
 * reduced axis. A scalar input (rank 0) reduces nothing whatever the axes.
 * -EINVAL (with a message naming `op`) for a bad axis type or an axis out
 * of range.
 */
int rt_reduce__resolve_axes(rt_context_t *ctx, const char *op, const rt_tensor_t *axis, int32_t rank,
                            bool ret_mask[RT_MAX_RANK]);

/*
 * The reducer prepare shared by MEAN, SUM and REDUCE_*: checks node->params,
 * 2 inputs and 1 output and an int32 axis tensor (element types are each
 * op's business). With a constant axis the axes are resolved and the output
 * shape set now; otherwise the output is marked dynamic. 0 or -EINVAL (with
 * a message naming `op`), or the context's resize error.
 */
int rt_reduce__prepare(rt_context_t *ctx, rt_node_t *node, const char *op);

/*
 * The start of a reducer invoke: resolves the axes, sizes the output when
 * the axis is not a constant, and fills `plan`. Returns 0 or a negative
 * errno (with a message): -EINVAL for a bad axis or an output whose size
 * does not match the reduction.
 */
int rt_reduce__plan(rt_context_t *ctx, rt_node_t *node, const char *op, rt_reduce_plan_t *plan);

/* Fail with -ENOTSUP naming the op and the input/output types. */
int rt_reduce__unsupported(rt_context_t *ctx, const char *op, const rt_tensor_t *in,
                           const rt_tensor_t *out);

/* Parse hook for ReducerOptions (keep_dims, field 0). */
int rt_reduce__parse_reducer(const rt_node_t *node, void *ret_params, rt_context_t *ctx);

/* Shape check shared by the last-axis ops (softmax family, norms): one
 * input, one output of the same type rank >= 1; sets the output's shape to
 * the input's. */
int rt_reduce__prepare_same_shape(rt_context_t *ctx, rt_node_t *node, const char *op,
                                  rt_tensor_t **ret_in, rt_tensor_t **ret_out);

/* Split a tensor into outer rows over its last axis. */
static inline void rt_reduce_rows(const rt_tensor_t *t, size_t *ret_outer, int32_t *ret_depth) {
        int32_t depth = t->rank > 0 ? t->dims[t->rank - 1] : 1;
        size_t count = rt_tensor_count(t);
        *ret_depth = depth;
        *ret_outer = depth > 0 ? count / (size_t) depth : 0;
}

/* TFLite's round-half-away-from-zero (TfLiteRound) in single precision. */
static inline float rt_reduce_roundf(float x) {
        return roundf(x);
}
