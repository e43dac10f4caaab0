/* SPDX-License-Identifier: Apache-2.0 */
/* IF, WHILE and CALL_ONCE: TFLite if.cc, while.cc and call_once.cc. */
#include <stdlib.h>
#include <string.h>

#include "control-internal.h"

/* Pointers to node inputs [first, n_inputs) in a new array (NULL when
 * there are none; *ret_ok false on ENOMEM or an absent input). */
static const rt_tensor_t **inputs_gather(rt_context_t *ctx, const rt_node_t *node, int32_t first,
                                         bool *ret_ok) {
        *ret_ok = true;
        int32_t n = node->n_inputs - first;
        if (n <= 0)
                return NULL;
        const rt_tensor_t **v = calloc((size_t) n, sizeof(*v));
        if (!v) {
                *ret_ok = false;
                return NULL;
        }
        for (int32_t i = 0; i < n; i++) {
                v[i] = rt_node_input(ctx, node, first + i);
                if (!v[i]) {
                        *ret_ok = false;
                        free(v);
                        return NULL;
                }
        }
        return v;
}

/* ---- IF ---- */

static int if_parse(const rt_node_t *node, void *ret_params, rt_context_t *ctx) {
        (void) ctx;
        rt_if_params_t *p = ret_params;
        p->then_subgraph = fbt_i32(node->options, 0, 0);
        p->else_subgraph = fbt_i32(node->options, 1, 0);
        return 0;
}

static int if_prepare(rt_context_t *ctx, rt_node_t *node) {
        const rt_if_params_t *p = node->params;
        if (!p)
                return rt_ctx_error(ctx, "IF: node has no params");
        if (node->n_inputs < 1)
                return rt_ctx_error(ctx, "IF: expected the condition and the branch inputs, got no inputs");
        const rt_tensor_t *cond = rt_node_input(ctx, node, 0);
        if (!cond)
                return rt_ctx_error(ctx, "IF: the condition input is missing");
        if (cond->rank > 0 && rt_tensor_count(cond) != 1)
                return rt_ctx_error(ctx, "IF: the condition must have exactly one element, has %zu",
                                    rt_tensor_count(cond));
        for (int32_t i = 1; i < node->n_inputs; i++)
                if (!rt_node_input(ctx, node, i))
                        return rt_ctx_error(ctx, "IF: input %d is missing", i);
        int r = rt_control__check_subgraph(ctx, "IF", "then", p->then_subgraph, node->n_inputs - 1,
                                           node->n_outputs);
        if (r < 0)
                return r;
        r = rt_control__check_subgraph(ctx, "IF", "else", p->else_subgraph, node->n_inputs - 1,
                                       node->n_outputs);
        if (r < 0)
                return r;
        return rt_control__outputs_dynamic(ctx, "IF", node);
}

static int if_invoke(rt_context_t *ctx, rt_node_t *node) {
        const rt_if_params_t *p = node->params;
        bool c;
        int r = rt_control__truth(ctx, "IF", rt_node_input(ctx, node, 0), &c);
        if (r < 0)
                return r;
        bool ok;
        const rt_tensor_t **in = inputs_gather(ctx, node, 1, &ok);
        if (!ok)
                return -ENOMEM;
        const rt_tensor_t **out = calloc((size_t) node->n_outputs + 1, sizeof(*out));
        if (!out) {
                free(in);
                return -ENOMEM;
        }
        r = rt_ctx_call_subgraph(ctx, c ? p->then_subgraph : p->else_subgraph, in, node->n_inputs - 1, out,
                                 node->n_outputs);
        for (int32_t i = 0; r >= 0 && i < node->n_outputs; i++)
                r = rt_control__copy_to_output(ctx, "IF", node, i, out[i]);
        free(out);
        free(in);
        return r;
}

const rt_registration_t rt_kernel_if = {
        .name = "IF",
        .op = RT_OP_IF,
        .params_size = sizeof(rt_if_params_t),
        .parse = if_parse,
        .prepare = if_prepare,
        .invoke = if_invoke,
};

/* ---- WHILE ---- */

static int while_parse(const rt_node_t *node, void *ret_params, rt_context_t *ctx) {
        (void) ctx;
        rt_while_params_t *p = ret_params;
        p->cond_subgraph = fbt_i32(node->options, 0, 0);
        p->body_subgraph = fbt_i32(node->options, 1, 0);
        return 0;
}

static int while_prepare(rt_context_t *ctx, rt_node_t *node) {
        const rt_while_params_t *p = node->params;
        if (!p)
                return rt_ctx_error(ctx, "WHILE: node has no params");
        if (node->n_inputs != node->n_outputs)
                return rt_ctx_error(ctx, "WHILE: %d inputs but %d outputs; loop-carried tensors need as many of each",
                                    node->n_inputs, node->n_outputs);
        for (int32_t i = 0; i < node->n_inputs; i++) {
                const rt_tensor_t *in = rt_node_input(ctx, node, i);
                const rt_tensor_t *out = rt_node_output(ctx, node, i);
                if (!in || !out)
                        return rt_ctx_error(ctx, "WHILE: loop-carried tensor %d is missing", i);
                if (in->type != out->type)
                        return rt_ctx_error(ctx, "WHILE: input %d is %s but output %d is %s", i,
                                            rt_type_name(in->type), i, rt_type_name(out->type));
        }
        int r = rt_control__check_subgraph(ctx, "WHILE", "cond", p->cond_subgraph, node->n_inputs, 1);
        if (r < 0)
                return r;
        r = rt_control__check_subgraph(ctx, "WHILE", "body", p->body_subgraph, node->n_inputs,
                                       node->n_outputs);
        if (r < 0)
                return r;
        return rt_control__outputs_dynamic(ctx, "WHILE", node);
}

static int while_invoke(rt_context_t *ctx, rt_node_t *node) {
        const rt_while_params_t *p = node->params;
        const int32_t n = node->n_inputs;
        int r = 0;
        /* The node's outputs hold the loop state: they start as the inputs
         * and take the body's outputs after every iteration (a copy, so the
         * body's own tensors are free to move when it is re-allocated). */
        for (int32_t i = 0; i < n && r >= 0; i++)
                r = rt_control__copy_to_output(ctx, "WHILE", node, i, rt_node_input(ctx, node, i));
        if (r < 0)
                return r;
        const rt_tensor_t **state = calloc((size_t) n + 1, sizeof(*state));
        const rt_tensor_t **res = calloc((size_t) n + 1, sizeof(*res));
        if (!state || !res) {
                free(state);
                free(res);
                return -ENOMEM;
        }
        for (int32_t i = 0; i < n; i++)
                state[i] = rt_node_output(ctx, node, i);
        for (;;) {
                const rt_tensor_t *cond = NULL;
                r = rt_ctx_call_subgraph(ctx, p->cond_subgraph, state, n, &cond, 1);
                if (r < 0)
                        break;
                bool go;
                r = rt_control__truth(ctx, "WHILE", cond, &go);
                if (r < 0 || !go)
                        break;
                r = rt_ctx_call_subgraph(ctx, p->body_subgraph, state, n, res, n);
                for (int32_t i = 0; r >= 0 && i < n; i++)
                        r = rt_control__copy_to_output(ctx, "WHILE", node, i, res[i]);
                if (r < 0)
                        break;
        }
        free(state);
        free(res);
        return r;
}

const rt_registration_t rt_kernel_while = {
        .name = "WHILE",
        .op = RT_OP_WHILE,
        .params_size = sizeof(rt_while_params_t),
        .parse = while_parse,
        .prepare = while_prepare,
        .invoke = while_invoke,
};

/* ---- CALL_ONCE ---- */

static int call_once_parse(const rt_node_t *node, void *ret_params, rt_context_t *ctx) {
        (void) ctx;
        rt_call_once_params_t *p = ret_params;
        p->init_subgraph = fbt_i32(node->options, 0, 0);
        return 0;
}

static int call_once_prepare(rt_context_t *ctx, rt_node_t *node) {
        const rt_call_once_params_t *p = node->params;
        if (!p)
                return rt_ctx_error(ctx, "CALL_ONCE: node has no params");
        if (node->n_inputs != 0 || node->n_outputs != 0)
                return rt_ctx_error(ctx, "CALL_ONCE: expected no inputs and no outputs, got %d and %d",
                                    node->n_inputs, node->n_outputs);
        return rt_control__check_subgraph(ctx, "CALL_ONCE", "init", p->init_subgraph, 0, 0);
}

/* Whether the init subgraph has run is the interpreter's state, keyed by
 * that subgraph as TFLite's InitializationStatusMap is: a resource object,
 * so that it belongs to whichever state (rt_interp_state_t) is running. */
static const char call_once_kind[] = "call_once";

static int call_once_invoke(rt_context_t *ctx, rt_node_t *node) {
        const rt_call_once_params_t *p = node->params;
        bool *done = rt_ctx_resource_object(ctx, call_once_kind, p->init_subgraph, sizeof(bool), NULL);
        if (!done) {
                if (!ctx->resource_object)
                        return rt_ctx_error(ctx, "CALL_ONCE: this context has no resources");
                return -ENOMEM;
        }
        if (*done)
                return 0;
        int r = rt_ctx_call_subgraph(ctx, p->init_subgraph, NULL, 0, NULL, 0);
        if (r < 0)
                return r;
        *done = true;
        return 0;
}

const rt_registration_t rt_kernel_call_once = {
        .name = "CALL_ONCE",
        .op = RT_OP_CALL_ONCE,
        .params_size = sizeof(rt_call_once_params_t),
        .parse = call_once_parse,
        .prepare = call_once_prepare,
        .invoke = call_once_invoke,
};
