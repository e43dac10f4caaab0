/* SPDX-License-Identifier: Apache-2.0 */
/* Hello: versions, limits and the connection's id. */
#include <errno.h>

#include "cache.h"
#include "config.h"
#include "handlers.h"

/* The oldest protocol this daemon still speaks. */
#define ACCELD_MIN_PROTOCOL_VERSION 1

static uint32_t clamp_u32(uint64_t v) {
        return v > UINT32_MAX ? UINT32_MAX : (uint32_t) v;
}

void daemon_limits_fill(Acceld__Limits *l, const daemon_config_t *config) {
        acceld__limits__init(l);
        l->has_max_frame_bytes = 1;
        l->max_frame_bytes = clamp_u32(config->max_frame_bytes);
        l->has_max_fds_per_frame = 1;
        l->max_fds_per_frame = IPC_MAX_FDS_PER_FRAME;
        l->has_max_in_flight_per_connection = 1;
        l->max_in_flight_per_connection = clamp_u32(config->max_in_flight);
        l->has_max_connections = 1;
        l->max_connections = clamp_u32(config->max_connections);
        /* The compilation cache (cache tokens); 0 when there is none. */
        l->has_max_cache_token_bytes = 1;
        l->max_cache_token_bytes = daemon_cache_available() ? DAEMON_CACHE_TOKEN_MAX : 0;
        /* Lanes (serving/lane.h); libaccel learns it from LaneOpen itself. */
        l->has_max_lanes = 1;
        l->max_lanes = clamp_u32(config->max_lanes);
}

int daemon_hello_handle(daemon_request_t *rq) {
        const Acceld__HelloRequest *in = rq->req->hello;
        Acceld__HelloResponse *out;
        Acceld__Limits *limits;

        if (in && in->has_protocol_version && in->protocol_version < ACCELD_MIN_PROTOCOL_VERSION)
                return daemon_request_errorf(rq, -EOPNOTSUPP,
                                             "protocol version %u is older than the oldest supported (%u)",
                                             in->protocol_version, ACCELD_MIN_PROTOCOL_VERSION);

        out = daemon_request_alloc(rq, sizeof(*out));
        limits = daemon_request_alloc(rq, sizeof(*limits));
        if (!out || !limits)
                return -ENOMEM;
        acceld__hello_response__init(out);
        out->server_version = (char *) ACCELD_VERSION;
        out->has_protocol_version = 1;
        out->protocol_version = ACCELD_PROTOCOL_VERSION;
        out->has_min_protocol_version = 1;
        out->min_protocol_version = ACCELD_MIN_PROTOCOL_VERSION;
        daemon_limits_fill(limits, rq->server->config);
        out->limits = limits;
        out->has_connection_id = 1;
        out->connection_id = rq->conn->id;

        rq->resp.body_case = ACCELD__RESPONSE__BODY_HELLO;
        rq->resp.hello = out;
        return 0;
}
