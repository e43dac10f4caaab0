/* SPDX-License-Identifier: Apache-2.0 */
/* Label files, image directories and label files from TFLite Metadata. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "eval.h"

START_TEST(test_labels_parse_lines) {
        const char text[] = "background\r\ntabby, tabby cat  \n\nespresso\n";
        eval_labels_t l;

        ck_assert_int_eq(eval_labels_parse(text, strlen(text), &l), 0);
        ck_assert_uint_eq(l.n, 4);
        ck_assert_str_eq(l.v[0], "background");
        ck_assert_str_eq(l.v[1], "tabby, tabby cat");
        ck_assert_str_eq(l.v[2], "");
        ck_assert_str_eq(l.v[3], "espresso");
        ck_assert_int_eq(eval_labels_find(&l, "espresso"), 3);
        ck_assert_int_eq(eval_labels_find(&l, " Tabby, Tabby Cat "), 1);
        ck_assert_int_eq(eval_labels_find(&l, "tabby"), -ENOENT);
        eval_labels_done(&l);
        /* No final newline; an empty text has no labels. */
        ck_assert_int_eq(eval_labels_parse("a\nb", 3, &l), 0);
        ck_assert_uint_eq(l.n, 2);
        ck_assert_str_eq(l.v[1], "b");
        eval_labels_done(&l);
        ck_assert_int_eq(eval_labels_parse("", 0, &l), -EINVAL);
}
END_TEST

START_TEST(test_images_list_sorted_and_filtered) {
        char dir[] = "/tmp/test-eval-images-XXXXXX";
        const char *names[] = { "b.png", "a.JPG", "c.jpeg", "notes.txt", ".hidden.png", "a0.png" };
        eval_labels_t l;
        char path[256];

        ck_assert_ptr_nonnull(mkdtemp(dir));
        for (size_t i = 0; i < 6; i++) {
                snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
                FILE *f = fopen(path, "w");
                ck_assert_ptr_nonnull(f);
                fclose(f);
        }
        ck_assert_int_eq(eval_images_list(dir, &l), 0);
        ck_assert_uint_eq(l.n, 4);
        ck_assert_str_eq(eval_path_basename(l.v[0]), "a.JPG");
        ck_assert_str_eq(eval_path_basename(l.v[1]), "a0.png");
        ck_assert_str_eq(eval_path_basename(l.v[2]), "b.png");
        ck_assert_str_eq(eval_path_basename(l.v[3]), "c.jpeg");
        snprintf(path, sizeof(path), "%s/b.png", dir);
        ck_assert_str_eq(l.v[2], path);
        eval_labels_done(&l);
        for (size_t i = 0; i < 6; i++) {
                snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
                unlink(path);
        }
        rmdir(dir);
        ck_assert_int_eq(eval_images_list("/nonexistent-dir", &l), -ENOENT);
}
END_TEST

static const char *shared_models(char *buf, size_t size, const char *name) {
        const char *shared = getenv("ACCELD_SHARED_DIR");
        struct stat st;

        if (!shared)
                return NULL;
        snprintf(buf, size, "%s/models/%s", shared, name);
        return stat(buf, &st) == 0 ? buf : NULL;
}

START_TEST(test_labels_from_model_metadata) {
        char path[512], err[512] = "";
        char *name = NULL;
        eval_labels_t l;

        if (!shared_models(path, sizeof(path), "mobilenet_v2_1.0_224_quant.tflite")) {
                fprintf(stderr, "SKIP: ../shared/models not found\n");
                return;
        }
        /* Axis labels of the classifier output: 1001 ImageNet classes. */
        ck_assert_msg(eval_labels_from_model(path, 0, &l, &name, err, sizeof(err)) == 0, "%s", err);
        ck_assert_str_eq(name, "imagenet_labels.txt");
        ck_assert_uint_eq(l.n, 1001);
        ck_assert_str_eq(l.v[0], "background");
        ck_assert_str_eq(l.v[282], "tabby, tabby cat");
        free(name);
        eval_labels_done(&l);

        /* The detector's value labels: 90 COCO names, "person" first. */
        ck_assert(shared_models(path, sizeof(path), "ssd_mobilenet_v1_coco_quant.tflite"));
        ck_assert_msg(eval_labels_from_model(path, 1, &l, &name, err, sizeof(err)) == 0, "%s", err);
        ck_assert_str_eq(name, "labelmap.txt");
        ck_assert_uint_eq(l.n, 90);
        ck_assert_str_eq(l.v[0], "person");
        ck_assert_str_eq(l.v[16], "cat");
        free(name);
        eval_labels_done(&l);

        /* No metadata at all. */
        ck_assert(shared_models(path, sizeof(path), "mobilenet_v1_0.25_224_float.tflite"));
        ck_assert_int_eq(eval_labels_from_model(path, 0, &l, NULL, err, sizeof(err)), -ENOENT);
        ck_assert_msg(strstr(err, "names no label file") != NULL, "%s", err);
}
END_TEST

int main(void) {
        Suite *s = suite_create("eval-labels");
        TCase *tc = tcase_create("labels");
        tcase_add_test(tc, test_labels_parse_lines);
        tcase_add_test(tc, test_images_list_sorted_and_filtered);
        tcase_add_test(tc, test_labels_from_model_metadata);
        suite_add_tcase(s, tc);
        SRunner *sr = srunner_create(s);
        srunner_run_all(sr, CK_NORMAL);
        int failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed ? 1 : 0;
}
