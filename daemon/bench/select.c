/* SPDX-License-Identifier: Apache-2.0 */
/* Choosing a setting from the event log (bench/select.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acceleration.pb-c.h"
#include "candidates.h"
#include "placement.h"
#include "select.h"
#include "settings.h"
#include "cleanup.h"
#include "models.h"
#include "worker.h"

typedef struct eligible {
        const store_event_t *e;         /* latest END/ERROR of its key */
        bool ok;
        int64_t median_us;              /* of its round medians when it has rounds */
        size_t rounds;                  /* interleaved rounds behind median_us, 0: one run */
        int64_t round_min_us, round_max_us; /* the range of its round medians */
        int64_t spread_us;                  /* that range without the slowest round (4 rounds or more) */
        bool variant;                   /* a stage-2 variant (bench_candidate_is_variant()) */
        int32_t threads;
        bool cpu;
        uint32_t pruned;                /* runs after which it was pruned, 0: not */
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
        return bench_select_with(db, model_sha256, preference, 0, driver_versions, BENCH_DEFAULT_MAX_ACCURACY_DROP,
                                 ret);
}

static int cmp_i64(const void *a, const void *b) {
        int64_t x = *(const int64_t *) a, y = *(const int64_t *) b;

        return (x > y) - (x < y);
}

int64_t bench_select_event_median(const Tflite__Proto__BenchmarkEvent *ev, int64_t fallback_us, size_t *ret_rounds,
                                  int64_t *ret_min_us, int64_t *ret_max_us) {
        int64_t v[BENCH_SELECT_MAX_ROUNDS];
        size_t n = daemon_worker_event_round_medians(ev, v, ELEMENTSOF(v));

        if (n > ELEMENTSOF(v))
                n = ELEMENTSOF(v);
        if (ret_rounds)
                *ret_rounds = n >= 2 ? n : 0;
        if (n < 2) {
                if (ret_min_us)
                        *ret_min_us = fallback_us;
                if (ret_max_us)
                        *ret_max_us = fallback_us;
                return fallback_us;
        }
        qsort(v, n, sizeof(v[0]), cmp_i64);
        if (ret_min_us)
                *ret_min_us = v[0];
        if (ret_max_us)
                *ret_max_us = v[n - 1];
        return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The candidates selection weighs: the latest END/ERROR of each key. */
typedef struct selection {
        eligible_t *el;
        Tflite__Proto__BenchmarkEvent **decoded;        /* el[k]'s event, when it is decoded */
        size_t n_el, n_ok;
        ssize_t fastest;                /* after selection_settle(): the setting kept */
        ssize_t raw_fastest;            /* the lowest median */
        char note[1536];                /* settle's comparisons (selection_settle()) */
        size_t n_inaccurate;
        char inaccurate[512];   /* the settings left out for accuracy, and why */
} selection_t;

/* The latest END/ERROR per settings key (ascending id: later wins). */
static void selection_collect(selection_t *sel, const store_event_t *v, size_t n) {
        for (size_t i = 0; i < n; i++) {
                const store_event_t *e = &v[i];
                size_t k;

                if (e->event_type != TFLITE__PROTO__BENCHMARK_EVENT_TYPE__END &&
                    e->event_type != TFLITE__PROTO__BENCHMARK_EVENT_TYPE__ERROR)
                        continue;
                for (k = 0; k < sel->n_el; k++)
                        if (strcmp(sel->el[k].e->settings_key, e->settings_key) == 0)
                                break;
                if (k == sel->n_el)
                        sel->n_el++;
                sel->el[k] = (eligible_t) { .e = e, .ok = e->event_type == TFLITE__PROTO__BENCHMARK_EVENT_TYPE__END &&
                                                           e->ok == 1 && e->median_inference_us >= 0,
                                            .median_us = e->median_inference_us };
        }
}

/* How far a setting's round medians spread, without its slowest round
 * when there are 4 or more: a round that another process interrupted is
 * slower, never faster, and on this machine one such round per setting
 * (deeplab's 1 thread: 11533 .. 16049 us against 2 threads' 9938 ..
 * 11890) made the whole range a margin no real gain could pass. */
static int64_t round_spread(const Tflite__Proto__BenchmarkEvent *ev, int64_t range_us) {
        int64_t v[BENCH_SELECT_MAX_ROUNDS];
        size_t n = daemon_worker_event_round_medians(ev, v, ELEMENTSOF(v));

        if (n > ELEMENTSOF(v))
                n = ELEMENTSOF(v);
        if (n < 4)
                return range_us;
        qsort(v, n, sizeof(v[0]), cmp_i64);
        return v[n - 2] - v[0];
}

/* Decode each correct candidate's settings (threads, CPU or not, label),
 * leave out those that lost too much accuracy, and find the fastest. */
static void selection_qualify(selection_t *sel, const store_evaluation_t *evals, size_t n_evals, double max_drop) {
        sel->fastest = -1;
        for (size_t k = 0; k < sel->n_el; k++) {
                eligible_t *el = &sel->el[k];
                Tflite__Proto__BenchmarkEvent *ev;
                char why[160];
                rt_settings_t s;

                if (!el->ok)
                        continue;
                ev = tflite__proto__benchmark_event__unpack(NULL, el->e->blob_size, el->e->blob);
                if (!ev) {
                        el->ok = false;
                        continue;
                }
                sel->decoded[k] = ev;
                if (ev->tflite_settings) {
                        if (rt_settings_from_proto(ev->tflite_settings, &s, NULL, 0) < 0) {
                                el->ok = false;
                                continue;
                        }
                } else
                        rt_settings_init(&s);
                el->threads = rt_settings_num_threads(&s, 1);
                el->pruned = daemon_worker_event_pruned_runs(ev);
                el->variant = bench_candidate_is_variant(&s);
                el->median_us = bench_select_event_median(ev, el->median_us, &el->rounds, &el->round_min_us,
                                                          &el->round_max_us);
                el->spread_us = round_spread(ev, el->round_max_us - el->round_min_us);
                el->cpu = s.delegate == RT_DELEGATE_NONE;
                rt_settings_label(&s, el->label, sizeof(el->label));
                if (accuracy_dropped(evals, n_evals, &s, max_drop, why, sizeof(why))) {
                        size_t len = strlen(sel->inaccurate);

                        if (len < sizeof(sel->inaccurate))
                                (void) snprintf(sel->inaccurate + len, sizeof(sel->inaccurate) - len, "%s%s (%s)",
                                                sel->n_inaccurate ? ", " : "", el->label, why);
                        sel->n_inaccurate++;
                        el->ok = false;
                        rt_settings_done(&s);
                        continue;
                }
                rt_settings_done(&s);
                sel->n_ok++;
                if (sel->fastest < 0 || el->median_us < sel->el[sel->fastest].median_us)
                        sel->fastest = (ssize_t) k;
        }
}

/* The margin by which a must beat b (us): the wider spread of the two
 * settings' round medians (what one setting measured from round to
 * round, its slowest round left out: round_spread()), and at least BENCH_VARIANT_MIN_GAIN of the slower median (one
 * round has no range). */
static int64_t margin_us(const eligible_t *a, const eligible_t *b) {
        int64_t slower = a->median_us > b->median_us ? a->median_us : b->median_us;
        int64_t need = (int64_t) ((double) slower * BENCH_VARIANT_MIN_GAIN + 0.5);

        if (a->rounds && a->spread_us > need)
                need = a->spread_us;
        if (b->rounds && b->spread_us > need)
                need = b->spread_us;
        return need;
}

/* Whether every round of a was faster than every round of b, both with
 * at least BENCH_SELECT_SEPARATED_ROUNDS rounds: two equally fast settings
 * give that by chance once in 35 (four rounds each) or 126 (five), however
 * wide one setting's own spread (style transfer at 1 thread: rounds of
 * 63.7 .. 88.5 ms against 47.4 .. 54.6 ms at 2 threads). */
static bool separated(const eligible_t *a, const eligible_t *b) {
        return a->rounds >= BENCH_SELECT_SEPARATED_ROUNDS && b->rounds >= BENCH_SELECT_SEPARATED_ROUNDS &&
               a->round_max_us < b->round_min_us;
}

/* Whether a is faster than b by more than the margin, or by at least
 * BENCH_VARIANT_MIN_GAIN of the slower median in every round. */
static bool beats(const eligible_t *a, const eligible_t *b) {
        int64_t gain = b->median_us - a->median_us;
        int64_t slower = a->median_us > b->median_us ? a->median_us : b->median_us;

        if (gain > margin_us(a, b))
                return true;
        return separated(a, b) && gain >= (int64_t) ((double) slower * BENCH_VARIANT_MIN_GAIN + 0.5);
}

/* "xnnpack/1t 2663 us (5 rounds, 2630 .. 2701)" */
static void describe_median(const eligible_t *e, char *buf, size_t size) {
        if (e->rounds)
                (void) snprintf(buf, size, "%s %lld us (%zu rounds, %lld .. %lld)", e->label,
                                (long long) e->median_us, e->rounds, (long long) e->round_min_us,
                                (long long) e->round_max_us);
        else
                (void) snprintf(buf, size, "%s %lld us", e->label, (long long) e->median_us);
}

/* Append to sel->note how challenger c (a variant, or more threads)
 * compared with k, the setting kept so far. */
static void note_compare(selection_t *sel, const eligible_t *c, const eligible_t *k, bool won) {
        size_t len = strlen(sel->note);
        char a[160], b[160];

        if (len >= sizeof(sel->note))
                return;
        describe_median(c, a, sizeof(a));
        describe_median(k, b, sizeof(b));
        if (won && k->median_us - c->median_us <= margin_us(c, k)) {
                (void) snprintf(sel->note + len, sizeof(sel->note) - len,
                                "; %s%s beats %s by %lld us, within the margin of %lld us but in every round "
                                "(its slowest round faster than the other's fastest, at least %g%% of the slower "
                                "median)",
                                c->variant ? "the variant " : "", a, b, (long long) (k->median_us - c->median_us),
                                (long long) margin_us(c, k), BENCH_VARIANT_MIN_GAIN * 100);
                return;
        }
        (void) snprintf(sel->note + len, sizeof(sel->note) - len,
                        "; %s%s %s %s by %lld us, %s the margin of %lld us (the wider range of their round "
                        "medians without the slowest, at least %g%% of the slower median)%s%s%s",
                        c->variant ? "the variant " : "", a, won ? "beats" : "is faster than", b,
                        (long long) (k->median_us - c->median_us), won ? "more than" : "not more than",
                        (long long) margin_us(c, k), BENCH_VARIANT_MIN_GAIN * 100,
                        won ? "" : ": within the noise, ", won ? "" : k->label, won ? "" : " is kept");
}

/* The plain settings in order of threads: one with more threads replaces
 * the one kept only when it beats it by the margin (the same speed with
 * more threads is not faster, only costlier, and two threads on a busy
 * machine are the first to suffer); then the fastest variant must beat
 * the kept setting by the margin. sel->fastest becomes the setting kept
 * (sel->raw_fastest the lowest median), sel->note says who lost within
 * the noise or won by more. */
static void selection_settle(selection_t *sel) {
        const eligible_t *el = sel->el;
        ssize_t kept = -1, v = -1;
        int32_t above = -1;

        sel->raw_fastest = sel->fastest;
        if (sel->fastest < 0)
                return;
        for (;;) {
                ssize_t next = -1;

                for (size_t k = 0; k < sel->n_el; k++)
                        if (el[k].ok && !el[k].variant && el[k].threads > above &&
                            (next < 0 || el[k].threads < el[next].threads ||
                             (el[k].threads == el[next].threads && el[k].median_us < el[next].median_us)))
                                next = (ssize_t) k;
                if (next < 0)
                        break;
                above = el[next].threads;
                if (kept < 0)
                        kept = next;
                else if (beats(&el[next], &el[kept])) {
                        note_compare(sel, &el[next], &el[kept], true);
                        kept = next;
                } else if (el[next].median_us < el[kept].median_us)
                        note_compare(sel, &el[next], &el[kept], false);
        }
        for (size_t k = 0; k < sel->n_el; k++)
                if (el[k].ok && el[k].variant && (v < 0 || el[k].median_us < el[v].median_us))
                        v = (ssize_t) k;
        if (kept < 0)
                kept = v;
        else if (v >= 0 && el[v].median_us < el[kept].median_us) {
                bool won = beats(&el[v], &el[kept]);

                note_compare(sel, &el[v], &el[kept], won);
                if (won)
                        kept = v;
        }
        sel->fastest = kept;
}

/* At the same thread count, whether a is preferred to b: a variant over
 * a plain setting only when it beats it by the margin, else the lower
 * median. */
static bool preferred_to(const eligible_t *a, const eligible_t *b) {
        if (a->variant && !b->variant)
                return beats(a, b);
        if (!a->variant && b->variant)
                return !beats(b, a);
        return a->median_us < b->median_us;
}

/* LOW_POWER: the fewest threads within 10% of the fastest median. */
static ssize_t pick_low_power(const selection_t *sel, char *reason, size_t reason_size) {
        const eligible_t *el = sel->el;
        ssize_t best = -1, fastest = sel->fastest;

        if (fastest < 0)
                return -1;
        for (size_t k = 0; k < sel->n_el; k++) {
                if (!el[k].ok || (double) el[k].median_us > 1.1 * (double) el[fastest].median_us)
                        continue;
                if (best < 0 || el[k].threads < el[best].threads ||
                    (el[k].threads == el[best].threads && preferred_to(&el[k], &el[best])))
                        best = (ssize_t) k;
        }
        if (best >= 0)
                (void) snprintf(reason, reason_size,
                                "LOW_POWER: %s uses the fewest threads (%d) among the correct settings "
                                "within 10%% of the fastest median (%s, %lld us); its median is %lld us "
                                "(%zu correct settings)",
                                el[best].label, (int) el[best].threads, el[fastest].label,
                                (long long) el[fastest].median_us, (long long) el[best].median_us, sel->n_ok);
        return best;
}

/* FORCE_CPU: the fastest reference-kernel setting. */
static ssize_t pick_force_cpu(const selection_t *sel, char *reason, size_t reason_size) {
        const eligible_t *el = sel->el;
        ssize_t best = -1;

        for (size_t k = 0; k < sel->n_el; k++)
                if (el[k].ok && el[k].cpu && (best < 0 || el[k].median_us < el[best].median_us))
                        best = (ssize_t) k;
        if (best >= 0)
                (void) snprintf(reason, reason_size,
                                "FORCE_CPU: %s is the fastest correct reference-kernel setting "
                                "(median %lld us)",
                                el[best].label, (long long) el[best].median_us);
        return best;
}

/* ANY and LOW_LATENCY: the fastest, named with the runner-up. */
static ssize_t pick_fastest(const selection_t *sel, int preference, char *reason, size_t reason_size) {
        const eligible_t *el = sel->el;
        ssize_t best = sel->fastest, second = -1;

        if (best < 0)
                return -1;
        if (best != sel->raw_fastest) {
                (void) snprintf(reason, reason_size, "%s: %s is kept (median %lld us) of %zu correct settings%s",
                                pref_name(preference), el[best].label, (long long) el[best].median_us, sel->n_ok,
                                sel->note);
                return best;
        }
        for (size_t k = 0; k < sel->n_el; k++)
                if (el[k].ok && (ssize_t) k != best && (second < 0 || el[k].median_us < el[second].median_us))
                        second = (ssize_t) k;
        if (second >= 0)
                (void) snprintf(reason, reason_size,
                                "%s: %s has the lowest median inference time (%lld us) of %zu "
                                "correct settings; next is %s at %lld us",
                                pref_name(preference), el[best].label, (long long) el[best].median_us, sel->n_ok,
                                el[second].label, (long long) el[second].median_us);
        else
                (void) snprintf(reason, reason_size, "%s: %s is the only correct setting (median %lld us)",
                                pref_name(preference), el[best].label, (long long) el[best].median_us);
        if (sel->note[0]) {
                size_t len = strlen(reason);

                if (len < reason_size)
                        (void) snprintf(reason + len, reason_size - len, "%s", sel->note);
        }
        return best;
}

static int cmp_median(const void *a, const void *b) {
        const eligible_t *x = *(const eligible_t *const *) a, *y = *(const eligible_t *const *) b;

        return (x->median_us > y->median_us) - (x->median_us < y->median_us);
}

/* "; measured: xnnpack/2t 690 us, xnnpack/1t 1100 us (pruned after 3
 * runs), ...": every correct setting by median, so the reason shows what
 * the choice was made from and what was cut short. */
static void reason_append_medians(const selection_t *sel, char *reason, size_t size) {
        _cleanup_free_ const eligible_t **v = calloc(sel->n_el + 1, sizeof(*v));
        size_t n = 0, len = strlen(reason), n_pruned = 0;

        if (!v)
                return;
        for (size_t k = 0; k < sel->n_el; k++)
                if (sel->el[k].ok)
                        v[n++] = &sel->el[k];
        qsort(v, n, sizeof(*v), cmp_median);
        for (size_t i = 0; i < n && len < size; i++) {
                char one[160];
                int w;

                describe_median(v[i], one, sizeof(one));
                w = snprintf(reason + len, size - len, "%s%s", i ? ", " : "; measured: ", one);

                if (w > 0)
                        len += (size_t) w;
                if (v[i]->pruned && len < size) {
                        w = snprintf(reason + len, size - len, " (pruned after %u run%s)", v[i]->pruned,
                                     v[i]->pruned == 1 ? "" : "s");
                        if (w > 0)
                                len += (size_t) w;
                        n_pruned++;
                }
        }
        if (n_pruned && len < size)
                (void) snprintf(reason + len, size - len, "; %zu pruned as clearly slower than the best so far",
                                n_pruned);
}

/* "; placement: client: compute 6 us, round trip 80 us ...": where the
 * chosen setting would run (bench/placement.h), with the round trip known
 * now; each prepare decides again with the round trip of its time. */
static void reason_append_placement(const selection_t *sel, ssize_t best, char *reason, size_t size) {
        const Tflite__Proto__BenchmarkEvent *ev = sel->decoded[best];
        size_t len = strlen(reason);
        char why[256];
        rt_settings_t s;

        if (ev && ev->tflite_settings) {
                if (rt_settings_from_proto(ev->tflite_settings, &s, NULL, 0) < 0)
                        return;
        } else
                rt_settings_init(&s);
        (void) bench_placement_decide(&s, sel->el[best].median_us, NULL, why, sizeof(why));
        rt_settings_done(&s);
        if (len < size)
                (void) snprintf(reason + len, size - len, "; placement: %s", why);
}

/* Store the decision for the chosen event (its settings re-packed), and
 * read it back into *ret when ret is non-NULL. */
static int decision_store(store_db_t *db, const char *model_sha256, int preference, uint32_t uid,
                          const char *driver_versions, const char *settings_key,
                          const Tflite__Proto__BenchmarkEvent *chosen, const char *reason, store_decision_t *ret) {
        store_decision_t d = {
                .preference = preference,
                .uid = uid,
                .settings_key = (char *) settings_key,
                .reason = (char *) reason,
                .driver_versions = (char *) driver_versions,
        };
        _cleanup_free_ uint8_t *sb = NULL;
        size_t sn = 0;
        const Tflite__Proto__TFLiteSettings *ts = chosen->tflite_settings;
        int r;

        memcpy(d.model_sha256, model_sha256, ACC_SHA256_HEX_SIZE);
        if (ts) {
                sn = tflite__proto__tflite_settings__get_packed_size(ts);
                sb = malloc(sn ? sn : 1);
                if (!sb)
                        return -ENOMEM;
                (void) tflite__proto__tflite_settings__pack(ts, sb);
        }
        d.settings = sb;
        d.settings_size = sn;
        r = store_decision_put(db, &d);
        if (r < 0 || !ret)
                return r;
        return store_decision_get(db, model_sha256, preference, uid, ret);
}

int bench_select_with(store_db_t *db, const char *model_sha256, int preference, uint32_t uid,
                      const char *driver_versions, double max_accuracy_drop, store_decision_t *ret) {
        /* Only what uid and the operators recorded: another tenant's
         * events and evaluations never move uid's decision. */
        store_evaluation_filter_t ef = { .model_sha256 = model_sha256, .has_uid = true, .uid = uid,
                                         .with_operators = true };
        store_evaluation_t *evals = NULL;
        size_t n_evals = 0;
        store_event_filter_t f = { .model_sha256 = model_sha256, .has_uid = true, .uid = uid,
                                   .with_operators = true };
        store_event_t *v = NULL;
        size_t n = 0;
        selection_t sel = { 0 };
        ssize_t best;
        char reason[2048];
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
        sel.el = calloc(n + 1, sizeof(*sel.el));
        sel.decoded = calloc(n + 1, sizeof(*sel.decoded));
        if (!sel.el || !sel.decoded) {
                r = -ENOMEM;
                goto out;
        }
        selection_collect(&sel, v, n);
        selection_qualify(&sel, evals, n_evals, max_accuracy_drop);
        selection_settle(&sel);

        switch (preference) {
        case TFLITE__PROTO__EXECUTION_PREFERENCE__LOW_POWER:
                best = pick_low_power(&sel, reason, sizeof(reason));
                break;
        case TFLITE__PROTO__EXECUTION_PREFERENCE__FORCE_CPU:
                best = pick_force_cpu(&sel, reason, sizeof(reason));
                break;
        default:
                best = pick_fastest(&sel, preference, reason, sizeof(reason));
                break;
        }
        if (best < 0) {
                (void) store_decision_delete(db, model_sha256, preference, uid);
                r = -ENOENT;
                goto out;
        }
        reason_append_placement(&sel, best, reason, sizeof(reason));
        if (sel.n_inaccurate > 0) {
                size_t len = strlen(reason);

                if (len < sizeof(reason))
                        (void) snprintf(reason + len, sizeof(reason) - len,
                                        "; left out for an accuracy drop over %g: %s", max_accuracy_drop,
                                        sel.inaccurate);
        }
        reason_append_medians(&sel, reason, sizeof(reason));
        r = decision_store(db, model_sha256, preference, uid, driver_versions, sel.el[best].e->settings_key,
                           sel.decoded[best], reason, ret);
out:
        if (sel.decoded)
                for (size_t k = 0; k < n; k++)
                        if (sel.decoded[k])
                                tflite__proto__benchmark_event__free_unpacked(sel.decoded[k], NULL);
        free(sel.decoded);
        free(sel.el);
        store_event_list_free(v, n);
        store_evaluation_list_free(evals, n_evals);
        return r;
}
