/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The XNNPACK driver's own PAD step (native.c): float32 PAD/PADV2 of zeros
 * on the innermost dimension only, run inside the group instead of
 * XNNPACK's per-row pad. Which pads take it (rt__xnn_native_wants() on
 * hand-made graphs), and that its outputs are byte-identical to the
 * reference kernel's at 1 and 2 threads: on small builder-made graphs and,
 * with `models` as the argument, on the shared models that pad this way
 * (exit 77 without ACCELD_SHARED_DIR).
 */
#include <check.h>
#include <stdio.h>
#include <unistd.h>

#include "driver.h"
#include "dtest.h"
#include "xnnpack-internal.h"

#define F RT_TYPE_FLOAT32

/* ---- which pads the step takes ---- */

/* A graph of one PAD/PADV2 node: tensor 0 the input, 1 the paddings, 2 the
 * output, 3 PADV2's value. */
typedef struct pad_graph {
        rt_tensor_t t[4];
        int32_t pads[8];
        float value;
        int32_t ins[3], outs[1];
        rt_node_t node;
        rt_driver_graph_t g;
} pad_graph_t;

static void pad_graph_init(pad_graph_t *p, int32_t op, rt_type_t type, const int32_t pads[8], const float *value) {
        memset(p, 0, sizeof(*p));
        memcpy(p->pads, pads, sizeof(p->pads));
        int32_t dims[4] = { 1, 6, 5, 3 };
        for (int k = 0; k < 3; k += 2) {
                p->t[k].type = type;
                p->t[k].rank = 4;
                p->t[k].alloc = RT_ALLOC_ARENA;
                for (int d = 0; d < 4; d++)
                        p->t[k].dims[d] = dims[d] + (k == 2 ? pads[2 * d] + pads[2 * d + 1] : 0);
        }
        p->t[1] = (rt_tensor_t) { .type = RT_TYPE_INT32, .rank = 2, .dims = { 4, 2 }, .data = p->pads,
                                  .bytes = sizeof(p->pads), .alloc = RT_ALLOC_CONST };
        p->ins[0] = 0;
        p->ins[1] = 1;
        p->ins[2] = -1;
        if (value) {
                p->value = *value;
                p->t[3] = (rt_tensor_t) { .type = F, .rank = 0, .data = &p->value, .bytes = sizeof(float),
                                          .alloc = RT_ALLOC_CONST };
                p->ins[2] = 3;
        }
        p->outs[0] = 2;
        p->node = (rt_node_t) { .op = op, .inputs = p->ins, .n_inputs = op == RT_BUILTIN_PADV2 ? 3 : 2,
                                .outputs = p->outs, .n_outputs = 1 };
        p->g = (rt_driver_graph_t) { .tensors = p->t, .n_tensors = 4, .nodes = &p->node, .n_nodes = 1 };
}

static bool wants(int32_t op, rt_type_t type, const int32_t pads[8], const float *value) {
        pad_graph_t p;
        pad_graph_init(&p, op, type, pads, value);
        return rt__xnn_native_wants(&p.g, &p.node);
}

START_TEST(test_pad_step_chosen_for_channel_zero_pads) {
        int32_t post[8] = { 0, 0, 0, 0, 0, 0, 0, 5 }, pre[8] = { 0, 0, 0, 0, 0, 0, 2, 0 };
        int32_t both[8] = { 0, 0, 0, 0, 0, 0, 1, 4 }, none[8] = { 0 };
        float zero = 0.0f;
        ck_assert(wants(RT_BUILTIN_PAD, F, post, NULL));
        ck_assert(wants(RT_BUILTIN_PAD, F, pre, NULL));
        ck_assert(wants(RT_BUILTIN_PAD, F, both, NULL));
        ck_assert(wants(RT_BUILTIN_PAD, F, none, NULL));
        ck_assert(wants(RT_BUILTIN_PADV2, F, post, NULL));  /* value absent: zeros */
        ck_assert(wants(RT_BUILTIN_PADV2, F, both, &zero));
        /* Prepared: rows of 3 floats with 1 before and 4 after. */
        pad_graph_t p;
        pad_graph_init(&p, RT_BUILTIN_PAD, F, both, NULL);
        rt__xnn_native_t *s = NULL;
        char err[256] = "";
        ck_assert_msg(rt__xnn_native_prepare(&p.g, &p.node, &s, err, sizeof(err)) == 0, "%s", err);
        ck_assert_int_eq(rt__xnn_native_n_inputs(s), 1);
        ck_assert_int_eq(rt__xnn_native_input(s, 0), 0);
        ck_assert_int_eq(rt__xnn_native_output(s), 2);
        float in[30 * 3], out[30 * 8];
        for (int i = 0; i < 90; i++)
                in[i] = (float) i - 45.5f;
        in[4] = -0.0f;
        memset(out, 0xff, sizeof(out));
        const void *srcs[1] = { in };
        rt__xnn_native_run(s, NULL, srcs, out, false);
        for (int r = 0; r < 30; r++)
                for (int c = 0; c < 8; c++) {
                        float want = c >= 1 && c < 4 ? in[r * 3 + c - 1] : 0.0f;
                        ck_assert_mem_eq(&out[r * 8 + c], &want, sizeof(float));
                }
        rt__xnn_native_free(s);
}
END_TEST

START_TEST(test_pad_step_not_for_other_pads) {
        int32_t spatial[8] = { 0, 0, 1, 1, 0, 0, 0, 0 }, mixed[8] = { 0, 0, 0, 1, 0, 0, 0, 2 };
        int32_t batch[8] = { 1, 0, 0, 0, 0, 0, 0, 0 }, post[8] = { 0, 0, 0, 0, 0, 0, 0, 5 };
        float one = 1.0f, negzero = -0.0f;
        ck_assert(!wants(RT_BUILTIN_PAD, F, spatial, NULL));
        ck_assert(!wants(RT_BUILTIN_PAD, F, mixed, NULL));
        ck_assert(!wants(RT_BUILTIN_PAD, F, batch, NULL));
        ck_assert(!wants(RT_BUILTIN_PADV2, F, post, &one));
        ck_assert(!wants(RT_BUILTIN_PADV2, F, post, &negzero));  /* not all zero bytes */
        ck_assert(!wants(RT_BUILTIN_PAD, RT_TYPE_INT8, post, NULL));
        ck_assert(!wants(RT_BUILTIN_PAD, RT_TYPE_UINT8, post, NULL));
        ck_assert(!wants(RT_BUILTIN_PAD, RT_TYPE_INT32, post, NULL));
        /* Paddings computed at run time. */
        pad_graph_t p;
        pad_graph_init(&p, RT_BUILTIN_PAD, F, post, NULL);
        p.t[1].alloc = RT_ALLOC_ARENA;
        ck_assert(!rt__xnn_native_wants(&p.g, &p.node));
        /* A PADV2 value computed at run time. */
        float zero = 0.0f;
        pad_graph_init(&p, RT_BUILTIN_PADV2, F, post, &zero);
        p.t[3].alloc = RT_ALLOC_ARENA;
        ck_assert(!rt__xnn_native_wants(&p.g, &p.node));
}
END_TEST

/* ---- byte-identical to the reference kernel ---- */

/*
 * Blazeface's residual block, with odd channel counts:
 *   a = ADD(in, in)                          XNNPACK
 *   p = PAD(a, channels 5 -> 5 + pre + post) driver (graph output 0)
 *   q = ADD(p, b)                            XNNPACK
 *   y = RELU(q)                              XNNPACK (graph output 1)
 *   z = PADV2(y, channels, value v)          driver when v is +0.0f (graph output 2)
 */
static tfb_t *residual_graph(int32_t pre, int32_t post, bool v2_value) {
        tfb_t *b = tfb_new();
        int32_t c = 5, oc = c + pre + post;
        int32_t ish[4] = { 1, 7, 3, c }, osh[4] = { 1, 7, 3, oc }, zsh[4] = { 1, 7, 3, oc + 3 }, psh[2] = { 4, 2 };
        int32_t pads[8] = { 0, 0, 0, 0, 0, 0, pre, post }, pads2[8] = { 0, 0, 0, 0, 0, 0, 3, 0 };
        float zero = 0.0f;
        int32_t in = tfb_tensor(b, F, "in", 4, ish), bb = tfb_tensor(b, F, "b", 4, osh);
        int32_t a = tfb_tensor(b, F, "a", 4, ish);
        int32_t pd = tfb_tensor_const(b, RT_TYPE_INT32, "pads", 2, psh, pads, sizeof(pads));
        int32_t pd2 = tfb_tensor_const(b, RT_TYPE_INT32, "pads2", 2, psh, pads2, sizeof(pads2));
        int32_t v = tfb_tensor_const(b, F, "v", 0, NULL, &zero, sizeof(zero));
        int32_t p = tfb_tensor(b, F, "p", 4, osh), q = tfb_tensor(b, F, "q", 4, osh);
        int32_t y = tfb_tensor(b, F, "y", 4, osh), z = tfb_tensor(b, F, "z", 4, zsh);
        tfb_option_t act[] = { TFB_OPT_I8(0, RT_ACT_NONE) };
        int32_t i_add[2] = { in, in }, i_pad[2] = { a, pd }, i_add2[2] = { p, bb }, i_pad2[3] = { y, pd2, v };
        tfb_op_t ops[] = {
                { .opcode = tfb_opcode_builtin(b, RT_BUILTIN_ADD, 1), .inputs = i_add, .n_inputs = 2, .outputs = &a,
                  .n_outputs = 1, .options_type = RT_OPTIONS_ADD, .options = act, .n_options = 1 },
                { .opcode = tfb_opcode_builtin(b, RT_BUILTIN_PAD, 1), .inputs = i_pad, .n_inputs = 2,
                  .outputs = &p, .n_outputs = 1, .options_type = RT_OPTIONS_PAD },
                { .opcode = tfb_opcode_builtin(b, RT_BUILTIN_ADD, 1), .inputs = i_add2, .n_inputs = 2,
                  .outputs = &q, .n_outputs = 1, .options_type = RT_OPTIONS_ADD, .options = act, .n_options = 1 },
                { .opcode = tfb_opcode_builtin(b, RT_BUILTIN_RELU, 1), .inputs = &q, .n_inputs = 1, .outputs = &y,
                  .n_outputs = 1 },
                { .opcode = tfb_opcode_builtin(b, RT_BUILTIN_PADV2, 1), .inputs = i_pad2,
                  .n_inputs = v2_value ? 3 : 2, .outputs = &z, .n_outputs = 1, .options_type = RT_OPTIONS_PAD_V2 },
        };
        for (size_t k = 0; k < sizeof(ops) / sizeof(ops[0]); k++)
                tfb_op_add(b, &ops[k]);
        int32_t gins[2] = { in, bb }, outs[3] = { p, y, z };
        tfb_io(b, gins, 2, outs, 3);
        return b;
}

/* One XNNPACK group, every output byte-identical to the reference. */
static void check_exact(tfb_t *b) {
        size_t size = 0;
        _cleanup_free_ uint8_t *buf = tfb_finish(b, &size);
        ck_assert_ptr_nonnull(buf);
        dt_result_t ref;
        dt_run(buf, size, NULL, &ref);
        ck_assert_msg(ref.invoke_err == 0 && ref.alloc_err == 0 && ref.create_err == 0, "reference: %s", ref.err);
        for (int threads = 1; threads <= 2; threads++) {
                rt_settings_t s = dt_xnnpack(threads);
                dt_result_t x;
                dt_run(buf, size, &s, &x);
                ck_assert_msg(x.invoke_err == 0 && x.alloc_err == 0 && x.create_err == 0, "xnnpack: %s", x.err);
                ck_assert_str_eq(x.parts, "xnnpack:5");
                ck_assert_int_eq(x.n_out, ref.n_out);
                for (int i = 0; i < ref.n_out; i++) {
                        ck_assert_uint_eq(x.out_bytes[i], ref.out_bytes[i]);
                        ck_assert_msg(memcmp(x.out[i], ref.out[i], ref.out_bytes[i]) == 0,
                                      "output %d differs from the reference at %d threads", i, threads);
                }
                dt_result_done(&x);
        }
        dt_result_done(&ref);
        tfb_free(b);
}

START_TEST(test_pad_step_exact_post) {
        check_exact(residual_graph(0, 6, false));
}
END_TEST

START_TEST(test_pad_step_exact_pre) {
        check_exact(residual_graph(3, 0, true));
}
END_TEST

START_TEST(test_pad_step_exact_both) {
        check_exact(residual_graph(1, 2, true));
}
END_TEST

/* Rows large enough for several tiles of the pool's work: [1, 96, 64, 21]
 * -> 32 channels. */
START_TEST(test_pad_step_exact_many_tiles) {
        tfb_t *b = tfb_new();
        int32_t ish[4] = { 1, 96, 64, 21 }, osh[4] = { 1, 96, 64, 32 }, psh[2] = { 4, 2 };
        int32_t pads[8] = { 0, 0, 0, 0, 0, 0, 0, 11 };
        int32_t in = tfb_tensor(b, F, "in", 4, ish), a = tfb_tensor(b, F, "a", 4, ish);
        int32_t pd = tfb_tensor_const(b, RT_TYPE_INT32, "pads", 2, psh, pads, sizeof(pads));
        int32_t p = tfb_tensor(b, F, "p", 4, osh), y = tfb_tensor(b, F, "y", 4, osh);
        tfb_option_t act[] = { TFB_OPT_I8(0, RT_ACT_NONE) };
        int32_t i_add[2] = { in, in }, i_pad[2] = { a, pd }, i_mul[2] = { p, p };
        tfb_op_t ops[] = {
                { .opcode = tfb_opcode_builtin(b, RT_BUILTIN_ADD, 1), .inputs = i_add, .n_inputs = 2, .outputs = &a,
                  .n_outputs = 1, .options_type = RT_OPTIONS_ADD, .options = act, .n_options = 1 },
                { .opcode = tfb_opcode_builtin(b, RT_BUILTIN_PAD, 1), .inputs = i_pad, .n_inputs = 2,
                  .outputs = &p, .n_outputs = 1, .options_type = RT_OPTIONS_PAD },
                { .opcode = tfb_opcode_builtin(b, RT_BUILTIN_MUL, 1), .inputs = i_mul, .n_inputs = 2, .outputs = &y,
                  .n_outputs = 1, .options_type = RT_OPTIONS_MUL, .options = act, .n_options = 1 },
        };
        for (size_t k = 0; k < sizeof(ops) / sizeof(ops[0]); k++)
                tfb_op_add(b, &ops[k]);
        tfb_io(b, &in, 1, &y, 1);
        size_t size = 0;
        _cleanup_free_ uint8_t *buf = tfb_finish(b, &size);
        dt_result_t ref;
        dt_run(buf, size, NULL, &ref);
        ck_assert_msg(ref.invoke_err == 0, "reference: %s", ref.err);
        for (int threads = 1; threads <= 2; threads++) {
                rt_settings_t s = dt_xnnpack(threads);
                dt_result_t x;
                dt_run(buf, size, &s, &x);
                ck_assert_msg(x.invoke_err == 0 && x.create_err == 0, "xnnpack: %s", x.err);
                ck_assert_str_eq(x.parts, "xnnpack:3");
                ck_assert_uint_eq(x.out_bytes[0], ref.out_bytes[0]);
                ck_assert_msg(memcmp(x.out[0], ref.out[0], ref.out_bytes[0]) == 0, "differs at %d threads", threads);
                dt_result_done(&x);
        }
        dt_result_done(&ref);
        tfb_free(b);
}
END_TEST

/* ---- the shared models ---- */

typedef struct outs {
        int n;
        size_t bytes[DT_MAX_OUT];
        uint8_t *data[DT_MAX_OUT];
} outs_t;

/* Runs model `path` once on XNNPACK at `threads` with dt_fill()'s inputs;
 * `disable` is ACCELD_XNNPACK_DISABLE_OPS (NULL: unset). */
static void run_model(const char *path, int threads, const char *disable, outs_t *o) {
        char err[512] = "";
        rt_model_t *m = NULL;
        ck_assert_msg(rt_model_load_file(path, &m, err, sizeof(err)) == 0, "%s", err);
        rt_settings_t s = dt_xnnpack(threads);
        rt_interp_options_t *opt = rt_interp_options_new();
        ck_assert_int_eq(rt_interp_options_set_settings(opt, &s), 0);
        if (disable)
                setenv("ACCELD_XNNPACK_DISABLE_OPS", disable, 1);
        rt_interp_t *it = NULL;
        int r = rt_interp_create(m, opt, &it, err, sizeof(err));
        if (r == 0)
                r = rt_interp_allocate_tensors(it);
        unsetenv("ACCELD_XNNPACK_DISABLE_OPS");
        ck_assert_msg(r == 0, "%s: %s", path, it ? rt_interp_last_error(it) : err);
        for (int32_t i = 0; i < rt_interp_input_count(it); i++)
                dt_fill(rt_interp_input_tensor(it, i), rt_interp_input_data(it, i), (uint32_t) i + 7);
        ck_assert_msg(rt_interp_invoke(it) == 0, "%s", rt_interp_last_error(it));
        o->n = rt_interp_output_count(it);
        ck_assert_int_le(o->n, DT_MAX_OUT);
        for (int i = 0; i < o->n; i++) {
                const rt_tensor_t *t = rt_interp_output_tensor(it, i);
                o->bytes[i] = t->bytes;
                o->data[i] = malloc(t->bytes ? t->bytes : 1);
                memcpy(o->data[i], t->data, t->bytes);
        }
        rt_interp_free(it);
        rt_interp_options_free(opt);
        rt_model_free(m);
}

/* The models' pads run by the driver's step give the same bytes as with
 * PAD and PADV2 (34, 60) kept off the driver, on the reference kernel;
 * everything else runs on the same XNNPACK kernels either way. */
START_TEST(test_pad_step_shared_models) {
        static const char *names[] = { "blazeface_front_float", "mp_face_detection_short_range",
                                       "facemesh_landmark_float" };
        const char *shared = getenv("ACCELD_SHARED_DIR");
        char path[1024];
        for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
                snprintf(path, sizeof(path), "%s/models/%s.tflite", shared, names[k]);
                for (int threads = 1; threads <= 2; threads++) {
                        outs_t step, ref;
                        run_model(path, threads, NULL, &step);
                        run_model(path, threads, "34,60", &ref);
                        ck_assert_int_eq(step.n, ref.n);
                        for (int i = 0; i < ref.n; i++) {
                                ck_assert_uint_eq(step.bytes[i], ref.bytes[i]);
                                ck_assert_msg(memcmp(step.data[i], ref.data[i], ref.bytes[i]) == 0,
                                              "%s output %d differs at %d threads", names[k], i, threads);
                                free(step.data[i]);
                                free(ref.data[i]);
                        }
                }
        }
}
END_TEST

static void add_unit(TCase *tc) {
        tcase_add_test(tc, test_pad_step_chosen_for_channel_zero_pads);
        tcase_add_test(tc, test_pad_step_not_for_other_pads);
        tcase_add_test(tc, test_pad_step_exact_post);
        tcase_add_test(tc, test_pad_step_exact_pre);
        tcase_add_test(tc, test_pad_step_exact_both);
        tcase_add_test(tc, test_pad_step_exact_many_tiles);
}

static void add_models(TCase *tc) {
        tcase_add_test(tc, test_pad_step_shared_models);
}

int main(int argc, char **argv) {
        return dt_xnnpack_main(argc, argv, "xnnpack-pad", add_unit, add_models);
}
