/* SPDX-License-Identifier: Apache-2.0 */
#include "conv-test.h"
#include "kernels.h"
#include "resolver.h"

/* rt_kernels_register_conv() adds all ten ops of the family under their
 * TFLite builtin codes, for every op version. */
START_TEST(test_register_conv_family) {
        rt_resolver_t *r = rt_resolver_new();
        ck_assert_ptr_nonnull(r);
        ck_assert_int_eq(rt_kernels_register_conv(r), 0);
        const struct {
                int32_t op;
                const rt_registration_t *reg;
        } want[] = {
                { 3, &rt_kernel_conv_2d },          { 4, &rt_kernel_depthwise_conv_2d },
                { 9, &rt_kernel_fully_connected },  { 67, &rt_kernel_transpose_conv },
                { 1, &rt_kernel_average_pool_2d },  { 17, &rt_kernel_max_pool_2d },
                { 12, &rt_kernel_l2_pool_2d },      { 126, &rt_kernel_batch_matmul },
                { 132, &rt_kernel_conv_3d },        { 141, &rt_kernel_conv_3d_transpose },
        };
        for (size_t i = 0; i < ARRAY_LEN(want); i++) {
                ck_assert_int_eq(want[i].reg->op, want[i].op);
                ck_assert_ptr_eq(rt_resolver_find(r, want[i].op, NULL, 1), want[i].reg);
                ck_assert_ptr_eq(rt_resolver_find(r, want[i].op, NULL, 7), want[i].reg);
        }
        ck_assert_uint_eq(rt_resolver_size(r), ARRAY_LEN(want));
        rt_resolver_free(r);
}
END_TEST

static Suite *register_suite(void) {
        Suite *s = suite_create("conv_register");
        TCase *tc = tcase_create("conv_register");
        tcase_add_test(tc, test_register_conv_family);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        SRunner *sr = srunner_create(register_suite());
        srunner_run_all(sr, CK_NORMAL);
        int failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed == 0 ? 0 : 1;
}
