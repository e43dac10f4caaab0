/* SPDX-License-Identifier: Apache-2.0 */
/* SHA-256 against the FIPS 180-2 / NIST example vectors. */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sha256.h"

START_TEST(test_sha256_empty) {
        char hex[ACC_SHA256_HEX_SIZE];
        acc_sha256_hex("", 0, hex);
        ck_assert_str_eq(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}
END_TEST

START_TEST(test_sha256_abc) {
        char hex[ACC_SHA256_HEX_SIZE];
        acc_sha256_hex("abc", 3, hex);
        ck_assert_str_eq(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}
END_TEST

START_TEST(test_sha256_two_blocks) {
        /* 56 bytes: the length no longer fits the first block. */
        const char *m = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
        char hex[ACC_SHA256_HEX_SIZE];
        acc_sha256_hex(m, strlen(m), hex);
        ck_assert_str_eq(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}
END_TEST

START_TEST(test_sha256_long_message) {
        const char *m = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmno"
                        "ijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu";
        char hex[ACC_SHA256_HEX_SIZE];
        acc_sha256_hex(m, strlen(m), hex);
        ck_assert_str_eq(hex, "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
}
END_TEST

START_TEST(test_sha256_million_a_incremental) {
        /* One million 'a' fed in odd-sized pieces crosses every block edge case. */
        char chunk[997];
        memset(chunk, 'a', sizeof(chunk));
        acc_sha256_t ctx;
        acc_sha256_init(&ctx);
        size_t left = 1000000;
        while (left > 0) {
                size_t n = left < sizeof(chunk) ? left : sizeof(chunk);
                acc_sha256_update(&ctx, chunk, n);
                left -= n;
        }
        uint8_t d[32];
        acc_sha256_final(&ctx, d);
        static const uint8_t want[32] = {
                0xcd, 0xc7, 0x6e, 0x5c, 0x99, 0x14, 0xfb, 0x92, 0x81, 0xa1, 0xc7, 0xe2, 0x84, 0xd7, 0x3e, 0x67,
                0xf1, 0x80, 0x9a, 0x48, 0xa4, 0x97, 0x20, 0x0e, 0x04, 0x6d, 0x39, 0xcc, 0xc7, 0x11, 0x2c, 0xd0,
        };
        ck_assert_mem_eq(d, want, 32);
}
END_TEST

START_TEST(test_sha256_split_equals_oneshot) {
        uint8_t buf[300];
        for (unsigned i = 0; i < sizeof(buf); i++)
                buf[i] = (uint8_t) (i * 7 + 3);
        for (size_t len = 0; len <= sizeof(buf); len += 13) {
                char one[ACC_SHA256_HEX_SIZE];
                acc_sha256_hex(buf, len, one);
                for (size_t cut = 0; cut <= len; cut += 29) {
                        acc_sha256_t ctx;
                        uint8_t d[32];
                        acc_sha256_init(&ctx);
                        acc_sha256_update(&ctx, buf, cut);
                        acc_sha256_update(&ctx, buf + cut, len - cut);
                        acc_sha256_final(&ctx, d);
                        char two[ACC_SHA256_HEX_SIZE];
                        static const char digits[] = "0123456789abcdef";
                        for (unsigned i = 0; i < 32; i++) {
                                two[2 * i] = digits[d[i] >> 4];
                                two[2 * i + 1] = digits[d[i] & 15];
                        }
                        two[64] = '\0';
                        ck_assert_str_eq(one, two);
                }
        }
}
END_TEST

/* An fd is hashed from offset 0 with pread: a prefix, to EOF, and a file
 * shorter than the size asked for; the fd's position is left alone. */
START_TEST(test_sha256_fd) {
        int fd = memfd_create("sha", MFD_CLOEXEC);
        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(write(fd, "abcdef", 6), 6);
        char hex[ACC_SHA256_HEX_SIZE];
        uint64_t n = 0;
        ck_assert_int_eq(acc_sha256_fd(fd, 3, hex, &n), 0);
        ck_assert_uint_eq(n, 3);
        ck_assert_str_eq(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        ck_assert_int_eq(acc_sha256_fd(fd, UINT64_MAX, hex, &n), 0);
        ck_assert_uint_eq(n, 6);
        char want[ACC_SHA256_HEX_SIZE];
        acc_sha256_hex("abcdef", 6, want);
        ck_assert_str_eq(hex, want);
        ck_assert_int_eq(acc_sha256_fd(fd, 7, hex, &n), -EIO);
        ck_assert_int_eq(lseek(fd, 0, SEEK_CUR), 6);
        ck_assert_int_eq(acc_sha256_fd(-1, 1, hex, &n), -EINVAL);
        close(fd);
}
END_TEST

START_TEST(test_sha256_hex_valid) {
        ck_assert(acc_sha256_hex_valid("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"));
        ck_assert(!acc_sha256_hex_valid("E3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"));
        ck_assert(!acc_sha256_hex_valid("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b85"));
        ck_assert(!acc_sha256_hex_valid("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b8555"));
        ck_assert(!acc_sha256_hex_valid("mobilenet"));
        ck_assert(!acc_sha256_hex_valid(NULL));
}
END_TEST

int main(void) {
        Suite *s = suite_create("storage-sha256");
        TCase *tc = tcase_create("sha256");
        tcase_add_test(tc, test_sha256_empty);
        tcase_add_test(tc, test_sha256_abc);
        tcase_add_test(tc, test_sha256_two_blocks);
        tcase_add_test(tc, test_sha256_long_message);
        tcase_add_test(tc, test_sha256_million_a_incremental);
        tcase_add_test(tc, test_sha256_split_equals_oneshot);
        tcase_add_test(tc, test_sha256_hex_valid);
        tcase_add_test(tc, test_sha256_fd);
        suite_add_tcase(s, tc);
        SRunner *sr = srunner_create(s);
        srunner_run_all(sr, CK_NORMAL);
        int failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed ? 1 : 0;
}
