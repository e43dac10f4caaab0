/* SPDX-License-Identifier: Apache-2.0 */
#include "misc-test.h"

/* Serialize n strings in TFLite's layout: count, n + 1 offsets, bytes. */
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

/* Run SKIP_GRAM on one sentence and compare with want[0..n). */
static void check(const char *sentence, int32_t ngram, int32_t skip, bool all, const char *const *want, int32_t n) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_STRING, 1, I32(1), NULL);
        h.tensors[in].data = pack_strings(&sentence, 1, &h.tensors[in].bytes);
        int32_t out = kh_tensor(&h, RT_TYPE_STRING, 0, NULL, NULL);
        rt_skip_gram_params_t p = { .ngram_size = ngram, .max_skip_size = skip, .include_all_ngrams = all };
        ck_assert_msg(kh_run(&h, &rt_kernel_skip_gram, &p, I32(in), 1, I32(out), 1) == 0, "%s", h.error);
        ck_assert_shape(&h.tensors[out], 1, n);
        size_t size;
        uint8_t *exp = pack_strings(want, n, &size);
        ck_assert_uint_eq(h.tensors[out].bytes, size);
        ck_assert_mem_eq(h.tensors[out].data, exp, size);
        free(exp);
        /* String buffers are not the harness's to free. */
        free(h.tensors[in].data);
        h.tensors[in].data = NULL;
        free(h.tensors[out].data);
        h.tensors[out].data = NULL;
        kh_done(&h);
}

START_TEST(test_skip_gram_bigrams) {
        const char *want[] = { "the quick", "quick brown", "brown fox" };
        check("the quick brown fox", 2, 0, false, want, 3);
}
END_TEST

START_TEST(test_skip_gram_skip_one) {
        const char *want[] = { "the quick", "the brown", "quick brown", "quick fox", "brown fox" };
        check("the quick  brown\tfox", 2, 1, false, want, 5);
}
END_TEST

START_TEST(test_skip_gram_include_all_order) {
        const char *want[] = { "the quick", "the", "quick brown", "quick", "brown fox", "brown", "fox" };
        check("the quick brown fox", 2, 0, true, want, 7);
}
END_TEST

START_TEST(test_skip_gram_too_few_words_and_errors) {
        check("alone", 2, 0, false, NULL, 0);
        /* TFLite's splitter keeps the leading space of a first word. */
        const char *want[] = { " a" };
        check(" a", 1, 0, false, want, 1);

        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_INT32, 1, I32(1), I32(0));
        int32_t out = kh_tensor(&h, RT_TYPE_STRING, 0, NULL, NULL);
        rt_skip_gram_params_t p = { .ngram_size = 2 };
        ck_assert_fails(&h, kh_run(&h, &rt_kernel_skip_gram, &p, I32(in), 1, I32(out), 1), -EINVAL, "strings");
        kh_done(&h);
}
END_TEST

MISC_TEST_MAIN("skip-gram", test_skip_gram_bigrams, test_skip_gram_skip_one, test_skip_gram_include_all_order,
               test_skip_gram_too_few_words_and_errors)
