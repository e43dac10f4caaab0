/* SPDX-License-Identifier: Apache-2.0 */
/*
 * daemon/bench/placement.c on its own: the round trip estimate (the
 * back-to-back pings and the delayed pings, answered after busy work, of
 * which the larger median is kept) and the decision for a setting whose
 * threads take every CPU acceld may use. No daemon: the functions are
 * called as the daemon calls them, on a real socketpair and a real
 * helper thread. Nothing here asserts a speed: only what was measured,
 * what was kept and what was decided.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "bench/placement.h"
#include "serving/scheduler.h"
#include "settings.h"

static void settings(const char *json, rt_settings_t *s) {
        char err[256];

        ck_assert_msg(rt_settings_parse_json(json, s, err, sizeof(err)) == 0, "%s: %s", json, err);
}

/* The delayed pings are really answered after the busy work (each one
 * took at least that long), all of them, and the estimate kept is the
 * larger of the two medians, the delayed one less the busy work. */
START_TEST(test_placement_pings_keep_the_larger_median) {
        bench_placement_pings_t p = { .quick_us = -1 };
        bench_placement_status_t st;
        int64_t kept;

        /* 3 ms of busy work: a delayed ping that skipped it could not
         * take that long (a back-to-back ping here takes microseconds). */
        kept = bench_placement_measure_pings(3000000, &p);
        ck_assert_int_ge(kept, 0);
        ck_assert_uint_eq(p.busy_answers, BENCH_PLACEMENT_DELAYED_PINGS);
        ck_assert_int_ge(p.delayed_min_raw_us, 3000);
        ck_assert_int_ge(p.quick_us, 0);
        ck_assert_int_ge(p.delayed_us, 0);
        ck_assert_int_eq(kept, p.delayed_us > p.quick_us ? p.delayed_us : p.quick_us);
        bench_placement_status(&st);
        ck_assert_int_eq(st.socket_us, kept);
        /* No served request yet: the estimate is the pings alone. */
        ck_assert_int_eq(st.round_trip_us, kept);

        /* The daemon's own measure does the same with 1 ms. */
        kept = bench_placement_measure();
        ck_assert_int_ge(kept, 0);
        bench_placement_status(&st);
        ck_assert_int_eq(st.socket_us, kept);
}
END_TEST

/* The round trip the decisions use is the kept pings plus the median
 * in-daemon overhead of the served requests noted. */
START_TEST(test_placement_round_trip_adds_the_served_overhead) {
        bench_placement_status_t st;
        int64_t kept = bench_placement_measure_pings(200000, NULL);

        ck_assert_int_ge(kept, 0);
        for (int i = 0; i < 5; i++)
                bench_placement_note_served(7);
        bench_placement_status(&st);
        ck_assert_int_eq(st.served_overhead_us, 7);
        ck_assert_int_eq(st.round_trip_us, kept + 7);
}
END_TEST

/* A setting with as many threads as the CPUs acceld may use runs in the
 * client even where the ping estimate is within the overhead bound; one
 * with fewer follows the bound (on a machine of at least 2 CPUs). */
START_TEST(test_placement_all_cpus_setting_runs_in_the_client) {
        bench_placement_config_t cfg = { .max_compute_us = BENCH_PLACEMENT_DEFAULT_MAX_US,
                                         .max_overhead = 1000.0 };
        unsigned cpus = daemon_cpu_budget();
        rt_settings_t all, one;
        char json[128], why[512];

        ck_assert_int_ge(bench_placement_measure(), 0);
        bench_placement_configure(&cfg);
        (void) snprintf(json, sizeof(json), "{\"delegate\":\"XNNPACK\",\"xnnpack_settings\":{\"num_threads\":%u}}",
                        cpus);
        settings(json, &all);
        ck_assert_msg(bench_placement_decide(&all, 4447, NULL, why, sizeof(why)), "%s", why);
        (void) snprintf(json, sizeof(json), "client: compute 4447 us on %u threads, as many as the %u CPU", cpus,
                        cpus);
        ck_assert_msg(strncmp(why, json, strlen(json)) == 0, "%s", why);
        ck_assert_msg(strstr(why, "runs in the client") != NULL, "%s", why);

        /* More threads than CPUs (unclamped settings) too. */
        rt_settings_done(&all);
        (void) snprintf(json, sizeof(json), "{\"delegate\":\"XNNPACK\",\"xnnpack_settings\":{\"num_threads\":%u}}",
                        cpus + 3);
        settings(json, &all);
        ck_assert_msg(bench_placement_decide(&all, 4447, NULL, why, sizeof(why)), "%s", why);

        /* Still served: over the compute cap, a stateful model, placement
         * off. */
        ck_assert(!bench_placement_decide(&all, 20000, NULL, why, sizeof(why)));
        ck_assert_msg(strstr(why, "over client_placement_max_us") != NULL, "%s", why);
        ck_assert(!bench_placement_decide(&all, 4447, "the model keeps state between invokes", why, sizeof(why)));
        ck_assert_str_eq(why, "daemon: the model keeps state between invokes");
        cfg.max_compute_us = 0;
        bench_placement_configure(&cfg);
        ck_assert(!bench_placement_decide(&all, 4447, NULL, why, sizeof(why)));
        cfg.max_compute_us = BENCH_PLACEMENT_DEFAULT_MAX_US;
        bench_placement_configure(&cfg);

        if (cpus >= 2) {
                settings("{\"delegate\":\"XNNPACK\",\"xnnpack_settings\":{\"num_threads\":1}}", &one);
                ck_assert_msg(!bench_placement_decide(&one, 4447, NULL, why, sizeof(why)), "%s", why);
                ck_assert_msg(strstr(why, "served") != NULL, "%s", why);
                rt_settings_done(&one);
        } else
                fprintf(stderr, "one CPU: the fewer-threads half is not checked\n");
        rt_settings_done(&all);
}
END_TEST

int main(void) {
        Suite *su = suite_create("placement");
        TCase *tc = tcase_create("placement");
        SRunner *sr;
        int failed;

        tcase_set_timeout(tc, 60);
        tcase_add_test(tc, test_placement_pings_keep_the_larger_median);
        tcase_add_test(tc, test_placement_round_trip_adds_the_served_overhead);
        tcase_add_test(tc, test_placement_all_cpus_setting_runs_in_the_client);
        suite_add_tcase(su, tc);
        sr = srunner_create(su);
        srunner_run_all(sr, CK_NORMAL);
        failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed ? 1 : 0;
}
