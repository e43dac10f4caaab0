/* SPDX-License-Identifier: Apache-2.0 */
/*
 * BITCAST, BITWISE_XOR and RIGHT_SHIFT: TFLite bitcast.cc, bitwise_xor.cc
 * and right_shift.cc.
 *
 * BITCAST reinterprets the input's bytes as the output's type. Equal sizes
 * keep the shape; a larger input element adds a last dimension of
 * size_in / size_out; a smaller one needs a last dimension of
 * size_out / size_in and drops it.
 *
 * BITWISE_XOR and RIGHT_SHIFT take two integer inputs of one type (8, 16 or
 * 32 bits, signed or not) and broadcast them. RIGHT_SHIFT clamps the shift
 * amount to [0, bits - 1] and shifts signed values arithmetically.
 */
#include <string.h>

#include "misc-internal.h"

/* ---- BITCAST ---- */

#define BITCAST_OP "BITCAST"

static int bitcast_shape(rt_context_t *ctx, const rt_tensor_t *in, const rt_tensor_t *out, int32_t *ret_rank,
                         int32_t *ret_dims) {
        const size_t si = rt_type_size(in->type), so = rt_type_size(out->type);
        if (si == 0)
                return rt_misc__unsupported(ctx, BITCAST_OP, "input", in);
        if (so == 0)
                return rt_misc__unsupported(ctx, BITCAST_OP, "output", out);
        memcpy(ret_dims, in->dims, sizeof(int32_t) * (size_t) in->rank);
        if (si > so) {
                if (in->rank + 1 > RT_MAX_RANK)
                        return rt_ctx_error(ctx, BITCAST_OP ": output rank exceeds %d", RT_MAX_RANK);
                ret_dims[in->rank] = (int32_t) (si / so);
                *ret_rank = in->rank + 1;
        } else if (si < so) {
                if (in->rank < 1 || (size_t) in->dims[in->rank - 1] != so / si)
                        return rt_ctx_error(ctx, BITCAST_OP ": %s to %s needs a last dimension of %zu", rt_type_name(in->type),
                                            rt_type_name(out->type), so / si);
                *ret_rank = in->rank - 1;
        } else {
                *ret_rank = in->rank;
        }
        return 0;
}

static int bitcast_prepare(rt_context_t *ctx, rt_node_t *node) {
        int r = rt_misc__check_node(ctx, node, BITCAST_OP, 1, 1, 1, false);
        if (r < 0)
                return r;
        int32_t rank = 0, dims[RT_MAX_RANK];
        r = bitcast_shape(ctx, rt_node_input(ctx, node, 0), rt_node_output(ctx, node, 0), &rank, dims);
        if (r < 0)
                return r;
        return rt_ctx_resize(ctx, node, 0, rank, dims);
}

static int bitcast_invoke(rt_context_t *ctx, rt_node_t *node) {
        rt_tensor_t *in = rt_node_input(ctx, node, 0);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        if (!rt_misc_has_data(in))
                return rt_ctx_error(ctx, BITCAST_OP ": input has no data");
        const size_t n = rt_tensor_count(in) * rt_type_size(in->type);
        if (out->data != in->data)
                memmove(out->data, in->data, KU_MIN(n, rt_tensor_count(out) * rt_type_size(out->type)));
        return 0;
}

const rt_registration_t rt_kernel_bitcast = {
        .name = BITCAST_OP,
        .op = RT_OP_BITCAST,
        .prepare = bitcast_prepare,
        .invoke = bitcast_invoke,
};

/* ---- BITWISE_XOR / RIGHT_SHIFT ---- */

static const char *bin_name(const rt_node_t *node) {
        return node->op == RT_OP_RIGHT_SHIFT ? "RIGHT_SHIFT" : "BITWISE_XOR";
}

static bool int_type_ok(rt_type_t t) {
        switch (t) {
        case RT_TYPE_INT8:
        case RT_TYPE_UINT8:
        case RT_TYPE_INT16:
        case RT_TYPE_UINT16:
        case RT_TYPE_INT32:
        case RT_TYPE_UINT32:
                return true;
        default:
                return false;
        }
}

static int bin_prepare(rt_context_t *ctx, rt_node_t *node) {
        const char *op = bin_name(node);
        int r = rt_misc__check_node(ctx, node, op, 2, 2, 1, false);
        if (r < 0)
                return r;
        rt_tensor_t *a = rt_node_input(ctx, node, 0);
        rt_tensor_t *b = rt_node_input(ctx, node, 1);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        if (!int_type_ok(a->type))
                return rt_misc__unsupported(ctx, op, "input", a);
        if (b->type != a->type || out->type != a->type)
                return rt_ctx_error(ctx, "%s: inputs and output must share one type, got %s, %s and %s", op,
                                    rt_type_name(a->type), rt_type_name(b->type), rt_type_name(out->type));
        int32_t rank = 0, dims[RT_MAX_RANK];
        if (ku_bcast_shape(a, b, &rank, dims) < 0)
                return rt_ctx_error(ctx, "%s: input shapes do not broadcast", op);
        return rt_ctx_resize(ctx, node, 0, rank, dims);
}

#define BIN_LOOP(T, EXPR)                                                               \
        do {                                                                                \
                const T *xa = a->data, *xb = b->data;                                       \
                T *y = out->data;                                                           \
                for (size_t i = 0; i < n; i++) {                                            \
                        const T x = xa[oa], s = xb[ob];                                     \
                        y[i] = (T) (EXPR);                                                  \
                        for (int32_t d = rank - 1; d >= 0; d--) {                           \
                                oa += sa[d];                                                \
                                ob += sb[d];                                                \
                                if (++idx[d] < out->dims[d])                                \
                                        break;                                              \
                                oa -= sa[d] * out->dims[d];                                 \
                                ob -= sb[d] * out->dims[d];                                 \
                                idx[d] = 0;                                                 \
                        }                                                                   \
                }                                                                           \
        } while (0)

/* TFLite RightShift: the shift amount clamped to [0, bits - 1]. */
static inline int clamp_shift(int64_t s, int bits) {
        return s < 0 ? 0 : (s > bits - 1 ? bits - 1 : (int) s);
}

#define SHIFT(T) (x >> clamp_shift((int64_t) s, (int) sizeof(T) * 8))

static int bin_invoke(rt_context_t *ctx, rt_node_t *node) {
        rt_tensor_t *a = rt_node_input(ctx, node, 0);
        rt_tensor_t *b = rt_node_input(ctx, node, 1);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        if (!rt_misc_has_data(a) || !rt_misc_has_data(b))
                return rt_ctx_error(ctx, "%s: an input has no data", bin_name(node));
        const int32_t rank = out->rank;
        int64_t sa[RT_MAX_RANK], sb[RT_MAX_RANK];
        ku_bcast_strides(a, rank, sa);
        ku_bcast_strides(b, rank, sb);
        int32_t idx[RT_MAX_RANK] = { 0 };
        int64_t oa = 0, ob = 0;
        const size_t n = rt_tensor_count(out);
        const bool xor = node->op != RT_OP_RIGHT_SHIFT;
        switch (out->type) {
        case RT_TYPE_INT8:
                if (xor)
                        BIN_LOOP(int8_t, x ^ s);
                else
                        BIN_LOOP(int8_t, SHIFT(int8_t));
                break;
        case RT_TYPE_UINT8:
                if (xor)
                        BIN_LOOP(uint8_t, x ^ s);
                else
                        BIN_LOOP(uint8_t, SHIFT(uint8_t));
                break;
        case RT_TYPE_INT16:
                if (xor)
                        BIN_LOOP(int16_t, x ^ s);
                else
                        BIN_LOOP(int16_t, SHIFT(int16_t));
                break;
        case RT_TYPE_UINT16:
                if (xor)
                        BIN_LOOP(uint16_t, x ^ s);
                else
                        BIN_LOOP(uint16_t, SHIFT(uint16_t));
                break;
        case RT_TYPE_INT32:
                if (xor)
                        BIN_LOOP(int32_t, x ^ s);
                else
                        BIN_LOOP(int32_t, SHIFT(int32_t));
                break;
        default:
                if (xor)
                        BIN_LOOP(uint32_t, x ^ s);
                else
                        BIN_LOOP(uint32_t, SHIFT(uint32_t));
                break;
        }
        return 0;
}

const rt_registration_t rt_kernel_bitwise_xor = {
        .name = "BITWISE_XOR",
        .op = RT_OP_BITWISE_XOR,
        .prepare = bin_prepare,
        .invoke = bin_invoke,
};

const rt_registration_t rt_kernel_right_shift = {
        .name = "RIGHT_SHIFT",
        .op = RT_OP_RIGHT_SHIFT,
        .prepare = bin_prepare,
        .invoke = bin_invoke,
};
