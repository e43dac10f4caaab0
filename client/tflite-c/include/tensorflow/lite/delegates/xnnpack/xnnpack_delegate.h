/* SPDX-License-Identifier: Apache-2.0 */
/*
 * acceld's XNNPACK "delegate": a TfLiteDelegate that carries XNNPACK
 * settings (threads, flags) to acceld's XNNPACK driver, served or local.
 */
#ifndef TENSORFLOW_LITE_DELEGATES_XNNPACK_XNNPACK_DELEGATE_H_
#define TENSORFLOW_LITE_DELEGATES_XNNPACK_XNNPACK_DELEGATE_H_

#include "tensorflow/lite/c/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Signed/unsigned 8-bit quantized operators, and float16 inference. */
#define TFLITE_XNNPACK_DELEGATE_FLAG_QS8 0x00000001
#define TFLITE_XNNPACK_DELEGATE_FLAG_QU8 0x00000002
#define TFLITE_XNNPACK_DELEGATE_FLAG_FORCE_FP16 0x00000004

typedef struct {
        int32_t num_threads;            /* <= 0: one thread */
        uint32_t flags;                 /* TFLITE_XNNPACK_DELEGATE_FLAG_* */
} TfLiteXNNPackDelegateOptions;

/* All zero. */
TFL_CAPI_EXPORT TfLiteXNNPackDelegateOptions TfLiteXNNPackDelegateOptionsDefault(void);
/* A delegate owned by the caller (release with TfLiteXNNPackDelegateDelete
 * after the interpreters using it); options NULL: the defaults. NULL when
 * out of memory. */
TFL_CAPI_EXPORT TfLiteDelegate *TfLiteXNNPackDelegateCreate(const TfLiteXNNPackDelegateOptions *options);
/* Always NULL: acceld's thread pools are its own. */
TFL_CAPI_EXPORT void *TfLiteXNNPackDelegateGetThreadPool(TfLiteDelegate *delegate);
/* NULL is a no-op. */
TFL_CAPI_EXPORT void TfLiteXNNPackDelegateDelete(TfLiteDelegate *delegate);

#ifdef __cplusplus
}
#endif

#endif
