/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pool-bench: what a parallel call on acceld's own pool
 * (runtime/threadpool/) costs on this machine, against the machine's own
 * floor (docs/performance.md, "Two threads on the ~1 ms float models").
 *
 *   ping-pong   one cache line bounced between two threads (the caller's
 *               publish and the worker's join and leave are each at least
 *               one such transfer): ns per one-way transfer
 *   empty       pthreadpool_parallelize_1d over `items` empty items on a
 *               2-thread pool whose worker spins: ns per call
 *   touch KB    parallelize_1d over 2 items, each reading and writing half
 *               of a KB-sized buffer, on a NULL pool and on the 2-thread
 *               pool; "swap" has the caller and the worker write the halves
 *               the other one reads in the next call (what a serial step
 *               between two parallel calls does to the data): ns per call
 *
 * Usage: pool-bench [--calls N | --ping-pong] (run it under `chrt -f 50`
 * on a busy machine). Prints one line per measurement: name, median, min
 * (ns) of 5 repetitions of N calls; --ping-pong only the first line.
 *
 * On the 2-vCPU VM the ping-pong has two values, depending on where the
 * host placed the vCPUs at the time: ~33 ns or ~225 ns one way, and every
 * 2-thread number follows it (docs/performance.md).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "threadpool.h"

#define REPS 5

static int cmp_u64(const void *a, const void *b) {
        uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
        return x < y ? -1 : x > y;
}

static void report(const char *name, uint64_t *per_call) {
        qsort(per_call, REPS, sizeof(*per_call), cmp_u64);
        printf("%-28s median %7llu ns  min %7llu ns\n", name, (unsigned long long) per_call[REPS / 2],
               (unsigned long long) per_call[0]);
}

/* ---- ping-pong */

static _Alignas(64) atomic_uint ball;
static unsigned long pp_rounds;

static void *pong(void *arg) {
        (void) arg;
        for (unsigned long i = 0; i < pp_rounds; i++) {
                while (atomic_load_explicit(&ball, memory_order_acquire) != 2 * i + 1)
                        __builtin_ia32_pause();
                atomic_store_explicit(&ball, 2 * i + 2, memory_order_release);
        }
        return NULL;
}

static void bench_ping_pong(unsigned long calls) {
        uint64_t r[REPS];
        pp_rounds = calls;
        for (int k = 0; k < REPS; k++) {
                atomic_store(&ball, 0);
                pthread_t t;
                pthread_create(&t, NULL, pong, NULL);
                uint64_t t0 = acc_now_ns();
                for (unsigned long i = 0; i < calls; i++) {
                        atomic_store_explicit(&ball, 2 * i + 1, memory_order_release);
                        while (atomic_load_explicit(&ball, memory_order_acquire) != 2 * i + 2)
                                __builtin_ia32_pause();
                }
                r[k] = (acc_now_ns() - t0) / calls / 2;
                pthread_join(t, NULL);
        }
        report("ping-pong (one way)", r);
}

/* ---- empty calls */

static void empty_task(void *ctx, size_t i) {
        (void) ctx;
        (void) i;
}

static void bench_empty(pthreadpool_t pool, size_t items, unsigned long calls) {
        uint64_t r[REPS];
        for (int k = 0; k < REPS; k++) {
                uint64_t t0 = acc_now_ns();
                for (unsigned long i = 0; i < calls; i++)
                        pthreadpool_parallelize_1d(pool, empty_task, NULL, items, 0);
                r[k] = (acc_now_ns() - t0) / calls;
        }
        char name[64];
        snprintf(name, sizeof(name), "empty, %zu items, %zuT", items, pthreadpool_get_threads_count(pool));
        report(name, r);
}

/* ---- calls that touch data */

typedef struct touch {
        float *buf;
        size_t half;            /* floats per item */
        bool swap;
        unsigned long call;
} touch_t;

static void touch_task(void *ctx, size_t i) {
        touch_t *t = ctx;
        /* Item i reads half i and writes half i, or the other half on odd
         * calls when swapping. */
        size_t h = t->swap && (t->call & 1) ? 1 - i : i;
        float *p = t->buf + h * t->half;
        for (size_t e = 0; e < t->half; e++)
                p[e] = p[e] * 0.5f + 1.0f;
}

static void bench_touch(pthreadpool_t pool, size_t kb, bool swap, unsigned long calls) {
        uint64_t r[REPS];
        touch_t t = { .half = kb * 1024 / sizeof(float) / 2, .swap = swap };
        t.buf = aligned_alloc(64, kb * 1024);
        memset(t.buf, 0, kb * 1024);
        for (int k = 0; k < REPS; k++) {
                uint64_t t0 = acc_now_ns();
                for (unsigned long i = 0; i < calls; i++) {
                        t.call = i;
                        pthreadpool_parallelize_1d(pool, (pthreadpool_task_1d_t) touch_task, &t, 2, 0);
                }
                r[k] = (acc_now_ns() - t0) / calls;
        }
        char name[64];
        snprintf(name, sizeof(name), "touch %zu KB%s, %zuT", kb, swap ? " swap" : "",
                 pthreadpool_get_threads_count(pool));
        report(name, r);
        free(t.buf);
}

int main(int argc, char **argv) {
        unsigned long calls = 20000;
        if (argc == 3 && strcmp(argv[1], "--calls") == 0)
                calls = strtoul(argv[2], NULL, 10);
        else if (argc == 2 && strcmp(argv[1], "--ping-pong") == 0) {
                /* The probe bench/compare-threads.sh runs per round. */
                bench_ping_pong(calls);
                return 0;
        } else if (argc != 1) {
                fprintf(stderr, "usage: pool-bench [--calls N | --ping-pong]\n");
                return 2;
        }
        pthreadpool_t pool = pthreadpool_create(2);
        if (!pool) {
                fprintf(stderr, "pool-bench: pthreadpool_create failed\n");
                return 1;
        }
        bench_ping_pong(calls * 5);
        bench_empty(pool, 2, calls);
        bench_empty(pool, 8, calls);
        bench_empty(pool, 64, calls);
        static const size_t sizes[] = { 4, 16, 64, 256, 1024 };
        for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
                unsigned long n = calls / (sizes[s] / 4 + 1) + 100;
                bench_touch(NULL, sizes[s], false, n);
                bench_touch(pool, sizes[s], false, n);
                bench_touch(pool, sizes[s], true, n);
        }
        pthreadpool_destroy(pool);
        return 0;
}
