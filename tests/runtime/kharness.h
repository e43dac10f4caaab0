/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A tiny single-node harness for kernel unit tests: build tensors by hand,
 * run one registration's prepare + invoke, read the outputs. It implements
 * rt_context_t with plain malloc; no model file or executor involved.
 *
 *   kh_t h; kh_init(&h);
 *   int a = kh_tensor(&h, RT_TYPE_FLOAT32, 2, (int32_t[]){1, 4}, data_a);
 *   int o = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);   // shape set by prepare
 *   MyParams p = {...};
 *   ck_assert_int_eq(kh_run(&h, &my_registration, &p, (int[]){a}, 1, (int[]){o}, 1), 0);
 *   const float *out = h.tensors[o].data;
 *   kh_done(&h);
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "kernel.h"

#define KH_MAX_TENSORS 64

typedef struct kh {
        rt_context_t ctx;
        rt_tensor_t tensors[KH_MAX_TENSORS];
        bool owned[KH_MAX_TENSORS];
        int32_t n;
        int32_t io[2][KH_MAX_TENSORS];
        rt_node_t node;
        void *scratch[8];
        size_t scratch_size[8];
        int32_t n_scratch;
        char error[512];
} kh_t;

void kh_init(kh_t *h);
void kh_done(kh_t *h);

/* Add a tensor; `data` (may be NULL) is copied when given. Returns its index. */
int32_t kh_tensor(kh_t *h, rt_type_t type, int32_t rank, const int32_t *dims, const void *data);
/* Same, marked constant (as a model weight would be). */
int32_t kh_const(kh_t *h, rt_type_t type, int32_t rank, const int32_t *dims, const void *data);
/* Per-tensor quantization; the scale/zero point storage lives in the harness. */
void kh_quant(kh_t *h, int32_t t, float scale, int32_t zero_point);
/* Per-channel quantization along axis (arrays are copied). */
void kh_quant_channels(kh_t *h, int32_t t, size_t n, const float *scales, const int64_t *zps,
                       int32_t axis);

/* Run reg->init (if any), prepare and invoke once with `params` as
 * node->params (may be NULL). Returns the first failing hook's result;
 * h->error holds the kernel's message. Input index -1 = absent optional. */
int kh_run(kh_t *h, const rt_registration_t *reg, void *params, const int32_t *inputs, int32_t n_in,
           const int32_t *outputs, int32_t n_out);
