/* SPDX-License-Identifier: Apache-2.0 */
/*
 * RFFT2D (float32 [..., H, W] + int32 fft_length [2] -> complex64
 * [..., fft_h, fft_w / 2 + 1]) and the complex helpers COMPLEX_ABS, REAL and
 * IMAG (complex64 -> float32). As in TFLite rfft2d.cc, the input is cropped
 * or zero-padded to fft_length, the transform is computed in double
 * precision and rounded to float. fft_length entries must be powers of two.
 */
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "sequence.h"

static bool is_pow2(int32_t v) {
        return v > 0 && (v & (v - 1)) == 0;
}

static int rfft2d_out_shape(rt_context_t *ctx, const rt_tensor_t *in, const rt_tensor_t *len, int32_t *ret_dims) {
        const int32_t *fl = len->data;
        if (!is_pow2(fl[0]) || !is_pow2(fl[1]))
                return rt_ctx_error(ctx, "RFFT2D: fft_length [%d, %d] must be powers of two", fl[0], fl[1]);
        memcpy(ret_dims, in->dims, sizeof(int32_t) * (size_t) in->rank);
        ret_dims[in->rank - 2] = fl[0];
        ret_dims[in->rank - 1] = fl[1] / 2 + 1;
        return 0;
}

static int rfft2d_prepare(rt_context_t *ctx, rt_node_t *node) {
        if (node->n_inputs != 2 || node->n_outputs != 1)
                return rt_ctx_error(ctx, "RFFT2D: expected 2 inputs and 1 output");
        rt_tensor_t *in = rt_node_input(ctx, node, 0);
        rt_tensor_t *len = rt_node_input(ctx, node, 1);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        if (!in || !len || !out)
                return rt_ctx_error(ctx, "RFFT2D: missing tensor");
        if (in->type != RT_TYPE_FLOAT32 || in->rank < 2)
                return rt_ctx_error(ctx, "RFFT2D: input must be float32 of rank >= 2");
        if (len->type != RT_TYPE_INT32 || len->rank != 1 || len->dims[0] != 2)
                return rt_ctx_error(ctx, "RFFT2D: fft_length must be int32 [2]");
        if (out->type != RT_TYPE_COMPLEX64)
                return rt_ctx_error(ctx, "RFFT2D: output must be complex64");
        if (!rt_tensor_is_const(len) || !len->data)
                return ctx->set_dynamic(ctx, node->outputs[0]);
        int32_t dims[RT_MAX_RANK];
        int r = rfft2d_out_shape(ctx, in, len, dims);
        if (r < 0)
                return r;
        return rt_ctx_resize(ctx, node, 0, in->rank, dims);
}

/* One real-input 2-D DFT of an fh x fw block (already padded) into
 * fh x (fw/2+1) complex values, in double. */
static void rfft2d_block(const double *x, int32_t fh, int32_t fw, double complex *tmp, float complex *out) {
        int32_t ow = fw / 2 + 1;
        /* Rows: real DFT along the width. */
        for (int32_t r = 0; r < fh; r++) {
                for (int32_t k = 0; k < ow; k++) {
                        double re = 0.0, im = 0.0;
                        for (int32_t n = 0; n < fw; n++) {
                                double a = -2.0 * M_PI * (double) ((int64_t) k * n % fw) / (double) fw;
                                re += x[(size_t) r * fw + n] * cos(a);
                                im += x[(size_t) r * fw + n] * sin(a);
                        }
                        tmp[(size_t) r * ow + k] = re + im * I;
                }
        }
        /* Columns: complex DFT along the height. */
        for (int32_t k = 0; k < ow; k++) {
                for (int32_t m = 0; m < fh; m++) {
                        double complex acc = 0.0;
                        for (int32_t r = 0; r < fh; r++) {
                                double a = -2.0 * M_PI * (double) ((int64_t) m * r % fh) / (double) fh;
                                acc += tmp[(size_t) r * ow + k] * (cos(a) + sin(a) * I);
                        }
                        out[(size_t) m * ow + k] = (float) creal(acc) + (float) cimag(acc) * I;
                }
        }
}

/*
 * fft_length [fh, 1]: TFLite's transform (Ooura's fft2d rdft2d on rows of
 * fw + 2 doubles, then its Rfft2dReorder) is degenerate for a row length of
 * 1 and does not compute the DFT; this follows what it computes. The row
 * transform of one real value x gives (x, x); there is no column transform
 * for that width; the forward post-pass mixes rows i and fh - i; the reorder
 * then reads and writes the packed layout at columns fw = 1 and fw + 1 = 2,
 * and every imaginary part is negated.
 */
static void rfft2d_block_w1(const double *x, int32_t fh, double *a /* fh * 3 */, float complex *out) {
        enum { S = 3 };
        for (int32_t i = 0; i < fh; i++) {
                a[i * S + 0] = x[i];
                a[i * S + 1] = x[i];
                a[i * S + 2] = 0.0;
        }
        const int32_t half = fh >> 1;
        for (int32_t i = 1; i < half; i++) {
                int32_t j = fh - i;
                a[j * S + 0] = 0.5 * (a[i * S + 0] - a[j * S + 0]);
                a[i * S + 0] -= a[j * S + 0];
                a[j * S + 1] = 0.5 * (a[i * S + 1] + a[j * S + 1]);
                a[i * S + 1] -= a[j * S + 1];
        }
        /* The reorder, with fft_width = 1. */
        for (int32_t i = half + 1; i < fh; i++) {
                double re = a[i * S + 0], im = a[i * S + 1];
                a[i * S + 1] = im;
                a[i * S + 2] = re;
                a[(fh - i) * S + 1] = im;
                a[(fh - i) * S + 2] = -re;
                a[i * S + 0] = a[(fh - i) * S + 0];
                a[i * S + 1] = -a[(fh - i) * S + 1];
        }
        double first = a[1];
        a[2] = 0.0;
        a[1] = 0.0;
        a[half * S + 2] = 0.0; /* (TFLite first copies column 1 onto itself) */
        a[half * S + 1] = 0.0;
        a[1] = first;
        for (int32_t i = 0; i < fh; i++) {
                a[i * S + 1] = -a[i * S + 1];
                out[i] = (float) a[i * S + 0] + (float) a[i * S + 1] * I;
        }
}

static int rfft2d_invoke(rt_context_t *ctx, rt_node_t *node) {
        rt_tensor_t *in = rt_node_input(ctx, node, 0);
        rt_tensor_t *len = rt_node_input(ctx, node, 1);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        if (!in->data || !len->data)
                return rt_ctx_error(ctx, "RFFT2D: input without data");
        int32_t dims[RT_MAX_RANK];
        int r = rfft2d_out_shape(ctx, in, len, dims);
        if (r < 0)
                return r;
        if (out->alloc == RT_ALLOC_DYNAMIC || !out->data) {
                r = rt_ctx_resize(ctx, node, 0, in->rank, dims);
                if (r < 0)
                        return r;
        }
        const int32_t fh = dims[in->rank - 2], fw = ((const int32_t *) len->data)[1];
        const int32_t ow = dims[in->rank - 1];
        const int32_t ih = in->dims[in->rank - 2], iw = in->dims[in->rank - 1];
        size_t outer = 1;
        for (int32_t i = 0; i < in->rank - 2; i++)
                outer *= (size_t) in->dims[i];
        _cleanup_free_ double *x = malloc((size_t) fh * fw * sizeof(double));
        _cleanup_free_ double complex *tmp = malloc(((size_t) fh * ow + (size_t) fh) * sizeof(double complex));
        if (!x || !tmp)
                return -ENOMEM;
        const float *src = in->data;
        float complex *dst = out->data;
        for (size_t o = 0; o < outer; o++) {
                for (int32_t rr = 0; rr < fh; rr++)
                        for (int32_t cc = 0; cc < fw; cc++)
                                x[(size_t) rr * fw + cc] = (rr < ih && cc < iw)
                                        ? (double) src[o * (size_t) ih * iw + (size_t) rr * iw + cc] : 0.0;
                if (fw == 1)
                        rfft2d_block_w1(x, fh, (double *) tmp, dst + o * (size_t) fh * ow);
                else
                        rfft2d_block(x, fh, fw, tmp, dst + o * (size_t) fh * ow);
        }
        return 0;
}

const rt_registration_t rt_kernel_rfft2d = {
        .name = "RFFT2D",
        .op = RT_OP_RFFT2D,
        .prepare = rfft2d_prepare,
        .invoke = rfft2d_invoke,
};

/* ---- complex64 -> float32 ---- */

static int complex_prepare(rt_context_t *ctx, rt_node_t *node) {
        if (node->n_inputs != 1 || node->n_outputs != 1)
                return rt_ctx_error(ctx, "%s: expected 1 input and 1 output", node->reg->name);
        rt_tensor_t *in = rt_node_input(ctx, node, 0);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        if (!in || !out)
                return rt_ctx_error(ctx, "%s: missing tensor", node->reg->name);
        if (in->type != RT_TYPE_COMPLEX64 || out->type != RT_TYPE_FLOAT32)
                return rt_ctx_error(ctx, "%s: only complex64 -> float32 is supported (got %s -> %s)",
                                    node->reg->name, rt_type_name(in->type), rt_type_name(out->type));
        return rt_ctx_resize(ctx, node, 0, in->rank, in->dims);
}

static int complex_invoke(rt_context_t *ctx, rt_node_t *node) {
        rt_tensor_t *in = rt_node_input(ctx, node, 0);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        if (!in->data || !out->data)
                return rt_ctx_error(ctx, "%s: tensor without data", node->reg->name);
        const float *src = in->data;  /* interleaved re, im */
        float *dst = out->data;
        size_t n = rt_tensor_count(in);
        for (size_t i = 0; i < n; i++) {
                float re = src[2 * i], im = src[2 * i + 1];
                switch (node->reg->op) {
                case RT_OP_COMPLEX_ABS:
                        dst[i] = hypotf(re, im);
                        break;
                case RT_OP_REAL:
                        dst[i] = re;
                        break;
                default:
                        dst[i] = im;
                        break;
                }
        }
        return 0;
}

const rt_registration_t rt_kernel_complex_abs = {
        .name = "COMPLEX_ABS",
        .op = RT_OP_COMPLEX_ABS,
        .prepare = complex_prepare,
        .invoke = complex_invoke,
};

const rt_registration_t rt_kernel_real = {
        .name = "REAL",
        .op = RT_OP_REAL,
        .prepare = complex_prepare,
        .invoke = complex_invoke,
};

const rt_registration_t rt_kernel_imag = {
        .name = "IMAG",
        .op = RT_OP_IMAG,
        .prepare = complex_prepare,
        .invoke = complex_invoke,
};
