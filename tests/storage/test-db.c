/* SPDX-License-Identifier: Apache-2.0 */
/* Opening the database: pragmas, schema creation, migrations, refusals. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>

#include "storage-test.h"

static void setup(void) {
        test_dir_make();
}

static void teardown(void) {
        test_dir_remove();
}

/* Run one statement returning one text or integer value on a separate
 * raw connection, as another process would see the file. */
static char *raw_text(const char *sql) {
        sqlite3 *db = NULL;
        ck_assert_int_eq(sqlite3_open(test_path("acceld.db"), &db), SQLITE_OK);
        sqlite3_stmt *s = NULL;
        ck_assert_int_eq(sqlite3_prepare_v2(db, sql, -1, &s, NULL), SQLITE_OK);
        ck_assert_int_eq(sqlite3_step(s), SQLITE_ROW);
        const unsigned char *t = sqlite3_column_text(s, 0);
        char *r = strdup(t ? (const char *) t : "(null)");
        sqlite3_finalize(s);
        sqlite3_close(db);
        return r;
}

static void raw_exec(const char *sql) {
        sqlite3 *db = NULL;
        ck_assert_int_eq(sqlite3_open(test_path("acceld.db"), &db), SQLITE_OK);
        char *err = NULL;
        int rc = sqlite3_exec(db, sql, NULL, NULL, &err);
        ck_assert_msg(rc == SQLITE_OK, "%s", err ? err : "?");
        sqlite3_close(db);
}

START_TEST(test_db_create_schema) {
        store_db_t *db = NULL;
        char err[256] = "";
        ck_assert_int_eq(store_db_open(test_dir, &db, err, sizeof(err)), 0);
        ck_assert_ptr_nonnull(db);
        ck_assert_int_eq(store_db_schema_version(db), STORE_SCHEMA_VERSION);
        ck_assert_int_eq(STORE_SCHEMA_VERSION, 6);
        ck_assert_str_eq(store_db_state_dir(db), test_dir);
        ck_assert(file_exists(test_path("acceld.db")));
        ck_assert(file_exists(test_path("models")));
        ck_assert(file_exists(test_path("cache")));

        char *v = raw_text("PRAGMA user_version");
        ck_assert_str_eq(v, "6");
        free(v);
        char *mode = raw_text("PRAGMA journal_mode");
        ck_assert_str_eq(mode, "wal");
        free(mode);
        char *tables = raw_text("SELECT group_concat(name, ',') FROM (SELECT name FROM sqlite_master "
                                "WHERE type = 'table' ORDER BY name)");
        ck_assert_str_eq(tables, "benchmark_events,compile_cache,decisions,evaluations,model_owners,models");
        free(tables);
        char *idx = raw_text("SELECT group_concat(name, ',') FROM (SELECT name FROM sqlite_master "
                             "WHERE type = 'index' AND tbl_name = 'benchmark_events' ORDER BY name)");
        ck_assert_str_eq(idx, "benchmark_events_model_settings,benchmark_events_type,benchmark_events_uid,"
                              "benchmark_events_wallclock");
        free(idx);
        char *cols = raw_text("SELECT group_concat(name, ',') FROM pragma_table_info('benchmark_events')");
        ck_assert_str_eq(cols, "id,model_sha256,settings_key,event_type,boottime_us,wallclock_us,ok,blob,"
                               "median_inference_us,driver_version,uid,settings_json,error_stage,error_exit_code,"
                               "error_signal,error_message,operator");
        free(cols);
        char *views = raw_text("SELECT group_concat(name, ',') FROM (SELECT name FROM sqlite_master "
                               "WHERE type = 'view' ORDER BY name)");
        ck_assert_str_eq(views, "decisions_readable,events_readable");
        free(views);
        store_db_close(db);

        /* Reopening an up-to-date database changes nothing. */
        ck_assert_int_eq(store_db_open(test_dir, &db, NULL, 0), 0);
        ck_assert_int_eq(store_db_schema_version(db), STORE_SCHEMA_VERSION);
        store_db_close(db);
}
END_TEST

/* What version 1 of acceld created, verbatim: this test is the migration's
 * contract with databases in the field. */
static const char v1_schema[] =
        "CREATE TABLE models (sha256 TEXT PRIMARY KEY NOT NULL CHECK (length(sha256) = 64), name TEXT UNIQUE,"
        "  size INTEGER NOT NULL, path TEXT NOT NULL, added_at INTEGER NOT NULL, last_used_at INTEGER NOT NULL);"
        "CREATE TABLE benchmark_events (id INTEGER PRIMARY KEY, model_sha256 TEXT NOT NULL,"
        "  settings_key TEXT NOT NULL, event_type INTEGER NOT NULL, boottime_us INTEGER NOT NULL,"
        "  wallclock_us INTEGER NOT NULL, ok INTEGER, blob BLOB NOT NULL);"
        "CREATE INDEX benchmark_events_model_settings ON benchmark_events (model_sha256, settings_key);"
        "CREATE INDEX benchmark_events_type ON benchmark_events (event_type);"
        "CREATE TABLE decisions (model_sha256 TEXT NOT NULL, preference INTEGER NOT NULL,"
        "  settings_key TEXT NOT NULL, settings BLOB NOT NULL, reason TEXT NOT NULL,"
        "  driver_versions TEXT NOT NULL, decided_at INTEGER NOT NULL, PRIMARY KEY (model_sha256, preference));"
        "CREATE TABLE compile_cache (token TEXT PRIMARY KEY NOT NULL, model_sha256 TEXT NOT NULL,"
        "  settings_key TEXT NOT NULL, driver TEXT NOT NULL, driver_version TEXT NOT NULL, path TEXT NOT NULL,"
        "  size INTEGER NOT NULL, checksum TEXT NOT NULL, created_at INTEGER NOT NULL);"
        "CREATE INDEX compile_cache_model ON compile_cache (model_sha256);"
        "PRAGMA user_version = 1;";

START_TEST(test_db_migrate_v1_preserves_data) {
        raw_exec(v1_schema);
        /* An END event with inference times 30, 10, 20 (median 20), an
         * ERROR event, a named model and a decision, inserted with raw SQL. */
        static const int64_t times[] = { 30, 10, 20 };
        size_t n_end, n_err;
        uint8_t *end = event_blob(TFLITE__PROTO__BENCHMARK_EVENT_TYPE__END, 2, 5000, times, 3, 1, &n_end);
        uint8_t *err = event_blob(TFLITE__PROTO__BENCHMARK_EVENT_TYPE__ERROR, 2, 6000, NULL, 0, -1, &n_err);
        sqlite3 *raw = NULL;
        ck_assert_int_eq(sqlite3_open(test_path("acceld.db"), &raw), SQLITE_OK);
        sqlite3_stmt *s = NULL;
        ck_assert_int_eq(sqlite3_prepare_v2(raw,
                                            "INSERT INTO benchmark_events (id, model_sha256, settings_key, "
                                            "event_type, boottime_us, wallclock_us, ok, blob) "
                                            "VALUES (?1, '" SHA_A "', 'k', ?2, 1, ?3, ?4, ?5)", -1, &s, NULL),
                         SQLITE_OK);
        sqlite3_bind_int(s, 1, 7);
        sqlite3_bind_int(s, 2, 2);
        sqlite3_bind_int(s, 3, 5000);
        sqlite3_bind_int(s, 4, 1);
        sqlite3_bind_blob(s, 5, end, (int) n_end, SQLITE_STATIC);
        ck_assert_int_eq(sqlite3_step(s), SQLITE_DONE);
        sqlite3_reset(s);
        sqlite3_bind_int(s, 1, 8);
        sqlite3_bind_int(s, 2, 3);
        sqlite3_bind_int(s, 3, 6000);
        sqlite3_bind_null(s, 4);
        sqlite3_bind_blob(s, 5, err, (int) n_err, SQLITE_STATIC);
        ck_assert_int_eq(sqlite3_step(s), SQLITE_DONE);
        sqlite3_finalize(s);
        ck_assert_int_eq(sqlite3_exec(raw,
                                      "INSERT INTO models VALUES ('" SHA_B "', 'old-model', 42, "
                                      "'models/" SHA_B ".tflite', 100, 200);"
                                      "INSERT INTO decisions VALUES ('" SHA_B "', 1, 'k', x'0804', 'fastest', "
                                      "'xnnpack=1', 300);",
                                      NULL, NULL, NULL),
                         SQLITE_OK);
        sqlite3_close(raw);

        store_db_t *db = NULL;
        char msg[256] = "";
        ck_assert_int_eq(store_db_open(test_dir, &db, msg, sizeof(msg)), 0);
        ck_assert_int_eq(store_db_schema_version(db), STORE_SCHEMA_VERSION);

        store_event_t *v = NULL;
        size_t n = 0;
        ck_assert_int_eq(store_event_list(db, NULL, &v, &n), 0);
        ck_assert_uint_eq(n, 2);
        ck_assert_int_eq(v[0].id, 7);
        ck_assert_int_eq(v[0].event_type, TFLITE__PROTO__BENCHMARK_EVENT_TYPE__END);
        ck_assert_int_eq(v[0].ok, 1);
        ck_assert_int_eq(v[0].median_inference_us, 20); /* backfilled from the blob */
        ck_assert_ptr_null(v[0].driver_version);
        ck_assert_uint_eq(v[0].blob_size, n_end);
        ck_assert_mem_eq(v[0].blob, end, n_end);
        ck_assert_int_eq(v[1].id, 8);
        ck_assert_int_eq(v[1].ok, -1);
        ck_assert_int_eq(v[1].median_inference_us, -1);
        store_event_list_free(v, n);

        store_model_t m;
        ck_assert_int_eq(store_model_find(db, "old-model", &m), 0);
        ck_assert_str_eq(m.sha256, SHA_B);
        ck_assert_int_eq(m.size, 42);
        ck_assert_int_eq(m.added_at_us, 100);
        store_model_done(&m);

        /* Rows without an owner are the operators' (root's): the model, its
         * name (names are per uid now), the events and the decision. */
        ck_assert_int_eq(store_model_owned(db, SHA_B, 0), 1);
        ck_assert_int_eq(store_model_owned(db, SHA_B, 1000), 0);
        ck_assert_int_eq(store_model_find_for(db, "old-model", 1000, false, &m), -ENOENT);
        ck_assert_int_eq(store_model_find_for(db, SHA_B, 1000, false, &m), -ENOENT);
        ck_assert_int_eq(store_model_find_for(db, "old-model", 0, false, &m), 0);
        ck_assert_str_eq(m.name, "old-model");
        store_model_done(&m);
        store_event_filter_t of = { .has_uid = true, .uid = 1000, .with_operators = true };
        ck_assert_int_eq(store_event_list(db, &of, &v, &n), 0);
        ck_assert_uint_eq(n, 2);
        store_event_list_free(v, n);
        of.with_operators = false;
        ck_assert_int_eq(store_event_list(db, &of, &v, &n), 0);
        ck_assert_uint_eq(n, 0);
        store_event_list_free(v, n);

        store_decision_t d;
        ck_assert_int_eq(store_decision_get(db, SHA_B, 1, 0, &d), 0);
        ck_assert_str_eq(d.reason, "fastest");
        ck_assert_uint_eq(d.settings_size, 2);
        ck_assert_uint_eq(d.uid, 0);
        store_decision_done(&d);
        ck_assert_int_eq(store_decision_get(db, SHA_B, 1, 1000, &d), -ENOENT);

        /* New rows use the new columns. */
        int64_t id = 0;
        ck_assert_int_eq(store_event_insert(db, SHA_A, "k", "xnnpack=2", end, n_end, &id), 0);
        ck_assert_int_eq(id, 9);
        store_db_close(db);
        free(end);
        free(err);
}
END_TEST

/* The state is acceld's alone: new folders 0700 and files 0600, and what
 * an older acceld left group-readable (0750 folders, 0640 files) is
 * narrowed at the next open. */
START_TEST(test_db_state_is_private) {
        static const char *const dirs[] = { "models", "cache" };
        store_db_t *db = NULL;
        store_model_t m;
        struct stat st;
        char path[4300];

        ck_assert_int_eq(store_db_open(test_dir, &db, NULL, 0), 0);
        ck_assert_int_eq(store_model_add(db, "TFL3 private", 12, NULL, &m), 0);
        ck_assert_int_eq(stat(m.path, &st), 0);
        ck_assert_uint_eq(st.st_mode & 0777, 0600);
        for (size_t i = 0; i < 2; i++) {
                ck_assert_int_eq(stat(test_path(dirs[i]), &st), 0);
                ck_assert_uint_eq(st.st_mode & 0777, 0700);
        }
        ck_assert_int_eq(stat(test_path("acceld.db"), &st), 0);
        ck_assert_uint_eq(st.st_mode & 0777, 0600);
        store_db_close(db);

        /* As an older acceld (or a 0750 StateDirectory) left them. */
        ck_assert_int_eq(chmod(test_path("models"), 0755), 0);
        ck_assert_int_eq(chmod(test_path("cache"), 0750), 0);
        ck_assert_int_eq(chmod(m.path, 0644), 0);
        ck_assert_int_eq(chmod(test_path("acceld.db"), 0640), 0);
        snprintf(path, sizeof(path), "%s-wal", test_path("acceld.db"));
        if (access(path, F_OK) == 0)
                ck_assert_int_eq(chmod(path, 0644), 0);
        ck_assert_int_eq(store_db_open(test_dir, &db, NULL, 0), 0);
        for (size_t i = 0; i < 2; i++) {
                ck_assert_int_eq(stat(test_path(dirs[i]), &st), 0);
                ck_assert_uint_eq(st.st_mode & 0777, 0700);
        }
        ck_assert_int_eq(stat(m.path, &st), 0);
        ck_assert_uint_eq(st.st_mode & 0777, 0600);
        ck_assert_int_eq(stat(test_path("acceld.db"), &st), 0);
        ck_assert_uint_eq(st.st_mode & 0777, 0600);
        /* SQLite makes the WAL with the database file's mode. */
        ck_assert_int_eq(store_model_touch(db, m.sha256), 0);
        ck_assert_int_eq(stat(path, &st), 0);
        ck_assert_uint_eq(st.st_mode & 0777, 0600);
        store_db_close(db);
        store_model_done(&m);
}
END_TEST

START_TEST(test_db_newer_version_refused) {
        raw_exec("CREATE TABLE future (x); PRAGMA user_version = 99;");
        store_db_t *db = NULL;
        char err[256] = "";
        ck_assert_int_eq(store_db_open(test_dir, &db, err, sizeof(err)), -EPROTONOSUPPORT);
        ck_assert_ptr_null(db);
        ck_assert_str_eq(err, "database schema version 99 is newer than this acceld supports (6)");
        /* Refusing did not touch it. */
        char *v = raw_text("PRAGMA user_version");
        ck_assert_str_eq(v, "99");
        free(v);
}
END_TEST

START_TEST(test_db_failed_migration_rolls_back) {
        /* A v1 file where the v2 step cannot apply (the column exists
         * already): the step fails as a whole and the version stays 1. */
        raw_exec(v1_schema);
        raw_exec("ALTER TABLE benchmark_events ADD COLUMN driver_version TEXT;");
        store_db_t *db = NULL;
        char err[256] = "";
        ck_assert_int_eq(store_db_open(test_dir, &db, err, sizeof(err)), -EIO);
        ck_assert_ptr_null(db);
        ck_assert_msg(strstr(err, "migration to schema version 2 failed") != NULL, "%s", err);
        char *v = raw_text("PRAGMA user_version");
        ck_assert_str_eq(v, "1");
        free(v);
        char *cols = raw_text("SELECT count(*) FROM pragma_table_info('benchmark_events') "
                              "WHERE name = 'median_inference_us'");
        ck_assert_str_eq(cols, "0");
        free(cols);
}
END_TEST

START_TEST(test_db_bad_arguments) {
        store_db_t *db = NULL;
        char err[256] = "";
        ck_assert_int_eq(store_db_open(NULL, &db, err, sizeof(err)), -EINVAL);
        ck_assert_int_eq(store_db_open(test_dir, NULL, NULL, 0), -EINVAL);
        ck_assert_int_eq(store_db_open(test_path("missing"), &db, err, sizeof(err)), -ENOENT);
        int fd = open(test_path("file"), O_CREAT | O_WRONLY, 0600);
        ck_assert_int_ge(fd, 0);
        close(fd);
        ck_assert_int_eq(store_db_open(test_path("file"), &db, err, sizeof(err)), -ENOTDIR);
        ck_assert_ptr_null(db);
        ck_assert_int_eq(store_db_schema_version(NULL), -EINVAL);
        ck_assert_ptr_null(store_db_close(NULL));
}
END_TEST

START_TEST(test_db_not_a_database) {
        FILE *f = fopen(test_path("acceld.db"), "w");
        ck_assert_ptr_nonnull(f);
        for (int i = 0; i < 200; i++)
                fputs("this is not an sqlite database. ", f);
        fclose(f);
        store_db_t *db = NULL;
        char err[256] = "";
        ck_assert_int_eq(store_db_open(test_dir, &db, err, sizeof(err)), -EBADMSG);
        ck_assert_ptr_null(db);
        ck_assert(err[0] != '\0');
}
END_TEST

int main(void) {
        Suite *s = suite_create("storage-db");
        TCase *tc = tcase_create("db");
        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_add_test(tc, test_db_create_schema);
        tcase_add_test(tc, test_db_migrate_v1_preserves_data);
        tcase_add_test(tc, test_db_newer_version_refused);
        tcase_add_test(tc, test_db_state_is_private);
        tcase_add_test(tc, test_db_failed_migration_rolls_back);
        tcase_add_test(tc, test_db_bad_arguments);
        tcase_add_test(tc, test_db_not_a_database);
        suite_add_tcase(s, tc);
        return run_suite(s);
}
