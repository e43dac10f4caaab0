/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit: taking a client's fd (daemon/serving/clientfd.h). Sealed memfds are
 * used in place and sized after their seals; everything else is copied into
 * a memfd acceld seals itself, under a size bound and a deadline.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <check.h>

#include "clientfd.h"
#include "clock.h"

#define ALL_SEALS (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL)

static int memfd_with(const void *data, size_t size, int seals) {
        int fd = memfd_create("test-clientfd", MFD_CLOEXEC | MFD_ALLOW_SEALING);

        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(write(fd, data, size), (ssize_t) size);
        if (seals)
                ck_assert_int_eq(fcntl(fd, F_ADD_SEALS, seals), 0);
        return fd;
}

static int tmpfile_with(const void *data, size_t size) {
        char path[] = "/tmp/test-clientfd-XXXXXX";
        int fd = mkstemp(path);

        ck_assert_int_ge(fd, 0);
        (void) unlink(path);
        ck_assert_int_eq(write(fd, data, size), (ssize_t) size);
        return fd;
}

/* ret is acceld's own sealed memfd holding exactly want[0, n). */
static void assert_own_copy(int ret, const char *want, size_t n) {
        char got[64];

        ck_assert_int_eq(fcntl(ret, F_GET_SEALS), ALL_SEALS);
        ck_assert_uint_le(n, sizeof(got));
        ck_assert_int_eq(pread(ret, got, sizeof(got), 0), (ssize_t) n);
        ck_assert_int_eq(memcmp(got, want, n), 0);
}

START_TEST(test_clientfd_sealed_memfd_used_in_place) {
        int fd = memfd_with("TFL3 model bytes", 16, F_SEAL_SHRINK | F_SEAL_WRITE);
        struct stat a, b;
        size_t size = 0;
        int ret = -1;

        ck_assert_int_eq(daemon_clientfd_model(fd, 1024, 0, &ret, &size, NULL, 0), 0);
        ck_assert_int_ne(ret, fd);
        ck_assert_uint_eq(size, 16);
        ck_assert_int_eq(fstat(fd, &a), 0);
        ck_assert_int_eq(fstat(ret, &b), 0);
        ck_assert_uint_eq(a.st_ino, b.st_ino);
        ck_assert_int_eq(fcntl(ret, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
        (void) close(ret);
        (void) close(fd);
}
END_TEST

START_TEST(test_clientfd_unsealed_fds_are_copied_and_sealed) {
        /* A regular file, an unsealed memfd and one sealed only against
         * shrinking (it can still be rewritten): all copied. */
        int fds[3] = { tmpfile_with("abcdef", 6), memfd_with("abcdef", 6, 0), memfd_with("abcdef", 6, F_SEAL_SHRINK) };

        for (int k = 0; k < 3; k++) {
                struct stat a, b;
                size_t size = 0;
                int ret = -1;

                ck_assert_int_eq(daemon_clientfd_model(fds[k], 1024, 0, &ret, &size, NULL, 0), 0);
                ck_assert_uint_eq(size, 6);
                ck_assert_int_eq(fstat(fds[k], &a), 0);
                ck_assert_int_eq(fstat(ret, &b), 0);
                ck_assert_uint_ne(a.st_ino, b.st_ino);
                assert_own_copy(ret, "abcdef", 6);
                /* The client's file changing afterwards changes nothing. */
                ck_assert_int_eq(ftruncate(fds[k], k == 2 ? 6 : 0), 0);
                assert_own_copy(ret, "abcdef", 6);
                (void) close(ret);
                (void) close(fds[k]);
        }
}
END_TEST

START_TEST(test_clientfd_size_bound) {
        char err[256] = "";
        int fd = memfd_with("0123456789", 10, F_SEAL_SHRINK | F_SEAL_WRITE);
        int zero = open("/dev/zero", O_RDONLY | O_CLOEXEC);
        int huge = tmpfile_with("x", 1);
        size_t size;
        int ret;

        /* Sealed, over the bound. */
        ck_assert_int_eq(daemon_clientfd_model(fd, 9, 0, &ret, &size, err, sizeof(err)), -EDQUOT);
        ck_assert_str_eq(err, "model of 10 bytes exceeds max_model_bytes (9)");
        ck_assert_int_eq(daemon_clientfd_model(fd, 10, 0, &ret, &size, err, sizeof(err)), 0);
        (void) close(ret);
        /* A 1 TiB sparse file: refused unread. */
        ck_assert_int_eq(ftruncate(huge, (off_t) 1 << 40), 0);
        ck_assert_int_eq(daemon_clientfd_model(huge, 1 << 20, 0, &ret, &size, err, sizeof(err)), -EDQUOT);
        ck_assert_str_eq(err, "model of 1099511627776 bytes exceeds max_model_bytes (1048576)");
        /* A device that never ends: max + 1 bytes read, then refused. */
        ck_assert_int_ge(zero, 0);
        ck_assert_int_eq(daemon_clientfd_model(zero, 1 << 20, 0, &ret, &size, err, sizeof(err)), -EDQUOT);
        ck_assert_str_eq(err, "the model fd holds more than max_model_bytes (1048576)");
        (void) close(fd);
        (void) close(zero);
        (void) close(huge);
}
END_TEST

START_TEST(test_clientfd_empty_and_directory_refused) {
        char err[256] = "";
        int empty = memfd_with("", 0, 0);
        int sealed_empty = memfd_with("", 0, F_SEAL_SHRINK | F_SEAL_WRITE);
        int dir = open("/tmp", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        size_t size;
        int ret;

        ck_assert_int_eq(daemon_clientfd_model(empty, 1024, 0, &ret, &size, err, sizeof(err)), -EINVAL);
        ck_assert_str_eq(err, "the model file is empty");
        ck_assert_int_eq(daemon_clientfd_model(sealed_empty, 1024, 0, &ret, &size, err, sizeof(err)), -EINVAL);
        ck_assert_str_eq(err, "the model file is empty");
        ck_assert_int_ge(dir, 0);
        ck_assert_int_eq(daemon_clientfd_model(dir, 1024, 0, &ret, &size, err, sizeof(err)), -EINVAL);
        ck_assert_str_eq(err, "the model fd is a directory");
        ck_assert_int_eq(daemon_clientfd_model(-1, 1024, 0, &ret, &size, err, sizeof(err)), -EINVAL);
        (void) close(empty);
        (void) close(sealed_empty);
        (void) close(dir);
}
END_TEST

START_TEST(test_clientfd_pipes) {
        char err[256] = "";
        size_t size = 0;
        int p[2], ret = -1;
        uint64_t t0;

        /* One that ends: read whole. */
        ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
        ck_assert_int_eq(write(p[1], "piped", 5), 5);
        (void) close(p[1]);
        ck_assert_int_eq(daemon_clientfd_model(p[0], 1024, 0, &ret, &size, err, sizeof(err)), 0);
        ck_assert_uint_eq(size, 5);
        assert_own_copy(ret, "piped", 5);
        (void) close(ret);
        (void) close(p[0]);
        /* One whose writer stays silent, blocking or not: the deadline
         * ends it, and the client's own flags are left as they were. */
        for (int nonblock = 0; nonblock < 2; nonblock++) {
                ck_assert_int_eq(pipe2(p, O_CLOEXEC | (nonblock ? O_NONBLOCK : 0)), 0);
                ck_assert_int_eq(write(p[1], "par", 3), 3);
                t0 = acc_now_ns();
                ck_assert_int_eq(daemon_clientfd_model(p[0], 1024, t0 + 50000000u, &ret, &size, err, sizeof(err)),
                                 -ETIMEDOUT);
                ck_assert_str_eq(err, "the model fd was not read to its end in time (3 bytes read)");
                ck_assert_uint_ge(acc_now_ns() - t0, 50000000u);
                ck_assert_int_eq(fcntl(p[0], F_GETFL) & O_NONBLOCK, nonblock ? O_NONBLOCK : 0);
                (void) close(p[0]);
                (void) close(p[1]);
        }
}
END_TEST

START_TEST(test_clientfd_buffer) {
        char err[256] = "";
        int unsealed = memfd_create("test-clientfd", MFD_CLOEXEC | MFD_ALLOW_SEALING);
        int shrunk = memfd_create("test-clientfd", MFD_CLOEXEC | MFD_ALLOW_SEALING);
        int empty = memfd_with("", 0, F_SEAL_SHRINK);
        int p[2];
        size_t size = 0;

        ck_assert_int_eq(ftruncate(unsealed, 8192), 0);
        ck_assert_int_eq(daemon_clientfd_buffer(unsealed, 1 << 20, &size, err, sizeof(err)), -EINVAL);
        ck_assert_str_eq(err, "the buffer must be a memfd sealed with F_SEAL_SHRINK");
        /* Shrunk, then sealed: its final size. */
        ck_assert_int_eq(ftruncate(shrunk, 65536), 0);
        ck_assert_int_eq(ftruncate(shrunk, 4096), 0);
        ck_assert_int_eq(fcntl(shrunk, F_ADD_SEALS, F_SEAL_SHRINK), 0);
        ck_assert_int_eq(daemon_clientfd_buffer(shrunk, 1 << 20, &size, err, sizeof(err)), 0);
        ck_assert_uint_eq(size, 4096);
        ck_assert_int_eq(daemon_clientfd_buffer(shrunk, 4095, &size, err, sizeof(err)), -EINVAL);
        ck_assert_str_eq(err, "the buffer must be a non-empty memfd of at most 4095 bytes");
        ck_assert_int_eq(daemon_clientfd_buffer(empty, 1 << 20, &size, err, sizeof(err)), -EINVAL);
        ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
        ck_assert_int_eq(daemon_clientfd_buffer(p[0], 1 << 20, &size, err, sizeof(err)), -EINVAL);
        ck_assert_str_eq(err, "the buffer must be a memfd sealed with F_SEAL_SHRINK");
        (void) close(p[0]);
        (void) close(p[1]);
        (void) close(unsealed);
        (void) close(shrunk);
        (void) close(empty);
}
END_TEST

int main(void) {
        Suite *s = suite_create("daemon-clientfd");
        TCase *tc = tcase_create("clientfd");
        SRunner *sr;
        int failed;

        tcase_add_test(tc, test_clientfd_sealed_memfd_used_in_place);
        tcase_add_test(tc, test_clientfd_unsealed_fds_are_copied_and_sealed);
        tcase_add_test(tc, test_clientfd_size_bound);
        tcase_add_test(tc, test_clientfd_empty_and_directory_refused);
        tcase_add_test(tc, test_clientfd_pipes);
        tcase_add_test(tc, test_clientfd_buffer);
        suite_add_tcase(s, tc);
        sr = srunner_create(s);
        srunner_run_all(sr, CK_NORMAL);
        failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed ? 1 : 0;
}
