/* SPDX-License-Identifier: Apache-2.0 */
/*
 * TOPK_V2: TFLite topk_v2.cc. For every row along the last axis, the k
 * largest values in descending order (output 0) and their positions in
 * the row (output 1, int32). Equal values keep their order in the row
 * (the lower index first), as TFLite's TopContainer orders them. k comes
 * from an int32 input holding one value, 0 <= k <= the row length; when it
 * is not a model constant the outputs are dynamic.
 */
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "misc-internal.h"

#define OP "TOPK_V2"

static bool type_ok(rt_type_t t) {
        switch (t) {
        case RT_TYPE_FLOAT32:
        case RT_TYPE_INT8:
        case RT_TYPE_UINT8:
        case RT_TYPE_INT16:
        case RT_TYPE_INT32:
        case RT_TYPE_INT64:
                return true;
        default:
                return false;
        }
}

static int out_dims(rt_context_t *ctx, const rt_tensor_t *in, const rt_tensor_t *kt, int32_t *ret_dims,
                    int32_t *ret_k) {
        int64_t k = 0;
        int r = rt_misc__scalar_index(ctx, OP, "k", kt, false, &k);
        if (r < 0)
                return r;
        const int32_t last = in->dims[in->rank - 1];
        if (k < 0 || k > last)
                return rt_ctx_error(ctx, OP ": k = %lld out of range for a last dimension of %d", (long long) k, last);
        memcpy(ret_dims, in->dims, sizeof(int32_t) * (size_t) in->rank);
        ret_dims[in->rank - 1] = (int32_t) k;
        *ret_k = (int32_t) k;
        return 0;
}

static int topk_prepare(rt_context_t *ctx, rt_node_t *node) {
        int r = rt_misc__check_node(ctx, node, OP, 2, 2, 2, false);
        if (r < 0)
                return r;
        rt_tensor_t *in = rt_node_input(ctx, node, 0);
        rt_tensor_t *k = rt_node_input(ctx, node, 1);
        rt_tensor_t *values = rt_node_output(ctx, node, 0);
        rt_tensor_t *idx = rt_node_output(ctx, node, 1);
        if (!type_ok(in->type))
                return rt_misc__unsupported(ctx, OP, "input", in);
        if (values->type != in->type)
                return rt_ctx_error(ctx, OP ": values output type %s differs from input type %s",
                                    rt_type_name(values->type), rt_type_name(in->type));
        if (idx->type != RT_TYPE_INT32)
                return rt_ctx_error(ctx, OP ": indices output must be int32, got %s", rt_type_name(idx->type));
        if (k->type != RT_TYPE_INT32 || rt_tensor_count(k) != 1)
                return rt_ctx_error(ctx, OP ": k must be one int32 value");
        if (in->rank < 1)
                return rt_ctx_error(ctx, OP ": input must have rank >= 1");
        if (!rt_misc_known(k)) {
                r = rt_misc_set_dynamic(ctx, node, 0);
                return r < 0 ? r : rt_misc_set_dynamic(ctx, node, 1);
        }
        int32_t dims[RT_MAX_RANK], kv;
        r = out_dims(ctx, in, k, dims, &kv);
        if (r < 0)
                return r;
        r = rt_ctx_resize(ctx, node, 0, in->rank, dims);
        return r < 0 ? r : rt_ctx_resize(ctx, node, 1, in->rank, dims);
}

typedef struct entry {
        int64_t i;
        float f;
        int32_t pos;
} entry_t;

/* Descending by value, ascending by position among equals. */
static int cmp_int(const void *a, const void *b) {
        const entry_t *x = a, *y = b;
        if (x->i != y->i)
                return x->i > y->i ? -1 : 1;
        return x->pos < y->pos ? -1 : (x->pos > y->pos);
}

static int cmp_float(const void *a, const void *b) {
        const entry_t *x = a, *y = b;
        if (x->f > y->f)
                return -1;
        if (x->f < y->f)
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

static int topk_invoke(rt_context_t *ctx, rt_node_t *node) {
        rt_tensor_t *in = rt_node_input(ctx, node, 0);
        rt_tensor_t *kt = rt_node_input(ctx, node, 1);
        rt_tensor_t *values = rt_node_output(ctx, node, 0);
        rt_tensor_t *idx = rt_node_output(ctx, node, 1);
        if (!rt_misc_has_data(in))
                return rt_ctx_error(ctx, OP ": input has no data");
        int32_t dims[RT_MAX_RANK], k;
        int r = out_dims(ctx, in, kt, dims, &k);
        if (r < 0)
                return r;
        if (!rt_tensor_is_const(kt)) {
                r = rt_ctx_resize(ctx, node, 0, in->rank, dims);
                if (r < 0)
                        return r;
                r = rt_ctx_resize(ctx, node, 1, in->rank, dims);
                if (r < 0)
                        return r;
        }
        const size_t n = (size_t) in->dims[in->rank - 1];
        const size_t rows = n > 0 ? rt_tensor_count(in) / n : 0;
        const bool is_float = in->type == RT_TYPE_FLOAT32;
        const size_t es = rt_type_size(in->type);
        _cleanup_free_ entry_t *e = malloc(sizeof(*e) * (n ? n : 1));
        if (!e)
                return -ENOMEM;
        for (size_t row = 0; row < rows; row++) {
                for (size_t j = 0; j < n; j++) {
                        e[j].pos = (int32_t) j;
                        if (is_float)
                                e[j].f = ((const float *) in->data)[row * n + j];
                        else
                                e[j].i = int_at(in, row * n + j);
                }
                qsort(e, n, sizeof(*e), is_float ? cmp_float : cmp_int);
                for (int32_t j = 0; j < k; j++) {
                        const size_t src = row * n + (size_t) e[j].pos, dst = row * (size_t) k + (size_t) j;
                        memcpy((uint8_t *) values->data + dst * es, (const uint8_t *) in->data + src * es, es);
                        ((int32_t *) idx->data)[dst] = e[j].pos;
                }
        }
        return 0;
}

const rt_registration_t rt_kernel_topk_v2 = {
        .name = OP,
        .op = RT_OP_TOPK_V2,
        .prepare = topk_prepare,
        .invoke = topk_invoke,
};
