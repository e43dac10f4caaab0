/* SPDX-License-Identifier: Apache-2.0 */
/* libaccel internals shared by its source files. */
#pragma once

#include <stdarg.h>

#include "accel/accel.h"
#include "ipc.h"

/* Replies that arrived while waiting for another one and that someone
 * still wants (an execute started with accel_interp_invoke_start()). */
#define ACCEL_STASH_MAX 8

struct accel_client {
        int fd;
        char *path;
        ipc_reader_t reader;
        uint64_t next_request_id;
        uint64_t wanted[ACCEL_STASH_MAX];       /* ids whose replies are kept; 0 = free */
        Acceld__Response *stash[ACCEL_STASH_MAX];
        size_t max_frame;       /* the largest frame acceld and we take; 0: not asked yet */
};

/* The smallest max_frame_bytes acceld can be configured with: a frame this
 * size passes without asking. */
#define ACCEL_FRAME_MIN 4096u

/* A model to send: an open file (passed as an fd) or bytes in memory. */
struct accel_model {
        int fd;                 /* -1 for a model in memory */
        void *data;
        size_t size;
};

/* Record the calling thread's last error; returns `error` (negative). */
int accel__error(int error, accel_status_t status, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));
/* Clear the last error (at the start of each public call). */
void accel__error_clear(void);

/*
 * Send `req` (request_id is assigned here) and wait for its reply. On
 * success *ret_resp (freed with acceld__response__free_unpacked) has
 * status NONE and body case `want`. A daemon failure returns its status's
 * errno with the last error set to "<STATUS>: <message>".
 */
int accel__transact(accel_client_t *c, Acceld__Request *req, Acceld__Response__BodyCase want,
                    Acceld__Response **ret_resp);

/* strdup that maps NULL to "". NULL only on allocation failure. */
char *accel__strdup0(const char *s);

/* The two halves of accel__transact(): send (numbering the request;
 * *ret_id), and wait for the reply to `id`. With keep, the reply to `id` is
 * kept if it arrives while waiting for another one (at most
 * ACCEL_STASH_MAX ids at once; -EBUSY beyond). */
int accel__send(accel_client_t *c, Acceld__Request *req, const int *fds, size_t n_fds, bool keep,
                uint64_t *ret_id);
int accel__wait(accel_client_t *c, uint64_t id, Acceld__Response__BodyCase want, Acceld__Response **ret_resp);

/* The largest request frame `c` may send: acceld's max_frame_bytes (asked
 * once with Hello) or our own reader's limit, the smaller. 0 or -errno. */
int accel__max_frame(accel_client_t *c, size_t *ret);

/* accel__transact() sending `n_fds` fds (borrowed) with the request. */
int accel__transact_fds(accel_client_t *c, Acceld__Request *req, const int *fds, size_t n_fds,
                        Acceld__Response__BodyCase want, Acceld__Response **ret_resp);

/* Copy the weights-cache counters (NULL: all zero, directory ""); only
 * the directory is allocated: NULL there means out of memory. */
void accel__weights_cache_status_copy(struct accel_weights_cache_status *out, const Acceld__WeightsCacheStatus *in);

/* interp.c: the connection and prepared handle behind an interpreter
 * (evaluate.c sends requests about it). */
accel_client_t *accel__interp_client(const accel_interp_t *it);
uint64_t accel__interp_handle(const accel_interp_t *it);
/* An accel_interp_invoke_start() not yet waited for. */
bool accel__interp_busy(const accel_interp_t *it);

/* ---- lanes (lane.c; docs/architecture.md "Lanes") ---- */

typedef struct accel_lane accel_lane_t;

/* A tensor's region in the interpreter's buffer. */
typedef struct accel__lane_region {
        uint64_t offset, length;
} accel__lane_region_t;

/* What a lane invoke returns besides the outputs in place. */
typedef struct accel__lane_result {
        uint64_t queue_us, compute_us;
        bool zero_copy;
        int32_t n_outputs;              /* set by the caller: the entries below */
        int32_t *ranks;                 /* [n_outputs] */
        int32_t (*dims)[IPC_LANE_MAX_RANK];
} accel__lane_result_t;

/* Whether lanes may be used at all (ACCEL_LANE=0 turns them off). */
bool accel__lane_wanted(void);
/* LaneOpen for `handle` on connection `c`: regions of `buffer`, the
 * control block at `ctl` (mapped; ctl_offset in the buffer, a page of
 * IPC_LANE_CTL_BYTES). 0 or -errno (the daemon's refusal as last error). */
int accel__lane_open(accel_client_t *c, uint64_t handle, uint64_t buffer, void *ctl, uint64_t ctl_offset,
                     const accel__lane_region_t *ins, size_t n_ins, const accel__lane_region_t *outs, size_t n_outs,
                     accel_lane_t **ret);
/* The instance's settings key ("delegate=XNNPACK;threads=2;..."): when
 * its threads are as many as this process's CPUs, the lane's waits sleep
 * at once (no spin, no early wake-up that would take a CPU from the
 * execution). */
void accel__lane_note_settings(accel_lane_t *l, const char *settings_key);
/* Ring, wait, read the status and the output shapes. 0, or the daemon's
 * status as -errno with the last error set, -ECONNRESET when the
 * connection went away (the lane is then unusable: close it). */
int accel__lane_invoke(accel_lane_t *l, uint32_t deadline_ms, accel__lane_result_t *res);
/* Free `l`; with tell, send LaneClose first (a shared connection). */
void accel__lane_close(accel_lane_t *l, bool tell);
