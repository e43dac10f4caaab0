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
 * The kernel API (TfLiteRegistration, TfLiteContext, TfLiteNode) has 2.9's
 * layouts too: the kernels an application registers for custom ops run in
 * its process with them (docs/tflite-c.md, "Application kernels").
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
struct TfLiteRegistration;
typedef struct TfLiteContext TfLiteContext;
typedef struct TfLiteNode TfLiteNode;

/* An absent optional input in a node's inputs. */
#define kTfLiteOptionalTensor (-1)

/* Contexts a kernel may share with others (Eigen, gemmlowp, ...); acceld
 * keeps none: GetExternalContext gives NULL. */
typedef enum TfLiteExternalContextType {
        kTfLiteEigenContext = 0,
        kTfLiteGemmLowpContext = 1,
        kTfLiteEdgeTpuContext = 2,
        kTfLiteCpuBackendContext = 3,
        kTfLiteMaxExternalContexts = 4,
} TfLiteExternalContextType;

typedef struct TfLiteExternalContext {
        TfLiteExternalContextType type;
        TfLiteStatus (*Refresh)(struct TfLiteContext *context);
} TfLiteExternalContext;

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

/* A node of the graph as a kernel sees it (2.9's layout, 80 bytes on
 * LP64). Index arrays are the interpreter's; custom_initial_data is the
 * op's custom options from the model, byte for byte. */
typedef struct TfLiteNode {
        TfLiteIntArray *inputs;
        TfLiteIntArray *outputs;
        TfLiteIntArray *intermediates;
        TfLiteIntArray *temporaries;
        void *user_data;                /* what the registration's init returned */
        void *builtin_data;             /* NULL for custom ops */
        const void *custom_initial_data;
        int custom_initial_data_size;
        struct TfLiteDelegate *delegate;
        bool might_have_side_effect;
} TfLiteNode;

/* A tensor reduced to what evaluation needs (GetEvalTensor). */
typedef struct TfLiteEvalTensor {
        TfLitePtrUnion data;
        TfLiteIntArray *dims;
        TfLiteType type;
} TfLiteEvalTensor;

/* What a delegate partition covers (PreviewDelegatePartitioning). */
typedef struct TfLiteDelegateParams {
        struct TfLiteDelegate *delegate;
        TfLiteIntArray *nodes_to_replace;
        TfLiteIntArray *input_tensors;
        TfLiteIntArray *output_tensors;
} TfLiteDelegateParams;

/* The interpreter as a kernel sees it (2.9's layout, 184 bytes on LP64).
 * acceld fills every function: the ones delegates use
 * (ReplaceNodeSubsetsWithDelegateKernels, PreviewDelegatePartitioning,
 * AddTensors) report that acceld does not offer them and fail. */
typedef struct TfLiteContext {
        size_t tensors_size;
        TfLiteStatus (*GetExecutionPlan)(struct TfLiteContext *context, TfLiteIntArray **execution_plan);
        TfLiteTensor *tensors;
        void *impl_;
        /* Takes ownership of new_size. */
        TfLiteStatus (*ResizeTensor)(struct TfLiteContext *context, TfLiteTensor *tensor,
                                     TfLiteIntArray *new_size);
        void (*ReportError)(struct TfLiteContext *context, const char *msg, ...);
        TfLiteStatus (*AddTensors)(struct TfLiteContext *context, int tensors_to_add, int *first_new_tensor_index);
        TfLiteStatus (*GetNodeAndRegistration)(struct TfLiteContext *context, int node_index, TfLiteNode **node,
                                               struct TfLiteRegistration **registration);
        TfLiteStatus (*ReplaceNodeSubsetsWithDelegateKernels)(struct TfLiteContext *context,
                                                              struct TfLiteRegistration registration,
                                                              const TfLiteIntArray *nodes_to_replace,
                                                              struct TfLiteDelegate *delegate);
        int recommended_num_threads;
        TfLiteExternalContext *(*GetExternalContext)(struct TfLiteContext *context, TfLiteExternalContextType type);
        void (*SetExternalContext)(struct TfLiteContext *context, TfLiteExternalContextType type,
                                   TfLiteExternalContext *external);
        bool allow_fp32_relax_to_fp16;
        void *profiler;
        /* Memory that lives as long as the interpreter. */
        void *(*AllocatePersistentBuffer)(struct TfLiteContext *context, size_t bytes);
        TfLiteStatus (*AllocateBufferForEval)(struct TfLiteContext *context, size_t bytes, void **ptr);
        /* Scratch: requested in prepare, fetched in invoke. */
        TfLiteStatus (*RequestScratchBufferInArena)(struct TfLiteContext *context, size_t bytes, int *buffer_idx);
        void *(*GetScratchBuffer)(struct TfLiteContext *context, int buffer_idx);
        /* Like ResizeTensor, from a plain array (not taken). */
        TfLiteStatus (*ResizeTensorExplicit)(struct TfLiteContext *context, TfLiteTensor *tensor, int dims,
                                             const int *shape);
        TfLiteStatus (*PreviewDelegatePartitioning)(struct TfLiteContext *context,
                                                    const TfLiteIntArray *nodes_to_replace,
                                                    TfLiteDelegateParams **partition_params_array,
                                                    int *num_partitions);
        TfLiteTensor *(*GetTensor)(const struct TfLiteContext *context, int tensor_idx);
        TfLiteEvalTensor *(*GetEvalTensor)(const struct TfLiteContext *context, int tensor_idx);
        /* The model's metadata buffer called `name` (valid as long as the
         * interpreter); kTfLiteError when there is none. */
        TfLiteStatus (*GetModelMetadata)(const struct TfLiteContext *context, const char *name, const char **ptr,
                                         size_t *bytes);
} TfLiteContext;

/* A kernel registration (TensorFlow Lite 2.9's layout, 64 bytes on LP64).
 * Custom ops registered by the application run with it in the
 * application's process; builtin ones are acceld's (docs/tflite-c.md). */
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
