/* SPDX-License-Identifier: Apache-2.0 */
#include <unistd.h>

#include <check.h>

#include "harness-frames.h"
#include "harness.h"

static uint64_t next_id = 1;

void harness_client_open(harness_client_t *c, const char *sock) {
        c->fd = harness_connect(sock);
        ck_assert_int_ge(c->fd, 0);
        ipc_reader_init(&c->r, 0);
}

void harness_client_close(harness_client_t *c) {
        ipc_reader_done(&c->r);
        (void) close(c->fd);
        c->fd = -1;
}

uint64_t harness_send(harness_client_t *c, Acceld__Request *req, const int *fds, size_t n_fds) {
        req->has_request_id = 1;
        req->request_id = next_id++;
        if (n_fds) {
                req->has_num_fds = 1;
                req->num_fds = (uint32_t) n_fds;
        }
        ck_assert_int_eq(ipc_send(c->fd, &req->base, fds, n_fds), 0);
        return req->request_id;
}

Acceld__Response *harness_recv(harness_client_t *c) {
        ProtobufCMessage *m = NULL;

        ck_assert_int_eq(ipc_recv(c->fd, &c->r, &acceld__response__descriptor, &m), 0);
        return (Acceld__Response *) m;
}

Acceld__Response *harness_transact(harness_client_t *c, Acceld__Request *req, const int *fds, size_t n_fds) {
        uint64_t id = harness_send(c, req, fds, n_fds);
        Acceld__Response *resp = harness_recv(c);

        ck_assert_uint_eq(resp->request_id, id);
        return resp;
}

void harness_resp_free(Acceld__Response *r) {
        acceld__response__free_unpacked(r, NULL);
}
