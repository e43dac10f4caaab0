/* SPDX-License-Identifier: Apache-2.0 */
/* INTERNAL header of the runtime (runtime_internal_dep): not installed, not
 * part of the public API in runtime/include/ (docs/architecture.md). */
/*
 * Weight folding (runtime-internal): DENSIFY of a constant and DEQUANTIZE
 * of a constant (float16, int8, uint8 or int16 to float32) run once, when
 * the interpreter is built, as TensorFlow Lite's kernels do for constant
 * inputs; drivers then see dense float32 weights.
 *
 * With a weights cache (wcache.h) the folded tensors of one executor are
 * one blob, keyed "fold/s<subgraph>/<model key>" (the model key is the
 * model's SHA-256): the first interpreter computes and stores them, every
 * later one (in this process, in a benchmark worker, in a driver host, or
 * after a restart) maps the same file and runs nothing. The blob's payload
 * starts with a directory (fold_dir_t below) of (tensor, type, offset,
 * bytes) entries, each 64-byte aligned.
 */
#pragma once

#include <stdint.h>

#include "driver.h"
#include "executor.h"
#include "wcache.h"

/*
 * Fold the weights of `e` (subgraph `subgraph` of the model `model_key`
 * names). c and model_key may be NULL: then the results live in the
 * executor's heap. *ret_blob gets the blob the tensors point into (the
 * caller keeps it until the executor is freed) or NULL. Returns the number
 * of folded nodes, or -errno with the executor's message. A cache that
 * cannot store (full disk, quota) is not an error: the heap copy stays.
 */
int rt_fold_weights(rt_exec_t *e, rt_wcache_t *c, const char *model_key, int32_t subgraph,
                    rt_wcache_blob_t **ret_blob);

/*
 * The drivers' weights-cache hook (driver.h) over cache `c` for the model
 * `model_key`: keys become "drv/<model key>/<driver's key>". Embed it
 * where it outlives every prepared group that holds data from it.
 */
typedef struct rt_weights_hook {
        rt_driver_weights_t pub;
        rt_wcache_t *cache;
        char model_key[96];
} rt_weights_hook_t;

/* 0, or -EINVAL (no cache, key too long). */
int rt_weights_hook_init(rt_weights_hook_t *h, rt_wcache_t *c, const char *model_key);
