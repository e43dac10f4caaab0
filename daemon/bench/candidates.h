/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The candidates of a benchmark run when the client lists none, made from
 * what the model contains (docs/benchmarking.md, "The search"), in two
 * stages:
 *   1. the reference kernels, XNNPACK at cpus .. 1 threads (cpus: acceld's
 *      CPU budget, daemon_cpu_budget()), one candidate per other
 *      registered driver;
 *   2. around the fastest correct XNNPACK setting of stage 1, at its thread
 *      count: each quantized path off (QS8 for models with int8 tensors,
 *      QU8 for uint8 ones), forced FP16 (float models, CPUs with FP16
 *      arithmetic), sparse inference (models with sparse weights), and the
 *      partitioning choices when its plan has several delegated groups
 *      (max_delegated_partitions 1; min_nodes_per_partition thresholds that
 *      each move some small groups, never all, to the reference kernels).
 * Pure functions of their inputs; any thread.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model.h"
#include "settings.h"

/* What the candidates depend on in a model. */
typedef struct bench_model_traits {
        bool has_float;         /* float32 arithmetic: an op with a float32 output */
        bool has_int8;          /* quantized int8 tensors (XNNPACK's QS8 path) */
        bool has_uint8;         /* quantized uint8 tensors (QU8) */
        bool has_sparse;        /* sparse weights: a tensor with sparsity, or DENSIFY */
} bench_model_traits_t;

/* The traits of every subgraph of m. */
void bench_model_traits_get(const rt_model_t *m, bench_model_traits_t *ret);

/* min_nodes_per_partition thresholds tried at most. */
#define BENCH_MIN_NODES_CANDIDATES 3

/*
 * Stage 1 into *ret_v / *ret_n (malloc'ed; rt_settings_done() each, then
 * free()). `cpus` >= 1 is the highest thread count; `with_xnnpack`
 * whether the XNNPACK driver is there. Returns 0 or -ENOMEM.
 */
int bench_candidates_generate(const bench_model_traits_t *mt, unsigned cpus, bool with_xnnpack,
                              rt_settings_t **ret_v, size_t *ret_n);

/*
 * Stage 2 around `base` (an XNNPACK setting), whose plan had the groups
 * partition_nodes[i] (delegated[i]: run by XNNPACK), n_partitions of
 * them (0: unknown, no partitioning candidates). fp16_ok: the CPU has FP16
 * arithmetic. Same ownership and returns as above; *ret_n may be 0.
 */
/*
 * Whether s is one of stage 2's variants of an XNNPACK setting: a
 * quantized path off, forced FP16, sparse inference or a partitioning
 * choice (max_delegated_partitions, min_nodes_per_partition). The
 * others (the reference kernels, XNNPACK at a thread count, a plugin)
 * are "plain": what acceld runs without the search. Selection keeps the
 * plain setting unless a variant is faster by more than the measured
 * spread (bench/select.h).
 */
bool bench_candidate_is_variant(const rt_settings_t *s);

int bench_candidates_refine(const bench_model_traits_t *mt, const rt_settings_t *base, bool fp16_ok,
                            const int32_t *partition_nodes, const bool *delegated, size_t n_partitions,
                            rt_settings_t **ret_v, size_t *ret_n);
