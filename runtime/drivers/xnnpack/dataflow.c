/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The preconditions of an XNNPACK subgraph, checked on a group before any
 * of it reaches XNNPACK. Debian's XNNPACK keeps its assertions, and its
 * runtime asserts, rather than fails, on a graph whose values are not
 * wired as its own API produces them: a value read before anything wrote
 * it, written twice, written and never read (the memory planner gives it
 * no storage, and setting the runtime up asserts on its NULL pointer), a
 * constant without data, a dimension of zero or below. A model is data
 * from anyone: whatever of this a (malformed) model can reach is refused
 * here, with the node it is about, so the node runs elsewhere and acceld
 * stays up.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "rt.h"
#include "xnnpack-internal.h"

/* Per graph tensor, what the walk has seen. */
enum {
        SEEN_BOUNDARY_IN = 1,
        SEEN_BOUNDARY_OUT = 2,
        SEEN_WRITTEN = 4,
        SEEN_READ_AFTER = 8,   /* read by a node after the one writing it */
};

static int refuse(char *err, size_t err_size, bool probe, int32_t *ret_node, int32_t node, const char *fmt,
                  int32_t a) {
        int o = probe ? snprintf(err, err_size, "XNNPACK: ") : 0;
        if (o >= 0 && (size_t) o < err_size)
                (void) snprintf(err + o, err_size - (size_t) o, fmt, (int) a);
        if (ret_node)
                *ret_node = node;
        return -ENOTSUP;
}

/* Dimensions XNNPACK can hold: every one >= 1, the element count and its
 * byte size without overflow. */
static bool dims_ok(const rt_tensor_t *t) {
        if (t->rank < 0 || t->rank > RT_MAX_RANK)
                return false;
        size_t bytes = rt_type_size(t->type) ? rt_type_size(t->type) : 1;
        for (int32_t d = 0; d < t->rank; d++) {
                if (t->dims[d] <= 0 || (size_t) t->dims[d] > SIZE_MAX / 2 / bytes)
                        return false;
                bytes *= (size_t) t->dims[d];
        }
        return true;
}

int rt__xnn_check_dataflow(const rt_driver_graph_t *g, const rt_driver_group_t *grp, bool probe, char *err,
                           size_t err_size, int32_t *ret_node, bool *ret_skip) {
        uint8_t *seen = calloc((size_t) g->n_tensors + 1, 1);
        int32_t *writer = malloc(((size_t) g->n_tensors + 1) * sizeof(int32_t));
        int r = 0;
        if (!seen || !writer) {
                r = -ENOMEM;
                goto done;
        }
        for (int32_t t = 0; t < g->n_tensors; t++)
                writer[t] = -1;
        for (int32_t k = 0; k < grp->n_inputs + grp->n_outputs; k++) {
                bool is_in = k < grp->n_inputs;
                int32_t t = is_in ? grp->inputs[k] : grp->outputs[k - grp->n_inputs];
                if (t < 0 || t >= g->n_tensors) {
                        r = refuse(err, err_size, probe, ret_node, -1, "group boundary tensor %d out of range", t);
                        goto done;
                }
                if (!dims_ok(&g->tensors[t])) {
                        r = refuse(err, err_size, probe, ret_node, -1,
                                   "tensor %d has a dynamic, empty or oversized shape", t);
                        goto done;
                }
                seen[t] |= is_in ? SEEN_BOUNDARY_IN : SEEN_BOUNDARY_OUT;
        }
        for (int32_t k = 0; k < grp->n_nodes; k++) {
                int32_t ni = grp->nodes[k];
                if (ni < 0 || ni >= g->n_nodes) {
                        r = refuse(err, err_size, probe, ret_node, -1, "group node %d out of range", ni);
                        goto done;
                }
                const rt_node_t *n = &g->nodes[ni];
                /* Folded at prepare (every output a constant): not run. */
                bool folded = n->n_outputs > 0;
                for (int32_t j = 0; j < n->n_outputs && folded; j++)
                        folded = n->outputs[j] >= 0 && n->outputs[j] < g->n_tensors &&
                                 rt_tensor_is_const(&g->tensors[n->outputs[j]]);
                if (folded)
                        continue;
                for (int32_t j = 0; j < n->n_inputs; j++) {
                        int32_t t = n->inputs[j];
                        if (t == -1)
                                continue;
                        if (t < -1 || t >= g->n_tensors) {
                                r = refuse(err, err_size, probe, ret_node, ni, "input tensor %d out of range", t);
                                goto done;
                        }
                        const rt_tensor_t *tt = &g->tensors[t];
                        if (rt_tensor_is_const(tt)) {
                                /* Static data: all of it, in a sane shape. */
                                if (!tt->data || !dims_ok(tt) ||
                                    (rt_type_size(tt->type) &&
                                     tt->bytes < rt_tensor_count(tt) * rt_type_size(tt->type))) {
                                        r = refuse(err, err_size, probe, ret_node, ni,
                                                   "constant tensor %d has no data or a bad shape", t);
                                        goto done;
                                }
                                continue;
                        }
                        /* Read before written, and not handed in: nothing
                         * would ever bind it. */
                        if (writer[t] < 0 && !(seen[t] & SEEN_BOUNDARY_IN)) {
                                r = refuse(err, err_size, probe, ret_node, ni,
                                           "tensor %d is read before any node of the group writes it", t);
                                goto done;
                        }
                        if (writer[t] >= 0)
                                seen[t] |= SEEN_READ_AFTER;
                }
                for (int32_t j = 0; j < n->n_outputs; j++) {
                        int32_t t = n->outputs[j];
                        if (t < 0 || t >= g->n_tensors) {
                                r = refuse(err, err_size, probe, ret_node, ni, "output tensor %d out of range", t);
                                goto done;
                        }
                        const rt_tensor_t *tt = &g->tensors[t];
                        if (rt_tensor_is_const(tt) || (seen[t] & SEEN_BOUNDARY_IN) || writer[t] >= 0) {
                                r = refuse(err, err_size, probe, ret_node, ni,
                                           "output tensor %d is a constant, a group input or written twice", t);
                                goto done;
                        }
                        for (int32_t i = 0; i < n->n_inputs; i++)
                                if (n->inputs[i] == t) {
                                        r = refuse(err, err_size, probe, ret_node, ni,
                                                   "tensor %d is read by the node writing it", t);
                                        goto done;
                                }
                        if (!dims_ok(tt)) {
                                r = refuse(err, err_size, probe, ret_node, ni,
                                           "output tensor %d has a dynamic, empty or oversized shape", t);
                                goto done;
                        }
                        writer[t] = ni;
                }
        }
        /* A group output nobody writes would stay unbound. */
        for (int32_t t = 0; t < g->n_tensors; t++)
                if ((seen[t] & SEEN_BOUNDARY_OUT) && writer[t] < 0) {
                        r = refuse(err, err_size, probe, ret_node, -1, "group output %d is written by no node", t);
                        goto done;
                }
        /* A node none of whose outputs is read later or handed out is
         * dead: nothing can observe it, and XNNPACK's memory planner would
         * give its output no storage (setting the runtime up then asserts
         * on the NULL pointer). It is left out, last readers first, so a
         * chain of dead nodes goes too. */
        for (int32_t k = grp->n_nodes - 1; k >= 0 && ret_skip; k--) {
                const rt_node_t *n = &g->nodes[grp->nodes[k]];
                bool live = false;
                for (int32_t j = 0; j < n->n_outputs && !live; j++) {
                        int32_t t = n->outputs[j];
                        /* (Outputs of a folded node are constants.) */
                        live = writer[t] != grp->nodes[k] || (seen[t] & (SEEN_BOUNDARY_OUT | SEEN_READ_AFTER));
                }
                ret_skip[k] = !live;
                if (live)
                        continue;
                /* Its reads no longer count. */
                for (int32_t j = 0; j < n->n_inputs; j++) {
                        int32_t t = n->inputs[j];
                        if (t < 0 || writer[t] < 0)
                                continue;
                        bool other = false;
                        for (int32_t q = k + 1; q < grp->n_nodes && !other; q++) {
                                const rt_node_t *m = &g->nodes[grp->nodes[q]];
                                for (int32_t i = 0; i < m->n_inputs && !other && !ret_skip[q]; i++)
                                        other = m->inputs[i] == t;
                        }
                        for (int32_t q = 0; q < k && !other; q++) {
                                const rt_node_t *m = &g->nodes[grp->nodes[q]];
                                for (int32_t i = 0; i < m->n_inputs && !other; i++)
                                        other = m->inputs[i] == t;
                        }
                        if (!other)
                                seen[t] &= (uint8_t) ~SEEN_READ_AFTER;
                }
        }
done:
        free(seen);
        free(writer);
        return r;
}
