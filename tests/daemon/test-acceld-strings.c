/* SPDX-License-Identifier: Apache-2.0 */
/*
 * String tensors served by the real acceld: libaccel sets a string input
 * (TensorFlow Lite's serialized string list, any size, NULs kept) that goes
 * inline in the Execute, and reads string outputs that come back inline
 * (reply_inline); shared instances, a stateful model with strings per
 * handle, 0-d strings, the shared tf_testdata_string model against its
 * golden; hostile lists in hand-made frames (inline and in a registered
 * region) and lists over max_frame_bytes both ways: clear errors, and the
 * daemon and the connection keep serving.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "accel/accel.h"
#include "harness-frames.h"
#include "harness.h"
#include "tfb-models.h"

#define SETTINGS "{\"delegate\": \"XNNPACK\", \"xnnpack_settings\": {\"num_threads\": 1}}"

static harness_daemon_t d;

static void up(void) {
        harness_up(&d);
}

static void down(void) {
        harness_stop(&d);
        harness_cleanup(&d);
}

/* A serialized list of n items (malloc'ed); *ret_size its size. */
static uint8_t *list_make(const char *const *items, const size_t *lens, size_t n, size_t *ret_size) {
        size_t size = 4 * (n + 2), pos;
        uint8_t *b;
        int32_t v;

        for (size_t k = 0; k < n; k++)
                size += lens[k];
        b = malloc(size);
        ck_assert_ptr_nonnull(b);
        v = (int32_t) n;
        memcpy(b, &v, 4);
        pos = 4 * (n + 2);
        for (size_t k = 0; k <= n; k++) {
                v = (int32_t) pos;
                memcpy(b + 4 + 4 * k, &v, 4);
                if (k < n) {
                        memcpy(b + pos, items[k], lens[k]);
                        pos += lens[k];
                }
        }
        *ret_size = size;
        return b;
}

typedef struct opts {
        bool inline_tensors, daemon_buffer;
        accel_client_t *client;
} opts_t;

static accel_interp_t *open_interp(const uint8_t *model, size_t size, const opts_t *x, accel_model_t **ret_m) {
        accel_interp_options_t *o = accel_interp_options_create();
        accel_interp_t *it;

        ck_assert_ptr_nonnull(o);
        ck_assert_int_eq(accel_model_create(model, size, ret_m), 0);
        ck_assert_int_eq(accel_interp_options_set_socket(o, d.sock), 0);
        ck_assert_int_eq(accel_interp_options_set_settings_json(o, SETTINGS), 0);
        if (x) {
                ck_assert_int_eq(accel_interp_options_set_inline_tensors(o, x->inline_tensors), 0);
                ck_assert_int_eq(accel_interp_options_set_daemon_buffer(o, x->daemon_buffer), 0);
                ck_assert_int_eq(accel_interp_options_set_client(o, x->client), 0);
        }
        ck_assert_msg(accel_interp_create(*ret_m, o, &it) == 0, "%s", accel_last_error());
        accel_interp_options_delete(o);
        ck_assert_msg(accel_interp_allocate_tensors(it) == 0, "%s", accel_last_error());
        return it;
}

static void expect_string(const accel_tensor_t *t, size_t i, const void *want, size_t n) {
        const void *p;
        size_t len;

        ck_assert_msg(accel_tensor_string_get(t, i, &p, &len) == 0, "%s", accel_last_error());
        ck_assert_uint_eq(len, n);
        ck_assert(n == 0 || memcmp(p, want, n) == 0);
}

/* The ten strings of the gather model's input, `salt` making each run's
 * own: empty ones, NULs inside and at the end. */
static void gather_items(int salt, char buf[10][16], const char *items[10], size_t lens[10]) {
        for (int k = 0; k < 10; k++) {
                lens[k] = (size_t) ((k + salt) % 4) * 3;   /* 0, 3, 6 or 9 bytes */
                for (size_t i = 0; i < lens[k]; i++)
                        buf[k][i] = (char) ('a' + (k * 5 + (int) i + salt) % 26);
                if (lens[k] > 1)
                        buf[k][lens[k] - 1] = '\0';             /* a trailing NUL, kept */
                if (lens[k] > 4)
                        buf[k][1] = '\0';
                items[k] = buf[k];
        }
}

/* One gather invoke with `salt`'s strings and indices {i0, i0+1, i0+2}. */
static void gather_check(accel_interp_t *it, int salt, int64_t i0) {
        char buf[10][16];
        const char *items[10];
        size_t lens[10];
        int64_t idx[3] = { i0, i0 + 1, i0 + 2 };
        const accel_tensor_t *out;

        gather_items(salt, buf, items, lens);
        ck_assert_msg(accel_tensor_set_strings(accel_interp_input_tensor(it, 0), (const void *const *) items, lens,
                                               10) == 0, "%s", accel_last_error());
        ck_assert_int_eq(accel_tensor_copy_from_buffer(accel_interp_input_tensor(it, 1), idx, sizeof(idx)), 0);
        ck_assert_msg(accel_interp_invoke(it) == 0, "%s", accel_last_error());
        out = accel_interp_output_tensor(it, 0);
        ck_assert_int_eq(accel_tensor_type(out), ACCEL_TYPE_STRING);
        ck_assert_int_eq(accel_tensor_num_dims(out), 1);
        ck_assert_int_eq(accel_tensor_dim(out, 0), 3);
        ck_assert_int_eq(accel_tensor_string_count(out), 3);
        ck_assert(!accel_tensor_in_shared_memory(out));
        for (int k = 0; k < 3; k++)
                expect_string(out, (size_t) k, items[i0 + k], lens[i0 + k]);
}

/* GATHER over strings, as TensorFlow's gather_string test: through the
 * shared buffer (_i 0), inline tensors (1) and a buffer acceld allocates
 * (2); several invokes, each with its own strings. */
START_TEST(test_strings_gather) {
        opts_t x = { .inline_tensors = _i == 1, .daemon_buffer = _i == 2 };
        size_t size;
        uint8_t *model = tfb_model_gather_string(&size);
        accel_model_t *m;
        accel_interp_t *it;
        const accel_tensor_t *in;

        up();
        it = open_interp(model, size, &x, &m);
        in = accel_interp_input_tensor(it, 0);
        ck_assert_int_eq(accel_tensor_type(in), ACCEL_TYPE_STRING);
        ck_assert_uint_eq(accel_tensor_byte_size(in), 0);
        ck_assert_ptr_null(accel_tensor_data(in));
        ck_assert_int_eq(accel_tensor_string_count(in), -ENODATA);
        /* Not set yet: refused here, before anything is sent. */
        ck_assert_int_eq(accel_interp_invoke(it), -EINVAL);
        ck_assert_msg(strstr(accel_last_error(), "has not been set"), "%s", accel_last_error());
        for (int run = 0; run < 4; run++)
                gather_check(it, run, run % 7);
        /* The input reads back as set. */
        ck_assert_int_eq(accel_tensor_string_count(in), 10);
        accel_interp_delete(it);
        accel_model_delete(m);
        free(model);
        down();
}
END_TEST

/* Two connections and two interpreters on one connection share the
 * compiled instance; invokes interleaved, each gets its own strings. */
START_TEST(test_strings_shared_instance) {
        size_t size;
        uint8_t *model = tfb_model_gather_string(&size);
        accel_client_t *c;
        accel_model_t *m[3];
        accel_interp_t *it[3];

        up();
        ck_assert_int_eq(accel_connect(d.sock, &c), 0);
        it[0] = open_interp(model, size, NULL, &m[0]);
        it[1] = open_interp(model, size, &(opts_t) { .client = c }, &m[1]);
        it[2] = open_interp(model, size, &(opts_t) { .client = c }, &m[2]);
        ck_assert(accel_interp_shared(it[1]) && accel_interp_shared(it[2]));
        for (int run = 0; run < 3; run++)
                for (int k = 0; k < 3; k++)
                        gather_check(it[k], run * 3 + k, (run + k) % 7);
        for (int k = 0; k < 3; k++) {
                accel_interp_delete(it[k]);
                accel_model_delete(m[k]);
        }
        accel_disconnect(c);
        free(model);
        down();
}
END_TEST

/* The stateful counter with a string GATHER beside it: each handle counts
 * on its own variables while the strings follow each invoke's input. */
START_TEST(test_strings_stateful_per_handle) {
        size_t size;
        uint8_t *model = tfb_model_counter_string(&size);
        accel_model_t *m[2];
        accel_interp_t *it[2];

        up();
        it[0] = open_interp(model, size, NULL, &m[0]);
        it[1] = open_interp(model, size, NULL, &m[1]);
        ck_assert(accel_interp_shared(it[1]));
        for (int step = 0; step < 4; step++)
                for (int who = 0; who < 2; who++) {
                        float xv[2] = { 1.0f + (float) who, 1.0f };
                        char s[4][8];
                        const char *items[4];
                        size_t lens[4];
                        int32_t idx[2] = { (step + who) % 4, 3 - (step + who) % 4 };
                        const accel_tensor_t *y, *g;
                        const float *yv;

                        for (int k = 0; k < 4; k++) {
                                lens[k] = (size_t) snprintf(s[k], sizeof(s[k]), "%d.%d.%d", who, step, k) + 1;
                                items[k] = s[k];          /* with its NUL */
                        }
                        ck_assert_int_eq(accel_tensor_copy_from_buffer(accel_interp_input_tensor(it[who], 0), xv,
                                                                       sizeof(xv)), 0);
                        ck_assert_int_eq(accel_tensor_set_strings(accel_interp_input_tensor(it[who], 1),
                                                                  (const void *const *) items, lens, 4), 0);
                        ck_assert_int_eq(accel_tensor_copy_from_buffer(accel_interp_input_tensor(it[who], 2), idx,
                                                                       sizeof(idx)), 0);
                        ck_assert_msg(accel_interp_invoke(it[who]) == 0, "%s", accel_last_error());
                        y = accel_interp_output_tensor(it[who], 0);
                        g = accel_interp_output_tensor(it[who], 1);
                        yv = accel_tensor_data(y);
                        /* acc starts at {10, 20} and adds x each step. */
                        ck_assert_float_eq(yv[0], 10.0f + (float) (step + 1) * (1.0f + (float) who));
                        ck_assert_float_eq(yv[1], 20.0f + (float) (step + 1));
                        expect_string(g, 0, items[idx[0]], lens[idx[0]]);
                        expect_string(g, 1, items[idx[1]], lens[idx[1]]);
                }
        ck_assert_int_eq(accel_interp_reset_variables(it[0]), 1);
        for (int k = 0; k < 2; k++) {
                accel_interp_delete(it[k]);
                accel_model_delete(m[k]);
        }
        free(model);
        down();
}
END_TEST

/* A 0-d string (testStringZeroDim's 20 bytes with 16 NULs) and empty
 * strings come back exactly. */
START_TEST(test_strings_zero_dim_and_empty) {
        static const char data[20] = "abcd";
        const char *items[1] = { data };
        size_t lens[1] = { sizeof(data) }, size;
        uint8_t *model = tfb_model_string_0d(&size);
        accel_model_t *m;
        accel_interp_t *it;

        up();
        it = open_interp(model, size, NULL, &m);
        ck_assert_int_eq(accel_tensor_num_dims(accel_interp_input_tensor(it, 0)), 0);
        ck_assert_int_eq(accel_tensor_set_strings(accel_interp_input_tensor(it, 0), (const void *const *) items,
                                                  lens, 1), 0);
        ck_assert_msg(accel_interp_invoke(it) == 0, "%s", accel_last_error());
        expect_string(accel_interp_output_tensor(it, 0), 0, data, sizeof(data));
        lens[0] = 0;
        ck_assert_int_eq(accel_tensor_set_strings(accel_interp_input_tensor(it, 0), (const void *const *) items,
                                                  lens, 1), 0);
        ck_assert_msg(accel_interp_invoke(it) == 0, "%s", accel_last_error());
        expect_string(accel_interp_output_tensor(it, 0), 0, "", 0);
        ck_assert_uint_eq(accel_tensor_byte_size(accel_interp_output_tensor(it, 0)), 12);
        accel_interp_delete(it);
        accel_model_delete(m);
        free(model);
        down();
}
END_TEST

static uint8_t *file_read(const char *path, size_t *ret_size) {
        FILE *f = fopen(path, "rb");
        uint8_t *b;
        long n;

        if (!f)
                return NULL;
        ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
        n = ftell(f);
        rewind(f);
        b = malloc((size_t) n + 1);
        ck_assert_ptr_nonnull(b);
        ck_assert_uint_eq(fread(b, 1, (size_t) n, f), (size_t) n);
        fclose(f);
        *ret_size = (size_t) n;
        return b;
}

/* The shared tf_testdata_string model (string RESHAPE) against its golden:
 * the list acceld returns is byte for byte TensorFlow Lite's. */
START_TEST(test_strings_shared_model_golden) {
        const char *shared = getenv("ACCELD_SHARED_DIR");
        char path[1024];
        size_t size, in_size, out_size;
        uint8_t *model, *in, *out;
        accel_model_t *m;
        accel_interp_t *it;
        const accel_tensor_t *t;

        (void) snprintf(path, sizeof(path), "%s/models/ops/tf_testdata_string.bin", shared ? shared : "../shared");
        model = file_read(path, &size);
        if (!model) {
                fprintf(stderr, "SKIP: %s is absent\n", path);
                return;
        }
        (void) snprintf(path, sizeof(path), "%s/models/golden/tf_testdata_string/input_0.bin",
                        shared ? shared : "../shared");
        in = file_read(path, &in_size);
        (void) snprintf(path, sizeof(path), "%s/models/golden/tf_testdata_string/output_0.bin",
                        shared ? shared : "../shared");
        out = file_read(path, &out_size);
        ck_assert(in && out);
        up();
        it = open_interp(model, size, NULL, &m);
        ck_assert_msg(accel_tensor_copy_from_buffer(accel_interp_input_tensor(it, 0), in, in_size) == 0, "%s",
                      accel_last_error());
        ck_assert_msg(accel_interp_invoke(it) == 0, "%s", accel_last_error());
        t = accel_interp_output_tensor(it, 0);
        ck_assert_uint_eq(accel_tensor_byte_size(t), out_size);
        ck_assert(memcmp(accel_tensor_data(t), out, out_size) == 0);
        ck_assert_int_eq(accel_tensor_num_dims(t), 4);
        ck_assert_int_eq(accel_tensor_dim(t, 3), 12);
        accel_interp_delete(it);
        accel_model_delete(m);
        free(model);
        free(in);
        free(out);
        down();
}
END_TEST

/* libaccel checks a list before keeping it, and refuses writes to string
 * outputs; nothing reaches acceld. */
START_TEST(test_strings_client_checks) {
        size_t size, n;
        uint8_t *model = tfb_model_gather_string(&size), *good;
        const char *items[10] = { "a", "b", "c", "d", "e", "f", "g", "h", "i", "j" };
        size_t lens[10] = { 1, 1, 1, 1, 1, 1, 1, 1, 1, 1 };
        accel_model_t *m;
        accel_interp_t *it;
        accel_tensor_t *in;
        int32_t v;

        up();
        it = open_interp(model, size, NULL, &m);
        in = accel_interp_input_tensor(it, 0);
        good = list_make(items, lens, 10, &n);
        ck_assert_int_eq(accel_tensor_copy_from_buffer(in, good, n), 0);
        ck_assert_int_eq(accel_tensor_copy_from_buffer(in, good, 4), -EINVAL);           /* short */
        ck_assert_int_eq(accel_tensor_copy_from_buffer(in, good, n - 1), -EINVAL);       /* last offset */
        v = 9;
        memcpy(good, &v, 4);
        ck_assert_int_eq(accel_tensor_copy_from_buffer(in, good, n), -EINVAL);           /* count */
        ck_assert_msg(strstr(accel_last_error(), "10 elements"), "%s", accel_last_error());
        v = 10;
        memcpy(good, &v, 4);
        v = 1000;
        memcpy(good + 4 + 4 * 3, &v, 4);
        ck_assert_int_eq(accel_tensor_copy_from_buffer(in, good, n), -EINVAL);           /* past the end */
        ck_assert_int_eq(accel_tensor_set_strings(in, (const void *const *) items, lens, 9), -EINVAL);
        ck_assert_int_eq(accel_tensor_copy_from_buffer((accel_tensor_t *) accel_interp_output_tensor(it, 0), good,
                                                       n), -EINVAL);
        ck_assert_int_eq(accel_tensor_string_count(accel_interp_input_tensor(it, 1)), -EINVAL);
        /* The list kept is still the good one. */
        ck_assert_int_eq(accel_tensor_string_count(in), 10);
        expect_string(in, 9, "j", 1);
        {
                const void *p;
                size_t len;

                ck_assert_int_eq(accel_tensor_string_get(in, 10, &p, &len), -ERANGE);
        }
        free(good);
        accel_interp_delete(it);
        accel_model_delete(m);
        free(model);
        down();
}
END_TEST

/* ---- hand-made frames ---- */

static uint64_t frames_prepare(harness_client_t *c, const uint8_t *model, size_t size) {
        Acceld__Request req = ACCELD__REQUEST__INIT;
        Acceld__PrepareModelRequest p = ACCELD__PREPARE_MODEL_REQUEST__INIT;
        Acceld__Response *r;
        uint64_t h;

        p.has_model = 1;
        p.model.data = (uint8_t *) model;
        p.model.len = size;
        p.settings_json = (char *) SETTINGS;
        req.body_case = ACCELD__REQUEST__BODY_PREPARE_MODEL;
        req.prepare_model = &p;
        r = harness_transact(c, &req, NULL, 0);
        ck_assert_msg(r->status == ACCELD__STATUS__NONE, "%s", r->message);
        h = r->prepare_model->handle;
        harness_resp_free(r);
        return h;
}

/* Execute the gather model with string input `s` (inline data, or a region
 * of `buffer` at offset 0 when buffer != 0) and indices {0, 1, 2}; outputs
 * inline. */
static Acceld__Response *frames_execute(harness_client_t *c, uint64_t h, const uint8_t *s, size_t n,
                                        uint64_t buffer) {
        Acceld__Request req = ACCELD__REQUEST__INIT;
        Acceld__ExecuteRequest e = ACCELD__EXECUTE_REQUEST__INIT;
        Acceld__TensorData a = ACCELD__TENSOR_DATA__INIT, b = ACCELD__TENSOR_DATA__INIT, *in[2] = { &a, &b };
        int64_t idx[3] = { 0, 1, 2 };

        if (buffer) {
                a.has_buffer = a.has_offset = a.has_length = 1;
                a.buffer = buffer;
                a.length = n;
        } else {
                a.has_data = 1;
                a.data.data = (uint8_t *) s;
                a.data.len = n;
        }
        b.has_data = 1;
        b.data.data = (uint8_t *) idx;
        b.data.len = sizeof(idx);
        e.has_handle = 1;
        e.handle = h;
        e.n_inputs = 2;
        e.inputs = in;
        req.body_case = ACCELD__REQUEST__BODY_EXECUTE;
        req.execute = &e;
        return harness_transact(c, &req, NULL, 0);
}

static void expect_refused(Acceld__Response *r, Acceld__Status st, const char *what, const char *label) {
        ck_assert_msg(r->status == st, "%s: status %d (%s)", label, r->status, r->message ? r->message : "");
        ck_assert_msg(r->message && strstr(r->message, what), "%s: %s", label, r->message ? r->message : "");
        harness_resp_free(r);
}

static void expect_gathered(Acceld__Response *r) {
        ck_assert_msg(r->status == ACCELD__STATUS__NONE, "%s", r->message);
        ck_assert_uint_eq(r->execute->n_outputs, 1);
        ck_assert(r->execute->outputs[0]->has_data);
        /* "a", "b", "c": 4 * 5 bytes of header, then 3 bytes. */
        ck_assert_uint_eq(r->execute->outputs[0]->data.len, 23);
        ck_assert(memcmp(r->execute->outputs[0]->data.data + 20, "abc", 3) == 0);
        harness_resp_free(r);
}

/* Hostile lists: every malformed one is refused with the reason, and the
 * same connection then runs a good one. */
START_TEST(test_strings_malformed_lists) {
        const char *items[10] = { "a", "b", "c", "d", "e", "f", "g", "h", "i", "j" };
        size_t lens[10] = { 1, 1, 1, 1, 1, 1, 1, 1, 1, 1 }, size, n;
        uint8_t *model = tfb_model_gather_string(&size), *good = list_make(items, lens, 10, &n), *bad;
        harness_client_t c;
        uint64_t h;
        int32_t v;

        up();
        harness_client_open(&c, d.sock);
        h = frames_prepare(&c, model, size);
        expect_gathered(frames_execute(&c, h, good, n, 0));
        bad = malloc(n);
        ck_assert_ptr_nonnull(bad);

        memcpy(bad, good, n);
        v = 60;                         /* offsets out of order */
        memcpy(bad + 4 + 4 * 5, &v, 4);
        expect_refused(frames_execute(&c, h, bad, n, 0), ACCELD__STATUS__INVALID_ARGUMENT, "out of order", "order");
        memcpy(bad, good, n);
        v = 1 << 20;                    /* beyond the end */
        memcpy(bad + 4 + 4 * 10, &v, 4);
        expect_refused(frames_execute(&c, h, bad, n, 0), ACCELD__STATUS__INVALID_ARGUMENT, "last offset", "end");
        memcpy(bad, good, n);
        v = -1;                         /* count negative */
        memcpy(bad, &v, 4);
        expect_refused(frames_execute(&c, h, bad, n, 0), ACCELD__STATUS__INVALID_ARGUMENT, "holds -1 strings",
                       "negative");
        v = INT32_MAX;                  /* huge count */
        memcpy(bad, &v, 4);
        expect_refused(frames_execute(&c, h, bad, n, 0), ACCELD__STATUS__INVALID_ARGUMENT, "elements", "huge");
        expect_refused(frames_execute(&c, h, good, 4, 0), ACCELD__STATUS__INVALID_ARGUMENT, "too short", "short");
        expect_refused(frames_execute(&c, h, NULL, 0, 0), ACCELD__STATUS__INVALID_ARGUMENT, "too short", "empty");
        memcpy(bad, good, n);
        v = 0;                          /* first offset inside the table */
        memcpy(bad + 4, &v, 4);
        expect_refused(frames_execute(&c, h, bad, n, 0), ACCELD__STATUS__INVALID_ARGUMENT, "out of order", "first");

        /* reply_inline is instead of a region, never beside one. */
        {
                Acceld__Request req = ACCELD__REQUEST__INIT;
                Acceld__ExecuteRequest e = ACCELD__EXECUTE_REQUEST__INIT;
                Acceld__TensorData a = ACCELD__TENSOR_DATA__INIT, b = ACCELD__TENSOR_DATA__INIT;
                Acceld__TensorData o = ACCELD__TENSOR_DATA__INIT;
                Acceld__TensorData *in[2] = { &a, &b }, *out[1] = { &o };
                int64_t idx[3] = { 0, 1, 2 };

                a.has_data = b.has_data = 1;
                a.data.data = good;
                a.data.len = n;
                b.data.data = (uint8_t *) idx;
                b.data.len = sizeof(idx);
                o.has_reply_inline = o.reply_inline = 1;
                o.has_data = 1;
                e.has_handle = 1;
                e.handle = h;
                e.n_inputs = 2;
                e.inputs = in;
                e.n_outputs = 1;
                e.outputs = out;
                req.body_case = ACCELD__REQUEST__BODY_EXECUTE;
                req.execute = &e;
                expect_refused(harness_transact(&c, &req, NULL, 0), ACCELD__STATUS__INVALID_ARGUMENT,
                               "reply_inline", "reply_inline with data");
                /* Alone it is the way to have a string output back. */
                o.has_data = 0;
                expect_gathered(harness_transact(&c, &req, NULL, 0));
        }

        expect_gathered(frames_execute(&c, h, good, n, 0));
        free(bad);
        free(good);
        free(model);
        harness_client_close(&c);
        down();
}
END_TEST

/* A list in a registered region with its explicit length: it runs; a
 * malformed one is refused; one longer than max_frame_bytes is refused
 * naming the limit. */
START_TEST(test_strings_in_region) {
        const char *const args[] = { "--max-frame-bytes", "64K", NULL };
        const char *items[10] = { "a", "b", "c", "d", "e", "f", "g", "h", "i", "j" };
        size_t lens[10] = { 1, 1, 1, 1, 1, 1, 1, 1, 1, 1 }, size, n, region = 256 << 10;
        uint8_t *model = tfb_model_gather_string(&size), *good = list_make(items, lens, 10, &n), *map;
        Acceld__Request req = ACCELD__REQUEST__INIT;
        Acceld__RegisterBufferRequest rb = ACCELD__REGISTER_BUFFER_REQUEST__INIT;
        Acceld__Response *r;
        harness_client_t c;
        uint64_t h, buffer;
        int fd;
        int32_t v;

        harness_up_with(&d, args, false);
        harness_client_open(&c, d.sock);
        h = frames_prepare(&c, model, size);
        fd = memfd_create("strings", MFD_CLOEXEC | MFD_ALLOW_SEALING);
        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(ftruncate(fd, (off_t) region), 0);
        ck_assert_int_eq(fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW), 0);
        map = mmap(NULL, region, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        ck_assert(map != MAP_FAILED);
        rb.has_fd = 1;
        rb.fd = 0;
        req.body_case = ACCELD__REQUEST__BODY_REGISTER_BUFFER;
        req.register_buffer = &rb;
        r = harness_transact(&c, &req, &fd, 1);
        ck_assert_msg(r->status == ACCELD__STATUS__NONE, "%s", r->message);
        buffer = r->register_buffer->buffer;
        harness_resp_free(r);

        memcpy(map, good, n);
        expect_gathered(frames_execute(&c, h, NULL, n, buffer));
        v = 11;
        memcpy(map, &v, 4);
        expect_refused(frames_execute(&c, h, NULL, n, buffer), ACCELD__STATUS__INVALID_ARGUMENT, "elements",
                       "region count");
        memcpy(map, good, n);
        expect_refused(frames_execute(&c, h, NULL, 128 << 10, buffer), ACCELD__STATUS__RESOURCE_EXHAUSTED_PERSISTENT,
                       "max_frame_bytes", "region over the frame limit");
        expect_gathered(frames_execute(&c, h, NULL, n, buffer));
        munmap(map, region);
        close(fd);
        free(good);
        free(model);
        harness_client_close(&c);
        down();
}
END_TEST

/* A string model whose every first dimension is 1, on an instance asked
 * to batch: executions queued together still run one by one (a batch
 * cannot stack string lists), each with its own result. */
START_TEST(test_strings_never_batched) {
        size_t size;
        uint8_t *model = tfb_model_gather_string_rows(&size);
        Acceld__Request req = ACCELD__REQUEST__INIT;
        Acceld__PrepareModelRequest p = ACCELD__PREPARE_MODEL_REQUEST__INIT;
        Acceld__Response *r;
        harness_client_t c;
        uint64_t h, ids[3];

        up();
        harness_client_open(&c, d.sock);
        p.has_model = 1;
        p.model.data = model;
        p.model.len = size;
        p.settings_json = (char *) SETTINGS;
        p.has_max_batch_size = 1;
        p.max_batch_size = 4;
        p.has_max_queue_delay_us = 1;
        p.max_queue_delay_us = 200000;
        req.body_case = ACCELD__REQUEST__BODY_PREPARE_MODEL;
        req.prepare_model = &p;
        r = harness_transact(&c, &req, NULL, 0);
        ck_assert_msg(r->status == ACCELD__STATUS__NONE, "%s", r->message);
        h = r->prepare_model->handle;
        harness_resp_free(r);
        for (int k = 0; k < 3; k++) {
                char s[3][8];
                const char *items[3] = { s[0], s[1], s[2] };
                size_t lens[3], n;
                uint8_t *list;
                int32_t idx = k;
                Acceld__Request x = ACCELD__REQUEST__INIT;
                Acceld__ExecuteRequest e = ACCELD__EXECUTE_REQUEST__INIT;
                Acceld__TensorData a = ACCELD__TENSOR_DATA__INIT, b = ACCELD__TENSOR_DATA__INIT;
                Acceld__TensorData *in[2] = { &a, &b };

                for (int j = 0; j < 3; j++)
                        lens[j] = (size_t) snprintf(s[j], sizeof(s[j]), "r%d.%d", k, j);
                list = list_make(items, lens, 3, &n);
                a.has_data = b.has_data = 1;
                a.data.data = list;
                a.data.len = n;
                b.data.data = (uint8_t *) &idx;
                b.data.len = sizeof(idx);
                e.has_handle = 1;
                e.handle = h;
                e.n_inputs = 2;
                e.inputs = in;
                x.body_case = ACCELD__REQUEST__BODY_EXECUTE;
                x.execute = &e;
                ids[k] = harness_send(&c, &x, NULL, 0);
                free(list);
        }
        for (int got = 0; got < 3; got++) {
                char want[8];
                int k = 0, wn;

                /* Replies come as executions finish, in any order. */
                r = harness_recv(&c);
                while (k < 3 && r->request_id != ids[k])
                        k++;
                ck_assert_int_lt(k, 3);
                wn = snprintf(want, sizeof(want), "r%d.%d", k, k);
                ck_assert_msg(r->status == ACCELD__STATUS__NONE, "%s", r->message);
                ck_assert_uint_eq(r->execute->batch_size, 1);
                ck_assert_uint_eq(r->execute->outputs[0]->data.len, 12 + (size_t) wn);
                ck_assert(memcmp(r->execute->outputs[0]->data.data + 12, want, (size_t) wn) == 0);
                harness_resp_free(r);
        }
        harness_client_close(&c);
        free(model);
        down();
}
END_TEST

/* Lists over max_frame_bytes through libaccel: an input too big is refused
 * before it is sent (the connection stays usable); outputs too big for one
 * reply are refused by acceld naming the limit; both then run small. */
START_TEST(test_strings_over_frame_limit) {
        const char *const args[] = { "--max-frame-bytes", "64K", NULL };
        size_t size, lens[10];
        uint8_t *model = tfb_model_gather_string(&size);
        char *big = malloc(40 << 10);
        const char *items[10];
        int64_t idx[3] = { 0, 0, 0 };
        accel_model_t *m;
        accel_interp_t *it;
        accel_tensor_t *in;

        ck_assert_ptr_nonnull(big);
        memset(big, 'x', 40 << 10);
        harness_up_with(&d, args, false);
        it = open_interp(model, size, NULL, &m);
        in = accel_interp_input_tensor(it, 0);
        ck_assert_int_eq(accel_tensor_copy_from_buffer(accel_interp_input_tensor(it, 1), idx, sizeof(idx)), 0);
        for (int k = 0; k < 10; k++) {
                items[k] = big;
                lens[k] = 10 << 10;     /* 100 KiB in all */
        }
        ck_assert_int_eq(accel_tensor_set_strings(in, (const void *const *) items, lens, 10), 0);
        ck_assert_int_eq(accel_interp_invoke(it), -EMSGSIZE);
        ck_assert_int_eq(accel_last_status(), ACCEL_STATUS_RESOURCE_EXHAUSTED_PERSISTENT);
        ck_assert_msg(strstr(accel_last_error(), "max_frame_bytes (65536)"), "%s", accel_last_error());

        /* 40 KiB in, three copies of it out: the reply would be 120 KiB. */
        for (int k = 0; k < 10; k++)
                lens[k] = k == 0 ? 40 << 10 : 1;
        ck_assert_int_eq(accel_tensor_set_strings(in, (const void *const *) items, lens, 10), 0);
        ck_assert_int_eq(accel_interp_invoke(it), -ENOMEM);
        ck_assert_int_eq(accel_last_status(), ACCEL_STATUS_RESOURCE_EXHAUSTED_PERSISTENT);
        ck_assert_msg(strstr(accel_last_error(), "max_frame_bytes (65536)"), "%s", accel_last_error());

        idx[0] = idx[1] = idx[2] = 1;
        ck_assert_int_eq(accel_tensor_copy_from_buffer(accel_interp_input_tensor(it, 1), idx, sizeof(idx)), 0);
        ck_assert_msg(accel_interp_invoke(it) == 0, "%s", accel_last_error());
        expect_string(accel_interp_output_tensor(it, 0), 2, "x", 1);
        accel_interp_delete(it);
        accel_model_delete(m);
        free(big);
        free(model);
        down();
}
END_TEST

int main(int argc, char **argv) {
        Suite *s = suite_create("acceld-strings");
        TCase *tc = tcase_create("strings");
        SRunner *sr;
        int failed;

        harness_init(argc, argv);
        tcase_set_timeout(tc, 60);
        tcase_add_loop_test(tc, test_strings_gather, 0, 3);
        tcase_add_test(tc, test_strings_shared_instance);
        tcase_add_test(tc, test_strings_stateful_per_handle);
        tcase_add_test(tc, test_strings_zero_dim_and_empty);
        tcase_add_test(tc, test_strings_shared_model_golden);
        tcase_add_test(tc, test_strings_client_checks);
        tcase_add_test(tc, test_strings_malformed_lists);
        tcase_add_test(tc, test_strings_in_region);
        tcase_add_test(tc, test_strings_never_batched);
        tcase_add_test(tc, test_strings_over_frame_limit);
        suite_add_tcase(s, tc);
        sr = srunner_create(s);
        srunner_run_all(sr, CK_NORMAL);
        failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
