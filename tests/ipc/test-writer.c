/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>

#include "ipc-test.h"

START_TEST(test_writer_eagain_then_completes) {
        enum { MSG_BYTES = 1024 * 1024 };
        Acceld__Response resp = ACCELD__RESPONSE__INIT;
        ProtobufCMessage *got = NULL;
        _cleanup_free_ char *text = malloc(MSG_BYTES + 1);
        size_t total, rounds = 0;
        int sndbuf = 4096, k;
        ipc_writer_t w;
        ipc_reader_t r;

        ck_assert_ptr_nonnull(text);
        memset(text, 'q', MSG_BYTES);
        text[MSG_BYTES] = '\0';
        resp.request_id = 42;
        resp.has_request_id = true;
        resp.message = text;

        ck_assert_int_eq(setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf)), 0);
        ck_assert_int_eq(fcntl(sv[0], F_SETFL, O_NONBLOCK), 0);

        ipc_writer_init(&w);
        ipc_reader_init(&r, 0);
        ck_assert_int_eq(ipc_writer_push(&w, &resp.base, NULL, 0, 0), 0);
        total = w.queued_bytes;
        ck_assert_uint_eq(total, 4 + acceld__response__get_packed_size(&resp));
        ck_assert_uint_eq(w.n_frames, 1);

        /* The socket takes part of the frame, then is full. */
        ck_assert_int_eq(ipc_writer_flush(&w, sv[0]), -EAGAIN);
        ck_assert(ipc_writer_pending(&w));
        ck_assert_uint_gt(w.queued_bytes, 0);
        ck_assert_uint_lt(w.queued_bytes, total);

        /* Each drain by the peer lets the writer make progress. */
        for (;;) {
                ck_assert_int_gt(ipc_reader_recv(&r, sv[1]), 0);
                k = ipc_writer_flush(&w, sv[0]);
                if (k != -EAGAIN)
                        break;
                ck_assert_uint_lt(++rounds, 100000);
        }
        ck_assert_int_eq(k, 0);
        ck_assert(!ipc_writer_pending(&w));
        ck_assert_uint_eq(w.queued_bytes, 0);
        ck_assert_uint_eq(w.n_frames, 0);
        ck_assert_int_eq(ipc_writer_flush(&w, sv[0]), 0);

        ck_assert_int_eq(ipc_recv(sv[1], &r, &acceld__response__descriptor, &got), 0);
        Acceld__Response *back = (Acceld__Response *) got;
        ck_assert_uint_eq(back->request_id, 42);
        ck_assert_uint_eq(strlen(back->message), MSG_BYTES);
        ck_assert_str_eq(back->message, text);
        protobuf_c_message_free_unpacked(got, NULL);
        ck_assert(!ipc_reader_has_partial(&r));
        /* The 1 MiB read buffer is given back once the frame is consumed. */
        ck_assert_uint_eq(r.cap, 0);

        ipc_writer_done(&w);
        ipc_reader_done(&r);
}
END_TEST

START_TEST(test_writer_push_limits) {
        Acceld__Response resp = ACCELD__RESPONSE__INIT;
        int fds[IPC_MAX_FDS_PER_FRAME + 1];
        ipc_writer_t w;

        resp.message = (char *) "0123456789";  /* packs to 12 bytes */
        for (size_t i = 0; i < ELEMENTSOF(fds); i++)
                fds[i] = sv[1];

        ipc_writer_init(&w);
        ck_assert_uint_eq(acceld__response__get_packed_size(&resp), 12);
        ck_assert_int_eq(ipc_writer_push(&w, &resp.base, NULL, 0, 11), -EMSGSIZE);
        ck_assert_int_eq(ipc_writer_push(&w, &resp.base, fds, IPC_MAX_FDS_PER_FRAME + 1, 0),
                         -EINVAL);
        ck_assert_int_eq(ipc_writer_push(&w, &resp.base, NULL, 1, 0), -EINVAL);
        ck_assert(!ipc_writer_pending(&w));

        ck_assert_int_eq(ipc_writer_push(&w, &resp.base, NULL, 0, 12), 0);
        ck_assert_uint_eq(w.queued_bytes, 16);
        ipc_writer_done(&w);
}
END_TEST

START_TEST(test_writer_done_closes_unsent_fds) {
        Acceld__Response resp = ACCELD__RESPONSE__INIT;
        size_t before = count_open_fds();
        int fds[2] = { sv[1], sv[1] };
        ipc_writer_t w;

        ipc_writer_init(&w);
        ck_assert_int_eq(ipc_writer_push(&w, &resp.base, fds, 2, 0), 0);
        ck_assert_uint_eq(count_open_fds(), before + 2);
        ipc_writer_done(&w);
        ck_assert_uint_eq(count_open_fds(), before);
        ck_assert(!ipc_writer_pending(&w));
}
END_TEST

START_TEST(test_writer_peer_gone_epipe) {
        Acceld__Response resp = ACCELD__RESPONSE__INIT;
        ipc_writer_t w;

        /* Without MSG_NOSIGNAL this would kill the test with SIGPIPE. */
        ck_assert_int_eq(close(sv[1]), 0);
        sv[1] = -1;
        ipc_writer_init(&w);
        ck_assert_int_eq(ipc_writer_push(&w, &resp.base, NULL, 0, 0), 0);
        ck_assert_int_eq(ipc_writer_flush(&w, sv[0]), -EPIPE);
        ck_assert(ipc_writer_pending(&w));
        ipc_writer_done(&w);
}
END_TEST

int main(void) {
        TCase *tc = tcase_create("writer");

        tcase_add_test(tc, test_writer_eagain_then_completes);
        tcase_add_test(tc, test_writer_push_limits);
        tcase_add_test(tc, test_writer_done_closes_unsent_fds);
        tcase_add_test(tc, test_writer_peer_gone_epipe);
        return run_suite("ipc-writer", tc);
}
