/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "partition.h"

/* ---- computing the groups ---- */

static int32_t uf_find(int32_t *parent, int32_t x) {
        while (parent[x] != x) {
                parent[x] = parent[parent[x]];
                x = parent[x];
        }
        return x;
}

int rt__partition_list_add(int32_t **v, int32_t *n, int32_t x) {
        for (int32_t i = 0; i < *n; i++)
                if ((*v)[i] == x)
                        return 0;
        int32_t *p = realloc(*v, ((size_t) *n + 1) * sizeof(int32_t));
        if (!p)
                return -ENOMEM;
        p[(*n)++] = x;
        *v = p;
        return 0;
}

void rt_partition_set_done(rt_partition_set_t *s) {
        if (!s)
                return;
        for (int32_t i = 0; i < s->n; i++) {
                free(s->v[i].nodes);
                free(s->v[i].inputs);
                free(s->v[i].outputs);
                free(s->v[i].why);
        }
        free(s->v);
        s->v = NULL;
        s->n = 0;
}

static rt_partition_t *set_push(rt_partition_set_t *s, bool delegated) {
        rt_partition_t *v = realloc(s->v, ((size_t) s->n + 1) * sizeof(*v));
        if (!v)
                return NULL;
        s->v = v;
        v[s->n] = (rt_partition_t) { .delegated = delegated, .why_node = -1 };
        return &v[s->n++];
}

/* Boundary tensors of a delegated group. `where` maps node -> group id. */
static int boundary_compute(const rt_graph_t *g, rt_partition_t *p, const int32_t *where, int32_t id) {
        for (int32_t k = 0; k < p->n_nodes; k++) {
                const rt_node_t *n = &g->nodes[p->nodes[k]];
                for (int32_t j = 0; j < n->n_inputs; j++) {
                        int32_t t = n->inputs[j];
                        if (t < 0 || g->tensors[t].alloc == RT_ALLOC_CONST)
                                continue;
                        int32_t prod = -1;
                        for (int32_t q = 0; q < p->n_nodes && prod < 0; q++) {
                                const rt_node_t *m = &g->nodes[p->nodes[q]];
                                for (int32_t o = 0; o < m->n_outputs; o++)
                                        if (m->outputs[o] == t)
                                                prod = q;
                        }
                        if (prod < 0 && rt__partition_list_add(&p->inputs, &p->n_inputs, t) < 0)
                                return -ENOMEM;
                }
        }
        for (int32_t k = 0; k < p->n_nodes; k++) {
                const rt_node_t *n = &g->nodes[p->nodes[k]];
                for (int32_t j = 0; j < n->n_outputs; j++) {
                        int32_t t = n->outputs[j];
                        if (t < 0)
                                continue;
                        bool out = g->meta[t].graph_output;
                        for (int32_t q = 0; q < g->n_plan && !out; q++) {
                                int32_t ni = g->plan[q];
                                if (where[ni] == id)
                                        continue;
                                const rt_node_t *m = &g->nodes[ni];
                                for (int32_t i = 0; i < m->n_inputs; i++)
                                        if (m->inputs[i] == t)
                                                out = true;
                        }
                        if (out && rt__partition_list_add(&p->outputs, &p->n_outputs, t) < 0)
                                return -ENOMEM;
                }
        }
        return 0;
}

int rt_partition_compute(const rt_graph_t *g, const bool *supported, int32_t max_partitions,
                         rt_partition_set_t *ret) {
        rt_partition_limits_t lim = { .max_partitions = max_partitions };

        return rt_partition_compute_with(g, supported, &lim, ret);
}

int rt_partition_compute_with(const rt_graph_t *g, const bool *supported, const rt_partition_limits_t *lim,
                              rt_partition_set_t *ret) {
        if (!g || !supported || !ret || !lim)
                return -EINVAL;
        int32_t max_partitions = lim->max_partitions;
        int32_t np = g->n_plan;
        _cleanup_free_ int32_t *producer = malloc(((size_t) g->n_tensors + 1) * sizeof(int32_t));
        _cleanup_free_ bool *done = calloc((size_t) g->n_nodes + 1, sizeof(bool));
        _cleanup_free_ int32_t *epoch = malloc(((size_t) np + 1) * sizeof(int32_t));
        _cleanup_free_ int32_t *parent = malloc(((size_t) g->n_nodes + 1) * sizeof(int32_t));
        _cleanup_free_ int32_t *where = malloc(((size_t) g->n_nodes + 1) * sizeof(int32_t));
        if (!producer || !done || !epoch || !parent || !where)
                return -ENOMEM;
        for (int32_t t = 0; t < g->n_tensors; t++)
                producer[t] = -1;
        for (int32_t i = 0; i < g->n_nodes; i++) {
                parent[i] = i;
                where[i] = -1;
        }
        for (int32_t q = 0; q < np; q++) {
                const rt_node_t *n = &g->nodes[g->plan[q]];
                for (int32_t o = 0; o < n->n_outputs; o++)
                        if (n->outputs[o] >= 0 && producer[n->outputs[o]] < 0)
                                producer[n->outputs[o]] = g->plan[q];
        }
        rt_partition_set_t s = { 0 };
        int32_t remaining = np;
        int r = 0;
        while (remaining > 0) {
                /* The kind of the first ready node starts the epoch. */
                int kind = -1;
                int32_t n_epoch = 0;
                for (int32_t q = 0; q < np; q++) {
                        int32_t ni = g->plan[q];
                        if (done[ni])
                                continue;
                        const rt_node_t *n = &g->nodes[ni];
                        bool ready = true;
                        for (int32_t j = 0; j < n->n_inputs && ready; j++) {
                                int32_t t = n->inputs[j];
                                ready = t < 0 || producer[t] < 0 || done[producer[t]];
                        }
                        if (!ready)
                                continue;
                        if (kind < 0)
                                kind = supported[ni];
                        if (supported[ni] != kind)
                                continue;
                        done[ni] = true;
                        epoch[n_epoch++] = ni;
                }
                if (n_epoch == 0) {
                        r = -EINVAL; /* the plan is not topological */
                        goto error;
                }
                remaining -= n_epoch;
                if (!kind) {
                        rt_partition_t *p = set_push(&s, false);
                        if (!p || !(p->nodes = malloc((size_t) n_epoch * sizeof(int32_t)))) {
                                r = -ENOMEM;
                                goto error;
                        }
                        memcpy(p->nodes, epoch, (size_t) n_epoch * sizeof(int32_t));
                        p->n_nodes = n_epoch;
                        for (int32_t k = 0; k < n_epoch; k++)
                                where[epoch[k]] = s.n - 1;
                        continue;
                }
                /* Connected components of the epoch's nodes. */
                for (int32_t k = 0; k < n_epoch; k++) {
                        const rt_node_t *n = &g->nodes[epoch[k]];
                        for (int32_t j = 0; j < n->n_inputs; j++) {
                                int32_t t = n->inputs[j];
                                if (t < 0 || producer[t] < 0)
                                        continue;
                                int32_t pn = producer[t];
                                bool in_epoch = false;
                                for (int32_t z = 0; z < n_epoch && !in_epoch; z++)
                                        in_epoch = epoch[z] == pn;
                                if (in_epoch)
                                        parent[uf_find(parent, epoch[k])] = uf_find(parent, pn);
                        }
                }
                for (int32_t k = 0; k < n_epoch; k++) {
                        int32_t root = uf_find(parent, epoch[k]);
                        if (where[root] < 0 || where[root] >= s.n || !s.v[where[root]].delegated ||
                            s.v[where[root]].n_nodes == 0 || uf_find(parent, s.v[where[root]].nodes[0]) != root) {
                                rt_partition_t *p = set_push(&s, true);
                                if (!p) {
                                        r = -ENOMEM;
                                        goto error;
                                }
                                where[root] = s.n - 1;
                        }
                        rt_partition_t *p = &s.v[where[root]];
                        if (rt__partition_list_add(&p->nodes, &p->n_nodes, epoch[k]) < 0) {
                                r = -ENOMEM;
                                goto error;
                        }
                        where[epoch[k]] = where[root];
                }
        }
        if (lim->min_nodes > 1)
                for (int32_t i = 0; i < s.n; i++)
                        if (s.v[i].delegated && s.v[i].n_nodes < lim->min_nodes)
                                s.v[i].delegated = false;
        if (max_partitions > 0) {
                /* Keep the largest groups; ties go to the earlier one. */
                int32_t kept = 0;
                for (;;) {
                        int32_t best = -1;
                        for (int32_t i = 0; i < s.n; i++) {
                                rt_partition_t *p = &s.v[i];
                                if (!p->delegated || p->n_inputs < 0)
                                        continue;
                                if (best < 0 || p->n_nodes > s.v[best].n_nodes)
                                        best = i;
                        }
                        if (best < 0)
                                break;
                        if (kept < max_partitions) {
                                s.v[best].n_inputs = -1; /* mark kept */
                                kept++;
                        } else
                                s.v[best].delegated = false;
                }
                for (int32_t i = 0; i < s.n; i++)
                        if (s.v[i].n_inputs < 0)
                                s.v[i].n_inputs = 0;
        }
        for (int32_t i = 0; i < s.n; i++)
                if (s.v[i].delegated && (r = boundary_compute(g, &s.v[i], where, i)) < 0)
                        goto error;
        *ret = s;
        return 0;
error:
        rt_partition_set_done(&s);
        return r;
}
