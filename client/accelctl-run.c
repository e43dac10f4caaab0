/* SPDX-License-Identifier: Apache-2.0 */
/*
 * accelctl run MODEL (through acceld), ops MODEL, models. `run` sends the
 * model as an fd and the tensors through shared memory (libaccel's
 * interpreter), so it measures the path an application takes.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "accelctl-file.h"
#include "file-read.h"
#include "accelctl.h"
#include "cleanup.h"

DEFINE_POINTER_CLEANUP(accel_model_t, accel_model_delete);
DEFINE_POINTER_CLEANUP(accel_interp_t, accel_interp_delete);
DEFINE_POINTER_CLEANUP(accel_interp_options_t, accel_interp_options_delete);

static const char run_usage[] =
        "Usage: accelctl run MODEL [--input FILE]... [--output FILE]... [--settings JSON|FILE]\n"
        "                  [--runs N] [--priority low|medium|high] [--deadline-ms D] [--inline] [--json]\n"
        "                  [--preference any|low-latency|low-power|force-cpu] [--prepare-deadline-ms D]\n"
        "                  [--cache-token T]\n"
        "       accelctl run --cache-token T [--input FILE]... [--output FILE]... [...]\n"
        "Run MODEL through acceld: the model goes as an fd, tensors through shared memory\n"
        "(--inline: inside the frames). Without --input, inputs are zero. Prints output\n"
        "summaries, the top 5 of classifier outputs, and queue/compute/round-trip times.\n"
        "  --cache-token T        with MODEL: record a compilation-cache entry for token T;\n"
        "                         without MODEL: prepare from that entry alone\n"
        "  --local                run in-process instead (see accelctl run --local --help)\n";

static int cmp_u64(const void *a, const void *b) {
        uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;

        return x < y ? -1 : x > y;
}

static uint64_t median(const uint64_t *v, size_t n) {
        _cleanup_free_ uint64_t *s = malloc((n ? n : 1) * sizeof(uint64_t));

        if (!s || n == 0)
                return 0;
        memcpy(s, v, n * sizeof(uint64_t));
        qsort(s, n, sizeof(uint64_t), cmp_u64);
        return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

/* Element i of t as a double (dequantized when quantized). */
static bool tensor_value(const accel_tensor_t *t, size_t i, double *ret) {
        const void *p = accel_tensor_data(t);
        float scale = accel_tensor_scale(t);
        int32_t zp = accel_tensor_zero_point(t);
        double v;

        switch (accel_tensor_type(t)) {
        case ACCEL_TYPE_FLOAT32:
                v = ((const float *) p)[i];
                break;
        case ACCEL_TYPE_UINT8:
                v = ((const uint8_t *) p)[i];
                break;
        case ACCEL_TYPE_INT8:
                v = ((const int8_t *) p)[i];
                break;
        case ACCEL_TYPE_INT16:
                v = ((const int16_t *) p)[i];
                break;
        case ACCEL_TYPE_INT32:
                v = ((const int32_t *) p)[i];
                break;
        default:
                return false;
        }
        if (scale != 0 && accel_tensor_type(t) != ACCEL_TYPE_FLOAT32)
                v = (v - zp) * scale;
        *ret = v;
        return true;
}

static size_t tensor_elements(const accel_tensor_t *t) {
        size_t n = 1;

        for (int32_t d = 0; d < accel_tensor_num_dims(t); d++)
                n *= (size_t) accel_tensor_dim(t, d);
        return n;
}

/* A classifier output: [1, N] (or [N]) with N > 1 numbers. */
static bool is_classifier(const accel_tensor_t *t) {
        int32_t r = accel_tensor_num_dims(t);
        double v;

        if (!tensor_value(t, 0, &v) || tensor_elements(t) < 2)
                return false;
        return r == 1 || (r == 2 && accel_tensor_dim(t, 0) == 1);
}

/* TFLite_Detection_PostProcess's outputs: boxes [1,N,4], classes [1,N],
 * scores [1,N], count [1]. */
static bool is_detection(accel_interp_t *it) {
        const accel_tensor_t *b, *c, *s, *n;

        if (accel_interp_output_count(it) != 4)
                return false;
        b = accel_interp_output_tensor(it, 0);
        c = accel_interp_output_tensor(it, 1);
        s = accel_interp_output_tensor(it, 2);
        n = accel_interp_output_tensor(it, 3);
        return accel_tensor_num_dims(b) == 3 && accel_tensor_dim(b, 2) == 4 && accel_tensor_num_dims(c) == 2 &&
               accel_tensor_num_dims(s) == 2 && accel_tensor_dim(c, 1) == accel_tensor_dim(b, 1) &&
               accel_tensor_dim(s, 1) == accel_tensor_dim(b, 1) && tensor_elements(n) == 1;
}

/* The first detections (at most 5) of a detection model. */
static void detections_print(accel_interp_t *it) {
        const accel_tensor_t *b = accel_interp_output_tensor(it, 0), *c = accel_interp_output_tensor(it, 1),
                             *s = accel_interp_output_tensor(it, 2), *n = accel_interp_output_tensor(it, 3);
        double count = 0, v[4], cls, score;
        size_t shown = 0, max = (size_t) accel_tensor_dim(b, 1);

        (void) tensor_value(n, 0, &count);
        printf("detections: %g", count);
        for (size_t i = 0; i < max && i < (size_t) (count > 0 ? count : 0) && shown < 5; i++) {
                if (!tensor_value(c, i, &cls) || !tensor_value(s, i, &score))
                        break;
                for (int k = 0; k < 4; k++)
                        (void) tensor_value(b, i * 4 + (size_t) k, &v[k]);
                printf("%s class %g score %.3f box [%.3f %.3f %.3f %.3f]", shown ? ";" : "", cls, score, v[0], v[1],
                       v[2], v[3]);
                shown++;
        }
        printf("\n");
}

typedef struct top {
        size_t index;
        double score;
} top_t;

static size_t top5(const accel_tensor_t *t, top_t ret[5]) {
        size_t n = tensor_elements(t), k = 0;

        for (size_t i = 0; i < n; i++) {
                double v;
                size_t j;

                (void) tensor_value(t, i, &v);
                if (k == 5 && v <= ret[4].score)
                        continue;
                j = k < 5 ? k++ : 4;
                while (j > 0 && ret[j - 1].score < v) {
                        ret[j] = ret[j - 1];
                        j--;
                }
                ret[j] = (top_t) { i, v };
        }
        return k;
}

static void shape_text(const accel_tensor_t *t, char *buf, size_t size) {
        size_t o = (size_t) snprintf(buf, size, "%s[", accel_type_name(accel_tensor_type(t)));

        for (int32_t d = 0; d < accel_tensor_num_dims(t) && o < size; d++)
                o += (size_t) snprintf(buf + o, size - o, d ? ",%d" : "%d", accel_tensor_dim(t, d));
        if (o < size)
                (void) snprintf(buf + o, size - o, "]");
}

static int priority_parse(const char *s, accel_priority_t *ret) {
        if (strcasecmp(s, "low") == 0)
                *ret = ACCEL_PRIORITY_LOW;
        else if (strcasecmp(s, "medium") == 0)
                *ret = ACCEL_PRIORITY_MEDIUM;
        else if (strcasecmp(s, "high") == 0)
                *ret = ACCEL_PRIORITY_HIGH;
        else
                return -EINVAL;
        return 0;
}

int accelctl_run(int argc, char **argv, const accelctl_opts_t *global) {
        const char *path = NULL, *settings = NULL, *token = NULL;
        _cleanup_free_ const char **inputs = calloc((size_t) argc + 1, sizeof(char *));
        _cleanup_free_ const char **outputs = calloc((size_t) argc + 1, sizeof(char *));
        _cleanup_free_ char *settings_text = NULL;
        _cleanup_free_ uint64_t *tq = NULL, *tc = NULL, *tt = NULL;
        _cleanup_(accel_model_deletep) accel_model_t *model = NULL;
        _cleanup_(accel_interp_options_deletep) accel_interp_options_t *o = NULL;
        _cleanup_(accel_interp_deletep) accel_interp_t *it = NULL;
        accel_priority_t prio = ACCEL_PRIORITY_DEFAULT;
        long runs = 1, deadline = 0, prepare_deadline = 0;
        int preference = -1;
        bool json = global->json, inline_tensors = false;
        int n_in = 0, n_out = 0, r;

        if (!inputs || !outputs)
                return 1;
        for (int i = 1; i < argc; i++) {
                const char *a = argv[i];

                if (strcmp(a, "--json") == 0)
                        json = true;
                else if (strcmp(a, "--inline") == 0)
                        inline_tensors = true;
                else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
                        printf("%s", run_usage);
                        return 0;
                } else if (strcmp(a, "--settings") == 0 && i + 1 < argc)
                        settings = argv[++i];
                else if (strcmp(a, "--cache-token") == 0 && i + 1 < argc)
                        token = argv[++i];
                else if ((strcmp(a, "--runs") == 0 || strcmp(a, "--deadline-ms") == 0) && i + 1 < argc) {
                        char *end;
                        long v;

                        errno = 0;
                        v = strtol(argv[++i], &end, 10);
                        if (errno || *end || v < (a[2] == 'r' ? 1 : 0) || v > 1000000) {
                                fprintf(stderr, "accelctl run: %s takes a number (%s..1000000)\n", a,
                                        a[2] == 'r' ? "1" : "0");
                                return 2;
                        }
                        if (a[2] == 'r')
                                runs = v;
                        else
                                deadline = v;
                } else if (strcmp(a, "--prepare-deadline-ms") == 0 && i + 1 < argc) {
                        char *end;

                        errno = 0;
                        prepare_deadline = strtol(argv[++i], &end, 10);
                        if (errno || *end || prepare_deadline < 1 || prepare_deadline > 1000000) {
                                fprintf(stderr, "accelctl run: --prepare-deadline-ms takes a number (1..1000000)\n");
                                return 2;
                        }
                } else if (strcmp(a, "--preference") == 0 && i + 1 < argc) {
                        static const char *const names[] = { "any", "low-latency", "low-power", "force-cpu" };
                        const char *v = argv[++i];

                        preference = -1;
                        for (int k = 0; k < 4; k++)
                                if (strcmp(v, names[k]) == 0)
                                        preference = k;
                        if (preference < 0) {
                                fprintf(stderr, "accelctl run: --preference is any, low-latency, low-power or "
                                                "force-cpu\n");
                                return 2;
                        }
                } else if (strcmp(a, "--priority") == 0 && i + 1 < argc) {
                        if (priority_parse(argv[++i], &prio) < 0) {
                                fprintf(stderr, "accelctl run: --priority is low, medium or high\n");
                                return 2;
                        }
                } else if (strcmp(a, "--input") == 0 || strcmp(a, "--output") == 0) {
                        bool in = a[2] == 'i';
                        int before = in ? n_in : n_out;

                        while (i + 1 < argc && strncmp(argv[i + 1], "--", 2) != 0) {
                                if (in)
                                        inputs[n_in++] = argv[++i];
                                else
                                        outputs[n_out++] = argv[++i];
                        }
                        if ((in ? n_in : n_out) == before) {
                                fprintf(stderr, "accelctl run: %s needs at least one file\n", a);
                                return 2;
                        }
                } else if (a[0] == '-') {
                        fprintf(stderr, "accelctl run: unknown or incomplete option '%s'\n%s", a, run_usage);
                        return 2;
                } else if (!path)
                        path = a;
                else {
                        fprintf(stderr, "accelctl run: unexpected argument '%s'\n%s", a, run_usage);
                        return 2;
                }
        }
        if (!path && !token) {
                fprintf(stderr, "%s", run_usage);
                return 2;
        }
        if (token && (!token[0] || strlen(token) > ACCEL_CACHE_TOKEN_MAX)) {
                fprintf(stderr, "accelctl run: --cache-token takes 1..%d bytes\n", ACCEL_CACHE_TOKEN_MAX);
                return 2;
        }
        if (settings && settings[0] != '{') {
                size_t sz;

                r = acc_file_read(settings, (void **) &settings_text, &sz);
                if (r < 0) {
                        fprintf(stderr, "accelctl run: --settings: '%s' is neither JSON nor a readable file: %s\n",
                                settings, strerror(-r));
                        return 1;
                }
                settings = settings_text;
        }

        o = accel_interp_options_create();
        if (!o)
                return 1;
        (void) accel_interp_options_set_socket(o, global->socket);
        if (settings)
                (void) accel_interp_options_set_settings_json(o, settings);
        (void) accel_interp_options_set_priority(o, prio);
        (void) accel_interp_options_set_deadline_ms(o, (uint32_t) deadline);
        if (prepare_deadline > 0)
                (void) accel_interp_options_set_prepare_deadline_ms(o, (uint32_t) prepare_deadline);
        if (preference >= 0)
                (void) accel_interp_options_set_preference(o, preference);
        (void) accel_interp_options_set_inline_tensors(o, inline_tensors);
        if (token)
                (void) accel_interp_options_set_cache_token(o, token, strlen(token));
        if (!path) {
                /* NNAPI prepareModelFromCache: the token alone. */
                if (accel_interp_create_from_cache(o, &it) < 0 || accel_interp_allocate_tensors(it) < 0) {
                        fprintf(stderr, "accelctl run: cache token '%s': %s\n", token, accel_last_error());
                        return 1;
                }
                path = "(from cache)";
        } else if (accel_model_create_from_file(path, &model) < 0 || accel_interp_create(model, o, &it) < 0 ||
                   accel_interp_allocate_tensors(it) < 0) {
                const char *e = accel_last_error();
                size_t n = strlen(path);

                /* One prefix: libaccel's file errors already name the path. */
                if (strncmp(e, path, n) == 0 && e[n] == ':')
                        fprintf(stderr, "accelctl run: %s\n", e);
                else
                        fprintf(stderr, "accelctl run: %s: %s\n", path, e);
                return 1;
        }
        if ((n_in && n_in != accel_interp_input_count(it)) || (n_out && n_out != accel_interp_output_count(it))) {
                fprintf(stderr, "accelctl run: the model has %d input(s) and %d output(s); got %d --input and %d --output files\n",
                        accel_interp_input_count(it), accel_interp_output_count(it), n_in, n_out);
                return 2;
        }
        for (int i = 0; i < n_in; i++) {
                _cleanup_free_ void *data = NULL;
                size_t size = 0;

                r = acc_file_read(inputs[i], &data, &size);
                if (r < 0) {
                        fprintf(stderr, "accelctl run: %s: %s\n", inputs[i], strerror(-r));
                        return 1;
                }
                if (accel_tensor_copy_from_buffer(accel_interp_input_tensor(it, i), data, size) < 0) {
                        fprintf(stderr, "accelctl run: %s: %s\n", inputs[i], accel_last_error());
                        return 1;
                }
        }
        tq = calloc((size_t) runs, sizeof(uint64_t));
        tc = calloc((size_t) runs, sizeof(uint64_t));
        tt = calloc((size_t) runs, sizeof(uint64_t));
        if (!tq || !tc || !tt)
                return 1;
        for (long k = 0; k < runs; k++) {
                if (accel_interp_invoke(it) < 0) {
                        fprintf(stderr, "accelctl run: run %ld: %s\n", k + 1, accel_last_error());
                        return 1;
                }
                accel_interp_last_timing(it, &tq[k], &tc[k], &tt[k]);
        }
        for (int i = 0; i < n_out; i++) {
                const accel_tensor_t *t = accel_interp_output_tensor(it, i);

                r = accelctl_file_write(outputs[i], accel_tensor_data(t), accel_tensor_byte_size(t));
                if (r < 0) {
                        fprintf(stderr, "accelctl run: %s: %s\n", outputs[i], strerror(-r));
                        return 1;
                }
        }

        if (json) {
                json_object *root = json_object_new_object(), *outs = json_object_new_array();
                json_object *rs = json_object_new_array(), *med = json_object_new_object();
                json_object *parts = json_object_new_array();
                const char *drv[64];
                int32_t nodes[64];
                size_t np = accel_interp_partitions(it, drv, nodes, 64);

                json_object_object_add(root, "model", json_object_new_string(path));
                json_object_object_add(root, "shared", json_object_new_boolean(accel_interp_shared(it)));
                if (token) {
                        json_object_object_add(root, "from_cache", json_object_new_boolean(accel_interp_from_cache(it)));
                        json_object_object_add(root, "cache_written",
                                               json_object_new_boolean(accel_interp_cache_written(it)));
                }
                json_object_object_add(root, "compile_us", json_object_new_int64((int64_t) accel_interp_compile_us(it)));
                json_object_object_add(root, "settings_key", json_object_new_string(accel_interp_settings_key(it)));
                json_object_object_add(root, "placement", json_object_new_string(accel_interp_placement(it)));
                json_object_object_add(root, "placement_reason",
                                       json_object_new_string(accel_interp_placement_reason(it)));
                for (size_t k = 0; k < np && k < 64; k++) {
                        json_object *p = json_object_new_object();

                        json_object_object_add(p, "driver", json_object_new_string(drv[k]));
                        json_object_object_add(p, "nodes", json_object_new_int(nodes[k]));
                        if (accel_interp_partition_reason(it, k)[0])
                                json_object_object_add(p, "why",
                                                       json_object_new_string(accel_interp_partition_reason(it, k)));
                        json_object_array_add(parts, p);
                }
                json_object_object_add(root, "partitions", parts);
                if (accel_interp_delegation_note(it)[0])
                        json_object_object_add(root, "delegation_note",
                                               json_object_new_string(accel_interp_delegation_note(it)));
                json_object_object_add(root, "zero_copy", json_object_new_boolean(accel_interp_last_zero_copy(it)));
                for (int i = 0; i < accel_interp_output_count(it); i++) {
                        const accel_tensor_t *t = accel_interp_output_tensor(it, i);
                        json_object *x = json_object_new_object(), *shape = json_object_new_array();

                        json_object_object_add(x, "name", json_object_new_string(accel_tensor_name(t)));
                        json_object_object_add(x, "type", json_object_new_string(accel_type_name(accel_tensor_type(t))));
                        for (int32_t dd = 0; dd < accel_tensor_num_dims(t); dd++)
                                json_object_array_add(shape, json_object_new_int(accel_tensor_dim(t, dd)));
                        json_object_object_add(x, "shape", shape);
                        if (i < n_out)
                                json_object_object_add(x, "file", json_object_new_string(outputs[i]));
                        if (is_classifier(t) && !is_detection(it)) {
                                top_t top[5];
                                size_t nt = top5(t, top);
                                json_object *a = json_object_new_array();

                                for (size_t k = 0; k < nt; k++) {
                                        json_object *e = json_object_new_object();

                                        json_object_object_add(e, "index", json_object_new_int64((int64_t) top[k].index));
                                        json_object_object_add(e, "score", json_object_new_double(top[k].score));
                                        json_object_array_add(a, e);
                                }
                                json_object_object_add(x, "top5", a);
                        }
                        json_object_array_add(outs, x);
                }
                json_object_object_add(root, "outputs", outs);
                for (long k = 0; k < runs; k++) {
                        json_object *e = json_object_new_object();

                        json_object_object_add(e, "queue_us", json_object_new_int64((int64_t) tq[k]));
                        json_object_object_add(e, "compute_us", json_object_new_int64((int64_t) tc[k]));
                        json_object_object_add(e, "total_us", json_object_new_int64((int64_t) tt[k]));
                        json_object_array_add(rs, e);
                }
                json_object_object_add(root, "runs", rs);
                json_object_object_add(med, "queue_us", json_object_new_int64((int64_t) median(tq, (size_t) runs)));
                json_object_object_add(med, "compute_us", json_object_new_int64((int64_t) median(tc, (size_t) runs)));
                json_object_object_add(med, "total_us", json_object_new_int64((int64_t) median(tt, (size_t) runs)));
                json_object_object_add(root, "median", med);
                return accelctl_json_print(root);
        }

        printf("model %s: %s instance, compile %" PRIu64 " us\n", path,
               accel_interp_shared(it) ? "shared" : "new", accel_interp_compile_us(it));
        printf("settings: %s%s\n", accel_interp_settings_key(it), settings ? "" : " (acceld's choice)");
        if (accel_interp_placement_reason(it)[0])
                printf("placement: %s (%s)\n", accel_interp_placement(it), accel_interp_placement_reason(it));
        if (token)
                printf("cache: %s\n", accel_interp_from_cache(it) ? "prepared from the cache entry"
                                       : accel_interp_cache_written(it) ? "entry written" : "entry not written");
        {
                const char *drv[64];
                int32_t nodes[64];
                size_t np = accel_interp_partitions(it, drv, nodes, 64);

                printf("plan:");
                for (size_t k = 0; k < np && k < 64; k++)
                        printf("%s %s (%d node%s)", k ? "," : "", drv[k], nodes[k], nodes[k] == 1 ? "" : "s");
                printf("\n");
                if (accel_interp_delegation_note(it)[0])
                        printf("note: %s\n", accel_interp_delegation_note(it));
                for (size_t k = 0; k < np && k < 64; k++)
                        if (accel_interp_partition_reason(it, k)[0])
                                printf("  group %zu (%s): %s\n", k, drv[k], accel_interp_partition_reason(it, k));
        }
        bool detection = is_detection(it);
        for (int i = 0; i < accel_interp_output_count(it); i++) {
                const accel_tensor_t *t = accel_interp_output_tensor(it, i);
                size_t n = tensor_elements(t);
                double lo = 0, hi = 0, sum = 0, v;
                char shape[160];

                shape_text(t, shape, sizeof(shape));
                for (size_t k = 0; k < n && tensor_value(t, k, &v); k++) {
                        lo = k == 0 || v < lo ? v : lo;
                        hi = k == 0 || v > hi ? v : hi;
                        sum += v;
                }
                printf("output %d '%s': %s min %.6g max %.6g mean %.6g%s%s\n", i, accel_tensor_name(t), shape, lo, hi,
                       n ? sum / (double) n : 0.0, i < n_out ? " -> " : "", i < n_out ? outputs[i] : "");
                if (is_classifier(t) && !detection) {
                        top_t top[5];
                        size_t nt = top5(t, top);

                        printf("  top-%zu:", nt);
                        for (size_t k = 0; k < nt; k++)
                                printf(" %zu (%.4f)", top[k].index, top[k].score);
                        printf("\n");
                }
        }
        if (detection)
                detections_print(it);
        printf("%ld run%s, median: queue %" PRIu64 " us, compute %" PRIu64 " us, round trip %" PRIu64 " us\n", runs,
               runs == 1 ? "" : "s", median(tq, (size_t) runs), median(tc, (size_t) runs), median(tt, (size_t) runs));
        return 0;
}

int accelctl_ops(int argc, char **argv, const accelctl_opts_t *global) {
        static const char usage[] = "Usage: accelctl ops MODEL [--json]\n"
                                    "Which driver can run each node of MODEL, and why not.\n";
        accelctl_opts_t o = *global;
        _cleanup_(accel_model_deletep) accel_model_t *model = NULL;
        accel_client_t *c = NULL;
        accel_node_support_t *ns = NULL;
        const char *path = NULL;
        size_t n = 0;
        int r;

        for (int i = 1; i < argc; i++) {
                if (strcmp(argv[i], "--json") == 0)
                        o.json = true;
                else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
                        printf("%s", usage);
                        return 0;
                } else if (argv[i][0] != '-' && !path)
                        path = argv[i];
                else {
                        fprintf(stderr, "%s", usage);
                        return 2;
                }
        }
        if (!path) {
                fprintf(stderr, "%s", usage);
                return 2;
        }
        if (accel_model_create_from_file(path, &model) < 0) {
                fprintf(stderr, "accelctl ops: %s\n", accel_last_error());
                return 1;
        }
        if (accelctl_connect(&o, &c) < 0)
                return 1;
        r = accel_get_supported_operations(c, model, &ns, &n);
        accel_disconnect(c);
        if (r < 0) {
                fprintf(stderr, "accelctl ops: %s: %s\n", path, accel_last_error());
                return 1;
        }
        if (o.json) {
                json_object *a = json_object_new_array();

                for (size_t i = 0; i < n; i++) {
                        json_object *x = json_object_new_object(), *ds = json_object_new_array();

                        json_object_object_add(x, "index", json_object_new_int(ns[i].index));
                        json_object_object_add(x, "op", json_object_new_string(ns[i].op));
                        for (size_t k = 0; k < ns[i].n_drivers; k++) {
                                json_object *e = json_object_new_object();

                                json_object_object_add(e, "driver", json_object_new_string(ns[i].drivers[k]));
                                json_object_object_add(e, "supported", json_object_new_boolean(ns[i].supported[k]));
                                json_object_object_add(e, "reason", json_object_new_string(ns[i].reasons[k]));
                                json_object_array_add(ds, e);
                        }
                        json_object_object_add(x, "drivers", ds);
                        json_object_array_add(a, x);
                }
                accel_node_support_free(ns, n);
                return accelctl_json_print(a);
        }
        for (size_t i = 0; i < n; i++) {
                printf("%4d %-24s", ns[i].index, ns[i].op);
                for (size_t k = 0; k < ns[i].n_drivers; k++)
                        printf(" %s:%s", ns[i].drivers[k], ns[i].supported[k] ? "yes" : "no");
                printf("\n");
                for (size_t k = 0; k < ns[i].n_drivers; k++)
                        if (!ns[i].supported[k])
                                printf("       %s: %s\n", ns[i].drivers[k], ns[i].reasons[k]);
        }
        accel_node_support_free(ns, n);
        return 0;
}

int accelctl_models(int argc, char **argv, const accelctl_opts_t *global) {
        accelctl_opts_t o = *global;
        accel_client_t *c = NULL;
        accel_model_entry_t *v = NULL;
        size_t n = 0;
        int r;

        r = accelctl_parse_common(argc, argv, &o, "Usage: accelctl models [--json]\nModels acceld holds.\n");
        if (r != 0)
                return r > 0 ? 0 : 2;
        if (accelctl_connect(&o, &c) < 0)
                return 1;
        r = accel_list_models(c, &v, &n);
        accel_disconnect(c);
        if (r < 0) {
                fprintf(stderr, "accelctl models: %s\n", accel_last_error());
                return 1;
        }
        if (o.json) {
                json_object *a = json_object_new_array();

                for (size_t i = 0; i < n; i++) {
                        json_object *x = json_object_new_object();

                        json_object_object_add(x, "sha256", json_object_new_string(v[i].sha256));
                        json_object_object_add(x, "name", json_object_new_string(v[i].name));
                        json_object_object_add(x, "size", json_object_new_int64((int64_t) v[i].size));
                        json_object_object_add(x, "instances", json_object_new_int((int32_t) v[i].instances));
                        json_object_object_add(x, "references", json_object_new_int((int32_t) v[i].references));
                        json_object_array_add(a, x);
                }
                accel_model_list_free(v, n);
                return accelctl_json_print(a);
        }
        {
                static const char *const header[] = { "SHA256", "NAME", "SIZE", "INSTANCES", "REFS" };
                accelctl_table_t t;

                accelctl_table_init(&t, 5, header);
                for (size_t i = 0; i < n; i++) {
                        char size[32], inst[16], refs[16];
                        const char *cells[5] = { v[i].sha256, v[i].name[0] ? v[i].name : "-", size, inst, refs };

                        (void) accelctl_format_bytes(v[i].size, size, sizeof(size));
                        (void) snprintf(inst, sizeof(inst), "%u", v[i].instances);
                        (void) snprintf(refs, sizeof(refs), "%u", v[i].references);
                        (void) accelctl_table_add(&t, cells);
                }
                accelctl_table_print(&t, stdout);
                accelctl_table_done(&t);
        }
        accel_model_list_free(v, n);
        return 0;
}
