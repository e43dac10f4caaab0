/* SPDX-License-Identifier: Apache-2.0 */
/* String tensors (TFLite's serialized layout) through the index-moving ops. */
#include "shape-test.h"

/* Serialize n strings: int32 count, n + 1 int32 offsets, bytes. */
static uint8_t *pack_strings(const char *const *s, int32_t n, size_t *ret_size) {
        size_t total = 4 * ((size_t) n + 2);
        for (int32_t i = 0; i < n; i++)
                total += strlen(s[i]);
        uint8_t *buf = malloc(total);
        int32_t pos = (int32_t) (4 * (n + 2));
        memcpy(buf, &n, 4);
        for (int32_t i = 0; i < n; i++) {
                memcpy(buf + 4 * (i + 1), &pos, 4);
                memcpy(buf + pos, s[i], strlen(s[i]));
                pos += (int32_t) strlen(s[i]);
        }
        memcpy(buf + 4 * (n + 1), &pos, 4);
        *ret_size = total;
        return buf;
}

static int32_t string_tensor(kh_t *h, int32_t rank, const int32_t *dims, const char *const *s, int32_t n) {
        int32_t t = kh_tensor(h, RT_TYPE_STRING, rank, dims, NULL);
        h->tensors[t].data = pack_strings(s, n, &h->tensors[t].bytes);
        return t;
}

/* The output must be exactly the serialization of want[0..n). */
static void assert_strings(const rt_tensor_t *t, const char *const *want, int32_t n) {
        size_t size;
        uint8_t *exp = pack_strings(want, n, &size);
        ck_assert_uint_eq(t->bytes, size);
        ck_assert_mem_eq(t->data, exp, size);
        free(exp);
}

/* String buffers are not the harness's to free. */
static void done(kh_t *h, int32_t in, int32_t out) {
        free(h->tensors[in].data);
        h->tensors[in].data = NULL;
        free(h->tensors[out].data);
        h->tensors[out].data = NULL;
        kh_done(h);
}

static const char *const abc[] = { "a", "bc", "def" };

START_TEST(test_strings_gather) {
        kh_t h;
        kh_init(&h);
        int32_t in = string_tensor(&h, 1, I32(3), abc, 3);
        int32_t idx = kh_tensor(&h, RT_TYPE_INT32, 1, I32(3), I32(2, 0, 2));
        int32_t out = kh_tensor(&h, RT_TYPE_STRING, 0, NULL, NULL);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_gather, NULL, I32(in, idx), 2, I32(out), 1), 0);
        st_assert_dims(&h.tensors[out], 1, I32(3));
        assert_strings(&h.tensors[out], (const char *const[]){ "def", "a", "def" }, 3);
        done(&h, in, out);
}
END_TEST

START_TEST(test_strings_gather_nd) {
        kh_t h;
        kh_init(&h);
        int32_t in = string_tensor(&h, 2, I32(2, 2), (const char *const[]){ "p", "q", "rs", "" }, 4);
        int32_t idx = kh_tensor(&h, RT_TYPE_INT32, 2, I32(2, 1), I32(1, 0));
        int32_t out = kh_tensor(&h, RT_TYPE_STRING, 0, NULL, NULL);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_gather_nd, NULL, I32(in, idx), 2, I32(out), 1), 0);
        st_assert_dims(&h.tensors[out], 2, I32(2, 2));
        assert_strings(&h.tensors[out], (const char *const[]){ "rs", "", "p", "q" }, 4);
        done(&h, in, out);
}
END_TEST

START_TEST(test_strings_strided_slice_reverse) {
        kh_t h;
        kh_init(&h);
        int32_t in = string_tensor(&h, 1, I32(3), abc, 3);
        int32_t b = kh_const(&h, RT_TYPE_INT32, 1, I32(1), I32(0));
        int32_t e = kh_const(&h, RT_TYPE_INT32, 1, I32(1), I32(0));
        int32_t s = kh_const(&h, RT_TYPE_INT32, 1, I32(1), I32(-1));
        int32_t out = kh_tensor(&h, RT_TYPE_STRING, 0, NULL, NULL);
        shape_strided_slice_params_t p = { .begin_mask = 1, .end_mask = 1 };
        ck_assert_int_eq(kh_run(&h, &rt_kernel_strided_slice, &p, I32(in, b, e, s), 4, I32(out), 1), 0);
        assert_strings(&h.tensors[out], (const char *const[]){ "def", "bc", "a" }, 3);
        done(&h, in, out);
}
END_TEST

START_TEST(test_strings_empty_slice) {
        kh_t h;
        kh_init(&h);
        int32_t in = string_tensor(&h, 1, I32(3), abc, 3);
        int32_t b = kh_const(&h, RT_TYPE_INT32, 1, I32(1), I32(1));
        int32_t s = kh_const(&h, RT_TYPE_INT32, 1, I32(1), I32(0));
        int32_t out = kh_tensor(&h, RT_TYPE_STRING, 0, NULL, NULL);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_slice, NULL, I32(in, b, s), 3, I32(out), 1), 0);
        st_assert_dims(&h.tensors[out], 1, I32(0));
        assert_strings(&h.tensors[out], NULL, 0);
        done(&h, in, out);
}
END_TEST

START_TEST(test_strings_tile) {
        kh_t h;
        kh_init(&h);
        int32_t in = string_tensor(&h, 1, I32(2), (const char *const[]){ "x", "yz" }, 2);
        int32_t m = kh_const(&h, RT_TYPE_INT32, 1, I32(1), I32(2));
        int32_t out = kh_tensor(&h, RT_TYPE_STRING, 0, NULL, NULL);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_tile, NULL, I32(in, m), 2, I32(out), 1), 0);
        assert_strings(&h.tensors[out], (const char *const[]){ "x", "yz", "x", "yz" }, 4);
        done(&h, in, out);
}
END_TEST

START_TEST(test_strings_transpose) {
        kh_t h;
        kh_init(&h);
        int32_t in = string_tensor(&h, 2, I32(2, 2), (const char *const[]){ "a", "b", "c", "d" }, 4);
        int32_t perm = kh_const(&h, RT_TYPE_INT32, 1, I32(2), I32(1, 0));
        int32_t out = kh_tensor(&h, RT_TYPE_STRING, 0, NULL, NULL);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_transpose, NULL, I32(in, perm), 2, I32(out), 1), 0);
        assert_strings(&h.tensors[out], (const char *const[]){ "a", "c", "b", "d" }, 4);
        done(&h, in, out);
}
END_TEST

START_TEST(test_strings_malformed_einval) {
        kh_t h;
        kh_init(&h);
        int32_t in = string_tensor(&h, 1, I32(3), abc, 3);
        int32_t bad = 1000;
        memcpy((uint8_t *) h.tensors[in].data + 8, &bad, 4);  /* offset of string 1 past the end */
        int32_t idx = kh_tensor(&h, RT_TYPE_INT32, 1, I32(1), I32(0));
        int32_t out = kh_tensor(&h, RT_TYPE_STRING, 0, NULL, NULL);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_gather, NULL, I32(in, idx), 2, I32(out), 1), -EINVAL);
        ck_assert_ptr_null(h.tensors[out].data);
        done(&h, in, out);
}
END_TEST

ST_MAIN("shape-strings", test_strings_gather, test_strings_gather_nd, test_strings_strided_slice_reverse,
        test_strings_empty_slice, test_strings_tile, test_strings_transpose, test_strings_malformed_einval)
