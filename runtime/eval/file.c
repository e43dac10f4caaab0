/* SPDX-License-Identifier: Apache-2.0 */
/* Whole-file reading (file.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "file.h"
#include "file-read.h"

int eval_file_read(const char *path, char **ret, size_t *ret_len, char *err, size_t err_size) {
        void *buf = NULL;
        size_t len = 0;
        int r = acc_file_read(path, &buf, &len);

        if (r < 0) {
                snprintf(err, err_size, "%s: %s", path, strerror(-r));
                return r;
        }
        *ret = buf;
        if (ret_len)
                *ret_len = len;
        return 0;
}
