/* SPDX-License-Identifier: Apache-2.0 */
/* ObjectDetectionResult: boxes, IoU and TFLite_Detection_PostProcess. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "eval.h"

void eval_od_result_done(eval_od_result_t *r) {
        if (!r)
                return;
        free(r->objects);
        free(r->image_name);
        *r = (eval_od_result_t) {};
}

float eval_box_iou(const eval_box_t *a, const eval_box_t *b) {
        double aw = (double) a->right - a->left, ah = (double) a->bottom - a->top;
        double bw = (double) b->right - b->left, bh = (double) b->bottom - b->top;

        if (!(aw > 0 && ah > 0 && bw > 0 && bh > 0))
                return 0;
        double iw = fmin(a->right, b->right) - fmax(a->left, b->left);
        double ih = fmin(a->bottom, b->bottom) - fmax(a->top, b->top);
        if (iw <= 0 || ih <= 0)
                return 0;
        double inter = iw * ih;
        return (float) (inter / (aw * ah + bw * bh - inter));
}

static bool shape_is(const eval_tensor_t *t, size_t rank, const int32_t *dims) {
        if ((size_t) t->rank != rank)
                return false;
        for (size_t d = 0; d < rank; d++)
                if (dims[d] >= 0 && t->dims[d] != dims[d])
                        return false;
        return true;
}

int eval_detection_decode(const eval_tensor_t *boxes, const eval_tensor_t *classes, const eval_tensor_t *scores,
                          const eval_tensor_t *count, int32_t class_offset, eval_od_result_t *ret, char *err,
                          size_t err_size) {
        if (!boxes || !classes || !scores || !count || !ret)
                return -EINVAL;
        int32_t n = boxes->rank == 3 ? boxes->dims[1] : -1;
        if (n < 0 || !shape_is(boxes, 3, (const int32_t[]) { 1, n, 4 }) ||
            !shape_is(classes, 2, (const int32_t[]) { 1, n }) || !shape_is(scores, 2, (const int32_t[]) { 1, n }) ||
            eval_tensor_count(count) != 1) {
                snprintf(err, err_size, "outputs are not TFLite_Detection_PostProcess's boxes [1,N,4], classes "
                                        "[1,N], scores [1,N], count [1]");
                return -EINVAL;
        }
        double c = eval_tensor_value(count, 0);
        size_t m = !(c > 0) ? 0 : c > n ? (size_t) n : (size_t) c;
        eval_od_result_t r = {};
        r.objects = calloc(m ? m : 1, sizeof(*r.objects));
        if (!r.objects)
                return -ENOMEM;
        for (size_t i = 0; i < m; i++) {
                eval_object_t *o = &r.objects[i];

                o->class_id = (int32_t) eval_tensor_value(classes, i) + class_offset;
                o->score = (float) eval_tensor_value(scores, i);
                o->box.top = (float) eval_tensor_value(boxes, i * 4 + 0);
                o->box.left = (float) eval_tensor_value(boxes, i * 4 + 1);
                o->box.bottom = (float) eval_tensor_value(boxes, i * 4 + 2);
                o->box.right = (float) eval_tensor_value(boxes, i * 4 + 3);
        }
        r.n_objects = m;
        *ret = r;
        return 0;
}
