/* SPDX-License-Identifier: Apache-2.0 */
/* Files of the store: atomic writes, streamed hashing. */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "storage-internal.h"

char *store__path_join(const char *dir, const char *name) {
        char *p = NULL;
        if (asprintf(&p, "%s/%s", dir, name) < 0)
                return NULL;
        return p;
}

static int write_all(int fd, const void *data, size_t size) {
        const uint8_t *p = data;
        while (size > 0) {
                ssize_t n = write(fd, p, size);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                p += n;
                size -= (size_t) n;
        }
        return 0;
}

int store__file_write_atomic(const char *dir, const char *name, const void *data, size_t size) {
        _cleanup_free_ char *final = store__path_join(dir, name);
        _cleanup_free_ char *tmp = NULL;
        if (!final || asprintf(&tmp, "%s/.%s.XXXXXX", dir, name) < 0)
                return -ENOMEM;

        _cleanup_close_ int fd = mkostemp(tmp, O_CLOEXEC);
        if (fd < 0)
                return -errno;
        int r = write_all(fd, data, size);
        if (r == 0 && fchmod(fd, 0600) < 0)
                r = -errno;
        /* The data must be on disk before the rename makes it visible, or a
         * crash could leave a complete-looking name over torn bytes. */
        if (r == 0 && fsync(fd) < 0)
                r = -errno;
        if (r == 0 && rename(tmp, final) < 0)
                r = -errno;
        if (r < 0) {
                (void) unlink(tmp);
                return r;
        }

        _cleanup_close_ int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd < 0)
                return -errno;
        /* And the rename itself must be durable before the row names it. */
        if (fsync(dfd) < 0)
                return -errno;
        return 0;
}

int store__file_sha256(const char *path, char ret_hex[ACC_SHA256_HEX_SIZE], uint64_t *ret_size) {
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        return acc_sha256_fd(fd, UINT64_MAX, ret_hex, ret_size);
}
