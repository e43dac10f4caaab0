/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The 'sequence' kernel family: stateful and special ops.
 *
 *   UNIDIRECTIONAL_SEQUENCE_LSTM (44)  float32, hybrid, int8 (8x8->16, int16 cell)
 *   LSTM (16, full kernel)             the same kernel on [batch, input]
 *   BIDIRECTIONAL_SEQUENCE_LSTM (52, with aux input)  float32, hybrid
 *   RNN (24), UNIDIRECTIONAL_SEQUENCE_RNN (35),
 *   BIDIRECTIONAL_SEQUENCE_RNN (46, with aux input)  float32, hybrid
 *   SVDF (27)                          float32, hybrid, int8 (int16 state)
 *   DENSIFY (124)                      float32, float16, int8 (and any 1/2/4/8-byte type)
 *   RFFT2D (131)                       float32 -> complex64
 *   COMPLEX_ABS (135), REAL (134), IMAG (133)  complex64 -> float32
 *   custom "TFLite_Detection_PostProcess"      float32 / uint8 inputs
 *
 * Every registration is exported so that tests can run it directly through
 * the single-node harness. The params structs below are what each op's
 * parse hook produces from the model's options; tests fill them by hand.
 *
 * Semantics follow TensorFlow Lite 2.9's builtin kernels; integer paths use
 * its fixed-point arithmetic (kutil.h) and gemmlowp's int16 fixed-point
 * tanh/logistic (fixed16.h) so results are bit-exact.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel.h"

#define RT_OP_LSTM 16
#define RT_OP_RNN 24
#define RT_OP_SVDF 27
#define RT_OP_UNIDIRECTIONAL_SEQUENCE_RNN 35
#define RT_OP_BIDIRECTIONAL_SEQUENCE_RNN 46
#define RT_OP_BIDIRECTIONAL_SEQUENCE_LSTM 52
#define RT_OP_UNIDIRECTIONAL_SEQUENCE_LSTM 44
#define RT_OP_DENSIFY 124
#define RT_OP_RFFT2D 131
#define RT_OP_IMAG 133
#define RT_OP_REAL 134
#define RT_OP_COMPLEX_ABS 135

#define RT_DETECTION_POSTPROCESS_NAME "TFLite_Detection_PostProcess"

/* SVDFOptions: rank (field 0), fused_activation_function (1),
 * asymmetric_quantize_inputs (2). */
typedef struct rt_svdf_params {
        int32_t rank;
        rt_activation_t activation;
        bool asymmetric_quantize_inputs;
} rt_svdf_params_t;

/* UnidirectionalSequenceLSTMOptions: fused_activation_function (0),
 * cell_clip (1), proj_clip (2), time_major (3),
 * asymmetric_quantize_inputs (4). A clip of 0 means no clipping.
 * LSTMOptions (op 16): fused_activation_function (0), cell_clip (1),
 * proj_clip (2), kernel_type (3: 0 FULL, 1 BASIC), asymmetric (4).
 * BidirectionalSequenceLSTMOptions (op 52): fused_activation_function (0),
 * cell_clip (1), proj_clip (2), merge_outputs (3), time_major (4, default
 * true), asymmetric (5). */
typedef struct rt_lstm_params {
        rt_activation_t activation;
        float cell_clip;
        float proj_clip;
        bool time_major;
        bool asymmetric_quantize_inputs;
        int32_t kernel_type;  /* LSTM (16) only; only FULL (0) is supported */
        bool merge_outputs;   /* BIDIRECTIONAL_SEQUENCE_LSTM (52) only */
} rt_lstm_params_t;

/* RNNOptions (op 24): fused_activation_function (0), asymmetric (1).
 * SequenceRNNOptions (op 35): time_major (0), fused_activation_function (1),
 * asymmetric (2). BidirectionalSequenceRNNOptions (op 46): time_major (0),
 * fused_activation_function (1), merge_outputs (2), asymmetric (3). */
typedef struct rt_rnn_params {
        rt_activation_t activation;
        bool time_major;
        bool asymmetric_quantize_inputs;
        bool merge_outputs;  /* op 46 only */
} rt_rnn_params_t;

/* The FlexBuffers map of TFLite_Detection_PostProcess. */
typedef struct rt_detection_params {
        int32_t max_detections;
        int32_t max_classes_per_detection;
        int32_t detections_per_class;   /* default 100 */
        bool use_regular_nms;           /* default false */
        float nms_score_threshold;
        float nms_iou_threshold;
        int32_t num_classes;
        float y_scale, x_scale, h_scale, w_scale;
} rt_detection_params_t;

/* LSTM input tensor positions (TFLite's lstm::full numbering). */
enum {
        RT_LSTM_INPUT = 0,
        RT_LSTM_INPUT_TO_INPUT_W = 1,
        RT_LSTM_INPUT_TO_FORGET_W = 2,
        RT_LSTM_INPUT_TO_CELL_W = 3,
        RT_LSTM_INPUT_TO_OUTPUT_W = 4,
        RT_LSTM_RECURRENT_TO_INPUT_W = 5,
        RT_LSTM_RECURRENT_TO_FORGET_W = 6,
        RT_LSTM_RECURRENT_TO_CELL_W = 7,
        RT_LSTM_RECURRENT_TO_OUTPUT_W = 8,
        RT_LSTM_CELL_TO_INPUT_W = 9,
        RT_LSTM_CELL_TO_FORGET_W = 10,
        RT_LSTM_CELL_TO_OUTPUT_W = 11,
        RT_LSTM_INPUT_GATE_BIAS = 12,
        RT_LSTM_FORGET_GATE_BIAS = 13,
        RT_LSTM_CELL_GATE_BIAS = 14,
        RT_LSTM_OUTPUT_GATE_BIAS = 15,
        RT_LSTM_PROJECTION_W = 16,
        RT_LSTM_PROJECTION_BIAS = 17,
        RT_LSTM_OUTPUT_STATE = 18,
        RT_LSTM_CELL_STATE = 19,
        RT_LSTM_INPUT_LAYER_NORM = 20,
        RT_LSTM_FORGET_LAYER_NORM = 21,
        RT_LSTM_CELL_LAYER_NORM = 22,
        RT_LSTM_OUTPUT_LAYER_NORM = 23,
        _RT_LSTM_INPUT_MAX = 24,
};

extern const rt_registration_t rt_kernel_svdf;
extern const rt_registration_t rt_kernel_unidirectional_sequence_lstm;
extern const rt_registration_t rt_kernel_lstm;
extern const rt_registration_t rt_kernel_bidirectional_sequence_lstm;
extern const rt_registration_t rt_kernel_rnn;
extern const rt_registration_t rt_kernel_unidirectional_sequence_rnn;
extern const rt_registration_t rt_kernel_bidirectional_sequence_rnn;
extern const rt_registration_t rt_kernel_densify;
extern const rt_registration_t rt_kernel_rfft2d;
extern const rt_registration_t rt_kernel_complex_abs;
extern const rt_registration_t rt_kernel_real;
extern const rt_registration_t rt_kernel_imag;
extern const rt_registration_t rt_kernel_detection_postprocess;

/*
 * A bounds-checked reader for a FlexBuffers map (the custom options of
 * TFLite_Detection_PostProcess). Never reads outside [buf, buf + size).
 *
 * seq_flexmap_get_*: look up `key` in the root map of `buf`. Return 0 and
 * write *ret when the key exists and holds a number or a bool (converted as
 * FlexBuffers' AsInt64/AsDouble do), -ENOENT when the key is absent or
 * null, -EINVAL when the buffer is not a well-formed map.
 */
int seq_flexmap_get_int(const uint8_t *buf, size_t size, const char *key, int64_t *ret);
int seq_flexmap_get_double(const uint8_t *buf, size_t size, const char *key, double *ret);
