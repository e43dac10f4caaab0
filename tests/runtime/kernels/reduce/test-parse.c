/* SPDX-License-Identifier: Apache-2.0 */
#include "reduce-test.h"

/*
 * A hand-built FlatBuffers options table: the vtable at offset 4, the table
 * after it, field i stored at field_offsets[i] bytes into the table (0 =
 * absent). Values are copied in little-endian order.
 */
typedef struct opt_table {
        uint8_t buf[128];
        fbt_table_t t;
} opt_table_t;

static void opt_table_init(opt_table_t *o, int n_fields, const uint16_t *field_offsets,
                           const void *const *values, const size_t *sizes) {
        memset(o, 0, sizeof(*o));
        const uint32_t vt = 4;  /* offset 0 is the root offset in a real buffer */
        const uint16_t vsize = (uint16_t) (4 + 2 * n_fields);
        const uint32_t table = (vt + vsize + 3) & ~3u;
        uint16_t tsize = 4;
        memcpy(o->buf + vt, &vsize, 2);
        for (int i = 0; i < n_fields; i++) {
                memcpy(o->buf + vt + 4 + 2 * i, &field_offsets[i], 2);
                if (field_offsets[i]) {
                        memcpy(o->buf + table + field_offsets[i], values[i], sizes[i]);
                        if (field_offsets[i] + sizes[i] > tsize)
                                tsize = (uint16_t) (field_offsets[i] + sizes[i]);
                }
        }
        memcpy(o->buf + vt + 2, &tsize, 2);
        const int32_t soff = (int32_t) (table - vt);  /* vtable = table - soff */
        memcpy(o->buf + table, &soff, 4);
        o->t = (fbt_table_t) { .buf = o->buf, .size = sizeof(o->buf), .pos = table };
}

static int parse(const rt_registration_t *reg, const opt_table_t *o, void *ret) {
        rt_node_t node;
        memset(&node, 0, sizeof(node));
        node.op = reg->op;
        if (o)
                node.options = o->t;
        kh_t h;
        kh_init(&h);
        int r = reg->parse(&node, ret, &h.ctx);
        kh_done(&h);
        return r;
}

START_TEST(test_parse_reducer_keep_dims) {
        const bool t = true;
        opt_table_t o;
        opt_table_init(&o, 1, (uint16_t[]) { 4 }, (const void *[]) { &t }, (size_t[]) { 1 });
        const rt_registration_t *regs[] = { &rt_kernel_mean, &rt_kernel_sum, &rt_kernel_reduce_prod,
                                            &rt_kernel_reduce_max, &rt_kernel_reduce_min,
                                            &rt_kernel_reduce_any, &rt_kernel_reduce_all };
        for (size_t i = 0; i < ARRAY_LEN(regs); i++) {
                rt_reducer_params_t p = { 0 };
                ck_assert_uint_eq(regs[i]->params_size, sizeof(p));
                ck_assert_int_eq(parse(regs[i], &o, &p), 0);
                ck_assert(p.keep_dims);
                ck_assert_int_eq(parse(regs[i], NULL, &p), 0);
                ck_assert(!p.keep_dims);
        }
}
END_TEST

START_TEST(test_parse_softmax_and_arg_options) {
        const float beta = 0.25f;
        opt_table_t o;
        opt_table_init(&o, 1, (uint16_t[]) { 4 }, (const void *[]) { &beta }, (size_t[]) { 4 });
        rt_softmax_params_t sp = { 0 };
        ck_assert_int_eq(parse(&rt_kernel_softmax, &o, &sp), 0);
        ck_assert_float_eq(sp.beta, 0.25f);

        const int8_t type = RT_TYPE_INT64;
        opt_table_init(&o, 1, (uint16_t[]) { 4 }, (const void *[]) { &type }, (size_t[]) { 1 });
        rt_arg_params_t ap = { 0 };
        ck_assert_int_eq(parse(&rt_kernel_arg_max, &o, &ap), 0);
        ck_assert_int_eq(ap.output_type, RT_TYPE_INT64);
        ck_assert_int_eq(parse(&rt_kernel_arg_min, &o, &ap), 0);
        ck_assert_int_eq(ap.output_type, RT_TYPE_INT64);
}
END_TEST

START_TEST(test_parse_cumsum_lrn_l2norm) {
        const bool t = true;
        opt_table_t o;
        /* only reverse (field 1) present */
        opt_table_init(&o, 2, (uint16_t[]) { 0, 4 }, (const void *[]) { NULL, &t }, (size_t[]) { 0, 1 });
        rt_cumsum_params_t cp = { .exclusive = true };
        ck_assert_int_eq(parse(&rt_kernel_cumsum, &o, &cp), 0);
        ck_assert(!cp.exclusive);
        ck_assert(cp.reverse);

        const int32_t radius = 3;
        const float bias = 1.5f, alpha = 0.25f, beta = 0.75f;
        opt_table_init(&o, 4, (uint16_t[]) { 4, 8, 12, 16 },
                       (const void *[]) { &radius, &bias, &alpha, &beta }, (size_t[]) { 4, 4, 4, 4 });
        rt_lrn_params_t lp = { 0 };
        ck_assert_int_eq(parse(&rt_kernel_local_response_normalization, &o, &lp), 0);
        ck_assert_int_eq(lp.radius, 3);
        ck_assert_float_eq(lp.bias, 1.5f);
        ck_assert_float_eq(lp.alpha, 0.25f);
        ck_assert_float_eq(lp.beta, 0.75f);

        const int8_t act = RT_ACT_RELU6;
        opt_table_init(&o, 1, (uint16_t[]) { 4 }, (const void *[]) { &act }, (size_t[]) { 1 });
        rt_l2norm_params_t l2 = { 0 };
        ck_assert_int_eq(parse(&rt_kernel_l2_normalization, &o, &l2), 0);
        ck_assert_int_eq(l2.activation, RT_ACT_RELU6);
}
END_TEST

REDUCE_TEST_MAIN("parse", test_parse_reducer_keep_dims, test_parse_softmax_and_arg_options,
                 test_parse_cumsum_lrn_l2norm)
