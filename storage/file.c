/* SPDX-License-Identifier: Apache-2.0 */
/* Files of the store: atomic writes, whole reads, streamed hashing. */
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
        if (r == 0 && fchmod(fd, 0640) < 0)
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

int store__file_read(const char *path, void **ret_data, size_t *ret_size) {
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        struct stat st;
        if (fstat(fd, &st) < 0)
                return -errno;
        if (!S_ISREG(st.st_mode))
                return -EBADMSG;
        size_t size = (size_t) st.st_size;
        _cleanup_free_ uint8_t *buf = malloc(size ? size : 1);
        if (!buf)
                return -ENOMEM;
        size_t got = 0;
        while (got < size) {
                ssize_t n = read(fd, buf + got, size - got);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                if (n == 0)
                        break; /* shrank under us: the checksum will tell */
                got += (size_t) n;
        }
        *ret_data = TAKE_PTR(buf);
        *ret_size = got;
        return 0;
}

int store_sha256_fd(int fd, uint64_t size, char ret_hex[STORE_SHA256_HEX_SIZE], uint64_t *ret_size) {
        if (fd < 0 || !ret_hex)
                return -EINVAL;
        _cleanup_free_ uint8_t *buf = malloc(1 << 20);
        if (!buf)
                return -ENOMEM;
        store_sha256_t ctx;
        store_sha256_init(&ctx);
        uint64_t total = 0;
        while (total < size) {
                size_t want = size - total < (1u << 20) ? (size_t) (size - total) : (1u << 20);
                ssize_t n = pread(fd, buf, want, (off_t) total);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return -errno;
                if (n == 0) {
                        if (size != UINT64_MAX)
                                return -EIO;
                        break;
                }
                store_sha256_update(&ctx, buf, (size_t) n);
                total += (uint64_t) n;
        }
        uint8_t d[32];
        store_sha256_final(&ctx, d);
        store__hex(d, ret_hex);
        if (ret_size)
                *ret_size = total;
        return 0;
}

int store__file_sha256(const char *path, char ret_hex[STORE_SHA256_HEX_SIZE], uint64_t *ret_size) {
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        return store_sha256_fd(fd, UINT64_MAX, ret_hex, ret_size);
}
