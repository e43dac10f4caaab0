/* SPDX-License-Identifier: Apache-2.0 */
/* NormalizationParams: (v - mean[channel]) * scale. */
#include <errno.h>
#include <math.h>
#include <stdio.h>

#include "eval.h"

int eval_normalize_apply(const eval_normalize_t *p, eval_image_t *img, char *err, size_t err_size) {
        if (!isfinite(p->scale) || !isfinite(p->mean[0]) || !isfinite(p->mean[1]) || !isfinite(p->mean[2])) {
                snprintf(err, err_size, "normalization mean and scale must be finite");
                return -EINVAL;
        }
        size_t n = (size_t) img->width * img->height;
        for (size_t i = 0; i < n; i++)
                for (unsigned c = 0; c < 3; c++)
                        img->data[i * 3 + c] = (img->data[i * 3 + c] - p->mean[c]) * p->scale;
        return 0;
}
