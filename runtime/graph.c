/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "graph.h"

__attribute__((format(printf, 3, 4)))
static void set_err(char *err, size_t size, const char *fmt, ...) {
        if (!err || size == 0)
                return;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, size, fmt, ap);
        va_end(ap);
}

size_t rt_graph_tensor_bytes(const rt_tensor_t *t, bool *ret_overflow) {
        /* A resource handle holds an int32 resource id, as in TFLite. */
        size_t n = t->type == RT_TYPE_RESOURCE ? sizeof(int32_t) : rt_type_size(t->type);
        for (int32_t i = 0; i < t->rank; i++) {
                size_t d = t->dims[i] < 0 ? 0 : (size_t) t->dims[i];
                if (__builtin_mul_overflow(n, d, &n)) {
                        if (ret_overflow)
                                *ret_overflow = true;
                        return 0;
                }
        }
        return n;
}

static bool is_custom(const rt_model_op_t *op) {
        return op->builtin_code == RT_OP_CUSTOM || op->custom_code;
}

int rt_graph_describe_unresolved(const rt_model_op_t *op, int32_t node, const rt_resolver_t *r,
                                 char *buf, size_t size) {
        int32_t code = is_custom(op) ? RT_OP_CUSTOM : op->builtin_code;
        const char *custom = op->custom_code ? op->custom_code : "";
        if (rt_resolver_find(r, code, custom, op->version))
                return 0;
        if (rt_resolver_has_op(r, code, custom)) {
                if (code == RT_OP_CUSTOM)
                        set_err(buf, size, "node %d: custom op '%s' version %d is not supported", node,
                                custom, op->version);
                else
                        set_err(buf, size, "node %d: op %s (builtin %d) version %d is not supported",
                                node, rt_op_name(code), code, op->version);
                return -ENOTSUP;
        }
        if (code == RT_OP_CUSTOM) {
                /* Select-TensorFlow ops need the full TF runtime; say so. */
                bool flex = strncmp(custom, "Flex", 4) == 0;
                set_err(buf, size, "node %d: unresolved custom op '%s'%s", node, custom,
                        flex ? " (a Select TensorFlow op; needs the Flex delegate)" : "");
        } else
                set_err(buf, size, "node %d: unsupported builtin op %s (builtin %d)", node,
                        rt_op_name(code), code);
        return -EINVAL;
}

int rt_graph_check_ops(const rt_model_t *m, int32_t subgraph, const rt_resolver_t *r,
                       void (*cb)(void *user, int32_t node, const char *message), void *user) {
        if (!m || subgraph < 0 || subgraph >= m->n_subgraphs)
                return -EINVAL;
        const rt_model_subgraph_t *sg = &m->subgraphs[subgraph];
        int n = 0;
        for (int32_t i = 0; i < sg->n_ops; i++) {
                char msg[256];
                if (rt_graph_describe_unresolved(&sg->ops[i], i, r, msg, sizeof(msg)) == 0)
                        continue;
                n++;
                if (cb)
                        cb(user, i, msg);
        }
        return n;
}

/* After the first unresolved node's message, name the other unresolved
 * ops too (once each), so a refusal lists everything that is missing. */
static void unresolved_summary(const rt_model_subgraph_t *sg, int32_t first, const rt_resolver_t *r,
                               char *err, size_t err_size) {
        if (!err || err_size == 0)
                return;
        size_t len = strlen(err);
        int listed = 0;
        for (int32_t i = first + 1; i < sg->n_ops && len + 1 < err_size; i++) {
                const rt_model_op_t *op = &sg->ops[i];
                if (rt_graph_describe_unresolved(op, i, r, NULL, 0) == 0)
                        continue;
                const char *name = rt_model_op_name(op);
                bool seen = strcmp(name, rt_model_op_name(&sg->ops[first])) == 0;
                for (int32_t j = first + 1; j < i && !seen; j++)
                        seen = strcmp(rt_model_op_name(&sg->ops[j]), name) == 0 &&
                               rt_graph_describe_unresolved(&sg->ops[j], j, r, NULL, 0) != 0;
                if (seen)
                        continue;
                int w = snprintf(err + len, err_size - len, "%s%s (node %d)",
                                 listed ? ", " : "; also unresolved: ", name, i);
                if (w < 0)
                        break;
                len += (size_t) w;
                listed++;
        }
        if (len >= err_size)
                err[err_size - 1] = 0;
}

static void tensor_init(rt_tensor_t *t, rt_tensor_meta_t *meta, const rt_model_tensor_t *mt) {
        memset(t, 0, sizeof(*t));
        meta->model = mt;
        meta->producer = -1;
        meta->first_use = -1;
        meta->last_use = -1;
        t->type = mt->type;
        t->rank = mt->rank < 0 ? 0 : (mt->rank > RT_MAX_RANK ? RT_MAX_RANK : mt->rank);
        memcpy(t->dims, mt->shape, sizeof(int32_t) * (size_t) t->rank);
        t->name = mt->name ? mt->name : "";
        meta->quant = mt->quant;
        /* A per-channel axis outside the rank (seen on rank-1 biases, which
         * TFLite Micro ignores) can only mean the single axis. */
        if (meta->quant.n > 1 && (meta->quant.axis < 0 || meta->quant.axis >= t->rank) && t->rank == 1)
                meta->quant.axis = 0;
        t->quant = meta->quant;
        if (t->quant.n >= 1 && t->quant.scale) {
                t->scale = t->quant.scale[0];
                t->zero_point = t->quant.zero_point ? (int32_t) t->quant.zero_point[0] : 0;
        }
        t->is_variable = mt->is_variable;
        t->sparsity = mt->sparsity;
        if (mt->data && !mt->is_variable) {
                t->data = (void *) mt->data;
                t->bytes = mt->data_bytes;
                t->alloc = RT_ALLOC_CONST;
        } else if (mt->is_variable) {
                t->alloc = RT_ALLOC_PERSISTENT;
        } else if (t->type == RT_TYPE_STRING) {
                meta->dynamic = true;
        }
}

static int check_indices(const int32_t *idx, int32_t n, int32_t n_tensors, bool allow_absent) {
        if (n < 0 || (n > 0 && !idx))
                return -1;
        for (int32_t i = 0; i < n; i++)
                if (idx[i] >= n_tensors || idx[i] < (allow_absent ? -1 : 0))
                        return i;
        return -2;
}

int rt_graph_build(rt_graph_t *g, const rt_model_t *m, int32_t subgraph, const rt_resolver_t *r,
                   char *err, size_t err_size) {
        if (!g || !m || !r)
                return -EINVAL;
        if (subgraph < 0 || subgraph >= m->n_subgraphs) {
                set_err(err, err_size, "subgraph %d out of range (%d subgraphs)", subgraph,
                        m->n_subgraphs);
                return -EINVAL;
        }
        const rt_model_subgraph_t *sg = &m->subgraphs[subgraph];
        g->model = m;
        g->sg = sg;
        g->n_tensors = sg->n_tensors;
        g->tensors = calloc((size_t) sg->n_tensors + 1, sizeof(rt_tensor_t));
        g->meta = calloc((size_t) sg->n_tensors + 1, sizeof(rt_tensor_meta_t));
        g->nodes = calloc((size_t) sg->n_ops + 1, sizeof(rt_node_t));
        g->plan = calloc((size_t) sg->n_ops + 1, sizeof(int32_t));
        g->params_owned = calloc((size_t) sg->n_ops + 1, sizeof(bool));
        g->owned_io = calloc((size_t) sg->n_ops + 1, sizeof(int32_t *));
        g->cap_nodes = sg->n_ops + 1;
        if (!g->tensors || !g->meta || !g->nodes || !g->plan || !g->params_owned || !g->owned_io) {
                set_err(err, err_size, "out of memory building the graph");
                return -ENOMEM;
        }
        for (int32_t i = 0; i < sg->n_tensors; i++)
                tensor_init(&g->tensors[i], &g->meta[i], &sg->tensors[i]);

        int bad = check_indices(sg->inputs, sg->n_inputs, sg->n_tensors, false);
        if (bad != -2) {
                set_err(err, err_size, "subgraph %d: input %d: tensor index out of range", subgraph, bad);
                return -EINVAL;
        }
        bad = check_indices(sg->outputs, sg->n_outputs, sg->n_tensors, false);
        if (bad != -2) {
                set_err(err, err_size, "subgraph %d: output %d: tensor index out of range", subgraph, bad);
                return -EINVAL;
        }
        g->inputs = sg->inputs;
        g->n_inputs = sg->n_inputs;
        g->outputs = sg->outputs;
        g->n_outputs = sg->n_outputs;
        for (int32_t i = 0; i < g->n_inputs; i++)
                g->meta[g->inputs[i]].graph_input = true;
        for (int32_t i = 0; i < g->n_outputs; i++)
                g->meta[g->outputs[i]].graph_output = true;

        /* Each tensor is written by one node at most, and no node reads
         * what it writes: a kernel's prepare sizes its outputs from its
         * inputs, and a second writer (or the node itself) resizing the same
         * tensor would leave the first one writing past its end at invoke
         * (a mutated model did exactly that with GATHER and MEAN). */
        _cleanup_free_ int32_t *writer = malloc(((size_t) sg->n_tensors + 1) * sizeof(int32_t));
        if (!writer)
                return -ENOMEM;
        for (int32_t t = 0; t < sg->n_tensors; t++)
                writer[t] = -1;
        for (int32_t i = 0; i < sg->n_ops; i++) {
                const rt_model_op_t *op = &sg->ops[i];
                rt_node_t *n = &g->nodes[i];
                n->index = i;
                n->op = is_custom(op) ? RT_OP_CUSTOM : op->builtin_code;
                n->version = op->version <= 0 ? 1 : op->version;
                n->custom_name = n->op == RT_OP_CUSTOM ? (op->custom_code ? op->custom_code : "") : NULL;
                if (check_indices(op->inputs, op->n_inputs, sg->n_tensors, true) != -2 ||
                    check_indices(op->outputs, op->n_outputs, sg->n_tensors, false) != -2 ||
                    check_indices(op->intermediates, op->n_intermediates, sg->n_tensors, true) != -2) {
                        set_err(err, err_size, "node %d (%s): tensor index out of range", i,
                                rt_model_op_name(op));
                        return -EINVAL;
                }
                for (int32_t k = 0; k < op->n_outputs; k++) {
                        int32_t t = op->outputs[k];
                        if (writer[t] >= 0) {
                                set_err(err, err_size, "node %d (%s): writes tensor %d, which node %d writes too", i,
                                        rt_model_op_name(op), t, writer[t]);
                                return -EINVAL;
                        }
                        writer[t] = i;
                }
                for (int32_t k = 0; k < op->n_inputs; k++)
                        if (op->inputs[k] >= 0 && writer[op->inputs[k]] == i) {
                                set_err(err, err_size, "node %d (%s): reads tensor %d, which it writes", i,
                                        rt_model_op_name(op), op->inputs[k]);
                                return -EINVAL;
                        }
                n->inputs = op->inputs;
                n->n_inputs = op->n_inputs;
                n->outputs = op->outputs;
                n->n_outputs = op->n_outputs;
                n->intermediates = op->intermediates;
                n->n_intermediates = op->n_intermediates;
                n->options = op->builtin_options;
                n->custom_options = op->custom_options;
                n->custom_options_size = op->custom_options_size;
                int k = rt_graph_describe_unresolved(op, i, r, err, err_size);
                if (k < 0) {
                        unresolved_summary(sg, i, r, err, err_size);
                        return k;
                }
                n->reg = rt_resolver_find(r, n->op, n->custom_name, n->version);
                g->params_owned[i] = true;
                g->plan[i] = i;
        }
        g->n_nodes = sg->n_ops;
        g->n_plan = sg->n_ops;
        return 0;
}

int32_t rt_graph_add_node(rt_graph_t *g, const rt_registration_t *reg, const int32_t *inputs,
                          int32_t n_inputs, const int32_t *outputs, int32_t n_outputs, void *params) {
        if (!g || !reg || n_inputs < 0 || n_outputs < 0 || (n_inputs && !inputs) || (n_outputs && !outputs))
                return -EINVAL;
        if (check_indices(inputs, n_inputs, g->n_tensors, true) != -2 ||
            check_indices(outputs, n_outputs, g->n_tensors, false) != -2)
                return -EINVAL;
        if (g->n_nodes >= INT32_MAX - 1)
                return -ENOMEM;
        if (g->n_nodes + 1 > g->cap_nodes) {
                int32_t cap = g->cap_nodes * 2 + 4;
                rt_node_t *nodes = realloc(g->nodes, (size_t) cap * sizeof(*nodes));
                if (!nodes)
                        return -ENOMEM;
                g->nodes = nodes;
                bool *po = realloc(g->params_owned, (size_t) cap * sizeof(*po));
                if (!po)
                        return -ENOMEM;
                g->params_owned = po;
                int32_t **io = realloc(g->owned_io, (size_t) cap * sizeof(*io));
                if (!io)
                        return -ENOMEM;
                g->owned_io = io;
                g->cap_nodes = cap;
        }
        int32_t *copy = malloc(sizeof(int32_t) * ((size_t) n_inputs + (size_t) n_outputs + 1));
        if (!copy)
                return -ENOMEM;
        if (n_inputs)
                memcpy(copy, inputs, sizeof(int32_t) * (size_t) n_inputs);
        if (n_outputs)
                memcpy(copy + n_inputs, outputs, sizeof(int32_t) * (size_t) n_outputs);
        int32_t i = g->n_nodes++;
        rt_node_t *n = &g->nodes[i];
        memset(n, 0, sizeof(*n));
        n->index = i;
        n->op = reg->op;
        n->version = 1;
        n->custom_name = reg->op == RT_OP_CUSTOM ? reg->name : NULL;
        n->inputs = copy;
        n->n_inputs = n_inputs;
        n->outputs = copy + n_inputs;
        n->n_outputs = n_outputs;
        n->reg = reg;
        n->params = params;
        g->params_owned[i] = false;
        g->owned_io[i] = copy;
        return i;
}

int rt_graph_set_plan(rt_graph_t *g, const int32_t *plan, int32_t n, char *err, size_t err_size) {
        if (!g || n < 0 || (n && !plan))
                return -EINVAL;
        bool *seen = calloc((size_t) g->n_nodes + 1, sizeof(bool));
        bool *ready = calloc((size_t) g->n_tensors + 1, sizeof(bool));
        int32_t *copy = malloc(sizeof(int32_t) * ((size_t) n + 1));
        int r = 0;
        if (!seen || !ready || !copy) {
                r = -ENOMEM;
                goto out;
        }
        for (int32_t t = 0; t < g->n_tensors; t++)
                ready[t] = g->tensors[t].alloc == RT_ALLOC_CONST || g->tensors[t].is_variable ||
                           g->meta[t].graph_input;
        for (int32_t p = 0; p < n; p++) {
                int32_t k = plan[p];
                if (k < 0 || k >= g->n_nodes || seen[k]) {
                        set_err(err, err_size, "plan position %d: %s node %d", p,
                                k < 0 || k >= g->n_nodes ? "no such" : "repeated", k);
                        r = -EINVAL;
                        goto out;
                }
                seen[k] = true;
                const rt_node_t *nd = &g->nodes[k];
                for (int32_t j = 0; j < nd->n_inputs; j++)
                        if (nd->inputs[j] >= 0 && !ready[nd->inputs[j]] && g->meta[nd->inputs[j]].model &&
                            g->meta[nd->inputs[j]].model->data == NULL) {
                                bool produced = false;
                                for (int32_t q = 0; q < g->n_nodes && !produced; q++)
                                        for (int32_t o = 0; o < g->nodes[q].n_outputs && !produced; o++)
                                                produced = g->nodes[q].outputs[o] == nd->inputs[j];
                                /* Tensors nobody produces keep their (zeroed) storage. */
                                if (!produced)
                                        continue;
                                set_err(err, err_size, "plan position %d: node %d reads tensor %d before it is produced",
                                        p, k, nd->inputs[j]);
                                r = -EINVAL;
                                goto out;
                        }
                for (int32_t j = 0; j < nd->n_outputs; j++)
                        ready[nd->outputs[j]] = true;
        }
        if (n)
                memcpy(copy, plan, sizeof(int32_t) * (size_t) n);
        free(g->plan);
        g->plan = copy;
        copy = NULL;
        g->n_plan = n;
out:
        free(seen);
        free(ready);
        free(copy);
        return r;
}

void rt_graph_done(rt_graph_t *g) {
        if (!g)
                return;
        if (g->nodes)
                for (int32_t i = 0; i < g->n_nodes; i++) {
                        if (g->params_owned && g->params_owned[i])
                                free(g->nodes[i].params);
                        if (g->owned_io)
                                free(g->owned_io[i]);
                }
        free(g->params_owned);
        free(g->owned_io);
        if (g->meta)
                for (int32_t i = 0; i < g->n_tensors; i++)
                        free(g->meta[i].heap);
        free(g->tensors);
        free(g->meta);
        free(g->nodes);
        free(g->plan);
        memset(g, 0, sizeof(*g));
}
