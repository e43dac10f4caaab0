/* SPDX-License-Identifier: Apache-2.0 */
/*
 * acceld's TensorFlow Lite C API, the experimental part of 2.9's
 * libtensorflowlite_c.so: op registrations, the NNAPI and delegate-fallback
 * switches, delegates applied after creation, tensor indices.
 */
#ifndef TENSORFLOW_LITE_C_C_API_EXPERIMENTAL_H_
#define TENSORFLOW_LITE_C_C_API_EXPERIMENTAL_H_

#include <stdbool.h>

#include "tensorflow/lite/builtin_ops.h"
#include "tensorflow/lite/c/c_api.h"
#include "tensorflow/lite/c/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Zero every variable (state) tensor, as on a fresh interpreter. */
TFL_CAPI_EXPORT extern TfLiteStatus TfLiteInterpreterResetVariableTensors(TfLiteInterpreter *interpreter);

/* Kernels the application provides (the registration is copied, its
 * functions must stay valid). acceld runs the model's builtin ops itself;
 * a model whose custom op only the application provides is refused by
 * TfLiteInterpreterCreate() with kTfLiteUnresolvedOps' text (see
 * docs/tflite-c.md). */
TFL_CAPI_EXPORT void TfLiteInterpreterOptionsAddBuiltinOp(TfLiteInterpreterOptions *options,
                                                          TfLiteBuiltinOperator op,
                                                          const TfLiteRegistration *registration,
                                                          int min_version, int max_version);
TFL_CAPI_EXPORT void TfLiteInterpreterOptionsAddCustomOp(TfLiteInterpreterOptions *options, const char *name,
                                                         const TfLiteRegistration *registration,
                                                         int min_version, int max_version);
TFL_CAPI_EXPORT void TfLiteInterpreterOptionsSetOpResolver(
        TfLiteInterpreterOptions *options,
        const TfLiteRegistration *(*find_builtin_op)(void *user_data, TfLiteBuiltinOperator op, int version),
        const TfLiteRegistration *(*find_custom_op)(void *user_data, const char *custom_op, int version),
        void *op_resolver_user_data);

/* Like TfLiteInterpreterCreate(); TensorFlow Lite leaves out its own
 * builtin kernels here, acceld always has its own. */
TFL_CAPI_EXPORT extern TfLiteInterpreter *TfLiteInterpreterCreateWithSelectedOps(
        const TfLiteModel *model, const TfLiteInterpreterOptions *options);

/* Ask for NNAPI (served: acceld's "NNAPI" delegate when it has one). */
TFL_CAPI_EXPORT extern void TfLiteInterpreterOptionsSetUseNNAPI(TfLiteInterpreterOptions *options, bool enable);
/* Let nodes a delegate cannot run fall back to the CPU kernels instead of
 * failing (acceld's FallbackSettings). */
TFL_CAPI_EXPORT extern void TfLiteInterpreterOptionsSetEnableDelegateFallback(TfLiteInterpreterOptions *options,
                                                                              bool enable);

/* Accepted for compatibility; acceld has no buffer handles. */
TFL_CAPI_EXPORT extern void TfLiteSetAllowBufferHandleOutput(const TfLiteInterpreter *interpreter,
                                                             bool allow_buffer_handle_output);

/* Apply a delegate after creation: kTfLiteOk for acceld's XNNPACK delegate
 * (the interpreter is prepared again with it, tensors keep their shapes),
 * kTfLiteDelegateError for any other, reported. */
TFL_CAPI_EXPORT extern TfLiteStatus TfLiteInterpreterModifyGraphWithDelegate(const TfLiteInterpreter *interpreter,
                                                                             TfLiteDelegate *delegate);

/* The model's tensor index of input/output i; -1 out of range. */
TFL_CAPI_EXPORT extern int32_t TfLiteInterpreterGetInputTensorIndex(const TfLiteInterpreter *interpreter,
                                                                    int32_t input_index);
TFL_CAPI_EXPORT extern int32_t TfLiteInterpreterGetOutputTensorIndex(const TfLiteInterpreter *interpreter,
                                                                     int32_t output_index);

#ifdef __cplusplus
}
#endif

#endif
