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

uint64_t accel__local_clock_elapsed_us(accel_local_clock_t *c, const accel_local_stamp_t *start) {
        const uint64_t tick = ticks();

        if (!HAVE_TSC || start->ns) {
                const uint64_t ns = clock_read(c);

                if (HAVE_TSC)
                        ratio_update(c, tick, ns, CALIBRATE_NS);
                return ns > start->ns ? (ns - start->ns + 500u) / 1000u : 0;
        }
        /* Another CPU's counter may lag a little: never negative. */
        const uint64_t us =
                tick > start->tick ? (uint64_t) ((double) (tick - start->tick) * c->ns_per_tick + 500.0) / 1000u : 0;
        if ((double) (tick - c->anchor_tick) * c->ns_per_tick >= (double) REFRESH_NS)
                ratio_update(c, tick, clock_read(c), REFRESH_NS / 2);
        return us;
}
