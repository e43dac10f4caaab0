/* SPDX-License-Identifier: Apache-2.0 */
/* The placed invoke's stopwatch (local-clock.h). */
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define HAVE_TSC 1
#else
#define HAVE_TSC 0
#endif

#include "clock.h"
#include "local-clock.h"

#define CALIBRATE_NS 10000000u   /* 10 ms before the first ratio */
#define REFRESH_NS 1000000000u   /* then one clock read a second */
#define FAST_NS 250u             /* far below the 500 ns that round to 1 us */
#define FAST_STREAK 256u         /* timed invokes under FAST_NS before sampling */
#define SAMPLE_EVERY 16u         /* then one invoke in this many is timed */

static uint64_t ticks(void) {
#if HAVE_TSC
        return __rdtsc();
#else
        return 0;
#endif
}

static uint64_t clock_read(accel_local_clock_t *c) {
        c->clock_reads++;
        return acc_now_ns();
}

void accel__local_clock_init(accel_local_clock_t *c) {
        *c = (accel_local_clock_t) {};
        c->anchor_tick = ticks();
        c->anchor_ns = clock_read(c);
}

accel_local_stamp_t accel__local_clock_start(accel_local_clock_t *c) {
        if (c->untimed_left) {
                c->untimed_left--;
                c->untimed++;
                return (accel_local_stamp_t) { .untimed = true };
        }
        accel_local_stamp_t s = { .tick = ticks() };

        if (!HAVE_TSC || c->ns_per_tick <= 0)
                s.ns = clock_read(c);
        return s;
}

/* A new ratio over the window from the anchor to (tick, ns), once it is
 * long enough; the anchor moves to its end. */
static void ratio_update(accel_local_clock_t *c, uint64_t tick, uint64_t ns, uint64_t window_ns) {
        if (ns - c->anchor_ns < window_ns || tick <= c->anchor_tick)
                return;
        c->ns_per_tick = (double) (ns - c->anchor_ns) / (double) (tick - c->anchor_tick);
        c->anchor_tick = tick;
        c->anchor_ns = ns;
}

/* A calibrated stop of `ns`: counts the streak of fast invokes. */
static void streak_update(accel_local_clock_t *c, double ns) {
        if (ns >= (double) FAST_NS) {
                c->fast_streak = 0;
                return;
        }
        if (c->fast_streak < FAST_STREAK)
                c->fast_streak++;
        if (c->fast_streak >= FAST_STREAK)
                c->untimed_left = SAMPLE_EVERY - 1;
}

uint64_t accel__local_clock_elapsed_us(accel_local_clock_t *c, const accel_local_stamp_t *start) {
        if (start->untimed)
                return 0;
        const uint64_t tick = ticks();

        if (!HAVE_TSC || start->ns) {
                const uint64_t ns = clock_read(c);

                if (HAVE_TSC)
                        ratio_update(c, tick, ns, CALIBRATE_NS);
                return ns > start->ns ? (ns - start->ns + 500u) / 1000u : 0;
        }
        /* Another CPU's counter may lag a little: never negative. */
        const double ns = tick > start->tick ? (double) (tick - start->tick) * c->ns_per_tick : 0.0;
        const uint64_t us = (uint64_t) (ns + 500.0) / 1000u;
        streak_update(c, ns);
        if ((double) (tick - c->anchor_tick) * c->ns_per_tick >= (double) REFRESH_NS)
                ratio_update(c, tick, clock_read(c), REFRESH_NS / 2);
        return us;
}
