/* SPDX-License-Identifier: Apache-2.0 */
/*
 * difftest: differential testing of the runtime against native TensorFlow
 * Lite 2.9, op by op. Each case is a small model built from a seed (dt.h);
 * it runs on TensorFlow Lite's builtin kernels (libtensorflowlite_c.so,
 * 1 thread), on our reference kernels and on our XNNPACK driver, and the
 * outputs are compared (docs/conformance.md gives the rule):
 *
 *   reference, integer outputs      bit-exact
 *   reference, float outputs        |a-b| <= 4 ulp(b) + accum * 4 eps * M
 *                                   (M = largest finite |golden| of the output,
 *                                   or of a float input when accum > 1,
 *                                   accum = terms summed per element; 0 for
 *                                   elementwise ops)
 *   reference, DEQUANTIZE outputs   the same quantized value (|a-b| < step/2)
 *   XNNPACK                         the accelerated rule of the shared models'
 *                                   README: float |a-b| <= 1e-4 (1 + M) + 1e-3 |b|,
 *                                   quantized 2 steps, other integers exact
 *   NaN must meet NaN and an infinity the same infinity, everywhere.
 *
 *   difftest [--lib PATH] [--seed S] [--cases N] [--seconds S] [--ops A,B,...]
 *            [--exclude A,B,...] [--op NAME --case SEED] [--save DIR] [--drivers ref,xnnpack]
 *            [--matrix] [--list] [--quiet]   (--quiet: no header line)
 *
 * ACCELD_DIFFTEST_SEED, when set, is added to --seed (CI sets it from the
 * commit; the header line prints the seed that results).
 *
 * Exit: 0 no mismatch, 1 mismatches, 2 usage, 77 the library is absent.
 */
#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>

#include "clock.h"
#include "dt.h"
#include "native.h"
#include "rt.h"

typedef struct stat_row {
        const char *op;
        const char *type;
        uint64_t cases, skipped;
        uint64_t fail[2];
} stat_row_t;

typedef struct run_ctx {
        dt_native_t *native;
        const char *save_dir;
        bool drivers[2]; /* reference, xnnpack */
        bool quiet;
        stat_row_t rows[1024];
        size_t n_rows;
        uint64_t cases, skipped, fail[2];
        bool native_xnnpack;      /* TFLite's XNNPACK delegate is available */
        uint64_t via_delegate;    /* XNNPACK cases that matched only TFLite + its XNNPACK delegate */
} run_ctx_t;

static const char *const driver_names[2] = { "reference", "xnnpack" };

typedef struct gen_ref {
        const dt_gen_t *g;
} gen_ref_t;

static gen_ref_t all_gens[256];
static size_t n_all_gens;

static void gens_collect(void) {
        const struct {
                const dt_gen_t *v;
                size_t n;
        } fams[] = { { dt_gens_ew, dt_gens_ew_n }, { dt_gens_conv, dt_gens_conv_n }, { dt_gens_shape, dt_gens_shape_n },
                     { dt_gens_more, dt_gens_more_n }, { dt_gens_layout, dt_gens_layout_n },
                     { dt_gens_chain, dt_gens_chain_n }, { dt_gens_seq, dt_gens_seq_n },
                     { dt_gens_misc, dt_gens_misc_n } };
        for (size_t f = 0; f < sizeof(fams) / sizeof(fams[0]); f++)
                for (size_t i = 0; i < fams[f].n && n_all_gens < 256; i++)
                        all_gens[n_all_gens++].g = &fams[f].v[i];
}

static const dt_gen_t *gen_find(const char *name) {
        for (size_t i = 0; i < n_all_gens; i++)
                if (strcmp(all_gens[i].g->name, name) == 0)
                        return all_gens[i].g;
        return NULL;
}

static stat_row_t *row_get(run_ctx_t *x, const char *op, const char *type) {
        for (size_t i = 0; i < x->n_rows; i++)
                if (strcmp(x->rows[i].op, op) == 0 && strcmp(x->rows[i].type, type) == 0)
                        return &x->rows[i];
        if (x->n_rows >= sizeof(x->rows) / sizeof(x->rows[0]))
                return &x->rows[x->n_rows - 1];
        x->rows[x->n_rows] = (stat_row_t) { .op = op, .type = type };
        return &x->rows[x->n_rows++];
}

static void case_done(dt_case_t *c) {
        for (int i = 0; i < c->n_in; i++)
                free(c->in[i].data);
        tfb_free(c->b);
        memset(c, 0, sizeof(*c));
}

/* Build case `seed` of generator g. 0, -ENOTSUP (not built) or -errno. */
static int case_build(const dt_gen_t *g, uint64_t seed, dt_case_t *c, uint8_t **model, size_t *size) {
        *c = (dt_case_t) { .seed = seed, .op = g->name };
        c->b = tfb_new();
        if (!c->b)
                return -ENOMEM;
        dt_rng_t r = { seed };
        c->edges = dt_chance(&r, 0.25);
        int ret = g->fn(c, &r);
        if (ret < 0)
                return ret;
        for (int i = 0; i < c->n_dq; i++) {
                ret = dt_op(c, RT_BUILTIN_DEQUANTIZE, 2, TFB_IDS(c->dq[i][0]), 1, TFB_IDS(c->dq[i][1]), 1, 0, NULL, 0);
                if (ret < 0)
                        return ret;
        }
        int32_t ins[DT_MAX_IO], outs[DT_MAX_IO];
        for (int i = 0; i < c->n_in; i++)
                ins[i] = c->in[i].tensor;
        for (int i = 0; i < c->n_out; i++)
                outs[i] = c->out[i].tensor;
        if (tfb_io(c->b, ins, c->n_in, outs, c->n_out) < 0)
                return -ENOMEM;
        *model = tfb_finish(c->b, size);
        return *model ? 0 : -ENOMEM;
}

/* Run on our runtime. Returns 0 and malloc'ed outputs, or -errno with err. */
static int ours_run_here(const uint8_t *model, size_t size, const dt_case_t *c, bool xnnpack, void **outs,
                    size_t *out_sizes, char *err, size_t err_size) {
        rt_model_t *m = NULL;
        rt_interp_t *it = NULL;
        int r = rt_model_load_buffer(model, size, true, &m, err, err_size);
        if (r < 0)
                return r;
        rt_interp_options_t *o = rt_interp_options_new();
        if (!o) {
                rt_model_free(m);
                return -ENOMEM;
        }
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
        const char *stage = "allocate";
        if (r == 0)
                r = rt_interp_allocate_tensors(it);
        for (int i = 0; r == 0 && i < c->n_in; i++) {
                stage = "copy in";
                r = rt_interp_copy_in(it, i, c->in[i].data, c->in[i].bytes);
        }
        if (r == 0) {
                stage = "invoke";
                r = rt_interp_invoke(it);
        }
        if (r < 0 && it)
                snprintf(err, err_size, "%s: %s", stage, rt_interp_last_error(it));
        for (int i = 0; r == 0 && i < c->n_out; i++) {
                const rt_tensor_t *t = rt_interp_output_tensor(it, i);
                size_t bytes = t && t->data ? (size_t) rt_tensor_count(t) * rt_type_size(t->type) : 0;
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


static int read_full(int fd, void *buf, size_t n) {
        uint8_t *p = buf;
        while (n) {
                ssize_t k = read(fd, p, n);
                if (k < 0 && errno == EINTR)
                        continue;
                if (k <= 0)
                        return -EIO;
                p += k, n -= (size_t) k;
        }
        return 0;
}

static void write_full(int fd, const void *buf, size_t n) {
        const uint8_t *p = buf;
        while (n) {
                ssize_t k = write(fd, p, n);
                if (k < 0 && errno == EINTR)
                        continue;
                if (k <= 0)
                        _exit(3);
                p += k, n -= (size_t) k;
        }
}

/*
 * Run on our runtime in a child process, so that an abort inside a driver
 * (an assertion in XNNPACK) is reported as a mismatch of that case rather
 * than ending the run. The child sends r, the error text and the outputs.
 */
typedef struct runner {
        dt_native_t *native; /* NULL: our runtime */
        bool xnnpack;        /* ours: the XNNPACK driver; TFLite: its XNNPACK delegate */
} runner_t;

/* In the child: 0 or -errno for ours; the output count or -errno for TFLite. */
static int runner_here(const runner_t *rn, const uint8_t *model, size_t size, const dt_case_t *c, void **outs,
                       size_t *out_sizes, char *err, size_t err_size) {
        if (!rn->native)
                return ours_run_here(model, size, c, rn->xnnpack, outs, out_sizes, err, err_size);
        void *ins[DT_MAX_IO];
        size_t in_sizes[DT_MAX_IO];
        for (int i = 0; i < c->n_in; i++)
                ins[i] = c->in[i].data, in_sizes[i] = c->in[i].bytes;
        if (rn->xnnpack) { /* in the child only */
                if (dt_native_use_xnnpack(rn->native, true) < 0)
                        return -ENOSYS;
                /* Quiet its "Created TensorFlow Lite XNNPACK delegate" notice. */
                int null_fd = open("/dev/null", O_WRONLY);
                if (null_fd >= 0) {
                        (void) dup2(null_fd, STDERR_FILENO);
                        close(null_fd);
                }
        }
        int r = dt_native_run(rn->native, model, size, ins, in_sizes, c->n_in, outs, out_sizes, DT_MAX_IO, err,
                              err_size);
        return r >= 0 && r != c->n_out ? -EINVAL : r < 0 ? r : 0;
}

static int isolated_run(const runner_t *rn, const uint8_t *model, size_t size, const dt_case_t *c, void **outs,
                        size_t *out_sizes, char *err, size_t err_size) {
        int fds[2];
        if (pipe(fds) < 0)
                return -errno;
        fflush(stdout);
        fflush(stderr);
        pid_t pid = fork();
        if (pid < 0) {
                close(fds[0]), close(fds[1]);
                return -errno;
        }
        if (pid == 0) {
                close(fds[0]);
                char e[1024] = "";
                void *o[DT_MAX_IO] = { 0 };
                size_t os[DT_MAX_IO] = { 0 };
                int32_t r = runner_here(rn, model, size, c, o, os, e, sizeof(e));
                write_full(fds[1], &r, sizeof(r));
                write_full(fds[1], e, sizeof(e));
                for (int i = 0; r == 0 && i < c->n_out; i++) {
                        uint64_t n = os[i];
                        write_full(fds[1], &n, sizeof(n));
                        write_full(fds[1], o[i], os[i]);
                }
                _exit(0);
        }
        close(fds[1]);
        int32_t r = 0;
        char e[1024];
        int rr = read_full(fds[0], &r, sizeof(r));
        if (rr == 0)
                rr = read_full(fds[0], e, sizeof(e));
        if (rr == 0) {
                e[sizeof(e) - 1] = '\0';
                snprintf(err, err_size, "%s", e);
        }
        for (int i = 0; rr == 0 && r == 0 && i < c->n_out; i++) {
                uint64_t n = 0;
                rr = read_full(fds[0], &n, sizeof(n));
                if (rr < 0)
                        break;
                outs[i] = malloc(n ? n : 1);
                if (!outs[i]) {
                        rr = -ENOMEM;
                        break;
                }
                out_sizes[i] = n;
                rr = read_full(fds[0], outs[i], n);
        }
        close(fds[0]);
        int status = 0;
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
                ;
        if (WIFSIGNALED(status)) {
                snprintf(err, err_size, "crashed with signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
                return -EFAULT;
        }
        if (rr < 0) {
                snprintf(err, err_size, "lost the result of the child process");
                return rr;
        }
        return r;
}

static double ulp_of(double b) {
        float f = fabsf((float) b);
        if (f < FLT_MIN)
                return FLT_TRUE_MIN;
        return (double) (nextafterf(f, INFINITY) - f);
}

static double elem_get(rt_type_t t, const void *p, size_t i) {
        switch (t) {
        case RT_TYPE_FLOAT32:
                return ((const float *) p)[i];
        case RT_TYPE_INT8:
                return ((const int8_t *) p)[i];
        case RT_TYPE_UINT8:
        case RT_TYPE_BOOL:
                return ((const uint8_t *) p)[i];
        case RT_TYPE_INT16:
                return ((const int16_t *) p)[i];
        case RT_TYPE_INT64:
                return (double) ((const int64_t *) p)[i];
        default:
                return ((const int32_t *) p)[i];
        }
}

/* Compare output o of case c; true when within the rule of `driver`.
 * Describes the worst element in msg. */
/* Elements where TFLite's builtin kernels give NaN and the XNNPACK driver
 * gives a clamp bound (+-FLT_MAX for NONE, 0 for RELU): the fused clamp acceld keeps on purpose (an overflow
 * stays finite, as in the builtin kernels), which XNNPACK's x86 clamp
 * applies to a NaN too. Counted, and named in the summary; docs/
 * conformance.md, "Rules". */
static uint64_t xnn_nan_clamped;

/* How many bytes of output o are defined in TFLite's answer `want`: all of
 * them, or the rows counted by another output (dt_case_t.counted_by). */
static size_t output_defined(const dt_case_t *c, int o, void *const *want, const size_t *want_sizes) {
        int k = c->counted_by[o] - 1;
        if (k < 0 || k >= c->n_out || !want[k] || want_sizes[k] < sizeof(float))
                return want_sizes[o];
        float count = *(const float *) want[k];
        size_t row = (size_t) c->counted_row[o] * dt_type_size(c->out[o].type);
        if (!(count >= 0) || count * (double) row >= (double) want_sizes[o])
                return want_sizes[o];
        return (size_t) count * row;
}

static bool output_check(const dt_case_t *c, int o, int driver, const void *got, size_t got_size, const void *want,
                         size_t want_size, size_t defined, char *msg, size_t msg_size) {
        const dt_io_t *io = &c->out[o];
        if (got_size != want_size) {
                snprintf(msg, msg_size, "output %d: %zu bytes, TFLite has %zu", o, got_size, want_size);
                return false;
        }
        want_size = defined;
        if (io->type == RT_TYPE_INT64 && driver == 0) {
                if (memcmp(got, want, want_size) != 0) {
                        snprintf(msg, msg_size, "output %d: int64 values differ", o);
                        return false;
                }
                return true;
        }
        size_t n = want_size / dt_type_size(io->type);
        double m = 0;
        if (io->type == RT_TYPE_FLOAT32)
                for (size_t i = 0; i < n; i++) {
                        double b = fabs(elem_get(io->type, want, i));
                        if (isfinite(b) && b > m)
                                m = b;
                }
        /* Sums can cancel: scale their rounding by the largest input too. */
        for (int k = 0; c->accum > 1 && k < c->n_in; k++) {
                if (c->in[k].type != RT_TYPE_FLOAT32)
                        continue;
                const float *x = c->in[k].data;
                for (size_t i = 0; i < c->in[k].bytes / 4; i++)
                        if (isfinite(x[i]) && fabs(x[i]) > m)
                                m = fabs(x[i]);
        }
        double worst = 0;
        size_t worst_i = 0;
        bool pass = true;
        for (size_t i = 0; i < n; i++) {
                double a = elem_get(io->type, got, i), b = elem_get(io->type, want, i);
                double allowed, diff;
                if (io->type == RT_TYPE_FLOAT32) {
                        if (isnan(b) || isnan(a) || isinf(b) || isinf(a)) {
                                bool same = (isnan(a) && isnan(b)) || (isinf(a) && isinf(b) && a == b);
                                if (!same && driver == 1 && isnan(b) && (fabs(a) == FLT_MAX || a == 0)) {
                                        xnn_nan_clamped++;
                                        same = true;
                                }
                                if (!same) {
                                        pass = false;
                                        worst = INFINITY;
                                        worst_i = i;
                                }
                                continue;
                        }
                        diff = fabs(a - b);
                        if (fabs(a) < FLT_MIN && fabs(b) < FLT_MIN)
                                diff = 0; /* TFLite's kernels may flush subnormals */
                        float step = c->out_step[o];
                        if (driver == 1 && c->accel_step[o] > step)
                                step = c->accel_step[o];
                        if (driver == 0)
                                allowed = step > 0 ? step * 0.499 : 4 * ulp_of(b) + c->accum * 4 * FLT_EPSILON * m;
                        else
                                allowed = (step > 0 ? 2 * step : 0) + 1e-4 * (1 + m) + 1e-3 * fabs(b) +
                                          c->accum * 4 * FLT_EPSILON * m;
                } else {
                        diff = fabs(a - b);
                        allowed = driver == 0 || !dt_is_quant_type(io->type) ? 0 : 2;
                }
                double score = diff == 0 ? 0 : allowed > 0 ? diff / allowed : INFINITY;
                if (score > 1)
                        pass = false;
                if (score > worst) {
                        worst = score;
                        worst_i = i;
                }
        }
        if (!pass)
                snprintf(msg, msg_size, "output %d[%zu]: got %.9g, TFLite %.9g (score %.3g)", o, worst_i,
                         elem_get(io->type, got, worst_i), elem_get(io->type, want, worst_i), worst);
        return pass;
}

static void case_save(const run_ctx_t *x, const dt_case_t *c, const uint8_t *model, size_t size) {
        if (!x->save_dir)
                return;
        (void) mkdir(x->save_dir, 0755);
        char path[4096];
        snprintf(path, sizeof(path), "%s/%s-%016" PRIx64 ".tflite", x->save_dir, c->op, c->seed);
        FILE *f = fopen(path, "wb");
        if (f) {
                fwrite(model, 1, size, f);
                fclose(f);
        }
        for (int i = 0; i < c->n_in; i++) {
                snprintf(path, sizeof(path), "%s/%s-%016" PRIx64 ".input_%d.bin", x->save_dir, c->op, c->seed, i);
                f = fopen(path, "wb");
                if (f) {
                        fwrite(c->in[i].data, 1, c->in[i].bytes, f);
                        fclose(f);
                }
        }
}

static void outs_free(void **outs, int n) {
        for (int i = 0; i < n; i++)
                free(outs[i]), outs[i] = NULL;
}

/* Whether every output of our XNNPACK run is within the XNNPACK rule of
 * TensorFlow Lite run with its XNNPACK delegate. */
static bool delegate_check(run_ctx_t *x, const uint8_t *model, size_t size, const dt_case_t *c, void *const *got,
                           const size_t *got_sizes) {
        void *want[DT_MAX_IO] = { 0 };
        size_t want_sizes[DT_MAX_IO];
        char err[1024] = "", msg[1024];
        runner_t rn = { .native = x->native, .xnnpack = true };
        int n = isolated_run(&rn, model, size, c, want, want_sizes, err, sizeof(err));
        if (n == 0)
                n = c->n_out;
        bool ok = n == c->n_out;
        for (int o = 0; o < c->n_out && ok; o++)
                ok = output_check(c, o, 1, got[o], got_sizes[o], want[o], want_sizes[o],
                                  output_defined(c, o, want, want_sizes), msg, sizeof(msg));
        if (n > 0)
                outs_free(want, n);
        if (ok)
                x->via_delegate++;
        return ok;
}

/* Run one case; returns the number of drivers that mismatched, or -errno. */
static int case_run(run_ctx_t *x, const dt_gen_t *g, uint64_t seed) {
        dt_case_t c;
        uint8_t *model = NULL;
        size_t size = 0;
        int r = case_build(g, seed, &c, &model, &size);
        if (r == -ENOTSUP) {
                free(model);
                case_done(&c);
                return 0;
        }
        if (r < 0) {
                fprintf(stderr, "difftest: %s case 0x%016" PRIx64 ": cannot build: %s\n", g->name, seed, strerror(-r));
                free(model);
                case_done(&c);
                return r;
        }
        stat_row_t *row = row_get(x, g->name, c.type_name ? c.type_name : dt_type_name(c.out[0].type));
        void *want[DT_MAX_IO] = { 0 }, *got[DT_MAX_IO] = { 0 };
        size_t want_sizes[DT_MAX_IO], got_sizes[DT_MAX_IO];
        char err[1024] = "";
        runner_t native = { .native = x->native };
        int n_out = isolated_run(&native, model, size, &c, want, want_sizes, err, sizeof(err));
        if (n_out == -EFAULT)
                printf("TFLITE-CRASH %s: difftest --op %s --case 0x%016" PRIx64 " # %s; %s\n", g->name, g->name, seed,
                       c.desc, err);
        if (n_out == 0)
                n_out = c.n_out;
        if (n_out < 0 || n_out != c.n_out) {
                /* TensorFlow Lite refuses this combination: not a case. */
                row->skipped++;
                x->skipped++;
                if (n_out > 0)
                        outs_free(want, n_out);
                free(model);
                case_done(&c);
                return 0;
        }
        row->cases++;
        x->cases++;
        int mismatches = 0;
        for (int d = 0; d < 2; d++) {
                if (!x->drivers[d])
                        continue;
                char msg[1024] = "";
                bool ok = true;
                runner_t ours = { .xnnpack = d == 1 };
                r = isolated_run(&ours, model, size, &c, got, got_sizes, err, sizeof(err));
                if (r < 0) {
                        ok = false;
                        snprintf(msg, sizeof(msg), "refused: %s", err);
                } else {
                        for (int o = 0; o < c.n_out && ok; o++)
                                ok = output_check(&c, o, d, got[o], got_sizes[o], want[o], want_sizes[o],
                                                  output_defined(&c, o, want, want_sizes), msg,
                                                  sizeof(msg));
                        /* The XNNPACK driver may also be what TensorFlow Lite's
                         * own XNNPACK delegate is (docs/conformance.md): a
                         * second oracle, run only when the first disagrees. */
                        if (!ok && d == 1 && x->native_xnnpack)
                                ok = delegate_check(x, model, size, &c, got, got_sizes);
                }
                outs_free(got, c.n_out);
                if (!ok) {
                        mismatches++;
                        row->fail[d]++;
                        x->fail[d]++;
                        printf("MISMATCH %s %s: difftest --op %s --case 0x%016" PRIx64 " # %s; %s\n", driver_names[d],
                               g->name, g->name, seed, c.desc, msg);
                        case_save(x, &c, model, size);
                }
        }
        outs_free(want, n_out);
        free(model);
        case_done(&c);
        return mismatches;
}

static uint64_t seed_mix(uint64_t seed, uint64_t i) {
        dt_rng_t r = { seed ^ (i * 0xd1342543de82ef95ull) };
        return dt_next(&r);
}

static double now_s(void) {
        return (double) acc_now_ns() / 1e9;
}

static void matrix_print(const run_ctx_t *x) {
        printf("| op | type | cases | TFLite refused | reference mismatches | XNNPACK mismatches |\n");
        printf("|---|---|---:|---:|---:|---:|\n");
        for (size_t i = 0; i < x->n_rows; i++) {
                const stat_row_t *s = &x->rows[i];
                printf("| %s | %s | %" PRIu64 " | %" PRIu64 " | %" PRIu64 " | %" PRIu64 " |\n", s->op, s->type, s->cases,
                       s->skipped, s->fail[0], s->fail[1]);
        }
}

static int row_cmp(const void *a, const void *b) {
        const stat_row_t *x = a, *y = b;
        int r = strcmp(x->op, y->op);
        return r ? r : strcmp(x->type, y->type);
}

static void usage(FILE *f) {
        fprintf(f, "usage: difftest [--lib PATH] [--seed S] [--cases N] [--seconds S] [--ops A,B,...]\n"
                   "                [--exclude A,B,...] [--op NAME --case SEED] [--save DIR]\n"
                   "                [--drivers ref,xnnpack] [--matrix]\n"
                   "                [--list] [--quiet]\n");
}

int main(int argc, char **argv) {
        const char *lib = getenv("ACCELD_TFLITE_C_LIB");
        const char *ops = NULL, *exclude = NULL, *one_op = NULL, *drivers = "ref,xnnpack";
        uint64_t seed = 1, one_case = 0;
        bool have_case = false, matrix = false, list = false;
        long cases = -1;
        double seconds = 0;
        /* Static, so that every early return (usage, --list, SKIP) leaves
         * nothing for LeakSanitizer. */
        static run_ctx_t ctx;
        run_ctx_t *x = &ctx;
        for (int i = 1; i < argc; i++) {
                const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
#define ARG(name) (strcmp(a, name) == 0 && v && (i++, true))
                if (ARG("--lib"))
                        lib = v;
                else if (ARG("--seed"))
                        seed = strtoull(v, NULL, 0);
                else if (ARG("--cases"))
                        cases = strtol(v, NULL, 0);
                else if (ARG("--seconds"))
                        seconds = atof(v);
                else if (ARG("--ops"))
                        ops = v;
                else if (ARG("--exclude"))
                        exclude = v;
                else if (ARG("--op"))
                        one_op = v;
                else if (ARG("--case")) {
                        one_case = strtoull(v, NULL, 0);
                        have_case = true;
                } else if (ARG("--save"))
                        x->save_dir = v;
                else if (ARG("--drivers"))
                        drivers = v;
                else if (strcmp(a, "--matrix") == 0)
                        matrix = true;
                else if (strcmp(a, "--list") == 0)
                        list = true;
                else if (strcmp(a, "--quiet") == 0)
                        x->quiet = true;
                else {
                        usage(stderr);
                        return 2;
                }
#undef ARG
        }
        gens_collect();
        if (list) {
                for (size_t i = 0; i < n_all_gens; i++)
                        printf("%s\n", all_gens[i].g->name);
                return 0;
        }
        x->drivers[0] = strstr(drivers, "ref") != NULL;
        x->drivers[1] = strstr(drivers, "xnn") != NULL;
        char err[1024] = "";
        if (!lib || access(lib, R_OK) < 0) {
                printf("SKIP: native TensorFlow Lite C library not found (%s); run bench/fetch-native-tflite.sh "
                       "or set ACCELD_TFLITE_C_LIB\n", lib ? lib : "unset");
                return 77;
        }
        int r = dt_native_open(lib, &x->native, err, sizeof(err));
        if (r < 0) {
                printf("SKIP: cannot load native TensorFlow Lite: %s\n", err);
                return 77;
        }
        x->native_xnnpack = dt_native_use_xnnpack(x->native, true) == 0;
        (void) dt_native_use_xnnpack(x->native, false);
        /* The selected generators, repeated by weight. */
        const dt_gen_t *sel[4096];
        size_t n_sel = 0;
        if (one_op || have_case) {
                const dt_gen_t *g = one_op ? gen_find(one_op) : NULL;
                if (!g) {
                        fprintf(stderr, "difftest: --case needs --op with a known generator (see --list)\n");
                        return 2;
                }
                x->quiet = false;
                r = case_run(x, g, one_case);
                printf("case %s 0x%016" PRIx64 ": %s\n", g->name, one_case,
                       x->cases == 0 ? "refused by TFLite (skipped)" : r == 0 ? "match" : "MISMATCH");
                dt_native_close(x->native);
                return r > 0 ? 1 : 0;
        }
        for (size_t i = 0; i < n_all_gens; i++) {
                const dt_gen_t *g = all_gens[i].g;
                if ((ops && !dt_name_listed(ops, g->name)) || (exclude && dt_name_listed(exclude, g->name)))
                        continue;
                for (int w = 0; w < (g->weight > 0 ? g->weight : 1) && n_sel < 4096; w++)
                        sel[n_sel++] = g;
        }
        if (n_sel == 0) {
                fprintf(stderr, "difftest: no generator selected (see --list)\n");
                return 2;
        }
        if (cases < 0 && seconds <= 0)
                cases = 2000;
        /* CI derives a base from the commit so that every landing draws
         * cases nobody drew before; --seed still tells the runs apart. */
        if (!have_case)
                seed += dt_seed_base();
        if (!x->quiet)
                printf("difftest: TensorFlow Lite %s, seed %" PRIu64 ", %s%s\n", dt_native_version(x->native), seed,
                       x->drivers[0] ? "reference " : "", x->drivers[1] ? "xnnpack" : "");
        double t0 = now_s();
        for (uint64_t i = 0;; i++) {
                if (cases >= 0 && (long) i >= cases)
                        break;
                if (seconds > 0 && now_s() - t0 >= seconds)
                        break;
                uint64_t cs = seed_mix(seed, i);
                dt_rng_t pick = { cs ^ 0x5bd1e995u };
                const dt_gen_t *g = sel[dt_int(&pick, 0, (int64_t) n_sel - 1)];
                if (case_run(x, g, cs) < 0)
                        return 1;
        }
        qsort(x->rows, x->n_rows, sizeof(x->rows[0]), row_cmp);
        if (matrix)
                matrix_print(x);
        printf("difftest: %" PRIu64 " cases (%" PRIu64 " refused by TFLite, not counted); mismatches: reference %" PRIu64
               ", xnnpack %" PRIu64 "; %.1f s\n",
               x->cases, x->skipped, x->fail[0], x->fail[1], now_s() - t0);
        if (x->via_delegate)
                printf("difftest: %" PRIu64 " XNNPACK cases matched TFLite with its XNNPACK delegate, not its "
                       "builtin kernels\n", x->via_delegate);
        if (xnn_nan_clamped)
                printf("difftest: %" PRIu64 " XNNPACK output elements are a clamp bound where TFLite has NaN: the "
                       "fused activation clamp (docs/conformance.md)\n", xnn_nan_clamped);
        bool bad = x->fail[0] || x->fail[1];
        dt_native_close(x->native);
        return bad ? 1 : 0;
}
