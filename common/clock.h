/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Clocks, once: microseconds or nanoseconds of a clock_gettime() clock.
 *
 *   acc_now_us()                   CLOCK_MONOTONIC, for durations
 *   acc_clock_us(CLOCK_REALTIME)   wall clock, boot time, ... as int64
 */
#pragma once

#include <stdint.h>
#include <time.h>

/* Microseconds of clock `id` (CLOCK_MONOTONIC, CLOCK_REALTIME,
 * CLOCK_BOOTTIME, ...). */
int64_t acc_clock_us(clockid_t id);

/* CLOCK_MONOTONIC in nanoseconds and in microseconds. */
uint64_t acc_now_ns(void);
uint64_t acc_now_us(void);
