/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Driver hosts against the real acceld and the faulty plugin: a plugin
 * that crashes or hangs costs only its own requests (DEAD_OBJECT, or the
 * CPU path when FallbackSettings allow it); acceld keeps its pid, other
 * clients keep being served, the host comes back, and SIGTERM stays
 * bounded with a hung host.
 * argv: acceld, accelctl, the faulty plugin (its folder becomes
 * ACCELD_PLUGIN_DIR).
 */
#include <check.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "accel/accel.h"
#include "harness-faulty.h"

static harness_daemon_t d;
static char *model_path;
static bool inline_tensors;     /* run_once*(): tensors in the frames */

#define XNNPACK "{\"delegate\":\"XNNPACK\"}"

static void up(const char *config) {
        harness_faulty_up(&d, config);
        model_path = harness_faulty_add_model(&d);
}

static void down(void) {
        free(model_path);
        model_path = NULL;
        harness_cleanup(&d);
}

/*
 * Prepare the ADD model with `settings` and run it once on a = {1,2,3,4},
 * b = {10,20,30,40}. Returns the status; *ret_msg gets a copy of the error
 * text (caller frees). y is checked when the run succeeds.
 */
static accel_status_t run_once_deadline(const char *settings, uint32_t deadline_ms, char **ret_msg) {
        static const float a[4] = { 1, 2, 3, 4 }, b[4] = { 10, 20, 30, 40 };
        accel_model_t *m = NULL;
        accel_interp_options_t *o = accel_interp_options_create();
        accel_interp_t *it = NULL;
        accel_status_t st = ACCEL_STATUS_NONE;
        int r;

        ck_assert_int_eq(accel_model_create_from_file(model_path, &m), 0);
        ck_assert_int_eq(accel_interp_options_set_socket(o, d.sock), 0);
        ck_assert_int_eq(accel_interp_options_set_settings_json(o, settings), 0);
        if (deadline_ms)
                ck_assert_int_eq(accel_interp_options_set_deadline_ms(o, deadline_ms), 0);
        ck_assert_int_eq(accel_interp_options_set_inline_tensors(o, inline_tensors), 0);
        r = accel_interp_create(m, o, &it);
        if (r == 0)
                r = accel_interp_allocate_tensors(it);
        if (r == 0) {
                memcpy(accel_tensor_data(accel_interp_input_tensor(it, 0)), a, sizeof(a));
                memcpy(accel_tensor_data(accel_interp_input_tensor(it, 1)), b, sizeof(b));
                r = accel_interp_invoke(it);
        }
        if (r == 0) {
                const float *y = accel_tensor_data(accel_interp_output_tensor(it, 0));
                for (int i = 0; i < 4; i++)
                        ck_assert_float_eq(y[i], a[i] + b[i]);
        } else
                st = accel_last_status();
        if (ret_msg)
                *ret_msg = strdup(r == 0 ? "" : accel_last_error());
        (void) accel_interp_delete(it);
        (void) accel_interp_options_delete(o);
        (void) accel_model_delete(m);
        return st;
}

static accel_status_t run_once(const char *settings, char **ret_msg) {
        return run_once_deadline(settings, 0, ret_msg);
}

static void expect_dead(const char *settings, const char *needle) {
        char *msg = NULL;
        accel_status_t st = run_once(settings, &msg);

        ck_assert_msg(st == ACCEL_STATUS_DEAD_OBJECT, "status %d: %s", st, msg);
        ck_assert_msg(strstr(msg, "faulty") && strstr(msg, needle), "message: %s", msg);
        free(msg);
}

static void expect_quarantined(const char *settings) {
        char *msg = NULL;
        accel_status_t st = run_once(settings, &msg);

        ck_assert_msg(st == ACCEL_STATUS_DEVICE_UNAVAILABLE, "status %d: %s", st, msg);
        ck_assert_msg(strstr(msg, "quarantined") != NULL, "message: %s", msg);
        free(msg);
}

static void expect_ok(const char *settings) {
        char *msg = NULL;
        accel_status_t st = run_once(settings, &msg);

        ck_assert_msg(st == ACCEL_STATUS_NONE, "status %d: %s", st, msg);
        free(msg);
}

/* GetStatus counts the faulty host's starts and deaths. */
static void host_counts_check(unsigned starts, unsigned deaths, const char *last) {
        accel_client_t *c = NULL;
        accel_daemon_status_t *st = NULL;
        bool found = false;

        ck_assert_int_eq(accel_connect(d.sock, &c), 0);
        ck_assert_msg(accel_get_status(c, &st) == 0, "%s", accel_last_error());
        for (size_t i = 0; i < st->n_driver_hosts; i++) {
                if (strcmp(st->driver_hosts[i].driver, "faulty") != 0)
                        continue;
                found = true;
                ck_assert_uint_eq(st->driver_hosts[i].starts, starts);
                ck_assert_uint_eq(st->driver_hosts[i].deaths, deaths);
                ck_assert_ptr_nonnull(strstr(st->driver_hosts[i].last_death, last));
        }
        ck_assert_msg(found, "no host for the faulty driver");
        (void) accel_daemon_status_free(st);
        (void) accel_disconnect(c);
}

static bool daemon_alive(pid_t pid) {
        return kill(pid, 0) == 0 && waitpid(pid, NULL, WNOHANG) == 0;
}

START_TEST(test_isolation_crash_costs_only_its_request) {
        pid_t pid;

        up("max_execution_ms = 5000\n");
        pid = d.pid;
        expect_ok(FAULTY("none"));
        expect_dead(FAULTY("crash-in-execute"), "signal 11");
        ck_assert(daemon_alive(pid));
        /* The host comes back: the same driver serves the next request. */
        expect_ok(FAULTY("none"));
        expect_dead(FAULTY("crash-in-prepare"), "during prepare");
        ck_assert(daemon_alive(pid));
        expect_ok(XNNPACK);
        ck_assert_int_eq(d.pid, pid);
        host_counts_check(2, 2, "during prepare");
        down();
}
END_TEST

START_TEST(test_isolation_fallback_runs_on_cpu) {
        up("max_execution_ms = 5000\n");
        expect_ok("{\"delegate\":\"faulty\",\"plugin_settings\":{\"mode\":\"crash-in-execute\"},"
                  "\"fallback_settings\":{\"allow_automatic_fallback_on_execution_error\":true}}");
        expect_ok("{\"delegate\":\"faulty\",\"plugin_settings\":{\"mode\":\"crash-in-prepare\"},"
                  "\"fallback_settings\":{\"allow_automatic_fallback_on_compilation_error\":true}}");
        ck_assert(daemon_alive(d.pid));
        down();
}
END_TEST

/* Driver ABI 3 across the host boundary: the plugin's prepare names the
 * node it refuses, the host sends it as HostResponse.error_node, and
 * acceld's error names it as the in-process runtime does. */
START_TEST(test_isolation_prepare_error_names_its_node) {
        char *msg = NULL;
        accel_status_t st;

        up("max_execution_ms = 5000\n");
        st = run_once("{\"delegate\":\"faulty\",\"plugin_settings\":{\"mode\":\"error-at-node\",\"node\":0}}", &msg);
        ck_assert_int_ne(st, ACCEL_STATUS_NONE);
        ck_assert_msg(strstr(msg, "faulty: compilation failed: node 0 (ADD): faulty: refusing this node as asked"),
                      "message: %s", msg);
        free(msg);
        expect_ok("{\"delegate\":\"faulty\",\"plugin_settings\":{\"mode\":\"error-at-node\",\"node\":0},"
                  "\"fallback_settings\":{\"allow_automatic_fallback_on_compilation_error\":true}}");
        down();
}
END_TEST

START_TEST(test_isolation_hang_is_bounded) {
        char *msg = NULL;
        accel_status_t st;

        up("max_execution_ms = 700\n");
        expect_dead(FAULTY("hang"), "killed after 700 ms");
        expect_ok(FAULTY("none"));
        /* With a deadline sooner than max_execution_ms, the deadline bounds
         * the call, and missing it is MISSED_DEADLINE. */
        st = run_once_deadline(FAULTY("hang"), 300, &msg);
        ck_assert_msg(st == ACCEL_STATUS_MISSED_DEADLINE_TRANSIENT, "status %d: %s", st, msg);
        free(msg);
        expect_ok(FAULTY("none"));
        down();
}
END_TEST

/* Four clients run XNNPACK requests in a loop while the faulty driver
 * crashes and hangs: none of their requests fails. */
START_TEST(test_isolation_other_clients_unaffected) {
        pid_t kids[4];

        up("max_execution_ms = 700\n");
        for (int k = 0; k < 4; k++) {
                kids[k] = fork();
                ck_assert_int_ge(kids[k], 0);
                if (kids[k] == 0) {
                        for (int i = 0; i < 30; i++)
                                if (run_once(XNNPACK, NULL) != ACCEL_STATUS_NONE)
                                        _exit(1);
                        _exit(0);
                }
        }
        expect_dead(FAULTY("crash-in-execute"), "signal 11");
        expect_dead(FAULTY("hang"), "killed after");
        expect_dead(FAULTY("crash-in-prepare"), "during prepare");
        for (int k = 0; k < 4; k++) {
                int st = 0;
                ck_assert_int_eq(waitpid(kids[k], &st, 0), kids[k]);
                ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "client %d saw a failed request", k);
        }
        ck_assert(daemon_alive(d.pid));
        down();
}
END_TEST

/* SIGTERM while a request hangs in a host: acceld exits cleanly long
 * before max_execution_ms would have ended the call. */
START_TEST(test_isolation_sigterm_with_hung_host) {
        pid_t kid;
        int st;

        up("max_execution_ms = 600000\nshutdown_timeout_ms = 1000\n");
        expect_ok(FAULTY("none"));
        kid = fork();
        ck_assert_int_ge(kid, 0);
        if (kid == 0)
                _exit(run_once(FAULTY("hang"), NULL) == ACCEL_STATUS_NONE ? 1 : 0);
        (void) nanosleep(&(struct timespec) { .tv_nsec = 500 * 1000 * 1000 }, NULL);
        st = harness_signal_and_wait(&d, SIGTERM);
        ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "acceld ended with status 0x%x", st);
        ck_assert_int_eq(waitpid(kid, &st, 0), kid);
        down();
}
END_TEST

/* Two failures of one (model, settings, driver version) quarantine it:
 * the third prepare is refused without starting the host again, or runs
 * on the CPU when the settings allow fallback. */
/* The quarantine holds while the failing instance is still shared: an
 * interpreter kept open keeps the compiled instance alive, and after the
 * two failures (both on that shared instance) the next prepare is refused,
 * not handed the same instance again. */
START_TEST(test_isolation_quarantine_holds_for_a_shared_instance) {
        accel_model_t *m = NULL;
        accel_interp_options_t *o = accel_interp_options_create();
        accel_interp_t *held = NULL;

        up("max_execution_ms = 5000\n");
        ck_assert_int_eq(accel_model_create_from_file(model_path, &m), 0);
        ck_assert_int_eq(accel_interp_options_set_socket(o, d.sock), 0);
        ck_assert_int_eq(accel_interp_options_set_settings_json(o, FAULTY("crash-in-execute")), 0);
        ck_assert_msg(accel_interp_create(m, o, &held) == 0, "%s", accel_last_error());
        expect_dead(FAULTY("crash-in-execute"), "signal 11");
        expect_dead(FAULTY("crash-in-execute"), "signal 11");
        expect_quarantined(FAULTY("crash-in-execute"));
        accel_interp_delete(held);
        accel_interp_options_delete(o);
        accel_model_delete(m);
        down();
}
END_TEST

START_TEST(test_isolation_quarantine_after_two_failures) {
        up("max_execution_ms = 5000\n");
        expect_dead(FAULTY("crash-in-execute"), "signal 11");
        expect_dead(FAULTY("crash-in-execute"), "signal 11");
        expect_quarantined(FAULTY("crash-in-execute"));
        host_counts_check(2, 2, "during execute");
        /* Other settings of the same driver are not affected. */
        expect_ok(FAULTY("none"));
        expect_ok("{\"delegate\":\"faulty\",\"plugin_settings\":{\"mode\":\"crash-in-execute\"},"
                  "\"fallback_settings\":{\"allow_automatic_fallback_on_execution_error\":true}}");
        down();
}
END_TEST

/* The xnnpack host's counters of group tensors used in place and copied. */
static void xnnpack_host_tensors(uint64_t *ret_in_place, uint64_t *ret_copied) {
        accel_client_t *c = NULL;
        accel_daemon_status_t *st = NULL;
        bool found = false;

        ck_assert_int_eq(accel_connect(d.sock, &c), 0);
        ck_assert_int_eq(accel_get_status(c, &st), 0);
        for (size_t i = 0; i < st->n_driver_hosts; i++)
                if (strcmp(st->driver_hosts[i].driver, "xnnpack") == 0) {
                        found = true;
                        ck_assert_uint_gt(st->driver_hosts[i].pid, 0);
                        ck_assert_uint_eq(st->driver_hosts[i].deaths, 0);
                        *ret_in_place = st->driver_hosts[i].tensors_in_place;
                        *ret_copied = st->driver_hosts[i].tensors_copied;
                }
        ck_assert_msg(found, "XNNPACK is not in a host");
        (void) accel_daemon_status_free(st);
        (void) accel_disconnect(c);
}

/*
 * isolate_drivers = all: XNNPACK itself serves from a host, with the same
 * results, and works on the tensors where acceld has them: in the client's
 * registered regions, or (inline tensors) in the interpreter's shared
 * arena. Each run of the ADD group has 3 group tensors, none copied.
 */
START_TEST(test_isolation_all_puts_xnnpack_in_a_host) {
        uint64_t in_place = 0, copied = 0;

        up("isolate_drivers = all\n");
        expect_ok(XNNPACK);
        expect_ok(XNNPACK);
        xnnpack_host_tensors(&in_place, &copied);
        ck_assert_uint_eq(in_place, 6);
        ck_assert_uint_eq(copied, 0);
        inline_tensors = true;
        expect_ok(XNNPACK);
        inline_tensors = false;
        xnnpack_host_tensors(&in_place, &copied);
        ck_assert_uint_eq(in_place, 9);
        ck_assert_uint_eq(copied, 0);
        down();
}
END_TEST

/* The host's seccomp filter: a driver cannot open sockets or exec. */
START_TEST(test_isolation_host_cannot_escape) {
        char *msg = NULL;
        accel_status_t st;

        up("max_execution_ms = 5000\n");
        {
                /* GetCapabilities lists the hosted plugin as a backend. */
                accel_client_t *c = NULL;
                accel_capabilities_t *caps = NULL;
                bool listed = false;

                ck_assert_int_eq(accel_connect(d.sock, &c), 0);
                ck_assert_int_eq(accel_get_capabilities(c, &caps), 0);
                for (size_t i = 0; i < caps->n_backends; i++)
                        listed |= strcmp(caps->backends[i].name, "faulty") == 0 && caps->backends[i].available;
                ck_assert_msg(listed, "faulty is not among the backends");
                (void) accel_capabilities_free(caps);
                /* GetSupportedOperations asks it too: it takes the ADD. */
                accel_model_t *m = NULL;
                accel_node_support_t *ns = NULL;
                size_t n = 0;
                bool asked = false;
                ck_assert_int_eq(accel_model_create_from_file(model_path, &m), 0);
                ck_assert_msg(accel_get_supported_operations(c, m, &ns, &n) == 0, "%s", accel_last_error());
                ck_assert_uint_eq(n, 1);
                for (size_t k = 0; k < ns[0].n_drivers; k++)
                        if (strcmp(ns[0].drivers[k], "faulty") == 0) {
                                asked = true;
                                ck_assert(ns[0].supported[k]);
                        }
                ck_assert_msg(asked, "faulty was not asked");
                accel_node_support_free(ns, n);
                (void) accel_model_delete(m);
                (void) accel_disconnect(c);
        }
        st = run_once(FAULTY("escape"), &msg);
        ck_assert_msg(st != ACCEL_STATUS_NONE, "the escape mode must fail");
        ck_assert_msg(strstr(msg, "socket Operation not permitted, exec Operation not permitted") != NULL,
                      "message: %s", msg);
        free(msg);
        ck_assert(daemon_alive(d.pid));
        down();
}
END_TEST

static Suite *isolation_suite(void) {
        Suite *s = suite_create("isolation");
        TCase *tc = tcase_create("hosts");

        tcase_set_timeout(tc, 120);
        tcase_add_test(tc, test_isolation_crash_costs_only_its_request);
        tcase_add_test(tc, test_isolation_fallback_runs_on_cpu);
        tcase_add_test(tc, test_isolation_prepare_error_names_its_node);
        tcase_add_test(tc, test_isolation_hang_is_bounded);
        tcase_add_test(tc, test_isolation_other_clients_unaffected);
        tcase_add_test(tc, test_isolation_sigterm_with_hung_host);
        tcase_add_test(tc, test_isolation_quarantine_after_two_failures);
        tcase_add_test(tc, test_isolation_quarantine_holds_for_a_shared_instance);
        tcase_add_test(tc, test_isolation_all_puts_xnnpack_in_a_host);
        tcase_add_test(tc, test_isolation_host_cannot_escape);
        suite_add_tcase(s, tc);
        return s;
}

int main(int argc, char **argv) {
        SRunner *sr;
        int failed;

        harness_init(argc, argv);
        if (!harness_faulty_init(argc, argv))
                return 77;
        sr = srunner_create(isolation_suite());
        srunner_run_all(sr, CK_NORMAL);
        failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed ? 1 : 0;
}
