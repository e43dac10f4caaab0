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
