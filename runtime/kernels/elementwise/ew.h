/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Internal header of the elementwise kernel family: the params structs the
 * parse hooks fill (tests fill them directly), the per-node state built in
 * prepare, the shared broadcast walker, and every registration this family
 * exports.
 *
 * Arithmetic follows TensorFlow Lite 2.9's builtin kernels: integer paths use
 * its fixed-point helpers (kutil.h) so results match bit for bit; float paths
 * use the C library's math in single precision.
 *
 * Types (besides float32 everywhere):
 *   ADD/SUB      int32, int64; int8/uint8/int16 quantized (int16: general
 *                scales, or TFLite's power-of-two path with pot_scale_int16)
 *   MUL          int32, int64; int8/uint8/int16 quantized
 *   DIV          int32; uint8/int8 quantized (TFLite's reciprocal method)
 *   SQUARED_DIFFERENCE int32; int8/int16 quantized
 *   MAXIMUM/MINIMUM int8/uint8/int16/int32/int64 (stored values)
 *   POW, FLOOR_DIV int32; FLOOR_MOD int32/int64; ADD_N int32
 *   comparisons  int32/int64/int16/bool(EQUAL, NOT_EQUAL); int8/uint8
 *                rescaled like TFLite
 *   LOGICAL_*    bool; SELECT/SELECT_V2 any fixed-size type
 *   ABS int32, int8/int16 quantized; NEG int32/int64; SIGN int32;
 *   RSQRT int8 quantized
 *   RELU/RELU6 int8/uint8/int16; RELU_N1_TO_1/RELU_0_TO_1 int8/uint8
 *   LOGISTIC/TANH int8/uint8 (table), int16 (any input scale, lut16.h)
 *   ELU int8 (table); GELU int8/uint8 (table); HARD_SWISH int8/uint8;
 *   LEAKY_RELU int8/uint8/int16; PRELU int8/uint8
 *   QUANTIZE float->int8/uint8/int16 (per-tensor or per-channel), integer
 *   requantization int8/uint8/int16/int32 -> int8/uint8/int16 and
 *   int8/int16 -> int32; DEQUANTIZE int8/uint8/int16 (per-tensor or
 *   per-channel) and float16 -> float32
 *   CAST between bool/int8/uint8/int16/uint16/int32/uint32/int64/float32/
 *   float64 (float16 input); ZEROS_LIKE int32/int64
 * Anything else is refused in prepare with -ENOTSUP and a message.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel.h"
#include "kutil.h"

/* ---- params (node->params) ---- */

/* ADD, SUB, MUL, DIV: AddOptions/SubOptions/MulOptions/DivOptions. */
typedef struct ew_arith_params {
        rt_activation_t activation;
        /* ADD/SUB int16 only: try the power-of-two-scale path (TFLite's
         * pot_scale_int16; true in the schema, false when the options table
         * is missing altogether). */
        bool pot_scale_int16;
} ew_arith_params_t;

/* LEAKY_RELU: LeakyReluOptions. */
typedef struct ew_leaky_relu_params {
        float alpha;
} ew_leaky_relu_params_t;

/* GELU: GeluOptions. */
typedef struct ew_gelu_params {
        bool approximate;
} ew_gelu_params_t;

/* ---- per-node state (node->user_data, made by ew_data_init) ---- */

typedef struct ew_data {
        /* Binary quantized arithmetic (ADD/SUB/comparisons/...). */
        int32_t in1_offset, in2_offset, out_offset;
        int32_t in1_mul, in2_mul, out_mul;
        int in1_shift, in2_shift, out_shift;
        int left_shift;
        int32_t act_min, act_max;
        bool pot16;            /* ADD/SUB int16 power-of-two path */
        bool rescale;          /* unary ops: input and output scales differ */
        /* A second multiplier (LEAKY_RELU alpha, PRELU negative side). */
        int32_t mul2;
        int shift2;
        /* 8-bit lookup table indexed by (uint8_t) raw input. */
        uint8_t lut[256];
        bool has_lut;
} ew_data_t;

/* init/free hooks shared by every registration that keeps state. */
int ew_data_init(rt_context_t *ctx, rt_node_t *node, void **ret_data);
void ew_data_free(rt_context_t *ctx, void *data);

/* ---- broadcasting ---- */

#define EW_MAX_IN 3

/*
 * An N-d walk over an output shape where each input is broadcast to it
 * (TFLite's NumPy-style rules: align trailing dims, size-1 dims repeat).
 * The walker calls `row` once per innermost row with the element offsets of
 * the output and every input plus each input's innermost stride (0 when that
 * input is broadcast along the row).
 */
typedef struct ew_bcast {
        int32_t rank;
        int32_t dims[RT_MAX_RANK];
        int n_in;
        int64_t strides[EW_MAX_IN][RT_MAX_RANK];
} ew_bcast_t;

typedef void (*ew_row_fn)(void *arg, size_t out, const size_t *in, const int64_t *in_stride,
                          size_t n);

/* Set up a walk of `out` (already sized) over `n_in` inputs. */
void ew_bcast_init(ew_bcast_t *bc, const rt_tensor_t *out, const rt_tensor_t *const *in, int n_in);
void ew_bcast_run(const ew_bcast_t *bc, ew_row_fn row, void *arg);

/* Broadcast shape of a and b into out via rt_ctx_resize. -EINVAL (with a
 * message naming `op`) if the shapes do not broadcast. */
int ew_resize_bcast(rt_context_t *ctx, rt_node_t *node, const char *op, const rt_tensor_t *a,
                    const rt_tensor_t *b);
/* Output shape = input shape. */
int ew_resize_same(rt_context_t *ctx, rt_node_t *node, const rt_tensor_t *in);

/* Common checks: exact input/output counts and presence. -EINVAL with a
 * message otherwise. */
int ew_check_io(rt_context_t *ctx, const rt_node_t *node, const char *op, int32_t n_in,
                int32_t n_out);

/* -ENOTSUP with "OP: unsupported types IN -> OUT". */
int ew_unsupported(rt_context_t *ctx, const char *op, rt_type_t in, rt_type_t out);

/* TFLite CheckedLog2: is `x` a power of two (within 1e-3 in log2)? */
bool ew_checked_log2(float x, int *ret_log2);

/* TFLite QuantizeMultiplierSmallerThanOneExp (no check that m < 1). */
static inline void ew_qmul(double m, int32_t *ret_mul, int *ret_shift) {
        ku_quantize_multiplier(m, ret_mul, ret_shift);
}

/* 8-bit LUT as TFLite's PopulateLookupTable/LUTPopulate builds it: float
 * dequantize, transform, round half away from zero, clamp. */
void ew_lut_populate(ew_data_t *d, const rt_tensor_t *in, const rt_tensor_t *out,
                     float (*fn)(float, const void *), const void *fn_arg);
void ew_lut_apply(const ew_data_t *d, const rt_tensor_t *in, rt_tensor_t *out);

/* ---- registrations ---- */

/* binary.c */
extern const rt_registration_t rt_kernel_add;
extern const rt_registration_t rt_kernel_sub;
extern const rt_registration_t rt_kernel_mul;
extern const rt_registration_t rt_kernel_div;
extern const rt_registration_t rt_kernel_squared_difference;
extern const rt_registration_t rt_kernel_maximum;
extern const rt_registration_t rt_kernel_minimum;
extern const rt_registration_t rt_kernel_pow;
extern const rt_registration_t rt_kernel_floor_div;
extern const rt_registration_t rt_kernel_floor_mod;
extern const rt_registration_t rt_kernel_add_n;

/* compare.c */
extern const rt_registration_t rt_kernel_equal;
extern const rt_registration_t rt_kernel_not_equal;
extern const rt_registration_t rt_kernel_less;
extern const rt_registration_t rt_kernel_less_equal;
extern const rt_registration_t rt_kernel_greater;
extern const rt_registration_t rt_kernel_greater_equal;

/* logical.c */
extern const rt_registration_t rt_kernel_logical_and;
extern const rt_registration_t rt_kernel_logical_or;
extern const rt_registration_t rt_kernel_logical_not;

/* select.c */
extern const rt_registration_t rt_kernel_select;
extern const rt_registration_t rt_kernel_select_v2;

/* unary.c */
extern const rt_registration_t rt_kernel_abs;
extern const rt_registration_t rt_kernel_neg;
extern const rt_registration_t rt_kernel_ceil;
extern const rt_registration_t rt_kernel_floor;
extern const rt_registration_t rt_kernel_round;
extern const rt_registration_t rt_kernel_sqrt;
extern const rt_registration_t rt_kernel_rsqrt;
extern const rt_registration_t rt_kernel_square;
extern const rt_registration_t rt_kernel_exp;
extern const rt_registration_t rt_kernel_log;
extern const rt_registration_t rt_kernel_sin;
extern const rt_registration_t rt_kernel_cos;
extern const rt_registration_t rt_kernel_sign;

/* activations.c */
extern const rt_registration_t rt_kernel_tanh;
extern const rt_registration_t rt_kernel_logistic;
extern const rt_registration_t rt_kernel_relu;
extern const rt_registration_t rt_kernel_relu6;
extern const rt_registration_t rt_kernel_relu_n1_to_1;
extern const rt_registration_t rt_kernel_relu_0_to_1;
extern const rt_registration_t rt_kernel_elu;
extern const rt_registration_t rt_kernel_hard_swish;
extern const rt_registration_t rt_kernel_leaky_relu;
extern const rt_registration_t rt_kernel_prelu;
extern const rt_registration_t rt_kernel_gelu;

/* quantize.c */
extern const rt_registration_t rt_kernel_quantize;
extern const rt_registration_t rt_kernel_dequantize;

/* cast.c */
extern const rt_registration_t rt_kernel_cast;
extern const rt_registration_t rt_kernel_zeros_like;
/* TFLite has no ONES_LIKE builtin: this one is a custom op named "OnesLike"
 * that embedders may add to a resolver; it is not registered by default. */
extern const rt_registration_t rt_kernel_ones_like;

/* Builtin op codes (TFLite BuiltinOperator) used by this family. */
enum {
        EW_OP_ADD = 0,
        EW_OP_DEQUANTIZE = 6,
        EW_OP_FLOOR = 8,
        EW_OP_LOGISTIC = 14,
        EW_OP_MUL = 18,
        EW_OP_RELU = 19,
        EW_OP_RELU_N1_TO_1 = 20,
        EW_OP_RELU6 = 21,
        EW_OP_TANH = 28,
        EW_OP_SUB = 41,
        EW_OP_DIV = 42,
        EW_OP_EXP = 47,
        EW_OP_CAST = 53,
        EW_OP_PRELU = 54,
        EW_OP_MAXIMUM = 55,
        EW_OP_MINIMUM = 57,
        EW_OP_LESS = 58,
        EW_OP_NEG = 59,
        EW_OP_GREATER = 61,
        EW_OP_GREATER_EQUAL = 62,
        EW_OP_LESS_EQUAL = 63,
        EW_OP_SELECT = 64,
        EW_OP_SIN = 66,
        EW_OP_EQUAL = 71,
        EW_OP_NOT_EQUAL = 72,
        EW_OP_LOG = 73,
        EW_OP_SQRT = 75,
        EW_OP_RSQRT = 76,
        EW_OP_POW = 78,
        EW_OP_LOGICAL_OR = 84,
        EW_OP_LOGICAL_AND = 86,
        EW_OP_LOGICAL_NOT = 87,
        EW_OP_FLOOR_DIV = 90,
        EW_OP_SQUARE = 92,
        EW_OP_ZEROS_LIKE = 93,
        EW_OP_FLOOR_MOD = 95,
        EW_OP_LEAKY_RELU = 98,
        EW_OP_SQUARED_DIFFERENCE = 99,
        EW_OP_ABS = 101,
        EW_OP_CEIL = 104,
        EW_OP_ADD_N = 106,
        EW_OP_COS = 108,
        EW_OP_ELU = 111,
        EW_OP_QUANTIZE = 114,
        EW_OP_ROUND = 116,
        EW_OP_HARD_SWISH = 117,
        EW_OP_SELECT_V2 = 123,
        EW_OP_GELU = 150,
        EW_OP_RELU_0_TO_1 = 152,
        EW_OP_SIGN = 158,
};
