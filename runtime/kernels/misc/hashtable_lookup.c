/* SPDX-License-Identifier: Apache-2.0 */
/*
 * HASHTABLE_LOOKUP: TFLite hashtable_lookup.cc. Inputs lookup (int32 [n]),
 * keys (int32 [k], sorted ascending) and values ([k, ...]: float32, int32 or
 * uint8). Output 0 is [n, ...]: the values row of each looked-up key, zeros
 * for a key not in the table; output 1 (uint8 [n]) is 1 for a hit and 0 for
 * a miss.
 */
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
        /* TFLite copies whole rows of any fixed-size type (int8 and int64 too). */
        if (rt_type_size(values->type) == 0)
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
        r = rt_ctx_resize(ctx, node, 0, values->rank, dims);
        if (r < 0)
                return r;
        return rt_ctx_resize(ctx, node, 1, 1, lookup->dims);
}

static int hashtable_lookup_invoke(rt_context_t *ctx, rt_node_t *node) {
        rt_tensor_t *lookup = rt_node_input(ctx, node, 0);
        rt_tensor_t *keys = rt_node_input(ctx, node, 1);
        rt_tensor_t *values = rt_node_input(ctx, node, 2);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        rt_tensor_t *hits = rt_node_output(ctx, node, 1);
        if (!rt_misc_has_data(lookup) || !rt_misc_has_data(keys) || !rt_misc_has_data(values))
                return rt_ctx_error(ctx, OP ": an input has no data");
        const int32_t *l = lookup->data, *k = keys->data;
        const int32_t nk = keys->dims[0];
        const size_t row = (nk > 0 ? rt_tensor_count(values) / (size_t) nk : 0) * rt_type_size(values->type);
        uint8_t *y = out->data, *h = hits->data;
        for (int32_t i = 0; i < lookup->dims[0]; i++) {
                int32_t lo = 0, hi = nk - 1, found = -1;
                while (lo <= hi) {
                        int32_t mid = lo + (hi - lo) / 2;
                        if (k[mid] == l[i]) {
                                found = mid;
                                break;
                        }
                        if (k[mid] < l[i])
                                lo = mid + 1;
                        else
                                hi = mid - 1;
                }
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
