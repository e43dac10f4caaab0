/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Integration: zero-copy Execute against the real acceld. Regions that meet
 * the conditions (aligned, read slack, no overlap) are run on directly and
 * the response says zero_copy; others are copied and say false; both give
 * the golden outputs; two connections executing at once on one shared
 * instance each get their own results.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <check.h>

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

static harness_daemon_t d;

typedef struct client {
        harness_client_t h; /* the connection (harness-frames.h) */
        int bfd;            /* its tensor buffer: a sealed memfd of REGION bytes */
        uint8_t *map;
        uint64_t buffer;
} client_t;

/* The golden data of MODEL, loaded once per test. */
typedef struct golden {
        golden_manifest_t *man;
        const golden_model_t *g;
        void *model, *input, *want;
        size_t model_size, in_size, want_size;
} golden_t;

static void setup(void) {
        harness_up(&d);
}

static void setup_concurrent(void) {
        static const char *const args[] = { "--worker-threads", "2", "--instance-concurrency", "2", NULL };

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
        ck_assert_int_eq(acc_file_read(gd->g->path, &gd->model, &gd->model_size), 0);
        ck_assert_int_eq(acc_file_read(gd->g->inputs[0].path, &gd->input, &gd->in_size), 0);
        ck_assert_int_eq(acc_file_read(gd->g->outputs[0].path, &gd->want, &gd->want_size), 0);
        return true;
}

static void golden_done(golden_t *gd) {
        free(gd->model);
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

/* ---- frames ---- */

static uint64_t send_req(client_t *c, Acceld__Request *req, const int *fds, size_t n_fds) {
        return harness_send(&c->h, req, fds, n_fds);
}

static Acceld__Response *recv_resp(client_t *c) {
        return harness_recv(&c->h);
}

static Acceld__Response *transact(client_t *c, Acceld__Request *req, const int *fds, size_t n_fds) {
        return harness_transact(&c->h, req, fds, n_fds);
}

#define resp_free harness_resp_free

/* Connect and register a sealed REGION-byte memfd. */
static void client_open(client_t *c) {
        Acceld__Request req = ACCELD__REQUEST__INIT;
        Acceld__RegisterBufferRequest rb = ACCELD__REGISTER_BUFFER_REQUEST__INIT;
        Acceld__Response *r;

        harness_client_open(&c->h, d.sock);
        c->bfd = memfd_create("test-zerocopy", MFD_CLOEXEC | MFD_ALLOW_SEALING);
        ck_assert_int_ge(c->bfd, 0);
        ck_assert_int_eq(ftruncate(c->bfd, REGION), 0);
        ck_assert_int_eq(fcntl(c->bfd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW), 0);
        c->map = mmap(NULL, REGION, PROT_READ | PROT_WRITE, MAP_SHARED, c->bfd, 0);
        ck_assert_ptr_ne(c->map, MAP_FAILED);
        rb.has_fd = 1;
        rb.fd = 0;
        req.body_case = ACCELD__REQUEST__BODY_REGISTER_BUFFER;
        req.register_buffer = &rb;
        r = transact(c, &req, &c->bfd, 1);
        ck_assert_msg(r->status == ACCELD__STATUS__NONE, "register: %s", r->message);
        c->buffer = r->register_buffer->buffer;
        resp_free(r);
}

static void client_close(client_t *c) {
        harness_client_close(&c->h);
        (void) munmap(c->map, REGION);
        (void) close(c->bfd);
}

static uint64_t prepare_ok(client_t *c, const golden_t *gd, bool *ret_shared) {
        Acceld__Request req = ACCELD__REQUEST__INIT;
        Acceld__PrepareModelRequest p = ACCELD__PREPARE_MODEL_REQUEST__INIT;
        Acceld__Response *r;
        uint64_t h;

        p.has_model = 1;
        p.model.data = gd->model;
        p.model.len = gd->model_size;
        p.settings_json = (char *) SETTINGS_XNNPACK;
        req.body_case = ACCELD__REQUEST__BODY_PREPARE_MODEL;
        req.prepare_model = &p;
        r = transact(c, &req, NULL, 0);
        ck_assert_msg(r->status == ACCELD__STATUS__NONE, "prepare: %s", r->message);
        h = r->prepare_model->handle;
        if (ret_shared)
                *ret_shared = r->prepare_model->shared;
        resp_free(r);
        return h;
}

/* Send an Execute with input [in_off, +in_size) and output [out_off, +want_size)
 * of the client's buffer. */
static uint64_t send_execute(client_t *c, uint64_t h, const golden_t *gd, uint64_t in_off, uint64_t out_off) {
        Acceld__Request req = ACCELD__REQUEST__INIT;
        Acceld__ExecuteRequest e = ACCELD__EXECUTE_REQUEST__INIT;
        Acceld__TensorData ti = ACCELD__TENSOR_DATA__INIT, to = ACCELD__TENSOR_DATA__INIT;
        Acceld__TensorData *tis[1] = { &ti }, *tos[1] = { &to };

        ti.has_buffer = ti.has_offset = ti.has_length = 1;
        ti.buffer = c->buffer, ti.offset = in_off, ti.length = gd->in_size;
        to.has_buffer = to.has_offset = to.has_length = 1;
        to.buffer = c->buffer, to.offset = out_off, to.length = gd->want_size;
        e.has_handle = 1, e.handle = h;
        e.n_inputs = 1, e.inputs = tis;
        e.n_outputs = 1, e.outputs = tos;
        req.body_case = ACCELD__REQUEST__BODY_EXECUTE;
        req.execute = &e;
        return send_req(c, &req, NULL, 0);
}

/* Execute and return whether the daemon reports zero-copy. */
static bool execute_ok(client_t *c, uint64_t h, const golden_t *gd, uint64_t in_off, uint64_t out_off) {
        uint64_t id = send_execute(c, h, gd, in_off, out_off);
        Acceld__Response *r = recv_resp(c);
        bool zc;

        ck_assert_uint_eq(r->request_id, id);
        ck_assert_msg(r->status == ACCELD__STATUS__NONE, "execute: %s", r->message);
        ck_assert_int_eq(r->body_case, ACCELD__RESPONSE__BODY_EXECUTE);
        ck_assert(r->execute->has_zero_copy);
        zc = r->execute->zero_copy;
        resp_free(r);
        return zc;
}

static uint64_t align64(uint64_t x) {
        return (x + 63) / 64 * 64;
}

/* ---- tests ---- */

START_TEST(test_zerocopy_aligned_regions_give_golden_outputs) {
        golden_t gd;
        client_t c;
        uint64_t h, out_off;

        if (!golden_load(&gd))
                return;
        client_open(&c);
        h = prepare_ok(&c, &gd, NULL);
        out_off = align64(gd.in_size + 16);
        memcpy(c.map, gd.input, gd.in_size);
        for (int run = 0; run < 2; run++) {
                memset(c.map + out_off, 0xa5, gd.want_size);
                ck_assert(execute_ok(&c, h, &gd, 0, out_off));
                golden_check(&gd, c.map + out_off);
        }
        /* Another aligned place in the same buffer: the pointers change. */
        memcpy(c.map + (1u << 20), gd.input, gd.in_size);
        memset(c.map + (3u << 20), 0xa5, gd.want_size);
        ck_assert(execute_ok(&c, h, &gd, 1u << 20, 3u << 20));
        golden_check(&gd, c.map + (3u << 20));
        /* The input was read in place, not written. */
        ck_assert_int_eq(memcmp(c.map, gd.input, gd.in_size), 0);
        client_close(&c);
        golden_done(&gd);
}
END_TEST

START_TEST(test_zerocopy_unqualified_regions_are_copied) {
        golden_t gd;
        client_t c;
        uint64_t h, out_off;

        if (!golden_load(&gd))
                return;
        client_open(&c);
        h = prepare_ok(&c, &gd, NULL);
        /* Unaligned input. */
        out_off = align64(gd.in_size + 64);
        memcpy(c.map + 4, gd.input, gd.in_size);
        memset(c.map + out_off, 0xa5, gd.want_size);
        ck_assert(!execute_ok(&c, h, &gd, 4, out_off));
        golden_check(&gd, c.map + out_off);
        /* Unaligned output. */
        memcpy(c.map, gd.input, gd.in_size);
        memset(c.map + out_off + 8, 0xa5, gd.want_size);
        ck_assert(!execute_ok(&c, h, &gd, 0, out_off + 8));
        golden_check(&gd, c.map + out_off + 8);
        /* An input ending at the buffer's end: no room for the read slack. */
        memcpy(c.map + REGION - gd.in_size, gd.input, gd.in_size);
        ck_assert_uint_eq((REGION - gd.in_size) % 64, 0);
        memset(c.map + out_off, 0xa5, gd.want_size);
        ck_assert(!execute_ok(&c, h, &gd, REGION - gd.in_size, out_off));
        golden_check(&gd, c.map + out_off);
        /* The output overlapping the input: copied, and still right. */
        memcpy(c.map, gd.input, gd.in_size);
        ck_assert(!execute_ok(&c, h, &gd, 0, 0));
        golden_check(&gd, c.map);
        /* And back to an aligned, separate layout: zero-copy again. */
        memcpy(c.map, gd.input, gd.in_size);
        memset(c.map + out_off, 0xa5, gd.want_size);
        ck_assert(execute_ok(&c, h, &gd, 0, out_off));
        golden_check(&gd, c.map + out_off);
        client_close(&c);
        golden_done(&gd);
}
END_TEST

/*
 * Two connections share one instance (two interpreters, two workers) and
 * pipeline executes with different inputs: every output region gets the
 * result of its own input, bit for bit what the copy path gives.
 */
START_TEST(test_zerocopy_two_connections_one_shared_instance) {
        enum { RUNS = 4 };
        golden_t gd;
        client_t c[2];
        uint64_t h[2], ids[2][RUNS], out_off[RUNS];
        uint8_t *want[2];

        if (!golden_load(&gd))
                return;
        for (int k = 0; k < 2; k++) {
                bool shared;

                client_open(&c[k]);
                h[k] = prepare_ok(&c[k], &gd, &shared);
                /* The second connection gets the first one's instance. */
                ck_assert_int_eq(shared, k == 1);
        }
        /* Connection 1 runs the golden input mirrored. */
        {
                const float *src = gd.input;
                float *dst = (float *) c[1].map;
                size_t n = gd.in_size / sizeof(float);

                for (size_t i = 0; i < n; i++)
                        dst[i] = src[n - 1 - i];
        }
        memcpy(c[0].map, gd.input, gd.in_size);
        for (int run = 0; run < RUNS; run++)
                out_off[run] = align64(gd.in_size + 16) + (uint64_t) run * align64(gd.want_size);
        /* The expected outputs, from the copy path (overlapping output). */
        for (int k = 0; k < 2; k++) {
                uint8_t *scratch = c[k].map + (2u << 20);

                memcpy(scratch, c[k].map, gd.in_size);
                ck_assert(!execute_ok(&c[k], h[k], &gd, 2u << 20, 2u << 20));
                want[k] = malloc(gd.want_size);
                ck_assert_ptr_nonnull(want[k]);
                memcpy(want[k], scratch, gd.want_size);
        }
        golden_check(&gd, want[0]);
        ck_assert_int_ne(memcmp(want[0], want[1], gd.want_size), 0);
        for (int run = 0; run < RUNS; run++)
                for (int k = 0; k < 2; k++) {
                        memset(c[k].map + out_off[run], 0xa5, gd.want_size);
                        ids[k][run] = send_execute(&c[k], h[k], &gd, 0, out_off[run]);
                }
        for (int k = 0; k < 2; k++)
                for (int run = 0; run < RUNS; run++) {
                        Acceld__Response *r = recv_resp(&c[k]);
                        int which = -1;

                        for (int q = 0; q < RUNS; q++)
                                if (ids[k][q] == r->request_id)
                                        which = q;
                        ck_assert_int_ge(which, 0);
                        ck_assert_msg(r->status == ACCELD__STATUS__NONE, "execute: %s", r->message);
                        ck_assert(r->execute->has_zero_copy && r->execute->zero_copy);
                        resp_free(r);
                }
        for (int k = 0; k < 2; k++)
                for (int run = 0; run < RUNS; run++)
                        ck_assert_msg(memcmp(c[k].map + out_off[run], want[k], gd.want_size) == 0,
                                      "connection %d run %d: wrong output", k, run);
        for (int k = 0; k < 2; k++) {
                free(want[k]);
                client_close(&c[k]);
        }
        golden_done(&gd);
}
END_TEST

/* libaccel's allocate-tensors regions qualify: the TFLite-C-like API gets
 * zero-copy by default. */
START_TEST(test_zerocopy_libaccel_regions_qualify) {
        golden_t gd;
        accel_model_t *m = NULL;

        if (!golden_load(&gd))
                return;
        ck_assert_int_eq(accel_model_create_from_file(gd.g->path, &m), 0);
        accel_interp_options_t *o = accel_interp_options_create();
        (void) accel_interp_options_set_socket(o, d.sock);
        (void) accel_interp_options_set_settings_json(o, SETTINGS_XNNPACK);
        accel_interp_t *it = NULL;
        ck_assert_msg(accel_interp_create(m, o, &it) == 0, "%s", accel_last_error());
        accel_interp_options_delete(o);
        ck_assert_int_eq(accel_interp_allocate_tensors(it), 0);
        ck_assert(!accel_interp_last_zero_copy(it));
        ck_assert_int_eq(accel_tensor_copy_from_buffer(accel_interp_input_tensor(it, 0), gd.input, gd.in_size), 0);
        ck_assert_msg(accel_interp_invoke(it) == 0, "%s", accel_last_error());
        ck_assert(accel_interp_last_zero_copy(it));
        golden_check(&gd, accel_tensor_data(accel_interp_output_tensor(it, 0)));
        accel_interp_delete(it);
        accel_model_delete(m);
        golden_done(&gd);
}
END_TEST

int main(int argc, char **argv) {
        Suite *s = suite_create("acceld-zerocopy");
        TCase *tc = tcase_create("zerocopy"), *tw = tcase_create("concurrent");
        SRunner *sr;
        int failed;

        harness_init(argc, argv);
        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_set_timeout(tc, 60);
        tcase_add_test(tc, test_zerocopy_aligned_regions_give_golden_outputs);
        tcase_add_test(tc, test_zerocopy_unqualified_regions_are_copied);
        tcase_add_test(tc, test_zerocopy_libaccel_regions_qualify);
        suite_add_tcase(s, tc);
        tcase_add_checked_fixture(tw, setup_concurrent, teardown);
        tcase_set_timeout(tw, 60);
        tcase_add_test(tw, test_zerocopy_two_connections_one_shared_instance);
        suite_add_tcase(s, tw);
        sr = srunner_create(s);
        srunner_run_all(sr, CK_NORMAL);
        failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed ? 1 : 0;
}
