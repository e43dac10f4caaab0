/* SPDX-License-Identifier: Apache-2.0 */
/*
 * UNIDIRECTIONAL_SEQUENCE_LSTM (44), LSTM (16, full kernel, one step) and
 * BIDIRECTIONAL_SEQUENCE_LSTM (52, float and hybrid) after TFLite's
 * unidirectional_sequence_lstm.cc, lstm.cc, bidirectional_sequence_lstm.cc
 * and lstm_eval.cc. Three paths:
 *
 *   float32: gates in float, optional CIFG, peephole, projection, layer norm.
 *   int8:    TFLite's "8x8->16" integer LSTM: int8 input/output/output state,
 *            int16 cell state (power-of-two scale), int32 biases, 5
 *            intermediates (gate scales when layer norm is used, and the
 *            hidden state's quantization), gemmlowp int16 sigmoid/tanh.
 *
 *   hybrid:  float activations and state, int8 weights (per-tensor scale);
 *            inputs quantized per batch row, symmetric or asymmetric.
 *
 * The state tensors (inputs 18 and 19) are variable tensors: the kernel reads
 * and updates them in place on every invoke.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fixed16.h"
#include "kutil.h"
#include "seq-internal.h"
#include "sequence.h"

enum { GATE_INPUT = 0, GATE_FORGET = 1, GATE_CELL = 2, GATE_OUTPUT = 3, N_GATES = 4 };

typedef struct lstm_qgate {
        int32_t in_a, rec_a, cell_a, ln_a;
        int in_b, rec_b, cell_b, ln_b;
        int32_t variance_guard;
        int32_t *in_bias;   /* input zp * row sums + gate bias (n_cell) */
        int32_t *rec_bias;  /* output state zp * row sums (n_cell) */
} lstm_qgate_t;

typedef struct lstm_data {
        bool integer;
        bool hybrid;
        bool use_layer_norm;
        int32_t scratch_id;
        /* integer path */
        lstm_qgate_t gate[N_GATES];
        int32_t proj_a, hidden_a;
        int proj_b, hidden_b;
        int32_t hidden_zp;
        int32_t cell_scale;        /* log2 of the cell state scale */
        bool unscaled;             /* cell scale not a power of two: TFLite's zero parameters */
        int16_t quantized_cell_clip;
        int8_t quantized_proj_clip;
        int32_t *proj_bias;        /* hidden zp * row sums + projection bias (n_output) */
} lstm_data_t;

static void lstm_data_reset(lstm_data_t *d) {
        for (int g = 0; g < N_GATES; g++) {
                free(d->gate[g].in_bias);
                free(d->gate[g].rec_bias);
        }
        free(d->proj_bias);
        memset(d, 0, sizeof(*d));
}

static int lstm_parse(const rt_node_t *node, void *ret_params, rt_context_t *ctx) {
        (void) ctx;
        rt_lstm_params_t *p = ret_params;
        p->activation = (rt_activation_t) fbt_i8(node->options, 0, 0);
        p->cell_clip = fbt_f32(node->options, 1, 0.0f);
        p->proj_clip = fbt_f32(node->options, 2, 0.0f);
        p->time_major = fbt_bool(node->options, 3, false);
        p->asymmetric_quantize_inputs = fbt_bool(node->options, 4, false);
        return 0;
}

static int lstm_parse_full(const rt_node_t *node, void *ret_params, rt_context_t *ctx) {
        (void) ctx;
        rt_lstm_params_t *p = ret_params;
        p->activation = (rt_activation_t) fbt_i8(node->options, 0, 0);
        p->cell_clip = fbt_f32(node->options, 1, 0.0f);
        p->proj_clip = fbt_f32(node->options, 2, 0.0f);
        p->kernel_type = fbt_i8(node->options, 3, 0);
        p->asymmetric_quantize_inputs = fbt_bool(node->options, 4, false);
        return 0;
}

static int lstm_init(rt_context_t *ctx, rt_node_t *node, void **ret_data) {
        (void) ctx;
        (void) node;
        lstm_data_t *d = calloc(1, sizeof(*d));
        if (!d)
                return -ENOMEM;
        *ret_data = d;
        return 0;
}

static void lstm_free(rt_context_t *ctx, void *data) {
        (void) ctx;
        if (!data)
                return;
        lstm_data_reset(data);
        free(data);
}

/* ---- shape checks shared by both paths ---- */

typedef struct lstm_dims {
        int32_t n_batch, n_input, n_cell, n_output, max_time;
} lstm_dims_t;

static int lstm_check_vec(rt_context_t *ctx, const rt_tensor_t *t, int idx, int32_t n) {
        if (t && (t->rank != 1 || t->dims[0] != n))
                return rt_ctx_error(ctx, "LSTM: input %d must be a vector of %d", idx, n);
        return 0;
}

static int lstm_check_mat(rt_context_t *ctx, const rt_tensor_t *t, int idx, int32_t rows, int32_t cols) {
        if (t && (t->rank != 2 || t->dims[0] != rows || t->dims[1] != cols))
                return rt_ctx_error(ctx, "LSTM: input %d must be [%d, %d]", idx, rows, cols);
        return 0;
}

static int lstm_check(rt_context_t *ctx, const rt_node_t *node, const rt_lstm_params_t *p, bool *ret_ln,
                      lstm_dims_t *ret) {
        rt_tensor_t *t[_RT_LSTM_INPUT_MAX];
        if (node->n_inputs != 20 && node->n_inputs != 24)
                return rt_ctx_error(ctx, "LSTM: expected 20 or 24 inputs, got %d", node->n_inputs);
        if (node->n_outputs != 1)
                return rt_ctx_error(ctx, "LSTM: expected 1 output, got %d", node->n_outputs);
        for (int i = 0; i < _RT_LSTM_INPUT_MAX; i++)
                t[i] = rt_node_input(ctx, node, i);
        static const int required[] = {
                RT_LSTM_INPUT, RT_LSTM_INPUT_TO_FORGET_W, RT_LSTM_INPUT_TO_CELL_W, RT_LSTM_INPUT_TO_OUTPUT_W,
                RT_LSTM_RECURRENT_TO_FORGET_W, RT_LSTM_RECURRENT_TO_CELL_W, RT_LSTM_RECURRENT_TO_OUTPUT_W,
                RT_LSTM_FORGET_GATE_BIAS, RT_LSTM_CELL_GATE_BIAS, RT_LSTM_OUTPUT_GATE_BIAS,
                RT_LSTM_OUTPUT_STATE, RT_LSTM_CELL_STATE,
        };
        for (size_t i = 0; i < sizeof(required) / sizeof(required[0]); i++)
                if (!t[required[i]])
                        return rt_ctx_error(ctx, "LSTM: required input %d is missing", required[i]);
        if (p->cell_clip < 0 || p->proj_clip < 0)
                return rt_ctx_error(ctx, "LSTM: negative clip value");

        const rt_tensor_t *in = t[RT_LSTM_INPUT];
        if (in->rank != 2 && in->rank != 3)
                return rt_ctx_error(ctx, "LSTM: input must be 2-D or 3-D, got rank %d", in->rank);
        lstm_dims_t d;
        d.n_input = in->dims[in->rank - 1];
        if (in->rank == 2) {
                d.max_time = 1;
                d.n_batch = in->dims[0];
        } else {
                d.max_time = p->time_major ? in->dims[0] : in->dims[1];
                d.n_batch = p->time_major ? in->dims[1] : in->dims[0];
        }
        const rt_tensor_t *i2o = t[RT_LSTM_INPUT_TO_OUTPUT_W], *r2o = t[RT_LSTM_RECURRENT_TO_OUTPUT_W];
        if (i2o->rank != 2 || r2o->rank != 2)
                return rt_ctx_error(ctx, "LSTM: weights must be 2-D");
        d.n_cell = i2o->dims[0];
        d.n_output = r2o->dims[1];
        int r = 0;
        for (int i = RT_LSTM_INPUT_TO_INPUT_W; i <= RT_LSTM_INPUT_TO_OUTPUT_W && !r; i++)
                r = lstm_check_mat(ctx, t[i], i, d.n_cell, d.n_input);
        for (int i = RT_LSTM_RECURRENT_TO_INPUT_W; i <= RT_LSTM_RECURRENT_TO_OUTPUT_W && !r; i++)
                r = lstm_check_mat(ctx, t[i], i, d.n_cell, d.n_output);
        for (int i = RT_LSTM_CELL_TO_INPUT_W; i <= RT_LSTM_OUTPUT_GATE_BIAS && !r; i++)
                r = lstm_check_vec(ctx, t[i], i, d.n_cell);
        if (!r)
                r = lstm_check_mat(ctx, t[RT_LSTM_PROJECTION_W], RT_LSTM_PROJECTION_W, d.n_output, d.n_cell);
        if (!r)
                r = lstm_check_vec(ctx, t[RT_LSTM_PROJECTION_BIAS], RT_LSTM_PROJECTION_BIAS, d.n_output);
        for (int i = RT_LSTM_INPUT_LAYER_NORM; i <= RT_LSTM_OUTPUT_LAYER_NORM && !r; i++)
                r = lstm_check_vec(ctx, t[i], i, d.n_cell);
        if (r < 0)
                return r;

        bool cifg = !t[RT_LSTM_INPUT_TO_INPUT_W];
        if (cifg != !t[RT_LSTM_RECURRENT_TO_INPUT_W])
                return rt_ctx_error(ctx, "LSTM: input gate weights must be all present or all absent");
        if (cifg && t[RT_LSTM_INPUT_GATE_BIAS])
                return rt_ctx_error(ctx, "LSTM: CIFG LSTM must not have an input gate bias");
        if (!cifg && !t[RT_LSTM_INPUT_GATE_BIAS])
                return rt_ctx_error(ctx, "LSTM: input gate bias is missing");
        bool peep = t[RT_LSTM_CELL_TO_OUTPUT_W] != NULL;
        if (peep != (t[RT_LSTM_CELL_TO_FORGET_W] != NULL) || (!cifg && peep != (t[RT_LSTM_CELL_TO_INPUT_W] != NULL)))
                return rt_ctx_error(ctx, "LSTM: peephole weights must be all present or all absent");
        if (t[RT_LSTM_PROJECTION_BIAS] && !t[RT_LSTM_PROJECTION_W])
                return rt_ctx_error(ctx, "LSTM: projection bias without projection weights");
        bool ln = node->n_inputs == 24 && t[RT_LSTM_FORGET_LAYER_NORM];
        if (ln) {
                if (!t[RT_LSTM_CELL_LAYER_NORM] || !t[RT_LSTM_OUTPUT_LAYER_NORM] ||
                    cifg != !t[RT_LSTM_INPUT_LAYER_NORM])
                        return rt_ctx_error(ctx, "LSTM: layer norm coefficients are incomplete");
        }
        if (rt_tensor_count(t[RT_LSTM_OUTPUT_STATE]) != (size_t) d.n_batch * d.n_output)
                return rt_ctx_error(ctx, "LSTM: output state must hold %d elements", d.n_batch * d.n_output);
        if (rt_tensor_count(t[RT_LSTM_CELL_STATE]) != (size_t) d.n_batch * d.n_cell)
                return rt_ctx_error(ctx, "LSTM: cell state must hold %d elements", d.n_batch * d.n_cell);
        *ret_ln = ln;
        *ret = d;
        return 0;
}

/* ---- integer preparation ---- */

/* TFLite CheckedLog2. */
static bool lstm_checked_log2(float x, int32_t *ret) {
        float l = logf(x) * (1.0f / logf(2.0f));
        float rounded = roundf(l);
        *ret = (int32_t) rounded;
        return fabsf(l - rounded) < 1e-3f;
}

static int32_t *lstm_zp_bias(const rt_tensor_t *w, const rt_tensor_t *bias, int32_t zp) {
        int32_t rows = w->dims[0], cols = w->dims[1];
        int32_t *out = calloc((size_t) rows, sizeof(int32_t));
        if (!out)
                return NULL;
        if (bias)
                memcpy(out, bias->data, (size_t) rows * sizeof(int32_t));
        if (zp != 0) {
                const int8_t *m = w->data;
                for (int32_t r = 0; r < rows; r++) {
                        int32_t sum = 0;
                        for (int32_t c = 0; c < cols; c++)
                                sum += m[(size_t) r * cols + c];
                        /* TFLite's int32 sum; modulo 2^32 as its x86 build
                         * wraps, so a crafted zero point is no undefined
                         * overflow (issue 22). */
                        out[r] = (int32_t) ((uint32_t) out[r] + (uint32_t) sum * (uint32_t) zp);
                }
        }
        return out;
}

static float lstm_scale(const rt_tensor_t *t) {
        return t ? t->scale : 1.0f;
}

static int lstm_prepare_integer(rt_context_t *ctx, rt_node_t *node, const rt_lstm_params_t *p, lstm_data_t *d,
                                rt_tensor_t **t) {
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        if (out->type != RT_TYPE_INT8 || t[RT_LSTM_OUTPUT_STATE]->type != RT_TYPE_INT8 ||
            t[RT_LSTM_CELL_STATE]->type != RT_TYPE_INT16)
                return rt_ctx_error(ctx, "LSTM: int8 LSTM needs int8 output and output state, int16 cell state");
        for (int i = RT_LSTM_INPUT_TO_INPUT_W; i <= RT_LSTM_RECURRENT_TO_OUTPUT_W; i++)
                if (t[i] && t[i]->type != RT_TYPE_INT8)
                        return rt_ctx_error(ctx, "LSTM: int8 LSTM needs int8 weights (input %d is %s)", i,
                                            rt_type_name(t[i]->type));
        for (int i = RT_LSTM_CELL_TO_INPUT_W; i <= RT_LSTM_CELL_TO_OUTPUT_W; i++) {
                if (t[i] && t[i]->type != RT_TYPE_INT16)
                        return rt_ctx_error(ctx, "LSTM: int8 LSTM needs int16 peephole weights");
                /* TFLite walks the peephole product over n_output
                 * elements (lstm_gate_int): past the cell state and the
                 * weights when the output is wider than the cell. */
                if (t[i] && t[RT_LSTM_RECURRENT_TO_OUTPUT_W] && t[RT_LSTM_RECURRENT_TO_OUTPUT_W]->rank == 2 &&
                    (size_t) t[RT_LSTM_RECURRENT_TO_OUTPUT_W]->dims[1] > rt_tensor_count(t[i]))
                        return rt_ctx_error(ctx,
                                            "LSTM: int8 LSTM with peephole weights and an output wider than the "
                                            "cell (TensorFlow Lite reads past its buffers there)");
        }
        for (int i = RT_LSTM_INPUT_GATE_BIAS; i <= RT_LSTM_OUTPUT_GATE_BIAS; i++)
                if (t[i] && t[i]->type != RT_TYPE_INT32)
                        return rt_ctx_error(ctx, "LSTM: int8 LSTM needs int32 gate biases");
        if (t[RT_LSTM_PROJECTION_W] && t[RT_LSTM_PROJECTION_W]->type != RT_TYPE_INT8)
                return rt_ctx_error(ctx, "LSTM: int8 LSTM needs int8 projection weights");
        if (t[RT_LSTM_PROJECTION_BIAS] && t[RT_LSTM_PROJECTION_BIAS]->type != RT_TYPE_INT32)
                return rt_ctx_error(ctx, "LSTM: int8 LSTM needs an int32 projection bias");
        for (int i = RT_LSTM_INPUT_LAYER_NORM; i <= RT_LSTM_OUTPUT_LAYER_NORM; i++)
                if (d->use_layer_norm && t[i] && t[i]->type != RT_TYPE_INT16)
                        return rt_ctx_error(ctx, "LSTM: int8 LSTM needs int16 layer norm coefficients");
        if (node->n_intermediates != 5)
                return rt_ctx_error(ctx, "LSTM: int8 LSTM needs 5 intermediate tensors, got %d",
                                    node->n_intermediates);
        for (int i = 0; i < 5; i++) {
                int32_t ti = node->intermediates[i];
                if (ti < 0 || ti >= ctx->n_tensors)
                        return rt_ctx_error(ctx, "LSTM: intermediate %d is out of range", i);
                if (ctx->tensors[ti].quant.n < 1 && (i == 4 || d->use_layer_norm))
                        return rt_ctx_error(ctx, "LSTM: intermediate %d is not quantized", i);
        }
        rt_tensor_t *in = t[RT_LSTM_INPUT], *os = t[RT_LSTM_OUTPUT_STATE], *cs = t[RT_LSTM_CELL_STATE];
        if (cs->quant.n < 1 || out->quant.n < 1 || os->quant.n < 1 || in->quant.n < 1)
                return rt_ctx_error(ctx, "LSTM: int8 LSTM tensors must be quantized");

        const bool cifg = !t[RT_LSTM_INPUT_TO_INPUT_W];
        const bool peep = t[RT_LSTM_CELL_TO_OUTPUT_W] != NULL;
        const bool proj = t[RT_LSTM_PROJECTION_W] != NULL;
        const bool ln = d->use_layer_norm;

        if (p->cell_clip > 0.0f)
                d->quantized_cell_clip =
                        (int16_t) fminf(fmaxf(p->cell_clip / cs->scale, -32768.0f), 32767.0f);
        if (p->proj_clip > 0.0f)
                d->quantized_proj_clip = (int8_t) fminf(fmaxf(p->proj_clip / out->scale, -128.0f), 127.0f);

        /* Gate scales: the intermediates' with layer norm, else Q3.12. The
         * fifth intermediate is the hidden state (output gate * tanh(cell)). */
        float inter_scale[5];
        for (int i = 0; i < 4; i++)
                inter_scale[i] = ln ? ctx->tensors[node->intermediates[i]].scale : 1.0f / 4096.0f;
        inter_scale[4] = ctx->tensors[node->intermediates[4]].scale;
        const int32_t hidden_zp = ctx->tensors[node->intermediates[4]].zero_point;

        /* TFLite 2.9's PopulateQuantizedLstmParams8x8_16 stops at its
         * TF_LITE_ENSURE(CheckedLog2(cell scale)) when the cell state scale
         * is not a power of two, and its Prepare drops the returned error:
         * the clips above are set, and every multiplier, shift, the cell
         * scale, the hidden zero point and the variance guards stay 0 (the
         * OpData is value-initialized). The model then runs with all gate
         * products scaled to 0 and a hidden state of 0; the zero point times
         * weight sums are computed as usual. Follow that (issue 25). LSTM
         * (lstm.cc) also ensures a cell scale of at most 2^-9 there, with the
         * same outcome; UNIDIRECTIONAL_SEQUENCE_LSTM has that check
         * commented out. */
        int32_t cell_scale;
        const bool unscaled = !lstm_checked_log2(cs->scale, &cell_scale) ||
                              (node->op == RT_OP_LSTM && cell_scale > -9);
        d->unscaled = unscaled;
        d->cell_scale = unscaled ? 0 : cell_scale;
        if (!unscaled && (15 + cell_scale < 0 || 15 + cell_scale > 6))
                return rt_ctx_error(ctx, "LSTM: cell state scale 2^%d is out of range", cell_scale);

        /* Effective scales, in float as TFLite computes them. */
        const float input_scale = in->scale, os_scale = os->scale;
        static const int in_w[N_GATES] = { RT_LSTM_INPUT_TO_INPUT_W, RT_LSTM_INPUT_TO_FORGET_W,
                                           RT_LSTM_INPUT_TO_CELL_W, RT_LSTM_INPUT_TO_OUTPUT_W };
        static const int rec_w[N_GATES] = { RT_LSTM_RECURRENT_TO_INPUT_W, RT_LSTM_RECURRENT_TO_FORGET_W,
                                            RT_LSTM_RECURRENT_TO_CELL_W, RT_LSTM_RECURRENT_TO_OUTPUT_W };
        static const int cell_w[N_GATES] = { RT_LSTM_CELL_TO_INPUT_W, RT_LSTM_CELL_TO_FORGET_W, -1,
                                             RT_LSTM_CELL_TO_OUTPUT_W };
        static const int ln_w[N_GATES] = { RT_LSTM_INPUT_LAYER_NORM, RT_LSTM_FORGET_LAYER_NORM,
                                           RT_LSTM_CELL_LAYER_NORM, RT_LSTM_OUTPUT_LAYER_NORM };
        static const int bias_w[N_GATES] = { RT_LSTM_INPUT_GATE_BIAS, RT_LSTM_FORGET_GATE_BIAS,
                                             RT_LSTM_CELL_GATE_BIAS, RT_LSTM_OUTPUT_GATE_BIAS };
        for (int g = 0; g < N_GATES; g++) {
                lstm_qgate_t *q = &d->gate[g];
                float eff_in = 1.0f, eff_rec = 1.0f, eff_cell = 1.0f;
                if (g != GATE_INPUT || !cifg) {
                        eff_in = lstm_scale(t[in_w[g]]) * input_scale / inter_scale[g];
                        eff_rec = lstm_scale(t[rec_w[g]]) * os_scale / inter_scale[g];
                }
                if (peep && cell_w[g] >= 0 && (g != GATE_INPUT || !cifg))
                        eff_cell = (float) (pow(2.0, cell_scale) * (double) lstm_scale(t[cell_w[g]]) /
                                            (double) inter_scale[g]);
                float ln_scale = (ln && (g != GATE_INPUT || !cifg)) ? lstm_scale(t[ln_w[g]]) : 1.0f;
                if (!unscaled) {
                        ku_quantize_multiplier((double) eff_in, &q->in_a, &q->in_b);
                        ku_quantize_multiplier((double) eff_rec, &q->rec_a, &q->rec_b);
                        ku_quantize_multiplier((double) eff_cell, &q->cell_a, &q->cell_b);
                        ku_quantize_multiplier((double) ln_scale, &q->ln_a, &q->ln_b);
                        int32_t guard = (int32_t) (10000.0f * ln_scale);
                        q->variance_guard = guard < 1 ? 1 : guard;
                }
                if (g == GATE_INPUT && cifg)
                        continue;
                /* The zero-point sums are taken from the weights here: a
                 * weight or bias that is not a constant has no data yet
                 * (a mutated model crashed acceld here, issue 22). */
                if (!t[in_w[g]]->data || !t[rec_w[g]]->data || (!ln && t[bias_w[g]] && !t[bias_w[g]]->data))
                        return rt_ctx_error(ctx, "LSTM: the weights and bias of gate %d must be constant", g);
                q->in_bias = lstm_zp_bias(t[in_w[g]], ln ? NULL : t[bias_w[g]], -in->zero_point);
                q->rec_bias = lstm_zp_bias(t[rec_w[g]], NULL, -os->zero_point);
                if (!q->in_bias || !q->rec_bias)
                        return -ENOMEM;
        }
        float eff_hidden = (float) (pow(2.0, -15) / (double) inter_scale[4] * pow(2.0, -15));
        float eff_proj = lstm_scale(t[RT_LSTM_PROJECTION_W]) * inter_scale[4] / os_scale;
        if (!unscaled) {
                ku_quantize_multiplier((double) eff_proj, &d->proj_a, &d->proj_b);
                ku_quantize_multiplier((double) eff_hidden, &d->hidden_a, &d->hidden_b);
                d->hidden_zp = hidden_zp;
        }
        if (proj) {
                /* The projection's zero point term takes the intermediate's
                 * zero point itself (PopulatePrecomputedZPTimesWeightsWithBias). */
                d->proj_bias = lstm_zp_bias(t[RT_LSTM_PROJECTION_W], t[RT_LSTM_PROJECTION_BIAS], hidden_zp);
                if (!d->proj_bias)
                        return -ENOMEM;
        }
        return 0;
}

static int lstm_basic_prepare(rt_context_t *ctx, rt_node_t *node);

static int lstm_prepare(rt_context_t *ctx, rt_node_t *node) {
        const rt_lstm_params_t *p = node->params;
        lstm_data_t *d = node->user_data;
        if (!p || !d)
                return rt_ctx_error(ctx, "LSTM: missing params");
        lstm_data_reset(d);
        if (node->op == RT_OP_LSTM) {
                if (p->kernel_type == 1)
                        return lstm_basic_prepare(ctx, node);
                if (p->kernel_type != 0)
                        return rt_ctx_error(ctx, "LSTM: unknown kernel type %d", p->kernel_type);
                const rt_tensor_t *x = rt_node_input(ctx, node, RT_LSTM_INPUT);
                if (x && x->rank != 2)
                        return rt_ctx_error(ctx, "LSTM: input must be [batch, input], got rank %d", x->rank);
        }
        bool ln = false;
        lstm_dims_t dims = { 0 };
        int r = lstm_check(ctx, node, p, &ln, &dims);
        if (r < 0)
                return r;
        d->use_layer_norm = ln;
        rt_tensor_t *t[_RT_LSTM_INPUT_MAX];
        for (int i = 0; i < _RT_LSTM_INPUT_MAX; i++)
                t[i] = rt_node_input(ctx, node, i);
        rt_tensor_t *in = t[RT_LSTM_INPUT];
        rt_tensor_t *w = t[RT_LSTM_INPUT_TO_OUTPUT_W];
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        size_t nbc = (size_t) dims.n_batch * dims.n_cell;
        size_t scratch_bytes;
        if (in->type == RT_TYPE_FLOAT32) {
                /* TFLite reads uint8 hybrid weights as int8 bytes (zero
                 * point ignored) and accepts them. */
                d->hybrid = w->type == RT_TYPE_INT8 || w->type == RT_TYPE_UINT8;
                if (w->type != RT_TYPE_FLOAT32 && !d->hybrid) {
                        (void) rt_ctx_error(ctx, "LSTM: %s weights with float input are not supported",
                                            rt_type_name(w->type));
                        return -ENOTSUP;
                }
                for (int i = 1; i < _RT_LSTM_INPUT_MAX; i++) {
                        bool weight = (i >= RT_LSTM_INPUT_TO_INPUT_W && i <= RT_LSTM_CELL_TO_OUTPUT_W) ||
                                      i == RT_LSTM_PROJECTION_W;
                        rt_type_t want = d->hybrid && weight ? RT_TYPE_INT8 : RT_TYPE_FLOAT32;
                        if (t[i] && t[i]->type != want && !(want == RT_TYPE_INT8 && t[i]->type == RT_TYPE_UINT8))
                                return rt_ctx_error(ctx, "LSTM: %s LSTM input %d is %s, expected %s",
                                                    d->hybrid ? "hybrid" : "float", i, rt_type_name(t[i]->type),
                                                    rt_type_name(want));
                }
                if (out->type != RT_TYPE_FLOAT32)
                        return rt_ctx_error(ctx, "LSTM: float LSTM needs a float32 output");
                /* 4 gates + 2 scratch vectors of n_cell per batch; hybrid adds
                 * quantized vectors, scaling factors and zero points. */
                size_t nq = (size_t) dims.n_batch * ((size_t) dims.n_input + dims.n_output + dims.n_cell);
                scratch_bytes = (6 * nbc + (size_t) dims.n_batch * dims.n_output) * sizeof(float) +
                                (d->hybrid ? nq + 16 + (size_t) dims.n_batch * 8 * 4 : 0);
        } else if (in->type == RT_TYPE_INT8) {
                d->integer = true;
                r = lstm_prepare_integer(ctx, node, p, d, t);
                if (r < 0)
                        return r;
                /* 4 int16 gates, one int8 and one int32 buffer of n_batch * n_cell. */
                scratch_bytes = 4 * nbc * 2 + nbc + nbc * 4 + 16;
        } else {
                return rt_ctx_error(ctx, "LSTM: input type %s is not supported", rt_type_name(in->type));
        }
        r = ctx->request_scratch(ctx, node, scratch_bytes, &d->scratch_id);
        if (r < 0)
                return r;
        int32_t odims[RT_MAX_RANK];
        memcpy(odims, in->dims, sizeof(int32_t) * (size_t) in->rank);
        odims[in->rank - 1] = dims.n_output;
        return rt_ctx_resize(ctx, node, 0, in->rank, odims);
}

/* ---- float path ---- */

/*
 * TFLite 2.9's float gates (tensor_utils ApplyTanhToVector /
 * ApplySigmoidToVector, and the basic LSTM cell) go through Eigen's array
 * tanh() and logistic(). Read back from the x86 library through a one-cell
 * LSTM whose output is the gate itself: tanh is ew_tanh_fast (the float
 * TANH kernel's; seq__activate), and sigmoid is e^x / (1 + e^x) with
 * libm's expf, 1 where that is 1 anyway (x > 20: e^x > 2^28 swallows the
 * 1) so that expf's overflow never makes inf / inf; below, subnormal results flush to 0 with
 * the executor's FTZ. Not 1 / (1 + e^-x): the two differ by an ulp in about
 * a third of inputs, and in a hybrid LSTM such an ulp can move the
 * runtime-quantized state by a step.
 */
static float lstm_sigmoid(float x) {
        if (x > 20.0f)
                return 1.0f;
        const float e = expf(x);
        return e / (1.0f + e);
}

static const float *fdata(const rt_tensor_t *t) {
        return t ? t->data : NULL;
}

/* gate = act(W_in x + W_rec h + peephole * c [layer norm] + bias) for one batch. */
/* An auxiliary input (BIDIRECTIONAL_SEQUENCE_LSTM): this step's rows of
 * n_aux values (x, rows `row` floats apart) and the per-gate weights
 * [n_cell, n_aux] (NULL for the input gate of a CIFG cell). */
typedef struct lstm_aux {
        const float *x;
        int32_t n_aux;
        const rt_tensor_t *w[N_GATES];
} lstm_aux_t;

static const float *aux_w(const lstm_aux_t *a, int g) {
        return a && a->w[g] ? a->w[g]->data : NULL;
}

static void lstm_gate_float(const float *x, const float *w_in, int32_t n_input, const float *ax, const float *w_aux,
                            int32_t n_aux, const float *h, const float *w_rec, int32_t n_output, const float *c,
                            const float *w_cell, const float *ln, const float *bias, int32_t n_cell, bool sigmoid,
                            rt_activation_t act, float *gate) {
        for (int32_t r = 0; r < n_cell; r++) {
                float acc = ln ? 0.0f : bias[r];
                float dot = 0.0f;
                for (int32_t k = 0; k < n_input; k++)
                        dot += w_in[(size_t) r * n_input + k] * x[k];
                acc += dot;
                if (w_aux) {
                        dot = 0.0f;
                        for (int32_t k = 0; k < n_aux; k++)
                                dot += w_aux[(size_t) r * n_aux + k] * ax[k];
                        acc += dot;
                }
                dot = 0.0f;
                for (int32_t k = 0; k < n_output; k++)
                        dot += w_rec[(size_t) r * n_output + k] * h[k];
                acc += dot;
                if (w_cell)
                        acc += w_cell[r] * c[r];
                gate[r] = acc;
        }
        if (ln) {
                float sum = 0.0f;
                for (int32_t r = 0; r < n_cell; r++)
                        sum += gate[r];
                float mean = sum / (float) n_cell;
                float sq = 0.0f;
                for (int32_t r = 0; r < n_cell; r++)
                        sq += (gate[r] - mean) * (gate[r] - mean);
                float inv = 1.0f / sqrtf(sq / (float) n_cell + 1e-8f);
                for (int32_t r = 0; r < n_cell; r++)
                        gate[r] = (gate[r] - mean) * inv * ln[r] + bias[r];
        }
        for (int32_t r = 0; r < n_cell; r++)
                gate[r] = sigmoid ? lstm_sigmoid(gate[r]) : seq__activate(act, gate[r]);
}

static void lstm_step_float(const rt_lstm_params_t *p, rt_tensor_t **t, const lstm_aux_t *a, int32_t n_input,
                            int32_t n_cell, int32_t n_output, const float *x, float *h, float *c, float *out,
                            float *scratch) {
        const float *ax = a ? a->x : NULL;
        const int32_t n_aux = a ? a->n_aux : 0;
        float *ig = scratch, *fg = scratch + n_cell, *cg = scratch + 2 * n_cell, *og = scratch + 3 * n_cell;
        float *tmp = scratch + 4 * n_cell;
        const bool cifg = !t[RT_LSTM_INPUT_TO_INPUT_W];
        const bool ln = t[RT_LSTM_FORGET_LAYER_NORM] != NULL;
        if (!cifg)
                lstm_gate_float(x, fdata(t[RT_LSTM_INPUT_TO_INPUT_W]), n_input, ax, aux_w(a, GATE_INPUT), n_aux, h,
                                fdata(t[RT_LSTM_RECURRENT_TO_INPUT_W]), n_output, c,
                                fdata(t[RT_LSTM_CELL_TO_INPUT_W]), ln ? fdata(t[RT_LSTM_INPUT_LAYER_NORM]) : NULL,
                                fdata(t[RT_LSTM_INPUT_GATE_BIAS]), n_cell, true, p->activation, ig);
        lstm_gate_float(x, fdata(t[RT_LSTM_INPUT_TO_FORGET_W]), n_input, ax, aux_w(a, GATE_FORGET), n_aux, h,
                        fdata(t[RT_LSTM_RECURRENT_TO_FORGET_W]),
                        n_output, c, fdata(t[RT_LSTM_CELL_TO_FORGET_W]),
                        ln ? fdata(t[RT_LSTM_FORGET_LAYER_NORM]) : NULL, fdata(t[RT_LSTM_FORGET_GATE_BIAS]),
                        n_cell, true, p->activation, fg);
        lstm_gate_float(x, fdata(t[RT_LSTM_INPUT_TO_CELL_W]), n_input, ax, aux_w(a, GATE_CELL), n_aux, h,
                        fdata(t[RT_LSTM_RECURRENT_TO_CELL_W]),
                        n_output, c, NULL, ln ? fdata(t[RT_LSTM_CELL_LAYER_NORM]) : NULL,
                        fdata(t[RT_LSTM_CELL_GATE_BIAS]), n_cell, false, p->activation, cg);
        for (int32_t r = 0; r < n_cell; r++) {
                float ncs = c[r] * fg[r];
                ncs += (cifg ? (1.0f - fg[r]) : ig[r]) * cg[r];
                if (p->cell_clip > 0.0f)
                        ncs = ncs < -p->cell_clip ? -p->cell_clip : (ncs > p->cell_clip ? p->cell_clip : ncs);
                c[r] = ncs;
        }
        lstm_gate_float(x, fdata(t[RT_LSTM_INPUT_TO_OUTPUT_W]), n_input, ax, aux_w(a, GATE_OUTPUT), n_aux, h,
                        fdata(t[RT_LSTM_RECURRENT_TO_OUTPUT_W]),
                        n_output, c, fdata(t[RT_LSTM_CELL_TO_OUTPUT_W]),
                        ln ? fdata(t[RT_LSTM_OUTPUT_LAYER_NORM]) : NULL, fdata(t[RT_LSTM_OUTPUT_GATE_BIAS]),
                        n_cell, true, p->activation, og);
        /* TFLite's CalculateLstmOutputFloat applies the activation into a
         * scratch buffer that still holds the cell gate; ApplyActivationToVector
         * writes nothing for NONE, so the output gate then multiplies the cell
         * gate, not the cell state. */
        for (int32_t r = 0; r < n_cell; r++)
                tmp[r] = og[r] * (p->activation == RT_ACT_NONE ? cg[r] : seq__activate(p->activation, c[r]));
        const float *pw = fdata(t[RT_LSTM_PROJECTION_W]);
        if (pw) {
                const float *pb = fdata(t[RT_LSTM_PROJECTION_BIAS]);
                for (int32_t o = 0; o < n_output; o++) {
                        float acc = pb ? pb[o] : 0.0f;
                        float dot = 0.0f;
                        for (int32_t k = 0; k < n_cell; k++)
                                dot += pw[(size_t) o * n_cell + k] * tmp[k];
                        acc += dot;
                        if (p->proj_clip > 0.0f)
                                acc = acc < -p->proj_clip ? -p->proj_clip : (acc > p->proj_clip ? p->proj_clip : acc);
                        h[o] = acc;
                }
        } else {
                memcpy(h, tmp, (size_t) n_output * sizeof(float));
        }
        memcpy(out, h, (size_t) n_output * sizeof(float));
}


/* ---- hybrid path (float activations, int8 weights) ---- */

typedef struct hyb_vec {
        const int8_t *q;
        const float *sf;
        const int32_t *zp;  /* NULL when symmetric */
        bool zero;
} hyb_vec_t;

static void lstm_gate_hybrid(const rt_tensor_t *w_in, const hyb_vec_t *x, int32_t n_input, const rt_tensor_t *w_aux,
                             const hyb_vec_t *ax, int32_t n_aux, const rt_tensor_t *w_rec, const hyb_vec_t *h,
                             int32_t n_output, const float *c, const rt_tensor_t *w_cell, const float *ln,
                             const float *bias, int32_t n_batch, int32_t n_cell, bool sigmoid, rt_activation_t act,
                             float *gate, float *tmp) {
        size_t n = (size_t) n_batch * n_cell;
        for (int32_t b = 0; b < n_batch; b++)
                for (int32_t r = 0; r < n_cell; r++)
                        gate[(size_t) b * n_cell + r] = ln ? 0.0f : bias[r];
        if (!x->zero)
                seq__mbvma_hybrid(w_in->data, n_cell, n_input, w_in->scale, x->q, x->sf, x->zp, n_batch, gate);
        if (w_aux && !ax->zero)
                seq__mbvma_hybrid(w_aux->data, n_cell, n_aux, w_aux->scale, ax->q, ax->sf, ax->zp, n_batch, gate);
        if (!h->zero)
                seq__mbvma_hybrid(w_rec->data, n_cell, n_output, w_rec->scale, h->q, h->sf, h->zp, n_batch, gate);
        if (w_cell) {
                const int8_t *wc = w_cell->data;
                for (int32_t r = 0; r < n_cell; r++)
                        tmp[r] = w_cell->scale * wc[r];
                for (int32_t b = 0; b < n_batch; b++)
                        for (int32_t r = 0; r < n_cell; r++)
                                gate[(size_t) b * n_cell + r] += tmp[r] * c[(size_t) b * n_cell + r];
        }
        for (int32_t b = 0; b < n_batch && ln; b++) {
                float *g = gate + (size_t) b * n_cell;
                float sum = 0.0f;
                for (int32_t r = 0; r < n_cell; r++)
                        sum += g[r];
                float mean = sum / (float) n_cell;
                float sq = 0.0f;
                for (int32_t r = 0; r < n_cell; r++)
                        sq += (g[r] - mean) * (g[r] - mean);
                float inv = 1.0f / sqrtf(sq / (float) n_cell + 1e-8f);
                for (int32_t r = 0; r < n_cell; r++)
                        g[r] = (g[r] - mean) * inv * ln[r] + bias[r];
        }
        for (size_t i = 0; i < n; i++)
                gate[i] = sigmoid ? lstm_sigmoid(gate[i]) : seq__activate(act, gate[i]);
}

typedef struct hyb_scratch {
        float *gates;   /* 4 * n_batch * n_cell */
        float *tmp;     /* n_batch * n_cell */
        float *tmp2;    /* n_batch * n_cell */
        int8_t *qx, *qh, *qm, *qa;
        float *sf;      /* 4 * n_batch: input, output state, projection, aux */
        int32_t *zp;    /* 4 * n_batch */
} hyb_scratch_t;

/* One hybrid step over n_batch rows: x [n_batch, n_input], h [n_batch, n_output],
 * c [n_batch, n_cell]; out rows are out_lead apart. */
static void lstm_step_hybrid(const rt_lstm_params_t *p, rt_tensor_t **t, const lstm_aux_t *a, int32_t n_batch,
                             int32_t n_input, int32_t n_cell, int32_t n_output, const float *x, float *h, float *c,
                             float *out, int32_t out_lead, const hyb_scratch_t *s) {
        const bool asym = p->asymmetric_quantize_inputs;
        const bool cifg = !t[RT_LSTM_INPUT_TO_INPUT_W];
        const bool ln = t[RT_LSTM_FORGET_LAYER_NORM] != NULL;
        const size_t n = (size_t) n_batch * n_cell;
        float *ig = s->gates, *fg = s->gates + n, *cg = s->gates + 2 * n, *og = s->gates + 3 * n;
        hyb_vec_t qx = { s->qx, s->sf, asym ? s->zp : NULL, seq__is_zero(x, (size_t) n_batch * n_input) };
        hyb_vec_t qh = { s->qh, s->sf + n_batch, asym ? s->zp + n_batch : NULL,
                         seq__is_zero(h, (size_t) n_batch * n_output) };
        for (int32_t b = 0; b < n_batch && !qx.zero; b++)
                seq__quantize_row(x + (size_t) b * n_input, n_input, s->qx + (size_t) b * n_input, &s->sf[b], &s->zp[b],
                             asym);
        for (int32_t b = 0; b < n_batch && !qh.zero; b++)
                seq__quantize_row(h + (size_t) b * n_output, n_output, s->qh + (size_t) b * n_output,
                             &s->sf[n_batch + b], &s->zp[n_batch + b], asym);
        const int32_t n_aux = a ? a->n_aux : 0;
        hyb_vec_t qa = { s->qa, s->sf + 3 * n_batch, asym ? s->zp + 3 * n_batch : NULL,
                         !a || seq__is_zero(a->x, (size_t) n_batch * n_aux) };
        for (int32_t b = 0; b < n_batch && !qa.zero; b++)
                seq__quantize_row(a->x + (size_t) b * n_aux, n_aux, s->qa + (size_t) b * n_aux,
                                  &s->sf[3 * n_batch + b], &s->zp[3 * n_batch + b], asym);
        const rt_tensor_t *const no_aux[N_GATES] = { NULL };
        const rt_tensor_t *const *aw = a ? a->w : no_aux;
        if (!cifg)
                lstm_gate_hybrid(t[RT_LSTM_INPUT_TO_INPUT_W], &qx, n_input, aw[GATE_INPUT], &qa, n_aux,
                                 t[RT_LSTM_RECURRENT_TO_INPUT_W], &qh,
                                 n_output, c, t[RT_LSTM_CELL_TO_INPUT_W],
                                 ln ? fdata(t[RT_LSTM_INPUT_LAYER_NORM]) : NULL, fdata(t[RT_LSTM_INPUT_GATE_BIAS]),
                                 n_batch, n_cell, true, p->activation, ig, s->tmp);
        lstm_gate_hybrid(t[RT_LSTM_INPUT_TO_FORGET_W], &qx, n_input, aw[GATE_FORGET], &qa, n_aux,
                         t[RT_LSTM_RECURRENT_TO_FORGET_W], &qh, n_output,
                         c, t[RT_LSTM_CELL_TO_FORGET_W], ln ? fdata(t[RT_LSTM_FORGET_LAYER_NORM]) : NULL,
                         fdata(t[RT_LSTM_FORGET_GATE_BIAS]), n_batch, n_cell, true, p->activation, fg, s->tmp);
        lstm_gate_hybrid(t[RT_LSTM_INPUT_TO_CELL_W], &qx, n_input, aw[GATE_CELL], &qa, n_aux,
                         t[RT_LSTM_RECURRENT_TO_CELL_W], &qh, n_output, c,
                         NULL, ln ? fdata(t[RT_LSTM_CELL_LAYER_NORM]) : NULL, fdata(t[RT_LSTM_CELL_GATE_BIAS]),
                         n_batch, n_cell, false, p->activation, cg, s->tmp);
        for (size_t i = 0; i < n; i++) {
                float ncs = c[i] * fg[i];
                ncs += (cifg ? (1.0f - fg[i]) : ig[i]) * cg[i];
                if (p->cell_clip > 0.0f)
                        ncs = ncs < -p->cell_clip ? -p->cell_clip : (ncs > p->cell_clip ? p->cell_clip : ncs);
                c[i] = ncs;
        }
        lstm_gate_hybrid(t[RT_LSTM_INPUT_TO_OUTPUT_W], &qx, n_input, aw[GATE_OUTPUT], &qa, n_aux,
                         t[RT_LSTM_RECURRENT_TO_OUTPUT_W], &qh, n_output,
                         c, t[RT_LSTM_CELL_TO_OUTPUT_W], ln ? fdata(t[RT_LSTM_OUTPUT_LAYER_NORM]) : NULL,
                         fdata(t[RT_LSTM_OUTPUT_GATE_BIAS]), n_batch, n_cell, true, p->activation, og, s->tmp);
        float *m = s->tmp2;
        /* As in the float path: with NONE, TFLite multiplies the cell gate. */
        for (size_t i = 0; i < n; i++)
                m[i] = og[i] * (p->activation == RT_ACT_NONE ? cg[i] : seq__activate(p->activation, c[i]));
        const rt_tensor_t *pw = t[RT_LSTM_PROJECTION_W];
        if (pw) {
                const float *pb = fdata(t[RT_LSTM_PROJECTION_BIAS]);
                for (int32_t b = 0; b < n_batch; b++)
                        for (int32_t o = 0; o < n_output; o++)
                                h[(size_t) b * n_output + o] = pb ? pb[o] : 0.0f;
                if (!seq__is_zero(m, n)) {
                        for (int32_t b = 0; b < n_batch; b++)
                                seq__quantize_row(m + (size_t) b * n_cell, n_cell, s->qm + (size_t) b * n_cell,
                                             &s->sf[2 * n_batch + b], &s->zp[2 * n_batch + b], asym);
                        seq__mbvma_hybrid(pw->data, n_output, n_cell, pw->scale, s->qm, s->sf + 2 * n_batch,
                                     asym ? s->zp + 2 * n_batch : NULL, n_batch, h);
                }
                if (p->proj_clip > 0.0f)
                        for (size_t i = 0; i < (size_t) n_batch * n_output; i++)
                                h[i] = h[i] < -p->proj_clip ? -p->proj_clip
                                                            : (h[i] > p->proj_clip ? p->proj_clip : h[i]);
        } else {
                memcpy(h, m, (size_t) n_batch * n_output * sizeof(float));
        }
        for (int32_t b = 0; b < n_batch; b++)
                memcpy(out + (size_t) b * out_lead, h + (size_t) b * n_output, (size_t) n_output * sizeof(float));
}

/* ---- integer path (tensor_utils semantics) ---- */

/* output[b][r] = sat16/8(output + zp + MBQM(bias[r] + sum_c x[b][c] * w[r][c])) */
static void mbvma_i16(const int8_t *x, const int32_t *bias, const int8_t *w, int32_t mul, int shift, int32_t n_batch,
                      int32_t n_in, int32_t n_out, int32_t out_zp, int16_t *out) {
        for (int32_t b = 0; b < n_batch; b++) {
                for (int32_t r = 0; r < n_out; r++) {
                        /* TFLite's int32 sum, modulo 2^32 as its x86 build
                         * wraps on crafted biases; the additions after the
                         * requantization in 64 bits before the clamp. */
                        uint32_t acc = bias ? (uint32_t) bias[r] : 0;
                        for (int32_t c = 0; c < n_in; c++)
                                acc += (uint32_t) ((int32_t) x[(size_t) b * n_in + c] * w[(size_t) r * n_in + c]);
                        int64_t v = (int64_t) ku_mul_by_qmul((int32_t) acc, mul, shift) + out_zp +
                                    out[(size_t) b * n_out + r];
                        out[(size_t) b * n_out + r] = (int16_t) KU_CLAMP(v, INT16_MIN, INT16_MAX);
                }
        }
}

static void mbvma_i8(const int8_t *x, const int32_t *bias, const int8_t *w, int32_t mul, int shift, int32_t n_batch,
                     int32_t n_in, int32_t n_out, int32_t out_zp, int8_t *out) {
        for (int32_t b = 0; b < n_batch; b++) {
                for (int32_t r = 0; r < n_out; r++) {
                        /* TFLite's int32 sum, modulo 2^32 as its x86 build
                         * wraps on crafted biases; the additions after the
                         * requantization in 64 bits before the clamp. */
                        uint32_t acc = bias ? (uint32_t) bias[r] : 0;
                        for (int32_t c = 0; c < n_in; c++)
                                acc += (uint32_t) ((int32_t) x[(size_t) b * n_in + c] * w[(size_t) r * n_in + c]);
                        int64_t v = (int64_t) ku_mul_by_qmul((int32_t) acc, mul, shift) + out_zp +
                                    out[(size_t) b * n_out + r];
                        out[(size_t) b * n_out + r] = (int8_t) KU_CLAMP(v, -128, 127);
                }
        }
}

/* gemmlowp-style SaturatingRoundingMultiplyByPOT for int32. */
static int32_t srmulpot32(int32_t x, int exponent) {
        if (exponent <= 0)
                return ku_rdivpot(x, -exponent);
        int32_t threshold = (int32_t) ((1u << (31 - exponent)) - 1);
        if (x > threshold)
                return INT32_MAX;
        if (x < -threshold)
                return INT32_MIN;
        return (int32_t) ((uint32_t) x << exponent);
}

/* TFLite GetInvSqrtQuantizedMultiplierExp: 1/sqrt(input) as a Q31
 * multiplier and a shift (left shift when reverse_shift == -1). */
static void inv_sqrt_multiplier(int32_t input, int reverse_shift, int32_t *ret_mul, int *ret_shift) {
        if (input <= 1) {
                *ret_mul = INT32_MAX;
                *ret_shift = 0;
                return;
        }
        int shift = 11;
        while (input >= (1 << 29)) {
                input /= 4;
                ++shift;
        }
        unsigned max_left_shift_bits = (unsigned) __builtin_clz((uint32_t) input) - 1;
        unsigned left_shift_bit_pairs = max_left_shift_bits / 2 - 1;
        shift -= (int) left_shift_bit_pairs;
        input <<= 2 * left_shift_bit_pairs;
        /* Newton-Raphson in Q3.28 (FixedPoint<int32_t, 3>). */
        const int32_t half_input = ku_rdivpot(input >> 1, 1);
        const int32_t half_three = (1 << 28) + (1 << 27);
        int32_t x = 1 << 28;
        for (int i = 0; i < 5; i++) {
                int32_t x3 = srmulpot32(ku_srdhm(ku_srdhm(x, x), x), 6);
                x = srmulpot32((int32_t) ((uint32_t) ku_srdhm(half_three, x) - (uint32_t) ku_srdhm(half_input, x3)), 3);
        }
        x = ku_srdhm(x, 1518500250);  /* sqrt(2) / 2 in Q0.31 */
        if (shift < 0) {
                x = (int32_t) ((uint32_t) x << -shift);
                shift = 0;
        }
        *ret_mul = x;
        *ret_shift = shift * reverse_shift;
}

/* TFLite PortableApplyLayerNorm (int16 gate, int16 weights, int32 bias). */
static void layer_norm_i16(int16_t *gate, const int16_t *w, const int32_t *bias, int32_t scale_a, int scale_b,
                           int32_t variance_limit, int32_t n_batch, int32_t n) {
        const int32_t two20 = 1 << 20;
        for (int32_t i = 0; i < n_batch; i++) {
                int16_t *g = gate + (size_t) i * n;
                int64_t sum = 0, sum_sq = 0;
                for (int32_t j = 0; j < n; j++) {
                        int32_t v = g[j];
                        sum += v;
                        sum_sq += v * v;
                }
                int32_t mean = (int32_t) (sum * 1024 / n);
                int32_t temp = two20 / n;
                int64_t variance = sum_sq * temp - (int64_t) mean * mean;
                int32_t variance2 = (int32_t) (variance / two20);
                if (variance2 < 1)
                        variance2 = variance_limit;
                int32_t inv_a;
                int inv_b;
                inv_sqrt_multiplier(variance2, -1, &inv_a, &inv_b);
                for (int32_t j = 0; j < n; j++) {
                        int32_t shifted = 1024 * g[j] - mean;
                        int32_t rescaled = ku_mul_by_qmul(shifted, inv_a, inv_b);
                        int64_t val3 = (int64_t) rescaled * w[j] + bias[j];
                        int32_t val4 = (int32_t) ((val3 > 0 ? val3 + 512 : val3 - 512) / 1024);
                        int32_t val5 = ku_mul_by_qmul(val4, scale_a, scale_b + 12);
                        g[j] = (int16_t) KU_CLAMP(val5, INT16_MIN, INT16_MAX);
                }
        }
}

static void lstm_gate_int(const lstm_qgate_t *q, const int8_t *x, const int8_t *w_in, const int8_t *h,
                          const int8_t *w_rec, const int16_t *c, const int16_t *w_cell, const int16_t *ln,
                          const int32_t *ln_bias, int32_t n_batch, int32_t n_input, int32_t n_output,
                          int32_t n_cell, bool sigmoid, int16_t *gate) {
        memset(gate, 0, (size_t) n_batch * n_cell * sizeof(int16_t));
        mbvma_i16(x, q->in_bias, w_in, q->in_a, q->in_b, n_batch, n_input, n_cell, 0, gate);
        mbvma_i16(h, q->rec_bias, w_rec, q->rec_a, q->rec_b, n_batch, n_output, n_cell, 0, gate);
        if (w_cell) {
                /* TFLite passes n_output as the vector size here. */
                int32_t v_size = n_output;
                int16_t *res = gate;
                const int16_t *bv = c;
                for (int32_t b = 0; b < n_batch; b++) {
                        for (int32_t v = 0; v < v_size; v++) {
                                int32_t prod = (int32_t) w_cell[v] * *bv++;
                                prod = ku_mul_by_qmul(prod, q->cell_a, q->cell_b);
                                int32_t o = prod + *res;
                                *res++ = (int16_t) KU_CLAMP(o, INT16_MIN, INT16_MAX);
                        }
                }
        }
        if (ln)
                layer_norm_i16(gate, ln, ln_bias, q->ln_a, q->ln_b, q->variance_guard, n_batch, n_cell);
        size_t n = (size_t) n_batch * n_cell;
        for (size_t i = 0; i < n; i++)
                gate[i] = sigmoid ? f16_logistic(gate[i], 3) : f16_tanh(gate[i], 3);
}

static void lstm_step_int(const lstm_data_t *d, rt_tensor_t **t, int32_t n_batch, int32_t n_input, int32_t n_cell,
                          int32_t n_output, const int8_t *x, int8_t *h, int32_t h_zp, int16_t *c, int8_t *out,
                          int16_t *s0, int16_t *s1, int16_t *s2, int16_t *s3, int8_t *s4) {
        const bool cifg = !t[RT_LSTM_INPUT_TO_INPUT_W];
        const bool ln = d->use_layer_norm;
        const size_t n = (size_t) n_batch * n_cell;
#define W8(i) ((const int8_t *) (t[i] ? t[i]->data : NULL))
#define W16(i) ((const int16_t *) (t[i] ? t[i]->data : NULL))
#define B32(i) ((const int32_t *) (t[i] ? t[i]->data : NULL))
        if (!cifg)
                lstm_gate_int(&d->gate[GATE_INPUT], x, W8(RT_LSTM_INPUT_TO_INPUT_W), h,
                              W8(RT_LSTM_RECURRENT_TO_INPUT_W),
                              c, W16(RT_LSTM_CELL_TO_INPUT_W), ln ? W16(RT_LSTM_INPUT_LAYER_NORM) : NULL,
                              B32(RT_LSTM_INPUT_GATE_BIAS), n_batch, n_input, n_output, n_cell, true, s0);
        lstm_gate_int(&d->gate[GATE_FORGET], x, W8(RT_LSTM_INPUT_TO_FORGET_W), h, W8(RT_LSTM_RECURRENT_TO_FORGET_W), c,
                      W16(RT_LSTM_CELL_TO_FORGET_W), ln ? W16(RT_LSTM_FORGET_LAYER_NORM) : NULL,
                      B32(RT_LSTM_FORGET_GATE_BIAS), n_batch, n_input, n_output, n_cell, true, s1);
        lstm_gate_int(&d->gate[GATE_CELL], x, W8(RT_LSTM_INPUT_TO_CELL_W), h, W8(RT_LSTM_RECURRENT_TO_CELL_W), c, NULL,
                      ln ? W16(RT_LSTM_CELL_LAYER_NORM) : NULL, B32(RT_LSTM_CELL_GATE_BIAS), n_batch, n_input,
                      n_output, n_cell, false, s2);

        /* UpdateLstmCellInteger. */
        for (size_t i = 0; i < n; i++)
                c[i] = (int16_t) ku_rdivpot((int32_t) s1[i] * c[i], 15);
        for (size_t i = 0; i < n; i++) {
                int16_t gi = cifg ? (int16_t) (32767 - s1[i]) : s0[i];
                int16_t upd = (int16_t) ku_rdivpot((int32_t) gi * s2[i], 30 + d->cell_scale);
                int32_t sum = (int32_t) c[i] + upd;
                c[i] = (int16_t) KU_CLAMP(sum, INT16_MIN, INT16_MAX);
                if (d->quantized_cell_clip > 0)
                        c[i] = (int16_t) KU_CLAMP(c[i], -d->quantized_cell_clip, d->quantized_cell_clip);
        }

        lstm_gate_int(&d->gate[GATE_OUTPUT], x, W8(RT_LSTM_INPUT_TO_OUTPUT_W), h, W8(RT_LSTM_RECURRENT_TO_OUTPUT_W), c,
                      W16(RT_LSTM_CELL_TO_OUTPUT_W), ln ? W16(RT_LSTM_OUTPUT_LAYER_NORM) : NULL,
                      B32(RT_LSTM_OUTPUT_GATE_BIAS), n_batch, n_input, n_output, n_cell, true, s3);

        /* CalculateLstmOutputInteger8x8_16. */
        /* TFLite's ApplyTanh writes nothing for integer bits outside 0..6
         * (the unscaled case, cell scale 0); its hidden multiplier is 0
         * there, so s0's values do not matter (zeros, not stale scratch). */
        if (d->unscaled)
                memset(s0, 0, n * sizeof(*s0));
        else
                for (size_t i = 0; i < n; i++)
                        s0[i] = f16_tanh(c[i], 15 + d->cell_scale);
        for (size_t i = 0; i < n; i++) {
                int32_t v = (int32_t) s3[i] * s0[i];
                v = ku_mul_by_qmul(v, d->hidden_a, d->hidden_b);
                v -= d->hidden_zp;
                s4[i] = (int8_t) KU_CLAMP(v, -128, 127);
        }
        const int8_t *pw = W8(RT_LSTM_PROJECTION_W);
        if (pw) {
                memset(h, 0, (size_t) n_batch * n_output);
                mbvma_i8(s4, d->proj_bias, pw, d->proj_a, d->proj_b, n_batch, n_cell, n_output, h_zp, h);
                if (d->quantized_proj_clip > 0)
                        for (size_t i = 0; i < (size_t) n_batch * n_output; i++)
                                h[i] = (int8_t) KU_CLAMP(h[i], -d->quantized_proj_clip, d->quantized_proj_clip);
        } else {
                memcpy(h, s4, (size_t) n_batch * n_output);
        }
        memcpy(out, h, (size_t) n_batch * n_output);
#undef W8
#undef W16
#undef B32
}

/* Run one direction of a float or hybrid LSTM over the whole sequence
 * (TFLite EvalFloat / EvalHybrid): x is [time, batch, input] when
 * time_major, else [batch, time, input]; y rows are out_lead floats apart
 * (y may already point at a column offset inside merged rows). With an
 * auxiliary input (aux: [.., n_aux] data, weights in aw), TFLite 2.9 finds the aux rows of a step at the
 * input's step (time * batch * n_input when time-major, (batch * time +
 * step) * n_input otherwise), the rows of a time-major step n_aux apart. */
static void lstm_run_aux(const rt_lstm_params_t *p, rt_tensor_t **t, const float *aux, const lstm_aux_t *aw,
                         bool hybrid, bool forward, bool time_major, int32_t n_batch, int32_t max_time,
                         int32_t n_input, int32_t n_cell, int32_t n_output, const float *x, float *y,
                         int32_t out_lead, uint8_t *scratch) {
        float *h = t[RT_LSTM_OUTPUT_STATE]->data, *c = t[RT_LSTM_CELL_STATE]->data;
        lstm_aux_t a = { 0 };
        if (aw)
                a = *aw;
        const int32_t n_aux = aw ? aw->n_aux : 0;
        const lstm_aux_t *ap = aw ? &a : NULL;
        if (!hybrid) {
                float *s = (float *) (void *) scratch;
                for (int32_t i = 0; i < max_time; i++) {
                        int32_t tt = forward ? i : max_time - 1 - i;
                        for (int32_t b = 0; b < n_batch; b++) {
                                size_t step = time_major ? (size_t) tt * n_batch + b : (size_t) b * max_time + tt;
                                if (aw)
                                        a.x = time_major ? aux + (size_t) tt * n_batch * n_input + (size_t) b * n_aux
                                                         : aux + step * n_input;
                                lstm_step_float(p, t, ap, n_input, n_cell, n_output, x + step * n_input,
                                                h + (size_t) b * n_output, c + (size_t) b * n_cell,
                                                y + step * out_lead, s);
                        }
                }
                return;
        }
        size_t nbc = (size_t) n_batch * n_cell;
        hyb_scratch_t s;
        s.gates = (float *) (void *) scratch;
        s.tmp = s.gates + 4 * nbc;
        s.tmp2 = s.tmp + nbc;
        s.sf = s.tmp2 + nbc;
        s.zp = (int32_t *) (s.sf + 4 * (size_t) n_batch);
        s.qx = (int8_t *) (s.zp + 4 * (size_t) n_batch);
        s.qh = s.qx + (size_t) n_batch * n_input;
        s.qm = s.qh + (size_t) n_batch * n_output;
        s.qa = s.qm + (size_t) n_batch * n_cell;
        if (time_major) {
                for (int32_t i = 0; i < max_time; i++) {
                        int32_t tt = forward ? i : max_time - 1 - i;
                        if (aw)
                                a.x = aux + (size_t) tt * n_batch * n_input;
                        lstm_step_hybrid(p, t, ap, n_batch, n_input, n_cell, n_output,
                                         x + (size_t) tt * n_batch * n_input, h, c,
                                         y + (size_t) tt * n_batch * out_lead, out_lead, &s);
                }
                return;
        }
        for (int32_t b = 0; b < n_batch; b++) {
                for (int32_t i = 0; i < max_time; i++) {
                        int32_t tt = forward ? i : max_time - 1 - i;
                        size_t off = (size_t) b * max_time + tt;
                        if (aw)
                                a.x = aux + off * n_input;
                        lstm_step_hybrid(p, t, ap, 1, n_input, n_cell, n_output, x + off * n_input,
                                         h + (size_t) b * n_output, c + (size_t) b * n_cell, y + off * out_lead,
                                         out_lead, &s);
                }
        }
}

static void lstm_run_float(const rt_lstm_params_t *p, rt_tensor_t **t, bool hybrid, bool forward, bool time_major,
                           int32_t n_batch, int32_t max_time, int32_t n_input, int32_t n_cell, int32_t n_output,
                           const float *x, float *y, int32_t out_lead, uint8_t *scratch) {
        lstm_run_aux(p, t, NULL, NULL, hybrid, forward, time_major, n_batch, max_time, n_input, n_cell, n_output, x, y,
                     out_lead, scratch);
}

/* ---- LSTM (16) with kernel_type BASIC: TFLite's 5-input LstmCell ----
 * Inputs: 0 input [batch, input], 1 previous activation [batch, depth],
 * 2 weights [4 * depth, input + depth], 3 bias [4 * depth], 4 previous
 * state [batch, depth]. Outputs: 0 activation, 1 state (as the previous
 * ones), 2 the concatenation [batch, input + depth], 3 the fully connected
 * result [batch, 4 * depth], gates in the order input, new input, forget,
 * output. Like TFLite, the new activation and state are copied back into
 * inputs 1 and 4 (when they are not constant). Float, or TFLite's quantized
 * LstmCell<4>: uint8 input, activations (zero point 128 assumed, as TFLite
 * does) and weights, int32 bias, int16 state with scale 2^-11, the gates
 * in 16-bit fixed point (3 integer bits), gemmlowp tanh and logistic. */
static int lstm_basic_prepare(rt_context_t *ctx, rt_node_t *node) {
        if (node->n_inputs != 5 || node->n_outputs != 4)
                return rt_ctx_error(ctx, "LSTM: the BASIC kernel takes 5 inputs and 4 outputs, got %d and %d",
                                    node->n_inputs, node->n_outputs);
        rt_tensor_t *t[5];
        for (int i = 0; i < 5; i++) {
                t[i] = rt_node_input(ctx, node, i);
                if (!t[i])
                        return rt_ctx_error(ctx, "LSTM: BASIC kernel input %d is missing", i);
        }
        rt_tensor_t *x = t[0], *pa = t[1], *w = t[2], *b = t[3], *ps = t[4];
        if (x->rank != 2 || pa->rank != 2 || w->rank != 2 || b->rank != 1 || ps->rank != 2)
                return rt_ctx_error(ctx, "LSTM: bad tensor ranks for the BASIC kernel");
        int32_t batch = x->dims[0], depth = pa->dims[1], total = x->dims[1] + depth;
        if (pa->dims[0] != batch || w->dims[0] != 4 * depth || w->dims[1] != total || b->dims[0] != 4 * depth ||
            ps->dims[0] != batch || ps->dims[1] != depth)
                return rt_ctx_error(ctx, "LSTM: BASIC kernel shapes do not match");
        bool fl = true;
        for (int i = 0; i < 5; i++)
                fl = fl && t[i]->type == RT_TYPE_FLOAT32;
        for (int i = 0; i < 4; i++) {
                rt_tensor_t *o = rt_node_output(ctx, node, i);
                if (!o)
                        return rt_ctx_error(ctx, "LSTM: BASIC kernel output %d is missing", i);
                fl = fl && o->type == RT_TYPE_FLOAT32;
        }
        static const rt_type_t q_in[5] = { RT_TYPE_UINT8, RT_TYPE_UINT8, RT_TYPE_UINT8, RT_TYPE_INT32,
                                           RT_TYPE_INT16 };
        static const rt_type_t q_out[4] = { RT_TYPE_UINT8, RT_TYPE_INT16, RT_TYPE_UINT8, RT_TYPE_INT16 };
        bool q = true;
        for (int i = 0; i < 5; i++)
                q = q && t[i]->type == q_in[i];
        for (int i = 0; i < 4; i++)
                q = q && rt_node_output(ctx, node, i)->type == q_out[i];
        if (!fl && !q)
                return rt_ctx_error(ctx, "LSTM: unsupported combination of types for the BASIC kernel");
        if (q) {
                int32_t log2;
                rt_tensor_t *so = rt_node_output(ctx, node, 1);
                if (!lstm_checked_log2(so->scale, &log2) || 15 + log2 != 4)
                        return rt_ctx_error(ctx, "LSTM: the quantized BASIC kernel needs a state scale of 2^-11");
        }
        int r = rt_ctx_resize(ctx, node, 0, 2, pa->dims);
        if (r == 0)
                r = rt_ctx_resize(ctx, node, 1, 2, ps->dims);
        if (r == 0)
                r = rt_ctx_resize(ctx, node, 2, 2, (int32_t[]){ batch, total });
        if (r == 0)
                r = rt_ctx_resize(ctx, node, 3, 2, (int32_t[]){ batch, 4 * depth });
        return r;
}

/* The requantization of TFLite 2.9's GEMM through ruy (its optimized
 * LstmCell runs the fully connected part there): a doubling high multiply
 * rounding half up, then a rounding right shift half up. */
static int32_t lstm_mul_ruy(int32_t x, int32_t multiplier, int shift) {
        const int left = shift > 0 ? shift : 0, right = shift > 0 ? 0 : -shift;
        const int64_t prod = (int64_t) (int32_t) ((uint32_t) x << left) * multiplier;
        const int32_t hi = (int32_t) ((prod + ((int64_t) 1 << 30)) >> 31);
        if (right == 0)
                return hi;
        return (int32_t) (((int64_t) hi + ((int64_t) 1 << (right - 1))) >> right);
}

/* TFLite's quantized LstmCell<StateIntegerBits = 4>. */
static void lstm_basic_quant(rt_tensor_t **t, rt_tensor_t **o) {
        const int32_t batch = t[0]->dims[0], n_in = t[0]->dims[1], depth = t[1]->dims[1], total = n_in + depth;
        const uint8_t *x = t[0]->data, *pa = t[1]->data, *w = t[2]->data;
        const int32_t *bias = t[3]->data;
        const int16_t *ps = t[4]->data;
        uint8_t *act = o[0]->data, *cat = o[2]->data;
        int16_t *state = o[1]->data, *fc = o[3]->data;
        const int32_t w_zp = t[2]->zero_point;
        int32_t mul;
        int shift;
        ku_quantize_multiplier(4096.0 * (double) t[3]->scale, &mul, &shift);
        for (int32_t b = 0; b < batch; b++) {
                memcpy(cat + (size_t) b * total, x + (size_t) b * n_in, (size_t) n_in);
                memcpy(cat + (size_t) b * total + n_in, pa + (size_t) b * depth, (size_t) depth);
                for (int32_t r = 0; r < 4 * depth; r++) {
                        int32_t acc = bias[r];
                        for (int32_t k = 0; k < total; k++)
                                acc += ((int32_t) cat[(size_t) b * total + k] - 128) *
                                       ((int32_t) w[(size_t) r * total + k] - w_zp);
                        acc = lstm_mul_ruy(acc, mul, shift);
                        fc[(size_t) b * 4 * depth + r] = (int16_t) KU_CLAMP(acc, -32768, 32767);
                }
                const int16_t *g = fc + (size_t) b * 4 * depth;
                for (int32_t c = 0; c < depth; c++) {
                        /* Gates: F3 in, F0 out. */
                        int16_t ig = f16_logistic(g[c], 3), ni = f16_tanh(g[depth + c], 3);
                        int16_t fg = f16_logistic(g[2 * depth + c], 3), og = f16_logistic(g[3 * depth + c], 3);
                        int16_t in_mod = f16_srdhm(ig, ni);                          /* F0 */
                        int16_t kept = f16_srdhm(fg, ps[(size_t) b * depth + c]);     /* F0 x F4 = F4 */
                        int16_t ns = f16_sat_add(f16_srmulpot(in_mod, -4), kept);     /* F4 */
                        int16_t out = f16_srdhm(og, f16_tanh(f16_srmulpot(ns, 1), 3)); /* F0 */
                        state[(size_t) b * depth + c] = ns;
                        int16_t r8 = f16_rdivpot(out, 8);
                        act[(size_t) b * depth + c] = (uint8_t) (128 + KU_CLAMP(r8, -128, 127));
                }
        }
}

static int lstm_basic_invoke(rt_context_t *ctx, rt_node_t *node) {
        rt_tensor_t *t[5], *o[4];
        for (int i = 0; i < 5; i++)
                if (!(t[i] = rt_node_input(ctx, node, i))->data)
                        return rt_ctx_error(ctx, "LSTM: input %d has no data", i);
        for (int i = 0; i < 4; i++)
                if (!(o[i] = rt_node_output(ctx, node, i))->data)
                        return rt_ctx_error(ctx, "LSTM: output %d has no data", i);
        if (t[0]->type == RT_TYPE_UINT8) {
                lstm_basic_quant(t, o);
                const int32_t n = t[1]->dims[0] * t[1]->dims[1];
                if (!rt_tensor_is_const(t[1]))
                        memcpy(t[1]->data, o[0]->data, (size_t) n);
                if (!rt_tensor_is_const(t[4]))
                        memcpy(t[4]->data, o[1]->data, (size_t) n * sizeof(int16_t));
                return 0;
        }
        const int32_t batch = t[0]->dims[0], n_in = t[0]->dims[1], depth = t[1]->dims[1], total = n_in + depth;
        const float *x = t[0]->data, *pa = t[1]->data, *w = t[2]->data, *bias = t[3]->data, *ps = t[4]->data;
        float *act = o[0]->data, *state = o[1]->data, *cat = o[2]->data, *fc = o[3]->data;
        for (int32_t b = 0; b < batch; b++) {
                memcpy(cat + (size_t) b * total, x + (size_t) b * n_in, (size_t) n_in * sizeof(float));
                memcpy(cat + (size_t) b * total + n_in, pa + (size_t) b * depth, (size_t) depth * sizeof(float));
                for (int32_t r = 0; r < 4 * depth; r++) {
                        float dot = 0.0f;
                        for (int32_t k = 0; k < total; k++)
                                dot += w[(size_t) r * total + k] * cat[(size_t) b * total + k];
                        fc[(size_t) b * 4 * depth + r] = dot + bias[r];
                }
                const float *g = fc + (size_t) b * 4 * depth;
                for (int32_t c = 0; c < depth; c++) {
                        float ig = lstm_sigmoid(g[c]), ni = ew_tanh_fast(g[depth + c]);
                        float fg = lstm_sigmoid(g[2 * depth + c]), og = lstm_sigmoid(g[3 * depth + c]);
                        float ns = ig * ni + fg * ps[(size_t) b * depth + c];
                        state[(size_t) b * depth + c] = ns;
                        act[(size_t) b * depth + c] = og * ew_tanh_fast(ns);
                }
        }
        if (!rt_tensor_is_const(t[1]))
                memcpy(t[1]->data, act, (size_t) batch * depth * sizeof(float));
        if (!rt_tensor_is_const(t[4]))
                memcpy(t[4]->data, state, (size_t) batch * depth * sizeof(float));
        return 0;
}

static int lstm_invoke(rt_context_t *ctx, rt_node_t *node) {
        const rt_lstm_params_t *p = node->params;
        const lstm_data_t *d = node->user_data;
        if (node->op == RT_OP_LSTM && p->kernel_type == 1)
                return lstm_basic_invoke(ctx, node);
        rt_tensor_t *t[_RT_LSTM_INPUT_MAX];
        for (int i = 0; i < _RT_LSTM_INPUT_MAX; i++) {
                t[i] = rt_node_input(ctx, node, i);
                if (t[i] && !t[i]->data)
                        return rt_ctx_error(ctx, "LSTM: input %d has no data", i);
        }
        if (!d->use_layer_norm)
                for (int i = RT_LSTM_INPUT_LAYER_NORM; i <= RT_LSTM_OUTPUT_LAYER_NORM; i++)
                        t[i] = NULL;
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        uint8_t *scratch = ctx->get_scratch(ctx, node, d->scratch_id);
        if (!out->data || !scratch)
                return rt_ctx_error(ctx, "LSTM: output or scratch buffer missing");
        const rt_tensor_t *in = t[RT_LSTM_INPUT];
        int32_t n_input = in->dims[in->rank - 1];
        int32_t n_batch, max_time;
        if (in->rank == 2) {
                max_time = 1;
                n_batch = in->dims[0];
        } else {
                max_time = p->time_major ? in->dims[0] : in->dims[1];
                n_batch = p->time_major ? in->dims[1] : in->dims[0];
        }
        int32_t n_cell = t[RT_LSTM_INPUT_TO_OUTPUT_W]->dims[0];
        int32_t n_output = t[RT_LSTM_RECURRENT_TO_OUTPUT_W]->dims[1];
        int32_t out_lead = out->dims[out->rank - 1];

        if (!d->integer) {
                lstm_run_float(p, t, d->hybrid, true, p->time_major || in->rank == 2, n_batch, max_time, n_input,
                               n_cell, n_output, in->data, out->data, out_lead, scratch);
                return 0;
        }

        size_t nbc = (size_t) n_batch * n_cell;
        int16_t *s0 = (int16_t *) (void *) scratch;
        int16_t *s1 = s0 + nbc, *s2 = s1 + nbc, *s3 = s2 + nbc;
        int8_t *s4 = (int8_t *) (s3 + nbc);
        const int8_t *x = in->data;
        int8_t *y = out->data, *h = t[RT_LSTM_OUTPUT_STATE]->data;
        int16_t *c = t[RT_LSTM_CELL_STATE]->data;
        int32_t h_zp = t[RT_LSTM_OUTPUT_STATE]->zero_point;
        if (p->time_major || in->rank == 2) {
                for (int32_t tt = 0; tt < max_time; tt++)
                        lstm_step_int(d, t, n_batch, n_input, n_cell, n_output, x + (size_t) tt * n_batch * n_input,
                                      h, h_zp, c, y + (size_t) tt * n_batch * out_lead, s0, s1, s2, s3, s4);
        } else {
                for (int32_t b = 0; b < n_batch; b++) {
                        for (int32_t tt = 0; tt < max_time; tt++) {
                                size_t off = (size_t) b * max_time + tt;
                                lstm_step_int(d, t, 1, n_input, n_cell, n_output, x + off * n_input,
                                              h + (size_t) b * out_lead, h_zp, c + (size_t) b * n_cell,
                                              y + off * out_lead, s0, s1, s2, s3, s4);
                        }
                }
        }
        return 0;
}

const rt_registration_t rt_kernel_unidirectional_sequence_lstm = {
        .name = "UNIDIRECTIONAL_SEQUENCE_LSTM",
        .op = RT_OP_UNIDIRECTIONAL_SEQUENCE_LSTM,
        .params_size = sizeof(rt_lstm_params_t),
        .parse = lstm_parse,
        .init = lstm_init,
        .free = lstm_free,
        .prepare = lstm_prepare,
        .invoke = lstm_invoke,
};

/* LSTM (16): one step of the same cell on a [batch, input] input. */
const rt_registration_t rt_kernel_lstm = {
        .name = "LSTM",
        .op = RT_OP_LSTM,
        .params_size = sizeof(rt_lstm_params_t),
        .parse = lstm_parse_full,
        .init = lstm_init,
        .free = lstm_free,
        .prepare = lstm_prepare,
        .invoke = lstm_invoke,
};

/* ---- BIDIRECTIONAL_SEQUENCE_LSTM (52) ----
 * Inputs: 0 input; 1-17 the forward cell's weights and biases (LSTM inputs
 * 1-17); 18-34 the backward cell's; 35/36 forward output/cell state; 37/38
 * backward output/cell state; 39-47 auxiliary input and weights (optional,
 * see bilstm_prepare). Outputs: forward and backward, or one merged output. Float and
 * hybrid only, as in TFLite. */

enum { BILSTM_FW_STATE = 35, BILSTM_BW_STATE = 37, BILSTM_AUX = 39 };

static int bilstm_parse(const rt_node_t *node, void *ret_params, rt_context_t *ctx) {
        (void) ctx;
        rt_lstm_params_t *p = ret_params;
        p->activation = (rt_activation_t) fbt_i8(node->options, 0, 0);
        p->cell_clip = fbt_f32(node->options, 1, 0.0f);
        p->proj_clip = fbt_f32(node->options, 2, 0.0f);
        p->merge_outputs = fbt_bool(node->options, 3, false);
        p->time_major = fbt_bool(node->options, 4, true);
        p->asymmetric_quantize_inputs = fbt_bool(node->options, 5, false);
        return 0;
}

/* The tensor indices of one direction in LSTM input order (20 entries). */
static void bilstm_view(const rt_node_t *node, bool backward, int32_t *ret_inputs) {
        ret_inputs[0] = node->inputs[0];
        for (int i = 1; i <= 17; i++)
                ret_inputs[i] = node->inputs[i + (backward ? 17 : 0)];
        int st = backward ? BILSTM_BW_STATE : BILSTM_FW_STATE;
        ret_inputs[RT_LSTM_OUTPUT_STATE] = node->inputs[st];
        ret_inputs[RT_LSTM_CELL_STATE] = node->inputs[st + 1];
}

static int bilstm_prepare(rt_context_t *ctx, rt_node_t *node) {
        const rt_lstm_params_t *p = node->params;
        lstm_data_t *d = node->user_data;
        if (!p || !d)
                return rt_ctx_error(ctx, "BIDIRECTIONAL_SEQUENCE_LSTM: missing params");
        lstm_data_reset(d);
        if (node->n_inputs < BILSTM_AUX || node->n_outputs != (p->merge_outputs ? 1 : 2))
                return rt_ctx_error(ctx, "BIDIRECTIONAL_SEQUENCE_LSTM: expected 48 inputs and %d outputs",
                                    p->merge_outputs ? 1 : 2);
        rt_tensor_t *in = rt_node_input(ctx, node, 0);
        if (!in || in->rank != 3 || in->type != RT_TYPE_FLOAT32)
                return rt_ctx_error(ctx, "BIDIRECTIONAL_SEQUENCE_LSTM: input must be 3-D float32");
        /* Auxiliary input (39) and its weights (40-43 forward, 44-47
         * backward, input gate ones absent for a CIFG cell), as TFLite 2.9
         * reads them: with weights every gate adds W_aux x aux, the aux rows
         * found at the input's steps (an aux input narrower than the input
         * is read past its end there: refused); without weights the
         * backward cell runs on the aux input instead of the input. */
        rt_tensor_t *aux = node->n_inputs > BILSTM_AUX ? rt_node_input(ctx, node, BILSTM_AUX) : NULL;
        int n_aux_w = 0;
        for (int i = BILSTM_AUX + 1; i < node->n_inputs && i < BILSTM_AUX + 9; i++)
                n_aux_w += rt_node_input(ctx, node, i) != NULL;
        if (aux && (aux->type != RT_TYPE_FLOAT32 || aux->rank != 3 || aux->dims[0] != in->dims[0] ||
                    aux->dims[1] != in->dims[1]))
                return rt_ctx_error(ctx, "BIDIRECTIONAL_SEQUENCE_LSTM: auxiliary input must be float32 shaped as "
                                    "the input but for its last dimension");
        if (n_aux_w && !aux)
                return rt_ctx_error(ctx, "BIDIRECTIONAL_SEQUENCE_LSTM: auxiliary weights without an auxiliary input");
        if (aux && !n_aux_w && aux->dims[2] != in->dims[2]) {
                (void) rt_ctx_error(ctx, "BIDIRECTIONAL_SEQUENCE_LSTM: an auxiliary input read as the backward "
                                    "input must match the input");
                return -ENOTSUP;
        }
        const int32_t n_aux = n_aux_w ? aux->dims[2] : 0;
        if (n_aux_w && n_aux < in->dims[2]) {
                (void) rt_ctx_error(ctx, "BIDIRECTIONAL_SEQUENCE_LSTM: an auxiliary input narrower than the input "
                                    "(%d < %d) is read past its end by TFLite", n_aux, in->dims[2]);
                return -ENOTSUP;
        }
        lstm_dims_t dims[2];
        size_t scratch = 0;
        for (int dir = 0; dir < 2; dir++) {
                int32_t view_in[20];
                bilstm_view(node, dir == 1, view_in);
                rt_node_t view = *node;
                view.inputs = view_in;
                view.n_inputs = 20;
                view.n_outputs = 1;
                bool ln = false;
                int r = lstm_check(ctx, &view, p, &ln, &dims[dir]);
                if (r < 0)
                        return r;
                rt_tensor_t *w = rt_node_input(ctx, &view, RT_LSTM_INPUT_TO_OUTPUT_W);
                bool hybrid = w->type == RT_TYPE_INT8 || w->type == RT_TYPE_UINT8;
                if (dir == 1 && hybrid != d->hybrid)
                        return rt_ctx_error(ctx, "BIDIRECTIONAL_SEQUENCE_LSTM: directions differ in weight type");
                d->hybrid = hybrid;
                for (int i = 1; i < 20; i++) {
                        rt_tensor_t *t = rt_node_input(ctx, &view, i);
                        bool weight = (i >= RT_LSTM_INPUT_TO_INPUT_W && i <= RT_LSTM_CELL_TO_OUTPUT_W) ||
                                      i == RT_LSTM_PROJECTION_W;
                        rt_type_t want = hybrid && weight ? RT_TYPE_INT8 : RT_TYPE_FLOAT32;
                        if (t && t->type != want && !(want == RT_TYPE_INT8 && t->type == RT_TYPE_UINT8))
                                return rt_ctx_error(ctx, "BIDIRECTIONAL_SEQUENCE_LSTM: input %d is %s, expected %s",
                                                    view_in[i], rt_type_name(t->type), rt_type_name(want));
                }
                const lstm_dims_t *dm = &dims[dir];
                bool cifg = !rt_node_input(ctx, &view, RT_LSTM_INPUT_TO_INPUT_W);
                for (int g = 0; n_aux_w && g < N_GATES; g++) {
                        rt_tensor_t *aw = rt_node_input(ctx, node, BILSTM_AUX + 1 + 4 * dir + g);
                        if (!aw != (g == GATE_INPUT && cifg))
                                return rt_ctx_error(ctx, "BIDIRECTIONAL_SEQUENCE_LSTM: auxiliary weights must be "
                                                    "present for every gate the cell has");
                        if (aw && (aw->rank != 2 || aw->dims[0] != dm->n_cell || aw->dims[1] != n_aux ||
                                   aw->type != w->type))
                                return rt_ctx_error(ctx, "BIDIRECTIONAL_SEQUENCE_LSTM: auxiliary weights %d do not "
                                                    "match", BILSTM_AUX + 1 + 4 * dir + g);
                }
                size_t nbc = (size_t) dm->n_batch * dm->n_cell;
                size_t nq = (size_t) dm->n_batch * ((size_t) dm->n_input + dm->n_output + dm->n_cell + n_aux);
                size_t bytes = (6 * nbc + (size_t) dm->n_batch * dm->n_output) * sizeof(float) +
                               (hybrid ? nq + 16 + (size_t) dm->n_batch * 8 * 4 : 0);
                scratch = bytes > scratch ? bytes : scratch;
        }
        for (int i = 0; i < node->n_outputs; i++) {
                rt_tensor_t *o = rt_node_output(ctx, node, i);
                if (!o || o->type != RT_TYPE_FLOAT32)
                        return rt_ctx_error(ctx, "BIDIRECTIONAL_SEQUENCE_LSTM: outputs must be float32");
        }
        int r = ctx->request_scratch(ctx, node, scratch, &d->scratch_id);
        if (r < 0)
                return r;
        int32_t od[3] = { in->dims[0], in->dims[1],
                          dims[0].n_output + (p->merge_outputs ? dims[1].n_output : 0) };
        r = rt_ctx_resize(ctx, node, 0, 3, od);
        if (r < 0 || p->merge_outputs)
                return r;
        od[2] = dims[1].n_output;
        return rt_ctx_resize(ctx, node, 1, 3, od);
}

static int bilstm_invoke(rt_context_t *ctx, rt_node_t *node) {
        const rt_lstm_params_t *p = node->params;
        const lstm_data_t *d = node->user_data;
        uint8_t *scratch = ctx->get_scratch(ctx, node, d->scratch_id);
        rt_tensor_t *in = rt_node_input(ctx, node, 0);
        rt_tensor_t *fw_out = rt_node_output(ctx, node, 0);
        rt_tensor_t *bw_out = p->merge_outputs ? fw_out : rt_node_output(ctx, node, 1);
        if (!scratch || !in->data || !fw_out->data || !bw_out->data)
                return rt_ctx_error(ctx, "BIDIRECTIONAL_SEQUENCE_LSTM: buffer missing");
        const int32_t n_batch = p->time_major ? in->dims[1] : in->dims[0];
        const int32_t max_time = p->time_major ? in->dims[0] : in->dims[1];
        const int32_t n_input = in->dims[2];
        const int32_t lead = fw_out->dims[2];
        const rt_tensor_t *aux = node->n_inputs > BILSTM_AUX ? rt_node_input(ctx, node, BILSTM_AUX) : NULL;
        if (aux && !aux->data)
                return rt_ctx_error(ctx, "BIDIRECTIONAL_SEQUENCE_LSTM: auxiliary input has no data");
        for (int dir = 0; dir < 2; dir++) {
                lstm_aux_t aw = { .n_aux = aux ? aux->dims[2] : 0 };
                bool with_w = false;
                for (int g = 0; aux && g < N_GATES && BILSTM_AUX + 1 + 4 * dir + g < node->n_inputs; g++) {
                        aw.w[g] = rt_node_input(ctx, node, BILSTM_AUX + 1 + 4 * dir + g);
                        if (aw.w[g] && !aw.w[g]->data)
                                return rt_ctx_error(ctx, "BIDIRECTIONAL_SEQUENCE_LSTM: auxiliary weights have no "
                                                    "data");
                        with_w |= aw.w[g] != NULL;
                }
                int32_t view_in[20];
                bilstm_view(node, dir == 1, view_in);
                rt_node_t view = *node;
                view.inputs = view_in;
                view.n_inputs = 20;
                rt_tensor_t *t[_RT_LSTM_INPUT_MAX] = { 0 };
                for (int i = 0; i < 20; i++) {
                        t[i] = rt_node_input(ctx, &view, i);
                        if (t[i] && !t[i]->data)
                                return rt_ctx_error(ctx, "BIDIRECTIONAL_SEQUENCE_LSTM: input %d has no data",
                                                    view_in[i]);
                }
                int32_t n_cell = t[RT_LSTM_INPUT_TO_OUTPUT_W]->dims[0];
                int32_t n_output = t[RT_LSTM_RECURRENT_TO_OUTPUT_W]->dims[1];
                float *y = dir == 0 ? fw_out->data : bw_out->data;
                int32_t out_lead = dir == 0 ? lead : bw_out->dims[2];
                if (dir == 1 && p->merge_outputs)
                        y += lead - n_output;
                /* Without aux weights the backward cell reads the aux input. */
                const float *x = aux && !with_w && dir == 1 ? aux->data : in->data;
                lstm_run_aux(p, t, with_w ? aux->data : NULL, with_w ? &aw : NULL, d->hybrid, dir == 0,
                             p->time_major, n_batch, max_time, n_input, n_cell, n_output, x, y, out_lead, scratch);
        }
        return 0;
}

const rt_registration_t rt_kernel_bidirectional_sequence_lstm = {
        .name = "BIDIRECTIONAL_SEQUENCE_LSTM",
        .op = RT_OP_BIDIRECTIONAL_SEQUENCE_LSTM,
        .params_size = sizeof(rt_lstm_params_t),
        .parse = bilstm_parse,
        .init = lstm_init,
        .free = lstm_free,
        .prepare = bilstm_prepare,
        .invoke = bilstm_invoke,
};
