/* SPDX-License-Identifier: Apache-2.0 */
/* accelctl bench / events / best / export. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "accelctl-file.h"
#include "file-read.h"
#include "accelctl-bench.h"
#include "cleanup.h"
#include "sha256.h"

#define MAX_LIST 64

static const char bench_usage[] =
        "Usage: accelctl bench MODEL [OPTIONS]\n"
        "Benchmark acceleration settings for MODEL (a .tflite file, or the SHA-256 of a stored model)\n"
        "in child processes of acceld, record every event, and choose the best settings.\n"
        "  --candidate JSON     a setting to try (repeatable; default: generated)\n"
        "  --input FILE         golden input tensor i, raw bytes (repeatable, in order)\n"
        "  --output FILE        golden output tensor i (repeatable; default: from the reference path)\n"
        "  --runs N             inferences per candidate (default 10)\n"
        "  --timeout-ms N       per candidate (default 30000)\n"
        "  --json               machine-readable output\n";

static const char events_usage[] =
        "Usage: accelctl events [--model SHA256|FILE] [--settings KEY] [--type START|END|ERROR|LOGGED]\n"
        "                       [--since US] [--until US] [--limit N] [--json]\n"
        "       accelctl events --evaluations [--model SHA256|FILE] [--limit N] [--json]\n"
        "List recorded benchmark events (times are wall-clock microseconds), or with\n"
        "--evaluations the stored evaluation-stage results (accelctl eval through acceld).\n";

static const char best_usage[] =
        "Usage: accelctl best MODEL [--preference ANY|LOW_LATENCY|LOW_POWER|FORCE_CPU] [--json]\n"
        "Show the settings acceld chose for MODEL (file or SHA-256) and why.\n";

static const char export_usage[] =
        "Usage: accelctl export FILE [--model SHA256|FILE] [--limit N]\n"
        "Write recorded events to FILE as length-delimited tflite.proto.BenchmarkEvent messages\n"
        "(varint length, then the message); acceld logs a LOGGED event for each.\n";

static const char *const event_types[] = { "UNDEFINED_BENCHMARK_EVENT_TYPE", "START", "END", "ERROR", "LOGGED" };
static const char *const stages[] = { "UNKNOWN", "INITIALIZATION", "INFERENCE" };
static const char *const delegates[] = { "NONE", "NNAPI", "GPU", "HEXAGON", "XNNPACK", "EDGETPU", "EDGETPU_CORAL" };
static const char *const preferences[] = { "ANY", "LOW_LATENCY", "LOW_POWER", "FORCE_CPU" };

static const char *name_of(const char *const *names, size_t n, int v) {
        return v >= 0 && (size_t) v < n ? names[v] : "?";
}

static int index_of(const char *const *names, size_t n, const char *s) {
        for (size_t i = 0; i < n; i++)
                if (strcasecmp(names[i], s) == 0)
                        return (int) i;
        return -1;
}

/* Parse --json / --socket among other options; returns 1 when consumed. */
static int common_opt(int argc, char **argv, int *i, accelctl_opts_t *o) {
        const char *a = argv[*i];

        if (strcmp(a, "--json") == 0) {
                o->json = true;
                return 1;
        }
        if (strcmp(a, "--socket") == 0 && *i + 1 < argc) {
                o->socket = argv[++*i];
                return 1;
        }
        if (strncmp(a, "--socket=", 9) == 0) {
                o->socket = a + 9;
                return 1;
        }
        return 0;
}

/* A model argument: a SHA-256, or a file whose SHA-256 is computed here. */
static int model_sha(const char *arg, char sha[ACC_SHA256_HEX_SIZE]) {
        if (acc_sha256_hex_valid(arg) && access(arg, F_OK) < 0) {
                memcpy(sha, arg, ACC_SHA256_HEX_SIZE);
                return 0;
        }
        /* Streamed: a model is hashed without reading it all into memory. */
        _cleanup_close_ int fd = open(arg, O_RDONLY | O_CLOEXEC);
        int r = fd < 0 ? -errno : acc_sha256_fd(fd, UINT64_MAX, sha, NULL);
        if (r < 0)
                fprintf(stderr, "accelctl: %s: %s\n", arg, strerror(-r));
        return r;
}

static json_object *json_settings(const char *text) {
        json_object *o = text && text[0] ? json_tokener_parse(text) : NULL;

        return o ? o : json_object_new_object();
}

static void fmt_us(char *buf, size_t size, int64_t us) {
        if (us < 0)
                (void) snprintf(buf, size, "-");
        else if (us >= 10000)
                (void) snprintf(buf, size, "%.1f ms", (double) us / 1000.0);
        else
                (void) snprintf(buf, size, "%" PRId64 " us", us);
}

static void progress_bar(const accel_bench_progress_t *p) {
        const int width = 30;
        int filled = p->total ? (int) ((uint64_t) p->done * width / p->total) : 0;
        const char *current = "";

        for (size_t i = 0; i < p->n_candidates; i++)
                if (strcmp(p->candidates[i].state, "running") == 0)
                        current = p->candidates[i].label;
        fprintf(stderr, "\r[");
        for (int i = 0; i < width; i++)
                fputc(i < filled ? '#' : '.', stderr);
        fprintf(stderr, "] %u/%u %-32.32s", p->done, p->total, current);
        fflush(stderr);
}

int accelctl_bench(int argc, char **argv, const accelctl_opts_t *global) {
        accelctl_opts_t o = *global;
        const char *model = NULL;
        const char *cands[MAX_LIST];
        void *ins[MAX_LIST] = {}, *outs[MAX_LIST] = {};
        size_t in_sizes[MAX_LIST], out_sizes[MAX_LIST];
        accel_bench_options_t bo = {};
        accel_client_t *c = NULL;
        accel_bench_progress_t *p = NULL;
        _cleanup_close_ int fd = -1;
        uint64_t run;
        int r, rc = 1;

        for (int i = 1; i < argc; i++) {
                const char *a = argv[i];

                if (common_opt(argc, argv, &i, &o))
                        continue;
                if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
                        printf("%s", bench_usage);
                        return 0;
                }
                if (a[0] == '-' && i + 1 >= argc) {
                        fprintf(stderr, "accelctl bench: %s needs a value\n%s", a, bench_usage);
                        return 2;
                }
                if (strcmp(a, "--candidate") == 0 && bo.n_candidates < MAX_LIST)
                        cands[bo.n_candidates++] = argv[++i];
                else if ((strcmp(a, "--input") == 0 && bo.n_inputs < MAX_LIST) ||
                         (strcmp(a, "--output") == 0 && bo.n_outputs < MAX_LIST)) {
                        bool is_in = a[2] == 'i';
                        size_t k = is_in ? bo.n_inputs++ : bo.n_outputs++;

                        r = acc_file_read(argv[++i], is_in ? &ins[k] : &outs[k], is_in ? &in_sizes[k] : &out_sizes[k]);
                        if (r < 0) {
                                fprintf(stderr, "accelctl bench: %s: %s\n", argv[i], strerror(-r));
                                goto out;
                        }
                } else if (strcmp(a, "--runs") == 0)
                        bo.runs = (uint32_t) strtoul(argv[++i], NULL, 10);
                else if (strcmp(a, "--timeout-ms") == 0)
                        bo.timeout_ms = (uint32_t) strtoul(argv[++i], NULL, 10);
                else if (a[0] != '-' && !model)
                        model = a;
                else {
                        fprintf(stderr, "accelctl bench: unexpected argument '%s'\n%s", a, bench_usage);
                        return 2;
                }
        }
        if (!model) {
                fprintf(stderr, "%s", bench_usage);
                return 2;
        }
        bo.candidates_json = cands;
        bo.inputs = (const void *const *) ins;
        bo.input_sizes = in_sizes;
        bo.outputs = (const void *const *) outs;
        bo.output_sizes = out_sizes;
        if (!(acc_sha256_hex_valid(model) && access(model, F_OK) < 0)) {
                fd = open(model, O_RDONLY | O_CLOEXEC);
                if (fd < 0) {
                        fprintf(stderr, "accelctl bench: %s: %s\n", model, strerror(errno));
                        goto out;
                }
        }
        if (accelctl_connect(&o, &c) < 0)
                goto out;
        r = accel_bench_start(c, fd, fd < 0 ? model : NULL, &bo, &run);
        if (r < 0) {
                fprintf(stderr, "accelctl bench: %s\n", accel_last_error());
                goto out;
        }
        for (;;) {
                p = accel_bench_progress_free(p);
                r = accel_bench_progress(c, run, &p);
                if (r < 0) {
                        fprintf(stderr, "\naccelctl bench: %s\n", accel_last_error());
                        goto out;
                }
                if (!o.json && isatty(STDERR_FILENO))
                        progress_bar(p);
                if (p->finished)
                        break;
                (void) nanosleep(&(struct timespec) { .tv_nsec = 200 * 1000 * 1000 }, NULL);
        }
        if (!o.json && isatty(STDERR_FILENO))
                fprintf(stderr, "\n");
        if (p->message[0] && p->n_candidates == 0) {
                fprintf(stderr, "accelctl bench: %s\n", p->message);
                goto out;
        }
        if (o.json) {
                json_object *root = json_object_new_object(), *arr = json_object_new_array();

                json_object_object_add(root, "model_sha256", json_object_new_string(p->model_sha256));
                for (size_t i = 0; i < p->n_candidates; i++) {
                        const accel_bench_candidate_t *x = &p->candidates[i];
                        json_object *e = json_object_new_object();

                        json_object_object_add(e, "settings", json_settings(x->settings_json));
                        json_object_object_add(e, "ok", json_object_new_boolean(x->ok == 1));
                        json_object_object_add(e, "median_us",
                                               x->median_us >= 0 ? json_object_new_int64(x->median_us) : NULL);
                        json_object_object_add(e, "p90_us", x->p90_us >= 0 ? json_object_new_int64(x->p90_us) : NULL);
                        json_object_object_add(e, "init_us",
                                               x->init_us >= 0 ? json_object_new_int64(x->init_us) : NULL);
                        json_object_object_add(e, "max_memory_kb",
                                               x->max_memory_kb >= 0 ? json_object_new_int(x->max_memory_kb) : NULL);
                        json_object_object_add(e, "error", x->error[0] ? json_object_new_string(x->error) : NULL);
                        json_object_array_add(arr, e);
                }
                json_object_object_add(root, "candidates", arr);
                json_object_object_add(root, "best",
                                       p->best_label[0] ? json_settings(p->best_settings_json) : NULL);
                (void) accelctl_json_print(root);
        } else {
                static const char *const header[] = { "SETTING", "OK", "MEDIAN", "P90", "INIT", "MEMORY", "ERROR" };
                accelctl_table_t t;

                printf("model %s\n", p->model_sha256);
                accelctl_table_init(&t, 7, header);
                for (size_t i = 0; i < p->n_candidates; i++) {
                        const accel_bench_candidate_t *x = &p->candidates[i];
                        char med[32], p90[32], init[32], mem[32];
                        const char *cells[7];

                        fmt_us(med, sizeof(med), x->median_us);
                        fmt_us(p90, sizeof(p90), x->p90_us);
                        fmt_us(init, sizeof(init), x->init_us);
                        if (x->max_memory_kb >= 0)
                                (void) accelctl_format_bytes((unsigned long long) x->max_memory_kb * 1024, mem,
                                                             sizeof(mem));
                        else
                                (void) snprintf(mem, sizeof(mem), "-");
                        cells[0] = x->label;
                        cells[1] = x->ok == 1 ? "yes" : x->ok == 0 ? "no" : "-";
                        cells[2] = med;
                        cells[3] = p90;
                        cells[4] = init;
                        cells[5] = mem;
                        cells[6] = x->error[0] ? x->error : "";
                        (void) accelctl_table_add(&t, cells);
                }
                accelctl_table_print(&t, stdout);
                accelctl_table_done(&t);
                if (p->best_label[0])
                        printf("best (LOW_LATENCY): %s  %s\n", p->best_label, p->best_settings_json);
                else
                        printf("best: none (no setting gave correct results)\n");
        }
        rc = 0;
out:
        (void) accel_bench_progress_free(p);
        (void) accel_disconnect(c);
        for (size_t i = 0; i < MAX_LIST; i++) {
                free(ins[i]);
                free(outs[i]);
        }
        return rc;
}

static json_object *event_json(const accel_bench_event_t *e) {
        json_object *o = json_object_new_object();

        json_object_object_add(o, "id", json_object_new_int64(e->id));
        json_object_object_add(o, "model_sha256", json_object_new_string(e->model_sha256));
        json_object_object_add(o, "settings_key", json_object_new_string(e->settings_key));
        json_object_object_add(o, "tflite_settings", json_settings(e->settings_json));
        json_object_object_add(o, "event_type",
                               json_object_new_string(name_of(event_types, ELEMENTSOF(event_types), e->event_type)));
        if (e->has_result) {
                json_object *r = json_object_new_object(), *a;

                a = json_object_new_array();
                for (size_t k = 0; k < e->n_initialization_time_us; k++)
                        json_object_array_add(a, json_object_new_int64(e->initialization_time_us[k]));
                json_object_object_add(r, "initialization_time_us", a);
                a = json_object_new_array();
                for (size_t k = 0; k < e->n_inference_time_us; k++)
                        json_object_array_add(a, json_object_new_int64(e->inference_time_us[k]));
                json_object_object_add(r, "inference_time_us", a);
                if (e->has_max_memory_kb)
                        json_object_object_add(r, "max_memory_kb", json_object_new_int(e->max_memory_kb));
                if (e->has_ok)
                        json_object_object_add(r, "ok", json_object_new_boolean(e->ok));
                a = json_object_new_array();
                for (size_t k = 0; k < e->n_metrics; k++) {
                        json_object *m = json_object_new_object(), *vals = json_object_new_array();

                        json_object_object_add(m, "name", json_object_new_string(e->metrics[k].name));
                        for (size_t j = 0; j < e->metrics[k].n_values; j++)
                                json_object_array_add(vals, json_object_new_double(e->metrics[k].values[j]));
                        json_object_object_add(m, "values", vals);
                        json_object_array_add(a, m);
                }
                json_object_object_add(r, "metrics", a);
                json_object_object_add(o, "result", r);
        }
        if (e->has_error) {
                json_object *r = json_object_new_object(), *a = json_object_new_array();

                if (e->has_stage)
                        json_object_object_add(r, "stage",
                                               json_object_new_string(name_of(stages, ELEMENTSOF(stages), e->stage)));
                if (e->has_exit_code)
                        json_object_object_add(r, "exit_code", json_object_new_int(e->exit_code));
                if (e->has_signal)
                        json_object_object_add(r, "signal", json_object_new_int(e->signal));
                for (size_t k = 0; k < e->n_error_codes; k++) {
                        json_object *x = json_object_new_object();

                        json_object_object_add(
                                x, "source",
                                json_object_new_string(name_of(delegates, ELEMENTSOF(delegates), e->error_codes[k].source)));
                        json_object_object_add(x, "tflite_error", json_object_new_int(e->error_codes[k].tflite_error));
                        json_object_object_add(x, "underlying_api_error",
                                               json_object_new_int64(e->error_codes[k].underlying_api_error));
                        json_object_array_add(a, x);
                }
                json_object_object_add(r, "error_code", a);
                json_object_object_add(o, "error", r);
        }
        if (e->has_boottime_us)
                json_object_object_add(o, "boottime_us", json_object_new_int64(e->boottime_us));
        if (e->has_wallclock_us)
                json_object_object_add(o, "wallclock_us", json_object_new_int64(e->wallclock_us));
        return o;
}

static int64_t median_of(const accel_bench_event_t *e) {
        int64_t *t;
        size_t n = e->n_inference_time_us;
        int64_t m;

        if (n == 0)
                return -1;
        t = malloc(n * sizeof(*t));
        if (!t)
                return -1;
        memcpy(t, e->inference_time_us, n * sizeof(*t));
        for (size_t i = 1; i < n; i++)
                for (size_t j = i; j > 0 && t[j - 1] > t[j]; j--) {
                        int64_t x = t[j];
                        t[j] = t[j - 1];
                        t[j - 1] = x;
                }
        m = n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
        free(t);
        return m;
}

static json_object *evaluation_json(const accel_evaluation_t *e) {
        json_object *o = json_object_new_object();
        json_object *m = json_tokener_parse(e->metrics_json);

        json_object_object_add(o, "id", json_object_new_int64(e->id));
        json_object_object_add(o, "model_sha256", json_object_new_string(e->model_sha256));
        json_object_object_add(o, "settings_key", json_object_new_string(e->settings_key));
        json_object_object_add(o, "stage", json_object_new_string(e->stage));
        json_object_object_add(o, "source", json_object_new_string(e->source));
        if (e->has_accuracy)
                json_object_object_add(o, "accuracy", json_object_new_double(e->accuracy));
        json_object_object_add(o, "samples", json_object_new_int64(e->samples));
        json_object_object_add(o, "wallclock_us", json_object_new_int64(e->wallclock_us));
        if (e->has_uid)
                json_object_object_add(o, "uid", json_object_new_int64(e->uid));
        json_object_object_add(o, "metrics", m ? m : json_object_new_object());
        return o;
}

/* accelctl events --evaluations: the Evaluate results. */
static int evaluations_list(accel_client_t *c, const accelctl_opts_t *o, const char *model_sha256, uint32_t limit) {
        accel_evaluation_t *v = NULL;
        size_t n = 0;
        int r = accel_evaluations(c, model_sha256, limit, &v, &n);

        if (r < 0) {
                fprintf(stderr, "accelctl events: %s\n", accel_last_error());
                return 1;
        }
        if (o->json) {
                json_object *arr = json_object_new_array();

                for (size_t i = 0; i < n; i++)
                        json_object_array_add(arr, evaluation_json(&v[i]));
                (void) accelctl_json_print(arr);
        } else {
                static const char *const header[] = { "ID", "TIME (UTC)", "MODEL", "STAGE", "SOURCE", "FIGURE",
                                                      "SAMPLES", "SETTINGS" };
                accelctl_table_t t;

                accelctl_table_init(&t, 8, header);
                for (size_t i = 0; i < n; i++) {
                        const accel_evaluation_t *e = &v[i];
                        char id[24], wc[32] = "-", model[16], fig[32] = "-", samples[24];
                        time_t sec = (time_t) (e->wallclock_us / 1000000);
                        struct tm tm;

                        (void) snprintf(id, sizeof(id), "%" PRId64, e->id);
                        if (gmtime_r(&sec, &tm))
                                (void) strftime(wc, sizeof(wc), "%Y-%m-%d %H:%M:%S", &tm);
                        (void) snprintf(model, sizeof(model), "%.12s", e->model_sha256);
                        if (e->has_accuracy)
                                (void) snprintf(fig, sizeof(fig), "%.6g", e->accuracy);
                        (void) snprintf(samples, sizeof(samples), "%" PRId64, e->samples);
                        (void) accelctl_table_add(&t, (const char *const[]) { id, wc, model, e->stage, e->source, fig,
                                                                              samples, e->settings_key });
                }
                accelctl_table_print(&t, stdout);
                accelctl_table_done(&t);
                if (n == 0)
                        printf("(no evaluations recorded)\n");
        }
        accel_evaluations_free(v, n);
        return 0;
}

int accelctl_events(int argc, char **argv, const accelctl_opts_t *global) {
        accelctl_opts_t o = *global;
        accel_bench_event_filter_t f = {};
        bool evaluations = false;
        char sha[ACC_SHA256_HEX_SIZE];
        accel_client_t *c = NULL;
        accel_bench_event_t *v = NULL;
        size_t n = 0;
        int r;

        for (int i = 1; i < argc; i++) {
                const char *a = argv[i];

                if (common_opt(argc, argv, &i, &o))
                        continue;
                if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
                        printf("%s", events_usage);
                        return 0;
                }
                if (strcmp(a, "--evaluations") == 0) {
                        evaluations = true;
                        continue;
                }
                if (i + 1 >= argc) {
                        fprintf(stderr, "accelctl events: unexpected argument '%s'\n%s", a, events_usage);
                        return 2;
                }
                if (strcmp(a, "--model") == 0) {
                        if (model_sha(argv[++i], sha) < 0)
                                return 1;
                        f.model_sha256 = sha;
                } else if (strcmp(a, "--settings") == 0)
                        f.settings_key = argv[++i];
                else if (strcmp(a, "--type") == 0) {
                        f.event_type = index_of(event_types, ELEMENTSOF(event_types), argv[++i]);
                        if (f.event_type <= 0) {
                                fprintf(stderr, "accelctl events: unknown event type '%s'\n", argv[i]);
                                return 2;
                        }
                } else if (strcmp(a, "--since") == 0) {
                        f.has_from = true;
                        f.from_us = strtoll(argv[++i], NULL, 10);
                } else if (strcmp(a, "--until") == 0) {
                        f.has_to = true;
                        f.to_us = strtoll(argv[++i], NULL, 10);
                } else if (strcmp(a, "--limit") == 0)
                        f.limit = (uint32_t) strtoul(argv[++i], NULL, 10);
                else {
                        fprintf(stderr, "accelctl events: unexpected argument '%s'\n%s", a, events_usage);
                        return 2;
                }
        }
        if (accelctl_connect(&o, &c) < 0)
                return 1;
        if (evaluations) {
                r = evaluations_list(c, &o, f.model_sha256, f.limit);
                (void) accel_disconnect(c);
                return r;
        }
        r = accel_bench_events(c, &f, &v, &n);
        if (r < 0) {
                fprintf(stderr, "accelctl events: %s\n", accel_last_error());
                (void) accel_disconnect(c);
                return 1;
        }
        if (o.json) {
                json_object *arr = json_object_new_array();

                for (size_t i = 0; i < n; i++)
                        json_object_array_add(arr, event_json(&v[i]));
                (void) accelctl_json_print(arr);
        } else {
                static const char *const header[] = { "ID", "TIME (UTC)", "MODEL", "TYPE", "OK", "MEDIAN", "DETAIL", "SETTINGS" };
                accelctl_table_t t;

                accelctl_table_init(&t, 8, header);
                for (size_t i = 0; i < n; i++) {
                        const accel_bench_event_t *e = &v[i];
                        char id[24], wc[32], model[16], med[32], detail[96];
                        const char *cells[8];

                        (void) snprintf(id, sizeof(id), "%" PRId64, e->id);
                        {
                                time_t sec = (time_t) (e->wallclock_us / 1000000);
                                struct tm tm;

                                if (e->has_wallclock_us && gmtime_r(&sec, &tm))
                                        (void) strftime(wc, sizeof(wc), "%Y-%m-%d %H:%M:%S", &tm);
                                else
                                        (void) snprintf(wc, sizeof(wc), "-");
                        }
                        (void) snprintf(model, sizeof(model), "%.12s", e->model_sha256);
                        fmt_us(med, sizeof(med), e->has_result ? median_of(e) : -1);
                        detail[0] = 0;
                        if (e->has_error)
                                (void) snprintf(detail, sizeof(detail), "stage=%s exit=%d signal=%d",
                                                name_of(stages, ELEMENTSOF(stages), e->stage),
                                                e->has_exit_code ? e->exit_code : -1, e->has_signal ? e->signal : 0);
                        cells[0] = id;
                        cells[1] = wc;
                        cells[2] = model;
                        cells[3] = name_of(event_types, ELEMENTSOF(event_types), e->event_type);
                        cells[4] = e->has_ok ? (e->ok ? "yes" : "no") : "-";
                        cells[5] = med;
                        cells[6] = detail;
                        cells[7] = e->settings_json;
                        (void) accelctl_table_add(&t, cells);
                }
                accelctl_table_print(&t, stdout);
                accelctl_table_done(&t);
        }
        accel_bench_events_free(v, n);
        (void) accel_disconnect(c);
        return 0;
}

int accelctl_best(int argc, char **argv, const accelctl_opts_t *global) {
        accelctl_opts_t o = *global;
        const char *model = NULL;
        char sha[ACC_SHA256_HEX_SIZE];
        int pref = 0;
        accel_client_t *c = NULL;
        accel_bench_best_t *b = NULL;
        int r;

        for (int i = 1; i < argc; i++) {
                const char *a = argv[i];

                if (common_opt(argc, argv, &i, &o))
                        continue;
                if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
                        printf("%s", best_usage);
                        return 0;
                }
                if (strcmp(a, "--preference") == 0 && i + 1 < argc) {
                        pref = index_of(preferences, ELEMENTSOF(preferences), argv[++i]);
                        if (pref < 0) {
                                fprintf(stderr, "accelctl best: unknown preference '%s'\n%s", argv[i], best_usage);
                                return 2;
                        }
                } else if (a[0] != '-' && !model)
                        model = a;
                else {
                        fprintf(stderr, "accelctl best: unexpected argument '%s'\n%s", a, best_usage);
                        return 2;
                }
        }
        if (!model) {
                fprintf(stderr, "%s", best_usage);
                return 2;
        }
        if (model_sha(model, sha) < 0)
                return 1;
        if (accelctl_connect(&o, &c) < 0)
                return 1;
        r = accel_bench_best(c, sha, pref, &b);
        if (r < 0) {
                fprintf(stderr, "accelctl best: %s\n", accel_last_error());
                (void) accel_disconnect(c);
                return 1;
        }
        if (o.json) {
                json_object *root = json_object_new_object();

                json_object_object_add(root, "settings", json_settings(b->settings_json));
                json_object_object_add(root, "reason", json_object_new_string(b->reason));
                (void) accelctl_json_print(root);
        } else {
                printf("model:      %s\n", sha);
                printf("preference: %s\n", preferences[pref]);
                printf("best:       %s\n", b->label);
                printf("settings:   %s\n", b->settings_json);
                printf("reason:     %s\n", b->reason);
        }
        (void) accel_bench_best_free(b);
        (void) accel_disconnect(c);
        return 0;
}

int accelctl_export(int argc, char **argv, const accelctl_opts_t *global) {
        accelctl_opts_t o = *global;
        const char *path = NULL, *model = NULL;
        char sha[ACC_SHA256_HEX_SIZE];
        uint32_t limit = 0;
        accel_client_t *c = NULL;
        uint8_t **v = NULL;
        size_t *sizes = NULL, n = 0;
        FILE *f;
        int r, rc = 1;

        for (int i = 1; i < argc; i++) {
                const char *a = argv[i];

                if (common_opt(argc, argv, &i, &o))
                        continue;
                if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
                        printf("%s", export_usage);
                        return 0;
                }
                if (strcmp(a, "--model") == 0 && i + 1 < argc)
                        model = argv[++i];
                else if (strcmp(a, "--limit") == 0 && i + 1 < argc)
                        limit = (uint32_t) strtoul(argv[++i], NULL, 10);
                else if (a[0] != '-' && !path)
                        path = a;
                else {
                        fprintf(stderr, "accelctl export: unexpected argument '%s'\n%s", a, export_usage);
                        return 2;
                }
        }
        if (!path) {
                fprintf(stderr, "%s", export_usage);
                return 2;
        }
        if (model && model_sha(model, sha) < 0)
                return 1;
        if (accelctl_connect(&o, &c) < 0)
                return 1;
        r = accel_bench_export(c, model ? sha : NULL, limit, &v, &sizes, &n);
        if (r < 0) {
                fprintf(stderr, "accelctl export: %s\n", accel_last_error());
                goto out;
        }
        f = fopen(path, "we");
        if (!f) {
                fprintf(stderr, "accelctl export: %s: %s\n", path, strerror(errno));
                goto out;
        }
        for (size_t i = 0; i < n; i++) {
                uint8_t hdr[10];
                size_t k = 0;
                uint64_t len = sizes[i];

                do {
                        hdr[k] = (uint8_t) (len & 0x7f);
                        len >>= 7;
                        if (len)
                                hdr[k] |= 0x80;
                        k++;
                } while (len);
                (void) fwrite(hdr, 1, k, f);
                (void) fwrite(v[i], 1, sizes[i], f);
        }
        if (fclose(f) != 0) {
                fprintf(stderr, "accelctl export: %s: %s\n", path, strerror(errno));
                goto out;
        }
        if (o.json) {
                json_object *root = json_object_new_object();

                json_object_object_add(root, "file", json_object_new_string(path));
                json_object_object_add(root, "events", json_object_new_int64((int64_t) n));
                (void) accelctl_json_print(root);
        } else
                printf("%zu event(s) written to %s\n", n, path);
        rc = 0;
out:
        accel_bench_export_free(v, sizes, n);
        (void) accel_disconnect(c);
        return rc;
}
