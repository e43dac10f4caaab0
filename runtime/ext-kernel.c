/* SPDX-License-Identifier: Apache-2.0 */
/*
 * External kernels (ext-kernel.h): the embedding program's op as a
 * registration of the runtime's kernel interface (kernel.h). The
 * registration carries the program's rt_ext_kernel_t in `ext`; each node
 * keeps it beside the program's per-node data, so that free finds it.
 * The context handed to the program is the executor's rt_context_t.
 */
#include <errno.h>
#include <stdlib.h>

#include "ext-kernel.h"
#include "kernel.h"

/* A node's state: the kernel (free has no registration) and its data. */
typedef struct ext_node {
        const rt_ext_kernel_t *k;
        void *data;
} ext_node_t;

static rt_ext_ctx_t *ext_ctx(rt_context_t *ctx) {
        return (rt_ext_ctx_t *) ctx;
}

static rt_context_t *rt_ctx(rt_ext_ctx_t *ctx) {
        return (rt_context_t *) ctx;
}

static int ext_init(rt_context_t *ctx, rt_node_t *node, void **ret_data) {
        const rt_ext_kernel_t *k = node->reg->ext;
        ext_node_t *x = calloc(1, sizeof(*x));
        if (!x)
                return -ENOMEM;
        x->k = k;
        if (k->init) {
                int r = k->init(k->user, ext_ctx(ctx), node, &x->data);
                if (r < 0) {
                        free(x);
                        return r;
                }
        }
        *ret_data = x;
        return 0;
}

static void ext_free(rt_context_t *ctx, void *data) {
        ext_node_t *x = data;
        if (x->k->free)
                x->k->free(x->k->user, x->data);
        free(x);
}

static int ext_prepare(rt_context_t *ctx, rt_node_t *node) {
        ext_node_t *x = node->user_data;
        return x->k->prepare ? x->k->prepare(x->k->user, ext_ctx(ctx), node, x->data) : 0;
}

static int ext_invoke(rt_context_t *ctx, rt_node_t *node) {
        ext_node_t *x = node->user_data;
        return x->k->invoke(x->k->user, ext_ctx(ctx), node, x->data);
}

int rt_interp_options_add_ext_kernel(rt_interp_options_t *o, int32_t op, const char *custom_name,
                                     const rt_ext_kernel_t *k, int32_t min_version, int32_t max_version) {
        if (!o || !k || !k->invoke || op < 0 || (op == RT_OP_CUSTOM && (!custom_name || !custom_name[0])))
                return -EINVAL;
        /* Copied by the options; `k` itself is borrowed. */
        const rt_registration_t reg = {
                .name = custom_name,
                .op = op,
                .init = ext_init,
                .free = ext_free,
                .prepare = ext_prepare,
                .invoke = ext_invoke,
                .ext = k,
        };
        if (op == RT_OP_CUSTOM)
                return rt_interp_options_add_custom_op(o, custom_name, &reg, min_version, max_version);
        return rt_interp_options_add_builtin_op(o, op, &reg, min_version, max_version);
}

rt_tensor_t *rt_ext_ctx_tensors(rt_ext_ctx_t *ctx, int32_t *ret_n) {
        if (ret_n)
                *ret_n = rt_ctx(ctx)->n_tensors;
        return rt_ctx(ctx)->tensors;
}

int rt_ext_ctx_resize(rt_ext_ctx_t *ctx, int32_t index, int32_t rank, const int32_t *dims) {
        rt_context_t *c = rt_ctx(ctx);
        if (index < 0 || index >= c->n_tensors) {
                rt_ctx_error(c, "tensor %d out of range (%d tensors)", index, c->n_tensors);
                return -EINVAL;
        }
        if (rank < 0 || rank > RT_MAX_RANK) {
                rt_ctx_error(c, "tensor %d: rank %d is not supported (at most %d)", index, rank, RT_MAX_RANK);
                return -EINVAL;
        }
        return c->resize(c, index, rank, dims);
}

int rt_ext_ctx_set_dynamic(rt_ext_ctx_t *ctx, int32_t index) {
        rt_context_t *c = rt_ctx(ctx);
        return c->set_dynamic ? c->set_dynamic(c, index) : -ENOTSUP;
}

int rt_ext_ctx_request_scratch(rt_ext_ctx_t *ctx, const rt_node_t *node, size_t bytes, int32_t *ret_id) {
        rt_context_t *c = rt_ctx(ctx);
        /* The executor's hook takes the node by a mutable pointer but only
         * reads its index. */
        return c->request_scratch ? c->request_scratch(c, (rt_node_t *) node, bytes, ret_id) : -ENOTSUP;
}

void *rt_ext_ctx_scratch(rt_ext_ctx_t *ctx, const rt_node_t *node, int32_t id) {
        rt_context_t *c = rt_ctx(ctx);
        return c->get_scratch ? c->get_scratch(c, (rt_node_t *) node, id) : NULL;
}

void rt_ext_ctx_verror(rt_ext_ctx_t *ctx, const char *fmt, va_list ap) {
        rt_context_t *c = rt_ctx(ctx);
        c->verror(c, fmt, ap);
}

void rt_ext_ctx_error(rt_ext_ctx_t *ctx, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        rt_ext_ctx_verror(ctx, fmt, ap);
        va_end(ap);
}
