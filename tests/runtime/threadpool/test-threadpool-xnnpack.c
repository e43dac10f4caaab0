/* SPDX-License-Identifier: Apache-2.0 */
/*
 * XNNPACK runs on acceld's pool (runtime/threadpool/): its pthreadpool_*
 * calls bind to our definitions (the process-wide counters grow when a
 * 2-thread interpreter runs), and the learned schedule never changes a
 * result: on the shared models, 1 thread, 2 threads learned and 2 threads
 * all-parallel (the default; ACCEL_POOL_LEARN=1 learns) give the same output bytes after the
 * schedule has learned. Real models, real XNNPACK; SKIPs without
 * ../shared.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "driver.h"
#include "rt.h"
#include "settings.h"
#include "threadpool.h"

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

static void fill_inputs(rt_interp_t *it) {
        for (int32_t k = 0; k < rt_interp_input_count(it); k++) {
                const rt_tensor_t *t = rt_interp_input_tensor(it, k);
                uint8_t *x = rt_interp_input_data(it, k);
                size_t n = rt_tensor_count(t) * rt_type_size(t->type);
                if (t->type == RT_TYPE_FLOAT32) {
                        for (size_t i = 0; i < n / 4; i++)
                                ((float *) x)[i] = (float) ((i * 37u) % 255u) / 127.5f - 1.0f;
                } else {
                        for (size_t i = 0; i < n; i++)
                                x[i] = (uint8_t) ((i * 131u) >> 3);
                }
        }
}

/* Every output's bytes, concatenated (caller frees). */
static uint8_t *outputs(rt_interp_t *it, size_t *ret_n) {
        size_t n = 0;
        for (int32_t k = 0; k < rt_interp_output_count(it); k++) {
                const rt_tensor_t *t = rt_interp_output_tensor(it, k);
                n += rt_tensor_count(t) * rt_type_size(t->type);
        }
        uint8_t *b = malloc(n ? n : 1), *p = b;
        ck_assert_ptr_nonnull(b);
        for (int32_t k = 0; k < rt_interp_output_count(it); k++) {
                const rt_tensor_t *t = rt_interp_output_tensor(it, k);
                size_t bytes = rt_tensor_count(t) * rt_type_size(t->type);
                memcpy(p, rt_interp_output_data(it, k), bytes);
                p += bytes;
        }
        *ret_n = n;
        return b;
}

/* Invokes enough times for the schedule to learn, then once more. */
static uint8_t *run(rt_model_t *m, int threads, const char *learn, size_t *ret_n) {
        if (learn)
                ck_assert_int_eq(setenv("ACCEL_POOL_LEARN", learn, 1), 0);
        else
                unsetenv("ACCEL_POOL_LEARN");
        rt_interp_t *it = interp_new(m, threads);
        fill_inputs(it);
        for (int i = 0; i < 12; i++)
                ck_assert_msg(rt_interp_invoke(it) == 0, "%s", rt_interp_last_error(it));
        uint8_t *b = outputs(it, ret_n);
        rt_interp_free(it);
        unsetenv("ACCEL_POOL_LEARN");
        return b;
}

static const char *const models[] = {
        "blazeface_front_float",
        "facemesh_landmark_float",
        "mobilenet_v1_0.25_224_float",
        "mp_face_detection_short_range",
        "mp_face_detection_full_range_sparse",
        "mobilenet_v2_1.0_224_quant",
};

START_TEST(test_xnnpack_binds_and_schedule_keeps_results) {
        const char *shared = getenv("ACCELD_SHARED_DIR");
        char path[1024], err[512] = "";
        if (!shared) {
                fprintf(stderr, "SKIP: ACCELD_SHARED_DIR not set\n");
                return;
        }
        snprintf(path, sizeof(path), "%s/models/%s.tflite", shared, models[_i]);
        rt_model_t *m = NULL;
        if (rt_model_load_file(path, &m, err, sizeof(err)) != 0) {
                fprintf(stderr, "SKIP: %s\n", err);
                return;
        }
        size_t n1, nl, np;
        rt_threadpool_stats_t a, b, c;
        rt_threadpool_totals_get(&a);
        uint8_t *one = run(m, 1, NULL, &n1);
        rt_threadpool_totals_get(&b);
        ck_assert_uint_eq(b.calls, a.calls);    /* one thread: no pool */
        uint8_t *learned = run(m, 2, "1", &nl);
        rt_threadpool_totals_get(&c);
        /* XNNPACK's parallel calls reached this pool. */
        ck_assert_uint_gt(c.calls - b.calls, 12);
        ck_assert_uint_eq(c.calls - b.calls, (c.parallel - b.parallel) + (c.inlined - b.inlined));
        uint8_t *parallel = run(m, 2, NULL, &np);
        rt_threadpool_totals_get(&a);
        ck_assert_uint_eq(a.inlined, c.inlined);        /* learning off: nothing inline */
        ck_assert_uint_gt(a.parallel - c.parallel, 12);
        ck_assert_uint_eq(n1, nl);
        ck_assert_uint_eq(n1, np);
        ck_assert_msg(memcmp(one, learned, n1) == 0, "%s: 2 threads (learned) differ from 1", models[_i]);
        ck_assert_msg(memcmp(one, parallel, n1) == 0, "%s: 2 threads (all parallel) differ from 1", models[_i]);
        free(one);
        free(learned);
        free(parallel);
        rt_model_free(m);
}
END_TEST

int main(void) {
        if (!rt_driver_xnnpack()) {
                fprintf(stderr, "built without XNNPACK: skipping\n");
                return 77;
        }
        const char *shared = getenv("ACCELD_SHARED_DIR");
        char probe[1024];
        snprintf(probe, sizeof(probe), "%s/models/%s.tflite", shared ? shared : "", models[0]);
        if (!shared || access(probe, R_OK) != 0) {
                fprintf(stderr, "SKIP: the shared models (ACCELD_SHARED_DIR, ../shared) are not there\n");
                return 77;
        }
        Suite *s = suite_create("threadpool-xnnpack");
        TCase *tc = tcase_create("threadpool-xnnpack");
        tcase_set_timeout(tc, 120);
        tcase_add_loop_test(tc, test_xnnpack_binds_and_schedule_keeps_results, 0,
                            (int) (sizeof(models) / sizeof(models[0])));
        suite_add_tcase(s, tc);
        SRunner *sr = srunner_create(s);
        srunner_run_all(sr, CK_NORMAL);
        int failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed ? 1 : 0;
}
