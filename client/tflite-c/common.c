/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The rest of common.h: type names, the helpers for tensors a caller owns,
 * TfLiteDelegateCreate; and the small shared pieces (reporting, the mode
 * switch, type numbers).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tflite-internal.h"

const char *TfLiteTypeGetName(TfLiteType type) {
        static const char *const names[] = {
                [kTfLiteNoType] = "NOTYPE",       [kTfLiteFloat32] = "FLOAT32",
                [kTfLiteInt32] = "INT32",         [kTfLiteUInt8] = "UINT8",
                [kTfLiteInt64] = "INT64",         [kTfLiteString] = "STRING",
                [kTfLiteBool] = "BOOL",           [kTfLiteInt16] = "INT16",
                [kTfLiteComplex64] = "COMPLEX64", [kTfLiteInt8] = "INT8",
                [kTfLiteFloat16] = "FLOAT16",     [kTfLiteFloat64] = "FLOAT64",
                [kTfLiteComplex128] = "COMPLEX128", [kTfLiteUInt64] = "UINT64",
                [kTfLiteResource] = "RESOURCE",   [kTfLiteVariant] = "VARIANT",
                [kTfLiteUInt32] = "UINT32",
        };
        if ((unsigned) type < sizeof(names) / sizeof(names[0]) && names[type])
                return names[type];
        return "Unknown type";
}

void TfLiteTensorDataFree(TfLiteTensor *t) {
        if (!t)
                return;
        if (t->allocation_type == kTfLiteDynamic)
                free(t->data.raw);
        t->data.raw = NULL;
}

void TfLiteQuantizationFree(TfLiteQuantization *quantization) {
        if (!quantization)
                return;
        if (quantization->type == kTfLiteAffineQuantization) {
                TfLiteAffineQuantization *q = quantization->params;
                if (q) {
                        TfLiteFloatArrayFree(q->scale);
                        TfLiteIntArrayFree(q->zero_point);
                        free(q);
                }
        }
        quantization->params = NULL;
        quantization->type = kTfLiteNoQuantization;
}

void TfLiteSparsityFree(TfLiteSparsity *sparsity) {
        if (!sparsity)
                return;
        TfLiteIntArrayFree(sparsity->traversal_order);
        TfLiteIntArrayFree(sparsity->block_map);
        if (sparsity->dim_metadata) {
                for (int i = 0; i < sparsity->dim_metadata_size; i++) {
                        TfLiteIntArrayFree(sparsity->dim_metadata[i].array_segments);
                        TfLiteIntArrayFree(sparsity->dim_metadata[i].array_indices);
                }
                free(sparsity->dim_metadata);
        }
        free(sparsity);
}

void TfLiteTensorFree(TfLiteTensor *t) {
        if (!t)
                return;
        TfLiteTensorDataFree(t);
        TfLiteIntArrayFree(t->dims);
        t->dims = NULL;
        /* dims_signature is const in the struct but owned by the tensor. */
        TfLiteIntArrayFree((TfLiteIntArray *) t->dims_signature);
        t->dims_signature = NULL;
        TfLiteQuantizationFree(&t->quantization);
        TfLiteSparsityFree(t->sparsity);
        t->sparsity = NULL;
}

void TfLiteTensorReset(TfLiteType type, const char *name, TfLiteIntArray *dims, TfLiteQuantizationParams quantization,
                       char *buffer, size_t size, TfLiteAllocationType allocation_type, const void *allocation,
                       bool is_variable, TfLiteTensor *tensor) {
        if (!tensor)
                return;
        TfLiteTensorFree(tensor);
        tensor->type = type;
        tensor->name = name;
        tensor->dims = dims;
        tensor->params = quantization;
        tensor->data.raw = buffer;
        tensor->bytes = size;
        tensor->buffer_handle = kTfLiteNullBufferHandle;
        tensor->data_is_stale = false;
        tensor->delegate = NULL;
        tensor->allocation_type = allocation_type;
        tensor->allocation = allocation;
        tensor->is_variable = is_variable;
        tensor->quantization.type = kTfLiteNoQuantization;
        tensor->quantization.params = NULL;
}

TfLiteStatus TfLiteTensorCopy(const TfLiteTensor *src, TfLiteTensor *dst) {
        if (!src)
                return kTfLiteOk;
        if (!dst || src->bytes != dst->bytes)
                return kTfLiteError;
        if (src == dst || src->bytes == 0)
                return kTfLiteOk;
        if (!src->data.raw_const || !dst->data.raw)
                return kTfLiteError;
        memmove(dst->data.raw, src->data.raw_const, src->bytes);
        dst->type = src->type;
        dst->params = src->params;
        return kTfLiteOk;
}

void TfLiteTensorRealloc(size_t num_bytes, TfLiteTensor *tensor) {
        if (!tensor || tensor->allocation_type != kTfLiteDynamic)
                return;
        if (num_bytes == 0) {
                free(tensor->data.raw);
                tensor->data.raw = NULL;
                tensor->bytes = 0;
                return;
        }
        char *p = realloc(tensor->data.raw, num_bytes);
        if (!p)
                return;  /* the old bytes stay, as before the call */
        tensor->data.raw = p;
        tensor->bytes = num_bytes;
}

TfLiteDelegate TfLiteDelegateCreate(void) {
        return (TfLiteDelegate) { .flags = kTfLiteDelegateFlagsNone };
}

void tfl__report(tfl_reporter_t reporter, void *user_data, const char *format, ...) {
        va_list ap;
        va_start(ap, format);
        if (reporter)
                reporter(user_data, format, ap);
        else {
                /* TensorFlow Lite's default reporter writes each error as a
                 * line on stderr. */
                (void) vfprintf(stderr, format, ap);
                (void) fputc('\n', stderr);
        }
        va_end(ap);
}

int tfl__mode_from_env(tfl_mode_t *ret) {
        const char *s = getenv("ACCEL_TFLITE_MODE");
        if (!s || !*s || strcmp(s, "auto") == 0)
                *ret = TFL_MODE_AUTO;
        else if (strcmp(s, "served") == 0)
                *ret = TFL_MODE_SERVED;
        else if (strcmp(s, "local") == 0)
                *ret = TFL_MODE_LOCAL;
        else
                return -EINVAL;
        return 0;
}

TfLiteType tfl__type_from_schema(int type) {
        /* Schema TensorType 0..15 in order: FLOAT32 FLOAT16 INT32 UINT8 INT64
         * STRING BOOL INT16 COMPLEX64 INT8 FLOAT64 COMPLEX128 UINT64 RESOURCE
         * VARIANT UINT32. */
        static const TfLiteType map[] = {
                kTfLiteFloat32,   kTfLiteFloat16, kTfLiteInt32,   kTfLiteUInt8,
                kTfLiteInt64,     kTfLiteString,  kTfLiteBool,    kTfLiteInt16,
                kTfLiteComplex64, kTfLiteInt8,    kTfLiteFloat64, kTfLiteComplex128,
                kTfLiteUInt64,    kTfLiteResource, kTfLiteVariant, kTfLiteUInt32,
        };
        if (type < 0 || (size_t) type >= sizeof(map) / sizeof(map[0]))
                return kTfLiteNoType;
        return map[type];
}
