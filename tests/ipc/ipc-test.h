/* SPDX-License-Identifier: Apache-2.0 */
/* Helpers shared by the ipc tests: a socketpair fixture and frame builders. */
#pragma once

#include <check.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cleanup.h"
#include "ipc.h"

/* sv[0] is "ours" (the writer side), sv[1] the peer's; -1 once closed. */
static int sv[2] = { -1, -1 };

static inline void socketpair_setup(void) {
        ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
}

static inline void socketpair_teardown(void) {
        for (size_t i = 0; i < 2; i++)
                if (sv[i] >= 0) {
                        (void) close(sv[i]);
                        sv[i] = -1;
                }
}

/* A Hello request with `id` and `name`, packed into a whole frame in buf;
 * returns the frame length. */
static inline size_t hello_frame(uint8_t *buf, size_t cap, uint64_t id, const char *name) {
        Acceld__HelloRequest hello = ACCELD__HELLO_REQUEST__INIT;
        Acceld__Request req = ACCELD__REQUEST__INIT;
        size_t plen;

        hello.client_name = (char *) name;
        req.request_id = id;
        req.has_request_id = true;
        req.body_case = ACCELD__REQUEST__BODY_HELLO;
        req.hello = &hello;
        plen = acceld__request__get_packed_size(&req);
        ck_assert_uint_le(plen + 4, cap);
        buf[0] = (uint8_t) plen;
        buf[1] = (uint8_t) (plen >> 8);
        buf[2] = (uint8_t) (plen >> 16);
        buf[3] = (uint8_t) (plen >> 24);
        ck_assert_uint_eq(acceld__request__pack(&req, buf + 4), plen);
        return plen + 4;
}

static inline void write_all(int fd, const void *data, size_t len) {
        ck_assert_int_eq(write(fd, data, len), (ssize_t) len);
}

/* Open fds of this process, to prove nothing leaks. */
static inline size_t count_open_fds(void) {
        DIR *d = opendir("/proc/self/fd");
        size_t n = 0;

        ck_assert_ptr_nonnull(d);
        while (readdir(d))
                n++;
        (void) closedir(d);
        return n;
}

/* Run one TCase with the socketpair fixture. */
static inline int run_suite(const char *name, TCase *tc) {
        Suite *s = suite_create(name);
        SRunner *sr;
        int failed;

        tcase_add_checked_fixture(tc, socketpair_setup, socketpair_teardown);
        suite_add_tcase(s, tc);
        sr = srunner_create(s);
        srunner_run_all(sr, CK_NORMAL);
        failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
