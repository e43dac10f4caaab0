/* SPDX-License-Identifier: Apache-2.0 */
/* ImagePreprocessingParams: the step pipeline, its defaults, its JSON. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "cleanup.h"
#include "eval.h"
#include "json-util.h"

#define TYPE_FLOAT32 0
#define TYPE_UINT8 3
#define TYPE_INT8 9

int eval_preprocess_apply(const eval_preprocess_t *p, eval_image_t **img, char *err, size_t err_size) {
        for (size_t i = 0; i < p->n_steps; i++) {
                const eval_step_t *s = &p->steps[i];
                char msg[256] = "";
                int r;

                switch (s->kind) {
                case EVAL_STEP_CROP:
                        r = eval_crop_apply(&s->crop, img, msg, sizeof(msg));
                        break;
                case EVAL_STEP_RESIZE:
                        r = eval_resize_apply(&s->resize, img, msg, sizeof(msg));
                        break;
                case EVAL_STEP_PAD:
                        r = eval_pad_apply(&s->pad, img, msg, sizeof(msg));
                        break;
                case EVAL_STEP_NORMALIZE:
                        r = eval_normalize_apply(&s->normalize, *img, msg, sizeof(msg));
                        break;
                default:
                        snprintf(msg, sizeof(msg), "unknown kind %d", (int) s->kind);
                        r = -EINVAL;
                }
                if (r < 0) {
                        snprintf(err, err_size, "preprocessing step %zu: %s", i + 1, msg[0] ? msg : strerror(-r));
                        return r;
                }
        }
        return 0;
}

int eval_preprocess_default(int32_t type, uint32_t width, uint32_t height, float scale, int32_t zero_point,
                            bool crop, eval_preprocess_t *ret) {
        eval_preprocess_t p = { .output_type = type };
        eval_normalize_t norm = { .scale = 1.0f };
        bool normalize = true;

        if (width == 0 || height == 0)
                return -EINVAL;
        switch (type) {
        case TYPE_FLOAT32:
                norm = (eval_normalize_t) { { 127.5f, 127.5f, 127.5f }, 1.0f / 127.5f };
                break;
        case TYPE_UINT8:
        case TYPE_INT8:
                if (scale > 0) {
                        /* The real values the quantized input stands for:
                         * quantizing them gives back the pixel (uint8) or
                         * pixel - 128 (int8) that the tool feeds. */
                        float z = (float) zero_point + (type == TYPE_INT8 ? 128.0f : 0.0f);
                        norm = (eval_normalize_t) { { z, z, z }, scale };
                } else if (type == TYPE_INT8)
                        norm = (eval_normalize_t) { { 128.0f, 128.0f, 128.0f }, 1.0f };
                else
                        normalize = false;
                break;
        default:
                return -EINVAL;
        }
        if (crop)
                p.steps[p.n_steps++] = (eval_step_t) {
                        .kind = EVAL_STEP_CROP,
                        .crop = { .use_fraction = true, .fraction = 0.875f },
                };
        p.steps[p.n_steps++] = (eval_step_t) {
                .kind = EVAL_STEP_RESIZE,
                .resize = { .width = width, .height = height },
        };
        if (normalize)
                p.steps[p.n_steps++] = (eval_step_t) { .kind = EVAL_STEP_NORMALIZE, .normalize = norm };
        *ret = p;
        return 0;
}

/* ---- JSON ---- */

static int size_parse(json_object *o, const char *what, uint32_t *w, uint32_t *h, char *err, size_t err_size) {
        double dw, dh;
        json_object *jw = eval__json_field(o, "width"), *jh = eval__json_field(o, "height");

        if (!jw || !jh || eval__json_number(jw, &dw) < 0 || eval__json_number(jh, &dh) < 0 || dw < 1 || dh < 1 ||
            dw > 32768 || dh > 32768 || dw != floor(dw) || dh != floor(dh)) {
                snprintf(err, err_size, "%s: target_size needs integer width and height in 1..32768", what);
                return -EINVAL;
        }
        *w = (uint32_t) dw;
        *h = (uint32_t) dh;
        return 0;
}

static bool bool_field(json_object *o, const char *name) {
        json_object *v = eval__json_field(o, name);
        return v && json_object_get_boolean(v);
}

static int float_field(json_object *o, const char *name, float def, float *ret, char *err, size_t err_size) {
        json_object *v = eval__json_field(o, name);
        double d;

        if (!v) {
                *ret = def;
                return 0;
        }
        if (eval__json_number(v, &d) < 0) {
                snprintf(err, err_size, "%s must be a number", name);
                return -EINVAL;
        }
        *ret = (float) d;
        return 0;
}

static int step_parse(json_object *s, eval_step_t *ret, char *err, size_t err_size) {
        json_object *o;
        int r;

        if ((o = eval__json_field(s, "cropping_params"))) {
                eval_crop_t c = { .square = bool_field(o, "square_cropping") };
                json_object *ts = eval__json_field(o, "target_size");
                if (ts) {
                        r = size_parse(ts, "cropping_params", &c.width, &c.height, err, err_size);
                        if (r < 0)
                                return r;
                } else {
                        c.use_fraction = true;
                        r = float_field(o, "cropping_fraction", 0.875f, &c.fraction, err, err_size);
                        if (r < 0)
                                return r;
                }
                *ret = (eval_step_t) { .kind = EVAL_STEP_CROP, .crop = c };
                return 0;
        }
        if ((o = eval__json_field(s, "resizing_params"))) {
                eval_resize_t z = { .aspect_preserving = bool_field(o, "aspect_preserving") };
                r = size_parse(eval__json_field(o, "target_size"), "resizing_params", &z.width, &z.height, err,
                               err_size);
                if (r < 0)
                        return r;
                *ret = (eval_step_t) { .kind = EVAL_STEP_RESIZE, .resize = z };
                return 0;
        }
        if ((o = eval__json_field(s, "padding_params"))) {
                eval_pad_t p = { .to_square = bool_field(o, "to_square") };
                float v;
                if (!p.to_square) {
                        r = size_parse(eval__json_field(o, "target_size"), "padding_params", &p.width, &p.height, err,
                                       err_size);
                        if (r < 0)
                                return r;
                }
                r = float_field(o, "padding_value", 0, &v, err, err_size);
                if (r < 0)
                        return r;
                p.value = (int32_t) v;
                *ret = (eval_step_t) { .kind = EVAL_STEP_PAD, .pad = p };
                return 0;
        }
        if ((o = eval__json_field(s, "normalization_params"))) {
                eval_normalize_t n;
                json_object *means = eval__json_field(o, "means");
                r = float_field(o, "scale", 1.0f, &n.scale, err, err_size);
                if (r >= 0 && means) {
                        r = float_field(means, "r_mean", 0, &n.mean[0], err, err_size);
                        if (r >= 0)
                                r = float_field(means, "g_mean", 0, &n.mean[1], err, err_size);
                        if (r >= 0)
                                r = float_field(means, "b_mean", 0, &n.mean[2], err, err_size);
                } else if (r >= 0) {
                        r = float_field(o, "channelwise_mean", 0, &n.mean[0], err, err_size);
                        n.mean[1] = n.mean[2] = n.mean[0];
                }
                if (r < 0)
                        return r;
                *ret = (eval_step_t) { .kind = EVAL_STEP_NORMALIZE, .normalize = n };
                return 0;
        }
        snprintf(err, err_size, "a step needs one of cropping_params, resizing_params, padding_params, "
                                "normalization_params");
        return -EINVAL;
}

static int type_parse(json_object *v, int32_t *ret) {
        static const struct {
                const char *name;
                int32_t type;
        } names[] = {
                { "float32", TYPE_FLOAT32 }, { "kTfLiteFloat32", TYPE_FLOAT32 },
                { "uint8", TYPE_UINT8 },     { "kTfLiteUInt8", TYPE_UINT8 },
                { "int8", TYPE_INT8 },       { "kTfLiteInt8", TYPE_INT8 },
        };
        double d;

        if (json_object_is_type(v, json_type_string))
                for (size_t i = 0; i < ELEMENTSOF(names); i++)
                        if (strcasecmp(json_object_get_string(v), names[i].name) == 0) {
                                *ret = names[i].type;
                                return 0;
                        }
        if (eval__json_number(v, &d) < 0 || (d != TYPE_FLOAT32 && d != TYPE_UINT8 && d != TYPE_INT8))
                return -EINVAL;
        *ret = (int32_t) d;
        return 0;
}

int eval_preprocess_parse_json(const char *json, int32_t default_type, eval_preprocess_t *ret, char *err,
                               size_t err_size) {
        eval_preprocess_t p = { .output_type = default_type };
        enum json_tokener_error jerr;
        json_object *root = json_tokener_parse_verbose(json, &jerr), *steps, *t;
        int r = -EINVAL;

        if (!root || !json_object_is_type(root, json_type_object)) {
                snprintf(err, err_size, "preprocessing: not a JSON object%s%s", root ? "" : ": ",
                         root ? "" : json_tokener_error_desc(jerr));
                goto done;
        }
        steps = eval__json_field(root, "steps");
        if (!steps || !json_object_is_type(steps, json_type_array)) {
                snprintf(err, err_size, "preprocessing: \"steps\" must be an array");
                goto done;
        }
        if (json_object_array_length(steps) > EVAL_MAX_STEPS) {
                snprintf(err, err_size, "preprocessing: at most %d steps", EVAL_MAX_STEPS);
                goto done;
        }
        for (size_t i = 0; i < json_object_array_length(steps); i++) {
                char msg[256] = "";
                r = step_parse(json_object_array_get_idx(steps, i), &p.steps[p.n_steps++], msg, sizeof(msg));
                if (r < 0) {
                        snprintf(err, err_size, "preprocessing step %zu: %s", i + 1, msg);
                        goto done;
                }
        }
        t = eval__json_field(root, "output_type");
        if (t && type_parse(t, &p.output_type) < 0) {
                snprintf(err, err_size, "preprocessing: output_type must be float32 (0), uint8 (3) or int8 (9)");
                r = -EINVAL;
                goto done;
        }
        *ret = p;
        r = 0;
done:
        json_object_put(root);
        return r;
}
