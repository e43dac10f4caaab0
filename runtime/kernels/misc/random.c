/* SPDX-License-Identifier: Apache-2.0 */
/*
 * RANDOM_UNIFORM, RANDOM_STANDARD_NORMAL and MULTINOMIAL: TFLite
 * random_ops.cc on TensorFlow's Philox4x32-10 generator (philox_random.h,
 * random_distributions.h).
 *
 * RANDOM_UNIFORM / RANDOM_STANDARD_NORMAL: input shape (1-D int32), output
 * float32 of that shape. Uniform takes one generator word per element
 * (Uint32ToFloat); normal takes one block of four words per four elements,
 * pairs turned into two values by the Box-Muller transform (BoxMullerFloat).
 * A block's unused words are dropped at the end of the output.
 *
 * MULTINOMIAL: logits [batch, classes] (float32) and num_samples (int32
 * scalar); output int32/int64 [batch, num_samples] of class indices drawn
 * from softmax(logits). Each invoke works on a copy of the generator and
 * skips the real one ahead by batch * round_up(num_samples, 4) * 512
 * blocks; samples use two words each (Uint64ToDouble) against the
 * cumulative sum (in double) of exp(logit - max) over finite logits.
 *
 * The generator is seeded in prepare from RandomOptions: (seed, seed2),
 * or fresh random seeds when both are 0; its position is per running state
 * (generator() below).
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "cleanup.h"
#include "misc-internal.h"

/* ---- Philox4x32-10 ---- */

#define PHILOX_W32A 0x9E3779B9u
#define PHILOX_W32B 0xBB67AE85u
#define PHILOX_M4x32A 0xD2511F53u
#define PHILOX_M4x32B 0xCD9E8D57u

void rt_misc__philox_seed(rt_philox_t *g, uint64_t seed_lo, uint64_t seed_hi) {
        g->key[0] = (uint32_t) seed_lo;
        g->key[1] = (uint32_t) (seed_lo >> 32);
        g->counter[0] = 0;
        g->counter[1] = 0;
        g->counter[2] = (uint32_t) seed_hi;
        g->counter[3] = (uint32_t) (seed_hi >> 32);
}

void rt_misc__philox_block(const uint32_t counter[4], const uint32_t key[2], uint32_t ret[4]) {
        uint32_t c[4] = { counter[0], counter[1], counter[2], counter[3] };
        uint32_t k0 = key[0], k1 = key[1];
        for (int round = 0; round < 10; round++) {
                const uint64_t p0 = (uint64_t) PHILOX_M4x32A * c[0];
                const uint64_t p1 = (uint64_t) PHILOX_M4x32B * c[2];
                const uint32_t hi0 = (uint32_t) (p0 >> 32), lo0 = (uint32_t) p0;
                const uint32_t hi1 = (uint32_t) (p1 >> 32), lo1 = (uint32_t) p1;
                const uint32_t n0 = hi1 ^ c[1] ^ k0;
                const uint32_t n2 = hi0 ^ c[3] ^ k1;
                c[0] = n0;
                c[1] = lo1;
                c[2] = n2;
                c[3] = lo0;
                k0 += PHILOX_W32A;
                k1 += PHILOX_W32B;
        }
        memcpy(ret, c, sizeof(c));
}

void rt_misc__philox_skip(rt_philox_t *g, uint64_t count) {
        const uint32_t lo = (uint32_t) count;
        uint32_t hi = (uint32_t) (count >> 32);
        g->counter[0] += lo;
        if (g->counter[0] < lo)
                hi++;
        g->counter[1] += hi;
        if (g->counter[1] < hi && ++g->counter[2] == 0)
                g->counter[3]++;
}

void rt_misc__philox_next(rt_philox_t *g, uint32_t ret[4]) {
        rt_misc__philox_block(g->counter, g->key, ret);
        /* SkipOne: a 128-bit increment. */
        if (++g->counter[0] == 0 && ++g->counter[1] == 0 && ++g->counter[2] == 0)
                g->counter[3]++;
}

/* TensorFlow's BoxMullerFloat. */
static void box_muller(uint32_t x0, uint32_t x1, float *ret0, float *ret1) {
        const float epsilon = 1.0e-7f;
        float u1 = rt_misc_u32_to_float(x0);
        if (u1 < epsilon)
                u1 = epsilon;
        const float v1 = (float) (2.0 * M_PI * (double) rt_misc_u32_to_float(x1));
        const float u2 = sqrtf(-2.0f * logf(u1));
        float s, c;
        sincosf(v1, &s, &c);
        *ret0 = s * u2;
        *ret1 = c * u2;
}

/* ---- shared hooks ---- */

static const char *op_name(const rt_node_t *node) {
        switch (node->op) {
        case RT_OP_RANDOM_UNIFORM: return "RANDOM_UNIFORM";
        case RT_OP_RANDOM_STANDARD_NORMAL: return "RANDOM_STANDARD_NORMAL";
        default: return "MULTINOMIAL";
        }
}

static int random_parse(const rt_node_t *node, void *ret_params, rt_context_t *ctx) {
        rt_random_params_t *p = ret_params;
        (void) ctx;
        /* TFLite 2.9 keeps the seeds in the int fields of TfLiteRandomParams:
         * the file's 64-bit values are cut to their low 32 bits and
         * sign-extended again when they key the generator. */
        p->seed = (int32_t) (uint32_t) fbt_i64(node->options, 0, 0);
        p->seed2 = (int32_t) (uint32_t) fbt_i64(node->options, 1, 0);
        return 0;
}

static int random_init(rt_context_t *ctx, rt_node_t *node, void **ret_data) {
        (void) ctx;
        (void) node;
        rt_philox_t *g = calloc(1, sizeof(*g));
        if (!g)
                return -ENOMEM;
        *ret_data = g;
        return 0;
}

static void random_free(rt_context_t *ctx, void *data) {
        (void) ctx;
        free(data);
}

/* TFLite InitializeOpData: the node's seeds, or fresh ones when both are 0. */
static void seed_philox(const rt_node_t *node, rt_philox_t *g) {
        const rt_random_params_t *p = node->params;
        uint64_t seed = (uint64_t) p->seed, seed2 = (uint64_t) p->seed2;
        if (seed == 0 && seed2 == 0) {
                uint64_t s[2];
                if (getrandom(s, sizeof(s), 0) != (ssize_t) sizeof(s)) {
                        struct timespec ts;
                        (void) clock_gettime(CLOCK_MONOTONIC, &ts);
                        s[0] = (uint64_t) ts.tv_nsec * 0x9E3779B97F4A7C15ull ^ (uint64_t) (uintptr_t) g;
                        s[1] = (uint64_t) ts.tv_sec ^ 0xBB67AE8584CAA73Bull;
                }
                seed = s[0];
                seed2 = s[1];
        }
        rt_misc__philox_seed(g, seed, seed2);
}

/*
 * The generator's position is state, like a variable tensor's value: it
 * lives in the running state's objects (rt_ctx_resource_object(), keyed by
 * the node's output tensor), so every client of a shared interpreter draws
 * its own stream (rt_interp_state_swap() brings its generators along), as
 * from a private interpreter. A state that has not run the node yet gets a
 * generator seeded as prepare seeds one. Contexts without objects use the
 * node's own (node->user_data).
 */
typedef struct random_gen {
        bool seeded;
        rt_philox_t g;
} random_gen_t;

/* The running state's generator of `node`, made (unseeded) on first use;
 * NULL in a context without objects. */
static random_gen_t *state_gen(rt_context_t *ctx, const rt_node_t *node) {
        return rt_ctx_resource_object(ctx, "philox", node->outputs[0], sizeof(random_gen_t), NULL);
}

static rt_philox_t *generator(rt_context_t *ctx, rt_node_t *node) {
        random_gen_t *r = state_gen(ctx, node);
        if (!r)
                return node->user_data;
        if (!r->seeded) {
                seed_philox(node, &r->g);
                r->seeded = true;
        }
        return &r->g;
}

/* Prepare (re)seeds, as TFLite's Prepare does: the node's own generator and
 * the running state's. */
static void seed_generator(rt_context_t *ctx, rt_node_t *node) {
        seed_philox(node, node->user_data);
        random_gen_t *r = state_gen(ctx, node);
        if (r) {
                r->g = *(const rt_philox_t *) node->user_data;
                r->seeded = true;
        }
}

static int check_common(rt_context_t *ctx, rt_node_t *node, int32_t n_in) {
        int r = rt_misc__check_node(ctx, node, op_name(node), n_in, n_in, 1, true);
        if (r < 0)
                return r;
        if (!node->user_data)
                return rt_ctx_error(ctx, "%s: generator state missing (init not run)", op_name(node));
        return 0;
}

/* ---- RANDOM_UNIFORM / RANDOM_STANDARD_NORMAL ---- */

static int read_shape(rt_context_t *ctx, const char *op, const rt_tensor_t *shape, int32_t *ret_rank,
                      int32_t *ret_dims) {
        size_t n = rt_tensor_count(shape);
        if (n > RT_MAX_RANK)
                return rt_ctx_error(ctx, "%s: shape has %zu dimensions, at most %d supported", op, n, RT_MAX_RANK);
        if (!rt_misc_has_data(shape))
                return rt_ctx_error(ctx, "%s: shape has no data", op);
        for (size_t i = 0; i < n; i++) {
                int64_t d = rt_misc_index(shape, i);
                if (d < 0)
                        return rt_ctx_error(ctx, "%s: shape[%zu] = %lld is negative", op, i, (long long) d);
                ret_dims[i] = (int32_t) d;
        }
        *ret_rank = (int32_t) n;
        return 0;
}

static int random_prepare(rt_context_t *ctx, rt_node_t *node) {
        int r = check_common(ctx, node, 1);
        if (r < 0)
                return r;
        const char *op = op_name(node);
        rt_tensor_t *shape = rt_node_input(ctx, node, 0);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        if (shape->type != RT_TYPE_INT32)
                return rt_ctx_error(ctx, "%s: shape must be int32, got %s", op, rt_type_name(shape->type));
        if (shape->rank != 1)
                return rt_ctx_error(ctx, "%s: shape must be 1-D, got rank %d", op, shape->rank);
        if (out->type != RT_TYPE_FLOAT32)
                return rt_misc__unsupported(ctx, op, "output", out);
        seed_generator(ctx, node);
        if (!rt_misc_known(shape))
                return rt_misc_set_dynamic(ctx, node, 0);
        int32_t rank, dims[RT_MAX_RANK];
        r = read_shape(ctx, op, shape, &rank, dims);
        if (r < 0)
                return r;
        return rt_ctx_resize(ctx, node, 0, rank, dims);
}

static int random_invoke(rt_context_t *ctx, rt_node_t *node) {
        rt_tensor_t *shape = rt_node_input(ctx, node, 0);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        if (!rt_tensor_is_const(shape)) {
                int32_t rank, dims[RT_MAX_RANK];
                int r = read_shape(ctx, op_name(node), shape, &rank, dims);
                if (r < 0)
                        return r;
                r = rt_ctx_resize(ctx, node, 0, rank, dims);
                if (r < 0)
                        return r;
        }
        rt_philox_t *g = generator(ctx, node);
        const bool normal = node->op == RT_OP_RANDOM_STANDARD_NORMAL;
        const size_t n = rt_tensor_count(out);
        float *y = out->data;
        for (size_t done = 0; done < n;) {
                uint32_t w[4];
                float v[4];
                rt_misc__philox_next(g, w);
                if (normal) {
                        box_muller(w[0], w[1], &v[0], &v[1]);
                        box_muller(w[2], w[3], &v[2], &v[3]);
                } else {
                        for (int i = 0; i < 4; i++)
                                v[i] = rt_misc_u32_to_float(w[i]);
                }
                const size_t take = KU_MIN((size_t) 4, n - done);
                memcpy(y + done, v, take * sizeof(float));
                done += take;
        }
        return 0;
}

const rt_registration_t rt_kernel_random_uniform = {
        .name = "RANDOM_UNIFORM",
        .op = RT_OP_RANDOM_UNIFORM,
        .params_size = sizeof(rt_random_params_t),
        .parse = random_parse,
        .init = random_init,
        .free = random_free,
        .prepare = random_prepare,
        .invoke = random_invoke,
};

const rt_registration_t rt_kernel_random_standard_normal = {
        .name = "RANDOM_STANDARD_NORMAL",
        .op = RT_OP_RANDOM_STANDARD_NORMAL,
        .params_size = sizeof(rt_random_params_t),
        .parse = random_parse,
        .init = random_init,
        .free = random_free,
        .prepare = random_prepare,
        .invoke = random_invoke,
};

/* ---- MULTINOMIAL ---- */

#define MN_OP "MULTINOMIAL"

static int multinomial_prepare(rt_context_t *ctx, rt_node_t *node) {
        int r = check_common(ctx, node, 2);
        if (r < 0)
                return r;
        rt_tensor_t *logits = rt_node_input(ctx, node, 0);
        rt_tensor_t *num = rt_node_input(ctx, node, 1);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        if (logits->type != RT_TYPE_FLOAT32)
                return rt_misc__unsupported(ctx, MN_OP, "logits", logits);
        if (logits->rank != 2)
                return rt_ctx_error(ctx, MN_OP ": logits must be [batch, classes], got rank %d", logits->rank);
        if (num->type != RT_TYPE_INT32 || num->rank != 0)
                return rt_ctx_error(ctx, MN_OP ": num_samples must be an int32 scalar");
        if (out->type != RT_TYPE_INT32 && out->type != RT_TYPE_INT64)
                return rt_misc__unsupported(ctx, MN_OP, "output", out);
        seed_generator(ctx, node);
        if (!rt_misc_known(num))
                return rt_misc_set_dynamic(ctx, node, 0);
        int64_t n = 0;
        r = rt_misc__scalar_index(ctx, MN_OP, "num_samples", num, false, &n);
        if (r < 0)
                return r;
        if (n < 0)
                return rt_ctx_error(ctx, MN_OP ": num_samples %lld must be >= 0", (long long) n);
        const int32_t dims[2] = { logits->dims[0], (int32_t) n };
        return rt_ctx_resize(ctx, node, 0, 2, dims);
}

static int multinomial_invoke(rt_context_t *ctx, rt_node_t *node) {
        rt_tensor_t *logits = rt_node_input(ctx, node, 0);
        rt_tensor_t *num = rt_node_input(ctx, node, 1);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        int64_t n = 0;
        int r = rt_misc__scalar_index(ctx, MN_OP, "num_samples", num, false, &n);
        if (r < 0)
                return r;
        if (n < 0)
                return rt_ctx_error(ctx, MN_OP ": num_samples %lld must be >= 0", (long long) n);
        const int32_t batch = logits->dims[0], classes = logits->dims[1];
        if (classes <= 0)
                return rt_ctx_error(ctx, MN_OP ": logits need at least one class");
        if (!rt_misc_has_data(logits))
                return rt_ctx_error(ctx, MN_OP ": logits have no data");
        if (!rt_tensor_is_const(num)) {
                const int32_t dims[2] = { batch, (int32_t) n };
                r = rt_ctx_resize(ctx, node, 0, 2, dims);
                if (r < 0)
                        return r;
        }
        _cleanup_free_ double *cdf = malloc(sizeof(double) * (size_t) classes);
        if (!cdf)
                return -ENOMEM;
        rt_philox_t *g = generator(ctx, node);
        rt_philox_t copy = *g;
        rt_misc__philox_skip(g, (uint64_t) batch * (uint64_t) ((n + 3) / 4 * 4) * 2 * 256);
        uint32_t words[4];
        int used = 4;
        for (int32_t b = 0; b < batch; b++) {
                const float *row = (const float *) logits->data + (size_t) b * (size_t) classes;
                float max = -FLT_MAX;  /* std::numeric_limits<float>::lowest() */
                for (int32_t i = 0; i < classes; i++)
                        if (isfinite(row[i]))
                                max = fmaxf(max, row[i]);
                const double max_logit = (double) max;
                double total = 0.0;
                for (int32_t i = 0; i < classes; i++) {
                        if (isfinite(row[i]))
                                total += exp((double) row[i] - max_logit);
                        cdf[i] = total;
                }
                for (int64_t j = 0; j < n; j++) {
                        if (used == 4) {
                                rt_misc__philox_next(&copy, words);
                                used = 0;
                        }
                        const double find = rt_misc_u64_to_double(words[used], words[used + 1]) * total;
                        used += 2;
                        /* std::upper_bound: first cdf entry greater than find. */
                        int32_t lo = 0, len = classes;
                        while (len > 0) {
                                int32_t half = len / 2;
                                if (!(find < cdf[lo + half])) {
                                        lo += half + 1;
                                        len -= half + 1;
                                } else {
                                        len = half;
                                }
                        }
                        const size_t k = (size_t) b * (size_t) n + (size_t) j;
                        if (out->type == RT_TYPE_INT64)
                                ((int64_t *) out->data)[k] = lo;
                        else
                                ((int32_t *) out->data)[k] = lo;
                }
        }
        return 0;
}

const rt_registration_t rt_kernel_multinomial = {
        .name = MN_OP,
        .op = RT_OP_MULTINOMIAL,
        .params_size = sizeof(rt_random_params_t),
        .parse = random_parse,
        .init = random_init,
        .free = random_free,
        .prepare = multinomial_prepare,
        .invoke = multinomial_invoke,
};
