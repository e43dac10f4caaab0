/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Integration: client fds that try to crash or pin the real acceld
 * (daemon/serving/clientfd.h). Memfds truncated from several threads while
 * PrepareModel and GetSupportedOperations read them, memfds shrunk and then
 * sealed while PrepareModel and RegisterBuffer look at them, a file
 * rewritten while `accelctl ops` sends it, /dev/zero, a 1 TiB sparse file,
 * pipes and regions past a buffer's end. Every request gets an answer,
 * acceld never dies and serves another client afterwards, and SIGTERM still
 * stops it. Loop counts are bounded so each test runs in seconds; the
 * counts are printed for the record.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
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

#include "harness-frames.h"
#include "harness.h"
#include "ipc.h"
#include "service.pb-c.h"
#include "tfb-models.h"

/* The daemon reads at most this much of an fd (--max-model-bytes). */
#define MAX_MODEL "16M"
#define MAX_MODEL_BYTES (16u << 20)
#define TRUNCATORS 3

static harness_daemon_t d;

static void setup(void) {
        static const char *const args[] = { "--max-model-bytes", MAX_MODEL, "--worker-threads", "2", NULL };

        /* A dead daemon must fail an assertion, not kill the test with SIGPIPE. */
        (void) signal(SIGPIPE, SIG_IGN);
        harness_up_with(&d, args, false);
}

static void teardown(void) {
        harness_cleanup(&d);
}

static double now_s(void) {
        struct timespec ts;

        (void) clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

/* Fails the test, naming the signal, if acceld is no longer running. */
static void assert_alive(const char *when) {
        int st;
        pid_t r = waitpid(d.pid, &st, WNOHANG);

        if (r == d.pid) {
                d.pid = 0;
                ck_abort_msg("acceld died %s: %s %d", when, WIFSIGNALED(st) ? "signal" : "exit status",
                             WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
        }
        ck_assert_int_eq(r, 0);
}

/* The next response; a closed connection means acceld died. */
static Acceld__Response *recv_or_die(harness_client_t *c, uint64_t id) {
        ProtobufCMessage *m = NULL;
        int r = ipc_recv(c->fd, &c->r, &acceld__response__descriptor, &m);

        if (r < 0) {
                usleep(100000);
                assert_alive("while a request was answered");
                ck_abort_msg("no answer from acceld: %s", strerror(-r));
        }
        ck_assert_uint_eq(((Acceld__Response *) m)->request_id, id);
        return (Acceld__Response *) m;
}

static uint64_t send_or_die(harness_client_t *c, Acceld__Request *req, const int *fds, size_t n_fds) {
        static uint64_t next_id = 1u << 20;

        req->has_request_id = 1;
        req->request_id = next_id++;
        if (n_fds) {
                req->has_num_fds = 1;
                req->num_fds = (uint32_t) n_fds;
        }
        if (ipc_send(c->fd, &req->base, fds, n_fds) < 0) {
                usleep(100000);
                assert_alive("while a request was sent");
                ck_abort_msg("cannot send to acceld");
        }
        return req->request_id;
}

#define resp_free harness_resp_free

/* A loop count, times HOSTILE_FDS_SCALE when set (longer soak runs by
 * hand; the suite runs the bounded default). */
static int rounds_of(int n) {
        const char *e = getenv("HOSTILE_FDS_SCALE");
        int k = e ? atoi(e) : 1;

        return k > 1 ? n * k : n;
}

/* ---- models and fds ---- */

/* out = in * 2 + 1 on float[1,4]. */
static uint8_t *model_small(size_t *size) {
        uint8_t *b = tfb_model_affine(size);

        ck_assert_ptr_nonnull(b);
        return b;
}

/* A model of about 512 KiB (float16 weights): many pages to fault on. */
static uint8_t *model_large(size_t *size) {
        uint8_t *b = tfb_model_fp16_fc(512, 512, 7, 61, 16.0f, size);

        ck_assert_ptr_nonnull(b);
        ck_assert_uint_gt(*size, 256u << 10);
        return b;
}

static void write_all(int fd, const uint8_t *p, size_t n) {
        while (n > 0) {
                ssize_t k = write(fd, p, n);

                ck_assert_int_gt(k, 0);
                p += k;
                n -= (size_t) k;
        }
}

/* An unsealed memfd (that can be sealed later) holding `bytes`. */
static int memfd_with(const uint8_t *bytes, size_t size) {
        int fd = memfd_create("hostile", MFD_CLOEXEC | MFD_ALLOW_SEALING);

        ck_assert_int_ge(fd, 0);
        write_all(fd, bytes, size);
        return fd;
}

/* ---- requests ---- */

static uint64_t send_prepare_fd(harness_client_t *c, int fd, const char *settings_json, uint64_t deadline_us) {
        Acceld__Request req = ACCELD__REQUEST__INIT;
        Acceld__PrepareModelRequest p = ACCELD__PREPARE_MODEL_REQUEST__INIT;

        p.has_model_fd = 1;
        p.model_fd = 0;
        p.settings_json = (char *) settings_json;
        if (deadline_us) {
                p.has_deadline_us = 1;
                p.deadline_us = deadline_us;
        }
        req.body_case = ACCELD__REQUEST__BODY_PREPARE_MODEL;
        req.prepare_model = &p;
        return send_or_die(c, &req, &fd, 1);
}

static uint64_t send_ops_fd(harness_client_t *c, int fd) {
        Acceld__Request req = ACCELD__REQUEST__INIT;
        Acceld__GetSupportedOperationsRequest g = ACCELD__GET_SUPPORTED_OPERATIONS_REQUEST__INIT;

        g.has_model_fd = 1;
        g.model_fd = 0;
        req.body_case = ACCELD__REQUEST__BODY_GET_SUPPORTED_OPERATIONS;
        req.get_supported_operations = &g;
        return send_or_die(c, &req, &fd, 1);
}

static uint64_t send_register(harness_client_t *c, int fd) {
        Acceld__Request req = ACCELD__REQUEST__INIT;
        Acceld__RegisterBufferRequest rb = ACCELD__REGISTER_BUFFER_REQUEST__INIT;

        rb.has_fd = 1;
        rb.fd = 0;
        req.body_case = ACCELD__REQUEST__BODY_REGISTER_BUFFER;
        req.register_buffer = &rb;
        return send_or_die(c, &req, &fd, 1);
}

/* Execute `handle` with its float[1,4] input at [in_off, +16) of `buffer`
 * and its output at [out_off, +16). */
static Acceld__Response *execute_region(harness_client_t *c, uint64_t handle, uint64_t buffer, uint64_t in_off,
                                        uint64_t out_off) {
        Acceld__Request req = ACCELD__REQUEST__INIT;
        Acceld__ExecuteRequest e = ACCELD__EXECUTE_REQUEST__INIT;
        Acceld__TensorData ti = ACCELD__TENSOR_DATA__INIT, to = ACCELD__TENSOR_DATA__INIT;
        Acceld__TensorData *tis[1] = { &ti }, *tos[1] = { &to };

        ti.has_buffer = ti.has_offset = ti.has_length = 1;
        ti.buffer = buffer, ti.offset = in_off, ti.length = 16;
        to.has_buffer = to.has_offset = to.has_length = 1;
        to.buffer = buffer, to.offset = out_off, to.length = 16;
        e.has_handle = 1, e.handle = handle;
        e.n_inputs = 1, e.inputs = tis;
        e.n_outputs = 1, e.outputs = tos;
        req.body_case = ACCELD__REQUEST__BODY_EXECUTE;
        req.execute = &e;
        return recv_or_die(c, send_or_die(c, &req, NULL, 0));
}

/* Prepare the small model from bytes on the reference kernels. */
static uint64_t prepare_small(harness_client_t *c) {
        Acceld__Request req = ACCELD__REQUEST__INIT;
        Acceld__PrepareModelRequest p = ACCELD__PREPARE_MODEL_REQUEST__INIT;
        Acceld__Response *r;
        size_t size;
        uint8_t *bytes = model_small(&size);
        uint64_t h;

        p.has_model = 1;
        p.model.data = bytes;
        p.model.len = size;
        p.settings_json = (char *) "{\"delegate\": \"NONE\"}";
        req.body_case = ACCELD__REQUEST__BODY_PREPARE_MODEL;
        req.prepare_model = &p;
        r = recv_or_die(c, send_or_die(c, &req, NULL, 0));
        ck_assert_msg(r->status == ACCELD__STATUS__NONE, "prepare: %s", r->message);
        h = r->prepare_model->handle;
        resp_free(r);
        free(bytes);
        return h;
}

/* Execute `handle` with inline [1, 2, 3, 4]: out = in * 2 + 1. */
static void execute_small_ok(harness_client_t *c, uint64_t handle) {
        static const float in[4] = { 1, 2, 3, 4 }, want[4] = { 3, 5, 7, 9 };
        Acceld__Request req = ACCELD__REQUEST__INIT;
        Acceld__ExecuteRequest e = ACCELD__EXECUTE_REQUEST__INIT;
        Acceld__TensorData td = ACCELD__TENSOR_DATA__INIT, *tds[1] = { &td };
        Acceld__Response *r;

        td.has_data = 1;
        td.data.data = (uint8_t *) in;
        td.data.len = sizeof(in);
        e.has_handle = 1, e.handle = handle;
        e.n_inputs = 1, e.inputs = tds;
        req.body_case = ACCELD__REQUEST__BODY_EXECUTE;
        req.execute = &e;
        r = recv_or_die(c, send_or_die(c, &req, NULL, 0));
        ck_assert_msg(r->status == ACCELD__STATUS__NONE, "execute: %s", r->message);
        ck_assert_uint_eq(r->execute->n_outputs, 1);
        ck_assert_uint_eq(r->execute->outputs[0]->data.len, sizeof(want));
        ck_assert_int_eq(memcmp(r->execute->outputs[0]->data.data, want, sizeof(want)), 0);
        resp_free(r);
}

/* acceld is running and serves a new client: prepare and execute. */
static void assert_serving(const char *when) {
        harness_client_t c;

        assert_alive(when);
        harness_client_open(&c, d.sock);
        execute_small_ok(&c, prepare_small(&c));
        harness_client_close(&c);
}

/* SIGTERM stops acceld, cleanly, and the time it took is printed. */
static void assert_stops(const char *what) {
        double t0 = now_s();
        int st = harness_signal_and_wait(&d, SIGTERM);

        ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "acceld exit status %d after %s", st, what);
        d.pid = 0;
        fprintf(stderr, "hostile-fds: %s: acceld exited %.2f s after SIGTERM\n", what, now_s() - t0);
}

/* ---- truncation from several threads ---- */

typedef struct truncator {
        pthread_t thread;
        int fd;
        const uint8_t *bytes;
        size_t size;
        atomic_bool *stop;
        unsigned long rounds;
} truncator_t;

/* Empty the file, write the model back, cut it to a third: the daemon sees
 * every size between 0 and the model's, and pages vanish under it. */
static void *truncate_loop(void *p) {
        truncator_t *t = p;

        while (!atomic_load(t->stop)) {
                (void) ftruncate(t->fd, 0);
                (void) !pwrite(t->fd, t->bytes, t->size, 0);
                (void) ftruncate(t->fd, (off_t) (t->size / 3));
                t->rounds++;
        }
        return NULL;
}

static void truncators_start(truncator_t *t, int fd, const uint8_t *bytes, size_t size, atomic_bool *stop) {
        atomic_store(stop, false);
        for (int k = 0; k < TRUNCATORS; k++) {
                t[k] = (truncator_t) { .fd = fd, .bytes = bytes, .size = size, .stop = stop };
                ck_assert_int_eq(pthread_create(&t[k].thread, NULL, truncate_loop, &t[k]), 0);
        }
}

static unsigned long truncators_stop(truncator_t *t, atomic_bool *stop) {
        unsigned long rounds = 0;

        atomic_store(stop, true);
        for (int k = 0; k < TRUNCATORS; k++) {
                ck_assert_int_eq(pthread_join(t[k].thread, NULL), 0);
                rounds += t[k].rounds;
        }
        return rounds;
}

#define TRUNCATED_REQUESTS 60

START_TEST(test_hostile_fds_truncated_memfd_prepare_and_ops) {
        truncator_t t[TRUNCATORS];
        atomic_bool stop;
        harness_client_t c;
        size_t size;
        uint8_t *bytes = model_large(&size);
        int fd = memfd_with(bytes, size);
        unsigned ok = 0, refused = 0;
        unsigned long rounds;
        int n = rounds_of(TRUNCATED_REQUESTS);

        harness_client_open(&c, d.sock);
        truncators_start(t, fd, bytes, size, &stop);
        for (int i = 0; i < n; i++) {
                /* Every other one GetSupportedOperations; the rest
                 * PrepareModel with the daemon's choice (a benchmark
                 * decision hashes the fd first) or the reference kernels. */
                uint64_t id = i % 2 == 0   ? send_ops_fd(&c, fd)
                              : i % 4 == 1 ? send_prepare_fd(&c, fd, NULL, 0)
                                           : send_prepare_fd(&c, fd, "{\"delegate\": \"NONE\"}", 0);
                Acceld__Response *r = recv_or_die(&c, id);

                if (r->status == ACCELD__STATUS__NONE)
                        ok++;
                else {
                        /* A torn model is a malformed one, never more. */
                        ck_assert_msg(r->status == ACCELD__STATUS__INVALID_ARGUMENT, "status %d: %s", r->status,
                                      r->message);
                        refused++;
                }
                resp_free(r);
        }
        rounds = truncators_stop(t, &stop);
        harness_client_close(&c);
        fprintf(stderr, "hostile-fds: truncated memfd: %d requests (%u answered ok, %u refused) during %lu "
                "truncation rounds by %d threads, 0 daemon deaths\n", n, ok, refused, rounds,
                TRUNCATORS);
        /* The same fd, left whole, is a model again. */
        ck_assert_int_eq(ftruncate(fd, 0), 0);
        ck_assert_int_eq(pwrite(fd, bytes, size, 0), (ssize_t) size);
        harness_client_open(&c, d.sock);
        {
                Acceld__Response *r = recv_or_die(&c, send_ops_fd(&c, fd));

                ck_assert_msg(r->status == ACCELD__STATUS__NONE, "%s", r->message);
                ck_assert_uint_eq(r->get_supported_operations->n_nodes, 2);
                resp_free(r);
        }
        harness_client_close(&c);
        assert_serving("after the truncation attack");
        (void) close(fd);
        free(bytes);
}
END_TEST

/* ---- shrink, then seal, inside the daemon's window ---- */

#define SEAL_RACES 150

START_TEST(test_hostile_fds_shrink_then_seal_prepare) {
        harness_client_t c;
        size_t size;
        uint8_t *bytes = model_large(&size);
        unsigned ok = 0, refused = 0;
        int n = rounds_of(SEAL_RACES);

        harness_client_open(&c, d.sock);
        for (int i = 0; i < n; i++) {
                int fd = memfd_with(bytes, size);
                uint64_t id = send_prepare_fd(&c, fd, i % 2 ? NULL : "{\"delegate\": \"NONE\"}", 0);
                Acceld__Response *r;

                /* While the daemon looks at it: shrink to one page, then
                 * seal it as a well-behaved client would. */
                ck_assert_int_eq(ftruncate(fd, 4096), 0);
                ck_assert_int_eq(fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE), 0);
                r = recv_or_die(&c, id);
                if (r->status == ACCELD__STATUS__NONE)
                        ok++;
                else {
                        ck_assert_msg(r->status == ACCELD__STATUS__INVALID_ARGUMENT, "status %d: %s", r->status,
                                      r->message);
                        refused++;
                }
                resp_free(r);
                (void) close(fd);
        }
        harness_client_close(&c);
        fprintf(stderr, "hostile-fds: shrink+seal during PrepareModel: %d attempts (%u ok, %u refused), "
                "0 daemon deaths\n", n, ok, refused);
        assert_serving("after shrink+seal during PrepareModel");
        free(bytes);
}
END_TEST

#define BUFFER_RACES 150
#define BUFFER_BIG (64u << 10)

START_TEST(test_hostile_fds_shrink_then_seal_buffer) {
        harness_client_t c;
        uint64_t h;
        unsigned registered = 0, refused = 0, executed = 0;
        int n = rounds_of(BUFFER_RACES);

        harness_client_open(&c, d.sock);
        h = prepare_small(&c);
        for (int i = 0; i < n; i++) {
                int fd = memfd_create("hostile-buffer", MFD_CLOEXEC | MFD_ALLOW_SEALING);
                uint64_t id;
                Acceld__Response *r;
                struct stat st;

                ck_assert_int_ge(fd, 0);
                ck_assert_int_eq(ftruncate(fd, BUFFER_BIG), 0);
                id = send_register(&c, fd);
                ck_assert_int_eq(ftruncate(fd, 4096), 0);
                ck_assert_int_eq(fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK), 0);
                ck_assert_int_eq(fstat(fd, &st), 0);
                r = recv_or_die(&c, id);
                if (r->status == ACCELD__STATUS__NONE) {
                        uint64_t b = r->register_buffer->buffer;

                        /* Sealed before it was sized: never the old size. */
                        ck_assert_uint_eq(r->register_buffer->size, (uint64_t) st.st_size);
                        resp_free(r);
                        registered++;
                        /* Past the file's end: refused, not a fault. */
                        r = execute_region(&c, h, b, BUFFER_BIG - 64, 0);
                        ck_assert_msg(r->status == ACCELD__STATUS__INVALID_ARGUMENT, "status %d: %s", r->status,
                                      r->message);
                        resp_free(r);
                        r = execute_region(&c, h, b, 0, 4096 - 8);
                        ck_assert_msg(r->status == ACCELD__STATUS__INVALID_ARGUMENT, "status %d: %s", r->status,
                                      r->message);
                        resp_free(r);
                        r = execute_region(&c, h, b, 0, 64);
                        ck_assert_msg(r->status == ACCELD__STATUS__NONE, "execute: %s", r->message);
                        resp_free(r);
                        executed++;
                } else {
                        ck_assert_msg(r->status == ACCELD__STATUS__INVALID_ARGUMENT, "status %d: %s", r->status,
                                      r->message);
                        ck_assert_str_eq(r->message, "the buffer must be a memfd sealed with F_SEAL_SHRINK");
                        resp_free(r);
                        refused++;
                }
                (void) close(fd);
        }
        harness_client_close(&c);
        fprintf(stderr, "hostile-fds: shrink+seal during RegisterBuffer: %d attempts (%u registered at their sealed "
                "size and executed, %u refused as unsealed), 0 daemon deaths\n", n, registered, refused);
        ck_assert_uint_eq(registered, executed);
        assert_serving("after shrink+seal during RegisterBuffer");
}
END_TEST

START_TEST(test_hostile_fds_buffer_region_past_end_refused) {
        static const float in[4] = { 1, 2, 3, 4 }, want[4] = { 3, 5, 7, 9 };
        harness_client_t c;
        Acceld__Response *r;
        uint64_t h, b;
        float *map;
        int fd = memfd_create("hostile-buffer", MFD_CLOEXEC | MFD_ALLOW_SEALING);

        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(ftruncate(fd, 4096), 0);
        ck_assert_int_eq(fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW), 0);
        map = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        ck_assert_ptr_ne(map, MAP_FAILED);
        memcpy(map, in, sizeof(in));
        harness_client_open(&c, d.sock);
        h = prepare_small(&c);
        r = recv_or_die(&c, send_register(&c, fd));
        ck_assert_msg(r->status == ACCELD__STATUS__NONE, "%s", r->message);
        ck_assert_uint_eq(r->register_buffer->size, 4096);
        b = r->register_buffer->buffer;
        resp_free(r);
        /* Input, then output, ending past the end; one starting past it. */
        static const uint64_t bad[][2] = { { 4090, 64 }, { 0, 4088 }, { 4096, 64 }, { 1ull << 40, 64 } };
        for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
                r = execute_region(&c, h, b, bad[k][0], bad[k][1]);
                ck_assert_msg(r->status == ACCELD__STATUS__INVALID_ARGUMENT, "region %zu: status %d: %s", k,
                              r->status, r->message);
                resp_free(r);
        }
        r = execute_region(&c, h, b, 0, 4096 - 16);
        ck_assert_msg(r->status == ACCELD__STATUS__NONE, "%s", r->message);
        resp_free(r);
        ck_assert_int_eq(memcmp(map + (4096 - 16) / 4, want, sizeof(want)), 0);
        harness_client_close(&c);
        assert_serving("after regions past the end");
        (void) munmap(map, 4096);
        (void) close(fd);
}
END_TEST

/* ---- a file rewritten while accelctl ops sends it ---- */

typedef struct rewriter {
        pthread_t thread;
        const char *path;
        const uint8_t *bytes;
        size_t size;
        atomic_bool stop;
        unsigned long rounds;
} rewriter_t;

/* What cp does to an existing destination: truncate, then write. */
static void *rewrite_loop(void *p) {
        rewriter_t *w = p;

        while (!atomic_load(&w->stop)) {
                int fd = open(w->path, O_WRONLY | O_TRUNC | O_CLOEXEC);

                if (fd < 0)
                        break;
                for (size_t off = 0; off < w->size;) {
                        size_t n = w->size - off < 65536 ? w->size - off : 65536;
                        ssize_t k = write(fd, w->bytes + off, n);

                        if (k <= 0)
                                break;
                        off += (size_t) k;
                }
                (void) close(fd);
                w->rounds++;
        }
        return NULL;
}

#define OPS_RUNS 12

START_TEST(test_hostile_fds_file_rewritten_during_accelctl_ops) {
        rewriter_t w = { 0 };
        size_t size;
        uint8_t *bytes = model_large(&size);
        char *path = harness_write_file(&d, "rewritten.tflite", bytes, size);
        unsigned ok = 0;
        int n = rounds_of(OPS_RUNS);

        w.path = path, w.bytes = bytes, w.size = size;
        ck_assert_int_eq(pthread_create(&w.thread, NULL, rewrite_loop, &w), 0);
        for (int i = 0; i < n; i++) {
                const char *argv[] = { harness_accelctl(), "--socket", d.sock, "ops", path, NULL };
                char *out = NULL;
                int st = harness_run(argv, &out);

                /* accelctl may report a torn model; acceld must live. */
                ok += WIFEXITED(st) && WEXITSTATUS(st) == 0;
                free(out);
                assert_alive("during accelctl ops");
        }
        atomic_store(&w.stop, true);
        ck_assert_int_eq(pthread_join(w.thread, NULL), 0);
        fprintf(stderr, "hostile-fds: accelctl ops on a file rewritten %lu times: %d runs (%u succeeded), "
                "0 daemon deaths\n", w.rounds, n, ok);
        assert_serving("after accelctl ops on a rewritten file");
        free(path);
        free(bytes);
}
END_TEST

/* ---- fds that never end ---- */

START_TEST(test_hostile_fds_dev_zero_answered) {
        harness_client_t c[3];
        uint64_t id[3];
        int zero = open("/dev/zero", O_RDONLY | O_CLOEXEC);
        double t0 = now_s();

        ck_assert_int_ge(zero, 0);
        /* Two prepares with the daemon's choice (hashed for a benchmark
         * decision first) and one GetSupportedOperations, at once. */
        for (int k = 0; k < 3; k++) {
                harness_client_open(&c[k], d.sock);
                id[k] = k < 2 ? send_prepare_fd(&c[k], zero, NULL, 0) : send_ops_fd(&c[k], zero);
        }
        for (int k = 0; k < 3; k++) {
                Acceld__Response *r = recv_or_die(&c[k], id[k]);

                ck_assert_msg(r->status == ACCELD__STATUS__RESOURCE_EXHAUSTED_PERSISTENT, "status %d: %s", r->status,
                              r->message);
                ck_assert_str_eq(r->message, "the model fd holds more than max_model_bytes (16777216)");
                resp_free(r);
                harness_client_close(&c[k]);
        }
        fprintf(stderr, "hostile-fds: 3 requests with /dev/zero answered in %.2f s\n", now_s() - t0);
        assert_serving("after /dev/zero");
        assert_stops("/dev/zero");
        (void) close(zero);
}
END_TEST

START_TEST(test_hostile_fds_sparse_tib_file_answered) {
        char path[512];
        harness_client_t c;
        Acceld__Response *r;
        int fd;
        double t0 = now_s();

        (void) snprintf(path, sizeof(path), "%s/sparse.tflite", d.dir);
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(ftruncate(fd, (off_t) 1 << 40), 0);
        harness_client_open(&c, d.sock);
        r = recv_or_die(&c, send_prepare_fd(&c, fd, NULL, 0));
        ck_assert_msg(r->status == ACCELD__STATUS__RESOURCE_EXHAUSTED_PERSISTENT, "status %d: %s", r->status,
                      r->message);
        ck_assert_str_eq(r->message, "model of 1099511627776 bytes exceeds max_model_bytes (16777216)");
        resp_free(r);
        r = recv_or_die(&c, send_ops_fd(&c, fd));
        ck_assert_msg(r->status == ACCELD__STATUS__RESOURCE_EXHAUSTED_PERSISTENT, "status %d: %s", r->status,
                      r->message);
        resp_free(r);
        /* Just under the bound, all holes: read, then refused as a model. */
        ck_assert_int_eq(ftruncate(fd, MAX_MODEL_BYTES - 1), 0);
        r = recv_or_die(&c, send_prepare_fd(&c, fd, NULL, 0));
        ck_assert_msg(r->status == ACCELD__STATUS__INVALID_ARGUMENT, "status %d: %s", r->status, r->message);
        resp_free(r);
        harness_client_close(&c);
        fprintf(stderr, "hostile-fds: 1 TiB sparse file answered in %.2f s\n", now_s() - t0);
        assert_serving("after a 1 TiB sparse file");
        assert_stops("a 1 TiB sparse file");
        (void) close(fd);
        (void) unlink(path);
}
END_TEST

START_TEST(test_hostile_fds_pipe_model) {
        harness_client_t c;
        Acceld__Response *r;
        size_t size;
        uint8_t *bytes = model_small(&size);
        int p[2];
        uint64_t h;

        harness_client_open(&c, d.sock);
        /* A pipe that ends: read whole, prepared, runs. */
        ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
        write_all(p[1], bytes, size);
        (void) close(p[1]);
        r = recv_or_die(&c, send_prepare_fd(&c, p[0], "{\"delegate\": \"NONE\"}", 0));
        ck_assert_msg(r->status == ACCELD__STATUS__NONE, "%s", r->message);
        h = r->prepare_model->handle;
        resp_free(r);
        (void) close(p[0]);
        execute_small_ok(&c, h);
        /* A pipe that never ends: its writer stays open and silent. The
         * request's deadline ends the read. */
        ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
        write_all(p[1], bytes, size / 2);
        r = recv_or_die(&c, send_prepare_fd(&c, p[0], NULL, 300000));
        ck_assert_msg(r->status == ACCELD__STATUS__MISSED_DEADLINE_PERSISTENT, "status %d: %s", r->status,
                      r->message);
        resp_free(r);
        /* The same pipe, now with data beyond any model: too big. */
        {
                static uint8_t junk[65536];
                pid_t pid = fork();

                ck_assert_int_ge(pid, 0);
                if (pid == 0) {
                        (void) close(p[0]);
                        for (size_t n = 0; n < 2 * MAX_MODEL_BYTES; n += sizeof(junk))
                                if (write(p[1], junk, sizeof(junk)) <= 0)
                                        break;
                        _exit(0);
                }
                (void) close(p[1]);
                r = recv_or_die(&c, send_ops_fd(&c, p[0]));
                ck_assert_msg(r->status == ACCELD__STATUS__RESOURCE_EXHAUSTED_PERSISTENT, "status %d: %s",
                              r->status, r->message);
                resp_free(r);
                (void) close(p[0]);
                ck_assert_int_eq(waitpid(pid, NULL, 0), pid);
        }
        harness_client_close(&c);
        assert_serving("after pipes");
        assert_stops("pipes");
        free(bytes);
}
END_TEST

int main(int argc, char **argv) {
        Suite *s = suite_create("acceld-hostile-fds");
        TCase *tc = tcase_create("hostile-fds");
        SRunner *sr;
        int failed;

        harness_init(argc, argv);
        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_set_timeout(tc, 90);
        tcase_add_test(tc, test_hostile_fds_truncated_memfd_prepare_and_ops);
        tcase_add_test(tc, test_hostile_fds_shrink_then_seal_prepare);
        tcase_add_test(tc, test_hostile_fds_shrink_then_seal_buffer);
        tcase_add_test(tc, test_hostile_fds_buffer_region_past_end_refused);
        tcase_add_test(tc, test_hostile_fds_file_rewritten_during_accelctl_ops);
        tcase_add_test(tc, test_hostile_fds_dev_zero_answered);
        tcase_add_test(tc, test_hostile_fds_sparse_tib_file_answered);
        tcase_add_test(tc, test_hostile_fds_pipe_model);
        suite_add_tcase(s, tc);
        sr = srunner_create(s);
        srunner_run_all(sr, CK_NORMAL);
        failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed ? 1 : 0;
}
