/* SPDX-License-Identifier: Apache-2.0 */
/* BATCH_MATMUL: TFLite batch_matmul.cc (float, int8, int16, hybrid float x
 * int8). lhs [..., M, K] (or [..., K, M] with adj_x), rhs [..., K, N] (or
 * [..., N, K] with adj_y); leading dimensions broadcast. */
#include <stdlib.h>
#include <string.h>

#include "conv-internal.h"

#define BMM_MAX_RANK 5

static int bmm_parse(const rt_node_t *node, void *ret_params, rt_context_t *ctx) {
        rt_batch_matmul_params_t *p = ret_params;
        fbt_table_t o = node->options;
        p->adj_x = fbt_bool(o, 0, false);
        p->adj_y = fbt_bool(o, 1, false);
        p->asymmetric_quantize_inputs = fbt_bool(o, 2, false);
        return 0;
}

/* Shape bookkeeping, derived from the tensors each time. */
typedef struct bmm_shape {
        int32_t rank;             /* output rank */
        int32_t batch_dims[BMM_MAX_RANK];
        int64_t lstride[BMM_MAX_RANK], rstride[BMM_MAX_RANK];  /* in matrices, 0 = broadcast */
        int32_t m, k, n;
        size_t batches;
} bmm_shape_t;

static int bmm_shape(rt_context_t *ctx, const rt_batch_matmul_params_t *p, const rt_tensor_t *l,
                     const rt_tensor_t *r, bmm_shape_t *s) {
        if (l->rank < 2 || r->rank < 2 || l->rank > BMM_MAX_RANK || r->rank > BMM_MAX_RANK)
                return rt_ctx_error(ctx, "BATCH_MATMUL: operands must have rank 2..%d (got %d and %d)",
                                    BMM_MAX_RANK, l->rank, r->rank);
        const int32_t rank = KU_MAX(l->rank, r->rank);
        const int32_t lm = l->dims[l->rank - 2], lk = l->dims[l->rank - 1];
        const int32_t rk = r->dims[r->rank - 2], rn = r->dims[r->rank - 1];
        s->m = p->adj_x ? lk : lm;
        s->k = p->adj_x ? lm : lk;
        const int32_t k2 = p->adj_y ? rn : rk;
        s->n = p->adj_y ? rk : rn;
        if (s->k != k2)
                return rt_ctx_error(ctx, "BATCH_MATMUL: inner dimensions differ (%d vs %d)", s->k, k2);
        s->rank = rank;
        int64_t ls = 1, rs = 1;
        s->batches = 1;
        for (int32_t i = rank - 3; i >= 0; i--) {
                const int32_t li = i - (rank - l->rank), ri = i - (rank - r->rank);
                const int32_t ld = li >= 0 ? l->dims[li] : 1, rd = ri >= 0 ? r->dims[ri] : 1;
                if (ld != rd && ld != 1 && rd != 1)
                        return rt_ctx_error(ctx, "BATCH_MATMUL: batch dimensions %d and %d do not broadcast",
                                            ld, rd);
                s->batch_dims[i] = ld == 1 ? rd : ld;
                s->lstride[i] = ld == 1 ? 0 : ls;
                s->rstride[i] = rd == 1 ? 0 : rs;
                ls *= ld;
                rs *= rd;
                s->batches *= (size_t) s->batch_dims[i];
        }
        return 0;
}

static int bmm_prepare(rt_context_t *ctx, rt_node_t *node) {
        const rt_batch_matmul_params_t *p = node->params;
        rt_conv_data_t *d = node->user_data;
        if (!p || !d)
                return rt_ctx_error(ctx, "BATCH_MATMUL: node has no params or state");
        if (node->n_inputs != 2 || node->n_outputs != 1)
                return rt_ctx_error(ctx, "BATCH_MATMUL: expected 2 inputs and 1 output, got %d and %d",
                                    node->n_inputs, node->n_outputs);
        rt_tensor_t *l = rt_node_input(ctx, node, 0);
        rt_tensor_t *r = rt_node_input(ctx, node, 1);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        if (!l || !r || !out)
                return rt_ctx_error(ctx, "BATCH_MATMUL: lhs, rhs and output are required");
        bmm_shape_t s;
        int ret = bmm_shape(ctx, p, l, r, &s);
        if (ret < 0)
                return ret;
        if (l->type == RT_TYPE_FLOAT32 && r->type == RT_TYPE_FLOAT32 && out->type == RT_TYPE_FLOAT32) {
                d->kind = RT_CONV_FLOAT;
        } else if (l->type == RT_TYPE_FLOAT32 && r->type == RT_TYPE_INT8 && out->type == RT_TYPE_FLOAT32) {
                d->kind = RT_CONV_HYBRID;
                if (r->quant.n < 1 || !r->quant.scale)
                        return rt_ctx_error(ctx, "BATCH_MATMUL: int8 rhs has no quantization parameters");
                if (r->quant.n > 1) {
                        (void) rt_ctx_error(ctx, "BATCH_MATMUL: per-channel quantized rhs is not supported");
                        return -ENOTSUP;
                }
                const size_t rows = rt_tensor_count(l) / (size_t) (s.k ? s.k : 1);
                ret = ctx->request_scratch(ctx, node, rt_tensor_count(l) ? rt_tensor_count(l) : 1,
                                           &d->scratch[0]);
                if (ret >= 0)
                        ret = ctx->request_scratch(ctx, node, sizeof(float) * (rows ? rows : 1), &d->scratch[1]);
                if (ret >= 0)
                        ret = ctx->request_scratch(ctx, node, sizeof(int32_t) * (rows ? rows : 1), &d->scratch[2]);
                if (ret < 0)
                        return ret;
        } else if ((l->type == RT_TYPE_INT8 || l->type == RT_TYPE_INT16) && r->type == l->type &&
                   out->type == l->type) {
                d->kind = l->type == RT_TYPE_INT8 ? RT_CONV_INT8 : RT_CONV_INT16;
                if (l->quant.n < 1 || r->quant.n < 1 || out->quant.n < 1 || !(out->scale > 0.0f))
                        return rt_ctx_error(ctx, "BATCH_MATMUL: quantized operands need quantization parameters");
                if (l->quant.n > 1 || r->quant.n > 1) {
                        (void) rt_ctx_error(ctx, "BATCH_MATMUL: per-channel quantization is not supported");
                        return -ENOTSUP;
                }
                if (d->kind == RT_CONV_INT16 &&
                    (l->zero_point != 0 || r->zero_point != 0 || out->zero_point != 0))
                        return rt_ctx_error(ctx, "BATCH_MATMUL: int16 operands need zero point 0");
                /* TFLite: the scale product is a float, the ratio a double. */
                const float prod = l->scale * r->scale;
                int32_t mul;
                int shift;
                ku_quantize_multiplier((double) prod / (double) out->scale, &mul, &shift);
                d->out_multiplier = mul;
                d->out_shift = shift;
                ku_type_range(out->type, &d->act_min, &d->act_max);
        } else {
                return rt_conv__unsupported(ctx, "BATCH_MATMUL", l, r, out);
        }
        int32_t dims[BMM_MAX_RANK];
        memcpy(dims, s.batch_dims, sizeof(int32_t) * (size_t) (s.rank - 2));
        dims[s.rank - 2] = s.m;
        dims[s.rank - 1] = s.n;
        return rt_ctx_resize(ctx, node, 0, s.rank, dims);
}

/* Offsets (in matrices) of batch `bi` in lhs and rhs. */
static void bmm_batch_offsets(const bmm_shape_t *s, size_t bi, size_t *ret_l, size_t *ret_r) {
        size_t lo = 0, ro = 0;
        for (int32_t i = s->rank - 3; i >= 0; i--) {
                const size_t idx = bi % (size_t) s->batch_dims[i];
                bi /= (size_t) s->batch_dims[i];
                lo += idx * (size_t) s->lstride[i];
                ro += idx * (size_t) s->rstride[i];
        }
        *ret_l = lo;
        *ret_r = ro;
}

static int bmm_invoke(rt_context_t *ctx, rt_node_t *node) {
        const rt_batch_matmul_params_t *p = node->params;
        const rt_conv_data_t *d = node->user_data;
        rt_tensor_t *l = rt_node_input(ctx, node, 0);
        rt_tensor_t *r = rt_node_input(ctx, node, 1);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        if (!rt_conv__has_data(l) || !rt_conv__has_data(r) || !rt_conv__has_data(out))
                return rt_ctx_error(ctx, "BATCH_MATMUL: a tensor has no data");
        bmm_shape_t s;
        int ret = bmm_shape(ctx, p, l, r, &s);
        if (ret < 0)
                return ret;
        const size_t lsz = (size_t) s.m * s.k, rsz = (size_t) s.k * s.n;
        /* Element (i, k) of lhs and (k, j) of rhs within one matrix. */
#define LIDX(i, kk) (p->adj_x ? (size_t) (kk) * s.m + (i) : (size_t) (i) * s.k + (kk))
#define RIDX(kk, j) (p->adj_y ? (size_t) (j) * s.k + (kk) : (size_t) (kk) * s.n + (j))
        int8_t *xq = NULL;
        float *scales = NULL;
        int32_t *offsets = NULL;
        if (d->kind == RT_CONV_HYBRID) {
                xq = ctx->get_scratch(ctx, node, d->scratch[0]);
                scales = ctx->get_scratch(ctx, node, d->scratch[1]);
                offsets = ctx->get_scratch(ctx, node, d->scratch[2]);
                if (!xq || !scales || !offsets)
                        return rt_ctx_error(ctx, "BATCH_MATMUL: hybrid scratch memory missing");
        }
        size_t lbatches = rt_tensor_count(l) / (lsz ? lsz : 1);
        if (d->kind == RT_CONV_HYBRID) {
                /* Quantize each lhs row (over K) on its own, transposing if adj_x. */
                const float *x = l->data;
                for (size_t lb = 0; lb < lbatches; lb++)
                for (int32_t i = 0; i < s.m; i++) {
                        const size_t ri = lb * (size_t) s.m + (size_t) i;
                        int8_t *q = xq + ri * (size_t) s.k;
                        /* A transposed row is gathered into a contiguous copy. */
                        if (!p->adj_x) {
                                const float *src = x + lb * lsz + (size_t) i * s.k;
                                if (p->asymmetric_quantize_inputs)
                                        rt_conv__quantize_asymmetric(src, (size_t) s.k, q, &scales[ri], &offsets[ri]);
                                else {
                                        rt_conv__quantize_symmetric(src, (size_t) s.k, q, &scales[ri]);
                                        offsets[ri] = 0;
                                }
                        } else {
                                float tmp[256];
                                float *buf = s.k <= 256 ? tmp : malloc(sizeof(float) * (size_t) s.k);
                                if (!buf)
                                        return -ENOMEM;
                                for (int32_t kk = 0; kk < s.k; kk++)
                                        buf[kk] = x[lb * lsz + LIDX(i, kk)];
                                if (p->asymmetric_quantize_inputs)
                                        rt_conv__quantize_asymmetric(buf, (size_t) s.k, q, &scales[ri], &offsets[ri]);
                                else {
                                        rt_conv__quantize_symmetric(buf, (size_t) s.k, q, &scales[ri]);
                                        offsets[ri] = 0;
                                }
                                if (buf != tmp)
                                        free(buf);
                        }
                        scales[ri] *= r->scale;
                }
        }
        for (size_t bi = 0; bi < s.batches; bi++) {
                size_t lo, ro;
                bmm_batch_offsets(&s, bi, &lo, &ro);
                const size_t oo = bi * (size_t) s.m * s.n;
                for (int32_t i = 0; i < s.m; i++)
                for (int32_t j = 0; j < s.n; j++) {
                        const size_t oi = oo + (size_t) i * s.n + j;
                        switch (d->kind) {
                        case RT_CONV_FLOAT: {
                                const float *a = (const float *) l->data + lo * lsz;
                                const float *bm = (const float *) r->data + ro * rsz;
                                float acc = 0.0f;
                                for (int32_t kk = 0; kk < s.k; kk++)
                                        acc += a[LIDX(i, kk)] * bm[RIDX(kk, j)];
                                ((float *) out->data)[oi] = acc;
                                break;
                        }
                        case RT_CONV_HYBRID: {
                                const size_t ri = lo * (size_t) s.m + (size_t) i;
                                const int8_t *q = xq + ri * (size_t) s.k;
                                const int8_t *bm = (const int8_t *) r->data + ro * rsz;
                                int32_t dot = 0, col_sum = 0;
                                for (int32_t kk = 0; kk < s.k; kk++) {
                                        dot += (int32_t) q[kk] * bm[RIDX(kk, j)];
                                        col_sum += bm[RIDX(kk, j)];
                                }
                                dot -= col_sum * offsets[ri];
                                ((float *) out->data)[oi] = (float) dot * scales[ri];
                                break;
                        }
                        case RT_CONV_INT8:
                        case RT_CONV_INT16: {
                                const size_t ab = lo * lsz, bb = ro * rsz;
                                const int32_t loff = -l->zero_point, roff = -r->zero_point;
                                int64_t acc = 0;
                                for (int32_t kk = 0; kk < s.k; kk++)
                                        acc += (int64_t) (rt_conv__load(l, ab + LIDX(i, kk)) + loff) *
                                               (rt_conv__load(r, bb + RIDX(kk, j)) + roff);
                                int32_t v;
                                if (d->kind == RT_CONV_INT16)
                                        v = ku_mul_by_qmul64(acc, d->out_multiplier, d->out_shift);
                                else  /* ruy, like the other int8 GEMM paths */
                                        v = rt_conv__mul_ruy((int32_t) acc, d->out_multiplier,
                                                             d->out_shift);
                                v += out->zero_point;
                                rt_conv__store(out, oi, KU_CLAMP(v, d->act_min, d->act_max));
                                break;
                        }
                        default:
                                break;
                        }
                }
        }
#undef LIDX
#undef RIDX
        return 0;
}

const rt_registration_t rt_kernel_batch_matmul = {
        .name = "BATCH_MATMUL",
        .op = RT_OP_BATCH_MATMUL,
        .params_size = sizeof(rt_batch_matmul_params_t),
        .parse = bmm_parse,
        .init = rt_conv__data_init,
        .free = rt_conv__data_free,
        .prepare = bmm_prepare,
        .invoke = bmm_invoke,
};
