/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The "conv" kernel family: CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED,
 * TRANSPOSE_CONV, AVERAGE_POOL_2D, MAX_POOL_2D, L2_POOL_2D, BATCH_MATMUL,
 * CONV_3D and CONV_3D_TRANSPOSE,
 * matching TensorFlow Lite 2.9's builtin kernels (integer paths bit for bit,
 * float paths up to summation order).
 *
 * Each registration's parse hook fills one of the params structs below from
 * the node's builtin options; tests may fill them directly and run the
 * registration through the single-node harness. The structs are plain data:
 * no pointers, nothing to free.
 *
 * Every hook returns 0 or a negative errno: -EINVAL for a model that is wrong
 * for the op (shapes, types, quantization), -ENOTSUP for a valid combination
 * TFLite has but we do not implement, -ENOMEM. A message is left with
 * rt_ctx_error() before any error return.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "kernel.h"

/* TFLite BuiltinOperator numbers of the family. */
#define RT_OP_AVERAGE_POOL_2D 1
#define RT_OP_CONV_2D 3
#define RT_OP_DEPTHWISE_CONV_2D 4
#define RT_OP_FULLY_CONNECTED 9
#define RT_OP_L2_POOL_2D 12
#define RT_OP_MAX_POOL_2D 17
#define RT_OP_TRANSPOSE_CONV 67
#define RT_OP_BATCH_MATMUL 126
#define RT_OP_CONV_3D 132
#define RT_OP_CONV_3D_TRANSPOSE 141

/* CONV_2D (Conv2DOptions). Strides and dilations must be >= 1. */
typedef struct rt_conv_params {
        rt_padding_t padding;
        int32_t stride_w;
        int32_t stride_h;
        int32_t dilation_w;
        int32_t dilation_h;
        rt_activation_t activation;
} rt_conv_params_t;

/* DEPTHWISE_CONV_2D (DepthwiseConv2DOptions). depth_multiplier is advisory:
 * like TFLite, the kernel derives it from output channels / input channels. */
typedef struct rt_depthwise_params {
        rt_padding_t padding;
        int32_t stride_w;
        int32_t stride_h;
        int32_t depth_multiplier;
        int32_t dilation_w;
        int32_t dilation_h;
        rt_activation_t activation;
} rt_depthwise_params_t;

/* FullyConnectedOptionsWeightsFormat. */
typedef enum rt_fc_weights_format {
        RT_FC_WEIGHTS_DEFAULT = 0,
        RT_FC_WEIGHTS_SHUFFLED4x16INT8 = 1,
} rt_fc_weights_format_t;

/* FULLY_CONNECTED (FullyConnectedOptions). */
typedef struct rt_fc_params {
        rt_activation_t activation;
        rt_fc_weights_format_t weights_format;
        bool keep_num_dims;
        bool asymmetric_quantize_inputs;  /* hybrid path only */
} rt_fc_params_t;

/* AVERAGE_POOL_2D, MAX_POOL_2D, L2_POOL_2D (Pool2DOptions). */
typedef struct rt_pool_params {
        rt_padding_t padding;
        int32_t stride_w;
        int32_t stride_h;
        int32_t filter_w;
        int32_t filter_h;
        rt_activation_t activation;
} rt_pool_params_t;

/* TRANSPOSE_CONV (TransposeConvOptions; activation is NONE in files whose
 * options predate the field). */
typedef struct rt_transpose_conv_params {
        rt_padding_t padding;
        int32_t stride_w;
        int32_t stride_h;
        rt_activation_t activation;
} rt_transpose_conv_params_t;

/* BATCH_MATMUL (BatchMatMulOptions). */
typedef struct rt_batch_matmul_params {
        bool adj_x;
        bool adj_y;
        bool asymmetric_quantize_inputs;  /* hybrid path only */
} rt_batch_matmul_params_t;

/* CONV_3D and CONV_3D_TRANSPOSE (both Conv3DOptions). Strides and
 * dilations must be >= 1. */
typedef struct rt_conv3d_params {
        rt_padding_t padding;
        int32_t stride_d;
        int32_t stride_w;
        int32_t stride_h;
        int32_t dilation_d;
        int32_t dilation_w;
        int32_t dilation_h;
        rt_activation_t activation;
} rt_conv3d_params_t;

/*
 * The registrations. Inputs and outputs follow TFLite:
 *   CONV_2D            input [N,H,W,C], filter [O,KH,KW,C], bias [O] (-1 = absent) -> [N,OH,OW,O]
 *   DEPTHWISE_CONV_2D  input [N,H,W,C], filter [1,KH,KW,C*M], bias [C*M] (optional)
 *   FULLY_CONNECTED    input [..., K], weights [U,K], bias [U] (optional)
 *   TRANSPOSE_CONV     output_shape int32[4], weights [O,KH,KW,C], input [N,H,W,C], bias [O] (optional)
 *   *_POOL_2D          input [N,H,W,C]
 *   BATCH_MATMUL       lhs [..., M, K], rhs [..., K, N] (batch dims broadcast)
 *   CONV_3D            input [N,D,H,W,C], filter [KD,KH,KW,C,O], bias [O] (optional)
 *                      -> [N,OD,OH,OW,O]; float32 only, as in TFLite
 *   CONV_3D_TRANSPOSE  output_shape int32[5], filter [KD,KH,KW,O,C], input
 *                      [N,D,H,W,C], bias [O] (optional); float32 only here
 * Types: float32; uint8 (per-tensor, zero points); int8 (per-tensor or
 * per-channel weights, int32 bias); int16 activations with int8 weights and
 * int64 bias; hybrid float activations with int8 weights (CONV_2D,
 * DEPTHWISE_CONV_2D, FULLY_CONNECTED, BATCH_MATMUL).
 */
extern const rt_registration_t rt_kernel_conv_2d;
extern const rt_registration_t rt_kernel_depthwise_conv_2d;
extern const rt_registration_t rt_kernel_fully_connected;
extern const rt_registration_t rt_kernel_transpose_conv;
extern const rt_registration_t rt_kernel_average_pool_2d;
extern const rt_registration_t rt_kernel_max_pool_2d;
extern const rt_registration_t rt_kernel_l2_pool_2d;
extern const rt_registration_t rt_kernel_batch_matmul;
extern const rt_registration_t rt_kernel_conv_3d;
extern const rt_registration_t rt_kernel_conv_3d_transpose;
