/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Capability calibration for the XNNPACK driver: time one fixed workload
 * (a 64x256 by 256x256 fully connected layer) per operand type through
 * XNNPACK and through the same math in plain C, as the reference kernels do
 * it, and report the ratio (best of three runs each): float32, int8 (qs8)
 * and uint8 (qu8). Types XNNPACK does not compute in (int32 and the others)
 * are reported as 0, "not supported", never guessed; relaxed fp32-as-fp16
 * is not measured here (forced FP16 is refused on CPUs without it). Power
 * is not measured either (no energy counter is read), so power_usage is 0,
 * "not measured", rather than a copy of the time ratio.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
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

/* The reference kernels' integer FC: int32 accumulation with zero points,
 * then a fixed-point requantization (here a plain shift stands in for the
 * multiplier; the cost is the same). */
static void plain_fc_q(const uint8_t *in, const uint8_t *w, bool is_signed, uint8_t *out) {
        for (int m = 0; m < M; m++)
                for (int n = 0; n < N; n++) {
                        int32_t acc = 0;
                        for (int k = 0; k < K; k++) {
                                int32_t x = is_signed ? (int8_t) in[m * K + k] : in[m * K + k] - 128;
                                int32_t y = is_signed ? (int8_t) w[n * K + k] : w[n * K + k] - 128;
                                acc += x * y;
                        }
                        acc >>= 10;
                        out[m * N + n] = (uint8_t) (acc < -128 ? -128 : acc > 127 ? 127 : acc);
                }
}

/* Best-of-three XNNPACK / plain-C time ratio for one prepared operator. */
static float time_ratio(xnn_operator_t op, void (*plain)(void *), void *arg) {
        uint64_t best_x = UINT64_MAX, best_p = UINT64_MAX;
        for (int rep = 0; rep < 3; rep++) {
                uint64_t t0 = now_ns();
                (void) xnn_run_operator(op, NULL);
                uint64_t t1 = now_ns();
                plain(arg);
                uint64_t t2 = now_ns();
                if (t1 - t0 < best_x)
                        best_x = t1 - t0;
                if (t2 - t1 < best_p)
                        best_p = t2 - t1;
        }
        return best_p ? (float) best_x / (float) best_p : 1.0f;
}

typedef struct qargs {
        const uint8_t *in, *w;
        uint8_t *out;
        bool is_signed;
} qargs_t;

static void run_plain_q(void *p) {
        qargs_t *a = p;
        plain_fc_q(a->in, a->w, a->is_signed, a->out);
}

/* Ratio for qs8 (is_signed) or qu8, or 0 when XNNPACK refuses it. */
static float calibrate_quantized(bool is_signed) {
        uint8_t *in = malloc(M * K), *w = malloc(N * K), *out = malloc(M * N);
        int32_t *b = calloc(N, sizeof(int32_t));
        xnn_operator_t op = NULL;
        float ratio = 0.0f;
        if (!in || !w || !out || !b)
                goto done;
        for (int i = 0; i < M * K; i++)
                in[i] = (uint8_t) (i * 7);
        for (int i = 0; i < N * K; i++)
                w[i] = (uint8_t) (i * 5);
        enum xnn_status st;
        if (is_signed) {
                st = xnn_create_fully_connected_nc_qs8(K, N, K, N, 0, 0.5f, 0.5f, (const int8_t *) w, b, 0, 64.0f,
                                                       -128, 127, 0, &op);
                if (st == xnn_status_success)
                        st = xnn_setup_fully_connected_nc_qs8(op, M, (const int8_t *) in, (int8_t *) out, NULL);
        } else {
                st = xnn_create_fully_connected_nc_qu8(K, N, K, N, 128, 0.5f, 128, 0.5f, w, b, 128, 64.0f, 0,
                                                       255, 0, &op);
                if (st == xnn_status_success)
                        st = xnn_setup_fully_connected_nc_qu8(op, M, in, out, NULL);
        }
        if (st == xnn_status_success) {
                qargs_t a = { in, w, out, is_signed };
                ratio = time_ratio(op, run_plain_q, &a);
        }
done:
        if (op)
                xnn_delete_operator(op);
        free(in);
        free(w);
        free(out);
        free(b);
        return ratio;
}

typedef struct fargs {
        const float *in, *w, *b;
        float *out;
} fargs_t;

static void run_plain_f(void *p) {
        fargs_t *a = p;
        plain_fc(a->in, a->w, a->b, a->out);
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
        fargs_t fa = { in, w, b, out };
        float ratio = time_ratio(op, run_plain_f, &fa);
        rt_driver_caps_t caps = { 0 };
        caps.operand[RT_TYPE_FLOAT32] = (rt_driver_perf_t) { ratio, 0 };
        float qs8 = calibrate_quantized(true), qu8 = calibrate_quantized(false);
        caps.operand[RT_TYPE_INT8] = (rt_driver_perf_t) { qs8, 0 };
        caps.operand[RT_TYPE_UINT8] = (rt_driver_perf_t) { qu8, 0 };
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
