/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The parse hooks of the elementwise family, on hand-built FlatBuffers
 * options tables (field ids as in TFLite's schema.fbs).
 */
#include <string.h>

#include "ew-test.h"

/*
 * Lay out one table in `buf`: a vtable at offset 4 with `n` 4-byte field
 * slots (slot i absent when present[i] is false), then the table itself.
 * Every field gets 4 bytes, enough for the bool/byte/float scalars used here.
 */
static fbt_table_t build_table(uint8_t *buf, size_t size, int n, const bool *present,
                               const uint32_t *values) {
        memset(buf, 0, size);
        const uint32_t vt = 4;
        const uint16_t vsize = (uint16_t) (4 + 2 * n);
        const uint32_t table = (vt + vsize + 3u) & ~3u;
        const uint16_t tsize = (uint16_t) (4 + 4 * n);
        memcpy(buf + vt, &vsize, 2);
        memcpy(buf + vt + 2, &tsize, 2);
        const int32_t soff = (int32_t) (table - vt);
        memcpy(buf + table, &soff, 4);
        for (int i = 0; i < n; i++) {
                uint16_t foff = present[i] ? (uint16_t) (4 + 4 * i) : 0;
                memcpy(buf + vt + 4 + 2 * i, &foff, 2);
                if (present[i])
                        memcpy(buf + table + foff, &values[i], 4);
        }
        return (fbt_table_t){ .buf = buf, .size = size, .pos = table };
}

START_TEST(test_parse_add_options) {
        uint8_t buf[64];
        rt_node_t node = { .op = EW_OP_ADD };
        ew_arith_params_t p;

        /* fused_activation_function = RELU6, pot_scale_int16 = false. */
        node.options = build_table(buf, sizeof(buf), 2, (const bool[]){ true, true },
                                   (const uint32_t[]){ RT_ACT_RELU6, 0 });
        memset(&p, 0, sizeof(p));
        ck_assert_int_eq(rt_kernel_add.parse(&node, &p, NULL), 0);
        ck_assert_int_eq(p.activation, RT_ACT_RELU6);
        ck_assert(!p.pot_scale_int16);

        /* pot_scale_int16 absent: the schema default, true. */
        node.options = build_table(buf, sizeof(buf), 2, (const bool[]){ true, false },
                                   (const uint32_t[]){ RT_ACT_RELU, 0 });
        memset(&p, 0, sizeof(p));
        ck_assert_int_eq(rt_kernel_add.parse(&node, &p, NULL), 0);
        ck_assert_int_eq(p.activation, RT_ACT_RELU);
        ck_assert(p.pot_scale_int16);

        /* No options table at all: TFLite's zeroed params. */
        node.options = (fbt_table_t){ 0 };
        memset(&p, 0xff, sizeof(p));
        ck_assert_int_eq(rt_kernel_sub.parse(&node, &p, NULL), 0);
        ck_assert_int_eq(p.activation, RT_ACT_NONE);
        ck_assert(!p.pot_scale_int16);
}
END_TEST

START_TEST(test_parse_mul_ignores_pot_flag) {
        uint8_t buf[64];
        rt_node_t node = { .op = EW_OP_MUL };
        node.options = build_table(buf, sizeof(buf), 1, (const bool[]){ true },
                                   (const uint32_t[]){ RT_ACT_RELU_N1_TO_1 });
        ew_arith_params_t p = { 0 };
        ck_assert_int_eq(rt_kernel_mul.parse(&node, &p, NULL), 0);
        ck_assert_int_eq(p.activation, RT_ACT_RELU_N1_TO_1);
        ck_assert(!p.pot_scale_int16);
}
END_TEST

START_TEST(test_parse_leaky_relu_and_gelu) {
        uint8_t buf[64];
        rt_node_t node = { .op = EW_OP_LEAKY_RELU };
        float alpha = 0.3f;
        uint32_t bits;
        memcpy(&bits, &alpha, 4);
        node.options = build_table(buf, sizeof(buf), 1, (const bool[]){ true },
                                   (const uint32_t[]){ bits });
        ew_leaky_relu_params_t lp = { 0 };
        ck_assert_int_eq(rt_kernel_leaky_relu.parse(&node, &lp, NULL), 0);
        ck_assert_float_eq(lp.alpha, 0.3f);
        ck_assert_uint_eq(rt_kernel_leaky_relu.params_size, sizeof(ew_leaky_relu_params_t));

        node.op = EW_OP_GELU;
        node.options = build_table(buf, sizeof(buf), 1, (const bool[]){ true },
                                   (const uint32_t[]){ 1 });
        ew_gelu_params_t gp = { 0 };
        ck_assert_int_eq(rt_kernel_gelu.parse(&node, &gp, NULL), 0);
        ck_assert(gp.approximate);
}
END_TEST

/* A parsed ADD with a fused RELU really clamps. */
START_TEST(test_parsed_activation_applies) {
        uint8_t buf[64];
        kh_t h;
        kh_init(&h);
        int32_t a = kh_tensor(&h, RT_TYPE_FLOAT32, 1, DIMS(2), (float[]){ -3, 3 });
        int32_t b = kh_tensor(&h, RT_TYPE_FLOAT32, 1, DIMS(2), (float[]){ 1, 1 });
        int32_t o = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        rt_node_t node = { .op = EW_OP_ADD };
        node.options = build_table(buf, sizeof(buf), 1, (const bool[]){ true },
                                   (const uint32_t[]){ RT_ACT_RELU });
        ew_arith_params_t p = { 0 };
        ck_assert_int_eq(rt_kernel_add.parse(&node, &p, NULL), 0);
        ck_assert_int_eq(ew_run2(&h, &rt_kernel_add, &p, a, b, o), 0);
        const float *z = h.tensors[o].data;
        ck_assert_float_eq(z[0], 0);
        ck_assert_float_eq(z[1], 4);
        kh_done(&h);
}
END_TEST

static Suite *parse_suite(void) {
        Suite *s = suite_create("elementwise-parse");
        TCase *tc = tcase_create("core");
        tcase_add_test(tc, test_parse_add_options);
        tcase_add_test(tc, test_parse_mul_ignores_pot_flag);
        tcase_add_test(tc, test_parse_leaky_relu_and_gelu);
        tcase_add_test(tc, test_parsed_activation_applies);
        suite_add_tcase(s, tc);
        return s;
}

EW_MAIN(parse_suite)
