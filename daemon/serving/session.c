/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Connections and sessions: who may connect, per-uid usage, and the jobs
 * every serving request shares (link, submit, complete).
 */
#include "serving-internal.h"

/* ---- usage and sessions ---- */

static daemon_uid_usage_t *usage_get(daemon_serving_t *sv, uid_t uid) {
        daemon_uid_usage_t *u;

        for (u = sv->usage; u; u = u->next)
                if (u->uid == uid)
                        return u;
        u = calloc(1, sizeof(*u));
        if (!u)
                return NULL;
        u->uid = uid;
        u->next = sv->usage;
        sv->usage = u;
        return u;
}

serving_session_t *serving__session_get(daemon_request_t *rq) {
        daemon_conn_t *c = rq->conn;
        daemon_serving_t *sv = rq->server->serving;
        serving_session_t *ss = c->session;

        if (ss)
                return ss;
        ss = calloc(1, sizeof(*ss));
        if (!ss)
                return NULL;
        ss->usage = usage_get(sv, c->peer.uid);
        if (!ss->usage) {
                free(ss);
                return NULL;
        }
        ss->sv = sv;
        ss->conn = c;
        c->session = ss;
        return ss;
}

void serving__buffer_unref(daemon_serving_t *sv, serving_buffer_t *b) {
        if (!b || --b->n_ref > 0)
                return;
        rt_shm_unregister(b->shm_id);
        (void) munmap(b->map, b->size);
        (void) close(b->fd);
        sv->n_buffers--;
        free(b);
}

static void job_link(serving_session_t *ss, serving_job_t *j) {
        j->session = ss;
        j->prev = NULL;
        j->next = ss->jobs;
        if (ss->jobs)
                ss->jobs->prev = j;
        ss->jobs = j;
}

static void job_unlink(serving_job_t *j) {
        serving_session_t *ss = j->session;

        if (!ss)
                return;
        if (j->prev)
                j->prev->next = j->next;
        else
                ss->jobs = j->next;
        if (j->next)
                j->next->prev = j->prev;
        j->prev = j->next = NULL;
        j->session = NULL;
}

void serving__infos_free(daemon_tensor_info_t *v, int32_t n) {
        for (int32_t k = 0; v && k < n; k++)
                daemon_tensor_info_done(&v[k]);
        free(v);
}

void serving__handle_free(daemon_serving_t *sv, serving_handle_t *h) {
        serving__lanes_close_handle(sv, h);
        if (h->usage)
                h->usage->model_bytes -= h->instance->model->size;
        serving__infos_free(h->inputs, h->instance->n_inputs);
        serving__infos_free(h->outputs, h->instance->n_outputs);
        (void) daemon_state_unref(h->state);
        (void) daemon_instance_unref(&sv->models, h->instance);
        free(h);
}

void serving__job_free(serving_job_t *j) {
        daemon_serving_t *sv = j->sv;

        free(j->shapes);
        free(j->ranks);
        serving__infos_free(j->new_inputs, j->n_new_inputs);
        serving__infos_free(j->new_outputs, j->n_new_outputs);
        if (j->ops)
                acceld__get_supported_operations_response__free_unpacked(j->ops, NULL);

        for (size_t k = 0; k < j->n_inputs; k++)
                serving__buffer_unref(sv, j->inputs[k].buffer);
        for (size_t k = 0; k < j->n_outputs; k++) {
                serving__buffer_unref(sv, j->outputs[k].buffer);
                free(j->outputs[k].inline_out);
        }
        free(j->inputs);
        free(j->outputs);
        (void) daemon_state_unref(j->state);
        if (j->instance)
                (void) daemon_instance_unref(&sv->models, j->instance);
        if (j->model_fd >= 0)
                (void) close(j->model_fd);
        rt_settings_done(&j->settings);
        if (j->usage && j->usage->queued > 0)
                j->usage->queued--;
        free(j);
}

static void session_cancel_queued(serving_session_t *ss) {
        (void) daemon_sched_cancel_owner(&ss->sv->sched, ss);
}

static void on_conn_eof(daemon_conn_t *c) {
        if (c->session)
                session_cancel_queued(c->session);
}

static void on_conn_close(daemon_conn_t *c) {
        serving_session_t *ss = c->session;
        daemon_serving_t *sv;

        if (!ss)
                return;
        sv = ss->sv;
        /* Queued work goes first (its replies are dropped: the connection
         * is closing); running work finishes with its own references. */
        session_cancel_queued(ss);
        serving__lanes_close_session(ss);
        while (ss->jobs)
                job_unlink(ss->jobs);
        while (ss->handles) {
                serving_handle_t *h = ss->handles;

                ss->handles = h->next;
                serving__handle_free(sv, h);
                sv->n_handles--;
                if (ss->usage->prepared > 0)
                        ss->usage->prepared--;
        }
        while (ss->buffers) {
                serving_buffer_t *b = ss->buffers;

                ss->buffers = b->next;
                sv->registered_bytes -= b->size;
                ss->usage->registered_bytes -= b->size;
                daemon_conn_fds_release(c, 1);
                serving__buffer_unref(sv, b);
        }
        c->session = NULL;
        free(ss);
}

static bool id_in(const uid_t *v, size_t n, uid_t x) {
        for (size_t i = 0; i < n; i++)
                if (v[i] == x)
                        return true;
        return false;
}

/* Whether uid (primary gid `gid`) is a member of group `want`. */
static bool in_group(uid_t uid, gid_t gid, gid_t want) {
        struct passwd pw, *found = NULL;
        char buf[4096];
        gid_t groups[256];
        int n = 256;

        if (gid == want)
                return true;
        if (getpwuid_r(uid, &pw, buf, sizeof(buf), &found) != 0 || !found)
                return false;
        if (getgrouplist(found->pw_name, gid, groups, &n) < 0)
                n = 256;   /* truncated: check what fits */
        for (int i = 0; i < n; i++)
                if (groups[i] == want)
                        return true;
        return false;
}

static int on_conn_open(daemon_conn_t *c) {
        daemon_serving_t *sv = c->server->serving;

        c->operator = c->peer.uid == 0 || c->peer.uid == geteuid() ||
                      (sv->has_operators_gid && in_group(c->peer.uid, c->peer.gid, sv->operators_gid));

        if (sv->n_allowed_uids == 0 && sv->n_allowed_gids == 0)
                return 0;
        if (c->peer.uid == 0 || c->peer.uid == geteuid())
                return 0;
        if (id_in(sv->allowed_uids, sv->n_allowed_uids, c->peer.uid))
                return 0;
        if (id_in((const uid_t *) sv->allowed_gids, sv->n_allowed_gids, (uid_t) c->peer.gid))
                return 0;
        return -EACCES;
}

static int parse_id_list(const char *text, uid_t **ret, size_t *ret_n) {
        _cleanup_free_ uid_t *v = NULL;
        size_t n = 0;
        const char *p = text;

        if (!text || !*text) {
                *ret = NULL;
                *ret_n = 0;
                return 0;
        }
        v = calloc(strlen(text) / 2 + 2, sizeof(uid_t));
        if (!v)
                return -ENOMEM;
        while (*p) {
                char *end;
                unsigned long x;

                while (*p == ' ' || *p == ',')
                        p++;
                if (!*p)
                        break;
                errno = 0;
                x = strtoul(p, &end, 10);
                if (errno || end == p || x > UINT32_MAX - 1)
                        return -EINVAL;
                v[n++] = (uid_t) x;
                p = end;
                if (*p && *p != ',' && *p != ' ')
                        return -EINVAL;
        }
        *ret = TAKE_PTR(v);
        *ret_n = n;
        return 0;
}

int daemon_serving_init(daemon_serving_t *sv, daemon_server_t *s) {
        const daemon_config_t *cfg = s->config;
        int r;

        *sv = (daemon_serving_t) { .server = s, .next_handle = 1, .next_buffer = 1 };
        r = parse_id_list(cfg->allowed_uids, &sv->allowed_uids, &sv->n_allowed_uids);
        if (r < 0)
                return r;
        r = parse_id_list(cfg->allowed_gids, (uid_t **) &sv->allowed_gids, &sv->n_allowed_gids);
        if (r < 0)
                return r;
        if (cfg->operators_group && cfg->operators_group[0]) {
                struct group gr, *found = NULL;
                char buf[4096], *end;
                unsigned long v = strtoul(cfg->operators_group, &end, 10);

                if (*end == '\0' && end != cfg->operators_group)
                        sv->operators_gid = (gid_t) v;
                else if (getgrnam_r(cfg->operators_group, &gr, buf, sizeof(buf), &found) == 0 && found)
                        sv->operators_gid = found->gr_gid;
                else
                        return -EINVAL;
                sv->has_operators_gid = true;
        }
        r = daemon_models_init(&sv->models, cfg->max_model_bytes,
                               (unsigned) (cfg->instance_concurrency ? cfg->instance_concurrency
                                                                     : cfg->worker_threads));
        if (r < 0)
                return r;
        sv->models.batch_max = (unsigned) cfg->batch_max_size;
        sv->models.batch_delay_ns = cfg->batch_max_delay_us * 1000u;
        {
                char dir[PATH_MAX];

                r = daemon_config_weights_dir(cfg, dir, sizeof(dir));
                if (r == 0)
                        r = rt_wcache_open(dir, cfg->weights_cache_bytes, &sv->models.wcache);
                if (r < 0 && r != -ENOENT)
                        log_warning_errno(r, "weights cache off: cannot open %s/weights", cfg->state_dir);
        }
        r = daemon_sched_init(&sv->sched, s->loop, (unsigned) cfg->worker_threads);
        if (r < 0)
                return r;
        r = serving__lanes_init(sv);
        if (r < 0)
                return r;
        sv->started = true;
        s->serving = sv;
        s->on_conn_open = on_conn_open;
        s->on_conn_close = on_conn_close;
        s->on_conn_eof = on_conn_eof;
        return 0;
}

void daemon_serving_done(daemon_serving_t *sv) {
        if (!sv->started)
                return;
        sv->started = false;
        serving__lanes_done(sv);       /* lane threads take the scheduler's slots */
        daemon_sched_stop(&sv->sched);
        daemon_models_done(&sv->models);
        while (sv->usage) {
                daemon_uid_usage_t *u = sv->usage;

                sv->usage = u->next;
                free(u);
        }
        free(sv->allowed_uids);
        free(sv->allowed_gids);
}

Acceld__ServingStatus *daemon_serving_status(daemon_request_t *rq) {
        daemon_serving_t *sv = rq->server->serving;
        const daemon_config_t *cfg = rq->server->config;
        Acceld__ServingStatus *st = daemon_request_alloc(rq, sizeof(*st));
        Acceld__UidLimits *l = daemon_request_alloc(rq, sizeof(*l));
        Acceld__UidUsage *u = daemon_request_alloc(rq, sizeof(*u));
        daemon_uid_usage_t *mine;
        unsigned instances, interps;

        if (!st || !l || !u || !sv)
                return NULL;
        acceld__serving_status__init(st);
        acceld__uid_limits__init(l);
        acceld__uid_usage__init(u);
        daemon_models_counts(&sv->models, NULL, &instances, &interps);
        st->has_compiled_instances = 1;
        st->compiled_instances = instances;
        st->has_prepared_models = 1;
        st->prepared_models = sv->n_handles;
        st->has_registered_buffers = 1;
        st->registered_buffers = sv->n_buffers;
        st->has_registered_bytes = 1;
        st->registered_bytes = sv->registered_bytes;
        st->has_queued_requests = 1;
        st->queued_requests = daemon_sched_queued(&sv->sched);
        st->has_running_requests = 1;
        st->running_requests = daemon_sched_running(&sv->sched);
        st->has_interpreters = 1;
        st->interpreters = interps;
        st->has_worker_threads = 1;
        st->worker_threads = daemon_sched_threads(&sv->sched);
        st->has_executions = 1;
        st->executions = sv->executions + serving__lanes_executions(sv);
        st->has_lanes = st->has_lane_executions = 1;
        st->lanes = serving__lanes_open(sv);
        st->lane_executions = serving__lanes_executions(sv);
        st->has_cpu_budget = st->has_cpu_in_use = 1;
        st->cpu_budget = daemon_cpu_budget();
        st->cpu_in_use = daemon_cpu_in_use();
        l->has_max_prepared_models = 1;
        l->max_prepared_models = (uint32_t) cfg->max_models_per_uid;
        l->has_max_registered_bytes = 1;
        l->max_registered_bytes = cfg->max_registered_bytes_per_uid;
        l->has_max_queued_requests = 1;
        l->max_queued_requests = (uint32_t) cfg->max_queued_per_uid;
        st->uid_limits = l;
        mine = usage_get(sv, rq->conn->peer.uid);
        u->has_uid = 1;
        u->uid = (uint32_t) rq->conn->peer.uid;
        if (mine) {
                u->has_prepared_models = u->has_registered_bytes = u->has_queued_requests = 1;
                u->prepared_models = mine->prepared;
                u->registered_bytes = mine->registered_bytes;
                u->queued_requests = mine->queued;
        }
        st->caller = u;
        return st;
}

/* ---- helpers ---- */

serving_handle_t *serving__handle_find(serving_session_t *ss, uint64_t id) {
        for (serving_handle_t *h = ss ? ss->handles : NULL; h; h = h->next)
                if (h->id == id)
                        return h;
        return NULL;
}

serving_buffer_t *serving__buffer_find(serving_session_t *ss, uint64_t id) {
        for (serving_buffer_t *b = ss ? ss->buffers : NULL; b; b = b->next)
                if (b->id == id)
                        return b;
        return NULL;
}

serving_job_t *serving__job_new(daemon_request_t *rq, serving_session_t *ss) {
        serving_job_t *j = calloc(1, sizeof(*j));

        if (!j)
                return NULL;
        j->rq = rq;
        j->sv = ss->sv;
        j->model_fd = -1;
        j->job.data = j;
        j->job.owner = ss;
        j->job.request_id = rq->req->request_id;
        rt_settings_init(&j->settings);
        return j;
}

int serving__buffer_admit(daemon_request_t *rq) {
        char why[256];
        int r = daemon_conn_fds_reserve(rq->conn, 1, why, sizeof(why));

        if (r < 0)
                return daemon_request_errorf(rq, -EAGAIN, "%s", why);
        return 0;
}

int serving__queue_check(daemon_request_t *rq, serving_session_t *ss) {
        uint64_t max = rq->server->config->max_queued_per_uid;

        if (max > 0 && ss->usage->queued >= max) {
                daemon_refusal_count(DAEMON_REFUSAL_queued_requests);
                return daemon_request_errorf(rq, -EAGAIN,
                                             "uid %u has %u requests queued or running (max_queued_per_uid %" PRIu64 ")",
                                             (unsigned) ss->usage->uid, ss->usage->queued, max);
        }
        return 0;
}

int serving__job_submit(daemon_request_t *rq, serving_session_t *ss, serving_job_t *j, const char *queue) {
        int r = daemon_sched_submit(&ss->sv->sched, queue, &j->job);

        if (r < 0)
                return daemon_request_errorf(rq, r, "cannot queue the request: %s", strerror(-r));
        j->usage = ss->usage;
        ss->usage->queued++;
        job_link(ss, j);
        return DAEMON_REQUEST_DEFERRED;
}

int serving__priority_of(Acceld__Priority p, int def) {
        switch (p) {
        case ACCELD__PRIORITY__PRIORITY_LOW:
                return 1;
        case ACCELD__PRIORITY__PRIORITY_MEDIUM:
                return 2;
        case ACCELD__PRIORITY__PRIORITY_HIGH:
                return 3;
        default:
                return def;
        }
}

static const char *job_error(serving_job_t *j, int r) {
        if (r == -ETIME && !j->err[0])
                return "the deadline passed before the request started";
        if (r == -ECANCELED)
                return "cancelled";
        return j->err[0] ? j->err : strerror(-r);
}

/* Finish the request of a job on the loop and free the job. */
void serving__job_complete(serving_job_t *j, int r) {
        daemon_request_t *rq = j->rq;

        job_unlink(j);
        if (r < 0) {
                if (r == -ECANCELED)
                        r = -ECANCELED;
                rq->message = daemon_request_strdup(rq, job_error(j, r));
        }
        serving__job_free(j);
        daemon_request_complete(rq, r);
}

/* The same when the response points into the job: send first, free after. */
void serving__job_complete_keep(serving_job_t *j, int r) {
        daemon_request_t *rq = j->rq;

        job_unlink(j);
        if (r < 0)
                rq->message = daemon_request_strdup(rq, job_error(j, r));
        daemon_request_complete(rq, r);
        serving__job_free(j);
}
