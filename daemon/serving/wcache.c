/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The weights cache as the daemon shows it: GetStatus counters and
 * ManageWeightsCache (list the files; clear them, operators only). Scans
 * and removals touch the file system, so they run on the storage queue's
 * worker, never the loop.
 */
#include <limits.h>

#include "serving-internal.h"

/* Fill `out` from the cache (NULL: off). Strings are the request's. */
static int status_fill(daemon_request_t *rq, rt_wcache_t *c, Acceld__WeightsCacheStatus *out) {
        rt_wcache_stats_t st;

        acceld__weights_cache_status__init(out);
        rt_wcache_stats(c, &st);
        out->directory = daemon_request_strdup(rq, c ? rt_wcache_dir(c) : "");
        if (!out->directory)
                return -ENOMEM;
        out->has_hits = out->has_misses = out->has_inserts = out->has_corrupt = out->has_evictions = 1;
        out->has_files = out->has_bytes = out->has_mapped_bytes = out->has_quota_bytes = 1;
        out->hits = st.hits;
        out->misses = st.misses;
        out->inserts = st.inserts;
        out->corrupt = st.corrupt;
        out->evictions = st.evictions;
        out->files = st.files;
        out->bytes = st.bytes;
        out->mapped_bytes = st.mapped_bytes;
        out->quota_bytes = st.quota;
        return 0;
}

Acceld__WeightsCacheStatus *daemon_wcache_status(daemon_request_t *rq) {
        daemon_serving_t *sv = rq->server->serving;
        Acceld__WeightsCacheStatus *out = daemon_request_alloc(rq, sizeof(*out));

        if (!out || status_fill(rq, sv ? sv->models.wcache : NULL, out) < 0)
                return NULL;
        return out;
}

typedef struct wcache_result {
        rt_wcache_entry_t *entries;
        size_t n;
        uint64_t removed, removed_bytes;
} wcache_result_t;

static void manage_run(daemon_job_t *job) {
        serving_job_t *j = job->data;
        const Acceld__ManageWeightsCacheRequest *in = j->rq->req->manage_weights_cache;
        rt_wcache_t *c = j->sv->models.wcache;
        wcache_result_t *res = calloc(1, sizeof(*res));
        int r;

        if (!res) {
                job->result = -ENOMEM;
                return;
        }
        if (in->action == ACCELD__WEIGHTS_CACHE_ACTION__WEIGHTS_CACHE_CLEAR)
                r = rt_wcache_clear(c, &res->removed, &res->removed_bytes);
        else
                r = rt_wcache_list(c, &res->entries, &res->n);
        if (r < 0) {
                (void) snprintf(j->err, sizeof(j->err), "cannot read the weights cache %s: %s", rt_wcache_dir(c),
                                strerror(-r));
                free(res);
                job->result = r;
                return;
        }
        j->result = res;
        job->result = 0;
}

static void manage_done(daemon_job_t *job, int r) {
        serving_job_t *j = job->data;
        daemon_request_t *rq = j->rq;
        wcache_result_t *res = j->result;
        Acceld__ManageWeightsCacheResponse *out = NULL;
        Acceld__WeightsCacheEntry *e = NULL;

        j->result = NULL;
        if (r < 0)
                goto done;
        r = -ENOMEM;
        out = daemon_request_alloc(rq, sizeof(*out));
        Acceld__WeightsCacheStatus *st = daemon_request_alloc(rq, sizeof(*st));
        if (!out || !st)
                goto done;
        acceld__manage_weights_cache_response__init(out);
        if (status_fill(rq, j->sv->models.wcache, st) < 0)
                goto done;
        out->status = st;
        out->has_removed_files = out->has_removed_bytes = 1;
        out->removed_files = res->removed;
        out->removed_bytes = res->removed_bytes;
        if (res->n > 0) {
                e = daemon_request_alloc(rq, sizeof(*e) * res->n);
                out->entries = daemon_request_alloc(rq, sizeof(void *) * res->n);
                if (!e || !out->entries)
                        goto done;
                for (size_t k = 0; k < res->n; k++) {
                        acceld__weights_cache_entry__init(&e[k]);
                        e[k].file = daemon_request_strdup(rq, res->entries[k].file);
                        e[k].key = daemon_request_strdup(rq, res->entries[k].key);
                        if (!e[k].file || !e[k].key)
                                goto done;
                        e[k].has_bytes = e[k].has_last_used_unix = e[k].has_mapped = e[k].has_valid = 1;
                        e[k].bytes = res->entries[k].bytes;
                        e[k].last_used_unix = res->entries[k].mtime;
                        e[k].mapped = res->entries[k].mapped;
                        e[k].valid = res->entries[k].valid;
                        out->entries[k] = &e[k];
                }
                out->n_entries = res->n;
        }
        rq->resp.body_case = ACCELD__RESPONSE__BODY_MANAGE_WEIGHTS_CACHE;
        rq->resp.manage_weights_cache = out;
        r = 0;
done:
        if (res)
                free(res->entries);
        free(res);
        serving__job_complete(j, r);
}

int daemon_manage_weights_cache_handle(daemon_request_t *rq) {
        const Acceld__ManageWeightsCacheRequest *in = rq->req->manage_weights_cache;
        serving_session_t *ss = serving__session_get(rq);
        serving_job_t *j;
        int r;

        if (!ss)
                return -ENOMEM;
        if (!ss->sv->models.wcache)
                return daemon_request_errorf(rq, -ENODEV,
                                             "the weights cache is off (weights_cache_bytes = 0, or its directory "
                                             "could not be opened)");
        /* The keys name models by hash: another uid's models are not this
         * caller's business, so listing and clearing are for operators. */
        if (!rq->conn->operator)
                return daemon_request_errorf(rq, -EPERM,
                                             "the weights cache is shared by every uid: only root and the "
                                             "operators group may list or clear it (GetStatus shows its counters)");
        if (in->action != ACCELD__WEIGHTS_CACHE_ACTION__WEIGHTS_CACHE_LIST &&
            in->action != ACCELD__WEIGHTS_CACHE_ACTION__WEIGHTS_CACHE_CLEAR)
                return daemon_request_errorf(rq, -EINVAL, "unknown weights cache action %d", (int) in->action);
        j = serving__job_new(rq, ss);
        if (!j)
                return -ENOMEM;
        j->job.priority = 2;
        j->job.run = manage_run;
        j->job.done = manage_done;
        r = serving__job_submit(rq, ss, j, "storage");
        if (r < 0)
                serving__job_free(j);
        return r;
}
