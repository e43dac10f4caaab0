/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The "control" kernel family: TFLite's control flow and resource variable
 * builtins, which run other subgraphs of the model or keep state in the
 * interpreter through the multi-subgraph hooks of rt_context_t
 * (rt_ctx_call_subgraph(), rt_ctx_resource_*()):
 *
 *   IF (118)              input 0: the condition, one element of bool or a
 *                         number (non-zero = true); the other inputs go to
 *                         the then / else subgraph, whose outputs become the
 *                         node's outputs (any fixed-size types, shapes
 *                         decided at invoke)
 *   WHILE (119)           n loop-carried tensors: the cond subgraph maps
 *                         them to one bool, the body subgraph to n new
 *                         ones (whose shapes may change between iterations)
 *   CALL_ONCE (129)       runs its init subgraph (no inputs, no outputs) at
 *                         the first invoke of the interpreter, never again
 *   VAR_HANDLE (142)      -> a resource tensor holding the int32 id of the
 *                         variable (container, shared_name)
 *   ASSIGN_VARIABLE (144) resource, value: store a copy of value
 *   READ_VARIABLE (143)   resource -> the stored value (error if unset)
 *   HASHTABLE (136)       HashtableOptions table_id, key_dtype, value_dtype
 *                         -> a handle ([1], resource or int32) naming the
 *                         interpreter's table table_id; int64 -> string or
 *                         string -> int64 only, as in TFLite
 *   HASHTABLE_IMPORT (138) handle, keys, values: fills the table the first
 *                         time (later imports are ignored, as in TFLite)
 *   HASHTABLE_FIND (137)  handle, keys, default -> values (keys' shape)
 *   HASHTABLE_SIZE (139)  handle -> int64[1] entry count
 *
 * Variables live in the interpreter: they persist across invokes and are
 * shared by all its subgraphs (typically assigned by a CALL_ONCE init
 * subgraph, as TensorFlow's converter emits for stateful models). String
 * tensors may cross subgraph boundaries but cannot be stored in a variable
 * here (-ENOTSUP).
 *
 * Subgraph indices are checked when the interpreter is created (index out
 * of range, or a subgraph that calls itself directly or indirectly:
 * -EINVAL with a message) and again by prepare here.
 *
 * Hooks return 0 or a negative errno with a message (rt_ctx_error()).
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "kernel.h"

#define RT_OP_IF 118
#define RT_OP_WHILE 119
#define RT_OP_CALL_ONCE 129
#define RT_OP_HASHTABLE 136
#define RT_OP_HASHTABLE_FIND 137
#define RT_OP_HASHTABLE_IMPORT 138
#define RT_OP_HASHTABLE_SIZE 139
#define RT_OP_VAR_HANDLE 142
#define RT_OP_READ_VARIABLE 143
#define RT_OP_ASSIGN_VARIABLE 144

/* IfOptions: then_subgraph_index (0), else_subgraph_index (1). */
typedef struct rt_if_params {
        int32_t then_subgraph;
        int32_t else_subgraph;
} rt_if_params_t;

/* WhileOptions: cond_subgraph_index (0), body_subgraph_index (1). */
typedef struct rt_while_params {
        int32_t cond_subgraph;
        int32_t body_subgraph;
} rt_while_params_t;

/* CallOnceOptions: init_subgraph_index (0). */
typedef struct rt_call_once_params {
        int32_t init_subgraph;
} rt_call_once_params_t;

#define RT_VAR_NAME_MAX 256

/* VarHandleOptions: container (0), shared_name (1), both strings (copied;
 * longer names than RT_VAR_NAME_MAX - 1 bytes are refused by parse). */
typedef struct rt_var_handle_params {
        char container[RT_VAR_NAME_MAX];
        char shared_name[RT_VAR_NAME_MAX];
} rt_var_handle_params_t;

extern const rt_registration_t rt_kernel_if;
extern const rt_registration_t rt_kernel_while;
extern const rt_registration_t rt_kernel_call_once;
extern const rt_registration_t rt_kernel_var_handle;
extern const rt_registration_t rt_kernel_read_variable;
extern const rt_registration_t rt_kernel_assign_variable;
extern const rt_registration_t rt_kernel_hashtable;
extern const rt_registration_t rt_kernel_hashtable_find;
extern const rt_registration_t rt_kernel_hashtable_import;
extern const rt_registration_t rt_kernel_hashtable_size;
