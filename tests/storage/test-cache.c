/* SPDX-License-Identifier: Apache-2.0 */
/* The compilation-cache index: verified reads, stale and tampered entries. */
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

static const char blob[] = "packed weights and a compiled plan";

static store_cache_key_t key(void) {
        return (store_cache_key_t) {
                .token = "uid1000:0123456789abcdef",
                .model_sha256 = SHA_A,
                .settings_key = "delegate=XNNPACK",
                .driver = "xnnpack",
                .driver_version = "1.0",
        };
}

START_TEST(test_cache_put_get) {
        store_cache_key_t k = key();
        ck_assert_int_eq(store_cache_put(db, &k, blob, sizeof(blob)), 0);
        store_cache_entry_t e;
        void *data = NULL;
        size_t size = 0;
        ck_assert_int_eq(store_cache_get(db, &k, &e, &data, &size), 0);
        ck_assert_uint_eq(size, sizeof(blob));
        ck_assert_mem_eq(data, blob, size);
        ck_assert_str_eq(e.token, k.token);
        ck_assert_str_eq(e.model_sha256, SHA_A);
        ck_assert_str_eq(e.driver, "xnnpack");
        ck_assert_uint_eq(e.size, sizeof(blob));
        char sum[ACC_SHA256_HEX_SIZE];
        acc_sha256_hex(blob, sizeof(blob), sum);
        ck_assert_str_eq(e.checksum, sum);
        /* The file is named by the token's hash, inside <state>/cache. */
        char th[ACC_SHA256_HEX_SIZE], want[4300];
        acc_sha256_hex(k.token, strlen(k.token), th);
        snprintf(want, sizeof(want), "%s/cache/%s.bin", test_dir, th);
        ck_assert_str_eq(e.path, want);
        ck_assert(file_exists(want));
        ck_assert_int_gt(e.created_at_us, 0);
        store_cache_entry_done(&e);
        free(data);

        /* ret_entry may be NULL. */
        ck_assert_int_eq(store_cache_get(db, &k, NULL, &data, &size), 0);
        free(data);
}
END_TEST

START_TEST(test_cache_missing_is_enoent) {
        store_cache_key_t k = key();
        void *data = (void *) 1;
        size_t size = 5;
        ck_assert_int_eq(store_cache_get(db, &k, NULL, &data, &size), -ENOENT);
        ck_assert_ptr_eq(data, (void *) 1);
        ck_assert_uint_eq(size, 5);
}
END_TEST

START_TEST(test_cache_tampered_file_detected) {
        store_cache_key_t k = key();
        ck_assert_int_eq(store_cache_put(db, &k, blob, sizeof(blob)), 0);
        store_cache_entry_t e;
        void *data;
        size_t size;
        ck_assert_int_eq(store_cache_get(db, &k, &e, &data, &size), 0);
        free(data);

        /* Same size, one byte flipped. */
        FILE *f = fopen(e.path, "r+b");
        ck_assert_ptr_nonnull(f);
        fseek(f, 5, SEEK_SET);
        fputc('#', f);
        fclose(f);
        data = NULL;
        ck_assert_int_eq(store_cache_get(db, &k, NULL, &data, &size), -EBADMSG);
        ck_assert_ptr_null(data);

        /* Truncated. */
        ck_assert_int_eq(truncate(e.path, 4), 0);
        ck_assert_int_eq(store_cache_get(db, &k, NULL, &data, &size), -EBADMSG);

        /* The caller rebuilds and puts again: trusted once more. */
        ck_assert_int_eq(store_cache_put(db, &k, blob, sizeof(blob)), 0);
        ck_assert_int_eq(store_cache_get(db, &k, NULL, &data, &size), 0);
        ck_assert_mem_eq(data, blob, sizeof(blob));
        free(data);

        /* Gone. */
        ck_assert_int_eq(unlink(e.path), 0);
        ck_assert_int_eq(store_cache_get(db, &k, NULL, &data, &size), -ESTALE);
        store_cache_entry_done(&e);
}
END_TEST

START_TEST(test_cache_stale_entry_detected) {
        store_cache_key_t k = key();
        ck_assert_int_eq(store_cache_put(db, &k, blob, sizeof(blob)), 0);
        void *data;
        size_t size;
        store_cache_key_t other = k;
        other.driver_version = "1.1";
        ck_assert_int_eq(store_cache_get(db, &other, NULL, &data, &size), -ESTALE);
        other = k;
        other.model_sha256 = SHA_B;
        ck_assert_int_eq(store_cache_get(db, &other, NULL, &data, &size), -ESTALE);
        other = k;
        other.settings_key = "delegate=NONE";
        ck_assert_int_eq(store_cache_get(db, &other, NULL, &data, &size), -ESTALE);
        other = k;
        other.driver = "reference";
        ck_assert_int_eq(store_cache_get(db, &other, NULL, &data, &size), -ESTALE);

        /* The rebuild replaces the token's entry; now the old key is stale. */
        ck_assert_int_eq(store_cache_put(db, &other, "v2", 2), 0);
        ck_assert_int_eq(store_cache_get(db, &other, NULL, &data, &size), 0);
        ck_assert_uint_eq(size, 2);
        ck_assert_mem_eq(data, "v2", 2);
        free(data);
        ck_assert_int_eq(store_cache_get(db, &k, NULL, &data, &size), -ESTALE);
}
END_TEST

START_TEST(test_cache_remove) {
        store_cache_key_t k = key();
        ck_assert_int_eq(store_cache_put(db, &k, blob, sizeof(blob)), 0);
        store_cache_entry_t e;
        void *data;
        size_t size;
        ck_assert_int_eq(store_cache_get(db, &k, &e, &data, &size), 0);
        free(data);
        ck_assert_int_eq(store_cache_remove(db, k.token), 0);
        ck_assert(!file_exists(e.path));
        ck_assert_int_eq(store_cache_remove(db, k.token), -ENOENT);
        ck_assert_int_eq(store_cache_get(db, &k, NULL, &data, &size), -ENOENT);
        store_cache_entry_done(&e);
}
END_TEST

START_TEST(test_cache_removed_with_model) {
        static const char model[] = "TFL3 model with a cache";
        store_model_t m;
        ck_assert_int_eq(store_model_add(db, model, sizeof(model), NULL, &m), 0);
        store_cache_key_t k = key();
        k.model_sha256 = m.sha256;
        ck_assert_int_eq(store_cache_put(db, &k, blob, sizeof(blob)), 0);
        store_cache_key_t k2 = k;
        k2.token = "second";
        ck_assert_int_eq(store_cache_put(db, &k2, blob, 3), 0);
        store_cache_key_t k3 = key(); /* another model: stays */
        k3.token = "third";
        ck_assert_int_eq(store_cache_put(db, &k3, blob, 3), 0);

        ck_assert_int_eq(store_model_remove(db, m.sha256), 0);
        void *data;
        size_t size;
        ck_assert_int_eq(store_cache_get(db, &k, NULL, &data, &size), -ENOENT);
        ck_assert_int_eq(store_cache_get(db, &k2, NULL, &data, &size), -ENOENT);
        ck_assert_int_eq(store_cache_get(db, &k3, NULL, &data, &size), 0);
        free(data);
        ck_assert_int_eq(store_cache_remove_model(db, SHA_A), 1);
        ck_assert_int_eq(store_cache_remove_model(db, SHA_A), 0);
        store_model_done(&m);
}
END_TEST

START_TEST(test_cache_bad_arguments) {
        store_cache_key_t k = key();
        void *data;
        size_t size;
        k.token = "";
        ck_assert_int_eq(store_cache_put(db, &k, blob, sizeof(blob)), -EINVAL);
        char longtok[STORE_TOKEN_MAX + 2];
        memset(longtok, 't', sizeof(longtok) - 1);
        longtok[sizeof(longtok) - 1] = '\0';
        k.token = longtok;
        ck_assert_int_eq(store_cache_put(db, &k, blob, sizeof(blob)), -EINVAL);
        k = key();
        k.model_sha256 = "nope";
        ck_assert_int_eq(store_cache_put(db, &k, blob, sizeof(blob)), -EINVAL);
        ck_assert_int_eq(store_cache_get(db, &k, NULL, &data, &size), -EINVAL);
        k = key();
        k.driver = NULL;
        ck_assert_int_eq(store_cache_put(db, &k, blob, sizeof(blob)), -EINVAL);
        k = key();
        ck_assert_int_eq(store_cache_put(db, &k, NULL, 4), -EINVAL);
        ck_assert_int_eq(store_cache_get(db, &k, NULL, NULL, &size), -EINVAL);
        ck_assert_int_eq(store_cache_remove(db, NULL), -EINVAL);
}
END_TEST

int main(void) {
        Suite *s = suite_create("storage-cache");
        TCase *tc = tcase_create("cache");
        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_add_test(tc, test_cache_put_get);
        tcase_add_test(tc, test_cache_missing_is_enoent);
        tcase_add_test(tc, test_cache_tampered_file_detected);
        tcase_add_test(tc, test_cache_stale_entry_detected);
        tcase_add_test(tc, test_cache_remove);
        tcase_add_test(tc, test_cache_removed_with_model);
        tcase_add_test(tc, test_cache_bad_arguments);
        suite_add_tcase(s, tc);
        return run_suite(s);
}
