/* SPDX-License-Identifier: Apache-2.0 */
/* TFLiteSettings JSON parsing (runtime/settings.c). */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "acceleration.pb-c.h"
#include "settings.h"

START_TEST(test_settings_defaults) {
        rt_settings_t s;
        char err[256];
        ck_assert_int_eq(rt_settings_parse_json("{}", &s, err, sizeof(err)), 0);
        ck_assert_int_eq(s.delegate, RT_DELEGATE_NONE);
        ck_assert_int_eq(s.cpu_num_threads, -1);
        ck_assert_int_eq(s.xnnpack_num_threads, -1);
        ck_assert_int_eq(s.max_delegated_partitions, 0);
        ck_assert(!s.fallback_on_compilation_error && !s.fallback_on_execution_error);
        ck_assert_ptr_null(s.plugin_settings);
        ck_assert_str_eq(rt_settings_delegate_name(&s), "NONE");
        ck_assert_int_eq(rt_settings_num_threads(&s, 3), 3);
        rt_settings_done(&s);
}
END_TEST

START_TEST(test_settings_full) {
        const char *json = "{\"delegate\":\"XNNPACK\",\"xnnpack_settings\":{\"num_threads\":2,"
                           "\"flags\":[\"TFLITE_XNNPACK_DELEGATE_FLAG_FORCE_FP16\"]},"
                           "\"cpu_settings\":{\"num_threads\":4},\"max_delegated_partitions\":3,"
                           "\"fallback_settings\":{\"allow_automatic_fallback_on_compilation_error\":true,"
                           "\"allow_automatic_fallback_on_execution_error\":false},"
                           "\"gpu_settings\":{\"is_precision_loss_allowed\":true}}";
        rt_settings_t s;
        char err[256];
        ck_assert_int_eq(rt_settings_parse_json(json, &s, err, sizeof(err)), 0);
        ck_assert_int_eq(s.delegate, RT_DELEGATE_XNNPACK);
        ck_assert_str_eq(rt_settings_delegate_name(&s), "XNNPACK");
        ck_assert_int_eq(s.xnnpack_num_threads, 2);
        ck_assert_int_eq(s.cpu_num_threads, 4);
        ck_assert_uint_eq(s.xnnpack_flags, RT_XNNPACK_FLAG_FORCE_FP16);
        ck_assert_int_eq(s.max_delegated_partitions, 3);
        ck_assert(s.fallback_on_compilation_error);
        ck_assert(!s.fallback_on_execution_error);
        ck_assert_int_eq(rt_settings_num_threads(&s, 1), 2);
        s.delegate = RT_DELEGATE_NONE;
        ck_assert_int_eq(rt_settings_num_threads(&s, 1), 4);
        rt_settings_done(&s);
}
END_TEST

START_TEST(test_settings_plugin_delegate) {
        rt_settings_t s, c;
        char err[256];
        ck_assert_int_eq(rt_settings_parse_json("{\"delegate\":\"faulty\",\"plugin_settings\":{\"mode\":\"hang\"}}",
                                                &s, err, sizeof(err)),
                         0);
        ck_assert_int_eq(s.delegate, RT_DELEGATE_PLUGIN);
        ck_assert_str_eq(rt_settings_delegate_name(&s), "faulty");
        ck_assert_str_eq(s.plugin_settings, "{\"mode\":\"hang\"}");
        ck_assert_int_eq(rt_settings_copy(&c, &s), 0);
        ck_assert_ptr_ne(c.plugin_settings, s.plugin_settings);
        ck_assert_str_eq(c.plugin_settings, s.plugin_settings);
        rt_settings_done(&s);
        rt_settings_done(&c);
        ck_assert_int_eq(rt_settings_parse_json("{\"delegate\":2}", &s, err, sizeof(err)), 0);
        ck_assert_int_eq(s.delegate, RT_DELEGATE_GPU);
        rt_settings_done(&s);
}
END_TEST

START_TEST(test_settings_flags_forms) {
        rt_settings_t s;
        char err[256];
        ck_assert_int_eq(rt_settings_parse_json("{\"xnnpack_settings\":{\"flags\":"
                                                "\"TFLITE_XNNPACK_DELEGATE_FLAG_SPARSE_INFERENCE\"}}",
                                                &s, err, sizeof(err)),
                         0);
        ck_assert_uint_eq(s.xnnpack_flags, RT_XNNPACK_FLAG_SPARSE);
        rt_settings_done(&s);
        ck_assert_int_eq(rt_settings_parse_json("{\"xnnpack_settings\":{\"flags\":3,\"force_fp16\":true}}", &s, err,
                                                sizeof(err)),
                         0);
        ck_assert_uint_eq(s.xnnpack_flags, RT_XNNPACK_FLAG_QS8 | RT_XNNPACK_FLAG_QU8 | RT_XNNPACK_FLAG_FORCE_FP16);
        rt_settings_done(&s);
}
END_TEST

START_TEST(test_settings_errors) {
        rt_settings_t s;
        char err[256] = "";
        s.delegate = (rt_delegate_t) 77;
        ck_assert_int_eq(rt_settings_parse_json("{\"delegate\":", &s, err, sizeof(err)), -EINVAL);
        ck_assert_msg(strstr(err, "malformed JSON"), "%s", err);
        ck_assert_int_eq(s.delegate, 77); /* untouched on failure */
        ck_assert_int_eq(rt_settings_parse_json("[1]", &s, err, sizeof(err)), -EINVAL);
        ck_assert_int_eq(rt_settings_parse_json("{\"delegate\":9}", &s, err, sizeof(err)), -EINVAL);
        ck_assert_int_eq(rt_settings_parse_json("{\"delegate\":true}", &s, err, sizeof(err)), -EINVAL);
        ck_assert_int_eq(rt_settings_parse_json("{\"cpu_settings\":{\"num_threads\":\"2\"}}", &s, err, sizeof(err)),
                         -EINVAL);
        ck_assert_str_eq(err, "cpu_settings.num_threads: expected an integer");
        ck_assert_int_eq(rt_settings_parse_json("{\"xnnpack_settings\":{\"num_threads\":-5}}", &s, err, sizeof(err)),
                         -EINVAL);
        ck_assert_int_eq(rt_settings_parse_json("{\"xnnpack_settings\":{\"flags\":\"NOPE\"}}", &s, err, sizeof(err)),
                         -EINVAL);
        ck_assert_str_eq(err, "xnnpack_settings.flags: unknown flag 'NOPE'");
        ck_assert_int_eq(rt_settings_parse_json("{\"fallback_settings\":{\"allow_automatic_fallback_on_execution_error\":1}}",
                                                &s, err, sizeof(err)),
                         -EINVAL);
        ck_assert_int_eq(rt_settings_parse_json(NULL, &s, err, sizeof(err)), -EINVAL);
        ck_assert_int_eq(rt_settings_load_file("/nonexistent/settings.json", &s, err, sizeof(err)), -ENOENT);
}
END_TEST

START_TEST(test_settings_proto) {
        Tflite__Proto__TFLiteSettings p = TFLITE__PROTO__TFLITE_SETTINGS__INIT;
        Tflite__Proto__XNNPackSettings x = TFLITE__PROTO__XNNPACK_SETTINGS__INIT;
        Tflite__Proto__FallbackSettings f = TFLITE__PROTO__FALLBACK_SETTINGS__INIT;
        p.has_delegate = 1;
        p.delegate = TFLITE__PROTO__DELEGATE__XNNPACK;
        x.has_num_threads = 1;
        x.num_threads = 2;
        p.xnnpack_settings = &x;
        f.has_allow_automatic_fallback_on_execution_error = 1;
        f.allow_automatic_fallback_on_execution_error = 1;
        p.fallback_settings = &f;
        p.has_max_delegated_partitions = 1;
        p.max_delegated_partitions = 2;
        uint8_t buf[256];
        size_t n = tflite__proto__tflite_settings__pack(&p, buf);
        rt_settings_t s;
        char err[256];
        ck_assert_int_eq(rt_settings_parse_proto(buf, n, &s, err, sizeof(err)), 0);
        ck_assert_int_eq(s.delegate, RT_DELEGATE_XNNPACK);
        ck_assert_int_eq(s.xnnpack_num_threads, 2);
        ck_assert_int_eq(s.cpu_num_threads, -1);
        ck_assert_int_eq(s.max_delegated_partitions, 2);
        ck_assert(s.fallback_on_execution_error && !s.fallback_on_compilation_error);
        rt_settings_done(&s);
        uint8_t junk[3] = { 0xff, 0xff, 0xff };
        ck_assert_int_eq(rt_settings_parse_proto(junk, 3, &s, err, sizeof(err)), -EINVAL);
}
END_TEST

int main(void) {
        Suite *s = suite_create("settings");
        TCase *tc = tcase_create("settings");
        tcase_add_test(tc, test_settings_defaults);
        tcase_add_test(tc, test_settings_full);
        tcase_add_test(tc, test_settings_plugin_delegate);
        tcase_add_test(tc, test_settings_flags_forms);
        tcase_add_test(tc, test_settings_errors);
        tcase_add_test(tc, test_settings_proto);
        suite_add_tcase(s, tc);
        SRunner *sr = srunner_create(s);
        srunner_run_all(sr, CK_NORMAL);
        int failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed ? 1 : 0;
}
