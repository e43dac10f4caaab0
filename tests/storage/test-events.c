/* SPDX-License-Identifier: Apache-2.0 */
/* Benchmark events: insert, filters, durability, orphans, crash counts. */
#include <check.h>
#include <errno.h>
#include <signal.h>
#include <sys/wait.h>

#include <sqlite3.h>

#include "storage-test.h"

#define START TFLITE__PROTO__BENCHMARK_EVENT_TYPE__START
#define END TFLITE__PROTO__BENCHMARK_EVENT_TYPE__END
#define ERROR TFLITE__PROTO__BENCHMARK_EVENT_TYPE__ERROR
#define LOGGED TFLITE__PROTO__BENCHMARK_EVENT_TYPE__LOGGED

#define KEY1 "delegate=XNNPACK;xnnpack_settings.num_threads=1"
#define KEY2 "delegate=XNNPACK;xnnpack_settings.num_threads=2"

static store_db_t *db;

static void setup(void) {
        test_dir_make();
        ck_assert_int_eq(store_db_open(test_dir, &db, NULL, 0), 0);
}

static void teardown(void) {
        db = store_db_close(db);
        test_dir_remove();
}

/* Insert an event for model sha with `threads` XNNPACK threads. */
static int64_t add(const char *sha, int type, int threads, int64_t wallclock, const char *driver_version) {
        static const int64_t times[] = { 100, 300, 200, 400 };
        size_t n;
        uint8_t *b = event_blob(type, threads, wallclock, times, 4, 1, &n);
        int64_t id = -1;
        ck_assert_int_eq(store_event_insert(db, sha, NULL, driver_version, b, n, &id), 0);
        free(b);
        return id;
}

static size_t list(const store_event_filter_t *f, int64_t *ids, size_t max) {
        store_event_t *v = NULL;
        size_t n = 0;
        ck_assert_int_eq(store_event_list(db, f, &v, &n), 0);
        ck_assert_uint_le(n, max);
        for (size_t i = 0; i < n; i++)
                ids[i] = v[i].id;
        store_event_list_free(v, n);
        return n;
}

START_TEST(test_events_insert_decodes_columns) {
        static const int64_t times[] = { 100, 300, 200, 400 };
        size_t n;
        uint8_t *b = event_blob(END, 2, 123456, times, 4, 0, &n);
        int64_t id1 = 0, id2 = 0;
        ck_assert_int_eq(store_event_insert(db, SHA_A, NULL, "1.0", b, n, &id1), 0);
        ck_assert_int_eq(store_event_insert(db, SHA_A, "custom", NULL, b, n, &id2), 0);
        ck_assert_int_eq(id1, 1);
        ck_assert_int_eq(id2, 2);

        store_event_t *v = NULL;
        size_t cnt = 0;
        ck_assert_int_eq(store_event_list(db, NULL, &v, &cnt), 0);
        ck_assert_uint_eq(cnt, 2);
        ck_assert_str_eq(v[0].model_sha256, SHA_A);
        ck_assert_str_eq(v[0].settings_key, KEY2); /* from the blob */
        ck_assert_str_eq(v[0].driver_version, "1.0");
        ck_assert_int_eq(v[0].event_type, END);
        ck_assert_int_eq(v[0].wallclock_us, 123456);
        ck_assert_int_eq(v[0].boottime_us, 123456 / 2);
        ck_assert_int_eq(v[0].ok, 0);
        ck_assert_int_eq(v[0].median_inference_us, 250); /* mean of 200 and 300 */
        ck_assert_uint_eq(v[0].blob_size, n);
        ck_assert_mem_eq(v[0].blob, b, n);
        ck_assert_str_eq(v[1].settings_key, "custom");
        ck_assert_ptr_null(v[1].driver_version);
        store_event_list_free(v, cnt);
        free(b);
}
END_TEST

START_TEST(test_events_columns_decode) {
        static const int64_t odd[] = { 9, 1, 5 };
        size_t n;
        uint8_t *b = event_blob(END, 0, 7, odd, 3, -1, &n);
        store_event_columns_t c;
        ck_assert_int_eq(store_event_columns_decode(b, n, &c), 0);
        ck_assert_int_eq(c.event_type, END);
        ck_assert_int_eq(c.median_inference_us, 5);
        ck_assert_int_eq(c.ok, -1);
        ck_assert(c.has_wallclock);
        ck_assert_str_eq(c.settings_key, "");
        store_event_columns_done(&c);
        free(b);

        b = event_blob(START, 1, 7, NULL, 0, -1, &n);
        ck_assert_int_eq(store_event_columns_decode(b, n, &c), 0);
        ck_assert_int_eq(c.event_type, START);
        ck_assert_int_eq(c.median_inference_us, -1);
        ck_assert_str_eq(c.settings_key, KEY1);
        store_event_columns_done(&c);
        free(b);
}
END_TEST

START_TEST(test_events_insert_rejects_bad_input) {
        static const uint8_t garbage[] = { 0x12, 0x40, 0x01 };
        static const uint8_t no_type[] = { 0x30, 0x05 }; /* wallclock_us only */
        size_t n;
        uint8_t *b = event_blob(START, 1, 1, NULL, 0, -1, &n);
        int64_t id = 77;
        ck_assert_int_eq(store_event_insert(db, SHA_A, NULL, NULL, garbage, sizeof(garbage), &id), -EBADMSG);
        ck_assert_int_eq(store_event_insert(db, SHA_A, NULL, NULL, no_type, sizeof(no_type), &id), -EBADMSG);
        ck_assert_int_eq(store_event_insert(db, "abc", NULL, NULL, b, n, &id), -EINVAL);
        ck_assert_int_eq(store_event_insert(db, SHA_A, NULL, NULL, b, 0, &id), -EINVAL);
        ck_assert_int_eq(store_event_insert(NULL, SHA_A, NULL, NULL, b, n, &id), -EINVAL);
        ck_assert_int_eq(id, 77);
        store_event_filter_t f = { .model_sha256 = "short" };
        store_event_t *v;
        size_t cnt;
        ck_assert_int_eq(store_event_list(db, &f, &v, &cnt), -EINVAL);
        free(b);
}
END_TEST

START_TEST(test_events_missing_clocks_filled) {
        static const uint8_t only_type[] = { 0x10, 0x04 }; /* LOGGED, no clocks */
        int64_t id;
        ck_assert_int_eq(store_event_insert(db, SHA_A, "", NULL, only_type, sizeof(only_type), &id), 0);
        store_event_t *v;
        size_t cnt;
        ck_assert_int_eq(store_event_list(db, NULL, &v, &cnt), 0);
        ck_assert_uint_eq(cnt, 1);
        ck_assert_int_eq(v[0].event_type, LOGGED);
        ck_assert_int_gt(v[0].wallclock_us, 1600000000LL * 1000000); /* a real clock, not 0 */
        ck_assert_int_gt(v[0].boottime_us, 0);
        ck_assert_uint_eq(v[0].blob_size, sizeof(only_type)); /* stored unchanged */
        store_event_list_free(v, cnt);
}
END_TEST

START_TEST(test_events_list_filters) {
        /* ids:        1      2     3      4      5      6 */
        add(SHA_A, START, 1, 1000, NULL);
        add(SHA_A, END, 1, 2000, NULL);
        add(SHA_A, START, 2, 3000, NULL);
        add(SHA_A, ERROR, 2, 4000, NULL);
        add(SHA_B, START, 1, 5000, NULL);
        add(SHA_B, END, 1, 6000, NULL);
        int64_t ids[8];

        ck_assert_uint_eq(list(NULL, ids, 8), 6);
        ck_assert_int_eq(ids[0], 1);
        ck_assert_int_eq(ids[5], 6);

        store_event_filter_t f = { .model_sha256 = SHA_B };
        ck_assert_uint_eq(list(&f, ids, 8), 2);
        ck_assert_int_eq(ids[0], 5);
        ck_assert_int_eq(ids[1], 6);

        f = (store_event_filter_t) { .settings_key = KEY2 };
        ck_assert_uint_eq(list(&f, ids, 8), 2);
        ck_assert_int_eq(ids[0], 3);
        ck_assert_int_eq(ids[1], 4);

        f = (store_event_filter_t) { .event_type = START };
        ck_assert_uint_eq(list(&f, ids, 8), 3);
        ck_assert_int_eq(ids[0], 1);
        ck_assert_int_eq(ids[1], 3);
        ck_assert_int_eq(ids[2], 5);

        /* [from, to): 2000 is in, 4000 is out. */
        f = (store_event_filter_t) { .has_from = true, .from_us = 2000, .has_to = true, .to_us = 4000 };
        ck_assert_uint_eq(list(&f, ids, 8), 2);
        ck_assert_int_eq(ids[0], 2);
        ck_assert_int_eq(ids[1], 3);
        f = (store_event_filter_t) { .has_from = true, .from_us = 5500 };
        ck_assert_uint_eq(list(&f, ids, 8), 1);
        ck_assert_int_eq(ids[0], 6);
        f = (store_event_filter_t) { .has_to = true, .to_us = 1001 };
        ck_assert_uint_eq(list(&f, ids, 8), 1);
        ck_assert_int_eq(ids[0], 1);

        f = (store_event_filter_t) { .limit = 2 };
        ck_assert_uint_eq(list(&f, ids, 8), 2);
        ck_assert_int_eq(ids[0], 1);
        ck_assert_int_eq(ids[1], 2);
        f = (store_event_filter_t) { .limit = 2, .newest_first = true };
        ck_assert_uint_eq(list(&f, ids, 8), 2);
        ck_assert_int_eq(ids[0], 6);
        ck_assert_int_eq(ids[1], 5);
        f = (store_event_filter_t) { .after_id = 4 };
        ck_assert_uint_eq(list(&f, ids, 8), 2);
        ck_assert_int_eq(ids[0], 5);

        f = (store_event_filter_t) { .model_sha256 = SHA_A, .settings_key = KEY1, .event_type = END,
                                     .has_from = true, .from_us = 0, .has_to = true, .to_us = 10000, .limit = 5 };
        ck_assert_uint_eq(list(&f, ids, 8), 1);
        ck_assert_int_eq(ids[0], 2);
        f.model_sha256 = SHA_B;
        f.settings_key = KEY2;
        ck_assert_uint_eq(list(&f, ids, 8), 0);
}
END_TEST

START_TEST(test_events_ack_survives_kill9) {
        /* No connection may cross fork(): the child opens its own. */
        db = store_db_close(db);
        int p[2];
        ck_assert_int_eq(pipe(p), 0);
        pid_t pid = fork();
        ck_assert_int_ge(pid, 0);
        if (pid == 0) {
                /* The "daemon": open, insert, acknowledge, then hang until killed. */
                close(p[0]);
                store_db_t *cdb = NULL;
                if (store_db_open(test_dir, &cdb, NULL, 0) < 0)
                        _exit(2);
                static const int64_t times[] = { 42 };
                size_t n;
                uint8_t *b = event_blob(END, 3, 999, times, 1, 1, &n);
                int64_t id = -1;
                if (store_event_insert(cdb, SHA_B, NULL, NULL, b, n, &id) < 0)
                        _exit(3);
                if (write(p[1], &id, sizeof(id)) != sizeof(id))
                        _exit(4);
                for (;;)
                        pause();
        }
        close(p[1]);
        int64_t id = 0;
        ck_assert_int_eq(read(p[0], &id, sizeof(id)), sizeof(id));
        close(p[0]);
        ck_assert_int_eq(kill(pid, SIGKILL), 0);
        int status = 0;
        ck_assert_int_eq(waitpid(pid, &status, 0), pid);
        ck_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);

        /* The child never closed the database: the event lives in the WAL. */
        ck_assert(file_exists(test_path("acceld.db-wal")));
        ck_assert_int_eq(store_db_open(test_dir, &db, NULL, 0), 0);
        store_event_t *v;
        size_t cnt;
        store_event_filter_t f = { .model_sha256 = SHA_B };
        ck_assert_int_eq(store_event_list(db, &f, &v, &cnt), 0);
        ck_assert_uint_eq(cnt, 1);
        ck_assert_int_eq(v[0].id, id);
        ck_assert_int_eq(v[0].median_inference_us, 42);
        ck_assert_int_eq(v[0].wallclock_us, 999);
        store_event_list_free(v, cnt);
}
END_TEST

START_TEST(test_events_orphaned_starts) {
        const int64_t now = 1000000;
        int64_t a = add(SHA_A, START, 1, 100, NULL); /* answered by END */
        add(SHA_A, END, 1, 200, NULL);
        int64_t b = add(SHA_A, START, 2, 300, NULL); /* orphan: the next START of its pair came first */
        int64_t c = add(SHA_A, START, 2, 400, NULL); /* answered by ERROR */
        add(SHA_A, ERROR, 2, 500, NULL);
        int64_t d = add(SHA_B, START, 1, 600, NULL);    /* orphan */
        int64_t e = add(SHA_B, START, 2, now - 10, NULL); /* still within the timeout */
        add(SHA_A, END, 4, 700, NULL); /* other settings: answers nothing */
        (void) a;
        (void) c;

        store_event_t *v;
        size_t n;
        ck_assert_int_eq(store_event_find_orphans(db, now, 1000, &v, &n), 0);
        ck_assert_uint_eq(n, 2);
        ck_assert_int_eq(v[0].id, b);
        ck_assert_int_eq(v[1].id, d);
        ck_assert_str_eq(v[1].model_sha256, SHA_B);
        ck_assert_str_eq(v[1].settings_key, KEY1);
        store_event_list_free(v, n);

        /* After the timeout e is an orphan too; recording ERRORs resolves d and e. */
        ck_assert_int_eq(store_event_find_orphans(db, now + 1000, 1000, &v, &n), 0);
        ck_assert_uint_eq(n, 3);
        ck_assert_int_eq(v[2].id, e);
        store_event_list_free(v, n);
        add(SHA_B, ERROR, 1, now + 1, NULL);
        add(SHA_B, ERROR, 2, now + 2, NULL);
        ck_assert_int_eq(store_event_find_orphans(db, now + 1000, 1000, &v, &n), 0);
        ck_assert_uint_eq(n, 1);
        ck_assert_int_eq(v[0].id, b);
        store_event_list_free(v, n);
        ck_assert_int_eq(store_event_find_orphans(db, now, -1, &v, &n), -EINVAL);
}
END_TEST

/* The operators' views: events and decisions in readable columns, settings
 * as JSON, ERROR events with their stage, signal and message. Queried
 * with plain SQL, as an operator's sqlite3 would. */
START_TEST(test_events_readable_views) {
        int64_t end = add(SHA_A, END, 2, 1700000000000000, "xnnpack=1");
        int64_t err = add(SHA_A, ERROR, 1, 1700000001000000, "xnnpack=1");
        ck_assert_int_eq(store_event_set_message(db, err, "crashed with signal 11 (Segmentation fault) during "
                                                          "inference"), 0);
        ck_assert_int_eq(store_event_set_message(db, 9999, "x"), -ENOENT);
        db = store_db_close(db);

        sqlite3 *raw = NULL;
        char path[4200];
        snprintf(path, sizeof(path), "%s/acceld.db", test_dir);
        ck_assert_int_eq(sqlite3_open_v2(path, &raw, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
        sqlite3_stmt *st = NULL;
        ck_assert_int_eq(sqlite3_prepare_v2(raw,
                                            "SELECT id, type, correct, median_inference_us, error_stage, "
                                            "error_signal, error_message, settings_json, time_utc "
                                            "FROM events_readable ORDER BY id",
                                            -1, &st, NULL),
                         SQLITE_OK);
        ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
        ck_assert_int_eq(sqlite3_column_int64(st, 0), end);
        ck_assert_str_eq((const char *) sqlite3_column_text(st, 1), "END");
        ck_assert_str_eq((const char *) sqlite3_column_text(st, 2), "yes");
        ck_assert_int_eq(sqlite3_column_int64(st, 3), 250);
        ck_assert_int_eq(sqlite3_column_type(st, 4), SQLITE_NULL);
        ck_assert_str_eq((const char *) sqlite3_column_text(st, 7),
                         "{\"delegate\":\"XNNPACK\",\"xnnpack_settings\":{\"num_threads\":2}}");
        ck_assert_str_eq((const char *) sqlite3_column_text(st, 8), "2023-11-14 22:13:20.000");
        ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
        ck_assert_str_eq((const char *) sqlite3_column_text(st, 1), "ERROR");
        ck_assert_str_eq((const char *) sqlite3_column_text(st, 4), "UNKNOWN");
        ck_assert_int_eq(sqlite3_column_int(st, 5), 11);
        ck_assert_str_eq((const char *) sqlite3_column_text(st, 6),
                         "crashed with signal 11 (Segmentation fault) during inference");
        ck_assert_str_eq((const char *) sqlite3_column_text(st, 7),
                         "{\"delegate\":\"XNNPACK\",\"xnnpack_settings\":{\"num_threads\":1}}");
        ck_assert_int_eq(sqlite3_step(st), SQLITE_DONE);
        sqlite3_finalize(st);
        sqlite3_close(raw);
        ck_assert_int_eq(store_db_open(test_dir, &db, NULL, 0), 0);
}
END_TEST

START_TEST(test_events_count_errors) {
        add(SHA_A, ERROR, 1, 100, "1.0");
        add(SHA_A, ERROR, 1, 200, "1.0");
        add(SHA_A, ERROR, 1, 300, "2.0");
        add(SHA_A, END, 1, 400, "2.0");
        add(SHA_A, ERROR, 2, 500, "2.0");
        add(SHA_B, ERROR, 1, 600, "2.0");
        ck_assert_int_eq(store_event_count_errors(db, SHA_A, KEY1, NULL), 3);
        ck_assert_int_eq(store_event_count_errors(db, SHA_A, KEY1, "1.0"), 2);
        ck_assert_int_eq(store_event_count_errors(db, SHA_A, KEY1, "2.0"), 1);
        ck_assert_int_eq(store_event_count_errors(db, SHA_A, KEY1, "3.0"), 0);
        ck_assert_int_eq(store_event_count_errors(db, SHA_A, KEY2, NULL), 1);
        ck_assert_int_eq(store_event_count_errors(db, SHA_B, KEY2, NULL), 0);
        ck_assert_int_eq(store_event_count_errors(db, "x", KEY1, NULL), -EINVAL);
        ck_assert_int_eq(store_event_count_errors(db, SHA_A, NULL, NULL), -EINVAL);
}
END_TEST

int main(void) {
        Suite *s = suite_create("storage-events");
        TCase *tc = tcase_create("events");
        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_add_test(tc, test_events_insert_decodes_columns);
        tcase_add_test(tc, test_events_columns_decode);
        tcase_add_test(tc, test_events_insert_rejects_bad_input);
        tcase_add_test(tc, test_events_missing_clocks_filled);
        tcase_add_test(tc, test_events_list_filters);
        tcase_add_test(tc, test_events_ack_survives_kill9);
        tcase_add_test(tc, test_events_orphaned_starts);
        tcase_add_test(tc, test_events_count_errors);
        tcase_add_test(tc, test_events_readable_views);
        suite_add_tcase(s, tc);
        return run_suite(s);
}
