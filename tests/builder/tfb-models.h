/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Small ready-made models several test suites share (tfb-models.c).
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* IEEE binary16 of f (round toward zero; exact for values that fit). */
uint16_t tfb_half(float f);

/*
 * out[1, rows] = FULLY_CONNECTED(in[1, cols], DEQUANTIZE(w[rows, cols]
 * float16), no bias): the float16-weights pattern of converted models. The
 * weight (r, c) is ((r * cols + c) * mul % mod - mod / 2) / div, exact in
 * float16. Returns the .tflite bytes (malloc'ed) or NULL.
 */
uint8_t *tfb_model_fp16_fc(int32_t rows, int32_t cols, int mul, int mod, float div, size_t *ret_size);
/* That weight, for checking outputs. */
float tfb_model_fp16_fc_weight(int32_t rows, int32_t cols, int mul, int mod, float div, int32_t r, int32_t c);

/* out[1, 4] = in[1, 4] * 2 + 1 (MUL by a constant, then ADD): the
 * smallest float model the daemon and client tests run. Returns the
 * .tflite bytes (malloc'ed) or NULL. */
uint8_t *tfb_model_affine(size_t *ret_size);

/*
 * A model with resource variables and CALL_ONCE: y[2] = acc += x[2], where
 * the variable "acc" (VAR_HANDLE / READ_VARIABLE / ASSIGN_VARIABLE) starts
 * at { 10, 20 }, assigned by the init subgraph (1) that CALL_ONCE runs on
 * the first invoke. Float32. Returns the .tflite bytes (malloc'ed) or NULL.
 */
uint8_t *tfb_model_counter(size_t *ret_size);

/*
 * random: y = x + RANDOM_UNIFORM([4]) + RANDOM_STANDARD_NORMAL([4]) on
 * float32[4], both keyed by fixed seeds (5, 7) and (11, 13): each invoke
 * draws the next values of the ops' Philox streams, so two interpreters
 * started alike give the same sequence of outputs.
 */
uint8_t *tfb_model_random(size_t *ret_size);

/*
 * A float UNIDIRECTIONAL_SEQUENCE_LSTM whose output and cell states are
 * variable tensors: in[1, 2, 3] (batch, time, input) -> out[1, 2, 4],
 * 4 cells, no peephole, projection or CIFG, tanh; fixed small weights.
 * Each invoke continues from the state the previous one left. Returns the
 * .tflite bytes (malloc'ed) or NULL.
 */
uint8_t *tfb_model_lstm(size_t *ret_size);

/*
 * String models (TensorFlow Lite's serialized string lists in and out).
 * gather_string: output[3] = GATHER(input[10] string, indices[3] int64),
 * like TensorFlow's gather_string test model. string_0d: output[1] =
 * RESHAPE(input, a 0-d string). counter_string: tfb_model_counter()'s
 * y[2] = acc += x[2] (stateful) beside g[2] = GATHER(s[4] string, idx[2]
 * int32); inputs x, s, idx, outputs y, g. Return the .tflite bytes
 * (malloc'ed) or NULL.
 */
uint8_t *tfb_model_gather_string(size_t *ret_size);
uint8_t *tfb_model_string_0d(size_t *ret_size);
uint8_t *tfb_model_counter_string(size_t *ret_size);
/* output[1, 1] = GATHER(input[1, 3] string, indices[1] int32, axis 1):
 * every first dimension 1, the shape dynamic batching takes. */
uint8_t *tfb_model_gather_string_rows(size_t *ret_size);
