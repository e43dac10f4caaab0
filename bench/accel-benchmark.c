/* SPDX-License-Identifier: Apache-2.0 */
/*
 * accel-benchmark: in-process latency benchmark with TFLite
 * benchmark_model's flags:
 *
 *   accel-benchmark --graph=m.tflite [--num_threads=N] [--warmup_runs=N]
 *       [--num_runs=N] [--min_secs=S] [--min_sample_us=US] [--use_xnnpack=true|false]
 *       [--settings=tflite_settings.json] [--enable_op_profiling=true]
 *       [--report_peak_memory_footprint=true]
 *       [--input_layer_value_files=name:file,name:file] [--json]
 *
 * Inputs are filled with a fixed pseudo-random pattern unless a value file
 * is given. Prints init time, first inference, warm-up average and the
 * inference statistics; with --json one object:
 * {"init_us", "first_inference_us", "warmup_avg_us",
 *  "inference_us": {"min", "median", "p90", "max", "avg", "count"},
 *  "peak_memory_kb", "partitions": [{"driver", "nodes"}]}; microseconds
 *  with three decimals, timed in nanoseconds. With --min_sample_us also
 *  "batch" and "cpu_us_per_run", as tflite-native's: a sample is the mean
 *  of "batch" consecutive invokes timed together, so that one lasts at
 *  least US microseconds (bench_batch_size()).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "bench-util.h"
#include "cleanup.h"
#include "rt.h"
#include "settings.h"

typedef struct args {
        const char *graph;
        int32_t num_threads;
        int warmup_runs;
        int num_runs;
        double min_secs;
        double min_sample_us;   /* --min_sample_us: invokes per sample (bench_batch_size()) */
        bool use_xnnpack;
        bool use_xnnpack_set;
        const char *settings;
        bool op_profiling;
        bool peak_memory;
        const char *value_files;
        bool json;
} args_t;

static void usage(FILE *f) {
        fprintf(f, "usage: accel-benchmark --graph=MODEL [--num_threads=N] [--warmup_runs=N] [--num_runs=N]\n"
                   "       [--min_secs=S] [--min_sample_us=US] [--use_xnnpack=BOOL] [--settings=JSON_FILE]\n"
                   "       [--enable_op_profiling=BOOL] [--report_peak_memory_footprint=BOOL]\n"
                   "       [--input_layer_value_files=NAME:FILE,...] [--json]\n");
}

static int invoke_fn(void *it) {
        return rt_interp_invoke(it);
}

static int args_parse(int argc, char **argv, args_t *a) {
        *a = (args_t) { .num_threads = -1, .warmup_runs = 1, .num_runs = 50, .min_secs = 1.0 };
        for (int i = 1; i < argc; i++) {
                const char *s, *v;
                size_t klen;
                if (!bench_flag_split(argv[i], &s, &klen, &v)) {
                        fprintf(stderr, "accel-benchmark: unexpected argument '%s'\n", argv[i]);
                        return -EINVAL;
                }
#define KEY(k) bench_flag_is(s, klen, k)
                if (KEY("help")) {
                        usage(stdout);
                        exit(0);
                } else if (KEY("graph") && v)
                        a->graph = v;
                else if (KEY("num_threads") && v)
                        a->num_threads = atoi(v);
                else if (KEY("warmup_runs") && v)
                        a->warmup_runs = atoi(v);
                else if (KEY("num_runs") && v)
                        a->num_runs = atoi(v);
                else if (KEY("min_secs") && v)
                        a->min_secs = atof(v);
                else if (KEY("min_sample_us") && v)
                        a->min_sample_us = atof(v);
                else if (KEY("use_xnnpack")) {
                        a->use_xnnpack = bench_parse_bool(v);
                        a->use_xnnpack_set = true;
                } else if (KEY("settings") && v)
                        a->settings = v;
                else if (KEY("enable_op_profiling"))
                        a->op_profiling = bench_parse_bool(v);
                else if (KEY("report_peak_memory_footprint"))
                        a->peak_memory = bench_parse_bool(v);
                else if (KEY("input_layer_value_files") && v)
                        a->value_files = v;
                else if (KEY("json"))
                        a->json = bench_parse_bool(v);
                else {
                        fprintf(stderr, "accel-benchmark: unknown or incomplete flag '%s'\n", argv[i]);
                        return -EINVAL;
                }
#undef KEY
        }
        if (!a->graph) {
                usage(stderr);
                return -EINVAL;
        }
        if (a->num_runs < 1 || a->warmup_runs < 0 || a->min_secs < 0 || (a->num_threads < 1 && a->num_threads != -1)) {
                fprintf(stderr, "accel-benchmark: invalid run counts or thread count\n");
                return -EINVAL;
        }
        return 0;
}

/* Fill input i from its value file (name:path) if listed, else a pattern. */
static int input_fill(rt_interp_t *it, int32_t i, const char *files) {
        const rt_tensor_t *t = rt_interp_input_tensor(it, i);
        void *data = rt_interp_input_data(it, i);
        if (!t || !data)
                return -EINVAL;
        if (files) {
                size_t nlen = strlen(t->name);
                for (const char *p = files; p && *p;) {
                        const char *end = strchr(p, ',');
                        size_t len = end ? (size_t) (end - p) : strlen(p);
                        if (len > nlen + 1 && strncmp(p, t->name, nlen) == 0 && p[nlen] == ':') {
                                _cleanup_free_ char *path = strndup(p + nlen + 1, len - nlen - 1);
                                if (!path)
                                        return -ENOMEM;
                                _cleanup_fclose_ FILE *f = fopen(path, "re");
                                if (!f) {
                                        fprintf(stderr, "accel-benchmark: %s: %s\n", path, strerror(errno));
                                        return -errno;
                                }
                                size_t got = fread(data, 1, t->bytes, f);
                                if (got != t->bytes) {
                                        fprintf(stderr, "accel-benchmark: %s: expected %zu bytes for input '%s'\n",
                                                path, t->bytes, t->name);
                                        return -EINVAL;
                                }
                                return 0;
                        }
                        p = end ? end + 1 : NULL;
                }
        }
        uint32_t x = 12345u + (uint32_t) i;
        uint8_t *b = data;
        for (size_t k = 0; k < t->bytes; k++) {
                x = x * 1103515245u + 12345u;
                b[k] = (uint8_t) (x >> 16);
        }
        if (t->type == RT_TYPE_FLOAT32) {
                float *f = data;
                for (size_t k = 0; k < t->bytes / 4; k++) {
                        x = x * 1103515245u + 12345u;
                        f[k] = (float) ((x >> 8) & 0xffff) / 32768.0f - 1.0f;
                }
        } else if (t->type == RT_TYPE_INT32 || t->type == RT_TYPE_INT64) {
                memset(data, 0, t->bytes); /* indices: stay in range */
        }
        return 0;
}

DEFINE_POINTER_CLEANUP(rt_model_t, rt_model_free);
DEFINE_POINTER_CLEANUP(rt_interp_t, rt_interp_free);
DEFINE_POINTER_CLEANUP(rt_interp_options_t, rt_interp_options_free);

int main(int argc, char **argv) {
        args_t a;
        if (args_parse(argc, argv, &a) < 0)
                return 2;
        rt_settings_t s;
        rt_settings_init(&s);
        char err[1024] = "";
        if (a.settings && rt_settings_load_file(a.settings, &s, err, sizeof(err)) < 0) {
                fprintf(stderr, "accel-benchmark: --settings: %s\n", err);
                return 2;
        }
        if (a.use_xnnpack_set) {
                s.delegate = a.use_xnnpack ? RT_DELEGATE_XNNPACK : RT_DELEGATE_NONE;
                if (a.use_xnnpack)
                        snprintf(s.delegate_name, sizeof(s.delegate_name), "XNNPACK");
        }
        if (a.num_threads > 0) {
                s.cpu_num_threads = a.num_threads;
                if (s.delegate == RT_DELEGATE_XNNPACK)
                        s.xnnpack_num_threads = a.num_threads;
        }
        uint64_t t0 = acc_now_us();
        _cleanup_(rt_model_freep) rt_model_t *m = NULL;
        if (rt_model_load_file(a.graph, &m, err, sizeof(err)) < 0) {
                fprintf(stderr, "accel-benchmark: %s: %s\n", a.graph, err);
                rt_settings_done(&s);
                return 1;
        }
        _cleanup_(rt_interp_options_freep) rt_interp_options_t *o = rt_interp_options_new();
        if (!o || rt_interp_options_set_settings(o, &s) < 0 ||
            (a.num_threads > 0 && rt_interp_options_set_num_threads(o, a.num_threads) < 0) ||
            rt_interp_options_enable_profiling(o, a.op_profiling) < 0) {
                fprintf(stderr, "accel-benchmark: out of memory\n");
                rt_settings_done(&s);
                return 1;
        }
        rt_settings_done(&s);
        _cleanup_(rt_interp_freep) rt_interp_t *it = NULL;
        int r = rt_interp_create(m, o, &it, err, sizeof(err));
        if (r < 0) {
                fprintf(stderr, "accel-benchmark: %s\n", err);
                return r == -ENODEV ? 3 : 1;
        }
        if (rt_interp_allocate_tensors(it) < 0) {
                fprintf(stderr, "accel-benchmark: allocate: %s\n", rt_interp_last_error(it));
                return 1;
        }
        for (int32_t i = 0; i < rt_interp_input_count(it); i++)
                if (input_fill(it, i, a.value_files) < 0)
                        return 1;
        uint64_t init_us = acc_now_us() - t0;
        uint64_t t1 = acc_now_us();
        if (rt_interp_invoke(it) < 0) {
                fprintf(stderr, "accel-benchmark: invoke: %s\n", rt_interp_last_error(it));
                return 1;
        }
        uint64_t first_us = acc_now_us() - t1;
        uint64_t warm_total = 0;
        for (int i = 0; i < a.warmup_runs; i++) {
                uint64_t w = acc_now_ns();
                if (rt_interp_invoke(it) < 0) {
                        fprintf(stderr, "accel-benchmark: invoke: %s\n", rt_interp_last_error(it));
                        return 1;
                }
                warm_total += acc_now_ns() - w;
        }
        if (a.op_profiling)
                (void) rt_interp_enable_profiling(it, true);
        const double warm_ns = a.warmup_runs ? (double) warm_total / a.warmup_runs : (double) first_us * 1e3;
        const int batch = bench_batch_size(warm_ns, a.min_sample_us);
        _cleanup_free_ uint64_t *times = NULL;
        size_t n = 0;
        double cpu_per_run;
        if (bench_samples_run(invoke_fn, it, a.num_runs, a.min_secs, batch, &times, &n, &cpu_per_run) < 0 || n == 0) {
                fprintf(stderr, "accel-benchmark: invoke: %s\n", rt_interp_last_error(it));
                return 1;
        }
        bench_stats_t st;
        bench_stats_compute(times, n, &st);
        double warm_avg = a.warmup_runs ? warm_ns / 1e3 : 0.0;
        long peak = bench_peak_kb();
        size_t np = rt_interp_partitions(it, NULL, 0);
        _cleanup_free_ rt_interp_partition_t *parts = calloc(np + 1, sizeof(*parts));
        if (!parts)
                return 1;
        np = rt_interp_partitions(it, parts, np);
        if (a.json) {
                printf("{\"init_us\": %llu, \"first_inference_us\": %llu, \"warmup_avg_us\": %.3f, "
                       "\"inference_us\": ",
                       (unsigned long long) init_us, (unsigned long long) first_us, warm_avg);
                bench_stats_print_us(&st);
                if (a.min_sample_us > 0)
                        printf(", \"batch\": %d, \"cpu_us_per_run\": %.3f", batch, cpu_per_run);
                printf(", \"peak_memory_kb\": %ld, \"partitions\": [", peak);
                for (size_t i = 0; i < np; i++)
                        printf("%s{\"driver\": \"%s\", \"nodes\": %d}", i ? ", " : "", parts[i].driver,
                               parts[i].nodes);
                printf("]}\n");
        } else {
                printf("Graph: [%s]\n", a.graph);
                printf("Partitions:");
                for (size_t i = 0; i < np; i++)
                        printf(" %s(%d)", parts[i].driver, parts[i].nodes);
                printf("\nInitialized in %.3f ms\n", (double) init_us / 1000.0);
                printf("First inference: %llu us\n", (unsigned long long) first_us);
                printf("Warmup (avg): %.1f us over %d runs\n", warm_avg, a.warmup_runs);
                printf("Inference timings in us: count=%zu min=%.3f median=%.3f p90=%.3f max=%.3f avg=%.3f "
                       "(%d invokes per sample)\n",
                       n, (double) st.min / 1e3, (double) st.median / 1e3, (double) st.p90 / 1e3,
                       (double) st.max / 1e3, st.avg / 1e3, batch);
                if (a.peak_memory)
                        printf("Peak memory footprint (KB): %ld\n", peak);
                if (a.op_profiling) {
                        const rt_node_profile_t *p;
                        size_t k = rt_interp_profile(it, &p);
                        printf("Op profile (node, op, avg us):\n");
                        for (size_t i = 0; i < k; i++)
                                printf("  %4d %-24s %10.1f\n", p[i].node, p[i].op_name,
                                       p[i].runs ? (double) p[i].total_us / (double) p[i].runs : 0.0);
                }
        }
        return 0;
}
