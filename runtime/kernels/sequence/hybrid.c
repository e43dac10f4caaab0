/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Hybrid (dynamic-range) helpers shared by LSTM and SVDF: TFLite's
 * tensor_utils BatchQuantizeFloats and the int8 x int8 -> float
 * MatrixBatchVectorMultiplyAccumulate, with its float rounding steps.
 */
#include <math.h>
#include <string.h>

#include "kutil.h"
#include "seq-internal.h"

bool seq__is_zero(const float *v, size_t n) {
        for (size_t i = 0; i < n; i++)
                if (v[i] != 0.0f)
                        return false;
        return true;
}

void seq__quantize_row(const float *v, int32_t n, int8_t *q, float *ret_sf, int32_t *ret_zp, bool asym) {
        float mn = v[0], mx = v[0];
        for (int32_t i = 1; i < n; i++) {
                mn = v[i] < mn ? v[i] : mn;
                mx = v[i] > mx ? v[i] : mx;
        }
        if (!asym) {
                float range = fmaxf(fabsf(mn), fabsf(mx));
                *ret_zp = 0;
                if (range == 0) {
                        memset(q, 0, (size_t) n);
                        *ret_sf = 1;
                        return;
                }
                *ret_sf = range / 127;
                float inv = 127 / range;
                for (int32_t i = 0; i < n; i++) {
                        int32_t x = (int32_t) roundf(v[i] * inv);
                        q[i] = (int8_t) KU_CLAMP(x, -127, 127);
                }
                return;
        }
        double rmin = fmin(0, mn), rmax = fmax(0, mx);
        if (rmin == rmax) {
                memset(q, 0, (size_t) n);
                *ret_sf = 1;
                *ret_zp = 0;
                return;
        }
        double scale = (rmax - rmin) / 255.0;
        double zp_from_min = -128.0 - rmin / scale, zp_from_max = 127.0 - rmax / scale;
        double err_min = 128.0 + fabs(rmin / scale), err_max = 127.0 + fabs(rmax / scale);
        double zpd = err_min < err_max ? zp_from_min : zp_from_max;
        int32_t zp = zpd <= -128.0 ? -128 : (zpd >= 127.0 ? 127 : (int32_t) (int8_t) round(zpd));
        *ret_sf = (float) scale;
        *ret_zp = zp;
        /* TFLite: 1.0f / scaling_factor, a float division. */
        float inv = 1.0f / *ret_sf;
        for (int32_t i = 0; i < n; i++) {
                int32_t x = (int32_t) roundf((float) zp + v[i] * inv);
                q[i] = (int8_t) KU_CLAMP(x, -128, 127);
        }
}

void seq__mbvma_hybrid(const int8_t *w, int32_t rows, int32_t cols, float w_scale, const int8_t *q,
                         const float *sf, const int32_t *zp, int32_t n_batch, float *result) {
        for (int32_t b = 0; b < n_batch; b++) {
                float scale = sf[b] * w_scale;
                for (int32_t r = 0; r < rows; r++) {
                        int32_t dot = 0, row_sum = 0;
                        for (int32_t c = 0; c < cols; c++) {
                                dot += (int32_t) w[(size_t) r * cols + c] * q[(size_t) b * cols + c];
                                row_sum += w[(size_t) r * cols + c];
                        }
                        if (zp)
                                dot = (int32_t) ((float) dot - (float) row_sum * (float) zp[b]);
                        result[(size_t) b * rows + r] += (float) dot * scale;
                }
        }
}
