/* SPDX-License-Identifier: Apache-2.0 */
/*
 * TensorFlow Lite's external delegate (a delegate loaded from another
 * library), declared so that programs that use it build against these
 * headers. acceld does not provide these functions (TensorFlow Lite's
 * libtensorflowlite_c.so does not either: they live in the external
 * delegate's own library), and refuses such delegates with
 * kTfLiteDelegateError.
 */
#ifndef TENSORFLOW_LITE_DELEGATES_EXTERNAL_EXTERNAL_DELEGATE_H_
#define TENSORFLOW_LITE_DELEGATES_EXTERNAL_EXTERNAL_DELEGATE_H_

#include "tensorflow/lite/c/common.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TFL_EXTERNAL_DELEGATE_MAX_OPTIONS 256
#ifdef __cplusplus
const int kMaxOptions = TFL_EXTERNAL_DELEGATE_MAX_OPTIONS;
#endif

typedef struct TfLiteExternalDelegateOptions {
        const char *lib_path;
        int count;
        const char *keys[TFL_EXTERNAL_DELEGATE_MAX_OPTIONS];
        const char *values[TFL_EXTERNAL_DELEGATE_MAX_OPTIONS];
        TfLiteStatus (*insert)(struct TfLiteExternalDelegateOptions *options, const char *key, const char *value);
} TfLiteExternalDelegateOptions;

TfLiteExternalDelegateOptions TfLiteExternalDelegateOptionsDefault(const char *lib_path);
TfLiteDelegate *TfLiteExternalDelegateCreate(const TfLiteExternalDelegateOptions *options);
void TfLiteExternalDelegateDelete(TfLiteDelegate *delegate);

#ifdef __cplusplus
}
#endif

#endif
