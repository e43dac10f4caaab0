/* SPDX-License-Identifier: Apache-2.0 */
/* Case generators for short chains taken from real networks: the float
 * instance normalisation of int8 image-to-image models, between DEQUANTIZE
 * and QUANTIZE, and an int8 detection-body block (PAD, CONV_2D,
 * DEPTHWISE_CONV_2D, ADD, MAX_POOL_2D, CONCATENATION) with float input and
 * output. Outputs are int8, or the float DEQUANTIZE of int8, so the
 * reference driver must match TFLite exactly. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "dt.h"

static int32_t op(dt_case_t *c, int32_t code, int32_t version, const int32_t *in, int32_t n_in, int32_t out,
                  uint8_t ot, const tfb_option_t *o, size_t n_o) {
        return dt_op(c, code, version, in, n_in, TFB_IDS(out), 1, ot, o, n_o);
}

static int gen_instance_norm(dt_case_t *c, dt_rng_t *r) {
        c->type_name = "int8 -> float ops -> int8";
        int32_t h = (int32_t) dt_int(r, 1, 6), w = (int32_t) dt_int(r, 1, 6), ch = (int32_t) dt_int(r, 1, 4);
        int32_t x4[4] = { 1, h, w, ch }, m4[4] = { 1, 1, 1, ch };
        float si = dt_scale(r, 1e-3, 0.5), so = dt_scale(r, 0.005, 0.1);
        int32_t zi = dt_zero_point(r, RT_TYPE_INT8), zo = dt_zero_point(r, RT_TYPE_INT8);
        const rt_type_t F = RT_TYPE_FLOAT32;
        int32_t in = dt_input(c, r, RT_TYPE_INT8, 4, x4, si, zi, NULL);
        int32_t x = dt_tensor(c, F, 4, x4, 0, 0);
        int32_t axes[2] = { 1, 2 };
        int32_t ax = dt_const_data(c, RT_TYPE_INT32, 1, TFB_DIMS(2), axes, 0, 0);
        int32_t mean = dt_tensor(c, F, 4, m4, 0, 0), sq = dt_tensor(c, F, 4, x4, 0, 0);
        int32_t var = dt_tensor(c, F, 4, m4, 0, 0), vare = dt_tensor(c, F, 4, m4, 0, 0);
        int32_t inv = dt_tensor(c, F, 4, m4, 0, 0), cen = dt_tensor(c, F, 4, x4, 0, 0);
        int32_t nrm = dt_tensor(c, F, 4, x4, 0, 0), sc = dt_tensor(c, F, 4, x4, 0, 0);
        int32_t sh = dt_tensor(c, F, 4, x4, 0, 0);
        float eps = (float) DT_PICK(r, 0, 1, 2) == 0 ? 1e-5f : 1e-3f;
        float gamma[4], beta[4];
        for (int i = 0; i < 4; i++)
                gamma[i] = (float) (0.5 + dt_unit(r)), beta[i] = (float) (dt_unit(r) - 0.5);
        int32_t et = dt_const_data(c, F, 0, NULL, &eps, 0, 0);
        int32_t gt = dt_const_data(c, F, 1, TFB_DIMS(ch), gamma, 0, 0);
        int32_t bt = dt_const_data(c, F, 1, TFB_DIMS(ch), beta, 0, 0);
        int32_t q = dt_output(c, RT_TYPE_INT8, 4, x4, so, zo);
        if (in < 0 || x < 0 || ax < 0 || sh < 0 || et < 0 || gt < 0 || bt < 0 || q < 0)
                return -ENOMEM;
        tfb_option_t keep[] = { TFB_OPT_BOOL(0, true) };
        tfb_option_t none[] = { TFB_OPT_I8(0, RT_ACT_NONE) };
        if (op(c, RT_BUILTIN_DEQUANTIZE, 2, TFB_IDS(in), 1, x, 0, NULL, 0) < 0 ||
            op(c, RT_BUILTIN_MEAN, 1, TFB_IDS(x, ax), 2, mean, RT_OPTIONS_REDUCER, keep, 1) < 0 ||
            op(c, RT_BUILTIN_SQUARED_DIFFERENCE, 1, TFB_IDS(x, mean), 2, sq, 0, NULL, 0) < 0 ||
            op(c, RT_BUILTIN_MEAN, 1, TFB_IDS(sq, ax), 2, var, RT_OPTIONS_REDUCER, keep, 1) < 0 ||
            op(c, RT_BUILTIN_ADD, 1, TFB_IDS(var, et), 2, vare, RT_OPTIONS_ADD, none, 1) < 0 ||
            op(c, RT_BUILTIN_RSQRT, 1, TFB_IDS(vare), 1, inv, 0, NULL, 0) < 0 ||
            op(c, RT_BUILTIN_SUB, 1, TFB_IDS(x, mean), 2, cen, RT_OPTIONS_SUB, none, 1) < 0 ||
            op(c, RT_BUILTIN_MUL, 1, TFB_IDS(cen, inv), 2, nrm, RT_OPTIONS_MUL, none, 1) < 0 ||
            op(c, RT_BUILTIN_MUL, 1, TFB_IDS(nrm, gt), 2, sc, RT_OPTIONS_MUL, none, 1) < 0 ||
            op(c, RT_BUILTIN_ADD, 1, TFB_IDS(sc, bt), 2, sh, RT_OPTIONS_ADD, none, 1) < 0 ||
            op(c, RT_BUILTIN_QUANTIZE, 1, TFB_IDS(sh), 1, q, 0, NULL, 0) < 0)
                return -ENOMEM;
        dt_desc(c, "in=1x%dx%dx%d si=%g zi=%d so=%g zo=%d eps=%g", h, w, ch, si, zi, so, zo, eps);
        return 0;
}

/* float -> QUANTIZE -> PAD -> CONV_2D (stride 2) -> DEPTHWISE_CONV_2D -> ADD
 * (residual) -> MAX_POOL_2D, concatenated with a 1x1 CONV_2D branch ->
 * DEQUANTIZE. */
static int gen_detection_block(dt_case_t *c, dt_rng_t *r) {
        c->type_name = "float -> int8 ops -> float";
        const rt_type_t I8 = RT_TYPE_INT8, F = RT_TYPE_FLOAT32;
        int32_t h = 4 * (int32_t) dt_int(r, 1, 3), w = 4 * (int32_t) dt_int(r, 1, 3), ci = (int32_t) dt_int(r, 1, 4);
        int32_t co = (int32_t) dt_int(r, 1, 6);
        float sq = dt_scale(r, 0.005, 0.05);
        int32_t zq = dt_zero_point(r, I8);
        dt_fill_t f = { .lo = sq * (-128.0 - zq), .hi = sq * (127.0 - zq), .finite_max = sq * 1e9 };
        int32_t in = dt_input(c, r, F, 4, TFB_DIMS(1, h, w, ci), 0, 0, &f);
        int32_t xq = dt_tensor(c, I8, 4, TFB_DIMS(1, h, w, ci), sq, zq);
        int32_t pads[8] = { 0, 0, 1, 1, 1, 1, 0, 0 };
        int32_t pt = dt_const_data(c, RT_TYPE_INT32, 2, TFB_DIMS(4, 2), pads, 0, 0);
        int32_t xp = dt_tensor(c, I8, 4, TFB_DIMS(1, h + 2, w + 2, ci), sq, zq);
        /* conv 3x3 stride 2 VALID on the padded input: (h + 2 - 3) / 2 + 1 = h / 2. */
        int32_t oh = h / 2, ow = w / 2;
        int8_t *wd = malloc((size_t) (co * 9 * ci + co * 9 + co * ci) + 16);
        int32_t bias[8] = { 0 };
        if (!wd)
                return -ENOMEM;
        dt_fill_data(r, I8, wd, co * 9 * ci + co * 9 + co * ci, NULL, false, 0);
        for (int i = 0; i < co * 9 * ci + co * 9 + co * ci; i++)
                if (wd[i] == -128)
                        wd[i] = -127;
        float ws[8], ws2[8], ws3[8], bs[8], bs2[8], bs3[8];
        int64_t wz[8] = { 0 };
        for (int i = 0; i < co; i++) {
                ws[i] = dt_scale(r, 0.002, 0.02), ws2[i] = dt_scale(r, 0.002, 0.02), ws3[i] = dt_scale(r, 0.002, 0.02);
                bs[i] = sq * ws[i];
                bias[i] = (int32_t) dt_int(r, -500, 500);
        }
        float s1 = dt_scale(r, 0.01, 0.1), s2 = dt_scale(r, 0.01, 0.1), s3 = dt_scale(r, 0.01, 0.2);
        int32_t z1 = dt_zero_point(r, I8), z2 = dt_zero_point(r, I8), z3 = dt_zero_point(r, I8);
        for (int i = 0; i < co; i++)
                bs2[i] = s1 * ws2[i], bs3[i] = sq * ws3[i];
        int32_t w1 = dt_const_channels(c, I8, 4, TFB_DIMS(co, 3, 3, ci), wd, ws, wz, co, 0);
        int32_t b1 = dt_const_channels(c, RT_TYPE_INT32, 1, TFB_DIMS(co), bias, bs, wz, co, 0);
        int32_t y1 = dt_tensor(c, I8, 4, TFB_DIMS(1, oh, ow, co), s1, z1);
        int32_t w2 = dt_const_channels(c, I8, 4, TFB_DIMS(1, 3, 3, co), wd + co * 9 * ci, ws2, wz, co, 3);
        int32_t b2 = dt_const_channels(c, RT_TYPE_INT32, 1, TFB_DIMS(co), bias, bs2, wz, co, 0);
        int32_t y2 = dt_tensor(c, I8, 4, TFB_DIMS(1, oh, ow, co), s2, z2);
        int32_t y3 = dt_tensor(c, I8, 4, TFB_DIMS(1, oh, ow, co), s3, z3);
        int32_t y4 = dt_tensor(c, I8, 4, TFB_DIMS(1, oh / 2, ow / 2, co), s3, z3);
        /* 1x1 stride-4 branch from the quantized input to the same size. */
        int32_t w5 = dt_const_channels(c, I8, 4, TFB_DIMS(co, 1, 1, ci), wd + co * 9 * ci + co * 9, ws3, wz, co, 0);
        int32_t b5 = dt_const_channels(c, RT_TYPE_INT32, 1, TFB_DIMS(co), bias, bs3, wz, co, 0);
        int32_t y5 = dt_tensor(c, I8, 4, TFB_DIMS(1, oh / 2, ow / 2, co), s3, z3);
        int32_t y6 = dt_tensor(c, I8, 4, TFB_DIMS(1, oh / 2, ow / 2, 2 * co), s3, z3);
        int32_t out = dt_output(c, F, 4, TFB_DIMS(1, oh / 2, ow / 2, 2 * co), 0, 0);
        free(wd);
        if (in < 0 || xq < 0 || pt < 0 || xp < 0 || w1 < 0 || b1 < 0 || y1 < 0 || w2 < 0 || b2 < 0 || y2 < 0 ||
            y3 < 0 || y4 < 0 || w5 < 0 || b5 < 0 || y5 < 0 || y6 < 0 || out < 0)
                return -ENOMEM;
        c->out_step[0] = s3;
        /* XNNPACK rounds each quantized op its own way (2 steps each): the
         * residual ADD passes the errors of y1 (s1) and y2 (s2) on to the
         * output unscaled, so its rule counts in the coarsest of the steps. */
        c->accel_step[0] = fmaxf(s3, fmaxf(s1, s2));
        int32_t act = (int32_t) DT_PICK(r, RT_ACT_NONE, RT_ACT_RELU, RT_ACT_RELU6);
        tfb_option_t conv[] = { TFB_OPT_I8(0, RT_PADDING_VALID), TFB_OPT_I32(1, 2), TFB_OPT_I32(2, 2),
                                TFB_OPT_I8(3, act) };
        tfb_option_t dw[] = { TFB_OPT_I8(0, RT_PADDING_SAME), TFB_OPT_I32(1, 1), TFB_OPT_I32(2, 1), TFB_OPT_I32(3, 1),
                              TFB_OPT_I8(4, act) };
        tfb_option_t add[] = { TFB_OPT_I8(0, RT_ACT_NONE) };
        tfb_option_t pool[] = { TFB_OPT_I8(0, RT_PADDING_VALID), TFB_OPT_I32(1, 2), TFB_OPT_I32(2, 2),
                                TFB_OPT_I32(3, 2), TFB_OPT_I32(4, 2), TFB_OPT_I8(5, RT_ACT_NONE) };
        tfb_option_t c1[] = { TFB_OPT_I8(0, RT_PADDING_VALID), TFB_OPT_I32(1, 4), TFB_OPT_I32(2, 4),
                              TFB_OPT_I8(3, RT_ACT_NONE) };
        tfb_option_t cat[] = { TFB_OPT_I32(0, -1), TFB_OPT_I8(1, RT_ACT_NONE) };
        if (op(c, RT_BUILTIN_QUANTIZE, 1, TFB_IDS(in), 1, xq, 0, NULL, 0) < 0 ||
            op(c, RT_BUILTIN_PAD, 2, TFB_IDS(xq, pt), 2, xp, 0, NULL, 0) < 0 ||
            op(c, RT_BUILTIN_CONV_2D, 3, TFB_IDS(xp, w1, b1), 3, y1, RT_OPTIONS_CONV_2D, conv, 4) < 0 ||
            op(c, RT_BUILTIN_DEPTHWISE_CONV_2D, 3, TFB_IDS(y1, w2, b2), 3, y2, RT_OPTIONS_DEPTHWISE_CONV_2D, dw, 5) < 0 ||
            op(c, RT_BUILTIN_ADD, 2, TFB_IDS(y1, y2), 2, y3, RT_OPTIONS_ADD, add, 1) < 0 ||
            op(c, RT_BUILTIN_MAX_POOL_2D, 2, TFB_IDS(y3), 1, y4, RT_OPTIONS_POOL_2D, pool, 6) < 0 ||
            op(c, RT_BUILTIN_CONV_2D, 3, TFB_IDS(xq, w5, b5), 3, y5, RT_OPTIONS_CONV_2D, c1, 4) < 0 ||
            op(c, RT_BUILTIN_CONCATENATION, 2, TFB_IDS(y4, y5), 2, y6, RT_OPTIONS_CONCATENATION, cat, 2) < 0 ||
            op(c, RT_BUILTIN_DEQUANTIZE, 2, TFB_IDS(y6), 1, out, 0, NULL, 0) < 0)
                return -ENOMEM;
        dt_desc(c, "in=1x%dx%dx%d co=%d act=%s sq=%g zq=%d", h, w, ci, co, dt_act_name(act), sq, zq);
        return 0;
}

const dt_gen_t dt_gens_chain[] = {
        { "CHAIN_INSTANCE_NORM", gen_instance_norm, 3 },
        { "CHAIN_DETECTION_BLOCK", gen_detection_block, 3 },
};
const size_t dt_gens_chain_n = sizeof(dt_gens_chain) / sizeof(dt_gens_chain[0]);
