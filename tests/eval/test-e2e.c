/* SPDX-License-Identifier: Apache-2.0 */
/*
 * End to end on real photographs (python3-skimage's data images) and real
 * models (../shared/models), in-process on the reference kernels:
 * top-K with MobileNet and COCO average precision with SSD MobileNet.
 * The ground truth is a person's reading of each photograph, written before
 * the models were run; the expected figures are what the reference kernels
 * (bit-exact with TensorFlow Lite on these integer networks, per the
 * goldens) give on them. Skips (77) without the models or the images.
 */
#include <check.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "eval.h"

#define SKIMAGE_DATA "/usr/lib/python3/dist-packages/skimage/data"

static char models[PATH_MAX];
static char dir[64];
static const char *photos[] = { "astronaut.png", "chelsea.png", "coffee.png", "motorcycle_left.png", "rocket.jpg" };

/* A directory of links to the photographs a test uses. */
static void photos_link(const char *const *names, size_t n) {
        char src[PATH_MAX], dst[PATH_MAX];

        strcpy(dir, "/tmp/test-eval-e2e-XXXXXX");
        ck_assert_ptr_nonnull(mkdtemp(dir));
        for (size_t i = 0; i < n; i++) {
                snprintf(src, sizeof(src), "%s/%s", SKIMAGE_DATA, names[i]);
                snprintf(dst, sizeof(dst), "%s/%s", dir, names[i]);
                ck_assert_int_eq(symlink(src, dst), 0);
        }
}

static void photos_unlink(void) {
        char p[PATH_MAX];

        for (size_t i = 0; i < sizeof(photos) / sizeof(photos[0]); i++) {
                snprintf(p, sizeof(p), "%s/%s", dir, photos[i]);
                (void) unlink(p);
        }
        (void) rmdir(dir);
}

static eval_runner_t *runner(const char *model) {
        char path[PATH_MAX + 64], err[512] = "";
        eval_runner_t *r = NULL;

        snprintf(path, sizeof(path), "%s/%s", models, model);
        ck_assert_msg(eval_runner_local_new(path, "{\"delegate\":\"NONE\"}", &r, err, sizeof(err)) == 0, "%s", err);
        return r;
}

typedef struct seen {
        int32_t rank[8];  /* 1-based rank of the label per image, 0 beyond k */
} seen_t;

static void on_image(void *user, size_t done, size_t total, const eval_classify_image_t *img) {
        seen_t *s = user;

        s->rank[done - 1] = 0;
        for (int32_t i = 0; i < img->k; i++)
                if (img->top[i] == img->label)
                        s->rank[done - 1] = i + 1;
}

START_TEST(test_e2e_topk_mobilenet_v2_quant_metadata_labels) {
        static const char *names[] = { "chelsea.png", "coffee.png", "rocket.jpg" };
        char path[PATH_MAX + 64], err[512] = "";
        eval_labels_t images, labels, gt;
        eval_classify_metrics_t m;
        seen_t seen = {};
        const char gt_text[] = "tabby, tabby cat\nespresso\nmissile\n";

        photos_link(names, 3);
        ck_assert_int_eq(eval_images_list(dir, &images), 0);
        ck_assert_uint_eq(images.n, 3);
        snprintf(path, sizeof(path), "%s/mobilenet_v2_1.0_224_quant.tflite", models);
        ck_assert_msg(eval_labels_from_model(path, 0, &labels, NULL, err, sizeof(err)) == 0, "%s", err);
        ck_assert_int_eq(eval_labels_parse(gt_text, strlen(gt_text), &gt), 0);
        eval_runner_t *r = runner("mobilenet_v2_1.0_224_quant.tflite");
        eval_classify_params_t p = { .images = &images, .ground_truth = &gt, .labels = &labels, .k = 5,
                                     .on_image = on_image, .user = &seen };
        ck_assert_msg(eval_classify_run(r, &p, &m, err, sizeof(err)) == 0, "%s", err);
        /* The cat is third behind "Egyptian cat" and "tiger cat", the
         * espresso first, the rocket launch third ("missile", behind
         * "crane"). (Through XNNPACK, whose integer kernels round
         * differently, the rocket comes fourth.) */
        ck_assert_int_eq(seen.rank[0], 3);
        ck_assert_int_eq(seen.rank[1], 1);
        ck_assert_int_eq(seen.rank[2], 3);
        ck_assert_int_eq(m.k, 5);
        ck_assert_int_eq(m.num_inferences, 3);
        ck_assert_float_eq_tol(m.topk_accuracies[0], 1.0f / 3, 1e-6);
        ck_assert_float_eq_tol(m.topk_accuracies[1], 1.0f / 3, 1e-6);
        ck_assert_float_eq(m.topk_accuracies[2], 1.0f);
        ck_assert_float_eq(m.topk_accuracies[3], 1.0f);
        ck_assert_float_eq(m.topk_accuracies[4], 1.0f);
        ck_assert_int_gt(m.inference_latency.min_us, 0);
        ck_assert_int_ge(m.total_latency.sum_us, m.inference_latency.sum_us + m.pre_processing_latency.sum_us);
        eval_classify_metrics_done(&m);
        eval_runner_free(r);
        eval_labels_done(&images);
        eval_labels_done(&labels);
        eval_labels_done(&gt);
        photos_unlink();
}
END_TEST

START_TEST(test_e2e_topk_mobilenet_v1_float) {
        /* The float model ships no metadata: its class list is the one of
         * the quantized MobileNet v1 (same 1001 classes, short names). */
        static const char *names[] = { "chelsea.png", "coffee.png", "rocket.jpg" };
        char path[PATH_MAX + 64], err[512] = "";
        eval_labels_t images, labels, gt;
        eval_classify_metrics_t m;
        seen_t seen = {};
        const char gt_text[] = "tabby\nespresso\nmissile\n";

        photos_link(names, 3);
        ck_assert_int_eq(eval_images_list(dir, &images), 0);
        snprintf(path, sizeof(path), "%s/mobilenet_v1_0.25_224_quant.tflite", models);
        ck_assert_msg(eval_labels_from_model(path, 0, &labels, NULL, err, sizeof(err)) == 0, "%s", err);
        ck_assert_int_eq(eval_labels_parse(gt_text, strlen(gt_text), &gt), 0);
        eval_runner_t *r = runner("mobilenet_v1_0.25_224_float.tflite");
        eval_classify_params_t p = { .images = &images, .ground_truth = &gt, .labels = &labels, .k = 5,
                                     .on_image = on_image, .user = &seen };
        ck_assert_msg(eval_classify_run(r, &p, &m, err, sizeof(err)) == 0, "%s", err);
        /* Tabby second, espresso first, the rocket not in the top 5. */
        ck_assert_int_eq(seen.rank[0], 2);
        ck_assert_int_eq(seen.rank[1], 1);
        ck_assert_int_eq(seen.rank[2], 0);
        ck_assert_float_eq_tol(m.topk_accuracies[0], 1.0f / 3, 1e-6);
        ck_assert_float_eq_tol(m.topk_accuracies[1], 2.0f / 3, 1e-6);
        ck_assert_float_eq_tol(m.topk_accuracies[4], 2.0f / 3, 1e-6);
        eval_classify_metrics_done(&m);
        eval_runner_free(r);
        eval_labels_done(&images);
        eval_labels_done(&labels);
        eval_labels_done(&gt);
        photos_unlink();
}
END_TEST

/* Boxes drawn by hand on the photographs (COCO category ids): the
 * astronaut; the cat; the cup and the spoon; the motorcycle, the wooden
 * bench behind it and the bicycle at the left edge. */
static const char detection_gt[] =
        "{\"detection_results\": ["
        "{\"image_name\": \"astronaut.png\", \"objects\": ["
        " {\"class_id\": 1, \"bounding_box\": {\"normalized_top\": 0.027, \"normalized_bottom\": 1.0,"
        "  \"normalized_left\": 0.035, \"normalized_right\": 0.71}}]},"
        "{\"image_name\": \"chelsea.png\", \"objects\": ["
        " {\"class_id\": 17, \"bounding_box\": {\"normalized_top\": 0.0, \"normalized_bottom\": 1.0,"
        "  \"normalized_left\": 0.0, \"normalized_right\": 0.88}}]},"
        "{\"image_name\": \"coffee.png\", \"objects\": ["
        " {\"class_id\": 47, \"bounding_box\": {\"normalized_top\": 0.045, \"normalized_bottom\": 0.76,"
        "  \"normalized_left\": 0.285, \"normalized_right\": 0.68}},"
        " {\"class_id\": 50, \"bounding_box\": {\"normalized_top\": 0.16, \"normalized_bottom\": 0.81,"
        "  \"normalized_left\": 0.54, \"normalized_right\": 0.71}}]},"
        "{\"image_name\": \"motorcycle_left.png\", \"objects\": ["
        " {\"class_id\": 4, \"bounding_box\": {\"normalized_top\": 0.15, \"normalized_bottom\": 0.90,"
        "  \"normalized_left\": 0.128, \"normalized_right\": 0.924}},"
        " {\"class_id\": 15, \"bounding_box\": {\"normalized_top\": 0.21, \"normalized_bottom\": 0.61,"
        "  \"normalized_left\": 0.054, \"normalized_right\": 0.385}},"
        " {\"class_id\": 2, \"bounding_box\": {\"normalized_top\": 0.10, \"normalized_bottom\": 0.46,"
        "  \"normalized_left\": 0.0, \"normalized_right\": 0.07}}]}]}";

typedef struct best_iou {
        float iou[4];  /* per image: the best IoU of a prediction with its class's ground truth */
} best_iou_t;

static void on_detection(void *user, size_t done, size_t total, const eval_detect_image_t *img) {
        best_iou_t *b = user;
        float best = 0;

        for (size_t p = 0; p < img->predicted->n_objects; p++)
                for (size_t g = 0; g < img->ground_truth->n_objects; g++)
                        if (img->predicted->objects[p].class_id == img->ground_truth->objects[g].class_id) {
                                float x = eval_box_iou(&img->predicted->objects[p].box,
                                                       &img->ground_truth->objects[g].box);
                                best = x > best ? x : best;
                        }
        b->iou[done - 1] = best;
}

START_TEST(test_e2e_detection_ssd_mobilenet_coco) {
        static const char *names[] = { "astronaut.png", "chelsea.png", "coffee.png", "motorcycle_left.png" };
        eval_od_ground_truth_t gt;
        eval_labels_t images;
        eval_detect_metrics_t m;
        best_iou_t best = {};
        char err[512] = "";

        photos_link(names, 4);
        ck_assert_int_eq(eval_images_list(dir, &images), 0);
        ck_assert_msg(eval_od_ground_truth_parse(detection_gt, &gt, err, sizeof(err)) == 0, "%s", err);
        eval_runner_t *r = runner("ssd_mobilenet_v1_coco_quant.tflite");
        eval_detect_params_t p = { .images = &images, .ground_truth = &gt, .class_offset = 1,
                                   .on_image = on_detection, .user = &best };
        ck_assert_msg(eval_detect_run(r, &p, &m, err, sizeof(err)) == 0, "%s", err);
        /* The person, the cat, the cup and the motorcycle are found with
         * tight boxes; the spoon, the bench and the bicycle are not: AP 1
         * for 4 of the 7 classes up to IoU 0.85. */
        for (int i = 0; i < 4; i++)
                ck_assert_msg(best.iou[i] > 0.88f, "image %d: best IoU %g", i, best.iou[i]);
        ck_assert_int_eq(m.num_inferences, 4);
        ck_assert_uint_eq(m.average_precision.n, 10);
        ck_assert_float_eq(m.average_precision.iou_thresholds[0], 0.5f);
        for (int t = 0; t < 8; t++)
                ck_assert_float_eq_tol(m.average_precision.average_precisions[t], 4.0f / 7, 1e-6);
        ck_assert_float_eq_tol(m.average_precision.average_precisions[8], 3.0f / 7, 1e-6);
        ck_assert_float_eq_tol(m.average_precision.average_precisions[9], 2.0f / 7, 1e-6);
        ck_assert_float_eq_tol(m.average_precision.overall_mean_average_precision, 37.0f / 70, 1e-6);
        json_object *o = eval_json_detect(&m), *d, *ap, *v;
        ck_assert(json_object_object_get_ex(o, "objectDetectionMetrics", &d));
        ck_assert(json_object_object_get_ex(d, "averagePrecisionMetrics", &ap));
        ck_assert(json_object_object_get_ex(ap, "overallMeanAveragePrecision", &v));
        json_object_put(o);
        eval_detect_metrics_done(&m);
        eval_runner_free(r);
        eval_labels_done(&images);
        eval_od_ground_truth_done(&gt);
        photos_unlink();
}
END_TEST

int main(void) {
        const char *shared = getenv("ACCELD_SHARED_DIR");
        const char *need[] = { "mobilenet_v2_1.0_224_quant.tflite", "mobilenet_v1_0.25_224_float.tflite",
                               "mobilenet_v1_0.25_224_quant.tflite", "ssd_mobilenet_v1_coco_quant.tflite" };
        struct stat st;
        char p[PATH_MAX + 64];

        if (!shared) {
                fprintf(stderr, "SKIP: ACCELD_SHARED_DIR is not set (the real models)\n");
                return 77;
        }
        snprintf(models, sizeof(models), "%s/models", shared);
        for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++) {
                snprintf(p, sizeof(p), "%s/%s", models, need[i]);
                if (stat(p, &st) < 0) {
                        fprintf(stderr, "SKIP: %s is missing (../shared/models)\n", p);
                        return 77;
                }
        }
        for (size_t i = 0; i < sizeof(photos) / sizeof(photos[0]); i++) {
                snprintf(p, sizeof(p), "%s/%s", SKIMAGE_DATA, photos[i]);
                if (stat(p, &st) < 0) {
                        fprintf(stderr, "SKIP: %s is missing (apt-get install python3-skimage)\n", p);
                        return 77;
                }
        }
        Suite *s = suite_create("eval-e2e");
        TCase *tc = tcase_create("e2e");
        tcase_set_timeout(tc, 600);
        tcase_add_test(tc, test_e2e_topk_mobilenet_v2_quant_metadata_labels);
        tcase_add_test(tc, test_e2e_topk_mobilenet_v1_float);
        tcase_add_test(tc, test_e2e_detection_ssd_mobilenet_coco);
        suite_add_tcase(s, tc);
        SRunner *sr = srunner_create(s);
        srunner_run_all(sr, CK_NORMAL);
        int failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed ? 1 : 0;
}
