/* SPDX-License-Identifier: Apache-2.0 */
/* PaddingParams: centre the image on a larger canvas of one value. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "eval.h"

int eval_pad_apply(const eval_pad_t *p, eval_image_t **img, char *err, size_t err_size) {
        eval_image_t *in = *img;
        uint32_t w = p->width, h = p->height;

        if (p->to_square)
                w = h = in->width > in->height ? in->width : in->height;
        if (w < in->width || h < in->height) {
                snprintf(err, err_size, "padding to %ux%u is smaller than the %ux%u image", w, h, in->width,
                         in->height);
                return -EINVAL;
        }
        eval_image_t *out = eval_image_new(w, h);
        if (!out)
                return -ENOMEM;
        uint32_t left = (uint32_t) lround((w - in->width) / 2.0);
        uint32_t top = (uint32_t) lround((h - in->height) / 2.0);
        size_t n = (size_t) w * h * 3;
        for (size_t i = 0; i < n; i++)
                out->data[i] = (float) p->value;
        for (uint32_t y = 0; y < in->height; y++)
                memcpy(eval_image_at(out, left, top + y, 0), eval_image_at(in, 0, y, 0),
                       (size_t) in->width * 3 * sizeof(float));
        eval_image_free(in);
        *img = out;
        return 0;
}
