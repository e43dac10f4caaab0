/* SPDX-License-Identifier: Apache-2.0 */
#include "misc-test.h"

/* TFLite's NMS test boxes: two clusters of three overlapping boxes and one
 * far away. */
static const float boxes6[] = {
        0, 0, 1, 1,  0, 0.1f, 1, 1.1f,  0, -0.1f, 1, 0.9f,
        0, 10, 1, 11,  0, 10.1f, 1, 11.1f,  0, 100, 1, 101,
};
static const float scores6[] = { 0.9f, 0.75f, 0.6f, 0.95f, 0.5f, 0.3f };

typedef struct v4 {
        int32_t sel, valid;
} v4_t;

static int run_v4(kh_t *h, const float *boxes, const float *scores, int32_t n, int32_t max_out, bool const_max,
                  float iou, float score, v4_t *ret) {
        int32_t b = kh_tensor(h, RT_TYPE_FLOAT32, 2, I32(n, 4), boxes);
        int32_t s = kh_tensor(h, RT_TYPE_FLOAT32, 1, I32(n), scores);
        int32_t m = const_max ? kh_const(h, RT_TYPE_INT32, 0, NULL, &max_out)
                              : kh_tensor(h, RT_TYPE_INT32, 0, NULL, &max_out);
        int32_t it = kh_const(h, RT_TYPE_FLOAT32, 0, NULL, &iou);
        int32_t st = kh_const(h, RT_TYPE_FLOAT32, 0, NULL, &score);
        ret->sel = kh_tensor(h, RT_TYPE_INT32, 0, NULL, NULL);
        ret->valid = kh_tensor(h, RT_TYPE_INT32, 0, NULL, NULL);
        return kh_run(h, &rt_kernel_non_max_suppression_v4, NULL, I32(b, s, m, it, st), 5,
                      I32(ret->sel, ret->valid), 2);
}

START_TEST(test_nms_v4_hard_suppression_padded) {
        kh_t h;
        kh_init(&h);
        v4_t o;
        ck_assert_int_eq(run_v4(&h, boxes6, scores6, 6, 6, true, 0.5f, 0.0f, &o), 0);
        ck_assert_shape(&h.tensors[o.sel], 1, 6);
        ck_assert_data(int32_t, &h.tensors[o.sel], 6, 3, 0, 5, 0, 0, 0);
        ck_assert_shape(&h.tensors[o.valid], 0);
        ck_assert_int_eq(*(int32_t *) h.tensors[o.valid].data, 3);
        kh_done(&h);
}
END_TEST

START_TEST(test_nms_v4_score_threshold_and_max) {
        kh_t h;
        kh_init(&h);
        v4_t o;
        ck_assert_int_eq(run_v4(&h, boxes6, scores6, 6, 4, true, 0.5f, 0.4f, &o), 0);
        ck_assert_data(int32_t, &h.tensors[o.sel], 4, 3, 0, 0, 0);
        ck_assert_int_eq(*(int32_t *) h.tensors[o.valid].data, 2);
        kh_done(&h);

        kh_init(&h);
        ck_assert_int_eq(run_v4(&h, boxes6, scores6, 6, 2, false, 0.5f, 0.0f, &o), 0);
        ck_assert_int_eq(h.tensors[o.sel].alloc, RT_ALLOC_DYNAMIC);
        ck_assert_data(int32_t, &h.tensors[o.sel], 2, 3, 0);
        ck_assert_int_eq(*(int32_t *) h.tensors[o.valid].data, 2);
        kh_done(&h);
}
END_TEST

/* Equal scores: TFLite pushes every selected candidate back into its
 * std::priority_queue (it is suppressed by itself when popped again), and
 * libstdc++'s binary heap then yields the boxes in the order 0, 2, 3, 1. */
START_TEST(test_nms_v4_equal_scores_heap_order) {
        const float boxes[] = { 0, 0, 1, 1, 0, 2, 1, 3, 0, 4, 1, 5, 0, 6, 1, 7 };
        const float scores[] = { 0.5f, 0.5f, 0.5f, 0.5f };
        kh_t h;
        kh_init(&h);
        v4_t o;
        ck_assert_int_eq(run_v4(&h, boxes, scores, 4, 4, true, 0.5f, 0.0f, &o), 0);
        ck_assert_data(int32_t, &h.tensors[o.sel], 4, 0, 2, 3, 1);
        kh_done(&h);
}
END_TEST

START_TEST(test_nms_v5_soft_suppression) {
        const float boxes[] = { 0, 0, 1, 1, 0, 0.5f, 1, 1.5f };
        const float scores[] = { 0.9f, 0.8f };
        const int32_t max_out = 3;
        const float iou = 1.0f, score = 0.0f, sigma = 0.5f;
        kh_t h;
        kh_init(&h);
        int32_t b = kh_tensor(&h, RT_TYPE_FLOAT32, 2, I32(2, 4), boxes);
        int32_t s = kh_tensor(&h, RT_TYPE_FLOAT32, 1, I32(2), scores);
        int32_t m = kh_const(&h, RT_TYPE_INT32, 0, NULL, &max_out);
        int32_t it = kh_const(&h, RT_TYPE_FLOAT32, 0, NULL, &iou);
        int32_t st = kh_const(&h, RT_TYPE_FLOAT32, 0, NULL, &score);
        int32_t sg = kh_const(&h, RT_TYPE_FLOAT32, 0, NULL, &sigma);
        int32_t sel = kh_tensor(&h, RT_TYPE_INT32, 0, NULL, NULL);
        int32_t sel_scores = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        int32_t valid = kh_tensor(&h, RT_TYPE_INT32, 0, NULL, NULL);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_non_max_suppression_v5, NULL, I32(b, s, m, it, st, sg), 6,
                                I32(sel, sel_scores, valid), 3),
                         0);
        ck_assert_data(int32_t, &h.tensors[sel], 3, 0, 1, 0);
        /* IoU 0.5 / 1.5 = 1/3; the second score decays to 0.8 * exp(-1/9). */
        ck_assert_f32_data(&h.tensors[sel_scores], 3, 1e-6f, 0.9f, 0.7158715f, 0.0f);
        ck_assert_int_eq(*(int32_t *) h.tensors[valid].data, 2);
        kh_done(&h);
}
END_TEST

START_TEST(test_nms_errors) {
        kh_t h;
        kh_init(&h);
        v4_t o;
        ck_assert_fails(&h, run_v4(&h, boxes6, scores6, 6, -1, true, 0.5f, 0.0f, &o), -EINVAL,
                        "max_output_size -1");
        kh_done(&h);

        kh_init(&h);
        int32_t b = kh_tensor(&h, RT_TYPE_FLOAT32, 2, I32(2, 3), boxes6);
        int32_t s = kh_tensor(&h, RT_TYPE_FLOAT32, 1, I32(2), scores6);
        const int32_t two = 2;
        const float z = 0.0f, neg = -1.0f;
        int32_t m = kh_const(&h, RT_TYPE_INT32, 0, NULL, &two);
        int32_t f = kh_const(&h, RT_TYPE_FLOAT32, 0, NULL, &z);
        int32_t sel = kh_tensor(&h, RT_TYPE_INT32, 0, NULL, NULL);
        int32_t valid = kh_tensor(&h, RT_TYPE_INT32, 0, NULL, NULL);
        ck_assert_fails(&h, kh_run(&h, &rt_kernel_non_max_suppression_v4, NULL, I32(b, s, m, f, f), 5,
                                   I32(sel, valid), 2),
                        -EINVAL, "[num_boxes, 4]");
        int32_t b4 = kh_tensor(&h, RT_TYPE_FLOAT32, 2, I32(2, 4), boxes6);
        int32_t sg = kh_const(&h, RT_TYPE_FLOAT32, 0, NULL, &neg);
        int32_t sc = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_fails(&h, kh_run(&h, &rt_kernel_non_max_suppression_v5, NULL, I32(b4, s, m, f, f, sg), 6,
                                   I32(sel, sc, valid), 3),
                        -EINVAL, "soft_nms_sigma");
        kh_done(&h);
}
END_TEST

MISC_TEST_MAIN("nms", test_nms_v4_hard_suppression_padded, test_nms_v4_score_threshold_and_max,
               test_nms_v4_equal_scores_heap_order, test_nms_v5_soft_suppression, test_nms_errors)
