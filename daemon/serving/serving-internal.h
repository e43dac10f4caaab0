/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What the serving request files share: the per-connection session, its
 * handles, buffers and jobs, and the job helpers (session.c).
 */
#pragma once

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "handlers.h"
#include "log.h"
#include "refusals.h"
#include <grp.h>
#include <pwd.h>

#include "serving.h"
#include "quarantine.h"
#include "host/host.h"
#include "bench.h"
#include "settings.h"
#include "cache.h"
#include "storage.h"
#include "driver.h"
#include "shm.h"
#include "lane.h"

#define BUFFER_MAX_BYTES (4ull << 30)

typedef struct serving_handle {
        uint64_t id;
        daemon_instance_t *instance;    /* one reference */
        int priority;                   /* default for its executes */
        daemon_uid_usage_t *usage;      /* charged h->instance->model->size */
        /* After ResizeInputs: this handle's shapes (owned); NULL = the
         * model's declared shapes (inst->inputs/outputs). */
        daemon_tensor_info_t *inputs, *outputs;
        /* Stateful instances: this handle's variables (one reference),
         * made at its first execution; NULL until then, and for others. */
        daemon_state_t *state;
        struct serving_handle *next;
} serving_handle_t;

typedef struct serving_buffer {
        uint64_t id;
        int fd;
        uint8_t *map;
        size_t size;
        uint64_t shm_id;                /* in runtime/shm.h's registry */
        unsigned n_ref;                 /* the session, and jobs using it */
        struct serving_buffer *next;
} serving_buffer_t;

typedef struct serving_job serving_job_t;

typedef struct serving_session {
        daemon_serving_t *sv;
        daemon_conn_t *conn;
        daemon_uid_usage_t *usage;
        serving_handle_t *handles;
        serving_buffer_t *buffers;
        serving_job_t *jobs;            /* submitted, not yet done */
        struct serving_lane *lanes;     /* open lanes (lane.c) */
} serving_session_t;

typedef struct job_tensor {
        const uint8_t *in;              /* input source */
        uint8_t *out;                   /* output destination (region), or NULL: inline */
        size_t len;
        serving_buffer_t *buffer;       /* referenced */
        uint8_t *inline_out;            /* malloc'ed inline output */
        size_t inline_len;
        bool bound;                     /* zero-copy: the interpreter runs on the region */
        int32_t rank;
        int32_t dims[RT_MAX_RANK];
} job_tensor_t;

struct serving_job {
        daemon_job_t job;
        daemon_request_t *rq;
        serving_session_t *session;     /* NULL once the connection closed */
        serving_job_t *prev, *next;     /* session->jobs */
        daemon_serving_t *sv;
        daemon_uid_usage_t *usage;
        /* PrepareModel */
        daemon_model_source_t src;
        int model_fd;
        rt_settings_t settings;
        bool default_settings;          /* the client gave none: a benchmark decision may apply */
        /* Placement (bench/placement.h): the client may run the model
         * (it sent the bytes), the settings forced "daemon", and the
         * applied decision's compute median (-1: none). */
        bool client_placement, placement_daemon;
        int64_t decision_compute_us;
        char thread_note[192];          /* the CPU budget's clamp of the settings, "" when none */
        int preference;                 /* tflite.proto.ExecutionPreference */
        int priority;
        bool shared;
        /* Compilation cache: the uid-scoped key of the request's token
         * ("" without one); from_cache: no model was sent. */
        char cache_key[DAEMON_CACHE_KEY_SIZE];
        char cache_sha256[ACC_SHA256_HEX_SIZE];
        bool from_cache;
        bool cache_written;
        /* Execute, ResizeInputs: the input shapes to run with. */
        int32_t (*shapes)[RT_MAX_RANK];
        int32_t *ranks;
        uint64_t handle_id;
        daemon_tensor_info_t *new_inputs, *new_outputs;  /* ResizeInputs result */
        int32_t n_new_inputs, n_new_outputs;
        /* GetSupportedOperations */
        Acceld__GetSupportedOperationsResponse *ops;
        /* ListModels: what list_run found, for list_done */
        void *result;
        /* Execute */
        daemon_instance_t *instance;    /* referenced */
        job_tensor_t *inputs, *outputs;
        size_t n_inputs, n_outputs;
        bool outputs_inline;
        bool zero_copy;                 /* every input and output was bound */
        daemon_state_t *state;          /* its handle's state (referenced), or NULL */
        unsigned batch_n;               /* executions in its invoke (0 = 1) */
        char err[1024];
};

/* ---- session.c and friends: shared by every request file ---- */

/* Execute (execute.c): one job on a pooled interpreter; 0 or -errno with
 * j->err. */
int serving__execute_one(serving_job_t *j);
/* Dynamic batching (batch.c). */
bool serving__batch_eligible(const serving_job_t *j);
void serving__batch_run(serving_job_t *lead);

serving_buffer_t *serving__buffer_find(serving_session_t *ss, uint64_t id);
/* Resolve region `d` of a registered buffer of this connection for tensor
 * `what` `k` of a job (Execute, a lane): t->buffer (one reference taken)
 * and t->len; the errors name the tensor. 0 or -errno. */
int serving__region_get(daemon_request_t *rq, serving_session_t *ss, const Acceld__TensorData *d, const char *what,
                        size_t k, job_tensor_t *t);
void serving__buffer_unref(daemon_serving_t *sv, serving_buffer_t *b);
serving_handle_t *serving__handle_find(serving_session_t *ss, uint64_t id);
void serving__handle_free(daemon_serving_t *sv, serving_handle_t *h);
void serving__infos_free(daemon_tensor_info_t *v, int32_t n);
int serving__interp_shape(rt_interp_t *it, serving_job_t *j);
void serving__job_complete(serving_job_t *j, int r);
void serving__job_complete_keep(serving_job_t *j, int r);
void serving__job_free(serving_job_t *j);
serving_job_t *serving__job_new(daemon_request_t *rq, serving_session_t *ss);
int serving__job_submit(daemon_request_t *rq, serving_session_t *ss, serving_job_t *j, const char *queue);
int serving__priority_of(Acceld__Priority p, int def);
int serving__queue_check(daemon_request_t *rq, serving_session_t *ss);
/* Charge the fd of a buffer about to be registered against the connection's
 * and uid's fd caps (release: daemon_conn_fds_release(conn, 1)); an error
 * naming the cap (RESOURCE_EXHAUSTED) if it does not fit. */
int serving__buffer_admit(daemon_request_t *rq);
serving_session_t *serving__session_get(daemon_request_t *rq);
Acceld__TensorInfo **serving__tensor_infos(daemon_request_t *rq, const daemon_tensor_info_t *v, int32_t n);
