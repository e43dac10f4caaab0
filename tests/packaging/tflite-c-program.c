/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A program of the kind issue 23 is about: written against TensorFlow
 * Lite's C API alone (tensorflow/lite/c/c_api.h), knowing nothing of
 * acceld. tests/packaging/deb-roundtrip.sh links it against native
 * TensorFlow Lite's libtensorflowlite_c.so and runs it unchanged under
 * `accel-tflite`, or builds it against the installed acceld-tflite-dev
 * with pkg-config.
 *
 *   tflite-c-program MODEL OUT
 *
 * Runs MODEL once with input 0 filled with a fixed pattern (every input
 * byte i is (i * 7 + i / 384) % 256, the same in every run), writes output
 * 0's bytes to OUT and prints the library that provides the C API, the
 * output's type and size and its largest element. Exit 0 on success, 1
 * with the reason on stderr otherwise.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <tensorflow/lite/c/c_api.h>

static void report(void *user, const char *format, va_list args) {
        (void) user;
        fprintf(stderr, "tflite-c-program: TensorFlow Lite: ");
        vfprintf(stderr, format, args);
        fprintf(stderr, "\n");
}

static int run(const char *model_path, const char *out_path) {
        TfLiteModel *model = NULL;
        TfLiteInterpreterOptions *options = NULL;
        TfLiteInterpreter *it = NULL;
        Dl_info where = { 0 };
        int rc = 1;

        if (dladdr((void *) TfLiteVersion, &where) && where.dli_fname)
                printf("library %s\n", where.dli_fname);
        printf("version %s\n", TfLiteVersion());

        model = TfLiteModelCreateFromFile(model_path);
        if (!model) {
                fprintf(stderr, "tflite-c-program: %s: cannot load the model\n", model_path);
                goto out;
        }
        options = TfLiteInterpreterOptionsCreate();
        if (!options)
                goto out;
        TfLiteInterpreterOptionsSetNumThreads(options, 1);
        TfLiteInterpreterOptionsSetErrorReporter(options, report, NULL);
        it = TfLiteInterpreterCreate(model, options);
        if (!it) {
                fprintf(stderr, "tflite-c-program: TfLiteInterpreterCreate failed\n");
                goto out;
        }
        if (TfLiteInterpreterAllocateTensors(it) != kTfLiteOk) {
                fprintf(stderr, "tflite-c-program: TfLiteInterpreterAllocateTensors failed\n");
                goto out;
        }

        TfLiteTensor *in = TfLiteInterpreterGetInputTensor(it, 0);
        size_t in_size = in ? TfLiteTensorByteSize(in) : 0;
        uint8_t *pattern = malloc(in_size ? in_size : 1);
        if (!in || !pattern) {
                free(pattern);
                goto out;
        }
        for (size_t i = 0; i < in_size; i++)
                pattern[i] = (uint8_t) ((i * 7 + i / 384) % 256);
        TfLiteStatus s = TfLiteTensorCopyFromBuffer(in, pattern, in_size);
        free(pattern);
        if (s != kTfLiteOk) {
                fprintf(stderr, "tflite-c-program: TfLiteTensorCopyFromBuffer failed\n");
                goto out;
        }
        if (TfLiteInterpreterInvoke(it) != kTfLiteOk) {
                fprintf(stderr, "tflite-c-program: TfLiteInterpreterInvoke failed\n");
                goto out;
        }

        const TfLiteTensor *o = TfLiteInterpreterGetOutputTensor(it, 0);
        const uint8_t *data = o ? TfLiteTensorData(o) : NULL;
        size_t size = o ? TfLiteTensorByteSize(o) : 0;
        if (!data || size == 0 || TfLiteTensorType(o) != kTfLiteUInt8) {
                fprintf(stderr, "tflite-c-program: output 0 is not a uint8 tensor with data\n");
                goto out;
        }
        size_t best = 0;
        for (size_t i = 1; i < size; i++)
                if (data[i] > data[best])
                        best = i;
        printf("output %s, %zu bytes, largest element %zu (%u)\n", TfLiteTypeGetName(TfLiteTensorType(o)), size,
               best, data[best]);

        FILE *f = fopen(out_path, "wb");
        bool written = f && fwrite(data, 1, size, f) == size;
        if (f && fclose(f) != 0)
                written = false;
        if (!written) {
                fprintf(stderr, "tflite-c-program: %s: cannot write the output\n", out_path);
                goto out;
        }
        rc = 0;
out:
        TfLiteInterpreterDelete(it);
        TfLiteInterpreterOptionsDelete(options);
        TfLiteModelDelete(model);
        return rc;
}

int main(int argc, char **argv) {
        if (argc != 3) {
                fprintf(stderr, "usage: tflite-c-program MODEL OUT\n");
                return 2;
        }
        return run(argv[1], argv[2]);
}
