/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The "misc" kernel family: TensorFlow Lite builtins that fit no other
 * family: index-driven scatter/gather-like ops, data-dependent shapes,
 * segment reductions, matrix diagonals, non-max suppression and a few
 * small elementwise odds and ends, matching TensorFlow Lite 2.9 (and the
 * later builtins named below) on x86-64.
 *
 *   ONE_HOT (85)                 indices int32/int64; on/off float32, int32,
 *                                int64, int16, int8, uint8, bool
 *   WHERE (109)                  bool, float32, int32, int64, int8, uint8,
 *                                uint32 -> int64 coordinates (dynamic)
 *   UNIQUE (103)                 float32, int8, int16, int32, int64, uint8;
 *                                idx int32/int64 (output 0 dynamic)
 *   SCATTER_ND (122)             indices int32/int64; updates float32, int8,
 *                                uint8, int32, int64, bool
 *   SPARSE_TO_DENSE (68)         indices int32/int64; float32, int32, int64,
 *                                int8, uint8
 *   SEGMENT_SUM (125)            float32, int32; int32 sorted segment ids
 *   UNSORTED_SEGMENT_SUM (155), _PROD (153), _MAX (154), _MIN (157)
 *                                float32, int32; int32 ids, num_segments
 *   MATRIX_DIAG (113), MATRIX_SET_DIAG (115)   any fixed-size type
 *   NON_MAX_SUPPRESSION_V4 (120), NON_MAX_SUPPRESSION_V5 (121)   float32
 *   BUCKETIZE (147)              float32, float64, int32, int64 -> int32
 *   ATAN2 (156)                  float32, float64
 *   DYNAMIC_UPDATE_SLICE (151)   any fixed-size type; int32/int64 starts
 *   BROADCAST_ARGS (145)         int32, int64 shapes
 *   RANK (110)                   any -> int32 scalar
 *   TOPK_V2 (48)                 float32, int8, uint8, int16, int32, int64;
 *                                int32 indices
 *   REVERSE_SEQUENCE (112)       float32, int8, uint8, int16, int32, int64;
 *                                int32/int64 lengths
 *   FAKE_QUANT (80)              float32
 *   HASHTABLE_LOOKUP (10)        int32 keys; float32, int32, uint8 values
 *   BITCAST (159)                any fixed-size types (shape by size ratio)
 *   BITWISE_XOR (160), RIGHT_SHIFT (161)   int8, uint8, int16, uint16,
 *                                int32, uint32, with broadcasting
 *   SKIP_GRAM (30)               string -> string n-grams
 *   EMBEDDING_LOOKUP_SPARSE (33) float32; int32 ids, indices, dense shape
 *   RANDOM_UNIFORM (148), RANDOM_STANDARD_NORMAL (146)   float32 output
 *   MULTINOMIAL (149)            float32 logits -> int32/int64 samples
 *
 * The random ops use TensorFlow's Philox4x32-10 generator seeded from the
 * options' seed / seed2 exactly as TFLite 2.9 does (key = seed, counter
 * high words = seed2), so a model with a non-zero seed produces TFLite's
 * numbers; seed == seed2 == 0 asks for a non-deterministic seed. The
 * generator is reset by every prepare and advances with every invoke.
 *
 * Outputs whose shape depends on input values (WHERE, UNIQUE, ONE_HOT with
 * a non-constant depth, SEGMENT_SUM with non-constant ids, ...) are marked
 * dynamic in prepare and sized at invoke; when the deciding input is a
 * model constant the shape is set in prepare instead.
 *
 * Each registration's parse hook fills one of the params structs below from
 * the node's builtin options (field ids are the schema's field order); tests
 * fill them directly. The structs are plain data with nothing to free. Ops
 * without options have no params.
 *
 * Every hook returns 0 or a negative errno: -EINVAL for a model that is
 * wrong for the op (types, shapes, an index out of range), -ENOTSUP for an
 * element type this family lacks, -ENOMEM. A message is left with
 * rt_ctx_error() first.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "kernel.h"

/* TFLite BuiltinOperator numbers of the family. */
#define RT_OP_HASHTABLE_LOOKUP 10
#define RT_OP_SKIP_GRAM 30
#define RT_OP_EMBEDDING_LOOKUP_SPARSE 33
#define RT_OP_TOPK_V2 48
#define RT_OP_SPARSE_TO_DENSE 68
#define RT_OP_FAKE_QUANT 80
#define RT_OP_ONE_HOT 85
#define RT_OP_UNIQUE 103
#define RT_OP_WHERE 109
#define RT_OP_RANK 110
#define RT_OP_REVERSE_SEQUENCE 112
#define RT_OP_MATRIX_DIAG 113
#define RT_OP_MATRIX_SET_DIAG 115
#define RT_OP_NON_MAX_SUPPRESSION_V4 120
#define RT_OP_NON_MAX_SUPPRESSION_V5 121
#define RT_OP_SCATTER_ND 122
#define RT_OP_SEGMENT_SUM 125
#define RT_OP_BROADCAST_ARGS 145
#define RT_OP_RANDOM_STANDARD_NORMAL 146
#define RT_OP_BUCKETIZE 147
#define RT_OP_RANDOM_UNIFORM 148
#define RT_OP_MULTINOMIAL 149
#define RT_OP_DYNAMIC_UPDATE_SLICE 151
#define RT_OP_UNSORTED_SEGMENT_PROD 153
#define RT_OP_UNSORTED_SEGMENT_MAX 154
#define RT_OP_UNSORTED_SEGMENT_SUM 155
#define RT_OP_ATAN2 156
#define RT_OP_UNSORTED_SEGMENT_MIN 157
#define RT_OP_BITCAST 159
#define RT_OP_BITWISE_XOR 160
#define RT_OP_RIGHT_SHIFT 161

/* OneHotOptions: axis (field 0, default -1: a new last axis). */
typedef struct rt_one_hot_params {
        int32_t axis;
} rt_one_hot_params_t;

/* UniqueOptions: idx_out_type (field 0, default INT32). The idx output
 * tensor's own type decides; an option that disagrees with it is an
 * error. */
typedef struct rt_unique_params {
        rt_type_t idx_out_type;
} rt_unique_params_t;

/* SparseToDenseOptions: validate_indices (field 0). Indices are always
 * bounds-checked here; the flag is kept for completeness. */
typedef struct rt_sparse_to_dense_params {
        bool validate_indices;
} rt_sparse_to_dense_params_t;

/* BucketizeOptions: boundaries (field 0, a float vector). `boundaries`
 * holds n_boundaries little-endian float32 values, possibly unaligned: it
 * points into the model's options (or the test's array), must stay valid
 * as long as the node and is not freed. */
typedef struct rt_bucketize_params {
        const void *boundaries;
        uint32_t n_boundaries;
} rt_bucketize_params_t;

/* ReverseSequenceOptions: seq_dim (field 0), batch_dim (field 1). */
typedef struct rt_reverse_sequence_params {
        int32_t seq_dim;
        int32_t batch_dim;
} rt_reverse_sequence_params_t;

/* FakeQuantOptions: min (0), max (1), num_bits (2), narrow_range (3;
 * must be false, as in TFLite). */
typedef struct rt_fake_quant_params {
        float min;
        float max;
        int32_t num_bits;
        bool narrow_range;
} rt_fake_quant_params_t;

/* SkipGramOptions: ngram_size (0), max_skip_size (1), include_all_ngrams
 * (2). */
typedef struct rt_skip_gram_params {
        int32_t ngram_size;
        int32_t max_skip_size;
        bool include_all_ngrams;
} rt_skip_gram_params_t;

/* EmbeddingLookupSparseOptions: combiner (field 0). */
typedef enum rt_combiner {
        RT_COMBINER_SUM = 0,
        RT_COMBINER_MEAN = 1,
        RT_COMBINER_SQRTN = 2,
} rt_combiner_t;

typedef struct rt_embedding_lookup_sparse_params {
        rt_combiner_t combiner;
} rt_embedding_lookup_sparse_params_t;

/* RandomOptions (RANDOM_UNIFORM, RANDOM_STANDARD_NORMAL, MULTINOMIAL):
 * seed (field 0), seed2 (field 1), both int64. */
typedef struct rt_random_params {
        int64_t seed;
        int64_t seed2;
} rt_random_params_t;

/* Registrations (params struct in brackets; the rest have none). */
extern const rt_registration_t rt_kernel_one_hot;              /* rt_one_hot_params_t */
extern const rt_registration_t rt_kernel_where;
extern const rt_registration_t rt_kernel_unique;               /* rt_unique_params_t */
extern const rt_registration_t rt_kernel_scatter_nd;
extern const rt_registration_t rt_kernel_sparse_to_dense;      /* rt_sparse_to_dense_params_t */
extern const rt_registration_t rt_kernel_segment_sum;
extern const rt_registration_t rt_kernel_unsorted_segment_sum;
extern const rt_registration_t rt_kernel_unsorted_segment_prod;
extern const rt_registration_t rt_kernel_unsorted_segment_max;
extern const rt_registration_t rt_kernel_unsorted_segment_min;
extern const rt_registration_t rt_kernel_matrix_diag;
extern const rt_registration_t rt_kernel_matrix_set_diag;
extern const rt_registration_t rt_kernel_non_max_suppression_v4;
extern const rt_registration_t rt_kernel_non_max_suppression_v5;
extern const rt_registration_t rt_kernel_bucketize;            /* rt_bucketize_params_t */
extern const rt_registration_t rt_kernel_atan2;
extern const rt_registration_t rt_kernel_dynamic_update_slice;
extern const rt_registration_t rt_kernel_broadcast_args;
extern const rt_registration_t rt_kernel_rank;
extern const rt_registration_t rt_kernel_topk_v2;
extern const rt_registration_t rt_kernel_reverse_sequence;     /* rt_reverse_sequence_params_t */
extern const rt_registration_t rt_kernel_fake_quant;           /* rt_fake_quant_params_t */
extern const rt_registration_t rt_kernel_hashtable_lookup;
extern const rt_registration_t rt_kernel_bitcast;
extern const rt_registration_t rt_kernel_bitwise_xor;
extern const rt_registration_t rt_kernel_right_shift;
extern const rt_registration_t rt_kernel_skip_gram;            /* rt_skip_gram_params_t */
extern const rt_registration_t rt_kernel_embedding_lookup_sparse; /* rt_embedding_lookup_sparse_params_t */
extern const rt_registration_t rt_kernel_random_uniform;       /* rt_random_params_t */
extern const rt_registration_t rt_kernel_random_standard_normal; /* rt_random_params_t */
extern const rt_registration_t rt_kernel_multinomial;          /* rt_random_params_t */
