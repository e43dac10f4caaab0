/* SPDX-License-Identifier: Apache-2.0 */
/* libaccel internals shared by its source files. */
#pragma once

#include <stdarg.h>

#include "accel/accel.h"
#include "ipc.h"

struct accel_client {
        int fd;
        char *path;
        ipc_reader_t reader;
        uint64_t next_request_id;
};

/* A model to send: an open file (passed as an fd) or bytes in memory. */
struct accel_model {
        int fd;                 /* -1 for a model in memory */
        void *data;
        size_t size;
};

/* Record the calling thread's last error; returns `error` (negative). */
int accel__error(int error, accel_status_t status, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));
/* Clear the last error (at the start of each public call). */
void accel__error_clear(void);

/*
 * Send `req` (request_id is assigned here) and wait for its reply. On
 * success *ret_resp (freed with acceld__response__free_unpacked) has
 * status NONE and body case `want`. A daemon failure returns its status's
 * errno with the last error set to "<STATUS>: <message>".
 */
int accel__transact(accel_client_t *c, Acceld__Request *req, Acceld__Response__BodyCase want,
                    Acceld__Response **ret_resp);

/* strdup that maps NULL to "". NULL only on allocation failure. */
char *accel__strdup0(const char *s);

/* accel__transact() sending `n_fds` fds (borrowed) with the request. */
int accel__transact_fds(accel_client_t *c, Acceld__Request *req, const int *fds, size_t n_fds,
                        Acceld__Response__BodyCase want, Acceld__Response **ret_resp);

/* Copy the weights-cache counters (NULL: all zero, directory ""); only
 * the directory is allocated: NULL there means out of memory. */
void accel__weights_cache_status_copy(struct accel_weights_cache_status *out, const Acceld__WeightsCacheStatus *in);
