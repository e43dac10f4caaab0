/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Integration: lanes (daemon/serving/lane.h) on drivers in driver hosts and
 * on buffers acceld allocates, against the real acceld and the faulty
 * plugin. A lane gives the socket path's bytes on both; a host killed or
 * stopped in the middle of a lane's execution costs that invoke alone (a
 * clear DEAD_OBJECT, acceld keeps its pid, other clients are served) and
 * the same interpreter's next invoke runs, over its lane, on the new host;
 * a host hung past the invoke's deadline is MISSED_DEADLINE as over the
 * socket; a client killed while its lane hangs in a host leaves no lane
 * behind; SIGTERM ends acceld with a lane inside a hung host.
 * argv: acceld, accelctl, the faulty plugin (its folder becomes
 * ACCELD_PLUGIN_DIR).
 */
#include <check.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "accel/accel.h"
#include "harness-faulty.h"

#define XNNPACK "{\"delegate\":\"XNNPACK\"}"
/* The faulty driver, taking delay_ms per execute: long enough to kill
 * or stop its host in the middle. */
#define SLOW "{\"delegate\":\"faulty\",\"plugin_settings\":{\"mode\":\"slow\",\"delay_ms\":400}}"

static harness_daemon_t d;
static char *model_path;

static void up(const char *config) {
        harness_faulty_up(&d, config);
        model_path = harness_faulty_add_model(&d);
}

static void down(void) {
        free(model_path);
        model_path = NULL;
        harness_cleanup(&d);
}

static void msleep(unsigned ms) {
        (void) nanosleep(&(struct timespec) { .tv_sec = ms / 1000, .tv_nsec = (long) (ms % 1000) * 1000000L }, NULL);
}

/* An interpreter on the ADD model with its tensors allocated: over a lane
 * when `lane` (and acceld agrees), in a buffer acceld allocates when
 * `daemon_buffer`. */
static accel_interp_t *interp_open(const char *settings, bool lane, bool daemon_buffer, uint32_t deadline_ms) {
        accel_model_t *m = NULL;
        accel_interp_options_t *o = accel_interp_options_create();
        accel_interp_t *it = NULL;

        ck_assert_int_eq(accel_model_create_from_file(model_path, &m), 0);
        ck_assert_int_eq(accel_interp_options_set_socket(o, d.sock), 0);
        ck_assert_int_eq(accel_interp_options_set_settings_json(o, settings), 0);
        ck_assert_int_eq(accel_interp_options_set_lane(o, lane), 0);
        ck_assert_int_eq(accel_interp_options_set_daemon_buffer(o, daemon_buffer), 0);
        if (deadline_ms)
                ck_assert_int_eq(accel_interp_options_set_deadline_ms(o, deadline_ms), 0);
        ck_assert_msg(accel_interp_create(m, o, &it) == 0, "%s", accel_last_error());
        (void) accel_interp_options_delete(o);
        (void) accel_model_delete(m);
        ck_assert_msg(accel_interp_allocate_tensors(it) == 0, "%s", accel_last_error());
        return it;
}

/* One invoke on a and b; y copied out on success. Returns the status and
 * (ret_msg, when given) a copy of the error (caller frees). */
static accel_status_t invoke_ab(accel_interp_t *it, const float a[4], const float b[4], float y[4], char **ret_msg) {
        int r;

        memcpy(accel_tensor_data(accel_interp_input_tensor(it, 0)), a, 4 * sizeof(float));
        memcpy(accel_tensor_data(accel_interp_input_tensor(it, 1)), b, 4 * sizeof(float));
        r = accel_interp_invoke(it);
        if (r == 0)
                memcpy(y, accel_tensor_data(accel_interp_output_tensor(it, 0)), 4 * sizeof(float));
        if (ret_msg)
                *ret_msg = strdup(r == 0 ? "" : accel_last_error());
        return r == 0 ? ACCEL_STATUS_NONE : accel_last_status();
}

/* Inputs of run k: different every time, so a stale output is noticed. */
static void inputs_of(int k, float a[4], float b[4]) {
        for (int i = 0; i < 4; i++) {
                a[i] = (float) (k * 7 + i) * 0.25f - 3.0f;
                b[i] = (float) (k * 13 - i) * 1.5f + 0.125f;
        }
}

static void expect_sum(accel_interp_t *it, int k) {
        float a[4], b[4], y[4];
        char *msg = NULL;
        accel_status_t st;

        inputs_of(k, a, b);
        st = invoke_ab(it, a, b, y, &msg);
        ck_assert_msg(st == ACCEL_STATUS_NONE, "run %d: status %d: %s", k, st, msg);
        for (int i = 0; i < 4; i++)
                ck_assert_float_eq(y[i], a[i] + b[i]);
        free(msg);
}

typedef struct counts {
        uint32_t lanes;
        uint64_t lane_executions, executions;
        uint32_t running, host_pid, host_deaths;
} counts_t;

/* GetStatus: lanes, executions and the `driver`'s host. */
static counts_t counts_get(const char *driver) {
        accel_client_t *c = NULL;
        accel_daemon_status_t *st = NULL;
        counts_t n = { 0 };

        ck_assert_int_eq(accel_connect(d.sock, &c), 0);
        ck_assert_msg(accel_get_status(c, &st) == 0, "%s", accel_last_error());
        n.lanes = st->lanes.open;
        n.lane_executions = st->lanes.executions;
        n.executions = st->serving.executions;
        n.running = st->serving.running_requests;
        for (size_t i = 0; i < st->n_driver_hosts; i++)
                if (strcmp(st->driver_hosts[i].driver, driver) == 0) {
                        n.host_pid = st->driver_hosts[i].pid;
                        n.host_deaths = st->driver_hosts[i].deaths;
                }
        (void) accel_daemon_status_free(st);
        (void) accel_disconnect(c);
        return n;
}

static bool daemon_alive(pid_t pid) {
        return kill(pid, 0) == 0 && waitpid(pid, NULL, WNOHANG) == 0;
}

/*
 * The same inputs through a lane and through the socket, on the faulty
 * driver in its host and on XNNPACK, in the client's buffer and in one
 * acceld allocates: byte-identical outputs, and the lane's executions
 * counted as lane executions.
 */
START_TEST(test_lane_hosts_match_socket) {
        static const char *const settings[] = { FAULTY("none"), XNNPACK };

        up("max_execution_ms = 5000\n");
        for (size_t s = 0; s < 2; s++)
                for (int db = 0; db < 2; db++) {
                        accel_interp_t *ln = interp_open(settings[s], true, db, 0);
                        accel_interp_t *so = interp_open(settings[s], false, db, 0);
                        counts_t before = counts_get("faulty"), after;

                        ck_assert_msg(accel_interp_uses_lane(ln), "%s, daemon buffer %d: no lane", settings[s], db);
                        ck_assert(!accel_interp_uses_lane(so));
                        for (int k = 0; k < 20; k++) {
                                float a[4], b[4], y_lane[4], y_socket[4];

                                inputs_of(k, a, b);
                                ck_assert_int_eq(invoke_ab(ln, a, b, y_lane, NULL), ACCEL_STATUS_NONE);
                                ck_assert_int_eq(invoke_ab(so, a, b, y_socket, NULL), ACCEL_STATUS_NONE);
                                ck_assert_msg(memcmp(y_lane, y_socket, sizeof(y_lane)) == 0,
                                              "%s, daemon buffer %d: run %d differs", settings[s], db, k);
                                for (int i = 0; i < 4; i++)
                                        ck_assert_float_eq(y_lane[i], a[i] + b[i]);
                        }
                        after = counts_get("faulty");
                        ck_assert_uint_eq(after.lanes, 1);
                        ck_assert_uint_eq(after.lane_executions - before.lane_executions, 20);
                        ck_assert_uint_eq(after.executions - before.executions, 40);
                        (void) accel_interp_delete(ln);
                        (void) accel_interp_delete(so);
                }
        ck_assert_uint_eq(counts_get("faulty").host_deaths, 0);
        down();
}
END_TEST

/* Wait (up to 10 s) for no lane to be open. */
static void lanes_gone(void) {
        for (int i = 0; i < 1000; i++) {
                if (counts_get("faulty").lanes == 0)
                        return;
                msleep(10);
        }
        ck_abort_msg("%u lanes still open", counts_get("faulty").lanes);
}

typedef struct invoker {
        accel_interp_t *it;
        int k;
        accel_status_t st;
        char *msg;
        float y[4];
} invoker_t;

static void *invoker_main(void *arg) {
        invoker_t *v = arg;
        float a[4], b[4];

        inputs_of(v->k, a, b);
        v->st = invoke_ab(v->it, a, b, v->y, &v->msg);
        return NULL;
}

/* Wait (up to 5 s) for an execution to be running in acceld: the lane's
 * invoke is inside the host. Returns the host's pid. */
static pid_t host_busy(const char *driver) {
        counts_t n = { 0 };

        for (int i = 0; i < 500; i++) {
                n = counts_get(driver);
                if (n.running > 0 && n.host_pid > 0)
                        return (pid_t) n.host_pid;
                msleep(10);
        }
        ck_abort_msg("no execution started on the %s host (running %u, host pid %u, %u lanes, %" PRIu64
                     " lane executions)", driver, n.running, n.host_pid, n.lanes, n.lane_executions);
        return 0;
}

/*
 * The faulty driver's host killed (SIGKILL), or stopped (SIGSTOP: hung
 * past max_execution_ms), while a lane's execution is inside it, in the
 * client's buffer and in acceld's: that invoke fails with DEAD_OBJECT
 * naming the driver and how its host ended, acceld keeps its pid and
 * serves a socket client meanwhile, the lane stays, and the same
 * interpreter's next invokes run over it on the restarted host, which
 * outlives the lane whose thread started it.
 */
static void killed_mid_lane(int sig, const char *needle) {
        pid_t pid = d.pid;

        for (int db = 0; db < 2; db++) {
                accel_interp_t *ln = interp_open(SLOW, true, db, 0);
                accel_interp_t *other = interp_open(XNNPACK, false, false, 0);
                /* Prepared now: after a second death the model is
                 * quarantined for new prepares on this driver. */
                accel_interp_t *so = interp_open(SLOW, false, db, 0);
                invoker_t v = { .it = ln, .k = 1 };
                counts_t before, after, last;
                pthread_t t;
                pid_t host;

                ck_assert(accel_interp_uses_lane(ln));
                expect_sum(ln, 0);
                before = counts_get("faulty");
                ck_assert_int_eq(pthread_create(&t, NULL, invoker_main, &v), 0);
                host = host_busy("faulty");
                ck_assert_int_eq(kill(host, sig), 0);
                /* Another client is served while the host is gone or stuck. */
                expect_sum(other, 2);
                ck_assert_int_eq(pthread_join(t, NULL), 0);
                ck_assert_msg(v.st == ACCEL_STATUS_DEAD_OBJECT, "status %d: %s", v.st, v.msg);
                ck_assert_msg(strstr(v.msg, "faulty") && strstr(v.msg, needle), "message: %s", v.msg);
                free(v.msg);
                ck_assert(daemon_alive(pid));
                ck_assert_int_eq(d.pid, pid);
                after = counts_get("faulty");
                ck_assert_uint_eq(after.host_deaths, before.host_deaths + 1);

                /* The lane is still there and serves the next invokes. */
                ck_assert(accel_interp_uses_lane(ln));
                expect_sum(ln, 3);
                expect_sum(ln, 4);
                after = counts_get("faulty");
                ck_assert_uint_eq(after.lane_executions - before.lane_executions, 2);
                ck_assert_uint_ne(after.host_pid, (uint32_t) host);

                /* The lane's thread started the new host; the host outlives
                 * the lane (and its thread) and serves the socket next. */
                (void) accel_interp_delete(ln);
                lanes_gone();
                expect_sum(so, 5);
                last = counts_get("faulty");
                ck_assert_msg(last.host_deaths == after.host_deaths && last.host_pid == after.host_pid,
                              "the host (pid %u) died with its lane: deaths %u -> %u, pid now %u", after.host_pid,
                              after.host_deaths, last.host_deaths, last.host_pid);
                (void) accel_interp_delete(so);
                (void) accel_interp_delete(other);
        }
}

START_TEST(test_lane_hosts_host_killed_mid_invoke) {
        up("max_execution_ms = 5000\n");
        killed_mid_lane(SIGKILL, "signal 9");
        down();
}
END_TEST

START_TEST(test_lane_hosts_host_hung_mid_invoke) {
        up("max_execution_ms = 700\n");
        killed_mid_lane(SIGSTOP, "killed after 700 ms");
        down();
}
END_TEST

/*
 * A deadline sooner than max_execution_ms bounds a lane's call into a hung
 * host as it bounds a socket request's: MISSED_DEADLINE_TRANSIENT for
 * both; the daemon answers meanwhile, and a lane on
 * the same driver works once the stuck host has been replaced.
 */
START_TEST(test_lane_hosts_hang_with_deadline) {
        accel_interp_t *ln, *so, *ok;
        char *msg = NULL;
        float a[4], b[4], y[4];
        accel_status_t st;

        up("max_execution_ms = 1500\n");
        ln = interp_open(FAULTY("hang"), true, false, 300);
        so = interp_open(FAULTY("hang"), false, false, 300);
        ck_assert(accel_interp_uses_lane(ln));
        inputs_of(0, a, b);
        /* Not DEAD_OBJECT: the deadline ended the wait, not the kill at
         * max_execution_ms. */
        st = invoke_ab(ln, a, b, y, &msg);
        ck_assert_msg(st == ACCEL_STATUS_MISSED_DEADLINE_TRANSIENT, "lane: status %d: %s", st, msg);
        free(msg);
        st = invoke_ab(so, a, b, y, &msg);
        ck_assert_msg(st == ACCEL_STATUS_MISSED_DEADLINE_TRANSIENT, "socket: status %d: %s", st, msg);
        free(msg);
        ck_assert(daemon_alive(d.pid));
        (void) accel_interp_delete(ln);
        (void) accel_interp_delete(so);
        ok = interp_open(FAULTY("none"), true, false, 0);
        ck_assert(accel_interp_uses_lane(ok));
        expect_sum(ok, 5);
        (void) accel_interp_delete(ok);
        down();
}
END_TEST

/* A host that crashes in every execute, with FallbackSettings allowing
 * it: a lane's invoke falls back to the CPU inside acceld, as a socket
 * request does, with the same bytes. */
START_TEST(test_lane_hosts_crash_falls_back) {
        static const char settings[] = "{\"delegate\":\"faulty\",\"plugin_settings\":{\"mode\":\"crash-in-execute\"},"
                                       "\"fallback_settings\":{\"allow_automatic_fallback_on_execution_error\":true}}";
        accel_interp_t *ln, *so;
        counts_t before, after;

        up("max_execution_ms = 5000\n");
        ln = interp_open(settings, true, false, 0);
        so = interp_open(settings, false, false, 0);
        ck_assert(accel_interp_uses_lane(ln));
        before = counts_get("faulty");
        for (int k = 0; k < 3; k++) {
                float a[4], b[4], y_lane[4], y_socket[4];
                char *msg = NULL;
                accel_status_t st;

                inputs_of(k, a, b);
                st = invoke_ab(ln, a, b, y_lane, &msg);
                ck_assert_msg(st == ACCEL_STATUS_NONE, "lane run %d: status %d: %s", k, st, msg);
                free(msg);
                ck_assert_int_eq(invoke_ab(so, a, b, y_socket, NULL), ACCEL_STATUS_NONE);
                ck_assert_int_eq(memcmp(y_lane, y_socket, sizeof(y_lane)), 0);
                for (int i = 0; i < 4; i++)
                        ck_assert_float_eq(y_lane[i], a[i] + b[i]);
        }
        after = counts_get("faulty");
        ck_assert_uint_eq(after.lane_executions - before.lane_executions, 3);
        ck_assert(daemon_alive(d.pid));
        (void) accel_interp_delete(ln);
        (void) accel_interp_delete(so);
        down();
}
END_TEST

/*
 * A client killed while its lane's execution hangs in a host: the lane
 * thread is inside the driver call and cannot stop; the host is killed at
 * max_execution_ms, the thread then returns and is joined (the lane is
 * gone), and the slot it held serves the next client over its own lane.
 */
START_TEST(test_lane_hosts_client_killed_during_hang) {
        int pipefd[2], status;
        accel_interp_t *ok;
        pid_t kid;
        char c;

        up("max_execution_ms = 700\n");
        ck_assert_int_eq(pipe(pipefd), 0);
        kid = fork();
        ck_assert_int_ge(kid, 0);
        if (kid == 0) {
                accel_interp_t *it = interp_open(FAULTY("hang"), true, false, 0);
                float a[4], b[4], y[4];

                if (!accel_interp_uses_lane(it))
                        _exit(3);
                (void) !write(pipefd[1], "x", 1);
                inputs_of(0, a, b);
                (void) invoke_ab(it, a, b, y, NULL);
                _exit(4);
        }
        ck_assert_int_eq(read(pipefd[0], &c, 1), 1);
        (void) host_busy("faulty");
        ck_assert_int_eq(kill(kid, SIGKILL), 0);
        ck_assert_int_eq(waitpid(kid, &status, 0), kid);
        ck_assert(WIFSIGNALED(status));
        lanes_gone();
        ck_assert_uint_eq(counts_get("faulty").running, 0);
        ck_assert(daemon_alive(d.pid));
        ok = interp_open(FAULTY("none"), true, false, 0);
        ck_assert(accel_interp_uses_lane(ok));
        expect_sum(ok, 6);
        ck_assert_uint_eq(counts_get("faulty").host_deaths, 1);
        (void) accel_interp_delete(ok);
        (void) close(pipefd[0]);
        (void) close(pipefd[1]);
        down();
}
END_TEST

/* isolate_drivers = all: XNNPACK in its host, over a lane, in either
 * buffer, gives the socket's bytes. */
START_TEST(test_lane_hosts_xnnpack_isolated) {
        up("isolate_drivers = all\n");
        for (int db = 0; db < 2; db++) {
                accel_interp_t *ln = interp_open(XNNPACK, true, db, 0);
                accel_interp_t *so = interp_open(XNNPACK, false, db, 0);
                counts_t before = counts_get("xnnpack"), after;

                ck_assert(accel_interp_uses_lane(ln));
                ck_assert_uint_gt(before.host_pid, 0);
                for (int k = 0; k < 10; k++) {
                        float a[4], b[4], y_lane[4], y_socket[4];

                        inputs_of(k, a, b);
                        ck_assert_int_eq(invoke_ab(ln, a, b, y_lane, NULL), ACCEL_STATUS_NONE);
                        ck_assert_int_eq(invoke_ab(so, a, b, y_socket, NULL), ACCEL_STATUS_NONE);
                        ck_assert_int_eq(memcmp(y_lane, y_socket, sizeof(y_lane)), 0);
                }
                after = counts_get("xnnpack");
                ck_assert_uint_eq(after.lane_executions - before.lane_executions, 10);
                ck_assert_uint_eq(after.host_deaths, 0);
                (void) accel_interp_delete(ln);
                (void) accel_interp_delete(so);
        }
        down();
}
END_TEST

/* SIGTERM while a lane's execution hangs in a host: acceld exits 0 (the
 * hosts are killed first, the lane thread returns and is joined), and the
 * client's invoke fails instead of waiting forever. */
START_TEST(test_lane_hosts_sigterm_with_hung_host) {
        invoker_t v = { .k = 0 };
        pthread_t t;
        int st;

        up("max_execution_ms = 600000\nshutdown_timeout_ms = 1000\n");
        v.it = interp_open(FAULTY("hang"), true, false, 0);
        ck_assert(accel_interp_uses_lane(v.it));
        ck_assert_int_eq(pthread_create(&t, NULL, invoker_main, &v), 0);
        (void) host_busy("faulty");
        st = harness_signal_and_wait(&d, SIGTERM);
        ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "acceld ended with status 0x%x", st);
        d.pid = 0;
        ck_assert_int_eq(pthread_join(t, NULL), 0);
        /* Failed (with acceld's status, or locally - status NONE - when
         * the connection went first): invoke_ab() leaves "" on success. */
        ck_assert_msg(v.msg && v.msg[0], "the invoke inside the hung host succeeded (status %d)", v.st);
        free(v.msg);
        (void) accel_interp_delete(v.it);
        down();
}
END_TEST

int main(int argc, char **argv) {
        Suite *s = suite_create("acceld-lane-hosts");
        TCase *tc = tcase_create("lane-hosts");
        SRunner *sr;
        int failed;

        harness_init(argc, argv);
        if (!harness_faulty_init(argc, argv))
                return 77;
        tcase_set_timeout(tc, 120);
        tcase_add_test(tc, test_lane_hosts_match_socket);
        tcase_add_test(tc, test_lane_hosts_host_killed_mid_invoke);
        tcase_add_test(tc, test_lane_hosts_host_hung_mid_invoke);
        tcase_add_test(tc, test_lane_hosts_hang_with_deadline);
        tcase_add_test(tc, test_lane_hosts_crash_falls_back);
        tcase_add_test(tc, test_lane_hosts_client_killed_during_hang);
        tcase_add_test(tc, test_lane_hosts_xnnpack_isolated);
        tcase_add_test(tc, test_lane_hosts_sigterm_with_hung_host);
        suite_add_tcase(s, tc);
        sr = srunner_create(s);
        srunner_run_all(sr, CK_NORMAL);
        failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed ? 1 : 0;
}
