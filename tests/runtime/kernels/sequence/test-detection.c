/* SPDX-License-Identifier: Apache-2.0 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "flexbuild.h"
#include "kharness.h"
#include "sequence.h"

/* 3 anchors (y, x, h, w); boxes 0 and 1 coincide, box 2 is small. */
static const float anchors[12] = { 0.5f, 0.5f, 1, 1, 0.5f, 0.5f, 1, 1, 0.2f, 0.2f, 0.2f, 0.2f };
static const float encodings[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 1, -1, 0, 0 };
/* [box][background, class 0, class 1] */
static const float scores[9] = { 0, 0.9f, 0.1f, 0, 0.8f, 0.85f, 0, 0.3f, 0.7f };

typedef struct det_case {
        kh_t h;
        int32_t in[3], out[4];
} det_case_t;

static void det_setup(det_case_t *c, bool quantized) {
        kh_init(&c->h);
        if (!quantized) {
                c->in[0] = kh_tensor(&c->h, RT_TYPE_FLOAT32, 3, (int32_t[]){ 1, 3, 4 }, encodings);
                c->in[1] = kh_tensor(&c->h, RT_TYPE_FLOAT32, 3, (int32_t[]){ 1, 3, 3 }, scores);
                c->in[2] = kh_const(&c->h, RT_TYPE_FLOAT32, 2, (int32_t[]){ 3, 4 }, anchors);
        } else {
                uint8_t e[12], s[9], a[12];
                for (int i = 0; i < 12; i++) {
                        e[i] = (uint8_t) (128 + (int) (encodings[i] * 10));
                        a[i] = (uint8_t) (anchors[i] * 100 + 0.5f);
                }
                for (int i = 0; i < 9; i++)
                        s[i] = (uint8_t) (scores[i] * 100 + 0.5f);
                c->in[0] = kh_tensor(&c->h, RT_TYPE_UINT8, 3, (int32_t[]){ 1, 3, 4 }, e);
                kh_quant(&c->h, c->in[0], 0.1f, 128);
                c->in[1] = kh_tensor(&c->h, RT_TYPE_UINT8, 3, (int32_t[]){ 1, 3, 3 }, s);
                kh_quant(&c->h, c->in[1], 0.01f, 0);
                c->in[2] = kh_const(&c->h, RT_TYPE_UINT8, 2, (int32_t[]){ 3, 4 }, a);
                kh_quant(&c->h, c->in[2], 0.01f, 0);
        }
        for (int i = 0; i < 4; i++)
                c->out[i] = kh_tensor(&c->h, RT_TYPE_FLOAT32, 0, NULL, NULL);
}

static rt_detection_params_t det_params(bool regular, int32_t max_det) {
        rt_detection_params_t p = {
                .max_detections = max_det,
                .max_classes_per_detection = 1,
                .detections_per_class = 2,
                .use_regular_nms = regular,
                .nms_score_threshold = 0.5f,
                .nms_iou_threshold = 0.5f,
                .num_classes = 2,
                .y_scale = 10, .x_scale = 10, .h_scale = 5, .w_scale = 5,
        };
        return p;
}

static void assert_box(const float *b, float y0, float x0, float y1, float x1) {
        ck_assert_float_eq_tol(b[0], y0, 1e-5);
        ck_assert_float_eq_tol(b[1], x0, 1e-5);
        ck_assert_float_eq_tol(b[2], y1, 1e-5);
        ck_assert_float_eq_tol(b[3], x1, 1e-5);
}

static void check_fast(bool quantized) {
        det_case_t c;
        det_setup(&c, quantized);
        rt_detection_params_t p = det_params(false, 3);
        ck_assert_int_eq(kh_run(&c.h, &rt_kernel_detection_postprocess, &p, c.in, 3, c.out, 4), 0);
        ck_assert_int_eq(c.h.tensors[c.out[0]].rank, 3);
        ck_assert_int_eq(c.h.tensors[c.out[0]].dims[1], 3);
        ck_assert_int_eq(c.h.tensors[c.out[0]].dims[2], 4);
        ck_assert_int_eq(c.h.tensors[c.out[3]].dims[0], 1);
        const float *boxes = c.h.tensors[c.out[0]].data;
        const float *cls = c.h.tensors[c.out[1]].data;
        const float *sc = c.h.tensors[c.out[2]].data;
        const float *count = c.h.tensors[c.out[3]].data;
        /* box 1 overlaps box 0 completely and is suppressed */
        ck_assert_float_eq(count[0], 2.0f);
        assert_box(boxes, 0, 0, 1, 1);
        assert_box(boxes + 4, 0.12f, 0.08f, 0.32f, 0.28f);
        assert_box(boxes + 8, 0, 0, 0, 0);
        ck_assert_float_eq(cls[0], 0.0f);
        ck_assert_float_eq(cls[1], 1.0f);
        ck_assert_float_eq_tol(sc[0], 0.9f, 1e-6);
        ck_assert_float_eq_tol(sc[1], 0.7f, 1e-6);
        ck_assert_float_eq(sc[2], 0.0f);
        kh_done(&c.h);
}

START_TEST(test_detection_fast_nms_float) {
        check_fast(false);
}
END_TEST

START_TEST(test_detection_fast_nms_uint8) {
        check_fast(true);
}
END_TEST

/* Equal scores from two classes: TFLite merges each class's picks into the
 * running list with a.score >= b.score, so the newer class comes first
 * (a stable sort would keep class 0). */
START_TEST(test_detection_regular_nms_tie_goes_to_newer_class) {
        static const float tied[9] = { 0, 0.9f, 0.9f, 0, 0.8f, 0.85f, 0, 0.3f, 0.7f };
        det_case_t c;
        det_setup(&c, false);
        memcpy(c.h.tensors[c.in[1]].data, tied, sizeof(tied));
        rt_detection_params_t p = det_params(true, 1);
        ck_assert_int_eq(kh_run(&c.h, &rt_kernel_detection_postprocess, &p, c.in, 3, c.out, 4), 0);
        ck_assert_float_eq(((float *) c.h.tensors[c.out[3]].data)[0], 1.0f);
        ck_assert_float_eq(((float *) c.h.tensors[c.out[1]].data)[0], 1.0f);
        ck_assert_float_eq_tol(((float *) c.h.tensors[c.out[2]].data)[0], 0.9f, 1e-6);
        assert_box(c.h.tensors[c.out[0]].data, 0, 0, 1, 1);
        kh_done(&c.h);
}
END_TEST

START_TEST(test_detection_regular_nms) {
        det_case_t c;
        det_setup(&c, false);
        rt_detection_params_t p = det_params(true, 3);
        ck_assert_int_eq(kh_run(&c.h, &rt_kernel_detection_postprocess, &p, c.in, 3, c.out, 4), 0);
        const float *boxes = c.h.tensors[c.out[0]].data;
        const float *cls = c.h.tensors[c.out[1]].data;
        const float *sc = c.h.tensors[c.out[2]].data;
        /* per class: class 0 keeps box 0 (box 1 suppressed), class 1 keeps boxes 1 and 2 */
        ck_assert_float_eq(((float *) c.h.tensors[c.out[3]].data)[0], 3.0f);
        ck_assert_float_eq(cls[0], 0.0f);
        ck_assert_float_eq(cls[1], 1.0f);
        ck_assert_float_eq(cls[2], 1.0f);
        ck_assert_float_eq_tol(sc[0], 0.9f, 1e-6);
        ck_assert_float_eq_tol(sc[1], 0.85f, 1e-6);
        ck_assert_float_eq_tol(sc[2], 0.7f, 1e-6);
        assert_box(boxes + 4, 0, 0, 1, 1);
        assert_box(boxes + 8, 0.12f, 0.08f, 0.32f, 0.28f);
        kh_done(&c.h);

        /* max_detections 1 keeps only the best. */
        det_setup(&c, false);
        p = det_params(true, 1);
        ck_assert_int_eq(kh_run(&c.h, &rt_kernel_detection_postprocess, &p, c.in, 3, c.out, 4), 0);
        ck_assert_float_eq(((float *) c.h.tensors[c.out[3]].data)[0], 1.0f);
        ck_assert_float_eq_tol(((float *) c.h.tensors[c.out[2]].data)[0], 0.9f, 1e-6);
        kh_done(&c.h);
}
END_TEST

START_TEST(test_detection_score_threshold_drops_all) {
        det_case_t c;
        det_setup(&c, false);
        rt_detection_params_t p = det_params(false, 3);
        p.nms_score_threshold = 0.95f;
        ck_assert_int_eq(kh_run(&c.h, &rt_kernel_detection_postprocess, &p, c.in, 3, c.out, 4), 0);
        ck_assert_float_eq(((float *) c.h.tensors[c.out[3]].data)[0], 0.0f);
        kh_done(&c.h);
}
END_TEST

START_TEST(test_detection_rejects_bad_shapes_and_params) {
        det_case_t c;
        det_setup(&c, false);
        rt_detection_params_t p = det_params(false, 3);
        p.num_classes = 5;
        ck_assert_int_eq(kh_run(&c.h, &rt_kernel_detection_postprocess, &p, c.in, 3, c.out, 4), -EINVAL);
        kh_done(&c.h);

        det_setup(&c, false);
        p = det_params(false, 3);
        p.nms_iou_threshold = 0.0f;
        ck_assert_int_eq(kh_run(&c.h, &rt_kernel_detection_postprocess, &p, c.in, 3, c.out, 4), -EINVAL);
        kh_done(&c.h);

        det_setup(&c, false);
        p = det_params(false, 3);
        c.h.tensors[c.in[2]].dims[0] = 2;  /* 2 anchors for 3 boxes */
        ck_assert_int_eq(kh_run(&c.h, &rt_kernel_detection_postprocess, &p, c.in, 3, c.out, 4), -EINVAL);
        ck_assert_ptr_nonnull(strstr(c.h.error, "anchors"));
        kh_done(&c.h);
}
END_TEST

START_TEST(test_detection_parse_flexbuffer_options) {
        static const fx_entry_t opts[] = {
                { "detections_per_class", 'i', 100 },
                { "h_scale", 'f', 5.0 },
                { "max_classes_per_detection", 'i', 1 },
                { "max_detections", 'i', 10 },
                { "nms_iou_threshold", 'f', 0.6 },
                { "nms_score_threshold", 'f', 1e-8 },
                { "num_classes", 'i', 90 },
                { "use_regular_nms", 'b', 0 },
                { "w_scale", 'f', 5.0 },
                { "x_scale", 'f', 10.0 },
                { "y_scale", 'f', 10.0 },
        };
        uint8_t buf[4096];
        size_t n = fx_build_map(buf, opts, 11, 8);
        rt_node_t node = { 0 };
        node.custom_options = buf;
        node.custom_options_size = n;
        rt_detection_params_t p = { 0 };
        kh_t h;
        kh_init(&h);
        ck_assert_int_eq(rt_kernel_detection_postprocess.parse(&node, &p, &h.ctx), 0);
        ck_assert_int_eq(p.max_detections, 10);
        ck_assert_int_eq(p.max_classes_per_detection, 1);
        ck_assert_int_eq(p.detections_per_class, 100);
        ck_assert_int_eq(p.num_classes, 90);
        ck_assert(!p.use_regular_nms);
        ck_assert_float_eq_tol(p.nms_iou_threshold, 0.6f, 1e-7);
        ck_assert_float_eq_tol(p.nms_score_threshold, 1e-8f, 1e-12);
        ck_assert_float_eq(p.y_scale, 10.0f);
        ck_assert_float_eq(p.w_scale, 5.0f);

        /* Without the optional keys the defaults apply; a missing required key fails. */
        n = fx_build_map(buf, opts + 1, 6, 4);  /* h_scale .. num_classes */
        node.custom_options_size = n;
        ck_assert_int_eq(rt_kernel_detection_postprocess.parse(&node, &p, &h.ctx), -EINVAL);
        ck_assert_ptr_nonnull(strstr(h.error, "y_scale"));
        kh_done(&h);
}
END_TEST

int main(void) {
        Suite *s = suite_create("kernels-sequence-detection");
        TCase *tc = tcase_create("detection");
        tcase_add_test(tc, test_detection_fast_nms_float);
        tcase_add_test(tc, test_detection_fast_nms_uint8);
        tcase_add_test(tc, test_detection_regular_nms);
        tcase_add_test(tc, test_detection_regular_nms_tie_goes_to_newer_class);
        tcase_add_test(tc, test_detection_score_threshold_drops_all);
        tcase_add_test(tc, test_detection_rejects_bad_shapes_and_params);
        tcase_add_test(tc, test_detection_parse_flexbuffer_options);
        suite_add_tcase(s, tc);
        SRunner *sr = srunner_create(s);
        srunner_run_all(sr, CK_NORMAL);
        int failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
