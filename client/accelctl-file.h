/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Whole-file reads and writes for accelctl's --input/--output/--settings
 * files and exports. No dependencies, so the in-process commands and their
 * tests link it alone.
 */
#pragma once

#include <stddef.h>

/*
 * Read a regular file into a malloc'ed buffer (*ret, freed by the caller)
 * with one extra NUL byte after the data, so text files can be parsed as
 * strings. 0, -EINVAL for something that is not a regular file, -EIO if it
 * shrank while read, -ENOMEM or -errno from open/read.
 */
int accelctl_file_read(const char *path, void **ret, size_t *ret_size);

/* Create or truncate `path` (0644) and write size bytes. 0 or -errno
 * (including from close, where delayed write errors show). */
int accelctl_file_write(const char *path, const void *data, size_t size);
