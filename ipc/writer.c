/* SPDX-License-Identifier: Apache-2.0 */
/* Frame writer: a queue of packed frames, sent as the socket takes them. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cleanup.h"
#include "ipc-internal.h"
#include "ipc.h"

struct ipc_out {
        ipc_out_t *next;
        size_t len;             /* header + payload */
        size_t off;             /* bytes already sent */
        int fds[IPC_MAX_FDS_PER_FRAME];  /* our dups, closed once sent */
        size_t n_fds;
        uint8_t data[];
};

static ipc_out_t *out_free(ipc_out_t *o) {
        if (!o)
                return NULL;
        for (size_t i = 0; i < o->n_fds; i++)
                (void) close(o->fds[i]);
        free(o);
        return NULL;
}

DEFINE_POINTER_CLEANUP(ipc_out_t, out_free)

void ipc_writer_init(ipc_writer_t *w) {
        *w = (ipc_writer_t) { .head = NULL };
}

void ipc_writer_done(ipc_writer_t *w) {
        if (!w)
                return;
        while (w->head) {
                ipc_out_t *o = w->head;

                w->head = o->next;
                out_free(o);
        }
        *w = (ipc_writer_t) { .head = NULL };
}

int ipc_writer_push(ipc_writer_t *w, const ProtobufCMessage *msg, const int *fds, size_t n_fds,
                    size_t max_frame) {
        _cleanup_(out_freep) ipc_out_t *o = NULL;
        size_t plen;

        if (!w || !msg || (!fds && n_fds > 0))
                return -EINVAL;
        if (n_fds > IPC_MAX_FDS_PER_FRAME)
                return -EINVAL;

        plen = protobuf_c_message_get_packed_size(msg);
        if (plen > ipc__frame_limit(max_frame) || plen > UINT32_MAX)
                return -EMSGSIZE;

        o = malloc(sizeof(*o) + IPC_FRAME_HEADER_SIZE + plen);
        if (!o)
                return -ENOMEM;
        *o = (ipc_out_t) { .len = IPC_FRAME_HEADER_SIZE + plen };
        ipc__le32_write(o->data, (uint32_t) plen);
        if (protobuf_c_message_pack(msg, o->data + IPC_FRAME_HEADER_SIZE) != plen)
                return -EINVAL;

        /* Dup so the caller keeps its fds and the frame can outlive them;
         * above 2 so they never land on stdio. */
        for (size_t i = 0; i < n_fds; i++) {
                int d = fcntl(fds[i], F_DUPFD_CLOEXEC, 3);

                if (d < 0)
                        return -errno;
                o->fds[o->n_fds++] = d;
        }

        if (w->tail)
                w->tail->next = o;
        else
                w->head = o;
        w->tail = o;
        w->queued_bytes += o->len;
        w->n_frames++;
        TAKE_PTR(o);
        return 0;
}

/* One sendmsg() of the head frame's unsent bytes; fds ride on its first byte. */
static ssize_t writer_send_head(ipc_out_t *o, int fd) {
        union {
                struct cmsghdr align;
                uint8_t buf[CMSG_SPACE(sizeof(int) * IPC_MAX_FDS_PER_FRAME)];
        } control;
        struct iovec iov = {
                .iov_base = o->data + o->off,
                .iov_len = o->len - o->off,
        };
        struct msghdr mh = {
                .msg_iov = &iov,
                .msg_iovlen = 1,
        };
        ssize_t n;

        if (o->off == 0 && o->n_fds > 0) {
                struct cmsghdr *c;

                memset(&control, 0, sizeof(control));
                mh.msg_control = &control;
                mh.msg_controllen = CMSG_SPACE(sizeof(int) * o->n_fds);
                c = CMSG_FIRSTHDR(&mh);
                c->cmsg_level = SOL_SOCKET;
                c->cmsg_type = SCM_RIGHTS;
                c->cmsg_len = CMSG_LEN(sizeof(int) * o->n_fds);
                memcpy(CMSG_DATA(c), o->fds, sizeof(int) * o->n_fds);
        }

        do
                n = sendmsg(fd, &mh, MSG_NOSIGNAL);
        while (n < 0 && errno == EINTR);
        if (n < 0)
                return errno == EWOULDBLOCK ? -EAGAIN : -errno;
        return n;
}

int ipc_writer_flush(ipc_writer_t *w, int fd) {
        if (!w || fd < 0)
                return -EINVAL;

        while (w->head) {
                ipc_out_t *o = w->head;
                ssize_t n = writer_send_head(o, fd);

                if (n < 0)
                        return (int) n;
                if (n == 0)
                        return -EIO;  /* a stream socket that takes nothing and says nothing */

                /* The kernel holds its own references once any byte went. */
                for (size_t i = 0; i < o->n_fds; i++)
                        (void) close(o->fds[i]);
                o->n_fds = 0;

                o->off += (size_t) n;
                w->queued_bytes -= (size_t) n;
                if (o->off < o->len)
                        continue;

                w->head = o->next;
                if (!w->head)
                        w->tail = NULL;
                w->n_frames--;
                out_free(o);
        }
        return 0;
}
