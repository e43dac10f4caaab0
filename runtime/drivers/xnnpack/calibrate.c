/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Capability calibration for the XNNPACK driver: time one fixed float32
 * workload (a 64x256 by 256x256 fully connected layer) through XNNPACK and
 * through the same math in plain C, as the reference kernels do it, and
 * report the ratio (best of three runs each). The quantized types are not
 * timed separately in this short calibration: they report the float32
 * ratio (conservative; qs8/qu8 GEMMs gain more over the reference's
 * integer loops than float does).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <time.h>

#include <xnnpack.h>

#include "driver.h"
#include "xnnpack-internal.h"

#define M 64
#define K 256
#define N 256

static uint64_t now_ns(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

static void plain_fc(const float *in, const float *w, const float *b, float *out) {
        for (int m = 0; m < M; m++)
                for (int n = 0; n < N; n++) {
                        float acc = b[n];
                        for (int k = 0; k < K; k++)
                                acc += in[m * K + k] * w[n * K + k];
                        out[m * N + n] = acc;
                }
}

int rt__xnn_calibrate(const rt_driver_t *d, rt_driver_caps_t *ret) {
        (void) d;
        if (xnn_initialize(NULL) != xnn_status_success)
                return -ENODEV;
        float *in = malloc(sizeof(float) * M * K), *w = malloc(sizeof(float) * N * K);
        float *b = calloc(N, sizeof(float)), *out = malloc(sizeof(float) * M * N);
        xnn_operator_t op = NULL;
        int r = -ENOMEM;
        if (!in || !w || !b || !out)
                goto done;
        for (int i = 0; i < M * K; i++)
                in[i] = (float) (i % 17) * 0.01f;
        for (int i = 0; i < N * K; i++)
                w[i] = (float) (i % 13) * 0.01f;
        if (xnn_create_fully_connected_nc_f32(K, N, K, N, w, b, -INFINITY, INFINITY, 0, &op) != xnn_status_success ||
            xnn_setup_fully_connected_nc_f32(op, M, in, out, NULL) != xnn_status_success) {
                r = -EIO;
                goto done;
        }
        uint64_t best_x = UINT64_MAX, best_p = UINT64_MAX;
        for (int rep = 0; rep < 3; rep++) {
                uint64_t t0 = now_ns();
                (void) xnn_run_operator(op, NULL);
                uint64_t t1 = now_ns();
                plain_fc(in, w, b, out);
                uint64_t t2 = now_ns();
                if (t1 - t0 < best_x)
                        best_x = t1 - t0;
                if (t2 - t1 < best_p)
                        best_p = t2 - t1;
        }
        float ratio = best_p ? (float) best_x / (float) best_p : 1.0f;
        rt_driver_caps_t caps = { 0 };
        caps.operand[RT_TYPE_FLOAT32] = (rt_driver_perf_t) { ratio, ratio };
        caps.operand[RT_TYPE_INT8] = caps.operand[RT_TYPE_FLOAT32];
        caps.operand[RT_TYPE_UINT8] = caps.operand[RT_TYPE_FLOAT32];
        caps.operand[RT_TYPE_INT32] = caps.operand[RT_TYPE_FLOAT32];
        caps.relaxed_fp32_as_fp16 = caps.operand[RT_TYPE_FLOAT32];
        *ret = caps;
        r = 0;
done:
        if (op)
                xnn_delete_operator(op);
        free(in);
        free(w);
        free(b);
        free(out);
        return r;
}
