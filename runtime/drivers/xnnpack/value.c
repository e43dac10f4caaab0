/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Values of the subgraph being translated: tensors become XNNPACK values
 * (constants as static data), plus the checks every op translation shares.
 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xnnpack.h>

#include "rt.h"
#include "xnnpack-internal.h"

int rt__xnn_refuse(rt__xnn_ctx_t *x, const char *fmt, ...) {
        if (x->why && x->why_size) {
                int o = snprintf(x->why, x->why_size, "XNNPACK: ");
                va_list ap;
                va_start(ap, fmt);
                vsnprintf(x->why + o, x->why_size - (size_t) o, fmt, ap);
                va_end(ap);
        }
        return -ENOTSUP;
}

void *rt__xnn_own(rt__xnn_ctx_t *x, size_t bytes) {
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

const rt_tensor_t *rt__xnn_tensor(rt__xnn_ctx_t *x, int32_t i) {
        return i >= 0 && i < x->g->n_tensors ? &x->g->tensors[i] : NULL;
}

bool rt__xnn_is_static(rt__xnn_ctx_t *x, int32_t i) {
        return i >= 0 && (x->folded[i] || x->g->tensors[i].alloc == RT_ALLOC_CONST);
}

int rt__xnn_value(rt__xnn_ctx_t *x, int32_t i, uint32_t *ret) {
        if (i < 0 || i >= x->g->n_tensors)
                return rt__xnn_refuse(x, "missing tensor");
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
                return rt__xnn_refuse(x, "sparse tensor %d not supported", i);
        size_t dims[RT_MAX_RANK];
        for (int32_t d = 0; d < t->rank; d++) {
                if (t->dims[d] <= 0)
                        return rt__xnn_refuse(x, "tensor %d has a dynamic or empty dimension", i);
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
                                        return rt__xnn_refuse(
                                                x, "per-channel int8 tensor %d with a nonzero zero point", i);
                        st = xnn_define_channelwise_quantized_tensor_value(
                                x->sg, xnn_datatype_qcint8, t->quant.scale, (size_t) t->rank,
                                (size_t) t->quant.axis, dims, data, XNN_INVALID_VALUE_ID, 0, &id);
                } else
                        return rt__xnn_refuse(x, "%s tensor %d without per-tensor quantization", rt_type_name(type), i);
                break;
        case RT_TYPE_INT32:
                if (!data || t->quant.n == 0)
                        return rt__xnn_refuse(x, "int32 tensor %d is not a quantized bias", i);
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
                return rt__xnn_refuse(x, "%s tensors not supported", rt_type_name(type));
        }
        if (st != xnn_status_success)
                return rt__xnn_refuse(x, "tensor %d rejected (status %d)", i, (int) st);
        if (x->folded[i])
                x->fold_ids[i] = id;
        else
                x->ids[i] = id;
        *ret = id;
        return 0;
}

void rt__xnn_same_padding(int32_t in, int32_t k, int32_t s, int32_t d, uint32_t *ret_before, uint32_t *ret_after) {
        int64_t keff = (int64_t) (k - 1) * d + 1;
        int64_t out = ((int64_t) in + s - 1) / s;
        int64_t total = (out - 1) * s + keff - in;

        if (total < 0)
                total = 0;
        *ret_before = (uint32_t) (total / 2);
        *ret_after = (uint32_t) (total - total / 2);
}

int rt__xnn_act_range_bounded(rt__xnn_ctx_t *x, int act, float *lo, float *hi) {
        int r = rt__xnn_act_range(x, act, lo, hi);
        if (r == 0 && (act == RT_ACT_NONE || act == RT_ACT_RELU)) {
                *lo = act == RT_ACT_NONE ? -INFINITY : 0;
                *hi = INFINITY;
        }
        return r;
}

bool rt__xnn_act_bounds(int act, float *lo, float *hi) {
        switch (act) {
        case RT_ACT_NONE:
                /* [-FLT_MAX, FLT_MAX], as TensorFlow Lite's builtin kernels
                 * clamp every fused activation (the goldens' semantics): an
                 * overflow stays finite, so a following LOG or SUB sees
                 * FLT_MAX as it does in TFLite, never inf. The price is
                 * XNNPACK's x86 clamp, which turns a NaN input into the
                 * lower bound where TFLite keeps NaN; docs/conformance.md
                 * states this one deliberate difference. */
                *lo = -FLT_MAX;
                *hi = FLT_MAX;
                return true;
        case RT_ACT_RELU:
                *lo = 0;
                *hi = FLT_MAX;
                return true;
        case RT_ACT_RELU_N1_TO_1:
                *lo = -1;
                *hi = 1;
                return true;
        case RT_ACT_RELU6:
                *lo = 0;
                *hi = 6;
                return true;
        default:
                return false;
        }
}

int rt__xnn_act_range(rt__xnn_ctx_t *x, int act, float *lo, float *hi) {
        if (rt__xnn_act_bounds(act, lo, hi))
                return 0;
        switch (act) {
        case RT_ACT_TANH:
                return rt__xnn_refuse(x, "fused TANH activation not supported");
        case RT_ACT_SIGN_BIT:
                return rt__xnn_refuse(x, "fused SIGN_BIT activation not supported");
        default:
                return rt__xnn_refuse(x, "unknown fused activation %d", act);
        }
}

bool rt__xnn_relu_bounds(int32_t op, float *lo, float *hi) {
        switch (op) {
        case RT_BUILTIN_RELU:
                /* The RELU op (unlike a fused RELU) keeps +inf as TFLite's does. */
                *lo = 0.0f;
                *hi = INFINITY;
                return true;
        case RT_BUILTIN_RELU6:
                *lo = 0.0f;
                *hi = 6.0f;
                return true;
        case RT_BUILTIN_RELU_N1_TO_1:
                *lo = -1.0f;
                *hi = 1.0f;
                return true;
        default:
                return false;
        }
}

int rt__xnn_want_float_or_q(rt__xnn_ctx_t *x, int32_t i) {
        const rt_tensor_t *t = rt__xnn_tensor(x, i);
        if (!t)
                return rt__xnn_refuse(x, "missing tensor");
        if (x->folded[i] || t->type == RT_TYPE_FLOAT32 || t->type == RT_TYPE_INT8 || t->type == RT_TYPE_UINT8)
                return 0;
        return rt__xnn_refuse(x, "%s tensors not supported", rt_type_name(t->type));
}

int rt__xnn_check(rt__xnn_ctx_t *x, enum xnn_status st, const char *what) {
        if (st == xnn_status_success)
                return 0;
        return rt__xnn_refuse(x, "%s rejected by this XNNPACK (status %d)", what, (int) st);
}

int rt__xnn_zero_bias(rt__xnn_ctx_t *x, const rt_tensor_t *in, const rt_tensor_t *filter, int32_t channels,
                      uint32_t *ret) {
        size_t dims[1] = { (size_t) channels };
        uint32_t id;
        enum xnn_status st;
        if (in->type == RT_TYPE_FLOAT32) {
                void *p = rt__xnn_own(x, (size_t) channels * 4);
                if (!p)
                        return -ENOMEM;
                st = xnn_define_tensor_value(x->sg, xnn_datatype_fp32, 1, dims, p, XNN_INVALID_VALUE_ID, 0, &id);
        } else {
                void *p = rt__xnn_own(x, (size_t) channels * 4);
                if (!p)
                        return -ENOMEM;
                if (filter->quant.n > 1) {
                        float *sc = rt__xnn_own(x, (size_t) channels * sizeof(float));
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
                return rt__xnn_refuse(x, "zero bias rejected");
        *ret = id;
        return 0;
}
