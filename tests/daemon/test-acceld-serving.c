/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Integration: serving against the real acceld (the acceld-test build, which
 * adds the AcceldTestGate op) over a real socket, with hand-made frames so
 * every field and error path is reachable: PrepareModel (bytes, fd),
 * sharing, Execute (inline and shared-memory regions), buffers, Cancel,
 * priorities and deadlines, per-uid limits, disconnects.
 */
#include <errno.h>
#include <poll.h>
#include <fcntl.h>
#include <grp.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <check.h>
#include <json-c/json.h>

#include "file-read.h"
#include "accel/accel.h"
#include "acceleration.pb-c.h"
#include "golden.h"
#include "harness-frames.h"
#include "harness.h"
#include "ipc.h"
#include "tflite-builder.h"
#include "tfb-models.h"

static harness_daemon_t d;

static void setup(void) {
        harness_up(&d);
}

static void setup_one_worker(void) {
        static const char *const args[] = { "--worker-threads", "1", NULL };

        harness_up_with(&d, args, true);
}

static void setup_limits(void) {
        static const char *const args[] = { "--max-models-per-uid", "1", "--max-registered-bytes-per-uid", "8192",
                                            "--max-queued-per-uid", "1", "--worker-threads", "1", NULL };

        harness_up_with(&d, args, true);
}

static void start_gated(const char *const *args) {
        harness_up_with(&d, args, true);
}

static void setup_two_workers(void) {
        static const char *const args[] = { "--worker-threads", "2", "--instance-concurrency", "1", NULL };

        start_gated(args);
}

/* One worker, so executions queue behind a gated one; batching off by
 * default (models turn it on at prepare). */
static void setup_batching(void) {
        static const char *const args[] = { "--worker-threads", "1", NULL };

        start_gated(args);
}

/* instance_concurrency left at its default (0: one per worker thread). */
static void setup_two_workers_default(void) {
        static const char *const args[] = { "--worker-threads", "2", NULL };

        start_gated(args);
}

static void setup_small_frames(void) {
        static const char *const args[] = { "--max-model-bytes", "1024", "--max-frame-bytes", "65536", NULL };

        harness_up_with(&d, args, false);
}

static void teardown(void) {
        harness_cleanup(&d);
}

/* ---- frames (harness-frames.h) ---- */

typedef harness_client_t client_t;
#define client_open(c) harness_client_open((c), d.sock)
#define client_close harness_client_close
#define send_req harness_send
#define recv_resp harness_recv
#define resp_free harness_resp_free
#define transact harness_transact

/* ---- models ---- */

/* out = in * 2 + 1 on float[1,4] (tfb-models.h). */
static uint8_t *model_affine(size_t *size) {
        uint8_t *bytes = tfb_model_affine(size);
        ck_assert_ptr_nonnull(bytes);
        return bytes;
}

/* One custom op `name` on float[1,4]. */
static uint8_t *model_custom(const char *name, size_t *size) {
        tfb_t *b = tfb_new();
        int32_t in = tfb_tensor(b, RT_TYPE_FLOAT32, "in", 2, TFB_DIMS(1, 4));
        int32_t out = tfb_tensor(b, RT_TYPE_FLOAT32, "out", 2, TFB_DIMS(1, 4));
        uint8_t *bytes;

        tfb_op_add(b, &(tfb_op_t) { .opcode = tfb_opcode_custom(b, name, 1), .inputs = TFB_IDS(in), .n_inputs = 1,
                                    .outputs = TFB_IDS(out), .n_outputs = 1 });
        tfb_io(b, TFB_IDS(in), 1, TFB_IDS(out), 1);
        bytes = tfb_finish(b, size);
        tfb_free(b);
        ck_assert_ptr_nonnull(bytes);
        return bytes;
}

/* in -> name1 -> MUL(x, x) -> name2 -> out: two unresolved nodes around a builtin one. */
static uint8_t *model_two_custom(const char *name1, const char *name2, size_t *size) {
        tfb_t *b = tfb_new();
        int32_t in = tfb_tensor(b, RT_TYPE_FLOAT32, "in", 2, TFB_DIMS(1, 4));
        int32_t t1 = tfb_tensor(b, RT_TYPE_FLOAT32, "t1", 2, TFB_DIMS(1, 4));
        int32_t t2 = tfb_tensor(b, RT_TYPE_FLOAT32, "t2", 2, TFB_DIMS(1, 4));
        int32_t out = tfb_tensor(b, RT_TYPE_FLOAT32, "out", 2, TFB_DIMS(1, 4));
        uint8_t *bytes;

        tfb_op_add(b, &(tfb_op_t) { .opcode = tfb_opcode_custom(b, name1, 1), .inputs = TFB_IDS(in), .n_inputs = 1,
                                    .outputs = TFB_IDS(t1), .n_outputs = 1 });
        tfb_op_add(b, &(tfb_op_t) { .opcode = tfb_opcode_builtin(b, RT_BUILTIN_MUL, 1), .inputs = TFB_IDS(t1, t1), .n_inputs = 2,
                                    .outputs = TFB_IDS(t2), .n_outputs = 1 });
        tfb_op_add(b, &(tfb_op_t) { .opcode = tfb_opcode_custom(b, name2, 1), .inputs = TFB_IDS(t2), .n_inputs = 1,
                                    .outputs = TFB_IDS(out), .n_outputs = 1 });
        tfb_io(b, TFB_IDS(in), 1, TFB_IDS(out), 1);
        bytes = tfb_finish(b, size);
        tfb_free(b);
        ck_assert_ptr_nonnull(bytes);
        return bytes;
}

static const char *settings_none = "{\"delegate\": \"NONE\"}";

static Acceld__Response *prepare_bytes(client_t *c, const uint8_t *bytes, size_t size) {
        Acceld__Request req = ACCELD__REQUEST__INIT;
        Acceld__PrepareModelRequest p = ACCELD__PREPARE_MODEL_REQUEST__INIT;

        p.has_model = 1;
        p.model.data = (uint8_t *) bytes;
        p.model.len = size;
        p.settings_json = (char *) settings_none;
        req.body_case = ACCELD__REQUEST__BODY_PREPARE_MODEL;
        req.prepare_model = &p;
        return transact(c, &req, NULL, 0);
}

static uint64_t prepare_ok(client_t *c, const uint8_t *bytes, size_t size, bool want_shared) {
        Acceld__Response *r = prepare_bytes(c, bytes, size);
        uint64_t h;

        ck_assert_msg(r->status == ACCELD__STATUS__NONE, "prepare: %s", r->message);
        ck_assert_int_eq(r->body_case, ACCELD__RESPONSE__BODY_PREPARE_MODEL);
        ck_assert_int_eq(r->prepare_model->shared, want_shared);
        h = r->prepare_model->handle;
        ck_assert_uint_gt(h, 0);
        resp_free(r);
        return h;
}

static uint64_t send_execute(client_t *c, uint64_t handle, const float *in, size_t n, int priority, uint64_t deadline_us) {
        Acceld__Request req = ACCELD__REQUEST__INIT;
        Acceld__ExecuteRequest e = ACCELD__EXECUTE_REQUEST__INIT;
        Acceld__TensorData td = ACCELD__TENSOR_DATA__INIT, *tds[1] = { &td };

        td.has_data = 1;
        td.data.data = (uint8_t *) in;
        td.data.len = n * sizeof(float);
        e.has_handle = 1;
        e.handle = handle;
        e.n_inputs = 1;
        e.inputs = tds;
        if (priority) {
                e.has_priority = 1;
                e.priority = priority;
        }
        if (deadline_us) {
                e.has_deadline_us = 1;
                e.deadline_us = deadline_us;
        }
        req.body_case = ACCELD__REQUEST__BODY_EXECUTE;
        req.execute = &e;
        return send_req(c, &req, NULL, 0);
}

static Acceld__ServingStatus *status_get(client_t *c, Acceld__Response **keep) {
        Acceld__Request req = ACCELD__REQUEST__INIT;
        Acceld__GetStatusRequest g = ACCELD__GET_STATUS_REQUEST__INIT;
        Acceld__Response *r;

        req.body_case = ACCELD__REQUEST__BODY_GET_STATUS;
        req.get_status = &g;
        r = transact(c, &req, NULL, 0);
        ck_assert_int_eq(r->status, ACCELD__STATUS__NONE);
        ck_assert_ptr_nonnull(r->get_status->serving);
        *keep = r;
        return r->get_status->serving;
}

/* Poll GetStatus until `running` requests run and `queued` wait. */
static void wait_counts(client_t *c, unsigned running, unsigned queued) {
        for (int i = 0; i < 500; i++) {
                Acceld__Response *keep;
                Acceld__ServingStatus *st = status_get(c, &keep);
                bool ok = st->running_requests == running && st->queued_requests == queued;

                resp_free(keep);
                if (ok)
                        return;
                usleep(2000);
        }
        ck_abort_msg("never saw %u running and %u queued", running, queued);
}

/* A worker counts as running before it has built its interpreter: wait
 * for the interpreter count too (slow under the sanitizers). */
static void wait_interpreters(client_t *c, unsigned n) {
        for (int i = 0; i < 2500; i++) {
                Acceld__Response *keep;
                bool ok = status_get(c, &keep)->interpreters == n;

                resp_free(keep);
                if (ok)
                        return;
                usleep(2000);
        }
        ck_abort_msg("never saw %u interpreters", n);
}

static int sealed_memfd(size_t size) {
        int fd = memfd_create("test-region", MFD_CLOEXEC | MFD_ALLOW_SEALING);

        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(ftruncate(fd, (off_t) size), 0);
        ck_assert_int_eq(fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW), 0);
        return fd;
}

static uint64_t register_ok(client_t *c, int fd) {
        Acceld__Request req = ACCELD__REQUEST__INIT;
        Acceld__RegisterBufferRequest rb = ACCELD__REGISTER_BUFFER_REQUEST__INIT;
        Acceld__Response *r;
        uint64_t id;

        rb.has_fd = 1;
        rb.fd = 0;
        req.body_case = ACCELD__REQUEST__BODY_REGISTER_BUFFER;
        req.register_buffer = &rb;
        r = transact(c, &req, &fd, 1);
        ck_assert_msg(r->status == ACCELD__STATUS__NONE, "register: %s", r->message);
        id = r->register_buffer->buffer;
        resp_free(r);
        return id;
}

/* ---- tests ---- */

START_TEST(test_serving_prepare_execute_inline) {
        client_t c;
        size_t size;
        uint8_t *m = model_affine(&size);
        float in[4] = { 0, 1, -2, 3.5f };
        Acceld__Response *r;
        uint64_t h, id;

        client_open(&c);
        r = prepare_bytes(&c, m, size);
        ck_assert_msg(r->status == ACCELD__STATUS__NONE, "%s", r->message);
        ck_assert_int_eq(r->prepare_model->shared, 0);
        ck_assert_uint_eq(r->prepare_model->n_inputs, 1);
        ck_assert_str_eq(r->prepare_model->inputs[0]->name, "in");
        ck_assert_uint_eq(r->prepare_model->inputs[0]->bytes, 16);
        ck_assert_uint_eq(r->prepare_model->outputs[0]->n_shape, 2);
        ck_assert_int_eq(r->prepare_model->outputs[0]->shape[1], 4);
        ck_assert_uint_eq(strlen(r->prepare_model->sha256), 64);
        ck_assert_uint_ge(r->prepare_model->n_partitions, 1);
        ck_assert_str_eq(r->prepare_model->partitions[0]->driver, "reference");
        h = r->prepare_model->handle;
        resp_free(r);

        id = send_execute(&c, h, in, 4, 0, 0);
        r = recv_resp(&c);
        ck_assert_uint_eq(r->request_id, id);
        ck_assert_msg(r->status == ACCELD__STATUS__NONE, "%s", r->message);
        ck_assert_uint_eq(r->execute->n_outputs, 1);
        ck_assert_uint_eq(r->execute->outputs[0]->data.len, 16);
        {
                float out[4];

                memcpy(out, r->execute->outputs[0]->data.data, 16);
                ck_assert_float_eq(out[0], 1.0f);
                ck_assert_float_eq(out[1], 3.0f);
                ck_assert_float_eq(out[2], -3.0f);
                ck_assert_float_eq(out[3], 8.0f);
        }
        ck_assert_uint_eq(r->execute->n_output_shapes, 1);
        ck_assert_uint_eq(r->execute->output_shapes[0]->n_dims, 2);
        ck_assert(r->execute->has_queue_us && r->execute->has_compute_us);
        resp_free(r);
        client_close(&c);
        free(m);
}
END_TEST

START_TEST(test_serving_two_connections_share_one_instance) {
        client_t a, b;
        size_t size;
        uint8_t *m = model_affine(&size);
        Acceld__Response *keep;
        Acceld__ServingStatus *st;
        Acceld__Request req = ACCELD__REQUEST__INIT;
        Acceld__ReleaseModelRequest rel = ACCELD__RELEASE_MODEL_REQUEST__INIT;
        Acceld__Response *r;
        uint64_t ha, hb;

        client_open(&a);
        client_open(&b);
        ha = prepare_ok(&a, m, size, false);
        hb = prepare_ok(&b, m, size, true);
        ck_assert_uint_ne(ha, hb);
        st = status_get(&a, &keep);
        ck_assert_uint_eq(st->compiled_instances, 1);
        ck_assert_uint_eq(st->prepared_models, 2);
        resp_free(keep);

        /* b cannot use or release a's handle. */
        rel.has_handle = 1;
        rel.handle = ha;
        req.body_case = ACCELD__REQUEST__BODY_RELEASE_MODEL;
        req.release_model = &rel;
        r = transact(&b, &req, NULL, 0);
        ck_assert_int_eq(r->status, ACCELD__STATUS__NOT_FOUND);
        resp_free(r);
        {
                float in[4] = { 0 };
                uint64_t id = send_execute(&b, ha, in, 4, 0, 0);

                r = recv_resp(&b);
                ck_assert_uint_eq(r->request_id, id);
                ck_assert_int_eq(r->status, ACCELD__STATUS__NOT_FOUND);
                resp_free(r);
        }

        /* Releasing one keeps the instance; the second frees it. */
        r = transact(&a, &req, NULL, 0);
        ck_assert_int_eq(r->status, ACCELD__STATUS__NONE);
        resp_free(r);
        st = status_get(&a, &keep);
        ck_assert_uint_eq(st->compiled_instances, 1);
        ck_assert_uint_eq(st->prepared_models, 1);
        resp_free(keep);
        rel.handle = hb;
        r = transact(&b, &req, NULL, 0);
        ck_assert_int_eq(r->status, ACCELD__STATUS__NONE);
        resp_free(r);
        st = status_get(&a, &keep);
        ck_assert_uint_eq(st->compiled_instances, 0);
        ck_assert_uint_eq(st->prepared_models, 0);
        resp_free(keep);
        client_close(&a);
        client_close(&b);
        free(m);
}
END_TEST

START_TEST(test_serving_malformed_model_gives_reader_message) {
        client_t c;
        size_t size;
        uint8_t *m = model_affine(&size);
        char err[512] = "";
        rt_model_t *rm = NULL;
        Acceld__Response *r;

        /* Break a vtable offset the verifier checks. */
        size = size / 2;
        ck_assert_int_eq(rt_model_load_buffer(m, size, true, &rm, err, sizeof(err)), -EINVAL);
        client_open(&c);
        r = prepare_bytes(&c, m, size);
        ck_assert_int_eq(r->status, ACCELD__STATUS__INVALID_ARGUMENT);
        ck_assert_str_eq(r->message, err);
        resp_free(r);
        client_close(&c);
        free(m);
}
END_TEST

START_TEST(test_serving_unknown_custom_op_is_named) {
        client_t c;
        size_t size;
        uint8_t *m = model_custom("NoSuchOpXyz", &size);
        Acceld__Response *r;

        client_open(&c);
        r = prepare_bytes(&c, m, size);
        ck_assert_int_eq(r->status, ACCELD__STATUS__INVALID_ARGUMENT);
        ck_assert_msg(strstr(r->message, "NoSuchOpXyz") != NULL, "message: %s", r->message);
        resp_free(r);
        client_close(&c);
        free(m);
}
END_TEST

START_TEST(test_serving_execute_errors) {
        client_t c;
        size_t size;
        uint8_t *m = model_affine(&size);
        float in[5] = { 0 };
        Acceld__Response *r;
        uint64_t h, id;

        client_open(&c);
        h = prepare_ok(&c, m, size, false);
        /* Wrong input size. */
        id = send_execute(&c, h, in, 5, 0, 0);
        r = recv_resp(&c);
        ck_assert_uint_eq(r->request_id, id);
        ck_assert_int_eq(r->status, ACCELD__STATUS__INVALID_ARGUMENT);
        ck_assert_str_eq(r->message, "input 0 ('in') needs 16 bytes, got 20");
        resp_free(r);
        /* Unknown handle. */
        id = send_execute(&c, h + 100, in, 4, 0, 0);
        r = recv_resp(&c);
        ck_assert_int_eq(r->status, ACCELD__STATUS__NOT_FOUND);
        resp_free(r);
        /* Wrong input count. */
        {
                Acceld__Request req = ACCELD__REQUEST__INIT;
                Acceld__ExecuteRequest e = ACCELD__EXECUTE_REQUEST__INIT;

                e.has_handle = 1;
                e.handle = h;
                req.body_case = ACCELD__REQUEST__BODY_EXECUTE;
                req.execute = &e;
                r = transact(&c, &req, NULL, 0);
                ck_assert_int_eq(r->status, ACCELD__STATUS__INVALID_ARGUMENT);
                ck_assert_str_eq(r->message, "the model has 1 input, the request gives 0");
                resp_free(r);
        }
        /* A PrepareModel with no source. */
        {
                Acceld__Request req = ACCELD__REQUEST__INIT;
                Acceld__PrepareModelRequest p = ACCELD__PREPARE_MODEL_REQUEST__INIT;

                req.body_case = ACCELD__REQUEST__BODY_PREPARE_MODEL;
                req.prepare_model = &p;
                r = transact(&c, &req, NULL, 0);
                ck_assert_int_eq(r->status, ACCELD__STATUS__INVALID_ARGUMENT);
                resp_free(r);
                /* Bad settings JSON. */
                p.has_model = 1;
                p.model.data = m;
                p.model.len = size;
                p.settings_json = (char *) "{\"delegate\": 5";
                r = transact(&c, &req, NULL, 0);
                ck_assert_int_eq(r->status, ACCELD__STATUS__INVALID_ARGUMENT);
                ck_assert_msg(strncmp(r->message, "settings_json: ", 15) == 0, "%s", r->message);
                resp_free(r);
                /* model_fd naming an fd that was not sent. */
                p.has_model = 0;
                p.settings_json = NULL;
                p.has_model_fd = 1;
                p.model_fd = 0;
                r = transact(&c, &req, NULL, 0);
                ck_assert_int_eq(r->status, ACCELD__STATUS__INVALID_ARGUMENT);
                resp_free(r);
        }
        client_close(&c);
        free(m);
}
END_TEST

START_TEST(test_serving_fd_count_mismatch_is_protocol_error) {
        client_t c;
        Acceld__Request req = ACCELD__REQUEST__INIT;
        Acceld__RegisterBufferRequest rb = ACCELD__REGISTER_BUFFER_REQUEST__INIT;
        Acceld__Response *r;

        client_open(&c);
        req.body_case = ACCELD__REQUEST__BODY_REGISTER_BUFFER;
        req.register_buffer = &rb;
        req.has_num_fds = 1;
        req.num_fds = 2;   /* none sent */
        req.has_request_id = 1;
        req.request_id = 7;
        ck_assert_int_eq(ipc_send(c.fd, &req.base, NULL, 0), 0);
        r = recv_resp(&c);
        ck_assert_int_eq(r->status, ACCELD__STATUS__PROTOCOL_ERROR);
        ck_assert_str_eq(r->message, "num_fds does not match the fds received");
        resp_free(r);
        client_close(&c);
}
END_TEST

START_TEST(test_serving_prepare_from_fd_and_shm_execute) {
        client_t c;
        size_t size;
        uint8_t *m = model_affine(&size);
        int mfd = memfd_create("model", MFD_CLOEXEC), bfd;
        uint64_t h, buf;
        Acceld__Response *r;
        float *map;

        ck_assert_int_ge(mfd, 0);
        ck_assert_int_eq(write(mfd, m, size), (ssize_t) size);
        client_open(&c);
        {
                Acceld__Request req = ACCELD__REQUEST__INIT;
                Acceld__PrepareModelRequest p = ACCELD__PREPARE_MODEL_REQUEST__INIT;

                p.has_model_fd = 1;
                p.model_fd = 0;
                p.settings_json = (char *) settings_none;
                req.body_case = ACCELD__REQUEST__BODY_PREPARE_MODEL;
                req.prepare_model = &p;
                r = transact(&c, &req, &mfd, 1);
                ck_assert_msg(r->status == ACCELD__STATUS__NONE, "%s", r->message);
                h = r->prepare_model->handle;
                resp_free(r);
        }
        /* The same bytes inline share the fd's instance. */
        (void) prepare_ok(&c, m, size, true);

        bfd = sealed_memfd(4096);
        map = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, bfd, 0);
        ck_assert_ptr_ne(map, MAP_FAILED);
        map[0] = 1, map[1] = 2, map[2] = 3, map[3] = 4;
        buf = register_ok(&c, bfd);
        {
                Acceld__Request req = ACCELD__REQUEST__INIT;
                Acceld__ExecuteRequest e = ACCELD__EXECUTE_REQUEST__INIT;
                Acceld__TensorData ti = ACCELD__TENSOR_DATA__INIT, to = ACCELD__TENSOR_DATA__INIT;
                Acceld__TensorData *tis[1] = { &ti }, *tos[1] = { &to };

                ti.has_buffer = ti.has_offset = ti.has_length = 1;
                ti.buffer = buf, ti.offset = 0, ti.length = 16;
                to.has_buffer = to.has_offset = to.has_length = 1;
                to.buffer = buf, to.offset = 1024, to.length = 16;
                e.has_handle = 1, e.handle = h;
                e.n_inputs = 1, e.inputs = tis;
                e.n_outputs = 1, e.outputs = tos;
                req.body_case = ACCELD__REQUEST__BODY_EXECUTE;
                req.execute = &e;
                r = transact(&c, &req, NULL, 0);
                ck_assert_msg(r->status == ACCELD__STATUS__NONE, "%s", r->message);
                ck_assert_uint_eq(r->execute->n_outputs, 0);
                resp_free(r);
                ck_assert_float_eq(map[256], 3.0f);
                ck_assert_float_eq(map[259], 9.0f);

                /* A region past the end, then too small an output. */
                to.offset = 4090;
                r = transact(&c, &req, NULL, 0);
                ck_assert_int_eq(r->status, ACCELD__STATUS__INVALID_ARGUMENT);
                resp_free(r);
                to.offset = 0;
                to.length = 8;
                r = transact(&c, &req, NULL, 0);
                ck_assert_int_eq(r->status, ACCELD__STATUS__OUTPUT_INSUFFICIENT_SIZE);
                resp_free(r);
        }
        /* Unsealed memfds are refused. */
        {
                int u = memfd_create("unsealed", MFD_CLOEXEC);
                Acceld__Request req = ACCELD__REQUEST__INIT;
                Acceld__RegisterBufferRequest rb = ACCELD__REGISTER_BUFFER_REQUEST__INIT;

                ck_assert_int_eq(ftruncate(u, 4096), 0);
                req.body_case = ACCELD__REQUEST__BODY_REGISTER_BUFFER;
                req.register_buffer = &rb;
                r = transact(&c, &req, &u, 1);
                ck_assert_int_eq(r->status, ACCELD__STATUS__INVALID_ARGUMENT);
                ck_assert_str_eq(r->message, "the buffer must be a memfd sealed with F_SEAL_SHRINK");
                resp_free(r);
                (void) close(u);
        }
        /* Unregister, then the id is gone. */
        {
                Acceld__Request req = ACCELD__REQUEST__INIT;
                Acceld__UnregisterBufferRequest ub = ACCELD__UNREGISTER_BUFFER_REQUEST__INIT;

                ub.has_buffer = 1, ub.buffer = buf;
                req.body_case = ACCELD__REQUEST__BODY_UNREGISTER_BUFFER;
                req.unregister_buffer = &ub;
                r = transact(&c, &req, NULL, 0);
                ck_assert_int_eq(r->status, ACCELD__STATUS__NONE);
                resp_free(r);
                r = transact(&c, &req, NULL, 0);
                ck_assert_int_eq(r->status, ACCELD__STATUS__NOT_FOUND);
                resp_free(r);
        }
        (void) munmap(map, 4096);
        (void) close(bfd);
        (void) close(mfd);
        client_close(&c);
        free(m);
}
END_TEST

START_TEST(test_serving_allocate_buffer_sized_by_roles) {
        client_t c;
        size_t size;
        uint8_t *m = model_affine(&size);
        Acceld__Request req = ACCELD__REQUEST__INIT;
        Acceld__AllocateBufferRequest ab = ACCELD__ALLOCATE_BUFFER_REQUEST__INIT;
        Acceld__Response *r;
        int32_t roles[1] = { 0 };
        int fd;
        struct stat st;

        client_open(&c);
        ab.has_handle = 1;
        ab.handle = prepare_ok(&c, m, size, false);
        ab.n_input_roles = 1;
        ab.input_roles = roles;
        req.body_case = ACCELD__REQUEST__BODY_ALLOCATE_BUFFER;
        req.allocate_buffer = &ab;
        r = transact(&c, &req, NULL, 0);
        ck_assert_msg(r->status == ACCELD__STATUS__NONE, "%s", r->message);
        ck_assert_uint_eq(r->allocate_buffer->size, 16);
        ck_assert_uint_eq(r->num_fds, 1);
        ck_assert_int_eq(ipc_reader_take_fds(&c.r, &fd, 1), 0);
        ck_assert_int_eq(fstat(fd, &st), 0);
        ck_assert_int_eq(st.st_size, 16);
        resp_free(r);
        (void) close(fd);
        roles[0] = 3;
        r = transact(&c, &req, NULL, 0);
        ck_assert_int_eq(r->status, ACCELD__STATUS__INVALID_ARGUMENT);
        ck_assert_str_eq(r->message, "input role 3 out of range (1 inputs)");
        resp_free(r);
        client_close(&c);
        free(m);
}
END_TEST

/* Golden outputs of a real model through the inline and the shm path. */
START_TEST(test_serving_mobilenet_golden_inline_and_shm) {
        const char *shared = golden_shared_dir();
        golden_manifest_t *man = NULL;
        const golden_model_t *g;
        char err[256];
        void *model, *input, *want;
        size_t model_size, in_size, want_size;
        client_t c;
        uint64_t h;
        Acceld__Response *r;

        if (!shared || golden_manifest_load(shared, &man, err, sizeof(err)) < 0) {
                fprintf(stderr, "skipped: no ../shared models\n");
                return;
        }
        g = golden_manifest_find(man, "mobilenet_v1_0.25_224_float");
        ck_assert_ptr_nonnull(g);
        ck_assert_int_eq(acc_file_read(g->path, &model, &model_size), 0);
        ck_assert_int_eq(acc_file_read(g->inputs[0].path, &input, &in_size), 0);
        ck_assert_int_eq(acc_file_read(g->outputs[0].path, &want, &want_size), 0);
        client_open(&c);
        h = prepare_ok(&c, model, model_size, false);
        {
                uint64_t id = send_execute(&c, h, input, in_size / 4, 0, 0);
                golden_result_t res;

                r = recv_resp(&c);
                ck_assert_uint_eq(r->request_id, id);
                ck_assert_msg(r->status == ACCELD__STATUS__NONE, "%s", r->message);
                ck_assert_int_eq(golden_compare(&g->outputs[0], GOLDEN_TOL_REFERENCE, r->execute->outputs[0]->data.data,
                                                r->execute->outputs[0]->data.len, want, want_size, &res), 0);
                ck_assert_msg(res.pass, "inline: %s", res.message);
                resp_free(r);
        }
        {
                size_t region = 1 << 20;
                int bfd = sealed_memfd(region);
                uint8_t *map = mmap(NULL, region, PROT_READ | PROT_WRITE, MAP_SHARED, bfd, 0);
                uint64_t buf = register_ok(&c, bfd);
                Acceld__Request req = ACCELD__REQUEST__INIT;
                Acceld__ExecuteRequest e = ACCELD__EXECUTE_REQUEST__INIT;
                Acceld__TensorData ti = ACCELD__TENSOR_DATA__INIT, to = ACCELD__TENSOR_DATA__INIT;
                Acceld__TensorData *tis[1] = { &ti }, *tos[1] = { &to };
                golden_result_t res;

                memcpy(map, input, in_size);
                ti.has_buffer = ti.has_offset = ti.has_length = 1;
                ti.buffer = buf, ti.offset = 0, ti.length = in_size;
                to.has_buffer = to.has_offset = to.has_length = 1;
                to.buffer = buf, to.offset = in_size, to.length = want_size;
                e.has_handle = 1, e.handle = h;
                e.n_inputs = 1, e.inputs = tis;
                e.n_outputs = 1, e.outputs = tos;
                req.body_case = ACCELD__REQUEST__BODY_EXECUTE;
                req.execute = &e;
                r = transact(&c, &req, NULL, 0);
                ck_assert_msg(r->status == ACCELD__STATUS__NONE, "%s", r->message);
                ck_assert_int_eq(golden_compare(&g->outputs[0], GOLDEN_TOL_REFERENCE, map + in_size, want_size, want,
                                                want_size, &res), 0);
                ck_assert_msg(res.pass, "shm: %s", res.message);
                resp_free(r);
                (void) munmap(map, region);
                (void) close(bfd);
        }
        client_close(&c);
        free(model);
        free(input);
        free(want);
        golden_manifest_free(man);
}
END_TEST

static void gate_open(void) {
        char path[400];
        int fd;

        (void) snprintf(path, sizeof(path), "%s/gate", d.dir);
        fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
        ck_assert_int_ge(fd, 0);
        (void) close(fd);
}

/* With one worker held by the gate op, queued executes run by priority,
 * then deadline; one whose deadline passes while queued is not run. */
START_TEST(test_serving_priority_order_and_deadline) {
        client_t c;
        size_t gsize, asize;
        uint8_t *gm = model_custom("AcceldTestGate", &gsize), *am = model_affine(&asize);
        float in[4] = { 1, 2, 3, 4 };
        uint64_t hg, ha, id_gate, id_low, id_high, id_med, id_dl, id_high2;
        uint64_t order[5];
        Acceld__Response *r;
        int status_dl = -1;

        client_open(&c);
        hg = prepare_ok(&c, gm, gsize, false);
        ha = prepare_ok(&c, am, asize, false);
        id_gate = send_execute(&c, hg, in, 4, 0, 0);
        wait_counts(&c, 1, 0);
        id_low = send_execute(&c, ha, in, 4, ACCELD__PRIORITY__PRIORITY_LOW, 0);
        id_med = send_execute(&c, ha, in, 4, ACCELD__PRIORITY__PRIORITY_MEDIUM, 0);
        id_high = send_execute(&c, ha, in, 4, ACCELD__PRIORITY__PRIORITY_HIGH, 0);
        id_high2 = send_execute(&c, ha, in, 4, ACCELD__PRIORITY__PRIORITY_HIGH, 60000000);
        id_dl = send_execute(&c, ha, in, 4, ACCELD__PRIORITY__PRIORITY_HIGH, 1000);
        /* Requests are read in order, so once GetStatus shows them they
         * are all queued behind the gate. */
        wait_counts(&c, 1, 5);
        usleep(20000);   /* past id_dl's 1 ms deadline */
        gate_open();

        r = recv_resp(&c);
        ck_assert_uint_eq(r->request_id, id_gate);
        ck_assert_int_eq(r->status, ACCELD__STATUS__NONE);
        resp_free(r);
        for (int k = 0; k < 5; k++) {
                r = recv_resp(&c);
                order[k] = r->request_id;
                if (r->request_id == id_dl)
                        status_dl = r->status;
                else
                        ck_assert_msg(r->status == ACCELD__STATUS__NONE, "%s", r->message);
                resp_free(r);
        }
        /* HIGH with the earlier deadline first (the expired one), then HIGH
         * with a deadline, HIGH without, MEDIUM, LOW. */
        ck_assert_uint_eq(order[0], id_dl);
        ck_assert_int_eq(status_dl, ACCELD__STATUS__MISSED_DEADLINE_TRANSIENT);
        ck_assert_uint_eq(order[1], id_high2);
        ck_assert_uint_eq(order[2], id_high);
        ck_assert_uint_eq(order[3], id_med);
        ck_assert_uint_eq(order[4], id_low);
        client_close(&c);
        free(gm);
        free(am);
}
END_TEST

START_TEST(test_serving_cancel_queued_execute) {
        client_t c;
        size_t gsize;
        uint8_t *gm = model_custom("AcceldTestGate", &gsize);
        float in[4] = { 1, 2, 3, 4 };
        uint64_t hg, id_gate, id_q, id_cancel;
        Acceld__Request req = ACCELD__REQUEST__INIT;
        Acceld__CancelRequest cr = ACCELD__CANCEL_REQUEST__INIT;
        Acceld__Response *r;

        client_open(&c);
        hg = prepare_ok(&c, gm, gsize, false);
        id_gate = send_execute(&c, hg, in, 4, 0, 0);
        wait_counts(&c, 1, 0);
        id_q = send_execute(&c, hg, in, 4, 0, 0);
        cr.has_target_request_id = 1;
        cr.target_request_id = id_q;
        req.body_case = ACCELD__REQUEST__BODY_CANCEL;
        req.cancel = &cr;
        id_cancel = send_req(&c, &req, NULL, 0);
        /* The cancelled execute answers first, then Cancel itself. */
        r = recv_resp(&c);
        ck_assert_uint_eq(r->request_id, id_q);
        ck_assert_int_ne(r->status, ACCELD__STATUS__NONE);
        ck_assert_str_eq(r->message, "cancelled");
        resp_free(r);
        r = recv_resp(&c);
        ck_assert_uint_eq(r->request_id, id_cancel);
        ck_assert_int_eq(r->cancel->cancelled, 1);
        resp_free(r);
        /* Cancelling the running one is too late. */
        cr.target_request_id = id_gate;
        r = transact(&c, &req, NULL, 0);
        ck_assert_int_eq(r->cancel->cancelled, 0);
        resp_free(r);
        gate_open();
        r = recv_resp(&c);
        ck_assert_uint_eq(r->request_id, id_gate);
        ck_assert_int_eq(r->status, ACCELD__STATUS__NONE);
        resp_free(r);
        client_close(&c);
        free(gm);
}
END_TEST

START_TEST(test_serving_disconnect_mid_execute_releases_everything) {
        client_t a, b;
        size_t gsize;
        uint8_t *gm = model_custom("AcceldTestGate", &gsize);
        float in[4] = { 1, 2, 3, 4 };
        Acceld__Response *keep;
        Acceld__ServingStatus *st;
        uint64_t hg;

        client_open(&a);
        client_open(&b);
        hg = prepare_ok(&a, gm, gsize, false);
        (void) register_ok(&a, sealed_memfd(4096));
        (void) send_execute(&a, hg, in, 4, 0, 0);   /* runs, held by the gate */
        wait_counts(&a, 1, 0);
        (void) send_execute(&a, hg, in, 4, 0, 0);   /* queued */
        (void) send_execute(&a, hg, in, 4, 0, 0);   /* queued */
        wait_counts(&a, 1, 2);
        st = status_get(&a, &keep);
        ck_assert_uint_eq(st->running_requests, 1);
        ck_assert_uint_eq(st->queued_requests, 2);
        ck_assert_uint_eq(st->prepared_models, 1);
        ck_assert_uint_eq(st->registered_buffers, 1);
        resp_free(keep);
        client_close(&a);
        /* The queued work goes at once; the running one when the gate opens. */
        for (int i = 0; i < 200; i++) {
                st = status_get(&b, &keep);
                bool gone = st->queued_requests == 0 && st->prepared_models == 0 && st->registered_buffers == 0;

                resp_free(keep);
                if (gone)
                        break;
                usleep(10000);
        }
        st = status_get(&b, &keep);
        ck_assert_uint_eq(st->queued_requests, 0);
        ck_assert_uint_eq(st->prepared_models, 0);
        ck_assert_uint_eq(st->registered_buffers, 0);
        ck_assert_uint_eq(st->running_requests, 1);
        resp_free(keep);
        gate_open();
        for (int i = 0; i < 200; i++) {
                st = status_get(&b, &keep);
                bool gone = st->running_requests == 0 && st->compiled_instances == 0;

                resp_free(keep);
                if (gone)
                        break;
                usleep(10000);
        }
        st = status_get(&b, &keep);
        ck_assert_uint_eq(st->running_requests, 0);
        ck_assert_uint_eq(st->compiled_instances, 0);
        ck_assert_uint_eq(st->caller->queued_requests, 0);
        ck_assert_uint_eq(st->caller->prepared_models, 0);
        ck_assert_uint_eq(st->caller->registered_bytes, 0);
        resp_free(keep);
        client_close(&b);
        free(gm);
}
END_TEST

START_TEST(test_serving_per_uid_limits) {
        client_t c;
        size_t gsize, asize;
        uint8_t *gm = model_custom("AcceldTestGate", &gsize), *am = model_affine(&asize);
        float in[4] = { 1, 2, 3, 4 };
        Acceld__Response *r, *keep;
        Acceld__ServingStatus *st;
        uint64_t hg, id;

        client_open(&c);
        hg = prepare_ok(&c, gm, gsize, false);
        r = prepare_bytes(&c, am, asize);
        ck_assert_int_eq(r->status, ACCELD__STATUS__RESOURCE_EXHAUSTED_PERSISTENT);
        resp_free(r);
        (void) register_ok(&c, sealed_memfd(8192));
        {
                int fd = sealed_memfd(4096);
                Acceld__Request req = ACCELD__REQUEST__INIT;
                Acceld__RegisterBufferRequest rb = ACCELD__REGISTER_BUFFER_REQUEST__INIT;

                req.body_case = ACCELD__REQUEST__BODY_REGISTER_BUFFER;
                req.register_buffer = &rb;
                r = transact(&c, &req, &fd, 1);
                ck_assert_int_eq(r->status, ACCELD__STATUS__RESOURCE_EXHAUSTED_PERSISTENT);
                resp_free(r);
        }
        (void) send_execute(&c, hg, in, 4, 0, 0);   /* held by the gate */
        wait_counts(&c, 1, 0);
        id = send_execute(&c, hg, in, 4, 0, 0);
        r = recv_resp(&c);
        ck_assert_uint_eq(r->request_id, id);
        ck_assert_int_eq(r->status, ACCELD__STATUS__RESOURCE_EXHAUSTED_TRANSIENT);
        resp_free(r);
        st = status_get(&c, &keep);
        ck_assert_uint_eq(st->uid_limits->max_prepared_models, 1);
        ck_assert_uint_eq(st->uid_limits->max_registered_bytes, 8192);
        ck_assert_uint_eq(st->uid_limits->max_queued_requests, 1);
        ck_assert_uint_eq(st->caller->uid, getuid());
        ck_assert_uint_eq(st->caller->prepared_models, 1);
        ck_assert_uint_eq(st->caller->registered_bytes, 8192);
        ck_assert_uint_eq(st->caller->queued_requests, 1);
        resp_free(keep);
        gate_open();
        r = recv_resp(&c);
        ck_assert_int_eq(r->status, ACCELD__STATUS__NONE);
        resp_free(r);
        client_close(&c);
        free(gm);
        free(am);
}
END_TEST

/* Run GetStatus as uid/gid 65534 in a child; 0 when answered, 1 when the
 * daemon closed the connection, 2 on other failures. */
static int status_as_nobody(void) {
        pid_t pid = fork();
        int st;

        ck_assert_int_ge(pid, 0);
        if (pid == 0) {
                client_t c;
                Acceld__Request req = ACCELD__REQUEST__INIT;
                Acceld__GetStatusRequest g = ACCELD__GET_STATUS_REQUEST__INIT;
                ProtobufCMessage *m = NULL;
                int r;

                if (setgid(65534) < 0 || setuid(65534) < 0)
                        _exit(2);
                c.fd = harness_connect(d.sock);
                if (c.fd < 0)
                        _exit(2);
                ipc_reader_init(&c.r, 0);
                req.body_case = ACCELD__REQUEST__BODY_GET_STATUS;
                req.get_status = &g;
                req.has_request_id = 1;
                req.request_id = 1;
                (void) ipc_send(c.fd, &req.base, NULL, 0);
                r = ipc_recv(c.fd, &c.r, &acceld__response__descriptor, &m);
                _exit(r == 0 ? 0 : r == -ECONNRESET ? 1 : 2);
        }
        ck_assert_int_eq(waitpid(pid, &st, 0), pid);
        ck_assert(WIFEXITED(st));
        return WEXITSTATUS(st);
}

static void start_with_config(const char *text) {
        static char cfg[400];
        const char *args[] = { "--config", cfg, "--socket-mode", "0666", NULL };
        FILE *f;

        harness_prepare(&d);
        (void) chmod(d.dir, 0755);
        (void) snprintf(cfg, sizeof(cfg), "%s/acceld.conf", d.dir);
        f = fopen(cfg, "w");
        ck_assert_ptr_nonnull(f);
        fputs(text, f);
        fclose(f);
        harness_start(&d, args, NULL, -1);
}

START_TEST(test_serving_allow_list_refuses_other_uids) {
        if (getuid() != 0) {
                fprintf(stderr, "skipped: needs root to connect as another uid\n");
                return;
        }
        start_with_config("allowed_uids = 12345, 23456\nallowed_gids = 34567\n");
        harness_wait_ready(&d, d.sock);
        ck_assert_int_eq(status_as_nobody(), 1);
}
END_TEST

START_TEST(test_serving_allow_list_admits_listed_uid) {
        if (getuid() != 0) {
                fprintf(stderr, "skipped: needs root to connect as another uid\n");
                return;
        }
        start_with_config("allowed_uids = 12345,65534\n");
        harness_wait_ready(&d, d.sock);
        ck_assert_int_eq(status_as_nobody(), 0);
}
END_TEST

START_TEST(test_serving_allow_list_bad_value_fails_start) {
        int st;

        start_with_config("allowed_uids = 12,abc\n");
        st = harness_wait_exit(&d);
        ck_assert(WIFEXITED(st));
        ck_assert_int_eq(WEXITSTATUS(st), 1);
}
END_TEST

static char *write_tmp_model(const uint8_t *m, size_t size) {
        return harness_write_file(&d, "model.tflite", m, size);
}

START_TEST(test_libaccel_interp_shm_inline_and_resize) {
        size_t size;
        uint8_t *m = model_affine(&size);
        char *path = write_tmp_model(m, size);
        accel_model_t *model = NULL;
        accel_interp_options_t *o = accel_interp_options_create();
        accel_interp_t *it = NULL, *it2 = NULL;
        float in[8] = { 1, 2, 3, 4, 5, 6, 7, 8 }, out[8];
        uint64_t q, c, t;

        ck_assert_int_eq(accel_model_create_from_file(path, &model), 0);
        ck_assert_int_eq(accel_interp_options_set_socket(o, d.sock), 0);
        ck_assert_int_eq(accel_interp_options_set_delegate(o, "NONE"), 0);
        ck_assert_msg(accel_interp_create(model, o, &it) == 0, "%s", accel_last_error());
        ck_assert(!accel_interp_shared(it));
        ck_assert_int_eq(accel_interp_input_count(it), 1);
        ck_assert_int_eq(accel_interp_output_count(it), 1);
        ck_assert_str_eq(accel_tensor_name(accel_interp_input_tensor(it, 0)), "in");
        ck_assert_int_eq(accel_tensor_type(accel_interp_input_tensor(it, 0)), ACCEL_TYPE_FLOAT32);
        ck_assert_ptr_null(accel_tensor_data(accel_interp_input_tensor(it, 0)));
        ck_assert_int_eq(accel_interp_invoke(it), -EINVAL);
        ck_assert_int_eq(accel_interp_allocate_tensors(it), 0);
        ck_assert_int_eq(accel_tensor_copy_from_buffer(accel_interp_input_tensor(it, 0), in, 16), 0);
        ck_assert_int_eq(accel_tensor_copy_from_buffer(accel_interp_input_tensor(it, 0), in, 12), -EINVAL);
        ck_assert_msg(accel_interp_invoke(it) == 0, "%s", accel_last_error());
        ck_assert_int_eq(accel_tensor_copy_to_buffer(accel_interp_output_tensor(it, 0), out, 16), 0);
        ck_assert_float_eq(out[0], 3.0f);
        ck_assert_float_eq(out[3], 9.0f);
        accel_interp_last_timing(it, &q, &c, &t);
        ck_assert_uint_ge(t, c);

        /* Resize to [2,4]: the constant [1,4] broadcasts. */
        ck_assert_msg(accel_interp_resize_input(it, 0, (const int32_t[]) { 2, 4 }, 2) == 0, "%s", accel_last_error());
        ck_assert_int_eq(accel_tensor_dim(accel_interp_output_tensor(it, 0), 0), 2);
        ck_assert_uint_eq(accel_tensor_byte_size(accel_interp_output_tensor(it, 0)), 32);
        ck_assert_int_eq(accel_interp_allocate_tensors(it), 0);
        ck_assert_int_eq(accel_tensor_copy_from_buffer(accel_interp_input_tensor(it, 0), in, 32), 0);
        ck_assert_msg(accel_interp_invoke(it) == 0, "%s", accel_last_error());
        ck_assert_int_eq(accel_tensor_copy_to_buffer(accel_interp_output_tensor(it, 0), out, 32), 0);
        ck_assert_float_eq(out[7], 17.0f);

        /* A second interpreter (inline tensors) shares the instance and
         * keeps the declared shape although the first resized. */
        ck_assert_int_eq(accel_interp_options_set_inline_tensors(o, true), 0);
        ck_assert_msg(accel_interp_create(model, o, &it2) == 0, "%s", accel_last_error());
        ck_assert(accel_interp_shared(it2));
        ck_assert_int_eq(accel_interp_allocate_tensors(it2), 0);
        ck_assert_int_eq(accel_tensor_copy_from_buffer(accel_interp_input_tensor(it2, 0), in + 4, 16), 0);
        ck_assert_msg(accel_interp_invoke(it2) == 0, "%s", accel_last_error());
        ck_assert_int_eq(accel_tensor_copy_to_buffer(accel_interp_output_tensor(it2, 0), out, 16), 0);
        ck_assert_float_eq(out[0], 11.0f);
        ck_assert_float_eq(out[3], 17.0f);
        /* And the first still runs [2,4]. */
        ck_assert_msg(accel_interp_invoke(it) == 0, "%s", accel_last_error());
        ck_assert_int_eq(accel_tensor_dim(accel_interp_output_tensor(it, 0), 0), 2);

        /* Bad resize: negative dimension. */
        ck_assert_int_eq(accel_interp_resize_input(it, 0, (const int32_t[]) { -2, 4 }, 2), -EINVAL);
        ck_assert_int_eq(accel_last_status(), ACCEL_STATUS_INVALID_ARGUMENT);

        accel_interp_delete(it);
        accel_interp_delete(it2);
        accel_interp_options_delete(o);
        accel_model_delete(model);
        free(path);
        free(m);
}
END_TEST

START_TEST(test_libaccel_supported_operations_and_list_models) {
        size_t size, usize;
        uint8_t *m = model_affine(&size), *um = model_custom("NoSuchOpXyz", &usize);
        accel_client_t *c = NULL;
        accel_model_t *model = NULL, *umodel = NULL;
        accel_node_support_t *ns = NULL;
        accel_model_entry_t *models = NULL;
        size_t n = 0;
        client_t raw;

        ck_assert_int_eq(accel_connect(d.sock, &c), 0);
        ck_assert_int_eq(accel_model_create(m, size, &model), 0);
        ck_assert_int_eq(accel_model_create(um, usize, &umodel), 0);
        ck_assert_msg(accel_get_supported_operations(c, model, &ns, &n) == 0, "%s", accel_last_error());
        ck_assert_uint_eq(n, 2);
        ck_assert_str_eq(ns[0].op, "MUL");
        ck_assert_str_eq(ns[1].op, "ADD");
        ck_assert_uint_ge(ns[0].n_drivers, 1);
        ck_assert_str_eq(ns[0].drivers[0], "reference");
        ck_assert(ns[0].supported[0]);
        accel_node_support_free(ns, n);
        ck_assert_int_eq(accel_get_supported_operations(c, umodel, &ns, &n), 0);
        ck_assert_uint_eq(n, 1);
        ck_assert(!ns[0].supported[0]);
        ck_assert_msg(strstr(ns[0].reasons[0], "NoSuchOpXyz") != NULL, "%s", ns[0].reasons[0]);
        accel_node_support_free(ns, n);
        /* Every unresolved node has its own reason (the node index comes
         * as data, not out of a message); the builtin between them is not
         * blamed. */
        {
                size_t tsize;
                uint8_t *tm = model_two_custom("NoSuchOpA", "NoSuchOpB", &tsize);
                accel_model_t *tmodel = NULL;

                ck_assert_int_eq(accel_model_create(tm, tsize, &tmodel), 0);
                ck_assert_int_eq(accel_get_supported_operations(c, tmodel, &ns, &n), 0);
                ck_assert_uint_eq(n, 3);
                for (size_t k = 0; k < ns[0].n_drivers; k++) {
                        ck_assert(!ns[0].supported[k]);
                        ck_assert_msg(strstr(ns[0].reasons[k], "NoSuchOpA") != NULL, "%s", ns[0].reasons[k]);
                        ck_assert(ns[1].supported[k]);
                        ck_assert(!ns[2].supported[k]);
                        ck_assert_msg(strstr(ns[2].reasons[k], "node 2: unresolved custom op 'NoSuchOpB'") != NULL,
                                      "%s", ns[2].reasons[k]);
                }
                accel_node_support_free(ns, n);
                accel_model_delete(tmodel);
                free(tm);
        }

        ck_assert_int_eq(accel_list_models(c, &models, &n), 0);
        ck_assert_uint_eq(n, 0);
        accel_model_list_free(models, n);
        client_open(&raw);
        (void) prepare_ok(&raw, m, size, false);
        ck_assert_int_eq(accel_list_models(c, &models, &n), 0);
        ck_assert_uint_eq(n, 1);
        ck_assert_uint_eq(models[0].size, size);
        ck_assert_uint_eq(models[0].instances, 1);
        ck_assert_uint_eq(models[0].references, 1);
        ck_assert_uint_eq(strlen(models[0].sha256), 64);
        accel_model_list_free(models, n);
        client_close(&raw);
        accel_model_delete(model);
        accel_model_delete(umodel);
        accel_disconnect(c);
        free(m);
        free(um);
}
END_TEST

/* instance_concurrency 1: a second execute of a busy shared
 * instance waits although a worker is free, and that worker runs another
 * model meanwhile; the instance never needs a second interpreter. */
START_TEST(test_serving_instance_runs_one_execution_at_a_time) {
        client_t c, c2;
        size_t gsize, asize;
        uint8_t *gm = model_custom("AcceldTestGate", &gsize), *am = model_affine(&asize);
        float in[4] = { 1, 2, 3, 4 };
        uint64_t hg, hg2, ha, id_a, id_b, id_c;
        Acceld__Response *r, *keep;

        client_open(&c);
        client_open(&c2);
        hg = prepare_ok(&c, gm, gsize, false);
        hg2 = prepare_ok(&c2, gm, gsize, true);
        ha = prepare_ok(&c, am, asize, false);
        id_a = send_execute(&c, hg, in, 4, 0, 0);
        wait_counts(&c, 1, 0);
        id_b = send_execute(&c2, hg2, in, 4, 0, 0);
        wait_counts(&c, 1, 1);
        id_c = send_execute(&c, ha, in, 4, 0, 0);
        r = recv_resp(&c);
        ck_assert_uint_eq(r->request_id, id_c);
        ck_assert_int_eq(r->status, ACCELD__STATUS__NONE);
        resp_free(r);
        ck_assert_uint_eq(status_get(&c, &keep)->interpreters, 2);
        resp_free(keep);
        gate_open();
        r = recv_resp(&c);
        ck_assert_uint_eq(r->request_id, id_a);
        ck_assert_int_eq(r->status, ACCELD__STATUS__NONE);
        resp_free(r);
        r = recv_resp(&c2);
        ck_assert_uint_eq(r->request_id, id_b);
        ck_assert_int_eq(r->status, ACCELD__STATUS__NONE);
        resp_free(r);
        ck_assert_uint_eq(status_get(&c, &keep)->interpreters, 2);
        resp_free(keep);
        client_close(&c);
        client_close(&c2);
        free(gm);
        free(am);
}
END_TEST

/* By default an instance runs as many executions at once as there are
 * workers: two clients of one shared instance both run, on two
 * interpreters, while the gate holds them. */
START_TEST(test_serving_instance_runs_executions_in_parallel_by_default) {
        client_t c, c2;
        size_t gsize;
        uint8_t *gm = model_custom("AcceldTestGate", &gsize);
        float in[4] = { 1, 2, 3, 4 };
        uint64_t hg, hg2, id_a, id_b;
        Acceld__Response *r;

        client_open(&c);
        client_open(&c2);
        hg = prepare_ok(&c, gm, gsize, false);
        hg2 = prepare_ok(&c2, gm, gsize, true);
        id_a = send_execute(&c, hg, in, 4, 0, 0);
        id_b = send_execute(&c2, hg2, in, 4, 0, 0);
        wait_counts(&c, 2, 0);
        wait_interpreters(&c, 2);
        gate_open();
        r = recv_resp(&c);
        ck_assert_uint_eq(r->request_id, id_a);
        ck_assert_int_eq(r->status, ACCELD__STATUS__NONE);
        resp_free(r);
        r = recv_resp(&c2);
        ck_assert_uint_eq(r->request_id, id_b);
        ck_assert_int_eq(r->status, ACCELD__STATUS__NONE);
        resp_free(r);
        client_close(&c);
        client_close(&c2);
        free(gm);
}
END_TEST

/* affine's RESHAPE twin: out = reshape(in * 2 + 1, [1, 4]) with the shape
 * hard-coded, so a batch of more than one row cannot be reshaped. */
static uint8_t *model_affine_reshaped(size_t *size) {
        tfb_t *b = tfb_new();
        float two[4] = { 2, 2, 2, 2 }, one[4] = { 1, 1, 1, 1 };
        int32_t shape[2] = { 1, 4 };
        int32_t in = tfb_tensor(b, RT_TYPE_FLOAT32, "in", 2, TFB_DIMS(1, 4));
        int32_t c2 = tfb_tensor_const(b, RT_TYPE_FLOAT32, "two", 2, TFB_DIMS(1, 4), two, sizeof(two));
        int32_t c1 = tfb_tensor_const(b, RT_TYPE_FLOAT32, "one", 2, TFB_DIMS(1, 4), one, sizeof(one));
        int32_t sh = tfb_tensor_const(b, RT_TYPE_INT32, "shape", 1, TFB_DIMS(2), shape, sizeof(shape));
        int32_t mid = tfb_tensor(b, RT_TYPE_FLOAT32, "mid", 2, TFB_DIMS(1, 4));
        int32_t mid2 = tfb_tensor(b, RT_TYPE_FLOAT32, "mid2", 2, TFB_DIMS(1, 4));
        int32_t out = tfb_tensor(b, RT_TYPE_FLOAT32, "out", 2, TFB_DIMS(1, 4));
        uint8_t *bytes;

        tfb_op_add(b, &(tfb_op_t) { .opcode = tfb_opcode_builtin(b, RT_BUILTIN_MUL, 1), .inputs = TFB_IDS(in, c2),
                                    .n_inputs = 2, .outputs = TFB_IDS(mid), .n_outputs = 1 });
        tfb_op_add(b, &(tfb_op_t) { .opcode = tfb_opcode_builtin(b, RT_BUILTIN_ADD, 1), .inputs = TFB_IDS(mid, c1),
                                    .n_inputs = 2, .outputs = TFB_IDS(mid2), .n_outputs = 1 });
        tfb_op_add(b, &(tfb_op_t) { .opcode = tfb_opcode_builtin(b, RT_BUILTIN_RESHAPE, 1),
                                    .inputs = TFB_IDS(mid2, sh), .n_inputs = 2, .outputs = TFB_IDS(out),
                                    .n_outputs = 1 });
        tfb_io(b, TFB_IDS(in), 1, TFB_IDS(out), 1);
        bytes = tfb_finish(b, size);
        tfb_free(b);
        ck_assert_ptr_nonnull(bytes);
        return bytes;
}

static uint64_t prepare_batching(client_t *c, const uint8_t *bytes, size_t size, uint32_t max, uint32_t delay_us) {
        Acceld__Request req = ACCELD__REQUEST__INIT;
        Acceld__PrepareModelRequest p = ACCELD__PREPARE_MODEL_REQUEST__INIT;
        Acceld__Response *r;
        uint64_t h;

        p.has_model = 1;
        p.model.data = (uint8_t *) bytes;
        p.model.len = size;
        p.settings_json = (char *) settings_none;
        p.has_max_batch_size = 1;
        p.max_batch_size = max;
        p.has_max_queue_delay_us = 1;
        p.max_queue_delay_us = delay_us;
        req.body_case = ACCELD__REQUEST__BODY_PREPARE_MODEL;
        req.prepare_model = &p;
        r = transact(c, &req, NULL, 0);
        ck_assert_msg(r->status == ACCELD__STATUS__NONE, "%s", r->message);
        h = r->prepare_model->handle;
        resp_free(r);
        return h;
}

/* Queue n executions of `h` behind a gated one, open the gate, and check
 * each result (2x + 1, row-specific inputs) and its batch size. */
static void batch_round(client_t *c, uint64_t gate_handle, uint64_t h, unsigned n, unsigned want_batch) {
        float in[16][4];
        uint64_t ids[16], gid;
        float g[4] = { 0, 0, 0, 0 };
        Acceld__Response *r;

        gid = send_execute(c, gate_handle, g, 4, 0, 0);
        wait_counts(c, 1, 0);
        for (unsigned k = 0; k < n; k++) {
                for (int e = 0; e < 4; e++)
                        in[k][e] = (float) k * 10.0f + (float) e * 0.25f - 3.0f;
                ids[k] = send_execute(c, h, in[k], 4, 0, 0);
        }
        wait_counts(c, 1, n);
        gate_open();
        r = recv_resp(c);
        ck_assert_uint_eq(r->request_id, gid);
        resp_free(r);
        for (unsigned k = 0; k < n; k++) {
                r = recv_resp(c);
                ck_assert_msg(r->status == ACCELD__STATUS__NONE, "%s", r->message);
                unsigned idx = n;
                for (unsigned q = 0; q < n; q++)
                        if (ids[q] == r->request_id)
                                idx = q;
                ck_assert_uint_lt(idx, n);
                ck_assert_uint_eq(r->execute->batch_size, want_batch);
                ck_assert_uint_eq(r->execute->n_output_shapes, 1);
                ck_assert_uint_eq(r->execute->output_shapes[0]->n_dims, 2);
                ck_assert_int_eq(r->execute->output_shapes[0]->dims[0], 1);
                const float *y = (const float *) r->execute->outputs[0]->data.data;
                for (int e = 0; e < 4; e++)
                        ck_assert_float_eq(y[e], in[idx][e] * 2.0f + 1.0f);
                resp_free(r);
        }
}

/* Four executions queued together run as one invoke (batch_size 4) and
 * each gets exactly its own row; two more fill a batch of two. */
START_TEST(test_serving_dynamic_batching_exact) {
        client_t c;
        size_t gsize, asize;
        uint8_t *gm = model_custom("AcceldTestGate", &gsize), *am = model_affine(&asize);
        uint64_t hg, ha;

        client_open(&c);
        hg = prepare_ok(&c, gm, gsize, false);
        ha = prepare_batching(&c, am, asize, 4, 0);
        batch_round(&c, hg, ha, 4, 4);
        char path[400];
        (void) snprintf(path, sizeof(path), "%s/gate", d.dir);
        ck_assert_int_eq(unlink(path), 0);
        batch_round(&c, hg, ha, 2, 2);
        client_close(&c);
        free(gm);
        free(am);
}
END_TEST

/* A model whose batched graph does not work (a hard-coded RESHAPE) is not
 * batched: the queued executions run one by one and are all right. */
START_TEST(test_serving_dynamic_batching_refused_for_fixed_shapes) {
        client_t c;
        size_t gsize, asize;
        uint8_t *gm = model_custom("AcceldTestGate", &gsize), *am = model_affine_reshaped(&asize);
        uint64_t hg, ha;

        client_open(&c);
        hg = prepare_ok(&c, gm, gsize, false);
        ha = prepare_batching(&c, am, asize, 4, 0);
        batch_round(&c, hg, ha, 3, 1);
        client_close(&c);
        free(gm);
        free(am);
}
END_TEST

/* A lone execution with a deadline does not wait for a batch to fill: with
 * a 5 s queue delay, its 1 s deadline is met. (Without a deadline it would
 * wait the delay.) */
START_TEST(test_serving_dynamic_batching_keeps_deadlines) {
        client_t c;
        size_t asize;
        uint8_t *am = model_affine(&asize);
        float in[4] = { 1, 2, 3, 4 };
        Acceld__Response *r;
        uint64_t ha, id;

        client_open(&c);
        ha = prepare_batching(&c, am, asize, 8, 5000000);
        id = send_execute(&c, ha, in, 4, 0, 1000000);
        r = recv_resp(&c);
        ck_assert_uint_eq(r->request_id, id);
        ck_assert_msg(r->status == ACCELD__STATUS__NONE, "%s", r->message);
        ck_assert_uint_eq(r->execute->batch_size, 1);
        resp_free(r);
        client_close(&c);
        free(am);
}
END_TEST

/* libaccel's asynchronous invoke: started behind a gated execution it is
 * queued, cancel drops it (wait reports the cancellation); started again
 * it completes once the gate opens, with the right outputs. */
START_TEST(test_serving_libaccel_async_invoke_and_cancel) {
        client_t c;
        size_t gsize, asize;
        uint8_t *gm = model_custom("AcceldTestGate", &gsize), *am = model_affine(&asize);
        float g[4] = { 0, 0, 0, 0 };
        accel_model_t *m = NULL;
        accel_interp_options_t *o = accel_interp_options_create();
        accel_interp_t *it = NULL;
        Acceld__Response *r;
        uint64_t hg, gid;

        client_open(&c);
        hg = prepare_ok(&c, gm, gsize, false);
        ck_assert_int_eq(accel_model_create(am, asize, &m), 0);
        ck_assert_int_eq(accel_interp_options_set_socket(o, d.sock), 0);
        ck_assert_int_eq(accel_interp_options_set_settings_json(o, settings_none), 0);
        ck_assert_msg(accel_interp_create(m, o, &it) == 0, "%s", accel_last_error());
        ck_assert_int_eq(accel_interp_allocate_tensors(it), 0);
        float *in = accel_tensor_data(accel_interp_input_tensor(it, 0));
        for (int e = 0; e < 4; e++)
                in[e] = (float) e - 1.5f;

        gid = send_execute(&c, hg, g, 4, 0, 0);
        wait_counts(&c, 1, 0);
        ck_assert_int_eq(accel_interp_invoke_start(it), 0);
        ck_assert_int_eq(accel_interp_invoke_start(it), -EBUSY);
        wait_counts(&c, 1, 1);
        ck_assert_int_eq(accel_interp_cancel(it), 1);
        ck_assert_int_lt(accel_interp_invoke_wait(it), 0);
        ck_assert_msg(strstr(accel_last_error(), "cancel"), "%s", accel_last_error());
        ck_assert_int_eq(accel_interp_cancel(it), 0);  /* nothing in flight */

        ck_assert_int_eq(accel_interp_invoke_start(it), 0);
        wait_counts(&c, 1, 1);
        gate_open();
        ck_assert_msg(accel_interp_invoke_wait(it) == 0, "%s", accel_last_error());
        const float *y = accel_tensor_data(accel_interp_output_tensor(it, 0));
        for (int e = 0; e < 4; e++)
                ck_assert_float_eq(y[e], ((float) e - 1.5f) * 2.0f + 1.0f);
        r = recv_resp(&c);
        ck_assert_uint_eq(r->request_id, gid);
        resp_free(r);

        /* Cancel racing a free worker: whichever way it goes, cancel and
         * wait agree (0: it ran, and wait has the result). */
        ck_assert_int_eq(accel_interp_invoke_start(it), 0);
        int cancelled = accel_interp_cancel(it);
        ck_assert_int_ge(cancelled, 0);
        if (cancelled)
                ck_assert_int_lt(accel_interp_invoke_wait(it), 0);
        else {
                ck_assert_msg(accel_interp_invoke_wait(it) == 0, "%s", accel_last_error());
                ck_assert_float_eq(y[0], -2.0f);
        }
        accel_interp_delete(it);
        accel_interp_options_delete(o);
        accel_model_delete(m);
        client_close(&c);
        free(gm);
        free(am);
}
END_TEST

/* Several interpreters on one connection: two models prepared on one
 * accel_client_t, both invoked asynchronously at once (replies in either
 * order), and deleting one releases its handle and buffer while the
 * connection and the other interpreter go on. */
START_TEST(test_serving_libaccel_interpreters_share_a_connection) {
        size_t asize, rsize;
        uint8_t *am = model_affine(&asize), *rm = model_affine_reshaped(&rsize);
        accel_client_t *conn = NULL, *watch = NULL;
        accel_model_t *ma = NULL, *mb = NULL;
        accel_interp_options_t *o = accel_interp_options_create();
        accel_interp_t *a = NULL, *b = NULL;
        accel_daemon_status_t *st = NULL;

        ck_assert_int_eq(accel_connect(d.sock, &conn), 0);
        ck_assert_int_eq(accel_connect(d.sock, &watch), 0);
        ck_assert_int_eq(accel_model_create(am, asize, &ma), 0);
        ck_assert_int_eq(accel_model_create(rm, rsize, &mb), 0);
        ck_assert_int_eq(accel_interp_options_set_client(o, conn), 0);
        ck_assert_int_eq(accel_interp_options_set_settings_json(o, settings_none), 0);
        ck_assert_msg(accel_interp_create(ma, o, &a) == 0, "%s", accel_last_error());
        ck_assert_msg(accel_interp_create(mb, o, &b) == 0, "%s", accel_last_error());
        ck_assert_int_eq(accel_interp_allocate_tensors(a), 0);
        ck_assert_int_eq(accel_interp_allocate_tensors(b), 0);
        ck_assert_int_eq(accel_get_status(watch, &st), 0);
        ck_assert_uint_eq(st->serving.prepared_models, 2);
        ck_assert_uint_eq(st->connections, 2);
        accel_daemon_status_free(st);

        for (int round = 0; round < 3; round++) {
                float *ia = accel_tensor_data(accel_interp_input_tensor(a, 0));
                float *ib = accel_tensor_data(accel_interp_input_tensor(b, 0));
                for (int e = 0; e < 4; e++) {
                        ia[e] = (float) (round * 4 + e);
                        ib[e] = (float) (-round * 4 - e);
                }
                ck_assert_int_eq(accel_interp_invoke_start(a), 0);
                ck_assert_int_eq(accel_interp_invoke_start(b), 0);
                /* Waited for in the reverse order of the replies. */
                ck_assert_msg(accel_interp_invoke_wait(b) == 0, "%s", accel_last_error());
                ck_assert_msg(accel_interp_invoke_wait(a) == 0, "%s", accel_last_error());
                const float *ya = accel_tensor_data(accel_interp_output_tensor(a, 0));
                const float *yb = accel_tensor_data(accel_interp_output_tensor(b, 0));
                for (int e = 0; e < 4; e++) {
                        ck_assert_float_eq(ya[e], (float) (round * 4 + e) * 2.0f + 1.0f);
                        ck_assert_float_eq(yb[e], (float) (-round * 4 - e) * 2.0f + 1.0f);
                }
        }
        a = accel_interp_delete(a);
        /* a's buffer goes once its lane's thread has let go of it, which
         * may be just after the unregister's answer: wait up to 2 s. */
        for (int i = 0; i < 200; i++) {
                ck_assert_int_eq(accel_get_status(watch, &st), 0);
                bool settled = st->serving.registered_buffers == 1;
                if (settled)
                        break;
                accel_daemon_status_free(st);
                usleep(10000);
        }
        ck_assert_uint_eq(st->serving.prepared_models, 1);
        ck_assert_uint_eq(st->serving.registered_buffers, 1);
        ck_assert_uint_eq(st->connections, 2);
        accel_daemon_status_free(st);
        ck_assert_msg(accel_interp_invoke(b) == 0, "%s", accel_last_error());
        accel_interp_delete(b);
        accel_interp_options_delete(o);
        accel_model_delete(ma);
        accel_model_delete(mb);
        accel_disconnect(conn);
        accel_disconnect(watch);
        free(am);
        free(rm);
}
END_TEST

/* Tensors in a buffer acceld allocates (AllocateBuffer), and completion
 * noticed by poll() on the interpreter's fd. */
START_TEST(test_serving_libaccel_daemon_buffer_and_poll) {
        size_t asize;
        uint8_t *am = model_affine(&asize);
        accel_model_t *m = NULL;
        accel_interp_options_t *o = accel_interp_options_create();
        accel_interp_t *it = NULL;
        accel_client_t *watch = NULL;
        accel_daemon_status_t *st = NULL;

        ck_assert_int_eq(accel_model_create(am, asize, &m), 0);
        ck_assert_int_eq(accel_interp_options_set_socket(o, d.sock), 0);
        ck_assert_int_eq(accel_interp_options_set_settings_json(o, settings_none), 0);
        ck_assert_int_eq(accel_interp_options_set_daemon_buffer(o, true), 0);
        ck_assert_msg(accel_interp_create(m, o, &it) == 0, "%s", accel_last_error());
        ck_assert_msg(accel_interp_allocate_tensors(it) == 0, "%s", accel_last_error());
        ck_assert(accel_tensor_in_shared_memory(accel_interp_input_tensor(it, 0)));
        ck_assert_int_eq(accel_connect(d.sock, &watch), 0);
        ck_assert_int_eq(accel_get_status(watch, &st), 0);
        ck_assert_uint_eq(st->serving.registered_buffers, 1);
        accel_daemon_status_free(st);
        float *in = accel_tensor_data(accel_interp_input_tensor(it, 0));
        for (int e = 0; e < 4; e++)
                in[e] = (float) e * 3.0f;
        ck_assert_int_eq(accel_interp_invoke_start(it), 0);
        struct pollfd pfd = { .fd = accel_interp_fd(it), .events = POLLIN };
        ck_assert_int_ge(pfd.fd, 0);
        ck_assert_int_eq(poll(&pfd, 1, 10000), 1);
        ck_assert_msg(accel_interp_invoke_wait(it) == 0, "%s", accel_last_error());
        ck_assert(accel_interp_last_zero_copy(it));
        const float *y = accel_tensor_data(accel_interp_output_tensor(it, 0));
        for (int e = 0; e < 4; e++)
                ck_assert_float_eq(y[e], (float) e * 6.0f + 1.0f);
        accel_interp_delete(it);
        accel_interp_options_delete(o);
        accel_model_delete(m);
        accel_disconnect(watch);
        free(am);
}
END_TEST

/* A sealed memfd is used in place (mapped, no copy) and runs. */
START_TEST(test_serving_prepare_from_sealed_memfd) {
        client_t c;
        size_t size;
        uint8_t *m = model_custom("AcceldTestGate", &size);
        int fd = memfd_create("sealed-model", MFD_CLOEXEC | MFD_ALLOW_SEALING);
        float in[4] = { 1, -2, 3, -4 };
        Acceld__Request req = ACCELD__REQUEST__INIT;
        Acceld__PrepareModelRequest p = ACCELD__PREPARE_MODEL_REQUEST__INIT;
        Acceld__Response *r;
        uint64_t h, id;

        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(write(fd, m, size), (ssize_t) size);
        ck_assert_int_eq(fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW), 0);
        client_open(&c);
        p.has_model_fd = 1;
        p.model_fd = 0;
        p.settings_json = (char *) settings_none;
        req.body_case = ACCELD__REQUEST__BODY_PREPARE_MODEL;
        req.prepare_model = &p;
        r = transact(&c, &req, &fd, 1);
        ck_assert_msg(r->status == ACCELD__STATUS__NONE, "%s", r->message);
        ck_assert_int_eq(r->prepare_model->shared, 0);
        h = r->prepare_model->handle;
        resp_free(r);
        (void) close(fd);   /* the daemon keeps its mapping */
        id = send_execute(&c, h, in, 4, 0, 0);
        r = recv_resp(&c);
        ck_assert_uint_eq(r->request_id, id);
        ck_assert_msg(r->status == ACCELD__STATUS__NONE, "%s", r->message);
        ck_assert_int_eq(memcmp(r->execute->outputs[0]->data.data, in, 16), 0);
        resp_free(r);
        /* The same bytes inline share it. */
        (void) prepare_ok(&c, m, size, true);
        client_close(&c);
        free(m);
}
END_TEST

START_TEST(test_serving_oversized_model_and_frame) {
        client_t c;
        static uint8_t zeros[2000];
        Acceld__Response *r;
        static const uint8_t header[4] = { 0x00, 0x00, 0x10, 0x00 };   /* 1 MiB payload announced */

        client_open(&c);
        r = prepare_bytes(&c, zeros, sizeof(zeros));
        ck_assert_int_eq(r->status, ACCELD__STATUS__RESOURCE_EXHAUSTED_PERSISTENT);
        ck_assert_str_eq(r->message, "model of 2000 bytes exceeds max_model_bytes (1024)");
        resp_free(r);
        ck_assert_int_eq(write(c.fd, header, sizeof(header)), 4);
        r = recv_resp(&c);
        ck_assert_int_eq(r->status, ACCELD__STATUS__PROTOCOL_ERROR);
        ck_assert_str_eq(r->message, "frame exceeds max_frame_bytes");
        resp_free(r);
        client_close(&c);
}
END_TEST

static Acceld__Response *prepare_settings(client_t *c, const uint8_t *bytes, size_t size, const char *json) {
        Acceld__Request req = ACCELD__REQUEST__INIT;
        Acceld__PrepareModelRequest p = ACCELD__PREPARE_MODEL_REQUEST__INIT;

        p.has_model = 1;
        p.model.data = (uint8_t *) bytes;
        p.model.len = size;
        p.settings_json = (char *) json;
        req.body_case = ACCELD__REQUEST__BODY_PREPARE_MODEL;
        req.prepare_model = &p;
        return transact(c, &req, NULL, 0);
}

/* Settings that compile the same thing share; different ones do not. */
START_TEST(test_serving_sharing_key_is_canonical) {
        client_t c;
        size_t size;
        uint8_t *m = model_affine(&size);
        Acceld__Response *a, *b, *x;

        client_open(&c);
        a = prepare_settings(&c, m, size, "{\"delegate\": \"NONE\"}");
        b = prepare_settings(&c, m, size, "{\"delegate\": \"NONE\", \"cpu_settings\": {\"num_threads\": 3}, "
                                          "\"xnnpack_settings\": {\"flags\": 4}}");
        ck_assert_int_eq(a->status, ACCELD__STATUS__NONE);
        ck_assert_int_eq(b->status, ACCELD__STATUS__NONE);
        ck_assert_int_eq(b->prepare_model->shared, 1);
        ck_assert_str_eq(a->prepare_model->settings_key, b->prepare_model->settings_key);
        ck_assert_str_eq(a->prepare_model->settings_key,
                         "delegate=NONE;threads=1;xnnpack_flags=0;max_partitions=0;fallback=00;plugin=");
        x = prepare_settings(&c, m, size, "{\"delegate\": \"NONE\", \"max_delegated_partitions\": 2}");
        ck_assert_int_eq(x->status, ACCELD__STATUS__NONE);
        ck_assert_int_eq(x->prepare_model->shared, 0);
        ck_assert_str_ne(x->prepare_model->settings_key, a->prepare_model->settings_key);
        ck_assert_str_eq(x->prepare_model->sha256, a->prepare_model->sha256);
        resp_free(a);
        resp_free(b);
        resp_free(x);
        client_close(&c);
        free(m);
}
END_TEST

/* A delegate no driver provides, with fallback on compilation errors
 * allowed, runs on the CPU, and the reply says what replaced it. */
START_TEST(test_serving_reply_says_what_replaced_the_delegate) {
        client_t c;
        size_t size;
        uint8_t *m = model_affine(&size);
        Acceld__Response *a, *b;

        client_open(&c);
        a = prepare_settings(&c, m, size, "{\"delegate\": \"GPU\", \"fallback_settings\": "
                                          "{\"allow_automatic_fallback_on_compilation_error\": true}}");
        ck_assert_int_eq(a->status, ACCELD__STATUS__NONE);
        ck_assert_ptr_nonnull(a->prepare_model->delegation_note);
        ck_assert_ptr_nonnull(strstr(a->prepare_model->delegation_note, "GPU"));
        ck_assert_uint_ge(a->prepare_model->n_partitions, 1);
        b = prepare_settings(&c, m, size, "{\"delegate\": \"GPU\"}");
        ck_assert_int_eq(b->status, ACCELD__STATUS__DEVICE_UNAVAILABLE);
        resp_free(a);
        resp_free(b);
        client_close(&c);
        free(m);
}
END_TEST

static Acceld__Response *prepare_by(client_t *c, const char *sha256, const char *name, const uint8_t *bytes,
                                    size_t size) {
        Acceld__Request req = ACCELD__REQUEST__INIT;
        Acceld__PrepareModelRequest p = ACCELD__PREPARE_MODEL_REQUEST__INIT;

        if (bytes) {
                p.has_model = 1;
                p.model.data = (uint8_t *) bytes;
                p.model.len = size;
        }
        p.sha256 = (char *) sha256;
        p.name = (char *) name;
        p.settings_json = (char *) settings_none;
        req.body_case = ACCELD__REQUEST__BODY_PREPARE_MODEL;
        req.prepare_model = &p;
        return transact(c, &req, NULL, 0);
}

static Acceld__Response *remove_model(client_t *c, const char *sha256, const char *name) {
        Acceld__Request req = ACCELD__REQUEST__INIT;
        Acceld__RemoveModelRequest rm = ACCELD__REMOVE_MODEL_REQUEST__INIT;

        rm.sha256 = (char *) sha256;
        rm.name = (char *) name;
        req.body_case = ACCELD__REQUEST__BODY_REMOVE_MODEL;
        req.remove_model = &rm;
        return transact(c, &req, NULL, 0);
}

/* A named prepare stores the model; later prepares find it by name or
 * sha256 even after every handle is gone; RemoveModel drops it. */
START_TEST(test_serving_store_prepare_by_name_list_remove) {
        client_t c;
        size_t size;
        uint8_t *m = model_affine(&size);
        char sha[65];
        Acceld__Response *r;
        accel_client_t *ac = NULL;
        accel_model_entry_t *models = NULL;
        size_t n = 0;

        client_open(&c);
        r = prepare_by(&c, NULL, "affine-demo", m, size);
        ck_assert_msg(r->status == ACCELD__STATUS__NONE, "%s", r->message);
        (void) snprintf(sha, sizeof(sha), "%s", r->prepare_model->sha256);
        resp_free(r);
        client_close(&c);   /* releases the handle: nothing is loaded now */

        client_open(&c);
        r = prepare_by(&c, NULL, "affine-demo", NULL, 0);
        ck_assert_msg(r->status == ACCELD__STATUS__NONE, "%s", r->message);
        ck_assert_int_eq(r->prepare_model->shared, 0);
        ck_assert_str_eq(r->prepare_model->sha256, sha);
        resp_free(r);
        r = prepare_by(&c, sha, NULL, NULL, 0);
        ck_assert_msg(r->status == ACCELD__STATUS__NONE, "%s", r->message);
        ck_assert_int_eq(r->prepare_model->shared, 1);
        resp_free(r);

        ck_assert_int_eq(accel_connect(d.sock, &ac), 0);
        ck_assert_int_eq(accel_list_models(ac, &models, &n), 0);
        ck_assert_uint_eq(n, 1);
        ck_assert_str_eq(models[0].sha256, sha);
        ck_assert_str_eq(models[0].name, "affine-demo");
        ck_assert_uint_eq(models[0].references, 2);
        accel_model_list_free(models, n);

        /* The same name for other bytes is refused. */
        {
                uint8_t *other = model_custom("AcceldTestGate", &size);

                r = prepare_by(&c, NULL, "affine-demo", other, size);
                ck_assert_int_eq(r->status, ACCELD__STATUS__INVALID_ARGUMENT);
                ck_assert_str_eq(r->message, "the name 'affine-demo' belongs to another model in the store");
                resp_free(r);
                free(other);
        }
        r = remove_model(&c, NULL, "affine-demo");
        ck_assert_msg(r->status == ACCELD__STATUS__NONE, "%s", r->message);
        resp_free(r);
        r = remove_model(&c, sha, NULL);
        ck_assert_int_eq(r->status, ACCELD__STATUS__NOT_FOUND);
        resp_free(r);
        r = prepare_by(&c, NULL, "affine-demo", NULL, 0);
        ck_assert_int_eq(r->status, ACCELD__STATUS__NOT_FOUND);
        ck_assert_str_eq(r->message, "no model named affine-demo in the store");
        resp_free(r);
        /* Still loaded (handles hold it), though no longer stored. */
        ck_assert_int_eq(accel_list_models(ac, &models, &n), 0);
        ck_assert_uint_eq(n, 1);
        ck_assert_str_eq(models[0].name, "affine-demo");
        accel_model_list_free(models, n);
        accel_disconnect(ac);
        client_close(&c);
        free(m);
}
END_TEST

/* ComputeSettings (the acceleration schema) instead of JSON. */
START_TEST(test_serving_compute_settings) {
        client_t c;
        size_t size;
        uint8_t *m = model_affine(&size);
        Acceld__Request req = ACCELD__REQUEST__INIT;
        Acceld__PrepareModelRequest p = ACCELD__PREPARE_MODEL_REQUEST__INIT;
        Tflite__Proto__ComputeSettings cs = TFLITE__PROTO__COMPUTE_SETTINGS__INIT;
        Tflite__Proto__TFLiteSettings ts = TFLITE__PROTO__TFLITE_SETTINGS__INIT;
        Tflite__Proto__CPUSettings cpu = TFLITE__PROTO__CPUSETTINGS__INIT;
        Acceld__Response *r;

        ts.has_delegate = 1;
        ts.delegate = TFLITE__PROTO__DELEGATE__NONE;
        cpu.has_num_threads = 1;
        cpu.num_threads = 2;
        ts.cpu_settings = &cpu;
        cs.tflite_settings = &ts;
        p.has_model = 1;
        p.model.data = m;
        p.model.len = size;
        p.compute_settings = &cs;
        req.body_case = ACCELD__REQUEST__BODY_PREPARE_MODEL;
        req.prepare_model = &p;
        client_open(&c);
        r = transact(&c, &req, NULL, 0);
        ck_assert_msg(r->status == ACCELD__STATUS__NONE, "%s", r->message);
        ck_assert_str_eq(r->prepare_model->settings_key,
                         "delegate=NONE;threads=1;xnnpack_flags=0;max_partitions=0;fallback=00;plugin=");
        resp_free(r);
        ts.delegate = TFLITE__PROTO__DELEGATE__GPU;
        r = transact(&c, &req, NULL, 0);
        ck_assert_int_eq(r->status, ACCELD__STATUS__DEVICE_UNAVAILABLE);
        ck_assert_str_eq(r->message, "delegate 2 is not available on this machine");
        resp_free(r);
        ts.delegate = TFLITE__PROTO__DELEGATE__NONE;
        cpu.num_threads = 0;
        r = transact(&c, &req, NULL, 0);
        ck_assert_int_eq(r->status, ACCELD__STATUS__INVALID_ARGUMENT);
        resp_free(r);
        /* A plugin named in extension field 1000 is the delegate here as it
         * is for RunBenchmark (one converter): asked for, not ignored. */
        {
                static uint8_t name[] = "\x0cnosuchplugin";
                ProtobufCMessageUnknownField u = {
                        .tag = 1000, .wire_type = PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED,
                        .len = sizeof(name) - 1, .data = name,
                };

                cpu.num_threads = 1;
                ts.has_delegate = 0;
                ts.base.n_unknown_fields = 1;
                ts.base.unknown_fields = &u;
                r = transact(&c, &req, NULL, 0);
                ck_assert_int_ne(r->status, ACCELD__STATUS__NONE);
                ck_assert_msg(strstr(r->message, "nosuchplugin") != NULL, "%s", r->message);
                resp_free(r);
                ts.base.n_unknown_fields = 0;
                ts.base.unknown_fields = NULL;
        }
        client_close(&c);
        free(m);
}
END_TEST

/* Tenants: as another uid (nobody), in a child. Returns the child's
 * exit status: 0 when every check in it passed, else the failed step. */
static int as_nobody_tenant_checks(const uint8_t *model, size_t size) {
        pid_t pid = fork();
        int st = 0;

        ck_assert_int_ge(pid, 0);
        if (pid == 0) {
                client_t c;
                Acceld__Response *r;
                accel_client_t *ac = NULL;
                accel_model_entry_t *models = NULL;
                size_t n = 0;

                if (setgroups(0, NULL) < 0 || setgid(65534) < 0 || setuid(65534) < 0)
                        _exit(10);
                client_open(&c);
                r = prepare_by(&c, NULL, "tenant-b", model, size);
                if (r->status != ACCELD__STATUS__NONE)
                        _exit(11);
                resp_free(r);
                /* Root's model is invisible and cannot be removed. */
                if (accel_connect(d.sock, &ac) < 0 || accel_list_models(ac, &models, &n) < 0)
                        _exit(12);
                if (n != 1 || strcmp(models[0].name, "tenant-b") != 0)
                        _exit(13);
                accel_model_list_free(models, n);
                r = remove_model(&c, NULL, "tenant-a");
                if (r->status != ACCELD__STATUS__NOT_FOUND)
                        _exit(14);
                resp_free(r);
                client_close(&c);
                (void) accel_disconnect(ac);
                _exit(0);
        }
        ck_assert_int_eq(waitpid(pid, &st, 0), pid);
        ck_assert(WIFEXITED(st));
        return WEXITSTATUS(st);
}

START_TEST(test_serving_tenants_see_only_their_models) {
        client_t c;
        size_t size_a, size_b, n = 0;
        uint8_t *a, *b;
        Acceld__Response *r;
        accel_client_t *ac = NULL;
        accel_model_entry_t *models = NULL;

        if (getuid() != 0)
                return; /* needs root to act as a second uid */
        a = model_affine(&size_a);
        b = model_custom("AcceldTestGate", &size_b);
        start_with_config("");
        harness_wait_ready(&d, d.sock);
        client_open(&c);
        r = prepare_by(&c, NULL, "tenant-a", a, size_a);
        ck_assert_msg(r->status == ACCELD__STATUS__NONE, "%s", r->message);
        resp_free(r);
        ck_assert_int_eq(as_nobody_tenant_checks(b, size_b), 0);
        /* Root is an operator: it sees both tenants' models. */
        ck_assert_int_eq(accel_connect(d.sock, &ac), 0);
        ck_assert_int_eq(accel_list_models(ac, &models, &n), 0);
        ck_assert_uint_eq(n, 2);
        accel_model_list_free(models, n);
        r = remove_model(&c, NULL, "tenant-b");
        ck_assert_int_eq(r->status, ACCELD__STATUS__NONE);
        resp_free(r);
        ck_assert_int_eq(accel_list_models(ac, &models, &n), 0);
        ck_assert_uint_eq(n, 1);
        ck_assert_str_eq(models[0].name, "tenant-a");
        accel_model_list_free(models, n);
        (void) accel_disconnect(ac);
        client_close(&c);
        free(a);
        free(b);
        harness_cleanup(&d);
}
END_TEST

/* accelctl status shows the caller's usage against its limits. */
START_TEST(test_accelctl_status_usage_against_limits) {
        client_t c;
        size_t size;
        uint8_t *m = model_affine(&size);
        Acceld__Response *r;
        char *out = NULL;
        json_object *root, *sv, *x;
        int st;

        start_with_config("max_models_per_uid = 3\n");
        harness_wait_ready(&d, d.sock);
        client_open(&c);
        r = prepare_bytes(&c, m, size);
        ck_assert_msg(r->status == ACCELD__STATUS__NONE, "%s", r->message);
        resp_free(r);
        const char *argv[] = { harness_accelctl(), "--socket", d.sock, "status", "--json", NULL };
        st = harness_run(argv, &out);
        ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "accelctl status: %s", out);
        root = json_tokener_parse(out);
        ck_assert_ptr_nonnull(root);
        ck_assert(json_object_object_get_ex(root, "serving", &sv));
        ck_assert(json_object_object_get_ex(sv, "uid_limits", &x));
        ck_assert_int_eq(json_object_get_int(json_object_object_get(x, "max_prepared_models")), 3);
        ck_assert(json_object_object_get_ex(sv, "caller", &x));
        ck_assert_int_eq(json_object_get_int(json_object_object_get(x, "uid")), (int) getuid());
        ck_assert_int_eq(json_object_get_int(json_object_object_get(x, "prepared_models")), 1);
        json_object_put(root);
        free(out);
        client_close(&c);
        free(m);
        harness_cleanup(&d);
}
END_TEST

int main(int argc, char **argv) {
        Suite *s = suite_create("acceld-serving");
        TCase *tc = tcase_create("serving"), *tw = tcase_create("one-worker"), *tl = tcase_create("limits"),
              *ta = tcase_create("allow-list");
        SRunner *sr;
        int failed;

        harness_init(argc, argv);
        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_set_timeout(tc, 60);
        tcase_add_test(tc, test_serving_prepare_execute_inline);
        tcase_add_test(tc, test_serving_two_connections_share_one_instance);
        tcase_add_test(tc, test_serving_sharing_key_is_canonical);
        tcase_add_test(tc, test_serving_compute_settings);
        tcase_add_test(tc, test_serving_malformed_model_gives_reader_message);
        tcase_add_test(tc, test_serving_unknown_custom_op_is_named);
        tcase_add_test(tc, test_serving_execute_errors);
        tcase_add_test(tc, test_serving_fd_count_mismatch_is_protocol_error);
        tcase_add_test(tc, test_serving_prepare_from_fd_and_shm_execute);
        tcase_add_test(tc, test_serving_allocate_buffer_sized_by_roles);
        tcase_add_test(tc, test_serving_prepare_from_sealed_memfd);
        tcase_add_test(tc, test_serving_mobilenet_golden_inline_and_shm);
        tcase_add_test(tc, test_libaccel_interp_shm_inline_and_resize);
        tcase_add_test(tc, test_libaccel_supported_operations_and_list_models);
        tcase_add_test(tc, test_serving_reply_says_what_replaced_the_delegate);
        tcase_add_test(tc, test_serving_store_prepare_by_name_list_remove);
        suite_add_tcase(s, tc);
        tcase_add_checked_fixture(tw, setup_one_worker, teardown);
        tcase_set_timeout(tw, 60);
        tcase_add_test(tw, test_serving_priority_order_and_deadline);
        tcase_add_test(tw, test_serving_cancel_queued_execute);
        tcase_add_test(tw, test_serving_disconnect_mid_execute_releases_everything);
        suite_add_tcase(s, tw);
        {
                TCase *t2 = tcase_create("two-workers");

                tcase_add_checked_fixture(t2, setup_two_workers, teardown);
                tcase_set_timeout(t2, 60);
                tcase_add_test(t2, test_serving_instance_runs_one_execution_at_a_time);
                suite_add_tcase(s, t2);
        }
        {
                TCase *tb = tcase_create("batching");

                tcase_add_checked_fixture(tb, setup_batching, teardown);
                tcase_set_timeout(tb, 60);
                tcase_add_test(tb, test_serving_dynamic_batching_exact);
                tcase_add_test(tb, test_serving_dynamic_batching_refused_for_fixed_shapes);
                tcase_add_test(tb, test_serving_dynamic_batching_keeps_deadlines);
                tcase_add_test(tb, test_serving_libaccel_async_invoke_and_cancel);
                tcase_add_test(tb, test_serving_libaccel_interpreters_share_a_connection);
                tcase_add_test(tb, test_serving_libaccel_daemon_buffer_and_poll);
                suite_add_tcase(s, tb);
        }
        {
                TCase *t2d = tcase_create("two-workers-default");

                tcase_add_checked_fixture(t2d, setup_two_workers_default, teardown);
                tcase_set_timeout(t2d, 60);
                tcase_add_test(t2d, test_serving_instance_runs_executions_in_parallel_by_default);
                suite_add_tcase(s, t2d);
        }
        {
                TCase *ts = tcase_create("small-frames");

                tcase_add_checked_fixture(ts, setup_small_frames, teardown);
                tcase_add_test(ts, test_serving_oversized_model_and_frame);
                suite_add_tcase(s, ts);
        }
        tcase_add_checked_fixture(tl, setup_limits, teardown);
        tcase_set_timeout(tl, 60);
        tcase_add_test(tl, test_serving_per_uid_limits);
        suite_add_tcase(s, tl);
        tcase_add_checked_fixture(ta, NULL, teardown);
        tcase_add_test(ta, test_serving_allow_list_refuses_other_uids);
        tcase_add_test(ta, test_serving_allow_list_admits_listed_uid);
        tcase_add_test(ta, test_serving_tenants_see_only_their_models);
        tcase_add_test(ta, test_accelctl_status_usage_against_limits);
        tcase_add_test(ta, test_serving_allow_list_bad_value_fails_start);
        suite_add_tcase(s, ta);
        sr = srunner_create(s);
        srunner_run_all(sr, CK_NORMAL);
        failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed ? 1 : 0;
}
