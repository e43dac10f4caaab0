/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Model-level differential fuzzing against native TensorFlow Lite 2.9.
 *
 * difftest compares single ops and short chains; this compares whole real
 * models, where partitions meet, arenas are reused, ops run in place,
 * activations are fused across ops and XNNPACK groups fall back to the
 * reference kernels. Every variant starts from a runnable model of
 * ../shared/models and changes it in place, so the file stays a valid
 * .tflite of the same layout:
 *
 *   weights  the constant filters and biases of CONV_2D, DEPTHWISE_CONV_2D,
 *            FULLY_CONNECTED and TRANSPOSE_CONV, and the float constants of
 *            ADD/SUB/MUL, drawn anew around their old values (quantized
 *            values stay in their type's range, per-channel int8 filters
 *            stay symmetric);
 *   quant    new scales and zero points for some quantized activation
 *            tensors (int16 keeps zero point 0); a conv or fully-connected
 *            bias scale follows input scale x filter scale, as TFLite
 *            requires; outputs of ops with a fixed output quantization
 *            (SOFTMAX, LOGISTIC, TANH, ...) are left alone;
 *   edges    inputs mixing the ends of their range and zeros into uniform
 *            draws (float inputs span the golden input's range, quantized
 *            ones their whole type; ids and strings keep the golden input).
 *
 * Each variant runs on native TensorFlow Lite (builtin kernels, 1 thread, in
 * a child process so that its crashes are counted, not suffered) and on our
 * reference kernels and XNNPACK driver, and is compared by the goldens' rule
 * (tests/common/golden.h): the model's own tolerances, with float atol
 * scaled to the variant's output magnitude. Variants TensorFlow Lite refuses
 * are counted, not compared. An XNNPACK output that misses it is compared
 * with TensorFlow Lite's own XNNPACK delegate (the second oracle), then, if
 * that fails too, by the in-situ check (insitu.h): every op held to
 * difftest's rule on the inputs our run gave it; it passes only when every
 * op does (counted as "compounded, every op in rule").
 *
 *   modelfuzz [--lib PATH] [--seed S] [--variants N] [--seconds S]
 *             [--models A,B,...] [--drivers ref,xnnpack] [--save DIR]
 *             [--model NAME --variant SEED [--trace | --insitu-selftest]]
 *             [--insitu-perturb OP:STEPS] [--quiet]
 *
 * --insitu-perturb moves op OP's first output element STEPS steps from
 * TensorFlow Lite's value before the in-situ comparison, and
 * --insitu-selftest checks that the in-situ check fails beyond the rule and
 * passes at it (meson test modelfuzz-insitu): tests of the check itself.
 *
 * A mismatch prints its reproducer ("modelfuzz --model M --variant 0x..."),
 * and with --save the variant's .tflite and inputs are kept; --trace runs
 * that variant op by op (each op's output made the model's output) and says
 * where it first departs from TFLite (--drivers ref or xnnpack; on xnnpack
 * with each op's in-situ verdict). Like difftest,
 * ACCELD_DIFFTEST_SEED is added to --seed. Exit: 0 no mismatch, 1
 * mismatches, 2 usage, 77 native TFLite or ../shared absent.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cleanup.h"
#include "clock.h"
#include "dt.h"
#include "fbt.h"
#include "file-read.h"
#include "golden.h"
#include "insitu.h"
#include "model-internal.h"
#include "model.h"
#include "native.h"
#include "rt.h"
#include "settings.h"

#define MF_MAX_IO 8

typedef struct mf_model {
        const golden_model_t *g;
        uint8_t *bytes;          /* the file, 16-byte aligned */
        size_t size;
        void *in[MF_MAX_IO];     /* the golden inputs */
        size_t in_size[MF_MAX_IO];
        size_t out_size[MF_MAX_IO];  /* room for each output: the golden's size + 64 */
        double out_max[MF_MAX_IO];   /* max |golden| of float outputs */
} mf_model_t;

typedef struct mf_variant {
        uint64_t seed;
        uint8_t *bytes;          /* the mutated copy */
        void *in[MF_MAX_IO];
        char desc[256];
} mf_variant_t;

static double now_s(void) {
        return (double) acc_now_ns() / 1e9;
}

/* ---- in-place mutation ---- */

static bool fixed_output_quant(int32_t code) {
        switch (code) {
        case RT_BUILTIN_SOFTMAX:
        case RT_BUILTIN_LOG_SOFTMAX:
        case RT_BUILTIN_LOGISTIC:
        case RT_BUILTIN_TANH:
        case RT_BUILTIN_L2_NORMALIZATION:
        case RT_OP_CUSTOM:
                return true;
        default:
                return false;
        }
}

/* Offset in the file of a quantization vector of tensor t (field id), or
 * 0 when it has none. *ret_n: its element count. */
static size_t quant_vec_offset(const uint8_t *buf, size_t size, int32_t t, unsigned id, size_t elem,
                               uint32_t *ret_n) {
        fbt_table_t root = fbt_root(buf, size);
        fbt_vec_t sgs = fbt_vector(root, RT__MODEL_SUBGRAPHS, 4);
        if (sgs.n == 0)
                return 0;
        fbt_table_t sg = fbt_vector_table(root, sgs, 0);
        fbt_vec_t ts = fbt_vector(sg, RT__SUBGRAPH_TENSORS, 4);
        if ((uint32_t) t >= ts.n)
                return 0;
        fbt_table_t q = fbt_table(fbt_vector_table(sg, ts, (uint32_t) t), RT__TENSOR_QUANTIZATION);
        if (!fbt_present(q))
                return 0;
        fbt_vec_t v = fbt_vector(q, id, elem);
        *ret_n = v.n;
        return v.n ? (size_t) (v.data - buf) : 0;
}

static float get_f32(const uint8_t *p) {
        float f;
        memcpy(&f, p, 4);
        return f;
}

static void put_f32(uint8_t *p, float f) {
        memcpy(p, &f, 4);
}

/* New constant values around the old ones, in place in `out` (the bytes
 * at the same offset as `t->data` in the original). */
static void mutate_const(dt_rng_t *r, const rt_model_tensor_t *t, uint8_t *out) {
        size_t n = t->data_bytes / (rt_type_size(t->type) ? rt_type_size(t->type) : 1);
        for (size_t i = 0; i < n; i++)
                switch (t->type) {
                case RT_TYPE_FLOAT32: {
                        float v = get_f32(out + 4 * i);
                        v *= (float) (0.5 + dt_unit(r)) * (dt_chance(r, 0.1) ? -1.0f : 1.0f);
                        put_f32(out + 4 * i, v);
                        break;
                }
                case RT_TYPE_INT8: {
                        /* Symmetric per-channel filters stay in [-127, 127]. */
                        int v = (int8_t) out[i] + (int) dt_int(r, -8, 8);
                        out[i] = (uint8_t) (int8_t) (v < -127 ? -127 : v > 127 ? 127 : v);
                        break;
                }
                case RT_TYPE_UINT8: {
                        int v = out[i] + (int) dt_int(r, -8, 8);
                        out[i] = (uint8_t) (v < 0 ? 0 : v > 255 ? 255 : v);
                        break;
                }
                case RT_TYPE_INT32: {
                        int32_t v;
                        memcpy(&v, out + 4 * i, 4);
                        double d = (double) v * (0.5 + dt_unit(r)) + (double) dt_int(r, -100, 100);
                        v = (int32_t) fmax(-1e9, fmin(1e9, d));
                        memcpy(out + 4 * i, &v, 4);
                        break;
                }
                default:
                        return;
                }
}

static bool is_weight_input(int32_t code, int32_t k, rt_type_t type) {
        switch (code) {
        case RT_BUILTIN_CONV_2D:
        case RT_BUILTIN_DEPTHWISE_CONV_2D:
        case RT_BUILTIN_FULLY_CONNECTED:
                return k == 1 || k == 2;
        case RT_BUILTIN_TRANSPOSE_CONV:
                return k == 1 || k == 3;
        case RT_BUILTIN_ADD:
        case RT_BUILTIN_SUB:
        case RT_BUILTIN_MUL:
                return type == RT_TYPE_FLOAT32;
        default:
                return false;
        }
}

static void mutate_weights(dt_rng_t *r, const rt_model_t *m, const mf_model_t *src, uint8_t *out, int *count) {
        const rt_model_subgraph_t *sg = &m->subgraphs[0];
        for (int32_t o = 0; o < sg->n_ops; o++) {
                const rt_model_op_t *op = &sg->ops[o];
                for (int32_t k = 0; k < op->n_inputs; k++) {
                        int32_t ti = op->inputs[k];
                        if (ti < 0 || ti >= sg->n_tensors)
                                continue;
                        const rt_model_tensor_t *t = &sg->tensors[ti];
                        const uint8_t *d = t->data;
                        if (!d || t->sparsity || !is_weight_input(op->builtin_code, k, t->type) ||
                            d < src->bytes || d + t->data_bytes > src->bytes + src->size)
                                continue;
                        mutate_const(r, t, out + (d - src->bytes));
                        (*count)++;
                }
        }
}

/* New scales and zero points for some quantized activations, then the
 * biases that depend on them. */
static void mutate_quant(dt_rng_t *r, const rt_model_t *m, const mf_model_t *src, uint8_t *out, int *count) {
        const rt_model_subgraph_t *sg = &m->subgraphs[0];
        bool *fixed = calloc((size_t) sg->n_tensors + 1, 1);
        if (!fixed)
                return;
        for (int32_t o = 0; o < sg->n_ops; o++)
                if (fixed_output_quant(sg->ops[o].builtin_code))
                        for (int32_t k = 0; k < sg->ops[o].n_outputs; k++)
                                if (sg->ops[o].outputs[k] >= 0 && sg->ops[o].outputs[k] < sg->n_tensors)
                                        fixed[sg->ops[o].outputs[k]] = true;
        for (int32_t ti = 0; ti < sg->n_tensors; ti++) {
                const rt_model_tensor_t *t = &sg->tensors[ti];
                if (t->data || t->quant.n != 1 || fixed[ti] || !dt_is_quant_type(t->type) || !dt_chance(r, 0.3))
                        continue;
                uint32_t n = 0, nz = 0;
                size_t so = quant_vec_offset(src->bytes, src->size, ti, RT__QUANT_SCALE, 4, &n);
                size_t zo = quant_vec_offset(src->bytes, src->size, ti, RT__QUANT_ZERO_POINT, 8, &nz);
                if (!so || n != 1)
                        continue;
                put_f32(out + so, get_f32(out + so) * (float) (0.7 + 0.7 * dt_unit(r)));
                if (zo && nz == 1 && t->type != RT_TYPE_INT16) {
                        int64_t z;
                        memcpy(&z, out + zo, 8);
                        z += dt_int(r, -20, 20);
                        int64_t lo = dt_type_min(t->type), hi = dt_type_max(t->type);
                        z = z < lo ? lo : z > hi ? hi : z;
                        memcpy(out + zo, &z, 8);
                }
                (*count)++;
        }
        free(fixed);
        /* bias scale = input scale x filter scale (per channel). */
        for (int32_t o = 0; o < sg->n_ops; o++) {
                const rt_model_op_t *op = &sg->ops[o];
                int32_t code = op->builtin_code;
                if ((code != RT_BUILTIN_CONV_2D && code != RT_BUILTIN_DEPTHWISE_CONV_2D &&
                     code != RT_BUILTIN_FULLY_CONNECTED) || op->n_inputs < 3 || op->inputs[2] < 0)
                        continue;
                uint32_t ni = 0, nf = 0, nb = 0;
                size_t io = quant_vec_offset(src->bytes, src->size, op->inputs[0], RT__QUANT_SCALE, 4, &ni);
                size_t fo = quant_vec_offset(src->bytes, src->size, op->inputs[1], RT__QUANT_SCALE, 4, &nf);
                size_t bo = quant_vec_offset(src->bytes, src->size, op->inputs[2], RT__QUANT_SCALE, 4, &nb);
                if (!io || !fo || !bo || ni != 1 || (nb != nf && nf != 1))
                        continue;
                float in_scale = get_f32(out + io);
                for (uint32_t c = 0; c < nb; c++)
                        put_f32(out + bo + 4 * c, in_scale * get_f32(out + fo + 4 * (nf == 1 ? 0 : c)));
        }
}

/* Fresh inputs: uniform over the range, edges mixed in. */
static void draw_inputs(dt_rng_t *r, const mf_model_t *src, mf_variant_t *v, bool edges) {
        for (size_t i = 0; i < src->g->n_inputs && i < MF_MAX_IO; i++) {
                const golden_tensor_t *gt = &src->g->inputs[i];
                memcpy(v->in[i], src->in[i], src->in_size[i]);
                size_t es = rt_type_size(gt->type);
                if (gt->type != RT_TYPE_FLOAT32 && !dt_is_quant_type(gt->type))
                        continue;
                size_t n = src->in_size[i] / es;
                double lo = (double) dt_type_min(gt->type), hi = (double) dt_type_max(gt->type);
                if (gt->type == RT_TYPE_FLOAT32) {
                        const float *g = src->in[i];
                        lo = hi = n ? g[0] : 0;
                        for (size_t k = 1; k < n; k++)
                                lo = fmin(lo, g[k]), hi = fmax(hi, g[k]);
                }
                for (size_t k = 0; k < n; k++) {
                        double x = lo + (hi - lo) * dt_unit(r);
                        if (edges && dt_chance(r, 0.08))
                                x = DT_PICK(r, 0, 1, 2) == 0 ? lo : dt_chance(r, 0.5) ? hi : 0;
                        uint8_t *p = (uint8_t *) v->in[i] + k * es;
                        switch (gt->type) {
                        case RT_TYPE_FLOAT32:
                                put_f32(p, (float) x);
                                break;
                        case RT_TYPE_INT8:
                                *p = (uint8_t) (int8_t) lrint(fmax(lo, fmin(hi, x)));
                                break;
                        case RT_TYPE_UINT8:
                                *p = (uint8_t) lrint(fmax(lo, fmin(hi, x)));
                                break;
                        default: {
                                int16_t s = (int16_t) lrint(fmax(lo, fmin(hi, x)));
                                memcpy(p, &s, 2);
                                break;
                        }
                        }
                }
        }
}

/* Build variant `seed` of model src. 0 or -errno. */
static int variant_make(const mf_model_t *src, uint64_t seed, mf_variant_t *v) {
        *v = (mf_variant_t) { .seed = seed };
        v->bytes = aligned_alloc(16, (src->size + 15) / 16 * 16);
        if (!v->bytes)
                return -ENOMEM;
        memcpy(v->bytes, src->bytes, src->size);
        for (size_t i = 0; i < src->g->n_inputs && i < MF_MAX_IO; i++)
                if (!(v->in[i] = malloc(src->in_size[i] ? src->in_size[i] : 1)))
                        return -ENOMEM;
        rt_model_t *m = NULL;
        char err[256];
        int r = rt_model_load_buffer(src->bytes, src->size, false, &m, err, sizeof(err));
        if (r < 0)
                return r;
        dt_rng_t rng = { seed };
        bool w = dt_chance(&rng, 0.6), q = dt_chance(&rng, 0.5), e = dt_chance(&rng, 0.5);
        int nw = 0, nq = 0;
        if (w)
                mutate_weights(&rng, m, src, v->bytes, &nw);
        if (q)
                mutate_quant(&rng, m, src, v->bytes, &nq);
        draw_inputs(&rng, src, v, e);
        snprintf(v->desc, sizeof(v->desc), "weights=%d quant=%d edges=%d", nw, nq, (int) e);
        rt_model_free(m);
        return 0;
}

static void variant_done(mf_variant_t *v) {
        free(v->bytes);
        for (int i = 0; i < MF_MAX_IO; i++)
                free(v->in[i]);
}

/* ---- runs ---- */

/* Native TFLite in a child: outputs land in a shared mapping `shm` laid
 * out as the golden outputs. 0, -EINVAL (refused), -EFAULT (crashed). */
static int native_run(dt_native_t *nat, const mf_model_t *src, const mf_variant_t *v, uint8_t *shm,
                      size_t *out_sizes, char *err, size_t err_size) {
        size_t n_out = src->g->n_outputs;
        int32_t *status = (int32_t *) shm;
        size_t *sizes = (size_t *) (shm + 8);
        uint8_t *data = shm + 8 + sizeof(size_t) * MF_MAX_IO;
        fflush(stdout);
        pid_t pid = fork();
        if (pid < 0)
                return -errno;
        if (pid == 0) {
                void *outs[MF_MAX_IO] = { 0 };
                size_t os[MF_MAX_IO] = { 0 };
                char e[256] = "";
                int r = dt_native_run(nat, v->bytes, src->size, (void *const *) v->in, src->in_size,
                                      (int) src->g->n_inputs, outs, os, MF_MAX_IO, e, sizeof(e));
                size_t off = 0;
                for (size_t i = 0; r >= 0 && i < n_out; i++) {
                        size_t keep = os[i] < src->out_size[i] * 2 ? os[i] : src->out_size[i] * 2;
                        memcpy(data + off, outs[i], keep);
                        sizes[i] = keep;
                        off += src->out_size[i] * 2;
                }
                *status = r < 0 ? r : r == (int) n_out ? 0 : -EINVAL;
                _exit(0);
        }
        int ws = 0;
        while (waitpid(pid, &ws, 0) < 0 && errno == EINTR)
                ;
        if (WIFSIGNALED(ws)) {
                snprintf(err, err_size, "TFLite crashed with signal %d", WTERMSIG(ws));
                return -EFAULT;
        }
        if (*status < 0) {
                snprintf(err, err_size, "TFLite refused the variant");
                return -EINVAL;
        }
        for (size_t i = 0; i < n_out; i++)
                out_sizes[i] = sizes[i];
        return 0;
}

static const uint8_t *native_out(const mf_model_t *src, const uint8_t *shm, size_t i) {
        const uint8_t *data = shm + 8 + sizeof(size_t) * MF_MAX_IO;
        for (size_t k = 0; k < i; k++)
                data += src->out_size[k] * 2;
        return data;
}

/* Ours, in this process (sanitizers see it). Outputs copied into outs. */
static int ours_run(const mf_model_t *src, const mf_variant_t *v, bool xnnpack, void **outs, size_t *out_sizes,
                    char *err, size_t err_size) {
        rt_model_t *m = NULL;
        rt_interp_t *it = NULL;
        int r = rt_model_load_buffer(v->bytes, src->size, false, &m, err, err_size);
        if (r < 0)
                return r;
        rt_interp_options_t *o = rt_interp_options_new();
        rt_settings_t s;
        rt_settings_init(&s);
        if (xnnpack) {
                s.delegate = RT_DELEGATE_XNNPACK;
                snprintf(s.delegate_name, sizeof(s.delegate_name), "XNNPACK");
                s.xnnpack_num_threads = 1;
        }
        rt_interp_options_set_num_threads(o, 1);
        r = rt_interp_options_set_settings(o, &s);
        if (r == 0)
                r = rt_interp_create(m, o, &it, err, err_size);
        rt_interp_options_free(o);
        rt_settings_done(&s);
        if (r == 0)
                r = rt_interp_allocate_tensors(it);
        for (size_t i = 0; r == 0 && i < src->g->n_inputs; i++)
                r = rt_interp_copy_in(it, (int32_t) i, v->in[i], src->in_size[i]);
        if (r == 0)
                r = rt_interp_invoke(it);
        if (r < 0 && it)
                snprintf(err, err_size, "%s", rt_interp_last_error(it));
        for (size_t i = 0; r == 0 && i < src->g->n_outputs; i++) {
                const rt_tensor_t *t = rt_interp_output_tensor(it, (int32_t) i);
                size_t bytes = !t || !t->data ? 0
                               : t->type == RT_TYPE_STRING ? t->bytes
                                                            : rt_tensor_count(t) * rt_type_size(t->type);
                outs[i] = malloc(bytes ? bytes : 1);
                if (!outs[i]) {
                        r = -ENOMEM;
                        break;
                }
                if (bytes)
                        memcpy(outs[i], t->data, bytes);
                out_sizes[i] = bytes;
        }
        rt_interp_free(it);
        rt_model_free(m);
        return r;
}

/* The golden rule, with a float output's atol scaled from the golden's
 * magnitude (gmax) to this variant's. */
static bool output_ok(const golden_tensor_t *gt, golden_tol_kind_t kind, double gmax, const void *a, size_t a_size,
                      const void *b, size_t b_size, char *msg, size_t msg_size) {
        golden_tensor_t g = *gt;
        golden_tol_t *tol = &g.tol[kind];
        if (!tol->present)
                return true;
        if (g.type == RT_TYPE_FLOAT32) {
                double mv = 0;
                const float *bf = b;
                for (size_t i = 0; i < b_size / 4; i++)
                        if (isfinite(bf[i]) && fabs(bf[i]) > mv)
                                mv = fabs(bf[i]);
                double floor = kind == GOLDEN_TOL_REFERENCE ? 1e-5 : 1e-4;
                tol->atol = fmax(tol->atol * (1 + mv) / (1 + gmax), floor * (1 + mv));
        }
        /* ignore_elements name places of the golden input, not of a variant's. */
        g.ignore = NULL, g.n_ignore = 0;
        golden_result_t res;
        if (golden_compare(&g, kind, a, a_size, b, b_size, &res) < 0)
                return true;
        if (!res.pass)
                snprintf(msg, msg_size, "%s", res.message);
        return res.pass;
}

/* ---- main loop ---- */

typedef struct mf_stats {
        uint64_t variants, refused, tflite_crashed, compared[2], mismatched[2], our_errors[2];
        uint64_t second_oracle;  /* XNNPACK variants that matched TFLite's XNNPACK delegate only */
        uint64_t in_situ;        /* XNNPACK variants passed by the in-situ check (every op in rule) */
} mf_stats_t;

/* --insitu-perturb OP:STEPS (tests of the in-situ check), or NULL. */
static const dt_insitu_perturb_t *mf_perturb;

static int model_open(const golden_model_t *g, mf_model_t *ret) {
        *ret = (mf_model_t) { .g = g };
        if (g->n_inputs > MF_MAX_IO || g->n_outputs > MF_MAX_IO)
                return -E2BIG;
        size_t size = 0;
        _cleanup_free_ void *bytes = NULL;
        int r = acc_file_read(g->path, &bytes, &size);
        if (r < 0)
                return r;
        ret->bytes = aligned_alloc(16, (size + 15) / 16 * 16);
        if (!ret->bytes)
                return -ENOMEM;
        memcpy(ret->bytes, bytes, size);
        ret->size = size;
        for (size_t i = 0; i < g->n_inputs; i++) {
                if ((r = acc_file_read(g->inputs[i].path, &ret->in[i], &ret->in_size[i])) < 0)
                        return r;
        }
        for (size_t i = 0; i < g->n_outputs; i++) {
                _cleanup_free_ void *d = NULL;
                size_t n = 0;
                if ((r = acc_file_read(g->outputs[i].path, &d, &n)) < 0)
                        return r;
                ret->out_size[i] = n + 64;
                for (size_t k = 0; g->outputs[i].type == RT_TYPE_FLOAT32 && k < n / 4; k++) {
                        float f = ((const float *) d)[k];
                        if (isfinite(f) && fabs(f) > ret->out_max[i])
                                ret->out_max[i] = fabs(f);
                }
        }
        return 0;
}

static void model_close(mf_model_t *m) {
        free(m->bytes);
        for (int i = 0; i < MF_MAX_IO; i++)
                free(m->in[i]);
}

static void variant_save(const char *dir, const mf_model_t *src, const mf_variant_t *v) {
        if (!dir)
                return;
        (void) mkdir(dir, 0755);
        char path[4096];
        snprintf(path, sizeof(path), "%s/%s-%016" PRIx64 ".tflite", dir, src->g->name, v->seed);
        FILE *f = fopen(path, "wb");
        if (f) {
                fwrite(v->bytes, 1, src->size, f);
                fclose(f);
        }
        for (size_t i = 0; i < src->g->n_inputs; i++) {
                snprintf(path, sizeof(path), "%s/%s-%016" PRIx64 ".input_%zu.bin", dir, src->g->name, v->seed, i);
                if ((f = fopen(path, "wb"))) {
                        fwrite(v->in[i], 1, src->in_size[i], f);
                        fclose(f);
                }
        }
}

/* Our XNNPACK outputs against TFLite's XNNPACK delegate: with its default
 * flags (float ops, as difftest's second oracle), then with the 8-bit
 * quantized ops too (QS8, QU8; TFLite 2.9 refuses some models that way).
 * Overwrites shm (the builtin kernels' outputs are no longer needed). */
static bool second_oracle(dt_native_t *nat, const mf_model_t *src, const mf_variant_t *v, uint8_t *shm,
                          void *const *got, const size_t *got_sizes, char *why, size_t why_size) {
        static const uint32_t flags[2] = { 0, DT_NATIVE_XNNPACK_QS8 | DT_NATIVE_XNNPACK_QU8 };
        if (dt_native_use_xnnpack(nat, true) < 0)
                return false;
        bool ok = false;
        for (int f = 0; f < 2 && !ok; f++) {
                dt_native_xnnpack_flags(nat, flags[f]);
                size_t want_sizes[MF_MAX_IO] = { 0 };
                char err[256], msg[512] = "";
                int r = native_run(nat, src, v, shm, want_sizes, err, sizeof(err));
                ok = r == 0;
                for (size_t o = 0; ok && o < src->g->n_outputs; o++)
                        ok = output_ok(&src->g->outputs[o], GOLDEN_TOL_ACCELERATED, src->out_max[o], got[o],
                                       got_sizes[o], native_out(src, shm, o), want_sizes[o], msg, sizeof(msg));
                if (!ok) {
                        size_t len = strlen(why);
                        snprintf(why + len, why_size - len, "; TFLite's XNNPACK delegate (flags %u): %s",
                                 (unsigned) flags[f], r == 0 ? msg : err);
                }
        }
        (void) dt_native_use_xnnpack(nat, false);
        dt_native_xnnpack_flags(nat, 0);
        return ok;
}

/* One variant; returns how many drivers mismatched. */
static int variant_run(dt_native_t *nat, const mf_model_t *src, uint64_t seed, const bool drivers[2],
                       const char *save, uint8_t *shm, mf_stats_t *st) {
        mf_variant_t v;
        int r = variant_make(src, seed, &v);
        if (r < 0) {
                fprintf(stderr, "modelfuzz: %s variant 0x%016" PRIx64 ": %s\n", src->g->name, seed, strerror(-r));
                variant_done(&v);
                return 0;
        }
        st->variants++;
        size_t want_sizes[MF_MAX_IO] = { 0 };
        char err[512] = "";
        r = native_run(nat, src, &v, shm, want_sizes, err, sizeof(err));
        if (r < 0) {
                if (r == -EFAULT)
                        st->tflite_crashed++;
                st->refused++;
                variant_done(&v);
                return 0;
        }
        int bad = 0;
        for (int d = 0; d < 2; d++) {
                if (!drivers[d])
                        continue;
                void *got[MF_MAX_IO] = { 0 };
                size_t got_sizes[MF_MAX_IO] = { 0 };
                char msg[1536] = "";
                bool ok = true;
                r = ours_run(src, &v, d == 1, got, got_sizes, err, sizeof(err));
                if (r < 0) {
                        st->our_errors[d]++;
                        snprintf(msg, sizeof(msg), "acceld refused what TFLite ran: %s", err);
                        ok = false;
                }
                for (size_t o = 0; ok && o < src->g->n_outputs; o++)
                        ok = output_ok(&src->g->outputs[o], d ? GOLDEN_TOL_ACCELERATED : GOLDEN_TOL_REFERENCE,
                               src->out_max[o], got[o],
                                       got_sizes[o], native_out(src, shm, o), want_sizes[o], msg, sizeof(msg));
                /* Second oracle of the XNNPACK driver, as in difftest: TFLite
                 * with its own XNNPACK delegate, quantized ops included (the
                 * upstream accelerated path: XNNPACK rounds each quantized op
                 * its own way, and a network compounds it). */
                if (!ok && r == 0 && d == 1 && second_oracle(nat, src, &v, shm, got, got_sizes, msg, sizeof(msg))) {
                        st->second_oracle++;
                        ok = true;
                }
                /* Neither oracle: the in-situ check (insitu.h). Every op,
                 * fed what our XNNPACK run gave it, against TFLite running
                 * that op alone, by difftest's rule: if all pass, the miss
                 * is XNNPACK's per-op rounding compounded through the
                 * network, not an op out of rule. */
                if (!ok && r == 0 && d == 1) {
                        dt_insitu_t is;
                        int ri = dt_insitu_check(nat, v.bytes, src->size, v.in, src->in_size,
                                                 (int) src->g->n_inputs, mf_perturb, &is);
                        if (ri == 0 && dt_insitu_passed(&is)) {
                                st->in_situ++;
                                ok = true;
                                printf("COMPOUNDED xnnpack %s: modelfuzz --model %s --variant 0x%016" PRIx64
                                       " --drivers xnnpack --trace # %s; every op within difftest's rule in situ; "
                                       "whole network: %s\n",
                                       src->g->name, src->g->name, seed, v.desc, msg);
                        } else {
                                size_t len = strlen(msg);
                                snprintf(msg + len, sizeof(msg) - len, "; in situ: %s (modelfuzz --model %s --variant "
                                         "0x%016" PRIx64 " --drivers xnnpack --trace)",
                                         ri < 0 && !is.msg[0] ? strerror(-ri) : is.msg, src->g->name, seed);
                        }
                        dt_insitu_done(&is);
                }
                st->compared[d]++;
                if (!ok) {
                        st->mismatched[d]++;
                        bad++;
                        printf("MISMATCH %s %s: modelfuzz --model %s --variant 0x%016" PRIx64 " # %s; %s\n",
                               d ? "xnnpack" : "reference", src->g->name, src->g->name, seed, v.desc, msg);
                        variant_save(save, src, &v);
                }
                for (int o = 0; o < MF_MAX_IO; o++)
                        free(got[o]);
        }
        variant_done(&v);
        return bad;
}

/* --trace: where a mismatching variant first departs from TFLite. Each op's
 * first output in turn becomes the model's first output (the outputs vector
 * is patched in place: TFLite and we keep graph outputs alive to the end),
 * and TFLite's value is compared with ours byte for byte. The first op that
 * differs while its inputs do not is the one to look at. */
static void trace_compare(const rt_model_tensor_t *t, const uint8_t *a, size_t an, const uint8_t *b, size_t bn,
                          char *msg, size_t msg_size) {
        if (an != bn) {
                snprintf(msg, msg_size, "sizes %zu vs %zu", an, bn);
                return;
        }
        size_t differ = 0, at = 0;
        double max = 0;
        size_t es = rt_type_size(t->type) ? rt_type_size(t->type) : 1;
        for (size_t i = 0; i < an / es; i++) {
                if (memcmp(a + i * es, b + i * es, es) == 0)
                        continue;
                double d = 0;
                if (t->type == RT_TYPE_FLOAT32)
                        d = fabs((double) get_f32(a + 4 * i) - (double) get_f32(b + 4 * i));
                else if (t->type == RT_TYPE_INT8)
                        d = abs((int8_t) a[i] - (int8_t) b[i]);
                else if (t->type == RT_TYPE_UINT8)
                        d = abs(a[i] - b[i]);
                if (differ++ == 0 || d > max)
                        max = d, at = i;
        }
        if (!differ)
                snprintf(msg, msg_size, "same");
        else if (t->type == RT_TYPE_FLOAT32)
                snprintf(msg, msg_size, "%zu of %zu differ, max %g at %zu (ours %.9g, TFLite %.9g)", differ, an / es,
                         max, at, (double) get_f32(a + 4 * at), (double) get_f32(b + 4 * at));
        else
                snprintf(msg, msg_size, "%zu of %zu differ, max %g at %zu", differ, an / es, max, at);
}

static int variant_trace(dt_native_t *nat, const mf_model_t *src, uint64_t seed, bool xnnpack) {
        mf_variant_t v;
        int r = variant_make(src, seed, &v);
        rt_model_t *m = NULL;
        char err[512];
        if (r == 0)
                r = rt_model_load_buffer(v.bytes, src->size, false, &m, err, sizeof(err));
        if (r < 0) {
                variant_done(&v);
                return r;
        }
        fbt_table_t sgt = fbt_vector_table(fbt_root(v.bytes, src->size),
                                           fbt_vector(fbt_root(v.bytes, src->size), RT__MODEL_SUBGRAPHS, 4), 0);
        fbt_vec_t outs = fbt_vector(sgt, RT__SUBGRAPH_OUTPUTS, 4);
        const rt_model_subgraph_t *sg = &m->subgraphs[0];
        uint8_t *patched = aligned_alloc(16, (src->size + 15) / 16 * 16);
        if (!patched || outs.n == 0) {
                free(patched);
                rt_model_free(m);
                variant_done(&v);
                return -EINVAL;
        }
        size_t out_at = (size_t) (outs.data - v.bytes);
        /* On XNNPACK, the in-situ verdict of every op too (insitu.h). */
        dt_insitu_t is = { .first_failed = -1 };
        int ri = -1;
        if (xnnpack) {
                ri = dt_insitu_check(nat, v.bytes, src->size, v.in, src->in_size, (int) src->g->n_inputs, mf_perturb,
                                     &is);
                if (ri < 0)
                        printf("in situ: not run: %s\n", is.msg[0] ? is.msg : strerror(-ri));
                else
                        printf("in situ: exposing every op's output %s the model's outputs on our XNNPACK driver\n",
                               is.exposure_changed ? "CHANGED" : "left unchanged");
        }
        for (int32_t o = 0; o < sg->n_ops; o++) {
                const rt_model_op_t *op = &sg->ops[o];
                if (op->n_outputs < 1 || op->outputs[0] < 0)
                        continue;
                int32_t ti = op->outputs[0];
                memcpy(patched, v.bytes, src->size);
                memcpy(patched + out_at, &ti, 4);
                mf_variant_t pv = v;
                pv.bytes = patched;
                void *nat_out[MF_MAX_IO] = { 0 }, *our_out[MF_MAX_IO] = { 0 };
                size_t nat_sizes[MF_MAX_IO] = { 0 }, our_sizes[MF_MAX_IO] = { 0 };
                char e[256] = "", msg[800] = "";
                int rn = dt_native_run(nat, patched, src->size, (void *const *) v.in, src->in_size,
                                       (int) src->g->n_inputs, nat_out, nat_sizes, MF_MAX_IO, e, sizeof(e));
                int ro = ours_run(src, &pv, xnnpack, our_out, our_sizes, err, sizeof(err));
                if (rn < 1 || ro < 0)
                        snprintf(msg, sizeof(msg), "not run (TFLite %d, ours %d: %s)", rn, ro, ro < 0 ? err : e);
                else
                        trace_compare(&sg->tensors[ti], our_out[0], our_sizes[0], nat_out[0], nat_sizes[0], msg,
                                      sizeof(msg));
                char situ[400] = "";
                if (ri == 0 && o < is.n_ops) {
                        const dt_insitu_op_t *io = &is.ops[o];
                        snprintf(situ, sizeof(situ), "; in situ (%s alone): %s, %s",
                                 io->oracle[0] ? io->oracle : "-",
                                 io->verdict == DT_INSITU_PASS  ? "pass"
                                 : io->verdict == DT_INSITU_FAIL ? "FAIL"
                                                                 : "NOT CHECKED",
                                 io->msg);
                }
                printf("op %d %s -> tensor %d %s (%s): %s%s\n", o,
                       op->custom_code ? op->custom_code : rt_op_name(op->builtin_code), ti,
                       sg->tensors[ti].name, rt_type_name(sg->tensors[ti].type), msg, situ);
                for (int i = 0; i < MF_MAX_IO; i++)
                        free(our_out[i]), free(nat_out[i]);
        }
        if (ri == 0)
                printf("in situ: %s (%d of %d ops failed or not checked)\n",
                       dt_insitu_passed(&is) ? "every op within difftest's rule" : is.msg, is.failed, is.n_ops);
        dt_insitu_done(&is);
        free(patched);
        rt_model_free(m);
        variant_done(&v);
        return 0;
}

/* --insitu-selftest: the in-situ check can fail and passes exactly up to
 * the rule. On variant `seed` of src (a quantized model): unperturbed,
 * every op passes; the first op with a quantized output, its element 0
 * moved 3 steps from TFLite's value, fails (and only it); moved 2 steps
 * (difftest's XNNPACK rule), passes; and the variant, compared as the fuzz
 * loop does, is no mismatch. 0 when all hold, 1 otherwise. */
static int insitu_selftest(dt_native_t *nat, const mf_model_t *src, uint64_t seed, uint8_t *shm) {
        mf_variant_t v;
        int r = variant_make(src, seed, &v), bad = 0;
        rt_model_t *m = NULL;
        char err[256];
        if (r == 0)
                r = rt_model_load_buffer(v.bytes, src->size, false, &m, err, sizeof(err));
        if (r < 0) {
                variant_done(&v);
                printf("insitu-selftest: cannot make the variant: %s\n", strerror(-r));
                return 1;
        }
        const rt_model_subgraph_t *sg = &m->subgraphs[0];
        int32_t target = -1;
        for (int32_t k = 0; k < sg->n_ops && target < 0; k++)
                if (sg->ops[k].n_outputs > 0 && sg->ops[k].outputs[0] >= 0 &&
                    dt_is_quant_type(sg->tensors[sg->ops[k].outputs[0]].type))
                        target = k;
        struct {
                int32_t steps;  /* 0: unperturbed */
                bool pass;
        } tries[] = { { 0, true }, { 3, false }, { 2, true } };
        for (size_t i = 0; i < sizeof(tries) / sizeof(tries[0]); i++) {
                dt_insitu_perturb_t p = { .op = target, .steps = tries[i].steps };
                dt_insitu_t is;
                r = dt_insitu_check(nat, v.bytes, src->size, v.in, src->in_size, (int) src->g->n_inputs,
                                    tries[i].steps ? &p : NULL, &is);
                bool passed = r == 0 && dt_insitu_passed(&is);
                bool as_expected = r == 0 && passed == tries[i].pass &&
                                   (passed || (is.failed == 1 && is.first_failed == target));
                printf("insitu-selftest: op %d element 0 %+d steps from TFLite: %s (%s), expected %s: %s\n", target,
                       tries[i].steps, passed ? "pass" : "fail", r < 0 ? strerror(-r) : passed ? "every op in rule" : is.msg,
                       tries[i].pass ? "pass" : "a failure of that op alone", as_expected ? "ok" : "WRONG");
                bad += !as_expected;
                dt_insitu_done(&is);
        }
        if (target < 0) {
                printf("insitu-selftest: no op with a quantized output\n");
                bad++;
        }
        rt_model_free(m);
        variant_done(&v);
        mf_stats_t st = { 0 };
        const bool xnn_only[2] = { false, true };
        int mism = variant_run(nat, src, seed, xnn_only, NULL, shm, &st);
        printf("insitu-selftest: the variant on XNNPACK: %s\n",
               mism ? "MISMATCH" : st.in_situ ? "match in situ (compounded, every op in rule)" : "match");
        return bad || mism ? 1 : 0;
}

/* Every name passes when no list was given. */
static bool in_list(const char *list, const char *name) {
        return !list || dt_name_listed(list, name);
}

int main(int argc, char **argv) {
        const char *lib = getenv("ACCELD_TFLITE_C_LIB"), *models = NULL, *save = NULL, *one_model = NULL;
        const char *drv = "ref,xnnpack";
        uint64_t seed = 1, one_variant = 0;
        long variants = -1;
        double seconds = 0;
        bool quiet = false, have_variant = false, trace = false, selftest = false;
        dt_insitu_perturb_t perturb = { .op = -1 };
        for (int i = 1; i < argc; i++) {
                const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
#define ARG(name) (strcmp(a, name) == 0 && v && (i++, true))
                if (ARG("--lib"))
                        lib = v;
                else if (ARG("--seed"))
                        seed = strtoull(v, NULL, 0);
                else if (ARG("--variants"))
                        variants = strtol(v, NULL, 0);
                else if (ARG("--seconds"))
                        seconds = atof(v);
                else if (ARG("--models"))
                        models = v;
                else if (ARG("--drivers"))
                        drv = v;
                else if (ARG("--save"))
                        save = v;
                else if (ARG("--model"))
                        one_model = v;
                else if (ARG("--variant"))
                        one_variant = strtoull(v, NULL, 0), have_variant = true;
                else if (strcmp(a, "--quiet") == 0)
                        quiet = true;
                else if (strcmp(a, "--trace") == 0)
                        trace = true;
                else if (strcmp(a, "--insitu-selftest") == 0)
                        selftest = true;
                else if (ARG("--insitu-perturb") && sscanf(v, "%d:%d", &perturb.op, &perturb.steps) == 2)
                        mf_perturb = &perturb;
                else {
                        fprintf(stderr, "usage: modelfuzz [--lib PATH] [--seed S] [--variants N] [--seconds S]\n"
                                        "                 [--models A,B,...] [--drivers ref,xnnpack] [--save DIR]\n"
                                        "                 [--model NAME --variant SEED [--trace | --insitu-selftest]]\n"
                                        "                 [--insitu-perturb OP:STEPS] [--quiet]\n");
                        return 2;
                }
#undef ARG
        }
        seed += dt_seed_base();
        bool drivers[2] = { in_list(drv, "ref"), in_list(drv, "xnnpack") };
        const char *shared = golden_shared_dir();
        golden_manifest_t *man = NULL;
        char err[512];
        if (!shared || golden_manifest_load(shared, &man, err, sizeof(err)) < 0) {
                printf("SKIP: ../shared/models not found (ACCELD_SHARED_DIR)\n");
                return 77;
        }
        dt_native_t *nat = NULL;
        if (!lib || dt_native_open(lib, &nat, err, sizeof(err)) < 0) {
                printf("SKIP: native TensorFlow Lite not found (%s); run bench/fetch-native-tflite.sh\n",
                       lib ? lib : "ACCELD_TFLITE_C_LIB unset");
                golden_manifest_free(man);
                return 77;
        }
        mf_model_t *pool = calloc(man->n_models, sizeof(*pool));
        size_t n_pool = 0, shm_size = 8 + sizeof(size_t) * MF_MAX_IO;
        for (size_t i = 0; pool && i < man->n_models; i++) {
                const golden_model_t *g = &man->models[i];
                if (!g->runnable || !in_list(one_model ? one_model : models, g->name) ||
                    model_open(g, &pool[n_pool]) < 0) {
                        if (pool)
                                model_close(&pool[n_pool]);
                        continue;
                }
                size_t need = 8 + sizeof(size_t) * MF_MAX_IO;
                for (size_t o = 0; o < g->n_outputs; o++)
                        need += pool[n_pool].out_size[o] * 2;
                if (need > shm_size)
                        shm_size = need;
                n_pool++;
        }
        uint8_t *shm = mmap(NULL, shm_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        int rc = 0;
        mf_stats_t st = { 0 };
        if (n_pool == 0 || shm == MAP_FAILED) {
                fprintf(stderr, "modelfuzz: no runnable model selected\n");
                rc = 2;
                goto out;
        }
        if (have_variant && selftest) {
                rc = insitu_selftest(nat, &pool[0], one_variant, shm);
                goto out;
        }
        if (have_variant && trace) {
                rc = variant_trace(nat, &pool[0], one_variant, drivers[1] && !drivers[0]) < 0 ? 1 : 0;
                goto out;
        }
        if (have_variant) {
                rc = variant_run(nat, &pool[0], one_variant, drivers, save, shm, &st) ? 1 : 0;
                printf("variant %s 0x%016" PRIx64 ": %s%s%s\n", pool[0].g->name, one_variant,
                       st.refused ? "refused by TFLite" : rc ? "MISMATCH" : "match",
                       st.second_oracle ? " (XNNPACK: TFLite's XNNPACK delegate)" : "",
                       st.in_situ ? " (XNNPACK: compounded, every op in rule in situ)" : "");
                goto out;
        }
        if (variants < 0 && seconds <= 0)
                variants = 200;
        if (!quiet)
                printf("modelfuzz: TensorFlow Lite %s, seed %" PRIu64 ", %zu models, %s%s\n", dt_native_version(nat),
                       seed, n_pool, drivers[0] ? "reference " : "", drivers[1] ? "xnnpack" : "");
        double t0 = now_s();
        for (uint64_t i = 0;; i++) {
                if (variants >= 0 && (long) i >= variants)
                        break;
                if (seconds > 0 && now_s() - t0 >= seconds)
                        break;
                dt_rng_t r = { seed ^ (i * 0x9e3779b97f4a7c15ull) };
                uint64_t vs = dt_next(&r);
                variant_run(nat, &pool[vs % n_pool], vs, drivers, save, shm, &st);
        }
        printf("modelfuzz: %" PRIu64 " variants (%" PRIu64 " refused by TFLite, %" PRIu64
               " of them crashing it); compared reference %" PRIu64 ", xnnpack %" PRIu64
               "; mismatches: reference %" PRIu64 ", xnnpack %" PRIu64 "; %.1f s\n",
               st.variants, st.refused, st.tflite_crashed, st.compared[0], st.compared[1], st.mismatched[0],
               st.mismatched[1], now_s() - t0);
        if (st.second_oracle)
                printf("modelfuzz: %" PRIu64 " XNNPACK variants matched TFLite with its XNNPACK delegate, not its "
                       "builtin kernels\n", st.second_oracle);
        if (st.in_situ)
                printf("modelfuzz: %" PRIu64 " XNNPACK variants compounded, every op in rule (in situ: each op within "
                       "difftest's rule of TFLite running it alone on our inputs)\n", st.in_situ);
        rc = st.mismatched[0] || st.mismatched[1] ? 1 : 0;
out:
        if (shm != MAP_FAILED)
                munmap(shm, shm_size);
        for (size_t i = 0; i < n_pool; i++)
                model_close(&pool[i]);
        free(pool);
        dt_native_close(nat);
        golden_manifest_free(man);
        return rc;
}
