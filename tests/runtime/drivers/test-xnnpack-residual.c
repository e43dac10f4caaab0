/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The XNNPACK driver's residual step (residual.c): [PAD ->] ADD
 * [-> RELU / RELU6 / RELU_N1_TO_1 / PRELU] run as one step of the driver.
 * Which nodes it takes (rt__xnn_residual_span() on hand-made graphs), and
 * that it gives XNNPACK's own bytes: the step run directly, and whole
 * graphs at 1 and 2 threads, against the same graphs with
 * ACCELD_XNNPACK_UNFUSED=1 (XNNPACK's ADD and clamp or PRELU, the
 * driver's PAD step), on inputs full of NaN, infinities, signed zeros,
 * FLT_MAX and subnormals; with `models` as the argument, on the shared
 * models built of such blocks (exit 77 without ACCELD_SHARED_DIR).
 */
#include <check.h>
#include <float.h>
#include <stdio.h>
#include <unistd.h>
#if defined(__SSE__)
#include <xmmintrin.h>
#endif

#include "driver.h"
#include "dtest.h"
#include "xnnpack-internal.h"

#define F RT_TYPE_FLOAT32

/* One residual block: input x [1, h, w, cb] (cb = c - pre - post when
 * padded, else c), r [1, h, w, c]; p = PAD(x) when padded; s = ADD(p or
 * x, r) or ADD(r, ...) when !pad_first, with fused activation add_act;
 * y = act(s) when act is an op (0: none). */
typedef struct block {
        int32_t h, w, c, pre, post;
        bool padded, pad_first;
        int8_t add_act;
        int32_t act;
        /* r comes from q = ADD(r, r) (XNNPACK's) inside the group, so the
         * step may write its output over q; read again after the step by
         * z = ADD(q, y) (the output then) when r_again. */
        bool r_inner, r_again;
        /* r comes from a 1x1 CONV_2D of conv_k input channels (0: none)
         * with fused activation conv_act. */
        int32_t conv_k;
        int8_t conv_act;
} block_t;

static int32_t block_cb(const block_t *b) {
        return b->padded ? b->c - b->pre - b->post : b->c;
}

/* Slopes of both signs, one per channel. */
static void slopes_fill(float *v, int32_t c) {
        for (int32_t j = 0; j < c; j++)
                v[j] = (j % 3 == 0 ? -0.75f : 0.25f) + (float) j / 64.0f;
}

/* y = ADD(a, c) with fused activation act. */
static void add_op(tfb_t *b, int32_t a, int32_t c, int32_t y, int8_t act) {
        tfb_option_t o[] = { TFB_OPT_I8(0, act) };
        int32_t ins[2] = { a, c };
        tfb_op_t op = { .opcode = tfb_opcode_builtin(b, RT_BUILTIN_ADD, 1), .inputs = ins, .n_inputs = 2,
                        .outputs = &y, .n_outputs = 1, .options_type = RT_OPTIONS_ADD, .options = o, .n_options = 1 };
        tfb_op_add(b, &op);
}

static tfb_t *block_model(const block_t *bl) {
        tfb_t *b = tfb_new();
        int32_t xsh[4] = { 1, bl->h, bl->w, block_cb(bl) }, sh[4] = { 1, bl->h, bl->w, bl->c };
        int32_t psh[2] = { 4, 2 }, ssh[3] = { 1, 1, bl->c };
        int32_t pads[8] = { 0, 0, 0, 0, 0, 0, bl->pre, bl->post };
        float slopes[256];
        slopes_fill(slopes, bl->c);
        int32_t x = tfb_tensor(b, F, "x", 4, xsh), r = tfb_tensor(b, F, "r", 4, sh);
        int32_t s = tfb_tensor(b, F, "s", 4, sh), y = tfb_tensor(b, F, "y", 4, sh), p = x, r_in = r;
        if (bl->conv_k) {
                int32_t ksh[4] = { 1, bl->h, bl->w, bl->conv_k }, fsh[4] = { bl->c, 1, 1, bl->conv_k };
                int32_t bsh[1] = { bl->c };
                size_t nw = (size_t) bl->c * (size_t) bl->conv_k;
                float *w = malloc(nw * sizeof(float)), bias[256];
                for (size_t i = 0; i < nw; i++)
                        w[i] = (float) ((i * 7919u) % 2001u) / 1000.0f - 1.0f;
                for (int32_t j = 0; j < bl->c; j++)
                        bias[j] = (float) j / 8.0f - 2.0f;
                r_in = tfb_tensor(b, F, "r_in", 4, ksh);
                int32_t f = tfb_tensor_const(b, F, "filter", 4, fsh, w, nw * sizeof(float));
                int32_t bi = tfb_tensor_const(b, F, "bias", 1, bsh, bias, (size_t) bl->c * sizeof(float));
                free(w);
                int32_t i_conv[3] = { r_in, f, bi };
                tfb_option_t co[] = { TFB_OPT_I8(0, 1 /* VALID */), TFB_OPT_I32(1, 1), TFB_OPT_I32(2, 1),
                                      TFB_OPT_I8(3, bl->conv_act) };
                tfb_op_t op = { .opcode = tfb_opcode_builtin(b, RT_BUILTIN_CONV_2D, 1), .inputs = i_conv,
                                .n_inputs = 3, .outputs = &r, .n_outputs = 1, .options_type = RT_OPTIONS_CONV_2D,
                                .options = co, .n_options = 4 };
                tfb_op_add(b, &op);
        }
        if (bl->r_inner) {
                int32_t q = tfb_tensor(b, F, "q", 4, sh);
                add_op(b, r, r, q, RT_ACT_NONE);
                r = q;
        }
        if (bl->padded) {
                int32_t pd = tfb_tensor_const(b, RT_TYPE_INT32, "pads", 2, psh, pads, sizeof(pads));
                p = tfb_tensor(b, F, "p", 4, sh);
                int32_t i_pad[2] = { x, pd };
                tfb_op_t op = { .opcode = tfb_opcode_builtin(b, RT_BUILTIN_PAD, 1), .inputs = i_pad, .n_inputs = 2,
                                .outputs = &p, .n_outputs = 1, .options_type = RT_OPTIONS_PAD };
                tfb_op_add(b, &op);
        }
        add_op(b, bl->pad_first ? p : r, bl->pad_first ? r : p, s, bl->add_act);
        if (bl->act) {
                int32_t sl = tfb_tensor_const(b, F, "slopes", 3, ssh, slopes, (size_t) bl->c * sizeof(float));
                int32_t i_act[2] = { s, sl };
                tfb_op_t op = { .opcode = tfb_opcode_builtin(b, bl->act, 1), .inputs = i_act,
                                .n_inputs = bl->act == RT_BUILTIN_PRELU ? 2 : 1, .outputs = &y, .n_outputs = 1 };
                tfb_op_add(b, &op);
        }
        int32_t ins[2] = { x, r_in }, out = bl->act ? y : s;
        if (bl->r_again) {
                int32_t z = tfb_tensor(b, F, "z", 4, sh);
                add_op(b, r, out, z, RT_ACT_NONE);
                out = z;
        }
        tfb_io(b, ins, 2, &out, 1);
        return b;
}

/* Inputs where every third value is one of these, the rest in [-8, 8). */
static void special_fill(float *v, size_t n, uint32_t seed) {
        static const float specials[] = { NAN, INFINITY, -INFINITY, -0.0f, 0.0f, FLT_MAX, -FLT_MAX, 1e-40f,
                                          -1e-40f, 6.0f, -1.0f, 1.0f, 3e38f, -3e38f, 0.5f, -6.0f };
        size_t ns = sizeof(specials) / sizeof(specials[0]);
        uint32_t x = seed * 2654435761u + 1;
        for (size_t i = 0; i < n; i++) {
                x = x * 1103515245u + 12345u;
                v[i] = i % 3 == 0 ? specials[(i / 3 + seed) % ns] : (float) ((x >> 8) & 0xffff) / 4096.0f - 8.0f;
        }
}

/* Runs a model with the given float inputs; returns output 0 (malloc'd)
 * and its byte count; `parts` gets the partitions ("xnnpack:3"). */
static float *run_inputs(const uint8_t *buf, size_t size, int threads, bool unfused, float *const *ins,
                         size_t *ret_bytes, char *parts, size_t parts_size) {
        char err[512] = "";
        rt_model_t *m = NULL;
        ck_assert_int_eq(rt_model_load_buffer(buf, size, true, &m, err, sizeof(err)), 0);
        rt_settings_t s = dt_xnnpack(threads);
        rt_interp_options_t *o = rt_interp_options_new();
        ck_assert_int_eq(rt_interp_options_set_settings(o, &s), 0);
        if (unfused)
                setenv("ACCELD_XNNPACK_UNFUSED", "1", 1);
        rt_interp_t *it = NULL;
        int r = rt_interp_create(m, o, &it, err, sizeof(err));
        if (r == 0)
                r = rt_interp_allocate_tensors(it);
        unsetenv("ACCELD_XNNPACK_UNFUSED");
        ck_assert_msg(r == 0, "%s", it ? rt_interp_last_error(it) : err);
        for (int32_t i = 0; i < rt_interp_input_count(it); i++)
                memcpy(rt_interp_input_data(it, i), ins[i], rt_interp_input_tensor(it, i)->bytes);
        ck_assert_msg(rt_interp_invoke(it) == 0, "%s", rt_interp_last_error(it));
        const rt_tensor_t *t = rt_interp_output_tensor(it, 0);
        float *out = malloc(t->bytes);
        memcpy(out, t->data, t->bytes);
        *ret_bytes = t->bytes;
        rt_interp_partition_t pa[8];
        size_t np = rt_interp_partitions(it, pa, 8), o2 = 0;
        parts[0] = 0;
        for (size_t i = 0; i < np && i < 8 && o2 < parts_size; i++)
                o2 += (size_t) snprintf(parts + o2, parts_size - o2, "%s%s:%d", i ? " " : "", pa[i].driver,
                                        pa[i].nodes);
        rt_interp_free(it);
        rt_interp_options_free(o);
        rt_model_free(m);
        return out;
}

/* ---- which nodes the step takes: hand-made graphs ---- */

/* Tensors: 0 x, 1 paddings, 2 p, 3 r, 4 s, 5 y, 6 slopes, 7 an extra
 * reader's output. Nodes: PAD(x) -> p, ADD(p, r) -> s, act(s) -> y when
 * the block has one, and a RELU of tensor `extra_of` when >= 0. */
typedef struct hand {
        rt_tensor_t t[8];
        int32_t pads[8];
        float slopes[64];
        int32_t i_pad[2], o_pad[1], i_add[2], o_add[1], i_act[2], o_act[1], i_x[1], o_x[1];
        rt_node_t nodes[4];
        int32_t group_nodes[4], group_outs[2];
        rt_driver_graph_t g;
        rt_driver_group_t grp;
} hand_t;

static void hand_init(hand_t *h, const block_t *bl, int32_t extra_of, bool s_leaves) {
        memset(h, 0, sizeof(*h));
        int32_t c = bl->c, cb = block_cb(bl);
        int32_t sizes[8] = { cb, 0, c, c, c, c, 0, c };
        for (int k = 0; k < 8; k++) {
                if (k == 1 || k == 6)
                        continue;
                h->t[k] = (rt_tensor_t) { .type = F, .rank = 4, .dims = { 1, bl->h, bl->w, sizes[k] },
                                          .alloc = RT_ALLOC_ARENA };
                h->t[k].bytes = rt_tensor_count(&h->t[k]) * sizeof(float);
        }
        h->pads[6] = bl->pre;
        h->pads[7] = bl->post;
        h->t[1] = (rt_tensor_t) { .type = RT_TYPE_INT32, .rank = 2, .dims = { 4, 2 }, .data = h->pads,
                                  .bytes = sizeof(h->pads), .alloc = RT_ALLOC_CONST };
        slopes_fill(h->slopes, c);
        h->t[6] = (rt_tensor_t) { .type = F, .rank = 3, .dims = { 1, 1, c }, .data = h->slopes,
                                  .bytes = (size_t) c * sizeof(float), .alloc = RT_ALLOC_CONST };
        h->i_pad[0] = 0;
        h->i_pad[1] = 1;
        h->o_pad[0] = 2;
        h->i_add[0] = bl->pad_first ? 2 : 3;
        h->i_add[1] = bl->pad_first ? 3 : 2;
        h->o_add[0] = 4;
        h->i_act[0] = 4;
        h->i_act[1] = 6;
        h->o_act[0] = 5;
        h->i_x[0] = extra_of;
        h->o_x[0] = 7;
        int32_t n = 0;
        h->nodes[n++] = (rt_node_t) { .op = RT_BUILTIN_PAD, .inputs = h->i_pad, .n_inputs = 2, .outputs = h->o_pad,
                                      .n_outputs = 1 };
        h->nodes[n++] = (rt_node_t) { .op = RT_BUILTIN_ADD, .inputs = h->i_add, .n_inputs = 2, .outputs = h->o_add,
                                      .n_outputs = 1 };
        if (bl->act)
                h->nodes[n++] = (rt_node_t) { .op = bl->act, .inputs = h->i_act,
                                              .n_inputs = bl->act == RT_BUILTIN_PRELU ? 2 : 1, .outputs = h->o_act,
                                              .n_outputs = 1 };
        if (extra_of >= 0)
                h->nodes[n++] = (rt_node_t) { .op = RT_BUILTIN_RELU, .inputs = h->i_x, .n_inputs = 1,
                                              .outputs = h->o_x, .n_outputs = 1 };
        int32_t no = 0;
        h->group_outs[no++] = extra_of >= 0 ? 7 : bl->act ? 5 : 4;
        if (s_leaves)
                h->group_outs[no++] = 4;
        for (int32_t k = 0; k < n; k++)
                h->group_nodes[k] = k;
        h->g = (rt_driver_graph_t) { .tensors = h->t, .n_tensors = 8, .nodes = h->nodes, .n_nodes = n };
        h->grp = (rt_driver_group_t) { .nodes = h->group_nodes, .n_nodes = n, .outputs = h->group_outs,
                                       .n_outputs = no };
}

static const block_t BLAZE = { .h = 4, .w = 3, .c = 28, .pre = 0, .post = 4, .padded = true, .pad_first = false,
                               .add_act = RT_ACT_NONE, .act = RT_BUILTIN_RELU };

START_TEST(test_residual_span_takes_pad_add_and_activation) {
        hand_t h;
        hand_init(&h, &BLAZE, -1, false);
        ck_assert_int_eq(rt__xnn_residual_span(&h.g, &h.grp, NULL, 0), 3);
        ck_assert_int_eq(rt__xnn_residual_span(&h.g, &h.grp, NULL, 1), 2);   /* the ADD and its RELU */
        ck_assert_int_eq(rt__xnn_residual_span(&h.g, &h.grp, NULL, 2), 0);   /* a RELU starts none */
        block_t b = BLAZE;
        b.pad_first = true;
        b.pre = 3;
        b.post = 1;
        b.act = RT_BUILTIN_PRELU;
        b.add_act = RT_ACT_RELU6;
        hand_init(&h, &b, -1, false);
        ck_assert_int_eq(rt__xnn_residual_span(&h.g, &h.grp, NULL, 0), 3);
        /* Prepared: a is r, b the pad's input; the output is y. */
        rt__xnn_native_t *s = NULL;
        char err[256] = "";
        ck_assert_msg(rt__xnn_native_prepare_span(&h.g, h.group_nodes, 3, &s, err, sizeof(err)) == 0, "%s", err);
        ck_assert_int_eq(rt__xnn_native_n_inputs(s), 2);
        ck_assert_int_eq(rt__xnn_native_input(s, 0), 3);
        ck_assert_int_eq(rt__xnn_native_input(s, 1), 0);
        ck_assert_int_eq(rt__xnn_native_output(s), 5);
        rt__xnn_native_free(s);
        /* Off: each node as before. */
        setenv("ACCELD_XNNPACK_UNFUSED", "1", 1);
        ck_assert_int_eq(rt__xnn_residual_span(&h.g, &h.grp, NULL, 0), 0);
        ck_assert_int_eq(rt__xnn_residual_span(&h.g, &h.grp, NULL, 1), 0);
        unsetenv("ACCELD_XNNPACK_UNFUSED");
}
END_TEST

START_TEST(test_residual_span_keeps_tensors_read_elsewhere) {
        hand_t h;
        /* The padded tensor has a second reader: the PAD stays a step of
         * its own, the ADD and RELU fuse. */
        hand_init(&h, &BLAZE, 2, false);
        ck_assert_int_eq(rt__xnn_residual_span(&h.g, &h.grp, NULL, 0), 0);
        ck_assert_int_eq(rt__xnn_residual_span(&h.g, &h.grp, NULL, 1), 2);
        /* The sum has a second reader, or leaves the group: no RELU. */
        hand_init(&h, &BLAZE, 4, false);
        ck_assert_int_eq(rt__xnn_residual_span(&h.g, &h.grp, NULL, 0), 2);
        hand_init(&h, &BLAZE, -1, true);
        ck_assert_int_eq(rt__xnn_residual_span(&h.g, &h.grp, NULL, 0), 2);
        /* Nothing to fold: a lone ADD stays XNNPACK's. */
        ck_assert_int_eq(rt__xnn_residual_span(&h.g, &h.grp, NULL, 1), 0);
}
END_TEST

START_TEST(test_residual_span_refuses_other_adds) {
        hand_t h;
        hand_init(&h, &BLAZE, -1, false);
        /* Broadcast: r of one pixel. */
        h.t[3].dims[1] = h.t[3].dims[2] = 1;
        ck_assert_int_eq(rt__xnn_residual_span(&h.g, &h.grp, NULL, 1), 0);
        ck_assert_int_eq(rt__xnn_residual_span(&h.g, &h.grp, NULL, 0), 0);
        /* Quantized. */
        hand_init(&h, &BLAZE, -1, false);
        for (int k = 0; k < 8; k++)
                if (h.t[k].type == F)
                        h.t[k].type = RT_TYPE_INT8;
        ck_assert_int_eq(rt__xnn_residual_span(&h.g, &h.grp, NULL, 1), 0);
        /* A shape known only at run time. */
        hand_init(&h, &BLAZE, -1, false);
        h.t[3].dims[1] = -1;
        ck_assert_int_eq(rt__xnn_residual_span(&h.g, &h.grp, NULL, 1), 0);
        /* A spatial pad is XNNPACK's, not the step's. */
        hand_init(&h, &BLAZE, -1, false);
        h.pads[2] = 1;
        ck_assert_int_eq(rt__xnn_residual_span(&h.g, &h.grp, NULL, 0), 0);
        /* PRELU slopes that are not per channel. */
        block_t b = BLAZE;
        b.act = RT_BUILTIN_PRELU;
        hand_init(&h, &b, -1, false);
        ck_assert_int_eq(rt__xnn_residual_span(&h.g, &h.grp, NULL, 0), 3);
        h.t[6].dims[2] = 1;
        ck_assert_int_eq(rt__xnn_residual_span(&h.g, &h.grp, NULL, 0), 2);
        /* A variable output. */
        hand_init(&h, &BLAZE, -1, false);
        h.t[5].is_variable = true;
        ck_assert_int_eq(rt__xnn_residual_span(&h.g, &h.grp, NULL, 0), 2);
}
END_TEST

/* ---- XNNPACK's bytes ---- */

/* The step itself, as the group runs it (subnormals flushed), from the
 * hand-made graph of the same block, against XNNPACK's bytes `want`. The
 * hand-made ADD has no options: blocks with a fused NONE only. */
static void check_step_alone(const block_t *bl, const float *x, const float *r, const float *want) {
        size_t nr = (size_t) bl->h * (size_t) bl->w * (size_t) bl->c;
        int n_nodes = 1 + bl->padded + (bl->act != 0);
        hand_t h;
        hand_init(&h, bl, -1, false);
        int32_t first = bl->padded ? 0 : 1;
        ck_assert_int_eq(rt__xnn_residual_span(&h.g, &h.grp, NULL, first), n_nodes > 1 ? n_nodes : 0);
        if (n_nodes == 1)
                return;  /* a lone ADD: XNNPACK's own */
        rt__xnn_native_t *s = NULL;
        char err[256] = "";
        ck_assert_msg(rt__xnn_native_prepare_span(&h.g, h.group_nodes + first, n_nodes, &s, err, sizeof(err)) == 0,
                      "%s", err);
        const void *srcs[2];
        for (int k = 0; k < 2; k++) {
                int32_t t = rt__xnn_native_input(s, k);  /* x, or p = x unpadded; else r */
                srcs[k] = t == 0 || t == 2 ? (const void *) x : (const void *) r;
        }
        float *y = malloc(nr * sizeof(float));
#if defined(__SSE__)
        unsigned csr = _mm_getcsr();
        _mm_setcsr(csr | 0x8040u);
#endif
        rt__xnn_native_run(s, NULL, srcs, y, false);
#if defined(__SSE__)
        _mm_setcsr(csr);
#endif
        for (size_t i = 0; i < nr; i++)
                ck_assert_msg(memcmp(&y[i], &want[i], sizeof(float)) == 0,
                              "the step alone, element %zu: %a, XNNPACK %a", i, (double) y[i], (double) want[i]);
        rt__xnn_native_free(s);
        free(y);
}

/* The block's model, run fused and unfused at 1 and 2 threads, and the
 * step alone on the calling thread: all the same bytes. */
static void check_block(const block_t *bl) {
        tfb_t *b = block_model(bl);
        size_t size = 0;
        _cleanup_free_ uint8_t *buf = tfb_finish(b, &size);
        ck_assert_ptr_nonnull(buf);
        size_t nx = (size_t) bl->h * (size_t) bl->w * (size_t) block_cb(bl);
        size_t nr = (size_t) bl->h * (size_t) bl->w * (size_t) bl->c;
        size_t nri = bl->conv_k ? (size_t) bl->h * (size_t) bl->w * (size_t) bl->conv_k : nr;
        float *x = malloc(nx * sizeof(float)), *r = malloc((nri > nr ? nri : nr) * sizeof(float));
        special_fill(x, nx, 3);
        special_fill(r, nri, 11);
        if (bl->conv_k)  /* mostly finite pixels, so that most sums are */
                for (size_t i = 0; i < nri; i++)
                        if (!isfinite(r[i]) && (i / (size_t) bl->conv_k) % 5 != 0)
                                r[i] = 0.25f;
        /* -0.0 + -0.0 = -0.0: a signed zero reaching the clamp or PRELU
         * (channel 0's slope is negative). */
        for (size_t i = 0; i < 8 && i < nx; i++)
                x[i] = r[i] = -0.0f;
        float *ins[2] = { x, r };
        char parts[64];
        size_t want_bytes = 0, bytes = 0;
        float *want = run_inputs(buf, size, 1, true, ins, &want_bytes, parts, sizeof(parts));
        ck_assert_uint_eq(want_bytes, nr * sizeof(float));
        int n_nodes = 1 + bl->padded + (bl->act != 0);
        char want_parts[32];
        snprintf(want_parts, sizeof(want_parts), "xnnpack:%d",
                 n_nodes + bl->r_inner + bl->r_again + (bl->conv_k > 0));
        ck_assert_str_eq(parts, want_parts);
        for (int threads = 1; threads <= 2; threads++)
                for (int unfused = 0; unfused <= 1; unfused++) {
                        float *got = run_inputs(buf, size, threads, unfused, ins, &bytes, parts, sizeof(parts));
                        ck_assert_str_eq(parts, want_parts);
                        ck_assert_uint_eq(bytes, want_bytes);
                        for (size_t i = 0; i < nr; i++)
                                ck_assert_msg(memcmp(&got[i], &want[i], sizeof(float)) == 0,
                                              "element %zu (channel %zu): %a, XNNPACK %a (%d threads%s)", i,
                                              i % (size_t) bl->c, (double) got[i], (double) want[i], threads,
                                              unfused ? ", unfused" : "");
                        free(got);
                }
        if (bl->add_act == RT_ACT_NONE && !bl->r_inner && !bl->conv_k)
                check_step_alone(bl, x, r, want);
        free(want);
        free(x);
        free(r);
        tfb_free(b);
}

START_TEST(test_residual_exact_blazeface_block) {
        check_block(&BLAZE);
}
END_TEST

START_TEST(test_residual_exact_over_its_input) {
        /* The step writes over q = ADD(r, r), which nothing reads after. */
        block_t b = BLAZE;
        b.r_inner = true;
        check_block(&b);
        b.act = RT_BUILTIN_PRELU;
        b.h = 40;
        b.w = 33;
        check_block(&b);
        /* q is read again after the step: a buffer of its own. */
        b.r_again = true;
        check_block(&b);
}
END_TEST

START_TEST(test_residual_exact_with_conv) {
        /* The 1x1 conv before the ADD computed in the step: XNNPACK's
         * GEMM arithmetic, its clamp, then the rest. */
        block_t b = BLAZE;
        b.conv_k = 24;
        check_block(&b);
        b.conv_k = 5;
        b.conv_act = RT_ACT_RELU6;
        b.act = RT_BUILTIN_PRELU;
        b.c = 37;
        b.post = 13;
        b.h = 11;
        b.w = 9;  /* 99 pixels: a last run of 1 */
        check_block(&b);
        b.padded = false;
        b.pad_first = true;
        b.conv_k = 40;
        b.conv_act = RT_ACT_NONE;
        b.add_act = RT_ACT_RELU;
        b.act = RT_BUILTIN_RELU6;
        b.c = 16;
        b.h = 32;
        b.w = 30;
        check_block(&b);
        /* A lone ADD after the conv: both XNNPACK's, still equal. */
        b.act = 0;
        check_block(&b);
}
END_TEST

/* CONV(xr) -> r, ADD(r, o) -> s, act(s) -> y: tensors 0 xr, 1 filter,
 * 2 bias, 3 r, 4 o, 5 s, 6 y; the conv's filter `kh` high. */
typedef struct conv_hand {
        rt_tensor_t t[7];
        float w[16 * 8 * 3], bias[16];
        int32_t i_conv[3], o_conv[1], i_add[2], o_add[1], i_act[1], o_act[1];
        rt_node_t nodes[3];
        int32_t group_nodes[3], group_outs[1];
        rt_driver_graph_t g;
        rt_driver_group_t grp;
} conv_hand_t;

static void conv_hand_init(conv_hand_t *h, int32_t kh, bool act) {
        memset(h, 0, sizeof(*h));
        int32_t chans[7] = { 8, 0, 0, 16, 16, 16, 16 };
        for (int k = 0; k < 7; k++)
                h->t[k] = (rt_tensor_t) { .type = F, .rank = 4, .dims = { 1, 5, 4, chans[k] }, .alloc = RT_ALLOC_ARENA };
        h->t[1] = (rt_tensor_t) { .type = F, .rank = 4, .dims = { 16, kh, 1, 8 }, .data = h->w,
                                  .bytes = (size_t) (16 * kh * 8) * sizeof(float), .alloc = RT_ALLOC_CONST };
        h->t[2] = (rt_tensor_t) { .type = F, .rank = 1, .dims = { 16 }, .data = h->bias, .bytes = sizeof(h->bias),
                                  .alloc = RT_ALLOC_CONST };
        memcpy(h->i_conv, (int32_t[]) { 0, 1, 2 }, sizeof(h->i_conv));
        h->o_conv[0] = 3;
        h->i_add[0] = 3;
        h->i_add[1] = 4;
        h->o_add[0] = 5;
        h->i_act[0] = 5;
        h->o_act[0] = 6;
        int32_t n = 0;
        h->nodes[n++] = (rt_node_t) { .op = RT_BUILTIN_CONV_2D, .inputs = h->i_conv, .n_inputs = 3,
                                      .outputs = h->o_conv, .n_outputs = 1 };
        h->nodes[n++] = (rt_node_t) { .op = RT_BUILTIN_ADD, .inputs = h->i_add, .n_inputs = 2, .outputs = h->o_add,
                                      .n_outputs = 1 };
        if (act)
                h->nodes[n++] = (rt_node_t) { .op = RT_BUILTIN_RELU, .inputs = h->i_act, .n_inputs = 1,
                                              .outputs = h->o_act, .n_outputs = 1 };
        h->group_outs[0] = act ? 6 : 5;
        for (int32_t k = 0; k < n; k++)
                h->group_nodes[k] = k;
        h->g = (rt_driver_graph_t) { .tensors = h->t, .n_tensors = 7, .nodes = h->nodes, .n_nodes = n };
        h->grp = (rt_driver_group_t) { .nodes = h->group_nodes, .n_nodes = n, .outputs = h->group_outs,
                                       .n_outputs = 1 };
}

START_TEST(test_residual_span_takes_the_conv_before) {
        const char *plain = getenv("ACCEL_RESIDUAL_NO_AVX512");
        if (!__builtin_cpu_supports("avx512f") || (plain && *plain == '1')) {
                /* The step's conv loop is AVX-512 only: no conv in any step. */
                conv_hand_t h;
                conv_hand_init(&h, 1, true);
                ck_assert_int_eq(rt__xnn_residual_span(&h.g, &h.grp, NULL, 0), 0);
                ck_assert_int_eq(rt__xnn_residual_span(&h.g, &h.grp, NULL, 1), 2);
                return;
        }
        conv_hand_t h;
        conv_hand_init(&h, 1, true);
        ck_assert_int_eq(rt__xnn_residual_span(&h.g, &h.grp, NULL, 0), 3);
        /* Not under the FP16 or sparse settings: XNNPACK computes other bits there. */
        rt_settings_t st;
        rt_settings_init(&st);
        st.xnnpack_flags = RT_XNNPACK_FLAG_SPARSE;
        ck_assert_int_eq(rt__xnn_residual_span(&h.g, &h.grp, &st, 0), 0);
        ck_assert_int_eq(rt__xnn_residual_span(&h.g, &h.grp, &st, 1), 0);
        st.xnnpack_flags = RT_XNNPACK_FLAG_FORCE_FP16;
        ck_assert_int_eq(rt__xnn_residual_span(&h.g, &h.grp, &st, 0), 0);
        /* Nothing to fold after the ADD: neither. */
        conv_hand_init(&h, 1, false);
        ck_assert_int_eq(rt__xnn_residual_span(&h.g, &h.grp, NULL, 0), 0);
        /* A 3x1 filter, a conv output read twice: the ADD and RELU alone. */
        conv_hand_init(&h, 3, true);
        ck_assert_int_eq(rt__xnn_residual_span(&h.g, &h.grp, NULL, 0), 0);
        ck_assert_int_eq(rt__xnn_residual_span(&h.g, &h.grp, NULL, 1), 2);
        conv_hand_init(&h, 1, true);
        h.i_add[1] = 3;
        ck_assert_int_eq(rt__xnn_residual_span(&h.g, &h.grp, NULL, 0), 0);
        /* Filter data only known at run time. */
        conv_hand_init(&h, 1, true);
        h.t[1].alloc = RT_ALLOC_ARENA;
        ck_assert_int_eq(rt__xnn_residual_span(&h.g, &h.grp, NULL, 0), 0);
}
END_TEST

START_TEST(test_residual_exact_pad_both_sides_prelu) {
        block_t b = { .h = 5, .w = 7, .c = 37, .pre = 3, .post = 13, .padded = true, .pad_first = true,
                      .add_act = RT_ACT_NONE, .act = RT_BUILTIN_PRELU };
        check_block(&b);
}
END_TEST

START_TEST(test_residual_exact_fused_ranges) {
        /* The ADD's own activation narrowed by the op after it. */
        static const int8_t acts[] = { RT_ACT_NONE, RT_ACT_RELU, RT_ACT_RELU6, RT_ACT_RELU_N1_TO_1 };
        static const int32_t ops[] = { 0, RT_BUILTIN_RELU, RT_BUILTIN_RELU6, RT_BUILTIN_RELU_N1_TO_1 };
        for (size_t i = 0; i < sizeof(acts) / sizeof(acts[0]); i++)
                for (size_t j = 0; j < sizeof(ops) / sizeof(ops[0]); j++) {
                        block_t b = { .h = 3, .w = 4, .c = 19, .pre = 0, .post = 0, .padded = false,
                                      .pad_first = (i + j) % 2 == 0, .add_act = acts[i], .act = ops[j] };
                        check_block(&b);
                }
}
END_TEST

START_TEST(test_residual_exact_many_tiles) {
        /* Rows over several of the pool's tiles, padded and not. */
        block_t b = { .h = 48, .w = 40, .c = 40, .pre = 0, .post = 9, .padded = true, .pad_first = false,
                      .add_act = RT_ACT_NONE, .act = RT_BUILTIN_RELU };
        check_block(&b);
        b.padded = false;
        b.act = RT_BUILTIN_PRELU;
        check_block(&b);
        b.act = 0;
        b.c = 3;
        check_block(&b);
}
END_TEST

/* ---- the shared models ---- */

/* Each model, fused and unfused, at 1 and 2 threads: the same bytes. */
START_TEST(test_residual_shared_models) {
        static const char *names[] = { "blazeface_front_float", "mp_face_detection_short_range",
                                       "facemesh_landmark_float", "mp_hand_landmark_full" };
        const char *shared = getenv("ACCELD_SHARED_DIR");
        char path[1024];
        for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
                snprintf(path, sizeof(path), "%s/models/%s.tflite", shared, names[k]);
                size_t size = 0;
                FILE *f = fopen(path, "rb");
                ck_assert_ptr_nonnull(f);
                fseek(f, 0, SEEK_END);
                size = (size_t) ftell(f);
                rewind(f);
                _cleanup_free_ uint8_t *buf = malloc(size);
                ck_assert_uint_eq(fread(buf, 1, size, f), size);
                fclose(f);
                char err[512] = "";
                rt_model_t *m = NULL;
                ck_assert_msg(rt_model_load_buffer(buf, size, true, &m, err, sizeof(err)) == 0, "%s", err);
                rt_interp_t *it = NULL;
                rt_interp_options_t *o = rt_interp_options_new();
                ck_assert_int_eq(rt_interp_create(m, o, &it, err, sizeof(err)), 0);
                rt_interp_options_free(o);
                ck_assert_int_eq(rt_interp_allocate_tensors(it), 0);
                int32_t n_in = rt_interp_input_count(it);
                float *ins[4] = { NULL };
                ck_assert_int_le(n_in, 4);
                for (int32_t i = 0; i < n_in; i++) {
                        const rt_tensor_t *t = rt_interp_input_tensor(it, i);
                        ins[i] = malloc(t->bytes);
                        dt_fill(t, ins[i], (uint32_t) i + 7);
                }
                rt_interp_free(it);
                rt_model_free(m);
                for (int threads = 1; threads <= 2; threads++) {
                        char p1[64], p2[64];
                        size_t b1 = 0, b2 = 0;
                        float *fused = run_inputs(buf, size, threads, false, ins, &b1, p1, sizeof(p1));
                        float *unfused = run_inputs(buf, size, threads, true, ins, &b2, p2, sizeof(p2));
                        ck_assert_uint_eq(b1, b2);
                        ck_assert_msg(memcmp(fused, unfused, b1) == 0, "%s differs at %d threads", names[k],
                                      threads);
                        free(fused);
                        free(unfused);
                }
                for (int32_t i = 0; i < n_in; i++)
                        free(ins[i]);
        }
}
END_TEST

static void add_unit(TCase *tc) {
        tcase_add_test(tc, test_residual_span_takes_pad_add_and_activation);
        tcase_add_test(tc, test_residual_span_keeps_tensors_read_elsewhere);
        tcase_add_test(tc, test_residual_span_refuses_other_adds);
        tcase_add_test(tc, test_residual_exact_blazeface_block);
        tcase_add_test(tc, test_residual_exact_over_its_input);
        tcase_add_test(tc, test_residual_exact_with_conv);
        tcase_add_test(tc, test_residual_span_takes_the_conv_before);
        tcase_add_test(tc, test_residual_exact_pad_both_sides_prelu);
        tcase_add_test(tc, test_residual_exact_fused_ranges);
        tcase_add_test(tc, test_residual_exact_many_tiles);
}

static void add_models(TCase *tc) {
        tcase_add_test(tc, test_residual_shared_models);
}

int main(int argc, char **argv) {
        return dt_xnnpack_main(argc, argv, "xnnpack-residual", add_unit, add_models);
}
