/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The placed invoke's stopwatch (client/local-clock.c): once calibrated it
 * no longer reads clock_gettime() per invoke, and what it reports is the
 * monotonic clock's time still.
 */
#include <check.h>
#include <stdint.h>

#include "clock.h"
#include "local-clock.h"

/* Busy for `us` microseconds of CLOCK_MONOTONIC. */
static void spin_us(uint64_t us) {
        const uint64_t end = acc_now_ns() + us * 1000u;

        while (acc_now_ns() < end)
                ;
}

START_TEST(test_clock_stops_reading_the_clock_once_calibrated) {
        accel_local_clock_t c;

        accel__local_clock_init(&c);
        /* The calibration window: every stop reads the clock. */
        for (int i = 0; i < 3; i++) {
                accel_local_stamp_t s = accel__local_clock_start(&c);
                spin_us(6000);
                (void) accel__local_clock_elapsed_us(&c, &s);
        }
#if defined(__x86_64__) || defined(__i386__)
        ck_assert_msg(c.ns_per_tick > 0, "not calibrated after 18 ms");
        const uint64_t reads = c.clock_reads;
        for (int i = 0; i < 10000; i++) {
                accel_local_stamp_t s = accel__local_clock_start(&c);
                (void) accel__local_clock_elapsed_us(&c, &s);
        }
        /* 10000 back-to-back invokes take far less than the refresh's
         * second: no read at all (a refresh may fall in on a slow run). */
        ck_assert_msg(c.clock_reads - reads <= 1, "%llu clock reads for 10000 stops",
                      (unsigned long long) (c.clock_reads - reads));
#else
        ck_assert_uint_ge(c.clock_reads, 7);
#endif
}
END_TEST

/* What it reports agrees with CLOCK_MONOTONIC over the same interval (the
 * counter's ratio is the clock's; a correctness check of the scaling, not
 * a performance one: both clocks see the same preemptions). */
START_TEST(test_clock_reports_monotonic_microseconds) {
        accel_local_clock_t c;

        accel__local_clock_init(&c);
        spin_us(12000);
        {
                accel_local_stamp_t s = accel__local_clock_start(&c);
                (void) accel__local_clock_elapsed_us(&c, &s);
        }
        for (int i = 0; i < 5; i++) {
                const uint64_t t0 = acc_now_ns();
                accel_local_stamp_t s = accel__local_clock_start(&c);
                spin_us(3000);
                const uint64_t us = accel__local_clock_elapsed_us(&c, &s);
                const uint64_t want = (acc_now_ns() - t0) / 1000u;

                ck_assert_msg(us + 50 >= want * 95 / 100 && us <= want * 105 / 100 + 50,
                              "stopwatch %llu us, CLOCK_MONOTONIC %llu us", (unsigned long long) us,
                              (unsigned long long) want);
        }
}
END_TEST

int main(void) {
        Suite *s = suite_create("local-clock");
        TCase *tc = tcase_create("local-clock");
        tcase_add_test(tc, test_clock_stops_reading_the_clock_once_calibrated);
        tcase_add_test(tc, test_clock_reports_monotonic_microseconds);
        suite_add_tcase(s, tc);
        SRunner *sr = srunner_create(s);
        srunner_run_all(sr, CK_NORMAL);
        int failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed ? 1 : 0;
}
