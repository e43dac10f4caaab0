/* SPDX-License-Identifier: Apache-2.0 */
/* Shared pieces of the elementwise family: state, broadcasting, LUTs. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ew.h"

int ew_data_init(rt_context_t *ctx, rt_node_t *node, void **ret_data) {
        (void) ctx;
        (void) node;
        ew_data_t *d = calloc(1, sizeof(*d));
        if (!d)
                return -ENOMEM;
        *ret_data = d;
        return 0;
}

void ew_data_free(rt_context_t *ctx, void *data) {
        (void) ctx;
        free(data);
}

void ew_bcast_init(ew_bcast_t *bc, const rt_tensor_t *out, const rt_tensor_t *const *in, int n_in) {
        memset(bc, 0, sizeof(*bc));
        bc->rank = out->rank;
        memcpy(bc->dims, out->dims, sizeof(int32_t) * (size_t) out->rank);
        bc->n_in = n_in;
        for (int k = 0; k < n_in; k++)
                ku_bcast_strides(in[k], out->rank, bc->strides[k]);
}

void ew_bcast_run(const ew_bcast_t *bc, ew_row_fn row, void *arg) {
        size_t in[EW_MAX_IN] = { 0 };
        int64_t inner[EW_MAX_IN] = { 0 };
        if (bc->rank == 0) {
                row(arg, 0, in, inner, 1);
                return;
        }
        for (int32_t i = 0; i < bc->rank; i++)
                if (bc->dims[i] <= 0)
                        return;
        int32_t last = bc->rank - 1;
        size_t n = (size_t) bc->dims[last];
        for (int k = 0; k < bc->n_in; k++)
                inner[k] = bc->strides[k][last];
        int32_t idx[RT_MAX_RANK] = { 0 };
        size_t out = 0;
        for (;;) {
                row(arg, out, in, inner, n);
                out += n;
                /* Odometer over the outer dims; input offsets follow. */
                int32_t d = last - 1;
                for (; d >= 0; d--) {
                        idx[d]++;
                        for (int k = 0; k < bc->n_in; k++)
                                in[k] += (size_t) bc->strides[k][d];
                        if (idx[d] < bc->dims[d])
                                break;
                        for (int k = 0; k < bc->n_in; k++)
                                in[k] -= (size_t) bc->strides[k][d] * (size_t) bc->dims[d];
                        idx[d] = 0;
                }
                if (d < 0)
                        return;
        }
}

int ew_resize_bcast(rt_context_t *ctx, rt_node_t *node, const char *op, const rt_tensor_t *a,
                    const rt_tensor_t *b) {
        int32_t rank, dims[RT_MAX_RANK];
        if (ku_bcast_shape(a, b, &rank, dims) < 0) {
                char sa[96] = "", sb[96] = "";
                for (int32_t i = 0, o = 0; i < a->rank && o < 80; i++)
                        o += snprintf(sa + o, sizeof(sa) - (size_t) o, i ? ",%d" : "%d", a->dims[i]);
                for (int32_t i = 0, o = 0; i < b->rank && o < 80; i++)
                        o += snprintf(sb + o, sizeof(sb) - (size_t) o, i ? ",%d" : "%d", b->dims[i]);
                return rt_ctx_error(ctx, "%s: shapes [%s] and [%s] do not broadcast", op, sa, sb);
        }
        int r = rt_ctx_resize(ctx, node, 0, rank, dims);
        if (r < 0)
                return r;
        return 0;
}

int ew_resize_same(rt_context_t *ctx, rt_node_t *node, const rt_tensor_t *in) {
        return rt_ctx_resize(ctx, node, 0, in->rank, in->dims);
}

int ew_check_io(rt_context_t *ctx, const rt_node_t *node, const char *op, int32_t n_in,
                int32_t n_out) {
        if (node->n_inputs != n_in || node->n_outputs != n_out)
                return rt_ctx_error(ctx, "%s: expected %d inputs and %d outputs, got %d and %d", op,
                                    n_in, n_out, node->n_inputs, node->n_outputs);
        for (int32_t i = 0; i < n_in; i++)
                if (!rt_node_input(ctx, node, i))
                        return rt_ctx_error(ctx, "%s: input %d is missing", op, i);
        for (int32_t i = 0; i < n_out; i++)
                if (!rt_node_output(ctx, node, i))
                        return rt_ctx_error(ctx, "%s: output %d is missing", op, i);
        return 0;
}

int ew_unsupported(rt_context_t *ctx, const char *op, rt_type_t in, rt_type_t out) {
        (void) rt_ctx_error(ctx, "%s: unsupported types %s -> %s", op, rt_type_name(in),
                            rt_type_name(out));
        return -ENOTSUP;
}

bool ew_checked_log2(float x, int *ret_log2) {
        /* Single precision, as TFLite computes it. */
        const float x_log2 = logf(x) * (1.0f / logf(2.0f));
        const float rounded = roundf(x_log2);
        *ret_log2 = (int) rounded;
        return fabsf(x_log2 - rounded) < 1e-3f;
}

void ew_lut_populate(ew_data_t *d, const rt_tensor_t *in, const rt_tensor_t *out,
                     float (*fn)(float, const void *), const void *fn_arg) {
        int32_t lo, hi;
        ku_type_range(in->type, &lo, &hi);
        const float inverse_scale = 1.0f / out->scale;
        for (int32_t v = lo; v <= hi; v++) {
                const float x = in->scale * (float) (v - in->zero_point);
                const float y = fn(x, fn_arg);
                const float rescaled = roundf(y * inverse_scale);
                int32_t q = (int32_t) (rescaled + (float) out->zero_point);
                q = KU_CLAMP(q, lo, hi);
                d->lut[(uint8_t) v] = (uint8_t) q;
        }
        d->has_lut = true;
}

void ew_lut_apply(const ew_data_t *d, const rt_tensor_t *in, rt_tensor_t *out) {
        const uint8_t *x = in->data;
        uint8_t *y = out->data;
        size_t n = rt_tensor_count(out);
        for (size_t i = 0; i < n; i++)
                y[i] = d->lut[x[i]];
}
