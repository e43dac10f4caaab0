/* SPDX-License-Identifier: Apache-2.0 */
/* Evaluation-stage results: insert, list per uid, latest accuracy. */
#include <check.h>
#include <errno.h>
#include <string.h>

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

static const char sha_a[] = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
static const char sha_b[] = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";

static int64_t insert(const char *sha, const char *key, const char *stage, bool has_acc, double acc, bool has_uid,
                      uint32_t uid) {
        store_evaluation_t e = {
                .settings_key = (char *) key,
                .stage = (char *) stage,
                .source = (char *) "client",
                .has_accuracy = has_acc,
                .accuracy = acc,
                .samples = 10,
                .metrics_json = (char *) "{\"numInferences\":10}",
                .has_uid = has_uid,
                .uid = uid,
        };
        int64_t id = 0;

        memcpy(e.model_sha256, sha, 65);
        ck_assert_int_eq(store_evaluation_insert(db, &e, &id), 0);
        ck_assert_int_gt(id, 0);
        return id;
}

START_TEST(test_evaluations_round_trip) {
        store_evaluation_t *v = NULL;
        size_t n = 0;
        int64_t id = insert(sha_a, "xnnpack", STORE_STAGE_TOPK, true, 0.75, true, 1000);

        ck_assert_int_eq(store_evaluation_list(db, NULL, &v, &n), 0);
        ck_assert_uint_eq(n, 1);
        ck_assert_int_eq(v[0].id, id);
        ck_assert_str_eq(v[0].model_sha256, sha_a);
        ck_assert_str_eq(v[0].settings_key, "xnnpack");
        ck_assert_str_eq(v[0].stage, "topk");
        ck_assert_str_eq(v[0].source, "client");
        ck_assert(v[0].has_accuracy);
        ck_assert_double_eq(v[0].accuracy, 0.75);
        ck_assert_int_eq(v[0].samples, 10);
        ck_assert_str_eq(v[0].metrics_json, "{\"numInferences\":10}");
        ck_assert_int_gt(v[0].wallclock_us, 0);
        ck_assert(v[0].has_uid);
        ck_assert_uint_eq(v[0].uid, 1000);
        store_evaluation_list_free(v, n);

        /* Survives a reopen. */
        db = store_db_close(db);
        ck_assert_int_eq(store_db_open(test_dir, &db, NULL, 0), 0);
        ck_assert_int_eq(store_evaluation_list(db, NULL, &v, &n), 0);
        ck_assert_uint_eq(n, 1);
        ck_assert_double_eq(v[0].accuracy, 0.75);
        store_evaluation_list_free(v, n);
}
END_TEST

START_TEST(test_evaluations_filter_uid_and_stage) {
        store_evaluation_t *v = NULL;
        size_t n = 0;

        insert(sha_a, "xnnpack", STORE_STAGE_TOPK, true, 0.7, true, 1000);
        insert(sha_a, "reference", STORE_STAGE_DIFF, true, 0.001, true, 2000);
        insert(sha_b, "xnnpack", STORE_STAGE_DETECTION, false, 0, false, 0);

        store_evaluation_filter_t f = { .has_uid = true, .uid = 1000 };
        ck_assert_int_eq(store_evaluation_list(db, &f, &v, &n), 0);
        ck_assert_uint_eq(n, 1);
        ck_assert_str_eq(v[0].stage, "topk");
        store_evaluation_list_free(v, n);

        f = (store_evaluation_filter_t) { .has_uid = true, .uid = 3000 };
        ck_assert_int_eq(store_evaluation_list(db, &f, &v, &n), 0);
        ck_assert_uint_eq(n, 0);
        store_evaluation_list_free(v, n);

        f = (store_evaluation_filter_t) { .model_sha256 = sha_b };
        ck_assert_int_eq(store_evaluation_list(db, &f, &v, &n), 0);
        ck_assert_uint_eq(n, 1);
        ck_assert(!v[0].has_accuracy);
        ck_assert(!v[0].has_uid); /* acceld's own: operators only */
        store_evaluation_list_free(v, n);

        f = (store_evaluation_filter_t) { .stage = STORE_STAGE_DIFF, .limit = 5 };
        ck_assert_int_eq(store_evaluation_list(db, &f, &v, &n), 0);
        ck_assert_uint_eq(n, 1);
        ck_assert_str_eq(v[0].settings_key, "reference");
        store_evaluation_list_free(v, n);
}
END_TEST

START_TEST(test_evaluations_latest_accuracy) {
        double acc = -1;

        ck_assert_int_eq(store_evaluation_latest_accuracy(db, sha_a, "xnnpack", STORE_STAGE_TOPK, &acc), -ENOENT);
        insert(sha_a, "xnnpack", STORE_STAGE_TOPK, true, 0.5, true, 1000);
        insert(sha_a, "xnnpack", STORE_STAGE_TOPK, true, 0.6, true, 2000);
        insert(sha_a, "xnnpack", STORE_STAGE_TOPK, false, 0, true, 2000); /* no figure: ignored */
        ck_assert_int_eq(store_evaluation_latest_accuracy(db, sha_a, "xnnpack", STORE_STAGE_TOPK, &acc), 0);
        ck_assert_double_eq(acc, 0.6);
        ck_assert_int_eq(store_evaluation_latest_accuracy(db, sha_a, "xnnpack", STORE_STAGE_DETECTION, &acc),
                         -ENOENT);
}
END_TEST

START_TEST(test_evaluations_invalid) {
        store_evaluation_t e = { .settings_key = (char *) "x", .stage = (char *) "topk", .source = (char *) "client",
                                 .metrics_json = (char *) "{}" };

        memcpy(e.model_sha256, "nothex", 7);
        ck_assert_int_eq(store_evaluation_insert(db, &e, NULL), -EINVAL);
        memcpy(e.model_sha256, sha_a, 65);
        e.stage = (char *) "";
        ck_assert_int_eq(store_evaluation_insert(db, &e, NULL), -EINVAL);
}
END_TEST

int main(void) {
        Suite *s = suite_create("evaluations");
        TCase *tc = tcase_create("evaluations");

        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_add_test(tc, test_evaluations_round_trip);
        tcase_add_test(tc, test_evaluations_filter_uid_and_stage);
        tcase_add_test(tc, test_evaluations_latest_accuracy);
        tcase_add_test(tc, test_evaluations_invalid);
        suite_add_tcase(s, tc);
        return run_suite(s);
}
