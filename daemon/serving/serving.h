/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Serving: the state behind PrepareModel, Execute and the buffer requests.
 * One daemon_serving_t per daemon (server->serving) holds the scheduler,
 * the model table and per-uid usage; one session per connection
 * (conn->session) holds its model handles, registered buffers and pending
 * jobs. Handles and buffers belong to the connection that made them: an id
 * from another connection is NOT_FOUND. When a connection closes, its
 * queued jobs are cancelled and its handles and buffers released (running
 * jobs keep their own references until they finish).
 *
 * Loop thread only, except where serving.c hands work to the scheduler.
 */
#pragma once

#include <stdint.h>
#include <sys/types.h>

#include "models.h"
#include "scheduler.h"
#include "dispatch.h"
#include "server.h"
#include "storage-owner.h"

typedef struct daemon_uid_usage {
        uid_t uid;
        unsigned prepared;              /* handles, plus prepares in flight */
        uint64_t model_bytes;           /* sizes of the models its handles hold */
        uint64_t registered_bytes;
        unsigned queued;                /* jobs queued or running */
        unsigned lanes;                 /* lanes open (serving/lane.c), at most max_queued_per_uid */
        struct daemon_uid_usage *next;
} daemon_uid_usage_t;

typedef struct daemon_serving {
        daemon_server_t *server;
        daemon_sched_t sched;
        daemon_models_t models;
        uint64_t next_handle, next_buffer;
        daemon_uid_usage_t *usage;
        unsigned n_handles, n_buffers;
        uint64_t registered_bytes;
        uint64_t executions;
        struct daemon_lanes *lanes;     /* serving/lane.c */
        uid_t *allowed_uids;
        size_t n_allowed_uids;
        gid_t *allowed_gids;
        size_t n_allowed_gids;
        bool has_operators_gid;
        gid_t operators_gid;
        bool started;
} daemon_serving_t;

/* Set up serving for `s` (hooks into its connection life) on s->loop.
 * 0, -EINVAL (bad allowed_uids/allowed_gids) or -errno. */
int daemon_serving_init(daemon_serving_t *sv, daemon_server_t *s);

/* Stop the workers (after the connections drained) and free everything. */
void daemon_serving_done(daemon_serving_t *sv);

/* GetStatus's serving part, allocated in rq's arena. NULL on ENOMEM. */
Acceld__ServingStatus *daemon_serving_status(daemon_request_t *rq);
/* GetStatus's weights-cache counters (serving/wcache.c); NULL on ENOMEM. */
Acceld__WeightsCacheStatus *daemon_wcache_status(daemon_request_t *rq);
