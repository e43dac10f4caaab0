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
 * Runs on the storage thread (or any thread owning db).
 */
#pragma once

#include "storage.h"

/*
 * Choose for (model_sha256, preference) and store the decision with its
 * reason and `driver_versions` (store_decision_put()). *ret (may be NULL)
 * receives it (store_decision_done() it).
 * Returns 0; -ENOENT when no setting is eligible (any older decision for
 * that preference is then deleted); -EINVAL; -ENOMEM; -EIO.
 */
int bench_select(store_db_t *db, const char *model_sha256, int preference, const char *driver_versions,
                 store_decision_t *ret);
