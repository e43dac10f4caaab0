/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Model mutation for robustness runs (tests/fuzz/mutate.c, the daemon test
 * tests/daemon/test-acceld-mutants.c): real .tflite files with a few int32s,
 * bytes or offsets of their flatbuffer changed, and the runs that push one
 * mutant through acceld (prepare, allocate, execute) or the in-process
 * runtime in a child process bounded by a timeout.
 *
 * Every mutant is a function of (seed, index) alone: mutant i of seed S is
 * the same bytes on every machine and in every run, so a finding is
 * replayed with `mutate --seed S --first i --count 1`.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* A small deterministic generator (splitmix64). */
typedef struct mut_rng {
        uint64_t state;
} mut_rng_t;

void mut_rng_seed(mut_rng_t *r, uint64_t seed, uint64_t index);
uint64_t mut_rng_next(mut_rng_t *r);
/* Uniform in [0, n); n > 0. */
uint64_t mut_rng_below(mut_rng_t *r, uint64_t n);

/* The seed models: every *.tflite directly in a directory, sorted by name. */
typedef struct mut_model {
        char *path;
        char *name;     /* basename */
        uint8_t *data;
        size_t size;
} mut_model_t;

typedef struct mut_corpus {
        mut_model_t *models;
        size_t n;
} mut_corpus_t;

/* Load the models of `dir` no larger than max_bytes (0: no limit) whose
 * names contain none of the `exclude` strings (NULL-terminated, may be
 * NULL). 0, -ENOENT (no model there) or -errno. */
int mut_corpus_load(mut_corpus_t *c, const char *dir, size_t max_bytes, const char *const *exclude);
void mut_corpus_free(mut_corpus_t *c);

/* One mutant: a copy of a seed model with 1..4 edits. */
typedef struct mut_mutant {
        const mut_model_t *model;
        uint8_t *data;          /* malloc'ed, size bytes */
        size_t size;
        char what[512];         /* the edits, "int32@1234 7->-1; byte@99 ..." */
        bool xnnpack;           /* run with delegate XNNPACK (else NONE) */
        uint64_t input_seed;    /* fills the inputs */
} mut_mutant_t;

/* Mutant `index` of `seed`. 0 or -ENOMEM. */
int mut_mutant_make(const mut_corpus_t *c, uint64_t seed, uint64_t index, mut_mutant_t *ret);
void mut_mutant_free(mut_mutant_t *m);

/* What a child run reports (its exit status). */
typedef enum mut_outcome {
        MUT_EXECUTED = 0,          /* prepared, allocated and invoked */
        MUT_PREPARE_REFUSED = 1,   /* the model or its prepare was refused */
        MUT_ALLOCATE_FAILED = 2,
        MUT_EXECUTE_FAILED = 3,    /* invoke returned an error */
        MUT_CLIENT_ERROR = 4,      /* the run could not start (out of memory, no socket) */
        MUT_CRASHED = 100,         /* the child died of a signal: in-process, a finding */
        MUT_HUNG = 101,            /* the child outlived the timeout: a finding */
} mut_outcome_t;

const char *mut_outcome_name(mut_outcome_t o);

/* Run `m` in a forked child, through acceld at `socket` when it is not
 * NULL, else in this process's runtime; kill it after timeout_ms. */
mut_outcome_t mut_run(const mut_mutant_t *m, const char *socket, unsigned timeout_ms);

/* Whether acceld at `socket` answers a Hello within timeout_ms. */
bool mut_daemon_answers(const char *socket, unsigned timeout_ms);

/* Write the mutant to dir/<prefix>-<seed>-<index>.tflite and its edits to
 * a .txt beside it. 0 or -errno. */
int mut_mutant_save(const mut_mutant_t *m, const char *dir, const char *prefix, uint64_t seed, uint64_t index);
