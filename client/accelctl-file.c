/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "accelctl-file.h"
#include "cleanup.h"

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
