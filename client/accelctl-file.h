/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Whole-file writes for accelctl's --output files and exports (reads are
 * common/file-read.h's acc_file_read()). No dependencies, so the in-process
 * commands and their tests link it alone.
 */
#pragma once

#include <stddef.h>

/* Create or truncate `path` (0644) and write size bytes. 0 or -errno
 * (including from close, where delayed write errors show). */
int accelctl_file_write(const char *path, const void *data, size_t size);
