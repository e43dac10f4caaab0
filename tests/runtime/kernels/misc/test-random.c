/* SPDX-License-Identifier: Apache-2.0 */
#include "misc-internal.h"
#include "misc-test.h"

/* Random123's known-answer vectors for Philox4x32-10 (TensorFlow tests its
 * PhiloxRandom against the same three). */
START_TEST(test_random_philox_known_answers) {
        const struct {
                uint32_t ctr[4], key[2], want[4];
        } kat[] = {
                { { 0, 0, 0, 0 }, { 0, 0 }, { 0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8 } },
                { { 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff },
                  { 0xffffffff, 0xffffffff },
                  { 0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd } },
                { { 0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344 },
                  { 0xa4093822, 0x299f31d0 },
                  { 0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1 } },
        };
        for (size_t i = 0; i < ARRAY_LEN(kat); i++) {
                uint32_t got[4];
                rt_misc__philox_block(kat[i].ctr, kat[i].key, got);
                for (int j = 0; j < 4; j++)
                        ck_assert_uint_eq(got[j], kat[i].want[j]);
        }
}
END_TEST

START_TEST(test_random_philox_seed_next_skip) {
        rt_philox_t g;
        rt_misc__philox_seed(&g, 0x1122334455667788ull, 0x99aabbccddeeff00ull);
        ck_assert_uint_eq(g.key[0], 0x55667788u);
        ck_assert_uint_eq(g.key[1], 0x11223344u);
        ck_assert_uint_eq(g.counter[0], 0);
        ck_assert_uint_eq(g.counter[1], 0);
        ck_assert_uint_eq(g.counter[2], 0xddeeff00u);
        ck_assert_uint_eq(g.counter[3], 0x99aabbccu);
        /* next = block of the current counter, then +1 with carries */
        g.counter[0] = 0xffffffffu;
        g.counter[1] = 0xffffffffu;
        uint32_t a[4], b[4];
        rt_misc__philox_block(g.counter, g.key, a);
        rt_misc__philox_next(&g, b);
        ck_assert_mem_eq(a, b, sizeof(a));
        ck_assert_uint_eq(g.counter[0], 0);
        ck_assert_uint_eq(g.counter[1], 0);
        ck_assert_uint_eq(g.counter[2], 0xddeeff01u);
        /* skip by 2^32 + 3 */
        rt_misc__philox_skip(&g, (1ull << 32) + 3);
        ck_assert_uint_eq(g.counter[0], 3);
        ck_assert_uint_eq(g.counter[1], 1);
        ck_assert_uint_eq(g.counter[2], 0xddeeff01u);
        ck_assert_float_eq(rt_misc_u32_to_float(0), 0.0f);
        ck_assert_float_eq(rt_misc_u32_to_float(0x00400000u), 0.5f);
        ck_assert_double_eq(rt_misc_u64_to_double(0x80000u, 0), 0.5);
}
END_TEST

static int run_random(kh_t *h, const rt_registration_t *reg, int64_t seed, int64_t seed2, int32_t shape,
                      int32_t out) {
        static rt_random_params_t p;
        p.seed = seed;
        p.seed2 = seed2;
        return kh_run(h, reg, &p, I32(shape), 1, I32(out), 1);
}

/* Word i of the generator seeded (seed, seed2), counting from the start. */
static uint32_t word(uint64_t seed, uint64_t seed2, uint32_t i) {
        rt_philox_t g;
        rt_misc__philox_seed(&g, seed, seed2);
        uint32_t w[4];
        rt_misc__philox_skip(&g, i / 4);
        rt_misc__philox_next(&g, w);
        return w[i % 4];
}

START_TEST(test_random_uniform_seeded_sequence) {
        kh_t h;
        kh_init(&h);
        int32_t shape = kh_const(&h, RT_TYPE_INT32, 1, I32(2), I32(2, 3));
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_int_eq(run_random(&h, &rt_kernel_random_uniform, 7, 9, shape, out), 0);
        ck_assert_shape(&h.tensors[out], 2, 2, 3);
        const float *y = h.tensors[out].data;
        for (uint32_t i = 0; i < 6; i++) {
                ck_assert_float_eq(y[i], rt_misc_u32_to_float(word(7, 9, i)));
                ck_assert(y[i] >= 0.0f && y[i] < 1.0f);
        }
        /* The next invoke continues with block 2; words 6 and 7 are dropped. */
        ck_assert_int_eq(rt_kernel_random_uniform.invoke(&h.ctx, &h.node), 0);
        ck_assert_float_eq(y[0], rt_misc_u32_to_float(word(7, 9, 8)));
        ck_assert_float_eq(y[5], rt_misc_u32_to_float(word(7, 9, 13)));
        /* prepare re-seeds */
        ck_assert_int_eq(rt_kernel_random_uniform.prepare(&h.ctx, &h.node), 0);
        ck_assert_int_eq(rt_kernel_random_uniform.invoke(&h.ctx, &h.node), 0);
        y = h.tensors[out].data;  /* prepare resized (reallocated) the output */
        ck_assert_float_eq(y[0], rt_misc_u32_to_float(word(7, 9, 0)));
        kh_done(&h);
}
END_TEST

START_TEST(test_random_standard_normal_box_muller) {
        kh_t h;
        kh_init(&h);
        /* An odd count: the last pair's second value is dropped. */
        int32_t shape = kh_tensor(&h, RT_TYPE_INT32, 1, I32(1), I32(3));
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_int_eq(run_random(&h, &rt_kernel_random_standard_normal, -5, 123, shape, out), 0);
        ck_assert_int_eq(h.tensors[out].alloc, RT_ALLOC_DYNAMIC);
        ck_assert_shape(&h.tensors[out], 1, 3);
        const float *y = h.tensors[out].data;
        for (uint32_t pair = 0; pair < 2; pair++) {
                float u1 = rt_misc_u32_to_float(word((uint64_t) -5, 123, 2 * pair));
                if (u1 < 1e-7f)
                        u1 = 1e-7f;
                const float v1 = (float) (2.0 * M_PI * rt_misc_u32_to_float(word((uint64_t) -5, 123, 2 * pair + 1)));
                const float r = sqrtf(-2.0f * logf(u1));
                ck_assert_float_eq_tol(y[2 * pair], sinf(v1) * r, 1e-6f);
                if (pair == 0)
                        ck_assert_float_eq_tol(y[1], cosf(v1) * r, 1e-6f);
        }
        kh_done(&h);
}
END_TEST

START_TEST(test_random_zero_seeds_are_random) {
        kh_t h1, h2;
        kh_init(&h1);
        kh_init(&h2);
        int32_t s1 = kh_const(&h1, RT_TYPE_INT32, 1, I32(1), I32(8));
        int32_t o1 = kh_tensor(&h1, RT_TYPE_FLOAT32, 0, NULL, NULL);
        int32_t s2 = kh_const(&h2, RT_TYPE_INT32, 1, I32(1), I32(8));
        int32_t o2 = kh_tensor(&h2, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_int_eq(run_random(&h1, &rt_kernel_random_uniform, 0, 0, s1, o1), 0);
        ck_assert_int_eq(run_random(&h2, &rt_kernel_random_uniform, 0, 0, s2, o2), 0);
        ck_assert(memcmp(h1.tensors[o1].data, h2.tensors[o2].data, 8 * sizeof(float)) != 0);
        kh_done(&h1);
        kh_done(&h2);
}
END_TEST

static int run_multinomial(kh_t *h, int64_t seed, int64_t seed2, int32_t logits, int32_t num, int32_t out) {
        static rt_random_params_t p;
        p.seed = seed;
        p.seed2 = seed2;
        return kh_run(h, &rt_kernel_multinomial, &p, I32(logits, num), 2, I32(out), 1);
}

START_TEST(test_multinomial_samples_and_skip) {
        kh_t h;
        kh_init(&h);
        /* Row 0: two equal classes -> class 0 iff u < 0.5. Row 1: only the
         * finite class 1 can be drawn; row 2: class 1 dominates. */
        const float ninf = -INFINITY;
        int32_t logits = kh_tensor(&h, RT_TYPE_FLOAT32, 2, I32(3, 2),
                                   ((const float[]) { 0.0f, 0.0f, ninf, 3.0f, -200.0f, 50.0f }));
        int32_t num = kh_const(&h, RT_TYPE_INT32, 0, NULL, I32(5));
        int32_t out = kh_tensor(&h, RT_TYPE_INT64, 0, NULL, NULL);
        ck_assert_int_eq(run_multinomial(&h, 11, 22, logits, num, out), 0);
        ck_assert_shape(&h.tensors[out], 2, 3, 5);
        const int64_t *y = h.tensors[out].data;
        for (uint32_t j = 0; j < 5; j++) {
                double u = rt_misc_u64_to_double(word(11, 22, 2 * j), word(11, 22, 2 * j + 1));
                ck_assert_int_eq(y[j], u * 2.0 < 1.0 ? 0 : 1);
                ck_assert_int_eq(y[5 + j], 1);
                ck_assert_int_eq(y[10 + j], 1);
        }
        /* The second invoke starts after a skip of 3 * 8 * 512 blocks. */
        ck_assert_int_eq(rt_kernel_multinomial.invoke(&h.ctx, &h.node), 0);
        const uint32_t base = 3 * 8 * 512 * 4;
        for (uint32_t j = 0; j < 5; j++) {
                double u = rt_misc_u64_to_double(word(11, 22, base + 2 * j), word(11, 22, base + 2 * j + 1));
                ck_assert_int_eq(y[j], u * 2.0 < 1.0 ? 0 : 1);
        }
        kh_done(&h);
}
END_TEST

START_TEST(test_random_errors) {
        kh_t h;
        kh_init(&h);
        int32_t s64 = kh_const(&h, RT_TYPE_INT64, 1, I32(1), I64(2));
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_fails(&h, run_random(&h, &rt_kernel_random_uniform, 1, 1, s64, out), -EINVAL, "int32");
        kh_done(&h);
        kh_init(&h);
        int32_t s = kh_const(&h, RT_TYPE_INT32, 1, I32(1), I32(2));
        int32_t iout = kh_tensor(&h, RT_TYPE_INT32, 0, NULL, NULL);
        ck_assert_fails(&h, run_random(&h, &rt_kernel_random_standard_normal, 1, 1, s, iout), -ENOTSUP, "int32");
        kh_done(&h);
        kh_init(&h);
        int32_t logits = kh_tensor(&h, RT_TYPE_FLOAT32, 1, I32(2), F32(0, 0));
        int32_t num = kh_const(&h, RT_TYPE_INT32, 0, NULL, I32(1));
        int32_t mout = kh_tensor(&h, RT_TYPE_INT64, 0, NULL, NULL);
        ck_assert_fails(&h, run_multinomial(&h, 1, 1, logits, num, mout), -EINVAL, "[batch, classes]");
        kh_done(&h);
}
END_TEST

MISC_TEST_MAIN("random", test_random_philox_known_answers, test_random_philox_seed_next_skip,
               test_random_uniform_seeded_sequence, test_random_standard_normal_box_muller,
               test_random_zero_seeds_are_random, test_multinomial_samples_and_skip, test_random_errors)
