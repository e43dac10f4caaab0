/* SPDX-License-Identifier: Apache-2.0 */
/*
 * MATRIX_DIAG and MATRIX_SET_DIAG: TFLite matrix_diag.cc and
 * matrix_set_diag.cc. Element bytes are only copied, so every fixed-size
 * type works.
 *
 * MATRIX_DIAG: input [..., n] -> output [..., n, n] with the input on the
 * main diagonal and zeros elsewhere.
 * MATRIX_SET_DIAG: input [..., m, n] and diagonal [..., min(m, n)] ->
 * the input with its main diagonal replaced.
 */
#include <string.h>

#include "misc-internal.h"

#define DIAG_OP "MATRIX_DIAG"
#define SET_OP "MATRIX_SET_DIAG"

static int matrix_diag_prepare(rt_context_t *ctx, rt_node_t *node) {
        int r = rt_misc__check_node(ctx, node, DIAG_OP, 1, 1, 1, false);
        if (r < 0)
                return r;
        rt_tensor_t *in = rt_node_input(ctx, node, 0);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        if (rt_type_size(in->type) == 0)
                return rt_misc__unsupported(ctx, DIAG_OP, "input", in);
        if (out->type != in->type)
                return rt_ctx_error(ctx, DIAG_OP ": output type %s differs from input type %s",
                                    rt_type_name(out->type), rt_type_name(in->type));
        if (in->rank < 1 || in->rank + 1 > RT_MAX_RANK)
                return rt_ctx_error(ctx, DIAG_OP ": input rank %d must be between 1 and %d", in->rank,
                                    RT_MAX_RANK - 1);
        int32_t dims[RT_MAX_RANK];
        memcpy(dims, in->dims, sizeof(int32_t) * (size_t) in->rank);
        dims[in->rank] = in->dims[in->rank - 1];
        return rt_ctx_resize(ctx, node, 0, in->rank + 1, dims);
}

static int matrix_diag_invoke(rt_context_t *ctx, rt_node_t *node) {
        rt_tensor_t *in = rt_node_input(ctx, node, 0);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        if (!rt_misc_has_data(in))
                return rt_ctx_error(ctx, DIAG_OP ": input has no data");
        const size_t es = rt_type_size(in->type);
        const size_t n = (size_t) in->dims[in->rank - 1];
        const size_t batches = n > 0 ? rt_tensor_count(in) / n : 0;
        uint8_t *y = out->data;
        const uint8_t *x = in->data;
        memset(y, 0, rt_tensor_count(out) * es);
        for (size_t b = 0; b < batches; b++)
                for (size_t i = 0; i < n; i++)
                        memcpy(y + ((b * n + i) * n + i) * es, x + (b * n + i) * es, es);
        return 0;
}

const rt_registration_t rt_kernel_matrix_diag = {
        .name = DIAG_OP,
        .op = RT_OP_MATRIX_DIAG,
        .prepare = matrix_diag_prepare,
        .invoke = matrix_diag_invoke,
};

static int matrix_set_diag_prepare(rt_context_t *ctx, rt_node_t *node) {
        int r = rt_misc__check_node(ctx, node, SET_OP, 2, 2, 1, false);
        if (r < 0)
                return r;
        rt_tensor_t *in = rt_node_input(ctx, node, 0);
        rt_tensor_t *diag = rt_node_input(ctx, node, 1);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        if (rt_type_size(in->type) == 0)
                return rt_misc__unsupported(ctx, SET_OP, "input", in);
        if (out->type != in->type || diag->type != in->type)
                return rt_ctx_error(ctx, SET_OP ": diagonal (%s) and output (%s) must have the input type %s",
                                    rt_type_name(diag->type), rt_type_name(out->type), rt_type_name(in->type));
        if (in->rank < 2)
                return rt_ctx_error(ctx, SET_OP ": input must have rank >= 2, got %d", in->rank);
        const int32_t m = in->dims[in->rank - 2], n = in->dims[in->rank - 1];
        bool ok = diag->rank == in->rank - 1 && diag->dims[diag->rank - 1] == KU_MIN(m, n);
        for (int32_t i = 0; ok && i < in->rank - 2; i++)
                ok = diag->dims[i] == in->dims[i];
        if (!ok)
                return rt_ctx_error(ctx, SET_OP ": diagonal shape does not match the input [..., %d, %d]", m, n);
        return rt_ctx_resize(ctx, node, 0, in->rank, in->dims);
}

static int matrix_set_diag_invoke(rt_context_t *ctx, rt_node_t *node) {
        rt_tensor_t *in = rt_node_input(ctx, node, 0);
        rt_tensor_t *diag = rt_node_input(ctx, node, 1);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        if (!rt_misc_has_data(in) || !rt_misc_has_data(diag))
                return rt_ctx_error(ctx, SET_OP ": an input has no data");
        const size_t es = rt_type_size(in->type);
        const size_t m = (size_t) in->dims[in->rank - 2], n = (size_t) in->dims[in->rank - 1];
        const size_t k = KU_MIN(m, n);
        const size_t batches = m * n > 0 ? rt_tensor_count(in) / (m * n) : 0;
        uint8_t *y = out->data;
        const uint8_t *d = diag->data;
        if (y != in->data)
                memmove(y, in->data, rt_tensor_count(in) * es);
        for (size_t b = 0; b < batches; b++)
                for (size_t i = 0; i < k; i++)
                        memcpy(y + ((b * m + i) * n + i) * es, d + (b * k + i) * es, es);
        return 0;
}

const rt_registration_t rt_kernel_matrix_set_diag = {
        .name = SET_OP,
        .op = RT_OP_MATRIX_SET_DIAG,
        .prepare = matrix_set_diag_prepare,
        .invoke = matrix_set_diag_invoke,
};
