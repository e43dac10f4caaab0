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

/* The default of the max_accuracy_drop setting. */
#define BENCH_DEFAULT_MAX_ACCURACY_DROP 0.01

/* bench_select_with() for the operators (uid 0) with
 * BENCH_DEFAULT_MAX_ACCURACY_DROP. */
int bench_select(store_db_t *db, const char *model_sha256, int preference, const char *driver_versions,
                 store_decision_t *ret);
