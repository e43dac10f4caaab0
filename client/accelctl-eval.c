/* SPDX-License-Identifier: Apache-2.0 */
/*
 * accelctl eval diff | topk | detection: TensorFlow Lite's evaluation
 * stages (runtime/eval/). The model runs through acceld by
 * default (libaccel's interpreter, so the daemon's instance is what is
 * measured) or in-process with --local. Progress goes to stderr when it is
 * a terminal, a table to stdout, or with --json the seed's ProcessMetrics
 * in proto3 JSON.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "accelctl-file.h"
#include "file-read.h"
#include "accelctl.h"
#include "cleanup.h"
#include "eval.h"

static const char eval_usage[] =
        "Usage: accelctl eval diff MODEL --settings JSON|FILE [--runs N] [--seed S]\n"
        "       accelctl eval topk MODEL --images DIR --ground-truth FILE [--labels FILE] [--k N]\n"
        "       accelctl eval detection MODEL --images DIR --ground-truth FILE\n"
        "                  [--class-offset N] [--num-classes N] [--iou-thresholds T,T,...]\n"
        "Common options: [--local] [--settings JSON|FILE] [--preprocessing JSON|FILE] [--json]\n"
        "\n"
        "TensorFlow Lite's evaluation stages, on acceld (default) or in-process (--local):\n"
        "  diff       inference-diff: the reference CPU path ({\"delegate\":\"NONE\"}) and\n"
        "             --settings on the same random inputs (--seed, default 1) for --runs\n"
        "             runs (default 50): latencies and per-output mean absolute differences\n"
        "  topk       image classification: images (.jpg/.jpeg/.png) of DIR in file-name\n"
        "             order, FILE with one ground-truth label per image in that order,\n"
        "             labels one per line (default: the model's TFLite Metadata), top-K\n"
        "             accuracy for K = 1..--k (default 5)\n"
        "  detection  object detection (TFLite_Detection_PostProcess outputs): ground\n"
        "             truth as ObjectDetectionGroundTruth JSON (proto field names), COCO\n"
        "             average precision at IoU 0.5:0.05:0.95 (or --iou-thresholds),\n"
        "             predicted class = output class + --class-offset (default 1)\n"
        "  --settings      TFLiteSettings for the model (diff: the test setting)\n"
        "  --preprocessing ImagePreprocessingParams as JSON (proto field names); default:\n"
        "                  centre crop 0.875 (topk only), bilinear resize to the input,\n"
        "                  normalisation for the input's type and quantization\n"
        "  --json          the seed's ProcessMetrics as proto3 JSON\n"
        "Through acceld, diff runs in the daemon and every result is stored there\n"
        "(accelctl events --evaluations lists them; selection uses top-1 and mAP).\n";

typedef struct eval_args {
        const char *cmd, *model, *settings, *images, *ground_truth, *labels, *preprocessing, *iou;
        long runs, k, class_offset, num_classes;
        unsigned long long seed;
        bool local, json;
        const char *socket;
} eval_args_t;

/* ---- acceld behind eval_runner_t (libaccel's interpreter) ---- */

typedef struct daemon_runner {
        eval_runner_t base;
        accel_model_t *model;
        accel_interp_t *it;
        char err[512];
} daemon_runner_t;

static int32_t daemon_input_count(eval_runner_t *r) {
        return accel_interp_input_count(((daemon_runner_t *) r)->it);
}

static int32_t daemon_output_count(eval_runner_t *r) {
        return accel_interp_output_count(((daemon_runner_t *) r)->it);
}

static int tensor_fill(const accel_tensor_t *t, eval_tensor_t *ret) {
        if (!t || !accel_tensor_data(t))
                return -EINVAL;
        *ret = (eval_tensor_t) {
                .type = (int32_t) accel_tensor_type(t),
                .rank = accel_tensor_num_dims(t),
                .scale = accel_tensor_scale(t),
                .zero_point = accel_tensor_zero_point(t),
                .bytes = accel_tensor_byte_size(t),
                .data = accel_tensor_data(t),
                .name = accel_tensor_name(t) ? accel_tensor_name(t) : "",
        };
        if (ret->rank > EVAL_MAX_RANK)
                ret->rank = EVAL_MAX_RANK;
        for (int32_t d = 0; d < ret->rank; d++)
                ret->dims[d] = accel_tensor_dim(t, d);
        return 0;
}

static int daemon_input(eval_runner_t *r, int32_t i, eval_tensor_t *ret) {
        return tensor_fill(accel_interp_input_tensor(((daemon_runner_t *) r)->it, i), ret);
}

static int daemon_output(eval_runner_t *r, int32_t i, eval_tensor_t *ret) {
        return tensor_fill(accel_interp_output_tensor(((daemon_runner_t *) r)->it, i), ret);
}

static int daemon_invoke(eval_runner_t *r) {
        daemon_runner_t *d = (daemon_runner_t *) r;
        int rc = accel_interp_invoke(d->it);

        if (rc < 0)
                snprintf(d->err, sizeof(d->err), "%s", accel_last_error());
        return rc;
}

static const char *daemon_last_error(eval_runner_t *r) {
        return ((daemon_runner_t *) r)->err;
}

static void daemon_free(eval_runner_t *r) {
        daemon_runner_t *d = (daemon_runner_t *) r;

        accel_interp_delete(d->it);
        accel_model_delete(d->model);
        free(d);
}

static const eval_runner_ops_t daemon_ops = {
        .input_count = daemon_input_count,
        .output_count = daemon_output_count,
        .input = daemon_input,
        .output = daemon_output,
        .invoke = daemon_invoke,
        .last_error = daemon_last_error,
        .free = daemon_free,
};

DEFINE_POINTER_CLEANUP(accel_interp_options_t, accel_interp_options_delete);

static int daemon_runner_new(const char *model, const char *settings_json, const char *socket,
                             eval_runner_t **ret, char *err, size_t err_size) {
        daemon_runner_t *d = calloc(1, sizeof(*d));
        _cleanup_(accel_interp_options_deletep) accel_interp_options_t *o = accel_interp_options_create();
        int r;

        if (!d || !o) {
                free(d);
                return -ENOMEM;
        }
        d->base.ops = &daemon_ops;
        if (socket)
                (void) accel_interp_options_set_socket(o, socket);
        if (settings_json && (r = accel_interp_options_set_settings_json(o, settings_json)) < 0) {
                snprintf(err, err_size, "--settings: %s", accel_last_error());
                free(d);
                return r;
        }
        r = accel_model_create_from_file(model, &d->model);
        if (r >= 0)
                r = accel_interp_create(d->model, o, &d->it);
        if (r >= 0)
                r = accel_interp_allocate_tensors(d->it);
        if (r < 0) {
                snprintf(err, err_size, "%s: %s", model, accel_last_error());
                daemon_free(&d->base);
                return r;
        }
        const char *drivers[4];
        int32_t nodes[4];
        size_t n = accel_interp_partitions(d->it, drivers, nodes, 4);
        size_t o_len = (size_t) snprintf(d->base.description, sizeof(d->base.description), "acceld");
        for (size_t i = 0; i < n && i < 4 && o_len < sizeof(d->base.description); i++)
                o_len += (size_t) snprintf(d->base.description + o_len, sizeof(d->base.description) - o_len,
                                           "%s%s %d node%s", i ? ", " : ", ", drivers[i], nodes[i],
                                           nodes[i] == 1 ? "" : "s");
        *ret = &d->base;
        return 0;
}

/* ---- shared helpers ---- */

static void runner_freep(eval_runner_t **r) {
        eval_runner_free(*r);
}

/* JSON text, or a file holding it, into a string owned by *ret_owned. */
static int text_or_file(const char *what, const char *arg, const char **ret, char **ret_owned) {
        void *data = NULL;
        size_t size;
        int r;

        *ret_owned = NULL;
        if (!arg || arg[0] == '{') {
                *ret = arg;
                return 0;
        }
        r = acc_file_read(arg, &data, &size);
        if (r < 0) {
                fprintf(stderr, "accelctl eval: %s: '%s' is neither JSON nor a readable file: %s\n", what, arg,
                        strerror(-r));
                return r;
        }
        *ret = *ret_owned = data;
        return 0;
}

static int runner_open(const eval_args_t *a, const char *settings_json, eval_runner_t **ret) {
        char err[1024] = "";
        int r = a->local ? eval_runner_local_new(a->model, settings_json, ret, err, sizeof(err))
                         : daemon_runner_new(a->model, settings_json, a->socket, ret, err, sizeof(err));

        if (r < 0) {
                fprintf(stderr, "accelctl eval %s: %s\n", a->cmd, err[0] ? err : strerror(-r));
                if (!a->local && (r == -ENOENT || r == -ECONNREFUSED) && strstr(err, "connect"))
                        fprintf(stderr, "accelctl: is acceld running? --local runs in-process instead\n");
        }
        return r;
}

/* A progress bar on stderr, only for a terminal (logs and --json stay
 * clean). */
static void progress_draw(size_t done, size_t total, const char *what) {
        static const int width = 30;
        int fill = total ? (int) (done * width / total) : width;

        if (!isatty(STDERR_FILENO))
                return;
        fprintf(stderr, "\r[%.*s%*s] %zu/%zu %-32.32s", fill, "##############################", width - fill, "",
                done, total, what ? what : "");
        if (done == total)
                fprintf(stderr, "\r%*s\r", width + 48, "");
        fflush(stderr);
}

static void progress_runs(void *user, size_t done, size_t total) {
        progress_draw(done, total, "runs");
}

static void latency_row(accelctl_table_t *t, const char *name, const eval_latency_metrics_t *m) {
        char avg[32], min[32], max[32], std[32], sum[32];

        snprintf(avg, sizeof(avg), "%.1f", m->avg_us);
        snprintf(min, sizeof(min), "%lld", (long long) m->min_us);
        snprintf(max, sizeof(max), "%lld", (long long) m->max_us);
        snprintf(std, sizeof(std), "%lld", (long long) m->std_deviation_us);
        snprintf(sum, sizeof(sum), "%lld", (long long) m->sum_us);
        (void) accelctl_table_add(t, (const char *const[]) { name, avg, min, max, std, sum });
}

static void latency_table_print(const char *const *names, const eval_latency_metrics_t *const *m, size_t n) {
        accelctl_table_t t;

        accelctl_table_init(&t, 6, (const char *const[]) { "latency (us)", "avg", "min", "max", "std", "sum" });
        for (size_t i = 0; i < n; i++)
                latency_row(&t, names[i], m[i]);
        accelctl_table_print(&t, stdout);
        accelctl_table_done(&t);
}

static int print_json(json_object *o) {
        if (!o) {
                fprintf(stderr, "accelctl eval: out of memory\n");
                return 1;
        }
        return accelctl_json_print(o) < 0;
}

static void json_object_putp(json_object **o) {
        json_object_put(*o);
}

/* ---- results recorded by acceld (not with --local) ---- */

static accel_interp_t *daemon_interp(eval_runner_t *r) {
        return r && r->ops == &daemon_ops ? ((daemon_runner_t *) r)->it : NULL;
}

/* Record a client-computed stage through the Evaluate request, so that
 * acceld stores it (accelctl events --evaluations) and selection can use
 * it. A failure to record is a warning: the result stands. */
static void record_result(const eval_args_t *a, eval_runner_t *r, accel_eval_stage_t stage, json_object *metrics,
                          double figure, size_t samples) {
        accel_interp_t *it = daemon_interp(r);
        accel_evaluation_t *e = NULL;
        const char *text;

        if (a->local || !it || !metrics)
                return;
        text = json_object_to_json_string_ext(metrics, JSON_C_TO_STRING_PLAIN);
        if (accel_interp_evaluation_record(it, stage, text, true, figure, (uint32_t) samples, &e) < 0) {
                fprintf(stderr, "accelctl eval %s: the result was not recorded: %s\n", a->cmd, accel_last_error());
                return;
        }
        if (!a->json)
                printf("\nrecorded by acceld as evaluation %lld (settings %s)\n", (long long) e->id, e->settings_key);
        accel_evaluation_free(e);
}

static json_object *json_path(json_object *o, const char *a, const char *b) {
        json_object *x = NULL, *y = NULL;

        if (!json_object_object_get_ex(o, a, &x))
                return NULL;
        if (!b)
                return x;
        return json_object_object_get_ex(x, b, &y) ? y : NULL;
}

/* The seed's LatencyMetrics from proto3 JSON (int64 as decimal strings). */
static void latency_from_json(json_object *o, eval_latency_metrics_t *ret) {
        *ret = (eval_latency_metrics_t) {
                .last_us = json_object_get_int64(json_path(o, "lastUs", NULL)),
                .max_us = json_object_get_int64(json_path(o, "maxUs", NULL)),
                .min_us = json_object_get_int64(json_path(o, "minUs", NULL)),
                .sum_us = json_object_get_int64(json_path(o, "sumUs", NULL)),
                .avg_us = json_object_get_double(json_path(o, "avgUs", NULL)),
                .std_deviation_us = json_object_get_int64(json_path(o, "stdDeviationUs", NULL)),
        };
}

/* The diff through acceld: acceld runs both paths on its worker (the
 * instance these settings get, against its reference kernels) and stores
 * the result; the client only prints it. */
static int eval_diff_daemon(const eval_args_t *a, const char *settings) {
        _cleanup_(runner_freep) eval_runner_t *test = NULL;
        accel_evaluation_t *e = NULL;
        json_object *root, *ipm;
        int r;

        if (runner_open(a, settings, &test) < 0)
                return 1;
        r = accel_interp_evaluate_diff(daemon_interp(test), (uint32_t) a->runs, a->seed, &e);
        if (r < 0) {
                fprintf(stderr, "accelctl eval diff: %s\n", accel_last_error());
                return 1;
        }
        root = json_tokener_parse(e->metrics_json);
        ipm = json_path(root, "inferenceProfilerMetrics", NULL);
        if (!ipm) {
                fprintf(stderr, "accelctl eval diff: acceld sent metrics without inferenceProfilerMetrics\n");
                json_object_put(root);
                accel_evaluation_free(e);
                return 1;
        }
        if (a->json) {
                r = print_json(json_object_get(root));
                json_object_put(root);
                accel_evaluation_free(e);
                return r;
        }
        eval_latency_metrics_t ref_lat, test_lat;
        latency_from_json(json_path(ipm, "referenceLatency", NULL), &ref_lat);
        latency_from_json(json_path(ipm, "testLatency", NULL), &test_lat);
        printf("model      %s\nreference  acceld, reference kernels\ntest       %s (%s)\n"
               "runs       %lld, random inputs from seed %llu, computed by acceld\n\n",
               a->model, test->description, settings, (long long) e->samples, a->seed);
        latency_table_print((const char *const[]) { "reference", "test" },
                            (const eval_latency_metrics_t *const[]) { &ref_lat, &test_lat }, 2);
        printf("\n");
        accelctl_table_t t;
        json_object *errs = json_path(ipm, "outputErrors", NULL);
        accelctl_table_init(&t, 6, (const char *const[]) { "output", "name", "avg |diff|", "min", "max", "std" });
        for (size_t i = 0; errs && i < json_object_array_length(errs); i++) {
                json_object *x = json_object_array_get_idx(errs, i);
                eval_tensor_t o = { .name = "" };
                char idx[24], avg[32], min[32], max[32], std[32];

                (void) eval_runner_output(test, (int32_t) i, &o);
                snprintf(idx, sizeof(idx), "%zu", i);
                snprintf(avg, sizeof(avg), "%.6g", json_object_get_double(json_path(x, "avgValue", NULL)));
                snprintf(min, sizeof(min), "%.6g", json_object_get_double(json_path(x, "minValue", NULL)));
                snprintf(max, sizeof(max), "%.6g", json_object_get_double(json_path(x, "maxValue", NULL)));
                snprintf(std, sizeof(std), "%.6g", json_object_get_double(json_path(x, "stdDeviation", NULL)));
                (void) accelctl_table_add(&t, (const char *const[]) { idx, o.name, avg, min, max, std });
        }
        accelctl_table_print(&t, stdout);
        accelctl_table_done(&t);
        printf("\nrecorded by acceld as evaluation %lld (settings %s)\n", (long long) e->id, e->settings_key);
        json_object_put(root);
        accel_evaluation_free(e);
        return 0;
}

/* ---- diff ---- */

static int eval_diff(const eval_args_t *a) {
        _cleanup_(runner_freep) eval_runner_t *ref = NULL, *test = NULL;
        _cleanup_free_ char *settings_owned = NULL;
        _cleanup_(eval_profiler_metrics_done) eval_profiler_metrics_t m = {};
        const char *settings;
        char err[1024] = "";
        int r;

        if (!a->settings) {
                fprintf(stderr, "accelctl eval diff: --settings is required (the test setting, e.g. "
                                "'{\"delegate\":\"XNNPACK\"}')\n");
                return 2;
        }
        if (text_or_file("--settings", a->settings, &settings, &settings_owned) < 0)
                return 1;
        if (!a->local)
                return eval_diff_daemon(a, settings);
        if (runner_open(a, "{\"delegate\":\"NONE\"}", &ref) < 0 || runner_open(a, settings, &test) < 0)
                return 1;
        r = eval_profiler_run(ref, test, (int32_t) a->runs, a->seed, progress_runs, NULL, &m, err, sizeof(err));
        if (r < 0) {
                fprintf(stderr, "accelctl eval diff: %s\n", err[0] ? err : strerror(-r));
                return 1;
        }
        if (a->json)
                return print_json(eval_json_profiler(&m));

        printf("model      %s\nreference  %s\ntest       %s (%s)\nruns       %d, random inputs from seed %llu\n\n",
               a->model, ref->description, test->description, settings, m.runs, a->seed);
        latency_table_print((const char *const[]) { "reference", "test" },
                            (const eval_latency_metrics_t *const[]) { &m.reference_latency, &m.test_latency }, 2);
        printf("\n");
        accelctl_table_t t;
        accelctl_table_init(&t, 6, (const char *const[]) { "output", "name", "avg |diff|", "min", "max", "std" });
        for (size_t i = 0; i < m.n_output_errors; i++) {
                const eval_accuracy_metrics_t *e = &m.output_errors[i];
                eval_tensor_t o = { .name = "" };
                char idx[24], avg[32], min[32], max[32], std[32];

                (void) eval_runner_output(ref, (int32_t) i, &o);
                snprintf(idx, sizeof(idx), "%zu", i);
                snprintf(avg, sizeof(avg), "%.6g", e->avg_value);
                snprintf(min, sizeof(min), "%.6g", (double) e->min_value);
                snprintf(max, sizeof(max), "%.6g", (double) e->max_value);
                snprintf(std, sizeof(std), "%.6g", (double) e->std_deviation);
                (void) accelctl_table_add(&t, (const char *const[]) { idx, o.name, avg, min, max, std });
        }
        accelctl_table_print(&t, stdout);
        accelctl_table_done(&t);
        return 0;
}

/* ---- topk ---- */

typedef struct topk_view {
        const eval_labels_t *labels;
        accelctl_table_t table;
} topk_view_t;

static void topk_on_image(void *user, size_t done, size_t total, const eval_classify_image_t *img) {
        topk_view_t *v = user;
        const char *name = eval_path_basename(img->path);
        char score[32], rank[16] = "-";

        progress_draw(done, total, name);
        for (int32_t i = 0; i < img->k; i++)
                if (img->top[i] == img->label)
                        snprintf(rank, sizeof(rank), "%d", i + 1);
        snprintf(score, sizeof(score), "%.3f", (double) img->scores[0]);
        (void) accelctl_table_add(&v->table, (const char *const[]) {
                name, v->labels->v[img->label], v->labels->v[img->top[0]], score, rank });
}

/* What topk and detection share: --settings and --preprocessing (text or
 * a file) and the list of images. */
typedef struct image_stage {
        char *settings_owned, *pp_owned;
        const char *settings, *pp_text;
        eval_preprocess_t pp;
        eval_labels_t images;
} image_stage_t;

static void image_stage_done(image_stage_t *st) {
        free(st->settings_owned);
        free(st->pp_owned);
        eval_labels_done(&st->images);
}

/* 0, or the exit code after printing why: 2 (usage), 1 (failure). */
static int image_stage_setup(const eval_args_t *a, const char *cmd, image_stage_t *st) {
        char err[1024] = "";
        int rc;

        if (!a->images || !a->ground_truth) {
                fprintf(stderr, "accelctl eval %s: --images DIR and --ground-truth FILE are required\n", cmd);
                return 2;
        }
        if (text_or_file("--settings", a->settings, &st->settings, &st->settings_owned) < 0 ||
            text_or_file("--preprocessing", a->preprocessing, &st->pp_text, &st->pp_owned) < 0)
                return 1;
        if (st->pp_text && eval_preprocess_parse_json(st->pp_text, 0, &st->pp, err, sizeof(err)) < 0) {
                fprintf(stderr, "accelctl eval %s: --preprocessing: %s\n", cmd, err);
                return 1;
        }
        rc = eval_images_list(a->images, &st->images);
        if (rc < 0 || st->images.n == 0) {
                fprintf(stderr, "accelctl eval %s: %s: %s\n", cmd, a->images,
                        rc < 0 ? strerror(-rc) : "no .jpg, .jpeg or .png files");
                return 1;
        }
        return 0;
}

static int eval_topk(const eval_args_t *a) {
        _cleanup_(runner_freep) eval_runner_t *r = NULL;
        _cleanup_(eval_labels_done) eval_labels_t gt = {}, labels = {};
        _cleanup_(eval_classify_metrics_done) eval_classify_metrics_t m = {};
        _cleanup_(image_stage_done) image_stage_t st = {};
        _cleanup_free_ char *label_file = NULL;
        char err[1024] = "";
        int rc;

        if ((rc = image_stage_setup(a, "topk", &st)) != 0)
                return rc;
        if (eval_labels_load(a->ground_truth, &gt, err, sizeof(err)) < 0) {
                fprintf(stderr, "accelctl eval topk: --ground-truth: %s\n", err);
                return 1;
        }
        if (a->labels)
                rc = eval_labels_load(a->labels, &labels, err, sizeof(err));
        else
                rc = eval_labels_from_model(a->model, 0, &labels, &label_file, err, sizeof(err));
        if (rc < 0) {
                fprintf(stderr, "accelctl eval topk: %s%s\n", a->labels ? "--labels: " : "", err);
                if (!a->labels)
                        fprintf(stderr, "accelctl eval topk: give the label file with --labels FILE\n");
                return 1;
        }
        if (runner_open(a, st.settings, &r) < 0)
                return 1;

        topk_view_t view = { .labels = &labels };
        accelctl_table_init(&view.table, 5,
                            (const char *const[]) { "image", "ground truth", "top-1", "score", "rank" });
        eval_classify_params_t p = {
                .images = &st.images, .ground_truth = &gt, .labels = &labels, .k = (int32_t) a->k,
                .preprocess = st.pp_text ? &st.pp : NULL, .on_image = topk_on_image, .user = &view,
        };
        rc = eval_classify_run(r, &p, &m, err, sizeof(err));
        if (rc < 0) {
                progress_draw(1, 1, NULL);
                fprintf(stderr, "accelctl eval topk: %s\n", err[0] ? err : strerror(-rc));
                accelctl_table_done(&view.table);
                return 1;
        }
        _cleanup_(json_object_putp) json_object *metrics = eval_json_classify(&m);
        if (a->json) {
                accelctl_table_done(&view.table);
                record_result(a, r, ACCEL_EVAL_STAGE_TOPK, metrics, m.k > 0 ? m.topk_accuracies[0] : 0, st.images.n);
                return print_json(json_object_get(metrics));
        }
        printf("model   %s (%s)\nlabels  %s (%zu)\nimages  %zu in %s\n\n", a->model, r->description,
               a->labels ? a->labels : label_file, labels.n, st.images.n, a->images);
        accelctl_table_print(&view.table, stdout);
        accelctl_table_done(&view.table);
        printf("\n");
        accelctl_table_t t;
        accelctl_table_init(&t, 2, (const char *const[]) { "top-k", "accuracy" });
        for (int32_t i = 0; i < m.k; i++) {
                char k[16], acc[32];
                snprintf(k, sizeof(k), "top-%d", i + 1);
                snprintf(acc, sizeof(acc), "%.4f", (double) m.topk_accuracies[i]);
                (void) accelctl_table_add(&t, (const char *const[]) { k, acc });
        }
        accelctl_table_print(&t, stdout);
        accelctl_table_done(&t);
        printf("\n");
        latency_table_print((const char *const[]) { "preprocessing", "inference", "total" },
                            (const eval_latency_metrics_t *const[]) { &m.pre_processing_latency,
                                                                      &m.inference_latency, &m.total_latency },
                            3);
        record_result(a, r, ACCEL_EVAL_STAGE_TOPK, metrics, m.k > 0 ? m.topk_accuracies[0] : 0, st.images.n);
        return 0;
}

/* ---- detection ---- */

typedef struct detect_view {
        const eval_labels_t *labels;  /* may be empty */
        int32_t class_offset;
        accelctl_table_t table;
} detect_view_t;

static const char *class_name(const detect_view_t *v, int32_t class_id, char *buf, size_t size) {
        int64_t i = (int64_t) class_id - v->class_offset;

        if (i >= 0 && (size_t) i < v->labels->n)
                snprintf(buf, size, "%d %s", class_id, v->labels->v[i]);
        else
                snprintf(buf, size, "%d", class_id);
        return buf;
}

static void detect_on_image(void *user, size_t done, size_t total, const eval_detect_image_t *img) {
        detect_view_t *v = user;
        const char *name = eval_path_basename(img->path);
        char gt[32], best[160] = "-", iou[16] = "-";

        progress_draw(done, total, name);
        snprintf(gt, sizeof(gt), "%zu", img->ground_truth->n_objects);
        if (img->predicted->n_objects) {
                /* Outputs come sorted by score: the first is the best. */
                const eval_object_t *o = &img->predicted->objects[0];
                char cls[96];
                float b = 0;

                snprintf(best, sizeof(best), "%s %.2f", class_name(v, o->class_id, cls, sizeof(cls)),
                         (double) o->score);
                for (size_t g = 0; g < img->ground_truth->n_objects; g++)
                        if (img->ground_truth->objects[g].class_id == o->class_id) {
                                float x = eval_box_iou(&o->box, &img->ground_truth->objects[g].box);
                                b = x > b ? x : b;
                        }
                snprintf(iou, sizeof(iou), "%.3f", (double) b);
        }
        char npred[32];
        snprintf(npred, sizeof(npred), "%zu", img->predicted->n_objects);
        (void) accelctl_table_add(&v->table, (const char *const[]) { name, gt, npred, best, iou });
}

/* "0.5,0.75" into a new array. */
static int thresholds_parse(const char *s, float **ret, size_t *ret_n) {
        size_t n = 1;
        for (const char *p = s; *p; p++)
                n += *p == ',';
        float *v = calloc(n, sizeof(float));
        if (!v)
                return -ENOMEM;
        const char *p = s;
        for (size_t i = 0; i < n; i++) {
                char *end;
                double d = strtod(p, &end);
                if (end == p || (*end && *end != ',') || !(d > 0 && d <= 1)) {
                        free(v);
                        return -EINVAL;
                }
                v[i] = (float) d;
                p = end + (*end == ',');
        }
        *ret = v;
        *ret_n = n;
        return 0;
}

static int eval_detection(const eval_args_t *a) {
        _cleanup_(runner_freep) eval_runner_t *r = NULL;
        _cleanup_(eval_labels_done) eval_labels_t labels = {};
        _cleanup_(eval_od_ground_truth_done) eval_od_ground_truth_t gt = {};
        _cleanup_(eval_detect_metrics_done) eval_detect_metrics_t m = {};
        _cleanup_(image_stage_done) image_stage_t st = {};
        _cleanup_free_ char *label_file = NULL;
        _cleanup_free_ float *thr = NULL;
        size_t n_thr = 0;
        char err[1024] = "";
        int rc;

        if (a->images && a->ground_truth && a->iou && thresholds_parse(a->iou, &thr, &n_thr) < 0) {
                fprintf(stderr, "accelctl eval detection: --iou-thresholds takes numbers in (0, 1] separated by "
                                "commas\n");
                return 2;
        }
        if ((rc = image_stage_setup(a, "detection", &st)) != 0)
                return rc;
        if (eval_od_ground_truth_load(a->ground_truth, &gt, err, sizeof(err)) < 0) {
                fprintf(stderr, "accelctl eval detection: --ground-truth: %s\n", err);
                return 1;
        }
        /* Class names only label the table; a model without them is fine. */
        if (a->labels)
                rc = eval_labels_load(a->labels, &labels, err, sizeof(err));
        else
                rc = eval_labels_from_model(a->model, 1, &labels, &label_file, err, sizeof(err));
        if (rc < 0 && a->labels) {
                fprintf(stderr, "accelctl eval detection: --labels: %s\n", err);
                return 1;
        }
        if (runner_open(a, st.settings, &r) < 0)
                return 1;

        detect_view_t view = { .labels = &labels, .class_offset = (int32_t) a->class_offset };
        accelctl_table_init(&view.table, 5, (const char *const[]) {
                "image", "truth", "detections", "best detection", "IoU" });
        eval_detect_params_t p = {
                .images = &st.images, .ground_truth = &gt, .class_offset = (int32_t) a->class_offset,
                .ap = { .num_classes = (int32_t) a->num_classes, .iou_thresholds = thr, .n_iou_thresholds = n_thr },
                .preprocess = st.pp_text ? &st.pp : NULL, .on_image = detect_on_image, .user = &view,
        };
        rc = eval_detect_run(r, &p, &m, err, sizeof(err));
        if (rc < 0) {
                progress_draw(1, 1, NULL);
                fprintf(stderr, "accelctl eval detection: %s\n", err[0] ? err : strerror(-rc));
                accelctl_table_done(&view.table);
                return 1;
        }
        _cleanup_(json_object_putp) json_object *metrics = eval_json_detect(&m);
        double map_value = m.average_precision.overall_mean_average_precision;
        if (a->json) {
                accelctl_table_done(&view.table);
                record_result(a, r, ACCEL_EVAL_STAGE_DETECTION, metrics, map_value, st.images.n);
                return print_json(json_object_get(metrics));
        }
        printf("model   %s (%s)\nimages  %zu in %s, ground truth %s\n\n", a->model, r->description, st.images.n,
               a->images, a->ground_truth);
        accelctl_table_print(&view.table, stdout);
        accelctl_table_done(&view.table);
        printf("\n");
        accelctl_table_t t;
        accelctl_table_init(&t, 2, (const char *const[]) { "IoU threshold", "average precision" });
        for (size_t i = 0; i < m.average_precision.n; i++) {
                char thr_s[16], ap[32];
                snprintf(thr_s, sizeof(thr_s), "%.2f", (double) m.average_precision.iou_thresholds[i]);
                snprintf(ap, sizeof(ap), "%.4f", (double) m.average_precision.average_precisions[i]);
                (void) accelctl_table_add(&t, (const char *const[]) { thr_s, ap });
        }
        char map[32];
        snprintf(map, sizeof(map), "%.4f", (double) m.average_precision.overall_mean_average_precision);
        (void) accelctl_table_add(&t, (const char *const[]) { "mAP", map });
        accelctl_table_print(&t, stdout);
        accelctl_table_done(&t);
        printf("\n");
        latency_table_print((const char *const[]) { "preprocessing", "inference", "total" },
                            (const eval_latency_metrics_t *const[]) { &m.pre_processing_latency,
                                                                      &m.inference_latency, &m.total_latency },
                            3);
        record_result(a, r, ACCEL_EVAL_STAGE_DETECTION, metrics, map_value, st.images.n);
        return 0;
}

/* ---- arguments ---- */

static int number_arg(const char *cmd, const char *opt, const char *s, long lo, long hi, long *ret) {
        char *end;
        long v;

        errno = 0;
        v = strtol(s, &end, 10);
        if (errno || end == s || *end || v < lo || v > hi) {
                fprintf(stderr, "accelctl eval %s: %s must be %ld..%ld\n", cmd, opt, lo, hi);
                return -EINVAL;
        }
        *ret = v;
        return 0;
}

int accelctl_eval(int argc, char **argv, const accelctl_opts_t *global) {
        eval_args_t a = { .runs = 50, .k = 5, .class_offset = 1, .seed = 1, .json = global->json,
                          .socket = global->socket };
        struct {
                const char *name;
                const char **dst;
        } strings[] = {
                { "--settings", &a.settings },     { "--images", &a.images },
                { "--ground-truth", &a.ground_truth }, { "--labels", &a.labels },
                { "--preprocessing", &a.preprocessing }, { "--iou-thresholds", &a.iou },
                { "--socket", &a.socket },
        };
        struct {
                const char *name;
                long lo, hi, *dst;
        } numbers[] = {
                { "--runs", 1, 1000000, &a.runs },
                { "--k", 1, 100000, &a.k },
                { "--class-offset", -1000000, 1000000, &a.class_offset },
                { "--num-classes", 0, 1000000, &a.num_classes },
        };

        if (argc < 2 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
                fputs(eval_usage, argc < 2 ? stderr : stdout);
                return argc < 2 ? 2 : 0;
        }
        a.cmd = argv[1];
        if (strcmp(a.cmd, "diff") != 0 && strcmp(a.cmd, "topk") != 0 && strcmp(a.cmd, "detection") != 0) {
                fprintf(stderr, "accelctl eval: unknown stage '%s' (diff, topk, detection)\n%s", a.cmd, eval_usage);
                return 2;
        }
        for (int i = 2; i < argc; i++) {
                const char *o = argv[i];
                bool done = false;

                if (strcmp(o, "--local") == 0) {
                        a.local = true;
                        continue;
                }
                if (strcmp(o, "--json") == 0) {
                        a.json = true;
                        continue;
                }
                if (strcmp(o, "-h") == 0 || strcmp(o, "--help") == 0) {
                        fputs(eval_usage, stdout);
                        return 0;
                }
                if (strcmp(o, "--seed") == 0 && i + 1 < argc) {
                        char *end;
                        errno = 0;
                        a.seed = strtoull(argv[++i], &end, 10);
                        if (errno || *end || argv[i][0] == '-' || end == argv[i]) {
                                fprintf(stderr, "accelctl eval %s: --seed takes a non-negative integer\n", a.cmd);
                                return 2;
                        }
                        continue;
                }
                for (size_t k = 0; k < ELEMENTSOF(strings) && !done; k++)
                        if (strcmp(o, strings[k].name) == 0) {
                                if (i + 1 >= argc) {
                                        fprintf(stderr, "accelctl eval %s: %s needs a value\n", a.cmd, o);
                                        return 2;
                                }
                                *strings[k].dst = argv[++i];
                                done = true;
                        }
                for (size_t k = 0; k < ELEMENTSOF(numbers) && !done; k++)
                        if (strcmp(o, numbers[k].name) == 0) {
                                if (i + 1 >= argc) {
                                        fprintf(stderr, "accelctl eval %s: %s needs a value\n", a.cmd, o);
                                        return 2;
                                }
                                if (number_arg(a.cmd, o, argv[++i], numbers[k].lo, numbers[k].hi, numbers[k].dst) < 0)
                                        return 2;
                                done = true;
                        }
                if (done)
                        continue;
                if (o[0] == '-') {
                        fprintf(stderr, "accelctl eval %s: unknown option '%s'\n%s", a.cmd, o, eval_usage);
                        return 2;
                }
                if (a.model) {
                        fprintf(stderr, "accelctl eval %s: unexpected argument '%s'\n", a.cmd, o);
                        return 2;
                }
                a.model = o;
        }
        if (!a.model) {
                fprintf(stderr, "accelctl eval %s: MODEL is required\n%s", a.cmd, eval_usage);
                return 2;
        }
        if (strcmp(a.cmd, "diff") == 0)
                return eval_diff(&a);
        if (strcmp(a.cmd, "topk") == 0)
                return eval_topk(&a);
        return eval_detection(&a);
}
