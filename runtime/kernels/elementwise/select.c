/* SPDX-License-Identifier: Apache-2.0 */
/*
 * SELECT and SELECT_V2: out = cond ? x : y.
 *
 * SELECT (v1) needs x and y of one shape; the condition has that shape too,
 * or is a scalar, or a vector over x's first dimension (TFLite's "rank one"
 * select). SELECT_V2 broadcasts all three. Values are copied bytewise, so
 * every fixed-size element type works.
 */
#include <string.h>

#include "ew.h"

typedef struct sel {
        const bool *c;
        const uint8_t *x, *y;
        uint8_t *o;
        size_t es;
} sel_t;

static void row_select(void *arg, size_t oo, const size_t *in, const int64_t *st, size_t n) {
        sel_t *s = arg;
        const size_t es = s->es;
        for (size_t i = 0; i < n; i++) {
                const bool c = s->c[in[0] + (size_t) ((int64_t) i * st[0])];
                const uint8_t *src = c ? s->x + (in[1] + (size_t) ((int64_t) i * st[1])) * es
                                       : s->y + (in[2] + (size_t) ((int64_t) i * st[2])) * es;
                memcpy(s->o + (oo + i) * es, src, es);
        }
}

static int select_check(rt_context_t *ctx, rt_node_t *node, const char *name) {
        int r = ew_check_io(ctx, node, name, 3, 1);
        if (r < 0)
                return r;
        const rt_tensor_t *c = rt_node_input(ctx, node, 0), *x = rt_node_input(ctx, node, 1),
                          *y = rt_node_input(ctx, node, 2);
        const rt_tensor_t *o = rt_node_output(ctx, node, 0);
        if (c->type != RT_TYPE_BOOL)
                return rt_ctx_error(ctx, "%s: condition must be bool, not %s", name,
                                    rt_type_name(c->type));
        if (x->type != y->type || o->type != x->type)
                return rt_ctx_error(ctx, "%s: x %s, y %s and output %s types differ", name,
                                    rt_type_name(x->type), rt_type_name(y->type),
                                    rt_type_name(o->type));
        if (rt_type_size(x->type) == 0)
                return ew_unsupported(ctx, name, x->type, o->type);
        return 0;
}

static int select_v1_prepare(rt_context_t *ctx, rt_node_t *node) {
        int r = select_check(ctx, node, "SELECT");
        if (r < 0)
                return r;
        const rt_tensor_t *c = rt_node_input(ctx, node, 0), *x = rt_node_input(ctx, node, 1),
                          *y = rt_node_input(ctx, node, 2);
        if (!ku_same_shape(x, y))
                return rt_ctx_error(ctx, "SELECT: x and y shapes differ");
        bool low_rank = c->rank == 0 || (c->rank == 1 && x->rank >= 1 && c->dims[0] == x->dims[0]);
        if (!ku_same_shape(c, x) && !low_rank)
                return rt_ctx_error(ctx, "SELECT: condition shape does not match x");
        return ew_resize_same(ctx, node, x);
}

static int select_v1_invoke(rt_context_t *ctx, rt_node_t *node) {
        const rt_tensor_t *c = rt_node_input(ctx, node, 0), *x = rt_node_input(ctx, node, 1),
                          *y = rt_node_input(ctx, node, 2);
        rt_tensor_t *o = rt_node_output(ctx, node, 0);
        size_t n = rt_tensor_count(o), es = rt_type_size(o->type);
        const bool *cd = c->data;
        if (n == 0)
                return 0;
        if (ku_same_shape(c, x)) {
                for (size_t i = 0; i < n; i++)
                        memcpy((uint8_t *) o->data + i * es,
                               (const uint8_t *) (cd[i] ? x->data : y->data) + i * es, es);
                return 0;
        }
        /* Scalar condition, or one condition per slice of x's first dim. */
        size_t slices = c->rank == 0 ? 1 : (size_t) c->dims[0];
        size_t slice = n / slices * es;
        for (size_t s = 0; s < slices; s++)
                memcpy((uint8_t *) o->data + s * slice,
                       (const uint8_t *) (cd[s] ? x->data : y->data) + s * slice, slice);
        return 0;
}

static int select_v2_prepare(rt_context_t *ctx, rt_node_t *node) {
        int r = select_check(ctx, node, "SELECT_V2");
        if (r < 0)
                return r;
        const rt_tensor_t *c = rt_node_input(ctx, node, 0), *x = rt_node_input(ctx, node, 1),
                          *y = rt_node_input(ctx, node, 2);
        rt_tensor_t cx = { .type = c->type };
        if (ku_bcast_shape(c, x, &cx.rank, cx.dims) < 0)
                return rt_ctx_error(ctx, "SELECT_V2: condition and x do not broadcast");
        return ew_resize_bcast(ctx, node, "SELECT_V2", &cx, y);
}

static int select_v2_invoke(rt_context_t *ctx, rt_node_t *node) {
        const rt_tensor_t *c = rt_node_input(ctx, node, 0), *x = rt_node_input(ctx, node, 1),
                          *y = rt_node_input(ctx, node, 2);
        rt_tensor_t *o = rt_node_output(ctx, node, 0);
        if (rt_tensor_count(o) == 0)
                return 0;
        sel_t s = { .c = c->data, .x = x->data, .y = y->data, .o = o->data,
                    .es = rt_type_size(o->type) };
        ew_bcast_t bc;
        const rt_tensor_t *ins[3] = { c, x, y };
        ew_bcast_init(&bc, o, ins, 3);
        ew_bcast_run(&bc, row_select, &s);
        return 0;
}

const rt_registration_t rt_kernel_select = {
        .name = "SELECT",
        .op = EW_OP_SELECT,
        .prepare = select_v1_prepare,
        .invoke = select_v1_invoke,
};

const rt_registration_t rt_kernel_select_v2 = {
        .name = "SELECT_V2",
        .op = EW_OP_SELECT_V2,
        .prepare = select_v2_prepare,
        .invoke = select_v2_invoke,
};
