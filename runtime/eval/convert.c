/* SPDX-License-Identifier: Apache-2.0 */
/* The last preprocessing step: an image into a model's input type. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "eval.h"

/* TFLite TensorType numbers used here. */
#define TYPE_FLOAT32 0
#define TYPE_UINT8 3
#define TYPE_INT8 9

static long quantize(float v, float scale, int32_t zero_point, long lo, long hi) {
        double q = scale > 0 ? round((double) v / scale) + zero_point : round((double) v);

        if (!(q >= lo))  /* also NaN */
                return lo;
        return q > hi ? hi : (long) q;
}

int eval_image_to_tensor(const eval_image_t *img, int32_t type, float scale, int32_t zero_point, void *data,
                         size_t size, char *err, size_t err_size) {
        size_t n = (size_t) img->width * img->height * 3;

        switch (type) {
        case TYPE_FLOAT32:
                if (size != n * sizeof(float))
                        break;
                memcpy(data, img->data, size);
                return 0;
        case TYPE_UINT8:
                if (size != n)
                        break;
                for (size_t i = 0; i < n; i++)
                        ((uint8_t *) data)[i] = (uint8_t) quantize(img->data[i], scale, zero_point, 0, 255);
                return 0;
        case TYPE_INT8:
                if (size != n)
                        break;
                for (size_t i = 0; i < n; i++)
                        ((int8_t *) data)[i] = (int8_t) quantize(img->data[i], scale, zero_point, -128, 127);
                return 0;
        default:
                snprintf(err, err_size, "image inputs of TFLite type %d are not supported (float32, uint8, int8)",
                         type);
                return -EINVAL;
        }
        snprintf(err, err_size, "a %ux%u RGB image does not fill an input of %zu bytes", img->width, img->height,
                 size);
        return -EINVAL;
}
