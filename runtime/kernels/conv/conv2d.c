/* SPDX-License-Identifier: Apache-2.0 */
/* CONV_2D: TFLite conv.cc (float, uint8, int8 per-channel, 16x8, hybrid). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "conv-internal.h"

static int conv_float_pack(rt_conv_data_t *d, const rt_tensor_t *w, const rt_tensor_t *bias);

static int conv_parse(const rt_node_t *node, void *ret_params, rt_context_t *ctx) {
        rt_conv_params_t *p = ret_params;
        fbt_table_t o = node->options;
        p->padding = (rt_padding_t) fbt_i8(o, 0, 0);
        p->stride_w = fbt_i32(o, 1, 0);
        p->stride_h = fbt_i32(o, 2, 0);
        p->activation = (rt_activation_t) fbt_i8(o, 3, 0);
        p->dilation_w = fbt_i32(o, 4, 1);
        p->dilation_h = fbt_i32(o, 5, 1);
        if (p->padding != RT_PADDING_SAME && p->padding != RT_PADDING_VALID)
                return rt_ctx_error(ctx, "CONV_2D: unknown padding %d", (int) p->padding);
        if ((unsigned) p->activation >= _RT_ACT_MAX)
                return rt_ctx_error(ctx, "CONV_2D: unknown fused activation %d", (int) p->activation);
        return 0;
}

/* Geometry shared by every path. */
typedef struct geom {
        int32_t n, h, w, c;      /* input */
        int32_t oc, kh, kw;      /* filter */
        int32_t oh, ow;          /* output */
        int32_t sh, sw, dh, dw, ph, pw;
} geom_t;

static void geom_get(geom_t *g, const rt_conv_params_t *p, const rt_conv_data_t *d,
                     const rt_tensor_t *in, const rt_tensor_t *w, const rt_tensor_t *out) {
        g->n = in->dims[0];
        g->h = in->dims[1];
        g->w = in->dims[2];
        g->c = in->dims[3];
        g->oc = w->dims[0];
        g->kh = w->dims[1];
        g->kw = w->dims[2];
        g->oh = out->dims[1];
        g->ow = out->dims[2];
        g->sh = p->stride_h;
        g->sw = p->stride_w;
        g->dh = p->dilation_h;
        g->dw = p->dilation_w;
        g->ph = d->pad_h;
        g->pw = d->pad_w;
}

static int conv_prepare(rt_context_t *ctx, rt_node_t *node) {
        const rt_conv_params_t *p = node->params;
        rt_conv_data_t *d = node->user_data;
        if (!p || !d)
                return rt_ctx_error(ctx, "CONV_2D: node has no params or state");
        if (node->n_inputs < 2 || node->n_inputs > 3 || node->n_outputs != 1)
                return rt_ctx_error(ctx, "CONV_2D: expected 2 or 3 inputs and 1 output, got %d and %d",
                                    node->n_inputs, node->n_outputs);
        rt_tensor_t *in = rt_node_input(ctx, node, 0);
        rt_tensor_t *w = rt_node_input(ctx, node, 1);
        rt_tensor_t *bias = rt_node_input(ctx, node, 2);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        if (!in || !w || !out)
                return rt_ctx_error(ctx, "CONV_2D: input, filter and output are required");
        if (in->rank != 4 || w->rank != 4)
                return rt_ctx_error(ctx, "CONV_2D: input and filter must be 4-D (got rank %d and %d)",
                                    in->rank, w->rank);
        if (in->dims[3] != w->dims[3])
                return rt_ctx_error(ctx, "CONV_2D: input has %d channels, filter expects %d",
                                    in->dims[3], w->dims[3]);
        int r = rt_conv__check_geometry(ctx, p->stride_w, p->stride_h, p->dilation_w, p->dilation_h);
        if (r < 0)
                return r;
        if (p->padding != RT_PADDING_SAME && p->padding != RT_PADDING_VALID)
                return rt_ctx_error(ctx, "CONV_2D: unknown padding %d", (int) p->padding);
        const int32_t oc = w->dims[0];
        if (bias && (int32_t) rt_tensor_count(bias) != oc)
                return rt_ctx_error(ctx, "CONV_2D: bias has %zu elements for %d output channels",
                                    rt_tensor_count(bias), oc);

        r = rt_conv__pick_kind(ctx, "CONV_2D", in, w, bias, out, RT_CONV_HYBRID, &d->kind);
        if (r < 0)
                return r;

        const int32_t oh = ku_out_size(p->padding, in->dims[1], w->dims[1], p->stride_h, p->dilation_h);
        const int32_t ow = ku_out_size(p->padding, in->dims[2], w->dims[2], p->stride_w, p->dilation_w);
        if (oh <= 0 || ow <= 0 || w->dims[1] <= 0 || w->dims[2] <= 0)
                return rt_ctx_error(ctx, "CONV_2D: filter %dx%d (dilation %dx%d) does not fit input %dx%d",
                                    w->dims[1], w->dims[2], p->dilation_h, p->dilation_w,
                                    in->dims[1], in->dims[2]);
        d->pad_h = ku_pad_before(in->dims[1], w->dims[1], p->stride_h, p->dilation_h, oh);
        d->pad_w = ku_pad_before(in->dims[2], w->dims[2], p->stride_w, p->dilation_w, ow);

        if (d->kind == RT_CONV_HYBRID) {
                r = rt_conv__hybrid_setup(ctx, d, w, oc, 0, true);
                if (r < 0)
                        return r;
                const int32_t n = in->dims[0] > 0 ? in->dims[0] : 1;
                r = ctx->request_scratch(ctx, node, rt_tensor_count(in), &d->scratch[0]);
                if (r >= 0)
                        r = ctx->request_scratch(ctx, node, sizeof(float) * (size_t) n, &d->scratch[1]);
                if (r >= 0)
                        r = ctx->request_scratch(ctx, node, sizeof(int32_t) * (size_t) n, &d->scratch[2]);
                if (r < 0)
                        return r;
        } else if (d->kind != RT_CONV_FLOAT) {
                r = rt_conv__quant_setup(ctx, d, in, w, out, p->activation, oc, 0);
                if (r < 0)
                        return r;
        }
        if (d->kind == RT_CONV_FLOAT && (r = conv_float_pack(d, w, bias)) < 0)
                return r;
        d->ruy_rounding = d->kind == RT_CONV_INT8 || d->kind == RT_CONV_UINT8;
        /* TFLite 2.9 EvalQuantizedPerChannel16x8: the int64 reference kernel
         * for an int64 bias, the optimized one (im2col + ruy) for an int32
         * bias (zero points are 0). */
        d->acc16 = d->kind == RT_CONV_INT16 && bias && bias->type == RT_TYPE_INT32 ? RT_CONV_ACC16_RUY32
                                                                                  : RT_CONV_ACC16_INT64;
        ku_act_range_f32(p->activation, &d->f_min, &d->f_max);
        const int32_t dims[4] = { in->dims[0], oh, ow, oc };
        return rt_ctx_resize(ctx, node, 0, 4, dims);
}

/* One output pixel: TFLite's GEMM has one column (rt_conv__gemv_add), over
 * the im2col row (ky, kx, c) with zeros where the window leaves the input. */
static float conv_float_gemv(const geom_t *g, const float *x, const float *f, int32_t y0, int32_t x0, int32_t oc) {
        rt_conv_gemv_t acc;
        rt_conv__gemv_start(&acc, g->kh * g->kw * g->c);
        for (int32_t fy = 0; fy < g->kh; fy++) {
                const int32_t iy = y0 + fy * g->dh;
                for (int32_t fx = 0; fx < g->kw; fx++) {
                        const int32_t ix = x0 + fx * g->dw;
                        const bool in = iy >= 0 && iy < g->h && ix >= 0 && ix < g->w;
                        const float *xp = in ? x + ((size_t) iy * g->w + ix) * g->c : NULL;
                        const float *fp = f + (((size_t) oc * g->kh + fy) * g->kw + fx) * g->c;
                        for (int32_t ic = 0; ic < g->c; ic++)
                                rt_conv__gemv_add(&acc, (in ? xp[ic] : 0.0f) * fp[ic]);
                }
        }
        return rt_conv__gemv_end(&acc);
}

/* The taps of one output pixel's window that fall inside the input, in
 * filter order (ky, kx), as runs of inputs in the packed filters' order:
 * a window row wholly inside an undilated input row is one run of kw * c
 * inputs (one loop instead of one per tap), else each tap is a run of c.
 * Each call gives the next run's inputs, its first tap (ky * kw + kx) and
 * its length; false when the window is done. */
typedef struct conv_window {
        int32_t fy, fx;
} conv_window_t;

static inline bool conv_window_next(const geom_t *g, const float *x, int32_t b, int32_t y0, int32_t x0,
                                    conv_window_t *w, const float **ret_xp, size_t *ret_tap, int32_t *ret_len) {
        const bool run = g->dw == 1 && x0 >= 0 && x0 + g->kw <= g->w;
        for (; w->fy < g->kh; w->fy++, w->fx = 0) {
                const int32_t iy = y0 + w->fy * g->dh;
                if (iy < 0 || iy >= g->h)
                        continue;
                for (; w->fx < (run ? 1 : g->kw); w->fx++) {
                        const int32_t ix = x0 + w->fx * g->dw;
                        if (ix < 0 || ix >= g->w)
                                continue;
                        *ret_xp = x + (((size_t) b * g->h + iy) * g->w + ix) * g->c;
                        *ret_tap = (size_t) w->fy * g->kw + w->fx;
                        *ret_len = run ? g->kw * g->c : g->c;
                        w->fx++;
                        return true;
                }
        }
        return false;
}

/* Float accumulation in filter order (ky, kx, c), as TFLite's im2col + GEMM
 * sums each output: this reproduces its results bit for bit on small
 * convolutions, which matters when a hybrid layer re-quantizes the result
 * (a double accumulator made style_transfer_dynamic_range fail). */
static void conv_float_pixel(const geom_t *g, const rt_conv_data_t *d, const float *x, const float *f,
                             const rt_tensor_t *bias, int32_t b, int32_t y0, int32_t x0, float *yp) {
        for (int32_t oc = 0; oc < g->oc; oc++) {
                float acc = 0.0f;
                conv_window_t w = { 0, 0 };
                const float *xp;
                size_t tap;
                int32_t len;
                while (conv_window_next(g, x, b, y0, x0, &w, &xp, &tap, &len)) {
                        const float *fp = f + ((size_t) oc * g->kh * g->kw + tap) * g->c;
                        for (int32_t k = 0; k < len; k++)
                                acc += xp[k] * fp[k];
                }
                yp[oc] = ku_act_f32(acc + rt_conv__bias_f(bias, oc), d->f_min, d->f_max);
        }
}

#if defined(__SSE2__)
/* The same sums, four output channels to an SSE register: lane j of an
 * accumulator is output channel oc + j, and every lane adds the same
 * products in the same order with a separate multiply and add (no fused
 * multiply-add), so each output is bit for bit conv_float_pixel's. The
 * filters come packed (conv_float_pack). */
static void conv_float_pixel_x4(const geom_t *g, const rt_conv_data_t *d, const float *x, int32_t b, int32_t y0,
                                int32_t x0, float *yp, size_t ob) {
        const size_t oc4 = ((size_t) g->oc + 3) & ~(size_t) 3;
        while (ob < oc4) {
                /* 16 output channels at a time, then 4. */
                const bool wide = oc4 - ob >= 16;
                __m128 a0 = _mm_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
                conv_window_t w = { 0, 0 };
                const float *xp;
                size_t tap;
                int32_t len;
                while (conv_window_next(g, x, b, y0, x0, &w, &xp, &tap, &len)) {
                        const float *fp = d->packed + tap * (size_t) g->c * oc4 + ob;
                        if (wide) {
                                for (int32_t k = 0; k < len; k++, fp += oc4) {
                                        const __m128 xv = _mm_set1_ps(xp[k]);
                                        a0 = _mm_add_ps(a0, _mm_mul_ps(xv, _mm_loadu_ps(fp)));
                                        a1 = _mm_add_ps(a1, _mm_mul_ps(xv, _mm_loadu_ps(fp + 4)));
                                        a2 = _mm_add_ps(a2, _mm_mul_ps(xv, _mm_loadu_ps(fp + 8)));
                                        a3 = _mm_add_ps(a3, _mm_mul_ps(xv, _mm_loadu_ps(fp + 12)));
                                }
                        } else {
                                for (int32_t k = 0; k < len; k++, fp += oc4)
                                        a0 = _mm_add_ps(a0, _mm_mul_ps(_mm_set1_ps(xp[k]), _mm_loadu_ps(fp)));
                        }
                }
                /* acc + bias, then the activation as ku_act_f32 does it:
                 * max(lo, x) keeps x when x is NaN or -0.0 against +0.0,
                 * min(hi, x) likewise. */
                const size_t n = wide ? 16 : 4;
                const __m128 lo = _mm_set1_ps(d->f_min), hi = _mm_set1_ps(d->f_max);
                const __m128 acc[4] = { a0, a1, a2, a3 };
                for (size_t v = 0; v < n / 4; v++) {
                        const size_t at = ob + 4 * v;
                        const __m128 r = _mm_min_ps(hi, _mm_max_ps(lo, _mm_add_ps(acc[v], _mm_loadu_ps(d->packed_bias + at))));
                        if (at + 4 <= (size_t) g->oc) {
                                _mm_storeu_ps(yp + at, r);
                        } else {
                                float lanes[4];
                                _mm_storeu_ps(lanes, r);
                                for (size_t j = 0; at + j < (size_t) g->oc; j++)
                                        yp[at + j] = lanes[j];
                        }
                }
                ob += n;
        }
}
#endif

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define CONV_HAVE_AVX 1
#include <immintrin.h>
/* conv_float_pixel_x4 with 16 output channels in two AVX registers: the
 * same per-lane multiply, add, bias and clamp (VEX max/min treat NaN and
 * signed zeros as the SSE ones do), so the same bits; the channels past
 * the last 16 go to conv_float_pixel_x4. Runs only where the CPU has AVX. */
__attribute__((target("avx"))) static void conv_float_pixel_x16_avx(const geom_t *g, const rt_conv_data_t *d,
                                                                    const float *x, int32_t b, int32_t y0,
                                                                    int32_t x0, float *yp) {
        const size_t oc4 = ((size_t) g->oc + 3) & ~(size_t) 3;
        size_t ob = 0;
        const __m256 lo = _mm256_set1_ps(d->f_min), hi = _mm256_set1_ps(d->f_max);
        for (; oc4 - ob >= 16; ob += 16) {
                __m256 a0 = _mm256_setzero_ps(), a1 = a0;
                conv_window_t w = { 0, 0 };
                const float *xp;
                size_t tap;
                int32_t len;
                while (conv_window_next(g, x, b, y0, x0, &w, &xp, &tap, &len)) {
                        const float *fp = d->packed + tap * (size_t) g->c * oc4 + ob;
                        for (int32_t k = 0; k < len; k++, fp += oc4) {
                                const __m256 xv = _mm256_set1_ps(xp[k]);
                                a0 = _mm256_add_ps(a0, _mm256_mul_ps(xv, _mm256_loadu_ps(fp)));
                                a1 = _mm256_add_ps(a1, _mm256_mul_ps(xv, _mm256_loadu_ps(fp + 8)));
                        }
                }
                a0 = _mm256_min_ps(hi, _mm256_max_ps(lo, _mm256_add_ps(a0, _mm256_loadu_ps(d->packed_bias + ob))));
                a1 = _mm256_min_ps(hi, _mm256_max_ps(lo, _mm256_add_ps(a1, _mm256_loadu_ps(d->packed_bias + ob + 8))));
                if (ob + 16 <= (size_t) g->oc) {
                        _mm256_storeu_ps(yp + ob, a0);
                        _mm256_storeu_ps(yp + ob + 8, a1);
                } else {
                        float lanes[16];
                        _mm256_storeu_ps(lanes, a0);
                        _mm256_storeu_ps(lanes + 8, a1);
                        for (size_t j = 0; ob + j < (size_t) g->oc; j++)
                                yp[ob + j] = lanes[j];
                }
        }
        _mm256_zeroupper();
        if (ob < oc4)
                conv_float_pixel_x4(g, d, x, b, y0, x0, yp, ob);
}
#endif

/* Constant float filters [oc][kh][kw][c] as [kh][kw][c][oc4], and the
 * bias padded to oc4, for conv_float_pixel_x4: once per filter and bias
 * data (prepare runs again on every shape change of a dynamic graph). No
 * packing without SSE2, or for filters or a bias that may change between
 * invokes. */
#if defined(CONV_HAVE_AVX)
/* Whether this CPU runs AVX (ACCEL_CONV_NO_AVX=1 keeps SSE, for the test
 * that compares the two); asked when filters are packed. */
static bool conv_cpu_avx(void) {
        const char *e = getenv("ACCEL_CONV_NO_AVX");

        __builtin_cpu_init();
        return __builtin_cpu_supports("avx") && !(e && *e == '1');
}
#endif

static void conv_float_unpack(rt_conv_data_t *d) {
        free(d->packed);
        free(d->packed_bias);
        d->packed = d->packed_bias = NULL;
        d->packed_from = d->packed_bias_from = NULL;
}

static int conv_float_pack(rt_conv_data_t *d, const rt_tensor_t *w, const rt_tensor_t *bias) {
#if defined(__SSE2__)
        if (!rt_tensor_is_const(w) || !w->data || (bias && (!rt_tensor_is_const(bias) || !bias->data))) {
                conv_float_unpack(d);
                return 0;
        }
        const void *bias_data = bias ? bias->data : NULL;
        if (d->packed && d->packed_from == w->data && d->packed_bias_from == bias_data)
                return 0;
        conv_float_unpack(d);
        const size_t oc = (size_t) w->dims[0], kh = (size_t) w->dims[1], kw = (size_t) w->dims[2];
        const size_t c = (size_t) w->dims[3], oc4 = (oc + 3) & ~(size_t) 3;
        float *p = calloc(kh * kw * c * oc4 + 1, sizeof(float));
        float *pb = calloc(oc4, sizeof(float));
        if (!p || !pb) {
                free(p);
                free(pb);
                return -ENOMEM;
        }
        const float *f = w->data;
        for (size_t o = 0; o < oc; o++)
                for (size_t k = 0; k < kh * kw * c; k++)
                        p[k * oc4 + o] = f[o * kh * kw * c + k];
        for (size_t o = 0; bias && o < oc; o++)
                pb[o] = ((const float *) bias->data)[o];
        d->packed = p;
        d->packed_bias = pb;
        d->packed_from = w->data;
        d->packed_bias_from = bias_data;
#if defined(CONV_HAVE_AVX)
        d->packed_avx = conv_cpu_avx();
#endif
#else
        (void) d;
        (void) w;
        (void) bias;
#endif
        return 0;
}


static void conv_float(const geom_t *g, const rt_conv_data_t *d, const float *x, const float *f,
                       const rt_tensor_t *bias, float *y) {
        for (int32_t b = 0; b < g->n; b++)
        for (int32_t oy = 0; oy < g->oh; oy++)
        for (int32_t ox = 0; ox < g->ow; ox++) {
                const int32_t y0 = oy * g->sh - g->ph, x0 = ox * g->sw - g->pw;
                float *yp = y + (((size_t) b * g->oh + oy) * g->ow + ox) * g->oc;
                if (g->n * g->oh * g->ow == 1) {
                        for (int32_t oc = 0; oc < g->oc; oc++)
                                yp[oc] = ku_act_f32(conv_float_gemv(g, x, f, y0, x0, oc) + rt_conv__bias_f(bias, oc),
                                                    d->f_min, d->f_max);
                        continue;
                }
#if defined(__SSE2__)
                if (d->packed && d->packed_from == f && d->packed_bias_from == (bias ? bias->data : NULL)) {
#if defined(CONV_HAVE_AVX)
                        if (d->packed_avx) {
                                conv_float_pixel_x16_avx(g, d, x, b, y0, x0, yp);
                                continue;
                        }
#endif
                        conv_float_pixel_x4(g, d, x, b, y0, x0, yp, 0);
                        continue;
                }
#endif
                conv_float_pixel(g, d, x, f, bias, b, y0, x0, yp);
        }
}

/*
 * The integer paths differ only in element and accumulator types. The sum
 * is TFLite's (an int32 or int64 accumulator of (w + w_off) * (x + in_off),
 * plus the bias) formed in the unsigned type of the same width: equal to
 * TFLite's wherever TFLite's does not overflow, and, where crafted zero
 * points or biases make it overflow (undefined in C and C++ alike), the
 * two's complement wrap TFLite's x86 build shows, without undefined
 * behaviour. The offsets are the negated zero points in 64 bits, so that
 * any int32 zero point negates and multiplies without overflow.
 */
#define DEFINE_CONV_Q(name, in_t, w_t, acc_t, uacc_t)                                                \
static void name(const geom_t *g, const rt_conv_data_t *d, const in_t *x, const w_t *f,             \
                 const rt_tensor_t *bias, rt_tensor_t *out, int64_t in_off, int64_t w_off) {         \
        for (int32_t b = 0; b < g->n; b++)                                                           \
        for (int32_t oy = 0; oy < g->oh; oy++)                                                       \
        for (int32_t ox = 0; ox < g->ow; ox++) {                                                     \
                const int32_t y0 = oy * g->sh - g->ph, x0 = ox * g->sw - g->pw;                      \
                const size_t obase = (((size_t) b * g->oh + oy) * g->ow + ox) * g->oc;               \
                for (int32_t oc = 0; oc < g->oc; oc++) {                                             \
                        uacc_t acc = 0;                                                              \
                        for (int32_t fy = 0; fy < g->kh; fy++) {                                     \
                                const int32_t iy = y0 + fy * g->dh;                                  \
                                if (iy < 0 || iy >= g->h)                                            \
                                        continue;                                                    \
                                for (int32_t fx = 0; fx < g->kw; fx++) {                             \
                                        const int32_t ix = x0 + fx * g->dw;                          \
                                        if (ix < 0 || ix >= g->w)                                    \
                                                continue;                                            \
                                        const in_t *xp = x + (((size_t) b * g->h + iy) * g->w + ix) * g->c; \
                                        const w_t *fp = f + (((size_t) oc * g->kh + fy) * g->kw + fx) * g->c; \
                                        for (int32_t ic = 0; ic < g->c; ic++)                        \
                                                acc += (uacc_t) (fp[ic] + w_off) *                   \
                                                       (uacc_t) (xp[ic] + in_off);                   \
                                }                                                                    \
                        }                                                                            \
                        acc += (uacc_t) rt_conv__bias_i(bias, oc);                                   \
                        rt_conv__store(out, obase + oc,                                              \
                                       rt_conv__requant(d, (acc_t) acc, oc, out->zero_point));      \
                }                                                                                    \
        }                                                                                            \
}

DEFINE_CONV_Q(conv_u8, uint8_t, uint8_t, int32_t, uint32_t)
DEFINE_CONV_Q(conv_i8, int8_t, int8_t, int32_t, uint32_t)
DEFINE_CONV_Q(conv_i16, int16_t, int8_t, int64_t, uint64_t)

/*
 * Hybrid: the float input is quantized to int8 per batch, the int8 dot
 * products are scaled back to float. Per-tensor weights use symmetric input
 * quantization; per-channel weights asymmetric quantization with an offset.
 * TFLite 2.9 runs its per-channel hybrid conv with dilation 1 whatever the
 * options say; we do the same so that results match.
 */
static void conv_hybrid(const geom_t *g0, const rt_conv_data_t *d, const int8_t *xq,
                        const float *scales, const int32_t *offsets, const rt_tensor_t *w,
                        const rt_tensor_t *bias, float *y) {
        geom_t gg = *g0;
        const geom_t *g = &gg;
        const bool pc = d->kind == RT_CONV_HYBRID_PC;
        if (pc) {
                gg.dh = 1;
                gg.dw = 1;
        }
        const int8_t *f = w->data;
        for (int32_t b = 0; b < g->n; b++) {
                const int32_t off = pc ? offsets[b] : 0;
                for (int32_t oy = 0; oy < g->oh; oy++)
                for (int32_t ox = 0; ox < g->ow; ox++) {
                        const int32_t y0 = oy * g->sh - g->ph, x0 = ox * g->sw - g->pw;
                        float *yp = y + (((size_t) b * g->oh + oy) * g->ow + ox) * g->oc;
                        for (int32_t oc = 0; oc < g->oc; oc++) {
                                uint32_t acc = 0;  /* wraps as TFLite's int32 does */
                                for (int32_t fy = 0; fy < g->kh; fy++) {
                                        const int32_t iy = y0 + fy * g->dh;
                                        if (iy < 0 || iy >= g->h)
                                                continue;
                                        for (int32_t fx = 0; fx < g->kw; fx++) {
                                                const int32_t ix = x0 + fx * g->dw;
                                                if (ix < 0 || ix >= g->w)
                                                        continue;
                                                const int8_t *xp = xq + (((size_t) b * g->h + iy) * g->w + ix) * g->c;
                                                const int8_t *fp = f + (((size_t) oc * g->kh + fy) * g->kw + fx) * g->c;
                                                for (int32_t ic = 0; ic < g->c; ic++)
                                                        acc += (uint32_t) ((int32_t) fp[ic] *
                                                                           ((int32_t) xp[ic] - off));
                                        }
                                }
                                /* TFLite: acc * (channel scale * input scale). */
                                const float scale = pc ? rt_conv__wscale(w, oc) * scales[b] : scales[b];
                                float v = (float) (int32_t) acc * scale;
                                v += rt_conv__bias_f(bias, oc);
                                yp[oc] = ku_act_f32(v, d->f_min, d->f_max);
                        }
                }
        }
}

static int conv_invoke(rt_context_t *ctx, rt_node_t *node) {
        const rt_conv_params_t *p = node->params;
        const rt_conv_data_t *d = node->user_data;
        rt_tensor_t *in = rt_node_input(ctx, node, 0);
        rt_tensor_t *w = rt_node_input(ctx, node, 1);
        rt_tensor_t *bias = rt_node_input(ctx, node, 2);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        if (!rt_conv__has_data(in) || !rt_conv__has_data(w) || !rt_conv__has_data(out) ||
            (bias && !bias->data))
                return rt_ctx_error(ctx, "CONV_2D: a tensor has no data");
        geom_t g;
        geom_get(&g, p, d, in, w, out);
        switch (d->kind) {
        case RT_CONV_FLOAT:
                conv_float(&g, d, in->data, w->data, bias, out->data);
                break;
        case RT_CONV_UINT8:
                conv_u8(&g, d, in->data, w->data, bias, out, -(int64_t) in->zero_point, -(int64_t) w->zero_point);
                break;
        case RT_CONV_INT8:
                conv_i8(&g, d, in->data, w->data, bias, out, -(int64_t) in->zero_point, 0);
                break;
        case RT_CONV_INT16:
                conv_i16(&g, d, in->data, w->data, bias, out, -(int64_t) in->zero_point, 0);
                break;
        case RT_CONV_HYBRID:
        case RT_CONV_HYBRID_PC: {
                int8_t *xq = ctx->get_scratch(ctx, node, d->scratch[0]);
                float *scales = ctx->get_scratch(ctx, node, d->scratch[1]);
                int32_t *offsets = ctx->get_scratch(ctx, node, d->scratch[2]);
                if (!xq || !scales || !offsets)
                        return rt_ctx_error(ctx, "CONV_2D: hybrid scratch memory missing");
                const size_t per = (size_t) g.h * g.w * g.c;
                const float *x = in->data;
                for (int32_t b = 0; b < g.n; b++) {
                        if (d->kind == RT_CONV_HYBRID_PC) {
                                rt_conv__quantize_asymmetric(x + b * per, per, xq + b * per,
                                                             &scales[b], &offsets[b]);
                        } else {
                                rt_conv__quantize_symmetric(x + b * per, per, xq + b * per, &scales[b]);
                                scales[b] *= w->scale;
                                offsets[b] = 0;
                        }
                }
                conv_hybrid(&g, d, xq, scales, offsets, w, bias, out->data);
                break;
        }
        }
        return 0;
}

const rt_registration_t rt_kernel_conv_2d = {
        .name = "CONV_2D",
        .op = RT_OP_CONV_2D,
        .params_size = sizeof(rt_conv_params_t),
        .parse = conv_parse,
        .init = rt_conv__data_init,
        .free = rt_conv__data_free,
        .prepare = conv_prepare,
        .invoke = conv_invoke,
};
