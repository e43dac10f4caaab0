/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The model store from serving: ListModels / RemoveModel with tenants,
 * through the daemon's storage owner (core/storage-owner.h).
 */
#include "serving-internal.h"

/* ---- ListModels / RemoveModel ---- */

typedef struct store_list_call {
        store_model_t *v;
        size_t n;
        bool all;               /* an operator: every uid's models */
        uid_t uid;
} store_list_call_t;

static int store_list_job(store_db_t *db, void *userdata) {
        store_list_call_t *c = userdata;

        return c->all ? store_model_list(db, &c->v, &c->n) : store_model_list_owned(db, (uint32_t) c->uid, &c->v, &c->n);
}

typedef struct models_result {
        daemon_model_entry_t *loaded;
        size_t n_loaded;
        store_list_call_t stored;
        bool have_store;
} models_result_t;

static void list_run(daemon_job_t *job) {
        serving_job_t *j = job->data;
        models_result_t *res = calloc(1, sizeof(*res));
        int r;

        if (!res) {
                job->result = -ENOMEM;
                return;
        }
        res->stored.all = j->rq->conn->operator;
        res->stored.uid = j->rq->conn->peer.uid;
        r = daemon_storage_call(store_list_job, &res->stored);
        res->have_store = r == 0;
        if (r < 0 && r != -ENODEV)
                log_warning("cannot list stored models: %s", strerror(-r));
        r = daemon_models_list(&j->sv->models, &res->loaded, &res->n_loaded);
        if (r < 0) {
                store_model_list_free(res->stored.v, res->stored.n);
                free(res);
                job->result = r;
                return;
        }
        if (!res->stored.all) {
                /* Another uid's models stay out of sight, loaded or not:
                 * only those this uid stored are listed. */
                for (size_t l = 0; l < res->n_loaded; l++) {
                        bool own = false;
                        for (size_t k = 0; k < res->stored.n && !own; k++)
                                own = strcmp(res->stored.v[k].sha256, res->loaded[l].sha256) == 0;
                        if (!own)
                                res->loaded[l].sha256[0] = '\0';
                }
        }
        j->result = res;
        job->result = 0;
}

static void models_result_free(models_result_t *res) {
        if (!res)
                return;
        free(res->loaded);
        store_model_list_free(res->stored.v, res->stored.n);
        free(res);
}

static void list_done(daemon_job_t *job, int r) {
        serving_job_t *j = job->data;
        daemon_request_t *rq = j->rq;
        models_result_t *res = j->result;
        Acceld__ListModelsResponse *out;
        Acceld__ModelEntry *e;
        size_t n = 0, cap;

        j->result = NULL;
        if (r < 0) {
                models_result_free(res);
                serving__job_complete(j, r);
                return;
        }
        cap = res->n_loaded + res->stored.n + 1;
        out = daemon_request_alloc(rq, sizeof(*out));
        e = daemon_request_alloc(rq, sizeof(*e) * cap);
        if (out) {
                acceld__list_models_response__init(out);
                out->models = daemon_request_alloc(rq, sizeof(void *) * cap);
        }
        if (!out || !e || !out->models) {
                models_result_free(res);
                serving__job_complete(j, -ENOMEM);
                return;
        }
        /* Stored models first (with their instances when loaded), then
         * models only loaded (prepared from bytes without a name). */
        for (size_t k = 0; k < res->stored.n; k++) {
                const store_model_t *sm = &res->stored.v[k];

                acceld__model_entry__init(&e[n]);
                e[n].sha256 = daemon_request_strdup(rq, sm->sha256);
                e[n].name = daemon_request_strdup(rq, sm->name ? sm->name : "");
                e[n].has_size = e[n].has_instances = e[n].has_references = 1;
                e[n].size = sm->size;
                for (size_t l = 0; l < res->n_loaded; l++)
                        if (strcmp(res->loaded[l].sha256, sm->sha256) == 0) {
                                e[n].instances = res->loaded[l].instances;
                                e[n].references = res->loaded[l].references;
                                res->loaded[l].sha256[0] = '\0';   /* listed */
                        }
                out->models[n] = &e[n];
                n++;
        }
        for (size_t l = 0; l < res->n_loaded; l++) {
                if (!res->loaded[l].sha256[0])
                        continue;
                acceld__model_entry__init(&e[n]);
                e[n].sha256 = daemon_request_strdup(rq, res->loaded[l].sha256);
                e[n].name = daemon_request_strdup(rq, res->loaded[l].name);
                e[n].has_size = e[n].has_instances = e[n].has_references = 1;
                e[n].size = res->loaded[l].size;
                e[n].instances = res->loaded[l].instances;
                e[n].references = res->loaded[l].references;
                out->models[n] = &e[n];
                n++;
        }
        models_result_free(res);
        for (size_t k = 0; k < n; k++)
                if (!e[k].sha256 || !e[k].name) {
                        serving__job_complete(j, -ENOMEM);
                        return;
                }
        out->n_models = n;
        rq->resp.body_case = ACCELD__RESPONSE__BODY_LIST_MODELS;
        rq->resp.list_models = out;
        serving__job_complete(j, 0);
}

int daemon_list_models_handle(daemon_request_t *rq) {
        serving_session_t *ss = serving__session_get(rq);
        serving_job_t *j;
        int r;

        if (!ss)
                return -ENOMEM;
        j = serving__job_new(rq, ss);
        if (!j)
                return -ENOMEM;
        j->job.priority = 2;
        j->job.run = list_run;
        j->job.done = list_done;
        r = serving__job_submit(rq, ss, j, "storage");
        if (r < 0)
                serving__job_free(j);
        return r;
}

typedef struct store_remove_call {
        const char *key;
        bool all;               /* an operator: removes the model for everyone */
        uid_t uid;
} store_remove_call_t;

/* A tenant gives up its own copy (by sha256 or its own name); an operator
 * removes the model for everyone (by sha256, or the operator's own name:
 * names are per uid). */
static int store_remove_job(store_db_t *db, void *userdata) {
        store_remove_call_t *c = userdata;
        store_model_t m = { 0 };
        int r;

        if (!c->all)
                return store_model_disown(db, c->key, (uint32_t) c->uid);
        r = store_model_find_for(db, c->key, (uint32_t) c->uid, true, &m);
        if (r == 0)
                r = store_model_remove(db, m.sha256);
        store_model_done(&m);
        return r;
}

static void remove_run(daemon_job_t *job) {
        serving_job_t *j = job->data;
        store_remove_call_t c = { .key = j->src.sha256 ? j->src.sha256 : j->src.name,
                                  .all = j->rq->conn->operator, .uid = j->rq->conn->peer.uid };
        int r = daemon_storage_call(store_remove_job, &c);

        if (r == -ENODEV)
                (void) snprintf(j->err, sizeof(j->err), "the model store is unavailable");
        else if (r == -ENOENT)
                (void) snprintf(j->err, sizeof(j->err), "no model %s in the store", c.key);
        job->result = r;
}

static void remove_done(daemon_job_t *job, int r) {
        serving_job_t *j = job->data;
        daemon_request_t *rq = j->rq;
        Acceld__RemoveModelResponse *out;

        if (r < 0) {
                serving__job_complete(j, r);
                return;
        }
        out = daemon_request_alloc(rq, sizeof(*out));
        if (!out) {
                serving__job_complete(j, -ENOMEM);
                return;
        }
        acceld__remove_model_response__init(out);
        rq->resp.body_case = ACCELD__RESPONSE__BODY_REMOVE_MODEL;
        rq->resp.remove_model = out;
        serving__job_complete(j, 0);
}

/* Removes the stored copy; prepared handles keep the loaded model until
 * they are released. */
int daemon_remove_model_handle(daemon_request_t *rq) {
        const Acceld__RemoveModelRequest *in = rq->req->remove_model;
        serving_session_t *ss = serving__session_get(rq);
        serving_job_t *j;
        int r;

        if (!ss)
                return -ENOMEM;
        if (!(in->sha256 && in->sha256[0]) == !(in->name && in->name[0]))
                return daemon_request_errorf(rq, -EINVAL, "RemoveModel needs exactly one of sha256 or name");
        j = serving__job_new(rq, ss);
        if (!j)
                return -ENOMEM;
        j->src.sha256 = in->sha256 && in->sha256[0] ? in->sha256 : NULL;
        j->src.name = in->name && in->name[0] ? in->name : NULL;
        j->job.priority = 2;
        j->job.run = remove_run;
        j->job.done = remove_done;
        r = serving__job_submit(rq, ss, j, "storage");
        if (r < 0)
                serving__job_free(j);
        return r;
}
