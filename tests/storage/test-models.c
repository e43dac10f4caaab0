/* SPDX-License-Identifier: Apache-2.0 */
/* The model store: content-addressed files plus rows. */
#include <check.h>
#include <errno.h>

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

static char *read_all(const char *path, size_t *n) {
        FILE *f = fopen(path, "rb");
        ck_assert_ptr_nonnull(f);
        char *buf = malloc(4096);
        *n = fread(buf, 1, 4096, f);
        fclose(f);
        return buf;
}

START_TEST(test_models_add_and_find) {
        store_model_t m;
        char sha[ACC_SHA256_HEX_SIZE];
        acc_sha256_hex(model_a, sizeof(model_a), sha);
        ck_assert_int_eq(store_model_add(db, model_a, sizeof(model_a), "mobilenet", &m), 0);
        ck_assert_str_eq(m.sha256, sha);
        ck_assert_str_eq(m.name, "mobilenet");
        ck_assert_uint_eq(m.size, sizeof(model_a));
        char want[4300];
        snprintf(want, sizeof(want), "%s/models/%s.tflite", test_dir, sha);
        ck_assert_str_eq(m.path, want);
        ck_assert_int_gt(m.added_at_us, 0);
        ck_assert_int_eq(m.last_used_at_us, m.added_at_us);

        size_t n;
        char *bytes = read_all(m.path, &n);
        ck_assert_uint_eq(n, sizeof(model_a));
        ck_assert_mem_eq(bytes, model_a, n);
        free(bytes);
        store_model_done(&m);

        ck_assert_int_eq(store_model_find(db, sha, &m), 0);
        ck_assert_str_eq(m.name, "mobilenet");
        store_model_done(&m);
        ck_assert_int_eq(store_model_find(db, "mobilenet", &m), 0);
        ck_assert_str_eq(m.sha256, sha);
        store_model_done(&m);
        ck_assert_int_eq(store_model_find(db, "other", &m), -ENOENT);
        ck_assert_int_eq(store_model_find(db, SHA_A, &m), -ENOENT);
        ck_assert_int_eq(store_model_verify(db, sha), 0);
}
END_TEST

START_TEST(test_models_add_idempotent) {
        store_model_t a, b;
        ck_assert_int_eq(store_model_add(db, model_a, sizeof(model_a), NULL, &a), 0);
        ck_assert_ptr_null(a.name);
        ck_assert_int_eq(store_model_add(db, model_a, sizeof(model_a), NULL, &b), 0);
        ck_assert_str_eq(a.sha256, b.sha256);
        ck_assert_int_eq(a.added_at_us, b.added_at_us);
        store_model_done(&b);
        /* Naming it later is allowed once. */
        ck_assert_int_eq(store_model_add(db, model_a, sizeof(model_a), "net", &b), 0);
        ck_assert_str_eq(b.name, "net");
        store_model_done(&b);
        ck_assert_int_eq(store_model_add(db, model_a, sizeof(model_a), "net", NULL), 0);
        ck_assert_int_eq(store_model_add(db, model_a, sizeof(model_a), "renamed", NULL), -EEXIST);

        store_model_t *v = NULL;
        size_t n = 0;
        ck_assert_int_eq(store_model_list(db, &v, &n), 0);
        ck_assert_uint_eq(n, 1);
        ck_assert_str_eq(v[0].name, "net");
        store_model_list_free(v, n);
        store_model_done(&a);
}
END_TEST

START_TEST(test_models_name_rules) {
        ck_assert_int_eq(store_model_add(db, model_a, sizeof(model_a), "shared", NULL), 0);
        /* A name belongs to one model. */
        ck_assert_int_eq(store_model_add(db, model_b, sizeof(model_b), "shared", NULL), -EEXIST);
        ck_assert_int_eq(store_model_add(db, model_b, sizeof(model_b), "", NULL), -EINVAL);
        ck_assert_int_eq(store_model_add(db, model_b, sizeof(model_b), "a/b", NULL), -EINVAL);
        ck_assert_int_eq(store_model_add(db, model_b, sizeof(model_b), SHA_A, NULL), -EINVAL);
        char longname[STORE_NAME_MAX + 2];
        memset(longname, 'x', sizeof(longname) - 1);
        longname[sizeof(longname) - 1] = '\0';
        ck_assert_int_eq(store_model_add(db, model_b, sizeof(model_b), longname, NULL), -EINVAL);
        longname[STORE_NAME_MAX] = '\0';
        ck_assert_int_eq(store_model_add(db, model_b, sizeof(model_b), longname, NULL), 0);
        ck_assert_int_eq(store_model_add(db, model_b, 0, NULL, NULL), -EINVAL);
        ck_assert_int_eq(store_model_add(NULL, model_b, sizeof(model_b), NULL, NULL), -EINVAL);
}
END_TEST

START_TEST(test_models_list) {
        store_model_t *v = NULL;
        size_t n = 99;
        ck_assert_int_eq(store_model_list(db, &v, &n), 0);
        ck_assert_uint_eq(n, 0);
        ck_assert_int_eq(store_model_add(db, model_a, sizeof(model_a), "zeta", NULL), 0);
        ck_assert_int_eq(store_model_add(db, model_b, sizeof(model_b), "alpha", NULL), 0);
        ck_assert_int_eq(store_model_add(db, "c", 1, NULL, NULL), 0);
        ck_assert_int_eq(store_model_list(db, &v, &n), 0);
        ck_assert_uint_eq(n, 3);
        ck_assert_str_eq(v[0].name, "alpha");
        ck_assert_uint_eq(v[0].size, sizeof(model_b));
        ck_assert_str_eq(v[1].name, "zeta");
        ck_assert_ptr_null(v[2].name); /* unnamed last */
        ck_assert_uint_eq(v[2].size, 1);
        store_model_list_free(v, n);
}
END_TEST

START_TEST(test_models_remove_deletes_file) {
        store_model_t m;
        ck_assert_int_eq(store_model_add(db, model_a, sizeof(model_a), "gone", &m), 0);
        ck_assert(file_exists(m.path));
        ck_assert_int_eq(store_model_remove(db, "gone"), 0);
        ck_assert(!file_exists(m.path));
        store_model_t x;
        ck_assert_int_eq(store_model_find(db, m.sha256, &x), -ENOENT);
        ck_assert_int_eq(store_model_remove(db, m.sha256), -ENOENT);
        ck_assert_int_eq(store_model_remove(db, "gone"), -ENOENT);

        /* By sha, too; and the name is free again. */
        ck_assert_int_eq(store_model_add(db, model_b, sizeof(model_b), "gone", &x), 0);
        ck_assert_int_eq(store_model_remove(db, x.sha256), 0);
        ck_assert(!file_exists(x.path));
        store_model_done(&x);
        store_model_done(&m);
}
END_TEST

START_TEST(test_models_verify_detects_tampering) {
        store_model_t m;
        ck_assert_int_eq(store_model_add(db, model_a, sizeof(model_a), NULL, &m), 0);
        ck_assert_int_eq(store_model_verify(db, m.sha256), 0);

        FILE *f = fopen(m.path, "r+b");
        ck_assert_ptr_nonnull(f);
        fseek(f, 3, SEEK_SET);
        fputc('X', f);
        fclose(f);
        ck_assert_int_eq(store_model_verify(db, m.sha256), -EBADMSG);

        /* Adding the same bytes again repairs the file. */
        ck_assert_int_eq(store_model_add(db, model_a, sizeof(model_a), NULL, NULL), 0);
        ck_assert_int_eq(store_model_verify(db, m.sha256), 0);

        ck_assert_int_eq(unlink(m.path), 0);
        ck_assert_int_eq(store_model_verify(db, m.sha256), -ESTALE);
        ck_assert_int_eq(store_model_verify(db, SHA_A), -ENOENT);
        ck_assert_int_eq(store_model_verify(db, "nope"), -EINVAL);
        store_model_done(&m);
}
END_TEST

START_TEST(test_models_touch) {
        store_model_t m, t;
        ck_assert_int_eq(store_model_add(db, model_a, sizeof(model_a), NULL, &m), 0);
        usleep(2000);
        ck_assert_int_eq(store_model_touch(db, m.sha256), 0);
        ck_assert_int_eq(store_model_find(db, m.sha256, &t), 0);
        ck_assert_int_gt(t.last_used_at_us, m.last_used_at_us);
        ck_assert_int_eq(t.added_at_us, m.added_at_us);
        ck_assert_int_eq(store_model_touch(db, SHA_A), -ENOENT);
        ck_assert_int_eq(store_model_touch(db, "x"), -EINVAL);
        store_model_done(&t);
        store_model_done(&m);
}
END_TEST

START_TEST(test_models_survive_reopen) {
        ck_assert_int_eq(store_model_add(db, model_b, sizeof(model_b), "kept", NULL), 0);
        db = store_db_close(db);
        ck_assert_int_eq(store_db_open(test_dir, &db, NULL, 0), 0);
        store_model_t m;
        ck_assert_int_eq(store_model_find(db, "kept", &m), 0);
        ck_assert_int_eq(store_model_verify(db, m.sha256), 0);
        store_model_done(&m);
}
END_TEST

int main(void) {
        Suite *s = suite_create("storage-models");
        TCase *tc = tcase_create("models");
        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_add_test(tc, test_models_add_and_find);
        tcase_add_test(tc, test_models_add_idempotent);
        tcase_add_test(tc, test_models_name_rules);
        tcase_add_test(tc, test_models_list);
        tcase_add_test(tc, test_models_remove_deletes_file);
        tcase_add_test(tc, test_models_verify_detects_tampering);
        tcase_add_test(tc, test_models_touch);
        tcase_add_test(tc, test_models_survive_reopen);
        suite_add_tcase(s, tc);
        return run_suite(s);
}
