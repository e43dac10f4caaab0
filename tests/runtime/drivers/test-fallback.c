/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The FallbackSettings chain when a delegate cannot be obtained or
 * compiled: absent drivers (GPU, NNAPI, EDGETPU_CORAL, an unknown plugin)
 * go on to XNNPACK float32 when fallback on compilation errors is allowed
 * and are DEVICE_UNAVAILABLE otherwise; forced FP16 that this CPU cannot
 * honour runs XNNPACK in float32; a misspelt delegate gets a "did you
 * mean". Each fallback says what ran and why.
 */
#include <check.h>
#include <stdio.h>

#include "driver.h"
#include "dtest.h"

#define F RT_TYPE_FLOAT32

/* out = relu(in * w + b): float [1,6] x [4,6] -> [1,4], then ADD with a
 * second input. Two ops, both XNNPACK's. */
static uint8_t *model(size_t *ret_size) {
        tfb_t *b = tfb_new();
        int32_t ish[2] = { 1, 6 }, fsh[2] = { 4, 6 }, bsh[1] = { 4 }, osh[2] = { 1, 4 };
        float wv[24], bv[4] = { 0.5f, -0.25f, 0.125f, 1.0f };
        for (int i = 0; i < 24; i++)
                wv[i] = (float) ((i * 5) % 7 - 3) / 4.0f;
        int32_t in = tfb_tensor(b, F, "in", 2, ish);
        int32_t w = tfb_tensor_const(b, F, "w", 2, fsh, wv, sizeof(wv));
        int32_t bi = tfb_tensor_const(b, F, "b", 1, bsh, bv, sizeof(bv));
        int32_t mid = tfb_tensor(b, F, "mid", 2, osh), other = tfb_tensor(b, F, "other", 2, osh);
        int32_t out = tfb_tensor(b, F, "out", 2, osh);
        int32_t fins[3] = { in, w, bi };
        tfb_option_t fopts[] = { TFB_OPT_I8(0, RT_ACT_RELU) };
        tfb_op_t fc = { .opcode = tfb_opcode_builtin(b, RT_BUILTIN_FULLY_CONNECTED, 1), .inputs = fins,
                        .n_inputs = 3, .outputs = &mid, .n_outputs = 1, .options_type = RT_OPTIONS_FULLY_CONNECTED,
                        .options = fopts, .n_options = 1 };
        tfb_op_add(b, &fc);
        int32_t ains[2] = { mid, other };
        tfb_option_t aopts[] = { TFB_OPT_I8(0, RT_ACT_NONE) };
        tfb_op_t add = { .opcode = tfb_opcode_builtin(b, RT_BUILTIN_ADD, 1), .inputs = ains, .n_inputs = 2,
                         .outputs = &out, .n_outputs = 1, .options_type = RT_OPTIONS_ADD, .options = aopts,
                         .n_options = 1 };
        tfb_op_add(b, &add);
        int32_t gi[2] = { in, other };
        tfb_io(b, gi, 2, &out, 1);
        uint8_t *buf = tfb_finish(b, ret_size);
        tfb_free(b);
        return buf;
}

static rt_settings_t named(rt_delegate_t delegate, const char *name, bool fallback) {
        rt_settings_t s;
        rt_settings_init(&s);
        s.delegate = delegate;
        snprintf(s.delegate_name, sizeof(s.delegate_name), "%s", name);
        s.fallback_on_compilation_error = fallback;
        return s;
}

static const struct {
        rt_delegate_t delegate;
        const char *name;
} absent[] = {
        { RT_DELEGATE_GPU, "GPU" },
        { RT_DELEGATE_NNAPI, "NNAPI" },
        { RT_DELEGATE_EDGETPU_CORAL, "EDGETPU_CORAL" },
        { RT_DELEGATE_PLUGIN, "no-such-plugin" },
};

/* Without fallback an absent delegate is DEVICE_UNAVAILABLE. */
START_TEST(test_absent_delegate_unavailable_without_fallback) {
        size_t size;
        _cleanup_free_ uint8_t *buf = model(&size);
        rt_settings_t s = named(absent[_i].delegate, absent[_i].name, false);
        dt_result_t r;
        dt_run(buf, size, &s, &r);
        ck_assert_int_eq(r.create_err, -ENODEV);
        char want[128];
        snprintf(want, sizeof(want), "DEVICE_UNAVAILABLE: no driver provides delegate %s", absent[_i].name);
        ck_assert_msg(strstr(r.err, want), "%s", r.err);
        dt_result_done(&r);
}
END_TEST

/* With fallback it runs on XNNPACK (else the reference kernels), says so,
 * and computes what the reference kernels compute. */
START_TEST(test_absent_delegate_falls_back_to_xnnpack) {
        size_t size;
        _cleanup_free_ uint8_t *buf = model(&size);
        rt_settings_t s = named(absent[_i].delegate, absent[_i].name, true);
        dt_result_t ref, r;
        dt_run(buf, size, NULL, &ref);
        dt_run(buf, size, &s, &r);
        ck_assert_msg(r.create_err == 0 && r.alloc_err == 0 && r.invoke_err == 0, "%s", r.err);
        ck_assert_str_eq(r.parts, rt_driver_xnnpack() ? "xnnpack:2" : "reference:2");
        char want[160];
        snprintf(want, sizeof(want), "no driver provides delegate %s; ran on %s", absent[_i].name,
                 rt_driver_xnnpack() ? "xnnpack" : "the reference kernels");
        ck_assert_msg(strstr(r.why, want), "%s", r.why);
        dt_assert_close(&r, &ref, 1e-5, 1e-5, 0);
        dt_result_done(&r);
        dt_result_done(&ref);
}
END_TEST

START_TEST(test_misspelt_delegate_gets_a_suggestion) {
        size_t size;
        _cleanup_free_ uint8_t *buf = model(&size);
        const char *typed[] = { "XNNPAK", "xnnpak", "EDGETPU_CORL", "NNAP" };
        const char *meant[] = { "XNNPACK", "XNNPACK", "EDGETPU_CORAL", "NNAPI" };
        for (size_t i = 0; i < sizeof(typed) / sizeof(typed[0]); i++) {
                rt_settings_t s = named(RT_DELEGATE_PLUGIN, typed[i], false);
                dt_result_t r;
                dt_run(buf, size, &s, &r);
                ck_assert_int_eq(r.create_err, -ENODEV);
                char want[160];
                snprintf(want, sizeof(want), "no driver provides delegate %s (did you mean %s?)", typed[i], meant[i]);
                ck_assert_msg(strstr(r.err, want), "%s", r.err);
                dt_result_done(&r);
        }
        /* Nothing close: no suggestion. */
        rt_settings_t s = named(RT_DELEGATE_PLUGIN, "quantum", false);
        dt_result_t r;
        dt_run(buf, size, &s, &r);
        ck_assert_int_eq(r.create_err, -ENODEV);
        ck_assert_msg(!strstr(r.err, "did you mean"), "%s", r.err);
        dt_result_done(&r);
}
END_TEST

START_TEST(test_name_distance) {
        ck_assert_uint_eq(rt_settings_name_distance("XNNPAK", "XNNPACK"), 1);
        ck_assert_uint_eq(rt_settings_name_distance("xnnpack", "XNNPACK"), 0);
        ck_assert_uint_eq(rt_settings_name_distance("GPU", "NNAPI"), 4);
        ck_assert(!rt_settings_name_close("XNNPACK", "XNNPACK"));
        ck_assert(rt_settings_name_close("GP", "GPU"));
        ck_assert(!rt_settings_name_close("G", "GPU"));
        ck_assert(!rt_settings_name_close("faulty", "GPU"));
        ck_assert_str_eq(rt_settings_delegate_suggest("EDGE_TPU"), "EDGETPU");
        ck_assert_ptr_null(rt_settings_delegate_suggest("quantum"));
}
END_TEST

/*
 * Forced FP16 on XNNPACK: honoured where the CPU can; where it cannot,
 * with fallback allowed the group runs XNNPACK in float32 (not the
 * reference kernels) and the plan says why; without fallback the refusal
 * is the error.
 */
START_TEST(test_forced_fp16_falls_back_to_float32) {
        size_t size;
        _cleanup_free_ uint8_t *buf = model(&size);
        rt_settings_t s = named(RT_DELEGATE_XNNPACK, "XNNPACK", false);
        s.xnnpack_flags = RT_XNNPACK_FLAG_FORCE_FP16;
        dt_result_t ref, strict, r;
        dt_run(buf, size, NULL, &ref);
        dt_run(buf, size, &s, &strict);
        s.fallback_on_compilation_error = true;
        dt_run(buf, size, &s, &r);
        ck_assert_msg(r.create_err == 0 && r.alloc_err == 0 && r.invoke_err == 0, "%s", r.err);
        ck_assert_str_eq(r.parts, "xnnpack:2");
        if (strict.alloc_err == 0) {
                /* This CPU does FP16: nothing fell back. */
                ck_assert_str_eq(r.why, "");
                dt_assert_close(&r, &ref, 1e-2, 1e-2, 0);
        } else {
                ck_assert_msg(strstr(strict.err, "forced FP16 inference"), "%s", strict.err);
                ck_assert_msg(strstr(r.why, "xnnpack: compilation failed: forced FP16 inference"), "%s", r.why);
                ck_assert_msg(strstr(r.why, "; ran in float32"), "%s", r.why);
                dt_assert_close(&r, &ref, 1e-5, 1e-5, 0);
        }
        dt_result_done(&strict);
        dt_result_done(&r);
        dt_result_done(&ref);
}
END_TEST

/*
 * A group its driver cannot compile whole is split: "picky", a driver in
 * this test that runs XNNPACK but refuses any group holding a MUL or a
 * CONCATENATION, gets ADD -> MUL -> CONCATENATION -> ADD as one group.
 * The runs it compiles stay on it, the MUL goes on to XNNPACK (the next
 * link), and the CONCATENATION, which XNNPACK cannot do either (its fused
 * RELU: the XNNPACK driver copies only plain ones), runs on the reference
 * kernels; the result is the reference kernels' result.
 */
static int32_t picky_max_nodes; /* > 0: also refuses groups of more nodes */

static bool picky_refuses(const rt_driver_graph_t *g, const rt_driver_group_t *grp) {
        if (picky_max_nodes > 0 && grp->n_nodes > picky_max_nodes)
                return true;
        for (int32_t k = 0; k < grp->n_nodes; k++) {
                int32_t op = g->nodes[grp->nodes[k]].op;
                if (op == RT_BUILTIN_MUL || op == RT_BUILTIN_CONCATENATION)
                        return true;
        }
        return false;
}

static int picky_supported(const rt_driver_t *d, const rt_driver_graph_t *g, const rt_settings_t *s,
                           bool *ret_supported, char (*reasons)[RT_DRIVER_REASON_MAX]) {
        (void) d;
        (void) s;
        for (int32_t i = 0; i < g->n_nodes; i++) {
                ret_supported[i] = true;
                reasons[i][0] = 0;
        }
        return 0;
}

static int picky_prepare(const rt_driver_t *d, const rt_driver_graph_t *g, const rt_driver_group_t *grp,
                         const rt_settings_t *s, uint64_t deadline_ns, void **ret_prepared, rt_driver_error_t *e) {
        (void) d;
        if (picky_refuses(g, grp)) {
                snprintf(e->message, sizeof(e->message), picky_max_nodes > 0 ? "picky: at most %d nodes in a group"
                                                            : "picky: no MUL or CONCATENATION in a group",
                         (int) picky_max_nodes);
                return -ENOTSUP;
        }
        const rt_driver_t *x = rt_driver_xnnpack();
        return x->prepare(x, g, grp, s, deadline_ns, ret_prepared, e);
}

static int picky_execute(void *prepared, const rt_driver_graph_t *g, char *err, size_t err_size) {
        return rt_driver_xnnpack()->execute(prepared, g, err, err_size);
}

static void picky_release(void *prepared) {
        rt_driver_xnnpack()->release(prepared);
}

static const rt_driver_t picky = {
        .abi_version = RT_DRIVER_ABI_VERSION,
        .name = "picky",
        .version = "1",
        .type = RT_DRIVER_TYPE_OTHER,
        .supported_ops = picky_supported,
        .prepare = picky_prepare,
        .execute = picky_execute,
        .release = picky_release,
};

static uint8_t *chain_model(size_t *ret_size) {
        tfb_t *b = tfb_new();
        int32_t sh[2] = { 1, 4 }, wide[2] = { 1, 8 };
        float c1v[4] = { 0.5f, -1.0f, 2.0f, 0.25f }, c2v[4] = { 3.0f, -0.5f, 1.5f, -2.0f };
        float c3v[8] = { 1, 2, 3, 4, -1, -2, -3, -4 };
        int32_t in = tfb_tensor(b, F, "in", 2, sh);
        int32_t c1 = tfb_tensor_const(b, F, "c1", 2, sh, c1v, sizeof(c1v));
        int32_t c2 = tfb_tensor_const(b, F, "c2", 2, sh, c2v, sizeof(c2v));
        int32_t c3 = tfb_tensor_const(b, F, "c3", 2, wide, c3v, sizeof(c3v));
        int32_t x = tfb_tensor(b, F, "x", 2, sh), y = tfb_tensor(b, F, "y", 2, sh);
        int32_t z = tfb_tensor(b, F, "z", 2, wide), out = tfb_tensor(b, F, "out", 2, wide);
        tfb_option_t none[] = { TFB_OPT_I8(0, RT_ACT_NONE) };
        int32_t a1[2] = { in, c1 }, m[2] = { x, c2 }, cc[2] = { y, y }, a2[2] = { z, c3 };
        tfb_op_t ops[4] = {
                { .opcode = tfb_opcode_builtin(b, RT_BUILTIN_ADD, 1), .inputs = a1, .n_inputs = 2, .outputs = &x,
                  .n_outputs = 1, .options_type = RT_OPTIONS_ADD, .options = none, .n_options = 1 },
                { .opcode = tfb_opcode_builtin(b, RT_BUILTIN_MUL, 1), .inputs = m, .n_inputs = 2, .outputs = &y,
                  .n_outputs = 1, .options_type = RT_OPTIONS_MUL, .options = none, .n_options = 1 },
                { .opcode = tfb_opcode_builtin(b, RT_BUILTIN_CONCATENATION, 1), .inputs = cc, .n_inputs = 2,
                  .outputs = &z, .n_outputs = 1, .options_type = RT_OPTIONS_CONCATENATION,
                  .options = (tfb_option_t[]) { TFB_OPT_I32(0, 1), TFB_OPT_I8(1, RT_ACT_RELU) }, .n_options = 2 },
                { .opcode = tfb_opcode_builtin(b, RT_BUILTIN_ADD, 1), .inputs = a2, .n_inputs = 2, .outputs = &out,
                  .n_outputs = 1, .options_type = RT_OPTIONS_ADD, .options = none, .n_options = 1 },
        };
        for (int i = 0; i < 4; i++)
                tfb_op_add(b, &ops[i]);
        tfb_io(b, &in, 1, &out, 1);
        uint8_t *buf = tfb_finish(b, ret_size);
        tfb_free(b);
        return buf;
}

START_TEST(test_uncompilable_group_is_split) {
        int r = rt_driver_register(&picky);
        ck_assert(r == 0 || r == -EEXIST);
        size_t size;
        _cleanup_free_ uint8_t *buf = chain_model(&size);
        rt_settings_t s = named(RT_DELEGATE_PLUGIN, "picky", false);
        dt_result_t ref, strict, split;
        dt_run(buf, size, NULL, &ref);
        dt_run(buf, size, &s, &strict);
        ck_assert_int_eq(strict.alloc_err, -ENOTSUP);
        ck_assert_msg(strstr(strict.err, "picky: compilation failed: picky: no MUL or CONCATENATION in a group"),
                      "%s", strict.err);
        s.fallback_on_compilation_error = true;
        dt_run(buf, size, &s, &split);
        ck_assert_msg(split.alloc_err == 0 && split.invoke_err == 0, "%s", split.err);
        ck_assert_str_eq(split.parts, "picky:4");
        ck_assert_msg(strstr(split.why, "picky: compilation failed: picky: no MUL or CONCATENATION in a group; "
                                        "split into picky:1 xnnpack:1 reference:1 picky:1; node 2 "
                                        "(CONCATENATION): XNNPACK: CONCATENATION is not in this XNNPACK's "
                                        "subgraph API"), "%s", split.why);
        dt_assert_close(&split, &ref, 0, 0, 0);
        dt_result_done(&split);
        dt_result_done(&strict);
        dt_result_done(&ref);
        ck_assert_int_eq(rt_driver_unregister("picky"), 0);
}
END_TEST

/* Runs of the same driver with the same settings are no fallback: a
 * group the driver takes only in pieces is split even when fallback is
 * not allowed. */
START_TEST(test_group_split_on_the_same_driver_without_fallback) {
        int r = rt_driver_register(&picky);
        ck_assert(r == 0 || r == -EEXIST);
        picky_max_nodes = 1;
        size_t size;
        _cleanup_free_ uint8_t *buf = model(&size);
        rt_settings_t s = named(RT_DELEGATE_PLUGIN, "picky", false);
        dt_result_t ref, split;
        dt_run(buf, size, NULL, &ref);
        dt_run(buf, size, &s, &split);
        ck_assert_msg(split.alloc_err == 0 && split.invoke_err == 0, "%s", split.err);
        ck_assert_str_eq(split.parts, "picky:2");
        ck_assert_str_eq(split.why, "picky: compilation failed: picky: at most 1 nodes in a group; split into picky:1 "
                                    "picky:1");
        dt_assert_close(&split, &ref, 1e-5, 1e-5, 0);
        dt_result_done(&split);
        dt_result_done(&ref);
        picky_max_nodes = 0;
        ck_assert_int_eq(rt_driver_unregister("picky"), 0);
}
END_TEST

/*
 * Driver ABI 3: a prepare failure names its node as data. "pointy" runs
 * XNNPACK but refuses any group holding a MUL, naming that node, and
 * counts its prepare calls. On ADD -> MUL -> CONCATENATION -> ADD the
 * runtime compiles the run before the named node, hands that node (and
 * only it) on to XNNPACK, whose own failure names the CONCATENATION, which
 * alone runs on the reference kernels: no search, one prepare call per
 * decision, and the plan carries both nodes and their reasons.
 */
static int pointy_calls;

static int pointy_prepare(const rt_driver_t *d, const rt_driver_graph_t *g, const rt_driver_group_t *grp,
                          const rt_settings_t *s, uint64_t deadline_ns, void **ret_prepared, rt_driver_error_t *e) {
        (void) d;
        pointy_calls++;
        ck_assert_int_eq(e->node, -1);
        ck_assert_str_eq(e->message, "");
        for (int32_t k = 0; k < grp->n_nodes; k++)
                if (g->nodes[grp->nodes[k]].op == RT_BUILTIN_MUL) {
                        e->node = grp->nodes[k];
                        snprintf(e->message, sizeof(e->message), "pointy: no MUL");
                        return -ENOTSUP;
                }
        const rt_driver_t *x = rt_driver_xnnpack();
        return x->prepare(x, g, grp, s, deadline_ns, ret_prepared, e);
}

static const rt_driver_t pointy = {
        .abi_version = RT_DRIVER_ABI_VERSION,
        .name = "pointy",
        .version = "1",
        .type = RT_DRIVER_TYPE_OTHER,
        .supported_ops = picky_supported,
        .prepare = pointy_prepare,
        .execute = picky_execute,
        .release = picky_release,
};

START_TEST(test_failing_node_is_split_off) {
        int r = rt_driver_register(&pointy);
        ck_assert(r == 0 || r == -EEXIST);
        size_t size;
        _cleanup_free_ uint8_t *buf = chain_model(&size);
        rt_settings_t s = named(RT_DELEGATE_PLUGIN, "pointy", false);
        dt_result_t ref, strict, split;
        dt_run(buf, size, NULL, &ref);
        /* Without fallback: the error names the node. */
        dt_run(buf, size, &s, &strict);
        ck_assert_int_eq(strict.alloc_err, -ENOTSUP);
        ck_assert_msg(strstr(strict.err, "pointy: compilation failed: node 1 (MUL): pointy: no MUL"), "%s",
                      strict.err);
        s.fallback_on_compilation_error = true;
        pointy_calls = 0;
        dt_run(buf, size, &s, &split);
        ck_assert_msg(split.alloc_err == 0 && split.invoke_err == 0, "%s", split.err);
        ck_assert_str_eq(split.parts, "pointy:4");
        ck_assert_str_eq(split.why, "pointy: compilation failed: node 1 (MUL): pointy: no MUL; split into pointy:1 "
                                    "xnnpack:1 reference:1 pointy:1; node 2 (CONCATENATION): XNNPACK: "
                                    "CONCATENATION is not in this XNNPACK's subgraph API");
        ck_assert_str_eq(split.nodes, "1");
        /* The whole group, [ADD], [MUL..] (refused at once), [CONCATENATION
         * ADD] (XNNPACK underneath names node 2), [ADD]. */
        ck_assert_int_eq(pointy_calls, 5);
        dt_assert_close(&split, &ref, 0, 0, 0);
        dt_result_done(&split);
        dt_result_done(&strict);
        dt_result_done(&ref);
        ck_assert_int_eq(rt_driver_unregister("pointy"), 0);
}
END_TEST

/* A node outside the group the driver was given is no node: the runtime
 * searches as for a failure without one. */
static int pointy_wild_prepare(const rt_driver_t *d, const rt_driver_graph_t *g, const rt_driver_group_t *grp,
                               const rt_settings_t *s, uint64_t deadline_ns, void **ret_prepared,
                               rt_driver_error_t *e) {
        int r = pointy_prepare(d, g, grp, s, deadline_ns, ret_prepared, e);
        if (r < 0)
                e->node = 1000;
        return r;
}

START_TEST(test_node_outside_the_group_is_ignored) {
        rt_driver_t wild = pointy;
        wild.name = "pointy-wild";
        wild.prepare = pointy_wild_prepare;
        int r = rt_driver_register(&wild);
        ck_assert(r == 0 || r == -EEXIST);
        size_t size;
        _cleanup_free_ uint8_t *buf = chain_model(&size);
        rt_settings_t s = named(RT_DELEGATE_PLUGIN, "pointy-wild", true);
        dt_result_t ref, split;
        dt_run(buf, size, NULL, &ref);
        dt_run(buf, size, &s, &split);
        ck_assert_msg(split.alloc_err == 0 && split.invoke_err == 0, "%s", split.err);
        ck_assert_str_eq(split.parts, "pointy-wild:4");
        ck_assert_msg(strstr(split.why, "pointy-wild: compilation failed: pointy: no MUL; split into pointy-wild:1 "
                                        "xnnpack:1 reference:1 pointy-wild:1"), "%s", split.why);
        dt_assert_close(&split, &ref, 0, 0, 0);
        dt_result_done(&split);
        dt_result_done(&ref);
        ck_assert_int_eq(rt_driver_unregister("pointy-wild"), 0);
}
END_TEST

int main(void) {
        Suite *s = suite_create("fallback");
        TCase *tc = tcase_create("fallback");
        int n_absent = (int) (sizeof(absent) / sizeof(absent[0]));
        tcase_add_loop_test(tc, test_absent_delegate_unavailable_without_fallback, 0, n_absent);
        tcase_add_loop_test(tc, test_absent_delegate_falls_back_to_xnnpack, 0, n_absent);
        tcase_add_test(tc, test_misspelt_delegate_gets_a_suggestion);
        tcase_add_test(tc, test_name_distance);
        if (rt_driver_xnnpack()) {
                tcase_add_test(tc, test_forced_fp16_falls_back_to_float32);
                tcase_add_test(tc, test_uncompilable_group_is_split);
                tcase_add_test(tc, test_group_split_on_the_same_driver_without_fallback);
                tcase_add_test(tc, test_failing_node_is_split_off);
                tcase_add_test(tc, test_node_outside_the_group_is_ignored);
        }
        suite_add_tcase(s, tc);
        SRunner *sr = srunner_create(s);
        srunner_run_all(sr, CK_NORMAL);
        int failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed ? 1 : 0;
}
