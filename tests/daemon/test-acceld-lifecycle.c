/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Integration: acceld's life: start-up (state dir, stale socket, config
 * file and flags, socket activation), sd_notify, and SIGTERM/SIGINT.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <check.h>

#include "clock.h"
#include "accel/accel.h"
#include "harness.h"

static harness_daemon_t d;

static void setup(void) {
        harness_prepare(&d);
}

static void teardown(void) {
        harness_cleanup(&d);
}

static void assert_exit_code(int status, int code) {
        ck_assert_msg(status != -1, "acceld did not exit in time");
        ck_assert_msg(WIFEXITED(status), "acceld died from signal %d",
                      WIFSIGNALED(status) ? WTERMSIG(status) : 0);
        ck_assert_int_eq(WEXITSTATUS(status), code);
}

static accel_hello_t *hello(const char *path) {
        accel_client_t *c = NULL;
        accel_hello_t *h = NULL;

        ck_assert_msg(accel_connect(path, &c) == 0, "%s", accel_last_error());
        ck_assert_msg(accel_hello(c, NULL, &h) == 0, "%s", accel_last_error());
        (void) accel_disconnect(c);
        return h;
}

START_TEST(test_sigterm_exits_zero_and_removes_socket) {
        accel_client_t *idle = NULL;
        struct stat st;

        harness_start(&d, NULL, NULL, -1);
        harness_wait_ready(&d, d.sock);
        /* an idle client must not hold up the shutdown */
        ck_assert_int_eq(accel_connect(d.sock, &idle), 0);
        assert_exit_code(harness_signal_and_wait(&d, SIGTERM), 0);
        ck_assert_int_eq(lstat(d.sock, &st), -1);
        ck_assert_int_eq(errno, ENOENT);
        (void) accel_disconnect(idle);
}
END_TEST

START_TEST(test_sigint_exits_zero) {
        harness_start(&d, NULL, NULL, -1);
        harness_wait_ready(&d, d.sock);
        assert_exit_code(harness_signal_and_wait(&d, SIGINT), 0);
}
END_TEST

START_TEST(test_state_dir_is_created_0700) {
        struct stat st;

        harness_start(&d, NULL, NULL, -1);
        harness_wait_ready(&d, d.sock);
        ck_assert_int_eq(stat(d.state, &st), 0);
        ck_assert(S_ISDIR(st.st_mode));
        ck_assert_int_eq(st.st_mode & 07777, 0700); /* acceld's alone (issue 21) */
}
END_TEST

START_TEST(test_stale_socket_is_replaced) {
        accel_hello_t *h;
        int fd = harness_listen(d.sock);

        /* a socket file nobody listens on any more */
        (void) close(fd);
        harness_start(&d, NULL, NULL, -1);
        harness_wait_ready(&d, d.sock);
        h = hello(d.sock);
        ck_assert_uint_eq(h->protocol_version, ACCEL_PROTOCOL_VERSION);
        (void) accel_hello_free(h);
}
END_TEST

START_TEST(test_second_daemon_on_live_socket_fails) {
        harness_daemon_t second = d;

        harness_start(&d, NULL, NULL, -1);
        harness_wait_ready(&d, d.sock);
        second.pid = 0;
        harness_start(&second, NULL, NULL, -1);
        assert_exit_code(harness_wait_exit(&second), 1);
        /* the first one is untouched */
        accel_hello_free(hello(d.sock));
}
END_TEST

static void write_file(const char *path, const char *text) {
        FILE *f = fopen(path, "we");

        ck_assert_ptr_nonnull(f);
        ck_assert_int_ge(fputs(text, f), 0);
        ck_assert_int_eq(fclose(f), 0);
}

START_TEST(test_config_file_value_used_and_flag_overrides) {
        char conf[400];
        accel_hello_t *h;

        (void) snprintf(conf, sizeof(conf), "%s/acceld.conf", d.dir);
        write_file(conf, "[acceld]\nmax_frame_bytes = 8K\nmax_connections = 7\nmax_in_flight = 3\n");
        const char *args[] = { "--config", conf, "--max-connections", "5", NULL };
        harness_start(&d, args, NULL, -1);
        harness_wait_ready(&d, d.sock);
        h = hello(d.sock);
        ck_assert_uint_eq(h->limits.max_frame_bytes, 8192);            /* from the file */
        ck_assert_uint_eq(h->limits.max_in_flight_per_connection, 3);  /* from the file */
        ck_assert_uint_eq(h->limits.max_connections, 5);               /* the flag wins */
        (void) accel_hello_free(h);
}
END_TEST

START_TEST(test_bad_config_file_exits_two) {
        char conf[400];

        (void) snprintf(conf, sizeof(conf), "%s/acceld.conf", d.dir);
        write_file(conf, "[acceld]\nmax_frame_bytes = 12\n");
        const char *args[] = { "--config", conf, NULL };
        harness_start(&d, args, NULL, -1);
        assert_exit_code(harness_wait_exit(&d), 2);
}
END_TEST

START_TEST(test_socket_activation_uses_passed_fd) {
        char activated[400];
        accel_client_t *c = NULL;
        accel_daemon_status_t *s = NULL;
        struct stat st;
        int fd;

        (void) snprintf(activated, sizeof(activated), "%s/activated.sock", d.dir);
        fd = harness_listen(activated);
        harness_start(&d, NULL, NULL, fd);
        (void) close(fd);
        harness_wait_ready(&d, activated);

        ck_assert_int_eq(accel_connect(activated, &c), 0);
        ck_assert_msg(accel_get_status(c, &s) == 0, "%s", accel_last_error());
        ck_assert_str_eq(s->socket_path, activated);
        ck_assert_uint_eq(s->pid, (uint32_t) d.pid);
        (void) accel_daemon_status_free(s);
        (void) accel_disconnect(c);
        /* --socket is ignored under activation */
        ck_assert_int_eq(lstat(d.sock, &st), -1);

        assert_exit_code(harness_signal_and_wait(&d, SIGTERM), 0);
        /* the socket belongs to the service manager: not unlinked */
        ck_assert_int_eq(lstat(activated, &st), 0);
}
END_TEST

/* Receive datagrams until one has the line `want`, for up to ms. */
static bool notify_wait_for(int fd, const char *want, int ms) {
        uint64_t start = acc_now_us();

        for (;;) {
                struct pollfd p = { .fd = fd, .events = POLLIN };
                char buf[4096];
                long left;
                ssize_t n;

                left = ms - (long) ((acc_now_us() - start) / 1000u);
                if (left <= 0 || poll(&p, 1, (int) left) <= 0)
                        return false;
                n = recv(fd, buf, sizeof(buf) - 1, 0);
                if (n <= 0)
                        continue;
                buf[n] = '\0';
                for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n"))
                        if (strcmp(line, want) == 0)
                                return true;
        }
}

START_TEST(test_sd_notify_ready_watchdog_stopping) {
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        char env_notify[400];
        int fd;

        ck_assert_int_lt(snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/notify.sock", d.dir),
                         (int) sizeof(sa.sun_path));
        fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(bind(fd, (struct sockaddr *) &sa, sizeof(sa)), 0);
        (void) snprintf(env_notify, sizeof(env_notify), "NOTIFY_SOCKET=%s", sa.sun_path);

        /* 200 ms watchdog: acceld must ping every 100 ms */
        const char *env[] = { env_notify, "WATCHDOG_USEC=200000", NULL };
        harness_start(&d, NULL, env, -1);
        ck_assert_msg(notify_wait_for(fd, "READY=1", 10000), "no READY=1");
        /* READY is sent once listening: a client gets through at once */
        accel_hello_free(hello(d.sock));
        ck_assert_msg(notify_wait_for(fd, "WATCHDOG=1", 5000), "no WATCHDOG=1");

        ck_assert_int_eq(kill(d.pid, SIGTERM), 0);
        ck_assert_msg(notify_wait_for(fd, "STOPPING=1", 10000), "no STOPPING=1");
        assert_exit_code(harness_wait_exit(&d), 0);
        (void) close(fd);
}
END_TEST

/* A client that never reads its replies cannot keep acceld alive past
 * shutdown_timeout_ms. */
START_TEST(test_sigterm_cuts_stuck_client_after_timeout) {
        enum { N = 4000 };
        const char *args[] = { "--max-output-bytes", "64K", "--shutdown-timeout-ms", "200", NULL };
        static const uint8_t caps_frame[] = { 5, 0, 0, 0, 0x08, 0x01, 0x8a, 0x01, 0x00 };
        uint8_t *buf = malloc(N * sizeof(caps_frame));
        accel_client_t *c = NULL;
        accel_daemon_status_t *s = NULL;
        int fd;

        ck_assert_ptr_nonnull(buf);
        harness_start(&d, args, NULL, -1);
        harness_wait_ready(&d, d.sock);
        fd = harness_connect(d.sock);
        ck_assert_int_ge(fd, 0);
        /* request_id 1, get_capabilities (field 17) = {}: ~1 KiB replies,
         * far more than the socket buffer and max_output_bytes */
        for (size_t i = 0; i < N; i++)
                memcpy(buf + i * sizeof(caps_frame), caps_frame, sizeof(caps_frame));
        for (size_t off = 0; off < N * sizeof(caps_frame);) {
                ssize_t n = write(fd, buf + off, N * sizeof(caps_frame) - off);

                ck_assert_int_gt(n, 0);
                off += (size_t) n;
        }
        free(buf);

        /* acceld is still serving others while that client is stuck */
        ck_assert_int_eq(accel_connect(d.sock, &c), 0);
        ck_assert_msg(accel_get_status(c, &s) == 0, "%s", accel_last_error());
        ck_assert_uint_gt(s->requests_served, 0);
        ck_assert_uint_lt(s->requests_served, N);
        (void) accel_daemon_status_free(s);
        (void) accel_disconnect(c);

        assert_exit_code(harness_signal_and_wait(&d, SIGTERM), 0);
        (void) close(fd);
}
END_TEST

static Suite *lifecycle_suite(void) {
        Suite *s = suite_create("acceld-lifecycle");
        TCase *tc = tcase_create("lifecycle");

        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_set_timeout(tc, 60);
        tcase_add_test(tc, test_sigterm_exits_zero_and_removes_socket);
        tcase_add_test(tc, test_sigint_exits_zero);
        tcase_add_test(tc, test_state_dir_is_created_0700);
        tcase_add_test(tc, test_stale_socket_is_replaced);
        tcase_add_test(tc, test_second_daemon_on_live_socket_fails);
        tcase_add_test(tc, test_config_file_value_used_and_flag_overrides);
        tcase_add_test(tc, test_bad_config_file_exits_two);
        tcase_add_test(tc, test_socket_activation_uses_passed_fd);
        tcase_add_test(tc, test_sd_notify_ready_watchdog_stopping);
        tcase_add_test(tc, test_sigterm_cuts_stuck_client_after_timeout);
        suite_add_tcase(s, tc);
        return s;
}

int main(int argc, char **argv) {
        SRunner *sr;
        int failed;

        harness_init(argc, argv);
        sr = srunner_create(lifecycle_suite());
        srunner_run_all(sr, CK_NORMAL);
        failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
