/* SPDX-License-Identifier: Apache-2.0 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "kharness.h"
#include "sequence.h"

/* A float SVDF: 2 inputs, 2 filters, rank 1, memory 3. */
typedef struct svdf_case {
        kh_t h;
        int32_t in, wf, wt, bias, state, out;
} svdf_case_t;

static void svdf_float_setup(svdf_case_t *c, const float *x) {
        kh_init(&c->h);
        c->in = kh_tensor(&c->h, RT_TYPE_FLOAT32, 2, (int32_t[]){ 1, 2 }, x);
        c->wf = kh_const(&c->h, RT_TYPE_FLOAT32, 2, (int32_t[]){ 2, 2 }, (float[]){ 1, 2, 3, -1 });
        c->wt = kh_const(&c->h, RT_TYPE_FLOAT32, 2, (int32_t[]){ 2, 3 },
                         (float[]){ 1, 0.5f, 0.25f, 2, 1, -1 });
        c->bias = kh_const(&c->h, RT_TYPE_FLOAT32, 1, (int32_t[]){ 2 }, (float[]){ 0.1f, -0.2f });
        c->state = kh_tensor(&c->h, RT_TYPE_FLOAT32, 2, (int32_t[]){ 1, 6 }, (float[6]){ 0 });
        c->h.tensors[c->state].is_variable = true;
        c->h.tensors[c->state].alloc = RT_ALLOC_PERSISTENT;
        c->out = kh_tensor(&c->h, RT_TYPE_FLOAT32, 0, NULL, NULL);
}

START_TEST(test_svdf_float_two_invokes_keep_state) {
        svdf_case_t c;
        svdf_float_setup(&c, (float[]){ 1, 1 });
        rt_svdf_params_t p = { .rank = 1, .activation = RT_ACT_NONE };
        ck_assert_int_eq(kh_run(&c.h, &rt_kernel_svdf, &p, (int32_t[]){ c.in, c.wf, c.wt, c.bias, c.state }, 5,
                                (int32_t[]){ c.out }, 1), 0);
        ck_assert_int_eq(c.h.tensors[c.out].rank, 2);
        ck_assert_int_eq(c.h.tensors[c.out].dims[1], 2);
        const float *o = c.h.tensors[c.out].data;
        /* features 3 and 2 land in the newest memory slot. */
        ck_assert_float_eq_tol(o[0], 0.25f * 3 + 0.1f, 1e-6);
        ck_assert_float_eq_tol(o[1], -1.0f * 2 - 0.2f, 1e-6);
        const float *s = c.h.tensors[c.state].data;
        ck_assert_float_eq(s[2], 3.0f);
        ck_assert_float_eq(s[5], 2.0f);

        /* Second step, same node: the state has shifted by one. */
        float *x = c.h.tensors[c.in].data;
        x[0] = 2;
        x[1] = 0;
        ck_assert_int_eq(rt_kernel_svdf.invoke(&c.h.ctx, &c.h.node), 0);
        ck_assert_float_eq_tol(o[0], 0.5f * 3 + 0.25f * 2 + 0.1f, 1e-6);
        ck_assert_float_eq_tol(o[1], 1.0f * 2 - 1.0f * 6 - 0.2f, 1e-6);
        kh_done(&c.h);
}
END_TEST

START_TEST(test_svdf_float_relu_rank2) {
        svdf_case_t c;
        svdf_float_setup(&c, (float[]){ 1, 1 });
        /* rank 2: the two filters sum into one unit; bias has 1 element. */
        c.h.tensors[c.bias].dims[0] = 1;
        ((float *) c.h.tensors[c.bias].data)[0] = -3.0f;
        rt_svdf_params_t p = { .rank = 2, .activation = RT_ACT_RELU };
        ck_assert_int_eq(kh_run(&c.h, &rt_kernel_svdf, &p, (int32_t[]){ c.in, c.wf, c.wt, c.bias, c.state }, 5,
                                (int32_t[]){ c.out }, 1), 0);
        ck_assert_int_eq(c.h.tensors[c.out].dims[1], 1);
        /* 0.75 - 2 - 3 < 0 -> relu -> 0 */
        ck_assert_float_eq(((float *) c.h.tensors[c.out].data)[0], 0.0f);
        kh_done(&c.h);
}
END_TEST

START_TEST(test_svdf_int8_two_invokes) {
        kh_t h;
        kh_init(&h);
        /* real input [1, 1] stored with zero point 1 */
        int32_t in = kh_tensor(&h, RT_TYPE_INT8, 2, (int32_t[]){ 1, 2 }, (int8_t[]){ 2, 2 });
        kh_quant(&h, in, 1.0f, 1);
        int32_t wf = kh_const(&h, RT_TYPE_INT8, 2, (int32_t[]){ 2, 2 }, (int8_t[]){ 1, 2, 3, -1 });
        kh_quant(&h, wf, 1.0f, 0);
        int32_t wt = kh_const(&h, RT_TYPE_INT16, 2, (int32_t[]){ 2, 3 }, (int16_t[]){ 4, 2, 1, 2, 1, -1 });
        kh_quant(&h, wt, 1.0f, 0);
        int32_t bias = kh_const(&h, RT_TYPE_INT32, 1, (int32_t[]){ 2 }, (int32_t[]){ 1, -2 });
        kh_quant(&h, bias, 1.0f, 0);
        int32_t state = kh_tensor(&h, RT_TYPE_INT16, 2, (int32_t[]){ 1, 6 }, (int16_t[6]){ 0 });
        kh_quant(&h, state, 1.0f, 0);
        h.tensors[state].is_variable = true;
        int32_t out = kh_tensor(&h, RT_TYPE_INT8, 0, NULL, NULL);
        kh_quant(&h, out, 0.5f, -3);
        rt_svdf_params_t p = { .rank = 1, .activation = RT_ACT_RELU };
        ck_assert_int_eq(kh_run(&h, &rt_kernel_svdf, &p, (int32_t[]){ in, wf, wt, bias, state }, 5,
                                (int32_t[]){ out }, 1), 0);
        const int8_t *o = h.tensors[out].data;
        /* unit0 = 1*3 + 1 = 4 -> 4/0.5 - 3 = 5; unit1 = -1*2 - 2 = -4 -> -11
         * (TFLite's integer SVDF does not apply the RELU) */
        ck_assert_int_eq(o[0], 5);
        ck_assert_int_eq(o[1], -11);
        int8_t *x = h.tensors[in].data;
        x[0] = 3;  /* real 2 */
        x[1] = 1;  /* real 0 */
        ck_assert_int_eq(rt_kernel_svdf.invoke(&h.ctx, &h.node), 0);
        /* f = (2, 6); unit0 = 2*3 + 1*2 + 1 = 9 -> 15; unit1 = 2 - 6 - 2 = -6 -> -15 */
        ck_assert_int_eq(o[0], 15);
        ck_assert_int_eq(o[1], -15);
        const int16_t *s = h.tensors[state].data;
        ck_assert_int_eq(s[1], 3);
        ck_assert_int_eq(s[2], 2);
        ck_assert_int_eq(s[5], 6);
        kh_done(&h);
}
END_TEST

START_TEST(test_svdf_int8_saturates_output) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_INT8, 2, (int32_t[]){ 1, 1 }, (int8_t[]){ 100 });
        kh_quant(&h, in, 1.0f, 0);
        int32_t wf = kh_const(&h, RT_TYPE_INT8, 2, (int32_t[]){ 1, 1 }, (int8_t[]){ 100 });
        kh_quant(&h, wf, 1.0f, 0);
        int32_t wt = kh_const(&h, RT_TYPE_INT16, 2, (int32_t[]){ 1, 1 }, (int16_t[]){ 1 });
        kh_quant(&h, wt, 1.0f, 0);
        int32_t state = kh_tensor(&h, RT_TYPE_INT16, 2, (int32_t[]){ 1, 1 }, (int16_t[1]){ 0 });
        kh_quant(&h, state, 1.0f, 0);
        int32_t out = kh_tensor(&h, RT_TYPE_INT8, 0, NULL, NULL);
        kh_quant(&h, out, 1.0f, 0);
        rt_svdf_params_t p = { .rank = 1, .activation = RT_ACT_RELU };
        ck_assert_int_eq(kh_run(&h, &rt_kernel_svdf, &p, (int32_t[]){ in, wf, wt, -1, state }, 5,
                                (int32_t[]){ out }, 1), 0);
        /* 10000 fits the int16 state and saturates the int8 output */
        ck_assert_int_eq(((int16_t *) h.tensors[state].data)[0], 10000);
        ck_assert_int_eq(((int8_t *) h.tensors[out].data)[0], 127);
        kh_done(&h);
}
END_TEST

START_TEST(test_svdf_rejects_bad_rank_and_state) {
        svdf_case_t c;
        svdf_float_setup(&c, (float[]){ 1, 1 });
        rt_svdf_params_t p = { .rank = 3, .activation = RT_ACT_NONE };
        ck_assert_int_eq(kh_run(&c.h, &rt_kernel_svdf, &p, (int32_t[]){ c.in, c.wf, c.wt, c.bias, c.state }, 5,
                                (int32_t[]){ c.out }, 1), -EINVAL);
        ck_assert_ptr_nonnull(strstr(c.h.error, "rank 3"));
        kh_done(&c.h);

        svdf_float_setup(&c, (float[]){ 1, 1 });
        c.h.tensors[c.state].dims[1] = 5;
        p.rank = 1;
        ck_assert_int_eq(kh_run(&c.h, &rt_kernel_svdf, &p, (int32_t[]){ c.in, c.wf, c.wt, c.bias, c.state }, 5,
                                (int32_t[]){ c.out }, 1), -EINVAL);
        kh_done(&c.h);
}
END_TEST

START_TEST(test_svdf_int8_requires_relu) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_INT8, 2, (int32_t[]){ 1, 1 }, (int8_t[]){ 1 });
        kh_quant(&h, in, 1.0f, 0);
        int32_t wf = kh_const(&h, RT_TYPE_INT8, 2, (int32_t[]){ 1, 1 }, (int8_t[]){ 1 });
        kh_quant(&h, wf, 1.0f, 0);
        int32_t wt = kh_const(&h, RT_TYPE_INT16, 2, (int32_t[]){ 1, 1 }, (int16_t[]){ 1 });
        kh_quant(&h, wt, 1.0f, 0);
        int32_t state = kh_tensor(&h, RT_TYPE_INT16, 2, (int32_t[]){ 1, 1 }, (int16_t[1]){ 0 });
        kh_quant(&h, state, 1.0f, 0);
        int32_t out = kh_tensor(&h, RT_TYPE_INT8, 0, NULL, NULL);
        kh_quant(&h, out, 1.0f, 0);
        rt_svdf_params_t p = { .rank = 1, .activation = RT_ACT_NONE };
        ck_assert_int_eq(kh_run(&h, &rt_kernel_svdf, &p, (int32_t[]){ in, wf, wt, -1, state }, 5,
                                (int32_t[]){ out }, 1), -EINVAL);
        kh_done(&h);
}
END_TEST

START_TEST(test_svdf_hybrid_matches_float) {
        /* Weights that int8 represents exactly: the hybrid path must give the
         * float results up to the input quantization (exact here too). */
        for (int asym = 0; asym < 2; asym++) {
                kh_t h;
                kh_init(&h);
                int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 2, (int32_t[]){ 1, 2 }, (float[]){ 1, 1 });
                int32_t wf = kh_const(&h, RT_TYPE_INT8, 2, (int32_t[]){ 2, 2 }, (int8_t[]){ 1, 2, 3, -1 });
                kh_quant(&h, wf, 1.0f, 0);
                int32_t wt = kh_const(&h, RT_TYPE_INT8, 2, (int32_t[]){ 2, 3 }, (int8_t[]){ 4, 2, 1, 8, 4, -4 });
                kh_quant(&h, wt, 0.25f, 0);
                int32_t bias = kh_const(&h, RT_TYPE_FLOAT32, 1, (int32_t[]){ 2 }, (float[]){ 0.1f, -0.2f });
                int32_t state = kh_tensor(&h, RT_TYPE_FLOAT32, 2, (int32_t[]){ 1, 6 }, (float[6]){ 0 });
                h.tensors[state].is_variable = true;
                int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
                rt_svdf_params_t p = { .rank = 1, .activation = RT_ACT_NONE, .asymmetric_quantize_inputs = asym };
                ck_assert_int_eq(kh_run(&h, &rt_kernel_svdf, &p, (int32_t[]){ in, wf, wt, bias, state }, 5,
                                        (int32_t[]){ out }, 1), 0);
                const float *o = h.tensors[out].data;
                ck_assert_float_eq_tol(o[0], 0.85f, 1e-5);
                ck_assert_float_eq_tol(o[1], -2.2f, 1e-5);
                float *x = h.tensors[in].data;
                x[0] = 2;
                x[1] = 0;
                ck_assert_int_eq(rt_kernel_svdf.invoke(&h.ctx, &h.node), 0);
                ck_assert_float_eq_tol(o[0], 2.1f, 1e-5);
                ck_assert_float_eq_tol(o[1], -4.2f, 2e-5);
                kh_done(&h);
        }
}
END_TEST

START_TEST(test_svdf_parse_reads_options) {
        /* SVDFOptions { rank: 2, fused_activation_function: RELU }, hand-built. */
        static const uint8_t buf[] = {
                0, 0, 0, 0,
                /* vtable at 4: size 8, object 12, rank @4, act @8 */
                8, 0, 12, 0, 4, 0, 8, 0,
                /* table at 12: soffset 8 -> vtable at 4 */
                8, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0,
        };
        rt_node_t node = { 0 };
        node.options = (fbt_table_t){ buf, sizeof(buf), 12 };
        rt_svdf_params_t p = { 0 };
        ck_assert_int_eq(rt_kernel_svdf.parse(&node, &p, NULL), 0);
        ck_assert_int_eq(p.rank, 2);
        ck_assert_int_eq(p.activation, RT_ACT_RELU);
        ck_assert(!p.asymmetric_quantize_inputs);
}
END_TEST

int main(void) {
        Suite *s = suite_create("kernels-sequence-svdf");
        TCase *tc = tcase_create("svdf");
        tcase_add_test(tc, test_svdf_float_two_invokes_keep_state);
        tcase_add_test(tc, test_svdf_float_relu_rank2);
        tcase_add_test(tc, test_svdf_int8_two_invokes);
        tcase_add_test(tc, test_svdf_int8_saturates_output);
        tcase_add_test(tc, test_svdf_rejects_bad_rank_and_state);
        tcase_add_test(tc, test_svdf_int8_requires_relu);
        tcase_add_test(tc, test_svdf_parse_reads_options);
        tcase_add_test(tc, test_svdf_hybrid_matches_float);
        suite_add_tcase(s, tc);
        SRunner *sr = srunner_create(s);
        srunner_run_all(sr, CK_NORMAL);
        int failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
