/* SPDX-License-Identifier: Apache-2.0 */
/* VAR_HANDLE, ASSIGN_VARIABLE and READ_VARIABLE: TFLite var_handle.cc,
 * assign_variable.cc and read_variable.cc. A resource tensor holds the
 * int32 id the interpreter gave the (container, shared_name) pair. */
#include <string.h>

#include "control-internal.h"

static int name_copy(rt_context_t *ctx, fbt_table_t o, unsigned id, const char *what, char *dst) {
        uint32_t len = 0;
        const char *s = fbt_string(o, id, &len);
        if (!s) {
                dst[0] = 0;
                return 0;
        }
        if (len >= RT_VAR_NAME_MAX) {
                rt_ctx_error(ctx, "VAR_HANDLE: %s is %u bytes long (at most %d supported)", what, len,
                             RT_VAR_NAME_MAX - 1);
                return -ENOTSUP;
        }
        memcpy(dst, s, len);
        dst[len] = 0;
        return 0;
}

static int var_handle_parse(const rt_node_t *node, void *ret_params, rt_context_t *ctx) {
        rt_var_handle_params_t *p = ret_params;
        int r = name_copy(ctx, node->options, 0, "container", p->container);
        if (r < 0)
                return r;
        return name_copy(ctx, node->options, 1, "shared_name", p->shared_name);
}

/* The resource id held by resource tensor t. */
static int handle_get(rt_context_t *ctx, const char *op, const rt_tensor_t *t, int32_t *ret_id) {
        if (!t || t->type != RT_TYPE_RESOURCE)
                return rt_ctx_error(ctx, "%s: input 0 must be a resource tensor", op);
        if (!t->data || t->bytes < sizeof(int32_t))
                return rt_ctx_error(ctx, "%s: the resource handle has no data", op);
        memcpy(ret_id, t->data, sizeof(int32_t));
        return 0;
}

static int var_handle_prepare(rt_context_t *ctx, rt_node_t *node) {
        if (!node->params)
                return rt_ctx_error(ctx, "VAR_HANDLE: node has no params");
        if (node->n_outputs != 1)
                return rt_ctx_error(ctx, "VAR_HANDLE: expected 1 output, got %d", node->n_outputs);
        const rt_tensor_t *out = rt_node_output(ctx, node, 0);
        if (!out || out->type != RT_TYPE_RESOURCE)
                return rt_ctx_error(ctx, "VAR_HANDLE: the output must be a resource tensor");
        if (rt_tensor_count(out) != 1)
                return rt_ctx_error(ctx, "VAR_HANDLE: the output must hold one handle, has %zu elements",
                                    rt_tensor_count(out));
        return 0;
}

static int var_handle_invoke(rt_context_t *ctx, rt_node_t *node) {
        const rt_var_handle_params_t *p = node->params;
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        int32_t id = rt_ctx_resource_id(ctx, p->container, p->shared_name);
        if (id < 0)
                return id;
        if (!out->data || out->bytes < sizeof(int32_t))
                return rt_ctx_error(ctx, "VAR_HANDLE: the output has no storage");
        memcpy(out->data, &id, sizeof(id));
        return 0;
}

const rt_registration_t rt_kernel_var_handle = {
        .name = "VAR_HANDLE",
        .op = RT_OP_VAR_HANDLE,
        .params_size = sizeof(rt_var_handle_params_t),
        .parse = var_handle_parse,
        .prepare = var_handle_prepare,
        .invoke = var_handle_invoke,
};

static int assign_prepare(rt_context_t *ctx, rt_node_t *node) {
        if (node->n_inputs != 2 || node->n_outputs != 0)
                return rt_ctx_error(ctx, "ASSIGN_VARIABLE: expected 2 inputs and no outputs, got %d and %d",
                                    node->n_inputs, node->n_outputs);
        const rt_tensor_t *h = rt_node_input(ctx, node, 0);
        const rt_tensor_t *v = rt_node_input(ctx, node, 1);
        if (!h || h->type != RT_TYPE_RESOURCE)
                return rt_ctx_error(ctx, "ASSIGN_VARIABLE: input 0 must be a resource tensor");
        if (!v)
                return rt_ctx_error(ctx, "ASSIGN_VARIABLE: the value input is missing");
        if (v->type == RT_TYPE_STRING || v->type == RT_TYPE_RESOURCE || v->type == RT_TYPE_VARIANT) {
                rt_ctx_error(ctx, "ASSIGN_VARIABLE: %s values are not supported", rt_type_name(v->type));
                return -ENOTSUP;
        }
        return 0;
}

static int assign_invoke(rt_context_t *ctx, rt_node_t *node) {
        int32_t id;
        int r = handle_get(ctx, "ASSIGN_VARIABLE", rt_node_input(ctx, node, 0), &id);
        if (r < 0)
                return r;
        return rt_ctx_resource_assign(ctx, id, rt_node_input(ctx, node, 1));
}

const rt_registration_t rt_kernel_assign_variable = {
        .name = "ASSIGN_VARIABLE",
        .op = RT_OP_ASSIGN_VARIABLE,
        .prepare = assign_prepare,
        .invoke = assign_invoke,
};

static int read_prepare(rt_context_t *ctx, rt_node_t *node) {
        if (node->n_inputs != 1 || node->n_outputs != 1)
                return rt_ctx_error(ctx, "READ_VARIABLE: expected 1 input and 1 output, got %d and %d",
                                    node->n_inputs, node->n_outputs);
        const rt_tensor_t *h = rt_node_input(ctx, node, 0);
        if (!h || h->type != RT_TYPE_RESOURCE)
                return rt_ctx_error(ctx, "READ_VARIABLE: input 0 must be a resource tensor");
        return rt_control__outputs_dynamic(ctx, "READ_VARIABLE", node);
}

static int read_invoke(rt_context_t *ctx, rt_node_t *node) {
        int32_t id;
        int r = handle_get(ctx, "READ_VARIABLE", rt_node_input(ctx, node, 0), &id);
        if (r < 0)
                return r;
        const rt_tensor_t *v = rt_ctx_resource_read(ctx, id);
        if (!v)
                return rt_ctx_error(ctx, "READ_VARIABLE: variable %d is read before any assignment", id);
        return rt_control__copy_to_output(ctx, "READ_VARIABLE", node, 0, v);
}

const rt_registration_t rt_kernel_read_variable = {
        .name = "READ_VARIABLE",
        .op = RT_OP_READ_VARIABLE,
        .prepare = read_prepare,
        .invoke = read_invoke,
};
