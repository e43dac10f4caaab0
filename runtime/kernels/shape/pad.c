/* SPDX-License-Identifier: Apache-2.0 */
/* PAD, PADV2 and MIRROR_PAD. */
#include <stdlib.h>
#include <string.h>

#include "shape-internal.h"

typedef enum pad_kind {
        PAD_CONSTANT,
        PAD_REFLECT,
        PAD_SYMMETRIC,
} pad_kind_t;

static pad_kind_t node_kind(const rt_node_t *node) {
        const shape_mirror_pad_params_t *p = node->params;
        if (node->op != SHAPE_OP_MIRROR_PAD)
                return PAD_CONSTANT;
        return p && p->mode == SHAPE_MIRROR_SYMMETRIC ? PAD_SYMMETRIC : PAD_REFLECT;
}

/* Read and check the [rank, 2] paddings; compute the output shape. */
static int pad_shape(rt_context_t *ctx, const rt_node_t *node, int64_t *pads, int32_t *ret_dims) {
        const rt_tensor_t *in = rt_node_input(ctx, node, 0);
        const rt_tensor_t *pt = rt_node_input(ctx, node, 1);
        pad_kind_t kind = node_kind(node);
        if (pt->rank != 2 || pt->dims[0] != in->rank || pt->dims[1] != 2)
                return rt_ctx_error(ctx, "pad: paddings must have shape [%d, 2]", in->rank);
        int n = shape__read_ints(ctx, pt, pads, 2 * RT_MAX_RANK);
        if (n < 0)
                return n;
        for (int32_t d = 0; d < in->rank; d++) {
                int64_t before = pads[2 * d], after = pads[2 * d + 1];
                int64_t limit = kind == PAD_REFLECT ? in->dims[d] - 1 : in->dims[d];
                if (before < 0 || after < 0)
                        return rt_ctx_error(ctx, "pad: negative padding in dimension %d", d);
                if (before > INT32_MAX || after > INT32_MAX)
                        return rt_ctx_error(ctx, "pad: padding too large in dimension %d", d);
                if (kind != PAD_CONSTANT && (before > limit || after > limit))
                        return rt_ctx_error(ctx, "mirror_pad: padding %lld/%lld too large for dimension %d (%d)",
                                            (long long) before, (long long) after, d, in->dims[d]);
                int64_t o = in->dims[d] + before + after;
                if (o > INT32_MAX)
                        return rt_ctx_error(ctx, "pad: dimension %d too large", d);
                ret_dims[d] = (int32_t) o;
        }
        return 0;
}

static int pad_prepare(rt_context_t *ctx, rt_node_t *node) {
        const rt_tensor_t *in = rt_node_input(ctx, node, 0);
        const rt_tensor_t *out = rt_node_output(ctx, node, 0);
        if (!in || !rt_node_input(ctx, node, 1) || !out)
                return rt_ctx_error(ctx, "pad needs an input, paddings and an output");
        size_t es;
        int r = shape__elem_size(ctx, in, "pad", &es);
        if (r < 0)
                return r;
        if (in->type != out->type)
                return rt_ctx_error(ctx, "pad: output type %s differs from input type %s",
                                    rt_type_name(out->type), rt_type_name(in->type));
        const rt_tensor_t *cv = node->op == SHAPE_OP_PADV2 ? rt_node_input(ctx, node, 2) : NULL;
        if (cv) {
                if (cv->type != in->type || rt_tensor_count(cv) != 1)
                        return rt_ctx_error(ctx, "padv2: constant_values must be one %s value",
                                            rt_type_name(in->type));
                if (out->quant.n > 0 && !shape__same_quant(cv, out))
                        return rt_ctx_error(ctx, "padv2: constant_values quantization differs from output");
        }
        if (!rt_tensor_is_const(rt_node_input(ctx, node, 1)))
                return shape__set_dynamic(ctx, node, 0);
        int64_t pads[2 * RT_MAX_RANK];
        int32_t dims[RT_MAX_RANK];
        r = pad_shape(ctx, node, pads, dims);
        if (r < 0)
                return r;
        return rt_ctx_resize(ctx, node, 0, in->rank, dims);
}

static int pad_invoke(rt_context_t *ctx, rt_node_t *node) {
        const rt_tensor_t *in = rt_node_input(ctx, node, 0);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        pad_kind_t kind = node_kind(node);
        int64_t pads[2 * RT_MAX_RANK];
        int32_t dims[RT_MAX_RANK];
        int r = pad_shape(ctx, node, pads, dims);
        if (r < 0)
                return r;
        if (!rt_tensor_is_const(rt_node_input(ctx, node, 1))) {
                r = rt_ctx_resize(ctx, node, 0, in->rank, dims);
                if (r < 0)
                        return r;
        }
        size_t es = rt_type_size(in->type);
        if (!shape__has_data(in, es) || !shape__has_data(out, es))
                return rt_ctx_error(ctx, "pad: input or output has no data");

        /* The padded value: PADV2's constant, else zero, which for quantized
         * 8/16-bit tensors is the output zero point (TFLite). */
        uint8_t value[16] = { 0 };
        const rt_tensor_t *cv = node->op == SHAPE_OP_PADV2 ? rt_node_input(ctx, node, 2) : NULL;
        if (cv) {
                if (!shape__has_data(cv, es))
                        return rt_ctx_error(ctx, "padv2: constant_values has no data");
                memcpy(value, cv->data, es);
        } else if (out->quant.n > 0) {
                if (out->type == RT_TYPE_UINT8)
                        value[0] = (uint8_t) out->zero_point;
                else if (out->type == RT_TYPE_INT8)
                        value[0] = (uint8_t) (int8_t) out->zero_point;
                else if (out->type == RT_TYPE_INT16) {
                        int16_t z = (int16_t) out->zero_point;
                        memcpy(value, &z, 2);
                }
        }

        size_t total = 0;
        for (int32_t d = 0; d < in->rank; d++)
                total += (size_t) dims[d];
        int32_t *buf = malloc((total ? total : 1) * sizeof(int32_t));
        if (!buf)
                return -ENOMEM;
        int32_t *maps[RT_MAX_RANK];
        int64_t strides[RT_MAX_RANK];
        shape__strides(in, strides);
        int32_t *m = buf;
        for (int32_t d = 0; d < in->rank; d++) {
                int32_t before = (int32_t) pads[2 * d], n = in->dims[d];
                maps[d] = m;
                for (int32_t i = 0; i < dims[d]; i++) {
                        int32_t j = i - before;
                        if (j >= 0 && j < n)
                                m[i] = j;
                        else if (kind == PAD_CONSTANT)
                                m[i] = -1;
                        else if (j < 0)
                                m[i] = kind == PAD_REFLECT ? -j : -j - 1;
                        else
                                m[i] = kind == PAD_REFLECT ? 2 * n - 2 - j : 2 * n - 1 - j;
                }
                m += dims[d];
        }
        r = shape__copy_mapped(out->data, in->data, es, in->rank, dims, maps, strides, value);
        free(buf);
        return r;
}

static int mirror_pad_parse(const rt_node_t *node, void *ret_params, rt_context_t *ctx) {
        shape_mirror_pad_params_t *p = ret_params;
        p->mode = (shape_mirror_mode_t) fbt_i8(node->options, 0, 0);
        if (p->mode != SHAPE_MIRROR_REFLECT && p->mode != SHAPE_MIRROR_SYMMETRIC)
                return rt_ctx_error(ctx, "mirror_pad: unknown mode %d", p->mode);
        return 0;
}

const rt_registration_t rt_kernel_pad = {
        .name = "PAD",
        .op = SHAPE_OP_PAD,
        .prepare = pad_prepare,
        .invoke = pad_invoke,
};

const rt_registration_t rt_kernel_padv2 = {
        .name = "PADV2",
        .op = SHAPE_OP_PADV2,
        .prepare = pad_prepare,
        .invoke = pad_invoke,
};

const rt_registration_t rt_kernel_mirror_pad = {
        .name = "MIRROR_PAD",
        .op = SHAPE_OP_MIRROR_PAD,
        .params_size = sizeof(shape_mirror_pad_params_t),
        .parse = mirror_pad_parse,
        .prepare = pad_prepare,
        .invoke = pad_invoke,
};
