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

static void custom_op_add(TfLiteInterpreterOptions *o, const char *name, const TfLiteRegistration *reg) {
        tfl_custom_op_t *v = realloc(o->custom_ops, sizeof(*v) * (o->n_custom_ops + 1));
        if (!v)
                return;
        o->custom_ops = v;
        char *copy = strdup(name);
        if (!copy)
                return;
        v[o->n_custom_ops++] = (tfl_custom_op_t) { .name = copy, .reg = *reg };
}

void TfLiteInterpreterOptionsAddBuiltinOp(TfLiteInterpreterOptions *options, TfLiteBuiltinOperator op,
                                          const TfLiteRegistration *registration, int min_version, int max_version) {
        /* acceld's own kernels run every builtin op; the application's
         * registration is not needed and not called. */
        (void) options;
        (void) op;
        (void) registration;
}

void TfLiteInterpreterOptionsAddCustomOp(TfLiteInterpreterOptions *options, const char *name,
                                         const TfLiteRegistration *registration, int min_version, int max_version) {
        if (options && name && registration)
                custom_op_add(options, name, registration);
}

void TfLiteInterpreterOptionsSetOpResolver(
        TfLiteInterpreterOptions *options,
        const TfLiteRegistration *(*find_builtin_op)(void *user_data, TfLiteBuiltinOperator op, int version),
        const TfLiteRegistration *(*find_custom_op)(void *user_data, const char *custom_op, int version),
        void *op_resolver_user_data) {
        if (options)
                options->has_op_resolver = find_custom_op != NULL;
}
