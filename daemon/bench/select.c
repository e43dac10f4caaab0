/* SPDX-License-Identifier: Apache-2.0 */
/* Choosing a setting from the event log (bench/select.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acceleration.pb-c.h"
#include "select.h"
#include "settings.h"
#include "cleanup.h"
#include "models.h"

typedef struct eligible {
        const store_event_t *e;         /* latest END/ERROR of its key */
        bool ok;
        int64_t median_us;
        int32_t threads;
        bool cpu;
        char label[96];
        const uint8_t *settings;        /* borrowed from the decoded event */
        size_t settings_size;
} eligible_t;

static const char *pref_name(int p) {
        switch (p) {
        case TFLITE__PROTO__EXECUTION_PREFERENCE__ANY:
                return "ANY";
        case TFLITE__PROTO__EXECUTION_PREFERENCE__LOW_LATENCY:
                return "LOW_LATENCY";
        case TFLITE__PROTO__EXECUTION_PREFERENCE__LOW_POWER:
                return "LOW_POWER";
        case TFLITE__PROTO__EXECUTION_PREFERENCE__FORCE_CPU:
                return "FORCE_CPU";
        default:
                return "?";
        }
}

/* The latest recorded figure of `stage` for `key`, or for any reference-
 * kernel key when `key` is NULL. */
static bool latest_figure(const store_evaluation_t *v, size_t n, const char *stage, const char *key, double *ret) {
        for (size_t i = n; i-- > 0;) {
                if (!v[i].has_accuracy || strcmp(v[i].stage, stage) != 0)
                        continue;
                if (key ? strcmp(v[i].settings_key, key) != 0 : strncmp(v[i].settings_key, "delegate=NONE;", 14) != 0)
                        continue;
                *ret = v[i].accuracy;
                return true;
        }
        return false;
}

/* Whether the setting lost more than max_drop of accuracy against the
 * reference kernels; `why` says how when it did. */
static bool accuracy_dropped(const store_evaluation_t *v, size_t n, const rt_settings_t *s, double max_drop,
                             char *why, size_t why_size) {
        static const struct {
                const char *stage, *figure;
        } stages[] = { { STORE_STAGE_TOPK, "top-1 accuracy" }, { STORE_STAGE_DETECTION, "mAP" } };
        char key[1024];

        rt_settings_key(s, key, sizeof(key));
        for (size_t i = 0; i < ELEMENTSOF(stages); i++) {
                double mine, ref;

                if (!latest_figure(v, n, stages[i].stage, key, &mine) ||
                    !latest_figure(v, n, stages[i].stage, NULL, &ref))
                        continue;
                if (ref - mine > max_drop) {
                        (void) snprintf(why, why_size, "%s %.4f against %.4f on the reference kernels",
                                        stages[i].figure, mine, ref);
                        return true;
                }
        }
        return false;
}

int bench_select(store_db_t *db, const char *model_sha256, int preference, const char *driver_versions,
                 store_decision_t *ret) {
        return bench_select_with(db, model_sha256, preference, driver_versions, BENCH_DEFAULT_MAX_ACCURACY_DROP,
                                 ret);
}

int bench_select_with(store_db_t *db, const char *model_sha256, int preference, const char *driver_versions,
                      double max_accuracy_drop, store_decision_t *ret) {
        store_evaluation_filter_t ef = { .model_sha256 = model_sha256 };
        store_evaluation_t *evals = NULL;
        size_t n_evals = 0, n_inaccurate = 0;
        char inaccurate[512] = "";
        store_event_filter_t f = { .model_sha256 = model_sha256 };
        store_event_t *v = NULL;
        size_t n = 0, n_el = 0, n_ok = 0;
        eligible_t *el = NULL;
        Tflite__Proto__BenchmarkEvent **decoded = NULL;
        ssize_t best = -1, fastest = -1;
        char reason[1024];
        int r;

        if (!db || !acc_sha256_hex_valid(model_sha256) || preference < 0 || preference > 3)
                return -EINVAL;
        r = store_event_list(db, &f, &v, &n);
        if (r < 0)
                return r;
        r = store_evaluation_list(db, &ef, &evals, &n_evals);
        if (r < 0) {
                store_event_list_free(v, n);
                return r;
        }
        el = calloc(n + 1, sizeof(*el));
        decoded = calloc(n + 1, sizeof(*decoded));
        if (!el || !decoded) {
                r = -ENOMEM;
                goto out;
        }
        /* The latest END/ERROR per settings key (ascending id: later wins). */
        for (size_t i = 0; i < n; i++) {
                const store_event_t *e = &v[i];
                size_t k;

                if (e->event_type != TFLITE__PROTO__BENCHMARK_EVENT_TYPE__END &&
                    e->event_type != TFLITE__PROTO__BENCHMARK_EVENT_TYPE__ERROR)
                        continue;
                for (k = 0; k < n_el; k++)
                        if (strcmp(el[k].e->settings_key, e->settings_key) == 0)
                                break;
                if (k == n_el)
                        n_el++;
                el[k] = (eligible_t) { .e = e, .ok = e->event_type == TFLITE__PROTO__BENCHMARK_EVENT_TYPE__END &&
                                                      e->ok == 1 && e->median_inference_us >= 0,
                                       .median_us = e->median_inference_us };
        }
        for (size_t k = 0; k < n_el; k++) {
                Tflite__Proto__BenchmarkEvent *ev;
                rt_settings_t s;

                if (!el[k].ok)
                        continue;
                ev = tflite__proto__benchmark_event__unpack(NULL, el[k].e->blob_size, el[k].e->blob);
                if (!ev) {
                        el[k].ok = false;
                        continue;
                }
                decoded[k] = ev;
                if (ev->tflite_settings) {
                        r = rt_settings_from_proto(ev->tflite_settings, &s, NULL, 0);
                        if (r < 0) {
                                el[k].ok = false;
                                continue;
                        }
                } else
                        rt_settings_init(&s);
                el[k].threads = rt_settings_num_threads(&s, 1);
                el[k].cpu = s.delegate == RT_DELEGATE_NONE;
                rt_settings_label(&s, el[k].label, sizeof(el[k].label));
                {
                        char why[160];

                        if (accuracy_dropped(evals, n_evals, &s, max_accuracy_drop, why, sizeof(why))) {
                                size_t len = strlen(inaccurate);

                                if (len < sizeof(inaccurate))
                                        (void) snprintf(inaccurate + len, sizeof(inaccurate) - len, "%s%s (%s)",
                                                        n_inaccurate ? ", " : "", el[k].label, why);
                                n_inaccurate++;
                                el[k].ok = false;
                                rt_settings_done(&s);
                                continue;
                        }
                }
                rt_settings_done(&s);
                n_ok++;
                if (fastest < 0 || el[k].median_us < el[fastest].median_us)
                        fastest = (ssize_t) k;
        }

        switch (preference) {
        case TFLITE__PROTO__EXECUTION_PREFERENCE__LOW_POWER:
                if (fastest < 0)
                        break;
                for (size_t k = 0; k < n_el; k++) {
                        if (!el[k].ok || (double) el[k].median_us > 1.1 * (double) el[fastest].median_us)
                                continue;
                        if (best < 0 || el[k].threads < el[best].threads ||
                            (el[k].threads == el[best].threads && el[k].median_us < el[best].median_us))
                                best = (ssize_t) k;
                }
                if (best >= 0)
                        (void) snprintf(reason, sizeof(reason),
                                        "LOW_POWER: %s uses the fewest threads (%d) among the correct settings "
                                        "within 10%% of the fastest median (%s, %lld us); its median is %lld us "
                                        "(%zu correct settings)",
                                        el[best].label, (int) el[best].threads, el[fastest].label,
                                        (long long) el[fastest].median_us, (long long) el[best].median_us, n_ok);
                break;
        case TFLITE__PROTO__EXECUTION_PREFERENCE__FORCE_CPU:
                for (size_t k = 0; k < n_el; k++)
                        if (el[k].ok && el[k].cpu && (best < 0 || el[k].median_us < el[best].median_us))
                                best = (ssize_t) k;
                if (best >= 0)
                        (void) snprintf(reason, sizeof(reason),
                                        "FORCE_CPU: %s is the fastest correct reference-kernel setting "
                                        "(median %lld us)",
                                        el[best].label, (long long) el[best].median_us);
                break;
        default:
                best = fastest;
                if (best >= 0) {
                        ssize_t second = -1;

                        for (size_t k = 0; k < n_el; k++)
                                if (el[k].ok && (ssize_t) k != best &&
                                    (second < 0 || el[k].median_us < el[second].median_us))
                                        second = (ssize_t) k;
                        if (second >= 0)
                                (void) snprintf(reason, sizeof(reason),
                                                "%s: %s has the lowest median inference time (%lld us) of %zu "
                                                "correct settings; next is %s at %lld us",
                                                pref_name(preference), el[best].label,
                                                (long long) el[best].median_us, n_ok, el[second].label,
                                                (long long) el[second].median_us);
                        else
                                (void) snprintf(reason, sizeof(reason),
                                                "%s: %s is the only correct setting (median %lld us)",
                                                pref_name(preference), el[best].label,
                                                (long long) el[best].median_us);
                }
                break;
        }
        if (best >= 0 && n_inaccurate > 0) {
                size_t len = strlen(reason);

                if (len < sizeof(reason))
                        (void) snprintf(reason + len, sizeof(reason) - len,
                                        "; left out for an accuracy drop over %g: %s", max_accuracy_drop,
                                        inaccurate);
        }
        if (best < 0) {
                (void) store_decision_delete(db, model_sha256, preference);
                r = -ENOENT;
                goto out;
        }
        {
                store_decision_t d = {
                        .preference = preference,
                        .settings_key = el[best].e->settings_key,
                        .reason = reason,
                        .driver_versions = (char *) driver_versions,
                };
                _cleanup_free_ uint8_t *sb = NULL;
                size_t sn = 0;
                const Tflite__Proto__TFLiteSettings *ts = decoded[best]->tflite_settings;

                memcpy(d.model_sha256, model_sha256, ACC_SHA256_HEX_SIZE);
                if (ts) {
                        sn = tflite__proto__tflite_settings__get_packed_size(ts);
                        sb = malloc(sn ? sn : 1);
                        if (!sb) {
                                r = -ENOMEM;
                                goto out;
                        }
                        (void) tflite__proto__tflite_settings__pack(ts, sb);
                }
                d.settings = sb;
                d.settings_size = sn;
                r = store_decision_put(db, &d);
                if (r < 0)
                        goto out;
                if (ret)
                        r = store_decision_get(db, model_sha256, preference, ret);
        }
out:
        if (decoded)
                for (size_t k = 0; k < n; k++)
                        if (decoded[k])
                                tflite__proto__benchmark_event__free_unpacked(decoded[k], NULL);
        free(decoded);
        free(el);
        store_event_list_free(v, n);
        store_evaluation_list_free(evals, n_evals);
        return r;
}
