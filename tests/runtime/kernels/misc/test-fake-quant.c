/* SPDX-License-Identifier: Apache-2.0 */
#include "misc-test.h"

static int run(kh_t *h, float min, float max, int32_t bits, bool narrow, int32_t in, int32_t out) {
        static rt_fake_quant_params_t p;
        p = (rt_fake_quant_params_t) { .min = min, .max = max, .num_bits = bits, .narrow_range = narrow };
        return kh_run(h, &rt_kernel_fake_quant, &p, I32(in), 1, I32(out), 1);
}

START_TEST(test_fake_quant_unit_range) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 1, I32(4), F32(-0.5f, 0.25f, 1.5f, 0.51f));
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_int_eq(run(&h, 0.0f, 1.0f, 8, false, in, out), 0);
        /* Step 1/255: 0.25 -> 63.75 -> 64 steps; 0.51 -> 130.05 -> 130. */
        ck_assert_f32_data(&h.tensors[out], 4, 1e-6f, 0.0f, 64.0f / 255.0f, 1.0f, 130.0f / 255.0f);
        kh_done(&h);
}
END_TEST

START_TEST(test_fake_quant_nudged_zero_point) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 1, I32(3), F32(-1.0f, 0.0f, 2.0f));
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        /* Step 1.2/255, zero point from min 21.25 -> 21: range [-21, 234] steps. */
        ck_assert_int_eq(run(&h, -0.1f, 1.1f, 8, false, in, out), 0);
        ck_assert_f32_data(&h.tensors[out], 3, 1e-6f, -21.0f * 1.2f / 255.0f, 0.0f, 234.0f * 1.2f / 255.0f);
        kh_done(&h);

        kh_init(&h);
        in = kh_tensor(&h, RT_TYPE_FLOAT32, 1, I32(2), F32(-5.0f, 5.0f));
        out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        /* 4-bit: 15 steps of 0.1 over [-0.93, 0.57]; zero point 9.3 -> 9,
         * so the range moves to [-0.9, 0.6]. */
        ck_assert_int_eq(run(&h, -0.93f, 0.57f, 4, false, in, out), 0);
        ck_assert_f32_data(&h.tensors[out], 2, 1e-6f, -0.9f, 0.6f);
        kh_done(&h);
}
END_TEST

START_TEST(test_fake_quant_errors) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 1, I32(1), F32(0));
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_fails(&h, run(&h, 1.0f, 1.0f, 8, false, in, out), -EINVAL, "less than max");
        ck_assert_fails(&h, run(&h, 0.0f, 1.0f, 1, false, in, out), -EINVAL, "num_bits 1");
        ck_assert_fails(&h, run(&h, -1.0f, 1.0f, 8, true, in, out), -EINVAL, "narrow_range");
        int32_t i8 = kh_tensor(&h, RT_TYPE_INT8, 1, I32(1), (const int8_t[]) { 0 });
        ck_assert_fails(&h, run(&h, 0.0f, 1.0f, 8, false, i8, out), -ENOTSUP, "int8");
        kh_done(&h);
}
END_TEST

MISC_TEST_MAIN("fake-quant", test_fake_quant_unit_range, test_fake_quant_nudged_zero_point, test_fake_quant_errors)
