/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "arena.h"
#include "shm.h"
#include "executor.h"

#define RT__STR2(x) #x
#define RT__STR(x) RT__STR2(x)

typedef enum phase {
        PHASE_IDLE,
        PHASE_PREPARE,
        PHASE_INVOKE,
} phase_t;

typedef struct scratch {
        int32_t node;    /* node index; -1 = free slot */
        int32_t pos;     /* plan position */
        size_t bytes;
        size_t offset;   /* in the arena, when heap == NULL */
        void *heap;      /* requested at invoke time (deferred nodes) */
} scratch_t;

struct rt_exec {
        rt_graph_t graph;
        rt_context_t ctx;
        phase_t phase;
        bool allocated;
        int32_t cur_pos;       /* plan position of the running node, -1 outside */
        bool *deferred;        /* per plan position */
        uint8_t *arena;
        size_t arena_bytes;    /* planned size */
        size_t arena_cap;      /* allocated size */
        bool shared_arena;     /* arena from rt_shm_alloc() (shm.h) */
        bool preserve_all;     /* no tensor shares arena bytes with another */
        uint64_t arena_shm;    /* its registry id, 0 otherwise */
        scratch_t *scratch;
        size_t n_scratch;
        size_t cap_scratch;
        bool profiling;
        rt_exec_profile_t *profile;
        size_t n_profile;
        const rt_exec_host_t *host; /* multi-subgraph support, or NULL */
        const struct rt_driver_weights *weights;  /* drivers' weights-cache hook, or NULL */
        int32_t *vars;         /* indices of the variable tensors, in tensor order */
        int32_t n_vars;
        char kerr[512];        /* the kernel's last message */
        char err[768];
};

__attribute__((format(printf, 2, 3)))
static int fail(rt_exec_t *e, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(e->err, sizeof(e->err), fmt, ap);
        va_end(ap);
        return 0;
}

const char *rt_exec_node_name(const rt_node_t *n) {
        if (n->op == RT_OP_CUSTOM)
                return n->custom_name ? n->custom_name : "CUSTOM";
        if (n->reg && n->reg->name)
                return n->reg->name;
        return rt_op_name(n->op);
}

/* Report a failing hook with the node prefix and the kernel's sentence. */
static int node_fail(rt_exec_t *e, const rt_node_t *n, const char *hook, int r) {
        if (e->kerr[0])
                fail(e, "node %d (%s): %s", n->index, rt_exec_node_name(n), e->kerr);
        else
                fail(e, "node %d (%s): %s failed: %s", n->index, rt_exec_node_name(n), hook,
                     strerror(-r));
        e->kerr[0] = 0;
        return r < 0 ? r : -EINVAL;
}

static bool is_heap(const rt_tensor_meta_t *m) {
        return m->dynamic || m->deferred;
}

/* ---- rt_context_t ---- */

static int ctx_resize(rt_context_t *ctx, int32_t index, int32_t rank, const int32_t *dims) {
        rt_exec_t *e = ctx->impl;
        rt_graph_t *g = &e->graph;
        if (index < 0 || index >= g->n_tensors || rank < 0 || rank > RT_MAX_RANK || (rank > 0 && !dims))
                return -EINVAL;
        for (int32_t i = 0; i < rank; i++)
                if (dims[i] < 0)
                        return -EINVAL;
        rt_tensor_t *t = &g->tensors[index];
        rt_tensor_meta_t *m = &g->meta[index];
        if (t->alloc == RT_ALLOC_CONST) {
                snprintf(e->kerr, sizeof(e->kerr), "cannot resize constant tensor %d '%s'", index,
                         t->name);
                return -EINVAL;
        }
        rt_tensor_t next = *t;
        next.rank = rank;
        if (rank > 0)
                memcpy(next.dims, dims, sizeof(int32_t) * (size_t) rank);
        bool overflow = false;
        size_t bytes = rt_graph_tensor_bytes(&next, &overflow);
        if (overflow) {
                snprintf(e->kerr, sizeof(e->kerr), "tensor %d '%s': size overflows", index, t->name);
                return -EINVAL;
        }
        if (e->phase == PHASE_INVOKE && t->type != RT_TYPE_STRING) {
                if (is_heap(m) && !t->is_variable) {
                        if (bytes > m->heap_bytes || !m->heap) {
                                void *p = calloc(1, bytes ? bytes : 1);
                                if (!p)
                                        return -ENOMEM;
                                free(m->heap);
                                m->heap = p;
                                m->heap_bytes = bytes;
                        }
                        t->data = m->heap;
                        t->alloc = RT_ALLOC_DYNAMIC;
                } else {
                        size_t cap = t->is_variable ? m->heap_bytes
                                     : m->custom     ? m->custom_bytes
                                     : (m->in_arena ? m->arena_bytes : 0);
                        if (bytes > cap) {
                                snprintf(e->kerr, sizeof(e->kerr),
                                         "tensor %d '%s' grows from %zu to %zu bytes during invoke; a kernel "
                                         "must mark such outputs dynamic in prepare",
                                         index, t->name, cap, bytes);
                                return -EINVAL;
                        }
                }
                t->bytes = bytes;
        } else if (t->type != RT_TYPE_STRING && !is_heap(m)) {
                t->bytes = bytes;
        }
        t->rank = rank;
        memcpy(t->dims, next.dims, sizeof(t->dims));
        return 0;
}

static int ctx_set_dynamic(rt_context_t *ctx, int32_t index) {
        rt_exec_t *e = ctx->impl;
        rt_graph_t *g = &e->graph;
        if (index < 0 || index >= g->n_tensors)
                return -EINVAL;
        rt_tensor_t *t = &g->tensors[index];
        if (t->alloc == RT_ALLOC_CONST || t->is_variable)
                return -EINVAL;
        g->meta[index].dynamic = true;
        t->alloc = RT_ALLOC_DYNAMIC;
        return 0;
}

static int ctx_request_scratch(rt_context_t *ctx, rt_node_t *node, size_t bytes, int32_t *ret_id) {
        rt_exec_t *e = ctx->impl;
        if (!node || !ret_id || e->phase == PHASE_IDLE)
                return -EINVAL;
        size_t slot = e->n_scratch;
        for (size_t i = 0; i < e->n_scratch; i++)
                if (e->scratch[i].node < 0) {
                        slot = i;
                        break;
                }
        if (slot == e->n_scratch) {
                if (slot > INT32_MAX - 1)
                        return -ENOMEM;
                if (e->n_scratch == e->cap_scratch) {
                        size_t cap = e->cap_scratch ? e->cap_scratch * 2 : 16;
                        scratch_t *s = realloc(e->scratch, cap * sizeof(*s));
                        if (!s)
                                return -ENOMEM;
                        e->scratch = s;
                        e->cap_scratch = cap;
                }
                e->n_scratch++;
        }
        scratch_t *s = &e->scratch[slot];
        *s = (scratch_t) { .node = node->index, .pos = e->cur_pos, .bytes = bytes };
        if (e->phase == PHASE_INVOKE) {
                /* The arena is planned already: a deferred node's scratch
                 * lives on the heap. */
                s->heap = calloc(1, bytes ? bytes : 1);
                if (!s->heap) {
                        s->node = -1;
                        return -ENOMEM;
                }
        }
        *ret_id = (int32_t) slot;
        return 0;
}

static void *ctx_get_scratch(rt_context_t *ctx, rt_node_t *node, int32_t id) {
        rt_exec_t *e = ctx->impl;
        if (!node || id < 0 || (size_t) id >= e->n_scratch)
                return NULL;
        scratch_t *s = &e->scratch[id];
        if (s->node != node->index)
                return NULL;
        if (s->heap)
                return s->heap;
        return e->arena ? e->arena + s->offset : NULL;
}

static void ctx_verror(rt_context_t *ctx, const char *fmt, va_list ap) {
        rt_exec_t *e = ctx->impl;
        vsnprintf(e->kerr, sizeof(e->kerr), fmt, ap);
}

/* ---- other subgraphs and resources, through the host ---- */

static int ctx_subgraph_io(rt_context_t *ctx, int32_t subgraph, int32_t *ret_n_inputs,
                           int32_t *ret_n_outputs) {
        rt_exec_t *e = ctx->impl;
        if (!e->host || !e->host->subgraph_io) {
                snprintf(e->kerr, sizeof(e->kerr), "this graph cannot run other subgraphs");
                return -ENOTSUP;
        }
        return e->host->subgraph_io(e->host->user, subgraph, ret_n_inputs, ret_n_outputs, e->kerr,
                                    sizeof(e->kerr));
}

static int ctx_call_subgraph(rt_context_t *ctx, int32_t subgraph, const rt_tensor_t *const *inputs,
                             int32_t n_inputs, const rt_tensor_t **ret_outputs, int32_t n_outputs) {
        rt_exec_t *e = ctx->impl;
        if (!e->host || !e->host->call_subgraph) {
                snprintf(e->kerr, sizeof(e->kerr), "this graph cannot run other subgraphs");
                return -ENOTSUP;
        }
        return e->host->call_subgraph(e->host->user, subgraph, inputs, n_inputs, ret_outputs, n_outputs,
                                      e->kerr, sizeof(e->kerr));
}

static int32_t ctx_resource_id(rt_context_t *ctx, const char *container, const char *shared_name) {
        rt_exec_t *e = ctx->impl;
        if (!e->host || !e->host->resource_id) {
                snprintf(e->kerr, sizeof(e->kerr), "this graph has no resource variables");
                return -ENOTSUP;
        }
        return e->host->resource_id(e->host->user, container, shared_name);
}

static const rt_tensor_t *ctx_resource_read(rt_context_t *ctx, int32_t id) {
        rt_exec_t *e = ctx->impl;
        if (!e->host || !e->host->resource_read)
                return NULL;
        return e->host->resource_read(e->host->user, id);
}

static int ctx_resource_assign(rt_context_t *ctx, int32_t id, const rt_tensor_t *value) {
        rt_exec_t *e = ctx->impl;
        if (!e->host || !e->host->resource_assign) {
                snprintf(e->kerr, sizeof(e->kerr), "this graph has no resource variables");
                return -ENOTSUP;
        }
        return e->host->resource_assign(e->host->user, id, value, e->kerr, sizeof(e->kerr));
}

static void *ctx_resource_object(rt_context_t *ctx, const char *kind, int32_t id, size_t size,
                                 void (*destroy)(void *obj)) {
        rt_exec_t *e = ctx->impl;
        if (!e->host || !e->host->resource_object)
                return NULL;
        return e->host->resource_object(e->host->user, kind, id, size, destroy);
}

void rt_exec_set_weights(rt_exec_t *e, const struct rt_driver_weights *w) {
        if (e)
                e->weights = w;
}

const struct rt_driver_weights *rt_exec_weights(const rt_exec_t *e) {
        return e ? e->weights : NULL;
}

void rt_exec_set_host(rt_exec_t *e, const rt_exec_host_t *host) {
        if (e)
                e->host = host;
}

static void scratch_drop(rt_exec_t *e, int32_t node) {
        for (size_t i = 0; i < e->n_scratch; i++) {
                if (node >= 0 && e->scratch[i].node != node)
                        continue;
                free(e->scratch[i].heap);
                e->scratch[i].heap = NULL;
                e->scratch[i].node = -1;
        }
        if (node < 0)
                e->n_scratch = 0;
}

/* ---- construction ---- */

int rt_exec_new(const rt_model_t *m, int32_t subgraph, const rt_resolver_t *r, rt_exec_t **ret,
                char *err, size_t err_size) {
        if (!m || !r || !ret)
                return -EINVAL;
        rt_exec_t *e = calloc(1, sizeof(*e));
        if (!e)
                return -ENOMEM;
        e->cur_pos = -1;
        e->ctx.impl = e;
        e->ctx.resize = ctx_resize;
        e->ctx.set_dynamic = ctx_set_dynamic;
        e->ctx.request_scratch = ctx_request_scratch;
        e->ctx.get_scratch = ctx_get_scratch;
        e->ctx.verror = ctx_verror;
        e->ctx.subgraph_io = ctx_subgraph_io;
        e->ctx.call_subgraph = ctx_call_subgraph;
        e->ctx.resource_id = ctx_resource_id;
        e->ctx.resource_read = ctx_resource_read;
        e->ctx.resource_assign = ctx_resource_assign;
        e->ctx.resource_object = ctx_resource_object;
        int k = rt_graph_build(&e->graph, m, subgraph, r, e->err, sizeof(e->err));
        if (k < 0)
                goto error;
        rt_graph_t *g = &e->graph;
        e->ctx.tensors = g->tensors;
        e->ctx.n_tensors = g->n_tensors;
        e->deferred = calloc((size_t) g->n_nodes + 1, sizeof(bool));
        e->vars = calloc((size_t) g->n_tensors + 1, sizeof(int32_t));
        if (!e->deferred || !e->vars) {
                k = -ENOMEM;
                fail(e, "out of memory");
                goto error;
        }
        for (int32_t i = 0; i < g->n_tensors; i++)
                if (g->tensors[i].is_variable)
                        e->vars[e->n_vars++] = i;
        for (int32_t i = 0; i < g->n_nodes; i++) {
                rt_node_t *n = &g->nodes[i];
                const rt_registration_t *reg = n->reg;
                if (reg->params_size > 0) {
                        n->params = calloc(1, reg->params_size);
                        if (!n->params) {
                                k = -ENOMEM;
                                fail(e, "out of memory");
                                goto error;
                        }
                }
                e->kerr[0] = 0;
                if (reg->parse) {
                        k = reg->parse(n, n->params, &e->ctx);
                        if (k < 0) {
                                k = node_fail(e, n, "parse", k);
                                goto error;
                        }
                }
                if (reg->init) {
                        k = reg->init(&e->ctx, n, &n->user_data);
                        if (k < 0) {
                                k = node_fail(e, n, "init", k);
                                goto error;
                        }
                }
        }
        *ret = e;
        return 0;
error:
        if (err && err_size)
                snprintf(err, err_size, "%s", e->err);
        rt_exec_free(e);
        return k;
}

static void arena_free(rt_exec_t *e) {
        if (e->arena_shm)
                rt_shm_free(e->arena, e->arena_cap, e->arena_shm);
        else
                free(e->arena);
        e->arena = NULL;
        e->arena_cap = 0;
        e->arena_shm = 0;
}

/* e->arena of cap bytes (NULL on failure): from the heap, or a shared
 * block another process can map (page-aligned, so RT_ARENA_ALIGN too). */
static void arena_alloc(rt_exec_t *e, size_t cap) {
        if (e->shared_arena) {
                e->arena = rt_shm_alloc(cap, "acceld-arena", &e->arena_shm);
                if (!e->arena)
                        e->arena_shm = 0;
        } else {
                e->arena = aligned_alloc(RT_ARENA_ALIGN, cap);
        }
}

rt_exec_t *rt_exec_free(rt_exec_t *e) {
        if (!e)
                return NULL;
        rt_graph_t *g = &e->graph;
        for (int32_t i = 0; g->nodes && i < g->n_nodes; i++) {
                rt_node_t *n = &g->nodes[i];
                if (n->reg && n->reg->free && n->user_data)
                        n->reg->free(&e->ctx, n->user_data);
                n->user_data = NULL;
        }
        scratch_drop(e, -1);
        free(e->scratch);
        arena_free(e);
        free(e->deferred);
        free(e->vars);
        free(e->profile);
        rt_graph_done(g);
        free(e);
        return NULL;
}

rt_graph_t *rt_exec_graph(rt_exec_t *e) {
        return e ? &e->graph : NULL;
}

const char *rt_exec_error(const rt_exec_t *e) {
        return e ? e->err : "";
}

size_t rt_exec_arena_bytes(const rt_exec_t *e) {
        return e ? e->arena_bytes : 0;
}

bool rt_exec_needs_allocate(const rt_exec_t *e) {
        return !e || !e->allocated;
}

int rt_exec_add_node(rt_exec_t *e, const rt_registration_t *reg, const int32_t *inputs, int32_t n_inputs,
                     const int32_t *outputs, int32_t n_outputs, void *params, int32_t *ret_index) {
        if (!e || !reg || !ret_index)
                return -EINVAL;
        rt_graph_t *g = &e->graph;
        int32_t i = rt_graph_add_node(g, reg, inputs, n_inputs, outputs, n_outputs, params);
        if (i < 0) {
                fail(e, "cannot add node '%s': %s", reg->name ? reg->name : "?", strerror(-i));
                return i;
        }
        rt_node_t *n = &g->nodes[i];
        if (reg->init) {
                e->kerr[0] = 0;
                int k = reg->init(&e->ctx, n, &n->user_data);
                if (k < 0) {
                        /* Keep the node (it is harmless outside the plan). */
                        n->user_data = NULL;
                        return node_fail(e, n, "init", k);
                }
        }
        e->allocated = false;
        *ret_index = i;
        return 0;
}

int rt_exec_set_plan(rt_exec_t *e, const int32_t *plan, int32_t n) {
        if (!e)
                return -EINVAL;
        bool *deferred = calloc((size_t) n + 1, sizeof(bool));
        if (!deferred)
                return -ENOMEM;
        int k = rt_graph_set_plan(&e->graph, plan, n, e->err, sizeof(e->err));
        if (k < 0) {
                free(deferred);
                return k;
        }
        free(e->deferred);
        e->deferred = deferred;
        free(e->profile);
        e->profile = NULL;
        e->n_profile = 0;
        e->allocated = false;
        return 0;
}

static bool inputs_const(const rt_graph_t *g, const rt_node_t *n) {
        for (int32_t k = 0; k < n->n_inputs; k++)
                if (n->inputs[k] >= 0 && g->tensors[n->inputs[k]].alloc != RT_ALLOC_CONST)
                        return false;
        for (int32_t k = 0; k < n->n_outputs; k++) {
                const rt_tensor_t *t = &g->tensors[n->outputs[k]];
                if (t->is_variable || t->type == RT_TYPE_STRING || g->meta[n->outputs[k]].graph_input)
                        return false;
        }
        return n->n_outputs > 0 && n->reg && n->reg->invoke;
}

int rt_exec_fold_constants(rt_exec_t *e, bool (*want)(const rt_node_t *n, void *user), void *user) {
        rt_exec_fold_ops_t ops = { .want = want, .user = user };
        return rt_exec_fold(e, &ops);
}

/* Output storage of a folded node: what ops->supply has (no compute
 * needed), else a fresh heap block. 1 supplied, 0 heap, -ENOMEM. */
static int fold_outputs(rt_exec_t *e, const rt_node_t *n, const rt_exec_fold_ops_t *ops) {
        rt_graph_t *g = &e->graph;
        bool supplied = ops->supply != NULL;
        const void *have[8] = { 0 };
        if (n->n_outputs > (int32_t) (sizeof(have) / sizeof(have[0])))
                supplied = false;
        for (int32_t o = 0; o < n->n_outputs && supplied; o++) {
                const rt_tensor_t *t = &g->tensors[n->outputs[o]];
                bool overflow = false;
                size_t bytes = rt_graph_tensor_bytes(t, &overflow);
                have[o] = overflow ? NULL : ops->supply(n, n->outputs[o], t, bytes, ops->user);
                supplied = have[o] != NULL;
        }
        for (int32_t o = 0; o < n->n_outputs; o++) {
                rt_tensor_t *t = &g->tensors[n->outputs[o]];
                rt_tensor_meta_t *m = &g->meta[n->outputs[o]];
                bool overflow = false;
                size_t bytes = rt_graph_tensor_bytes(t, &overflow);
                void *p = NULL;
                if (!supplied) {
                        p = overflow ? NULL : aligned_alloc(RT_ARENA_ALIGN, rt_arena_align(bytes ? bytes : 1));
                        if (!p) {
                                fail(e, "node %d (%s): no memory to fold its output", n->index, rt_exec_node_name(n));
                                return -ENOMEM;
                        }
                        memset(p, 0, bytes);
                }
                free(m->heap);
                m->heap = p;
                m->heap_bytes = p ? bytes : 0;
                t->data = supplied ? (void *) have[o] : p;
                t->bytes = bytes;
        }
        return supplied ? 1 : 0;
}

int rt_exec_fold(rt_exec_t *e, const rt_exec_fold_ops_t *ops) {
        if (!e || !ops || !ops->want)
                return -EINVAL;
        rt_graph_t *g = &e->graph;
        int32_t *plan = malloc(((size_t) g->n_plan + 1) * sizeof(int32_t));
        if (!plan)
                return -ENOMEM;
        int32_t n_plan = 0, folded = 0;
        int k = 0;
        for (int32_t pos = 0; pos < g->n_plan; pos++) {
                rt_node_t *n = &g->nodes[g->plan[pos]];
                if (!inputs_const(g, n) || !ops->want(n, ops->user)) {
                        plan[n_plan++] = g->plan[pos];
                        continue;
                }
                /* Prepare sets the output shapes (phase PREPARE: shapes only),
                 * then the outputs get storage and, unless it came filled,
                 * the kernel runs. */
                e->phase = PHASE_PREPARE;
                e->cur_pos = pos;
                e->kerr[0] = 0;
                if (n->reg->prepare && (k = n->reg->prepare(&e->ctx, n)) < 0) {
                        k = node_fail(e, n, "prepare", k);
                        break;
                }
                int supplied = fold_outputs(e, n, ops);
                if (supplied < 0) {
                        k = supplied;
                        break;
                }
                if (!supplied) {
                        scratch_drop(e, n->index);
                        k = n->reg->invoke(&e->ctx, n);
                        scratch_drop(e, n->index);
                        if (k < 0) {
                                k = node_fail(e, n, "invoke", k);
                                break;
                        }
                }
                for (int32_t o = 0; o < n->n_outputs; o++)
                        g->tensors[n->outputs[o]].alloc = RT_ALLOC_CONST;
                if (ops->folded)
                        ops->folded(n, supplied == 1, ops->user);
                folded++;
        }
        e->phase = PHASE_IDLE;
        e->cur_pos = -1;
        if (k >= 0 && folded > 0)
                k = rt_exec_set_plan(e, plan, n_plan);
        free(plan);
        return k < 0 ? k : folded;
}

int rt_exec_adopt_const(rt_exec_t *e, int32_t tensor, const void *data, size_t bytes) {
        if (!e || tensor < 0 || tensor >= e->graph.n_tensors || !data)
                return -EINVAL;
        rt_tensor_t *t = &e->graph.tensors[tensor];
        rt_tensor_meta_t *m = &e->graph.meta[tensor];
        if (t->alloc != RT_ALLOC_CONST || bytes != t->bytes)
                return -EINVAL;
        free(m->heap);
        m->heap = NULL;
        m->heap_bytes = 0;
        t->data = (void *) data;
        return 0;
}

int rt_exec_resize_tensor(rt_exec_t *e, int32_t tensor, int32_t rank, const int32_t *dims) {
        if (!e)
                return -EINVAL;
        e->kerr[0] = 0;
        phase_t saved = e->phase;
        e->phase = PHASE_PREPARE;  /* shape only, storage comes at allocate */
        int k = ctx_resize(&e->ctx, tensor, rank, dims);
        e->phase = saved;
        if (k < 0) {
                if (e->kerr[0])
                        fail(e, "%s", e->kerr);
                else
                        fail(e, "tensor %d: invalid shape", tensor);
                return k;
        }
        e->allocated = false;
        return 0;
}

/* ---- allocate ---- */

static void lifetimes_compute(rt_graph_t *g, bool preserve_all) {
        for (int32_t i = 0; i < g->n_tensors; i++) {
                rt_tensor_meta_t *m = &g->meta[i];
                m->used = m->graph_input || m->graph_output;
                m->producer = -1;
                m->first_use = m->graph_input ? 0 : -1;
                m->last_use = m->graph_input ? 0 : -1;
        }
        for (int32_t pos = 0; pos < g->n_plan; pos++) {
                const rt_node_t *n = &g->nodes[g->plan[pos]];
                for (int pass = 0; pass < 2; pass++) {
                        const int32_t *idx = pass ? n->outputs : n->inputs;
                        int32_t cnt = pass ? n->n_outputs : n->n_inputs;
                        for (int32_t k = 0; k < cnt; k++) {
                                if (idx[k] < 0)
                                        continue;
                                rt_tensor_meta_t *m = &g->meta[idx[k]];
                                m->used = true;
                                if (m->first_use < 0)
                                        m->first_use = pos;
                                if (pos > m->last_use)
                                        m->last_use = pos;
                                if (pass && m->producer < 0)
                                        m->producer = pos;
                        }
                }
        }
        int32_t end = g->n_plan > 0 ? g->n_plan - 1 : 0;
        for (int32_t i = 0; i < g->n_tensors; i++) {
                rt_tensor_meta_t *m = &g->meta[i];
                /* Like TFLite, never reuse graph inputs (a caller may copy
                 * in once and invoke many times) or outputs. */
                if (m->graph_output || m->graph_input)
                        m->last_use = end;
                /* Preserving every tensor (TFLite's preserve_all_tensors):
                 * each lives through the whole plan, so none is reused
                 * and all keep their last values after an invoke. */
                if (preserve_all && m->used) {
                        m->first_use = 0;
                        m->last_use = end;
                }
                if (m->used && m->first_use < 0)
                        m->first_use = 0;
                if (m->last_use < m->first_use)
                        m->last_use = m->first_use;
        }
}

/* A variable tensor's initial value in `data` (`bytes` long): the contents
 * of its buffer when the model gives it one of that size, else zero (int8:
 * its zero point, as TFLite's ResetVariableTensor does). */
static void variable_init(const rt_graph_t *g, int32_t i, void *data, size_t bytes) {
        const rt_tensor_t *t = &g->tensors[i];
        const rt_model_tensor_t *mt = g->meta[i].model;
        if (mt && mt->data && mt->data_bytes == bytes) {
                memcpy(data, mt->data, bytes);
                return;
        }
        memset(data, t->type == RT_TYPE_INT8 ? t->zero_point : 0, bytes);
}

static int prepare_nodes(rt_exec_t *e) {
        rt_graph_t *g = &e->graph;
        for (int32_t pos = 0; pos < g->n_plan; pos++) {
                rt_node_t *n = &g->nodes[g->plan[pos]];
                bool deferred = false;
                for (int32_t k = 0; k < n->n_inputs && !deferred; k++) {
                        if (n->inputs[k] < 0)
                                continue;
                        const rt_tensor_meta_t *m = &g->meta[n->inputs[k]];
                        deferred = m->deferred || (m->dynamic && m->producer >= 0 && m->producer < pos);
                }
                e->deferred[pos] = deferred;
                if (deferred) {
                        for (int32_t k = 0; k < n->n_outputs; k++) {
                                rt_tensor_t *t = &g->tensors[n->outputs[k]];
                                if (!t->is_variable && t->alloc != RT_ALLOC_CONST)
                                        g->meta[n->outputs[k]].deferred = true;
                        }
                        continue;
                }
                if (!n->reg->prepare)
                        continue;
                e->cur_pos = pos;
                e->kerr[0] = 0;
                int k = n->reg->prepare(&e->ctx, n);
                if (k < 0)
                        return node_fail(e, n, "prepare", k);
        }
        e->cur_pos = -1;
        return 0;
}

void rt_exec_set_shared_arena(rt_exec_t *e, bool shared) {
        if (!e || e->shared_arena == shared)
                return;
        e->shared_arena = shared;
        /* The next allocate places the arena where it now belongs. */
        arena_free(e);
        e->allocated = false;
}

void rt_exec_set_preserve_all(rt_exec_t *e, bool preserve) {
        if (!e || e->preserve_all == preserve)
                return;
        e->preserve_all = preserve;
        e->allocated = false;
}

static int arena_place(rt_exec_t *e) {
        rt_graph_t *g = &e->graph;
        size_t n_items = 0;
        rt_arena_item_t *items = calloc((size_t) g->n_tensors + e->n_scratch + 1, sizeof(*items));
        int32_t *owner = calloc((size_t) g->n_tensors + e->n_scratch + 1, sizeof(int32_t));
        if (!items || !owner) {
                free(items);
                free(owner);
                return -ENOMEM;
        }
        for (int32_t i = 0; i < g->n_tensors; i++) {
                rt_tensor_t *t = &g->tensors[i];
                rt_tensor_meta_t *m = &g->meta[i];
                m->in_arena = false;
                if (!m->used || t->alloc == RT_ALLOC_CONST || t->is_variable || is_heap(m) || m->custom)
                        continue;
                bool overflow = false;
                size_t bytes = rt_graph_tensor_bytes(t, &overflow);
                if (overflow) {
                        free(items);
                        free(owner);
                        fail(e, "tensor %d '%s': size overflows", i, t->name);
                        return -EINVAL;
                }
                items[n_items] = (rt_arena_item_t) { bytes, m->first_use, m->last_use, 0 };
                owner[n_items++] = i;
        }
        for (size_t s = 0; s < e->n_scratch; s++) {
                if (e->scratch[s].node < 0 || e->scratch[s].heap)
                        continue;
                int32_t pos = e->scratch[s].pos < 0 ? 0 : e->scratch[s].pos;
                items[n_items] = (rt_arena_item_t) { e->scratch[s].bytes, pos, pos, 0 };
                owner[n_items++] = -1 - (int32_t) s;
        }
        size_t total = 0;
        int k = rt_arena_plan(items, n_items, &total);
        if (k < 0) {
                free(items);
                free(owner);
                fail(e, "arena planning failed: %s", strerror(-k));
                return k;
        }
        if (total > e->arena_cap || !e->arena) {
                arena_free(e);
                size_t cap = total ? total : RT_ARENA_ALIGN;
                arena_alloc(e, cap);
                if (!e->arena) {
                        free(items);
                        free(owner);
                        fail(e, "cannot allocate a %zu-byte arena", cap);
                        return -ENOMEM;
                }
                e->arena_cap = cap;
        }
        memset(e->arena, 0, e->arena_cap);
        e->arena_bytes = total;
        for (size_t j = 0; j < n_items; j++) {
                if (owner[j] < 0) {
                        e->scratch[-1 - owner[j]].offset = items[j].offset;
                        continue;
                }
                rt_tensor_t *t = &g->tensors[owner[j]];
                g->meta[owner[j]].in_arena = true;
                g->meta[owner[j]].arena_offset = items[j].offset;
                g->meta[owner[j]].arena_bytes = items[j].bytes;
                t->data = e->arena + items[j].offset;
                t->bytes = items[j].bytes;
                t->alloc = RT_ALLOC_ARENA;
        }
        free(items);
        free(owner);
        return 0;
}

static int heap_place(rt_exec_t *e) {
        rt_graph_t *g = &e->graph;
        for (int32_t i = 0; i < g->n_tensors; i++) {
                rt_tensor_t *t = &g->tensors[i];
                rt_tensor_meta_t *m = &g->meta[i];
                if (t->alloc == RT_ALLOC_CONST)
                        continue;
                if (t->is_variable) {
                        /* Exactly its size: rt_exec_vars_swap() trades
                         * these blocks with slots of the same size. */
                        size_t bytes = rt_graph_tensor_bytes(t, NULL);
                        if (!m->heap || m->heap_bytes != bytes) {
                                void *p = calloc(1, bytes ? bytes : 1);
                                if (!p) {
                                        fail(e, "out of memory for variable tensor %d", i);
                                        return -ENOMEM;
                                }
                                free(m->heap);
                                m->heap = p;
                                m->heap_bytes = bytes;
                        }
                        t->data = m->heap;
                        t->bytes = bytes;
                        t->alloc = RT_ALLOC_PERSISTENT;
                        variable_init(g, i, t->data, t->bytes);
                        continue;
                }
                if (m->custom) {
                        size_t need = rt_exec_tensor_buffer_bytes(e, i);
                        if (is_heap(m) || need > m->custom_bytes) {
                                fail(e, "tensor %d '%s': its caller buffer %s", i, t->name,
                                     is_heap(m) ? "cannot hold a dynamic tensor"
                                                : "is too small for its new shape");
                                return -EINVAL;
                        }
                        t->data = m->custom;
                        t->bytes = rt_graph_tensor_bytes(t, NULL);
                        t->alloc = RT_ALLOC_ARENA;
                        continue;
                }
                if (!is_heap(m)) {
                        if (!m->in_arena) {
                                t->data = NULL;
                                t->bytes = 0;
                                t->alloc = RT_ALLOC_NONE;
                        }
                        continue;
                }
                t->alloc = RT_ALLOC_DYNAMIC;
                if (t->type == RT_TYPE_STRING) {
                        /* Keeps what rt_interp_copy_in() or a kernel stored. */
                        t->data = m->heap;
                        t->bytes = m->heap ? m->heap_bytes : 0;
                } else {
                        /* Sized by the kernel at invoke time. */
                        t->data = NULL;
                        t->bytes = 0;
                }
        }
        return 0;
}

int rt_exec_allocate(rt_exec_t *e) {
        if (!e)
                return -EINVAL;
        rt_graph_t *g = &e->graph;
        e->allocated = false;
        e->err[0] = 0;
        scratch_drop(e, -1);
        for (int32_t i = 0; i < g->n_tensors; i++) {
                rt_tensor_meta_t *m = &g->meta[i];
                m->deferred = false;
                m->dynamic = g->tensors[i].type == RT_TYPE_STRING && g->tensors[i].alloc != RT_ALLOC_CONST;
                if (g->tensors[i].alloc == RT_ALLOC_DYNAMIC && !m->dynamic)
                        g->tensors[i].alloc = RT_ALLOC_NONE;
        }
        lifetimes_compute(g, e->preserve_all);
        e->phase = PHASE_PREPARE;
        int k = prepare_nodes(e);
        e->phase = PHASE_IDLE;
        if (k < 0)
                return k;
        k = arena_place(e);
        if (k < 0)
                return k;
        k = heap_place(e);
        if (k < 0)
                return k;
        e->allocated = true;
        return 0;
}

/* ---- variable tensors held by the caller ---- */

int32_t rt_exec_vars_count(const rt_exec_t *e) {
        return e ? e->n_vars : 0;
}

int rt_exec_vars_swap(rt_exec_t *e, rt_exec_vars_t *vars) {
        if (!e || !vars || (vars->n != 0 && vars->n != e->n_vars))
                return -EINVAL;
        rt_graph_t *g = &e->graph;
        for (int32_t k = 0; k < e->n_vars; k++)
                if (!g->meta[e->vars[k]].heap)
                        return 0;  /* never allocated: nothing to trade yet */
        if (e->n_vars == 0)
                return 0;
        if (vars->n == 0) {
                vars->v = calloc((size_t) e->n_vars, sizeof(*vars->v));
                if (!vars->v)
                        return -ENOMEM;
                vars->n = e->n_vars;
        }
        /* Every slot fits first, so that a failure leaves nothing traded. */
        for (int32_t k = 0; k < e->n_vars; k++) {
                size_t bytes = g->meta[e->vars[k]].heap_bytes;
                rt_exec_var_t *v = &vars->v[k];
                if (v->data && v->bytes == bytes)
                        continue;
                void *p = malloc(bytes ? bytes : 1);
                if (!p)
                        return -ENOMEM;
                free(v->data);
                *v = (rt_exec_var_t) { p, bytes };
                variable_init(g, e->vars[k], p, bytes);
        }
        for (int32_t k = 0; k < e->n_vars; k++) {
                rt_tensor_meta_t *m = &g->meta[e->vars[k]];
                rt_exec_var_t mine = { m->heap, m->heap_bytes };
                m->heap = vars->v[k].data;
                m->heap_bytes = vars->v[k].bytes;
                g->tensors[e->vars[k]].data = m->heap;
                vars->v[k] = mine;
        }
        return 1;
}

void rt_exec_vars_reset(rt_exec_t *e) {
        if (!e)
                return;
        rt_graph_t *g = &e->graph;
        for (int32_t k = 0; k < e->n_vars; k++) {
                rt_tensor_meta_t *m = &g->meta[e->vars[k]];
                if (m->heap)
                        variable_init(g, e->vars[k], m->heap, m->heap_bytes);
        }
}

size_t rt_exec_vars_bytes(const rt_exec_vars_t *vars) {
        size_t n = 0;
        for (int32_t k = 0; vars && k < vars->n; k++)
                n += vars->v[k].bytes;
        return n;
}

void rt_exec_vars_done(rt_exec_vars_t *vars) {
        if (!vars)
                return;
        for (int32_t k = 0; k < vars->n; k++)
                free(vars->v[k].data);
        free(vars->v);
        *vars = (rt_exec_vars_t) { 0 };
}

/* ---- caller buffers ---- */

static bool tensor_read_by_plan(const rt_graph_t *g, int32_t tensor) {
        if (g->meta[tensor].graph_input)
                return true;
        for (int32_t pos = 0; pos < g->n_plan; pos++) {
                const rt_node_t *n = &g->nodes[g->plan[pos]];
                for (int32_t k = 0; k < n->n_inputs; k++)
                        if (n->inputs[k] == tensor)
                                return true;
        }
        return false;
}

size_t rt_exec_tensor_buffer_bytes(const rt_exec_t *e, int32_t tensor) {
        if (!e || tensor < 0 || tensor >= e->graph.n_tensors)
                return 0;
        const rt_graph_t *g = &e->graph;
        size_t bytes = rt_graph_tensor_bytes(&g->tensors[tensor], NULL);
        return bytes + (tensor_read_by_plan(g, tensor) ? RT_BUFFER_SLACK : 0);
}

int rt_exec_set_tensor_buffer(rt_exec_t *e, int32_t tensor, void *data, size_t size) {
        if (!e)
                return -EINVAL;
        rt_graph_t *g = &e->graph;
        e->err[0] = 0;
        if (tensor < 0 || tensor >= g->n_tensors) {
                fail(e, "tensor %d out of range (%d tensors)", tensor, g->n_tensors);
                return -EINVAL;
        }
        rt_tensor_t *t = &g->tensors[tensor];
        rt_tensor_meta_t *m = &g->meta[tensor];
        if (!data) {
                if (!m->custom)
                        return 0;
                m->custom = NULL;
                m->custom_bytes = 0;
                if (!e->allocated)
                        return 0;
                if (m->in_arena) {
                        t->data = e->arena + m->arena_offset;
                        t->bytes = rt_graph_tensor_bytes(t, NULL);
                } else {
                        /* It left the arena at the last allocate. */
                        t->data = NULL;
                        t->bytes = 0;
                        t->alloc = RT_ALLOC_NONE;
                        e->allocated = false;
                }
                return 0;
        }
        if (t->alloc == RT_ALLOC_CONST || t->is_variable || t->type == RT_TYPE_STRING ||
            (e->allocated && is_heap(m))) {
                fail(e, "tensor %d '%s' is %s and cannot use a caller buffer", tensor, t->name,
                     t->alloc == RT_ALLOC_CONST ? "constant"
                     : t->is_variable          ? "a variable"
                     : t->type == RT_TYPE_STRING ? "a string tensor"
                                                 : "dynamic (sized at invoke)");
                return -EINVAL;
        }
        if ((uintptr_t) data % RT_BUFFER_ALIGN != 0) {
                fail(e, "tensor %d '%s': buffer %p is not %d-byte aligned", tensor, t->name, data,
                     RT_BUFFER_ALIGN);
                return -EINVAL;
        }
        size_t need = rt_exec_tensor_buffer_bytes(e, tensor);
        if (size < need) {
                fail(e, "tensor %d '%s': buffer of %zu bytes is too small, needs %zu (%zu of data%s)", tensor,
                     t->name, size, need, rt_graph_tensor_bytes(t, NULL),
                     need > rt_graph_tensor_bytes(t, NULL) ? " and " RT__STR(RT_BUFFER_SLACK) " of read slack" : "");
                return -EINVAL;
        }
        m->custom = data;
        m->custom_bytes = size;
        if (e->allocated) {
                t->data = data;
                t->bytes = rt_graph_tensor_bytes(t, NULL);
                t->alloc = RT_ALLOC_ARENA;
        }
        return 0;
}

/* ---- invoke ---- */

/* Outputs of a node prepared at invoke time get heap storage of their shape. */
static int deferred_outputs_alloc(rt_exec_t *e, const rt_node_t *n) {
        rt_graph_t *g = &e->graph;
        for (int32_t k = 0; k < n->n_outputs; k++) {
                int32_t i = n->outputs[k];
                rt_tensor_t *t = &g->tensors[i];
                rt_tensor_meta_t *m = &g->meta[i];
                if (!m->deferred || m->dynamic || t->type == RT_TYPE_STRING)
                        continue;
                int r = ctx_resize(&e->ctx, i, t->rank, t->dims);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* String outputs: the kernel may have realloc()ed t->data; keep ours in sync. */
static void string_outputs_adopt(rt_exec_t *e, const rt_node_t *n) {
        rt_graph_t *g = &e->graph;
        for (int32_t k = 0; k < n->n_outputs; k++) {
                rt_tensor_t *t = &g->tensors[n->outputs[k]];
                rt_tensor_meta_t *m = &g->meta[n->outputs[k]];
                if (t->type != RT_TYPE_STRING || t->alloc == RT_ALLOC_CONST || t->is_variable)
                        continue;
                m->heap = t->data;
                m->heap_bytes = t->data ? t->bytes : 0;
                t->alloc = RT_ALLOC_DYNAMIC;
        }
}

int rt_exec_invoke(rt_exec_t *e) {
        if (!e)
                return -EINVAL;
        if (!e->allocated) {
                fail(e, "tensors are not allocated (call allocate after creating or resizing)");
                return -EINVAL;
        }
        rt_graph_t *g = &e->graph;
        if (e->profiling && e->n_profile != (size_t) g->n_plan) {
                rt_exec_profile_t *p = realloc(e->profile, ((size_t) g->n_plan + 1) * sizeof(*p));
                if (!p)
                        return -ENOMEM;
                e->profile = p;
                e->n_profile = (size_t) g->n_plan;
                for (int32_t pos = 0; pos < g->n_plan; pos++) {
                        const rt_node_t *n = &g->nodes[g->plan[pos]];
                        p[pos] = (rt_exec_profile_t) { .node = n->index, .op_name = rt_exec_node_name(n) };
                }
        }
        e->err[0] = 0;
        e->phase = PHASE_INVOKE;
        int k = 0;
        for (int32_t pos = 0; pos < g->n_plan; pos++) {
                rt_node_t *n = &g->nodes[g->plan[pos]];
                uint64_t t0 = e->profiling ? acc_now_us() : 0;
                e->cur_pos = pos;
                e->kerr[0] = 0;
                if (e->deferred[pos]) {
                        scratch_drop(e, n->index);
                        if (n->reg->prepare) {
                                k = n->reg->prepare(&e->ctx, n);
                                if (k < 0) {
                                        k = node_fail(e, n, "prepare", k);
                                        break;
                                }
                        }
                        k = deferred_outputs_alloc(e, n);
                        if (k < 0) {
                                k = node_fail(e, n, "allocate", k);
                                break;
                        }
                }
                if (n->reg->invoke) {
                        k = n->reg->invoke(&e->ctx, n);
                        string_outputs_adopt(e, n);
                        if (k < 0) {
                                k = node_fail(e, n, "invoke", k);
                                break;
                        }
                }
                if (e->profiling) {
                        uint64_t dt = acc_now_us() - t0;
                        e->profile[pos].last_us = dt;
                        e->profile[pos].total_us += dt;
                        e->profile[pos].runs++;
                }
        }
        e->cur_pos = -1;
        e->phase = PHASE_IDLE;
        return k;
}

int rt_exec_set_profiling(rt_exec_t *e, bool enable) {
        if (!e)
                return -EINVAL;
        e->profiling = enable;
        if (enable) {
                free(e->profile);
                e->profile = NULL;
                e->n_profile = 0;
        }
        return 0;
}

size_t rt_exec_profile(const rt_exec_t *e, const rt_exec_profile_t **ret) {
        if (!e || !ret)
                return 0;
        *ret = e->profile;
        return e->profile ? e->n_profile : 0;
}
