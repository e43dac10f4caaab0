/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Executor tests: a tiny in-memory rt_model_t (what the reader would
 * produce) and a few test-only custom ops. Everything lives in the tm_t
 * struct; nothing to free.
 */
#pragma once

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rt.h"

#define TM_MAX_TENSORS 16
#define TM_MAX_OPS 8

typedef struct tm {
        rt_model_t model;
        rt_model_subgraph_t sg;
        rt_model_tensor_t tensors[TM_MAX_TENSORS];
        rt_model_op_t ops[TM_MAX_OPS];
        int32_t op_io[TM_MAX_OPS][2][4];
        int32_t inputs[4];
        int32_t outputs[4];
} tm_t;

static inline void tm_init(tm_t *m) {
        memset(m, 0, sizeof(*m));
        m->model.version = 3;
        m->model.subgraphs = &m->sg;
        m->model.n_subgraphs = 1;
        m->sg.tensors = m->tensors;
        m->sg.ops = m->ops;
        m->sg.inputs = m->inputs;
        m->sg.outputs = m->outputs;
        m->sg.name = "main";
}

/* Add a tensor; dims as varargs. Returns its index. */
static inline int32_t tm_tensor(tm_t *m, rt_type_t type, const char *name, int32_t rank, ...) {
        int32_t i = m->sg.n_tensors++;
        rt_model_tensor_t *t = &m->tensors[i];
        t->type = type;
        t->rank = rank;
        t->name = name;
        va_list ap;
        va_start(ap, rank);
        for (int32_t d = 0; d < rank; d++)
                t->shape[d] = va_arg(ap, int32_t);
        va_end(ap);
        return i;
}

static inline void tm_signature(tm_t *m, int32_t t, const int32_t *sig) {
        m->tensors[t].has_shape_signature = true;
        memcpy(m->tensors[t].shape_signature, sig, sizeof(int32_t) * (size_t) m->tensors[t].rank);
}

static inline int32_t tm_op(tm_t *m, int32_t code, const char *custom, int32_t version, int32_t n_in,
                            const int32_t *in, int32_t n_out, const int32_t *out) {
        int32_t i = m->sg.n_ops++;
        rt_model_op_t *op = &m->ops[i];
        op->builtin_code = custom ? RT_OP_CUSTOM : code;
        op->custom_code = custom;
        op->version = version;
        memcpy(m->op_io[i][0], in, sizeof(int32_t) * (size_t) n_in);
        memcpy(m->op_io[i][1], out, sizeof(int32_t) * (size_t) n_out);
        op->inputs = m->op_io[i][0];
        op->n_inputs = n_in;
        op->outputs = m->op_io[i][1];
        op->n_outputs = n_out;
        return i;
}

static inline void tm_io(tm_t *m, int32_t n_in, const int32_t *in, int32_t n_out, const int32_t *out) {
        memcpy(m->inputs, in, sizeof(int32_t) * (size_t) n_in);
        memcpy(m->outputs, out, sizeof(int32_t) * (size_t) n_out);
        m->sg.n_inputs = n_in;
        m->sg.n_outputs = n_out;
}
