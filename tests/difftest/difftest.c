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
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
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
        dt_runner_t rn = { .native = x->native, .xnnpack = true };
        int n = dt_isolated_run(&rn, model, size, c, want, want_sizes, err, sizeof(err));
        if (n == 0)
                n = c->n_out;
        bool ok = n == c->n_out;
        for (int o = 0; o < c->n_out && ok; o++)
                ok = dt_output_check(c, o, 1, got[o], got_sizes[o], want[o], want_sizes[o],
                                     dt_output_defined(c, o, want, want_sizes), msg, sizeof(msg));
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
        dt_runner_t native = { .native = x->native };
        int n_out = dt_isolated_run(&native, model, size, &c, want, want_sizes, err, sizeof(err));
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
                dt_runner_t ours = { .xnnpack = d == 1 };
                r = dt_isolated_run(&ours, model, size, &c, got, got_sizes, err, sizeof(err));
                if (r < 0) {
                        ok = false;
                        snprintf(msg, sizeof(msg), "refused: %s", err);
                } else {
                        for (int o = 0; o < c.n_out && ok; o++)
                                ok = dt_output_check(&c, o, d, got[o], got_sizes[o], want[o], want_sizes[o],
                                                     dt_output_defined(&c, o, want, want_sizes), msg,
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
        if (dt_xnn_nan_clamped)
                printf("difftest: %" PRIu64 " XNNPACK output elements are a clamp bound where TFLite has NaN: the "
                       "fused activation clamp (docs/conformance.md)\n", dt_xnn_nan_clamped);
        bool bad = x->fail[0] || x->fail[1];
        dt_native_close(x->native);
        return bad ? 1 : 0;
}
