/* SPDX-License-Identifier: Apache-2.0 */
#include "kernels.h"
#include "resolver.h"
#include "reduce-test.h"

/* Every op of the family resolves to its registration, under its builtin
 * code, with a name and both prepare and invoke hooks. */
START_TEST(test_reduce_register_all_ops) {
        const struct {
                int32_t op;
                const rt_registration_t *reg;
        } want[] = {
                { RT_OP_MEAN, &rt_kernel_mean },
                { RT_OP_SUM, &rt_kernel_sum },
                { RT_OP_REDUCE_PROD, &rt_kernel_reduce_prod },
                { RT_OP_REDUCE_MAX, &rt_kernel_reduce_max },
                { RT_OP_REDUCE_MIN, &rt_kernel_reduce_min },
                { RT_OP_REDUCE_ANY, &rt_kernel_reduce_any },
                { RT_OP_REDUCE_ALL, &rt_kernel_reduce_all },
                { RT_OP_ARG_MAX, &rt_kernel_arg_max },
                { RT_OP_ARG_MIN, &rt_kernel_arg_min },
                { RT_OP_CUMSUM, &rt_kernel_cumsum },
                { RT_OP_SOFTMAX, &rt_kernel_softmax },
                { RT_OP_LOG_SOFTMAX, &rt_kernel_log_softmax },
                { RT_OP_L2_NORMALIZATION, &rt_kernel_l2_normalization },
                { RT_OP_LOCAL_RESPONSE_NORMALIZATION, &rt_kernel_local_response_normalization },
        };
        rt_resolver_t *r = rt_resolver_new();
        ck_assert_ptr_nonnull(r);
        ck_assert_int_eq(rt_kernels_register_reduce(r), 0);
        ck_assert_uint_eq(rt_resolver_size(r), ARRAY_LEN(want));
        for (size_t i = 0; i < ARRAY_LEN(want); i++) {
                ck_assert_ptr_eq(rt_resolver_find(r, want[i].op, NULL, 1), want[i].reg);
                ck_assert_int_eq(want[i].reg->op, want[i].op);
                ck_assert_ptr_nonnull(want[i].reg->name);
                ck_assert_ptr_nonnull(want[i].reg->prepare);
                ck_assert_ptr_nonnull(want[i].reg->invoke);
        }
        rt_resolver_free(r);
}
END_TEST

REDUCE_TEST_MAIN("register", test_reduce_register_all_ops)
