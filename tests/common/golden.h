/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Test helper: read ../shared/models/manifest.json (json-c) and compare
 * output tensors with their goldens by the rule in ../shared/models/README.md
 * (float atol/rtol with NaN/inf rules and ignore_elements, integer steps with
 * max_mismatch_fraction, strings byte-equal, sizes must match).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model.h"

typedef enum golden_tol_kind {
        GOLDEN_TOL_REFERENCE,    /* tolerance.reference: portable reference kernels */
        GOLDEN_TOL_ACCELERATED,  /* tolerance.accelerated: the XNNPACK path */
        _GOLDEN_TOL_MAX,
} golden_tol_kind_t;

typedef struct golden_tol {
        bool present;
        double atol;                  /* float outputs */
        double rtol;
        int64_t steps;                /* integer outputs */
        double max_mismatch_fraction; /* < 0: not given */
} golden_tol_t;

typedef struct golden_tensor {
        char *name;
        char *path;            /* absolute path of the .bin file */
        rt_type_t type;        /* _RT_TYPE_MAX if the manifest's type is unknown */
        int32_t rank;
        int32_t shape[RT_MAX_RANK];
        golden_tol_t tol[_GOLDEN_TOL_MAX];
        int64_t *ignore;       /* ignore_elements (flat indices) */
        size_t n_ignore;
} golden_tensor_t;

typedef struct golden_model {
        char *name;
        char *path;            /* absolute path of the .tflite file */
        bool runnable;
        char *reason;          /* why not runnable, or "" */
        char **custom_ops;     /* op names from "ops" that start with "CUSTOM:" (without it) */
        size_t n_custom_ops;
        golden_tensor_t *inputs;
        size_t n_inputs;
        golden_tensor_t *outputs;
        size_t n_outputs;
} golden_model_t;

typedef struct golden_manifest {
        char *dir;             /* .../shared/models */
        golden_model_t *models;
        size_t n_models;
} golden_manifest_t;

/* $ACCELD_SHARED_DIR, or NULL when unset or not a directory. */
const char *golden_shared_dir(void);

/*
 * Parse <shared_dir>/models/manifest.json. Returns 0, -ENOENT (no manifest),
 * -EINVAL (malformed, message in err) or -ENOMEM. Free with
 * golden_manifest_free().
 */
int golden_manifest_load(const char *shared_dir, golden_manifest_t **ret, char *err, size_t err_size);

/* NULL-safe; returns NULL. */
golden_manifest_t *golden_manifest_free(golden_manifest_t *m);

/* Find a model by name; NULL if absent. */
const golden_model_t *golden_manifest_find(const golden_manifest_t *m, const char *name);


typedef struct golden_result {
        bool pass;
        double score;         /* max over elements of |a - b| / allowed (pass <= 1) */
        double max_err;       /* max |a - b| (value units or integer steps) */
        size_t worst;         /* element with the largest score */
        size_t mismatches;    /* elements that fail (float) or differ (integer) */
        size_t elements;
        char message[256];    /* why it failed, "" when it passed */
} golden_result_t;

/*
 * Compare candidate bytes `a` with golden bytes `b` for output tensor `g`
 * using tolerance `kind`. Returns 0 with *ret filled (ret->pass tells the
 * verdict; a size mismatch is a failure, not an error), or -EINVAL when the
 * tensor has no such tolerance or an unsupported type.
 */
int golden_compare(const golden_tensor_t *g, golden_tol_kind_t kind, const void *a, size_t a_size,
                   const void *b, size_t b_size, golden_result_t *ret);
