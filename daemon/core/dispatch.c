/* SPDX-License-Identifier: Apache-2.0 */
/* The request table and the life of one request. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "config.h"
#include "dispatch.h"
#include "handlers.h"
#include "log.h"

struct daemon_alloc {
        daemon_alloc_t *next;
        max_align_t data[];
};

typedef struct daemon_handler {
        Acceld__Request__BodyCase body_case;
        const char *name;
        daemon_handler_fn handle;
} daemon_handler_t;

/* One row per request body; a body number answers with the same number. */
static const daemon_handler_t handler_table[] = {
        { ACCELD__REQUEST__BODY_HELLO, "Hello", daemon_hello_handle },
        { ACCELD__REQUEST__BODY_GET_CAPABILITIES, "GetCapabilities", daemon_caps_handle },
        { ACCELD__REQUEST__BODY_GET_STATUS, "GetStatus", daemon_status_handle },
        { ACCELD__REQUEST__BODY_PREPARE_MODEL, "PrepareModel", daemon_prepare_handle },
        { ACCELD__REQUEST__BODY_RELEASE_MODEL, "ReleaseModel", daemon_release_handle },
        { ACCELD__REQUEST__BODY_EXECUTE, "Execute", daemon_execute_handle },
        { ACCELD__REQUEST__BODY_REGISTER_BUFFER, "RegisterBuffer", daemon_register_buffer_handle },
        { ACCELD__REQUEST__BODY_UNREGISTER_BUFFER, "UnregisterBuffer", daemon_unregister_buffer_handle },
        { ACCELD__REQUEST__BODY_ALLOCATE_BUFFER, "AllocateBuffer", daemon_allocate_buffer_handle },
        { ACCELD__REQUEST__BODY_CANCEL, "Cancel", daemon_cancel_handle },
        { ACCELD__REQUEST__BODY_LIST_MODELS, "ListModels", daemon_list_models_handle },
        { ACCELD__REQUEST__BODY_REMOVE_MODEL, "RemoveModel", daemon_remove_model_handle },
        { ACCELD__REQUEST__BODY_MANAGE_WEIGHTS_CACHE, "ManageWeightsCache", daemon_manage_weights_cache_handle },
        { ACCELD__REQUEST__BODY_RUN_BENCHMARK, "RunBenchmark", daemon_run_benchmark_handle },
        { ACCELD__REQUEST__BODY_BENCHMARK_PROGRESS, "BenchmarkProgress", daemon_benchmark_progress_handle },
        { ACCELD__REQUEST__BODY_LIST_BENCHMARK_EVENTS, "ListBenchmarkEvents", daemon_list_benchmark_events_handle },
        { ACCELD__REQUEST__BODY_GET_BEST_SETTINGS, "GetBestSettings", daemon_get_best_settings_handle },
        { ACCELD__REQUEST__BODY_EXPORT_BENCHMARK_EVENTS, "ExportBenchmarkEvents", daemon_export_benchmark_events_handle },
        { ACCELD__REQUEST__BODY_RESIZE_INPUTS, "ResizeInputs", daemon_resize_inputs_handle },
        { ACCELD__REQUEST__BODY_RESET_VARIABLES, "ResetVariables", daemon_reset_variables_handle },
        { ACCELD__REQUEST__BODY_LANE_OPEN, "LaneOpen", daemon_lane_open_handle },
        { ACCELD__REQUEST__BODY_LANE_CLOSE, "LaneClose", daemon_lane_close_handle },
        { ACCELD__REQUEST__BODY_GET_SUPPORTED_OPERATIONS, "GetSupportedOperations", daemon_supported_ops_handle },
        { ACCELD__REQUEST__BODY_EVALUATE, "Evaluate", daemon_evaluate_handle },
};

static const daemon_handler_t *handler_lookup(Acceld__Request__BodyCase body_case) {
        for (size_t i = 0; i < ELEMENTSOF(handler_table); i++)
                if (handler_table[i].body_case == body_case)
                        return &handler_table[i];
        return NULL;
}

const char *daemon_request_name(Acceld__Request__BodyCase body_case) {
        const daemon_handler_t *h = handler_lookup(body_case);

        return h ? h->name : "unknown";
}

void *daemon_request_alloc(daemon_request_t *rq, size_t size) {
        daemon_alloc_t *a;

        if (size > SIZE_MAX - sizeof(daemon_alloc_t))
                return NULL;
        a = calloc(1, sizeof(daemon_alloc_t) + size);
        if (!a)
                return NULL;
        a->next = rq->allocs;
        rq->allocs = a;
        return a->data;
}

char *daemon_request_strdup(daemon_request_t *rq, const char *s) {
        size_t n = strlen(s) + 1;
        char *p = daemon_request_alloc(rq, n);

        if (p)
                memcpy(p, s, n);
        return p;
}

static char *request_vprintf(daemon_request_t *rq, const char *fmt, va_list ap) {
        char buf[1024];

        (void) vsnprintf(buf, sizeof(buf), fmt, ap);
        return daemon_request_strdup(rq, buf);
}

char *daemon_request_printf(daemon_request_t *rq, const char *fmt, ...) {
        va_list ap;
        char *s;

        va_start(ap, fmt);
        s = request_vprintf(rq, fmt, ap);
        va_end(ap);
        return s;
}

int daemon_request_errorf(daemon_request_t *rq, int error, const char *fmt, ...) {
        va_list ap;
        char *s;

        va_start(ap, fmt);
        s = request_vprintf(rq, fmt, ap);
        va_end(ap);
        rq->message = s ? s : "out of memory";
        return error;
}

uint64_t daemon_request_deadline_ns(const daemon_request_t *rq, bool has_deadline, uint64_t deadline_us) {
        uint64_t ns;

        if (!has_deadline || deadline_us == 0)
                return 0;
        /* Saturate: a deadline too far to represent is no deadline, never
         * a wrapped-around one that has already passed. */
        if (deadline_us > (UINT64_MAX - rq->received_ns) / 1000u)
                return 0;
        ns = rq->received_ns + deadline_us * 1000u;
        return ns;
}

int daemon_request_take_fd(daemon_request_t *rq, int64_t index) {
        int fd;

        if (index < 0 || (uint64_t) index >= rq->n_fds || rq->fds[index] < 0)
                return -EBADF;
        fd = rq->fds[index];
        rq->fds[index] = -1;
        return fd;
}

static daemon_request_t *request_free(daemon_request_t *rq) {
        if (!rq)
                return NULL;
        for (size_t i = 0; i < rq->n_fds; i++)
                if (rq->fds[i] >= 0)
                        (void) close(rq->fds[i]);
        for (size_t i = 0; i < rq->n_out_fds; i++)
                if (rq->out_fds[i] >= 0)
                        (void) close(rq->out_fds[i]);
        while (rq->allocs) {
                daemon_alloc_t *a = rq->allocs;

                rq->allocs = a->next;
                free(a);
        }
        if (rq->req)
                acceld__request__free_unpacked(rq->req, NULL);
        free(rq);
        return NULL;
}

void daemon_request_complete(daemon_request_t *rq, int r) {
        daemon_conn_t *c = rq->conn;
        int k;

        if (r > 0)
                r = 0;
        rq->resp.has_status = 1;
        rq->resp.status = ipc_status_from_errno(r);
        if (r < 0) {
                /* The body of a failed request is not sent. */
                rq->resp.body_case = ACCELD__RESPONSE__BODY__NOT_SET;
                rq->resp.message = (char *) (rq->message ? rq->message : strerror(-r));
        } else if (rq->message)
                rq->resp.message = (char *) rq->message;
        if (r == 0 && rq->n_out_fds > 0) {
                rq->resp.has_num_fds = 1;
                rq->resp.num_fds = (uint32_t) rq->n_out_fds;
        }

        k = daemon_conn_send(c, &rq->resp, r == 0 ? rq->out_fds : NULL, r == 0 ? rq->n_out_fds : 0);
        if (k == -EMSGSIZE || k == -EMFILE) {
                /* The reply itself is too big: say so instead. */
                Acceld__Response small = ACCELD__RESPONSE__INIT;

                small.has_request_id = 1;
                small.request_id = rq->resp.request_id;
                small.has_status = 1;
                small.status = ipc_status_from_errno(-ENOBUFS);
                small.message = (char *) (k == -EMSGSIZE ? "reply exceeds max_frame_bytes"
                                                         : "acceld is out of file descriptors for the reply's");
                if (k == -EMFILE)
                        small.status = ipc_status_from_errno(-EAGAIN);
                k = daemon_conn_send(c, &small, NULL, 0);
        }
        if (k < 0) {
                /* A reply the client never gets would leave it waiting
                 * forever: close the connection instead, so it knows. */
                char why[160];

                (void) snprintf(why, sizeof(why), "cannot queue the reply to request %" PRIu64 ": %s",
                                rq->resp.request_id,
                                k == -ENOBUFS ? "the peer is not reading its replies (max_output_bytes "
                                                "+ max_frame_bytes queued)"
                                              : strerror(-k));
                daemon_conn_abort(c, why);
        } else if (r < 0)
                log_full(LOG_DEBUG, DLOG_FIELDS(c->client_field),
                         "request %" PRIu64 " (%s) failed: %s: %s", rq->resp.request_id,
                         daemon_request_name(rq->req->body_case), ipc_status_to_string(rq->resp.status),
                         rq->resp.message);

        (void) request_free(rq);
        daemon_conn_request_done(c);
        (void) daemon_conn_unref(c);
}

void daemon_dispatch(daemon_conn_t *c, Acceld__Request *req, int *fds, size_t n_fds) {
        daemon_request_t *rq;
        const daemon_handler_t *h;
        int r;

        rq = calloc(1, sizeof(*rq));
        if (!rq) {
                /* Not even room for the request: answer from the stack. */
                Acceld__Response resp = ACCELD__RESPONSE__INIT;

                resp.has_request_id = 1;
                resp.request_id = req->request_id;
                resp.has_status = 1;
                resp.status = ACCELD__STATUS__RESOURCE_EXHAUSTED_PERSISTENT;
                resp.message = (char *) "out of memory";
                (void) daemon_conn_send(c, &resp, NULL, 0);
                for (size_t i = 0; i < n_fds; i++)
                        (void) close(fds[i]);
                acceld__request__free_unpacked(req, NULL);
                return;
        }
        rq->conn = daemon_conn_ref(c);
        rq->server = c->server;
        rq->req = req;
        rq->received_ns = uv_hrtime();
        for (size_t i = 0; i < n_fds; i++)
                rq->fds[i] = fds[i];
        rq->n_fds = n_fds;
        acceld__response__init(&rq->resp);
        rq->resp.has_request_id = 1;
        rq->resp.request_id = req->request_id;
        c->n_in_flight++;

        h = handler_lookup(req->body_case);
        if (!h)
                r = daemon_request_errorf(rq, -EOPNOTSUPP,
                                          "request has no body acceld %s understands",
                                          ACCELD_VERSION);
        else {
                log_full(LOG_DEBUG, DLOG_FIELDS(c->client_field), "request %" PRIu64 ": %s",
                         req->request_id, h->name);
                r = h->handle(rq);
        }
        if (r == DAEMON_REQUEST_DEFERRED)
                return;
        daemon_request_complete(rq, r);
}
