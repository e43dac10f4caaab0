/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The parse hooks read each op's builtin options table by schema field id
 * (tensorflow/lite/schema/schema.fbs). The tables here are built by hand:
 * a vtable at offset 0, then the table with one 4-byte slot per field.
 */
#include <string.h>

#include "conv-test.h"

typedef struct field {
        unsigned id;
        int size;  /* 1 (byte/bool) or 4 (int) */
        int32_t value;
} field_t;

typedef struct fb {
        uint8_t buf[256];
        rt_node_t node;
} fb_t;

/* Lay out a table with `fields` and point node.options at it. */
static void fb_build(fb_t *fb, const field_t *fields, size_t n) {
        memset(fb, 0, sizeof(*fb));
        unsigned n_ids = 0;
        for (size_t i = 0; i < n; i++)
                if (fields[i].id + 1 > n_ids)
                        n_ids = fields[i].id + 1;
        const uint16_t vt_size = (uint16_t) (4 + 2 * n_ids);
        const uint32_t table = (uint32_t) ((vt_size + 3) & ~3u) + 4;  /* pos 0 stays "absent" */
        const uint16_t table_size = (uint16_t) (4 + 4 * n);
        memcpy(fb->buf + table - vt_size, &vt_size, 2);
        memcpy(fb->buf + table - vt_size + 2, &table_size, 2);
        for (size_t i = 0; i < n; i++) {
                const uint16_t off = (uint16_t) (4 + 4 * i);
                memcpy(fb->buf + table - vt_size + 4 + 2 * fields[i].id, &off, 2);
                if (fields[i].size == 1)
                        fb->buf[table + off] = (uint8_t) fields[i].value;
                else
                        memcpy(fb->buf + table + off, &fields[i].value, 4);
        }
        const int32_t soff = vt_size;  /* vtable = table - soffset */
        memcpy(fb->buf + table, &soff, 4);
        fb->node.options = (fbt_table_t) { .buf = fb->buf, .size = sizeof(fb->buf), .pos = table };
}

static int parse(const rt_registration_t *reg, fb_t *fb, void *ret, char *err) {
        kh_t h;
        kh_init(&h);
        int r = reg->parse(&fb->node, ret, &h.ctx);
        strcpy(err, h.error);
        kh_done(&h);
        return r;
}

START_TEST(test_parse_conv2d_fields) {
        fb_t fb;
        const field_t f[] = { { 0, 1, RT_PADDING_VALID }, { 1, 4, 2 }, { 2, 4, 3 }, { 3, 1, RT_ACT_RELU6 },
                              { 4, 4, 4 }, { 5, 4, 5 } };
        fb_build(&fb, f, ARRAY_LEN(f));
        rt_conv_params_t p = { 0 };
        char err[512];
        ck_assert_int_eq(parse(&rt_kernel_conv_2d, &fb, &p, err), 0);
        ck_assert_int_eq(p.padding, RT_PADDING_VALID);
        ck_assert_int_eq(p.stride_w, 2);
        ck_assert_int_eq(p.stride_h, 3);
        ck_assert_int_eq(p.activation, RT_ACT_RELU6);
        ck_assert_int_eq(p.dilation_w, 4);
        ck_assert_int_eq(p.dilation_h, 5);
}
END_TEST

/* Dilations default to 1 when the fields are absent (older files). */
START_TEST(test_parse_conv2d_defaults_and_bad_padding) {
        fb_t fb;
        const field_t f[] = { { 1, 4, 1 }, { 2, 4, 1 } };
        fb_build(&fb, f, ARRAY_LEN(f));
        rt_conv_params_t p = { 0 };
        char err[512];
        ck_assert_int_eq(parse(&rt_kernel_conv_2d, &fb, &p, err), 0);
        ck_assert_int_eq(p.padding, RT_PADDING_SAME);
        ck_assert_int_eq(p.dilation_w, 1);
        ck_assert_int_eq(p.dilation_h, 1);
        ck_assert_int_eq(p.activation, RT_ACT_NONE);

        const field_t bad[] = { { 0, 1, 7 } };
        fb_build(&fb, bad, ARRAY_LEN(bad));
        ck_assert_int_eq(parse(&rt_kernel_conv_2d, &fb, &p, err), -EINVAL);
        ck_assert_ptr_nonnull(strstr(err, "padding"));
}
END_TEST

START_TEST(test_parse_depthwise_fields) {
        fb_t fb;
        const field_t f[] = { { 0, 1, RT_PADDING_SAME }, { 1, 4, 2 }, { 2, 4, 1 }, { 3, 4, 4 },
                              { 4, 1, RT_ACT_RELU }, { 5, 4, 3 }, { 6, 4, 2 } };
        fb_build(&fb, f, ARRAY_LEN(f));
        rt_depthwise_params_t p = { 0 };
        char err[512];
        ck_assert_int_eq(parse(&rt_kernel_depthwise_conv_2d, &fb, &p, err), 0);
        ck_assert_int_eq(p.stride_w, 2);
        ck_assert_int_eq(p.stride_h, 1);
        ck_assert_int_eq(p.depth_multiplier, 4);
        ck_assert_int_eq(p.activation, RT_ACT_RELU);
        ck_assert_int_eq(p.dilation_w, 3);
        ck_assert_int_eq(p.dilation_h, 2);
}
END_TEST

START_TEST(test_parse_fully_connected_fields) {
        fb_t fb;
        const field_t f[] = { { 0, 1, RT_ACT_TANH }, { 1, 1, 1 }, { 2, 1, 1 }, { 3, 1, 1 } };
        fb_build(&fb, f, ARRAY_LEN(f));
        rt_fc_params_t p = { 0 };
        char err[512];
        ck_assert_int_eq(parse(&rt_kernel_fully_connected, &fb, &p, err), 0);
        ck_assert_int_eq(p.activation, RT_ACT_TANH);
        ck_assert_int_eq(p.weights_format, RT_FC_WEIGHTS_SHUFFLED4x16INT8);
        ck_assert(p.keep_num_dims);
        ck_assert(p.asymmetric_quantize_inputs);
}
END_TEST

START_TEST(test_parse_pool_fields) {
        fb_t fb;
        const field_t f[] = { { 0, 1, RT_PADDING_VALID }, { 1, 4, 2 }, { 2, 4, 3 }, { 3, 4, 4 },
                              { 4, 4, 5 }, { 5, 1, RT_ACT_RELU_N1_TO_1 } };
        fb_build(&fb, f, ARRAY_LEN(f));
        const rt_registration_t *regs[] = { &rt_kernel_average_pool_2d, &rt_kernel_max_pool_2d,
                                            &rt_kernel_l2_pool_2d };
        for (size_t i = 0; i < ARRAY_LEN(regs); i++) {
                rt_pool_params_t p = { 0 };
                char err[512];
                ck_assert_int_eq(parse(regs[i], &fb, &p, err), 0);
                ck_assert_int_eq(p.padding, RT_PADDING_VALID);
                ck_assert_int_eq(p.stride_w, 2);
                ck_assert_int_eq(p.stride_h, 3);
                ck_assert_int_eq(p.filter_w, 4);
                ck_assert_int_eq(p.filter_h, 5);
                ck_assert_int_eq(p.activation, RT_ACT_RELU_N1_TO_1);
        }
}
END_TEST

START_TEST(test_parse_transpose_conv_and_batch_matmul_fields) {
        fb_t fb;
        const field_t f[] = { { 0, 1, RT_PADDING_VALID }, { 1, 4, 2 }, { 2, 4, 3 }, { 3, 1, RT_ACT_RELU } };
        fb_build(&fb, f, ARRAY_LEN(f));
        rt_transpose_conv_params_t tp = { 0 };
        char err[512];
        ck_assert_int_eq(parse(&rt_kernel_transpose_conv, &fb, &tp, err), 0);
        ck_assert_int_eq(tp.padding, RT_PADDING_VALID);
        ck_assert_int_eq(tp.stride_w, 2);
        ck_assert_int_eq(tp.stride_h, 3);
        ck_assert_int_eq(tp.activation, RT_ACT_RELU);

        const field_t b[] = { { 0, 1, 0 }, { 1, 1, 1 }, { 2, 1, 1 } };
        fb_build(&fb, b, ARRAY_LEN(b));
        rt_batch_matmul_params_t bp = { 0 };
        ck_assert_int_eq(parse(&rt_kernel_batch_matmul, &fb, &bp, err), 0);
        ck_assert(!bp.adj_x);
        ck_assert(bp.adj_y);
        ck_assert(bp.asymmetric_quantize_inputs);
}
END_TEST

/* Conv3DOptions: padding, stride_d, stride_w, stride_h, act, dilation
 * d/w/h (default 1); CONV_3D_TRANSPOSE uses the same table. */
START_TEST(test_parse_conv3d_fields) {
        fb_t fb;
        const field_t f[] = { { 0, 1, RT_PADDING_VALID }, { 1, 4, 2 }, { 2, 4, 3 }, { 3, 4, 4 },
                              { 4, 1, RT_ACT_RELU }, { 5, 4, 5 }, { 6, 4, 6 }, { 7, 4, 7 } };
        fb_build(&fb, f, ARRAY_LEN(f));
        const rt_registration_t *regs[2] = { &rt_kernel_conv_3d, &rt_kernel_conv_3d_transpose };
        char err[512];
        for (int i = 0; i < 2; i++) {
                rt_conv3d_params_t p = { 0 };
                ck_assert_int_eq(parse(regs[i], &fb, &p, err), 0);
                ck_assert_int_eq(p.padding, RT_PADDING_VALID);
                ck_assert_int_eq(p.stride_d, 2);
                ck_assert_int_eq(p.stride_w, 3);
                ck_assert_int_eq(p.stride_h, 4);
                ck_assert_int_eq(p.activation, RT_ACT_RELU);
                ck_assert_int_eq(p.dilation_d, 5);
                ck_assert_int_eq(p.dilation_w, 6);
                ck_assert_int_eq(p.dilation_h, 7);
        }
        const field_t d[] = { { 1, 4, 1 }, { 2, 4, 1 }, { 3, 4, 1 } };
        fb_build(&fb, d, ARRAY_LEN(d));
        rt_conv3d_params_t p = { 0 };
        ck_assert_int_eq(parse(&rt_kernel_conv_3d, &fb, &p, err), 0);
        ck_assert_int_eq(p.padding, RT_PADDING_SAME);
        ck_assert_int_eq(p.dilation_d, 1);
        ck_assert_int_eq(p.dilation_w, 1);
        ck_assert_int_eq(p.dilation_h, 1);
        const field_t bad[] = { { 4, 1, 9 } };
        fb_build(&fb, bad, ARRAY_LEN(bad));
        ck_assert_int_eq(parse(&rt_kernel_conv_3d_transpose, &fb, &p, err), -EINVAL);
        ck_assert_ptr_nonnull(strstr(err, "CONV_3D_TRANSPOSE: unknown fused activation 9"));
}
END_TEST

static Suite *parse_suite(void) {
        Suite *s = suite_create("conv_parse");
        TCase *tc = tcase_create("conv_parse");
        tcase_add_test(tc, test_parse_conv2d_fields);
        tcase_add_test(tc, test_parse_conv2d_defaults_and_bad_padding);
        tcase_add_test(tc, test_parse_depthwise_fields);
        tcase_add_test(tc, test_parse_fully_connected_fields);
        tcase_add_test(tc, test_parse_pool_fields);
        tcase_add_test(tc, test_parse_transpose_conv_and_batch_matmul_fields);
        tcase_add_test(tc, test_parse_conv3d_fields);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        SRunner *sr = srunner_create(parse_suite());
        srunner_run_all(sr, CK_NORMAL);
        int failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed == 0 ? 0 : 1;
}
