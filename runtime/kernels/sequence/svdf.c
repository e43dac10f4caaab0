/* SPDX-License-Identifier: Apache-2.0 */
/*
 * SVDF: a fully connected layer factored into a feature matmul and a
 * per-filter time filter over a rolling state (TFLite svdf.cc and
 * reference/svdf.h). Inputs: input [batch, input_size], weights_feature
 * [num_filters, input_size], weights_time [num_filters, memory_size], bias
 * [num_units] (optional), state [batch, memory_size * num_filters]
 * (variable). Output [batch, num_units], num_units = num_filters / rank.
 */
#include <stdlib.h>
#include <string.h>

#include "elementwise/fastmath.h"
#include "kutil.h"
#include "seq-internal.h"
#include "sequence.h"

typedef struct svdf_data {
        int32_t scratch_id;       /* float or int32 [batch * num_filters] */
        int32_t output_temp_id;   /* int32 [batch * num_units] (integer path) */
        int32_t hybrid_id;        /* hybrid: float time weights, quantized input, factors */
        bool hybrid;
        int32_t scale_1_a, scale_2_a;
        int scale_1_b, scale_2_b;
} svdf_data_t;

static int svdf_parse(const rt_node_t *node, void *ret_params, rt_context_t *ctx) {
        (void) ctx;
        rt_svdf_params_t *p = ret_params;
        p->rank = fbt_i32(node->options, 0, 0);
        p->activation = (rt_activation_t) fbt_i8(node->options, 1, 0);
        p->asymmetric_quantize_inputs = fbt_bool(node->options, 2, false);
        return 0;
}

static int svdf_init(rt_context_t *ctx, rt_node_t *node, void **ret_data) {
        (void) ctx;
        (void) node;
        svdf_data_t *d = calloc(1, sizeof(*d));
        if (!d)
                return -ENOMEM;
        *ret_data = d;
        return 0;
}

static void svdf_free(rt_context_t *ctx, void *data) {
        (void) ctx;
        free(data);
}

static int svdf_prepare(rt_context_t *ctx, rt_node_t *node) {
        const rt_svdf_params_t *p = node->params;
        svdf_data_t *d = node->user_data;
        if (!p || !d)
                return rt_ctx_error(ctx, "SVDF: missing params");
        if (node->n_inputs != 5 || node->n_outputs != 1)
                return rt_ctx_error(ctx, "SVDF: expected 5 inputs and 1 output, got %d and %d",
                                    node->n_inputs, node->n_outputs);
        rt_tensor_t *in = rt_node_input(ctx, node, 0);
        rt_tensor_t *wf = rt_node_input(ctx, node, 1);
        rt_tensor_t *wt = rt_node_input(ctx, node, 2);
        rt_tensor_t *bias = rt_node_input(ctx, node, 3);
        rt_tensor_t *state = rt_node_input(ctx, node, 4);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        if (!in || !wf || !wt || !state || !out)
                return rt_ctx_error(ctx, "SVDF: a required tensor is missing");
        if (in->rank != 2 || wf->rank != 2 || wt->rank != 2)
                return rt_ctx_error(ctx, "SVDF: input, weights_feature and weights_time must be 2-D");
        int32_t batch = in->dims[0], input_size = in->dims[1];
        int32_t num_filters = wf->dims[0], memory_size = wt->dims[1];
        if (p->rank <= 0 || num_filters % p->rank != 0)
                return rt_ctx_error(ctx, "SVDF: rank %d does not divide %d filters", p->rank, num_filters);
        int32_t num_units = num_filters / p->rank;
        if (wf->dims[1] != input_size)
                return rt_ctx_error(ctx, "SVDF: weights_feature has %d columns, input has %d",
                                    wf->dims[1], input_size);
        if (wt->dims[0] != num_filters || memory_size <= 0)
                return rt_ctx_error(ctx, "SVDF: weights_time shape does not match %d filters", num_filters);
        if (bias && (bias->rank != 1 || bias->dims[0] != num_units))
                return rt_ctx_error(ctx, "SVDF: bias must have %d elements", num_units);
        if (state->rank != 2 || state->dims[0] != batch || state->dims[1] != memory_size * num_filters)
                return rt_ctx_error(ctx, "SVDF: state must be [%d, %d]", batch, memory_size * num_filters);

        if (in->type == RT_TYPE_FLOAT32) {
                /* TFLite reads uint8 hybrid weights as int8 bytes, zero point
                 * ignored (GetTensorData<int8_t>). */
                d->hybrid = wf->type == RT_TYPE_INT8 || wf->type == RT_TYPE_UINT8;
                if (wf->type != RT_TYPE_FLOAT32 && !d->hybrid) {
                        (void) rt_ctx_error(ctx, "SVDF: %s weights with float input are not supported",
                                            rt_type_name(wf->type));
                        return -ENOTSUP;
                }
                rt_type_t wtype = d->hybrid ? RT_TYPE_INT8 : RT_TYPE_FLOAT32;
                bool wt_ok = d->hybrid ? wt->type == RT_TYPE_INT8 || wt->type == RT_TYPE_UINT8 : wt->type == wtype;
                if (!wt_ok || state->type != RT_TYPE_FLOAT32 || out->type != RT_TYPE_FLOAT32 ||
                    (bias && bias->type != RT_TYPE_FLOAT32))
                        return rt_ctx_error(ctx, "SVDF: %s model needs %s weights_time and float32 bias, "
                                            "state and output", d->hybrid ? "hybrid" : "float32",
                                            rt_type_name(wtype));
                if (d->hybrid) {
                        size_t bytes = ((size_t) num_filters * memory_size + 2 * (size_t) batch) * 4 +
                                       (size_t) batch * input_size;
                        int r = ctx->request_scratch(ctx, node, bytes, &d->hybrid_id);
                        if (r < 0)
                                return r;
                }
        } else if (in->type == RT_TYPE_INT8) {
                if (wf->type != RT_TYPE_INT8 || wt->type != RT_TYPE_INT16 || state->type != RT_TYPE_INT16 ||
                    out->type != RT_TYPE_INT8 || (bias && bias->type != RT_TYPE_INT32))
                        return rt_ctx_error(ctx, "SVDF: int8 model needs int8 weights_feature, int16 "
                                            "weights_time and state, int32 bias, int8 output");
                if (p->activation != RT_ACT_RELU)
                        return rt_ctx_error(ctx, "SVDF: the integer kernel supports only RELU");
                if (in->scale <= 0 || wf->scale <= 0 || wt->scale <= 0 || state->scale <= 0 || out->scale <= 0)
                        return rt_ctx_error(ctx, "SVDF: int8 tensors need quantization scales");
                /* TFLite computes these products in float, then widens. */
                float s1 = in->scale * wf->scale / state->scale;
                float s2 = state->scale * wt->scale / out->scale;
                ku_quantize_multiplier((double) s1, &d->scale_1_a, &d->scale_1_b);
                ku_quantize_multiplier((double) s2, &d->scale_2_a, &d->scale_2_b);
        } else {
                return rt_ctx_error(ctx, "SVDF: input type %s is not supported", rt_type_name(in->type));
        }

        int r = ctx->request_scratch(ctx, node, (size_t) batch * num_filters * 4, &d->scratch_id);
        if (r < 0)
                return r;
        if (in->type == RT_TYPE_INT8) {
                r = ctx->request_scratch(ctx, node, (size_t) batch * num_units * 4, &d->output_temp_id);
                if (r < 0)
                        return r;
        }
        return rt_ctx_resize(ctx, node, 0, 2, (int32_t[]){ batch, num_units });
}

/* Float and hybrid SVDF. `hyb` (hybrid only) holds the dequantized time
 * weights, then 2 * batch floats of factors and the quantized input. */
static void svdf_eval_float(const rt_svdf_params_t *p, const rt_tensor_t *in, const rt_tensor_t *wf,
                            const rt_tensor_t *wt, const rt_tensor_t *bias, rt_tensor_t *state,
                            rt_tensor_t *out, float *scratch, float *hyb) {
        const int32_t batch = in->dims[0], input_size = in->dims[1];
        const int32_t num_filters = wf->dims[0], memory_size = wt->dims[1];
        const int32_t num_units = num_filters / p->rank;
        const float *x = in->data, *w_t = wt->data;
        const float *b = bias ? bias->data : NULL;
        float *s = state->data, *o = out->data;

        size_t total = (size_t) batch * memory_size * num_filters;
        memmove(s, s + 1, (total - 1) * sizeof(float));

        if (!hyb) {
                const float *w_f = wf->data;
                for (int32_t i = 0; i < batch; i++) {
                        for (int32_t f = 0; f < num_filters; f++) {
                                float dot = 0.0f;
                                const float *row = w_f + (size_t) f * input_size;
                                const float *v = x + (size_t) i * input_size;
                                for (int32_t k = 0; k < input_size; k++)
                                        dot += row[k] * v[k];
                                s[((size_t) i * num_filters + f) * memory_size + memory_size - 1] = dot;
                        }
                }
        } else {
                /* TFLite EvalHybridSVDF: quantize each input row, int8 matmul. */
                float *wt_f = hyb, *sf = hyb + (size_t) num_filters * memory_size;
                int32_t *zp = (int32_t *) (sf + batch);
                int8_t *q = (int8_t *) (zp + batch);
                const int8_t *wt_q = wt->data;
                for (size_t i = 0; i < (size_t) num_filters * memory_size; i++)
                        wt_f[i] = wt_q[i] * wt->scale;
                w_t = wt_f;
                memset(scratch, 0, (size_t) batch * num_filters * sizeof(float));
                if (!seq__is_zero(x, (size_t) batch * input_size)) {
                        for (int32_t i = 0; i < batch; i++)
                                seq__quantize_row(x + (size_t) i * input_size, input_size, q + (size_t) i * input_size,
                                                  &sf[i], &zp[i], p->asymmetric_quantize_inputs);
                        seq__mbvma_hybrid(wf->data, num_filters, input_size, wf->scale, q, sf,
                                          p->asymmetric_quantize_inputs ? zp : NULL, batch, scratch);
                }
                for (size_t i = 0; i < (size_t) batch * num_filters; i++)
                        s[i * memory_size + memory_size - 1] = scratch[i];
        }

        for (int32_t i = 0; i < batch; i++) {
                const float *sb = s + (size_t) i * memory_size * num_filters;
                for (int32_t f = 0; f < num_filters; f++) {
                        float dot = 0.0f;
                        for (int32_t m = 0; m < memory_size; m++)
                                dot += w_t[(size_t) f * memory_size + m] * sb[(size_t) f * memory_size + m];
                        scratch[(size_t) i * num_filters + f] = dot;
                }
        }

        float lo, hi;
        ku_act_range_f32(p->activation, &lo, &hi);
        for (int32_t i = 0; i < batch; i++) {
                for (int32_t u = 0; u < num_units; u++) {
                        float sum = 0.0f;
                        for (int32_t r = 0; r < p->rank; r++)
                                sum += scratch[(size_t) i * num_filters + (size_t) u * p->rank + r];
                        if (b)
                                sum += b[u];
                        float v = sum;
                        if (p->activation == RT_ACT_TANH)
                                v = ew_tanh_fast(v); /* ApplyActivationToVector: Eigen's tanh */
                        else if (p->activation == RT_ACT_SIGN_BIT)
                                v = signbit(v) ? 1.0f : 0.0f;
                        else
                                v = ku_act_f32(v, lo, hi);
                        o[(size_t) i * num_units + u] = v;
                }
        }
}

static void svdf_eval_int8(const rt_svdf_params_t *p, const svdf_data_t *d, const rt_tensor_t *in,
                           const rt_tensor_t *wf, const rt_tensor_t *wt, const rt_tensor_t *bias,
                           rt_tensor_t *state, rt_tensor_t *out, int32_t *scratch, int32_t *temp) {
        const int32_t batch = in->dims[0], input_size = in->dims[1];
        const int32_t num_filters = wf->dims[0], memory_size = wt->dims[1];
        const int32_t num_units = num_filters / p->rank;
        const int8_t *x = in->data, *w_f = wf->data;
        const int16_t *w_t = wt->data;
        const int32_t *b = bias ? bias->data : NULL;
        int16_t *s = state->data;
        int8_t *o = out->data;
        const int32_t in_zp = in->zero_point, out_zp = out->zero_point;

        size_t total = (size_t) batch * memory_size * num_filters;
        memmove(s, s + 1, (total - 1) * sizeof(int16_t));

        for (int32_t i = 0; i < batch; i++) {
                for (int32_t f = 0; f < num_filters; f++) {
                        int32_t dot = 0;
                        const int8_t *row = w_f + (size_t) f * input_size;
                        const int8_t *v = x + (size_t) i * input_size;
                        for (int32_t k = 0; k < input_size; k++)
                                dot += (int32_t) row[k] * ((int32_t) v[k] - in_zp);
                        dot = ku_mul_by_qmul(dot, d->scale_1_a, d->scale_1_b);
                        dot = KU_CLAMP(dot, INT16_MIN, INT16_MAX);
                        s[((size_t) i * num_filters + f) * memory_size + memory_size - 1] = (int16_t) dot;
                }
        }

        for (int32_t i = 0; i < batch; i++) {
                const int16_t *sb = s + (size_t) i * memory_size * num_filters;
                for (int32_t f = 0; f < num_filters; f++) {
                        /* int32 accumulation that wraps like TFLite's on x86 */
                        uint32_t dot = 0;
                        for (int32_t m = 0; m < memory_size; m++)
                                dot += (uint32_t) ((int32_t) w_t[(size_t) f * memory_size + m] *
                                                   sb[(size_t) f * memory_size + m]);
                        scratch[(size_t) i * num_filters + f] = (int32_t) dot;
                }
        }

        for (int32_t i = 0; i < batch; i++) {
                for (int32_t u = 0; u < num_units; u++) {
                        uint32_t sum = 0;
                        for (int32_t r = 0; r < p->rank; r++)
                                sum += (uint32_t) scratch[(size_t) i * num_filters + (size_t) u * p->rank + r];
                        if (b)
                                sum += (uint32_t) b[u];
                        temp[(size_t) i * num_units + u] = (int32_t) sum;
                }
        }
        /* TFLite's integer SVDF only clamps to int8 (its RELU is not applied). */
        for (int32_t i = 0; i < batch * num_units; i++) {
                int32_t v = ku_mul_by_qmul(temp[i], d->scale_2_a, d->scale_2_b) + out_zp;
                o[i] = (int8_t) KU_CLAMP(v, -128, 127);
        }
}

static int svdf_invoke(rt_context_t *ctx, rt_node_t *node) {
        const rt_svdf_params_t *p = node->params;
        const svdf_data_t *d = node->user_data;
        rt_tensor_t *in = rt_node_input(ctx, node, 0);
        rt_tensor_t *wf = rt_node_input(ctx, node, 1);
        rt_tensor_t *wt = rt_node_input(ctx, node, 2);
        rt_tensor_t *bias = rt_node_input(ctx, node, 3);
        rt_tensor_t *state = rt_node_input(ctx, node, 4);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        if (!in->data || !wf->data || !wt->data || !state->data || !out->data || (bias && !bias->data))
                return rt_ctx_error(ctx, "SVDF: tensor without data");
        void *scratch = ctx->get_scratch(ctx, node, d->scratch_id);
        if (!scratch)
                return rt_ctx_error(ctx, "SVDF: scratch buffer missing");
        if (in->type == RT_TYPE_FLOAT32) {
                float *hyb = NULL;
                if (d->hybrid && !(hyb = ctx->get_scratch(ctx, node, d->hybrid_id)))
                        return rt_ctx_error(ctx, "SVDF: scratch buffer missing");
                svdf_eval_float(p, in, wf, wt, bias, state, out, scratch, hyb);
                return 0;
        }
        int32_t *temp = ctx->get_scratch(ctx, node, d->output_temp_id);
        if (!temp)
                return rt_ctx_error(ctx, "SVDF: scratch buffer missing");
        svdf_eval_int8(p, d, in, wf, wt, bias, state, out, scratch, temp);
        return 0;
}

const rt_registration_t rt_kernel_svdf = {
        .name = "SVDF",
        .op = RT_OP_SVDF,
        .params_size = sizeof(rt_svdf_params_t),
        .parse = svdf_parse,
        .init = svdf_init,
        .free = svdf_free,
        .prepare = svdf_prepare,
        .invoke = svdf_invoke,
};
