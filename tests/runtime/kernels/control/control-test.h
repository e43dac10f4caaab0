/* SPDX-License-Identifier: Apache-2.0 */
/* Helpers for the control family's model tests: build with tflite-builder,
 * load, create an interpreter. */
#pragma once

#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "rt.h"
#include "tflite-builder.h"

typedef struct ct_model {
        rt_model_t *model;
        rt_interp_t *it;
        char err[512];
} ct_model_t;

/* Finish and free `b`, load the model (must succeed) and create an
 * interpreter: returns rt_interp_create()'s result, message in m->err. */
static inline int ct_load(ct_model_t *m, tfb_t *b) {
        memset(m, 0, sizeof(*m));
        size_t size;
        uint8_t *bytes = tfb_finish(b, &size);
        ck_assert_ptr_nonnull(bytes);
        tfb_free(b);
        int r = rt_model_load_buffer(bytes, size, true, &m->model, m->err, sizeof(m->err));
        free(bytes);
        ck_assert_msg(r == 0, "load: %s", m->err);
        return rt_interp_create(m->model, NULL, &m->it, m->err, sizeof(m->err));
}

static inline void ct_done(ct_model_t *m) {
        rt_interp_free(m->it);
        rt_model_free(m->model);
}

/* Append builtin `code` (version 1) to the current subgraph. */
static inline void ct_op(tfb_t *b, int32_t code, uint8_t options_type, const tfb_option_t *opts,
                         size_t n_opts, const int32_t *ins, int32_t n_in, const int32_t *outs,
                         int32_t n_out) {
        ck_assert_int_ge(tfb_op_add(b, &(tfb_op_t) {
                                 .opcode = tfb_opcode_builtin(b, code, 1),
                                 .inputs = ins,
                                 .n_inputs = n_in,
                                 .outputs = outs,
                                 .n_outputs = n_out,
                                 .options_type = options_type,
                                 .options = opts,
                                 .n_options = n_opts,
                         }),
                         0);
}
