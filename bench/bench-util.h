/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What the benchmark programs share: a monotonic clock, benchmark_model-style
 * flag splitting ("--key=value", "--flag"), latency statistics and peak
 * memory. accel-benchmark and tflite-native use the same definitions so
 * that their numbers and JSON compare like for like.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* benchmark_model's booleans: absent value, "true", "1" and "yes" are true. */
bool bench_parse_bool(const char *v);

/* Split "--key=value" / "--key": *ret_key points into arg (not terminated,
 * length *ret_klen), *ret_value after '=' or NULL. False if arg does not
 * start with "--". */
bool bench_flag_split(const char *arg, const char **ret_key, size_t *ret_klen, const char **ret_value);

/* Whether the split key equals `name`. */
bool bench_flag_is(const char *key, size_t klen, const char *name);

typedef struct bench_stats {
        uint64_t min, median, p90, max;
        double avg;
        size_t count;
} bench_stats_t;

/* Statistics of v[0..n) (n > 0); sorts v in place. The p90 is the
 * nearest-rank 90th percentile. */
void bench_stats_compute(uint64_t *v, size_t n, bench_stats_t *ret);

/* Invokes per timed sample so that one sample lasts at least
 * min_sample_us, given one invoke's time in nanoseconds (the warm-up's
 * mean): 1 when min_sample_us is 0 or an invoke is that long already, at
 * most 100000. Timing a batch as one sample gives sub-microsecond models a
 * resolution well under the clock's microsecond and keeps the clock reads
 * out of the figure (docs/performance.md, "The microsecond models placed"). */
int bench_batch_size(double invoke_ns, double min_sample_us);

/* The timed loop: `num_runs` samples, and more while fewer than `min_secs`
 * have passed (at most 100000), each `batch` calls of invoke(user) timed
 * together and recorded as their mean in nanoseconds. *ret_ns (malloc()ed)
 * and *ret_n get the samples. The CPU time of this process over the loop,
 * per invoke, in microseconds, goes to *ret_cpu_us. invoke's negative
 * return stops the loop and is returned; -ENOMEM. */
int bench_samples_run(int (*invoke)(void *user), void *user, int num_runs, double min_secs, int batch,
                      uint64_t **ret_ns, size_t *ret_n, double *ret_cpu_us);

/* Prints st (of nanosecond samples) as JSON microseconds with three
 * decimals: {"min": .., "median": .., "p90": .., "max": .., "avg": .., "count": N}. */
void bench_stats_print_us(const bench_stats_t *st);

/* Peak resident set of this process in KiB (getrusage), or -1. */
long bench_peak_kb(void);

/* CPU time (user + system, every thread) of this process in microseconds,
 * or of process `pid` (from /proc/PID/stat) with bench_proc_cpu_us(); 0
 * when it cannot be read. */
uint64_t bench_cpu_us(void);
uint64_t bench_proc_cpu_us(long pid);
