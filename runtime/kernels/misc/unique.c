/* SPDX-License-Identifier: Apache-2.0 */
/*
 * UNIQUE: TFLite unique.cc. A 1-D input gives its distinct values in the
 * order of first occurrence (output 0, dynamic: its length depends on the
 * data) and, for every input element, the position of its value in output
 * 0 (output 1, int32 or int64, the input's shape).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "misc-internal.h"

#define OP "UNIQUE"

static int unique_parse(const rt_node_t *node, void *ret_params, rt_context_t *ctx) {
        rt_unique_params_t *p = ret_params;
        (void) ctx;
        p->idx_out_type = (rt_type_t) fbt_i8(node->options, 0, RT_TYPE_INT32);
        return 0;
}

static bool type_ok(rt_type_t t) {
        switch (t) {
        case RT_TYPE_FLOAT32:
        case RT_TYPE_INT8:
        case RT_TYPE_INT16:
        case RT_TYPE_INT32:
        case RT_TYPE_INT64:
        case RT_TYPE_UINT8:
                return true;
        default:
                return false;
        }
}

static int unique_prepare(rt_context_t *ctx, rt_node_t *node) {
        int r = rt_misc__check_node(ctx, node, OP, 1, 1, 2, true);
        if (r < 0)
                return r;
        const rt_unique_params_t *p = node->params;
        rt_tensor_t *in = rt_node_input(ctx, node, 0);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        rt_tensor_t *idx = rt_node_output(ctx, node, 1);
        if (!type_ok(in->type))
                return rt_misc__unsupported(ctx, OP, "input", in);
        if (out->type != in->type)
                return rt_ctx_error(ctx, OP ": output type %s differs from input type %s", rt_type_name(out->type),
                                    rt_type_name(in->type));
        if (!rt_misc_is_index_type(idx->type))
                return rt_ctx_error(ctx, OP ": idx output must be int32 or int64, got %s", rt_type_name(idx->type));
        if ((p->idx_out_type == RT_TYPE_INT32 || p->idx_out_type == RT_TYPE_INT64) && p->idx_out_type != idx->type)
                return rt_ctx_error(ctx, OP ": idx_out_type %s disagrees with the idx output's type %s",
                                    rt_type_name(p->idx_out_type), rt_type_name(idx->type));
        if (in->rank != 1)
                return rt_ctx_error(ctx, OP ": input must be 1-D, got rank %d", in->rank);
        r = rt_ctx_resize(ctx, node, 1, 1, in->dims);
        if (r < 0)
                return r;
        return rt_misc_set_dynamic(ctx, node, 0);
}

typedef struct entry {
        int64_t i;    /* integer value */
        float f;      /* float value */
        uint32_t pos; /* position in the input */
} entry_t;

static int cmp_int(const void *a, const void *b) {
        const entry_t *x = a, *y = b;
        if (x->i != y->i)
                return x->i < y->i ? -1 : 1;
        return x->pos < y->pos ? -1 : (x->pos > y->pos);
}

static int cmp_float(const void *a, const void *b) {
        const entry_t *x = a, *y = b;
        if (x->f < y->f)
                return -1;
        if (x->f > y->f)
                return 1;
        return x->pos < y->pos ? -1 : (x->pos > y->pos);
}

static int64_t int_at(const rt_tensor_t *t, size_t i) {
        switch (t->type) {
        case RT_TYPE_INT8: return ((const int8_t *) t->data)[i];
        case RT_TYPE_UINT8: return ((const uint8_t *) t->data)[i];
        case RT_TYPE_INT16: return ((const int16_t *) t->data)[i];
        case RT_TYPE_INT32: return ((const int32_t *) t->data)[i];
        default: return ((const int64_t *) t->data)[i];
        }
}

static void idx_set(rt_tensor_t *idx, size_t k, int64_t v) {
        if (idx->type == RT_TYPE_INT64)
                ((int64_t *) idx->data)[k] = v;
        else
                ((int32_t *) idx->data)[k] = (int32_t) v;
}

static int64_t idx_get(const rt_tensor_t *idx, size_t k) {
        return idx->type == RT_TYPE_INT64 ? ((const int64_t *) idx->data)[k] : ((const int32_t *) idx->data)[k];
}

static int unique_invoke(rt_context_t *ctx, rt_node_t *node) {
        rt_tensor_t *in = rt_node_input(ctx, node, 0);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        rt_tensor_t *idx = rt_node_output(ctx, node, 1);
        if (!rt_misc_has_data(in))
                return rt_ctx_error(ctx, OP ": input has no data");
        const size_t n = rt_tensor_count(in);
        const bool is_float = in->type == RT_TYPE_FLOAT32;
        _cleanup_free_ entry_t *e = calloc(n ? n : 1, sizeof(*e));
        /* slot[k]: for a first occurrence at position k, 1 + its output
         * slot; -1 for the other positions. */
        _cleanup_free_ int64_t *slot = calloc(n ? n : 1, sizeof(*slot));
        if (!e || !slot)
                return -ENOMEM;
        /* TFLite keys a std::map with operator<, under which a NaN is
         * equivalent to every value: a NaN first in the input is the only
         * key and every element maps to it; a later NaN finds the map's
         * leftmost (smallest) key so far and is never inserted. NaN
         * positions are left out of the sort and get that index below. */
        const float *fin = in->data;
        if (is_float && n > 0 && isnan(fin[0])) {
                const int32_t one[1] = { 1 };
                int r = rt_ctx_resize(ctx, node, 0, 1, one);
                if (r < 0)
                        return r;
                memcpy(out->data, fin, sizeof(float));
                for (size_t k = 0; k < n; k++)
                        idx_set(idx, k, 0);
                return 0;
        }
        size_t m = 0;
        for (size_t k = 0; k < n; k++) {
                if (is_float && isnan(fin[k]))
                        continue;
                e[m].pos = (uint32_t) k;
                if (is_float)
                        e[m].f = fin[k];
                else
                        e[m].i = int_at(in, k);
                m++;
        }
        /* Sorted by (value, position), equal values form runs whose first
         * entry is the value's first occurrence. Number the first
         * occurrences in input order. */
        qsort(e, m, sizeof(*e), is_float ? cmp_float : cmp_int);
        for (size_t k = 0; k < n; k++)
                slot[k] = -1;
        for (size_t k = 0; k < m; k++) {
                bool same = k > 0 && (is_float ? e[k].f == e[k - 1].f : e[k].i == e[k - 1].i);
                if (!same)
                        slot[e[k].pos] = 0;
        }
        int64_t n_unique = 0;
        for (size_t k = 0; k < n; k++)
                if (slot[k] == 0)
                        slot[k] = ++n_unique;
        const int32_t odims[1] = { (int32_t) n_unique };
        int r = rt_ctx_resize(ctx, node, 0, 1, odims);
        if (r < 0)
                return r;
        const size_t es = rt_type_size(in->type);
        int64_t group_slot = 0;
        for (size_t k = 0; k < m; k++) {
                const uint32_t pos = e[k].pos;
                bool same = k > 0 && (is_float ? e[k].f == e[k - 1].f : e[k].i == e[k - 1].i);
                if (!same) {
                        group_slot = slot[pos] - 1;
                        memcpy((uint8_t *) out->data + (size_t) group_slot * es,
                               (const uint8_t *) in->data + (size_t) pos * es, es);
                }
                idx_set(idx, pos, group_slot);
        }
        if (is_float && m < n) {
                float min = 0;
                int64_t min_slot = 0;
                for (size_t k = 0; k < n; k++) {
                        if (!isnan(fin[k])) {
                                if (k == 0 || fin[k] < min) {
                                        min = fin[k];
                                        min_slot = idx_get(idx, k);
                                }
                                continue;
                        }
                        idx_set(idx, k, min_slot);
                }
        }
        return 0;
}

const rt_registration_t rt_kernel_unique = {
        .name = OP,
        .op = RT_OP_UNIQUE,
        .params_size = sizeof(rt_unique_params_t),
        .parse = unique_parse,
        .prepare = unique_prepare,
        .invoke = unique_invoke,
};
