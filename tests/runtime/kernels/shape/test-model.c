/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The shape family through the whole runtime: one-op models written with
 * tflite-builder, so the parse hooks (options field ids) and the
 * registrations in the builtin resolver are exercised too.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "rt.h"
#include "tflite-builder.h"

#define I32(...) ((const int32_t[]){ __VA_ARGS__ })

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

static void assert_out_dims(const one_op_t *o, int32_t i, int32_t rank, const int32_t *dims) {
        const rt_tensor_t *t = rt_interp_output_tensor(o->it, i);
        ck_assert_int_eq(t->rank, rank);
        for (int32_t d = 0; d < rank; d++)
                ck_assert_int_eq(t->dims[d], dims[d]);
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

START_TEST(test_model_reshape_new_shape_option) {
        tfb_t *b = tfb_new();
        int32_t in = tfb_tensor(b, RT_TYPE_FLOAT32, "in", 2, I32(2, 3));
        int32_t out = tfb_tensor(b, RT_TYPE_FLOAT32, "out", 2, I32(3, 2));
        tfb_option_t opts[] = { TFB_OPT_VEC_I32(0, I32(-1, 2), 2) };
        add_op(b, RT_BUILTIN_RESHAPE, RT_OPTIONS_RESHAPE, opts, 1, I32(in), 1, I32(out), 1);
        tfb_io(b, I32(in), 1, I32(out), 1);
        one_op_t o;
        float x[6] = { 1, 2, 3, 4, 5, 6 }, y[6];
        one_op_run(&o, b, x, sizeof(x));
        assert_out_dims(&o, 0, 2, I32(3, 2));
        ck_assert_int_eq(rt_interp_copy_out(o.it, 0, y, sizeof(y)), 0);
        ck_assert_mem_eq(x, y, sizeof(x));
        one_op_done(&o);
}
END_TEST

START_TEST(test_model_strided_slice_masks) {
        tfb_t *b = tfb_new();
        int32_t in = tfb_tensor(b, RT_TYPE_FLOAT32, "in", 2, I32(2, 3));
        int32_t bg = tfb_tensor_const(b, RT_TYPE_INT32, "b", 1, I32(2), I32(1, 5), 8);
        int32_t en = tfb_tensor_const(b, RT_TYPE_INT32, "e", 1, I32(2), I32(2, 0), 8);
        int32_t st = tfb_tensor_const(b, RT_TYPE_INT32, "s", 1, I32(2), I32(1, -1), 8);
        int32_t out = tfb_tensor(b, RT_TYPE_FLOAT32, "out", 1, I32(3));
        /* [1, ::-1]: begin_mask bit 1, end_mask bit 1, shrink bit 0 */
        tfb_option_t opts[] = { TFB_OPT_I32(0, 2), TFB_OPT_I32(1, 2), TFB_OPT_I32(4, 1) };
        add_op(b, RT_BUILTIN_STRIDED_SLICE, RT_OPTIONS_STRIDED_SLICE, opts, 3, I32(in, bg, en, st), 4, I32(out), 1);
        tfb_io(b, I32(in), 1, I32(out), 1);
        one_op_t o;
        float x[6] = { 1, 2, 3, 4, 5, 6 }, y[3];
        one_op_run(&o, b, x, sizeof(x));
        assert_out_dims(&o, 0, 1, I32(3));
        ck_assert_int_eq(rt_interp_copy_out(o.it, 0, y, sizeof(y)), 0);
        ck_assert(y[0] == 6 && y[1] == 5 && y[2] == 4);
        one_op_done(&o);
}
END_TEST

START_TEST(test_model_mirror_pad_symmetric_option) {
        tfb_t *b = tfb_new();
        int32_t in = tfb_tensor(b, RT_TYPE_FLOAT32, "in", 1, I32(3));
        int32_t pads = tfb_tensor_const(b, RT_TYPE_INT32, "p", 2, I32(1, 2), I32(1, 1), 8);
        int32_t out = tfb_tensor(b, RT_TYPE_FLOAT32, "out", 1, I32(5));
        tfb_option_t opts[] = { TFB_OPT_I8(0, 1) };
        add_op(b, RT_BUILTIN_MIRROR_PAD, RT_OPTIONS_MIRROR_PAD, opts, 1, I32(in, pads), 2, I32(out), 1);
        tfb_io(b, I32(in), 1, I32(out), 1);
        one_op_t o;
        float x[3] = { 1, 2, 3 }, y[5];
        one_op_run(&o, b, x, sizeof(x));
        ck_assert_int_eq(rt_interp_copy_out(o.it, 0, y, sizeof(y)), 0);
        ck_assert(y[0] == 1 && y[1] == 1 && y[2] == 2 && y[3] == 3 && y[4] == 3);
        one_op_done(&o);
}
END_TEST

START_TEST(test_model_resize_bilinear_align_corners_option) {
        tfb_t *b = tfb_new();
        int32_t in = tfb_tensor(b, RT_TYPE_FLOAT32, "in", 4, I32(1, 1, 2, 1));
        int32_t size = tfb_tensor_const(b, RT_TYPE_INT32, "size", 1, I32(2), I32(1, 3), 8);
        int32_t out = tfb_tensor(b, RT_TYPE_FLOAT32, "out", 4, I32(1, 1, 3, 1));
        tfb_option_t opts[] = { TFB_OPT_BOOL(2, true) };
        add_op(b, RT_BUILTIN_RESIZE_BILINEAR, RT_OPTIONS_RESIZE_BILINEAR, opts, 1, I32(in, size), 2, I32(out), 1);
        tfb_io(b, I32(in), 1, I32(out), 1);
        one_op_t o;
        float x[2] = { 0, 4 }, y[3];
        one_op_run(&o, b, x, sizeof(x));
        ck_assert_int_eq(rt_interp_copy_out(o.it, 0, y, sizeof(y)), 0);
        ck_assert(y[0] == 0 && y[1] == 2 && y[2] == 4);
        one_op_done(&o);
}
END_TEST

START_TEST(test_model_resize_nearest_half_pixel_option) {
        tfb_t *b = tfb_new();
        int32_t in = tfb_tensor(b, RT_TYPE_FLOAT32, "in", 4, I32(1, 1, 4, 1));
        int32_t size = tfb_tensor_const(b, RT_TYPE_INT32, "size", 1, I32(2), I32(1, 3), 8);
        int32_t out = tfb_tensor(b, RT_TYPE_FLOAT32, "out", 4, I32(1, 1, 3, 1));
        tfb_option_t opts[] = { TFB_OPT_BOOL(1, true) };
        add_op(b, RT_BUILTIN_RESIZE_NEAREST_NEIGHBOR, RT_OPTIONS_RESIZE_NEAREST_NEIGHBOR, opts, 1, I32(in, size), 2,
               I32(out), 1);
        tfb_io(b, I32(in), 1, I32(out), 1);
        one_op_t o;
        float x[4] = { 10, 11, 12, 13 }, y[3];
        one_op_run(&o, b, x, sizeof(x));
        ck_assert_int_eq(rt_interp_copy_out(o.it, 0, y, sizeof(y)), 0);
        ck_assert(y[0] == 10 && y[1] == 12 && y[2] == 13);
        one_op_done(&o);
}
END_TEST

START_TEST(test_model_gather_axis_batch_dims_options) {
        tfb_t *b = tfb_new();
        int32_t in = tfb_tensor(b, RT_TYPE_FLOAT32, "in", 2, I32(2, 3));
        int32_t idx = tfb_tensor_const(b, RT_TYPE_INT32, "i", 2, I32(2, 1), I32(2, 0), 8);
        int32_t out = tfb_tensor(b, RT_TYPE_FLOAT32, "out", 2, I32(2, 1));
        tfb_option_t opts[] = { TFB_OPT_I32(0, 1), TFB_OPT_I32(1, 1) };
        add_op(b, RT_BUILTIN_GATHER, RT_OPTIONS_GATHER, opts, 2, I32(in, idx), 2, I32(out), 1);
        tfb_io(b, I32(in), 1, I32(out), 1);
        one_op_t o;
        float x[6] = { 1, 2, 3, 4, 5, 6 }, y[2];
        one_op_run(&o, b, x, sizeof(x));
        assert_out_dims(&o, 0, 2, I32(2, 1));
        ck_assert_int_eq(rt_interp_copy_out(o.it, 0, y, sizeof(y)), 0);
        ck_assert(y[0] == 3 && y[1] == 4);
        one_op_done(&o);
}
END_TEST

START_TEST(test_model_concat_axis_activation_options) {
        tfb_t *b = tfb_new();
        int32_t in = tfb_tensor(b, RT_TYPE_FLOAT32, "in", 2, I32(1, 2));
        int32_t c = tfb_tensor_const(b, RT_TYPE_FLOAT32, "c", 2, I32(1, 1), (const float[]){ -5 }, 4);
        int32_t out = tfb_tensor(b, RT_TYPE_FLOAT32, "out", 2, I32(1, 3));
        tfb_option_t opts[] = { TFB_OPT_I32(0, -1), TFB_OPT_I8(1, RT_ACT_RELU) };
        add_op(b, RT_BUILTIN_CONCATENATION, RT_OPTIONS_CONCATENATION, opts, 2, I32(in, c), 2, I32(out), 1);
        tfb_io(b, I32(in), 1, I32(out), 1);
        one_op_t o;
        float x[2] = { -1, 2 }, y[3];
        one_op_run(&o, b, x, sizeof(x));
        ck_assert_int_eq(rt_interp_copy_out(o.it, 0, y, sizeof(y)), 0);
        ck_assert(y[0] == 0 && y[1] == 2 && y[2] == 0);
        one_op_done(&o);
}
END_TEST

START_TEST(test_model_squeeze_dims_option) {
        tfb_t *b = tfb_new();
        int32_t in = tfb_tensor(b, RT_TYPE_FLOAT32, "in", 3, I32(1, 2, 1));
        int32_t out = tfb_tensor(b, RT_TYPE_FLOAT32, "out", 2, I32(2, 1));
        tfb_option_t opts[] = { TFB_OPT_VEC_I32(0, I32(0), 1) };
        add_op(b, RT_BUILTIN_SQUEEZE, RT_OPTIONS_SQUEEZE, opts, 1, I32(in), 1, I32(out), 1);
        tfb_io(b, I32(in), 1, I32(out), 1);
        one_op_t o;
        float x[2] = { 1, 2 };
        one_op_run(&o, b, x, sizeof(x));
        assert_out_dims(&o, 0, 2, I32(2, 1));
        one_op_done(&o);
}
END_TEST

START_TEST(test_model_space_to_depth_block_option) {
        tfb_t *b = tfb_new();
        int32_t in = tfb_tensor(b, RT_TYPE_INT32, "in", 4, I32(1, 2, 2, 1));
        int32_t out = tfb_tensor(b, RT_TYPE_INT32, "out", 4, I32(1, 1, 1, 4));
        tfb_option_t opts[] = { TFB_OPT_I32(0, 2) };
        add_op(b, RT_BUILTIN_SPACE_TO_DEPTH, RT_OPTIONS_SPACE_TO_DEPTH, opts, 1, I32(in), 1, I32(out), 1);
        tfb_io(b, I32(in), 1, I32(out), 1);
        one_op_t o;
        int32_t x[4] = { 1, 2, 3, 4 }, y[4];
        one_op_run(&o, b, x, sizeof(x));
        assert_out_dims(&o, 0, 4, I32(1, 1, 1, 4));
        ck_assert_int_eq(rt_interp_copy_out(o.it, 0, y, sizeof(y)), 0);
        ck_assert_mem_eq(x, y, sizeof(x));
        one_op_done(&o);
}
END_TEST

START_TEST(test_model_pack_unpack_options) {
        tfb_t *b = tfb_new();
        int32_t in = tfb_tensor(b, RT_TYPE_FLOAT32, "in", 2, I32(2, 2));
        int32_t u0 = tfb_tensor(b, RT_TYPE_FLOAT32, "u0", 1, I32(2));
        int32_t u1 = tfb_tensor(b, RT_TYPE_FLOAT32, "u1", 1, I32(2));
        int32_t out = tfb_tensor(b, RT_TYPE_FLOAT32, "out", 2, I32(2, 2));
        /* unpack along axis 1 and pack back along axis 0: a transpose */
        tfb_option_t uo[] = { TFB_OPT_I32(0, 2), TFB_OPT_I32(1, 1) };
        tfb_option_t po[] = { TFB_OPT_I32(0, 2), TFB_OPT_I32(1, 0) };
        add_op(b, RT_BUILTIN_UNPACK, RT_OPTIONS_UNPACK, uo, 2, I32(in), 1, I32(u0, u1), 2);
        add_op(b, RT_BUILTIN_PACK, RT_OPTIONS_PACK, po, 2, I32(u0, u1), 2, I32(out), 1);
        tfb_io(b, I32(in), 1, I32(out), 1);
        one_op_t o;
        float x[4] = { 1, 2, 3, 4 }, y[4];
        one_op_run(&o, b, x, sizeof(x));
        ck_assert_int_eq(rt_interp_copy_out(o.it, 0, y, sizeof(y)), 0);
        ck_assert(y[0] == 1 && y[1] == 3 && y[2] == 2 && y[3] == 4);
        one_op_done(&o);
}
END_TEST

START_TEST(test_model_shape_int64_option) {
        tfb_t *b = tfb_new();
        int32_t in = tfb_tensor(b, RT_TYPE_FLOAT32, "in", 3, I32(4, 1, 2));
        int32_t out = tfb_tensor(b, RT_TYPE_INT64, "out", 1, I32(3));
        tfb_option_t opts[] = { TFB_OPT_I8(0, RT_TYPE_INT64) };
        add_op(b, RT_BUILTIN_SHAPE, RT_OPTIONS_SHAPE, opts, 1, I32(in), 1, I32(out), 1);
        tfb_io(b, I32(in), 1, I32(out), 1);
        one_op_t o;
        one_op_run(&o, b, NULL, 0);
        int64_t y[3];
        ck_assert_int_eq(rt_interp_copy_out(o.it, 0, y, sizeof(y)), 0);
        ck_assert(y[0] == 4 && y[1] == 1 && y[2] == 2);
        one_op_done(&o);
}
END_TEST

START_TEST(test_model_dynamic_shape_chain) {
        /* SHAPE -> STRIDED_SLICE(shrink) -> PACK -> RESHAPE: the run-time
         * shape arithmetic of dilated_conv and style transfer */
        tfb_t *b = tfb_new();
        int32_t in = tfb_tensor(b, RT_TYPE_FLOAT32, "in", 2, I32(2, 3));
        int32_t shp = tfb_tensor(b, RT_TYPE_INT32, "shape", 1, I32(2));
        int32_t bg = tfb_tensor_const(b, RT_TYPE_INT32, "b", 1, I32(1), I32(1), 4);
        int32_t en = tfb_tensor_const(b, RT_TYPE_INT32, "e", 1, I32(1), I32(2), 4);
        int32_t st = tfb_tensor_const(b, RT_TYPE_INT32, "s", 1, I32(1), I32(1), 4);
        int32_t n = tfb_tensor(b, RT_TYPE_INT32, "n", 0, NULL);
        int32_t two = tfb_tensor_const(b, RT_TYPE_INT32, "two", 0, NULL, I32(2), 4);
        int32_t packed = tfb_tensor(b, RT_TYPE_INT32, "packed", 1, I32(2));
        int32_t out = tfb_tensor(b, RT_TYPE_FLOAT32, "out", 0, NULL);
        tfb_option_t so[] = { TFB_OPT_I8(0, RT_TYPE_INT32) };
        tfb_option_t sso[] = { TFB_OPT_I32(4, 1) };
        tfb_option_t po[] = { TFB_OPT_I32(0, 2), TFB_OPT_I32(1, 0) };
        add_op(b, RT_BUILTIN_SHAPE, RT_OPTIONS_SHAPE, so, 1, I32(in), 1, I32(shp), 1);
        add_op(b, RT_BUILTIN_STRIDED_SLICE, RT_OPTIONS_STRIDED_SLICE, sso, 1, I32(shp, bg, en, st), 4, I32(n), 1);
        add_op(b, RT_BUILTIN_PACK, RT_OPTIONS_PACK, po, 2, I32(n, two), 2, I32(packed), 1);
        add_op(b, RT_BUILTIN_RESHAPE, RT_OPTIONS_RESHAPE, NULL, 0, I32(in, packed), 2, I32(out), 1);
        tfb_io(b, I32(in), 1, I32(out), 1);
        one_op_t o;
        float x[6] = { 1, 2, 3, 4, 5, 6 }, y[6];
        one_op_run(&o, b, x, sizeof(x));
        assert_out_dims(&o, 0, 2, I32(3, 2));
        ck_assert_int_eq(rt_interp_copy_out(o.it, 0, y, sizeof(y)), 0);
        ck_assert_mem_eq(x, y, sizeof(x));
        one_op_done(&o);
}
END_TEST

int main(void) {
        const TTest *tests[] = {
                test_model_reshape_new_shape_option,
                test_model_strided_slice_masks,
                test_model_mirror_pad_symmetric_option,
                test_model_resize_bilinear_align_corners_option,
                test_model_resize_nearest_half_pixel_option,
                test_model_gather_axis_batch_dims_options,
                test_model_concat_axis_activation_options,
                test_model_squeeze_dims_option,
                test_model_space_to_depth_block_option,
                test_model_pack_unpack_options,
                test_model_shape_int64_option,
                test_model_dynamic_shape_chain,
        };
        Suite *s = suite_create("shape-model");
        TCase *tc = tcase_create("core");
        for (size_t i = 0; i < sizeof(tests) / sizeof(tests[0]); i++)
                tcase_add_test(tc, tests[i]);
        suite_add_tcase(s, tc);
        SRunner *sr = srunner_create(s);
        srunner_run_all(sr, CK_NORMAL);
        int failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
