/* SPDX-License-Identifier: Apache-2.0 */
/* Label files (one label per line) and image directories. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cleanup.h"
#include "eval.h"
#include "file.h"

void eval_labels_done(eval_labels_t *l) {
        if (!l)
                return;
        for (size_t i = 0; i < l->n; i++)
                free(l->v[i]);
        free(l->v);
        *l = (eval_labels_t) {};
}

static int labels_push(eval_labels_t *l, size_t *cap, char *s) {
        if (l->n == *cap) {
                size_t c = *cap ? *cap * 2 : 64;
                char **v = realloc(l->v, c * sizeof(*v));
                if (!v)
                        return -ENOMEM;
                l->v = v;
                *cap = c;
        }
        l->v[l->n++] = s;
        return 0;
}

int eval_labels_parse(const char *text, size_t size, eval_labels_t *ret) {
        eval_labels_t l = {};
        size_t cap = 0, start = 0;

        for (size_t i = 0; i <= size; i++) {
                if (i < size && text[i] != '\n')
                        continue;
                size_t end = i;
                if (i == size && start == size)
                        break;  /* the newline ending the last line */
                while (end > start && (text[end - 1] == '\r' || text[end - 1] == ' ' || text[end - 1] == '\t'))
                        end--;
                char *s = strndup(text + start, end - start);
                if (!s || labels_push(&l, &cap, s) < 0) {
                        free(s);
                        eval_labels_done(&l);
                        return -ENOMEM;
                }
                start = i + 1;
        }
        if (l.n == 0)
                return -EINVAL;
        *ret = l;
        return 0;
}

int eval_labels_load(const char *path, eval_labels_t *ret, char *err, size_t err_size) {
        _cleanup_free_ char *buf = NULL;
        size_t len = 0;
        int r = eval_file_read(path, &buf, &len, err, err_size);

        if (r < 0)
                return r;
        r = eval_labels_parse(buf, len, ret);
        if (r == -EINVAL)
                snprintf(err, err_size, "%s: no labels in the file", path);
        return r;
}

static bool same_trimmed_nocase(const char *a, const char *b) {
        while (isspace((unsigned char) *a))
                a++;
        while (isspace((unsigned char) *b))
                b++;
        size_t la = strlen(a), lb = strlen(b);
        while (la && isspace((unsigned char) a[la - 1]))
                la--;
        while (lb && isspace((unsigned char) b[lb - 1]))
                lb--;
        return la == lb && strncasecmp(a, b, la) == 0;
}

int eval_labels_find(const eval_labels_t *l, const char *label) {
        for (size_t i = 0; i < l->n; i++)
                if (strcmp(l->v[i], label) == 0)
                        return (int) i;
        for (size_t i = 0; i < l->n; i++)
                if (same_trimmed_nocase(l->v[i], label))
                        return (int) i;
        return -ENOENT;
}

/* ---- image directories ---- */

const char *eval_path_basename(const char *path) {
        const char *s = strrchr(path, '/');
        return s ? s + 1 : path;
}

static bool is_image_name(const char *name) {
        const char *dot = strrchr(name, '.');
        return name[0] != '.' && dot &&
               (strcasecmp(dot, ".jpg") == 0 || strcasecmp(dot, ".jpeg") == 0 || strcasecmp(dot, ".png") == 0);
}

static int name_cmp(const void *a, const void *b) {
        return strcmp(eval_path_basename(*(char *const *) a), eval_path_basename(*(char *const *) b));
}

int eval_images_list(const char *dir, eval_labels_t *ret) {
        eval_labels_t l = {};
        size_t cap = 0;
        DIR *d = opendir(dir);
        struct dirent *e;

        if (!d)
                return -errno;
        while ((e = readdir(d))) {
                char *path = NULL;

                if (!is_image_name(e->d_name))
                        continue;
                if (asprintf(&path, "%s/%s", dir, e->d_name) < 0)
                        path = NULL;
                if (!path || labels_push(&l, &cap, path) < 0) {
                        free(path);
                        (void) closedir(d);
                        eval_labels_done(&l);
                        return -ENOMEM;
                }
        }
        (void) closedir(d);
        if (l.n > 1)
                qsort(l.v, l.n, sizeof(*l.v), name_cmp);
        *ret = l;
        return 0;
}
