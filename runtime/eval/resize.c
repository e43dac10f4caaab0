/* SPDX-License-Identifier: Apache-2.0 */
/* ResizingParams: bilinear resize, optionally keeping the aspect ratio. */
#include <errno.h>
#include <math.h>
#include <stdio.h>

#include "eval.h"

/* TFLite's ResizeBilinear with align_corners and half_pixel_centers false,
 * as its evaluation tool uses it: output pixel y samples input row
 * y * (in / out), between floor() and the next row (clamped). */
static void resize_bilinear(const eval_image_t *in, eval_image_t *out) {
        float sy = (float) in->height / (float) out->height;
        float sx = (float) in->width / (float) out->width;

        for (uint32_t y = 0; y < out->height; y++) {
                float fy = (float) y * sy;
                uint32_t y0 = (uint32_t) floorf(fy);
                uint32_t y1 = y0 + 1 < in->height ? y0 + 1 : in->height - 1;
                float dy = fy - (float) y0;

                for (uint32_t x = 0; x < out->width; x++) {
                        float fx = (float) x * sx;
                        uint32_t x0 = (uint32_t) floorf(fx);
                        uint32_t x1 = x0 + 1 < in->width ? x0 + 1 : in->width - 1;
                        float dx = fx - (float) x0;

                        for (unsigned c = 0; c < 3; c++) {
                                float v00 = *eval_image_at(in, x0, y0, c), v01 = *eval_image_at(in, x1, y0, c);
                                float v10 = *eval_image_at(in, x0, y1, c), v11 = *eval_image_at(in, x1, y1, c);

                                *eval_image_at(out, x, y, c) = v00 * (1 - dy) * (1 - dx) + v01 * (1 - dy) * dx +
                                                               v10 * dy * (1 - dx) + v11 * dy * dx;
                        }
                }
        }
}

int eval_resize_apply(const eval_resize_t *p, eval_image_t **img, char *err, size_t err_size) {
        eval_image_t *in = *img;
        uint32_t w = p->width, h = p->height;

        if (w == 0 || h == 0) {
                snprintf(err, err_size, "resizing target_size %ux%u is empty", w, h);
                return -EINVAL;
        }
        if (p->aspect_preserving) {
                float rw = (float) p->width / (float) in->width, rh = (float) p->height / (float) in->height;
                double v;

                /* The larger ratio: one side lands on its target, the other
                 * is at least its target (a crop usually follows). */
                if (rw >= rh) {
                        v = round((double) in->height * rw);
                        h = v < 1 ? 1 : v > 32768 ? 32768 : (uint32_t) v;
                } else {
                        v = round((double) in->width * rh);
                        w = v < 1 ? 1 : v > 32768 ? 32768 : (uint32_t) v;
                }
        }
        eval_image_t *out = eval_image_new(w, h);
        if (!out) {
                snprintf(err, err_size, "cannot allocate a %ux%u image", w, h);
                return -ENOMEM;
        }
        resize_bilinear(in, out);
        eval_image_free(in);
        *img = out;
        return 0;
}
