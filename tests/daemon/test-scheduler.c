/* SPDX-License-Identifier: Apache-2.0 */
/*
 * daemon/serving/scheduler.c: order by priority then deadline, deadline expiry,
 * cancel, per-owner cancel, resource caps, delivery on the loop thread.
 * A "gate" job holds the single worker until the test opens it, so the
 * order of everything queued behind it is deterministic.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <check.h>
#include <uv.h>

#include "scheduler.h"

static pthread_mutex_t gate_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gate_cond = PTHREAD_COND_INITIALIZER;
static bool gate_open, gate_running;

typedef struct tjob {
        daemon_job_t job;
        int id;
        int result;
        bool done;
        pthread_t ran_on;
} tjob_t;

static int order[32], n_order;
static pthread_t loop_thread;

static void run_gate(daemon_job_t *j) {
        pthread_mutex_lock(&gate_mu);
        gate_running = true;
        pthread_cond_broadcast(&gate_cond);
        while (!gate_open)
                pthread_cond_wait(&gate_cond, &gate_mu);
        pthread_mutex_unlock(&gate_mu);
        j->result = 0;
}

static void run_plain(daemon_job_t *j) {
        tjob_t *t = j->data;

        t->ran_on = pthread_self();
        j->result = 7;
}

static void on_done(daemon_job_t *j, int r) {
        tjob_t *t = j->data;

        ck_assert(pthread_equal(pthread_self(), loop_thread));
        t->result = r;
        t->done = true;
        order[n_order++] = t->id;
}

static void tjob_init(tjob_t *t, int id, int prio, uint64_t deadline_ns, daemon_job_run_fn run) {
        memset(t, 0, sizeof(*t));
        t->id = id;
        t->job.priority = prio;
        t->job.deadline_ns = deadline_ns;
        t->job.run = run;
        t->job.done = on_done;
        t->job.data = t;
}

static void wait_gate_running(void) {
        pthread_mutex_lock(&gate_mu);
        while (!gate_running)
                pthread_cond_wait(&gate_cond, &gate_mu);
        pthread_mutex_unlock(&gate_mu);
}

static void open_gate(void) {
        pthread_mutex_lock(&gate_mu);
        gate_open = true;
        pthread_cond_broadcast(&gate_cond);
        pthread_mutex_unlock(&gate_mu);
}

static void run_until(uv_loop_t *loop, int n) {
        while (n_order < n)
                (void) uv_run(loop, UV_RUN_ONCE);
}

static void setup(void) {
        gate_open = gate_running = false;
        n_order = 0;
        loop_thread = pthread_self();
}

START_TEST(test_sched_priority_then_deadline_order) {
        uv_loop_t loop;
        daemon_sched_t s;
        tjob_t g, j[6];
        uint64_t now = uv_hrtime(), far = now + 60ull * 1000000000ull;

        ck_assert_int_eq(uv_loop_init(&loop), 0);
        ck_assert_int_eq(daemon_sched_init(&s, &loop, 1), 0);
        tjob_init(&g, 100, 2, 0, run_gate);
        ck_assert_int_eq(daemon_sched_submit(&s, "q", &g.job), 0);
        wait_gate_running();
        tjob_init(&j[0], 0, 1, 0, run_plain);             /* LOW */
        tjob_init(&j[1], 1, 2, 0, run_plain);             /* MEDIUM */
        tjob_init(&j[2], 2, 3, 0, run_plain);             /* HIGH, no deadline */
        tjob_init(&j[3], 3, 3, far, run_plain);           /* HIGH, late deadline */
        tjob_init(&j[4], 4, 3, far - 1000, run_plain);    /* HIGH, earlier deadline */
        tjob_init(&j[5], 5, 2, 0, run_plain);             /* MEDIUM, after 1 */
        for (int i = 0; i < 6; i++)
                ck_assert_int_eq(daemon_sched_submit(&s, "q", &j[i].job), 0);
        ck_assert_uint_eq(daemon_sched_queued(&s), 6);
        ck_assert_uint_eq(daemon_sched_running(&s), 1);
        open_gate();
        run_until(&loop, 7);
        ck_assert_int_eq(order[0], 100);
        ck_assert_int_eq(order[1], 4);
        ck_assert_int_eq(order[2], 3);
        ck_assert_int_eq(order[3], 2);
        ck_assert_int_eq(order[4], 1);
        ck_assert_int_eq(order[5], 5);
        ck_assert_int_eq(order[6], 0);
        ck_assert_int_eq(j[0].result, 7);
        daemon_sched_stop(&s);
        ck_assert_int_eq(uv_run(&loop, UV_RUN_DEFAULT), 0);
        ck_assert_int_eq(uv_loop_close(&loop), 0);
}
END_TEST

START_TEST(test_sched_expired_deadline_is_not_run) {
        uv_loop_t loop;
        daemon_sched_t s;
        tjob_t g, late;

        ck_assert_int_eq(uv_loop_init(&loop), 0);
        ck_assert_int_eq(daemon_sched_init(&s, &loop, 1), 0);
        tjob_init(&g, 100, 2, 0, run_gate);
        ck_assert_int_eq(daemon_sched_submit(&s, "q", &g.job), 0);
        wait_gate_running();
        tjob_init(&late, 1, 2, uv_hrtime() + 1000, run_plain);
        ck_assert_int_eq(daemon_sched_submit(&s, "q", &late.job), 0);
        usleep(5000);
        open_gate();
        run_until(&loop, 2);
        ck_assert_int_eq(late.result, -ETIME);
        ck_assert(!late.ran_on);
        daemon_sched_stop(&s);
        ck_assert_int_eq(uv_run(&loop, UV_RUN_DEFAULT), 0);
        ck_assert_int_eq(uv_loop_close(&loop), 0);
}
END_TEST

START_TEST(test_sched_cancel_and_cancel_owner) {
        uv_loop_t loop;
        daemon_sched_t s;
        tjob_t g, a, b, c;
        int owner1, owner2;

        ck_assert_int_eq(uv_loop_init(&loop), 0);
        ck_assert_int_eq(daemon_sched_init(&s, &loop, 1), 0);
        tjob_init(&g, 100, 2, 0, run_gate);
        ck_assert_int_eq(daemon_sched_submit(&s, "q", &g.job), 0);
        wait_gate_running();
        tjob_init(&a, 1, 2, 0, run_plain);
        tjob_init(&b, 2, 2, 0, run_plain);
        tjob_init(&c, 3, 2, 0, run_plain);
        a.job.owner = b.job.owner = &owner1;
        c.job.owner = &owner2;
        ck_assert_int_eq(daemon_sched_submit(&s, "q", &a.job), 0);
        ck_assert_int_eq(daemon_sched_submit(&s, "q", &b.job), 0);
        ck_assert_int_eq(daemon_sched_submit(&s, "q", &c.job), 0);
        /* The running job cannot be cancelled; a queued one can, once. */
        ck_assert(!daemon_sched_cancel(&s, &g.job));
        ck_assert(daemon_sched_cancel(&s, &c.job));
        ck_assert_int_eq(c.result, -ECANCELED);
        ck_assert(!daemon_sched_cancel(&s, &c.job));
        ck_assert_uint_eq(daemon_sched_cancel_owner(&s, &owner1), 2);
        ck_assert_int_eq(a.result, -ECANCELED);
        ck_assert_int_eq(b.result, -ECANCELED);
        ck_assert_uint_eq(daemon_sched_queued(&s), 0);
        open_gate();
        run_until(&loop, 4);
        ck_assert_int_eq(order[3], 100);
        daemon_sched_stop(&s);
        ck_assert_int_eq(uv_run(&loop, UV_RUN_DEFAULT), 0);
        ck_assert_int_eq(uv_loop_close(&loop), 0);
}
END_TEST

/* Two workers, a resource with room for one job: the second job on it
 * waits while a later job without it runs on the free worker. */
START_TEST(test_sched_resource_cap_skips_to_runnable_job) {
        uv_loop_t loop;
        daemon_sched_t s;
        daemon_sched_resource_t res = { .limit = 1 };
        tjob_t g, same, other;

        ck_assert_int_eq(uv_loop_init(&loop), 0);
        ck_assert_int_eq(daemon_sched_init(&s, &loop, 2), 0);
        tjob_init(&g, 100, 2, 0, run_gate);
        g.job.resource = &res;
        ck_assert_int_eq(daemon_sched_submit(&s, "q", &g.job), 0);
        wait_gate_running();
        tjob_init(&same, 1, 3, 0, run_plain);
        same.job.resource = &res;
        tjob_init(&other, 2, 1, 0, run_plain);
        ck_assert_int_eq(daemon_sched_submit(&s, "q", &same.job), 0);
        ck_assert_int_eq(daemon_sched_submit(&s, "q", &other.job), 0);
        run_until(&loop, 1);
        ck_assert_int_eq(order[0], 2);
        ck_assert(!same.done);
        ck_assert_uint_eq(daemon_sched_queued(&s), 1);
        open_gate();
        run_until(&loop, 3);
        ck_assert_int_eq(order[1], 100);
        ck_assert_int_eq(order[2], 1);
        ck_assert_uint_eq(res.busy, 0);
        ck_assert_uint_eq(daemon_sched_threads(&s), 2);
        daemon_sched_stop(&s);
        ck_assert_int_eq(uv_run(&loop, UV_RUN_DEFAULT), 0);
        ck_assert_int_eq(uv_loop_close(&loop), 0);
}
END_TEST

/* Stopping cancels what never started. */
START_TEST(test_sched_stop_cancels_queued) {
        uv_loop_t loop;
        daemon_sched_t s;
        tjob_t a;

        ck_assert_int_eq(uv_loop_init(&loop), 0);
        ck_assert_int_eq(daemon_sched_init(&s, &loop, 1), 0);
        daemon_sched_stop(&s);
        tjob_init(&a, 1, 2, 0, run_plain);
        ck_assert_int_eq(daemon_sched_submit(&s, "q", &a.job), -ESHUTDOWN);
        ck_assert_int_eq(uv_run(&loop, UV_RUN_DEFAULT), 0);
        ck_assert_int_eq(uv_loop_close(&loop), 0);
}
END_TEST

/* Settings asking for more threads than acceld's CPUs are clamped, with a
 * note; others are left alone without one. */
START_TEST(test_cpu_clamp) {
        unsigned cpus = daemon_cpu_budget();
        rt_settings_t s;
        char note[192], want[64];

        ck_assert_uint_ge(cpus, 1);
        rt_settings_init(&s);
        s.delegate = RT_DELEGATE_XNNPACK;
        s.xnnpack_num_threads = 4096;
        ck_assert_int_eq(daemon_cpu_clamp(&s, note, sizeof(note)), 1);
        ck_assert_int_eq(s.xnnpack_num_threads, (int32_t) cpus);
        (void) snprintf(want, sizeof(want), "num_threads 4096 clamped to %u: ", cpus);
        ck_assert_msg(strncmp(note, want, strlen(want)) == 0, "note: %s", note);
        ck_assert_uint_eq(daemon_cpu_threads_for(&s, "xnnpack"), cpus);
        s.xnnpack_num_threads = 1;
        s.cpu_num_threads = -1;
        ck_assert_int_eq(daemon_cpu_clamp(&s, note, sizeof(note)), 0);
        ck_assert_str_eq(note, "");
        ck_assert_int_eq(s.xnnpack_num_threads, 1);
        ck_assert_uint_eq(daemon_cpu_threads_for(&s, "reference"), 1);
        ck_assert_uint_eq(daemon_cpu_threads_for(&s, "faulty"), 0);
        rt_settings_done(&s);
}
END_TEST

static atomic_uint most_in_use;

static void *taker(void *arg) {
        unsigned n = (unsigned) (uintptr_t) arg;

        for (int i = 0; i < 200; i++) {
                ck_assert_int_eq(daemon_cpu_take(n, 0), 0);
                unsigned now = daemon_cpu_in_use(), seen = atomic_load(&most_in_use);
                while (now > seen && !atomic_compare_exchange_weak(&most_in_use, &seen, now))
                        ;
                daemon_cpu_give(n);
        }
        return NULL;
}

/* Threads taken at once never exceed the budget; a take that cannot fit
 * gives up at its deadline. */
START_TEST(test_cpu_budget_take_give) {
        unsigned cpus = daemon_cpu_budget();
        pthread_t t[6];

        ck_assert_int_eq(daemon_cpu_take(cpus, 0), 0);
        ck_assert_uint_eq(daemon_cpu_in_use(), cpus);
        ck_assert_int_eq(daemon_cpu_take(1, uv_hrtime() + 20 * 1000 * 1000), -ETIME);
        daemon_cpu_give(cpus);
        ck_assert_uint_eq(daemon_cpu_in_use(), 0);
        atomic_store(&most_in_use, 0);
        for (int k = 0; k < 6; k++)
                ck_assert_int_eq(pthread_create(&t[k], NULL, taker, (void *) (uintptr_t) (1 + k % cpus)), 0);
        for (int k = 0; k < 6; k++)
                ck_assert_int_eq(pthread_join(t[k], NULL), 0);
        ck_assert_uint_le(atomic_load(&most_in_use), cpus);
        ck_assert_uint_ge(atomic_load(&most_in_use), 1);
        ck_assert_uint_eq(daemon_cpu_in_use(), 0);
}
END_TEST

/* ---- one resource shared by a queue's jobs and by lanes ---- */

#define STRESS_JOBS 400
#define STRESS_LANE_TAKES 300

static atomic_int inside, most_inside;
static int stress_done;

static void inside_enter(void) {
        int now = atomic_fetch_add(&inside, 1) + 1, seen = atomic_load(&most_inside);

        while (now > seen && !atomic_compare_exchange_weak(&most_inside, &seen, now))
                ;
        sched_yield();
        atomic_fetch_sub(&inside, 1);
}

static void run_inside(daemon_job_t *j) {
        inside_enter();
        j->result = 0;
}

static void on_stress_done(daemon_job_t *j, int r) {
        (void) j;
        ck_assert_int_eq(r, 0);
        stress_done++;
}

typedef struct lane_arg {
        daemon_sched_t *s;
        daemon_sched_resource_t *res;
} lane_arg_t;

static void *lane_taker(void *arg) {
        lane_arg_t *a = arg;

        for (int i = 0; i < STRESS_LANE_TAKES; i++) {
                ck_assert_int_eq(daemon_sched_resource_take(a->s, a->res, 0), 0);
                inside_enter();
                daemon_sched_resource_give(a->s, a->res);
        }
        return NULL;
}

/*
 * Two workers of a queue and two lane threads share one slot, as an
 * instance's execution slots are shared by its driver's queue and its
 * lanes (a resource belongs to one queue: a worker wakes only its own
 * queue's workers). The wake-ups (sent after the scheduler's mutex is
 * released) are never lost - every job and every take completes; a lost
 * one would leave a job queued or a taker asleep and the test timed out -
 * and the slot is never held twice.
 */
START_TEST(test_sched_resource_shared_no_lost_wakeup) {
        static daemon_job_t jobs[STRESS_JOBS];
        uv_loop_t loop;
        daemon_sched_t s;
        daemon_sched_resource_t res = { .limit = 1 };
        lane_arg_t la = { .s = &s, .res = &res };
        pthread_t lanes[2];

        atomic_store(&inside, 0);
        atomic_store(&most_inside, 0);
        stress_done = 0;
        ck_assert_int_eq(uv_loop_init(&loop), 0);
        ck_assert_int_eq(daemon_sched_init(&s, &loop, 2), 0);
        for (int k = 0; k < 2; k++)
                ck_assert_int_eq(pthread_create(&lanes[k], NULL, lane_taker, &la), 0);
        for (int i = 0; i < STRESS_JOBS; i++) {
                memset(&jobs[i], 0, sizeof(jobs[i]));
                jobs[i].priority = i % 3;
                jobs[i].run = run_inside;
                jobs[i].done = on_stress_done;
                jobs[i].resource = &res;
                ck_assert_int_eq(daemon_sched_submit(&s, "q", &jobs[i]), 0);
                if (i % 16 == 0)
                        (void) uv_run(&loop, UV_RUN_NOWAIT);
        }
        while (stress_done < STRESS_JOBS)
                (void) uv_run(&loop, UV_RUN_ONCE);
        for (int k = 0; k < 2; k++)
                ck_assert_int_eq(pthread_join(lanes[k], NULL), 0);
        ck_assert_int_eq(atomic_load(&most_inside), 1);
        ck_assert_uint_eq(res.busy, 0);
        ck_assert_uint_eq(daemon_sched_running(&s), 0);
        ck_assert_uint_eq(daemon_sched_queued(&s), 0);
        daemon_sched_stop(&s);
        ck_assert_int_eq(uv_run(&loop, UV_RUN_DEFAULT), 0);
        ck_assert_int_eq(uv_loop_close(&loop), 0);
}
END_TEST

int main(void) {
        Suite *su = suite_create("scheduler");
        TCase *tc = tcase_create("scheduler");
        SRunner *sr;
        int failed;

        tcase_add_checked_fixture(tc, setup, NULL);
        tcase_set_timeout(tc, 30);
        tcase_add_test(tc, test_sched_priority_then_deadline_order);
        tcase_add_test(tc, test_sched_expired_deadline_is_not_run);
        tcase_add_test(tc, test_sched_cancel_and_cancel_owner);
        tcase_add_test(tc, test_sched_resource_cap_skips_to_runnable_job);
        tcase_add_test(tc, test_sched_stop_cancels_queued);
        tcase_add_test(tc, test_cpu_clamp);
        tcase_add_test(tc, test_cpu_budget_take_give);
        tcase_add_test(tc, test_sched_resource_shared_no_lost_wakeup);
        suite_add_tcase(su, tc);
        sr = srunner_create(su);
        srunner_run_all(sr, CK_NORMAL);
        failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed ? 1 : 0;
}
