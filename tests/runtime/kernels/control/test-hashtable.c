/* SPDX-License-Identifier: Apache-2.0 */
/* HASHTABLE, HASHTABLE_IMPORT, HASHTABLE_FIND and HASHTABLE_SIZE through
 * the interpreter, in both supported directions (int64 -> string, string ->
 * int64). */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "control-test.h"

/* Serialize n strings in TFLite's string tensor layout; *ret_size bytes,
 * caller frees. */
static uint8_t *strings_pack(const char *const *s, int32_t n, size_t *ret_size) {
        size_t size = 4 * ((size_t) n + 2);
        for (int32_t i = 0; i < n; i++)
                size += strlen(s[i]);
        uint8_t *p = malloc(size);
        ck_assert_ptr_nonnull(p);
        memcpy(p, &n, 4);
        int32_t off = 4 * (n + 2);
        for (int32_t i = 0; i < n; i++) {
                memcpy(p + 4 + 4 * i, &off, 4);
                memcpy(p + off, s[i], strlen(s[i]));
                off += (int32_t) strlen(s[i]);
        }
        memcpy(p + 4 + 4 * n, &off, 4);
        *ret_size = size;
        return p;
}

static int32_t string_const(tfb_t *b, const char *name, const char *const *s, int32_t n, int32_t rank) {
        size_t size;
        uint8_t *p = strings_pack(s, n, &size);
        int32_t t = tfb_tensor_const(b, RT_TYPE_STRING, name, rank, rank ? TFB_DIMS(n) : NULL, p, size);
        free(p);
        return t;
}

/* String i of an output string tensor must equal `want`. */
static void string_check(const rt_tensor_t *t, int32_t i, const char *want) {
        const uint8_t *p = t->data;
        ck_assert_ptr_nonnull(p);
        int32_t a, b;
        memcpy(&a, p + 4 + 4 * i, 4);
        memcpy(&b, p + 8 + 4 * i, 4);
        ck_assert_int_eq(b - a, (int32_t) strlen(want));
        ck_assert_int_eq(memcmp(p + a, want, strlen(want)), 0);
}

static void table_op(tfb_t *b, int32_t id, rt_type_t k, rt_type_t v, int32_t h) {
        tfb_option_t o[] = { TFB_OPT_I32(0, id), TFB_OPT_I8(1, k), TFB_OPT_I8(2, v) };
        ct_op(b, RT_BUILTIN_HASHTABLE, RT_OPTIONS_HASHTABLE, o, 3, NULL, 0, TFB_IDS(h), 1);
}

/* keys int64[3] -> FIND in {1: one, 2: two, 3: three} (default "?"); a
 * second IMPORT of {4: four} is ignored; SIZE. */
START_TEST(test_hashtable_int64_to_string) {
        tfb_t *b = tfb_new();
        int32_t keys = tfb_tensor(b, RT_TYPE_INT64, "keys", 1, TFB_DIMS(3));
        int32_t h = tfb_tensor(b, RT_TYPE_RESOURCE, "h", 1, TFB_DIMS(1));
        const int64_t kv[3] = { 1, 2, 3 }, k4[1] = { 4 };
        int32_t ik = tfb_tensor_const(b, RT_TYPE_INT64, "ik", 1, TFB_DIMS(3), kv, sizeof(kv));
        int32_t iv = string_const(b, "iv", (const char *const[]) { "one", "two", "three" }, 3, 1);
        int32_t ik4 = tfb_tensor_const(b, RT_TYPE_INT64, "ik4", 1, TFB_DIMS(1), k4, sizeof(k4));
        int32_t iv4 = string_const(b, "iv4", (const char *const[]) { "four" }, 1, 1);
        int32_t def = string_const(b, "def", (const char *const[]) { "?" }, 1, 0);
        int32_t out = tfb_tensor(b, RT_TYPE_STRING, "out", 1, TFB_DIMS(3));
        int32_t size = tfb_tensor(b, RT_TYPE_INT64, "size", 1, TFB_DIMS(1));
        table_op(b, 5, RT_TYPE_INT64, RT_TYPE_STRING, h);
        ct_op(b, RT_BUILTIN_HASHTABLE_IMPORT, RT_OPTIONS_HASHTABLE_IMPORT, NULL, 0, TFB_IDS(h, ik, iv), 3,
              NULL, 0);
        ct_op(b, RT_BUILTIN_HASHTABLE_IMPORT, RT_OPTIONS_HASHTABLE_IMPORT, NULL, 0, TFB_IDS(h, ik4, iv4), 3,
              NULL, 0);
        ct_op(b, RT_BUILTIN_HASHTABLE_FIND, RT_OPTIONS_HASHTABLE_FIND, NULL, 0, TFB_IDS(h, keys, def), 3,
              TFB_IDS(out), 1);
        ct_op(b, RT_BUILTIN_HASHTABLE_SIZE, RT_OPTIONS_HASHTABLE_SIZE, NULL, 0, TFB_IDS(h), 1, TFB_IDS(size),
              1);
        ck_assert_int_eq(tfb_io(b, TFB_IDS(keys), 1, TFB_IDS(out, size), 2), 0);
        ct_model_t m;
        ck_assert_msg(ct_load(&m, b) == 0, "%s", m.err);
        ck_assert_msg(rt_interp_allocate_tensors(m.it) == 0, "%s", rt_interp_last_error(m.it));
        for (int run = 0; run < 2; run++) {
                const int64_t q[3] = { 3, 4, 1 };
                ck_assert_int_eq(rt_interp_copy_in(m.it, 0, q, sizeof(q)), 0);
                ck_assert_msg(rt_interp_invoke(m.it) == 0, "%s", rt_interp_last_error(m.it));
                const rt_tensor_t *o = rt_interp_output_tensor(m.it, 0);
                ck_assert_int_eq(o->rank, 1);
                ck_assert_int_eq(o->dims[0], 3);
                string_check(o, 0, "three");
                string_check(o, 1, "?");
                string_check(o, 2, "one");
                int64_t n;
                ck_assert_int_eq(rt_interp_copy_out(m.it, 1, &n, sizeof(n)), 0);
                ck_assert_int_eq(n, 3);
        }
        ct_done(&m);
}
END_TEST

/* keys string[2] -> FIND in {a: 10, bb: 20} (default -1). */
START_TEST(test_hashtable_string_to_int64) {
        tfb_t *b = tfb_new();
        int32_t keys = tfb_tensor(b, RT_TYPE_STRING, "keys", 1, TFB_DIMS(2));
        int32_t h = tfb_tensor(b, RT_TYPE_RESOURCE, "h", 0, NULL);
        const int64_t vals[2] = { 10, 20 }, dflt = -1;
        int32_t ik = string_const(b, "ik", (const char *const[]) { "a", "bb" }, 2, 1);
        int32_t iv = tfb_tensor_const(b, RT_TYPE_INT64, "iv", 1, TFB_DIMS(2), vals, sizeof(vals));
        int32_t def = tfb_tensor_const(b, RT_TYPE_INT64, "def", 0, NULL, &dflt, sizeof(dflt));
        int32_t out = tfb_tensor(b, RT_TYPE_INT64, "out", 1, TFB_DIMS(2));
        table_op(b, 9, RT_TYPE_STRING, RT_TYPE_INT64, h);
        ct_op(b, RT_BUILTIN_HASHTABLE_IMPORT, RT_OPTIONS_HASHTABLE_IMPORT, NULL, 0, TFB_IDS(h, ik, iv), 3,
              NULL, 0);
        ct_op(b, RT_BUILTIN_HASHTABLE_FIND, RT_OPTIONS_HASHTABLE_FIND, NULL, 0, TFB_IDS(h, keys, def), 3,
              TFB_IDS(out), 1);
        ck_assert_int_eq(tfb_io(b, TFB_IDS(keys), 1, TFB_IDS(out), 1), 0);
        ct_model_t m;
        ck_assert_msg(ct_load(&m, b) == 0, "%s", m.err);
        ck_assert_int_eq(rt_interp_allocate_tensors(m.it), 0);
        size_t size;
        uint8_t *q = strings_pack((const char *const[]) { "bb", "b" }, 2, &size);
        ck_assert_int_eq(rt_interp_copy_in(m.it, 0, q, size), 0);
        free(q);
        ck_assert_msg(rt_interp_invoke(m.it) == 0, "%s", rt_interp_last_error(m.it));
        int64_t y[2];
        ck_assert_int_eq(rt_interp_copy_out(m.it, 0, y, sizeof(y)), 0);
        ck_assert_int_eq(y[0], 20);
        ck_assert_int_eq(y[1], -1);
        ct_done(&m);
}
END_TEST

/* int64 -> int64 is not a TFLite hashtable: refused at allocate. */
START_TEST(test_hashtable_rejects_unsupported_types) {
        tfb_t *b = tfb_new();
        int32_t h = tfb_tensor(b, RT_TYPE_RESOURCE, "h", 0, NULL);
        table_op(b, 1, RT_TYPE_INT64, RT_TYPE_INT64, h);
        ck_assert_int_eq(tfb_io(b, NULL, 0, TFB_IDS(h), 1), 0);
        ct_model_t m;
        ck_assert_int_eq(ct_load(&m, b), 0);
        ck_assert_int_eq(rt_interp_allocate_tensors(m.it), -ENOTSUP);
        ck_assert_msg(strstr(rt_interp_last_error(m.it), "int64 keys with int64 values") != NULL, "%s",
                      rt_interp_last_error(m.it));
        ct_done(&m);
}
END_TEST

static Suite *hashtable_suite(void) {
        Suite *s = suite_create("hashtable");
        TCase *tc = tcase_create("hashtable");
        tcase_add_test(tc, test_hashtable_int64_to_string);
        tcase_add_test(tc, test_hashtable_string_to_int64);
        tcase_add_test(tc, test_hashtable_rejects_unsupported_types);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        SRunner *sr = srunner_create(hashtable_suite());
        srunner_run_all(sr, CK_NORMAL);
        int failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed == 0 ? 0 : 1;
}
