/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ipc: acceld's wire framing.
 *
 * A frame is a 4-byte little-endian payload length followed by the payload,
 * one packed protobuf message (acceld.Request or acceld.Response). File
 * descriptors travel as SCM_RIGHTS ancillary data on the sendmsg() that
 * carries a frame's first byte; the receiver queues them in arrival order
 * and the frame's envelope says how many it consumes (Request.num_fds).
 *
 * The reader and writer are plain state machines over a socket fd: they work
 * with a blocking fd (the client library) and a non-blocking one driven by
 * uv_poll (the daemon). Nothing here logs or touches libuv.
 *
 * All functions return 0 / a count on success and a negative errno on
 * failure; output parameters are written only on success. Not thread-safe:
 * one reader and one writer per connection, used from one thread.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "service.pb-c.h"

#define IPC_FRAME_LIMIT_DEFAULT (64u * 1024u * 1024u)
#define IPC_FRAME_HEADER_SIZE 4u
#define IPC_MAX_FDS_PER_FRAME 16u
#define IPC_MAX_QUEUED_FDS 64u

/* ---- reading ---- */

typedef struct ipc_reader {
        uint8_t *buf;        /* owned */
        size_t cap;
        size_t len;          /* bytes buffered */
        size_t max_frame;    /* payload limit */
        int fds[IPC_MAX_QUEUED_FDS];  /* received, not yet taken */
        size_t n_fds;
} ipc_reader_t;

/* max_frame == 0 means IPC_FRAME_LIMIT_DEFAULT. Never fails. */
void ipc_reader_init(ipc_reader_t *r, size_t max_frame);
/* Frees the buffer and closes every queued fd. Safe on a zeroed reader. */
void ipc_reader_done(ipc_reader_t *r);

/*
 * One recvmsg() on `fd` into the reader, queueing any received fds.
 * Returns the number of bytes read (> 0), 0 on orderly EOF, -EAGAIN when a
 * non-blocking fd has nothing, -EMSGSIZE when the buffered frame header
 * announces a payload over the limit, -EPROTO when more fds arrive than can
 * be queued (they are closed), -EMFILE when the kernel could not install
 * received fds in this process (its RLIMIT_NOFILE), or another -errno from
 * recvmsg.
 */
ssize_t ipc_reader_recv(ipc_reader_t *r, int fd);

/* The buffer capacity the next ipc_reader_recv() will have allocated (the
 * current one when it needs no more), to check a memory budget first. */
size_t ipc_reader_recv_capacity(const ipc_reader_t *r);

/* Append bytes as if received (tests, and transports other than sockets). */
int ipc_reader_feed(ipc_reader_t *r, const void *data, size_t len);

/*
 * If a whole frame is buffered, point *ret_payload and *ret_len at its payload
 * and return 1; return 0 if more bytes are needed; -EMSGSIZE if the header
 * announces a payload over the limit. The payload stays valid until
 * ipc_reader_consume().
 */
int ipc_reader_next(ipc_reader_t *r, const uint8_t **ret_payload, size_t *ret_len);
/* Drop the frame returned by the last ipc_reader_next(). */
void ipc_reader_consume(ipc_reader_t *r);

/* Move `n` queued fds (oldest first) to ret_fds; the caller owns them.
 * -EPROTO if fewer than n are queued (nothing is taken). */
int ipc_reader_take_fds(ipc_reader_t *r, int *ret_fds, size_t n);

/* Close every queued fd (fds no request claimed). */
void ipc_reader_close_fds(ipc_reader_t *r);

/* True while a partial frame is buffered (for "peer closed mid-frame"). */
bool ipc_reader_has_partial(const ipc_reader_t *r);

/* ---- pre-scan ---- */

/* Bounds on what one payload may unpack into; 0 = no bound. */
typedef struct ipc_scan_limits {
        uint64_t max_elements;  /* field occurrences plus packed values, nested messages included */
        uint64_t max_bytes;     /* estimated heap protobuf-c would allocate */
} ipc_scan_limits_t;

typedef struct ipc_scan_result {
        uint64_t elements;      /* counted so far (where the scan stopped, on failure) */
        uint64_t bytes;
        uint64_t request_id;    /* the top-level request_id field, when seen; else 0 */
} ipc_scan_result_t;

/*
 * Walk `data` as a `desc` message without unpacking it, counting elements
 * and estimating the unpacked size; stops at the first limit exceeded, so
 * it costs at most O(max_elements) besides skipping length-delimited bytes.
 * Returns 0; -E2BIG past max_elements (or nesting deeper than 32), -ENOMEM
 * past max_bytes, -EBADMSG for a payload protobuf-c could not unpack
 * either. *ret (optional) is filled on failure too, so the caller can
 * answer the request id it names.
 */
int ipc_frame_scan(const ProtobufCMessageDescriptor *desc, const uint8_t *data, size_t len,
                   const ipc_scan_limits_t *lim, ipc_scan_result_t *ret);

/* ---- writing ---- */

typedef struct ipc_out ipc_out_t;  /* private: one queued frame */

typedef struct ipc_writer {
        ipc_out_t *head, *tail;
        size_t queued_bytes;
        size_t n_frames;
} ipc_writer_t;

void ipc_writer_init(ipc_writer_t *w);
/* Frees every queued frame and closes fds not yet sent. */
void ipc_writer_done(ipc_writer_t *w);

/*
 * Pack `msg` into a frame and queue it with `fds` (borrowed: dup'ed here, so
 * the caller still owns its fds). -EMSGSIZE if the packed message exceeds
 * `max_frame` (0 = default), -EINVAL for more than IPC_MAX_FDS_PER_FRAME fds.
 */
int ipc_writer_push(ipc_writer_t *w, const ProtobufCMessage *msg, const int *fds, size_t n_fds,
                    size_t max_frame);

/*
 * Send as much as the socket takes. 0 when the queue is empty, -EAGAIN when
 * a non-blocking socket is full (call again when writable), -EPIPE /
 * -ECONNRESET etc. when the peer is gone. Uses MSG_NOSIGNAL.
 */
int ipc_writer_flush(ipc_writer_t *w, int fd);

static inline bool ipc_writer_pending(const ipc_writer_t *w) {
        return w->head != NULL;
}

/* ---- blocking helpers for clients and tests ---- */

/* Queue + flush until sent on a blocking fd. */
int ipc_send(int fd, const ProtobufCMessage *msg, const int *fds, size_t n_fds);

/*
 * Read until one whole frame is available and unpack it as `desc`
 * (e.g. &acceld__response__descriptor). *ret_msg is freed with
 * protobuf_c_message_free_unpacked(). Received fds stay queued in `r`.
 * -ECONNRESET on EOF (mid-frame or not), -EBADMSG if it does not decode.
 */
int ipc_recv(int fd, ipc_reader_t *r, const ProtobufCMessageDescriptor *desc,
             ProtobufCMessage **ret_msg);

/* ---- status ---- */

/* One table maps negative errnos to wire Status values:
 * 0 -> NONE, -EINVAL -> INVALID_ARGUMENT, -ENOENT -> NOT_FOUND,
 * -EACCES/-EPERM -> PERMISSION_DENIED, -ENOTSUP/-EOPNOTSUPP -> UNSUPPORTED,
 * -ENODEV -> DEVICE_UNAVAILABLE, -EAGAIN/-EBUSY -> RESOURCE_EXHAUSTED_TRANSIENT,
 * -ENOMEM/-ENOSPC/-EDQUOT -> RESOURCE_EXHAUSTED_PERSISTENT, -ETIME ->
 * MISSED_DEADLINE_TRANSIENT, -ETIMEDOUT -> MISSED_DEADLINE_PERSISTENT,
 * -ENOBUFS -> OUTPUT_INSUFFICIENT_SIZE, -EPROTO/-EBADMSG/-EMSGSIZE ->
 * PROTOCOL_ERROR, anything else GENERAL_FAILURE. */
Acceld__Status ipc_status_from_errno(int neg_errno);
/* The reverse, for the client side (NONE -> 0). */
int ipc_status_to_errno(Acceld__Status s);
/* "NONE", "INVALID_ARGUMENT", ...; "UNKNOWN" for values not in the enum. */
const char *ipc_status_to_string(Acceld__Status s);

/* ---- lanes: the control block of a burst lane (ipc/lane.c) ----
 *
 * A lane (LaneOpenRequest) runs executions of one handle on fixed regions
 * without frames: the client and acceld share this block, which lives in a
 * registered buffer of the client's (docs/architecture.md, "Lanes"). Each
 * side writes only its own half and the other side treats the whole block
 * as untrusted: acceld reads each client field once into a local and checks
 * it. The two sequence words are futex words (shared, not private futexes:
 * the block is a MAP_SHARED memfd mapped by two processes).
 *
 * Ring (client): write the inputs, `deadline_us`, then req_seq = seq + 1
 * (release); if lane_waiting, FUTEX_WAKE req_seq. Serve (acceld): a req_seq
 * different from the last one served is a request; the results, the status
 * and the output shapes are written, then done_seq = that req_seq
 * (release), and if client_waiting, FUTEX_WAKE done_seq.
 */
#define IPC_LANE_CTL_BYTES 4096u
#define IPC_LANE_MAX_INPUTS 64
#define IPC_LANE_MAX_OUTPUTS 32
#define IPC_LANE_MAX_RANK 8

typedef struct ipc_lane_ctl {
        /* Written by the client. */
        uint32_t req_seq;               /* futex word: bumped to ring */
        uint32_t client_waiting;        /* 1 while the client sleeps on done_seq */
        uint64_t deadline_us;           /* this request's, from the ring; 0 = none */
        uint8_t client_pad[48];
        /* Written by acceld (its own cache line). */
        uint32_t done_seq;              /* futex word: the req_seq last served */
        uint32_t lane_waiting;          /* 1 while the lane thread sleeps on req_seq */
        int32_t status;                 /* Acceld__Status of done_seq's request */
        uint32_t zero_copy;             /* every input and output was bound */
        uint64_t queue_us, compute_us;
        int32_t ranks[IPC_LANE_MAX_OUTPUTS];
        int32_t dims[IPC_LANE_MAX_OUTPUTS][IPC_LANE_MAX_RANK];
        char message[IPC_LANE_CTL_BYTES - 64 - 32 - 4 * IPC_LANE_MAX_OUTPUTS * (1 + IPC_LANE_MAX_RANK)];
} ipc_lane_ctl_t;

_Static_assert(sizeof(ipc_lane_ctl_t) == IPC_LANE_CTL_BYTES, "the lane control block is one page");

/* Sleep while *word == expected, at most timeout_us (0: no limit). 0 when
 * woken or the word differed, -ETIMEDOUT, -EINTR. */
int ipc_lane_futex_wait(uint32_t *word, uint32_t expected, uint64_t timeout_us);
/* Wake every sleeper on `word`. */
void ipc_lane_futex_wake(uint32_t *word);
/* Spin for at most spin_us while *word == expected (a pause per turn).
 * true when it changed. */
bool ipc_lane_spin(const uint32_t *word, uint32_t expected, uint64_t spin_us);
