/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Hung and slow driver calls against the real acceld and the faulty plugin
 * (issue 22): the loop never waits for a driver call (a release while
 * another request hangs in the same host), SIGTERM ends acceld within
 * shutdown_timeout_ms with hung requests (in a host, and in acceld itself
 * with isolate_drivers = none), one client's short deadlines never cost
 * another client its shared host, and settings asking for more threads
 * than acceld's CPUs are clamped, visibly.
 * argv: acceld, accelctl, the faulty plugin (its folder becomes
 * ACCELD_PLUGIN_DIR).
 */
#include <check.h>
#include <sched.h>
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
#include "tfb-models.h"

static harness_daemon_t d;
static char *model_path;

/* The faulty driver serializing on one device: a hung execute holds it
 * for good, and every release of the driver waits for it. */
#define LOCKED(mode) "{\"delegate\":\"faulty\",\"plugin_settings\":{\"mode\":\"" mode "\",\"device_lock\":1}}"
#define SLOW(ms) "{\"delegate\":\"faulty\",\"plugin_settings\":{\"mode\":\"slow\",\"delay_ms\":" #ms "}}"
#define XNNPACK_THREADS(n) "{\"delegate\":\"XNNPACK\",\"xnnpack_settings\":{\"num_threads\":" #n "}}"

static uint64_t now_ms(void) {
        struct timespec ts;
        (void) clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000u + (uint64_t) ts.tv_nsec / 1000000u;
}

static void sleep_ms(long ms) {
        struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
        while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
                ;
}

static void up(const char *config) {
        harness_faulty_up(&d, config);
        model_path = harness_faulty_add_model(&d);
}

static void down(void) {
        free(model_path);
        model_path = NULL;
        harness_cleanup(&d);
}

/* An interpreter of the ADD model with `settings` (and a deadline for each
 * invoke, 0 = none), prepared and allocated; NULL with *ret_st on failure. */
static accel_interp_t *interp_open(const char *settings, uint32_t deadline_ms, accel_status_t *ret_st) {
        accel_model_t *m = NULL;
        accel_interp_options_t *o = accel_interp_options_create();
        accel_interp_t *it = NULL;
        int r;

        ck_assert_int_eq(accel_model_create_from_file(model_path, &m), 0);
        ck_assert_int_eq(accel_interp_options_set_socket(o, d.sock), 0);
        ck_assert_int_eq(accel_interp_options_set_settings_json(o, settings), 0);
        if (deadline_ms)
                ck_assert_int_eq(accel_interp_options_set_deadline_ms(o, deadline_ms), 0);
        r = accel_interp_create(m, o, &it);
        if (r == 0)
                r = accel_interp_allocate_tensors(it);
        if (ret_st)
                *ret_st = r == 0 ? ACCEL_STATUS_NONE : accel_last_status();
        if (r < 0) {
                (void) accel_interp_delete(it);
                it = NULL;
        }
        (void) accel_interp_options_delete(o);
        (void) accel_model_delete(m);
        return it;
}

/* One invoke on a = {1,2,3,4}, b = {10,20,30,40}; y checked on success. */
static accel_status_t interp_run(accel_interp_t *it) {
        static const float a[4] = { 1, 2, 3, 4 }, b[4] = { 10, 20, 30, 40 };

        memcpy(accel_tensor_data(accel_interp_input_tensor(it, 0)), a, sizeof(a));
        memcpy(accel_tensor_data(accel_interp_input_tensor(it, 1)), b, sizeof(b));
        if (accel_interp_invoke(it) < 0)
                return accel_last_status();
        const float *y = accel_tensor_data(accel_interp_output_tensor(it, 0));
        for (int i = 0; i < 4; i++)
                ck_assert_float_eq(y[i], a[i] + b[i]);
        return ACCEL_STATUS_NONE;
}

/* A child that runs `settings` (a hang) once (it never comes back unless
 * the host is killed or acceld goes away). */
static pid_t hang_start_with(const char *settings) {
        pid_t kid = fork();

        ck_assert_int_ge(kid, 0);
        if (kid == 0) {
                /* Not the parent's connections: their close must be seen. */
                (void) close_range(3, ~0u, 0);
                accel_interp_t *it = interp_open(settings, 0, NULL);
                if (it)
                        (void) interp_run(it);
                _exit(0);
        }
        return kid;
}

static pid_t hang_start(void) {
        return hang_start_with(FAULTY("hang"));
}

static void kid_reap(pid_t kid) {
        (void) kill(kid, SIGKILL);
        (void) waitpid(kid, NULL, 0);
}

/* How long one GetStatus takes on a fresh connection, in ms. */
static uint64_t status_ms(void) {
        accel_client_t *c = NULL;
        accel_daemon_status_t *st = NULL;
        uint64_t t0 = now_ms();

        ck_assert_int_eq(accel_connect(d.sock, &c), 0);
        ck_assert_msg(accel_get_status(c, &st) == 0, "%s", accel_last_error());
        (void) accel_daemon_status_free(st);
        (void) accel_disconnect(c);
        return now_ms() - t0;
}

/* The faulty host's deaths so far (GetStatus). */
static unsigned faulty_deaths(void) {
        accel_client_t *c = NULL;
        accel_daemon_status_t *st = NULL;
        unsigned deaths = ~0u;

        ck_assert_int_eq(accel_connect(d.sock, &c), 0);
        ck_assert_msg(accel_get_status(c, &st) == 0, "%s", accel_last_error());
        for (size_t i = 0; i < st->n_driver_hosts; i++)
                if (strcmp(st->driver_hosts[i].driver, "faulty") == 0)
                        deaths = st->driver_hosts[i].deaths;
        (void) accel_daemon_status_free(st);
        (void) accel_disconnect(c);
        ck_assert_msg(deaths != ~0u, "no host for the faulty driver");
        return deaths;
}

/*
 * A request hangs in the faulty host (for max_execution_ms = 8 s) while
 * another model of the same driver is released: the release used to wait
 * for the host, and with it the loop, so every client stalled. Now the
 * release and another client's request are answered at once, well within
 * the hang.
 */
START_TEST(test_hang_release_does_not_stall_the_loop) {
        accel_interp_t *held;
        uint64_t t0, took;
        pid_t kid;

        up("max_execution_ms = 8000\n");
        held = interp_open(FAULTY("none"), 0, NULL);
        ck_assert_ptr_nonnull(held);
        ck_assert_int_eq(interp_run(held), ACCEL_STATUS_NONE);
        kid = hang_start();
        sleep_ms(800);
        t0 = now_ms();
        /* Closing its connection releases the handle, the instance and its
         * group in the faulty host; the loop sees the close in a moment. */
        (void) accel_interp_delete(held);
        sleep_ms(300);
        (void) status_ms();
        took = now_ms() - t0;
        fprintf(stderr, "release + GetStatus during the hang: %llu ms\n", (unsigned long long) took);
        ck_assert_msg(took < 300 + 3000, "the loop stalled %llu ms behind the hung call", (unsigned long long) took);
        /* The hang was still on: the bound above is the loop's, not the kill's. */
        ck_assert_int_eq(waitpid(kid, NULL, WNOHANG), 0);
        kid_reap(kid);
        down();
}
END_TEST

/* SIGTERM with three requests hung in a host and a release queued behind
 * them: acceld is gone within shutdown_timeout_ms. The bound allows 3 s of
 * slack for a loaded machine and sanitizers; without the fix acceld never
 * exits (the harness kills it after 15 s). */
#define EXIT_SLACK_MS 3000
START_TEST(test_hang_sigterm_isolated) {
        accel_interp_t *held;
        pid_t kids[3];
        uint64_t t0, took;
        int st;

        up("max_execution_ms = 600000\nshutdown_timeout_ms = 1000\n");
        held = interp_open(FAULTY("none"), 0, NULL);
        ck_assert_ptr_nonnull(held);
        for (int k = 0; k < 3; k++)
                kids[k] = hang_start();
        sleep_ms(800);
        (void) accel_interp_delete(held);
        t0 = now_ms();
        st = harness_signal_and_wait(&d, SIGTERM);
        took = now_ms() - t0;
        fprintf(stderr, "SIGTERM with 3 hung requests (isolated): exit after %llu ms\n", (unsigned long long) took);
        ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "acceld ended with status 0x%x", st);
        ck_assert_msg(took < 1000 + EXIT_SLACK_MS, "exit took %llu ms", (unsigned long long) took);
        for (int k = 0; k < 3; k++)
                kid_reap(kids[k]);
        down();
}
END_TEST

/* isolate_drivers = none: the hung call is in acceld's own worker and
 * never returns; acceld exits anyway once shutdown_timeout_ms is over. */
START_TEST(test_hang_sigterm_in_process) {
        pid_t kid;
        uint64_t t0, took;
        int st;

        up("isolate_drivers = none\nshutdown_timeout_ms = 1000\n");
        kid = hang_start();
        sleep_ms(800);
        /* The loop still answers while a worker hangs. */
        ck_assert_uint_lt(status_ms(), 3000);
        t0 = now_ms();
        st = harness_signal_and_wait(&d, SIGTERM);
        took = now_ms() - t0;
        fprintf(stderr, "SIGTERM with a hung in-process call: exit after %llu ms\n", (unsigned long long) took);
        ck_assert_msg(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0, "acceld ended with status 0x%x", st);
        ck_assert_msg(took < 1000 + EXIT_SLACK_MS, "exit took %llu ms", (unsigned long long) took);
        kid_reap(kid);
        down();
}
END_TEST

/*
 * isolate_drivers = none, and the plugin serializes on its device: a
 * release of another model of the plugin waits for the hung execute for
 * good. It used to run on the loop (the last reference dropped when the
 * connection closed), which then answered nobody, SIGTERM included. Now
 * the release thread waits instead: the loop answers, and SIGTERM ends
 * acceld at shutdown_timeout_ms with the release still stuck.
 */
START_TEST(test_hang_in_process_release_does_not_stall_the_loop) {
        accel_interp_t *held;
        uint64_t t0, took;
        pid_t kid;
        int st;

        up("isolate_drivers = none\nshutdown_timeout_ms = 1000\n");
        held = interp_open(LOCKED("none"), 0, NULL);
        ck_assert_ptr_nonnull(held);
        ck_assert_int_eq(interp_run(held), ACCEL_STATUS_NONE);
        kid = hang_start_with(LOCKED("hang"));
        sleep_ms(800);
        (void) accel_interp_delete(held);
        sleep_ms(300);
        t0 = now_ms();
        (void) status_ms();
        took = now_ms() - t0;
        fprintf(stderr, "GetStatus behind an in-process release stuck on a hung call: %llu ms\n",
                (unsigned long long) took);
        ck_assert_msg(took < 3000, "the loop stalled %llu ms behind the release", (unsigned long long) took);
        /* The hang is still on, and so is the release behind it. */
        ck_assert_int_eq(waitpid(kid, NULL, WNOHANG), 0);
        t0 = now_ms();
        st = harness_signal_and_wait(&d, SIGTERM);
        took = now_ms() - t0;
        fprintf(stderr, "SIGTERM with a hung in-process call and a stuck release: exit after %llu ms\n",
                (unsigned long long) took);
        ck_assert_msg(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0, "acceld ended with status 0x%x", st);
        ck_assert_msg(took < 1000 + EXIT_SLACK_MS, "exit took %llu ms", (unsigned long long) took);
        kid_reap(kid);
        down();
}
END_TEST

/*
 * Client A runs a 200 ms call with 30 ms deadlines on the faulty host
 * while client B runs the same driver without one. A's requests miss
 * their deadline (MISSED_DEADLINE, not DEAD_OBJECT); the host is never
 * killed for them, and every one of B's requests succeeds.
 */
START_TEST(test_hang_short_deadlines_keep_the_shared_host) {
        accel_interp_t *it;
        pid_t kid;
        int st = 0, b_ok = 0;

        up("max_execution_ms = 5000\n");
        kid = fork();
        ck_assert_int_ge(kid, 0);
        if (kid == 0) {
                accel_status_t s;
                accel_interp_t *a = interp_open(SLOW(200), 30, &s);
                int missed = 0, other = 0;
                uint64_t end = now_ms() + 3000;

                if (!a)
                        _exit(2);
                while (now_ms() < end) {
                        s = interp_run(a);
                        if (s == ACCEL_STATUS_MISSED_DEADLINE_TRANSIENT || s == ACCEL_STATUS_MISSED_DEADLINE_PERSISTENT)
                                missed++;
                        else if (s != ACCEL_STATUS_NONE) {
                                fprintf(stderr, "client A: status %d: %s\n", s, accel_last_error());
                                other++;
                        }
                }
                fprintf(stderr, "client A: %d missed deadlines, %d other errors\n", missed, other);
                _exit(other == 0 && missed > 0 ? 0 : 1);
        }
        sleep_ms(300);
        it = interp_open(FAULTY("none"), 0, NULL);
        ck_assert_ptr_nonnull(it);
        for (int i = 0; i < 15; i++) {
                accel_status_t s = interp_run(it);
                ck_assert_msg(s == ACCEL_STATUS_NONE, "client B's request %d failed: %d: %s", i, s,
                              accel_last_error());
                b_ok++;
        }
        fprintf(stderr, "client B: %d of 15 requests succeeded\n", b_ok);
        ck_assert_int_eq(waitpid(kid, &st, 0), kid);
        ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "client A saw other errors than missed deadlines");
        ck_assert_uint_eq(faulty_deaths(), 0);
        (void) accel_interp_delete(it);
        down();
}
END_TEST

/* A hung call abandoned at its deadline is killed by the host watchdog
 * (max_execution_ms), and the next request gets a fresh host. */
START_TEST(test_hang_watchdog_kills_a_stuck_host) {
        accel_interp_t *a, *b;

        up("max_execution_ms = 1000\n");
        a = interp_open(FAULTY("hang"), 200, NULL);
        ck_assert_ptr_nonnull(a);
        b = interp_open(FAULTY("none"), 0, NULL);
        ck_assert_ptr_nonnull(b);
        /* Cut off at its deadline: MISSED_DEADLINE, not DEAD_OBJECT, and
         * the host lives on. */
        ck_assert_int_eq(interp_run(a), ACCEL_STATUS_MISSED_DEADLINE_TRANSIENT);
        ck_assert_uint_eq(faulty_deaths(), 0);
        /* B waits for the stuck host's watchdog, then runs on a new one. */
        ck_assert_int_eq(interp_run(b), ACCEL_STATUS_NONE);
        ck_assert_uint_eq(faulty_deaths(), 1);
        (void) accel_interp_delete(a);
        (void) accel_interp_delete(b);
        down();
}
END_TEST

/* num_threads beyond acceld's CPUs is clamped, and said so in the reply
 * (PrepareModel's delegation note) and by accelctl run. */
START_TEST(test_hang_thread_clamp_is_reported) {
        accel_interp_t *it;
        char *out = NULL, *path;
        int st;

        up("");
        it = interp_open(XNNPACK_THREADS(4096), 0, NULL);
        ck_assert_ptr_nonnull(it);
        ck_assert_msg(strstr(accel_interp_delegation_note(it), "num_threads 4096 clamped to "),
                      "note: %s", accel_interp_delegation_note(it));
        ck_assert_int_eq(interp_run(it), ACCEL_STATUS_NONE);
        (void) accel_interp_delete(it);
        it = interp_open(XNNPACK_THREADS(1), 0, NULL);
        ck_assert_ptr_nonnull(it);
        ck_assert_str_eq(accel_interp_delegation_note(it), "");
        (void) accel_interp_delete(it);
        path = model_path;
        {
                const char *argv[] = { harness_accelctl(), "--socket", d.sock, "run", path, "--settings",
                                       XNNPACK_THREADS(4096), NULL };
                st = harness_run(argv, &out);
        }
        ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "accelctl run failed: %s", out);
        ck_assert_msg(strstr(out, "note: num_threads 4096 clamped to "), "accelctl run: %s", out);
        free(out);
        down();
}
END_TEST

/* GetStatus: the CPU budget, the threads taken now and the invokes that
 * waited for the budget. */
static void cpu_status(uint32_t *ret_budget, uint32_t *ret_in_use, uint64_t *ret_waits) {
        accel_client_t *c = NULL;
        accel_daemon_status_t *st = NULL;

        ck_assert_int_eq(accel_connect(d.sock, &c), 0);
        ck_assert_msg(accel_get_status(c, &st) == 0, "%s", accel_last_error());
        *ret_budget = st->cpu_budget;
        *ret_in_use = st->cpu_in_use;
        *ret_waits = st->refusals.cpu_waits;
        (void) accel_daemon_status_free(st);
        (void) accel_disconnect(c);
}

/* The test's own CPUs, before it pins acceld to one. */
static cpu_set_t all_cpus;

/* A child running `n` invokes of the model at `path` on the reference
 * kernels (one thread of the budget each), on all the test's CPUs; exits
 * 0 when all ran. */
static pid_t reference_client_start(const char *path, int n) {
        pid_t kid = fork();

        ck_assert_int_ge(kid, 0);
        if (kid == 0) {
                accel_model_t *m = NULL;
                accel_interp_options_t *o = accel_interp_options_create();
                accel_interp_t *it = NULL;
                int bad = 0;

                (void) close_range(3, ~0u, 0);
                (void) sched_setaffinity(0, sizeof(all_cpus), &all_cpus);
                if (accel_model_create_from_file(path, &m) < 0 || accel_interp_options_set_socket(o, d.sock) < 0 ||
                    accel_interp_options_set_settings_json(o, "{\"delegate\":\"NONE\"}") < 0 ||
                    accel_interp_create(m, o, &it) < 0 || accel_interp_allocate_tensors(it) < 0)
                        _exit(2);
                for (int i = 0; i < n; i++)
                        if (accel_interp_invoke(it) < 0) {
                                fprintf(stderr, "invoke %d: %s\n", i, accel_last_error());
                                bad++;
                        }
                _exit(bad ? 1 : 0);
        }
        return kid;
}

/*
 * The CPU budget across instances: acceld on one CPU (its affinity) has a
 * budget of one thread, so two clients of two models on the reference
 * kernels (one thread each, worker_threads = 2 runs both at once) take
 * turns: the second invoke waits for the first instead of running beside
 * it, and GetStatus counts those waits. Without the budget no invoke ever
 * waits.
 */
START_TEST(test_hang_cpu_budget_second_instance_waits) {
        cpu_set_t one;
        uint32_t budget, in_use;
        uint64_t waits0, waits;
        char *paths[2];
        pid_t kids[2];
        int cpu = -1;

        ck_assert_int_eq(sched_getaffinity(0, sizeof(all_cpus), &all_cpus), 0);
        for (int k = 0; k < CPU_SETSIZE && cpu < 0; k++)
                if (CPU_ISSET(k, &all_cpus))
                        cpu = k;
        CPU_ZERO(&one);
        CPU_SET(cpu, &one);
        /* acceld inherits it: one CPU, a budget of one thread. */
        ck_assert_int_eq(sched_setaffinity(0, sizeof(one), &one), 0);
        up("worker_threads = 2\n");
        cpu_status(&budget, &in_use, &waits0);
        ck_assert_uint_eq(budget, 1);
        ck_assert_uint_eq(in_use, 0);
        /* Each invoke spans scheduler ticks (2048 x 2048 weights): on one
         * CPU the two invokes only overlap when one is preempted in the
         * middle, and with 1024 x 1024 (about a timeslice) a loaded full
         * run once saw no overlap in 200 invokes. */
        for (int k = 0; k < 2; k++) {
                size_t size;
                uint8_t *bytes = tfb_model_fp16_fc(2048, 2048, 7 + 2 * k, 13, 16.0f, &size);
                char name[32];

                ck_assert_ptr_nonnull(bytes);
                (void) snprintf(name, sizeof(name), "fc%d.tflite", k);
                paths[k] = harness_write_file(&d, name, bytes, size);
                free(bytes);
        }
        for (int k = 0; k < 2; k++)
                kids[k] = reference_client_start(paths[k], 100);
        for (int k = 0; k < 2; k++) {
                int st = 0;

                ck_assert_int_eq(waitpid(kids[k], &st, 0), kids[k]);
                ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "client %d failed (0x%x)", k, st);
                free(paths[k]);
        }
        cpu_status(&budget, &in_use, &waits);
        fprintf(stderr, "two clients on a budget of 1: %llu invokes waited\n",
                (unsigned long long) (waits - waits0));
        ck_assert_uint_gt(waits, waits0);
        ck_assert_uint_eq(in_use, 0);
        (void) sched_setaffinity(0, sizeof(all_cpus), &all_cpus);
        down();
}
END_TEST

static Suite *hang_suite(void) {
        Suite *s = suite_create("hang");
        TCase *tc = tcase_create("hosts");

        tcase_set_timeout(tc, 120);
        tcase_add_test(tc, test_hang_release_does_not_stall_the_loop);
        tcase_add_test(tc, test_hang_sigterm_isolated);
        tcase_add_test(tc, test_hang_sigterm_in_process);
        tcase_add_test(tc, test_hang_in_process_release_does_not_stall_the_loop);
        tcase_add_test(tc, test_hang_short_deadlines_keep_the_shared_host);
        tcase_add_test(tc, test_hang_watchdog_kills_a_stuck_host);
        tcase_add_test(tc, test_hang_thread_clamp_is_reported);
        tcase_add_test(tc, test_hang_cpu_budget_second_instance_waits);
        suite_add_tcase(s, tc);
        return s;
}

int main(int argc, char **argv) {
        SRunner *sr;
        int failed;

        harness_init(argc, argv);
        if (!harness_faulty_init(argc, argv))
                return 77;
        sr = srunner_create(hang_suite());
        srunner_run_all(sr, CK_NORMAL);
        failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed ? 1 : 0;
}
