/* SPDX-License-Identifier: Apache-2.0 */
/* Whole-file reading for the evaluation inputs (label files, ground truth). */
#pragma once

#include <stddef.h>

/*
 * Read all of `path` into *ret (malloc'ed, NUL-terminated; *ret_len bytes
 * before the NUL), through common/file-read.h's acc_file_read(). 0, or
 * -errno with "PATH: reason" in err.
 */
int eval_file_read(const char *path, char **ret, size_t *ret_len, char *err, size_t err_size);
