/* SPDX-License-Identifier: Apache-2.0 */
/*
 * acceld's TensorFlow Lite C API (ABI of TensorFlow Lite 2.9's
 * libtensorflowlite_c.so, symbol version VERS_1.0).
 *
 *   TfLiteModel *m = TfLiteModelCreateFromFile("m.tflite");
 *   TfLiteInterpreterOptions *o = TfLiteInterpreterOptionsCreate();
 *   TfLiteInterpreterOptionsSetNumThreads(o, 2);
 *   TfLiteInterpreter *it = TfLiteInterpreterCreate(m, o);
 *   TfLiteInterpreterAllocateTensors(it);
 *   TfLiteTensorCopyFromBuffer(TfLiteInterpreterGetInputTensor(it, 0), in, n);
 *   TfLiteInterpreterInvoke(it);
 *   TfLiteTensorCopyToBuffer(TfLiteInterpreterGetOutputTensor(it, 0), out, k);
 *   TfLiteInterpreterDelete(it); TfLiteInterpreterOptionsDelete(o); TfLiteModelDelete(m);
 *
 * Where it runs: on acceld when a daemon answers ($ACCELD_SOCKET, else
 * libaccel's default socket), in the calling process on acceld's runtime
 * when none does. $ACCEL_TFLITE_MODE=served or =local forces one
 * (served then fails when no daemon answers). With served interpreters the
 * input and output tensors' data point into the memory shared with acceld:
 * writing an input through TfLiteTensorData() is zero-copy.
 *
 * Errors: calls return a TfLiteStatus or NULL; the reason goes to the error
 * reporter of the options (stderr without one). Objects are used by one
 * thread at a time; different interpreters are independent.
 */
#ifndef TENSORFLOW_LITE_C_C_API_H_
#define TENSORFLOW_LITE_C_C_API_H_

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "tensorflow/lite/c/c_api_types.h"
#include "tensorflow/lite/c/common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct TfLiteModel TfLiteModel;
typedef struct TfLiteInterpreterOptions TfLiteInterpreterOptions;
typedef struct TfLiteInterpreter TfLiteInterpreter;

/* "2.9.0": the TensorFlow Lite version whose API this library provides. */
TFL_CAPI_EXPORT extern const char *TfLiteVersion(void);

/* A model read from `model_data` (not copied: the caller keeps the buffer
 * alive and unchanged until TfLiteModelDelete()) or from a file. NULL when
 * the model is malformed or unreadable (the reason goes to stderr). */
TFL_CAPI_EXPORT extern TfLiteModel *TfLiteModelCreate(const void *model_data, size_t model_size);
TFL_CAPI_EXPORT extern TfLiteModel *TfLiteModelCreateFromFile(const char *model_path);
/* NULL is a no-op. Interpreters made from the model keep it alive. */
TFL_CAPI_EXPORT extern void TfLiteModelDelete(TfLiteModel *model);

/* Options for TfLiteInterpreterCreate(); copied by it, so they may be
 * deleted afterwards. NULL when out of memory. */
TFL_CAPI_EXPORT extern TfLiteInterpreterOptions *TfLiteInterpreterOptionsCreate(void);
TFL_CAPI_EXPORT extern void TfLiteInterpreterOptionsDelete(TfLiteInterpreterOptions *options);
/* Threads for the model; -1 (default) lets the runtime choose. */
TFL_CAPI_EXPORT extern void TfLiteInterpreterOptionsSetNumThreads(TfLiteInterpreterOptions *options,
                                                                  int32_t num_threads);
/* Borrowed; must outlive the interpreters. Only delegates from
 * TfLiteXNNPackDelegateCreate() are accepted (they become XNNPACK
 * settings); TfLiteInterpreterCreate() refuses any other. */
TFL_CAPI_EXPORT extern void TfLiteInterpreterOptionsAddDelegate(TfLiteInterpreterOptions *options,
                                                                TfLiteDelegate *delegate);
/* Where error texts go (printf-style format and its arguments). */
TFL_CAPI_EXPORT extern void TfLiteInterpreterOptionsSetErrorReporter(
        TfLiteInterpreterOptions *options, void (*reporter)(void *user_data, const char *format, va_list args),
        void *user_data);

/* An interpreter for `model` (kept alive by it). optional_options may be
 * NULL. NULL on failure (reported): the model is refused, a delegate is
 * not acceld's, or no daemon answers in served mode. */
TFL_CAPI_EXPORT extern TfLiteInterpreter *TfLiteInterpreterCreate(const TfLiteModel *model,
                                                                  const TfLiteInterpreterOptions *optional_options);
/* NULL is a no-op. Its tensors become invalid. */
TFL_CAPI_EXPORT extern void TfLiteInterpreterDelete(TfLiteInterpreter *interpreter);

TFL_CAPI_EXPORT extern int32_t TfLiteInterpreterGetInputTensorCount(const TfLiteInterpreter *interpreter);
/* Owned by the interpreter; NULL out of range. */
TFL_CAPI_EXPORT extern TfLiteTensor *TfLiteInterpreterGetInputTensor(const TfLiteInterpreter *interpreter,
                                                                     int32_t input_index);
/* New shape for an input; call TfLiteInterpreterAllocateTensors() before
 * the next invoke. */
TFL_CAPI_EXPORT extern TfLiteStatus TfLiteInterpreterResizeInputTensor(TfLiteInterpreter *interpreter,
                                                                       int32_t input_index, const int *input_dims,
                                                                       int32_t input_dims_size);
/* Plan and back every tensor (the shared-memory region when served). */
TFL_CAPI_EXPORT extern TfLiteStatus TfLiteInterpreterAllocateTensors(TfLiteInterpreter *interpreter);
/* Run once; outputs (their data, dims and bytes) are up to date after. */
TFL_CAPI_EXPORT extern TfLiteStatus TfLiteInterpreterInvoke(TfLiteInterpreter *interpreter);
TFL_CAPI_EXPORT extern int32_t TfLiteInterpreterGetOutputTensorCount(const TfLiteInterpreter *interpreter);
TFL_CAPI_EXPORT extern const TfLiteTensor *TfLiteInterpreterGetOutputTensor(const TfLiteInterpreter *interpreter,
                                                                            int32_t output_index);

/* Tensor accessors; they read the TfLiteTensor fields. */
TFL_CAPI_EXPORT extern TfLiteType TfLiteTensorType(const TfLiteTensor *tensor);
TFL_CAPI_EXPORT extern int32_t TfLiteTensorNumDims(const TfLiteTensor *tensor);
TFL_CAPI_EXPORT extern int32_t TfLiteTensorDim(const TfLiteTensor *tensor, int32_t dim_index);
TFL_CAPI_EXPORT extern size_t TfLiteTensorByteSize(const TfLiteTensor *tensor);
/* NULL before allocation. */
TFL_CAPI_EXPORT extern void *TfLiteTensorData(const TfLiteTensor *tensor);
TFL_CAPI_EXPORT extern const char *TfLiteTensorName(const TfLiteTensor *tensor);
TFL_CAPI_EXPORT extern TfLiteQuantizationParams TfLiteTensorQuantizationParams(const TfLiteTensor *tensor);
/* Copy in / out; the size must equal the tensor's byte size, else
 * kTfLiteError. */
TFL_CAPI_EXPORT extern TfLiteStatus TfLiteTensorCopyFromBuffer(TfLiteTensor *tensor, const void *input_data,
                                                               size_t input_data_size);
TFL_CAPI_EXPORT extern TfLiteStatus TfLiteTensorCopyToBuffer(const TfLiteTensor *output_tensor, void *output_data,
                                                             size_t output_data_size);

#ifdef __cplusplus
}
#endif

#endif
