/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Activations and elementwise unary ops: the RELU family as clamps, LEAKY_RELU,
 * PRELU, SOFTMAX and the float-only math ops.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xnnpack.h>

#include "rt.h"
#include "xnnpack-internal.h"

/* RELU, RELU6, RELU_N1_TO_1 */
int rt__xnn_define_relu(rt__xnn_ctx_t *x, const rt_node_t *n) {
        int32_t in0 = n->n_inputs > 0 ? n->inputs[0] : -1;
        int32_t out0 = n->n_outputs > 0 ? n->outputs[0] : -1;
        uint32_t a, y;
        float lo, hi;
        int r;
        const rt_tensor_t *in = rt__xnn_tensor(x, in0), *out = rt__xnn_tensor(x, out0);
        if (!in || !out || in->rank == 0)
                return rt__xnn_refuse(x, "rank-0 %s input not supported", rt_op_name(n->op));
        /* XNNPACK clamps quantized values in place: it cannot requantize. */
        if (in->type != RT_TYPE_FLOAT32 && (in->scale != out->scale || in->zero_point != out->zero_point))
                return rt__xnn_refuse(x, "quantized %s with different input and output quantization",
                                      rt_op_name(n->op));
        if ((r = rt__xnn_want_float_or_q(x, in0)) < 0 || (r = rt__xnn_value(x, in0, &a)) < 0 ||
            (r = rt__xnn_value(x, out0, &y)) < 0)
                return r;
        (void) rt__xnn_relu_bounds(n->op, &lo, &hi);
        return rt__xnn_check(x, xnn_define_clamp(x->sg, lo, hi, a, y, 0), rt_op_name(n->op));
}

/* LEAKY_RELU */
int rt__xnn_define_leaky_relu(rt__xnn_ctx_t *x, const rt_node_t *n) {
        fbt_table_t o = n->options;
        int32_t in0 = n->n_inputs > 0 ? n->inputs[0] : -1;
        int32_t out0 = n->n_outputs > 0 ? n->outputs[0] : -1;
        uint32_t a, y;
        int r;
        if ((r = rt__xnn_want_float_or_q(x, in0)) < 0 || (r = rt__xnn_value(x, in0, &a)) < 0 ||
            (r = rt__xnn_value(x, out0, &y)) < 0)
                return r;
        return rt__xnn_check(x, xnn_define_leaky_relu(x->sg, fbt_f32(o, 0, 0.0f), a, y, 0), "LEAKY_RELU");
}

/* PRELU with per-channel constant slopes */
int rt__xnn_define_prelu(rt__xnn_ctx_t *x, const rt_node_t *n) {
        int32_t in0 = n->n_inputs > 0 ? n->inputs[0] : -1;
        int32_t out0 = n->n_outputs > 0 ? n->outputs[0] : -1;
        uint32_t a, b, y;
        int r;
        const rt_tensor_t *in = rt__xnn_tensor(x, in0), *s = rt__xnn_tensor(x, n->inputs[1]);
        if (!s || !rt__xnn_is_static(x, n->inputs[1]) || in->type != RT_TYPE_FLOAT32 || in->rank != 4)
                return rt__xnn_refuse(x, "PRELU needs float 4D input and constant slopes");
        /* XNNPACK takes one slope per channel: the slopes must vary along
         * the last axis alone (every other dimension 1), not merely have as
         * many elements as there are channels. */
        size_t cnt = rt_tensor_count(s);
        bool per_channel = s->rank >= 1 && s->dims[s->rank - 1] == in->dims[3];
        for (int32_t d = 0; per_channel && d + 1 < s->rank; d++)
                per_channel = s->dims[d] == 1;
        if (!per_channel || (int32_t) cnt != in->dims[3])
                return rt__xnn_refuse(x, "PRELU slopes must be per channel");
        if ((r = rt__xnn_value(x, in0, &a)) < 0 || (r = rt__xnn_value(x, out0, &y)) < 0)
                return r;
        size_t dims[1] = { cnt };
        const void *data = x->folded[n->inputs[1]] ? (const void *) x->folded[n->inputs[1]] : s->data;
        if (s->type != RT_TYPE_FLOAT32 && !x->folded[n->inputs[1]])
                return rt__xnn_refuse(x, "PRELU slopes must be float");
        if (rt__xnn_check(x, xnn_define_tensor_value(x->sg, xnn_datatype_fp32, 1, dims, data, XNN_INVALID_VALUE_ID, 0,
                                             &b), "PRELU slopes") < 0)
                return -ENOTSUP;
        return rt__xnn_check(x, xnn_define_prelu(x->sg, a, b, y, 0), "PRELU");
}

/* SOFTMAX (beta 1 only) */
int rt__xnn_define_softmax(rt__xnn_ctx_t *x, const rt_node_t *n) {
        fbt_table_t o = n->options;
        int32_t in0 = n->n_inputs > 0 ? n->inputs[0] : -1;
        int32_t out0 = n->n_outputs > 0 ? n->outputs[0] : -1;
        uint32_t a, y;
        int r;
        if (fbt_f32(o, 0, 1.0f) != 1.0f)
                return rt__xnn_refuse(x, "SOFTMAX with beta != 1 not supported");
        if (rt__xnn_tensor(x, in0)->type != RT_TYPE_FLOAT32)
                return rt__xnn_refuse(x, "quantized SOFTMAX not supported");
        if (rt__xnn_tensor(x, in0)->rank == 0)
                return rt__xnn_refuse(x, "rank-0 SOFTMAX input not supported");
        if ((r = rt__xnn_value(x, in0, &a)) < 0 || (r = rt__xnn_value(x, out0, &y)) < 0)
                return r;
        return rt__xnn_check(x, xnn_define_softmax(x->sg, a, y, 0), "SOFTMAX");
}

/* ELU, LOGISTIC, HARD_SWISH, ABS, CEIL, FLOOR, NEG, ROUND, SQUARE, SQRT */
int rt__xnn_define_unary(rt__xnn_ctx_t *x, const rt_node_t *n) {
        int32_t in0 = n->n_inputs > 0 ? n->inputs[0] : -1;
        int32_t out0 = n->n_outputs > 0 ? n->outputs[0] : -1;
        uint32_t a, y;
        int r;
        const rt_tensor_t *in = rt__xnn_tensor(x, in0);
        /* Debian's XNNPACK asserts (aborts the process) on rank-0 inputs of
         * some unary nodes, e.g. bankers rounding. */
        if (!in || in->rank == 0)
                return rt__xnn_refuse(x, "rank-0 %s input not supported", rt_op_name(n->op));
        if (in->type != RT_TYPE_FLOAT32 && n->op != RT_BUILTIN_LOGISTIC && n->op != RT_BUILTIN_ELU)
                return rt__xnn_refuse(x, "quantized %s not supported", rt_op_name(n->op));
        if ((r = rt__xnn_want_float_or_q(x, in0)) < 0 || (r = rt__xnn_value(x, in0, &a)) < 0 ||
            (r = rt__xnn_value(x, out0, &y)) < 0)
                return r;
        enum xnn_status st;
        switch (n->op) {
        case RT_BUILTIN_ELU: st = xnn_define_elu(x->sg, 1.0f, a, y, 0); break;
        case RT_BUILTIN_LOGISTIC: st = xnn_define_sigmoid(x->sg, a, y, 0); break;
        case RT_BUILTIN_HARD_SWISH: st = xnn_define_hardswish(x->sg, a, y, 0); break;
        case RT_BUILTIN_ABS: st = xnn_define_abs(x->sg, a, y, 0); break;
        case RT_BUILTIN_CEIL: st = xnn_define_ceiling(x->sg, a, y, 0); break;
        case RT_BUILTIN_FLOOR: st = xnn_define_floor(x->sg, a, y, 0); break;
        case RT_BUILTIN_NEG: st = xnn_define_negate(x->sg, a, y, 0); break;
        case RT_BUILTIN_ROUND: st = xnn_define_bankers_rounding(x->sg, a, y, 0); break;
        case RT_BUILTIN_SQUARE: st = xnn_define_square(x->sg, a, y, 0); break;
        default: st = xnn_define_square_root(x->sg, a, y, 0); break;
        }
        return rt__xnn_check(x, st, rt_op_name(n->op));
}
