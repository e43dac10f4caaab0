/* SPDX-License-Identifier: Apache-2.0 */
/*
 * String tensors through libtensorflowlite_c (client/tflite-c/), served by a
 * real acceld and in-process: TfLiteTensorCopyFromBuffer takes a string
 * input's serialized list (any size, NULs kept), the output's list is
 * readable after Invoke (TfLiteTensorData / TfLiteTensorByteSize), and a
 * malformed list fails with the reason through the error reporter.
 *
 * argv[1] acceld, argv[2] accelctl (the harness's contract).
 */
#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "tfb-models.h"
#include "tensorflow/lite/c/c_api.h"
#include "tensorflow/lite/c/common.h"

static harness_daemon_t d;
static char reported[4096];

static void reporter(void *user_data, const char *format, va_list args) {
        size_t n = strlen(reported);

        (void) user_data;
        (void) vsnprintf(reported + n, sizeof(reported) - n, format, args);
}

/* A serialized list of n items (malloc'ed). */
static uint8_t *list_make(const char *const *items, const size_t *lens, size_t n, size_t *ret_size) {
        size_t size = 4 * (n + 2), pos = size;
        uint8_t *b;
        int32_t v;

        for (size_t k = 0; k < n; k++)
                size += lens[k];
        b = malloc(size);
        ck_assert_ptr_nonnull(b);
        v = (int32_t) n;
        memcpy(b, &v, 4);
        for (size_t k = 0; k <= n; k++) {
                v = (int32_t) pos;
                memcpy(b + 4 + 4 * k, &v, 4);
                if (k < n) {
                        memcpy(b + pos, items[k], lens[k]);
                        pos += lens[k];
                }
        }
        *ret_size = size;
        return b;
}

static void gather_run(const char *mode) {
        static const char nul2[3] = "q\0";
        const char *items[10] = { "", "a\0b", nul2, "ddd", "e", "", "ffff\0", "g", "h", "iiiiiiiiii" };
        size_t lens[10] = { 0, 3, 3, 3, 1, 0, 5, 1, 1, 10 }, size, n, want_n;
        uint8_t *model = tfb_model_gather_string(&size), *list, *want, *bad;
        int64_t idx[3] = { 0, 1, 2 };
        TfLiteModel *m;
        TfLiteInterpreterOptions *o;
        TfLiteInterpreter *it;
        TfLiteTensor *in;
        const TfLiteTensor *out;

        setenv("ACCEL_TFLITE_MODE", mode, 1);
        m = TfLiteModelCreate(model, size);
        ck_assert_ptr_nonnull(m);
        o = TfLiteInterpreterOptionsCreate();
        TfLiteInterpreterOptionsSetErrorReporter(o, reporter, NULL);
        it = TfLiteInterpreterCreate(m, o);
        ck_assert_ptr_nonnull(it);
        ck_assert_int_eq(TfLiteInterpreterAllocateTensors(it), kTfLiteOk);
        in = TfLiteInterpreterGetInputTensor(it, 0);
        ck_assert_int_eq(TfLiteTensorType(in), kTfLiteString);
        list = list_make(items, lens, 10, &n);
        for (int run = 0; run < 3; run++) {
                for (int k = 0; k < 3; k++)
                        idx[k] = (run * 3 + k) % 10;
                ck_assert_int_eq(TfLiteTensorCopyFromBuffer(in, list, n), kTfLiteOk);
                ck_assert_uint_eq(TfLiteTensorByteSize(in), n);
                ck_assert_int_eq(TfLiteTensorCopyFromBuffer(TfLiteInterpreterGetInputTensor(it, 1), idx, sizeof(idx)),
                                 kTfLiteOk);
                ck_assert_msg(TfLiteInterpreterInvoke(it) == kTfLiteOk, "%s: %s", mode, reported);
                out = TfLiteInterpreterGetOutputTensor(it, 0);
                want = list_make((const char *const[]) { items[idx[0]], items[idx[1]], items[idx[2]] },
                                 (const size_t[]) { lens[idx[0]], lens[idx[1]], lens[idx[2]] }, 3, &want_n);
                ck_assert_uint_eq(TfLiteTensorByteSize(out), want_n);
                ck_assert_ptr_nonnull(TfLiteTensorData(out));
                ck_assert_msg(memcmp(TfLiteTensorData(out), want, want_n) == 0, "%s run %d", mode, run);
                free(want);
        }
        /* A malformed list: a failed status and the reason reported. */
        bad = malloc(n);
        ck_assert_ptr_nonnull(bad);
        memcpy(bad, list, n);
        memcpy(bad + 4 + 4 * 10, &(int32_t) { 1 << 20 }, 4);
        reported[0] = '\0';
        ck_assert_int_eq(TfLiteTensorCopyFromBuffer(in, bad, n), kTfLiteError);
        ck_assert_msg(strstr(reported, "offset") || strstr(reported, "last"), "%s: %s", mode, reported);
        free(bad);
        free(list);
        TfLiteInterpreterDelete(it);
        TfLiteInterpreterOptionsDelete(o);
        TfLiteModelDelete(m);
        free(model);
}

START_TEST(test_tflite_c_strings_served) {
        harness_up(&d);
        setenv("ACCELD_SOCKET", d.sock, 1);
        gather_run("served");
        harness_stop(&d);
        harness_cleanup(&d);
}
END_TEST

START_TEST(test_tflite_c_strings_local) {
        gather_run("local");
}
END_TEST

int main(int argc, char **argv) {
        Suite *s = suite_create("tflite-c-strings");
        TCase *tc = tcase_create("strings");
        SRunner *sr;
        int failed;

        harness_init(argc, argv);
        tcase_set_timeout(tc, 60);
        tcase_add_test(tc, test_tflite_c_strings_served);
        tcase_add_test(tc, test_tflite_c_strings_local);
        suite_add_tcase(s, tc);
        sr = srunner_create(s);
        srunner_run_all(sr, CK_NORMAL);
        failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
