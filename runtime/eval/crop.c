/* SPDX-License-Identifier: Apache-2.0 */
/* CroppingParams: a centred crop, by fraction or to a size. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "eval.h"

int eval_crop_apply(const eval_crop_t *p, eval_image_t **img, char *err, size_t err_size) {
        eval_image_t *in = *img;
        uint32_t cw, ch;

        if (p->use_fraction) {
                if (!(p->fraction > 0.0f && p->fraction <= 1.0f)) {
                        snprintf(err, err_size, "cropping_fraction %g is not in (0, 1]", p->fraction);
                        return -EINVAL;
                }
                cw = (uint32_t) lround((double) p->fraction * in->width);
                ch = (uint32_t) lround((double) p->fraction * in->height);
                cw = cw ? cw : 1;
                ch = ch ? ch : 1;
        } else {
                if (p->width == 0 || p->height == 0) {
                        snprintf(err, err_size, "cropping target_size %ux%u is empty", p->width, p->height);
                        return -EINVAL;
                }
                cw = p->width;
                ch = p->height;
        }
        if (p->square)
                cw = ch = cw < ch ? cw : ch;
        if (cw > in->width || ch > in->height) {
                snprintf(err, err_size, "cropping to %ux%u does not fit in a %ux%u image", cw, ch, in->width,
                         in->height);
                return -EINVAL;
        }
        uint32_t x0 = (uint32_t) lround((in->width - cw) / 2.0);
        uint32_t y0 = (uint32_t) lround((in->height - ch) / 2.0);
        eval_image_t *out = eval_image_new(cw, ch);
        if (!out)
                return -ENOMEM;
        for (uint32_t y = 0; y < ch; y++)
                memcpy(eval_image_at(out, 0, y, 0), eval_image_at(in, x0, y0 + y, 0), (size_t) cw * 3 * sizeof(float));
        eval_image_free(in);
        *img = out;
        return 0;
}
