/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The XNNPACK driver: a group of TFLite nodes becomes one XNNPACK subgraph
 * and one xnn_runtime on its own pthreadpool. Constants are static values
 * pointing straight into the model mapping; float16 constants feeding a
 * DEQUANTIZE are converted to float32 once, at prepare time. Fused
 * activations become the output clamps of the XNNPACK node.
 *
 * Support is decided per node by the same code that translates it: the node
 * is defined into a throw-away subgraph, so "supported" means this XNNPACK
 * snapshot accepted it, and a refusal comes with a reason.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <pthreadpool.h>
#include <xnnpack.h>

#include "driver.h"
#include "rt.h"

/* Caller buffers (rt_interp_set_tensor_buffer()) promise this much read slack. */
_Static_assert(XNN_EXTRA_BYTES <= RT_BUFFER_SLACK, "RT_BUFFER_SLACK must cover XNN_EXTRA_BYTES");
#include "xnnpack-internal.h"

int rt__xnn_status_to_errno(int status) {
        switch ((enum xnn_status) status) {
        case xnn_status_success:
                return 0;
        case xnn_status_uninitialized:
                return -ENODEV;
        case xnn_status_invalid_parameter:
        case xnn_status_invalid_state:
                return -EINVAL;
        case xnn_status_unsupported_parameter:
        case xnn_status_unsupported_hardware:
                return -ENOTSUP;
        case xnn_status_out_of_memory:
                return -ENOMEM;
        default:
                return -EIO;
        }
}

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static enum xnn_status init_status = xnn_status_uninitialized;

static void init_xnn(void) {
        init_status = xnn_initialize(NULL);
}

/* ---- translation ---- */

typedef struct xctx {
        const rt_driver_graph_t *g;
        xnn_subgraph_t sg;
        uint32_t *ids;          /* per graph tensor; XNN_INVALID_VALUE_ID = not yet defined */
        uint32_t *fold_ids;     /* per graph tensor: the static value of a folded constant */
        const float **folded;   /* per tensor: float32 data of a folded constant, or NULL */
        void ***owned;          /* buffers to free with the prepared group */
        size_t *n_owned;
        char *why;
        size_t why_size;
} xctx_t;

__attribute__((format(printf, 2, 3)))
static int refuse(xctx_t *x, const char *fmt, ...) {
        if (x->why && x->why_size) {
                int o = snprintf(x->why, x->why_size, "XNNPACK: ");
                va_list ap;
                va_start(ap, fmt);
                vsnprintf(x->why + o, x->why_size - (size_t) o, fmt, ap);
                va_end(ap);
        }
        return -ENOTSUP;
}

static void *own(xctx_t *x, size_t bytes) {
        void *p = calloc(1, bytes ? bytes : 1);
        if (!p)
                return NULL;
        void **v = realloc(*x->owned, (*x->n_owned + 1) * sizeof(void *));
        if (!v) {
                free(p);
                return NULL;
        }
        v[(*x->n_owned)++] = p;
        *x->owned = v;
        return p;
}

static const rt_tensor_t *T(xctx_t *x, int32_t i) {
        return i >= 0 && i < x->g->n_tensors ? &x->g->tensors[i] : NULL;
}

static bool is_static(xctx_t *x, int32_t i) {
        return i >= 0 && (x->folded[i] || x->g->tensors[i].alloc == RT_ALLOC_CONST);
}

static float half_to_float(uint16_t h) {
        uint32_t s = (uint32_t) (h >> 15) << 31, e = (h >> 10) & 0x1f, m = h & 0x3ff;
        uint32_t f;
        if (e == 0) {
                if (m == 0)
                        f = s;
                else {
                        e = 127 - 15 + 1;
                        while (!(m & 0x400)) {
                                m <<= 1;
                                e--;
                        }
                        m &= 0x3ff;
                        f = s | (e << 23) | (m << 13);
                }
        } else if (e == 31)
                f = s | 0x7f800000u | (m << 13);
        else
                f = s | ((e + 127 - 15) << 23) | (m << 13);
        float r;
        memcpy(&r, &f, 4);
        return r;
}

/*
 * Define tensor i as a value (once). `static_ok`: constants become static
 * data (else refused). `shape_override`: define with these dims instead.
 */
static int value(xctx_t *x, int32_t i, uint32_t *ret) {
        if (i < 0 || i >= x->g->n_tensors)
                return refuse(x, "missing tensor");
        if (x->folded[i] && x->fold_ids[i] != XNN_INVALID_VALUE_ID) {
                *ret = x->fold_ids[i];
                return 0;
        }
        if (!x->folded[i] && x->ids[i] != XNN_INVALID_VALUE_ID) {
                *ret = x->ids[i];
                return 0;
        }
        const rt_tensor_t *t = &x->g->tensors[i];
        if (t->sparsity)
                return refuse(x, "sparse tensor %d not supported", i);
        size_t dims[RT_MAX_RANK];
        for (int32_t d = 0; d < t->rank; d++) {
                if (t->dims[d] <= 0)
                        return refuse(x, "tensor %d has a dynamic or empty dimension", i);
                dims[d] = (size_t) t->dims[d];
        }
        const void *data = x->folded[i] ? (const void *) x->folded[i]
                                        : (t->alloc == RT_ALLOC_CONST ? t->data : NULL);
        enum xnn_status st;
        uint32_t id;
        rt_type_t type = x->folded[i] ? RT_TYPE_FLOAT32 : t->type;
        switch (type) {
        case RT_TYPE_FLOAT32:
                st = xnn_define_tensor_value(x->sg, xnn_datatype_fp32, (size_t) t->rank, dims, data,
                                             XNN_INVALID_VALUE_ID, 0, &id);
                break;
        case RT_TYPE_INT8:
        case RT_TYPE_UINT8:
                if (t->quant.n == 1)
                        st = xnn_define_quantized_tensor_value(
                                x->sg, type == RT_TYPE_INT8 ? xnn_datatype_qint8 : xnn_datatype_quint8,
                                t->zero_point, t->scale, (size_t) t->rank, dims, data, XNN_INVALID_VALUE_ID, 0, &id);
                else if (t->quant.n > 1 && type == RT_TYPE_INT8 && data) {
                        for (size_t k = 0; k < t->quant.n; k++)
                                if (t->quant.zero_point[k] != 0)
                                        return refuse(x, "per-channel int8 tensor %d with a nonzero zero point", i);
                        st = xnn_define_channelwise_quantized_tensor_value(
                                x->sg, xnn_datatype_qcint8, t->quant.scale, (size_t) t->rank,
                                (size_t) t->quant.axis, dims, data, XNN_INVALID_VALUE_ID, 0, &id);
                } else
                        return refuse(x, "%s tensor %d without per-tensor quantization", rt_type_name(type), i);
                break;
        case RT_TYPE_INT32:
                if (!data || t->quant.n == 0)
                        return refuse(x, "int32 tensor %d is not a quantized bias", i);
                if (t->quant.n == 1)
                        st = xnn_define_quantized_tensor_value(x->sg, xnn_datatype_qint32, 0, t->scale,
                                                               (size_t) t->rank, dims, data, XNN_INVALID_VALUE_ID, 0,
                                                               &id);
                else
                        st = xnn_define_channelwise_quantized_tensor_value(
                                x->sg, xnn_datatype_qcint32, t->quant.scale, (size_t) t->rank, 0, dims, data,
                                XNN_INVALID_VALUE_ID, 0, &id);
                break;
        default:
                return refuse(x, "%s tensors not supported", rt_type_name(type));
        }
        if (st != xnn_status_success)
                return refuse(x, "tensor %d rejected (status %d)", i, (int) st);
        if (x->folded[i])
                x->fold_ids[i] = id;
        else
                x->ids[i] = id;
        *ret = id;
        return 0;
}

static int act_range(xctx_t *x, int act, float *lo, float *hi) {
        switch (act) {
        case RT_ACT_NONE:
                *lo = -INFINITY;
                *hi = INFINITY;
                return 0;
        case RT_ACT_RELU:
                *lo = 0;
                *hi = INFINITY;
                return 0;
        case RT_ACT_RELU_N1_TO_1:
                *lo = -1;
                *hi = 1;
                return 0;
        case RT_ACT_RELU6:
                *lo = 0;
                *hi = 6;
                return 0;
        case RT_ACT_TANH:
                return refuse(x, "fused TANH activation not supported");
        case RT_ACT_SIGN_BIT:
                return refuse(x, "fused SIGN_BIT activation not supported");
        default:
                return refuse(x, "unknown fused activation %d", act);
        }
}

static int want_float_or_q(xctx_t *x, int32_t i) {
        const rt_tensor_t *t = T(x, i);
        if (!t)
                return refuse(x, "missing tensor");
        if (x->folded[i] || t->type == RT_TYPE_FLOAT32 || t->type == RT_TYPE_INT8 || t->type == RT_TYPE_UINT8)
                return 0;
        return refuse(x, "%s tensors not supported", rt_type_name(t->type));
}

static int check(xctx_t *x, enum xnn_status st, const char *what) {
        if (st == xnn_status_success)
                return 0;
        return refuse(x, "%s rejected by this XNNPACK (status %d)", what, (int) st);
}

/* A zero bias for convolutions without one. */
static int zero_bias(xctx_t *x, const rt_tensor_t *in, const rt_tensor_t *filter, int32_t channels, uint32_t *ret) {
        size_t dims[1] = { (size_t) channels };
        uint32_t id;
        enum xnn_status st;
        if (in->type == RT_TYPE_FLOAT32) {
                void *p = own(x, (size_t) channels * 4);
                if (!p)
                        return -ENOMEM;
                st = xnn_define_tensor_value(x->sg, xnn_datatype_fp32, 1, dims, p, XNN_INVALID_VALUE_ID, 0, &id);
        } else {
                void *p = own(x, (size_t) channels * 4);
                if (!p)
                        return -ENOMEM;
                if (filter->quant.n > 1) {
                        float *sc = own(x, (size_t) channels * sizeof(float));
                        if (!sc)
                                return -ENOMEM;
                        for (int32_t c = 0; c < channels && (size_t) c < filter->quant.n; c++)
                                sc[c] = in->scale * filter->quant.scale[c];
                        st = xnn_define_channelwise_quantized_tensor_value(x->sg, xnn_datatype_qcint32, sc, 1, 0,
                                                                           dims, p, XNN_INVALID_VALUE_ID, 0, &id);
                } else
                        st = xnn_define_quantized_tensor_value(x->sg, xnn_datatype_qint32, 0,
                                                               in->scale * filter->scale, 1, dims, p,
                                                               XNN_INVALID_VALUE_ID, 0, &id);
        }
        if (st != xnn_status_success)
                return refuse(x, "zero bias rejected");
        *ret = id;
        return 0;
}

/* A DEQUANTIZE of a float16 constant: its output becomes a float32
 * constant, converted once here. */
static int fold_dequantize(xctx_t *x, const rt_node_t *n) {
        const rt_tensor_t *in = T(x, n->inputs[0]);
        int32_t out0 = n->outputs[0];
        if (x->folded[out0])
                return 0;
        size_t cnt = rt_tensor_count(in);
        if (in->bytes < cnt * 2)
                return refuse(x, "truncated float16 constant");
        float *f = own(x, cnt * sizeof(float));
        if (!f)
                return -ENOMEM;
        const uint8_t *src = in->data;
        for (size_t k = 0; k < cnt; k++) {
                uint16_t h;
                memcpy(&h, src + 2 * k, 2);
                f[k] = half_to_float(h);
        }
        x->folded[out0] = f;
        return 0;
}

static bool is_fp16_dequantize(xctx_t *x, const rt_node_t *n) {
        if (n->op != RT_BUILTIN_DEQUANTIZE || n->n_inputs < 1 || n->n_outputs < 1)
                return false;
        const rt_tensor_t *in = T(x, n->inputs[0]), *out = T(x, n->outputs[0]);
        return in && out && in->type == RT_TYPE_FLOAT16 && rt_tensor_is_const(in) && !in->sparsity &&
               out->type == RT_TYPE_FLOAT32;
}

static int define_node(xctx_t *x, const rt_node_t *n) {
        const rt_driver_graph_t *g = x->g;
        fbt_table_t o = n->options;
        int32_t in0 = n->n_inputs > 0 ? n->inputs[0] : -1;
        int32_t out0 = n->n_outputs > 0 ? n->outputs[0] : -1;
        uint32_t a, b, c, y;
        float lo, hi;
        int r;
        if (n->op == RT_OP_CUSTOM)
                return refuse(x, "custom op %s not supported", n->custom_name ? n->custom_name : "?");
        /* Debugging aid: ACCELD_XNNPACK_DISABLE_OPS=3,41 keeps those builtin
         * codes on the reference kernels. */
        const char *off = getenv("ACCELD_XNNPACK_DISABLE_OPS");
        for (const char *p = off; p && *p;) {
                char *end;
                long v = strtol(p, &end, 10);
                if (end == p)
                        break;
                if (v == n->op)
                        return refuse(x, "%s disabled by ACCELD_XNNPACK_DISABLE_OPS", rt_op_name(n->op));
                p = *end ? end + 1 : end;
        }
        for (int32_t k = 0; k < n->n_outputs; k++) {
                const rt_tensor_t *t = T(x, n->outputs[k]);
                if (!t || t->is_variable)
                        return refuse(x, "variable or missing output");
        }
        for (int32_t k = 0; k < n->n_inputs; k++)
                if (n->inputs[k] >= 0 && g->tensors[n->inputs[k]].is_variable)
                        return refuse(x, "variable tensors not supported");
        switch (n->op) {
        case RT_BUILTIN_CONV_2D:
        case RT_BUILTIN_DEPTHWISE_CONV_2D: {
                bool dw = n->op == RT_BUILTIN_DEPTHWISE_CONV_2D;
                const rt_tensor_t *in = T(x, in0), *f = T(x, n->inputs[1]);
                if (!in || !f || in->rank != 4 || f->rank != 4)
                        return refuse(x, "convolution needs 4D input and filter");
                if (!is_static(x, n->inputs[1]))
                        return refuse(x, "non-constant convolution filter");
                if (n->n_inputs > 2 && n->inputs[2] >= 0 && !is_static(x, n->inputs[2]))
                        return refuse(x, "non-constant convolution bias");
                if (in->type != RT_TYPE_FLOAT32 && x->folded[in0] == NULL && f->type != RT_TYPE_INT8 &&
                    f->type != RT_TYPE_UINT8)
                        return refuse(x, "hybrid convolution not supported");
                if ((in->type == RT_TYPE_FLOAT32) != (f->type == RT_TYPE_FLOAT32 || x->folded[n->inputs[1]]))
                        return refuse(x, "mixed float/quantized convolution not supported");
                int pad = fbt_i8(o, 0, 0);
                int32_t sw = fbt_i32(o, 1, 1), sh = fbt_i32(o, 2, 1);
                int32_t mult = dw ? fbt_i32(o, 3, 1) : 1;
                int act = fbt_i8(o, dw ? 4 : 3, 0);
                int32_t dwf = fbt_i32(o, dw ? 5 : 4, 1), dhf = fbt_i32(o, dw ? 6 : 5, 1);
                if ((r = act_range(x, act, &lo, &hi)) < 0)
                        return r;
                if (sw < 1 || sh < 1 || dwf < 1 || dhf < 1)
                        return refuse(x, "invalid stride or dilation");
                if ((r = want_float_or_q(x, in0)) < 0 || (r = value(x, in0, &a)) < 0 ||
                    (r = value(x, n->inputs[1], &b)) < 0)
                        return r;
                int32_t oc = dw ? f->dims[3] : f->dims[0];
                if (n->n_inputs > 2 && n->inputs[2] >= 0) {
                        if ((r = value(x, n->inputs[2], &c)) < 0)
                                return r;
                } else if ((r = zero_bias(x, in, f, oc, &c)) < 0)
                        return r;
                if ((r = value(x, out0, &y)) < 0)
                        return r;
                uint32_t flags = pad == RT_PADDING_SAME ? XNN_FLAG_TENSORFLOW_SAME_PADDING : 0;
                enum xnn_status st;
                if (dw) {
                        if (in->dims[3] <= 0 || f->dims[3] != in->dims[3] * (f->dims[3] / in->dims[3]))
                                return refuse(x, "depthwise channel mismatch");
                        (void) mult;
                        st = xnn_define_depthwise_convolution_2d(
                                x->sg, 0, 0, 0, 0, (uint32_t) f->dims[1], (uint32_t) f->dims[2], (uint32_t) sh,
                                (uint32_t) sw, (uint32_t) dhf, (uint32_t) dwf, (uint32_t) (f->dims[3] / in->dims[3]),
                                (size_t) in->dims[3], lo, hi, a, b, c, y, flags);
                } else {
                        if (f->dims[3] <= 0 || in->dims[3] % f->dims[3] != 0)
                                return refuse(x, "convolution channel mismatch");
                        uint32_t groups = (uint32_t) (in->dims[3] / f->dims[3]);
                        if (groups != 1 && f->dims[0] % (int32_t) groups != 0)
                                return refuse(x, "grouped convolution channel mismatch");
                        st = xnn_define_convolution_2d(x->sg, 0, 0, 0, 0, (uint32_t) f->dims[1],
                                                       (uint32_t) f->dims[2], (uint32_t) sh, (uint32_t) sw,
                                                       (uint32_t) dhf, (uint32_t) dwf, groups, (size_t) f->dims[3],
                                                       (size_t) f->dims[0] / groups, lo, hi, a, b, c, y, flags);
                }
                return check(x, st, rt_op_name(n->op));
        }
        case RT_BUILTIN_FULLY_CONNECTED: {
                const rt_tensor_t *in = T(x, in0), *f = T(x, n->inputs[1]);
                if (!in || !f || f->rank != 2)
                        return refuse(x, "fully connected needs a 2D filter");
                if (!is_static(x, n->inputs[1]))
                        return refuse(x, "non-constant fully connected weights");
                if (fbt_i8(o, 1, 0) != 0)
                        return refuse(x, "shuffled fully connected weights not supported");
                if ((in->type == RT_TYPE_FLOAT32) != (f->type == RT_TYPE_FLOAT32 || x->folded[n->inputs[1]] != NULL))
                        return refuse(x, "hybrid fully connected not supported");
                if (n->n_inputs > 2 && n->inputs[2] >= 0 && !is_static(x, n->inputs[2]))
                        return refuse(x, "non-constant fully connected bias");
                if (n->n_outputs != 1)
                        return refuse(x, "fully connected with several outputs");
                if ((r = act_range(x, fbt_i8(o, 0, 0), &lo, &hi)) < 0)
                        return r;
                if ((r = want_float_or_q(x, in0)) < 0 || (r = value(x, in0, &a)) < 0 ||
                    (r = value(x, n->inputs[1], &b)) < 0)
                        return r;
                if (n->n_inputs > 2 && n->inputs[2] >= 0) {
                        if ((r = value(x, n->inputs[2], &c)) < 0)
                                return r;
                } else if ((r = zero_bias(x, in, f, f->dims[0], &c)) < 0)
                        return r;
                if ((r = value(x, out0, &y)) < 0)
                        return r;
                bool keep = fbt_bool(o, 2, false);
                return check(x, xnn_define_fully_connected(x->sg, lo, hi, a, b, c, y,
                                                           keep ? 0 : XNN_FLAG_TENSORFLOW_RESHAPE_2D),
                             "FULLY_CONNECTED");
        }
        case RT_BUILTIN_ADD:
        case RT_BUILTIN_MUL:
        case RT_BUILTIN_SUB:
        case RT_BUILTIN_DIV:
        case RT_BUILTIN_MAXIMUM:
        case RT_BUILTIN_MINIMUM:
        case RT_BUILTIN_SQUARED_DIFFERENCE: {
                if (n->n_inputs != 2)
                        return refuse(x, "binary op needs two inputs");
                int act = (n->op == RT_BUILTIN_ADD || n->op == RT_BUILTIN_MUL || n->op == RT_BUILTIN_SUB ||
                           n->op == RT_BUILTIN_DIV) ? fbt_i8(o, 0, 0) : 0;
                if ((r = act_range(x, act, &lo, &hi)) < 0)
                        return r;
                const rt_tensor_t *t1 = T(x, n->inputs[0]), *t2 = T(x, n->inputs[1]);
                if (!t1 || !t2 || t1->rank > 4 || t2->rank > 4)
                        return refuse(x, "binary op inputs of rank > 4");
                if ((r = want_float_or_q(x, n->inputs[0])) < 0 || (r = want_float_or_q(x, n->inputs[1])) < 0)
                        return r;
                if ((r = value(x, n->inputs[0], &a)) < 0 || (r = value(x, n->inputs[1], &b)) < 0 ||
                    (r = value(x, out0, &y)) < 0)
                        return r;
                enum xnn_status st;
                switch (n->op) {
                case RT_BUILTIN_ADD:
                        st = xnn_define_add2(x->sg, lo, hi, a, b, y, 0);
                        break;
                case RT_BUILTIN_MUL:
                        st = xnn_define_multiply2(x->sg, lo, hi, a, b, y, 0);
                        break;
                case RT_BUILTIN_SUB:
                        st = xnn_define_subtract(x->sg, lo, hi, a, b, y, 0);
                        break;
                case RT_BUILTIN_DIV:
                        st = xnn_define_divide(x->sg, lo, hi, a, b, y, 0);
                        break;
                case RT_BUILTIN_MAXIMUM:
                        st = xnn_define_maximum2(x->sg, a, b, y, 0);
                        break;
                case RT_BUILTIN_MINIMUM:
                        st = xnn_define_minimum2(x->sg, a, b, y, 0);
                        break;
                default:
                        st = xnn_define_squared_difference(x->sg, a, b, y, 0);
                        break;
                }
                return check(x, st, rt_op_name(n->op));
        }
        case RT_BUILTIN_MAX_POOL_2D:
        case RT_BUILTIN_AVERAGE_POOL_2D: {
                const rt_tensor_t *in = T(x, in0);
                if (!in || in->rank != 4)
                        return refuse(x, "pooling needs a 4D input");
                int pad = fbt_i8(o, 0, 0);
                int32_t sw = fbt_i32(o, 1, 1), sh = fbt_i32(o, 2, 1), fw = fbt_i32(o, 3, 1), fh = fbt_i32(o, 4, 1);
                if ((r = act_range(x, fbt_i8(o, 5, 0), &lo, &hi)) < 0)
                        return r;
                if (fw < 1 || fh < 1 || sw < 1 || sh < 1)
                        return refuse(x, "invalid pooling window");
                if (fw == 1 && fh == 1)
                        return refuse(x, "1x1 pooling not supported");
                if ((r = want_float_or_q(x, in0)) < 0 || (r = value(x, in0, &a)) < 0 || (r = value(x, out0, &y)) < 0)
                        return r;
                uint32_t flags = pad == RT_PADDING_SAME ? XNN_FLAG_TENSORFLOW_SAME_PADDING : 0;
                enum xnn_status st;
                if (n->op == RT_BUILTIN_MAX_POOL_2D)
                        st = xnn_define_max_pooling_2d(x->sg, 0, 0, 0, 0, (uint32_t) fh, (uint32_t) fw, (uint32_t) sh,
                                                       (uint32_t) sw, 1, 1, lo, hi, a, y, flags);
                else
                        st = xnn_define_average_pooling_2d(x->sg, 0, 0, 0, 0, (uint32_t) fh, (uint32_t) fw,
                                                           (uint32_t) sh, (uint32_t) sw, lo, hi, a, y, flags);
                return check(x, st, rt_op_name(n->op));
        }
        case RT_BUILTIN_MEAN: {
                const rt_tensor_t *in = T(x, in0), *ax = T(x, n->inputs[1]), *out = T(x, out0);
                if (!in || in->rank != 4 || !ax || !rt_tensor_is_const(ax) || ax->type != RT_TYPE_INT32)
                        return refuse(x, "MEAN needs a 4D input and constant axes");
                const int32_t *axes = ax->data;
                size_t na = rt_tensor_count(ax);
                bool h = false, w = false;
                for (size_t k = 0; k < na; k++) {
                        int32_t v = axes[k] < 0 ? axes[k] + 4 : axes[k];
                        h |= v == 1;
                        w |= v == 2;
                        if (v != 1 && v != 2)
                                return refuse(x, "MEAN only over the spatial axes");
                }
                if (!h || !w)
                        return refuse(x, "MEAN only over both spatial axes");
                if (!fbt_bool(o, 0, false) || out->rank != 4)
                        return refuse(x, "MEAN without keep_dims not supported");
                if (in->type != RT_TYPE_FLOAT32)
                        return refuse(x, "quantized MEAN not supported");
                /* XNNPACK multiplies the sum by 1/N where TFLite divides by N;
                 * the two agree only when N is a power of two. Instance-norm
                 * statistics (style transfer) amplify the last-bit
                 * difference, so other sizes stay on the reference kernels. */
                uint64_t hw = (uint64_t) in->dims[1] * (uint64_t) in->dims[2];
                if (hw & (hw - 1))
                        return refuse(x, "MEAN over %llu elements (not a power of two) is not exact",
                                      (unsigned long long) hw);
                if ((r = value(x, in0, &a)) < 0 || (r = value(x, out0, &y)) < 0)
                        return r;
                if (in->dims[1] == 1 && in->dims[2] == 1)
                        return check(x, xnn_define_clamp(x->sg, -INFINITY, INFINITY, a, y, 0), "MEAN");
                return check(x, xnn_define_average_pooling_2d(x->sg, 0, 0, 0, 0, (uint32_t) in->dims[1],
                                                              (uint32_t) in->dims[2], 1, 1, -INFINITY, INFINITY, a,
                                                              y, 0),
                             "MEAN");
        }
        case RT_BUILTIN_RESHAPE:
        case RT_BUILTIN_SQUEEZE: {
                const rt_tensor_t *out = T(x, out0);
                if ((r = want_float_or_q(x, in0)) < 0)
                        return r;
                if (n->op == RT_BUILTIN_RESHAPE && n->n_inputs > 1 && n->inputs[1] >= 0 &&
                    !rt_tensor_is_const(T(x, n->inputs[1])))
                        return refuse(x, "RESHAPE to a computed shape not supported");
                if (out->rank < 1)
                        return refuse(x, "reshape to a scalar not supported");
                size_t dims[RT_MAX_RANK];
                for (int32_t d = 0; d < out->rank; d++)
                        dims[d] = (size_t) out->dims[d];
                if ((r = value(x, in0, &a)) < 0 || (r = value(x, out0, &y)) < 0)
                        return r;
                return check(x, xnn_define_static_reshape(x->sg, (size_t) out->rank, dims, a, y, 0),
                             rt_op_name(n->op));
        }
        case RT_BUILTIN_SOFTMAX: {
                if (fbt_f32(o, 0, 1.0f) != 1.0f)
                        return refuse(x, "SOFTMAX with beta != 1 not supported");
                if (T(x, in0)->type != RT_TYPE_FLOAT32)
                        return refuse(x, "quantized SOFTMAX not supported");
                if ((r = value(x, in0, &a)) < 0 || (r = value(x, out0, &y)) < 0)
                        return r;
                return check(x, xnn_define_softmax(x->sg, a, y, 0), "SOFTMAX");
        }
        case RT_BUILTIN_PAD:
        case RT_BUILTIN_PADV2: {
                const rt_tensor_t *in = T(x, in0), *p = T(x, n->inputs[1]);
                if (!p || !rt_tensor_is_const(p) || p->type != RT_TYPE_INT32 || in->rank > 4)
                        return refuse(x, "PAD needs constant int32 paddings and rank <= 4");
                if (n->op == RT_BUILTIN_PADV2 && n->n_inputs > 2 && n->inputs[2] >= 0)
                        return refuse(x, "PADV2 with a padding value not supported");
                size_t pre[RT_MAX_RANK], post[RT_MAX_RANK];
                const int32_t *pv = p->data;
                for (int32_t d = 0; d < in->rank; d++) {
                        if (pv[2 * d] < 0 || pv[2 * d + 1] < 0)
                                return refuse(x, "negative padding");
                        pre[d] = (size_t) pv[2 * d];
                        post[d] = (size_t) pv[2 * d + 1];
                }
                if ((r = want_float_or_q(x, in0)) < 0 || (r = value(x, in0, &a)) < 0 || (r = value(x, out0, &y)) < 0)
                        return r;
                return check(x, xnn_define_static_constant_pad(x->sg, pre, post, 0.0f, a, y, 0), "PAD");
        }
        case RT_BUILTIN_RELU:
        case RT_BUILTIN_RELU6:
        case RT_BUILTIN_RELU_N1_TO_1:
                if ((r = want_float_or_q(x, in0)) < 0 || (r = value(x, in0, &a)) < 0 || (r = value(x, out0, &y)) < 0)
                        return r;
                (void) act_range(x, n->op == RT_BUILTIN_RELU ? RT_ACT_RELU
                                    : n->op == RT_BUILTIN_RELU6 ? RT_ACT_RELU6 : RT_ACT_RELU_N1_TO_1, &lo, &hi);
                return check(x, xnn_define_clamp(x->sg, lo, hi, a, y, 0), rt_op_name(n->op));
        case RT_BUILTIN_LEAKY_RELU:
                if ((r = want_float_or_q(x, in0)) < 0 || (r = value(x, in0, &a)) < 0 || (r = value(x, out0, &y)) < 0)
                        return r;
                return check(x, xnn_define_leaky_relu(x->sg, fbt_f32(o, 0, 0.0f), a, y, 0), "LEAKY_RELU");
        case RT_BUILTIN_ELU:
        case RT_BUILTIN_LOGISTIC:
        case RT_BUILTIN_HARD_SWISH:
        case RT_BUILTIN_ABS:
        case RT_BUILTIN_CEIL:
        case RT_BUILTIN_FLOOR:
        case RT_BUILTIN_NEG:
        case RT_BUILTIN_ROUND:
        case RT_BUILTIN_SQUARE:
        case RT_BUILTIN_SQRT: {
                const rt_tensor_t *in = T(x, in0);
                if (in->type != RT_TYPE_FLOAT32 && n->op != RT_BUILTIN_LOGISTIC && n->op != RT_BUILTIN_ELU)
                        return refuse(x, "quantized %s not supported", rt_op_name(n->op));
                if ((r = want_float_or_q(x, in0)) < 0 || (r = value(x, in0, &a)) < 0 || (r = value(x, out0, &y)) < 0)
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
                return check(x, st, rt_op_name(n->op));
        }
        case RT_BUILTIN_PRELU: {
                const rt_tensor_t *in = T(x, in0), *s = T(x, n->inputs[1]);
                if (!s || !is_static(x, n->inputs[1]) || in->type != RT_TYPE_FLOAT32 || in->rank != 4)
                        return refuse(x, "PRELU needs float 4D input and constant slopes");
                size_t cnt = rt_tensor_count(s);
                if ((int32_t) cnt != in->dims[3])
                        return refuse(x, "PRELU slopes must be per channel");
                if ((r = value(x, in0, &a)) < 0 || (r = value(x, out0, &y)) < 0)
                        return r;
                size_t dims[1] = { cnt };
                const void *data = x->folded[n->inputs[1]] ? (const void *) x->folded[n->inputs[1]] : s->data;
                if (s->type != RT_TYPE_FLOAT32 && !x->folded[n->inputs[1]])
                        return refuse(x, "PRELU slopes must be float");
                if (check(x, xnn_define_tensor_value(x->sg, xnn_datatype_fp32, 1, dims, data, XNN_INVALID_VALUE_ID, 0,
                                                     &b), "PRELU slopes") < 0)
                        return -ENOTSUP;
                return check(x, xnn_define_prelu(x->sg, a, b, y, 0), "PRELU");
        }
        case RT_BUILTIN_RESIZE_BILINEAR: {
                const rt_tensor_t *in = T(x, in0), *out = T(x, out0);
                if (!in || in->rank != 4 || !rt_tensor_is_const(T(x, n->inputs[1])))
                        return refuse(x, "RESIZE_BILINEAR needs a 4D input and a constant size");
                bool align = fbt_bool(o, 2, false), half = fbt_bool(o, 3, false);
                uint32_t flags = align ? XNN_FLAG_ALIGN_CORNERS : (half ? 0 : XNN_FLAG_TENSORFLOW_LEGACY_MODE);
                if ((r = want_float_or_q(x, in0)) < 0 || (r = value(x, in0, &a)) < 0 || (r = value(x, out0, &y)) < 0)
                        return r;
                return check(x, xnn_define_static_resize_bilinear_2d(x->sg, (size_t) out->dims[1],
                                                                     (size_t) out->dims[2], a, y, flags),
                             "RESIZE_BILINEAR");
        }
        case RT_BUILTIN_DEPTH_TO_SPACE: {
                int32_t bs = fbt_i32(o, 0, 0);
                if (bs < 2)
                        return refuse(x, "invalid block size");
                if ((r = want_float_or_q(x, in0)) < 0 || (r = value(x, in0, &a)) < 0 || (r = value(x, out0, &y)) < 0)
                        return r;
                return check(x, xnn_define_depth_to_space(x->sg, a, y, (uint32_t) bs, 0), "DEPTH_TO_SPACE");
        }
        case RT_BUILTIN_DEQUANTIZE: {
                const rt_tensor_t *in = T(x, in0), *out = T(x, out0);
                if (in->type == RT_TYPE_FLOAT16 && rt_tensor_is_const(in) && !in->sparsity &&
                    out->type == RT_TYPE_FLOAT32) {
                        if ((r = fold_dequantize(x, n)) < 0)
                                return r;
                        if (x->ids[out0] == XNN_INVALID_VALUE_ID)
                                return 0;
                        /* The constant is also a group output: copy it out. */
                        if ((r = value(x, out0, &a)) < 0)
                                return r;
                        return check(x, xnn_define_clamp(x->sg, -INFINITY, INFINITY, a, x->ids[out0], 0),
                                     "DEQUANTIZE");
                }
                if ((in->type == RT_TYPE_INT8 || in->type == RT_TYPE_UINT8) && in->quant.n == 1 &&
                    out->type == RT_TYPE_FLOAT32 && !rt_tensor_is_const(in)) {
                        if ((r = value(x, in0, &a)) < 0 || (r = value(x, out0, &y)) < 0)
                                return r;
                        return check(x, xnn_define_convert(x->sg, a, y, 0), "DEQUANTIZE");
                }
                return refuse(x, "DEQUANTIZE of %s%s not supported", rt_tensor_is_const(in) ? "constant " : "",
                              rt_type_name(in->type));
        }
        case RT_BUILTIN_QUANTIZE: {
                const rt_tensor_t *in = T(x, in0), *out = T(x, out0);
                if (in->type != RT_TYPE_FLOAT32 || (out->type != RT_TYPE_INT8 && out->type != RT_TYPE_UINT8))
                        return refuse(x, "QUANTIZE from %s to %s not supported", rt_type_name(in->type),
                                      rt_type_name(out->type));
                if ((r = value(x, in0, &a)) < 0 || (r = value(x, out0, &y)) < 0)
                        return r;
                return check(x, xnn_define_convert(x->sg, a, y, 0), "QUANTIZE");
        }
        case RT_BUILTIN_TRANSPOSE_CONV: {
                /* inputs: output_shape, weights [O,KH,KW,I], input, bias (optional) */
                if (n->n_inputs < 3)
                        return refuse(x, "TRANSPOSE_CONV needs three inputs");
                int32_t wi = n->inputs[1], ii = n->inputs[2], bi = n->n_inputs > 3 ? n->inputs[3] : -1;
                const rt_tensor_t *in = T(x, ii), *f = T(x, wi), *out = T(x, out0);
                if (!in || !f || !out || in->rank != 4 || f->rank != 4 || out->rank != 4)
                        return refuse(x, "TRANSPOSE_CONV needs 4D tensors");
                if (in->type != RT_TYPE_FLOAT32 || (f->type != RT_TYPE_FLOAT32 && !x->folded[wi]))
                        return refuse(x, "quantized TRANSPOSE_CONV not supported");
                if (!is_static(x, wi) || (bi >= 0 && !is_static(x, bi)))
                        return refuse(x, "non-constant TRANSPOSE_CONV weights");
                int32_t sw = fbt_i32(o, 1, 1), sh = fbt_i32(o, 2, 1);
                if ((r = act_range(x, fbt_i8(o, 3, 0), &lo, &hi)) < 0)
                        return r;
                if (sw < 1 || sh < 1 || f->dims[3] != in->dims[3])
                        return refuse(x, "invalid TRANSPOSE_CONV stride or channels");
                /* Explicit padding: the deconvolution's natural output minus
                 * the requested one, split as TFLite does (extra at the
                 * bottom/right); a shortfall becomes an adjustment. */
                int32_t th = (in->dims[1] - 1) * sh + f->dims[1] - out->dims[1];
                int32_t tw = (in->dims[2] - 1) * sw + f->dims[2] - out->dims[2];
                uint32_t adj_h = th < 0 ? (uint32_t) -th : 0, adj_w = tw < 0 ? (uint32_t) -tw : 0;
                if (th < 0)
                        th = 0;
                if (tw < 0)
                        tw = 0;
                if (adj_h >= (uint32_t) sh || adj_w >= (uint32_t) sw)
                        return refuse(x, "TRANSPOSE_CONV output shape out of range");
                if ((r = value(x, ii, &a)) < 0 || (r = value(x, wi, &b)) < 0)
                        return r;
                c = XNN_INVALID_VALUE_ID;
                if (bi >= 0 && (r = value(x, bi, &c)) < 0)
                        return r;
                if ((r = value(x, out0, &y)) < 0)
                        return r;
                return check(x, xnn_define_deconvolution_2d(
                                        x->sg, (uint32_t) (th / 2), (uint32_t) (tw - tw / 2), (uint32_t) (th - th / 2),
                                        (uint32_t) (tw / 2), adj_h, adj_w, (uint32_t) f->dims[1], (uint32_t) f->dims[2],
                                        (uint32_t) sh, (uint32_t) sw, 1, 1, 1, (size_t) f->dims[3],
                                        (size_t) f->dims[0], lo, hi, a, b, c, y, 0),
                             "TRANSPOSE_CONV");
        }
        case RT_BUILTIN_CONCATENATION:
                return refuse(x, "CONCATENATION is not in this XNNPACK's subgraph API");
        default:
                return refuse(x, "op %s not supported", rt_op_name(n->op));
        }
}

/* ---- driver hooks ---- */

typedef struct prepared {
        xnn_runtime_t runtime;
        pthreadpool_t pool;
        void **owned;
        size_t n_owned;
        int32_t *ext;          /* external id -> graph tensor */
        int32_t n_ext;
        struct xnn_external_value *values;
        bool set_up;
        void **last_ptrs;
} prepared_t;

static void prepared_free(void *p) {
        prepared_t *pr = p;
        if (!pr)
                return;
        if (pr->runtime)
                xnn_delete_runtime(pr->runtime);
        rt__xnn_pool_release(pr->pool);
        for (size_t i = 0; i < pr->n_owned; i++)
                free(pr->owned[i]);
        free(pr->owned);
        free(pr->ext);
        free(pr->values);
        free(pr->last_ptrs);
        free(pr);
}

static int xnn_supported(const rt_driver_t *d, const rt_driver_graph_t *g, const rt_settings_t *s,
                         bool *ret_supported, char (*reasons)[RT_DRIVER_REASON_MAX]) {
        pthread_once(&init_once, init_xnn);
        if (init_status != xnn_status_success) {
                for (int32_t i = 0; i < g->n_nodes; i++) {
                        ret_supported[i] = false;
                        snprintf(reasons[i], RT_DRIVER_REASON_MAX, "XNNPACK: not available on this CPU");
                }
                return 0;
        }
        uint32_t *ids = malloc(((size_t) g->n_tensors + 1) * sizeof(uint32_t));
        uint32_t *fold_ids = malloc(((size_t) g->n_tensors + 1) * sizeof(uint32_t));
        const float **folded = calloc((size_t) g->n_tensors + 1, sizeof(float *));
        void **owned = NULL;
        size_t n_owned = 0;
        if (!ids || !folded || !fold_ids) {
                free(ids);
                free(fold_ids);
                free(folded);
                return -ENOMEM;
        }
        /* Nodes are tried in order with the earlier folds visible, so a
         * convolution whose filter comes from a folded DEQUANTIZE is accepted. */
        for (int32_t i = 0; i < g->n_nodes; i++) {
                xnn_subgraph_t sg = NULL;
                ret_supported[i] = false;
                reasons[i][0] = 0;
                if (!g->nodes[i].reg && g->nodes[i].op != RT_OP_CUSTOM) {
                        snprintf(reasons[i], RT_DRIVER_REASON_MAX, "XNNPACK: node is not a model op");
                        continue;
                }
                if (xnn_create_subgraph(0, 0, &sg) != xnn_status_success) {
                        snprintf(reasons[i], RT_DRIVER_REASON_MAX, "XNNPACK: cannot create a subgraph");
                        continue;
                }
                for (int32_t t = 0; t < g->n_tensors; t++)
                        ids[t] = fold_ids[t] = XNN_INVALID_VALUE_ID;
                xctx_t x = { .g = g, .sg = sg, .ids = ids, .fold_ids = fold_ids, .folded = folded, .owned = &owned, .n_owned = &n_owned,
                             .why = reasons[i], .why_size = RT_DRIVER_REASON_MAX };
                int r = define_node(&x, &g->nodes[i]);
                xnn_delete_subgraph(sg);
                if (r == -ENOMEM) {
                        snprintf(reasons[i], RT_DRIVER_REASON_MAX, "XNNPACK: out of memory");
                        continue;
                }
                ret_supported[i] = r == 0;
                if (r == 0)
                        reasons[i][0] = 0;
        }
        for (size_t k = 0; k < n_owned; k++)
                free(owned[k]);
        free(owned);
        free(ids);
        free(fold_ids);
        free(folded);
        return 0;
}

static uint64_t mono_ns(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

static int xnn_prepare(const rt_driver_t *d, const rt_driver_graph_t *g, const rt_driver_group_t *grp,
                       const rt_settings_t *s, uint64_t deadline_ns, void **ret_prepared, char *err,
                       size_t err_size) {
        pthread_once(&init_once, init_xnn);
        if (init_status != xnn_status_success) {
                snprintf(err, err_size, "XNNPACK cannot initialise on this CPU");
                return -ENODEV;
        }
        if (deadline_ns && mono_ns() > deadline_ns) {
                snprintf(err, err_size, "deadline passed before compilation");
                return -ETIME;
        }
        prepared_t *pr = calloc(1, sizeof(*pr));
        uint32_t *ids = malloc(((size_t) g->n_tensors + 1) * sizeof(uint32_t));
        uint32_t *fold_ids = malloc(((size_t) g->n_tensors + 1) * sizeof(uint32_t));
        const float **folded = calloc((size_t) g->n_tensors + 1, sizeof(float *));
        xnn_subgraph_t sg = NULL;
        int r = -ENOMEM;
        if (!pr || !ids || !folded || !fold_ids)
                goto error;
        int32_t n_ext = grp->n_inputs + grp->n_outputs;
        pr->ext = calloc((size_t) n_ext + 1, sizeof(int32_t));
        pr->values = calloc((size_t) n_ext + 1, sizeof(*pr->values));
        pr->last_ptrs = calloc((size_t) n_ext + 1, sizeof(void *));
        if (!pr->ext || !pr->values || !pr->last_ptrs)
                goto error;
        pr->n_ext = n_ext;
        if (xnn_create_subgraph((uint32_t) n_ext, 0, &sg) != xnn_status_success) {
                snprintf(err, err_size, "cannot create an XNNPACK subgraph");
                r = -ENOMEM;
                goto error;
        }
        for (int32_t t = 0; t < g->n_tensors; t++)
                ids[t] = fold_ids[t] = XNN_INVALID_VALUE_ID;
        xctx_t x = { .g = g, .sg = sg, .ids = ids, .fold_ids = fold_ids, .folded = folded, .owned = &pr->owned,
                     .n_owned = &pr->n_owned, .why = err, .why_size = err_size };
        /* Group inputs made by a DEQUANTIZE of a float16 constant outside
         * the group are folded here too, so weights stay static. */
        for (int32_t k = 0; k < grp->n_inputs; k++)
                for (int32_t ni = 0; ni < g->n_nodes; ni++) {
                        const rt_node_t *n = &g->nodes[ni];
                        if (n->n_outputs > 0 && n->outputs[0] == grp->inputs[k] && is_fp16_dequantize(&x, n) &&
                            (r = fold_dequantize(&x, n)) < 0)
                                goto error;
                }
        /* Boundary tensors first, with external ids 0..n_ext-1. */
        for (int32_t k = 0; k < n_ext; k++) {
                bool is_in = k < grp->n_inputs;
                int32_t ti = is_in ? grp->inputs[k] : grp->outputs[k - grp->n_inputs];
                const rt_tensor_t *t = &g->tensors[ti];
                size_t dims[RT_MAX_RANK];
                for (int32_t dd = 0; dd < t->rank; dd++)
                        dims[dd] = (size_t) t->dims[dd];
                uint32_t flags = is_in ? XNN_VALUE_FLAG_EXTERNAL_INPUT : XNN_VALUE_FLAG_EXTERNAL_OUTPUT;
                enum xnn_status st;
                if (ids[ti] != XNN_INVALID_VALUE_ID) {
                        snprintf(err, err_size, "tensor %d is both an input and an output of the group", ti);
                        r = -ENOTSUP;
                        goto error;
                }
                if (t->type == RT_TYPE_FLOAT32)
                        st = xnn_define_tensor_value(sg, xnn_datatype_fp32, (size_t) t->rank, dims, NULL,
                                                     (uint32_t) k, flags, &ids[ti]);
                else if ((t->type == RT_TYPE_INT8 || t->type == RT_TYPE_UINT8) && t->quant.n == 1)
                        st = xnn_define_quantized_tensor_value(
                                sg, t->type == RT_TYPE_INT8 ? xnn_datatype_qint8 : xnn_datatype_quint8, t->zero_point,
                                t->scale, (size_t) t->rank, dims, NULL, (uint32_t) k, flags, &ids[ti]);
                else {
                        snprintf(err, err_size, "boundary tensor %d of type %s not supported", ti,
                                 rt_type_name(t->type));
                        r = -ENOTSUP;
                        goto error;
                }
                if (st != xnn_status_success) {
                        snprintf(err, err_size, "boundary tensor %d rejected (status %d)", ti, (int) st);
                        r = rt__xnn_status_to_errno(st);
                        goto error;
                }
                pr->ext[k] = ti;
        }
        for (int32_t k = 0; k < grp->n_nodes; k++) {
                const rt_node_t *n = &g->nodes[grp->nodes[k]];
                r = define_node(&x, n);
                if (r < 0) {
                        char tmp[256];
                        snprintf(tmp, sizeof(tmp), "%s", err);
                        snprintf(err, err_size, "node %d (%s): %s", n->index, rt_op_name(n->op), tmp);
                        goto error;
                }
        }
        int32_t threads = rt_settings_num_threads(s, 1);
        if (threads > 1) {
                pr->pool = rt__xnn_pool_acquire(g->tensors, (size_t) threads);
                if (!pr->pool) {
                        snprintf(err, err_size, "cannot create a pool of %d threads", threads);
                        r = -ENOMEM;
                        goto error;
                }
        }
        /* Workers spinning after the last operator would steal the CPU from
         * the reference kernels running between groups. */
        uint32_t flags = pr->pool ? XNN_FLAG_YIELD_WORKERS : 0;
        if (s && (s->xnnpack_flags & RT_XNNPACK_FLAG_FORCE_FP16))
                flags |= XNN_FLAG_FORCE_FP16_INFERENCE;
        if (s && (s->xnnpack_flags & RT_XNNPACK_FLAG_SPARSE))
                flags |= XNN_FLAG_HINT_SPARSE_INFERENCE;
        enum xnn_status st = xnn_create_runtime_v2(sg, pr->pool, flags, &pr->runtime);
        if (st != xnn_status_success) {
                pr->runtime = NULL;
                if ((flags & XNN_FLAG_FORCE_FP16_INFERENCE) && st == xnn_status_unsupported_hardware)
                        snprintf(err, err_size,
                                 "forced FP16 inference is not possible on this CPU (no native FP16 arithmetic "
                                 "and no AVX2 emulation)");
                else if (flags & XNN_FLAG_FORCE_FP16_INFERENCE)
                        snprintf(err, err_size,
                                 "forced FP16 inference refused (status %d): an operator of this group has no FP16 "
                                 "version in this XNNPACK",
                                 (int) st);
                else
                        snprintf(err, err_size, "cannot create the XNNPACK runtime (status %d)", (int) st);
                r = rt__xnn_status_to_errno(st);
                if (r == 0)
                        r = -EIO;
                goto error;
        }
        xnn_delete_subgraph(sg);
        free(ids);
        free(fold_ids);
        free(folded);
        *ret_prepared = pr;
        return 0;
error:
        if (sg)
                xnn_delete_subgraph(sg);
        free(ids);
        free(fold_ids);
        free(folded);
        prepared_free(pr);
        return r;
}

/* Boundary pointers are the executor's arena or caller buffers
 * (rt_interp_set_tensor_buffer()); when one changes, the runtime is set up
 * again with the new external values (cheap: no recompilation). */
static int xnn_execute(void *p, const rt_driver_graph_t *g, char *err, size_t err_size) {
        prepared_t *pr = p;
        bool changed = !pr->set_up;
        for (int32_t k = 0; k < pr->n_ext; k++) {
                void *data = g->tensors[pr->ext[k]].data;
                if (!data) {
                        snprintf(err, err_size, "tensor %d has no storage", pr->ext[k]);
                        return -EINVAL;
                }
                if (data != pr->last_ptrs[k])
                        changed = true;
                pr->values[k] = (struct xnn_external_value) { .id = (uint32_t) k, .data = data };
                pr->last_ptrs[k] = data;
        }
        enum xnn_status st;
        if (changed) {
                st = xnn_setup_runtime(pr->runtime, (size_t) pr->n_ext, pr->values);
                if (st != xnn_status_success) {
                        snprintf(err, err_size, "xnn_setup_runtime failed (status %d)", (int) st);
                        return rt__xnn_status_to_errno(st);
                }
                pr->set_up = true;
        }
        st = xnn_invoke_runtime(pr->runtime);
        if (st != xnn_status_success) {
                snprintf(err, err_size, "xnn_invoke_runtime failed (status %d)", (int) st);
                return rt__xnn_status_to_errno(st);
        }
        return 0;
}

static const rt_driver_t xnnpack_driver = {
        .abi_version = RT_DRIVER_ABI_VERSION,
        .name = "xnnpack",
        .version = "xnnpack-2022.02",
        .type = RT_DRIVER_TYPE_CPU,
        .calibrate = rt__xnn_calibrate,
        .supported_ops = xnn_supported,
        .prepare = xnn_prepare,
        .execute = xnn_execute,
        .release = prepared_free,
};

const rt_driver_t *rt_driver_xnnpack(void) {
        return &xnnpack_driver;
}
