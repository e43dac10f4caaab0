/* SPDX-License-Identifier: Apache-2.0 */
/* daemon/sha256.c against FIPS 180-4 test vectors and the model manifest. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "golden.h"
#include "sha256.h"

START_TEST(test_sha256_known_vectors) {
        char hex[DAEMON_SHA256_HEX_SIZE];

        daemon_sha256_hex("", 0, hex);
        ck_assert_str_eq(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
        daemon_sha256_hex("abc", 3, hex);
        ck_assert_str_eq(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        daemon_sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56, hex);
        ck_assert_str_eq(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}
END_TEST

/* A million 'a's fed in uneven pieces crosses every block boundary case. */
START_TEST(test_sha256_streaming_matches_one_shot) {
        daemon_sha256_t c;
        uint8_t d[32];
        char *a = malloc(1000000);
        static const char want[] = "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0";
        char hex[65];

        ck_assert_ptr_nonnull(a);
        memset(a, 'a', 1000000);
        daemon_sha256_init(&c);
        for (size_t off = 0, step = 1; off < 1000000; off += step, step = step * 7 % 131 + 1)
                daemon_sha256_update(&c, a + off, off + step > 1000000 ? 1000000 - off : step);
        daemon_sha256_final(&c, d);
        for (int i = 0; i < 32; i++)
                (void) snprintf(hex + 2 * i, 3, "%02x", d[i]);
        ck_assert_str_eq(hex, want);
        daemon_sha256_hex(a, 1000000, hex);
        ck_assert_str_eq(hex, want);
        free(a);
}
END_TEST

START_TEST(test_sha256_hex_valid) {
        ck_assert(daemon_sha256_hex_valid("446ec673881cd46371a8726075b714194ada39d144762260cb76d15318597df7"));
        ck_assert(daemon_sha256_hex_valid("446EC673881CD46371A8726075B714194ADA39D144762260CB76D15318597DF7"));
        ck_assert(!daemon_sha256_hex_valid("446ec673881cd46371a8726075b714194ada39d144762260cb76d15318597df"));
        ck_assert(!daemon_sha256_hex_valid("g46ec673881cd46371a8726075b714194ada39d144762260cb76d15318597df7"));
        ck_assert(!daemon_sha256_hex_valid(""));
}
END_TEST

/* The manifest's sha256 of a real model. */
START_TEST(test_sha256_matches_manifest) {
        const char *shared = golden_shared_dir();
        char path[4096], hex[DAEMON_SHA256_HEX_SIZE];
        void *data;
        size_t size;

        if (!shared) {
                fprintf(stderr, "skipped: ACCELD_SHARED_DIR not set\n");
                return;
        }
        (void) snprintf(path, sizeof(path), "%s/models/mobilenet_v1_0.25_224_float.tflite", shared);
        if (golden_file_read(path, &data, &size) < 0) {
                fprintf(stderr, "skipped: %s missing\n", path);
                return;
        }
        daemon_sha256_hex(data, size, hex);
        ck_assert_str_eq(hex, "446ec673881cd46371a8726075b714194ada39d144762260cb76d15318597df7");
        free(data);
}
END_TEST

int main(void) {
        Suite *s = suite_create("sha256");
        TCase *tc = tcase_create("sha256");
        SRunner *sr;
        int failed;

        tcase_add_test(tc, test_sha256_known_vectors);
        tcase_add_test(tc, test_sha256_streaming_matches_one_shot);
        tcase_add_test(tc, test_sha256_hex_valid);
        tcase_add_test(tc, test_sha256_matches_manifest);
        suite_add_tcase(s, tc);
        sr = srunner_create(s);
        srunner_run_all(sr, CK_NORMAL);
        failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed ? 1 : 0;
}
