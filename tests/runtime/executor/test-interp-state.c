/* SPDX-License-Identifier: Apache-2.0 */
/*
 * rt_interp_state_t: clients sharing pooled interpreters of a stateful
 * model each keep their own variables (variable tensors, resource
 * variables, CALL_ONCE), byte for byte what a private interpreter gives.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "rt.h"
#include "tfb-models.h"
#include "tflite-builder.h"

DEFINE_POINTER_CLEANUP(rt_interp_t, rt_interp_free);
DEFINE_POINTER_CLEANUP(rt_model_t, rt_model_free);
DEFINE_POINTER_CLEANUP(rt_interp_state_t, rt_interp_state_free);

#define STEPS 4
#define CLIENTS 2
#define POOL 2

typedef struct loaded {
        uint8_t *bytes;
        rt_model_t *m;
} loaded_t;

static void load_bytes(loaded_t *l, uint8_t *(*build)(size_t *ret_size)) {
        char err[256] = "";
        size_t size = 0;
        uint8_t *bytes = build(&size);
        ck_assert_ptr_nonnull(bytes);
        l->bytes = bytes;
        ck_assert_msg(rt_model_load_buffer(bytes, size, false, &l->m, err, sizeof(err)) == 0, "%s", err);
}

static void loaded_done(loaded_t *l) {
        rt_model_free(l->m);
        free(l->bytes);
}

static rt_interp_t *interp(const rt_model_t *m, bool xnnpack) {
        rt_interp_options_t *o = rt_interp_options_new();
        rt_interp_t *it = NULL;
        char err[512] = "";
        ck_assert_ptr_nonnull(o);
        if (xnnpack) {
                rt_settings_t s;
                rt_settings_init(&s);
                s.delegate = RT_DELEGATE_XNNPACK;
                ck_assert_int_eq(rt_interp_options_set_settings(o, &s), 0);
                rt_settings_done(&s);
        }
        ck_assert_msg(rt_interp_create(m, o, &it, err, sizeof(err)) == 0, "%s", err);
        rt_interp_options_free(o);
        ck_assert_msg(rt_interp_allocate_tensors(it) == 0, "%s", rt_interp_last_error(it));
        return it;
}

/* Deterministic input `step` of `client`: finite values for floats. */
static void fill(rt_interp_t *it, int client, int step) {
        for (int32_t k = 0; k < rt_interp_input_count(it); k++) {
                const rt_tensor_t *t = rt_interp_input_tensor(it, k);
                uint8_t *p = rt_interp_input_data(it, k);
                uint32_t x = (uint32_t) (client * 7919 + step * 104729 + k * 31) * 2654435761u + 1u;
                size_t n = rt_tensor_count(t);
                for (size_t i = 0; i < n; i++) {
                        x = x * 1103515245u + 12345u;
                        if (t->type == RT_TYPE_FLOAT32)
                                ((float *) p)[i] = (float) ((x >> 16) % 2001u) / 1000.0f - 1.0f;
                        else
                                for (size_t b = 0; b < rt_type_size(t->type); b++)
                                        p[i * rt_type_size(t->type) + b] = (uint8_t) (x >> (8 + b));
                }
        }
}

/* All outputs of the last invoke, concatenated (malloc'ed). */
static uint8_t *outputs(rt_interp_t *it, size_t *ret_size) {
        size_t n = 0;
        for (int32_t k = 0; k < rt_interp_output_count(it); k++)
                n += rt_interp_output_tensor(it, k)->bytes;
        uint8_t *v = malloc(n ? n : 1), *p = v;
        ck_assert_ptr_nonnull(v);
        for (int32_t k = 0; k < rt_interp_output_count(it); k++) {
                const rt_tensor_t *t = rt_interp_output_tensor(it, k);
                memcpy(p, t->data, t->bytes);
                p += t->bytes;
        }
        *ret_size = n;
        return v;
}

static void run(rt_interp_t *it, int client, int step) {
        fill(it, client, step);
        ck_assert_msg(rt_interp_invoke(it) == 0, "%s", rt_interp_last_error(it));
}

/*
 * Each client alone on a private interpreter, then the same inputs with the
 * clients interleaved over a pool of shared interpreters (client c's step
 * s on interpreter (c + s) % POOL, so each state moves between them), each
 * with its own rt_interp_state_t, and the pool's own state used in between
 * by a third party. Every output must equal the private run byte for byte.
 * With states == false the clients share the pool's variables instead;
 * returns whether any output then differed (the leak the states prevent).
 */
static bool interleave(const rt_model_t *m, bool xnnpack, bool states) {
        uint8_t *alone[CLIENTS][STEPS];
        size_t alone_size[CLIENTS][STEPS];
        for (int c = 0; c < CLIENTS; c++) {
                _cleanup_(rt_interp_freep) rt_interp_t *it = interp(m, xnnpack);
                for (int s = 0; s < STEPS; s++) {
                        run(it, c, s);
                        alone[c][s] = outputs(it, &alone_size[c][s]);
                }
        }
        rt_interp_t *pool[POOL];
        rt_interp_state_t *st[CLIENTS];
        for (int k = 0; k < POOL; k++)
                pool[k] = interp(m, xnnpack);
        for (int c = 0; c < CLIENTS; c++)
                ck_assert_ptr_nonnull(st[c] = rt_interp_state_new());
        bool differs = false;
        for (int s = 0; s < STEPS; s++)
                for (int c = 0; c < CLIENTS; c++) {
                        rt_interp_t *it = pool[(c + s) % POOL];
                        if (states)
                                ck_assert_int_eq(rt_interp_state_swap(it, st[c]), 0);
                        run(it, c, s);
                        size_t n;
                        uint8_t *got = outputs(it, &n);
                        if (states) {
                                ck_assert_int_eq(rt_interp_state_swap(it, st[c]), 0);
                                ck_assert_uint_eq(n, alone_size[c][s]);
                                ck_assert_msg(memcmp(got, alone[c][s], n) == 0,
                                              "client %d step %d differs from its private interpreter", c, s);
                                /* Someone else on the pool's own state. */
                                run(it, 9, s);
                        } else
                                differs |= n != alone_size[c][s] || memcmp(got, alone[c][s], n) != 0;
                        free(got);
                }
        for (int c = 0; c < CLIENTS; c++) {
                if (states)
                        ck_assert_uint_gt(rt_interp_state_bytes(st[c]), 0);
                rt_interp_state_free(st[c]);
                for (int s = 0; s < STEPS; s++)
                        free(alone[c][s]);
        }
        for (int k = 0; k < POOL; k++)
                rt_interp_free(pool[k]);
        return differs;
}

START_TEST(test_state_counter_per_client) {
        loaded_t l;
        load_bytes(&l, tfb_model_counter);
        _cleanup_(rt_interp_freep) rt_interp_t *it = interp(l.m, false);
        ck_assert(rt_interp_has_state(it));
        _cleanup_(rt_interp_state_freep) rt_interp_state_t *a = rt_interp_state_new();
        _cleanup_(rt_interp_state_freep) rt_interp_state_t *b = rt_interp_state_new();
        const float one[2] = { 1, 1 }, five[2] = { 5, 5 };
        float y[2];
        /* a: CALL_ONCE runs for it, then the sum carries on. */
        ck_assert_int_eq(rt_interp_state_swap(it, a), 0);
        ck_assert_int_eq(rt_interp_copy_in(it, 0, one, sizeof(one)), 0);
        ck_assert_int_eq(rt_interp_invoke(it), 0);
        ck_assert_int_eq(rt_interp_copy_out(it, 0, y, sizeof(y)), 0);
        ck_assert(y[0] == 11 && y[1] == 21);
        ck_assert_int_eq(rt_interp_state_swap(it, a), 0);
        /* b is fresh: its own CALL_ONCE, its own variable. */
        ck_assert_int_eq(rt_interp_state_swap(it, b), 0);
        ck_assert_int_eq(rt_interp_copy_in(it, 0, five, sizeof(five)), 0);
        ck_assert_int_eq(rt_interp_invoke(it), 0);
        ck_assert_int_eq(rt_interp_copy_out(it, 0, y, sizeof(y)), 0);
        ck_assert(y[0] == 15 && y[1] == 25);
        ck_assert_int_eq(rt_interp_state_swap(it, b), 0);
        /* The interpreter's own state is untouched by both. */
        ck_assert_int_eq(rt_interp_copy_in(it, 0, one, sizeof(one)), 0);
        ck_assert_int_eq(rt_interp_invoke(it), 0);
        ck_assert_int_eq(rt_interp_copy_out(it, 0, y, sizeof(y)), 0);
        ck_assert(y[0] == 11 && y[1] == 21);
        ck_assert_int_eq(rt_interp_state_swap(it, a), 0);
        ck_assert_int_eq(rt_interp_invoke(it), 0);
        ck_assert_int_eq(rt_interp_copy_out(it, 0, y, sizeof(y)), 0);
        ck_assert(y[0] == 12 && y[1] == 22);
        ck_assert_int_eq(rt_interp_state_swap(it, a), 0);
        /* A reset state is fresh again: CALL_ONCE runs anew. */
        rt_interp_state_reset(a);
        ck_assert_int_eq(rt_interp_state_swap(it, a), 0);
        ck_assert_int_eq(rt_interp_invoke(it), 0);
        ck_assert_int_eq(rt_interp_copy_out(it, 0, y, sizeof(y)), 0);
        ck_assert(y[0] == 11 && y[1] == 21);
        ck_assert_int_eq(rt_interp_state_swap(it, a), 0);
        rt_interp_free(it);
        it = NULL;
        loaded_done(&l);
}
END_TEST

START_TEST(test_state_counter_interleaved) {
        loaded_t l;
        load_bytes(&l, tfb_model_counter);
        ck_assert(interleave(l.m, false, false));
        (void) interleave(l.m, false, true);
        loaded_done(&l);
}
END_TEST

START_TEST(test_state_lstm_interleaved) {
        loaded_t l;
        load_bytes(&l, tfb_model_lstm);
        ck_assert(interleave(l.m, false, false));
        (void) interleave(l.m, false, true);
        /* XNNPACK refuses the variable tensors' node: the same holds. */
        (void) interleave(l.m, true, true);
        loaded_done(&l);
}
END_TEST

/* TFLite's ResetVariableTensors: the running state's variable tensors go
 * back to zero, and the first output repeats. */
START_TEST(test_state_reset_variables) {
        size_t n0, n1, n2;
        loaded_t l;
        load_bytes(&l, tfb_model_lstm);
        _cleanup_(rt_interp_freep) rt_interp_t *it = interp(l.m, false);
        _cleanup_(rt_interp_state_freep) rt_interp_state_t *a = rt_interp_state_new();
        ck_assert(rt_interp_has_state(it));
        ck_assert_int_eq(rt_interp_state_swap(it, a), 0);
        run(it, 0, 0);
        _cleanup_free_ uint8_t *first = outputs(it, &n0);
        run(it, 0, 0);
        _cleanup_free_ uint8_t *second = outputs(it, &n1);
        ck_assert(memcmp(first, second, n0) != 0);
        ck_assert_int_eq(rt_interp_reset_variables(it), 0);
        run(it, 0, 0);
        _cleanup_free_ uint8_t *again = outputs(it, &n2);
        ck_assert(memcmp(first, again, n0) == 0);
        ck_assert_int_eq(rt_interp_state_swap(it, a), 0);
        rt_interp_free(it);
        it = NULL;
        loaded_done(&l);
}
END_TEST

/* Random ops: each client draws its own Philox stream, the one a private
 * interpreter gives, wherever it runs; the interpreter's own stream goes on
 * undisturbed in between. */
START_TEST(test_state_random_streams_per_client) {
        loaded_t l;
        load_bytes(&l, tfb_model_random);
        ck_assert(!interleave(l.m, false, true));

        /* Two clients on one interpreter: with their states both get the
         * first draw, then each its second; the interpreter's own state
         * (a third party) was not moved by them. */
        rt_interp_t *priv = interp(l.m, false), *it = interp(l.m, false);
        uint8_t *want[3];
        size_t n, m;
        for (int k = 0; k < 3; k++) {
                run(priv, 0, 0);
                want[k] = outputs(priv, &n);
        }
        ck_assert(memcmp(want[0], want[1], n) != 0);
        rt_interp_state_t *a = rt_interp_state_new(), *b = rt_interp_state_new();
        ck_assert_ptr_nonnull(a);
        ck_assert_ptr_nonnull(b);
        const struct { rt_interp_state_t *st; int draw; } seq[] = { { a, 0 }, { b, 0 }, { NULL, 0 }, { a, 1 },
                                                                    { b, 1 }, { NULL, 1 }, { a, 2 } };
        for (size_t k = 0; k < sizeof(seq) / sizeof(seq[0]); k++) {
                if (seq[k].st)
                        ck_assert_int_eq(rt_interp_state_swap(it, seq[k].st), 0);
                run(it, 0, 0);
                uint8_t *got = outputs(it, &m);
                if (seq[k].st)
                        ck_assert_int_eq(rt_interp_state_swap(it, seq[k].st), 0);
                ck_assert_uint_eq(m, n);
                ck_assert_msg(memcmp(got, want[seq[k].draw], n) == 0, "run %zu is not draw %d of its own stream", k,
                              seq[k].draw);
                free(got);
        }
        ck_assert_uint_gt(rt_interp_state_bytes(a), 0);
        for (int k = 0; k < 3; k++)
                free(want[k]);
        /* States and interpreters go before the model they run. */
        rt_interp_state_free(a);
        rt_interp_state_free(b);
        rt_interp_free(it);
        rt_interp_free(priv);
        loaded_done(&l);
}
END_TEST

START_TEST(test_state_swap_errors) {
        loaded_t l, other;
        load_bytes(&l, tfb_model_lstm);
        load_bytes(&other, tfb_model_counter);
        rt_interp_t *it = interp(l.m, false), *it2 = interp(other.m, false);
        rt_interp_state_t *a = rt_interp_state_new(), *b = rt_interp_state_new();
        ck_assert_int_eq(rt_interp_state_swap(NULL, a), -EINVAL);
        ck_assert_int_eq(rt_interp_state_swap(it, NULL), -EINVAL);
        ck_assert_int_eq(rt_interp_state_swap(it, a), 0);
        /* One state at a time. */
        ck_assert_int_eq(rt_interp_state_swap(it, b), -EINVAL);
        ck_assert_int_eq(rt_interp_state_swap(it, a), 0);
        /* A state is bound to the model it first ran with. */
        ck_assert_int_eq(rt_interp_state_swap(it2, a), -EINVAL);
        ck_assert_ptr_nonnull(strstr(rt_interp_last_error(it2), "another model"));
        /* Freeing an interpreter with a state in gives the state back. */
        ck_assert_int_eq(rt_interp_state_swap(it, b), 0);
        run(it, 0, 0);
        rt_interp_free(it);
        ck_assert_uint_gt(rt_interp_state_bytes(b), 0);
        rt_interp_state_free(a);
        rt_interp_state_free(b);
        rt_interp_free(it2);
        ck_assert(!rt_interp_has_state(NULL));
        loaded_done(&l);
        loaded_done(&other);
}
END_TEST

START_TEST(test_state_stateless_model) {
        loaded_t l;
        load_bytes(&l, tfb_model_affine);
        _cleanup_(rt_interp_freep) rt_interp_t *it = interp(l.m, false);
        ck_assert(!rt_interp_has_state(it));
        /* Swapping costs nothing and changes nothing. */
        _cleanup_(rt_interp_state_freep) rt_interp_state_t *a = rt_interp_state_new();
        ck_assert_int_eq(rt_interp_state_swap(it, a), 0);
        run(it, 0, 0);
        ck_assert_int_eq(rt_interp_state_swap(it, a), 0);
        ck_assert_uint_eq(rt_interp_state_bytes(a), 0);
        rt_interp_free(it);
        it = NULL;
        loaded_done(&l);
}
END_TEST

/* The stateful models of the shared set, when it is there. */
static const char *const shared_models[] = {
        "micro_speech_lstm", "dtln_noise_suppression", "mnist_lstm_int8", "keyword_scrambled",
};

START_TEST(test_state_shared_models_interleaved) {
        const char *shared = getenv("ACCELD_SHARED_DIR");
        const char *name = shared_models[_i];
        char path[1024], err[512] = "";
        if (!shared)
                return;
        snprintf(path, sizeof(path), "%s/models/%s.tflite", shared, name);
        _cleanup_(rt_model_freep) rt_model_t *m = NULL;
        if (rt_model_load_file(path, &m, err, sizeof(err)) < 0) {
                fprintf(stderr, "SKIP %s: %s\n", name, err);
                return;
        }
        /* Informative only: whether these inputs show the leak depends on
         * the model (the synthetic models above must show it). */
        bool leaks = interleave(m, false, false);
        fprintf(stderr, "%s: shared variables %s the outputs\n", name, leaks ? "change" : "do not change");
        (void) interleave(m, false, true);
        (void) interleave(m, true, true);
}
END_TEST

int main(void) {
        Suite *s = suite_create("interp-state");
        TCase *tc = tcase_create("state");
        tcase_set_timeout(tc, 120);
        tcase_add_test(tc, test_state_counter_per_client);
        tcase_add_test(tc, test_state_counter_interleaved);
        tcase_add_test(tc, test_state_lstm_interleaved);
        tcase_add_test(tc, test_state_reset_variables);
        tcase_add_test(tc, test_state_random_streams_per_client);
        tcase_add_test(tc, test_state_swap_errors);
        tcase_add_test(tc, test_state_stateless_model);
        tcase_add_loop_test(tc, test_state_shared_models_interleaved, 0,
                            (int) (sizeof(shared_models) / sizeof(shared_models[0])));
        suite_add_tcase(s, tc);
        SRunner *sr = srunner_create(s);
        srunner_run_all(sr, CK_NORMAL);
        int failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed ? 1 : 0;
}
