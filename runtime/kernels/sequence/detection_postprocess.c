/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Custom op TFLite_Detection_PostProcess (TFLite detection_postprocess.cc):
 * decode SSD box encodings against anchors, then non-maximum suppression,
 * either "fast" (one NMS over each box's best class) or "regular" (NMS per
 * class, then the best max_detections across classes).
 *
 * Inputs: box encodings [1, num_boxes, >= 4] (y, x, h, w), class predictions
 * [1, num_boxes, num_classes (+ background)], anchors [num_boxes, 4]; float32
 * or uint8 (dequantized). Outputs (float32): boxes [1, N, 4] (ymin, xmin,
 * ymax, xmax), classes [1, N], scores [1, N], count [1], where
 * N = max_detections * max_classes_per_detection. Unused slots are zero.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "sequence.h"
#include "stdheap.h"

typedef struct det_box {
        float ymin, xmin, ymax, xmax;
} det_box_t;

typedef struct det_data {
        int32_t boxes_id;    /* decoded boxes, num_boxes * 4 floats */
        int32_t scores_id;   /* dequantized scores (uint8 input) */
} det_data_t;

static int det_parse(const rt_node_t *node, void *ret_params, rt_context_t *ctx) {
        rt_detection_params_t *p = ret_params;
        const uint8_t *b = node->custom_options;
        size_t n = node->custom_options_size;
        int64_t iv;
        double dv;
        struct {
                const char *key;
                int32_t *dst;
                bool required;
                int32_t def;
        } ints[] = {
                { "max_detections", &p->max_detections, true, 0 },
                { "max_classes_per_detection", &p->max_classes_per_detection, true, 0 },
                { "detections_per_class", &p->detections_per_class, false, 100 },
                { "num_classes", &p->num_classes, true, 0 },
        };
        for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++) {
                int r = seq_flexmap_get_int(b, n, ints[i].key, &iv);
                if (r == -ENOENT && !ints[i].required) {
                        *ints[i].dst = ints[i].def;
                        continue;
                }
                if (r < 0)
                        return rt_ctx_error(ctx, "%s: option '%s' is %s", RT_DETECTION_POSTPROCESS_NAME,
                                            ints[i].key, r == -ENOENT ? "missing" : "malformed");
                if (iv < INT32_MIN || iv > INT32_MAX)
                        return rt_ctx_error(ctx, "%s: option '%s' is out of range", RT_DETECTION_POSTPROCESS_NAME,
                                            ints[i].key);
                *ints[i].dst = (int32_t) iv;
        }
        int r = seq_flexmap_get_int(b, n, "use_regular_nms", &iv);
        if (r < 0 && r != -ENOENT)
                return rt_ctx_error(ctx, "%s: option 'use_regular_nms' is malformed", RT_DETECTION_POSTPROCESS_NAME);
        p->use_regular_nms = r == 0 && iv != 0;
        struct {
                const char *key;
                float *dst;
        } floats[] = {
                { "nms_score_threshold", &p->nms_score_threshold },
                { "nms_iou_threshold", &p->nms_iou_threshold },
                { "y_scale", &p->y_scale },
                { "x_scale", &p->x_scale },
                { "h_scale", &p->h_scale },
                { "w_scale", &p->w_scale },
        };
        for (size_t i = 0; i < sizeof(floats) / sizeof(floats[0]); i++) {
                r = seq_flexmap_get_double(b, n, floats[i].key, &dv);
                if (r < 0)
                        return rt_ctx_error(ctx, "%s: option '%s' is %s", RT_DETECTION_POSTPROCESS_NAME,
                                            floats[i].key, r == -ENOENT ? "missing" : "malformed");
                *floats[i].dst = (float) dv;
        }
        return 0;
}

static int det_init(rt_context_t *ctx, rt_node_t *node, void **ret_data) {
        (void) ctx;
        (void) node;
        det_data_t *d = calloc(1, sizeof(*d));
        if (!d)
                return -ENOMEM;
        *ret_data = d;
        return 0;
}

static void det_free(rt_context_t *ctx, void *data) {
        (void) ctx;
        free(data);
}

static int det_prepare(rt_context_t *ctx, rt_node_t *node) {
        const char *nm = RT_DETECTION_POSTPROCESS_NAME;
        const rt_detection_params_t *p = node->params;
        det_data_t *d = node->user_data;
        if (!p || !d)
                return rt_ctx_error(ctx, "%s: missing params", nm);
        if (node->n_inputs != 3 || node->n_outputs != 4)
                return rt_ctx_error(ctx, "%s: expected 3 inputs and 4 outputs, got %d and %d", nm, node->n_inputs,
                                    node->n_outputs);
        rt_tensor_t *enc = rt_node_input(ctx, node, 0);
        rt_tensor_t *cls = rt_node_input(ctx, node, 1);
        rt_tensor_t *anc = rt_node_input(ctx, node, 2);
        if (!enc || !cls || !anc)
                return rt_ctx_error(ctx, "%s: missing input", nm);
        for (int i = 0; i < 4; i++) {
                rt_tensor_t *o = rt_node_output(ctx, node, i);
                if (!o || o->type != RT_TYPE_FLOAT32)
                        return rt_ctx_error(ctx, "%s: output %d must be float32", nm, i);
        }
        if (enc->rank != 3 || enc->dims[0] != 1 || enc->dims[2] < 4)
                return rt_ctx_error(ctx, "%s: box encodings must be [1, boxes, >=4]", nm);
        int32_t num_boxes = enc->dims[1];
        if (cls->rank != 3 || cls->dims[0] != 1 || cls->dims[1] != num_boxes)
                return rt_ctx_error(ctx, "%s: class predictions must be [1, %d, classes]", nm, num_boxes);
        if (anc->rank != 2 || anc->dims[0] != num_boxes || anc->dims[1] != 4)
                return rt_ctx_error(ctx, "%s: anchors must be [%d, 4]", nm, num_boxes);
        if (p->num_classes <= 0 || cls->dims[2] < p->num_classes || cls->dims[2] - p->num_classes > 1)
                return rt_ctx_error(ctx, "%s: %d class scores do not fit num_classes %d", nm, cls->dims[2],
                                    p->num_classes);
        if (p->max_detections < 0 || p->max_classes_per_detection <= 0)
                return rt_ctx_error(ctx, "%s: bad max_detections %d / max_classes_per_detection %d", nm,
                                    p->max_detections, p->max_classes_per_detection);
        if (p->use_regular_nms && p->detections_per_class <= 0)
                return rt_ctx_error(ctx, "%s: detections_per_class must be positive", nm);
        if (!(p->nms_iou_threshold > 0.0f && p->nms_iou_threshold <= 1.0f))
                return rt_ctx_error(ctx, "%s: nms_iou_threshold must be in (0, 1]", nm);
        bool quant = enc->type == RT_TYPE_UINT8;
        if (!(enc->type == RT_TYPE_FLOAT32 || quant) || anc->type != enc->type ||
            !(cls->type == RT_TYPE_FLOAT32 || cls->type == RT_TYPE_UINT8))
                return rt_ctx_error(ctx, "%s: inputs must be float32 or uint8 (got %s, %s, %s)", nm,
                                    rt_type_name(enc->type), rt_type_name(cls->type), rt_type_name(anc->type));
        int r = ctx->request_scratch(ctx, node, (size_t) num_boxes * sizeof(det_box_t), &d->boxes_id);
        if (r < 0)
                return r;
        r = ctx->request_scratch(ctx, node, (size_t) num_boxes * cls->dims[2] * sizeof(float), &d->scores_id);
        if (r < 0)
                return r;
        int64_t n = (int64_t) p->max_detections * p->max_classes_per_detection;
        if (n > INT32_MAX)
                return rt_ctx_error(ctx, "%s: too many detections", nm);
        int32_t nd = (int32_t) n;
        if ((r = rt_ctx_resize(ctx, node, 0, 3, (int32_t[]){ 1, nd, 4 })) < 0 ||
            (r = rt_ctx_resize(ctx, node, 1, 2, (int32_t[]){ 1, nd })) < 0 ||
            (r = rt_ctx_resize(ctx, node, 2, 2, (int32_t[]){ 1, nd })) < 0 ||
            (r = rt_ctx_resize(ctx, node, 3, 1, (int32_t[]){ 1 })) < 0)
                return r;
        return 0;
}

static float det_deq(const rt_tensor_t *t, size_t i) {
        if (t->type == RT_TYPE_UINT8)
                return ((float) ((const uint8_t *) t->data)[i] - (float) t->zero_point) * t->scale;
        return ((const float *) t->data)[i];
}

static void det_decode(const rt_detection_params_t *p, const rt_tensor_t *enc, const rt_tensor_t *anc,
                       det_box_t *boxes) {
        int32_t num_boxes = enc->dims[1], len = enc->dims[2];
        for (int32_t i = 0; i < num_boxes; i++) {
                size_t e = (size_t) i * len, a = (size_t) i * 4;
                float by = det_deq(enc, e), bx = det_deq(enc, e + 1);
                float bh = det_deq(enc, e + 2), bw = det_deq(enc, e + 3);
                float ay = det_deq(anc, a), ax = det_deq(anc, a + 1);
                float ah = det_deq(anc, a + 2), aw = det_deq(anc, a + 3);
                /* In double, rounded once to float, as TFLite decodes. */
                float yc = (float) ((double) by / p->y_scale * ah + ay);
                float xc = (float) ((double) bx / p->x_scale * aw + ax);
                float half_h = (float) (0.5 * exp((double) bh / p->h_scale) * ah);
                float half_w = (float) (0.5 * exp((double) bw / p->w_scale) * aw);
                boxes[i].ymin = yc - half_h;
                boxes[i].xmin = xc - half_w;
                boxes[i].ymax = yc + half_h;
                boxes[i].xmax = xc + half_w;
        }
}

static float det_iou(const det_box_t *a, const det_box_t *b) {
        float area_a = (a->ymax - a->ymin) * (a->xmax - a->xmin);
        float area_b = (b->ymax - b->ymin) * (b->xmax - b->xmin);
        if (area_a <= 0 || area_b <= 0)
                return 0.0f;
        float iy0 = fmaxf(a->ymin, b->ymin), ix0 = fmaxf(a->xmin, b->xmin);
        float iy1 = fminf(a->ymax, b->ymax), ix1 = fminf(a->xmax, b->xmax);
        float inter = fmaxf(iy1 - iy0, 0.0f) * fmaxf(ix1 - ix0, 0.0f);
        return inter / (area_a + area_b - inter);
}

/* Stable bottom-up merge sort of idx[0..n) by decreasing vals[idx]
 * (std::stable_sort semantics); tmp holds n entries. */
static void det_sort_desc(const float *vals, int32_t *idx, int32_t *tmp, int32_t n) {
        for (int32_t width = 1; width < n; width *= 2) {
                for (int32_t lo = 0; lo < n; lo += 2 * width) {
                        int32_t mid = lo + width < n ? lo + width : n;
                        int32_t hi = lo + 2 * width < n ? lo + 2 * width : n;
                        int32_t i = lo, j = mid, k = lo;
                        while (i < mid && j < hi)
                                tmp[k++] = vals[idx[j]] > vals[idx[i]] ? idx[j++] : idx[i++];
                        while (i < mid)
                                tmp[k++] = idx[i++];
                        while (j < hi)
                                tmp[k++] = idx[j++];
                }
                memcpy(idx, tmp, (size_t) n * sizeof(int32_t));
        }
}

/* NonMaxSuppressionSingleClassHelper: indices into `scores` (length n) of at
 * most max_det kept boxes, best first. Returns the count or -ENOMEM. */
static int32_t det_nms_single(const rt_detection_params_t *p, const det_box_t *boxes, const float *scores,
                              int32_t n, int32_t max_det, int32_t *selected) {
        size_t cap = (size_t) (n ? n : 1);
        _cleanup_free_ int32_t *keep = malloc(cap * sizeof(int32_t));
        _cleanup_free_ float *keep_scores = malloc(cap * sizeof(float));
        _cleanup_free_ int32_t *order = malloc(cap * sizeof(int32_t));
        _cleanup_free_ int32_t *tmp = malloc(cap * sizeof(int32_t));
        _cleanup_free_ uint8_t *active = malloc(cap);
        if (!keep || !keep_scores || !order || !tmp || !active)
                return -ENOMEM;
        int32_t kept = 0;
        for (int32_t i = 0; i < n; i++) {
                if (scores[i] >= p->nms_score_threshold) {
                        keep_scores[kept] = scores[i];
                        keep[kept++] = i;
                }
        }
        for (int32_t i = 0; i < kept; i++)
                order[i] = i;
        det_sort_desc(keep_scores, order, tmp, kept);
        int32_t out_size = kept < max_det ? kept : max_det;
        int32_t n_active = kept, count = 0;
        for (int32_t i = 0; i < kept; i++)
                active[i] = 1;
        for (int32_t i = 0; i < kept; i++) {
                if (n_active == 0 || count >= out_size)
                        break;
                if (!active[i])
                        continue;
                selected[count++] = keep[order[i]];
                active[i] = 0;
                n_active--;
                for (int32_t j = i + 1; j < kept; j++) {
                        if (active[j] && det_iou(&boxes[keep[order[i]]], &boxes[keep[order[j]]]) >
                                                 p->nms_iou_threshold) {
                                active[j] = 0;
                                n_active--;
                        }
                }
        }
        return count;
}

/* DecreasingPartialArgSort: the first k indices of vals[0..n) by decreasing
 * value: the first maximum for k == 1, else std::partial_sort's order
 * (equal scores come out as libstdc++'s heap leaves them, as in TFLite). */
static void det_partial_argsort(const float *vals, int32_t n, int32_t k, int32_t *idx) {
        if (k == 1) {
                int32_t best = 0;
                for (int32_t i = 1; i < n; i++)
                        if (vals[i] > vals[best])
                                best = i;
                idx[0] = best;
                return;
        }
        rt_heap_argsort_desc(vals, n, k, idx);
}

typedef struct det_out {
        float *boxes, *classes, *scores, *count;
} det_out_t;

static int det_fast(const rt_detection_params_t *p, const det_box_t *boxes, const float *scores, int32_t num_boxes,
                    int32_t n_cls_bg, det_out_t *o) {
        const int32_t num_classes = p->num_classes, label_offset = n_cls_bg - num_classes;
        const int32_t per_anchor = p->max_classes_per_detection < num_classes ? p->max_classes_per_detection
                                                                             : num_classes;
        _cleanup_free_ float *max_scores = malloc((size_t) num_boxes * sizeof(float) + 1);
        _cleanup_free_ int32_t *sorted = malloc((size_t) num_boxes * num_classes * sizeof(int32_t) + 1);
        _cleanup_free_ int32_t *selected = malloc((size_t) num_boxes * sizeof(int32_t) + 1);
        if (!max_scores || !sorted || !selected)
                return -ENOMEM;
        for (int32_t b = 0; b < num_boxes; b++) {
                const float *bs = scores + (size_t) b * n_cls_bg + label_offset;
                int32_t *ci = sorted + (size_t) b * num_classes;
                det_partial_argsort(bs, num_classes, per_anchor, ci);
                max_scores[b] = bs[ci[0]];
        }
        int32_t n_sel = det_nms_single(p, boxes, max_scores, num_boxes, p->max_detections, selected);
        if (n_sel < 0)
                return n_sel;
        for (int32_t s = 0; s < n_sel; s++) {
                int32_t bi = selected[s];
                const float *bs = scores + (size_t) bi * n_cls_bg + label_offset;
                const int32_t *ci = sorted + (size_t) bi * num_classes;
                for (int32_t c = 0; c < per_anchor; c++) {
                        size_t off = (size_t) p->max_classes_per_detection * s + c;
                        memcpy(o->boxes + off * 4, &boxes[bi], sizeof(det_box_t));
                        o->classes[off] = (float) ci[c];
                        o->scores[off] = bs[ci[c]];
                }
        }
        o->count[0] = (float) n_sel;
        return 0;
}

/* A detection in the regular path's running list: index into the class
 * predictions (anchor * classes with background + class) and its score. */
typedef struct det_pick {
        int32_t index;
        float score;
} det_pick_t;

/* TFLite's comparison when merging (a.score >= b.score): not strict, so an
 * equal score from the newer class goes first. */
static bool det_pick_first(const det_pick_t *a, const det_pick_t *b) {
        return a->score >= b->score;
}

/*
 * std::inplace_merge of l[0..mid) and l[mid..end) as libstdc++ runs it with
 * a buffer: forward from the front when the first run is not longer, else
 * backward from the end (with NaN scores the two are not the same). tmp
 * holds end entries.
 */
static void det_merge(det_pick_t *l, int32_t mid, int32_t end, det_pick_t *tmp) {
        if (mid == 0 || mid == end)
                return;
        if (mid <= end - mid) {
                memcpy(tmp, l, (size_t) mid * sizeof(*l));
                int32_t a = 0, b = mid, out = 0;
                while (a < mid && b < end)
                        l[out++] = det_pick_first(&l[b], &tmp[a]) ? l[b++] : tmp[a++];
                while (a < mid)
                        l[out++] = tmp[a++];
                return;
        }
        int32_t n2 = end - mid;
        memcpy(tmp, l + mid, (size_t) n2 * sizeof(*l));
        int32_t a = mid - 1, b = n2 - 1, out = end;
        for (;;) {
                if (det_pick_first(&tmp[b], &l[a])) {
                        l[--out] = l[a];
                        if (a == 0) {
                                while (b >= 0)
                                        l[--out] = tmp[b--];
                                return;
                        }
                        a--;
                } else {
                        l[--out] = tmp[b];
                        if (b == 0)
                                return;
                        b--;
                }
        }
}

/* Regular NMS: per class, at most min(detections_per_class,
 * max_detections) boxes by single-class NMS, merged into the running list
 * by score (ties to the newer class), which keeps the best max_detections. */
static int det_regular(const rt_detection_params_t *p, const det_box_t *boxes, const float *scores,
                       int32_t num_boxes, int32_t n_cls_bg, det_out_t *o) {
        const int32_t num_classes = p->num_classes, label_offset = n_cls_bg - num_classes;
        const int32_t max_det = p->max_detections;
        const int32_t per_class = p->detections_per_class < max_det ? p->detections_per_class : max_det;
        size_t cap = (size_t) max_det + (size_t) (per_class > 0 ? per_class : 0) + 1;
        _cleanup_free_ float *class_scores = malloc((size_t) num_boxes * sizeof(float) + 1);
        _cleanup_free_ int32_t *sel = malloc((size_t) num_boxes * sizeof(int32_t) + 1);
        _cleanup_free_ det_pick_t *list = malloc(cap * sizeof(det_pick_t));
        _cleanup_free_ det_pick_t *tmp = malloc(cap * sizeof(det_pick_t));
        if (!class_scores || !sel || !list || !tmp)
                return -ENOMEM;
        int32_t size = 0;
        for (int32_t col = 0; col < num_classes && per_class > 0; col++) {
                for (int32_t b = 0; b < num_boxes; b++)
                        class_scores[b] = scores[(size_t) b * n_cls_bg + col + label_offset];
                int32_t n_sel = det_nms_single(p, boxes, class_scores, num_boxes, per_class, sel);
                if (n_sel < 0)
                        return n_sel;
                for (int32_t s = 0; s < n_sel; s++)
                        list[size + s] = (det_pick_t) { sel[s] * n_cls_bg + col + label_offset,
                                                        class_scores[sel[s]] };
                det_merge(list, size, size + n_sel, tmp);
                size = size + n_sel < max_det ? size + n_sel : max_det;
        }
        for (int32_t i = 0; i < size; i++) {
                int32_t anchor = list[i].index / n_cls_bg;
                int32_t cls = list[i].index - anchor * n_cls_bg - label_offset;
                memcpy(o->boxes + (size_t) i * 4, &boxes[anchor], sizeof(det_box_t));
                o->classes[i] = (float) cls;
                o->scores[i] = list[i].score;
        }
        o->count[0] = (float) size;
        return 0;
}

static int det_invoke(rt_context_t *ctx, rt_node_t *node) {
        const char *nm = RT_DETECTION_POSTPROCESS_NAME;
        const rt_detection_params_t *p = node->params;
        const det_data_t *d = node->user_data;
        rt_tensor_t *enc = rt_node_input(ctx, node, 0);
        rt_tensor_t *cls = rt_node_input(ctx, node, 1);
        rt_tensor_t *anc = rt_node_input(ctx, node, 2);
        if (!enc->data || !cls->data || !anc->data)
                return rt_ctx_error(ctx, "%s: input without data", nm);
        det_out_t o;
        rt_tensor_t *outs[4];
        for (int i = 0; i < 4; i++) {
                outs[i] = rt_node_output(ctx, node, i);
                if (!outs[i]->data)
                        return rt_ctx_error(ctx, "%s: output %d has no buffer", nm, i);
                memset(outs[i]->data, 0, rt_tensor_count(outs[i]) * sizeof(float));
        }
        o.boxes = outs[0]->data;
        o.classes = outs[1]->data;
        o.scores = outs[2]->data;
        o.count = outs[3]->data;
        det_box_t *boxes = ctx->get_scratch(ctx, node, d->boxes_id);
        float *scores = ctx->get_scratch(ctx, node, d->scores_id);
        if (!boxes || !scores)
                return rt_ctx_error(ctx, "%s: scratch buffer missing", nm);
        int32_t num_boxes = enc->dims[1], n_cls_bg = cls->dims[2];
        det_decode(p, enc, anc, boxes);
        for (int32_t i = 0; i < num_boxes; i++)
                if (boxes[i].ymin > boxes[i].ymax || boxes[i].xmin > boxes[i].xmax)
                        return rt_ctx_error(ctx, "%s: decoded box %d is inverted", nm, i);
        size_t ns = (size_t) num_boxes * n_cls_bg;
        for (size_t i = 0; i < ns; i++)
                scores[i] = det_deq(cls, i);
        int r = p->use_regular_nms ? det_regular(p, boxes, scores, num_boxes, n_cls_bg, &o)
                                   : det_fast(p, boxes, scores, num_boxes, n_cls_bg, &o);
        return r;
}

const rt_registration_t rt_kernel_detection_postprocess = {
        .name = RT_DETECTION_POSTPROCESS_NAME,
        .op = RT_OP_CUSTOM,
        .params_size = sizeof(rt_detection_params_t),
        .parse = det_parse,
        .init = det_init,
        .free = det_free,
        .prepare = det_prepare,
        .invoke = det_invoke,
};
