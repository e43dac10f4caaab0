/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Application kernels: the TfLiteRegistration an application registers for
 * a custom op (TfLiteInterpreterOptionsAddCustomOp, or SetOpResolver's
 * callbacks) runs in its process, as a node of the runtime's graph
 * (runtime/include/ext-kernel.h). This file picks the registrations the
 * way TensorFlow Lite 2.9's C API does and gives each node the
 * TfLiteContext / TfLiteNode of 2.9's kernel ABI over the runtime's
 * tensors.
 *
 * Each node has its own TfLiteContext whose `tensors` covers the whole
 * subgraph; the TfLiteTensor of a tensor is refreshed from the runtime's
 * before the node's prepare and invoke (its inputs, outputs and
 * intermediates), after ResizeTensor, and when GetTensor asks for it, so a
 * kernel sees the current shapes and data pointers.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ext-kernel.h"
#include "model.h"
#include "tflite-internal.h"

/* 2.9's layouts on LP64 (checked against TensorFlow Lite 2.9's header). */
_Static_assert(sizeof(TfLiteRegistration) == 64, "TfLiteRegistration is 64 bytes in 2.9");
_Static_assert(offsetof(TfLiteRegistration, builtin_code) == 40, "TfLiteRegistration.builtin_code");
_Static_assert(offsetof(TfLiteRegistration, custom_name) == 48, "TfLiteRegistration.custom_name");
_Static_assert(offsetof(TfLiteRegistration, version) == 56, "TfLiteRegistration.version");
_Static_assert(sizeof(TfLiteNode) == 80, "TfLiteNode is 80 bytes in 2.9");
_Static_assert(offsetof(TfLiteNode, temporaries) == 24, "TfLiteNode.temporaries");
_Static_assert(offsetof(TfLiteNode, user_data) == 32, "TfLiteNode.user_data");
_Static_assert(offsetof(TfLiteNode, builtin_data) == 40, "TfLiteNode.builtin_data");
_Static_assert(offsetof(TfLiteNode, custom_initial_data) == 48, "TfLiteNode.custom_initial_data");
_Static_assert(offsetof(TfLiteNode, custom_initial_data_size) == 56, "TfLiteNode.custom_initial_data_size");
_Static_assert(offsetof(TfLiteNode, delegate) == 64, "TfLiteNode.delegate");
_Static_assert(offsetof(TfLiteNode, might_have_side_effect) == 72, "TfLiteNode.might_have_side_effect");
_Static_assert(sizeof(TfLiteContext) == 184, "TfLiteContext is 184 bytes in 2.9");
_Static_assert(offsetof(TfLiteContext, GetExecutionPlan) == 8, "TfLiteContext.GetExecutionPlan");
_Static_assert(offsetof(TfLiteContext, tensors) == 16, "TfLiteContext.tensors");
_Static_assert(offsetof(TfLiteContext, impl_) == 24, "TfLiteContext.impl_");
_Static_assert(offsetof(TfLiteContext, ResizeTensor) == 32, "TfLiteContext.ResizeTensor");
_Static_assert(offsetof(TfLiteContext, ReportError) == 40, "TfLiteContext.ReportError");
_Static_assert(offsetof(TfLiteContext, AddTensors) == 48, "TfLiteContext.AddTensors");
_Static_assert(offsetof(TfLiteContext, GetNodeAndRegistration) == 56, "TfLiteContext.GetNodeAndRegistration");
_Static_assert(offsetof(TfLiteContext, ReplaceNodeSubsetsWithDelegateKernels) == 64,
               "TfLiteContext.ReplaceNodeSubsetsWithDelegateKernels");
_Static_assert(offsetof(TfLiteContext, recommended_num_threads) == 72, "TfLiteContext.recommended_num_threads");
_Static_assert(offsetof(TfLiteContext, GetExternalContext) == 80, "TfLiteContext.GetExternalContext");
_Static_assert(offsetof(TfLiteContext, SetExternalContext) == 88, "TfLiteContext.SetExternalContext");
_Static_assert(offsetof(TfLiteContext, allow_fp32_relax_to_fp16) == 96, "TfLiteContext.allow_fp32_relax_to_fp16");
_Static_assert(offsetof(TfLiteContext, profiler) == 104, "TfLiteContext.profiler");
_Static_assert(offsetof(TfLiteContext, AllocatePersistentBuffer) == 112, "TfLiteContext.AllocatePersistentBuffer");
_Static_assert(offsetof(TfLiteContext, AllocateBufferForEval) == 120, "TfLiteContext.AllocateBufferForEval");
_Static_assert(offsetof(TfLiteContext, RequestScratchBufferInArena) == 128,
               "TfLiteContext.RequestScratchBufferInArena");
_Static_assert(offsetof(TfLiteContext, GetScratchBuffer) == 136, "TfLiteContext.GetScratchBuffer");
_Static_assert(offsetof(TfLiteContext, ResizeTensorExplicit) == 144, "TfLiteContext.ResizeTensorExplicit");
_Static_assert(offsetof(TfLiteContext, PreviewDelegatePartitioning) == 152,
               "TfLiteContext.PreviewDelegatePartitioning");
_Static_assert(offsetof(TfLiteContext, GetTensor) == 160, "TfLiteContext.GetTensor");
_Static_assert(offsetof(TfLiteContext, GetEvalTensor) == 168, "TfLiteContext.GetEvalTensor");
_Static_assert(offsetof(TfLiteContext, GetModelMetadata) == 176, "TfLiteContext.GetModelMetadata");
_Static_assert(sizeof(TfLiteEvalTensor) == 24, "TfLiteEvalTensor is 24 bytes in 2.9");
_Static_assert(sizeof(TfLiteTensor) == 112, "TfLiteTensor is 112 bytes in 2.9");

#define PERSISTENT_ALIGN 64
#define MSG_MAX 1024

/* One application registration an interpreter uses: for the custom op
 * `name` at `version` (one per pair the model has). */
typedef struct tfl_app_op {
        TfLiteRegistration reg;         /* the application's, copied */
        char *name;
        int32_t version;
        rt_ext_kernel_t ext;            /* .user = this */
        const tfl_kernels_t *set;
} tfl_app_op_t;

struct tfl_kernels {
        tfl_app_op_t **v;
        size_t n;
        tfl_reporter_t reporter;
        void *reporter_data;
        int32_t num_threads;
        const rt_model_t *model;        /* borrowed: the interpreter holds the model */
};

/* One node run by an application kernel: its context and node, and the
 * TfLiteTensor view of the runtime's tensors. */
typedef struct app_node {
        TfLiteContext ctx;
        TfLiteNode node;
        tfl_app_op_t *op;
        const rt_node_t *rn;
        rt_ext_ctx_t *rt;               /* during a call into the kernel, else NULL */
        rt_tensor_t *rt_tensors;
        int32_t n_tensors;
        TfLiteTensor *tensors;
        TfLiteAffineQuantization *affine;
        TfLiteEvalTensor *eval;
        TfLiteIntArray *plan;
        void **persistent;
        size_t n_persistent;
        bool reported;                  /* ReportError was called in this call */
} app_node_t;

static app_node_t *node_of(const TfLiteContext *ctx) {
        return ctx->impl_;
}

static void app_report(app_node_t *an, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- tensors ---- */

static TfLiteAllocationType alloc_type(rt_alloc_t a) {
        switch (a) {
        case RT_ALLOC_CONST:
                return kTfLiteMmapRo;
        case RT_ALLOC_ARENA:
                return kTfLiteArenaRw;
        case RT_ALLOC_PERSISTENT:
                return kTfLiteArenaRwPersistent;
        case RT_ALLOC_DYNAMIC:
                return kTfLiteDynamic;
        default:
                return kTfLiteMemNone;
        }
}

/* Refresh TfLiteTensor i from the runtime's tensor i. */
static int tensor_sync(app_node_t *an, int32_t i) {
        if (i < 0 || i >= an->n_tensors)
                return 0;
        const rt_tensor_t *t = &an->rt_tensors[i];
        TfLiteTensor *tt = &an->tensors[i];
        if (!tt->dims && !(tt->dims = TfLiteIntArrayCreate(RT_MAX_RANK)))
                return -ENOMEM;
        tt->dims->size = t->rank;
        for (int32_t k = 0; k < t->rank; k++)
                tt->dims->data[k] = t->dims[k];
        size_t es = rt_type_size(t->type);
        tt->type = tfl__type_from_schema(t->type);
        tt->data.data = t->data;
        tt->bytes = es ? rt_tensor_count(t) * es : t->bytes;
        tt->params = (TfLiteQuantizationParams) { .scale = t->scale, .zero_point = t->zero_point };
        tt->allocation_type = alloc_type(t->alloc);
        tt->name = t->name;
        tt->is_variable = t->is_variable;
        tt->buffer_handle = kTfLiteNullBufferHandle;
        if (t->quant.n > 0 && t->quant.scale) {
                TfLiteAffineQuantization *q = &an->affine[i];
                if (!q->scale) {
                        q->scale = TfLiteFloatArrayCreate((int) t->quant.n);
                        q->zero_point = TfLiteIntArrayCreate((int) t->quant.n);
                        if (!q->scale || !q->zero_point) {
                                TfLiteFloatArrayFree(q->scale);
                                TfLiteIntArrayFree(q->zero_point);
                                *q = (TfLiteAffineQuantization) { 0 };
                                return -ENOMEM;
                        }
                        for (size_t k = 0; k < t->quant.n; k++) {
                                q->scale->data[k] = t->quant.scale[k];
                                q->zero_point->data[k] = t->quant.zero_point ? (int) t->quant.zero_point[k] : 0;
                        }
                        q->quantized_dimension = t->quant.axis;
                }
                tt->quantization = (TfLiteQuantization) { .type = kTfLiteAffineQuantization, .params = q };
        } else
                tt->quantization = (TfLiteQuantization) { .type = kTfLiteNoQuantization };
        return 0;
}

static int array_sync(app_node_t *an, const TfLiteIntArray *a) {
        int r;
        for (int k = 0; a && k < a->size; k++)
                if ((r = tensor_sync(an, a->data[k])) < 0)
                        return r;
        return 0;
}

/* The node's tensors, before a call into the kernel. */
static int node_sync(app_node_t *an) {
        int r;
        if ((r = array_sync(an, an->node.inputs)) < 0 || (r = array_sync(an, an->node.outputs)) < 0 ||
            (r = array_sync(an, an->node.intermediates)) < 0)
                return r;
        return 0;
}

static int32_t tensor_index(app_node_t *an, const TfLiteTensor *t) {
        if (!t || t < an->tensors || t >= an->tensors + an->n_tensors)
                return -1;
        return (int32_t) (t - an->tensors);
}

/* ---- TfLiteContext ---- */

static void app_vreport(app_node_t *an, const char *fmt, va_list ap) {
        char msg[MSG_MAX];
        vsnprintf(msg, sizeof(msg), fmt, ap);
        tfl__report(an->op->set->reporter, an->op->set->reporter_data, "%s", msg);
        if (an->rt)
                rt_ext_ctx_error(an->rt, "%s", msg);
        an->reported = true;
}

static void app_report(app_node_t *an, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        app_vreport(an, fmt, ap);
        va_end(ap);
}

static void ctx_report_error(TfLiteContext *ctx, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        app_vreport(node_of(ctx), fmt, ap);
        va_end(ap);
}

static TfLiteStatus resize_to(app_node_t *an, TfLiteTensor *tensor, int rank, const int *dims) {
        int32_t i = tensor_index(an, tensor);
        if (i < 0) {
                app_report(an, "ResizeTensor: the tensor is not one of this context's");
                return kTfLiteError;
        }
        if (!an->rt) {
                app_report(an, "ResizeTensor: called outside prepare and invoke");
                return kTfLiteError;
        }
        int r = rt_ext_ctx_resize(an->rt, i, rank, dims);
        if (tensor_sync(an, i) < 0 || r < 0)
                return kTfLiteError;
        return kTfLiteOk;
}

static TfLiteStatus ctx_resize_tensor(TfLiteContext *ctx, TfLiteTensor *tensor, TfLiteIntArray *new_size) {
        app_node_t *an = node_of(ctx);
        if (!new_size) {
                app_report(an, "ResizeTensor: no shape");
                return kTfLiteError;
        }
        TfLiteStatus s = resize_to(an, tensor, new_size->size, new_size->data);
        /* The shape is ours now, whatever happened. */
        TfLiteIntArrayFree(new_size);
        return s;
}

static TfLiteStatus ctx_resize_tensor_explicit(TfLiteContext *ctx, TfLiteTensor *tensor, int dims,
                                               const int *shape) {
        return resize_to(node_of(ctx), tensor, dims, shape);
}

static TfLiteStatus ctx_get_execution_plan(TfLiteContext *ctx, TfLiteIntArray **plan) {
        *plan = node_of(ctx)->plan;
        return kTfLiteOk;
}

static TfLiteStatus ctx_get_node_and_registration(TfLiteContext *ctx, int index, TfLiteNode **node,
                                                  TfLiteRegistration **reg) {
        app_node_t *an = node_of(ctx);
        if (index != an->rn->index) {
                app_report(an, "GetNodeAndRegistration: node %d is acceld's; a kernel sees only its own node (%d)",
                           index, an->rn->index);
                return kTfLiteError;
        }
        *node = &an->node;
        *reg = &an->op->reg;
        return kTfLiteOk;
}

static TfLiteStatus ctx_add_tensors(TfLiteContext *ctx, int n, int *first) {
        app_report(node_of(ctx), "AddTensors: acceld's graph cannot grow; temporaries are not offered");
        return kTfLiteError;
}

static TfLiteStatus ctx_replace_nodes(TfLiteContext *ctx, TfLiteRegistration reg, const TfLiteIntArray *nodes,
                                      TfLiteDelegate *delegate) {
        app_report(node_of(ctx), "ReplaceNodeSubsetsWithDelegateKernels: acceld runs no foreign delegate");
        return kTfLiteError;
}

static TfLiteStatus ctx_preview_partitioning(TfLiteContext *ctx, const TfLiteIntArray *nodes,
                                             TfLiteDelegateParams **params, int *n) {
        app_report(node_of(ctx), "PreviewDelegatePartitioning: acceld runs no foreign delegate");
        return kTfLiteError;
}

static TfLiteExternalContext *ctx_get_external(TfLiteContext *ctx, TfLiteExternalContextType type) {
        return NULL;
}

static void ctx_set_external(TfLiteContext *ctx, TfLiteExternalContextType type, TfLiteExternalContext *e) {
}

static void *ctx_allocate_persistent(TfLiteContext *ctx, size_t bytes) {
        app_node_t *an = node_of(ctx);
        void **v = realloc(an->persistent, (an->n_persistent + 1) * sizeof(*v));
        if (!v)
                return NULL;
        an->persistent = v;
        size_t size = (bytes + PERSISTENT_ALIGN - 1) / PERSISTENT_ALIGN * PERSISTENT_ALIGN;
        void *p = aligned_alloc(PERSISTENT_ALIGN, size ? size : PERSISTENT_ALIGN);
        if (p)
                v[an->n_persistent++] = p;
        return p;
}

static TfLiteStatus ctx_allocate_for_eval(TfLiteContext *ctx, size_t bytes, void **ptr) {
        app_report(node_of(ctx), "AllocateBufferForEval is TensorFlow Lite Micro's; use AllocatePersistentBuffer");
        return kTfLiteError;
}

static TfLiteStatus ctx_request_scratch(TfLiteContext *ctx, size_t bytes, int *idx) {
        app_node_t *an = node_of(ctx);
        int32_t id;
        if (!an->rt || !idx || rt_ext_ctx_request_scratch(an->rt, an->rn, bytes, &id) < 0) {
                app_report(an, "RequestScratchBufferInArena: %zu bytes refused (call it from prepare)", bytes);
                return kTfLiteError;
        }
        *idx = id;
        return kTfLiteOk;
}

static void *ctx_get_scratch(TfLiteContext *ctx, int idx) {
        app_node_t *an = node_of(ctx);
        return an->rt ? rt_ext_ctx_scratch(an->rt, an->rn, idx) : NULL;
}

static TfLiteTensor *ctx_get_tensor(const TfLiteContext *ctx, int idx) {
        app_node_t *an = node_of(ctx);
        if (idx < 0 || idx >= an->n_tensors || tensor_sync(an, idx) < 0)
                return NULL;
        return &an->tensors[idx];
}

static TfLiteEvalTensor *ctx_get_eval_tensor(const TfLiteContext *ctx, int idx) {
        app_node_t *an = node_of(ctx);
        TfLiteTensor *t = ctx_get_tensor(ctx, idx);
        if (!t)
                return NULL;
        an->eval[idx] = (TfLiteEvalTensor) { .data = t->data, .dims = t->dims, .type = t->type };
        return &an->eval[idx];
}

static TfLiteStatus ctx_get_model_metadata(const TfLiteContext *ctx, const char *name, const char **ptr,
                                           size_t *bytes) {
        const rt_model_t *m = node_of(ctx)->op->set->model;
        for (int32_t i = 0; name && i < m->n_metadata; i++)
                if (m->metadata[i].name && strcmp(m->metadata[i].name, name) == 0 && m->metadata[i].data) {
                        *ptr = (const char *) m->metadata[i].data;
                        *bytes = m->metadata[i].size;
                        return kTfLiteOk;
                }
        return kTfLiteError;
}

/* ---- the runtime's external kernel ---- */

static TfLiteIntArray *int_array(const int32_t *v, int32_t n) {
        TfLiteIntArray *a = TfLiteIntArrayCreate(n);
        for (int32_t k = 0; a && k < n; k++)
                a->data[k] = v[k];
        return a;
}

static void node_free(app_node_t *an) {
        for (int32_t i = 0; an->tensors && i < an->n_tensors; i++) {
                TfLiteIntArrayFree(an->tensors[i].dims);
                TfLiteFloatArrayFree(an->affine[i].scale);
                TfLiteIntArrayFree(an->affine[i].zero_point);
        }
        for (size_t i = 0; i < an->n_persistent; i++)
                free(an->persistent[i]);
        free(an->persistent);
        free(an->tensors);
        free(an->affine);
        free(an->eval);
        TfLiteIntArrayFree(an->plan);
        TfLiteIntArrayFree(an->node.inputs);
        TfLiteIntArrayFree(an->node.outputs);
        TfLiteIntArrayFree(an->node.intermediates);
        TfLiteIntArrayFree(an->node.temporaries);
        free(an);
}

static int app_init(void *user, rt_ext_ctx_t *rt, const rt_node_t *rn, void **ret_data) {
        tfl_app_op_t *op = user;
        app_node_t *an = calloc(1, sizeof(*an));
        if (!an)
                return -ENOMEM;
        an->op = op;
        an->rn = rn;
        an->rt_tensors = rt_ext_ctx_tensors(rt, &an->n_tensors);
        an->tensors = calloc((size_t) an->n_tensors + 1, sizeof(*an->tensors));
        an->affine = calloc((size_t) an->n_tensors + 1, sizeof(*an->affine));
        an->eval = calloc((size_t) an->n_tensors + 1, sizeof(*an->eval));
        an->plan = int_array(&rn->index, 1);
        an->node.inputs = int_array(rn->inputs, rn->n_inputs);
        an->node.outputs = int_array(rn->outputs, rn->n_outputs);
        an->node.intermediates = int_array(rn->intermediates, rn->n_intermediates);
        an->node.temporaries = TfLiteIntArrayCreate(0);
        if (!an->tensors || !an->affine || !an->eval || !an->plan || !an->node.inputs || !an->node.outputs ||
            !an->node.intermediates || !an->node.temporaries) {
                node_free(an);
                return -ENOMEM;
        }
        an->node.custom_initial_data = rn->custom_options;
        an->node.custom_initial_data_size = (int) rn->custom_options_size;
        an->ctx = (TfLiteContext) {
                .tensors_size = (size_t) an->n_tensors,
                .GetExecutionPlan = ctx_get_execution_plan,
                .tensors = an->tensors,
                .impl_ = an,
                .ResizeTensor = ctx_resize_tensor,
                .ReportError = ctx_report_error,
                .AddTensors = ctx_add_tensors,
                .GetNodeAndRegistration = ctx_get_node_and_registration,
                .ReplaceNodeSubsetsWithDelegateKernels = ctx_replace_nodes,
                .recommended_num_threads = op->set->num_threads,
                .GetExternalContext = ctx_get_external,
                .SetExternalContext = ctx_set_external,
                .AllocatePersistentBuffer = ctx_allocate_persistent,
                .AllocateBufferForEval = ctx_allocate_for_eval,
                .RequestScratchBufferInArena = ctx_request_scratch,
                .GetScratchBuffer = ctx_get_scratch,
                .ResizeTensorExplicit = ctx_resize_tensor_explicit,
                .PreviewDelegatePartitioning = ctx_preview_partitioning,
                .GetTensor = ctx_get_tensor,
                .GetEvalTensor = ctx_get_eval_tensor,
                .GetModelMetadata = ctx_get_model_metadata,
        };
        /* As TensorFlow Lite: a custom op's init gets its custom options. */
        if (op->reg.init) {
                an->rt = rt;
                an->node.user_data = op->reg.init(&an->ctx, (const char *) rn->custom_options,
                                                  rn->custom_options_size);
                an->rt = NULL;
        }
        *ret_data = an;
        return 0;
}

static void app_free(void *user, void *data) {
        app_node_t *an = data;
        if (an->op->reg.free && an->node.user_data)
                an->op->reg.free(&an->ctx, an->node.user_data);
        node_free(an);
}

/* A failed status as the runtime's error, with the kernel's own report
 * when it made one. */
static int app_failed(app_node_t *an, rt_ext_ctx_t *rt, const char *hook, TfLiteStatus s) {
        if (!an->reported)
                rt_ext_ctx_error(rt, "the application's kernel for '%s' failed in %s (status %d)", an->op->name, hook,
                                 (int) s);
        an->rt = NULL;
        return -EINVAL;
}

static int app_prepare(void *user, rt_ext_ctx_t *rt, const rt_node_t *rn, void *data) {
        app_node_t *an = data;
        if (node_sync(an) < 0)
                return -ENOMEM;
        if (!an->op->reg.prepare)
                return 0;
        an->rt = rt;
        an->reported = false;
        TfLiteStatus s = an->op->reg.prepare(&an->ctx, &an->node);
        if (s != kTfLiteOk)
                return app_failed(an, rt, "prepare", s);
        /* SetTensorToDynamic (TensorFlow Lite's kernel_util) only flips
         * the tensor's allocation type: tell the runtime. */
        for (int k = 0; k < an->node.outputs->size; k++) {
                int32_t i = an->node.outputs->data[k];
                if (i >= 0 && i < an->n_tensors && an->tensors[i].allocation_type == kTfLiteDynamic &&
                    an->rt_tensors[i].alloc != RT_ALLOC_DYNAMIC && rt_ext_ctx_set_dynamic(rt, i) < 0) {
                        rt_ext_ctx_error(rt, "output %d cannot be made dynamic", i);
                        an->rt = NULL;
                        return -EINVAL;
                }
        }
        an->rt = NULL;
        return 0;
}

static int app_invoke(void *user, rt_ext_ctx_t *rt, const rt_node_t *rn, void *data) {
        app_node_t *an = data;
        if (node_sync(an) < 0)
                return -ENOMEM;
        if (!an->op->reg.invoke) {
                rt_ext_ctx_error(rt, "the application's registration for '%s' has no invoke", an->op->name);
                return -EINVAL;
        }
        an->rt = rt;
        an->reported = false;
        TfLiteStatus s = an->op->reg.invoke(&an->ctx, &an->node);
        if (s != kTfLiteOk)
                return app_failed(an, rt, "invoke", s);
        an->rt = NULL;
        return 0;
}

/* ---- choosing the registrations ---- */

static void op_free(tfl_app_op_t *op) {
        if (!op)
                return;
        free(op->name);
        free(op);
}

tfl_kernels_t *tfl__kernels_free(tfl_kernels_t *k) {
        if (!k)
                return NULL;
        for (size_t i = 0; i < k->n; i++)
                op_free(k->v[i]);
        free(k->v);
        free(k);
        return NULL;
}

static int kernels_add(tfl_kernels_t *k, const char *name, int32_t version, const TfLiteRegistration *reg,
                       bool from_options) {
        for (size_t i = 0; i < k->n; i++)
                if (k->v[i]->version == version && strcmp(k->v[i]->name, name) == 0)
                        return 0;
        tfl_app_op_t **v = realloc(k->v, (k->n + 1) * sizeof(*v));
        if (!v)
                return -ENOMEM;
        k->v = v;
        tfl_app_op_t *op = calloc(1, sizeof(*op));
        if (!op || !(op->name = strdup(name))) {
                op_free(op);
                return -ENOMEM;
        }
        op->reg = *reg;
        /* TensorFlow Lite's MutableOpResolver::AddCustom stamps its copy. */
        if (from_options) {
                op->reg.builtin_code = kTfLiteBuiltinCustom;
                op->reg.custom_name = op->name;
                op->reg.version = version;
        }
        op->version = version;
        op->set = k;
        op->ext = (rt_ext_kernel_t) {
                .user = op,
                .init = app_init,
                .free = app_free,
                .prepare = app_prepare,
                .invoke = app_invoke,
        };
        k->v[k->n++] = op;
        return 0;
}

/* The application's AddCustomOp registration for (name, version): the
 * last one added that covers the version, as MutableOpResolver keeps it. */
static const TfLiteRegistration *options_custom(const TfLiteInterpreterOptions *o, const char *name,
                                                int32_t version) {
        for (size_t i = o->n_custom_ops; i-- > 0;) {
                const tfl_custom_op_t *c = &o->custom_ops[i];
                if (strcmp(c->name, name) == 0 && version >= c->min_version && version <= c->max_version)
                        return &c->reg;
        }
        return NULL;
}

static bool options_builtin(const TfLiteInterpreterOptions *o, int32_t code, int32_t version) {
        for (size_t i = 0; i < o->n_builtin_ops; i++)
                if (o->builtin_ops[i].op == code && version >= o->builtin_ops[i].min_version &&
                    version <= o->builtin_ops[i].max_version)
                        return true;
        return false;
}

int tfl__kernels_resolve(const TfLiteModel *model, const TfLiteInterpreterOptions *o, bool selected_only,
                         tfl_kernels_t **ret) {
        *ret = NULL;
        if (!o)
                return 0;
        bool callbacks = o->find_builtin_op || o->find_custom_op;
        if (!callbacks && !o->n_custom_ops && !selected_only)
                return 0;
        tfl_kernels_t *k = calloc(1, sizeof(*k));
        if (!k)
                return -ENOMEM;
        k->reporter = o->reporter;
        k->reporter_data = o->reporter_data;
        k->num_threads = o->num_threads;
        k->model = model->rt;
        int r = 0;
        const rt_model_t *m = model->rt;
        for (int32_t s = 0; r >= 0 && s < m->n_subgraphs; s++)
                for (int32_t i = 0; r >= 0 && i < m->subgraphs[s].n_ops; i++) {
                        const rt_model_op_t *op = &m->subgraphs[s].ops[i];
                        int32_t version = op->version > 0 ? op->version : 1;
                        const TfLiteRegistration *reg = NULL;
                        if (op->custom_code) {
                                /* SetOpResolver's callbacks replace every other
                                 * resolver (c_api.cc in 2.9); else the
                                 * application's AddCustomOp wins over the
                                 * builtin resolver's own custom ops. */
                                if (callbacks)
                                        reg = o->find_custom_op ? o->find_custom_op(o->op_resolver_data,
                                                                                    op->custom_code, version)
                                                                : NULL;
                                else
                                        reg = options_custom(o, op->custom_code, version);
                                if (reg)
                                        r = kernels_add(k, op->custom_code, version, reg, !callbacks);
                                else if (callbacks || selected_only) {
                                        tfl__report(o->reporter, o->reporter_data,
                                                    "Encountered unresolved custom op: %s (version %d): the "
                                                    "application's op resolver does not provide it",
                                                    op->custom_code, version);
                                        r = -ENOENT;
                                }
                                continue;
                        }
                        /* Builtin ops run on acceld's kernels; the resolver
                         * must still know them, as TensorFlow Lite's would. */
                        bool known = callbacks ? o->find_builtin_op &&
                                                         o->find_builtin_op(o->op_resolver_data,
                                                                            (TfLiteBuiltinOperator) op->builtin_code,
                                                                            version)
                                               : !selected_only || options_builtin(o, op->builtin_code, version);
                        if (!known) {
                                tfl__report(o->reporter, o->reporter_data,
                                            "Didn't find op for builtin opcode '%s' version '%d': the application's "
                                            "op resolver does not provide it",
                                            rt_op_name(op->builtin_code), version);
                                r = -ENOENT;
                        }
                }
        if (r < 0 || k->n == 0) {
                tfl__kernels_free(k);
                return r < 0 ? r : 0;
        }
        *ret = k;
        return 0;
}

int tfl__kernels_register(const tfl_kernels_t *k, struct rt_interp_options *o) {
        for (size_t i = 0; k && i < k->n; i++) {
                int r = rt_interp_options_add_ext_kernel(o, RT_OP_CUSTOM, k->v[i]->name, &k->v[i]->ext,
                                                         k->v[i]->version, k->v[i]->version);
                if (r < 0)
                        return r;
        }
        return 0;
}
