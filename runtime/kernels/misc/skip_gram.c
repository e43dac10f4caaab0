/* SPDX-License-Identifier: Apache-2.0 */
/*
 * SKIP_GRAM: TFLite skip_gram.cc. The first string of the input is split
 * into words at whitespace (TFLite's splitter: a word that starts the
 * string keeps any leading whitespace), and the output (a 1-D string
 * tensor) lists the n-grams of ngram_size words, joined by one space, in
 * which consecutive words are at most max_skip_size words apart; with
 * include_all_ngrams every shorter gram (down to one word) is listed too.
 * The grams come in TFLite's enumeration order (depth-first over the
 * first word, then the following ones). Fewer words than ngram_size give
 * an empty output.
 *
 * String tensors use TFLite's layout: int32 count, count + 1 int32 offsets
 * from the buffer start, then the bytes. The output buffer is allocated
 * here (malloc) and handed over with alloc = RT_ALLOC_DYNAMIC.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "misc-internal.h"

#define OP "SKIP_GRAM"

static int skip_gram_parse(const rt_node_t *node, void *ret_params, rt_context_t *ctx) {
        rt_skip_gram_params_t *p = ret_params;
        (void) ctx;
        p->ngram_size = fbt_i32(node->options, 0, 0);
        p->max_skip_size = fbt_i32(node->options, 1, 0);
        p->include_all_ngrams = fbt_bool(node->options, 2, false);
        return 0;
}

static int skip_gram_prepare(rt_context_t *ctx, rt_node_t *node) {
        int r = rt_misc__check_node(ctx, node, OP, 1, 1, 1, true);
        if (r < 0)
                return r;
        const rt_skip_gram_params_t *p = node->params;
        if (rt_node_input(ctx, node, 0)->type != RT_TYPE_STRING || rt_node_output(ctx, node, 0)->type != RT_TYPE_STRING)
                return rt_ctx_error(ctx, OP ": input and output must be strings");
        if (p->ngram_size < 0 || p->ngram_size > 1024 || p->max_skip_size < 0)
                return rt_ctx_error(ctx, OP ": ngram_size %d / max_skip_size %d out of range", p->ngram_size,
                                    p->max_skip_size);
        return 0;
}

typedef struct word {
        const char *s;
        int32_t len;
} word_t;

/* A growing list of output strings. */
typedef struct grams {
        char *bytes;
        size_t n_bytes, cap_bytes;
        int32_t *ends;  /* end offset (into bytes) of each string */
        size_t n, cap;
} grams_t;

static int grams_add(grams_t *g, const word_t *words, const int32_t *stack, int32_t len) {
        size_t need = 0;
        for (int32_t i = 0; i < len; i++)
                need += (size_t) words[stack[i]].len + (i > 0);
        if (g->n_bytes + need > g->cap_bytes) {
                size_t cap = KU_MAX(g->cap_bytes * 2, g->n_bytes + need + 64);
                char *b = realloc(g->bytes, cap);
                if (!b)
                        return -ENOMEM;
                g->bytes = b;
                g->cap_bytes = cap;
        }
        if (g->n == g->cap) {
                size_t cap = g->cap ? g->cap * 2 : 16;
                int32_t *e = realloc(g->ends, cap * sizeof(*e));
                if (!e)
                        return -ENOMEM;
                g->ends = e;
                g->cap = cap;
        }
        for (int32_t i = 0; i < len; i++) {
                if (i > 0)
                        g->bytes[g->n_bytes++] = ' ';
                memcpy(g->bytes + g->n_bytes, words[stack[i]].s, (size_t) words[stack[i]].len);
                g->n_bytes += (size_t) words[stack[i]].len;
        }
        if (g->n_bytes > INT32_MAX / 2)
                return -E2BIG;
        g->ends[g->n++] = (int32_t) g->n_bytes;
        return 0;
}

static bool include_gram(const rt_skip_gram_params_t *p, int32_t size) {
        if (size <= 0)
                return false;
        return p->include_all_ngrams ? size <= p->ngram_size : size == p->ngram_size;
}

static bool step_in(const rt_skip_gram_params_t *p, const int32_t *stack, int32_t idx, int32_t n_words) {
        if (idx >= p->ngram_size || stack[idx] + 1 >= n_words)
                return false;
        return idx == 0 || stack[idx] - stack[idx - 1] <= p->max_skip_size;
}

/* Write the output tensor: [n] strings. */
static int write_output(rt_context_t *ctx, rt_node_t *node, const grams_t *g) {
        const int32_t dims[1] = { (int32_t) g->n };
        int r = rt_ctx_resize(ctx, node, 0, 1, dims);
        if (r < 0)
                return r;
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        const size_t header = 4 * (g->n + 2), total = header + g->n_bytes;
        if (total > INT32_MAX)
                return rt_ctx_error(ctx, OP ": output too large");
        uint8_t *dst = out->alloc == RT_ALLOC_DYNAMIC ? realloc(out->data, total) : malloc(total);
        if (!dst)
                return -ENOMEM;
        out->data = dst;
        out->bytes = total;
        out->alloc = RT_ALLOC_DYNAMIC;
        int32_t v = (int32_t) g->n;
        memcpy(dst, &v, 4);
        for (size_t i = 0; i <= g->n; i++) {
                v = (int32_t) header + (i == 0 ? 0 : g->ends[i - 1]);
                memcpy(dst + 4 * (i + 1), &v, 4);
        }
        if (g->n_bytes)
                memcpy(dst + header, g->bytes, g->n_bytes);
        return 0;
}

/* The first string of a TFLite string tensor. */
static int first_string(rt_context_t *ctx, const rt_tensor_t *t, const char **ret, int32_t *ret_len) {
        const uint8_t *b = t->data;
        int32_t n, start, end;
        if (!b || t->bytes < 12)
                return rt_ctx_error(ctx, OP ": input string tensor is empty or malformed");
        memcpy(&n, b, 4);
        memcpy(&start, b + 4, 4);
        memcpy(&end, b + 8, 4);
        if (n < 1 || start < 0 || end < start || (size_t) end > t->bytes)
                return rt_ctx_error(ctx, OP ": input string tensor is empty or malformed");
        *ret = (const char *) b + start;
        *ret_len = end - start;
        return 0;
}

static int skip_gram_invoke(rt_context_t *ctx, rt_node_t *node) {
        const rt_skip_gram_params_t *p = node->params;
        const char *s = NULL;
        int32_t len = 0;
        int r = first_string(ctx, rt_node_input(ctx, node, 0), &s, &len);
        if (r < 0)
                return r;
        _cleanup_free_ word_t *words = malloc(sizeof(word_t) * (size_t) (len / 2 + 2));
        _cleanup_free_ int32_t *stack = calloc((size_t) p->ngram_size + 1, sizeof(int32_t));
        if (!words || !stack)
                return -ENOMEM;
        /* TFLite's splitter, scanning from the second character. */
        int32_t n_words = 0, prev = 0;
        for (int32_t i = 1; i < len; i++) {
                if (isspace((unsigned char) s[i])) {
                        if (i > prev && !isspace((unsigned char) s[prev]))
                                words[n_words++] = (word_t) { s + prev, i - prev };
                        prev = i + 1;
                }
        }
        if (len > prev)
                words[n_words++] = (word_t) { s + prev, len - prev };
        grams_t g = { 0 };
        if (n_words >= p->ngram_size) {
                int32_t idx = 1;
                while (idx >= 0 && r == 0) {
                        if (step_in(p, stack, idx, n_words)) {
                                stack[idx]++;
                                idx++;
                                if (idx < p->ngram_size)
                                        stack[idx] = stack[idx - 1];
                        } else {
                                if (include_gram(p, idx))
                                        r = grams_add(&g, words, stack, idx);
                                idx--;
                        }
                }
        }
        if (r == 0)
                r = write_output(ctx, node, &g);
        free(g.bytes);
        free(g.ends);
        if (r == -E2BIG)
                return rt_ctx_error(ctx, OP ": output too large");
        return r;
}

const rt_registration_t rt_kernel_skip_gram = {
        .name = OP,
        .op = RT_OP_SKIP_GRAM,
        .params_size = sizeof(rt_skip_gram_params_t),
        .parse = skip_gram_parse,
        .prepare = skip_gram_prepare,
        .invoke = skip_gram_invoke,
};
