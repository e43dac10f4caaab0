/* SPDX-License-Identifier: Apache-2.0 */
/* The int and float array helpers of common.h. */
#include <stdlib.h>
#include <string.h>

#include "tflite-internal.h"

size_t TfLiteIntArrayGetSizeInBytes(int size) {
        return sizeof(TfLiteIntArray) + sizeof(int) * (size_t) (size < 0 ? 0 : size);
}

TfLiteIntArray *TfLiteIntArrayCreate(int size) {
        if (size < 0)
                return NULL;
        TfLiteIntArray *a = malloc(TfLiteIntArrayGetSizeInBytes(size));
        if (a)
                a->size = size;
        return a;
}

int TfLiteIntArrayEqual(const TfLiteIntArray *a, const TfLiteIntArray *b) {
        if (a == b)
                return 1;
        if (!a || !b)
                return 0;
        return TfLiteIntArrayEqualsArray(a, b->size, b->data);
}

int TfLiteIntArrayEqualsArray(const TfLiteIntArray *a, int b_size, const int b_data[]) {
        if (!a)
                return b_size == 0;
        if (a->size != b_size)
                return 0;
        return b_size == 0 || memcmp(a->data, b_data, sizeof(int) * (size_t) b_size) == 0;
}

TfLiteIntArray *TfLiteIntArrayCopy(const TfLiteIntArray *src) {
        if (!src)
                return NULL;
        TfLiteIntArray *a = TfLiteIntArrayCreate(src->size);
        if (a && src->size > 0)
                memcpy(a->data, src->data, sizeof(int) * (size_t) src->size);
        return a;
}

void TfLiteIntArrayFree(TfLiteIntArray *a) {
        free(a);
}

int TfLiteFloatArrayGetSizeInBytes(int size) {
        return (int) (sizeof(TfLiteFloatArray) + sizeof(float) * (size_t) (size < 0 ? 0 : size));
}

TfLiteFloatArray *TfLiteFloatArrayCreate(int size) {
        if (size < 0)
                return NULL;
        TfLiteFloatArray *a = malloc((size_t) TfLiteFloatArrayGetSizeInBytes(size));
        if (a)
                a->size = size;
        return a;
}

void TfLiteFloatArrayFree(TfLiteFloatArray *a) {
        free(a);
}
