/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Malformed graphs must not reach XNNPACK's assertions (issue 22): Debian's
 * XNNPACK keeps them, and one abort takes acceld down with every client.
 * Each graph here aborted the process before the driver checked its
 * preconditions (runtime/drivers/xnnpack/dataflow.c, probe-shapes.c). Each
 * test runs in Check's forked child, so an abort is a failure; a graph
 * either runs and matches the reference kernels, or is refused with a
 * message.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "driver.h"
#include "dtest.h"

#define F RT_TYPE_FLOAT32

static const tfb_option_t pool_opts[] = { TFB_OPT_I8(0, RT_PADDING_VALID), TFB_OPT_I32(1, 2), TFB_OPT_I32(2, 2),
                                          TFB_OPT_I32(3, 2), TFB_OPT_I32(4, 2), TFB_OPT_I8(5, RT_ACT_NONE) };

/* Run on the reference kernels and on XNNPACK: the same outcome, and the
 * same outputs when both run. */
static void run_both(tfb_t *b, dt_result_t *ret_x) {
        size_t size = 0;
        _cleanup_free_ uint8_t *buf = tfb_finish(b, &size);
        tfb_free(b);
        ck_assert_ptr_nonnull(buf);
        dt_result_t ref;
        dt_run(buf, size, NULL, &ref);
        rt_settings_t s = dt_xnnpack(1);
        dt_run(buf, size, &s, ret_x);
        bool ref_ok = ref.create_err == 0 && ref.alloc_err == 0 && ref.invoke_err == 0;
        bool x_ok = ret_x->create_err == 0 && ret_x->alloc_err == 0 && ret_x->invoke_err == 0;
        ck_assert_msg(ref_ok == x_ok, "reference: %s; xnnpack: %s", ref.err, ret_x->err);
        if (!x_ok)
                ck_assert_msg(ret_x->err[0], "a refusal says why");
        else
                dt_assert_close(ret_x, &ref, 1e-6, 0, 0);
        dt_result_done(&ref);
}

/* Graphs that are no dataflow graph at all, which the reference kernels
 * run in node order and a partition cannot: whatever the verdict, it is
 * an answer (with a message when it is a refusal), not an abort. */
static void run_xnnpack_only(tfb_t *b) {
        size_t size = 0;
        _cleanup_free_ uint8_t *buf = tfb_finish(b, &size);
        tfb_free(b);
        ck_assert_ptr_nonnull(buf);
        rt_settings_t s = dt_xnnpack(1);
        dt_result_t x;
        dt_run(buf, size, &s, &x);
        if (x.create_err < 0 || x.alloc_err < 0 || x.invoke_err < 0)
                ck_assert(x.err[0]);
        dt_result_done(&x);
}

/* MAX_POOL_2D whose model declares 5 output channels for a 3-channel
 * input: the support probe handed the declared shape to XNNPACK, whose
 * create_max_pooling_operator asserts equal channels. */
START_TEST(test_pool_declared_channels) {
        tfb_t *b = tfb_new();
        int32_t in = tfb_tensor(b, F, "in", 4, TFB_DIMS(1, 4, 4, 3));
        int32_t out = tfb_tensor(b, F, "out", 4, TFB_DIMS(1, 2, 2, 5));
        tfb_op_add(b, &(tfb_op_t) { .opcode = tfb_opcode_builtin(b, RT_BUILTIN_MAX_POOL_2D, 1), .inputs = &in,
                                    .n_inputs = 1, .outputs = &out, .n_outputs = 1,
                                    .options_type = RT_OPTIONS_POOL_2D, .options = pool_opts, .n_options = 6 });
        tfb_io(b, &in, 1, &out, 1);
        dt_result_t x;
        run_both(b, &x);
        /* The inferred shape is the reference kernel's: [1,2,2,3]. */
        if (x.n_out == 1)
                ck_assert_uint_eq(x.out_bytes[0], 2 * 2 * 3 * sizeof(float));
        dt_result_done(&x);
}
END_TEST

/*
 * A group with an output nobody reads: in -> ADD(in, in) = t; RELU(t) = u,
 * which is neither read nor a graph output; ADD(t, t) = out. XNNPACK's
 * memory planner gives u no storage and setting the runtime up asserts on
 * its NULL pointer (setup_*: output_data != NULL).
 */
START_TEST(test_dead_end_output) {
        tfb_t *b = tfb_new();
        int32_t in = tfb_tensor(b, F, "in", 2, TFB_DIMS(1, 8));
        int32_t t = tfb_tensor(b, F, "t", 2, TFB_DIMS(1, 8));
        int32_t u = tfb_tensor(b, F, "u", 2, TFB_DIMS(1, 8));
        int32_t out = tfb_tensor(b, F, "out", 2, TFB_DIMS(1, 8));
        int32_t add = tfb_opcode_builtin(b, RT_BUILTIN_ADD, 1);
        tfb_op_add(b, &(tfb_op_t) { .opcode = add, .inputs = TFB_IDS(in, in), .n_inputs = 2,
                                    .outputs = &t, .n_outputs = 1 });
        tfb_op_add(b, &(tfb_op_t) { .opcode = tfb_opcode_builtin(b, RT_BUILTIN_RELU, 1), .inputs = &t,
                                    .n_inputs = 1, .outputs = &u, .n_outputs = 1 });
        tfb_op_add(b, &(tfb_op_t) { .opcode = add, .inputs = TFB_IDS(t, t), .n_inputs = 2,
                                    .outputs = &out, .n_outputs = 1 });
        tfb_io(b, &in, 1, &out, 1);
        dt_result_t x;
        run_both(b, &x);
        dt_result_done(&x);
}
END_TEST

/* The same tensor written by two operators of one group: the second
 * writer would define the XNNPACK value twice. */
START_TEST(test_written_twice) {
        tfb_t *b = tfb_new();
        int32_t in = tfb_tensor(b, F, "in", 2, TFB_DIMS(1, 8));
        int32_t t = tfb_tensor(b, F, "t", 2, TFB_DIMS(1, 8));
        int32_t out = tfb_tensor(b, F, "out", 2, TFB_DIMS(1, 8));
        int32_t add = tfb_opcode_builtin(b, RT_BUILTIN_ADD, 1);
        tfb_op_add(b, &(tfb_op_t) { .opcode = add, .inputs = TFB_IDS(in, in), .n_inputs = 2,
                                    .outputs = &t, .n_outputs = 1 });
        tfb_op_add(b, &(tfb_op_t) { .opcode = tfb_opcode_builtin(b, RT_BUILTIN_RELU, 1), .inputs = &in,
                                    .n_inputs = 1, .outputs = &t, .n_outputs = 1 });
        tfb_op_add(b, &(tfb_op_t) { .opcode = add, .inputs = TFB_IDS(t, t), .n_inputs = 2,
                                    .outputs = &out, .n_outputs = 1 });
        tfb_io(b, &in, 1, &out, 1);
        run_xnnpack_only(b);
}
END_TEST

/* An operator reading its own output. */
START_TEST(test_reads_own_output) {
        tfb_t *b = tfb_new();
        int32_t in = tfb_tensor(b, F, "in", 2, TFB_DIMS(1, 8));
        int32_t t = tfb_tensor(b, F, "t", 2, TFB_DIMS(1, 8));
        int32_t out = tfb_tensor(b, F, "out", 2, TFB_DIMS(1, 8));
        int32_t add = tfb_opcode_builtin(b, RT_BUILTIN_ADD, 1);
        tfb_op_add(b, &(tfb_op_t) { .opcode = add, .inputs = TFB_IDS(in, t), .n_inputs = 2,
                                    .outputs = &t, .n_outputs = 1 });
        tfb_op_add(b, &(tfb_op_t) { .opcode = add, .inputs = TFB_IDS(t, t), .n_inputs = 2,
                                    .outputs = &out, .n_outputs = 1 });
        tfb_io(b, &in, 1, &out, 1);
        run_xnnpack_only(b);
}
END_TEST

int main(void) {
        Suite *s = suite_create("drivers-xnnpack-malformed");
        TCase *tc = tcase_create("malformed");
        tcase_add_test(tc, test_pool_declared_channels);
        tcase_add_test(tc, test_dead_end_output);
        tcase_add_test(tc, test_written_twice);
        tcase_add_test(tc, test_reads_own_output);
        suite_add_tcase(s, tc);
        SRunner *sr = srunner_create(s);
        srunner_run_all(sr, CK_NORMAL);
        int failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed ? 1 : 0;
}
