/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Requests: one daemon_request_t per decoded acceld.Request, routed by its
 * body case through a single table (dispatch.c) to a handler, one file per
 * request family (hello.c, caps.c, status.c, ...).
 *
 * A handler fills rq->resp's body (allocating it with daemon_request_alloc()
 * so it is freed with the request) and returns:
 *   0                        reply now with status NONE;
 *   a negative errno         reply now with ipc_status_from_errno() of it
 *                            and rq->message (or strerror());
 *   DAEMON_REQUEST_DEFERRED  the handler keeps rq and calls
 *                            daemon_request_complete() later on the loop
 *                            thread (the scheduler's worker queues).
 * A request with no known body case is answered UNSUPPORTED.
 * Loop thread only.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "ipc.h"
#include "server.h"

#define DAEMON_REQUEST_DEFERRED 1

typedef struct daemon_alloc daemon_alloc_t;

typedef struct daemon_request {
        daemon_conn_t *conn;            /* referenced for the request's life */
        daemon_server_t *server;
        Acceld__Request *req;           /* decoded request, owned */
        int fds[IPC_MAX_FDS_PER_FRAME]; /* fds that came with it, owned; -1 once taken */
        size_t n_fds;
        Acceld__Response resp;          /* request_id preset; body filled by handlers */
        const char *message;            /* error message (arena or static) */
        daemon_alloc_t *allocs;         /* arena, freed with the request */
        uint64_t received_ns;           /* uv_hrtime() at decode */
        int out_fds[IPC_MAX_FDS_PER_FRAME]; /* sent with the reply, then closed (owned) */
        size_t n_out_fds;
} daemon_request_t;

typedef int (*daemon_handler_fn)(daemon_request_t *rq);

/*
 * Handle one decoded request of `c`. Takes ownership of `req` and of the
 * `n_fds` fds (n_fds <= IPC_MAX_FDS_PER_FRAME). Counts it in flight on `c`
 * until it completes. Never fails: errors become replies.
 */
void daemon_dispatch(daemon_conn_t *c, Acceld__Request *req, int *fds, size_t n_fds);

/* Finish a request a handler deferred; `r` has the handler's meaning. Sends
 * the reply (dropped if the connection closed meanwhile) and frees rq. */
void daemon_request_complete(daemon_request_t *rq, int r);

/* Zeroed memory that lives as long as rq. NULL on allocation failure. */
void *daemon_request_alloc(daemon_request_t *rq, size_t size);
/* strdup()/printf into rq's arena. NULL on allocation failure. */
char *daemon_request_strdup(daemon_request_t *rq, const char *s);
char *daemon_request_printf(daemon_request_t *rq, const char *fmt, ...)
        __attribute__((format(printf, 2, 3)));
/* Set rq->message and return `error` (a negative errno), for
 * `return daemon_request_errorf(rq, -EINVAL, "bad %s", x);`. */
int daemon_request_errorf(daemon_request_t *rq, int error, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));

/* The CLOCK_MONOTONIC deadline (ns, 0 = none) of a request's deadline_us,
 * counted from its receipt; one too far to represent is none, never a
 * wrapped-around one already missed. */
uint64_t daemon_request_deadline_ns(const daemon_request_t *rq, bool has_deadline, uint64_t deadline_us);

/* Take the request's fd number `index` (as named in its body): returns it
 * (the caller owns it) or -EBADF when the index is out of range or the fd
 * was already taken. */
int daemon_request_take_fd(daemon_request_t *rq, int64_t index);

/* "Hello", "GetCapabilities", ...; "unknown" for a case not in the table. */
const char *daemon_request_name(Acceld__Request__BodyCase body_case);
