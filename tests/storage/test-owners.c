/* SPDX-License-Identifier: Apache-2.0 */
/* Tenants: model owners and event uids on a real database file. */
#include <check.h>
#include <errno.h>
#include <string.h>
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

        ck_assert_int_eq(store_model_add_for(db, model_a, sizeof(model_a), "alpha", 1000, &a), 0);
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

/* Names are per uid: two uids use one name for different models, a name
 * finds only its own uid's model, and sha256 finds only owned models. */
START_TEST(test_owners_names_are_per_uid) {
        store_model_t a, b, m;

        ck_assert_int_eq(store_model_add_for(db, model_b, sizeof(model_b), "net", 2000, &b), 0);
        ck_assert_str_eq(b.name, "net");
        ck_assert_int_eq(store_model_add_for(db, model_a, sizeof(model_a), "net", 1000, &a), 0);
        ck_assert_str_eq(a.name, "net");
        ck_assert_int_eq(store_model_find_for(db, "net", 1000, false, &m), 0);
        ck_assert_str_eq(m.sha256, a.sha256);
        store_model_done(&m);
        ck_assert_int_eq(store_model_find_for(db, "net", 2000, false, &m), 0);
        ck_assert_str_eq(m.sha256, b.sha256);
        store_model_done(&m);
        /* A tenant never reaches another's name; an operator does only
         * when one model carries it (here two do). */
        ck_assert_int_eq(store_model_find_for(db, "net", 0, true, &m), -ENOENT);
        ck_assert_int_eq(store_model_find_for(db, "net", 3000, false, &m), -ENOENT);
        /* By sha256: owners, and operators (`all`). */
        ck_assert_int_eq(store_model_find_for(db, a.sha256, 2000, false, &m), -ENOENT);
        ck_assert_int_eq(store_model_find_for(db, a.sha256, 0, true, &m), 0);
        store_model_done(&m);

        /* The same bytes by another uid: shared, each with its own name. */
        ck_assert_int_eq(store_model_add_for(db, model_a, sizeof(model_a), "mine", 2000, &m), 0);
        ck_assert_str_eq(m.sha256, a.sha256);
        ck_assert_str_eq(m.name, "mine");
        store_model_done(&m);
        ck_assert_int_eq(store_model_find_for(db, a.sha256, 1000, false, &m), 0);
        ck_assert_str_eq(m.name, "net");
        store_model_done(&m);
        ck_assert_int_eq(store_model_find_for(db, a.sha256, 2000, false, &m), 0);
        ck_assert_str_eq(m.name, "mine");
        store_model_done(&m);
        /* A uid's names stay unique, and a model keeps its first name. */
        ck_assert_int_eq(store_model_add_for(db, model_b, sizeof(model_b), "mine", 2000, NULL), -EEXIST);
        ck_assert_int_eq(store_model_add_for(db, model_a, sizeof(model_a), "again", 1000, NULL), -EEXIST);
        /* Giving it up frees the name for that uid only. */
        ck_assert_int_eq(store_model_disown(db, "net", 1000), 0);
        ck_assert_int_eq(store_model_find_for(db, "net", 1000, false, &m), -ENOENT);
        ck_assert_int_eq(store_model_find_for(db, "net", 2000, false, &m), 0);
        store_model_done(&m);
        /* Now one model has it: an operator finds it, a tenant still not. */
        ck_assert_int_eq(store_model_find_for(db, "net", 0, true, &m), 0);
        ck_assert_str_eq(m.sha256, b.sha256);
        store_model_done(&m);
        ck_assert_int_eq(store_model_find_for(db, "net", 3000, false, &m), -ENOENT);
        store_model_done(&a);
        store_model_done(&b);
}
END_TEST

/* Selection's view: a uid's own rows plus the operators' (root's, or
 * without a uid), never another tenant's. */
START_TEST(test_owners_operator_rows) {
        char sha[ACC_SHA256_HEX_SIZE];
        int64_t ids[4];
        size_t size, n = 0;
        store_event_t *v = NULL;
        store_evaluation_t *ev = NULL;

        acc_sha256_hex(model_a, sizeof(model_a), sha);
        for (int i = 0; i < 4; i++) {
                uint8_t *blob = event_blob(TFLITE__PROTO__BENCHMARK_EVENT_TYPE__START, 1, 1000 + i, NULL, 0, -1,
                                           &size);
                ck_assert_int_eq(store_event_insert(db, sha, "k", NULL, blob, size, &ids[i]), 0);
                free(blob);
        }
        /* ids[0]: acceld's own (no uid); 1: tenant 1000; 2: tenant 2000;
         * 3: uid 3000 as a member of the operators group. */
        ck_assert_int_eq(store_event_set_owner(db, ids[1], 1000, false), 0);
        ck_assert_int_eq(store_event_set_owner(db, ids[2], 2000, false), 0);
        ck_assert_int_eq(store_event_set_owner(db, ids[3], 3000, true), 0);
        store_event_filter_t f = { .has_uid = true, .uid = 1000, .with_operators = true };
        ck_assert_int_eq(store_event_list(db, &f, &v, &n), 0);
        ck_assert_uint_eq(n, 3);
        ck_assert_int_eq(v[0].id, ids[0]);
        ck_assert(!v[0].has_uid);
        ck_assert_int_eq(v[1].id, ids[1]);
        ck_assert(v[1].has_uid && v[1].uid == 1000 && !v[1].operator);
        ck_assert_int_eq(v[2].id, ids[3]);
        ck_assert(v[2].has_uid && v[2].uid == 3000 && v[2].operator);
        store_event_list_free(v, n);
        f.uid = 0;
        ck_assert_int_eq(store_event_list(db, &f, &v, &n), 0);
        ck_assert_uint_eq(n, 2);
        store_event_list_free(v, n);

        /* Failures count the same way: tenant 2000's ERRORs are its own. */
        for (int i = 0; i < 3; i++) {
                int64_t id;
                uint8_t *blob = event_blob(TFLITE__PROTO__BENCHMARK_EVENT_TYPE__ERROR, 1, 2000 + i, NULL, 0, -1,
                                           &size);
                ck_assert_int_eq(store_event_insert(db, sha, "k", NULL, blob, size, &id), 0);
                free(blob);
                if (i > 0)
                        ck_assert_int_eq(store_event_set_owner(db, id, 2000, false), 0);
        }
        ck_assert_int_eq(store_event_count_errors(db, sha, "k", NULL), 3);
        ck_assert_int_eq(store_event_count_errors_for(db, sha, "k", NULL, 2000), 3);
        ck_assert_int_eq(store_event_count_errors_for(db, sha, "k", NULL, 1000), 1);
        ck_assert_int_eq(store_event_count_errors_for(db, sha, "k", NULL, 0), 1);

        store_evaluation_t e = { .settings_key = (char *) "k", .stage = (char *) STORE_STAGE_TOPK,
                                 .source = (char *) "client", .metrics_json = (char *) "{}", .has_uid = true };
        memcpy(e.model_sha256, sha, sizeof(sha));
        e.uid = 2000;
        ck_assert_int_eq(store_evaluation_insert(db, &e, NULL), 0);
        e.uid = 0;
        ck_assert_int_eq(store_evaluation_insert(db, &e, NULL), 0);
        e.uid = 3000;
        e.operator = true;
        ck_assert_int_eq(store_evaluation_insert(db, &e, NULL), 0);
        store_evaluation_filter_t ef = { .has_uid = true, .uid = 1000, .with_operators = true };
        ck_assert_int_eq(store_evaluation_list(db, &ef, &ev, &n), 0);
        ck_assert_uint_eq(n, 2);
        ck_assert_uint_eq(ev[0].uid, 0);
        ck_assert(ev[0].operator);
        ck_assert_uint_eq(ev[1].uid, 3000);
        store_evaluation_list_free(ev, n);
        ef.uid = 2000;
        ck_assert_int_eq(store_evaluation_list(db, &ef, &ev, &n), 0);
        ck_assert_uint_eq(n, 3);
        store_evaluation_list_free(ev, n);
}
END_TEST

int main(void) {
        Suite *s = suite_create("owners");
        TCase *tc = tcase_create("owners");
        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_add_test(tc, test_owners_each_uid_sees_its_own);
        tcase_add_test(tc, test_owners_disown_keeps_shared_bytes);
        tcase_add_test(tc, test_owners_event_uid_filter);
        tcase_add_test(tc, test_owners_names_are_per_uid);
        tcase_add_test(tc, test_owners_operator_rows);
        suite_add_tcase(s, tc);
        return run_suite(s);
}
