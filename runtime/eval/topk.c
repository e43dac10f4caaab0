/* SPDX-License-Identifier: Apache-2.0 */
/* TopkAccuracyEvalMetrics: how often the label is within the top K. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "eval.h"

int eval_topk_init(eval_topk_t *t, int32_t k) {
        if (!t || k < 1 || k > 1000000)
                return -EINVAL;
        uint64_t *hits = calloc((size_t) k, sizeof(*hits));
        if (!hits)
                return -ENOMEM;
        *t = (eval_topk_t) { .k = k, .hits = hits };
        return 0;
}

void eval_topk_done(eval_topk_t *t) {
        if (!t)
                return;
        free(t->hits);
        *t = (eval_topk_t) {};
}

/* Whether score index a ranks above b: higher score, then lower index. */
static bool ranks_above(const float *scores, int32_t a, int32_t b) {
        return scores[a] > scores[b] || (scores[a] == scores[b] && a < b);
}

void eval_topk_indices(const float *scores, size_t n, int32_t k, int32_t *ret) {
        int32_t kept = 0;

        /* Insertion into a sorted window of k: O(n k), and k is small. */
        for (size_t i = 0; i < n; i++) {
                int32_t idx = (int32_t) i, pos = kept;

                if (kept == k && !ranks_above(scores, idx, ret[k - 1]))
                        continue;
                if (kept < k)
                        kept++;
                else
                        pos = k - 1;
                while (pos > 0 && ranks_above(scores, idx, ret[pos - 1])) {
                        ret[pos] = ret[pos - 1];
                        pos--;
                }
                ret[pos] = idx;
        }
}

int eval_topk_add(eval_topk_t *t, const float *scores, size_t n, int32_t label) {
        if ((size_t) t->k > n || label < 0 || (size_t) label >= n)
                return -EINVAL;
        /* The label's rank is the number of entries ranked above it. */
        size_t rank = 0;
        for (size_t i = 0; i < n && rank < (size_t) t->k; i++)
                if ((int32_t) i != label && ranks_above(scores, (int32_t) i, label))
                        rank++;
        for (size_t i = rank; i < (size_t) t->k; i++)
                t->hits[i]++;
        t->runs++;
        return 0;
}

void eval_topk_accuracies(const eval_topk_t *t, float *ret) {
        for (int32_t i = 0; i < t->k; i++)
                ret[i] = t->runs ? (float) ((double) t->hits[i] / (double) t->runs) : 0.0f;
}
