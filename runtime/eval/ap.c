/* SPDX-License-Identifier: Apache-2.0 */
/* ObjectDetectionAveragePrecisionMetrics: COCO-style average precision. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "eval.h"

typedef struct ap_box {
        uint32_t image;   /* order of eval_ap_add() calls */
        uint32_t seq;     /* order of arrival within the class: ties keep it */
        float score;
        eval_box_t box;
} ap_box_t;

typedef struct ap_class {
        ap_box_t *gt, *pd;
        size_t n_gt, cap_gt, n_pd, cap_pd;
} ap_class_t;

struct eval_ap {
        float *thresholds;
        size_t n_thresholds;
        int32_t points;
        int32_t num_classes;  /* 0: any */
        ap_class_t *classes;
        size_t n_classes;
        uint32_t images;
};

void eval_ap_metrics_done(eval_ap_metrics_t *m) {
        if (!m)
                return;
        free(m->iou_thresholds);
        free(m->average_precisions);
        *m = (eval_ap_metrics_t) {};
}

eval_ap_t *eval_ap_free(eval_ap_t *ap) {
        if (!ap)
                return NULL;
        for (size_t c = 0; c < ap->n_classes; c++) {
                free(ap->classes[c].gt);
                free(ap->classes[c].pd);
        }
        free(ap->classes);
        free(ap->thresholds);
        free(ap);
        return NULL;
}

DEFINE_POINTER_CLEANUP(eval_ap_t, eval_ap_free);

int eval_ap_new(const eval_ap_params_t *p, eval_ap_t **ret) {
        _cleanup_(eval_ap_freep) eval_ap_t *ap = NULL;
        size_t n = p && p->n_iou_thresholds ? p->n_iou_thresholds : 10;

        if (!ret || (p && (p->num_classes < 0 || p->num_recall_points < 0)))
                return -EINVAL;
        if (p && p->n_iou_thresholds && !p->iou_thresholds)
                return -EINVAL;
        ap = calloc(1, sizeof(*ap));
        if (!ap)
                return -ENOMEM;
        ap->thresholds = calloc(n, sizeof(float));
        if (!ap->thresholds)
                return -ENOMEM;
        ap->n_thresholds = n;
        for (size_t i = 0; i < n; i++) {
                /* The seed's default: 0.5:0.05:0.95. */
                float t = p && p->n_iou_thresholds ? p->iou_thresholds[i] : (float) (0.5 + 0.05 * (double) i);
                if (!(t > 0.0f && t <= 1.0f))
                        return -EINVAL;
                ap->thresholds[i] = t;
        }
        ap->points = p && p->num_recall_points ? p->num_recall_points : 100;
        ap->num_classes = p ? p->num_classes : 0;
        *ret = TAKE_PTR(ap);
        return 0;
}

static int class_reserve(eval_ap_t *ap, int32_t class_id) {
        if (class_id < 0 || (ap->num_classes > 0 && class_id >= ap->num_classes))
                return -EINVAL;
        if ((size_t) class_id < ap->n_classes)
                return 0;
        size_t n = (size_t) class_id + 1;
        ap_class_t *v = realloc(ap->classes, n * sizeof(*v));
        if (!v)
                return -ENOMEM;
        memset(v + ap->n_classes, 0, (n - ap->n_classes) * sizeof(*v));
        ap->classes = v;
        ap->n_classes = n;
        return 0;
}

static int box_push(ap_box_t **v, size_t *n, size_t *cap, const ap_box_t *b) {
        if (*n == *cap) {
                size_t c = *cap ? *cap * 2 : 16;
                ap_box_t *nv = realloc(*v, c * sizeof(*nv));
                if (!nv)
                        return -ENOMEM;
                *v = nv;
                *cap = c;
        }
        (*v)[(*n)++] = *b;
        return 0;
}

int eval_ap_add(eval_ap_t *ap, const eval_od_result_t *predicted, const eval_od_result_t *ground_truth) {
        const eval_od_result_t *sets[2] = { ground_truth, predicted };
        int r;

        if (!ap || !predicted || !ground_truth)
                return -EINVAL;
        /* Check every class first, so a refused image adds nothing. */
        for (int s = 0; s < 2; s++)
                for (size_t i = 0; i < sets[s]->n_objects; i++) {
                        r = class_reserve(ap, sets[s]->objects[i].class_id);
                        if (r < 0)
                                return r;
                }
        for (int s = 0; s < 2; s++)
                for (size_t i = 0; i < sets[s]->n_objects; i++) {
                        const eval_object_t *o = &sets[s]->objects[i];
                        ap_class_t *c = &ap->classes[o->class_id];
                        ap_box_t b = { .image = ap->images, .score = o->score, .box = o->box };

                        b.seq = (uint32_t) (s == 0 ? c->n_gt : c->n_pd);
                        r = s == 0 ? box_push(&c->gt, &c->n_gt, &c->cap_gt, &b)
                                   : box_push(&c->pd, &c->n_pd, &c->cap_pd, &b);
                        if (r < 0)
                                return r;
                }
        ap->images++;
        return 0;
}

double eval_ap_from_pr(const eval_pr_t *pr, size_t n, int32_t points) {
        double sum = 0;

        if (points < 1)
                return 0;
        for (int32_t i = 0; i <= points; i++) {
                /* A recall equal to the level counts even when the two were
                 * computed with different roundings (3/6 vs 50/100). */
                double level = (double) i / points - 1e-9, best = 0;
                for (size_t k = 0; k < n; k++)
                        if (pr[k].recall >= level && pr[k].precision > best)
                                best = pr[k].precision;
                sum += best;
        }
        return sum / (points + 1);
}

static int by_score(const void *a, const void *b) {
        const ap_box_t *x = a, *y = b;
        if (x->score != y->score)
                return x->score > y->score ? -1 : 1;
        return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* First ground-truth box of `image` (boxes are in image order). */
static size_t gt_first(const ap_class_t *c, uint32_t image) {
        size_t lo = 0, hi = c->n_gt;
        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (c->gt[mid].image < image)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        return lo;
}

static int class_ap(const ap_class_t *c, const ap_box_t *sorted, float threshold, int32_t points, double *ret) {
        _cleanup_free_ bool *used = calloc(c->n_gt ? c->n_gt : 1, sizeof(bool));
        _cleanup_free_ eval_pr_t *pr = calloc(c->n_pd ? c->n_pd : 1, sizeof(eval_pr_t));
        size_t tp = 0;

        if (!used || !pr)
                return -ENOMEM;
        for (size_t k = 0; k < c->n_pd; k++) {
                const ap_box_t *p = &sorted[k];
                size_t best = SIZE_MAX;
                float best_iou = threshold;

                for (size_t g = gt_first(c, p->image); g < c->n_gt && c->gt[g].image == p->image; g++) {
                        float iou;
                        if (used[g])
                                continue;
                        iou = eval_box_iou(&p->box, &c->gt[g].box);
                        if (iou >= best_iou && (best == SIZE_MAX || iou > best_iou)) {
                                best = g;
                                best_iou = iou;
                        }
                }
                if (best != SIZE_MAX) {
                        used[best] = true;
                        tp++;
                }
                pr[k].precision = (double) tp / (double) (k + 1);
                pr[k].recall = (double) tp / (double) c->n_gt;
        }
        *ret = eval_ap_from_pr(pr, c->n_pd, points);
        return 0;
}

int eval_ap_compute(const eval_ap_t *ap, eval_ap_metrics_t *ret) {
        eval_ap_metrics_t m = { .n = ap->n_thresholds };
        _cleanup_free_ double *sums = calloc(ap->n_thresholds, sizeof(double));
        size_t counted = 0;
        int r;

        m.iou_thresholds = calloc(m.n, sizeof(float));
        m.average_precisions = calloc(m.n, sizeof(float));
        if (!sums || !m.iou_thresholds || !m.average_precisions) {
                eval_ap_metrics_done(&m);
                return -ENOMEM;
        }
        for (size_t ci = 0; ci < ap->n_classes; ci++) {
                const ap_class_t *c = &ap->classes[ci];
                _cleanup_free_ ap_box_t *sorted = NULL;

                /* COCO leaves out classes without ground truth: there is no
                 * recall to speak of. */
                if (c->n_gt == 0)
                        continue;
                sorted = malloc((c->n_pd ? c->n_pd : 1) * sizeof(*sorted));
                if (!sorted) {
                        eval_ap_metrics_done(&m);
                        return -ENOMEM;
                }
                if (c->n_pd)
                        memcpy(sorted, c->pd, c->n_pd * sizeof(*sorted));
                qsort(sorted, c->n_pd, sizeof(*sorted), by_score);
                for (size_t t = 0; t < ap->n_thresholds; t++) {
                        double a;
                        r = class_ap(c, sorted, ap->thresholds[t], ap->points, &a);
                        if (r < 0) {
                                eval_ap_metrics_done(&m);
                                return r;
                        }
                        sums[t] += a;
                }
                counted++;
        }
        double overall = 0;
        for (size_t t = 0; t < m.n; t++) {
                m.iou_thresholds[t] = ap->thresholds[t];
                m.average_precisions[t] = counted ? (float) (sums[t] / (double) counted) : 0.0f;
                overall += m.average_precisions[t];
        }
        m.overall_mean_average_precision = m.n ? (float) (overall / (double) m.n) : 0.0f;
        *ret = m;
        return 0;
}
