/* SPDX-License-Identifier: Apache-2.0 */
/*
 * HASHTABLE_LOOKUP: TFLite hashtable_lookup.cc. Inputs lookup (int32 [n]),
 * keys (int32 [k], sorted ascending) and values ([k, ...] of any fixed-size
 * type, or strings). Output 0 is [n, ...]: the values row of each looked-up
 * key, zeros for a key not in the table (strings: a vector [n] holding
 * string `row` of the values, empty for a miss); output 1 (uint8 [n]) is 1
 * for a hit and 0 for a miss.
 */
#include <stdlib.h>
#include <string.h>

#include "misc-internal.h"

#define OP "HASHTABLE_LOOKUP"

static int hashtable_lookup_prepare(rt_context_t *ctx, rt_node_t *node) {
        int r = rt_misc__check_node(ctx, node, OP, 3, 3, 2, false);
        if (r < 0)
                return r;
        rt_tensor_t *lookup = rt_node_input(ctx, node, 0);
        rt_tensor_t *keys = rt_node_input(ctx, node, 1);
        rt_tensor_t *values = rt_node_input(ctx, node, 2);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        rt_tensor_t *hits = rt_node_output(ctx, node, 1);
        if (lookup->type != RT_TYPE_INT32 || keys->type != RT_TYPE_INT32)
                return rt_ctx_error(ctx, OP ": lookup and keys must be int32, got %s and %s",
                                    rt_type_name(lookup->type), rt_type_name(keys->type));
        /* TFLite copies whole rows of any fixed-size type (int8 and int64
         * too), and string number `row` of string values. */
        if (rt_type_size(values->type) == 0 && values->type != RT_TYPE_STRING)
                return rt_misc__unsupported(ctx, OP, "values", values);
        if (out->type != values->type)
                return rt_ctx_error(ctx, OP ": output type %s differs from values type %s", rt_type_name(out->type),
                                    rt_type_name(values->type));
        if (hits->type != RT_TYPE_UINT8)
                return rt_ctx_error(ctx, OP ": hits must be uint8, got %s", rt_type_name(hits->type));
        if (lookup->rank != 1 || keys->rank != 1 || values->rank < 1 || values->dims[0] != keys->dims[0])
                return rt_ctx_error(ctx, OP ": expected lookup [n], keys [k] and values [k, ...]");
        int32_t dims[RT_MAX_RANK];
        memcpy(dims, values->dims, sizeof(int32_t) * (size_t) values->rank);
        dims[0] = lookup->dims[0];
        /* String results are a vector (TFLite's WriteToTensorAsVector). */
        r = rt_ctx_resize(ctx, node, 0, values->type == RT_TYPE_STRING ? 1 : values->rank, dims);
        if (r < 0)
                return r;
        return rt_ctx_resize(ctx, node, 1, 1, lookup->dims);
}

/* Index of l in the sorted keys k[0..nk), or -1. */
static int32_t key_find(const int32_t *k, int32_t nk, int32_t l) {
        int32_t lo = 0, hi = nk - 1;
        while (lo <= hi) {
                int32_t mid = lo + (hi - lo) / 2;
                if (k[mid] == l)
                        return mid;
                if (k[mid] < l)
                        lo = mid + 1;
                else
                        hi = mid - 1;
        }
        return -1;
}

/* Offsets of string i of t (TFLite's layout: count, count + 1 offsets from
 * the buffer start, bytes), checked against the buffer. */
static int string_at(const rt_tensor_t *t, int32_t i, int32_t *ret_a, int32_t *ret_b) {
        int32_t count;
        if (!t->data || t->bytes < 8)
                return -EINVAL;
        memcpy(&count, t->data, 4);
        if (i < 0 || i >= count || t->bytes < 4 * ((size_t) count + 2))
                return -EINVAL;
        memcpy(ret_a, (const uint8_t *) t->data + 4 * ((size_t) i + 1), 4);
        memcpy(ret_b, (const uint8_t *) t->data + 4 * ((size_t) i + 2), 4);
        if (*ret_a < 0 || *ret_b < *ret_a || (size_t) *ret_b > t->bytes)
                return -EINVAL;
        return 0;
}

static int lookup_strings(rt_context_t *ctx, const rt_tensor_t *lookup, const rt_tensor_t *keys,
                          const rt_tensor_t *values, rt_tensor_t *out, uint8_t *h) {
        const int32_t *l = lookup->data, *k = keys->data;
        const int32_t n = lookup->dims[0], nk = keys->dims[0];
        size_t total = 4 * ((size_t) n + 2);
        for (int pass = 0; pass < 2; pass++) {
                uint8_t *dst = NULL;
                if (pass == 1) {
                        if (total > INT32_MAX)
                                return rt_ctx_error(ctx, OP ": string output too large");
                        dst = out->alloc == RT_ALLOC_DYNAMIC ? realloc(out->data, total) : malloc(total);
                        if (!dst)
                                return -ENOMEM;
                        out->data = dst;
                        out->bytes = total;
                        out->alloc = RT_ALLOC_DYNAMIC;
                        memcpy(dst, &n, 4);
                }
                int32_t pos = (int32_t) (4 * ((size_t) n + 2));
                for (int32_t i = 0; i < n; i++) {
                        int32_t found = key_find(k, nk, l[i]), a = 0, b = 0;
                        if (found >= 0 && string_at(values, found, &a, &b) < 0)
                                return rt_ctx_error(ctx, OP ": malformed string value %d", found);
                        if (pass == 0) {
                                total += (size_t) (b - a);
                                continue;
                        }
                        h[i] = found >= 0;
                        memcpy(dst + 4 * ((size_t) i + 1), &pos, 4);
                        if (b > a)
                                memcpy(dst + pos, (const uint8_t *) values->data + a, (size_t) (b - a));
                        pos += b - a;
                }
                if (pass == 1)
                        memcpy(dst + 4 * ((size_t) n + 1), &pos, 4);
        }
        return 0;
}

static int hashtable_lookup_invoke(rt_context_t *ctx, rt_node_t *node) {
        rt_tensor_t *lookup = rt_node_input(ctx, node, 0);
        rt_tensor_t *keys = rt_node_input(ctx, node, 1);
        rt_tensor_t *values = rt_node_input(ctx, node, 2);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        rt_tensor_t *hits = rt_node_output(ctx, node, 1);
        if (!rt_misc_has_data(lookup) || !rt_misc_has_data(keys) || !rt_misc_has_data(values))
                return rt_ctx_error(ctx, OP ": an input has no data");
        if (values->type == RT_TYPE_STRING)
                return lookup_strings(ctx, lookup, keys, values, out, hits->data);
        const int32_t *l = lookup->data, *k = keys->data;
        const int32_t nk = keys->dims[0];
        const size_t row = (nk > 0 ? rt_tensor_count(values) / (size_t) nk : 0) * rt_type_size(values->type);
        uint8_t *y = out->data, *h = hits->data;
        for (int32_t i = 0; i < lookup->dims[0]; i++) {
                const int32_t found = key_find(k, nk, l[i]);
                if (found < 0) {
                        memset(y + (size_t) i * row, 0, row);
                        h[i] = 0;
                } else {
                        memcpy(y + (size_t) i * row, (const uint8_t *) values->data + (size_t) found * row, row);
                        h[i] = 1;
                }
        }
        return 0;
}

const rt_registration_t rt_kernel_hashtable_lookup = {
        .name = OP,
        .op = RT_OP_HASHTABLE_LOOKUP,
        .prepare = hashtable_lookup_prepare,
        .invoke = hashtable_lookup_invoke,
};
