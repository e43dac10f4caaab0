/* SPDX-License-Identifier: Apache-2.0 */
/* Internal: feeding images to a model's input 0 (image-input.c). */
#pragma once

#include "eval.h"

/*
 * Check that input 0 of `r` is an image ([1, height, width, 3] float32,
 * uint8 or int8) and settle the preprocessing: a copy of `given`, else
 * eval_preprocess_default() (with the 0.875 crop when `crop`). The result
 * must produce exactly the input's size; its output_type is the input's.
 * 0 or -EINVAL (message).
 */
int eval__image_input(eval_runner_t *r, const eval_preprocess_t *given, bool crop, eval_tensor_t *ret_input,
                      eval_preprocess_t *ret_pp, char *err, size_t err_size);

/* Load `path`, preprocess it and write it into `input`. 0 or a negative
 * errno with a message naming the file. */
int eval__image_feed(const char *path, const eval_preprocess_t *pp, const eval_tensor_t *input, char *err,
                     size_t err_size);
