/* SPDX-License-Identifier: Apache-2.0 */
/*
 * acceld's TensorFlow Lite C API: the structs that cross the library
 * boundary (arrays, tensors, quantization, delegates) with TensorFlow Lite
 * 2.9's layouts, and their helpers.
 *
 * The tensors an interpreter hands out are real TfLiteTensor structs: a
 * program that reads tensor->dims or tensor->data.f directly works. The
 * interpreter owns them; their data and dims change after
 * TfLiteInterpreterAllocateTensors(), ResizeInputTensor() and, for outputs
 * whose shape is known only when the model runs, after Invoke().
 *
 * TfLiteContext and TfLiteNode (the kernel API) are declared but not
 * defined: acceld does not run kernels an application supplies (see
 * docs/tflite-c.md).
 */
#ifndef TENSORFLOW_LITE_C_COMMON_H_
#define TENSORFLOW_LITE_C_COMMON_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tensorflow/lite/c/c_api_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A counted array of ints (shapes, tensor indices); allocate with
 * TfLiteIntArrayCreate(), release with TfLiteIntArrayFree(). */
typedef struct TfLiteIntArray {
        int size;
        int data[];
} TfLiteIntArray;

/* Bytes of an int array of `size` elements. */
TFL_CAPI_EXPORT size_t TfLiteIntArrayGetSizeInBytes(int size);
/* A new array of `size` elements (contents undefined); NULL when out of
 * memory. The caller owns it. */
TFL_CAPI_EXPORT TfLiteIntArray *TfLiteIntArrayCreate(int size);
/* 1 when a and b hold the same elements (two NULLs are equal), else 0. */
TFL_CAPI_EXPORT int TfLiteIntArrayEqual(const TfLiteIntArray *a, const TfLiteIntArray *b);
/* 1 when a holds exactly b_size elements equal to b_data. */
TFL_CAPI_EXPORT int TfLiteIntArrayEqualsArray(const TfLiteIntArray *a, int b_size, const int b_data[]);
/* A copy owned by the caller; NULL for NULL. */
TFL_CAPI_EXPORT TfLiteIntArray *TfLiteIntArrayCopy(const TfLiteIntArray *src);
/* NULL is a no-op. */
TFL_CAPI_EXPORT void TfLiteIntArrayFree(TfLiteIntArray *a);

/* The same for floats (quantization scales). */
typedef struct TfLiteFloatArray {
        int size;
        float data[];
} TfLiteFloatArray;

TFL_CAPI_EXPORT int TfLiteFloatArrayGetSizeInBytes(int size);
TFL_CAPI_EXPORT TfLiteFloatArray *TfLiteFloatArrayCreate(int size);
TFL_CAPI_EXPORT void TfLiteFloatArrayFree(TfLiteFloatArray *a);

typedef struct TfLiteComplex64 {
        float re, im;
} TfLiteComplex64;

typedef struct TfLiteComplex128 {
        double re, im;
} TfLiteComplex128;

typedef struct TfLiteFloat16 {
        uint16_t data;
} TfLiteFloat16;

/* "FLOAT32", "INT8", ... (static strings); "Unknown type" otherwise. */
TFL_CAPI_EXPORT const char *TfLiteTypeGetName(TfLiteType type);

typedef enum TfLiteQuantizationType {
        kTfLiteNoQuantization = 0,
        kTfLiteAffineQuantization = 1,          /* params: TfLiteAffineQuantization */
} TfLiteQuantizationType;

typedef struct TfLiteQuantization {
        TfLiteQuantizationType type;
        void *params;
} TfLiteQuantization;

/* Per-tensor (one scale) or per-channel (along quantized_dimension). */
typedef struct TfLiteAffineQuantization {
        TfLiteFloatArray *scale;
        TfLiteIntArray *zero_point;
        int32_t quantized_dimension;
} TfLiteAffineQuantization;

typedef union TfLitePtrUnion {
        int32_t *i32;
        uint32_t *u32;
        int64_t *i64;
        uint64_t *u64;
        float *f;
        TfLiteFloat16 *f16;
        double *f64;
        char *raw;
        const char *raw_const;
        uint8_t *uint8;
        bool *b;
        int16_t *i16;
        TfLiteComplex64 *c64;
        TfLiteComplex128 *c128;
        int8_t *int8;
        void *data;
} TfLitePtrUnion;

/* Who owns a tensor's bytes. kTfLiteDynamic bytes are malloc'ed and are
 * freed by TfLiteTensorFree()/TfLiteTensorDataFree(). */
typedef enum TfLiteAllocationType {
        kTfLiteMemNone = 0,
        kTfLiteMmapRo = 1,
        kTfLiteArenaRw = 2,
        kTfLiteArenaRwPersistent = 3,
        kTfLiteDynamic = 4,
        kTfLitePersistentRo = 5,
        kTfLiteCustom = 6,
} TfLiteAllocationType;

typedef int TfLiteBufferHandle;
enum {
        kTfLiteNullBufferHandle = -1,
};

typedef enum TfLiteDimensionType {
        kTfLiteDimDense = 0,
        kTfLiteDimSparseCSR = 1,
} TfLiteDimensionType;

typedef struct TfLiteDimensionMetadata {
        TfLiteDimensionType format;
        int dense_size;
        TfLiteIntArray *array_segments;
        TfLiteIntArray *array_indices;
} TfLiteDimensionMetadata;

typedef struct TfLiteSparsity {
        TfLiteIntArray *traversal_order;
        TfLiteIntArray *block_map;
        TfLiteDimensionMetadata *dim_metadata;
        int dim_metadata_size;
} TfLiteSparsity;

struct TfLiteDelegate;
struct TfLiteContext;
struct TfLiteNode;
typedef struct TfLiteContext TfLiteContext;
typedef struct TfLiteNode TfLiteNode;

/* A tensor, with TensorFlow Lite 2.9's layout (112 bytes on LP64). */
typedef struct TfLiteTensor {
        TfLiteType type;
        TfLitePtrUnion data;
        TfLiteIntArray *dims;
        TfLiteQuantizationParams params;
        TfLiteAllocationType allocation_type;
        size_t bytes;
        const void *allocation;
        const char *name;
        struct TfLiteDelegate *delegate;
        TfLiteBufferHandle buffer_handle;
        bool data_is_stale;
        bool is_variable;
        TfLiteQuantization quantization;
        TfLiteSparsity *sparsity;
        const TfLiteIntArray *dims_signature;
} TfLiteTensor;

/* Helpers for tensors the caller owns (not the interpreter's). Each
 * accepts NULL. DataFree frees kTfLiteDynamic bytes; QuantizationFree and
 * SparsityFree free affine params / sparsity and reset them; TensorFree
 * does all three and frees dims. */
TFL_CAPI_EXPORT void TfLiteTensorDataFree(TfLiteTensor *t);
TFL_CAPI_EXPORT void TfLiteQuantizationFree(TfLiteQuantization *quantization);
TFL_CAPI_EXPORT void TfLiteSparsityFree(TfLiteSparsity *sparsity);
TFL_CAPI_EXPORT void TfLiteTensorFree(TfLiteTensor *t);
/* Free `tensor` (as TfLiteTensorFree) and set its fields; takes ownership
 * of dims. */
TFL_CAPI_EXPORT void TfLiteTensorReset(TfLiteType type, const char *name, TfLiteIntArray *dims,
                                       TfLiteQuantizationParams quantization, char *buffer, size_t size,
                                       TfLiteAllocationType allocation_type, const void *allocation,
                                       bool is_variable, TfLiteTensor *tensor);
/* Copy src's bytes into dst (same byte size): kTfLiteOk, or kTfLiteError
 * when the sizes differ. NULL src is a no-op. */
TFL_CAPI_EXPORT TfLiteStatus TfLiteTensorCopy(const TfLiteTensor *src, TfLiteTensor *dst);
/* Grow or shrink a kTfLiteDynamic tensor's bytes (others: no-op). */
TFL_CAPI_EXPORT void TfLiteTensorRealloc(size_t num_bytes, TfLiteTensor *tensor);

/* A kernel registration (TensorFlow Lite 2.9's layout). Accepted by the
 * options so that programs link and run; see docs/tflite-c.md for what
 * acceld does with it. */
typedef struct TfLiteRegistration {
        void *(*init)(TfLiteContext *context, const char *buffer, size_t length);
        void (*free)(TfLiteContext *context, void *buffer);
        TfLiteStatus (*prepare)(TfLiteContext *context, TfLiteNode *node);
        TfLiteStatus (*invoke)(TfLiteContext *context, TfLiteNode *node);
        const char *(*profiling_string)(const TfLiteContext *context, const TfLiteNode *node);
        int32_t builtin_code;
        const char *custom_name;
        int version;
} TfLiteRegistration;

typedef enum TfLiteDelegateFlags {
        kTfLiteDelegateFlagsNone = 0,
        kTfLiteDelegateFlagsAllowDynamicTensors = 1,
        kTfLiteDelegateFlagsRequirePropagatedShapes = 2,
} TfLiteDelegateFlags;

/* A delegate (TensorFlow Lite 2.9's layout). acceld accepts only its own,
 * from TfLiteXNNPackDelegateCreate(); any other is refused when the
 * interpreter is created or modified (kTfLiteDelegateError). */
typedef struct TfLiteDelegate {
        void *data_;
        TfLiteStatus (*Prepare)(TfLiteContext *context, struct TfLiteDelegate *delegate);
        TfLiteStatus (*CopyFromBufferHandle)(TfLiteContext *context, struct TfLiteDelegate *delegate,
                                             TfLiteBufferHandle buffer_handle, TfLiteTensor *tensor);
        TfLiteStatus (*CopyToBufferHandle)(TfLiteContext *context, struct TfLiteDelegate *delegate,
                                           TfLiteBufferHandle buffer_handle, TfLiteTensor *tensor);
        void (*FreeBufferHandle)(TfLiteContext *context, struct TfLiteDelegate *delegate,
                                 TfLiteBufferHandle *handle);
        int64_t flags;
} TfLiteDelegate;

/* An empty delegate: every field zero, flags kTfLiteDelegateFlagsNone. */
TFL_CAPI_EXPORT TfLiteDelegate TfLiteDelegateCreate(void);

#ifdef __cplusplus
}
#endif

#endif
