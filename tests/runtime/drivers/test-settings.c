/* SPDX-License-Identifier: Apache-2.0 */
/* TFLiteSettings JSON parsing (runtime/settings.c) and the one protobuf
 * converter, key and driver name (runtime/settings-pb.c). */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
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

/* Pack, then parse back: equal settings, equal keys. */
static void round_trip(const char *json) {
        rt_settings_t s, back;
        char err[256] = "", k1[512], k2[512];
        uint8_t *b = NULL;
        size_t n = 0;
        char *j = NULL;

        ck_assert_msg(rt_settings_parse_json(json, &s, err, sizeof(err)) == 0, "%s: %s", json, err);
        ck_assert_int_eq(rt_settings_pack(&s, &b, &n), 0);
        ck_assert_ptr_nonnull(b);
        ck_assert_int_eq(rt_settings_parse_proto(b, n, &back, err, sizeof(err)), 0);
        ck_assert_int_eq(back.delegate, s.delegate);
        ck_assert_str_eq(back.delegate_name, s.delegate_name);
        ck_assert_int_eq(back.cpu_num_threads, s.cpu_num_threads);
        ck_assert_int_eq(back.xnnpack_num_threads, s.xnnpack_num_threads);
        ck_assert_uint_eq(back.xnnpack_flags, s.xnnpack_flags);
        ck_assert_int_eq(back.max_delegated_partitions, s.max_delegated_partitions);
        ck_assert_int_eq(back.fallback_on_compilation_error, s.fallback_on_compilation_error);
        ck_assert_int_eq(back.fallback_on_execution_error, s.fallback_on_execution_error);
        ck_assert_str_eq(back.plugin_settings ? back.plugin_settings : "", s.plugin_settings ? s.plugin_settings : "");
        rt_settings_key(&s, k1, sizeof(k1));
        rt_settings_key(&back, k2, sizeof(k2));
        ck_assert_str_eq(k1, k2);
        ck_assert_str_eq(rt_settings_driver_name(&s), rt_settings_driver_name(&back));
        /* And through JSON again. */
        ck_assert_int_eq(rt_settings_to_json(&back, &j), 0);
        rt_settings_done(&back);
        ck_assert_msg(rt_settings_parse_json(j, &back, err, sizeof(err)) == 0, "%s: %s", j, err);
        rt_settings_key(&back, k2, sizeof(k2));
        ck_assert_str_eq(k1, k2);
        free(j);
        free(b);
        rt_settings_done(&back);
        rt_settings_done(&s);
}

START_TEST(test_settings_proto_round_trip) {
        round_trip("{}");
        round_trip("{\"cpu_settings\":{\"num_threads\":3}}");
        round_trip("{\"delegate\":\"XNNPACK\",\"xnnpack_settings\":{\"num_threads\":2,"
                   "\"flags\":[\"TFLITE_XNNPACK_DELEGATE_FLAG_FORCE_FP16\",\"TFLITE_XNNPACK_DELEGATE_FLAG_QS8\"]},"
                   "\"fallback_settings\":{\"allow_automatic_fallback_on_compilation_error\":true},"
                   "\"max_delegated_partitions\":2}");
        round_trip("{\"delegate\":\"faulty\",\"plugin_settings\":{\"mode\":\"hang\"},"
                   "\"fallback_settings\":{\"allow_automatic_fallback_on_execution_error\":true}}");
        round_trip("{\"delegate\":\"GPU\"}");
}
END_TEST

/* min_nodes_per_partition (ours): JSON, TFLiteSettings field 1002, the
 * instance key (appended only when set, so older keys stay) and the
 * label; the quantized-path flags name themselves in the label. */
START_TEST(test_settings_min_nodes_per_partition) {
        rt_settings_t s, back;
        Tflite__Proto__TFLiteSettings *t = NULL;
        char err[256] = "", key[512], label[96];
        char *json = NULL;

        ck_assert_int_eq(rt_settings_parse_json("{\"delegate\":\"XNNPACK\",\"xnnpack_settings\":{\"num_threads\":2,"
                                                "\"flags\":\"TFLITE_XNNPACK_DELEGATE_FLAG_QU8\"},"
                                                "\"min_nodes_per_partition\":3}",
                                                &s, err, sizeof(err)),
                         0);
        ck_assert_int_eq(s.min_nodes_per_partition, 3);
        ck_assert_int_eq(rt_settings_to_proto(&s, &t), 0);
        ck_assert_uint_eq(t->base.n_unknown_fields, 1);
        ck_assert_uint_eq(t->base.unknown_fields[0].tag, RT_SETTINGS_FIELD_MIN_NODES_PER_PARTITION);
        ck_assert_int_eq(rt_settings_from_proto(t, &back, err, sizeof(err)), 0);
        ck_assert_int_eq(back.min_nodes_per_partition, 3);
        ck_assert_uint_eq(back.xnnpack_flags, RT_XNNPACK_FLAG_QU8);
        tflite__proto__tflite_settings__free_unpacked(t, NULL);
        rt_settings_key(&back, key, sizeof(key));
        ck_assert_str_eq(key, "delegate=XNNPACK;threads=2;xnnpack_flags=2;max_partitions=0;fallback=00;plugin=;"
                              "min_nodes=3");
        rt_settings_label(&back, label, sizeof(label));
        ck_assert_str_eq(label, "xnnpack/2t/qu8/min3");
        ck_assert_int_eq(rt_settings_to_json(&back, &json), 0);
        ck_assert_msg(strstr(json, "\"min_nodes_per_partition\":3") != NULL, "%s", json);
        free(json);
        back.min_nodes_per_partition = 0;
        back.xnnpack_flags = RT_XNNPACK_FLAG_QS8 | RT_XNNPACK_FLAG_QU8;
        rt_settings_key(&back, key, sizeof(key));
        ck_assert_str_eq(key, "delegate=XNNPACK;threads=2;xnnpack_flags=3;max_partitions=0;fallback=00;plugin=");
        rt_settings_label(&back, label, sizeof(label));
        ck_assert_str_eq(label, "xnnpack/2t");
        ck_assert_int_eq(rt_settings_parse_json("{\"min_nodes_per_partition\":-1}", &back, err, sizeof(err)), -EINVAL);
        rt_settings_done(&s);
}
END_TEST

START_TEST(test_settings_proto_extensions) {
        rt_settings_t s;
        Tflite__Proto__TFLiteSettings *t = NULL;
        char err[256] = "";

        /* A plugin travels in field 1000 (its settings in 1001), XNNPACK
         * flags in XNNPackSettings field 2; the seed schema still reads the
         * rest. */
        ck_assert_int_eq(rt_settings_parse_json("{\"delegate\":\"faulty\",\"plugin_settings\":{\"mode\":\"crash\"}}", &s,
                                                err, sizeof(err)),
                         0);
        ck_assert_int_eq(rt_settings_to_proto(&s, &t), 0);
        ck_assert(!t->has_delegate);
        ck_assert_uint_eq(t->base.n_unknown_fields, 2);
        ck_assert_uint_eq(t->base.unknown_fields[0].tag, RT_SETTINGS_FIELD_PLUGIN_NAME);
        ck_assert_uint_eq(t->base.unknown_fields[1].tag, RT_SETTINGS_FIELD_PLUGIN_SETTINGS);
        rt_settings_done(&s);
        ck_assert_int_eq(rt_settings_from_proto(t, &s, err, sizeof(err)), 0);
        ck_assert_int_eq(s.delegate, RT_DELEGATE_PLUGIN);
        ck_assert_str_eq(s.delegate_name, "faulty");
        ck_assert_str_eq(s.plugin_settings, "{\"mode\":\"crash\"}");
        ck_assert_str_eq(rt_settings_driver_name(&s), "faulty");
        tflite__proto__tflite_settings__free_unpacked(t, NULL);
        rt_settings_done(&s);

        ck_assert_int_eq(rt_settings_parse_json("{\"delegate\":\"XNNPACK\",\"xnnpack_settings\":{\"num_threads\":4,"
                                                "\"force_fp16\":true,\"sparse_inference\":true}}",
                                                &s, err, sizeof(err)),
                         0);
        ck_assert_int_eq(rt_settings_to_proto(&s, &t), 0);
        ck_assert(t->has_delegate);
        ck_assert_int_eq(t->delegate, TFLITE__PROTO__DELEGATE__XNNPACK);
        ck_assert_int_eq(t->xnnpack_settings->num_threads, 4);
        ck_assert_uint_eq(t->xnnpack_settings->base.n_unknown_fields, 1);
        ck_assert_uint_eq(t->xnnpack_settings->base.unknown_fields[0].tag, RT_SETTINGS_FIELD_XNNPACK_FLAGS);
        rt_settings_done(&s);
        ck_assert_int_eq(rt_settings_from_proto(t, &s, err, sizeof(err)), 0);
        ck_assert_uint_eq(s.xnnpack_flags, RT_XNNPACK_FLAG_FORCE_FP16 | RT_XNNPACK_FLAG_SPARSE);
        ck_assert_int_eq(rt_settings_num_threads(&s, 1), 4);
        ck_assert_str_eq(rt_settings_driver_name(&s), "xnnpack");
        tflite__proto__tflite_settings__free_unpacked(t, NULL);
        rt_settings_done(&s);
}
END_TEST

START_TEST(test_settings_proto_threads_and_errors) {
        Tflite__Proto__TFLiteSettings p = TFLITE__PROTO__TFLITE_SETTINGS__INIT;
        Tflite__Proto__CPUSettings c = TFLITE__PROTO__CPUSETTINGS__INIT;
        rt_settings_t s;
        char err[256] = "";

        c.has_num_threads = 1;
        c.num_threads = 3;
        p.cpu_settings = &c;
        ck_assert_int_eq(rt_settings_from_proto(&p, &s, err, sizeof(err)), 0);
        ck_assert_int_eq(s.delegate, RT_DELEGATE_NONE);
        ck_assert_int_eq(s.cpu_num_threads, 3);
        ck_assert_int_eq(rt_settings_num_threads(&s, 1), 3);
        ck_assert_str_eq(rt_settings_driver_name(&s), "reference");
        rt_settings_done(&s);
        c.num_threads = -2;
        ck_assert_int_eq(rt_settings_from_proto(&p, &s, err, sizeof(err)), -EINVAL);
        ck_assert_str_eq(err, "num_threads: negative thread count");
        c.num_threads = 1;
        p.has_delegate = 1;
        p.delegate = (Tflite__Proto__Delegate) 42;
        ck_assert_int_eq(rt_settings_from_proto(&p, &s, err, sizeof(err)), -EINVAL);
        ck_assert_str_eq(err, "delegate: unknown value 42");
        ck_assert_int_eq(rt_settings_from_proto(NULL, &s, err, sizeof(err)), -EINVAL);
        /* No bytes: all defaults. */
        ck_assert_int_eq(rt_settings_parse_proto(NULL, 0, &s, err, sizeof(err)), 0);
        ck_assert_int_eq(s.delegate, RT_DELEGATE_NONE);
}
END_TEST

START_TEST(test_settings_key_format) {
        rt_settings_t s;
        char err[256] = "", key[512];

        /* The format existing databases store (cache records, evaluations):
         * it must never change. */
        ck_assert_int_eq(rt_settings_parse_json("{\"cpu_settings\":{\"num_threads\":4}}", &s, err, sizeof(err)), 0);
        rt_settings_key(&s, key, sizeof(key));
        ck_assert_str_eq(key, "delegate=NONE;threads=1;xnnpack_flags=0;max_partitions=0;fallback=00;plugin=");
        rt_settings_done(&s);
        ck_assert_int_eq(rt_settings_parse_json("{\"delegate\":\"XNNPACK\",\"xnnpack_settings\":{\"num_threads\":2,"
                                                "\"force_fp16\":true},\"fallback_settings\":"
                                                "{\"allow_automatic_fallback_on_compilation_error\":true}}",
                                                &s, err, sizeof(err)),
                         0);
        rt_settings_key(&s, key, sizeof(key));
        ck_assert_str_eq(key, "delegate=XNNPACK;threads=2;xnnpack_flags=4;max_partitions=0;fallback=10;plugin=");
        rt_settings_label(&s, key, sizeof(key));
        ck_assert_str_eq(key, "xnnpack/2t/fp16");
        rt_settings_done(&s);
        ck_assert_int_eq(rt_settings_parse_json("{\"delegate\":\"faulty\",\"plugin_settings\":{\"mode\":\"hang\"}}", &s,
                                                err, sizeof(err)),
                         0);
        rt_settings_key(&s, key, sizeof(key));
        ck_assert_str_eq(key, "delegate=faulty;threads=1;xnnpack_flags=0;max_partitions=0;fallback=00;"
                              "plugin={\"mode\":\"hang\"}");
        rt_settings_done(&s);
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
        tcase_add_test(tc, test_settings_proto_round_trip);
        tcase_add_test(tc, test_settings_proto_extensions);
        tcase_add_test(tc, test_settings_min_nodes_per_partition);
        tcase_add_test(tc, test_settings_proto_threads_and_errors);
        tcase_add_test(tc, test_settings_key_format);
        suite_add_tcase(s, tc);
        SRunner *sr = srunner_create(s);
        srunner_run_all(sr, CK_NORMAL);
        int failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed ? 1 : 0;
}
