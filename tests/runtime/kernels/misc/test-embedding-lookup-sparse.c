/* SPDX-License-Identifier: Apache-2.0 */
#include "misc-test.h"

typedef struct els_case {
        int32_t ids, indices, shape, weights, value, out;
} els_case_t;

/* value rows {1,2} {3,4} {5,6} {7,8}; ids 1 and 3 land in bucket 0 with
 * weights 1 and 2, id 0 in bucket 2 with weight 4; bucket 1 stays empty. */
static els_case_t els_case(kh_t *h, const int32_t *ids) {
        els_case_t c;
        c.ids = kh_tensor(h, RT_TYPE_INT32, 1, I32(3), ids);
        c.indices = kh_tensor(h, RT_TYPE_INT32, 2, I32(3, 2), I32(0, 0, 0, 1, 2, 0));
        c.shape = kh_tensor(h, RT_TYPE_INT32, 1, I32(2), I32(3, 2));
        c.weights = kh_tensor(h, RT_TYPE_FLOAT32, 1, I32(3), F32(1, 2, 4));
        c.value = kh_const(h, RT_TYPE_FLOAT32, 2, I32(4, 2), F32(1, 2, 3, 4, 5, 6, 7, 8));
        c.out = kh_tensor(h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        return c;
}

static int run(kh_t *h, const els_case_t *c, rt_combiner_t combiner) {
        static rt_embedding_lookup_sparse_params_t p;
        p.combiner = combiner;
        return kh_run(h, &rt_kernel_embedding_lookup_sparse, &p, I32(c->ids, c->indices, c->shape, c->weights, c->value),
                      5, I32(c->out), 1);
}

START_TEST(test_els_sum_mean_sqrtn) {
        kh_t h;
        kh_init(&h);
        els_case_t c = els_case(&h, I32(1, 3, 0));
        ck_assert_int_eq(run(&h, &c, RT_COMBINER_SUM), 0);
        ck_assert_shape(&h.tensors[c.out], 2, 3, 2);
        ck_assert_f32_data(&h.tensors[c.out], 6, 0.0f, 17, 20, 0, 0, 4, 8);
        ck_assert_int_eq(run(&h, &c, RT_COMBINER_MEAN), 0);
        ck_assert_f32_data(&h.tensors[c.out], 6, 1e-6f, 17.0f / 3.0f, 20.0f / 3.0f, 0, 0, 1, 2);
        ck_assert_int_eq(run(&h, &c, RT_COMBINER_SQRTN), 0);
        ck_assert_f32_data(&h.tensors[c.out], 6, 1e-6f, 17.0f / sqrtf(5.0f), 20.0f / sqrtf(5.0f), 0, 0, 1, 2);
        kh_done(&h);
}
END_TEST

START_TEST(test_els_errors) {
        kh_t h;
        kh_init(&h);
        els_case_t c = els_case(&h, I32(1, 4, 0));
        ck_assert_fails(&h, run(&h, &c, RT_COMBINER_SUM), -EINVAL, "id 4 out of range");
        ck_assert_fails(&h, run(&h, &c, (rt_combiner_t) 5), -EINVAL, "combiner 5");
        kh_done(&h);
}
END_TEST

MISC_TEST_MAIN("embedding-lookup-sparse", test_els_sum_mean_sqrtn, test_els_errors)
