/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Integration: lanes (daemon/serving/lane.h) against the real acceld. A
 * lane gives the golden outputs, byte for byte those of the socket path,
 * invoke after invoke and for two clients at once; a control block
 * scribbled over, rung without inputs or rung in a storm, and a client
 * killed mid-request, cost acceld nothing (GetStatus answers, other clients
 * are served, the lane threads go away); max_lanes falls back to the
 * socket; SIGTERM ends acceld with a lane asleep and one busy.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <check.h>

#include "clock.h"
#include "file-read.h"
#include "accel/accel.h"
#include "golden.h"
#include "harness-frames.h"
#include "harness.h"
#include "ipc.h"
#include "service.pb-c.h"

#define MODEL "mobilenet_v1_0.25_224_float"
#define SETTINGS_XNNPACK "{\"delegate\": \"XNNPACK\", \"xnnpack_settings\": {\"num_threads\": 1}}"
#define REGION (4u << 20)
#define CTL_OFFSET (REGION - IPC_LANE_CTL_BYTES)
#define OUT_OFFSET (1u << 20)

static harness_daemon_t d;

typedef struct golden {
        golden_manifest_t *man;
        const golden_model_t *g;
        void *input, *want;
        size_t in_size, want_size;
} golden_t;

static void setup(void) {
        harness_up(&d);
}

static void setup_one_lane(void) {
        static const char *const args[] = { "--max-lanes", "1", NULL };

        harness_up_with(&d, args, false);
}

static void setup_uid_limit(void) {
        static const char *const args[] = { "--max-queued-per-uid", "1", NULL };

        harness_up_with(&d, args, false);
}

static void teardown(void) {
        harness_cleanup(&d);
}

static bool golden_load(golden_t *gd) {
        const char *shared = golden_shared_dir();
        char err[256];

        memset(gd, 0, sizeof(*gd));
        if (!shared || golden_manifest_load(shared, &gd->man, err, sizeof(err)) < 0) {
                fprintf(stderr, "skipped: no ../shared models\n");
                return false;
        }
        gd->g = golden_manifest_find(gd->man, MODEL);
        ck_assert_ptr_nonnull(gd->g);
        ck_assert_int_eq(acc_file_read(gd->g->inputs[0].path, &gd->input, &gd->in_size), 0);
        ck_assert_int_eq(acc_file_read(gd->g->outputs[0].path, &gd->want, &gd->want_size), 0);
        return true;
}

static void golden_done(golden_t *gd) {
        free(gd->input);
        free(gd->want);
        golden_manifest_free(gd->man);
}

static void golden_check(const golden_t *gd, const void *got) {
        golden_result_t res;

        ck_assert_int_eq(golden_compare(&gd->g->outputs[0], GOLDEN_TOL_ACCELERATED, got, gd->want_size, gd->want,
                                        gd->want_size, &res), 0);
        ck_assert_msg(res.pass, "%s", res.message);
}

/* ---- libaccel ---- */

static accel_interp_t *interp_open(const golden_t *gd, bool lane) {
        accel_model_t *m = NULL;
        accel_interp_options_t *o = accel_interp_options_create();
        accel_interp_t *it = NULL;

        ck_assert_int_eq(accel_model_create_from_file(gd->g->path, &m), 0);
        (void) accel_interp_options_set_socket(o, d.sock);
        (void) accel_interp_options_set_settings_json(o, SETTINGS_XNNPACK);
        (void) accel_interp_options_set_lane(o, lane);
        ck_assert_msg(accel_interp_create(m, o, &it) == 0, "%s", accel_last_error());
        accel_interp_options_delete(o);
        accel_model_delete(m);
        ck_assert_msg(accel_interp_allocate_tensors(it) == 0, "%s", accel_last_error());
        return it;
}

static const void *invoke_with(accel_interp_t *it, const void *in, size_t size) {
        ck_assert_int_eq(accel_tensor_copy_from_buffer(accel_interp_input_tensor(it, 0), in, size), 0);
        ck_assert_msg(accel_interp_invoke(it) == 0, "%s", accel_last_error());
        return accel_tensor_data(accel_interp_output_tensor(it, 0));
}

/* ---- frames ---- */

static Acceld__ServingStatus *status_get(harness_client_t *c, Acceld__Response **ret) {
        Acceld__Request req = ACCELD__REQUEST__INIT;
        Acceld__GetStatusRequest gs = ACCELD__GET_STATUS_REQUEST__INIT;
        Acceld__Response *r;

        req.body_case = ACCELD__REQUEST__BODY_GET_STATUS;
        req.get_status = &gs;
        r = harness_transact(c, &req, NULL, 0);
        ck_assert_msg(r->status == ACCELD__STATUS__NONE, "status: %s", r->message);
        ck_assert_ptr_nonnull(r->get_status->serving);
        *ret = r;
        return r->get_status->serving;
}

/* Open lanes, from a fresh connection. */
static unsigned lanes_open(void) {
        harness_client_t c;
        Acceld__Response *r;
        unsigned n;

        harness_client_open(&c, d.sock);
        n = status_get(&c, &r)->lanes;
        harness_resp_free(r);
        harness_client_close(&c);
        return n;
}

/* acceld's lane threads (named "acceld-lane"). */
static unsigned lane_threads(pid_t pid) {
        char path[320], comm[32];
        unsigned n = 0;
        DIR *dir;
        struct dirent *e;

        (void) snprintf(path, sizeof(path), "/proc/%d/task", (int) pid);
        dir = opendir(path);
        ck_assert_ptr_nonnull(dir);
        while ((e = readdir(dir))) {
                FILE *f;

                if (e->d_name[0] == '.')
                        continue;
                (void) snprintf(path, sizeof(path), "/proc/%d/task/%s/comm", (int) pid, e->d_name);
                f = fopen(path, "re");
                if (!f)
                        continue;       /* it just exited */
                if (fgets(comm, sizeof(comm), f) && strncmp(comm, "acceld-lane", 11) == 0)
                        n++;
                (void) fclose(f);
        }
        (void) closedir(dir);
        return n;
}

/* Wait (up to 5 s) for no lane to be open and no lane thread to be left:
 * every one was joined. */
static void lanes_gone(void) {
        for (int i = 0; i < 500; i++) {
                if (lanes_open() == 0 && lane_threads(d.pid) == 0)
                        return;
                (void) usleep(10000);
        }
        ck_abort_msg("lanes still open (%u) or lane threads left (%u)", lanes_open(), lane_threads(d.pid));
}

typedef struct raw {
        harness_client_t h;
        int bfd;
        uint8_t *map;
        uint64_t buffer, handle, lane;
        ipc_lane_ctl_t *ctl;
} raw_t;

/* A connection with a REGION-byte buffer, MODEL prepared, and a lane with
 * its input at 0, output at OUT_OFFSET and control block at CTL_OFFSET. */
static void raw_open(raw_t *c, const golden_t *gd) {
        Acceld__Request req = ACCELD__REQUEST__INIT;
        Acceld__RegisterBufferRequest rb = ACCELD__REGISTER_BUFFER_REQUEST__INIT;
        Acceld__PrepareModelRequest p = ACCELD__PREPARE_MODEL_REQUEST__INIT;
        Acceld__LaneOpenRequest lo = ACCELD__LANE_OPEN_REQUEST__INIT;
        Acceld__TensorData ti = ACCELD__TENSOR_DATA__INIT, to = ACCELD__TENSOR_DATA__INIT;
        Acceld__TensorData *tis[1] = { &ti }, *tos[1] = { &to };
        void *model;
        size_t model_size;
        Acceld__Response *r;

        harness_client_open(&c->h, d.sock);
        c->bfd = memfd_create("test-lane", MFD_CLOEXEC | MFD_ALLOW_SEALING);
        ck_assert_int_ge(c->bfd, 0);
        ck_assert_int_eq(ftruncate(c->bfd, REGION), 0);
        ck_assert_int_eq(fcntl(c->bfd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW), 0);
        c->map = mmap(NULL, REGION, PROT_READ | PROT_WRITE, MAP_SHARED, c->bfd, 0);
        ck_assert_ptr_ne(c->map, MAP_FAILED);
        c->ctl = (ipc_lane_ctl_t *) (void *) (c->map + CTL_OFFSET);
        rb.has_fd = 1;
        rb.fd = 0;
        req.body_case = ACCELD__REQUEST__BODY_REGISTER_BUFFER;
        req.register_buffer = &rb;
        r = harness_transact(&c->h, &req, &c->bfd, 1);
        ck_assert_msg(r->status == ACCELD__STATUS__NONE, "register: %s", r->message);
        c->buffer = r->register_buffer->buffer;
        harness_resp_free(r);

        ck_assert_int_eq(acc_file_read(gd->g->path, &model, &model_size), 0);
        req = (Acceld__Request) ACCELD__REQUEST__INIT;
        p.has_model = 1;
        p.model.data = model;
        p.model.len = model_size;
        p.settings_json = (char *) SETTINGS_XNNPACK;
        req.body_case = ACCELD__REQUEST__BODY_PREPARE_MODEL;
        req.prepare_model = &p;
        r = harness_transact(&c->h, &req, NULL, 0);
        free(model);
        ck_assert_msg(r->status == ACCELD__STATUS__NONE, "prepare: %s", r->message);
        c->handle = r->prepare_model->handle;
        harness_resp_free(r);

        ti.has_buffer = ti.has_offset = ti.has_length = 1;
        ti.buffer = c->buffer, ti.offset = 0, ti.length = gd->in_size;
        to.has_buffer = to.has_offset = to.has_length = 1;
        to.buffer = c->buffer, to.offset = OUT_OFFSET, to.length = gd->want_size;
        req = (Acceld__Request) ACCELD__REQUEST__INIT;
        lo.has_handle = lo.has_buffer = lo.has_control_offset = 1;
        lo.handle = c->handle;
        lo.buffer = c->buffer;
        lo.control_offset = CTL_OFFSET;
        lo.n_inputs = 1, lo.inputs = tis;
        lo.n_outputs = 1, lo.outputs = tos;
        req.body_case = ACCELD__REQUEST__BODY_LANE_OPEN;
        req.lane_open = &lo;
        r = harness_transact(&c->h, &req, NULL, 0);
        ck_assert_msg(r->status == ACCELD__STATUS__NONE, "lane open: %s", r->message);
        ck_assert_int_eq(r->body_case, ACCELD__RESPONSE__BODY_LANE_OPEN);
        c->lane = r->lane_open->lane;
        harness_resp_free(r);
}

static void raw_close(raw_t *c) {
        harness_client_close(&c->h);
        (void) munmap(c->map, REGION);
        (void) close(c->bfd);
}

/* Ring once and wait (up to 10 s) for done_seq to reach it. */
static int32_t raw_ring(raw_t *c, uint64_t deadline_us) {
        uint32_t seq = __atomic_load_n(&c->ctl->req_seq, __ATOMIC_RELAXED) + 1;
        uint64_t end = acc_now_us() + 10000000u;

        c->ctl->deadline_us = deadline_us;
        __atomic_store_n(&c->ctl->req_seq, seq, __ATOMIC_SEQ_CST);
        ipc_lane_futex_wake(&c->ctl->req_seq);
        while (__atomic_load_n(&c->ctl->done_seq, __ATOMIC_ACQUIRE) != seq) {
                ck_assert_msg(acc_now_us() < end, "the lane did not answer ring %u", seq);
                (void) usleep(100);
        }
        return c->ctl->status;
}

/* ---- tests ---- */

START_TEST(test_lane_matches_socket_and_golden) {
        golden_t gd;
        accel_interp_t *ln, *so;
        harness_client_t c;
        Acceld__Response *r;
        const Acceld__ServingStatus *st;
        void *first;

        if (!golden_load(&gd))
                return;
        ln = interp_open(&gd, true);
        so = interp_open(&gd, false);
        ck_assert(accel_interp_uses_lane(ln));
        ck_assert(!accel_interp_uses_lane(so));
        golden_check(&gd, invoke_with(ln, gd.input, gd.in_size));
        ck_assert(accel_interp_last_zero_copy(ln));
        golden_check(&gd, invoke_with(so, gd.input, gd.in_size));
        ck_assert_int_eq(memcmp(accel_tensor_data(accel_interp_output_tensor(ln, 0)),
                                accel_tensor_data(accel_interp_output_tensor(so, 0)), gd.want_size), 0);
        ck_assert_int_eq(accel_tensor_num_dims(accel_interp_output_tensor(ln, 0)),
                         accel_tensor_num_dims(accel_interp_output_tensor(so, 0)));
        first = malloc(gd.want_size);
        memcpy(first, accel_tensor_data(accel_interp_output_tensor(ln, 0)), gd.want_size);

        /* Many in a row, alternating with another input (zeros), each one
         * the socket's bytes. */
        uint8_t *zeros = calloc(1, gd.in_size);
        void *zero_want = malloc(gd.want_size);
        memcpy(zero_want, invoke_with(so, zeros, gd.in_size), gd.want_size);
        for (int k = 0; k < 200; k++) {
                bool z = k % 2;
                const void *got = invoke_with(ln, z ? zeros : gd.input, gd.in_size);

                ck_assert_msg(memcmp(got, z ? zero_want : first, gd.want_size) == 0, "invoke %d differs", k);
        }
        harness_client_open(&c, d.sock);
        st = status_get(&c, &r);
        ck_assert_uint_eq(st->lanes, 1);
        ck_assert_uint_ge(st->lane_executions, 201);
        ck_assert_uint_ge(st->executions, st->lane_executions + 2);
        ck_assert_uint_eq(st->running_requests, 0);
        harness_resp_free(r);
        harness_client_close(&c);
        accel_interp_delete(ln);
        accel_interp_delete(so);
        free(first);
        free(zeros);
        free(zero_want);
        golden_done(&gd);
}
END_TEST

typedef struct worker {
        const golden_t *gd;
        const void *input;
        const void *want;
        int runs;
        int bad;
} worker_t;

static void *worker_main(void *arg) {
        worker_t *w = arg;
        accel_interp_t *it = interp_open(w->gd, true);

        if (!accel_interp_uses_lane(it))
                w->bad = -1;
        for (int k = 0; k < w->runs && w->bad == 0; k++) {
                (void) accel_tensor_copy_from_buffer(accel_interp_input_tensor(it, 0), w->input, w->gd->in_size);
                if (accel_interp_invoke(it) < 0 ||
                    memcmp(accel_tensor_data(accel_interp_output_tensor(it, 0)), w->want, w->gd->want_size) != 0)
                        w->bad = k + 1;
        }
        accel_interp_delete(it);
        return NULL;
}

START_TEST(test_lane_two_clients_at_once) {
        golden_t gd;
        accel_interp_t *so;
        uint8_t *other;
        void *want[2];
        worker_t w[2];
        pthread_t t[2];

        if (!golden_load(&gd))
                return;
        other = malloc(gd.in_size);
        for (size_t i = 0; i < gd.in_size; i++)
                other[i] = ((const uint8_t *) gd.input)[gd.in_size - 1 - i];
        so = interp_open(&gd, false);
        want[0] = malloc(gd.want_size);
        want[1] = malloc(gd.want_size);
        memcpy(want[0], invoke_with(so, gd.input, gd.in_size), gd.want_size);
        memcpy(want[1], invoke_with(so, other, gd.in_size), gd.want_size);
        ck_assert(memcmp(want[0], want[1], gd.want_size) != 0);
        for (int i = 0; i < 2; i++) {
                w[i] = (worker_t) { .gd = &gd, .input = i ? other : gd.input, .want = want[i], .runs = 60 };
                ck_assert_int_eq(pthread_create(&t[i], NULL, worker_main, &w[i]), 0);
        }
        for (int i = 0; i < 2; i++) {
                ck_assert_int_eq(pthread_join(t[i], NULL), 0);
                ck_assert_msg(w[i].bad == 0, "client %d: %s at invoke %d", i, w[i].bad < 0 ? "no lane" : "wrong output",
                              w[i].bad);
        }
        accel_interp_delete(so);
        free(other);
        free(want[0]);
        free(want[1]);
        golden_done(&gd);
}
END_TEST

/* A control block scribbled over, rings without inputs, a ring storm
 * that never waits, absurd deadlines: acceld answers GetStatus and serves
 * others throughout, and the lane's thread goes with its connection. */
START_TEST(test_lane_hostile_control_block) {
        golden_t gd;
        raw_t c;
        accel_interp_t *so;
        harness_client_t st;
        Acceld__Response *r;
        int32_t s;

        if (!golden_load(&gd))
                return;
        so = interp_open(&gd, false);
        golden_check(&gd, invoke_with(so, gd.input, gd.in_size));
        raw_open(&c, &gd);
        ck_assert_uint_eq(lane_threads(d.pid), 1);

        /* A proper ring first: the golden output in place. */
        memcpy(c.map, gd.input, gd.in_size);
        s = raw_ring(&c, 0);
        ck_assert_int_eq(s, ACCELD__STATUS__NONE);
        golden_check(&gd, c.map + OUT_OFFSET);
        ck_assert_int_eq(c.ctl->ranks[0], 2);

        /* Rung without inputs (whatever the buffer holds: garbage). */
        for (size_t i = 0; i < gd.in_size; i++)
                c.map[i] = (uint8_t) (i * 131u);
        s = raw_ring(&c, 0);
        ck_assert(s == ACCELD__STATUS__NONE);

        /* A deadline of 1 us: missed, said so, nothing delivered late. */
        s = raw_ring(&c, 1);
        ck_assert_msg(s == ACCELD__STATUS__MISSED_DEADLINE_TRANSIENT ||
                      s == ACCELD__STATUS__MISSED_DEADLINE_PERSISTENT, "status %d: %s", s, c.ctl->message);
        /* A deadline too far to represent: none. */
        s = raw_ring(&c, UINT64_MAX);
        ck_assert_int_eq(s, ACCELD__STATUS__NONE);

        /* Garbage over the whole block, then a storm of rings nobody
         * waits for. */
        srand(7);
        for (int round = 0; round < 50; round++) {
                for (size_t i = 0; i < IPC_LANE_CTL_BYTES; i++)
                        ((uint8_t *) c.ctl)[i] = (uint8_t) rand();
                ipc_lane_futex_wake(&c.ctl->req_seq);
                (void) usleep(200);
        }
        for (int k = 0; k < 20000; k++) {
                __atomic_add_fetch(&c.ctl->req_seq, 1, __ATOMIC_SEQ_CST);
                if (k % 64 == 0)
                        ipc_lane_futex_wake(&c.ctl->req_seq);
        }
        /* Meanwhile: acceld answers and serves another client. */
        harness_client_open(&st, d.sock);
        ck_assert_uint_eq(status_get(&st, &r)->lanes, 1);
        harness_resp_free(r);
        harness_client_close(&st);
        golden_check(&gd, invoke_with(so, gd.input, gd.in_size));

        /* The lane still serves a proper ring. */
        c.ctl->deadline_us = 0;
        memcpy(c.map, gd.input, gd.in_size);
        (void) usleep(50000);
        for (int k = 0; k < 3; k++) {
                s = raw_ring(&c, 0);
                if (s == ACCELD__STATUS__NONE)
                        break;
        }
        ck_assert_int_eq(s, ACCELD__STATUS__NONE);
        golden_check(&gd, c.map + OUT_OFFSET);

        /* Closing the connection ends the lane and its thread. */
        raw_close(&c);
        lanes_gone();
        golden_check(&gd, invoke_with(so, gd.input, gd.in_size));
        accel_interp_delete(so);
        golden_done(&gd);
}
END_TEST

/* LaneClose ends a lane on a connection that stays; refusals name why. */
START_TEST(test_lane_close_and_refusals) {
        golden_t gd;
        raw_t c;
        Acceld__Request req = ACCELD__REQUEST__INIT;
        Acceld__LaneCloseRequest lc = ACCELD__LANE_CLOSE_REQUEST__INIT;
        Acceld__LaneOpenRequest lo = ACCELD__LANE_OPEN_REQUEST__INIT;
        Acceld__Response *r;

        if (!golden_load(&gd))
                return;
        raw_open(&c, &gd);
        ck_assert_uint_eq(lane_threads(d.pid), 1);
        lc.has_lane = 1;
        lc.lane = c.lane;
        req.body_case = ACCELD__REQUEST__BODY_LANE_CLOSE;
        req.lane_close = &lc;
        r = harness_transact(&c.h, &req, NULL, 0);
        ck_assert_msg(r->status == ACCELD__STATUS__NONE, "close: %s", r->message);
        harness_resp_free(r);
        /* Twice: not found. */
        r = harness_transact(&c.h, &req, NULL, 0);
        ck_assert_int_eq(r->status, ACCELD__STATUS__NOT_FOUND);
        harness_resp_free(r);
        /* A control block that does not fit the buffer; no regions. */
        lo.has_handle = lo.has_buffer = lo.has_control_offset = 1;
        lo.handle = c.handle;
        lo.buffer = c.buffer;
        lo.control_offset = REGION - 64;
        req.body_case = ACCELD__REQUEST__BODY_LANE_OPEN;
        req.lane_open = &lo;
        r = harness_transact(&c.h, &req, NULL, 0);
        ck_assert_int_eq(r->status, ACCELD__STATUS__INVALID_ARGUMENT);
        ck_assert_ptr_nonnull(strstr(r->message, "control block"));
        harness_resp_free(r);
        lo.control_offset = CTL_OFFSET;
        r = harness_transact(&c.h, &req, NULL, 0);
        ck_assert_int_eq(r->status, ACCELD__STATUS__INVALID_ARGUMENT);
        harness_resp_free(r);
        /* The connection stays, its lane thread is gone. */
        lanes_gone();
        raw_close(&c);
        golden_done(&gd);
}
END_TEST

/* Releasing the handle ends its lane (it would keep the instance past the
 * uid's model quota). */
START_TEST(test_lane_ends_with_its_handle) {
        golden_t gd;
        raw_t c;
        Acceld__Request req = ACCELD__REQUEST__INIT;
        Acceld__ReleaseModelRequest rm = ACCELD__RELEASE_MODEL_REQUEST__INIT;
        Acceld__Response *r;

        if (!golden_load(&gd))
                return;
        raw_open(&c, &gd);
        ck_assert_uint_eq(lanes_open(), 1);
        rm.has_handle = 1;
        rm.handle = c.handle;
        req.body_case = ACCELD__REQUEST__BODY_RELEASE_MODEL;
        req.release_model = &rm;
        r = harness_transact(&c.h, &req, NULL, 0);
        ck_assert_msg(r->status == ACCELD__STATUS__NONE, "release: %s", r->message);
        harness_resp_free(r);
        lanes_gone();
        raw_close(&c);
        golden_done(&gd);
}
END_TEST

/* A client killed in the middle of its invokes. */
START_TEST(test_lane_client_killed_mid_request) {
        golden_t gd;
        accel_interp_t *so;
        int pipefd[2], status;
        pid_t pid;
        char ok;

        if (!golden_load(&gd))
                return;
        so = interp_open(&gd, false);
        golden_check(&gd, invoke_with(so, gd.input, gd.in_size));
        ck_assert_int_eq(pipe(pipefd), 0);
        pid = fork();
        ck_assert_int_ge(pid, 0);
        if (pid == 0) {
                accel_interp_t *it = interp_open(&gd, true);

                if (!accel_interp_uses_lane(it))
                        _exit(3);
                (void) !write(pipefd[1], "x", 1);
                for (;;)
                        if (accel_interp_invoke(it) < 0)
                                _exit(4);
        }
        ck_assert_int_eq(read(pipefd[0], &ok, 1), 1);
        (void) usleep(30000);
        ck_assert_int_eq(kill(pid, SIGKILL), 0);
        ck_assert_int_eq(waitpid(pid, &status, 0), pid);
        ck_assert(WIFSIGNALED(status));
        lanes_gone();
        golden_check(&gd, invoke_with(so, gd.input, gd.in_size));
        accel_interp_delete(so);
        (void) close(pipefd[0]);
        (void) close(pipefd[1]);
        golden_done(&gd);
}
END_TEST

/* max_lanes 1: the second interpreter goes over the socket, with the same
 * results; when the first closes, a new one gets the lane. */
START_TEST(test_lane_limit_falls_back_to_socket) {
        golden_t gd;
        accel_interp_t *a, *b, *c;

        if (!golden_load(&gd))
                return;
        a = interp_open(&gd, true);
        b = interp_open(&gd, true);
        ck_assert(accel_interp_uses_lane(a));
        ck_assert(!accel_interp_uses_lane(b));
        golden_check(&gd, invoke_with(a, gd.input, gd.in_size));
        golden_check(&gd, invoke_with(b, gd.input, gd.in_size));
        ck_assert_uint_eq(lanes_open(), 1);
        accel_interp_delete(a);
        for (int i = 0; i < 500 && lanes_open() != 0; i++)
                (void) usleep(10000);
        c = interp_open(&gd, true);
        ck_assert(accel_interp_uses_lane(c));
        golden_check(&gd, invoke_with(c, gd.input, gd.in_size));
        accel_interp_delete(b);
        accel_interp_delete(c);
        golden_done(&gd);
}
END_TEST

/* Per uid, lanes are bounded by max_queued_per_uid (1 here): the second
 * interpreter goes over the socket, and socket requests still fit. */
START_TEST(test_lane_uid_limit) {
        golden_t gd;
        accel_interp_t *a, *b;

        if (!golden_load(&gd))
                return;
        a = interp_open(&gd, true);
        b = interp_open(&gd, true);
        ck_assert(accel_interp_uses_lane(a));
        ck_assert(!accel_interp_uses_lane(b));
        golden_check(&gd, invoke_with(b, gd.input, gd.in_size));
        golden_check(&gd, invoke_with(a, gd.input, gd.in_size));
        accel_interp_delete(a);
        accel_interp_delete(b);
        golden_done(&gd);
}
END_TEST

static void *spin_main(void *arg) {
        accel_interp_t *it = arg;

        while (accel_interp_invoke(it) == 0)
                ;
        return NULL;
}

/* SIGTERM with one lane asleep on its futex and one invoking in a loop:
 * acceld exits cleanly within shutdown_timeout_ms (10 s). */
START_TEST(test_lane_sigterm) {
        golden_t gd;
        raw_t idle;
        accel_interp_t *busy;
        pthread_t t;
        uint64_t t0;
        int status;

        if (!golden_load(&gd))
                return;
        raw_open(&idle, &gd);
        busy = interp_open(&gd, true);
        ck_assert(accel_interp_uses_lane(busy));
        ck_assert_int_eq(pthread_create(&t, NULL, spin_main, busy), 0);
        (void) usleep(100000);
        t0 = acc_now_us();
        status = harness_signal_and_wait(&d, SIGTERM);
        ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "acceld ended with status %d", status);
        /* Before shutdown_timeout_ms (10 s), whose guard would also exit
         * 0: the lanes were joined, not abandoned. */
        ck_assert_uint_lt(acc_now_us() - t0, 10000000u);
        d.pid = 0;
        /* The busy client learns that acceld went away. */
        ck_assert_int_eq(pthread_join(t, NULL), 0);
        accel_interp_delete(busy);
        raw_close(&idle);
        golden_done(&gd);
}
END_TEST

int main(int argc, char **argv) {
        Suite *s = suite_create("acceld-lane");
        TCase *tc = tcase_create("lane"), *tl = tcase_create("limit"), *tu = tcase_create("uid-limit");
        SRunner *sr;
        int failed;

        harness_init(argc, argv);
        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_set_timeout(tc, 120);
        tcase_add_test(tc, test_lane_matches_socket_and_golden);
        tcase_add_test(tc, test_lane_two_clients_at_once);
        tcase_add_test(tc, test_lane_hostile_control_block);
        tcase_add_test(tc, test_lane_close_and_refusals);
        tcase_add_test(tc, test_lane_client_killed_mid_request);
        tcase_add_test(tc, test_lane_ends_with_its_handle);
        tcase_add_test(tc, test_lane_sigterm);
        suite_add_tcase(s, tc);
        tcase_add_checked_fixture(tl, setup_one_lane, teardown);
        tcase_set_timeout(tl, 120);
        tcase_add_test(tl, test_lane_limit_falls_back_to_socket);
        suite_add_tcase(s, tl);
        tcase_add_checked_fixture(tu, setup_uid_limit, teardown);
        tcase_set_timeout(tu, 120);
        tcase_add_test(tu, test_lane_uid_limit);
        suite_add_tcase(s, tu);
        sr = srunner_create(s);
        srunner_run_all(sr, CK_NORMAL);
        failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed ? 1 : 0;
}
