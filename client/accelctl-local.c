/* SPDX-License-Identifier: Apache-2.0 */
/*
 * accelctl inspect / run --local: the in-process runtime (runtime/rt.h),
 * no daemon involved.
 */
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "accelctl-file.h"
#include "file-read.h"
#include "accelctl-local.h"
#include "cleanup.h"
#include "rt.h"
#include "settings.h"

DEFINE_POINTER_CLEANUP(rt_model_t, rt_model_free);
DEFINE_POINTER_CLEANUP(rt_interp_t, rt_interp_free);
DEFINE_POINTER_CLEANUP(rt_interp_options_t, rt_interp_options_free);

static void json_putp(json_object **o) {
        if (*o)
                (void) json_object_put(*o);
}

static void print_json(json_object *o) {
        printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
}

static json_object *json_dims(const int32_t *dims, int32_t rank) {
        json_object *a = json_object_new_array();
        for (int32_t d = 0; a && d < rank; d++)
                json_object_array_add(a, json_object_new_int(dims[d]));
        return a;
}

static void dims_format(const int32_t *dims, int32_t rank, char *buf, size_t size) {
        size_t o = (size_t) snprintf(buf, size, "[");
        for (int32_t d = 0; d < rank && o < size; d++)
                o += (size_t) snprintf(buf + o, size - o, d ? ",%d" : "%d", dims[d]);
        if (o < size)
                snprintf(buf + o, size - o, "]");
}

/* ---- inspect ---- */

static json_object *json_quant(const rt_quant_t *q) {
        if (q->n == 0)
                return NULL;
        json_object *o = json_object_new_object();
        json_object *s = json_object_new_array(), *z = json_object_new_array();
        for (size_t i = 0; i < q->n; i++) {
                json_object_array_add(s, json_object_new_double(q->scale ? q->scale[i] : 0));
                json_object_array_add(z, json_object_new_int64(q->zero_point ? q->zero_point[i] : 0));
        }
        json_object_object_add(o, "scale", s);
        json_object_object_add(o, "zero_point", z);
        if (q->n > 1)
                json_object_object_add(o, "quantized_dimension", json_object_new_int(q->axis));
        return o;
}

static json_object *json_tensor(const rt_model_tensor_t *t, int32_t index) {
        json_object *o = json_object_new_object();
        json_object_object_add(o, "name", json_object_new_string(t->name ? t->name : ""));
        json_object_object_add(o, "tensor", json_object_new_int(index));
        json_object_object_add(o, "type", json_object_new_string(rt_type_name(t->type)));
        json_object_object_add(o, "shape", json_dims(t->shape, t->rank));
        json_object_object_add(o, "shape_signature",
                               json_dims(t->has_shape_signature ? t->shape_signature : t->shape, t->rank));
        json_object_object_add(o, "quantization", json_quant(&t->quant));
        return o;
}

static void text_tensor(const char *kind, int32_t i, const rt_model_tensor_t *t) {
        char shape[128], sig[128];
        dims_format(t->shape, t->rank, shape, sizeof(shape));
        dims_format(t->has_shape_signature ? t->shape_signature : t->shape, t->rank, sig, sizeof(sig));
        printf("  %s %d: '%s' %s %s", kind, i, t->name ? t->name : "", rt_type_name(t->type), shape);
        if (t->has_shape_signature && strcmp(shape, sig) != 0)
                printf(" (signature %s)", sig);
        if (t->quant.n == 1)
                printf(" scale %g zero_point %lld", t->quant.scale[0], (long long) t->quant.zero_point[0]);
        else if (t->quant.n > 1)
                printf(" per-channel (%zu scales, axis %d)", t->quant.n, t->quant.axis);
        printf("\n");
}

typedef struct histo {
        const char *name;
        int count;
} histo_t;

static int histo_cmp(const void *a, const void *b) {
        const histo_t *x = a, *y = b;
        if (x->count != y->count)
                return y->count - x->count;
        return strcmp(x->name, y->name);
}

static void unsupported_collect(void *user, int32_t node, const char *message) {
        json_object *a = user;
        json_object *o = json_object_new_object();
        json_object_object_add(o, "node", json_object_new_int(node));
        json_object_object_add(o, "message", json_object_new_string(message));
        json_object_array_add(a, o);
}

static int inspect_usage(void) {
        fprintf(stderr, "Usage: accelctl inspect MODEL [--json]\n");
        return 2;
}

int accelctl_local_inspect(int argc, char **argv) {
        bool json = false;
        const char *path = NULL;
        for (int i = 1; i < argc; i++) {
                if (strcmp(argv[i], "--json") == 0)
                        json = true;
                else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
                        return inspect_usage(), 0;
                else if (argv[i][0] == '-' || path)
                        return inspect_usage();
                else
                        path = argv[i];
        }
        if (!path)
                return inspect_usage();
        char err[1024] = "";
        _cleanup_(rt_model_freep) rt_model_t *m = NULL;
        int r = rt_model_load_file(path, &m, err, sizeof(err));
        if (r < 0) {
                fprintf(stderr, "accelctl inspect: %s: %s\n", path, err[0] ? err : strerror(-r));
                return 1;
        }
        if (m->n_subgraphs < 1) {
                fprintf(stderr, "accelctl inspect: %s: model has no subgraph\n", path);
                return 1;
        }
        const rt_model_subgraph_t *sg = &m->subgraphs[0];

        /* Op histogram over subgraph 0. */
        _cleanup_free_ histo_t *h = calloc((size_t) sg->n_ops + 1, sizeof(histo_t));
        size_t n_h = 0;
        if (!h)
                return 1;
        for (int32_t i = 0; i < sg->n_ops; i++) {
                const char *name = rt_model_op_name(&sg->ops[i]);
                size_t k = 0;
                while (k < n_h && strcmp(h[k].name, name) != 0)
                        k++;
                if (k == n_h) {
                        /* rt_op_name() may use a per-thread buffer for unknown codes. */
                        h[k].name = strdup(name);
                        if (!h[k].name)
                                return 1;
                        n_h++;
                }
                h[k].count++;
        }
        qsort(h, n_h, sizeof(*h), histo_cmp);

        _cleanup_(json_putp) json_object *unsupported = json_object_new_array();
        int n_unsupported = rt_model_check_ops(m, 0, unsupported_collect, unsupported);

        /* Arena size: only when every op resolves and allocate succeeds. */
        bool have_arena = false;
        size_t arena = 0;
        char alloc_err[1024] = "";
        if (n_unsupported == 0) {
                _cleanup_(rt_interp_freep) rt_interp_t *it = NULL;
                r = rt_interp_create(m, NULL, &it, alloc_err, sizeof(alloc_err));
                if (r == 0 && rt_interp_allocate_tensors(it) == 0) {
                        have_arena = true;
                        arena = rt_interp_arena_bytes(it);
                } else if (r == 0)
                        snprintf(alloc_err, sizeof(alloc_err), "%s", rt_interp_last_error(it));
        }

        if (json) {
                _cleanup_(json_putp) json_object *o = json_object_new_object();
                json_object_object_add(o, "model", json_object_new_string(path));
                json_object_object_add(o, "bytes", json_object_new_int64((int64_t) m->size));
                json_object_object_add(o, "schema_version", json_object_new_int64(m->version));
                json_object_object_add(o, "description", json_object_new_string(m->description ? m->description : ""));
                json_object_object_add(o, "min_runtime_version",
                                       m->min_runtime_version ? json_object_new_string(m->min_runtime_version) : NULL);
                json_object_object_add(o, "subgraphs", json_object_new_int(m->n_subgraphs));
                json_object *ins = json_object_new_array(), *outs = json_object_new_array();
                for (int32_t i = 0; i < sg->n_inputs; i++)
                        json_object_array_add(ins, json_tensor(&sg->tensors[sg->inputs[i]], sg->inputs[i]));
                for (int32_t i = 0; i < sg->n_outputs; i++)
                        json_object_array_add(outs, json_tensor(&sg->tensors[sg->outputs[i]], sg->outputs[i]));
                json_object_object_add(o, "inputs", ins);
                json_object_object_add(o, "outputs", outs);
                json_object *sigs = json_object_new_array();
                for (int32_t s = 0; s < m->n_signatures; s++) {
                        const rt_signature_t *sd = &m->signatures[s];
                        json_object *so = json_object_new_object();
                        json_object_object_add(so, "key", json_object_new_string(sd->key ? sd->key : ""));
                        json_object_object_add(so, "subgraph", json_object_new_int(sd->subgraph_index));
                        for (int pass = 0; pass < 2; pass++) {
                                json_object *a = json_object_new_array();
                                const rt_signature_io_t *io = pass ? sd->outputs : sd->inputs;
                                int32_t n = pass ? sd->n_outputs : sd->n_inputs;
                                for (int32_t k = 0; k < n; k++) {
                                        json_object *x = json_object_new_object();
                                        json_object_object_add(x, "name", json_object_new_string(io[k].name ? io[k].name : ""));
                                        json_object_object_add(x, "tensor", json_object_new_int(io[k].tensor_index));
                                        json_object_array_add(a, x);
                                }
                                json_object_object_add(so, pass ? "outputs" : "inputs", a);
                        }
                        json_object_array_add(sigs, so);
                }
                json_object_object_add(o, "signatures", sigs);
                json_object *ops = json_object_new_object();
                for (size_t k = 0; k < n_h; k++)
                        json_object_object_add(ops, h[k].name, json_object_new_int(h[k].count));
                json_object_object_add(o, "ops", ops);
                json_object_object_add(o, "nodes", json_object_new_int(sg->n_ops));
                json_object_object_add(o, "unsupported", json_object_get(unsupported));
                json_object_object_add(o, "arena_bytes", have_arena ? json_object_new_int64((int64_t) arena) : NULL);
                if (alloc_err[0])
                        json_object_object_add(o, "error", json_object_new_string(alloc_err));
                print_json(o);
        } else {
                printf("model: %s (%zu bytes, schema %u, %d subgraph%s)\n", path, m->size, m->version,
                       m->n_subgraphs, m->n_subgraphs == 1 ? "" : "s");
                if (m->description && m->description[0])
                        printf("description: %s\n", m->description);
                if (m->min_runtime_version)
                        printf("min runtime version: %s\n", m->min_runtime_version);
                printf("inputs:\n");
                for (int32_t i = 0; i < sg->n_inputs; i++)
                        text_tensor("input", i, &sg->tensors[sg->inputs[i]]);
                printf("outputs:\n");
                for (int32_t i = 0; i < sg->n_outputs; i++)
                        text_tensor("output", i, &sg->tensors[sg->outputs[i]]);
                printf("signatures:%s\n", m->n_signatures ? "" : " none");
                for (int32_t s = 0; s < m->n_signatures; s++) {
                        const rt_signature_t *sd = &m->signatures[s];
                        printf("  '%s' (subgraph %d):", sd->key ? sd->key : "", sd->subgraph_index);
                        for (int32_t k = 0; k < sd->n_inputs; k++)
                                printf(" in '%s'", sd->inputs[k].name ? sd->inputs[k].name : "");
                        for (int32_t k = 0; k < sd->n_outputs; k++)
                                printf(" out '%s'", sd->outputs[k].name ? sd->outputs[k].name : "");
                        printf("\n");
                }
                printf("ops (%d nodes):\n", sg->n_ops);
                for (size_t k = 0; k < n_h; k++)
                        printf("  %-32s %d\n", h[k].name, h[k].count);
                if (n_unsupported > 0) {
                        printf("unsupported ops:\n");
                        for (size_t k = 0; k < json_object_array_length(unsupported); k++) {
                                json_object *x = json_object_array_get_idx(unsupported, k), *msg;
                                json_object_object_get_ex(x, "message", &msg);
                                printf("  %s\n", json_object_get_string(msg));
                        }
                } else
                        printf("unsupported ops: none\n");
                if (have_arena)
                        printf("arena: %zu bytes\n", arena);
                else
                        printf("arena: not available%s%s\n", alloc_err[0] ? ": " : "", alloc_err);
        }
        for (size_t k = 0; k < n_h; k++)
                free((char *) h[k].name);
        return 0;
}

/* ---- run --local ---- */

/* --settings takes a TFLiteSettings as JSON text or as a file holding it;
 * the runtime's parser (runtime/settings.h) reads both, with the seed's
 * field names, so `run --local` honours exactly what accel-benchmark and
 * the daemon honour. */
static int settings_parse(const char *text, rt_settings_t *ret, char *err, size_t err_size) {
        char msg[512] = "";
        int r = text[0] == '{' ? rt_settings_parse_json(text, ret, msg, sizeof(msg))
                               : rt_settings_load_file(text, ret, msg, sizeof(msg));
        if (r < 0)
                snprintf(err, err_size, "--settings: %s", msg[0] ? msg : strerror(-r));
        return r;
}

static int run_usage(void) {
        fprintf(stderr, "Usage: accelctl run --local MODEL [--settings JSON|FILE] [--input FILE...] "
                        "[--output FILE...] [--runs N] [--json]\n"
                        "Without --input the inputs are zeros, as through acceld; without --output each output\n"
                        "is summarised (shape, min, max, mean).\n");
        return 2;
}

/* Element k as a real number (dequantized for quantized tensors). */
static double value_at(const rt_tensor_t *t, size_t k) {
        double q;
        switch (t->type) {
        case RT_TYPE_FLOAT32: return ((const float *) t->data)[k];
        case RT_TYPE_INT32: return ((const int32_t *) t->data)[k];
        case RT_TYPE_INT64: return (double) ((const int64_t *) t->data)[k];
        case RT_TYPE_BOOL: return ((const bool *) t->data)[k];
        case RT_TYPE_INT16: q = ((const int16_t *) t->data)[k]; break;
        case RT_TYPE_INT8: q = ((const int8_t *) t->data)[k]; break;
        case RT_TYPE_UINT8: q = ((const uint8_t *) t->data)[k]; break;
        default: return 0;
        }
        return t->scale != 0.0f ? (q - t->zero_point) * t->scale : q;
}

static void shape_text(const rt_tensor_t *t, char *buf, size_t size) {
        char d[128];
        dims_format(t->dims, t->rank, d, sizeof(d));
        snprintf(buf, size, "%s%s", rt_type_name(t->type), d);
}

int accelctl_local_run(int argc, char **argv) {
        bool json = false;
        const char *path = NULL, *settings = NULL;
        long runs = 1;
        _cleanup_free_ const char **inputs = calloc((size_t) argc + 1, sizeof(char *));
        _cleanup_free_ const char **outputs = calloc((size_t) argc + 1, sizeof(char *));
        int n_in = 0, n_out = 0;
        if (!inputs || !outputs)
                return 1;
        for (int i = 1; i < argc; i++) {
                const char *a = argv[i];
                if (strcmp(a, "--local") == 0)
                        continue;
                if (strcmp(a, "--json") == 0)
                        json = true;
                else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0)
                        return run_usage(), 0;
                else if (strcmp(a, "--settings") == 0) {
                        if (++i >= argc)
                                return run_usage();
                        settings = argv[i];
                } else if (strcmp(a, "--runs") == 0) {
                        if (++i >= argc)
                                return run_usage();
                        char *end;
                        errno = 0;
                        runs = strtol(argv[i], &end, 10);
                        if (errno || *end || runs < 1 || runs > 1000000) {
                                fprintf(stderr, "accelctl run: --runs must be 1..1000000\n");
                                return 2;
                        }
                } else if (strcmp(a, "--input") == 0 || strcmp(a, "--output") == 0) {
                        bool in = a[2] == 'i';
                        int before = in ? n_in : n_out;
                        while (i + 1 < argc && strncmp(argv[i + 1], "--", 2) != 0) {
                                if (in)
                                        inputs[n_in++] = argv[++i];
                                else
                                        outputs[n_out++] = argv[++i];
                        }
                        if ((in ? n_in : n_out) == before) {
                                fprintf(stderr, "accelctl run: %s needs at least one file\n", a);
                                return 2;
                        }
                } else if (a[0] == '-') {
                        fprintf(stderr, "accelctl run: unknown option '%s'\n", a);
                        return run_usage();
                } else if (!path)
                        path = a;
                else {
                        fprintf(stderr, "accelctl run: unexpected argument '%s'\n", a);
                        return run_usage();
                }
        }
        if (!path)
                return run_usage();

        char err[1024] = "";
        _cleanup_(rt_settings_done) rt_settings_t rs;
        rt_settings_init(&rs);
        if (settings && settings_parse(settings, &rs, err, sizeof(err)) < 0) {
                fprintf(stderr, "accelctl run: %s\n", err);
                return 1;
        }
        _cleanup_(rt_model_freep) rt_model_t *m = NULL;
        int r = rt_model_load_file(path, &m, err, sizeof(err));
        if (r < 0) {
                fprintf(stderr, "accelctl run: %s: %s\n", path, err[0] ? err : strerror(-r));
                return 1;
        }
        _cleanup_(rt_interp_options_freep) rt_interp_options_t *o = rt_interp_options_new();
        if (!o)
                return 1;
        r = rt_interp_options_set_settings(o, &rs);
        if (r < 0) {
                fprintf(stderr, "accelctl run: --settings: %s\n", strerror(-r));
                return 1;
        }
        (void) rt_interp_options_enable_profiling(o, false);
        _cleanup_(rt_interp_freep) rt_interp_t *it = NULL;
        uint64_t t0 = acc_now_us();
        r = rt_interp_create(m, o, &it, err, sizeof(err));
        if (r < 0) {
                fprintf(stderr, "accelctl run: %s: %s\n", path, err);
                return 1;
        }
        if ((n_in && n_in != rt_interp_input_count(it)) || (n_out && n_out != rt_interp_output_count(it))) {
                fprintf(stderr, "accelctl run: the model has %d input%s and %d output%s; got %d --input and %d --output files\n",
                        rt_interp_input_count(it), rt_interp_input_count(it) == 1 ? "" : "s",
                        rt_interp_output_count(it), rt_interp_output_count(it) == 1 ? "" : "s", n_in, n_out);
                return 2;
        }
        if (rt_interp_allocate_tensors(it) < 0) {
                fprintf(stderr, "accelctl run: %s\n", rt_interp_last_error(it));
                return 1;
        }
        uint64_t init_us = acc_now_us() - t0;
        for (int i = 0; n_in == 0 && i < rt_interp_input_count(it); i++) {
                /* No input files: zeros, as acceld's fresh shared-memory tensors are. */
                const rt_tensor_t *t = rt_interp_input_tensor(it, i);
                void *p = rt_interp_input_data(it, i);
                if (p && t->type != RT_TYPE_STRING)
                        memset(p, 0, rt_tensor_count(t) * rt_type_size(t->type));
        }
        for (int i = 0; i < n_in; i++) {
                _cleanup_free_ void *data = NULL;
                size_t size = 0;
                r = acc_file_read(inputs[i], &data, &size);
                if (r < 0) {
                        fprintf(stderr, "accelctl run: %s: %s\n", inputs[i], strerror(-r));
                        return 1;
                }
                if (rt_interp_copy_in(it, i, data, size) < 0) {
                        fprintf(stderr, "accelctl run: %s: %s\n", inputs[i], rt_interp_last_error(it));
                        return 1;
                }
        }
        uint64_t first = 0, sum = 0, lo = UINT64_MAX, hi = 0;
        for (long k = 0; k < runs; k++) {
                uint64_t s = acc_now_us();
                if (rt_interp_invoke(it) < 0) {
                        fprintf(stderr, "accelctl run: %s\n", rt_interp_last_error(it));
                        return 1;
                }
                uint64_t dt = acc_now_us() - s;
                if (k == 0)
                        first = dt;
                sum += dt;
                lo = dt < lo ? dt : lo;
                hi = dt > hi ? dt : hi;
        }
        for (int i = 0; i < n_out; i++) {
                const rt_tensor_t *t = rt_interp_output_tensor(it, i);
                size_t size = t->type == RT_TYPE_STRING ? t->bytes : rt_tensor_count(t) * rt_type_size(t->type);
                _cleanup_free_ void *buf = malloc(size ? size : 1);
                if (!buf || rt_interp_copy_out(it, i, buf, size) < 0) {
                        fprintf(stderr, "accelctl run: output %d: %s\n", i, buf ? rt_interp_last_error(it) : "out of memory");
                        return 1;
                }
                r = accelctl_file_write(outputs[i], buf, size);
                if (r < 0) {
                        fprintf(stderr, "accelctl run: %s: %s\n", outputs[i], strerror(-r));
                        return 1;
                }
        }
        if (json) {
                _cleanup_(json_putp) json_object *root = json_object_new_object();
                json_object *outs = json_object_new_array();
                for (int i = 0; i < rt_interp_output_count(it); i++) {
                        const rt_tensor_t *t = rt_interp_output_tensor(it, i);
                        json_object *x = json_object_new_object();
                        json_object_object_add(x, "name", json_object_new_string(t->name));
                        json_object_object_add(x, "type", json_object_new_string(rt_type_name(t->type)));
                        json_object_object_add(x, "shape", json_dims(t->dims, t->rank));
                        if (n_out)
                                json_object_object_add(x, "file", json_object_new_string(outputs[i]));
                        json_object_array_add(outs, x);
                }
                json_object_object_add(root, "outputs", outs);
                json_object *tm = json_object_new_object();
                json_object_object_add(tm, "init", json_object_new_int64((int64_t) init_us));
                json_object_object_add(tm, "first", json_object_new_int64((int64_t) first));
                json_object_object_add(tm, "avg", json_object_new_int64((int64_t) (sum / (uint64_t) runs)));
                json_object_object_add(tm, "min", json_object_new_int64((int64_t) lo));
                json_object_object_add(tm, "max", json_object_new_int64((int64_t) hi));
                json_object_object_add(tm, "runs", json_object_new_int64(runs));
                json_object_object_add(root, "timing_us", tm);
                json_object_object_add(root, "arena_bytes", json_object_new_int64((int64_t) rt_interp_arena_bytes(it)));
                json_object_object_add(root, "delegate", json_object_new_string(rt_settings_delegate_name(&rs)));
                json_object *parts = json_object_new_array();
                size_t n_parts = rt_interp_partitions(it, NULL, 0);
                _cleanup_free_ rt_interp_partition_t *pv = calloc(n_parts ? n_parts : 1, sizeof(*pv));
                if (!pv)
                        return 1;
                n_parts = rt_interp_partitions(it, pv, n_parts);
                for (size_t i = 0; i < n_parts; i++) {
                        json_object *x = json_object_new_object();
                        json_object_object_add(x, "driver", json_object_new_string(pv[i].driver));
                        json_object_object_add(x, "nodes", json_object_new_int(pv[i].nodes));
                        json_object_array_add(parts, x);
                }
                json_object_object_add(root, "partitions", parts);
                print_json(root);
        } else {
                for (int i = 0; i < rt_interp_output_count(it); i++) {
                        const rt_tensor_t *t = rt_interp_output_tensor(it, i);
                        char s[160];
                        shape_text(t, s, sizeof(s));
                        if (n_out) {
                                printf("output %d '%s': %s -> %s\n", i, t->name, s, outputs[i]);
                                continue;
                        }
                        double lo_v = 0, hi_v = 0, sum_v = 0, v;
                        size_t cnt = t->type == RT_TYPE_STRING ? 0 : rt_tensor_count(t);
                        for (size_t k = 0; k < cnt; k++) {
                                v = value_at(t, k);
                                lo_v = k == 0 || v < lo_v ? v : lo_v;
                                hi_v = k == 0 || v > hi_v ? v : hi_v;
                                sum_v += v;
                        }
                        printf("output %d '%s': %s min %g max %g mean %g\n", i, t->name, s, lo_v, hi_v,
                               cnt ? sum_v / (double) cnt : 0.0);
                }
                printf("init %llu us, first invoke %llu us, %ld run%s: avg %llu us, min %llu us, max %llu us\n",
                       (unsigned long long) init_us, (unsigned long long) first, runs, runs == 1 ? "" : "s",
                       (unsigned long long) (sum / (uint64_t) runs), (unsigned long long) lo,
                       (unsigned long long) hi);
        }
        return 0;
}
