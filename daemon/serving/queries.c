/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ResizeInputs and GetSupportedOperations: questions about a prepared
 * model answered on a worker.
 */
#include "serving-internal.h"
#include "clientfd.h"
#include "graph.h"
#include "resolver.h"

/* ---- ResizeInputs ---- */

static void resize_run(daemon_job_t *job) {
        serving_job_t *j = job->data;
        rt_interp_t *it = NULL;
        int r;

        r = daemon_instance_acquire(j->instance, &it, j->err, sizeof(j->err));
        if (r < 0) {
                job->result = r;
                return;
        }
        r = serving__interp_shape(it, j);
        if (r == 0 && rt_interp_input_data(it, 0) == NULL && rt_interp_input_count(it) > 0)
                r = rt_interp_allocate_tensors(it);
        if (r == 0) {
                j->n_new_inputs = rt_interp_input_count(it);
                j->n_new_outputs = rt_interp_output_count(it);
                j->new_inputs = calloc((size_t) j->n_new_inputs + 1, sizeof(*j->new_inputs));
                j->new_outputs = calloc((size_t) j->n_new_outputs + 1, sizeof(*j->new_outputs));
                if (!j->new_inputs || !j->new_outputs)
                        r = -ENOMEM;
                for (int32_t k = 0; r == 0 && k < j->n_new_inputs; k++)
                        r = daemon_tensor_info_from(&j->new_inputs[k], rt_interp_input_tensor(it, k));
                for (int32_t k = 0; r == 0 && k < j->n_new_outputs; k++)
                        r = daemon_tensor_info_from(&j->new_outputs[k], rt_interp_output_tensor(it, k));
        }
        daemon_instance_release(j->instance, it);
        job->result = r;
}

static void resize_done(daemon_job_t *job, int r) {
        serving_job_t *j = job->data;
        daemon_request_t *rq = j->rq;
        serving_handle_t *h = j->session ? serving__handle_find(j->session, j->handle_id) : NULL;
        Acceld__ResizeInputsResponse *out;

        if (r < 0 || !h) {
                if (r == 0)
                        (void) snprintf(j->err, sizeof(j->err), "the handle was released meanwhile");
                serving__job_complete(j, r < 0 ? r : -ENOENT);
                return;
        }
        out = daemon_request_alloc(rq, sizeof(*out));
        if (!out) {
                serving__job_complete(j, -ENOMEM);
                return;
        }
        serving__infos_free(h->inputs, h->instance->n_inputs);
        serving__infos_free(h->outputs, h->instance->n_outputs);
        h->inputs = TAKE_PTR(j->new_inputs);
        h->outputs = TAKE_PTR(j->new_outputs);
        j->n_new_inputs = j->n_new_outputs = 0;
        acceld__resize_inputs_response__init(out);
        out->inputs = serving__tensor_infos(rq, h->inputs, h->instance->n_inputs);
        out->n_inputs = (size_t) h->instance->n_inputs;
        out->outputs = serving__tensor_infos(rq, h->outputs, h->instance->n_outputs);
        out->n_outputs = (size_t) h->instance->n_outputs;
        if (!out->inputs || !out->outputs) {
                serving__job_complete(j, -ENOMEM);
                return;
        }
        rq->resp.body_case = ACCELD__RESPONSE__BODY_RESIZE_INPUTS;
        rq->resp.resize_inputs = out;
        serving__job_complete(j, 0);
}

int daemon_resize_inputs_handle(daemon_request_t *rq) {
        const Acceld__ResizeInputsRequest *in = rq->req->resize_inputs;
        serving_session_t *ss = rq->conn->session;
        serving_handle_t *h = serving__handle_find(ss, in->handle);
        serving_job_t *j;
        int r;

        if (!h)
                return daemon_request_errorf(rq, -ENOENT, "no model handle %" PRIu64 " on this connection", in->handle);
        if (in->n_shapes != (size_t) h->instance->n_inputs)
                return daemon_request_errorf(rq, -EINVAL, "the model has %d inputs, the request gives %zu shapes",
                                             h->instance->n_inputs, in->n_shapes);
        for (size_t k = 0; k < in->n_shapes; k++) {
                uint64_t elems = 1;

                if (in->shapes[k]->n_dims > RT_MAX_RANK)
                        return daemon_request_errorf(rq, -EINVAL, "shape %zu has rank %zu (at most %d)", k,
                                                     in->shapes[k]->n_dims, RT_MAX_RANK);
                for (size_t d = 0; d < in->shapes[k]->n_dims; d++) {
                        int32_t x = in->shapes[k]->dims[d];

                        if (x < 0)
                                return daemon_request_errorf(rq, -EINVAL, "shape %zu: dimension %zu is negative", k, d);
                        elems *= (uint64_t) x;
                        if (elems > RT_MODEL_MAX_TENSOR_BYTES)
                                return daemon_request_errorf(rq, -EINVAL, "shape %zu is too large", k);
                }
        }
        r = serving__queue_check(rq, ss);
        if (r < 0)
                return r;
        j = serving__job_new(rq, ss);
        if (!j)
                return -ENOMEM;
        j->shapes = calloc(in->n_shapes + 1, sizeof(*j->shapes));
        j->ranks = calloc(in->n_shapes + 1, sizeof(*j->ranks));
        if (!j->shapes || !j->ranks) {
                serving__job_free(j);
                return -ENOMEM;
        }
        for (size_t k = 0; k < in->n_shapes; k++) {
                j->ranks[k] = (int32_t) in->shapes[k]->n_dims;
                memcpy(j->shapes[k], in->shapes[k]->dims, sizeof(int32_t) * in->shapes[k]->n_dims);
        }
        j->handle_id = h->id;
        j->instance = daemon_instance_ref(&ss->sv->models, h->instance);
        j->job.priority = h->priority;
        j->job.run = resize_run;
        j->job.done = resize_done;
        j->job.resource = &h->instance->exec_slots;
        r = serving__job_submit(rq, ss, j, h->instance->queue);
        if (r < 0)
                serving__job_free(j);
        return r;
}

/* ---- GetSupportedOperations ---- */

/*
 * Nodes no interpreter can be built with, as data: the resolver's own
 * per-node answer (rt_graph_check_ops()), one message per unresolved node,
 * instead of a node number read back out of rt_interp_create()'s message.
 */
typedef struct unresolved {
        char (*reason)[RT_DRIVER_REASON_MAX];
        int32_t n_nodes;
} unresolved_t;

static void unresolved_collect(void *user, int32_t node, const char *message) {
        unresolved_t *u = user;

        if (node >= 0 && node < u->n_nodes)
                (void) snprintf(u->reason[node], sizeof(u->reason[node]), "%s", message);
}

static void ops_run(daemon_job_t *job) {
        serving_job_t *j = job->data;
        /* Every registered driver answers: reference, XNNPACK, plugins. */
        const char *drivers[64];
        size_t n_drivers = 0;
        Acceld__GetSupportedOperationsResponse *out = NULL;
        rt_model_t *m = NULL;
        const rt_model_subgraph_t *sg;
        unresolved_t unres = { 0 };
        int n_unresolved = -1; /* not asked yet */
        int r;

        if (j->model_fd >= 0) {
                /* Never the client's pages as they are: a file it can
                 * still truncate would SIGBUS acceld (clientfd.h). */
                _cleanup_close_ int fd = -1;
                size_t size;

                r = daemon_clientfd_model(j->model_fd, j->sv->models.max_model_bytes, j->job.deadline_ns, &fd,
                                          &size, j->err, sizeof(j->err));
                if (r == 0)
                        r = rt_model_load_fd(fd, &m, j->err, sizeof(j->err));
        } else
                r = rt_model_load_buffer(j->src.bytes, j->src.size, true, &m, j->err, sizeof(j->err));
        if (r < 0)
                goto fail;
        if (m->n_subgraphs < 1) {
                (void) snprintf(j->err, sizeof(j->err), "the model has no subgraph");
                r = -EINVAL;
                goto fail;
        }
        sg = &m->subgraphs[0];
        for (size_t i = 0; i < rt_driver_count() && n_drivers < 64; i++) {
                const rt_driver_t *drv = rt_driver_get(i);
                if (drv)
                        drivers[n_drivers++] = drv->name;
        }
        out = calloc(1, sizeof(*out));
        if (!out)
                goto oom;
        acceld__get_supported_operations_response__init(out);
        out->nodes = calloc((size_t) sg->n_ops + 1, sizeof(*out->nodes));
        if (!out->nodes)
                goto oom;
        for (int32_t i = 0; i < sg->n_ops; i++) {
                Acceld__NodeSupport *ns = calloc(1, sizeof(*ns));

                if (!ns)
                        goto oom;
                acceld__node_support__init(ns);
                out->nodes[i] = ns;
                out->n_nodes = (size_t) i + 1;
                ns->has_index = 1;
                ns->index = i;
                ns->op = strdup(rt_model_op_name(&sg->ops[i]));
                ns->drivers = calloc(n_drivers + 1, sizeof(*ns->drivers));
                if (!ns->op || !ns->drivers)
                        goto oom;
        }
        for (size_t d = 0; d < n_drivers; d++) {
                rt_settings_t s;
                rt_interp_options_t *o = rt_interp_options_new();
                rt_interp_t *it = NULL;
                char err[512] = "";

                if (!o)
                        goto oom;
                bool is_reference = strcmp(drivers[d], "reference") == 0;

                rt_settings_init(&s);
                if (!is_reference) {
                        bool xnn = strcmp(drivers[d], "xnnpack") == 0;
                        s.delegate = xnn ? RT_DELEGATE_XNNPACK : RT_DELEGATE_PLUGIN;
                        (void) snprintf(s.delegate_name, sizeof(s.delegate_name), "%s", xnn ? "XNNPACK" : drivers[d]);
                        s.fallback_on_compilation_error = true;
                }
                (void) rt_interp_options_set_settings(o, &s);
                if (daemon_models_options_hook)
                        daemon_models_options_hook(o);
                r = rt_interp_create(m, o, &it, err, sizeof(err));
                (void) rt_interp_options_free(o);
                if (r < 0 && n_unresolved < 0) {
                        /* The same for every driver: ask once. Nodes of the
                         * daemon's own test ops (the options hook) are not
                         * in the builtin resolver; they only show here when
                         * the model fails anyway. */
                        unres.n_nodes = sg->n_ops;
                        unres.reason = calloc((size_t) sg->n_ops + 1, sizeof(*unres.reason));
                        if (!unres.reason) {
                                rt_interp_free(it);
                                goto oom;
                        }
                        n_unresolved = rt_graph_check_ops(m, 0, rt_resolver_builtins(), unresolved_collect, &unres);
                }
                for (int32_t i = 0; i < sg->n_ops; i++) {
                        Acceld__DriverSupport *ds = calloc(1, sizeof(*ds));
                        const char *why = "";

                        if (!ds) {
                                rt_interp_free(it);
                                goto oom;
                        }
                        acceld__driver_support__init(ds);
                        out->nodes[i]->drivers[d] = ds;
                        out->nodes[i]->n_drivers = d + 1;
                        if (r < 0)
                                /* Each unresolved node its own reason; when
                                 * none is, the failure is the whole model's. */
                                why = n_unresolved > 0 ? unres.reason[i] : err;
                        else if (!is_reference)
                                why = rt_interp_unsupported_reason(it, i);
                        ds->driver = strdup(drivers[d]);
                        ds->has_supported = 1;
                        ds->supported = why[0] == '\0';
                        ds->reason = strdup(why);
                        if (!ds->driver || !ds->reason) {
                                rt_interp_free(it);
                                goto oom;
                        }
                }
                rt_interp_free(it);
        }
        rt_model_free(m);
        free(unres.reason);
        j->ops = out;
        job->result = 0;
        return;
oom:
        r = -ENOMEM;
fail:
        if (out)
                acceld__get_supported_operations_response__free_unpacked(out, NULL);
        free(unres.reason);
        rt_model_free(m);
        job->result = r;
}

static void ops_done(daemon_job_t *job, int r) {
        serving_job_t *j = job->data;
        daemon_request_t *rq = j->rq;

        if (r < 0 || !j->session) {
                serving__job_complete(j, r < 0 ? r : -ECONNRESET);
                return;
        }
        rq->resp.body_case = ACCELD__RESPONSE__BODY_GET_SUPPORTED_OPERATIONS;
        rq->resp.get_supported_operations = j->ops;
        /* Sent inside serving__job_complete(); freed with the job right after. */
        serving__job_complete_keep(j, 0);
}

int daemon_supported_ops_handle(daemon_request_t *rq) {
        const Acceld__GetSupportedOperationsRequest *in = rq->req->get_supported_operations;
        serving_session_t *ss = serving__session_get(rq);
        serving_job_t *j;
        int r;

        if (!ss)
                return -ENOMEM;
        if ((in->has_model ? 1 : 0) + (in->has_model_fd ? 1 : 0) != 1)
                return daemon_request_errorf(rq, -EINVAL, "GetSupportedOperations needs exactly one of model or model_fd");
        if (in->has_model && in->model.len > rq->server->config->max_model_bytes) {
                daemon_refusal_count(DAEMON_REFUSAL_models);
                return daemon_request_errorf(rq, -EDQUOT, "the model exceeds max_model_bytes");
        }
        r = serving__queue_check(rq, ss);
        if (r < 0)
                return r;
        j = serving__job_new(rq, ss);
        if (!j)
                return -ENOMEM;
        if (in->has_model_fd) {
                j->model_fd = daemon_request_take_fd(rq, in->model_fd);
                if (j->model_fd < 0) {
                        serving__job_free(j);
                        return daemon_request_errorf(rq, -EINVAL, "model_fd %d does not name one of the %zu fds "
                                                     "sent with the request", in->model_fd, rq->n_fds);
                }
        } else {
                j->src.bytes = in->model.data;
                j->src.size = in->model.len;
        }
        j->job.priority = 2;
        j->job.run = ops_run;
        j->job.done = ops_done;
        r = serving__job_submit(rq, ss, j, "reference");
        if (r < 0)
                serving__job_free(j);
        return r;
}
