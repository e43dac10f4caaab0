/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "accelctl-file.h"
#include "cleanup.h"

int accelctl_file_read(const char *path, void **ret, size_t *ret_size) {
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        struct stat st;
        if (fstat(fd, &st) < 0)
                return -errno;
        if (!S_ISREG(st.st_mode))
                return -EINVAL;
        size_t size = (size_t) st.st_size;
        _cleanup_free_ uint8_t *buf = malloc(size + 1);
        if (!buf)
                return -ENOMEM;
        for (size_t done = 0; done < size;) {
                ssize_t n = read(fd, buf + done, size - done);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0)
                        return n < 0 ? -errno : -EIO;
                done += (size_t) n;
        }
        buf[size] = 0;
        *ret = TAKE_PTR(buf);
        *ret_size = size;
        return 0;
}

int accelctl_file_write(const char *path, const void *data, size_t size) {
        _cleanup_close_ int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd < 0)
                return -errno;
        const uint8_t *p = data;
        for (size_t done = 0; done < size;) {
                ssize_t n = write(fd, p + done, size - done);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return -errno;
                done += (size_t) n;
        }
        int fd2 = TAKE_FD(fd);
        return close(fd2) < 0 ? -errno : 0;
}
