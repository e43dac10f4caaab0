/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Integration: the Evaluate request of a real acceld. The
 * inference diff of an XNNPACK instance against the reference kernels is
 * computed by acceld, is seedable and stored; client top-K results are
 * validated and recorded; both are listed through libaccel and `accelctl
 * events --evaluations --json`, and survive a restart.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <check.h>

#include "accel/accel.h"
#include "harness.h"
#include "tfb-models.h"

static harness_daemon_t d;

static void setup(void) {
        harness_up(&d);
}

static void teardown(void) {
        harness_cleanup(&d);
}

typedef struct run {
        accel_model_t *m;
        accel_interp_t *it;
} run_t;

/* A float16-weight fully connected model (32 outputs from 16 inputs). */
static void run_open(run_t *r, const char *settings) {
        size_t size;
        uint8_t *buf = tfb_model_fp16_fc(32, 16, 7, 13, 16.0f, &size);
        accel_interp_options_t *o = accel_interp_options_create();

        ck_assert_int_eq(accel_model_create(buf, size, &r->m), 0);
        free(buf);
        ck_assert_int_eq(accel_interp_options_set_socket(o, d.sock), 0);
        ck_assert_int_eq(accel_interp_options_set_settings_json(o, settings), 0);
        ck_assert_msg(accel_interp_create(r->m, o, &r->it) == 0, "%s", accel_last_error());
        accel_interp_options_delete(o);
        ck_assert_int_eq(accel_interp_allocate_tensors(r->it), 0);
}

static void run_close(run_t *r) {
        accel_interp_delete(r->it);
        accel_model_delete(r->m);
}

static accel_evaluation_t *list_all(size_t *ret_n) {
        accel_client_t *c = NULL;
        accel_evaluation_t *v = NULL;

        ck_assert_int_eq(accel_connect(d.sock, &c), 0);
        ck_assert_msg(accel_evaluations(c, NULL, 0, &v, ret_n) == 0, "%s", accel_last_error());
        accel_disconnect(c);
        return v;
}

START_TEST(test_diff_computed_by_acceld_and_stored) {
        run_t r;
        accel_evaluation_t *a = NULL, *b = NULL, *v;
        size_t n;

        run_open(&r, "{\"delegate\":\"XNNPACK\"}");
        ck_assert_msg(accel_interp_evaluate_diff(r.it, 4, 42, &a) == 0, "%s", accel_last_error());
        ck_assert_int_gt(a->id, 0);
        ck_assert_str_eq(a->stage, "inference_diff");
        ck_assert_str_eq(a->source, "acceld");
        ck_assert_int_eq(a->samples, 4);
        ck_assert_ptr_nonnull(strstr(a->settings_key, "delegate=XNNPACK"));
        ck_assert_int_eq(strlen(a->model_sha256), 64);
        ck_assert_msg(strstr(a->metrics_json, "\"inferenceProfilerMetrics\"") &&
                              strstr(a->metrics_json, "\"outputErrors\""),
                      "%s", a->metrics_json);
        /* float16 weights widened exactly on both paths: tiny differences. */
        ck_assert(a->has_accuracy);
        ck_assert_msg(a->accuracy >= 0 && a->accuracy < 1e-3, "%g", a->accuracy);

        /* Seedable: the same seed gives the same inputs, so the same error. */
        ck_assert_msg(accel_interp_evaluate_diff(r.it, 4, 42, &b) == 0, "%s", accel_last_error());
        ck_assert_int_gt(b->id, a->id);
        ck_assert_double_eq(a->accuracy, b->accuracy);
        accel_evaluation_free(a);
        accel_evaluation_free(b);

        /* The instance still serves normally afterwards. */
        ck_assert_msg(accel_interp_invoke(r.it) == 0, "%s", accel_last_error());
        run_close(&r);

        v = list_all(&n);
        ck_assert_uint_eq(n, 2);
        ck_assert_str_eq(v[0].stage, "inference_diff");
        ck_assert(v[0].has_uid);
        ck_assert_uint_eq(v[0].uid, (uint32_t) getuid());
        ck_assert_int_gt(v[0].wallclock_us, 0);
        accel_evaluations_free(v, n);
}
END_TEST

START_TEST(test_topk_recorded_and_listed) {
        run_t r;
        accel_evaluation_t *e = NULL, *v;
        size_t n;
        char *out = NULL;
        const char *argv[] = { harness_accelctl(), "--socket", d.sock, "events", "--evaluations", "--json", NULL };
        static const char metrics[] =
                "{\"imageClassificationMetrics\":{\"topkAccuracyMetrics\":{\"topkAccuracies\":[0.75,1]}}}";

        run_open(&r, "{\"delegate\":\"NONE\"}");
        ck_assert_msg(accel_interp_evaluation_record(r.it, ACCEL_EVAL_STAGE_TOPK, metrics, true, 0.75, 4, &e) == 0,
                      "%s", accel_last_error());
        ck_assert_str_eq(e->stage, "topk");
        ck_assert_str_eq(e->source, "client");
        ck_assert_ptr_nonnull(strstr(e->settings_key, "delegate=NONE;"));
        ck_assert_double_eq(e->accuracy, 0.75);
        ck_assert_int_eq(e->samples, 4);
        ck_assert_str_eq(e->metrics_json, metrics);
        accel_evaluation_free(e);

        /* Refused: not JSON, a figure outside [0, 1]. Nothing stored. */
        ck_assert_int_eq(accel_interp_evaluation_record(r.it, ACCEL_EVAL_STAGE_TOPK, "not json", true, 0.5, 1, NULL),
                         -EINVAL);
        ck_assert_ptr_nonnull(strstr(accel_last_error(), "metrics_json"));
        ck_assert_int_eq(accel_interp_evaluation_record(r.it, ACCEL_EVAL_STAGE_DETECTION, "{}", true, 1.5, 1, NULL),
                         -EINVAL);
        ck_assert_int_eq(accel_interp_evaluation_record(r.it, ACCEL_EVAL_STAGE_INFERENCE_DIFF, "{}", true, 0, 1, NULL),
                         -EINVAL);
        run_close(&r);

        v = list_all(&n);
        ck_assert_uint_eq(n, 1);
        ck_assert_str_eq(v[0].stage, "topk");
        accel_evaluations_free(v, n);

        int st = harness_run(argv, &out);
        ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
        ck_assert_msg(strstr(out, "\"stage\":\"topk\"") && strstr(out, "\"accuracy\":0.75") &&
                              strstr(out, "\"topkAccuracies\""),
                      "%s", out);
        free(out);

        /* Stored: a restarted acceld lists it. */
        ck_assert(WIFEXITED(harness_signal_and_wait(&d, SIGTERM)));
        harness_start(&d, NULL, NULL, -1);
        harness_wait_ready(&d, d.sock);
        v = list_all(&n);
        ck_assert_uint_eq(n, 1);
        ck_assert_double_eq(v[0].accuracy, 0.75);
        accel_evaluations_free(v, n);
}
END_TEST

int main(int argc, char **argv) {
        harness_init(argc, argv);
        Suite *s = suite_create("acceld-evaluate");
        TCase *tc = tcase_create("evaluate");
        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_set_timeout(tc, 30);
        tcase_add_test(tc, test_diff_computed_by_acceld_and_stored);
        tcase_add_test(tc, test_topk_recorded_and_listed);
        suite_add_tcase(s, tc);
        SRunner *sr = srunner_create(s);
        srunner_run_all(sr, CK_NORMAL);
        int failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed ? 1 : 0;
}
