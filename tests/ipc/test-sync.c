/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "ipc-test.h"

START_TEST(test_sync_roundtrip) {
        Acceld__HelloRequest hello = ACCELD__HELLO_REQUEST__INIT;
        Acceld__Request req = ACCELD__REQUEST__INIT;
        ProtobufCMessage *got = NULL;
        ipc_reader_t r;

        hello.client_name = (char *) "roundtrip";
        hello.protocol_version = 1;
        hello.has_protocol_version = true;
        req.request_id = 5;
        req.has_request_id = true;
        req.body_case = ACCELD__REQUEST__BODY_HELLO;
        req.hello = &hello;

        ipc_reader_init(&r, 0);
        ck_assert_int_eq(ipc_send(sv[0], &req.base, NULL, 0), 0);
        ck_assert_int_eq(ipc_recv(sv[1], &r, &acceld__request__descriptor, &got), 0);
        Acceld__Request *back = (Acceld__Request *) got;
        ck_assert_uint_eq(back->request_id, 5);
        ck_assert_int_eq(back->body_case, ACCELD__REQUEST__BODY_HELLO);
        ck_assert_str_eq(back->hello->client_name, "roundtrip");
        ck_assert_uint_eq(back->hello->protocol_version, 1);
        protobuf_c_message_free_unpacked(got, NULL);
        ck_assert_uint_eq(r.len, 0);
        ipc_reader_done(&r);
}
END_TEST

START_TEST(test_sync_fd_passing) {
        static const char data[] = "tensor bytes";
        Acceld__Request req = ACCELD__REQUEST__INIT;
        ProtobufCMessage *got = NULL;
        char back[sizeof(data)] = { 0 };
        int memfd, fd = -1;
        ipc_reader_t r;

        memfd = memfd_create("ipc-test", MFD_CLOEXEC);
        ck_assert_int_ge(memfd, 0);
        ck_assert_int_eq(write(memfd, data, sizeof(data)), (ssize_t) sizeof(data));
        req.request_id = 11;
        req.has_request_id = true;
        req.num_fds = 1;
        req.has_num_fds = true;

        ipc_reader_init(&r, 0);
        ck_assert_int_eq(ipc_send(sv[0], &req.base, &memfd, 1), 0);
        /* The fd was dup'ed for sending: ours is still open and ours to close. */
        ck_assert_int_ge(fcntl(memfd, F_GETFD), 0);
        ck_assert_int_eq(close(memfd), 0);

        ck_assert_int_eq(ipc_recv(sv[1], &r, &acceld__request__descriptor, &got), 0);
        Acceld__Request *in = (Acceld__Request *) got;
        ck_assert_uint_eq(in->num_fds, 1);
        ck_assert_uint_eq(r.n_fds, 1);
        ck_assert_int_eq(ipc_reader_take_fds(&r, &fd, in->num_fds), 0);
        ck_assert_uint_eq(r.n_fds, 0);
        protobuf_c_message_free_unpacked(got, NULL);

        ck_assert_int_eq(fcntl(fd, F_GETFD), FD_CLOEXEC);
        ck_assert_int_eq(pread(fd, back, sizeof(back), 0), (ssize_t) sizeof(data));
        ck_assert_str_eq(back, data);
        ck_assert_int_eq(close(fd), 0);
        ipc_reader_done(&r);
}
END_TEST

START_TEST(test_sync_garbage_ebadmsg) {
        /* Field 1 (a varint) sent as length-delimited, 5 bytes long, with one byte. */
        static const uint8_t garbage[] = { 3, 0, 0, 0, 0x0a, 0x05, 0x01 };
        uint8_t frame[128];
        size_t n = hello_frame(frame, sizeof(frame), 8, "after");
        ProtobufCMessage *got = NULL;
        ipc_reader_t r;

        ipc_reader_init(&r, 0);
        write_all(sv[0], garbage, sizeof(garbage));
        write_all(sv[0], frame, n);
        ck_assert_int_eq(ipc_recv(sv[1], &r, &acceld__request__descriptor, &got), -EBADMSG);
        ck_assert_ptr_null(got);

        /* The bad frame is gone; the next one decodes. */
        ck_assert_int_eq(ipc_recv(sv[1], &r, &acceld__request__descriptor, &got), 0);
        ck_assert_uint_eq(((Acceld__Request *) got)->request_id, 8);
        protobuf_c_message_free_unpacked(got, NULL);
        ipc_reader_done(&r);
}
END_TEST

START_TEST(test_sync_peer_closed_mid_frame) {
        uint8_t frame[128];
        size_t n = hello_frame(frame, sizeof(frame), 3, "cut short");
        ProtobufCMessage *got = NULL;
        ipc_reader_t r;

        ipc_reader_init(&r, 0);
        write_all(sv[0], frame, n - 2);
        ck_assert_int_eq(close(sv[0]), 0);
        sv[0] = -1;
        ck_assert_int_eq(ipc_recv(sv[1], &r, &acceld__request__descriptor, &got), -ECONNRESET);
        ck_assert_ptr_null(got);
        ck_assert(ipc_reader_has_partial(&r));
        ck_assert_uint_eq(r.len, n - 2);
        ipc_reader_done(&r);
}
END_TEST

START_TEST(test_sync_peer_closed_between_frames) {
        ProtobufCMessage *got = NULL;
        ipc_reader_t r;

        ipc_reader_init(&r, 0);
        ck_assert_int_eq(shutdown(sv[0], SHUT_WR), 0);
        ck_assert_int_eq(ipc_recv(sv[1], &r, &acceld__request__descriptor, &got), -ECONNRESET);
        ck_assert(!ipc_reader_has_partial(&r));
        ipc_reader_done(&r);
}
END_TEST

START_TEST(test_sync_nonblocking_recv_waits) {
        Acceld__Request req = ACCELD__REQUEST__INIT;
        ProtobufCMessage *got = NULL;
        ipc_reader_t r;
        pid_t pid;
        int status;

        /* A non-blocking fd with nothing yet: ipc_recv polls instead of failing. */
        ck_assert_int_eq(fcntl(sv[1], F_SETFL, O_NONBLOCK), 0);
        req.request_id = 99;
        req.has_request_id = true;
        pid = fork();
        ck_assert_int_ge(pid, 0);
        if (pid == 0) {
                usleep(20 * 1000);
                _exit(ipc_send(sv[0], &req.base, NULL, 0) == 0 ? 0 : 1);
        }
        ipc_reader_init(&r, 0);
        ck_assert_int_eq(ipc_recv(sv[1], &r, &acceld__request__descriptor, &got), 0);
        ck_assert_uint_eq(((Acceld__Request *) got)->request_id, 99);
        protobuf_c_message_free_unpacked(got, NULL);
        ck_assert_int_eq(waitpid(pid, &status, 0), pid);
        ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        ipc_reader_done(&r);
}
END_TEST

int main(void) {
        TCase *tc = tcase_create("sync");

        tcase_add_test(tc, test_sync_roundtrip);
        tcase_add_test(tc, test_sync_fd_passing);
        tcase_add_test(tc, test_sync_garbage_ebadmsg);
        tcase_add_test(tc, test_sync_peer_closed_mid_frame);
        tcase_add_test(tc, test_sync_peer_closed_between_frames);
        tcase_add_test(tc, test_sync_nonblocking_recv_waits);
        return run_suite("ipc-sync", tc);
}
