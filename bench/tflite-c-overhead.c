/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tflite-c-overhead: what libtensorflowlite_c (client/tflite-c/) adds to an
 * invoke served by acceld, against libaccel's interpreter used directly.
 *
 *   ACCELD_SOCKET=... tflite-c-overhead MODEL [RUNS] [THREADS] [SETTINGS_JSON]
 *
 * Both interpreters are prepared on the same daemon with the same settings
 * (the thread count, and SETTINGS_JSON, a TFLiteSettings JSON text such as
 * '{"delegate":"XNNPACK"}', or acceld's choice without it; the C API takes
 * it from $ACCEL_TFLITE_SETTINGS) and invoked in pairs, one invoke of each
 * in alternating order, so drift of the machine hits both alike; inputs
 * are written in place through each API's data pointer. Prints the median
 * and p90 of each, the ratio of the medians and the median of the paired
 * differences (docs/performance.md, "TensorFlow Lite C API"). A benchmark:
 * it asserts nothing about time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <accel/accel.h>

#include "bench-util.h"
#include "clock.h"
#include "tensorflow/lite/c/c_api.h"

static int cmp_double(const void *a, const void *b) {
        double x = *(const double *) a, y = *(const double *) b;
        return x < y ? -1 : x > y;
}

static void fill(void *p, size_t n) {
        unsigned char *b = p;
        for (size_t i = 0; i < n; i++)
                b[i] = (unsigned char) (i * 7);
}

int main(int argc, char **argv) {
        if (argc < 2) {
                fprintf(stderr, "usage: ACCELD_SOCKET=... tflite-c-overhead MODEL [RUNS] [THREADS] [SETTINGS_JSON]\n");
                return 2;
        }
        const char *path = argv[1];
        int runs = argc > 2 ? atoi(argv[2]) : 200;
        int threads = argc > 3 ? atoi(argv[3]) : 1;
        const char *settings = argc > 4 ? argv[4] : NULL;
        if (runs < 10)
                runs = 10;
        setenv("ACCEL_TFLITE_MODE", "served", 1);
        if (settings)
                setenv("ACCEL_TFLITE_SETTINGS", settings, 1);

        /* libaccel directly. */
        accel_model_t *am;
        accel_interp_t *ai;
        accel_interp_options_t *ao = accel_interp_options_create();
        if (accel_model_create_from_file(path, &am) < 0 || !ao || accel_interp_options_set_num_threads(ao, threads) < 0 ||
            (settings && accel_interp_options_set_settings_json(ao, settings) < 0) ||
            accel_interp_create(am, ao, &ai) < 0 || accel_interp_allocate_tensors(ai) < 0) {
                fprintf(stderr, "libaccel: %s\n", accel_last_error());
                return 1;
        }
        /* The C API. */
        TfLiteModel *tm = TfLiteModelCreateFromFile(path);
        TfLiteInterpreterOptions *to = TfLiteInterpreterOptionsCreate();
        TfLiteInterpreterOptionsSetNumThreads(to, threads);
        TfLiteInterpreter *ti = tm ? TfLiteInterpreterCreate(tm, to) : NULL;
        if (!ti || TfLiteInterpreterAllocateTensors(ti) != kTfLiteOk)
                return 1;

        for (int32_t i = 0; i < accel_interp_input_count(ai); i++) {
                accel_tensor_t *t = accel_interp_input_tensor(ai, i);
                fill(accel_tensor_data(t), accel_tensor_byte_size(t));
        }
        for (int32_t i = 0; i < TfLiteInterpreterGetInputTensorCount(ti); i++) {
                TfLiteTensor *t = TfLiteInterpreterGetInputTensor(ti, i);
                fill(TfLiteTensorData(t), TfLiteTensorByteSize(t));
        }
        /* Warm both up. */
        for (int k = 0; k < 10; k++)
                if (accel_interp_invoke(ai) < 0 || TfLiteInterpreterInvoke(ti) != kTfLiteOk)
                        return 1;

        uint64_t *va = calloc((size_t) runs, sizeof(*va)), *vt = calloc((size_t) runs, sizeof(*vt));
        if (!va || !vt)
                return 1;
        /* One invoke of each per pair, in alternating order (ABBA...), so
         * that drift and the order itself hit both sides alike. */
        for (int k = 0; k < runs; k++)
                for (int j = 0; j < 2; j++) {
                        int side = (k & 1) ? 1 - j : j;
                        uint64_t t0 = acc_now_us();
                        int r = side == 0 ? accel_interp_invoke(ai)
                                          : (TfLiteInterpreterInvoke(ti) == kTfLiteOk ? 0 : -1);
                        uint64_t dt = acc_now_us() - t0;
                        if (r < 0)
                                return 1;
                        (side == 0 ? va : vt)[k] = dt;
                }
        /* The paired differences: their median is the library's cost with
         * most of the machine's noise cancelled. */
        double *diff = calloc((size_t) runs, sizeof(*diff));
        if (!diff)
                return 1;
        for (int k = 0; k < runs; k++)
                diff[k] = (double) vt[k] - (double) va[k];
        qsort(diff, (size_t) runs, sizeof(*diff), cmp_double);
        double dmed = diff[runs / 2];
        free(diff);
        bench_stats_t sa, st;
        bench_stats_compute(va, (size_t) runs, &sa);
        bench_stats_compute(vt, (size_t) runs, &st);
        printf("model %s, %d runs, %d thread(s), served by acceld (%s)\n", path, runs, threads,
               accel_interp_settings_key(ai));
        printf("libaccel directly   median %8.1f us  p90 %8.1f us\n", (double) sa.median, (double) sa.p90);
        printf("libtensorflowlite_c median %8.1f us  p90 %8.1f us\n", (double) st.median, (double) st.p90);
        printf("ratio (C API / libaccel) %.4f\n", (double) st.median / (double) sa.median);
        printf("paired difference median %+.1f us (%+.2f%% of libaccel's median)\n", dmed,
               100.0 * dmed / (double) sa.median);

        free(va);
        free(vt);
        TfLiteInterpreterDelete(ti);
        TfLiteInterpreterOptionsDelete(to);
        TfLiteModelDelete(tm);
        accel_interp_delete(ai);
        accel_interp_options_delete(ao);
        accel_model_delete(am);
        return 0;
}
