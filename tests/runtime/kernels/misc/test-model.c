/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The misc family through the whole runtime: one-op models written with
 * tflite-builder, so the parse hooks (options field ids), the builtin
 * resolver's registrations and dynamic outputs under the executor are
 * exercised too.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "kernels.h"
#include "misc-internal.h"
#include "model.h"
#include "resolver.h"
#include "rt.h"
#include "tflite-builder.h"

#define I32(...) ((const int32_t[]) { __VA_ARGS__ })
#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

typedef struct one_op {
        rt_model_t *model;
        rt_interp_t *it;
} one_op_t;

/* Finish the model, load it, create an interpreter, copy `input` into input
 * 0 (if given), allocate and invoke. Fails the test on any error. */
static void one_op_run(one_op_t *o, tfb_t *b, const void *input, size_t input_size) {
        char err[256] = "";
        size_t size;
        uint8_t *bytes = tfb_finish(b, &size);
        ck_assert_ptr_nonnull(bytes);
        ck_assert_msg(rt_model_load_buffer(bytes, size, true, &o->model, err, sizeof(err)) == 0, "load: %s", err);
        free(bytes);
        tfb_free(b);
        ck_assert_msg(rt_interp_create(o->model, NULL, &o->it, err, sizeof(err)) == 0, "create: %s", err);
        ck_assert_msg(rt_interp_allocate_tensors(o->it) == 0, "allocate: %s", rt_interp_last_error(o->it));
        if (input)
                ck_assert_int_eq(rt_interp_copy_in(o->it, 0, input, input_size), 0);
        ck_assert_msg(rt_interp_invoke(o->it) == 0, "invoke: %s", rt_interp_last_error(o->it));
}

static void one_op_done(one_op_t *o) {
        rt_interp_free(o->it);
        rt_model_free(o->model);
}

/* Output i after invoke, with its shape checked. */
static const rt_tensor_t *out_tensor(const one_op_t *o, int32_t i, int32_t rank, const int32_t *dims) {
        const rt_tensor_t *t = rt_interp_output_tensor(o->it, i);
        ck_assert_ptr_nonnull(t);
        ck_assert_int_eq(t->rank, rank);
        for (int32_t d = 0; d < rank; d++)
                ck_assert_int_eq(t->dims[d], dims[d]);
        ck_assert_ptr_nonnull(t->data);
        return t;
}

static void add_op(tfb_t *b, int32_t code, uint8_t options_type, const tfb_option_t *opts, size_t n_opts,
                   const int32_t *ins, int32_t n_in, const int32_t *outs, int32_t n_out) {
        ck_assert_int_ge(tfb_op_add(b, &(tfb_op_t) {
                                 .opcode = tfb_opcode_builtin(b, code, 1),
                                 .inputs = ins,
                                 .n_inputs = n_in,
                                 .outputs = outs,
                                 .n_outputs = n_out,
                                 .options_type = options_type,
                                 .options = opts,
                                 .n_options = n_opts,
                         }),
                         0);
}

START_TEST(test_model_one_hot_axis_option) {
        tfb_t *b = tfb_new();
        int32_t idx = tfb_tensor(b, RT_TYPE_INT32, "idx", 1, I32(2));
        int32_t depth = tfb_tensor_const(b, RT_TYPE_INT32, "depth", 0, NULL, I32(3), 4);
        int32_t on = tfb_tensor_const(b, RT_TYPE_FLOAT32, "on", 0, NULL, (const float[]) { 2.0f }, 4);
        int32_t off = tfb_tensor_const(b, RT_TYPE_FLOAT32, "off", 0, NULL, (const float[]) { -1.0f }, 4);
        int32_t out = tfb_tensor(b, RT_TYPE_FLOAT32, "out", 2, I32(3, 2));
        tfb_option_t opts[] = { TFB_OPT_I32(0, 0) };
        add_op(b, RT_BUILTIN_ONE_HOT, RT_OPTIONS_ONE_HOT, opts, 1, I32(idx, depth, on, off), 4, I32(out), 1);
        tfb_io(b, I32(idx), 1, I32(out), 1);
        one_op_t o;
        int32_t x[2] = { 1, 0 };
        one_op_run(&o, b, x, sizeof(x));
        const rt_tensor_t *t = out_tensor(&o, 0, 2, I32(3, 2));
        const float want[] = { -1, 2, 2, -1, -1, -1 };
        ck_assert_mem_eq(t->data, want, sizeof(want));
        one_op_done(&o);
}
END_TEST

START_TEST(test_model_unique_int64_idx_option_dynamic) {
        tfb_t *b = tfb_new();
        int32_t in = tfb_tensor(b, RT_TYPE_INT32, "in", 1, I32(5));
        int32_t out = tfb_tensor(b, RT_TYPE_INT32, "out", 1, I32(5));
        int32_t idx = tfb_tensor(b, RT_TYPE_INT64, "idx", 1, I32(5));
        tfb_option_t opts[] = { TFB_OPT_I8(0, RT_TYPE_INT64) };
        add_op(b, RT_BUILTIN_UNIQUE, RT_OPTIONS_UNIQUE, opts, 1, I32(in), 1, I32(out, idx), 2);
        tfb_io(b, I32(in), 1, I32(out, idx), 2);
        one_op_t o;
        int32_t x[5] = { 3, 3, -2, 3, 9 };
        one_op_run(&o, b, x, sizeof(x));
        const rt_tensor_t *u = out_tensor(&o, 0, 1, I32(3));
        const int32_t want_u[] = { 3, -2, 9 };
        ck_assert_mem_eq(u->data, want_u, sizeof(want_u));
        const rt_tensor_t *ix = out_tensor(&o, 1, 1, I32(5));
        const int64_t want_i[] = { 0, 0, 1, 0, 2 };
        ck_assert_mem_eq(ix->data, want_i, sizeof(want_i));
        one_op_done(&o);
}
END_TEST

START_TEST(test_model_bucketize_boundaries_option) {
        tfb_t *b = tfb_new();
        int32_t in = tfb_tensor(b, RT_TYPE_FLOAT32, "in", 1, I32(4));
        int32_t out = tfb_tensor(b, RT_TYPE_INT32, "out", 1, I32(4));
        const float bounds[] = { -1.0f, 0.5f, 2.0f };
        tfb_option_t opts[] = { TFB_OPT_VEC_F32(0, bounds, 3) };
        add_op(b, RT_BUILTIN_BUCKETIZE, RT_OPTIONS_BUCKETIZE, opts, 1, I32(in), 1, I32(out), 1);
        tfb_io(b, I32(in), 1, I32(out), 1);
        one_op_t o;
        float x[4] = { -3.0f, 0.5f, 1.0f, 7.0f };
        int32_t y[4];
        one_op_run(&o, b, x, sizeof(x));
        ck_assert_int_eq(rt_interp_copy_out(o.it, 0, y, sizeof(y)), 0);
        ck_assert(y[0] == 0 && y[1] == 2 && y[2] == 2 && y[3] == 3);
        one_op_done(&o);
}
END_TEST

START_TEST(test_model_reverse_sequence_dims_options) {
        tfb_t *b = tfb_new();
        int32_t in = tfb_tensor(b, RT_TYPE_FLOAT32, "in", 2, I32(3, 2));
        int32_t len = tfb_tensor_const(b, RT_TYPE_INT32, "len", 1, I32(2), I32(2, 3), 8);
        int32_t out = tfb_tensor(b, RT_TYPE_FLOAT32, "out", 2, I32(3, 2));
        tfb_option_t opts[] = { TFB_OPT_I32(0, 0), TFB_OPT_I32(1, 1) };
        add_op(b, RT_BUILTIN_REVERSE_SEQUENCE, RT_OPTIONS_REVERSE_SEQUENCE, opts, 2, I32(in, len), 2, I32(out), 1);
        tfb_io(b, I32(in), 1, I32(out), 1);
        one_op_t o;
        float x[6] = { 1, 2, 3, 4, 5, 6 }, y[6];
        one_op_run(&o, b, x, sizeof(x));
        ck_assert_int_eq(rt_interp_copy_out(o.it, 0, y, sizeof(y)), 0);
        const float want[] = { 3, 6, 1, 4, 5, 2 };
        ck_assert_mem_eq(y, want, sizeof(want));
        one_op_done(&o);
}
END_TEST

START_TEST(test_model_fake_quant_options) {
        tfb_t *b = tfb_new();
        int32_t in = tfb_tensor(b, RT_TYPE_FLOAT32, "in", 1, I32(3));
        int32_t out = tfb_tensor(b, RT_TYPE_FLOAT32, "out", 1, I32(3));
        /* 3-bit over [-1, 0.75]: 7 steps of 0.25, zero point 4; narrow_range
         * (field 3) written as false. */
        tfb_option_t opts[] = { TFB_OPT_F32(0, -1.0), TFB_OPT_F32(1, 0.75), TFB_OPT_I32(2, 3), TFB_OPT_BOOL(3, false) };
        add_op(b, RT_BUILTIN_FAKE_QUANT, RT_OPTIONS_FAKE_QUANT, opts, 4, I32(in), 1, I32(out), 1);
        tfb_io(b, I32(in), 1, I32(out), 1);
        one_op_t o;
        float x[3] = { -9.0f, 0.3f, 0.0f }, y[3];
        one_op_run(&o, b, x, sizeof(x));
        ck_assert_int_eq(rt_interp_copy_out(o.it, 0, y, sizeof(y)), 0);
        ck_assert_float_eq_tol(y[0], -1.0f, 1e-6f);
        ck_assert_float_eq_tol(y[1], 0.25f, 1e-6f);  /* 1.3 / 0.25 = 5.2 -> 5 steps from -1 */
        ck_assert_float_eq_tol(y[2], 0.0f, 1e-6f);
        one_op_done(&o);
}
END_TEST

START_TEST(test_model_nms_v4_constant_max) {
        tfb_t *b = tfb_new();
        int32_t boxes = tfb_tensor(b, RT_TYPE_FLOAT32, "boxes", 2, I32(3, 4));
        const float sc[] = { 0.6f, 0.9f, 0.8f };
        int32_t scores = tfb_tensor_const(b, RT_TYPE_FLOAT32, "scores", 1, I32(3), sc, sizeof(sc));
        int32_t max_out = tfb_tensor_const(b, RT_TYPE_INT32, "max", 0, NULL, I32(3), 4);
        int32_t iou = tfb_tensor_const(b, RT_TYPE_FLOAT32, "iou", 0, NULL, (const float[]) { 0.5f }, 4);
        int32_t thr = tfb_tensor_const(b, RT_TYPE_FLOAT32, "thr", 0, NULL, (const float[]) { 0.0f }, 4);
        int32_t sel = tfb_tensor(b, RT_TYPE_INT32, "sel", 1, I32(3));
        int32_t valid = tfb_tensor(b, RT_TYPE_INT32, "valid", 0, NULL);
        add_op(b, RT_BUILTIN_NON_MAX_SUPPRESSION_V4, RT_OPTIONS_NON_MAX_SUPPRESSION_V4, NULL, 0,
               I32(boxes, scores, max_out, iou, thr), 5, I32(sel, valid), 2);
        tfb_io(b, I32(boxes), 1, I32(sel, valid), 2);
        one_op_t o;
        /* Box 2 overlaps box 1 (IoU 0.9 / 1.1); box 0 is apart. */
        const float x[12] = { 5, 5, 6, 6, 0, 0, 1, 1, 0, 0.1f, 1, 1.1f };
        one_op_run(&o, b, x, sizeof(x));
        int32_t s[3], v;
        ck_assert_int_eq(rt_interp_copy_out(o.it, 0, s, sizeof(s)), 0);
        ck_assert_int_eq(rt_interp_copy_out(o.it, 1, &v, sizeof(v)), 0);
        ck_assert(s[0] == 1 && s[1] == 0 && s[2] == 0);
        ck_assert_int_eq(v, 2);
        one_op_done(&o);
}
END_TEST

/* WHERE's dynamic output feeds RANK and UNSORTED_SEGMENT_MAX's node code
 * picks the reduction: the executor defers the consumer's prepare. */
START_TEST(test_model_where_dynamic_chain) {
        tfb_t *b = tfb_new();
        int32_t in = tfb_tensor(b, RT_TYPE_FLOAT32, "in", 2, I32(2, 2));
        int32_t coords = tfb_tensor(b, RT_TYPE_INT64, "coords", 2, I32(1, 2));
        int32_t rank = tfb_tensor(b, RT_TYPE_INT32, "rank", 0, NULL);
        add_op(b, RT_BUILTIN_WHERE, RT_OPTIONS_WHERE, NULL, 0, I32(in), 1, I32(coords), 1);
        add_op(b, RT_BUILTIN_RANK, RT_OPTIONS_RANK, NULL, 0, I32(coords), 1, I32(rank), 1);
        tfb_io(b, I32(in), 1, I32(coords, rank), 2);
        one_op_t o;
        float x[4] = { 0, 1, 1, 0 };
        one_op_run(&o, b, x, sizeof(x));
        const rt_tensor_t *c = out_tensor(&o, 0, 2, I32(2, 2));
        const int64_t want[] = { 0, 1, 1, 0 };
        ck_assert_mem_eq(c->data, want, sizeof(want));
        int32_t r;
        ck_assert_int_eq(rt_interp_copy_out(o.it, 1, &r, sizeof(r)), 0);
        ck_assert_int_eq(r, 2);
        one_op_done(&o);
}
END_TEST

START_TEST(test_model_unsorted_segment_max) {
        tfb_t *b = tfb_new();
        int32_t data = tfb_tensor(b, RT_TYPE_FLOAT32, "data", 1, I32(4));
        int32_t ids = tfb_tensor_const(b, RT_TYPE_INT32, "ids", 1, I32(4), I32(1, 0, 1, 0), 16);
        int32_t num = tfb_tensor_const(b, RT_TYPE_INT32, "num", 0, NULL, I32(2), 4);
        int32_t out = tfb_tensor(b, RT_TYPE_FLOAT32, "out", 1, I32(2));
        add_op(b, RT_BUILTIN_UNSORTED_SEGMENT_MAX, RT_OPTIONS_UNSORTED_SEGMENT_MAX, NULL, 0, I32(data, ids, num), 3,
               I32(out), 1);
        tfb_io(b, I32(data), 1, I32(out), 1);
        one_op_t o;
        float x[4] = { 1, -4, 3, -2 }, y[2];
        one_op_run(&o, b, x, sizeof(x));
        ck_assert_int_eq(rt_interp_copy_out(o.it, 0, y, sizeof(y)), 0);
        ck_assert(y[0] == -2 && y[1] == 3);
        one_op_done(&o);
}
END_TEST

/* seed (field 0) and seed2 (field 1): the same seeds give the same
 * numbers in two interpreters, and the first value is Philox's first word
 * for key = seed, counter = {0, 0, seed2}. */
START_TEST(test_model_random_uniform_seed_options) {
        float first[2][4];
        for (int k = 0; k < 2; k++) {
                tfb_t *b = tfb_new();
                int32_t shape = tfb_tensor_const(b, RT_TYPE_INT32, "shape", 1, I32(1), I32(4), 4);
                int32_t out = tfb_tensor(b, RT_TYPE_FLOAT32, "out", 1, I32(4));
                tfb_option_t opts[] = { TFB_OPT_I64(0, 42), TFB_OPT_I64(1, 7) };
                add_op(b, RT_BUILTIN_RANDOM_UNIFORM, RT_OPTIONS_RANDOM, opts, 2, I32(shape), 1, I32(out), 1);
                tfb_io(b, NULL, 0, I32(out), 1);
                one_op_t o;
                one_op_run(&o, b, NULL, 0);
                ck_assert_int_eq(rt_interp_copy_out(o.it, 0, first[k], sizeof(first[k])), 0);
                one_op_done(&o);
        }
        ck_assert_mem_eq(first[0], first[1], sizeof(first[0]));
        const uint32_t ctr[4] = { 0, 0, 7, 0 }, key[2] = { 42, 0 };
        uint32_t w[4];
        rt_misc__philox_block(ctr, key, w);
        for (int i = 0; i < 4; i++)
                ck_assert_float_eq(first[0][i], rt_misc_u32_to_float(w[i]));
}
END_TEST

START_TEST(test_model_embedding_lookup_sparse_combiner_option) {
        tfb_t *b = tfb_new();
        int32_t ids = tfb_tensor(b, RT_TYPE_INT32, "ids", 1, I32(2));
        int32_t idx = tfb_tensor_const(b, RT_TYPE_INT32, "idx", 2, I32(2, 2), I32(0, 0, 0, 1), 16);
        int32_t shape = tfb_tensor_const(b, RT_TYPE_INT32, "shape", 1, I32(2), I32(1, 2), 8);
        const float wv[] = { 1.0f, 3.0f }, vv[] = { 2, 4, 6, 8 };
        int32_t w = tfb_tensor_const(b, RT_TYPE_FLOAT32, "w", 1, I32(2), wv, sizeof(wv));
        int32_t v = tfb_tensor_const(b, RT_TYPE_FLOAT32, "v", 2, I32(2, 2), vv, sizeof(vv));
        int32_t out = tfb_tensor(b, RT_TYPE_FLOAT32, "out", 2, I32(1, 2));
        tfb_option_t opts[] = { TFB_OPT_I8(0, RT_COMBINER_MEAN) };
        add_op(b, RT_BUILTIN_EMBEDDING_LOOKUP_SPARSE, RT_OPTIONS_EMBEDDING_LOOKUP_SPARSE, opts, 1,
               I32(ids, idx, shape, w, v), 5, I32(out), 1);
        tfb_io(b, I32(ids), 1, I32(out), 1);
        one_op_t o;
        int32_t x[2] = { 1, 0 };
        one_op_run(&o, b, x, sizeof(x));
        /* (row1 * 1 + row0 * 3) / 4 = ({6, 8} + {6, 12}) / 4 */
        const rt_tensor_t *t = out_tensor(&o, 0, 2, I32(1, 2));
        const float want[] = { 3.0f, 5.0f };
        ck_assert_mem_eq(t->data, want, sizeof(want));
        one_op_done(&o);
}
END_TEST

/* Every op of the family resolves to its registration, both from the
 * family's own table and from the builtin resolver. */
START_TEST(test_model_register_all_ops) {
        const struct {
                int32_t op;
                const rt_registration_t *reg;
        } want[] = {
                { RT_OP_ONE_HOT, &rt_kernel_one_hot },
                { RT_OP_WHERE, &rt_kernel_where },
                { RT_OP_UNIQUE, &rt_kernel_unique },
                { RT_OP_SCATTER_ND, &rt_kernel_scatter_nd },
                { RT_OP_SPARSE_TO_DENSE, &rt_kernel_sparse_to_dense },
                { RT_OP_SEGMENT_SUM, &rt_kernel_segment_sum },
                { RT_OP_UNSORTED_SEGMENT_SUM, &rt_kernel_unsorted_segment_sum },
                { RT_OP_UNSORTED_SEGMENT_PROD, &rt_kernel_unsorted_segment_prod },
                { RT_OP_UNSORTED_SEGMENT_MAX, &rt_kernel_unsorted_segment_max },
                { RT_OP_UNSORTED_SEGMENT_MIN, &rt_kernel_unsorted_segment_min },
                { RT_OP_MATRIX_DIAG, &rt_kernel_matrix_diag },
                { RT_OP_MATRIX_SET_DIAG, &rt_kernel_matrix_set_diag },
                { RT_OP_NON_MAX_SUPPRESSION_V4, &rt_kernel_non_max_suppression_v4 },
                { RT_OP_NON_MAX_SUPPRESSION_V5, &rt_kernel_non_max_suppression_v5 },
                { RT_OP_BUCKETIZE, &rt_kernel_bucketize },
                { RT_OP_ATAN2, &rt_kernel_atan2 },
                { RT_OP_DYNAMIC_UPDATE_SLICE, &rt_kernel_dynamic_update_slice },
                { RT_OP_BROADCAST_ARGS, &rt_kernel_broadcast_args },
                { RT_OP_RANK, &rt_kernel_rank },
                { RT_OP_TOPK_V2, &rt_kernel_topk_v2 },
                { RT_OP_REVERSE_SEQUENCE, &rt_kernel_reverse_sequence },
                { RT_OP_FAKE_QUANT, &rt_kernel_fake_quant },
                { RT_OP_HASHTABLE_LOOKUP, &rt_kernel_hashtable_lookup },
                { RT_OP_BITCAST, &rt_kernel_bitcast },
                { RT_OP_BITWISE_XOR, &rt_kernel_bitwise_xor },
                { RT_OP_RIGHT_SHIFT, &rt_kernel_right_shift },
                { RT_OP_SKIP_GRAM, &rt_kernel_skip_gram },
                { RT_OP_EMBEDDING_LOOKUP_SPARSE, &rt_kernel_embedding_lookup_sparse },
                { RT_OP_RANDOM_UNIFORM, &rt_kernel_random_uniform },
                { RT_OP_RANDOM_STANDARD_NORMAL, &rt_kernel_random_standard_normal },
                { RT_OP_MULTINOMIAL, &rt_kernel_multinomial },
        };
        rt_resolver_t *r = rt_resolver_new();
        ck_assert_ptr_nonnull(r);
        ck_assert_int_eq(rt_kernels_register_misc(r), 0);
        ck_assert_uint_eq(rt_resolver_size(r), ARRAY_LEN(want));
        const rt_resolver_t *builtins = rt_resolver_builtins();
        ck_assert_ptr_nonnull(builtins);
        for (size_t i = 0; i < ARRAY_LEN(want); i++) {
                ck_assert_ptr_eq(rt_resolver_find(r, want[i].op, NULL, 1), want[i].reg);
                ck_assert_ptr_eq(rt_resolver_find(builtins, want[i].op, NULL, 1), want[i].reg);
                ck_assert_int_eq(want[i].reg->op, want[i].op);
                ck_assert_str_eq(want[i].reg->name, rt_op_name(want[i].op));
                ck_assert_ptr_nonnull(want[i].reg->prepare);
                ck_assert_ptr_nonnull(want[i].reg->invoke);
                ck_assert(want[i].reg->parse == NULL || want[i].reg->params_size > 0);
        }
        rt_resolver_free(r);
}
END_TEST

int main(void) {
        Suite *s = suite_create("misc-model");
        TCase *tc = tcase_create("misc-model");
        tcase_add_test(tc, test_model_one_hot_axis_option);
        tcase_add_test(tc, test_model_unique_int64_idx_option_dynamic);
        tcase_add_test(tc, test_model_bucketize_boundaries_option);
        tcase_add_test(tc, test_model_reverse_sequence_dims_options);
        tcase_add_test(tc, test_model_fake_quant_options);
        tcase_add_test(tc, test_model_nms_v4_constant_max);
        tcase_add_test(tc, test_model_where_dynamic_chain);
        tcase_add_test(tc, test_model_unsorted_segment_max);
        tcase_add_test(tc, test_model_random_uniform_seed_options);
        tcase_add_test(tc, test_model_embedding_lookup_sparse_combiner_option);
        tcase_add_test(tc, test_model_register_all_ops);
        suite_add_tcase(s, tc);
        SRunner *sr = srunner_create(s);
        srunner_run_all(sr, CK_NORMAL);
        int failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed == 0 ? 0 : 1;
}
