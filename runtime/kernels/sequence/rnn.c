/* SPDX-License-Identifier: Apache-2.0 */
/*
 * RNN (24) and UNIDIRECTIONAL_SEQUENCE_RNN (35): a fully connected recurrent
 * cell, h = act(W x + R h + b), as TFLite's basic_rnn.cc,
 * unidirectional_sequence_rnn.cc and kernel_utils RnnBatchStep compute it.
 *
 * Inputs: input ([batch, input] for RNN; [batch, time, input] or time-major
 * [time, batch, input] for the sequence op), weights [units, input],
 * recurrent weights [units, units], bias [units], hidden state [batch, units]
 * (variable, updated in place). Output: [batch, units] or
 * [batch, time, units] / [time, batch, units].
 *
 * BIDIRECTIONAL_SEQUENCE_RNN (46) runs a forward and a backward cell over
 * the sequence (see below), with TFLite 2.9's auxiliary input semantics.
 *
 * Types: float32, and hybrid (float activations, int8 weights with a
 * per-tensor scale; inputs quantized per batch row).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kutil.h"
#include "seq-internal.h"
#include "sequence.h"

typedef struct rnn_data {
        int32_t scratch_id;
        bool hybrid;
} rnn_data_t;

static int rnn_parse(const rt_node_t *node, void *ret_params, rt_context_t *ctx) {
        (void) ctx;
        rt_rnn_params_t *p = ret_params;
        p->activation = (rt_activation_t) fbt_i8(node->options, 0, 0);
        p->asymmetric_quantize_inputs = fbt_bool(node->options, 1, false);
        return 0;
}

static int seq_rnn_parse(const rt_node_t *node, void *ret_params, rt_context_t *ctx) {
        (void) ctx;
        rt_rnn_params_t *p = ret_params;
        p->time_major = fbt_bool(node->options, 0, false);
        p->activation = (rt_activation_t) fbt_i8(node->options, 1, 0);
        p->asymmetric_quantize_inputs = fbt_bool(node->options, 2, false);
        return 0;
}

static int rnn_init(rt_context_t *ctx, rt_node_t *node, void **ret_data) {
        (void) ctx;
        (void) node;
        rnn_data_t *d = calloc(1, sizeof(*d));
        if (!d)
                return -ENOMEM;
        *ret_data = d;
        return 0;
}

static void rnn_free(rt_context_t *ctx, void *data) {
        (void) ctx;
        free(data);
}

typedef struct rnn_dims {
        int32_t batch, time, input, units;
} rnn_dims_t;

static void rnn_get_dims(const rt_node_t *node, const rt_rnn_params_t *p, const rt_tensor_t *x,
                         const rt_tensor_t *w, rnn_dims_t *ret) {
        bool seq = node->op == RT_OP_UNIDIRECTIONAL_SEQUENCE_RNN;
        ret->input = x->dims[x->rank - 1];
        ret->units = w->dims[0];
        if (!seq) {
                ret->batch = x->dims[0];
                ret->time = 1;
        } else {
                ret->batch = p->time_major ? x->dims[1] : x->dims[0];
                ret->time = p->time_major ? x->dims[0] : x->dims[1];
        }
}

static int rnn_prepare(rt_context_t *ctx, rt_node_t *node) {
        const char *nm = node->reg->name;
        const rt_rnn_params_t *p = node->params;
        rnn_data_t *d = node->user_data;
        if (!p || !d)
                return rt_ctx_error(ctx, "%s: missing params", nm);
        if (node->n_inputs != 5 || node->n_outputs != 1)
                return rt_ctx_error(ctx, "%s: expected 5 inputs and 1 output", nm);
        rt_tensor_t *x = rt_node_input(ctx, node, 0), *w = rt_node_input(ctx, node, 1);
        rt_tensor_t *r = rt_node_input(ctx, node, 2), *b = rt_node_input(ctx, node, 3);
        rt_tensor_t *h = rt_node_input(ctx, node, 4), *out = rt_node_output(ctx, node, 0);
        if (!x || !w || !r || !b || !h || !out)
                return rt_ctx_error(ctx, "%s: a required tensor is missing", nm);
        bool seq = node->op == RT_OP_UNIDIRECTIONAL_SEQUENCE_RNN;
        if (x->rank != (seq ? 3 : 2) || w->rank != 2 || r->rank != 2 || b->rank != 1 || h->rank != 2)
                return rt_ctx_error(ctx, "%s: bad tensor ranks", nm);
        rnn_dims_t dm;
        rnn_get_dims(node, p, x, w, &dm);
        if (w->dims[1] != dm.input || r->dims[0] != dm.units || r->dims[1] != dm.units || b->dims[0] != dm.units)
                return rt_ctx_error(ctx, "%s: weights do not match %d units of input %d", nm, dm.units, dm.input);
        if (h->dims[0] != dm.batch || h->dims[1] != dm.units)
                return rt_ctx_error(ctx, "%s: hidden state must be [%d, %d]", nm, dm.batch, dm.units);
        if (x->type != RT_TYPE_FLOAT32 || b->type != RT_TYPE_FLOAT32 || h->type != RT_TYPE_FLOAT32 ||
            out->type != RT_TYPE_FLOAT32)
                return rt_ctx_error(ctx, "%s: input, bias, hidden state and output must be float32", nm);
        /* TFLite reads uint8 hybrid weights as int8 bytes (GetTensorData<int8_t>),
         * zero point ignored: the same bytes, the same result. */
        d->hybrid = w->type == RT_TYPE_INT8 || w->type == RT_TYPE_UINT8;
        if (!d->hybrid && w->type != RT_TYPE_FLOAT32) {
                (void) rt_ctx_error(ctx, "%s: %s weights are not supported", nm, rt_type_name(w->type));
                return -ENOTSUP;
        }
        if (r->type != w->type)
                return rt_ctx_error(ctx, "%s: weights and recurrent weights differ in type", nm);
        size_t bytes = (size_t) dm.batch * dm.units * sizeof(float);
        if (d->hybrid)
                bytes += (size_t) dm.batch * (dm.input + dm.units) + (size_t) dm.batch * 8 + 8;
        int ret = ctx->request_scratch(ctx, node, bytes, &d->scratch_id);
        if (ret < 0)
                return ret;
        int32_t dims[3];
        memcpy(dims, x->dims, sizeof(int32_t) * (size_t) x->rank);
        dims[x->rank - 1] = dm.units;
        return rt_ctx_resize(ctx, node, 0, x->rank, dims);
}

typedef struct rnn_hyb {
        int8_t *qx, *qh, *qa;
        float *sf;
        int32_t *zp;
} rnn_hyb_t;

/* An auxiliary input of a step (BIDIRECTIONAL_SEQUENCE_RNN): n_batch rows
 * of n_aux values from `x`, and its weights [units, n_aux]. */
typedef struct rnn_aux {
        const float *x;
        int32_t n_aux;
        const rt_tensor_t *w;
} rnn_aux_t;

/* RnnBatchStep for n_batch rows: y rows are out_lead floats apart; tmp
 * holds n_batch * n_units floats. */
static void rnn_step_aux(const rt_rnn_params_t *p, const rt_tensor_t *w, const rt_tensor_t *r, const float *bias,
                         int32_t n_batch, int32_t n_input, int32_t n_units, const float *x, const rnn_aux_t *aux,
                         float *h, float *y, int32_t out_lead, float *tmp, const rnn_hyb_t *hy) {
        float *out = y;
        y = tmp;
        for (int32_t b = 0; b < n_batch; b++)
                memcpy(y + (size_t) b * n_units, bias, (size_t) n_units * sizeof(float));
        if (!hy) {
                const float *wd = w->data, *rd = r->data;
                for (int32_t b = 0; b < n_batch; b++) {
                        for (int32_t u = 0; u < n_units; u++) {
                                float dot = 0.0f;
                                for (int32_t k = 0; k < n_input; k++)
                                        dot += wd[(size_t) u * n_input + k] * x[(size_t) b * n_input + k];
                                y[(size_t) b * n_units + u] += dot;
                        }
                }
                for (int32_t b = 0; aux && b < n_batch; b++) {
                        const float *ad = aux->w->data;
                        for (int32_t u = 0; u < n_units; u++) {
                                float dot = 0.0f;
                                for (int32_t k = 0; k < aux->n_aux; k++)
                                        dot += ad[(size_t) u * aux->n_aux + k] * aux->x[(size_t) b * aux->n_aux + k];
                                y[(size_t) b * n_units + u] += dot;
                        }
                }
                for (int32_t b = 0; b < n_batch; b++) {
                        for (int32_t u = 0; u < n_units; u++) {
                                float dot = 0.0f;
                                for (int32_t k = 0; k < n_units; k++)
                                        dot += rd[(size_t) u * n_units + k] * h[(size_t) b * n_units + k];
                                y[(size_t) b * n_units + u] += dot;
                        }
                }
        } else {
                bool asym = p->asymmetric_quantize_inputs;
                if (!seq__is_zero(x, (size_t) n_batch * n_input)) {
                        for (int32_t b = 0; b < n_batch; b++)
                                seq__quantize_row(x + (size_t) b * n_input, n_input, hy->qx + (size_t) b * n_input,
                                                  &hy->sf[b], &hy->zp[b], asym);
                        seq__mbvma_hybrid(w->data, n_units, n_input, w->scale, hy->qx, hy->sf, asym ? hy->zp : NULL,
                                          n_batch, y);
                }
                if (aux && !seq__is_zero(aux->x, (size_t) n_batch * aux->n_aux)) {
                        for (int32_t b = 0; b < n_batch; b++)
                                seq__quantize_row(aux->x + (size_t) b * aux->n_aux, aux->n_aux,
                                                  hy->qa + (size_t) b * aux->n_aux, &hy->sf[b], &hy->zp[b], asym);
                        seq__mbvma_hybrid(aux->w->data, n_units, aux->n_aux, aux->w->scale, hy->qa, hy->sf,
                                          asym ? hy->zp : NULL, n_batch, y);
                }
                if (!seq__is_zero(h, (size_t) n_batch * n_units)) {
                        for (int32_t b = 0; b < n_batch; b++)
                                seq__quantize_row(h + (size_t) b * n_units, n_units, hy->qh + (size_t) b * n_units,
                                                  &hy->sf[b], &hy->zp[b], asym);
                        seq__mbvma_hybrid(r->data, n_units, n_units, r->scale, hy->qh, hy->sf, asym ? hy->zp : NULL,
                                          n_batch, y);
                }
        }
        size_t n = (size_t) n_batch * n_units;
        for (size_t i = 0; i < n; i++)
                y[i] = seq__activate(p->activation, y[i]);
        memcpy(h, y, n * sizeof(float));
        for (int32_t b = 0; b < n_batch; b++)
                memcpy(out + (size_t) b * out_lead, y + (size_t) b * n_units, (size_t) n_units * sizeof(float));
}

static void rnn_step(const rt_rnn_params_t *p, const rt_tensor_t *w, const rt_tensor_t *r, const float *bias,
                     int32_t n_batch, int32_t n_input, int32_t n_units, const float *x, float *h, float *y,
                     int32_t out_lead, float *tmp, const rnn_hyb_t *hy) {
        rnn_step_aux(p, w, r, bias, n_batch, n_input, n_units, x, NULL, h, y, out_lead, tmp, hy);
}

/* Carve the scratch buffer: tmp (max_units * batch floats), then the
 * hybrid factors and quantized rows (input, hidden state of `units`, and
 * after them an auxiliary input's). */
static int rnn_scratch(rt_context_t *ctx, rt_node_t *node, const rnn_data_t *d, int32_t batch, int32_t units,
                       int32_t input, float **ret_tmp, rnn_hyb_t *hy, rnn_hyb_t **ret_hy) {
        uint8_t *s = ctx->get_scratch(ctx, node, d->scratch_id);
        if (!s)
                return rt_ctx_error(ctx, "%s: scratch buffer missing", node->reg->name);
        *ret_tmp = (float *) (void *) s;
        *ret_hy = NULL;
        if (d->hybrid) {
                hy->sf = *ret_tmp + (size_t) batch * units;
                hy->zp = (int32_t *) (hy->sf + batch);
                hy->qx = (int8_t *) (hy->zp + batch);
                hy->qh = hy->qx + (size_t) batch * input;
                hy->qa = hy->qh + (size_t) batch * units;
                *ret_hy = hy;
        }
        return 0;
}

static int rnn_invoke(rt_context_t *ctx, rt_node_t *node) {
        const rt_rnn_params_t *p = node->params;
        const rnn_data_t *d = node->user_data;
        rt_tensor_t *x = rt_node_input(ctx, node, 0), *w = rt_node_input(ctx, node, 1);
        rt_tensor_t *r = rt_node_input(ctx, node, 2), *b = rt_node_input(ctx, node, 3);
        rt_tensor_t *h = rt_node_input(ctx, node, 4), *out = rt_node_output(ctx, node, 0);
        if (!x->data || !w->data || !r->data || !b->data || !h->data || !out->data)
                return rt_ctx_error(ctx, "%s: tensor without data", node->reg->name);
        rnn_dims_t dm;
        rnn_get_dims(node, p, x, w, &dm);
        rnn_hyb_t hy, *hyp = NULL;
        float *tmp = NULL;
        int ret = rnn_scratch(ctx, node, d, dm.batch, dm.units, dm.input, &tmp, &hy, &hyp);
        if (ret < 0)
                return ret;
        const float *xd = x->data, *bias = b->data;
        float *hd = h->data, *y = out->data;
        bool batch_major = node->op == RT_OP_UNIDIRECTIONAL_SEQUENCE_RNN && !p->time_major;
        if (!batch_major) {
                for (int32_t t = 0; t < dm.time; t++)
                        rnn_step(p, w, r, bias, dm.batch, dm.input, dm.units, xd + (size_t) t * dm.batch * dm.input,
                                 hd, y + (size_t) t * dm.batch * dm.units, dm.units, tmp, hyp);
                return 0;
        }
        for (int32_t bb = 0; bb < dm.batch; bb++) {
                for (int32_t t = 0; t < dm.time; t++) {
                        size_t off = (size_t) bb * dm.time + t;
                        rnn_step(p, w, r, bias, 1, dm.input, dm.units, xd + off * dm.input,
                                 hd + (size_t) bb * dm.units, y + off * dm.units, dm.units, tmp, hyp);
                }
        }
        return 0;
}

const rt_registration_t rt_kernel_rnn = {
        .name = "RNN",
        .op = RT_OP_RNN,
        .params_size = sizeof(rt_rnn_params_t),
        .parse = rnn_parse,
        .init = rnn_init,
        .free = rnn_free,
        .prepare = rnn_prepare,
        .invoke = rnn_invoke,
};

const rt_registration_t rt_kernel_unidirectional_sequence_rnn = {
        .name = "UNIDIRECTIONAL_SEQUENCE_RNN",
        .op = RT_OP_UNIDIRECTIONAL_SEQUENCE_RNN,
        .params_size = sizeof(rt_rnn_params_t),
        .parse = seq_rnn_parse,
        .init = rnn_init,
        .free = rnn_free,
        .prepare = rnn_prepare,
        .invoke = rnn_invoke,
};

/* ---- BIDIRECTIONAL_SEQUENCE_RNN (46) ----
 * Inputs: 0 input, 1-4 forward weights, recurrent weights, bias, hidden
 * state, 5-8 the same for the backward cell, 9-11 aux input and aux weights
 * (optional; see birnn_prepare). Outputs: forward [.., fw_units] and backward
 * [.., bw_units], or one merged output [.., fw_units + bw_units]. */

static int birnn_parse(const rt_node_t *node, void *ret_params, rt_context_t *ctx) {
        (void) ctx;
        rt_rnn_params_t *p = ret_params;
        p->time_major = fbt_bool(node->options, 0, false);
        p->activation = (rt_activation_t) fbt_i8(node->options, 1, 0);
        p->merge_outputs = fbt_bool(node->options, 2, false);
        p->asymmetric_quantize_inputs = fbt_bool(node->options, 3, false);
        return 0;
}

static int birnn_check_cell(rt_context_t *ctx, rt_node_t *node, int first, int32_t batch, int32_t input,
                            bool *ret_hybrid, int32_t *ret_units) {
        const char *nm = node->reg->name;
        rt_tensor_t *w = rt_node_input(ctx, node, first), *r = rt_node_input(ctx, node, first + 1);
        rt_tensor_t *b = rt_node_input(ctx, node, first + 2), *h = rt_node_input(ctx, node, first + 3);
        if (!w || !r || !b || !h)
                return rt_ctx_error(ctx, "%s: a required tensor is missing", nm);
        if (w->rank != 2 || r->rank != 2 || b->rank != 1 || h->rank != 2)
                return rt_ctx_error(ctx, "%s: bad tensor ranks", nm);
        int32_t units = w->dims[0];
        if (w->dims[1] != input || r->dims[0] != units || r->dims[1] != units || b->dims[0] != units ||
            h->dims[0] != batch || h->dims[1] != units)
                return rt_ctx_error(ctx, "%s: cell at input %d does not match %d units of input %d", nm, first,
                                    units, input);
        if (b->type != RT_TYPE_FLOAT32 || h->type != RT_TYPE_FLOAT32 || r->type != w->type ||
            (w->type != RT_TYPE_FLOAT32 && w->type != RT_TYPE_INT8 && w->type != RT_TYPE_UINT8))
                return rt_ctx_error(ctx, "%s: unsupported types for the cell at input %d", nm, first);
        *ret_hybrid = w->type != RT_TYPE_FLOAT32;
        *ret_units = units;
        return 0;
}

static int birnn_prepare(rt_context_t *ctx, rt_node_t *node) {
        const char *nm = node->reg->name;
        const rt_rnn_params_t *p = node->params;
        rnn_data_t *d = node->user_data;
        if (!p || !d)
                return rt_ctx_error(ctx, "%s: missing params", nm);
        if (node->n_inputs < 9 || node->n_outputs != (p->merge_outputs ? 1 : 2))
                return rt_ctx_error(ctx, "%s: expected 9-12 inputs and %d outputs", nm, p->merge_outputs ? 1 : 2);
        rt_tensor_t *x = rt_node_input(ctx, node, 0);
        if (!x || x->rank != 3 || x->type != RT_TYPE_FLOAT32)
                return rt_ctx_error(ctx, "%s: input must be 3-D float32", nm);
        int32_t batch = p->time_major ? x->dims[1] : x->dims[0];
        int32_t input = x->dims[2];
        /* Auxiliary input (9) and its weights (10, 11), as TFLite 2.9 reads
         * them: with weights, each cell adds aux weights x aux input, the
         * aux rows found at steps of the *input* size when time-major or
         * hybrid, of the aux size for float batch-major (so there an aux
         * input narrower than the input would be read past its end:
         * refused); without weights, the time-major backward cell reads the
         * aux input in place of the input, with the input's row size. */
        rt_tensor_t *aux = node->n_inputs > 9 ? rt_node_input(ctx, node, 9) : NULL;
        rt_tensor_t *faw = node->n_inputs > 10 ? rt_node_input(ctx, node, 10) : NULL;
        rt_tensor_t *baw = node->n_inputs > 11 ? rt_node_input(ctx, node, 11) : NULL;
        int32_t n_aux = 0;
        if (!faw != !baw)
                return rt_ctx_error(ctx, "%s: both or neither auxiliary weights", nm);
        if (aux && (aux->type != RT_TYPE_FLOAT32 || aux->rank != 3))
                return rt_ctx_error(ctx, "%s: auxiliary input must be 3-D float32", nm);
        if (faw) {
                if (!aux || aux->dims[0] != x->dims[0] || aux->dims[1] != x->dims[1])
                        return rt_ctx_error(ctx, "%s: auxiliary input must match the input but for its last "
                                            "dimension", nm);
                n_aux = aux->dims[2];
                rt_tensor_t *w1 = rt_node_input(ctx, node, 1), *w5 = rt_node_input(ctx, node, 5);
                if (!w1 || !w5 || faw->rank != 2 || baw->rank != 2 || faw->dims[0] != w1->dims[0] ||
                    baw->dims[0] != w5->dims[0] || faw->dims[1] != n_aux || baw->dims[1] != n_aux ||
                    faw->type != w1->type || baw->type != w5->type)
                        return rt_ctx_error(ctx, "%s: auxiliary weights do not match", nm);
                if (n_aux < input && (p->time_major || w1->type != RT_TYPE_FLOAT32)) {
                        (void) rt_ctx_error(ctx, "%s: an auxiliary input narrower than the input (%d < %d) is "
                                            "read past its end by TFLite", nm, n_aux, input);
                        return -ENOTSUP;
                }
        } else if (aux && p->time_major && rt_tensor_count(aux) < rt_tensor_count(x)) {
                (void) rt_ctx_error(ctx, "%s: the backward cell reads the auxiliary input as the input; it is "
                                    "smaller", nm);
                return -ENOTSUP;
        }
        bool hyb_fw, hyb_bw;
        int32_t fw_units, bw_units;
        int r = birnn_check_cell(ctx, node, 1, batch, input, &hyb_fw, &fw_units);
        if (r < 0)
                return r;
        r = birnn_check_cell(ctx, node, 5, batch, input, &hyb_bw, &bw_units);
        if (r < 0)
                return r;
        if (hyb_fw != hyb_bw || rt_node_input(ctx, node, 1)->type != rt_node_input(ctx, node, 5)->type)
                return rt_ctx_error(ctx, "%s: forward and backward weights differ in type", nm);
        d->hybrid = hyb_fw;
        for (int i = 0; i < node->n_outputs; i++) {
                rt_tensor_t *o = rt_node_output(ctx, node, i);
                if (!o || o->type != RT_TYPE_FLOAT32)
                        return rt_ctx_error(ctx, "%s: outputs must be float32", nm);
        }
        int32_t units = fw_units > bw_units ? fw_units : bw_units;
        size_t bytes = (size_t) batch * units * sizeof(float);
        if (d->hybrid)
                bytes += (size_t) batch * (input + units + n_aux) + (size_t) batch * 8 + 8;
        r = ctx->request_scratch(ctx, node, bytes, &d->scratch_id);
        if (r < 0)
                return r;
        int32_t dims[3] = { x->dims[0], x->dims[1], p->merge_outputs ? fw_units + bw_units : fw_units };
        r = rt_ctx_resize(ctx, node, 0, 3, dims);
        if (r < 0 || p->merge_outputs)
                return r;
        /* TFLite sizes the backward output [batch, time, units] whatever
         * time_major says (the data is written in the input's order). */
        dims[0] = batch;
        dims[1] = p->time_major ? x->dims[0] : x->dims[1];
        dims[2] = bw_units;
        return rt_ctx_resize(ctx, node, 1, 3, dims);
}

static int birnn_invoke(rt_context_t *ctx, rt_node_t *node) {
        const rt_rnn_params_t *p = node->params;
        const rnn_data_t *d = node->user_data;
        rt_tensor_t *t[9];
        for (int i = 0; i < 9; i++) {
                t[i] = rt_node_input(ctx, node, i);
                if (!t[i]->data)
                        return rt_ctx_error(ctx, "%s: input %d has no data", node->reg->name, i);
        }
        rt_tensor_t *fw_out = rt_node_output(ctx, node, 0);
        rt_tensor_t *bw_out = p->merge_outputs ? fw_out : rt_node_output(ctx, node, 1);
        if (!fw_out->data || !bw_out->data)
                return rt_ctx_error(ctx, "%s: output without data", node->reg->name);
        const rt_tensor_t *x = t[0];
        const int32_t batch = p->time_major ? x->dims[1] : x->dims[0];
        const int32_t time = p->time_major ? x->dims[0] : x->dims[1];
        const int32_t input = x->dims[2];
        const int32_t fw_units = t[1]->dims[0], bw_units = t[5]->dims[0];
        const int32_t fw_step = p->merge_outputs ? fw_units + bw_units : fw_units;
        const int32_t bw_step = p->merge_outputs ? fw_units + bw_units : bw_units;
        rnn_hyb_t hy, *hyp = NULL;
        float *tmp = NULL;
        int r = rnn_scratch(ctx, node, d, batch, fw_units > bw_units ? fw_units : bw_units, input, &tmp, &hy, &hyp);
        if (r < 0)
                return r;
        const float *xd = x->data;
        float *fw_h = t[4]->data, *bw_h = t[8]->data;
        const rt_tensor_t *aux = node->n_inputs > 9 ? rt_node_input(ctx, node, 9) : NULL;
        const rt_tensor_t *faw = node->n_inputs > 10 ? rt_node_input(ctx, node, 10) : NULL;
        const rt_tensor_t *baw = node->n_inputs > 11 ? rt_node_input(ctx, node, 11) : NULL;
        if ((aux && !aux->data) || (faw && (!faw->data || !baw->data)))
                return rt_ctx_error(ctx, "%s: auxiliary input without data", node->reg->name);
        const float *ad = aux ? aux->data : NULL;
        /* Without aux weights the time-major backward cell reads the aux
         * input (TFLite's "non-stacking" mode; batch-major reads the input). */
        const float *bw_xd = aux && !faw ? ad : xd;
        rnn_aux_t fa = { .n_aux = faw ? aux->dims[2] : 0, .w = faw }, ba = { .n_aux = fa.n_aux, .w = baw };
        const rnn_aux_t *fap = faw ? &fa : NULL, *bap = faw ? &ba : NULL;
        float *fw_y = fw_out->data;
        float *bw_y = (float *) bw_out->data + (p->merge_outputs ? fw_units : 0);
        if (p->time_major) {
                /* TFLite 2.9's hybrid time-major path wraps both cells in
                 * one more loop over time: the sequence runs `time` times,
                 * the hidden states carrying over, and the last pass stays
                 * in the outputs. The float path runs it once. */
                const int32_t passes = d->hybrid ? time : 1;
                for (int32_t pass = 0; pass < passes; pass++) {
                        for (int32_t s = 0; s < time; s++) {
                                fa.x = ad ? ad + (size_t) s * batch * input : NULL;
                                rnn_step_aux(p, t[1], t[2], t[3]->data, batch, input, fw_units,
                                             xd + (size_t) s * batch * input, fap, fw_h,
                                             fw_y + (size_t) s * batch * fw_step, fw_step, tmp, hyp);
                        }
                        for (int32_t s = time - 1; s >= 0; s--) {
                                ba.x = ad ? ad + (size_t) s * batch * input : NULL;
                                rnn_step_aux(p, t[5], t[6], t[7]->data, batch, input, bw_units,
                                             bw_xd + (size_t) s * batch * input, bap, bw_h,
                                             bw_y + (size_t) s * batch * bw_step, bw_step, tmp, hyp);
                        }
                }
                return 0;
        }
        const int32_t aux_row = d->hybrid ? input : fa.n_aux;
        for (int32_t b = 0; b < batch; b++) {
                for (int32_t s = 0; s < time; s++) {
                        fa.x = ad ? ad + ((size_t) b * time + s) * aux_row : NULL;
                        rnn_step_aux(p, t[1], t[2], t[3]->data, 1, input, fw_units,
                                     xd + ((size_t) b * time + s) * input, fap, fw_h + (size_t) b * fw_units,
                                     fw_y + ((size_t) b * time + s) * fw_step, fw_step, tmp, hyp);
                }
                for (int32_t s = time - 1; s >= 0; s--) {
                        ba.x = ad ? ad + ((size_t) b * time + s) * aux_row : NULL;
                        rnn_step_aux(p, t[5], t[6], t[7]->data, 1, input, bw_units,
                                     xd + ((size_t) b * time + s) * input, bap, bw_h + (size_t) b * bw_units,
                                     bw_y + ((size_t) b * time + s) * bw_step, bw_step, tmp, hyp);
                }
        }
        return 0;
}

const rt_registration_t rt_kernel_bidirectional_sequence_rnn = {
        .name = "BIDIRECTIONAL_SEQUENCE_RNN",
        .op = RT_OP_BIDIRECTIONAL_SEQUENCE_RNN,
        .params_size = sizeof(rt_rnn_params_t),
        .parse = birnn_parse,
        .init = rnn_init,
        .free = rnn_free,
        .prepare = birnn_prepare,
        .invoke = birnn_invoke,
};
