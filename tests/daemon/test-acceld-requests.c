/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Integration: requests against the real acceld, through libaccel, accelctl
 * and hand-made frames (unknown bodies, garbage, oversized headers).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <check.h>
#include <json-c/json.h>

#include "accel/accel.h"
#include "acceleration.pb-c.h"
#include "config.h"
#include "harness.h"
#include "ipc.h"

static harness_daemon_t d;

static void setup(void) {
        harness_up(&d);
}

static void teardown(void) {
        harness_cleanup(&d);
}

static accel_client_t *connect_ok(void) {
        accel_client_t *c = NULL;

        ck_assert_msg(accel_connect(d.sock, &c) == 0, "connect: %s", accel_last_error());
        return c;
}

static const accel_backend_t *find_backend(const accel_capabilities_t *caps, const char *name) {
        for (size_t i = 0; i < caps->n_backends; i++)
                if (strcmp(caps->backends[i].name, name) == 0)
                        return &caps->backends[i];
        return NULL;
}

START_TEST(test_caps_libaccel_reports_cpu_memory_backends) {
        accel_client_t *c = connect_ok();
        accel_capabilities_t *caps = NULL;
        const accel_backend_t *b;

        ck_assert_int_eq(accel_get_capabilities(c, &caps), 0);
        ck_assert_str_ne(caps->cpu.vendor, "");
        ck_assert_str_ne(caps->cpu.model, "");
        ck_assert_uint_ge(caps->cpu.cores, 1);
        ck_assert_uint_ge(caps->cpu.logical_processors, caps->cpu.cores);
        ck_assert_uint_eq(caps->cpu.logical_processors, (unsigned) sysconf(_SC_NPROCESSORS_CONF));
#if defined(__x86_64__)
        {
                bool sse2 = false;

                for (size_t i = 0; i < caps->cpu.n_features; i++)
                        sse2 |= strcmp(caps->cpu.features[i], "sse2") == 0;
                ck_assert_msg(sse2, "every x86-64 CPU has sse2");
        }
        ck_assert_str_eq(caps->cpu.architecture, "x86_64");
#endif
        ck_assert_uint_gt(caps->memory.total_bytes, 0);
        ck_assert_uint_le(caps->memory.available_bytes, caps->memory.total_bytes);

        /* reference first, always available, at the daemon's version */
        ck_assert_uint_eq(caps->n_backends, 7);
        ck_assert_str_eq(caps->backends[0].name, "reference");
        ck_assert(caps->backends[0].available);
        ck_assert_str_eq(caps->backends[0].version, ACCELD_VERSION);
        ck_assert_str_eq(caps->backends[0].delegate_name, "NONE");

        b = find_backend(caps, "xnnpack");
        ck_assert_ptr_nonnull(b);
        ck_assert_int_eq(b->delegate, TFLITE__PROTO__DELEGATE__XNNPACK);
        ck_assert_int_eq(b->available, HAVE_XNNPACK);
        if (!b->available)
                ck_assert_str_ne(b->reason, "");
        else {
                /* Calibrated per operand type: float32, int8 and uint8,
                 * each a positive ratio to the reference driver. */
                bool seen[3] = { false, false, false };
                static const char *const types[3] = { "float32", "int8", "uint8" };
                for (size_t k = 0; k < b->n_performance; k++)
                        for (int t = 0; t < 3; t++)
                                if (strcmp(b->performance[k].operand_type, types[t]) == 0) {
                                        seen[t] = true;
                                        ck_assert(b->performance[k].exec_time > 0.0f);
                                }
                ck_assert_msg(seen[0] && seen[1] && seen[2], "xnnpack performance incomplete");
        }
        /* The reference driver is the unit of that scale. */
        ck_assert_uint_gt(caps->backends[0].n_performance, 0);
        ck_assert_str_eq(caps->backends[0].performance[0].operand_type, "float32");
        ck_assert(caps->backends[0].performance[0].exec_time == 1.0f);
        ck_assert_uint_eq(find_backend(caps, "nnapi")->n_performance, 0);

        /* every other seed Delegate: listed, unavailable, with a reason */
        static const struct {
                const char *name;
                int delegate;
        } others[] = {
                { "nnapi", TFLITE__PROTO__DELEGATE__NNAPI },
                { "gpu", TFLITE__PROTO__DELEGATE__GPU },
                { "hexagon", TFLITE__PROTO__DELEGATE__HEXAGON },
                { "edgetpu", TFLITE__PROTO__DELEGATE__EDGETPU },
                { "edgetpu_coral", TFLITE__PROTO__DELEGATE__EDGETPU_CORAL },
        };
        for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++) {
                b = find_backend(caps, others[i].name);
                ck_assert_msg(b != NULL, "backend %s missing", others[i].name);
                ck_assert_int_eq(b->delegate, others[i].delegate);
                ck_assert(!b->available);
                ck_assert_str_ne(b->reason, "");
        }
        b = find_backend(caps, "nnapi");
        ck_assert_str_eq(b->reason, "NNAPI is an Android API; not present on Linux");
        ck_assert_str_eq(b->delegate_name, "NNAPI");

        (void) accel_capabilities_free(caps);
        (void) accel_disconnect(c);
}
END_TEST

START_TEST(test_hello_returns_protocol_version_and_limits) {
        accel_client_t *c = connect_ok();
        accel_hello_t *h = NULL;

        ck_assert_int_eq(accel_hello(c, "test-acceld-requests", &h), 0);
        ck_assert_uint_eq(h->protocol_version, ACCELD_PROTOCOL_VERSION);
        ck_assert_uint_eq(h->min_protocol_version, 1);
        ck_assert_str_eq(h->server_version, ACCELD_VERSION);
        ck_assert_uint_eq(h->limits.max_frame_bytes, IPC_FRAME_LIMIT_DEFAULT);
        ck_assert_uint_eq(h->limits.max_fds_per_frame, IPC_MAX_FDS_PER_FRAME);
        ck_assert_uint_eq(h->limits.max_in_flight_per_connection, 64);
        ck_assert_uint_eq(h->limits.max_connections, 1024);
        ck_assert_uint_gt(h->connection_id, 0);
        (void) accel_hello_free(h);
        (void) accel_disconnect(c);
}
END_TEST

START_TEST(test_status_counts_requests) {
        accel_client_t *c = connect_ok();
        accel_daemon_status_t *s1 = NULL, *s2 = NULL;
        accel_capabilities_t *caps = NULL;
        accel_hello_t *h = NULL;

        ck_assert_int_eq(accel_get_status(c, &s1), 0);
        ck_assert_int_eq(accel_hello(c, NULL, &h), 0);
        ck_assert_int_eq(accel_get_capabilities(c, &caps), 0);
        ck_assert_int_eq(accel_get_status(c, &s2), 0);

        /* s1's own reply, Hello and GetCapabilities were served in between. */
        ck_assert_uint_eq(s2->requests_served - s1->requests_served, 3);
        ck_assert_uint_eq(s2->errors, 0);
        ck_assert_uint_eq(s2->protocol_errors, 0);
        /* the harness's readiness probe has closed: only this one is open */
        ck_assert_uint_eq(s2->connections, 1);
        ck_assert_uint_eq(s2->connections_total, s1->connections_total);
        ck_assert_uint_ge(s2->uptime_us, s1->uptime_us);
        ck_assert_uint_eq(s2->pid, (uint32_t) d.pid);
        ck_assert_str_eq(s2->socket_path, d.sock);
        ck_assert_str_eq(s2->state_directory, d.state);
        ck_assert_uint_eq(s2->limits.max_frame_bytes, IPC_FRAME_LIMIT_DEFAULT);

        (void) accel_daemon_status_free(s1);
        (void) accel_daemon_status_free(s2);
        (void) accel_capabilities_free(caps);
        (void) accel_hello_free(h);
        (void) accel_disconnect(c);
}
END_TEST

START_TEST(test_connect_uses_acceld_socket_env) {
        accel_client_t *c = NULL;
        accel_hello_t *h = NULL;

        ck_assert_int_eq(setenv("ACCELD_SOCKET", d.sock, 1), 0);
        ck_assert_int_eq(accel_connect(NULL, &c), 0);
        ck_assert_str_eq(accel_client_socket_path(c), d.sock);
        ck_assert_int_eq(accel_hello(c, NULL, &h), 0);
        (void) accel_hello_free(h);
        (void) accel_disconnect(c);
}
END_TEST

START_TEST(test_connect_missing_socket_is_enoent) {
        char path[400];
        accel_client_t *c = NULL;

        (void) snprintf(path, sizeof(path), "%s/missing.sock", d.dir);
        ck_assert_int_eq(accel_connect(path, &c), -ENOENT);
        ck_assert_ptr_null(c);
        ck_assert_str_ne(accel_last_error(), "");
        ck_assert_int_eq(accel_last_status(), ACCEL_STATUS_NONE);
        ck_assert_int_eq(accel_connect(path, NULL), -EINVAL);
}
END_TEST

START_TEST(test_status_to_string_names_wire_values) {
        ck_assert_str_eq(accel_status_to_string(ACCEL_STATUS_NONE), "NONE");
        ck_assert_str_eq(accel_status_to_string(ACCEL_STATUS_RESOURCE_EXHAUSTED_PERSISTENT),
                         "RESOURCE_EXHAUSTED_PERSISTENT");
        ck_assert_str_eq(accel_status_to_string(ACCEL_STATUS_UNSUPPORTED), "UNSUPPORTED");
        ck_assert_str_eq(accel_status_to_string((accel_status_t) 999), "UNKNOWN");
        ck_assert_int_eq(ACCEL_STATUS_PROTOCOL_ERROR, ACCELD__STATUS__PROTOCOL_ERROR);
        ck_assert_int_eq(ACCEL_STATUS_UNSUPPORTED, ACCELD__STATUS__UNSUPPORTED);
}
END_TEST

/* Write raw bytes, all of them. */
static void write_all(int fd, const void *buf, size_t len) {
        const uint8_t *p = buf;

        while (len > 0) {
                ssize_t n = write(fd, p, len);

                ck_assert_int_gt(n, 0);
                p += n;
                len -= (size_t) n;
        }
}

static Acceld__Response *recv_response(int fd, ipc_reader_t *r) {
        ProtobufCMessage *m = NULL;

        ck_assert_int_eq(ipc_recv(fd, r, &acceld__response__descriptor, &m), 0);
        return (Acceld__Response *) m;
}

static void assert_closed(int fd, ipc_reader_t *r) {
        ProtobufCMessage *m = NULL;

        ck_assert_int_eq(ipc_recv(fd, r, &acceld__response__descriptor, &m), -ECONNRESET);
}

/* A fresh connection still answers, and the daemon counted the error. */
static void assert_daemon_healthy(uint64_t want_protocol_errors) {
        accel_client_t *c = connect_ok();
        accel_daemon_status_t *s = NULL;

        ck_assert_int_eq(accel_get_status(c, &s), 0);
        ck_assert_uint_eq(s->protocol_errors, want_protocol_errors);
        (void) accel_daemon_status_free(s);
        (void) accel_disconnect(c);
}

START_TEST(test_unknown_request_is_unsupported_and_connection_stays) {
        /* request_id = 7 and field 99 (no body acceld knows), an empty message. */
        static const uint8_t frame[] = { 5, 0, 0, 0, 0x08, 0x07, 0x9a, 0x06, 0x00 };
        Acceld__Request req = ACCELD__REQUEST__INIT;
        Acceld__GetStatusRequest st = ACCELD__GET_STATUS_REQUEST__INIT;
        Acceld__Response *resp;
        ipc_reader_t r;
        int fd = harness_connect(d.sock);

        ck_assert_int_ge(fd, 0);
        ipc_reader_init(&r, 0);
        write_all(fd, frame, sizeof(frame));
        resp = recv_response(fd, &r);
        ck_assert_uint_eq(resp->request_id, 7);
        ck_assert_int_eq(resp->status, ACCELD__STATUS__UNSUPPORTED);
        ck_assert_ptr_nonnull(resp->message);
        ck_assert_int_eq(resp->body_case, ACCELD__RESPONSE__BODY__NOT_SET);
        acceld__response__free_unpacked(resp, NULL);

        /* the same connection answers the next request */
        req.has_request_id = 1;
        req.request_id = 8;
        req.body_case = ACCELD__REQUEST__BODY_GET_STATUS;
        req.get_status = &st;
        ck_assert_int_eq(ipc_send(fd, &req.base, NULL, 0), 0);
        resp = recv_response(fd, &r);
        ck_assert_uint_eq(resp->request_id, 8);
        ck_assert_int_eq(resp->status, ACCELD__STATUS__NONE);
        ck_assert_int_eq(resp->body_case, ACCELD__RESPONSE__BODY_GET_STATUS);
        ck_assert_uint_eq(resp->get_status->errors, 1);
        ck_assert_uint_eq(resp->get_status->protocol_errors, 0);
        acceld__response__free_unpacked(resp, NULL);
        ipc_reader_done(&r);
        (void) close(fd);
}
END_TEST

START_TEST(test_garbage_frame_gets_protocol_error_and_close) {
        /* 5 payload bytes that are an unterminated varint tag */
        static const uint8_t frame[] = { 5, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff };
        Acceld__Response *resp;
        ipc_reader_t r;
        int fd = harness_connect(d.sock);

        ck_assert_int_ge(fd, 0);
        ipc_reader_init(&r, 0);
        write_all(fd, frame, sizeof(frame));
        resp = recv_response(fd, &r);
        ck_assert_int_eq(resp->status, ACCELD__STATUS__PROTOCOL_ERROR);
        ck_assert_uint_eq(resp->request_id, 0);
        acceld__response__free_unpacked(resp, NULL);
        assert_closed(fd, &r);
        ipc_reader_done(&r);
        (void) close(fd);

        assert_daemon_healthy(1);
}
END_TEST

START_TEST(test_oversized_frame_header_gets_protocol_error_and_close) {
        /* announces 0x7fffffff bytes, far over the 64 MiB default */
        static const uint8_t header[] = { 0xff, 0xff, 0xff, 0x7f };
        Acceld__Response *resp;
        ipc_reader_t r;
        int fd = harness_connect(d.sock);

        ck_assert_int_ge(fd, 0);
        ipc_reader_init(&r, 0);
        write_all(fd, header, sizeof(header));
        resp = recv_response(fd, &r);
        ck_assert_int_eq(resp->status, ACCELD__STATUS__PROTOCOL_ERROR);
        ck_assert_ptr_nonnull(resp->message);
        acceld__response__free_unpacked(resp, NULL);
        assert_closed(fd, &r);
        ipc_reader_done(&r);
        (void) close(fd);

        assert_daemon_healthy(1);
}
END_TEST

START_TEST(test_hello_with_too_old_protocol_is_unsupported) {
        Acceld__Request req = ACCELD__REQUEST__INIT;
        Acceld__HelloRequest hello = ACCELD__HELLO_REQUEST__INIT;
        Acceld__Response *resp;
        ipc_reader_t r;
        int fd = harness_connect(d.sock);

        ck_assert_int_ge(fd, 0);
        ipc_reader_init(&r, 0);
        hello.has_protocol_version = 1;
        hello.protocol_version = 0;
        req.has_request_id = 1;
        req.request_id = 11;
        req.body_case = ACCELD__REQUEST__BODY_HELLO;
        req.hello = &hello;
        ck_assert_int_eq(ipc_send(fd, &req.base, NULL, 0), 0);
        resp = recv_response(fd, &r);
        ck_assert_uint_eq(resp->request_id, 11);
        ck_assert_int_eq(resp->status, ACCELD__STATUS__UNSUPPORTED);
        ck_assert_int_eq(resp->body_case, ACCELD__RESPONSE__BODY__NOT_SET);
        acceld__response__free_unpacked(resp, NULL);

        /* the current version on the same connection is fine */
        hello.protocol_version = ACCELD_PROTOCOL_VERSION;
        req.request_id = 12;
        ck_assert_int_eq(ipc_send(fd, &req.base, NULL, 0), 0);
        resp = recv_response(fd, &r);
        ck_assert_uint_eq(resp->request_id, 12);
        ck_assert_int_eq(resp->status, ACCELD__STATUS__NONE);
        ck_assert_int_eq(resp->body_case, ACCELD__RESPONSE__BODY_HELLO);
        ck_assert_uint_eq(resp->hello->protocol_version, ACCELD_PROTOCOL_VERSION);
        acceld__response__free_unpacked(resp, NULL);
        ipc_reader_done(&r);
        (void) close(fd);
}
END_TEST

/* fds sent with a request the handler does not use are closed by acceld,
 * not leaked: the pipe's write end is gone once acceld has answered. */
START_TEST(test_unused_fds_are_closed_after_the_request) {
        Acceld__Request req = ACCELD__REQUEST__INIT;
        Acceld__HelloRequest hello = ACCELD__HELLO_REQUEST__INIT;
        Acceld__Response *resp;
        ipc_reader_t r;
        char byte;
        int p[2], fd = harness_connect(d.sock);

        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(pipe(p), 0);
        ipc_reader_init(&r, 0);
        req.has_request_id = 1;
        req.request_id = 21;
        req.has_num_fds = 1;
        req.num_fds = 1;
        req.body_case = ACCELD__REQUEST__BODY_HELLO;
        req.hello = &hello;
        ck_assert_int_eq(ipc_send(fd, &req.base, &p[1], 1), 0);
        (void) close(p[1]);
        resp = recv_response(fd, &r);
        ck_assert_uint_eq(resp->request_id, 21);
        ck_assert_int_eq(resp->status, ACCELD__STATUS__NONE);
        acceld__response__free_unpacked(resp, NULL);
        /* every write end closed: EOF, not a hang */
        ck_assert_int_eq(read(p[0], &byte, 1), 0);
        (void) close(p[0]);
        ipc_reader_done(&r);
        (void) close(fd);
}
END_TEST

START_TEST(test_wrong_fd_count_gets_protocol_error) {
        /* num_fds = 2 but no fd travelled with the frame */
        Acceld__Request req = ACCELD__REQUEST__INIT;
        Acceld__HelloRequest hello = ACCELD__HELLO_REQUEST__INIT;
        Acceld__Response *resp;
        ipc_reader_t r;
        int fd = harness_connect(d.sock);

        ck_assert_int_ge(fd, 0);
        ipc_reader_init(&r, 0);
        req.has_request_id = 1;
        req.request_id = 3;
        req.has_num_fds = 1;
        req.num_fds = 2;
        req.body_case = ACCELD__REQUEST__BODY_HELLO;
        req.hello = &hello;
        ck_assert_int_eq(ipc_send(fd, &req.base, NULL, 0), 0);
        resp = recv_response(fd, &r);
        ck_assert_uint_eq(resp->request_id, 3);
        ck_assert_int_eq(resp->status, ACCELD__STATUS__PROTOCOL_ERROR);
        acceld__response__free_unpacked(resp, NULL);
        assert_closed(fd, &r);
        ipc_reader_done(&r);
        (void) close(fd);

        assert_daemon_healthy(1);
}
END_TEST

START_TEST(test_peer_closing_mid_frame_leaves_daemon_serving) {
        static const uint8_t partial[] = { 100, 0, 0, 0, 0x08, 0x01 };
        int fd = harness_connect(d.sock);

        ck_assert_int_ge(fd, 0);
        write_all(fd, partial, sizeof(partial));
        (void) close(fd);
        assert_daemon_healthy(0);
}
END_TEST

START_TEST(test_pipelined_requests_answered_in_order) {
        enum { N = 3000 };
        Acceld__Request req = ACCELD__REQUEST__INIT;
        Acceld__GetStatusRequest st = ACCELD__GET_STATUS_REQUEST__INIT;
        uint8_t *buf = malloc(N * 32), *p = buf;
        ipc_reader_t r;
        int fd = harness_connect(d.sock);

        ck_assert_ptr_nonnull(buf);
        ck_assert_int_ge(fd, 0);
        req.has_request_id = 1;
        req.body_case = ACCELD__REQUEST__BODY_GET_STATUS;
        req.get_status = &st;
        /* all frames in one write: acceld reads them in big chunks and
         * must answer each, in order, however its output queue backs up */
        for (uint64_t i = 1; i <= N; i++) {
                size_t len;

                req.request_id = i;
                len = acceld__request__get_packed_size(&req);
                p[0] = (uint8_t) len;
                p[1] = p[2] = p[3] = 0;
                (void) acceld__request__pack(&req, p + 4);
                p += 4 + len;
        }
        write_all(fd, buf, (size_t) (p - buf));
        free(buf);

        ipc_reader_init(&r, 0);
        for (uint64_t i = 1; i <= N; i++) {
                Acceld__Response *resp = recv_response(fd, &r);

                ck_assert_uint_eq(resp->request_id, i);
                ck_assert_int_eq(resp->status, ACCELD__STATUS__NONE);
                ck_assert_uint_eq(resp->get_status->requests_served, i - 1);
                acceld__response__free_unpacked(resp, NULL);
        }
        ipc_reader_done(&r);
        (void) close(fd);
}
END_TEST

static Suite *requests_suite(void) {
        Suite *s = suite_create("acceld-requests");
        TCase *tc = tcase_create("requests");

        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_set_timeout(tc, 60);
        tcase_add_test(tc, test_caps_libaccel_reports_cpu_memory_backends);
        tcase_add_test(tc, test_hello_returns_protocol_version_and_limits);
        tcase_add_test(tc, test_status_counts_requests);
        tcase_add_test(tc, test_connect_uses_acceld_socket_env);
        tcase_add_test(tc, test_connect_missing_socket_is_enoent);
        tcase_add_test(tc, test_status_to_string_names_wire_values);
        tcase_add_test(tc, test_unknown_request_is_unsupported_and_connection_stays);
        tcase_add_test(tc, test_garbage_frame_gets_protocol_error_and_close);
        tcase_add_test(tc, test_oversized_frame_header_gets_protocol_error_and_close);
        tcase_add_test(tc, test_hello_with_too_old_protocol_is_unsupported);
        tcase_add_test(tc, test_unused_fds_are_closed_after_the_request);
        tcase_add_test(tc, test_wrong_fd_count_gets_protocol_error);
        tcase_add_test(tc, test_peer_closing_mid_frame_leaves_daemon_serving);
        tcase_add_test(tc, test_pipelined_requests_answered_in_order);
        suite_add_tcase(s, tc);
        return s;
}

int main(int argc, char **argv) {
        SRunner *sr;
        int failed;

        harness_init(argc, argv);
        sr = srunner_create(requests_suite());
        srunner_run_all(sr, CK_NORMAL);
        failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
