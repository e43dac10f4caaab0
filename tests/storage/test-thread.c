/* SPDX-License-Identifier: Apache-2.0 */
/* The storage thread: order, callbacks, draining stop, bounded queue. */
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <sqlite3.h>

#include "storage-test.h"


typedef struct record {
        pthread_mutex_t lock;
        int order[256];
        int n_jobs;
        int n_done;
        int results[256];
        pthread_t job_thread, done_thread;
        store_db_t *seen_db;
} record_t;

static record_t rec = { .lock = PTHREAD_MUTEX_INITIALIZER };

typedef struct item {
        int index;
} item_t;

static item_t items[256];
static int64_t inserted_id;
static int done_result = 1;

static int job_record(store_db_t *db, void *userdata) {
        item_t *it = userdata;
        pthread_mutex_lock(&rec.lock);
        rec.order[rec.n_jobs++] = it->index;
        rec.job_thread = pthread_self();
        rec.seen_db = db;
        pthread_mutex_unlock(&rec.lock);
        return -it->index; /* a distinct result per job */
}

static void done_record(int result, void *userdata) {
        item_t *it = userdata;
        pthread_mutex_lock(&rec.lock);
        rec.results[it->index] = result;
        rec.n_done++;
        rec.done_thread = pthread_self();
        pthread_mutex_unlock(&rec.lock);
}

static sem_t gate, gate_entered;

static int job_gate(store_db_t *db, void *userdata) {
        sem_post(&gate_entered);
        while (sem_wait(&gate) < 0 && errno == EINTR)
                ;
        return job_record(db, userdata);
}

static void setup(void) {
        test_dir_make();
        /* Fresh records even when Check runs every test in one process. */
        memset(rec.order, 0, sizeof(rec.order));
        memset(rec.results, 0, sizeof(rec.results));
        rec.n_jobs = rec.n_done = 0;
        rec.seen_db = NULL;
        inserted_id = 0;
        done_result = 1;
}

static void teardown(void) {
        test_dir_remove();
}

static void init_items(void) {
        for (int i = 0; i < 256; i++)
                items[i].index = i;
}

START_TEST(test_thread_jobs_run_in_order) {
        init_items();
        store_thread_t *t = NULL;
        ck_assert_int_eq(store_thread_start(test_dir, 0, &t, NULL, 0), 0);
        for (int i = 0; i < 50; i++)
                ck_assert_int_eq(store_thread_submit(t, job_record, &items[i], done_record), 0);
        t = store_thread_stop(t);
        ck_assert_ptr_null(t);
        ck_assert_int_eq(rec.n_jobs, 50);
        ck_assert_int_eq(rec.n_done, 50);
        for (int i = 0; i < 50; i++) {
                ck_assert_int_eq(rec.order[i], i);
                ck_assert_int_eq(rec.results[i], -i);
        }
        ck_assert_ptr_nonnull(rec.seen_db);
        /* Both callbacks ran on the storage thread, not ours. */
        ck_assert(pthread_equal(rec.job_thread, rec.done_thread));
        ck_assert(!pthread_equal(rec.job_thread, pthread_self()));
}
END_TEST

static int job_insert(store_db_t *db, void *userdata) {
        static const int64_t times[] = { 5 };
        size_t n;
        uint8_t *b = event_blob(TFLITE__PROTO__BENCHMARK_EVENT_TYPE__END, 1, 10, times, 1, 1, &n);
        int r = store_event_insert(db, SHA_A, NULL, NULL, b, n, &inserted_id);
        free(b);
        return r;
}

static void done_store(int result, void *userdata) {
        done_result = result;
}

START_TEST(test_thread_job_uses_database) {
        store_thread_t *t = NULL;
        ck_assert_int_eq(store_thread_start(test_dir, 4, &t, NULL, 0), 0);
        ck_assert_int_eq(store_thread_submit(t, job_insert, NULL, done_store), 0);
        ck_assert_int_eq(store_thread_submit(t, job_insert, NULL, NULL), 0); /* done may be NULL */
        store_thread_stop(t);
        ck_assert_int_eq(done_result, 0);
        ck_assert_int_eq(inserted_id, 2);

        store_db_t *db = NULL;
        ck_assert_int_eq(store_db_open(test_dir, &db, NULL, 0), 0);
        store_event_t *v;
        size_t n;
        ck_assert_int_eq(store_event_list(db, NULL, &v, &n), 0);
        ck_assert_uint_eq(n, 2);
        store_event_list_free(v, n);
        store_db_close(db);
}
END_TEST

typedef struct stopper {
        store_thread_t *t;
} stopper_t;

static void *stop_in_thread(void *arg) {
        stopper_t *s = arg;
        store_thread_stop(s->t);
        return NULL;
}

START_TEST(test_thread_stop_drains_queue) {
        init_items();
        sem_init(&gate, 0, 0);
        sem_init(&gate_entered, 0, 0);
        store_thread_t *t = NULL;
        ck_assert_int_eq(store_thread_start(test_dir, 64, &t, NULL, 0), 0);
        ck_assert_int_eq(store_thread_submit(t, job_gate, &items[0], done_record), 0);
        sem_wait(&gate_entered);
        for (int i = 1; i <= 10; i++)
                ck_assert_int_eq(store_thread_submit(t, job_record, &items[i], done_record), 0);
        ck_assert_uint_eq(store_thread_queued(t), 10);

        /* Stop while the queue is full of work; submitting fails once stop
         * has begun. t stays valid until the gate opens. */
        stopper_t s = { t };
        pthread_t th;
        ck_assert_int_eq(pthread_create(&th, NULL, stop_in_thread, &s), 0);
        int r, extra = 0;
        while ((r = store_thread_submit(t, job_record, &items[11 + extra], done_record)) == 0) {
                extra++;
                ck_assert_int_lt(extra, 50);
                usleep(1000);
        }
        ck_assert_int_eq(r, -ESHUTDOWN);
        ck_assert_uint_eq(store_thread_queued(t), (size_t) (10 + extra));
        sem_post(&gate);
        ck_assert_int_eq(pthread_join(th, NULL), 0);

        ck_assert_int_eq(rec.n_jobs, 11 + extra);
        ck_assert_int_eq(rec.n_done, 11 + extra);
        for (int i = 0; i < 11 + extra; i++)
                ck_assert_int_eq(rec.order[i], i);
}
END_TEST

START_TEST(test_thread_full_queue_eagain) {
        init_items();
        sem_init(&gate, 0, 0);
        sem_init(&gate_entered, 0, 0);
        store_thread_t *t = NULL;
        ck_assert_int_eq(store_thread_start(test_dir, 4, &t, NULL, 0), 0);
        ck_assert_int_eq(store_thread_submit(t, job_gate, &items[0], done_record), 0);
        sem_wait(&gate_entered); /* the running job no longer counts */
        for (int i = 1; i <= 4; i++)
                ck_assert_int_eq(store_thread_submit(t, job_record, &items[i], done_record), 0);
        ck_assert_int_eq(store_thread_submit(t, job_record, &items[5], done_record), -EAGAIN);
        ck_assert_int_eq(store_thread_submit(t, job_record, &items[5], done_record), -EAGAIN);
        sem_post(&gate);
        store_thread_stop(t);
        ck_assert_int_eq(rec.n_jobs, 5);
        ck_assert_int_eq(rec.n_done, 5);
        ck_assert_int_eq(rec.results[5], 0); /* the refused job never ran */
        ck_assert_int_eq(rec.order[4], 4);
}
END_TEST

START_TEST(test_thread_start_reports_open_error) {
        sqlite3 *raw = NULL;
        ck_assert_int_eq(sqlite3_open(test_path("acceld.db"), &raw), SQLITE_OK);
        ck_assert_int_eq(sqlite3_exec(raw, "PRAGMA user_version = 99", NULL, NULL, NULL), SQLITE_OK);
        sqlite3_close(raw);
        store_thread_t *t = NULL;
        char err[256] = "";
        ck_assert_int_eq(store_thread_start(test_dir, 0, &t, err, sizeof(err)), -EPROTONOSUPPORT);
        ck_assert_ptr_null(t);
        ck_assert_str_eq(err, "database schema version 99 is newer than this acceld supports (6)");
        ck_assert_int_eq(store_thread_start(test_path("missing"), 0, &t, err, sizeof(err)), -ENOENT);
}
END_TEST

static int job_check_mask(store_db_t *db, void *userdata) {
        sigset_t cur;
        pthread_sigmask(SIG_SETMASK, NULL, &cur);
        return sigismember(&cur, SIGTERM) == 1 && sigismember(&cur, SIGCHLD) == 1 ? 0 : -EPERM;
}

START_TEST(test_thread_signals_blocked) {
        sigset_t before, after;
        pthread_sigmask(SIG_SETMASK, NULL, &before);
        store_thread_t *t = NULL;
        ck_assert_int_eq(store_thread_start(test_dir, 0, &t, NULL, 0), 0);
        pthread_sigmask(SIG_SETMASK, NULL, &after);
        ck_assert_int_eq(sigismember(&after, SIGTERM), sigismember(&before, SIGTERM)); /* ours restored */
        ck_assert_int_eq(store_thread_submit(t, job_check_mask, NULL, done_store), 0);
        store_thread_stop(t);
        ck_assert_int_eq(done_result, 0);
}
END_TEST

START_TEST(test_thread_bad_arguments) {
        store_thread_t *t = NULL;
        ck_assert_int_eq(store_thread_start(NULL, 0, &t, NULL, 0), -EINVAL);
        ck_assert_int_eq(store_thread_start(test_dir, 0, NULL, NULL, 0), -EINVAL);
        ck_assert_int_eq(store_thread_submit(NULL, job_record, NULL, NULL), -EINVAL);
        ck_assert_int_eq(store_thread_start(test_dir, 0, &t, NULL, 0), 0);
        ck_assert_int_eq(store_thread_submit(t, NULL, NULL, done_record), -EINVAL);
        ck_assert_ptr_null(store_thread_stop(t));
        ck_assert_ptr_null(store_thread_stop(NULL));
        ck_assert_int_eq(rec.n_done, 0);
}
END_TEST

int main(void) {
        Suite *s = suite_create("storage-thread");
        TCase *tc = tcase_create("thread");
        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_add_test(tc, test_thread_jobs_run_in_order);
        tcase_add_test(tc, test_thread_job_uses_database);
        tcase_add_test(tc, test_thread_stop_drains_queue);
        tcase_add_test(tc, test_thread_full_queue_eagain);
        tcase_add_test(tc, test_thread_start_reports_open_error);
        tcase_add_test(tc, test_thread_signals_blocked);
        tcase_add_test(tc, test_thread_bad_arguments);
        suite_add_tcase(s, tc);
        return run_suite(s);
}
