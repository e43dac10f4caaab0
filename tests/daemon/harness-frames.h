/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Hand-made frames to a harness daemon (harness.h): one connection with its
 * frame reader, request ids from one counter, and the send / receive /
 * transact steps every frame-level test used to copy. Check assertions:
 * any failure fails the calling test.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "ipc.h"
#include "service.pb-c.h"

typedef struct harness_client {
        int fd;
        ipc_reader_t r;
} harness_client_t;

/* Connect to `sock` (asserting success) and set up the reader. */
void harness_client_open(harness_client_t *c, const char *sock);

/* Free the reader and close the connection (fd becomes -1). */
void harness_client_close(harness_client_t *c);

/* Give `req` the next request id (and num_fds when n_fds > 0), send it
 * with `fds` attached; returns the id. */
uint64_t harness_send(harness_client_t *c, Acceld__Request *req, const int *fds, size_t n_fds);

/* The next response frame (free with harness_resp_free()). */
Acceld__Response *harness_recv(harness_client_t *c);

/* harness_send() + harness_recv(), asserting the answer's request id. */
Acceld__Response *harness_transact(harness_client_t *c, Acceld__Request *req, const int *fds, size_t n_fds);

void harness_resp_free(Acceld__Response *r);
