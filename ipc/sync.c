/* SPDX-License-Identifier: Apache-2.0 */
/* Blocking send/receive of one message, for clients and tests. */
#include <errno.h>
#include <poll.h>

#include "ipc.h"

/* Wait until `fd` is ready for `events`; only reached for non-blocking fds. */
static int sync_wait(int fd, short events) {
        struct pollfd p = { .fd = fd, .events = events };
        int n;

        do
                n = poll(&p, 1, -1);
        while (n < 0 && errno == EINTR);
        return n < 0 ? -errno : 0;
}

int ipc_send(int fd, const ProtobufCMessage *msg, const int *fds, size_t n_fds) {
        ipc_writer_t w;
        int k;

        if (fd < 0 || !msg)
                return -EINVAL;

        ipc_writer_init(&w);
        k = ipc_writer_push(&w, msg, fds, n_fds, 0);
        while (k >= 0) {
                k = ipc_writer_flush(&w, fd);
                if (k != -EAGAIN)
                        break;
                k = sync_wait(fd, POLLOUT);
        }
        ipc_writer_done(&w);
        return k;
}

int ipc_recv(int fd, ipc_reader_t *r, const ProtobufCMessageDescriptor *desc,
             ProtobufCMessage **ret_msg) {
        if (fd < 0 || !r || !desc || !ret_msg)
                return -EINVAL;

        for (;;) {
                const uint8_t *payload;
                ProtobufCMessage *m;
                size_t len;
                ssize_t n;
                int k;

                k = ipc_reader_next(r, &payload, &len);
                if (k < 0)
                        return k;
                if (k > 0) {
                        m = protobuf_c_message_unpack(desc, NULL, len, payload);
                        ipc_reader_consume(r);
                        if (!m)
                                return -EBADMSG;
                        *ret_msg = m;
                        return 0;
                }

                n = ipc_reader_recv(r, fd);
                if (n == 0)
                        return -ECONNRESET;
                if (n == -EAGAIN) {
                        k = sync_wait(fd, POLLIN);
                        if (k < 0)
                                return k;
                } else if (n < 0)
                        return (int) n;
        }
}
