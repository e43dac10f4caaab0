/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Application kernels through libtensorflowlite_c (client/tflite-c/kernel.c):
 * a custom op whose TfLiteRegistration the test registers runs in this
 * process, with TensorFlow Lite 2.9's TfLiteContext / TfLiteNode, and the
 * rest of the graph on acceld's kernels (or XNNPACK). Models are built with
 * tests/builder; no daemon is needed (a model with application kernels
 * never goes to acceld, which the served-mode case checks).
 */
#include <check.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flexbuild.h"
#include "tensorflow/lite/c/c_api.h"
#include "tensorflow/lite/c/c_api_experimental.h"
#include "tensorflow/lite/c/common.h"
#include "tensorflow/lite/delegates/xnnpack/xnnpack_delegate.h"
#include "tflite-builder.h"

#define FACTOR 3.0f
#define BAD_INPUT -999.0f
#define MARK 0x5eed

static char reported[4096];
static int n_reports;

static void reporter(void *user_data, const char *format, va_list args) {
        size_t n = strlen(reported);
        (void) vsnprintf(reported + n, sizeof(reported) - n, format, args);
        n_reports++;
}

/* ---- the application's kernel: out = in * FACTOR ---- */

/* The custom options the model carries (a FlexBuffers map). */
static uint8_t flex[4096];  /* fx_build_map clears 4096 bytes */
static size_t flex_size;

typedef struct scale_state {
        int mark;
        int *persistent;                /* AllocatePersistentBuffer */
        int scratch;                    /* RequestScratchBufferInArena's index */
} scale_state_t;

static struct {
        int inits, frees, prepares, invokes;
        void *last_init, *last_free;
        bool init_data_ok, node_data_ok, threads_ok, resized_ok;
        int threads;
} calls;

static void *scale_init(TfLiteContext *ctx, const char *buffer, size_t length) {
        scale_state_t *s = calloc(1, sizeof(*s));
        s->mark = MARK;
        calls.inits++;
        calls.last_init = s;
        /* The model's bytes, untouched. */
        calls.init_data_ok = length == flex_size && buffer && memcmp(buffer, flex, length) == 0;
        return s;
}

static void scale_free(TfLiteContext *ctx, void *buffer) {
        calls.frees++;
        calls.last_free = buffer;
        free(buffer);
}

static TfLiteStatus scale_prepare(TfLiteContext *ctx, TfLiteNode *node) {
        scale_state_t *s = node->user_data;
        calls.prepares++;
        if (!s || s->mark != MARK || node->inputs->size != 1 || node->outputs->size != 1)
                return kTfLiteError;
        calls.node_data_ok = node->custom_initial_data_size == (int) flex_size &&
                             memcmp(node->custom_initial_data, flex, flex_size) == 0 && !node->builtin_data;
        calls.threads_ok = ctx->recommended_num_threads == calls.threads;
        const TfLiteTensor *in = &ctx->tensors[node->inputs->data[0]];
        TfLiteTensor *out = ctx->GetTensor(ctx, node->outputs->data[0]);
        if (in->type != kTfLiteFloat32 || out != &ctx->tensors[node->outputs->data[0]])
                return kTfLiteError;
        if (!s->persistent) {
                s->persistent = ctx->AllocatePersistentBuffer(ctx, 100);
                if (!s->persistent)
                        return kTfLiteError;
                *s->persistent = MARK;
        }
        if (ctx->RequestScratchBufferInArena(ctx, in->bytes, &s->scratch) != kTfLiteOk)
                return kTfLiteError;
        /* The model declares the output [1]: its shape comes from here. */
        if (ctx->ResizeTensor(ctx, out, TfLiteIntArrayCopy(in->dims)) != kTfLiteOk)
                return kTfLiteError;
        calls.resized_ok = TfLiteIntArrayEqual(out->dims, in->dims) && out->bytes == in->bytes;
        return kTfLiteOk;
}

static TfLiteStatus scale_invoke(TfLiteContext *ctx, TfLiteNode *node) {
        scale_state_t *s = node->user_data;
        calls.invokes++;
        const TfLiteTensor *in = &ctx->tensors[node->inputs->data[0]];
        TfLiteTensor *out = &ctx->tensors[node->outputs->data[0]];
        float *scratch = ctx->GetScratchBuffer(ctx, s->scratch);
        if (!scratch || *s->persistent != MARK || !in->data.f || !out->data.f || out->bytes != in->bytes)
                return kTfLiteError;
        size_t n = in->bytes / sizeof(float);
        if (in->data.f[0] == BAD_INPUT) {
                ctx->ReportError(ctx, "AppScale: input %d is %g", 0, (double) in->data.f[0]);
                return kTfLiteError;
        }
        for (size_t i = 0; i < n; i++)
                scratch[i] = in->data.f[i] * FACTOR;
        memcpy(out->data.f, scratch, in->bytes);
        return kTfLiteOk;
}

static const TfLiteRegistration scale_reg = {
        .init = scale_init,
        .free = scale_free,
        .prepare = scale_prepare,
        .invoke = scale_invoke,
};

/* ---- models ---- */

/* in [2,3] -> AppScale (declared [1]) -> mid; out = ADD(mid, in). */
static TfLiteModel *scale_model(void **ret_bytes) {
        fx_entry_t e[] = { { "factor", 'f', FACTOR }, { "mode", 'i', 2 } };
        flex_size = fx_build_map(flex, e, 2, 4);
        tfb_t *b = tfb_new();
        int32_t in = tfb_tensor(b, RT_TYPE_FLOAT32, "in", 2, TFB_DIMS(2, 3));
        int32_t mid = tfb_tensor(b, RT_TYPE_FLOAT32, "mid", 1, TFB_DIMS(1));
        int32_t out = tfb_tensor(b, RT_TYPE_FLOAT32, "out", 2, TFB_DIMS(2, 3));
        tfb_op_add(b, &(tfb_op_t) {
                .opcode = tfb_opcode_custom(b, "AppScale", 1),
                .inputs = TFB_IDS(in), .n_inputs = 1,
                .outputs = TFB_IDS(mid), .n_outputs = 1,
                .custom_options = flex, .custom_options_size = flex_size,
        });
        tfb_op_add(b, &(tfb_op_t) {
                .opcode = tfb_opcode_builtin(b, RT_BUILTIN_ADD, 1),
                .inputs = TFB_IDS(mid, in), .n_inputs = 2,
                .outputs = TFB_IDS(out), .n_outputs = 1,
                .options_type = RT_OPTIONS_ADD,
        });
        tfb_io(b, TFB_IDS(in), 1, TFB_IDS(out), 1);
        size_t size;
        void *bytes = tfb_finish(b, &size);
        tfb_free(b);
        ck_assert_ptr_nonnull(bytes);
        *ret_bytes = bytes;
        TfLiteModel *m = TfLiteModelCreate(bytes, size);
        ck_assert_ptr_nonnull(m);
        return m;
}

/* TFLite_Detection_PostProcess, a custom op TensorFlow Lite's builtin
 * resolver registers and acceld's kernels have: boxes [1,2,4] and scores
 * [1,2,2] (background first) in, constant anchors; the four outputs are
 * declared with no shape (its prepare gives them theirs). */
static TfLiteModel *detection_model(void **ret_bytes) {
        const fx_entry_t opts[] = {
                { "detections_per_class", 'i', 1 },   { "h_scale", 'f', 5 },
                { "max_classes_per_detection", 'i', 1 }, { "max_detections", 'i', 1 },
                { "nms_iou_threshold", 'f', 0.5 },   { "nms_score_threshold", 'f', 0.1 },
                { "num_classes", 'i', 1 },            { "use_regular_nms", 'b', 0 },
                { "w_scale", 'f', 5 },                { "x_scale", 'f', 10 },
                { "y_scale", 'f', 10 },
        };
        uint8_t dflex[4096];
        size_t dflex_size = fx_build_map(dflex, opts, sizeof(opts) / sizeof(opts[0]), 4);
        static const float anchors[8] = { 0.25f, 0.25f, 0.5f, 0.5f, 0.75f, 0.75f, 0.5f, 0.5f };
        tfb_t *b = tfb_new();
        int32_t enc = tfb_tensor(b, RT_TYPE_FLOAT32, "boxes", 3, TFB_DIMS(1, 2, 4));
        int32_t sc = tfb_tensor(b, RT_TYPE_FLOAT32, "scores", 3, TFB_DIMS(1, 2, 2));
        int32_t an = tfb_tensor_const(b, RT_TYPE_FLOAT32, "anchors", 2, TFB_DIMS(2, 4), anchors, sizeof(anchors));
        int32_t o[4];
        for (int k = 0; k < 4; k++)
                o[k] = tfb_tensor(b, RT_TYPE_FLOAT32, "out", 0, NULL);
        tfb_op_add(b, &(tfb_op_t) {
                .opcode = tfb_opcode_custom(b, "TFLite_Detection_PostProcess", 1),
                .inputs = TFB_IDS(enc, sc, an), .n_inputs = 3,
                .outputs = o, .n_outputs = 4,
                .custom_options = dflex, .custom_options_size = dflex_size,
        });
        tfb_io(b, TFB_IDS(enc, sc), 2, o, 4);
        size_t size;
        void *bytes = tfb_finish(b, &size);
        tfb_free(b);
        ck_assert_ptr_nonnull(bytes);
        *ret_bytes = bytes;
        TfLiteModel *m = TfLiteModelCreate(bytes, size);
        ck_assert_ptr_nonnull(m);
        return m;
}

static void setup(void) {
        memset(&calls, 0, sizeof(calls));
        reported[0] = '\0';
        n_reports = 0;
        /* A model with application kernels runs here even when served is
         * forced (and no daemon answers at this socket). */
        setenv("ACCEL_TFLITE_MODE", "served", 1);
        setenv("ACCELD_SOCKET", "/nonexistent/acceld.sock", 1);
}

static TfLiteInterpreterOptions *options(void) {
        TfLiteInterpreterOptions *o = TfLiteInterpreterOptionsCreate();
        TfLiteInterpreterOptionsSetErrorReporter(o, reporter, NULL);
        return o;
}

static void fill(TfLiteTensor *t, float base) {
        float *f = TfLiteTensorData(t);
        for (size_t i = 0; i < TfLiteTensorByteSize(t) / sizeof(float); i++)
                f[i] = base + (float) i;
}

/* out = in * FACTOR + in. */
static void check_scaled(TfLiteInterpreter *it, float base, size_t n) {
        const TfLiteTensor *out = TfLiteInterpreterGetOutputTensor(it, 0);
        ck_assert_uint_eq(TfLiteTensorByteSize(out), n * sizeof(float));
        const float *f = TfLiteTensorData(out);
        for (size_t i = 0; i < n; i++)
                ck_assert_float_eq_tol(f[i], (base + (float) i) * (FACTOR + 1.0f), 1e-5f);
}

static void run_scale(TfLiteDelegate *delegate) {
        void *bytes;
        TfLiteModel *m = scale_model(&bytes);
        TfLiteInterpreterOptions *o = options();
        TfLiteInterpreterOptionsAddCustomOp(o, "AppScale", &scale_reg, 1, 1);
        TfLiteInterpreterOptionsSetNumThreads(o, 2);
        calls.threads = 2;
        if (delegate)
                TfLiteInterpreterOptionsAddDelegate(o, delegate);
        TfLiteInterpreter *it = TfLiteInterpreterCreate(m, o);
        ck_assert_msg(it != NULL, "create: %s", reported);
        /* The registration was copied; the options may go. */
        TfLiteInterpreterOptionsDelete(o);
        ck_assert_int_eq(calls.inits, 1);
        ck_assert(calls.init_data_ok);
        ck_assert_int_eq(TfLiteInterpreterAllocateTensors(it), kTfLiteOk);
        /* Once, or twice with a delegate (the plan is made on shapes the
         * reference kernels inferred, as TensorFlow Lite re-prepares after
         * ModifyGraphWithDelegate). */
        ck_assert_int_ge(calls.prepares, 1);
        int prepares = calls.prepares;
        ck_assert(calls.node_data_ok);
        ck_assert(calls.threads_ok);
        ck_assert(calls.resized_ok);
        fill(TfLiteInterpreterGetInputTensor(it, 0), 1.0f);
        ck_assert_msg(TfLiteInterpreterInvoke(it) == kTfLiteOk, "invoke: %s", reported);
        ck_assert_int_eq(calls.invokes, 1);
        check_scaled(it, 1.0f, 6);

        /* A new input shape: prepare runs again and resizes the output,
         * invoke sees the new data pointers. */
        ck_assert_int_eq(TfLiteInterpreterResizeInputTensor(it, 0, (int[]) { 4, 3 }, 2), kTfLiteOk);
        ck_assert_int_eq(TfLiteInterpreterAllocateTensors(it), kTfLiteOk);
        ck_assert_int_gt(calls.prepares, prepares);
        ck_assert(calls.resized_ok);
        fill(TfLiteInterpreterGetInputTensor(it, 0), -2.5f);
        ck_assert_msg(TfLiteInterpreterInvoke(it) == kTfLiteOk, "invoke: %s", reported);
        check_scaled(it, -2.5f, 12);
        ck_assert_int_eq(calls.frees, 0);
        TfLiteInterpreterDelete(it);
        /* free once, with what init returned. */
        ck_assert_int_eq(calls.frees, 1);
        ck_assert_ptr_eq(calls.last_free, calls.last_init);
        ck_assert_int_eq(n_reports, 0);
        TfLiteModelDelete(m);
        free(bytes);
}

START_TEST(test_app_kernel_runs) {
        run_scale(NULL);
}
END_TEST

/* With XNNPACK for the rest of the graph: ADD goes to XNNPACK, the
 * application's node stays in this process. */
START_TEST(test_app_kernel_with_xnnpack) {
        TfLiteXNNPackDelegateOptions xo = TfLiteXNNPackDelegateOptionsDefault();
        xo.num_threads = 1;
        TfLiteDelegate *d = TfLiteXNNPackDelegateCreate(&xo);
        run_scale(d);
        TfLiteXNNPackDelegateDelete(d);
}
END_TEST

/* An error from invoke is kTfLiteError with the kernel's report. */
START_TEST(test_app_kernel_error) {
        void *bytes;
        TfLiteModel *m = scale_model(&bytes);
        TfLiteInterpreterOptions *o = options();
        TfLiteInterpreterOptionsAddCustomOp(o, "AppScale", &scale_reg, 1, 1);
        TfLiteInterpreter *it = TfLiteInterpreterCreate(m, o);
        TfLiteInterpreterOptionsDelete(o);
        ck_assert_ptr_nonnull(it);
        ck_assert_int_eq(TfLiteInterpreterAllocateTensors(it), kTfLiteOk);
        float in[6] = { BAD_INPUT, 0, 0, 0, 0, 0 };
        ck_assert_int_eq(TfLiteTensorCopyFromBuffer(TfLiteInterpreterGetInputTensor(it, 0), in, sizeof(in)),
                         kTfLiteOk);
        ck_assert_int_eq(TfLiteInterpreterInvoke(it), kTfLiteError);
        ck_assert_msg(strstr(reported, "AppScale: input 0 is -999") != NULL, "reported: %s", reported);
        /* And the next good input runs again. */
        fill(TfLiteInterpreterGetInputTensor(it, 0), 1.0f);
        reported[0] = '\0';
        ck_assert_msg(TfLiteInterpreterInvoke(it) == kTfLiteOk, "invoke: %s", reported);
        check_scaled(it, 1.0f, 6);
        TfLiteInterpreterDelete(it);
        ck_assert_int_eq(calls.inits, calls.frees);
        TfLiteModelDelete(m);
        free(bytes);
}
END_TEST

/* Without the application's registration, a custom op nobody provides is
 * refused by name. */
START_TEST(test_app_kernel_missing) {
        setenv("ACCEL_TFLITE_MODE", "local", 1);
        void *bytes;
        TfLiteModel *m = scale_model(&bytes);
        TfLiteInterpreterOptions *o = options();
        ck_assert_ptr_null(TfLiteInterpreterCreate(m, o));
        ck_assert_msg(strstr(reported, "AppScale") != NULL, "reported: %s", reported);
        ck_assert_int_eq(calls.inits, 0);
        TfLiteInterpreterOptionsDelete(o);
        TfLiteModelDelete(m);
        free(bytes);
}
END_TEST

/* ---- an output sized at invoke: AppRange, out = 0, 1, ..., in[0] - 1 ---- */

static TfLiteStatus range_prepare(TfLiteContext *ctx, TfLiteNode *node) {
        TfLiteTensor *out = &ctx->tensors[node->outputs->data[0]];
        /* What TensorFlow Lite's SetTensorToDynamic does. */
        if (out->allocation_type != kTfLiteDynamic) {
                out->data.raw = NULL;
                out->allocation_type = kTfLiteDynamic;
        }
        return kTfLiteOk;
}

static TfLiteStatus range_invoke(TfLiteContext *ctx, TfLiteNode *node) {
        const TfLiteTensor *in = &ctx->tensors[node->inputs->data[0]];
        TfLiteTensor *out = &ctx->tensors[node->outputs->data[0]];
        int n = (int) in->data.f[0];
        if (ctx->ResizeTensorExplicit(ctx, out, 1, &n) != kTfLiteOk || out->bytes != (size_t) n * sizeof(float))
                return kTfLiteError;
        for (int i = 0; i < n; i++)
                out->data.f[i] = (float) i;
        return kTfLiteOk;
}

static const TfLiteRegistration range_reg = { .prepare = range_prepare, .invoke = range_invoke };

START_TEST(test_app_kernel_dynamic_output) {
        setenv("ACCEL_TFLITE_MODE", "local", 1);
        tfb_t *b = tfb_new();
        int32_t in = tfb_tensor(b, RT_TYPE_FLOAT32, "n", 1, TFB_DIMS(1));
        int32_t out = tfb_tensor(b, RT_TYPE_FLOAT32, "range", 1, TFB_DIMS(1));
        tfb_op_add(b, &(tfb_op_t) {
                .opcode = tfb_opcode_custom(b, "AppRange", 1),
                .inputs = TFB_IDS(in), .n_inputs = 1,
                .outputs = TFB_IDS(out), .n_outputs = 1,
        });
        tfb_io(b, TFB_IDS(in), 1, TFB_IDS(out), 1);
        size_t size;
        void *bytes = tfb_finish(b, &size);
        tfb_free(b);
        TfLiteModel *m = TfLiteModelCreate(bytes, size);
        ck_assert_ptr_nonnull(m);
        TfLiteInterpreterOptions *o = options();
        TfLiteInterpreterOptionsAddCustomOp(o, "AppRange", &range_reg, 1, 1);
        TfLiteInterpreter *it = TfLiteInterpreterCreate(m, o);
        ck_assert_msg(it != NULL, "create: %s", reported);
        ck_assert_int_eq(TfLiteInterpreterAllocateTensors(it), kTfLiteOk);
        for (int n = 5; n <= 300; n += 295) {
                float v = (float) n;
                ck_assert_int_eq(TfLiteTensorCopyFromBuffer(TfLiteInterpreterGetInputTensor(it, 0), &v, sizeof(v)),
                                 kTfLiteOk);
                ck_assert_msg(TfLiteInterpreterInvoke(it) == kTfLiteOk, "invoke: %s", reported);
                const TfLiteTensor *t = TfLiteInterpreterGetOutputTensor(it, 0);
                ck_assert_int_eq(TfLiteTensorNumDims(t), 1);
                ck_assert_int_eq(TfLiteTensorDim(t, 0), n);
                ck_assert_uint_eq(TfLiteTensorByteSize(t), (size_t) n * sizeof(float));
                const float *f = TfLiteTensorData(t);
                for (int i = 0; i < n; i++)
                        ck_assert_float_eq(f[i], (float) i);
        }
        TfLiteInterpreterDelete(it);
        TfLiteInterpreterOptionsDelete(o);
        TfLiteModelDelete(m);
        free(bytes);
}
END_TEST

/* ---- precedence, as TensorFlow Lite 2.9's C API ---- */

/* The application's TFLite_Detection_PostProcess: every output [1] and
 * 7.0. */
static TfLiteStatus sevens_prepare(TfLiteContext *ctx, TfLiteNode *node) {
        for (int k = 0; k < node->outputs->size; k++) {
                TfLiteIntArray *one = TfLiteIntArrayCreate(1);
                one->data[0] = 1;
                if (ctx->ResizeTensor(ctx, &ctx->tensors[node->outputs->data[k]], one) != kTfLiteOk)
                        return kTfLiteError;
        }
        return kTfLiteOk;
}

static TfLiteStatus sevens_invoke(TfLiteContext *ctx, TfLiteNode *node) {
        for (int k = 0; k < node->outputs->size; k++)
                ctx->tensors[node->outputs->data[k]].data.f[0] = 7.0f;
        calls.invokes++;
        return kTfLiteOk;
}

static const TfLiteRegistration sevens_reg = { .prepare = sevens_prepare, .invoke = sevens_invoke };

/* Run the detection model; its detection count (output 3), or NAN when
 * the interpreter is refused. */
static float detections(TfLiteInterpreterOptions *o) {
        void *bytes;
        TfLiteModel *m = detection_model(&bytes);
        TfLiteInterpreter *it = TfLiteInterpreterCreate(m, o);
        float v = NAN;
        if (it) {
                ck_assert_int_eq(TfLiteInterpreterAllocateTensors(it), kTfLiteOk);
                fill(TfLiteInterpreterGetInputTensor(it, 0), 0.0f);
                fill(TfLiteInterpreterGetInputTensor(it, 1), 0.0f);
                ck_assert_msg(TfLiteInterpreterInvoke(it) == kTfLiteOk, "invoke: %s", reported);
                const TfLiteTensor *count = TfLiteInterpreterGetOutputTensor(it, 3);
                ck_assert_uint_eq(TfLiteTensorByteSize(count), sizeof(float));
                v = *(const float *) TfLiteTensorData(count);
                TfLiteInterpreterDelete(it);
        }
        TfLiteModelDelete(m);
        free(bytes);
        return v;
}

static const TfLiteRegistration *find_none(void *user, const char *op, int version) {
        return NULL;
}

static const TfLiteRegistration *find_sevens(void *user, const char *op, int version) {
        (*(int *) user)++;
        return strcmp(op, "TFLite_Detection_PostProcess") == 0 && version == 1 ? &sevens_reg : NULL;
}

static const TfLiteRegistration *find_builtin_any(void *user, TfLiteBuiltinOperator op, int version) {
        static const TfLiteRegistration unused = { .invoke = NULL };
        return &unused;
}

START_TEST(test_app_kernel_precedence) {
        setenv("ACCEL_TFLITE_MODE", "local", 1);
        /* Nobody registers it: acceld's own (one detection). */
        TfLiteInterpreterOptions *o = options();
        ck_assert_float_eq(detections(o), 1.0f);
        TfLiteInterpreterOptionsDelete(o);

        /* AddCustomOp under the same name wins over the builtin
         * resolver's op (MutableOpResolver::AddAll replaces it). */
        o = options();
        TfLiteInterpreterOptionsAddCustomOp(o, "TFLite_Detection_PostProcess", &sevens_reg, 1, 1);
        ck_assert_float_eq(detections(o), 7.0f);
        ck_assert_int_eq(calls.invokes, 1);
        TfLiteInterpreterOptionsDelete(o);

        /* ... for the versions it names only. */
        o = options();
        TfLiteInterpreterOptionsAddCustomOp(o, "TFLite_Detection_PostProcess", &sevens_reg, 2, 3);
        ck_assert_float_eq(detections(o), 1.0f);
        TfLiteInterpreterOptionsDelete(o);

        /* SetOpResolver's callbacks replace every other resolver: what
         * they do not find is unresolved, even an op acceld has and one
         * AddCustomOp registered ... */
        o = options();
        TfLiteInterpreterOptionsAddCustomOp(o, "TFLite_Detection_PostProcess", &sevens_reg, 1, 1);
        TfLiteInterpreterOptionsSetOpResolver(o, find_builtin_any, find_none, NULL);
        reported[0] = '\0';
        ck_assert(isnan(detections(o)));
        ck_assert_msg(strstr(reported, "unresolved custom op: TFLite_Detection_PostProcess") != NULL,
                      "reported: %s", reported);
        TfLiteInterpreterOptionsDelete(o);

        /* ... and what they find runs. */
        int asked = 0;
        o = options();
        TfLiteInterpreterOptionsSetOpResolver(o, find_builtin_any, find_sevens, &asked);
        ck_assert_float_eq(detections(o), 7.0f);
        ck_assert_int_ge(asked, 1);
        TfLiteInterpreterOptionsDelete(o);
}
END_TEST

static const TfLiteRegistration *find_scale(void *user, const char *op, int version) {
        return strcmp(op, "AppScale") == 0 ? &scale_reg : NULL;
}

/* SetOpResolver must also know the builtin ops (TensorFlow Lite's
 * CallbackOpResolver has nothing else); acceld's kernels run them. */
START_TEST(test_app_kernel_resolver_builtins) {
        void *bytes;
        TfLiteModel *m = scale_model(&bytes);
        TfLiteInterpreterOptions *o = options();
        TfLiteInterpreterOptionsSetOpResolver(o, NULL, find_scale, NULL);
        ck_assert_ptr_null(TfLiteInterpreterCreate(m, o));
        ck_assert_msg(strstr(reported, "builtin opcode 'ADD'") != NULL, "reported: %s", reported);
        TfLiteInterpreterOptionsSetOpResolver(o, find_builtin_any, find_scale, NULL);
        TfLiteInterpreter *it = TfLiteInterpreterCreate(m, o);
        ck_assert_msg(it != NULL, "create: %s", reported);
        ck_assert_int_eq(TfLiteInterpreterAllocateTensors(it), kTfLiteOk);
        fill(TfLiteInterpreterGetInputTensor(it, 0), 0.5f);
        ck_assert_int_eq(TfLiteInterpreterInvoke(it), kTfLiteOk);
        check_scaled(it, 0.5f, 6);
        TfLiteInterpreterDelete(it);
        TfLiteInterpreterOptionsDelete(o);
        TfLiteModelDelete(m);
        free(bytes);
}
END_TEST

/* CreateWithSelectedOps: the options' ops only, builtin ones included
 * (AddBuiltinOp names them; acceld's kernels run them). */
START_TEST(test_app_kernel_selected_ops) {
        void *bytes;
        TfLiteModel *m = scale_model(&bytes);
        TfLiteInterpreterOptions *o = options();
        TfLiteInterpreterOptionsAddCustomOp(o, "AppScale", &scale_reg, 1, 1);
        ck_assert_ptr_null(TfLiteInterpreterCreateWithSelectedOps(m, o));
        ck_assert_msg(strstr(reported, "builtin opcode 'ADD'") != NULL, "reported: %s", reported);
        static const TfLiteRegistration unused = { .invoke = NULL };
        TfLiteInterpreterOptionsAddBuiltinOp(o, kTfLiteBuiltinAdd, &unused, 1, 1);
        TfLiteInterpreter *it = TfLiteInterpreterCreateWithSelectedOps(m, o);
        ck_assert_msg(it != NULL, "create: %s", reported);
        ck_assert_int_eq(TfLiteInterpreterAllocateTensors(it), kTfLiteOk);
        fill(TfLiteInterpreterGetInputTensor(it, 0), 2.0f);
        ck_assert_int_eq(TfLiteInterpreterInvoke(it), kTfLiteOk);
        check_scaled(it, 2.0f, 6);
        TfLiteInterpreterDelete(it);
        TfLiteInterpreterOptionsDelete(o);
        TfLiteModelDelete(m);
        free(bytes);
}
END_TEST

int main(void) {
        Suite *s = suite_create("tflite-c-kernels");
        TCase *tc = tcase_create("kernels");
        tcase_add_checked_fixture(tc, setup, NULL);
        tcase_set_timeout(tc, 120);
        tcase_add_test(tc, test_app_kernel_runs);
        tcase_add_test(tc, test_app_kernel_with_xnnpack);
        tcase_add_test(tc, test_app_kernel_error);
        tcase_add_test(tc, test_app_kernel_missing);
        tcase_add_test(tc, test_app_kernel_dynamic_output);
        tcase_add_test(tc, test_app_kernel_precedence);
        tcase_add_test(tc, test_app_kernel_resolver_builtins);
        tcase_add_test(tc, test_app_kernel_selected_ops);
        suite_add_tcase(s, tc);
        SRunner *sr = srunner_create(s);
        srunner_run_all(sr, CK_NORMAL);
        int failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed ? 1 : 0;
}
