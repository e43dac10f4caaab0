/* SPDX-License-Identifier: Apache-2.0 */
/*
 * PrepareModel and ReleaseModel: settings from the request, the model
 * from bytes, an fd, the store or a cache token, and the shared instance.
 */
#include "serving-internal.h"
#include "clientfd.h"
#include "bench/placement.h"

/* ---- settings ---- */

static int settings_from_request(daemon_request_t *rq, const Acceld__PrepareModelRequest *in, rt_settings_t *ret) {
        const daemon_config_t *cfg = rq->server->config;
        char err[512] = "";
        int r;

        if (in->settings_json && in->settings_json[0]) {
                r = rt_settings_parse_json(in->settings_json, ret, err, sizeof(err));
                if (r < 0)
                        return daemon_request_errorf(rq, r, "settings_json: %s", err[0] ? err : strerror(-r));
                return 0;
        }
        rt_settings_init(ret);
        if (in->compute_settings && in->compute_settings->tflite_settings) {
                /* The same converter as benchmark candidates, so a plugin
                 * named in the extension field is accepted here too. */
                r = rt_settings_from_proto(in->compute_settings->tflite_settings, ret, err, sizeof(err));
                if (r < 0)
                        return daemon_request_errorf(rq, r, "compute_settings: %s", err[0] ? err : strerror(-r));
                switch (ret->delegate) {
                case RT_DELEGATE_NONE:
                case RT_DELEGATE_XNNPACK:
                case RT_DELEGATE_PLUGIN:
                        break;
                default:
                        r = (int) ret->delegate;
                        rt_settings_done(ret);
                        return daemon_request_errorf(rq, -ENODEV, "delegate %d is not available on this machine", r);
                }
                if (ret->cpu_num_threads == 0 || ret->xnnpack_num_threads == 0) {
                        rt_settings_done(ret);
                        return daemon_request_errorf(rq, -EINVAL, "num_threads must be -1 or >= 1");
                }
                return 0;
        }
        /* The daemon's choice. */
        {
                const char *d = cfg->default_delegate;
                bool xnn = false;

                if (!d || !d[0] || strcasecmp(d, "auto") == 0)
                        xnn = rt_driver_xnnpack() != NULL;
                else
                        xnn = strcasecmp(d, "XNNPACK") == 0;
                if (xnn) {
                        ret->delegate = RT_DELEGATE_XNNPACK;
                        (void) snprintf(ret->delegate_name, sizeof(ret->delegate_name), "XNNPACK");
                        ret->fallback_on_compilation_error = true;
                }
        }
        return 0;
}

/* ---- the store, for PrepareModel by name or sha256 ---- */

/* Tenants (docs/architecture.md): a uid reaches a stored model by one of
 * its own names, or by sha256 when it stored those bytes itself (an
 * operator: any stored model). Anything else is answered exactly as a
 * model that does not exist. */
typedef struct store_find_call {
        const char *key;
        uid_t uid;
        bool all;               /* an operator */
        store_model_t model;
} store_find_call_t;

static int store_find_job(store_db_t *db, void *userdata) {
        store_find_call_t *c = userdata;

        return store_model_find_for(db, c->key, (uint32_t) c->uid, c->all, &c->model);
}

static int store_owned_job(store_db_t *db, void *userdata) {
        store_find_call_t *c = userdata;
        int r = store_model_owned(db, c->key, (uint32_t) c->uid);

        return r < 0 ? r : r == 1 ? 0 : -ENOENT;
}

typedef struct store_add_call {
        const void *data;
        size_t size;
        const char *name;
        uid_t owner;
} store_add_call_t;

/* The bytes, and the owner's row with its name (names are per uid). */
static int store_add_job(store_db_t *db, void *userdata) {
        store_add_call_t *c = userdata;

        return store_model_add_for(db, c->data, c->size, c->name, (uint32_t) c->owner, NULL);
}

/* ---- PrepareModel ---- */

static void fill_tensor_info(daemon_request_t *rq, Acceld__TensorInfo *o, const daemon_tensor_info_t *t) {
        acceld__tensor_info__init(o);
        o->name = t->name;
        o->has_type = 1;
        o->type = t->type;
        o->type_name = (char *) rt_type_name(t->type);
        o->n_shape = (size_t) t->rank;
        o->shape = (int32_t *) t->dims;
        o->has_bytes = 1;
        o->bytes = t->bytes;
        if (t->n_quant > 0) {
                o->n_scale = o->n_zero_point = t->n_quant;
                o->scale = t->scale;
                o->zero_point = t->zero_point;
                o->has_quantized_dimension = 1;
                o->quantized_dimension = t->axis;
        }
        (void) rq;
}

Acceld__TensorInfo **serving__tensor_infos(daemon_request_t *rq, const daemon_tensor_info_t *v, int32_t n) {
        Acceld__TensorInfo **p = daemon_request_alloc(rq, sizeof(*p) * ((size_t) n + 1));
        Acceld__TensorInfo *o = daemon_request_alloc(rq, sizeof(*o) * ((size_t) n + 1));

        if (!p || !o)
                return NULL;
        for (int32_t k = 0; k < n; k++) {
                fill_tensor_info(rq, &o[k], &v[k]);
                p[k] = &o[k];
        }
        return p;
}

/*
 * The settings are final: the request's, the compilation cache's or a
 * benchmark decision's. Called once per prepare, before the instance key
 * is made: thread counts beyond acceld's CPUs are cut to its CPU budget
 * (they would only wait for each other), and the reply says so.
 */
static void prepare_settings_finish(serving_job_t *j) {
        (void) daemon_cpu_clamp(&j->settings, j->thread_note, sizeof(j->thread_note));
}

static void prepare_run(daemon_job_t *job) {
        serving_job_t *j = job->data;
        daemon_instance_t *inst = NULL;
        int r;

        if (j->model_fd >= 0) {
                /* Before anything reads it (a benchmark decision hashes it
                 * first): bytes that can no longer change, bounded in size
                 * and time (clientfd.h). */
                size_t size;
                int fd;

                r = daemon_clientfd_model(j->model_fd, j->sv->models.max_model_bytes, j->job.deadline_ns, &fd, &size,
                                          j->err, sizeof(j->err));
                if (r < 0) {
                        job->result = r;
                        return;
                }
                (void) close(j->model_fd);
                j->model_fd = j->src.fd = fd;
        }
        if (j->from_cache) {
                /* NNAPI prepareModelFromCache: the verified record names
                 * the stored model and the settings to prepare with. */
                daemon_cache_record_t rec = { 0 };
                rt_settings_t s;

                r = daemon_cache_load(j->cache_key, &rec, j->err, sizeof(j->err));
                if (r == 0) {
                        r = rt_settings_parse_proto(rec.settings, rec.settings_size, &s, NULL, 0);
                        if (r == 0) {
                                rt_settings_done(&j->settings);
                                j->settings = s;
                        } else
                                (void) snprintf(j->err, sizeof(j->err), "the cached settings do not decode");
                        memcpy(j->cache_sha256, rec.model_sha256, sizeof(j->cache_sha256));
                        j->src.sha256 = j->cache_sha256;
                        daemon_cache_record_done(&rec);
                }
                if (r < 0) {
                        /* A tampered or stale entry is gone now: NOT_FOUND
                         * tells the client to prepare with the model. */
                        job->result = r == -EBADMSG || r == -ESTALE ? -ENOENT : r;
                        return;
                }
        } else if (j->default_settings) {
                /* Issue 6: the best settings benchmarks found for this model
                 * and preference replace the daemon's default choice. */
                const daemon_conn_t *conn = j->rq->conn;

                r = daemon_bench_apply_decision(&j->src, j->preference,
                                                conn->operator ? 0 : (uint32_t) conn->peer.uid, &j->settings,
                                                &j->decision_compute_us);
                if (r < 0)
                        log_debug("no benchmark decision applied: %s", strerror(-r));
        }
        /* By name with the default settings, the decision (and so the
         * settings) is known only once the store has named the model. */
        if (!(j->default_settings && j->src.fd < 0 && !j->src.bytes && !j->src.sha256))
                prepare_settings_finish(j);

        if (j->src.fd < 0 && !j->src.bytes) {
                /* By sha256: a loaded model first, else the store; by name:
                 * the store. A tenant names only models it stored. */
                store_find_call_t own = { .key = j->src.sha256, .uid = j->rq->conn->peer.uid };

                /* A cache record's model is the uid's own: its token is. */
                if (j->src.sha256 && !j->from_cache && !j->rq->conn->operator) {
                        r = daemon_storage_call(store_owned_job, &own);
                        if (r < 0) {
                                (void) snprintf(j->err, sizeof(j->err), "no model with sha256 %s %s",
                                                j->src.sha256,
                                                r == -ENODEV ? "(the model store is unavailable)" : "in the store");
                                job->result = -ENOENT;
                                return;
                        }
                }
                r = j->src.sha256 ? daemon_models_prepare(&j->sv->models, &j->src, &j->settings, &inst, &j->shared,
                                                          j->err, sizeof(j->err))
                                  : -ENOENT;
                if (r == -ENOENT) {
                        store_find_call_t c = { .key = j->src.sha256 ? j->src.sha256 : j->src.name,
                                                .uid = j->rq->conn->peer.uid,
                                                .all = j->from_cache || j->rq->conn->operator };
                        daemon_model_source_t src = { .fd = -1, .name = c.model.name };
                        int fd;

                        r = daemon_storage_call(store_find_job, &c);
                        if (r < 0) {
                                (void) snprintf(j->err, sizeof(j->err), "no model %s %s%s",
                                                j->src.sha256 ? "with sha256" : "named", c.key,
                                                r == -ENODEV ? " (the model store is unavailable)" : " in the store");
                                job->result = -ENOENT;
                                return;
                        }
                        if (j->default_settings && !j->src.sha256) {
                                /* By name: the decision is known only now. */
                                daemon_model_source_t by = { .fd = -1, .sha256 = c.model.sha256 };
                                const daemon_conn_t *conn = j->rq->conn;

                                (void) daemon_bench_apply_decision(&by, j->preference,
                                                                   conn->operator ? 0 : (uint32_t) conn->peer.uid,
                                                                   &j->settings, NULL);
                                prepare_settings_finish(j);
                        }
                        fd = open(c.model.path, O_RDONLY | O_CLOEXEC);
                        if (fd < 0) {
                                r = -errno;
                                (void) snprintf(j->err, sizeof(j->err), "stored model %s: %s", c.model.sha256,
                                                strerror(-r));
                                store_model_done(&c.model);
                                job->result = r;
                                return;
                        }
                        src.fd = fd;
                        src.name = c.model.name;
                        r = daemon_models_prepare(&j->sv->models, &src, &j->settings, &inst, &j->shared, j->err,
                                                  sizeof(j->err));
                        (void) close(fd);
                        if (r == 0 && strcmp(inst->model->sha256, c.model.sha256) != 0) {
                                /* The store's file no longer matches its hash. */
                                (void) daemon_instance_unref(&j->sv->models, inst);
                                (void) snprintf(j->err, sizeof(j->err), "stored model %s is corrupt",
                                                c.model.sha256);
                                r = -EBADMSG;
                        }
                        store_model_done(&c.model);
                }
        } else {
                r = daemon_models_prepare(&j->sv->models, &j->src, &j->settings, &inst, &j->shared, j->err,
                                          sizeof(j->err));
                if (r == 0 && j->src.name) {
                        /* Named: keep it in the store for PrepareModel by name. */
                        const daemon_model_t *m = inst->model;
                        store_add_call_t c = { .data = m->map ? m->map : m->copy, .size = m->size,
                                               .name = j->src.name, .owner = j->rq->conn->peer.uid };
                        int k = daemon_storage_call(store_add_job, &c);

                        if (k == -EEXIST || k == -EINVAL) {
                                (void) daemon_instance_unref(&j->sv->models, inst);
                                (void) snprintf(j->err, sizeof(j->err),
                                                k == -EEXIST ? "the name '%s' belongs to another model in the store"
                                                             : "'%s' is not a valid model name", j->src.name);
                                job->result = -EINVAL;
                                return;
                        }
                        if (k < 0 && k != -ENODEV) {
                                /* A named model the store did not keep could
                                 * not be prepared by name later: an error,
                                 * not a success (ENOSPC, EIO, ...). */
                                (void) snprintf(j->err, sizeof(j->err), "cannot store model '%s': %s",
                                                j->src.name, strerror(-k));
                                (void) daemon_instance_unref(&j->sv->models, inst);
                                job->result = k;
                                return;
                        }
                }
        }
        if (r == 0 && j->cache_key[0] && !j->from_cache) {
                /* Caching never fails the prepare (NNAPI): the reply says
                 * whether the entry was written. */
                char why[512] = "";
                int k = daemon_cache_write(j->cache_key, inst, why, sizeof(why));

                j->cache_written = k == 0;
                if (k < 0 && k != -ENODEV)
                        log_warning("model %s: %s", inst->model->sha256, why[0] ? why : strerror(-k));
        }
        if (r == 0 && !j->shared) {
                /* This prepare made the instance: its batching is the
                 * request's when it says, else acceld's configuration. */
                const Acceld__PrepareModelRequest *in = j->rq->req->prepare_model;

                pthread_mutex_lock(&inst->pool_mu);
                if (in->has_max_batch_size && in->max_batch_size > 0)
                        inst->batch_max = in->max_batch_size > 64 ? 64 : in->max_batch_size;
                if (in->has_max_queue_delay_us && in->max_queue_delay_us > 0)
                        inst->batch_delay_ns = (uint64_t) in->max_queue_delay_us * 1000u;
                pthread_mutex_unlock(&inst->pool_mu);
        }
        job->result = r;
        if (r == 0)
                j->instance = inst;
}

/* Placement (bench/placement.h): asked by a client that holds the bytes,
 * decided again now with this machine's current round trip. */
static void prepare_placement(serving_job_t *j, const daemon_instance_t *inst, Acceld__PrepareModelResponse *out) {
        char not_eligible[160] = "", why[400], from[64] = "";
        int64_t compute_us = j->decision_compute_us;
        uint8_t *sb = NULL;
        size_t sn = 0;

        if (!j->client_placement)
                return;
        if (compute_us < 0) {
                /* No benchmark decision covers these settings (the
                 * client's own, or none yet): what served executions of
                 * this instance took. */
                size_t n = 0;

                compute_us = bench_placement_served_compute_us(inst->key, &n);
                (void) snprintf(from, sizeof(from), "the median of %zu served executions", n);
        }
        if (j->placement_daemon)
                (void) snprintf(not_eligible, sizeof(not_eligible), "the settings ask for \"placement\": \"daemon\"");
        else
                bench_placement_instance_check(inst, not_eligible, sizeof(not_eligible));
        out->has_placement = 1;
        out->placement = ACCELD__PLACEMENT__PLACEMENT_DAEMON;
        if (bench_placement_decide_from(&inst->settings, compute_us, from[0] ? from : NULL, not_eligible, why,
                                        sizeof(why)) &&
            rt_settings_pack(&inst->settings, &sb, &sn) == 0) {
                void *copy = daemon_request_alloc(j->rq, sn ? sn : 1);

                if (copy) {
                        memcpy(copy, sb, sn);
                        out->placement = ACCELD__PLACEMENT__PLACEMENT_CLIENT;
                        out->has_client_settings = 1;
                        out->client_settings.data = copy;
                        out->client_settings.len = sn;
                        bench_placement_note_placed();
                }
        }
        free(sb);
        out->placement_reason = daemon_request_strdup(j->rq, why);
        log_full(LOG_DEBUG, DLOG_FIELDS(j->rq->conn->client_field), "model %s placement: %s", inst->model->sha256,
                 why);
}

static void prepare_done(daemon_job_t *job, int r) {
        serving_job_t *j = job->data;
        daemon_request_t *rq = j->rq;
        serving_session_t *ss = j->session;
        daemon_instance_t *inst = j->instance;
        Acceld__PrepareModelResponse *out;
        serving_handle_t *h;

        if (r < 0 || !ss) {
                if (j->usage && j->usage->prepared > 0)
                        j->usage->prepared--;
                /* -EDQUOT: the model is over max_model_bytes. */
                if (r == -EDQUOT)
                        daemon_refusal_count(DAEMON_REFUSAL_models);
                serving__job_complete(j, r < 0 ? r : -ECONNRESET);
                return;
        }
        {
                uint64_t max = rq->server->config->max_model_bytes_per_uid;

                if (max > 0 && ss->usage->model_bytes + inst->model->size > max) {
                        ss->usage->prepared--;
                        daemon_refusal_count(DAEMON_REFUSAL_models);
                        (void) snprintf(j->err, sizeof(j->err),
                                        "uid %u would hold %" PRIu64 " bytes of prepared models (max_model_bytes_per_uid %" PRIu64 ")",
                                        (unsigned) ss->usage->uid, ss->usage->model_bytes + inst->model->size, max);
                        serving__job_complete(j, -EDQUOT);
                        return;
                }
        }
        out = daemon_request_alloc(rq, sizeof(*out));
        h = calloc(1, sizeof(*h));
        if (!out || !h) {
                free(h);
                ss->usage->prepared--;
                serving__job_complete(j, -ENOMEM);
                return;
        }
        /* The job's reference becomes the handle's. */
        j->instance = NULL;
        h->id = ss->sv->next_handle++;
        h->instance = inst;
        h->usage = ss->usage;
        ss->usage->model_bytes += inst->model->size;
        h->priority = j->priority;
        h->next = ss->handles;
        ss->handles = h;
        ss->sv->n_handles++;

        acceld__prepare_model_response__init(out);
        out->has_handle = 1;
        out->handle = h->id;
        out->has_shared = 1;
        out->shared = j->shared;
        out->has_compile_us = 1;
        out->compile_us = j->shared ? 0 : inst->compile_us;
        out->sha256 = inst->model->sha256;
        out->settings_key = inst->settings_key;
        out->has_from_cache = 1;
        out->from_cache = j->from_cache;
        out->has_cache_written = 1;
        out->cache_written = j->cache_written;
        out->inputs = serving__tensor_infos(rq, inst->inputs, inst->n_inputs);
        out->n_inputs = (size_t) inst->n_inputs;
        out->outputs = serving__tensor_infos(rq, inst->outputs, inst->n_outputs);
        out->n_outputs = (size_t) inst->n_outputs;
        if (inst->delegation_note[0])
                out->delegation_note = inst->delegation_note;
        if (j->thread_note[0]) {
                /* The clamp is this request's (a shared instance was
                 * compiled with the clamped count already). */
                size_t n = strlen(inst->delegation_note) + strlen(j->thread_note) + 3;
                char *note = daemon_request_alloc(rq, n);

                if (note) {
                        (void) snprintf(note, n, "%s%s%s", inst->delegation_note,
                                        inst->delegation_note[0] ? "; " : "", j->thread_note);
                        out->delegation_note = note;
                }
        }
        {
                Acceld__Partition **pp = daemon_request_alloc(rq, sizeof(*pp) * (inst->n_partitions + 1));
                Acceld__Partition *po = daemon_request_alloc(rq, sizeof(*po) * (inst->n_partitions + 1));

                if (pp && po) {
                        for (size_t k = 0; k < inst->n_partitions; k++) {
                                acceld__partition__init(&po[k]);
                                po[k].driver = (char *) inst->partitions[k].driver;
                                po[k].has_nodes = 1;
                                po[k].nodes = inst->partitions[k].nodes;
                                if (inst->partitions[k].why[0])
                                        po[k].why = (char *) inst->partitions[k].why;
                                pp[k] = &po[k];
                        }
                        out->partitions = pp;
                        out->n_partitions = inst->n_partitions;
                }
        }
        if (!out->inputs || !out->outputs) {
                serving__job_complete(j, -ENOMEM);
                return;
        }
        prepare_placement(j, inst, out);
        log_full(LOG_DEBUG, DLOG_FIELDS(rq->conn->client_field), "model %s prepared as handle %" PRIu64 "%s",
                 inst->model->sha256, h->id, j->shared ? " (shared)" : "");
        rq->resp.body_case = ACCELD__RESPONSE__BODY_PREPARE_MODEL;
        rq->resp.prepare_model = out;
        /* The response points into the instance, which the handle keeps. */
        serving__job_complete(j, 0);
}

int daemon_prepare_handle(daemon_request_t *rq) {
        const Acceld__PrepareModelRequest *in = rq->req->prepare_model;
        const daemon_config_t *cfg = rq->server->config;
        serving_session_t *ss = serving__session_get(rq);
        Acceld__PrepareModelRequest settings_in;
        bool placement_daemon;
        serving_job_t *j;
        int sources, r;

        if (!ss)
                return -ENOMEM;
        sources = (in->has_model ? 1 : 0) + (in->has_model_fd ? 1 : 0) + (in->sha256 && in->sha256[0] ? 1 : 0) +
                  (in->name && in->name[0] && !in->has_model && !in->has_model_fd ? 1 : 0);
        if (in->has_cache_token && (in->cache_token.len == 0 || in->cache_token.len > DAEMON_CACHE_TOKEN_MAX))
                return daemon_request_errorf(rq, -EINVAL, "cache_token must be 1..%d bytes (got %zu)",
                                             DAEMON_CACHE_TOKEN_MAX, in->cache_token.len);
        if (sources == 0 && !in->has_cache_token)
                return daemon_request_errorf(rq, -EINVAL,
                                             "PrepareModel needs one of model, model_fd, sha256 or name, "
                                             "or a cache_token alone");
        if (sources > 1)
                return daemon_request_errorf(rq, -EINVAL,
                                             "PrepareModel needs exactly one of model, model_fd, sha256 or name "
                                             "(got %d)", sources);
        if (in->sha256 && in->sha256[0]) {
                /* Digests are stored in lowercase; accept either case. */
                for (char *c = in->sha256; *c; c++)
                        *c = (char) tolower((unsigned char) *c);
                if (!acc_sha256_hex_valid(in->sha256))
                        return daemon_request_errorf(rq, -EINVAL, "sha256 must be 64 hex digits");
        }
        if (cfg->max_models_per_uid > 0 && ss->usage->prepared >= cfg->max_models_per_uid) {
                daemon_refusal_count(DAEMON_REFUSAL_models);
                return daemon_request_errorf(rq, -EDQUOT,
                                             "uid %u holds %u prepared models (max_models_per_uid %" PRIu64 ")",
                                             (unsigned) ss->usage->uid, ss->usage->prepared,
                                             cfg->max_models_per_uid);
        }
        r = serving__queue_check(rq, ss);
        if (r < 0)
                return r;

        {
                /* "placement" in the settings JSON; alone, the rest is the
                 * daemon's choice as without settings. */
                bool forced = false, only = false;
                char why[128] = "";

                r = bench_placement_from_json(in->settings_json, &forced, &only, why, sizeof(why));
                if (r < 0)
                        return daemon_request_errorf(rq, r, "settings_json: %s", why);
                settings_in = *in;
                if (only)
                        settings_in.settings_json = NULL;
                placement_daemon = forced;
        }
        j = serving__job_new(rq, ss);
        if (!j)
                return -ENOMEM;
        r = settings_from_request(rq, &settings_in, &j->settings);
        if (r < 0) {
                serving__job_free(j);
                return r;
        }
        j->default_settings = !(settings_in.settings_json && settings_in.settings_json[0]) &&
                              !(in->compute_settings && in->compute_settings->tflite_settings);
        j->placement_daemon = placement_daemon;
        j->decision_compute_us = -1;
        /* Only the bytes the client sent itself: by name, sha256 or cache
         * token it may not hold them (tenants, docs/architecture.md). */
        j->client_placement = in->has_client_placement && in->client_placement && (in->has_model || in->has_model_fd);
        j->preference = in->has_preference ? (int) in->preference : 0;
        j->src.fd = -1;
        if (in->has_cache_token) {
                /* Scoped to the peer's uid: a token never matches another
                 * user's entry. */
                r = daemon_cache_key(ss->usage->uid, in->cache_token.data, in->cache_token.len, j->cache_key,
                                     sizeof(j->cache_key));
                if (r < 0) {
                        serving__job_free(j);
                        return daemon_request_errorf(rq, r, "cache_token is not usable");
                }
                j->from_cache = sources == 0;
                if (j->from_cache)
                        j->default_settings = false;
        }
        if (in->has_model) {
                j->src.bytes = in->model.data;
                j->src.size = in->model.len;
        } else if (in->has_model_fd) {
                j->model_fd = daemon_request_take_fd(rq, in->model_fd);
                if (j->model_fd < 0) {
                        serving__job_free(j);
                        return daemon_request_errorf(rq, -EINVAL, "model_fd %d does not name one of the %zu fds "
                                                     "sent with the request", in->model_fd, rq->n_fds);
                }
                j->src.fd = j->model_fd;
        } else if (in->sha256 && in->sha256[0])
                j->src.sha256 = in->sha256;
        if (in->name && in->name[0])
                j->src.name = in->name;
        j->priority = serving__priority_of(in->has_priority ? in->priority : 0, 2);
        j->job.priority = j->priority;
        j->job.deadline_ns = daemon_request_deadline_ns(rq, in->has_deadline_us, in->deadline_us);
        j->job.run = prepare_run;
        j->job.done = prepare_done;
        ss->usage->prepared++;
        r = serving__job_submit(rq, ss, j, rt_settings_driver_name(&j->settings));
        if (r < 0) {
                ss->usage->prepared--;
                serving__job_free(j);
        }
        return r;
}

/* ---- ReleaseModel ---- */

int daemon_release_handle(daemon_request_t *rq) {
        const Acceld__ReleaseModelRequest *in = rq->req->release_model;
        serving_session_t *ss = rq->conn->session;
        Acceld__ReleaseModelResponse *out;

        for (serving_handle_t **p = ss ? &ss->handles : NULL; p && *p; p = &(*p)->next) {
                serving_handle_t *h = *p;

                if (h->id != in->handle)
                        continue;
                *p = h->next;
                /* Executes in flight hold their own references. */
                serving__handle_free(ss->sv, h);
                ss->sv->n_handles--;
                if (ss->usage->prepared > 0)
                        ss->usage->prepared--;
                out = daemon_request_alloc(rq, sizeof(*out));
                if (!out)
                        return -ENOMEM;
                acceld__release_model_response__init(out);
                rq->resp.body_case = ACCELD__RESPONSE__BODY_RELEASE_MODEL;
                rq->resp.release_model = out;
                return 0;
        }
        return daemon_request_errorf(rq, -ENOENT, "no model handle %" PRIu64 " on this connection", in->handle);
}
