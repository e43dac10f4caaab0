/* SPDX-License-Identifier: Apache-2.0 */
/*
 * CAST between bool, int8, uint8, int16, uint16, int32, uint32, int64,
 * float16 (input only), float32 and float64, with C++ static_cast semantics
 * (floats truncate toward zero, anything non-zero is true); and ZEROS_LIKE /
 * ONES_LIKE.
 */
#include <math.h>
#include <string.h>

#include "ew.h"

static bool cast_type_ok(rt_type_t t, bool output) {
        switch (t) {
        case RT_TYPE_BOOL:
        case RT_TYPE_INT8:
        case RT_TYPE_UINT8:
        case RT_TYPE_INT16:
        case RT_TYPE_UINT16:
        case RT_TYPE_INT32:
        case RT_TYPE_UINT32:
        case RT_TYPE_INT64:
        case RT_TYPE_FLOAT32:
        case RT_TYPE_FLOAT64:
                return true;
        case RT_TYPE_FLOAT16:
                return !output;
        default:
                return false;
        }
}

static bool is_float(rt_type_t t) {
        return t == RT_TYPE_FLOAT32 || t == RT_TYPE_FLOAT64 || t == RT_TYPE_FLOAT16;
}

static float half_bits_to_float(uint16_t h) {
        const int32_t e = (h >> 10) & 0x1f;
        const float m = (float) (h & 0x3ff);
        float v;
        if (e == 0)
                v = ldexpf(m, -24);
        else if (e == 0x1f)
                v = (h & 0x3ff) ? NAN : INFINITY;
        else
                v = ldexpf(m + 1024.0f, e - 25);
        return (h & 0x8000) ? -v : v;
}

static int cast_prepare(rt_context_t *ctx, rt_node_t *node) {
        int r = ew_check_io(ctx, node, "CAST", 1, 1);
        if (r < 0)
                return r;
        const rt_tensor_t *a = rt_node_input(ctx, node, 0);
        const rt_tensor_t *o = rt_node_output(ctx, node, 0);
        if (!cast_type_ok(a->type, false) || !cast_type_ok(o->type, true))
                return ew_unsupported(ctx, "CAST", a->type, o->type);
        return ew_resize_same(ctx, node, a);
}

static double load_f(const void *p, rt_type_t t, size_t i) {
        switch (t) {
        case RT_TYPE_FLOAT32: return ((const float *) p)[i];
        case RT_TYPE_FLOAT64: return ((const double *) p)[i];
        default: return half_bits_to_float(((const uint16_t *) p)[i]);
        }
}

static int64_t load_i(const void *p, rt_type_t t, size_t i) {
        switch (t) {
        case RT_TYPE_BOOL: return ((const uint8_t *) p)[i] != 0;
        case RT_TYPE_INT8: return ((const int8_t *) p)[i];
        case RT_TYPE_UINT8: return ((const uint8_t *) p)[i];
        case RT_TYPE_INT16: return ((const int16_t *) p)[i];
        case RT_TYPE_UINT16: return ((const uint16_t *) p)[i];
        case RT_TYPE_INT32: return ((const int32_t *) p)[i];
        case RT_TYPE_UINT32: return ((const uint32_t *) p)[i];
        default: return ((const int64_t *) p)[i];
        }
}

/* Integer stores wrap to the target width, as a C++ integral cast does. */
static void store_i(void *p, rt_type_t t, size_t i, int64_t v) {
        switch (t) {
        case RT_TYPE_BOOL: ((bool *) p)[i] = v != 0; break;
        case RT_TYPE_INT8: ((int8_t *) p)[i] = (int8_t) (uint8_t) v; break;
        case RT_TYPE_UINT8: ((uint8_t *) p)[i] = (uint8_t) v; break;
        case RT_TYPE_INT16: ((int16_t *) p)[i] = (int16_t) (uint16_t) v; break;
        case RT_TYPE_UINT16: ((uint16_t *) p)[i] = (uint16_t) v; break;
        case RT_TYPE_INT32: ((int32_t *) p)[i] = (int32_t) (uint32_t) v; break;
        case RT_TYPE_UINT32: ((uint32_t *) p)[i] = (uint32_t) v; break;
        case RT_TYPE_FLOAT32: ((float *) p)[i] = (float) v; break;
        case RT_TYPE_FLOAT64: ((double *) p)[i] = (double) v; break;
        default: ((int64_t *) p)[i] = v; break;
        }
}

static int cast_invoke(rt_context_t *ctx, rt_node_t *node) {
        const rt_tensor_t *a = rt_node_input(ctx, node, 0);
        rt_tensor_t *o = rt_node_output(ctx, node, 0);
        size_t n = rt_tensor_count(o);
        (void) ctx;
        for (size_t i = 0; i < n; i++) {
                if (!is_float(a->type)) {
                        store_i(o->data, o->type, i, load_i(a->data, a->type, i));
                        continue;
                }
                const double v = load_f(a->data, a->type, i);
                if (o->type == RT_TYPE_FLOAT32) {
                        ((float *) o->data)[i] = (float) v;
                } else if (o->type == RT_TYPE_FLOAT64) {
                        ((double *) o->data)[i] = v;
                } else if (o->type == RT_TYPE_BOOL) {
                        ((bool *) o->data)[i] = v != 0.0;
                } else {
                        /* Out of range is undefined in C++; x86 (where the
                         * goldens come from) converts through a 32-bit
                         * register for narrow types, or 64-bit for int64 and
                         * uint32, and yields the "integer indefinite" (most
                         * negative value) on overflow. */
                        const bool wide = o->type == RT_TYPE_INT64 || o->type == RT_TYPE_UINT32;
                        const double lim = wide ? 9223372036854775808.0 : 2147483648.0;
                        int64_t iv;
                        if (isnan(v) || v >= lim || v < -lim)
                                iv = wide ? INT64_MIN : INT32_MIN;
                        else
                                iv = (int64_t) v;
                        store_i(o->data, o->type, i, iv);
                }
        }
        return 0;
}

const rt_registration_t rt_kernel_cast = {
        .name = "CAST",
        .op = EW_OP_CAST,
        .prepare = cast_prepare,
        .invoke = cast_invoke,
};

/* ---- ZEROS_LIKE / ONES_LIKE ---- */

static int like_prepare(rt_context_t *ctx, rt_node_t *node, const char *name) {
        int r = ew_check_io(ctx, node, name, 1, 1);
        if (r < 0)
                return r;
        const rt_tensor_t *a = rt_node_input(ctx, node, 0);
        const rt_tensor_t *o = rt_node_output(ctx, node, 0);
        if (o->type != a->type)
                return rt_ctx_error(ctx, "%s: output type %s differs from input type %s", name,
                                    rt_type_name(o->type), rt_type_name(a->type));
        if (a->type != RT_TYPE_FLOAT32 && a->type != RT_TYPE_INT32 && a->type != RT_TYPE_INT64)
                return ew_unsupported(ctx, name, a->type, o->type);
        return ew_resize_same(ctx, node, a);
}

static int zeros_like_prepare(rt_context_t *ctx, rt_node_t *node) {
        return like_prepare(ctx, node, "ZEROS_LIKE");
}

static int ones_like_prepare(rt_context_t *ctx, rt_node_t *node) {
        return like_prepare(ctx, node, "ONES_LIKE");
}

static int fill_like(rt_context_t *ctx, rt_node_t *node, int value) {
        rt_tensor_t *o = rt_node_output(ctx, node, 0);
        size_t n = rt_tensor_count(o);
        for (size_t i = 0; i < n; i++) {
                switch (o->type) {
                case RT_TYPE_FLOAT32: ((float *) o->data)[i] = (float) value; break;
                case RT_TYPE_INT32: ((int32_t *) o->data)[i] = value; break;
                default: ((int64_t *) o->data)[i] = value; break;
                }
        }
        return 0;
}

static int zeros_like_invoke(rt_context_t *ctx, rt_node_t *node) {
        return fill_like(ctx, node, 0);
}

static int ones_like_invoke(rt_context_t *ctx, rt_node_t *node) {
        return fill_like(ctx, node, 1);
}

const rt_registration_t rt_kernel_zeros_like = {
        .name = "ZEROS_LIKE",
        .op = EW_OP_ZEROS_LIKE,
        .prepare = zeros_like_prepare,
        .invoke = zeros_like_invoke,
};

const rt_registration_t rt_kernel_ones_like = {
        .name = "OnesLike",
        .op = RT_OP_CUSTOM,
        .prepare = ones_like_prepare,
        .invoke = ones_like_invoke,
};
