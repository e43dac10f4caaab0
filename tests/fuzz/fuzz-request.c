/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Fuzz target for request decoding: the input is a byte stream a client
 * sends on one connection. It goes through the daemon's real path, with no
 * socket path or systemd involved: a socketpair adopted by a daemon_server_t
 * with serving set up, the libuv loop reading, framing, unpacking
 * acceld.Request and dispatching every request to its handler (which bounds
 * every size, count, index and id from the wire). Compilations and
 * executions reach the worker thread like in acceld. The peer end is
 * drained so replies never block; the input ends with EOF.
 *
 * Built two ways, like fuzz-model.c:
 *  - with -Dfuzz=true (clang): the libFuzzer target fuzz-request;
 *  - always: fuzz-request-replay, which runs built-in seed streams (one per
 *    request type, valid and out of range) and every file named on the
 *    command line (or found in a named directory) through the entry point.
 *    `fuzz-request-replay --write-seed FILE` also saves the seed stream, a
 *    starting corpus for the libFuzzer target:
 *
 *      build/tests/fuzz/fuzz-request-replay --write-seed corpus/seed
 *      build-fuzz/tests/fuzz/fuzz-request -max_total_time=60 -max_len=4096 corpus
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <uv.h>

#include "daemon-config.h"
#include "log.h"
#include "server.h"
#include "serving.h"

static void drain(int fd) {
        char buf[65536];

        while (read(fd, buf, sizeof(buf)) > 0)
                ;
}

static bool drained;

static void on_drained(daemon_server_t *s) {
        (void) s;
        drained = true;
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv) {
        (void) argc;
        (void) argv;
        /* Every bad frame would log a warning otherwise; FUZZ_DEBUG=1
         * shows the daemon's debug log (each request and its outcome). */
        daemon_log_setup(DAEMON_LOG_TARGET_STDERR, getenv("FUZZ_DEBUG") ? LOG_DEBUG : LOG_CRIT);
        return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        daemon_config_t cfg;
        daemon_server_t srv;
        daemon_serving_t sv;
        uv_loop_t loop;
        int sp[2];
        size_t off = 0;

        daemon_config_init(&cfg);
        cfg.max_frame_bytes = 1 << 20;
        cfg.worker_threads = 1;
        cfg.max_model_bytes = 1 << 20;
        cfg.shutdown_timeout_ms = 0;
        if (uv_loop_init(&loop) < 0)
                abort();
        daemon_server_init(&srv, &loop, &cfg);
        if (daemon_serving_init(&sv, &srv) < 0)
                abort();
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sp) < 0)
                abort();
        (void) daemon_server_adopt(&srv, sp[0]);

        /* Feed the stream in chunks the socket takes, running the loop
         * in between, then EOF. */
        for (int spins = 0; spins < 100000 && off < size; spins++) {
                ssize_t n = write(sp[1], data + off, size - off);

                if (n > 0)
                        off += (size_t) n;
                else if (n < 0 && errno != EAGAIN)
                        break;
                (void) uv_run(&loop, UV_RUN_NOWAIT);
                drain(sp[1]);
        }
        (void) shutdown(sp[1], SHUT_WR);
        /* Let deferred work come back (bounded), then shut down. */
        for (int spins = 0; spins < 2000 && srv.n_conns > 0; spins++) {
                (void) uv_run(&loop, UV_RUN_NOWAIT);
                drain(sp[1]);
                if (spins > 10)
                        usleep(100);
        }
        drained = false;
        daemon_server_shutdown(&srv, on_drained);
        for (int spins = 0; spins < 100000 && !drained; spins++) {
                (void) uv_run(&loop, UV_RUN_NOWAIT);
                drain(sp[1]);
                if (spins > 10)
                        usleep(100);
        }
        if (!drained)
                abort();   /* a connection that never lets go */
        daemon_serving_done(&sv);
        (void) uv_run(&loop, UV_RUN_DEFAULT);
        daemon_server_done(&srv);
        if (uv_loop_close(&loop) != 0)
                abort();
        (void) close(sp[1]);
        daemon_config_done(&cfg);
        return 0;
}

#ifdef FUZZ_REPLAY
#include "ipc.h"

/* Append one framed request to buf. */
static void frame(uint8_t **buf, size_t *len, Acceld__Request *req) {
        size_t n = acceld__request__get_packed_size(req);
        uint8_t *b = realloc(*buf, *len + 4 + n);

        if (!b)
                abort();
        b[*len] = (uint8_t) n;
        b[*len + 1] = (uint8_t) (n >> 8);
        b[*len + 2] = (uint8_t) (n >> 16);
        b[*len + 3] = (uint8_t) (n >> 24);
        (void) acceld__request__pack(req, b + *len + 4);
        *buf = b;
        *len += 4 + n;
}

static const char *seed_out;   /* --write-seed FILE: save the seed stream */

static int run_seeds(void) {
        uint8_t *buf = NULL;
        size_t len = 0;
        int count = 0;
        Acceld__Request req;
        Acceld__PrepareModelRequest pm = ACCELD__PREPARE_MODEL_REQUEST__INIT;
        Acceld__ReleaseModelRequest rm = ACCELD__RELEASE_MODEL_REQUEST__INIT;
        Acceld__ExecuteRequest ex = ACCELD__EXECUTE_REQUEST__INIT;
        Acceld__TensorData td = ACCELD__TENSOR_DATA__INIT, *tds[2] = { &td, &td };
        Acceld__RegisterBufferRequest rb = ACCELD__REGISTER_BUFFER_REQUEST__INIT;
        Acceld__UnregisterBufferRequest ub = ACCELD__UNREGISTER_BUFFER_REQUEST__INIT;
        Acceld__AllocateBufferRequest ab = ACCELD__ALLOCATE_BUFFER_REQUEST__INIT;
        Acceld__CancelRequest cr = ACCELD__CANCEL_REQUEST__INIT;
        Acceld__GetSupportedOperationsRequest so = ACCELD__GET_SUPPORTED_OPERATIONS_REQUEST__INIT;
        Acceld__ResizeInputsRequest ri = ACCELD__RESIZE_INPUTS_REQUEST__INIT;
        Acceld__TensorShape sh = ACCELD__TENSOR_SHAPE__INIT, *shs[1] = { &sh };
        Acceld__ListModelsRequest lm = ACCELD__LIST_MODELS_REQUEST__INIT;
        Acceld__RemoveModelRequest rem = ACCELD__REMOVE_MODEL_REQUEST__INIT;
        Acceld__GetStatusRequest gs = ACCELD__GET_STATUS_REQUEST__INIT;
        int32_t dims[3] = { 1, -4, 1 << 30 }, roles[2] = { 0, 99 };
        static uint8_t junk[64] = "TFL3 not a model";

#define SEND(field, value, bodycase)                                    \
        do {                                                            \
                acceld__request__init(&req);                            \
                req.has_request_id = 1;                                 \
                req.request_id = (uint64_t) ++count;                    \
                req.body_case = bodycase;                               \
                req.field = value;                                      \
                frame(&buf, &len, &req);                                \
        } while (0)

        pm.has_model = 1;
        pm.model.data = junk;
        pm.model.len = sizeof(junk);
        SEND(prepare_model, &pm, ACCELD__REQUEST__BODY_PREPARE_MODEL);
        pm.settings_json = (char *) "{\"delegate\": \"NONE\", \"cpu_settings\": {\"num_threads\": -7}}";
        SEND(prepare_model, &pm, ACCELD__REQUEST__BODY_PREPARE_MODEL);
        pm.settings_json = NULL;
        pm.has_model_fd = 1;
        pm.model_fd = 5;
        SEND(prepare_model, &pm, ACCELD__REQUEST__BODY_PREPARE_MODEL);
        pm.has_model = 0;
        SEND(prepare_model, &pm, ACCELD__REQUEST__BODY_PREPARE_MODEL);
        pm.has_model_fd = 0;
        pm.sha256 = (char *) "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";
        SEND(prepare_model, &pm, ACCELD__REQUEST__BODY_PREPARE_MODEL);
        rm.has_handle = 1;
        rm.handle = 1;
        SEND(release_model, &rm, ACCELD__REQUEST__BODY_RELEASE_MODEL);
        ex.has_handle = 1;
        ex.handle = 1;
        ex.n_inputs = 2;
        ex.inputs = tds;
        td.has_buffer = td.has_offset = td.has_length = 1;
        td.buffer = 1;
        td.offset = UINT64_MAX - 3;
        td.length = 8;
        SEND(execute, &ex, ACCELD__REQUEST__BODY_EXECUTE);
        rb.has_fd = 1;
        rb.fd = -1;
        SEND(register_buffer, &rb, ACCELD__REQUEST__BODY_REGISTER_BUFFER);
        ub.has_buffer = 1;
        ub.buffer = 77;
        SEND(unregister_buffer, &ub, ACCELD__REQUEST__BODY_UNREGISTER_BUFFER);
        ab.has_size = 1;
        ab.size = 4096;
        SEND(allocate_buffer, &ab, ACCELD__REQUEST__BODY_ALLOCATE_BUFFER);
        ab.size = UINT64_MAX;
        SEND(allocate_buffer, &ab, ACCELD__REQUEST__BODY_ALLOCATE_BUFFER);
        ab.has_handle = 1;
        ab.handle = 1;
        ab.n_input_roles = 2;
        ab.input_roles = roles;
        SEND(allocate_buffer, &ab, ACCELD__REQUEST__BODY_ALLOCATE_BUFFER);
        cr.has_target_request_id = 1;
        cr.target_request_id = 1;
        SEND(cancel, &cr, ACCELD__REQUEST__BODY_CANCEL);
        so.has_model = 1;
        so.model.data = junk;
        so.model.len = sizeof(junk);
        SEND(get_supported_operations, &so, ACCELD__REQUEST__BODY_GET_SUPPORTED_OPERATIONS);
        sh.n_dims = 3;
        sh.dims = dims;
        ri.has_handle = 1;
        ri.handle = 1;
        ri.n_shapes = 1;
        ri.shapes = shs;
        SEND(resize_inputs, &ri, ACCELD__REQUEST__BODY_RESIZE_INPUTS);
        SEND(list_models, &lm, ACCELD__REQUEST__BODY_LIST_MODELS);
        rem.sha256 = pm.sha256;
        SEND(remove_model, &rem, ACCELD__REQUEST__BODY_REMOVE_MODEL);
        SEND(get_status, &gs, ACCELD__REQUEST__BODY_GET_STATUS);
        if (seed_out) {
                FILE *f = fopen(seed_out, "wb");

                if (!f || fwrite(buf, 1, len, f) != len || fclose(f) != 0)
                        return -EIO;
        }
        /* The whole stream, then every prefix-truncated variant of it. */
        (void) LLVMFuzzerTestOneInput(buf, len);
        for (size_t cut = 1; cut < len; cut += len / 16 + 1)
                (void) LLVMFuzzerTestOneInput(buf, cut);
        /* A frame header announcing more than max_frame_bytes. */
        {
                static const uint8_t big[8] = { 0xff, 0xff, 0xff, 0x7f, 1, 2, 3, 4 };

                (void) LLVMFuzzerTestOneInput(big, sizeof(big));
        }
        free(buf);
        printf("fuzz-request-replay: %d seed requests ok\n", count);
        return 0;
}

static int run_file(const char *path) {
        FILE *f = fopen(path, "rb");
        uint8_t *b;
        long n;

        if (!f)
                return -errno;
        (void) fseek(f, 0, SEEK_END);
        n = ftell(f);
        (void) fseek(f, 0, SEEK_SET);
        b = malloc(n > 0 ? (size_t) n : 1);
        if (!b || fread(b, 1, (size_t) n, f) != (size_t) n) {
                free(b);
                fclose(f);
                return -EIO;
        }
        fclose(f);
        (void) LLVMFuzzerTestOneInput(b, (size_t) n);
        free(b);
        return 0;
}

int main(int argc, char **argv) {
        int first = 1;

        (void) LLVMFuzzerInitialize(&argc, &argv);
        if (argc > 2 && strcmp(argv[1], "--write-seed") == 0) {
                seed_out = argv[2];
                first = 3;
        }
        if (run_seeds() < 0)
                return 1;
        for (int i = first; i < argc; i++) {
                struct stat st;

                if (stat(argv[i], &st) < 0)
                        continue;
                if (S_ISDIR(st.st_mode)) {
                        DIR *d = opendir(argv[i]);
                        struct dirent *e;

                        while (d && (e = readdir(d))) {
                                char p[4096];

                                if (e->d_name[0] == '.')
                                        continue;
                                (void) snprintf(p, sizeof(p), "%s/%s", argv[i], e->d_name);
                                (void) run_file(p);
                        }
                        if (d)
                                closedir(d);
                } else
                        (void) run_file(argv[i]);
        }
        return 0;
}
#endif
