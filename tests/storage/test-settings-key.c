/* SPDX-License-Identifier: Apache-2.0 */
/* Canonical settings keys: deterministic, only set fields, field-number order. */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "acceleration.pb-c.h"
#include "storage.h"

static char *key_of(const Tflite__Proto__TFLiteSettings *s) {
        char *k = NULL;
        ck_assert_int_eq(store_settings_key(s, &k), 0);
        ck_assert_ptr_nonnull(k);
        return k;
}

START_TEST(test_settings_key_unset_is_empty) {
        Tflite__Proto__TFLiteSettings s = TFLITE__PROTO__TFLITE_SETTINGS__INIT;
        char *k = key_of(&s);
        ck_assert_str_eq(k, "");
        free(k);
        k = key_of(NULL);
        ck_assert_str_eq(k, "");
        free(k);
        ck_assert_int_eq(store_settings_key(&s, NULL), -EINVAL);
}
END_TEST

START_TEST(test_settings_key_xnnpack_threads) {
        Tflite__Proto__TFLiteSettings s = TFLITE__PROTO__TFLITE_SETTINGS__INIT;
        Tflite__Proto__XNNPackSettings x = TFLITE__PROTO__XNNPACK_SETTINGS__INIT;
        s.has_delegate = 1;
        s.delegate = TFLITE__PROTO__DELEGATE__XNNPACK;
        x.has_num_threads = 1;
        x.num_threads = 2;
        s.xnnpack_settings = &x;
        char *k = key_of(&s);
        ck_assert_str_eq(k, "delegate=XNNPACK;xnnpack_settings.num_threads=2");
        free(k);
}
END_TEST

START_TEST(test_settings_key_field_number_order) {
        /* coral_settings (10) is declared before fallback_settings (9). */
        Tflite__Proto__TFLiteSettings s = TFLITE__PROTO__TFLITE_SETTINGS__INIT;
        Tflite__Proto__CoralSettings c = TFLITE__PROTO__CORAL_SETTINGS__INIT;
        Tflite__Proto__FallbackSettings f = TFLITE__PROTO__FALLBACK_SETTINGS__INIT;
        Tflite__Proto__CPUSettings cpu = TFLITE__PROTO__CPUSETTINGS__INIT;
        c.device = "usb:0;x=1";
        f.has_allow_automatic_fallback_on_execution_error = 1;
        f.allow_automatic_fallback_on_execution_error = 1;
        s.coral_settings = &c;
        s.fallback_settings = &f;
        s.cpu_settings = &cpu; /* present, nothing set */
        s.has_max_delegated_partitions = 1;
        s.max_delegated_partitions = -3;
        char *k = key_of(&s);
        ck_assert_str_eq(k, "cpu_settings={};max_delegated_partitions=-3;"
                            "fallback_settings.allow_automatic_fallback_on_execution_error=true;"
                            "coral_settings.device=usb%3A0%3Bx%3D1");
        free(k);
}
END_TEST

START_TEST(test_settings_key_repeated_and_nested) {
        Tflite__Proto__TFLiteSettings s = TFLITE__PROTO__TFLITE_SETTINGS__INIT;
        Tflite__Proto__EdgeTpuSettings e = TFLITE__PROTO__EDGE_TPU_SETTINGS__INIT;
        Tflite__Proto__EdgeTpuDeviceSpec spec = TFLITE__PROTO__EDGE_TPU_DEVICE_SPEC__INIT;
        char *paths[] = { "/dev/a", "/dev/b" };
        spec.n_device_paths = 2;
        spec.device_paths = paths;
        e.edgetpu_device_spec = &spec;
        s.edgetpu_settings = &e;
        char *k = key_of(&s);
        ck_assert_str_eq(k, "edgetpu_settings.edgetpu_device_spec.device_paths[0]=%2Fdev%2Fa;"
                            "edgetpu_settings.edgetpu_device_spec.device_paths[1]=%2Fdev%2Fb");
        free(k);
}
END_TEST

static uint8_t *pack(const Tflite__Proto__TFLiteSettings *s, size_t *n) {
        *n = tflite__proto__tflite_settings__get_packed_size(s);
        uint8_t *b = malloc(*n ? *n : 1);
        ck_assert_uint_eq(tflite__proto__tflite_settings__pack(s, b), *n);
        return b;
}

START_TEST(test_settings_key_equal_settings_equal_keys) {
        /* Same settings, one built by hand and one decoded from bytes whose
         * fields come in reverse order on the wire. */
        Tflite__Proto__TFLiteSettings s = TFLITE__PROTO__TFLITE_SETTINGS__INIT;
        Tflite__Proto__XNNPackSettings x = TFLITE__PROTO__XNNPACK_SETTINGS__INIT;
        s.has_delegate = 1;
        s.delegate = TFLITE__PROTO__DELEGATE__XNNPACK;
        x.has_num_threads = 1;
        x.num_threads = 4;
        s.xnnpack_settings = &x;
        static const uint8_t reversed[] = { 0x2a, 0x02, 0x08, 0x04, 0x08, 0x04 };
        char *a = key_of(&s), *b = NULL;
        ck_assert_int_eq(store_settings_key_from_bytes(reversed, sizeof(reversed), &b), 0);
        ck_assert_str_eq(a, b);
        size_t n;
        uint8_t *bytes = pack(&s, &n);
        char *c = NULL;
        ck_assert_int_eq(store_settings_key_from_bytes(bytes, n, &c), 0);
        ck_assert_str_eq(a, c);
        free(a);
        free(b);
        free(c);
        free(bytes);
}
END_TEST

START_TEST(test_settings_key_different_settings_differ) {
        Tflite__Proto__TFLiteSettings s = TFLITE__PROTO__TFLITE_SETTINGS__INIT;
        Tflite__Proto__XNNPackSettings x = TFLITE__PROTO__XNNPACK_SETTINGS__INIT;
        s.has_delegate = 1;
        s.delegate = TFLITE__PROTO__DELEGATE__XNNPACK;
        s.xnnpack_settings = &x;
        char *empty_sub = key_of(&s);
        x.has_num_threads = 1;
        x.num_threads = 1;
        char *one = key_of(&s);
        x.num_threads = 2;
        char *two = key_of(&s);
        s.delegate = TFLITE__PROTO__DELEGATE__NONE;
        char *none = key_of(&s);
        s.has_delegate = 0;
        char *unset = key_of(&s);
        ck_assert_str_eq(empty_sub, "delegate=XNNPACK;xnnpack_settings={}");
        ck_assert_str_ne(one, two);
        ck_assert_str_ne(one, empty_sub);
        ck_assert_str_eq(none, "delegate=NONE;xnnpack_settings.num_threads=2");
        ck_assert_str_eq(unset, "xnnpack_settings.num_threads=2");
        free(empty_sub);
        free(one);
        free(two);
        free(none);
        free(unset);
}
END_TEST

START_TEST(test_settings_key_unknown_fields) {
        /* Field 20 (varint 5) is not in our schema; it still tells settings apart. */
        static const uint8_t bytes[] = { 0x08, 0x04, 0xa0, 0x01, 0x05 };
        char *k = NULL;
        ck_assert_int_eq(store_settings_key_from_bytes(bytes, sizeof(bytes), &k), 0);
        ck_assert_str_eq(k, "delegate=XNNPACK;#20=05");
        free(k);
}
END_TEST

START_TEST(test_settings_key_bad_bytes) {
        static const uint8_t bad[] = { 0x2a, 0x09, 0x08 };
        char *k = NULL;
        ck_assert_int_eq(store_settings_key_from_bytes(bad, sizeof(bad), &k), -EBADMSG);
        ck_assert_ptr_null(k);
        ck_assert_int_eq(store_settings_key_from_bytes(NULL, 3, &k), -EINVAL);
}
END_TEST

int main(void) {
        Suite *s = suite_create("storage-settings-key");
        TCase *tc = tcase_create("settings-key");
        tcase_add_test(tc, test_settings_key_unset_is_empty);
        tcase_add_test(tc, test_settings_key_xnnpack_threads);
        tcase_add_test(tc, test_settings_key_field_number_order);
        tcase_add_test(tc, test_settings_key_repeated_and_nested);
        tcase_add_test(tc, test_settings_key_equal_settings_equal_keys);
        tcase_add_test(tc, test_settings_key_different_settings_differ);
        tcase_add_test(tc, test_settings_key_unknown_fields);
        tcase_add_test(tc, test_settings_key_bad_bytes);
        suite_add_tcase(s, tc);
        SRunner *sr = srunner_create(s);
        srunner_run_all(sr, CK_NORMAL);
        int failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed ? 1 : 0;
}
