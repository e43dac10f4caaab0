/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The in-situ check of modelfuzz: difftest's op-level rule applied to every
 * op of a whole network, on the inputs our XNNPACK driver gave that op.
 *
 * A quantized network on XNNPACK can miss the golden's tolerance at its
 * output while no op breaks difftest's rule: XNNPACK requantizes each op in
 * float, TensorFlow Lite in fixed point, and differences of one step per op
 * compound through the layers (docs/conformance.md, findings 3 and 4). The
 * check tells that apart from a real op mismatch:
 *
 *   1. run the variant on our XNNPACK driver, then again with every op's
 *      outputs made model outputs (a new outputs vector appended to the file
 *      and pointed at); the model's own outputs must stay byte-identical,
 *      else exposing changed the run and the check fails;
 *   2. for every op, build a model of that op alone (same builtin or custom
 *      op, version, options, tensor types, shapes and quantization,
 *      constants copied; tests/builder), feed it the very inputs our run
 *      gave the op, run it on native TensorFlow Lite in a child process and
 *      compare our op's outputs with it by difftest's rule for the XNNPACK
 *      driver (dt_output_check, accum as difftest's generator of that op
 *      sets it);
 *   3. a custom op TensorFlow Lite refuses alone is compared with our
 *      reference kernel fed the same inputs, bit-exact (the reference rule:
 *      difftest compares our reference kernels with TensorFlow Lite).
 *
 * An op that cannot be checked (options with strings, control flow, more
 * than DT_MAX_IO inputs or outputs, TensorFlow Lite refusing a builtin op
 * alone) counts as failed: the check never passes what it did not compare.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dt.h"

typedef enum dt_insitu_verdict {
        DT_INSITU_PASS,       /* every output within the rule */
        DT_INSITU_FAIL,       /* an output outside the rule */
        DT_INSITU_UNCHECKED,  /* could not be compared (counts as failed) */
} dt_insitu_verdict_t;

typedef struct dt_insitu_op {
        dt_insitu_verdict_t verdict;
        const char *oracle;   /* "TFLite", "reference kernel" or "" */
        char msg[320];        /* the rule's worst element, or why unchecked */
} dt_insitu_op_t;

typedef struct dt_insitu {
        dt_insitu_op_t *ops;      /* one per op of subgraph 0 (owned) */
        int32_t n_ops;
        int32_t failed;           /* ops FAIL or UNCHECKED */
        int32_t first_failed;     /* -1 when none */
        bool exposure_changed;    /* exposing the ops' outputs changed the model's outputs */
        char msg[512];            /* what failed first, for a mismatch line */
} dt_insitu_t;

/* For tests of the check itself: op `op`'s first output, element 0, is
 * set to TFLite's value + `steps` (- steps when that leaves the type)
 * before the comparison. Quantized and integer outputs only. */
typedef struct dt_insitu_perturb {
        int32_t op;
        int32_t steps;
} dt_insitu_perturb_t;

/*
 * Run the check on `model` (a valid .tflite, 16-byte aligned) with its
 * inputs. Returns 0 with the result in *ret (passed when ret->failed == 0
 * and !ret->exposure_changed), or -errno when our XNNPACK driver cannot run
 * the model (message in ret->msg). perturb may be NULL. dt_insitu_done()
 * frees ret in both cases.
 */
int dt_insitu_check(dt_native_t *nat, const uint8_t *model, size_t size, void *const *inputs,
                    const size_t *in_sizes, int n_in, const dt_insitu_perturb_t *perturb, dt_insitu_t *ret);
void dt_insitu_done(dt_insitu_t *r);

static inline bool dt_insitu_passed(const dt_insitu_t *r) {
        return r->failed == 0 && !r->exposure_changed;
}
