/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The placed invoke's stopwatch (local.c): accel_interp_last_timing() of a
 * model that runs in this process, in microseconds of CLOCK_MONOTONIC, at
 * the cost of two reads of the time-stamp counter per invoke.
 *
 * clock_gettime(CLOCK_MONOTONIC) costs 28 ns a read on the kvm-clock
 * virtual machines acceld was measured on, against 11 ns for rdtsc; two of
 * them were more than the whole invoke of hello_world_float (0.07 us;
 * docs/performance.md, "The microsecond models placed"). The counter is
 * scaled by the ratio of CLOCK_MONOTONIC to counter ticks, measured over
 * the clock's first CALIBRATE_NS and refreshed from then on once per
 * REFRESH_NS of counter time with one clock read; until the first ratio
 * (and where there is no counter: not x86) every stop reads the clock as
 * before.
 *
 * Two counter reads are a fifth of a 0.1 us invoke. Its reported time is
 * 0 us (whole microseconds, rounded) whatever the counter says, so once
 * FAST_STREAK timed invokes in a row took less than FAST_NS, the stopwatch
 * times one invoke in SAMPLE_EVERY and reports 0 us for the others; the
 * first timed invoke of FAST_NS or more goes back to timing every invoke
 * (and needs a new streak to sample again). The cost: a preempted invoke
 * between samples reports 0 us, not its time.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

typedef struct accel_local_clock {
        uint64_t anchor_tick, anchor_ns;  /* the ratio's window starts here */
        double ns_per_tick;               /* 0: not calibrated yet */
        uint64_t clock_reads;             /* clock_gettime() calls so far */
        uint32_t fast_streak;             /* timed invokes in a row under FAST_NS */
        uint32_t untimed_left;            /* invokes to report as 0 us before the next timed one */
        uint64_t untimed;                 /* invokes not timed so far */
} accel_local_clock_t;

typedef struct accel_local_stamp {
        uint64_t tick;  /* the counter, 0 without one */
        uint64_t ns;    /* CLOCK_MONOTONIC, 0 once calibrated */
        bool untimed;   /* a sampled-out invoke: it reports 0 us */
} accel_local_stamp_t;

/* Starts the calibration window (at interpreter creation). */
void accel__local_clock_init(accel_local_clock_t *c);

/* An invoke's start, and the microseconds since `start`, rounded to the
 * nearest (so that the mean of many is not a microsecond low, as a
 * truncated one was on the 3.5 us magic_wand). */
accel_local_stamp_t accel__local_clock_start(accel_local_clock_t *c);
uint64_t accel__local_clock_elapsed_us(accel_local_clock_t *c, const accel_local_stamp_t *start);
