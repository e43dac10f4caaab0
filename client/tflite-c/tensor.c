/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The C API's tensor accessors. They read the TfLiteTensor fields only, so
 * they work on any TfLiteTensor, ours (refreshed by the interpreter) or a
 * caller's.
 */
#include <string.h>

#include "tflite-internal.h"

TfLiteType TfLiteTensorType(const TfLiteTensor *t) {
        return t ? t->type : kTfLiteNoType;
}

int32_t TfLiteTensorNumDims(const TfLiteTensor *t) {
        return t && t->dims ? t->dims->size : 0;
}

int32_t TfLiteTensorDim(const TfLiteTensor *t, int32_t i) {
        if (!t || !t->dims || i < 0 || i >= t->dims->size)
                return 0;
        return t->dims->data[i];
}

size_t TfLiteTensorByteSize(const TfLiteTensor *t) {
        return t ? t->bytes : 0;
}

void *TfLiteTensorData(const TfLiteTensor *t) {
        return t ? t->data.data : NULL;
}

const char *TfLiteTensorName(const TfLiteTensor *t) {
        return t ? t->name : NULL;
}

TfLiteQuantizationParams TfLiteTensorQuantizationParams(const TfLiteTensor *t) {
        return t ? t->params : (TfLiteQuantizationParams) { 0 };
}

TfLiteStatus TfLiteTensorCopyFromBuffer(TfLiteTensor *t, const void *data, size_t size) {
        /* A string input has no size before it is set; for ours, the
         * runtime takes the serialized list (TensorFlow Lite's C API has no
         * way to set one). */
        if (t && t->type == kTfLiteString && t->allocation == (const void *) t && data)
                return tfl__tensor_set_string((tfl_tensor_t *) t, data, size);
        if (!t || size != t->bytes || (size && (!data || !t->data.data)))
                return kTfLiteError;
        if (size)
                memcpy(t->data.data, data, size);
        return kTfLiteOk;
}

TfLiteStatus TfLiteTensorCopyToBuffer(const TfLiteTensor *t, void *data, size_t size) {
        if (!t || size != t->bytes || (size && (!data || !t->data.data)))
                return kTfLiteError;
        if (size)
                memcpy(data, t->data.data, size);
        return kTfLiteOk;
}
