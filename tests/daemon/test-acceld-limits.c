/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Integration: acceld's default-on limits against the attacks that used to
 * exhaust it (issue 22), each kept as a regression test with bounded loops
 * and a low configured cap so it is quick: buffers and fds, fds no request
 * claims, idle connections of one uid (root still served), half-sent
 * frames, a huge repeated-count request, a client that never reads its
 * replies, EMFILE at accept, a named prepare on a full disk, a stale store
 * temporary, a deadline of 2^64-1, and log rate limiting.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <check.h>

#include "harness-frames.h"
#include "harness.h"
#include "ipc.h"
#include "log.h"
#include "tfb-models.h"
#include "tflite-builder.h"

static harness_daemon_t d;

static void teardown(void) {
        harness_cleanup(&d);
}

typedef harness_client_t client_t;

static const char *settings_none = "{\"delegate\": \"NONE\"}";

static uint64_t now_ms(void) {
        struct timespec ts;

        (void) clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000u + (uint64_t) ts.tv_nsec / 1000000u;
}

/* Answer of one GetStatus on a fresh connection: the daemon still serves. */
static void assert_still_serving(void) {
        client_t c;
        Acceld__Request req = ACCELD__REQUEST__INIT;
        Acceld__GetStatusRequest g = ACCELD__GET_STATUS_REQUEST__INIT;
        Acceld__Response *r;

        harness_client_open(&c, d.sock);
        req.body_case = ACCELD__REQUEST__BODY_GET_STATUS;
        req.get_status = &g;
        r = harness_transact(&c, &req, NULL, 0);
        ck_assert_int_eq(r->status, ACCELD__STATUS__NONE);
        harness_resp_free(r);
        harness_client_close(&c);
}

/* Send GetStatus and return its answer, or NULL when the connection was
 * closed instead (a refused connection gets one frame, then EOF). */
static Acceld__Response *status_or_null(client_t *c) {
        Acceld__Request req = ACCELD__REQUEST__INIT;
        Acceld__GetStatusRequest g = ACCELD__GET_STATUS_REQUEST__INIT;
        ProtobufCMessage *m = NULL;

        req.body_case = ACCELD__REQUEST__BODY_GET_STATUS;
        req.get_status = &g;
        req.has_request_id = 1;
        req.request_id = 7;
        (void) ipc_send(c->fd, &req.base, NULL, 0);
        if (ipc_recv(c->fd, &c->r, &acceld__response__descriptor, &m) < 0)
                return NULL;
        return (Acceld__Response *) m;
}

static void set_recv_timeout(int fd, int seconds) {
        struct timeval tv = { .tv_sec = seconds };

        ck_assert_int_eq(setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)), 0);
}

static int sealed_memfd(size_t size) {
        int fd = memfd_create("test-limits", MFD_CLOEXEC | MFD_ALLOW_SEALING);

        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(ftruncate(fd, (off_t) size), 0);
        ck_assert_int_eq(fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW), 0);
        return fd;
}

static Acceld__Response *register_buffer(client_t *c, int fd) {
        Acceld__Request req = ACCELD__REQUEST__INIT;
        Acceld__RegisterBufferRequest rb = ACCELD__REGISTER_BUFFER_REQUEST__INIT;

        rb.has_fd = 1;
        rb.fd = 0;
        req.body_case = ACCELD__REQUEST__BODY_REGISTER_BUFFER;
        req.register_buffer = &rb;
        return harness_transact(c, &req, &fd, 1);
}

/* Register 4 KiB buffers until refused (at most `max` tries); returns how
 * many were accepted and checks the refusal names `limit`. */
static unsigned register_until_refused(client_t *c, unsigned max, const char *limit) {
        for (unsigned i = 0; i < max; i++) {
                int fd = sealed_memfd(4096);
                Acceld__Response *r = register_buffer(c, fd);

                (void) close(fd);
                if (r->status != ACCELD__STATUS__NONE) {
                        ck_assert_int_eq(r->status, ACCELD__STATUS__RESOURCE_EXHAUSTED_TRANSIENT);
                        ck_assert_msg(strstr(r->message, limit), "refusal does not name %s: %s", limit, r->message);
                        harness_resp_free(r);
                        return i;
                }
                harness_resp_free(r);
        }
        ck_abort_msg("%u buffers registered and none refused", max);
        return 0;
}

/* ---- fds and buffers ---- */

START_TEST(test_limits_buffers_refused_at_connection_fd_cap) {
        const char *args[] = { "--max-fds-per-connection", "24", NULL };
        client_t c;
        Acceld__Request req = ACCELD__REQUEST__INIT;
        Acceld__UnregisterBufferRequest ub = ACCELD__UNREGISTER_BUFFER_REQUEST__INIT;
        Acceld__Response *r;
        unsigned n;

        harness_up_with(&d, args, false);
        harness_client_open(&c, d.sock);
        n = register_until_refused(&c, 200, "max_fds_per_connection");
        ck_assert_uint_eq(n, 24);

        /* One released: one more fits. */
        ub.has_buffer = 1;
        ub.buffer = 1;
        req.body_case = ACCELD__REQUEST__BODY_UNREGISTER_BUFFER;
        req.unregister_buffer = &ub;
        r = harness_transact(&c, &req, NULL, 0);
        ck_assert_msg(r->status == ACCELD__STATUS__NONE, "unregister: %s", r->message);
        harness_resp_free(r);
        ck_assert_uint_eq(register_until_refused(&c, 10, "max_fds_per_connection"), 1);
        harness_client_close(&c);
        assert_still_serving();
}
END_TEST

START_TEST(test_limits_buffers_refused_at_uid_fd_cap) {
        const char *args[] = { "--max-fds-per-uid", "30", NULL };
        client_t a, b;
        unsigned na, nb;

        harness_up_with(&d, args, false);
        harness_client_open(&a, d.sock);
        harness_client_open(&b, d.sock);
        na = register_until_refused(&a, 100, "max_fds_per_uid");
        nb = register_until_refused(&b, 100, "max_fds_per_uid");
        /* Both connections count too. */
        ck_assert_uint_eq(na + nb, 28);
        ck_assert_uint_eq(nb, 0);
        harness_client_close(&a);
        /* a's buffers went with it: b may register again. */
        for (int i = 0; i < 100; i++) {
                int fd = sealed_memfd(4096);
                Acceld__Response *r = register_buffer(&b, fd);
                bool ok = r->status == ACCELD__STATUS__NONE;

                (void) close(fd);
                harness_resp_free(r);
                if (ok)
                        break;
                ck_assert_int_lt(i, 99);
                usleep(10000);
        }
        harness_client_close(&b);
}
END_TEST

/* fds sent with a frame that claims none are closed, not kept queued. */
START_TEST(test_limits_unclaimed_fds_are_closed) {
        int p[2], fds[8];
        client_t c;
        Acceld__Request req = ACCELD__REQUEST__INIT;
        Acceld__GetStatusRequest g = ACCELD__GET_STATUS_REQUEST__INIT;
        ProtobufCMessage *m = NULL;
        struct pollfd pfd;
        char byte;

        harness_up(&d);
        ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
        for (int i = 0; i < 8; i++) {
                fds[i] = dup(p[1]);
                ck_assert_int_ge(fds[i], 0);
        }
        harness_client_open(&c, d.sock);
        req.body_case = ACCELD__REQUEST__BODY_GET_STATUS;
        req.get_status = &g;
        req.has_request_id = 1;
        req.request_id = 1;
        /* num_fds left unset: nothing claims the 8 fds. */
        ck_assert_int_eq(ipc_send(c.fd, &req.base, fds, 8), 0);
        ck_assert_int_eq(ipc_recv(c.fd, &c.r, &acceld__response__descriptor, &m), 0);
        ck_assert_int_eq(((Acceld__Response *) m)->status, ACCELD__STATUS__NONE);
        protobuf_c_message_free_unpacked(m, NULL);
        for (int i = 0; i < 8; i++)
                (void) close(fds[i]);
        (void) close(p[1]);

        /* Every write end closed, acceld's copies included: EOF. */
        pfd = (struct pollfd) { .fd = p[0], .events = POLLIN };
        ck_assert_msg(poll(&pfd, 1, 10000) == 1, "acceld still holds the unclaimed fds");
        ck_assert_int_eq(read(p[0], &byte, 1), 0);
        (void) close(p[0]);

        /* The connection goes on serving. */
        {
                Acceld__Response *r = status_or_null(&c);

                ck_assert_ptr_nonnull(r);
                ck_assert_int_eq(r->status, ACCELD__STATUS__NONE);
                harness_resp_free(r);
        }
        harness_client_close(&c);
}
END_TEST

/* fds queued ahead of the frame bytes that would claim them count against
 * the caps (with one frame's 16 of slack): past them the connection is
 * answered and closed. */
START_TEST(test_limits_queued_fds_count_against_cap) {
        const char *args[] = { "--max-fds-per-connection", "16", NULL };
        union {
                struct cmsghdr align;
                uint8_t buf[CMSG_SPACE(sizeof(int) * 40)];
        } control;
        uint8_t header[2] = { 100, 0 };    /* the start of a 100-byte frame */
        struct iovec iov = { .iov_base = header, .iov_len = sizeof(header) };
        struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = &control,
                             .msg_controllen = sizeof(control) };
        struct cmsghdr *cm;
        int fds[40], mfd;
        client_t c;
        ProtobufCMessage *m = NULL;
        Acceld__Response *r;

        harness_up_with(&d, args, false);
        mfd = sealed_memfd(4096);
        for (int i = 0; i < 40; i++)
                fds[i] = mfd;
        memset(&control, 0, sizeof(control));
        cm = CMSG_FIRSTHDR(&mh);
        cm->cmsg_level = SOL_SOCKET;
        cm->cmsg_type = SCM_RIGHTS;
        cm->cmsg_len = CMSG_LEN(sizeof(int) * 40);
        memcpy(CMSG_DATA(cm), fds, sizeof(fds));
        harness_client_open(&c, d.sock);
        set_recv_timeout(c.fd, 30);
        ck_assert_int_eq(sendmsg(c.fd, &mh, MSG_NOSIGNAL), (ssize_t) sizeof(header));
        ck_assert_int_eq(ipc_recv(c.fd, &c.r, &acceld__response__descriptor, &m), 0);
        r = (Acceld__Response *) m;
        ck_assert_int_eq(r->status, ACCELD__STATUS__RESOURCE_EXHAUSTED_TRANSIENT);
        ck_assert_msg(strstr(r->message, "max_fds_per_connection"), "%s", r->message);
        harness_resp_free(r);
        harness_client_close(&c);
        (void) close(mfd);
        assert_still_serving();
}
END_TEST

/* ---- connections ---- */

/* As uid 65534: open connections until refused (at most 10), report how
 * many were served through the pipe, then hold them until `hold` closes. */
static pid_t nobody_fills_connections(int report, int hold, int hold_w) {
        pid_t pid = fork();

        ck_assert_int_ge(pid, 0);
        if (pid == 0) {
                client_t cs[10];
                unsigned served = 0;
                char byte = 0;
                bool named = false;

                (void) close(hold_w);
                if (setgid(65534) < 0 || setuid(65534) < 0)
                        _exit(2);
                for (int i = 0; i < 10; i++) {
                        Acceld__Response *r;

                        cs[i].fd = harness_connect(d.sock);
                        if (cs[i].fd < 0)
                                _exit(3);
                        ipc_reader_init(&cs[i].r, 0);
                        r = status_or_null(&cs[i]);
                        if (!r)
                                _exit(4);
                        if (r->status != ACCELD__STATUS__NONE) {
                                named = r->status == ACCELD__STATUS__RESOURCE_EXHAUSTED_TRANSIENT &&
                                        strstr(r->message, "max_connections_per_uid") != NULL;
                                harness_resp_free(r);
                                break;
                        }
                        harness_resp_free(r);
                        served++;
                }
                byte = (char) (named ? served : 100 + served);
                if (write(report, &byte, 1) != 1)
                        _exit(5);
                (void) read(hold, &byte, 1);
                _exit(0);
        }
        return pid;
}

START_TEST(test_limits_idle_connections_of_one_uid_leave_root_served) {
        const char *args[] = { "--max-connections", "6", "--max-connections-per-uid", "4", "--socket-mode", "0666", NULL };
        int report[2], hold[2], st;
        client_t roots[4];
        char served = 0;
        pid_t pid;

        if (getuid() != 0) {
                fprintf(stderr, "skipped: needs root to connect as another uid\n");
                return;
        }
        harness_prepare(&d);
        (void) chmod(d.dir, 0755);
        harness_start(&d, args, NULL, -1);
        harness_wait_ready(&d, d.sock);
        ck_assert_int_eq(pipe(report), 0);
        ck_assert_int_eq(pipe(hold), 0);
        pid = nobody_fills_connections(report[1], hold[0], hold[1]);
        ck_assert_int_eq(read(report[0], &served, 1), 1);
        ck_assert_msg(served == 4, "uid 65534 got %d connections served (>= 100: refusal did not name the cap)",
                      served);

        /* 4 of max_connections 6 taken by uid 65534; root gets its own 4,
         * past max_connections, and each is answered. */
        for (int i = 0; i < 4; i++) {
                Acceld__Response *r;

                harness_client_open(&roots[i], d.sock);
                set_recv_timeout(roots[i].fd, 30);
                r = status_or_null(&roots[i]);
                ck_assert_ptr_nonnull(r);
                ck_assert_msg(r->status == ACCELD__STATUS__NONE, "root connection %d: %s", i, r->message);
                harness_resp_free(r);
        }
        for (int i = 0; i < 4; i++)
                harness_client_close(&roots[i]);
        (void) close(hold[1]);
        ck_assert_int_eq(waitpid(pid, &st, 0), pid);
        ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
        (void) close(hold[0]);
        (void) close(report[0]);
        (void) close(report[1]);
}
END_TEST

/* Out of fds (a low RLIMIT_NOFILE), acceld still accepts, says why and
 * closes; it serves again once fds are free. */
START_TEST(test_limits_emfile_at_accept_is_answered) {
        struct rlimit old, low;
        client_t cs[120];
        unsigned n = 0, served = 0;
        bool told = false;

        harness_prepare(&d);
        ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &old), 0);
        low = old;
        low.rlim_cur = 96;
        ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &low), 0);
        harness_start(&d, NULL, NULL, -1);      /* acceld inherits 96 */
        ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &old), 0);
        harness_wait_ready(&d, d.sock);

        for (n = 0; n < 120 && !told; n++) {
                Acceld__Response *r;

                harness_client_open(&cs[n], d.sock);
                set_recv_timeout(cs[n].fd, 30);
                r = status_or_null(&cs[n]);
                ck_assert_msg(r, "connection %u closed without an answer", n);
                if (r->status == ACCELD__STATUS__NONE)
                        served++;
                else {
                        ck_assert_int_eq(r->status, ACCELD__STATUS__RESOURCE_EXHAUSTED_TRANSIENT);
                        ck_assert_msg(strstr(r->message, "RLIMIT_NOFILE"), "%s", r->message);
                        told = true;
                }
                harness_resp_free(r);
        }
        ck_assert_msg(told, "%u connections and no refusal", n);
        ck_assert_uint_gt(served, 0);

        /* Still at the limit: an fd sent to acceld cannot be installed.
         * That client is told acceld is out of fds, not PROTOCOL_ERROR. */
        {
                int mfd = sealed_memfd(4096);
                Acceld__Request req = ACCELD__REQUEST__INIT;
                Acceld__RegisterBufferRequest rb = ACCELD__REGISTER_BUFFER_REQUEST__INIT;
                ProtobufCMessage *m = NULL;
                Acceld__Response *r;

                rb.has_fd = 1;
                req.body_case = ACCELD__REQUEST__BODY_REGISTER_BUFFER;
                req.register_buffer = &rb;
                req.has_request_id = 1;
                req.request_id = 77;
                req.has_num_fds = 1;
                req.num_fds = 1;
                ck_assert_int_eq(ipc_send(cs[0].fd, &req.base, &mfd, 1), 0);
                (void) close(mfd);
                ck_assert_int_eq(ipc_recv(cs[0].fd, &cs[0].r, &acceld__response__descriptor, &m), 0);
                r = (Acceld__Response *) m;
                ck_assert_msg(r->status == ACCELD__STATUS__RESOURCE_EXHAUSTED_TRANSIENT, "%s: %s",
                              ipc_status_to_string(r->status), r->message);
                ck_assert_msg(strstr(r->message, "RLIMIT_NOFILE"), "%s", r->message);
                harness_resp_free(r);
        }
        for (unsigned i = 0; i < n; i++)
                harness_client_close(&cs[i]);
        /* Connections gone, fds free again. */
        for (int i = 0;; i++) {
                client_t c;
                Acceld__Response *r;
                bool ok;

                harness_client_open(&c, d.sock);
                r = status_or_null(&c);
                ok = r && r->status == ACCELD__STATUS__NONE;
                if (r)
                        harness_resp_free(r);
                harness_client_close(&c);
                if (ok)
                        break;
                ck_assert_int_lt(i, 100);
                usleep(20000);
        }
}
END_TEST

/* ---- input ---- */

/* Write as much of `len` bytes as the socket takes without blocking. */
static size_t write_some(int fd, const uint8_t *p, size_t len) {
        size_t off = 0;

        while (off < len) {
                ssize_t n = send(fd, p + off, len - off, MSG_NOSIGNAL | MSG_DONTWAIT);

                if (n <= 0)
                        break;
                off += (size_t) n;
        }
        return off;
}

/* A frame announcing 60 MB that never finishes: the bytes buffered are
 * capped (`flag` at 1M); that connection is answered and closed. */
static void half_frame_refused(const char *flag, const char *limit) {
        const char *args[] = { flag, "1M", NULL };
        const size_t chunk = 4u << 20;
        uint8_t *buf = calloc(1, chunk);
        client_t c;
        ProtobufCMessage *m = NULL;
        Acceld__Response *r;
        uint64_t t0;
        bool closed = false;

        ck_assert_ptr_nonnull(buf);
        harness_up_with(&d, args, false);
        harness_client_open(&c, d.sock);
        set_recv_timeout(c.fd, 30);
        buf[0] = 0x00;
        buf[1] = 0x00;
        buf[2] = 0xc0;
        buf[3] = 0x03;  /* 0x03c00000 = 60 MiB payload announced */
        t0 = now_ms();
        for (size_t off = 0; off < chunk && now_ms() - t0 < 20000;) {
                size_t n = write_some(c.fd, buf + off, chunk - off);
                struct pollfd p = { .fd = c.fd, .events = POLLIN };

                off += n;
                /* The answer arrives once acceld is over the cap. */
                if (poll(&p, 1, n ? 0 : 50) == 1) {
                        closed = true;
                        break;
                }
        }
        free(buf);
        ck_assert_msg(closed, "no answer to a connection buffering past %s", limit);
        ck_assert_int_eq(ipc_recv(c.fd, &c.r, &acceld__response__descriptor, &m), 0);
        r = (Acceld__Response *) m;
        ck_assert_int_eq(r->status, ACCELD__STATUS__RESOURCE_EXHAUSTED_TRANSIENT);
        ck_assert_msg(strstr(r->message, limit), "%s", r->message);
        harness_resp_free(r);
        harness_client_close(&c);
        assert_still_serving();
}

START_TEST(test_limits_half_frames_capped_per_uid) {
        half_frame_refused("--max-input-bytes-per-uid", "(max_input_bytes_per_uid ");
}
END_TEST

START_TEST(test_limits_half_frames_capped_globally) {
        half_frame_refused("--max-input-bytes", "(max_input_bytes ");
}
END_TEST

static uint64_t daemon_peak_rss_kib(void) {
        char path[64], line[256];
        uint64_t kib = 0;
        FILE *f;

        (void) snprintf(path, sizeof(path), "/proc/%d/status", (int) d.pid);
        f = fopen(path, "r");
        ck_assert_ptr_nonnull(f);
        while (fgets(line, sizeof(line), f))
                if (sscanf(line, "VmHWM: %" SCNu64, &kib) == 1)
                        break;
        fclose(f);
        return kib;
}

/* A 60 MB ExecuteRequest of 30 million empty TensorData is refused before
 * unpacking: no multi-gigabyte decode, and another client is answered
 * while it is being sent. */
START_TEST(test_limits_huge_repeated_count_request_refused_cheaply) {
        const size_t n_inputs = 30u * 1000u * 1000u;
        const size_t body = n_inputs * 2;               /* tag 0x12 + length 0 each */
        size_t len, off = 0;
        uint8_t *frame, *p;
        uint64_t before, after, t_sent;
        client_t c;
        ProtobufCMessage *m = NULL;
        Acceld__Response *r;
        pid_t pid;
        int st;

        harness_up(&d);
        before = daemon_peak_rss_kib();
        /* Request{ request_id = 9 (field 1), execute (field 21) = ExecuteRequest{ inputs (field 2) x N } } */
        frame = malloc(4 + 2 + 2 + 5 + body);
        ck_assert_ptr_nonnull(frame);
        p = frame + 4;
        *p++ = 0x08;
        *p++ = 9;
        *p++ = (21 << 3) | 2;
        *p++ = 0x01;
        for (size_t v = body; v; v >>= 7)
                *p++ = (uint8_t) ((v & 0x7f) | (v >> 7 ? 0x80 : 0));
        for (size_t i = 0; i < n_inputs; i++) {
                *p++ = 0x12;
                *p++ = 0x00;
        }
        len = (size_t) (p - frame) - 4;
        frame[0] = (uint8_t) len;
        frame[1] = (uint8_t) (len >> 8);
        frame[2] = (uint8_t) (len >> 16);
        frame[3] = (uint8_t) (len >> 24);

        /* Another client asks for status over and over meanwhile. */
        pid = fork();
        ck_assert_int_ge(pid, 0);
        if (pid == 0) {
                uint64_t worst = 0;

                for (int i = 0; i < 200; i++) {
                        client_t o;
                        uint64_t t = now_ms();
                        Acceld__Response *or;

                        o.fd = harness_connect(d.sock);
                        if (o.fd < 0)
                                _exit(2);
                        ipc_reader_init(&o.r, 0);
                        or = status_or_null(&o);
                        if (!or || or->status != ACCELD__STATUS__NONE)
                                _exit(3);
                        harness_resp_free(or);
                        ipc_reader_done(&o.r);
                        (void) close(o.fd);
                        t = now_ms() - t;
                        worst = t > worst ? t : worst;
                        usleep(5000);
                }
                fprintf(stderr, "limits: slowest GetStatus of another client while the 60 MB frame went in: %" PRIu64
                        " ms\n", worst);
                _exit(0);
        }

        harness_client_open(&c, d.sock);
        set_recv_timeout(c.fd, 60);
        t_sent = now_ms();
        while (off < len + 4) {
                ssize_t n = send(c.fd, frame + off, len + 4 - off, MSG_NOSIGNAL);

                if (n <= 0)
                        break;          /* refused and closed before the end: fine */
                off += (size_t) n;
        }
        free(frame);
        ck_assert_int_eq(ipc_recv(c.fd, &c.r, &acceld__response__descriptor, &m), 0);
        t_sent = now_ms() - t_sent;
        r = (Acceld__Response *) m;
        ck_assert_uint_eq(r->request_id, 9);
        ck_assert_int_eq(r->status, ACCELD__STATUS__RESOURCE_EXHAUSTED_PERSISTENT);
        ck_assert_msg(strstr(r->message, "max_frame_elements"), "%s", r->message);
        harness_resp_free(r);
        harness_client_close(&c);

        ck_assert_int_eq(waitpid(pid, &st, 0), pid);
        ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the other client was not served (%d)", st);
        after = daemon_peak_rss_kib();
        fprintf(stderr, "limits: 60 MB frame answered in %" PRIu64 " ms; acceld peak RSS %" PRIu64 " -> %" PRIu64
                " KiB\n", t_sent, before, after);
        /* The frame itself is buffered (64 MiB, plus one realloc copy);
         * unpacking it would have taken gigabytes. */
        ck_assert_msg(after - before < 256u * 1024u, "peak RSS grew by %" PRIu64 " KiB", after - before);
        assert_still_serving();
}
END_TEST

/* A big well-formed frame (8 MiB of model bytes, over the 1 MiB decoded
 * on the loop) is unpacked on a pool thread: it is answered, and the
 * request pipelined behind it on the same connection too. */
START_TEST(test_limits_big_frame_decoded_and_answered) {
        const size_t size = 8u << 20;
        uint8_t *junk = malloc(size);
        Acceld__Request req = ACCELD__REQUEST__INIT, st = ACCELD__REQUEST__INIT;
        Acceld__PrepareModelRequest pm = ACCELD__PREPARE_MODEL_REQUEST__INIT;
        Acceld__GetStatusRequest g = ACCELD__GET_STATUS_REQUEST__INIT;
        uint64_t id_prepare, id_status;
        bool seen_prepare = false, seen_status = false;
        client_t c;

        ck_assert_ptr_nonnull(junk);
        memset(junk, 0x5a, size);
        harness_up(&d);
        harness_client_open(&c, d.sock);
        set_recv_timeout(c.fd, 60);
        pm.has_model = 1;
        pm.model.data = junk;
        pm.model.len = size;
        pm.settings_json = (char *) settings_none;
        req.body_case = ACCELD__REQUEST__BODY_PREPARE_MODEL;
        req.prepare_model = &pm;
        id_prepare = harness_send(&c, &req, NULL, 0);
        st.body_case = ACCELD__REQUEST__BODY_GET_STATUS;
        st.get_status = &g;
        id_status = harness_send(&c, &st, NULL, 0);
        free(junk);
        for (int i = 0; i < 2; i++) {
                Acceld__Response *r = harness_recv(&c);

                if (r->request_id == id_prepare) {
                        /* Decoded, then refused as a model, not as a frame. */
                        ck_assert_int_ne(r->status, ACCELD__STATUS__NONE);
                        ck_assert_int_ne(r->status, ACCELD__STATUS__PROTOCOL_ERROR);
                        seen_prepare = true;
                } else {
                        ck_assert_uint_eq(r->request_id, id_status);
                        ck_assert_int_eq(r->status, ACCELD__STATUS__NONE);
                        seen_status = true;
                }
                harness_resp_free(r);
        }
        ck_assert(seen_prepare && seen_status);
        harness_client_close(&c);
}
END_TEST

/* ---- replies ---- */

/* float[1,1] in, MUL by a float[1,n] constant: a tiny request with an
 * n-float reply. */
static uint8_t *model_big_output(size_t n, size_t *size) {
        tfb_t *b = tfb_new();
        float *k = calloc(n, sizeof(float));
        int32_t in, kk, out;
        uint8_t *bytes;

        ck_assert_ptr_nonnull(k);
        for (size_t i = 0; i < n; i++)
                k[i] = (float) i;
        in = tfb_tensor(b, RT_TYPE_FLOAT32, "in", 2, TFB_DIMS(1, 1));
        kk = tfb_tensor_const(b, RT_TYPE_FLOAT32, "k", 2, TFB_DIMS(1, (int32_t) n), k, n * sizeof(float));
        out = tfb_tensor(b, RT_TYPE_FLOAT32, "out", 2, TFB_DIMS(1, (int32_t) n));
        tfb_op_add(b, &(tfb_op_t) { .opcode = tfb_opcode_builtin(b, RT_BUILTIN_MUL, 1), .inputs = TFB_IDS(in, kk),
                                    .n_inputs = 2, .outputs = TFB_IDS(out), .n_outputs = 1 });
        tfb_io(b, TFB_IDS(in), 1, TFB_IDS(out), 1);
        bytes = tfb_finish(b, size);
        tfb_free(b);
        free(k);
        ck_assert_ptr_nonnull(bytes);
        return bytes;
}

static Acceld__Response *prepare_bytes(client_t *c, const uint8_t *bytes, size_t size, const char *name) {
        Acceld__Request req = ACCELD__REQUEST__INIT;
        Acceld__PrepareModelRequest pm = ACCELD__PREPARE_MODEL_REQUEST__INIT;

        pm.has_model = 1;
        pm.model.data = (uint8_t *) bytes;
        pm.model.len = size;
        pm.settings_json = (char *) settings_none;
        pm.name = (char *) name;
        req.body_case = ACCELD__REQUEST__BODY_PREPARE_MODEL;
        req.prepare_model = &pm;
        return harness_transact(c, &req, NULL, 0);
}

static uint64_t prepare_ok(client_t *c, const uint8_t *bytes, size_t size) {
        Acceld__Response *r = prepare_bytes(c, bytes, size, NULL);
        uint64_t h;

        ck_assert_msg(r->status == ACCELD__STATUS__NONE, "prepare: %s", r->message);
        h = r->prepare_model->handle;
        harness_resp_free(r);
        return h;
}

/* Pack an Execute of `handle` with `n_in` floats of input and deadline into buf. */
static size_t pack_execute(uint8_t *buf, size_t cap, uint64_t id, uint64_t handle, size_t n_in, bool deadline,
                           uint64_t deadline_us) {
        Acceld__Request req = ACCELD__REQUEST__INIT;
        Acceld__ExecuteRequest e = ACCELD__EXECUTE_REQUEST__INIT;
        Acceld__TensorData td = ACCELD__TENSOR_DATA__INIT, *tds[1] = { &td };
        static const float ones[4] = { 1.0f, 1.0f, 1.0f, 1.0f };
        size_t n;

        ck_assert_uint_le(n_in, 4);
        td.has_data = 1;
        td.data.data = (uint8_t *) ones;
        td.data.len = n_in * sizeof(float);
        e.has_handle = 1;
        e.handle = handle;
        e.n_inputs = 1;
        e.inputs = tds;
        e.has_deadline_us = deadline;
        e.deadline_us = deadline_us;
        req.has_request_id = 1;
        req.request_id = id;
        req.body_case = ACCELD__REQUEST__BODY_EXECUTE;
        req.execute = &e;
        n = acceld__request__get_packed_size(&req);
        ck_assert_uint_le(n + 4, cap);
        buf[0] = (uint8_t) n;
        buf[1] = (uint8_t) (n >> 8);
        buf[2] = (uint8_t) (n >> 16);
        buf[3] = (uint8_t) (n >> 24);
        ck_assert_uint_eq(acceld__request__pack(&req, buf + 4), n);
        return n + 4;
}

/* A client that sends 64 executes with 1 MiB replies and never reads:
 * once max_output_bytes + max_frame_bytes are queued, acceld closes the
 * connection (logged) instead of dropping a reply it then owes forever. */
START_TEST(test_limits_reply_queue_overflow_closes_connection) {
        const char *args[] = { "--max-output-bytes", "64K", "--max-frame-bytes", "2M", NULL };
        enum { N = 64 };
        uint8_t *model, frames[N * 64];
        size_t size, off = 0;
        unsigned got = 0;
        uint64_t handle;
        client_t c;
        int r;

        harness_up_with(&d, args, false);
        model = model_big_output(256 * 1024, &size);
        harness_client_open(&c, d.sock);
        set_recv_timeout(c.fd, 20);
        handle = prepare_ok(&c, model, size);
        free(model);
        for (unsigned i = 0; i < N; i++)
                off += pack_execute(frames + off, sizeof(frames) - off, 1000 + i, handle, 1, false, 0);
        ck_assert_int_eq(write(c.fd, frames, off), (ssize_t) off);

        /* Give the replies time to pile up, then read what there is. */
        for (int i = 0; i < 600; i++) {
                struct pollfd p = { .fd = c.fd, .events = POLLRDHUP };

                if (poll(&p, 1, 0) == 1 && (p.revents & (POLLHUP | POLLRDHUP)))
                        break;
                usleep(50000);
        }
        for (;;) {
                ProtobufCMessage *m = NULL;

                r = ipc_recv(c.fd, &c.r, &acceld__response__descriptor, &m);
                if (r < 0)
                        break;
                ck_assert_int_eq(((Acceld__Response *) m)->status, ACCELD__STATUS__NONE);
                protobuf_c_message_free_unpacked(m, NULL);
                got++;
        }
        ck_assert_msg(r == -ECONNRESET, "expected the connection closed, got %d after %u replies", r, got);
        ck_assert_msg(got < N, "every reply was queued (%u)", got);
        harness_client_close(&c);
        assert_still_serving();
}
END_TEST

/* ---- models ---- */

/* Each handle counts its model's size against max_model_bytes_per_uid,
 * the same model prepared twice included. */
START_TEST(test_limits_model_bytes_per_uid) {
        char cap[32];
        const char *args[] = { "--max-model-bytes-per-uid", cap, NULL };
        Acceld__Request req = ACCELD__REQUEST__INIT;
        Acceld__ReleaseModelRequest rm = ACCELD__RELEASE_MODEL_REQUEST__INIT;
        Acceld__Response *r;
        uint8_t *model;
        size_t size;
        client_t c;

        model = tfb_model_affine(&size);
        ck_assert_ptr_nonnull(model);
        (void) snprintf(cap, sizeof(cap), "%zu", size + size / 2);
        harness_up_with(&d, args, false);
        harness_client_open(&c, d.sock);
        rm.has_handle = 1;
        rm.handle = prepare_ok(&c, model, size);
        r = prepare_bytes(&c, model, size, NULL);
        ck_assert_int_eq(r->status, ACCELD__STATUS__RESOURCE_EXHAUSTED_PERSISTENT);
        ck_assert_msg(strstr(r->message, "max_model_bytes_per_uid"), "%s", r->message);
        harness_resp_free(r);

        req.body_case = ACCELD__REQUEST__BODY_RELEASE_MODEL;
        req.release_model = &rm;
        r = harness_transact(&c, &req, NULL, 0);
        ck_assert_int_eq(r->status, ACCELD__STATUS__NONE);
        harness_resp_free(r);
        (void) prepare_ok(&c, model, size);
        free(model);
        harness_client_close(&c);
}
END_TEST

/* ---- refusals by limit ---- */

/* GetStatus's refusal counters, on connection c. */
static Acceld__Refusals refusals_get(client_t *c) {
        Acceld__Response *r = status_or_null(c);
        Acceld__Refusals f;

        ck_assert_ptr_nonnull(r);
        ck_assert_int_eq(r->status, ACCELD__STATUS__NONE);
        ck_assert_ptr_nonnull(r->get_status->refusals);
        f = *r->get_status->refusals;
        harness_resp_free(r);
        return f;
}

/*
 * Every limit hit once is counted once under its own name (GetStatus's
 * Refusals, `accelctl status --json`'s "refusals"), and nothing else
 * moves: fds per connection, registered bytes per uid, prepared models
 * per uid, connections per uid.
 */
START_TEST(test_limits_refusals_are_counted) {
        const char *args[] = { "--max-fds-per-connection", "16", "--max-registered-bytes-per-uid", "81920",
                               "--max-models-per-uid", "1", "--max-connections-per-uid", "4", NULL };
        client_t a, b, e;
        Acceld__Refusals f;
        Acceld__Response *r;
        uint8_t *model;
        size_t size;
        unsigned n;
        int fd, extra[2];
        char *out = NULL;

        harness_up_with(&d, args, false);
        harness_client_open(&a, d.sock);
        harness_client_open(&b, d.sock);
        f = refusals_get(&a);
        ck_assert_uint_eq(f.connections + f.fds + f.input_bytes + f.frames + f.models + f.buffer_bytes +
                                  f.queued_requests + f.output_bytes + f.cpu_waits + f.cpu_deadline_missed,
                          0);

        /* fds: 16 buffers on a, the 17th refused. */
        ck_assert_uint_eq(register_until_refused(&a, 40, "max_fds_per_connection"), 16);
        /* bytes: 20 x 4 KiB per uid, so b gets 4 more, the 5th refused. */
        for (n = 0; n < 40; n++) {
                fd = sealed_memfd(4096);
                r = register_buffer(&b, fd);
                (void) close(fd);
                if (r->status != ACCELD__STATUS__NONE) {
                        ck_assert_msg(strstr(r->message, "max_registered_bytes_per_uid"), "%s", r->message);
                        harness_resp_free(r);
                        break;
                }
                harness_resp_free(r);
        }
        ck_assert_uint_eq(n, 4);
        /* models: one handle per uid. */
        model = tfb_model_affine(&size);
        ck_assert_ptr_nonnull(model);
        (void) prepare_ok(&a, model, size);
        r = prepare_bytes(&b, model, size, NULL);
        ck_assert_msg(strstr(r->message ? r->message : "", "max_models_per_uid"), "%s", r->message);
        harness_resp_free(r);
        free(model);
        /* connections: a, b and two more; the fifth is answered and closed. */
        extra[0] = harness_connect(d.sock);
        extra[1] = harness_connect(d.sock);
        harness_client_open(&e, d.sock);
        r = status_or_null(&e);
        ck_assert_msg(!r || r->status != ACCELD__STATUS__NONE, "a fifth connection of one uid was served");
        if (r)
                harness_resp_free(r);
        harness_client_close(&e);

        f = refusals_get(&a);
        ck_assert_uint_eq(f.fds, 1);
        ck_assert_uint_eq(f.buffer_bytes, 1);
        ck_assert_uint_eq(f.models, 1);
        ck_assert_uint_eq(f.connections, 1);
        ck_assert_uint_eq(f.input_bytes + f.frames + f.queued_requests + f.output_bytes + f.cpu_waits +
                                  f.cpu_deadline_missed,
                          0);
        (void) close(extra[0]);
        (void) close(extra[1]);

        /* accelctl status --json shows the same counts (its own
         * connection fits again once the extra ones are gone). */
        for (int tries = 0; tries < 50; tries++) {
                const char *argv[] = { harness_accelctl(), "--socket", d.sock, "status", "--json", NULL };
                int st;

                free(out);
                out = NULL;
                st = harness_run(argv, &out);
                if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
                        break;
                usleep(20000);
        }
        ck_assert_msg(out && strstr(out, "\"refusals\""), "accelctl status --json: %s", out ? out : "");
        ck_assert_msg(strstr(out, "\"buffer_bytes\": 1") || strstr(out, "\"buffer_bytes\":1"), "%s", out);
        ck_assert_msg(strstr(out, "\"models\": 1") || strstr(out, "\"models\":1"), "%s", out);
        free(out);
        harness_client_close(&b);
        harness_client_close(&a);
}
END_TEST

/* ---- deadlines ---- */

START_TEST(test_limits_deadline_near_2_64_means_no_deadline) {
        static const uint64_t deadlines[] = { UINT64_MAX, UINT64_MAX / 1000u + 1u, UINT64_MAX - 1000u };
        uint8_t *model, frame[256];
        size_t size, n;
        uint64_t handle;
        client_t c;

        harness_up(&d);
        model = tfb_model_affine(&size);
        ck_assert_ptr_nonnull(model);
        harness_client_open(&c, d.sock);
        handle = prepare_ok(&c, model, size);
        free(model);
        for (size_t i = 0; i < sizeof(deadlines) / sizeof(deadlines[0]); i++) {
                ProtobufCMessage *m = NULL;
                Acceld__Response *r;

                n = pack_execute(frame, sizeof(frame), 500 + i, handle, 4, true, deadlines[i]);
                ck_assert_int_eq(write(c.fd, frame, n), (ssize_t) n);
                ck_assert_int_eq(ipc_recv(c.fd, &c.r, &acceld__response__descriptor, &m), 0);
                r = (Acceld__Response *) m;
                ck_assert_uint_eq(r->request_id, 500 + i);
                ck_assert_msg(r->status == ACCELD__STATUS__NONE, "deadline %" PRIu64 ": %s: %s", deadlines[i],
                              ipc_status_to_string(r->status), r->message);
                harness_resp_free(r);
        }
        harness_client_close(&c);
}
END_TEST

/* ---- the store ---- */

START_TEST(test_limits_named_prepare_on_full_disk_is_an_error) {
        uint8_t *model;
        size_t size;
        client_t c;
        Acceld__Response *r;

        harness_prepare(&d);
        ck_assert_int_eq(mkdir(d.state, 0750), 0);
        /* A mount namespace of this test process (and the acceld it
         * starts), so the mount never outlives the test. */
        if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
            mount("tmpfs", d.state, "tmpfs", MS_NOSUID | MS_NODEV, "size=768k,mode=0750") < 0) {
                fprintf(stderr, "skipped: cannot mount a small tmpfs (%s)\n", strerror(errno));
                return;
        }
        harness_start(&d, NULL, NULL, -1);
        harness_wait_ready(&d, d.sock);
        /* 1 MiB of constants: more than the state directory holds. */
        model = model_big_output(256 * 1024, &size);
        harness_client_open(&c, d.sock);
        r = prepare_bytes(&c, model, size, "too-big");
        ck_assert_msg(r->status != ACCELD__STATUS__NONE, "a named prepare that stored nothing reported success");
        ck_assert_int_eq(r->status, ACCELD__STATUS__RESOURCE_EXHAUSTED_PERSISTENT);
        ck_assert_msg(strstr(r->message, "too-big"), "%s", r->message);
        harness_resp_free(r);
        /* Unnamed, nothing needs storing: it still works. */
        r = prepare_bytes(&c, model, size, NULL);
        ck_assert_msg(r->status == ACCELD__STATUS__NONE, "%s", r->message);
        harness_resp_free(r);
        free(model);
        harness_client_close(&c);
        harness_stop(&d);
        (void) umount2(d.state, MNT_DETACH);
}
END_TEST

START_TEST(test_limits_stale_store_temporary_removed_at_start) {
        char models[400], tmp[600], keep[600];
        struct stat st;
        int fd;

        harness_prepare(&d);
        ck_assert_int_eq(mkdir(d.state, 0750), 0);
        (void) snprintf(models, sizeof(models), "%s/models", d.state);
        ck_assert_int_eq(mkdir(models, 0750), 0);
        (void) snprintf(tmp, sizeof(tmp), "%s/.%064d.tflite.Xy12Zq", models, 0);
        (void) snprintf(keep, sizeof(keep), "%s/notes.txt", models);
        fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0640);
        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(write(fd, "torn", 4), 4);
        (void) close(fd);
        fd = open(keep, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0640);
        ck_assert_int_ge(fd, 0);
        (void) close(fd);

        harness_start(&d, NULL, NULL, -1);
        harness_wait_ready(&d, d.sock);
        for (int i = 0; stat(tmp, &st) == 0; i++) {
                ck_assert_msg(i < 500, "%s is still there", tmp);
                usleep(10000);
        }
        ck_assert_int_eq(errno, ENOENT);
        ck_assert_int_eq(stat(keep, &st), 0);
}
END_TEST

/* ---- logging ---- */

START_TEST(test_limits_repeated_log_lines_are_rate_limited) {
        char path[] = "/tmp/acceld-limits-log-XXXXXX", line[512];
        unsigned lines = 0, suppressed_notes = 0;
        int fd = mkstemp(path), saved = dup(STDERR_FILENO);
        FILE *f;

        ck_assert_int_ge(fd, 0);
        ck_assert_int_ge(saved, 0);
        ck_assert_int_ge(dup2(fd, STDERR_FILENO), 0);
        daemon_log_setup(DAEMON_LOG_TARGET_STDERR, LOG_INFO);
        for (int i = 0; i < 1000; i++)
                log_warning("host restarted (%d)", i);
        /* Another call site is counted on its own. */
        log_warning("a different message");
        fflush(stderr);
        (void) dup2(saved, STDERR_FILENO);
        (void) close(saved);
        f = fdopen(fd, "r");
        ck_assert_ptr_nonnull(f);
        rewind(f);
        while (fgets(line, sizeof(line), f)) {
                if (strstr(line, "host restarted"))
                        lines++;
                if (strstr(line, "suppressed"))
                        suppressed_notes++;
                ck_assert_msg(!strstr(line, "different") || !strstr(line, "suppressed"), "%s", line);
        }
        fclose(f);
        (void) unlink(path);
        ck_assert_uint_ge(lines, 1);
        ck_assert_uint_le(lines, 20);
        ck_assert_uint_eq(suppressed_notes, 0);         /* reported with the next interval's first line */
}
END_TEST

static TCase *limits_case(Suite *s, const char *name) {
        TCase *tc = tcase_create(name);

        tcase_add_checked_fixture(tc, NULL, teardown);
        tcase_set_timeout(tc, 120);
        suite_add_tcase(s, tc);
        return tc;
}

/* One case per resource (CK_RUN_CASE=fds runs just those). */
static Suite *limits_suite(void) {
        Suite *s = suite_create("acceld-limits");
        TCase *tc;

        tc = limits_case(s, "fds");
        tcase_add_test(tc, test_limits_buffers_refused_at_connection_fd_cap);
        tcase_add_test(tc, test_limits_buffers_refused_at_uid_fd_cap);
        tcase_add_test(tc, test_limits_unclaimed_fds_are_closed);
        tcase_add_test(tc, test_limits_queued_fds_count_against_cap);
        tc = limits_case(s, "connections");
        tcase_add_test(tc, test_limits_idle_connections_of_one_uid_leave_root_served);
        tcase_add_test(tc, test_limits_emfile_at_accept_is_answered);
        tc = limits_case(s, "input");
        tcase_add_test(tc, test_limits_half_frames_capped_per_uid);
        tcase_add_test(tc, test_limits_half_frames_capped_globally);
        tcase_add_test(tc, test_limits_huge_repeated_count_request_refused_cheaply);
        tcase_add_test(tc, test_limits_big_frame_decoded_and_answered);
        tc = limits_case(s, "replies");
        tcase_add_test(tc, test_limits_reply_queue_overflow_closes_connection);
        tc = limits_case(s, "models");
        tcase_add_test(tc, test_limits_model_bytes_per_uid);
        tcase_add_test(tc, test_limits_deadline_near_2_64_means_no_deadline);
        tc = limits_case(s, "refusals");
        tcase_add_test(tc, test_limits_refusals_are_counted);
        tc = limits_case(s, "store");
        tcase_add_test(tc, test_limits_named_prepare_on_full_disk_is_an_error);
        tcase_add_test(tc, test_limits_stale_store_temporary_removed_at_start);
        tc = limits_case(s, "log");
        tcase_add_test(tc, test_limits_repeated_log_lines_are_rate_limited);
        return s;
}

int main(int argc, char **argv) {
        SRunner *sr;
        int failed;

        harness_init(argc, argv);
        sr = srunner_create(limits_suite());
        srunner_run_all(sr, CK_NORMAL);
        failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
