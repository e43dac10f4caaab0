/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Conformance: every model in ../shared/models/manifest.json runs on the
 * reference kernels and matches the goldens recorded from TensorFlow Lite
 * 2.9 within tolerance.reference (README's comparison rule). One Check test
 * per model; each prints one line:
 *   PASS name score | FAIL name: output i ... | SKIP name: ...
 * Models marked runnable=false must be refused at interpreter creation with a
 * message that names an op they use that we do not have.
 *
 * ACCELD_CONFORMANCE_ALLOW_MISSING=1 turns "missing op" failures into skips
 * (useful while kernels are being written). ACCELD_CONFORMANCE_ONLY=name runs
 * only that model.
 */
#include <check.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "file-read.h"
#include "cleanup.h"
#include "driver.h"
#include "golden.h"
#include "rt.h"

DEFINE_POINTER_CLEANUP(rt_model_t, rt_model_free);
DEFINE_POINTER_CLEANUP(rt_interp_t, rt_interp_free);

static golden_manifest_t *manifest;
static const golden_model_t **runnable;
static size_t n_runnable;
static const golden_model_t **refused;
static size_t n_refused;

static bool selected(const golden_model_t *g) {
        const char *only = getenv("ACCELD_CONFORMANCE_ONLY");
        return !only || !only[0] || strcmp(only, g->name) == 0;
}

static bool allow_missing(void) {
        const char *s = getenv("ACCELD_CONFORMANCE_ALLOW_MISSING");
        return s && strcmp(s, "1") == 0;
}

static bool same_shape(const rt_tensor_t *t, const golden_tensor_t *g) {
        if (t->rank != g->rank)
                return false;
        for (int32_t d = 0; d < t->rank; d++)
                if (t->dims[d] != g->shape[d])
                        return false;
        return true;
}

static void line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void line(const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        vprintf(fmt, ap);
        va_end(ap);
        printf("\n");
        fflush(stdout);
}

/* Run model g with `settings` (NULL: reference kernels) and compare its
 * outputs with tolerance `kind`. `tag` prefixes the printed line. */
static void model_check(const golden_model_t *g, const rt_settings_t *settings, golden_tol_kind_t kind,
                        const char *tag) {
        if (!selected(g))
                return;
        if (access(g->path, R_OK) < 0) {
                line("SKIP %s: model file not present (%s)", g->name, g->path);
                return;
        }
        char err[1024] = "";
        _cleanup_(rt_model_freep) rt_model_t *m = NULL;
        int r = rt_model_load_file(g->path, &m, err, sizeof(err));
        if (r < 0) {
                line("FAIL %s: load: %s", g->name, err);
                ck_abort_msg("%s: load failed: %s", g->name, err);
        }
        _cleanup_(rt_interp_freep) rt_interp_t *it = NULL;
        rt_interp_options_t *opts = rt_interp_options_new();
        ck_assert_ptr_nonnull(opts);
        if (settings)
                ck_assert_int_eq(rt_interp_options_set_settings(opts, settings), 0);
        r = rt_interp_create(m, opts, &it, err, sizeof(err));
        rt_interp_options_free(opts);
        if (r < 0) {
                bool missing = strstr(err, "unresolved") || strstr(err, "unsupported") ||
                               strstr(err, "not supported");
                if (missing) {
                        line("SKIP %s: missing op: %s", g->name, err);
                        if (allow_missing())
                                return;
                }
                else
                        line("FAIL %s: create: %s", g->name, err);
                ck_abort_msg("%s: create failed: %s", g->name, err);
        }
        ck_assert_int_eq(rt_interp_input_count(it), (int) g->n_inputs);
        ck_assert_int_eq(rt_interp_output_count(it), (int) g->n_outputs);
        for (size_t i = 0; i < g->n_inputs; i++) {
                const rt_tensor_t *t = rt_interp_input_tensor(it, (int32_t) i);
                if (same_shape(t, &g->inputs[i]))
                        continue;
                r = rt_interp_resize_input(it, (int32_t) i, g->inputs[i].rank, g->inputs[i].shape);
                if (r < 0) {
                        line("FAIL %s: resize input %zu: %s", g->name, i, rt_interp_last_error(it));
                        ck_abort_msg("%s: resize failed", g->name);
                }
        }
        r = rt_interp_allocate_tensors(it);
        if (r < 0) {
                line("FAIL %s: allocate: %s", g->name, rt_interp_last_error(it));
                ck_abort_msg("%s: allocate failed: %s", g->name, rt_interp_last_error(it));
        }
        for (size_t i = 0; i < g->n_inputs; i++) {
                _cleanup_free_ void *data = NULL;
                size_t size = 0;
                r = acc_file_read(g->inputs[i].path, &data, &size);
                ck_assert_msg(r == 0, "%s: cannot read %s: %s", g->name, g->inputs[i].path, strerror(-r));
                r = rt_interp_copy_in(it, (int32_t) i, data, size);
                if (r < 0) {
                        line("FAIL %s: input %zu: %s", g->name, i, rt_interp_last_error(it));
                        ck_abort_msg("%s: copy in failed", g->name);
                }
        }
        r = rt_interp_invoke(it);
        if (r < 0) {
                line("FAIL %s: invoke: %s", g->name, rt_interp_last_error(it));
                ck_abort_msg("%s: invoke failed: %s", g->name, rt_interp_last_error(it));
        }
        double score = 0;
        bool pass = true;
        char failures[1024] = "";
        size_t flen = 0;
        for (size_t i = 0; i < g->n_outputs; i++) {
                const rt_tensor_t *t = rt_interp_output_tensor(it, (int32_t) i);
                _cleanup_free_ void *want = NULL;
                size_t want_size = 0;
                r = acc_file_read(g->outputs[i].path, &want, &want_size);
                ck_assert_msg(r == 0, "%s: cannot read %s: %s", g->name, g->outputs[i].path, strerror(-r));
                size_t have = t->data ? (t->type == RT_TYPE_STRING ? t->bytes : rt_tensor_count(t) * rt_type_size(t->type)) : 0;
                golden_result_t res;
                r = golden_compare(&g->outputs[i], kind, t->data, have, want, want_size, &res);
                ck_assert_msg(r == 0, "%s: output %zu: no reference tolerance or unknown type", g->name, i);
                if (!res.pass) {
                        pass = false;
                        if (flen < sizeof(failures))
                                flen += (size_t) snprintf(failures + flen, sizeof(failures) - flen,
                                                          "%soutput %zu: %s", flen ? "; " : "", i,
                                                          res.message);
                }
                if (res.score > score)
                        score = res.score;
        }
        if (pass)
                line("PASS %s%s %.3g", tag, g->name, score);
        else
                line("FAIL %s%s: %s", tag, g->name, failures);
        ck_assert_msg(pass, "%s%s: %s", tag, g->name, failures);
}

START_TEST(test_conformance_model) {
        model_check(runnable[_i], NULL, GOLDEN_TOL_REFERENCE, "");
}
END_TEST

/* The same models with the XNNPACK delegate, against tolerance.accelerated. */
START_TEST(test_conformance_model_xnnpack) {
        rt_settings_t s;
        rt_settings_init(&s);
        s.delegate = RT_DELEGATE_XNNPACK;
        s.xnnpack_num_threads = 1;
        model_check(runnable[_i], &s, GOLDEN_TOL_ACCELERATED, "xnnpack ");
}
END_TEST

START_TEST(test_conformance_refused) {
        const golden_model_t *g = refused[_i];
        if (!selected(g))
                return;
        if (access(g->path, R_OK) < 0) {
                line("SKIP %s: model file not present (%s)", g->name, g->path);
                return;
        }
        char err[1024] = "";
        _cleanup_(rt_model_freep) rt_model_t *m = NULL;
        int r = rt_model_load_file(g->path, &m, err, sizeof(err));
        ck_assert_msg(r == 0, "%s: load failed: %s", g->name, err);
        _cleanup_(rt_interp_freep) rt_interp_t *it = NULL;
        r = rt_interp_create(m, NULL, &it, err, sizeof(err));
        ck_assert_msg(r < 0, "%s: not runnable, but the interpreter was created", g->name);
        ck_assert_ptr_null(it);
        bool named = false;
        for (size_t k = 0; k < g->n_custom_ops && !named; k++)
                named = strstr(err, g->custom_ops[k]) != NULL;
        if (named)
                line("PASS %s refused: %s", g->name, err);
        else
                line("FAIL %s: refused without naming its unsupported op: %s", g->name, err);
        ck_assert_msg(named, "%s: message does not name an unsupported op: %s", g->name, err);
}
END_TEST

int main(void) {
        const char *shared = golden_shared_dir();
        if (!shared) {
                fprintf(stderr, "ACCELD_SHARED_DIR is not set or missing: skipping conformance\n");
                return 77;
        }
        char err[512] = "";
        int r = golden_manifest_load(shared, &manifest, err, sizeof(err));
        if (r == -ENOENT) {
                fprintf(stderr, "no manifest: %s: skipping conformance\n", err);
                return 77;
        }
        if (r < 0) {
                fprintf(stderr, "manifest: %s\n", err);
                return 1;
        }
        runnable = calloc(manifest->n_models + 1, sizeof(*runnable));
        refused = calloc(manifest->n_models + 1, sizeof(*refused));
        if (!runnable || !refused)
                return 1;
        for (size_t i = 0; i < manifest->n_models; i++) {
                const golden_model_t *g = &manifest->models[i];
                if (g->runnable)
                        runnable[n_runnable++] = g;
                else
                        refused[n_refused++] = g;
        }
        Suite *s = suite_create("conformance");
        TCase *tc = tcase_create("models");
        tcase_set_timeout(tc, 600);
        tcase_add_loop_test(tc, test_conformance_model, 0, (int) n_runnable);
        tcase_add_loop_test(tc, test_conformance_refused, 0, (int) n_refused);
        suite_add_tcase(s, tc);
        if (rt_driver_find("xnnpack")) {
                TCase *tx = tcase_create("xnnpack");
                tcase_set_timeout(tx, 600);
                tcase_add_loop_test(tx, test_conformance_model_xnnpack, 0, (int) n_runnable);
                suite_add_tcase(s, tx);
        }
        SRunner *sr = srunner_create(s);
        srunner_run_all(sr, CK_NORMAL);
        int failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        free(runnable);
        free(refused);
        golden_manifest_free(manifest);
        return failed ? 1 : 0;
}
