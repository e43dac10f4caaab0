/* SPDX-License-Identifier: Apache-2.0 */
/*
 * int16 LOGISTIC/TANH by table interpolation (TensorFlow Lite 2.9's general
 * scale path); see lut16.h.
 *
 * The table. TFLite ships 256 literal entries; we generate ours. Entry i is
 * not round(65536 * sigmoid(i h)) (h = 1/24) but that sample lowered by
 * half the sag of the chord a linear interpolation draws between two
 * samples: the chord over [x - h, x + h] lies f''(x) h^2 / 2 off the curve
 * in the middle, and a table entry shifted by f''(x) h^2 / 16 halves the
 * worst interpolation error over each interval. With s = sigmoid(x),
 * f'' = s (1 - s) (1 - 2 s). Rounded from double, this reproduces all 255
 * finite entries of TFLite's table (the nearest one sits 0.004 from a
 * rounding boundary, far from any double error); the last entry is the
 * limit 1.0 clipped to 16 bits, 65535.
 */
#include "lut16.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>

#define LUT16_SIZE 256
#define LUT16_STEP (1.0 / 24.0)

static uint16_t sigmoid_table[LUT16_SIZE];
static pthread_once_t sigmoid_once = PTHREAD_ONCE_INIT;

static void sigmoid_table_build(void) {
        const double h = LUT16_STEP;
        for (int i = 0; i < LUT16_SIZE - 1; i++) {
                const double s = 1.0 / (1.0 + exp(-i * h));
                const double f2 = s * (1.0 - s) * (1.0 - 2.0 * s);
                sigmoid_table[i] = (uint16_t) lround(65536.0 * (s - f2 * h * h / 16.0));
        }
        sigmoid_table[LUT16_SIZE - 1] = UINT16_MAX;
}

const uint16_t *ew_lut16_sigmoid_table(void) {
        (void) pthread_once(&sigmoid_once, sigmoid_table_build);
        return sigmoid_table;
}

int ew_lut16_rescale(float in_scale, int32_t *ret_mul, int *ret_shift) {
        if (!(in_scale > 0) || !isfinite(in_scale))
                return -ERANGE;
        /* In double, from the float scale, as TFLite's Prepare. */
        double m = (double) in_scale * 4096.0 * 3.0;
        int shift = 0;
        while (m <= 32767.0 / 2.0 && shift <= 30) {
                shift++;
                m *= 2.0;
        }
        /* Below about 4e-14 the multiplier truncates to 0 (TFLite would
         * then take its fixed-point kernel with a shift of 31); above
         * about 1.7e5 it does not fit. Refuse both. */
        if (!(m >= 1.0) || !(m < 2147483648.0))
                return -ERANGE;
        *ret_mul = (int32_t) m; /* truncated */
        *ret_shift = shift;
        return 0;
}

/*
 * x * mul + rounding, then an arithmetic right shift. TFLite does this in
 * int32 arithmetic; with shift 0 (scales above 4/3) the product can pass
 * 2^31 and the x86 build wraps it, so wrap here too (unsigned arithmetic,
 * then back to int32, two's complement).
 */
static inline int32_t rescale_one(int16_t x, int32_t mul, int shift) {
        const uint32_t round = shift > 0 ? UINT32_C(1) << (shift - 1) : 0;
        const int32_t v = (int32_t) ((uint32_t) (int32_t) x * (uint32_t) mul + round);
        return v >> shift;
}

/* |v| as the x86 build computes abs(): |INT32_MIN| stays 2^31. */
static inline uint32_t abs_u32(int32_t v) {
        return v < 0 ? 0u - (uint32_t) v : (uint32_t) v;
}

/*
 * Interpolation in the table: the top bits of |v| (above `frac_bits`) pick
 * the interval, the low `frac_bits` bits weigh the step to the next entry.
 * The result carries `frac_bits` more fractional bits than the table;
 * intervals past the table saturate to `sat`.
 */
static inline uint32_t interpolate(const uint16_t *t, uint32_t a, int frac_bits, uint32_t sat) {
        const uint32_t uh = a >> frac_bits;
        if (uh >= LUT16_SIZE - 1)
                return sat;
        const uint32_t ua = t[uh], ub = t[uh + 1];
        const uint32_t ut = a & ((UINT32_C(1) << frac_bits) - 1);
        return (ua << frac_bits) + ut * (ub - ua);
}

void ew_lut16_logistic(const int16_t *x, int16_t *z, size_t n, int32_t mul, int shift) {
        const uint16_t *t = ew_lut16_sigmoid_table();
        for (size_t i = 0; i < n; i++) {
                const int32_t v = rescale_one(x[i], mul, shift);
                /* One table step (1/24) is 2^9 rescaled units of
                 * 1/(3 * 4096). Saturation: 1 - 2^-15. */
                uint32_t r = interpolate(t, abs_u32(v), 9, UINT32_C(0x7fff) << 10);
                /* r is in units of 2^-25, the output in 2^-15: add half of
                 * the final shift's step. The negative side is
                 * sigmoid(-x) = 1 - sigmoid(x), rounded the other way. */
                r = v >= 0 ? r + (UINT32_C(1) << 9)
                           : (UINT32_C(1) << 25) - r + (UINT32_C(1) << 9) - 1;
                z[i] = (int16_t) (r >> 10);
        }
}

void ew_lut16_tanh(const int16_t *x, int16_t *z, size_t n, int32_t mul, int shift) {
        const uint16_t *t = ew_lut16_sigmoid_table();
        for (size_t i = 0; i < n; i++) {
                const int32_t v = rescale_one(x[i], mul, shift);
                /* sigmoid(2x): one table step is 2^8 units, twice
                 * logistic's rate. Saturation: the table's 0xffff. */
                int32_t r = (int32_t) interpolate(t, abs_u32(v), 8, UINT32_C(0xffff) << 8);
                /* r is s in units of 2^-24; tanh = 2 s - 1 in units of
                 * 2^-15 is (r - 2^23) / 2^8, rounded by adding half of
                 * that step; negative inputs mirror, rounded the other
                 * way. */
                r = v >= 0 ? r - (1 << 23) + (1 << 7) : -r + (1 << 23) + (1 << 7) - 1;
                z[i] = (int16_t) (r >> 8);
        }
}
