/* SPDX-License-Identifier: Apache-2.0 */
/* ObjectDetectionMetrics: TFLite's object-detection evaluation. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "cleanup.h"
#include "eval.h"
#include "image-input.h"

void eval_detect_metrics_done(eval_detect_metrics_t *m) {
        if (!m)
                return;
        eval_ap_metrics_done(&m->average_precision);
        *m = (eval_detect_metrics_t) {};
}

DEFINE_POINTER_CLEANUP(eval_ap_t, eval_ap_free);

static int outputs_decode(eval_runner_t *r, int32_t class_offset, eval_od_result_t *ret, char *err,
                          size_t err_size) {
        eval_tensor_t t[4];

        if (eval_runner_output_count(r) < 4) {
                snprintf(err, err_size, "the model has %d outputs; TFLite_Detection_PostProcess has 4 (boxes, "
                         "classes, scores, count)", eval_runner_output_count(r));
                return -EINVAL;
        }
        for (int32_t i = 0; i < 4; i++)
                if (eval_runner_output(r, i, &t[i]) < 0) {
                        snprintf(err, err_size, "output %d is not available", i);
                        return -EIO;
                }
        return eval_detection_decode(&t[0], &t[1], &t[2], &t[3], class_offset, ret, err, err_size);
}

int eval_detect_run(eval_runner_t *r, const eval_detect_params_t *p, eval_detect_metrics_t *ret, char *err,
                    size_t err_size) {
        eval_stats_t total = {}, pre = {}, infer = {};
        _cleanup_(eval_ap_freep) eval_ap_t *ap = NULL;
        eval_preprocess_t pp;
        eval_tensor_t in;
        int rc;

        if (!r || !p || !ret || !p->images || !p->ground_truth)
                return -EINVAL;
        rc = eval_ap_new(&p->ap, &ap);
        if (rc < 0) {
                snprintf(err, err_size, "average precision parameters: %s",
                         rc == -EINVAL ? "IoU thresholds must be in (0, 1]" : strerror(-rc));
                return rc;
        }
        /* Detectors see the whole image: no centre crop by default. */
        rc = eval__image_input(r, p->preprocess, false, &in, &pp, err, err_size);
        if (rc < 0)
                return rc;
        for (size_t i = 0; i < p->images->n; i++) {
                const char *path = p->images->v[i], *name = eval_path_basename(path);
                const eval_od_result_t *gt = eval_od_ground_truth_find(p->ground_truth, name);
                _cleanup_(eval_od_result_done) eval_od_result_t pred = {};
                uint64_t t0 = acc_now_us(), t1;

                if (!gt) {
                        snprintf(err, err_size, "%s: no entry with this image_name in the ground truth", name);
                        return -ENOENT;
                }
                rc = eval__image_feed(path, &pp, &in, err, err_size);
                if (rc < 0)
                        return rc;
                t1 = acc_now_us();
                eval_stats_add(&pre, (double) (t1 - t0));
                rc = eval_runner_invoke(r);
                if (rc < 0) {
                        snprintf(err, err_size, "%s: invoke: %s", name, eval_runner_last_error(r));
                        return rc;
                }
                eval_stats_add(&infer, (double) (acc_now_us() - t1));
                char msg[256] = "";
                rc = outputs_decode(r, p->class_offset, &pred, msg, sizeof(msg));
                if (rc < 0) {
                        snprintf(err, err_size, "%s: %s", name, msg);
                        return rc;
                }
                pred.image_name = strdup(name);
                if (!pred.image_name)
                        return -ENOMEM;
                rc = eval_ap_add(ap, &pred, gt);
                if (rc < 0) {
                        snprintf(err, err_size, "%s: %s", name,
                                 rc == -EINVAL ? "a class id is not below num_classes" : strerror(-rc));
                        return rc;
                }
                eval_stats_add(&total, (double) (acc_now_us() - t0));
                if (p->on_image) {
                        eval_detect_image_t img = { .path = path, .predicted = &pred, .ground_truth = gt };
                        p->on_image(p->user, i + 1, p->images->n, &img);
                }
        }

        eval_detect_metrics_t m = { .num_inferences = (int32_t) p->images->n };
        rc = eval_ap_compute(ap, &m.average_precision);
        if (rc < 0)
                return rc;
        eval_stats_latency(&total, &m.total_latency);
        eval_stats_latency(&pre, &m.pre_processing_latency);
        eval_stats_latency(&infer, &m.inference_latency);
        *ret = m;
        return 0;
}
