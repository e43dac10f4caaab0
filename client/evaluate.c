/* SPDX-License-Identifier: Apache-2.0 */
/* libaccel: evaluation stages on acceld (Evaluate) and their records. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "accel-internal.h"

static void evaluation_clear(accel_evaluation_t *e) {
        free(e->model_sha256);
        free(e->settings_key);
        free(e->stage);
        free(e->source);
        free(e->metrics_json);
        *e = (accel_evaluation_t) { 0 };
}

accel_evaluation_t *accel_evaluation_free(accel_evaluation_t *e) {
        if (!e)
                return NULL;
        evaluation_clear(e);
        free(e);
        return NULL;
}

void accel_evaluations_free(accel_evaluation_t *v, size_t n) {
        if (!v)
                return;
        for (size_t i = 0; i < n; i++)
                evaluation_clear(&v[i]);
        free(v);
}

static int evaluation_copy(accel_evaluation_t *out, const Acceld__EvaluationRecord *in) {
        *out = (accel_evaluation_t) {
                .id = in->id,
                .has_accuracy = in->has_accuracy,
                .accuracy = in->accuracy,
                .samples = in->samples,
                .wallclock_us = in->wallclock_us,
                .has_uid = in->has_uid,
                .uid = in->uid,
        };
        out->model_sha256 = accel__strdup0(in->model_sha256);
        out->settings_key = accel__strdup0(in->settings_key);
        out->stage = accel__strdup0(in->stage);
        out->source = accel__strdup0(in->source);
        out->metrics_json = accel__strdup0(in->metrics_json);
        if (!out->model_sha256 || !out->settings_key || !out->stage || !out->source || !out->metrics_json) {
                evaluation_clear(out);
                return accel__error(-ENOMEM, ACCEL_STATUS_NONE, "out of memory");
        }
        return 0;
}

static int evaluate(accel_interp_t *it, Acceld__EvaluateRequest *body, accel_evaluation_t **ret) {
        Acceld__Request req = ACCELD__REQUEST__INIT;
        Acceld__Response *resp = NULL;
        accel_evaluation_t *out = NULL;
        accel_client_t *c = accel__interp_client(it);
        int r;

        if (!c)
                return accel__error(-EINVAL, ACCEL_STATUS_NONE, "accel_interp_evaluate: invalid interpreter");
        if (accel__interp_busy(it))
                return accel__error(-EBUSY, ACCEL_STATUS_NONE, "an invoke started with accel_interp_invoke_start() "
                                                               "has not been waited for");
        body->has_handle = 1;
        body->handle = accel__interp_handle(it);
        req.body_case = ACCELD__REQUEST__BODY_EVALUATE;
        req.evaluate = body;
        r = accel__transact(c, &req, ACCELD__RESPONSE__BODY_EVALUATE, &resp);
        if (r < 0)
                return r;
        if (!resp->evaluate->record) {
                acceld__response__free_unpacked(resp, NULL);
                return accel__error(-EPROTO, ACCEL_STATUS_NONE, "acceld sent no evaluation record");
        }
        if (ret) {
                out = calloc(1, sizeof(*out));
                r = out ? evaluation_copy(out, resp->evaluate->record)
                        : accel__error(-ENOMEM, ACCEL_STATUS_NONE, "out of memory");
                if (r < 0) {
                        free(out);
                        acceld__response__free_unpacked(resp, NULL);
                        return r;
                }
                *ret = out;
        }
        acceld__response__free_unpacked(resp, NULL);
        return 0;
}

int accel_interp_evaluate_diff(accel_interp_t *it, uint32_t runs, uint64_t seed, accel_evaluation_t **ret) {
        Acceld__EvaluateRequest body = ACCELD__EVALUATE_REQUEST__INIT;

        accel__error_clear();
        if (!it || !ret)
                return accel__error(-EINVAL, ACCEL_STATUS_NONE, "accel_interp_evaluate_diff: invalid argument");
        body.has_stage = 1;
        body.stage = ACCELD__EVALUATION_STAGE__EVALUATION_STAGE_INFERENCE_DIFF;
        body.has_runs = runs > 0;
        body.runs = runs;
        body.has_seed = 1;
        body.seed = seed;
        return evaluate(it, &body, ret);
}

int accel_interp_evaluation_record(accel_interp_t *it, accel_eval_stage_t stage, const char *metrics_json,
                                   bool has_accuracy, double accuracy, uint32_t samples,
                                   accel_evaluation_t **ret) {
        Acceld__EvaluateRequest body = ACCELD__EVALUATE_REQUEST__INIT;

        accel__error_clear();
        if (!it || !metrics_json || (stage != ACCEL_EVAL_STAGE_TOPK && stage != ACCEL_EVAL_STAGE_DETECTION))
                return accel__error(-EINVAL, ACCEL_STATUS_NONE, "accel_interp_evaluation_record: invalid argument");
        body.has_stage = 1;
        body.stage = (Acceld__EvaluationStage) stage;
        body.metrics_json = (char *) metrics_json;
        body.has_accuracy = has_accuracy;
        body.accuracy = accuracy;
        body.has_samples = 1;
        body.samples = samples;
        return evaluate(it, &body, ret);
}

int accel_evaluations(accel_client_t *c, const char *model_sha256, uint32_t limit, accel_evaluation_t **ret,
                      size_t *ret_n) {
        Acceld__Request req = ACCELD__REQUEST__INIT;
        Acceld__ListBenchmarkEventsRequest body = ACCELD__LIST_BENCHMARK_EVENTS_REQUEST__INIT;
        Acceld__Response *resp = NULL;
        const Acceld__ListBenchmarkEventsResponse *m;
        accel_evaluation_t *v;
        int r;

        accel__error_clear();
        if (!c || !ret || !ret_n)
                return accel__error(-EINVAL, ACCEL_STATUS_NONE, "accel_evaluations: invalid argument");
        body.has_evaluations = 1;
        body.evaluations = 1;
        body.model_sha256 = (char *) model_sha256;
        body.has_limit = limit > 0;
        body.limit = limit;
        req.body_case = ACCELD__REQUEST__BODY_LIST_BENCHMARK_EVENTS;
        req.list_benchmark_events = &body;
        r = accel__transact(c, &req, ACCELD__RESPONSE__BODY_LIST_BENCHMARK_EVENTS, &resp);
        if (r < 0)
                return r;
        m = resp->list_benchmark_events;
        v = calloc(m->n_evaluations + 1, sizeof(*v));
        if (!v) {
                acceld__response__free_unpacked(resp, NULL);
                return accel__error(-ENOMEM, ACCEL_STATUS_NONE, "out of memory");
        }
        for (size_t i = 0; i < m->n_evaluations; i++) {
                r = evaluation_copy(&v[i], m->evaluations[i]);
                if (r < 0) {
                        accel_evaluations_free(v, i);
                        acceld__response__free_unpacked(resp, NULL);
                        return r;
                }
        }
        *ret = v;
        *ret_n = m->n_evaluations;
        acceld__response__free_unpacked(resp, NULL);
        return 0;
}
