/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Average precision, IoU, detection outputs and ground-truth JSON.
 * test_ap_tflite_stage_* use the boxes and expected figures of TensorFlow
 * Lite's object_detection_average_precision_stage_test and image_metrics_test;
 * the rest are hand-computed here.
 */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "eval.h"

static eval_object_t obj(int32_t cls, float top, float bottom, float left, float right, float score) {
        return (eval_object_t) { .class_id = cls, .box = { top, bottom, left, right }, .score = score };
}

START_TEST(test_box_iou) {
        eval_box_t a = { 0, 1, 0, 1 }, b = { 0.5f, 2.5f, 0.5f, 2.5f }, c = { 2, 3, 2, 3 };
        eval_box_t empty = { 0.5f, 0.5f, 0, 1 };

        /* Intersection 0.25, union 1 + 4 - 0.25. */
        ck_assert_float_eq_tol(eval_box_iou(&a, &b), 0.25f / 4.75f, 1e-7);
        ck_assert_float_eq_tol(eval_box_iou(&b, &a), 0.25f / 4.75f, 1e-7);
        ck_assert_float_eq(eval_box_iou(&a, &a), 1.0f);
        ck_assert_float_eq(eval_box_iou(&a, &c), 0.0f);
        ck_assert_float_eq(eval_box_iou(&a, &empty), 0.0f);
}
END_TEST

START_TEST(test_ap_from_pr_curves) {
        /* image_metrics_test APBasic: {p, r} pairs; 1/3 is C++ integer
         * division there, i.e. a precision of 0. */
        eval_pr_t a[3] = { { 1, 1 }, { 0.5, 1 }, { 0, 1 } };
        ck_assert_double_eq_tol(eval_ap_from_pr(a, 3, 100), 1.0, 1e-9);
        /* Only recall levels 0 and 0.01 reach precision 1: 2 / 101. */
        eval_pr_t b[1] = { { 1.0, 0.01 } };
        ck_assert_double_eq_tol(eval_ap_from_pr(b, 1, 100), 2.0 / 101, 1e-9);
        /* Levels 0..0.4 -> 1.0 (41), 0.41..0.8 -> 0.57 (40), 0.81..1 -> 0.5
         * (20): 73.8 / 101. */
        eval_pr_t c[10] = {
                { 1.0, 0.2 }, { 1.0, 0.4 }, { 0.67, 0.4 }, { 0.5, 0.4 }, { 0.4, 0.4 },
                { 0.5, 0.6 }, { 0.57, 0.8 }, { 0.5, 0.8 }, { 0.44, 0.8 }, { 0.5, 1.0 },
        };
        ck_assert_double_eq_tol(eval_ap_from_pr(c, 10, 100), 73.8 / 101, 1e-9);
        /* 10 recall points: 11 levels. */
        eval_pr_t d[1] = { { 0.5, 0.5 } };
        ck_assert_double_eq_tol(eval_ap_from_pr(d, 1, 10), 6 * 0.5 / 11, 1e-9);
        ck_assert_double_eq(eval_ap_from_pr(NULL, 0, 100), 0.0);
}
END_TEST

START_TEST(test_ap_two_images_shifted_boxes) {
        /* image_metrics_test BBoxAPBasic: two images with one box each,
         * predictions shifted by 0.1 (IoU 0.81 / 1.19 = 0.68). */
        eval_object_t g1 = obj(1, 0, 1, 0, 1, 1), g2 = obj(1, 1, 2, 1, 2, 1);
        eval_object_t p1 = obj(1, 0.1f, 1.1f, 0.1f, 1.1f, 0.8f), p2 = obj(1, 0.9f, 1.9f, 0.9f, 1.9f, 0.8f);
        eval_od_result_t gt1 = { &g1, 1 }, gt2 = { &g2, 1 }, pd1 = { &p1, 1 }, pd2 = { &p2, 1 };
        float thr[2] = { 0.5f, 0.85f };
        eval_ap_params_t params = { .iou_thresholds = thr, .n_iou_thresholds = 2 };
        eval_ap_metrics_t m;
        eval_ap_t *ap;

        ck_assert_int_eq(eval_ap_new(&params, &ap), 0);
        ck_assert_int_eq(eval_ap_add(ap, &pd1, &gt1), 0);
        ck_assert_int_eq(eval_ap_add(ap, &pd2, &gt2), 0);
        ck_assert_int_eq(eval_ap_compute(ap, &m), 0);
        ck_assert_uint_eq(m.n, 2);
        ck_assert_float_eq_tol(m.average_precisions[0], 1.0f, 1e-6);
        ck_assert_float_eq_tol(m.average_precisions[1], 0.0f, 1e-6);
        ck_assert_float_eq_tol(m.overall_mean_average_precision, 0.5f, 1e-6);
        eval_ap_metrics_done(&m);
        eval_ap_free(ap);
}
END_TEST

/* TFLite's stage test: ground truth of one image (class 1 twice, class 2
 * once) and three class-1 predictions. */
static eval_object_t tfl_gt[3], tfl_pd[3];

static void tfl_fixture(void) {
        tfl_gt[0] = obj(1, 0.5f, 1.0f, 0.5f, 1.0f, 1);
        tfl_gt[1] = obj(1, 0, 1.0f, 0, 1.0f, 1);
        tfl_gt[2] = obj(2, 0.5f, 1.0f, 0.5f, 1.0f, 1);
        tfl_pd[0] = obj(1, 0.091f, 1.0f, 0.091f, 1.0f, 0.8f);
        tfl_pd[1] = obj(1, 0.474f, 1.0f, 0.474f, 1.0f, 0.9f);
        tfl_pd[2] = obj(1, 0.474f, 1.0f, 0.474f, 1.0f, 0.95f);
}

START_TEST(test_ap_tflite_stage_sample_inputs) {
        float thr[2] = { 0.5f, 0.999f };
        eval_ap_params_t params = { .num_classes = 3, .iou_thresholds = thr, .n_iou_thresholds = 2 };
        eval_od_result_t gt = { tfl_gt, 3 }, pd = { tfl_pd, 3 }, none = {};
        eval_ap_metrics_t m;
        eval_ap_t *ap;

        tfl_fixture();
        ck_assert_int_eq(eval_ap_new(&params, &ap), 0);
        /* No predictions. */
        ck_assert_int_eq(eval_ap_add(ap, &none, &gt), 0);
        ck_assert_int_eq(eval_ap_compute(ap, &m), 0);
        ck_assert_float_eq(m.overall_mean_average_precision, 0.0f);
        ck_assert_uint_eq(m.n, 2);
        eval_ap_metrics_done(&m);
        /* Perfect predictions (score 1) on a second image: half the ground
         * truth found at precision 1: 51 / 101. */
        ck_assert_int_eq(eval_ap_add(ap, &gt, &gt), 0);
        ck_assert_int_eq(eval_ap_compute(ap, &m), 0);
        ck_assert_float_eq_tol(m.overall_mean_average_precision, 0.50495052f, 1e-6);
        eval_ap_metrics_done(&m);
        /* The three predictions on a third image. */
        ck_assert_int_eq(eval_ap_add(ap, &pd, &gt), 0);
        ck_assert_int_eq(eval_ap_compute(ap, &m), 0);
        ck_assert_float_eq(m.iou_thresholds[0], 0.5f);
        ck_assert_float_eq_tol(m.average_precisions[0], 0.4841584f, 1e-6);
        ck_assert_float_eq(m.iou_thresholds[1], 0.999f);
        ck_assert_float_eq_tol(m.average_precisions[1], 0.33663365f, 1e-6);
        ck_assert_float_eq_tol(m.overall_mean_average_precision, 0.41039604f, 1e-6);
        eval_ap_metrics_done(&m);
        eval_ap_free(ap);
}
END_TEST

START_TEST(test_ap_tflite_stage_default_thresholds) {
        eval_ap_params_t params = { .num_classes = 3 };
        eval_od_result_t gt = { tfl_gt, 3 };
        eval_ap_metrics_t m;
        eval_ap_t *ap;

        tfl_fixture();
        ck_assert_int_eq(eval_ap_new(&params, &ap), 0);
        ck_assert_int_eq(eval_ap_add(ap, &gt, &gt), 0);
        ck_assert_int_eq(eval_ap_compute(ap, &m), 0);
        ck_assert_float_eq(m.overall_mean_average_precision, 1.0f);
        ck_assert_uint_eq(m.n, 10);
        ck_assert_float_eq(m.iou_thresholds[0], 0.5f);
        ck_assert_float_eq_tol(m.iou_thresholds[9], 0.95f, 1e-7);
        eval_ap_metrics_done(&m);
        eval_ap_free(ap);
}
END_TEST

START_TEST(test_ap_hand_computed_tp_fp_tp) {
        /* Two ground-truth boxes; predictions 0.9 hits, 0.8 misses, 0.7
         * hits: PR (1, .5), (.5, .5), (.667, 1). Levels 0..0.5 -> 1 (51),
         * 0.51..1 -> 2/3 (50): (51 + 100/3) / 101. A class with predictions
         * but no ground truth (3) does not count. */
        eval_object_t g[2] = { obj(0, 0, 0.5f, 0, 0.5f, 1), obj(0, 0.5f, 1, 0.5f, 1, 1) };
        eval_object_t p[4] = {
                obj(0, 0, 0.5f, 0, 0.5f, 0.9f), obj(0, 0, 0.2f, 0.8f, 1, 0.8f), obj(0, 0.5f, 1, 0.5f, 1, 0.7f),
                obj(3, 0, 1, 0, 1, 0.99f),
        };
        eval_od_result_t gt = { g, 2 }, pd = { p, 4 };
        float thr = 0.5f;
        eval_ap_params_t params = { .iou_thresholds = &thr, .n_iou_thresholds = 1 };
        eval_ap_metrics_t m;
        eval_ap_t *ap;

        ck_assert_int_eq(eval_ap_new(&params, &ap), 0);
        ck_assert_int_eq(eval_ap_add(ap, &pd, &gt), 0);
        ck_assert_int_eq(eval_ap_compute(ap, &m), 0);
        ck_assert_float_eq_tol(m.average_precisions[0], (float) ((51 + 100.0 / 3) / 101), 1e-6);
        eval_ap_metrics_done(&m);
        eval_ap_free(ap);
}
END_TEST

START_TEST(test_ap_predictions_match_only_their_image) {
        /* The same box in another image is not a match. */
        eval_object_t g = obj(5, 0, 1, 0, 1, 1), p = obj(5, 0, 1, 0, 1, 0.9f);
        eval_od_result_t gt = { &g, 1 }, none = {}, pd = { &p, 1 };
        float thr = 0.5f;
        eval_ap_params_t params = { .iou_thresholds = &thr, .n_iou_thresholds = 1 };
        eval_ap_metrics_t m;
        eval_ap_t *ap;

        ck_assert_int_eq(eval_ap_new(&params, &ap), 0);
        ck_assert_int_eq(eval_ap_add(ap, &none, &gt), 0);
        ck_assert_int_eq(eval_ap_add(ap, &pd, &none), 0);
        ck_assert_int_eq(eval_ap_compute(ap, &m), 0);
        ck_assert_float_eq(m.average_precisions[0], 0.0f);
        eval_ap_metrics_done(&m);
        eval_ap_free(ap);
}
END_TEST

START_TEST(test_ap_errors) {
        float bad = 1.5f;
        eval_ap_params_t p1 = { .iou_thresholds = &bad, .n_iou_thresholds = 1 };
        eval_ap_params_t p2 = { .num_classes = 2 };
        eval_object_t o = obj(2, 0, 1, 0, 1, 1);
        eval_od_result_t r = { &o, 1 }, none = {};
        eval_ap_t *ap;

        ck_assert_int_eq(eval_ap_new(&p1, &ap), -EINVAL);
        ck_assert_int_eq(eval_ap_new(&p2, &ap), 0);
        ck_assert_int_eq(eval_ap_add(ap, &none, &r), -EINVAL);  /* class 2 of 2 */
        eval_ap_free(ap);
}
END_TEST

START_TEST(test_detection_decode_postprocess_outputs) {
        float boxes[3][4] = { { 0.1f, 0.2f, 0.5f, 0.6f }, { 0, 0, 1, 1 }, { 0.3f, 0.3f, 0.4f, 0.4f } };
        float classes[3] = { 16, 0, 2 }, scores[3] = { 0.9f, 0.6f, 0.1f }, count = 2;
        eval_tensor_t tb = { .type = 0, .rank = 3, .dims = { 1, 3, 4 }, .data = boxes, .name = "" };
        eval_tensor_t tc = { .type = 0, .rank = 2, .dims = { 1, 3 }, .data = classes, .name = "" };
        eval_tensor_t ts = { .type = 0, .rank = 2, .dims = { 1, 3 }, .data = scores, .name = "" };
        eval_tensor_t tn = { .type = 0, .rank = 1, .dims = { 1 }, .data = &count, .name = "" };
        eval_od_result_t r;
        char err[256];

        ck_assert_int_eq(eval_detection_decode(&tb, &tc, &ts, &tn, 1, &r, err, sizeof(err)), 0);
        ck_assert_uint_eq(r.n_objects, 2);
        ck_assert_int_eq(r.objects[0].class_id, 17);
        ck_assert_float_eq(r.objects[0].score, 0.9f);
        ck_assert_float_eq(r.objects[0].box.top, 0.1f);
        ck_assert_float_eq(r.objects[0].box.left, 0.2f);
        ck_assert_float_eq(r.objects[0].box.bottom, 0.5f);
        ck_assert_float_eq(r.objects[0].box.right, 0.6f);
        ck_assert_int_eq(r.objects[1].class_id, 1);
        eval_od_result_done(&r);
        tc.dims[1] = 2;
        ck_assert_int_eq(eval_detection_decode(&tb, &tc, &ts, &tn, 1, &r, err, sizeof(err)), -EINVAL);
}
END_TEST

START_TEST(test_ground_truth_json_both_spellings) {
        const char *json =
                "{\"detection_results\": ["
                " {\"image_name\": \"a.png\", \"image_id\": \"7\", \"objects\": ["
                "  {\"class_id\": 17, \"bounding_box\": {\"normalized_top\": 0.1, \"normalized_bottom\": 0.9,"
                "   \"normalized_left\": 0.2, \"normalized_right\": 0.8}}]},"
                " {\"imageName\": \"b.jpg\", \"objects\": ["
                "  {\"classId\": 1, \"score\": 0.5, \"boundingBox\": {\"normalizedTop\": 0, \"normalizedBottom\": 1,"
                "   \"normalizedLeft\": 0, \"normalizedRight\": 1}}]},"
                " {\"image_name\": \"empty.png\"}]}";
        eval_od_ground_truth_t g;
        char err[256] = "";

        ck_assert_msg(eval_od_ground_truth_parse(json, &g, err, sizeof(err)) == 0, "%s", err);
        ck_assert_uint_eq(g.n_results, 3);
        const eval_od_result_t *a = eval_od_ground_truth_find(&g, "a.png");
        ck_assert_ptr_nonnull(a);
        ck_assert_int_eq(a->image_id, 7);
        ck_assert_uint_eq(a->n_objects, 1);
        ck_assert_int_eq(a->objects[0].class_id, 17);
        ck_assert_float_eq(a->objects[0].score, 1.0f);
        ck_assert_float_eq(a->objects[0].box.bottom, 0.9f);
        ck_assert_float_eq(a->objects[0].box.left, 0.2f);
        const eval_od_result_t *b = eval_od_ground_truth_find(&g, "b.jpg");
        ck_assert_ptr_nonnull(b);
        ck_assert_float_eq(b->objects[0].score, 0.5f);
        ck_assert_float_eq(b->objects[0].box.right, 1.0f);
        ck_assert_uint_eq(eval_od_ground_truth_find(&g, "empty.png")->n_objects, 0);
        ck_assert_ptr_null(eval_od_ground_truth_find(&g, "c.png"));
        eval_od_ground_truth_done(&g);
}
END_TEST

START_TEST(test_ground_truth_json_errors) {
        eval_od_ground_truth_t g;
        char err[256] = "";

        ck_assert_int_eq(eval_od_ground_truth_parse("[", &g, err, sizeof(err)), -EINVAL);
        ck_assert_int_eq(eval_od_ground_truth_parse("{}", &g, err, sizeof(err)), -EINVAL);
        ck_assert_int_eq(eval_od_ground_truth_parse("{\"detection_results\": [{\"objects\": [{\"class_id\": 1}]}]}",
                                                    &g, err, sizeof(err)), -EINVAL);
        ck_assert_msg(strstr(err, "detection_results[0]: objects[0]: bounding_box") != NULL, "%s", err);
        ck_assert_int_eq(eval_od_ground_truth_parse(
                "{\"detection_results\": [{\"objects\": [{\"class_id\": 1.5, \"bounding_box\": {}}]}]}", &g, err,
                sizeof(err)), -EINVAL);
        ck_assert_msg(strstr(err, "class_id") != NULL, "%s", err);
}
END_TEST

START_TEST(test_ap_json_names) {
        float thr[1] = { 0.5f }, aps[1] = { 0.25f };
        eval_ap_metrics_t m = { .iou_thresholds = thr, .average_precisions = aps, .n = 1,
                                .overall_mean_average_precision = 0.25f };
        json_object *o = eval_json_ap(&m);

        ck_assert_str_eq(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN),
                         "{\"individualAveragePrecisions\":[{\"iouThreshold\":0.5,\"averagePrecision\":0.25}],"
                         "\"overallMeanAveragePrecision\":0.25}");
        json_object_put(o);
}
END_TEST

int main(void) {
        Suite *s = suite_create("eval-ap");
        TCase *tc = tcase_create("ap");
        tcase_add_test(tc, test_box_iou);
        tcase_add_test(tc, test_ap_from_pr_curves);
        tcase_add_test(tc, test_ap_two_images_shifted_boxes);
        tcase_add_test(tc, test_ap_tflite_stage_sample_inputs);
        tcase_add_test(tc, test_ap_tflite_stage_default_thresholds);
        tcase_add_test(tc, test_ap_hand_computed_tp_fp_tp);
        tcase_add_test(tc, test_ap_predictions_match_only_their_image);
        tcase_add_test(tc, test_ap_errors);
        tcase_add_test(tc, test_detection_decode_postprocess_outputs);
        tcase_add_test(tc, test_ground_truth_json_both_spellings);
        tcase_add_test(tc, test_ground_truth_json_errors);
        tcase_add_test(tc, test_ap_json_names);
        suite_add_tcase(s, tc);
        SRunner *sr = srunner_create(s);
        srunner_run_all(sr, CK_NORMAL);
        int failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed ? 1 : 0;
}
