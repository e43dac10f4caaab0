/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Pooling: MAX_POOL_2D, AVERAGE_POOL_2D, and MEAN over both spatial axes as a
 * global average pooling.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xnnpack.h>

#include "rt.h"
#include "xnnpack-internal.h"

/* MAX_POOL_2D, AVERAGE_POOL_2D */
int rt__xnn_define_pooling(rt__xnn_ctx_t *x, const rt_node_t *n) {
        fbt_table_t o = n->options;
        int32_t in0 = n->n_inputs > 0 ? n->inputs[0] : -1;
        int32_t out0 = n->n_outputs > 0 ? n->outputs[0] : -1;
        uint32_t a, y;
        float lo, hi;
        int r;
        const rt_tensor_t *in = rt__xnn_tensor(x, in0);
        if (!in || in->rank != 4)
                return rt__xnn_refuse(x, "pooling needs a 4D input");
        int pad = fbt_i8(o, 0, 0);
        int32_t sw = fbt_i32(o, 1, 1), sh = fbt_i32(o, 2, 1), fw = fbt_i32(o, 3, 1), fh = fbt_i32(o, 4, 1);
        if ((r = rt__xnn_act_range_bounded(x, fbt_i8(o, 5, 0), &lo, &hi)) < 0)
                return r;
        if (fw < 1 || fh < 1 || sw < 1 || sh < 1)
                return rt__xnn_refuse(x, "invalid pooling window");
        if (fw == 1 && fh == 1)
                return rt__xnn_refuse(x, "1x1 pooling not supported");
        /* XNNPACK's pooling clamps turn a NaN input into the lower bound
         * (TFLite's builtin kernels keep it). TensorFlow Lite's own XNNPACK
         * delegate leaves float windows with a stride above their size to
         * the builtin kernels, so there the NaN difference would be ours
         * alone: the same here. */
        if (in->type == RT_TYPE_FLOAT32 && (sw > fw || sh > fh))
                return rt__xnn_refuse(x, "float pooling with a stride above the window (%dx%d, stride %dx%d)",
                                      fh, fw, sh, sw);
        if ((r = rt__xnn_want_float_or_q(x, in0)) < 0 || (r = rt__xnn_value(x, in0, &a)) < 0 ||
            (r = rt__xnn_value(x, out0, &y)) < 0)
                return r;
        uint32_t pt = 0, pb = 0, pl = 0, pr = 0, flags = 0;
        if (pad == RT_PADDING_SAME) {
                rt__xnn_same_padding(in->dims[1], fh, sh, 1, &pt, &pb);
                rt__xnn_same_padding(in->dims[2], fw, sw, 1, &pl, &pr);
        }
        enum xnn_status st;
        if (n->op == RT_BUILTIN_MAX_POOL_2D)
                st = xnn_define_max_pooling_2d(x->sg, pt, pr, pb, pl, (uint32_t) fh, (uint32_t) fw, (uint32_t) sh,
                                               (uint32_t) sw, 1, 1, lo, hi, a, y, flags);
        else
                st = xnn_define_average_pooling_2d(x->sg, pt, pr, pb, pl, (uint32_t) fh, (uint32_t) fw,
                                                   (uint32_t) sh, (uint32_t) sw, lo, hi, a, y, flags);
        return rt__xnn_check(x, st, rt_op_name(n->op));
}

/* MEAN */
int rt__xnn_define_mean(rt__xnn_ctx_t *x, const rt_node_t *n) {
        fbt_table_t o = n->options;
        int32_t in0 = n->n_inputs > 0 ? n->inputs[0] : -1;
        int32_t out0 = n->n_outputs > 0 ? n->outputs[0] : -1;
        uint32_t a, y;
        int r;
        const rt_tensor_t *in = rt__xnn_tensor(x, in0), *ax = rt__xnn_tensor(x, n->inputs[1]);
        const rt_tensor_t *out = rt__xnn_tensor(x, out0);
        if (!in || in->rank != 4 || !ax || !rt_tensor_is_const(ax) || ax->type != RT_TYPE_INT32)
                return rt__xnn_refuse(x, "MEAN needs a 4D input and constant axes");
        const int32_t *axes = ax->data;
        size_t na = rt_tensor_count(ax);
        bool h = false, w = false;
        for (size_t k = 0; k < na; k++) {
                int32_t v = axes[k] < 0 ? axes[k] + 4 : axes[k];
                h |= v == 1;
                w |= v == 2;
                if (v != 1 && v != 2)
                        return rt__xnn_refuse(x, "MEAN only over the spatial axes");
        }
        if (!h || !w)
                return rt__xnn_refuse(x, "MEAN only over both spatial axes");
        if (!fbt_bool(o, 0, false) || out->rank != 4)
                return rt__xnn_refuse(x, "MEAN without keep_dims not supported");
        if (in->type != RT_TYPE_FLOAT32)
                return rt__xnn_refuse(x, "quantized MEAN not supported");
        /* XNNPACK multiplies the sum by 1/N where TFLite divides by N;
         * the two agree only when N is a power of two. Instance-norm
         * statistics (style transfer) amplify the last-bit
         * difference, so other sizes stay on the reference kernels. */
        uint64_t hw = (uint64_t) in->dims[1] * (uint64_t) in->dims[2];
        if (hw & (hw - 1))
                return rt__xnn_refuse(x, "MEAN over %llu elements (not a power of two) is not exact",
                              (unsigned long long) hw);
        if ((r = rt__xnn_value(x, in0, &a)) < 0 || (r = rt__xnn_value(x, out0, &y)) < 0)
                return r;
        if (in->dims[1] == 1 && in->dims[2] == 1)
                return rt__xnn_check(x, xnn_define_clamp(x->sg, -INFINITY, INFINITY, a, y, 0), "MEAN");
        return rt__xnn_check(x, xnn_define_average_pooling_2d(x->sg, 0, 0, 0, 0, (uint32_t) in->dims[1],
                                                      (uint32_t) in->dims[2], 1, 1, -INFINITY, INFINITY, a,
                                                      y, 0),
                             "MEAN");
}
