/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Evaluate: an evaluation stage on the instance a handle uses.
 * The inference diff runs on a worker of the instance's queue with
 * accel_eval's profiler (the instance against the reference path); top-K
 * and detection results computed by the client are recorded as given. Both
 * end in the `evaluations` table through the storage thread.
 */
#include <json-c/json.h>
#include <math.h>

#include "clock.h"
#include "eval.h"
#include "serving-internal.h"

#define EVALUATE_DEFAULT_RUNS 50
#define EVALUATE_MAX_RUNS 10000
#define EVALUATE_MAX_METRICS_JSON (256 * 1024)

typedef struct evaluate_state {
        Acceld__EvaluationStage stage;
        uint32_t runs;
        uint64_t seed;
        store_evaluation_t record;      /* filled by the worker, then stored */
} evaluate_state_t;

static void evaluate_state_free(evaluate_state_t *st) {
        if (!st)
                return;
        store_evaluation_done(&st->record);
        free(st);
}

static const char *stage_name(Acceld__EvaluationStage s) {
        switch (s) {
        case ACCELD__EVALUATION_STAGE__EVALUATION_STAGE_INFERENCE_DIFF:
                return STORE_STAGE_DIFF;
        case ACCELD__EVALUATION_STAGE__EVALUATION_STAGE_TOPK:
                return STORE_STAGE_TOPK;
        case ACCELD__EVALUATION_STAGE__EVALUATION_STAGE_DETECTION:
                return STORE_STAGE_DETECTION;
        default:
                return NULL;
        }
}

static int insert_job(store_db_t *db, void *userdata) {
        store_evaluation_t *e = userdata;

        /* The time the reply carries is the one stored. */
        if (!e->wallclock_us)
                e->wallclock_us = acc_clock_us(CLOCK_REALTIME);
        return store_evaluation_insert(db, e, &e->id);
}

int daemon_evaluation_record_fill(daemon_request_t *rq, Acceld__EvaluationRecord *rec, const store_evaluation_t *e) {
        acceld__evaluation_record__init(rec);
        rec->has_id = 1;
        rec->id = e->id;
        rec->model_sha256 = daemon_request_strdup(rq, e->model_sha256);
        rec->settings_key = daemon_request_strdup(rq, e->settings_key);
        rec->stage = daemon_request_strdup(rq, e->stage);
        rec->source = daemon_request_strdup(rq, e->source);
        rec->has_accuracy = e->has_accuracy;
        rec->accuracy = e->accuracy;
        rec->has_samples = 1;
        rec->samples = e->samples;
        rec->has_wallclock_us = 1;
        rec->wallclock_us = e->wallclock_us;
        rec->metrics_json = daemon_request_strdup(rq, e->metrics_json);
        rec->has_uid = e->has_uid;
        rec->uid = e->uid;
        return rec->model_sha256 && rec->settings_key && rec->stage && rec->source && rec->metrics_json ? 0 : -ENOMEM;
}

/* The instance (test) against the reference kernels (reference). */
static int diff_run(serving_job_t *j, evaluate_state_t *st) {
        rt_interp_t *test_it = NULL, *ref_it = NULL;
        eval_runner_t *test = NULL, *ref = NULL;
        eval_profiler_metrics_t m = {};
        json_object *json = NULL;
        int r;

        r = daemon_instance_acquire(j->instance, &test_it, j->err, sizeof(j->err));
        if (r < 0)
                return r;
        r = daemon_instance_reference_interp_new(j->instance, &ref_it, j->err, sizeof(j->err));
        if (r == 0)
                r = eval_runner_interp_new(test_it, "acceld", &test);
        if (r == 0)
                r = eval_runner_interp_new(ref_it, "reference", &ref);
        if (r == 0)
                r = eval_profiler_run(ref, test, (int32_t) st->runs, st->seed, NULL, NULL, &m, j->err,
                                      sizeof(j->err));
        if (r == 0) {
                json = eval_json_profiler(&m);
                const char *text = json ? json_object_to_json_string_ext(json, JSON_C_TO_STRING_PLAIN) : NULL;

                st->record.metrics_json = text ? strdup(text) : NULL;
                if (!st->record.metrics_json)
                        r = -ENOMEM;
                /* The headline: the largest mean output error. */
                st->record.has_accuracy = m.n_output_errors > 0;
                for (size_t o = 0; o < m.n_output_errors; o++)
                        if (o == 0 || m.output_errors[o].avg_value > st->record.accuracy)
                                st->record.accuracy = m.output_errors[o].avg_value;
                if (st->record.has_accuracy && !isfinite(st->record.accuracy))
                        st->record.has_accuracy = false;  /* SQLite REAL: no infinities worth keeping */
                st->record.samples = st->runs;
        }
        json_object_put(json);
        eval_profiler_metrics_done(&m);
        (void) eval_runner_free(test);
        (void) eval_runner_free(ref);
        rt_interp_free(ref_it);
        daemon_instance_release(j->instance, test_it);
        return r;
}

static void evaluate_run(daemon_job_t *job) {
        serving_job_t *j = job->data;
        evaluate_state_t *st = j->result;
        int r = 0;

        if (st->stage == ACCELD__EVALUATION_STAGE__EVALUATION_STAGE_INFERENCE_DIFF)
                r = diff_run(j, st);
        if (r == 0) {
                r = daemon_storage_call(insert_job, &st->record);
                if (r < 0)
                        (void) snprintf(j->err, sizeof(j->err), "cannot store the evaluation: %s",
                                        r == -ENODEV ? "no state database" : strerror(-r));
        }
        job->result = r;
}

static void evaluate_done(daemon_job_t *job, int r) {
        serving_job_t *j = job->data;
        daemon_request_t *rq = j->rq;
        evaluate_state_t *st = j->result;
        const store_evaluation_t *e = &st->record;
        Acceld__EvaluateResponse *out = NULL;
        Acceld__EvaluationRecord *rec = NULL;

        j->result = NULL;
        if (r == 0) {
                out = daemon_request_alloc(rq, sizeof(*out));
                rec = daemon_request_alloc(rq, sizeof(*rec));
        }
        if (r == 0 && out && rec) {
                acceld__evaluate_response__init(out);
                r = daemon_evaluation_record_fill(rq, rec, e);
                out->record = rec;
                rq->resp.body_case = ACCELD__RESPONSE__BODY_EVALUATE;
                rq->resp.evaluate = out;
        } else if (r == 0)
                r = -ENOMEM;
        evaluate_state_free(st);
        serving__job_complete(j, r);
}

/* The client's metrics: a JSON object of bounded size, a figure in [0, 1]. */
static int record_check(daemon_request_t *rq, const Acceld__EvaluateRequest *in) {
        json_object *o;
        bool is_object;

        if (!in->metrics_json || !in->metrics_json[0])
                return daemon_request_errorf(rq, -EINVAL, "a top-K or detection result needs metrics_json");
        if (strlen(in->metrics_json) > EVALUATE_MAX_METRICS_JSON)
                return daemon_request_errorf(rq, -EINVAL, "metrics_json is larger than %d bytes",
                                             EVALUATE_MAX_METRICS_JSON);
        o = json_tokener_parse(in->metrics_json);
        is_object = o && json_object_is_type(o, json_type_object);
        json_object_put(o);
        if (!is_object)
                return daemon_request_errorf(rq, -EINVAL, "metrics_json is not a JSON object");
        if (in->has_accuracy && !(in->accuracy >= 0 && in->accuracy <= 1))
                return daemon_request_errorf(rq, -EINVAL, "accuracy must be within [0, 1]");
        return 0;
}

int daemon_evaluate_handle(daemon_request_t *rq) {
        const Acceld__EvaluateRequest *in = rq->req->evaluate;
        serving_session_t *ss = rq->conn->session;
        serving_handle_t *h = ss ? serving__handle_find(ss, in->handle) : NULL;
        const char *stage = stage_name(in->has_stage ? in->stage : 0);
        bool diff = in->has_stage && in->stage == ACCELD__EVALUATION_STAGE__EVALUATION_STAGE_INFERENCE_DIFF;
        evaluate_state_t *st;
        serving_job_t *j;
        int r;

        if (!h)
                return daemon_request_errorf(rq, -ENOENT, "no model handle %" PRIu64 " on this connection",
                                             in->handle);
        if (!stage)
                return daemon_request_errorf(rq, -EINVAL, "no evaluation stage given");
        if (diff && in->has_runs && (in->runs < 1 || in->runs > EVALUATE_MAX_RUNS))
                return daemon_request_errorf(rq, -EINVAL, "runs must be within 1..%d", EVALUATE_MAX_RUNS);
        if (!diff) {
                r = record_check(rq, in);
                if (r < 0)
                        return r;
        }
        r = serving__queue_check(rq, ss);
        if (r < 0)
                return r;
        st = calloc(1, sizeof(*st));
        if (!st)
                return -ENOMEM;
        st->stage = in->stage;
        st->runs = in->has_runs ? in->runs : EVALUATE_DEFAULT_RUNS;
        st->seed = in->has_seed ? in->seed : 0;
        memcpy(st->record.model_sha256, h->instance->model->sha256, ACC_SHA256_HEX_SIZE);
        st->record.settings_key = strdup(h->instance->settings_key);
        st->record.stage = strdup(stage);
        st->record.source = strdup(diff ? "acceld" : "client");
        st->record.has_uid = true;
        st->record.uid = (uint32_t) rq->conn->peer.uid;
        /* Only an operator's results weigh in other uids' selection. */
        st->record.operator = rq->conn->operator;
        if (!diff) {
                st->record.metrics_json = strdup(in->metrics_json);
                st->record.has_accuracy = in->has_accuracy;
                st->record.accuracy = in->accuracy;
                st->record.samples = in->has_samples ? in->samples : 0;
        }
        if (!st->record.settings_key || !st->record.stage || !st->record.source ||
            (!diff && !st->record.metrics_json)) {
                evaluate_state_free(st);
                return -ENOMEM;
        }
        j = serving__job_new(rq, ss);
        if (!j) {
                evaluate_state_free(st);
                return -ENOMEM;
        }
        j->result = st;
        j->handle_id = h->id;
        j->instance = daemon_instance_ref(&ss->sv->models, h->instance);
        j->job.priority = h->priority;
        j->job.run = evaluate_run;
        j->job.done = evaluate_done;
        if (diff)
                j->job.resource = &h->instance->exec_slots;
        /* A diff runs where the instance's executions run; a record only
         * waits for the storage thread. */
        r = serving__job_submit(rq, ss, j, diff ? h->instance->queue : "storage");
        if (r < 0) {
                j->result = NULL;
                evaluate_state_free(st);
                serving__job_free(j);
        }
        return r;
}
