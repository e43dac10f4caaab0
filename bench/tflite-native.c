/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tflite-native: the performance yardstick. Times a model with native
 * TensorFlow Lite's C library (libtensorflowlite_c.so, e.g. the one in the
 * npm package tfjs-tflite-node@0.0.2, cc_deps/linux_amd64/, fetched by
 * bench/fetch-native-tflite.sh) with the flags and the output of
 * accel-benchmark, so both can be run side by side (bench/compare-native.sh):
 *
 *   tflite-native --lib=libtensorflowlite_c.so --graph=m.tflite
 *       [--num_threads=N] [--warmup_runs=N] [--num_runs=N] [--min_secs=S] [--min_sample_us=US]
 *       [--use_xnnpack=true|false] [--xnnpack_quantized=true|false|qs8|qu8]
 *       [--input_layer_value_files=name:file,name:file]
 *       [--check-golden=DIR] [--json]
 *
 * The library is dlopen()ed at run time and never linked: it is an optional
 * benchmark aid, not a build or test dependency. The few C API entry points
 * used are declared here with the types of TensorFlow Lite 2.9's c_api.h.
 *
 * XNNPACK: without --use_xnnpack the library's own default applies. With
 * --use_xnnpack=true an XNNPACK delegate is created explicitly (exported by
 * the library as TfLiteXNNPackDelegateCreate) with --num_threads threads;
 * --xnnpack_quantized=true also sets its QS8 and QU8 flags (qs8 or qu8: one of
 * them) so integer models go to XNNPACK too; that support is experimental in
 * this release and XNNPACK refuses some graphs with it (exit 1). --use_xnnpack=false runs the builtin kernels; it is refused
 * (exit 3) when the library turns out to apply XNNPACK by itself, because
 * the C API has no switch to stop that. Whether XNNPACK was active is read
 * from the library's own log line ("Created TensorFlow Lite XNNPACK delegate
 * for CPU."), captured while the interpreter is built and first run, and
 * reported as "xnnpack" in the JSON output.
 *
 * --check-golden=DIR (DIR = <shared>/models/golden/<model>) loads
 * DIR/input_<i>.bin into the inputs, runs one inference on the fresh
 * interpreter and compares every output with DIR/output_<i>.bin by the rule
 * of <shared>/models/README.md (tolerance "reference" without XNNPACK,
 * "accelerated" with it); exit 4 when an output fails.
 *
 * Inputs are otherwise filled with the same pseudo-random pattern as
 * accel-benchmark. With --json one object:
 * {"init_us", "first_inference_us", "warmup_avg_us",
 *  "inference_us": {"min", "median", "p90", "max", "avg", "count"}
 *  (microseconds with three decimals, timed in nanoseconds), "batch" (with
 *  --min_sample_us only: that many consecutive invokes are timed as one
 *  sample, and the sample is their mean, so that a sample lasts at least
 *  US microseconds; bench_batch_size()), "cpu_us_per_run" (user+sys of all
 *  threads over the timed runs, per run),
 *  "peak_memory_kb", "partitions": [], "native": {"version", "xnnpack",
 *  "golden"}}.
 *
 * Exit codes: 0 done, 1 error, 2 usage, 3 the library cannot do what was
 * asked, 4 golden mismatch.
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "file-read.h"
#include "clock.h"
#include "bench-util.h"
#include "cleanup.h"
#include "golden.h"

/* TensorFlow Lite C API types, from its c_api.h / c_api_types.h (2.9). */
typedef struct TfLiteModel TfLiteModel;
typedef struct TfLiteInterpreterOptions TfLiteInterpreterOptions;
typedef struct TfLiteInterpreter TfLiteInterpreter;
typedef struct TfLiteTensor TfLiteTensor;
typedef struct TfLiteDelegate TfLiteDelegate;
typedef int TfLiteStatus; /* kTfLiteOk == 0 */

enum {
        TFL_TYPE_FLOAT32 = 1,
        TFL_TYPE_INT32 = 2,
        TFL_TYPE_INT64 = 4,
        TFL_TYPE_STRING = 5,
};

/*
 * TfLiteXNNPackDelegateOptions of this release: {int32 num_threads; uint32
 * flags} (8 bytes; TfLiteXNNPackDelegateOptionsDefault returns it in RAX and
 * TfLiteXNNPackDelegateCreate copies 8 bytes). Later releases append fields;
 * the padding keeps a pointer to this struct safe for them, and the fields
 * are set explicitly rather than taken from the by-value default.
 */
typedef struct tfl_xnnpack_options {
        int32_t num_threads;
        uint32_t flags;
        uint8_t reserved[56];
} tfl_xnnpack_options_t;

#define TFL_XNNPACK_FLAG_QS8 0x1u
#define TFL_XNNPACK_FLAG_QU8 0x2u

#define TFL_XNNPACK_LOG_LINE "Created TensorFlow Lite XNNPACK delegate for CPU."

typedef struct tfl_api {
        void *dl;
        const char *(*version)(void);
        TfLiteModel *(*model_create_from_file)(const char *path);
        void (*model_delete)(TfLiteModel *m);
        TfLiteInterpreterOptions *(*options_create)(void);
        void (*options_delete)(TfLiteInterpreterOptions *o);
        void (*options_set_num_threads)(TfLiteInterpreterOptions *o, int32_t n);
        void (*options_add_delegate)(TfLiteInterpreterOptions *o, TfLiteDelegate *d);
        void (*options_set_error_reporter)(TfLiteInterpreterOptions *o,
                                           void (*reporter)(void *user_data, const char *format, va_list args),
                                           void *user_data);
        TfLiteInterpreter *(*interpreter_create)(const TfLiteModel *m, const TfLiteInterpreterOptions *o);
        void (*interpreter_delete)(TfLiteInterpreter *it);
        int32_t (*input_count)(const TfLiteInterpreter *it);
        TfLiteTensor *(*input_tensor)(const TfLiteInterpreter *it, int32_t i);
        int32_t (*output_count)(const TfLiteInterpreter *it);
        const TfLiteTensor *(*output_tensor)(const TfLiteInterpreter *it, int32_t i);
        TfLiteStatus (*allocate_tensors)(TfLiteInterpreter *it);
        TfLiteStatus (*invoke)(TfLiteInterpreter *it);
        int (*tensor_type)(const TfLiteTensor *t);
        size_t (*tensor_byte_size)(const TfLiteTensor *t);
        void *(*tensor_data)(const TfLiteTensor *t);
        const char *(*tensor_name)(const TfLiteTensor *t);
        TfLiteStatus (*tensor_copy_from_buffer)(TfLiteTensor *t, const void *data, size_t size);
        /* Optional: XNNPACK delegate, when the library exports it. */
        TfLiteDelegate *(*xnnpack_create)(const tfl_xnnpack_options_t *o);
        void (*xnnpack_delete)(TfLiteDelegate *d);
} tfl_api_t;

typedef struct args {
        const char *lib;
        const char *graph;
        int32_t num_threads;
        int warmup_runs;
        int num_runs;
        double min_secs;
        double min_sample_us;   /* --min_sample_us: invokes per sample (bench_batch_size()) */
        bool use_xnnpack;
        bool use_xnnpack_set;
        uint32_t xnnpack_flags; /* TFL_XNNPACK_FLAG_* from --xnnpack_quantized */
        const char *value_files;
        const char *golden_dir;
        bool json;
} args_t;

static void usage(FILE *f) {
        fprintf(f, "usage: tflite-native --lib=libtensorflowlite_c.so --graph=MODEL [--num_threads=N]\n"
                   "       [--warmup_runs=N] [--num_runs=N] [--min_secs=S] [--min_sample_us=US] [--use_xnnpack=BOOL]\n"
                   "       [--xnnpack_quantized=BOOL|qs8|qu8] [--input_layer_value_files=NAME:FILE,...]\n"
                   "       [--check-golden=DIR] [--json]\n");
}

static int args_parse(int argc, char **argv, args_t *a) {
        *a = (args_t) { .num_threads = -1, .warmup_runs = 1, .num_runs = 50, .min_secs = 1.0 };
        for (int i = 1; i < argc; i++) {
                const char *s, *v;
                size_t klen;
                if (!bench_flag_split(argv[i], &s, &klen, &v)) {
                        fprintf(stderr, "tflite-native: unexpected argument '%s'\n", argv[i]);
                        return -EINVAL;
                }
#define KEY(k) bench_flag_is(s, klen, k)
                if (KEY("help")) {
                        usage(stdout);
                        exit(0);
                } else if (KEY("lib") && v)
                        a->lib = v;
                else if (KEY("graph") && v)
                        a->graph = v;
                else if (KEY("num_threads") && v)
                        a->num_threads = atoi(v);
                else if (KEY("warmup_runs") && v)
                        a->warmup_runs = atoi(v);
                else if (KEY("num_runs") && v)
                        a->num_runs = atoi(v);
                else if (KEY("min_secs") && v)
                        a->min_secs = atof(v);
                else if (KEY("min_sample_us") && v)
                        a->min_sample_us = atof(v);
                else if (KEY("use_xnnpack")) {
                        a->use_xnnpack = bench_parse_bool(v);
                        a->use_xnnpack_set = true;
                } else if (KEY("xnnpack_quantized")) {
                        if (v && strcmp(v, "qs8") == 0)
                                a->xnnpack_flags = TFL_XNNPACK_FLAG_QS8;
                        else if (v && strcmp(v, "qu8") == 0)
                                a->xnnpack_flags = TFL_XNNPACK_FLAG_QU8;
                        else
                                a->xnnpack_flags = bench_parse_bool(v) ? TFL_XNNPACK_FLAG_QS8 | TFL_XNNPACK_FLAG_QU8 : 0;
                }
                else if (KEY("input_layer_value_files") && v)
                        a->value_files = v;
                else if ((KEY("check-golden") || KEY("check_golden")) && v)
                        a->golden_dir = v;
                else if (KEY("json"))
                        a->json = bench_parse_bool(v);
                else {
                        fprintf(stderr, "tflite-native: unknown or incomplete flag '%s'\n", argv[i]);
                        return -EINVAL;
                }
#undef KEY
        }
        if (!a->lib || !a->graph) {
                usage(stderr);
                return -EINVAL;
        }
        if (a->num_runs < 1 || a->warmup_runs < 0 || a->min_secs < 0 || (a->num_threads < 1 && a->num_threads != -1)) {
                fprintf(stderr, "tflite-native: invalid run counts or thread count\n");
                return -EINVAL;
        }
        if (a->xnnpack_flags && !(a->use_xnnpack_set && a->use_xnnpack)) {
                fprintf(stderr, "tflite-native: --xnnpack_quantized needs --use_xnnpack=true\n");
                return -EINVAL;
        }
        return 0;
}

static int api_load(const char *path, tfl_api_t *api) {
        *api = (tfl_api_t) { .dl = NULL };
        /* RTLD_LOCAL: the library's bundled XNNPACK must not resolve against
         * (or interpose on) any other copy in the process. */
        api->dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        if (!api->dl) {
                fprintf(stderr, "tflite-native: %s\n", dlerror());
                return -ENOENT;
        }
        struct {
                const char *name;
                void **slot;
                bool required;
        } syms[] = {
#define SYM(field, name, req) { name, (void **) &api->field, req }
                SYM(version, "TfLiteVersion", true),
                SYM(model_create_from_file, "TfLiteModelCreateFromFile", true),
                SYM(model_delete, "TfLiteModelDelete", true),
                SYM(options_create, "TfLiteInterpreterOptionsCreate", true),
                SYM(options_delete, "TfLiteInterpreterOptionsDelete", true),
                SYM(options_set_num_threads, "TfLiteInterpreterOptionsSetNumThreads", true),
                SYM(options_add_delegate, "TfLiteInterpreterOptionsAddDelegate", true),
                SYM(options_set_error_reporter, "TfLiteInterpreterOptionsSetErrorReporter", true),
                SYM(interpreter_create, "TfLiteInterpreterCreate", true),
                SYM(interpreter_delete, "TfLiteInterpreterDelete", true),
                SYM(input_count, "TfLiteInterpreterGetInputTensorCount", true),
                SYM(input_tensor, "TfLiteInterpreterGetInputTensor", true),
                SYM(output_count, "TfLiteInterpreterGetOutputTensorCount", true),
                SYM(output_tensor, "TfLiteInterpreterGetOutputTensor", true),
                SYM(allocate_tensors, "TfLiteInterpreterAllocateTensors", true),
                SYM(invoke, "TfLiteInterpreterInvoke", true),
                SYM(tensor_type, "TfLiteTensorType", true),
                SYM(tensor_byte_size, "TfLiteTensorByteSize", true),
                SYM(tensor_data, "TfLiteTensorData", true),
                SYM(tensor_name, "TfLiteTensorName", true),
                SYM(tensor_copy_from_buffer, "TfLiteTensorCopyFromBuffer", true),
                SYM(xnnpack_create, "TfLiteXNNPackDelegateCreate", false),
                SYM(xnnpack_delete, "TfLiteXNNPackDelegateDelete", false),
#undef SYM
        };
        for (size_t i = 0; i < ELEMENTSOF(syms); i++) {
                *syms[i].slot = dlsym(api->dl, syms[i].name);
                if (!*syms[i].slot && syms[i].required) {
                        fprintf(stderr, "tflite-native: %s: missing symbol %s\n", path, syms[i].name);
                        return -ENOSYS;
                }
        }
        if (!api->xnnpack_create || !api->xnnpack_delete)
                api->xnnpack_create = NULL, api->xnnpack_delete = NULL;
        return 0;
}

static void error_reporter(void *user_data, const char *format, va_list args) {
        (void) user_data;
        fputs("tflite-native: tflite: ", stderr);
        vfprintf(stderr, format, args);
        fputc('\n', stderr);
}

/*
 * Capture fd 2 into a temporary file while the library builds and first
 * runs the interpreter, so its log lines can be inspected; they are echoed
 * to the real stderr afterwards.
 */
typedef struct stderr_capture {
        FILE *tmp;
        int saved;
} stderr_capture_t;

static void stderr_capture_begin(stderr_capture_t *c) {
        *c = (stderr_capture_t) { .saved = -1 };
        fflush(stderr);
        c->tmp = tmpfile();
        if (!c->tmp)
                return;
        c->saved = dup(STDERR_FILENO);
        if (c->saved < 0 || dup2(fileno(c->tmp), STDERR_FILENO) < 0) {
                if (c->saved >= 0)
                        (void) close(c->saved);
                c->saved = -1;
        }
}

/* Restore stderr; return whether `needle` was logged meanwhile. */
static bool stderr_capture_end(stderr_capture_t *c, const char *needle) {
        bool found = false;
        fflush(stderr);
        if (c->saved >= 0) {
                (void) dup2(c->saved, STDERR_FILENO);
                (void) close(c->saved);
        }
        if (c->tmp) {
                char line[4096];
                rewind(c->tmp);
                while (fgets(line, sizeof(line), c->tmp)) {
                        if (strstr(line, needle))
                                found = true;
                        fputs(line, stderr);
                }
                fclose(c->tmp);
        }
        *c = (stderr_capture_t) { .saved = -1 };
        return found;
}

static int file_into_tensor(const tfl_api_t *api, TfLiteTensor *t, const char *path) {
        _cleanup_free_ void *data = NULL;
        size_t size = 0;
        int r = acc_file_read(path, &data, &size);
        if (r < 0) {
                fprintf(stderr, "tflite-native: %s: %s\n", path, strerror(-r));
                return r;
        }
        size_t want = api->tensor_byte_size(t);
        if (api->tensor_type(t) == TFL_TYPE_STRING) {
                /* Dynamic tensors have no size until written, and the C API
                 * of this release has no call that writes one. */
                fprintf(stderr, "tflite-native: input '%s' is a string tensor, which the C API cannot fill\n",
                        api->tensor_name(t));
                return -ENOTSUP;
        }
        if (size != want) {
                fprintf(stderr, "tflite-native: %s: %zu bytes, input '%s' needs %zu\n", path, size,
                        api->tensor_name(t), want);
                return -EINVAL;
        }
        if (api->tensor_copy_from_buffer(t, data, size) != 0) {
                fprintf(stderr, "tflite-native: %s: copy into input '%s' failed\n", path, api->tensor_name(t));
                return -EIO;
        }
        return 0;
}

/* Fill input i from its golden, its value file (name:path), else a pattern. */
static int input_fill(const tfl_api_t *api, TfLiteInterpreter *it, int32_t i, const args_t *a) {
        TfLiteTensor *t = api->input_tensor(it, i);
        if (!t)
                return -EINVAL;
        const char *name = api->tensor_name(t);
        if (!name)
                name = "";
        if (a->golden_dir) {
                char path[PATH_MAX];
                snprintf(path, sizeof(path), "%s/input_%d.bin", a->golden_dir, i);
                return file_into_tensor(api, t, path);
        }
        size_t nlen = strlen(name);
        for (const char *p = a->value_files; p && *p;) {
                const char *end = strchr(p, ',');
                size_t len = end ? (size_t) (end - p) : strlen(p);
                if (len > nlen + 1 && strncmp(p, name, nlen) == 0 && p[nlen] == ':') {
                        _cleanup_free_ char *path = strndup(p + nlen + 1, len - nlen - 1);
                        if (!path)
                                return -ENOMEM;
                        return file_into_tensor(api, t, path);
                }
                p = end ? end + 1 : NULL;
        }
        /* The same pattern as accel-benchmark, so both time identical data. */
        size_t bytes = api->tensor_byte_size(t);
        uint8_t *data = api->tensor_data(t);
        if (!data)
                return bytes ? -EINVAL : 0;
        int type = api->tensor_type(t);
        uint32_t x = 12345u + (uint32_t) i;
        for (size_t k = 0; k < bytes; k++) {
                x = x * 1103515245u + 12345u;
                data[k] = (uint8_t) (x >> 16);
        }
        if (type == TFL_TYPE_FLOAT32) {
                float *f = (float *) data;
                for (size_t k = 0; k < bytes / 4; k++) {
                        x = x * 1103515245u + 12345u;
                        f[k] = (float) ((x >> 8) & 0xffff) / 32768.0f - 1.0f;
                }
        } else if (type == TFL_TYPE_INT32 || type == TFL_TYPE_INT64) {
                memset(data, 0, bytes); /* indices: stay in range */
        }
        return 0;
}

/* <shared>/models/golden/<model> -> <shared> and <model>. */
static int golden_dir_split(const char *dir, char *shared, size_t shared_size, char *model, size_t model_size) {
        char real[PATH_MAX];
        if (!realpath(dir, real))
                return -errno;
        char *base = strrchr(real, '/');
        if (!base || base == real)
                return -EINVAL;
        *base++ = '\0';
        if ((size_t) snprintf(model, model_size, "%s", base) >= model_size)
                return -ENAMETOOLONG;
        for (int up = 0; up < 2; up++) {
                char *slash = strrchr(real, '/');
                if (!slash)
                        return -EINVAL;
                *slash = '\0';
        }
        if ((size_t) snprintf(shared, shared_size, "%s", real[0] ? real : "/") >= shared_size)
                return -ENAMETOOLONG;
        return 0;
}

typedef struct golden_verdict {
        bool checked;
        bool pass;
        bool bit_exact;
        double worst_score;
        const char *tolerance;
} golden_verdict_t;

/* Compare every output with its golden; prints one line per output. */
static int golden_check(const tfl_api_t *api, TfLiteInterpreter *it, const char *dir, bool xnnpack,
                        golden_verdict_t *v) {
        char shared[PATH_MAX], name[256], err[512] = "";
        int r = golden_dir_split(dir, shared, sizeof(shared), name, sizeof(name));
        if (r < 0) {
                fprintf(stderr, "tflite-native: --check-golden=%s: not <shared>/models/golden/<model>\n", dir);
                return r;
        }
        golden_manifest_t *m = NULL;
        r = golden_manifest_load(shared, &m, err, sizeof(err));
        if (r < 0) {
                fprintf(stderr, "tflite-native: manifest under %s: %s\n", shared, err[0] ? err : strerror(-r));
                return r;
        }
        const golden_model_t *gm = golden_manifest_find(m, name);
        if (!gm) {
                fprintf(stderr, "tflite-native: model '%s' is not in the manifest\n", name);
                golden_manifest_free(m);
                return -ENOENT;
        }
        int32_t n = api->output_count(it);
        if ((size_t) n != gm->n_outputs) {
                fprintf(stderr, "tflite-native: %d outputs, the manifest lists %zu\n", n, gm->n_outputs);
                golden_manifest_free(m);
                return -EINVAL;
        }
        golden_tol_kind_t kind = xnnpack ? GOLDEN_TOL_ACCELERATED : GOLDEN_TOL_REFERENCE;
        *v = (golden_verdict_t) { .checked = true, .pass = true, .bit_exact = true,
                                  .tolerance = xnnpack ? "accelerated" : "reference" };
        for (int32_t i = 0; i < n && r >= 0; i++) {
                const TfLiteTensor *t = api->output_tensor(it, i);
                const golden_tensor_t *g = &gm->outputs[i];
                _cleanup_free_ void *want = NULL;
                size_t want_size = 0;
                r = acc_file_read(g->path, &want, &want_size);
                if (r < 0) {
                        fprintf(stderr, "tflite-native: %s: %s\n", g->path, strerror(-r));
                        break;
                }
                const void *got = api->tensor_data(t);
                size_t got_size = api->tensor_byte_size(t);
                golden_result_t res;
                r = golden_compare(g, kind, got, got_size, want, want_size, &res);
                if (r < 0) {
                        fprintf(stderr, "tflite-native: output %d '%s': no %s tolerance for this type\n", i,
                                g->name, v->tolerance);
                        break;
                }
                bool exact = got_size == want_size && (got_size == 0 || memcmp(got, want, got_size) == 0);
                v->pass = v->pass && res.pass;
                v->bit_exact = v->bit_exact && exact;
                if (res.score > v->worst_score)
                        v->worst_score = res.score;
                fprintf(stderr, "tflite-native: golden %s output %d '%s': %s%s (score %.3g, max err %.3g, %zu/%zu "
                                "mismatches, tolerance %s)%s%s\n",
                        name, i, g->name, res.pass ? "pass" : "FAIL", exact ? ", bit-exact" : "", res.score,
                        res.max_err, res.mismatches, res.elements, v->tolerance, res.message[0] ? ": " : "",
                        res.message);
        }
        golden_manifest_free(m);
        return r;
}

/* Everything the run owns, released in reverse order by run_done(). */
typedef struct run {
        tfl_api_t api;
        TfLiteModel *model;
        TfLiteInterpreterOptions *options;
        TfLiteDelegate *delegate;
        TfLiteInterpreter *interp;
        uint64_t *times;
} run_t;

static void run_done(run_t *r) {
        /* The interpreter must go before the delegate it uses. */
        if (r->interp)
                r->api.interpreter_delete(r->interp);
        if (r->delegate)
                r->api.xnnpack_delete(r->delegate);
        if (r->options)
                r->api.options_delete(r->options);
        if (r->model)
                r->api.model_delete(r->model);
        free(r->times);
        /* The library is not dlclose()d: its thread pools may still be
         * winding down, and the process is about to exit anyway. */
}

static int invoke(run_t *r) {
        if (r->api.invoke(r->interp) != 0) {
                fprintf(stderr, "tflite-native: invoke failed\n");
                return -EIO;
        }
        return 0;
}

static int invoke_fn(void *r) {
        return invoke(r);
}

static int run(const args_t *a) {
        _cleanup_(run_done) run_t r = { .model = NULL };
        tfl_api_t *api = &r.api;
        if (api_load(a->lib, api) < 0)
                return 1;
        const char *version = api->version();
        if (!version)
                version = "?";
        bool want_xnnpack = a->use_xnnpack_set && a->use_xnnpack;
        if (want_xnnpack && !api->xnnpack_create) {
                fprintf(stderr, "tflite-native: %s does not export TfLiteXNNPackDelegateCreate\n", a->lib);
                return 3;
        }

        uint64_t t0 = acc_now_us();
        stderr_capture_t cap;
        stderr_capture_begin(&cap);
        r.model = api->model_create_from_file(a->graph);
        r.options = api->options_create();
        if (r.model && r.options) {
                api->options_set_error_reporter(r.options, error_reporter, NULL);
                if (a->num_threads > 0)
                        api->options_set_num_threads(r.options, a->num_threads);
                if (want_xnnpack) {
                        tfl_xnnpack_options_t xo = { .num_threads = a->num_threads > 0 ? a->num_threads : 0 };
                        xo.flags = a->xnnpack_flags;
                        r.delegate = api->xnnpack_create(&xo);
                        if (r.delegate)
                                api->options_add_delegate(r.options, r.delegate);
                }
                if (!want_xnnpack || r.delegate)
                        r.interp = api->interpreter_create(r.model, r.options);
        }
        bool allocated = r.interp && api->allocate_tensors(r.interp) == 0;
        bool xnnpack = stderr_capture_end(&cap, TFL_XNNPACK_LOG_LINE);
        if (!r.model) {
                fprintf(stderr, "tflite-native: %s: cannot load the model\n", a->graph);
                return 1;
        }
        if (!r.options || (want_xnnpack && !r.delegate)) {
                fprintf(stderr, "tflite-native: cannot create the interpreter options or the XNNPACK delegate\n");
                return 1;
        }
        if (!r.interp || !allocated) {
                fprintf(stderr, "tflite-native: %s: cannot %s\n", a->graph,
                        r.interp ? "allocate tensors" : "create the interpreter");
                return 1;
        }
        for (int32_t i = 0; i < api->input_count(r.interp); i++)
                if (input_fill(api, r.interp, i, a) < 0)
                        return 1;
        uint64_t init_us = acc_now_us() - t0;

        /* A default delegate may be applied lazily, so the first inference is
         * watched as well. */
        stderr_capture_begin(&cap);
        uint64_t t1 = acc_now_us();
        int ir = invoke(&r);
        uint64_t first_us = acc_now_us() - t1;
        xnnpack = stderr_capture_end(&cap, TFL_XNNPACK_LOG_LINE) || xnnpack;
        if (ir < 0)
                return 1;
        static const char *const delegate_modes[] = {
                [0] = "delegate",
                [TFL_XNNPACK_FLAG_QS8] = "delegate+qs8",
                [TFL_XNNPACK_FLAG_QU8] = "delegate+qu8",
                [TFL_XNNPACK_FLAG_QS8 | TFL_XNNPACK_FLAG_QU8] = "delegate+qs8+qu8",
        };
        const char *xnnpack_mode = want_xnnpack ? delegate_modes[a->xnnpack_flags & 3u] : xnnpack ? "default" : "off";
        if (a->use_xnnpack_set && !a->use_xnnpack && xnnpack) {
                fprintf(stderr, "tflite-native: %s applies XNNPACK by default and the C API cannot turn it off\n",
                        a->lib);
                return 3;
        }
        if (want_xnnpack && !xnnpack)
                fprintf(stderr, "tflite-native: warning: XNNPACK delegate created but its log line was not seen\n");

        golden_verdict_t verdict = { .checked = false };
        if (a->golden_dir && golden_check(api, r.interp, a->golden_dir, xnnpack, &verdict) < 0)
                return 1;

        uint64_t warm_total = 0;
        for (int i = 0; i < a->warmup_runs; i++) {
                uint64_t w = acc_now_ns();
                if (invoke(&r) < 0)
                        return 1;
                warm_total += acc_now_ns() - w;
        }
        const double warm_ns = a->warmup_runs ? (double) warm_total / a->warmup_runs : (double) first_us * 1e3;
        const int batch = bench_batch_size(warm_ns, a->min_sample_us);
        size_t n = 0;
        double cpu_per_run = 0;
        /* The process's CPU time (every thread: the caller and the
         * delegate's pool) per timed inference. */
        if (bench_samples_run(invoke_fn, &r, a->num_runs, a->min_secs, batch, &r.times, &n, &cpu_per_run) < 0 ||
            n == 0)
                return 1;
        bench_stats_t st;
        bench_stats_compute(r.times, n, &st);
        double warm_avg = a->warmup_runs ? warm_ns / 1e3 : 0.0;
        long peak = bench_peak_kb();
        if (a->json) {
                printf("{\"init_us\": %llu, \"first_inference_us\": %llu, \"warmup_avg_us\": %.3f, "
                       "\"inference_us\": ",
                       (unsigned long long) init_us, (unsigned long long) first_us, warm_avg);
                bench_stats_print_us(&st);
                if (a->min_sample_us > 0)
                        printf(", \"batch\": %d", batch);
                printf(", \"cpu_us_per_run\": %.3f, \"peak_memory_kb\": %ld, "
                       "\"partitions\": [], \"native\": {\"version\": \"%s\", \"xnnpack\": \"%s\", \"golden\": ",
                       cpu_per_run, peak, version, xnnpack_mode);
                if (verdict.checked)
                        printf("{\"pass\": %s, \"bit_exact\": %s, \"score\": %.4g, \"tolerance\": \"%s\"}}}\n",
                               verdict.pass ? "true" : "false", verdict.bit_exact ? "true" : "false",
                               verdict.worst_score, verdict.tolerance);
                else
                        printf("null}}\n");
        } else {
                printf("Graph: [%s]\n", a->graph);
                printf("Library: [%s] TensorFlow Lite %s, XNNPACK: %s\n", a->lib, version, xnnpack_mode);
                printf("Initialized in %.3f ms\n", (double) init_us / 1000.0);
                printf("First inference: %llu us\n", (unsigned long long) first_us);
                printf("Warmup (avg): %.1f us over %d runs\n", warm_avg, a->warmup_runs);
                printf("Inference timings in us: count=%zu min=%.3f median=%.3f p90=%.3f max=%.3f avg=%.3f "
                       "(%d invokes per sample)\n",
                       n, (double) st.min / 1e3, (double) st.median / 1e3, (double) st.p90 / 1e3,
                       (double) st.max / 1e3, st.avg / 1e3, batch);
                printf("Peak memory footprint (KB): %ld\n", peak);
                if (verdict.checked)
                        printf("Golden: %s%s (worst score %.3g, tolerance %s)\n", verdict.pass ? "pass" : "FAIL",
                               verdict.bit_exact ? ", bit-exact" : "", verdict.worst_score, verdict.tolerance);
        }
        fflush(stdout);
        return verdict.checked && !verdict.pass ? 4 : 0;
}

int main(int argc, char **argv) {
        args_t a;
        if (args_parse(argc, argv, &a) < 0)
                return 2;
        return run(&a);
}
