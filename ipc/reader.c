/* SPDX-License-Identifier: Apache-2.0 */
/* Frame reader: buffers socket bytes and the fds that come with them. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cleanup.h"
#include "ipc-internal.h"
#include "ipc.h"

/* Bytes asked of each recvmsg(); the buffer grows to hold a whole frame. */
#define IPC_READ_CHUNK (64u * 1024u)

void ipc_reader_init(ipc_reader_t *r, size_t max_frame) {
        *r = (ipc_reader_t) {
                .max_frame = ipc__frame_limit(max_frame),
        };
}

void ipc_reader_done(ipc_reader_t *r) {
        if (!r)
                return;
        free(r->buf);
        for (size_t i = 0; i < r->n_fds; i++)
                (void) close(r->fds[i]);
        *r = (ipc_reader_t) { .max_frame = r->max_frame };
}

/* The capacity holding `extra` more bytes; SIZE_MAX on overflow. */
static size_t reader_capacity_for(const ipc_reader_t *r, size_t extra) {
        size_t want, cap;

        if (extra > SIZE_MAX - r->len)
                return SIZE_MAX;
        want = r->len + extra;
        if (want <= r->cap)
                return r->cap;
        cap = r->cap ? r->cap : IPC_READ_CHUNK;
        while (cap < want)
                cap = cap > SIZE_MAX / 2 ? want : cap * 2;
        return cap;
}

size_t ipc_reader_recv_capacity(const ipc_reader_t *r) {
        return r ? reader_capacity_for(r, IPC_READ_CHUNK) : 0;
}

static int reader_reserve(ipc_reader_t *r, size_t extra) {
        size_t cap;
        uint8_t *p;

        cap = reader_capacity_for(r, extra);
        if (cap == SIZE_MAX)
                return -ENOMEM;
        if (cap == r->cap)
                return 0;
        p = realloc(r->buf, cap);
        if (!p)
                return -ENOMEM;
        r->buf = p;
        r->cap = cap;
        return 0;
}

/* Length of the whole frame (header included) at offset `off`: > 0 when it is
 * complete, 0 when more bytes are needed, -EMSGSIZE when it is over the limit. */
static ssize_t reader_frame_at(const ipc_reader_t *r, size_t off) {
        size_t avail = r->len - off;
        uint32_t plen;

        if (avail < IPC_FRAME_HEADER_SIZE)
                return 0;
        plen = ipc__le32_read(r->buf + off);
        if (plen > ipc__frame_limit(r->max_frame))
                return -EMSGSIZE;
        if (avail - IPC_FRAME_HEADER_SIZE < plen)
                return 0;
        return (ssize_t) (IPC_FRAME_HEADER_SIZE + plen);
}

int ipc_reader_feed(ipc_reader_t *r, const void *data, size_t len) {
        int k;

        if (!r || (!data && len > 0))
                return -EINVAL;
        k = reader_reserve(r, len);
        if (k < 0)
                return k;
        if (len > 0)
                memcpy(r->buf + r->len, data, len);
        r->len += len;
        return 0;
}

/* Queue the fds of every SCM_RIGHTS message; close whatever does not fit. */
static int reader_collect_fds(ipc_reader_t *r, struct msghdr *mh, size_t room) {
        size_t got = 0;
        int k = 0;

        for (struct cmsghdr *c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR(mh, c)) {
                const int *fds;
                size_t n;

                if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
                        continue;
                fds = (const int *) CMSG_DATA(c);
                n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
                got += n;
                for (size_t i = 0; i < n; i++) {
                        if (r->n_fds < IPC_MAX_QUEUED_FDS) {
                                r->fds[r->n_fds++] = fds[i];
                        } else {
                                (void) close(fds[i]);
                                k = -EPROTO;
                        }
                }
        }
        /* Fds the kernel could not hand us were dropped, and the frame's
         * fd count cannot be trusted. With room left in the control buffer
         * the kernel failed to install them: we are out of fds (EMFILE),
         * not the peer over our limit. */
        if (mh->msg_flags & MSG_CTRUNC)
                k = got < room ? -EMFILE : -EPROTO;
        return k;
}

ssize_t ipc_reader_recv(ipc_reader_t *r, int fd) {
        union {
                struct cmsghdr align;
                uint8_t buf[CMSG_SPACE(sizeof(int) * IPC_MAX_QUEUED_FDS)];
        } control;
        struct iovec iov;
        struct msghdr mh;
        ssize_t n, frame;
        int k;

        if (!r || fd < 0)
                return -EINVAL;

        /* Do not read into a frame we are going to refuse anyway. */
        frame = reader_frame_at(r, 0);
        if (frame < 0)
                return frame;

        k = reader_reserve(r, IPC_READ_CHUNK);
        if (k < 0)
                return k;

        iov = (struct iovec) { .iov_base = r->buf + r->len, .iov_len = r->cap - r->len };
        do {
                mh = (struct msghdr) {
                        .msg_iov = &iov,
                        .msg_iovlen = 1,
                        .msg_control = &control,
                        .msg_controllen = sizeof(control),
                };
                n = recvmsg(fd, &mh, MSG_CMSG_CLOEXEC);
        } while (n < 0 && errno == EINTR);
        if (n < 0)
                return errno == EWOULDBLOCK ? -EAGAIN : -errno;

        r->len += (size_t) n;
        k = reader_collect_fds(r, &mh, IPC_MAX_QUEUED_FDS);
        if (k < 0)
                return k;

        frame = reader_frame_at(r, 0);
        if (frame < 0)
                return frame;
        return n;
}

int ipc_reader_next(ipc_reader_t *r, const uint8_t **ret_payload, size_t *ret_len) {
        ssize_t frame;

        if (!r || !ret_payload || !ret_len)
                return -EINVAL;
        frame = reader_frame_at(r, 0);
        if (frame <= 0)
                return (int) frame;
        *ret_payload = r->buf + IPC_FRAME_HEADER_SIZE;
        *ret_len = (size_t) frame - IPC_FRAME_HEADER_SIZE;
        return 1;
}

void ipc_reader_consume(ipc_reader_t *r) {
        ssize_t frame;

        if (!r)
                return;
        frame = reader_frame_at(r, 0);
        if (frame <= 0)
                return;
        /* Frames are small against the read chunk in practice, so moving the
         * rest down is cheaper than tracking a start offset. */
        memmove(r->buf, r->buf + frame, r->len - (size_t) frame);
        r->len -= (size_t) frame;

        /* Give back the memory of a big frame once it is gone, so an idle
         * connection holds no more than one read chunk. */
        if (r->len == 0 && r->cap > 4 * IPC_READ_CHUNK) {
                free(r->buf);
                r->buf = NULL;
                r->cap = 0;
        }
}

void ipc_reader_close_fds(ipc_reader_t *r) {
        if (!r)
                return;
        for (size_t i = 0; i < r->n_fds; i++)
                (void) close(r->fds[i]);
        r->n_fds = 0;
}

int ipc_reader_take_fds(ipc_reader_t *r, int *ret_fds, size_t n) {
        if (!r || (!ret_fds && n > 0))
                return -EINVAL;
        if (n > r->n_fds)
                return -EPROTO;
        if (n == 0)
                return 0;
        memcpy(ret_fds, r->fds, n * sizeof(int));
        memmove(r->fds, r->fds + n, (r->n_fds - n) * sizeof(int));
        r->n_fds -= n;
        return 0;
}

bool ipc_reader_has_partial(const ipc_reader_t *r) {
        size_t off = 0;

        if (!r)
                return false;
        /* Whole frames that are merely unconsumed do not count. */
        for (;;) {
                ssize_t frame = reader_frame_at(r, off);

                if (frame <= 0)
                        return off < r->len;
                off += (size_t) frame;
        }
}
