/* SPDX-License-Identifier: Apache-2.0 */
/* Thread counts for runtime tests (test-threads.h). */
#include <check.h>
#include <dirent.h>
#include <pthread.h>

#include "test-threads.h"

int test_threads_count(void) {
        DIR *d = opendir("/proc/self/task");
        int n = 0;

        ck_assert_ptr_nonnull(d);
        for (struct dirent *e; (e = readdir(d));)
                n += e->d_name[0] != '.';
        closedir(d);
        return n;
}

static void *nothing(void *arg) {
        return arg;
}

int test_threads_before(void) {
        pthread_t t;

        ck_assert_int_eq(pthread_create(&t, NULL, nothing, NULL), 0);
        ck_assert_int_eq(pthread_join(t, NULL), 0);
        return test_threads_count();
}
