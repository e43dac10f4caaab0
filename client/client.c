/* SPDX-License-Identifier: Apache-2.0 */
/* libaccel: connections, request/reply, errors. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "accel-internal.h"
#include "cleanup.h"

static _Thread_local char last_error[512];
static _Thread_local accel_status_t last_status;

int accel__error(int error, accel_status_t status, const char *fmt, ...) {
        va_list ap;

        va_start(ap, fmt);
        (void) vsnprintf(last_error, sizeof(last_error), fmt, ap);
        va_end(ap);
        last_status = status;
        return error;
}

void accel__error_clear(void) {
        last_error[0] = '\0';
        last_status = ACCEL_STATUS_NONE;
}

const char *accel_last_error(void) {
        return last_error;
}

accel_status_t accel_last_status(void) {
        return last_status;
}

const char *accel_status_to_string(accel_status_t status) {
        return ipc_status_to_string((Acceld__Status) status);
}

char *accel__strdup0(const char *s) {
        return strdup(s ? s : "");
}

static int default_path(char **ret) {
        const char *env = getenv("ACCELD_SOCKET"), *rt;

        if (env && env[0]) {
                *ret = strdup(env);
                return *ret ? 0 : -ENOMEM;
        }
        if (geteuid() == 0) {
                *ret = strdup(ACCEL_SOCKET_SYSTEM);
                return *ret ? 0 : -ENOMEM;
        }
        rt = getenv("XDG_RUNTIME_DIR");
        if (!rt || rt[0] != '/')
                return -ENXIO;
        if (asprintf(ret, "%s/acceld.sock", rt) < 0)
                return -ENOMEM;
        return 0;
}

int accel_connect(const char *path, accel_client_t **ret) {
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        _cleanup_free_ char *p = NULL;
        _cleanup_close_ int fd = -1;
        accel_client_t *c;
        size_t len;
        int r;

        accel__error_clear();
        if (!ret)
                return accel__error(-EINVAL, ACCEL_STATUS_NONE, "accel_connect: ret is NULL");
        if (path && path[0]) {
                p = strdup(path);
                r = p ? 0 : -ENOMEM;
        } else
                r = default_path(&p);
        if (r == -ENXIO)
                return accel__error(r, ACCEL_STATUS_NONE,
                                    "no socket path: pass one, or set ACCELD_SOCKET or XDG_RUNTIME_DIR");
        if (r < 0)
                return accel__error(r, ACCEL_STATUS_NONE, "%s", strerror(-r));
        len = strlen(p);
        if (len >= sizeof(sa.sun_path))
                return accel__error(-ENAMETOOLONG, ACCEL_STATUS_NONE, "socket path too long: %s", p);
        memcpy(sa.sun_path, p, len + 1);

        fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return accel__error(-errno, ACCEL_STATUS_NONE, "socket: %s", strerror(errno));
        if (connect(fd, (struct sockaddr *) &sa, (socklen_t) (offsetof(struct sockaddr_un, sun_path) + len + 1)) < 0) {
                r = -errno;
                return accel__error(r, ACCEL_STATUS_NONE, "cannot connect to acceld at %s: %s", p,
                                    strerror(-r));
        }

        c = calloc(1, sizeof(*c));
        if (!c)
                return accel__error(-ENOMEM, ACCEL_STATUS_NONE, "out of memory");
        c->fd = TAKE_FD(fd);
        c->path = TAKE_PTR(p);
        c->next_request_id = 1;
        ipc_reader_init(&c->reader, 0);
        *ret = c;
        return 0;
}

accel_client_t *accel_disconnect(accel_client_t *c) {
        if (!c)
                return NULL;
        if (c->fd >= 0)
                (void) close(c->fd);
        for (size_t i = 0; i < ACCEL_STASH_MAX; i++)
                if (c->stash[i])
                        acceld__response__free_unpacked(c->stash[i], NULL);
        ipc_reader_done(&c->reader);
        free(c->path);
        free(c);
        return NULL;
}

const char *accel_client_socket_path(const accel_client_t *c) {
        return c ? c->path : NULL;
}

int accel__max_frame(accel_client_t *c, size_t *ret) {
        accel_hello_t *h = NULL;
        int r;

        if (c->max_frame == 0) {
                r = accel_hello(c, NULL, &h);
                if (r < 0)
                        return r;
                c->max_frame = h->limits.max_frame_bytes ? h->limits.max_frame_bytes : ACCEL_FRAME_MIN;
                if (c->max_frame > IPC_FRAME_LIMIT_DEFAULT)
                        c->max_frame = IPC_FRAME_LIMIT_DEFAULT;
                (void) accel_hello_free(h);
        }
        *ret = c->max_frame;
        return 0;
}

int accel__transact(accel_client_t *c, Acceld__Request *req, Acceld__Response__BodyCase want,
                    Acceld__Response **ret_resp) {
        return accel__transact_fds(c, req, NULL, 0, want, ret_resp);
}

int accel__transact_fds(accel_client_t *c, Acceld__Request *req, const int *fds, size_t n_fds,
                        Acceld__Response__BodyCase want, Acceld__Response **ret_resp) {
        uint64_t id;
        int r = accel__send(c, req, fds, n_fds, false, &id);

        return r < 0 ? r : accel__wait(c, id, want, ret_resp);
}

int accel__send(accel_client_t *c, Acceld__Request *req, const int *fds, size_t n_fds, bool keep,
                uint64_t *ret_id) {
        size_t slot = ACCEL_STASH_MAX;
        uint64_t id;
        int r;

        if (c->fd < 0)
                return accel__error(-ENOTCONN, ACCEL_STATUS_NONE, "connection is closed");
        for (size_t i = 0; keep && i < ACCEL_STASH_MAX && slot == ACCEL_STASH_MAX; i++)
                if (c->wanted[i] == 0)
                        slot = i;
        if (keep && slot == ACCEL_STASH_MAX)
                return accel__error(-EBUSY, ACCEL_STATUS_NONE, "more than %d requests in flight on one connection",
                                    ACCEL_STASH_MAX);
        id = c->next_request_id++;
        req->has_request_id = 1;
        req->request_id = id;
        if (n_fds > 0) {
                req->has_num_fds = 1;
                req->num_fds = (uint32_t) n_fds;
        }
        r = ipc_send(c->fd, &req->base, fds, n_fds);
        if (r < 0)
                return accel__error(r, ACCEL_STATUS_NONE, "cannot send request: %s", strerror(-r));
        if (keep)
                c->wanted[slot] = id;
        *ret_id = id;
        return 0;
}

/* Take the reply to `id` out of the stash (and free its slot). */
static Acceld__Response *stash_take(accel_client_t *c, uint64_t id) {
        for (size_t i = 0; i < ACCEL_STASH_MAX; i++)
                if (c->wanted[i] == id) {
                        Acceld__Response *r = c->stash[i];

                        if (r) {
                                c->stash[i] = NULL;
                                c->wanted[i] = 0;
                        }
                        return r;
                }
        return NULL;
}

/* Keep `resp` if its id is wanted; true if it was kept. */
static bool stash_put(accel_client_t *c, Acceld__Response *resp) {
        for (size_t i = 0; i < ACCEL_STASH_MAX; i++)
                if (c->wanted[i] == resp->request_id && !c->stash[i]) {
                        c->stash[i] = resp;
                        return true;
                }
        return false;
}

static void wanted_drop(accel_client_t *c, uint64_t id) {
        for (size_t i = 0; i < ACCEL_STASH_MAX; i++)
                if (c->wanted[i] == id)
                        c->wanted[i] = 0;
}

int accel__wait(accel_client_t *c, uint64_t id, Acceld__Response__BodyCase want, Acceld__Response **ret_resp) {
        ProtobufCMessage *m = NULL;
        Acceld__Response *resp = stash_take(c, id);
        int r;

        while (!resp) {
                if (c->fd < 0)
                        return accel__error(-ENOTCONN, ACCEL_STATUS_NONE, "connection is closed");
                r = ipc_recv(c->fd, &c->reader, &acceld__response__descriptor, &m);
                if (r == -ECONNRESET)
                        return accel__error(r, ACCEL_STATUS_NONE, "acceld closed the connection");
                if (r < 0)
                        return accel__error(r, ACCEL_STATUS_NONE, "cannot read reply: %s", strerror(-r));
                resp = (Acceld__Response *) m;
                /* A PROTOCOL_ERROR about the stream itself carries id 0. */
                if (resp->request_id == id || resp->request_id == 0)
                        break;
                /* Someone else's reply that is still wanted, or a late
                 * reply to something this client gave up on. */
                if (!stash_put(c, resp))
                        acceld__response__free_unpacked(resp, NULL);
                resp = NULL;
        }
        wanted_drop(c, id);

        if (resp->status != ACCELD__STATUS__NONE) {
                accel_status_t st = (accel_status_t) resp->status;
                const char *name = ipc_status_to_string(resp->status);
                const char *msg = resp->message ? resp->message : "(no message)";
                size_t n = strlen(name);

                /* One prefix: a message that already starts with the
                 * status name keeps its own. */
                if (strncmp(msg, name, n) == 0 && msg[n] == ':')
                        r = accel__error(ipc_status_to_errno(resp->status), st, "%s", msg);
                else
                        r = accel__error(ipc_status_to_errno(resp->status), st, "%s: %s", name, msg);
                acceld__response__free_unpacked(resp, NULL);
                return r;
        }
        if (resp->body_case != want) {
                acceld__response__free_unpacked(resp, NULL);
                return accel__error(-EBADMSG, ACCEL_STATUS_NONE,
                                    "reply to request %" PRIu64 " has the wrong body", id);
        }
        *ret_resp = resp;
        return 0;
}
