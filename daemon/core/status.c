/* SPDX-License-Identifier: Apache-2.0 */
/* GetStatus: counters, paths and limits. */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "handlers.h"
#include "refusals.h"
#include "serving.h"
#include "host/host.h"
#include "bench/placement.h"

/* Refusals by limit: each field of the message is named as its counter. */
static Acceld__Refusals *refusals_fill(daemon_request_t *rq) {
        Acceld__Refusals *v = daemon_request_alloc(rq, sizeof(*v));

        if (!v)
                return NULL;
        acceld__refusals__init(v);
#define DAEMON_REFUSAL(name, what)                                              \
        v->has_##name = 1;                                                      \
        v->name = daemon_refusals_get(DAEMON_REFUSAL_##name);
#include "refusals.inc"
#undef DAEMON_REFUSAL
        return v;
}

/* Placement: its configuration and measurements (bench/placement.h). */
static Acceld__PlacementStatus *placement_fill(daemon_request_t *rq) {
        Acceld__PlacementStatus *v = daemon_request_alloc(rq, sizeof(*v));
        bench_placement_config_t cfg;
        bench_placement_status_t st;

        if (!v)
                return NULL;
        bench_placement_get_config(&cfg);
        bench_placement_status(&st);
        acceld__placement_status__init(v);
        v->has_max_compute_us = v->has_max_overhead = v->has_socket_round_trip_us = 1;
        v->has_served_overhead_us = v->has_served_samples = v->has_round_trip_us = v->has_placed_in_client = 1;
        v->max_compute_us = cfg.max_compute_us;
        v->max_overhead = cfg.max_overhead;
        v->socket_round_trip_us = st.socket_us;
        v->served_overhead_us = st.served_overhead_us;
        v->served_samples = st.served_samples;
        v->round_trip_us = st.round_trip_us;
        v->placed_in_client = st.placed_in_client;
        return v;
}

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
        out->refusals = refusals_fill(rq);
        out->placement = placement_fill(rq);
        if (!out->refusals)
                return -ENOMEM;
        if (s->serving) {
                out->serving = daemon_serving_status(rq);
                out->weights_cache = daemon_wcache_status(rq);
                if (!out->serving || !out->weights_cache)
                        return -ENOMEM;
        }

        {
                daemon_host_stats_t hs[16];
                size_t n = daemon_hosts_stats(hs, 16);
                Acceld__DriverHostStatus *v, **pv;

                if (n > 16)
                        n = 16;
                v = daemon_request_alloc(rq, sizeof(*v) * (n + 1));
                pv = daemon_request_alloc(rq, sizeof(*pv) * (n + 1));
                if (!v || !pv)
                        return -ENOMEM;
                for (size_t i = 0; i < n; i++) {
                        char *name = daemon_request_alloc(rq, sizeof(hs[i].name));
                        char *death = daemon_request_alloc(rq, sizeof(hs[i].last_death));
                        if (!name || !death)
                                return -ENOMEM;
                        memcpy(name, hs[i].name, sizeof(hs[i].name));
                        memcpy(death, hs[i].last_death, sizeof(hs[i].last_death));
                        acceld__driver_host_status__init(&v[i]);
                        v[i].driver = name;
                        v[i].has_pid = v[i].has_starts = v[i].has_deaths = 1;
                        v[i].pid = (uint32_t) hs[i].pid;
                        v[i].starts = hs[i].starts;
                        v[i].deaths = hs[i].deaths;
                        v[i].last_death = death;
                        v[i].has_tensors_in_place = v[i].has_tensors_copied = 1;
                        v[i].tensors_in_place = hs[i].tensors_in_place;
                        v[i].tensors_copied = hs[i].tensors_copied;
                        pv[i] = &v[i];
                }
                out->driver_hosts = pv;
                out->n_driver_hosts = n;
        }

        rq->resp.body_case = ACCELD__RESPONSE__BODY_GET_STATUS;
        rq->resp.get_status = out;
        return 0;
}
