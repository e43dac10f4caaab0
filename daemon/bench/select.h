/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Selection: the best setting of a model for an ExecutionPreference, from
 * its recorded benchmark events. For each settings key only its latest END
 * or ERROR counts, and only an END with ok=true makes it eligible.
 *   LOW_LATENCY, ANY  the lowest median inference time;
 *   LOW_POWER         the fewest threads among those within 10% of that
 *                     lowest median (ties: the lower median);
 *   FORCE_CPU         the CPU path: the best reference-kernel setting
 *                     (delegate NONE).
 * A setting's median is the median of its round medians when the runner
 * confirmed it in interleaved rounds (the END event's round medians,
 * worker.h), else the median of its runs. For ANY and LOW_LATENCY a
 * costlier setting must beat the one kept by a margin, the wider range of
 * the two settings' round medians and at least BENCH_VARIANT_MIN_GAIN of
 * the slower median: among the plain settings (reference, XNNPACK at a
 * thread count, plugins), one with more threads replaces the fastest with
 * fewer only by that margin; a stage-2 variant (sparse, a quantized path
 * off, FP16, a partitioning choice: bench_candidate_is_variant()) then
 * replaces the plain setting kept only by that margin. Within the noise
 * the reason says which was kept, with both medians, their ranges and
 * the margin; LOW_POWER prefers, at one thread count, a plain setting to
 * a variant within the noise.
 * Accuracy: when the model has a recorded top-1 accuracy (stage
 * "topk") or mAP ("detection") both for the setting (its daemon instance
 * key) and for the reference kernels (any key "delegate=NONE;..."), the
 * latest of each, a setting whose figure is lower by more than
 * max_accuracy_drop (an absolute fraction: 0.01 = one point) is not
 * eligible. Settings without both figures are judged as before.
 * Runs on the storage thread (or any thread owning db).
 */
#pragma once

#include "storage.h"

/*
 * Choose for (model_sha256, preference) on behalf of `uid` from the
 * events and evaluations uid and the operators recorded (uid 0: the
 * operators' alone), and store the decision for uid with its reason and
 * `driver_versions` (store_decision_put()). *ret (may be NULL) receives it
 * (store_decision_done() it).
 * Returns 0; -ENOENT when no setting is eligible (uid's older decision for
 * that preference is then deleted); -EINVAL; -ENOMEM; -EIO.
 */
int bench_select_with(store_db_t *db, const char *model_sha256, int preference, uint32_t uid,
                      const char *driver_versions, double max_accuracy_drop, store_decision_t *ret);

/* The least a variant must gain over the plain setting, as a fraction of
 * the plain setting's median. */
#define BENCH_VARIANT_MIN_GAIN 0.03
/* Round medians read from one event at most. */
#define BENCH_SELECT_MAX_ROUNDS 16
/* The rounds each of two settings needs before "every round of one was
 * faster than every round of the other" counts as beating it. */
#define BENCH_SELECT_SEPARATED_ROUNDS 4

/* The median of ev's round medians (and their count, min and max) when
 * it has two or more, else fallback_us (its runs' median; count 0, min =
 * max = fallback_us). The pointers may be NULL. */
struct Tflite__Proto__BenchmarkEvent;
int64_t bench_select_event_median(const struct Tflite__Proto__BenchmarkEvent *ev, int64_t fallback_us,
                                  size_t *ret_rounds, int64_t *ret_min_us, int64_t *ret_max_us);

/* The default of the max_accuracy_drop setting. */
#define BENCH_DEFAULT_MAX_ACCURACY_DROP 0.01

/* bench_select_with() for the operators (uid 0) with
 * BENCH_DEFAULT_MAX_ACCURACY_DROP. */
int bench_select(store_db_t *db, const char *model_sha256, int preference, const char *driver_versions,
                 store_decision_t *ret);
