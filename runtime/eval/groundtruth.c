/* SPDX-License-Identifier: Apache-2.0 */
/* ObjectDetectionGroundTruth from JSON with the proto's field names. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "eval.h"
#include "file.h"
#include "json-util.h"

void eval_od_ground_truth_done(eval_od_ground_truth_t *g) {
        if (!g)
                return;
        for (size_t i = 0; i < g->n_results; i++)
                eval_od_result_done(&g->results[i]);
        free(g->results);
        *g = (eval_od_ground_truth_t) {};
}

static int float_get(json_object *o, const char *name, bool required, float def, float *ret) {
        json_object *v = eval__json_field(o, name);
        double d;

        if (!v) {
                *ret = def;
                return required ? -ENOENT : 0;
        }
        if (eval__json_number(v, &d) < 0 || !isfinite(d))
                return -EINVAL;
        *ret = (float) d;
        return 0;
}

static int object_parse(json_object *o, eval_object_t *ret, char *err, size_t err_size) {
        static const char *const sides[4] = {
                "normalized_top", "normalized_bottom", "normalized_left", "normalized_right",
        };
        json_object *cls = eval__json_field(o, "class_id"), *bb = eval__json_field(o, "bounding_box");
        float *dst[4] = { &ret->box.top, &ret->box.bottom, &ret->box.left, &ret->box.right };
        double d;

        if (!cls || eval__json_number(cls, &d) < 0 || d != floor(d) || d < 0 || d > INT32_MAX) {
                snprintf(err, err_size, "class_id must be a non-negative integer");
                return -EINVAL;
        }
        ret->class_id = (int32_t) d;
        if (!bb || !json_object_is_type(bb, json_type_object)) {
                snprintf(err, err_size, "bounding_box is missing");
                return -EINVAL;
        }
        for (int i = 0; i < 4; i++)
                if (float_get(bb, sides[i], true, 0, dst[i]) < 0) {
                        snprintf(err, err_size, "bounding_box.%s must be a number", sides[i]);
                        return -EINVAL;
                }
        if (float_get(o, "score", false, 1.0f, &ret->score) < 0) {
                snprintf(err, err_size, "score must be a number");
                return -EINVAL;
        }
        return 0;
}

static int result_parse(json_object *o, eval_od_result_t *ret, char *err, size_t err_size) {
        json_object *objs = eval__json_field(o, "objects"), *name = eval__json_field(o, "image_name");
        json_object *id = eval__json_field(o, "image_id");
        double d;

        if (!json_object_is_type(o, json_type_object)) {
                snprintf(err, err_size, "not an object");
                return -EINVAL;
        }
        if (name) {
                if (!json_object_is_type(name, json_type_string)) {
                        snprintf(err, err_size, "image_name must be a string");
                        return -EINVAL;
                }
                ret->image_name = strdup(json_object_get_string(name));
                if (!ret->image_name)
                        return -ENOMEM;
        }
        if (id) {
                if (eval__json_number(id, &d) < 0 || d != floor(d)) {
                        snprintf(err, err_size, "image_id must be an integer");
                        return -EINVAL;
                }
                ret->image_id = (int64_t) d;
        }
        if (!objs)
                return 0;
        if (!json_object_is_type(objs, json_type_array)) {
                snprintf(err, err_size, "objects must be an array");
                return -EINVAL;
        }
        size_t n = json_object_array_length(objs);
        ret->objects = calloc(n ? n : 1, sizeof(*ret->objects));
        if (!ret->objects)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                char msg[200] = "";
                int r = object_parse(json_object_array_get_idx(objs, i), &ret->objects[i], msg, sizeof(msg));
                if (r < 0) {
                        snprintf(err, err_size, "objects[%zu]: %s", i, msg);
                        return r;
                }
                ret->n_objects++;
        }
        return 0;
}

int eval_od_ground_truth_parse(const char *json, eval_od_ground_truth_t *ret, char *err, size_t err_size) {
        enum json_tokener_error jerr;
        json_object *root = json_tokener_parse_verbose(json, &jerr), *arr;
        eval_od_ground_truth_t g = {};
        int r = -EINVAL;

        if (!root) {
                snprintf(err, err_size, "not JSON: %s", json_tokener_error_desc(jerr));
                return -EINVAL;
        }
        arr = eval__json_field(root, "detection_results");
        if (!arr || !json_object_is_type(arr, json_type_array)) {
                snprintf(err, err_size, "expected an ObjectDetectionGroundTruth object with a \"detection_results\" "
                                        "array");
                goto done;
        }
        size_t n = json_object_array_length(arr);
        g.results = calloc(n ? n : 1, sizeof(*g.results));
        if (!g.results) {
                r = -ENOMEM;
                goto done;
        }
        for (size_t i = 0; i < n; i++) {
                char msg[256] = "";
                g.n_results++;
                r = result_parse(json_object_array_get_idx(arr, i), &g.results[i], msg, sizeof(msg));
                if (r < 0) {
                        snprintf(err, err_size, "detection_results[%zu]: %s", i, msg[0] ? msg : strerror(-r));
                        goto done;
                }
        }
        *ret = g;
        g = (eval_od_ground_truth_t) {};
        r = 0;
done:
        eval_od_ground_truth_done(&g);
        json_object_put(root);
        return r;
}

int eval_od_ground_truth_load(const char *path, eval_od_ground_truth_t *ret, char *err, size_t err_size) {
        _cleanup_free_ char *buf = NULL;
        char msg[300] = "";
        int r = eval_file_read(path, &buf, NULL, err, err_size);

        if (r < 0)
                return r;
        r = eval_od_ground_truth_parse(buf, ret, msg, sizeof(msg));
        if (r < 0)
                snprintf(err, err_size, "%s: %s", path, msg[0] ? msg : strerror(-r));
        return r;
}

const eval_od_result_t *eval_od_ground_truth_find(const eval_od_ground_truth_t *g, const char *image_name) {
        for (size_t i = 0; i < g->n_results; i++)
                if (g->results[i].image_name && strcmp(g->results[i].image_name, image_name) == 0)
                        return &g->results[i];
        return NULL;
}
