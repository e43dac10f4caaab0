/* SPDX-License-Identifier: Apache-2.0 */
/* INTERNAL header of the runtime (runtime_internal_dep): not installed, not
 * part of the public API in runtime/include/ (docs/architecture.md). */
/*
 * The graph IR (runtime-internal): one interpreter's own tensors and nodes,
 * built from one subgraph of a verified model.
 *
 * Tensors start as copies of the model's tensors: constants point into the
 * model mapping (RT_ALLOC_CONST), variable tensors are RT_ALLOC_PERSISTENT,
 * everything else has no storage until the executor plans it. Nodes get their
 * registration from a resolver and their parsed params (reg->parse, once).
 *
 * The execution plan is a list of node indices run in order. It starts as
 * the model's operator order; a partitioner may later rewrite it (replace a
 * group of nodes by one node whose registration runs them on a driver).
 *
 * Not thread-safe; owned by one executor.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel.h"
#include "model.h"
#include "resolver.h"

/* Executor-side bookkeeping for one tensor. */
typedef struct rt_tensor_meta {
        const rt_model_tensor_t *model;  /* the tensor in the model */
        bool used;        /* input or output of some node in the plan, or a graph io */
        bool dynamic;     /* heap storage sized at invoke (set_dynamic, or a string) */
        bool deferred;    /* produced by a node prepared at invoke time: heap storage */
        bool graph_input;
        bool graph_output;
        int32_t producer; /* plan position of the node writing it, -1 if none */
        int32_t first_use;/* plan positions; graph inputs start at 0, outputs end at n_plan */
        int32_t last_use;
        void *heap;       /* executor-owned storage (dynamic, deferred, variable, string input) */
        size_t heap_bytes;
        size_t arena_offset;
        size_t arena_bytes; /* planned size of its arena slot */
        bool in_arena;
        /* Caller memory bound with rt_exec_set_tensor_buffer() (NULL: none).
         * Such a tensor is left out of the arena at the next allocate. */
        void *custom;
        size_t custom_bytes;
        rt_quant_t quant; /* the interpreter's copy (axis sanitised) */
} rt_tensor_meta_t;

typedef struct rt_graph {
        const rt_model_t *model;
        const rt_model_subgraph_t *sg;
        rt_tensor_t *tensors;
        rt_tensor_meta_t *meta;
        int32_t n_tensors;
        rt_node_t *nodes;
        int32_t n_nodes;
        int32_t *plan;      /* node indices in execution order (owned) */
        int32_t n_plan;
        const int32_t *inputs;
        int32_t n_inputs;
        const int32_t *outputs;
        int32_t n_outputs;
        /* private */
        bool *params_owned;   /* per node: free node->params at done */
        int32_t **owned_io;   /* per node: io arrays of added nodes, or NULL */
        int32_t cap_nodes;
} rt_graph_t;

/*
 * Build g (zeroed by the caller) from subgraph `subgraph` of `m`: tensors,
 * nodes and their registrations from `r`. Params are not parsed here (the
 * executor runs reg->parse). On failure returns -EINVAL (bad index, unknown
 * op: "node 0: unresolved custom op 'fake-op-double'"), -ENOTSUP (op known
 * but not this version: "node 12: op SVDF (builtin 27) version 4 is not
 * supported") or -ENOMEM, writes a message to err, and leaves g safe to pass
 * to rt_graph_done(). `m` must outlive g; `r` is only used during the call.
 */
int rt_graph_build(rt_graph_t *g, const rt_model_t *m, int32_t subgraph, const rt_resolver_t *r,
                   char *err, size_t err_size);

/* The message for node `op` (index `node`) not resolving in `r`; returns
 * -EINVAL (unknown op) or -ENOTSUP (unsupported version), 0 if it resolves. */
int rt_graph_describe_unresolved(const rt_model_op_t *op, int32_t node, const rt_resolver_t *r,
                                 char *buf, size_t size);

/*
 * Scan every node's op against `r` without building anything. Writes one
 * message per unresolved node through `cb` (may be NULL) and returns how
 * many nodes are unresolved, or -EINVAL for a bad subgraph index.
 */
int rt_graph_check_ops(const rt_model_t *m, int32_t subgraph, const rt_resolver_t *r,
                       void (*cb)(void *user, int32_t node, const char *message), void *user);

/*
 * Append a node that is not in the model (for example one standing for a
 * group of nodes a driver runs). inputs/outputs are copied (-1 = absent
 * input); `params` is borrowed and must outlive the graph. The node is not
 * in the plan until rt_graph_set_plan() puts it there. Returns the new
 * node's index, -EINVAL (bad tensor index, NULL reg) or -ENOMEM. Node
 * pointers taken before the call may move.
 */
int32_t rt_graph_add_node(rt_graph_t *g, const rt_registration_t *reg, const int32_t *inputs,
                          int32_t n_inputs, const int32_t *outputs, int32_t n_outputs, void *params);

/*
 * Replace the execution plan with the n node indices in `plan` (copied),
 * which must be a valid topological order: every node's inputs are
 * constants, graph inputs, variables or outputs of an earlier node in the
 * plan (or absent). Returns 0, -EINVAL with a message (bad index, a node
 * twice, an input produced later or never) or -ENOMEM.
 */
int rt_graph_set_plan(rt_graph_t *g, const int32_t *plan, int32_t n, char *err, size_t err_size);

/* Free what rt_graph_build() made (node params, arrays, heap storage; not
 * reg->free of user data, which is the executor's job). NULL-safe. */
void rt_graph_done(rt_graph_t *g);

/* Bytes of a tensor of `t`'s type and current dims; 0 for strings, 4 per
 * element for resource handles (an int32 id each). Sets
 * *ret_overflow on size_t overflow. */
size_t rt_graph_tensor_bytes(const rt_tensor_t *t, bool *ret_overflow);
