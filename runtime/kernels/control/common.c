/* SPDX-License-Identifier: Apache-2.0 */
#include <stdlib.h>
#include <string.h>

#include "control-internal.h"

int rt_control__copy_to_output(rt_context_t *ctx, const char *op, const rt_node_t *node,
                               int32_t output, const rt_tensor_t *src) {
        rt_tensor_t *dst = rt_node_output(ctx, node, output);
        if (!dst || !src)
                return rt_ctx_error(ctx, "%s: output %d is missing", op, output);
        if (dst->type != src->type)
                return rt_ctx_error(ctx, "%s: output %d is %s but the subgraph gives %s", op, output,
                                    rt_type_name(dst->type), rt_type_name(src->type));
        int r = rt_ctx_resize(ctx, node, output, src->rank, src->dims);
        if (r < 0) {
                rt_ctx_error(ctx, "%s: cannot size output %d", op, output);
                return r;
        }
        if (src->type == RT_TYPE_STRING) {
                /* The serialized layout; dst->data is executor-owned heap
                 * storage that kernels may realloc(). */
                if (!src->data || src->bytes == 0)
                        return rt_ctx_error(ctx, "%s: string output %d has no data", op, output);
                if (dst->bytes < src->bytes || !dst->data) {
                        void *p = realloc(dst->data, src->bytes);
                        if (!p)
                                return -ENOMEM;
                        dst->data = p;
                }
                memmove(dst->data, src->data, src->bytes);
                dst->bytes = src->bytes;
                return 0;
        }
        size_t bytes = rt_tensor_count(src) * (src->type == RT_TYPE_RESOURCE ? sizeof(int32_t)
                                                                             : rt_type_size(src->type));
        if (bytes == 0)
                return 0;
        if (!src->data || !dst->data || dst->bytes < bytes || src->bytes < bytes)
                return rt_ctx_error(ctx, "%s: output %d: no storage to copy %zu bytes", op, output, bytes);
        memmove(dst->data, src->data, bytes);
        return 0;
}

int rt_control__truth(rt_context_t *ctx, const char *op, const rt_tensor_t *t, bool *ret) {
        if (!t || rt_tensor_count(t) != 1)
                return rt_ctx_error(ctx, "%s: the condition must have exactly one element", op);
        if (!t->data)
                return rt_ctx_error(ctx, "%s: the condition has no data", op);
        switch (t->type) {
        case RT_TYPE_BOOL:
                *ret = *(const uint8_t *) t->data != 0;
                return 0;
        case RT_TYPE_FLOAT32:
                *ret = *(const float *) t->data != 0.0f;
                return 0;
        case RT_TYPE_INT32:
                *ret = *(const int32_t *) t->data != 0;
                return 0;
        case RT_TYPE_INT64:
                *ret = *(const int64_t *) t->data != 0;
                return 0;
        case RT_TYPE_INT8:
                *ret = *(const int8_t *) t->data != 0;
                return 0;
        case RT_TYPE_UINT8:
                *ret = *(const uint8_t *) t->data != 0;
                return 0;
        default:
                return rt_ctx_error(ctx, "%s: a %s condition is not supported", op, rt_type_name(t->type));
        }
}

int rt_control__check_subgraph(rt_context_t *ctx, const char *op, const char *what, int32_t subgraph,
                               int32_t n_inputs, int32_t n_outputs) {
        int32_t ni = 0, no = 0;
        int r = rt_ctx_subgraph_io(ctx, subgraph, &ni, &no);
        if (r < 0)
                return r;
        if (ni != n_inputs || (n_outputs >= 0 && no != n_outputs))
                return rt_ctx_error(ctx, "%s: %s subgraph %d takes %d inputs and gives %d outputs; the node needs %d and %d",
                                    op, what, subgraph, ni, no, n_inputs, n_outputs);
        return 0;
}

int rt_control__outputs_dynamic(rt_context_t *ctx, const char *op, const rt_node_t *node) {
        for (int32_t i = 0; i < node->n_outputs; i++) {
                if (node->outputs[i] < 0)
                        continue;
                int r = ctx->set_dynamic(ctx, node->outputs[i]);
                if (r < 0)
                        return rt_ctx_error(ctx, "%s: output %d cannot be sized at invoke (constant or variable tensor)",
                                            op, i);
        }
        return 0;
}
