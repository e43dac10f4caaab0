/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "bench-util.h"
#include "clock.h"

bool bench_parse_bool(const char *v) {
        return !v || strcmp(v, "true") == 0 || strcmp(v, "1") == 0 || strcmp(v, "yes") == 0;
}

bool bench_flag_split(const char *arg, const char **ret_key, size_t *ret_klen, const char **ret_value) {
        if (strncmp(arg, "--", 2) != 0)
                return false;
        const char *s = arg + 2, *eq = strchr(s, '=');
        *ret_key = s;
        *ret_klen = eq ? (size_t) (eq - s) : strlen(s);
        *ret_value = eq ? eq + 1 : NULL;
        return true;
}

bool bench_flag_is(const char *key, size_t klen, const char *name) {
        return klen == strlen(name) && strncmp(key, name, klen) == 0;
}

static int cmp_u64(const void *a, const void *b) {
        uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
        return x < y ? -1 : x > y;
}

void bench_stats_compute(uint64_t *v, size_t n, bench_stats_t *ret) {
        uint64_t sum = 0;
        for (size_t i = 0; i < n; i++)
                sum += v[i];
        qsort(v, n, sizeof(uint64_t), cmp_u64);
        size_t p90i = (size_t) ((double) (n - 1) * 0.9 + 0.5);
        *ret = (bench_stats_t) {
                .min = v[0],
                .median = v[n / 2],
                .p90 = v[p90i < n ? p90i : n - 1],
                .max = v[n - 1],
                .avg = (double) sum / (double) n,
                .count = n,
        };
}

int bench_batch_size(double invoke_ns, double min_sample_us) {
        if (min_sample_us <= 0 || invoke_ns >= min_sample_us * 1000.0)
                return 1;
        double b = invoke_ns > 0 ? min_sample_us * 1000.0 / invoke_ns : 100000.0;
        return b >= 100000.0 ? 100000 : (int) b + 1;
}

int bench_samples_run(int (*invoke)(void *user), void *user, int num_runs, double min_secs, int batch,
                      uint64_t **ret_ns, size_t *ret_n, double *ret_cpu_us) {
        size_t cap = num_runs > 0 ? (size_t) num_runs : 1, n = 0;
        uint64_t *v = malloc(cap * sizeof(*v));
        int r = 0;

        if (!v)
                return -ENOMEM;
        if (batch < 1)
                batch = 1;
        const uint64_t start = acc_now_ns(), cpu0 = bench_cpu_us();
        while (n < (size_t) num_runs || (double) (acc_now_ns() - start) < min_secs * 1e9) {
                if (n == cap) {
                        uint64_t *p = realloc(v, 2 * cap * sizeof(*v));
                        if (!p) {
                                free(v);
                                return -ENOMEM;
                        }
                        v = p;
                        cap *= 2;
                }
                const uint64_t t0 = acc_now_ns();
                for (int b = 0; b < batch && r >= 0; b++)
                        r = invoke(user);
                if (r < 0)
                        break;
                v[n++] = (acc_now_ns() - t0 + (uint64_t) batch / 2) / (uint64_t) batch;
                if (n >= 100000)
                        break;
        }
        *ret_cpu_us = n ? (double) (bench_cpu_us() - cpu0) / ((double) n * batch) : 0.0;
        *ret_ns = v;
        *ret_n = n;
        return r < 0 ? r : 0;
}

void bench_stats_print_us(const bench_stats_t *st) {
        printf("{\"min\": %.3f, \"median\": %.3f, \"p90\": %.3f, \"max\": %.3f, \"avg\": %.3f, \"count\": %zu}",
               (double) st->min / 1e3, (double) st->median / 1e3, (double) st->p90 / 1e3, (double) st->max / 1e3,
               st->avg / 1e3, st->count);
}

long bench_peak_kb(void) {
        struct rusage ru;
        if (getrusage(RUSAGE_SELF, &ru) < 0)
                return -1;
        return ru.ru_maxrss;
}

uint64_t bench_cpu_us(void) {
        struct timespec ts;
        if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) < 0)
                return 0;
        return (uint64_t) ts.tv_sec * 1000000u + (uint64_t) ts.tv_nsec / 1000u;
}

uint64_t bench_proc_cpu_us(long pid) {
        char path[64], buf[1024];
        snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
        FILE *f = fopen(path, "re");
        if (!f)
                return 0;
        size_t n = fread(buf, 1, sizeof(buf) - 1, f);
        fclose(f);
        buf[n] = 0;
        /* The command name may hold spaces and parentheses: fields 14 and
         * 15 (utime, stime, in clock ticks) count from the last ')'. */
        const char *p = strrchr(buf, ')');
        unsigned long long ut = 0, st = 0;
        if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) != 2)
                return 0;
        long hz = sysconf(_SC_CLK_TCK);
        return hz > 0 ? (uint64_t) (ut + st) * 1000000u / (uint64_t) hz : 0;
}
