/* SPDX-License-Identifier: Apache-2.0 */
/* InferenceProfilerMetrics: TFLite's inference-diff of two settings. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "cleanup.h"
#include "eval.h"

void eval_profiler_metrics_done(eval_profiler_metrics_t *m) {
        if (!m)
                return;
        free(m->output_errors);
        *m = (eval_profiler_metrics_t) {};
}

static void tensor_describe(const eval_tensor_t *t, char *buf, size_t size) {
        size_t o = (size_t) snprintf(buf, size, "type %d [", t->type);
        for (int32_t d = 0; d < t->rank && o < size; d++)
                o += (size_t) snprintf(buf + o, size - o, d ? ",%d" : "%d", t->dims[d]);
        if (o < size)
                snprintf(buf + o, size - o, "]");
}

static bool tensor_same_shape(const eval_tensor_t *a, const eval_tensor_t *b) {
        if (a->type != b->type || a->rank != b->rank)
                return false;
        for (int32_t d = 0; d < a->rank; d++)
                if (a->dims[d] != b->dims[d])
                        return false;
        return true;
}

/* Both models must take the same inputs: the test setting runs the same
 * model, so a difference means a wrong pairing, not an accuracy result. */
static int check_inputs(eval_runner_t *ref, eval_runner_t *test, char *err, size_t err_size) {
        int32_t n = eval_runner_input_count(ref);

        if (n != eval_runner_input_count(test) || eval_runner_output_count(ref) != eval_runner_output_count(test)) {
                snprintf(err, err_size, "the reference and test models have different inputs or outputs");
                return -EINVAL;
        }
        for (int32_t i = 0; i < n; i++) {
                eval_tensor_t a, b;
                char da[96], db[96];

                if (eval_runner_input(ref, i, &a) < 0 || eval_runner_input(test, i, &b) < 0) {
                        snprintf(err, err_size, "input %d is not available", i);
                        return -EINVAL;
                }
                if (!tensor_same_shape(&a, &b) || a.bytes != b.bytes) {
                        tensor_describe(&a, da, sizeof(da));
                        tensor_describe(&b, db, sizeof(db));
                        snprintf(err, err_size, "input %d: reference %s, test %s", i, da, db);
                        return -EINVAL;
                }
        }
        return 0;
}

static int invoke_timed(eval_runner_t *r, const char *which, eval_stats_t *lat, char *err, size_t err_size) {
        uint64_t t0 = acc_now_us();
        int rc = eval_runner_invoke(r);

        if (rc < 0) {
                snprintf(err, err_size, "%s invoke: %s", which, eval_runner_last_error(r));
                return rc;
        }
        eval_stats_add(lat, (double) (acc_now_us() - t0));
        return 0;
}

int eval_profiler_run(eval_runner_t *reference, eval_runner_t *test, int32_t runs, uint64_t seed,
                      void (*progress)(void *user, size_t done, size_t total), void *user,
                      eval_profiler_metrics_t *ret, char *err, size_t err_size) {
        eval_stats_t ref_lat = {}, test_lat = {}, total = {};
        eval_rng_t rng;
        int r;

        if (!reference || !test || !ret || runs < 1)
                return -EINVAL;
        r = check_inputs(reference, test, err, err_size);
        if (r < 0)
                return r;
        int32_t n_in = eval_runner_input_count(reference), n_out = eval_runner_output_count(reference);
        _cleanup_free_ eval_stats_t *errs = calloc(n_out > 0 ? (size_t) n_out : 1, sizeof(*errs));
        if (!errs)
                return -ENOMEM;

        eval_rng_seed(&rng, seed);
        for (int32_t run = 0; run < runs; run++) {
                uint64_t t0 = acc_now_us();

                for (int32_t i = 0; i < n_in; i++) {
                        eval_tensor_t a, b;

                        (void) eval_runner_input(reference, i, &a);
                        (void) eval_runner_input(test, i, &b);
                        r = eval_tensor_randomize(&a, &rng);
                        if (r < 0) {
                                snprintf(err, err_size, "input %d: no random values for TFLite type %d", i, a.type);
                                return r;
                        }
                        memcpy(b.data, a.data, a.bytes);
                }
                r = invoke_timed(reference, "reference", &ref_lat, err, err_size);
                if (r < 0)
                        return r;
                r = invoke_timed(test, "test", &test_lat, err, err_size);
                if (r < 0)
                        return r;
                for (int32_t o = 0; o < n_out; o++) {
                        eval_tensor_t a, b;
                        char da[96], db[96];

                        if (eval_runner_output(reference, o, &a) < 0 || eval_runner_output(test, o, &b) < 0) {
                                snprintf(err, err_size, "output %d is not available", o);
                                return -EIO;
                        }
                        eval_output_error_t e;
                        if (eval_output_compare(&a, &b, 0, &e) < 0) {
                                tensor_describe(&a, da, sizeof(da));
                                tensor_describe(&b, db, sizeof(db));
                                snprintf(err, err_size, "output %d: reference %s, test %s", o, da, db);
                                return -EINVAL;
                        }
                        /* Mean absolute difference over the elements: one
                         * value per run, as the seed defines output_errors. */
                        eval_stats_add(&errs[o], e.abs_error.avg_value);
                }
                eval_stats_add(&total, (double) (acc_now_us() - t0));
                if (progress)
                        progress(user, (size_t) run + 1, (size_t) runs);
        }

        eval_profiler_metrics_t m = { .runs = runs, .n_output_errors = (size_t) n_out };
        m.output_errors = calloc(n_out > 0 ? (size_t) n_out : 1, sizeof(*m.output_errors));
        if (!m.output_errors)
                return -ENOMEM;
        eval_stats_latency(&total, &m.total_latency);
        eval_stats_latency(&ref_lat, &m.reference_latency);
        eval_stats_latency(&test_lat, &m.test_latency);
        for (int32_t o = 0; o < n_out; o++)
                eval_stats_accuracy(&errs[o], &m.output_errors[o]);
        *ret = m;
        return 0;
}
