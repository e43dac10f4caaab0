/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The delegated node: each group of a delegation runs as one node of the
 * executor, compiled by its driver at allocation (following the
 * FallbackSettings when the driver refuses, down to splitting the group and
 * running parts on the reference kernels) and run by it at invoke.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "partition.h"
#include "rt.h"

typedef struct scratch_slot {
        size_t bytes;
        void *heap;
        int32_t node;
} scratch_slot_t;

typedef struct dnode dnode_t;

/* A run of a group's nodes (p->nodes[first .. first + count)), compiled
 * on its own when the whole group could not be. */
typedef struct piece {
        int32_t first;
        int32_t count;
        int32_t *inputs;
        int32_t n_inputs;
        int32_t *outputs;
        int32_t n_outputs;
        void *prepared;             /* NULL: the reference kernels */
        const rt_driver_t *runner;
} piece_t;

/* The context inner nodes see: scratch is ours (kept off the executor's
 * arena, used only when the group falls back to reference kernels). */
typedef struct proxy_ctx {
        rt_context_t ctx;
        dnode_t *dn;
} proxy_ctx_t;

struct dnode {
        rt_delegation_t *del;
        int32_t part;            /* index in del->parts */
        void *prepared;
        const rt_driver_t *runner; /* the driver that prepared `prepared` */
        bool fallback;             /* on the reference kernels */
        char why[400];             /* why the group is not run as asked, or "" */
        int32_t why_node;          /* the node `why` is about, or -1 */
        piece_t *pieces;           /* a split group: its pieces in order (else NULL) */
        int32_t n_pieces;
        int32_t shapes_rank[64]; /* shapes of the first inputs at the last compile */
        int32_t shapes[64][RT_MAX_RANK];
        bool compiled;
        int (*resize)(rt_context_t *ctx, int32_t index, int32_t rank, const int32_t *dims);
        scratch_slot_t *scratch;
        size_t n_scratch;
        void **heap;             /* per internal tensor, fallback storage */
        size_t *heap_bytes;
        int32_t *internal;
        int32_t n_internal;
        proxy_ctx_t proxy;
};

struct rt_delegation {
        const rt_driver_t *driver;
        const rt_driver_t *second;  /* tried when `driver` cannot compile a group, or NULL */
        rt_settings_t settings;
        rt_registration_t reg;
        char reg_name[64];
        rt_partition_set_t parts;
        dnode_t **dnodes;
        int32_t n_dnodes;
        char (*reasons)[RT_DRIVER_REASON_MAX];
        int32_t n_reasons;
        rt_exec_t *exec;
        char err[512];
};

static int proxy_request_scratch(rt_context_t *ctx, rt_node_t *node, size_t bytes, int32_t *ret_id) {
        dnode_t *dn = ((proxy_ctx_t *) ctx)->dn;
        scratch_slot_t *v = realloc(dn->scratch, (dn->n_scratch + 1) * sizeof(*v));
        if (!v)
                return -ENOMEM;
        dn->scratch = v;
        v[dn->n_scratch] = (scratch_slot_t) { .bytes = bytes, .node = node->index };
        *ret_id = (int32_t) dn->n_scratch++;
        return 0;
}

static void *proxy_get_scratch(rt_context_t *ctx, rt_node_t *node, int32_t id) {
        dnode_t *dn = ((proxy_ctx_t *) ctx)->dn;
        if (id < 0 || (size_t) id >= dn->n_scratch || dn->scratch[id].node != node->index)
                return NULL;
        scratch_slot_t *s = &dn->scratch[id];
        if (!s->heap)
                s->heap = calloc(1, s->bytes ? s->bytes : 1);
        return s->heap;
}

/* Tensors inside a group have no executor storage: their shapes are ours
 * to set at any phase; boundary outputs go through the executor. */
static int proxy_resize(rt_context_t *ctx, int32_t index, int32_t rank, const int32_t *dims) {
        dnode_t *dn = ((proxy_ctx_t *) ctx)->dn;
        const rt_partition_t *p = &dn->del->parts.v[dn->part];
        for (int32_t i = 0; i < p->n_outputs; i++)
                if (p->outputs[i] == index)
                        return dn->resize(ctx, index, rank, dims);
        if (index < 0 || index >= ctx->n_tensors || rank < 0 || rank > RT_MAX_RANK || (rank > 0 && !dims))
                return -EINVAL;
        rt_tensor_t *t = &ctx->tensors[index];
        if (t->alloc == RT_ALLOC_CONST)
                return -EINVAL;
        for (int32_t d = 0; d < rank; d++)
                if (dims[d] < 0)
                        return -EINVAL;
        t->rank = rank;
        if (rank > 0)
                memcpy(t->dims, dims, sizeof(int32_t) * (size_t) rank);
        return 0;
}

static int proxy_set_dynamic(rt_context_t *ctx, int32_t index) {
        (void) ctx;
        (void) index;
        return -ENOTSUP;
}

static void scratch_clear(dnode_t *dn) {
        for (size_t i = 0; i < dn->n_scratch; i++)
                free(dn->scratch[i].heap);
        free(dn->scratch);
        dn->scratch = NULL;
        dn->n_scratch = 0;
}

static rt_driver_graph_t driver_graph(rt_exec_t *e) {
        rt_graph_t *g = rt_exec_graph(e);
        return (rt_driver_graph_t) {
                .model = g->model,
                .tensors = g->tensors,
                .n_tensors = g->n_tensors,
                .nodes = g->nodes,
                .n_nodes = g->n_nodes,
                .weights = rt_exec_weights(e),
        };
}

static void piece_done(piece_t *pc) {
        if (pc->prepared && pc->runner)
                pc->runner->release(pc->prepared);
        free(pc->inputs);
        free(pc->outputs);
        *pc = (piece_t) { 0 };
}

static void dnode_release(dnode_t *dn) {
        if (dn->prepared && dn->runner)
                dn->runner->release(dn->prepared);
        dn->prepared = NULL;
        dn->runner = NULL;
        for (int32_t i = 0; i < dn->n_pieces; i++)
                piece_done(&dn->pieces[i]);
        free(dn->pieces);
        dn->pieces = NULL;
        dn->n_pieces = 0;
        dn->compiled = false;
}

static bool shapes_same(dnode_t *dn, const rt_context_t *ctx, const rt_partition_t *p) {
        if (!dn->compiled)
                return false;
        for (int32_t i = 0; i < p->n_inputs && i < 64; i++) {
                const rt_tensor_t *t = &ctx->tensors[p->inputs[i]];
                if (t->rank != dn->shapes_rank[i] ||
                    memcmp(t->dims, dn->shapes[i], sizeof(int32_t) * (size_t) t->rank) != 0)
                        return false;
        }
        return true;
}

static void shapes_save(dnode_t *dn, const rt_context_t *ctx, const rt_partition_t *p) {
        for (int32_t i = 0; i < p->n_inputs && i < 64; i++) {
                const rt_tensor_t *t = &ctx->tensors[p->inputs[i]];
                dn->shapes_rank[i] = t->rank;
                memcpy(dn->shapes[i], t->dims, sizeof(t->dims));
        }
}

__attribute__((format(printf, 3, 4)))
static void text_set(char *buf, size_t size, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        (void) vsnprintf(buf, size, fmt, ap);
        va_end(ap);
}

/* Position of graph node `node` in nodes[0..n), or -1. */
static int32_t node_pos(const int32_t *nodes, int32_t n, int32_t node) {
        for (int32_t k = 0; node >= 0 && k < n; k++)
                if (nodes[k] == node)
                        return k;
        return -1;
}

/* Call d->prepare with a fresh error: { -1, "" }. A node the driver names
 * that is not in the group it was given counts as none. */
static int prepare_call(const rt_driver_t *d, const rt_driver_graph_t *dg, const rt_driver_group_t *grp,
                        const rt_settings_t *s, void **ret_prepared, rt_driver_error_t *e) {
        *e = (rt_driver_error_t) { .node = -1 };
        int r = d->prepare(d, dg, grp, s, 0, ret_prepared, e);
        if (r >= 0)
                return r;
        e->message[sizeof(e->message) - 1] = 0;
        if (node_pos(grp->nodes, grp->n_nodes, e->node) < 0)
                e->node = -1;
        if (!e->message[0])
                snprintf(e->message, sizeof(e->message), "%s", strerror(-r));
        return r;
}

/* A prepare error as text: "node 4 (ADD): why" when the driver named the
 * node, else "why". */
static void error_text(const rt_graph_t *g, const rt_driver_error_t *e, char *buf, size_t size) {
        if (e->node >= 0)
                text_set(buf, size, "node %d (%s): %s", (int) e->node, rt_op_name(g->nodes[e->node].op), e->message);
        else
                text_set(buf, size, "%s", e->message);
}

static int driver_prepare(dnode_t *dn, const rt_driver_t *d, const rt_settings_t *s, rt_driver_error_t *e) {
        rt_delegation_t *del = dn->del;
        const rt_partition_t *p = &del->parts.v[dn->part];
        rt_driver_graph_t dg = driver_graph(del->exec);
        rt_driver_group_t grp = {
                .nodes = p->nodes, .n_nodes = p->n_nodes,
                .inputs = p->inputs, .n_inputs = p->n_inputs,
                .outputs = p->outputs, .n_outputs = p->n_outputs,
        };
        void *prepared = NULL;
        int r = prepare_call(d, &dg, &grp, s, &prepared, e);
        if (r < 0)
                return r;
        dn->prepared = prepared;
        dn->runner = d;
        return 0;
}

static bool in_range(const rt_partition_t *p, int32_t first, int32_t count, int32_t node) {
        for (int32_t k = first; k < first + count; k++)
                if (p->nodes[k] == node)
                        return true;
        return false;
}

/* The boundary of a piece: non-constant tensors its nodes read and no node
 * of it writes; tensors it writes that the group's boundary or another
 * node of the group reads. */
static int piece_bounds(const dnode_t *dn, piece_t *pc) {
        const rt_partition_t *p = &dn->del->parts.v[dn->part];
        const rt_graph_t *g = rt_exec_graph(dn->del->exec);
        for (int32_t k = pc->first; k < pc->first + pc->count; k++) {
                const rt_node_t *n = &g->nodes[p->nodes[k]];
                for (int32_t j = 0; j < n->n_inputs; j++) {
                        int32_t t = n->inputs[j];
                        bool inside = false;
                        if (t < 0 || g->tensors[t].alloc == RT_ALLOC_CONST)
                                continue;
                        for (int32_t q = pc->first; q < k && !inside; q++) {
                                const rt_node_t *m = &g->nodes[p->nodes[q]];
                                for (int32_t o = 0; o < m->n_outputs; o++)
                                        inside |= m->outputs[o] == t;
                        }
                        if (!inside && rt__partition_list_add(&pc->inputs, &pc->n_inputs, t) < 0)
                                return -ENOMEM;
                }
                for (int32_t o = 0; o < n->n_outputs; o++) {
                        int32_t t = n->outputs[o];
                        bool out = false;
                        if (t < 0)
                                continue;
                        for (int32_t b = 0; b < p->n_outputs && !out; b++)
                                out = p->outputs[b] == t;
                        for (int32_t q = 0; q < p->n_nodes && !out; q++) {
                                const rt_node_t *m = &g->nodes[p->nodes[q]];
                                if (in_range(p, pc->first, pc->count, p->nodes[q]))
                                        continue;
                                for (int32_t i = 0; i < m->n_inputs; i++)
                                        out |= m->inputs[i] == t;
                        }
                        if (out && rt__partition_list_add(&pc->outputs, &pc->n_outputs, t) < 0)
                                return -ENOMEM;
                }
        }
        return 0;
}

/* Compile nodes [first, first + count) of the group with d into *pc. */
static int piece_compile(dnode_t *dn, const rt_driver_t *d, const rt_settings_t *s, int32_t first, int32_t count,
                         piece_t *pc, rt_driver_error_t *e) {
        const rt_partition_t *p = &dn->del->parts.v[dn->part];
        *pc = (piece_t) { .first = first, .count = count };
        int r = piece_bounds(dn, pc);
        if (r < 0) {
                piece_done(pc);
                return r;
        }
        rt_driver_graph_t dg = driver_graph(dn->del->exec);
        rt_driver_group_t grp = {
                .nodes = p->nodes + first, .n_nodes = count,
                .inputs = pc->inputs, .n_inputs = pc->n_inputs,
                .outputs = pc->outputs, .n_outputs = pc->n_outputs,
        };
        r = prepare_call(d, &dg, &grp, s, &pc->prepared, e);
        if (r < 0) {
                pc->prepared = NULL;
                piece_done(pc);
                return r;
        }
        pc->runner = d;
        return 0;
}

/* Position of graph node `node` in the group, or -1. */
static int32_t group_pos(const rt_partition_t *p, int32_t node) {
        return node_pos(p->nodes, p->n_nodes, node);
}

/*
 * The longest run from node `first` (at most `max` nodes) that d compiles,
 * in *pc; 0 when none does. A failure that names a node of the run makes
 * the run before that node the next try (driver ABI 3: no search); one
 * that names none falls back to a binary search over the length. *e has
 * the last failure.
 */
static int32_t piece_longest(dnode_t *dn, const rt_driver_t *d, const rt_settings_t *s, int32_t first,
                             int32_t max, piece_t *pc, rt_driver_error_t *e) {
        const rt_partition_t *p = &dn->del->parts.v[dn->part];
        int32_t len = max;
        while (len > 0) {
                piece_t t;
                if (piece_compile(dn, d, s, first, len, &t, e) == 0) {
                        *pc = t;
                        return len;
                }
                int32_t at = group_pos(p, e->node);
                if (at < first || at >= first + len)
                        break;
                len = at - first;
        }
        if (len <= 1)
                return 0;
        /* len nodes failed without naming one: search below it. */
        int32_t lo = 1, hi = len - 1, best = 0, mid = lo + (hi - lo + 1) / 2;
        while (lo <= hi) {
                piece_t t;
                if (piece_compile(dn, d, s, first, mid, &t, e) == 0) {
                        if (best)
                                piece_done(pc);
                        *pc = t;
                        best = mid;
                        lo = mid + 1;
                } else
                        hi = mid - 1;
                mid = lo + (hi - lo + 1) / 2;
        }
        return best;
}

static int pieces_push(dnode_t *dn, const piece_t *pc) {
        piece_t *v = realloc(dn->pieces, ((size_t) dn->n_pieces + 1) * sizeof(*v));
        if (!v)
                return -ENOMEM;
        dn->pieces = v;
        v[dn->n_pieces++] = *pc;
        return 0;
}

/*
 * Split the group into runs each compiled by the first driver of
 * `chain` that takes it (the longest run from each position), nodes no
 * driver takes alone running on the reference kernels. `whole` is the
 * first driver's failure on the whole group: the run before the node it
 * names is tried first. The reason of the first node no driver takes goes
 * to `refused` ("node 4 (ADD): why"). 0 or -ENOMEM.
 */
static int group_split(dnode_t *dn, const rt_driver_t *const *chain, int n_chain, const rt_settings_t *s,
                       const rt_driver_error_t *whole, char *refused, size_t refused_size, int32_t *ret_refused) {
        const rt_partition_t *p = &dn->del->parts.v[dn->part];
        const rt_graph_t *g = rt_exec_graph(dn->del->exec);
        rt_driver_error_t e = *whole;
        int32_t whole_at = group_pos(p, whole->node);
        refused[0] = 0;
        *ret_refused = -1;
        for (int32_t k = 0; k < p->n_nodes;) {
                piece_t pc = { 0 };
                int32_t got = 0;
                for (int c = 0; c < n_chain && !got; c++) {
                        int32_t max = p->n_nodes - k;
                        /* The whole group already failed on the first driver. */
                        if (k == 0 && c == 0)
                                max = whole_at >= 0 ? whole_at : max - 1;
                        if (max > 0)
                                got = piece_longest(dn, chain[c], s, k, max, &pc, &e);
                        else
                                e = *whole;
                }
                if (!got) {
                        /* A failure that names no node is about this one. */
                        if (e.node < 0)
                                e.node = p->nodes[k];
                        if (!refused[0])
                                error_text(g, &e, refused, refused_size);
                        if (*ret_refused < 0)
                                *ret_refused = e.node;
                        piece_t *last = dn->n_pieces ? &dn->pieces[dn->n_pieces - 1] : NULL;
                        if (last && !last->prepared) {
                                last->count++;
                        } else {
                                pc = (piece_t) { .first = k, .count = 1 };
                                if (pieces_push(dn, &pc) < 0)
                                        return -ENOMEM;
                        }
                        k++;
                        continue;
                }
                if (pieces_push(dn, &pc) < 0) {
                        piece_done(&pc);
                        return -ENOMEM;
                }
                k += got;
        }
        return 0;
}

/* "xnnpack:3 reference:1 xnnpack:2" for the pieces. */
static void pieces_text(const dnode_t *dn, char *buf, size_t size) {
        size_t o = 0;
        buf[0] = 0;
        for (int32_t i = 0; i < dn->n_pieces && o < size; i++)
                o += (size_t) snprintf(buf + o, size - o, "%s%s:%d", i ? " " : "",
                                       dn->pieces[i].prepared ? dn->pieces[i].runner->name : "reference",
                                       (int) dn->pieces[i].count);
}

/*
 * Compile the group, following the FallbackSettings when the driver
 * refuses: forced FP16 that cannot be honoured is retried in float32;
 * then the group is split into runs the driver, or else the second driver
 * (XNNPACK behind a plugin), compiles, nodes neither takes running on the
 * reference kernels. Without fallback the group is still split when the
 * driver takes every node in some run (same driver, same settings), else
 * the first error is returned with its message in dn->why. Each step taken
 * is said in dn->why.
 */
static int group_compile(dnode_t *dn) {
        rt_delegation_t *del = dn->del;
        const rt_driver_t *d = del->driver;
        rt_driver_error_t e;
        int r = driver_prepare(dn, d, &del->settings, &e);
        if (r == 0)
                return 0;
        char first[400], err[400];
        error_text(rt_exec_graph(del->exec), &e, err, sizeof(err));
        text_set(first, sizeof(first), "%s: compilation failed: %s", d->name, err);
        dn->why_node = e.node;
        int32_t refused_node;
        if (r == -ENOMEM) {
                text_set(dn->why, sizeof(dn->why), "%s", first);
                return r;
        }
        if (!del->settings.fallback_on_compilation_error) {
                /* Runs of the same driver with the same settings are no
                 * fallback: split when every node still goes to it. */
                char refused[300], parts[200];
                int k = group_split(dn, &d, 1, &del->settings, &e, refused, sizeof(refused), &refused_node);
                bool whole = k == 0 && dn->n_pieces > 1;
                for (int32_t i = 0; whole && i < dn->n_pieces; i++)
                        whole = dn->pieces[i].prepared != NULL;
                if (whole) {
                        pieces_text(dn, parts, sizeof(parts));
                        text_set(dn->why, sizeof(dn->why), "%s; split into %s", first, parts);
                        return 0;
                }
                dnode_release(dn);
                text_set(dn->why, sizeof(dn->why), "%s", first);
                return r;
        }
        rt_settings_t f32 = del->settings;
        f32.xnnpack_flags &= ~(uint32_t) RT_XNNPACK_FLAG_FORCE_FP16;
        /* The whole group's failure with the settings the split uses. */
        rt_driver_error_t e32 = e;
        if (del->settings.xnnpack_flags & RT_XNNPACK_FLAG_FORCE_FP16) {
                if (driver_prepare(dn, d, &f32, &e32) == 0) {
                        text_set(dn->why, sizeof(dn->why), "%s; ran in float32", first);
                        return 0;
                }
        }
        const rt_driver_t *chain[2] = { d, del->second };
        char refused[300];
        r = group_split(dn, chain, del->second ? 2 : 1, &f32, &e32, refused, sizeof(refused), &refused_node);
        if (dn->why_node < 0)
                dn->why_node = refused_node;
        if (r < 0) {
                dnode_release(dn);
                text_set(dn->why, sizeof(dn->why), "%s; cannot split the group: %s", first, strerror(-r));
                return r;
        }
        char parts[200];
        pieces_text(dn, parts, sizeof(parts));
        if (dn->n_pieces == 1 && dn->pieces[0].prepared) {
                /* One driver took the whole group. */
                piece_t *pc = &dn->pieces[0];
                dn->prepared = pc->prepared;
                dn->runner = pc->runner;
                pc->prepared = NULL;
                piece_done(pc);
                free(dn->pieces);
                dn->pieces = NULL;
                dn->n_pieces = 0;
                text_set(dn->why, sizeof(dn->why), "%s; ran on %s", first, dn->runner->name);
                return 0;
        }
        if (dn->n_pieces == 1) {
                dnode_release(dn);
                dn->fallback = true;
                text_set(dn->why, sizeof(dn->why), "%s; ran on the reference kernels%s%s", first,
                         del->second ? "; " : "", del->second ? refused : "");
                return 0;
        }
        text_set(dn->why, sizeof(dn->why), "%s; split into %s%s%s", first, parts, refused[0] ? "; " : "", refused);
        return 0;
}

static int delegate_prepare(rt_context_t *ctx, rt_node_t *node) {
        dnode_t *dn = node->params;
        rt_delegation_t *del = dn->del;
        const rt_partition_t *p = &del->parts.v[dn->part];
        rt_graph_t *g = rt_exec_graph(del->exec);
        dn->proxy.ctx = *ctx;
        dn->proxy.ctx.request_scratch = proxy_request_scratch;
        dn->proxy.ctx.get_scratch = proxy_get_scratch;
        dn->proxy.ctx.set_dynamic = proxy_set_dynamic;
        dn->resize = ctx->resize;
        dn->proxy.ctx.resize = proxy_resize;
        dn->proxy.dn = dn;
        scratch_clear(dn);
        /* Shape inference for every tensor of the group, by the reference
         * kernels' prepare hooks. */
        for (int32_t k = 0; k < p->n_nodes; k++) {
                rt_node_t *n = &g->nodes[p->nodes[k]];
                if (!n->reg->prepare)
                        continue;
                int r = n->reg->prepare(&dn->proxy.ctx, n);
                if (r < 0)
                        return r;
        }
        if (shapes_same(dn, ctx, p) && (dn->prepared || dn->fallback || dn->n_pieces))
                return 0;
        dnode_release(dn);
        dn->fallback = false;
        dn->why[0] = 0;
        dn->why_node = -1;
        int r = group_compile(dn);
        if (r < 0) {
                (void) rt_ctx_error(ctx, "%s", dn->why);
                return r;
        }
        dn->compiled = true;
        shapes_save(dn, ctx, p);
        return 0;
}

/* Our own storage for the tensors inside the group (the executor's arena
 * only has the boundary), with the read slack drivers may use. */
static int internal_bind(rt_context_t *ctx, dnode_t *dn) {
        rt_delegation_t *del = dn->del;
        const rt_partition_t *p = &del->parts.v[dn->part];
        rt_graph_t *g = rt_exec_graph(del->exec);
        for (int32_t k = 0; k < p->n_nodes; k++) {
                rt_node_t *n = &g->nodes[p->nodes[k]];
                for (int32_t o = 0; o < n->n_outputs; o++) {
                        int32_t t = n->outputs[o];
                        bool boundary = false;
                        for (int32_t b = 0; b < p->n_outputs && !boundary; b++)
                                boundary = p->outputs[b] == t;
                        if (t < 0 || boundary)
                                continue;
                        int32_t slot = -1;
                        for (int32_t i = 0; i < dn->n_internal; i++)
                                if (dn->internal[i] == t)
                                        slot = i;
                        if (slot < 0) {
                                size_t m = (size_t) dn->n_internal + 1;
                                int32_t *in = realloc(dn->internal, m * sizeof(int32_t));
                                if (in)
                                        dn->internal = in;
                                void **h = realloc(dn->heap, m * sizeof(void *));
                                if (h)
                                        dn->heap = h;
                                size_t *hb = realloc(dn->heap_bytes, m * sizeof(size_t));
                                if (hb)
                                        dn->heap_bytes = hb;
                                if (!in || !h || !hb)
                                        return -ENOMEM;
                                slot = dn->n_internal++;
                                dn->internal[slot] = t;
                                dn->heap[slot] = NULL;
                                dn->heap_bytes[slot] = 0;
                        }
                        rt_tensor_t *tt = &ctx->tensors[t];
                        size_t bytes = rt_graph_tensor_bytes(tt, NULL);
                        if (!dn->heap[slot] || dn->heap_bytes[slot] < bytes) {
                                size_t cap = (bytes + RT_BUFFER_SLACK + RT_BUFFER_ALIGN - 1) /
                                             RT_BUFFER_ALIGN * RT_BUFFER_ALIGN;
                                void *q = aligned_alloc(RT_BUFFER_ALIGN, cap);
                                if (!q)
                                        return -ENOMEM;
                                memset(q, 0, cap);
                                free(dn->heap[slot]);
                                dn->heap[slot] = q;
                                dn->heap_bytes[slot] = bytes;
                        }
                        tt->data = dn->heap[slot];
                        tt->bytes = bytes;
                }
        }
        return 0;
}

/* Run nodes [first, first + count) of the group on the reference kernels. */
static int reference_run(dnode_t *dn, int32_t first, int32_t count) {
        rt_delegation_t *del = dn->del;
        const rt_partition_t *p = &del->parts.v[dn->part];
        rt_graph_t *g = rt_exec_graph(del->exec);
        for (int32_t k = first; k < first + count; k++) {
                rt_node_t *n = &g->nodes[p->nodes[k]];
                if (!n->reg->invoke)
                        continue;
                int r = n->reg->invoke(&dn->proxy.ctx, n);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* Run the whole group on the reference kernels. */
static int fallback_run(rt_context_t *ctx, dnode_t *dn) {
        int r = internal_bind(ctx, dn);
        if (r < 0)
                return r;
        return reference_run(dn, 0, dn->del->parts.v[dn->part].n_nodes);
}

static int delegate_invoke(rt_context_t *ctx, rt_node_t *node) {
        dnode_t *dn = node->params;
        rt_delegation_t *del = dn->del;
        /* A kernel upstream may have shrunk a tensor at invoke time (an
         * output whose shape depends on data, within its planned size):
         * shapes inside the group follow, and the driver recompiles. */
        if (!shapes_same(dn, ctx, &del->parts.v[dn->part])) {
                int r = delegate_prepare(ctx, node);
                if (r < 0)
                        return r;
        }
        if (dn->fallback || (!dn->prepared && !dn->n_pieces))
                return fallback_run(ctx, dn);
        rt_driver_graph_t dg = driver_graph(del->exec);
        char err[400];
        const rt_driver_t *runner = dn->runner;
        err[0] = 0;     /* not all 400 bytes: this runs every invoke */
        int r;
        if (dn->n_pieces) {
                if ((r = internal_bind(ctx, dn)) < 0)
                        return r;
                for (int32_t i = 0; i < dn->n_pieces && r >= 0; i++) {
                        piece_t *pc = &dn->pieces[i];
                        runner = pc->runner;
                        r = pc->prepared ? runner->execute(pc->prepared, &dg, err, sizeof(err))
                                         : reference_run(dn, pc->first, pc->count);
                        if (r < 0 && !pc->prepared)
                                return r; /* the reference kernels' own error */
                }
        } else
                r = runner->execute(dn->prepared, &dg, err, sizeof(err));
        if (r >= 0)
                return 0;
        if (!err[0])
                snprintf(err, sizeof(err), "%s", strerror(-r));
        if (!del->settings.fallback_on_execution_error) {
                rt_ctx_error(ctx, "%s: execution failed: %s", runner->name, err);
                return r;
        }
        dnode_release(dn);
        dn->fallback = true;
        text_set(dn->why, sizeof(dn->why), "%s: execution failed: %s; ran on the reference kernels", runner->name,
                 err);
        dn->why_node = -1;
        dn->compiled = true;
        return fallback_run(ctx, dn);
}

static void dnode_free(dnode_t *dn) {
        if (!dn)
                return;
        dnode_release(dn);
        scratch_clear(dn);
        for (int32_t i = 0; i < dn->n_internal; i++)
                free(dn->heap[i]);
        free(dn->heap);
        free(dn->heap_bytes);
        free(dn->internal);
        free(dn);
}

rt_delegation_t *rt_delegation_free(rt_delegation_t *del) {
        if (!del)
                return NULL;
        for (int32_t i = 0; i < del->n_dnodes; i++)
                dnode_free(del->dnodes[i]);
        free(del->dnodes);
        free(del->reasons);
        rt_partition_set_done(&del->parts);
        rt_settings_done(&del->settings);
        free(del);
        return NULL;
}

DEFINE_POINTER_CLEANUP(rt_delegation_t, rt_delegation_free);

/* Why the reference group p is not delegated: the first refused node's
 * reason, and how many more nodes were refused. */
/* A node that reads or writes state kept between invokes: a variable
 * tensor, a resource variable, a hash table, CALL_ONCE's flag. */
static bool node_stateful(const rt_graph_t *g, const rt_node_t *n) {
        switch (n->op) {
        case RT_BUILTIN_VAR_HANDLE:
        case RT_BUILTIN_READ_VARIABLE:
        case RT_BUILTIN_ASSIGN_VARIABLE:
        case RT_BUILTIN_CALL_ONCE:
        case RT_BUILTIN_HASHTABLE:
        case RT_BUILTIN_HASHTABLE_FIND:
        case RT_BUILTIN_HASHTABLE_IMPORT:
        case RT_BUILTIN_HASHTABLE_SIZE:
                return true;
        default:
                break;
        }
        for (int32_t k = 0; k < n->n_inputs; k++)
                if (n->inputs[k] >= 0 && g->tensors[n->inputs[k]].is_variable)
                        return true;
        for (int32_t k = 0; k < n->n_outputs; k++)
                if (n->outputs[k] >= 0 && g->tensors[n->outputs[k]].is_variable)
                        return true;
        return false;
}

/* The 8-bit quantized paths node n needs: RT_XNNPACK_FLAG_QS8 for int8
 * tensors, RT_XNNPACK_FLAG_QU8 for uint8 ones (inputs or outputs). */
static uint32_t node_quantized_paths(const rt_graph_t *g, const rt_node_t *n) {
        uint32_t need = 0;

        for (int32_t k = 0; k < n->n_inputs + n->n_outputs; k++) {
                int32_t t = k < n->n_inputs ? n->inputs[k] : n->outputs[k - n->n_inputs];

                if (t < 0 || g->tensors[t].quant.n == 0)
                        continue;
                if (g->tensors[t].type == RT_TYPE_INT8)
                        need |= RT_XNNPACK_FLAG_QS8;
                else if (g->tensors[t].type == RT_TYPE_UINT8)
                        need |= RT_XNNPACK_FLAG_QU8;
        }
        return need;
}

/* XNNPACK's quantized paths as TfLiteXNNPackDelegateOptions.flags name
 * them: with QS8 and/or QU8 set, only the paths named are delegated (the
 * nodes of the other stay on the reference kernels, as in TFLite's
 * delegate); with neither, acceld delegates both (its default, where
 * TFLite 2.9's delegate takes float nodes only). */
static void quantized_paths_filter(rt_delegation_t *del, const rt_graph_t *g, bool *supported) {
        uint32_t on = del->settings.xnnpack_flags & (RT_XNNPACK_FLAG_QS8 | RT_XNNPACK_FLAG_QU8);

        if (del->settings.delegate != RT_DELEGATE_XNNPACK || strcmp(del->driver->name, "xnnpack") != 0 || !on)
                return;
        for (int32_t i = 0; i < g->n_nodes; i++) {
                uint32_t off = node_quantized_paths(g, &g->nodes[i]) & ~on;

                if (!supported[i] || !off)
                        continue;
                supported[i] = false;
                snprintf(del->reasons[i], sizeof(del->reasons[i]),
                         "%s: the %s quantized path is off (xnnpack_settings.flags)", del->driver->name,
                         (off & RT_XNNPACK_FLAG_QS8) ? "int8 (QS8)" : "uint8 (QU8)");
        }
}

static int why_reference(rt_delegation_t *del, const rt_graph_t *g, rt_partition_t *p) {
        int32_t first = -1, more = 0;
        for (int32_t k = 0; k < p->n_nodes; k++) {
                if (!del->reasons[p->nodes[k]][0])
                        continue;
                if (first < 0)
                        first = p->nodes[k];
                else
                        more++;
        }
        char buf[400];
        if (first < 0 && del->settings.min_nodes_per_partition > 1 &&
            p->n_nodes < del->settings.min_nodes_per_partition)
                snprintf(buf, sizeof(buf), "%s: a group of %d node%s, fewer than min_nodes_per_partition (%d)",
                         del->driver->name, (int) p->n_nodes, p->n_nodes == 1 ? "" : "s",
                         (int) del->settings.min_nodes_per_partition);
        else if (first < 0)
                snprintf(buf, sizeof(buf), "%s: beyond max_delegated_partitions (%d)", del->driver->name,
                         (int) del->settings.max_delegated_partitions);
        else if (more)
                snprintf(buf, sizeof(buf), "node %d (%s): %s (and %d more nodes refused)", (int) first,
                         rt_op_name(g->nodes[first].op), del->reasons[first], (int) more);
        else
                snprintf(buf, sizeof(buf), "node %d (%s): %s", (int) first, rt_op_name(g->nodes[first].op),
                         del->reasons[first]);
        p->why = strdup(buf);
        p->why_node = first;
        return p->why ? 0 : -ENOMEM;
}

int rt_delegation_apply(rt_exec_t *e, const rt_driver_t *d, const rt_driver_t *second, const rt_settings_t *s,
                        rt_delegation_t **ret, char *err, size_t err_size) {
        if (!e || !d || !ret)
                return -EINVAL;
        int r;
        _cleanup_(rt_delegation_freep) rt_delegation_t *del = calloc(1, sizeof(*del));
        if (!del)
                return -ENOMEM;
        del->driver = d;
        del->second = second != d ? second : NULL;
        del->exec = e;
        rt_settings_init(&del->settings);
        if (s && rt_settings_copy(&del->settings, s) < 0)
                return -ENOMEM;
        snprintf(del->reg_name, sizeof(del->reg_name), "%s", d->name);
        del->reg = (rt_registration_t) {
                .name = del->reg_name,
                .op = RT_BUILTIN_DELEGATE,
                .prepare = delegate_prepare,
                .invoke = delegate_invoke,
        };
        /* Constant DENSIFY and DEQUANTIZE were folded when the interpreter
         * was built (fold.c), so drivers see dense float32 weights. */
        rt_graph_t *g = rt_exec_graph(e);
        int32_t n_nodes = g->n_nodes;
        _cleanup_free_ bool *supported = calloc((size_t) n_nodes + 1, sizeof(bool));
        del->reasons = calloc((size_t) n_nodes + 1, sizeof(*del->reasons));
        if (!supported || !del->reasons)
                return -ENOMEM;
        del->n_reasons = n_nodes;
        rt_driver_graph_t dg = driver_graph(e);
        r = d->supported_ops(d, &dg, &del->settings, supported, del->reasons);
        if (r < 0) {
                if (err && err_size)
                        snprintf(err, err_size, "%s: cannot list supported operations: %s", d->name, strerror(-r));
                return r;
        }
        /* State stays with the executor, where a caller can swap it per
         * client (rt_interp_state_swap()); a compiled group would keep it
         * inside, or in a driver host's copy that never comes back. */
        for (int32_t i = 0; i < n_nodes; i++)
                if (supported[i] && node_stateful(g, &g->nodes[i])) {
                        supported[i] = false;
                        snprintf(del->reasons[i], sizeof(del->reasons[i]),
                                 "%s: keeps state between invokes (variables run on the reference kernels)", d->name);
                }
        quantized_paths_filter(del, g, supported);
        rt_partition_limits_t lim = { .max_partitions = del->settings.max_delegated_partitions,
                                      .min_nodes = del->settings.min_nodes_per_partition };
        r = rt_partition_compute_with(g, supported, &lim, &del->parts);
        if (r < 0) {
                if (err && err_size)
                        snprintf(err, err_size, "partitioning failed: %s", strerror(-r));
                return r;
        }
        int32_t n_plan = 0, n_del = 0;
        for (int32_t i = 0; i < del->parts.n; i++) {
                if (del->parts.v[i].delegated)
                        n_del++;
                else if ((r = why_reference(del, g, &del->parts.v[i])) < 0)
                        return r;
        }
        if (n_del > 0) {
                _cleanup_free_ int32_t *plan = malloc(((size_t) g->n_plan + 1) * sizeof(int32_t));
                del->dnodes = calloc((size_t) n_del, sizeof(dnode_t *));
                if (!plan || !del->dnodes)
                        return -ENOMEM;
                for (int32_t i = 0; i < del->parts.n; i++) {
                        rt_partition_t *p = &del->parts.v[i];
                        if (!p->delegated) {
                                memcpy(plan + n_plan, p->nodes, (size_t) p->n_nodes * sizeof(int32_t));
                                n_plan += p->n_nodes;
                                continue;
                        }
                        dnode_t *dn = calloc(1, sizeof(*dn));
                        if (!dn)
                                return -ENOMEM;
                        dn->del = del;
                        dn->part = i;
                        del->dnodes[del->n_dnodes++] = dn;
                        int32_t idx;
                        r = rt_exec_add_node(e, &del->reg, p->inputs, p->n_inputs, p->outputs, p->n_outputs, dn,
                                             &idx);
                        if (r < 0) {
                                if (err && err_size)
                                        snprintf(err, err_size, "%s", rt_exec_error(e));
                                return r;
                        }
                        plan[n_plan++] = idx;
                }
                r = rt_exec_set_plan(e, plan, n_plan);
                if (r < 0) {
                        if (err && err_size)
                                snprintf(err, err_size, "%s", rt_exec_error(e));
                        return r;
                }
        }
        *ret = TAKE_PTR(del);
        return 0;
}

const rt_partition_set_t *rt_delegation_partitions(const rt_delegation_t *del) {
        return del ? &del->parts : NULL;
}

const char *rt_delegation_reason(const rt_delegation_t *del, int32_t node) {
        if (!del || node < 0 || node >= del->n_reasons)
                return "";
        return del->reasons[node];
}

int32_t rt_delegation_fallbacks(const rt_delegation_t *del) {
        int32_t n = 0;
        for (int32_t i = 0; del && i < del->n_dnodes; i++)
                n += del->dnodes[i]->fallback;
        return n;
}

const rt_driver_t *rt_delegation_driver(const rt_delegation_t *del) {
        return del ? del->driver : NULL;
}

static const dnode_t *dnode_of(const rt_delegation_t *del, int32_t i) {
        for (int32_t k = 0; del && k < del->n_dnodes; k++)
                if (del->dnodes[k]->part == i)
                        return del->dnodes[k];
        return NULL;
}

const char *rt_delegation_partition_driver(const rt_delegation_t *del, int32_t i) {
        const dnode_t *dn = dnode_of(del, i);
        if (!dn || dn->fallback)
                return "reference";
        for (int32_t k = 0; k < dn->n_pieces; k++)
                if (dn->pieces[k].prepared)
                        return dn->pieces[k].runner->name; /* a split group: its first driver */
        return dn->runner ? dn->runner->name : del->driver->name;
}

const char *rt_delegation_partition_why(const rt_delegation_t *del, int32_t i) {
        if (!del || i < 0 || i >= del->parts.n)
                return "";
        const dnode_t *dn = dnode_of(del, i);
        if (dn)
                return dn->why;
        return del->parts.v[i].why ? del->parts.v[i].why : "";
}

int32_t rt_delegation_partition_node(const rt_delegation_t *del, int32_t i) {
        if (!del || i < 0 || i >= del->parts.n)
                return -1;
        const dnode_t *dn = dnode_of(del, i);
        if (dn)
                return dn->why[0] ? dn->why_node : -1;
        return del->parts.v[i].why_node;
}

bool rt_delegation_partition_fell_back(const rt_delegation_t *del, int32_t i) {
        for (int32_t k = 0; del && k < del->n_dnodes; k++)
                if (del->dnodes[k]->part == i)
                        return del->dnodes[k]->fallback;
        return false;
}
