/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The partitioner and the driver registry: graphs mixing ops XNNPACK
 * supports and ones it does not (a conv with a fused TANH) split into
 * groups in a valid order, the refusal carries its reason, results match
 * the reference run, and max_delegated_partitions is honoured.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"
#include "dtest.h"
#include "executor.h"
#include "partition.h"
#include "rt.h"
#include "settings.h"
#include "test-threads.h"

#define F RT_TYPE_FLOAT32

/* A chain of n 1x1 convs on [1,4,4,2]; conv i gets activation acts[i]. */
static tfb_t *chain(int n, const int *acts) {
        tfb_t *b = tfb_new();
        int32_t sh[4] = { 1, 4, 4, 2 }, fsh[4] = { 2, 1, 1, 2 }, bsh[1] = { 2 };
        float fv[4] = { 0.5f, -0.25f, 0.75f, 0.125f }, bv[2] = { 0.1f, -0.2f };
        int32_t f = tfb_tensor_const(b, F, "f", 4, fsh, fv, sizeof(fv));
        int32_t bi = tfb_tensor_const(b, F, "b", 1, bsh, bv, sizeof(bv));
        int32_t cur = tfb_tensor(b, F, "in", 4, sh), in = cur;
        for (int i = 0; i < n; i++) {
                int32_t out = tfb_tensor(b, F, NULL, 4, sh);
                int32_t ins[3] = { cur, f, bi };
                tfb_option_t opts[] = { TFB_OPT_I8(0, RT_PADDING_VALID), TFB_OPT_I32(1, 1), TFB_OPT_I32(2, 1),
                                        TFB_OPT_I8(3, acts[i]) };
                tfb_op_t op = { .opcode = tfb_opcode_builtin(b, RT_BUILTIN_CONV_2D, 1), .inputs = ins, .n_inputs = 3,
                                .outputs = &out, .n_outputs = 1, .options_type = RT_OPTIONS_CONV_2D, .options = opts,
                                .n_options = 4 };
                tfb_op_add(b, &op);
                cur = out;
        }
        tfb_io(b, &in, 1, &cur, 1);
        return b;
}

START_TEST(test_partition_tanh_splits_graph) {
        int acts[5] = { RT_ACT_RELU, RT_ACT_NONE, RT_ACT_TANH, RT_ACT_RELU6, RT_ACT_NONE };
        tfb_t *b = chain(5, acts);
        dt_result_t x;
        ck_assert_int_eq(dt_compare(b, 1e-5, 1e-5, 0, &x), 2);
        ck_assert_str_eq(x.parts, "xnnpack:2 reference:1 xnnpack:2");
        dt_result_done(&x);
        tfb_free(b);
}
END_TEST

START_TEST(test_partition_reason_names_tanh) {
        int acts[2] = { RT_ACT_NONE, RT_ACT_TANH };
        tfb_t *b = chain(2, acts);
        size_t size;
        _cleanup_free_ uint8_t *buf = tfb_finish(b, &size);
        tfb_free(b);
        char err[256];
        rt_model_t *m = NULL;
        ck_assert_int_eq(rt_model_load_buffer(buf, size, true, &m, err, sizeof(err)), 0);
        rt_interp_options_t *o = rt_interp_options_new();
        rt_settings_t s = dt_xnnpack(1);
        ck_assert_int_eq(rt_interp_options_set_settings(o, &s), 0);
        rt_interp_t *it = NULL;
        ck_assert_int_eq(rt_interp_create(m, o, &it, err, sizeof(err)), 0);
        ck_assert_str_eq(rt_interp_unsupported_reason(it, 0), "");
        ck_assert_str_eq(rt_interp_unsupported_reason(it, 1), "XNNPACK: fused TANH activation not supported");
        rt_interp_free(it);
        rt_interp_options_free(o);
        rt_model_free(m);
}
END_TEST

START_TEST(test_partition_max_delegated_partitions) {
        /* Groups of 1, 3 and 2 supported convs: with a limit of 1 only the
         * largest stays on XNNPACK; with 2 the two largest. */
        int acts[8] = { RT_ACT_NONE, RT_ACT_TANH, RT_ACT_NONE, RT_ACT_RELU, RT_ACT_NONE,
                        RT_ACT_TANH, RT_ACT_NONE, RT_ACT_NONE };
        tfb_t *b = chain(8, acts);
        size_t size;
        _cleanup_free_ uint8_t *buf = tfb_finish(b, &size);
        tfb_free(b);
        rt_settings_t s = dt_xnnpack(1);
        dt_result_t r0, r1, r2;
        dt_run(buf, size, NULL, &r0);
        dt_run(buf, size, &s, &r1);
        ck_assert_str_eq(r1.parts, "xnnpack:1 reference:1 xnnpack:3 reference:1 xnnpack:2");
        s.max_delegated_partitions = 1;
        dt_run(buf, size, &s, &r2);
        ck_assert_str_eq(r2.parts, "reference:1 reference:1 xnnpack:3 reference:1 reference:2");
        dt_assert_close(&r2, &r0, 1e-5, 1e-5, 0);
        dt_result_done(&r2);
        s.max_delegated_partitions = 2;
        dt_run(buf, size, &s, &r2);
        ck_assert_str_eq(r2.parts, "reference:1 reference:1 xnnpack:3 reference:1 xnnpack:2");
        dt_assert_close(&r2, &r0, 1e-5, 1e-5, 0);
        dt_assert_close(&r1, &r0, 1e-5, 1e-5, 0);
        dt_result_done(&r0);
        dt_result_done(&r1);
        dt_result_done(&r2);
}
END_TEST

/* min_nodes_per_partition: a group of one conv between two reference
 * islands (TANH) moves to the reference kernels, the big groups on either
 * side stay on XNNPACK, the results stay those of the reference run, and
 * the group says why. A minimum above every group delegates nothing. */
START_TEST(test_partition_min_nodes_island) {
        int acts[9] = { RT_ACT_NONE, RT_ACT_RELU, RT_ACT_NONE, RT_ACT_TANH, RT_ACT_NONE,
                        RT_ACT_TANH, RT_ACT_NONE, RT_ACT_RELU, RT_ACT_NONE };
        tfb_t *b = chain(9, acts);
        size_t size;
        _cleanup_free_ uint8_t *buf = tfb_finish(b, &size);
        tfb_free(b);
        rt_settings_t s = dt_xnnpack(1);
        dt_result_t r0, r1, r2;
        dt_run(buf, size, NULL, &r0);
        dt_run(buf, size, &s, &r1);
        ck_assert_str_eq(r1.parts, "xnnpack:3 reference:1 xnnpack:1 reference:1 xnnpack:3");
        s.min_nodes_per_partition = 2;
        dt_run(buf, size, &s, &r2);
        ck_assert_str_eq(r2.parts, "xnnpack:3 reference:1 reference:1 reference:1 xnnpack:3");
        dt_assert_close(&r2, &r0, 1e-5, 1e-5, 0);
        dt_result_done(&r2);
        /* 3 is not below 3: the same as 2. */
        s.min_nodes_per_partition = 3;
        dt_run(buf, size, &s, &r2);
        ck_assert_str_eq(r2.parts, "xnnpack:3 reference:1 reference:1 reference:1 xnnpack:3");
        dt_result_done(&r2);
        s.min_nodes_per_partition = 4;
        dt_run(buf, size, &s, &r2);
        ck_assert_ptr_null(strstr(r2.parts, "xnnpack"));
        dt_assert_close(&r2, &r0, 1e-5, 1e-5, 0);
        dt_result_done(&r2);
        /* With max_delegated_partitions too: the minimum first, then the
         * largest of what is left (the earlier one on a tie). */
        s.min_nodes_per_partition = 2;
        s.max_delegated_partitions = 1;
        dt_run(buf, size, &s, &r2);
        ck_assert_str_eq(r2.parts, "xnnpack:3 reference:1 reference:1 reference:1 reference:3");
        dt_result_done(&r2);
        dt_assert_close(&r1, &r0, 1e-5, 1e-5, 0);
        dt_result_done(&r0);
        dt_result_done(&r1);

        /* The interpreter names the rule for the demoted group. */
        char err[256];
        rt_model_t *m = NULL;
        ck_assert_int_eq(rt_model_load_buffer(buf, size, true, &m, err, sizeof(err)), 0);
        rt_interp_options_t *o = rt_interp_options_new();
        s = dt_xnnpack(1);
        s.min_nodes_per_partition = 2;
        ck_assert_int_eq(rt_interp_options_set_settings(o, &s), 0);
        rt_interp_t *it = NULL;
        ck_assert_int_eq(rt_interp_create(m, o, &it, err, sizeof(err)), 0);
        ck_assert_int_eq(rt_interp_allocate_tensors(it), 0);
        rt_interp_partition_t v[8];
        ck_assert_uint_eq(rt_interp_partitions(it, v, 8), 5);
        ck_assert_str_eq(v[2].driver, "reference");
        ck_assert_int_eq(v[2].nodes, 1);
        ck_assert_msg(strstr(v[2].why, "fewer than min_nodes_per_partition (2)") != NULL, "%s", v[2].why);
        ck_assert_msg(strstr(v[1].why, "TANH") != NULL, "%s", v[1].why);
        rt_interp_free(it);
        rt_interp_options_free(o);
        rt_model_free(m);
}
END_TEST

/* XNNPACK's QS8/QU8 flags, as TFLite names them: with QS8 set and QU8
 * not, an int8 ADD is delegated and a uint8 one stays on the reference
 * kernels, and the other way round; with neither, both are delegated. */
START_TEST(test_partition_quantized_paths) {
        static const struct {
                rt_type_t type;
                uint32_t flags;
                const char *parts;
        } cases[] = {
                { RT_TYPE_INT8, 0, "xnnpack:1" },
                { RT_TYPE_INT8, RT_XNNPACK_FLAG_QS8, "xnnpack:1" },
                { RT_TYPE_INT8, RT_XNNPACK_FLAG_QU8, "reference:1" },
                { RT_TYPE_UINT8, RT_XNNPACK_FLAG_QS8, "reference:1" },
                { RT_TYPE_UINT8, RT_XNNPACK_FLAG_QU8, "xnnpack:1" },
                { RT_TYPE_UINT8, RT_XNNPACK_FLAG_QS8 | RT_XNNPACK_FLAG_QU8, "xnnpack:1" },
        };
        for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
                tfb_t *b = tfb_new();
                int32_t sh[2] = { 1, 4 }, t[3];
                for (int i = 0; i < 3; i++)
                        t[i] = tfb_tensor_quant(b, cases[c].type, NULL, 2, sh, 0.5f,
                                                cases[c].type == RT_TYPE_UINT8 ? 128 : 0, NULL, 0);
                tfb_op_add(b, &(tfb_op_t) { .opcode = tfb_opcode_builtin(b, RT_BUILTIN_ADD, 1), .inputs = t,
                                            .n_inputs = 2, .outputs = &t[2], .n_outputs = 1 });
                tfb_io(b, t, 2, &t[2], 1);
                size_t size;
                _cleanup_free_ uint8_t *buf = tfb_finish(b, &size);
                tfb_free(b);
                rt_settings_t s = dt_xnnpack(1);
                s.xnnpack_flags = cases[c].flags;
                dt_result_t r;
                dt_run(buf, size, &s, &r);
                ck_assert_msg(strcmp(r.parts, cases[c].parts) == 0, "case %zu: %s", c, r.parts);
                dt_result_done(&r);
        }
}
END_TEST

/* rt_partition_compute_with() directly: the same rule on the graph. */
START_TEST(test_partition_compute_min_nodes) {
        int acts[5] = { RT_ACT_NONE, RT_ACT_TANH, RT_ACT_NONE, RT_ACT_TANH, RT_ACT_NONE };
        tfb_t *b = chain(5, acts);
        size_t size;
        _cleanup_free_ uint8_t *buf = tfb_finish(b, &size);
        tfb_free(b);
        char err[256];
        rt_model_t *m = NULL;
        ck_assert_int_eq(rt_model_load_buffer(buf, size, true, &m, err, sizeof(err)), 0);
        rt_exec_t *e = NULL;
        ck_assert_int_eq(rt_exec_new(m, 0, rt_resolver_builtins(), &e, err, sizeof(err)), 0);
        rt_graph_t *g = rt_exec_graph(e);
        /* node 2 is supported but alone between two reference islands */
        bool sup[5] = { true, false, true, false, true };
        rt_partition_set_t ps;
        rt_partition_limits_t lim = { .min_nodes = 1 };
        ck_assert_int_eq(rt_partition_compute_with(g, sup, &lim, &ps), 0);
        ck_assert_int_eq(ps.n, 5);
        ck_assert(ps.v[2].delegated);
        rt_partition_set_done(&ps);
        lim.min_nodes = 2;
        ck_assert_int_eq(rt_partition_compute_with(g, sup, &lim, &ps), 0);
        ck_assert_int_eq(ps.n, 5);
        for (int32_t i = 0; i < ps.n; i++)
                ck_assert(!ps.v[i].delegated);
        rt_partition_set_done(&ps);
        ck_assert_int_eq(rt_partition_compute_with(g, sup, NULL, &ps), -EINVAL);
        rt_exec_free(e);
        rt_model_free(m);
}
END_TEST

/* rt_partition_compute() on a 3-node chain with the middle node
 * unsupported: three groups in dependency order, boundaries exact. */
START_TEST(test_partition_compute_order) {
        int acts[3] = { RT_ACT_NONE, RT_ACT_TANH, RT_ACT_NONE };
        tfb_t *b = chain(3, acts);
        size_t size;
        _cleanup_free_ uint8_t *buf = tfb_finish(b, &size);
        tfb_free(b);
        char err[256];
        rt_model_t *m = NULL;
        ck_assert_int_eq(rt_model_load_buffer(buf, size, true, &m, err, sizeof(err)), 0);
        rt_exec_t *e = NULL;
        ck_assert_int_eq(rt_exec_new(m, 0, rt_resolver_builtins(), &e, err, sizeof(err)), 0);
        rt_graph_t *g = rt_exec_graph(e);
        bool sup[3] = { true, false, true };
        rt_partition_set_t ps;
        ck_assert_int_eq(rt_partition_compute(g, sup, 0, &ps), 0);
        ck_assert_int_eq(ps.n, 3);
        ck_assert(ps.v[0].delegated && !ps.v[1].delegated && ps.v[2].delegated);
        ck_assert_int_eq(ps.v[0].nodes[0], 0);
        ck_assert_int_eq(ps.v[2].nodes[0], 2);
        /* group 0: input = graph input, output = tensor read by node 1 */
        ck_assert_int_eq(ps.v[0].n_inputs, 1);
        ck_assert_int_eq(ps.v[0].inputs[0], g->inputs[0]);
        ck_assert_int_eq(ps.v[0].n_outputs, 1);
        ck_assert_int_eq(ps.v[0].outputs[0], g->nodes[1].inputs[0]);
        ck_assert_int_eq(ps.v[2].outputs[0], g->outputs[0]);
        rt_partition_set_done(&ps);
        bool all[3] = { true, true, true };
        ck_assert_int_eq(rt_partition_compute(g, all, 0, &ps), 0);
        ck_assert_int_eq(ps.n, 1);
        ck_assert_int_eq(ps.v[0].n_nodes, 3);
        rt_partition_set_done(&ps);
        ck_assert_int_eq(rt_partition_compute(NULL, all, 0, &ps), -EINVAL);
        rt_exec_free(e);
        rt_model_free(m);
}
END_TEST

START_TEST(test_partition_unknown_delegate_unavailable) {
        int acts[1] = { RT_ACT_NONE };
        tfb_t *b = chain(1, acts);
        size_t size;
        _cleanup_free_ uint8_t *buf = tfb_finish(b, &size);
        tfb_free(b);
        rt_settings_t s;
        rt_settings_init(&s);
        s.delegate = RT_DELEGATE_GPU;
        dt_result_t r;
        dt_run(buf, size, &s, &r);
        ck_assert_int_eq(r.create_err, -ENODEV);
        ck_assert_msg(strstr(r.err, "DEVICE_UNAVAILABLE") && strstr(r.err, "GPU"), "%s", r.err);
        s.delegate = RT_DELEGATE_NONE;
        dt_run(buf, size, &s, &r);
        ck_assert_int_eq(r.create_err, 0);
        ck_assert_str_eq(r.parts, "reference:1");
        dt_result_done(&r);
}
END_TEST

START_TEST(test_driver_registry) {
        ck_assert_ptr_nonnull(rt_driver_find("reference"));
        ck_assert_ptr_eq(rt_driver_find("XNNPACK"), rt_driver_xnnpack());
        ck_assert_ptr_null(rt_driver_find("nope"));
        ck_assert_int_ge(rt_driver_count(), 2);
        ck_assert_int_eq(rt_driver_register(rt_driver_reference()), -EEXIST);
        rt_driver_t bad = *rt_driver_reference();
        bad.name = "bad-abi";
        bad.abi_version = 99;
        ck_assert_int_eq(rt_driver_register(&bad), -EPROTO);
        bad.abi_version = RT_DRIVER_ABI_VERSION;
        bad.execute = NULL;
        ck_assert_int_eq(rt_driver_register(&bad), -EINVAL);
}
END_TEST

/* The XNNPACK groups of one interpreter share one thread pool: a model split
 * into many groups must not start a pool (and its workers) per group.
 * Style transfer is split here by keeping its MIRROR_PADs (builtin 100) off
 * the driver. */
START_TEST(test_xnnpack_groups_share_one_pool) {
        const char *shared = getenv("ACCELD_SHARED_DIR");
        char path[1024], err[512] = "";
        if (!shared) {
                fprintf(stderr, "SKIP: ACCELD_SHARED_DIR not set\n");
                return;
        }
        snprintf(path, sizeof(path), "%s/models/style_transfer_f16_384.tflite", shared);
        rt_model_t *m = NULL;
        ck_assert_msg(rt_model_load_file(path, &m, err, sizeof(err)) == 0, "%s", err);
        rt_settings_t s;
        ck_assert_int_eq(rt_settings_parse_json("{\"delegate\":\"XNNPACK\",\"xnnpack_settings\":{\"num_threads\":2}}",
                                                &s, err, sizeof(err)), 0);
        rt_interp_options_t *o = rt_interp_options_new();
        ck_assert_int_eq(rt_interp_options_set_settings(o, &s), 0);
        int before = test_threads_before();
        rt_interp_t *it = NULL;
        setenv("ACCELD_XNNPACK_DISABLE_OPS", "100", 1);
        ck_assert_msg(rt_interp_create(m, o, &it, err, sizeof(err)) == 0, "%s", err);
        ck_assert_msg(rt_interp_allocate_tensors(it) == 0, "%s", rt_interp_last_error(it));
        unsetenv("ACCELD_XNNPACK_DISABLE_OPS");
        size_t groups = 0, np = rt_interp_partitions(it, NULL, 0);
        rt_interp_partition_t *parts = calloc(np, sizeof(*parts));
        np = rt_interp_partitions(it, parts, np);
        for (size_t i = 0; i < np; i++)
                groups += strcmp(parts[i].driver, "xnnpack") == 0;
        free(parts);
        ck_assert_uint_gt(groups, 10);
        /* One pool of 2 threads adds one worker (and pool.c's rester),
         * whatever the group count. */
        ck_assert_int_le(test_threads_count() - before, 2);
        ck_assert_int_eq(rt_interp_invoke(it), 0);
        rt_interp_free(it);
        ck_assert_int_eq(test_threads_count(), before);
        rt_interp_options_free(o);
        rt_settings_done(&s);
        rt_model_free(m);
}
END_TEST

/* Style transfer's MIRROR_PAD, MEAN, RSQRT and RESIZE_NEAREST_NEIGHBOR run
 * inside the XNNPACK group (the driver's own steps): one group, nothing on
 * the reference kernels between groups, and still one pool worker at 2
 * threads. */
START_TEST(test_xnnpack_style_transfer_one_group) {
        const char *shared = getenv("ACCELD_SHARED_DIR");
        char path[1024], err[512] = "";
        if (!shared) {
                fprintf(stderr, "SKIP: ACCELD_SHARED_DIR not set\n");
                return;
        }
        snprintf(path, sizeof(path), "%s/models/style_transfer_f16_384.tflite", shared);
        rt_model_t *m = NULL;
        ck_assert_msg(rt_model_load_file(path, &m, err, sizeof(err)) == 0, "%s", err);
        rt_settings_t s;
        ck_assert_int_eq(rt_settings_parse_json("{\"delegate\":\"XNNPACK\",\"xnnpack_settings\":{\"num_threads\":2}}",
                                                &s, err, sizeof(err)), 0);
        rt_interp_options_t *o = rt_interp_options_new();
        ck_assert_int_eq(rt_interp_options_set_settings(o, &s), 0);
        int before = test_threads_before();
        rt_interp_t *it = NULL;
        ck_assert_msg(rt_interp_create(m, o, &it, err, sizeof(err)) == 0, "%s", err);
        ck_assert_msg(rt_interp_allocate_tensors(it) == 0, "%s", rt_interp_last_error(it));
        rt_interp_partition_t parts[4];
        size_t np = rt_interp_partitions(it, parts, 4);
        ck_assert_uint_eq(np, 1);
        ck_assert_str_eq(parts[0].driver, "xnnpack");
        ck_assert_int_le(test_threads_count() - before, 2);   /* a worker, the rester */
        ck_assert_int_eq(rt_interp_invoke(it), 0);
        rt_interp_free(it);
        rt_interp_options_free(o);
        rt_settings_done(&s);
        rt_model_free(m);
}
END_TEST

START_TEST(test_driver_capabilities_measured_and_cached) {
        rt_driver_caps_t c1, c2, r;
        ck_assert_int_eq(rt_driver_capabilities(rt_driver_reference(), &r), 0);
        ck_assert(r.operand[RT_TYPE_FLOAT32].exec_time == 1.0f);
        ck_assert_int_eq(rt_driver_capabilities(rt_driver_xnnpack(), &c1), 0);
        ck_assert(c1.operand[RT_TYPE_FLOAT32].exec_time > 0.0f);
        /* XNNPACK's packed GEMM beats the plain loop on any x86 CPU. */
        ck_assert(c1.operand[RT_TYPE_FLOAT32].exec_time < 1.0f);
        ck_assert_int_eq(rt_driver_capabilities(rt_driver_xnnpack(), &c2), 0);
        ck_assert(c1.operand[RT_TYPE_FLOAT32].exec_time == c2.operand[RT_TYPE_FLOAT32].exec_time);
        /* The quantized types are measured with their own qs8/qu8 run
         * (cached as well); types XNNPACK does not compute in report 0. */
        ck_assert(c1.operand[RT_TYPE_INT8].exec_time > 0.0f);
        ck_assert(c1.operand[RT_TYPE_UINT8].exec_time > 0.0f);
        ck_assert(c1.operand[RT_TYPE_INT8].exec_time == c2.operand[RT_TYPE_INT8].exec_time);
        ck_assert(c1.operand[RT_TYPE_INT32].exec_time == 0.0f);
        ck_assert(c1.relaxed_fp32_as_fp16.exec_time == 0.0f);
        ck_assert_int_eq(rt_driver_capabilities(NULL, &c2), -EINVAL);
}
END_TEST

static bool want_add(const rt_node_t *n, void *user) {
        (void) user;
        return n->op == RT_BUILTIN_ADD;
}

/* rt_exec_fold_constants(): ADD(c1, c2) runs once and leaves the plan; the
 * ADD that reads the graph input stays and sees the folded constant. */
START_TEST(test_exec_fold_constants) {
        tfb_t *b = tfb_new();
        int32_t sh[1] = { 4 };
        float c1[4] = { 1, 2, 3, 4 }, c2[4] = { 10, 20, 30, 40 };
        int32_t a = tfb_tensor_const(b, F, "c1", 1, sh, c1, sizeof(c1));
        int32_t c = tfb_tensor_const(b, F, "c2", 1, sh, c2, sizeof(c2));
        int32_t k = tfb_tensor(b, F, "k", 1, sh), in = tfb_tensor(b, F, "in", 1, sh), out = tfb_tensor(b, F, "out", 1, sh);
        int32_t i1[2] = { a, c }, i2[2] = { in, k };
        tfb_option_t opts[] = { TFB_OPT_I8(0, RT_ACT_NONE) };
        tfb_op_t op1 = { .opcode = tfb_opcode_builtin(b, RT_BUILTIN_ADD, 1), .inputs = i1, .n_inputs = 2, .outputs = &k,
                         .n_outputs = 1, .options_type = RT_OPTIONS_ADD, .options = opts, .n_options = 1 };
        tfb_op_t op2 = op1;
        op2.inputs = i2;
        op2.outputs = &out;
        tfb_op_add(b, &op1);
        tfb_op_add(b, &op2);
        tfb_io(b, &in, 1, &out, 1);
        size_t size;
        _cleanup_free_ uint8_t *buf = tfb_finish(b, &size);
        tfb_free(b);
        char err[256];
        rt_model_t *m = NULL;
        ck_assert_int_eq(rt_model_load_buffer(buf, size, true, &m, err, sizeof(err)), 0);
        rt_exec_t *e = NULL;
        ck_assert_int_eq(rt_exec_new(m, 0, rt_resolver_builtins(), &e, err, sizeof(err)), 0);
        ck_assert_int_eq(rt_exec_fold_constants(e, want_add, NULL), 1);
        rt_graph_t *g = rt_exec_graph(e);
        ck_assert_int_eq(g->n_plan, 1);
        ck_assert_int_eq(g->plan[0], 1);
        ck_assert_int_eq(g->tensors[k].alloc, RT_ALLOC_CONST);
        ck_assert_int_eq(rt_exec_allocate(e), 0);
        float x[4] = { 0.5f, 0.5f, 0.5f, 0.5f };
        memcpy(g->tensors[in].data, x, sizeof(x));
        ck_assert_int_eq(rt_exec_invoke(e), 0);
        const float *y = g->tensors[out].data;
        for (int i = 0; i < 4; i++)
                ck_assert_float_eq(y[i], c1[i] + c2[i] + 0.5f);
        /* Nothing left to fold. */
        ck_assert_int_eq(rt_exec_fold_constants(e, want_add, NULL), 0);
        ck_assert_int_eq(rt_exec_fold_constants(e, NULL, NULL), -EINVAL);
        rt_exec_free(e);
        rt_model_free(m);
}
END_TEST

int main(void) {
        if (!rt_driver_xnnpack()) {
                fprintf(stderr, "built without XNNPACK: skipping\n");
                return 77;
        }
        Suite *s = suite_create("partition");
        TCase *tc = tcase_create("partition");
        tcase_add_test(tc, test_partition_tanh_splits_graph);
        tcase_add_test(tc, test_partition_reason_names_tanh);
        tcase_add_test(tc, test_partition_max_delegated_partitions);
        tcase_add_test(tc, test_partition_compute_order);
        tcase_add_test(tc, test_partition_min_nodes_island);
        tcase_add_test(tc, test_partition_compute_min_nodes);
        tcase_add_test(tc, test_partition_quantized_paths);
        tcase_add_test(tc, test_partition_unknown_delegate_unavailable);
        tcase_add_test(tc, test_driver_registry);
        tcase_add_test(tc, test_driver_capabilities_measured_and_cached);
        tcase_add_test(tc, test_exec_fold_constants);
        tcase_add_test(tc, test_xnnpack_groups_share_one_pool);
        tcase_add_test(tc, test_xnnpack_style_transfer_one_group);
        suite_add_tcase(s, tc);
        SRunner *sr = srunner_create(s);
        srunner_run_all(sr, CK_NORMAL);
        int failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed ? 1 : 0;
}
