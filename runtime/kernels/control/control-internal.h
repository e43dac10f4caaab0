/* SPDX-License-Identifier: Apache-2.0 */
/* Shared helpers of the control kernel family (not a public API). */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "kernel.h"
#include "control/control.h"

/*
 * Make node output `output` a copy of `src`: same type required (-EINVAL
 * with a message naming `op` otherwise), shape set with rt_ctx_resize()
 * (the output must be dynamic or already big enough), data copied (string
 * tensors: the serialized bytes, into realloc()ed executor storage).
 */
int rt_control__copy_to_output(rt_context_t *ctx, const char *op, const rt_node_t *node,
                               int32_t output, const rt_tensor_t *src);

/* The truth value of a one-element bool or numeric tensor in *ret. -EINVAL
 * with a message for other types, sizes, or no data. */
int rt_control__truth(rt_context_t *ctx, const char *op, const rt_tensor_t *t, bool *ret);

/* Check that subgraph `subgraph` takes n_inputs tensors and gives
 * n_outputs (-1: any count); `what` names it in the message ("then"). */
int rt_control__check_subgraph(rt_context_t *ctx, const char *op, const char *what, int32_t subgraph,
                               int32_t n_inputs, int32_t n_outputs);

/* Mark every output of the node dynamic (shapes decided at invoke). */
int rt_control__outputs_dynamic(rt_context_t *ctx, const char *op, const rt_node_t *node);
