/* SPDX-License-Identifier: Apache-2.0 */
#include <string.h>

#include "conv-test.h"

static rt_conv3d_params_t params3(rt_padding_t pad, int s, int d, rt_activation_t act) {
        return (rt_conv3d_params_t) { .padding = pad, .stride_d = s, .stride_h = s, .stride_w = s,
                                      .dilation_d = d, .dilation_h = d, .dilation_w = d,
                                      .activation = act };
}

/* Direct double-precision CONV_3D: x [N,D,H,W,C], f [KD,KH,KW,C,O]. */
static void ref_conv3d(const float *x, const int *xd, const float *f, const int *fd,
                       const float *bias, const rt_conv3d_params_t *p, int *od, double *y) {
        int s[3] = { p->stride_d, p->stride_h, p->stride_w };
        int dil[3] = { p->dilation_d, p->dilation_h, p->dilation_w };
        int pad[3];
        for (int i = 0; i < 3; i++)
                ref_window(xd[i + 1], fd[i], s[i], dil[i], p->padding == RT_PADDING_SAME, &od[i + 1],
                           &pad[i]);
        od[0] = xd[0];
        od[4] = fd[4];
        int C = xd[4], O = fd[4];
        for (int n = 0; n < od[0]; n++)
        for (int a = 0; a < od[1]; a++)
        for (int b = 0; b < od[2]; b++)
        for (int c = 0; c < od[3]; c++)
        for (int o = 0; o < O; o++) {
                double acc = bias ? bias[o] : 0.0;
                for (int i = 0; i < fd[0]; i++)
                for (int j = 0; j < fd[1]; j++)
                for (int k = 0; k < fd[2]; k++) {
                        int id = a * s[0] - pad[0] + i * dil[0];
                        int ih = b * s[1] - pad[1] + j * dil[1];
                        int iw = c * s[2] - pad[2] + k * dil[2];
                        if (id < 0 || id >= xd[1] || ih < 0 || ih >= xd[2] || iw < 0 || iw >= xd[3])
                                continue;
                        for (int ci = 0; ci < C; ci++)
                                acc += (double) x[((((size_t) n * xd[1] + id) * xd[2] + ih) * xd[3] + iw) * C + ci] *
                                       f[((((size_t) i * fd[1] + j) * fd[2] + k) * C + ci) * O + o];
                }
                y[((((size_t) n * od[1] + a) * od[2] + b) * od[3] + c) * O + o] = acc;
        }
}

/* 2x3x3 input, 2x2x2 all-ones filter, VALID: each output sums a 2x2x2 cube. */
START_TEST(test_conv3d_float_valid_sum) {
        kh_t h;
        kh_init(&h);
        float x[18], f[8];
        for (int i = 0; i < 18; i++)
                x[i] = (float) (i + 1);
        for (int i = 0; i < 8; i++)
                f[i] = 1;
        const float bias[1] = { 0.5f };
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 5, (int32_t[]) { 1, 2, 3, 3, 1 }, x);
        int32_t w = kh_const(&h, RT_TYPE_FLOAT32, 5, (int32_t[]) { 2, 2, 2, 1, 1 }, f);
        int32_t b = kh_const(&h, RT_TYPE_FLOAT32, 1, (int32_t[]) { 1 }, bias);
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        rt_conv3d_params_t p = params3(RT_PADDING_VALID, 1, 1, RT_ACT_NONE);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_conv_3d, &p, (int32_t[]) { in, w, b }, 3,
                                (int32_t[]) { out }, 1), 0);
        const rt_tensor_t *o = &h.tensors[out];
        ck_assert_int_eq(o->rank, 5);
        const int32_t want_dims[5] = { 1, 1, 2, 2, 1 };
        for (int i = 0; i < 5; i++)
                ck_assert_int_eq(o->dims[i], want_dims[i]);
        /* Each output sums a 2x2 window of both depth planes; plane 1 is
         * plane 0 plus 9, so the sum is twice the plane-0 window plus 36. */
        const float *y = o->data;
        ck_assert_float_eq(y[0], (1 + 2 + 4 + 5) * 2 + 36 + 0.5f);
        ck_assert_float_eq(y[1], (2 + 3 + 5 + 6) * 2 + 36 + 0.5f);
        ck_assert_float_eq(y[2], (4 + 5 + 7 + 8) * 2 + 36 + 0.5f);
        ck_assert_float_eq(y[3], (5 + 6 + 8 + 9) * 2 + 36 + 0.5f);
        kh_done(&h);
}
END_TEST

/* Random data, several channels, SAME/VALID, strides, dilations and an
 * activation, against the double-precision reference. */
START_TEST(test_conv3d_float_matches_reference) {
        const struct {
                int xd[5], fd[5];
                rt_padding_t pad;
                int stride, dil;
                rt_activation_t act;
                bool bias;
        } cases[] = {
                { { 1, 4, 5, 6, 3 }, { 2, 3, 2, 3, 4 }, RT_PADDING_SAME, 1, 1, RT_ACT_NONE, true },
                { { 2, 5, 5, 5, 2 }, { 3, 3, 3, 2, 3 }, RT_PADDING_SAME, 2, 1, RT_ACT_RELU, false },
                { { 1, 6, 7, 5, 2 }, { 2, 2, 2, 2, 2 }, RT_PADDING_VALID, 1, 2, RT_ACT_RELU6, true },
                { { 1, 7, 6, 8, 1 }, { 3, 2, 3, 1, 2 }, RT_PADDING_VALID, 2, 1, RT_ACT_RELU_N1_TO_1, true },
                { { 1, 5, 4, 6, 2 }, { 2, 3, 2, 2, 2 }, RT_PADDING_SAME, 1, 2, RT_ACT_NONE, false },
        };
        for (size_t t = 0; t < ARRAY_LEN(cases); t++) {
                size_t nx = 1, nf = 1;
                for (int i = 0; i < 5; i++) {
                        nx *= (size_t) cases[t].xd[i];
                        nf *= (size_t) cases[t].fd[i];
                }
                float *x = malloc(nx * sizeof(float)), *f = malloc(nf * sizeof(float));
                float bias[8];
                ref_fill_f(x, nx, -1, 1, (uint32_t) t + 1);
                ref_fill_f(f, nf, -1, 1, (uint32_t) t + 100);
                ref_fill_f(bias, 8, -1, 1, (uint32_t) t + 200);
                kh_t h;
                kh_init(&h);
                int32_t xd[5], fd[5];
                for (int i = 0; i < 5; i++) {
                        xd[i] = cases[t].xd[i];
                        fd[i] = cases[t].fd[i];
                }
                int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 5, xd, x);
                int32_t w = kh_const(&h, RT_TYPE_FLOAT32, 5, fd, f);
                int32_t b = cases[t].bias ? kh_const(&h, RT_TYPE_FLOAT32, 1, (int32_t[]) { fd[4] }, bias) : -1;
                int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
                rt_conv3d_params_t p = params3(cases[t].pad, cases[t].stride, cases[t].dil, cases[t].act);
                ck_assert_int_eq(kh_run(&h, &rt_kernel_conv_3d, &p, (int32_t[]) { in, w, b }, 3,
                                        (int32_t[]) { out }, 1), 0);
                int od[5];
                double *y = malloc(nx * 8 * sizeof(double));
                ref_conv3d(x, cases[t].xd, f, cases[t].fd, cases[t].bias ? bias : NULL, &p, od, y);
                const rt_tensor_t *o = &h.tensors[out];
                ck_assert_int_eq(o->rank, 5);
                size_t ny = 1;
                for (int i = 0; i < 5; i++) {
                        ck_assert_int_eq(o->dims[i], od[i]);
                        ny *= (size_t) od[i];
                }
                float lo, hi;
                switch (cases[t].act) {
                case RT_ACT_RELU: lo = 0; hi = INFINITY; break;
                case RT_ACT_RELU6: lo = 0; hi = 6; break;
                case RT_ACT_RELU_N1_TO_1: lo = -1; hi = 1; break;
                default: lo = -INFINITY; hi = INFINITY; break;
                }
                const float *got = o->data;
                for (size_t i = 0; i < ny; i++) {
                        double want = y[i] < lo ? lo : (y[i] > hi ? hi : y[i]);
                        ck_assert_msg(fabs(got[i] - want) < 1e-4, "case %zu elem %zu: %f vs %f", t, i,
                                      (double) got[i], want);
                }
                free(y);
                free(x);
                free(f);
                kh_done(&h);
        }
}
END_TEST

START_TEST(test_conv3d_rejects_bad_inputs) {
        float x[8] = { 0 }, f[8] = { 0 };
        rt_conv3d_params_t p = params3(RT_PADDING_VALID, 1, 1, RT_ACT_NONE);
        kh_t h;
        /* channel mismatch */
        kh_init(&h);
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 5, (int32_t[]) { 1, 2, 2, 1, 2 }, x);
        int32_t w = kh_const(&h, RT_TYPE_FLOAT32, 5, (int32_t[]) { 1, 1, 1, 3, 1 }, f);
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_conv_3d, &p, (int32_t[]) { in, w }, 2,
                                (int32_t[]) { out }, 1), -EINVAL);
        ck_assert_ptr_nonnull(strstr(h.error, "channels"));
        kh_done(&h);
        /* rank 4 input */
        kh_init(&h);
        in = kh_tensor(&h, RT_TYPE_FLOAT32, 4, (int32_t[]) { 1, 2, 2, 2 }, x);
        w = kh_const(&h, RT_TYPE_FLOAT32, 5, (int32_t[]) { 1, 1, 1, 2, 1 }, f);
        out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_conv_3d, &p, (int32_t[]) { in, w }, 2,
                                (int32_t[]) { out }, 1), -EINVAL);
        kh_done(&h);
        /* zero stride */
        kh_init(&h);
        in = kh_tensor(&h, RT_TYPE_FLOAT32, 5, (int32_t[]) { 1, 2, 2, 1, 2 }, x);
        w = kh_const(&h, RT_TYPE_FLOAT32, 5, (int32_t[]) { 1, 1, 1, 2, 1 }, f);
        out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        rt_conv3d_params_t bad = p;
        bad.stride_d = 0;
        ck_assert_int_eq(kh_run(&h, &rt_kernel_conv_3d, &bad, (int32_t[]) { in, w }, 2,
                                (int32_t[]) { out }, 1), -EINVAL);
        kh_done(&h);
        /* bias of the wrong size */
        kh_init(&h);
        in = kh_tensor(&h, RT_TYPE_FLOAT32, 5, (int32_t[]) { 1, 2, 2, 1, 2 }, x);
        w = kh_const(&h, RT_TYPE_FLOAT32, 5, (int32_t[]) { 1, 1, 1, 2, 1 }, f);
        int32_t b = kh_const(&h, RT_TYPE_FLOAT32, 1, (int32_t[]) { 2 }, f);
        out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_conv_3d, &p, (int32_t[]) { in, w, b }, 3,
                                (int32_t[]) { out }, 1), -EINVAL);
        kh_done(&h);
        /* int8 is not a CONV_3D type in TFLite */
        kh_init(&h);
        in = kh_tensor(&h, RT_TYPE_INT8, 5, (int32_t[]) { 1, 2, 2, 1, 2 }, x);
        w = kh_const(&h, RT_TYPE_INT8, 5, (int32_t[]) { 1, 1, 1, 2, 1 }, f);
        out = kh_tensor(&h, RT_TYPE_INT8, 0, NULL, NULL);
        ck_assert_int_lt(kh_run(&h, &rt_kernel_conv_3d, &p, (int32_t[]) { in, w }, 2,
                                (int32_t[]) { out }, 1), 0);
        kh_done(&h);
}
END_TEST

/* Double-precision transposed conv: scatter x [N,D,H,W,C] through
 * f [KD,KH,KW,O,C] into y of shape od (padding from the forward conv). */
static void ref_conv3d_transpose(const float *x, const int *xd, const float *f, const int *fd,
                                 const float *bias, const rt_conv3d_params_t *p, const int *od,
                                 double *y) {
        int s[3] = { p->stride_d, p->stride_h, p->stride_w };
        int dil[3] = { p->dilation_d, p->dilation_h, p->dilation_w };
        int pad[3], unused;
        for (int i = 0; i < 3; i++)
                ref_window(od[i + 1], fd[i], s[i], dil[i], p->padding == RT_PADDING_SAME, &unused,
                           &pad[i]);
        int O = fd[3], C = fd[4];
        size_t ny = (size_t) od[0] * od[1] * od[2] * od[3] * od[4];
        for (size_t i = 0; i < ny; i++)
                y[i] = bias ? bias[i % (size_t) O] : 0.0;
        for (int n = 0; n < xd[0]; n++)
        for (int a = 0; a < xd[1]; a++)
        for (int b = 0; b < xd[2]; b++)
        for (int c = 0; c < xd[3]; c++)
        for (int i = 0; i < fd[0]; i++)
        for (int j = 0; j < fd[1]; j++)
        for (int k = 0; k < fd[2]; k++) {
                int zd = a * s[0] - pad[0] + i * dil[0];
                int zh = b * s[1] - pad[1] + j * dil[1];
                int zw = c * s[2] - pad[2] + k * dil[2];
                if (zd < 0 || zd >= od[1] || zh < 0 || zh >= od[2] || zw < 0 || zw >= od[3])
                        continue;
                for (int o = 0; o < O; o++)
                for (int ci = 0; ci < C; ci++)
                        y[((((size_t) n * od[1] + zd) * od[2] + zh) * od[3] + zw) * O + o] +=
                                (double) x[((((size_t) n * xd[1] + a) * xd[2] + b) * xd[3] + c) * C + ci] *
                                f[((((size_t) i * fd[1] + j) * fd[2] + k) * O + o) * C + ci];
        }
}

/* 1x1x1 input voxel of 2, 2x2x2 filter 1..8, stride 1 VALID: output 2x2x2 is
 * the filter times 2 plus bias. */
START_TEST(test_conv3d_transpose_float_single_voxel) {
        kh_t h;
        kh_init(&h);
        const float x[1] = { 2 };
        float f[8];
        for (int i = 0; i < 8; i++)
                f[i] = (float) (i + 1);
        const float bias[1] = { 1 };
        int32_t shape = kh_const(&h, RT_TYPE_INT32, 1, (int32_t[]) { 5 },
                                 (int32_t[]) { 1, 2, 2, 2, 1 });
        int32_t w = kh_const(&h, RT_TYPE_FLOAT32, 5, (int32_t[]) { 2, 2, 2, 1, 1 }, f);
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 5, (int32_t[]) { 1, 1, 1, 1, 1 }, x);
        int32_t b = kh_const(&h, RT_TYPE_FLOAT32, 1, (int32_t[]) { 1 }, bias);
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        rt_conv3d_params_t p = params3(RT_PADDING_VALID, 1, 1, RT_ACT_NONE);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_conv_3d_transpose, &p,
                                (int32_t[]) { shape, w, in, b }, 4, (int32_t[]) { out }, 1), 0);
        const rt_tensor_t *o = &h.tensors[out];
        ck_assert_int_eq(o->rank, 5);
        ck_assert_int_eq(o->dims[1], 2);
        ck_assert_int_eq(o->dims[4], 1);
        for (int i = 0; i < 8; i++)
                ck_assert_float_eq(((float *) o->data)[i], 2 * f[i] + 1);
        kh_done(&h);
}
END_TEST

START_TEST(test_conv3d_transpose_float_matches_reference) {
        const struct {
                int xd[5], fd[5], od[5];
                rt_padding_t pad;
                int stride, dil;
                rt_activation_t act;
                bool bias;
        } cases[] = {
                { { 1, 2, 3, 2, 3 }, { 2, 3, 2, 4, 3 }, { 1, 4, 6, 4, 4 }, RT_PADDING_SAME, 2, 1, RT_ACT_NONE, true },
                { { 2, 3, 3, 3, 2 }, { 3, 3, 3, 2, 2 }, { 2, 5, 5, 5, 2 }, RT_PADDING_VALID, 1, 1, RT_ACT_RELU, false },
                { { 1, 3, 2, 3, 1 }, { 2, 2, 2, 3, 1 }, { 1, 5, 4, 5, 3 }, RT_PADDING_VALID, 1, 2, RT_ACT_NONE, true },
                { { 1, 3, 3, 3, 2 }, { 3, 3, 3, 2, 2 }, { 1, 5, 5, 6, 2 }, RT_PADDING_SAME, 2, 1, RT_ACT_RELU6, true },
        };
        for (size_t t = 0; t < ARRAY_LEN(cases); t++) {
                size_t nx = 1, nf = 1, ny = 1;
                for (int i = 0; i < 5; i++) {
                        nx *= (size_t) cases[t].xd[i];
                        nf *= (size_t) cases[t].fd[i];
                        ny *= (size_t) cases[t].od[i];
                }
                float *x = malloc(nx * sizeof(float)), *f = malloc(nf * sizeof(float));
                float bias[8];
                ref_fill_f(x, nx, -1, 1, (uint32_t) t + 11);
                ref_fill_f(f, nf, -1, 1, (uint32_t) t + 111);
                ref_fill_f(bias, 8, -1, 1, (uint32_t) t + 211);
                kh_t h;
                kh_init(&h);
                int32_t xd[5], fd[5], od[5];
                for (int i = 0; i < 5; i++) {
                        xd[i] = cases[t].xd[i];
                        fd[i] = cases[t].fd[i];
                        od[i] = cases[t].od[i];
                }
                int32_t shape = kh_const(&h, RT_TYPE_INT32, 1, (int32_t[]) { 5 }, od);
                int32_t w = kh_const(&h, RT_TYPE_FLOAT32, 5, fd, f);
                int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 5, xd, x);
                int32_t b = cases[t].bias ? kh_const(&h, RT_TYPE_FLOAT32, 1, (int32_t[]) { fd[3] }, bias) : -1;
                int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
                rt_conv3d_params_t p = params3(cases[t].pad, cases[t].stride, cases[t].dil, cases[t].act);
                int r = kh_run(&h, &rt_kernel_conv_3d_transpose, &p, (int32_t[]) { shape, w, in, b }, 4,
                               (int32_t[]) { out }, 1);
                ck_assert_msg(r == 0, "case %zu: %d %s", t, r, h.error);
                double *y = malloc(ny * sizeof(double));
                ref_conv3d_transpose(x, cases[t].xd, f, cases[t].fd, cases[t].bias ? bias : NULL, &p,
                                     cases[t].od, y);
                const rt_tensor_t *o = &h.tensors[out];
                for (int i = 0; i < 5; i++)
                        ck_assert_int_eq(o->dims[i], od[i]);
                float lo = -INFINITY, hi = INFINITY;
                if (cases[t].act == RT_ACT_RELU)
                        lo = 0;
                if (cases[t].act == RT_ACT_RELU6) {
                        lo = 0;
                        hi = 6;
                }
                const float *got = o->data;
                for (size_t i = 0; i < ny; i++) {
                        double want = y[i] < lo ? lo : (y[i] > hi ? hi : y[i]);
                        ck_assert_msg(fabs(got[i] - want) < 1e-4, "case %zu elem %zu: %f vs %f", t, i,
                                      (double) got[i], want);
                }
                free(y);
                free(x);
                free(f);
                kh_done(&h);
        }
}
END_TEST

/* A non-constant output_shape makes the output dynamic: sized at invoke. */
START_TEST(test_conv3d_transpose_dynamic_output_shape) {
        kh_t h;
        kh_init(&h);
        const float x[1] = { 3 };
        const float f[1] = { 2 };
        int32_t shape = kh_tensor(&h, RT_TYPE_INT32, 1, (int32_t[]) { 5 },
                                  (int32_t[]) { 1, 1, 1, 1, 1 });
        int32_t w = kh_const(&h, RT_TYPE_FLOAT32, 5, (int32_t[]) { 1, 1, 1, 1, 1 }, f);
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 5, (int32_t[]) { 1, 1, 1, 1, 1 }, x);
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        rt_conv3d_params_t p = params3(RT_PADDING_VALID, 1, 1, RT_ACT_NONE);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_conv_3d_transpose, &p, (int32_t[]) { shape, w, in }, 3,
                                (int32_t[]) { out }, 1), 0);
        ck_assert_int_eq(h.tensors[out].rank, 5);
        ck_assert_float_eq(((float *) h.tensors[out].data)[0], 6);
        kh_done(&h);
}
END_TEST

START_TEST(test_conv3d_transpose_rejects_bad_inputs) {
        float x[8] = { 0 }, f[8] = { 0 };
        rt_conv3d_params_t p = params3(RT_PADDING_VALID, 1, 1, RT_ACT_NONE);
        kh_t h;
        /* output_shape that the forward conv cannot map back to the input */
        kh_init(&h);
        int32_t shape = kh_const(&h, RT_TYPE_INT32, 1, (int32_t[]) { 5 }, (int32_t[]) { 1, 3, 3, 3, 1 });
        int32_t w = kh_const(&h, RT_TYPE_FLOAT32, 5, (int32_t[]) { 1, 1, 1, 1, 1 }, f);
        int32_t in = kh_tensor(&h, RT_TYPE_FLOAT32, 5, (int32_t[]) { 1, 2, 2, 2, 1 }, x);
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_conv_3d_transpose, &p, (int32_t[]) { shape, w, in }, 3,
                                (int32_t[]) { out }, 1), -EINVAL);
        kh_done(&h);
        /* output_shape of 4 elements */
        kh_init(&h);
        shape = kh_const(&h, RT_TYPE_INT32, 1, (int32_t[]) { 4 }, (int32_t[]) { 1, 2, 2, 1 });
        w = kh_const(&h, RT_TYPE_FLOAT32, 5, (int32_t[]) { 1, 1, 1, 1, 1 }, f);
        in = kh_tensor(&h, RT_TYPE_FLOAT32, 5, (int32_t[]) { 1, 2, 2, 2, 1 }, x);
        out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_conv_3d_transpose, &p, (int32_t[]) { shape, w, in }, 3,
                                (int32_t[]) { out }, 1), -EINVAL);
        kh_done(&h);
        /* input channels differ from the filter's */
        kh_init(&h);
        shape = kh_const(&h, RT_TYPE_INT32, 1, (int32_t[]) { 5 }, (int32_t[]) { 1, 2, 2, 1, 1 });
        w = kh_const(&h, RT_TYPE_FLOAT32, 5, (int32_t[]) { 1, 1, 1, 1, 3 }, f);
        in = kh_tensor(&h, RT_TYPE_FLOAT32, 5, (int32_t[]) { 1, 2, 2, 1, 2 }, x);
        out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_conv_3d_transpose, &p, (int32_t[]) { shape, w, in }, 3,
                                (int32_t[]) { out }, 1), -EINVAL);
        kh_done(&h);
}
END_TEST

static Suite *conv3d_suite(void) {
        Suite *s = suite_create("conv3d");
        TCase *tc = tcase_create("conv3d");
        tcase_add_test(tc, test_conv3d_float_valid_sum);
        tcase_add_test(tc, test_conv3d_float_matches_reference);
        tcase_add_test(tc, test_conv3d_rejects_bad_inputs);
        tcase_add_test(tc, test_conv3d_transpose_float_single_voxel);
        tcase_add_test(tc, test_conv3d_transpose_float_matches_reference);
        tcase_add_test(tc, test_conv3d_transpose_dynamic_output_shape);
        tcase_add_test(tc, test_conv3d_transpose_rejects_bad_inputs);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        SRunner *sr = srunner_create(conv3d_suite());
        srunner_run_all(sr, CK_NORMAL);
        int failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed == 0 ? 0 : 1;
}
