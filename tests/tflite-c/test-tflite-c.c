/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libtensorflowlite_c (client/tflite-c/) through its own header: the ABI
 * facts a TensorFlow Lite 2.9 program relies on, delegates, error reports,
 * and every runnable shared model against its goldens both ways: served by
 * a real acceld (tests/daemon/harness.c) and in-process.
 *
 * argv[1] acceld, argv[2] accelctl (the harness's contract).
 */
#include <check.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <accel/accel.h>

#include "file-read.h"
#include "golden.h"
#include "harness.h"
#include "tensorflow/lite/c/c_api.h"
#include "tensorflow/lite/c/c_api_experimental.h"
#include "tensorflow/lite/c/common.h"
#include "tensorflow/lite/delegates/xnnpack/xnnpack_delegate.h"

static harness_daemon_t d;
static char reported[4096];

static void reporter(void *user_data, const char *format, va_list args) {
        size_t n = strlen(reported);
        (void) vsnprintf(reported + n, sizeof(reported) - n, format, args);
        (*(int *) user_data)++;
}

static void setup_daemon(void) {
        harness_up(&d);
        setenv("ACCELD_SOCKET", d.sock, 1);
}

static void teardown_daemon(void) {
        harness_cleanup(&d);
}

/* ---- ABI ---- */

START_TEST(test_tflite_c_abi_layouts) {
        /* TensorFlow Lite 2.9's LP64 layouts, as its programs were built. */
        ck_assert_uint_eq(sizeof(TfLiteTensor), 112);
        ck_assert_uint_eq(offsetof(TfLiteTensor, data), 8);
        ck_assert_uint_eq(offsetof(TfLiteTensor, dims), 16);
        ck_assert_uint_eq(offsetof(TfLiteTensor, params), 24);
        ck_assert_uint_eq(offsetof(TfLiteTensor, bytes), 40);
        ck_assert_uint_eq(offsetof(TfLiteTensor, name), 56);
        ck_assert_uint_eq(offsetof(TfLiteTensor, quantization), 80);
        ck_assert_uint_eq(offsetof(TfLiteTensor, dims_signature), 104);
        ck_assert_uint_eq(sizeof(TfLiteDelegate), 48);
        ck_assert_uint_eq(sizeof(TfLiteRegistration), 64);
        ck_assert_uint_eq(sizeof(TfLiteQuantizationParams), 8);
        ck_assert_uint_eq(sizeof(TfLiteXNNPackDelegateOptions), 8);
        ck_assert_int_eq(kTfLiteFloat32, 1);
        ck_assert_int_eq(kTfLiteInt8, 9);
        ck_assert_int_eq(kTfLiteUInt32, 16);
        ck_assert_int_eq(kTfLiteDelegateError, 2);
        ck_assert_int_eq(kTfLiteUnresolvedOps, 7);
        ck_assert_str_eq(TfLiteVersion(), "2.9.0");
        ck_assert_str_eq(TfLiteTypeGetName(kTfLiteFloat32), "FLOAT32");
        ck_assert_str_eq(TfLiteTypeGetName(kTfLiteUInt32), "UINT32");
        ck_assert_str_eq(TfLiteTypeGetName((TfLiteType) 99), "Unknown type");
        TfLiteDelegate del = TfLiteDelegateCreate();
        ck_assert_ptr_null(del.data_);
        ck_assert_ptr_null(del.Prepare);
        ck_assert_int_eq(del.flags, kTfLiteDelegateFlagsNone);
}
END_TEST

START_TEST(test_tflite_c_arrays) {
        TfLiteIntArray *a = TfLiteIntArrayCreate(3);
        ck_assert_ptr_nonnull(a);
        ck_assert_int_eq(a->size, 3);
        a->data[0] = 1, a->data[1] = 2, a->data[2] = 3;
        TfLiteIntArray *b = TfLiteIntArrayCopy(a);
        ck_assert_int_eq(TfLiteIntArrayEqual(a, b), 1);
        static const int same[] = { 1, 2, 3 }, other[] = { 1, 2, 4 };
        ck_assert_int_eq(TfLiteIntArrayEqualsArray(a, 3, same), 1);
        ck_assert_int_eq(TfLiteIntArrayEqualsArray(a, 3, other), 0);
        ck_assert_int_eq(TfLiteIntArrayEqualsArray(a, 2, same), 0);
        b->data[2] = 9;
        ck_assert_int_eq(TfLiteIntArrayEqual(a, b), 0);
        ck_assert_int_eq(TfLiteIntArrayEqual(NULL, NULL), 1);
        ck_assert_int_eq(TfLiteIntArrayEqual(a, NULL), 0);
        ck_assert_ptr_null(TfLiteIntArrayCopy(NULL));
        ck_assert_uint_eq(TfLiteIntArrayGetSizeInBytes(3), sizeof(int) * 4);
        TfLiteIntArrayFree(a);
        TfLiteIntArrayFree(b);
        TfLiteFloatArray *f = TfLiteFloatArrayCreate(2);
        ck_assert_int_eq(f->size, 2);
        ck_assert_int_eq(TfLiteFloatArrayGetSizeInBytes(2), (int) (sizeof(int) + 2 * sizeof(float)));
        TfLiteFloatArrayFree(f);
        TfLiteIntArrayFree(NULL);
}
END_TEST

START_TEST(test_tflite_c_caller_tensor_helpers) {
        TfLiteTensor t = { 0 }, u = { 0 };
        TfLiteIntArray *dims = TfLiteIntArrayCreate(1);
        dims->data[0] = 4;
        char *buf = malloc(16);
        memcpy(buf, "0123456789abcdef", 16);
        TfLiteTensorReset(kTfLiteFloat32, "t", dims, (TfLiteQuantizationParams) { 0.5f, 3 }, buf, 16, kTfLiteDynamic,
                          NULL, false, &t);
        ck_assert_int_eq(t.type, kTfLiteFloat32);
        ck_assert_int_eq(t.buffer_handle, kTfLiteNullBufferHandle);
        ck_assert_uint_eq(t.bytes, 16);
        TfLiteTensorRealloc(32, &t);
        ck_assert_uint_eq(t.bytes, 32);
        ck_assert_int_eq(memcmp(t.data.raw, "0123456789abcdef", 16), 0);
        u.allocation_type = kTfLiteDynamic;
        TfLiteTensorRealloc(32, &u);
        ck_assert_int_eq(TfLiteTensorCopy(&t, &u), kTfLiteOk);
        ck_assert_int_eq(memcmp(u.data.raw, t.data.raw, 16), 0);
        TfLiteTensorRealloc(8, &u);
        ck_assert_int_eq(TfLiteTensorCopy(&t, &u), kTfLiteError);
        TfLiteTensorFree(&t);
        TfLiteTensorFree(&u);
        ck_assert_ptr_null(t.data.raw);
        ck_assert_ptr_null(t.dims);
        TfLiteTensorFree(NULL);
}
END_TEST

/* ---- models: one run against the goldens ---- */

static TfLiteStatus run_golden(const golden_model_t *g, TfLiteInterpreterOptions *o, golden_tol_kind_t kind,
                               char *why, size_t why_size) {
        TfLiteStatus st = kTfLiteError;
        TfLiteModel *m = TfLiteModelCreateFromFile(g->path);
        TfLiteInterpreter *it = NULL;
        why[0] = '\0';
        if (!m) {
                snprintf(why, why_size, "model refused");
                return kTfLiteError;
        }
        it = TfLiteInterpreterCreate(m, o);
        /* The interpreter keeps the model alive. */
        TfLiteModelDelete(m);
        if (!it) {
                snprintf(why, why_size, "create: %.600s", reported);
                return kTfLiteError;
        }
        if (TfLiteInterpreterGetInputTensorCount(it) != (int32_t) g->n_inputs ||
            TfLiteInterpreterGetOutputTensorCount(it) != (int32_t) g->n_outputs) {
                snprintf(why, why_size, "tensor counts");
                goto out;
        }
        if (TfLiteInterpreterAllocateTensors(it) != kTfLiteOk) {
                snprintf(why, why_size, "allocate: %.600s", reported);
                goto out;
        }
        for (size_t i = 0; i < g->n_inputs; i++) {
                void *data = NULL;
                size_t size = 0;
                TfLiteTensor *t = TfLiteInterpreterGetInputTensor(it, (int32_t) i);
                ck_assert_int_eq(acc_file_read(g->inputs[i].path, &data, &size), 0);
                TfLiteStatus r = TfLiteTensorCopyFromBuffer(t, data, size);
                free(data);
                if (r != kTfLiteOk) {
                        snprintf(why, why_size, "input %zu: %zu bytes, the tensor has %zu", i, size,
                                 TfLiteTensorByteSize(t));
                        goto out;
                }
        }
        if (TfLiteInterpreterInvoke(it) != kTfLiteOk) {
                snprintf(why, why_size, "invoke: %.600s", reported);
                goto out;
        }
        st = kTfLiteOk;
        for (size_t i = 0; i < g->n_outputs; i++) {
                void *want = NULL;
                size_t want_size = 0;
                const TfLiteTensor *t = TfLiteInterpreterGetOutputTensor(it, (int32_t) i);
                golden_result_t res;
                ck_assert_int_eq(acc_file_read(g->outputs[i].path, &want, &want_size), 0);
                /* Through the accessors, as a program would; dynamic shapes
                 * are known after Invoke. */
                ck_assert_int_eq(golden_compare(&g->outputs[i], kind, TfLiteTensorData(t), TfLiteTensorByteSize(t),
                                                want, want_size, &res),
                                 0);
                free(want);
                if (!res.pass) {
                        snprintf(why, why_size, "output %zu: %s", i, res.message);
                        st = kTfLiteError;
                        break;
                }
        }
out:
        TfLiteInterpreterDelete(it);
        return st;
}

/* Every runnable model; returns the number that failed, printing one line
 * per model (the report's table). */
static int run_all(const char *mode, golden_tol_kind_t kind) {
        const char *shared = golden_shared_dir();
        golden_manifest_t *man = NULL;
        char err[512];
        int failed = 0, passed = 0;
        if (!shared || golden_manifest_load(shared, &man, err, sizeof(err)) < 0) {
                fprintf(stderr, "SKIP: no shared models (ACCELD_SHARED_DIR)\n");
                return 0;
        }
        for (size_t k = 0; k < man->n_models; k++) {
                const golden_model_t *g = &man->models[k];
                char why[768];
                int n = 0;
                if (!g->runnable)
                        continue;
                if (access(g->path, R_OK) < 0) {
                        fprintf(stderr, "tflite-c %s %-50s SKIP (file not stored)\n", mode, g->name);
                        continue;
                }
                reported[0] = '\0';
                TfLiteInterpreterOptions *o = TfLiteInterpreterOptionsCreate();
                TfLiteInterpreterOptionsSetErrorReporter(o, reporter, &n);
                TfLiteInterpreterOptionsSetNumThreads(o, 1);
                TfLiteStatus st = run_golden(g, o, kind, why, sizeof(why));
                TfLiteInterpreterOptionsDelete(o);
                fprintf(stderr, "tflite-c %s %-50s %s%s%s\n", mode, g->name, st == kTfLiteOk ? "PASS" : "FAIL",
                        st == kTfLiteOk ? "" : ": ", why);
                if (st == kTfLiteOk)
                        passed++;
                else
                        failed++;
        }
        fprintf(stderr, "tflite-c %s: %d passed, %d failed\n", mode, passed, failed);
        golden_manifest_free(man);
        return failed;
}

START_TEST(test_tflite_c_models_local) {
        setenv("ACCEL_TFLITE_MODE", "local", 1);
        /* The runtime's default without a delegate: the reference kernels. */
        ck_assert_int_eq(run_all("local", GOLDEN_TOL_REFERENCE), 0);
}
END_TEST

START_TEST(test_tflite_c_models_served) {
        accel_client_t *c;
        accel_daemon_status_t *before, *after;
        setenv("ACCEL_TFLITE_MODE", "served", 1);
        ck_assert_int_eq(accel_connect(d.sock, &c), 0);
        ck_assert_int_eq(accel_get_status(c, &before), 0);
        /* acceld's own choice of settings may be XNNPACK. */
        ck_assert_int_eq(run_all("served", GOLDEN_TOL_ACCELERATED), 0);
        ck_assert_int_eq(accel_get_status(c, &after), 0);
        if (golden_shared_dir())
                ck_assert_uint_gt(after->serving.executions, before->serving.executions);
        accel_daemon_status_free(before);
        accel_daemon_status_free(after);
        accel_disconnect(c);
}
END_TEST

/* ---- behaviour ---- */

static TfLiteModel *float_model(void) {
        const char *shared = golden_shared_dir();
        char path[1024];
        if (!shared)
                return NULL;
        snprintf(path, sizeof(path), "%s/models/mobilenet_v1_0.25_224_float.tflite", shared);
        return TfLiteModelCreateFromFile(path);
}

/* A delegate made by another library: refused through the reporter with a
 * failed status, at creation and when modifying the graph. */
static TfLiteStatus foreign_prepare(TfLiteContext *context, TfLiteDelegate *delegate) {
        ck_abort_msg("a foreign delegate's Prepare must never be called");
        return kTfLiteError;
}

static void check_foreign_delegate_refused(void) {
        TfLiteModel *m = float_model();
        int n = 0;
        if (!m)
                return;
        TfLiteDelegate foreign = TfLiteDelegateCreate();
        foreign.Prepare = foreign_prepare;
        TfLiteInterpreterOptions *o = TfLiteInterpreterOptionsCreate();
        TfLiteInterpreterOptionsSetErrorReporter(o, reporter, &n);
        TfLiteInterpreterOptionsAddDelegate(o, &foreign);
        reported[0] = '\0';
        ck_assert_ptr_null(TfLiteInterpreterCreate(m, o));
        ck_assert_int_ge(n, 1);
        ck_assert_ptr_nonnull(strstr(reported, "TfLiteExternalDelegateCreate"));
        TfLiteInterpreterOptionsDelete(o);

        o = TfLiteInterpreterOptionsCreate();
        TfLiteInterpreterOptionsSetErrorReporter(o, reporter, &n);
        TfLiteInterpreter *it = TfLiteInterpreterCreate(m, o);
        ck_assert_ptr_nonnull(it);
        n = 0;
        reported[0] = '\0';
        ck_assert_int_eq(TfLiteInterpreterModifyGraphWithDelegate(it, &foreign), kTfLiteDelegateError);
        ck_assert_int_eq(n, 1);
        ck_assert_ptr_nonnull(strstr(reported, "XNNPACK"));
        /* Still usable after the refusal. */
        ck_assert_int_eq(TfLiteInterpreterAllocateTensors(it), kTfLiteOk);
        ck_assert_int_eq(TfLiteInterpreterInvoke(it), kTfLiteOk);
        TfLiteInterpreterDelete(it);
        TfLiteInterpreterOptionsDelete(o);
        TfLiteModelDelete(m);
}

START_TEST(test_tflite_c_foreign_delegate_refused_local) {
        setenv("ACCEL_TFLITE_MODE", "local", 1);
        check_foreign_delegate_refused();
}
END_TEST

START_TEST(test_tflite_c_foreign_delegate_refused_served) {
        setenv("ACCEL_TFLITE_MODE", "served", 1);
        check_foreign_delegate_refused();
}
END_TEST

/* The XNNPACK delegate, given at creation or applied afterwards, gives the
 * golden result (the accelerated tolerance) on the float model. */
static void check_xnnpack_delegate(void) {
        const char *shared = golden_shared_dir();
        golden_manifest_t *man = NULL;
        char err[512], why[768];
        int n = 0;
        if (!shared)
                return;
        ck_assert_int_eq(golden_manifest_load(shared, &man, err, sizeof(err)), 0);
        const golden_model_t *g = golden_manifest_find(man, "mobilenet_v1_0.25_224_float");
        ck_assert_ptr_nonnull(g);
        TfLiteXNNPackDelegateOptions xo = TfLiteXNNPackDelegateOptionsDefault();
        ck_assert_int_eq(xo.num_threads, 0);
        xo.num_threads = 2;
        TfLiteDelegate *x = TfLiteXNNPackDelegateCreate(&xo);
        ck_assert_ptr_nonnull(x);
        ck_assert_ptr_null(TfLiteXNNPackDelegateGetThreadPool(x));
        TfLiteInterpreterOptions *o = TfLiteInterpreterOptionsCreate();
        TfLiteInterpreterOptionsSetErrorReporter(o, reporter, &n);
        TfLiteInterpreterOptionsAddDelegate(o, x);
        reported[0] = '\0';
        ck_assert_msg(run_golden(g, o, GOLDEN_TOL_ACCELERATED, why, sizeof(why)) == kTfLiteOk, "%s", why);
        TfLiteInterpreterOptionsDelete(o);

        /* ModifyGraphWithDelegate after allocation keeps the interpreter
         * allocated and the shapes. */
        TfLiteModel *m = TfLiteModelCreateFromFile(g->path);
        o = TfLiteInterpreterOptionsCreate();
        TfLiteInterpreterOptionsSetErrorReporter(o, reporter, &n);
        TfLiteInterpreter *it = TfLiteInterpreterCreate(m, o);
        ck_assert_int_eq(TfLiteInterpreterAllocateTensors(it), kTfLiteOk);
        ck_assert_int_eq(TfLiteInterpreterModifyGraphWithDelegate(it, x), kTfLiteOk);
        ck_assert_ptr_nonnull(TfLiteTensorData(TfLiteInterpreterGetInputTensor(it, 0)));
        ck_assert_int_eq(TfLiteTensorDim(TfLiteInterpreterGetInputTensor(it, 0), 1), 224);
        ck_assert_int_eq(TfLiteInterpreterInvoke(it), kTfLiteOk);
        TfLiteInterpreterDelete(it);
        TfLiteInterpreterOptionsDelete(o);
        TfLiteModelDelete(m);
        TfLiteXNNPackDelegateDelete(x);
        golden_manifest_free(man);
}

START_TEST(test_tflite_c_xnnpack_delegate_local) {
        setenv("ACCEL_TFLITE_MODE", "local", 1);
        check_xnnpack_delegate();
}
END_TEST

START_TEST(test_tflite_c_xnnpack_delegate_served) {
        setenv("ACCEL_TFLITE_MODE", "served", 1);
        check_xnnpack_delegate();
}
END_TEST

/* Served tensors are in memory shared with acceld: the input's data
 * pointer lies in a memfd mapping of this process. */
START_TEST(test_tflite_c_served_tensors_in_shared_memory) {
        setenv("ACCEL_TFLITE_MODE", "served", 1);
        TfLiteModel *m = float_model();
        if (!m)
                return;
        TfLiteInterpreter *it = TfLiteInterpreterCreate(m, NULL);
        ck_assert_ptr_nonnull(it);
        ck_assert_int_eq(TfLiteInterpreterAllocateTensors(it), kTfLiteOk);
        uintptr_t in = (uintptr_t) TfLiteTensorData(TfLiteInterpreterGetInputTensor(it, 0));
        uintptr_t out = (uintptr_t) TfLiteTensorData(TfLiteInterpreterGetOutputTensor(it, 0));
        FILE *f = fopen("/proc/self/maps", "re");
        char line[512];
        bool in_memfd = false, out_memfd = false;
        ck_assert_ptr_nonnull(f);
        while (fgets(line, sizeof(line), f)) {
                unsigned long lo, hi;
                if (sscanf(line, "%lx-%lx", &lo, &hi) != 2 || !strstr(line, "/memfd:"))
                        continue;
                in_memfd |= in >= lo && in < hi;
                out_memfd |= out >= lo && out < hi;
        }
        fclose(f);
        ck_assert(in_memfd);
        ck_assert(out_memfd);
        TfLiteInterpreterDelete(it);
        TfLiteModelDelete(m);
}
END_TEST

/* Forced served mode without a daemon fails with a report; auto mode runs
 * in-process instead. */
START_TEST(test_tflite_c_no_daemon) {
        int n = 0;
        TfLiteModel *m = float_model();
        if (!m)
                return;
        setenv("ACCELD_SOCKET", "/nonexistent/acceld.sock", 1);
        TfLiteInterpreterOptions *o = TfLiteInterpreterOptionsCreate();
        TfLiteInterpreterOptionsSetErrorReporter(o, reporter, &n);
        setenv("ACCEL_TFLITE_MODE", "served", 1);
        reported[0] = '\0';
        ck_assert_ptr_null(TfLiteInterpreterCreate(m, o));
        ck_assert_int_eq(n, 1);
        ck_assert_ptr_nonnull(strstr(reported, "acceld"));
        setenv("ACCEL_TFLITE_MODE", "auto", 1);
        TfLiteInterpreter *it = TfLiteInterpreterCreate(m, o);
        ck_assert_ptr_nonnull(it);
        ck_assert_int_eq(TfLiteInterpreterAllocateTensors(it), kTfLiteOk);
        ck_assert_int_eq(TfLiteInterpreterInvoke(it), kTfLiteOk);
        TfLiteInterpreterDelete(it);
        setenv("ACCEL_TFLITE_MODE", "bogus", 1);
        n = 0;
        ck_assert_ptr_null(TfLiteInterpreterCreate(m, o));
        ck_assert_int_eq(n, 1);
        TfLiteInterpreterOptionsDelete(o);
        TfLiteModelDelete(m);
}
END_TEST

/* Misuse gets TensorFlow Lite's statuses and our texts in the reporter. */
static void check_errors(void) {
        int n = 0;
        TfLiteModel *m = float_model();
        if (!m)
                return;
        TfLiteInterpreterOptions *o = TfLiteInterpreterOptionsCreate();
        TfLiteInterpreterOptionsSetErrorReporter(o, reporter, &n);
        TfLiteInterpreter *it = TfLiteInterpreterCreate(m, o);
        ck_assert_ptr_nonnull(it);
        reported[0] = '\0';
        ck_assert_int_eq(TfLiteInterpreterInvoke(it), kTfLiteError);
        ck_assert_int_eq(n, 1);
        ck_assert_ptr_nonnull(strstr(reported, "AllocateTensors"));
        ck_assert_ptr_null(TfLiteInterpreterGetInputTensor(it, 1));
        ck_assert_ptr_null(TfLiteInterpreterGetOutputTensor(it, -1));
        ck_assert_int_ge(TfLiteInterpreterGetInputTensorIndex(it, 0), 0);
        ck_assert_int_ne(TfLiteInterpreterGetInputTensorIndex(it, 0), TfLiteInterpreterGetOutputTensorIndex(it, 0));
        ck_assert_int_eq(TfLiteInterpreterGetInputTensorIndex(it, 1), -1);
        ck_assert_int_eq(TfLiteInterpreterAllocateTensors(it), kTfLiteOk);
        TfLiteTensor *in = TfLiteInterpreterGetInputTensor(it, 0);
        ck_assert_int_eq(TfLiteTensorType(in), kTfLiteFloat32);
        ck_assert_int_eq(TfLiteTensorNumDims(in), 4);
        ck_assert_uint_eq(TfLiteTensorByteSize(in), 224 * 224 * 3 * 4);
        ck_assert_int_eq(in->dims->data[3], 3);
        char small[8] = { 0 };
        ck_assert_int_eq(TfLiteTensorCopyFromBuffer(in, small, sizeof(small)), kTfLiteError);
        /* A rank the model cannot take. */
        n = 0;
        static const int bad[] = { 1, 224, 224, 3, 3 };
        if (TfLiteInterpreterResizeInputTensor(it, 0, bad, 5) == kTfLiteOk)
                ck_assert_int_eq(TfLiteInterpreterAllocateTensors(it), kTfLiteError);
        ck_assert_int_ge(n, 1);
        TfLiteInterpreterDelete(it);
        TfLiteInterpreterOptionsDelete(o);
        TfLiteModelDelete(m);
        /* Malformed models. */
        static const char junk[64] = "not a model";
        ck_assert_ptr_null(TfLiteModelCreate(junk, sizeof(junk)));
        ck_assert_ptr_null(TfLiteModelCreateFromFile("/nonexistent.tflite"));
}

START_TEST(test_tflite_c_errors_local) {
        setenv("ACCEL_TFLITE_MODE", "local", 1);
        check_errors();
}
END_TEST

START_TEST(test_tflite_c_errors_served) {
        setenv("ACCEL_TFLITE_MODE", "served", 1);
        check_errors();
}
END_TEST

/* A new batch size: the shape is visible at once, the outputs follow
 * after allocation, and the interpreter runs at the new size. */
static void check_resize(void) {
        int n = 0;
        TfLiteModel *m = float_model();
        if (!m)
                return;
        TfLiteInterpreterOptions *o = TfLiteInterpreterOptionsCreate();
        TfLiteInterpreterOptionsSetErrorReporter(o, reporter, &n);
        TfLiteInterpreter *it = TfLiteInterpreterCreate(m, o);
        ck_assert_ptr_nonnull(it);
        static const int dims[] = { 2, 224, 224, 3 };
        ck_assert_int_eq(TfLiteInterpreterResizeInputTensor(it, 0, dims, 4), kTfLiteOk);
        TfLiteTensor *in = TfLiteInterpreterGetInputTensor(it, 0);
        ck_assert_int_eq(TfLiteTensorDim(in, 0), 2);
        ck_assert_int_eq(TfLiteInterpreterAllocateTensors(it), kTfLiteOk);
        ck_assert_uint_eq(TfLiteTensorByteSize(in), 2 * 224 * 224 * 3 * 4);
        memset(TfLiteTensorData(in), 0, TfLiteTensorByteSize(in));
        ck_assert_int_eq(TfLiteInterpreterInvoke(it), kTfLiteOk);
        const TfLiteTensor *out = TfLiteInterpreterGetOutputTensor(it, 0);
        ck_assert_int_eq(out->dims->size, 2);
        ck_assert_int_eq(out->dims->data[0], 2);
        ck_assert_int_eq(out->dims->data[1], 1001);
        ck_assert_uint_eq(TfLiteTensorByteSize(out), 2 * 1001 * 4);
        /* Both rows saw the same (zero) input. */
        ck_assert_int_eq(memcmp(out->data.f, out->data.f + 1001, 1001 * sizeof(float)), 0);
        ck_assert_int_eq(n, 0);
        TfLiteInterpreterDelete(it);
        TfLiteInterpreterOptionsDelete(o);
        TfLiteModelDelete(m);
}

START_TEST(test_tflite_c_resize_local) {
        setenv("ACCEL_TFLITE_MODE", "local", 1);
        check_resize();
}
END_TEST

START_TEST(test_tflite_c_resize_served) {
        setenv("ACCEL_TFLITE_MODE", "served", 1);
        check_resize();
}
END_TEST

/* ResetVariableTensors on a stateful model (variable tensors), served
 * (acceld's ResetVariables: the state is this interpreter's) and
 * in-process: input A, then B three times (the state moves on), then
 * reset and A again gives A's first result; both ways the same numbers. */
#define STATE_OUT_MAX 4096

static void state_run(const golden_model_t *g, bool served, uint8_t *first, uint8_t *drifted, uint8_t *again,
                      size_t *ret_size) {
        setenv("ACCEL_TFLITE_MODE", served ? "served" : "local", 1);
        /* The reference kernels both ways, so that the numbers are equal. */
        setenv("ACCEL_TFLITE_SETTINGS", "{\"delegate\":\"NONE\"}", 1);
        int n = 0;
        TfLiteInterpreterOptions *o = TfLiteInterpreterOptionsCreate();
        TfLiteInterpreterOptionsSetErrorReporter(o, reporter, &n);
        TfLiteModel *m = TfLiteModelCreateFromFile(g->path);
        ck_assert_ptr_nonnull(m);
        reported[0] = '\0';
        TfLiteInterpreter *it = TfLiteInterpreterCreate(m, o);
        ck_assert_msg(it != NULL, "create: %s", reported);
        ck_assert_int_eq(TfLiteInterpreterAllocateTensors(it), kTfLiteOk);
        TfLiteTensor *in = TfLiteInterpreterGetInputTensor(it, 0);
        const TfLiteTensor *out = TfLiteInterpreterGetOutputTensor(it, 0);
        size_t in_size = TfLiteTensorByteSize(in), size = TfLiteTensorByteSize(out);
        ck_assert_uint_le(size, STATE_OUT_MAX);
        void *a = NULL;
        size_t a_size = 0;
        ck_assert_int_eq(acc_file_read(g->inputs[0].path, &a, &a_size), 0);
        ck_assert_uint_eq(a_size, in_size);
        uint8_t *b = malloc(in_size);
        for (size_t i = 0; i < in_size; i++)
                b[i] = (uint8_t) (((const uint8_t *) a)[i] ^ (i * 7 + 13));

        ck_assert_int_eq(TfLiteTensorCopyFromBuffer(in, a, in_size), kTfLiteOk);
        ck_assert_msg(TfLiteInterpreterInvoke(it) == kTfLiteOk, "invoke: %s", reported);
        memcpy(first, TfLiteTensorData(out), size);
        for (int k = 0; k < 3; k++) {
                ck_assert_int_eq(TfLiteTensorCopyFromBuffer(in, b, in_size), kTfLiteOk);
                ck_assert_int_eq(TfLiteInterpreterInvoke(it), kTfLiteOk);
        }
        ck_assert_int_eq(TfLiteTensorCopyFromBuffer(in, a, in_size), kTfLiteOk);
        ck_assert_int_eq(TfLiteInterpreterInvoke(it), kTfLiteOk);
        memcpy(drifted, TfLiteTensorData(out), size);
        ck_assert_msg(TfLiteInterpreterResetVariableTensors(it) == kTfLiteOk, "reset: %s", reported);
        ck_assert_int_eq(TfLiteTensorCopyFromBuffer(in, a, in_size), kTfLiteOk);
        ck_assert_int_eq(TfLiteInterpreterInvoke(it), kTfLiteOk);
        memcpy(again, TfLiteTensorData(out), size);
        ck_assert_int_eq(n, 0);
        *ret_size = size;
        free(a);
        free(b);
        TfLiteInterpreterDelete(it);
        TfLiteInterpreterOptionsDelete(o);
        TfLiteModelDelete(m);
        unsetenv("ACCEL_TFLITE_SETTINGS");
}

/* micro_speech_lstm of the shared models (*ret_man holds it; free it), or
 * NULL when it is absent: the test `what` is skipped. */
static const golden_model_t *state_model(const char *what, golden_manifest_t **ret_man) {
        const char *shared = golden_shared_dir();
        const golden_model_t *g;
        char err[256];

        *ret_man = NULL;
        if (!shared || golden_manifest_load(shared, ret_man, err, sizeof(err)) < 0) {
                fprintf(stderr, "SKIP %s: the shared models are absent\n", what);
                return NULL;
        }
        g = golden_manifest_find(*ret_man, "micro_speech_lstm");
        if (!g) {
                fprintf(stderr, "SKIP %s: micro_speech_lstm is not in the shared models\n", what);
                golden_manifest_free(*ret_man);
                *ret_man = NULL;
        }
        return g;
}

static uint64_t placed_count(void);

/* Two runs of state_run() on micro_speech_lstm (skipped, as test `what`,
 * when absent), the first local or served (served0), the
 * second served; with `placed`, the first is served, the second placed
 * (GetStatus counts it). In each the state matters and the reset brings it
 * back, and both give the same numbers. */
static void state_pair(const char *what, bool served0, bool placed) {
        const char *const names[2] = { served0 ? "served" : "local", placed ? "placed" : "served" };
        uint8_t first[2][STATE_OUT_MAX], drifted[2][STATE_OUT_MAX], again[2][STATE_OUT_MAX];
        golden_manifest_t *man = NULL;
        const golden_model_t *g = state_model(what, &man);
        uint64_t n;
        size_t size[2];

        if (!g)
                return;
        n = placed ? placed_count() : 0;

        for (int k = 0; k < 2; k++) {
                state_run(g, k ? true : served0, first[k], drifted[k], again[k], &size[k]);
                if (placed)
                        ck_assert_uint_eq(placed_count(), n + (uint64_t) k);
                ck_assert_msg(memcmp(first[k], drifted[k], size[k]) != 0, "%s: the state does not change the output",
                              names[k]);
                ck_assert_msg(memcmp(first[k], again[k], size[k]) == 0, "%s: not reset", names[k]);
        }
        ck_assert_uint_eq(size[0], size[1]);
        ck_assert_mem_eq(first[0], first[1], size[0]);
        ck_assert_mem_eq(drifted[0], drifted[1], size[0]);
        ck_assert_mem_eq(again[0], again[1], size[0]);
        golden_manifest_free(man);
}

START_TEST(test_tflite_c_reset_variables_served) {
        state_pair("reset_variables", false, false);
}
END_TEST

/* Placed: acceld runs the library's served interpreter in this process
 * (PLACEMENT_CLIENT) once client_placement_min_served = 3 served
 * executions give its compute; ResetVariableTensors then makes the
 * client's own interpreter fresh, with the served numbers. */
static void setup_daemon_placing(void) {
        static const char *const args[] = { "--client-placement-min-served", "3", "--client-placement-max-us",
                                            "60000000", "--client-placement-max-overhead", "0.0001", NULL };

        harness_up_with(&d, args, false);
        setenv("ACCELD_SOCKET", d.sock, 1);
}

static uint64_t placed_count(void) {
        accel_daemon_status_t *st = NULL;
        accel_client_t *c = NULL;
        uint64_t n;

        ck_assert_msg(accel_connect(d.sock, &c) == 0, "%s", accel_last_error());
        ck_assert_msg(accel_get_status(c, &st) == 0, "%s", accel_last_error());
        n = st->placement.placed_in_client;
        (void) accel_daemon_status_free(st);
        (void) accel_disconnect(c);
        return n;
}

START_TEST(test_tflite_c_reset_variables_placed) {
        /* Served (no compute yet: its six invokes give it), then placed. */
        state_pair("reset_variables_placed", true, true);
}
END_TEST

int main(int argc, char **argv) {
        Suite *s = suite_create("tflite-c");
        TCase *tu = tcase_create("api"), *tl = tcase_create("local"), *ts = tcase_create("served"),
              *tp = tcase_create("placed");
        SRunner *sr;
        int failed;

        harness_init(argc, argv);
        tcase_add_test(tu, test_tflite_c_abi_layouts);
        tcase_add_test(tu, test_tflite_c_arrays);
        tcase_add_test(tu, test_tflite_c_caller_tensor_helpers);
        tcase_add_test(tu, test_tflite_c_no_daemon);
        suite_add_tcase(s, tu);

        tcase_set_timeout(tl, 600);
        tcase_add_test(tl, test_tflite_c_models_local);
        tcase_add_test(tl, test_tflite_c_foreign_delegate_refused_local);
        tcase_add_test(tl, test_tflite_c_xnnpack_delegate_local);
        tcase_add_test(tl, test_tflite_c_errors_local);
        tcase_add_test(tl, test_tflite_c_resize_local);
        suite_add_tcase(s, tl);

        tcase_add_checked_fixture(ts, setup_daemon, teardown_daemon);
        tcase_set_timeout(ts, 600);
        tcase_add_test(ts, test_tflite_c_models_served);
        tcase_add_test(ts, test_tflite_c_foreign_delegate_refused_served);
        tcase_add_test(ts, test_tflite_c_xnnpack_delegate_served);
        tcase_add_test(ts, test_tflite_c_served_tensors_in_shared_memory);
        tcase_add_test(ts, test_tflite_c_errors_served);
        tcase_add_test(ts, test_tflite_c_resize_served);
        tcase_add_test(ts, test_tflite_c_reset_variables_served);
        suite_add_tcase(s, ts);

        tcase_add_checked_fixture(tp, setup_daemon_placing, teardown_daemon);
        tcase_set_timeout(tp, 120);
        tcase_add_test(tp, test_tflite_c_reset_variables_placed);
        suite_add_tcase(s, tp);

        sr = srunner_create(s);
        srunner_run_all(sr, CK_NORMAL);
        failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed ? 1 : 0;
}
