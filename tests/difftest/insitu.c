/* SPDX-License-Identifier: Apache-2.0 */
/*
 * modelfuzz's in-situ check (insitu.h): every op of a network, fed what our
 * XNNPACK driver gave it, against TensorFlow Lite running that op alone,
 * by difftest's rule.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fbt.h"
#include "insitu.h"
#include "model-internal.h"
#include "model.h"
#include "native.h"
#include "rt.h"
#include "settings.h"
#include "tflite-builder.h"

/* One tensor's value after our run, with its runtime shape. */
typedef struct val {
        void *data;
        size_t bytes;
        int32_t rank;
        int32_t dims[RT_MAX_RANK];
} val_t;

static void vals_free(val_t *v, int32_t n) {
        for (int32_t i = 0; v && i < n; i++)
                free(v[i].data);
        free(v);
}

/* The model on our XNNPACK driver (1 thread), as modelfuzz runs it: the
 * first n_out outputs with their shapes in vals (calloc'ed by the caller).
 * 0 or -errno with err. */
static int xnn_run(const uint8_t *model, size_t size, void *const *inputs, const size_t *in_sizes, int n_in,
                   int32_t n_out, val_t *vals, char *err, size_t err_size) {
        rt_model_t *m = NULL;
        rt_interp_t *it = NULL;
        int r = rt_model_load_buffer(model, size, false, &m, err, err_size);
        if (r < 0)
                return r;
        rt_interp_options_t *o = rt_interp_options_new();
        if (!o) {
                rt_model_free(m);
                return -ENOMEM;
        }
        rt_settings_t s;
        rt_settings_init(&s);
        s.delegate = RT_DELEGATE_XNNPACK;
        snprintf(s.delegate_name, sizeof(s.delegate_name), "XNNPACK");
        s.xnnpack_num_threads = 1;
        rt_interp_options_set_num_threads(o, 1);
        r = rt_interp_options_set_settings(o, &s);
        if (r == 0)
                r = rt_interp_create(m, o, &it, err, err_size);
        rt_interp_options_free(o);
        rt_settings_done(&s);
        if (r == 0)
                r = rt_interp_allocate_tensors(it);
        for (int i = 0; r == 0 && i < n_in; i++)
                r = rt_interp_copy_in(it, i, inputs[i], in_sizes[i]);
        if (r == 0)
                r = rt_interp_invoke(it);
        if (r < 0 && it)
                snprintf(err, err_size, "%s", rt_interp_last_error(it));
        if (r == 0 && rt_interp_output_count(it) != n_out) {
                snprintf(err, err_size, "%d outputs, expected %d", rt_interp_output_count(it), n_out);
                r = -EINVAL;
        }
        for (int32_t i = 0; r == 0 && i < n_out; i++) {
                const rt_tensor_t *t = rt_interp_output_tensor(it, i);
                size_t bytes = !t || !t->data ? 0
                               : t->type == RT_TYPE_STRING ? t->bytes
                                                            : rt_tensor_count(t) * rt_type_size(t->type);
                vals[i].data = malloc(bytes ? bytes : 1);
                if (!vals[i].data) {
                        r = -ENOMEM;
                        break;
                }
                if (bytes)
                        memcpy(vals[i].data, t->data, bytes);
                vals[i].bytes = bytes;
                vals[i].rank = t ? t->rank : 0;
                for (int32_t d = 0; t && d < t->rank && d < RT_MAX_RANK; d++)
                        vals[i].dims[d] = t->dims[d];
        }
        rt_interp_free(it);
        rt_model_free(m);
        return r;
}

/* ---- exposing every op's outputs ---- */

/* A copy of the model whose subgraph 0 outputs are `outs` (n): a new int32
 * vector appended after the file's last byte and the subgraph's outputs
 * field pointed at it (a FlatBuffers offset only points forward, and the
 * end of the file is past everything). The same mechanism as modelfuzz
 * --trace, which rewrites the existing vector. NULL on error. */
static uint8_t *expose(const uint8_t *model, size_t size, const int32_t *outs, int32_t n, size_t *ret_size) {
        fbt_table_t root = fbt_root(model, size);
        fbt_table_t sg = fbt_vector_table(root, fbt_vector(root, RT__MODEL_SUBGRAPHS, 4), 0);
        uint32_t field = fbt_field(sg, RT__SUBGRAPH_OUTPUTS, 4);
        if (!field)
                return NULL;
        size_t at = (size + 3) / 4 * 4, total = at + 4 + 4 * (size_t) n;
        uint8_t *buf = aligned_alloc(16, (total + 15) / 16 * 16);
        if (!buf)
                return NULL;
        memset(buf, 0, (total + 15) / 16 * 16);
        memcpy(buf, model, size);
        uint32_t len = (uint32_t) n, rel = (uint32_t) (at - field);
        memcpy(buf + at, &len, 4);
        memcpy(buf + at + 4, outs, 4 * (size_t) n);
        memcpy(buf + field, &rel, 4);
        *ret_size = total;
        return buf;
}

/* ---- one op alone ---- */

/* The accum difftest's generator of this op sets (tests/difftest/gen-*.c):
 * the terms summed per output element; 1 for transcendental functions, 0
 * for other elementwise and data-movement ops. Only float outputs use it. */
static int32_t op_accum(const rt_model_subgraph_t *sg, const rt_model_op_t *op) {
        const rt_model_tensor_t *in = op->n_inputs > 0 && op->inputs[0] >= 0 ? &sg->tensors[op->inputs[0]] : NULL;
        const rt_model_tensor_t *w = op->n_inputs > 1 && op->inputs[1] >= 0 ? &sg->tensors[op->inputs[1]] : NULL;
        fbt_table_t opt = op->builtin_options;
        switch (op->builtin_code) {
        case RT_BUILTIN_CONV_2D: /* filter [cout, kh, kw, cin] */
                return w && w->rank == 4 ? w->shape[1] * w->shape[2] * w->shape[3] + 1 : 0;
        case RT_BUILTIN_DEPTHWISE_CONV_2D: /* filter [1, kh, kw, cout] */
                return w && w->rank == 4 ? w->shape[1] * w->shape[2] + 1 : 0;
        case RT_BUILTIN_FULLY_CONNECTED: /* weights [units, k] */
                return w && w->rank == 2 ? w->shape[1] + 1 : 0;
        case RT_BUILTIN_TRANSPOSE_CONV: { /* inputs: output shape, weights [co, kh, kw, ci], input */
                return w && w->rank == 4 ? w->shape[1] * w->shape[2] * w->shape[3] + 1 : 0;
        }
        case RT_BUILTIN_BATCH_MATMUL: {
                bool adj_x = fbt_bool(opt, 0, false);
                if (!in || in->rank < 2)
                        return 0;
                return (adj_x ? in->shape[in->rank - 2] : in->shape[in->rank - 1]) + 1;
        }
        case RT_BUILTIN_AVERAGE_POOL_2D:
        case RT_BUILTIN_MAX_POOL_2D:
        case RT_BUILTIN_L2_POOL_2D:
                return fbt_i32(opt, 3, 0) * fbt_i32(opt, 4, 0);
        case RT_BUILTIN_SOFTMAX:
        case RT_BUILTIN_LOG_SOFTMAX:
        case RT_BUILTIN_L2_NORMALIZATION:
                return in && in->rank > 0 ? in->shape[in->rank - 1] + 1 : 0;
        case RT_BUILTIN_MEAN:
        case RT_BUILTIN_SUM:
        case RT_BUILTIN_REDUCE_MAX:
        case RT_BUILTIN_REDUCE_MIN:
        case RT_BUILTIN_REDUCE_PROD: {
                /* The product of the reduced dimensions. */
                const rt_model_tensor_t *ax = w;
                if (!in || !ax || !ax->data || ax->type != RT_TYPE_INT32)
                        return 0;
                bool seen[RT_MAX_RANK] = { false };
                int64_t terms = 1;
                for (size_t i = 0; i < ax->data_bytes / 4; i++) {
                        int32_t a;
                        memcpy(&a, (const uint8_t *) ax->data + 4 * i, 4);
                        if (a < 0)
                                a += in->rank;
                        if (a >= 0 && a < in->rank && a < RT_MAX_RANK && !seen[a]) {
                                seen[a] = true;
                                terms *= in->shape[a];
                        }
                }
                return (int32_t) terms;
        }
        case RT_BUILTIN_ADD_N:
                return op->n_inputs;
        case RT_BUILTIN_RESIZE_BILINEAR:
                return 4;
        case RT_BUILTIN_LOCAL_RESPONSE_NORMALIZATION:
                return 2 * fbt_i32(opt, 0, 0) + 2;
        case RT_BUILTIN_POW:
        case RT_BUILTIN_EXP:
        case RT_BUILTIN_LOG:
        case RT_BUILTIN_SQRT:
        case RT_BUILTIN_RSQRT:
        case RT_BUILTIN_SIN:
        case RT_BUILTIN_COS:
        case RT_BUILTIN_SQUARE:
        case RT_BUILTIN_ABS:
        case RT_BUILTIN_FLOOR:
        case RT_BUILTIN_CEIL:
        case RT_BUILTIN_ROUND:
        case RT_BUILTIN_TANH:
        case RT_BUILTIN_LOGISTIC:
        case RT_BUILTIN_RELU:
        case RT_BUILTIN_RELU6:
        case RT_BUILTIN_RELU_N1_TO_1:
        case RT_BUILTIN_LEAKY_RELU:
        case RT_BUILTIN_ELU:
        case RT_BUILTIN_HARD_SWISH:
        case RT_BUILTIN_GELU:
                return 1;
        default:
                return 0;
        }
}

/* The op's BuiltinOptions table as builder fields. The schema is not
 * needed for scalars: each present field's bytes are copied as an unsigned
 * integer of the largest size (8, 4, 2, 1) that fits before the next field
 * and is aligned there (FlatBuffers aligns scalars to their size), so the
 * new table holds the same bytes where the reader looks (little-endian: a
 * 1-byte field copied with its padding reads the same). Offset fields
 * (vectors, strings) need the schema: the vectors of ReshapeOptions,
 * SqueezeOptions and BucketizeOptions are copied; other options with
 * offsets are refused (-ENOTSUP). vecs receives malloc'ed vector copies. */
#define OPT_MAX 24
static int options_copy(const rt_model_op_t *op, tfb_option_t *o, size_t *ret_n, void **vecs) {
        fbt_table_t t = op->builtin_options;
        *ret_n = 0;
        if (fbt_present(op->builtin_options_2))
                return -ENOTSUP;
        if (!fbt_present(t))
                return 0;
        int vec_id = -1;
        bool vec_f32 = false;
        switch (op->builtin_options_type) {
        case RT_OPTIONS_RESHAPE:
        case RT_OPTIONS_SQUEEZE:
                vec_id = 0;
                break;
        case RT_OPTIONS_BUCKETIZE:
                vec_id = 0, vec_f32 = true;
                break;
        case RT_OPTIONS_CONCAT_EMBEDDINGS:
        case RT_OPTIONS_VAR_HANDLE:
                return -ENOTSUP;
        default:
                break;
        }
        if ((size_t) t.pos + 4 > t.size)
                return -EINVAL;
        int32_t soff;
        memcpy(&soff, t.buf + t.pos, 4);
        int64_t vt = (int64_t) t.pos - soff;
        if (vt < 0 || (size_t) vt + 4 > t.size)
                return -EINVAL;
        uint16_t vsize, osize;
        memcpy(&vsize, t.buf + vt, 2);
        memcpy(&osize, t.buf + vt + 2, 2);
        if ((size_t) vt + vsize > t.size || (size_t) t.pos + osize > t.size)
                return -EINVAL;
        uint16_t off[OPT_MAX] = { 0 };
        unsigned n_fields = vsize >= 4 ? (unsigned) (vsize - 4) / 2 : 0;
        if (n_fields > OPT_MAX)
                return -ENOTSUP;
        for (unsigned id = 0; id < n_fields; id++)
                memcpy(&off[id], t.buf + vt + 4 + 2 * id, 2);
        size_t n = 0;
        for (unsigned id = 0; id < n_fields; id++) {
                if (!off[id])
                        continue;
                tfb_option_t *f = &o[n++];
                *f = (tfb_option_t) { .id = (uint16_t) id };
                if ((int) id == vec_id) {
                        fbt_vec_t v = fbt_vector(t, id, 4);
                        void *copy = malloc(v.n ? 4 * (size_t) v.n : 1);
                        if (!copy)
                                return -ENOMEM;
                        if (v.n)
                                memcpy(copy, v.data, 4 * (size_t) v.n);
                        vecs[id] = copy;
                        f->n = v.n;
                        if (vec_f32)
                                f->kind = TFB_VEC_F32, f->fvec = copy;
                        else
                                f->kind = TFB_VEC_I32, f->vec = copy;
                        continue;
                }
                unsigned end = osize;
                for (unsigned k = 0; k < n_fields; k++)
                        if (off[k] > off[id] && off[k] < end)
                                end = off[k];
                size_t abs = (size_t) t.pos + off[id], s = 8;
                while (s > 1 && (s > end - off[id] || abs % s != 0))
                        s /= 2;
                uint64_t v = 0;
                memcpy(&v, t.buf + abs, s);
                f->kind = s == 8 ? TFB_I64 : s == 4 ? TFB_U32 : s == 2 ? TFB_U16 : TFB_U8;
                f->i = (int64_t) v;
        }
        *ret_n = n;
        return 0;
}

/* Where the value of each tensor of subgraph 0 comes from in our run. */
typedef struct source {
        const val_t *exposed;    /* op outputs and model outputs, by exposed index */
        const int32_t *slot;     /* tensor -> exposed index, or -1 */
        void *const *inputs;     /* the model's inputs */
        const size_t *in_sizes;
} source_t;

typedef struct single {
        tfb_t *b;
        int32_t ids[64];         /* model tensor -> builder tensor, for the op's tensors */
        int32_t from[64];
        int n_ids;
        dt_case_t c;
} single_t;

/* The builder tensor for model tensor ti (added once). Non-constant,
 * non-variable tensors become graph inputs of the case, with our value. */
static int32_t single_tensor(single_t *s, const rt_model_subgraph_t *sg, const source_t *src, int32_t ti,
                             bool is_output, char *why, size_t why_size) {
        for (int i = 0; i < s->n_ids; i++)
                if (s->from[i] == ti)
                        return s->ids[i];
        if (s->n_ids >= 64) {
                snprintf(why, why_size, "too many tensors");
                return -ENOTSUP;
        }
        const rt_model_tensor_t *t = &sg->tensors[ti];
        tfb_tensor_t d = {
                .type = t->type, .rank = t->rank, .shape = t->shape, .name = t->name,
                .n_quant = t->quant.n, .scale = t->quant.scale, .zero_point = t->quant.zero_point,
                .quantized_dimension = t->quant.axis, .is_variable = t->is_variable, .has_rank = t->has_rank,
                .shape_signature = t->has_shape_signature ? t->shape_signature : NULL,
        };
        const val_t *v = NULL;
        int32_t model_in = -1;
        if (!t->data && !t->is_variable && !is_output) {
                for (int32_t k = 0; k < sg->n_inputs; k++)
                        if (sg->inputs[k] == ti)
                                model_in = k;
                if (model_in < 0) {
                        if (src->slot[ti] < 0) {
                                snprintf(why, why_size, "tensor %d has no value in our run", ti);
                                return -ENOTSUP;
                        }
                        v = &src->exposed[src->slot[ti]];
                        d.rank = v->rank, d.shape = v->dims;
                }
        } else if (is_output && src->slot[ti] >= 0) {
                v = &src->exposed[src->slot[ti]];
                d.rank = v->rank, d.shape = v->dims;
        }
        if (t->data) {
                d.sparsity = t->sparsity;
                int32_t buf = tfb_buffer_add(s->b, t->data, t->data_bytes);
                if (buf < 0)
                        return buf;
                d.buffer = (uint32_t) buf;
        }
        int32_t id = tfb_tensor_add(s->b, &d);
        if (id < 0)
                return id;
        s->from[s->n_ids] = ti, s->ids[s->n_ids++] = id;
        if (!t->data && !t->is_variable && !is_output) {
                dt_case_t *c = &s->c;
                if (c->n_in >= DT_MAX_IO) {
                        snprintf(why, why_size, "more than %d inputs", DT_MAX_IO);
                        return -ENOTSUP;
                }
                dt_io_t *io = &c->in[c->n_in++];
                io->tensor = id;
                io->type = t->type;
                io->rank = d.rank;
                for (int32_t k = 0; k < d.rank && k < 6; k++)
                        io->shape[k] = d.shape[k];
                io->scale = t->quant.n == 1 ? t->quant.scale[0] : 0;
                io->zero_point = t->quant.n == 1 ? (int32_t) t->quant.zero_point[0] : 0;
                size_t bytes = model_in >= 0 ? src->in_sizes[model_in] : v->bytes;
                io->data = malloc(bytes ? bytes : 1);
                if (!io->data)
                        return -ENOMEM;
                memcpy(io->data, model_in >= 0 ? src->inputs[model_in] : v->data, bytes);
                io->bytes = bytes;
        }
        return id;
}

static void single_done(single_t *s) {
        for (int i = 0; i < s->c.n_in; i++)
                free(s->c.in[i].data);
        tfb_free(s->b);
}

static bool is_control_flow(int32_t code) {
        return code == RT_BUILTIN_WHILE || code == RT_BUILTIN_IF || code == RT_BUILTIN_CALL_ONCE ||
               code == RT_BUILTIN_CALL;
}

/* Build op k alone; 0, -ENOTSUP (why says why) or -ENOMEM. The model and
 * its case (inputs: our values) in *model / s->c. */
static int single_build(const rt_model_subgraph_t *sg, const rt_model_op_t *op, const source_t *src, single_t *s,
                        uint8_t **model, size_t *size, char *why, size_t why_size) {
        *s = (single_t) { .b = tfb_new() };
        if (!s->b)
                return -ENOMEM;
        if (is_control_flow(op->builtin_code)) {
                snprintf(why, why_size, "control flow (calls other subgraphs)");
                return -ENOTSUP;
        }
        if (op->n_inputs > 64 || op->n_outputs > DT_MAX_IO || op->n_intermediates > 16) {
                snprintf(why, why_size, "%d inputs, %d outputs", op->n_inputs, op->n_outputs);
                return -ENOTSUP;
        }
        int32_t ins[64], outs[DT_MAX_IO], inter[16];
        for (int32_t i = 0; i < op->n_inputs; i++) {
                int32_t ti = op->inputs[i];
                ins[i] = ti < 0 || ti >= sg->n_tensors ? -1 : single_tensor(s, sg, src, ti, false, why, why_size);
                if (ti >= 0 && ins[i] < 0)
                        return ins[i] == -ENOMEM ? -ENOMEM : -ENOTSUP;
        }
        for (int32_t i = 0; i < op->n_outputs; i++) {
                int32_t ti = op->outputs[i];
                if (ti < 0 || ti >= sg->n_tensors || src->slot[ti] < 0) {
                        snprintf(why, why_size, "output %d was not exposed", i);
                        return -ENOTSUP;
                }
                if ((outs[i] = single_tensor(s, sg, src, ti, true, why, why_size)) < 0)
                        return outs[i] == -ENOMEM ? -ENOMEM : -ENOTSUP;
                s->c.out[i].tensor = outs[i];
                s->c.out[i].type = sg->tensors[ti].type;
        }
        s->c.n_out = op->n_outputs;
        for (int32_t i = 0; i < op->n_intermediates; i++) {
                int32_t ti = op->intermediates[i];
                if (ti < 0 || ti >= sg->n_tensors) {
                        inter[i] = -1;
                        continue;
                }
                const rt_model_tensor_t *t = &sg->tensors[ti];
                tfb_tensor_t d = { .type = t->type, .rank = t->rank, .shape = t->shape, .name = t->name,
                                   .n_quant = t->quant.n, .scale = t->quant.scale,
                                   .zero_point = t->quant.zero_point, .quantized_dimension = t->quant.axis };
                if ((inter[i] = tfb_tensor_add(s->b, &d)) < 0)
                        return -ENOMEM;
        }
        tfb_option_t opts[OPT_MAX];
        void *vecs[OPT_MAX] = { 0 };
        size_t n_opts = 0;
        int r = options_copy(op, opts, &n_opts, vecs);
        if (r == -ENOTSUP || r == -EINVAL)
                snprintf(why, why_size, "options %s not copied", rt_options_type_name(op->builtin_options_type));
        int32_t code = op->custom_code ? tfb_opcode_custom(s->b, op->custom_code, op->version)
                                       : tfb_opcode_builtin(s->b, op->builtin_code, op->version);
        if (r == 0)
                r = code < 0 ? code
                             : tfb_op_add(s->b, &(tfb_op_t) {
                                       .opcode = code, .inputs = ins, .n_inputs = op->n_inputs, .outputs = outs,
                                       .n_outputs = op->n_outputs, .intermediates = inter,
                                       .n_intermediates = op->n_intermediates,
                                       .options_type = op->builtin_options_type, .options = opts,
                                       .n_options = n_opts, .custom_options = op->custom_options,
                                       .custom_options_size = op->custom_options_size });
        for (int i = 0; i < OPT_MAX; i++)
                free(vecs[i]);
        if (r < 0)
                return r == -EINVAL ? -ENOTSUP : r;
        int32_t gin[DT_MAX_IO];
        for (int i = 0; i < s->c.n_in; i++)
                gin[i] = s->c.in[i].tensor;
        if (tfb_io(s->b, gin, s->c.n_in, outs, op->n_outputs) < 0)
                return -ENOMEM;
        *model = tfb_finish(s->b, size);
        return *model ? 0 : -ENOMEM;
}

/* "N of M differ, max D" for the --trace line (not the verdict: that is
 * dt_output_check's). */
static void diff_summary(rt_type_t t, const void *a, const void *b, size_t bytes, char *out, size_t out_size) {
        size_t es = rt_type_size(t) ? rt_type_size(t) : 1, n = bytes / es, differ = 0;
        double max = 0;
        for (size_t i = 0; i < n; i++) {
                const uint8_t *x = (const uint8_t *) a + i * es, *y = (const uint8_t *) b + i * es;
                if (memcmp(x, y, es) == 0)
                        continue;
                differ++;
                double d = 0;
                if (t == RT_TYPE_FLOAT32) {
                        float fx, fy;
                        memcpy(&fx, x, 4), memcpy(&fy, y, 4);
                        d = (double) fx - (double) fy;
                } else if (t == RT_TYPE_INT8)
                        d = *(const int8_t *) x - *(const int8_t *) y;
                else if (t == RT_TYPE_UINT8)
                        d = *x - *y;
                else if (t == RT_TYPE_INT16) {
                        int16_t ix, iy;
                        memcpy(&ix, x, 2), memcpy(&iy, y, 2);
                        d = ix - iy;
                }
                if (d < 0)
                        d = -d;
                if (d > max || d != d)
                        max = d;
        }
        snprintf(out, out_size, "%zu of %zu differ, max %g", differ, n, max);
}

static void outs_free(void **o, int n) {
        for (int i = 0; i < n; i++)
                free(o[i]), o[i] = NULL;
}

/* Op k: our outputs (from the exposed run) against TFLite running the op
 * alone on the same inputs, by difftest's XNNPACK rule. */
static void op_check(dt_native_t *nat, const rt_model_subgraph_t *sg, int32_t k, const source_t *src,
                     const dt_insitu_perturb_t *perturb, dt_insitu_op_t *res) {
        const rt_model_op_t *op = &sg->ops[k];
        single_t s;
        uint8_t *model = NULL;
        size_t size = 0;
        res->oracle = "";
        int r = single_build(sg, op, src, &s, &model, &size, res->msg, sizeof(res->msg));
        if (r < 0) {
                res->verdict = DT_INSITU_UNCHECKED;
                if (r == -ENOMEM)
                        snprintf(res->msg, sizeof(res->msg), "out of memory");
                goto out;
        }
        s.c.accum = op_accum(sg, op);
        if (op->custom_code && strcmp(op->custom_code, "TFLite_Detection_PostProcess") == 0 && s.c.n_out == 4)
                for (int o = 0; o < 3 && o < s.c.n_out; o++)
                        s.c.counted_by[o] = 4, s.c.counted_row[o] = o == 0 ? 4 : 1;
        void *want[DT_MAX_IO] = { 0 };
        size_t want_sizes[DT_MAX_IO] = { 0 };
        char err[1024] = "";
        int driver = 1;
        dt_runner_t tfl = { .native = nat };
        r = dt_isolated_run(&tfl, model, size, &s.c, want, want_sizes, err, sizeof(err));
        res->oracle = "TFLite";
        if (r < 0 && op->custom_code) {
                /* A custom op TFLite does not run alone: our reference kernel,
                 * bit-exact (difftest holds it to TFLite). */
                dt_runner_t ref = { .native = NULL, .xnnpack = false };
                outs_free(want, DT_MAX_IO);
                r = dt_isolated_run(&ref, model, size, &s.c, want, want_sizes, err, sizeof(err));
                res->oracle = "reference kernel";
                driver = 0;
        }
        if (r < 0) {
                res->verdict = DT_INSITU_UNCHECKED;
                snprintf(res->msg, sizeof(res->msg), "%s refused the op alone: %.200s", res->oracle, err);
                outs_free(want, DT_MAX_IO);
                goto out;
        }
        res->verdict = DT_INSITU_PASS;
        snprintf(res->msg, sizeof(res->msg), "within the rule");
        for (int o = 0; o < s.c.n_out; o++) {
                const val_t *v = &src->exposed[src->slot[op->outputs[o]]];
                const void *got = v->data;
                void *copy = NULL;
                rt_type_t t = s.c.out[o].type;
                if (perturb && perturb->op == k && o == 0 && v->bytes && want_sizes[0] == v->bytes &&
                    (dt_is_quant_type(t) || t == RT_TYPE_INT32)) {
                        /* Element 0 := TFLite's value +- steps. */
                        int64_t w = t == RT_TYPE_INT8    ? *(const int8_t *) want[0]
                                    : t == RT_TYPE_UINT8 ? *(const uint8_t *) want[0]
                                    : t == RT_TYPE_INT16 ? *(const int16_t *) want[0]
                                                         : *(const int32_t *) want[0];
                        int64_t p = w + perturb->steps;
                        if (p > dt_type_max(t))
                                p = w - perturb->steps;
                        if ((copy = malloc(v->bytes))) {
                                memcpy(copy, v->data, v->bytes);
                                if (t == RT_TYPE_INT8 || t == RT_TYPE_UINT8)
                                        *(uint8_t *) copy = (uint8_t) p;
                                else if (t == RT_TYPE_INT16) {
                                        int16_t x = (int16_t) p;
                                        memcpy(copy, &x, 2);
                                } else {
                                        int32_t x = (int32_t) p;
                                        memcpy(copy, &x, 4);
                                }
                                got = copy;
                        }
                }
                char msg[512] = "";
                bool ok = dt_output_check(&s.c, o, driver, got, v->bytes, want[o], want_sizes[o],
                                          dt_output_defined(&s.c, o, want, want_sizes), msg, sizeof(msg));
                free(copy);
                if (!ok) {
                        res->verdict = DT_INSITU_FAIL;
                        snprintf(res->msg, sizeof(res->msg), "%s", msg);
                        break;
                }
        }
        if (res->verdict == DT_INSITU_PASS && driver == 0)
                snprintf(res->msg, sizeof(res->msg), "bit-exact");
        else if (res->verdict == DT_INSITU_PASS && s.c.n_out > 0) {
                const val_t *v = &src->exposed[src->slot[op->outputs[0]]];
                char d[128];
                diff_summary(s.c.out[0].type, v->data, want[0], v->bytes < want_sizes[0] ? v->bytes : want_sizes[0],
                             d, sizeof(d));
                snprintf(res->msg, sizeof(res->msg), "within the rule (output 0: %s)", d);
        }
        outs_free(want, s.c.n_out);
out:
        free(model);
        single_done(&s);
}

int dt_insitu_check(dt_native_t *nat, const uint8_t *model, size_t size, void *const *inputs,
                    const size_t *in_sizes, int n_in, const dt_insitu_perturb_t *perturb, dt_insitu_t *ret) {
        *ret = (dt_insitu_t) { .first_failed = -1 };
        rt_model_t *m = NULL;
        int r = rt_model_load_buffer(model, size, false, &m, ret->msg, sizeof(ret->msg));
        if (r < 0)
                return r;
        const rt_model_subgraph_t *sg = &m->subgraphs[0];
        int32_t *list = calloc((size_t) sg->n_tensors + (size_t) sg->n_outputs + 1, sizeof(int32_t));
        int32_t *slot = calloc((size_t) sg->n_tensors + 1, sizeof(int32_t));
        ret->ops = calloc((size_t) sg->n_ops + 1, sizeof(dt_insitu_op_t));
        val_t *plain = calloc((size_t) sg->n_outputs + 1, sizeof(val_t)), *exposed = NULL;
        uint8_t *ex = NULL;
        size_t ex_size = 0;
        int32_t n_list = 0;
        if (!list || !slot || !ret->ops || !plain) {
                r = -ENOMEM;
                goto out;
        }
        ret->n_ops = sg->n_ops;
        /* The model's outputs first (as they are), then every op output. */
        for (int32_t t = 0; t < sg->n_tensors; t++)
                slot[t] = -1;
        for (int32_t i = 0; i < sg->n_outputs; i++) {
                list[n_list++] = sg->outputs[i];
                if (sg->outputs[i] >= 0 && sg->outputs[i] < sg->n_tensors && slot[sg->outputs[i]] < 0)
                        slot[sg->outputs[i]] = i;
        }
        for (int32_t k = 0; k < sg->n_ops; k++)
                for (int32_t i = 0; i < sg->ops[k].n_outputs; i++) {
                        int32_t t = sg->ops[k].outputs[i];
                        if (t < 0 || t >= sg->n_tensors || slot[t] >= 0 || sg->tensors[t].data)
                                continue;
                        slot[t] = n_list;
                        list[n_list++] = t;
                }
        char err[512] = "";
        r = xnn_run(model, size, inputs, in_sizes, n_in, sg->n_outputs, plain, err, sizeof(err));
        if (r < 0) {
                snprintf(ret->msg, sizeof(ret->msg), "our XNNPACK driver: %s", err);
                goto out;
        }
        ex = expose(model, size, list, n_list, &ex_size);
        exposed = calloc((size_t) n_list + 1, sizeof(val_t));
        if (!ex || !exposed) {
                r = -ENOMEM;
                goto out;
        }
        r = xnn_run(ex, ex_size, inputs, in_sizes, n_in, n_list, exposed, err, sizeof(err));
        if (r < 0) {
                snprintf(ret->msg, sizeof(ret->msg), "our XNNPACK driver, every op's output exposed: %s", err);
                goto out;
        }
        for (int32_t i = 0; i < sg->n_outputs && !ret->exposure_changed; i++)
                if (plain[i].bytes != exposed[i].bytes || memcmp(plain[i].data, exposed[i].data, plain[i].bytes)) {
                        ret->exposure_changed = true;
                        snprintf(ret->msg, sizeof(ret->msg),
                                 "exposing every op's output changed model output %d on our XNNPACK driver", i);
                }
        source_t src = { .exposed = exposed, .slot = slot, .inputs = inputs, .in_sizes = in_sizes };
        for (int32_t k = 0; k < sg->n_ops; k++) {
                op_check(nat, sg, k, &src, perturb, &ret->ops[k]);
                if (ret->ops[k].verdict == DT_INSITU_PASS)
                        continue;
                if (ret->failed++ == 0) {
                        ret->first_failed = k;
                        if (!ret->exposure_changed)
                                snprintf(ret->msg, sizeof(ret->msg), "op %d %s %s: %s", k,
                                         rt_model_op_name(&sg->ops[k]),
                                         ret->ops[k].verdict == DT_INSITU_FAIL ? "outside the rule" : "not checked",
                                         ret->ops[k].msg);
                }
        }
        r = 0;
out:
        vals_free(plain, sg->n_outputs);
        vals_free(exposed, n_list);
        free(ex);
        free(list);
        free(slot);
        rt_model_free(m);
        return r;
}

void dt_insitu_done(dt_insitu_t *r) {
        free(r->ops);
        r->ops = NULL;
}
