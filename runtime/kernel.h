/* SPDX-License-Identifier: Apache-2.0 */
/* INTERNAL header of the runtime (runtime_internal_dep): not installed, not
 * part of the public API in runtime/include/ (docs/architecture.md). */
/*
 * The kernel-facing side of the runtime: the registration interface that
 * every builtin and custom op implements (in the spirit of
 * TfLiteRegistration) and the context a kernel talks to. Tensors, nodes,
 * types and op codes are the driver ABI's (<accel/driver.h>), which this
 * header includes.
 *
 * Threading: a kernel is called from whichever thread runs the interpreter;
 * one interpreter is never used from two threads at once. Kernels keep no
 * global mutable state.
 *
 * Errors: every hook returns 0 or a negative errno. -EINVAL is "this model is
 * wrong for this op" (bad type, bad shape), -ENOTSUP "valid but not
 * implemented here", -ENOMEM. Before returning an error a hook calls
 * rt_ctx_error() with a sentence that names the problem; the executor prefixes
 * it with the node index and op name.
 */
#pragma once

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "accel/driver.h"
#include "fbt.h"
#include "model.h" /* rt_type_size(), rt_type_name() */

typedef struct rt_context rt_context_t;

/*
 * An op implementation. Every hook may be NULL.
 *
 * parse:   turn node->options / custom options into a params struct of
 *          params_size bytes at ret_params (zeroed by the caller). Called once
 *          at load. Tests may skip it and fill node->params themselves.
 * init:    allocate per-node state; *ret_data is freed with free().
 * free:    release what init made.
 * prepare: check input types and ranks, compute and set output shapes with
 *          rt_ctx_resize() (or mark outputs dynamic), request scratch. Called
 *          after every resize of the graph inputs.
 * invoke:  compute. Dynamic outputs are sized here with rt_ctx_resize().
 */
struct rt_registration {
        const char *name;
        int32_t op;               /* builtin code, or RT_OP_CUSTOM */
        size_t params_size;
        int (*parse)(const rt_node_t *node, void *ret_params, rt_context_t *ctx);
        int (*init)(rt_context_t *ctx, rt_node_t *node, void **ret_data);
        void (*free)(rt_context_t *ctx, void *data);
        int (*prepare)(rt_context_t *ctx, rt_node_t *node);
        int (*invoke)(rt_context_t *ctx, rt_node_t *node);
        /* A kernel of the embedding program (ext-kernel.h) this
         * registration adapts, else NULL; only runtime/ext-kernel.c reads it. */
        const void *ext;
};

/*
 * What the executor (or a test harness) provides to kernels. Kernels use the
 * rt_ctx_* inline wrappers below, never the function pointers directly.
 */
struct rt_context {
        rt_tensor_t *tensors;
        int32_t n_tensors;
        void *impl;  /* the executor's private state */
        /* Set the shape of tensor `index`; (re)allocates dynamic tensors at
         * invoke time. -EINVAL for a bad rank or a negative dimension. */
        int (*resize)(rt_context_t *ctx, int32_t index, int32_t rank, const int32_t *dims);
        /* Mark an output whose shape is only known at invoke time. */
        int (*set_dynamic)(rt_context_t *ctx, int32_t index);
        /* Per-node scratch memory: request in prepare, fetch in invoke. The
         * pointer is valid for the duration of invoke only. */
        int (*request_scratch)(rt_context_t *ctx, rt_node_t *node, size_t bytes, int32_t *ret_id);
        void *(*get_scratch)(rt_context_t *ctx, rt_node_t *node, int32_t id);
        void (*verror)(rt_context_t *ctx, const char *fmt, va_list ap);

        /*
         * Models with several subgraphs (control flow) and resource
         * variables. Each hook may be NULL (the single-node test harness
         * has none); kernels use the rt_ctx_* wrappers below, which fail
         * with -ENOTSUP then. Added after the hooks above; older code that
         * zero-initializes the context keeps working.
         */
        /* Number of inputs and outputs of subgraph `subgraph` of the model;
         * -EINVAL (with a message) for an index out of range. */
        int (*subgraph_io)(rt_context_t *ctx, int32_t subgraph, int32_t *ret_n_inputs,
                           int32_t *ret_n_outputs);
        /* Run subgraph `subgraph` once: its inputs are resized to the shapes
         * of `inputs` (same count and types required) and get their data
         * copied; then it is invoked. ret_outputs[0..n_outputs) get its
         * output tensors (borrowed; valid until the next call into that
         * subgraph). -EINVAL for a bad index, count or type, or a call into
         * a subgraph already running (recursion); the callee's error
         * otherwise. */
        int (*call_subgraph)(rt_context_t *ctx, int32_t subgraph, const rt_tensor_t *const *inputs,
                             int32_t n_inputs, const rt_tensor_t **ret_outputs, int32_t n_outputs);
        /* The interpreter-wide id (>= 0) of the resource named by
         * (container, shared_name), created on first use; -ENOMEM. */
        int32_t (*resource_id)(rt_context_t *ctx, const char *container, const char *shared_name);
        /* The value of resource variable `id`, or NULL if nothing was
         * assigned yet. Borrowed; valid until the next assign. */
        const rt_tensor_t *(*resource_read)(rt_context_t *ctx, int32_t id);
        /* Store a copy of `value` (type, shape, data) as variable `id`. */
        int (*resource_assign)(rt_context_t *ctx, int32_t id, const rt_tensor_t *value);
        /* An interpreter-wide object (for example a hash table) named by
         * `kind` (a string literal of the kernel family) and `id`. With
         * size > 0 it is created zeroed on first use; with size 0 only an
         * existing one is returned. `destroy` (may be NULL) is called with
         * the object before the interpreter frees it. NULL when absent or
         * out of memory. */
        void *(*resource_object)(rt_context_t *ctx, const char *kind, int32_t id, size_t size,
                                 void (*destroy)(void *obj));
};

__attribute__((format(printf, 2, 3)))
static inline int rt_ctx_error(rt_context_t *ctx, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        ctx->verror(ctx, fmt, ap);
        va_end(ap);
        return -EINVAL;
}

/* Wrappers of the multi-subgraph hooks: -ENOTSUP (with a message) when the
 * context has no such hook. */
static inline int rt_ctx_subgraph_io(rt_context_t *ctx, int32_t subgraph, int32_t *ret_n_inputs,
                                     int32_t *ret_n_outputs) {
        if (!ctx->subgraph_io) {
                rt_ctx_error(ctx, "this context cannot run other subgraphs");
                return -ENOTSUP;
        }
        return ctx->subgraph_io(ctx, subgraph, ret_n_inputs, ret_n_outputs);
}

static inline int rt_ctx_call_subgraph(rt_context_t *ctx, int32_t subgraph,
                                       const rt_tensor_t *const *inputs, int32_t n_inputs,
                                       const rt_tensor_t **ret_outputs, int32_t n_outputs) {
        if (!ctx->call_subgraph) {
                rt_ctx_error(ctx, "this context cannot run other subgraphs");
                return -ENOTSUP;
        }
        return ctx->call_subgraph(ctx, subgraph, inputs, n_inputs, ret_outputs, n_outputs);
}

static inline int32_t rt_ctx_resource_id(rt_context_t *ctx, const char *container,
                                         const char *shared_name) {
        if (!ctx->resource_id) {
                rt_ctx_error(ctx, "this context has no resource variables");
                return -ENOTSUP;
        }
        return ctx->resource_id(ctx, container ? container : "", shared_name ? shared_name : "");
}

static inline const rt_tensor_t *rt_ctx_resource_read(rt_context_t *ctx, int32_t id) {
        return ctx->resource_read ? ctx->resource_read(ctx, id) : NULL;
}

static inline void *rt_ctx_resource_object(rt_context_t *ctx, const char *kind, int32_t id, size_t size,
                                           void (*destroy)(void *obj)) {
        return ctx->resource_object ? ctx->resource_object(ctx, kind, id, size, destroy) : NULL;
}

static inline int rt_ctx_resource_assign(rt_context_t *ctx, int32_t id, const rt_tensor_t *value) {
        if (!ctx->resource_assign) {
                rt_ctx_error(ctx, "this context has no resource variables");
                return -ENOTSUP;
        }
        return ctx->resource_assign(ctx, id, value);
}

/* Input/output i of a node, or NULL when the optional input is absent. */
static inline rt_tensor_t *rt_node_input(rt_context_t *ctx, const rt_node_t *n, int32_t i) {
        if (i < 0 || i >= n->n_inputs || n->inputs[i] < 0 || n->inputs[i] >= ctx->n_tensors)
                return NULL;
        return &ctx->tensors[n->inputs[i]];
}

static inline rt_tensor_t *rt_node_output(rt_context_t *ctx, const rt_node_t *n, int32_t i) {
        if (i < 0 || i >= n->n_outputs || n->outputs[i] < 0 || n->outputs[i] >= ctx->n_tensors)
                return NULL;
        return &ctx->tensors[n->outputs[i]];
}

static inline int rt_ctx_resize(rt_context_t *ctx, const rt_node_t *n, int32_t output, int32_t rank,
                                const int32_t *dims) {
        if (output < 0 || output >= n->n_outputs)
                return -EINVAL;
        return ctx->resize(ctx, n->outputs[output], rank, dims);
}

/* Registration tables. Each kernel family exports one function that adds its
 * ops to a resolver; rt_kernels_register_builtins() calls them all. */
typedef struct rt_resolver rt_resolver_t;
int rt_resolver_add(rt_resolver_t *r, const rt_registration_t *reg);
