/* SPDX-License-Identifier: Apache-2.0 */
/* INTERNAL header of the runtime (runtime_internal_dep): not installed, not
 * part of the public API in runtime/include/ (docs/architecture.md). */
/*
 * The executor (runtime-internal): runs one graph. It implements
 * rt_context_t for the kernels, prepares every node in plan order (shape
 * inference: kernels set output shapes with rt_ctx_resize()), plans the
 * tensor arena from tensor lifetimes, and invokes the nodes in order.
 *
 * Storage of tensors:
 *  - constants point into the model mapping (RT_ALLOC_CONST);
 *  - variable tensors get their own heap block (RT_ALLOC_PERSISTENT), reset
 *    at every allocate (zero, int8 to its zero point as TFLite does, or the
 *    tensor's buffer when the model gives one) and kept across invokes; a
 *    caller may trade these blocks for its own (rt_exec_vars_swap());
 *  - outputs marked dynamic by a kernel (rt_ctx->set_dynamic), string
 *    tensors, and every output of a node that consumes such a tensor
 *    ("deferred" nodes, prepared again right before each invoke) live on the
 *    heap (RT_ALLOC_DYNAMIC), sized at invoke time;
 *  - everything else, graph inputs and outputs included, and per-node
 *    scratch, lives in one arena planned by rt_arena_plan() from lifetimes
 *    (first to last plan position using a tensor; graph inputs and outputs
 *    live through the whole plan, so inputs survive an invoke).
 *
 * A node runs through its registration's hooks, so a driver (a group of
 * nodes compiled for an accelerator) plugs in as a registration too: the
 * partitioner rewrites graph->plan to run one node standing for the group.
 *
 * String outputs: a kernel sets the shape with rt_ctx_resize() and then
 * stores the serialized TFLite string layout in t->data / t->bytes. t->data
 * is NULL or a malloc()ed block owned by the executor: the kernel writes in
 * place when t->bytes is big enough, or realloc()s t->data (as TFLite's
 * TfLiteTensorRealloc does); it never free()s it. The executor frees it.
 *
 * Other subgraphs: kernels reach other subgraphs of the model and the
 * interpreter's resources through the rt_context_t hooks (call_subgraph,
 * resource_*), which the executor forwards to its host (rt_exec_set_host();
 * the interpreter owns one executor per subgraph). Without a host those
 * hooks fail with -ENOTSUP.
 *
 * One executor is used by one thread at a time.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "graph.h"
#include "model.h"
#include "resolver.h"
#include "rt.h"

typedef struct rt_exec rt_exec_t;

/* Per-node timing entries are rt_node_profile_t (rt.h). */
typedef rt_node_profile_t rt_exec_profile_t;

/*
 * Build an executor for subgraph `subgraph` of `m`: graph, registrations
 * from `r` (used only during the call), reg->parse and reg->init of every
 * node. `m` must outlive the executor. Returns 0, -EINVAL / -ENOTSUP with a
 * message in err (unknown op, failing parse/init, prefixed "node N (OP): "),
 * or -ENOMEM.
 */
int rt_exec_new(const rt_model_t *m, int32_t subgraph, const rt_resolver_t *r, rt_exec_t **ret,
                char *err, size_t err_size);

/*
 * What an executor needs from its owner to run models with several
 * subgraphs: the interpreter implements these and hands them to each of its
 * executors with rt_exec_set_host(). `user` is passed back unchanged. The
 * error buffers receive a sentence for the kernel's message.
 */
typedef struct rt_exec_host {
        void *user;
        int (*subgraph_io)(void *user, int32_t subgraph, int32_t *ret_n_inputs, int32_t *ret_n_outputs,
                           char *err, size_t err_size);
        int (*call_subgraph)(void *user, int32_t subgraph, const rt_tensor_t *const *inputs,
                             int32_t n_inputs, const rt_tensor_t **ret_outputs, int32_t n_outputs,
                             char *err, size_t err_size);
        int32_t (*resource_id)(void *user, const char *container, const char *shared_name);
        const rt_tensor_t *(*resource_read)(void *user, int32_t id);
        int (*resource_assign)(void *user, int32_t id, const rt_tensor_t *value, char *err,
                               size_t err_size);
        void *(*resource_object)(void *user, const char *kind, int32_t id, size_t size,
                                 void (*destroy)(void *obj));
} rt_exec_host_t;

/* Give the kernels of `e` access to other subgraphs and resources through
 * `host` (borrowed: must outlive the executor; NULL detaches, and the
 * kernels' hooks then fail with -ENOTSUP). */
void rt_exec_set_host(rt_exec_t *e, const rt_exec_host_t *host);

/* The weights-cache hook drivers of this graph get (driver.h; borrowed,
 * NULL for none) and the current one. */
struct rt_driver_weights;
void rt_exec_set_weights(rt_exec_t *e, const struct rt_driver_weights *w);
const struct rt_driver_weights *rt_exec_weights(const rt_exec_t *e);

/*
 * Place the arena in shared memory (shm.h) or back on the heap: a driver
 * host can then read and write the tensors in it in place. Takes effect at
 * the next rt_exec_allocate() (the executor needs one).
 */
void rt_exec_set_shared_arena(rt_exec_t *e, bool shared);

/*
 * Give every tensor its own arena bytes (no reuse between tensors whose
 * lifetimes do not overlap), so that intermediate tensors keep the values
 * of the last invoke, like TFLite's preserve_all_tensors. The arena grows
 * to the sum of the tensors. Takes effect at the next rt_exec_allocate().
 */
void rt_exec_set_preserve_all(rt_exec_t *e, bool preserve);

/* reg->free for every node, then everything else. NULL-safe; returns NULL. */
rt_exec_t *rt_exec_free(rt_exec_t *e);

/* The graph (tensors, nodes, plan). Owned by the executor. After changing
 * the plan or a tensor's shape, call rt_exec_allocate() again. */
rt_graph_t *rt_exec_graph(rt_exec_t *e);

/*
 * Add a node outside the model, run by `reg` (borrowed; must outlive the
 * executor) with `params` (borrowed) and the given tensors, and run
 * reg->init for it. This is how a driver plugs in: a partitioner adds one
 * node per group of nodes the driver runs and then calls rt_exec_set_plan().
 * *ret_index gets the node index. 0, -EINVAL (bad tensors), -ENOMEM, or
 * init's error with a message.
 */
int rt_exec_add_node(rt_exec_t *e, const rt_registration_t *reg, const int32_t *inputs, int32_t n_inputs,
                     const int32_t *outputs, int32_t n_outputs, void *params, int32_t *ret_index);

/*
 * Constant folding: run once, now, every node of the plan for which
 * want(node, user) is true and whose inputs are all constants (or absent),
 * in plan order (so chains fold), store each output in executor-owned
 * memory marked RT_ALLOC_CONST, and drop those nodes from the plan. Used
 * before partitioning so that drivers see, e.g., DENSIFY outputs as
 * constant weights. Returns the number of nodes folded, or the first
 * failing kernel's error with a message. Requires rt_exec_allocate()
 * afterwards.
 */
int rt_exec_fold_constants(rt_exec_t *e, bool (*want)(const rt_node_t *n, void *user), void *user);

/*
 * The general form of constant folding. want selects nodes (as above);
 * supply (may be NULL) may return read-only storage that already holds the
 * output `tensor` of `n` (`bytes` long, shapes already set by prepare): when
 * it does for every output, the node is not run and the outputs point
 * there (the storage must outlive the executor). folded (may be NULL) is
 * told about every folded node and whether it was supplied.
 */
typedef struct rt_exec_fold_ops {
        bool (*want)(const rt_node_t *n, void *user);
        const void *(*supply)(const rt_node_t *n, int32_t tensor, const rt_tensor_t *t, size_t bytes, void *user);
        void (*folded)(const rt_node_t *n, bool supplied, void *user);
        void *user;
} rt_exec_fold_ops_t;

int rt_exec_fold(rt_exec_t *e, const rt_exec_fold_ops_t *ops);

/*
 * Point the folded constant `tensor` at `data` (read-only, `bytes` equal to
 * the tensor's, outliving the executor) and free the executor's copy.
 * 0 or -EINVAL.
 */
int rt_exec_adopt_const(rt_exec_t *e, int32_t tensor, const void *data, size_t bytes);

/*
 * Replace the execution plan (node indices in order, copied; see
 * rt_graph_set_plan() for the checks) and require rt_exec_allocate() again.
 * Nodes left out of the plan are not run. 0, -EINVAL with a message, or
 * -ENOMEM.
 */
int rt_exec_set_plan(rt_exec_t *e, const int32_t *plan, int32_t n);

/*
 * Set the shape of graph tensor `tensor` (meant for graph inputs) and mark
 * the executor as needing rt_exec_allocate(). Returns 0 or -EINVAL (bad
 * index, rank, negative dimension, constant tensor) with a message.
 */
int rt_exec_resize_tensor(rt_exec_t *e, int32_t tensor, int32_t rank, const int32_t *dims);

/*
 * Prepare every node in plan order (re-deriving all shapes), plan and
 * allocate the arena, reset variable tensors. Returns 0 or the first failing
 * kernel's error (-EINVAL, -ENOTSUP, -ENOMEM) with a message
 * ("node 3 (CONV_2D): ...").
 */
int rt_exec_allocate(rt_exec_t *e);

/*
 * Bind graph tensor `tensor` to caller memory `data` of `size` bytes (see
 * rt_interp_set_tensor_buffer() for the rules, checked here: RT_BUFFER_ALIGN
 * alignment, the tensor's bytes plus RT_BUFFER_SLACK when a node of the plan
 * reads it, no constant, variable, string or dynamic tensor). After an
 * allocate the binding takes effect at once (the tensor's arena slot stays
 * reserved and unused); at the next allocate the tensor leaves the arena.
 * data NULL unbinds: a tensor with an arena slot gets it back at once, one
 * without needs rt_exec_allocate() again. 0 or -EINVAL with a message.
 */
int rt_exec_set_tensor_buffer(rt_exec_t *e, int32_t tensor, void *data, size_t size);

/* The minimum size of a buffer for tensor `tensor` with its current shape
 * (bytes, plus RT_BUFFER_SLACK when a node of the plan reads it); 0 for a
 * bad index. */
size_t rt_exec_tensor_buffer_bytes(const rt_exec_t *e, int32_t tensor);

/* True until rt_exec_allocate() has succeeded after the last resize. */
bool rt_exec_needs_allocate(const rt_exec_t *e);

/*
 * Variable tensors held by the caller (one client's state on a shared
 * executor): one slot per variable tensor of the graph, in tensor order,
 * each a malloc()ed block of `bytes`. Zero-initialise; the first swap sizes
 * it. rt_exec_vars_swap() trades the slots with the executor's own blocks
 * (pointers only, no copy), so that invokes read and update the slots'
 * values; swapping again trades them back. A slot that is empty or whose
 * size differs from the tensor's (a new shape since) is first set to the
 * tensor's initial value, as an allocate would. Returns 1 when traded,
 * 0 when there is nothing to trade (no variable tensors, or never
 * allocated: an allocate places them later), -EINVAL (vars of another
 * graph) or -ENOMEM (nothing traded). One thread, like the executor.
 */
typedef struct rt_exec_var {
        void *data;
        size_t bytes;
} rt_exec_var_t;

typedef struct rt_exec_vars {
        rt_exec_var_t *v;
        int32_t n;
} rt_exec_vars_t;

int rt_exec_vars_swap(rt_exec_t *e, rt_exec_vars_t *vars);

/* Set the executor's current variable tensors (its own, or swapped-in
 * slots) to their initial values, like TFLite's ResetVariableTensors. */
void rt_exec_vars_reset(rt_exec_t *e);

/* How many variable tensors the graph has; bytes held by `vars`. */
int32_t rt_exec_vars_count(const rt_exec_t *e);
size_t rt_exec_vars_bytes(const rt_exec_vars_t *vars);

/* Free the slots and empty `vars` (NULL-safe). */
void rt_exec_vars_done(rt_exec_vars_t *vars);

/* Run every node once. Returns 0, -EINVAL if not allocated, or the first
 * failing kernel's error with a message. */
int rt_exec_invoke(rt_exec_t *e);

/* Bytes of the planned arena (tensors and scratch) after the last allocate. */
size_t rt_exec_arena_bytes(const rt_exec_t *e);

/* The message of the last failure ("" if none). Owned by the executor,
 * valid until the next call. */
const char *rt_exec_error(const rt_exec_t *e);

/* Record per-node times from now on (or stop). Enabling clears the totals. */
int rt_exec_set_profiling(rt_exec_t *e, bool enable);

/* Per-node profile, one entry per plan position, in plan order; *ret is
 * owned by the executor. Returns the number of entries (0 when profiling
 * was never enabled). */
size_t rt_exec_profile(const rt_exec_t *e, const rt_exec_profile_t **ret);

/* "CONV_2D", or the custom op's name, for node `n`. */
const char *rt_exec_node_name(const rt_node_t *n);
