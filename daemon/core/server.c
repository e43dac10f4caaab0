/* SPDX-License-Identifier: Apache-2.0 */
/* Listening, accepting, and the per-connection read/write state machine. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <systemd/sd-daemon.h>

#include "cleanup.h"
#include "dispatch.h"
#include "log.h"
#include "refusals.h"
#include "server.h"

/* Reads per wake-up, so one busy client cannot starve the others. */
#define CONN_READS_PER_WAKEUP 16
#define ACCEPTS_PER_WAKEUP 32
#define ACCEPT_RETRY_MS 100
/* Unpacked size a request may reach, against its frame: protobuf-c copies
 * bytes fields, so 1x is normal; the rest is structs and pointers. */
#define FRAME_UNPACK_FACTOR 4u
#define FRAME_UNPACK_SLACK (1024u * 1024u)
/* Frames above this are unpacked on a pool thread, not the loop. */
#define FRAME_DECODE_INLINE_MAX (1024u * 1024u)

static void conn_update_poll(daemon_conn_t *c);
static void conn_process(daemon_conn_t *c);
static void conn_process_frames(daemon_conn_t *c);
static bool conn_request_take(daemon_conn_t *c, Acceld__Request *req);
static void conn_decode_start(daemon_conn_t *c, const uint8_t *payload, size_t len);
static void conn_close(daemon_conn_t *c);
static void server_check_drained(daemon_server_t *s);

void daemon_server_init(daemon_server_t *s, uv_loop_t *loop, const daemon_config_t *config) {
        *s = (daemon_server_t) {
                .loop = loop,
                .config = config,
                .listen_fd = -1,
                .next_conn_id = 1,
                .start_ns = uv_hrtime(),
                .reserve_fd = -1,
        };
}

/* ---- per-uid counts ---- */

static daemon_uid_conns_t *uid_conns_find(daemon_server_t *s, uid_t uid) {
        for (daemon_uid_conns_t *u = s->uids; u; u = u->next)
                if (u->uid == uid)
                        return u;
        return NULL;
}

static daemon_uid_conns_t *uid_conns_get(daemon_server_t *s, uid_t uid) {
        daemon_uid_conns_t *u = uid_conns_find(s, uid);

        if (u)
                return u;
        u = calloc(1, sizeof(*u));
        if (!u)
                return NULL;
        u->uid = uid;
        u->next = s->uids;
        s->uids = u;
        return u;
}

static void uid_conns_maybe_free(daemon_server_t *s, daemon_uid_conns_t *u) {
        if (!u || u->n_conns > 0 || u->fds > 0 || u->input_bytes > 0)
                return;
        for (daemon_uid_conns_t **p = &s->uids; *p; p = &(*p)->next)
                if (*p == u) {
                        *p = u->next;
                        free(u);
                        return;
                }
}

/* Set the read-buffer bytes charged for c to `bytes`. */
static void conn_input_charge(daemon_conn_t *c, uint64_t bytes) {
        daemon_server_t *s = c->server;

        s->input_bytes = s->input_bytes - c->input_charged + bytes;
        if (c->uid_conns)
                c->uid_conns->input_bytes = c->uid_conns->input_bytes - c->input_charged + bytes;
        c->input_charged = bytes;
}

/* Set the queued fds charged for c to `n`. */
static void conn_fds_queued_charge(daemon_conn_t *c, uint64_t n) {
        if (c->uid_conns)
                c->uid_conns->fds = c->uid_conns->fds - c->fds_queued + n;
        c->fds_queued = n;
}

/* Whether `extra` more fds fit c's caps, `slack` over them allowed; a
 * reason naming the cap if not. */
static int conn_fds_check(daemon_conn_t *c, uint64_t extra, uint64_t slack, char *why, size_t whylen) {
        const daemon_config_t *cfg = c->server->config;
        daemon_uid_conns_t *u = c->uid_conns;

        if (c->fds_held + c->fds_queued + extra > cfg->max_fds_per_connection + slack) {
                (void) snprintf(why, whylen,
                                "connection would hold %" PRIu64 " file descriptors (max_fds_per_connection %" PRIu64 ")",
                                c->fds_held + c->fds_queued + extra, cfg->max_fds_per_connection);
                daemon_refusal_count(DAEMON_REFUSAL_fds);
                return -EMFILE;
        }
        if (u && u->n_conns + u->fds + extra > cfg->max_fds_per_uid + slack) {
                (void) snprintf(why, whylen,
                                "uid %u would hold %" PRIu64 " file descriptors, connections included "
                                "(max_fds_per_uid %" PRIu64 ")",
                                (unsigned) u->uid, u->n_conns + u->fds + extra, cfg->max_fds_per_uid);
                daemon_refusal_count(DAEMON_REFUSAL_fds);
                return -EMFILE;
        }
        return 0;
}

int daemon_conn_fds_reserve(daemon_conn_t *c, unsigned n, char *why, size_t whylen) {
        int r = conn_fds_check(c, n, 0, why, whylen);

        if (r < 0)
                return r;
        c->fds_held += n;
        if (c->uid_conns)
                c->uid_conns->fds += n;
        return 0;
}

void daemon_conn_fds_release(daemon_conn_t *c, unsigned n) {
        if (n > c->fds_held)
                n = (unsigned) c->fds_held;
        c->fds_held -= n;
        if (c->uid_conns)
                c->uid_conns->fds -= n;
}

/* Answer a client we will not serve with one frame, then close it. The
 * socket is new and empty, so the small frame goes in one send. */
static void server_refuse_fd(int fd, int error, const char *why) {
        Acceld__Response resp = ACCELD__RESPONSE__INIT;
        ipc_writer_t w;

        resp.has_request_id = 1;
        resp.request_id = 0;
        resp.has_status = 1;
        resp.status = ipc_status_from_errno(error);
        resp.message = (char *) why;
        ipc_writer_init(&w);
        if (ipc_writer_push(&w, &resp.base, NULL, 0, 0) == 0)
                (void) ipc_writer_flush(&w, fd);
        ipc_writer_done(&w);
        (void) close(fd);
}

unsigned daemon_server_open_connections(const daemon_server_t *s) {
        return s->n_conns - s->n_closing;
}

uint64_t daemon_server_uptime_us(const daemon_server_t *s) {
        return (uv_hrtime() - s->start_ns) / 1000;
}

/* ---- connections ---- */

daemon_conn_t *daemon_conn_ref(daemon_conn_t *c) {
        if (c)
                c->n_ref++;
        return c;
}

/* Whatever the connection still has charged goes with it, and it stops
 * counting against its uid (requests in flight may keep it allocated). */
static void conn_uncount(daemon_conn_t *c) {
        daemon_uid_conns_t *u = c->uid_conns;

        if (!c->decoding)
                ipc_reader_done(&c->reader);
        conn_input_charge(c, 0);
        conn_fds_queued_charge(c, 0);
        daemon_conn_fds_release(c, (unsigned) c->fds_held);
        if (u) {
                u->n_conns--;
                c->uid_conns = NULL;
                uid_conns_maybe_free(c->server, u);
        }
}

static void conn_free(daemon_conn_t *c) {
        ipc_reader_done(&c->reader);
        ipc_writer_done(&c->writer);
        free(c);
}

daemon_conn_t *daemon_conn_unref(daemon_conn_t *c) {
        if (!c)
                return NULL;
        if (--c->n_ref > 0)
                return NULL;
        conn_free(c);
        return NULL;
}

static bool conn_may_read(const daemon_conn_t *c) {
        const daemon_config_t *cfg = c->server->config;

        return !c->closing && !c->close_after_flush && !c->server->stopping && !c->decoding &&
               c->n_in_flight < cfg->max_in_flight && c->writer.queued_bytes < cfg->max_output_bytes;
}

/* Nothing left to do on a connection that must go: close it. */
static void conn_maybe_finish(daemon_conn_t *c) {
        if (c->closing || ipc_writer_pending(&c->writer))
                return;
        if (c->close_after_flush && c->n_in_flight == 0)
                conn_close(c);
        else if (c->server->stopping && c->n_in_flight == 0)
                conn_close(c);
}

static void conn_on_close(uv_handle_t *h) {
        daemon_conn_t *c = h->data;
        daemon_server_t *s = c->server;

        if (c->fd >= 0)
                (void) close(c->fd);
        c->fd = -1;
        c->closed = true;
        conn_uncount(c);
        if (c->prev)
                c->prev->next = c->next;
        else
                s->conns = c->next;
        if (c->next)
                c->next->prev = c->prev;
        c->prev = c->next = NULL;
        s->n_conns--;
        s->n_closing--;
        log_full(LOG_DEBUG, DLOG_FIELDS(c->client_field), "connection %" PRIu64 " closed", c->id);
        (void) daemon_conn_unref(c);
        if (s->stopping)
                server_check_drained(s);
}

static void conn_close(daemon_conn_t *c) {
        if (c->closing)
                return;
        c->closing = true;
        c->server->n_closing++;
        if (c->server->on_conn_close)
                c->server->on_conn_close(c);
        if (c->poll_events)
                (void) uv_poll_stop(&c->poll);
        c->poll_events = 0;
        /* Frames not yet sent go now; their fds are closed with the writer. */
        ipc_writer_done(&c->writer);
        ipc_writer_init(&c->writer);
        uv_close((uv_handle_t *) &c->poll, conn_on_close);
}

static void conn_flush(daemon_conn_t *c) {
        int r;

        if (c->closing)
                return;
        r = ipc_writer_flush(&c->writer, c->fd);
        if (r < 0 && r != -EAGAIN) {
                if (r != -EPIPE && r != -ECONNRESET)
                        (void) log_full_errno(LOG_WARNING, r, DLOG_FIELDS(c->client_field),
                                              "write failed");
                conn_close(c);
                return;
        }
        conn_maybe_finish(c);
}

/* Answer with `error`'s status and `why` (best effort) and close once it
 * is sent: a broken frame, or a connection over a limit. */
static void conn_fail(daemon_conn_t *c, uint64_t request_id, int error, const char *why) {
        Acceld__Response resp = ACCELD__RESPONSE__INIT;

        /* No more reading: what is queued is all the peer gets. */
        ipc_reader_close_fds(&c->reader);
        conn_fds_queued_charge(c, 0);
        if (error == -EPROTO) {
                c->server->stats.protocol_errors++;
                log_full(LOG_WARNING, DLOG_FIELDS(c->client_field), "protocol error, closing connection: %s",
                         why);
        } else {
                c->server->stats.refused++;
                log_full(LOG_WARNING, DLOG_FIELDS(c->client_field), "closing connection: %s", why);
        }
        resp.has_request_id = 1;
        resp.request_id = request_id;
        resp.has_status = 1;
        resp.status = ipc_status_from_errno(error);
        resp.message = (char *) why;
        /* Best effort, and not counted as a request served. */
        (void) ipc_writer_push(&c->writer, &resp.base, NULL, 0, c->server->config->max_frame_bytes);
        c->close_after_flush = true;
        conn_flush(c);
        if (!c->closing)
                conn_update_poll(c);
}

static void conn_protocol_error(daemon_conn_t *c, uint64_t request_id, const char *why) {
        conn_fail(c, request_id, -EPROTO, why);
}

void daemon_conn_abort(daemon_conn_t *c, const char *why) {
        if (c->closing)
                return;
        c->server->stats.refused++;
        log_full(LOG_WARNING, DLOG_FIELDS(c->client_field), "closing connection: %s", why);
        conn_close(c);
}

int daemon_conn_send(daemon_conn_t *c, const Acceld__Response *resp, const int *fds, size_t n_fds) {
        daemon_server_t *s = c->server;
        int r;

        if (c->closing)
                return 0;
        /* Reading pauses at max_output_bytes, but requests already in
         * flight still answer; past one more frame the peer is not reading. */
        if (c->writer.queued_bytes >= s->config->max_output_bytes + s->config->max_frame_bytes) {
                daemon_refusal_count(DAEMON_REFUSAL_output_bytes);
                return -ENOBUFS;
        }
        r = ipc_writer_push(&c->writer, &resp->base, fds, n_fds, s->config->max_frame_bytes);
        if (r < 0)
                return r;
        s->stats.requests_served++;
        if (resp->status != ACCELD__STATUS__NONE)
                s->stats.errors++;
        conn_flush(c);
        if (!c->closing)
                conn_update_poll(c);
        return 0;
}

void daemon_conn_request_done(daemon_conn_t *c) {
        if (c->n_in_flight > 0)
                c->n_in_flight--;
        if (c->closing)
                return;
        conn_maybe_finish(c);
        /* A request finishing inside conn_process() (a synchronous handler)
         * must not recurse into it: its loop picks up the next frame. */
        if (!c->closing && !c->processing && conn_may_read(c))
                conn_process(c);
}

/* Decode and dispatch every whole frame buffered, while limits allow. */
static void conn_process(daemon_conn_t *c) {
        if (c->processing)
                return;
        c->processing = true;
        conn_process_frames(c);
        c->processing = false;
        if (!c->closing)
                conn_update_poll(c);
}

/*
 * Bound what a frame unpacks into before protobuf-c allocates anything
 * (it has no count limit of its own): a frame over max_frame_elements, or
 * whose unpacked size would be far beyond its own, is answered
 * RESOURCE_EXHAUSTED and the connection closed. The scan stops at the
 * limit, so a hostile frame costs the loop little. -ENOMEM when refused.
 */
static int conn_frame_check(daemon_conn_t *c, const uint8_t *payload, size_t len) {
        const daemon_config_t *cfg = c->server->config;
        ipc_scan_limits_t lim = {
                .max_elements = cfg->max_frame_elements,
                .max_bytes = (uint64_t) len * FRAME_UNPACK_FACTOR + FRAME_UNPACK_SLACK,
        };
        ipc_scan_result_t res = {};
        char why[256];
        int r;

        r = ipc_frame_scan(&acceld__request__descriptor, payload, len, &lim, &res);
        if (r == -E2BIG)
                (void) snprintf(why, sizeof(why),
                                "request %" PRIu64 " holds more than %" PRIu64 " fields and repeated elements "
                                "(max_frame_elements), or nests too deep",
                                res.request_id, cfg->max_frame_elements);
        else if (r == -ENOMEM)
                (void) snprintf(why, sizeof(why),
                                "request %" PRIu64 " would unpack into more than %" PRIu64 " bytes from a %zu-byte frame",
                                res.request_id, lim.max_bytes, len);
        else
                return 0;       /* a payload that does not decode fails in unpack, as before */
        daemon_refusal_count(DAEMON_REFUSAL_frames);
        ipc_reader_consume(&c->reader);
        conn_input_charge(c, c->reader.cap);
        conn_fail(c, res.request_id, -ENOMEM, why);
        return -ENOMEM;
}

/* Fds left queued once every buffered byte is consumed came with frames
 * that did not claim them: close them rather than hold them forever. */
static void conn_drop_unclaimed_fds(daemon_conn_t *c) {
        if (c->reader.len > 0 || c->reader.n_fds == 0)
                return;
        log_full(LOG_NOTICE, DLOG_FIELDS(c->client_field),
                 "closing %zu file descriptor(s) sent with no request claiming them", c->reader.n_fds);
        ipc_reader_close_fds(&c->reader);
        conn_fds_queued_charge(c, 0);
}

static void conn_process_frames(daemon_conn_t *c) {
        for (;;) {
                const uint8_t *payload;
                Acceld__Request *req;
                size_t len;
                int r;

                if (!conn_may_read(c))
                        break;
                r = ipc_reader_next(&c->reader, &payload, &len);
                if (r == 0) {
                        conn_drop_unclaimed_fds(c);
                        break;
                }
                if (r == -EMSGSIZE) {
                        daemon_refusal_count(DAEMON_REFUSAL_frames);
                conn_protocol_error(c, 0, "frame exceeds max_frame_bytes");
                        return;
                }
                if (r < 0) {
                        conn_protocol_error(c, 0, "unreadable frame");
                        return;
                }
                if (conn_frame_check(c, payload, len) < 0)
                        return;
                if (len > FRAME_DECODE_INLINE_MAX) {
                        conn_decode_start(c, payload, len);
                        return;
                }
                req = acceld__request__unpack(NULL, len, payload);
                if (!conn_request_take(c, req))
                        return;
        }
}

/* Work on a decoded frame (still in the reader): consume it, take its fds
 * and dispatch it. False when the connection cannot go on. */
static bool conn_request_take(daemon_conn_t *c, Acceld__Request *req) {
        int fds[IPC_MAX_FDS_PER_FRAME];
        size_t n_fds;

        ipc_reader_consume(&c->reader);
        conn_input_charge(c, c->reader.cap);
        if (!req) {
                conn_protocol_error(c, 0, "frame does not decode as acceld.Request");
                return false;
        }
        n_fds = req->num_fds;
        if (n_fds > IPC_MAX_FDS_PER_FRAME || ipc_reader_take_fds(&c->reader, fds, n_fds) < 0) {
                uint64_t id = req->request_id;

                acceld__request__free_unpacked(req, NULL);
                conn_protocol_error(c, id, "num_fds does not match the fds received");
                return false;
        }
        conn_fds_queued_charge(c, c->reader.n_fds);
        daemon_dispatch(c, req, fds, n_fds);
        return !c->closing;
}

/* A big frame is unpacked on a libuv pool thread: copying tens of
 * megabytes must not stall every other client. The connection reads
 * nothing meanwhile (the payload stays in its reader, untouched) and holds
 * a reference, so a close meanwhile only drops the result. */
static void conn_decode_work(uv_work_t *w) {
        daemon_conn_t *c = w->data;

        c->decoded = acceld__request__unpack(NULL, c->decode_len, c->decode_payload);
}

static void conn_decode_done(uv_work_t *w, int status) {
        daemon_conn_t *c = w->data;
        Acceld__Request *req = c->decoded;

        c->decoded = NULL;
        c->decoding = false;
        if (c->closing || status < 0) {
                if (req)
                        acceld__request__free_unpacked(req, NULL);
                if (!c->closing)
                        conn_close(c);
        } else if (conn_request_take(c, req) && !c->closing) {
                conn_process(c);
        }
        if (c->closed)
                ipc_reader_done(&c->reader);
        (void) daemon_conn_unref(c);
}

static void conn_decode_start(daemon_conn_t *c, const uint8_t *payload, size_t len) {
        int r;

        c->decode_payload = payload;
        c->decode_len = len;
        c->decode_work.data = c;
        c->decoding = true;
        r = uv_queue_work(c->server->loop, &c->decode_work, conn_decode_work, conn_decode_done);
        if (r < 0) {
                /* No pool: unpack here, as small frames are. */
                c->decoding = false;
                (void) conn_request_take(c, acceld__request__unpack(NULL, len, payload));
                return;
        }
        (void) daemon_conn_ref(c);
}

/* Charge the read buffer the next recv needs against max_input_bytes_per_uid
 * and max_input_bytes; answer and close the connection that would pass one. */
static int conn_input_reserve(daemon_conn_t *c) {
        daemon_server_t *s = c->server;
        const daemon_config_t *cfg = s->config;
        uint64_t want = ipc_reader_recv_capacity(&c->reader), extra;
        char why[256];

        if (want <= c->input_charged)
                return 0;
        extra = want - c->input_charged;
        if (c->uid_conns && c->uid_conns->input_bytes + extra > cfg->max_input_bytes_per_uid)
                (void) snprintf(why, sizeof(why),
                                "uid %u would have %" PRIu64 " bytes of unfinished frames buffered "
                                "(max_input_bytes_per_uid %" PRIu64 ")",
                                (unsigned) c->peer.uid, c->uid_conns->input_bytes + extra,
                                cfg->max_input_bytes_per_uid);
        else if (s->input_bytes + extra > cfg->max_input_bytes)
                (void) snprintf(why, sizeof(why),
                                "acceld would have %" PRIu64 " bytes of unfinished frames buffered "
                                "(max_input_bytes %" PRIu64 ")",
                                s->input_bytes + extra, cfg->max_input_bytes);
        else {
                conn_input_charge(c, want);
                return 0;
        }
        daemon_refusal_count(DAEMON_REFUSAL_input_bytes);
        conn_fail(c, 0, -EAGAIN, why);
        return -EAGAIN;
}

/* Charge fds that arrived; answer and close past a cap. One frame's worth
 * of slack, so that a request at the cap (a RegisterBuffer) is refused with
 * an error of its own rather than by closing its connection. */
static int conn_fds_arrived(daemon_conn_t *c) {
        char why[256];

        if (c->reader.n_fds > c->fds_queued &&
            conn_fds_check(c, c->reader.n_fds - c->fds_queued, IPC_MAX_FDS_PER_FRAME, why, sizeof(why)) < 0) {
                conn_fail(c, 0, -EAGAIN, why);
                return -EMFILE;
        }
        conn_fds_queued_charge(c, c->reader.n_fds);
        return 0;
}

static void conn_read(daemon_conn_t *c) {
        for (int i = 0; i < CONN_READS_PER_WAKEUP && conn_may_read(c); i++) {
                ssize_t n;

                if (conn_input_reserve(c) < 0)
                        return;
                n = ipc_reader_recv(&c->reader, c->fd);
                conn_input_charge(c, c->reader.cap);

                if (n == -EAGAIN || n == -EINTR)
                        break;
                if (n == 0) {
                        if (ipc_reader_has_partial(&c->reader))
                                log_full(LOG_DEBUG, DLOG_FIELDS(c->client_field),
                                         "peer closed mid-frame");
                        /* Replies still queued or owed are delivered if the
                         * peer only shut down its writing side. */
                        c->close_after_flush = true;
                        if (c->server->on_conn_eof)
                                c->server->on_conn_eof(c);
                        if (c->closing)
                                return;
                        conn_maybe_finish(c);
                        if (!c->closing)
                                conn_update_poll(c);
                        return;
                }
                if (n == -EMSGSIZE) {
                        daemon_refusal_count(DAEMON_REFUSAL_frames);
                conn_protocol_error(c, 0, "frame exceeds max_frame_bytes");
                        return;
                }
                if (n == -EPROTO) {
                        char why[128];

                        (void) snprintf(why, sizeof(why),
                                        "more than %u file descriptors sent ahead of the requests claiming them",
                                        (unsigned) IPC_MAX_QUEUED_FDS);
                        daemon_refusal_count(DAEMON_REFUSAL_fds);
                        conn_fail(c, 0, -EPROTO, why);
                        return;
                }
                if (n == -EMFILE) {
                        /* Our own limit, not the peer's fault: say so. */
                        daemon_refusal_count(DAEMON_REFUSAL_fds);
                        conn_fail(c, 0, -EAGAIN, "acceld ran out of file descriptors (RLIMIT_NOFILE) "
                                  "receiving this connection's; try again later");
                        return;
                }
                if (n < 0) {
                        if (n != -ECONNRESET)
                                (void) log_full_errno(LOG_WARNING, (int) n,
                                                      DLOG_FIELDS(c->client_field), "read failed");
                        conn_close(c);
                        return;
                }
                if (conn_fds_arrived(c) < 0)
                        return;
                conn_process(c);
                if (c->closing || c->close_after_flush)
                        return;
        }
        if (!c->closing)
                conn_update_poll(c);
}

static void conn_poll_cb(uv_poll_t *p, int status, int events) {
        daemon_conn_t *c = p->data;

        if (c->closing)
                return;
        if (status < 0) {
                (void) log_full_errno(LOG_WARNING, status, DLOG_FIELDS(c->client_field), "poll failed");
                conn_close(c);
                return;
        }
        if (events & UV_WRITABLE) {
                conn_flush(c);
                if (c->closing)
                        return;
                /* Room in the output again: frames may be waiting. */
                if (conn_may_read(c))
                        conn_process(c);
                if (c->closing)
                        return;
        }
        if (events & UV_READABLE)
                conn_read(c);
        else
                conn_update_poll(c);
}

static void conn_update_poll(daemon_conn_t *c) {
        int events = 0, r;

        if (c->closing)
                return;
        if (conn_may_read(c))
                events |= UV_READABLE;
        if (ipc_writer_pending(&c->writer))
                events |= UV_WRITABLE;
        if (events == c->poll_events)
                return;
        if (events == 0) {
                (void) uv_poll_stop(&c->poll);
                c->poll_events = 0;
                return;
        }
        r = uv_poll_start(&c->poll, events, conn_poll_cb);
        if (r < 0) {
                (void) log_full_errno(LOG_ERR, r, DLOG_FIELDS(c->client_field), "uv_poll_start failed");
                conn_close(c);
                return;
        }
        c->poll_events = events;
}

/*
 * Whether a new connection from `peer` fits the connection caps; a reason
 * naming the cap if not. Root may pass max_connections (never its own
 * max_connections_per_uid), so other uids filling the daemon cannot lock
 * the administrator out.
 */
static int server_admit(daemon_server_t *s, const struct ucred *peer, char *why, size_t whylen) {
        const daemon_config_t *cfg = s->config;
        daemon_uid_conns_t *u = uid_conns_find(s, peer->uid);
        unsigned mine = u ? u->n_conns : 0;

        if (mine >= cfg->max_connections_per_uid) {
                (void) snprintf(why, whylen, "uid %u has %u connections open (max_connections_per_uid %" PRIu64 ")",
                                (unsigned) peer->uid, mine, cfg->max_connections_per_uid);
                return -EAGAIN;
        }
        if (u && u->n_conns + u->fds >= cfg->max_fds_per_uid) {
                (void) snprintf(why, whylen, "uid %u holds %" PRIu64 " file descriptors (max_fds_per_uid %" PRIu64 ")",
                                (unsigned) peer->uid, u->n_conns + u->fds, cfg->max_fds_per_uid);
                return -EAGAIN;
        }
        if (peer->uid != 0 && s->n_conns - s->n_closing >= cfg->max_connections) {
                (void) snprintf(why, whylen, "%u connections open (max_connections %" PRIu64 ")",
                                s->n_conns - s->n_closing, cfg->max_connections);
                return -EAGAIN;
        }
        return 0;
}

static void conn_new(daemon_server_t *s, int fd) {
        daemon_conn_t *c;
        socklen_t len = sizeof(struct ucred);
        struct ucred peer;
        char why[256];
        int r;

        if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &len) < 0)
                peer = (struct ucred) { .pid = 0, .uid = (uid_t) -1, .gid = (gid_t) -1 };
        r = server_admit(s, &peer, why, sizeof(why));
        if (r < 0) {
                s->stats.refused++;
                daemon_refusal_count(DAEMON_REFUSAL_connections);
                (void) log_warning("refusing a connection from pid %d uid %u: %s", (int) peer.pid,
                                   (unsigned) peer.uid, why);
                server_refuse_fd(fd, r, why);
                return;
        }
        c = calloc(1, sizeof(*c));
        if (c)
                c->uid_conns = uid_conns_get(s, peer.uid);
        if (!c || !c->uid_conns) {
                (void) log_error_errno(-ENOMEM, "cannot accept connection");
                free(c);
                (void) close(fd);
                return;
        }
        c->uid_conns->n_conns++;
        c->server = s;
        c->fd = fd;
        c->id = s->next_conn_id++;
        c->n_ref = 1;   /* dropped in the close callback */
        (void) snprintf(c->client_field, sizeof(c->client_field), "CLIENT_ID=%" PRIu64, c->id);
        c->peer = peer;
        ipc_reader_init(&c->reader, s->config->max_frame_bytes);
        ipc_writer_init(&c->writer);

        r = uv_poll_init(s->loop, &c->poll, fd);
        if (r < 0) {
                (void) log_error_errno(r, "cannot watch connection");
                (void) close(fd);
                conn_uncount(c);
                conn_free(c);
                return;
        }
        c->poll.data = c;
        c->next = s->conns;
        if (s->conns)
                s->conns->prev = c;
        s->conns = c;
        s->n_conns++;
        s->stats.connections_total++;
        {
                char uid[32], pid[32];

                (void) snprintf(uid, sizeof(uid), "CLIENT_UID=%u", (unsigned) c->peer.uid);
                (void) snprintf(pid, sizeof(pid), "CLIENT_PID=%d", (int) c->peer.pid);
                log_full(LOG_DEBUG, DLOG_FIELDS(c->client_field, uid, pid),
                         "connection %" PRIu64 " from pid %d uid %u", c->id, (int) c->peer.pid,
                         (unsigned) c->peer.uid);
        }
        if (s->on_conn_open && s->on_conn_open(c) < 0) {
                log_full(LOG_NOTICE, DLOG_FIELDS(c->client_field),
                         "refusing connection from pid %d uid %u gid %u: not in allowed_uids/allowed_gids",
                         (int) c->peer.pid, (unsigned) c->peer.uid, (unsigned) c->peer.gid);
                conn_close(c);
                return;
        }
        conn_update_poll(c);
}

int daemon_server_adopt(daemon_server_t *s, int fd) {
        conn_new(s, fd);
        return 0;
}

/* ---- listening ---- */

static void listen_poll_cb(uv_poll_t *p, int status, int events);

static void retry_cb(uv_timer_t *t) {
        daemon_server_t *s = t->data;

        if (s->stopping || !s->listen_open)
                return;
        if (uv_poll_start(&s->listen_poll, UV_READABLE, listen_poll_cb) < 0)
                (void) log_error("cannot resume accepting");
}

static void reserve_open(daemon_server_t *s) {
        if (s->reserve_fd < 0)
                s->reserve_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
}

/*
 * Out of fds: give up the reserve fd for one accept, tell that client why
 * it is not served, close it and take the reserve back. True if a client
 * was answered (the listening socket may have more).
 */
static bool server_accept_reserve(daemon_server_t *s) {
        struct rlimit rl = {};
        char why[256];
        int fd;

        if (s->reserve_fd < 0)
                return false;
        (void) close(s->reserve_fd);
        s->reserve_fd = -1;
        fd = accept4(s->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd >= 0) {
                (void) getrlimit(RLIMIT_NOFILE, &rl);
                (void) snprintf(why, sizeof(why),
                                "acceld is out of file descriptors (RLIMIT_NOFILE %llu); try again later",
                                (unsigned long long) rl.rlim_cur);
                s->stats.refused++;
                daemon_refusal_count(DAEMON_REFUSAL_fds);
                (void) log_warning("refusing a connection: %s", why);
                server_refuse_fd(fd, -EAGAIN, why);
        }
        reserve_open(s);
        return fd >= 0;
}

static void listen_poll_cb(uv_poll_t *p, int status, int events) {
        daemon_server_t *s = p->data;

        if (status < 0) {
                (void) log_error_errno(status, "poll on the listening socket failed");
                return;
        }
        for (int i = 0; i < ACCEPTS_PER_WAKEUP && !s->stopping; i++) {
                int fd = accept4(s->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

                if (fd < 0) {
                        int r = -errno;

                        if (r == -EAGAIN || r == -EINTR || r == -ECONNABORTED)
                                return;
                        if ((r == -EMFILE || r == -ENFILE) && server_accept_reserve(s))
                                continue;
                        (void) log_warning_errno(r, "accept failed");
                        if ((r == -EMFILE || r == -ENFILE || r == -ENOBUFS || r == -ENOMEM) &&
                            s->retry_open) {
                                /* Out of fds: back off instead of spinning on a
                                 * socket that stays readable. */
                                (void) uv_poll_stop(&s->listen_poll);
                                (void) uv_timer_start(&s->retry_timer, retry_cb, ACCEPT_RETRY_MS, 0);
                        }
                        return;
                }
                conn_new(s, fd);
        }
}

static int mkdir_parent(const char *path) {
        _cleanup_free_ char *dir = strdup(path);
        char *slash;

        if (!dir)
                return -ENOMEM;
        slash = strrchr(dir, '/');
        if (!slash || slash == dir)
                return 0;
        *slash = '\0';
        if (mkdir(dir, 0755) < 0 && errno != EEXIST)
                return -errno;
        return 0;
}

/* A socket file is stale if nobody accepts on it. */
static int remove_stale_socket(const char *path, const struct sockaddr_un *sa, socklen_t salen) {
        struct stat st;
        _cleanup_close_ int fd = -1;

        if (lstat(path, &st) < 0)
                return errno == ENOENT ? 0 : -errno;
        if (!S_ISSOCK(st.st_mode))
                return -EEXIST;
        fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return -errno;
        if (connect(fd, (const struct sockaddr *) sa, salen) == 0)
                return -EADDRINUSE;
        if (errno != ECONNREFUSED && errno != ENOENT)
                return -errno;
        log_info("removing stale socket %s", path);
        if (unlink(path) < 0 && errno != ENOENT)
                return -errno;
        return 0;
}

static int listen_activated(daemon_server_t *s, int fd) {
        struct sockaddr_un sa = {};
        socklen_t len = sizeof(sa);
        int r;

        r = sd_is_socket(fd, AF_UNIX, SOCK_STREAM, 1);
        if (r < 0)
                return r;
        if (r == 0)
                return -EINVAL;
        r = fcntl(fd, F_GETFL);
        if (r < 0 || fcntl(fd, F_SETFL, r | O_NONBLOCK) < 0)
                return -errno;
        (void) fcntl(fd, F_SETFD, FD_CLOEXEC);
        if (getsockname(fd, (struct sockaddr *) &sa, &len) == 0 && len > offsetof(struct sockaddr_un, sun_path) &&
            sa.sun_path[0] != '\0')
                s->socket_path = strndup(sa.sun_path, sizeof(sa.sun_path));
        else
                s->socket_path = strdup("(socket activation)");
        if (!s->socket_path)
                return -ENOMEM;
        s->listen_fd = fd;
        s->activated = true;
        return 0;
}

static int listen_bind(daemon_server_t *s) {
        const char *path = s->config->socket_path;
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        socklen_t salen;
        _cleanup_close_ int fd = -1;
        struct stat st;
        mode_t old;
        int r;

        if (!path || strlen(path) >= sizeof(sa.sun_path))
                return -ENAMETOOLONG;
        memcpy(sa.sun_path, path, strlen(path) + 1);
        salen = (socklen_t) (offsetof(struct sockaddr_un, sun_path) + strlen(path) + 1);

        r = mkdir_parent(path);
        if (r < 0)
                return r;
        r = remove_stale_socket(path, &sa, salen);
        if (r < 0)
                return r;
        fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return -errno;
        /* The mode comes from the umask at bind() time on Linux. */
        old = umask(~(mode_t) s->config->socket_mode & 0777);
        r = bind(fd, (const struct sockaddr *) &sa, salen);
        (void) umask(old);
        if (r < 0)
                return -errno;
        if (listen(fd, SOMAXCONN) < 0) {
                r = -errno;
                (void) unlink(path);
                return r;
        }
        if (stat(path, &st) == 0) {
                s->bound_dev = st.st_dev;
                s->bound_ino = st.st_ino;
        }
        s->socket_path = strdup(path);
        if (!s->socket_path) {
                (void) unlink(path);
                return -ENOMEM;
        }
        s->bound = true;
        s->listen_fd = TAKE_FD(fd);
        return 0;
}

int daemon_server_listen(daemon_server_t *s) {
        int n, r;

        n = sd_listen_fds(1);
        if (n < 0)
                return n;
        if (n > 1) {
                (void) log_error("systemd passed %d sockets, expected one", n);
                for (int i = 0; i < n; i++)
                        (void) close(SD_LISTEN_FDS_START + i);
                return -EINVAL;
        }
        if (n == 1) {
                r = listen_activated(s, SD_LISTEN_FDS_START);
                if (r < 0) {
                        (void) close(SD_LISTEN_FDS_START);
                        return r;
                }
        } else {
                r = listen_bind(s);
                if (r < 0)
                        return r;
        }

        /* One fd kept aside, so that at EMFILE a client still gets told. */
        reserve_open(s);
        r = uv_poll_init(s->loop, &s->listen_poll, s->listen_fd);
        if (r < 0)
                return r;
        s->listen_poll.data = s;
        s->listen_open = true;
        r = uv_timer_init(s->loop, &s->retry_timer);
        if (r < 0)
                return r;
        s->retry_timer.data = s;
        s->retry_open = true;
        return uv_poll_start(&s->listen_poll, UV_READABLE, listen_poll_cb);
}

/* ---- shutdown ---- */

static void shutdown_timeout_cb(uv_timer_t *t) {
        daemon_server_t *s = t->data;

        if (s->n_conns > 0)
                (void) log_warning("shutdown timeout: closing %u connection(s) with work in flight",
                                   s->n_conns);
        for (daemon_conn_t *c = s->conns; c; c = c->next)
                conn_close(c);
}

static void server_check_drained(daemon_server_t *s) {
        if (s->n_conns == 0 && s->on_drained) {
                daemon_server_drained_fn done = s->on_drained;

                s->on_drained = NULL;
                if (s->shutdown_open) {
                        s->shutdown_open = false;
                        (void) uv_timer_stop(&s->shutdown_timer);
                        uv_close((uv_handle_t *) &s->shutdown_timer, NULL);
                }
                done(s);
        }
}

void daemon_server_shutdown(daemon_server_t *s, daemon_server_drained_fn done) {
        daemon_conn_t *c, *next;

        if (s->stopping)
                return;
        s->stopping = true;
        s->on_drained = done;
        if (s->listen_open) {
                s->listen_open = false;
                (void) uv_poll_stop(&s->listen_poll);
                uv_close((uv_handle_t *) &s->listen_poll, NULL);
        }
        if (s->retry_open) {
                s->retry_open = false;
                (void) uv_timer_stop(&s->retry_timer);
                uv_close((uv_handle_t *) &s->retry_timer, NULL);
        }
        /* Idle connections go now; busy ones when their work is flushed. */
        for (c = s->conns; c; c = next) {
                next = c->next;
                conn_maybe_finish(c);
                if (!c->closing)
                        conn_update_poll(c);
        }
        if (s->n_conns > 0 && s->config->shutdown_timeout_ms > 0 &&
            uv_timer_init(s->loop, &s->shutdown_timer) == 0) {
                s->shutdown_open = true;
                s->shutdown_timer.data = s;
                (void) uv_timer_start(&s->shutdown_timer, shutdown_timeout_cb,
                                      s->config->shutdown_timeout_ms, 0);
        }
        server_check_drained(s);
}

void daemon_server_done(daemon_server_t *s) {
        struct stat st;

        if (s->listen_fd >= 0) {
                (void) close(s->listen_fd);
                s->listen_fd = -1;
        }
        if (s->reserve_fd >= 0) {
                (void) close(s->reserve_fd);
                s->reserve_fd = -1;
        }
        /* Unlink only the socket we created, not one a newer acceld bound. */
        if (s->bound && s->socket_path && lstat(s->socket_path, &st) == 0 &&
            st.st_dev == s->bound_dev && st.st_ino == s->bound_ino)
                (void) unlink(s->socket_path);
        s->bound = false;
        free(s->socket_path);
        s->socket_path = NULL;
}
