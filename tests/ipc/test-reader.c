/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>

#include "ipc-test.h"

START_TEST(test_reader_byte_at_a_time) {
        uint8_t frame[128];
        size_t n = hello_frame(frame, sizeof(frame), 7, "bytewise");
        const uint8_t *payload;
        size_t len;
        ipc_reader_t r;

        ipc_reader_init(&r, 0);
        ck_assert(!ipc_reader_has_partial(&r));
        for (size_t i = 0; i < n; i++) {
                ck_assert_int_eq(ipc_reader_next(&r, &payload, &len), 0);
                write_all(sv[0], frame + i, 1);
                ck_assert_int_eq(ipc_reader_recv(&r, sv[1]), 1);
                ck_assert(ipc_reader_has_partial(&r) == (i + 1 < n));
        }
        ck_assert_int_eq(ipc_reader_next(&r, &payload, &len), 1);
        ck_assert_uint_eq(len, n - 4);
        ck_assert_mem_eq(payload, frame + 4, len);

        Acceld__Request *req = acceld__request__unpack(NULL, len, payload);
        ck_assert_ptr_nonnull(req);
        ck_assert_uint_eq(req->request_id, 7);
        ck_assert_int_eq(req->body_case, ACCELD__REQUEST__BODY_HELLO);
        ck_assert_str_eq(req->hello->client_name, "bytewise");
        acceld__request__free_unpacked(req, NULL);

        ipc_reader_consume(&r);
        ck_assert_uint_eq(r.len, 0);
        ck_assert_int_eq(ipc_reader_next(&r, &payload, &len), 0);
        ipc_reader_done(&r);
}
END_TEST

START_TEST(test_reader_back_to_back) {
        uint8_t buf[512];
        size_t n = 0;
        const uint8_t *payload;
        size_t len;
        ipc_reader_t r;

        /* Three frames and the first 3 bytes of a fourth, in one write. */
        n += hello_frame(buf + n, sizeof(buf) - n, 1, "a");
        n += hello_frame(buf + n, sizeof(buf) - n, 2, "bb");
        n += hello_frame(buf + n, sizeof(buf) - n, 3, "ccc");
        n += 3;
        write_all(sv[0], buf, n);

        ipc_reader_init(&r, 0);
        ck_assert_int_eq(ipc_reader_recv(&r, sv[1]), (ssize_t) n);
        for (uint64_t id = 1; id <= 3; id++) {
                ck_assert_int_eq(ipc_reader_next(&r, &payload, &len), 1);
                Acceld__Request *req = acceld__request__unpack(NULL, len, payload);
                ck_assert_ptr_nonnull(req);
                ck_assert_uint_eq(req->request_id, id);
                ck_assert_uint_eq(strlen(req->hello->client_name), id);
                acceld__request__free_unpacked(req, NULL);
                ipc_reader_consume(&r);
        }
        ck_assert_int_eq(ipc_reader_next(&r, &payload, &len), 0);
        ck_assert_uint_eq(r.len, 3);
        ck_assert(ipc_reader_has_partial(&r));
        ipc_reader_done(&r);
}
END_TEST

START_TEST(test_reader_oversized_header) {
        static const uint8_t over[] = { 17, 0, 0, 0, 'x', 'y' };
        static const uint8_t huge[] = { 0xff, 0xff, 0xff, 0xff };
        static const uint8_t at_limit[] = { 16, 0, 0, 0 };
        uint8_t payload16[16] = { 0 };
        const uint8_t *payload;
        size_t len;
        ipc_reader_t r;

        /* Exactly the limit is fine. */
        ipc_reader_init(&r, 16);
        write_all(sv[0], at_limit, sizeof(at_limit));
        write_all(sv[0], payload16, sizeof(payload16));
        ck_assert_int_eq(ipc_reader_recv(&r, sv[1]), 20);
        ck_assert_int_eq(ipc_reader_next(&r, &payload, &len), 1);
        ck_assert_uint_eq(len, 16);
        ipc_reader_consume(&r);

        /* One byte over is refused, by recv and by next, and stays refused. */
        write_all(sv[0], over, sizeof(over));
        ck_assert_int_eq(ipc_reader_recv(&r, sv[1]), -EMSGSIZE);
        ck_assert_int_eq(ipc_reader_next(&r, &payload, &len), -EMSGSIZE);
        ck_assert_int_eq(ipc_reader_recv(&r, sv[1]), -EMSGSIZE);
        ck_assert(ipc_reader_has_partial(&r));
        ipc_reader_done(&r);

        /* The default limit is 64 MiB. */
        ipc_reader_init(&r, 0);
        ck_assert_uint_eq(r.max_frame, IPC_FRAME_LIMIT_DEFAULT);
        write_all(sv[0], huge, sizeof(huge));
        ck_assert_int_eq(ipc_reader_recv(&r, sv[1]), -EMSGSIZE);
        ipc_reader_done(&r);
}
END_TEST

/* Send `n` copies of fd `src` with one data byte, in one sendmsg(). */
static void send_fds(int fd, int src, size_t n) {
        union {
                struct cmsghdr align;
                uint8_t buf[CMSG_SPACE(sizeof(int) * 64)];
        } control = { 0 };
        int fds[64];
        uint8_t byte = 0;
        struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
        struct msghdr mh = {
                .msg_iov = &iov,
                .msg_iovlen = 1,
                .msg_control = &control,
                .msg_controllen = CMSG_SPACE(sizeof(int) * n),
        };
        struct cmsghdr *c = CMSG_FIRSTHDR(&mh);

        ck_assert_uint_le(n, 64);
        for (size_t i = 0; i < n; i++)
                fds[i] = src;
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int) * n);
        memcpy(CMSG_DATA(c), fds, sizeof(int) * n);
        ck_assert_int_eq(sendmsg(fd, &mh, MSG_NOSIGNAL), 1);
}

START_TEST(test_reader_fd_overflow_closed) {
        int p[2], taken[3];
        size_t before;
        ipc_reader_t r;

        ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
        before = count_open_fds();
        ipc_reader_init(&r, 0);

        send_fds(sv[0], p[0], 40);
        ck_assert_int_eq(ipc_reader_recv(&r, sv[1]), 1);
        ck_assert_uint_eq(r.n_fds, 40);

        /* 24 of the next 40 fit; the other 16 are closed. */
        send_fds(sv[0], p[0], 40);
        ck_assert_int_eq(ipc_reader_recv(&r, sv[1]), -EPROTO);
        ck_assert_uint_eq(r.n_fds, IPC_MAX_QUEUED_FDS);
        ck_assert_uint_eq(count_open_fds(), before + IPC_MAX_QUEUED_FDS);

        /* Taking more than are queued takes nothing. */
        ck_assert_int_eq(ipc_reader_take_fds(&r, taken, IPC_MAX_QUEUED_FDS + 1), -EPROTO);
        ck_assert_uint_eq(r.n_fds, IPC_MAX_QUEUED_FDS);
        ck_assert_int_eq(ipc_reader_take_fds(&r, taken, 3), 0);
        ck_assert_uint_eq(r.n_fds, IPC_MAX_QUEUED_FDS - 3);
        for (size_t i = 0; i < 3; i++) {
                ck_assert_int_ne(taken[i], p[0]);
                ck_assert_int_eq(fcntl(taken[i], F_GETFD), FD_CLOEXEC);
                ck_assert_int_eq(close(taken[i]), 0);
        }

        ipc_reader_done(&r);
        ck_assert_uint_eq(count_open_fds(), before);
        (void) close(p[0]);
        (void) close(p[1]);
}
END_TEST

START_TEST(test_reader_feed) {
        uint8_t frame[128];
        size_t n = hello_frame(frame, sizeof(frame), 9, "fed");
        const uint8_t *payload;
        size_t len;
        ipc_reader_t r;

        ipc_reader_init(&r, 0);
        ck_assert_int_eq(ipc_reader_feed(&r, frame, 2), 0);
        ck_assert_int_eq(ipc_reader_next(&r, &payload, &len), 0);
        ck_assert_int_eq(ipc_reader_feed(&r, frame + 2, n - 2), 0);
        ck_assert_int_eq(ipc_reader_next(&r, &payload, &len), 1);
        ck_assert_uint_eq(len, n - 4);
        ck_assert_int_eq(ipc_reader_feed(&r, NULL, 1), -EINVAL);
        ipc_reader_done(&r);
}
END_TEST

int main(void) {
        TCase *tc = tcase_create("reader");

        tcase_add_test(tc, test_reader_byte_at_a_time);
        tcase_add_test(tc, test_reader_back_to_back);
        tcase_add_test(tc, test_reader_oversized_header);
        tcase_add_test(tc, test_reader_fd_overflow_closed);
        tcase_add_test(tc, test_reader_feed);
        return run_suite("ipc-reader", tc);
}
