/* SPDX-License-Identifier: Apache-2.0 */
/* Decisions: one per model and preference, replaced on upsert. */
#include <check.h>
#include <errno.h>

#include <sqlite3.h>

#include "storage-test.h"

static store_db_t *db;

static void setup(void) {
        test_dir_make();
        ck_assert_int_eq(store_db_open(test_dir, &db, NULL, 0), 0);
}

static void teardown(void) {
        db = store_db_close(db);
        test_dir_remove();
}

static const uint8_t xnn2[] = { 0x08, 0x04, 0x2a, 0x02, 0x08, 0x02 };

static store_decision_t decision(int pref, const char *key, const char *reason, const char *versions) {
        store_decision_t d = {
                .preference = pref,
                .settings_key = (char *) key,
                .settings = (uint8_t *) xnn2,
                .settings_size = sizeof(xnn2),
                .reason = (char *) reason,
                .driver_versions = (char *) versions,
        };
        memcpy(d.model_sha256, SHA_A, ACC_SHA256_HEX_SIZE);
        return d;
}

START_TEST(test_decisions_put_get) {
        store_decision_t d = decision(TFLITE__PROTO__EXECUTION_PREFERENCE__LOW_LATENCY, "k2", "fastest ok: 250us",
                                      "reference=1;xnnpack=2");
        ck_assert_int_eq(store_decision_put(db, &d), 0);
        store_decision_t g;
        ck_assert_int_eq(store_decision_get(db, SHA_A, TFLITE__PROTO__EXECUTION_PREFERENCE__LOW_LATENCY, 0, &g), 0);
        ck_assert_str_eq(g.model_sha256, SHA_A);
        ck_assert_int_eq(g.preference, TFLITE__PROTO__EXECUTION_PREFERENCE__LOW_LATENCY);
        ck_assert_str_eq(g.settings_key, "k2");
        ck_assert_uint_eq(g.settings_size, sizeof(xnn2));
        ck_assert_mem_eq(g.settings, xnn2, sizeof(xnn2));
        ck_assert_str_eq(g.reason, "fastest ok: 250us");
        ck_assert_str_eq(g.driver_versions, "reference=1;xnnpack=2");
        ck_assert_int_gt(g.decided_at_us, 0);
        store_decision_done(&g);
        ck_assert_int_eq(store_decision_get(db, SHA_A, TFLITE__PROTO__EXECUTION_PREFERENCE__LOW_POWER, 0, &g), -ENOENT);
        ck_assert_int_eq(store_decision_get(db, SHA_B, TFLITE__PROTO__EXECUTION_PREFERENCE__LOW_LATENCY, 0, &g), -ENOENT);
}
END_TEST

/* decisions_readable: the preference by name and the settings as JSON. */
START_TEST(test_decisions_readable_view) {
        store_decision_t d = decision(TFLITE__PROTO__EXECUTION_PREFERENCE__LOW_LATENCY, "k2", "fastest ok: 250us",
                                      "reference=1;xnnpack=2");
        ck_assert_int_eq(store_decision_put(db, &d), 0);
        db = store_db_close(db);
        char path[4200];
        snprintf(path, sizeof(path), "%s/acceld.db", test_dir);
        sqlite3 *raw = NULL;
        sqlite3_stmt *st = NULL;
        ck_assert_int_eq(sqlite3_open_v2(path, &raw, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
        ck_assert_int_eq(sqlite3_prepare_v2(raw, "SELECT preference, settings_json, reason FROM decisions_readable",
                                            -1, &st, NULL),
                         SQLITE_OK);
        ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
        ck_assert_str_eq((const char *) sqlite3_column_text(st, 0), "LOW_LATENCY");
        ck_assert_str_eq((const char *) sqlite3_column_text(st, 1),
                         "{\"delegate\":\"XNNPACK\",\"xnnpack_settings\":{\"num_threads\":2}}");
        ck_assert_str_eq((const char *) sqlite3_column_text(st, 2), "fastest ok: 250us");
        sqlite3_finalize(st);
        sqlite3_close(raw);
        ck_assert_int_eq(store_db_open(test_dir, &db, NULL, 0), 0);
}
END_TEST

START_TEST(test_decisions_upsert_replaces) {
        store_decision_t d = decision(1, "k1", "first", "v1");
        d.decided_at_us = 10;
        ck_assert_int_eq(store_decision_put(db, &d), 0);
        d = decision(1, "k2", NULL, NULL);
        d.settings = NULL;
        d.settings_size = 0; /* default settings: empty blob, not NULL */
        d.decided_at_us = 20;
        ck_assert_int_eq(store_decision_put(db, &d), 0);
        store_decision_t g;
        ck_assert_int_eq(store_decision_get(db, SHA_A, 1, 0, &g), 0);
        ck_assert_str_eq(g.settings_key, "k2");
        ck_assert_uint_eq(g.settings_size, 0);
        ck_assert_ptr_null(g.settings);
        ck_assert_str_eq(g.reason, "");
        ck_assert_str_eq(g.driver_versions, "");
        ck_assert_int_eq(g.decided_at_us, 20);
        store_decision_done(&g);
}
END_TEST

START_TEST(test_decisions_delete) {
        store_decision_t d = decision(0, "k", "r", "v");
        ck_assert_int_eq(store_decision_put(db, &d), 0);
        d.preference = 1;
        ck_assert_int_eq(store_decision_put(db, &d), 0);
        d.preference = 2;
        ck_assert_int_eq(store_decision_put(db, &d), 0);
        ck_assert_int_eq(store_decision_delete(db, SHA_A, 1, -1), 1);
        ck_assert_int_eq(store_decision_delete(db, SHA_A, 1, -1), 0);
        ck_assert_int_eq(store_decision_delete(db, SHA_A, -1, -1), 2);
        store_decision_t g;
        ck_assert_int_eq(store_decision_get(db, SHA_A, 0, 0, &g), -ENOENT);
}
END_TEST

START_TEST(test_decisions_invalidate_on_driver_change) {
        store_decision_t d = decision(0, "k", "r", "xnnpack=1");
        ck_assert_int_eq(store_decision_put(db, &d), 0);
        d = decision(1, "k", "r", "xnnpack=2");
        ck_assert_int_eq(store_decision_put(db, &d), 0);
        ck_assert_int_eq(store_decision_invalidate(db, "xnnpack=2"), 1);
        store_decision_t g;
        ck_assert_int_eq(store_decision_get(db, SHA_A, 0, 0, &g), -ENOENT);
        ck_assert_int_eq(store_decision_get(db, SHA_A, 1, 0, &g), 0);
        store_decision_done(&g);
        ck_assert_int_eq(store_decision_invalidate(db, "xnnpack=2"), 0);
        ck_assert_int_eq(store_decision_invalidate(db, NULL), -EINVAL);
}
END_TEST

START_TEST(test_decisions_bad_arguments) {
        store_decision_t d = decision(0, "k", "r", "v");
        d.model_sha256[3] = 'X';
        ck_assert_int_eq(store_decision_put(db, &d), -EINVAL);
        d = decision(-1, "k", "r", "v");
        ck_assert_int_eq(store_decision_put(db, &d), -EINVAL);
        d = decision(0, NULL, "r", "v");
        ck_assert_int_eq(store_decision_put(db, &d), -EINVAL);
        d = decision(0, "k", "r", "v");
        d.settings = NULL;
        ck_assert_int_eq(store_decision_put(db, &d), -EINVAL);
        store_decision_t g;
        ck_assert_int_eq(store_decision_get(db, "x", 0, 0, &g), -EINVAL);
        ck_assert_int_eq(store_decision_get(db, SHA_A, 0, 0, NULL), -EINVAL);
        ck_assert_int_eq(store_decision_delete(db, "x", 0, -1), -EINVAL);
}
END_TEST

/* Decisions are per uid: one uid's never replaces or shows as another's. */
START_TEST(test_decisions_per_uid) {
        store_decision_t d = decision(1, "k-root", "operators", "v"), g;
        uint32_t *uids = NULL;
        size_t n = 0;

        ck_assert_int_eq(store_decision_put(db, &d), 0);
        d.uid = 1000;
        d.settings_key = (char *) "k-1000";
        ck_assert_int_eq(store_decision_put(db, &d), 0);
        ck_assert_int_eq(store_decision_get(db, SHA_A, 1, 0, &g), 0);
        ck_assert_str_eq(g.settings_key, "k-root");
        store_decision_done(&g);
        ck_assert_int_eq(store_decision_get(db, SHA_A, 1, 1000, &g), 0);
        ck_assert_str_eq(g.settings_key, "k-1000");
        ck_assert_uint_eq(g.uid, 1000);
        store_decision_done(&g);
        ck_assert_int_eq(store_decision_get(db, SHA_A, 1, 2000, &g), -ENOENT);
        ck_assert_int_eq(store_decision_uids(db, SHA_A, &uids, &n), 0);
        ck_assert_uint_eq(n, 2);
        ck_assert_uint_eq(uids[0], 0);
        ck_assert_uint_eq(uids[1], 1000);
        free(uids);
        ck_assert_int_eq(store_decision_delete(db, SHA_A, -1, 1000), 1);
        ck_assert_int_eq(store_decision_get(db, SHA_A, 1, 0, &g), 0);
        store_decision_done(&g);
}
END_TEST

int main(void) {
        Suite *s = suite_create("storage-decisions");
        TCase *tc = tcase_create("decisions");
        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_add_test(tc, test_decisions_put_get);
        tcase_add_test(tc, test_decisions_readable_view);
        tcase_add_test(tc, test_decisions_upsert_replaces);
        tcase_add_test(tc, test_decisions_delete);
        tcase_add_test(tc, test_decisions_invalidate_on_driver_change);
        tcase_add_test(tc, test_decisions_bad_arguments);
        tcase_add_test(tc, test_decisions_per_uid);
        suite_add_tcase(s, tc);
        return run_suite(s);
}
