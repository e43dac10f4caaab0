/* SPDX-License-Identifier: Apache-2.0 */
/*
 * acceld's TensorFlow Lite C API: the types every other header uses.
 *
 * Written for acceld from the facts of TensorFlow Lite 2.9's C API (names,
 * numbers and layouts), so that a program built against TensorFlow Lite's
 * headers runs on libtensorflowlite_c.so from client/tflite-c/ unchanged,
 * and a program built against these headers runs on TensorFlow Lite's.
 * docs/tflite-c.md says what is served by acceld and what differs.
 */
#ifndef TENSORFLOW_LITE_C_C_API_TYPES_H_
#define TENSORFLOW_LITE_C_C_API_TYPES_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef TFL_CAPI_EXPORT
#define TFL_CAPI_EXPORT __attribute__((visibility("default")))
#endif

/* Every call that can fail returns one of these; the numbers are
 * TensorFlow Lite's. */
typedef enum TfLiteStatus {
        kTfLiteOk = 0,
        kTfLiteError = 1,                       /* generic failure (runtime or the served call) */
        kTfLiteDelegateError = 2,               /* a delegate was refused or failed */
        kTfLiteApplicationError = 3,            /* the application misused the API */
        kTfLiteDelegateDataNotFound = 4,
        kTfLiteDelegateDataWriteError = 5,
        kTfLiteDelegateDataReadError = 6,
        kTfLiteUnresolvedOps = 7,               /* the model uses an op nobody provides */
} TfLiteStatus;

/* Element types. Note: these are not the .tflite schema's TensorType
 * numbers (FLOAT32 is 0 there, 1 here). */
typedef enum {
        kTfLiteNoType = 0,
        kTfLiteFloat32 = 1,
        kTfLiteInt32 = 2,
        kTfLiteUInt8 = 3,
        kTfLiteInt64 = 4,
        kTfLiteString = 5,
        kTfLiteBool = 6,
        kTfLiteInt16 = 7,
        kTfLiteComplex64 = 8,
        kTfLiteInt8 = 9,
        kTfLiteFloat16 = 10,
        kTfLiteFloat64 = 11,
        kTfLiteComplex128 = 12,
        kTfLiteUInt64 = 13,
        kTfLiteResource = 14,
        kTfLiteVariant = 15,
        kTfLiteUInt32 = 16,
} TfLiteType;

/* Per-tensor affine quantization: real = scale * (q - zero_point); scale 0
 * when the tensor is not quantized. */
typedef struct TfLiteQuantizationParams {
        float scale;
        int32_t zero_point;
} TfLiteQuantizationParams;

#ifdef __cplusplus
}
#endif

#endif
