/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The "reduce" kernel family: reductions over axes, arg-min/max, cumulative
 * sums, softmax and the normalizations, matching TensorFlow Lite 2.9's
 * builtin kernels on x86-64.
 *
 *   MEAN (40)                      float32, int32, int64, uint8, int8, int16
 *   SUM (74)                       float32, int32, int64, uint8, int8, int16
 *   REDUCE_PROD (81)               float32, int32, int64, quantized int8/int16
 *   REDUCE_MAX (82), REDUCE_MIN (89) float32, int32, int64, uint8, int8, int16
 *   REDUCE_ANY (91), REDUCE_ALL (140) bool
 *   ARG_MAX (56), ARG_MIN (79)     float32, uint8, int8, int16, int32, int64,
 *                                  bool -> int32 / int64
 *   CUMSUM (128)                   float32, int32, int64
 *   SOFTMAX (25)                   float32; uint8 -> uint8/int16; int8 ->
 *                                  int8/int16; int16 -> int16
 *   LOG_SOFTMAX (50)               float32, uint8, int8
 *   L2_NORMALIZATION (11)          float32, uint8, int8
 *   LOCAL_RESPONSE_NORMALIZATION (13) float32
 *
 * Integer paths reproduce TFLite's arithmetic (its fixed-point multipliers,
 * its float-table softmax, its float requantization in quantized MEAN/SUM);
 * float paths compute in single precision in TFLite's accumulation order.
 *
 * Reducers take the axes from a second int32 input; negative axes count
 * from the end and repeated axes count once. When that input is a model
 * constant the output shape is set in prepare, otherwise the output is
 * marked dynamic and sized at the start of invoke.
 *
 * Each registration's parse hook fills one of the params structs below from
 * the node's builtin options (field ids are the schema's field order); tests
 * fill them directly. The structs are plain data with nothing to free.
 *
 * Every hook returns 0 or a negative errno: -EINVAL for a model that is wrong
 * for the op (types, shapes, quantization, an axis out of range), -ENOTSUP
 * for a combination TFLite has but this family lacks, -ENOMEM. A message is
 * left with rt_ctx_error() first.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "kernel.h"

/* TFLite BuiltinOperator numbers of the family. */
#define RT_OP_L2_NORMALIZATION 11
#define RT_OP_LOCAL_RESPONSE_NORMALIZATION 13
#define RT_OP_SOFTMAX 25
#define RT_OP_MEAN 40
#define RT_OP_LOG_SOFTMAX 50
#define RT_OP_ARG_MAX 56
#define RT_OP_SUM 74
#define RT_OP_ARG_MIN 79
#define RT_OP_REDUCE_PROD 81
#define RT_OP_REDUCE_MAX 82
#define RT_OP_REDUCE_MIN 89
#define RT_OP_REDUCE_ANY 91
#define RT_OP_CUMSUM 128
#define RT_OP_REDUCE_ALL 140

/* ReducerOptions (MEAN, SUM, REDUCE_*): keep_dims (field 0). */
typedef struct rt_reducer_params {
        bool keep_dims;
} rt_reducer_params_t;

/* SoftmaxOptions: beta (field 0). */
typedef struct rt_softmax_params {
        float beta;
} rt_softmax_params_t;

/* ArgMaxOptions / ArgMinOptions: output_type (field 0). The output tensor's
 * own type decides; an output_type of INT32 or INT64 that disagrees with it
 * is an error, any other value is ignored. */
typedef struct rt_arg_params {
        rt_type_t output_type;
} rt_arg_params_t;

/* CumsumOptions: exclusive (field 0), reverse (field 1). */
typedef struct rt_cumsum_params {
        bool exclusive;
        bool reverse;
} rt_cumsum_params_t;

/* L2NormOptions: fused_activation_function (field 0); TFLite accepts NONE
 * only. */
typedef struct rt_l2norm_params {
        rt_activation_t activation;
} rt_l2norm_params_t;

/* LocalResponseNormalizationOptions: radius (0), bias (1), alpha (2),
 * beta (3). */
typedef struct rt_lrn_params {
        int32_t radius;
        float bias;
        float alpha;
        float beta;
} rt_lrn_params_t;

/* Registrations (params struct in brackets; LOG_SOFTMAX has none). */
extern const rt_registration_t rt_kernel_mean;          /* rt_reducer_params_t */
extern const rt_registration_t rt_kernel_sum;           /* rt_reducer_params_t */
extern const rt_registration_t rt_kernel_reduce_prod;   /* rt_reducer_params_t */
extern const rt_registration_t rt_kernel_reduce_max;    /* rt_reducer_params_t */
extern const rt_registration_t rt_kernel_reduce_min;    /* rt_reducer_params_t */
extern const rt_registration_t rt_kernel_reduce_any;    /* rt_reducer_params_t */
extern const rt_registration_t rt_kernel_reduce_all;    /* rt_reducer_params_t */
extern const rt_registration_t rt_kernel_arg_max;       /* rt_arg_params_t */
extern const rt_registration_t rt_kernel_arg_min;       /* rt_arg_params_t */
extern const rt_registration_t rt_kernel_cumsum;        /* rt_cumsum_params_t */
extern const rt_registration_t rt_kernel_softmax;       /* rt_softmax_params_t */
extern const rt_registration_t rt_kernel_log_softmax;   /* none */
extern const rt_registration_t rt_kernel_l2_normalization;  /* rt_l2norm_params_t */
extern const rt_registration_t rt_kernel_local_response_normalization; /* rt_lrn_params_t */
