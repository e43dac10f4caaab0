/* SPDX-License-Identifier: Apache-2.0 */
/* Feeding images to a model's input 0 (image-input.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cleanup.h"
#include "eval.h"
#include "image-input.h"

int eval__image_input(eval_runner_t *r, const eval_preprocess_t *given, bool crop, eval_tensor_t *ret_input,
                      eval_preprocess_t *ret_pp, char *err, size_t err_size) {
        eval_tensor_t in;
        eval_preprocess_t pp;
        int rc;

        if (eval_runner_input_count(r) < 1 || eval_runner_input(r, 0, &in) < 0) {
                snprintf(err, err_size, "the model has no input");
                return -EINVAL;
        }
        if (in.rank != 4 || in.dims[0] != 1 || in.dims[3] != 3 || in.dims[1] < 1 || in.dims[2] < 1) {
                snprintf(err, err_size, "input 0 '%s' is not an RGB image [1, height, width, 3]", in.name);
                return -EINVAL;
        }
        if (in.type != 0 && in.type != 3 && in.type != 9) {
                snprintf(err, err_size, "input 0 '%s' has TFLite type %d; images need float32, uint8 or int8",
                         in.name, in.type);
                return -EINVAL;
        }
        if (given) {
                pp = *given;
                pp.output_type = in.type;
        } else {
                rc = eval_preprocess_default(in.type, (uint32_t) in.dims[2], (uint32_t) in.dims[1], in.scale,
                                             in.zero_point, crop, &pp);
                if (rc < 0) {
                        snprintf(err, err_size, "no default preprocessing for input 0");
                        return rc;
                }
        }
        *ret_input = in;
        *ret_pp = pp;
        return 0;
}

DEFINE_POINTER_CLEANUP(eval_image_t, eval_image_free);

int eval__image_feed(const char *path, const eval_preprocess_t *pp, const eval_tensor_t *input, char *err,
                     size_t err_size) {
        _cleanup_(eval_image_freep) eval_image_t *img = NULL;
        char msg[512] = "";
        int rc;

        rc = eval_image_load(path, &img, msg, sizeof(msg));
        if (rc >= 0)
                rc = eval_preprocess_apply(pp, &img, msg, sizeof(msg));
        if (rc >= 0 && (img->width != (uint32_t) input->dims[2] || img->height != (uint32_t) input->dims[1])) {
                snprintf(msg, sizeof(msg), "preprocessing gives %ux%u, input 0 takes %dx%d", img->width,
                         img->height, input->dims[2], input->dims[1]);
                rc = -EINVAL;
        }
        if (rc >= 0)
                rc = eval_image_to_tensor(img, input->type, input->scale, input->zero_point, input->data,
                                          input->bytes, msg, sizeof(msg));
        if (rc < 0) {
                /* eval_image_load() already names the file. */
                if (strncmp(msg, path, strlen(path)) == 0)
                        snprintf(err, err_size, "%s", msg);
                else
                        snprintf(err, err_size, "%s: %s", eval_path_basename(path), msg[0] ? msg : strerror(-rc));
                return rc;
        }
        return 0;
}
