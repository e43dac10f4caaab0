/* SPDX-License-Identifier: Apache-2.0 */
/* Tenants: model owners and event uids on a real database file. */
#include <check.h>
#include <errno.h>
#include <unistd.h>

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

static const char model_a[] = "TFL3 pretend model A";
static const char model_b[] = "TFL3 pretend model B, longer";

START_TEST(test_owners_each_uid_sees_its_own) {
        store_model_t a, b, *v = NULL;
        size_t n = 0;

        ck_assert_int_eq(store_model_add(db, model_a, sizeof(model_a), "alpha", &a), 0);
        ck_assert_int_eq(store_model_add(db, model_b, sizeof(model_b), NULL, &b), 0);
        ck_assert_int_eq(store_model_own(db, a.sha256, 1000), 0);
        ck_assert_int_eq(store_model_own(db, a.sha256, 1000), 0); /* idempotent */
        ck_assert_int_eq(store_model_own(db, b.sha256, 2000), 0);
        ck_assert_int_eq(store_model_own(db, a.sha256, 2000), 0);

        ck_assert_int_eq(store_model_list_owned(db, 1000, &v, &n), 0);
        ck_assert_uint_eq(n, 1);
        ck_assert_str_eq(v[0].sha256, a.sha256);
        store_model_list_free(v, n);
        ck_assert_int_eq(store_model_list_owned(db, 2000, &v, &n), 0);
        ck_assert_uint_eq(n, 2);
        store_model_list_free(v, n);
        ck_assert_int_eq(store_model_list_owned(db, 3000, &v, &n), 0);
        ck_assert_uint_eq(n, 0);
        store_model_list_free(v, n);
        ck_assert_int_eq(store_model_owned(db, b.sha256, 1000), 0);
        ck_assert_int_eq(store_model_owned(db, b.sha256, 2000), 1);
        store_model_done(&a);
        store_model_done(&b);
}
END_TEST

START_TEST(test_owners_disown_keeps_shared_bytes) {
        store_model_t a;

        ck_assert_int_eq(store_model_add(db, model_a, sizeof(model_a), "alpha", &a), 0);
        ck_assert_int_eq(store_model_own(db, a.sha256, 1000), 0);
        ck_assert_int_eq(store_model_own(db, a.sha256, 2000), 0);
        /* Another uid can neither remove nor probe it. */
        ck_assert_int_eq(store_model_disown(db, "alpha", 3000), -ENOENT);
        ck_assert_int_eq(store_model_disown(db, "alpha", 1000), 0);
        ck_assert_int_eq(store_model_disown(db, "alpha", 1000), -ENOENT);
        /* uid 2000 still has it: the file stays. */
        ck_assert_int_eq(access(a.path, R_OK), 0);
        ck_assert_int_eq(store_model_disown(db, a.sha256, 2000), 0);
        ck_assert_int_eq(store_model_find(db, a.sha256, &(store_model_t) { 0 }), -ENOENT);
        ck_assert_int_ne(access(a.path, R_OK), 0);
        store_model_done(&a);
}
END_TEST

START_TEST(test_owners_event_uid_filter) {
        char sha[ACC_SHA256_HEX_SIZE];
        int64_t ids[3];
        size_t size, n = 0;
        store_event_t *v = NULL;

        acc_sha256_hex(model_a, sizeof(model_a), sha);
        for (int i = 0; i < 3; i++) {
                uint8_t *blob = event_blob(TFLITE__PROTO__BENCHMARK_EVENT_TYPE__START, 1, 1000 + i, NULL, 0, -1,
                                           &size);
                ck_assert_int_eq(store_event_insert(db, sha, "k", NULL, blob, size, &ids[i]), 0);
                free(blob);
        }
        ck_assert_int_eq(store_event_set_uid(db, ids[0], 1000), 0);
        ck_assert_int_eq(store_event_set_uid(db, ids[2], 1000), 0);
        ck_assert_int_eq(store_event_set_uid(db, 9999, 1000), -ENOENT);
        store_event_filter_t f = { .has_uid = true, .uid = 1000 };
        ck_assert_int_eq(store_event_list(db, &f, &v, &n), 0);
        ck_assert_uint_eq(n, 2);
        ck_assert_int_eq(v[0].id, ids[0]);
        ck_assert_int_eq(v[1].id, ids[2]);
        store_event_list_free(v, n);
        ck_assert_int_eq(store_event_list(db, NULL, &v, &n), 0);
        ck_assert_uint_eq(n, 3);
        store_event_list_free(v, n);
}
END_TEST

int main(void) {
        Suite *s = suite_create("owners");
        TCase *tc = tcase_create("owners");
        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_add_test(tc, test_owners_each_uid_sees_its_own);
        tcase_add_test(tc, test_owners_disown_keeps_shared_bytes);
        tcase_add_test(tc, test_owners_event_uid_filter);
        suite_add_tcase(s, tc);
        return run_suite(s);
}
