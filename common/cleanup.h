/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Scope-bound cleanup for locals, after systemd's _cleanup_().
 *
 *   _cleanup_free_ char *s = strdup("x");
 *   _cleanup_close_ int fd = open(...);
 *
 * Each helper accepts a NULL pointer / negative fd and does nothing with it.
 * To hand ownership out of the scope, use TAKE_PTR() / TAKE_FD().
 */
#pragma once

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define _cleanup_(f) __attribute__((cleanup(f)))

static inline void freep(void *p) {
        free(*(void **) p);
}

static inline void closep(int *fd) {
        if (*fd >= 0) {
                int saved = errno;
                (void) close(*fd);
                errno = saved;
        }
}

static inline void fclosep(FILE **f) {
        if (*f)
                (void) fclose(*f);
}

#define _cleanup_free_ _cleanup_(freep)
#define _cleanup_close_ _cleanup_(closep)
#define _cleanup_fclose_ _cleanup_(fclosep)

/* Return the pointer and leave NULL behind, so the cleanup does nothing. */
#define TAKE_PTR(p)                              \
        ({                                       \
                __typeof__(p) _take_tmp = (p);   \
                (p) = NULL;                      \
                _take_tmp;                       \
        })

#define TAKE_FD(fd)                              \
        ({                                       \
                int _take_fd = (fd);             \
                (fd) = -1;                       \
                _take_fd;                        \
        })

/* Define a cleanup helper for a type with a NULL-accepting destructor. */
#define DEFINE_POINTER_CLEANUP(type, func)               \
        static inline void func##p(type **p) {           \
                if (*p)                                  \
                        (void) func(*p);                 \
        }

#define ELEMENTSOF(a) (sizeof(a) / sizeof((a)[0]))
