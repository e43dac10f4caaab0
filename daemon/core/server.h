/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The listening socket and the connections. Everything here belongs to the
 * loop thread: the listening fd and every connection fd are watched with
 * uv_poll and read/written with ipc's reader and writer.
 *
 * A connection reads frames, decodes each into an acceld.Request and hands
 * it to the dispatcher (dispatch.c). Reading pauses while the connection has
 * max_in_flight requests outstanding or more than max_output_bytes of
 * replies unsent. A frame that does not decode, an oversized frame or bad
 * fd accounting gets a PROTOCOL_ERROR reply (best effort) and the connection
 * is closed once that reply is flushed.
 *
 * Connections are reference counted: requests that complete later (worker
 * queues) hold a reference, so a connection closed meanwhile stays
 * allocated until its last request is done; its reply is then dropped.
 * The memory is released from the uv_close callback or the last unref,
 * whichever is later.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include <uv.h>

#include "daemon-config.h"
#include "ipc.h"

typedef struct daemon_server daemon_server_t;
typedef struct daemon_conn daemon_conn_t;

/* What one uid holds across its connections (loop thread). */
typedef struct daemon_uid_conns {
        uid_t uid;
        unsigned n_conns;
        uint64_t input_bytes;           /* read buffers charged */
        uint64_t fds;                   /* queued unclaimed fds + fds held for it (buffers) */
        struct daemon_uid_conns *next;
} daemon_uid_conns_t;

typedef struct daemon_stats {
        uint64_t connections_total;
        uint64_t requests_served;       /* replies sent, any status */
        uint64_t errors;                /* replies with a status other than NONE */
        uint64_t protocol_errors;       /* connections closed for bad frames */
        uint64_t refused;               /* connections refused or cut by a limit */
} daemon_stats_t;

struct daemon_conn {
        daemon_server_t *server;
        daemon_conn_t *prev, *next;     /* server->conns */
        uint64_t id;
        int fd;
        uv_poll_t poll;
        int poll_events;                /* what poll is started with; 0 = stopped */
        ipc_reader_t reader;
        ipc_writer_t writer;
        struct ucred peer;              /* SO_PEERCRED at accept time */
        bool operator;                  /* root, acceld's uid or operators_group: sees every tenant */
        char client_field[40];          /* "CLIENT_ID=<id>" for log lines */
        unsigned n_in_flight;
        unsigned n_ref;
        daemon_uid_conns_t *uid_conns;  /* the peer's uid entry (counted in it) */
        uint64_t input_charged;         /* reader capacity charged to the uid and server */
        uint64_t fds_queued;            /* reader's queued fds charged */
        uint64_t fds_held;              /* fds held for this connection (buffers) */
        bool closing;                   /* uv_close() called */
        bool closed;                    /* close callback ran */
        bool close_after_flush;         /* no more requests; close when the writer is empty */
        bool processing;                /* inside conn_process(): no re-entry */
        bool decoding;                  /* a big frame is being unpacked on a pool thread */
        uv_work_t decode_work;
        const uint8_t *decode_payload;  /* in reader's buffer, which is left alone meanwhile */
        size_t decode_len;
        Acceld__Request *decoded;
        void *session;                  /* serving state (handles, buffers); serving.c */
};

typedef void (*daemon_server_drained_fn)(daemon_server_t *s);

struct daemon_server {
        uv_loop_t *loop;
        const daemon_config_t *config;
        int listen_fd;
        bool activated;                 /* fd from systemd: never unlink its path */
        bool bound;                     /* we bound socket_path and may unlink it */
        dev_t bound_dev;
        ino_t bound_ino;
        char *socket_path;              /* what we listen on (owned) */
        uv_poll_t listen_poll;
        bool listen_open;
        uv_timer_t retry_timer;         /* accept paused after EMFILE */
        bool retry_open;
        uv_timer_t shutdown_timer;
        bool shutdown_open;
        daemon_conn_t *conns;
        unsigned n_conns;               /* allocated and not yet closed */
        unsigned n_closing;             /* of those, uv_close() pending */
        uint64_t next_conn_id;
        daemon_uid_conns_t *uids;
        uint64_t input_bytes;           /* read buffers of every connection */
        int reserve_fd;                 /* /dev/null kept aside to answer a client at EMFILE */
        uint64_t start_ns;              /* uv_hrtime() at init */
        daemon_stats_t stats;
        bool stopping;
        daemon_server_drained_fn on_drained;
        /* Serving hooks (serving.c); NULL = none. on_conn_open may refuse a
         * connection (negative errno: it is closed at once); on_conn_close
         * runs when a connection starts closing and must release everything
         * the connection holds, queued work included. */
        void *serving;
        int (*on_conn_open)(daemon_conn_t *c);
        void (*on_conn_close)(daemon_conn_t *c);
        /* The peer shut down its side: queued work may be dropped. */
        void (*on_conn_eof)(daemon_conn_t *c);
};

/* Set up `s` (zeroing it) for `loop` and `config` (borrowed; both must
 * outlive the server). Never fails. */
void daemon_server_init(daemon_server_t *s, uv_loop_t *loop, const daemon_config_t *config);

/*
 * Start listening: on the socket systemd passed (sd_listen_fds(), exactly
 * one AF_UNIX stream socket), otherwise on config->socket_path, which is
 * created with config->socket_mode after removing a stale socket file
 * left by a dead acceld. Returns 0; -EADDRINUSE when another acceld answers
 * on the path; -EEXIST when the path exists and is not a socket;
 * -ENAMETOOLONG; -EINVAL when systemd passed anything else; other -errno.
 */
int daemon_server_listen(daemon_server_t *s);

/*
 * Begin a graceful shutdown: stop accepting, stop reading new requests,
 * let in-flight requests finish and their replies flush, then close each
 * connection. After config->shutdown_timeout_ms the rest are cut. `done` is
 * called once no connection is left (possibly from within this call).
 */
void daemon_server_shutdown(daemon_server_t *s, daemon_server_drained_fn done);

/* Close the listening socket and unlink the socket path we created. Call
 * after the loop has finished. Idempotent. */
void daemon_server_done(daemon_server_t *s);

/* Serve an already connected stream socket `fd` (non-blocking; owned by
 * the server from now on) as if it had been accepted. For tests and the
 * request fuzz target. Returns 0; the fd is closed on failure. */
int daemon_server_adopt(daemon_server_t *s, int fd);

/* Connections open and not being closed. */
unsigned daemon_server_open_connections(const daemon_server_t *s);

/* Microseconds since daemon_server_init(). */
uint64_t daemon_server_uptime_us(const daemon_server_t *s);

/* Take / drop a reference on a connection (requests in flight). The last
 * unref after the close callback frees it. unref(NULL) is a no-op and
 * returns NULL. */
daemon_conn_t *daemon_conn_ref(daemon_conn_t *c);
daemon_conn_t *daemon_conn_unref(daemon_conn_t *c);

/*
 * Queue `resp` (packed here; the caller keeps ownership of it and of `fds`,
 * which are dup'ed) on the connection and try to send it. Counts it in the
 * server's statistics. A reply to a closing connection is dropped and 0 is
 * returned. Returns 0 or a negative errno (-EMSGSIZE: over the frame limit).
 */
int daemon_conn_send(daemon_conn_t *c, const Acceld__Response *resp, const int *fds, size_t n_fds);

/*
 * Charge `n` fds acceld holds for `c` (a registered buffer) against
 * max_fds_per_connection and max_fds_per_uid. 0, or -EMFILE with a reason
 * naming the limit in why (nothing charged). Release them with
 * daemon_conn_fds_release() when they go.
 */
int daemon_conn_fds_reserve(daemon_conn_t *c, unsigned n, char *why, size_t whylen);
void daemon_conn_fds_release(daemon_conn_t *c, unsigned n);

/* Log `why` as a warning and close `c` at once (queued replies dropped):
 * for a connection whose state cannot go on, e.g. a reply that cannot be
 * queued. */
void daemon_conn_abort(daemon_conn_t *c, const char *why);

/* Called by the dispatcher when a request of `c` completes: lowers the
 * in-flight count and resumes reading if it was paused. */
void daemon_conn_request_done(daemon_conn_t *c);
