/* SPDX-License-Identifier: Apache-2.0 */
/* Whole-file reads, once. */
#pragma once

#include <stddef.h>

/*
 * Read the regular file open on fd whole (from offset 0, with pread: the
 * fd's position is untouched) into a malloc()ed buffer with one extra NUL
 * byte after the data, so text can be parsed in place. A file that shrinks
 * while read gives the bytes that were there. Returns 0 and *ret /
 * *ret_size, -EINVAL for a file that is not regular, -EFBIG for one over
 * `max` bytes, -ENOMEM, or -errno from fstat/pread.
 */
int acc_fd_read(int fd, size_t max, void **ret, size_t *ret_size);

/* acc_fd_read() of the file at `path`, with no size limit; -errno from
 * open too. */
int acc_file_read(const char *path, void **ret, size_t *ret_size);
