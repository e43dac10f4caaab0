/* SPDX-License-Identifier: Apache-2.0 */
/*
 * RESIZE_BILINEAR and RESIZE_NEAREST_NEIGHBOR, matching the kernels that
 * TensorFlow Lite 2.9's builtin op resolver runs: the "optimized" float
 * path (a 2x upsample special case and a generic path that accumulates the
 * four corners in order), the float-weight path with +0.5 for uint8, and
 * the 10-bit fixed-point reference path for int8 and int16.
 */
#include <math.h>
#include <string.h>

#include "kutil.h"
#include "shape-internal.h"

static int resize_parse_bilinear(const rt_node_t *node, void *ret_params, rt_context_t *ctx) {
        shape_resize_params_t *p = ret_params;
        p->align_corners = fbt_bool(node->options, 2, false);
        p->half_pixel_centers = fbt_bool(node->options, 3, false);
        return 0;
}

static int resize_parse_nearest(const rt_node_t *node, void *ret_params, rt_context_t *ctx) {
        shape_resize_params_t *p = ret_params;
        p->align_corners = fbt_bool(node->options, 0, false);
        p->half_pixel_centers = fbt_bool(node->options, 1, false);
        return 0;
}

static int resize_shape(rt_context_t *ctx, const rt_node_t *node, int32_t *dims) {
        const rt_tensor_t *in = rt_node_input(ctx, node, 0);
        const rt_tensor_t *size = rt_node_input(ctx, node, 1);
        int64_t hw[2];
        if (size->type != RT_TYPE_INT32 || rt_tensor_count(size) != 2)
                return rt_ctx_error(ctx, "resize: size must be two int32 values");
        int r = shape__read_ints(ctx, size, hw, 2);
        if (r < 0)
                return r;
        if (hw[0] <= 0 || hw[1] <= 0)
                return rt_ctx_error(ctx, "resize: output size %lldx%lld must be positive", (long long) hw[0],
                                    (long long) hw[1]);
        dims[0] = in->dims[0];
        dims[1] = (int32_t) hw[0];
        dims[2] = (int32_t) hw[1];
        dims[3] = in->dims[3];
        return 0;
}

static int resize_prepare(rt_context_t *ctx, rt_node_t *node) {
        const shape_resize_params_t *p = node->params;
        const rt_tensor_t *in = rt_node_input(ctx, node, 0);
        const rt_tensor_t *out = rt_node_output(ctx, node, 0);
        bool bilinear = node->op == SHAPE_OP_RESIZE_BILINEAR;
        if (!in || !rt_node_input(ctx, node, 1) || !out)
                return rt_ctx_error(ctx, "resize needs an input, a size and an output");
        if (in->rank != 4)
                return rt_ctx_error(ctx, "resize: input must be 4-D, not %d-D", in->rank);
        if (in->type != out->type)
                return rt_ctx_error(ctx, "resize: output type %s differs from input type %s",
                                    rt_type_name(out->type), rt_type_name(in->type));
        if (p && p->align_corners && p->half_pixel_centers && bilinear)
                return rt_ctx_error(ctx, "resize: align_corners and half_pixel_centers are exclusive");
        if (bilinear) {
                if (in->type != RT_TYPE_FLOAT32 && in->type != RT_TYPE_UINT8 && in->type != RT_TYPE_INT8 &&
                    in->type != RT_TYPE_INT16)
                        return rt_ctx_error(ctx, "resize_bilinear: type %s not supported", rt_type_name(in->type));
        } else {
                size_t es;
                int r = shape__elem_size(ctx, in, "resize_nearest_neighbor", &es);
                if (r < 0)
                        return r;
        }
        if (!shape__inputs_const(ctx, node, 1))
                return shape__set_dynamic(ctx, node, 0);
        int32_t dims[4];
        int r = resize_shape(ctx, node, dims);
        if (r < 0)
                return r;
        return rt_ctx_resize(ctx, node, 0, 4, dims);
}

static float resize_scale(int32_t in, int32_t out, bool align_corners) {
        if (align_corners && out > 1)
                return (float) (in - 1) / (float) (out - 1);
        return (float) in / (float) out;
}

/* TFLite ComputeInterpolationValues. */
static void interp(int32_t v, float scale, bool half_pixel, int32_t in_size, float *ret_v, int32_t *ret_lo,
                   int32_t *ret_hi) {
        float sv = half_pixel ? ((float) v + 0.5f) * scale - 0.5f : (float) v * scale;
        *ret_v = sv;
        *ret_lo = KU_MAX((int32_t) floorf(sv), 0);
        *ret_hi = KU_MIN((int32_t) ceilf(sv), in_size - 1);
}

static void bilinear_f32_2x2(const rt_tensor_t *in, rt_tensor_t *out) {
        const float *src = in->data;
        float *dst = out->data;
        int32_t ih = in->dims[1], iw = in->dims[2], c = in->dims[3], ow = out->dims[2];
        for (int32_t b = 0; b < in->dims[0]; b++)
                for (int32_t y0 = 0; y0 < ih; y0++)
                        for (int32_t x0 = 0; x0 < iw; x0++) {
                                int32_t x1 = KU_MIN(x0 + 1, iw - 1), y1 = KU_MIN(y0 + 1, ih - 1);
                                const float *r0 = src + (((size_t) b * ih + y0) * iw) * c;
                                const float *r1 = src + (((size_t) b * ih + y1) * iw) * c;
                                float *o0 = dst + (((size_t) b * out->dims[1] + 2 * y0) * ow + 2 * x0) * c;
                                float *o1 = o0 + (size_t) ow * c;
                                for (int32_t ch = 0; ch < c; ch++) {
                                        float x0y0 = r0[(size_t) x0 * c + ch], x1y0 = r0[(size_t) x1 * c + ch];
                                        float x0y1 = r1[(size_t) x0 * c + ch], x1y1 = r1[(size_t) x1 * c + ch];
                                        o0[ch] = x0y0;
                                        o0[c + ch] = (x0y0 + x1y0) / 2;
                                        float bl = (x0y0 + x0y1) / 2;
                                        o1[ch] = bl;
                                        o1[c + ch] = (bl + ((x1y0 + x1y1) / 2)) / 2;
                                }
                        }
}

static void bilinear_float_weights(const rt_tensor_t *in, rt_tensor_t *out, const shape_resize_params_t *p) {
        int32_t ih = in->dims[1], iw = in->dims[2], c = in->dims[3];
        int32_t oh = out->dims[1], ow = out->dims[2];
        float hs = resize_scale(ih, oh, p->align_corners), ws = resize_scale(iw, ow, p->align_corners);
        bool is_float = in->type == RT_TYPE_FLOAT32;
        for (int32_t b = 0; b < in->dims[0]; b++)
                for (int32_t y = 0; y < oh; y++) {
                        float fy;
                        int32_t y0, y1;
                        interp(y, hs, p->half_pixel_centers, ih, &fy, &y0, &y1);
                        for (int32_t x = 0; x < ow; x++) {
                                float fx;
                                int32_t x0, x1;
                                interp(x, ws, p->half_pixel_centers, iw, &fx, &x0, &x1);
                                size_t off[4] = {
                                        (((size_t) b * ih + y0) * iw + x0) * c,
                                        (((size_t) b * ih + y0) * iw + x1) * c,
                                        (((size_t) b * ih + y1) * iw + x0) * c,
                                        (((size_t) b * ih + y1) * iw + x1) * c,
                                };
                                float w[4] = {
                                        (1 - (fy - y0)) * (1 - (fx - x0)),
                                        (1 - (fy - y0)) * (fx - x0),
                                        (fy - y0) * (1 - (fx - x0)),
                                        (fy - y0) * (fx - x0),
                                };
                                size_t o = (((size_t) b * oh + y) * ow + x) * c;
                                if (is_float) {
                                        const float *s = in->data;
                                        float *d = (float *) out->data + o;
                                        for (int32_t ch = 0; ch < c; ch++) {
                                                /* accumulate corner by corner, as TFLite does */
                                                float acc = 0.0f;
                                                acc += s[off[0] + ch] * w[0];
                                                acc += s[off[1] + ch] * w[1];
                                                acc += s[off[2] + ch] * w[2];
                                                acc += s[off[3] + ch] * w[3];
                                                d[ch] = acc;
                                        }
                                } else {
                                        const uint8_t *s = in->data;
                                        uint8_t *d = (uint8_t *) out->data + o;
                                        for (int32_t ch = 0; ch < c; ch++)
                                                d[ch] = (uint8_t) (s[off[0] + ch] * w[0] + s[off[1] + ch] * w[1] +
                                                                   s[off[2] + ch] * w[2] + s[off[3] + ch] * w[3] +
                                                                   0.5f);
                                }
                        }
                }
}

/* TFLite ComputeInterpolationValuesInteger (10 fractional bits). */
static void interp_int(int32_t v, int32_t scale_10, bool half_pixel, int32_t in_size, int32_t *ret_v,
                       int32_t *ret_lo, int32_t *ret_hi) {
        int32_t sv = half_pixel ? v * scale_10 + scale_10 / 2 - (1 << 9) : v * scale_10;
        *ret_v = sv;
        *ret_lo = KU_MAX(sv / (1 << 10), 0);
        *ret_hi = KU_MIN((sv + (1 << 10) - 1) / (1 << 10), in_size - 1);
}

static int32_t load_int(const rt_tensor_t *t, size_t i) {
        return t->type == RT_TYPE_INT8 ? ((const int8_t *) t->data)[i] : ((const int16_t *) t->data)[i];
}

static void bilinear_integer(const rt_tensor_t *in, rt_tensor_t *out, const shape_resize_params_t *p) {
        int32_t ih = in->dims[1], iw = in->dims[2], c = in->dims[3];
        int32_t oh = out->dims[1], ow = out->dims[2];
        int32_t hs, ws;
        if (p->align_corners && oh > 1)
                hs = ((1 << 10) * (ih - 1) + (oh - 1) / 2) / (oh - 1);
        else
                hs = ((1 << 10) * ih + oh / 2) / oh;
        if (p->align_corners && ow > 1)
                ws = ((1 << 10) * (iw - 1) + (ow - 1) / 2) / (ow - 1);
        else
                ws = ((1 << 10) * iw + ow / 2) / ow;
        for (int32_t b = 0; b < in->dims[0]; b++)
                for (int32_t y = 0; y < oh; y++) {
                        int32_t fy, y0, y1;
                        interp_int(y, hs, p->half_pixel_centers, ih, &fy, &y0, &y1);
                        int64_t wy1 = fy - (1 << 10) * y0, wy0 = (1 << 10) - wy1;
                        for (int32_t x = 0; x < ow; x++) {
                                int32_t fx, x0, x1;
                                interp_int(x, ws, p->half_pixel_centers, iw, &fx, &x0, &x1);
                                int64_t wx1 = fx - (1 << 10) * x0, wx0 = (1 << 10) - wx1;
                                size_t o00 = (((size_t) b * ih + y0) * iw + x0) * c;
                                size_t o01 = (((size_t) b * ih + y0) * iw + x1) * c;
                                size_t o10 = (((size_t) b * ih + y1) * iw + x0) * c;
                                size_t o11 = (((size_t) b * ih + y1) * iw + x1) * c;
                                size_t o = (((size_t) b * oh + y) * ow + x) * c;
                                for (int32_t ch = 0; ch < c; ch++) {
                                        int64_t acc = load_int(in, o00 + ch) * wy0 * wx0 +
                                                      load_int(in, o10 + ch) * wy1 * wx0 +
                                                      load_int(in, o01 + ch) * wy0 * wx1 +
                                                      load_int(in, o11 + ch) * wy1 * wx1;
                                        int64_t round = acc > 0 ? (1 << 19) : -(1 << 19);
                                        int64_t v = (acc + round) / (1 << 20);
                                        if (out->type == RT_TYPE_INT8)
                                                ((int8_t *) out->data)[o + ch] = (int8_t) v;
                                        else
                                                ((int16_t *) out->data)[o + ch] = (int16_t) v;
                                }
                        }
                }
}

/* TFLite GetNearestNeighbor. */
static int32_t nearest(int32_t v, int32_t in_size, int32_t out_size, bool align_corners, bool half_pixel) {
        float scale = resize_scale(in_size, out_size, align_corners);
        float offset = half_pixel ? 0.5f : 0.0f;
        float x = ((float) v + offset) * scale;
        int32_t r = align_corners ? (int32_t) roundf(x) : (int32_t) floorf(x);
        r = KU_MIN(r, in_size - 1);
        if (half_pixel)
                r = KU_MAX(r, 0);
        return r;
}

static int resize_invoke(rt_context_t *ctx, rt_node_t *node) {
        const shape_resize_params_t zero = { 0 };
        const shape_resize_params_t *p = node->params ? node->params : &zero;
        const rt_tensor_t *in = rt_node_input(ctx, node, 0);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        int r;
        if (!shape__inputs_const(ctx, node, 1)) {
                int32_t dims[4];
                r = resize_shape(ctx, node, dims);
                if (r < 0)
                        return r;
                r = rt_ctx_resize(ctx, node, 0, 4, dims);
                if (r < 0)
                        return r;
        }
        size_t es = rt_type_size(in->type);
        if (!shape__has_data(in, es) || !shape__has_data(out, es))
                return rt_ctx_error(ctx, "resize: input or output has no data");
        if (rt_tensor_count(out) == 0 || rt_tensor_count(in) == 0)
                return 0;

        if (node->op == SHAPE_OP_RESIZE_BILINEAR) {
                if (in->type == RT_TYPE_FLOAT32 && !p->align_corners && !p->half_pixel_centers &&
                    out->dims[1] == 2 * in->dims[1] && out->dims[2] == 2 * in->dims[2])
                        bilinear_f32_2x2(in, out);
                else if (in->type == RT_TYPE_FLOAT32 || in->type == RT_TYPE_UINT8)
                        bilinear_float_weights(in, out, p);
                else
                        bilinear_integer(in, out, p);
                return 0;
        }

        int32_t ih = in->dims[1], iw = in->dims[2], c = in->dims[3];
        int32_t oh = out->dims[1], ow = out->dims[2];
        size_t run = (size_t) c * es;
        const uint8_t *src = in->data;
        uint8_t *dst = out->data;
        /* TFLite's optimized uint8 kernel (the one its builtin resolver
         * runs) uses 16.16 fixed point, which can pick another pixel than
         * the float reference for large outputs. */
        bool fixed = in->type == RT_TYPE_UINT8 && !p->align_corners && !p->half_pixel_centers;
        int64_t hs16 = ((int64_t) ih << 16) / oh + 1, ws16 = ((int64_t) iw << 16) / ow + 1;
        for (int32_t b = 0; b < in->dims[0]; b++)
                for (int32_t y = 0; y < oh; y++) {
                        int32_t sy = fixed ? (int32_t) KU_MIN((y * hs16) >> 16, ih - 1)
                                           : nearest(y, ih, oh, p->align_corners, p->half_pixel_centers);
                        for (int32_t x = 0; x < ow; x++, dst += run) {
                                int32_t sx = fixed ? (int32_t) KU_MIN((x * ws16) >> 16, iw - 1)
                                                   : nearest(x, iw, ow, p->align_corners, p->half_pixel_centers);
                                memcpy(dst, src + (((size_t) b * ih + sy) * iw + sx) * run, run);
                        }
                }
        return 0;
}

const rt_registration_t rt_kernel_resize_bilinear = {
        .name = "RESIZE_BILINEAR",
        .op = SHAPE_OP_RESIZE_BILINEAR,
        .params_size = sizeof(shape_resize_params_t),
        .parse = resize_parse_bilinear,
        .prepare = resize_prepare,
        .invoke = resize_invoke,
};

const rt_registration_t rt_kernel_resize_nearest_neighbor = {
        .name = "RESIZE_NEAREST_NEIGHBOR",
        .op = SHAPE_OP_RESIZE_NEAREST_NEIGHBOR,
        .params_size = sizeof(shape_resize_params_t),
        .parse = resize_parse_nearest,
        .prepare = resize_prepare,
        .invoke = resize_invoke,
};
