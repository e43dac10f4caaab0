/* SPDX-License-Identifier: Apache-2.0 */
/* Builtin op names and the options table each op carries (ops.inc). */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"

START_TEST(test_ops_names) {
        ck_assert_str_eq(rt_op_name(RT_BUILTIN_ADD), "ADD");
        ck_assert_int_eq(RT_BUILTIN_ADD, 0);
        ck_assert_str_eq(rt_op_name(3), "CONV_2D");
        ck_assert_str_eq(rt_op_name(32), "CUSTOM");
        ck_assert_str_eq(rt_op_name(44), "UNIDIRECTIONAL_SEQUENCE_LSTM");
        ck_assert_str_eq(rt_op_name(124), "DENSIFY");
        ck_assert_str_eq(rt_op_name(127), "PLACEHOLDER_FOR_GREATER_OP_CODES");
        ck_assert_str_eq(rt_op_name(135), "COMPLEX_ABS");
        ck_assert_str_eq(rt_op_name(161), "RIGHT_SHIFT");
        ck_assert_str_eq(rt_op_name(205), "REDUCE_WINDOW");
        ck_assert_str_eq(rt_op_name(206), "BUILTIN_206");
        ck_assert_str_eq(rt_op_name(-4), "BUILTIN_-4");
        ck_assert_int_eq(RT_BUILTIN_CUSTOM, RT_OP_CUSTOM);
        /* Every code below the end of the enum has a name. */
        for (int32_t c = 0; c < _RT_BUILTIN_MAX; c++)
                ck_assert_msg(strncmp(rt_op_name(c), "BUILTIN_", 8) != 0, "code %d unnamed", c);
}
END_TEST

START_TEST(test_ops_model_op_name) {
        rt_model_op_t op = { .builtin_code = RT_BUILTIN_CUSTOM, .custom_code = "TFLite_Detection_PostProcess" };
        ck_assert_str_eq(rt_model_op_name(&op), "TFLite_Detection_PostProcess");
        op = (rt_model_op_t) { .builtin_code = RT_BUILTIN_SOFTMAX };
        ck_assert_str_eq(rt_model_op_name(&op), "SOFTMAX");
}
END_TEST

START_TEST(test_ops_options_types) {
        ck_assert_int_eq(rt_op_options_type(RT_BUILTIN_CONV_2D), RT_OPTIONS_CONV_2D);
        ck_assert_int_eq(RT_OPTIONS_CONV_2D, 1);
        ck_assert_int_eq(rt_op_options_type(RT_BUILTIN_FULLY_CONNECTED), 8);
        ck_assert_int_eq(rt_op_options_type(RT_BUILTIN_STRIDED_SLICE), 32);
        ck_assert_int_eq(rt_op_options_type(RT_BUILTIN_MAX_POOL_2D), RT_OPTIONS_POOL_2D);
        ck_assert_int_eq(rt_op_options_type(RT_BUILTIN_MEAN), RT_OPTIONS_REDUCER);
        ck_assert_int_eq(rt_op_options_type(RT_BUILTIN_REDUCE_MAX), RT_OPTIONS_REDUCER);
        ck_assert_int_eq(rt_op_options_type(RT_BUILTIN_UNIDIRECTIONAL_SEQUENCE_LSTM), 71);
        ck_assert_int_eq(rt_op_options_type(RT_BUILTIN_DEPTH_TO_SPACE), 94);
        ck_assert_int_eq(rt_op_options_type(RT_BUILTIN_BATCH_MATMUL), 101);
        ck_assert_int_eq(rt_op_options_type(RT_BUILTIN_UNSORTED_SEGMENT_SUM), 121);
        ck_assert_int_eq(rt_op_options_type(RT_BUILTIN_RIGHT_SHIFT), 126);
        ck_assert_int_eq(rt_op_options_type(RT_BUILTIN_LOGISTIC), RT_OPTIONS_NONE);
        ck_assert_int_eq(rt_op_options_type(RT_BUILTIN_CUSTOM), RT_OPTIONS_NONE);
        ck_assert_int_eq(rt_op_options_type(RT_BUILTIN_STABLEHLO_ADD), RT_OPTIONS_ANY);
        ck_assert_int_eq(rt_op_options_type(999), RT_OPTIONS_ANY);
        ck_assert_int_eq(_RT_OPTIONS_MAX, 127);
        ck_assert_str_eq(rt_options_type_name(RT_OPTIONS_STRIDED_SLICE), "StridedSliceOptions");
        ck_assert_str_eq(rt_options_type_name(0), "NONE");
        ck_assert_str_eq(rt_options_type_name(126), "RightShiftOptions");
        ck_assert_str_eq(rt_options_type_name(127), "BuiltinOptions_127");
}
END_TEST

int main(void) {
        Suite *s = suite_create("reader-ops");
        TCase *tc = tcase_create("ops");
        tcase_add_test(tc, test_ops_names);
        tcase_add_test(tc, test_ops_model_op_name);
        tcase_add_test(tc, test_ops_options_types);
        suite_add_tcase(s, tc);
        SRunner *sr = srunner_create(s);
        srunner_run_all(sr, CK_NORMAL);
        int failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
