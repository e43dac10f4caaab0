/* SPDX-License-Identifier: Apache-2.0 */
/* LOGICAL_AND, LOGICAL_OR (broadcasting) and LOGICAL_NOT on bool tensors. */
#include "ew.h"

typedef struct lg {
        bool is_and;
        const bool *a, *b;
        bool *o;
} lg_t;

static void row_logical(void *arg, size_t oo, const size_t *in, const int64_t *st, size_t n) {
        lg_t *c = arg;
        const bool *x = c->a + in[0], *y = c->b + in[1];
        bool *z = c->o + oo;
        for (size_t i = 0; i < n; i++) {
                const bool A = x[(int64_t) i * st[0]], B = y[(int64_t) i * st[1]];
                z[i] = c->is_and ? (A && B) : (A || B);
        }
}

static int check_bool(rt_context_t *ctx, const char *name, const rt_tensor_t *t) {
        if (t->type != RT_TYPE_BOOL)
                return ew_unsupported(ctx, name, t->type, RT_TYPE_BOOL);
        return 0;
}

static int binary_logical_prepare(rt_context_t *ctx, rt_node_t *node, const char *name) {
        int r = ew_check_io(ctx, node, name, 2, 1);
        if (r < 0)
                return r;
        const rt_tensor_t *a = rt_node_input(ctx, node, 0), *b = rt_node_input(ctx, node, 1);
        const rt_tensor_t *o = rt_node_output(ctx, node, 0);
        if ((r = check_bool(ctx, name, a)) < 0 || (r = check_bool(ctx, name, b)) < 0 ||
            (r = check_bool(ctx, name, o)) < 0)
                return r;
        return ew_resize_bcast(ctx, node, name, a, b);
}

static int binary_logical_invoke(rt_context_t *ctx, rt_node_t *node, bool is_and) {
        const rt_tensor_t *a = rt_node_input(ctx, node, 0), *b = rt_node_input(ctx, node, 1);
        rt_tensor_t *o = rt_node_output(ctx, node, 0);
        if (rt_tensor_count(o) == 0)
                return 0;
        lg_t c = { .is_and = is_and, .a = a->data, .b = b->data, .o = o->data };
        ew_bcast_t bc;
        const rt_tensor_t *ins[2] = { a, b };
        ew_bcast_init(&bc, o, ins, 2);
        ew_bcast_run(&bc, row_logical, &c);
        return 0;
}

static int and_prepare(rt_context_t *ctx, rt_node_t *node) {
        return binary_logical_prepare(ctx, node, "LOGICAL_AND");
}

static int and_invoke(rt_context_t *ctx, rt_node_t *node) {
        return binary_logical_invoke(ctx, node, true);
}

static int or_prepare(rt_context_t *ctx, rt_node_t *node) {
        return binary_logical_prepare(ctx, node, "LOGICAL_OR");
}

static int or_invoke(rt_context_t *ctx, rt_node_t *node) {
        return binary_logical_invoke(ctx, node, false);
}

static int not_prepare(rt_context_t *ctx, rt_node_t *node) {
        int r = ew_check_io(ctx, node, "LOGICAL_NOT", 1, 1);
        if (r < 0)
                return r;
        const rt_tensor_t *a = rt_node_input(ctx, node, 0);
        const rt_tensor_t *o = rt_node_output(ctx, node, 0);
        if ((r = check_bool(ctx, "LOGICAL_NOT", a)) < 0 ||
            (r = check_bool(ctx, "LOGICAL_NOT", o)) < 0)
                return r;
        return ew_resize_same(ctx, node, a);
}

static int not_invoke(rt_context_t *ctx, rt_node_t *node) {
        const rt_tensor_t *a = rt_node_input(ctx, node, 0);
        rt_tensor_t *o = rt_node_output(ctx, node, 0);
        const bool *x = a->data;
        bool *z = o->data;
        size_t n = rt_tensor_count(o);
        for (size_t i = 0; i < n; i++)
                z[i] = !x[i];
        return 0;
}

const rt_registration_t rt_kernel_logical_and = {
        .name = "LOGICAL_AND",
        .op = EW_OP_LOGICAL_AND,
        .prepare = and_prepare,
        .invoke = and_invoke,
};

const rt_registration_t rt_kernel_logical_or = {
        .name = "LOGICAL_OR",
        .op = EW_OP_LOGICAL_OR,
        .prepare = or_prepare,
        .invoke = or_invoke,
};

const rt_registration_t rt_kernel_logical_not = {
        .name = "LOGICAL_NOT",
        .op = EW_OP_LOGICAL_NOT,
        .prepare = not_prepare,
        .invoke = not_invoke,
};
