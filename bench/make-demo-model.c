/* SPDX-License-Identifier: Apache-2.0 */
/*
 * make-demo-model: write the demo model `make run` serves, a MobileNet-v1
 * shaped float network built with the project's own tflite-builder:
 *
 *   input [1,224,224,3]
 *   CONV_2D 3x3/2 -> 16, RELU6
 *   4 x { DEPTHWISE_CONV_2D 3x3 (stride 1,2,2,2), RELU6; CONV_2D 1x1, RELU6 }
 *        16 -> 32 -> 64 -> 128 -> 256 channels, 112 -> 14 pixels
 *   AVERAGE_POOL_2D 14x14 -> [1,1,1,256]
 *   FULLY_CONNECTED 256 -> 1000, SOFTMAX -> [1,1000]
 *
 * Weights are deterministic pseudo-random (a fixed LCG seed, He-scaled), so
 * every build writes the same bytes and the same SHA-256.
 *
 *   make-demo-model OUT.tflite [INPUT.bin]
 *
 * INPUT.bin (optional) gets a deterministic input image in [-1, 1].
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tflite-builder.h"

static uint32_t rng_state = 20261122u;

/* Uniform in [-1, 1). */
static float rnd(void) {
        rng_state = rng_state * 1664525u + 1013904223u;
        return (float) ((rng_state >> 8) / 8388608.0 - 1.0);
}

static float *weights(size_t n, size_t fan_in) {
        float *w = malloc(n * sizeof(float));
        float scale = sqrtf(6.0f / (float) fan_in);

        if (!w)
                abort();
        for (size_t i = 0; i < n; i++)
                w[i] = rnd() * scale;
        return w;
}

static float *biases(size_t n) {
        float *b = malloc(n * sizeof(float));

        if (!b)
                abort();
        for (size_t i = 0; i < n; i++)
                b[i] = rnd() * 0.01f;
        return b;
}

/* Conv k x k, stride s, SAME, RELU6: [1,h,h,cin] -> [1,h/s,h/s,cout]. */
static int32_t conv(tfb_t *b, int32_t in, int32_t h, int32_t cin, int32_t cout, int32_t k, int32_t s, int n) {
        char name[64];
        int32_t ho = h / s;
        float *w = weights((size_t) cout * k * k * cin, (size_t) k * k * cin), *bi = biases((size_t) cout);
        int32_t wt, bt, out;
        tfb_option_t o[] = { TFB_OPT_I8(0, RT_PADDING_SAME), TFB_OPT_I32(1, s), TFB_OPT_I32(2, s),
                             TFB_OPT_I8(3, RT_ACT_RELU6) };

        (void) snprintf(name, sizeof(name), "conv%d/weights", n);
        wt = tfb_tensor_const(b, RT_TYPE_FLOAT32, name, 4, TFB_DIMS(cout, k, k, cin), w,
                              (size_t) cout * k * k * cin * sizeof(float));
        (void) snprintf(name, sizeof(name), "conv%d/bias", n);
        bt = tfb_tensor_const(b, RT_TYPE_FLOAT32, name, 1, TFB_DIMS(cout), bi, (size_t) cout * sizeof(float));
        (void) snprintf(name, sizeof(name), "conv%d/relu6", n);
        out = tfb_tensor(b, RT_TYPE_FLOAT32, name, 4, TFB_DIMS(1, ho, ho, cout));
        tfb_op_add(b, &(tfb_op_t) { .opcode = tfb_opcode_builtin(b, RT_BUILTIN_CONV_2D, 1),
                                    .inputs = TFB_IDS(in, wt, bt), .n_inputs = 3,
                                    .outputs = TFB_IDS(out), .n_outputs = 1,
                                    .options_type = RT_OPTIONS_CONV_2D, .options = o, .n_options = 4 });
        free(w);
        free(bi);
        return out;
}

/* Depthwise 3x3, stride s, SAME, RELU6. */
static int32_t dwconv(tfb_t *b, int32_t in, int32_t h, int32_t c, int32_t s, int n) {
        char name[64];
        int32_t ho = h / s;
        float *w = weights((size_t) 9 * c, 9), *bi = biases((size_t) c);
        int32_t wt, bt, out;
        tfb_option_t o[] = { TFB_OPT_I8(0, RT_PADDING_SAME), TFB_OPT_I32(1, s), TFB_OPT_I32(2, s), TFB_OPT_I32(3, 1),
                             TFB_OPT_I8(4, RT_ACT_RELU6) };

        (void) snprintf(name, sizeof(name), "dw%d/weights", n);
        wt = tfb_tensor_const(b, RT_TYPE_FLOAT32, name, 4, TFB_DIMS(1, 3, 3, c), w, (size_t) 9 * c * sizeof(float));
        (void) snprintf(name, sizeof(name), "dw%d/bias", n);
        bt = tfb_tensor_const(b, RT_TYPE_FLOAT32, name, 1, TFB_DIMS(c), bi, (size_t) c * sizeof(float));
        (void) snprintf(name, sizeof(name), "dw%d/relu6", n);
        out = tfb_tensor(b, RT_TYPE_FLOAT32, name, 4, TFB_DIMS(1, ho, ho, c));
        tfb_op_add(b, &(tfb_op_t) { .opcode = tfb_opcode_builtin(b, RT_BUILTIN_DEPTHWISE_CONV_2D, 1),
                                    .inputs = TFB_IDS(in, wt, bt), .n_inputs = 3,
                                    .outputs = TFB_IDS(out), .n_outputs = 1,
                                    .options_type = RT_OPTIONS_DEPTHWISE_CONV_2D, .options = o, .n_options = 5 });
        free(w);
        free(bi);
        return out;
}

int main(int argc, char **argv) {
        static const int32_t channels[] = { 16, 32, 64, 128, 256 }, strides[] = { 1, 2, 2, 2 };
        tfb_t *b;
        int32_t x, in, h = 112, pooled, logits, probs, wt, bt;
        uint8_t *bytes;
        size_t size;
        FILE *f;

        if (argc < 2 || argc > 3) {
                fprintf(stderr, "usage: %s OUT.tflite [INPUT.bin]\n", argv[0]);
                return 2;
        }
        b = tfb_new();
        if (!b || tfb_set_description(b, "acceld demo: MobileNet-shaped float classifier (synthetic weights)") < 0)
                return 1;
        in = tfb_tensor(b, RT_TYPE_FLOAT32, "input", 4, TFB_DIMS(1, 224, 224, 3));
        x = conv(b, in, 224, 3, channels[0], 3, 2, 0);
        for (int i = 0; i < 4; i++) {
                x = dwconv(b, x, h, channels[i], strides[i], i + 1);
                h /= strides[i];
                x = conv(b, x, h, channels[i], channels[i + 1], 1, 1, i + 1);
        }
        {
                tfb_option_t o[] = { TFB_OPT_I8(0, RT_PADDING_VALID), TFB_OPT_I32(1, 1), TFB_OPT_I32(2, 1),
                                     TFB_OPT_I32(3, h), TFB_OPT_I32(4, h), TFB_OPT_I8(5, RT_ACT_NONE) };

                pooled = tfb_tensor(b, RT_TYPE_FLOAT32, "avgpool", 4, TFB_DIMS(1, 1, 1, 256));
                tfb_op_add(b, &(tfb_op_t) { .opcode = tfb_opcode_builtin(b, RT_BUILTIN_AVERAGE_POOL_2D, 1),
                                            .inputs = TFB_IDS(x), .n_inputs = 1,
                                            .outputs = TFB_IDS(pooled), .n_outputs = 1,
                                            .options_type = RT_OPTIONS_POOL_2D, .options = o, .n_options = 6 });
        }
        {
                float *w = weights(1000 * 256, 256), *bi = biases(1000);
                tfb_option_t o[] = { TFB_OPT_I8(0, RT_ACT_NONE) };

                wt = tfb_tensor_const(b, RT_TYPE_FLOAT32, "fc/weights", 2, TFB_DIMS(1000, 256), w,
                                      1000 * 256 * sizeof(float));
                bt = tfb_tensor_const(b, RT_TYPE_FLOAT32, "fc/bias", 1, TFB_DIMS(1000), bi, 1000 * sizeof(float));
                logits = tfb_tensor(b, RT_TYPE_FLOAT32, "logits", 2, TFB_DIMS(1, 1000));
                tfb_op_add(b, &(tfb_op_t) { .opcode = tfb_opcode_builtin(b, RT_BUILTIN_FULLY_CONNECTED, 1),
                                            .inputs = TFB_IDS(pooled, wt, bt), .n_inputs = 3,
                                            .outputs = TFB_IDS(logits), .n_outputs = 1,
                                            .options_type = RT_OPTIONS_FULLY_CONNECTED, .options = o, .n_options = 1 });
                free(w);
                free(bi);
        }
        {
                tfb_option_t o[] = { TFB_OPT_F32(0, 1.0) };

                probs = tfb_tensor(b, RT_TYPE_FLOAT32, "probabilities", 2, TFB_DIMS(1, 1000));
                tfb_op_add(b, &(tfb_op_t) { .opcode = tfb_opcode_builtin(b, RT_BUILTIN_SOFTMAX, 1),
                                            .inputs = TFB_IDS(logits), .n_inputs = 1,
                                            .outputs = TFB_IDS(probs), .n_outputs = 1,
                                            .options_type = RT_OPTIONS_SOFTMAX, .options = o, .n_options = 1 });
        }
        tfb_io(b, TFB_IDS(in), 1, TFB_IDS(probs), 1);
        bytes = tfb_finish(b, &size);
        tfb_free(b);
        if (!bytes) {
                fprintf(stderr, "make-demo-model: out of memory\n");
                return 1;
        }
        f = fopen(argv[1], "wb");
        if (!f || fwrite(bytes, 1, size, f) != size || fclose(f) != 0) {
                fprintf(stderr, "make-demo-model: cannot write %s: %s\n", argv[1], strerror(errno));
                return 1;
        }
        free(bytes);
        if (argc == 3) {
                size_t n = 224 * 224 * 3;
                float *img = malloc(n * sizeof(float));

                if (!img)
                        return 1;
                for (size_t i = 0; i < n; i++)
                        img[i] = rnd();
                f = fopen(argv[2], "wb");
                if (!f || fwrite(img, sizeof(float), n, f) != n || fclose(f) != 0) {
                        fprintf(stderr, "make-demo-model: cannot write %s: %s\n", argv[2], strerror(errno));
                        return 1;
                }
                free(img);
        }
        return 0;
}
