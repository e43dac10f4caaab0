/* SPDX-License-Identifier: Apache-2.0 */
/* Helpers for the storage tests: a temporary state directory per test and
 * BenchmarkEvent blobs built with protobuf-c. Header-only, all static. */
#pragma once

#include <check.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "acceleration.pb-c.h"
#include "storage.h"

static char test_dir[4096];

static inline void test_dir_make(void) {
        const char *tmp = getenv("TMPDIR");
        snprintf(test_dir, sizeof(test_dir), "%s/acceld-storage-XXXXXX", tmp && *tmp ? tmp : "/tmp");
        ck_assert_ptr_nonnull(mkdtemp(test_dir));
}

static inline int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
        (void) st;
        (void) flag;
        (void) ftw;
        return remove(path);
}

static inline void test_dir_remove(void) {
        if (test_dir[0])
                (void) nftw(test_dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
        test_dir[0] = '\0';
}

/* "<test_dir>/<name>" in a static buffer. */
static inline const char *test_path(const char *name) {
        static char buf[4200];
        snprintf(buf, sizeof(buf), "%s/%s", test_dir, name);
        return buf;
}

static inline bool file_exists(const char *path) {
        return access(path, F_OK) == 0;
}

/* A sha256 for tests that never touch the model store. */
#define SHA_A "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define SHA_B "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"

/*
 * Serialize a BenchmarkEvent: delegate XNNPACK with `threads` threads when
 * threads > 0 (else no settings), the event type, wallclock_us, and for
 * END a result with the given inference times and ok (ok < 0: unset).
 * Returns a malloc'ed buffer; *ret_size gets its length.
 */
static inline uint8_t *event_blob(int type, int threads, int64_t wallclock_us, const int64_t *times, size_t n_times,
                                  int ok, size_t *ret_size) {
        Tflite__Proto__BenchmarkEvent e = TFLITE__PROTO__BENCHMARK_EVENT__INIT;
        Tflite__Proto__TFLiteSettings s = TFLITE__PROTO__TFLITE_SETTINGS__INIT;
        Tflite__Proto__XNNPackSettings x = TFLITE__PROTO__XNNPACK_SETTINGS__INIT;
        Tflite__Proto__BenchmarkResult res = TFLITE__PROTO__BENCHMARK_RESULT__INIT;
        Tflite__Proto__BenchmarkError err = TFLITE__PROTO__BENCHMARK_ERROR__INIT;
        if (threads > 0) {
                s.has_delegate = 1;
                s.delegate = TFLITE__PROTO__DELEGATE__XNNPACK;
                x.has_num_threads = 1;
                x.num_threads = threads;
                s.xnnpack_settings = &x;
                e.tflite_settings = &s;
        }
        e.has_event_type = 1;
        e.event_type = (Tflite__Proto__BenchmarkEventType) type;
        e.has_wallclock_us = 1;
        e.wallclock_us = wallclock_us;
        e.has_boottime_us = 1;
        e.boottime_us = wallclock_us / 2;
        if (type == TFLITE__PROTO__BENCHMARK_EVENT_TYPE__END) {
                res.n_inference_time_us = n_times;
                res.inference_time_us = (int64_t *) times;
                if (ok >= 0) {
                        res.has_ok = 1;
                        res.ok = ok;
                }
                e.result = &res;
        }
        if (type == TFLITE__PROTO__BENCHMARK_EVENT_TYPE__ERROR) {
                err.has_signal = 1;
                err.signal = 11;
                e.error = &err;
        }
        size_t n = tflite__proto__benchmark_event__get_packed_size(&e);
        uint8_t *buf = malloc(n);
        ck_assert_ptr_nonnull(buf);
        ck_assert_uint_eq(tflite__proto__benchmark_event__pack(&e, buf), n);
        *ret_size = n;
        return buf;
}

/* Run a suite (CK_FORK as the environment says) and exit with its result. */
static inline int run_suite(Suite *s) {
        SRunner *sr = srunner_create(s);
        srunner_run_all(sr, CK_NORMAL);
        int failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
