/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Per-client state of stateful models: two clients of one shared instance
 * (two connections, or two processes), their invokes interleaved, each get
 * byte for byte what they get alone; ResetVariables puts one client back
 * to the fresh state without touching the other; executions of a stateful
 * model are never batched together.
 *
 * The "placed" case runs the same checks on clients acceld placed in their
 * own process (client_placement_min_served: the first, served, executions
 * give the compute, every later prepare runs in the client), against what
 * the served clients got alone.
 *
 * A client is a small interface (client_t): in this process (a libaccel
 * interpreter on its own connection) or in a forked child driven over a
 * pipe, with an optional hook the child runs before connecting (e.g. to
 * become another uid).
 */
#include <check.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <grp.h>
#include <unistd.h>

#include "accel/accel.h"
#include "harness-frames.h"
#include "harness-users.h"
#include "harness.h"
#include "tfb-models.h"
#include "tflite-builder.h"

#define STEPS 5
#define CLIENTS 2
#define OUT_MAX (64u << 10)
#define SETTINGS "{\"delegate\": \"XNNPACK\", \"xnnpack_settings\": {\"num_threads\": 1}}"

static harness_daemon_t d;

/* Two real unprivileged users in one group (made in main() when running as
 * root with useradd; the two-uid test returns early otherwise). */
static harness_user_t users[CLIENTS];
static bool have_users;

/* The placed case: once alone() has run (served) every client must be
 * placed in its process (checked in client_local(), and by the parent for
 * a child's). */
static bool placed_case, expect_placed;
static bool in_child;

/* ---- the models ---- */

typedef struct model {
        const char *name;
        uint8_t *(*build)(size_t *ret_size);  /* tests/builder, or NULL: ../shared/models/<name>.tflite */
} model_t;

static const model_t models[] = {
        { "counter (VAR_HANDLE, READ/ASSIGN_VARIABLE, CALL_ONCE)", tfb_model_counter },
        { "lstm (UNIDIRECTIONAL_SEQUENCE_LSTM, variable states)", tfb_model_lstm },
        { "micro_speech_lstm", NULL },
        { "dtln_noise_suppression", NULL },
        { "mnist_lstm_int8", NULL },
        { "keyword_scrambled", NULL },
};
#define N_MODELS ((int) (sizeof(models) / sizeof(models[0])))

/* The model's bytes (malloc'ed), or NULL (skip) when a shared one is absent. */
static uint8_t *model_bytes(const model_t *m, size_t *ret_size) {
        const char *shared = getenv("ACCELD_SHARED_DIR");
        char path[1024];
        FILE *f;
        uint8_t *b;
        long n;

        if (m->build)
                return m->build(ret_size);
        (void) snprintf(path, sizeof(path), "%s/models/%s.tflite", shared ? shared : "../shared", m->name);
        f = fopen(path, "rb");
        if (!f) {
                fprintf(stderr, "SKIP %s: %s is absent\n", m->name, path);
                return NULL;
        }
        ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
        n = ftell(f);
        rewind(f);
        b = malloc((size_t) n);
        ck_assert_ptr_nonnull(b);
        ck_assert_uint_eq(fread(b, 1, (size_t) n, f), (size_t) n);
        fclose(f);
        *ret_size = (size_t) n;
        return b;
}

/* ---- the client interface ---- */

typedef struct client client_t;
struct client {
        /* Run input `step` of client `who` (deterministic bytes), and put
         * every output, concatenated, in out (OUT_MAX); *ret_n its size. */
        void (*step)(client_t *c, int who, int step, uint8_t *out, size_t *ret_n);
        /* Start that step and finish it (for concurrent invokes); in-process only. */
        void (*start)(client_t *c, int who, int step);
        void (*finish)(client_t *c, uint8_t *out, size_t *ret_n);
        /* ResetVariables; returns accel_interp_reset_variables()'s value. */
        int (*reset)(client_t *c);
        void (*close)(client_t *c);
        /* in-process */
        accel_model_t *m;
        accel_interp_t *it;
        /* child process */
        pid_t pid;
        int cmd, ack;
        uint8_t *shm;           /* OUT_MAX + sizeof(size_t), shared with the child */
};

/* Deterministic inputs: finite values in [-1, 1] for floats. */
static void inputs_fill(accel_interp_t *it, int who, int step) {
        for (int32_t k = 0; k < accel_interp_input_count(it); k++) {
                accel_tensor_t *t = accel_interp_input_tensor(it, k);
                uint8_t *p = accel_tensor_data(t);
                size_t n = accel_tensor_byte_size(t);
                uint32_t x = (uint32_t) (who * 7919 + step * 104729 + k * 31) * 2654435761u + 1u;

                if (accel_tensor_type(t) == ACCEL_TYPE_FLOAT32)
                        for (size_t i = 0; i < n / 4; i++) {
                                float f;

                                x = x * 1103515245u + 12345u;
                                f = (float) ((x >> 16) % 2001u) / 1000.0f - 1.0f;
                                memcpy(p + 4 * i, &f, 4);
                        }
                else
                        for (size_t i = 0; i < n; i++) {
                                x = x * 1103515245u + 12345u;
                                p[i] = (uint8_t) (x >> 16);
                        }
        }
}

static void outputs_get(accel_interp_t *it, uint8_t *out, size_t *ret_n) {
        size_t n = 0;

        for (int32_t k = 0; k < accel_interp_output_count(it); k++) {
                const accel_tensor_t *t = accel_interp_output_tensor(it, k);
                size_t b = accel_tensor_byte_size(t);

                ck_assert_uint_le(n + b, OUT_MAX);
                memcpy(out + n, accel_tensor_data(t), b);
                n += b;
        }
        *ret_n = n;
}

static void local_step(client_t *c, int who, int step, uint8_t *out, size_t *ret_n) {
        inputs_fill(c->it, who, step);
        ck_assert_msg(accel_interp_invoke(c->it) == 0, "%s", accel_last_error());
        outputs_get(c->it, out, ret_n);
}

static void local_start(client_t *c, int who, int step) {
        inputs_fill(c->it, who, step);
        ck_assert_msg(accel_interp_invoke_start(c->it) == 0, "%s", accel_last_error());
}

static void local_finish(client_t *c, uint8_t *out, size_t *ret_n) {
        ck_assert_msg(accel_interp_invoke_wait(c->it) == 0, "%s", accel_last_error());
        outputs_get(c->it, out, ret_n);
}

static int local_reset(client_t *c) {
        return accel_interp_reset_variables(c->it);
}

static void local_close(client_t *c) {
        accel_interp_delete(c->it);
        accel_model_delete(c->m);
        free(c);
}

/* A client in this process: its own connection to acceld. `batch`: ask
 * for dynamic batching when this prepare creates the instance. */
static client_t *client_local(const uint8_t *model, size_t size, unsigned batch) {
        client_t *c = calloc(1, sizeof(*c));
        accel_interp_options_t *o = accel_interp_options_create();

        ck_assert_ptr_nonnull(c);
        ck_assert_ptr_nonnull(o);
        ck_assert_int_eq(accel_model_create(model, size, &c->m), 0);
        ck_assert_int_eq(accel_interp_options_set_socket(o, d.sock), 0);
        ck_assert_int_eq(accel_interp_options_set_settings_json(o, SETTINGS), 0);
        if (batch)
                ck_assert_int_eq(accel_interp_options_set_batching(o, batch, 200000), 0);
        ck_assert_msg(accel_interp_create(c->m, o, &c->it) == 0, "%s", accel_last_error());
        accel_interp_options_delete(o);
        if (expect_placed && !in_child)
                ck_assert_msg(strcmp(accel_interp_placement(c->it), "client") == 0, "served: %s",
                              accel_interp_placement_reason(c->it));
        ck_assert_msg(accel_interp_allocate_tensors(c->it) == 0, "%s", accel_last_error());
        c->step = local_step;
        c->start = local_start;
        c->finish = local_finish;
        c->reset = local_reset;
        c->close = local_close;
        return c;
}

/* The child process's side: commands over a pipe, results in shared memory. */
typedef struct proc_cmd {
        char op;                /* 's' step, 'r' reset, 'q' quit */
        int32_t who, step;
} proc_cmd_t;

static void proc_serve(client_t *c, int cmd, int ack) {
        proc_cmd_t m;
        int32_t r;

        while (read(cmd, &m, sizeof(m)) == (ssize_t) sizeof(m) && m.op != 'q') {
                if (m.op == 's') {
                        size_t n;

                        inputs_fill(c->it, m.who, m.step);
                        r = accel_interp_invoke(c->it);
                        if (r == 0) {
                                outputs_get(c->it, c->shm + sizeof(size_t), &n);
                                memcpy(c->shm, &n, sizeof(n));
                        }
                } else
                        r = accel_interp_reset_variables(c->it);
                if (write(ack, &r, sizeof(r)) != (ssize_t) sizeof(r))
                        break;
        }
}

static int32_t proc_call(client_t *c, char op, int who, int step) {
        proc_cmd_t m = { .op = op, .who = who, .step = step };
        int32_t r;

        ck_assert_int_eq(write(c->cmd, &m, sizeof(m)), (ssize_t) sizeof(m));
        ck_assert_int_eq(read(c->ack, &r, sizeof(r)), (ssize_t) sizeof(r));
        return r;
}

static void proc_step(client_t *c, int who, int step, uint8_t *out, size_t *ret_n) {
        ck_assert_int_eq(proc_call(c, 's', who, step), 0);
        memcpy(ret_n, c->shm, sizeof(*ret_n));
        memcpy(out, c->shm + sizeof(size_t), *ret_n);
}

static int proc_reset(client_t *c) {
        return proc_call(c, 'r', 0, 0);
}

static void proc_close(client_t *c) {
        proc_cmd_t m = { .op = 'q' };
        int status;

        (void) !write(c->cmd, &m, sizeof(m));
        ck_assert_int_eq(waitpid(c->pid, &status, 0), c->pid);
        ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "client process status %d", status);
        close(c->cmd);
        close(c->ack);
        munmap(c->shm, OUT_MAX + sizeof(size_t));
        free(c);
}

/*
 * A client in a child process, which runs `setup(arg)` first (may be NULL;
 * e.g. setgroups/setgid/setuid to be another user) and then opens the
 * model on its own connection. Fails the test if the child cannot.
 */
static client_t *client_process(const uint8_t *model, size_t size, void (*setup)(void *arg), void *arg) {
        client_t *c = calloc(1, sizeof(*c));
        int cmd[2], ack[2];
        int32_t ready;

        ck_assert_ptr_nonnull(c);
        ck_assert_int_eq(pipe(cmd), 0);
        ck_assert_int_eq(pipe(ack), 0);
        c->shm = mmap(NULL, OUT_MAX + sizeof(size_t), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        ck_assert(c->shm != MAP_FAILED);
        c->pid = fork();
        ck_assert_int_ge(c->pid, 0);
        if (c->pid == 0) {
                client_t *in;

                close(cmd[1]);
                close(ack[0]);
                in_child = true;
                (void) signal(SIGPIPE, SIG_IGN);
                if (setup)
                        setup(arg);
                in = client_local(model, size, 0);
                in->shm = c->shm;
                ready = strcmp(accel_interp_placement(in->it), "client") == 0;
                if (write(ack[1], &ready, sizeof(ready)) != (ssize_t) sizeof(ready))
                        _exit(1);
                proc_serve(in, cmd[0], ack[1]);
                in->close(in);
                _exit(0);
        }
        close(cmd[0]);
        close(ack[1]);
        c->cmd = cmd[1];
        c->ack = ack[0];
        ck_assert_int_eq(read(c->ack, &ready, sizeof(ready)), (ssize_t) sizeof(ready));
        if (expect_placed)
                ck_assert_msg(ready == 1, "the client process's model is served");
        c->step = proc_step;
        c->reset = proc_reset;
        c->close = proc_close;
        return c;
}

/* ---- the checks ---- */

typedef struct outs {
        uint8_t *v[CLIENTS][STEPS];
        size_t n[CLIENTS][STEPS];
} outs_t;

static void outs_done(outs_t *o) {
        for (int c = 0; c < CLIENTS; c++)
                for (int s = 0; s < STEPS; s++)
                        free(o->v[c][s]);
}

static uint8_t *out_buf(void) {
        uint8_t *b = malloc(OUT_MAX);
        ck_assert_ptr_nonnull(b);
        return b;
}

/* Each client alone, one after the other, each on a new handle of the
 * (shared) instance. In the placed case these are served (there is no
 * compute yet), and their CLIENTS * STEPS executions give it: every
 * client after them is placed. */
static void alone(const uint8_t *model, size_t size, outs_t *ret) {
        for (int who = 0; who < CLIENTS; who++) {
                client_t *c = client_local(model, size, 0);

                if (placed_case)
                        ck_assert_str_eq(accel_interp_placement(c->it), "daemon");
                for (int s = 0; s < STEPS; s++) {
                        ret->v[who][s] = out_buf();
                        c->step(c, who, s, ret->v[who][s], &ret->n[who][s]);
                }
                c->close(c);
        }
        expect_placed = placed_case;
}

static void expect_equal(const outs_t *want, int who, int s, const uint8_t *got, size_t n, const char *how) {
        ck_assert_uint_eq(n, want->n[who][s]);
        if (memcmp(got, want->v[who][s], n) == 0)
                return;
        for (size_t i = 0; i < n; i++)
                if (got[i] != want->v[who][s][i])
                        ck_abort_msg("%s: client %d step %d: byte %zu is %u, alone it is %u", how, who, s, i, got[i],
                                     want->v[who][s][i]);
}

/* The clients' steps in lockstep: client 0 step s, client 1 step s, ... */
static void interleaved(client_t *const *c, const outs_t *want, const char *how) {
        uint8_t *got = out_buf();
        size_t n;

        for (int s = 0; s < STEPS; s++)
                for (int who = 0; who < CLIENTS; who++) {
                        c[who]->step(c[who], who, s, got, &n);
                        expect_equal(want, who, s, got, n, how);
                }
        free(got);
}

static const model_t *model_for(int i, uint8_t **ret_bytes, size_t *ret_size) {
        *ret_bytes = model_bytes(&models[i], ret_size);
        return *ret_bytes ? &models[i] : NULL;
}

START_TEST(test_state_two_connections_interleaved) {
        size_t size;
        uint8_t *model;
        const model_t *m = model_for(_i, &model, &size);
        outs_t want = { 0 };
        client_t *c[CLIENTS];

        if (!m)
                return;
        alone(model, size, &want);
        for (int who = 0; who < CLIENTS; who++)
                c[who] = client_local(model, size, 0);
        interleaved(c, &want, m->name);
        for (int who = 0; who < CLIENTS; who++)
                c[who]->close(c[who]);
        outs_done(&want);
        free(model);
}
END_TEST

START_TEST(test_state_two_processes_interleaved) {
        size_t size;
        uint8_t *model;
        const model_t *m = model_for(_i, &model, &size);
        outs_t want = { 0 };
        client_t *c[CLIENTS];

        if (!m)
                return;
        alone(model, size, &want);
        for (int who = 0; who < CLIENTS; who++)
                c[who] = client_process(model, size, NULL, NULL);
        interleaved(c, &want, m->name);
        for (int who = 0; who < CLIENTS; who++)
                c[who]->close(c[who]);
        outs_done(&want);
        free(model);
}
END_TEST

/* The child's setup: become another uid of the clients' group. */
static void become(void *arg) {
        const harness_user_t *u = arg;

        if (setgroups(1, &u->gid) < 0 || setgid(u->gid) < 0 || setuid(u->uid) < 0 || setuid(0) == 0)
                _exit(3);
}

/* Two processes of two different uids on one shared instance, steps
 * interleaved: each gets byte for byte what it gets alone (issue 21: one
 * tenant's sequence never shows in another's outputs). */
START_TEST(test_state_two_uids_interleaved) {
        size_t size;
        uint8_t *model;
        const model_t *m = model_for(_i, &model, &size);
        outs_t want = { 0 };
        client_t *c[CLIENTS];

        if (!m)
                return;
        if (!have_users) {
                free(model);
                return;
        }
        /* The packaged modes in small: the clients' group reaches the
         * socket (0660) and the folder that holds it (0710). */
        ck_assert_int_eq(chown(d.dir, 0, users[0].gid), 0);
        ck_assert_int_eq(chmod(d.dir, 0710), 0);
        ck_assert_int_eq(chown(d.sock, 0, users[0].gid), 0);
        ck_assert_int_eq(chmod(d.sock, 0660), 0);
        alone(model, size, &want);
        for (int who = 0; who < CLIENTS; who++)
                c[who] = client_process(model, size, become, &users[who]);
        interleaved(c, &want, m->name);
        for (int who = 0; who < CLIENTS; who++)
                c[who]->close(c[who]);
        outs_done(&want);
        free(model);
}
END_TEST

/* Both clients' invokes queued at once on an instance that batches: a
 * stateful model is never batched, each runs on its own state. */
START_TEST(test_state_concurrent_never_batched) {
        size_t size, n;
        uint8_t *model;
        const model_t *m = model_for(_i, &model, &size);
        outs_t want = { 0 };
        client_t *c[CLIENTS];
        uint8_t *got;

        if (!m)
                return;
        /* The first prepare creates the instance, with batching. */
        for (int who = 0; who < CLIENTS; who++)
                c[who] = client_local(model, size, 8);
        alone(model, size, &want);
        got = out_buf();
        for (int s = 0; s < STEPS; s++) {
                for (int who = 0; who < CLIENTS; who++)
                        c[who]->start(c[who], who, s);
                for (int who = 0; who < CLIENTS; who++) {
                        c[who]->finish(c[who], got, &n);
                        expect_equal(&want, who, s, got, n, m->name);
                }
        }
        free(got);
        for (int who = 0; who < CLIENTS; who++)
                c[who]->close(c[who]);
        outs_done(&want);
        free(model);
}
END_TEST

/* ResetVariables: the client's next step is what a fresh client's first
 * one is; the other client's state is untouched. In-process and from
 * another process. */
START_TEST(test_state_reset_returns_to_fresh) {
        size_t size, n;
        uint8_t *model;
        const model_t *m = model_for(_i, &model, &size);
        outs_t want = { 0 };
        client_t *a, *b;
        uint8_t *got;

        if (!m)
                return;
        alone(model, size, &want);
        got = out_buf();
        a = client_local(model, size, 0);
        b = client_process(model, size, NULL, NULL);
        for (int s = 0; s < 3; s++) {
                a->step(a, 0, s, got, &n);
                b->step(b, 1, s, got, &n);
        }
        ck_assert_int_eq(a->reset(a), 1);
        /* Client 0 starts over: its step 0 again, then step 1. */
        a->step(a, 0, 0, got, &n);
        expect_equal(&want, 0, 0, got, n, "after reset");
        b->step(b, 1, 3, got, &n);
        expect_equal(&want, 1, 3, got, n, "the other client");
        a->step(a, 0, 1, got, &n);
        expect_equal(&want, 0, 1, got, n, "after reset");
        ck_assert_int_eq(b->reset(b), 1);
        b->step(b, 1, 0, got, &n);
        expect_equal(&want, 1, 0, got, n, "after reset in another process");
        a->close(a);
        b->close(b);
        free(got);
        outs_done(&want);
        free(model);
}
END_TEST

/* A model without state: ResetVariables answers 0 and changes nothing. */
START_TEST(test_state_reset_stateless_model) {
        size_t size, n0, n1;
        uint8_t *model = tfb_model_affine(&size), *x = out_buf(), *y = out_buf();
        client_t *a;

        ck_assert_ptr_nonnull(model);
        a = client_local(model, size, 0);
        a->step(a, 0, 0, x, &n0);
        ck_assert_int_eq(a->reset(a), 0);
        a->step(a, 0, 0, y, &n1);
        ck_assert_uint_eq(n0, n1);
        ck_assert(memcmp(x, y, n0) == 0);
        ck_assert_int_eq(accel_interp_reset_variables(NULL), -EINVAL);
        a->close(a);
        free(x);
        free(y);
        free(model);
}
END_TEST

/*
 * y[1, 2] = x[1, 2] + s, where s is a variable tensor whose buffer gives
 * its initial value { 10, 20 } and which nothing updates: a stateful model
 * whose batched rows would all be exact (the batch check would pass), so
 * only the stateful rule keeps it from being batched.
 */
static uint8_t *model_variable_bias(size_t *ret_size) {
        tfb_t *b = tfb_new();
        const float start[2] = { 10, 20 };
        int32_t x, v, y;
        uint8_t *bytes;

        ck_assert_ptr_nonnull(b);
        x = tfb_tensor(b, RT_TYPE_FLOAT32, "x", 2, TFB_DIMS(1, 2));
        v = tfb_tensor_add(b, &(tfb_tensor_t) { .type = RT_TYPE_FLOAT32, .rank = 2, .shape = TFB_DIMS(1, 2),
                                                .name = "s", .is_variable = true,
                                                .buffer = (uint32_t) tfb_buffer_add(b, start, sizeof(start)) });
        y = tfb_tensor(b, RT_TYPE_FLOAT32, "y", 2, TFB_DIMS(1, 2));
        tfb_op_add(b, &(tfb_op_t) { .opcode = tfb_opcode_builtin(b, RT_BUILTIN_ADD, 1), .inputs = TFB_IDS(x, v),
                                    .n_inputs = 2, .outputs = TFB_IDS(y), .n_outputs = 1,
                                    .options_type = RT_OPTIONS_ADD });
        tfb_io(b, TFB_IDS(x), 1, TFB_IDS(y), 1);
        bytes = tfb_finish(b, ret_size);
        tfb_free(b);
        ck_assert_ptr_nonnull(bytes);
        return bytes;
}

/* Executions of a stateful model queued together on an instance that
 * batches (four pipelined requests, a long queue delay) each run alone:
 * ExecuteResponse.batch_size is 1, and each result is its own. */
START_TEST(test_state_queued_executions_not_batched) {
        Acceld__Request req = ACCELD__REQUEST__INIT;
        Acceld__PrepareModelRequest p = ACCELD__PREPARE_MODEL_REQUEST__INIT;
        Acceld__Response *r;
        harness_client_t c;
        size_t size;
        uint8_t *model = model_variable_bias(&size);
        float in[4][2];
        uint64_t handle, ids[4];

        harness_client_open(&c, d.sock);
        p.has_model = 1;
        p.model.data = model;
        p.model.len = size;
        p.settings_json = (char *) SETTINGS;
        p.has_max_batch_size = 1;
        p.max_batch_size = 4;
        p.has_max_queue_delay_us = 1;
        p.max_queue_delay_us = 300000;
        req.body_case = ACCELD__REQUEST__BODY_PREPARE_MODEL;
        req.prepare_model = &p;
        r = harness_transact(&c, &req, NULL, 0);
        ck_assert_msg(r->status == ACCELD__STATUS__NONE, "%s", r->message);
        handle = r->prepare_model->handle;
        harness_resp_free(r);
        for (int k = 0; k < 4; k++) {
                Acceld__ExecuteRequest e = ACCELD__EXECUTE_REQUEST__INIT;
                Acceld__TensorData td = ACCELD__TENSOR_DATA__INIT, *tds[1] = { &td };

                in[k][0] = (float) k;
                in[k][1] = (float) -k;
                td.has_data = 1;
                td.data.data = (uint8_t *) in[k];
                td.data.len = sizeof(in[k]);
                e.has_handle = 1;
                e.handle = handle;
                e.n_inputs = 1;
                e.inputs = tds;
                req = (Acceld__Request) ACCELD__REQUEST__INIT;
                req.body_case = ACCELD__REQUEST__BODY_EXECUTE;
                req.execute = &e;
                ids[k] = harness_send(&c, &req, NULL, 0);
        }
        for (int n = 0; n < 4; n++) {
                int k = -1;
                float y[2];

                r = harness_recv(&c);
                for (int q = 0; q < 4; q++)
                        if (ids[q] == r->request_id)
                                k = q;
                ck_assert_int_ge(k, 0);
                ck_assert_msg(r->status == ACCELD__STATUS__NONE, "%s", r->message);
                ck_assert_uint_eq(r->execute->batch_size, 1);
                ck_assert_uint_eq(r->execute->n_outputs, 1);
                ck_assert_uint_eq(r->execute->outputs[0]->data.len, sizeof(y));
                memcpy(y, r->execute->outputs[0]->data.data, sizeof(y));
                ck_assert(y[0] == in[k][0] + 10 && y[1] == in[k][1] + 20);
                harness_resp_free(r);
        }
        harness_client_close(&c);
        free(model);
}
END_TEST

static void setup(void) {
        /* Two workers and two executions per instance: the pool holds more
         * than one interpreter, and the clients' steps move between them. */
        static const char *const args[] = { "--worker-threads", "2", "--instance-concurrency", "2", NULL };

        harness_up_with(&d, args, false);
}

/* The same, with acceld placing every prepare of the clients' own
 * settings in the client from the median of 6 served executions (alone()'s
 * second client is still served), however long the model computes. */
static void setup_placed(void) {
        static const char *const args[] = { "--worker-threads", "2", "--instance-concurrency", "2",
                                            "--client-placement-min-served", "6",
                                            "--client-placement-max-us", "60000000",
                                            "--client-placement-max-overhead", "0.0001", NULL };

        harness_up_with(&d, args, false);
        placed_case = true;
}

static void teardown(void) {
        harness_cleanup(&d);
}

/* The checks on clients served by `up`'s acceld, or (placed) on clients it
 * placed in their processes: the batching checks are about acceld's queue,
 * which placed clients never reach. */
static TCase *state_tcase(const char *name, void (*up)(void), bool placed) {
        TCase *tc = tcase_create(name);

        tcase_add_checked_fixture(tc, up, teardown);
        tcase_set_timeout(tc, 120);
        tcase_add_loop_test(tc, test_state_two_connections_interleaved, 0, N_MODELS);
        tcase_add_loop_test(tc, test_state_two_processes_interleaved, 0, N_MODELS);
        tcase_add_loop_test(tc, test_state_two_uids_interleaved, 0, N_MODELS);
        tcase_add_loop_test(tc, test_state_reset_returns_to_fresh, 0, N_MODELS);
        if (placed)
                return tc;
        tcase_add_loop_test(tc, test_state_concurrent_never_batched, 0, N_MODELS);
        tcase_add_test(tc, test_state_reset_stateless_model);
        tcase_add_test(tc, test_state_queued_executions_not_batched);
        return tc;
}

int main(int argc, char **argv) {
        Suite *s = suite_create("acceld-state");
        SRunner *sr;
        int failed;

        harness_init(argc, argv);
        /* Made here, before Check forks the tests, and removed at exit. */
        char why[256];
        if (harness_users_available(why, sizeof(why)))
                have_users = harness_user_create(&users[0], "s0") == 0 && harness_user_create(&users[1], "s1") == 0;
        if (!have_users)
                fprintf(stderr, "acceld-state: the two-uid test is skipped: %s\n",
                        harness_users_available(why, sizeof(why)) ? "cannot create the test users" : why);
        suite_add_tcase(s, state_tcase("state", setup, false));
        suite_add_tcase(s, state_tcase("placed", setup_placed, true));
        sr = srunner_create(s);
        srunner_run_all(sr, CK_NORMAL);
        failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed ? 1 : 0;
}
