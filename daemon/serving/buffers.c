/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Shared-memory buffers (register, unregister, allocate) and Cancel.
 */
#include "serving-internal.h"
#include "clientfd.h"

/* ---- buffers ---- */

static int buffer_add(daemon_request_t *rq, serving_session_t *ss, int fd, size_t size, serving_buffer_t **ret) {
        const daemon_config_t *cfg = rq->server->config;
        serving_buffer_t *b;
        void *p;
        int r;

        if (cfg->max_registered_bytes_per_uid > 0 &&
            ss->usage->registered_bytes + size > cfg->max_registered_bytes_per_uid) {
                daemon_refusal_count(DAEMON_REFUSAL_buffer_bytes);
                return daemon_request_errorf(rq, -EDQUOT,
                                             "uid %u would hold %" PRIu64 " registered bytes "
                                             "(max_registered_bytes_per_uid %" PRIu64 ")",
                                             (unsigned) ss->usage->uid, ss->usage->registered_bytes + size,
                                             cfg->max_registered_bytes_per_uid);
        }
        r = serving__buffer_admit(rq);
        if (r < 0)
                return r;
        p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (p == MAP_FAILED) {
                r = -errno;
                daemon_conn_fds_release(rq->conn, 1);
                return daemon_request_errorf(rq, r == -EACCES ? -EACCES : -EINVAL,
                                             "cannot map the buffer read-write: %s", strerror(-r));
        }
        b = calloc(1, sizeof(*b));
        if (!b) {
                (void) munmap(p, size);
                daemon_conn_fds_release(rq->conn, 1);
                return -ENOMEM;
        }
        b->id = ss->sv->next_buffer++;
        b->fd = fd;
        b->map = p;
        b->size = size;
        /* Driver hosts then read and write tensors in it in place. The
         * registry only borrows fd (sealed against shrinking, so a host
         * cannot be made to fault on it either). */
        int64_t shm = rt_shm_register(p, size, fd, 0);
        b->shm_id = shm > 0 ? (uint64_t) shm : 0;
        b->n_ref = 1;
        b->next = ss->buffers;
        ss->buffers = b;
        ss->sv->n_buffers++;
        ss->sv->registered_bytes += size;
        ss->usage->registered_bytes += size;
        *ret = b;
        return 0;
}

int daemon_register_buffer_handle(daemon_request_t *rq) {
        const Acceld__RegisterBufferRequest *in = rq->req->register_buffer;
        serving_session_t *ss = serving__session_get(rq);
        Acceld__RegisterBufferResponse *out;
        serving_buffer_t *b;
        char err[256] = "";
        size_t size;
        int fd, r;

        if (!ss)
                return -ENOMEM;
        fd = daemon_request_take_fd(rq, in->has_fd ? in->fd : 0);
        if (fd < 0)
                return daemon_request_errorf(rq, -EINVAL, "RegisterBuffer needs a memfd sent with the request "
                                             "(fd index %d of %zu)", in->has_fd ? in->fd : 0, rq->n_fds);
        /* A region that can shrink under a mapping would SIGBUS the daemon:
         * sealed first, sized after (clientfd.h). */
        r = daemon_clientfd_buffer(fd, BUFFER_MAX_BYTES, &size, err, sizeof(err));
        if (r < 0) {
                (void) close(fd);
                return daemon_request_errorf(rq, r, "%s", err);
        }
        r = buffer_add(rq, ss, fd, size, &b);
        if (r < 0) {
                (void) close(fd);
                return r;
        }
        out = daemon_request_alloc(rq, sizeof(*out));
        if (!out)
                return -ENOMEM;
        acceld__register_buffer_response__init(out);
        out->has_buffer = out->has_size = 1;
        out->buffer = b->id;
        out->size = b->size;
        rq->resp.body_case = ACCELD__RESPONSE__BODY_REGISTER_BUFFER;
        rq->resp.register_buffer = out;
        return 0;
}

int daemon_unregister_buffer_handle(daemon_request_t *rq) {
        const Acceld__UnregisterBufferRequest *in = rq->req->unregister_buffer;
        serving_session_t *ss = rq->conn->session;
        Acceld__UnregisterBufferResponse *out;

        for (serving_buffer_t **p = ss ? &ss->buffers : NULL; p && *p; p = &(*p)->next) {
                serving_buffer_t *b = *p;

                if (b->id != in->buffer)
                        continue;
                *p = b->next;
                ss->sv->registered_bytes -= b->size;
                ss->usage->registered_bytes -= b->size;
                daemon_conn_fds_release(rq->conn, 1);
                /* Executes using it keep the mapping until they finish. */
                serving__buffer_unref(ss->sv, b);
                out = daemon_request_alloc(rq, sizeof(*out));
                if (!out)
                        return -ENOMEM;
                acceld__unregister_buffer_response__init(out);
                rq->resp.body_case = ACCELD__RESPONSE__BODY_UNREGISTER_BUFFER;
                rq->resp.unregister_buffer = out;
                return 0;
        }
        return daemon_request_errorf(rq, -ENOENT, "no buffer %" PRIu64 " on this connection", in->buffer);
}

int daemon_allocate_buffer_handle(daemon_request_t *rq) {
        const Acceld__AllocateBufferRequest *in = rq->req->allocate_buffer;
        serving_session_t *ss = serving__session_get(rq);
        Acceld__AllocateBufferResponse *out;
        serving_buffer_t *b;
        uint64_t size = 0;
        int fd, r;

        if (!ss)
                return -ENOMEM;
        if (in->n_input_roles > 0 || in->n_output_roles > 0) {
                serving_handle_t *h = serving__handle_find(ss, in->handle);

                if (!h)
                        return daemon_request_errorf(rq, -ENOENT, "no model handle %" PRIu64 " on this connection",
                                                     in->handle);
                for (size_t k = 0; k < in->n_input_roles; k++) {
                        int32_t i = in->input_roles[k];

                        if (i < 0 || i >= h->instance->n_inputs)
                                return daemon_request_errorf(rq, -EINVAL, "input role %d out of range (%d inputs)", i,
                                                             h->instance->n_inputs);
                        size = h->instance->inputs[i].bytes > size ? h->instance->inputs[i].bytes : size;
                }
                for (size_t k = 0; k < in->n_output_roles; k++) {
                        int32_t i = in->output_roles[k];

                        if (i < 0 || i >= h->instance->n_outputs)
                                return daemon_request_errorf(rq, -EINVAL, "output role %d out of range (%d outputs)",
                                                             i, h->instance->n_outputs);
                        size = h->instance->outputs[i].bytes > size ? h->instance->outputs[i].bytes : size;
                }
                if (in->has_size && in->size != 0 && in->size < size)
                        return daemon_request_errorf(rq, -EINVAL,
                                                     "size %" PRIu64 " is smaller than the roles need (%" PRIu64 ")",
                                                     in->size, size);
        }
        if (in->has_size && in->size > size)
                size = in->size;
        if (size == 0 || size > BUFFER_MAX_BYTES)
                return daemon_request_errorf(rq, -EINVAL, "a buffer needs roles or a size of 1 byte .. 4 GiB");
        fd = memfd_create("acceld-buffer", MFD_CLOEXEC | MFD_ALLOW_SEALING);
        if (fd < 0)
                return -errno;
        if (ftruncate(fd, (off_t) size) < 0 ||
            fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) < 0) {
                r = -errno;
                (void) close(fd);
                return r;
        }
        r = buffer_add(rq, ss, fd, (size_t) size, &b);
        if (r < 0) {
                (void) close(fd);
                return r;
        }
        out = daemon_request_alloc(rq, sizeof(*out));
        if (!out)
                return -ENOMEM;
        acceld__allocate_buffer_response__init(out);
        out->has_buffer = out->has_size = 1;
        out->buffer = b->id;
        out->size = b->size;
        /* The client gets its own fd (dup'ed by the writer). */
        rq->out_fds[0] = dup(b->fd);
        if (rq->out_fds[0] < 0)
                return -errno;
        rq->n_out_fds = 1;
        rq->resp.body_case = ACCELD__RESPONSE__BODY_ALLOCATE_BUFFER;
        rq->resp.allocate_buffer = out;
        return 0;
}

/* ---- Cancel ---- */

int daemon_cancel_handle(daemon_request_t *rq) {
        const Acceld__CancelRequest *in = rq->req->cancel;
        serving_session_t *ss = rq->conn->session;
        Acceld__CancelResponse *out = daemon_request_alloc(rq, sizeof(*out));
        bool cancelled = false;

        if (!out)
                return -ENOMEM;
        for (serving_job_t *j = ss ? ss->jobs : NULL; j; j = j->next)
                if (j->job.request_id == in->target_request_id) {
                        cancelled = daemon_sched_cancel(&ss->sv->sched, &j->job);
                        break;
                }
        acceld__cancel_response__init(out);
        out->has_cancelled = 1;
        out->cancelled = cancelled;
        rq->resp.body_case = ACCELD__RESPONSE__BODY_CANCEL;
        rq->resp.cancel = out;
        return 0;
}
