/* SPDX-License-Identifier: Apache-2.0 */
/*
 * IF, WHILE and CALL_ONCE through the whole runtime: multi-subgraph models
 * written with tflite-builder, loaded by the reader and run by the
 * interpreter (subgraph calls, dynamic shapes, call-graph checks).
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "control-test.h"
#include "settings.h"

/* then: b = a + a; else: b = a * a. Both take and give one float[2]. */
static void add_branches(tfb_t *b) {
        ck_assert_int_eq(tfb_subgraph_add(b, "then"), 1);
        int32_t a = tfb_tensor(b, RT_TYPE_FLOAT32, "a", 1, TFB_DIMS(2));
        int32_t r = tfb_tensor(b, RT_TYPE_FLOAT32, "r", 1, TFB_DIMS(2));
        ct_op(b, RT_BUILTIN_ADD, RT_OPTIONS_ADD, NULL, 0, TFB_IDS(a, a), 2, TFB_IDS(r), 1);
        ck_assert_int_eq(tfb_io(b, TFB_IDS(a), 1, TFB_IDS(r), 1), 0);
        ck_assert_int_eq(tfb_subgraph_add(b, "else"), 2);
        a = tfb_tensor(b, RT_TYPE_FLOAT32, "a", 1, TFB_DIMS(2));
        r = tfb_tensor(b, RT_TYPE_FLOAT32, "r", 1, TFB_DIMS(2));
        ct_op(b, RT_BUILTIN_MUL, RT_OPTIONS_MUL, NULL, 0, TFB_IDS(a, a), 2, TFB_IDS(r), 1);
        ck_assert_int_eq(tfb_io(b, TFB_IDS(a), 1, TFB_IDS(r), 1), 0);
}

/* Subgraph 0: y = IF(cond, x) with then 1 / else 2, cond of `cond_type`. */
static tfb_t *if_model(rt_type_t cond_type, int32_t then_sg, int32_t else_sg) {
        tfb_t *b = tfb_new();
        int32_t c = tfb_tensor(b, cond_type, "cond", 0, NULL);
        int32_t x = tfb_tensor(b, RT_TYPE_FLOAT32, "x", 1, TFB_DIMS(2));
        int32_t y = tfb_tensor(b, RT_TYPE_FLOAT32, "y", 1, TFB_DIMS(2));
        tfb_option_t o[] = { TFB_OPT_I32(0, then_sg), TFB_OPT_I32(1, else_sg) };
        ct_op(b, RT_BUILTIN_IF, RT_OPTIONS_IF, o, 2, TFB_IDS(c, x), 2, TFB_IDS(y), 1);
        ck_assert_int_eq(tfb_io(b, TFB_IDS(c, x), 2, TFB_IDS(y), 1), 0);
        add_branches(b);
        tfb_subgraph_select(b, 0);
        return b;
}

START_TEST(test_if_picks_branch) {
        ct_model_t m;
        ck_assert_int_eq(ct_load(&m, if_model(RT_TYPE_BOOL, 1, 2)), 0);
        ck_assert_msg(rt_interp_allocate_tensors(m.it) == 0, "%s", rt_interp_last_error(m.it));
        const float x[2] = { 3, -4 };
        float y[2];
        for (int c = 1; c >= 0; c--) {
                const uint8_t cond = (uint8_t) c;
                ck_assert_int_eq(rt_interp_copy_in(m.it, 0, &cond, 1), 0);
                ck_assert_int_eq(rt_interp_copy_in(m.it, 1, x, sizeof(x)), 0);
                ck_assert_msg(rt_interp_invoke(m.it) == 0, "%s", rt_interp_last_error(m.it));
                const rt_tensor_t *t = rt_interp_output_tensor(m.it, 0);
                ck_assert_int_eq(t->rank, 1);
                ck_assert_int_eq(t->dims[0], 2);
                ck_assert_int_eq(rt_interp_copy_out(m.it, 0, y, sizeof(y)), 0);
                if (c) {
                        ck_assert_float_eq(y[0], 6);
                        ck_assert_float_eq(y[1], -8);
                } else {
                        ck_assert_float_eq(y[0], 9);
                        ck_assert_float_eq(y[1], 16);
                }
        }
        ct_done(&m);
}
END_TEST

/* A numeric condition: non-zero picks then. */
START_TEST(test_if_numeric_condition) {
        ct_model_t m;
        ck_assert_int_eq(ct_load(&m, if_model(RT_TYPE_INT32, 1, 2)), 0);
        ck_assert_int_eq(rt_interp_allocate_tensors(m.it), 0);
        const float x[2] = { 2, 5 };
        const int32_t conds[3] = { 7, 0, -1 };
        const float want0[3] = { 4, 4, 4 };
        const float want1[3] = { 10, 25, 10 };
        for (int i = 0; i < 3; i++) {
                ck_assert_int_eq(rt_interp_copy_in(m.it, 0, &conds[i], 4), 0);
                ck_assert_int_eq(rt_interp_copy_in(m.it, 1, x, sizeof(x)), 0);
                ck_assert_msg(rt_interp_invoke(m.it) == 0, "%s", rt_interp_last_error(m.it));
                const float *y = rt_interp_output_data(m.it, 0);
                ck_assert_float_eq(y[0], want0[i]);
                ck_assert_float_eq(y[1], want1[i]);
        }
        ct_done(&m);
}
END_TEST

START_TEST(test_if_rejects_bad_subgraph_index) {
        ct_model_t m;
        ck_assert_int_eq(ct_load(&m, if_model(RT_TYPE_BOOL, 1, 7)), -EINVAL);
        ck_assert_msg(strstr(m.err, "subgraph index 7 out of range (3 subgraphs)") != NULL, "%s", m.err);
        ct_done(&m);
}
END_TEST

/* IF in subgraph 0 whose then branch is subgraph 0 itself. */
START_TEST(test_if_rejects_recursion) {
        ct_model_t m;
        ck_assert_int_eq(ct_load(&m, if_model(RT_TYPE_BOOL, 0, 2)), -EINVAL);
        ck_assert_msg(strstr(m.err, "recursion") != NULL, "%s", m.err);
        ct_done(&m);
}
END_TEST

/* Indirect cycle: 0 -IF-> 1 -IF-> 2 -IF-> 1. */
START_TEST(test_if_rejects_indirect_recursion) {
        tfb_t *b = tfb_new();
        for (int32_t s = 0; s < 3; s++) {
                if (s > 0)
                        ck_assert_int_eq(tfb_subgraph_add(b, NULL), s);
                int32_t c = tfb_tensor(b, RT_TYPE_BOOL, "c", 0, NULL);
                int32_t x = tfb_tensor(b, RT_TYPE_FLOAT32, "x", 1, TFB_DIMS(2));
                int32_t y = tfb_tensor(b, RT_TYPE_FLOAT32, "y", 1, TFB_DIMS(2));
                int32_t target = s == 2 ? 1 : s + 1;
                tfb_option_t o[] = { TFB_OPT_I32(0, target), TFB_OPT_I32(1, target) };
                ct_op(b, RT_BUILTIN_IF, RT_OPTIONS_IF, o, 2, TFB_IDS(c, x), 2, TFB_IDS(y), 1);
                ck_assert_int_eq(tfb_io(b, TFB_IDS(c, x), 2, TFB_IDS(y), 1), 0);
        }
        ct_model_t m;
        ck_assert_int_eq(ct_load(&m, b), -EINVAL);
        ck_assert_msg(strstr(m.err, "subgraph 2 node 0 (IF): calls subgraph 1") != NULL, "%s", m.err);
        ct_done(&m);
}
END_TEST

/* The branches take one input; an IF passing two is refused at allocate. */
START_TEST(test_if_rejects_arity_mismatch) {
        tfb_t *b = tfb_new();
        int32_t c = tfb_tensor(b, RT_TYPE_BOOL, "cond", 0, NULL);
        int32_t x = tfb_tensor(b, RT_TYPE_FLOAT32, "x", 1, TFB_DIMS(2));
        int32_t y = tfb_tensor(b, RT_TYPE_FLOAT32, "y", 1, TFB_DIMS(2));
        tfb_option_t o[] = { TFB_OPT_I32(0, 1), TFB_OPT_I32(1, 2) };
        ct_op(b, RT_BUILTIN_IF, RT_OPTIONS_IF, o, 2, TFB_IDS(c, x, x), 3, TFB_IDS(y), 1);
        ck_assert_int_eq(tfb_io(b, TFB_IDS(c, x), 2, TFB_IDS(y), 1), 0);
        add_branches(b);
        ct_model_t m;
        ck_assert_int_eq(ct_load(&m, b), 0);
        ck_assert_int_eq(rt_interp_allocate_tensors(m.it), -EINVAL);
        ck_assert_msg(strstr(rt_interp_last_error(m.it), "then subgraph 1 takes 1 inputs") != NULL, "%s",
                      rt_interp_last_error(m.it));
        ct_done(&m);
}
END_TEST

/*
 * WHILE with loop state (i, acc): cond is i < limit; body is i + 1 and
 * `grow` ? CONCATENATION(acc, acc) : acc + acc.
 */
static tfb_t *while_model(int32_t limit, bool grow) {
        tfb_t *b = tfb_new();
        int32_t i = tfb_tensor(b, RT_TYPE_INT32, "i", 1, TFB_DIMS(1));
        int32_t acc = tfb_tensor(b, RT_TYPE_FLOAT32, "acc", 1, TFB_DIMS(1));
        int32_t i_out = tfb_tensor(b, RT_TYPE_INT32, "i_out", 1, TFB_DIMS(1));
        int32_t acc_out = tfb_tensor(b, RT_TYPE_FLOAT32, "acc_out", 1, TFB_DIMS(1));
        tfb_option_t o[] = { TFB_OPT_I32(0, 1), TFB_OPT_I32(1, 2) };
        ct_op(b, RT_BUILTIN_WHILE, RT_OPTIONS_WHILE, o, 2, TFB_IDS(i, acc), 2, TFB_IDS(i_out, acc_out), 2);
        ck_assert_int_eq(tfb_io(b, TFB_IDS(i, acc), 2, TFB_IDS(i_out, acc_out), 2), 0);

        ck_assert_int_eq(tfb_subgraph_add(b, "cond"), 1);
        i = tfb_tensor(b, RT_TYPE_INT32, "i", 1, TFB_DIMS(1));
        acc = tfb_tensor(b, RT_TYPE_FLOAT32, "acc", 1, TFB_DIMS(1));
        int32_t lim = tfb_tensor_const(b, RT_TYPE_INT32, "limit", 1, TFB_DIMS(1), &limit, 4);
        int32_t go = tfb_tensor(b, RT_TYPE_BOOL, "go", 1, TFB_DIMS(1));
        ct_op(b, RT_BUILTIN_LESS, RT_OPTIONS_LESS, NULL, 0, TFB_IDS(i, lim), 2, TFB_IDS(go), 1);
        ck_assert_int_eq(tfb_io(b, TFB_IDS(i, acc), 2, TFB_IDS(go), 1), 0);

        ck_assert_int_eq(tfb_subgraph_add(b, "body"), 2);
        i = tfb_tensor(b, RT_TYPE_INT32, "i", 1, TFB_DIMS(1));
        acc = tfb_tensor(b, RT_TYPE_FLOAT32, "acc", 1, TFB_DIMS(1));
        const int32_t one_v = 1;
        int32_t one = tfb_tensor_const(b, RT_TYPE_INT32, "one", 1, TFB_DIMS(1), &one_v, 4);
        int32_t i2 = tfb_tensor(b, RT_TYPE_INT32, "i2", 1, TFB_DIMS(1));
        int32_t acc2 = tfb_tensor(b, RT_TYPE_FLOAT32, "acc2", 1, TFB_DIMS(grow ? 2 : 1));
        ct_op(b, RT_BUILTIN_ADD, RT_OPTIONS_ADD, NULL, 0, TFB_IDS(i, one), 2, TFB_IDS(i2), 1);
        if (grow) {
                tfb_option_t co[] = { TFB_OPT_I32(0, 0) };
                ct_op(b, RT_BUILTIN_CONCATENATION, RT_OPTIONS_CONCATENATION, co, 1, TFB_IDS(acc, acc), 2,
                      TFB_IDS(acc2), 1);
        } else {
                ct_op(b, RT_BUILTIN_ADD, RT_OPTIONS_ADD, NULL, 0, TFB_IDS(acc, acc), 2, TFB_IDS(acc2), 1);
        }
        ck_assert_int_eq(tfb_io(b, TFB_IDS(i, acc), 2, TFB_IDS(i2, acc2), 2), 0);
        tfb_subgraph_select(b, 0);
        return b;
}

/* Counting from i0 to 10 doubles acc once per iteration. */
START_TEST(test_while_counts_to_n) {
        ct_model_t m;
        ck_assert_int_eq(ct_load(&m, while_model(10, false)), 0);
        ck_assert_int_eq(rt_interp_allocate_tensors(m.it), 0);
        const int32_t starts[3] = { 3, 10, 12 };
        const int32_t want_i[3] = { 10, 10, 12 };
        const float want_acc[3] = { 128, 1, 1 };  /* 2^(10-3), no iteration, none */
        for (int k = 0; k < 3; k++) {
                const float acc = 1;
                ck_assert_int_eq(rt_interp_copy_in(m.it, 0, &starts[k], 4), 0);
                ck_assert_int_eq(rt_interp_copy_in(m.it, 1, &acc, 4), 0);
                ck_assert_msg(rt_interp_invoke(m.it) == 0, "%s", rt_interp_last_error(m.it));
                int32_t i;
                float a;
                ck_assert_int_eq(rt_interp_copy_out(m.it, 0, &i, 4), 0);
                ck_assert_int_eq(rt_interp_copy_out(m.it, 1, &a, 4), 0);
                ck_assert_int_eq(i, want_i[k]);
                ck_assert_float_eq(a, want_acc[k]);
        }
        ct_done(&m);
}
END_TEST

/* The body doubles acc's length each iteration: 3 iterations -> [8]. */
START_TEST(test_while_body_grows_tensor) {
        ct_model_t m;
        ck_assert_int_eq(ct_load(&m, while_model(3, true)), 0);
        ck_assert_int_eq(rt_interp_allocate_tensors(m.it), 0);
        for (int run = 0; run < 2; run++) {
                const int32_t i0 = run;  /* 3 then 2 iterations */
                const float acc = 1.5f;
                ck_assert_int_eq(rt_interp_copy_in(m.it, 0, &i0, 4), 0);
                ck_assert_int_eq(rt_interp_copy_in(m.it, 1, &acc, 4), 0);
                ck_assert_msg(rt_interp_invoke(m.it) == 0, "%s", rt_interp_last_error(m.it));
                const rt_tensor_t *t = rt_interp_output_tensor(m.it, 1);
                const int32_t want_len = run == 0 ? 8 : 4;
                ck_assert_int_eq(t->rank, 1);
                ck_assert_int_eq(t->dims[0], want_len);
                const float *y = rt_interp_output_data(m.it, 1);
                for (int32_t k = 0; k < want_len; k++)
                        ck_assert_float_eq(y[k], 1.5f);
                int32_t i;
                ck_assert_int_eq(rt_interp_copy_out(m.it, 0, &i, 4), 0);
                ck_assert_int_eq(i, 3);
        }
        ct_done(&m);
}
END_TEST

/* WHILE whose cond subgraph is the WHILE's own subgraph. */
START_TEST(test_while_rejects_self_call) {
        tfb_t *b = while_model(3, false);
        ck_assert_int_eq(tfb_subgraph_select(b, 2), 0);
        /* The body (subgraph 2) gets a CALL_ONCE of the body itself. */
        tfb_option_t o[] = { TFB_OPT_I32(0, 2) };
        ct_op(b, RT_BUILTIN_CALL_ONCE, RT_OPTIONS_CALL_ONCE, o, 1, NULL, 0, NULL, 0);
        ct_model_t m;
        ck_assert_int_eq(ct_load(&m, b), -EINVAL);
        ck_assert_msg(strstr(m.err, "subgraph 2 node 2 (CALL_ONCE): calls subgraph 2") != NULL, "%s", m.err);
        ct_done(&m);
}
END_TEST

/*
 * CALL_ONCE: subgraph 0 runs CALL_ONCE(init = 1) and then y = x + 1; the
 * init subgraph assigns a counter variable, and subgraph 0 adds x to it
 * each invoke, so the value shows how often init ran.
 */
static tfb_t *call_once_model(void) {
        tfb_t *b = tfb_new();
        int32_t x = tfb_tensor(b, RT_TYPE_FLOAT32, "x", 1, TFB_DIMS(1));
        int32_t h = tfb_tensor(b, RT_TYPE_RESOURCE, "h", 0, NULL);
        int32_t v = tfb_tensor(b, RT_TYPE_FLOAT32, "v", 1, TFB_DIMS(1));
        int32_t y = tfb_tensor(b, RT_TYPE_FLOAT32, "y", 1, TFB_DIMS(1));
        tfb_option_t init[] = { TFB_OPT_I32(0, 1) };
        tfb_option_t name[] = { TFB_OPT_STRING(1, "counter") };
        ct_op(b, RT_BUILTIN_CALL_ONCE, RT_OPTIONS_CALL_ONCE, init, 1, NULL, 0, NULL, 0);
        ct_op(b, RT_BUILTIN_VAR_HANDLE, RT_OPTIONS_VAR_HANDLE, name, 1, NULL, 0, TFB_IDS(h), 1);
        ct_op(b, RT_BUILTIN_READ_VARIABLE, RT_OPTIONS_READ_VARIABLE, NULL, 0, TFB_IDS(h), 1, TFB_IDS(v), 1);
        ct_op(b, RT_BUILTIN_ADD, RT_OPTIONS_ADD, NULL, 0, TFB_IDS(v, x), 2, TFB_IDS(y), 1);
        ct_op(b, RT_BUILTIN_ASSIGN_VARIABLE, RT_OPTIONS_ASSIGN_VARIABLE, NULL, 0, TFB_IDS(h, y), 2, NULL, 0);
        ck_assert_int_eq(tfb_io(b, TFB_IDS(x), 1, TFB_IDS(y), 1), 0);

        ck_assert_int_eq(tfb_subgraph_add(b, "init"), 1);
        const float ten = 10;
        int32_t h1 = tfb_tensor(b, RT_TYPE_RESOURCE, "h", 0, NULL);
        int32_t c = tfb_tensor_const(b, RT_TYPE_FLOAT32, "ten", 1, TFB_DIMS(1), &ten, 4);
        ct_op(b, RT_BUILTIN_VAR_HANDLE, RT_OPTIONS_VAR_HANDLE, name, 1, NULL, 0, TFB_IDS(h1), 1);
        ct_op(b, RT_BUILTIN_ASSIGN_VARIABLE, RT_OPTIONS_ASSIGN_VARIABLE, NULL, 0, TFB_IDS(h1, c), 2, NULL, 0);
        ck_assert_int_eq(tfb_io(b, NULL, 0, NULL, 0), 0);
        tfb_subgraph_select(b, 0);
        return b;
}

START_TEST(test_call_once_runs_once) {
        ct_model_t m;
        ck_assert_int_eq(ct_load(&m, call_once_model()), 0);
        ck_assert_msg(rt_interp_allocate_tensors(m.it) == 0, "%s", rt_interp_last_error(m.it));
        const float xs[3] = { 1, 2, 4 };
        const float want[3] = { 11, 13, 17 };  /* init would reset to 10 */
        for (int k = 0; k < 3; k++) {
                ck_assert_int_eq(rt_interp_copy_in(m.it, 0, &xs[k], 4), 0);
                ck_assert_msg(rt_interp_invoke(m.it) == 0, "%s", rt_interp_last_error(m.it));
                float y;
                ck_assert_int_eq(rt_interp_copy_out(m.it, 0, &y, 4), 0);
                ck_assert_float_eq(y, want[k]);
        }
        /* Re-allocating (as after a resize) neither reruns init nor resets
         * the variable. */
        ck_assert_int_eq(rt_interp_allocate_tensors(m.it), 0);
        ck_assert_int_eq(rt_interp_copy_in(m.it, 0, &xs[0], 4), 0);
        ck_assert_int_eq(rt_interp_invoke(m.it), 0);
        float y;
        ck_assert_int_eq(rt_interp_copy_out(m.it, 0, &y, 4), 0);
        ck_assert_float_eq(y, 18);
        ct_done(&m);
}
END_TEST

/* Two interpreters of one model each run init once and keep their own
 * variables. */
START_TEST(test_call_once_per_interpreter) {
        ct_model_t m;
        ck_assert_int_eq(ct_load(&m, call_once_model()), 0);
        rt_interp_t *it2 = NULL;
        char err[256];
        ck_assert_int_eq(rt_interp_create(m.model, NULL, &it2, err, sizeof(err)), 0);
        ck_assert_int_eq(rt_interp_allocate_tensors(m.it), 0);
        ck_assert_int_eq(rt_interp_allocate_tensors(it2), 0);
        const float one = 1, five = 5;
        float y;
        ck_assert_int_eq(rt_interp_copy_in(m.it, 0, &one, 4), 0);
        ck_assert_int_eq(rt_interp_invoke(m.it), 0);
        ck_assert_int_eq(rt_interp_invoke(m.it), 0);
        ck_assert_int_eq(rt_interp_copy_out(m.it, 0, &y, 4), 0);
        ck_assert_float_eq(y, 12);
        ck_assert_int_eq(rt_interp_copy_in(it2, 0, &five, 4), 0);
        ck_assert_int_eq(rt_interp_invoke(it2), 0);
        ck_assert_int_eq(rt_interp_copy_out(it2, 0, &y, 4), 0);
        ck_assert_float_eq(y, 15);
        rt_interp_free(it2);
        ct_done(&m);
}
END_TEST

/* With the XNNPACK delegate the ADD before the IF may go to the driver; the
 * IF and its branches still run on the reference kernels. Skipped (passes
 * trivially) where no XNNPACK driver is built. */
START_TEST(test_if_under_xnnpack_delegation) {
        tfb_t *b = tfb_new();
        int32_t c = tfb_tensor(b, RT_TYPE_BOOL, "cond", 0, NULL);
        int32_t x = tfb_tensor(b, RT_TYPE_FLOAT32, "x", 1, TFB_DIMS(2));
        int32_t x2 = tfb_tensor(b, RT_TYPE_FLOAT32, "x2", 1, TFB_DIMS(2));
        int32_t y = tfb_tensor(b, RT_TYPE_FLOAT32, "y", 1, TFB_DIMS(2));
        ct_op(b, RT_BUILTIN_ADD, RT_OPTIONS_ADD, NULL, 0, TFB_IDS(x, x), 2, TFB_IDS(x2), 1);
        tfb_option_t o[] = { TFB_OPT_I32(0, 1), TFB_OPT_I32(1, 2) };
        ct_op(b, RT_BUILTIN_IF, RT_OPTIONS_IF, o, 2, TFB_IDS(c, x2), 2, TFB_IDS(y), 1);
        ck_assert_int_eq(tfb_io(b, TFB_IDS(c, x), 2, TFB_IDS(y), 1), 0);
        add_branches(b);
        ct_model_t m;
        ck_assert_int_eq(ct_load(&m, b), 0);
        rt_settings_t st;
        char err[256];
        ck_assert_int_eq(rt_settings_parse_json("{\"delegate\":\"XNNPACK\"}", &st, err, sizeof(err)), 0);
        rt_interp_options_t *opt = rt_interp_options_new();
        ck_assert_int_eq(rt_interp_options_set_settings(opt, &st), 0);
        rt_settings_done(&st);
        rt_interp_t *it = NULL;
        int r = rt_interp_create(m.model, opt, &it, err, sizeof(err));
        rt_interp_options_free(opt);
        if (r == -ENODEV) {
                ct_done(&m);
                return;
        }
        ck_assert_msg(r == 0, "%s", err);
        ck_assert_msg(rt_interp_allocate_tensors(it) == 0, "%s", rt_interp_last_error(it));
        /* ADD on the driver, IF on the reference kernels. */
        rt_interp_partition_t parts[4];
        ck_assert_uint_eq(rt_interp_partitions(it, parts, 4), 2);
        ck_assert_str_ne(parts[0].driver, "reference");
        ck_assert_str_eq(parts[1].driver, "reference");
        ck_assert_int_eq(parts[1].nodes, 1);
        const float xv[2] = { 1, -3 };
        for (int cv = 0; cv <= 1; cv++) {
                const uint8_t cond = (uint8_t) cv;
                ck_assert_int_eq(rt_interp_copy_in(it, 0, &cond, 1), 0);
                ck_assert_int_eq(rt_interp_copy_in(it, 1, xv, sizeof(xv)), 0);
                ck_assert_msg(rt_interp_invoke(it) == 0, "%s", rt_interp_last_error(it));
                float out[2];
                ck_assert_int_eq(rt_interp_copy_out(it, 0, out, sizeof(out)), 0);
                ck_assert_float_eq(out[0], 4);
                ck_assert_float_eq(out[1], cv ? -12 : 36);
        }
        rt_interp_free(it);
        ct_done(&m);
}
END_TEST

/* String tensors cross subgraph boundaries: then returns its string input,
 * else a constant string. */
START_TEST(test_if_string_branches) {
        /* "hi", "there" and "x" in TFLite's string layout. */
        const uint8_t two[] = { 2, 0, 0, 0, 16, 0, 0, 0, 18, 0, 0, 0, 23, 0, 0, 0, 'h', 'i',
                                't', 'h', 'e', 'r', 'e' };
        const uint8_t one[] = { 1, 0, 0, 0, 12, 0, 0, 0, 13, 0, 0, 0, 'x' };
        tfb_t *b = tfb_new();
        int32_t c = tfb_tensor(b, RT_TYPE_BOOL, "cond", 0, NULL);
        int32_t x = tfb_tensor(b, RT_TYPE_STRING, "x", 1, TFB_DIMS(2));
        int32_t y = tfb_tensor(b, RT_TYPE_STRING, "y", 1, TFB_DIMS(2));
        tfb_option_t o[] = { TFB_OPT_I32(0, 1), TFB_OPT_I32(1, 2) };
        ct_op(b, RT_BUILTIN_IF, RT_OPTIONS_IF, o, 2, TFB_IDS(c, x), 2, TFB_IDS(y), 1);
        ck_assert_int_eq(tfb_io(b, TFB_IDS(c, x), 2, TFB_IDS(y), 1), 0);
        ck_assert_int_eq(tfb_subgraph_add(b, "then"), 1);
        int32_t a = tfb_tensor(b, RT_TYPE_STRING, "a", 1, TFB_DIMS(2));
        ck_assert_int_eq(tfb_io(b, TFB_IDS(a), 1, TFB_IDS(a), 1), 0);
        ck_assert_int_eq(tfb_subgraph_add(b, "else"), 2);
        a = tfb_tensor(b, RT_TYPE_STRING, "a", 1, TFB_DIMS(2));
        int32_t k = tfb_tensor_const(b, RT_TYPE_STRING, "k", 1, TFB_DIMS(1), one, sizeof(one));
        ck_assert_int_eq(tfb_io(b, TFB_IDS(a), 1, TFB_IDS(k), 1), 0);
        tfb_subgraph_select(b, 0);
        ct_model_t m;
        ck_assert_msg(ct_load(&m, b) == 0, "%s", m.err);
        ck_assert_int_eq(rt_interp_allocate_tensors(m.it), 0);
        for (int cv = 1; cv >= 0; cv--) {
                const uint8_t cond = (uint8_t) cv;
                ck_assert_int_eq(rt_interp_copy_in(m.it, 0, &cond, 1), 0);
                ck_assert_int_eq(rt_interp_copy_in(m.it, 1, two, sizeof(two)), 0);
                ck_assert_msg(rt_interp_invoke(m.it) == 0, "%s", rt_interp_last_error(m.it));
                const rt_tensor_t *t = rt_interp_output_tensor(m.it, 0);
                const uint8_t *want = cv ? two : one;
                size_t want_size = cv ? sizeof(two) : sizeof(one);
                ck_assert_int_eq(t->rank, 1);
                ck_assert_int_eq(t->dims[0], cv ? 2 : 1);
                ck_assert_uint_eq(t->bytes, want_size);
                ck_assert_int_eq(memcmp(t->data, want, want_size), 0);
        }
        ct_done(&m);
}
END_TEST

/*
 * Nesting: WHILE (cond 1: i < 4; body 2) whose body runs an IF on i < 2
 * (then 3: acc + acc, else 4: acc * acc) and increments i. From i = 0,
 * acc = 2: 4, 8, 64, 4096.
 */
START_TEST(test_while_body_runs_if) {
        tfb_t *b = tfb_new();
        int32_t i = tfb_tensor(b, RT_TYPE_INT32, "i", 1, TFB_DIMS(1));
        int32_t acc = tfb_tensor(b, RT_TYPE_FLOAT32, "acc", 1, TFB_DIMS(1));
        int32_t i_out = tfb_tensor(b, RT_TYPE_INT32, "i_out", 1, TFB_DIMS(1));
        int32_t acc_out = tfb_tensor(b, RT_TYPE_FLOAT32, "acc_out", 1, TFB_DIMS(1));
        tfb_option_t wo[] = { TFB_OPT_I32(0, 1), TFB_OPT_I32(1, 2) };
        ct_op(b, RT_BUILTIN_WHILE, RT_OPTIONS_WHILE, wo, 2, TFB_IDS(i, acc), 2, TFB_IDS(i_out, acc_out), 2);
        ck_assert_int_eq(tfb_io(b, TFB_IDS(i, acc), 2, TFB_IDS(i_out, acc_out), 2), 0);

        const int32_t four = 4, two = 2, one = 1;
        ck_assert_int_eq(tfb_subgraph_add(b, "cond"), 1);
        i = tfb_tensor(b, RT_TYPE_INT32, "i", 1, TFB_DIMS(1));
        acc = tfb_tensor(b, RT_TYPE_FLOAT32, "acc", 1, TFB_DIMS(1));
        int32_t lim = tfb_tensor_const(b, RT_TYPE_INT32, "four", 1, TFB_DIMS(1), &four, 4);
        int32_t go = tfb_tensor(b, RT_TYPE_BOOL, "go", 1, TFB_DIMS(1));
        ct_op(b, RT_BUILTIN_LESS, RT_OPTIONS_LESS, NULL, 0, TFB_IDS(i, lim), 2, TFB_IDS(go), 1);
        ck_assert_int_eq(tfb_io(b, TFB_IDS(i, acc), 2, TFB_IDS(go), 1), 0);

        ck_assert_int_eq(tfb_subgraph_add(b, "body"), 2);
        i = tfb_tensor(b, RT_TYPE_INT32, "i", 1, TFB_DIMS(1));
        acc = tfb_tensor(b, RT_TYPE_FLOAT32, "acc", 1, TFB_DIMS(1));
        int32_t c2 = tfb_tensor_const(b, RT_TYPE_INT32, "two", 1, TFB_DIMS(1), &two, 4);
        int32_t c1 = tfb_tensor_const(b, RT_TYPE_INT32, "one", 1, TFB_DIMS(1), &one, 4);
        int32_t small = tfb_tensor(b, RT_TYPE_BOOL, "small", 1, TFB_DIMS(1));
        int32_t i2 = tfb_tensor(b, RT_TYPE_INT32, "i2", 1, TFB_DIMS(1));
        int32_t acc2 = tfb_tensor(b, RT_TYPE_FLOAT32, "acc2", 1, TFB_DIMS(1));
        ct_op(b, RT_BUILTIN_LESS, RT_OPTIONS_LESS, NULL, 0, TFB_IDS(i, c2), 2, TFB_IDS(small), 1);
        tfb_option_t io[] = { TFB_OPT_I32(0, 3), TFB_OPT_I32(1, 4) };
        ct_op(b, RT_BUILTIN_IF, RT_OPTIONS_IF, io, 2, TFB_IDS(small, acc), 2, TFB_IDS(acc2), 1);
        ct_op(b, RT_BUILTIN_ADD, RT_OPTIONS_ADD, NULL, 0, TFB_IDS(i, c1), 2, TFB_IDS(i2), 1);
        ck_assert_int_eq(tfb_io(b, TFB_IDS(i, acc), 2, TFB_IDS(i2, acc2), 2), 0);

        for (int k = 0; k < 2; k++) {
                ck_assert_int_eq(tfb_subgraph_add(b, k ? "square" : "double"), 3 + k);
                int32_t a = tfb_tensor(b, RT_TYPE_FLOAT32, "a", 1, TFB_DIMS(1));
                int32_t r = tfb_tensor(b, RT_TYPE_FLOAT32, "r", 1, TFB_DIMS(1));
                ct_op(b, k ? RT_BUILTIN_MUL : RT_BUILTIN_ADD, k ? RT_OPTIONS_MUL : RT_OPTIONS_ADD, NULL, 0,
                      TFB_IDS(a, a), 2, TFB_IDS(r), 1);
                ck_assert_int_eq(tfb_io(b, TFB_IDS(a), 1, TFB_IDS(r), 1), 0);
        }
        tfb_subgraph_select(b, 0);
        ct_model_t m;
        ck_assert_msg(ct_load(&m, b) == 0, "%s", m.err);
        ck_assert_int_eq(rt_interp_allocate_tensors(m.it), 0);
        const int32_t i0 = 0;
        const float a0 = 2;
        ck_assert_int_eq(rt_interp_copy_in(m.it, 0, &i0, 4), 0);
        ck_assert_int_eq(rt_interp_copy_in(m.it, 1, &a0, 4), 0);
        ck_assert_msg(rt_interp_invoke(m.it) == 0, "%s", rt_interp_last_error(m.it));
        int32_t iv;
        float av;
        ck_assert_int_eq(rt_interp_copy_out(m.it, 0, &iv, 4), 0);
        ck_assert_int_eq(rt_interp_copy_out(m.it, 1, &av, 4), 0);
        ck_assert_int_eq(iv, 4);
        ck_assert_float_eq(av, 4096);
        ct_done(&m);
}
END_TEST

static Suite *control_flow_suite(void) {
        Suite *s = suite_create("control_flow");
        TCase *tc = tcase_create("control_flow");
        tcase_add_test(tc, test_if_picks_branch);
        tcase_add_test(tc, test_if_numeric_condition);
        tcase_add_test(tc, test_if_rejects_bad_subgraph_index);
        tcase_add_test(tc, test_if_rejects_recursion);
        tcase_add_test(tc, test_if_rejects_indirect_recursion);
        tcase_add_test(tc, test_if_rejects_arity_mismatch);
        tcase_add_test(tc, test_while_counts_to_n);
        tcase_add_test(tc, test_while_body_grows_tensor);
        tcase_add_test(tc, test_while_rejects_self_call);
        tcase_add_test(tc, test_call_once_runs_once);
        tcase_add_test(tc, test_call_once_per_interpreter);
        tcase_add_test(tc, test_if_under_xnnpack_delegation);
        tcase_add_test(tc, test_if_string_branches);
        tcase_add_test(tc, test_while_body_runs_if);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        SRunner *sr = srunner_create(control_flow_suite());
        srunner_run_all(sr, CK_NORMAL);
        int failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed == 0 ? 0 : 1;
}
