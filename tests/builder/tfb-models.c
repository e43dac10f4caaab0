/* SPDX-License-Identifier: Apache-2.0 */
/* Ready-made test models (tfb-models.h). */
#include <stdlib.h>
#include <string.h>

#include "tfb-models.h"
#include "tflite-builder.h"

uint16_t tfb_half(float f) {
        uint32_t x;
        memcpy(&x, &f, 4);
        uint32_t sign = (x >> 16) & 0x8000, exp = (x >> 23) & 0xff, man = x & 0x7fffff;
        if (exp == 0)
                return (uint16_t) sign;
        return (uint16_t) (sign | ((exp - 127 + 15) << 10) | (man >> 13));
}

float tfb_model_fp16_fc_weight(int32_t rows, int32_t cols, int mul, int mod, float div, int32_t r, int32_t c) {
        (void) rows;
        return (float) (((int) (r * cols + c) * mul) % mod - mod / 2) / div;
}

uint8_t *tfb_model_fp16_fc(int32_t rows, int32_t cols, int mul, int mod, float div, size_t *ret_size) {
        tfb_t *b = tfb_new();
        int32_t ish[2] = { 1, cols }, wsh[2] = { rows, cols }, osh[2] = { 1, rows };
        size_t n = (size_t) rows * (size_t) cols;
        uint16_t *wh = malloc(n * sizeof(*wh));
        if (!b || !wh) {
                tfb_free(b);
                free(wh);
                return NULL;
        }
        for (int32_t r = 0; r < rows; r++)
                for (int32_t c = 0; c < cols; c++)
                        wh[r * cols + c] = tfb_half(tfb_model_fp16_fc_weight(rows, cols, mul, mod, div, r, c));
        int32_t in = tfb_tensor(b, RT_TYPE_FLOAT32, "in", 2, ish);
        int32_t w16 = tfb_tensor_const(b, RT_TYPE_FLOAT16, "w16", 2, wsh, wh, n * sizeof(*wh));
        int32_t w = tfb_tensor(b, RT_TYPE_FLOAT32, "w", 2, wsh);
        int32_t out = tfb_tensor(b, RT_TYPE_FLOAT32, "out", 2, osh);
        free(wh);
        tfb_op_t dq = { .opcode = tfb_opcode_builtin(b, RT_BUILTIN_DEQUANTIZE, 1), .inputs = &w16, .n_inputs = 1,
                        .outputs = &w, .n_outputs = 1 };
        tfb_op_add(b, &dq);
        int32_t fins[3] = { in, w, -1 };
        tfb_option_t fopts[] = { TFB_OPT_I8(0, RT_ACT_NONE) };
        tfb_op_t fc = { .opcode = tfb_opcode_builtin(b, RT_BUILTIN_FULLY_CONNECTED, 1), .inputs = fins,
                        .n_inputs = 3, .outputs = &out, .n_outputs = 1, .options_type = RT_OPTIONS_FULLY_CONNECTED,
                        .options = fopts, .n_options = 1 };
        tfb_op_add(b, &fc);
        tfb_io(b, &in, 1, &out, 1);
        uint8_t *buf = tfb_finish(b, ret_size);
        tfb_free(b);
        return buf;
}

uint8_t *tfb_model_affine(size_t *ret_size) {
        tfb_t *b = tfb_new();
        if (!b)
                return NULL;
        const float two[4] = { 2, 2, 2, 2 }, one[4] = { 1, 1, 1, 1 };
        int32_t in = tfb_tensor(b, RT_TYPE_FLOAT32, "in", 2, TFB_DIMS(1, 4));
        int32_t c2 = tfb_tensor_const(b, RT_TYPE_FLOAT32, "two", 2, TFB_DIMS(1, 4), two, sizeof(two));
        int32_t c1 = tfb_tensor_const(b, RT_TYPE_FLOAT32, "one", 2, TFB_DIMS(1, 4), one, sizeof(one));
        int32_t mid = tfb_tensor(b, RT_TYPE_FLOAT32, "mid", 2, TFB_DIMS(1, 4));
        int32_t out = tfb_tensor(b, RT_TYPE_FLOAT32, "out", 2, TFB_DIMS(1, 4));
        tfb_op_add(b, &(tfb_op_t) { .opcode = tfb_opcode_builtin(b, RT_BUILTIN_MUL, 1), .inputs = TFB_IDS(in, c2),
                                    .n_inputs = 2, .outputs = TFB_IDS(mid), .n_outputs = 1 });
        tfb_op_add(b, &(tfb_op_t) { .opcode = tfb_opcode_builtin(b, RT_BUILTIN_ADD, 1), .inputs = TFB_IDS(mid, c1),
                                    .n_inputs = 2, .outputs = TFB_IDS(out), .n_outputs = 1 });
        tfb_io(b, TFB_IDS(in), 1, TFB_IDS(out), 1);
        uint8_t *bytes = tfb_finish(b, ret_size);
        tfb_free(b);
        return bytes;
}

static void op(tfb_t *b, int32_t code, uint8_t options_type, const tfb_option_t *opts, size_t n_opts,
               const int32_t *ins, int32_t n_in, const int32_t *outs, int32_t n_out) {
        tfb_op_add(b, &(tfb_op_t) { .opcode = tfb_opcode_builtin(b, code, 1), .inputs = ins, .n_inputs = n_in,
                                    .outputs = outs, .n_outputs = n_out, .options_type = options_type,
                                    .options = opts, .n_options = n_opts });
}

/* The counter's state, y = acc += x on float[2] (CALL_ONCE of subgraph 1,
 * VAR_HANDLE "acc", READ_VARIABLE, ADD, ASSIGN_VARIABLE), in the current
 * subgraph; returns y. */
static int32_t counter_ops(tfb_t *b, int32_t x) {
        static const tfb_option_t name[] = { TFB_OPT_STRING(0, "box"), TFB_OPT_STRING(1, "acc") };
        static const tfb_option_t init[] = { TFB_OPT_I32(0, 1) };
        int32_t h = tfb_tensor(b, RT_TYPE_RESOURCE, "h", 0, NULL);
        int32_t v = tfb_tensor(b, RT_TYPE_FLOAT32, "v", 1, TFB_DIMS(2));
        int32_t y = tfb_tensor(b, RT_TYPE_FLOAT32, "y", 1, TFB_DIMS(2));
        op(b, RT_BUILTIN_CALL_ONCE, RT_OPTIONS_CALL_ONCE, init, 1, NULL, 0, NULL, 0);
        op(b, RT_BUILTIN_VAR_HANDLE, RT_OPTIONS_VAR_HANDLE, name, 2, NULL, 0, TFB_IDS(h), 1);
        op(b, RT_BUILTIN_READ_VARIABLE, RT_OPTIONS_READ_VARIABLE, NULL, 0, TFB_IDS(h), 1, TFB_IDS(v), 1);
        op(b, RT_BUILTIN_ADD, RT_OPTIONS_ADD, NULL, 0, TFB_IDS(v, x), 2, TFB_IDS(y), 1);
        op(b, RT_BUILTIN_ASSIGN_VARIABLE, RT_OPTIONS_ASSIGN_VARIABLE, NULL, 0, TFB_IDS(h, y), 2, NULL, 0);
        return y;
}

/* The counter's init subgraph (1): acc = { 10, 20 }; selects subgraph 0 again. */
static void counter_init_subgraph(tfb_t *b) {
        static const tfb_option_t name[] = { TFB_OPT_STRING(0, "box"), TFB_OPT_STRING(1, "acc") };
        static const float start[2] = { 10, 20 };
        tfb_subgraph_add(b, "init");
        int32_t h = tfb_tensor(b, RT_TYPE_RESOURCE, "h", 0, NULL);
        int32_t c = tfb_tensor_const(b, RT_TYPE_FLOAT32, "start", 1, TFB_DIMS(2), start, sizeof(start));
        op(b, RT_BUILTIN_VAR_HANDLE, RT_OPTIONS_VAR_HANDLE, name, 2, NULL, 0, TFB_IDS(h), 1);
        op(b, RT_BUILTIN_ASSIGN_VARIABLE, RT_OPTIONS_ASSIGN_VARIABLE, NULL, 0, TFB_IDS(h, c), 2, NULL, 0);
        tfb_io(b, NULL, 0, NULL, 0);
        tfb_subgraph_select(b, 0);
}

uint8_t *tfb_model_counter(size_t *ret_size) {
        tfb_t *b = tfb_new();
        if (!b)
                return NULL;
        int32_t x = tfb_tensor(b, RT_TYPE_FLOAT32, "x", 1, TFB_DIMS(2));
        int32_t y = counter_ops(b, x);
        tfb_io(b, TFB_IDS(x), 1, TFB_IDS(y), 1);
        counter_init_subgraph(b);
        uint8_t *bytes = tfb_finish(b, ret_size);
        tfb_free(b);
        return bytes;
}

uint8_t *tfb_model_random(size_t *ret_size) {
        tfb_t *b = tfb_new();
        if (!b)
                return NULL;
        const int32_t four[1] = { 4 };
        const tfb_option_t su[] = { TFB_OPT_I64(0, 5), TFB_OPT_I64(1, 7) };
        const tfb_option_t sn[] = { TFB_OPT_I64(0, 11), TFB_OPT_I64(1, 13) };
        int32_t x = tfb_tensor(b, RT_TYPE_FLOAT32, "x", 1, TFB_DIMS(4));
        int32_t shape = tfb_tensor_const(b, RT_TYPE_INT32, "shape", 1, TFB_DIMS(1), four, sizeof(four));
        int32_t u = tfb_tensor(b, RT_TYPE_FLOAT32, "u", 1, TFB_DIMS(4));
        int32_t n = tfb_tensor(b, RT_TYPE_FLOAT32, "n", 1, TFB_DIMS(4));
        int32_t xu = tfb_tensor(b, RT_TYPE_FLOAT32, "xu", 1, TFB_DIMS(4));
        int32_t y = tfb_tensor(b, RT_TYPE_FLOAT32, "y", 1, TFB_DIMS(4));
        op(b, RT_BUILTIN_RANDOM_UNIFORM, RT_OPTIONS_RANDOM, su, 2, TFB_IDS(shape), 1, TFB_IDS(u), 1);
        op(b, RT_BUILTIN_RANDOM_STANDARD_NORMAL, RT_OPTIONS_RANDOM, sn, 2, TFB_IDS(shape), 1, TFB_IDS(n), 1);
        op(b, RT_BUILTIN_ADD, RT_OPTIONS_ADD, NULL, 0, TFB_IDS(x, u), 2, TFB_IDS(xu), 1);
        op(b, RT_BUILTIN_ADD, RT_OPTIONS_ADD, NULL, 0, TFB_IDS(xu, n), 2, TFB_IDS(y), 1);
        tfb_io(b, TFB_IDS(x), 1, TFB_IDS(y), 1);
        uint8_t *bytes = tfb_finish(b, ret_size);
        tfb_free(b);
        return bytes;
}

uint8_t *tfb_model_lstm(size_t *ret_size) {
        enum { T = 2, I = 3, C = 4 };
        tfb_t *b = tfb_new();
        if (!b)
                return NULL;
        int32_t in[24];
        for (int k = 0; k < 24; k++)
                in[k] = -1;
        float w[4][C * I], r[4][C * C], bias[4][C];
        for (int g = 0; g < 4; g++) {
                for (int k = 0; k < C * I; k++)
                        w[g][k] = (float) ((g * 7 + k * 5) % 11 - 5) / 8.0f;
                for (int k = 0; k < C * C; k++)
                        r[g][k] = (float) ((g * 3 + k * 7) % 13 - 6) / 10.0f;
                for (int k = 0; k < C; k++)
                        bias[g][k] = (float) (g == 1) + (float) (k - 2) / 16.0f;
        }
        in[0] = tfb_tensor(b, RT_TYPE_FLOAT32, "in", 3, TFB_DIMS(1, T, I));
        for (int g = 0; g < 4; g++) {
                in[1 + g] = tfb_tensor_const(b, RT_TYPE_FLOAT32, "w", 2, TFB_DIMS(C, I), w[g], sizeof(w[g]));
                in[5 + g] = tfb_tensor_const(b, RT_TYPE_FLOAT32, "r", 2, TFB_DIMS(C, C), r[g], sizeof(r[g]));
                in[12 + g] = tfb_tensor_const(b, RT_TYPE_FLOAT32, "b", 1, TFB_DIMS(C), bias[g], sizeof(bias[g]));
        }
        in[18] = tfb_tensor_add(b, &(tfb_tensor_t) { .type = RT_TYPE_FLOAT32, .rank = 2, .shape = TFB_DIMS(1, C),
                                                     .name = "output_state", .is_variable = true });
        in[19] = tfb_tensor_add(b, &(tfb_tensor_t) { .type = RT_TYPE_FLOAT32, .rank = 2, .shape = TFB_DIMS(1, C),
                                                     .name = "cell_state", .is_variable = true });
        int32_t out = tfb_tensor(b, RT_TYPE_FLOAT32, "out", 3, TFB_DIMS(1, T, C));
        const tfb_option_t o[] = { TFB_OPT_I8(0, 4 /* TANH */), TFB_OPT_F32(1, 0), TFB_OPT_F32(2, 0),
                                   TFB_OPT_BOOL(3, false) };
        op(b, RT_BUILTIN_UNIDIRECTIONAL_SEQUENCE_LSTM, RT_OPTIONS_UNIDIRECTIONAL_SEQUENCE_LSTM, o, 4, in, 24,
           TFB_IDS(out), 1);
        tfb_io(b, TFB_IDS(in[0]), 1, TFB_IDS(out), 1);
        uint8_t *bytes = tfb_finish(b, ret_size);
        tfb_free(b);
        return bytes;
}

/* GATHER(params, indices) on axis 0, for the string models below. */
static void gather(tfb_t *b, int32_t params, int32_t indices, int32_t out) {
        const tfb_option_t axis[] = { TFB_OPT_I32(0, 0) };

        op(b, RT_BUILTIN_GATHER, RT_OPTIONS_GATHER, axis, 1, TFB_IDS(params, indices), 2, TFB_IDS(out), 1);
}

uint8_t *tfb_model_gather_string(size_t *ret_size) {
        tfb_t *b = tfb_new();
        if (!b)
                return NULL;
        int32_t in = tfb_tensor(b, RT_TYPE_STRING, "input", 1, TFB_DIMS(10));
        int32_t idx = tfb_tensor(b, RT_TYPE_INT64, "indices", 1, TFB_DIMS(3));
        int32_t out = tfb_tensor(b, RT_TYPE_STRING, "output", 1, TFB_DIMS(3));
        gather(b, in, idx, out);
        tfb_io(b, TFB_IDS(in, idx), 2, TFB_IDS(out), 1);
        uint8_t *bytes = tfb_finish(b, ret_size);
        tfb_free(b);
        return bytes;
}

uint8_t *tfb_model_string_0d(size_t *ret_size) {
        tfb_t *b = tfb_new();
        if (!b)
                return NULL;
        const int32_t one[1] = { 1 };
        const tfb_option_t shape[] = { TFB_OPT_VEC_I32(0, one, 1) };
        int32_t in = tfb_tensor(b, RT_TYPE_STRING, "input", 0, NULL);
        int32_t s = tfb_tensor_const(b, RT_TYPE_INT32, "shape", 1, TFB_DIMS(1), one, sizeof(one));
        int32_t out = tfb_tensor(b, RT_TYPE_STRING, "output", 1, TFB_DIMS(1));
        op(b, RT_BUILTIN_RESHAPE, RT_OPTIONS_RESHAPE, shape, 1, TFB_IDS(in, s), 2, TFB_IDS(out), 1);
        tfb_io(b, TFB_IDS(in), 1, TFB_IDS(out), 1);
        uint8_t *bytes = tfb_finish(b, ret_size);
        tfb_free(b);
        return bytes;
}

uint8_t *tfb_model_counter_string(size_t *ret_size) {
        tfb_t *b = tfb_new();
        if (!b)
                return NULL;
        int32_t x = tfb_tensor(b, RT_TYPE_FLOAT32, "x", 1, TFB_DIMS(2));
        int32_t s = tfb_tensor(b, RT_TYPE_STRING, "s", 1, TFB_DIMS(4));
        int32_t idx = tfb_tensor(b, RT_TYPE_INT32, "idx", 1, TFB_DIMS(2));
        int32_t y = counter_ops(b, x);
        int32_t g = tfb_tensor(b, RT_TYPE_STRING, "g", 1, TFB_DIMS(2));
        gather(b, s, idx, g);
        tfb_io(b, TFB_IDS(x, s, idx), 3, TFB_IDS(y, g), 2);
        counter_init_subgraph(b);
        uint8_t *bytes = tfb_finish(b, ret_size);
        tfb_free(b);
        return bytes;
}

uint8_t *tfb_model_gather_string_rows(size_t *ret_size) {
        tfb_t *b = tfb_new();
        if (!b)
                return NULL;
        const tfb_option_t axis[] = { TFB_OPT_I32(0, 1) };
        int32_t in = tfb_tensor(b, RT_TYPE_STRING, "input", 2, TFB_DIMS(1, 3));
        int32_t idx = tfb_tensor(b, RT_TYPE_INT32, "indices", 1, TFB_DIMS(1));
        int32_t out = tfb_tensor(b, RT_TYPE_STRING, "output", 2, TFB_DIMS(1, 1));
        op(b, RT_BUILTIN_GATHER, RT_OPTIONS_GATHER, axis, 1, TFB_IDS(in, idx), 2, TFB_IDS(out), 1);
        tfb_io(b, TFB_IDS(in, idx), 2, TFB_IDS(out), 1);
        uint8_t *bytes = tfb_finish(b, ret_size);
        tfb_free(b);
        return bytes;
}
