/* SPDX-License-Identifier: Apache-2.0 */
/* Whole-file reading (file.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "file.h"

int eval_file_read(const char *path, char **ret, size_t *ret_len, char *err, size_t err_size) {
        _cleanup_fclose_ FILE *f = fopen(path, "re");
        char *buf = NULL;
        size_t len = 0;

        if (!f) {
                int r = -errno;
                snprintf(err, err_size, "%s: %s", path, strerror(errno));
                return r;
        }
        FILE *mem = open_memstream(&buf, &len);
        if (!mem)
                return -ENOMEM;
        char chunk[65536];
        size_t n;
        while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
                if (fwrite(chunk, 1, n, mem) != n)
                        break;
        bool bad = ferror(f);
        if (fclose(mem) != 0 || !buf) {
                free(buf);
                return -ENOMEM;
        }
        if (bad) {
                free(buf);
                snprintf(err, err_size, "%s: read error", path);
                return -EIO;
        }
        *ret = buf;
        if (ret_len)
                *ret_len = len;
        return 0;
}
