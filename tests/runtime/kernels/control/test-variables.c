/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Resource variables (VAR_HANDLE, ASSIGN_VARIABLE, READ_VARIABLE) through
 * the interpreter: state kept across invokes and shared between subgraphs;
 * plus the kernels' behaviour in a context without multi-subgraph hooks.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "control-test.h"
#include "control/control.h"
#include "kharness.h"

/*
 * Subgraph 0: y = IF(write, x). then (1): ASSIGN_VARIABLE(VAR_HANDLE
 * "state", a) and return a; else (2): return READ_VARIABLE(VAR_HANDLE
 * "state"). Both branches name the same variable.
 */
static tfb_t *state_model(void) {
        tfb_t *b = tfb_new();
        int32_t w = tfb_tensor(b, RT_TYPE_BOOL, "write", 0, NULL);
        int32_t x = tfb_tensor(b, RT_TYPE_FLOAT32, "x", 1, TFB_DIMS(2));
        int32_t y = tfb_tensor(b, RT_TYPE_FLOAT32, "y", 1, TFB_DIMS(2));
        tfb_option_t o[] = { TFB_OPT_I32(0, 1), TFB_OPT_I32(1, 2) };
        ct_op(b, RT_BUILTIN_IF, RT_OPTIONS_IF, o, 2, TFB_IDS(w, x), 2, TFB_IDS(y), 1);
        ck_assert_int_eq(tfb_io(b, TFB_IDS(w, x), 2, TFB_IDS(y), 1), 0);
        tfb_option_t name[] = { TFB_OPT_STRING(0, "box"), TFB_OPT_STRING(1, "state") };

        ck_assert_int_eq(tfb_subgraph_add(b, "write"), 1);
        int32_t a = tfb_tensor(b, RT_TYPE_FLOAT32, "a", 1, TFB_DIMS(2));
        int32_t h = tfb_tensor(b, RT_TYPE_RESOURCE, "h", 0, NULL);
        ct_op(b, RT_BUILTIN_VAR_HANDLE, RT_OPTIONS_VAR_HANDLE, name, 2, NULL, 0, TFB_IDS(h), 1);
        ct_op(b, RT_BUILTIN_ASSIGN_VARIABLE, RT_OPTIONS_ASSIGN_VARIABLE, NULL, 0, TFB_IDS(h, a), 2, NULL, 0);
        ck_assert_int_eq(tfb_io(b, TFB_IDS(a), 1, TFB_IDS(a), 1), 0);

        ck_assert_int_eq(tfb_subgraph_add(b, "read"), 2);
        a = tfb_tensor(b, RT_TYPE_FLOAT32, "a", 1, TFB_DIMS(2));
        h = tfb_tensor(b, RT_TYPE_RESOURCE, "h", 0, NULL);
        int32_t v = tfb_tensor(b, RT_TYPE_FLOAT32, "v", 1, TFB_DIMS(2));
        ct_op(b, RT_BUILTIN_VAR_HANDLE, RT_OPTIONS_VAR_HANDLE, name, 2, NULL, 0, TFB_IDS(h), 1);
        ct_op(b, RT_BUILTIN_READ_VARIABLE, RT_OPTIONS_READ_VARIABLE, NULL, 0, TFB_IDS(h), 1, TFB_IDS(v), 1);
        ck_assert_int_eq(tfb_io(b, TFB_IDS(a), 1, TFB_IDS(v), 1), 0);
        tfb_subgraph_select(b, 0);
        return b;
}

static int run_state(rt_interp_t *it, bool write, const float *x, int32_t n, float *ret_y) {
        const uint8_t w = write;
        if (rt_interp_input_tensor(it, 1)->dims[0] != n) {
                ck_assert_int_eq(rt_interp_resize_input(it, 1, 1, (int32_t[]) { n }), 0);
                ck_assert_msg(rt_interp_allocate_tensors(it) == 0, "%s", rt_interp_last_error(it));
        }
        ck_assert_int_eq(rt_interp_copy_in(it, 0, &w, 1), 0);
        ck_assert_int_eq(rt_interp_copy_in(it, 1, x, sizeof(float) * (size_t) n), 0);
        int r = rt_interp_invoke(it);
        if (r < 0)
                return r;
        const rt_tensor_t *t = rt_interp_output_tensor(it, 0);
        ck_assert_int_eq(t->rank, 1);
        ck_assert_int_eq(rt_interp_copy_out(it, 0, ret_y, sizeof(float) * (size_t) t->dims[0]), 0);
        return t->dims[0];
}

/* Written in invoke 1, read back in invoke 2 (and 3) by another subgraph. */
START_TEST(test_variable_persists_across_invokes) {
        ct_model_t m;
        ck_assert_msg(ct_load(&m, state_model()) == 0, "%s", m.err);
        ck_assert_int_eq(rt_interp_allocate_tensors(m.it), 0);
        const float x1[2] = { 1.5f, -2 }, junk[2] = { 9, 9 };
        float y[4];
        ck_assert_int_eq(run_state(m.it, true, x1, 2, y), 2);
        ck_assert_int_eq(run_state(m.it, false, junk, 2, y), 2);
        ck_assert_float_eq(y[0], 1.5f);
        ck_assert_float_eq(y[1], -2);
        ck_assert_int_eq(run_state(m.it, false, junk, 2, y), 2);
        ck_assert_float_eq(y[0], 1.5f);
        ct_done(&m);
}
END_TEST

/* A variable takes the shape of what is assigned: after resizing x to 3
 * and writing, a read gives 3 values even with x back at 2. */
START_TEST(test_variable_changes_shape) {
        ct_model_t m;
        ck_assert_int_eq(ct_load(&m, state_model()), 0);
        ck_assert_int_eq(rt_interp_allocate_tensors(m.it), 0);
        const float x3[3] = { 4, 5, 6 }, junk[2] = { 0, 0 };
        float y[4];
        ck_assert_int_eq(run_state(m.it, true, x3, 3, y), 3);
        ck_assert_int_eq(run_state(m.it, false, junk, 2, y), 3);
        ck_assert_float_eq(y[0], 4);
        ck_assert_float_eq(y[1], 5);
        ck_assert_float_eq(y[2], 6);
        ct_done(&m);
}
END_TEST

/* Reading before any assignment fails the invoke with a message; each
 * interpreter has its own variables. */
START_TEST(test_variable_read_before_assign) {
        ct_model_t m;
        ck_assert_int_eq(ct_load(&m, state_model()), 0);
        ck_assert_int_eq(rt_interp_allocate_tensors(m.it), 0);
        const float x[2] = { 1, 2 };
        float y[2];
        ck_assert_int_eq(run_state(m.it, false, x, 2, y), -EINVAL);
        ck_assert_msg(strstr(rt_interp_last_error(m.it), "read before any assignment") != NULL, "%s",
                      rt_interp_last_error(m.it));
        /* Another interpreter's writes are not visible here. */
        rt_interp_t *it2 = NULL;
        char err[256];
        ck_assert_int_eq(rt_interp_create(m.model, NULL, &it2, err, sizeof(err)), 0);
        ck_assert_int_eq(rt_interp_allocate_tensors(it2), 0);
        ck_assert_int_eq(run_state(it2, true, x, 2, y), 2);
        ck_assert_int_eq(run_state(m.it, false, x, 2, y), -EINVAL);
        ck_assert_int_eq(run_state(it2, false, (const float[]) { 0, 0 }, 2, y), 2);
        ck_assert_float_eq(y[1], 2);
        rt_interp_free(it2);
        ct_done(&m);
}
END_TEST

/* Without multi-subgraph hooks (the single-node harness) the kernels fail
 * cleanly with -ENOTSUP. */
START_TEST(test_control_without_hooks) {
        kh_t h;
        kh_init(&h);
        const uint8_t c = 1;
        const float xv[1] = { 1 };
        int32_t cond = kh_tensor(&h, RT_TYPE_BOOL, 0, NULL, &c);
        int32_t x = kh_tensor(&h, RT_TYPE_FLOAT32, 1, (int32_t[]) { 1 }, xv);
        int32_t y = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        rt_if_params_t p = { .then_subgraph = 1, .else_subgraph = 2 };
        ck_assert_int_eq(kh_run(&h, &rt_kernel_if, &p, (int32_t[]) { cond, x }, 2, (int32_t[]) { y }, 1),
                         -ENOTSUP);
        ck_assert_ptr_nonnull(strstr(h.error, "cannot run other subgraphs"));
        kh_done(&h);

        kh_init(&h);
        int32_t res = kh_tensor(&h, RT_TYPE_RESOURCE, 0, NULL, NULL);
        rt_var_handle_params_t vp = { .container = "", .shared_name = "v" };
        ck_assert_int_eq(kh_run(&h, &rt_kernel_var_handle, &vp, NULL, 0, (int32_t[]) { res }, 1), -ENOTSUP);
        kh_done(&h);
}
END_TEST

static Suite *variables_suite(void) {
        Suite *s = suite_create("variables");
        TCase *tc = tcase_create("variables");
        tcase_add_test(tc, test_variable_persists_across_invokes);
        tcase_add_test(tc, test_variable_changes_shape);
        tcase_add_test(tc, test_variable_read_before_assign);
        tcase_add_test(tc, test_control_without_hooks);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        SRunner *sr = srunner_create(variables_suite());
        srunner_run_all(sr, CK_NORMAL);
        int failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed == 0 ? 0 : 1;
}
