/* SPDX-License-Identifier: Apache-2.0 */
/*
 * NON_MAX_SUPPRESSION_V4 and NON_MAX_SUPPRESSION_V5: TFLite
 * non_max_suppression.cc with reference NonMaxSuppression (float32).
 *
 * Inputs: boxes [n, 4] ([y1, x1, y2, x2], corners in either order), scores
 * [n], max_output_size (int32 scalar), iou_threshold and score_threshold
 * (float32 scalars) and, for V5, soft_nms_sigma (float32 scalar >= 0).
 * Outputs: selected_indices (int32 [max_output_size]), for V5
 * selected_scores (float32 [max_output_size]), and valid_outputs (int32
 * scalar). Entries past valid_outputs are zero.
 *
 * Candidates scoring above score_threshold are visited best first; one is
 * dropped when its IoU with a selected box reaches iou_threshold. With
 * sigma > 0 (Soft-NMS) overlapping candidates are down-weighted by
 * exp(-0.5 * iou^2 / sigma) and go back in the queue. As in TFLite's
 * reference (unlike TensorFlow's), a selected candidate also goes back in
 * the queue; popped again, it is suppressed by itself (IoU 1), and that
 * reinsertion shapes the order in which equal scores come out. The queue
 * reproduces std::priority_queue as libstdc++ implements it (binary heap,
 * push_heap / pop_heap on a score-only comparison), so equal scores come
 * out in the same order as in TFLite.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "misc-internal.h"

typedef struct cand {
        int32_t index;
        float score;
        int32_t suppress_begin;
} cand_t;

/* ---- libstdc++ heap algorithms on cand_t, comparison: a.score < b.score ---- */

static void heap_sift_up(cand_t *h, size_t hole, size_t top, cand_t v) {
        while (hole > top) {
                size_t parent = (hole - 1) / 2;
                if (!(h[parent].score < v.score))
                        break;
                h[hole] = h[parent];
                hole = parent;
        }
        h[hole] = v;
}

/* std::push_heap on h[0..len) whose last element is new. */
static void heap_push(cand_t *h, size_t len) {
        heap_sift_up(h, len - 1, 0, h[len - 1]);
}

/* std::__adjust_heap. */
static void heap_adjust(cand_t *h, size_t hole, size_t len, cand_t v) {
        const size_t top = hole;
        size_t child = hole;
        while (len >= 2 && child < (len - 1) / 2) {
                child = 2 * (child + 1);
                if (h[child].score < h[child - 1].score)
                        child--;
                h[hole] = h[child];
                hole = child;
        }
        if ((len & 1) == 0 && len >= 2 && child == (len - 2) / 2) {
                child = 2 * (child + 1);
                h[hole] = h[child - 1];
                hole = child - 1;
        }
        heap_sift_up(h, hole, top, v);
}

/* std::pop_heap on h[0..len): the top moves to h[len - 1]. */
static void heap_pop(cand_t *h, size_t len) {
        if (len > 1) {
                cand_t v = h[len - 1];
                h[len - 1] = h[0];
                heap_adjust(h, 0, len - 1, v);
        }
}

/* ---- IoU ---- */

/* std::min / std::max: with NaN they return their first argument, where
 * fminf / fmaxf drop the NaN (TFLite's IoU of a box with a NaN corner is
 * NaN, which neither suppresses nor keeps the candidate). */
static inline float std_min(float a, float b) {
        return b < a ? b : a;
}

static inline float std_max(float a, float b) {
        return a < b ? b : a;
}

static float iou_of(const float *boxes, int32_t i, int32_t j) {
        const float *a = boxes + (size_t) i * 4, *b = boxes + (size_t) j * 4;
        const float ay0 = std_min(a[0], a[2]), ay1 = std_max(a[0], a[2]);
        const float ax0 = std_min(a[1], a[3]), ax1 = std_max(a[1], a[3]);
        const float by0 = std_min(b[0], b[2]), by1 = std_max(b[0], b[2]);
        const float bx0 = std_min(b[1], b[3]), bx1 = std_max(b[1], b[3]);
        const float area_a = (ay1 - ay0) * (ax1 - ax0);
        const float area_b = (by1 - by0) * (bx1 - bx0);
        if (area_a <= 0.0f || area_b <= 0.0f)
                return 0.0f;
        const float iy0 = std_max(ay0, by0), iy1 = std_min(ay1, by1);
        const float ix0 = std_max(ax0, bx0), ix1 = std_min(ax1, bx1);
        const float inter = std_max(iy1 - iy0, 0.0f) * std_max(ix1 - ix0, 0.0f);
        const float uni = area_a + area_b - inter;
        if (uni == 0.0f)
                return 0.0f;
        return inter / uni;
}

/* Run NMS; selected (and scores_out when non-NULL) need max_out entries. */
static int nms_run(const float *boxes, const float *scores, int32_t n, int32_t max_out, float iou_thr,
                   float score_thr, float sigma, int32_t *selected, float *scores_out, int32_t *ret_n) {
        _cleanup_free_ cand_t *h = malloc(sizeof(cand_t) * (size_t) (n > 0 ? n : 1));
        if (!h)
                return -ENOMEM;
        size_t len = 0;
        for (int32_t i = 0; i < n; i++) {
                if (scores[i] > score_thr) {
                        h[len++] = (cand_t) { .index = i, .score = scores[i], .suppress_begin = 0 };
                        heap_push(h, len);
                }
        }
        int32_t n_sel = 0;
        const int32_t n_out = (int32_t) KU_MIN((size_t) (max_out > 0 ? max_out : 0), len);
        const float scale = sigma > 0.0f ? -0.5f / sigma : 0.0f;
        while (n_sel < n_out && len > 0) {
                heap_pop(h, len);
                cand_t c = h[--len];
                const float original = c.score;
                bool hard = false;
                for (int32_t j = n_sel - 1; j >= c.suppress_begin; j--) {
                        const float iou = iou_of(boxes, c.index, selected[j]);
                        if (iou >= iou_thr) {
                                hard = true;
                                break;
                        }
                        if (sigma > 0.0f)
                                c.score = c.score * expf(scale * iou * iou);
                        if (c.score <= score_thr)
                                break;
                }
                c.suppress_begin = n_sel;
                if (hard)
                        continue;
                if (c.score == original) {
                        selected[n_sel] = c.index;
                        if (scores_out)
                                scores_out[n_sel] = c.score;
                        n_sel++;
                }
                /* TFLite re-queues selected candidates too (no `continue`). */
                if (c.score > score_thr) {
                        h[len++] = c;
                        heap_push(h, len);
                }
        }
        *ret_n = n_sel;
        return 0;
}

/* ---- the two registrations ---- */

static bool is_v5(const rt_node_t *node) {
        return node->op == RT_OP_NON_MAX_SUPPRESSION_V5;
}

static int resize_outputs(rt_context_t *ctx, rt_node_t *node, int32_t max_out) {
        const int32_t d[1] = { max_out };
        int r = rt_ctx_resize(ctx, node, 0, 1, d);
        if (r < 0)
                return r;
        if (is_v5(node)) {
                r = rt_ctx_resize(ctx, node, 1, 1, d);
                if (r < 0)
                        return r;
        }
        return rt_misc_resize_scalar(ctx, node, is_v5(node) ? 2 : 1);
}

static int read_max_out(rt_context_t *ctx, const char *op, const rt_tensor_t *t, int32_t *ret) {
        int64_t v = 0;
        int r = rt_misc__scalar_index(ctx, op, "max_output_size", t, false, &v);
        if (r < 0)
                return r;
        if (v < 0)
                return rt_ctx_error(ctx, "%s: max_output_size %lld must be >= 0", op, (long long) v);
        *ret = (int32_t) v;
        return 0;
}

static int nms_prepare(rt_context_t *ctx, rt_node_t *node) {
        const bool v5 = is_v5(node);
        const char *op = node->reg ? node->reg->name : "NON_MAX_SUPPRESSION";
        const int32_t n_in = v5 ? 6 : 5, n_out = v5 ? 3 : 2;
        int r = rt_misc__check_node(ctx, node, op, n_in, n_in, n_out, false);
        if (r < 0)
                return r;
        rt_tensor_t *boxes = rt_node_input(ctx, node, 0);
        rt_tensor_t *scores = rt_node_input(ctx, node, 1);
        rt_tensor_t *max_out = rt_node_input(ctx, node, 2);
        if (boxes->type != RT_TYPE_FLOAT32)
                return rt_misc__unsupported(ctx, op, "boxes", boxes);
        if (boxes->rank != 2 || boxes->dims[1] != 4)
                return rt_ctx_error(ctx, "%s: boxes must be [num_boxes, 4]", op);
        if (scores->type != RT_TYPE_FLOAT32 || scores->rank != 1 || scores->dims[0] != boxes->dims[0])
                return rt_ctx_error(ctx, "%s: scores must be float32 [%d]", op, boxes->dims[0]);
        if (max_out->type != RT_TYPE_INT32 || rt_tensor_count(max_out) != 1)
                return rt_ctx_error(ctx, "%s: max_output_size must be one int32 value", op);
        for (int32_t i = 3; i < n_in; i++) {
                rt_tensor_t *t = rt_node_input(ctx, node, i);
                if (t->type != RT_TYPE_FLOAT32 || rt_tensor_count(t) != 1)
                        return rt_ctx_error(ctx, "%s: input %d must be one float32 value", op, i);
        }
        rt_tensor_t *sel = rt_node_output(ctx, node, 0);
        rt_tensor_t *valid = rt_node_output(ctx, node, n_out - 1);
        if (sel->type != RT_TYPE_INT32 || valid->type != RT_TYPE_INT32)
                return rt_ctx_error(ctx, "%s: selected_indices and valid_outputs must be int32", op);
        if (v5 && rt_node_output(ctx, node, 1)->type != RT_TYPE_FLOAT32)
                return rt_ctx_error(ctx, "%s: selected_scores must be float32", op);
        if (!rt_misc_known(max_out)) {
                for (int32_t i = 0; i < n_out - 1; i++) {
                        r = rt_misc_set_dynamic(ctx, node, i);
                        if (r < 0)
                                return r;
                }
                return rt_misc_resize_scalar(ctx, node, n_out - 1);
        }
        int32_t m = 0;
        r = read_max_out(ctx, op, max_out, &m);
        if (r < 0)
                return r;
        return resize_outputs(ctx, node, m);
}

static int nms_invoke(rt_context_t *ctx, rt_node_t *node) {
        const bool v5 = is_v5(node);
        const char *op = node->reg ? node->reg->name : "NON_MAX_SUPPRESSION";
        rt_tensor_t *boxes = rt_node_input(ctx, node, 0);
        rt_tensor_t *scores = rt_node_input(ctx, node, 1);
        int32_t m = 0;
        int r = read_max_out(ctx, op, rt_node_input(ctx, node, 2), &m);
        if (r < 0)
                return r;
        float iou_thr, score_thr, sigma = 0.0f;
        r = rt_misc__scalar_f32(ctx, op, "iou_threshold", rt_node_input(ctx, node, 3), &iou_thr);
        if (r < 0)
                return r;
        r = rt_misc__scalar_f32(ctx, op, "score_threshold", rt_node_input(ctx, node, 4), &score_thr);
        if (r < 0)
                return r;
        if (v5) {
                r = rt_misc__scalar_f32(ctx, op, "soft_nms_sigma", rt_node_input(ctx, node, 5), &sigma);
                if (r < 0)
                        return r;
                if (sigma < 0.0f)
                        return rt_ctx_error(ctx, "%s: soft_nms_sigma %g must be >= 0", op, (double) sigma);
        }
        if (!rt_misc_has_data(boxes) || !rt_misc_has_data(scores))
                return rt_ctx_error(ctx, "%s: boxes or scores have no data", op);
        if (!rt_tensor_is_const(rt_node_input(ctx, node, 2))) {
                r = resize_outputs(ctx, node, m);
                if (r < 0)
                        return r;
        }
        rt_tensor_t *sel = rt_node_output(ctx, node, 0);
        rt_tensor_t *sel_scores = v5 ? rt_node_output(ctx, node, 1) : NULL;
        rt_tensor_t *valid = rt_node_output(ctx, node, v5 ? 2 : 1);
        int32_t *si = sel->data;
        float *ss = sel_scores ? sel_scores->data : NULL;
        memset(si, 0, sizeof(int32_t) * (size_t) m);
        if (ss)
                memset(ss, 0, sizeof(float) * (size_t) m);
        int32_t n_sel = 0;
        r = nms_run(boxes->data, scores->data, boxes->dims[0], m, iou_thr, score_thr, sigma, si, ss, &n_sel);
        if (r < 0)
                return r;
        memcpy(valid->data, &n_sel, sizeof(n_sel));
        return 0;
}

const rt_registration_t rt_kernel_non_max_suppression_v4 = {
        .name = "NON_MAX_SUPPRESSION_V4",
        .op = RT_OP_NON_MAX_SUPPRESSION_V4,
        .prepare = nms_prepare,
        .invoke = nms_invoke,
};

const rt_registration_t rt_kernel_non_max_suppression_v5 = {
        .name = "NON_MAX_SUPPRESSION_V5",
        .op = RT_OP_NON_MAX_SUPPRESSION_V5,
        .prepare = nms_prepare,
        .invoke = nms_invoke,
};
