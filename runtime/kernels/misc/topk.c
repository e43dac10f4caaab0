/* SPDX-License-Identifier: Apache-2.0 */
/*
 * TOPK_V2: TFLite topk_v2.cc. For every row along the last axis, the k
 * largest values in descending order (output 0) and their positions in
 * the row (output 1, int32). Equal values keep their order in the row
 * (the lower index first), as TFLite's TopContainer orders them; rows
 * with NaN come out as TopContainer leaves them (see tc_row). k comes
 * from an int32 input holding one value, 0 <= k <= the row length; when it
 * is not a model constant the outputs are dynamic.
 */
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "misc-internal.h"
#include "stdheap.h"

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

/*
 * TFLite's TopContainer, step for step: its comparator (a before b when
 * value[b] < value[a], else when not value[b] > value[a] and a < b) is not
 * a strict weak order once NaN is in the row, so the result depends on the
 * exact algorithm: libstdc++'s make_heap / pop_heap / sort_heap and, when
 * k covers the whole row, std::sort (introsort, threshold 16). Without NaN
 * every algorithm gives the same answer. The unguarded scans of libstdc++
 * are bounded here, which changes nothing where TFLite stays in bounds.
 */
typedef struct topc {
        const rt_tensor_t *in;
        size_t base; /* row offset in the input */
        bool is_float;
        int32_t *v;  /* container_ */
} topc_t;

static int64_t int_at(const rt_tensor_t *t, size_t i) {
        switch (t->type) {
        case RT_TYPE_INT8: return ((const int8_t *) t->data)[i];
        case RT_TYPE_UINT8: return ((const uint8_t *) t->data)[i];
        case RT_TYPE_INT16: return ((const int16_t *) t->data)[i];
        case RT_TYPE_INT32: return ((const int32_t *) t->data)[i];
        default: return ((const int64_t *) t->data)[i];
        }
}

static bool tc_less(const topc_t *c, int32_t a, int32_t b) {
        if (c->is_float) {
                const float *x = (const float *) c->in->data + c->base;
                if (x[b] < x[a])
                        return true;
                if (x[b] > x[a])
                        return false;
        } else {
                int64_t xa = int_at(c->in, c->base + (size_t) a), xb = int_at(c->in, c->base + (size_t) b);
                if (xb != xa)
                        return xb < xa;
        }
        return a < b;
}

static bool tc_order_less(const void *ctx, int32_t a, int32_t b) {
        return tc_less(ctx, a, b);
}

static rt_heap_order_t tc_order(const topc_t *c) {
        return (rt_heap_order_t) { tc_order_less, c };
}

static void tc_swap(int32_t *a, int32_t *b) {
        int32_t t = *a;
        *a = *b, *b = t;
}

static void tc_insertion_sort(const topc_t *c, int32_t *f, ptrdiff_t lo, ptrdiff_t hi, bool guarded) {
        for (ptrdiff_t i = lo + (guarded ? 1 : 0); i < hi; i++) {
                int32_t val = f[i];
                if (guarded && tc_less(c, val, f[lo])) {
                        memmove(&f[lo + 1], &f[lo], sizeof(*f) * (size_t) (i - lo));
                        f[lo] = val;
                        continue;
                }
                ptrdiff_t j = i;
                while (j > 0 && tc_less(c, val, f[j - 1])) {
                        f[j] = f[j - 1];
                        j--;
                }
                f[j] = val;
        }
}

static void tc_introsort(const topc_t *c, int32_t *f, ptrdiff_t lo, ptrdiff_t hi, int depth) {
        while (hi - lo > 16) {
                if (depth == 0) { /* std::partial_sort(lo, hi, hi) */
                        rt_heap_partial_sort(&(const rt_heap_order_t) { tc_order_less, c }, f + lo, hi - lo, hi - lo);
                        return;
                }
                depth--;
                ptrdiff_t mid = lo + (hi - lo) / 2, a = lo + 1, b = mid, cc = hi - 1;
                if (tc_less(c, f[a], f[b])) {
                        if (tc_less(c, f[b], f[cc]))
                                tc_swap(&f[lo], &f[b]);
                        else if (tc_less(c, f[a], f[cc]))
                                tc_swap(&f[lo], &f[cc]);
                        else
                                tc_swap(&f[lo], &f[a]);
                } else if (tc_less(c, f[a], f[cc])) {
                        tc_swap(&f[lo], &f[a]);
                } else if (tc_less(c, f[b], f[cc])) {
                        tc_swap(&f[lo], &f[cc]);
                } else {
                        tc_swap(&f[lo], &f[b]);
                }
                ptrdiff_t first = lo + 1, last = hi;
                for (;;) {
                        while (first < hi - 1 && tc_less(c, f[first], f[lo]))
                                first++;
                        last--;
                        while (last > lo && tc_less(c, f[lo], f[last]))
                                last--;
                        if (!(first < last))
                                break;
                        tc_swap(&f[first], &f[last]);
                        first++;
                }
                tc_introsort(c, f, first, hi, depth);
                hi = first;
        }
}

static void tc_sort(const topc_t *c, int32_t *f, ptrdiff_t n) {
        if (n < 2)
                return;
        int lg = 0;
        while ((n >> (lg + 1)) > 0)
                lg++;
        tc_introsort(c, f, 0, n, 2 * lg);
        if (n > 16) {
                tc_insertion_sort(c, f, 0, 16, true);
                tc_insertion_sort(c, f, 16, n, false);
        } else {
                tc_insertion_sort(c, f, 0, n, true);
        }
}

/* One row: the k best positions into c->v[0..k). */
static void tc_row(topc_t *c, int32_t n, int32_t k) {
        const rt_heap_order_t o = tc_order(c);
        ptrdiff_t size = 0;
        for (int32_t a = 0; a < n; a++) {
                if (size <= k) {
                        c->v[size++] = a;
                        if (size == (ptrdiff_t) k + 1) {
                                rt_heap_make(&o, c->v, size);
                                rt_heap_pop(&o, c->v, size);
                        }
                } else if (tc_less(c, a, c->v[0])) {
                        c->v[size - 1] = a;
                        rt_heap_pop(&o, c->v, size);
                }
        }
        if (size <= k)
                tc_sort(c, c->v, size);
        else
                rt_heap_sort(&o, c->v, size - 1);
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
        const size_t es = rt_type_size(in->type);
        _cleanup_free_ int32_t *v = malloc(sizeof(*v) * (n + 1));
        if (!v)
                return -ENOMEM;
        topc_t c = { .in = in, .is_float = in->type == RT_TYPE_FLOAT32, .v = v };
        for (size_t row = 0; row < rows; row++) {
                c.base = row * n;
                tc_row(&c, (int32_t) n, k);
                for (int32_t j = 0; j < k; j++) {
                        const size_t src = row * n + (size_t) v[j], dst = row * (size_t) k + (size_t) j;
                        memcpy((uint8_t *) values->data + dst * es, (const uint8_t *) in->data + src * es, es);
                        ((int32_t *) idx->data)[dst] = v[j];
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
