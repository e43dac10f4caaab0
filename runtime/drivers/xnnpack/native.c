/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Steps the XNNPACK driver runs itself, inside a group, on the group's
 * thread pool: ops this XNNPACK snapshot has no node for (MIRROR_PAD,
 * RESIZE_NEAREST_NEIGHBOR, RSQRT, CONCATENATION) or cannot compute exactly
 * as TFLite does
 * (float MEAN over H and W of a window that is not a power of two). Left on
 * the reference kernels, each of them cut a model into two groups: style
 * transfer ran 58 such nodes between 115 XNNPACK groups, one thread working
 * while the pool's workers slept, and a wake-up for every group after;
 * a CONCATENATION cut deeplab's group in two and left blazeface's and the
 * face detectors' heads on the reference kernels. One op XNNPACK does
 * translate runs here too because the driver's step is cheaper: float
 * PAD of zeros on the innermost dimension only, which XNNPACK's pad
 * operator runs with one call per row (8768 per blazeface invoke).
 *
 * Every step computes exactly what the reference kernel computes, element
 * for element: the copies gather the same source elements (CONCATENATION
 * only where the reference kernel copies too: float32 without a fused
 * activation, int8/uint8 whose inputs share the output's quantization); MEAN sums each
 * output's inputs in the same order (rows, then columns) in float and
 * divides by the count; RSQRT is 1.0f / sqrtf(x); PAD copies each row
 * between zero bytes (+0.0f). Only the work is split
 * between threads, never one element's arithmetic, and the workers run
 * with denormals flushed as the interpreter's thread does
 * (PTHREADPOOL_FLAG_DISABLE_DENORMALS), so results are bit-identical.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fbt.h"
#include "rt.h"
#include "xnnpack-internal.h"

typedef enum native_kind {
        NATIVE_GATHER,  /* MIRROR_PAD, RESIZE_NEAREST_NEIGHBOR */
        NATIVE_MEAN,
        NATIVE_RSQRT,
        NATIVE_CONCAT,
        NATIVE_PAD,     /* float32 PAD, PADV2 of zeros on the innermost dim only */
        NATIVE_RESIDUAL, /* float32 ADD [with a PAD before, an activation after]: residual.c */
} native_kind_t;

struct rt__xnn_native {
        native_kind_t kind;
        int32_t *ins;           /* graph tensors read (n_ins), and written */
        int32_t n_ins;
        int32_t out;
        size_t es;              /* element size */
        /* Gathers: the output as [rows, inner] with 4 dims of rows; per
         * output dim d < 3 the source index of each output index. */
        int32_t odims[4], idims[4];
        int32_t *maps[4];       /* maps[3]: the innermost dim, or NULL = identity */
        /* MEAN: [b, hw, c] reduced over hw. */
        size_t b, hw, c;
        size_t count;           /* RSQRT elements */
        /* CONCATENATION: the output as [outer, row_bytes]; each input's part
         * of a row is part_bytes[k] at part_off[k]. */
        size_t outer, row_bytes;
        size_t *part_bytes, *part_off;
        /* PAD: the output as [outer, pre_bytes + row_bytes + post_bytes],
         * the input as [outer, row_bytes]. */
        size_t pre_bytes, post_bytes;
        const void *const *srcs; /* set per run, one per input */
        const void *src;        /* srcs[0] */
        void *dst;
        rt__xnn_residual_t *res;
};

static const rt_tensor_t *tensor(const rt_driver_graph_t *g, int32_t i) {
        return i >= 0 && i < g->n_tensors ? &g->tensors[i] : NULL;
}

static bool static_shape(const rt_tensor_t *t) {
        for (int32_t d = 0; d < t->rank; d++)
                if (t->dims[d] <= 0)
                        return false;
        return true;
}

/* The constant int32/int64 values of t (at most max), or -1. */
static int const_ints(const rt_tensor_t *t, int64_t *v, size_t max) {
        size_t n = rt_tensor_count(t);
        if (!rt_tensor_is_const(t) || !t->data || n > max)
                return -1;
        for (size_t i = 0; i < n; i++) {
                if (t->type == RT_TYPE_INT32)
                        v[i] = ((const int32_t *) t->data)[i];
                else if (t->type == RT_TYPE_INT64)
                        v[i] = ((const int64_t *) t->data)[i];
                else
                        return -1;
        }
        return (int) n;
}

/* MEAN over exactly the axes {1, 2} of a float 4D tensor, when XNNPACK's
 * average pooling does not take it (rt__xnn_define_mean). */
static bool mean_wanted(const rt_driver_graph_t *g, const rt_node_t *n) {
        const rt_tensor_t *in = tensor(g, n->n_inputs > 1 ? n->inputs[0] : -1);
        const rt_tensor_t *ax = tensor(g, n->n_inputs > 1 ? n->inputs[1] : -1);
        int64_t a[4];
        if (!in || !ax || in->type != RT_TYPE_FLOAT32 || in->rank != 4 || const_ints(ax, a, 4) != 2)
                return false;
        for (int k = 0; k < 2; k++)
                if (a[k] < 0)
                        a[k] += 4;
        if (!((a[0] == 1 && a[1] == 2) || (a[0] == 2 && a[1] == 1)))
                return false;
        uint64_t hw = (uint64_t) in->dims[1] * (uint64_t) in->dims[2];
        return (hw & (hw - 1)) != 0 || !fbt_bool(n->options, 0, false);
}

/* Whether t's quantization is out's (one scale and zero point each). */
static bool same_quant(const rt_tensor_t *t, const rt_tensor_t *out) {
        return t->quant.n <= 1 && out->quant.n <= 1 && t->scale == out->scale && t->zero_point == out->zero_point;
}

/* CONCATENATION the reference kernel runs as plain copies: float32 without
 * a fused activation, or int8/uint8 inputs that all have the output's
 * quantization (else it requantizes); inputs of the output's type and rank
 * that agree with it off the axis. */
static bool concat_wanted(const rt_driver_graph_t *g, const rt_node_t *n) {
        const rt_tensor_t *out = tensor(g, n->outputs[0]);
        int32_t axis = fbt_i32(n->options, 0, 0);
        if (out->type != RT_TYPE_FLOAT32 && out->type != RT_TYPE_INT8 && out->type != RT_TYPE_UINT8)
                return false;
        if (fbt_i8(n->options, 1, 0) != RT_ACT_NONE || out->rank < 1)
                return false;
        if (axis < 0)
                axis += out->rank;
        if (axis < 0 || axis >= out->rank)
                return false;
        int64_t along = 0;
        for (int32_t k = 0; k < n->n_inputs; k++) {
                const rt_tensor_t *t = tensor(g, n->inputs[k]);
                if (!t || t->is_variable || t->type != out->type || t->rank != out->rank)
                        return false;
                if (out->type != RT_TYPE_FLOAT32 && !same_quant(t, out))
                        return false;
                for (int32_t d = 0; d < t->rank; d++)
                        if (d != axis && t->dims[d] != out->dims[d])
                                return false;
                along += t->dims[axis];
        }
        return along == out->dims[axis];
}

/* Float32 PAD, PADV2 of +0.0f (PADV2's value absent or a constant +0.0f)
 * with constant paddings on the innermost dim only: blazeface's and the
 * face detectors' residual connections widen the channels this way. As
 * XNNPACK runs it (its pad operator, one call per pixel row) it cost ~6%
 * of blazeface's time; this step copies large tiles of rows per call. */
static bool pad_wanted(const rt_driver_graph_t *g, const rt_node_t *n) {
        const rt_tensor_t *in = tensor(g, n->inputs[0]);
        const rt_tensor_t *p = tensor(g, n->n_inputs > 1 ? n->inputs[1] : -1);
        int64_t v[2 * RT_MAX_RANK];
        if (in->type != RT_TYPE_FLOAT32 || in->rank < 1 || in->rank > RT_MAX_RANK || !p ||
            const_ints(p, v, 2 * RT_MAX_RANK) != 2 * in->rank)
                return false;
        for (int32_t d = 0; d < in->rank; d++)
                if (v[2 * d] < 0 || v[2 * d + 1] < 0 || (d < in->rank - 1 && (v[2 * d] || v[2 * d + 1])))
                        return false;
        if (n->op == RT_BUILTIN_PADV2 && n->n_inputs > 2 && n->inputs[2] >= 0) {
                const rt_tensor_t *c = tensor(g, n->inputs[2]);
                uint32_t bits = 1;
                if (!c || c->type != RT_TYPE_FLOAT32 || !rt_tensor_is_const(c) || !c->data ||
                    rt_tensor_count(c) != 1 || c->bytes < sizeof(bits))
                        return false;
                memcpy(&bits, c->data, sizeof(bits));
                if (bits != 0)  /* +0.0f only */
                        return false;
        }
        return n->n_inputs <= 3;
}

bool rt__xnn_native_wants(const rt_driver_graph_t *g, const rt_node_t *n) {
        if (n->n_inputs < 1 || n->n_outputs != 1)
                return false;
        const rt_tensor_t *in = tensor(g, n->inputs[0]), *out = tensor(g, n->outputs[0]);
        if (!in || !out || in->is_variable || out->is_variable || in->type != out->type)
                return false;
        switch (n->op) {
        case RT_BUILTIN_MIRROR_PAD:
                return n->n_inputs == 2 && in->type != RT_TYPE_STRING && in->rank >= 1 && in->rank <= 4;
        case RT_BUILTIN_RESIZE_NEAREST_NEIGHBOR:
                /* uint8 takes TFLite's 16.16 fixed-point path, not this one. */
                return n->n_inputs == 2 && (in->type == RT_TYPE_FLOAT32 || in->type == RT_TYPE_INT8) &&
                       in->rank == 4;
        case RT_BUILTIN_RSQRT:
                return in->type == RT_TYPE_FLOAT32;
        case RT_BUILTIN_MEAN:
                return mean_wanted(g, n);
        case RT_BUILTIN_CONCATENATION:
                return concat_wanted(g, n);
        case RT_BUILTIN_PAD:
        case RT_BUILTIN_PADV2:
                return pad_wanted(g, n);
        default:
                return false;
        }
}

void rt__xnn_native_free(rt__xnn_native_t *s) {
        if (!s)
                return;
        for (int d = 0; d < 4; d++)
                free(s->maps[d]);
        free(s->ins);
        free(s->part_bytes);
        free(s->part_off);
        rt__xnn_residual_free(s->res);
        free(s);
}

static int concat_prepare(const rt_driver_graph_t *g, const rt_node_t *n, rt__xnn_native_t *s) {
        const rt_tensor_t *out = tensor(g, n->outputs[0]);
        int32_t axis = fbt_i32(n->options, 0, 0);
        if (axis < 0)
                axis += out->rank;
        size_t inner = s->es;
        for (int32_t d = axis + 1; d < out->rank; d++)
                inner *= (size_t) out->dims[d];
        s->outer = 1;
        for (int32_t d = 0; d < axis; d++)
                s->outer *= (size_t) out->dims[d];
        s->part_bytes = calloc((size_t) n->n_inputs + 1, sizeof(size_t));
        s->part_off = calloc((size_t) n->n_inputs + 1, sizeof(size_t));
        if (!s->part_bytes || !s->part_off)
                return -ENOMEM;
        for (int32_t k = 0; k < n->n_inputs; k++) {
                s->part_off[k] = s->row_bytes;
                s->part_bytes[k] = (size_t) tensor(g, n->inputs[k])->dims[axis] * inner;
                s->row_bytes += s->part_bytes[k];
        }
        return 0;
}

static int pad_prepare(const rt_driver_graph_t *g, const rt_node_t *n, rt__xnn_native_t *s, char *err,
                       size_t err_size) {
        const rt_tensor_t *in = tensor(g, n->inputs[0]), *out = tensor(g, n->outputs[0]);
        int64_t v[2 * RT_MAX_RANK];
        int32_t last = in->rank - 1;
        const_ints(tensor(g, n->inputs[1]), v, 2 * RT_MAX_RANK);
        bool fits = out->rank == in->rank && out->dims[last] == in->dims[last] + v[2 * last] + v[2 * last + 1];
        for (int32_t d = 0; d < last && fits; d++)
                fits = out->dims[d] == in->dims[d];
        if (!fits) {
                snprintf(err, err_size, "XNNPACK: %s paddings do not fit the shapes", rt_op_name(n->op));
                return -ENOTSUP;
        }
        s->outer = 1;
        for (int32_t d = 0; d < last; d++)
                s->outer *= (size_t) in->dims[d];
        s->row_bytes = (size_t) in->dims[last] * s->es;
        s->pre_bytes = (size_t) v[2 * last] * s->es;
        s->post_bytes = (size_t) v[2 * last + 1] * s->es;
        return 0;
}

/* TFLite GetNearestNeighbor, as the reference kernel computes it. */
static int32_t nearest(int32_t v, int32_t in_size, int32_t out_size, bool align_corners, bool half_pixel) {
        float scale = align_corners && out_size > 1 ? (float) (in_size - 1) / (float) (out_size - 1)
                                                    : (float) in_size / (float) out_size;
        float x = ((float) v + (half_pixel ? 0.5f : 0.0f)) * scale;
        int32_t r = align_corners ? (int32_t) roundf(x) : (int32_t) floorf(x);
        if (r > in_size - 1)
                r = in_size - 1;
        if (half_pixel && r < 0)
                r = 0;
        return r;
}

static int gather_prepare(const rt_driver_graph_t *g, const rt_node_t *n, rt__xnn_native_t *s, char *err,
                          size_t err_size) {
        const rt_tensor_t *in = tensor(g, n->inputs[0]), *out = tensor(g, n->outputs[0]);
        const rt_tensor_t *arg = tensor(g, n->inputs[1]);
        int32_t rank = in->rank, lead = 4 - rank;
        int64_t v[8];
        if (!arg || out->rank != rank) {
                snprintf(err, err_size, "XNNPACK: %s needs its second input and an output of the input's rank",
                         rt_op_name(n->op));
                return -ENOTSUP;
        }
        for (int d = 0; d < 4; d++) {
                s->idims[d] = d < lead ? 1 : in->dims[d - lead];
                s->odims[d] = d < lead ? 1 : out->dims[d - lead];
                s->maps[d] = calloc((size_t) s->odims[d] + 1, sizeof(int32_t));
                if (!s->maps[d])
                        return -ENOMEM;
        }
        if (n->op == RT_BUILTIN_MIRROR_PAD) {
                if (const_ints(arg, v, 8) != 2 * rank) {
                        snprintf(err, err_size, "XNNPACK: MIRROR_PAD needs constant [%d, 2] paddings", rank);
                        return -ENOTSUP;
                }
                bool reflect = fbt_i8(n->options, 0, 0) == 0;
                for (int d = lead; d < 4; d++) {
                        int64_t before = v[2 * (d - lead)], after = v[2 * (d - lead) + 1];
                        int32_t m = s->idims[d];
                        int64_t limit = reflect ? m - 1 : m;
                        if (before < 0 || after < 0 || before > limit || after > limit ||
                            m + before + after != s->odims[d]) {
                                snprintf(err, err_size, "XNNPACK: MIRROR_PAD paddings do not fit the shapes");
                                return -ENOTSUP;
                        }
                        for (int32_t i = 0; i < s->odims[d]; i++) {
                                int32_t j = i - (int32_t) before;
                                s->maps[d][i] = j >= 0 && j < m ? j
                                                : j < 0   ? (reflect ? -j : -j - 1)
                                                          : (reflect ? 2 * m - 2 - j : 2 * m - 1 - j);
                        }
                }
        } else {
                bool align = fbt_bool(n->options, 0, false), half = fbt_bool(n->options, 1, false);
                if (const_ints(arg, v, 2) != 2 || v[0] != s->odims[1] || v[1] != s->odims[2] ||
                    s->odims[0] != s->idims[0] || s->odims[3] != s->idims[3]) {
                        snprintf(err, err_size, "XNNPACK: RESIZE_NEAREST_NEIGHBOR needs a constant size");
                        return -ENOTSUP;
                }
                for (int d = 0; d < 4; d++)
                        for (int32_t i = 0; i < s->odims[d]; i++)
                                s->maps[d][i] = d == 1 || d == 2
                                                        ? nearest(i, s->idims[d], s->odims[d], align, half)
                                                        : i;
        }
        /* An innermost dimension copied as is needs no map. */
        bool identity = s->odims[3] == s->idims[3];
        for (int32_t i = 0; i < s->odims[3] && identity; i++)
                identity = s->maps[3][i] == i;
        if (identity) {
                free(s->maps[3]);
                s->maps[3] = NULL;
        }
        return 0;
}

int rt__xnn_native_prepare(const rt_driver_graph_t *g, const rt_node_t *n, rt__xnn_native_t **ret, char *err,
                           size_t err_size) {
        const rt_tensor_t *in = tensor(g, n->inputs[0]), *out = tensor(g, n->outputs[0]);
        bool fixed = rt__xnn_native_wants(g, n) && static_shape(out);
        for (int32_t k = 0; k < n->n_inputs && fixed; k++)
                fixed = static_shape(tensor(g, n->inputs[k]));
        if (!fixed) {
                snprintf(err, err_size, "XNNPACK: %s with these tensors is not run by the driver", rt_op_name(n->op));
                return -ENOTSUP;
        }
        rt__xnn_native_t *s = calloc(1, sizeof(*s));
        if (!s)
                return -ENOMEM;
        /* The ops with a second input read it here, at prepare (constant
         * paddings, sizes, axes): only a CONCATENATION reads all of them
         * at run time. */
        s->n_ins = n->op == RT_BUILTIN_CONCATENATION ? n->n_inputs : 1;
        s->ins = calloc((size_t) s->n_ins + 1, sizeof(int32_t));
        if (!s->ins) {
                free(s);
                return -ENOMEM;
        }
        memcpy(s->ins, n->inputs, (size_t) s->n_ins * sizeof(int32_t));
        s->out = n->outputs[0];
        s->es = rt_type_size(in->type);
        int r = 0;
        switch (n->op) {
        case RT_BUILTIN_MIRROR_PAD:
        case RT_BUILTIN_RESIZE_NEAREST_NEIGHBOR:
                s->kind = NATIVE_GATHER;
                r = gather_prepare(g, n, s, err, err_size);
                break;
        case RT_BUILTIN_MEAN:
                s->kind = NATIVE_MEAN;
                s->b = (size_t) in->dims[0];
                s->hw = (size_t) in->dims[1] * (size_t) in->dims[2];
                s->c = (size_t) in->dims[3];
                if (rt_tensor_count(out) != s->b * s->c) {
                        snprintf(err, err_size, "XNNPACK: MEAN output has %zu elements, not %zu",
                                 rt_tensor_count(out), s->b * s->c);
                        r = -ENOTSUP;
                }
                break;
        case RT_BUILTIN_CONCATENATION:
                s->kind = NATIVE_CONCAT;
                r = concat_prepare(g, n, s);
                break;
        case RT_BUILTIN_PAD:
        case RT_BUILTIN_PADV2:
                s->kind = NATIVE_PAD;
                r = pad_prepare(g, n, s, err, err_size);
                break;
        default:
                s->kind = NATIVE_RSQRT;
                s->count = rt_tensor_count(in);
                if (rt_tensor_count(out) != s->count) {
                        snprintf(err, err_size, "XNNPACK: RSQRT output and input differ in size");
                        r = -ENOTSUP;
                }
                break;
        }
        if (r < 0) {
                rt__xnn_native_free(s);
                return r;
        }
        *ret = s;
        return 0;
}

int rt__xnn_native_prepare_span(const rt_driver_graph_t *g, const int32_t *nodes, int32_t n_nodes,
                                rt__xnn_native_t **ret, char *err, size_t err_size) {
        if (n_nodes == 1 && g->nodes[nodes[0]].op != RT_BUILTIN_ADD)
                return rt__xnn_native_prepare(g, &g->nodes[nodes[0]], ret, err, err_size);
        rt__xnn_native_t *s = calloc(1, sizeof(*s));
        if (!s || !(s->ins = calloc(2, sizeof(int32_t)))) {
                free(s);
                return -ENOMEM;
        }
        s->kind = NATIVE_RESIDUAL;
        int r = rt__xnn_residual_prepare(g, nodes, n_nodes, &s->res, err, err_size);
        if (r < 0) {
                rt__xnn_native_free(s);
                return r;
        }
        s->n_ins = 2;
        s->ins[0] = rt__xnn_residual_input(s->res, 0);
        s->ins[1] = rt__xnn_residual_input(s->res, 1);
        s->out = rt__xnn_residual_output(s->res);
        *ret = s;
        return 0;
}

int32_t rt__xnn_native_n_inputs(const rt__xnn_native_t *s) {
        return s->n_ins;
}

int32_t rt__xnn_native_input(const rt__xnn_native_t *s, int32_t k) {
        return s->ins[k];
}

int32_t rt__xnn_native_in_place(const rt__xnn_native_t *s) {
        return s->kind == NATIVE_RESIDUAL ? rt__xnn_residual_in_place(s->res) : -1;
}

int32_t rt__xnn_native_output(const rt__xnn_native_t *s) {
        return s->out;
}

/* Gather: output row `row` (all dims but the innermost). */
static void gather_row(const rt__xnn_native_t *s, size_t row) {
        size_t r = row;
        int32_t o2 = (int32_t) (r % (size_t) s->odims[2]);
        r /= (size_t) s->odims[2];
        int32_t o1 = (int32_t) (r % (size_t) s->odims[1]);
        int32_t o0 = (int32_t) (r / (size_t) s->odims[1]);
        size_t src_row = (((size_t) s->maps[0][o0] * (size_t) s->idims[1] + (size_t) s->maps[1][o1]) *
                                  (size_t) s->idims[2] +
                          (size_t) s->maps[2][o2]) *
                         (size_t) s->idims[3];
        const uint8_t *src = (const uint8_t *) s->src + src_row * s->es;
        uint8_t *dst = (uint8_t *) s->dst + row * (size_t) s->odims[3] * s->es;
        if (!s->maps[3]) {
                memcpy(dst, src, (size_t) s->odims[3] * s->es);
                return;
        }
        for (int32_t i = 0; i < s->odims[3]; i++)
                memcpy(dst + (size_t) i * s->es, src + (size_t) s->maps[3][i] * s->es, s->es);
}

/* A tile of rows per task: one row (often a pixel's channels) is too
 * little work for a task of its own. */
static void gather_rows(void *p, size_t first, size_t n) {
        for (size_t row = first; row < first + n; row++)
                gather_row(p, row);
}

enum { MEAN_TILE = 8 };

/* MEAN: channels [c0, c0 + MEAN_TILE) of one batch; each output sums its
 * inputs in the reference kernel's order. */
static void mean_tile(void *p, size_t task) {
        const rt__xnn_native_t *s = p;
        size_t tiles = (s->c + MEAN_TILE - 1) / MEAN_TILE;
        size_t b = task / tiles, c0 = (task % tiles) * MEAN_TILE;
        size_t nc = s->c - c0 < MEAN_TILE ? s->c - c0 : MEAN_TILE;
        const float *x = (const float *) s->src + b * s->hw * s->c + c0;
        float acc[MEAN_TILE] = { 0 };
        if (nc == MEAN_TILE)
                for (size_t i = 0; i < s->hw; i++, x += s->c)
                        for (size_t j = 0; j < MEAN_TILE; j++)  /* lanes are independent sums */
                                acc[j] += x[j];
        else
                for (size_t i = 0; i < s->hw; i++, x += s->c)
                        for (size_t j = 0; j < nc; j++)
                                acc[j] += x[j];
        float *y = (float *) s->dst + b * s->c + c0;
        for (size_t j = 0; j < nc; j++)
                y[j] = acc[j] / (float) s->hw;
}

enum { RSQRT_TILE = 4096 };

static void rsqrt_tile(void *p, size_t start, size_t n) {
        const rt__xnn_native_t *s = p;
        const float *x = (const float *) s->src + start;
        float *y = (float *) s->dst + start;
        for (size_t i = 0; i < n; i++)
                y[i] = 1.0f / sqrtf(x[i]);
}

/* CONCATENATION: output rows [first, first + n), each the inputs' parts
 * in order. */
static void concat_rows(void *p, size_t first, size_t n) {
        const rt__xnn_native_t *s = p;
        for (size_t row = first; row < first + n; row++) {
                uint8_t *dst = (uint8_t *) s->dst + row * s->row_bytes;
                for (int32_t k = 0; k < s->n_ins; k++)
                        if (s->part_bytes[k])
                                memcpy(dst + s->part_off[k],
                                       (const uint8_t *) s->srcs[k] + row * s->part_bytes[k], s->part_bytes[k]);
        }
}

/* PAD: output rows [first, first + n), each the zeros before, the input
 * row, the zeros after (+0.0f is all zero bytes). */
static void pad_rows(void *p, size_t first, size_t n) {
        const rt__xnn_native_t *s = p;
        size_t out_row = s->pre_bytes + s->row_bytes + s->post_bytes;
        const uint8_t *src = (const uint8_t *) s->src + first * s->row_bytes;
        uint8_t *dst = (uint8_t *) s->dst + first * out_row;
        for (size_t i = 0; i < n; i++, src += s->row_bytes, dst += out_row) {
                memset(dst, 0, s->pre_bytes);
                memcpy(dst + s->pre_bytes, src, s->row_bytes);
                memset(dst + s->pre_bytes + s->row_bytes, 0, s->post_bytes);
        }
}

/* Rows of row_bytes each per pool task: about 16 KiB of them, at least one. */
static size_t rows_per_tile(size_t row_bytes) {
        return row_bytes >= 16384 ? 1 : 16384 / (row_bytes ? row_bytes : 1);
}

void rt__xnn_native_run(rt__xnn_native_t *s, pthreadpool_t pool, const void *const *srcs, void *dst,
                        bool yield) {
        uint32_t flags = PTHREADPOOL_FLAG_DISABLE_DENORMALS | (yield ? PTHREADPOOL_FLAG_YIELD_WORKERS : 0);
        s->srcs = srcs;
        s->src = srcs[0];
        s->dst = dst;
        switch (s->kind) {
        case NATIVE_GATHER:
                pthreadpool_parallelize_1d_tile_1d(
                        pool, gather_rows, s, (size_t) s->odims[0] * (size_t) s->odims[1] * (size_t) s->odims[2],
                        rows_per_tile((size_t) s->odims[3] * s->es), flags);
                break;
        case NATIVE_MEAN:
                pthreadpool_parallelize_1d(pool, mean_tile, s, s->b * ((s->c + MEAN_TILE - 1) / MEAN_TILE), flags);
                break;
        case NATIVE_RSQRT:
                pthreadpool_parallelize_1d_tile_1d(pool, rsqrt_tile, s, s->count, RSQRT_TILE, flags);
                break;
        case NATIVE_CONCAT:
                pthreadpool_parallelize_1d_tile_1d(pool, concat_rows, s, s->outer, rows_per_tile(s->row_bytes), flags);
                break;
        case NATIVE_PAD:
                pthreadpool_parallelize_1d_tile_1d(pool, pad_rows, s, s->outer,
                                                   rows_per_tile(s->pre_bytes + s->row_bytes + s->post_bytes), flags);
                break;
        case NATIVE_RESIDUAL:
                rt__xnn_residual_run(s->res, pool, srcs, dst, flags);
                break;
        }
}
