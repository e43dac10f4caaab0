/* SPDX-License-Identifier: Apache-2.0 */
/* Seedable random numbers and random tensors for the inference profiler. */
#include <errno.h>
#include <stdbool.h>

#include "eval.h"

/* SplitMix64 (Steele, Lea and Flood's mixing of a Weyl sequence): tiny,
 * well distributed, and the same sequence for a seed on every machine,
 * which is all random test inputs need. */
void eval_rng_seed(eval_rng_t *r, uint64_t seed) {
        r->state = seed;
}

uint64_t eval_rng_next(eval_rng_t *r) {
        uint64_t z = (r->state += 0x9e3779b97f4a7c15ull);

        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
}

double eval_rng_uniform(eval_rng_t *r) {
        return (double) (eval_rng_next(r) >> 11) * 0x1.0p-53;
}

int eval_tensor_randomize(eval_tensor_t *t, eval_rng_t *rng) {
        size_t n = eval_tensor_count(t);

        switch (t->type) {
        case 0:  /* float32 */
                for (size_t i = 0; i < n; i++)
                        ((float *) t->data)[i] = (float) (eval_rng_uniform(rng) * 2.0 - 1.0);
                return 0;
        case 2:  /* int32 */
                for (size_t i = 0; i < n; i++)
                        ((int32_t *) t->data)[i] = (int32_t) (eval_rng_next(rng) % 1000);
                return 0;
        case 3:  /* uint8 */
                for (size_t i = 0; i < n; i++)
                        ((uint8_t *) t->data)[i] = (uint8_t) (eval_rng_next(rng) >> 56);
                return 0;
        case 4:  /* int64 */
                for (size_t i = 0; i < n; i++)
                        ((int64_t *) t->data)[i] = (int64_t) (eval_rng_next(rng) % 1000);
                return 0;
        case 6:  /* bool */
                for (size_t i = 0; i < n; i++)
                        ((bool *) t->data)[i] = eval_rng_next(rng) >> 63;
                return 0;
        case 7:  /* int16 */
                for (size_t i = 0; i < n; i++)
                        ((int16_t *) t->data)[i] = (int16_t) (uint16_t) (eval_rng_next(rng) >> 48);
                return 0;
        case 9:  /* int8 */
                for (size_t i = 0; i < n; i++)
                        ((int8_t *) t->data)[i] = (int8_t) (uint8_t) (eval_rng_next(rng) >> 56);
                return 0;
        default:
                return -ENOTSUP;
        }
}
