/* SPDX-License-Identifier: Apache-2.0 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kharness.h"

static float kh_scales[KH_MAX_TENSORS][1];
static int64_t kh_zps[KH_MAX_TENSORS][1];

static int kh_resize(rt_context_t *ctx, int32_t index, int32_t rank, const int32_t *dims) {
        kh_t *h = ctx->impl;
        if (index < 0 || index >= h->n || rank < 0 || rank > RT_MAX_RANK)
                return -EINVAL;
        rt_tensor_t *t = &h->tensors[index];
        size_t count = 1;
        for (int32_t i = 0; i < rank; i++) {
                if (dims[i] < 0)
                        return -EINVAL;
                count *= (size_t) dims[i];
        }
        t->rank = rank;
        if (rank > 0)
                memcpy(t->dims, dims, sizeof(int32_t) * (size_t) rank);
        size_t es = rt_type_size(t->type);
        size_t bytes = count * (es ? es : 1);
        if (t->type == RT_TYPE_STRING)
                return 0;  /* string kernels allocate their own buffer via data/bytes */
        if (h->owned[index])
                free(t->data);
        t->data = calloc(1, bytes ? bytes : 1);
        if (!t->data)
                return -ENOMEM;
        t->bytes = bytes;
        t->alloc = RT_ALLOC_DYNAMIC;
        h->owned[index] = true;
        return 0;
}

static int kh_set_dynamic(rt_context_t *ctx, int32_t index) {
        kh_t *h = ctx->impl;
        if (index < 0 || index >= h->n)
                return -EINVAL;
        h->tensors[index].alloc = RT_ALLOC_DYNAMIC;
        return 0;
}

static int kh_request_scratch(rt_context_t *ctx, rt_node_t *node, size_t bytes, int32_t *ret_id) {
        kh_t *h = ctx->impl;
        if (h->n_scratch >= 8)
                return -ENOMEM;
        void *p = calloc(1, bytes ? bytes : 1);
        if (!p)
                return -ENOMEM;
        h->scratch[h->n_scratch] = p;
        h->scratch_size[h->n_scratch] = bytes;
        *ret_id = h->n_scratch++;
        return 0;
}

static void *kh_get_scratch(rt_context_t *ctx, rt_node_t *node, int32_t id) {
        kh_t *h = ctx->impl;
        return id >= 0 && id < h->n_scratch ? h->scratch[id] : NULL;
}

static void kh_verror(rt_context_t *ctx, const char *fmt, va_list ap) {
        kh_t *h = ctx->impl;
        vsnprintf(h->error, sizeof(h->error), fmt, ap);
}

void kh_init(kh_t *h) {
        memset(h, 0, sizeof(*h));
        h->ctx.tensors = h->tensors;
        h->ctx.impl = h;
        h->ctx.resize = kh_resize;
        h->ctx.set_dynamic = kh_set_dynamic;
        h->ctx.request_scratch = kh_request_scratch;
        h->ctx.get_scratch = kh_get_scratch;
        h->ctx.verror = kh_verror;
        /* No other subgraphs or resources in a single-node harness. */
        h->ctx.subgraph_io = NULL;
        h->ctx.call_subgraph = NULL;
        h->ctx.resource_id = NULL;
        h->ctx.resource_read = NULL;
        h->ctx.resource_assign = NULL;
        h->ctx.resource_object = NULL;
}

void kh_done(kh_t *h) {
        if (h->node.reg && h->node.reg->free && h->node.user_data)
                h->node.reg->free(&h->ctx, h->node.user_data);
        for (int32_t i = 0; i < h->n; i++) {
                if (h->owned[i])
                        free(h->tensors[i].data);
                if (h->tensors[i].quant.n > 1) {
                        free((void *) h->tensors[i].quant.scale);
                        free((void *) h->tensors[i].quant.zero_point);
                }
        }
        for (int32_t i = 0; i < h->n_scratch; i++)
                free(h->scratch[i]);
        memset(h, 0, sizeof(*h));
}

static int32_t add(kh_t *h, rt_type_t type, int32_t rank, const int32_t *dims, const void *data,
                   rt_alloc_t alloc) {
        if (h->n >= KH_MAX_TENSORS)
                abort();
        int32_t idx = h->n++;
        h->ctx.n_tensors = h->n;
        rt_tensor_t *t = &h->tensors[idx];
        memset(t, 0, sizeof(*t));
        t->type = type;
        t->rank = rank;
        if (rank > 0)
                memcpy(t->dims, dims, sizeof(int32_t) * (size_t) rank);
        if (data) {
                size_t bytes = rt_tensor_count(t) * rt_type_size(type);
                t->data = malloc(bytes ? bytes : 1);
                memcpy(t->data, data, bytes);
                t->bytes = bytes;
                t->alloc = alloc;
                h->owned[idx] = true;
        }
        return idx;
}

int32_t kh_tensor(kh_t *h, rt_type_t type, int32_t rank, const int32_t *dims, const void *data) {
        return add(h, type, rank, dims, data, RT_ALLOC_ARENA);
}

int32_t kh_const(kh_t *h, rt_type_t type, int32_t rank, const int32_t *dims, const void *data) {
        return add(h, type, rank, dims, data, RT_ALLOC_CONST);
}

void kh_quant(kh_t *h, int32_t t, float scale, int32_t zero_point) {
        kh_scales[t][0] = scale;
        kh_zps[t][0] = zero_point;
        rt_tensor_t *x = &h->tensors[t];
        x->quant.n = 1;
        x->quant.scale = kh_scales[t];
        x->quant.zero_point = kh_zps[t];
        x->quant.axis = 0;
        x->scale = scale;
        x->zero_point = zero_point;
}

void kh_quant_channels(kh_t *h, int32_t t, size_t n, const float *scales, const int64_t *zps,
                       int32_t axis) {
        rt_tensor_t *x = &h->tensors[t];
        float *s = malloc(n * sizeof(float));
        int64_t *z = malloc(n * sizeof(int64_t));
        memcpy(s, scales, n * sizeof(float));
        memcpy(z, zps, n * sizeof(int64_t));
        x->quant.n = n;
        x->quant.scale = s;
        x->quant.zero_point = z;
        x->quant.axis = axis;
        x->scale = s[0];
        x->zero_point = (int32_t) z[0];
}

int kh_run(kh_t *h, const rt_registration_t *reg, void *params, const int32_t *inputs, int32_t n_in,
           const int32_t *outputs, int32_t n_out) {
        if (n_in > 0)
                memcpy(h->io[0], inputs, sizeof(int32_t) * (size_t) n_in);
        if (n_out > 0)
                memcpy(h->io[1], outputs, sizeof(int32_t) * (size_t) n_out);
        rt_node_t *n = &h->node;
        memset(n, 0, sizeof(*n));
        n->op = reg->op;
        n->version = 1;
        n->inputs = h->io[0];
        n->n_inputs = n_in;
        n->outputs = h->io[1];
        n->n_outputs = n_out;
        n->reg = reg;
        n->params = params;
        int r;
        if (reg->init) {
                r = reg->init(&h->ctx, n, &n->user_data);
                if (r < 0)
                        return r;
        }
        if (reg->prepare) {
                r = reg->prepare(&h->ctx, n);
                if (r < 0)
                        return r;
        }
        /* Outputs whose shape prepare did not set but that have dims get storage. */
        for (int32_t i = 0; i < n_out; i++) {
                rt_tensor_t *t = &h->tensors[outputs[i]];
                if (!t->data && t->type != RT_TYPE_STRING) {
                        r = kh_resize(&h->ctx, outputs[i], t->rank, t->dims);
                        if (r < 0)
                                return r;
                }
        }
        return reg->invoke ? reg->invoke(&h->ctx, n) : 0;
}
