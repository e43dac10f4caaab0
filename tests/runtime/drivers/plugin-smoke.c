/* SPDX-License-Identifier: Apache-2.0 */
/*
 * plugin-smoke PLUGIN.so: load a faulty plugin built outside the tree
 * (check-abi-header.sh builds one against the installed driver ABI alone),
 * run a float32 ADD through it and compare with the reference kernels.
 * Exit 0 when it loads, takes the node and computes the same result.
 * (A Check runner without fork, so the output says what happened.)
 */
#include <stdio.h>

#include "driver.h"
#include "dtest.h"
#include "plugin.h"

static const char *plugin_path;

START_TEST(test_plugin_smoke) {
        char err[512] = "";
        const rt_driver_t *d = NULL;
        ck_assert_msg(rt_plugin_load(plugin_path, &d, err, sizeof(err)) == 0, "%s", err);
        tfb_t *b = tfb_new();
        int32_t sh[2] = { 1, 8 };
        int32_t a = tfb_tensor(b, RT_TYPE_FLOAT32, "a", 2, sh), c = tfb_tensor(b, RT_TYPE_FLOAT32, "b", 2, sh);
        int32_t out = tfb_tensor(b, RT_TYPE_FLOAT32, "out", 2, sh);
        int32_t ins[2] = { a, c };
        tfb_option_t opts[] = { TFB_OPT_I8(0, RT_ACT_NONE) };
        tfb_op_t op = { .opcode = tfb_opcode_builtin(b, RT_BUILTIN_ADD, 1), .inputs = ins, .n_inputs = 2,
                        .outputs = &out, .n_outputs = 1, .options_type = RT_OPTIONS_ADD, .options = opts,
                        .n_options = 1 };
        tfb_op_add(b, &op);
        tfb_io(b, ins, 2, &out, 1);
        size_t size;
        uint8_t *buf = tfb_finish(b, &size);
        tfb_free(b);

        rt_settings_t s;
        rt_settings_init(&s);
        s.delegate = RT_DELEGATE_PLUGIN;
        snprintf(s.delegate_name, sizeof(s.delegate_name), "%s", d->name);
        dt_result_t ref, f;
        dt_run(buf, size, NULL, &ref);
        dt_run(buf, size, &s, &f);
        ck_assert_msg(f.create_err == 0 && f.alloc_err == 0 && f.invoke_err == 0, "%s", f.err);
        ck_assert_str_eq(f.parts, "faulty:1");
        dt_assert_close(&f, &ref, 0, 0, 0);
        printf("ok: %s (driver ABI %u) loaded and ran ADD as the reference kernels do\n", d->name, d->abi_version);
        dt_result_done(&f);
        dt_result_done(&ref);
        rt_settings_done(&s);
        free(buf);
}
END_TEST

int main(int argc, char **argv) {
        if (argc != 2) {
                fprintf(stderr, "usage: plugin-smoke PLUGIN.so\n");
                return 2;
        }
        plugin_path = argv[1];
        Suite *s = suite_create("plugin-smoke");
        TCase *tc = tcase_create("plugin-smoke");
        tcase_add_test(tc, test_plugin_smoke);
        suite_add_tcase(s, tc);
        SRunner *sr = srunner_create(s);
        srunner_set_fork_status(sr, CK_NOFORK);
        srunner_run_all(sr, CK_NORMAL);
        int failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed ? 1 : 0;
}
