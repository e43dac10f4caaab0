/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The XNNPACK driver: a group of TFLite nodes becomes one XNNPACK subgraph
 * and one xnn_runtime on its own pthreadpool. Constants are static values
 * pointing straight into the model mapping; float16 constants feeding a
 * DEQUANTIZE are converted to float32 once, at prepare time. Fused
 * activations become the output clamps of the XNNPACK node.
 *
 * Support is decided per node by the same code that translates it: the node
 * alone is compiled into a throw-away runtime (defined, created, set up),
 * so "supported" means this XNNPACK snapshot accepted it all the way to
 * running, and a refusal comes with a reason. The op translations live in
 * one file per family behind translate.c's table; this file holds the
 * driver's lifecycle.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <pthreadpool.h>
#include <xnnpack.h>
#if defined(__SSE__)
#include <xmmintrin.h>
#endif

#include "cleanup.h"
#include "driver.h"
#include "rt.h"
#include "threadpool.h"

/* Caller buffers (rt_interp_set_tensor_buffer()) promise this much read slack. */
_Static_assert(XNN_EXTRA_BYTES <= RT_BUFFER_SLACK, "RT_BUFFER_SLACK must cover XNN_EXTRA_BYTES");
#include "xnnpack-internal.h"

int rt__xnn_status_to_errno(int status) {
        switch ((enum xnn_status) status) {
        case xnn_status_success:
                return 0;
        case xnn_status_uninitialized:
                return -ENODEV;
        case xnn_status_invalid_parameter:
        case xnn_status_invalid_state:
                return -EINVAL;
        case xnn_status_unsupported_parameter:
        case xnn_status_unsupported_hardware:
                return -ENOTSUP;
        case xnn_status_out_of_memory:
                return -ENOMEM;
        default:
                return -EIO;
        }
}

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static enum xnn_status init_status = xnn_status_uninitialized;

static void init_xnn(void) {
        init_status = xnn_initialize(NULL);
}

typedef struct prepared {
        xnn_runtime_t runtime;
        pthreadpool_t pool;
        void **owned;
        size_t n_owned;
        int32_t *ext;          /* external id -> graph tensor */
        int32_t n_ext;
        struct xnn_external_value *values;
        bool set_up;
        void **last_ptrs;
        void **fixed;          /* per external id: the group's own buffer, or NULL (the graph's) */
} prepared_t;

static void prepared_free(void *p) {
        prepared_t *pr = p;
        if (!pr)
                return;
        if (pr->runtime)
                xnn_delete_runtime(pr->runtime);
        rt__xnn_pool_release(pr->pool);
        for (size_t i = 0; i < pr->n_owned; i++)
                free(pr->owned[i]);
        free(pr->owned);
        free(pr->ext);
        free(pr->values);
        free(pr->last_ptrs);
        free(pr->fixed);
        free(pr);
}

static const char *status_name(enum xnn_status st) {
        switch (st) {
        case xnn_status_invalid_parameter:
                return "invalid parameter";
        case xnn_status_invalid_state:
                return "invalid state";
        case xnn_status_unsupported_parameter:
                return "unsupported parameter";
        case xnn_status_unsupported_hardware:
                return "unsupported hardware";
        case xnn_status_out_of_memory:
                return "out of memory";
        default:
                return "error";
        }
}

static uint64_t mono_ns(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

/*
 * Set every external value of a probe's runtime to one zeroed buffer as
 * large as the largest boundary tensor: xnn_setup_runtime() then runs the
 * operators' setup checks (shapes, strides) without anything being run.
 */
static enum xnn_status probe_setup(prepared_t *pr, const rt_driver_graph_t *g) {
        size_t max = 0;
        for (int32_t k = 0; k < pr->n_ext; k++) {
                const rt_tensor_t *t = &g->tensors[pr->ext[k]];
                size_t bytes = rt_tensor_count(t) * rt_type_size(t->type);
                if (bytes > max)
                        max = bytes;
        }
        void *buf = calloc(1, max + XNN_EXTRA_BYTES);
        if (!buf)
                return xnn_status_out_of_memory;
        for (int32_t k = 0; k < pr->n_ext; k++)
                pr->values[k] = (struct xnn_external_value) { .id = (uint32_t) k, .data = buf };
        enum xnn_status st = xnn_setup_runtime(pr->runtime, (size_t) pr->n_ext, pr->values);
        free(buf);
        return st;
}

/*
 * Translate `grp` into one subgraph and create its runtime. A probe
 * (support decision for one node) uses no thread pool and no FP16/sparse
 * flags, and also sets the runtime up, so every check XNNPACK makes before
 * running is made; its error is the bare reason ("XNNPACK: ...").
 * Otherwise a node that cannot be defined goes to *ret_node (the runtime
 * names it in the message), which is -1 for the group's own failures.
 */
static int group_compile(const rt_driver_graph_t *g, const rt_driver_group_t *grp, const rt_settings_t *s,
                         bool probe, prepared_t **ret, char *err, size_t err_size, int32_t *ret_node) {
        prepared_t *pr = calloc(1, sizeof(*pr));
        uint32_t *ids = malloc(((size_t) g->n_tensors + 1) * sizeof(uint32_t));
        uint32_t *fold_ids = malloc(((size_t) g->n_tensors + 1) * sizeof(uint32_t));
        const float **folded = calloc((size_t) g->n_tensors + 1, sizeof(float *));
        xnn_subgraph_t sg = NULL;
        bool *skip = NULL;
        int r = -ENOMEM;
        if (!pr || !ids || !folded || !fold_ids)
                goto error;
        skip = calloc((size_t) grp->n_nodes + 1, sizeof(bool));
        if (!skip)
                goto error;
        if ((r = rt__xnn_check_dataflow(g, grp, probe, err, err_size, ret_node, skip)) < 0)
                goto error;
        r = -ENOMEM;
        int32_t n_ext = grp->n_inputs + grp->n_outputs;
        pr->ext = calloc((size_t) n_ext + 1, sizeof(int32_t));
        pr->values = calloc((size_t) n_ext + 1, sizeof(*pr->values));
        pr->last_ptrs = calloc((size_t) n_ext + 1, sizeof(void *));
        if (!pr->ext || !pr->values || !pr->last_ptrs)
                goto error;
        pr->n_ext = n_ext;
        if (xnn_create_subgraph((uint32_t) n_ext, 0, &sg) != xnn_status_success) {
                snprintf(err, err_size, "cannot create an XNNPACK subgraph");
                r = -ENOMEM;
                goto error;
        }
        for (int32_t t = 0; t < g->n_tensors; t++)
                ids[t] = fold_ids[t] = XNN_INVALID_VALUE_ID;
        rt__xnn_ctx_t x = { .g = g, .sg = sg, .ids = ids, .fold_ids = fold_ids, .folded = folded, .owned = &pr->owned,
                            .n_owned = &pr->n_owned, .why = err, .why_size = err_size };
        /* Group inputs made by a DEQUANTIZE of a float16 constant outside
         * the group are folded here too, so weights stay static. */
        for (int32_t k = 0; k < grp->n_inputs; k++)
                for (int32_t ni = 0; ni < g->n_nodes; ni++) {
                        const rt_node_t *n = &g->nodes[ni];
                        if (n->n_outputs > 0 && n->outputs[0] == grp->inputs[k] && rt__xnn_is_fp16_dequantize(&x, n) &&
                            (r = rt__xnn_fold_dequantize(&x, n)) < 0)
                                goto error;
                }
        /* Boundary tensors first, with external ids 0..n_ext-1. */
        for (int32_t k = 0; k < n_ext; k++) {
                bool is_in = k < grp->n_inputs;
                int32_t ti = is_in ? grp->inputs[k] : grp->outputs[k - grp->n_inputs];
                const rt_tensor_t *t = &g->tensors[ti];
                size_t dims[RT_MAX_RANK];
                for (int32_t dd = 0; dd < t->rank; dd++) {
                        if (probe && t->dims[dd] <= 0) {
                                snprintf(err, err_size, "XNNPACK: tensor %d has a dynamic or empty dimension", ti);
                                r = -ENOTSUP;
                                goto error;
                        }
                        dims[dd] = (size_t) t->dims[dd];
                }
                uint32_t flags = is_in ? XNN_VALUE_FLAG_EXTERNAL_INPUT : XNN_VALUE_FLAG_EXTERNAL_OUTPUT;
                enum xnn_status st;
                if (ids[ti] != XNN_INVALID_VALUE_ID) {
                        snprintf(err, err_size, "%stensor %d is both an input and an output of the group",
                                 probe ? "XNNPACK: " : "", ti);
                        r = -ENOTSUP;
                        goto error;
                }
                if (t->type == RT_TYPE_FLOAT32)
                        st = xnn_define_tensor_value(sg, xnn_datatype_fp32, (size_t) t->rank, dims, NULL,
                                                     (uint32_t) k, flags, &ids[ti]);
                else if ((t->type == RT_TYPE_INT8 || t->type == RT_TYPE_UINT8) && t->quant.n == 1)
                        st = xnn_define_quantized_tensor_value(
                                sg, t->type == RT_TYPE_INT8 ? xnn_datatype_qint8 : xnn_datatype_quint8, t->zero_point,
                                t->scale, (size_t) t->rank, dims, NULL, (uint32_t) k, flags, &ids[ti]);
                else {
                        snprintf(err, err_size, "%s%s tensor %d of type %s not supported", probe ? "XNNPACK: " : "",
                                 is_in ? "input" : "output", ti, rt_type_name(t->type));
                        r = -ENOTSUP;
                        goto error;
                }
                if (st != xnn_status_success) {
                        snprintf(err, err_size, "%s%s tensor %d rejected (status %d)", probe ? "XNNPACK: " : "",
                                 is_in ? "input" : "output", ti, (int) st);
                        r = rt__xnn_status_to_errno(st);
                        goto error;
                }
                pr->ext[k] = ti;
        }
        for (int32_t k = 0; k < grp->n_nodes; k++) {
                const rt_node_t *n = &g->nodes[grp->nodes[k]];
                if (skip[k])
                        continue;
                r = rt__xnn_define_node(&x, n);
                if (r < 0) {
                        if (ret_node)
                                *ret_node = n->index;
                        goto error;
                }
        }
        int32_t threads = probe ? 1 : rt_settings_num_threads(s, 1);
        if (threads > 1) {
                pr->pool = rt__xnn_pool_acquire(g->tensors, (size_t) threads);
                if (!pr->pool) {
                        snprintf(err, err_size, "cannot create a pool of %d threads", threads);
                        r = -ENOMEM;
                        goto error;
                }
        }
        /* No XNN_FLAG_YIELD_WORKERS: the workers keep spinning after the
         * last operator, across groups and invokes (pool.c says why). */
        uint32_t flags = 0;
        if (!probe && s && (s->xnnpack_flags & RT_XNNPACK_FLAG_FORCE_FP16))
                flags |= XNN_FLAG_FORCE_FP16_INFERENCE;
        if (!probe && s && (s->xnnpack_flags & RT_XNNPACK_FLAG_SPARSE))
                flags |= XNN_FLAG_HINT_SPARSE_INFERENCE;
        enum xnn_status st = xnn_create_runtime_v2(sg, pr->pool, flags, &pr->runtime);
        if (st != xnn_status_success) {
                pr->runtime = NULL;
                if ((flags & XNN_FLAG_FORCE_FP16_INFERENCE) && st == xnn_status_unsupported_hardware)
                        snprintf(err, err_size,
                                 "forced FP16 inference is not possible on this CPU (no native FP16 arithmetic "
                                 "and no AVX2 emulation)");
                else if (flags & XNN_FLAG_FORCE_FP16_INFERENCE)
                        snprintf(err, err_size,
                                 "forced FP16 inference refused (status %d): an operator of this group has no FP16 "
                                 "version in this XNNPACK",
                                 (int) st);
                else
                        snprintf(err, err_size, "%scannot create the XNNPACK runtime (status %d, %s)",
                                 probe ? "XNNPACK: " : "", (int) st, status_name(st));
                r = rt__xnn_status_to_errno(st);
                if (r == 0)
                        r = -EIO;
                goto error;
        }
        if (probe && (st = probe_setup(pr, g)) != xnn_status_success) {
                snprintf(err, err_size, "XNNPACK: runtime setup refused (status %d, %s)", (int) st, status_name(st));
                r = rt__xnn_status_to_errno(st);
                goto error;
        }
        xnn_delete_subgraph(sg);
        free(skip);
        free(ids);
        free(fold_ids);
        free(folded);
        *ret = pr;
        return 0;
error:
        if (sg)
                xnn_delete_subgraph(sg);
        free(skip);
        free(ids);
        free(fold_ids);
        free(folded);
        prepared_free(pr);
        return r;
}

/* The group a probe compiles for node n: its non-constant inputs and its
 * outputs (each once). */
static int probe_group(const rt_driver_graph_t *g, const int32_t *node, int32_t *ins, int32_t *outs,
                       rt_driver_group_t *ret) {
        const rt_node_t *n = &g->nodes[*node];
        int32_t ni = 0, no = 0;
        for (int32_t k = 0; k < n->n_inputs; k++) {
                int32_t t = n->inputs[k];
                bool dup = false;
                if (t < 0 || t >= g->n_tensors || g->tensors[t].alloc == RT_ALLOC_CONST)
                        continue;
                for (int32_t j = 0; j < ni; j++)
                        dup |= ins[j] == t;
                if (!dup)
                        ins[ni++] = t;
        }
        for (int32_t k = 0; k < n->n_outputs; k++) {
                int32_t t = n->outputs[k];
                bool dup = false;
                if (t < 0 || t >= g->n_tensors)
                        return -EINVAL;
                for (int32_t j = 0; j < no; j++)
                        dup |= outs[j] == t;
                if (!dup)
                        outs[no++] = t;
        }
        *ret = (rt_driver_group_t) { .nodes = node, .n_nodes = 1, .inputs = ins, .n_inputs = ni,
                                     .outputs = outs, .n_outputs = no };
        return 0;
}

/*
 * A node is supported when a runtime holding only it can be created and
 * set up: defining the node catches what the subgraph API refuses, creating
 * the runtime catches what the operators refuse (requantization scales out
 * of range, for instance), setting it up catches the shape checks.
 */
static int xnn_supported(const rt_driver_t *d, const rt_driver_graph_t *g, const rt_settings_t *s,
                         bool *ret_supported, char (*reasons)[RT_DRIVER_REASON_MAX]) {
        pthread_once(&init_once, init_xnn);
        if (init_status != xnn_status_success) {
                for (int32_t i = 0; i < g->n_nodes; i++) {
                        ret_supported[i] = false;
                        snprintf(reasons[i], RT_DRIVER_REASON_MAX, "XNNPACK: not available on this CPU");
                }
                return 0;
        }
        /* The probes' view of the tensors: shapes inferred per node. */
        rt_tensor_t *view = malloc(((size_t) g->n_tensors + 1) * sizeof(rt_tensor_t));
        if (!view)
                return -ENOMEM;
        memcpy(view, g->tensors, (size_t) g->n_tensors * sizeof(rt_tensor_t));
        rt_driver_graph_t pg = *g;
        pg.tensors = view;
        for (int32_t i = 0; i < g->n_nodes; i++) {
                const rt_node_t *n = &g->nodes[i];
                ret_supported[i] = false;
                reasons[i][0] = 0;
                if (!n->reg && n->op != RT_OP_CUSTOM) {
                        snprintf(reasons[i], RT_DRIVER_REASON_MAX, "XNNPACK: node is not a model op");
                        continue;
                }
                /* Folded at prepare (its outputs are constants now): not in
                 * the plan, nothing to probe. */
                bool folded = n->n_outputs > 0;
                for (int32_t k = 0; k < n->n_outputs && folded; k++)
                        folded = n->outputs[k] >= 0 && g->tensors[n->outputs[k]].alloc == RT_ALLOC_CONST;
                if (folded) {
                        ret_supported[i] = true;
                        continue;
                }
                int32_t *ins = calloc((size_t) n->n_inputs + 1, sizeof(int32_t));
                int32_t *outs = calloc((size_t) n->n_outputs + 1, sizeof(int32_t));
                rt_driver_group_t grp;
                int r = ins && outs ? probe_group(g, &i, ins, outs, &grp) : -ENOMEM;
                prepared_t *pr = NULL;
                rt__xnn_native_t *nat = NULL;
                if (r == 0)
                        r = rt__xnn_probe_shapes(g, n, view, reasons[i], RT_DRIVER_REASON_MAX);
                bool native = r == 0 && !rt__xnn_op_disabled(n->op) && rt__xnn_native_wants(&pg, n);
                if (r == 0)
                        r = native ? rt__xnn_native_prepare(&pg, n, &nat, reasons[i], RT_DRIVER_REASON_MAX)
                                   : group_compile(&pg, &grp, s, true, &pr, reasons[i], RT_DRIVER_REASON_MAX,
                                                   NULL);
                rt__xnn_probe_restore(g, n, view);
                free(ins);
                free(outs);
                prepared_free(pr);
                rt__xnn_native_free(nat);
                if (r == -ENOMEM)
                        snprintf(reasons[i], RT_DRIVER_REASON_MAX, "XNNPACK: out of memory");
                else if (r == -EINVAL && !reasons[i][0])
                        snprintf(reasons[i], RT_DRIVER_REASON_MAX, "XNNPACK: node has an invalid output");
                ret_supported[i] = r == 0;
                if (r == 0)
                        reasons[i][0] = 0;
        }
        free(view);
        return 0;
}

/*
 * A group holding nodes the driver runs itself (native.c) is split into
 * steps, in the group's order: runs of translated nodes, each one XNNPACK
 * runtime, and the native nodes between them. All steps share the
 * interpreter's pool; the tensors passed between steps live in buffers of
 * the group, reused once their last reader has run.
 */
typedef struct step {
        prepared_t *xnn;            /* an XNNPACK runtime, or */
        rt__xnn_native_t *native;   /* a step of the driver's own ... */
        const void **srcs;          /* ... and its inputs' data, set per run */
} step_t;

typedef struct group {
        prepared_t *one;            /* the whole group as one runtime (no native node) */
        step_t *steps;
        int32_t n_steps;
        pthreadpool_t pool;
        int32_t *inner;             /* tensors between steps ... */
        void **inner_data;          /* ... and their buffers (aliases of `bufs`) */
        int32_t n_inner;
        void **bufs;                /* owned */
        size_t *buf_bytes;
        int32_t n_bufs;
        rt_threadpool_schedule_t *sched;    /* the pool's learned schedule of its calls */
} group_t;

static void group_free(void *p) {
        group_t *gr = p;
        if (!gr)
                return;
        prepared_free(gr->one);
        for (int32_t i = 0; i < gr->n_steps; i++) {
                prepared_free(gr->steps[i].xnn);
                rt__xnn_native_free(gr->steps[i].native);
                free(gr->steps[i].srcs);
        }
        free(gr->steps);
        rt__xnn_pool_release(gr->pool);
        rt_threadpool_schedule_free(gr->sched);
        for (int32_t i = 0; i < gr->n_bufs; i++)
                free(gr->bufs[i]);
        free(gr->bufs);
        free(gr->buf_bytes);
        free(gr->inner);
        free(gr->inner_data);
        free(gr);
}

static void *inner_data(const group_t *gr, int32_t t) {
        for (int32_t k = 0; k < gr->n_inner; k++)
                if (gr->inner[k] == t)
                        return gr->inner_data[k];
        return NULL;
}

static size_t tensor_bytes(const rt_tensor_t *t) {
        return rt_tensor_count(t) * rt_type_size(t->type);
}

static bool list_has(const int32_t *v, int32_t n, int32_t x) {
        for (int32_t i = 0; i < n; i++)
                if (v[i] == x)
                        return true;
        return false;
}

/* How the driver runs each node of a group. */
enum { RUN_XNN, RUN_NATIVE, RUN_NATIVE_MORE };  /* XNNPACK; a native step's first node; its next ones */

/* The step of each group node: steps are maximal runs of translated nodes,
 * and native steps (one node, or a residual step's few). Returns the
 * number of steps. */
static int32_t steps_assign(const rt_driver_group_t *grp, const uint8_t *run, int32_t *step_of) {
        int32_t n = 0;
        for (int32_t k = 0; k < grp->n_nodes; k++) {
                if (run[k] == RUN_NATIVE || k == 0 || (run[k] == RUN_XNN && run[k - 1] != RUN_XNN))
                        n++;
                step_of[k] = n - 1;
        }
        return n;
}

/* Whether tensor t, written in step `st`, is read by a later step or
 * leaves the group. */
static bool needed_after(const rt_driver_graph_t *g, const rt_driver_group_t *grp, const int32_t *step_of,
                         int32_t st, int32_t t) {
        if (list_has(grp->outputs, grp->n_outputs, t))
                return true;
        for (int32_t k = 0; k < grp->n_nodes; k++) {
                if (step_of[k] <= st)
                        continue;
                const rt_node_t *n = &g->nodes[grp->nodes[k]];
                if (list_has(n->inputs, n->n_inputs, t))
                        return true;
        }
        return false;
}

/* The last step reading inner tensor t. */
static int32_t last_reader(const rt_driver_graph_t *g, const rt_driver_group_t *grp, const int32_t *step_of,
                           int32_t t) {
        int32_t last = -1;
        for (int32_t k = 0; k < grp->n_nodes; k++) {
                const rt_node_t *n = &g->nodes[grp->nodes[k]];
                if (list_has(n->inputs, n->n_inputs, t) && step_of[k] > last)
                        last = step_of[k];
        }
        return last;
}

/* A buffer of at least `bytes` for an inner tensor: a free one of the
 * group's (busy[] marks the taken ones), else a new one. */
static void *buf_take(group_t *gr, bool **busy, size_t bytes) {
        int32_t best = -1;
        for (int32_t i = 0; i < gr->n_bufs; i++)
                if (!(*busy)[i] && gr->buf_bytes[i] >= bytes && (best < 0 || gr->buf_bytes[i] < gr->buf_bytes[best]))
                        best = i;
        if (best < 0) {
                void **b = realloc(gr->bufs, ((size_t) gr->n_bufs + 1) * sizeof(*b));
                if (b)
                        gr->bufs = b;
                size_t *bb = realloc(gr->buf_bytes, ((size_t) gr->n_bufs + 1) * sizeof(*bb));
                if (bb)
                        gr->buf_bytes = bb;
                bool *bu = realloc(*busy, ((size_t) gr->n_bufs + 1) * sizeof(*bu));
                if (bu)
                        *busy = bu;
                size_t cap = (bytes + XNN_EXTRA_BYTES + 63) & ~(size_t) 63;
                void *p = b && bb && bu ? aligned_alloc(64, cap) : NULL;
                if (!p)
                        return NULL;
                memset(p, 0, cap);
                best = gr->n_bufs++;
                gr->bufs[best] = p;
                gr->buf_bytes[best] = bytes;
        }
        (*busy)[best] = true;
        return gr->bufs[best];
}

static void buf_put(group_t *gr, bool *busy, void *p) {
        for (int32_t i = 0; i < gr->n_bufs; i++)
                if (gr->bufs[i] == p)
                        busy[i] = false;
}

static int group_split(const rt_driver_graph_t *g, const rt_driver_group_t *grp, const rt_settings_t *s,
                       const uint8_t *run, group_t *gr, char *err, size_t err_size, int32_t *ret_node) {
        int32_t nn = grp->n_nodes;
        _cleanup_free_ int32_t *step_of = calloc((size_t) nn + 1, sizeof(int32_t));
        _cleanup_free_ int32_t *nodes = calloc((size_t) nn + 1, sizeof(int32_t));
        _cleanup_free_ int32_t *ins = NULL, *outs = NULL;
        _cleanup_free_ bool *busy = NULL;
        int32_t max_io = 0;
        for (int32_t k = 0; k < nn; k++) {
                const rt_node_t *n = &g->nodes[grp->nodes[k]];
                max_io += n->n_inputs + n->n_outputs;
        }
        ins = calloc((size_t) max_io + 1, sizeof(int32_t));
        outs = calloc((size_t) max_io + 1, sizeof(int32_t));
        if (!step_of || !nodes || !ins || !outs)
                return -ENOMEM;
        int32_t n_steps = steps_assign(grp, run, step_of);
        gr->steps = calloc((size_t) n_steps + 1, sizeof(step_t));
        gr->inner = calloc((size_t) max_io + 1, sizeof(int32_t));
        gr->inner_data = calloc((size_t) max_io + 1, sizeof(void *));
        if (!gr->steps || !gr->inner || !gr->inner_data)
                return -ENOMEM;
        int32_t threads = rt_settings_num_threads(s, 1);
        if (threads > 1 && !(gr->pool = rt__xnn_pool_acquire(g->tensors, (size_t) threads))) {
                snprintf(err, err_size, "cannot create a pool of %d threads", threads);
                return -ENOMEM;
        }
        for (int32_t st = 0; st < n_steps; st++) {
                int32_t n_nodes = 0, n_ins = 0, n_outs = 0;
                for (int32_t k = 0; k < nn; k++) {
                        if (step_of[k] != st)
                                continue;
                        const rt_node_t *n = &g->nodes[grp->nodes[k]];
                        nodes[n_nodes++] = grp->nodes[k];
                        for (int32_t j = 0; j < n->n_inputs; j++) {
                                int32_t t = n->inputs[j];
                                bool inside = false;
                                for (int32_t q = 0; q < k && !inside; q++)
                                        inside = step_of[q] == st &&
                                                 list_has(g->nodes[grp->nodes[q]].outputs,
                                                          g->nodes[grp->nodes[q]].n_outputs, t);
                                if (t >= 0 && t < g->n_tensors && g->tensors[t].alloc != RT_ALLOC_CONST && !inside &&
                                    !list_has(ins, n_ins, t))
                                        ins[n_ins++] = t;
                        }
                        for (int32_t j = 0; j < n->n_outputs; j++) {
                                int32_t t = n->outputs[j];
                                if (t >= 0 && t < g->n_tensors && !list_has(outs, n_outs, t) &&
                                    needed_after(g, grp, step_of, st, t))
                                        outs[n_outs++] = t;
                        }
                }
                if (n_outs == 0)
                        continue;  /* dead: nothing of it is read */
                step_t *sp = &gr->steps[gr->n_steps++];
                int r = 0;
                bool is_native = false;
                for (int32_t k = 0; k < nn; k++)
                        if (step_of[k] == st)
                                is_native = run[k] != RUN_XNN;
                if (is_native) {
                        r = rt__xnn_native_prepare_span(g, nodes, n_nodes, &sp->native, err, err_size);
                        if (r < 0 && ret_node)
                                *ret_node = nodes[0];
                        if (r < 0)
                                return r;
                        if (!(sp->srcs = calloc((size_t) rt__xnn_native_n_inputs(sp->native) + 1, sizeof(void *))))
                                return -ENOMEM;
                }
                /* Buffers for the outputs that stay inside the group: a
                 * native step that may write over its input takes that
                 * input's buffer when nothing later reads it. */
                int32_t over = is_native ? rt__xnn_native_in_place(sp->native) : -1;
                int32_t in = over >= 0 ? rt__xnn_native_input(sp->native, over) : -1;
                for (int32_t j = 0; j < n_outs; j++) {
                        int32_t t = outs[j];
                        if (list_has(grp->outputs, grp->n_outputs, t))
                                continue;
                        size_t bytes = tensor_bytes(&g->tensors[t]);
                        void *p = NULL;
                        if (in >= 0 && last_reader(g, grp, step_of, in) == st && tensor_bytes(&g->tensors[in]) == bytes)
                                p = inner_data(gr, in);  /* NULL unless `in` lives in a group buffer */
                        if (!p && !(p = buf_take(gr, &busy, bytes)))
                                return -ENOMEM;
                        gr->inner[gr->n_inner] = t;
                        gr->inner_data[gr->n_inner++] = p;
                }
                if (is_native) {
                        /* nothing more to prepare */
                } else {
                        rt_driver_group_t sub = { .nodes = nodes, .n_nodes = n_nodes, .inputs = ins,
                                                  .n_inputs = n_ins, .outputs = outs, .n_outputs = n_outs };
                        r = group_compile(g, &sub, s, false, &sp->xnn, err, err_size, ret_node);
                        if (r == 0) {
                                prepared_t *pr = sp->xnn;
                                pr->fixed = calloc((size_t) pr->n_ext + 1, sizeof(void *));
                                if (!pr->fixed)
                                        return -ENOMEM;
                                for (int32_t k = 0; k < pr->n_ext; k++)
                                        pr->fixed[k] = inner_data(gr, pr->ext[k]);
                        }
                }
                if (r < 0)
                        return r;
                /* Inner tensors read for the last time here are free for
                 * the steps after this one, unless a later tensor took
                 * the buffer over. */
                for (int32_t k = 0; k < gr->n_inner; k++) {
                        if (last_reader(g, grp, step_of, gr->inner[k]) != st)
                                continue;
                        bool taken = false;
                        for (int32_t q = 0; q < gr->n_inner && !taken; q++)
                                taken = q != k && gr->inner_data[q] == gr->inner_data[k] &&
                                        last_reader(g, grp, step_of, gr->inner[q]) > st;
                        if (!taken)
                                buf_put(gr, busy, gr->inner_data[k]);
                }
        }
        return 0;
}

static int xnn_prepare(const rt_driver_t *d, const rt_driver_graph_t *g, const rt_driver_group_t *grp,
                       const rt_settings_t *s, uint64_t deadline_ns, void **ret_prepared, rt_driver_error_t *e) {
        char *err = e->message;
        size_t err_size = sizeof(e->message);
        pthread_once(&init_once, init_xnn);
        if (init_status != xnn_status_success) {
                snprintf(err, err_size, "XNNPACK cannot initialise on this CPU");
                return -ENODEV;
        }
        if (deadline_ns && mono_ns() > deadline_ns) {
                snprintf(err, err_size, "deadline passed before compilation");
                return -ETIME;
        }
        group_t *gr = calloc(1, sizeof(*gr));
        _cleanup_free_ uint8_t *run = calloc((size_t) grp->n_nodes + 1, sizeof(uint8_t));
        if (!gr || !run) {
                free(gr);
                return -ENOMEM;
        }
        bool any = false;
        for (int32_t k = 0; k < grp->n_nodes;) {
                const rt_node_t *n = &g->nodes[grp->nodes[k]];
                int32_t span = rt__xnn_residual_span(g, grp, s, k);
                if (span > 0) {
                        run[k] = RUN_NATIVE;
                        for (int32_t j = 1; j < span; j++)
                                run[k + j] = RUN_NATIVE_MORE;
                        any = true;
                        k += span;
                        continue;
                }
                run[k] = !rt__xnn_op_disabled(n->op) && rt__xnn_native_wants(g, n) ? RUN_NATIVE : RUN_XNN;
                any |= run[k] != RUN_XNN;
                k++;
        }
        int r = any ? group_split(g, grp, s, run, gr, err, err_size, &e->node)
                    : group_compile(g, grp, s, false, &gr->one, err, err_size, &e->node);
        if (r < 0) {
                group_free(gr);
                return r;
        }
        *ret_prepared = gr;
        return 0;
}

/* Boundary pointers are the executor's arena or caller buffers
 * (rt_interp_set_tensor_buffer()), or the group's own buffers between its
 * steps; when one changes, the runtime is set up again with the new
 * external values (cheap: no recompilation). */
static int runtime_execute(prepared_t *pr, const rt_driver_graph_t *g, char *err, size_t err_size) {
        bool changed = !pr->set_up;
        for (int32_t k = 0; k < pr->n_ext; k++) {
                void *data = pr->fixed && pr->fixed[k] ? pr->fixed[k] : g->tensors[pr->ext[k]].data;
                if (!data) {
                        snprintf(err, err_size, "tensor %d has no storage", pr->ext[k]);
                        return -EINVAL;
                }
                if (data != pr->last_ptrs[k])
                        changed = true;
                pr->values[k] = (struct xnn_external_value) { .id = (uint32_t) k, .data = data };
                pr->last_ptrs[k] = data;
        }
        enum xnn_status st;
        if (changed) {
                st = xnn_setup_runtime(pr->runtime, (size_t) pr->n_ext, pr->values);
                if (st != xnn_status_success) {
                        snprintf(err, err_size, "xnn_setup_runtime failed (status %d)", (int) st);
                        return rt__xnn_status_to_errno(st);
                }
                pr->set_up = true;
        }
        st = xnn_invoke_runtime(pr->runtime);
        if (st != xnn_status_success) {
                snprintf(err, err_size, "xnn_invoke_runtime failed (status %d)", (int) st);
                return rt__xnn_status_to_errno(st);
        }
        return 0;
}

static int steps_execute(group_t *gr, const rt_driver_graph_t *g, char *err, size_t err_size) {
        if (gr->one)
                return runtime_execute(gr->one, g, err, err_size);
        for (int32_t i = 0; i < gr->n_steps; i++) {
                step_t *sp = &gr->steps[i];
                if (sp->xnn) {
                        int r = runtime_execute(sp->xnn, g, err, err_size);
                        if (r < 0)
                                return r;
                        continue;
                }
                for (int32_t k = 0; k < rt__xnn_native_n_inputs(sp->native); k++) {
                        int32_t in = rt__xnn_native_input(sp->native, k);
                        const void *src = inner_data(gr, in);
                        if (!src)
                                src = g->tensors[in].data;
                        if (!src) {
                                snprintf(err, err_size, "tensor %d has no storage", in);
                                return -EINVAL;
                        }
                        sp->srcs[k] = src;
                }
                int32_t out = rt__xnn_native_output(sp->native);
                void *dst = inner_data(gr, out);
                if (!dst)
                        dst = g->tensors[out].data;
                if (!dst) {
                        snprintf(err, err_size, "tensor %d has no storage", out);
                        return -EINVAL;
                }
                rt__xnn_native_run(sp->native, gr->pool, sp->srcs, dst, false);
        }
        return 0;
}

static int group_run(group_t *gr, const rt_driver_graph_t *g, char *err, size_t err_size) {
#if defined(__SSE__)
        /* TensorFlow Lite runs Interpreter::Invoke, its XNNPACK delegate
         * included, with subnormals flushed (ruy::ScopedSuppressDenormals:
         * FTZ and DAZ on x86); so does this group. Through
         * rt_interp_invoke() they are set already: no second write of
         * MXCSR (a slow instruction) on the way in and out. */
        const unsigned int csr = _mm_getcsr();
        if ((csr & 0x8040u) == 0x8040u)
                return steps_execute(gr, g, err, err_size);
        _mm_setcsr(csr | 0x8040u);
        int r = steps_execute(gr, g, err, err_size);
        _mm_setcsr(csr);
        return r;
#else
        return steps_execute(gr, g, err, err_size);
#endif
}

static int xnn_execute(void *p, const rt_driver_graph_t *g, char *err, size_t err_size) {
        group_t *gr = p;
        pthreadpool_t pool = gr->one ? gr->one->pool : gr->pool;
        rt__xnn_pool_enter(pool);
        /* The group's parallel calls, numbered per invoke: the pool learns
         * which run faster on this thread alone (threadpool/schedule.c). */
        if (pool && !gr->sched)
                gr->sched = rt_threadpool_schedule_new();
        rt_threadpool_invoke_begin(pool, gr->sched);
        int r = group_run(gr, g, err, err_size);
        rt_threadpool_invoke_end(pool);
        rt__xnn_pool_leave(pool);
        return r;
}

static const rt_driver_t xnnpack_driver = {
        .abi_version = RT_DRIVER_ABI_VERSION,
        .name = "xnnpack",
        .version = "xnnpack-2022.02",
        .type = RT_DRIVER_TYPE_CPU,
        .calibrate = rt__xnn_calibrate,
        .supported_ops = xnn_supported,
        .prepare = xnn_prepare,
        .execute = xnn_execute,
        .release = group_free,
};

const rt_driver_t *rt_driver_xnnpack(void) {
        return &xnnpack_driver;
}
