/* SPDX-License-Identifier: Apache-2.0 */
/* TfLiteInterpreterOptions: plain settings, copied by the interpreter. */
#include <stdlib.h>
#include <string.h>

#include "tflite-internal.h"

TfLiteInterpreterOptions *TfLiteInterpreterOptionsCreate(void) {
        TfLiteInterpreterOptions *o = calloc(1, sizeof(*o));
        if (o)
                o->num_threads = -1;
        return o;
}

void TfLiteInterpreterOptionsDelete(TfLiteInterpreterOptions *options) {
        if (!options)
                return;
        for (size_t i = 0; i < options->n_custom_ops; i++)
                free(options->custom_ops[i].name);
        free(options->custom_ops);
        free(options->builtin_ops);
        free(options->delegates);
        free(options);
}

void TfLiteInterpreterOptionsSetNumThreads(TfLiteInterpreterOptions *options, int32_t num_threads) {
        if (options)
                options->num_threads = num_threads;
}

void TfLiteInterpreterOptionsAddDelegate(TfLiteInterpreterOptions *options, TfLiteDelegate *delegate) {
        if (!options || !delegate)
                return;
        TfLiteDelegate **v = realloc(options->delegates, sizeof(*v) * (options->n_delegates + 1));
        if (!v)
                return;
        v[options->n_delegates++] = delegate;
        options->delegates = v;
}

void TfLiteInterpreterOptionsSetErrorReporter(TfLiteInterpreterOptions *options,
                                              void (*reporter)(void *user_data, const char *format, va_list args),
                                              void *user_data) {
        if (!options)
                return;
        options->reporter = reporter;
        options->reporter_data = user_data;
}

void TfLiteInterpreterOptionsSetUseNNAPI(TfLiteInterpreterOptions *options, bool enable) {
        if (options)
                options->use_nnapi = enable;
}

void TfLiteInterpreterOptionsSetEnableDelegateFallback(TfLiteInterpreterOptions *options, bool enable) {
        if (options)
                options->delegate_fallback = enable;
}

static void custom_op_add(TfLiteInterpreterOptions *o, const char *name, const TfLiteRegistration *reg,
                          int min_version, int max_version) {
        tfl_custom_op_t *v = realloc(o->custom_ops, sizeof(*v) * (o->n_custom_ops + 1));
        if (!v)
                return;
        o->custom_ops = v;
        char *copy = strdup(name);
        if (!copy)
                return;
        /* The registration is copied, as TensorFlow Lite does; the
         * functions it points to must stay loaded. */
        v[o->n_custom_ops++] = (tfl_custom_op_t) {
                .name = copy,
                .reg = *reg,
                .min_version = min_version,
                .max_version = max_version,
        };
}

void TfLiteInterpreterOptionsAddBuiltinOp(TfLiteInterpreterOptions *options, TfLiteBuiltinOperator op,
                                          const TfLiteRegistration *registration, int min_version, int max_version) {
        /* acceld's own kernels run every builtin op: the application's
         * registration is not called (its builtin_data would be TensorFlow
         * Lite's parsed options). Which ops it names matters to
         * CreateWithSelectedOps. */
        if (!options || !registration)
                return;
        tfl_builtin_op_t *v = realloc(options->builtin_ops, sizeof(*v) * (options->n_builtin_ops + 1));
        if (!v)
                return;
        options->builtin_ops = v;
        v[options->n_builtin_ops++] = (tfl_builtin_op_t) {
                .op = op,
                .min_version = min_version,
                .max_version = max_version,
        };
}

void TfLiteInterpreterOptionsAddCustomOp(TfLiteInterpreterOptions *options, const char *name,
                                         const TfLiteRegistration *registration, int min_version, int max_version) {
        if (options && name && registration)
                custom_op_add(options, name, registration, min_version, max_version);
}

void TfLiteInterpreterOptionsSetOpResolver(
        TfLiteInterpreterOptions *options,
        const TfLiteRegistration *(*find_builtin_op)(void *user_data, TfLiteBuiltinOperator op, int version),
        const TfLiteRegistration *(*find_custom_op)(void *user_data, const char *custom_op, int version),
        void *op_resolver_user_data) {
        if (!options)
                return;
        options->find_builtin_op = find_builtin_op;
        options->find_custom_op = find_custom_op;
        options->op_resolver_data = op_resolver_user_data;
}
