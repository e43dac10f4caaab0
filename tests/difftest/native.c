/* SPDX-License-Identifier: Apache-2.0 */
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "native.h"

/* TensorFlow Lite C API types (c_api.h of 2.9), opaque here. */
typedef struct TfLiteModel TfLiteModel;
typedef struct TfLiteInterpreterOptions TfLiteInterpreterOptions;
typedef struct TfLiteInterpreter TfLiteInterpreter;
typedef struct TfLiteTensor TfLiteTensor;

struct dt_native {
        void *dl;
        const char *(*version)(void);
        TfLiteModel *(*model_create)(const void *data, size_t size);
        void (*model_delete)(TfLiteModel *m);
        TfLiteInterpreterOptions *(*options_create)(void);
        void (*options_delete)(TfLiteInterpreterOptions *o);
        void (*options_set_num_threads)(TfLiteInterpreterOptions *o, int32_t n);
        void (*options_set_error_reporter)(TfLiteInterpreterOptions *o,
                                           void (*reporter)(void *user_data, const char *format, va_list args),
                                           void *user_data);
        TfLiteInterpreter *(*interpreter_create)(const TfLiteModel *m, const TfLiteInterpreterOptions *o);
        void (*interpreter_delete)(TfLiteInterpreter *it);
        int32_t (*input_count)(const TfLiteInterpreter *it);
        TfLiteTensor *(*input_tensor)(const TfLiteInterpreter *it, int32_t i);
        int32_t (*output_count)(const TfLiteInterpreter *it);
        const TfLiteTensor *(*output_tensor)(const TfLiteInterpreter *it, int32_t i);
        int (*allocate_tensors)(TfLiteInterpreter *it);
        int (*invoke)(TfLiteInterpreter *it);
        size_t (*tensor_byte_size)(const TfLiteTensor *t);
        void *(*tensor_data)(const TfLiteTensor *t);
        int (*tensor_copy_from_buffer)(TfLiteTensor *t, const void *data, size_t size);
        /* Optional: TensorFlow Lite's XNNPACK delegate. */
        void *(*xnn_create)(const void *options);
        void (*xnn_delete)(void *delegate);
        void (*options_add_delegate)(TfLiteInterpreterOptions *o, void *delegate);
        bool use_xnnpack;
        uint32_t xnnpack_flags;
        /* The error log of the current run. */
        char log[512];
        size_t log_len;
};

int dt_native_open(const char *path, dt_native_t **ret, char *err, size_t err_size) {
        dt_native_t *n = calloc(1, sizeof(*n));
        if (!n)
                return -ENOMEM;
        /* RTLD_LOCAL: the library's bundled XNNPACK must not interpose on ours. */
        n->dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        if (!n->dl) {
                snprintf(err, err_size, "%s", dlerror());
                free(n);
                return -ENOENT;
        }
        struct {
                const char *name;
                void **slot;
        } syms[] = {
#define SYM(field, name) { name, (void **) &n->field }
                SYM(version, "TfLiteVersion"),
                SYM(model_create, "TfLiteModelCreate"),
                SYM(model_delete, "TfLiteModelDelete"),
                SYM(options_create, "TfLiteInterpreterOptionsCreate"),
                SYM(options_delete, "TfLiteInterpreterOptionsDelete"),
                SYM(options_set_num_threads, "TfLiteInterpreterOptionsSetNumThreads"),
                SYM(options_set_error_reporter, "TfLiteInterpreterOptionsSetErrorReporter"),
                SYM(interpreter_create, "TfLiteInterpreterCreate"),
                SYM(interpreter_delete, "TfLiteInterpreterDelete"),
                SYM(input_count, "TfLiteInterpreterGetInputTensorCount"),
                SYM(input_tensor, "TfLiteInterpreterGetInputTensor"),
                SYM(output_count, "TfLiteInterpreterGetOutputTensorCount"),
                SYM(output_tensor, "TfLiteInterpreterGetOutputTensor"),
                SYM(allocate_tensors, "TfLiteInterpreterAllocateTensors"),
                SYM(invoke, "TfLiteInterpreterInvoke"),
                SYM(tensor_byte_size, "TfLiteTensorByteSize"),
                SYM(tensor_data, "TfLiteTensorData"),
                SYM(tensor_copy_from_buffer, "TfLiteTensorCopyFromBuffer"),
#undef SYM
        };
        for (size_t i = 0; i < sizeof(syms) / sizeof(syms[0]); i++) {
                *syms[i].slot = dlsym(n->dl, syms[i].name);
                if (!*syms[i].slot) {
                        snprintf(err, err_size, "%s: missing symbol %s", path, syms[i].name);
                        dlclose(n->dl);
                        free(n);
                        return -ENOSYS;
                }
        }
        n->xnn_create = (void *(*)(const void *)) dlsym(n->dl, "TfLiteXNNPackDelegateCreate");
        n->xnn_delete = (void (*)(void *)) dlsym(n->dl, "TfLiteXNNPackDelegateDelete");
        n->options_add_delegate = (void (*)(TfLiteInterpreterOptions *, void *)) dlsym(
                n->dl, "TfLiteInterpreterOptionsAddDelegate");
        *ret = n;
        return 0;
}

int dt_native_use_xnnpack(dt_native_t *n, bool on) {
        if (on && (!n->xnn_create || !n->xnn_delete || !n->options_add_delegate))
                return -ENOSYS;
        n->use_xnnpack = on;
        return 0;
}

void dt_native_xnnpack_flags(dt_native_t *n, uint32_t flags) {
        n->xnnpack_flags = flags;
}

void dt_native_close(dt_native_t *n) {
        if (!n)
                return;
        dlclose(n->dl);
        free(n);
}

const char *dt_native_version(const dt_native_t *n) {
        return n->version();
}

static void reporter(void *user_data, const char *format, va_list args) {
        dt_native_t *n = user_data;
        if (n->log_len + 2 >= sizeof(n->log))
                return;
        if (n->log_len)
                n->log[n->log_len++] = ' ';
        int w = vsnprintf(n->log + n->log_len, sizeof(n->log) - n->log_len, format, args);
        if (w > 0)
                n->log_len += (size_t) w;
        if (n->log_len >= sizeof(n->log))
                n->log_len = sizeof(n->log) - 1;
}

int dt_native_run(dt_native_t *n, const void *model, size_t size, void *const *inputs, const size_t *in_sizes,
                  int n_in, void **outs, size_t *out_sizes, int max_out, char *err, size_t err_size) {
        int r = -EINVAL;
        const char *stage = "model";
        n->log[0] = '\0';
        n->log_len = 0;
        TfLiteInterpreter *it = NULL;
        TfLiteInterpreterOptions *o = NULL;
        void *delegate = NULL;
        TfLiteModel *m = n->model_create(model, size);
        if (!m)
                goto out;
        o = n->options_create();
        if (!o) {
                r = -ENOMEM;
                goto out;
        }
        n->options_set_num_threads(o, 1);
        n->options_set_error_reporter(o, reporter, n);
        if (n->use_xnnpack) {
                /* TfLiteXNNPackDelegateOptions of 2.9: num_threads, flags (0:
                 * float ops only; 1 QS8, 2 QU8), weights cache; zero padding
                 * beyond. */
                struct {
                        int32_t num_threads;
                        uint32_t flags;
                        void *weights_cache;
                        uint8_t reserved[64];
                } xo;
                memset(&xo, 0, sizeof(xo));
                xo.num_threads = 1;
                xo.flags = n->xnnpack_flags;
                stage = "XNNPACK delegate";
                delegate = n->xnn_create(&xo);
                if (!delegate)
                        goto out;
                n->options_add_delegate(o, delegate);
        }
        stage = "create";
        it = n->interpreter_create(m, o);
        if (!it)
                goto out;
        stage = "allocate";
        if (n->allocate_tensors(it) != 0)
                goto out;
        stage = "inputs";
        if (n->input_count(it) != n_in)
                goto out;
        for (int i = 0; i < n_in; i++) {
                TfLiteTensor *t = n->input_tensor(it, i);
                if (!t || n->tensor_byte_size(t) != in_sizes[i] ||
                    (in_sizes[i] && n->tensor_copy_from_buffer(t, inputs[i], in_sizes[i]) != 0))
                        goto out;
        }
        stage = "invoke";
        if (n->invoke(it) != 0)
                goto out;
        stage = "outputs";
        int n_out = n->output_count(it);
        if (n_out > max_out)
                goto out;
        for (int i = 0; i < n_out; i++) {
                const TfLiteTensor *t = n->output_tensor(it, i);
                size_t bytes = n->tensor_byte_size(t);
                outs[i] = malloc(bytes ? bytes : 1);
                if (!outs[i]) {
                        for (int k = 0; k < i; k++)
                                free(outs[k]), outs[k] = NULL;
                        r = -ENOMEM;
                        goto out;
                }
                if (bytes)
                        memcpy(outs[i], n->tensor_data(t), bytes);
                out_sizes[i] = bytes;
        }
        r = n_out;
out:
        if (r == -EINVAL)
                snprintf(err, err_size, "tflite %s failed: %s", stage, n->log);
        if (it)
                n->interpreter_delete(it);
        if (o)
                n->options_delete(o);
        if (m)
                n->model_delete(m);
        if (delegate)
                n->xnn_delete(delegate);
        return r;
}
