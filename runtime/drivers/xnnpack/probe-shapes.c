/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The shapes a support probe compiles a node with. Probes run when the
 * interpreter is created, before any shape inference: the graph's shapes
 * are still those the model declares, and a model is free to declare an
 * output shape its op cannot produce. XNNPACK trusts the shapes it is
 * given (Debian's build asserts on mismatched channels when the runtime is
 * created, and its operators size their output from the input), so a probe
 * on declared shapes could abort acceld. The real compilation never sees
 * declared shapes: delegation runs the reference kernels' prepare hooks
 * over the group first. A probe does the same for its one node, on a view
 * of the tensors: the node's outputs get the shapes its reference kernel
 * infers from its inputs, and a node whose kernel refuses its inputs is
 * refused.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel.h"
#include "rt.h"
#include "xnnpack-internal.h"

typedef struct probe_ctx {
        rt_context_t ctx;       /* first: the kernels see this */
        const rt_node_t *n;
        bool dynamic;
        char why[200];
} probe_ctx_t;

/* Like the delegation's own resize, limited to the node's outputs (all a
 * kernel resizes), which is what the caller restores. */
static int probe_resize(rt_context_t *ctx, int32_t index, int32_t rank, const int32_t *dims) {
        probe_ctx_t *p = (probe_ctx_t *) ctx;
        bool output = false;
        for (int32_t k = 0; k < p->n->n_outputs && !output; k++)
                output = p->n->outputs[k] == index;
        if (!output || index < 0 || index >= ctx->n_tensors || rank < 0 || rank > RT_MAX_RANK || (rank > 0 && !dims))
                return -EINVAL;
        rt_tensor_t *t = &ctx->tensors[index];
        if (t->alloc == RT_ALLOC_CONST)
                return -EINVAL;
        for (int32_t d = 0; d < rank; d++)
                if (dims[d] < 0)
                        return -EINVAL;
        t->rank = rank;
        if (rank > 0)
                memcpy(t->dims, dims, sizeof(int32_t) * (size_t) rank);
        return 0;
}

static int probe_set_dynamic(rt_context_t *ctx, int32_t index) {
        (void) index;
        ((probe_ctx_t *) ctx)->dynamic = true;
        return 0;
}

static int probe_request_scratch(rt_context_t *ctx, rt_node_t *node, size_t bytes, int32_t *ret_id) {
        (void) ctx;
        (void) node;
        (void) bytes;
        *ret_id = 0;
        return 0;
}

static void *probe_get_scratch(rt_context_t *ctx, rt_node_t *node, int32_t id) {
        (void) ctx;
        (void) node;
        (void) id;
        return NULL;
}

static void probe_verror(rt_context_t *ctx, const char *fmt, va_list ap) {
        probe_ctx_t *p = (probe_ctx_t *) ctx;
        (void) vsnprintf(p->why, sizeof(p->why), fmt, ap);
}

int rt__xnn_probe_shapes(const rt_driver_graph_t *g, const rt_node_t *n, rt_tensor_t *view, char *err,
                         size_t err_size) {
        if (!n->reg || !n->reg->prepare)
                return 0;
        probe_ctx_t p = {
                .ctx = { .tensors = view, .n_tensors = g->n_tensors, .resize = probe_resize,
                         .set_dynamic = probe_set_dynamic, .request_scratch = probe_request_scratch,
                         .get_scratch = probe_get_scratch, .verror = probe_verror },
                .n = n,
        };
        /* The hook fills the node's own state (user_data) as it will again
         * when the group is prepared for real. */
        int r = n->reg->prepare(&p.ctx, (rt_node_t *) n);
        if (r == -ENOMEM) {
                snprintf(err, err_size, "XNNPACK: out of memory");
        } else if (r < 0) {
                snprintf(err, err_size, "XNNPACK: the node's shapes are inconsistent: %s",
                         p.why[0] ? p.why : strerror(-r));
                r = -ENOTSUP;
        } else if (p.dynamic) {
                snprintf(err, err_size, "XNNPACK: output shape known only when running");
                r = -ENOTSUP;
        }
        return r;
}

void rt__xnn_probe_restore(const rt_driver_graph_t *g, const rt_node_t *n, rt_tensor_t *view) {
        for (int32_t k = 0; k < n->n_outputs; k++) {
                int32_t t = n->outputs[k];
                if (t >= 0 && t < g->n_tensors)
                        view[t] = g->tensors[t];
        }
}
