/* SPDX-License-Identifier: Apache-2.0 */
/* GetStatus: counters, paths and limits. */
#include <errno.h>
#include <unistd.h>

#include "config.h"
#include "handlers.h"
#include "serving.h"

int daemon_status_handle(daemon_request_t *rq) {
        const daemon_server_t *s = rq->server;
        Acceld__GetStatusResponse *out;
        Acceld__Limits *limits;

        out = daemon_request_alloc(rq, sizeof(*out));
        limits = daemon_request_alloc(rq, sizeof(*limits));
        if (!out || !limits)
                return -ENOMEM;
        acceld__get_status_response__init(out);
        out->has_uptime_us = 1;
        out->uptime_us = daemon_server_uptime_us(s);
        out->has_connections = 1;
        out->connections = daemon_server_open_connections(s);
        out->has_connections_total = 1;
        out->connections_total = s->stats.connections_total;
        /* Counts replies already sent; this one is not among them yet. */
        out->has_requests_served = 1;
        out->requests_served = s->stats.requests_served;
        out->has_errors = 1;
        out->errors = s->stats.errors;
        out->has_protocol_errors = 1;
        out->protocol_errors = s->stats.protocol_errors;
        out->state_directory = s->config->state_dir;
        out->socket_path = s->socket_path;
        daemon_limits_fill(limits, s->config);
        out->limits = limits;
        out->has_pid = 1;
        out->pid = (uint32_t) getpid();
        out->server_version = (char *) ACCELD_VERSION;
        if (s->serving) {
                out->serving = daemon_serving_status(rq);
                if (!out->serving)
                        return -ENOMEM;
        }

        rq->resp.body_case = ACCELD__RESPONSE__BODY_GET_STATUS;
        rq->resp.get_status = out;
        return 0;
}
