/* SPDX-License-Identifier: Apache-2.0 */
/* RGB float images: allocation and decoding by signature. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "eval.h"

/* Larger images are refused before anything is allocated: 32768^2 * 3
 * floats is already 12 GiB. */
#define IMAGE_MAX_SIDE 32768u

eval_image_t *eval_image_new(uint32_t width, uint32_t height) {
        if (width == 0 || height == 0 || width > IMAGE_MAX_SIDE || height > IMAGE_MAX_SIDE)
                return NULL;
        eval_image_t *img = calloc(1, sizeof(*img));
        if (!img)
                return NULL;
        img->data = calloc((size_t) width * height * 3, sizeof(float));
        if (!img->data) {
                free(img);
                return NULL;
        }
        img->width = width;
        img->height = height;
        return img;
}

eval_image_t *eval_image_free(eval_image_t *img) {
        if (img) {
                free(img->data);
                free(img);
        }
        return NULL;
}

int eval_image_decode(const void *data, size_t size, eval_image_t **ret, char *err, size_t err_size) {
        static const uint8_t png_sig[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
        const uint8_t *p = data;

        if (!data || !ret)
                return -EINVAL;
        if (size >= 8 && memcmp(p, png_sig, 8) == 0)
                return eval__image_decode_png(data, size, ret, err, err_size);
        if (size >= 3 && p[0] == 0xff && p[1] == 0xd8 && p[2] == 0xff)
                return eval__image_decode_jpeg(data, size, ret, err, err_size);
        snprintf(err, err_size, "not a JPEG or PNG image");
        return -EINVAL;
}

/* Image files are read whole: decoders want one buffer, and a 1 GiB cap
 * keeps a wrong path (a disk image, /dev/zero) from eating memory. */
#define IMAGE_MAX_FILE (1u << 30)

int eval_image_load(const char *path, eval_image_t **ret, char *err, size_t err_size) {
        _cleanup_close_ int fd = -1;
        _cleanup_free_ uint8_t *buf = NULL;
        struct stat st;
        size_t got = 0;
        int r;

        if (!path || !ret)
                return -EINVAL;
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0 || fstat(fd, &st) < 0) {
                r = -errno;
                snprintf(err, err_size, "%s: %s", path, strerror(errno));
                return r;
        }
        if (!S_ISREG(st.st_mode) || st.st_size <= 0 || (uint64_t) st.st_size > IMAGE_MAX_FILE) {
                snprintf(err, err_size, "%s: not a regular file of 1 byte to 1 GiB", path);
                return -EINVAL;
        }
        buf = malloc((size_t) st.st_size);
        if (!buf)
                return -ENOMEM;
        while (got < (size_t) st.st_size) {
                ssize_t n = read(fd, buf + got, (size_t) st.st_size - got);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0) {
                        r = n < 0 ? -errno : -EIO;
                        snprintf(err, err_size, "%s: %s", path, n < 0 ? strerror(errno) : "short read");
                        return r;
                }
                got += (size_t) n;
        }
        char msg[256] = "";
        r = eval_image_decode(buf, got, ret, msg, sizeof(msg));
        if (r < 0)
                snprintf(err, err_size, "%s: %s", path, msg[0] ? msg : strerror(-r));
        return r;
}
