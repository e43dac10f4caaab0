/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Convolutions: CONV_2D (grouped when the filter has fewer input channels) and
 * DEPTHWISE_CONV_2D.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xnnpack.h>

#include "rt.h"
#include "xnnpack-internal.h"

/* Float data of a constant tensor (folded or the model's), or NULL. */
static const float *const_f32(rt__xnn_ctx_t *x, int32_t i) {
        if (i < 0 || i >= x->g->n_tensors)
                return NULL;
        if (x->folded[i])
                return x->folded[i];
        const rt_tensor_t *t = &x->g->tensors[i];
        return t->type == RT_TYPE_FLOAT32 && t->alloc == RT_ALLOC_CONST ? t->data : NULL;
}

/*
 * A float convolution of few input channels over a narrow image (an
 * accelerometer's [time, 3 axes, 1]): XNNPACK's igemm walks its
 * indirection buffer once per kernel tap for one or two channels' worth of
 * products, and that walk is most of the work. Folding the width into the
 * channels gives the same convolution with a 1-wide kernel: input [N, H, W,
 * C] read as [N, H, 1, W*C] (the same bytes), output [N, Ho, Wo, Co]
 * written as [N, Ho, 1, Wo*Co], filter element (wo, co, ky, wi, ci) the
 * original (co, ky, kx, ci) where wi = wo*stride + kx*dilation - pad_left
 * lands inside the image, else 0. Each output's terms are added in the
 * same order (ky, then kx by wi, then ci); a padded tap adds x*0 where it
 * added 0*w. Two static reshapes (copies) carry the views.
 */
#define FOLD_MAX_IN_CHANNELS 2          /* per tap */
#define FOLD_MAX_IN_ROW 16              /* W * C */
#define FOLD_MAX_OUT_ROW 64             /* Wo * Co */

typedef struct fold_conv {
        int32_t cin, cout, kh, kw, sw, dw;
        uint32_t pl;
        const float *filter;            /* [Co][KH][KW][C] */
        bool depthwise;                 /* filter [1][KH][KW][Co] (C = 1) */
        const float *bias;              /* NULL: zeros */
} fold_conv_t;

static int define_folded(rt__xnn_ctx_t *x, const fold_conv_t *fc, const rt_tensor_t *in, const rt_tensor_t *out,
                         uint32_t a, uint32_t y, uint32_t pt, uint32_t pb, uint32_t sh, uint32_t dhf, float lo,
                         float hi) {
        const int32_t w = in->dims[2], wo = out->dims[2];
        const int32_t cin2 = w * fc->cin, cout2 = wo * fc->cout;
        float *f2 = rt__xnn_own(x, sizeof(float) * (size_t) cout2 * (size_t) fc->kh * (size_t) cin2);
        float *b2 = rt__xnn_own(x, sizeof(float) * (size_t) cout2);
        if (!f2 || !b2)
                return -ENOMEM;
        for (int32_t o = 0; o < wo; o++)
                for (int32_t co = 0; co < fc->cout; co++) {
                        const int32_t co2 = o * fc->cout + co;
                        b2[co2] = fc->bias ? fc->bias[co] : 0.0f;
                        for (int32_t ky = 0; ky < fc->kh; ky++)
                                for (int32_t kx = 0; kx < fc->kw; kx++) {
                                        const int32_t wi = o * fc->sw + kx * fc->dw - (int32_t) fc->pl;
                                        if (wi < 0 || wi >= w)
                                                continue;
                                        for (int32_t ci = 0; ci < fc->cin; ci++) {
                                                const size_t src =
                                                        fc->depthwise
                                                                ? ((size_t) ky * fc->kw + kx) * fc->cout + co
                                                                : (((size_t) co * fc->kh + ky) * fc->kw + kx) *
                                                                                  fc->cin + ci;
                                                f2[((size_t) co2 * fc->kh + ky) * cin2 + wi * fc->cin + ci] =
                                                        fc->filter[src];
                                        }
                                }
                }
        const size_t in2[4] = { (size_t) in->dims[0], (size_t) in->dims[1], 1, (size_t) cin2 };
        const size_t out2[4] = { (size_t) out->dims[0], (size_t) out->dims[1], 1, (size_t) cout2 };
        const size_t fdims[4] = { (size_t) cout2, (size_t) fc->kh, 1, (size_t) cin2 };
        const size_t bdims[1] = { (size_t) cout2 };
        const size_t odims[4] = { (size_t) out->dims[0], (size_t) out->dims[1], (size_t) wo, (size_t) fc->cout };
        uint32_t a2, y2, fid, bid;
        enum xnn_status st = xnn_define_tensor_value(x->sg, xnn_datatype_fp32, 4, in2, NULL, XNN_INVALID_VALUE_ID,
                                                     0, &a2);
        if (st == xnn_status_success)
                st = xnn_define_tensor_value(x->sg, xnn_datatype_fp32, 4, out2, NULL, XNN_INVALID_VALUE_ID, 0,
                                             &y2);
        if (st == xnn_status_success)
                st = xnn_define_tensor_value(x->sg, xnn_datatype_fp32, 4, fdims, f2, XNN_INVALID_VALUE_ID, 0,
                                             &fid);
        if (st == xnn_status_success)
                st = xnn_define_tensor_value(x->sg, xnn_datatype_fp32, 1, bdims, b2, XNN_INVALID_VALUE_ID, 0,
                                             &bid);
        if (st == xnn_status_success)
                st = xnn_define_static_reshape(x->sg, 4, in2, a, a2, 0);
        if (st == xnn_status_success)
                st = xnn_define_convolution_2d(x->sg, pt, 0, pb, 0, (uint32_t) fc->kh, 1, sh, 1, dhf, 1, 1,
                                               (size_t) cin2, (size_t) cout2, lo, hi, a2, fid, bid, y2, 0);
        if (st == xnn_status_success)
                st = xnn_define_static_reshape(x->sg, 4, odims, y2, y, 0);
        return rt__xnn_check(x, st, "CONV_2D (width folded into channels)");
}

/* Whether the fold above applies: float, one group, few channels per
 * tap, a narrow image and output row, constant filter and bias. */
static bool fold_wanted(rt__xnn_ctx_t *x, const rt_node_t *n, const rt_tensor_t *in, const rt_tensor_t *f,
                        const rt_tensor_t *out, bool dw, fold_conv_t *ret) {
        if (in->type != RT_TYPE_FLOAT32 || !out || out->rank != 4 || in->dims[2] < 2)
                return false;
        const int32_t cin = dw ? 1 : f->dims[3], cout = dw ? f->dims[3] : f->dims[0];
        if (in->dims[3] != cin || cin > FOLD_MAX_IN_CHANNELS || out->dims[3] != cout || out->dims[0] != in->dims[0])
                return false;
        if ((int64_t) in->dims[2] * cin > FOLD_MAX_IN_ROW || (int64_t) out->dims[2] * cout > FOLD_MAX_OUT_ROW)
                return false;
        const float *filter = const_f32(x, n->inputs[1]);
        const float *bias = n->n_inputs > 2 && n->inputs[2] >= 0 ? const_f32(x, n->inputs[2]) : NULL;
        if (!filter || (n->n_inputs > 2 && n->inputs[2] >= 0 && !bias))
                return false;
        *ret = (fold_conv_t) {
                .cin = cin, .cout = cout, .kh = f->dims[1], .kw = f->dims[2],
                .filter = filter, .depthwise = dw, .bias = bias,
        };
        return true;
}

/* CONV_2D, DEPTHWISE_CONV_2D */
int rt__xnn_define_convolution(rt__xnn_ctx_t *x, const rt_node_t *n) {
        fbt_table_t o = n->options;
        int32_t in0 = n->n_inputs > 0 ? n->inputs[0] : -1;
        int32_t out0 = n->n_outputs > 0 ? n->outputs[0] : -1;
        uint32_t a, b, c, y;
        float lo, hi;
        int r;
        bool dw = n->op == RT_BUILTIN_DEPTHWISE_CONV_2D;
        const rt_tensor_t *in = rt__xnn_tensor(x, in0), *f = rt__xnn_tensor(x, n->inputs[1]);
        if (!in || !f || in->rank != 4 || f->rank != 4)
                return rt__xnn_refuse(x, "convolution needs 4D input and filter");
        if (!rt__xnn_is_static(x, n->inputs[1]))
                return rt__xnn_refuse(x, "non-constant convolution filter");
        if (n->n_inputs > 2 && n->inputs[2] >= 0 && !rt__xnn_is_static(x, n->inputs[2]))
                return rt__xnn_refuse(x, "non-constant convolution bias");
        if (in->type != RT_TYPE_FLOAT32 && x->folded[in0] == NULL && f->type != RT_TYPE_INT8 &&
            f->type != RT_TYPE_UINT8)
                return rt__xnn_refuse(x, "hybrid convolution not supported");
        if ((in->type == RT_TYPE_FLOAT32) != (f->type == RT_TYPE_FLOAT32 || x->folded[n->inputs[1]]))
                return rt__xnn_refuse(x, "mixed float/quantized convolution not supported");
        int pad = fbt_i8(o, 0, 0);
        int32_t sw = fbt_i32(o, 1, 1), sh = fbt_i32(o, 2, 1);
        int32_t mult = dw ? fbt_i32(o, 3, 1) : 1;
        int act = fbt_i8(o, dw ? 4 : 3, 0);
        int32_t dwf = fbt_i32(o, dw ? 5 : 4, 1), dhf = fbt_i32(o, dw ? 6 : 5, 1);
        if ((r = rt__xnn_act_range(x, act, &lo, &hi)) < 0)
                return r;
        if (sw < 1 || sh < 1 || dwf < 1 || dhf < 1)
                return rt__xnn_refuse(x, "invalid stride or dilation");
        if ((r = rt__xnn_want_float_or_q(x, in0)) < 0 || (r = rt__xnn_value(x, in0, &a)) < 0 ||
            (r = rt__xnn_value(x, n->inputs[1], &b)) < 0)
                return r;
        int32_t oc = dw ? f->dims[3] : f->dims[0];
        if (n->n_inputs > 2 && n->inputs[2] >= 0) {
                if ((r = rt__xnn_value(x, n->inputs[2], &c)) < 0)
                        return r;
        } else if ((r = rt__xnn_zero_bias(x, in, f, oc, &c)) < 0)
                return r;
        if ((r = rt__xnn_value(x, out0, &y)) < 0)
                return r;
        uint32_t pt = 0, pb = 0, pl = 0, pr = 0, flags = 0;
        if (pad == RT_PADDING_SAME) {
                rt__xnn_same_padding(in->dims[1], f->dims[1], sh, dhf, &pt, &pb);
                rt__xnn_same_padding(in->dims[2], f->dims[2], sw, dwf, &pl, &pr);
        }
        fold_conv_t fc;
        const rt_tensor_t *out = rt__xnn_tensor(x, out0);
        if (fold_wanted(x, n, in, f, out, dw, &fc)) {
                fc.sw = sw;
                fc.dw = dwf;
                fc.pl = pl;
                return define_folded(x, &fc, in, out, a, y, pt, pb, (uint32_t) sh, (uint32_t) dhf, lo, hi);
        }
        enum xnn_status st;
        if (dw) {
                if (in->dims[3] <= 0 || f->dims[3] != in->dims[3] * (f->dims[3] / in->dims[3]))
                        return rt__xnn_refuse(x, "depthwise channel mismatch");
                (void) mult;
                st = xnn_define_depthwise_convolution_2d(
                        x->sg, pt, pr, pb, pl, (uint32_t) f->dims[1], (uint32_t) f->dims[2], (uint32_t) sh,
                        (uint32_t) sw, (uint32_t) dhf, (uint32_t) dwf, (uint32_t) (f->dims[3] / in->dims[3]),
                        (size_t) in->dims[3], lo, hi, a, b, c, y, flags);
        } else {
                if (f->dims[3] <= 0 || in->dims[3] % f->dims[3] != 0)
                        return rt__xnn_refuse(x, "convolution channel mismatch");
                uint32_t groups = (uint32_t) (in->dims[3] / f->dims[3]);
                if (groups != 1 && f->dims[0] % (int32_t) groups != 0)
                        return rt__xnn_refuse(x, "grouped convolution channel mismatch");
                st = xnn_define_convolution_2d(x->sg, pt, pr, pb, pl, (uint32_t) f->dims[1],
                                               (uint32_t) f->dims[2], (uint32_t) sh, (uint32_t) sw,
                                               (uint32_t) dhf, (uint32_t) dwf, groups, (size_t) f->dims[3],
                                               (size_t) f->dims[0] / groups, lo, hi, a, b, c, y, flags);
        }
        return rt__xnn_check(x, st, rt_op_name(n->op));
}
