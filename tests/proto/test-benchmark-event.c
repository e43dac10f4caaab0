/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Wire compatibility with TFLite's configuration.proto: BenchmarkEvents
 * assembled by hand from the protobuf encoding rules decode to the expected
 * fields and pack back to the same bytes.
 */
#include <check.h>
#include <stdlib.h>

#include "acceleration.pb-c.h"

/* An END event. Tags are (field << 3) | wire type: 0 varint, 2 bytes, 5 fixed32. */
static const uint8_t end_event[] = {
        0x0a, 0x06,                             /* 1 tflite_settings, 6 bytes */
        0x08, 0x04,                             /*   1 delegate = XNNPACK */
        0x2a, 0x02,                             /*   5 xnnpack_settings, 2 bytes */
        0x08, 0x02,                             /*     1 num_threads = 2 */
        0x10, 0x02,                             /* 2 event_type = END */
        0x1a, 0x28,                             /* 3 result, 40 bytes */
        0x0a, 0x04, 0xb0, 0x09, 0x94, 0x0a,     /*   1 initialization_time_us packed [1200, 1300] */
        0x12, 0x06, 0x96, 0x01, 0x94, 0x01, 0x9b, 0x01, /* 2 inference_time_us packed [150, 148, 155] */
        0x18, 0x80, 0x10,                       /*   3 max_memory_kb = 2048 */
        0x20, 0x01,                             /*   4 ok = true */
        0x2a, 0x13,                             /*   5 metrics, 19 bytes */
        0x0a, 0x03, 'm', 's', 'e',              /*     1 name = "mse" */
        0x12, 0x0c,                             /*     2 values packed, 12 bytes */
        0x00, 0x00, 0x00, 0x3f,                 /*       0.5f */
        0x00, 0x00, 0x80, 0x3e,                 /*       0.25f */
        0x00, 0x00, 0x00, 0xc0,                 /*       -2.0f */
        0x28, 0x95, 0x9a, 0xef, 0x3a,           /* 5 boottime_us = 123456789 */
        0x30, 0x80, 0x80, 0x80, 0x80, 0x80, 0x20, /* 6 wallclock_us = 1 << 40 */
};

/* An ERROR event; a negative int32 is a 10-byte varint on the wire. */
static const uint8_t error_event[] = {
        0x10, 0x03,                             /* 2 event_type = ERROR */
        0x22, 0x17,                             /* 4 error, 23 bytes */
        0x08, 0x02,                             /*   1 stage = INFERENCE */
        0x10, 0xff, 0xff, 0xff, 0xff, 0xff,     /*   2 exit_code = -1 */
        0xff, 0xff, 0xff, 0xff, 0x01,
        0x18, 0x0b,                             /*   3 signal = 11 */
        0x22, 0x06,                             /*   4 error_code, 6 bytes */
        0x08, 0x04,                             /*     1 source = XNNPACK */
        0x10, 0x01,                             /*     2 tflite_error = 1 */
        0x18, 0x4d,                             /*     3 underlying_api_error = 77 */
        0x28, 0xac, 0x02,                       /* 5 boottime_us = 300 */
};

static void assert_repacks(const Tflite__Proto__BenchmarkEvent *ev, const uint8_t *bytes,
                           size_t len) {
        uint8_t *out;

        ck_assert_uint_eq(tflite__proto__benchmark_event__get_packed_size(ev), len);
        out = malloc(len);
        ck_assert_ptr_nonnull(out);
        ck_assert_uint_eq(tflite__proto__benchmark_event__pack(ev, out), len);
        ck_assert_mem_eq(out, bytes, len);
        free(out);
}

START_TEST(test_benchmark_event_end_decodes) {
        Tflite__Proto__BenchmarkEvent *ev =
                tflite__proto__benchmark_event__unpack(NULL, sizeof(end_event), end_event);

        ck_assert_ptr_nonnull(ev);
        ck_assert(ev->has_event_type);
        ck_assert_int_eq(ev->event_type, TFLITE__PROTO__BENCHMARK_EVENT_TYPE__END);
        ck_assert(ev->has_boottime_us);
        ck_assert_int_eq(ev->boottime_us, 123456789);
        ck_assert(ev->has_wallclock_us);
        ck_assert_int_eq(ev->wallclock_us, INT64_C(1) << 40);
        ck_assert_ptr_null(ev->error);

        Tflite__Proto__TFLiteSettings *ts = ev->tflite_settings;
        ck_assert_ptr_nonnull(ts);
        ck_assert(ts->has_delegate);
        ck_assert_int_eq(ts->delegate, TFLITE__PROTO__DELEGATE__XNNPACK);
        ck_assert_ptr_nonnull(ts->xnnpack_settings);
        ck_assert(ts->xnnpack_settings->has_num_threads);
        ck_assert_int_eq(ts->xnnpack_settings->num_threads, 2);
        ck_assert_ptr_null(ts->cpu_settings);
        ck_assert_ptr_null(ts->gpu_settings);
        ck_assert(!ts->has_max_delegated_partitions);

        Tflite__Proto__BenchmarkResult *res = ev->result;
        ck_assert_ptr_nonnull(res);
        ck_assert_uint_eq(res->n_initialization_time_us, 2);
        ck_assert_int_eq(res->initialization_time_us[0], 1200);
        ck_assert_int_eq(res->initialization_time_us[1], 1300);
        ck_assert_uint_eq(res->n_inference_time_us, 3);
        ck_assert_int_eq(res->inference_time_us[0], 150);
        ck_assert_int_eq(res->inference_time_us[1], 148);
        ck_assert_int_eq(res->inference_time_us[2], 155);
        ck_assert(res->has_max_memory_kb);
        ck_assert_int_eq(res->max_memory_kb, 2048);
        ck_assert(res->has_ok);
        ck_assert(res->ok);
        ck_assert_uint_eq(res->n_metrics, 1);
        ck_assert_str_eq(res->metrics[0]->name, "mse");
        ck_assert_uint_eq(res->metrics[0]->n_values, 3);
        /* Exact: these are binary fractions. */
        ck_assert(res->metrics[0]->values[0] == 0.5f);
        ck_assert(res->metrics[0]->values[1] == 0.25f);
        ck_assert(res->metrics[0]->values[2] == -2.0f);

        assert_repacks(ev, end_event, sizeof(end_event));
        tflite__proto__benchmark_event__free_unpacked(ev, NULL);
}
END_TEST

START_TEST(test_benchmark_event_error_decodes) {
        Tflite__Proto__BenchmarkEvent *ev =
                tflite__proto__benchmark_event__unpack(NULL, sizeof(error_event), error_event);

        ck_assert_ptr_nonnull(ev);
        ck_assert_int_eq(ev->event_type, TFLITE__PROTO__BENCHMARK_EVENT_TYPE__ERROR);
        ck_assert_ptr_null(ev->tflite_settings);
        ck_assert_ptr_null(ev->result);
        ck_assert(ev->has_boottime_us);
        ck_assert_int_eq(ev->boottime_us, 300);
        ck_assert(!ev->has_wallclock_us);

        Tflite__Proto__BenchmarkError *err = ev->error;
        ck_assert_ptr_nonnull(err);
        ck_assert(err->has_stage);
        ck_assert_int_eq(err->stage, TFLITE__PROTO__BENCHMARK_STAGE__INFERENCE);
        ck_assert(err->has_exit_code);
        ck_assert_int_eq(err->exit_code, -1);
        ck_assert(err->has_signal);
        ck_assert_int_eq(err->signal, 11);
        ck_assert_uint_eq(err->n_error_code, 1);
        ck_assert(err->error_code[0]->has_source);
        ck_assert_int_eq(err->error_code[0]->source, TFLITE__PROTO__DELEGATE__XNNPACK);
        ck_assert_int_eq(err->error_code[0]->tflite_error, 1);
        ck_assert_int_eq(err->error_code[0]->underlying_api_error, 77);

        assert_repacks(ev, error_event, sizeof(error_event));
        tflite__proto__benchmark_event__free_unpacked(ev, NULL);
}
END_TEST

START_TEST(test_benchmark_event_truncated_rejected) {
        /* Cut inside the result message: its length runs past the end. */
        ck_assert_ptr_null(tflite__proto__benchmark_event__unpack(NULL, 20, end_event));
}
END_TEST

START_TEST(test_settings_defaults) {
        static const uint8_t empty[1];
        Tflite__Proto__CPUSettings cpu = TFLITE__PROTO__CPUSETTINGS__INIT;
        Tflite__Proto__EdgeTpuSettings tpu = TFLITE__PROTO__EDGE_TPU_SETTINGS__INIT;
        Tflite__Proto__GPUSettings gpu = TFLITE__PROTO__GPUSETTINGS__INIT;

        ck_assert_int_eq(cpu.num_threads, -1);
        ck_assert_int_eq(tpu.inference_priority, -1);
        ck_assert(gpu.enable_quantized_inference);

        /* Absent on the wire: the schema default, and has_ stays false. */
        Tflite__Proto__CPUSettings *c = tflite__proto__cpusettings__unpack(NULL, 0, empty);
        ck_assert_ptr_nonnull(c);
        ck_assert(!c->has_num_threads);
        ck_assert_int_eq(c->num_threads, -1);
        tflite__proto__cpusettings__free_unpacked(c, NULL);

        Tflite__Proto__EdgeTpuSettings *t = tflite__proto__edge_tpu_settings__unpack(NULL, 0, empty);
        ck_assert_ptr_nonnull(t);
        ck_assert(!t->has_inference_priority);
        ck_assert_int_eq(t->inference_priority, -1);
        tflite__proto__edge_tpu_settings__free_unpacked(t, NULL);

        Tflite__Proto__GPUSettings *g = tflite__proto__gpusettings__unpack(NULL, 0, empty);
        ck_assert_ptr_nonnull(g);
        ck_assert(!g->has_enable_quantized_inference);
        ck_assert(g->enable_quantized_inference);
        tflite__proto__gpusettings__free_unpacked(g, NULL);

        /* An explicit false is kept: field 2, varint 0. */
        static const uint8_t gpu_off[] = { 0x10, 0x00 };
        g = tflite__proto__gpusettings__unpack(NULL, sizeof(gpu_off), gpu_off);
        ck_assert_ptr_nonnull(g);
        ck_assert(g->has_enable_quantized_inference);
        ck_assert(!g->enable_quantized_inference);
        tflite__proto__gpusettings__free_unpacked(g, NULL);
}
END_TEST

int main(void) {
        Suite *s = suite_create("proto-benchmark-event");
        TCase *tc = tcase_create("benchmark-event");
        SRunner *sr;
        int failed;

        tcase_add_test(tc, test_benchmark_event_end_decodes);
        tcase_add_test(tc, test_benchmark_event_error_decodes);
        tcase_add_test(tc, test_benchmark_event_truncated_rejected);
        tcase_add_test(tc, test_settings_defaults);
        suite_add_tcase(s, tc);
        sr = srunner_create(s);
        srunner_run_all(sr, CK_NORMAL);
        failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
