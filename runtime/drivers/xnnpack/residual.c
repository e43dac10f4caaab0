/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The residual step: a float ADD of two tensors of one shape, run by the
 * driver itself (a native step, native.c), with what surrounds it in the
 * residual blocks of blazeface, the face detectors and facemesh folded in
 * (at least one of the two):
 *   - an input widened by a PAD of zeros on the innermost dimension (the
 *     pad native.c would run) is read where it is: the zeros are added,
 *     never written out;
 *   - the activation after the ADD: RELU, RELU6 or RELU_N1_TO_1 (a clamp)
 *     or a PRELU with one constant slope per channel.
 * Why: this XNNPACK snapshot runs a same-shape ADD as one task (it splits
 * a binary op over the outer dimensions of the compressed shape, and two
 * shapes that agree compress to one dimension), so at 2 threads the
 * worker waited through every ADD; and the PAD, the ADD and a PRELU were
 * three passes over a block's tensors where one does.
 *
 * The step computes what XNNPACK computes for the same nodes, bit for bit
 * (tests/runtime/drivers/test-xnnpack-residual.c compares the two): the
 * sum a + b, clamped to the ADD's fused range (rt__xnn_act_range(): a
 * fused NONE is [-FLT_MAX, FLT_MAX]) narrowed by a following RELU-family
 * clamp, as XNNPACK's subgraph optimizer merges a clamp into the node
 * before it; the clamp is x86's max-then-min, so a NaN sum becomes the
 * lower bound and -0.0 the bound 0.0. A PRELU then gives
 * x < 0 ? x * slope : x, as XNNPACK's PRELU kernel does. Only the rows
 * are split between threads.
 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define RESIDUAL_X86 1
#endif

#include "fbt.h"
#include "rt.h"
#include "xnnpack-internal.h"

struct rt__xnn_residual {
        size_t rows, c;         /* the output as [rows, c] */
        size_t cb, pre;         /* input b: cb channels at [pre, pre + cb) of a row */
        float lo, hi;
        const float *slopes;    /* PRELU: c slopes; NULL without */
        int32_t ins[2], out;    /* a (the output's shape), b */
        bool avx512;
        /* Per 16 channels of a row: the lanes of a and y, and of b. */
        size_t chunks;
        uint16_t *lanes, *lanes_b;
        /* A 1x1 CONV_2D computing a here (then ins[0] is its input x):
         * k input channels; its filter packed per 16 output channels,
         * [chunks][1 + k][16], the bias first; its fused range. */
        size_t k;
        float *packed;
        float conv_lo, conv_hi;
        const float *a, *b;     /* set per run */
        float *y;
};

static const rt_tensor_t *tensor(const rt_driver_graph_t *g, int32_t i) {
        return i >= 0 && i < g->n_tensors ? &g->tensors[i] : NULL;
}

/* A float32 tensor of a fixed shape the step can read or write. */
static bool plain_float(const rt_tensor_t *t) {
        if (!t || t->type != RT_TYPE_FLOAT32 || t->is_variable || t->rank < 1 || t->rank > RT_MAX_RANK)
                return false;
        for (int32_t d = 0; d < t->rank; d++)
                if (t->dims[d] <= 0)
                        return false;
        return true;
}

static bool same_shape(const rt_tensor_t *x, const rt_tensor_t *y) {
        return x->rank == y->rank && memcmp(x->dims, y->dims, (size_t) x->rank * sizeof(x->dims[0])) == 0;
}

/* How many times the graph's nodes read tensor t. */
static int32_t readers(const rt_driver_graph_t *g, int32_t t) {
        int32_t n = 0;
        for (int32_t i = 0; i < g->n_nodes; i++)
                for (int32_t k = 0; k < g->nodes[i].n_inputs; k++)
                        n += g->nodes[i].inputs[k] == t;
        return n;
}

/* Whether t is read once, by the next node of the step, and never leaves
 * the group: the step need not write it. */
static bool private_to_step(const rt_driver_graph_t *g, const rt_driver_group_t *grp, int32_t t) {
        for (int32_t k = 0; k < grp->n_outputs; k++)
                if (grp->outputs[k] == t)
                        return false;
        return readers(g, t) == 1;
}

/* PRELU's slopes when they are float constants, one per channel of a 4D
 * input (what rt__xnn_define_prelu() takes), else NULL. */
static const float *prelu_slopes(const rt_driver_graph_t *g, const rt_node_t *n, const rt_tensor_t *in) {
        const rt_tensor_t *s = tensor(g, n->n_inputs == 2 ? n->inputs[1] : -1);
        if (!s || in->rank != 4 || s->type != RT_TYPE_FLOAT32 || !rt_tensor_is_const(s) || !s->data ||
            s->rank < 1 || s->dims[s->rank - 1] != in->dims[3] || rt_tensor_count(s) != (size_t) in->dims[3])
                return NULL;
        return s->data;
}

/* The activation node after an ADD that writes `sum`: fused when it is a
 * RELU-family op or a PRELU the step can take, reading `sum` alone. */
static bool act_fuses(const rt_driver_graph_t *g, const rt_node_t *n, int32_t sum) {
        float lo, hi;
        if (n->n_outputs != 1 || n->n_inputs < 1 || n->inputs[0] != sum)
                return false;
        const rt_tensor_t *in = tensor(g, sum), *out = tensor(g, n->outputs[0]);
        if (!plain_float(out) || !same_shape(in, out))
                return false;
        if (n->op == RT_BUILTIN_PRELU)
                return prelu_slopes(g, n, in) != NULL;
        return n->n_inputs == 1 && rt__xnn_relu_bounds(n->op, &lo, &hi);
}

/* Whether node n is an ADD the step takes: float32 inputs of the
 * output's shape (for a padded input, the pad's output), a fused
 * activation XNNPACK takes. */
static bool add_fits(const rt_driver_graph_t *g, const rt_node_t *n) {
        float lo, hi;
        if (n->op != RT_BUILTIN_ADD || n->n_inputs != 2 || n->n_outputs != 1 ||
            !rt__xnn_act_bounds(fbt_i8(n->options, 0, RT_ACT_NONE), &lo, &hi))
                return false;
        const rt_tensor_t *out = tensor(g, n->outputs[0]);
        if (!plain_float(out))
                return false;
        for (int k = 0; k < 2; k++) {
                const rt_tensor_t *t = tensor(g, n->inputs[k]);
                if (!plain_float(t) || !same_shape(t, out))
                        return false;
        }
        return true;
}

/* Whether node n is a float 1x1 CONV_2D of stride 1 whose constant
 * filter and bias the step can pack: [N, 1, 1, K] over [.., K] in, the
 * output's pixels the input's. */
static bool conv_fits(const rt_driver_graph_t *g, const rt_node_t *n) {
        float lo, hi;
        if (n->op != RT_BUILTIN_CONV_2D || n->n_inputs < 2 || n->n_inputs > 3 || n->n_outputs != 1 ||
            fbt_i32(n->options, 1, 1) != 1 || fbt_i32(n->options, 2, 1) != 1 ||
            !rt__xnn_act_bounds(fbt_i8(n->options, 3, RT_ACT_NONE), &lo, &hi))
                return false;
        const rt_tensor_t *in = tensor(g, n->inputs[0]), *f = tensor(g, n->inputs[1]);
        const rt_tensor_t *out = tensor(g, n->outputs[0]);
        const rt_tensor_t *bias = tensor(g, n->n_inputs > 2 ? n->inputs[2] : -1);
        if (!plain_float(in) || !plain_float(out) || in->rank != 4 || out->rank != 4 || !f ||
            f->type != RT_TYPE_FLOAT32 || !rt_tensor_is_const(f) || !f->data || f->rank != 4 ||
            f->dims[1] != 1 || f->dims[2] != 1 || f->dims[0] != out->dims[3] || f->dims[3] != in->dims[3])
                return false;
        for (int d = 0; d < 3; d++)
                if (in->dims[d] != out->dims[d])
                        return false;
        if (bias && (bias->type != RT_TYPE_FLOAT32 || !rt_tensor_is_const(bias) || !bias->data ||
                     rt_tensor_count(bias) != (size_t) out->dims[3]))
                return false;
        return true;
}

/* Whether this CPU runs the step's AVX-512 loops (ACCEL_RESIDUAL_NO_AVX512=1
 * keeps the plain one, for its test). */
static bool use_avx512(void) {
#if RESIDUAL_X86
        const char *plain = getenv("ACCEL_RESIDUAL_NO_AVX512");
        return __builtin_cpu_supports("avx512f") && !(plain && *plain == '1');
#else
        return false;
#endif
}

/* The residual nodes from position k, a lone ADD counted: their number
 * (0: none), and in *padded the pad's output, or -1. */
static int32_t residual_at(const rt_driver_graph_t *g, const rt_driver_group_t *grp, int32_t k, int32_t *padded) {
        int32_t at = k;
        const rt_node_t *n = &g->nodes[grp->nodes[at]];
        *padded = -1;
        if ((n->op == RT_BUILTIN_PAD || n->op == RT_BUILTIN_PADV2) && at + 1 < grp->n_nodes) {
                const rt_node_t *add = &g->nodes[grp->nodes[at + 1]];
                int32_t p = n->n_outputs == 1 ? n->outputs[0] : -1;
                bool feeds = add->n_inputs == 2 && (add->inputs[0] == p || add->inputs[1] == p);
                if (!feeds || !rt__xnn_native_wants(g, n) || !plain_float(tensor(g, n->inputs[0])) ||
                    !private_to_step(g, grp, p) || !add_fits(g, add))
                        return 0;
                *padded = p;
                n = add;
                at++;
        } else if (!add_fits(g, n)) {
                return 0;
        }
        int32_t sum = n->outputs[0];
        if (at + 1 < grp->n_nodes && private_to_step(g, grp, sum) && act_fuses(g, &g->nodes[grp->nodes[at + 1]], sum))
                at++;
        return at - k + 1;
}

int32_t rt__xnn_residual_span(const rt_driver_graph_t *g, const rt_driver_group_t *grp, const rt_settings_t *st,
                              int32_t k) {
        const char *off = getenv("ACCELD_XNNPACK_UNFUSED");
        if ((off && *off == '1') || k < 0 || k >= grp->n_nodes)
                return 0;
        /* XNNPACK's FP16 and sparse paths compute other bits. */
        if (st && (st->xnnpack_flags & (RT_XNNPACK_FLAG_FORCE_FP16 | RT_XNNPACK_FLAG_SPARSE)))
                return 0;
        /* A lone ADD stays XNNPACK's: a step splits the group's runtime,
         * and each runtime plans its own memory. Measured on hand
         * landmark (10 such ADDs): 2-5% slower at 1 and 2 threads as
         * steps, and 3-6% slower at 1 thread with the conv before each
         * in the step too. */
        int32_t padded;
        const rt_node_t *n = &g->nodes[grp->nodes[k]];
        if (k + 1 < grp->n_nodes && use_avx512() && conv_fits(g, n) && private_to_step(g, grp, n->outputs[0])) {
                int32_t r = residual_at(g, grp, k + 1, &padded);
                const rt_node_t *add = &g->nodes[grp->nodes[k + 1 + (padded >= 0)]];
                if (r > 1 && (add->inputs[0] == n->outputs[0] || add->inputs[1] == n->outputs[0]))
                        return 1 + r;
        }
        int32_t r = residual_at(g, grp, k, &padded);
        return r > 1 ? r : 0;
}

/* The conv's filter and bias, packed as its loop reads them. */
static int conv_pack(const rt_driver_graph_t *g, const rt_node_t *conv, rt__xnn_residual_t *s) {
        const rt_tensor_t *f = tensor(g, conv->inputs[1]);
        const rt_tensor_t *bias = tensor(g, conv->n_inputs > 2 ? conv->inputs[2] : -1);
        size_t n = (size_t) f->dims[0], k = (size_t) f->dims[3], chunks = (n + 15) / 16;
        size_t bytes = chunks * (1 + k) * 16 * sizeof(float);
        s->packed = aligned_alloc(64, (bytes + 63) & ~(size_t) 63);
        if (!s->packed)
                return -ENOMEM;
        memset(s->packed, 0, bytes);
        const float *w = f->data, *b = bias ? bias->data : NULL;
        for (size_t o = 0; o < n; o++) {
                float *col = s->packed + (o / 16) * (1 + k) * 16 + o % 16;
                col[0] = b ? b[o] : 0.0f;
                for (size_t i = 0; i < k; i++)
                        col[(1 + i) * 16] = w[o * k + i];
        }
        s->k = k;
        (void) rt__xnn_act_bounds(fbt_i8(conv->options, 3, RT_ACT_NONE), &s->conv_lo, &s->conv_hi);
        return 0;
}

int rt__xnn_residual_prepare(const rt_driver_graph_t *g, const int32_t *nodes, int32_t n_nodes,
                             rt__xnn_residual_t **ret, char *err, size_t err_size) {
        const rt_node_t *conv = NULL, *pad = NULL, *add, *act = NULL;
        int32_t at = 0;
        if (n_nodes >= 2 && g->nodes[nodes[0]].op == RT_BUILTIN_CONV_2D)
                conv = &g->nodes[nodes[at++]];
        if (n_nodes >= at + 2 &&
            (g->nodes[nodes[at]].op == RT_BUILTIN_PAD || g->nodes[nodes[at]].op == RT_BUILTIN_PADV2))
                pad = &g->nodes[nodes[at++]];
        add = &g->nodes[nodes[at++]];
        if (at < n_nodes)
                act = &g->nodes[nodes[at++]];
        if (at != n_nodes || !add_fits(g, add) || (conv && !conv_fits(g, conv))) {
                snprintf(err, err_size, "XNNPACK: these nodes are not a residual step");
                return -ENOTSUP;
        }
        rt__xnn_residual_t *s = calloc(1, sizeof(*s));
        if (!s)
                return -ENOMEM;
        const rt_tensor_t *out = tensor(g, add->outputs[0]);
        s->c = (size_t) out->dims[out->rank - 1];
        s->rows = rt_tensor_count(out) / s->c;
        s->cb = s->c;
        s->ins[0] = add->inputs[0];
        s->ins[1] = add->inputs[1];
        if (pad) {
                const rt_tensor_t *in = tensor(g, pad->inputs[0]), *pads = tensor(g, pad->inputs[1]);
                int32_t last = in->rank - 1;
                int64_t before = pads->type == RT_TYPE_INT64 ? ((const int64_t *) pads->data)[2 * last]
                                                             : ((const int32_t *) pads->data)[2 * last];
                /* The pad's input goes in b; the other ADD input in a. */
                if (add->inputs[0] == pad->outputs[0])
                        s->ins[0] = add->inputs[1];
                s->ins[1] = pad->inputs[0];
                s->cb = (size_t) in->dims[last];
                s->pre = (size_t) before;
        }
        if (conv) {
                /* a is the conv's output, made here from its input. */
                if (s->ins[1] == conv->outputs[0])
                        s->ins[1] = s->ins[0];
                s->ins[0] = conv->inputs[0];
                int r = conv_pack(g, conv, s);
                if (r < 0) {
                        rt__xnn_residual_free(s);
                        return r;
                }
        }
        (void) rt__xnn_act_bounds(fbt_i8(add->options, 0, RT_ACT_NONE), &s->lo, &s->hi);
        s->out = add->outputs[0];
        if (act) {
                float lo, hi;
                if (act->op == RT_BUILTIN_PRELU) {
                        s->slopes = prelu_slopes(g, act, out);
                } else if (rt__xnn_relu_bounds(act->op, &lo, &hi)) {
                        s->lo = lo > s->lo ? lo : s->lo;
                        s->hi = hi < s->hi ? hi : s->hi;
                }
                s->out = act->outputs[0];
        }
        s->chunks = (s->c + 15) / 16;
        s->lanes = calloc(s->chunks, sizeof(uint16_t));
        s->lanes_b = calloc(s->chunks, sizeof(uint16_t));
        if (!s->lanes || !s->lanes_b) {
                rt__xnn_residual_free(s);
                return -ENOMEM;
        }
        for (size_t q = 0; q < s->chunks; q++) {
                size_t j = 16 * q, n = s->c - j < 16 ? s->c - j : 16;
                s->lanes[q] = (uint16_t) ((1u << n) - 1u);
                for (size_t l = 0; l < n; l++)
                        if (j + l >= s->pre && j + l < s->pre + s->cb)
                                s->lanes_b[q] |= (uint16_t) (1u << l);
        }
        s->avx512 = use_avx512();
        *ret = s;
        return 0;
}

void rt__xnn_residual_free(rt__xnn_residual_t *s) {
        if (!s)
                return;
        free(s->lanes);
        free(s->lanes_b);
        free(s->packed);
        free(s);
}

int32_t rt__xnn_residual_input(const rt__xnn_residual_t *s, int32_t k) {
        return s->ins[k];
}

int32_t rt__xnn_residual_in_place(const rt__xnn_residual_t *s) {
        /* The conv reads all of a pixel's input for each 16 outputs. */
        return s->packed ? -1 : 0;
}

int32_t rt__xnn_residual_output(const rt__xnn_residual_t *s) {
        return s->out;
}

/* Rows [first, first + n), one element at a time. */
static void rows_scalar(const rt__xnn_residual_t *s, size_t first, size_t n) {
        for (size_t r = first; r < first + n; r++) {
                const float *a = s->a + r * s->c, *b = s->b + r * s->cb;
                float *y = s->y + r * s->c;
                for (size_t j = 0; j < s->c; j++) {
                        /* j - pre wraps for j < pre: past cb, a zero. */
                        float v = a[j] + (j - s->pre < s->cb ? b[j - s->pre] : 0.0f);
                        v = v > s->lo ? v : s->lo;      /* x86 max: NaN and -0.0 take lo */
                        v = v < s->hi ? v : s->hi;
                        if (s->slopes)
                                v = v < 0.0f ? v * s->slopes[j] : v;
                        y[j] = v;
                }
        }
}

#if RESIDUAL_X86
__attribute__((target("avx512f"))) static void rows_avx512(const rt__xnn_residual_t *s, size_t first, size_t n) {
        const __m512 lo = _mm512_set1_ps(s->lo), hi = _mm512_set1_ps(s->hi), zero = _mm512_setzero_ps();
        const size_t c = s->c, cb = s->cb, pre = s->pre, chunks = s->chunks;
        const float *a = s->a, *slopes = s->slopes;
        float *y = s->y;
        if (!slopes && cb == c) {
                /* Rows back to back: one run of elements. */
                const float *b = s->b;
                size_t i = first * c, end = (first + n) * c;
                for (; i + 16 <= end; i += 16) {
                        __m512 v = _mm512_add_ps(_mm512_loadu_ps(a + i), _mm512_loadu_ps(b + i));
                        _mm512_storeu_ps(y + i, _mm512_min_ps(_mm512_max_ps(v, lo), hi));
                }
                if (i < end) {
                        __mmask16 m = (__mmask16) ((1u << (end - i)) - 1u);
                        __m512 v = _mm512_add_ps(_mm512_maskz_loadu_ps(m, a + i), _mm512_maskz_loadu_ps(m, b + i));
                        _mm512_mask_storeu_ps(y + i, m, _mm512_min_ps(_mm512_max_ps(v, lo), hi));
                }
                return;
        }
        const uint16_t *lanes = s->lanes, *lanes_b = s->lanes_b;
        for (size_t r = first; r < first + n; r++) {
                const float *ar = a + r * c;
                /* b's channel j - pre, addressed as an integer: for j < pre
                 * the lanes before b are masked off, never read. */
                uintptr_t br = (uintptr_t) (s->b + r * cb) - pre * sizeof(float);
                float *yr = y + r * c;
                for (size_t q = 0; q < chunks; q++) {
                        size_t j = 16 * q;
                        __mmask16 m = lanes[q];
                        __m512 v = _mm512_add_ps(_mm512_maskz_loadu_ps(m, ar + j),
                                                 _mm512_maskz_loadu_ps(lanes_b[q],
                                                                       (const float *) (br + j * sizeof(float))));
                        v = _mm512_min_ps(_mm512_max_ps(v, lo), hi);
                        if (slopes) {
                                __mmask16 neg = _mm512_cmp_ps_mask(v, zero, _CMP_LT_OQ);
                                v = _mm512_mask_mul_ps(v, neg, v, _mm512_maskz_loadu_ps(m, slopes + j));
                        }
                        if (m == 0xffff)
                                _mm512_storeu_ps(yr + j, v);
                        else
                                _mm512_mask_storeu_ps(yr + j, m, v);
                }
        }
}
#endif

#if RESIDUAL_X86
enum { CONV_ROWS = 7 };

/* The 1x1 conv and the rest, pixels [first, first + n): per 7 pixels and
 * 16 output channels, XNNPACK's GEMM arithmetic (the bias, then one fused
 * multiply-add per input channel in order, then the conv's clamp), then
 * the ADD and the activation before the one store. */
__attribute__((target("avx512f"))) static void conv_rows_avx512(const rt__xnn_residual_t *s, size_t first,
                                                               size_t n) {
        const __m512 lo = _mm512_set1_ps(s->lo), hi = _mm512_set1_ps(s->hi), zero = _mm512_setzero_ps();
        const __m512 clo = _mm512_set1_ps(s->conv_lo), chi = _mm512_set1_ps(s->conv_hi);
        const size_t k = s->k, c = s->c, cb = s->cb, pre = s->pre, chunks = s->chunks;
        const float *x = s->a /* the conv's input */, *slopes = s->slopes, *packed = s->packed;
        const uint16_t *lanes = s->lanes, *lanes_b = s->lanes_b;
        for (size_t p0 = first; p0 < first + n; p0 += CONV_ROWS) {
                size_t mr = first + n - p0 < CONV_ROWS ? first + n - p0 : CONV_ROWS;
                const float *xr[CONV_ROWS];
                for (size_t i = 0; i < CONV_ROWS; i++)
                        xr[i] = x + (p0 + (i < mr ? i : mr - 1)) * k;
                for (size_t q = 0; q < chunks; q++) {
                        const float *w = packed + q * (1 + k) * 16;
                        __m512 acc[CONV_ROWS];
                        const __m512 bias = _mm512_load_ps(w);
#pragma GCC unroll 7
                        for (size_t i = 0; i < CONV_ROWS; i++)
                                acc[i] = bias;
                        for (size_t j = 0; j < k; j++) {
                                const __m512 vw = _mm512_load_ps(w + 16 * (1 + j));
#pragma GCC unroll 7
                                for (size_t i = 0; i < CONV_ROWS; i++)
                                        acc[i] = _mm512_fmadd_ps(_mm512_set1_ps(xr[i][j]), vw, acc[i]);
                        }
                        const __mmask16 m = lanes[q], mb = lanes_b[q];
                        const __m512 sl = slopes ? _mm512_maskz_loadu_ps(m, slopes + 16 * q) : zero;
                        for (size_t i = 0; i < mr; i++) {
                                uintptr_t br = (uintptr_t) (s->b + (p0 + i) * cb) - pre * sizeof(float);
                                __m512 v = _mm512_min_ps(_mm512_max_ps(acc[i], clo), chi);
                                v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(
                                                             mb, (const float *) (br + 16 * q * sizeof(float))));
                                v = _mm512_min_ps(_mm512_max_ps(v, lo), hi);
                                if (slopes)
                                        v = _mm512_mask_mul_ps(v, _mm512_cmp_ps_mask(v, zero, _CMP_LT_OQ), v, sl);
                                float *yr = s->y + (p0 + i) * c + 16 * q;
                                if (m == 0xffff)
                                        _mm512_storeu_ps(yr, v);
                                else
                                        _mm512_mask_storeu_ps(yr, m, v);
                        }
                }
        }
}
#endif

static void rows_run(void *p, size_t first, size_t n) {
        const rt__xnn_residual_t *s = p;
#if RESIDUAL_X86
        if (s->packed) {
                conv_rows_avx512(s, first, n);
                return;
        }
        if (s->avx512) {
                rows_avx512(s, first, n);
                return;
        }
#endif
        rows_scalar(s, first, n);
}

void rt__xnn_residual_run(rt__xnn_residual_t *s, pthreadpool_t pool, const void *const *srcs, void *dst,
                          uint32_t flags) {
        s->a = srcs[0];
        s->b = srcs[1];
        s->y = dst;
        size_t row_bytes = s->c * sizeof(float);
        size_t tile = row_bytes >= 16384 ? 1 : 16384 / row_bytes;
#if RESIDUAL_X86
        if (s->packed)  /* whole runs of the conv's 7 pixels */
                tile = tile < CONV_ROWS ? CONV_ROWS : tile / CONV_ROWS * CONV_ROWS;
#endif
        pthreadpool_parallelize_1d_tile_1d(pool, rows_run, s, s->rows, tile, flags);
}
