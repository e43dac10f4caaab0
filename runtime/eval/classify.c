/* SPDX-License-Identifier: Apache-2.0 */
/* ImageClassificationMetrics: TFLite's image-classification evaluation. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "cleanup.h"
#include "eval.h"
#include "image-input.h"

void eval_classify_metrics_done(eval_classify_metrics_t *m) {
        if (!m)
                return;
        free(m->topk_accuracies);
        *m = (eval_classify_metrics_t) {};
}

int eval_classify_run(eval_runner_t *r, const eval_classify_params_t *p, eval_classify_metrics_t *ret,
                      char *err, size_t err_size) {
        eval_stats_t total = {}, pre = {}, infer = {};
        eval_preprocess_t pp;
        eval_tensor_t in, out;
        int32_t k = p->k > 0 ? p->k : 5;
        int rc;

        if (!r || !p || !ret || !p->images || !p->ground_truth || !p->labels)
                return -EINVAL;
        if (p->images->n != p->ground_truth->n) {
                snprintf(err, err_size, "%zu images but %zu ground-truth labels (one per image, in sorted file "
                         "name order)", p->images->n, p->ground_truth->n);
                return -EINVAL;
        }
        if ((size_t) k > p->labels->n) {
                snprintf(err, err_size, "k %d is more than the %zu labels", k, p->labels->n);
                return -EINVAL;
        }
        rc = eval__image_input(r, p->preprocess, true, &in, &pp, err, err_size);
        if (rc < 0)
                return rc;
        _cleanup_free_ float *scores = calloc(p->labels->n, sizeof(float));
        _cleanup_free_ float *top_scores = calloc((size_t) k, sizeof(float));
        _cleanup_free_ int32_t *top = calloc((size_t) k, sizeof(int32_t));
        _cleanup_(eval_topk_done) eval_topk_t topk = {};
        if (!scores || !top || !top_scores || eval_topk_init(&topk, k) < 0)
                return -ENOMEM;

        for (size_t i = 0; i < p->images->n; i++) {
                const char *path = p->images->v[i];
                int label = eval_labels_find(p->labels, p->ground_truth->v[i]);
                uint64_t t0 = acc_now_us(), t1;

                if (label < 0) {
                        snprintf(err, err_size, "%s: ground truth '%s' is not one of the model's %zu labels",
                                 eval_path_basename(path), p->ground_truth->v[i], p->labels->n);
                        return -EINVAL;
                }
                rc = eval__image_feed(path, &pp, &in, err, err_size);
                if (rc < 0)
                        return rc;
                t1 = acc_now_us();
                eval_stats_add(&pre, (double) (t1 - t0));
                rc = eval_runner_invoke(r);
                if (rc < 0) {
                        snprintf(err, err_size, "%s: invoke: %s", eval_path_basename(path), eval_runner_last_error(r));
                        return rc;
                }
                eval_stats_add(&infer, (double) (acc_now_us() - t1));
                rc = eval_runner_output(r, 0, &out);
                if (rc < 0 || eval_tensor_count(&out) != p->labels->n) {
                        snprintf(err, err_size, "output 0 has %zu values for %zu labels",
                                 rc < 0 ? 0 : eval_tensor_count(&out), p->labels->n);
                        return -EINVAL;
                }
                for (size_t c = 0; c < p->labels->n; c++)
                        scores[c] = (float) eval_tensor_value(&out, c);
                (void) eval_topk_add(&topk, scores, p->labels->n, label);
                eval_stats_add(&total, (double) (acc_now_us() - t0));
                if (p->on_image) {
                        eval_topk_indices(scores, p->labels->n, k, top);
                        for (int32_t j = 0; j < k; j++)
                                top_scores[j] = scores[top[j]];
                        eval_classify_image_t img = {
                                .path = path, .label = label, .top = top, .scores = top_scores, .k = k,
                        };
                        p->on_image(p->user, i + 1, p->images->n, &img);
                }
        }

        eval_classify_metrics_t m = { .k = k, .num_inferences = (int32_t) p->images->n };
        m.topk_accuracies = calloc((size_t) k, sizeof(float));
        if (!m.topk_accuracies)
                return -ENOMEM;
        eval_topk_accuracies(&topk, m.topk_accuracies);
        eval_stats_latency(&total, &m.total_latency);
        eval_stats_latency(&pre, &m.pre_processing_latency);
        eval_stats_latency(&infer, &m.inference_latency);
        *ret = m;
        return 0;
}
