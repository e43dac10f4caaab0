/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "file-read.h"

int acc_fd_read(int fd, size_t max, void **ret, size_t *ret_size) {
        struct stat st;

        if (fstat(fd, &st) < 0)
                return -errno;
        if (!S_ISREG(st.st_mode))
                return -EINVAL;
        if ((uint64_t) st.st_size > (uint64_t) max)
                return -EFBIG;
        size_t size = (size_t) st.st_size;
        _cleanup_free_ uint8_t *buf = malloc(size + 1);
        if (!buf)
                return -ENOMEM;
        size_t got = 0;
        while (got < size) {
                ssize_t n = pread(fd, buf + got, size - got, (off_t) got);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return -errno;
                if (n == 0)
                        break;
                got += (size_t) n;
        }
        buf[got] = 0;
        *ret = TAKE_PTR(buf);
        *ret_size = got;
        return 0;
}

int acc_file_read(const char *path, void **ret, size_t *ret_size) {
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        return acc_fd_read(fd, SIZE_MAX, ret, ret_size);
}
