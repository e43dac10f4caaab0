/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The XNNPACK driver's thread pools (runtime/drivers/xnnpack/pool.c): one
 * pool per interpreter and thread count, workers that spin between groups
 * and invokes, and a pool that ran last put to rest when another pool's
 * group (or a 1-thread group) starts. Real pthreadpool threads, real
 * XNNPACK; no timing is asserted.
 */
#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "driver.h"
#include "rt.h"
#include "settings.h"
#include "test-threads.h"
#include "xnnpack-internal.h"

/* pthreadpool's own synchronization is invisible to ThreadSanitizer (the
 * library is not instrumented): the counter is only touched atomically. */
static unsigned items_get(unsigned *items) {
        return __atomic_load_n(items, __ATOMIC_SEQ_CST);
}

static void items_reset(unsigned *items) {
        __atomic_store_n(items, 0, __ATOMIC_SEQ_CST);
}

static void count_item(void *ctx, size_t i) {
        (void) i;
        __atomic_fetch_add((unsigned *) ctx, 1, __ATOMIC_RELAXED);
}

/* Same owner and thread count: the same pool; the last release joins its
 * worker, and the rester once no pool is left. */
START_TEST(test_pool_shared_per_owner_no_leak) {
        int a, b, before = test_threads_before();
        pthreadpool_t p1 = rt__xnn_pool_acquire(&a, 2);
        ck_assert_ptr_nonnull(p1);
        ck_assert_int_eq(test_threads_count(), before + 2);   /* its worker, the rester */
        pthreadpool_t p2 = rt__xnn_pool_acquire(&a, 2);
        pthreadpool_t p3 = rt__xnn_pool_acquire(&b, 2);
        ck_assert_ptr_eq(p1, p2);
        ck_assert_ptr_ne(p1, p3);
        ck_assert_int_eq(test_threads_count(), before + 3);
        rt__xnn_pool_release(p1);
        ck_assert_int_eq(test_threads_count(), before + 3);
        rt__xnn_pool_release(p2);
        rt__xnn_pool_release(p3);
        ck_assert_int_eq(test_threads_count(), before);
}
END_TEST

/* A group entering another pool puts the idle pool that ran last to rest,
 * once; a busy pool is left alone, and so is the pool being entered. */
START_TEST(test_pool_enter_rests_the_other_idle_pool) {
        int a, b, before = test_threads_before();
        unsigned items = 0;
        rt__xnn_pool_set_linger_ns(0);  /* no rest by time here */
        pthreadpool_t pa = rt__xnn_pool_acquire(&a, 2);
        pthreadpool_t pb = rt__xnn_pool_acquire(&b, 2);
        ck_assert_ptr_nonnull(pa);
        ck_assert_ptr_nonnull(pb);

        rt__xnn_pool_enter(pa);
        pthreadpool_parallelize_1d(pa, count_item, &items, 64, 0);   /* its worker now spins */
        rt__xnn_pool_leave(pa);
        ck_assert_uint_eq(items_get(&items), 64);
        /* The same pool again: nothing to rest. */
        rt__xnn_pool_enter(pa);
        rt__xnn_pool_leave(pa);
        ck_assert_uint_eq(rt__xnn_pool_rests(pa), 0);

        rt__xnn_pool_enter(pb);
        ck_assert_uint_eq(rt__xnn_pool_rests(pa), 1);
        rt__xnn_pool_leave(pb);
        rt__xnn_pool_enter(pb);
        rt__xnn_pool_leave(pb);
        ck_assert_uint_eq(rt__xnn_pool_rests(pa), 1);

        /* pb busy (a group of its interpreter runs): entering pa leaves it. */
        rt__xnn_pool_enter(pb);
        rt__xnn_pool_enter(pa);
        ck_assert_uint_eq(rt__xnn_pool_rests(pb), 0);
        rt__xnn_pool_leave(pa);
        rt__xnn_pool_leave(pb);

        /* A 1-thread group (no pool) rests the pool that ran last too. */
        rt__xnn_pool_enter(NULL);
        rt__xnn_pool_leave(NULL);
        ck_assert_uint_eq(rt__xnn_pool_rests(pa), 2);

        /* A rested pool still works. */
        items_reset(&items);
        pthreadpool_parallelize_1d(pa, count_item, &items, 64, 0);
        ck_assert_uint_eq(items_get(&items), 64);
        rt__xnn_pool_release(pa);
        rt__xnn_pool_release(pb);
        ck_assert_int_eq(test_threads_count(), before);
        /* Unknown pools count nothing. */
        ck_assert_uint_eq(rt__xnn_pool_rests(NULL), 0);
        rt__xnn_pool_set_linger_ns(2000000);
}
END_TEST

/* A pool left idle is put to rest by the rester after the linger time (no
 * other pool runs); a busy one is not. No timing is asserted: the test
 * waits for the rest, up to 10 s. */
START_TEST(test_pool_idle_pool_rested_after_linger) {
        int a, before = test_threads_before();
        unsigned items = 0;
        rt__xnn_pool_set_linger_ns(1000000);
        pthreadpool_t pa = rt__xnn_pool_acquire(&a, 2);
        ck_assert_ptr_nonnull(pa);
        rt__xnn_pool_enter(pa);
        pthreadpool_parallelize_1d(pa, count_item, &items, 64, 0);
        /* Busy for longer than the linger: not rested. */
        struct timespec ts = { 0, 20 * 1000000 };
        nanosleep(&ts, NULL);
        ck_assert_uint_eq(rt__xnn_pool_rests(pa), 0);
        rt__xnn_pool_leave(pa);
        for (int i = 0; i < 1000 && rt__xnn_pool_rests(pa) == 0; i++) {
                ts.tv_nsec = 10 * 1000000;
                nanosleep(&ts, NULL);
        }
        ck_assert_uint_eq(rt__xnn_pool_rests(pa), 1);
        /* Rested once: nothing more to do until it runs again. */
        ts.tv_nsec = 20 * 1000000;
        nanosleep(&ts, NULL);
        ck_assert_uint_eq(rt__xnn_pool_rests(pa), 1);
        items_reset(&items);
        pthreadpool_parallelize_1d(pa, count_item, &items, 64, 0);
        ck_assert_uint_eq(items_get(&items), 64);
        rt__xnn_pool_release(pa);
        ck_assert_int_eq(test_threads_count(), before);
        rt__xnn_pool_set_linger_ns(2000000);
}
END_TEST

static rt_interp_t *interp_new(rt_model_t *m, int threads) {
        char json[128], err[512] = "";
        rt_settings_t s;
        snprintf(json, sizeof(json), "{\"delegate\":\"XNNPACK\",\"xnnpack_settings\":{\"num_threads\":%d}}", threads);
        ck_assert_int_eq(rt_settings_parse_json(json, &s, err, sizeof(err)), 0);
        rt_interp_options_t *o = rt_interp_options_new();
        ck_assert_int_eq(rt_interp_options_set_settings(o, &s), 0);
        rt_interp_t *it = NULL;
        ck_assert_msg(rt_interp_create(m, o, &it, err, sizeof(err)) == 0, "%s", err);
        ck_assert_msg(rt_interp_allocate_tensors(it) == 0, "%s", rt_interp_last_error(it));
        rt_interp_options_free(o);
        rt_settings_done(&s);
        return it;
}

static void fill_input(rt_interp_t *it, unsigned seed) {
        const rt_tensor_t *t = rt_interp_input_tensor(it, 0);
        uint8_t *x = rt_interp_input_data(it, 0);
        size_t n = rt_tensor_count(t) * rt_type_size(t->type);
        for (size_t i = 0; i < n; i++)
                x[i] = (uint8_t) ((i * 131u + seed * 17u) >> 3);
}

/* The int8 MobileNet v2 (two XNNPACK groups with reference nodes between
 * them): two interpreters at 2 threads, invoked in turn so that each one's
 * groups rest the other's pool, give the 1-thread interpreter's output byte
 * for byte, and leave no thread behind. */
START_TEST(test_pool_two_interpreters_alternate_exact) {
        const char *shared = getenv("ACCELD_SHARED_DIR");
        char path[1024], err[512] = "";
        if (!shared) {
                fprintf(stderr, "SKIP: ACCELD_SHARED_DIR not set\n");
                return;
        }
        snprintf(path, sizeof(path), "%s/models/mobilenet_v2_1.0_224_quant.tflite", shared);
        rt_model_t *m = NULL;
        ck_assert_msg(rt_model_load_file(path, &m, err, sizeof(err)) == 0, "%s", err);
        int before = test_threads_before();
        rt_interp_t *one = interp_new(m, 1), *a = interp_new(m, 2), *b = interp_new(m, 2);
        ck_assert_int_eq(test_threads_count(), before + 3);   /* two workers, the rester */
        const rt_tensor_t *ot = rt_interp_output_tensor(one, 0);
        size_t out_bytes = rt_tensor_count(ot) * rt_type_size(ot->type);
        for (unsigned round = 0; round < 3; round++) {
                fill_input(one, round);
                fill_input(a, round);
                fill_input(b, round);
                ck_assert_int_eq(rt_interp_invoke(one), 0);
                ck_assert_int_eq(rt_interp_invoke(a), 0);
                ck_assert_int_eq(rt_interp_invoke(b), 0);
                ck_assert_int_eq(rt_interp_invoke(a), 0);
                ck_assert(memcmp(rt_interp_output_data(one, 0), rt_interp_output_data(a, 0), out_bytes) == 0);
                ck_assert(memcmp(rt_interp_output_data(one, 0), rt_interp_output_data(b, 0), out_bytes) == 0);
        }
        rt_interp_free(a);
        rt_interp_free(b);
        rt_interp_free(one);
        ck_assert_int_eq(test_threads_count(), before);
        rt_model_free(m);
}
END_TEST

int main(void) {
        if (!rt_driver_xnnpack()) {
                fprintf(stderr, "built without XNNPACK: skipping\n");
                return 77;
        }
        Suite *s = suite_create("xnnpack-pool");
        TCase *tc = tcase_create("xnnpack-pool");
        tcase_set_timeout(tc, 60);
        tcase_add_test(tc, test_pool_shared_per_owner_no_leak);
        tcase_add_test(tc, test_pool_enter_rests_the_other_idle_pool);
        tcase_add_test(tc, test_pool_idle_pool_rested_after_linger);
        tcase_add_test(tc, test_pool_two_interpreters_alternate_exact);
        suite_add_tcase(s, tc);
        SRunner *sr = srunner_create(s);
        srunner_run_all(sr, CK_NORMAL);
        int failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed ? 1 : 0;
}
