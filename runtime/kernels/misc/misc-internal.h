/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Shared pieces of the misc kernel family (not part of any public API):
 * node shape checks, index reads from int32/int64 tensors and the error
 * helpers every op in the family uses.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "kernel.h"
#include "kutil.h"
#include "misc/misc.h"

/*
 * Check that the node has between min_in and max_in inputs and exactly
 * n_out outputs, that inputs 0..min_in-1 and every output are present and,
 * when `need_params`, that node->params is set. 0 or -EINVAL with a message
 * naming `op`.
 */
int rt_misc__check_node(rt_context_t *ctx, const rt_node_t *node, const char *op, int32_t min_in,
                        int32_t max_in, int32_t n_out, bool need_params);

/* Fail with -ENOTSUP naming the op, the tensor's role and its type. */
int rt_misc__unsupported(rt_context_t *ctx, const char *op, const char *what, const rt_tensor_t *t);

/* Is `type` int32 or int64? */
static inline bool rt_misc_is_index_type(rt_type_t type) {
        return type == RT_TYPE_INT32 || type == RT_TYPE_INT64;
}

/* Element i of an int32 or int64 tensor as int64 (the caller has checked
 * the type and the count). */
static inline int64_t rt_misc_index(const rt_tensor_t *t, size_t i) {
        if (t->type == RT_TYPE_INT64) {
                int64_t v;
                memcpy(&v, (const uint8_t *) t->data + i * sizeof(v), sizeof(v));
                return v;
        }
        int32_t v;
        memcpy(&v, (const uint8_t *) t->data + i * sizeof(v), sizeof(v));
        return v;
}

/*
 * Read the single value of an int32 (or, when `allow_i64`, int64) tensor
 * that must hold exactly one element. 0, or -EINVAL with a message naming
 * `op` and `what` for a wrong type, count or missing data.
 */
int rt_misc__scalar_index(rt_context_t *ctx, const char *op, const char *what, const rt_tensor_t *t,
                          bool allow_i64, int64_t *ret);

/* The same for a float32 tensor holding exactly one element. */
int rt_misc__scalar_f32(rt_context_t *ctx, const char *op, const char *what, const rt_tensor_t *t,
                        float *ret);

/* Does the tensor have data for all its elements (count * element size)? */
static inline bool rt_misc_has_data(const rt_tensor_t *t) {
        size_t need = rt_tensor_count(t) * rt_type_size(t->type);
        return need == 0 || (t->data && t->bytes >= need);
}

/* Is the value known in prepare (a constant with data)? */
static inline bool rt_misc_known(const rt_tensor_t *t) {
        return rt_tensor_is_const(t) && rt_misc_has_data(t);
}

/* Give output `i` the shape of a scalar (rank 0). A dims pointer is
 * passed all the same: a context may copy zero dims from it. */
static inline int rt_misc_resize_scalar(rt_context_t *ctx, const rt_node_t *node, int32_t i) {
        static const int32_t none[1] = { 0 };
        return rt_ctx_resize(ctx, node, i, 0, none);
}

/* Mark output `i` of the node dynamic; 0 or the context's error. */
static inline int rt_misc_set_dynamic(rt_context_t *ctx, const rt_node_t *node, int32_t i) {
        return ctx->set_dynamic(ctx, node->outputs[i]);
}

/* ---- Philox4x32-10 (TensorFlow's PhiloxRandom), random.c ---- */

/* Generator state: a 128-bit counter and a 64-bit key. */
typedef struct rt_philox {
        uint32_t counter[4];
        uint32_t key[2];
} rt_philox_t;

/* Seed as TensorFlow's PhiloxRandom(seed_lo, seed_hi): key = seed_lo,
 * counter = { 0, 0, low and high word of seed_hi }. */
void rt_misc__philox_seed(rt_philox_t *g, uint64_t seed_lo, uint64_t seed_hi);

/* One Philox4x32-10 block of `counter` under `key` (no state change). */
void rt_misc__philox_block(const uint32_t counter[4], const uint32_t key[2], uint32_t ret[4]);

/* The next block (PhiloxRandom::operator()): ret = block(counter, key),
 * then the counter advances by one. */
void rt_misc__philox_next(rt_philox_t *g, uint32_t ret[4]);

/* Advance the counter by `count` blocks (PhiloxRandom::Skip). */
void rt_misc__philox_skip(rt_philox_t *g, uint64_t count);

/* TensorFlow's Uint32ToFloat: 23 random mantissa bits -> [0, 1). */
static inline float rt_misc_u32_to_float(uint32_t x) {
        uint32_t bits = (127u << 23) | (x & 0x7fffffu);
        float f;
        memcpy(&f, &bits, sizeof(f));
        return f - 1.0f;
}

/* TensorFlow's Uint64ToDouble: 52 mantissa bits (20 from x0) -> [0, 1). */
static inline double rt_misc_u64_to_double(uint32_t x0, uint32_t x1) {
        uint64_t bits = ((uint64_t) 1023 << 52) | ((uint64_t) (x0 & 0xfffffu) << 32) | x1;
        double d;
        memcpy(&d, &bits, sizeof(d));
        return d - 1.0;
}
